"""DynamicElo's fitted games (:class:`Games`, a log's in time order by :func:`time_ordered`) and its
ratings at a time: the state of each player-period read at any period (:func:`state_at`), the forecasts
of games (:func:`difference`, :func:`outcomes`), and the readouts of the ratings over time
(:class:`DynamicReadout`, a base of the estimator)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from discrank._util.calendar import period_index, period_start
from discrank._util.checks import show
from discrank.data._coding import in_time_order
from discrank.solvers._draws import outcome_probabilities
from discrank._util.params import check_param
from discrank.data._rows import time_bound
from discrank.models.dynamic._part import LabelPart, forecast
from discrank.models._prediction import advantage_rows, expected_score

__all__ = ["Games", "DynamicReadout", "check_draws", "time_ordered", "state_at", "difference",
           "outcomes"]

_PI8 = math.pi / 8.0


@dataclass(frozen=True)
class _Fixtures:
    """The columns of games to forecast that :meth:`DynamicReadout.predict_proba` was given, as a GameLog holds
    them (read by the parts' ``codes``)."""

    n: int
    context: Any
    match_format: Any
    advantage: Optional[np.ndarray]
    advantage_names: tuple

    def __len__(self) -> int:
        return self.n


@dataclass(frozen=True)
class Games:
    """The games a :class:`~discrank.DynamicElo` was fitted on, in time order.

    Attributes
    ----------
    a, b : ndarray of int64
        The players' codes (into the model's ``labels_``).
    score : ndarray of float
        The score of ``a``.
    bins : ndarray of int64
        Each game's period (0 for every game of a stationary model).
    time : ndarray, optional
        The games' times (numbers or datetimes); None for a log without times.
    x : ndarray, shape (n_games, n_covariates), optional
        The advantage covariates, attributed to ``a``.
    count : ndarray, optional
        The games each entry stands for (games summed by period, :class:`discrank.PeriodGames`); None:
        one each.
    ctx : ndarray of int64, optional
        Each game's context, a code into the model's ``context_labels_`` (None: a log without contexts).
    margin : ndarray, shape (n_games, 2), optional
        The sub-contests won by a and by b in each game (None: fitted without a margin likelihood).
    fmt : ndarray, optional
        Each game's match format: as the log holds it (:attr:`discrank.GameLog.match_format`) until the fit codes
        it into the model's ``format_labels_`` (None: a log without match formats, or one fitted with
        ``format_scales=0``).
    """

    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    bins: np.ndarray
    time: Optional[np.ndarray] = None
    x: Optional[np.ndarray] = None
    count: Optional[np.ndarray] = None
    ctx: Optional[np.ndarray] = None
    margin: Optional[np.ndarray] = None
    fmt: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return int(self.a.shape[0])

    @property
    def n_games(self) -> float:
        """The games the entries stand for."""
        return float(self.a.size if self.count is None else self.count.sum())

    def then(self, new: "Games") -> "Games":
        """These games and ``new`` (coded alike; both with covariates or neither) in time order: ``new``
        after these, and, when some of ``new`` are earlier than the latest of these, all of them sorted by
        time (a stable sort: games of one time keep their order). The match formats are kept when both have
        them (None otherwise: the fit does not use them)."""
        count = None
        if self.count is not None or new.count is not None:
            count = np.concatenate([np.ones(len(self)) if self.count is None else self.count,
                                    np.ones(len(new)) if new.count is None else new.count])
        games = Games(np.concatenate([self.a, new.a]), np.concatenate([self.b, new.b]),
                      np.concatenate([self.score, new.score]), np.concatenate([self.bins, new.bins]),
                      None if self.time is None else np.concatenate([self.time, new.time]),
                      None if self.x is None else np.concatenate([self.x, new.x]), count,
                      None if self.ctx is None else np.concatenate([self.ctx, new.ctx]),
                      None if self.margin is None else np.concatenate([self.margin, new.margin]),
                      None if self.fmt is None or new.fmt is None else np.concatenate([self.fmt, new.fmt]))
        if self.time is None or not len(new) or not len(self) or not new.time.min() < self.time[-1]:
            return games
        order = np.argsort(games.time, kind="stable")
        return Games(*(None if v is None else v[order] for v in (games.a, games.b, games.score, games.bins,
                                                                 games.time, games.x, games.count, games.ctx,
                                                                 games.margin, games.fmt)))

    def check(self, labels: np.ndarray) -> None:
        """A ValueError naming the field when the games contradict themselves: fields of other lengths,
        codes beyond ``labels``, a player against themself, a score outside [0, 1], times out of order."""
        g = len(self)
        if g == 0:
            raise ValueError("games_a_ holds no game (a fitted model has at least one)")
        for key, value in (("games_b_", self.b), ("games_score_", self.score), ("games_bin_", self.bins),
                           ("the games' times", self.time), ("games_count_", self.count), ("games_ctx_", self.ctx),
                           ("games_fmt_", self.fmt)):
            if value is not None and value.shape != (g,):
                raise ValueError(f"{key} has shape {value.shape}, but games_a_ holds {g} games")
        n = labels.shape[0]
        for key, codes in (("games_a_", self.a), ("games_b_", self.b)):
            if codes.max() >= n:
                k = int(np.argmax(codes))
                raise ValueError(f"{key}[{k}] = {codes[k]} is not a player code (labels_ holds {n} players)")
        same = self.a == self.b
        if same.any():
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"game {k} has the player {show(labels[self.a[k]])} against themself")
        if self.score.min() < 0.0:
            k = int(np.argmin(self.score))
            raise ValueError(f"games_score_[{k}] = {show(self.score[k])} is outside [0, 1] (a score)")
        t = self.time
        if t is not None and (t[1:] < t[:-1]).any():
            k = int(np.flatnonzero(t[1:] < t[:-1])[0]) + 1
            raise ValueError(f"the games are not in time order: game {k} is earlier than game {k - 1}")
        if self.count is not None and not (self.count > 0).all():
            k = int(np.flatnonzero(~(self.count > 0))[0])
            raise ValueError(f"games_count_[{k}] = {show(self.count[k])} is not a positive number of games")


