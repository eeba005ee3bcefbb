"""Sequential rating updates over a time-ordered game log, in C++ (cpp/include/discrank/online.hpp)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from scipy.special import expit

from discrank import _core
from discrank.models._base import Params, atomic
from discrank.models._prediction import GamePredictions, code_players, expected_score
from discrank._checks import check_no_self_play, check_positive_float, check_positive_int, check_same_length, show
from discrank._labels import LabelIndex, as_label_array, check_same_kind, factorize_pair
from discrank.exceptions import NumericalError

__all__ = ["OnlineRatings", "OnlineElo", "online_elo", "online_disc", "ELO_K32_STEP"]

#: The classical K = 32 Elo update in the natural-log units used here (32 ln 10 / 400).
ELO_K32_STEP = 32.0 * math.log(10.0) / 400.0


@dataclass
class OnlineRatings:
    """Result of a sequential run.

    Attributes
    ----------
    labels : ndarray
        The players, in the order of the rating arrays.
    ratings : ndarray, shape (n_players,)
        Elo: final ratings. Disc: final strengths ``u~``.
    consistency : ndarray or None
        Disc: final consistencies ``v``.
    predictions : ndarray, shape (n_games,)
        P(a beats b) predicted for each game before its update: the online forecast.
    snapshots : ndarray or None
        With ``snapshot_every=m``: the ratings after every m-th game, shape (n_games // m, n_players)
        (disc: (n_games // m, 2, n_players), strength then consistency).
    new_players : ndarray
        Labels not in ``init`` that started from the default (rating 0; strength 0 and consistency 1).
    """

    labels: np.ndarray
    ratings: np.ndarray
    consistency: Optional[np.ndarray]
    predictions: np.ndarray
    snapshots: Optional[np.ndarray]
    new_players: np.ndarray


def _prepare(a: Any, b: Any, score: Any, times: Any, step: Any, snapshot_every: Any, known: Optional[np.ndarray]):
    check_positive_float(step, "step")
    snapshot_every = check_positive_int(snapshot_every, "snapshot_every", allow_none=True)
    a = as_label_array(a, "a")
    b = as_label_array(b, "b")
    score = np.asarray(score)
    if score.dtype.kind not in "iufb":
        raise TypeError(f"score must be numeric, got dtype {score.dtype}")
    score = np.ascontiguousarray(score, dtype=np.float64)
    lengths = {"a": a.shape[0], "b": b.shape[0], "score": score.shape[0] if score.ndim == 1 else -1}
    if times is not None:
        times = np.asarray(times)
        lengths["times"] = times.shape[0] if times.ndim == 1 else -1
    if check_same_length(lengths) == 0:
        raise ValueError("no game given: the log is empty")
    bad = ~np.isfinite(score) | (score < 0) | (score > 1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"score must be finite and in [0, 1]; got {show(score[k])} at game {k}")
    if times is not None:
        if times.dtype.kind not in "iufM":
            raise TypeError(f"times must be numbers or datetimes, got dtype {times.dtype}")
        if times.dtype.kind == "f" and not np.all(np.isfinite(times)):
            k = int(np.flatnonzero(~np.isfinite(times))[0])
            raise ValueError(f"times[{k}] = {show(times[k])} is not finite")
        back = times[1:] < times[:-1]
        if back.any():
            k = int(np.flatnonzero(back)[0]) + 1
            raise ValueError(
                f"times must be non-decreasing (updates run in the order of the games); times[{k}] = "
                f"{show(times[k])} comes before times[{k - 1}] = {show(times[k - 1])}"
            )
    # Players: those of `known` first (in its order), then the new ones (sorted).
    uniq, code_a, code_b = factorize_pair(a, b)
    if known is not None:
        check_same_kind(("a", a), ("init.labels_", known))
    if known is None:
        labels, new, position = uniq, uniq[:0], np.arange(uniq.shape[0])
    else:
        position = LabelIndex(known).lookup(uniq)
        unseen = position < 0
        new = uniq[unseen]
        position[unseen] = len(known) + np.arange(new.shape[0])
        labels = as_label_array(known.tolist() + new.tolist(), "labels") if new.size else known
    ia = position[code_a].astype(np.int32)
    ib = position[code_b].astype(np.int32)
    check_no_self_play(ia, ib, a)
    return ia, ib, score, labels, new, 0 if snapshot_every is None else snapshot_every


def online_elo(
    a: Any,
    b: Any,
    score: Any,
    *,
    step: float = ELO_K32_STEP,
    init: Any = None,
    times: Any = None,
    snapshot_every: Optional[int] = None,
) -> OnlineRatings:
    """Elo's classical sequential update over the games in order (natural-log units).

    ``s_a += step (S - sigmoid(s_a - s_b))`` and ``s_b -= ...`` after each game; ``step`` is Elo's K factor
    times ln 10 / 400 (default: K = 32). ``init``: a fitted :class:`~discrank.Elo` (or any model with
    ``labels_`` and ``ratings_``) to continue from; new players start at 0. ``times``, when given, must be
    non-decreasing: the log is processed in its order.

    Parameters
    ----------
    a, b : array_like, shape (n_games,)
        Labels of the two players of each game, in the order the games are played: numbers or strings,
        one kind for both (and for ``init``'s labels); no game of a player against themself.
    score : array_like of float, shape (n_games,)
        Score of ``a`` in each game, numeric, finite and in [0, 1] (1 a win, 0 a loss, 0.5 a draw).
    step : float, optional
        The update's step, positive: Elo's K factor times ln 10 / 400; default ``ELO_K32_STEP`` (K = 32).
    init : model, optional
        A fitted :class:`~discrank.Elo` (or any model with ``labels_`` and ``ratings_``) whose ratings the
        run starts from; default: every player starts at 0.
    times : array_like of numbers or datetimes, shape (n_games,), optional
        The games' times, finite and non-decreasing; only checked: the log is processed in its order.
    snapshot_every : int, optional
        Keep the ratings after every ``snapshot_every``-th game (an integer >= 1); default: no snapshots.

    Returns
    -------
    OnlineRatings
        The final ratings, the forecast of each game before its update, and the snapshots.

    Raises
    ------
    TypeError
        A ``score`` that is not numeric, ``times`` that are neither numbers nor datetimes, or labels that
        are neither numbers nor strings (bools, bytes).
    ValueError
        Inputs of different lengths, no game, a score outside [0, 1] or not finite, times not finite or
        decreasing, a game of a player against themself, labels of mixed kinds, a ``step`` that is not a
        positive finite number, or a ``snapshot_every`` that is not an integer >= 1.
    """
    known = None if init is None else np.asarray(init.labels_)
    ia, ib, score, labels, new, every = _prepare(a, b, score, times, step, snapshot_every, known)
    s = np.zeros(len(labels))
    if init is not None:
        s[: len(known)] = np.asarray(init.ratings_, dtype=np.float64)
    pred, snaps = _core.online_elo(ia, ib, score, float(step), s, every)
    return OnlineRatings(labels, s, None, pred, snaps if every else None, new)


#: online_disc refuses a run whose strengths or consistencies grew beyond this (a diverged update).
DIVERGED = 1e6


def online_disc(
    a: Any,
    b: Any,
    score: Any,
    *,
    step: float = 0.05,
    init: Any = None,
    times: Any = None,
    snapshot_every: Optional[int] = None,
) -> OnlineRatings:
    """The paper's online disc update (Section 4, "Online Update") over the games in order.

    With strength ``u~`` and consistency ``v`` and ``p = sigmoid(v_a v_b (u~_a - u~_b))``:
    ``u~_a += step (S - p) v_a v_b``, ``v_a += step (S - p) v_b (u~_a - u~_b)``, and symmetrically for b.
    ``init``: a fitted disc model whose first component is transitive (it has ``strength_`` and
    ``consistency_``, Proposition 2) to continue from; new players start at strength 0, consistency 1
    (an Elo player). A :class:`~discrank.exceptions.NumericalError` (a ``ValueError``) when the updates
    diverge (a state beyond ``DIVERGED``, or NaN): the update is bilinear, and too large a step makes it
    grow without bound.

    Parameters
    ----------
    a, b : array_like, shape (n_games,)
        Labels of the two players of each game, in the order the games are played: numbers or strings,
        one kind for both (and for ``init``'s labels); no game of a player against themself.
    score : array_like of float, shape (n_games,)
        Score of ``a`` in each game, numeric, finite and in [0, 1] (1 a win, 0 a loss, 0.5 a draw).
    step : float, optional
        The update's step, positive; default 0.05.
    init : model, optional
        A fitted disc model whose first component is transitive (``strength_`` and ``consistency_`` set)
        whose strengths and consistencies the run starts from; default: every player starts at strength
        0 and consistency 1.
    times : array_like of numbers or datetimes, shape (n_games,), optional
        The games' times, finite and non-decreasing; only checked: the log is processed in its order.
    snapshot_every : int, optional
        Keep the ratings after every ``snapshot_every``-th game (an integer >= 1); default: no snapshots.

    Returns
    -------
    OnlineRatings
        The final strengths (``ratings``) and consistencies, the forecast of each game before its update,
        and the snapshots.

    Raises
    ------
    TypeError
        A ``score`` that is not numeric, ``times`` that are neither numbers nor datetimes, or labels that
        are neither numbers nor strings (bools, bytes).
    ValueError
        Inputs of different lengths, no game, a score outside [0, 1] or not finite, times not finite or
        decreasing, a game of a player against themself, labels of mixed kinds, a ``step`` that is not a
        positive finite number, or a ``snapshot_every`` that is not an integer >= 1.
        Also an ``init`` without ``strength_`` (not a fitted disc model with a transitive first
        component).
    discrank.exceptions.NumericalError
        The updates diverged (a state beyond ``DIVERGED``, or NaN).
    """
    if init is not None and getattr(init, "strength_", None) is None:
        raise ValueError(
            "init must be a fitted disc model whose first component is transitive (strength_ and consistency_ set); "
            "the online update is written in the strength/consistency form of Proposition 2"
        )
    known = None if init is None else np.asarray(init.labels_)
    ia, ib, score, labels, new, every = _prepare(a, b, score, times, step, snapshot_every, known)
    n = len(labels)
    state = np.zeros((2, n))
    state[1] = 1.0
    if init is not None:
        state[0, : len(known)] = init.strength_
        state[1, : len(known)] = init.consistency_
    pred, snaps = _core.online_disc(ia, ib, score, float(step), state, every)
    size = np.abs(state).max() if n else 0.0
    if not size <= DIVERGED:  # (NaN too)
        raise NumericalError(
            f"online_disc diverged with step={step!r}: the strengths and consistencies reached {size:.3g} "
            f"(beyond {DIVERGED:g}); the update is bilinear in them, and a step this large makes it grow "
            "without bound. Use a smaller step (the default is 0.05)"
        )
    snapshots = snaps.reshape(-1, 2, n) if every else None
    return OnlineRatings(labels, state[0], state[1], pred, snapshots, new)


def _refuse_advantage(log: Any, method: str) -> None:
    """A ValueError naming the advantage columns of ``log``: OnlineElo's update has no covariates."""
    if log.advantage is None:
        return
    names = ", ".join(map(repr, log.advantage_names)) or f"{np.shape(log.advantage)[-1]} unnamed"
    raise ValueError(f"OnlineElo.{method}: the log has the advantage column(s) {names}, which Elo's online update "
                     "cannot use (it would ignore them); the models that fit advantage covariates are Elo, "
                     "EloPlusPlus, DiscDecomposition (loss='bce') and DynamicElo (whose update refits with them), "
                     "or give OnlineElo the log without its advantage columns")


#: Steps (logit units) tried when OnlineElo tunes its step: K = 0.7 .. 368 Elo points, by factors of sqrt 2.
STEP_GRID = tuple(2.0 ** (x / 2.0) for x in range(-20, 2))


class OnlineElo(Params, GamePredictions):
    """Elo's sequential update (:func:`online_elo`) as an estimator: ``fit(log)`` runs it over a game log
    in time order, ``predict_proba``, ``predict_games`` and ``predict_outcomes`` predict from the current
    ratings (a player not seen is an :class:`~discrank.exceptions.UnknownPlayerError`, or with
    ``unseen="prior"`` a player at rating 0). The update has no advantage covariates: a log with
    advantage columns is refused (``fit`` and ``update``).

    Parameters
    ----------
    step : float, optional
        The update's step in logit units (Elo's K times ln 10 / 400). None (default): the step of
        ``STEP_GRID`` that predicts best on the log given to ``fit``: without ``validation``, the one
        whose forecasts (each game predicted before its update) have the lowest log loss over the
        latest half of the games (the first half lets the ratings settle); with a
        :class:`discrank.Validation` (``discrank.evaluate`` passes one shaped like its test), the one
        whose ratings, frozen at the end of the games before the validation window (and its gap),
        predict that window best; with ``Validation(online=True)`` (what ``discrank.evaluate`` passes
        under its online protocol), the one whose online forecasts of the validation window (the
        ratings run from the start of the log, each game predicted before its update) have the lowest
        log loss. ``step_`` is the value used, ``step_scores_`` the log loss of each.

    Attributes
    ----------
    labels_, ratings_ : ndarray
        The players and their current ratings (logits; a new player starts at 0). :meth:`update` appends
        the players it meets for the first time to ``labels_``.
    step_ : float
    sequential_updates : bool
        True (a class attribute): the ratings move after every game, so ``discrank.evaluate``'s online
        protocol updates this model at every distinct time of the test period.
    """

    sequential_updates = True
    #: Whether the model fits advantage covariates: OnlineElo's update has none, so it refuses a log with
    #: advantage columns, and :func:`discrank.evaluate` gives it the log without them (saying so).
    takes_advantage = False

    def __init__(self, step: Optional[float] = None):
        self.step = step

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
            How the step is tuned when ``step`` is None (see the class): with ``online=False`` (default),
            on the predictions of the validation window by the ratings frozen before it (and its gap);
            with ``online=True``, on the online forecasts of the validation window (the gap plays no
            part: the ratings run through every game). Used only when the log has times and the cut
            leaves at least 10 games on each side; otherwise the step is tuned on the forecasts of the
            latest half of the games. Ignored when ``step`` is given.

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
        from discrank._coding import code_log
        from discrank._tuning import Validation, time_cut
        from discrank.logs import GameLog

        if not isinstance(log, GameLog):
            raise TypeError(f"OnlineElo.fit expects a discrank.GameLog, got {type(log).__name__}: its update "
                            "rates the games one by one in time order, which pairs and period sums have lost")
        _refuse_advantage(log, "fit")
        if self.step is not None:
            _prepare(log.a[:1], log.b[:1], log.score[:1], None, self.step, None, None)  # checks the step
        order = np.argsort(log.time, kind="stable") if log.time is not None else np.arange(len(log))
        labels, ca, cb = code_log(log)
        ia, ib = ca[order].astype(np.int32), cb[order].astype(np.int32)
        score = np.ascontiguousarray(np.asarray(log.score, dtype=np.float64)[order])
        n = len(labels)

        def run(step: float) -> tuple[np.ndarray, np.ndarray]:
            s = np.zeros(n)
            pred, _ = _core.online_elo(ia, ib, score, float(step), s, 0)
            return s, pred

        self.step_scores_ = None
        step = self.step
        if step is None:
            frozen = None
            if validation is not None and log.time is not None:
                if not isinstance(validation, Validation):
                    raise TypeError(f"validation must be a discrank.Validation, got {type(validation).__name__}")
                fit, val = time_cut(np.asarray(log.time)[order], validation)
                if fit.sum() >= 10 and val.sum() >= 10:
                    frozen = (np.flatnonzero(fit), val)
            scores = []
            for candidate in STEP_GRID:
                if frozen is None:  # forecasts of the latest half, each before its update
                    half = len(score) // 2
                    y, q = score[half:], run(candidate)[1][half:]
                elif validation.online:  # forecasts of the validation window, each before its update
                    val = frozen[1]
                    y, q = score[val], run(candidate)[1][val]
                else:  # ratings frozen after the games fitted, predicting the validation window
                    keep, val = frozen
                    s = np.zeros(n)
                    _core.online_elo(ia[keep], ib[keep], score[keep], float(candidate), s, 0)
                    y, q = score[val], expit(s[ia[val]] - s[ib[val]])
                q = np.clip(q, 1e-15, 1 - 1e-15)
                scores.append(float(np.mean(-(y * np.log(q) + (1 - y) * np.log1p(-q)))))
            self.step_scores_ = dict(zip(STEP_GRID, scores))
            step = STEP_GRID[int(np.argmin(scores))]
        self.ratings_, _ = run(step)
        self.step_ = float(step)
        self.labels_ = labels
        self._index = LabelIndex(labels)
        self._last_time = None if log.time is None or len(log) == 0 else np.max(log.time)
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
        discrank.exceptions.NotFittedError
            The estimator is not fitted.

        Notes
        -----
        The update is all or nothing: when it raises, the estimator is left as it was.
        """
        from discrank.logs import GameLog

        if not isinstance(log, GameLog):
            raise TypeError(f"OnlineElo.update expects a discrank.GameLog, got {type(log).__name__}: its update "
                            "rates the games one by one in time order, which pairs and period sums have lost")
        _refuse_advantage(log, "update")
        if not hasattr(self, "ratings_"):
            from discrank.exceptions import NotFittedError

            raise NotFittedError("this OnlineElo is not fitted yet: call fit(log) first, then update(log)")
        if len(log) == 0:
            return self
        time = None if log.time is None else np.asarray(log.time)
        order = np.argsort(time, kind="stable") if time is not None else np.arange(len(log))
        last = getattr(self, "_last_time", None)
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
        if known.size:
            check_same_kind(("a", a), ("labels_", known))
        position = self._index.lookup(uniq)
        unseen = position < 0
        labels, index = known, self._index
        if unseen.any():
            new = uniq[unseen]
            position[unseen] = len(known) + np.arange(new.shape[0])
            if new.dtype == known.dtype:
                labels = np.concatenate([known, new])
            else:  # integer labels of two widths (int64 and uint64): one checked array again
                labels = as_label_array(known.tolist() + new.tolist(), "labels")
            index = LabelIndex(labels)
        ia = np.ascontiguousarray(position[code_a], dtype=np.int32)
        ib = np.ascontiguousarray(position[code_b], dtype=np.int32)
        check_no_self_play(ia, ib, a)
        s = np.zeros(len(labels))
        s[: len(known)] = self.ratings_
        _core.online_elo(ia, ib, score, float(self.step_), s, 0)
        self.ratings_, self.labels_, self._index = s, labels, index
        if time is not None:
            self._last_time = time[order[-1]] if last is None else max(last, time[order[-1]])
        return self

    def _player_codes(self, a: Any, b: Any, unseen: str) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the players ``a`` and ``b``: -1 for a player not seen (rating 0) with
        ``unseen="prior"``, else an :class:`~discrank.exceptions.UnknownPlayerError`."""
        if not hasattr(self, "ratings_"):
            from discrank.exceptions import NotFittedError

            raise NotFittedError("this OnlineElo is not fitted yet: call fit(log) first")
        return code_players(self._index, a, b, unseen, "OnlineElo")

    def _outcome_proba(self, ia: np.ndarray, ib: np.ndarray, x: Any = None) -> np.ndarray:
        """[P(a wins), 0, P(b wins)] of games between the players coded ``ia`` and ``ib`` (-1: rating 0):
        ``P(a wins) = sigmoid(s_a - s_b)``; ``x`` is unused (no covariates)."""
        sa = np.where(ia >= 0, self.ratings_[np.maximum(ia, 0)], 0.0)
        sb = np.where(ib >= 0, self.ratings_[np.maximum(ib, 0)], 0.0)
        p = expit(sa - sb)
        return np.stack([p, np.zeros_like(p), 1.0 - p], axis=1)

    def _log_outcomes(self, log: Any, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """:meth:`_outcome_proba` of the games of ``log`` (the current ratings: times play no part)."""
        return self._outcome_proba(ia, ib)

    def predict_proba(self, a: Any, b: Any, *, unseen: str = "raise") -> Any:
        """P(a beats b) = sigmoid(s_a - s_b) from the current ratings.

        Parameters
        ----------
        a, b : array_like or scalar
            Labels of the players, one each or arrays of one length.
        unseen : {"raise", "prior"}, optional
            A player not seen is an :class:`~discrank.exceptions.UnknownPlayerError` (default), or with
            ``"prior"`` a player at rating 0.

        Returns
        -------
        float or ndarray of float
            A float for two single players, else P(a beats b) for each pair.

        Raises
        ------
        discrank.exceptions.NotFittedError
            The estimator is not fitted.
        discrank.exceptions.UnknownPlayerError
            A player not seen, with ``unseen="raise"``.
        ValueError
            ``unseen`` is not one of ``("raise", "prior")``.
        """
        ia, ib = self._player_codes(a, b, unseen)
        proba = expected_score(self._outcome_proba(ia, ib))
        return float(proba[0]) if np.ndim(a) == 0 and np.ndim(b) == 0 else proba

    def relabel(self, labels: np.ndarray) -> None:
        """Labels from player codes (``discrank.evaluate`` fits on codes).

        Parameters
        ----------
        labels : ndarray
            ``labels[c]`` is the label of the player coded ``c``; ``labels_`` becomes ``labels[labels_]``.
        """
        self.labels_ = labels[np.asarray(self.labels_, dtype=np.int64)]
        self._index = LabelIndex(self.labels_)
