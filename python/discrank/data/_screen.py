"""Invalid rows of a game log: the kinds of invalid row, the filters that run before the checks (the time
window, ``min_player_games``), and the screen that raises on the first invalid row or drops and reports
them (:func:`screen_rows`). The readers (:mod:`discrank.data._rows`, :mod:`discrank.data.pgn`, :mod:`discrank.data.scan`)
classify their rows into :data:`INVALID_KINDS` and hand them here."""

from __future__ import annotations

import numbers
import os
import sys
import warnings
from typing import Any, Callable, Optional

import numpy as np

from discrank._util.checks import check_choice, check_positive_int, show
from discrank._util.labels import factorize_objects, factorize_pair

__all__ = ["INVALID_KINDS", "MISSING_NAME", "SELF_PLAY", "MISSING_RESULT", "BAD_RESULT", "MISSING_TIME", "BAD_TIME",
           "UNFINISHED", "MISSING_COVARIATE", "BAD_COVARIATE", "MISSING_CONTEXT", "MISSING_MARGIN", "BAD_MARGIN",
           "MISSING_FORMAT", "MAX_INVALID", "active_games", "check_invalid", "check_max_invalid", "check_reading",
           "kept_games", "large_share", "refuse_mostly_invalid", "screen_rows", "time_bound", "warn_user",
           "describe_log"]

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
    "missing context",
    "missing margin",
    "unparseable margin",
    "missing match format",
)
(MISSING_NAME, SELF_PLAY, MISSING_RESULT, BAD_RESULT, MISSING_TIME, BAD_TIME, UNFINISHED, MISSING_COVARIATE,
 BAD_COVARIATE, MISSING_CONTEXT, MISSING_MARGIN, BAD_MARGIN, MISSING_FORMAT) = range(1, 14)
_INVALID_CHOICES = ("raise", "drop")
#: The largest share of invalid rows that ``invalid="drop"`` drops by default (``max_invalid=``): beyond it
#: the rows are more likely misread (a winner column that names neither player, goals read as a score)
#: than dirty, and dropping them would leave a fit of what remains.
MAX_INVALID = 0.5
_HINT = ('; invalid="drop" (discrank fit --drop-invalid) drops and counts such rows, as long as they are at most '
         f'{MAX_INVALID:g} of the rows (max_invalid=, --max-invalid)')


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


def check_max_invalid(max_invalid: Any) -> float:
    """The ``max_invalid=`` option of the readers: the largest share of invalid rows ``invalid="drop"`` drops.

    Parameters
    ----------
    max_invalid : object
        The argument: a real number in [0, 1] (not a bool).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Any other value, named.
    """
    if isinstance(max_invalid, (bool, np.bool_)) or not isinstance(max_invalid, numbers.Real) \
            or not 0.0 <= float(max_invalid) <= 1.0:
        raise ValueError(f"max_invalid={show(max_invalid)} is not a number in [0, 1]: the largest share of the rows "
                         f'that invalid="drop" drops (default {MAX_INVALID:g}; 1 drops any number)')
    return float(max_invalid)


def check_reading(invalid: Any, max_invalid: Any, min_player_games: Any) -> None:
    """A reader's ``invalid``, ``max_invalid`` and ``min_player_games``, checked before its file is read
    (:func:`check_invalid`, :func:`check_max_invalid`, a positive integer); a ValueError names the value."""
    check_invalid(invalid)
    check_max_invalid(max_invalid)
    check_positive_int(min_player_games, "min_player_games")


def refuse_mostly_invalid(n_invalid: int, n_rows: int, dropped: dict, max_invalid: float, unit: str = "row") -> None:
    """Refuse to drop more than ``max_invalid`` of the rows (``invalid="drop"``): so many invalid rows
    usually mean a misread column.

    Parameters
    ----------
    n_invalid : int
        The invalid rows that ``invalid="raise"`` would stop at (not those a reader skips in both modes).
    n_rows : int
        The rows checked (those in the time window).
    dropped : dict of str to int
        The rows dropped by kind (:data:`INVALID_KINDS`), for the most common kind.
    max_invalid : float
        The largest share dropped (:func:`check_max_invalid`).
    unit : str, optional
        What a row is ("row", "game"), for the message.

    Raises
    ------
    ValueError
        ``n_invalid > max_invalid * n_rows``, with the count, the share and the most common kind.
    """
    if n_rows <= 0 or n_invalid <= max_invalid * n_rows:
        return
    kind, count = max(dropped.items(), key=lambda item: item[1]) if dropped else ("invalid", n_invalid)
    raise ValueError(f'invalid="drop" would drop {n_invalid} of {n_rows} {unit}s ({n_invalid / n_rows:.0%}), more '
                     f"than max_invalid={max_invalid:g}; the most common kind is {kind!r} ({count} {unit}s). So many "
                     "usually mean a misread column (a winner column that names neither player, goals read as a "
                     "score): check the columns, or pass max_invalid=1 (--max-invalid 1 with --drop-invalid) to drop "
                     "them all the same")


