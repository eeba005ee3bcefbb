"""The commands that compare models: ``demo`` (Elo against the disc decomposition on a simulated league)
and ``evaluate`` (models side by side on future games). Used by :mod:`discrank.cli`.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

from discrank._cli_args import (FitProgress, add_bad_rows, add_columns, check_period, finite_float, fraction,
                                int_at_least, period, print_warnings, read_log, refit_period, write_file)
from discrank._demo import simulate_league
from discrank.exceptions import UnusedColumnWarning

__all__ = ["DEMO_MAX_PLAYERS", "DEMO_MAX_GAMES", "EVAL_MODELS", "demo", "evaluate_command", "add_demo",
           "add_evaluate"]


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


def demo(args: argparse.Namespace) -> int:
    from discrank import DiscDecomposition, Elo, PairwiseData

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

        from discrank.plot import plot_embedding

        ax = plot_embedding(disc.u_[:, 0], disc.v_[:, 0], labels=data.labels)
        write_file(args.plot, lambda: ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight"))
        plt.close(ax.figure)
        print(f"\nwrote the embedding of the first disc component to {args.plot}")
    return 0


#: Models of ``discrank evaluate --models``: name -> constructor (default priors, tuned on the training period).
EVAL_MODELS = {
    "elo": lambda: __import__("discrank").Elo(),
    "elo++": lambda: __import__("discrank").EloPlusPlus(),
    "online-elo": lambda: __import__("discrank.online", fromlist=["OnlineElo"]).OnlineElo(),
    "disc": lambda: __import__("discrank").DiscDecomposition(1, random_state=0),
    "disc2": lambda: __import__("discrank").DiscDecomposition(2, random_state=0),
    "disc-cv": lambda: __import__("discrank").DiscDecompositionCV(regularizations=(0.0, 10.0, 1000.0), cv=3,
                                                                  random_state=0),
    "melo": lambda: __import__("discrank").MElo(1, random_state=0),
    "dynamic": lambda: __import__("discrank").DynamicElo(),
    "dynamic-draws": lambda: __import__("discrank").DynamicElo(draws="davidson"),
    "dynamic-rao-kupper": lambda: __import__("discrank").DynamicElo(draws="rao-kupper"),
}


def evaluate_command(args: argparse.Namespace) -> int:
    from discrank.evaluation import evaluate

    available = EVAL_MODELS
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in names if m not in available]
    if unknown or not names:
        raise ValueError(f"--models: unknown model(s) {unknown or names!r}; choose from {sorted(available)}")
    if args.time is None and not args.games.lower().endswith((".pgn", ".pgn.gz", ".pgn.bz2", ".pgn.xz")):
        raise ValueError("evaluate needs the time column of the games: --time COL")
    with warnings.catch_warnings(record=True) as read_warnings:
        warnings.simplefilter("always")
        log = read_log(args)  # --start / --end / --min-player-games / --drop-invalid applied there
    print_warnings(read_warnings)
    models = {name: available[name]() for name in names}
    _walk_period(models, args.period, log.time)
    share = args.test_fraction  # a number in (0, 1) or None (the type fraction)
    if (args.cutoff is None) == (share is None):
        raise ValueError("give exactly one of --cutoff TIME and --test-fraction F")
    times = {}
    for flag in ("cutoff", "train_start", "test_start", "test_end"):
        value = getattr(args, flag)
        times[flag] = None if value is None else _time_arg(value, log.time, "--" + flag.replace("_", "-"))
    protocol = {k: getattr(args, k) for k in ("protocol", "refit") if getattr(args, k, None) is not None}
    with warnings.catch_warnings(record=True) as caught, FitProgress(args.quiet).listening():
        warnings.simplefilter("always")
        try:
            ev = evaluate(models, log, cutoff=times["cutoff"], test_fraction=share, train_start=times["train_start"],
                          test_start=times["test_start"], test_end=times["test_end"], rolling=args.rolling,
                          unseen=args.unseen, reference=args.reference, **protocol)
        except ValueError as exc:  # evaluate names refit=; here it is --refit
            text = str(exc)
            if text.startswith("refit="):
                raise ValueError("--refit " + text[len("refit="):]) from None
            raise
    # the columns a model does not use are the report's notes: printed there, not twice
    print_warnings([w for w in caught if not issubclass(w.category, UnusedColumnWarning)])
    print(ev)
    if args.calibration:
        for name in ev.names:
            c = ev.calibration(name)
            print(f"\ncalibration of {name}: bin, games, mean predicted, observed")
            for lo, hi, n, p, o in zip(c["lo"], c["hi"], c["games"], c["predicted"], c["observed"]):
                if n:
                    print(f"  [{lo:.1f}, {hi:.1f})  {n:>8}  {p:.4f}  {o:.4f}")
    if args.out:
        write_file(args.out, lambda: ev.frame().to_csv(args.out, index=False))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = ev.plot_calibration()
        write_file(args.plot, lambda: ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight"))
        plt.close(ax.figure)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _walk_period(models: dict, value, t) -> None:
    """``--period`` given to the models with a random walk (``dynamic`` ...), and their period checked
    against the log's times (:func:`~discrank._cli_args.check_period`): a calendar default for numeric
    times is an error naming ``--period``."""
    walking = [name for name, model in models.items() if "period" in model.get_params()]
    if value is not None and not walking:
        takes = [name for name, make in EVAL_MODELS.items() if "period" in make().get_params()]
        shown = value if isinstance(value, str) else f"{value:g}"
        raise ValueError(f"--period {shown} is the random walk's period of the models {', '.join(takes)}; --models "
                         f"{','.join(models)} has none of them")
    for name in walking:
        if value is not None:
            models[name].set_params(period=None if value == "none" else value)
        check_period(f"--models {name}", models[name].get_params()["period"], t, value is not None)


def _time_arg(value: str, t: np.ndarray, flag: str):
    """A command-line time in the units of the log's times: a date for datetimes, a number otherwise."""
    if t.dtype.kind == "M":
        try:
            return np.datetime64(value)
        except ValueError:
            raise ValueError(f"{flag} {value!r} is not a date (YYYY-MM-DD)") from None
    try:
        return float(value) if t.dtype.kind == "f" else int(value)
    except ValueError:
        raise ValueError(f"{flag} {value!r} is not a number, and the log's times are numbers") from None


