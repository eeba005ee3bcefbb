"""Elo's sequential update as an estimator (:class:`OnlineElo`): ``fit`` runs it over a game log in time
order, ``update`` goes on with new games, and the current ratings predict (the update itself is
:func:`discrank.models.online._runs.online_elo`'s, in C++: cpp/include/discrank/online.hpp)."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np
from scipy.special import expit

from discrank.core import _core
from discrank._util.checks import check_no_self_play, show
from discrank._util.params import check_param
from discrank._util.labels import LabelIndex, as_label_array, extend_labels, factorize_pair
from discrank._util.losses import binary_log_loss
from discrank._util.exceptions import NumericalError
from discrank.models._base import Model, atomic, unused_columns, stores_params
from discrank.models._prediction import CurrentStatePredictions
from discrank.models._timed import TimedRatings
from discrank.persist.model_file import FittedArray

__all__ = ["OnlineElo", "STEP_GRID", "check_online_log", "tune_step"]


def check_online_log(log: Any, where: str, update: str) -> None:
    """What an online model's ``fit`` and ``update`` (``where``: ``"OnlineElo.fit"``) take: a GameLog (a
    TypeError otherwise), without advantage columns (a ValueError names them: ``update``, the model's
    update, has no covariate term); its context, margin and match format columns, which the update does not
    use, each named in an :class:`~discrank._util.exceptions.UnusedColumnWarning`."""
    from discrank.data.logs import GameLog

    if not isinstance(log, GameLog):
        raise TypeError(f"{where} expects a discrank.GameLog, got {type(log).__name__}: its update rates the games "
                        "one by one in time order, which pairs and period sums have lost")
    unused_columns(log, where)
    if log.advantage is None:
        return
    names = ", ".join(map(repr, log.advantage_names)) or f"{np.shape(log.advantage)[-1]} unnamed"
    model = where.split(".")[0]
    raise ValueError(f"{where}: the log has the advantage column(s) {names}, which {update} cannot use (it has no "
                     "covariate term; it would ignore them); the models that fit advantage covariates are Elo, "
                     "EloPlusPlus, DiscDecomposition (loss='bce') and DynamicElo (whose update refits with them), "
                     f"or give {model} the log without its advantage columns")


#: Steps (logit units) tried when OnlineElo tunes its step: K = 0.7 .. 368 Elo points, by factors of sqrt 2.
STEP_GRID = tuple(2.0 ** (x / 2.0) for x in range(-20, 2))


def tune_step(forecasts: Callable[[float], np.ndarray], frozen: Callable[[float, np.ndarray, np.ndarray], np.ndarray],
              score: np.ndarray, time: Optional[np.ndarray], validation: Any = None,
              grid: tuple = STEP_GRID) -> tuple[float, dict]:
    """The step of a sequential update that predicts best: OnlineElo's rule, for any update.

    Without a usable ``validation``, the step whose forecasts (each game predicted before its update)
    have the lowest log loss over the latest half of the games (the first half lets the ratings settle).
    With a :class:`discrank.Validation` cut (``time`` given, and at least 10 games on each side of it):
    with ``online=True`` the step whose forecasts of the validation window have the lowest log loss, with
    ``online=False`` the one whose state, frozen after the games before the window (and its gap), predicts
    the window best. A step whose run diverges (:class:`~discrank._util.exceptions.NumericalError`) scores
    infinity; ties go to the first step of ``grid``.

    Parameters
    ----------
    forecasts : callable
        ``forecasts(step)``: P(a beats b) of every game, each predicted before its update.
    frozen : callable
        ``frozen(step, fitted, window)``: P(a beats b) of the games ``window`` (indices) predicted by the
        state after the games ``fitted`` (indices).
    score : ndarray, shape (n_games,)
        The games' scores, in the order of the updates.
    time : ndarray or None
        The games' times, sorted; None: no time order to cut (the latest half is used).
    validation : discrank.Validation, optional
        Where to validate (above).
    grid : tuple of float, optional
        The steps tried; default :data:`STEP_GRID`, OnlineElo's.

    Returns
    -------
    tuple
        The step chosen, and the log loss of each step of ``grid`` (a dict in grid order).
    """
    from discrank.solvers._tuning import Search, time_cut

    window = None
    if validation is not None and time is not None:
        fit, val = time_cut(time, validation)
        if fit.sum() >= 10 and val.sum() >= 10:
            window = (np.flatnonzero(fit), np.flatnonzero(val))
    def loss(step: float) -> float:
        try:
            if window is None:  # forecasts of the latest half, each before its update
                half = len(score) // 2
                q, y = forecasts(step)[half:], score[half:]
            elif validation.online:  # forecasts of the validation window, each before its update
                q, y = forecasts(step)[window[1]], score[window[1]]
            else:  # the state frozen after the games fitted, predicting the validation window
                q, y = frozen(step, *window), score[window[1]]
        except NumericalError:
            return math.inf
        return float(np.mean(binary_log_loss(q, y)))

    # the tuning's one search (discrank.solvers._tuning.Search), scanning the grid's indices
    search = Search(lambda k, plan: (loss(grid[int(k)]), None))
    best = search.scan(range(len(grid)))
    return grid[best], {grid[k]: value for k, (value, _) in search.fits.items()}


class OnlineElo(CurrentStatePredictions, TimedRatings, Model):
    """Elo's sequential update (:func:`discrank.models.online._runs.online_elo`) as an estimator: ``fit(log)``
    runs it over a game log in time order, ``update`` goes on, and the predictions use the current ratings (a
    player not seen is an :class:`~discrank._util.exceptions.UnknownPlayerError`, or at rating 0 with
    ``unseen="prior"``). A log with advantage columns is refused. ``ratings_frame`` is the current table
    (``elo``, ``games``, ``last_seen``; ``active_since=``), and ``save`` writes a file that ``discrank.load``
    reads back, ``update`` going on from it.

    Parameters
    ----------
    step : float, optional
        The update's step in logit units (Elo's K times ln 10 / 400). None (default): the step of
        ``STEP_GRID`` that predicts best on the log given to ``fit`` (:func:`tune_step`): the forecasts of
        the latest half of the games, or with a :class:`discrank.Validation` its window's, online with
        ``online=True``, else from the ratings frozen before the window and its gap. ``step_`` is the value
        used, ``step_scores_`` the log loss of each.

    Attributes
    ----------
    labels_, ratings_ : ndarray
        The players and their current ratings (logits; a new player starts at 0). :meth:`update` appends
        the players it meets for the first time to ``labels_``.
    step_ : float
    n_games_ : ndarray of int
        The games each player has played in the games run.
    last_seen_ : ndarray or None
        The time of each player's last game (None: games without times): ``ratings_frame``'s
        ``last_seen``, which ``active_since=`` filters on.
    time_span_ : ndarray or None
        The first and the last time of the games run (None: games without times).
    sequential_updates : bool
        True (a class attribute): the ratings move after every game, so ``discrank.evaluate``'s online
        protocol updates this model at every distinct time of the test period.
    """

    sequential_updates = True
    #: ``update(log)`` continues the fit (the rating-model protocol, :class:`discrank.evaluation.protocol.RatingModel`).
    updates = True
    _optional_params = ("step",)
    #: Whether the model fits advantage covariates: OnlineElo's update has none, so it refuses a log with
    #: advantage columns, and :func:`discrank.evaluate` gives it the log without them (saying so).
    takes_advantage = False
    #: What a model file holds (:mod:`discrank.persist.model_file`): the ratings, each player's games and last time,
    #: and the first and the last time of the games run (so that ``update`` goes on forward in time).
    _fitted_arrays = (
        FittedArray("ratings_", ("n",)),
        FittedArray("n_games_", ("n",), kind="i", nonnegative="game count"),
        FittedArray("last_seen_", ("n",), kind="t", required=False, bound=None, ints="last_seen_int_"),
        FittedArray("time_span_", ("span",), kind="t", required=False, bound=None, ints="time_span_int_"),
    )
    _fitted_scalars = ("step_",)

    @stores_params
    def __init__(self, step: Optional[float] = None):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    @atomic
    def fit(self, log: Any, *, validation: Any = None) -> "OnlineElo":
        """Run the update over ``log`` (a :class:`~discrank.GameLog`, sorted by time when it has times);
        ``validation``: how the step is tuned (see the class).

        Parameters
        ----------
        log : GameLog
            The games. A log with times is run in time order (a stable sort: games of one time keep their
            order); one without, in its order.
        validation : discrank.Validation, optional
            How the step is tuned when ``step`` is None (see the class; with ``online=True`` the gap plays no
            part). Used only when the log has times and the cut leaves at least 10 games on each side;
            otherwise the step is tuned on the forecasts of the latest half of the games.

        Returns
        -------
        OnlineElo
            ``self``, with ``labels_``, ``ratings_``, ``step_`` and ``step_scores_`` (None when ``step``
            is given).

        Raises
        ------
        TypeError
            ``log`` is not a :class:`~discrank.GameLog`, or ``validation`` is not a
            :class:`discrank.Validation`.
        ValueError
            A ``step`` that is not a positive finite number, or a log with advantage columns (named; the
            online update cannot use them).

        Notes
        -----
        The fit is all or nothing: when it raises, the estimator is left as it was.
        """
        from discrank.data._coding import code_log
        from discrank.solvers._tuning import check_validation
        check_online_log(log, "OnlineElo.fit", "Elo's online update")
        self._check_params()
        order = np.argsort(log.time, kind="stable") if log.time is not None else np.arange(len(log))
        labels, ca, cb = code_log(log)
        ia, ib = ca[order].astype(np.int32), cb[order].astype(np.int32)
        score = np.ascontiguousarray(np.asarray(log.score, dtype=np.float64)[order])
        n = len(labels)

        def run(step: float) -> tuple[np.ndarray, np.ndarray]:
            s = np.zeros(n)
            pred, _ = _core.online_elo(ia, ib, score, float(step), s, 0)
            return s, pred

        def frozen(step: float, keep: np.ndarray, val: np.ndarray) -> np.ndarray:
            s = np.zeros(n)
            _core.online_elo(ia[keep], ib[keep], score[keep], float(step), s, 0)
            return expit(s[ia[val]] - s[ib[val]])

        self.step_scores_ = None
        step = self.step
        if step is None:
            times = None if log.time is None else np.asarray(log.time)[order]
            step, self.step_scores_ = tune_step(lambda c: run(c)[1], frozen, score, times,
                                                check_validation(validation))
        self.ratings_, _ = run(step)
        self.step_ = float(step)
        self.labels_ = labels
        self._forget_labels()
        self.n_games_, self.last_seen_, self.time_span_ = np.zeros(n, dtype=np.int64), None, None
        self._record(ia, ib, None if log.time is None else np.asarray(log.time)[order])
        return self

    @atomic
    def update(self, log: Any) -> "OnlineElo":
        """Continue the sequential update over the new games of ``log`` from the current ratings.

        The games are run in time order (a stable sort: games of one time keep their order) with the
        step ``step_``; a player not seen before starts at rating 0 and is appended to ``labels_``.
        The result is that of one :func:`online_elo` run over the games of ``fit`` followed by these
        (at the same step).

        Parameters
        ----------
        log : GameLog
            The new games, with labels of the kind fitted (numbers or strings); when both this log and
            the games already seen have times, none of its games may come before the latest time seen.

        Returns
        -------
        OnlineElo
            ``self``, with ``ratings_`` and ``labels_`` updated.

        Raises
        ------
        TypeError
            ``log`` is not a :class:`~discrank.GameLog`, a ``score`` that is not numeric, or times of
            another kind than those fitted (numbers against datetimes).
        ValueError
            A score outside [0, 1] or not finite, a game of a player against themself, labels of another
            kind than those fitted, a game before the latest time already seen, or a log with advantage
            columns (named; the online update cannot use them).
        discrank._util.exceptions.NotFittedError
            The estimator is not fitted.

        Notes
        -----
        The update is all or nothing: when it raises, the estimator is left as it was.
        """
        check_online_log(log, "OnlineElo.update", "Elo's online update")
        self._check_fitted()
        if len(log) == 0:
            return self
        time = None if log.time is None else np.asarray(log.time)
        order = np.argsort(time, kind="stable") if time is not None else np.arange(len(log))
        last = None if self.time_span_ is None else self.time_span_[1]
        if time is not None and last is not None:
            try:
                early = time[order[0]] < last
            except TypeError:
                raise TypeError(f"the times of update's log ({time.dtype}) are not of the kind fitted "
                                f"({np.asarray(last).dtype})") from None
            if early:
                raise ValueError(f"update's log has a game at time {show(time[order[0]])}, before the latest time "
                                 f"already seen ({show(last)}): the updates run forward in time")
        a = as_label_array(log.a, "a")[order]
        b = as_label_array(log.b, "b")[order]
        score = np.asarray(log.score)
        if score.dtype.kind not in "iufb":
            raise TypeError(f"score must be numeric, got dtype {score.dtype}")
        score = np.ascontiguousarray(score[order], dtype=np.float64)
        bad = ~np.isfinite(score) | (score < 0) | (score > 1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"score must be finite and in [0, 1]; got {show(score[k])} at game {k}")
        uniq, code_a, code_b = factorize_pair(a, b)
        known = np.asarray(self.labels_)
        labels, position = extend_labels(known, uniq, "update's log", self._label_lookup())
        index = self._label_lookup() if labels is known else LabelIndex(labels)
        ia = np.ascontiguousarray(position[code_a], dtype=np.int32)
        ib = np.ascontiguousarray(position[code_b], dtype=np.int32)
        check_no_self_play(ia, ib, a)
        s = np.zeros(len(labels))
        s[: len(known)] = self.ratings_
        _core.online_elo(ia, ib, score, float(self.step_), s, 0)
        self.ratings_, self.labels_, self._label_index = s, labels, index
        self._record(ia, ib, None if time is None else time[order])
        return self

    def _outcome_proba(self, ia: np.ndarray, ib: np.ndarray, x: Any = None) -> np.ndarray:
        """[P(a wins), 0, P(b wins)] of games between the players coded ``ia`` and ``ib`` (-1: rating 0):
        ``P(a wins) = sigmoid(s_a - s_b)``; ``x`` is unused (no covariates)."""
        sa = np.where(ia >= 0, self.ratings_[np.maximum(ia, 0)], 0.0)
        sb = np.where(ib >= 0, self.ratings_[np.maximum(ib, 0)], 0.0)
        p = expit(sa - sb)
        return np.stack([p, np.zeros_like(p), 1.0 - p], axis=1)

    # ------------------------------------------------------------------ the current table
    def _current(self) -> tuple[np.ndarray, None, np.ndarray]:
        """Each player's current rating and games (the update has no standard deviation)."""
        return self.ratings_, None, self.n_games_

    # ------------------------------------------------------------------ a model file
    def _rebuild(self) -> None:
        """The state a model file's fields imply, checked (a ValueError names the field): the step, one
        last time per player, the first and the last time of the games run, in order."""
        self._check_params()
        check_param(type(self), "step", self.step_)
        self.step_ = float(self.step_)
        n = len(self.labels_)
        seen, span = self.last_seen_, self.time_span_
        if (seen is None) != (span is None):
            raise ValueError(f"the file holds {'time_span_' if seen is None else 'last_seen_'} without "
                             f"{'last_seen_' if seen is None else 'time_span_'}: both or neither (games without times)")
        if seen is not None and seen.shape != (n,):
            raise ValueError(f"last_seen_ has shape {seen.shape}, expected ({n},): one time per player")
        if span is not None and (span.shape != (2,) or not span[0] <= span[1]):
            raise ValueError(f"time_span_ = {span.tolist()} is not the first and the last time of the games")
        self.step_scores_ = None

