"""The ``discrank`` command line."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional, Sequence

import numpy as np

__all__ = ["main", "simulate_league"]


def simulate_league(
    n_players: int = 60, games_per_pair: int = 20, cyclic_strength: float = 1.5, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A league with a transitive and a cyclic part, every pair playing ``games_per_pair`` games.

    Each player has an Elo-like skill ``s`` and a style, an angle ``theta`` on a circle (think rock,
    paper, scissors): ``logit P(i beats j) = s_i - s_j + c sin(theta_i - theta_j)``, a sum of an Elo game
    and a disc game (Examples 2.1 and 2.2). Returns ``(a, b, score, true_logit_matrix)``.
    """
    from discrank.games import sample_games

    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 0.6, n_players)
    theta = rng.uniform(0.0, 2.0 * np.pi, n_players)
    logit = skill[:, None] - skill[None, :] + cyclic_strength * np.sin(theta[:, None] - theta[None, :])
    P = 1.0 / (1.0 + np.exp(-logit))
    pairs = np.array(np.triu_indices(n_players, k=1)).T
    a, b, score = sample_games(P, pairs, games_per_pair, seed=rng)
    return a, b, score, logit


def _leaderboard(title: str, labels: np.ndarray, value: np.ndarray, header: str, top: int) -> str:
    order = np.argsort(-value)[:top]
    lines = [title, f"  rank  player  {header}"]
    lines += [f"  {r + 1:>4}  {labels[k]!s:>6}  {value[k]:>{len(header)}.3f}" for r, k in enumerate(order)]
    return "\n".join(lines)


def _field_score(model, n: int) -> np.ndarray:
    """Mean predicted probability of beating every other player."""
    a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    P = model.predict_proba(a.ravel(), b.ravel()).reshape(n, n)
    np.fill_diagonal(P, np.nan)
    return np.nanmean(P, axis=1)


def demo(args: argparse.Namespace) -> int:
    from discrank import DiscDecomposition, Elo, PairwiseData

    if args.players < 4 or args.games_per_pair < 1:
        raise ValueError(f"--players must be >= 4 and --games-per-pair >= 1, got {args.players} and {args.games_per_pair}")
    a, b, score, _ = simulate_league(args.players, args.games_per_pair, args.cyclic, args.seed)
    data = PairwiseData.from_games(a, b, score)
    train, test = data.split(0.2, seed=args.seed)
    print(
        f"Simulated league: {data.n_players} players, {len(a)} games, logit P = skill difference + "
        f"{args.cyclic} x sin(style difference) (an Elo game plus a disc game).\n"
        f"Fitting on {train.n_pairs} pairs, {test.n_pairs} pairs hidden for testing.\n"
    )
    t0 = time.perf_counter()
    elo = Elo().fit(train)
    t1 = time.perf_counter()
    disc = DiscDecomposition(n_components=args.components, random_state=args.seed).fit(train)
    t2 = time.perf_counter()
    print(_leaderboard("Elo (stationary, Eq. 1)", data.labels, elo.ratings_, "rating", args.top))
    print()
    print(
        _leaderboard(
            f"Disc decomposition, k={args.components} (ranked by mean predicted win probability)",
            data.labels, _field_score(disc, data.n_players), "P(win)", args.top,
        )
    )
    summary = disc.transitivity()
    shares = ", ".join(f"{100 * x:.0f}%" for x in summary.share)
    print(
        f"\nThe main disc component is {'transitive' if summary.main_transitive else 'cyclic'} (Proposition 1); "
        f"share of each component: {shares}."
    )
    print()
    print("Held-out pairs           log loss per game    MSE on pair probabilities   fit time")
    for name, model, seconds in (("Elo", elo, t1 - t0), (f"Disc k={args.components}", disc, t2 - t1)):
        print(f"  {name:<22} {model.log_loss(test):>12.4f}  {model.mse(test):>24.5f}   {seconds:>7.2f} s")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="discrank", description="Ratings for two-player zero-sum games.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="simulate a league with cycles, fit Elo and the disc decomposition")
    p.add_argument("--players", type=int, default=60, help="number of players (default 60)")
    p.add_argument("--games-per-pair", type=int, default=20, help="games per pair (default 20)")
    p.add_argument("--cyclic", type=float, default=1.5, help="strength of the cyclic part (default 1.5)")
    p.add_argument("--components", type=int, default=2, help="disc components k (default 2)")
    p.add_argument("--top", type=int, default=10, help="rows of each leaderboard (default 10)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.set_defaults(func=demo)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:
        print(f"discrank: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
