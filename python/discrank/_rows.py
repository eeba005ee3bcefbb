"""Rows of a game log: results, times and player names read, invalid rows classified, filtered and reported.

The low level of the data path: :mod:`discrank.logs` (the readers and :class:`~discrank.GameLog`) and
:mod:`discrank.data` (:class:`~discrank.PairwiseData`) both read game rows through this module, which
imports neither of them.

Results are read as numbers (1 a win of a, 0.5 a draw, 0 a loss; any value in [0, 1]), as PGN result
strings ("1-0", "0-1", "1/2-1/2", also "½-½"), or from a ``winner`` column holding the winner's label
(or a draw marker, :data:`DRAW_MARKERS`). A row is invalid for one of the :data:`INVALID_KINDS`;
:func:`screen_rows` raises on the first invalid row or drops and reports them.

Advantage covariates (a home indicator, playing White, taking Black) are numbers per game, bools read as
0 / 1: :func:`as_advantage` checks the columns of a log, :func:`read_frame_rows` reads them from a frame
(a row with a missing or non-numeric covariate is invalid).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Callable, NamedTuple, Optional

import numpy as np

from discrank._checks import check_choice, check_positive_int, self_play_message, show
from discrank._labels import factorize_objects, factorize_pair

__all__ = ["DRAW_MARKERS", "INVALID_KINDS", "PGN_RESULTS", "FrameRows", "active_games", "advantage_columns",
           "as_advantage", "as_times", "check_invalid", "pandas_module", "parse_results",
           "read_frame_rows", "screen_rows", "time_bound", "warn_user"]

PGN_RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "½-½": 0.5, "0.5-0.5": 0.5}
DRAW_MARKERS = ("draw", "Draw", "DRAW", "1/2-1/2", "½-½", "tie", "Tie", "=")

#: What makes a row of a game log invalid, in the order a row is classified (a row counts once, under the
#: first kind that applies). The keys of :attr:`GameLog.dropped`.
INVALID_KINDS = (
    "missing player name",
    "player against themself",
    "missing result",
    "unparseable result",
    "missing time",
    "unparseable time",
    "unfinished game",
    "missing covariate",
    "unparseable covariate",
)
(MISSING_NAME, SELF_PLAY, MISSING_RESULT, BAD_RESULT, MISSING_TIME, BAD_TIME, UNFINISHED, MISSING_COVARIATE,
 BAD_COVARIATE) = range(1, 10)
_INVALID_CHOICES = ("raise", "drop")
_HINT = '; invalid="drop" (discrank fit --drop-invalid) drops and counts such rows'


def pandas_module():
    """The pandas module.

    Returns
    -------
    module

    Raises
    ------
    ImportError
        pandas is not installed, with the extra to install.
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is in the test extra
        raise ImportError("reading frames and files needs pandas: pip install 'discrank[pandas]'") from exc
    return pd


def parse_results(values: Any, name: str = "score") -> np.ndarray:
    """Scores of the first player from numbers in [0, 1] or PGN result strings.

    Parameters
    ----------
    values : array-like, shape (n,)
        Numbers in [0, 1], or strings: a PGN result (:data:`PGN_RESULTS`) or text that reads as a number.
    name : str, optional
        The column's name, for the messages.

    Returns
    -------
    ndarray of float64, shape (n,)

    Raises
    ------
    ValueError
        Not 1-D, or a value that is not a result or not in [0, 1] (named with its position).
    """
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind in "iufb":
        out = arr.astype(np.float64)
    else:
        out = np.empty(arr.shape[0])
        for k, v in enumerate(arr.tolist()):
            if isinstance(v, str):
                key = v.strip()
                if key in PGN_RESULTS:
                    out[k] = PGN_RESULTS[key]
                    continue
                try:
                    out[k] = float(key)
                    continue
                except ValueError:
                    pass
                raise ValueError(
                    f"{name}[{k}] = {v!r} is not a result: use a number in [0, 1] or one of "
                    f"{sorted(PGN_RESULTS)} ('*', an unfinished game, has no result)"
                )
            if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
                out[k] = float(v)
                continue
            raise ValueError(f"{name}[{k}] = {v!r} is not a result: use a number in [0, 1] or a PGN result string")
    bad = ~np.isfinite(out) | (out < 0.0) | (out > 1.0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{k}] = {show(arr[k])} is not a score in [0, 1] (1 win, 0.5 draw, 0 loss)")
    return out


