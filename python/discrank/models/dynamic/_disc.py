"""The disc game in the dynamic model: :class:`~discrank.DynamicElo` with ``disc_components=k``
(:data:`DISC`, one of its parts, :mod:`discrank.models.dynamic._part`; :class:`DynamicDisc`, a base of the estimator,
reads the game between the players at a time).

Each game's logit gains the paper's disc game (Section 3, Proposition 2's form): ``logit P(a beats b) = r_{a,t} -
r_{b,t} + sum_j (u_{a,j} v_{b,j} - v_{a,j} u_{b,j}) + ...``, one ``(u_j, v_j)`` per player and component with the
prior N(0, disc_scale^2) on each: the transitive strength (the rating) moves, the disc is held over the whole
history. The components are a block of the Newton system in the core (cpp/include/discrank/history.hpp: the
bilinear term's exact curvature, conjugate gradients stopped at negative curvature). A fit from scratch fits the
ratings with the disc at 0, then starts the disc along the top singular pair of the games' residuals
(:mod:`discrank.solvers._disc_start`); the disc stays exactly 0 where that singular value is below ``1 /
disc_scale^2``. The objective is not convex: the fit is a local minimum, its components rotated to a fixed
orientation, the same whatever the threads or Dask parts.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.progress import report_stage
from discrank.models.analysis import TransitivitySummary, normal_decomposition, reparametrize, transitivity_summary
from discrank.models.dynamic._part import Part, held_whole
from discrank.persist.model_file import FittedArray

__all__ = ["DISC", "DynamicDisc", "DISC_STEPS", "DISC_TOP", "DISC_PROBE", "DISC_GRID", "DISC_BOUNDS", "disc_uv",
           "disc_term"]

#: The disc scales the tuning walks when ``disc_scale`` is None, in multiples of the training log's threshold scale
#: ``1 / sqrt(sigma_1)``, ``sigma_1`` the largest singular value of the games' residuals at the ratings' fit, below
#: which the disc is exactly 0. The walk starts at the first (the ratings alone) and goes up while the validation
#: improves.
DISC_STEPS = (0.5, 2.0 ** 0.5, 2.0, 2.0 ** 1.5, 4.0)
#: The hard upper bound of that walk past its grid, in the same multiples.
DISC_TOP = 16.0
#: The disc scale of the fit that measures the threshold: far below any log's, so that the disc stays 0.
DISC_PROBE = 1e-3
#: The walk's grid and bounds where the residuals are 0 (no threshold to measure).
DISC_GRID = (0.25, 0.5, 1.0, 2.0, 4.0)
DISC_BOUNDS = (1.0 / 16, 16.0)


def disc_uv(disc: np.ndarray, k: int, n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """(u, v), each of shape (n_players, k), of the solver's disc block (cpp/include/discrank/history.hpp's: u
    of each component, then v)."""
    w = disc.reshape(2, k, n_players)
    return w[0].T, w[1].T


def disc_term(u: np.ndarray, v: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """The disc game's term of games between ``ia`` and ``ib`` (a player coded -1: 0), for the components ``u``
    and ``v`` of shape (n_players, k)."""
    ok = (ia >= 0) & (ib >= 0)
    a, b = np.where(ok, ia, 0), np.where(ok, ib, 0)
    return np.where(ok, np.sum(u[a] * v[b] - v[a] * u[b], axis=1), 0.0)


class Disc(Part):
    """The disc components: their scale's check, start, tuning from the log's threshold, file fields and forecast
    term."""

    name = "disc_scale"
    fitted = ("disc_u_", "disc_v_", "disc_scale_")
    arrays = (FittedArray("disc_u_", ("n", "j"), required=False), FittedArray("disc_v_", ("n", "j"), required=False))
    scalars = ("disc_scale_",)
    grid, bounds = DISC_GRID, DISC_BOUNDS
    advice = {"upper": "the disc game takes more than the search allows: give disc_scale=",
              "lower": "the log shows no cyclic part beyond the ratings: give disc_components=0"}
    resized = True

    def given(self, model: Any, games: Any) -> Any:
        """``disc_scale`` (None: tuned) with ``disc_components``, else 0; a ValueError for a scale given without
        components (the fit would leave it unused without a word)."""
        if model.disc_components:
            return model.disc_scale
        if model.disc_scale:
            raise ValueError(f"disc_scale={model.disc_scale!r} asks for a disc game, but disc_components=0: give "
                             "disc_components=k (k >= 1) to fit one, or no disc_scale")
        return 0.0

    def active(self, model: Any) -> bool:
        return bool(model.disc_components)

    def before_search(self, model: Any) -> None:
        """No disc until its walk: below the log's threshold scale the disc is exactly 0, the same model."""
        model._disc_held, model.disc_components = model.disc_components, 0

    def after_search(self, model: Any) -> None:
        model.disc_components = model._disc_held

    def walks(self, model: Any, probe: Any) -> list:
        """The walk of :data:`DISC_STEPS` and :data:`DISC_TOP` times the threshold scale of the first origin's
        history, measured by its fit with the disc at :data:`DISC_PROBE`
        (:attr:`discrank.solvers._history.HistoryResult.disc_sigma`) and reported, from below it; :data:`DISC_GRID`
        and :data:`DISC_BOUNDS` where the residuals are 0."""
        model.disc_components = model._disc_held
        sigma = probe({self.name: DISC_PROBE}).disc_sigma or 0.0
        grid, bounds = DISC_GRID, DISC_BOUNDS
        if sigma > 0.0:
            threshold = 1.0 / np.sqrt(sigma)
            report_stage(f"tuning DynamicElo: the residuals' largest singular value {sigma:.4g}, the disc's threshold "
                         f"scale {threshold:.4g}")
            grid = tuple(threshold * m for m in DISC_STEPS)
            bounds = (threshold * DISC_STEPS[0], threshold * DISC_TOP)
        model._scales[self.name] = grid[0]
        return [(self.name, self.name, grid, bounds)]

    def solver(self, model: Any, h: Any) -> dict:
        return {"disc": model.disc_components, "disc_scale": model._scales[self.name]}

    def start(self, model: Any, n_players: int) -> np.ndarray:
        """The fitted components (u of each, then v; new players' at 0) as the solver lays them out."""
        k = int(model.disc_components or 0)
        if not k or getattr(model, "disc_u_", None) is None:
            return np.zeros(2 * k * n_players)
        pad = ((0, n_players - model.disc_u_.shape[0]), (0, 0))
        return np.concatenate([np.pad(model.disc_u_, pad).T.reshape(-1), np.pad(model.disc_v_, pad).T.reshape(-1)])

    def keep(self, model: Any, res: Any, n_players: int) -> dict:
        k = int(model.disc_components or 0)
        if not k:
            return dict.fromkeys(self.fitted)
        u, v = disc_uv(res.disc, k, n_players)
        return {"disc_u_": u.copy(), "disc_v_": v.copy(), "disc_scale_": float(model._scales[self.name])}

    def check_file(self, model: Any, n_players: int) -> None:
        k = int(model.disc_components or 0)
        if held_whole("disc components", {"disc_u_": model.disc_u_, "disc_v_": model.disc_v_,
                                          "scalars.disc_scale_": model.disc_scale_}) != bool(k):
            raise ValueError(f"params.disc_components = {k}, but the file holds {'no' if k else 'the'} disc components")
        for key in ("disc_u_", "disc_v_") if k else ():
            if getattr(model, key).shape != (n_players, k):
                raise ValueError(f"{key} has shape {getattr(model, key).shape}, expected ({n_players}, {k}) "
                                 f"({n_players} players, disc_components={k})")

    def terms(self, fitted: Any, d: Any, v: Any, eta: Any, ia: np.ndarray, ib: np.ndarray,
              codes: Optional[np.ndarray]) -> tuple:
        if getattr(fitted, "disc_u_", None) is None:
            return d, v, eta
        return d + disc_term(fitted.disc_u_, fitted.disc_v_, ia, ib), v, eta

    def verdict(self, model: Any) -> Optional[str]:
        if getattr(model, "disc_scale_", None) is None:
            return None
        return (f"disc game, {model.disc_u_.shape[1]} component(s), scale {model.disc_scale_:.4g}, the largest "
                f"cyclic logit {np.abs(model.cyclic_logits()).max():.3g}")


