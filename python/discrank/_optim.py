"""L-BFGS driver with a gradient-based stopping rule.

scipy's L-BFGS-B stops by default when the objective stops changing (``ftol``). On ladder-like data,
where players only meet near equals, that rule stops first-order fits far from the optimum. Here the
objective-change and scipy's own gradient rules are switched off, and a fit is converged only when the
*scaled gradient* is small for every parameter:

    max_i |g_i| / h_i <= tol,

where ``h_i`` is a curvature scale of parameter ``i`` (the player's total pair weight times the square
of the factor that multiplies it). For Elo, ``|g_i| / h_i`` is the gap between a player's expected and
actual mean score. The same ``h`` gives L-BFGS a diagonal (Jacobi) preconditioning: it runs on
``z = x * sqrt(h)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.optimize import minimize

__all__ = ["BlockResult", "scaled_gradient", "minimize_scaled", "set_progress"]

# Optional progress hook, called as hook(iteration, objective, stopping measure) after each iteration
# of every solver (the command line prints it on long fits).
_PROGRESS = None


def set_progress(hook) -> None:
    """Install (or, with None, remove) the per-iteration progress hook."""
    global _PROGRESS
    _PROGRESS = hook


def _report(iteration: int, f: float, measure: float) -> None:
    if _PROGRESS is not None:
        _PROGRESS(iteration, f, measure)


@dataclass
class BlockResult:
    x: np.ndarray
    fun: float
    n_iter: int
    n_eval: int
    grad_measure: float
    converged: bool
    message: str
    grad: np.ndarray | None = None  # the gradient at x (not scaled)


def scaled_gradient(g: np.ndarray, h: np.ndarray) -> float:
    """``max_i |g_i| / h_i``, the stopping measure."""
    return float(np.max(np.abs(g) / h)) if g.size else 0.0


def minimize_scaled(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    h: np.ndarray,
    tol: float,
    max_iter: int,
) -> BlockResult:
    """Minimise ``fun`` (returning value and gradient) from ``x0`` until the scaled gradient <= tol.

    ``h`` (positive, same shape as ``x0``) is the per-parameter curvature scale.
    """
    shape = x0.shape
    h = h.reshape(-1)
    root = np.sqrt(h)
    cache: dict[str, object] = {}

    def wrapped(z: np.ndarray) -> tuple[float, np.ndarray]:
        x = (z / root).reshape(shape)
        f, g = fun(x)
        g = np.asarray(g, dtype=np.float64).reshape(-1)
        cache["z"], cache["f"], cache["g"] = z.copy(), f, g
        return f, g / root

    def measure_at(z: np.ndarray) -> tuple[float, float]:
        if "z" not in cache or not np.array_equal(cache["z"], z):
            wrapped(z)
        return float(cache["f"]), scaled_gradient(cache["g"], h)

    z0 = (x0.reshape(-1) * root).astype(np.float64)
    f0, m0 = measure_at(z0)
    if m0 <= tol:
        return BlockResult(x0.copy(), f0, 0, 1, m0, True, "initial point meets the gradient tolerance",
                           np.array(cache["g"]).reshape(shape))

    state = {"measure": m0}

    def callback(intermediate_result) -> None:
        f_now, state["measure"] = measure_at(intermediate_result.x)
        state["it"] = state.get("it", 0) + 1
        _report(state["it"], f_now, state["measure"])
        if state["measure"] <= tol:
            raise StopIteration

    res = minimize(
        wrapped,
        z0,
        jac=True,
        method="L-BFGS-B",
        callback=callback,
        options={"maxiter": max_iter, "ftol": 0.0, "gtol": 0.0, "maxcor": 10},
    )
    f, measure = measure_at(res.x)
    converged = measure <= tol
    if converged:
        message = f"scaled gradient {measure:.3g} <= tol {tol:.3g}"
    else:
        message = f"scaled gradient {measure:.3g} > tol {tol:.3g} after {res.nit} iterations: {res.message}"
    return BlockResult((res.x / root).reshape(shape), f, int(res.nit), int(res.nfev), measure, converged, message,
                       np.array(cache["g"]).reshape(shape))


def pair_curvature(objective, w: np.ndarray, c: np.ndarray | None = None, n_threads: int = 0) -> np.ndarray:
    """Curvature scale ``h_a = sum over a's pairs of w_p c_b^2`` (``c = 1`` when None), b the other player,
    summed by the pairs' compiled ``objective``.

    It is the diagonal of the Hessian of a unit-curvature loss in a parameter that multiplies ``c`` of
    the opponent. Players with ``h_a = 0`` (no pair, or opponents with ``c = 0``), or numerically zero
    (see ``_fill_zero_scales``), get the mean of the others, so that the scaled gradient stays defined.
    """
    if c is None:
        return _fill_zero_scales(objective.player_sums(w, n_threads=n_threads))
    return _fill_zero_scales(objective.opponent_sums(w, np.ascontiguousarray(c, dtype=np.float64), n_threads=n_threads))


def _fill_zero_scales(h: np.ndarray) -> np.ndarray:
    """``h`` with its zero entries, and those below 1e-12 of the median positive one (a scale made of
    rounding residue, such as 1e-38 from opponents' factors of 1e-19: seen on a real log), set to the
    mean of the others; all 1 when none is positive. Such a scale would make the scaled gradient
    meaningless (1e29) and the L-BFGS variables degenerate."""
    positive = h > 0
    if positive.any():
        positive &= h > 1e-12 * np.median(h[positive])
    fill = h[positive].mean() if positive.any() else 1.0
    h[~positive] = fill
    return h


@dataclass
class NewtonResult(BlockResult):
    n_cg: int = 0
    linear_solver: str = "cg"


class _LaplacianSolver:
    """Solves ``(L + delta I) d = r`` for the weighted graph Laplacian ``L`` of the observed pairs.

    ``L`` is the Hessian (Gauss-Newton matrix) of an Elo-type objective in ``s``, so its null space is
    the constants on each piece of the comparison graph; the right-hand sides (gradients) sum to zero
    on each piece and the solution is projected back onto that subspace. Two methods:

    - conjugate gradients with the Jacobi preconditioner (default): a few products with ``L`` per
      solve on well-mixed graphs (random opponents), where ``D^-1/2 L D^-1/2`` is well conditioned;
    - banded Cholesky after a reverse Cuthill-McKee ordering, switched to when CG needs more than
      ``cg_cap`` products and the ordering's bandwidth ``b`` makes it cheap (``n (b + 1) <= 4 m``):
      ladders, where players only meet near equals, whose Laplacian is path-like and so badly
      conditioned that CG crawls, but banded.
    """

    CG_CAP = 60

    def __init__(self, objective, i, j, n, piece, n_threads):
        self.objective, self.i, self.j, self.n = objective, i, j, n
        self.piece = piece
        self.piece_size = np.bincount(piece).astype(float)
        self.n_threads = n_threads
        self.method = "cg"
        self.banded_tried = False
        self.band = None

    def _diag(self, curv):
        return self.objective.player_sums(curv, n_threads=self.n_threads)

    def _project(self, x):
        return x - (np.bincount(self.piece, x) / self.piece_size)[self.piece]

    def _try_banded(self) -> bool:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import reverse_cuthill_mckee

        self.banded_tried = True
        n, m = self.n, self.i.size
        pattern = coo_matrix((np.ones(m, dtype=np.int8), (self.i, self.j)), shape=(n, n)).tocsr()
        order = reverse_cuthill_mckee(pattern, symmetric_mode=False)
        pos = np.empty(n, dtype=np.int64)
        pos[order] = np.arange(n)
        pi, pj = pos[self.i], pos[self.j]
        lo, hi = np.minimum(pi, pj), np.maximum(pi, pj)
        b = int((hi - lo).max()) if m else 0
        if n * (b + 1) > 4 * m:
            return False
        self.band = (b, pos, lo, hi - lo)
        self.method = "banded Cholesky"
        return True

    def solve(self, curv, rhs, rtol, delta):
        """Returns (d, products with L); d solves (L + delta I) d = rhs to relative residual rtol."""
        if self.method == "cg":
            d, n_prod, ok = self._cg(curv, rhs, rtol, delta)
            if ok or self.banded_tried or not self._try_banded():
                return self._project(d), n_prod
        return self._banded(curv, rhs, delta), 0

    def _banded(self, curv, rhs, delta):
        from scipy.linalg import solveh_banded

        b, pos, lo, off = self.band
        n = self.n
        diag = self._diag(curv) + delta
        # lower form: ab[r - c, c] = L[r, c] for r >= c, in the permuted indices
        ab = -np.bincount(off * n + lo, curv, (b + 1) * n).reshape(b + 1, n)
        ab[0, pos] = diag
        x = solveh_banded(ab, _permute(rhs, pos), lower=True, check_finite=False)
        return self._project(x[pos])

    def _cg(self, curv, rhs, rtol, delta):
        obj, nt = self.objective, self.n_threads
        diag = self._diag(curv) + delta
        inv = 1.0 / diag
        x = np.zeros(self.n)
        r = rhs.copy()
        z = inv * r
        p = z.copy()
        rz = r @ z
        target = rtol * np.linalg.norm(rhs)
        n_prod = 0
        while np.linalg.norm(r) > target:
            if n_prod >= self.CG_CAP:
                return x, n_prod, False
            q = obj.hessp_s(curv, p, n_threads=nt) + delta * p
            n_prod += 1
            alpha = rz / (p @ q)
            x += alpha * p
            r -= alpha * q
            z = inv * r
            rz_new = r @ z
            p = z + (rz_new / rz) * p
            rz = rz_new
        return x, n_prod, True


def _permute(x, pos):
    out = np.empty_like(x)
    out[pos] = x
    return out


def logit_mean_score(total: np.ndarray, scored: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """Each player's logit of their mean score ``scored / total`` (``PairObjective.score_sums``),
    clipped to [0.02, 0.98] and centred on each piece of the comparison graph; 0 without games. Close
    to the Elo fit on well-mixed logs: the start of Elo's Newton solver and of the first disc
    component's u."""
    rate = np.full(total.shape, 0.5)
    played = total > 0
    rate[played] = np.clip(scored[played] / total[played], 0.02, 0.98)
    x = np.log(rate / (1.0 - rate))
    return x - (np.bincount(piece, x) / np.bincount(piece))[piece]


def newton_elo(objective, loss_id, i, j, w, n, piece, tol, max_iter, n_threads, s0=None, ridge=0.0,
               sums=None) -> NewtonResult:
    """Newton's method (Gauss-Newton for non-convex losses) for an s-only objective, with line search.

    The Hessian in ``s`` is the weighted Laplacian of the comparison graph with pair weights
    ``w_p L''(A_p)`` (computed by the kernel with the gradient); each step solves it by
    :class:`_LaplacianSolver` to a relative residual ``min(0.1, sqrt(measure))`` (inexact Newton, so
    the last steps are exact and convergence is quadratic), then backtracks until the Armijo
    condition holds. Stops on the same scaled-gradient rule as :func:`minimize_scaled`. ``ridge``
    adds ``ridge / 2 |s|^2`` to the objective (a Gaussian prior; ``ridge I`` to the Hessian).
    ``sums``: ``objective.score_sums()`` if the caller has it (else computed here).
    """
    m = i.size
    total, scored, _ = objective.score_sums(n_threads=n_threads) if sums is None else sums
    h = _fill_zero_scales(total.copy())
    curv = np.empty(m)
    s = np.zeros(n) if s0 is None else np.array(s0, dtype=np.float64)

    def evaluate(x):
        f, _, _, g = objective.evaluate(loss_id, s=x, grad_s=True, curv=curv, n_threads=n_threads)
        if ridge:
            f += 0.5 * ridge * float(x @ x)
            g += ridge * x
        return f, g

    h = h + ridge
    solver = _LaplacianSolver(objective, i, j, n, piece, n_threads)
    if s0 is None and loss_id == 0:
        # bce at s = 0, without a pass: every pair's loss is log 2 and g_a = total_a / 2 - scored_a.
        # No curvature yet: either the warm start below evaluates (and so fills it), or s = 0 already
        # meets tol and no Newton step is taken.
        f, g, n_eval = np.log(2.0) * float(w.sum()), 0.5 * total - scored, 0
    else:
        f, g = evaluate(s)
        n_eval = 1
    if s0 is None and loss_id == 0 and scaled_gradient(g, h) > tol:
        # Warm start: each player's logit of their mean score (scored_a / total_a); kept only if it
        # lowers the objective.
        x0 = logit_mean_score(total, scored, piece)
        f0, g0 = evaluate(x0)
        n_eval += 1
        if f0 < f:
            s, f, g = x0, f0, g0
        else:
            f, g = evaluate(s)  # back to 0 (and its curvature)
            n_eval += 1
    measure = scaled_gradient(g, h)
    n_iter, n_cg = 0, 0
    message = ""
    while measure > tol:
        if n_iter >= max_iter:
            message = f"scaled gradient {measure:.3g} > tol {tol:.3g} after {n_iter} Newton steps (max_iter)"
            break
        delta = 1e-12 * float(h.max()) + ridge
        d, n_prod = solver.solve(curv, -g, min(0.1, np.sqrt(measure)), delta)
        n_cg += n_prod
        slope = float(g @ d)
        if not slope < 0.0:
            d, slope = -g / h, -float(g @ (g / h))  # not a descent direction: fall back to scaled gradient
        step = 1.0
        # Near the optimum the decrease (~ measure^2) is below the rounding of f: there a step that
        # keeps f within rounding and lowers the gradient measure is accepted too.
        f_noise = 64.0 * np.finfo(float).eps * max(abs(f), 1e-300)
        while True:
            s_new = s + step * d
            f_new, g_new = evaluate(s_new)
            n_eval += 1
            if f_new <= f + 1e-4 * step * slope:
                break
            if f_new <= f + f_noise and scaled_gradient(g_new, h) < measure:
                break
            if step < 1e-10:
                break
            step *= 0.5
        if step < 1e-10:
            if f_new > f:
                evaluate(s)  # restore the curvature at s
            else:
                s, f, g = s_new, f_new, g_new
                measure = scaled_gradient(g, h)
            message = f"scaled gradient {measure:.3g} > tol {tol:.3g}: the line search made no progress"
            break
        s, f, g = s_new, f_new, g_new
        measure = scaled_gradient(g, h)
        n_iter += 1
        _report(n_iter, f, measure)
    converged = measure <= tol
    if converged:
        message = f"scaled gradient {measure:.3g} <= tol {tol:.3g}"
    return NewtonResult(s, f, n_iter, n_eval, measure, converged, message, g, n_cg, solver.method)