def as_times(values: Any, name: str = "time") -> np.ndarray:
    """Times of games: numbers, datetime64, or dates as text ("2024-05-01", "2024.05.01").

    Parameters
    ----------
    values : array-like, shape (n,)
        The times.
    name : str, optional
        The column's name, for the messages.

    Returns
    -------
    ndarray, shape (n,)
        Numbers as they are, or datetime64.

    Raises
    ------
    ValueError
        Not 1-D, a missing time (NaT, NaN, inf), or text that is not a date (named with its position).
    """
    t = np.asarray(values)
    if t.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {t.shape}")
    if t.dtype.kind == "M":
        if np.isnat(t).any():
            raise ValueError(f"{name}[{int(np.flatnonzero(np.isnat(t))[0])}] is missing (NaT)")
        return t
    if t.dtype.kind in "iuf":
        if t.dtype.kind == "f" and not np.isfinite(t).all():
            k = int(np.flatnonzero(~np.isfinite(t))[0])
            raise ValueError(f"{name}[{k}] = {show(t[k])} is not a time")
        return t
    try:  # dates as strings ("2024-05-01", "2024.05.01")
        return np.array([np.datetime64(str(v).replace(".", "-")) for v in t.tolist()])
    except ValueError:
        pass
    for k, v in enumerate(t.tolist()):
        try:
            np.datetime64(str(v).replace(".", "-"))
        except ValueError:
            raise ValueError(f"{name}[{k}] = {v!r} is not a time (a number, a datetime or an ISO date)") from None
    raise ValueError(f"{name} is not a time column")  # pragma: no cover


# ------------------------------------------------------------------ advantage covariates
_COVARIATE_HELP = "a covariate is a finite number in every game (bools read as 0 / 1)"


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
                raise ValueError(f"advantage column {name!r} is missing a value at row {k} (None): {_COVARIATE_HELP}")
            else:
                raise TypeError(f"advantage column {name!r} holds {show(v)} at row {k}, which is not a number: "
                                f"{_COVARIATE_HELP}")
    else:
        first = col[0] if col.size else None
        raise TypeError(f"advantage column {name!r} holds values of type {col.dtype} (row 0: {show(first)}), not "
                        f"numbers: {_COVARIATE_HELP}")
    bad = ~np.isfinite(out)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"advantage column {name!r} has the value {show(out[k])} at row {k}, which is not a finite "
                         f"number: {_COVARIATE_HELP}")
    if not out.any():
        raise ValueError(f"advantage column {name!r} is 0 in every game: it carries no information (its coefficient "
                         "is not identifiable); leave it out")
    return out


