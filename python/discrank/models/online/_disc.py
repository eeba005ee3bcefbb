"""The paper's online disc update (Section 4, "Online Update") as an estimator, :class:`OnlineDisc`, with the
surface of :class:`~discrank.models.online._elo.OnlineElo` (its step tuned by :func:`tune_step`)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np
from scipy.special import expit

from discrank._util.checks import show
from discrank._util.labels import LabelIndex, as_label_array, check_same_kind
from discrank._util.params import Rule
from discrank.models.analysis import disc_verdict, reparametrize, transitivity_summary
from discrank.models._base import Model, atomic, stores_params
from discrank.models._prediction import CurrentStatePredictions
from discrank.models._table import refuse_table
from discrank.models._timed import TimedRatings
from discrank.models.online._elo import check_online_log, tune_step
from discrank.models.online._runs import online_disc
from discrank.persist.model_file import FittedArray

__all__ = ["OnlineDisc", "tune_step", "disc_win_proba"]


def _is_one(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and v == 1


def _positive_finite(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(v) and v > 0


#: OnlineDisc's own rules (:mod:`discrank._util.params`): one component, and a positive finite step.
PARAM_RULES = {
    "n_components": Rule(_is_one, "1: the paper's online update (Section 4) moves one disc component, in the "
                                  "strength/consistency form of Proposition 2"),
    "step": Rule(_positive_finite, "a positive finite number (the update's step), or None to tune it"),
}


def disc_win_proba(strength: np.ndarray, consistency: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """P(a beats b) = sigmoid(v_a v_b (u~_a - u~_b)) of the online disc state, for the players coded
    ``ia`` and ``ib`` (-1: a player not seen, at strength 0 and consistency 1, where the update starts
    every player).

    Parameters
    ----------
    strength, consistency : ndarray, shape (n_players,)
        The state ``u~`` and ``v`` of :func:`discrank.models.online._runs.online_disc`.
    ia, ib : ndarray of int
        The players of each game (codes into the state, or -1).

    Returns
    -------
    ndarray of float
        P(a beats b) of each game.
    """
    ua = np.where(ia >= 0, strength[np.maximum(ia, 0)], 0.0)
    ub = np.where(ib >= 0, strength[np.maximum(ib, 0)], 0.0)
    va = np.where(ia >= 0, consistency[np.maximum(ia, 0)], 1.0)
    vb = np.where(ib >= 0, consistency[np.maximum(ib, 0)], 1.0)
    return expit(va * vb * (ua - ub))


def _in_time_order(log: Any) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """(the order of the games: by time, stable; the sorted times or None) of a game log."""
    if log.time is None:
        return np.arange(len(log)), None
    order = np.argsort(log.time, kind="stable")
    return order, np.asarray(log.time)[order]


def _time_fields(latest: Any) -> tuple[Any, str]:
    """A time as a model file keeps it: (a JSON number: a datetime's ticks of its unit, or the number;
    its dtype's name)."""
    value = np.asarray(latest)
    if value.dtype.kind == "M":
        return int(value.view(np.int64)), str(value.dtype)
    return (int(value) if value.dtype.kind in "iu" else float(value)), str(value.dtype)


def _show_time(value: Any) -> str:
    """A time for a message: a date as its text, a number as written."""
    return str(value) if isinstance(value, np.datetime64) else show(value)


def _file_time_ok(value: Any, kind: Any) -> bool:
    """Whether a model file's ``last_time_`` and ``time_dtype_`` make a time (:func:`_time_fields`)."""
    try:
        dtype = np.dtype(kind) if isinstance(kind, str) else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "Miuf" or str(dtype) != kind:
        return False
    if dtype.kind == "f":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    if dtype.kind == "M":  # ticks of a unit; -2^63 is NaT
        return np.datetime_data(dtype)[0] != "generic" and -(1 << 63) < value < (1 << 63)
    return int(np.iinfo(dtype).min) <= value <= int(np.iinfo(dtype).max)


class OnlineDisc(CurrentStatePredictions, TimedRatings, Model):
    """The paper's online disc update as an estimator: ``fit(log)`` runs
    :func:`discrank.models.online._runs.online_disc` over a game log in time order, and ``predict_proba``,
    ``predict_games`` and ``predict_outcomes`` predict from the current state.

    Each player has a strength ``u~`` and a consistency ``v``; ``P(a beats b) = sigmoid(v_a v_b (u~_a -
    u~_b))`` (one disc component, ``u = u~ v``, in the form of Proposition 2). After each game, from the values
    before it (Section 4, "Online Update", of Bertrand, Czarnecki and Gidel, AISTATS 2023; ``S`` the score of
    a, ``p`` the forecast)::

        u~_a += eta (S - p) v_a v_b          u~_b -= eta (S - p) v_a v_b
        v_a  += eta (S - p) v_b (u~_a - u~_b)    v_b  += eta (S - p) v_a (u~_a - u~_b)

    Every player starts at strength 0 and consistency 1 (an Elo player), and a player not seen is
    predicted there with ``unseen="prior"`` (else an :class:`~discrank._util.exceptions.UnknownPlayerError`).
    A log with advantage columns is refused.

    Parameters
    ----------
    n_components : int, default 1
        Only 1: the paper's online update moves one disc component (a ValueError otherwise).
    step : float, optional
        The update's step ``eta``, positive and finite. None (default): the step of
        :data:`discrank.models.online._elo.STEP_GRID` that predicts best on the log given to ``fit``, by
        :func:`tune_step` (OnlineElo's rule); a step whose run diverges is not chosen.

    Attributes
    ----------
    labels_ : ndarray
        The players; :meth:`update` appends the players it meets for the first time.
    strength_, consistency_ : ndarray, shape (n_players,)
        The current state ``u~`` and ``v``.
    u_, v_ : ndarray, shape (n_players, 1)
        The same state as a disc component: ``u = u~ v`` and ``v``.
    n_games_ : ndarray of int, shape (n_players,)
        The games each player has played.
    last_seen_, time_span_ : ndarray or None
        The time of each player's last game, and the first and the last time of the games run (None:
        games without times): ``ratings_frame``'s ``last_seen``, which ``active_since=`` filters on.
    step_ : float
        The step used.
    step_scores_ : dict or None
        The validation log loss of each step tried (None when ``step`` is given, or after loading).
    last_time_, time_dtype_ : number or None, str or None
        The latest time of the games seen, as a number in the units of ``time_dtype_`` (the ticks of
        a datetime's unit); None for games without times.
    sequential_updates : bool
        True (a class attribute): ``discrank.evaluate``'s online protocol updates it at every distinct time.
    """

    sequential_updates = True
    #: ``update(log)`` continues the fit (the rating-model protocol, :class:`discrank.evaluation.protocol.RatingModel`).
    updates = True
    batch_updates = False
    #: Whether the model fits advantage covariates: the online disc update has none.
    takes_advantage = False
    _fitted_arrays = (
        FittedArray("strength_", ("n",)),
        FittedArray("consistency_", ("n",)),
        FittedArray("n_games_", ("n",), kind="i", nonnegative="game count"),
        FittedArray("last_seen_", ("n",), kind="t", required=False, bound=None, ints="last_seen_int_"),
        FittedArray("time_span_", ("span",), kind="t", required=False, bound=None, ints="time_span_int_"),
    )
    _fitted_scalars = ("step_", "last_time_", "time_dtype_")
    _choices: dict = {}
    _optional_params = ("step",)
    _param_rules = PARAM_RULES

    @stores_params
    def __init__(self, n_components: int = 1, step: Optional[float] = None):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    def _check_params(self, names: Optional[tuple] = None) -> None:
        """The parameters by their rules; the ValueError names the model, the parameter and the value."""
        try:
            super()._check_params(names)
        except ValueError as exc:
            raise ValueError(f"OnlineDisc: {exc}") from None

    # ------------------------------------------------------------------ fitting
    @atomic
    def fit(self, log: Any, *, validation: Any = None) -> "OnlineDisc":
        """Run the update over ``log`` from the start (every player at strength 0, consistency 1).

        Parameters
        ----------
        log : GameLog
            The games. A log with times is run in time order (a stable sort: games of one time keep their
            order); one without, in its order.
        validation : discrank.Validation, optional
            How the step is tuned when ``step`` is None (see the class); ignored when ``step`` is given.

        Returns
        -------
        OnlineDisc
            ``self``, fitted.

        Raises
        ------
        TypeError
            ``log`` is not a :class:`~discrank.GameLog`, or ``validation`` is not a
            :class:`discrank.Validation`.
        ValueError
            A parameter that breaks its rule (named with its value), or a log with advantage columns
            (named).
        discrank._util.exceptions.NumericalError
            The update diverged at the given step (a state beyond ``discrank.models.online._runs.DIVERGED``).

        Notes
        -----
        The fit is all or nothing: when it raises, the estimator is left as it was.
        """
        from discrank.data._coding import code_log
        from discrank.solvers._tuning import Validation

        self._check_params()
        check_online_log(log, "OnlineDisc.fit", "the paper's online disc update")
        if validation is not None and not isinstance(validation, Validation):
            raise TypeError(f"validation must be a discrank.Validation, got {type(validation).__name__}")
        labels, ca, cb = code_log(log)
        order, t = _in_time_order(log)
        ia, ib = ca[order], cb[order]
        score = np.ascontiguousarray(np.asarray(log.score, dtype=np.float64)[order])
        n = len(labels)

        def frozen(step: float, fitted: np.ndarray, window: np.ndarray) -> np.ndarray:
            run = online_disc(ia[fitted], ib[fitted], score[fitted], step=step)
            u, v = np.zeros(n), np.ones(n)
            u[run.labels], v[run.labels] = run.ratings, run.consistency
            return disc_win_proba(u, v, ia[window], ib[window])

        step, self.step_scores_ = self.step, None
        if step is None:
            step, self.step_scores_ = tune_step(lambda s: online_disc(ia, ib, score, step=s).predictions, frozen,
                                                score, t, validation)
        run = online_disc(ia, ib, score, step=step)  # (every player plays: run.labels are the codes, in order)
        self.labels_ = labels
        self._forget_labels()
        self.strength_, self.consistency_ = run.ratings, run.consistency
        self.n_games_, self.last_seen_, self.time_span_ = np.zeros(n, dtype=np.int64), None, None
        self._record(ia, ib, t)
        self.step_ = float(step)
        self.last_time_, self.time_dtype_ = (None, None) if t is None else _time_fields(t[-1])
        return self

    @atomic
    def update(self, log: Any) -> "OnlineDisc":
        """Continue the update over the new games of ``log`` from the current state, at the step ``step_``.

        The games run in time order (a stable sort); a player not seen before starts at strength 0 and
        consistency 1 and is appended to ``labels_``. The state is that of one
        :func:`~discrank.models.online._runs.online_disc` run over the games of ``fit`` followed by these.

        Parameters
        ----------
        log : GameLog
            The new games, with labels of the kind fitted; when both this log and the games already seen
            have times, none of its games may come before the latest time seen.

        Returns
        -------
        OnlineDisc
            ``self``, updated.

        Raises
        ------
        TypeError
            ``log`` is not a :class:`~discrank.GameLog`, or times of another kind than those fitted.
        ValueError
            Labels of another kind than those fitted, a game before the latest time already seen, or a
            log with advantage columns (named).
        discrank._util.exceptions.NotFittedError
            The estimator is not fitted.
        discrank._util.exceptions.NumericalError
            The update diverged.

        Notes
        -----
        The update is all or nothing: when it raises, the estimator is left as it was.
        """
        check_online_log(log, "OnlineDisc.update", "the paper's online disc update")
        self._check_fitted()
        order, t = _in_time_order(log)
        latest = self._latest_time()
        if t is not None and latest is not None:
            try:
                early = t[0] < latest
            except TypeError:
                raise TypeError(f"the times of update's log ({t.dtype}) are not of the kind fitted "
                                f"({self.time_dtype_})") from None
            if early:
                raise ValueError(f"OnlineDisc.update: the log has a game at time {_show_time(t[0])}, before the "
                                 f"latest time already seen ({_show_time(latest)}): the updates run forward in time")
        a, b = as_label_array(log.a, "a")[order], as_label_array(log.b, "b")[order]
        check_same_kind(("a", a), ("labels_", np.asarray(self.labels_)))
        run = online_disc(a, b, np.asarray(log.score)[order], step=self.step_, init=self)
        index = LabelIndex(run.labels) if run.new_players.size else self._label_lookup()
        self.labels_, self._label_index = run.labels, index
        self._record(index.lookup(a), index.lookup(b), t)
        self.strength_, self.consistency_ = run.ratings, run.consistency
        if t is not None:  # (t[-1] >= latest, checked above)
            self.last_time_, self.time_dtype_ = _time_fields(t[-1])
        return self

    # ------------------------------------------------------------------ state
    def _latest_time(self) -> Any:
        """The latest time seen, in its dtype (None without times)."""
        if self.time_dtype_ is None:
            return None
        dtype = np.dtype(self.time_dtype_)
        if dtype.kind == "M":
            return np.array([self.last_time_], dtype=np.int64).view(dtype)[0]
        return dtype.type(self.last_time_)

    @property
    def n_players_(self) -> int:
        """The number of players."""
        self._check_fitted()
        return int(self.labels_.shape[0])

    @property
    def u_(self) -> np.ndarray:
        """The state as a disc component's u: ``u~ v``, shape (n_players, 1)."""
        self._check_fitted()
        return (self.strength_ * self.consistency_)[:, None]

    @property
    def v_(self) -> np.ndarray:
        """The state as a disc component's v: the consistency, shape (n_players, 1)."""
        self._check_fitted()
        return self.consistency_[:, None]

    def refit_copy(self) -> "OnlineDisc":
        """A fresh copy with the step as chosen (the rating-model protocol's; OnlineDisc updates instead).

        Returns
        -------
        OnlineDisc
            Unfitted, its ``step`` the fitted ``step_``.
        """
        return type(self)(**{**self.get_params(), "step": self.step_})

    # ------------------------------------------------------------------ loading
    def _rebuild(self) -> None:
        """The scalars of a model file checked against each other (a ValueError names the one that is
        missing or wrong); the step's scores are not saved."""
        self._check_params()
        step, last, kind = getattr(self, "step_", None), getattr(self, "last_time_", None), getattr(self, "time_dtype_", None)
        if not _positive_finite(step):
            raise ValueError(f"scalars.step_ = {show(step)} is not a positive finite number (the update's step)")
        if (last is None) != (kind is None):
            raise ValueError(f"scalars.last_time_ = {show(last)} and scalars.time_dtype_ = {show(kind)}: a file "
                             "holds both (games with times) or neither")
        if kind is not None and not _file_time_ok(last, kind):
            raise ValueError(f"scalars.last_time_ = {show(last)} with time_dtype_ = {show(kind)} is not a time (a "
                             "datetime64 with a unit as its ticks, or a number of an integer or float type)")
        self.step_, self.step_scores_ = float(step), None

    # ------------------------------------------------------------------ prediction
    def _outcome_proba(self, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """[P(a wins), 0, P(b wins)] of games between the players coded ``ia`` and ``ib`` (:func:`disc_win_proba`)."""
        p = disc_win_proba(self.strength_, self.consistency_, ia, ib)
        return np.stack([p, np.zeros_like(p), 1.0 - p], axis=1)

    # ------------------------------------------------------------------ readout
    def _readout(self) -> Optional[tuple[np.ndarray, np.ndarray]]:
        """(strength, consistency > 0) of Proposition 2, or None for a cyclic state. Consistencies of one
        sign: the state's own strength and ``|v|``; of both signs: the reading of the disc component
        ``(u~ v, v)`` (:func:`discrank.models.analysis.reparametrize`) where it is transitive."""
        v = self.consistency_
        if (v > 0).all() or (v < 0).all():
            return self.strength_, np.abs(v)
        u = self.strength_ * v
        if not disc_verdict(u, v).transitive:
            return None
        try:
            rep = reparametrize(u, v)
        except ValueError:  # all ties, or the origin on the hull's border: no finite strength
            return None
        return rep.strength, rep.consistency

    def _sort_key(self) -> Optional[np.ndarray]:
        """The strength of :meth:`_readout`, higher first; None for a cyclic state."""
        readout = self._readout()
        return None if readout is None else readout[0]

    def _verdict(self) -> str:
        """What the state says, in a line (``discrank info``)."""
        self._check_fitted()
        kind = "transitive" if self._readout() is not None else "cyclic (no strength to rank by)"
        return (f"online disc update (Section 4), step {self.step_:.4g}, {int(self.n_games_.sum()) // 2} games: the "
                f"disc component is {kind}")

    def ratings_frame(self, *, min_games: Any = None, max_sd: Any = None, active_since: Any = None, context: Any = None,
                      anchor: Any = None, anchor_rating: float = 1500.0):
        """A pandas DataFrame of the current state, one row per player, strongest first.

        Columns: ``player``, ``rank``, ``games``; where the state is transitive (Proposition 2) ``elo``
        (the strength on the familiar scale: ``anchor_rating + 400 / ln 10 * (strength - reference)``,
        the reference being the mean strength or, with ``anchor=label``, that player's), ``strength`` and
        ``consistency`` (> 0); then ``u_1`` and ``v_1``, the state as a disc component, ``last_seen``
        (the time of the player's last game; NaN for games without times) and ``provisional`` (fewer than 10
        games, :mod:`discrank.models._table`). ``df.attrs`` holds the model name, the note of the players hidden
        and marked, and the transitivity summary (Proposition 1).

        Parameters
        ----------
        min_games : int, optional
            Hide the players with fewer games.
        max_sd, context : optional
            Refused: the state has no standard deviation, and takes no contexts.
        active_since : time, optional
            Keep only the players whose last game is at or after it, within the times of the games run
            (as :meth:`discrank.DynamicElo.ratings_frame`); default: every player.
        anchor : label, optional
            The player whose ``elo`` is ``anchor_rating``; default: the mean strength is.
        anchor_rating : float, optional
            The ``elo`` of the reference.

        Returns
        -------
        pandas.DataFrame
            Sorted by strength, ``rank`` 1 first; for a cyclic state (no strength) in the players' order,
            with ``rank`` NaN.

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        ValueError
            ``anchor`` is not a player of the model; ``active_since`` outside the times of the games run,
            of the other kind, or given for games without times; an option the model cannot use, or out of range.
        """
        self._check_fitted()
        refuse_table(self, context=context)
        readout = self._readout()
        last = self._last_seen()
        keep = None if active_since is None else last >= self._time_in_range(active_since, "active_since")
        cols: dict = {}
        if readout is not None:
            cols["strength"], cols["consistency"] = readout
        cols["u_1"], cols["v_1"], cols["last_seen"] = self.u_[:, 0], self.v_[:, 0], last
        frame = self._frame(cols, None if readout is None else readout[0], self.n_games_,
                            elo=None if readout is None else readout[0], anchor=anchor, anchor_rating=anchor_rating,
                            keep=keep, min_games=min_games, max_sd=max_sd, since=show(active_since))
        summary = transitivity_summary(self.u_, self.v_)
        frame.attrs["transitivity"] = {"share": [float(x) for x in summary.share],
                                       "transitive": [bool(x) for x in summary.transitive]}
        return frame

