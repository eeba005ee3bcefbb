"""Each player's draw propensity in :class:`~discrank.DynamicElo` (``draw_propensity_scale``;
:class:`DynamicDraws`, a base of the estimator).

With Davidson's draw model, a game's draw parameter is ``eta + delta_a + delta_b``: the global ``eta = log nu``
and a propensity ``delta_p ~ N(0, draw_propensity_scale^2)`` of each of its players, held over the whole history,
as TrueSkill Through Time's per-player draw margin. A player who draws more than the ratings' difference
explains gets a positive ``delta``. The propensities are a block of the same Newton system as the ratings
(cpp/include/discrank/history.hpp: they enter each row's draw parameter, not its logit, with Davidson's
exact cross terms; the objective stays convex, Davidson's loss being convex in ``(d, eta)``); the scale is
tuned on the validation window with the margin, context and disc scales when it is None, so that propensities
the data does not support shrink to nothing. A forecast uses ``eta + delta_a + delta_b``, a player the fit has
not seen having ``delta = 0``.

Rao and Kupper's model is left out: its threshold must stay positive, which an additive Gaussian effect does not
respect (a fit asks for ``draws="davidson"``).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._checks import show

__all__ = ["DynamicDraws", "PROPENSITY_GRID", "PROPENSITY_BOUNDS", "propensity_term"]

#: Draw propensity scales (in Davidson's ``log nu``) tried when ``draw_propensity_scale`` is None.
PROPENSITY_GRID = (0.05, 0.1, 0.2, 0.4, 0.8)
#: The hard bounds of the draw propensity scale's search past its grid's edges.
PROPENSITY_BOUNDS = (1.0 / 80, 3.2)


def propensity_term(delta: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """``delta_a + delta_b`` of games between ``ia`` and ``ib`` (a player coded -1, or one past ``delta``: 0)."""
    total = np.zeros(np.shape(ia))
    for i in (ia, ib):
        ok = (i >= 0) & (i < delta.size)
        total += np.where(ok, delta[np.where(ok, i, 0)], 0.0)
    return total


class DynamicDraws:
    """The draw propensities of :class:`~discrank.DynamicElo`: their scale's check, start, store and term."""

    def _propensity_scale(self) -> Optional[float]:
        """The scale the fit uses: 0 without propensities, None to tune; a ValueError for a scale given to a fit
        without Davidson's draw model."""
        scale = self.draw_propensity_scale
        if self.draws != "davidson":
            if scale:
                raise ValueError(f"draw_propensity_scale={show(scale)} asks for each player's draw propensity, which "
                                 f"needs draws='davidson' (got draws={self.draws!r}): Rao and Kupper's threshold must "
                                 "stay positive, which an additive effect does not respect")
            return 0.0
        return scale

    def _propensity_start(self, n_players: int) -> np.ndarray:
        """The fitted propensities (new players' at 0): a warm start; empty without."""
        if not getattr(self, "_pscale", 0.0):
            return np.zeros(0)
        delta = getattr(self, "draw_propensity_", None)
        if delta is None:
            return np.zeros(n_players)
        return np.pad(delta, (0, n_players - delta.size))

    def _store_propensity(self, res: Any) -> None:
        """Keep the fitted propensities of a :class:`~discrank._history.HistoryResult` (``draw_propensity_``, one
        per player, and their standard deviations, ``draw_propensity_sd_``) and the scale used."""
        if res.propensity is None:
            self.draw_propensity_ = self.draw_propensity_sd_ = self.draw_propensity_scale_ = None
            return
        self.draw_propensity_ = res.propensity
        self.draw_propensity_sd_ = 1.0 / np.sqrt(res.propensity_diag)
        self.draw_propensity_scale_ = float(self._pscale)

    def _propensity_term(self, ia: np.ndarray, ib: np.ndarray) -> Any:
        """The draw propensities of games between ``ia`` and ``ib`` (0 without)."""
        delta = getattr(self, "draw_propensity_", None)
        return 0.0 if delta is None else propensity_term(delta, ia, ib)
