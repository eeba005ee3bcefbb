"""Readers of the logs people have, by stated rules: tennis matches with their score strings (Jeff Sackmann's ATP
and WTA files) and football results with their goals (the international results' file), as GameLogs with the
margins, contexts, match formats and home columns that :class:`~discrank.DynamicElo` fits.

**Tennis** (:func:`read_tennis`, :func:`tennis_games`). A score is a list of sets, ``"6-4 3-6 7-6(5)"``, each
``w-l`` the games won by the match's winner and loser (a tiebreak's points in parentheses are not games); a match
tiebreak in brackets, ``"[10-8]"``, counts as one game to its winner. The margins are the games won by each side.

- A match that ended early (``RET``, ``DEF``, ``ABD``: a retirement, a default, an abandonment) keeps its recorded
  result and the games played until then (``ended_early="drop"`` drops it instead).
- A walkover (``W/O``) was not played: it is no game, and is dropped and counted in ``GameLog.dropped``.
- A score that is none of these (``"6-36-3"``, ``"UNK"``, a missing score) is an invalid row (named with its row
  and line, or dropped and counted with ``invalid="drop"``).

**Football** (:func:`read_football`). Each match's goals give its result (1, 0.5 or 0 for the home side) and its
margin; ``neutral`` makes the ``home`` covariate 0, else 1. Goals that are missing (not played yet), negative or
not whole numbers are an invalid row.
"""

from __future__ import annotations

import os
import re
from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank.data._rows import LINE_SHIFTS, pandas_module
from discrank.data._screen import MAX_INVALID, check_invalid, check_max_invalid, refuse_mostly_invalid

__all__ = ["read_tennis", "read_football", "tennis_games", "ENDED_EARLY", "NOT_PLAYED"]

#: The marks of a tennis match that ended early: its result stands, with the games played.
ENDED_EARLY = ("RET", "RET.", "Ret.", "Ret", "Retired", "rtd.", "DEF", "Def.", "Def", "ABD", "ABN", "Abandoned",
               "abandoned")
#: The marks of a match that was not played (a walkover): no game.
NOT_PLAYED = ("W/O", "w/o", "W/O.", "Walkover", "walkover", "WO")
#: :func:`tennis_games`' status of each score.
PLAYED, EARLY, WALKOVER, UNREADABLE = 0, 1, 2, 3
_SET = re.compile(r"(\d+)-(\d+)(?:\(\d+\))?")
_MATCH_TIEBREAK = re.compile(r"\[(\d+)-(\d+)\]")


def _one_score(text: Any) -> tuple[int, int, int]:
    """(games of the winner, games of the loser, status) of one score string."""
    if not isinstance(text, str) or not text.strip():
        return 0, 0, UNREADABLE
    tokens = text.split()
    if any(t in NOT_PLAYED for t in tokens):
        return 0, 0, WALKOVER
    won = lost = 0
    status = PLAYED
    for k, token in enumerate(tokens):
        if token in ENDED_EARLY and k == len(tokens) - 1:
            status = EARLY
        elif (m := _SET.fullmatch(token)) is not None:
            won, lost = won + int(m[1]), lost + int(m[2])
        elif (m := _MATCH_TIEBREAK.fullmatch(token)) is not None:
            won, lost = won + (int(m[1]) > int(m[2])), lost + (int(m[1]) < int(m[2]))
        else:
            return 0, 0, UNREADABLE
    return won, lost, status


