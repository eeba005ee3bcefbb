"""The advantage covariates of :class:`~discrank.DynamicElo` (:data:`COVARIATES`, one of its parts,
:mod:`discrank.models.dynamic._part`).

A log's advantage columns (:attr:`discrank.GameLog.advantage`: the home side, White, Black in Go) add ``beta . x`` to
each game's logit, ``x`` attributed to ``a``; ``beta`` is fitted with the ratings, after their block, with the weak
prior of :data:`discrank.data._advantage.BETA_PRIOR_SCALE`. A forecast needs the same columns (a ValueError names them),
and an update too. They have no scale to tune.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank.data._advantage import check_identifiable, check_magnitude
from discrank.models.dynamic._part import Part
from discrank.models._prediction import log_covariates
from discrank.persist.model_file import FittedArray

__all__ = ["COVARIATES", "check_covariates"]


def check_covariates(x: Optional[np.ndarray], names: tuple) -> None:
    """The advantage covariates ``x`` of the fitted games (columns ``names``): finite, at most
    :data:`discrank.data._advantage.MAX_COVARIATE` in magnitude (:func:`~discrank.data._advantage.check_magnitude`), and
    identifiable (:func:`discrank.data._advantage.check_identifiable`). A ValueError names the column."""
    if x is None:
        return
    names = tuple(names) + tuple(f"x{k}" for k in range(len(names), x.shape[1]))
    for k in range(x.shape[1]):
        bad = ~np.isfinite(x[:, k])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"advantage column {names[k]!r} has a missing value (NaN or inf) at game {i}")
        check_magnitude(x[:, k], names[k], "game")
    check_identifiable(x, names)


class Covariates(Part):
    """The advantage covariates: their names and checks, file fields and forecast term."""

    name, column = "advantage", "x"
    arrays = (FittedArray("games_x_", ("g", "c"), required=False, bound=None, attr="games_.x"),)

    def fit_games(self, model: Any, log: Any, games: Any) -> Any:
        """``games``, their covariates checked, and ``advantage_names_`` (the log's, then ``x{k}`` for columns
        without a name)."""
        x = games.x
        names = tuple(log.advantage_names) if log.advantage is not None else ()
        if x is not None and len(names) < x.shape[1]:
            names = names + tuple(f"x{k}" for k in range(len(names), x.shape[1]))
        check_covariates(x, names)
        model.advantage_names_ = names
        return games

    def update_games(self, model: Any, log: Any, games: Any) -> Any:
        if not model.advantage_names_ and games.x is not None:
            raise ValueError(f"update's games have the advantage column(s) {list(log.advantage_names)}; the "
                             "DynamicElo was fitted without: give the games without them")
        log_covariates(log, model.advantage_names_, "DynamicElo", "update's games")
        return games

    def keep(self, model: Any, res: Any, n_players: int) -> dict:
        return {"beta_": res.beta[:len(model.advantage_names_)].copy()}

    def check_file(self, model: Any, n_players: int) -> None:
        x, names, g = model.games_.x, model.advantage_names_, len(model.games_)
        if names and (x is None or x.shape != (g, len(names))):
            raise ValueError(f"games_x_ has shape {None if x is None else x.shape}, expected ({g}, {len(names)}): "
                             f"a value per game of the covariates {list(names)}")
        if not names and x is not None:
            raise ValueError("games_x_ holds covariates, but the header names no advantage")
        check_covariates(x, names)

    def codes(self, model: Any, log: Any, n: int) -> Optional[np.ndarray]:
        """The advantage columns of the games to forecast (:func:`discrank.models._prediction.log_covariates`)."""
        return log_covariates(log, model.advantage_names_, "DynamicElo")

    def terms(self, fitted: Any, d: Any, v: Any, eta: Any, ia: np.ndarray, ib: np.ndarray,
              codes: Optional[np.ndarray]) -> tuple:
        beta = fitted.beta_
        return (d if codes is None or not beta.size else d + codes @ beta), v, eta

    def verdict(self, model: Any) -> Optional[str]:
        if not model.advantage_names_:
            return None
        se = model.beta_se_
        return "\n".join(f"advantage {name!r}: {model.beta_[k]:.4g} +- {se[k]:.2g} logits"
                         for k, name in enumerate(model.advantage_names_))


COVARIATES = Covariates()
