"""Each player's draw propensity in :class:`~discrank.DynamicElo` (``draw_propensity_scale``; :data:`PROPENSITIES`,
one of its parts, :mod:`discrank.models.dynamic._part`).

With Davidson's draw model, a game's draw parameter is ``eta + delta_a + delta_b``: the global ``eta = log nu``
and a propensity ``delta_p ~ N(0, draw_propensity_scale^2)`` of each of its players, held over the whole history
(TrueSkill Through Time's per-player draw margin). The propensities are a block of the same Newton system as the
ratings, in each row's draw parameter (the objective stays convex); the scale is tuned with the features' scales
when None. A forecast uses ``eta + delta_a + delta_b``, ``delta = 0`` for a player the fit has not seen. Rao and
Kupper's model is left out: its threshold must stay positive, which an additive Gaussian effect does not respect.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank.models.dynamic._part import Part, held_whole
from discrank.persist.model_file import FittedArray

__all__ = ["PROPENSITIES", "PROPENSITY_GRID", "PROPENSITY_BOUNDS", "propensity_term"]

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


class Propensities(Part):
    """The draw propensities: their scale's check, block, file fields and forecast term."""

    name = "draw_propensity_scale"
    fitted = ("draw_propensity_", "draw_propensity_sd_", "draw_propensity_scale_")
    arrays = (FittedArray("draw_propensity_", ("n",), required=False),
              FittedArray("draw_propensity_sd_", ("n",), required=False, nonnegative="standard deviation"))
    scalars = ("draw_propensity_scale_",)
    grid, bounds = PROPENSITY_GRID, PROPENSITY_BOUNDS
    advice = {"upper": "the players' draw rates differ more than the search allows: give draw_propensity_scale=",
              "lower": "the players' draw rates barely differ: give draw_propensity_scale=0"}

    def given(self, model: Any, games: Any) -> Any:
        """0 without propensities, None to tune; a ValueError for a scale given without Davidson's draw model."""
        scale = model.draw_propensity_scale
        if model.draws != "davidson":
            if scale:
                raise ValueError(f"draw_propensity_scale={show(scale)} asks for each player's draw propensity, which "
                                 f"needs draws='davidson' (got draws={model.draws!r}): Rao and Kupper's threshold must "
                                 "stay positive, which an additive effect does not respect")
            return 0.0
        return scale

    def solver(self, model: Any, h: Any) -> dict:
        return {"propensity_scale": model._scales[self.name]}

    def start(self, model: Any, n_players: int) -> np.ndarray:
        if not model._scales.get(self.name):
            return np.zeros(0)
        delta = getattr(model, "draw_propensity_", None)
        return np.zeros(n_players) if delta is None else np.pad(delta, (0, n_players - delta.size))

    def keep(self, model: Any, res: Any, n_players: int) -> dict:
        if res.propensity is None:
            return dict.fromkeys(self.fitted)
        return {"draw_propensity_": res.propensity, "draw_propensity_sd_": 1.0 / np.sqrt(res.propensity_diag),
                "draw_propensity_scale_": float(model._scales[self.name])}

    def check_file(self, model: Any, n_players: int) -> None:
        if held_whole("draw propensities", {"draw_propensity_": model.draw_propensity_,
                                            "draw_propensity_sd_": model.draw_propensity_sd_,
                                            "scalars.draw_propensity_scale_": model.draw_propensity_scale_}):
            if model.draws != "davidson" or model.draw_propensity_scale == 0:
                raise ValueError(f"the file holds draw propensities, but its parameters say draws={model.draws!r}, "
                                 f"draw_propensity_scale={show(model.draw_propensity_scale)} (propensities need "
                                 "Davidson's draw model and a scale other than 0)")

    def terms(self, fitted: Any, d: Any, v: Any, eta: Any, ia: np.ndarray, ib: np.ndarray,
              codes: Optional[np.ndarray]) -> tuple:
        delta = getattr(fitted, "draw_propensity_", None)
        return d, v, eta if delta is None else eta + propensity_term(delta, ia, ib)

    def verdict(self, model: Any) -> Optional[str]:
        if getattr(model, "draw_propensity_scale_", None) is None:
            return None
        delta = model.draw_propensity_
        return (f"draw propensities, scale {model.draw_propensity_scale_:.4g}: from {delta.min():.3g} to "
                f"{delta.max():.3g} in log nu")


PROPENSITIES = Propensities()
