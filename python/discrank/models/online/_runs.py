"""Sequential rating updates over a time-ordered game log, in C++ (cpp/include/discrank/online.hpp):
:func:`online_elo` and :func:`online_disc`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank._util.checks import check_no_self_play, check_positive_float, check_positive_int, check_same_length, show
from discrank._util.labels import as_label_array, canonical_labels, extend_labels, factorize_pair
from discrank._util.exceptions import NumericalError

__all__ = ["OnlineRatings", "online_elo", "online_disc", "ELO_K32_STEP"]

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
    if known is None:
        labels, new, position = uniq, uniq[:0], np.arange(uniq.shape[0])
    else:
        labels, position = extend_labels(canonical_labels(as_label_array(known, "init.labels_")), uniq, "a",
                                          known_name="init.labels_")
        new = labels[len(known):]
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
    """Elo's classical sequential update over the games in order (natural-log units): after each game
    ``s_a += step (S - sigmoid(s_a - s_b))`` and ``s_b -= ...``.

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
        run starts from, new players at 0; default: every player starts at 0.
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
        A fitted disc model whose first component is transitive (``strength_`` and ``consistency_``,
        Proposition 2) to start from; new players (default: every player) start at strength 0 and
        consistency 1, an Elo player.
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
    discrank._util.exceptions.NumericalError
        The updates diverged (a state beyond ``DIVERGED``, or NaN): the update is bilinear, and too large a
        step grows it without bound. It is a ``ValueError``.
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
