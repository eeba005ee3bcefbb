"""The fixtures of ``discrank predict``: their contexts, match formats and times (read for a model fitted with
them, refused or named in a warning for one fitted without), and their predictions."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from discrank.cli._args import as_labels_of
from discrank.cli._models import advantage_names, has_draw_model
from discrank._util.labels import show

__all__ = ["FixtureFeature", "FIXTURE_FEATURES", "fixture_features", "fixture_times", "predict_fixtures"]


def _fixture_time(model: Any, n: int) -> Optional[np.ndarray]:
    """The time of the fixtures of a model with a time step (``period``): the start of its last fitted
    period, where its latest ratings are; None for a stationary model."""
    if model.get_params().get("period") is None or not hasattr(model, "history"):
        return None
    return np.full(n, model.history()["time"].to_numpy().max())


def _unseen(method: Callable, unknown: bool) -> dict:
    """``unseen="prior"`` for a prediction with unknown players, where the method takes the argument."""
    return {"unseen": "prior"} if unknown and "unseen" in inspect.signature(method).parameters else {}


@dataclass(frozen=True)
class FixtureFeature:
    """A column of the fixtures that a model may be fitted with, besides the players and the advantage covariates.

    Attributes
    ----------
    flag : str
        The option of ``predict`` (and of ``fit``): a column of ``--pairs``, or the value of the fixture of two
        players.
    column : str
        The column of ``--pairs`` read when the option is not given (the GameLog's attribute).
    fitted : str
        The fitted attribute that holds the labels of a model fitted with the feature (None: fitted without).
    what, unseen : str
        The feature in the messages (plural); what the model does with a value it has not seen.
    """

    flag: str
    column: str
    fitted: str
    what: str
    unseen: str

    def labels(self, model: Any) -> Optional[np.ndarray]:
        """The values the model was fitted with, or None for a model fitted without the feature."""
        labels = getattr(model, self.fitted, None)
        return None if labels is None else np.asarray(labels)


#: The columns of the fixtures ``predict`` gives a model fitted with them (DynamicElo's context effects and match
#: formats), and refuses or names for one fitted without.
FIXTURE_FEATURES = (
    FixtureFeature("--context", "context", "context_labels_", "contexts",
                   "predicted with no context effect, at the prior's variance"),
    FixtureFeature("--match-format", "match_format", "format_labels_", "match formats",
                   "predicted at the reference scale 1"),
)


def fixture_features(model: Any, given: dict, n: int, source: str, unseen: str, df: Any = None,
                     file: str = "") -> tuple[dict, list]:
    """The contexts and match formats of ``n`` fixtures for ``model``, by GameLog attribute, with the warnings
    to print: ``({"context": values or None, "match_format": ...}, [warning, ...])``.

    Parameters
    ----------
    model : estimator
        Fitted.
    given : dict
        Each option of :data:`FIXTURE_FEATURES` by its attribute (``"context"``): with ``df``, the column named
        (None: the default column); without, the fixture's value (None: not given).
    n : int
        The number of fixtures.
    source : str
        The model file, for the messages.
    unseen : {"raise", "prior"}
        A value the model has not seen: an error, or predicted as the model predicts one, with a warning.
    df : pandas.DataFrame, optional
        The ``--pairs`` file's rows; None: the fixture of two players.
    file : str
        The ``--pairs`` file, for the messages.

    Returns
    -------
    tuple
        The values (None: the model was fitted without the feature, or not given), and the warnings.

    Raises
    ------
    ValueError
        An option given to a model fitted without its feature; fixtures without a feature the model was fitted
        with; a column not in the file; a value not seen with ``unseen="raise"``.
    """
    values, notes = {}, []
    name = type(model).__name__
    for feature in FIXTURE_FEATURES:
        labels, option = feature.labels(model), given.get(feature.column)
        values[feature.column] = None
        if labels is None:
            if option is not None:
                raise ValueError(f"{feature.flag} does not apply to {source}: its {name} was fitted without "
                                 f"{feature.what} (it predicts every {feature.what[:-1]} alike)")
            if df is not None and feature.column in df.columns:
                notes.append(f"column {feature.column!r} of {file} is not used: {source}'s {name} was fitted without "
                             f"{feature.what} (it predicts every {feature.what[:-1]} alike)")
            continue
        shown = [str(v) for v in labels]
        if df is None:
            if option is None:
                raise ValueError(f"{source}'s {name} was fitted with the {feature.what} {shown}: give the fixture's "
                                 f"{feature.flag} VALUE")
            got = as_labels_of(labels, np.array([option], dtype=object), feature.flag)
            got = np.full(n, got[0], dtype=object)
        else:
            column = feature.column if option is None else option
            if column not in df.columns:
                why = (f"its column {column!r} is not in {file}" if option is not None else
                       f"{file} has no column {column!r}: name the fixtures' column, {feature.flag} COL")
                raise ValueError(f"{source}'s {name} was fitted with the {feature.what} {shown}; {why} (its columns "
                                 f"are {list(df.columns)})")
            got = df[column].to_numpy()
            if df[column].isna().any():
                row = int(np.flatnonzero(df[column].isna().to_numpy())[0])
                raise ValueError(f"column {column!r} of {file} is missing at row {row}: each fixture needs its "
                                 f"{feature.column}")
            got = as_labels_of(labels, got, f"column {column!r} of {file}")
        new = got[~np.isin(got, labels)]
        if new.size:
            first = list(dict.fromkeys(new.tolist()))
            text = ", ".join(show(v) for v in first[:5]) + (f", ... ({len(first)} in all)" if len(first) > 5 else "")
            if unseen == "raise":
                raise ValueError(f"{feature.column} {text}: not among the {feature.what} of {source} {shown}; "
                                 f"--unseen prior predicts it as the model does a {feature.column} it has not seen")
            notes.append(f"{feature.column} {text} not among the model's {feature.what}: {feature.unseen}")
        values[feature.column] = got
    return values, notes


def fixture_times(model: Any, given: Optional[str], n: int, source: str, df: Any = None,
                  file: str = "") -> tuple[Optional[np.ndarray], list]:
    """The times of ``n`` fixtures, in the fitted times' kind, with the warnings to print: ``--time``
    (``given``: a column of ``df`` or one time for all), else ``df``'s column ``time``; None: the model's last
    fitted period. A model whose ratings do not move with time refuses ``--time`` (a ``time`` column: a
    warning); a time that cannot be read is a ValueError naming it and its row."""
    from discrank.data._screen import time_bound

    fitted = getattr(getattr(model, "games_", None), "time", None)
    name = type(model).__name__
    if model.get_params().get("period") is None or fitted is None:
        why = f"its {name} predicts from its latest ratings, the same at every time"
        if given is not None:
            raise ValueError(f"--time does not apply to {source}: {why}")
        if df is not None and "time" in df.columns:
            return None, [f"column 'time' of {file} is not used: {why}"]
        return None, []
    if df is not None and (given is None or given in df.columns):
        column = "time" if given is None else given
        if column not in df.columns:
            return None, []
        missing = df[column].isna().to_numpy()
        if missing.any():
            raise ValueError(f"column {column!r} of {file} is missing at row {int(np.flatnonzero(missing)[0])}: "
                             "give each fixture its time, or drop the column (the last fitted period)")
        values, where = df[column].tolist(), f"column {column!r} of {file}"
    elif given is None:
        return None, []
    else:
        values, where = [given] * n, "--time"
    out = []
    for row, value in enumerate(values):
        if isinstance(value, (int, np.integer)) and fitted.dtype.kind == "M" and 10000101 <= value <= 99991231:
            value = str(value)  # (a column of dates written YYYYMMDD, which pandas reads as integers)
        try:
            out.append(time_bound(value, fitted, "time"))
        except ValueError as exc:
            raise ValueError(f"{where}, row {row}: {exc}" if df is not None else f"{where}: {exc}") from None
    return np.array(out).astype(fitted.dtype), []


def predict_fixtures(model: Any, a: np.ndarray, b: np.ndarray, x: Optional[np.ndarray], unknown: bool,
                     features: Optional[dict] = None, times: Optional[np.ndarray] = None) -> np.ndarray:
    """The predictions of the fixtures ``a`` against ``b`` (checked by :func:`check_known`).

    Parameters
    ----------
    model : estimator
        Fitted.
    a, b : ndarray
        The players, as the model's labels.
    x : ndarray of shape (n, n_covariates), or None
        The fixtures' advantage covariates, for a model fitted with them.
    unknown : bool
        Whether some players are not the model's (:func:`check_known`): they are predicted from its prior.
    features : dict, optional
        The fixtures' contexts and match formats (:func:`fixture_features`) for a model fitted with them.
    times : ndarray, optional
        The fixtures' times (:func:`fixture_times`) for a model whose ratings move with time; None: its last fitted
        period.

    Returns
    -------
    ndarray
        A model with a draw model: shape (n, 3), P(a wins), P(draw), P(b wins) (without ``predict_outcomes``:
        its expected score). Else shape (n,), P(a beats b).
    """
    from discrank.data.logs import GameLog

    features = features or {}
    if times is not None and hasattr(model, "_warn_before_fit"):  # (a time before the fit: the prior's forecast)
        model._warn_before_fit(model._time_bins(times, a.size), times)
    log = GameLog(a, b, np.zeros(a.size), _fixture_time(model, a.size) if times is None else times, {}, x,
                  advantage_names(model) if x is not None else (), context=features.get("context"),
                  match_format=features.get("match_format"))
    if has_draw_model(model) and hasattr(model, "predict_outcomes"):
        return np.asarray(model.predict_outcomes(log, **_unseen(model.predict_outcomes, unknown)))
    if hasattr(model, "predict_games"):  # the games' protocol: times and covariates from the log
        return np.asarray(model.predict_games(log, **_unseen(model.predict_games, unknown)))
    extra = {} if x is None else {"advantage": x}
    return np.atleast_1d(model.predict_proba(a, b, **extra, **_unseen(model.predict_proba, unknown)))
