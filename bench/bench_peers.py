"""discrank against the tools its users would otherwise pick, measured in the same run.

    pip install '.[bench]'                      # scikit-learn, choix, openskill, evalica (peers only)
    python bench/bench_peers.py                 # everything, ~10 minutes on 2 cores
    python bench/bench_peers.py --only elo      # one section: elo, real, ladder, disc, online
    python bench/bench_peers.py --quick         # small sizes (seconds), as tests/test_bench.py runs it

A peer that is not installed is skipped with a line saying so. Sections:

elo     Stationary Elo / Bradley-Terry on random pairings (1k players / 100k games, 10k / 1M, 40k / 4.7M;
        logit P = s_a - s_b + 0.5 sin(theta_a - theta_b)). 10% of the games are held out. Each solver runs
        with its default settings, then with tolerances from loose to tight; "matched" is the loosest
        tolerance whose held-out log loss is within 1e-4 of the exact optimum's (discrank Elo at tol
        1e-12), and its time the best of 3. "aggregated": the input is already pairs (sklearn: one row per
        pair and result, sample weights = counts; design built outside the timer); "end to end": from the
        raw game log (sklearn: one row per game, design built inside the timer; discrank: from_games + fit).
        evalica's bradley_terry (Rust; Zermelo's MM iteration on dense n x n win / tie matrices) gets the
        aggregated pairs as weighted rows; it is skipped where its three n x n float64 matrices would
        not fit in 80% of the available memory, and above EVALICA_MAX_PLAYERS players (--evalica-all).
real    The same comparison on the real tennis (ATP) and Go (Tygem) logs of ../shared/data, restricted to
        the largest strongly connected piece of the training log's "beat" graph (finite optimum).
ladder  Elo on ladder pairings (each game between players 1-50 ranks apart; 10k / 1M and 40k / 4.7M):
        defaults of sklearn and scipy, an independent exact Newton fit (scipy.sparse direct solve on the
        grounded Laplacian) and discrank; Spearman correlation with the true skills and with the exact
        fit, and the relative gradient norm |grad f(s)| / |grad f(0)| of each answer.
disc    The disc decomposition k = 1 against a dense numpy implementation of the paper's Algorithm 1
        (n x n arrays and a mask, as the paper's own code; alternating scipy L-BFGS-B steps on u then v
        until the objective changes by less than 1e-10 relative) on complete n = 200, 1000, 3000 matrices
        (20 games per pair), then discrank's disc k = 1 and 2 end to end at 40k / 4.7M.
online  Sequential updates: openskill's Plackett-Luce (its per-game rate) against discrank's online Elo
        and disc updates (Python entry points, labels included).

Memory: "peak B/pair" is the peak resident-set growth of a fit over its start, in a fresh process with a
fixed malloc mmap threshold (so that freed memory is returned and not silently reused), per pair.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import warnings

import numpy as np
import scipy
import scipy.optimize
import scipy.sparse as sp
from scipy.stats import spearmanr

import discrank
from discrank import DiscDecomposition, Elo, PairwiseData

HERE = os.path.dirname(os.path.abspath(__file__))
MATCH = 1e-4  # held-out log loss within this of the optimum's
CHOIX_MAX_GAMES = 100_000  # --choix-all: also at 1M games (ilsr_pairwise: 63 s at tol 1e-4, 119 s by default)
EVALICA_MAX_PLAYERS = 10_000  # --evalica-all: above too, memory permitting (dense MM: ~1.7 s per sweep at 10k)


def have(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        print(f"  ({module} is not installed: its rows are skipped; pip install '.[bench]')")
        return False


def best_of(fn, repeat: int = 3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


# ---------------------------------------------------------------------------------------------- data
def simulate_random(n: int, games: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 0.6, n)
    theta = rng.uniform(0.0, 2.0 * np.pi, n)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    logit = skill[a] - skill[b] + 0.5 * np.sin(theta[a] - theta[b])
    score = (rng.random(games) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float64)
    return a, b, score, skill


def simulate_ladder(n: int, games: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    skill = np.sort(rng.normal(0.0, 1.5, n))
    a = rng.integers(0, n, games)
    b = np.clip(a + rng.integers(1, 51, games) * rng.choice([-1, 1], games), 0, n - 1)
    keep = a != b
    a, b = a[keep], b[keep]
    score = (rng.random(a.size) < 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))).astype(np.float64)
    return a, b, score, skill


def log_loss(s: np.ndarray, a: np.ndarray, b: np.ndarray, score: np.ndarray) -> float:
    A = s[a] - s[b]
    return float(np.mean(np.logaddexp(0.0, A) - score * A))


def bt_objective(data: PairwiseData):
    """Plain numpy Bradley-Terry: mean log loss over the games of the aggregated pairs, and gradient
    (tests/reference.py's ``bradley_terry``, the reference the tests check the core against)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
    from reference import bradley_terry

    return bradley_terry(data)[0]


def relative_gradient(fun, s: np.ndarray) -> float:
    return float(np.linalg.norm(fun(s)[1]) / np.linalg.norm(fun(np.zeros_like(s))[1]))


# -------------------------------------------------------------------------------------------- peers
def sklearn_design_from_pairs(data: PairwiseData):
    wins = data.p * data.n_games
    losses = data.n_games - wins
    rows_i = np.r_[data.i, data.i]
    rows_j = np.r_[data.j, data.j]
    y = np.r_[np.ones(data.n_pairs), np.zeros(data.n_pairs)]
    weight = np.r_[wins, losses]
    keep = weight > 0
    return pm_design(rows_i[keep], rows_j[keep], data.n_players), y[keep], weight[keep]


def pm_design(a: np.ndarray, b: np.ndarray, n: int):
    """The +-1 design of Bradley-Terry as a logistic regression: row t has +1 at a[t], -1 at b[t]."""
    m = a.size
    indptr = np.arange(0, 2 * m + 1, 2)
    indices = np.empty(2 * m, dtype=np.int32)
    indices[0::2], indices[1::2] = a, b
    data = np.empty(2 * m)
    data[0::2], data[1::2] = 1.0, -1.0
    return sp.csr_matrix((data, indices, indptr), shape=(m, n))


def sklearn_fit(X, y, weight, tol=None):
    from sklearn.linear_model import LogisticRegression

    kw = {} if tol is None else {"tol": tol, "max_iter": 100_000}
    # C=inf: no penalty (the maximum-likelihood Bradley-Terry fit, as the others)
    clf = quiet(lambda: LogisticRegression(C=np.inf, fit_intercept=False, **kw).fit(X, y, sample_weight=weight))
    return clf.coef_.ravel(), int(np.max(clf.n_iter_))


def scipy_fit(data: PairwiseData, options=None):
    fun = bt_objective(data)
    res = scipy.optimize.minimize(fun, np.zeros(data.n_players), jac=True, method="L-BFGS-B", options=options)
    return res.x, res.nit


def evalica_rows(data: PairwiseData):
    """The aggregated pairs as evalica rows: (i, j, X won) weighted by the wins of i, (i, j, Y won) by
    its losses (as sklearn_design_from_pairs)."""
    from evalica import Winner

    wins = data.p * data.n_games
    losses = data.n_games - wins
    xs, ys, weight = np.r_[data.i, data.i], np.r_[data.j, data.j], np.r_[wins, losses]
    winners = np.r_[np.full(data.n_pairs, int(Winner.X), np.uint8), np.full(data.n_pairs, int(Winner.Y), np.uint8)]
    keep = weight > 0
    return xs[keep], ys[keep], winners[keep], weight[keep]


def evalica_fit(rows, n: int, tol=None):
    """evalica.bradley_terry on the weighted rows; tol None = its defaults (tolerance 1e-6, limit 100
    sweeps). Its scores are exp(rating) with geometric mean 1."""
    import evalica
    import pandas as pd

    xs, ys, winners, weight = rows
    index = pd.RangeIndex(n)
    kw = {} if tol is None else {"tolerance": tol, "limit": 100_000}
    res = evalica.bradley_terry(xs, ys, winners, index=index, weights=weight, **kw)
    return np.log(res.scores.reindex(index).to_numpy()), int(res.iterations)


def evalica_skip_reason(n: int):
    """Why evalica's dense fit is not run at n players (None: run it)."""
    need = 3 * 8 * n * n  # win, tie and win + tie matrices, float64
    avail = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
    except OSError:
        pass
    if avail is None:
        avail = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if need > 0.8 * avail:
        return (f"its three dense {n} x {n} float64 matrices need {need / 2**30:.1f} GiB, more than 80% of the "
                f"{avail / 2**30:.1f} GiB available")
    if n > EVALICA_MAX_PLAYERS:
        return f"{n} players > {EVALICA_MAX_PLAYERS}: dense O(n^2) sweeps take minutes; --evalica-all"
    return None


def choix_pairs(data: PairwiseData):
    wins = np.rint(data.p * data.n_games).astype(np.int64)
    losses = np.rint(data.n_games).astype(np.int64) - wins
    out = []
    for i, j, w, l in zip(data.i.tolist(), data.j.tolist(), wins.tolist(), losses.tolist()):
        out.extend([(i, j)] * w)
        out.extend([(j, i)] * l)
    return out


# --------------------------------------------------------------------------------------------- elo
def section_elo(sizes, repeat):
    print("\n== Elo / Bradley-Terry, random pairings: held-out log loss and time ==")
    table = []
    for n, games in sizes:
        a, b, score, _ = simulate_random(n, games)
        test = np.random.default_rng(1).random(a.size) < 0.1
        label = f"{n} players, {games} games"
        table.append((label, compare_elo(label, n, a[~test], b[~test], score[~test], a[test], b[test], score[test],
                                         repeat, choix_ok=games <= CHOIX_MAX_GAMES, opt_ok=repeat > 1 and games <= 100_000)))
    summary(table)


def section_real(repeat):
    """The real tennis (ATP) and Go (Tygem 9d) logs: 10% of the games held out at random; the training
    log restricted to the largest strongly connected piece of its "beat" graph (where the
    maximum-likelihood ratings are finite, Zermelo's condition), the held-out games to its players."""
    sys.path.insert(0, HERE)
    import datasets
    from scipy.sparse.csgraph import connected_components

    print("\n== Elo / Bradley-Terry on real logs (../shared/data) ==")
    if not datasets.available():
        print("  ../shared/data is not there: skipped")
        return
    table = []
    for name, loader in (("tennis ATP", datasets.tennis_atp), ("Go Tygem 9d", datasets.go_tygem)):
        a, b, score, _ = loader()
        labels, code = np.unique(np.r_[a, b], return_inverse=True)
        a, b = code[: a.size], code[a.size:]
        # the tennis log lists the winner first: orient each game at random (same information; a
        # logistic regression on one row per game needs both classes)
        flip = np.random.default_rng(2).random(a.size) < 0.5
        a, b, score = np.where(flip, b, a), np.where(flip, a, b), np.where(flip, 1.0 - score, score)
        test = np.random.default_rng(1).random(a.size) < 0.1
        n = labels.size
        winner = np.where(score[~test] > 0.5, a[~test], b[~test])
        loser = np.where(score[~test] > 0.5, b[~test], a[~test])
        beat = sp.coo_matrix((np.ones(winner.size), (winner, loser)), shape=(n, n)).tocsr()
        _, piece = connected_components(beat, directed=True, connection="strong")
        keep_player = piece == np.bincount(piece).argmax()
        new = np.cumsum(keep_player) - 1
        keep = keep_player[a] & keep_player[b]
        tr, te = keep & ~test, keep & test
        m = int(keep_player.sum())
        label = f"{name}: {a.size} games, {n} players; kept {m} players, {tr.sum()} + {te.sum()} games"
        table.append((name, compare_elo(label, m, new[a[tr]], new[b[tr]], score[tr], new[a[te]], new[b[te]],
                                        score[te], repeat, choix_ok=False, opt_ok=False)))
    summary(table)


def compare_elo(label, n, ta, tb, ts, ha, hb, hs, repeat, choix_ok, opt_ok):
    has_sk = have("sklearn")
    has_choix = choix_ok and have("choix")
    has_evalica = have("evalica")
    data = PairwiseData.from_games(ta, tb, ts, labels=np.arange(n))
    fun = bt_objective(data)
    exact = quiet(lambda: Elo(prior_scale=np.inf, tol=1e-12).fit(data)).ratings_
    best_ll = log_loss(exact, ha, hb, hs)
    print(f"\n{label} ({data.n_pairs} training pairs); optimum's held-out log loss {best_ll:.6f}")
    print(f"  {'solver':<52}{'time (s)':>9}{'iters':>7}{'held-out LL':>13}{'- optimum':>11}{'rel |grad|':>11}")
    rows = {}

    def run(name, fit, tols, rep=repeat):
        """fit(tol) -> (ratings, iterations); tol None = the defaults. Records the matched tolerance."""
        chosen = None
        for tol in tols:
            t0 = time.perf_counter()
            s, it = fit(tol)
            t = time.perf_counter() - t0
            s = s - s.mean()
            ll = log_loss(s, ha, hb, hs)
            tag = f"{name} ({'defaults' if tol is None else f'tol {tol:g}'})"
            print(f"  {tag:<52}{t:>9.2f}{it:>7}{ll:>13.6f}{ll - best_ll:>11.1e}{relative_gradient(fun, s):>11.1e}")
            if chosen is None and abs(ll - best_ll) <= MATCH:
                chosen = (tol,)  # the defaults (None) count too
        if chosen is None:
            print(f"  {name}: no tolerance tried reached the optimum's held-out log loss to {MATCH:g}")
            return
        chosen = chosen[0]
        t, _ = best_of(lambda: fit(chosen), rep)
        rows[name] = (chosen, t)
        tag = "defaults" if chosen is None else f"tol {chosen:g}"
        print(f"  {name + ' matched':<52}{t:>9.2f}  ({tag}, best of {rep})")

    def discrank_fit(tol):
        m = quiet(lambda: Elo(prior_scale=np.inf, tol=tol).fit(data))  # tol None: the default 1e-9
        return m.ratings_, m.n_iter_

    run("discrank Elo", discrank_fit, [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, None])
    run("scipy L-BFGS-B, numpy BT objective",
        lambda tol: scipy_fit(data, None if tol is None else {"ftol": 0.0, "gtol": tol, "maxiter": 100_000}),
        [None, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10])
    if has_sk:
        X, y, wt = sklearn_design_from_pairs(data)
        run("sklearn LogisticRegression (lbfgs)", lambda tol: sklearn_fit(X, y, wt, tol),
            [None, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9])  # None: its default tol 1e-4
    if has_choix:
        import choix

        pairs = choix_pairs(data)
        run("choix ilsr_pairwise", lambda tol: (choix.ilsr_pairwise(n, pairs, tol=tol or 1e-8), 0),
            [None, 1e-4, 1e-6, 1e-8])
        if opt_ok:
            run("choix opt_pairwise (Newton-CG, alpha 1e-6)",
                lambda tol: (choix.opt_pairwise(n, pairs, tol=tol or 1e-5), 0), [1e-5], rep=1)
    elif choix_ok is False and have("choix"):
        print("  choix: skipped here (ilsr_pairwise on a Python list of games: 63-119 s at 1M games; --choix-all)")
    if has_evalica:
        why = evalica_skip_reason(n)
        if why is None:
            rows_ev = evalica_rows(data)  # built outside the timer, as sklearn's design
            run("evalica bradley_terry (Rust MM)", lambda tol: evalica_fit(rows_ev, n, tol),
                [1e-2, 1e-3, 1e-4, 1e-5, None, 1e-8])  # None: its default tolerance 1e-6 (100 sweeps at most)
        else:
            print(f"  evalica: skipped here ({why})")

    # end to end from the raw game log
    e2e = {}
    if "discrank Elo" in rows:
        tol = rows["discrank Elo"][0]
        e2e["discrank"] = best_of(lambda: quiet(lambda: Elo(prior_scale=np.inf, tol=tol).fit(PairwiseData.from_games(ta, tb, ts))),
                                  repeat)[0]
    if has_sk and "sklearn LogisticRegression (lbfgs)" in rows:
        tol = rows["sklearn LogisticRegression (lbfgs)"][0]
        e2e["sklearn"] = best_of(lambda: sklearn_fit(pm_design(ta, tb, n), ts, None, tol), repeat)[0]
    if len(e2e) == 2:
        print(f"  end to end from the game log (matched tolerances, best of {repeat}): discrank "
              f"{e2e['discrank']:.2f} s, sklearn (design + fit) {e2e['sklearn']:.2f} s")
    return rows, e2e


def summary(table):
    print("\nsummary (matched held-out log loss; ratio = peer time / discrank time)")
    for label, (rows, e2e) in table:
        base = rows.get("discrank Elo", (None, np.nan))[1]
        parts = [f"{name.split(' (')[0].split(',')[0]} {t:.2f} s ({t / base:.1f}x)" for name, (_, t) in rows.items()
                 if name != "discrank Elo"]
        line = f"  {label}: discrank {base:.2f} s; " + "; ".join(parts)
        if len(e2e) == 2:
            line += f"; end to end sklearn {e2e['sklearn']:.2f} s / discrank {e2e['discrank']:.2f} s = " \
                    f"{e2e['sklearn'] / e2e['discrank']:.1f}x"
        print(line)


# ------------------------------------------------------------------------------------------ ladder
def exact_newton(data: PairwiseData, tol: float = 1e-12):
    """Independent exact fit: Newton with a sparse direct solve (SuperLU) on the Laplacian with player 0
    grounded, numpy objective."""
    from scipy.sparse.linalg import spsolve

    fun = bt_objective(data)
    n, i, j = data.n_players, data.i, data.j
    w = data.pair_weights() / data.pair_weights().sum()
    s = np.zeros(n)
    g0 = np.linalg.norm(fun(s)[1])
    for it in range(100):
        f, g = fun(s)
        if np.linalg.norm(g) <= tol * g0:
            return s - s.mean(), it
        A = s[i] - s[j]
        c = w * 0.25 / np.cosh(0.5 * A) ** 2
        L = sp.coo_matrix((np.r_[c, c, -c, -c], (np.r_[i, j, i, j], np.r_[i, j, j, i])), shape=(n, n)).tocsc()
        d = np.zeros(n)
        d[1:] = spsolve(L[1:, 1:], -g[1:])
        step = 1.0
        while fun(s + step * d)[0] > f + 1e-4 * step * (g @ d) and step > 1e-8:
            step /= 2
        s = s + step * d
    return s - s.mean(), 100


def section_ladder(sizes):
    print("\n== Elo on ladder pairings (players meet opponents 1-50 ranks away) ==")
    has_sk = have("sklearn")
    for n, games in sizes:
        a, b, score, skill = simulate_ladder(n, games)
        data = PairwiseData.from_games(a, b, score, labels=np.arange(n))
        fun = bt_objective(data)
        print(f"\n{n} players, {a.size} games, {data.n_pairs} pairs")
        t0 = time.perf_counter()
        exact, it = exact_newton(data)
        t_exact = time.perf_counter() - t0
        print(f"  {'fit':<46}{'time (s)':>9}{'iters':>7}{'Spearman truth':>16}{'vs exact':>10}{'rel |grad|':>12}")

        def row(name, s, t, it, extra=""):
            print(f"  {name:<46}{t:>9.2f}{it:>7}{spearmanr(s, skill).correlation:>16.4f}"
                  f"{spearmanr(s, exact).correlation:>10.4f}{relative_gradient(fun, s):>12.1e}{extra}")

        row("exact Newton (scipy.sparse spsolve, reference)", exact, t_exact, it)
        t0 = time.perf_counter()
        s, it = scipy_fit(data)
        row("scipy L-BFGS-B defaults, numpy objective", s, time.perf_counter() - t0, it)
        if has_sk:
            X, y, wt = sklearn_design_from_pairs(data)
            t0 = time.perf_counter()
            s, it = sklearn_fit(X, y, wt)
            row("sklearn LogisticRegression defaults", s, time.perf_counter() - t0, it)
            t0 = time.perf_counter()
            s, it = sklearn_fit(X, y, wt, 1e-8)
            row("sklearn LogisticRegression tol 1e-8", s, time.perf_counter() - t0, it)
        t0 = time.perf_counter()
        model = quiet(lambda: Elo(prior_scale=np.inf).fit(data))
        row("discrank Elo (defaults)", model.ratings_, time.perf_counter() - t0, model.n_iter_,
            f"  converged_={model.converged_}, {model.linear_solver_}, max |s - exact| "
            f"{np.abs(model.ratings_ - exact).max():.1e}")


# -------------------------------------------------------------------------------------------- disc
def dense_algorithm1(P: np.ndarray, W: np.ndarray, seed: int = 0, rtol: float = 1e-10, max_rounds: int = 10_000,
                     budget_s: float = 300.0):
    """Algorithm 1 of the paper for one component, on dense n x n arrays: alternate L-BFGS on u (v fixed)
    and on v (u fixed) of sum_ij W_ij bce(P_ij, sigmoid(u_i v_j - v_i u_j)) (both orientations; a sum,
    as the paper's code: with the mean, scipy's default gradient tolerance stops at the u = v = 0 saddle
    from n = 1000 on). Returns the objective as discrank reports it: the weighted mean over the pairs."""
    n = P.shape[0]
    rng = np.random.default_rng(seed)
    u, v = rng.normal(0, 1.0, n), rng.normal(0, 1.0, n)
    total = 1.0

    def parts(u, v):
        A = np.outer(u, v) - np.outer(v, u)
        f = np.sum(W * (np.logaddexp(0.0, A) - P * A)) / total
        R = W * (0.5 * (1.0 + np.tanh(0.5 * A)) - P) / total
        return f, R

    def fu(x):
        f, R = parts(x, v)
        return f, R @ v - R.T @ v

    def fv(x):
        f, R = parts(u, x)
        return f, R.T @ u - R @ u

    f_old = np.inf
    t0 = time.perf_counter()
    for rounds in range(1, max_rounds + 1):
        u = scipy.optimize.minimize(fu, u, jac=True, method="L-BFGS-B").x
        res = scipy.optimize.minimize(fv, v, jac=True, method="L-BFGS-B")
        v, f = res.x, res.fun
        if abs(f_old - f) <= rtol * abs(f) or time.perf_counter() - t0 > budget_s:
            break
        f_old = f
    return f / W.sum(), rounds


def section_disc(dense_sizes, scale):
    print("\n== Disc decomposition, k = 1: discrank against a dense numpy Algorithm 1 ==")
    print(f"  {'n':>6}{'dense time (s)':>16}{'rounds':>8}{'dense objective':>18}{'discrank (s)':>14}"
          f"{'discrank objective':>20}{'speed-up':>10}")
    for n in dense_sizes:
        rng = np.random.default_rng(n)
        skill, theta = rng.normal(0, 0.6, n), rng.uniform(0, 2 * np.pi, n)
        logit = skill[:, None] - skill[None, :] + 0.5 * np.sin(theta[:, None] - theta[None, :])
        iu, ju = np.triu_indices(n, 1)
        wins = rng.binomial(20, 1.0 / (1.0 + np.exp(-logit[iu, ju])))
        data = PairwiseData.from_pairs(iu, ju, wins / 20.0, np.full(iu.size, 20.0), labels=np.arange(n))
        P = np.full((n, n), 0.5)
        P[iu, ju], P[ju, iu] = wins / 20.0, 1 - wins / 20.0
        W = np.ones((n, n)) - np.eye(n)
        t0 = time.perf_counter()
        f_dense, rounds = dense_algorithm1(P, W)
        t_dense = time.perf_counter() - t0
        # discrank at the loosest tolerance that reaches the dense objective (to 1e-10 relative)
        for tol in (1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9):
            model = quiet(lambda: DiscDecomposition(1, prior_scale=np.inf, tol=tol, random_state=0).fit(data))
            if model.loss_ <= f_dense * (1 + 1e-10):
                break
        t_disc, model = best_of(lambda: quiet(lambda: DiscDecomposition(1, prior_scale=np.inf, tol=tol, random_state=0).fit(data)), 3)
        print(f"  {n:>6}{t_dense:>16.2f}{rounds:>8}{f_dense:>18.10f}{t_disc:>14.3f}{model.loss_:>20.10f}"
              f"{t_dense / t_disc:>9.0f}x  (discrank tol {tol:g})")
    if scale is None:
        return
    n, games = scale
    a, b, score, _ = simulate_random(n, games)
    print(f"\n  end to end at {n} players / {games} games (aggregation + fit; peak memory in a fresh process):")
    for k in (1, 2):
        out = fresh_process_fit(n, games, "disc", k)
        print(f"    DiscDecomposition({k}): {out['seconds']:.2f} s (aggregation {out['aggregate']:.2f} s), "
              f"{out['iters']} iterations, converged {out['converged']}, peak {out['peak'] / out['pairs']:.0f} B/pair")
    out = fresh_process_fit(n, games, "elo", 0)
    print(f"    Elo: {out['seconds']:.2f} s (aggregation {out['aggregate']:.2f} s), peak "
          f"{out['peak'] / out['pairs']:.0f} B/pair")


def fresh_process_fit(n: int, games: int, model: str, k: int) -> dict:
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="131072")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", f"{model},{k},{n},{games}"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(spec: str) -> None:
    sys.path.insert(0, HERE)
    from bench_scale import PeakMemory

    model, k, n, games = spec.split(",")
    a, b, score, _ = simulate_random(int(n), int(games))
    t0 = time.perf_counter()
    data = PairwiseData.from_games(a, b, score)
    t_agg = time.perf_counter() - t0
    est = DiscDecomposition(int(k), prior_scale=np.inf, random_state=0) if model == "disc" else Elo(prior_scale=np.inf)
    with PeakMemory() as mem:
        quiet(lambda: est.fit(data))
    total = time.perf_counter() - t0
    print(json.dumps({"seconds": total, "aggregate": t_agg, "peak": mem.extra, "pairs": data.n_pairs,
                      "iters": int(np.sum(est.n_iter_)), "converged": bool(np.all(est.converged_))}))


