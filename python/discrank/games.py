"""Synthetic games of the paper, and game logs sampled from them."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

__all__ = ["elo_game", "disc_game", "example3", "sample_games"]


def elo_game(s: Any) -> np.ndarray:
    """Example 2.1: ``P_ij = sigmoid(s_i - s_j)``.

    Parameters
    ----------
    s : array_like of float, shape (n,)
        The players' ratings (logits).

    Returns
    -------
    ndarray, shape (n, n)
        The payoff matrix ``P[i, j] = P(i beats j)``.
    """
    s = np.asarray(s, dtype=np.float64)
    return expit(s[:, None] - s[None, :])


def disc_game(u: Any, v: Any) -> np.ndarray:
    """Example 2.2: ``P_ij = sigmoid(u_i v_j - v_i u_j)``; u, v of shape (n,) or (n, k) (a sum of k discs).

    Parameters
    ----------
    u, v : array_like of float, shape (n,) or (n, k)
        The players' points on each of the k disc components (one column per component).

    Returns
    -------
    ndarray, shape (n, n)
        The payoff matrix ``P[i, j] = sigmoid(sum_l u_il v_jl - v_il u_jl)``.
    """
    u = np.asarray(u, dtype=np.float64).reshape(len(u), -1)
    v = np.asarray(v, dtype=np.float64).reshape(len(v), -1)
    return expit(u @ v.T - v @ u.T)


def example3(gamma: float, delta: float) -> np.ndarray:
    """Example 3: the transitive three-player game P^(gamma, delta), gamma, delta in (0.5, 1].

    Parameters
    ----------
    gamma : float
        P(player 0 beats player 1) = P(player 0 beats player 2); the paper takes it in (0.5, 1] (not
        checked).
    delta : float
        P(player 1 beats player 2); the paper takes it in (0.5, 1] (not checked).

    Returns
    -------
    ndarray, shape (3, 3)
        The payoff matrix, 0.5 on the diagonal.
    """
    return np.array([[0.5, gamma, gamma], [1 - gamma, 0.5, delta], [1 - gamma, 1 - delta, 0.5]])


def sample_games(P: Any, pairs: Any, games_per_pair: Any, seed: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Game log drawn from a payoff matrix: ``games_per_pair`` Bernoulli(P_ab) games for each (a, b) in ``pairs``.

    Returns ``(a, b, score)`` arrays, one entry per game, in a random order.

    Parameters
    ----------
    P : array_like of float, shape (n, n)
        The payoff matrix ``P[a, b] = P(a beats b)``.
    pairs : array_like of int, shape (n_pairs, 2)
        The pairs ``(a, b)`` of player indices (rows and columns of ``P``) that play.
    games_per_pair : int or array_like of int, shape (n_pairs,)
        Number of games of each pair; a single number is used for every pair.
    seed : int, numpy.random.Generator or None, optional
        Seed of ``numpy.random.default_rng``; default: fresh randomness.

    Returns
    -------
    a, b : ndarray, shape (n_games,)
        The players of each game.
    score : ndarray of float, shape (n_games,)
        1.0 when ``a`` won, 0.0 when it lost.
    """
    P = np.asarray(P, dtype=np.float64)
    pairs = np.asarray(pairs)
    rng = np.random.default_rng(seed)
    counts = np.broadcast_to(np.asarray(games_per_pair), (pairs.shape[0],))
    a = np.repeat(pairs[:, 0], counts)
    b = np.repeat(pairs[:, 1], counts)
    score = (rng.random(a.shape[0]) < P[a, b]).astype(np.float64)
    order = rng.permutation(a.shape[0])
    return a[order], b[order], score[order]
