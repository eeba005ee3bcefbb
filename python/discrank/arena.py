"""Arena logs: pairwise votes between models or agents (Chatbot Arena and its copies, agent leagues).

Their files hold ``model_a, model_b, winner`` with ``winner`` in {"model_a", "model_b", "tie", "tie
(bothbad)"}; the readers take them as they are (``GameLog.read_csv(path, a="model_a", b="model_b",
winner="winner")``: a winner that names a player's column names that side, and both ties are draws, score
0.5). :func:`apply_ties` then sets how the ties count (:data:`TIES`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["TIES", "apply_ties"]

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
