"""Stationary Elo (Eq. (1)) and Elo++ without its time decay (appendix, "Elo ++")."""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from discrank._optim import minimize_scaled, newton_elo, pair_curvature
from discrank.data import PairwiseData
from discrank import _core
from discrank._labels import show
from discrank.exceptions import ConvergenceWarning, SeparationWarning
from discrank.models._base import LOSSES, PairwiseModel, check_positive_float, check_positive_int, resolve_n_jobs

__all__ = ["Elo", "EloPlusPlus"]


_SOLVERS = ("newton", "lbfgs")

#: Prior standard deviation (logits) used when the results separate the players: 10 logits is 1737 Elo
#: points, far wider than any real rating spread, so it only matters where the data has no answer.
SEPARATION_PRIOR_SCALE = 10.0
#: Largest rating spread (logits) within a piece before the fit checks for a separated group.
SEPARATION_CHECK_SPREAD = 18.0
#: Logs with at most this many pairs are checked for separated groups before the fit.
TARJAN_UP_FRONT = 200_000


def _spread(s: np.ndarray, piece: np.ndarray) -> float:
    if s.size == 0:
        return 0.0
    hi = np.full(piece.max() + 1, -np.inf)
    lo = np.full(piece.max() + 1, np.inf)
    np.maximum.at(hi, piece, s)
    np.minimum.at(lo, piece, s)
    return float(np.max(hi - lo))


class _EloFamily(PairwiseModel):
    _default_solver = "newton"

    def __init__(
        self,
        *,
        solver: Optional[str] = None,
        prior_scale: Optional[float] = None,
        tol: Optional[float] = None,
        max_iter: Optional[int] = None,
        n_jobs: Optional[int] = None,
    ):
        self.solver = solver
        self.prior_scale = prior_scale
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _validate_params(self, data: PairwiseData) -> None:
        if self.solver is not None and self.solver not in _SOLVERS:
            raise ValueError(f"solver must be one of {_SOLVERS} or None, got {self.solver!r}")
        if self.prior_scale is not None:
            check_positive_float(self.prior_scale, "prior_scale")
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
        n_pieces = int(piece.max()) + 1 if piece.size else 0

        def solve(sigma):
            # prior N(0, sigma^2) per rating, on the scale of the objective (the mean loss per unit weight)
            ridge = 0.0 if sigma is None else 1.0 / (sigma**2 * float(data.pair_weights().sum()))
            if solver == "newton":
                return newton_elo(objective, loss_id, data.i, data.j, w, data.n_players, piece, tol, int(max_iter),
                                  n_threads, ridge=ridge, sums=sums)

            def fun(s: np.ndarray) -> tuple[float, np.ndarray]:
                f, _, _, gs = objective.evaluate(loss_id, s=s, grad_s=True, n_threads=n_threads)
                return f + 0.5 * ridge * float(s @ s), gs + ridge * s

            h = pair_curvature(objective, w, None, n_threads) + ridge
            return minimize_scaled(fun, np.zeros(data.n_players), h, tol, int(max_iter))

        # Separation (no finite maximum-likelihood answer): a player who never scores or never concedes
        # is found in one pass; a separated *group* by the strong pieces of the beat graph (Tarjan, O(m)):
        # up front on logs of up to TARJAN_UP_FRONT pairs, else only when the fit does not converge or
        # spreads a piece wider than SEPARATION_CHECK_SPREAD logits.
        sums = objective.score_sums(n_threads=n_threads)  # (total, scored, conceded) per player
        sigma = self.prior_scale
        strong_pieces = None  # (count, piece of each player) of the beat graph, computed at most once

        def strongly_separated() -> bool:
            nonlocal strong_pieces
            strong_pieces = _core.beat_pieces(data.n_players, data.i, data.j, data.p)
            return bool(strong_pieces[0] > n_pieces)

        separated = False
        if sigma is None:
            won, lost = sums[1] > 0.0, sums[2] > 0.0  # ever scored / conceded (w > 0)
            has_pair = np.bincount(piece)[piece] > 1
            separated = bool(np.any(has_pair & ~(won & lost)))
            if not separated and data.n_pairs <= TARJAN_UP_FRONT:
                separated = strongly_separated()
        res = None
        if sigma is None and not separated:
            res = solve(None)
            if data.n_pairs > TARJAN_UP_FRONT and (
                not res.converged or _spread(res.x, piece) > SEPARATION_CHECK_SPREAD
            ):
                separated = strongly_separated()
        if separated:
            sigma = SEPARATION_PRIOR_SCALE
            if strong_pieces is None:  # found by the one-pass check: the groups are still to name
                strong_pieces = _core.beat_pieces(data.n_players, data.i, data.j, data.p)
            n_strong, strong = strong_pieces
            sizes = np.bincount(strong)
            smallest = np.argsort(sizes, kind="stable")[: min(5, sizes.size)]
            names = [show(data.labels[np.flatnonzero(strong == c)[0]]) for c in smallest]
            warnings.warn(
                f"the results separate the players into {n_strong} groups where {n_pieces} connected "
                f"piece(s) were expected: some players or groups never lose (or never win) against the others "
                f"(e.g. {', '.join(names)}), so the maximum-likelihood ratings are infinite. A N(0, "
                f"{SEPARATION_PRIOR_SCALE:g}^2) prior on each rating (in logits; prior_scale=) keeps them finite; "
                "their values for those players say 'far above / below', not how far",
                SeparationWarning,
                stacklevel=3,
            )
            res = None
        if res is None:
            res = solve(sigma)
        self.separated_ = separated
        self.prior_scale_ = sigma
        if solver == "newton":
            self.linear_solver_ = res.linear_solver
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

    When the results separate the players (a player or a group that never loses, or never wins,
    against the others in its piece), the maximum-likelihood ratings are infinite (Zermelo 1929): the
    fit then warns (``SeparationWarning``) and adds a N(0, 10^2) prior on each rating in logits
    (``SEPARATION_PRIOR_SCALE``, 1737 Elo points), which keeps them finite and barely moves the others.

    Parameters
    ----------
    solver : {"newton", "lbfgs"}, default "newton"
        "newton": Newton's method on the compiled objective; the Hessian is the weighted Laplacian of
        the comparison graph, solved by Jacobi-preconditioned conjugate gradients, or by a banded
        Cholesky factorisation on ladder-like data where CG would crawl (``linear_solver_`` says
        which); quadratic convergence to the maximum-likelihood optimum. "lbfgs": preconditioned
        L-BFGS (first order).
    prior_scale : float, optional
        Standard deviation (logits) of a N(0, prior_scale^2) prior on every rating, added as
        ``sum_a s_a^2 / (2 prior_scale^2)`` to the negative log-likelihood of the games. None: no prior,
        unless the results separate the players (see above).
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
    separated_ : bool
        Whether the results separate the players (no finite maximum-likelihood answer).
    prior_scale_ : float or None
        The prior actually used.
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