def as_advantage(values: Any, n_games: int) -> tuple[Optional[np.ndarray], tuple]:
    """The advantage covariates of a log as a float64 array (n_games, n_covariates), with their names.

    A column that is the same nonzero value in every game is valid (``a`` is White in every game, x = 1:
    the first-move advantage, identifiable when players meet in both orientations); whether the
    coefficients are identifiable on the comparison graph is the model's check, not this one.

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
        No column, a column of the wrong length or shape, a NaN or infinite value (named with its column,
        row and value), a column that is 0 in every game (no information), two identical or opposite
        columns, or two columns of one name.
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
    for j in range(len(cols)):
        for k in range(j):
            same = np.array_equal(cols[j], cols[k])
            if same or np.array_equal(cols[j], -cols[k]):
                raise ValueError(f"advantage columns {names[k]!r} and {names[j]!r} are "
                                 f"{'identical' if same else 'opposite'} in every game: their coefficients are not "
                                 "identifiable; keep one")
    return np.ascontiguousarray(np.column_stack(cols)), tuple(names)


# ------------------------------------------------------------------ invalid rows: classify, filter, report
def check_invalid(invalid: Any) -> str:
    """The ``invalid=`` option of the readers: ``"raise"`` or ``"drop"``.

    Parameters
    ----------
    invalid : object
        The argument.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        Any other value, named with the choices.
    """
    return check_choice(invalid, "invalid", _INVALID_CHOICES, "'raise' (the default) stops at the first invalid "
                        "row, 'drop' drops the invalid rows and reports them")


def time_bound(value: Any, t: np.ndarray, name: str) -> Any:
    """``start`` / ``end`` in the units of the times.

    Parameters
    ----------
    value : object
        The bound: a date (text, datetime, datetime64) for datetimes; a number for numbers (a string
        such as "20100101", as the command line gives it, is read as one).
    t : ndarray
        The times it bounds.
    name : str
        "start" or "end", for the message.

    Returns
    -------
    numpy.datetime64 or number

    Raises
    ------
    ValueError
        A bound of the other kind (a date for numeric times, a number for dates), NaN or NaT, named.
    """
    first = t[0] if t.size else None
    example = "" if first is None or (t.dtype.kind == "M" and np.isnat(first)) else \
        f" (such as {str(first)[:10]!r})" if t.dtype.kind == "M" else f" (such as {show(first)})"
    is_number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    shown = repr(value) if isinstance(value, np.datetime64) else show(value)  # (show gives NaT as None)
    if t.dtype.kind == "M":
        bad = is_number or isinstance(value, (bool, np.bool_))
        if not bad:
            try:
                out = np.datetime64(value)
            except (ValueError, TypeError, OverflowError):
                bad = True
        if bad or np.isnat(out):
            raise ValueError(f"{name}={shown} is not a date, and the times are dates{example}: give a date "
                             "such as '2024-03-01', a numpy.datetime64 or a datetime") from None
        return out
    if t.dtype.kind in "iuf" and isinstance(value, str):
        try:
            return int(value) if t.dtype.kind in "iu" else float(value)
        except ValueError:
            try:
                value = float(value)
            except ValueError:
                raise ValueError(f"{name}={value!r} is not a number, and the times are numbers{example}: give a "
                                 "number (or text that reads as one, such as '20100101')") from None
    elif t.dtype.kind in "iuf" and not is_number:
        raise ValueError(f"{name}={shown} is not a number, and the times are numbers{example}: give a "
                         "number (or text that reads as one, such as '20100101')")
    if t.dtype.kind in "iuf" and value != value:
        raise ValueError(f"{name}={show(value)} is NaN: give a number, or None for no bound")
    return value


def _is_blank(v: Any) -> bool:
    return isinstance(v, str) and not v.strip()


def _missing_mask(values: np.ndarray) -> np.ndarray:
    """Missing entries: None, NaN, NaT, and (for text) empty or blank strings."""
    kind = values.dtype.kind
    if kind in "iub":
        return np.zeros(values.shape[0], dtype=bool)
    if kind == "f":
        return np.isnan(values)
    if kind == "M":
        return np.isnat(values)
    if kind in "US":
        return np.char.strip(values) == ("" if kind == "U" else b"")
    codes, uniques = factorize_objects(np.asarray(values, dtype=object))
    blank = np.fromiter((_is_blank(v) for v in uniques), dtype=bool, count=len(uniques))
    return np.append(blank, True)[codes]  # code -1 (None, NaN): the last slot


def _same(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x == y element by element, for labels of any kind (numbers against text is never equal)."""
    if x.dtype.kind in "iufb" and y.dtype.kind in "iufb":
        return x == y
    if x.dtype.kind in "US" and x.dtype.kind == y.dtype.kind:
        return x == y
    out = np.asarray(x.astype(object) == y.astype(object))
    return out.astype(bool) if out.shape == x.shape else np.zeros(x.shape[0], dtype=bool)


