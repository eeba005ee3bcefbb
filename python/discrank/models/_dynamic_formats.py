"""Match formats in :class:`~discrank.DynamicElo` (``format_scales``; :class:`DynamicFormats`, a base of the
estimator).

A log with a match format column (:attr:`discrank.GameLog.match_format`: best of three or best of five sets in
tennis, a chess game's number of rounds) gives each format a scale of the game's logit: ``logit P(a beats b) =
s_f (r_{a,t} - r_{b,t} + ...)``, so that a longer match, which the stronger side wins more often at the same
rating gap, is more predictable. The most common format of the fitted log is the reference (``s = 1``: the
ratings' scale); each other format's scale is tuned on the validation window, after the other scales, walking
:data:`FORMAT_GRID` (:mod:`discrank.models._dynamic_tuning`), and held fixed in the whole-history fit
(:func:`discrank._history.solve_history`'s ``format_scales``; the margin rows are not scaled, a sub-contest being
the same whatever the match's length). Fitted jointly with the ratings as a MAP, a scale runs away where the
ratings move freely (a large drift fits every long match's winner, and the scale grows without bound, an
objective no longer convex): tuned on forecasts, it cannot. A forecast scales the logit and its variance
(``s^2 v``); a game without a format, or in one the fit has not seen, has the reference's scale 1.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np

from discrank._checks import show
from discrank._labels import LabelIndex
from discrank.exceptions import MissingColumnWarning
from discrank.models._dynamic_context import check_kind, game_codes

__all__ = ["DynamicFormats", "code_formats", "FORMAT_GRID", "FORMAT_BOUNDS"]

#: Scales of a format's logit (relative to the reference format's) tried when ``format_scales`` is None.
FORMAT_GRID = (0.5, 0.6, 0.7, 0.85, 1.0, 1.2, 1.4, 1.7, 2.0)
#: The hard bounds of a format scale's search past its grid's edges.
FORMAT_BOUNDS = (0.25, 4.0)


def code_formats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(labels, codes) of the formats of a log's games: the most common first (the reference; ties by sorted
    order), then the others in sorted order; a ValueError for a format seen in one game only (its scale would
    rest on one result) or for one format only (no scale to fit)."""
    values = np.asarray(values)
    labels, counts = np.unique(values, return_counts=True)
    once = labels[counts == 1]
    if once.size:
        raise ValueError(f"the match_format column has the format {show(once[0])} in one game only: a format's scale "
                         "needs several games (merge it with another format, or drop the game)")
    if labels.size < 2:
        raise ValueError(f"the log's match_format column holds one value only ({show(labels[0])}): format scales "
                         "need games of two formats at least (give format_scales=0, or no match_format column)")
    ref = int(np.argmax(counts))
    labels = np.concatenate([labels[ref:ref + 1], np.delete(labels, ref)])
    return labels, LabelIndex(labels).lookup(values)


class DynamicFormats:
    """The match formats of :class:`~discrank.DynamicElo`: their coding, checks, store and forecast scale."""

    def _fit_formats(self, games: Any) -> Any:
        """``games`` with their formats coded (``format_labels_`` set; ``_fscales`` the given scales by code, or
        None to tune them), or without formats (``format_scales`` 0 or no column); a ValueError for scales given
        to a log without formats, or not naming each of its formats."""
        fmt, given = getattr(games, "fmt", None), self.format_scales
        self._fscales = None
        if fmt is None or (not isinstance(given, dict) and given == 0):
            if fmt is None and isinstance(given, dict):
                raise ValueError(f"format_scales={given!r} gives match formats' scales, but the log has no "
                                 "match_format column (GameLog(..., match_format=...))")
            self.format_labels_ = None
            return dataclasses.replace(games, fmt=None) if fmt is not None else games
        labels, codes = code_formats(fmt)
        self.format_labels_ = labels
        if isinstance(given, dict):
            missing = [str(v) for v in labels if v not in given]
            if missing:
                raise ValueError(f"format_scales gives no scale to the log's match format(s) {missing} (its formats: "
                                 f"{[str(v) for v in labels]})")
            self._fscales = np.array([float(given[v]) for v in labels])
        return dataclasses.replace(games, fmt=codes)

    def _update_formats(self, games: Any) -> Any:
        """The new ``games`` of :meth:`update` with their formats coded into ``format_labels_``; a ValueError when
        the log has formats and the model none, the other way round, or a format the fit has not seen."""
        fitted = getattr(self, "format_labels_", None)
        fmt = getattr(games, "fmt", None)
        if fitted is None:
            if fmt is not None and (isinstance(self.format_scales, dict) or self.format_scales != 0):
                raise ValueError("update's games have a match_format column; the DynamicElo was fitted without (give "
                                 "the games without it, or fit on a log with match formats)")
            return games if fmt is None else dataclasses.replace(games, fmt=None)
        if fmt is None:
            raise ValueError("update's games have no match_format column; the DynamicElo was fitted with formats "
                             f"{[str(v) for v in fitted]}: give each game's format")
        check_kind(fmt, fitted, "match_format", "update's games")
        codes = LabelIndex(fitted).lookup(np.asarray(fmt))
        if (codes < 0).any():
            new = np.asarray(fmt)[codes < 0][0]
            raise ValueError(f"update's games have the match format {show(new)}, which the fit has not seen (its "
                             f"formats: {[str(v) for v in fitted]}): refit with every game")
        return dataclasses.replace(games, fmt=codes)

    def _n_fmt(self) -> int:
        labels = getattr(self, "format_labels_", None)
        return 0 if labels is None else int(labels.size)

    def _store_formats(self) -> None:
        """Keep the scales used (``format_scales_``, one per label of ``format_labels_``; None without formats)."""
        self.format_scales_ = None if not self._n_fmt() else np.array(self._fscales, dtype=np.float64)

    @property
    def _walked_format(self) -> float:
        """The scale of the format ``_walk_code`` (the tuning's walk sets it, :mod:`discrank.models._dynamic_tuning`)."""
        return float(self._fscales[self._walk_code])

    @_walked_format.setter
    def _walked_format(self, value: float) -> None:
        self._fscales[self._walk_code] = value

    def _format_factor(self, values: Any, n: int) -> Any:
        """The logit scale of ``n`` games to forecast in the formats ``values`` (None: 1; a format not fitted:
        the reference's 1; a model fitted with ``format_scales=0``, formats left out on purpose as its update
        leaves them: 1). A model fitted without formats refuses them (a ValueError naming the column: its
        forecasts would ignore them), as do formats of another kind than the fitted ones
        (:func:`~discrank.models._dynamic_context.check_kind`)."""
        if values is None:
            if self._n_fmt():
                warnings.warn(f"the games to predict have no match_format column; this DynamicElo was fitted with "
                              f"the formats {show(np.asarray(self.format_labels_).tolist())}: forecast at the reference format's "
                              f"scale 1", MissingColumnWarning, stacklevel=4)
            return 1.0
        if not self._n_fmt():
            if not isinstance(self.format_scales, dict) and self.format_scales == 0:
                return 1.0
            raise ValueError("the games to predict have a match_format column; this DynamicElo was fitted without "
                             "match formats, so its forecasts cannot use them: give the games without it, or fit on "
                             "a log with match formats")
        codes = game_codes(values, n, self.format_labels_, "match_format")
        return np.where(codes >= 0, self.format_scales_[np.maximum(codes, 0)], 1.0)