#: A share of invalid rows dropped from which the warning says that it is large (below :data:`MAX_INVALID`,
#: which refuses), in a log of at least ``LARGE_ROWS`` rows (a share of a handful says little).
LARGE_SHARE, LARGE_ROWS = 0.1, 100


def large_share(n_invalid: int, n_rows: int, unit: str = "row") -> str:
    """The words that the drop warning adds when ``n_invalid`` is at least :data:`LARGE_SHARE` of at least
    ``LARGE_ROWS`` rows; else ''."""
    if n_rows < LARGE_ROWS or n_invalid < LARGE_SHARE * n_rows:
        return ""
    return (f". That is {n_invalid / n_rows:.0%} of the {unit}s: so large a share usually means a misread column (a "
            "winner column that names neither player, goals read as a score); check the columns before trusting "
            "the fit")


def time_bound(value: Any, t: np.ndarray, name: str) -> Any:
    """``start`` / ``end`` in the units of the times.

    Parameters
    ----------
    value : object
        The bound: a date (text, datetime, datetime64) for datetimes; a number (or text such as
        "20100101") for numbers.
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
        if isinstance(value, str) and value.strip().isdigit():  # "20240601" YYYYMMDD, "2024" a year, else no date
            text = value.strip()
            value = f"{text[:4]}-{text[4:6]}-{text[6:]}" if len(text) == 8 else text if len(text) == 4 else "no date"
        if not bad:
            try:
                out = np.datetime64(value)
                bad = not np.isnat(out) and not 1 <= out.astype("datetime64[Y]").astype(int) + 1970 <= 9999
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
                 min_player_games: int, games: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
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
    games : ndarray of float, shape (n_games,), optional
        The games each row stands for (summed rows, ``discrank.scan_games``); default one each.

    Returns
    -------
    valid : ndarray of bool
        The games kept: those of ``valid`` whose two players remain.
    alive : ndarray of bool, shape (n_players + 1,)
        The players that remain, by code; the last slot, for code -1, is True.
    """
    while True:
        w = None if games is None else games[valid]
        counts = np.bincount(ca[valid], w, minlength=n_players) + np.bincount(cb[valid], w, minlength=n_players)
        alive = np.append(counts >= min_player_games, True)  # the last slot: code -1, no player named
        now = valid & alive[ca] & alive[cb]  # valid rows name both players: codes >= 0
        if now.sum() == valid.sum():
            return valid, alive
        valid = now