def time_ordered(a: np.ndarray, b: np.ndarray, score: np.ndarray, time: Optional[np.ndarray],
                 x: Optional[np.ndarray], ctx: Optional[np.ndarray] = None, margin: Optional[np.ndarray] = None,
                 fmt: Optional[np.ndarray] = None) -> tuple:
    """(a, b, score, time, x, ctx, margin, fmt): a log's games in time order (a stable sort; ``time`` None: as
    they are), the scores, times and covariates read-only. A log already in time order (the usual case) is
    neither permuted nor copied: they are then views of its arrays, which nothing writes through."""
    t = None if time is None else np.asarray(time)
    if t is not None and not in_time_order(t):
        order = np.argsort(t, kind="stable")
        a, b, score, t = a[order], b[order], score[order], t[order]
        x = None if x is None else x[order]
        ctx = None if ctx is None else ctx[order]
        margin = None if margin is None else margin[order]
        fmt = None if fmt is None else fmt[order]
    views = tuple(None if v is None else v.view() for v in (score, t, x))
    for v in views:
        if v is not None:
            v.flags.writeable = False
    return (a, b) + views + (ctx, margin, fmt)


def check_draws(draws: Optional[str], score: np.ndarray, game: str = "game") -> None:
    """The draw model ``draws`` needs results (1, 0.5 or 0), and draws and other results to fit its
    parameter (as the pair models' draw models, :func:`discrank.solvers._draws.check_draw_data`); ``game``: what an
    entry is called (new games, those of ``update``, need neither). A ValueError names the entry."""
    if draws is None:
        return
    bad = ~np.isin(score, (0.0, 0.5, 1.0))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"draws={draws!r} needs results 1, 0.5 or 0; {game} {k} (in time order) has "
                         f"score {score[k]!r}")
    if game == "game" and not (score == 0.5).any():
        raise ValueError(f"draws={draws!r}: the log has no draw, so the draw parameter cannot be fitted; "
                         "use draws=None")
    if game == "game" and (score == 0.5).all():
        raise ValueError(f"draws={draws!r}: every game of the log is a draw, so the draw parameter has no finite "
                         "maximum and the results say nothing of the players; use draws=None")