def add_demo(sub) -> None:
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
    p.set_defaults(func=demo)


def add_evaluate(sub) -> None:
    """The ``evaluate`` command."""
    p = sub.add_parser("evaluate", help="train on the past, test on the future: models side by side")
    p.add_argument("games", help="CSV or Parquet file, one row per game with a time column; or a PGN file")
    add_columns(p)
    p.add_argument("--time", help="column of the game's time (needed)")
    p.add_argument("--start", help="read only games at or after this time")
    p.add_argument("--end", help="read only games before this time")
    p.add_argument("--min-player-games", type=int_at_least(1), default=1,
                   help="keep players with at least this many games")
    p.add_argument("--cutoff", help="train on games before this time, test on the later ones")
    p.add_argument("--test-fraction", type=fraction,
                   help="instead of --cutoff: test on the latest share of the games (between 0 and 1)")
    p.add_argument("--train-start", help="train only on games from this time")
    p.add_argument("--test-start", help="test only on games from this time (a gap after --cutoff)")
    p.add_argument("--test-end", help="test only on games before this time")
    p.add_argument("--rolling", type=int_at_least(1), default=1, help="origins of a rolling evaluation (default 1)")
    p.add_argument("--models", default="elo,online-elo,disc",
                   help=f"comma-separated, from: {', '.join(EVAL_MODELS)} (default elo,online-elo,disc)")
    p.add_argument("--protocol", choices=["frozen", "online"],
                   help="frozen: every model stops at the cutoff; online: each test game is predicted from every "
                        "game before it (default: discrank.evaluate's)")
    p.add_argument("--refit", type=refit_period,
                   help="with --protocol online: the period at which models without online updates are refitted: "
                        "day, week, month, year, or a width for numeric times (default: week, or 1)")
    p.add_argument("--period", type=period,
                   help="the random walk's period of the dynamic models: day, week (default), month, year, a width "
                        "in the units of numeric times (needed for them), or none (one rating per player)")
    p.add_argument("--reference", help="model the differences are taken to (default: the first)")
    p.add_argument("--unseen", choices=["exclude", "prior"], default="exclude",
                   help="test games with a player unseen in training: left out (default) or predicted from the prior")
    p.add_argument("--calibration", action="store_true", help="print each model's calibration table")
    p.add_argument("--plot", help="write the calibration plot there (needs matplotlib)")
    p.add_argument("--out", help="write the summary table (CSV) there")
    add_bad_rows(p)
    p.add_argument("--quiet", action="store_true",
                   help="no progress (by default each origin, each model's fit and tuning, and the online walk's "
                        "updates are printed on stderr)")
    p.set_defaults(func=evaluate_command)
