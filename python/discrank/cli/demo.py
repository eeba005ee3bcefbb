"""``discrank demo``: Elo against the disc decomposition on a simulated league with cycles."""

from __future__ import annotations

import argparse
import time

import numpy as np

from discrank.cli._args import finite_float, int_at_least, write_file
from discrank.data.games import simulate_league
from discrank.data.pairs import PairwiseData
from discrank.models import DiscDecomposition, Elo

__all__ = ["DEMO_MAX_PLAYERS", "DEMO_MAX_GAMES", "add", "run"]


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


#: The largest league ``discrank demo`` simulates (every pair plays: memory grows with players^2).
DEMO_MAX_PLAYERS = 5000


DEMO_MAX_GAMES = 50_000_000


def run(args: argparse.Namespace) -> int:
    if args.players < 4 or args.games_per_pair < 1:
        raise ValueError(f"--players must be >= 4 and --games-per-pair >= 1, got {args.players} and {args.games_per_pair}")
    games = args.players * (args.players - 1) // 2 * args.games_per_pair
    if args.players > DEMO_MAX_PLAYERS or games > DEMO_MAX_GAMES:
        raise ValueError(f"--players {args.players} with --games-per-pair {args.games_per_pair} simulate {games:,} "
                         f"games; the demo simulates at most {DEMO_MAX_PLAYERS} players and {DEMO_MAX_GAMES:,} games")
    if 2 * args.components > args.players:
        raise ValueError(f"--components {args.components} needs at least {2 * args.components} players (k <= n/2); "
                         f"--players is {args.players}")
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
    if args.plot:
        try:
            import matplotlib
        except ImportError:
            print("\n(pip install 'discrank[plot]' to draw the embedding of the first disc component)")
            return 0
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from discrank.models.plot import plot_embedding

        ax = plot_embedding(disc.u_[:, 0], disc.v_[:, 0], labels=data.labels)
        write_file(args.plot, lambda: ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight"))
        plt.close(ax.figure)
        print(f"\nwrote the embedding of the first disc component to {args.plot}")
    return 0


def add(sub) -> None:
    """The ``demo`` command."""
    p = sub.add_parser("demo", help="simulate a league with cycles, fit Elo and the disc decomposition")
    p.add_argument("--players", type=int, default=60,
                   help=f"number of players (default 60; at most {DEMO_MAX_PLAYERS})")
    p.add_argument("--games-per-pair", type=int, default=20, help="games per pair (default 20)")
    p.add_argument("--cyclic", type=finite_float, default=1.5, help="strength of the cyclic part (default 1.5)")
    p.add_argument("--components", type=int_at_least(1), default=2, help="disc components k (default 2)")
    p.add_argument("--top", type=int_at_least(1), default=10, help="rows of each leaderboard (default 10)")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="random seed (default 0)")
    p.add_argument("--plot", metavar="PNG", default="discrank-demo.png",
                   help="write the embedding of the first disc component there (default discrank-demo.png; "
                        "'' for none; needs matplotlib)")
    p.set_defaults(func=run)

