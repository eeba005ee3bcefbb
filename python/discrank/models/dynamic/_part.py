"""What a feature of :class:`~discrank.DynamicElo` brings: the :class:`Part` protocol.

A part is one feature of the model (contexts, margins, match formats, the disc game, draw propensities), whole in
its own module: its log column, the scale that its constructor parameter gives (tuned when None: its tuning axis
and what a value at a bound suggests), its block of the whole-history problem (a warm start, the fitted values
kept), its arguments of the solver, its fields in a model file and their checks, its terms of a forecast and its
line of ``discrank info``. The estimator lists its parts (``DynamicElo._parts``) and walks them at each of those
steps; a new feature is a new part, its log column and its rows in the core.

The estimator keeps each part's scale of the fit at hand in ``model._scales[part.name]``: 0 (or None for the
formats) where the feature is not fitted, None while it is to be tuned.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank._util.labels import LabelIndex
from discrank._util.exceptions import MissingColumnWarning

__all__ = ["Part", "LabelPart", "held_whole", "check_codes", "check_kind", "game_codes", "forecast"]


class Part:
    """One feature of :class:`~discrank.DynamicElo` (see the module); the methods' defaults are a feature's that
    has no column, no block or no forecast term."""

    #: The constructor parameter of its scale (and the name of ``model._scales``' entry), and of its tuning's axis.
    name = ""
    walk_name = ""
    #: The :class:`~discrank.models.dynamic._state.Games` field of its log column (None: none).
    column: Optional[str] = None
    #: The fitted attributes, None in a model without the feature.
    fitted: tuple = ()
    #: Its fields of a model file: FittedArray entries, label sets (name: the symbol of their size), scalars.
    arrays: tuple = ()
    label_sets: dict = {}
    scalars: tuple = ()
    #: The grid and hard bounds of its scale's tuning, and what a value chosen at each bound suggests.
    grid: tuple = ()
    bounds: tuple = (None, None)
    advice: dict = {}

    def fit_games(self, model: Any, log: Any, games: Any) -> Any:
        """``games`` of a fit with its column coded (or dropped where unused); a ValueError for a scale given
        without the column."""
        return games

    def given(self, model: Any, games: Any) -> Any:
        """The scale of a fit of ``games`` (coded): 0 (or None) unused, None to tune; a ValueError for a scale
        the fit could not use."""
        return 0.0

    def update_games(self, model: Any, log: Any, games: Any) -> Any:
        """The new ``games`` of ``update`` with its column coded as the fit's; a ValueError for a column that the
        fit had not, or the other way round."""
        return games

    def to_tune(self, model: Any) -> bool:
        """Whether its scale is to be tuned."""
        return model._scales[self.name] is None

    def middle(self, model: Any) -> Any:
        """Its scale while the drift and the prior are tuned: its grid's middle."""
        return self.grid[len(self.grid) // 2]

    def before_search(self, model: Any) -> None:
        """Before the tuning's drift and prior walks (for a part to tune; its scale then at :meth:`middle`)."""

    def after_search(self, model: Any) -> None:
        """After the tuning's walks, whatever they raised."""

    #: Whether its walk changes the parameters' number (the candidates' fits then start afresh).
    resized = False

    def walks(self, model: Any, probe: Any) -> list:
        """Its tuning's walks, after the drift and the prior: (name, key, grid, bounds) each, ``key`` the entry of
        ``model._scales`` (a name, or a name and an index) walked from its value at hand; ``probe(scales)`` solves
        the first origin's history at the best drift and prior with ``model._scales`` updated by ``scales`` (a
        :class:`~discrank.solvers._history.HistoryResult`)."""
        return [(self.walk_name or self.name, self.name, self.grid, self.bounds)]

    def active(self, model: Any) -> bool:
        """Whether the fit at hand has the feature (the tuning's and update's absorb holds the ratings alone)."""
        value = model._scales.get(self.name)
        return value is not None and bool(np.any(np.asarray(value) != 0))

    def solver(self, model: Any, h: Any) -> dict:
        """Its arguments of :func:`discrank.solvers._history.solve_history` for the history ``h``."""
        return {}

    def start(self, model: Any, n_players: int) -> np.ndarray:
        """Its entries of the block after the ratings, from the fitted values (new players' at 0): a warm start."""
        return np.zeros(0)

    def keep(self, model: Any, res: Any, n_players: int) -> dict:
        """The fitted attributes from a :class:`~discrank.solvers._history.HistoryResult` at the scale of the fit."""
        return {}

    def derived(self, model: Any) -> Any:
        """The scale of the fitted model (from its fitted attributes)."""
        if not self.scalars:
            return 0.0
        return getattr(model, self.scalars[0], None) or 0.0

    def check_file(self, model: Any, n_players: int) -> None:
        """A ValueError naming the field where a model file's fields of the feature contradict each other, the
        parameters or the games."""

    def codes(self, model: Any, log: Any, n: int) -> Optional[np.ndarray]:
        """The codes of its column of ``n`` games to forecast (``log``'s); None without."""
        return None

    def terms(self, fitted: Any, d: Any, v: Any, eta: Any, ia: np.ndarray, ib: np.ndarray,
              codes: Optional[np.ndarray]) -> tuple:
        """The forecast's (logit, variance, draw parameter) of games between ``ia`` and ``ib`` with its term added,
        from the fitted attributes of ``fitted`` (the model, or those of a tuning's fit)."""
        return d, v, eta

    def verdict(self, model: Any) -> Optional[str]:
        """Its line of ``discrank info``; None without the feature."""
        return None


class LabelPart(Part):
    """A part whose column holds labels (contexts, match formats), coded into the fitted label set
    ``labels_attr``: the coding of a fit's, an update's and a forecast's column, and their checks."""

    #: The log's column (:class:`discrank.GameLog`'s attribute), the fitted label set, a label and labels in words.
    log_column = ""
    labels_attr = ""
    one, many = "", ""
    #: What a forecast without the column does.
    without = ""

    def n_labels(self, model: Any) -> int:
        labels = getattr(model, self.labels_attr, None)
        return 0 if labels is None else int(labels.size)

    def unused(self, model: Any) -> bool:
        """Whether the parameter leaves the column out on purpose (a scale of 0)."""
        return False

    def asks(self, model: Any) -> Optional[str]:
        """What the parameter asks of a log without the column (None: nothing)."""
        return None

    def code(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(labels, codes) of a fit's column (a ValueError for a column the feature cannot fit)."""
        raise NotImplementedError

    def grow(self, model: Any, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The codes of an update's column ``values`` into the fitted labels, where some (``codes`` -1) are new."""
        raise NotImplementedError

    def fit_games(self, model: Any, log: Any, games: Any) -> Any:
        values = getattr(games, self.column)
        if values is None or self.unused(model):
            if values is None and self.asks(model):
                raise ValueError(f"{self.asks(model)}, but the log has no {self.log_column} column (GameLog(..., "
                                 f"{self.log_column}=...))")
            setattr(model, self.labels_attr, None)
            return games if values is None else dataclasses.replace(games, **{self.column: None})
        labels, codes = self.code(values)
        setattr(model, self.labels_attr, labels)
        return dataclasses.replace(games, **{self.column: codes})

    def update_games(self, model: Any, log: Any, games: Any) -> Any:
        fitted, values = getattr(model, self.labels_attr, None), getattr(games, self.column)
        if fitted is None and self.unused(model):
            return games if values is None else dataclasses.replace(games, **{self.column: None})
        if (values is None) != (fitted is None):
            raise ValueError(f"update's games have a {self.log_column} column; the DynamicElo was fitted without "
                             f"(give the games without it, or fit on a log with {self.many})" if fitted is None
                             else f"update's games have no {self.log_column} column; the DynamicElo was fitted with "
                             f"{self.many.split()[-1]} {[str(v) for v in fitted]}: give each game's {self.one}")
        if fitted is None:
            return games
        values = np.asarray(values)
        check_kind(values, fitted, self.log_column, "update's games")
        codes = LabelIndex(fitted).lookup(values)
        if (codes < 0).any():
            codes = self.grow(model, values, codes)
        return dataclasses.replace(games, **{self.column: codes})

    def codes(self, model: Any, log: Any, n: int) -> Optional[np.ndarray]:
        """The codes of the column of ``n`` games to forecast (-1 for a label not fitted); None for no column given,
        or for a model whose parameter left the column out (as its update does). A model fitted without the column
        refuses it (a ValueError naming it: its forecasts would ignore it), as it does labels of another kind than
        the fitted ones (:func:`check_kind`)."""
        values = getattr(log, self.log_column, None)
        if values is None:
            if self.n_labels(model):
                labels = show(np.asarray(getattr(model, self.labels_attr)).tolist())
                warnings.warn(f"the games to predict have no {self.log_column} column; this DynamicElo was fitted with "
                              f"the {self.many.split()[-1]} {labels}: {self.without}", MissingColumnWarning,
                              stacklevel=4)
            return None
        if not self.n_labels(model):
            if self.unused(model):
                return None
            raise ValueError(f"the games to predict have a {self.log_column} column; this DynamicElo was fitted "
                             f"without {self.many}, so its forecasts cannot use them: give the games without it, or "
                             f"fit on a log with {self.many}")
        return game_codes(values, n, getattr(model, self.labels_attr), self.log_column)


def forecast(parts: tuple, fitted: Any, d: Any, v: Any, eta: Any, ia: np.ndarray, ib: np.ndarray,
             codes: dict) -> tuple:
    """(logit, variance, draw parameter) of games with each part's term, in the parts' order (``codes``: each
    column's codes by its Games field)."""
    for part in parts:
        d, v, eta = part.terms(fitted, d, v, eta, ia, ib, codes.get(part.column))
    return d, v, eta


def held_whole(feature: str, fields: dict) -> bool:
    """Whether a file holds the feature whose fields are ``fields`` (name: value or None): all of them or none; a
    ValueError naming the missing one otherwise."""
    held = [key for key, value in fields.items() if value is not None]
    if held and len(held) < len(fields):
        missing = next(key for key, value in fields.items() if value is None)
        raise ValueError(f"the file holds {held[0]} but not {missing}: a model with {feature} has both")
    return bool(held)


def check_codes(key: str, codes: np.ndarray, labels: np.ndarray, what: str) -> None:
    """A ValueError naming the first code of ``codes`` outside ``labels``, or labels of fewer than two values (a
    fit has two at least)."""
    if labels.size < 2:
        raise ValueError(f"{what} labels hold {labels.size} value(s): a model with {what}s is fitted on two at least")
    bad = (codes < 0) | (codes >= labels.size)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{key}[{k}] = {codes[k]} is not a {what} code ({what} labels hold {labels.size})")


def _kind(values: np.ndarray) -> str:
    """"text" or "numbers": the kind of the labels ``values`` (one kind, as a log holds them)."""
    if values.dtype.kind in "US":
        return "text"
    if values.dtype.kind == "O":
        return "text" if values.size and isinstance(values.flat[0], str) else "numbers"
    return "numbers"


def check_kind(values: Any, known: np.ndarray, name: str, games: str) -> None:
    """A ValueError when the ``name`` labels ``values`` (of ``games``: "update's games", "the games to predict")
    are of another kind (text or numbers) than the fitted ``known``: the text "1" is never the context 1, so the
    games would be read as in a context the fit has not seen. The message names the first value and both kinds."""
    values = np.asarray(values)
    if not values.size or not known.size:
        return
    kind, fitted = _kind(values), _kind(known)
    if kind != fitted:
        shown = ", ".join(show(v) for v in known.tolist()[:10]) + (", ..." if known.size > 10 else "")
        raise ValueError(f"{games} have the {name} {show(values.flat[0])}, {kind}, and the DynamicElo was fitted on "
                         f"{name}s that are {fitted} ([{shown}]): text never equals a number; give the {name}s as "
                         "the fit's")
    if known.dtype.kind in "iu" and values.dtype.kind == "f":  # 1.5 among the contexts 0, 1, 2: almost a typo
        odd = np.unique(values[np.isfinite(values) & (values != np.floor(values))])
        if odd.size:
            warnings.warn(f"{games} have the {name}(s) {show(odd.tolist()[:5])}, not integers, while the DynamicElo "
                          f"was fitted on integer {name}s: each is a {name} the fit has not seen (never the integer "
                          "nearest it); check them for a typo", UserWarning, stacklevel=5)


def game_codes(values: Any, n: int, labels: np.ndarray, name: str) -> np.ndarray:
    """The codes into ``labels`` (-1 for a label not among them) of the ``name`` labels ``values`` of ``n`` games
    to forecast: one value for every game, or one per game (a ValueError naming ``name`` otherwise, or labels of
    another kind than the fitted ones, :func:`check_kind`)."""
    values = np.asarray(values)
    check_kind(values, labels, name, "the games to predict")
    values = np.full(n, values.item(), dtype=object) if values.ndim == 0 else values
    if values.shape != (n,):
        raise ValueError(f"{name} has {values.shape[0]} values for {n} games")
    return LabelIndex(labels).lookup(values)
