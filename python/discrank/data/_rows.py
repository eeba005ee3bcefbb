"""Rows of a game log: results, times and player names read; the rows of a frame read and classified.

The low level of the data path: :mod:`discrank.data.logs` and :mod:`discrank.data.pairs` read game rows through
this module, which imports neither of them.

Results are read as numbers in [0, 1], as PGN result strings ("1-0", "0-1", "1/2-1/2", "½-½"), or from a
``winner`` column holding the winner's label or a draw marker (:data:`DRAW_MARKERS`). :func:`read_frame_rows`
classifies each row of a frame as valid or as one of the :data:`~discrank.data._screen.INVALID_KINDS` (players,
result, time, advantage covariates, context, match format, margin), and
:func:`~discrank.data._screen.screen_rows` raises on the first invalid row or drops and reports them.

The names of :mod:`discrank.data._screen` and :mod:`discrank.data._advantage` that the readers use are importable
from here as well.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

import numpy as np

from discrank.data._advantage import COVARIATE_HELP, MAX_COVARIATE, advantage_columns, as_advantage, covariate_values  # noqa: F401 - as_advantage re-export
from discrank._util.checks import check_positive_int, check_same_length, self_play_message, show
from discrank._util.labels import as_label_array, factorize_objects, object_numbers
from discrank.data._margin import margin_columns, margin_message, margin_values
from discrank.data._screen import (BAD_COVARIATE, BAD_RESULT, BAD_TIME, INVALID_KINDS, MISSING_COVARIATE,  # noqa: F401 - the rows' names re-exported
                              BAD_MARGIN, MAX_INVALID, MISSING_CONTEXT, MISSING_FORMAT, MISSING_MARGIN, MISSING_NAME,
                              MISSING_RESULT, MISSING_TIME, SELF_PLAY, UNFINISHED, active_games, check_invalid,
                              check_max_invalid, screen_rows, time_bound, warn_user)

__all__ = ["DRAW_MARKERS", "LINE0", "LINE_SHIFTS", "INVALID_KINDS", "PGN_RESULTS", "FrameRows", "active_games", "advantage_columns",
           "as_advantage", "as_context", "column_roles", "as_times", "check_invalid", "pandas_module", "parse_results",
           "read_frame_rows", "screen_rows", "time_bound", "warn_user"]

PGN_RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "½-½": 0.5, "0.5-0.5": 0.5}
DRAW_MARKERS = ("draw", "Draw", "DRAW", "1/2-1/2", "½-½", "tie", "Tie", "=", "tie (bothbad)")
LINE0 = "discrank_line0"  # the key of a frame's attrs that holds its file's line of row 0
LINE_SHIFTS = {"header", "skiprows", "names", "comment", "skip_blank_lines"}  # read_csv options that move the lines


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
    try:  # dates as strings ("2024-05-01", "2024.05.01", "2024-05-01T10:00:00.25")
        return np.array([np.datetime64(_iso(v)) for v in t.tolist()])
    except ValueError:
        pass
    for k, v in enumerate(t.tolist()):
        try:
            np.datetime64(_iso(v))
        except ValueError:
            raise ValueError(f"{name}[{k}] = {v!r} is not a time (a number, a datetime or an ISO date)") from None
    raise ValueError(f"{name} is not a time column")  # pragma: no cover


def as_context(values: Any, n_games: int, what: str = "context") -> np.ndarray:
    """The context of each game of a log (a surface, a map), or another label column of the games
    (``what="match_format"``: "bo3" or "bo5"), checked.

    Parameters
    ----------
    values : array-like, shape (n_games,)
        One label per game: text or numbers, of one kind, as player labels are.
    n_games : int
        The number of games (the length of the log's ``score``).
    what : str, optional
        The column's name, for the messages: ``"context"`` (default) or ``"match_format"``.

    Returns
    -------
    ndarray, shape (n_games,)
        The labels as :func:`~discrank._util.labels.as_label_array` stores them.

    Raises
    ------
    ValueError
        Not 1-D, a length other than ``n_games``, a missing entry (None, NaN, blank text; named with its game),
        labels of mixed kinds or a non-finite number.
    TypeError
        Labels that are bools, bytes or other objects.
    """
    arr = np.array(values, dtype=object) if isinstance(values, (list, tuple)) else np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be 1-D (one label per game), got shape {arr.shape}")
    check_same_length({"score": n_games, what: arr.shape[0]}, "columns")
    missing = _missing_mask(arr)
    if missing.any():
        k = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{what} has a missing value ({show(arr[k])}) at game {k}: every game needs its {what} "
                         f"(drop the game, or give it a {what} of its own such as 'unknown')")
    return as_label_array(arr, what)


def _iso(v: Any) -> str:
    """``v`` as ISO text for ``numpy.datetime64``: a PGN date's dots ("2024.05.01") as dashes, in the date
    part only, so that a fraction of a second ("10:00:00.25") is kept."""
    text = str(v)
    cut = min((i for i in (text.find("T"), text.find(" ")) if i >= 0), default=len(text))
    return text[:cut].replace(".", "-") + text[cut:]


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
    out, missing = object_numbers(values, PGN_RESULTS)
    with np.errstate(invalid="ignore"):
        bad = ~missing & ~((out >= 0.0) & (out <= 1.0))
    number = out.copy()
    out[missing | bad] = np.nan
    return out, missing, bad, number


def winner_keyword(value: Any, sides: tuple, loose: tuple = ()) -> Optional[float]:
    """A winner value as a keyword: 1 for the column of ``a`` (``sides[0]``), 0 for that of ``b``, 0.5 for a draw
    marker (or one of ``loose`` in any case: the arena's both-bad ties); None for anything else (a name)."""
    if not isinstance(value, str):
        return None
    v, columns = value.strip(), [str(side) for side in sides]
    if v in columns:
        return float(columns.index(v) == 0)
    return 0.5 if v in {m.strip() for m in DRAW_MARKERS} or v.lower() in loose else None


def winner_meanings(values: np.ndarray, sides: tuple, loose: tuple = ()) -> np.ndarray:
    """:func:`winner_keyword` of each of ``values`` (NaN for None), each distinct value looked at once."""
    codes, uniques = factorize_objects(np.asarray(values, dtype=object))
    meant = [winner_keyword(v, sides, loose) for v in uniques]
    return np.array([np.nan if m is None else m for m in meant] + [np.nan])[np.where(codes >= 0, codes, len(uniques))]


def winner_clashes(winner: np.ndarray, is_a: np.ndarray, is_b: np.ndarray, sides: tuple, loose: tuple = ()) -> np.ndarray:
    """The rows whose winner names one of the game's players (``is_a``, ``is_b``) and is also a keyword of another
    meaning (:func:`winner_keyword`): a player named "tie", or "model_b" in the column of ``a``."""
    named = np.flatnonzero(is_a | is_b)
    keyword = winner_meanings(winner[named], sides, loose)
    return named[~np.isnan(keyword) & (keyword != np.where(is_a[named], 1.0, 0.0))]


def _winner_rows(a: np.ndarray, b: np.ndarray, winner: np.ndarray,
                 sides: tuple = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: 1 when the winner is ``a``, 0 when ``b``, 0.5 for a draw marker; missing; unparseable. A
    winner that is neither player's label but the name of a player's column, ``sides`` = (the column of
    ``a``, of ``b``), names that side (the arena's "model_a", "model_b" or "tie"); one that reads two ways
    (:func:`winner_clashes`) is a ValueError naming the value, the first such row and their count."""
    out = np.full(winner.shape[0], np.nan)
    is_a, is_b = _same(winner, a), _same(winner, b)
    clash = winner_clashes(winner, is_a, is_b, sides) if winner.dtype.kind not in "iufbM" else ()
    if len(clash):
        k = int(clash[0])
        meaning = "a draw" if winner_keyword(winner[k], ()) else f"the player in column {winner[k].strip()!r}"
        raise ValueError(f"row {k}: the winner {winner[k]!r} is the name of a player of that game and also means "
                         f"{meaning}, so it reads two ways ({len(clash)} such row(s)); rename the player "
                         "or write the winner by name")
    out[is_b] = 0.0
    out[is_a] = 1.0
    missing = _missing_mask(winner)
    rest = ~(is_a | is_b | missing)
    if rest.any() and winner.dtype.kind not in "iufb":
        got = winner_meanings(winner[rest], sides)
        hit = ~np.isnan(got)
        idx = np.flatnonzero(rest)
        out[idx[hit]] = got[hit]
        rest[idx[hit]] = False
    return out, missing, rest


def _frame_times(pd: Any, tcol: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A time column as numbers or datetimes (as :meth:`GameLog.from_frame` reads it), with the rows
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


def _as_int_labels(values: np.ndarray, had_missing: bool) -> np.ndarray:
    """Integer ids that pandas read as floats only because of missing entries (dropped): ints again."""
    if had_missing and values.dtype.kind == "f" and values.size and np.all(np.isfinite(values)) \
            and np.all(values == np.round(values)) and np.all(np.abs(values) < 2.0**53):
        return values.astype(np.int64)
    return values


class FrameRows(NamedTuple):
    """The valid games of a frame, as columns (:func:`read_frame_rows`)."""

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    time: Optional[np.ndarray]
    dropped: dict
    advantage: Optional[np.ndarray]
    advantage_names: tuple
    context: Optional[np.ndarray] = None
    margin: Optional[np.ndarray] = None
    match_format: Optional[np.ndarray] = None


def read_frame_rows(df: Any, a: str = "a", b: str = "b", score: Optional[str] = None, winner: Optional[str] = None,
                    time: Optional[str] = None, *, start: Any = None, end: Any = None, min_player_games: int = 1,
                    invalid: str = "raise", advantage: Any = None, row0: Any = 0, empty_ok: bool = False,
                    max_invalid: float = MAX_INVALID, context: Optional[str] = None, margin: Optional[tuple] = None,
                    match_format: Optional[str] = None) -> FrameRows:
    """The valid games of a pandas DataFrame, one row per game, as columns.

    The rows are filtered by time, then checked, then filtered by ``min_player_games`` (:func:`screen_rows`).
    The arguments are :meth:`discrank.GameLog.from_frame`'s.

    Parameters
    ----------
    df : pandas.DataFrame
        The games; an invalid row is named by its line in a CSV file (``df.attrs[LINE0]`` + its number), else
        by its index label where the index is not the rows' numbers.
    a, b, score, winner, time : str
        The columns (exactly one of ``score`` and ``winner``).
    start, end : optional
        Keep the games with ``start <= time < end``.
    min_player_games : int
        Keep the players with at least this many valid games.
    invalid : {"raise", "drop"}
        Raise on the first invalid row, or drop and report them.
    max_invalid : float, optional
        With ``invalid="drop"``: the largest share of the rows (in the time window) dropped; more is refused.
    advantage : str or list of str, optional
        The columns of advantage covariates (numbers, bools read as 0 / 1); a row where one is missing or not
        a finite number is invalid.
    context : str, optional
        The column of each game's context (a label); a row without one is invalid.
    margin : tuple of two str, optional
        The columns of the sub-contests won by ``a`` and by ``b``; a row where one is missing or not a finite
        number >= 0 is invalid.
    match_format : str, optional
        The column of each game's match format (a label: "bo3", "bo5"); a row without one is invalid.
    row0 : int or ndarray of int, optional
        The number of the frame's first row in its file, for the messages (a chunk of a scan); or the number of
        each of its rows (a chunk some of whose rows were left out before).
    empty_ok : bool, optional
        Return no rows, instead of raising, when no valid game is left (a chunk of a scan).

    Returns
    -------
    FrameRows
        The valid games' columns, in the frame's order, not yet checked as a log's: ``a``, ``b`` (integer ids
        that pandas read as floats because of dropped missing entries are integers again, as are contexts and
        match formats), ``score``, ``time`` (when given), ``dropped`` (the invalid rows dropped, by kind),
        ``advantage`` (float64, (n, n_covariates), or None) and ``advantage_names``, ``context``, ``margin``
        (float64, (n, 2)) and ``match_format`` (each when given).

    Raises
    ------
    ValueError
        A column that is not in the frame, an empty frame, an invalid row (``invalid="raise"``), more than
        ``max_invalid`` of the rows invalid, no game left after the filters, or an unknown ``invalid`` or
        ``max_invalid``.
    TypeError
        ``df`` is not a DataFrame, or ``advantage`` is not a column name or a list of names.
    """
    pd = pandas_module()
    invalid = check_invalid(invalid)
    max_invalid = check_max_invalid(max_invalid)
    min_player_games = check_positive_int(min_player_games, "min_player_games")
    adv_names, margin = _check_frame(pd, df, a, b, score, winner, time, advantage,
                                     start is not None or end is not None, context, margin, match_format)
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
        s, res_missing, res_bad = _winner_rows(col_a, col_b, values, (a, b))
    mark(res_missing, MISSING_RESULT)
    mark(res_bad, BAD_RESULT)
    t = t_invalid = None
    if time is not None:
        t, t_missing, t_bad = _frame_times(pd, df[time])
        mark(t_missing, MISSING_TIME)
        mark(t_bad, BAD_TIME)
        t_invalid = t_missing | t_bad
    x, ctx, mg, fmt, extra = _frame_extras(df, adv_names, context, margin, match_format)
    for code, mask in extra.items():
        mark(mask, code)

    def explain(k: int) -> str:  # the message of the invalid row k, and where it is beyond its number
        r = int(row0[k]) if isinstance(row0, np.ndarray) else k + row0
        return why(k, r) + (f" (line {r + line0} of the file)" if line0 is not None else "" if default_index
                            else f" (the frame's index label {show(df.index[k])})")

    line0, default_index = df.attrs.get(LINE0), df.index.equals(pd.RangeIndex(len(df)))

    def why(k: int, r: int) -> str:
        code = kind[k]
        if code == MISSING_NAME:
            col, v = (a, col_a[k]) if miss_a[k] else (b, col_b[k])
            name = f" (the name {show(v)})" if isinstance(v, str) else ""
            return f"column {col!r} is missing a player at row {r}{name}"
        if code == SELF_PLAY:
            return f"{self_play_message('game', r, col_a[k])} (row {r})"
        if code >= MISSING_COVARIATE:  # a covariate, the context, a margin or the match format
            return _extra_message(df, code, k, r, adv_names, context, margin, match_format)
        v = values[k]
        if code == MISSING_RESULT:
            what = repr(v) if isinstance(v, str) else "NaN"
            return f"column {score or winner!r} has no result at row {r} ({what}): drop or fill the row"
        if code == BAD_RESULT and winner is not None:
            return (f"winner[{r}] = {show(v)} is neither player of that game ({show(col_a[k])}, {show(col_b[k])}), "
                    f"nor a player's column ({a!r}, {b!r}), nor a draw marker {DRAW_MARKERS} (row {r})")
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
                               min_player_games=min_player_games, invalid=invalid, explain=explain, empty_ok=empty_ok,
                               max_invalid=max_invalid, numbers=row0 if isinstance(row0, np.ndarray) else None)
    return FrameRows(_as_int_labels(col_a[idx], bool(miss_a.any())), _as_int_labels(col_b[idx], bool(miss_b.any())),
                     s[idx], None if t is None else t[idx], dropped, None if x is None else x[idx], adv_names,
                     None if ctx is None else _as_int_labels(ctx[idx], bool(extra[MISSING_CONTEXT].any())),
                     None if mg is None else mg[idx],
                     None if fmt is None else _as_int_labels(fmt[idx], bool(extra[MISSING_FORMAT].any())))


def column_roles(a: Any, b: Any, score: Any, winner: Any, time: Any, advantage: Any = None, context: Any = None,
                 margin: Any = None, match_format: Any = None) -> list:
    """``(role, column)`` of each column a reader is given, in the order it checks them (a role's column None
    when not given): the players, result, time, context and match format columns, then each advantage
    column (:func:`advantage_columns`) and each margin column (:func:`~discrank.data._margin.margin_columns`).

    Parameters
    ----------
    a, b, score, winner, time, advantage, context, margin, match_format
        The columns, as :meth:`discrank.GameLog.from_frame` takes them.

    Returns
    -------
    list of (str, object)
    """
    return [("a", a), ("b", b), ("score", score), ("winner", winner), ("time", time), ("context", context),
            ("match_format", match_format), *(("advantage", c) for c in advantage_columns(advantage)),
            *(("margin", c) for c in margin_columns(margin) or ())]


def _check_frame(pd: Any, df: Any, a: str, b: str, score: Optional[str], winner: Optional[str], time: Optional[str],
                 advantage: Any, windowed: bool, context: Optional[str] = None, margin: Any = None,
                 match_format: Optional[str] = None) -> tuple:
    """The frame and the columns :func:`read_frame_rows` is given, checked; the advantage columns' names and
    the margin's (:func:`~discrank.data._margin.margin_columns`)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"from_frame expects a pandas DataFrame, got {type(df).__name__}")
    if (score is None) == (winner is None):
        raise ValueError("give exactly one of score= (results of a) and winner= (label of the winner)")
    adv_names, margin = advantage_columns(advantage), margin_columns(margin)
    for role, col in column_roles(a, b, score, winner, time, advantage, context, margin, match_format):
        if col is not None and col not in df.columns:
            raise ValueError(f"column {col!r} (for {role}) is not in the frame; its columns are {list(df.columns)}")
    if windowed and time is None:
        raise ValueError("start / end need a time column (time=...)")
    if len(df) == 0:
        raise ValueError("the frame has no rows: the game log is empty")
    return adv_names, margin


def _frame_extras(df: Any, adv_names: tuple, context: Optional[str], margin: Optional[tuple],
                  match_format: Optional[str] = None) -> tuple:
    """The advantage covariates (float64, shape (n_rows, n_covariates)), contexts (as read), margins
    (float64, shape (n_rows, 2)) and match formats (as read) of a frame's rows, each None when not asked
    for, and the rows that each makes invalid, by the kind's code, in the order of :data:`INVALID_KINDS`."""
    x = ctx = mg = fmt = None
    extra = {}
    if adv_names:
        x, extra[MISSING_COVARIATE], extra[BAD_COVARIATE] = _frame_covariates(df, adv_names)
    if context is not None:
        ctx = df[context].to_numpy()
        extra[MISSING_CONTEXT] = _missing_mask(ctx)
    if margin is not None:
        (va, ma, ba), (vb, mb, bb) = (margin_values(df[col].to_numpy()) for col in margin)
        mg, extra[MISSING_MARGIN], extra[BAD_MARGIN] = np.stack([va, vb], axis=1), ma | mb, ba | bb
    if match_format is not None:
        fmt = df[match_format].to_numpy()
        extra[MISSING_FORMAT] = _missing_mask(fmt)
    return x, ctx, mg, fmt, extra


def _extra_message(df: Any, code: int, k: int, r: int, adv_names: tuple, context: Optional[str],
                   margin: Optional[tuple], match_format: Optional[str] = None) -> str:
    """The words for the frame's row ``k`` (row ``r`` of its file), invalid of the kind ``code`` by its
    advantage covariates, its context, its margin or its match format."""
    if code in (MISSING_CONTEXT, MISSING_FORMAT):
        col, what = (context, "the context") if code == MISSING_CONTEXT else (match_format, "the match format")
        raw = df[col].iloc[k]
        return f"column {col!r} ({what}) has no value at row {r} ({show(raw)}): drop or fill the row"
    if code in (MISSING_MARGIN, BAD_MARGIN):
        return margin_message(df, margin, code == MISSING_MARGIN, k, r)
    return _covariate_message(df, adv_names, code == MISSING_COVARIATE, k, r)


def _covariate_message(df: Any, names: tuple, missing: bool, k: int, r: int) -> str:
    """The words for the frame's row ``k`` (row ``r`` of its file): its first advantage covariate that is
    missing (``missing``) or else not a finite number."""
    for col in names:
        raw = df[col].iloc[k]
        _, m, bd = covariate_values(np.array([raw], dtype=object))
        if missing and m[0]:
            return (f"column {col!r} (an advantage covariate) has no value at row {r} ({show(raw)}): drop or "
                    "fill the row")
        if not missing and bd[0]:
            value = object_numbers(np.array([raw], dtype=object), bools=True)[0][0]
            what = f"is larger in magnitude than {MAX_COVARIATE:g}" if np.isfinite(value) else "is not a finite number"
            return (f"column {col!r} (an advantage covariate): {col}[{r}] = {show(raw)} {what} at row {r} "
                    f"({COVARIATE_HELP})")
    return f"row {r} has an invalid advantage covariate in {list(names)}"  # (the row was marked for one of them)


def _frame_covariates(df: Any, names: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The advantage columns ``names`` of a frame: the values (float64, NaN where there is none), and the
    rows where one is missing and those where one is not a finite number (:func:`covariate_values`)."""
    x = np.empty((len(df), len(names)))
    missing = np.zeros(len(df), dtype=bool)
    bad = np.zeros(len(df), dtype=bool)
    for j, col in enumerate(names):
        raw = df[col].to_numpy()
        if raw.dtype.kind in "mMc":
            raise TypeError(f"column {col!r} (for advantage) holds values of type {raw.dtype}, not numbers: "
                            f"{COVARIATE_HELP}")
        x[:, j], m, bd = covariate_values(raw)
        missing |= m
        bad |= bd
    return x, missing, bad
