"""The whole-history problem: player-periods, their random-walk chains, and Newton's method on it.

A player's rating is a Gaussian random walk in time (Glicko, Coulom's Whole-History Rating, TrueSkill Through
Time): ``r_{p,t'} - r_{p,t} ~ N(0, drift^2 (t' - t))`` between two periods ``t < t'`` in which ``p`` played, and
``r_{p,first} ~ N(0, prior_scale^2)``. The games give ``logit P(a beats b) = r_{a,t} - r_{b,t} + beta . x`` (two
outcomes, a draw counting half), or Davidson's three outcomes with a draw parameter ``eta`` (``P(draw) = e^eta /
(e^{d/2} + e^{-d/2} + e^eta)``). The MAP of the ratings, ``beta`` and ``eta`` together is a convex problem (the disc
game's bilinear term, :func:`solve_history`'s ``disc``, makes it nonconvex) whose Hessian is

- over player-periods: the pair Laplacian of the games (weights the loss's curvature) plus each player's
  tridiagonal chain (weights ``1 / (drift^2 dt)``) plus the prior on each first period;
- bordered by a few dense rows and columns for ``beta`` and ``eta`` (``beta`` with the weak prior of
  :data:`discrank.data._advantage.BETA_PRIOR_SCALE` on its diagonal).

Numbering the player-periods player by player, then period by period, makes the chains one tridiagonal matrix: the
preconditioner of conjugate gradients is its L D L^T solve (with the games' curvature on its diagonal), and each Newton
system is solved to a relative residual that shrinks with the gradient (an inexact Newton method: superlinear
convergence to the exact MAP). :mod:`discrank.solvers._history_build` builds the rows (:func:`build_history`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from scipy.linalg import lapack
from scipy.sparse.linalg import LinearOperator, cg

from discrank.core import _core
from discrank.data._advantage import beta_precision
from discrank.solvers._disc_start import along_mode, canonical_gauge, lowest_disc_mode
from discrank.solvers._draws import draw_start
from discrank.solvers._history_core import core_problem
from discrank.solvers._history_build import (History, build_history, carry, chain_pivots, chain_variances,  # noqa: F401
                                     chains)  # (the history's names, importable from here)
from discrank._util.progress import report_step

__all__ = ["History", "build_history", "solve_history", "covariance_at", "chains", "carry", "chain_pivots",
           "chain_precisions", "chain_variances", "default_start", "gradient_at", "release_memory"]

#: The largest relative residual of a Newton step's conjugate gradients (the forcing term's cap).
FORCING_CAP = 0.1
#: A step's conjugate gradients stop once no entry of their residual exceeds this share of the fit's target (``tol *
#: scale`` on max |g|), whatever the forcing term: the linearised gradient after the step is minus the residual.
TARGET_SHARE = 0.5
#: The tuning's solves of histories of at least this many player-periods return freed memory (:func:`release_memory`).
TRIM_SIZE = 1 << 16
#: The preconditioners of the core's Newton steps (discrank.solvers._history_core): each player's chain, or two levels.
PRECONDITIONERS = ("chains", "two-level")
#: A step whose predicted decrease is below this times the objective is judged by the gradient (the objective's sums
#: round at about 1e-16 of their value, times the terms' count's square root).
ROUNDING = 1e-13


@dataclass
class HistoryResult:
    """The MAP of :func:`solve_history` and how it was reached."""

    r: np.ndarray
    beta: np.ndarray
    eta: Optional[float]
    objective: float
    gradient: float  # max |g| / max(1, max |g(0)|)
    n_iter: int
    n_cg: int
    converged: bool
    hessian_diag: np.ndarray  # the chain + games + prior diagonal (for the variances)
    hessian_off: np.ndarray  # the chain's off-diagonal
    scale: float = 1.0  # max(1, max |g(0)|): the gradient's scale of the stopping rule
    grad: Optional[np.ndarray] = None  # the gradient at the MAP (ratings, then beta and eta)
    games_diag: Optional[np.ndarray] = None  # the games' part of hessian_diag
    theta: Optional[np.ndarray] = None  # every parameter: r, the context effects, beta, eta (r is a view of it)
    effects: Optional[np.ndarray] = None  # the context effects (None without contexts)
    effects_diag: Optional[np.ndarray] = None  # their Hessian's diagonal (games and prior)
    disc: Optional[np.ndarray] = None  # the disc components: u of each component, then v (None without)
    propensity: Optional[np.ndarray] = None  # each player's draw propensity (None without)
    propensity_diag: Optional[np.ndarray] = None  # their Hessian's diagonal (games and prior)
    disc_sigma: Optional[float] = None  # the residuals' largest singular value with the disc at 0 (_disc_start)


def chain_precisions(gap: np.ndarray, drift: float) -> np.ndarray:
    """The precision ``1 / (drift^2 gap)`` of each link of the random-walk chains (0 where ``gap`` is 0: no
    link)."""
    return np.where(gap > 0, 1.0 / (drift ** 2 * np.maximum(gap, 1e-300)), 0.0)


#: The standard deviation of the disc components' start in :func:`default_start` (drawn from numpy's Generator seeded
#: 0): ``u = v = 0`` is a saddle point of the disc game's bilinear term, where its gradient vanishes. A fit from
#: scratch starts the first component along the lowest mode instead (:func:`_disc_staged`).
DISC_START = 0.1


def default_start(h: History, draws, disc: int = 0, propensity: bool = False) -> np.ndarray:
    """The parameter vector a fit starts from: every rating, context effect and beta at 0, Davidson's ``eta`` at
    0, and Rao and Kupper's threshold at the log's draw rate for ``d = 0`` (``P(draw) = 2 sigmoid(kappa) - 1``);
    ``disc`` components' ``u`` and ``v`` drawn N(0, DISC_START^2) (seed 0, the same start whatever the
    threads); the draw propensities (with ``propensity``) at 0; the stopping rule's scale is the gradient there
    (:func:`solve_history`)."""
    n_disc = 2 * disc * h.n_players
    zero = np.zeros(h.n_pp + h.n_eff + n_disc + (h.n_players if propensity else 0) + h.n_cov + (1 if draws else 0))
    if draws == "rao-kupper":
        zero[-1] = draw_start(draws, float(h.draw.sum()) / max(float(h.n.sum()), 1.0))
    if disc:
        start = h.n_pp + h.n_eff
        zero[start:start + n_disc] = DISC_START * np.random.default_rng(0).standard_normal(n_disc)
    return zero


def gradient_at(h: History, drift: float, prior_scale: float, draws, theta: np.ndarray,
                n_threads: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(gradient, games' curvature of each player-period) of the MAP objective of ``h`` (without contexts or
    margins: :class:`discrank.solvers._history_update.HistoryState`'s) at ``theta``."""
    prob = _Problem(h, drift, prior_scale, draws, n_threads)
    _, grad = prob.value_grad(np.asarray(theta, dtype=np.float64))
    return grad, prob.games_diagonal()


