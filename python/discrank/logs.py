"""Game logs in: pandas frames, CSV / Parquet files, PGN files; filters; time-ordered splits.

A :class:`GameLog` keeps one row per game (player a, player b, score of a, optional time), so that it
can be filtered by date, split by time, fed to the online updates, or aggregated to the pairs that the
stationary models fit (:meth:`GameLog.to_pairs` -> :class:`discrank.PairwiseData`).

Results are read as numbers (1 a win of a, 0.5 a draw, 0 a loss; any value in [0, 1]), as PGN result
strings ("1-0", "0-1", "1/2-1/2", also "½-½"), or from a ``winner`` column holding the winner's label
(or a draw marker: "draw", "1/2-1/2", "tie", "=").

Real logs have invalid rows (a player against themself, a missing name, result or time). The readers
raise on the first one, naming its row and value, or with ``invalid="drop"`` drop them and report the
count of each kind (:data:`INVALID_KINDS`) in one :class:`~discrank.exceptions.InvalidRowsWarning` and in
:attr:`GameLog.dropped`. Their ``start`` / ``end`` filters come first: rows outside are never checked.
"""

from __future__ import annotations

import os
import sys
import time as _time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

import numpy as np

from discrank._labels import as_label_array, check_same_kind, factorize_pair, show, text_array
from discrank.data import PairwiseData
from discrank.exceptions import TruncatedFileWarning

__all__ = ["GameLog", "parse_results", "read_pgn", "DRAW_MARKERS", "INVALID_KINDS"]

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
)
_MISSING_NAME, _SELF_PLAY, _MISSING_RESULT, _BAD_RESULT, _MISSING_TIME, _BAD_TIME, _UNFINISHED = range(1, 8)
_INVALID_CHOICES = ("raise", "drop")
_HINT = '; invalid="drop" (discrank fit --drop-invalid) drops and counts such rows'


def _pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is in the test extra
        raise ImportError("reading frames and files needs pandas: pip install 'discrank[pandas]'") from exc
    return pd


def parse_results(values: Any, name: str = "score") -> np.ndarray:
    """Scores of the first player from numbers in [0, 1] or PGN result strings; errors name the value."""
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


def _winner_scores(a: np.ndarray, b: np.ndarray, winner: Any) -> np.ndarray:
    w = np.asarray(winner, dtype=object)
    out = np.empty(a.shape[0])
    for k, (x, y, v) in enumerate(zip(a.tolist(), b.tolist(), w.tolist())):
        if v == x:
            out[k] = 1.0
        elif v == y:
            out[k] = 0.0
        elif isinstance(v, str) and v.strip() in DRAW_MARKERS:
            out[k] = 0.5
        else:
            raise ValueError(
                f"winner[{k}] = {v!r} is neither player of that game ({show(x)}, {show(y)}) nor a draw marker "
                f"{DRAW_MARKERS}"
            )
    return out


def _as_times(values: Any, name: str = "time") -> np.ndarray:
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


# ------------------------------------------------------------------ invalid rows: classify, filter, report
def _check_invalid(invalid: Any) -> str:
    if not isinstance(invalid, str) or invalid not in _INVALID_CHOICES:
        raise ValueError(f"invalid={invalid!r} is not one of {_INVALID_CHOICES}: 'raise' (the default) stops at the "
                         "first invalid row, 'drop' drops the invalid rows and reports them")
    return invalid


def _check_min_player_games(min_player_games: Any) -> int:
    m = min_player_games
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"min_player_games must be an integer >= 1, got {m!r}")
    return int(m)


def _bound(value: Any, t: np.ndarray, name: str) -> Any:
    """``start`` / ``end`` in the units of the times: a datetime64 for datetimes, a number for numbers (a
    string such as "20100101", as the command line gives it, is read as one). A bound of the other kind
    (a date for numeric times, a number for dates), NaN or NaT is a ``ValueError`` naming it."""
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
    codes, uniques = _factorize(np.asarray(values, dtype=object))
    blank = np.fromiter((_is_blank(v) for v in uniques), dtype=bool, count=len(uniques))
    return np.append(blank, True)[codes]  # code -1 (None, NaN): the last slot


def _factorize(values: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes (-1 for None / NaN) and the distinct values, by hashing (pandas when there, else a dict)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        table: dict = {}
        codes = np.empty(values.shape[0], dtype=np.int64)
        for k, v in enumerate(values.tolist()):
            if v is None or (isinstance(v, float) and v != v):
                codes[k] = -1
            else:
                codes[k] = table.setdefault(v, len(table))
        return codes, list(table)
    codes, uniques = pd.factorize(values)
    return np.asarray(codes, dtype=np.int64), list(np.asarray(uniques, dtype=object))


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
    codes, uniques = _factorize(np.asarray(values, dtype=object))
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
        codes, uniques = _factorize(w)
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
    codes, uniques = _factorize(both)
    ca, cb = codes[:n].copy(), codes[n:].copy()
    ca[missing_a] = -1
    cb[missing_b] = -1
    return ca, cb, len(uniques)


def _rows_text(rows: np.ndarray, unit: str, limit: int = 5) -> str:
    shown = ", ".join(str(int(r)) for r in rows[:limit]) + (", ..." if rows.size > limit else "")
    return f"{unit}{'s' if rows.size > 1 else ''} {shown}"


def _warn(message: str, category: Optional[type] = None) -> None:
    """An :class:`InvalidRowsWarning` (or a warning of ``category``) pointing at the first caller outside
    discrank."""
    from discrank.exceptions import InvalidRowsWarning

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(0), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category or InvalidRowsWarning, stacklevel=level)


