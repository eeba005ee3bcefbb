"""The losses of predictions, game by game: the log loss (predictions clipped to ``[EPS, 1 - EPS]``), the
Brier score, the accuracy and the three-outcome log loss. (The objectives the core fits are ``LOSSES`` in
:mod:`discrank.models._base`.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["EPS", "binary_log_loss", "game_losses", "outcome_log_loss", "outcome_losses", "outcome_pair_losses"]

#: Predictions are clipped to [EPS, 1 - EPS] in the log loss, so that a confident wrong 0 or 1 costs ~34.5.
EPS = 1e-15


def binary_log_loss(q: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The log loss ``-(y log q + (1 - y) log(1 - q))`` of each prediction ``q`` = P(a beats b) against
    the score ``y`` of a (a draw counts 0.5), with ``q`` clipped to ``[EPS, 1 - EPS]``.

    Parameters
    ----------
    q : ndarray of float
        Predicted probabilities.
    y : ndarray of float
        Observed scores (or probabilities) in [0, 1], of ``q``'s shape.

    Returns
    -------
    ndarray of float
        The loss of each prediction.
    """
    qc = np.clip(q, EPS, 1.0 - EPS)
    return -(y * np.log(qc) + (1.0 - y) * np.log1p(-qc))


def game_losses(q: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Per-game losses of predictions ``q`` = P(a beats b) against scores ``y`` of a (1, 0.5, 0).

    Parameters
    ----------
    q : ndarray of float, shape (n_games,)
        Predicted P(a beats b) of each game; clipped to ``[EPS, 1 - EPS]`` in the log loss.
    y : ndarray of float, shape (n_games,)
        Score of a in each game: 1, 0.5 or 0.

    Returns
    -------
    dict of str -> ndarray, shape (n_games,)
        ``log_loss`` (:func:`binary_log_loss`), ``brier`` (``(q - y)^2``) and ``correct`` (1 when the
        favourite won, 0 when it lost, 0.5 for a prediction of exactly 1/2, NaN for a draw) of each game.
    """
    correct = np.where(q == 0.5, 0.5, ((q > 0.5) == (y > 0.5)).astype(float))
    correct[y == 0.5] = np.nan
    return {"log_loss": binary_log_loss(q, y), "brier": (q - y) ** 2, "correct": correct}


def outcome_losses(outcomes: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-game three-outcome log loss ``-log P(observed outcome)`` of predictions ``outcomes`` = [P(a wins),
    P(draw), P(b wins)] against scores ``y`` of a, the probability clipped to ``[EPS, 1]``.

    Parameters
    ----------
    outcomes : ndarray of float, shape (n_games, 3)
        Predicted P(a wins), P(draw), P(b wins) of each game.
    y : ndarray of float, shape (n_games,)
        Score of a in each game: 1 (a win of a), 0.5 (a draw) or 0.

    Returns
    -------
    ndarray of float, shape (n_games,)
        The three-outcome log loss of each game (NaN for a score outside {0, 0.5, 1}).
    """
    outcomes = np.asarray(outcomes, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    which = np.where(y == 1.0, 0, np.where(y == 0.5, 1, 2))
    p = np.clip(outcomes[np.arange(y.shape[0]), which], EPS, 1.0)
    loss = -np.log(p)
    loss[~((y == 0.0) | (y == 0.5) | (y == 1.0))] = np.nan
    return loss


def outcome_pair_losses(outcomes: np.ndarray, p: np.ndarray, games: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The three-outcome log loss per game of each pair (or covariate row): its ``p * games - draws / 2``
    wins, ``draws`` draws and the rest losses scored by the clipped probabilities, divided by ``games``.

    Parameters
    ----------
    outcomes : ndarray of float, shape (n, 3)
        Predicted P(first wins), P(draw), P(second wins) of each pair.
    p, games, draws : ndarray of float, shape (n,)
        Each pair's score share of its first player, games and draws.

    Returns
    -------
    ndarray of float, shape (n,)
        The loss per game of each pair.
    """
    won = p * games - 0.5 * draws
    q = np.log(np.clip(outcomes, EPS, 1.0))
    return -(won * q[:, 0] + draws * q[:, 1] + (games - won - draws) * q[:, 2]) / games


def outcome_log_loss(outcomes: np.ndarray, p: np.ndarray, games: np.ndarray, draws: np.ndarray,
                     w: np.ndarray) -> float:
    """The three-outcome log loss per game of pairs (or covariate rows), weighted by ``w``: the weighted
    mean of :func:`outcome_pair_losses`.

    Parameters
    ----------
    outcomes : ndarray of float, shape (n, 3)
        Predicted P(first wins), P(draw), P(second wins) of each pair.
    p, games, draws, w : ndarray of float, shape (n,)
        Each pair's score share of its first player, games, draws and weight.

    Returns
    -------
    float
        ``sum(w * loss per game) / sum(w)``.
    """
    return float(np.sum(w * outcome_pair_losses(outcomes, p, games, draws)) / np.sum(w))