class _Problem:
    """The MAP objective of a :class:`History` at fixed drift and prior scale.

    In process, the whole problem is the core's (:mod:`discrank.solvers._history_core`); rows split over Dask workers
    (``rows``: :class:`discrank.dask._parts.DistributedRows`) give the games' part, the chains and priors added here.
    The parameters are the ratings (``n_pp``), the block after them (the context effects, ``h.n_eff``, prior
    N(0, context_scale^2); the ``disc`` components' ``u`` and ``v`` of each player, N(0, disc_scale^2); each
    player's draw propensity, N(0, propensity_scale^2) when that scale is positive), then beta and the draw parameter.
    """

    def __init__(self, h: History, drift: float, prior_scale: float, draws: bool, n_threads: int = 0,
                 rows: Any = None, context_scale: float = 0.0, margin_scale: float = 0.0,
                 disc: int = 0, disc_scale: float = 0.0, propensity_scale: float = 0.0,
                 format_scales: Optional[np.ndarray] = None, preconditioner: str = "chains"):
        self.h = h
        self.draws = draws
        self.n_threads = n_threads
        self.margin_scale, self.format_scales = margin_scale, format_scales
        self.chain = chain_precisions(h.gap, drift)
        self.prior, self.first = 1.0 / prior_scale ** 2, np.flatnonzero(h.first)
        # the chains' and the prior's part of the ratings' diagonal (fixed for the problem)
        self.rest = np.zeros(h.n_pp)
        self.rest[self.first] = self.prior
        self.rest[:-1] += self.chain
        self.rest[1:] += self.chain
        self.m = h.n_cov + (1 if draws else 0)
        propensity = propensity_scale > 0
        if propensity and not draws:
            raise ValueError("draw propensities need a draw model (draws='davidson' or 'rao-kupper')")
        self.n_prop = h.n_players if propensity else 0
        # the context effects, the disc and the draw propensities, after the ratings
        self.k = h.n_eff + 2 * disc * h.n_players + self.n_prop
        if h.n_eff and not context_scale > 0:
            raise ValueError(f"context effects need a positive context_scale, got {context_scale!r}")
        if disc and not disc_scale > 0:
            raise ValueError(f"disc components need a positive disc_scale, got {disc_scale!r}")
        self.eff_prior = np.concatenate([np.full(h.n_eff, 1.0 / context_scale ** 2 if h.n_eff else 0.0),
                                         np.full(2 * disc * h.n_players, 1.0 / disc_scale ** 2 if disc else 0.0),
                                         np.full(self.n_prop, 1.0 / propensity_scale ** 2 if propensity else 0.0)])
        # the prior of beta (discrank.data._advantage.BETA_PRIOR_SCALE), a diagonal on the global block
        self.beta_prior = beta_precision(h.x, h.n) if h.n_cov else np.zeros(0)
        if h.n_pp > np.iinfo(np.int32).max:
            raise ValueError(f"{h.n_pp} player-periods: the core's pair kernel takes at most 2^31 - 1; use a "
                             "coarser period")
        #: the core's problem (discrank.solvers._history_core) where it holds the games' terms; else the rows
        self.core = None
        if rows is None:
            prior_pp = np.zeros(h.n_pp)
            prior_pp[self.first] = self.prior
            self.core = core_problem(h, self.chain, prior_pp, self.eff_prior, draws, self.beta_prior, margin_scale,
                                     format_scales, preconditioner == "two-level", disc, propensity)
            self.rows = None
        elif preconditioner != "chains":
            raise ValueError("the two-level preconditioner serves the problems the core holds: rows in process")
        else:
            self.rows = rows
            #: the prior precision of each parameter after the ratings (the block's, beta's, none on the draw parameter)
            self.tail_prior = np.concatenate([self.eff_prior, self.beta_prior, np.zeros(self.m - h.n_cov)])

    def split(self, theta):
        """(ratings, beta, eta) of a parameter vector (:meth:`effects` gives the block between them: the context
        effects and the disc components)."""
        n = self.h.n_pp + self.k
        r = theta[:self.h.n_pp]
        beta = theta[n:n + self.h.n_cov]
        eta = theta[-1] if self.draws else None
        return r, beta, eta

    def effects(self, theta):
        """The block after the ratings (context effects and disc components) of a parameter vector (empty
        without)."""
        return theta[self.h.n_pp:self.h.n_pp + self.k]

    def value_grad(self, theta):
        """(value, gradient) at ``theta``; the rows keep the curvature there (for :meth:`hessian`)."""
        theta = np.ascontiguousarray(theta, dtype=np.float64)
        if self.core is not None:
            return self.core.value_grad(theta, self.n_threads)
        value, g = self.rows.value_grad(theta)  # the games' terms (a new array): the chains and priors here
        if not np.isfinite(value):  # outside the draw model (Rao and Kupper's threshold): the line search backs off
            return value, g
        n = self.h.n_pp
        r, tail = theta[:n], theta[n:]
        dr = np.diff(r)
        cd = self.chain * dr
        r_first = r[self.first]
        value += 0.5 * (float(np.dot(cd, dr)) + self.prior * float(np.dot(r_first, r_first))
                        + float(np.dot(self.tail_prior * tail, tail)))
        g[self.first] += self.prior * r_first
        g[:dr.size] -= cd
        g[1:dr.size + 1] += cd
        g[n:] += self.tail_prior * tail
        return value, g

    def diagonal(self):
        """The diagonal of the ratings' block of the Hessian: the games' curvature, the chains, the prior (then
        the context effects', with their prior)."""
        diag = self.games_diagonal()
        diag[:self.h.n_pp] += self.rest
        if self.k:
            diag[self.h.n_pp:] += self.eff_prior
        return diag

    def games_diagonal(self):
        """The games' part of the Hessian's diagonal at the last :meth:`value_grad` (the ratings', then the block's)."""
        return self.rows.diagonal() if self.core is None else self.core.games_diagonal(self.n_threads)

    def hessian(self):
        """A LinearOperator for the Hessian at the last :meth:`value_grad`, its preconditioner, and the
        diagonal and the global block."""
        h = self.h
        n, m, k = h.n_pp, self.m, self.k
        rest = self.rest
        diag_all = self.diagonal()
        if self.core is not None:  # (the core's products and preconditioner; the global block in them)
            core, size, threads = self.core, n + k + m, self.n_threads
            return (LinearOperator((size, size), matvec=lambda v: core.hessp(np.ascontiguousarray(v), threads),
                                   dtype=np.float64),
                    LinearOperator((size, size), matvec=lambda v: core.precondition(np.ascontiguousarray(v), threads),
                                   dtype=np.float64), diag_all, None)
        diag = diag_all[:n]
        C = None
        if m:
            C = self.rows.global_block().copy()
            C[np.arange(h.n_cov), np.arange(h.n_cov)] += self.beta_prior
        chain, rows, threads, tail_prior = self.chain, self.rows, self.n_threads, self.tail_prior

        def product(v):
            v = np.ascontiguousarray(v, dtype=np.float64)
            out = rows.hessp(v)  # the games' (a new array): the chains and priors here
            _core.chain_add(rest, chain, v[:n], out[:n], threads)
            out[n:] += tail_prior * v[n:]
            return out

        fd, fe, info = lapack.dpttrf(diag, np.negative(chain), overwrite_e=True)  # L D L^T of the chains (LAPACK)
        if info != 0:
            raise FloatingPointError(f"the chains' tridiagonal matrix is not positive definite (dpttrf info {info})")
        Cinv = np.linalg.pinv(C) if m else None

        # the common shift of every rating is pinned by the prior alone, which the chains' blocks miss: a
        # one-dimensional coarse correction (its curvature is the prior's sum)
        shift = 1.0 / max(self.prior * self.first.size, 1e-300)

        e_inv = 1.0 / diag_all[n:] if k else None

        def precondition(v):
            vr = np.ascontiguousarray(v[:n])
            x = _core.chain_solve(fd, fe, vr, threads)
            x += shift * float(vr.sum())
            parts = [x] + ([e_inv * v[n:n + k]] if k else []) + ([Cinv @ v[n + k:]] if m else [])
            return parts[0] if len(parts) == 1 else np.concatenate(parts)

        size = n + k + m
        H = LinearOperator((size, size), matvec=product, dtype=np.float64)
        M = LinearOperator((size, size), matvec=precondition, dtype=np.float64)
        return H, M, diag_all, C


