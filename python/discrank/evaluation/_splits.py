"""The time split of :func:`discrank.evaluate`: the times a user gives in the log's units, the cut-off
and test period they define, the origins of a rolling evaluation, the validation that mimics the test,
and the refit period of the online protocol."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np

from discrank._util.calendar import PERIODS
from discrank._util.checks import show_time
from discrank.solvers._tuning import Validation

__all__ = ["CALENDAR", "time_value", "split_times", "origins", "validation_online", "validation_like",
           "check_refit"]

#: Calendar refit periods of datetime times (``refit=``).
CALENDAR = PERIODS


def time_value(value: Any, t: np.ndarray, name: str):
    """``value`` in the units of the times ``t`` (datetime64 or numbers); errors name ``name``."""
    if value is None:
        return None
    if t.dtype.kind == "M":
        try:
            out = np.datetime64(value)
        except (ValueError, TypeError):
            raise ValueError(f"{name}={value!r} is not a date or time") from None
        if np.isnat(out):
            raise ValueError(f"{name}={value!r} is not a date or time")
        return out.astype(t.dtype)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name}={value!r} is not a number, and this log's times are numbers")
    return value



def split_times(t: np.ndarray, cutoff: Any, test_fraction: Optional[float], train_start: Any, test_start: Any,
                test_end: Any) -> tuple:
    """The periods that :func:`discrank.evaluate`'s arguments give for the sorted times ``t``: ``(cutoff,
    train_start, test_start, test_end)`` in the times' units, ``test_start`` the cut-off unless given,
    ``train_start`` and ``test_end`` None unless given; the cut-off from ``test_fraction`` falls between two
    times. Errors name the offending argument."""
    lo, hi = t[0], t[-1]
    if (cutoff is None) == (test_fraction is None):
        raise ValueError("give exactly one of cutoff= (a time) and test_fraction= (the latest share of the games)")
    if test_fraction is not None:
        if isinstance(test_fraction, bool) or not isinstance(test_fraction, numbers.Real) or not 0.0 < test_fraction < 1.0:
            raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
        cut = int(math.floor((1.0 - test_fraction) * len(t)))
        cut = min(max(cut, 1), len(t) - 1)
        cutoff = t[cut]
        if cutoff == t[0]:
            raise ValueError(f"test_fraction={test_fraction}: the log's games all share the earliest time")
    else:
        cutoff = time_value(cutoff, t, "cutoff")
        if not lo < cutoff <= hi:
            raise ValueError(f"cutoff={show_time(cutoff)} is outside the log's time range ({show_time(lo)} .. {show_time(hi)}): "
                             "no game would be left to train on or to test")
    train_start = time_value(train_start, t, "train_start")
    test_start = cutoff if test_start is None else time_value(test_start, t, "test_start")
    test_end = time_value(test_end, t, "test_end")
    if test_start < cutoff:
        raise ValueError(f"test_start={show_time(test_start)} precedes the end of the training period (cutoff="
                         f"{show_time(cutoff)}): the test period must follow the training period")
    if test_end is not None and test_end <= test_start:
        raise ValueError(f"test_end={show_time(test_end)} is not after test_start={show_time(test_start)}")
    if train_start is not None and train_start >= cutoff:
        raise ValueError(f"train_start={show_time(train_start)} is not before the cutoff {show_time(cutoff)}: no training period")
    return cutoff, train_start, test_start, test_end


def origins(t: np.ndarray, train_start, cutoff, test_start, test_end, rolling: int):
    """The (train start, train end, test start, test end) of each origin."""
    if test_end is None:
        last = t[-1]
        if t.dtype.kind == "M":
            test_end = last + np.timedelta64(1, np.datetime_data(t.dtype)[0])
        else:
            test_end = np.nextafter(last, np.inf) if t.dtype.kind == "f" else last + 1
    if rolling == 1:
        return [(train_start, cutoff, test_start, test_end)]
    inside = t[(t >= test_start) & (t < test_end)]
    if inside.size < rolling:
        raise ValueError(f"rolling={rolling} origins need at least {rolling} test games; the test period has {inside.size}")
    bounds = [inside[int(k * inside.size / rolling)] for k in range(rolling)]
    out = []
    for k in range(rolling):
        start = bounds[k]
        end = bounds[k + 1] if k + 1 < rolling else test_end
        if k > 0 and start == bounds[k - 1]:
            continue
        out.append((train_start, cutoff if k == 0 else start, start, end))
    return out


def validation_online(t_train: np.ndarray, t0, t1, t: np.ndarray) -> Validation:
    """The online protocol's :class:`Validation`: the test's window, no gap, ``online=True``, when the
    training period is at least twice the window; else the default fraction, ``online=True``."""
    last = min(t1, t[-1])
    window = last - t0
    span = t_train[-1] - t_train[0]
    if window <= window * 0 or span <= 2 * window:
        return Validation(online=True)
    return Validation(window=window, online=True)


def validation_like(t_train: np.ndarray, t0, t1, end, t: np.ndarray) -> Optional[Validation]:
    """A :class:`Validation` whose window and gap copy the test's, when the training period is long
    enough (at least twice the window plus the gap); else None (the default)."""
    last = min(t1, t[-1])
    window = last - t0
    gap = t0 - end
    span = t_train[-1] - t_train[0]
    zero = window * 0
    if window <= zero or span <= 2 * window + gap:
        return None
    return Validation(window=window, gap=gap if gap > zero else None)


def check_refit(refit: Any, t: np.ndarray) -> Any:
    """The refit period for the times ``t``: its default, or ``refit`` checked against their kind."""
    datetimes = t.dtype.kind == "M"
    if refit is None:
        return "week" if datetimes else 1
    if isinstance(refit, str):
        if refit not in CALENDAR:
            raise ValueError(f"refit={refit!r} is not a refit period: give one of {CALENDAR} (datetime times) or a "
                             "positive number (numeric times)")
        if not datetimes:
            raise ValueError(f"refit={refit!r} is a calendar period, and this log's times are numbers ({t.dtype}): "
                             "give a positive number, the width of a refit period in the times' units")
        return refit
    if isinstance(refit, bool) or not isinstance(refit, numbers.Real) or not (math.isfinite(refit) and refit > 0):
        raise ValueError(f"refit must be one of {CALENDAR} (datetime times) or a positive number (numeric times), "
                         f"got {refit!r}")
    if datetimes:
        raise ValueError(f"refit={refit!r} is a number, and this log's times are datetimes ({t.dtype}): give one of "
                         f"{CALENDAR}")
    return refit