def _screen(kind: np.ndarray, a: np.ndarray, b: np.ndarray, missing_a: np.ndarray, missing_b: np.ndarray,
            t: Optional[np.ndarray], t_invalid: Optional[np.ndarray], *, start: Any, end: Any,
            min_player_games: int, invalid: str, explain: Callable[[int], str], unit: str = "row",
            skip: tuple[int, ...] = ()) -> tuple[np.ndarray, dict[str, int]]:
    """The rows to keep, and the counts of the invalid rows dropped, by kind.

    ``kind``: 0 for a valid row, else its code in :data:`INVALID_KINDS`. Steps, in order: the time window
    (rows outside ``[start, end)`` are never checked; a row without a valid time cannot be placed and stays,
    invalid); then the invalid rows are set apart; then ``min_player_games`` is applied over the valid rows,
    and an invalid row with a named player who does not survive it is filtered out, neither raised on nor
    reported. Then ``invalid="raise"`` raises on the first invalid row left (``explain`` words it), and
    ``invalid="drop"`` drops them and warns (:class:`InvalidRowsWarning`). Rows of the kinds in ``skip``
    are dropped in both modes (counted when dropping).
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
            inside &= t[idx] >= _bound(start, t, "start")
        if end is not None:
            inside &= t[idx] < _bound(end, t, "end")
        keep = ~ok
        keep[idx[inside]] = True
        if not keep.any():
            raise ValueError(f"no game is left after filtering: none has start={start!r} <= time < end={end!r}")
    valid = keep & (kind == 0)
    bad = keep & (kind != 0)
    if min_player_games > 1:
        ca, cb, n_labels = _player_codes(a, b, missing_a, missing_b)
        while True:
            counts = np.bincount(ca[valid], minlength=n_labels) + np.bincount(cb[valid], minlength=n_labels)
            alive = np.append(counts >= min_player_games, True)  # the last slot: code -1, no player named
            now = valid & alive[ca] & alive[cb]  # valid rows name both players: codes >= 0
            if now.sum() == valid.sum():
                break
            valid = now
        bad &= alive[ca] & alive[cb]  # an invalid row is kept (to raise on or report) if its named players survive
        if not valid.any():
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
            if not valid.any():
                raise ValueError(f"no valid game is left: {summary}")
            _warn(summary)
    if not valid.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"no valid game is left: every {unit} is invalid, the first: {explain(first)}")
    return np.flatnonzero(valid), dropped


def _as_int_labels(values: np.ndarray, had_missing: bool) -> np.ndarray:
    """Integer ids that pandas read as floats only because of missing entries (dropped): ints again."""
    if had_missing and values.dtype.kind == "f" and values.size and np.all(np.isfinite(values)) \
            and np.all(values == np.round(values)) and np.all(np.abs(values) < 2.0**53):
        return values.astype(np.int64)
    return values


@dataclass
class GameLog:
    """One row per game: labels ``a``, ``b``, the score of ``a`` in [0, 1], and an optional ``time``.

    Build with :meth:`from_arrays`, :meth:`from_frame`, :meth:`read_csv`, :meth:`read_parquet` or
    :func:`read_pgn`; the checks are those of :meth:`PairwiseData.from_games` (no player against themself,
    no NaN, equal lengths), with the offending row named. The readers take ``invalid="drop"`` to drop the
    invalid rows instead, and report them.

    Attributes
    ----------
    a, b : array, shape (n_games,)
        The two players of each game.
    score : array of float, shape (n_games,)
        Score of ``a``: 1 a win, 0.5 a draw, 0 a loss.
    time : array, shape (n_games,), optional
        Time of each game (numbers or datetime64).
    dropped : dict of str to int
        The invalid rows a reader dropped (``invalid="drop"``), counted by kind (the keys are among
        :data:`INVALID_KINDS`); empty when none was dropped.
    """

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    time: Optional[np.ndarray] = None
    dropped: dict = field(default_factory=dict)

    @classmethod
    def from_arrays(cls, a: Any, b: Any, score: Any, time: Any = None) -> "GameLog":
        a = as_label_array(a, "a")
        b = as_label_array(b, "b")
        check_same_kind(("a", a), ("b", b))
        score = parse_results(score, "score")
        lengths = {"a": a.shape[0], "b": b.shape[0], "score": score.shape[0]}
        if time is not None:
            time = _as_times(time)
            lengths["time"] = time.shape[0]
        if len(set(lengths.values())) != 1:
            raise ValueError(f"found columns of inconsistent lengths: {lengths}")
        if a.shape[0] == 0:
            raise ValueError("the game log is empty")
        same = a == b
        if np.any(same):
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"game {k} is player {show(a[k])} against themself")
        return cls(a, b, score, time)

    @classmethod
    def from_frame(cls, df: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                   winner: Optional[str] = None, time: Optional[str] = None, *, start: Any = None, end: Any = None,
                   min_player_games: int = 1, invalid: str = "raise") -> "GameLog":
        """A game log from a pandas DataFrame, one row per game.

        The rows are first filtered by time (``start``, ``end``), then checked, then filtered by
        ``min_player_games`` over the valid rows: a row outside ``[start, end)`` is never checked, and an
        invalid row with a named player who does not survive ``min_player_games`` is filtered out, not
        raised on or reported.

        Parameters
        ----------
        df : pandas.DataFrame
            The games.
        a, b : str
            Columns of the two players (numbers or text).
        score : str, optional
            Column of the results of ``a``: numbers in [0, 1] or PGN result strings ("1-0", "0-1",
            "1/2-1/2").
        winner : str, optional
            Instead of ``score``: column of the winner's label, or a draw marker (:data:`DRAW_MARKERS`).
        time : str, optional
            Column of the games' times: numbers (as they are, say 20240501) or dates.
        start, end : optional
            Keep the games with ``start <= time < end`` (needs ``time``). A row whose time is missing or
            not a time cannot be placed: it is invalid.
        min_player_games : int
            Keep the players with at least this many valid games (repeated until every remaining player
            has that many). Default 1: keep every player.
        invalid : {"raise", "drop"}
            What to do with an invalid row: a player against themself, a missing player name (NaN, empty
            text), a missing or unparseable result (NaN, text that is not a result, a number outside
            [0, 1]; for ``winner``, a label that is neither player nor a draw marker), a missing or
            unparseable time (when ``time`` is given). ``"raise"`` (default): a ``ValueError`` that names
            the first such row (rows are numbered from 0, in the frame's order) and its value. ``"drop"``:
            drop them, warn once with an :class:`~discrank.exceptions.InvalidRowsWarning` that gives the
            count of each kind and its first rows, and keep the counts in :attr:`GameLog.dropped`.

        Returns
        -------
        GameLog
            The valid games in the frame's order. Integer ids that pandas read as floats because of the
            missing entries that were dropped are integers again.

        Raises
        ------
        ValueError
            A column that is not in the frame, an empty frame, an invalid row (``invalid="raise"``), no game
            left after the filters, or an unknown ``invalid``.
        TypeError
            ``df`` is not a DataFrame.
        """
        pd = _pandas()
        invalid = _check_invalid(invalid)
        min_player_games = _check_min_player_games(min_player_games)
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"from_frame expects a pandas DataFrame, got {type(df).__name__}")
        if (score is None) == (winner is None):
            raise ValueError("give exactly one of score= (results of a) and winner= (label of the winner)")
        wanted = {"a": a, "b": b, "score": score, "winner": winner, "time": time}
        for role, col in wanted.items():
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

        mark(miss_a | miss_b, _MISSING_NAME)
        mark(_same(col_a, col_b), _SELF_PLAY)
        values = df[score if score is not None else winner].to_numpy()
        if score is not None:
            s, res_missing, res_bad, s_num = _result_rows(values)
        else:
            s, res_missing, res_bad = _winner_rows(col_a, col_b, values)
        mark(res_missing, _MISSING_RESULT)
        mark(res_bad, _BAD_RESULT)
        t = t_invalid = None
        if time is not None:
            t, t_missing, t_bad = _frame_times(pd, df[time])
            mark(t_missing, _MISSING_TIME)
            mark(t_bad, _BAD_TIME)
            t_invalid = t_missing | t_bad

        def explain(k: int) -> str:
            code = kind[k]
            if code == _MISSING_NAME:
                col, v = (a, col_a[k]) if miss_a[k] else (b, col_b[k])
                name = f" (the name {show(v)})" if isinstance(v, str) else ""
                return f"column {col!r} is missing a player at row {k}{name}"
            if code == _SELF_PLAY:
                return f"game {k} is player {show(col_a[k])} against themself (row {k})"
            v = values[k]
            if code == _MISSING_RESULT:
                what = repr(v) if isinstance(v, str) else "NaN"
                return f"column {score or winner!r} has no result at row {k} ({what}): drop or fill the row"
            if code == _BAD_RESULT and winner is not None:
                return (f"winner[{k}] = {show(v)} is neither player of that game ({show(col_a[k])}, {show(col_b[k])}) "
                        f"nor a draw marker {DRAW_MARKERS} (row {k})")
            if code == _BAD_RESULT:
                if not np.isnan(s_num[k]):  # a number, or text that reads as one, outside [0, 1]
                    return f"{score}[{k}] = {show(v)} is not a score in [0, 1] at row {k} (1 win, 0.5 draw, 0 loss)"
                return (f"{score}[{k}] = {show(v)} is not a result at row {k}: use a number in [0, 1] or one of "
                        f"{sorted(PGN_RESULTS)} ('*', an unfinished game, has no result)")
            raw = df[time].iloc[k]
            if code == _MISSING_TIME:
                return f"column {time!r} has no time at row {k} ({show(raw)})"
            return (f"column {time!r} (the time): {time}[{k}] = {show(raw)} is not a time at row {k} (a number, a "
                    "datetime or a date)")

        idx, dropped = _screen(kind, col_a, col_b, miss_a, miss_b, t, t_invalid, start=start, end=end,
                               min_player_games=min_player_games, invalid=invalid, explain=explain)
        log = cls.from_arrays(_as_int_labels(col_a[idx], bool(miss_a.any())),
                              _as_int_labels(col_b[idx], bool(miss_b.any())), s[idx],
                              None if t is None else t[idx])
        log.dropped = dropped
        return log

    @classmethod
    def read_csv(cls, path: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                 winner: Optional[str] = None, time: Optional[str] = None, *, start: Any = None, end: Any = None,
                 min_player_games: int = 1, invalid: str = "raise", truncated: str = "raise",
                 **read_kw: Any) -> "GameLog":
        """A game log from a CSV file, through ``pandas.read_csv`` then :meth:`from_frame`.

        Parameters
        ----------
        path : str or path-like
            The file (compressed files too, as pandas reads them).
        a, b, score, winner, time, start, end, min_player_games, invalid
            As in :meth:`from_frame`: the columns, the filters (applied before the checks), and what to do
            with invalid rows (``"raise"``, the default, or ``"drop"``, which drops and reports them).
        truncated : {"raise", "keep"}
            A ``.gz``, ``.bz2`` or ``.xz`` file that ends before its end-of-stream marker (a download cut
            short): ``"raise"`` (default) a ``ValueError`` naming the file, the byte and line where its text
            ends and the last complete row; ``"keep"`` keeps the complete lines read before the truncation,
            with a ``TruncatedFileWarning`` saying how many rows were kept.
        **read_kw
            Passed to ``pandas.read_csv``. Unless given, ``low_memory=False`` (with pandas' C parser): each
            column is typed from all its rows, so pandas does not warn about columns of mixed types.

        Returns
        -------
        GameLog

        Raises
        ------
        ValueError
            A file that is empty, not UTF-8 text, truncated (``truncated="raise"``) or corrupted (compressed
            data that does not decompress), and the errors of :meth:`from_frame`.
        """
        pd = _pandas()
        _check_invalid(invalid)
        _check_min_player_games(min_player_games)
        truncated = _check_truncated(truncated)
        if "low_memory" not in read_kw and read_kw.get("engine") in (None, "c"):
            read_kw["low_memory"] = False
        try:
            df = pd.read_csv(path, **read_kw)
        except EOFError as exc:  # a compressed file cut short
            df = _truncated_csv(pd, path, read_kw, truncated, exc)
        except (*_decompression_errors(), OSError) as exc:
            if isinstance(exc, OSError) and (exc.errno is not None or exc.filename is not None):
                raise  # a system error (no such file, permission): it names the file
            raise ValueError(f"{path}: cannot be decompressed ({type(exc).__name__}: {exc})") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); pass encoding=...") from None
        except pd.errors.EmptyDataError:
            raise ValueError(f"{path}: the file is empty") from None
        return cls.from_frame(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                              min_player_games=min_player_games, invalid=invalid)

    @classmethod
    def read_parquet(cls, path: Any, a: str = "a", b: str = "b", score: Optional[str] = None,
                     winner: Optional[str] = None, time: Optional[str] = None, *, start: Any = None,
                     end: Any = None, min_player_games: int = 1, invalid: str = "raise",
                     **read_kw: Any) -> "GameLog":
        """A game log from a Parquet file, through ``pandas.read_parquet`` (needs pyarrow) then :meth:`from_frame`.

        Parameters
        ----------
        path : str or path-like
            The file.
        a, b, score, winner, time, start, end, min_player_games, invalid
            As in :meth:`from_frame`: the columns, the filters (applied before the checks), and what to do
            with invalid rows (``"raise"``, the default, or ``"drop"``, which drops and reports them).
        **read_kw
            Passed to ``pandas.read_parquet``.

        Returns
        -------
        GameLog

        Raises
        ------
        ValueError
            A file that is not Parquet, a column used that holds lists, arrays or structs instead of one value
            per game (named with its type), and the errors of :meth:`from_frame`.
        """
        pd = _pandas()
        _check_invalid(invalid)
        _check_min_player_games(min_player_games)
        try:
            df = pd.read_parquet(path, **read_kw)
        except FileNotFoundError:
            raise
        except (ValueError, OSError) as exc:
            text = str(exc)
            raise ValueError(text if os.fspath(path) in text else f"{path}: {text}") from None
        for role, col in (("a", a), ("b", b), ("score", score), ("winner", winner), ("time", time)):
            if col is not None and col in df.columns:
                _check_scalar_column(pd, df[col], col, role, path)
        return cls.from_frame(df, a=a, b=b, score=score, winner=winner, time=time, start=start, end=end,
                              min_player_games=min_player_games, invalid=invalid)

    def __len__(self) -> int:
        return int(self.a.shape[0])

    def _take(self, keep: np.ndarray) -> "GameLog":
        if not keep.any():
            raise ValueError("no game is left after filtering")
        return GameLog(self.a[keep], self.b[keep], self.score[keep], None if self.time is None else self.time[keep])

    def filter(self, *, start: Any = None, end: Any = None, min_player_games: int = 1) -> "GameLog":
        """Games with ``start <= time < end``, then only players with at least ``min_player_games`` games.

        Parameters
        ----------
        start, end : optional
            Bounds of the times (needs a time column): dates for datetimes; numbers (or text that reads as
            one, such as "20100101") for numeric times.
        min_player_games : int
            Keep the players with at least this many games, repeated until every remaining player has
            that many.

        Returns
        -------
        GameLog
            The games kept, in order; :attr:`dropped` is carried over.
        """
        keep = np.ones(len(self), dtype=bool)
        if start is not None or end is not None:
            if self.time is None:
                raise ValueError("start / end need a time column (time=...)")
            if start is not None:
                keep &= self.time >= _bound(start, self.time, "start")
            if end is not None:
                keep &= self.time < _bound(end, self.time, "end")
        out = self._take(keep)
        min_player_games = _check_min_player_games(min_player_games)
        while min_player_games > 1:
            labels, code_a, code_b = factorize_pair(out.a, out.b)  # exact for any label kind
            counts = np.bincount(code_a, minlength=labels.size) + np.bincount(code_b, minlength=labels.size)
            ok = (counts[code_a] >= min_player_games) & (counts[code_b] >= min_player_games)
            if ok.all():
                break
            if not ok.any():
                raise ValueError(f"no player has at least min_player_games={min_player_games} games")
            out = out._take(ok)
        out.dropped = dict(self.dropped)
        return out

    def sorted_by_time(self) -> "GameLog":
        if self.time is None:
            raise ValueError("this game log has no time column")
        order = np.argsort(self.time, kind="stable")
        return GameLog(self.a[order], self.b[order], self.score[order], self.time[order], dict(self.dropped))

    def split_time(self, test_fraction: float = 0.1) -> tuple["GameLog", "GameLog"]:
        """(past, future): the earliest ``1 - test_fraction`` of the games, and the rest.

        ``test_fraction`` is a number strictly between 0 and 1 (not text, not a bool); anything else is a
        ``ValueError`` naming it."""
        f = test_fraction
        if isinstance(f, (bool, np.bool_)) or not isinstance(f, (int, float, np.integer, np.floating)) \
                or not 0.0 < float(f) < 1.0:
            raise ValueError(f"test_fraction must be a number in (0, 1), the share of the latest games held out; "
                             f"got {show(f)}")
        test_fraction = float(f)
        log = self.sorted_by_time()
        cut = int(round((1.0 - test_fraction) * len(log)))
        if cut in (0, len(log)):
            raise ValueError(f"test_fraction={test_fraction} of {len(log)} games leaves an empty part")
        idx = np.arange(len(log))
        return log._take(idx < cut), log._take(idx >= cut)

    def to_pairs(self, *, labels: Any = None, min_games: int = 1, weights: Optional[str] = None) -> PairwiseData:
        """Aggregate to :class:`PairwiseData` (``PairwiseData.from_games``)."""
        return PairwiseData.from_games(self.a, self.b, self.score, labels, min_games=min_games, weights=weights)

    def to_frame(self):
        pd = _pandas()
        cols = {"a": self.a, "b": self.b, "score": self.score}
        if self.time is not None:
            cols["time"] = self.time
        return pd.DataFrame(cols)


class _Progress:
    """A one-line progress counter on stderr (only on a terminal unless forced)."""

    def __init__(self, what: str, enabled: Optional[bool] = None, every: float = 0.5):
        self.what, self.every = what, every
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.count, self.t0, self.last = 0, _time.perf_counter(), 0.0

    def update(self, k: int = 1) -> None:
        self.count += k
        if self.enabled:
            now = _time.perf_counter()
            if now - self.last >= self.every:
                self.last = now
                rate = self.count / max(now - self.t0, 1e-9)
                print(f"\r{self.what}: {self.count:,} ({rate:,.0f}/s)", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.enabled:
            elapsed = _time.perf_counter() - self.t0
            print(f"\r{self.what}: {self.count:,} in {elapsed:.1f} s", file=sys.stderr, flush=True)


_TRUNCATED_CHOICES = ("raise", "keep")


def _check_truncated(truncated: Any) -> str:
    if not isinstance(truncated, str) or truncated not in _TRUNCATED_CHOICES:
        raise ValueError(f"truncated={show(truncated)} is not one of {_TRUNCATED_CHOICES}: 'raise' (the default) stops "
                         "at a truncated compressed file, 'keep' keeps the games read before the truncation")
    return truncated


def _truncation(path: str, games: int, last: str, where: str, truncated: str, exc: BaseException) -> None:
    """A truncated compressed file: a ``ValueError`` naming it and the last complete game, or with
    ``truncated="keep"`` a ``TruncatedFileWarning`` saying how many games are kept."""
    if truncated == "raise":
        raise ValueError(f"{path}: the compressed file is truncated ({exc}): it ends {where}, after {games} complete "
                         f"game{'s' if games != 1 else ''}{last}; truncated=\"keep\" (discrank fit --keep-truncated) "
                         "keeps the games read before the truncation") from None
    _warn(f"{path}: the compressed file is truncated: it ends {where}; kept the {games} complete "
          f"game{'s' if games != 1 else ''} read before the truncation{last}", TruncatedFileWarning)


def _pgn_headers(path: Any, progress: Optional[bool], truncated: str = "raise") -> Iterator[Any]:
    """The header block of every game of a PGN file, in file order (compressed files too). A truncated
    compressed file raises, or with ``truncated="keep"`` ends the games with a warning."""
    try:
        import chess.pgn
    except ImportError as exc:
        raise ImportError("reading PGN needs python-chess: pip install 'discrank[pgn]'") from exc
    path = os.fspath(path)
    opener: Any = open
    if path.endswith(".gz"):
        import gzip as opener  # type: ignore[no-redef]
    elif path.endswith(".bz2"):
        import bz2 as opener  # type: ignore[no-redef]
    elif path.endswith(".xz"):
        import lzma as opener  # type: ignore[no-redef]
    bar = _Progress(f"{os.path.basename(path)}: games read", progress)
    with (opener.open(path, "rt", encoding="utf-8", errors="replace") if opener is not open
          else open(path, encoding="utf-8", errors="replace")) as fh:
        last = None
        while True:
            try:
                headers = chess.pgn.read_headers(fh)
            except EOFError as exc:  # the decompressor met the end of the file before the end of the stream
                try:
                    where = f"at byte {fh.buffer.tell():,} of the decompressed text"
                except (OSError, ValueError, AttributeError):  # pragma: no cover - tell() of the decompressors
                    where = "early"
                named = "" if last is None else (f" (the last, game {bar.count - 1}: {show(last.get('White', '?'))} "
                                                 f"against {show(last.get('Black', '?'))})")
                bar.close()
                _truncation(path, bar.count, named, where, truncated, exc)
                return
            except (OSError, *_decompression_errors()) as exc:
                if opener is open:
                    raise
                raise ValueError(f"{path}: cannot be decompressed after {bar.count} games ({type(exc).__name__}: "
                                 f"{exc})") from None
            if headers is None:
                break
            last = headers
            bar.update()
            yield headers
    bar.close()


def _decompression_errors() -> tuple:
    """What the decompressors raise on corrupted data (besides OSError)."""
    import lzma
    import zlib

    return (zlib.error, lzma.LZMAError)


def _truncated_csv(pd: Any, path: Any, read_kw: dict, truncated: str, exc: BaseException) -> Any:
    """The frame of the complete lines of a truncated compressed CSV file (``truncated="keep"``, with a
    warning), or a ``ValueError`` naming the file, where its text ends and the last complete row."""
    import bz2
    import gzip
    import io
    import lzma

    where = os.fspath(path) if isinstance(path, (str, os.PathLike)) else repr(path)
    method = read_kw.get("compression", "infer")
    if isinstance(method, dict):
        method = method.get("method")
    if method == "infer":
        method = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}.get(os.path.splitext(where)[1].lower())
    opener = {"gzip": gzip, "bz2": bz2, "xz": lzma}.get(method) if isinstance(path, (str, os.PathLike)) else None
    if opener is None:
        raise ValueError(f"{where}: the compressed file is truncated ({exc}); truncated=\"keep\" reads .gz, .bz2 "
                         "and .xz files given by path") from None
    chunks = []
    with opener.open(path, "rb") as fh:
        try:
            while True:
                block = fh.read1(1 << 16)  # (read() would drop what it had decompressed when it meets the end)
                if not block:
                    break
                chunks.append(block)
        except EOFError:
            pass
    text = b"".join(chunks)
    complete = text[: text.rfind(b"\n") + 1]
    lines = complete.count(b"\n")
    kw = {k: v for k, v in read_kw.items() if k != "compression"}
    try:
        df = pd.read_csv(io.BytesIO(complete), **kw)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, ValueError):
        df = None
    rows = 0 if df is None else len(df)
    ends = f"its text ends at byte {len(text):,}, in line {lines + 1}"
    last = f"the last complete row is row {rows - 1}, on line {lines}" if rows else "no row is complete"
    if truncated == "raise":
        keep = f"keeps the {rows} complete rows before it" if rows else "keeps nothing here"
        raise ValueError(f"{where}: the compressed file is truncated ({exc}): {ends}; {last}; truncated=\"keep\" "
                         f"(discrank fit --keep-truncated) {keep}") from None
    if not rows:
        raise ValueError(f"{where}: the compressed file is truncated: {ends}, and no row is complete") from None
    _warn(f"{where}: the compressed file is truncated: {ends}; kept the {rows} complete rows read before the "
          f"truncation; {last}", TruncatedFileWarning)
    return df


def _check_scalar_column(pd: Any, col: Any, name: str, role: str, path: Any) -> None:
    """A ``ValueError`` when a column holds lists, arrays or structs (a Parquet list or struct column)
    instead of one value per game, naming the column and its type."""
    dtype = col.dtype
    nested = None
    arrow = getattr(dtype, "pyarrow_dtype", None)
    if arrow is not None:
        import pyarrow as pa

        if pa.types.is_nested(arrow):
            nested = (0, None, str(arrow))
    elif dtype == object and pd.api.types.infer_dtype(col, skipna=True) == "mixed":
        for k, v in enumerate(col.tolist()):
            if isinstance(v, (list, tuple, dict, set, np.ndarray)):
                nested = (k, v, type(v).__name__)
                break
    if nested is None:
        return
    k, v, kind = nested
    try:  # the column's type in the file, when pyarrow can read the schema
        import pyarrow.parquet as pq

        kind = str(pq.read_schema(path).field(name).type)
    except Exception:  # noqa: BLE001 - the Python type of the value is named instead
        pass
    value = "" if v is None else f" (row {k}: {show(v.tolist() if isinstance(v, np.ndarray) else v)})"
    raise ValueError(f"{path}: column {name!r} (for {role}) has the type {kind}: it holds lists or records{value}, "
                     "not one value per game")


def _pgn_game(headers: Any) -> tuple[str, str, str, Optional[str], int]:
    """(white, black, result, date or None, kind): kind 0 for a finished game of two named players."""
    result = headers.get("Result", "*").strip()
    white, black = headers.get("White", "").strip(), headers.get("Black", "").strip()
    date = headers.get("UTCDate") or headers.get("Date")
    if date and "?" in date:
        date = None
    if not white or not black or white == "?" or black == "?":
        kind = _MISSING_NAME
    elif result in ("*", ""):
        kind = _UNFINISHED
    elif result not in PGN_RESULTS:
        kind = _BAD_RESULT
    elif white == black:
        kind = _SELF_PLAY
    else:
        kind = 0
    return white, black, result, date, kind


def iter_pgn(path: Any, *, progress: Optional[bool] = None,
             truncated: str = "raise") -> Iterator[tuple[str, str, float, Optional[str]]]:
    """Stream (white, black, score of white, date or None) from a PGN file, one game at a time.

    Reads headers only (``chess.pgn.read_headers``), never the whole file; unfinished games ("*"), games
    with a result that is not one of ``PGN_RESULTS`` and games without both player names are skipped.
    ``.pgn.gz``, ``.pgn.bz2`` and ``.pgn.xz`` are read compressed. Needs python-chess
    (``pip install 'discrank[pgn]'``).

    Parameters
    ----------
    path : str or path-like
        The PGN file.
    progress : bool, optional
        A games-read counter on stderr (default: when stderr is a terminal).
    truncated : {"raise", "keep"}
        A compressed file that ends before its end-of-stream marker (a download cut short): ``"raise"``
        (default) a ``ValueError`` naming the file, where the text ends and the last complete game;
        ``"keep"`` the games read before the truncation, with a ``TruncatedFileWarning`` saying how many.

    Yields
    ------
    tuple of (str, str, float, str or None)
        White, Black, White's score, and the UTCDate (else Date) tag. A game of a player against themself
        is yielded as it is (:func:`read_pgn` refuses it, or drops and reports it).
    """
    for headers in _pgn_headers(path, progress, _check_truncated(truncated)):
        white, black, result, date, kind = _pgn_game(headers)
        if kind in (0, _SELF_PLAY):
            yield white, black, PGN_RESULTS[result], date


def _pgn_dates(dates: list) -> np.ndarray:
    """Dates ("2024.03.01") as datetime64[D], NaT where missing or not a date."""
    text = [d.replace(".", "-") if d else "NaT" for d in dates]
    try:
        return np.array(text, dtype="datetime64[D]")
    except (ValueError, TypeError, OverflowError):
        out = np.empty(len(text), dtype="datetime64[D]")
        for k, d in enumerate(text):
            try:
                out[k] = np.datetime64(d, "D")
            except (ValueError, TypeError, OverflowError):
                out[k] = np.datetime64("NaT")
        return out


def read_pgn(path: Any, *, progress: Optional[bool] = None, max_games: Optional[int] = None, start: Any = None,
             end: Any = None, min_player_games: int = 1, invalid: str = "raise", truncated: str = "raise") -> GameLog:
    """A PGN file (Lichess's format) as a :class:`GameLog`, streamed game by game.

    The players are the White and Black tags, the score White's ("1-0" 1, "1/2-1/2" 0.5, "0-1" 0), the
    time the UTCDate (else Date) tag when every kept game has one. Only the four columns are kept in
    memory (about 100 bytes a game), never the moves. Games are numbered from 0 in file order, every
    game counted.

    Unfinished games (Result "*"), games with a result that is not a PGN result, and games without both
    player names (a missing, empty or "?" White or Black tag) are skipped, and counted in the report when
    ``invalid="drop"``. A game of a player against themself, or whose date tag is not a date (say
    "2024.13.45" or "hello"; a date with "??" parts is no date, not an invalid one), is an error naming
    the file, the game and the value (``invalid="raise"``), or dropped and reported (``invalid="drop"``).

    Parameters
    ----------
    path : str or path-like
        The PGN file; ``.pgn.gz``, ``.pgn.bz2`` and ``.pgn.xz`` are read compressed.
    progress : bool, optional
        A games-read counter on stderr (default: when stderr is a terminal).
    max_games : int, optional
        Stop reading after this many finished games of two different named players (counted before
        ``start`` / ``end``).
    start, end : optional
        Keep the games with ``start <= date < end`` (dates such as "2024-03-01"), before the checks: a game
        outside is never checked; a game without a readable date is then invalid.
    min_player_games : int
        Keep the players with at least this many valid games (after ``start`` / ``end``); an invalid game
        of a player who does not survive is filtered out, not raised on or reported.
    invalid : {"raise", "drop"}
        ``"raise"`` (default): a ``ValueError`` naming the file and the first game of a player against
        themself or with a date that is not one (its number and the player or the date). ``"drop"``: drop
        such games, warn once with an
        :class:`~discrank.exceptions.InvalidRowsWarning` that gives the count of each kind (skipped games
        included) and the first game numbers, and keep the counts in :attr:`GameLog.dropped`.
    truncated : {"raise", "keep"}
        A compressed file that ends before its end-of-stream marker (a download cut short): ``"raise"``
        (default) a ``ValueError`` naming the file, where its text ends and the last complete game;
        ``"keep"`` keeps the games read before the truncation, with a ``TruncatedFileWarning`` saying how many.

    Returns
    -------
    GameLog

    Raises
    ------
    ValueError
        No finished game with two named players, a game of a player against themself or with a bad date
        (``invalid="raise"``), a truncated (``truncated="raise"``) or corrupted compressed file, no game
        left after the filters, or an unknown ``invalid`` or ``truncated``.
    ImportError
        python-chess is not installed.
    """
    invalid = _check_invalid(invalid)
    min_player_games = _check_min_player_games(min_player_games)
    truncated = _check_truncated(truncated)
    white: list[str] = []
    black: list[str] = []
    score: list[float] = []
    dates: list[Optional[str]] = []
    kinds = bytearray()
    results: dict[int, str] = {}  # the results of the games whose result is not a PGN result
    finished = 0
    for headers in _pgn_headers(path, progress, truncated):
        w, b, result, d, kind = _pgn_game(headers)
        if kind == _BAD_RESULT:
            results[len(kinds)] = result
        white.append(w), black.append(b), dates.append(d), kinds.append(kind)
        score.append(PGN_RESULTS.get(result, np.nan))
        finished += kind == 0
        if max_games is not None and finished >= max_games:
            break
    kind_arr = np.frombuffer(bytes(kinds), dtype=np.int8).copy()
    if not np.isin(kind_arr, (0, _SELF_PLAY)).any():
        raise ValueError(f"{os.fspath(path)}: no finished game with two named players")
    W, B = text_array(white), text_array(black)  # object arrays: memory grows with the names' total length
    miss_w = np.isin(W, ("", "?"))
    miss_b = np.isin(B, ("", "?"))
    t = _pgn_dates(dates)
    t_missing = np.array([d is None for d in dates], dtype=bool)
    t_invalid = np.isnat(t)
    windowed = start is not None or end is not None
    if windowed:
        kind_arr[(kind_arr == 0) & t_missing] = _MISSING_TIME
    kind_arr[(kind_arr == 0) & t_invalid & ~t_missing] = _BAD_TIME  # a date tag that is not a date, in any case

    def explain(k: int) -> str:
        code = kind_arr[k]
        if code == _SELF_PLAY:
            return f"game {k} is player {show(white[k])} against themself"
        if code == _MISSING_NAME:
            return f"game {k} lacks a player name (White {show(white[k])}, Black {show(black[k])})"
        if code == _UNFINISHED:
            return f"game {k} is unfinished (Result '*')"
        if code == _BAD_RESULT:
            return f"game {k} has the result {results[k]!r}, not one of {sorted(PGN_RESULTS)}"
        if code == _MISSING_TIME:
            return f"game {k} has no date (UTCDate or Date tag) to compare with start / end"
        return f"game {k} has the date {show(dates[k])}, which is not a date (YYYY.MM.DD)"

    idx, dropped = _screen(kind_arr, W, B, miss_w, miss_b, t if windowed else None, t_invalid if windowed else None,
                           start=start, end=end, min_player_games=min_player_games, invalid=invalid,
                           explain=lambda k: f"{os.fspath(path)}: {explain(k)}", unit="game",
                           skip=(_MISSING_NAME, _UNFINISHED, _BAD_RESULT))
    time = t[idx]
    if np.isnat(time).any():
        time = None
    log = GameLog.from_arrays(W[idx], B[idx], np.array(score)[idx], time)
    log.dropped = dropped
    return log
