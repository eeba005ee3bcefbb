"""``discrank evaluate``: models side by side on future games (train on the past, test on the future)."""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from discrank.cli._args import (FitProgress, add_bad_rows, add_columns, check_period, fraction, int_at_least, period,
                                print_warnings, read_log, refit_period, write_file)
from discrank.models import DiscDecomposition, DiscDecompositionCV, DynamicElo, Elo, EloPlusPlus, MElo, OnlineElo
from discrank._util.exceptions import UnusedColumnWarning

__all__ = ["EVAL_MODELS", "add", "run"]


#: Models of ``discrank evaluate --models``: name -> constructor (default priors, tuned on the training period).
EVAL_MODELS = {
    "elo": lambda: Elo(),
    "elo++": lambda: EloPlusPlus(),
    "online-elo": lambda: OnlineElo(),
    "disc": lambda: DiscDecomposition(1, random_state=0),
    "disc2": lambda: DiscDecomposition(2, random_state=0),
    "disc-cv": lambda: DiscDecompositionCV(regularizations=(0.0, 10.0, 1000.0), cv=3,
                                                                  random_state=0),
    "melo": lambda: MElo(1, random_state=0),
    "dynamic": lambda: DynamicElo(),
    "dynamic-draws": lambda: DynamicElo(draws="davidson"),
    "dynamic-rao-kupper": lambda: DynamicElo(draws="rao-kupper"),
}


def run(args: argparse.Namespace) -> int:
    from discrank.evaluation._evaluate import evaluate

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
    """``--period`` given to the models with a random walk, and their period checked against the log's times
    (:func:`~discrank.cli._args.check_period`)."""
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


def add(sub) -> None:
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
    p.set_defaults(func=run)