def _result_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the score (NaN where there is none), missing, unparseable (text that is not a result, a
    number outside [0, 1]), and the value read as a number (NaN where it is not one)."""
    kind = values.dtype.kind
    if kind in "iufb":
        out = values.astype(np.float64)
        missing = np.isnan(out)
        with np.errstate(invalid="ignore"):
            bad = ~missing & ~((out >= 0.0) & (out <= 1.0))
        number = out.copy()
        out[bad] = np.nan
        return out, missing, bad, number
    codes, uniques = factorize_objects(np.asarray(values, dtype=object))
    parsed = np.full(len(uniques) + 1, np.nan)  # the last slot: missing (code -1)
    blank = np.zeros(len(uniques) + 1, dtype=bool)
    blank[-1] = True
    for u, v in enumerate(uniques):
        if isinstance(v, str):
            key = v.strip()
            if not key:
                blank[u] = True
            elif key in PGN_RESULTS:
                parsed[u] = PGN_RESULTS[key]
            else:
                try:
                    parsed[u] = float(key)
                except ValueError:
                    pass
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
            parsed[u] = float(v)
    out = parsed[codes]
    missing = blank[codes]
    with np.errstate(invalid="ignore"):
        bad = ~missing & ~((out >= 0.0) & (out <= 1.0))
    number = out.copy()
    out[missing | bad] = np.nan
    return out, missing, bad, number


def _winner_rows(a: np.ndarray, b: np.ndarray, winner: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: 1 when the winner is ``a``, 0 when ``b``, 0.5 for a draw marker; missing; unparseable."""
    out = np.full(winner.shape[0], np.nan)
    is_a, is_b = _same(winner, a), _same(winner, b)
    out[is_b] = 0.0
    out[is_a] = 1.0
    missing = _missing_mask(winner)
    rest = ~(is_a | is_b | missing)
    if rest.any() and winner.dtype.kind not in "iufb":
        w = np.asarray(winner[rest], dtype=object)
        codes, uniques = factorize_objects(w)
        draw = np.fromiter((isinstance(v, str) and v.strip() in DRAW_MARKERS for v in uniques), dtype=bool,
                           count=len(uniques))
        hit = (codes >= 0) & draw[np.maximum(codes, 0)]
        idx = np.flatnonzero(rest)
        out[idx[hit]] = 0.5
        rest[idx[hit]] = False
    return out, missing, rest