def newton_cg(H: LinearOperator, M: LinearOperator, b: np.ndarray, rtol: float, maxiter: int,
              atol: float = 0.0) -> tuple:
    """(x, iterations): preconditioned conjugate gradients on ``H x = b`` from 0 to the relative residual ``rtol``,
    or until no entry of the residual exceeds ``atol`` (:data:`TARGET_SHARE`), stopped where ``H`` shows negative
    curvature (the truncated Newton-CG of Nocedal and Wright, Algorithm 7.1): the iterate reached there, or at the
    first iteration the preconditioned ``b`` (a descent direction either way, for ``b = -g``), so that Newton's
    method on a nonconvex objective moves away from saddle points. The core's ``newton_step`` iterates alike."""
    x = np.zeros_like(b)
    r = b.copy()
    if float(np.abs(r).max(initial=0.0)) <= atol:
        return x, 0
    z = M.matvec(r)
    p = z.copy()
    rz = float(np.dot(r, z))
    stop = rtol * float(np.linalg.norm(b))
    for it in range(1, maxiter + 1):
        hp = H.matvec(p)
        curvature = float(np.dot(p, hp))
        if curvature <= 0.0:
            return (z if it == 1 else x), it
        alpha = rz / curvature
        x += alpha * p
        r -= alpha * hp
        if float(np.linalg.norm(r)) <= stop or float(np.abs(r).max()) <= atol:
            return x, it
        z = M.matvec(r)
        rz_new = float(np.dot(r, z))
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x, maxiter


