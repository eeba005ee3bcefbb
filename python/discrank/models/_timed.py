"""The current table of a model whose ratings follow the games in time (:class:`~discrank.DynamicElo`,
:class:`~discrank.models.online._elo.OnlineElo`), with the time each player was last seen."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank.data._rows import time_bound
from discrank.models._table import refuse_table

__all__ = ["TimedRatings", "last_seen", "latest", "show_time"]


class TimedRatings:
    """``ratings_frame`` of a time-aware model, over its :meth:`_current`, :meth:`_last_seen` and
    :meth:`_time_span`."""

    def ratings_frame(self, *, min_games: Any = None, max_sd: Any = None, active_since: Any = None, context: Any = None,
                      anchor: Any = None, anchor_rating: float = 1500.0):
        """The current table: each player's current rating, best first.

        Parameters
        ----------
        min_games : int, optional
            Hide the players with fewer games (0 or more).
        max_sd : float, optional
            Hide the ratings whose standard deviation is above it (logits; refused without one).
        active_since : time, optional
            Keep only the players whose last game is at or after it, within the fitted games' time range.
        context : label, optional
            DynamicElo fitted with contexts: each player's rating in that context (plus the column ``effect``),
            with the standard deviation of the sum; other models refuse it.
        anchor : label, optional
            The player whose ``elo`` is ``anchor_rating``; default: the mean rating of every fitted player is.
        anchor_rating : float, optional
            The ``elo`` of the reference.

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``rank`` (among the rows kept), ``games``, ``elo`` (``anchor_rating + 400 / ln 10 *
            (rating - reference)``), ``rating`` (logits), ``sd`` (for a model that has one, grown by the drift
            since the player's last period), ``last_seen`` (NaN for a log without times) and ``provisional``
            (:mod:`discrank.models._table`). ``df.attrs`` holds ``model``, ``note`` and ``context``.

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        ValueError
            ``active_since`` outside the fitted time range, of the other kind, or without fitted times;
            ``min_games`` below 0, ``max_sd`` not positive, an unknown context; an option the model cannot use.
        """
        self._check_fitted()
        rating, sd, games = self._current()
        effect = {}
        if context is not None:
            rating, sd, effect["effect"] = self._in_context(context, rating, sd)
        last = self._last_seen()
        keep = None if active_since is None else last >= self._time_in_range(active_since, "active_since")
        columns = {"rating": rating, **effect, **({} if sd is None else {"sd": sd}), "last_seen": last}
        frame = self._frame(columns, rating, games, elo=rating, anchor=anchor, anchor_rating=anchor_rating,
                            keep=keep, min_games=min_games, max_sd=max_sd, since=show(active_since))
        if context is not None:
            frame.attrs["context"] = context
        return frame

    def _in_context(self, context: Any, rating: np.ndarray, sd: Optional[np.ndarray]) -> tuple:
        """(rating, sd, effect) of each player in ``context``; a ValueError for a model without contexts."""
        refuse_table(self, context=context)
        return rating, sd

    def _current(self) -> tuple[np.ndarray, Optional[np.ndarray], np.ndarray]:
        """Each player's current rating (logits), its standard deviation (None: the model has none) and
        games."""
        raise NotImplementedError

    def _last_seen(self) -> np.ndarray:
        """The time of each player's last game (NaN for a log without times)."""
        return np.full(len(self.labels_), np.nan) if self.last_seen_ is None else self.last_seen_

    def _time_span(self) -> Optional[np.ndarray]:
        """The first and the last time of the fitted games (None: games without times)."""
        return self.time_span_

    def _record(self, ia: np.ndarray, ib: np.ndarray, t: Optional[np.ndarray]) -> None:
        """Count the games of the players coded ``ia`` and ``ib`` (at the times ``t``, in order) in
        ``n_games_``, ``last_seen_`` and ``time_span_`` (``labels_`` already holds the players appended)."""
        n = len(self.labels_)
        self.n_games_ = np.bincount(np.concatenate([ia, ib]), minlength=n) + np.concatenate(
            [self.n_games_, np.zeros(n - self.n_games_.size, dtype=np.int64)])
        old = self.last_seen_
        if t is not None or old is not None:  # (None: no game with a time yet)
            seen = last_seen(ia, ib, t, n)
            self.last_seen_ = seen if old is None else latest(old, seen)
        if t is not None and t.size:
            span = self.time_span_
            self.time_span_ = np.array([t[0], t[-1]]) if span is None else np.array([span[0], max(span[1], t[-1])])

    def _time_in_range(self, value: Any, name: str) -> Any:
        """``value`` read in the units of the fitted games' times (:func:`discrank.data._rows.time_bound`); a
        ValueError names it and the fitted time range when it is outside it or of the other kind."""
        span = self._time_span()
        if span is None:
            raise ValueError(f"{name}={show(value)}: this {type(self).__name__} was fitted on games without times")
        lo, hi = span
        shown = f"the fitted games' times run from {show_time(lo)} to {show_time(hi)}"
        try:
            out = time_bound(value, span, name)
        except ValueError as exc:
            raise ValueError(f"{exc}; {shown}") from None
        if not lo <= out <= hi:
            raise ValueError(f"{name}={show_time(out)} is outside the fitted games' time range: {shown}")
        return out


def last_seen(a: np.ndarray, b: np.ndarray, t: Optional[np.ndarray], n: int) -> np.ndarray:
    """The time of the last game of each of ``n`` players in the games ``a`` against ``b`` at times ``t``
    (NaN for every player when ``t`` is None; NaT or NaN for a player without a game)."""
    if t is None:
        return np.full(n, np.nan)
    out = np.full(n, np.nan) if t.dtype.kind != "M" else np.full(n, np.datetime64("NaT"), dtype=t.dtype)
    codes = np.concatenate([a, b]).astype(np.int64)
    times = np.concatenate([t, t])
    order = np.lexsort((times, codes))  # by player, then time: each player's last entry is its latest
    codes, times = codes[order], times[order]
    end = np.r_[codes[1:] != codes[:-1], True] if codes.size else np.zeros(0, dtype=bool)
    out[codes[end]] = times[end]
    if t.dtype.kind in "iu" and np.count_nonzero(end) == n:  # every player has a game: the times' own dtype
        out = out.astype(t.dtype)
    return out


def latest(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The later of two times of each player, a missing time (NaN, NaT) giving way to the other; ``old`` may be
    shorter than ``new``. Numbers come out as floats, integers where none is missing."""
    dates = old.dtype.kind == "M" or new.dtype.kind == "M"
    if dates and old.dtype.kind != "M":  # (no time before: every entry missing)
        old = np.full(old.size, np.datetime64("NaT"), dtype=new.dtype)
    if dates and new.dtype.kind != "M":
        new = np.full(new.size, np.datetime64("NaT"), dtype=old.dtype)
    dtype = np.promote_types(old.dtype, new.dtype) if dates else np.dtype(np.float64)
    gap = np.full(new.size - old.size, np.datetime64("NaT") if dates else np.nan, dtype=dtype)
    whole = np.concatenate([old.astype(dtype), gap])
    fresh = new.astype(dtype)
    out = np.where(_missing(whole), fresh, np.where(_missing(fresh), whole, np.maximum(whole, fresh)))
    if old.dtype.kind in "iu" and new.dtype.kind in "iu" and not _missing(out).any():
        out = out.astype(np.int64)
    return out


def _missing(t: np.ndarray) -> np.ndarray:
    return np.isnat(t) if t.dtype.kind == "M" else np.isnan(t)


def show_time(value: Any) -> str:
    """A time for a message: a date as its text, a number as written."""
    return str(value) if isinstance(value, np.datetime64) else show(value)