def tennis_games(scores: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(games won by the winner, games won by the loser, status) of each tennis score (the module's rules): status
    :data:`PLAYED`, :data:`EARLY` (the games played), :data:`WALKOVER` or :data:`UNREADABLE` (games 0)."""
    values = np.asarray(scores, dtype=object)
    distinct, inverse = np.unique(values.astype(str), return_inverse=True)
    read = np.array([_one_score(v) for v in distinct.tolist()], dtype=np.int64).reshape(-1, 3)
    missing = np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in values.tolist()], dtype=bool)
    out = read[inverse.reshape(-1)]
    out[missing] = (0, 0, UNREADABLE)
    return out[:, 0], out[:, 1], out[:, 2]


def _frame(source: Any, read_kw: dict) -> tuple[Any, Optional[int]]:
    """(the rows of ``source``, the file's line of row 0 or None): a pandas DataFrame as it is, or a CSV file
    (compressed too) read with ``read_kw``."""
    pd = pandas_module()
    if isinstance(source, pd.DataFrame):
        return source.reset_index(drop=True), None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"expected a pandas DataFrame or a CSV file's path, got {type(source).__name__}")
    line0 = None if LINE_SHIFTS & set(read_kw) else 2
    return pd.read_csv(source, **{"low_memory": False, **read_kw}), line0


def _screened(df: Any, bad: np.ndarray, kind: str, values: Any, line0: Optional[int], invalid: str,
              max_invalid: float, dropped: dict) -> Any:
    """``df`` less its rows ``bad`` of ``kind``: an error naming the first (row, line, value) with
    ``invalid="raise"``; else dropped and counted in ``dropped``, unless more than ``max_invalid`` of the rows."""
    if not bad.any():
        return df
    k = int(np.flatnonzero(bad)[0])
    r = int(df["_row"].iloc[k])  # the row's number in the source
    where = f"row {r}" + ("" if line0 is None else f" (line {r + line0} of the file)")
    if invalid == "raise":
        raise ValueError(f"{where}: {kind} {show(values[k])}; invalid=\"drop\" (discrank fit --drop-invalid) drops "
                         "and counts such rows")
    refuse_mostly_invalid(int(bad.sum()), bad.size, {kind: int(bad.sum())}, max_invalid)
    dropped[kind] = int(bad.sum())
    return df[~bad].reset_index(drop=True)


def read_tennis(source: Any, *, winner: str = "winner_name", loser: str = "loser_name", score: str = "score",
                time: Optional[str] = "tourney_date", surface: Optional[str] = "surface",
                best_of: Optional[str] = "best_of", ended_early: str = "keep", invalid: str = "raise",
                max_invalid: float = MAX_INVALID, start: Any = None, end: Any = None, **read_kw: Any) -> Any:
    """A tennis log as a :class:`~discrank.GameLog`: each match with its winner as ``a`` (score 1), the games won
    by each side as its margin, its surface as its context and ``"bo3"`` / ``"bo5"`` as its match format.

    Parameters
    ----------
    source : pandas.DataFrame, str or path-like
        The matches: a frame, or a CSV file (compressed too; Sackmann's ``atp_matches_*.csv``).
    winner, loser, score, time, surface, best_of : str
        The columns (Sackmann's by default). ``time`` as dates or ``YYYYMMDD`` numbers (read as dates);
        ``surface`` and ``best_of`` None to leave them out.
    ended_early : {"keep", "drop"}
        A match that ended early (:data:`ENDED_EARLY`): kept with its result and the games played, or dropped.
    invalid, max_invalid, start, end
        As :meth:`discrank.GameLog.from_frame`'s: an unreadable score is an invalid row.
    **read_kw
        Passed to ``pandas.read_csv``.

    Returns
    -------
    GameLog
        Winner first (``GameLog.shuffle_sides(seed)`` randomises the sides). ``dropped`` counts the walkovers,
        the matches ended early that were dropped and the invalid rows.

    Raises
    ------
    ValueError
        An unreadable score (``invalid="raise"``), a column that is not there, an ``ended_early`` other than
        "keep" or "drop", and the errors of :meth:`~discrank.GameLog.from_frame`.
    """
    if ended_early not in ("keep", "drop"):
        raise ValueError(f"ended_early={show(ended_early)} is not one of ('keep', 'drop')")
    invalid, max_invalid = check_invalid(invalid), check_max_invalid(max_invalid)
    df, line0 = _frame(source, read_kw)
    columns = [c for c in (winner, loser, score, time, surface, best_of) if c is not None]
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"column {missing[0]!r} is not in the matches; their columns are {list(df.columns)}")
    df = _window(df[columns].assign(_row=np.arange(len(df))), time, start, end)
    won, lost, status = tennis_games(df[score].to_numpy())
    df["_won"], df["_lost"], df["_status"] = won, lost, status
    dropped: dict = {}
    gone = status == WALKOVER
    if gone.any():
        dropped["walkover (not played)"] = int(gone.sum())
    if ended_early == "drop" and (status == EARLY).any():
        dropped["ended early"] = int((status == EARLY).sum())
        gone |= status == EARLY
    df = df[~gone].reset_index(drop=True)
    df = _screened(df, df["_status"].to_numpy() == UNREADABLE, "an unreadable score", df[score].to_numpy(), line0,
                   invalid, max_invalid, dropped)
    # keyed by the source's columns, so that the log's checks name them
    won, lost = f"{score} (games of the winner)", f"{score} (games of the loser)"
    frame = {winner: df[winner], loser: df[loser], score: np.ones(len(df)), won: df["_won"], lost: df["_lost"]}
    if time is not None:
        frame[time] = _dates(df[time])
    if surface is not None:
        frame[surface] = df[surface]
    if best_of is not None:
        number = pandas_module().to_numeric(df[best_of], errors="coerce")  # (a label already, "bo5": kept)
        whole = number.notna() & (number % 1 == 0)
        frame[best_of] = df[best_of].where(~whole, "bo" + number.where(whole, 0).astype("int64").astype(str))
    return _log(frame, df["_row"].to_numpy(), line0, dropped, invalid, max_invalid, start, end, a=winner, b=loser,
                score=score, margin=(won, lost), context=surface, match_format=best_of, time=time)


def _window(df: Any, time: Optional[str], start: Any, end: Any) -> Any:
    """The rows of ``df`` in the window ``[start, end)`` of its ``time`` column (a row without a readable time kept
    for the log's checks): rows outside are never checked, nor counted."""
    if time is None or (start is None and end is None):
        return df
    from discrank.data._screen import time_bound

    t = _dates(df[time])
    t = (pandas_module().to_datetime(t, errors="coerce") if t.dtype.kind in "OMm" else t).to_numpy()
    keep = np.ones(len(df), dtype=bool)
    known = ~pandas_module().isna(t)
    for bound, name, inside in ((start, "start", np.greater_equal), (end, "end", np.less)):
        if bound is not None and known.any():
            keep &= ~known | inside(t, time_bound(bound, t[known], name))
    return df[keep].reset_index(drop=True)


def _dates(column: Any) -> Any:
    """Dates as they are, or ``YYYYMMDD`` numbers read as dates; a number of another form (2024011) is no date (a
    missing time, which the row's check names)."""
    pd = pandas_module()
    if column.dtype.kind not in "iuf":
        return column
    whole = column.between(10000101, 99991231) & (column % 1 == 0)
    text = column.where(whole, 10000101).astype("int64").astype(str)
    return pd.to_datetime(text, format="%Y%m%d", errors="coerce").where(whole, None)


def _log(frame: dict, rows: np.ndarray, line0: Optional[int], dropped: dict, invalid: str, max_invalid: float,
         start: Any, end: Any, **columns: Any) -> Any:
    """The GameLog of the columns ``frame`` (:meth:`~discrank.GameLog.from_frame`'s checks; ``rows``: each row's
    number in the source, ``line0`` the file's line of row 0, for the messages), its ``dropped`` with the
    reader's counts."""
    from discrank.data._rows import LINE0, read_frame_rows
    from discrank.data.logs import GameLog

    df = pandas_module().DataFrame(frame)
    if line0 is not None:
        df.attrs[LINE0] = line0
    got = read_frame_rows(df, invalid=invalid, max_invalid=max_invalid, start=start, end=end,
                          row0=np.asarray(rows, dtype=np.int64), **columns)
    return GameLog.from_rows(got, dropped)


def read_football(source: Any, *, home: str = "home_team", away: str = "away_team", home_goals: str = "home_score",
                  away_goals: str = "away_score", time: Optional[str] = "date", neutral: Optional[str] = "neutral",
                  context: Optional[str] = None, invalid: str = "raise", max_invalid: float = MAX_INVALID,
                  start: Any = None, end: Any = None, **read_kw: Any) -> Any:
    """A football log as a :class:`~discrank.GameLog`: each match with the home side as ``a``, its result from the
    goals (1, 0.5, 0), the goals as its margin, and the advantage column ``home`` (0 at a neutral venue, else 1).

    Parameters
    ----------
    source : pandas.DataFrame, str or path-like
        The matches: a frame, or a CSV file (compressed too; the international results' ``results.csv``).
    home, away, home_goals, away_goals, time, neutral : str
        The columns (that file's by default); ``neutral`` holds TRUE / FALSE (or 1 / 0), None for none (every
        match at home).
    context : str, optional
        A column to take as each match's context (``"tournament"``).
    invalid, max_invalid, start, end
        As :meth:`discrank.GameLog.from_frame`'s: goals that are missing, negative or not whole make an invalid row.
    **read_kw
        Passed to ``pandas.read_csv``.

    Returns
    -------
    GameLog

    Raises
    ------
    ValueError
        Goals that are negative or not whole (``invalid="raise"``), a neutral value that is not true or false, a
        column that is not there, and the errors of :meth:`~discrank.GameLog.from_frame`.
    """
    pd = pandas_module()
    invalid, max_invalid = check_invalid(invalid), check_max_invalid(max_invalid)
    df, line0 = _frame(source, read_kw)
    columns = [c for c in (home, away, home_goals, away_goals, time, neutral, context) if c is not None]
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"column {missing[0]!r} is not in the matches; their columns are {list(df.columns)}")
    df = _window(df.assign(_row=np.arange(len(df))), time, start, end)
    goals = [pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=np.float64) for c in (home_goals, away_goals)]
    raw = df[home_goals].astype(str) + "-" + df[away_goals].astype(str)
    dropped: dict = {}
    bad = np.zeros(len(df), dtype=bool)
    for g, col in zip(goals, (home_goals, away_goals)):
        given = df[col].notna().to_numpy() & (df[col].astype(str).str.strip() != "").to_numpy()
        bad |= given & ~((g >= 0) & (g == np.floor(g)))  # a value given that is no count of goals
    position = df.assign(_at=np.arange(len(df)))
    df = _screened(position, bad, "goals that are not a count (a whole number >= 0)", raw.to_numpy(), line0, invalid,
                   max_invalid, dropped)
    goals = [g[df["_at"].to_numpy()] for g in goals]
    h, a = goals
    result = np.where(np.isnan(h) | np.isnan(a), np.nan, np.sign(h - a) * 0.5 + 0.5)
    result_of = f"{home_goals}/{away_goals}"  # (the frame keyed by the source's columns: the checks name them)
    frame = {home: df[home], away: df[away], result_of: result, home_goals: h, away_goals: a}
    if time is not None:
        frame[time] = df[time]
    at_home = np.ones(len(df))
    if neutral is not None:
        at_home = 1.0 - _truth(df[neutral], neutral, line0, df["_row"].to_numpy())
    frame["home"] = at_home
    if context is not None:
        frame[context] = df[context]
    return _log(frame, df["_row"].to_numpy(), line0, dropped, invalid, max_invalid, start, end, a=home, b=away,
                score=result_of, margin=(home_goals, away_goals), advantage=["home"], context=context, time=time)


def _truth(column: Any, name: str, line0: Optional[int], rows: np.ndarray) -> np.ndarray:
    """A column of true / false values (TRUE, False, 1, 0, yes, no) as 1.0 / 0.0; a ValueError names another, with
    its row in the source (``rows``) and line."""
    words = {"true": 1.0, "false": 0.0, "1": 1.0, "0": 0.0, "yes": 1.0, "no": 0.0, "1.0": 1.0, "0.0": 0.0}
    text = column.astype(str).str.strip().str.lower()
    values = text.map(words)
    if values.isna().any():
        k = int(np.flatnonzero(values.isna().to_numpy())[0])
        r = int(rows[k])
        where = f"row {r}" + ("" if line0 is None else f" (line {r + line0} of the file)")
        raise ValueError(f"{where}: {name} = {show(column.iloc[k])} is neither true nor false")
    return values.to_numpy(dtype=np.float64)