def _newton(prob: _Problem, theta: np.ndarray, value: float, g: np.ndarray, scale: float, tol: float, max_iter: int,
            disc: int, frozen: Optional[np.ndarray] = None, first: int = 0) -> tuple:
    """(theta, value, gradient, steps, conjugate-gradient iterations, converged) of Newton's method from ``theta``
    (its ``value`` and gradient ``g`` the last evaluated) until ``max |g| <= tol * scale`` or ``max_iter`` steps,
    with the entries ``frozen`` held where they are (their gradient and step set to 0); the steps are reported
    numbered from ``first + 1``."""
    if prob.core is not None and frozen is None:
        return _newton_core(prob, theta, value, g, scale, tol, max_iter, first)
    n_cg = 0
    it = 0
    stop = tol * scale

    def held(x):
        if frozen is not None:
            x = x.copy()
            x[frozen] = 0.0
        return x

    g = held(g)
    converged = float(np.abs(g).max()) <= stop
    while not converged and it < max_iter:
        it += 1
        H, M, _, _ = prob.hessian()
        if frozen is not None:
            H0, M0 = H, M
            H = LinearOperator(H0.shape, matvec=lambda v: held(H0.matvec(held(v))), dtype=np.float64)
            M = LinearOperator(M0.shape, matvec=lambda v: held(M0.matvec(held(v))), dtype=np.float64)
        # forcing term: the square root of the relative gradient (Eisenstat and Walker's choice), at most FORCING_CAP
        eta_k = min(FORCING_CAP, math.sqrt(float(np.abs(g).max()) / scale))
        # the disc game's Hessian is indefinite: CG stops at negative curvature (elsewhere only rounding gets there)
        step, count = newton_cg(H, M, -g, max(eta_k, 1e-12), 500, TARGET_SHARE * stop)
        n_cg += count
        step = held(step)
        slope = float(np.dot(g, step))
        if slope >= 0:  # not a descent direction (CG stopped early on a bad system): use the preconditioned gradient
            step = -held(M.matvec(g))
            slope = float(np.dot(g, step))
        # a decrease below the objective's rounding cannot be seen in its value: there a step that
        # shrinks the gradient is taken (else the line search halves down to nothing and Newton stalls)
        unseen = -slope <= ROUNDING * max(1.0, abs(value))
        g_max = float(np.abs(g).max())
        t = 1.0
        while True:
            trial = theta + t * step
            v_new, g_new = prob.value_grad(trial)  # the rows keep the curvature of the last trial: the step's
            g_new = held(g_new)
            if v_new <= value + 1e-4 * t * slope or t < 1e-10:
                break
            if unseen and float(np.abs(g_new).max()) < g_max:
                break
            t *= 0.5
        theta, value, g = trial, v_new, g_new
        converged = float(np.abs(g).max()) <= stop
        report_step(first + it, value, float(np.abs(g).max()) / scale)
    return theta, value, g, it, n_cg, converged


