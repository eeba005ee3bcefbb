"""Arena logs: pairwise votes between models or agents (Chatbot Arena and its copies, agent leagues).

Their files hold ``model_a, model_b, winner`` with ``winner`` in {"model_a", "model_b", "tie", "tie
(bothbad)"}; the readers take them as they are (``GameLog.read_csv(path, a="model_a", b="model_b",
winner="winner")``: a winner that names a player's column names that side, and both ties are draws, score
0.5). :func:`apply_ties` then sets how the ties count (:data:`TIES`); :func:`read_arena` does both, from a
CSV, Parquet or JSON-lines file or a frame.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

__all__ = ["TIES", "apply_ties", "read_arena"]

#: The ties policies of :func:`apply_ties`.
TIES = ("half", "davidson", "ignore", "one-win-each")


def apply_ties(log: Any, ties: str = "half") -> Any:
    """The games of an arena log with its ties counted by the policy ``ties``.

    Parameters
    ----------
    log : GameLog
        The votes; a tie is a game scored 0.5.
    ties : {"half", "davidson", "ignore", "one-win-each"}, default "half"
        - "half": a tie is half a win for each side (the log as it is; Bradley-Terry's bce on the score);
        - "davidson": the log as it is, for a draw model to fit the ties (``Elo(draws="davidson")``):
          the ties then have their own probability instead of counting as half a win;
        - "ignore": the ties are dropped (only decisive votes are rated);
        - "one-win-each": FastChat's leaderboard rule: a tie is two games, one won by each side (the tie
          weighs as two decisive votes, where "half" weighs it as one).

    Returns
    -------
    GameLog
        ``log`` itself for "half" and "davidson"; otherwise a new log (times and advantage columns kept
        with their games; each tie's two games of "one-win-each" at the tie's place, ``a``'s win first).

    Raises
    ------
    ValueError
        ``ties`` not one of :data:`TIES`, a log whose every vote is a tie with "ignore" (no game left).
    TypeError
        ``log`` is not a GameLog.
    """
    from discrank.logs import GameLog

    if not isinstance(log, GameLog):
        raise TypeError(f"apply_ties expects a discrank.GameLog, got {type(log).__name__}")
    if not isinstance(ties, str) or ties not in TIES:
        raise ValueError(f"ties={ties!r} is not one of {TIES}")
    tie = np.asarray(log.score) == 0.5
    if ties in ("half", "davidson") or not tie.any():
        return log
    if ties == "ignore":
        if tie.all():
            raise ValueError(f"ties='ignore': every one of the {len(log)} votes is a tie, so no game is left")
        return log._take(~tie, log.dropped)
    # one-win-each: each game once, each tie twice (its first copy won by a, its second by b)
    rows = np.repeat(np.arange(len(log)), np.where(tie, 2, 1))
    second = np.zeros(rows.size, dtype=bool)
    second[1:] = rows[1:] == rows[:-1]
    out = log._take(rows, log.dropped)
    score = np.asarray(out.score, dtype=np.float64).copy()
    first = tie[rows] & ~second
    score[first], score[second] = 1.0, 0.0
    out.score = score
    return out


#: The file suffixes :func:`read_arena` reads, by format (a compression suffix after them is read too).
FORMATS = {"csv": (".csv",), "parquet": (".parquet", ".pq"), "jsonl": (".jsonl", ".ndjson", ".json")}
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")


def _format(path: Any) -> str:
    """The format of ``path`` by its suffix (a compression suffix after it allowed); a ValueError names it."""
    from discrank._scan_files import format_of

    fmt = format_of(os.fspath(path), FORMATS, _COMPRESSED)
    if fmt is not None:
        return fmt
    raise ValueError(f"{os.fspath(path)!r}: not a file read_arena reads (suffixes "
                     f"{sorted(s for v in FORMATS.values() for s in v)}, optionally compressed {_COMPRESSED})")


def read_arena(source: Any, *, model_a: str = "model_a", model_b: str = "model_b", winner: str = "winner",
               ties: str = "half", time: Optional[str] = None, style: Any = None, invalid: str = "raise",
               **options: Any) -> Any:
    """An arena log (pairwise votes) as a :class:`~discrank.GameLog`, its ties counted by ``ties``.

    Parameters
    ----------
    source : str, path-like or pandas.DataFrame
        A CSV (``.csv``), Parquet (``.parquet``) or JSON-lines (``.jsonl``, ``.ndjson``,
        ``.json``: one vote per line) file, compressed or not; or a frame of the votes.
    model_a, model_b, winner : str
        The columns: the two models, and the winner ("model_a", "model_b", "tie", "tie (bothbad)": the
        name of the winner's column or a draw marker, or the winning model's name).
    ties : {"half", "davidson", "ignore", "one-win-each"}, default "half"
        How the ties count (:func:`apply_ties`).
    time : str, optional
        A column of the votes' times (numbers or dates).
    style : str or list of str, optional
        Columns of style covariates (the answers' length, markdown counts), read as advantage covariates
        attributed to ``model_a`` (a difference of a's and b's feature, as the style-controlled boards use).
    invalid : {"raise", "drop"}
        What to do with invalid rows, as in :meth:`discrank.GameLog.from_frame`.
    **options
        Passed to :meth:`discrank.GameLog.from_frame` (``start``, ``end``, ``min_player_games``,
        ``max_invalid``).

    Returns
    -------
    GameLog

    Raises
    ------
    ValueError
        A file of another suffix, a winner value none of those (naming the row), a model against itself,
        a style column with a missing value, a ``ties`` not one of :data:`TIES` (as the readers and
        :func:`apply_ties` name them).
    """
    import pandas as pd

    from discrank.logs import GameLog

    if isinstance(source, pd.DataFrame):
        frame = source
    else:
        fmt = _format(source)
        frame = (pd.read_csv(source, low_memory=False) if fmt == "csv" else
                 pd.read_parquet(source) if fmt == "parquet" else pd.read_json(source, lines=True))
    log = GameLog.from_frame(frame, a=model_a, b=model_b, winner=winner, time=time, advantage=style,
                             invalid=invalid, **options)
    return apply_ties(log, ties)
