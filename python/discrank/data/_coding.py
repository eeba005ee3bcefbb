"""A game log's labels coded once, and the pairs of any subset of its games built from the codes.

Coding the labels is the costly step on string labels: the tuning's splits, the evaluation's windows,
the dynamic model and :class:`discrank.PeriodGames` code a log once (:func:`code_log`) and aggregate the
games they need from integers (:func:`pairs_from_codes`); :func:`game_log_pairs` aggregates a whole log
(:meth:`discrank.GameLog.to_pairs`). :func:`map_rows` carries per-player rows from
one set of labels to another (a warm start on other players). :func:`in_time_order` tells a log in time
order, which the tuning and the dynamic model use as it is (no permutation, no copy).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from discrank.data.pairs import PairwiseData

__all__ = ["code_log", "game_log_pairs", "in_time_order", "log_pairs", "pairs_from_codes", "map_rows"]


def code_log(log: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(labels, code of a, code of b) of a game log: its labels coded once (the costly step on string
    labels), so that the pairs of any subset of its games are built from integers."""
    from discrank._util.labels import as_label_array, factorize_pair

    uniq, ca, cb = factorize_pair(as_label_array(log.a, "a"), as_label_array(log.b, "b"))
    return uniq, ca.astype(np.int64, copy=False), cb.astype(np.int64, copy=False)


def in_time_order(t: np.ndarray) -> bool:
    """Whether the times ``t`` are sorted (a log in time order needs no permutation; NaN or NaT: not)."""
    return bool(np.all(t[1:] >= t[:-1]))


def log_pairs(log: Any, coded: Any = None, weights: Optional[str] = None) -> PairwiseData:
    """The games of a checked game log aggregated to pairs, with its advantage covariates by pair and value
    (``PairwiseData.covariates``) when it has any. ``coded``: ``code_log(log)`` if already made."""
    x = None if log.advantage is None else np.asarray(log.advantage, dtype=np.float64)
    return pairs_from_codes(*(code_log(log) if coded is None else coded), np.asarray(log.score, dtype=np.float64),
                            weights, x=x, names=tuple(log.advantage_names))


def game_log_pairs(log: Any, labels: Any = None, min_games: int = 1, weights: Optional[str] = None) -> PairwiseData:
    """The games of a game log aggregated to pairs, as :meth:`discrank.GameLog.to_pairs` gives them (see
    there), without its warning of the columns the pairs drop: with the advantage covariates by pair and value
    when the log has any (``min_games`` and ``labels`` then refused: a ValueError); the columns of a log not
    known to be checked checked first. The pairs of every game of a log with times keep it (``games_log``)."""
    pairs = _aggregate(log, labels, min_games, weights)
    pairs.games_log = log if log.time is not None and labels is None and min_games == 1 else None
    return pairs


def _aggregate(log: Any, labels: Any, min_games: int, weights: Optional[str]) -> PairwiseData:
    if log.advantage is not None:
        if min_games != 1 or labels is not None:
            raise ValueError("to_pairs of a log with advantage columns keeps the games by covariate value: "
                             "min_games and labels are not available there (filter the games with "
                             "min_player_games when reading the log)")
        if not log._checked:
            log = type(log).from_arrays(log.a, log.b, log.score, log.time,
                                        dict(zip(log.advantage_names, np.asarray(log.advantage).T)))
        return log_pairs(log, weights=weights)
    if log._checked:
        return PairwiseData._from_checked_games(log.a, log.b, log.score, labels, min_games=min_games, weights=weights)
    return PairwiseData.from_games(log.a, log.b, log.score, labels, min_games=min_games, weights=weights)


def pairs_from_codes(labels: np.ndarray, ca: np.ndarray, cb: np.ndarray, score: np.ndarray,
                     weights: Optional[str] = None, players: Optional[np.ndarray] = None,
                     x: Optional[np.ndarray] = None, names: tuple = ()) -> PairwiseData:
    """The games ``(ca, cb, score)`` (codes into ``labels``) aggregated to pairs. ``players``: the codes of
    the players of the result, in order (default: those who played, sorted); every game's players
    must be among them. ``x``: the games' advantage covariates (named ``names``), kept by pair and value
    in the result's ``covariates`` (:func:`discrank.data.pairs.covariate_pairs`)."""
    if players is None:
        used = np.zeros(len(labels), dtype=bool)
        used[ca] = True
        used[cb] = True
        players = np.flatnonzero(used)
    pos = np.full(len(labels), -1, dtype=np.int64)
    pos[players] = np.arange(players.size)
    if x is not None:
        from discrank.data.pairs import covariate_pairs

        return covariate_pairs(pos[ca], pos[cb], np.asarray(score, dtype=np.float64), x, names, labels[players],
                               weights)
    return PairwiseData._from_codes(pos[ca], pos[cb], np.asarray(score, dtype=np.float64), labels[players], weights)


def map_rows(labels_from: np.ndarray, values: np.ndarray, labels_to: np.ndarray, default: Callable[[int], np.ndarray]):
    """Rows of ``values`` (indexed like ``labels_from``) for the players ``labels_to``; players not in
    ``labels_from`` get ``default(count)``."""
    from discrank._util.labels import LabelIndex

    pos = LabelIndex(labels_from).lookup(labels_to)
    out = default(len(labels_to))
    found = pos >= 0
    out[found] = values[pos[found]]
    return out