# ------------------------------------------------------------------------------------------ online
def section_online(n: int, games: int, openskill_games: int):
    print("\n== Online updates (games per second, Python entry points, labels included) ==")
    from discrank.online import online_disc, online_elo

    rng = np.random.default_rng(0)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    score = (rng.random(games) < 0.5).astype(np.float64)
    t, _ = best_of(lambda: online_elo(a, b, score), 3)
    elo_rate = games / t
    t, _ = best_of(lambda: online_disc(a, b, score), 3)
    disc_rate = games / t
    print(f"  discrank online_elo   {elo_rate / 1e6:8.1f} M games/s ({n} players, {games} games)")
    print(f"  discrank online_disc  {disc_rate / 1e6:8.1f} M games/s")
    if have("openskill"):
        from openskill.models import PlackettLuce

        pl = PlackettLuce()
        ratings = [pl.rating() for _ in range(n)]
        t0 = time.perf_counter()
        for x, y, sc in zip(a[:openskill_games].tolist(), b[:openskill_games].tolist(),
                            score[:openskill_games].tolist()):
            first, second = (x, y) if sc > 0.5 else (y, x)
            [[ratings[first]], [ratings[second]]] = pl.rate([[ratings[first]], [ratings[second]]])
        os_rate = openskill_games / (time.perf_counter() - t0)
        print(f"  openskill PlackettLuce {os_rate / 1e6:8.3f} M games/s ({openskill_games} games); discrank Elo "
              f"{elo_rate / os_rate:.0f}x, disc {disc_rate / os_rate:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["elo", "real", "ladder", "disc", "online"])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--choix-all", action="store_true", help="run choix at 1M games too (minutes)")
    parser.add_argument("--evalica-all", action="store_true",
                        help="run evalica above 10k players too, where memory allows (minutes)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    if args.choix_all:
        global CHOIX_MAX_GAMES
        CHOIX_MAX_GAMES = 1_000_000
    if args.evalica_all:
        global EVALICA_MAX_PLAYERS
        EVALICA_MAX_PLAYERS = 10**9
    print(f"discrank {discrank.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, Python "
          f"{platform.python_version()}, {os.cpu_count()} CPUs ({platform.machine()}), OpenMP threads "
          f"{discrank.core._core.max_threads()}")
    if args.quick:
        plan = dict(elo=[(300, 20_000)], ladder=[(1_000, 50_000)], disc=([100], None), online=(1_000, 200_000, 2_000))
        repeat = 1
    else:
        plan = dict(elo=[(1_000, 100_000), (10_000, 1_000_000), (40_000, 4_700_000)],
                    ladder=[(10_000, 1_000_000), (40_000, 4_700_000)],
                    disc=([200, 1_000, 3_000], (40_000, 4_700_000)), online=(40_000, 10_000_000, 20_000))
        repeat = 3
    if args.only in (None, "elo"):
        section_elo(plan["elo"], repeat)
    if args.only in (None, "real") and not args.quick:
        section_real(repeat)
    if args.only in (None, "ladder"):
        section_ladder(plan["ladder"])
    if args.only in (None, "disc"):
        section_disc(*plan["disc"])
    if args.only in (None, "online"):
        section_online(*plan["online"])


if __name__ == "__main__":
    main()