class DynamicReadout:
    """The ratings of a fitted :class:`~discrank.DynamicElo` at a time, over time, and drawn."""

    def _walk(self, drift: float) -> float:
        """The drift predictions grow the variance by (0 for a stationary model)."""
        return drift if self.period is not None else 0.0

    def _state_at(self, players: np.ndarray, b: np.ndarray):
        """(mean, variance, known) of each player's rating in period ``b`` (see :meth:`ratings_at`)."""
        return state_at(self.pp_player_, self.pp_bin_, self.pp_rating_, self.pp_sd_ ** 2, players, b,
                        self._walk(self.drift_), self.prior_scale_)

    def _outcomes_at(self, ia: np.ndarray, ib: np.ndarray, b: np.ndarray, codes: Optional[dict] = None) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of games of players ``ia``, ``ib`` in periods ``b``, with each feature's
        term (:func:`discrank.models.dynamic._part.forecast`; ``codes``: the games' columns by Games field, codes
        into the fitted labels, -1 for one not fitted)."""
        eta = math.log(self.draw_nu_) if self.draw_nu_ is not None else self.draw_threshold_
        d, v = difference(self.pp_player_, self.pp_bin_, self.pp_rating_, self.pp_sd_ ** 2, self._walk(self.drift_),
                          self.prior_scale_, ia, ib, b)
        d, v, eta = forecast(self._parts, self, d, v, eta, ia, ib, codes or {})
        return outcomes(d, self.variance_scale_ * v, eta, self.draws)

    def _log_outcomes(self, log: Any, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of each game of ``log`` at its time, with its covariates.

        The rating difference's uncertainty is integrated out by the probit approximation: the logit
        ``d`` is scaled by ``1 / sqrt(1 + variance_scale_ pi v / 8)``, ``v`` the sum of the two ratings'
        variances (a rating after its player's last game has its variance grown by ``drift^2`` per
        period). A player coded -1 (not seen, ``unseen="prior"``) is at the prior, N(0, prior_scale_^2).
        A context or match format column is refused by a model fitted without one (a ValueError naming it,
        :meth:`discrank.models.dynamic._part.LabelPart.codes`); the margins, an outcome of the game as its score is,
        are not read.
        """
        if self.period is None:
            b = np.zeros(ia.size, dtype=np.int64)
        else:
            if log.time is None:
                raise ValueError("predicting games of a dynamic model needs their times (GameLog time=...)")
            b = period_index(np.asarray(log.time), self.period)
        codes = {}
        for part in self._parts:
            codes[part.column] = part.codes(self, log, ia.size)
        return self._outcomes_at(ia, ib, b, codes)

    def predict_proba(self, a: Any, b: Any, *, time: Any = None, context: Any = None, match_format: Any = None,
                      advantage: Any = None, unseen: str = "raise", outcomes: bool = False) -> Any:
        """P(a beats b), the expected score P(a wins) + P(draw) / 2, of games between ``a`` and ``b`` at ``time``, in
        their ``context`` and ``match_format``, with their ``advantage`` covariates: the forecast of
        :meth:`predict_games` for a GameLog of those games (the probit approximation of its uncertainty).

        Parameters
        ----------
        a, b : array_like or scalar
            Labels of the players.
        time : datetime-like, number or array of them, optional
            The games' time, one for every game or one each, in the fitted times' units (a date such as
            "2024-06-01" for dated games). Default: the last fitted period, where each player's latest rating is.
            A model with ``period=None`` (the same ratings at every time) refuses it.
        context, match_format : label or array of labels, optional
            The games' context and match format (one for every game, or one each): needed by a model fitted with
            them, refused by a model fitted without them. A value the fit has not seen has no effect (a context)
            or the reference's scale 1 (a format).
        advantage : dict or array_like, optional
            The covariates of ``a`` by name (``{"home": 1}``; a covariate not given is 0), or an array in the order
            of ``advantage_names_``; default: a neutral game. Refused by a model fitted without covariates.
        unseen : {"raise", "prior"}, optional
            A player the model has not seen is an :class:`~discrank._util.exceptions.UnknownPlayerError`
            (default), or with ``"prior"`` a player whose rating is the prior, N(0, prior_scale_^2).
        outcomes : bool, default False
            Return [P(a wins), P(draw), P(b wins)] of each game (shape (n, 3)), :meth:`predict_outcomes`' for a GameLog
            of the games, instead of the expected score.

        Returns
        -------
        float or ndarray of float
            A float for two scalars (an array of shape (n, 3) with ``outcomes``).

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        discrank._util.exceptions.UnknownPlayerError
            A player not seen, with ``unseen="raise"``.
        ValueError
            A keyword the model cannot use or one it needs and does not get (named), values of another kind
            than the fitted ones or of another length than the games, ``unseen`` not one of ``("raise",
            "prior")``.
        """
        ia, ib = self._player_codes(a, b, unseen)
        n = ia.size
        given = {"context": context, "match_format": match_format}
        for part in self._parts:  # a context or format the model needs
            if isinstance(part, LabelPart) and part.n_labels(self) and given[part.log_column] is None:
                shown = show(np.asarray(getattr(self, part.labels_attr)).tolist())
                raise ValueError(f"this DynamicElo was fitted with the {part.many.split()[-1]} {shown}: give the "
                                 f"games' {part.log_column}= (one value, or one per game)")
        names = tuple(self.advantage_names_)
        x = advantage_rows(advantage, n, names, "this DynamicElo")
        games = _Fixtures(n, context, match_format, x if x is not None or not names else np.zeros((n, len(names))),
                          names)
        bins = np.full(n, self.last_bin_, dtype=np.int64) if time is None else self._time_bins(time, n)
        self._warn_before_fit(bins, time)
        codes = {}
        for part in self._parts:
            codes[part.column] = part.codes(self, games, n)
        three = self._outcomes_at(ia, ib, bins, codes)
        if outcomes:
            return three
        proba = expected_score(three)
        return float(proba[0]) if np.ndim(a) == 0 and np.ndim(b) == 0 else proba

    def _warn_before_fit(self, bins: np.ndarray, time: Any) -> None:
        """A UserWarning where a period of ``bins`` (those of the times ``time``) is before the first fitted game."""
        if bins.size and self.pp_bin_.size and bins.min() < self.pp_bin_.min():
            warnings.warn(f"time={show(time if np.ndim(time) == 0 else np.asarray(time)[np.argmin(bins)])} is before "
                          "the first fitted game: every rating there is the prior's, N(0, prior_scale_^2), and the "
                          "forecast says nothing of the players", UserWarning, stacklevel=3)

    def _time_bins(self, time: Any, n: int) -> np.ndarray:
        """The periods of the times ``time`` of ``n`` games (one for every game, or one each; :meth:`_time_bin`)."""
        if self.period is None:
            raise ValueError(f"time={show(time)} does not apply: this DynamicElo has period=None, one rating per "
                             "player at every time")
        t = np.asarray(time)
        if t.ndim == 0:
            return self._time_bin(time, n)
        if t.shape != (n,):
            raise ValueError(f"time has {t.size} values for {n} games")
        try:  # each distinct time read once
            values, inverse = np.unique(t, return_inverse=True)
        except TypeError:  # (times that do not compare: each read, and the wrong one named)
            values, inverse = t, np.arange(n)
        return np.array([self._time_bin(value, 1)[0] for value in values], dtype=np.int64)[inverse]

    def _players(self, players: Any) -> np.ndarray:
        """The codes of labels, every player for None; an unknown label is a ValueError naming it."""
        from discrank._util.labels import as_label_array, canonical_labels

        if players is None:
            return np.arange(len(self.labels_))
        asked = np.atleast_1d(np.asarray(players))
        idx = self._label_lookup().lookup(canonical_labels(as_label_array(asked, "players")))
        if (idx < 0).any():
            raise ValueError(f"unknown player {show(asked[idx < 0][0])}")
        return idx

    def ratings_at(self, time: Any, players: Any = None):
        """Each player's rating and its standard deviation at ``time``.

        Between two periods in which a player played, the rating is interpolated (the mean of the random
        walk bridging the two MAP ratings); after the last, it stays, its variance grown by ``drift^2``
        per period; before the first game, the answer is the prior, N(0, prior_scale_^2) (``known`` is
        False).

        Parameters
        ----------
        time : datetime-like or number
            The time (one value).
        players : array_like, optional
            Labels (default: every player).

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``rating``, ``sd``, ``known`` (False where the prior answers).
        """
        import pandas as pd

        self._check_fitted()
        idx = self._players(players)
        b = self._time_bin(time, idx.size)
        m, v, known = self._state_at(idx, b)
        return pd.DataFrame({"player": self.labels_[idx], "rating": m, "sd": np.sqrt(v), "known": known})

    def _time_bin(self, time: Any, n: int) -> np.ndarray:
        """The period of ``time`` (read in the units of the fitted times, :func:`discrank.data._rows.time_bound`),
        repeated ``n`` times."""
        if self.period is None:
            return np.zeros(n, dtype=np.int64)
        fitted = self.games_.time
        value = time_bound(time, fitted, "time")
        if fitted.dtype.kind != "M" and not math.isfinite(value):
            raise ValueError(f"time={show(value)} is not a finite number")
        return np.full(n, period_index(np.array([value]).astype(fitted.dtype), self.period)[0], dtype=np.int64)

    def _verdict(self) -> str:
        """What the fit found, in a few lines (``discrank info``)."""
        self._check_fitted()
        walk = ("one rating per player (period=None)" if self.period is None else
                f"a random walk per {self.period!r} period, drift {self.drift_:.4g} logits per period")
        lines = [f"dynamic Elo: {walk}; prior scale {self.prior_scale_:.4g}, variance scale {self.variance_scale_:.4g}",
                 f"{self.pp_rating_.size} player-periods from {self._n_games():.0f} games"
                 + ("" if self.period is None else f", the last period {self._bin_start(np.array([self.last_bin_]))[0]}")]
        if self.draw_nu_ is not None:
            lines.append(f"Davidson's draw parameter nu {self.draw_nu_:.4g} (se of log nu {self.draw_eta_se_:.2g})")
        if self.draw_threshold_ is not None:
            lines.append(f"Rao-Kupper's draw threshold {self.draw_threshold_:.4g} (se {self.draw_eta_se_:.2g})")
        lines += [line for line in (part.verdict(self) for part in self._parts) if line is not None]
        return "\n".join(lines)

    def _check_sizes(self, h: Any) -> None:
        """The ratings of a model file against the player-periods ``h`` makes, and the global parameters."""
        for key in ("pp_rating_", "pp_sd_"):
            if getattr(self, key).shape != (h.n_pp,):
                raise ValueError(f"{key} has shape {getattr(self, key).shape}, but the games make {h.n_pp} "
                                 "player-periods")
        tail, names = self.theta_tail_, self.advantage_names_
        size = h.n_cov + (self.draws is not None)
        if tail.shape != (size,):
            raise ValueError(f"theta_tail_ has shape {tail.shape}, expected ({size},): the {h.n_cov} covariates' "
                             f"coefficients{', then the draw parameter' if self.draws else ''}")
        if not np.array_equal(tail[:len(names)], self.beta_):
            raise ValueError(f"beta_ = {self.beta_.tolist()} differs from the coefficients in theta_tail_ "
                             f"({tail[:len(names)].tolist()})")

    def _check_scalars(self) -> None:
        """The fitted scalars of a model file: the drift (with a period), the prior and variance scales by
        their parameters' rules; the fit's record (converged, iterations, gradient) defaulted when absent."""
        if self.period is not None:
            if getattr(self, "drift_", None) is None:
                raise ValueError("scalars.drift_ is missing (a model with a period has a drift)")
            self.drift_ = float(check_param(type(self), "drift", self.drift_))
        else:
            self.drift_ = None
        for key in ("prior_scale_", "variance_scale_"):
            if key not in self.__dict__:
                raise ValueError(f"scalars.{key} is missing")
            setattr(self, key, float(check_param(type(self), key[:-1], getattr(self, key))))
        for key, default in (("converged_", False), ("n_iter_", 0), ("n_cg_", 0), ("gradient_", np.nan),
                             ("objective_", np.nan)):
            setattr(self, key, type(default)(self.__dict__.get(key, default)))

    # ------------------------------------------------------------------ the current table
    def _n_games(self) -> float:
        """The games fitted."""
        return self.games_.n_games

    def history(self, players: Any = None):
        """The rating history: one row per player and period in which the player played.

        Parameters
        ----------
        players : array_like, optional
            Labels (default: every player).

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``period`` (the period's index: days, ISO weeks, months or years since
            1970, or ``floor(t / period)``), ``time`` (the period's start), ``rating``, ``sd`` (the
            standard deviation from the player's block of the Hessian, as Whole-History Rating), ``games``.
        """
        import pandas as pd

        self._check_fitted()
        if players is None:
            sel = np.arange(self.pp_player_.size)
        else:
            sel = np.concatenate([np.arange(self._start[i], self._start[i] + self._count[i]) for i in self._players(players)])
        return pd.DataFrame({"player": self.labels_[self.pp_player_[sel]], "period": self.pp_bin_[sel],
                             "time": self._bin_start(self.pp_bin_[sel]), "rating": self.pp_rating_[sel],
                             "sd": self.pp_sd_[sel], "games": self.pp_games_[sel]})

    def _bin_start(self, b: np.ndarray) -> np.ndarray:
        if self.period is None:
            return np.zeros(b.size)
        return period_start(b, self.period, isinstance(self.period, str))

    def plot_history(self, players: Any, ax: Any = None, band: float = 1.0):
        """Rating histories of chosen players, with a band of ``band`` standard deviations (needs
        matplotlib: ``pip install 'discrank[plot]'``).

        Parameters
        ----------
        players : array_like
            Labels of the players to draw.
        ax : matplotlib Axes, optional
            Where to draw; default: a new figure.
        band : float, default 1
            Half-width of the shaded band, in standard deviations (0: none).

        Returns
        -------
        matplotlib Axes
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover
            raise ImportError("plot_history needs matplotlib: pip install 'discrank[plot]'") from exc
        frame = self.history(np.atleast_1d(np.asarray(players)))
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4))
        for name, part in frame.groupby("player", sort=False):
            line, = ax.plot(part["time"], part["rating"], lw=1.2, label=str(name))
            if band > 0:
                ax.fill_between(part["time"], part["rating"] - band * part["sd"], part["rating"] + band * part["sd"],
                                color=line.get_color(), alpha=0.2, lw=0)
        ax.set_ylabel("rating (logits)")
        ax.legend(fontsize=7)
        return ax


def state_at(pp_player, pp_bin, r, var, players, b, drift, prior):
    """(mean, variance, known) of players' ratings at periods ``b`` (see DynamicElo.ratings_at); the
    player-periods are sorted by (player, period)."""
    n = players.size
    mean = np.zeros(n)
    v = np.full(n, prior * prior)
    known = np.zeros(n, dtype=bool)
    if n == 0 or pp_player.size == 0:
        return mean, v, known
    # the last player-period at or before (player, b): the player's own, or it has none (the prior); a
    # period beyond the fitted ones is searched as the first before them or the last (the same answer), so
    # that the key player * span + period stays within int64 for any period
    lo, hi = int(pp_bin.min()) - 1, int(pp_bin.max())
    span = hi - lo + 1
    k = np.searchsorted(pp_player * span + (pp_bin - lo), players * span + (np.clip(b, lo, hi) - lo), side="right") - 1
    ok = (players >= 0) & (k >= 0)
    ok[ok] = pp_player[k[ok]] == players[ok]
    kk, bb = k[ok], b[ok]
    nxt = np.minimum(kk + 1, pp_player.size - 1)
    last = (kk + 1 == pp_player.size) | (pp_player[nxt] != players[ok])
    exact = pp_bin[kk] == bb
    r_k, v_k = r[kk], var[kk]
    dt = (bb - pp_bin[kk]).astype(np.float64)
    mm = r_k.copy()
    vv = v_k + drift * drift * dt
    mid = ~exact & ~last
    if mid.any():
        k2 = kk[mid] + 1
        gap = (pp_bin[k2] - pp_bin[kk[mid]]).astype(np.float64)
        w = dt[mid] / gap
        mm[mid] = (1 - w) * r_k[mid] + w * r[k2]
        vv[mid] = ((1 - w) * np.sqrt(v_k[mid]) + w * np.sqrt(var[k2])) ** 2 + drift * drift * dt[mid] * (1 - w)
    mean[ok], v[ok], known[ok] = mm, vv, True
    return mean, v, known


def difference(pp_player, pp_bin, r, var, drift, prior, ia, ib, b) -> tuple[np.ndarray, np.ndarray]:
    """(logit, variance) of games between ``ia`` and ``ib`` in periods ``b``: the ratings' difference, and the sum of
    the two ratings' variances."""
    ma, va, _ = state_at(pp_player, pp_bin, r, var, ia, b, drift, prior)
    mb, vb, _ = state_at(pp_player, pp_bin, r, var, ib, b, drift, prior)
    return ma - mb, va + vb


def outcomes(d: np.ndarray, v: np.ndarray, eta: Optional[float], draws: Optional[str] = None) -> np.ndarray:
    """[P(a wins), P(draw), P(b wins)] for logit ``d`` with variance ``v`` (probit approximation); ``eta``:
    the draw parameter of the model ``draws`` (Davidson's log nu, Rao and Kupper's threshold)."""
    return outcome_probabilities(d / np.sqrt(1.0 + _PI8 * v), eta, draws)

