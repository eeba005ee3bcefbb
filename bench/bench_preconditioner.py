"""The whole-history solver's conjugate gradients with today's preconditioner (each player's chain, a banded
Cholesky solve of the prior plus its player-periods' game curvature) against a two-level one (issue 48): the
chains' solve as the smoother of a balancing (BNN) preconditioner whose coarse space has one vector per player
(the indicator of its player-periods), its matrix A_c = P^T H P (the games' Laplacian between players plus the
prior on each first period: the chains drop out) inverted approximately by a few Jacobi-Chebyshev steps, a fixed
polynomial positive on D^-1 A_c's spectrum, so that the preconditioner stays symmetric positive definite.

This is the numpy prototype (the reference of the core's, cpp/include/discrank/history_coarse.hpp, which
tests/test_history_core.py compares with it): it counts the conjugate-gradient iterations
per Newton step, which do not depend on the machine, and times both solves in the same run. An exact sparse
Cholesky factor of A_c is no option on ATP: a dense core of about 3 200 tour-level players fills it (17.5M
nonzeros under nested dissection). The prototype covers the ratings and the global parameters (advantage
coefficients, the draw parameter), not the context effects, the disc or the draw propensities.

    python bench/bench_preconditioner.py               # ATP, Go and football (../shared/data), fixed parameters
    python bench/bench_preconditioner.py --quick       # a seeded ladder of 3 000 players over 100 weeks
"""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Optional

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from scipy.special import expit

import discrank.solvers._history as history
import discrank.models.dynamic._model as dynamic
from discrank import DynamicElo, GameLog
from discrank.solvers._history_core import CorePart, core_rows

#: Jacobi-Chebyshev steps of the coarse solve, and the interval of D^-1 A_c they are built for: at most 2 by
#: Gershgorin (a Laplacian plus a positive diagonal); its low end a guess (ATP's lowest mode past the constant one,
#: which the chains' solve already holds, is 0.051).
CHEB_STEPS = 4
CHEB_INTERVAL = (0.05, 2.0)
#: DynamicElo's fixed parameters of bench_features --cost and bench_dynamic --memory.
FIXED = {"drift": 0.05537502037550825, "prior_scale": 2.0, "variance_scale": 4.0}


