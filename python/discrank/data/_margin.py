"""Margins of a game log: the sub-contests (points, games, sets, goals) won by each side of each game.

:func:`as_margin` checks a log's column (one row (won by a, won by b) per game, finite numbers >= 0, the
columns not swapped), :func:`margin_columns` the ``margin=`` argument of the readers (a pair of column
names), :func:`margin_values` reads a frame's column row by row and :func:`margin_message` words an
invalid row of a frame."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.checks import check_same_length, show
from discrank._util.labels import object_numbers

__all__ = ["MARGIN_HELP", "MAX_MARGIN", "as_margin", "margin_columns", "margin_message", "margin_values"]

#: The most sub-contests a side may win in one game: beyond any sport's count, and small enough that the margin
#: likelihood's sums over a million games (``n kappa^2`` in its curvature) stay exact integers in float64.
MAX_MARGIN = 1e9
MARGIN_HELP = ("a margin is a finite number from 0 to 1e+09 of sub-contests (points, games, goals) won by each side "
               "(half points allowed)")
_NUMBERS = (int, float, np.integer, np.floating)


def margin_columns(margin: Any) -> Optional[tuple]:
    """The ``margin=`` argument of the readers, checked: the names of the two columns.

    Parameters
    ----------
    margin : tuple or list of two str, or None
        The column of the sub-contests won by ``a``, and the column of those won by ``b``.

    Returns
    -------
    tuple of two str, or None
        The two names (None for None).

    Raises
    ------
    ValueError
        Anything but a pair of distinct column names, named.
    """
    if margin is None:
        return None
    if not (isinstance(margin, (tuple, list)) and len(margin) == 2 and all(isinstance(c, str) for c in margin)):
        raise ValueError(f"margin={show(margin)}: give the pair of column names (won by a, won by b), such as "
                         "margin=('games_a', 'games_b')")
    if margin[0] == margin[1]:
        raise ValueError(f"margin={show(margin)} names the column {margin[0]!r} twice: give the column of the "
                         "sub-contests won by a, then the column of those won by b")
    return tuple(margin)


def _as_floats(values: np.ndarray) -> np.ndarray:
    """``values`` (an array of shape (n_games, 2)) as float64, NaN where a value is missing (None, NaN, pandas'
    NA); a TypeError names the first value that is not a number (text, a bool) with its game and side."""
    if values.dtype.kind in "iuf":
        return values.astype(np.float64)
    flat = values.reshape(-1)
    out = np.empty(flat.shape[0])
    for k, v in enumerate(flat.tolist()):
        if isinstance(v, _NUMBERS) and not isinstance(v, (bool, np.bool_)):
            out[k] = float(v)
        elif v is None or type(v).__name__ in ("NAType", "NaTType"):  # pandas' missing values
            out[k] = np.nan
        else:
            raise TypeError(f"margin holds {show(v)} at game {k // 2} (won by {'ab'[k % 2]}), which is not a number: "
                            f"{MARGIN_HELP}")
    return out.reshape(values.shape)


def _is_column(values: Any) -> bool:
    """Whether ``values`` is a sequence of values (a list, a tuple, an array or a pandas Series), not one
    value: an item of the pair-of-columns form of a margin."""
    return isinstance(values, (list, tuple, np.ndarray)) or (hasattr(values, "__array__") and np.ndim(values) > 0)


def as_margin(values: Any, score: np.ndarray) -> np.ndarray:
    """The margin of each game of a log, checked: the sub-contests won by ``a`` and by ``b``.

    Parameters
    ----------
    values : array, shape (n_games, 2), or a pair of columns
        An array (or a list of rows) of shape (n_games, 2), or a tuple or list of two 1-D columns (won by
        ``a``, won by ``b``), which is read as the two columns (give a log of two games an array).
    score : ndarray of float, shape (n_games,)
        The score of ``a`` in each game (the log's, checked).

    Returns
    -------
    ndarray of float64, shape (n_games, 2)
        The margins.

    Raises
    ------
    ValueError
        A shape other than (n_games, 2), or a length other than the score's; a missing, negative or infinite
        value, or one above :data:`MAX_MARGIN` (named with its game and side); more than half of the decided
        games with a margin won by the side with fewer sub-contests (the columns look swapped).
    TypeError
        A value that is not a number (text, a bool), named with its game and side.
    """
    n = score.shape[0]
    if isinstance(values, (tuple, list)) and len(values) == 2 and all(_is_column(c) for c in values):
        cols = [np.array(c, dtype=object) if isinstance(c, (list, tuple)) else np.asarray(c) for c in values]
        for side, col in zip("ab", cols):
            if col.ndim != 1:
                raise ValueError(f"margin's column of {side} must be 1-D (one value per game), got shape {col.shape}")
            check_same_length({"score": n, f"margin_{side}": col.shape[0]}, "columns")
        numeric = all(c.dtype.kind in "iuf" for c in cols)
        arr = np.stack(cols if numeric else [c.astype(object) for c in cols], axis=1)
    else:
        try:
            arr = np.array(values, dtype=object) if isinstance(values, (list, tuple)) else np.asarray(values)
        except ValueError as exc:  # rows of different lengths
            raise ValueError(f"margin is not an array of shape (n_games, 2) or a pair of columns: {exc}") from None
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValueError(f"margin must have shape (n_games, 2), the sub-contests won by a and by b in each game "
                             f"(or be a pair of columns), got shape {arr.shape}")
        check_same_length({"score": n, "margin": arr.shape[0]}, "columns")
    m = _as_floats(arr)
    missing, bad = np.isnan(m).reshape(-1), ~(np.isfinite(m) & (m >= 0.0)).reshape(-1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        where = f"({show(arr.reshape(-1)[k])}) at game {k // 2} (won by {'ab'[k % 2]})"
        if missing[k]:
            raise ValueError(f"margin has a missing value {where}: every game needs its margin ((0, 0) for a game "
                             "without sub-contests, a walkover), or drop the game")
        raise ValueError(f"margin has a negative or infinite value {where}: {MARGIN_HELP}")
    big = (m > MAX_MARGIN).reshape(-1)
    if big.any():
        k = int(np.flatnonzero(big)[0])
        raise ValueError(f"margin has the value {show(arr.reshape(-1)[k])} at game {k // 2} (won by {'ab'[k % 2]}), "
                         f"more than {MAX_MARGIN:g} sub-contests: {MARGIN_HELP}")
    _check_not_swapped(m, score)
    return m


def _check_not_swapped(m: np.ndarray, score: np.ndarray) -> None:
    """A ValueError when more than half of the decided games (score 1 or 0) with a margin other than (0, 0)
    have the winner with fewer sub-contests than the loser: the columns read as (won by b, won by a)."""
    won, lost = score == 1.0, score == 0.0
    counted = (won | lost) & (m.sum(axis=1) > 0.0)
    fewer = counted & np.where(won, m[:, 0] < m[:, 1], m[:, 1] < m[:, 0])
    n_fewer, n_counted = int(fewer.sum()), int(counted.sum())
    if 2 * n_fewer <= n_counted:
        return
    k = int(np.flatnonzero(fewer)[0])
    raise ValueError(f"margin looks swapped: in {n_fewer} of the {n_counted} decided games with a margin "
                     f"({n_fewer / n_counted:.0%}) the winner won fewer sub-contests than the loser, the first at game "
                     f"{k} (score {show(score[k])}, margin ({show(m[k, 0])}, {show(m[k, 1])})); margin is (won by a, won "
                     "by b): swap its two columns")


def margin_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of a frame's margin column: the value as a float (NaN where there is none), missing (None,
    NaN, NA, blank text), unparseable (a negative or infinite number or one above :data:`MAX_MARGIN`, text that
    is not a number, a bool, any other object). Text that reads as a number is that number."""
    kind = values.dtype.kind
    if kind in "iuf":
        out = values.astype(np.float64)
        missing = np.isnan(out)
    elif kind == "b":
        out, missing = np.full(values.shape[0], np.nan), np.zeros(values.shape[0], dtype=bool)
    else:
        out, missing = object_numbers(values)
    with np.errstate(invalid="ignore"):
        bad = ~missing & ~((out >= 0.0) & (out <= MAX_MARGIN))
    out[missing | bad] = np.nan
    return out, missing, bad


def margin_message(df: Any, columns: tuple, missing: bool, k: int, r: int) -> str:
    """The words for the frame's row ``k`` (row ``r`` of its file): its first margin column (``columns``: the
    column of ``a``'s, of ``b``'s) whose value is missing (``missing``) or else not a finite number >= 0."""
    for side, col in zip("ab", columns):
        raw = df[col].iloc[k]
        _, m, bad = margin_values(np.array([raw], dtype=object))
        if missing and m[0]:
            return f"column {col!r} (the margin of {side}) has no value at row {r} ({show(raw)}): drop or fill the row"
        if not missing and bad[0]:
            value = object_numbers(np.array([raw], dtype=object))[0][0] if not isinstance(raw, bool) else np.nan
            what = (f"is more than {MAX_MARGIN:g} sub-contests" if np.isfinite(value) and value > MAX_MARGIN else
                    "is not a finite number >= 0")
            return (f"column {col!r} (the margin of {side}): {col}[{r}] = {show(raw)} {what} at row {r} "
                    f"({MARGIN_HELP})")
    return f"row {r} has an invalid margin in {list(columns)}"  # (the row was marked for one of them)
