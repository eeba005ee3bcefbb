"""The calendar of rated games: the period of each time (days, ISO weeks from Monday, months, years, or bins
of a numeric width), the start of each period, and the bound on the number of periods.
"""

from __future__ import annotations

import math

import numpy as np

from discrank._util.checks import show

__all__ = ["PERIODS", "MAX_PERIODS", "period_index", "period_start", "check_span", "refit_bins"]

#: Calendar periods of datetime times.
PERIODS = ("day", "week", "month", "year")
#: More periods than this between the first game and the last is an error (a bin finer than the data).
MAX_PERIODS = 10_000_000
#: The largest period index of a numeric time, in absolute value (a quarter of int64's range: differences
#: and sums of two indices stay exact).
_MAX_BIN = 2.0**61


def period_index(t: np.ndarray, period) -> np.ndarray:
    """The period of each time: an int64 bin index.

    Parameters
    ----------
    t : ndarray
        datetime64 or numeric times.
    period : str or float
        "day", "week" (ISO weeks, from Monday), "month" or "year" for datetimes; a positive bin width for
        numbers (a game at time ``t`` is in bin ``floor(t / period)``).

    Returns
    -------
    ndarray of int64
        The bin of each time; consecutive bins are one period apart.
    """
    if t.dtype.kind == "M":
        if isinstance(period, str):
            if period == "day":
                return t.astype("datetime64[D]").astype(np.int64)
            if period == "week":  # 1970-01-01 was a Thursday: shift by 3 days so weeks start on Monday
                return (t.astype("datetime64[D]").astype(np.int64) + 3) // 7
            if period == "month":
                return t.astype("datetime64[M]").astype(np.int64)
            if period == "year":
                return t.astype("datetime64[Y]").astype(np.int64)
        raise ValueError(f"period={period!r} is not one of {PERIODS} (this log's times are dates)")
    if isinstance(period, str) or isinstance(period, bool):
        raise ValueError(f"period={period!r}: this log's times are numbers; give a positive bin width")
    try:
        width = float(period)
    except (TypeError, ValueError):
        raise ValueError(f"period={period!r} is not a positive number") from None
    if not (math.isfinite(width) and width > 0):
        raise ValueError(f"period={period!r} is not a positive number")
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.floor(np.asarray(t, dtype=np.float64) / width)
    far = ~(np.abs(f) <= _MAX_BIN)
    if far.any():
        k = int(np.flatnonzero(far)[0])
        raise ValueError(f"time {show(np.asarray(t).ravel()[k])} is out of range for period={period!r}: its period "
                         f"{f.ravel()[k]:.4g} is beyond +-{_MAX_BIN:.4g} (a time must be a finite number well within "
                         "64-bit integers once divided by the period)")
    return f.astype(np.int64)


def period_start(bins: np.ndarray, period, dates: bool) -> np.ndarray:
    """The start of each period (the inverse of :func:`period_index`): datetime64[D] for calendar periods of
    dates; ``bin * period`` for a numeric width, rounded up where needed so that ``period_index`` of a start is
    its bin.

    Parameters
    ----------
    bins : ndarray of int64
        Periods from :func:`period_index`.
    period : str or float
        The period of the bins.
    dates : bool
        Whether the times are dates (else numbers).
    """
    bins = np.asarray(bins, dtype=np.int64)
    if dates:
        if period == "day":
            return bins.astype("datetime64[D]")
        if period == "week":
            return (bins * 7 - 3).astype("datetime64[D]")
        if period == "month":
            return bins.astype("datetime64[M]").astype("datetime64[D]")
        if period == "year":
            return bins.astype("datetime64[Y]").astype("datetime64[D]")
        raise ValueError(f"period={period!r} is not one of {PERIODS} (the times are dates)")
    width = float(period)
    t = bins * width
    for _ in range(4):
        low = np.floor(t / width) < bins
        if not low.any():
            break
        t[low] = np.nextafter(t[low], np.inf)
    return t


def check_span(bins: np.ndarray, period, games: str = "") -> None:
    """A ``ValueError`` when the periods ``bins`` (of :func:`period_index`) span more than
    :data:`MAX_PERIODS` from the first game to the last: a period finer than the data, or a time far from
    the others. ``games``: whose games they are, for the message (" of ...")."""
    span = int(bins.max()) - int(bins.min()) + 1 if bins.size else 0
    if span > MAX_PERIODS:
        lo, hi = int(np.argmin(bins)), int(np.argmax(bins))
        raise ValueError(f"period={period!r} makes {span} periods between the first game and the last{games} "
                         f"(more than {MAX_PERIODS}; periods {bins[lo]} and {bins[hi]}): the bins are finer than the "
                         "data, or a time is far from the others; use a coarser period or check the times")


def refit_bins(t: np.ndarray, refit) -> np.ndarray:
    """The refit period of each time, for :func:`discrank.evaluate`'s ``refit=``: :func:`period_index` of
    datetimes; of numbers, ``floor(t / refit)`` (integer for integer times and width, else a float)."""
    if t.dtype.kind == "M":
        return period_index(t, refit)
    if t.dtype.kind in "iu" and float(refit).is_integer():
        return np.floor_divide(t, int(refit))
    return np.floor(t / float(refit))
