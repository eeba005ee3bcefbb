"""Match formats in :class:`~discrank.DynamicElo` (``format_scales``; :data:`FORMATS`, one of its parts,
:mod:`discrank.models.dynamic._part`).

A log with a match format column (:attr:`discrank.GameLog.match_format`: best of three or five sets) gives each
format a scale of the game's logit, ``logit P(a beats b) = s_f (r_{a,t} - r_{b,t} + ...)``: a longer match is more
predictable. The most common format is the reference (``s = 1``); each other's scale is tuned on the validation
window after the other scales, walking :data:`FORMAT_GRID`, and held fixed in the whole-history fit (its
``format_scales``; the margin rows unscaled), which stays convex (a scale fitted in the MAP would run away where
the ratings move freely). A forecast scales the logit by ``s`` and its variance by ``s^2``; a game without a
format, or in one not fitted, has the reference's scale 1.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank._util.labels import LabelIndex
from discrank.models.dynamic._part import LabelPart, check_codes, held_whole
from discrank.persist.model_file import FittedArray

__all__ = ["FORMATS", "code_formats", "FORMAT_GRID", "FORMAT_BOUNDS"]

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


class Formats(LabelPart):
    """The match formats: their coding, scales (``model._scales["format_scales"]``, one per label, None without
    formats or while they are to be tuned), file fields and forecast scale."""

    name, column, log_column, labels_attr = "format_scales", "fmt", "match_format", "format_labels_"
    walk_name, one, many = "format_scale", "format", "match formats"
    without = "forecast at the reference format's scale 1"
    fitted = ("format_labels_", "format_scales_")
    arrays = (FittedArray("games_fmt_", ("g",), kind="i", required=False, nonnegative="match format code",
                          attr="games_.fmt"),
              FittedArray("format_scales_", ("formats",), required=False, nonnegative="scale of a format's logit"))
    label_sets = {"format_labels_": "formats"}
    grid, bounds = FORMAT_GRID, FORMAT_BOUNDS
    advice = {"upper": "the format decides far more than the reference's: give format_scales={...}",
              "lower": "the format is far less predictable than the reference's: give format_scales={...}"}

    def unused(self, model: Any) -> bool:
        return not isinstance(model.format_scales, dict) and model.format_scales == 0

    def asks(self, model: Any) -> Optional[str]:
        given = model.format_scales
        return f"format_scales={given!r} gives match formats' scales" if isinstance(given, dict) else None

    def code(self, values: np.ndarray) -> tuple:
        return code_formats(values)

    def grow(self, model: Any, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
        raise ValueError(f"update's games have the match format {show(values[codes < 0][0])}, which the fit has not "
                         f"seen (its formats: {[str(v) for v in model.format_labels_]}): refit with every game")

    def given(self, model: Any, games: Any) -> Any:
        """The given scales by code (a ValueError for a dict not naming each format); None without formats or to
        tune them."""
        given, labels = model.format_scales, model.format_labels_
        if labels is None or not isinstance(given, dict):
            return None
        missing = [str(v) for v in labels if v not in given]
        if missing:
            raise ValueError(f"format_scales gives no scale to the log's match format(s) {missing} (its formats: "
                             f"{[str(v) for v in labels]})")
        return np.array([float(given[v]) for v in labels])

    def to_tune(self, model: Any) -> bool:
        return bool(self.n_labels(model)) and model._scales[self.name] is None

    def walks(self, model: Any, probe: Any) -> list:
        """Each format's scale after the reference's (the first), each walked from 1."""
        return [(f"{self.walk_name}[{label}]", (self.name, code), self.grid, self.bounds)
                for code, label in enumerate(model.format_labels_) if code]

    def middle(self, model: Any) -> Any:
        return np.ones(self.n_labels(model))

    def solver(self, model: Any, h: Any) -> dict:
        return {"format_scales": model._scales[self.name]}

    def keep(self, model: Any, res: Any, n_players: int) -> dict:
        scales = model._scales[self.name]
        return {"format_scales_": None if not self.n_labels(model) else np.array(scales, dtype=np.float64)}

    def derived(self, model: Any) -> Any:
        return getattr(model, "format_scales_", None)

    def check_file(self, model: Any, n_players: int) -> None:
        if not held_whole("match formats", {"format_labels_": model.format_labels_, "games_fmt_": model.games_.fmt,
                                            "format_scales_": model.format_scales_}):
            return
        if self.unused(model):
            raise ValueError("the file holds match formats, but its parameter format_scales is 0 (no formats)")
        check_codes("games_fmt_", model.games_.fmt, model.format_labels_, "match format")
        given = model.format_scales
        if isinstance(given, dict):  # (JSON keys are text: keyed again by the fitted formats)
            fitted = model.format_labels_.tolist()
            names = [str(v) for v in fitted]
            missing = [name for name in names if name not in given]
            if missing:
                raise ValueError(f"params.format_scales {given} gives no scale to the fitted match format(s) {missing}")
            model.format_scales = {**{k: v for k, v in given.items() if k not in names},
                                   **{v: given[name] for v, name in zip(fitted, names)}}
        scales = model.format_scales_
        if not (scales > 0).all():
            j = int(np.flatnonzero(~(scales > 0))[0])
            raise ValueError(f"format_scales_[{j}] = {show(scales[j])} is not a positive scale of a format's logit")

    def terms(self, fitted: Any, d: Any, v: Any, eta: Any, ia: np.ndarray, ib: np.ndarray,
              codes: Optional[np.ndarray]) -> tuple:
        """The logit times the format's scale, its variance times the square (a format not fitted: the
        reference's 1)."""
        scales = getattr(fitted, "format_scales_", None)
        if codes is None or scales is None:
            return d, v, eta
        s = np.where(codes >= 0, scales[np.maximum(codes, 0)], 1.0)
        return s * d, s * s * v, eta

    def verdict(self, model: Any) -> Optional[str]:
        if getattr(model, "format_scales_", None) is None:
            return None
        return "match formats: " + ", ".join(f"{label} x{value:.3g}" for label, value in
                                             zip(model.format_labels_, model.format_scales_))


FORMATS = Formats()
