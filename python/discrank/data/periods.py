"""Games summed by pair, period and covariate value: :class:`PeriodGames`, what the dynamic model needs of
a log too large to hold game by game.

The whole-history likelihood of :class:`discrank.DynamicElo` depends on the games only through the
games, wins and draws of each pair of player-periods with one covariate value
(:func:`discrank.solvers._history.build_history`). :func:`discrank.scan_games` with ``period=`` keeps exactly
those sums, and :meth:`PeriodGames.from_log` makes the same from a :class:`~discrank.GameLog` in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank._util.calendar import period_index, period_start

__all__ = ["PeriodGames"]


@dataclass
class PeriodGames:
    """The games of a log summed by pair, period and covariate value: one row per (period, pair of players,
    covariate value) that occurs.

    Build with :func:`discrank.scan_games` (``period=``) or :meth:`from_log`; fit with
    :class:`discrank.DynamicElo` (whose ``period`` must be this one, or None), which checks the rows first
    (:meth:`check`). Within a period the games have no order: a row's ``time`` is its period's start.

    Attributes
    ----------
    labels : ndarray
        The players, sorted (as :class:`~discrank.PairwiseData`'s).
    a, b : ndarray of int32, shape (n_rows,)
        Codes into ``labels`` of each row's two players, ``a < b``.
    bins : ndarray of int64, shape (n_rows,)
        The period of each row (:func:`discrank._util.calendar.period_index`); rows sorted by period, then pair,
        then covariate value.
    period : str or float
        The period of the bins.
    dates : bool
        Whether the times were dates (else numbers).
    games, score, draws : ndarray of float64, shape (n_rows,)
        The row's games, the sum of ``a``'s scores, and the games scored 0.5.
    results : bool
        Whether every score is 1, 0.5 or 0 (a win, a draw, a loss): the draw models need it.
    advantage : ndarray of float, shape (n_rows, n_covariates), optional
        Each row's covariate values, attributed to ``a``.
    advantage_names : tuple of str
    dropped : dict of str to int
        The invalid rows dropped when reading (``invalid="drop"``), by kind.
    """

    labels: np.ndarray
    a: np.ndarray
    b: np.ndarray
    bins: np.ndarray
    period: Any
    dates: bool
    games: np.ndarray
    score: np.ndarray
    draws: np.ndarray
    results: bool
    advantage: Optional[np.ndarray] = None
    advantage_names: tuple = ()
    dropped: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.a.shape[0])

    @property
    def time(self) -> np.ndarray:
        """The start of each row's period (datetime64[D] for calendar periods, float64 otherwise;
        :func:`discrank._util.calendar.period_start`)."""
        return period_start(self.bins, self.period, self.dates)

    @property
    def n_games(self) -> float:
        """The games summed."""
        return float(self.games.sum())

    def __repr__(self) -> str:
        return (f"PeriodGames({self.n_games:.0f} games in {len(self)} rows, {self.labels.size} players, "
                f"{np.unique(self.bins).size} periods of {self.period!r}"
                + (f", covariates {list(self.advantage_names)}" if self.advantage_names else "") + ")")

    @classmethod
    def from_log(cls, log: Any, period: Any) -> "PeriodGames":
        """The games of a :class:`~discrank.GameLog` summed by pair, period and covariate value (what
        ``scan_games(..., period=period)`` gives for the files of the log).

        Parameters
        ----------
        log : GameLog
            Games with times.
        period : str or float
            As :class:`discrank.DynamicElo`'s ``period``.

        Returns
        -------
        PeriodGames

        Raises
        ------
        ValueError
            A log without times, or a period that does not suit them; a log with contexts, margins or match
            formats, which the sums do not hold (fit the log itself).
        """
        from discrank.data._coding import code_log
        from discrank.data.logs import GameLog

        if not isinstance(log, GameLog):
            raise TypeError(f"PeriodGames.from_log expects a discrank.GameLog, got {type(log).__name__}")
        if log.time is None:
            raise ValueError("PeriodGames need the games' times (GameLog time=...)")
        held = [name for name in ("context", "margin", "match_format") if getattr(log, name, None) is not None]
        if held:
            raise ValueError(f"the log has the column(s) {held}, which PeriodGames do not hold (they sum each pair's "
                             "results by period and advantage value alone): a DynamicElo fitted on the sums would "
                             "fit the results without them; fit the GameLog itself (DynamicElo.fit(log)), or drop "
                             "the columns first")
        labels, ca, cb = code_log(log)
        score = np.asarray(log.score, dtype=np.float64)
        bins = period_index(np.asarray(log.time), period)
        swap = ca > cb
        lo, hi = np.where(swap, cb, ca), np.where(swap, ca, cb)
        y = np.where(swap, 1.0 - score, score)
        x = None
        if log.advantage is not None:
            x = np.asarray(log.advantage, dtype=np.float64).reshape(len(log), -1)
            x = np.where(swap[:, None], -x, x) + 0.0  # -0.0 as 0.0
        return cls._grouped(labels, lo, hi, bins, x, np.ones(lo.size), y, (y == 0.5).astype(np.float64),
                            bool(np.isin(score, (0.0, 0.5, 1.0)).all()), period, tuple(log.advantage_names),
                            dict(log.dropped), np.asarray(log.time).dtype.kind == "M")

    @classmethod
    def _grouped(cls, labels, lo, hi, bins, x, games, score, draws, results, period, names, dropped,
                 dates: bool) -> "PeriodGames":
        """Rows with equal (period, pair, covariate value) summed, sorted by them (the sums run in the
        rows' order)."""
        n = labels.size
        span = int(bins.max() - bins.min()) + 1 if bins.size else 1
        if x is None and span * n * n < 2**62:  # one int64 key: a faster sort, less memory
            order = np.argsort(((bins - bins.min()) * n + lo) * n + hi, kind="stable")
        else:
            xkeys = [] if x is None else [x[:, k] for k in range(x.shape[1] - 1, -1, -1)]
            order = np.lexsort([*xkeys, hi, lo, bins])
            del xkeys
        lo, hi, bins = lo[order], hi[order], bins[order]
        games, score, draws = games[order], score[order], draws[order]
        new = np.ones(lo.size, dtype=bool)
        new[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1]) | (bins[1:] != bins[:-1])
        if x is not None:
            x = x[order]
            new[1:] |= (x[1:] != x[:-1]).any(axis=1)
        starts = np.flatnonzero(new)
        if starts.size < lo.size:
            games, score, draws = (np.add.reduceat(v, starts) for v in (games, score, draws))
            lo, hi, bins = lo[starts], hi[starts], bins[starts]
            x = None if x is None else x[starts]
        return cls(labels, lo.astype(np.int32), hi.astype(np.int32), bins, period, bool(dates), games, score, draws,
                   results, x, names, dropped)

    def to_pairs(self, *, weights: Optional[str] = None):
        """The games summed over the periods: the :class:`~discrank.PairwiseData` of the log (with
        ``covariates`` by value when the rows have them, and each pair's ``draws`` when every score is a
        result), as ``scan_games`` without ``period`` gives it.

        Parameters
        ----------
        weights : {"games", "uniform"}, optional
            See :class:`~discrank.PairwiseData`.

        Returns
        -------
        PairwiseData
        """
        from discrank.data.pairs import PairwiseData, oriented_covariate_data

        draws = self.draws if self.results else None
        if self.advantage is not None:
            return oriented_covariate_data(self.a, self.b, self.score, self.advantage, self.advantage_names,
                                           self.labels, weights, games=self.games, draws=draws)
        inverse, pair_lo, pair_hi = _core.group_pairs(self.labels.size, self.a, self.b)
        k = pair_lo.size
        games = np.bincount(inverse, self.games, k)
        p = np.clip(np.bincount(inverse, self.score, k) / games, 0.0, 1.0)
        data = PairwiseData._trusted(pair_lo, pair_hi, p, games, self.labels, weights or "games")
        if draws is not None:
            data.draws = np.bincount(inverse, draws, k)
        return data

    def check(self) -> "PeriodGames":
        """Check the rows against each other (a ValueError names the field, the row and its value).

        Returns
        -------
        PeriodGames
            ``self``.
        """
        from discrank._util.checks import show

        n_rows = len(self)
        if n_rows == 0:
            raise ValueError("the PeriodGames hold no row")
        for name in ("b", "bins", "games", "score", "draws"):
            if np.shape(getattr(self, name)) != (n_rows,):
                raise ValueError(f"PeriodGames.{name} has shape {np.shape(getattr(self, name))}, but a holds "
                                 f"{n_rows} rows")
        n = np.shape(self.labels)[0]
        for name in ("a", "b"):
            codes = getattr(self, name)
            bad = (codes < 0) | (codes >= n)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"PeriodGames.{name}[{k}] = {codes[k]} is not a player code ({n} labels)")
        same = self.a == self.b
        if same.any():
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"row {k} has the player {show(self.labels[self.a[k]])} against themself")
        games, score, draws = self.games, self.score, self.draws
        checks = (("games", ~(np.isfinite(games) & (games > 0)), "is not a positive number of games"),
                  ("score", ~((score >= 0) & (score <= games)), "is not a score sum between 0 and the row's games"),
                  ("draws", ~((draws >= 0) & (0.5 * draws <= score) & (score - 0.5 * draws <= games - draws)),
                   "is not a number of draws that the row's games and score allow"))
        for name, bad, what in checks:
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"PeriodGames.{name}[{k}] = {show(getattr(self, name)[k])} {what}")
        if self.advantage is not None:
            x = self.advantage
            if x.shape != (n_rows, len(self.advantage_names)):
                raise ValueError(f"PeriodGames.advantage has shape {x.shape}, expected ({n_rows}, "
                                 f"{len(self.advantage_names)}): a value per row of the covariates "
                                 f"{list(self.advantage_names)}")
            bad = ~np.isfinite(x)
            if bad.any():
                k, c = (int(v[0]) for v in np.nonzero(bad))
                raise ValueError(f"PeriodGames.advantage[{k}] has {show(x[k, c])} in column "
                                 f"{self.advantage_names[c]!r}")
        return self

    def _weighted_games(self):
        """(row, score, weight): the rows as weighted games for the dynamic model, in row order. Where every
        score is a result, a row is split into its wins (score 1), draws (0.5) and losses (0), each weighing
        its count (none kept with no game); otherwise a row is one game of score ``score / games`` weighing
        ``games`` (the two-outcome likelihood is linear in the score)."""
        if not self.results:
            return np.arange(len(self)), self.score / self.games, self.games
        wins = self.score - 0.5 * self.draws
        losses = self.games - wins - self.draws
        w = np.stack([wins, self.draws, losses], axis=1).reshape(-1)
        s = np.tile(np.array([1.0, 0.5, 0.0]), len(self))
        row = np.repeat(np.arange(len(self)), 3)
        keep = w > 0
        return row[keep], s[keep], w[keep]
