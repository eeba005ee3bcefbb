"""Advantage covariates of a game log (a home indicator, playing White, taking Black): numbers per game,
bools read as 0 / 1. :func:`as_advantage` checks the columns of a log, :func:`check_identifiable` the
columns of a fit, :func:`advantage_columns` the ``advantage=`` argument of the readers,
:func:`covariate_values` reads a frame's column row by row."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank._util.labels import object_numbers

__all__ = ["BETA_PRIOR_SCALE", "COVARIATE_HELP", "MAX_COVARIATE", "advantage_columns", "as_advantage",
           "beta_precision", "check_identifiable", "check_magnitude", "covariate_values", "named_columns"]

#: The largest magnitude of a covariate's value: the fits sum each column's square over the games, which must
#: stay finite; a column of larger values is better rescaled (its coefficient is per unit of it).
MAX_COVARIATE = 1e100
COVARIATE_HELP = "a covariate is a finite number in every game, at most 1e+100 in magnitude (bools read as 0 / 1)"
#: The prior of each advantage coefficient is N(0, (BETA_PRIOR_SCALE / rms_k)^2), ``rms_k`` the root mean
#: square of column k over the fitted games: 10 logits per typical value is one standard deviation. Weak where
#: the games inform ``beta``, it keeps the estimate finite where a covariate separates the results.
BETA_PRIOR_SCALE = 10.0


def _covariate_column(values: Any, name: str, n_games: int) -> np.ndarray:
    """One advantage column as float64, checked: 1-D, ``n_games`` long, numbers (or bools), finite."""
    col = np.array(values, dtype=object) if isinstance(values, (list, tuple)) else np.asarray(values)
    if col.ndim != 1:
        raise ValueError(f"advantage column {name!r} must be 1-D (one value per game), got shape {col.shape}")
    if col.shape[0] != n_games:
        raise ValueError(f"advantage column {name!r} has {col.shape[0]} values, and the log has {n_games} games")
    kind = col.dtype.kind
    if kind in "biuf":
        out = col.astype(np.float64)
    elif kind == "O":
        out = np.empty(n_games)
        for k, v in enumerate(col.tolist()):
            if isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
                out[k] = float(v)
            elif v is None:
                raise ValueError(f"advantage column {name!r} is missing a value at row {k} (None): {COVARIATE_HELP}")
            else:
                raise TypeError(f"advantage column {name!r} holds {show(v)} at row {k}, which is not a number: "
                                f"{COVARIATE_HELP}")
    else:
        first = col[0] if col.size else None
        raise TypeError(f"advantage column {name!r} holds values of type {col.dtype} (row 0: {show(first)}), not "
                        f"numbers: {COVARIATE_HELP}")
    bad = ~np.isfinite(out)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"advantage column {name!r} has the value {show(out[k])} at row {k}, which is not a finite "
                         f"number: {COVARIATE_HELP}")
    check_magnitude(out, name, "row")
    return out


def check_magnitude(values: np.ndarray, name: str, row: str) -> None:
    """A ValueError naming the column ``name``, the ``row`` (what an entry is called: "row", "game") and the value
    when a finite value of ``values`` exceeds :data:`MAX_COVARIATE` in magnitude."""
    big = np.abs(values) > MAX_COVARIATE
    if big.any():
        k = int(np.flatnonzero(big)[0])
        raise ValueError(f"advantage column {name!r} has the value {show(float(values[k]))} at {row} {k}, larger in "
                         f"magnitude than {MAX_COVARIATE:g}: a fit sums the squares of a covariate over the games, "
                         "which would overflow; rescale the column (its coefficient is per unit of it)")


def named_columns(values: Any, names: tuple) -> Any:
    """A log's ``advantage`` field as :func:`as_advantage` takes it: an array whose columns ``names`` names
    (``GameLog(..., advantage, advantage_names)``) as a dict of its columns by name (a ValueError unless one
    column per name); any other value as it is."""
    if not (isinstance(values, np.ndarray) and names):
        return values
    columns = values.reshape(values.shape[0], -1) if values.ndim == 1 else values
    if columns.ndim != 2 or columns.shape[1] != len(names):
        raise ValueError(f"advantage has shape {values.shape}, and advantage_names names {len(names)} column(s): "
                         f"{list(names)}")
    return dict(zip(names, columns.T))


def as_advantage(values: Any, n_games: int) -> tuple[Optional[np.ndarray], tuple]:
    """The advantage covariates of a log as a float64 array (n_games, n_covariates), with their names.

    A column constant over the games is valid; identifiability is the fit's check (:func:`check_identifiable`).

    Parameters
    ----------
    values : array-like, dict of str to array-like, pandas.DataFrame, or None
        An array (n_games,) or (n_games, n_covariates) of numbers or bools (columns named "x0", "x1",
        ...), or the columns by name.
    n_games : int
        The number of games of the log.

    Returns
    -------
    advantage : ndarray of float64, shape (n_games, n_covariates), or None
        None when ``values`` is None.
    names : tuple of str
        The name of each column (empty when ``values`` is None).

    Raises
    ------
    ValueError
        No column, a column of the wrong length or shape, a NaN or infinite value or one beyond
        :data:`MAX_COVARIATE` in magnitude (named with its column, row and value), or two columns of one name.
    TypeError
        A value that is not a number or a bool (named with its column and row), or a name that is not text.
    """
    if values is None:
        return None, ()
    if isinstance(values, dict) or (hasattr(values, "columns") and hasattr(values, "iloc")):
        names = list(values.keys()) if isinstance(values, dict) else list(values.columns)
        raw = [values[k] for k in names] if isinstance(values, dict) else [values.iloc[:, j] for j in range(len(names))]
        for nm in names:
            if not isinstance(nm, str) or not nm:
                raise TypeError(f"advantage column names must be non-empty text, got {show(nm)}")
    else:
        try:  # (a list keeps its values' types: [1, "x"] names "x", not the text "1")
            arr = np.array(values, dtype=object) if isinstance(values, (list, tuple)) else np.asarray(values)
        except ValueError as exc:  # ragged nested lists
            raise ValueError(f"advantage is not an array of numbers (n_games,) or (n_games, n_covariates): {exc}") \
                from None
        if arr.dtype == object and arr.ndim == 1:
            rows = [k for k, v in enumerate(arr.tolist()) if isinstance(v, (list, tuple, np.ndarray))]
            if rows:
                raise ValueError(f"advantage is a list of rows of different lengths (row {rows[0]}: "
                                 f"{show(arr[rows[0]])}): give an array (n_games, n_covariates)")
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise ValueError(f"advantage must be an array (n_games,) or (n_games, n_covariates), got shape {arr.shape}")
        if arr.shape[0] != n_games:
            raise ValueError(f"advantage has {arr.shape[0]} rows, and the log has {n_games} games")
        names = [f"x{j}" for j in range(arr.shape[1])]
        raw = [arr[:, j] for j in range(arr.shape[1])]
    if not names:
        raise ValueError("advantage has no column: give None for a log without covariates")
    seen: set = set()
    for nm in names:
        if nm in seen:
            raise ValueError(f"advantage has two columns named {nm!r}")
        seen.add(nm)
    cols = [_covariate_column(v, nm, n_games) for nm, v in zip(names, raw)]
    return np.ascontiguousarray(np.column_stack(cols)), tuple(names)


def check_identifiable(x: Optional[np.ndarray], names: tuple) -> None:
    """Refuse covariates whose coefficients a fit cannot identify: a column 0 in every game (it carries no
    information), or two columns identical or opposite in every game.

    This is the check of a fit, on the games it fits; a log may hold such columns.

    Parameters
    ----------
    x : ndarray, shape (n_games, n_covariates), or None
        The covariates of the fitted games (or of their distinct rows).
    names : tuple of str
        The columns' names.

    Raises
    ------
    ValueError
        Naming the column (or the two columns).
    """
    if x is None:
        return
    cols = [x[:, k] for k in range(x.shape[1])]
    for j, col in enumerate(cols):
        if not col.any():
            raise ValueError(f"advantage column {names[j]!r} is 0 in every game: it carries no information (its "
                             "coefficient is not identifiable); leave it out")
        for k in range(j):
            same = np.array_equal(col, cols[k])
            if same or np.array_equal(col, -cols[k]):
                raise ValueError(f"advantage columns {names[k]!r} and {names[j]!r} are "
                                 f"{'identical' if same else 'opposite'} in every game: their coefficients are not "
                                 "identifiable; keep one")


def beta_precision(x: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The precision (1 / variance) of each advantage coefficient's prior, :data:`BETA_PRIOR_SCALE`.

    Parameters
    ----------
    x : ndarray, shape (n_rows, n_covariates)
        The covariates of the fitted rows.
    games : ndarray, shape (n_rows,)
        The games (or weight) each row stands for.

    Returns
    -------
    ndarray, shape (n_covariates,)
        ``mean_k / BETA_PRIOR_SCALE^2``, ``mean_k`` the games' mean of ``x_k^2``.
    """
    games = np.asarray(games, dtype=np.float64)
    return (games @ (x * x)) / max(float(games.sum()), 1e-300) / BETA_PRIOR_SCALE ** 2