class CoarseStructure:
    """The fixed sparsity of A_c (players x players) and of GP = (G + prior) P (player-periods x players), and
    where each row's curvature lands in their values, built once per problem (its rows do not change)."""

    def __init__(self, prob, lo, hi):
        h = prob.h
        self.n, self.npl, self.nfirst = h.n_pp, h.n_players, prob.first.size
        pl = self.pl = np.asarray(h.pp_player, np.int64)
        a, b, npl, first, m = pl[lo], pl[hi], h.n_players, prob.first, lo.size
        keys = np.r_[a * npl + b, b * npl + a, a * npl + a, b * npl + b, np.arange(npl) * (npl + 1)]
        uniq, inv = np.unique(keys, return_inverse=True)
        self.ac = (uniq % npl, np.r_[0, np.cumsum(np.bincount(uniq // npl, minlength=npl))], uniq.size)
        self.ac_pos, self.ac_diag = inv[:4 * m], inv[4 * m:]
        self.sign = np.r_[-np.ones(2 * m), np.ones(2 * m)]
        keys = np.r_[lo * npl + a, lo * npl + b, hi * npl + b, hi * npl + a, first * npl + pl[first]]
        uniq, inv = np.unique(keys, return_inverse=True)
        self.gp = (uniq % npl, np.r_[0, np.cumsum(np.bincount(uniq // npl, minlength=self.n))], uniq.size)
        self.gp_pos = inv

    def matrices(self, f, prior):
        """(A_c, GP) at the rows' curvature ``f`` and the first periods' prior precision ``prior``."""
        idx, ptr, nnz = self.ac
        data = np.bincount(self.ac_pos, np.tile(f, 4) * self.sign, nnz)
        data[self.ac_diag] += prior
        ac = sp.csr_matrix((data, idx, ptr), shape=(self.npl, self.npl))
        idx, ptr, nnz = self.gp
        gdata = np.bincount(self.gp_pos, np.r_[f, -f, f, -f, np.full(self.nfirst, prior)], nnz)
        return ac, sp.csr_matrix((gdata, idx, ptr), shape=(self.n, self.npl))


def chebyshev(ac, steps=CHEB_STEPS, interval=CHEB_INTERVAL):
    """b -> p(D^-1 A_c) D^-1 b: ``steps`` Chebyshev steps from 0 (``steps`` - 1 products with A_c)."""
    dinv = 1.0 / ac.diagonal()
    theta, delta = 0.5 * (interval[1] + interval[0]), 0.5 * (interval[1] - interval[0])
    sigma = theta / delta

    def solve(b):
        x, r, rho = np.zeros_like(b), b.copy(), 1.0 / sigma
        d = dinv * r / theta
        for i in range(steps):
            x += d
            if i == steps - 1:
                return x
            r -= ac @ d
            rho_new = 1.0 / (2.0 * sigma - rho)
            d = rho_new * rho * d + (2.0 * rho_new / delta) * (dinv * r)
            rho = rho_new
    return solve


def row_curvature(prob, theta):
    """(lo, hi, each row's curvature, its coefficients of beta) at ``theta`` over the rows of a problem without a
    block or a draw model (the results' rows at their formats' scales, then the margin rows at the margin scale):
    the games' part of the Hessian that the prototype coarsens."""
    h = prob.h
    if prob.k or prob.draws:
        raise ValueError("the two-level prototype covers the ratings and the advantage covariates only")
    r, beta = theta[:h.n_pp], theta[h.n_pp:h.n_pp + h.n_cov]
    lo, hi, x, count = h.lo, h.hi, h.x, h.n
    scale = np.ones(lo.size) if prob.format_scales is None or h.fmt is None else np.asarray(prob.format_scales)[h.fmt]
    if h.margin is not None:
        lo, hi, x, count = (np.concatenate([a, b]) for a, b in zip((lo, hi, x, count), h.margin[:4]))
        scale = np.r_[scale, np.full(h.margin[0].size, prob.margin_scale)]
    p = expit(scale * (r[lo] - r[hi] + x @ beta))
    f = scale ** 2 * count * p * (1.0 - p)
    return np.asarray(lo, np.int64), np.asarray(hi, np.int64), f, f[:, None] * x


def two_level(prob, chains, theta):
    """z = Q r + (I - Q H) M (I - H Q) r, Q = P A_c~^-1 P^T, M the chains' solve ``chains`` (prob.hessian()'s), at
    ``theta`` (the problem's last value_grad): the ratings, then the covariates' beta (no block, no draw model)."""
    lo, hi, f, coef = row_curvature(prob, theta)
    cs = prob.__dict__.get("_coarse") or CoarseStructure(prob, lo, hi)
    prob._coarse = cs
    n, m, npl, pl = cs.n, prob.m, cs.npl, cs.pl
    ac, gp = cs.matrices(f, prob.prior)
    gpt = gp.T.tocsr()
    ptb = None
    if m:  # the cross block B (ratings x globals): P^T B, so that Q sees the globals' coupling
        ptb = np.stack([np.bincount(pl, np.bincount(lo, coef[:, j], n) - np.bincount(hi, coef[:, j], n), npl)
                        for j in range(m)], axis=1)
    solve = chebyshev(ac)

    def apply(r):
        y0 = solve(np.bincount(pl, r[:n], npl))  # the coarse solve of P^T r
        w = r.copy()
        w[:n] -= gp @ y0  # (I - H Q) r
        if m:
            w[n:] -= ptb.T @ y0
        z = chains.matvec(w)
        c = gpt @ z[:n]  # P^T H z
        if m:
            c += ptb @ z[n:]
        z[:n] += (y0 - solve(c))[pl]  # + Q r - Q H z
        return z

    return LinearOperator(chains.shape, matvec=apply, dtype=np.float64)


@contextlib.contextmanager
def two_level_preconditioner():
    """The whole-history problem's Hessian handed out with the two-level preconditioner, within the block."""
    plain, evaluate = history._Problem.hessian, history._Problem.value_grad

    def value_grad(self, theta):
        self._theta = np.array(theta, dtype=np.float64)  # the point of the next hessian()
        return evaluate(self, theta)

    def hessian(self):
        H, M, diag_all, C = plain(self)
        return H, two_level(self, M, self._theta), diag_all, C

    history._Problem.hessian, history._Problem.value_grad = hessian, value_grad
    try:
        yield
    finally:
        history._Problem.hessian, history._Problem.value_grad = plain, evaluate


def captured_solve(log: GameLog, params: Optional[dict] = None, timed: bool = False):
    """The arguments of the last solve_history call of ``DynamicElo(**params).fit(log)`` (``params``: FIXED by
    default); with ``timed``, and the fit's seconds."""
    calls = []
    plain = dynamic.solve_history

    def spy(h, drift, prior, draws, **kw):
        calls.append((h, drift, prior, draws, kw))
        return plain(h, drift, prior, draws, **kw)

    dynamic.solve_history = spy
    try:
        clock = time.perf_counter()
        DynamicElo(**(FIXED if params is None else params)).fit(log)
        seconds = time.perf_counter() - clock
    finally:
        dynamic.solve_history = plain
    return (calls[-1], seconds) if timed else calls[-1]


def league(seed=0, n=3000, periods=100, games=60_000, reach=30):
    """A seeded league: ``n`` players whose skills drift over ``periods`` weeks, each game between players at
    most ``reach`` apart on a ring (a ladder's local pairings: the comparison graph's slow modes span it)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, reach + 1, games)) % n
    t = np.sort(rng.uniform(0.0, 7.0 * periods, games))
    skill = rng.normal(size=n)[:, None] + np.cumsum(rng.normal(scale=0.1, size=(n, periods)), axis=1)
    week = np.minimum((t // 7).astype(int), periods - 1)
    d = skill[a, week] - skill[b, week]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(np.float64)
    return GameLog.from_arrays(a, b, y, np.datetime64("2020-01-06") + (t * 86400).astype("timedelta64[s]"))


def compare(name: str, log: GameLog) -> None:
    h, drift, prior, draws, kw = captured_solve(log)
    # the rows as one part on the Python Newton loop (the prototype's reference: the core's problem has its own
    # preconditioners, bench_history_core.py)
    kw = dict(kw, rows=CorePart(core_rows(h, draws, kw["margin_scale"], kw["format_scales"], kw["disc"],
                                          kw["propensity_scale"] > 0)))
    clock = time.perf_counter()
    base = history.solve_history(h, drift, prior, draws, **kw)
    seconds_base = time.perf_counter() - clock
    with two_level_preconditioner():
        clock = time.perf_counter()
        two = history.solve_history(h, drift, prior, draws, **kw)
        seconds_two = time.perf_counter() - clock
    print(f"{name:<10} {h.n_pp:>9} {h.n_players:>8} {base.n_iter:>5} {base.n_cg:>6} {base.n_cg / base.n_iter:>7.1f} "
          f"{two.n_iter:>5} {two.n_cg:>6} {two.n_cg / two.n_iter:>7.1f} {seconds_base:>8.2f} {seconds_two:>8.2f} "
          f"{seconds_two / seconds_base:>6.2f} {np.abs(two.r - base.r).max():>10.2e} "
          f"{(two.objective - base.objective) / abs(base.objective):>10.1e} {base.converged and two.converged}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a seeded league instead of the real logs")
    parser.add_argument("--logs", nargs="*", default=["atp", "go", "football"], choices=["atp", "go", "football"])
    args = parser.parse_args()
    print(f"{'log':<10} {'pp':>9} {'players':>8} {'steps':>5} {'cg':>6} {'cg/step':>7} {'steps':>5} {'cg':>6} "
          f"{'cg/step':>7} {'base s':>8} {'2-lvl s':>8} {'ratio':>6} {'max|dr|':>10} {'d obj rel':>10} converged")
    print(f"{'':<10} {'':>9} {'':>8} {'-- today (chains) --':>20} {'-- two-level --':>20}")
    if args.quick:
        compare("league", league())
        return
    import datasets

    loaders = {"atp": datasets.tennis_atp_log, "go": datasets.go_tygem_log, "football": datasets.football_log}
    for name in args.logs:
        compare(name, loaders[name]())


if __name__ == "__main__":
    main()
