"""The simulated league of ``discrank demo``: an Elo game plus a disc game, every pair playing."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from discrank.games import sample_games

__all__ = ["simulate_league"]


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
