"""Stationary Elo (Eq. (1)) and Elo++ without its time decay (appendix, "Elo ++")."""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from discrank._optim import minimize_scaled, newton_elo, pair_curvature
from discrank.data import PairwiseData
from discrank.exceptions import ConvergenceWarning
from discrank.models._base import LOSSES, PairwiseModel, check_positive_float, check_positive_int, resolve_n_jobs

__all__ = ["Elo", "EloPlusPlus"]


_SOLVERS = ("newton", "lbfgs")


class _EloFamily(PairwiseModel):
    _default_solver = "newton"

    def __init__(
        self,
        *,
        solver: Optional[str] = None,
        tol: Optional[float] = None,
        max_iter: Optional[int] = None,
        n_jobs: Optional[int] = None,
    ):
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _validate_params(self, data: PairwiseData) -> None:
        if self.solver is not None and self.solver not in _SOLVERS:
            raise ValueError(f"solver must be one of {_SOLVERS} or None, got {self.solver!r}")
        if self.tol is not None:
            check_positive_float(self.tol, "tol")
        if self.max_iter is not None:
            check_positive_int(self.max_iter, "max_iter")
        resolve_n_jobs(self.n_jobs)

    def _fit(self, data: PairwiseData, objective: Any, w: np.ndarray, piece: np.ndarray) -> None:
        loss_id = LOSSES[self._loss]
        n_threads = self._n_threads
        solver = self._default_solver if self.solver is None else self.solver
        tol = (1e-9 if solver == "newton" else 1e-7) if self.tol is None else self.tol
        max_iter = (100 if solver == "newton" else 2000) if self.max_iter is None else self.max_iter
        self.solver_, self.tol_ = solver, tol
        if solver == "newton":
            res = newton_elo(objective, loss_id, data.i, data.j, w, data.n_players, piece, tol, int(max_iter), n_threads)
            self.linear_solver_ = res.linear_solver
        else:

            def fun(s: np.ndarray) -> tuple[float, np.ndarray]:
                f, _, _, gs = objective.evaluate(loss_id, s=s, grad_s=True, n_threads=n_threads)
                return f, gs

            h = pair_curvature(data.i, data.j, w, None, data.n_players, objective, n_threads)
            res = minimize_scaled(fun, np.zeros(data.n_players), h, tol, int(max_iter))
        s = res.x
        # The scores are defined up to a constant in each piece of the comparison graph: centre each piece.
        s -= (np.bincount(piece, s) / np.bincount(piece))[piece]
        self.ratings_ = s
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.grad_measure_ = res.grad_measure
        self.loss_ = res.fun
        if not res.converged:
            warnings.warn(f"{type(self).__name__} did not converge: {res.message}", ConvergenceWarning, stacklevel=3)

    def _factors(self) -> dict[str, np.ndarray]:
        return {"s": self.ratings_}

    def _rating_columns(self):
        return {"_elo_base": self.ratings_, "rating": self.ratings_}, self.ratings_


class Elo(_EloFamily):
    """Stationary Elo score, Eq. (1) of the paper.

    ``ratings_ = argmin_s sum_p w_p bce(P_p, sigmoid(s_i - s_j))`` over the observed pairs, so that
    ``P(i beats j) = sigmoid(s_i - s_j)`` (the paper's alpha = 1: natural-log units; multiply by
    400 / ln 10 for the familiar Elo points).

    Parameters
    ----------
    solver : {"newton", "lbfgs"}, default "newton"
        "newton": Newton's method on the compiled objective; the Hessian is the weighted Laplacian of
        the comparison graph, solved by Jacobi-preconditioned conjugate gradients, or by a banded
        Cholesky factorisation on ladder-like data where CG would crawl (``linear_solver_`` says
        which); quadratic convergence to the maximum-likelihood optimum. "lbfgs": preconditioned
        L-BFGS (first order).
    tol : float, default 1e-9 (newton) or 1e-7 (lbfgs)
        Converged when, for every player, ``|gradient| / curvature scale`` is at most ``tol``: for Elo
        this is the gap between the player's expected and observed mean score (see ``discrank._optim``).
    max_iter : int, default 100 (Newton steps) or 2000 (L-BFGS iterations)
    n_jobs : int, optional
        Threads of the compiled core, with scikit-learn's meaning (None: OpenMP's default, -1: all).

    Attributes
    ----------
    ratings_ : ndarray, shape (n_players,)
        Elo scores, mean 0 in each piece of the comparison graph.
    labels_ : ndarray
        The players, in the order of ``ratings_``.
    n_iter_ : int
        Newton steps or L-BFGS iterations.
    solver_, tol_ : str, float
        The solver and tolerance used (the defaults resolved).
    linear_solver_ : str
        (newton) "cg" or "banded Cholesky": how the last Newton systems were solved.
    converged_ : bool
        Whether the gradient criterion was met (a ``ConvergenceWarning`` is raised otherwise).
    grad_measure_ : float
        The final value of the stopping measure.
    loss_ : float
        Final objective: the weighted mean loss over the observed pairs.
    """

    _loss = "bce"


class EloPlusPlus(_EloFamily):
    """Elo++ (Sismanis 2010) without its time decay, as in the paper's appendix.

    Same model as :class:`Elo`, ``P(i beats j) = sigmoid(s_i - s_j)``, fitted with the quadratic loss
    ``1/2 (P_ij - sigmoid(s_i - s_j))^2``. Parameters and attributes as :class:`Elo`; the loss is not
    convex, so the default solver is "lbfgs" ("newton" runs Gauss-Newton).
    """

    _default_solver = "lbfgs"

    _loss = "sigmoid_squared"