def _newton_core(prob: _Problem, theta: np.ndarray, value: float, g: np.ndarray, scale: float, tol: float,
                 max_iter: int, first: int = 0) -> tuple:
    """:func:`_newton` on the core's problem (``prob.core``): each step, its conjugate gradients (the chains'
    preconditioner) and its line search, in the core."""
    n_cg = it = 0
    stop = tol * scale
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    converged = float(np.abs(g).max()) <= stop
    while not converged and it < max_iter:
        it += 1
        theta, value, g, count, _, _ = prob.core.newton_step(theta, value, g, scale, FORCING_CAP, ROUNDING, 500,
                                                             prob.n_threads, TARGET_SHARE * stop)
        n_cg += count
        converged = float(np.abs(g).max()) <= stop
        report_step(first + it, value, float(np.abs(g).max()) / scale)
    return theta, value, g, it, n_cg, converged


def _disc_staged(prob: _Problem, plain: Optional[_Problem], first: np.ndarray, start: np.ndarray, scale: float,
                 tol: float, max_iter: int, disc: int, block: np.ndarray) -> tuple:
    """:func:`_newton`'s tuple and ``sigma_1`` (the residuals' largest singular value, ``HistoryResult.disc_sigma``)
    of a fit with ``disc`` components (their entries ``block``) from ``first`` (its disc block set to 0): the ratings
    (and the rest) with the disc held at 0 (on ``plain``, the problem without the disc, where given: its rows cost
    less); then, where the disc block's lowest curvature there is negative (the games' residuals reach the prior's
    threshold, :func:`discrank.solvers._disc_start.lowest_disc_mode`), the first component
    along that mode (scaled by a line search, :func:`discrank.solvers._disc_start.along_mode`) and the others at their
    default start, and Newton's steps on everything. Where it is not, the zero disc is a local minimum: the fit."""
    h = prob.h
    n = h.n_players
    if plain is not None:  # the first stage on rows without the disc's terms: the same objective at u = v = 0
        other = np.delete(first, block)
        value, g = plain.value_grad(other)
        other, value, g, it, n_cg, converged = _newton(plain, other, value, g, scale, tol, max_iter, 0)
        theta = np.insert(other, h.n_pp + h.n_eff, np.zeros(block.size))
        value, g = prob.value_grad(theta)
    else:
        theta = first.copy()
        theta[block] = 0.0
        value, g = prob.value_grad(theta)
        theta, value, g, it, n_cg, converged = _newton(prob, theta, value, g, scale, tol, max_iter, disc, frozen=block)
    lead = np.r_[block[:n], block[disc * n:disc * n + n]]  # the first component's u, then its v
    H = prob.hessian()[0]
    precision = float(prob.eff_prior[h.n_eff])  # 1 / disc_scale^2: the lowest mode of the block less it is -sigma_1
    low, mode = lowest_disc_mode(lambda x: H.matvec(x) - precision * x, theta.size, lead)
    sigma = max(-low, 0.0)
    if not sigma > precision or it >= max_iter:
        # value and g are already the whole problem's at theta (the disc's gradient is exactly 0 at u = v = 0)
        return theta, value, g, it, n_cg, converged, sigma
    rest = np.setdiff1d(block, lead)
    theta[rest] = start[rest]  # the other components at the default start's draws
    if rest.size:
        value = prob.value_grad(theta)[0]
    theta = along_mode(lambda th: prob.value_grad(th)[0], theta, mode, lead, value)
    value, g = prob.value_grad(theta)
    theta, value, g, it2, n_cg2, converged = _newton(prob, theta, value, g, scale, tol, max_iter - it, disc, first=it)
    return theta, value, g, it + it2, n_cg + n_cg2, converged, sigma