def covariate_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of a frame's covariate column: the value as a float (NaN where there is none), missing
    (None, NaN, NA, blank text), unparseable (text that is not a number, an infinite value or one beyond
    :data:`MAX_COVARIATE` in magnitude, an object that is not a number). Bools read as 0 / 1, numbers as
    they are, text that reads as a number as that number."""
    kind = values.dtype.kind
    if kind in "biu":
        out = values.astype(np.float64)
        return out, np.zeros(out.shape[0], dtype=bool), np.zeros(out.shape[0], dtype=bool)
    if kind == "f":
        out = values.astype(np.float64)
        missing = np.isnan(out)
        with np.errstate(invalid="ignore"):
            bad = np.isinf(out) | (np.abs(out) > MAX_COVARIATE)
        out[bad] = np.nan
        return out, missing, bad
    out, missing = object_numbers(values, bools=True)
    with np.errstate(invalid="ignore"):
        bad = ~missing & ~(np.abs(out) <= MAX_COVARIATE)
    out[missing | bad] = np.nan
    return out, missing, bad


def advantage_columns(advantage: Any) -> tuple:
    """The ``advantage=`` argument of the readers, checked: a column name or a list of names.

    Parameters
    ----------
    advantage : str, list of str, or None
        The argument.

    Returns
    -------
    tuple of str
        The names (empty for None).

    Raises
    ------
    TypeError
        A value that is neither a name nor a list of names, named.
    ValueError
        An empty list, or a name given twice.
    """
    if advantage is None:
        return ()
    names = (advantage,) if isinstance(advantage, str) else advantage
    try:
        names = tuple(names)
    except TypeError:
        raise TypeError(f"advantage must be a column name or a list of column names, got {show(advantage)}") from None
    if not names:
        raise ValueError("advantage is an empty list: give a column name, a list of names, or None")
    for nm in names:
        if not isinstance(nm, str):
            raise TypeError(f"advantage must be a column name or a list of column names, got {show(nm)} in "
                            f"{show(advantage)}")
    for k, nm in enumerate(names):
        if nm in names[:k]:
            raise ValueError(f"advantage names the column {nm!r} twice")
    return names
