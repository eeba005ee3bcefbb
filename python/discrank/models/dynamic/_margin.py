"""The margin likelihood of :class:`~discrank.DynamicElo` (``margin_scale``; :data:`MARGINS`, one of its parts,
:mod:`discrank.models.dynamic._part`).

A log with margins (:attr:`discrank.GameLog.margin`: the games won by each player of a tennis match, the goals of
each side) adds the likelihood of their sub-contests, each won by ``a`` with probability ``sigmoid(margin_scale
d)`` (the margin rows of :mod:`discrank.solvers._history_core`), to the results'; ``margin_scale`` is tuned with
the other scales. The margins only inform the ratings; a forecast of a result keeps its form.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from discrank._util.checks import show
from discrank.data._margin import as_margin
from discrank.models.dynamic._part import Part, held_whole
from discrank.persist.model_file import FittedArray

__all__ = ["MARGINS", "MARGIN_GRID", "MARGIN_BOUNDS"]

#: Margin scales (a sub-contest's logit per logit of the game) tried when ``margin_scale`` is None and the log
#: has margins.
MARGIN_GRID = (0.1, 0.2, 0.3, 0.45, 0.7, 1.0)
#: The hard bounds of the margin scale's search past its grid's edges.
MARGIN_BOUNDS = (1.0 / 40, 4.0)


class Margins(Part):
    """The margin likelihood: its column's checks, scale and file fields."""

    name, column = "margin_scale", "margin"
    fitted = ("margin_scale_",)
    arrays = (FittedArray("games_margin_", ("g", "m"), required=False, bound=None,
                          nonnegative="margin (sub-contests won)", attr="games_.margin"),)
    scalars = ("margin_scale_",)
    grid, bounds = MARGIN_GRID, MARGIN_BOUNDS
    advice = {"upper": "a sub-contest decides as much as the game or more: check the margin columns",
              "lower": "the margins barely inform the ratings: give margin_scale=0"}

    def fit_games(self, model: Any, log: Any, games: Any) -> Any:
        """``games`` with their margins kept (``margin_scale`` not 0), or dropped."""
        if games.margin is None or model.margin_scale == 0:
            if games.margin is None and model.margin_scale:
                raise ValueError(f"margin_scale={show(model.margin_scale)} asks for a margin likelihood, but the log "
                                 "has no margin columns (GameLog(..., margin=(won_by_a, won_by_b)))")
            return dataclasses.replace(games, margin=None)
        return games

    def given(self, model: Any, games: Any) -> Any:
        return 0.0 if games.margin is None else model.margin_scale

    def update_games(self, model: Any, log: Any, games: Any) -> Any:
        if getattr(model, "margin_scale_", None) is None:
            if games.margin is not None and model.margin_scale != 0:
                raise ValueError("update's games have margin columns; the DynamicElo was fitted without (give them "
                                 "without, or fit with margins)")
            return dataclasses.replace(games, margin=None)
        if games.margin is None:
            raise ValueError("update's games have no margin columns; the DynamicElo was fitted with a margin "
                             "likelihood: give each game's margin (GameLog(..., margin=...))")
        return games

    def solver(self, model: Any, h: Any) -> dict:
        return {"margin_scale": model._scales[self.name] if h.margin is not None else 0.0}

    def keep(self, model: Any, res: Any, n_players: int) -> dict:
        scale = model._scales[self.name]
        return {"margin_scale_": float(scale) if scale else None}

    def check_file(self, model: Any, n_players: int) -> None:
        games = model.games_
        if held_whole("a margin likelihood", {"games_margin_": games.margin,
                                              "scalars.margin_scale_": model.margin_scale_}):
            if games.margin.shape != (len(games), 2):
                raise ValueError(f"games_margin_ has shape {games.margin.shape}, expected ({len(games)}, 2): the "
                                 "sub-contests won by a and by b in each game")
            try:
                as_margin(games.margin, games.score)
            except ValueError as exc:
                raise ValueError(f"games_margin_: {exc}") from None

    def verdict(self, model: Any) -> Optional[str]:
        if getattr(model, "margin_scale_", None) is None:
            return None
        return f"margin likelihood, a sub-contest at {model.margin_scale_:.4g} of the game's logit"


MARGINS = Margins()
