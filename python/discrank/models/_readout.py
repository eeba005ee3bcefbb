"""The reading of a fitted disc model (Propositions 1 and 2, Theorem 2) and its display, shared by the
disc decomposition, m-Elo, the Schur decomposition and the cross-validated disc decomposition."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank.models.analysis import TransitivitySummary, disc_verdict, reparametrize, transitivity_summary
from discrank.models._pairwise import PairwiseModel

__all__ = ["DiscReadout"]


class DiscReadout:
    """The readout of the fitted disc models (``u_``, ``v_``): first component, ``transitivity()``,
    ``ratings_frame``; mixed in before :class:`~discrank.models._pairwise.PairwiseModel`.
    """

    u_: np.ndarray
    v_: np.ndarray
    labels_: np.ndarray

    def _describe_first_component(self) -> None:
        """Read the first component of the fitted model (Propositions 1 and 2).

        Sets ``transitive_``, ``angle_`` and ``radius_`` (polar coordinates of (u_i1, v_i1)), and, when the
        component is transitive, ``strength_``, ``consistency_`` (:func:`discrank.models.analysis.reparametrize`)
        and ``ranking_`` (labels by decreasing strength); None for a cyclic one.
        """
        u, v = self.u_[:, 0], self.v_[:, 0]
        self.transitive_ = disc_verdict(u, v).transitive
        self.angle_, self.radius_ = np.arctan2(v, u), np.hypot(u, v)
        self.strength_ = self.consistency_ = self.ranking_ = None
        if self.transitive_:
            try:
                rep = reparametrize(u, v)
            except ValueError:  # all ties, or the origin on the hull's border: no finite strength
                return
            self.strength_, self.consistency_ = rep.strength, rep.consistency
            self.ranking_ = self.labels_[np.argsort(-rep.strength, kind="stable")]

    def _sort_key(self) -> Optional[np.ndarray]:
        """The strength (Proposition 2) when the first component is transitive; None when it is cyclic."""
        return getattr(self, "strength_", None)

    def _elo_scale(self) -> Optional[np.ndarray]:
        """The strength, in logits: ``ratings_frame`` shows it on the Elo scale too."""
        return getattr(self, "strength_", None)

    def _rating_columns(self) -> dict[str, np.ndarray]:
        cols: dict = {}
        strength = getattr(self, "strength_", None)
        if strength is not None:
            cols["strength"] = strength
            cols["consistency"] = self.consistency_
        U, V = self.u_, self.v_
        for m in range(U.shape[1]):
            cols[f"u_{m + 1}"] = U[:, m]
            cols[f"v_{m + 1}"] = V[:, m]
        return cols

    def relabel(self, labels: np.ndarray) -> None:
        """Give a model fitted on player codes its players' labels (``ranking_`` too).

        Parameters
        ----------
        labels : ndarray
            ``labels[c]`` is the label of the player coded ``c``.
        """
        super().relabel(labels)  # type: ignore[misc]
        if getattr(self, "ranking_", None) is not None:
            self.ranking_ = labels[np.asarray(self.ranking_, dtype=np.int64)]

    def _verdict(self) -> str:
        """Whether the main component is transitive (Proposition 1), and the share of each (Theorem 2)."""
        summary = self.transitivity()
        shares = ", ".join(f"{100 * x:.0f}%" for x in summary.share)
        kind = "transitive" if summary.main_transitive else "cyclic"
        return f"main disc component {kind} (Proposition 1); share of each component: {shares}"

    def ratings_frame(self, *, min_games: Any = None, max_sd: Any = None, active_since: Any = None, context: Any = None,
                      anchor: Any = None, anchor_rating: float = 1500.0):
        frame = super().ratings_frame(min_games=min_games, max_sd=max_sd, active_since=active_since,  # type: ignore
                                      context=context, anchor=anchor, anchor_rating=anchor_rating)
        summary = self.transitivity()
        frame.attrs["transitivity"] = {"share": [float(x) for x in summary.share],
                                       "transitive": [bool(x) for x in summary.transitive]}
        return frame

    ratings_frame.__doc__ = PairwiseModel.ratings_frame.__doc__

    def transitivity(self) -> TransitivitySummary:
        """Share of each component and which are transitive (Theorem 2, Proposition 1).

        Returns
        -------
        TransitivitySummary

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        """
        self._check_fitted()  # type: ignore[attr-defined]
        return transitivity_summary(self.u_, self.v_)
