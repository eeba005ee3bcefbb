"""Which players ``ratings_frame`` hides (``min_games``, ``max_sd``, ``active_since``) and which ratings it marks
provisional, one rule for every model: fewer than :data:`PROVISIONAL_GAMES` games, or a standard deviation above
:data:`PROVISIONAL_SD` logits (players whose games are unknown: the deviation alone). ``df.attrs["note"]`` says
how many players are hidden, why, and how many shown are marked.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from discrank._util.checks import show

__all__ = ["PROVISIONAL_GAMES", "PROVISIONAL_SD", "table_rows", "check_min_count", "refuse_table"]

#: Fewer games than this make a rating provisional.
PROVISIONAL_GAMES = 10
#: A standard deviation above this (logits) makes a rating provisional: 110 Elo points (lichess's rule).
PROVISIONAL_SD = 110.0 * math.log(10.0) / 400.0


def check_min_count(value: Any, name: str) -> int:
    """``value`` as a count of at least 0 (a ValueError naming ``name`` and the value otherwise)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float, np.floating)) \
            or not float(value).is_integer():
        raise ValueError(f"{name}={show(value)} is not a whole number of games")
    if value < 0:
        raise ValueError(f"{name}={show(value)} is below 0")
    return int(value)


def table_rows(model: str, games: np.ndarray, sd: Optional[np.ndarray], keep: Optional[np.ndarray] = None,
               min_games: Any = None, max_sd: Any = None, since: str = "") -> tuple[np.ndarray, np.ndarray, str]:
    """(the players shown, each player's provisional mark, the note) of a table.

    Parameters
    ----------
    model : str
        The model's name, for the messages.
    games, sd : ndarray
        Each player's games (NaN: unknown) and the standard deviation of its rating (None: the model has none).
    keep : ndarray of bool, optional
        The players ``active_since`` keeps (``since``: its value, for the note).
    min_games : int, optional
        Hide the players with fewer games (0 or more; None: no limit).
    max_sd : float, optional
        Hide the ratings whose standard deviation is above it (positive; None: no limit).

    Raises
    ------
    ValueError
        ``min_games`` below 0 or not whole, or given where the games are unknown; ``max_sd`` not positive, or
        given to a model whose ratings have no standard deviation. Each named with its value.
    """
    games = np.asarray(games, dtype=np.float64)
    n = games.size
    shown = np.ones(n, dtype=bool) if keep is None else np.asarray(keep, dtype=bool).copy()
    hidden = [] if keep is None else [f"{n - int(shown.sum())} not seen since {since}"]
    if min_games is not None:
        least = check_min_count(min_games, "min_games")
        if least and np.isnan(games).all():
            raise ValueError(f"min_games={least}: this {model} was fitted on pairs without game counts, so its "
                             "players' games are unknown (fit it on a GameLog)")
        few = shown & (games < least)
        hidden.append(f"{int(few.sum())} with fewer than {least} games")
        shown &= ~few
    if max_sd is not None:
        if sd is None:
            raise ValueError(f"max_sd={show(max_sd)}: this {model}'s ratings have no standard deviation (DynamicElo's "
                             "have one)")
        if isinstance(max_sd, (bool, np.bool_)) or not isinstance(max_sd, (int, float, np.integer, np.floating)) \
                or not max_sd > 0:
            raise ValueError(f"max_sd={show(max_sd)} is not a positive standard deviation (logits)")
        wide = shown & (sd > max_sd)
        hidden.append(f"{int(wide.sum())} with a standard deviation above {max_sd:g}")
        shown &= ~wide
    provisional = games < PROVISIONAL_GAMES
    if sd is not None:
        provisional |= np.asarray(sd) > PROVISIONAL_SD
    rule = f"fewer than {PROVISIONAL_GAMES} games" + ("" if sd is None else
                                                      f", or a standard deviation above {PROVISIONAL_SD:.3f} logits")
    note = (f"{n - int(shown.sum())} of {n} players hidden" + (f" ({'; '.join(hidden)})" if hidden else "")
            + f"; {int((provisional & shown).sum())} of the {int(shown.sum())} shown provisional ({rule})")
    return shown, provisional, note


def refuse_table(model: Any, active_since: Any = None, context: Any = None) -> None:
    """A ValueError naming ``active_since`` or ``context`` where given to ``model``'s table."""
    name = type(model).__name__
    if active_since is not None:
        raise ValueError(f"active_since={show(active_since)} does not apply to {name}: it keeps no times of the games "
                         "(DynamicElo, OnlineElo and OnlineDisc do)")
    if context is not None:
        raise ValueError(f"context={show(context)} does not apply to {name}: it takes no contexts (DynamicElo fitted "
                         "with a context column does)")
