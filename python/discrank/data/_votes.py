"""The votes of arena logs, shared by :func:`discrank.read_arena`, :func:`discrank.scan_games` and
:func:`discrank.dask.aggregate`: the ties in which both answers were bad, and how ties count, in a log or in a
chunk of its games (the policies of :func:`discrank.data.arena.apply_ties`).

The winner column is read by the readers' own rule (:func:`discrank.data._rows.read_frame_rows`); a winner that
is also the name of one of the vote's models (a model called "model_b", or "tie") reads two ways, and
:func:`check_winner_sides` refuses it.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.checks import check_choice
from discrank.data._rows import winner_clashes, winner_keyword as row_keyword

__all__ = ["BOTH_BAD", "PAIR_TIES", "both_bad", "check_bothbad", "check_ties", "check_winner_sides", "tie_games",
           "tie_rows", "vote_frame", "winner_keyword"]

#: The ties policies of :func:`discrank.data.arena.apply_ties` that games summed to pairs take ("davidson" needs
#: each pair's draws, which pairs do not keep).
PAIR_TIES = ("half", "ignore", "one-win-each")
#: The winner values that mark a tie in which both answers were bad.
BOTH_BAD = ("tie (bothbad)", "both_bad", "bothbad")


def both_bad(frame: Any, winner: str = "winner") -> np.ndarray:
    """Which votes of an arena frame are ties in which both answers were bad (:data:`BOTH_BAD`)."""
    col = frame[winner]
    return col.astype("string").str.strip().str.lower().isin(BOTH_BAD).to_numpy(dtype=bool, na_value=False)


def check_ties(ties: Any, draws_kept: bool) -> str:
    """``ties``, one of :data:`PAIR_TIES` (or "davidson" where the result keeps the draws); a ValueError
    names another value."""
    choices = PAIR_TIES + ("davidson",) if draws_kept else PAIR_TIES
    hint = ("; 'davidson' needs the draws of each pair, which pairs summed from the games do not keep (with "
            "period=, scan_games keeps them)" if ties == "davidson" else "")
    return check_choice(ties, "ties", choices, "a tie is half a win for each side, dropped, or two games won one "
                        "by each side" + hint)


def check_bothbad(bothbad: Any, winner: Optional[str]) -> str:
    """``bothbad``, "tie" or "ignore"; "ignore" needs the winner column that marks them (``winner``)."""
    check_choice(bothbad, "bothbad", ("tie", "ignore"), "the ties in which both answers were bad count as ties, or "
                 "are dropped")
    if bothbad == "ignore" and winner is None:
        raise ValueError("bothbad='ignore' drops the votes whose winner is one of "
                         f"{BOTH_BAD}: it needs the winner column (winner=...), not score=")
    return bothbad


def winner_keyword(value: Any, sides: tuple) -> Optional[float]:
    """What a vote's winner value means as a keyword (:func:`discrank.data._rows.winner_keyword`, a both-bad tie of
    :data:`BOTH_BAD` among the ties): 1 for the column of ``a``, 0 for that of ``b``, 0.5 for a tie; None for
    anything else (a model's name)."""
    return row_keyword(value, sides, BOTH_BAD)


def check_winner_sides(df: Any, a: str, b: str, winner: str, row0: Any = 0) -> None:
    """Refuse votes whose winner is the name of one of the vote's models and also a keyword of another meaning
    (:func:`winner_keyword`): a model named "model_b" in column ``model_a``, or a model named "tie". The
    ValueError names the models, the first such vote (row ``row0`` plus its position, or ``row0[k]`` for an
    array) and their count. Votes where both readings agree pass."""
    if winner not in df.columns or a not in df.columns or b not in df.columns:
        return  # (a missing column: the reader names it)
    import pandas as pd

    w = df[winner]
    if w.dtype.kind in "iufbM" or len(df) == 0:
        return  # no keyword is a number
    sides = (a, b)
    # only a model named like a keyword can clash: the few distinct names first (a hash pass, no row compared)
    suspects = [v for v in pd.unique(pd.concat([df[a], df[b]], ignore_index=True))
                if winner_keyword(v, sides) is not None]
    if not suspects:
        return
    rows = np.flatnonzero(w.isin(suspects).to_numpy(dtype=bool))
    wv = w.to_numpy(dtype=object)
    col_a, col_b = df[a].to_numpy(dtype=object), df[b].to_numpy(dtype=object)
    is_a = np.zeros(len(df), dtype=bool)
    is_b = np.zeros(len(df), dtype=bool)
    is_a[rows] = np.asarray(wv[rows] == col_a[rows], dtype=bool)
    is_b[rows] = np.asarray(wv[rows] == col_b[rows], dtype=bool)
    clash = winner_clashes(wv, is_a, is_b, sides, BOTH_BAD)  # (the readers read a's name first)
    if clash.size == 0:
        return
    k = int(clash[0])
    row = int(row0[k]) if isinstance(row0, np.ndarray) else int(row0) + k
    models = sorted({str(v) for v in wv[clash].tolist()})
    key = winner_keyword(wv[k], (a, b))
    said = {1.0: f"a win of the model in column {a!r}", 0.0: f"a win of the model in column {b!r}", 0.5: "a tie"}[key]
    side = a if is_a[k] else b
    raise ValueError(
        f"winner column {winner!r} is ambiguous: the model{'s' if len(models) > 1 else ''} "
        f"{', '.join(repr(m) for m in models[:5])} {'are' if len(models) > 1 else 'is'} named like a winner value; "
        f"row {row} ({col_a[k]!r} against {col_b[k]!r}, winner {wv[k]!r}) reads as a win of the model named "
        f"{wv[k]!r} (in column {side!r}), or as {said} ({clash.size} such vote{'s' if clash.size > 1 else ''}); "
        f"rename the model so that no model is named {a!r}, {b!r} or a tie marker")


def vote_frame(df: Any, winner: Optional[str], bothbad: str, row0: int = 0) -> tuple[Any, Any]:
    """The votes of a frame that ``bothbad`` keeps (all with "tie"; "ignore" drops those of :data:`BOTH_BAD`),
    and the number of each in the file: ``row0`` (the first's, when none is dropped) or an array (row ``k`` of
    the frame read at ``row0``'s ``k``-th), as :func:`discrank.data._rows.read_frame_rows` takes them."""
    if bothbad != "ignore" or winner not in df.columns:  # (a missing column: the reader names it)
        return df, row0
    keep = ~both_bad(df, winner)
    if keep.all():
        return df, row0
    return df.loc[keep].reset_index(drop=True), row0 + np.flatnonzero(keep)


def tie_rows(score: np.ndarray, ties: str) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """The games that the policy ``ties`` makes of games scored ``score`` (a tie scores 0.5): the rows to
    take, in order, and their scores; None when they are the games as they are ("half", "davidson", or
    "ignore" without a tie). "one-win-each": every vote taken twice, a decisive one as two wins for its winner,
    a tie as one win for each side (the first copy won by the first player)."""
    score = np.asarray(score, dtype=np.float64)
    tie = score == 0.5
    if ties in ("half", "davidson") or (ties == "ignore" and not tie.any()):
        return None
    if ties == "ignore":
        rows = np.flatnonzero(~tie)
        return rows, score[rows]
    rows = np.repeat(np.arange(score.size), 2)
    out = score[rows]
    out[0::2][tie] = 1.0
    out[1::2][tie] = 0.0
    return rows, out


def tie_games(ties: str, score: np.ndarray, *columns: Optional[np.ndarray]) -> tuple:
    """Games (``score`` and the games' other ``columns``: players, times, covariates; None stays None) with
    their ties counted by the policy ``ties`` (:func:`tie_rows`): ``(score, *columns)``."""
    got = tie_rows(score, ties)
    if got is None:
        return (score, *columns)
    rows, out = got
    return (out, *(None if c is None else c[rows] for c in columns))
