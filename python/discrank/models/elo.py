"""Stationary Elo (Eq. (1)) and Elo++ without its time decay (appendix, "Elo ++")."""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from discrank._optim import minimize_scaled, pair_curvature
from discrank.data import PairwiseData
from discrank.exceptions import ConvergenceWarning
from discrank.models._base import LOSSES, PairwiseModel

__all__ = ["Elo", "EloPlusPlus"]


class _EloFamily(PairwiseModel):
    def __init__(self, *, tol: float = 1e-7, max_iter: int = 2000, n_jobs: Optional[int] = None):
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _fit(self, data: PairwiseData, objective: Any, w: np.ndarray, piece: np.ndarray) -> None:
        loss_id = LOSSES[self._loss]
        n_threads = self._n_threads

        def fun(s: np.ndarray) -> tuple[float, np.ndarray]:
            f, _, _, gs = objective.evaluate(loss_id, s=s, grad_s=True, n_threads=n_threads)
            return f, gs

        h = pair_curvature(data.i, data.j, w, None, data.n_players)
        res = minimize_scaled(fun, np.zeros(data.n_players), h, self.tol, self.max_iter)
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


class Elo(_EloFamily):
    """Stationary Elo score, Eq. (1) of the paper.

    ``ratings_ = argmin_s sum_p w_p bce(P_p, sigmoid(s_i - s_j))`` over the observed pairs, so that
    ``P(i beats j) = sigmoid(s_i - s_j)`` (the paper's alpha = 1: natural-log units; multiply by
    400 / ln 10 for the familiar Elo points). Fitted by L-BFGS on the compiled objective.

    Parameters
    ----------
    tol : float
        Converged when, for every player, ``|gradient| / curvature scale`` is at most ``tol``: for Elo
        this is the gap between the player's expected and observed mean score (see ``discrank._optim``).
    max_iter : int
        Most L-BFGS iterations.
    n_jobs : int, optional
        Threads of the compiled core, with scikit-learn's meaning (None: OpenMP's default, -1: all).

    Attributes
    ----------
    ratings_ : ndarray, shape (n_players,)
        Elo scores, mean 0 in each piece of the comparison graph.
    labels_ : ndarray
        The players, in the order of ``ratings_``.
    n_iter_ : int
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
    ``1/2 (P_ij - sigmoid(s_i - s_j))^2``. Parameters and attributes as :class:`Elo`.
    """

    _loss = "sigmoid_squared"
