"""Newton's method for the ratings of an Elo-type objective, and its Laplacian solvers.

The Hessian (Gauss-Newton matrix) of an objective of the rating differences ``s_i - s_j`` alone (stationary
Elo, Eq. (1); Elo++ without its time decay) is the weighted graph Laplacian of the observed pairs.
:class:`_LaplacianSolver` solves with it by preconditioned conjugate gradients (scipy's) or, on
ladder-like logs, by a banded Cholesky factorisation; :func:`newton_elo` takes Newton steps with it from
the warm start :func:`logit_mean_score`, and stops on the scaled-gradient rule of
:mod:`discrank.solvers._optim`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import LinearOperator, cg

from discrank.solvers._optim import BlockResult, fill_zero_scales, report_step, scaled_gradient

__all__ = ["NewtonResult", "logit_mean_score", "newton_elo"]


@dataclass
class NewtonResult(BlockResult):
    """The outcome of :func:`newton_elo`: a :class:`~discrank.solvers._optim.BlockResult` with the linear solves.

    Attributes
    ----------
    n_cg : int
        Products with the Laplacian made by conjugate gradients over all the Newton steps.
    linear_solver : str
        The method of the last linear solve: ``"cg"`` or ``"banded Cholesky"``.
    """

    n_cg: int = 0
    linear_solver: str = "cg"


class _CapReached(Exception):
    """Raised by the Laplacian product when conjugate gradients ask for more than ``CG_CAP`` products."""


class _LaplacianSolver:
    """Solves ``(L + delta I) d = r`` for the weighted graph Laplacian ``L`` of the observed pairs.

    ``L``'s null space is the constants on each piece of the comparison graph; the right-hand sides sum to
    zero on each piece and the solution is projected back onto that subspace. Two methods:

    - conjugate gradients (``scipy.sparse.linalg.cg``) with the Jacobi preconditioner (default), for
      well-mixed graphs, where ``D^-1/2 L D^-1/2`` is well conditioned;
    - banded Cholesky after a reverse Cuthill-McKee ordering, when CG needs more than ``CG_CAP`` products
      and the ordering's bandwidth ``b`` is small (``n (b + 1) <= 4 m``): ladders, where players only meet
      near equals, whose path-like Laplacian is badly conditioned but banded.

    Parameters
    ----------
    objective : discrank.core._core.PairObjective
        The compiled pairs: their Laplacian product (``hessp_s``) and per-player sums.
    i, j : numpy.ndarray
        The players of each pair.
    n : int
        The number of players.
    piece : numpy.ndarray
        The piece of the comparison graph of each player.
    n_threads : int
        Threads for the core (0: OpenMP's default).
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

    def solve(self, curv: np.ndarray, rhs: np.ndarray, rtol: float, delta: float) -> tuple[np.ndarray, int]:
        """Solve ``(L + delta I) d = rhs``, ``L`` the Laplacian with pair weights ``curv``.

        Parameters
        ----------
        curv : numpy.ndarray
            The weight of each pair in ``L`` (``w_p L''(A_p)``, filled by the kernel with the gradient).
        rhs : numpy.ndarray
            The right-hand side, summing to zero on each piece.
        rtol : float
            The relative residual ``|rhs - (L + delta I) d| / |rhs|`` that conjugate gradients reach.
        delta : float
            The shift (positive), which makes ``L + delta I`` definite.

        Returns
        -------
        d : numpy.ndarray
            The solution, centred on each piece.
        n_prod : int
            The products with ``L`` made (0 for a banded solve).
        """
        if self.method == "cg":
            d, n_prod, ok = self._cg(curv, rhs, rtol, delta)
            if ok or self.banded_tried or not self._try_banded():
                return self._project(d), n_prod
        return self._banded(curv, rhs, delta), 0

    def _banded(self, curv, rhs, delta):
        from scipy.linalg import solveh_banded

        b, pos, lo, off = self.band
        n = self.n
        gather = getattr(self.objective, "gather", None)
        if gather is not None:  # a distributed objective: the factorisation needs the curvature here
            gather(curv)
        diag = self._diag(curv) + delta
        # lower form: ab[r - c, c] = L[r, c] for r >= c, in the permuted indices
        ab = -np.bincount(off * n + lo, curv, (b + 1) * n).reshape(b + 1, n)
        ab[0, pos] = diag
        x = solveh_banded(ab, _permute(rhs, pos), lower=True, check_finite=False)
        return self._project(x[pos])

    def _cg(self, curv, rhs, rtol, delta):
        """Jacobi-preconditioned conjugate gradients from 0: ``(x, products, converged)``.

        Converged means ``|r| <= rtol |rhs|`` within ``CG_CAP`` products; otherwise ``x`` is the iterate
        after ``CG_CAP`` products.
        """
        obj, nt, n = self.objective, self.n_threads, self.n
        inv = 1.0 / (self._diag(curv) + delta)
        n_prod = 0
        last = []

        def product(p):
            nonlocal n_prod
            # scipy's maxiter stops without a last residual test; capping the products here keeps the
            # test after the CG_CAP-th one (maxiter = CG_CAP + 1 below).
            if n_prod == self.CG_CAP:
                raise _CapReached
            n_prod += 1
            return obj.hessp_s(curv, p, n_threads=nt) + delta * p

        def keep(xk):
            last[:] = [xk.copy()]  # the latest iterate (O(n), against the product's O(pairs))

        shifted = LinearOperator((n, n), matvec=product, dtype=np.float64)
        jacobi = LinearOperator((n, n), matvec=inv.__mul__, dtype=np.float64)
        try:
            x, _ = cg(shifted, rhs, rtol=rtol, atol=0.0, maxiter=self.CG_CAP + 1, M=jacobi, callback=keep)
        except _CapReached:
            return last[0], n_prod, False
        return x, n_prod, True


def _permute(x, pos):
    out = np.empty_like(x)
    out[pos] = x
    return out


def logit_mean_score(total: np.ndarray, scored: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """Each player's logit of their mean score, centred on each piece of the comparison graph.

    Close to the Elo fit on well-mixed logs: the start of Elo's Newton solver (:func:`newton_elo`) and
    of the first disc component's ``u``.

    Parameters
    ----------
    total : numpy.ndarray
        Each player's total pair weight (``PairObjective.score_sums``).
    scored : numpy.ndarray
        Each player's weighted score.
    piece : numpy.ndarray
        The piece of the comparison graph of each player.

    Returns
    -------
    numpy.ndarray
        ``logit(scored / total)``, the mean score clipped to [0.02, 0.98] (0.5 for a player without
        games), minus its mean on each piece.
    """
    rate = np.full(total.shape, 0.5)
    played = total > 0
    rate[played] = np.clip(scored[played] / total[played], 0.02, 0.98)
    x = np.log(rate / (1.0 - rate))
    return x - (np.bincount(piece, x) / np.bincount(piece))[piece]


def newton_elo(objective, loss_id, i, j, w, n, piece, tol, max_iter, n_threads, s0=None, ridge=0.0,
               sums=None, offset=None) -> NewtonResult:
    """Newton's method (Gauss-Newton for non-convex losses) with line search for the ratings ``s``.

    Minimises an objective of the rating differences alone (stationary Elo, Eq. (1), or Elo++ without its
    time decay). Each step solves the weighted Laplacian (pair weights ``w_p L''(A_p)``) by
    :class:`_LaplacianSolver` to a relative residual ``min(0.1, sqrt(measure))`` (inexact Newton), then
    backtracks until the Armijo condition holds; it is reported to :func:`discrank._util.progress.reporting`.

    Parameters
    ----------
    objective : discrank.core._core.PairObjective
        The compiled pairs.
    loss_id : int
        The loss, as numbered by the core (0: binary cross-entropy).
    i, j : numpy.ndarray
        The players of each pair.
    w : numpy.ndarray
        The weight of each pair (normalised to sum 1).
    n : int
        The number of players.
    piece : numpy.ndarray
        The piece of the comparison graph of each player.
    tol : float
        The tolerance on the scaled gradient (:func:`discrank.solvers._optim.scaled_gradient`, with each
        player's total pair weight as the scale).
    max_iter : int
        The most Newton steps.
    n_threads : int
        Threads for the core (0: OpenMP's default).
    s0 : numpy.ndarray or None
        The start. None: 0, or for binary cross-entropy :func:`logit_mean_score` where it lowers the
        objective.
    ridge : float
        Adds ``ridge / 2 |s|^2`` to the objective (a Gaussian prior; ``ridge I`` to the Hessian).
    sums : tuple of numpy.ndarray or None
        ``objective.score_sums()`` if the caller has it; None: computed here.
    offset : numpy.ndarray or None
        A fixed term added to each pair's score ``s_i - s_j`` (the advantage covariates' ``beta . x``).

    Returns
    -------
    NewtonResult
        The ratings (not centred), objective, gradient and measure, the number of Newton steps and of
        products with the Laplacian, and the linear solver of the last step. ``converged`` is False, with
        the reason in ``message``, after ``max_iter`` steps or a line search that made no progress.
    """
    m = i.size
    total, scored, _ = objective.score_sums(n_threads=n_threads) if sums is None else sums
    h = fill_zero_scales(total.copy())
    curv = np.empty(m)
    s = np.zeros(n) if s0 is None else np.array(s0, dtype=np.float64)

    def evaluate(x):
        f, _, _, g = objective.evaluate(loss_id, s=x, offset=offset, grad_s=True, curv=curv, n_threads=n_threads)
        if ridge:
            f += 0.5 * ridge * float(x @ x)
            g += ridge * x
        return f, g

    h = h + ridge
    solver = _LaplacianSolver(objective, i, j, n, piece, n_threads)
    if s0 is None and loss_id == 0 and offset is None:
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
        report_step(n_iter, f, measure)
    converged = measure <= tol
    if converged:
        message = f"scaled gradient {measure:.3g} <= tol {tol:.3g}"
    return NewtonResult(s, f, n_iter, n_eval, measure, converged, message, g, n_cg, solver.method)