def solve_history(h: History, drift: float, prior_scale: float, draws: bool, theta0: Optional[np.ndarray] = None,
                  tol: float = 1e-9, max_iter: int = 100, n_threads: int = 0,
                  rows: Any = None, ratings_scale: bool = False,
                  context_scale: float = 0.0, margin_scale: float = 0.0, disc: int = 0,
                  disc_scale: float = 0.0, propensity_scale: float = 0.0,
                  format_scales: Optional[np.ndarray] = None, preconditioner: str = "chains",
                  scale: Optional[float] = None) -> HistoryResult:
    """Newton's method to the MAP of the whole history (see the module's docstring).

    Parameters
    ----------
    h : History
        The rows.
    drift, prior_scale : float
        Standard deviations of a rating's change per period and of a player's first rating.
    draws : {False, None, "davidson", "rao-kupper"}
        The draw model (its parameter, Davidson's ``eta`` or Rao and Kupper's ``kappa``, is the last one).
    theta0 : ndarray, optional
        Warm start (``r``, then ``beta``, then ``eta``); default all zero.
    tol : float
        Stop when ``max |g| <= tol * max(1, max |g(0)|)``: the gradient relative to the one at zero (the
        same rule from a warm start).
    max_iter, n_threads : int
        Newton steps at most; threads of the core (0: OpenMP's default).
    rows : discrank.dask._parts.DistributedRows, optional
        The games' terms on Dask workers (:mod:`discrank.dask` gives parts); default: the core's problem of
        every row of ``h`` in process.
    ratings_scale : bool
        Take the scale ``max |g(0)|`` over the ratings' entries only (the draw parameter's or a covariate's
        gradient, a sum over every game, can dwarf a rating's; :meth:`DynamicElo.update` uses it).
    scale : float, optional
        The stopping rule's scale where known (``HistoryResult.scale`` of a solve of ``h`` at the same margin and
        format scales, which the drift and prior do not change): not evaluated again from a ``theta0``.
    context_scale : float
        The prior scale of the context effects (with a history of contexts, ``h.n_ctx``; positive).
    margin_scale : float
        The logit scale of a sub-contest (with a history of margins, :mod:`discrank.solvers._history_core`; positive).
    disc, disc_scale : int, float
        Components of the disc game in each game's logit (the paper's Section 3), and the prior scale of their ``u``
        and ``v`` (positive with components). Their term is bilinear, the objective not convex: conjugate gradients
        stop at negative curvature (:func:`newton_cg`), so that Newton descends to a local minimum, not the saddle
        ``u = v = 0``. Without ``theta0`` (or from one whose disc is exactly 0), the fit first solves the rest with
        the disc at 0, then starts the first component along the disc block's lowest mode there
        (:func:`_disc_staged`), or ends there where that mode's curvature is not negative. Each component's
        ``(u, v)`` is returned rotated to ``sum v = 0``, ``sum u >= 0``.
    propensity_scale : float
        With a draw model and a positive scale, each player's draw propensity ``delta_p ~ N(0,
        propensity_scale^2)`` added to the draw parameter of their games (``eta + delta_a + delta_b``); 0: none.
        The problem stays convex (the draw models' losses are convex in the draw parameter).
    format_scales : ndarray, optional
        With match formats (``h.fmt``), each format's scale of a game's logit (a longer match more predictable;
        fixed during the fit, which stays convex). None: 1 for every game.
    preconditioner : {"chains", "two-level"}
        The conjugate gradients' preconditioner of a problem the core holds: each player's chain (its tridiagonal
        solve, with the games' curvature on its diagonal), or two levels, that smoother with a player-level coarse
        space (cpp/include/discrank/history_coarse.hpp). A ValueError for another name, or for "two-level" on Dask rows.

    Returns
    -------
    HistoryResult
        Each Newton step is reported to the hook of :func:`discrank._util.progress.reporting` (step, objective,
        largest gradient entry relative to the one at zero).
    """
    if preconditioner not in PRECONDITIONERS:
        raise ValueError(f"preconditioner must be one of {', '.join(map(repr, PRECONDITIONERS))}, got {preconditioner!r}")
    prob = _Problem(h, drift, prior_scale, draws, n_threads, rows, context_scale, margin_scale, disc, disc_scale,
                    propensity_scale, format_scales, preconditioner)
    part = slice(0, h.n_pp + prob.k) if ratings_scale else slice(None)
    start = default_start(h, draws, disc, prob.n_prop > 0)
    block = np.arange(h.n_pp + h.n_eff, h.n_pp + h.n_eff + 2 * disc * h.n_players)
    zero = start.copy()
    zero[block] = 0.0  # (the disc's part of the gradient is 0 there, whatever its prior's scale)
    if scale is None or theta0 is None:
        value, g = prob.value_grad(zero)
        scale = max(1.0, float(np.abs(g[part]).max(initial=0.0)))  # the gradient at the default start
    sigma = None
    if disc and (theta0 is None or not np.any(np.asarray(theta0)[block])):
        # the rest with the disc at 0, then the disc along the lowest mode there (discrank.solvers._disc_start): from
        # scratch, or from a start whose disc is exactly 0, a saddle point its gradient would never leave
        plain = None if rows is not None else _Problem(h, drift, prior_scale, draws, n_threads, None, context_scale,
                                                       margin_scale, 0, 0.0, propensity_scale, format_scales)
        first = start if theta0 is None else np.asarray(theta0, dtype=np.float64)
        theta, value, g, it, n_cg, converged, sigma = _disc_staged(prob, plain, first, start, scale, tol, max_iter,
                                                                   disc, block)
    elif theta0 is not None:
        theta = np.asarray(theta0, dtype=np.float64)  # (never written: each step makes a new theta)
        value, g = prob.value_grad(theta)  # last: the rows keep the curvature at theta
        theta, value, g, it, n_cg, converged = _newton(prob, theta, value, g, scale, tol, max_iter, disc)
    else:
        theta, value, g, it, n_cg, converged = _newton(prob, zero, value, g, scale, tol, max_iter, disc)
    if disc:  # the rotation of each component that the MAP leaves free, fixed
        theta, g = canonical_gauge((theta, g), h.n_pp + h.n_eff, disc, h.n_players)
    r, beta, eta = prob.split(theta)
    games_diag = prob.games_diagonal()
    n, n_eff = h.n_pp, h.n_eff
    effects = effects_diag = disc_part = prop = prop_diag = None
    if n_eff:
        effects = theta[n:n + n_eff].copy()
        effects_diag = games_diag[n:n + n_eff] + prob.eff_prior[:n_eff]
    if disc:
        disc_part = theta[n + n_eff:n + prob.k - prob.n_prop].copy()
    if prob.n_prop:
        prop = theta[n + prob.k - prob.n_prop:n + prob.k].copy()
        prop_diag = games_diag[n + prob.k - prob.n_prop:] + prob.eff_prior[prob.k - prob.n_prop:]
    games_diag = games_diag[:n]
    return HistoryResult(r.copy() if it == 0 and theta0 is not None else r,  # (a view of a theta made here)
                         np.array(beta, dtype=np.float64), None if eta is None else float(eta), value,
                         float(np.abs(g).max()) / scale, it, n_cg, bool(converged), games_diag + prob.rest,
                         -prob.chain, scale, g, games_diag, theta, effects, effects_diag, disc_part, prop, prop_diag,
                         sigma)


