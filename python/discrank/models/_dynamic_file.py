"""The features of a :class:`~discrank.DynamicElo` model file (:class:`DynamicFile`, a base of the estimator): the
context effects, margins, disc components, draw propensities and match formats that :mod:`discrank.persist`
reads back, checked against each other and against the model's parameters before the history is built again.

A file holds each feature whole or not at all (a ValueError names the field otherwise):

- contexts: ``context_labels_`` (a label set), each game's code into it (``games_ctx_``), the effects and their
  standard deviations (``context_effects_``, ``context_sd_``, shape (n_players, n_contexts)) and
  ``context_scale_``;
- margins: each game's sub-contests won by each side (``games_margin_``, shape (n_games, 2), checked as a log's
  margin column is, :func:`discrank._margin.as_margin`) and ``margin_scale_``;
- the disc game: ``disc_u_`` and ``disc_v_`` (shape (n_players, disc_components)) and ``disc_scale_``;
- draw propensities (Davidson's draw model only): ``draw_propensity_``, ``draw_propensity_sd_`` and
  ``draw_propensity_scale_``;
- match formats: ``format_labels_`` (a label set), each game's code into it (``games_fmt_``) and each format's
  scale of the logit (``format_scales_``, positive).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from discrank._checks import show
from discrank._margin import as_margin

__all__ = ["DynamicFile", "FEATURE_ATTRS"]

#: The fitted attributes of the features (None in a model without the feature, as a fit leaves them).
FEATURE_ATTRS = ("context_labels_", "context_effects_", "context_sd_", "context_scale_", "margin_scale_", "disc_u_",
                 "disc_v_", "disc_scale_", "draw_propensity_", "draw_propensity_sd_", "draw_propensity_scale_",
                 "format_labels_", "format_scales_")


def _whole(feature: str, fields: dict) -> bool:
    """Whether a file holds the feature whose fields are ``fields`` (name: value or None): all of them or none; a
    ValueError naming the missing one otherwise."""
    held = [key for key, value in fields.items() if value is not None]
    if held and len(held) < len(fields):
        missing = next(key for key, value in fields.items() if value is None)
        raise ValueError(f"the file holds {held[0]} but not {missing}: a model with {feature} has both")
    return bool(held)


def _codes(key: str, codes: np.ndarray, labels: np.ndarray, what: str) -> None:
    """A ValueError naming the first code of ``codes`` outside ``labels``, or labels of fewer than two values (a
    fit has two at least)."""
    if labels.size < 2:
        raise ValueError(f"{what} labels hold {labels.size} value(s): a model with {what}s is fitted on two at least")
    bad = (codes < 0) | (codes >= labels.size)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{key}[{k}] = {codes[k]} is not a {what} code ({what} labels hold {labels.size})")


class DynamicFile:
    """Reading the features of a model file back (:meth:`_file_features`)."""

    def _file_features(self, n_players: int) -> tuple[Optional[np.ndarray], int, Optional[np.ndarray],
                                                      Optional[np.ndarray], int]:
        """``(ctx, n_ctx, margin, fmt, n_fmt)`` of the loaded games for
        :func:`discrank._history_build.build_history`, each feature checked whole, against the parameters and
        against the games (the module's list; a ValueError names the field)."""
        games = self.games_
        for attr in FEATURE_ATTRS:
            setattr(self, attr, getattr(self, attr, None))
        n_ctx = n_fmt = 0
        if _whole("contexts", {"context_labels_": self.context_labels_, "games_ctx_": games.ctx,
                               "context_effects_": self.context_effects_, "context_sd_": self.context_sd_,
                               "scalars.context_scale_": self.context_scale_}):
            if self.context_scale == 0:
                raise ValueError("the file holds context effects, but its parameter context_scale is 0 (no contexts)")
            _codes("games_ctx_", games.ctx, self.context_labels_, "context")
            n_ctx = int(self.context_labels_.size)
        if _whole("a margin likelihood", {"games_margin_": games.margin, "scalars.margin_scale_": self.margin_scale_}):
            if games.margin.shape != (len(games), 2):
                raise ValueError(f"games_margin_ has shape {games.margin.shape}, expected ({len(games)}, 2): the "
                                 "sub-contests won by a and by b in each game")
            try:
                as_margin(games.margin, games.score)
            except ValueError as exc:
                raise ValueError(f"games_margin_: {exc}") from None
        k = int(self.disc_components or 0)
        if _whole("disc components", {"disc_u_": self.disc_u_, "disc_v_": self.disc_v_,
                                      "scalars.disc_scale_": self.disc_scale_}) != bool(k):
            raise ValueError(f"params.disc_components = {k}, but the file holds {'no' if k else 'the'} disc components")
        for key in ("disc_u_", "disc_v_") if k else ():
            if getattr(self, key).shape != (n_players, k):
                raise ValueError(f"{key} has shape {getattr(self, key).shape}, expected ({n_players}, {k}) "
                                 f"({n_players} players, disc_components={k})")
        if _whole("draw propensities", {"draw_propensity_": self.draw_propensity_,
                                        "draw_propensity_sd_": self.draw_propensity_sd_,
                                        "scalars.draw_propensity_scale_": self.draw_propensity_scale_}):
            if self.draws != "davidson" or self.draw_propensity_scale == 0:
                raise ValueError(f"the file holds draw propensities, but its parameters say draws={self.draws!r}, "
                                 f"draw_propensity_scale={show(self.draw_propensity_scale)} (propensities need "
                                 "Davidson's draw model and a scale other than 0)")
        if _whole("match formats", {"format_labels_": self.format_labels_, "games_fmt_": games.fmt,
                                    "format_scales_": self.format_scales_}):
            given = self.format_scales
            if not isinstance(given, dict) and given == 0:
                raise ValueError("the file holds match formats, but its parameter format_scales is 0 (no formats)")
            _codes("games_fmt_", games.fmt, self.format_labels_, "match format")
            if isinstance(given, dict):  # (JSON keys are text: keyed again by the fitted formats)
                fitted = self.format_labels_.tolist()
                names = [str(v) for v in fitted]
                missing = [name for name in names if name not in given]
                if missing:
                    raise ValueError(f"params.format_scales {given} gives no scale to the fitted match format(s) "
                                     f"{missing}")
                self.format_scales = {**{k: v for k, v in given.items() if k not in names},
                                      **{v: given[name] for v, name in zip(fitted, names)}}
            scales = self.format_scales_
            if not (scales > 0).all():
                j = int(np.flatnonzero(~(scales > 0))[0])
                raise ValueError(f"format_scales_[{j}] = {show(scales[j])} is not a positive scale of a format's logit")
            n_fmt = int(self.format_labels_.size)
        return games.ctx, n_ctx, games.margin, games.fmt, n_fmt