DISC = Disc()


class DynamicDisc:
    """The game between the players of :class:`~discrank.DynamicElo` at a time, read as the paper reads a disc
    decomposition."""

    def _logit_factors(self, time: Any, players: Any) -> tuple:
        """(player codes, W, J): the logits between the players at ``time`` (None: the last fitted period) are
        ``W J W^T``, ``W`` = (rating, 1, u and v of each component), ``J`` its 2 x 2 blocks ``[[0, 1], [-1, 0]]``."""
        self._check_fitted()
        idx = self._players(players)
        b = np.full(idx.size, self.last_bin_, dtype=np.int64) if time is None else self._time_bin(time, idx.size)
        rating = self._state_at(idx, b)[0]
        cols = [rating, np.ones(idx.size)]
        for j in range(0 if getattr(self, "disc_u_", None) is None else self.disc_u_.shape[1]):
            cols += [self.disc_u_[idx, j], self.disc_v_[idx, j]]
        W = np.stack(cols, axis=1)
        J = np.kron(np.eye(W.shape[1] // 2), np.array([[0.0, 1.0], [-1.0, 0.0]]))
        return idx, W, J

    def transitivity_at(self, time: Any = None, players: Any = None) -> TransitivitySummary:
        """The game between the players at ``time``, read as the paper reads a disc decomposition: the logits
        ``r_a(t) - r_b(t) + sum_j (u_{a,j} v_{b,j} - v_{a,j} u_{b,j})``, a skew-symmetric matrix of rank 2 (k + 1)
        at most, in its normal decomposition (Theorem 2, computed from its low-rank factors, never the n x n
        matrix), each component's share and verdict (Proposition 1). Without disc components the game is the
        ratings' alone: one transitive component.

        Parameters
        ----------
        time : datetime-like or number, optional
            The time (the ratings at it, :meth:`ratings_at`); default the last fitted period.
        players : array_like, optional
            Labels (default: every player).

        Returns
        -------
        discrank.models.analysis.TransitivitySummary
        """
        _, W, J = self._logit_factors(time, players)
        U, V = self._normal_factors(W, J)
        return transitivity_summary(U, V)

    @staticmethod
    def _normal_factors(W: np.ndarray, J: np.ndarray) -> tuple:
        """(U, V) of the normal decomposition of ``W J W^T`` (Theorem 2), from the QR factors of ``W``."""
        Q, R = np.linalg.qr(W)
        Us, Vs, _ = normal_decomposition(R @ J @ R.T, W.shape[1] // 2)
        return Q @ Us, Q @ Vs

    def strength_consistency_at(self, time: Any = None, players: Any = None):
        """Proposition 2 at ``time``: each player's strength and consistency in the main component of the
        game at that time (:meth:`transitivity_at`), when that component is transitive.

        Parameters
        ----------
        time : datetime-like or number, optional
            The time; default the last fitted period.
        players : array_like, optional
            Labels (default: every player).

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``strength`` (logits), ``consistency`` (mean 1).

        Raises
        ------
        ValueError
            The main component is cyclic at that time (no strength exists: Proposition 1).
        """
        import pandas as pd

        idx, W, J = self._logit_factors(time, players)
        U, V = self._normal_factors(W, J)
        if not transitivity_summary(U, V).main_transitive:
            raise ValueError("the game's main component is cyclic at that time: no strength and consistency "
                             "exist (Proposition 1); read transitivity_at() and cyclic_logits()")
        rep = reparametrize(U[:, 0], V[:, 0])
        return pd.DataFrame({"player": self.labels_[idx], "strength": rep.strength, "consistency": rep.consistency})

    def cyclic_logits(self) -> Optional[np.ndarray]:
        """The disc game's logits between every two players, shape (n_players, n_players) (skew-symmetric); None
        without components."""
        if getattr(self, "disc_u_", None) is None:
            return None
        return self.disc_u_ @ self.disc_v_.T - self.disc_v_ @ self.disc_u_.T