def kept_games(a: np.ndarray, b: np.ndarray, t: Optional[np.ndarray], start: Any, end: Any,
               min_player_games: int) -> np.ndarray:
    """The games of a log that :meth:`discrank.GameLog.filter` keeps, as a mask: ``start <= t < end``, then
    the players with at least ``min_player_games`` of them (:func:`active_games`).

    Parameters
    ----------
    a, b : ndarray, shape (n_games,)
        The players of each game (labels of any kind).
    t : ndarray, shape (n_games,), optional
        The times (needed for ``start`` / ``end``).
    start, end : optional
        The bounds (:func:`time_bound`), or None.
    min_player_games : int
        The fewest games a player keeps (checked).

    Returns
    -------
    ndarray of bool, shape (n_games,)

    Raises
    ------
    ValueError
        ``start`` / ``end`` without times, a bound of the wrong kind, no game in the window, or no player
        with ``min_player_games`` games.
    """
    keep = np.ones(a.shape[0], dtype=bool)
    if start is not None or end is not None:
        if t is None:
            raise ValueError("start / end need a time column (time=...)")
        if start is not None:
            keep &= t >= time_bound(start, t, "start")
        if end is not None:
            keep &= t < time_bound(end, t, "end")
    if not keep.any():
        raise ValueError("no game is left after filtering")
    if min_player_games > 1:
        idx = np.flatnonzero(keep)
        labels, code_a, code_b = factorize_pair(a[idx], b[idx])  # exact for any label kind; coded once
        ok, _ = active_games(code_a, code_b, labels.size, np.ones(idx.size, dtype=bool), min_player_games)
        if not ok.any():
            raise ValueError(f"no player has at least min_player_games={min_player_games} games")
        keep[idx[~ok]] = False
    return keep


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
        The warning's class; default :class:`~discrank._util.exceptions.InvalidRowsWarning`.
    """
    from discrank._util.exceptions import InvalidRowsWarning

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # discrank/, above data/
    frame, level = sys._getframe(0), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category or InvalidRowsWarning, stacklevel=level)


def screen_rows(kind: np.ndarray, a: np.ndarray, b: np.ndarray, missing_a: np.ndarray, missing_b: np.ndarray,
                t: Optional[np.ndarray], t_invalid: Optional[np.ndarray], *, start: Any, end: Any,
                min_player_games: int, invalid: str, explain: Callable[[int], str], unit: str = "row",
                skip: tuple[int, ...] = (), empty_ok: bool = False, max_invalid: float = MAX_INVALID,
                numbers: Any = None) -> tuple[np.ndarray, dict[str, int]]:
    """The rows to keep, and the counts of the invalid rows dropped, by kind.

    In order: the time window (rows outside ``[start, end)`` are never checked; a row without a valid time
    stays, invalid); ``min_player_games`` over the valid rows (an invalid row of a player it removes is
    neither raised on nor reported); then ``invalid="raise"`` raises on the first invalid row left, and
    ``invalid="drop"`` drops them and warns, unless more than ``max_invalid`` of the rows in the window are
    invalid (the kinds of ``skip`` not counted).

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
        dropped without warning or refusing (a chunk of a scan, whose caller does both).
    max_invalid : float, optional
        The largest share of the rows in the window dropped (default :data:`MAX_INVALID`).
    numbers : ndarray of int, optional
        Each row's number in its source, for the warning (default: its position).

    Returns
    -------
    rows : ndarray of int
        The positions of the rows kept.
    dropped : dict of str to int
        The invalid rows dropped, counted by kind.

    Raises
    ------
    ValueError
        An invalid row (``invalid="raise"``, worded by ``explain``), more than ``max_invalid`` of the rows
        invalid (``invalid="drop"``), or no valid game left.
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
                    parts.append(f"{rows.size} {name} ({_rows_text(rows if numbers is None else numbers[rows], unit)})")
            total = int(bad.sum())
            where = " in the time window" if windowed else ""
            summary = f"dropped {total} of {int(keep.sum())} {unit}s{where}: " + ", ".join(parts) \
                + large_share(total, int(keep.sum()), unit)
            if not valid.any() and not empty_ok:
                raise ValueError(f"no valid game is left: {summary}")
            if not empty_ok:
                skipped = {INVALID_KINDS[code - 1] for code in skip}
                refuse_mostly_invalid(int((bad & ~np.isin(kind, skip)).sum()), int(keep.sum()),
                                      {k: v for k, v in dropped.items() if k not in skipped}, max_invalid, unit)
                warn_user(summary)
    if not valid.any() and not empty_ok:
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"no valid game is left: every {unit} is invalid, the first: {explain(first)}")
    return np.flatnonzero(valid), dropped


def describe_log(log: Any) -> str:
    """A game log in one line (``repr(GameLog)``): its games, players (counted for logs of up to 500,000 games),
    time span, draws, and the columns it has besides the players and the scores."""
    n = len(log)
    parts = [f"{n:,} game{'s' if n != 1 else ''}"]
    if 0 < n <= 500_000:  # (a hash of the labels: a fraction of a second at that size)
        parts[0] += f" of {len(set(log.a.tolist()) | set(log.b.tolist())):,} players"
    if log.time is not None and n:
        t = np.asarray(log.time)
        lo, hi = t.min(), t.max()
        parts.append(f"times {str(lo)[:10] if t.dtype.kind == 'M' else show(lo)} .. "
                     f"{str(hi)[:10] if t.dtype.kind == 'M' else show(hi)}")
    draws = int(np.count_nonzero(np.asarray(log.score) == 0.5))
    if draws:
        parts.append(f"{draws:,} draws")
    if log.advantage_names:
        parts.append(f"advantage {list(log.advantage_names)}")
    for name in ("context", "match_format"):
        values = getattr(log, name)
        if values is not None:
            parts.append(f"{name} ({len(set(np.asarray(values)[:500_000].tolist()))} values"
                         + (" in the first 500,000 games)" if len(values) > 500_000 else ")"))
    if log.margin is not None:
        parts.append("margins")
    dropped = sum(int(v) for v in log.dropped.values() if isinstance(v, (int, np.integer)))
    if dropped:
        parts.append(f"{dropped:,} rows dropped")
    return "GameLog(" + ", ".join(parts) + ")"
