"""Synthetic games of the paper, game logs sampled from them, and the simulated league of ``discrank demo``."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

__all__ = ["elo_game", "disc_game", "example3", "sample_games", "simulate_league"]


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



def simulate_league(
    n_players: int = 60, games_per_pair: int = 20, cyclic_strength: float = 1.5, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A league with a transitive and a cyclic part, every pair playing ``games_per_pair`` games.

    Each player has an Elo-like skill ``s`` and a style, an angle ``theta`` on a circle (think rock,
    paper, scissors): ``logit P(i beats j) = s_i - s_j + c sin(theta_i - theta_j)``, a sum of an Elo game
    and a disc game (Examples 2.1 and 2.2).

    Parameters
    ----------
    n_players : int, optional
        Players of the league.
    games_per_pair : int, optional
        Games each pair plays.
    cyclic_strength : float, optional
        ``c``, the weight of the disc game.
    seed : int, optional
        Seed of the skills, styles and games.

    Returns
    -------
    a, b, score : ndarray
        One entry per game: the players (indices) and the first player's result, 1 or 0.
    logit : ndarray, shape (n_players, n_players)
        The true ``logit P(i beats j)``.
    """
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 0.6, n_players)
    theta = rng.uniform(0.0, 2.0 * np.pi, n_players)
    logit = skill[:, None] - skill[None, :] + cyclic_strength * np.sin(theta[:, None] - theta[None, :])
    pairs = np.array(np.triu_indices(n_players, k=1)).T
    a, b, score = sample_games(expit(logit), pairs, games_per_pair, seed=rng)
    return a, b, score, logit