def release_memory(h: History) -> None:
    """Return the memory freed so far to the system (``_core.trim_heap``) before a solve of ``h`` that follows others
    (a tuning's), so that the process's peak is what is live; a history of fewer than :data:`TRIM_SIZE`
    player-periods skips it."""
    if h.n_pp >= TRIM_SIZE:
        _core.trim_heap()


def global_covariance(prob: "_Problem") -> np.ndarray:
    """The covariance of (beta, eta) in the Laplace approximation at the last ``prob.value_grad``: the
    inverse of the Schur complement ``C - B^T A^{-1} B`` of the ratings' block ``A`` in the Hessian (one
    preconditioned CG solve per global parameter)."""
    h = prob.h
    H, M, _, _ = prob.hessian()
    n, m = h.n_pp + prob.k, prob.m
    pad = np.zeros(m)
    A_only = LinearOperator((n, n), matvec=lambda v: H.matvec(np.concatenate([v, pad]))[:n], dtype=np.float64)
    M_only = LinearOperator((n, n), matvec=lambda v: M.matvec(np.concatenate([v, pad]))[:n], dtype=np.float64)
    columns = np.stack([H.matvec(np.eye(1, n + m, n + j).ravel()) for j in range(m)], axis=1)  # H's global columns
    B, C = columns[:n], columns[n:]
    S = C.copy()
    for k in range(m):
        z, _ = cg(A_only, B[:, k], rtol=1e-10, atol=0.0, maxiter=2000, M=M_only)
        S[:, k] -= B.T @ z
    return np.linalg.inv(0.5 * (S + S.T))


def covariance_at(h: History, drift: float, prior_scale: float, draws: bool, theta: np.ndarray,
                  n_threads: int = 0, context_scale: float = 0.0, margin_scale: float = 0.0, disc: int = 0,
                  disc_scale: float = 0.0, propensity_scale: float = 0.0,
                  format_scales: Optional[np.ndarray] = None) -> np.ndarray:
    """:func:`global_covariance` at a parameter vector ``theta`` of the problem."""
    prob = _Problem(h, drift, prior_scale, draws, n_threads, None, context_scale, margin_scale, disc, disc_scale,
                    propensity_scale, format_scales)
    prob.value_grad(theta)
    return global_covariance(prob)