def _frame_times(pd: Any, tcol: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A time column as numbers or datetimes (as :meth:`GameLog.from_frame` always read it), with the rows
    whose time is missing and those whose time is not a time."""
    kind = tcol.dtype.kind
    if kind in "iufM":
        t = tcol.to_numpy()
        missing = np.asarray(pd.isna(tcol).to_numpy(), dtype=bool)
        bad = np.isinf(t) if kind == "f" else np.zeros(t.shape[0], dtype=bool)
        return t, missing, bad
    missing = _missing_mask(tcol.to_numpy())
    try:
        conv = pd.to_datetime(tcol, errors="raise")
    except (ValueError, TypeError, OverflowError):
        conv = pd.to_datetime(tcol, errors="coerce")
    nat = np.asarray(pd.isna(conv).to_numpy(), dtype=bool)
    return conv.to_numpy(), missing, nat & ~missing


def _player_codes(a: np.ndarray, b: np.ndarray, missing_a: np.ndarray, missing_b: np.ndarray):
    n = a.shape[0]
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":  # exact: int64 with uint64 never goes through float
        uniq, ca, cb = factorize_pair(a, b)
        return ca, cb, len(uniq)
    both = np.concatenate([a.astype(object), b.astype(object)])
    codes, uniques = factorize_objects(both)
    ca, cb = codes[:n].copy(), codes[n:].copy()
    ca[missing_a] = -1
    cb[missing_b] = -1
    return ca, cb, len(uniques)


def active_games(ca: np.ndarray, cb: np.ndarray, n_players: int, valid: np.ndarray,
                 min_player_games: int) -> tuple[np.ndarray, np.ndarray]:
    """The games of the players with at least ``min_player_games`` games, repeated until every remaining
    player has that many.

    Parameters
    ----------
    ca, cb : ndarray of int, shape (n_games,)
        The players' codes in ``0 .. n_players - 1``, or -1 for a player not named (such a row is never
        among ``valid``).
    n_players : int
        The number of codes.
    valid : ndarray of bool, shape (n_games,)
        The games counted.
    min_player_games : int
        The fewest games a player keeps.

    Returns
    -------
    valid : ndarray of bool
        The games kept: those of ``valid`` whose two players remain.
    alive : ndarray of bool, shape (n_players + 1,)
        The players that remain, by code; the last slot, for code -1, is True.
    """
    while True:
        counts = np.bincount(ca[valid], minlength=n_players) + np.bincount(cb[valid], minlength=n_players)
        alive = np.append(counts >= min_player_games, True)  # the last slot: code -1, no player named
        now = valid & alive[ca] & alive[cb]  # valid rows name both players: codes >= 0
        if now.sum() == valid.sum():
            return valid, alive
        valid = now


def _rows_text(rows: np.ndarray, unit: str, limit: int = 5) -> str:
    shown = ", ".join(str(int(r)) for r in rows[:limit]) + (", ..." if rows.size > limit else "")
    return f"{unit}{'s' if rows.size > 1 else ''} {shown}"


def warn_user(message: str, category: Optional[type] = None) -> None:
    """Warn the caller outside discrank (the warning's stack level points at the first frame outside it).

    Parameters
    ----------
    message : str
        The warning's text.
    category : type, optional
        The warning's class; default :class:`~discrank.exceptions.InvalidRowsWarning`.
    """
    from discrank.exceptions import InvalidRowsWarning

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(0), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category or InvalidRowsWarning, stacklevel=level)


def screen_rows(kind: np.ndarray, a: np.ndarray, b: np.ndarray, missing_a: np.ndarray, missing_b: np.ndarray,
                t: Optional[np.ndarray], t_invalid: Optional[np.ndarray], *, start: Any, end: Any,
                min_player_games: int, invalid: str, explain: Callable[[int], str], unit: str = "row",
                skip: tuple[int, ...] = (), empty_ok: bool = False) -> tuple[np.ndarray, dict[str, int]]:
    """The rows to keep, and the counts of the invalid rows dropped, by kind.

    Steps, in order: the time window (rows outside ``[start, end)`` are never checked; a row without a
    valid time cannot be placed and stays, invalid); then the invalid rows are set apart; then
    ``min_player_games`` is applied over the valid rows (:func:`active_games`), and an invalid row with a
    named player who does not survive it is filtered out, neither raised on nor reported. Then
    ``invalid="raise"`` raises on the first invalid row left (``explain`` words it), and ``invalid="drop"``
    drops them and warns (:class:`~discrank.exceptions.InvalidRowsWarning`).

    Parameters
    ----------
    kind : ndarray of int8, shape (n,)
        0 for a valid row, else its code in :data:`INVALID_KINDS` (from 1).
    a, b, missing_a, missing_b : ndarray, shape (n,)
        The players' columns and where a name is missing.
    t, t_invalid : ndarray, optional
        The times and where a time is missing or not a time (needed for ``start`` / ``end``).
    start, end, min_player_games, invalid
        As in :meth:`discrank.GameLog.from_frame`.
    explain : callable
        The words for an invalid row, from its position.
    unit : str, optional
        What a row is ("row", "game"), for the messages.
    skip : tuple of int, optional
        Kinds dropped in both modes (counted when dropping).
    empty_ok : bool, optional
        No valid row left returns no rows instead of raising, and ``invalid="drop"`` counts the rows
        dropped without warning (a chunk of a scan, whose caller reports the whole scan's drops).

    Returns
    -------
    rows : ndarray of int
        The positions of the rows kept.
    dropped : dict of str to int
        The invalid rows dropped, counted by kind.

    Raises
    ------
    ValueError
        An invalid row (``invalid="raise"``, worded by ``explain``), or no valid game left.
    """
    n = kind.shape[0]
    keep = np.ones(n, dtype=bool)
    windowed = start is not None or end is not None
    if windowed:
        if t is None:
            raise ValueError("start / end need a time column (time=...)")
        ok = ~t_invalid
        idx = np.flatnonzero(ok)
        inside = np.ones(idx.size, dtype=bool)
        if start is not None:
            inside &= t[idx] >= time_bound(start, t, "start")
        if end is not None:
            inside &= t[idx] < time_bound(end, t, "end")
        keep = ~ok
        keep[idx[inside]] = True
        if not keep.any() and not empty_ok:
            raise ValueError(f"no game is left after filtering: none has start={start!r} <= time < end={end!r}")
    valid = keep & (kind == 0)
    bad = keep & (kind != 0)
    if min_player_games > 1:
        ca, cb, n_labels = _player_codes(a, b, missing_a, missing_b)
        valid, alive = active_games(ca, cb, n_labels, valid, min_player_games)
        bad &= alive[ca] & alive[cb]  # an invalid row is kept (to raise on or report) if its named players survive
        if not valid.any() and not empty_ok:
            raise ValueError(f"no player has at least min_player_games={min_player_games} games")
    dropped: dict[str, int] = {}
    if bad.any():
        if invalid == "raise":
            loud = bad & ~np.isin(kind, skip) if skip else bad
            if loud.any():
                raise ValueError(explain(int(np.flatnonzero(loud)[0])) + _HINT)
        else:
            parts = []
            for code, name in enumerate(INVALID_KINDS, start=1):
                rows = np.flatnonzero(bad & (kind == code))
                if rows.size:
                    dropped[name] = int(rows.size)
                    parts.append(f"{rows.size} {name} ({_rows_text(rows, unit)})")
            total = int(bad.sum())
            where = " in the time window" if windowed else ""
            summary = f"dropped {total} of {int(keep.sum())} {unit}s{where}: " + ", ".join(parts)
            if not valid.any() and not empty_ok:
                raise ValueError(f"no valid game is left: {summary}")
            if not empty_ok:
                warn_user(summary)
    if not valid.any() and not empty_ok:
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"no valid game is left: every {unit} is invalid, the first: {explain(first)}")
    return np.flatnonzero(valid), dropped


def _as_int_labels(values: np.ndarray, had_missing: bool) -> np.ndarray:
    """Integer ids that pandas read as floats only because of missing entries (dropped): ints again."""
    if had_missing and values.dtype.kind == "f" and values.size and np.all(np.isfinite(values)) \
            and np.all(values == np.round(values)) and np.all(np.abs(values) < 2.0**53):
        return values.astype(np.int64)
    return values


def _covariate_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of a frame's covariate column: the value as a float (NaN where there is none), missing
    (None, NaN, NA, blank text), unparseable (text that is not a number, an infinite value, an object that
    is not a number). Bools read as 0 / 1, numbers as they are, text that reads as a number as that number."""
    kind = values.dtype.kind
    if kind in "biu":
        out = values.astype(np.float64)
        return out, np.zeros(out.shape[0], dtype=bool), np.zeros(out.shape[0], dtype=bool)
    if kind == "f":
        out = values.astype(np.float64)
        missing = np.isnan(out)
        bad = np.isinf(out)
        out[bad] = np.nan
        return out, missing, bad
    codes, uniques = factorize_objects(np.asarray(values, dtype=object))
    parsed = np.full(len(uniques) + 1, np.nan)  # the last slot: missing (code -1)
    blank = np.zeros(len(uniques) + 1, dtype=bool)
    blank[-1] = True
    for u, v in enumerate(uniques):
        if isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
            parsed[u] = float(v)
        elif isinstance(v, str):
            key = v.strip()
            if not key:
                blank[u] = True
            else:
                try:
                    parsed[u] = float(key)
                except ValueError:
                    pass
    out = parsed[codes]
    missing = blank[codes]
    bad = ~missing & ~np.isfinite(out)
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


class FrameRows(NamedTuple):
    """The valid games of a frame, as columns (:func:`read_frame_rows`)."""

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    time: Optional[np.ndarray]
    dropped: dict
    advantage: Optional[np.ndarray]
    advantage_names: tuple


def read_frame_rows(df: Any, a: str = "a", b: str = "b", score: Optional[str] = None, winner: Optional[str] = None,
                    time: Optional[str] = None, *, start: Any = None, end: Any = None, min_player_games: int = 1,
                    invalid: str = "raise", advantage: Any = None, row0: int = 0, empty_ok: bool = False) -> FrameRows:
    """The valid games of a pandas DataFrame, one row per game, as columns.

    The rows are first filtered by time (``start``, ``end``), then checked, then filtered by
    ``min_player_games`` over the valid rows (:func:`screen_rows`). The arguments are those of
    :meth:`discrank.GameLog.from_frame`, which documents them.

    Parameters
    ----------
    df : pandas.DataFrame
        The games.
    a, b, score, winner, time : str
        The columns (exactly one of ``score`` and ``winner``).
    start, end : optional
        Keep the games with ``start <= time < end``.
    min_player_games : int
        Keep the players with at least this many valid games.
    invalid : {"raise", "drop"}
        Raise on the first invalid row, or drop and report them.
    advantage : str or list of str, optional
        The columns of advantage covariates (numbers, bools read as 0 / 1). A row where one is missing
        is invalid ("missing covariate"), as is one where it is not a number or infinite ("unparseable
        covariate").
    row0 : int, optional
        The number of the frame's first row in its file, for the messages (a chunk of a scan).
    empty_ok : bool, optional
        Return no rows, instead of raising, when no valid game is left (a chunk of a scan).

    Returns
    -------
    FrameRows
        ``a``, ``b``: the players of the valid games, in the frame's order (integer ids that pandas read
        as floats because of missing entries that were dropped are integers again), not yet checked as
        labels; ``score``: the score of ``a``; ``time``: their times (numbers or datetime64) when ``time``
        is given; ``dropped``: the invalid rows dropped, counted by kind (``invalid="drop"``);
        ``advantage``: the covariates of the valid games (float64, shape (n, n_covariates)) or None, not yet
        checked as columns (:func:`as_advantage`); ``advantage_names``: their columns' names.

    Raises
    ------
    ValueError
        A column that is not in the frame, an empty frame, an invalid row (``invalid="raise"``), no game
        left after the filters, or an unknown ``invalid``.
    TypeError
        ``df`` is not a DataFrame, or ``advantage`` is not a column name or a list of names.
    """
    pd = pandas_module()
    invalid = check_invalid(invalid)
    min_player_games = check_positive_int(min_player_games, "min_player_games")
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"from_frame expects a pandas DataFrame, got {type(df).__name__}")
    if (score is None) == (winner is None):
        raise ValueError("give exactly one of score= (results of a) and winner= (label of the winner)")
    adv_names = advantage_columns(advantage)
    wanted = [("a", a), ("b", b), ("score", score), ("winner", winner), ("time", time)]
    wanted += [("advantage", col) for col in adv_names]
    for role, col in wanted:
        if col is not None and col not in df.columns:
            raise ValueError(f"column {col!r} (for {role}) is not in the frame; its columns are {list(df.columns)}")
    if (start is not None or end is not None) and time is None:
        raise ValueError("start / end need a time column (time=...)")
    if len(df) == 0:
        raise ValueError("the frame has no rows: the game log is empty")
    col_a, col_b = df[a].to_numpy(), df[b].to_numpy()
    miss_a, miss_b = _missing_mask(col_a), _missing_mask(col_b)
    kind = np.zeros(len(df), dtype=np.int8)

    def mark(mask: np.ndarray, code: int) -> None:
        kind[(kind == 0) & mask] = code

    mark(miss_a | miss_b, MISSING_NAME)
    mark(_same(col_a, col_b), SELF_PLAY)
    values = df[score if score is not None else winner].to_numpy()
    if score is not None:
        s, res_missing, res_bad, s_num = _result_rows(values)
    else:
        s, res_missing, res_bad = _winner_rows(col_a, col_b, values)
    mark(res_missing, MISSING_RESULT)
    mark(res_bad, BAD_RESULT)
    t = t_invalid = None
    if time is not None:
        t, t_missing, t_bad = _frame_times(pd, df[time])
        mark(t_missing, MISSING_TIME)
        mark(t_bad, BAD_TIME)
        t_invalid = t_missing | t_bad
    x = None
    if adv_names:
        x = np.empty((len(df), len(adv_names)))
        cov_missing = np.zeros(len(df), dtype=bool)
        cov_bad = np.zeros(len(df), dtype=bool)
        for j, col in enumerate(adv_names):
            raw_col = df[col].to_numpy()
            if raw_col.dtype.kind in "mMc":
                raise TypeError(f"column {col!r} (for advantage) holds values of type {raw_col.dtype}, not numbers: "
                                f"{_COVARIATE_HELP}")
            x[:, j], m, bd = _covariate_rows(raw_col)
            cov_missing |= m
            cov_bad |= bd
        mark(cov_missing, MISSING_COVARIATE)
        mark(cov_bad, BAD_COVARIATE)

    def explain(k: int) -> str:
        r = k + row0  # the row's number in the file
        code = kind[k]
        if code == MISSING_NAME:
            col, v = (a, col_a[k]) if miss_a[k] else (b, col_b[k])
            name = f" (the name {show(v)})" if isinstance(v, str) else ""
            return f"column {col!r} is missing a player at row {r}{name}"
        if code == SELF_PLAY:
            return f"{self_play_message('game', r, col_a[k])} (row {r})"
        if code in (MISSING_COVARIATE, BAD_COVARIATE):
            for col in adv_names:  # the first covariate of the row that is missing (or not a number)
                raw = df[col].iloc[k]
                _, m, bd = _covariate_rows(np.array([raw], dtype=object))
                if code == MISSING_COVARIATE and m[0]:
                    return (f"column {col!r} (an advantage covariate) has no value at row {r} ({show(raw)}): drop or "
                            "fill the row")
                if code == BAD_COVARIATE and bd[0]:
                    return (f"column {col!r} (an advantage covariate): {col}[{r}] = {show(raw)} is not a finite number "
                            f"at row {r} ({_COVARIATE_HELP})")
        v = values[k]
        if code == MISSING_RESULT:
            what = repr(v) if isinstance(v, str) else "NaN"
            return f"column {score or winner!r} has no result at row {r} ({what}): drop or fill the row"
        if code == BAD_RESULT and winner is not None:
            return (f"winner[{r}] = {show(v)} is neither player of that game ({show(col_a[k])}, {show(col_b[k])}) "
                    f"nor a draw marker {DRAW_MARKERS} (row {r})")
        if code == BAD_RESULT:
            if not np.isnan(s_num[k]):  # a number, or text that reads as one, outside [0, 1]
                return f"{score}[{r}] = {show(v)} is not a score in [0, 1] at row {r} (1 win, 0.5 draw, 0 loss)"
            return (f"{score}[{r}] = {show(v)} is not a result at row {r}: use a number in [0, 1] or one of "
                    f"{sorted(PGN_RESULTS)} ('*', an unfinished game, has no result)")
        raw = df[time].iloc[k]
        if code == MISSING_TIME:
            return f"column {time!r} has no time at row {r} ({show(raw)})"
        return (f"column {time!r} (the time): {time}[{r}] = {show(raw)} is not a time at row {r} (a number, a "
                "datetime or a date)")

    idx, dropped = screen_rows(kind, col_a, col_b, miss_a, miss_b, t, t_invalid, start=start, end=end,
                               min_player_games=min_player_games, invalid=invalid, explain=explain, empty_ok=empty_ok)
    return FrameRows(_as_int_labels(col_a[idx], bool(miss_a.any())), _as_int_labels(col_b[idx], bool(miss_b.any())),
                     s[idx], None if t is None else t[idx], dropped, None if x is None else x[idx], adv_names)
