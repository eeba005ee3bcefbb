"""``discrank fit``: read a game log, fit a model, print the leaderboard, write the ratings or the model."""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

from discrank.cli._args import (FitProgress, add_bad_rows, add_columns, check_period, int_at_least, pd_options, period,
                                positive, print_warnings, read_log, regularization, scale_or_tuned, threads,
                                write_file)
from discrank.cli._models import (DEFAULT_MODEL, MODEL_OPTIONS, build_model, check_fit_options, check_fitted_advantage,
                                  model_choices, options_of, ratings_table, verdict)
from discrank.data._coding import game_log_pairs
from discrank.models._base import unused_columns

__all__ = ["add", "run"]


def run(args: argparse.Namespace) -> int:
    """``discrank fit``: read a game log, fit a model, print the leaderboard, write the ratings or the model.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fit`` arguments: the file, its columns and filters, the model with its options, the outputs.

    Returns
    -------
    int
        0. Errors are raised (exit code 2 by :func:`main`); warnings are printed as ``discrank: warning: ...``.
    """
    model = build_model(args.model, args)
    check_fit_options(args.model, model, args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        log = read_log(args)
    print_warnings(caught)
    if log.time is None and model.get_params().get("period") is not None:
        raise ValueError(f"--model {args.model} needs the games' times: give --time COL (or --period none for "
                         "one rating per player)")
    if "period" in model.get_params():
        check_period(f"--model {args.model}", model.get_params()["period"], log.time, args.period is not None)
    data, counts = _fit_data(args, log, model)
    if not args.quiet:
        print(f"{len(log)} games, {counts}; fitting {type(model).__name__}", file=sys.stderr)
    t0 = time.perf_counter()
    _fit(model, data, args.quiet)
    check_fitted_advantage(args.model, model, log)
    frame = ratings_table(model, min_games=args.table_min_games, max_sd=args.table_max_sd,
                          active_since=args.active_since, context=args.table_context)
    if not args.quiet:
        summary = verdict(model)
        print(f"fitted in {time.perf_counter() - t0:.2f} s" + (f"; {summary}" if summary else ""), file=sys.stderr)
        if "note" in frame.attrs:
            print(f"table: {frame.attrs['note']}", file=sys.stderr)
        with pd_options():
            print(frame.head(args.top).to_string(index=False))
    if args.out:
        write_file(args.out, lambda: frame.to_csv(args.out, index=False))
    if args.save:
        write_file(args.save, lambda: model.save(args.save))
    return 0


def _fit_data(args: argparse.Namespace, log, model):
    """What ``fit`` gives the model, and its counts for the progress line: the game log for a model fitted on
    the games or with advantage, context, match format or margin columns, else its pairs (with ``--min-games``,
    the columns a pair model ignores named in a warning here)."""
    players = f"{np.union1d(log.a, log.b).size} players"
    if log.advantage is not None:
        if args.min_games > 1:
            raise ValueError(f"--min-games {args.min_games} aggregates the games to pairs, which drops the "
                             "--advantage columns: use --min-player-games")
        names = log.advantage_names
        return log, f"{players}, advantage column{'s' if len(names) > 1 else ''} {', '.join(names)}"
    extra_columns = log.context is not None or log.margin is not None or log.match_format is not None
    if extra_columns and args.min_games > 1 and not model_choices()[args.model].games:
        # --min-games fits the pairs, which have lost these columns; the pair model ignores them anyway: say so
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            unused_columns(log, f"{type(model).__name__}.fit")
        print_warnings(caught)
    elif model_choices()[args.model].games or extra_columns:
        # (a pair model warns that it ignores contexts, match formats and margins)
        extra = ([] if log.context is None else [f"{np.unique(log.context).size} contexts"]) + \
            ([] if log.match_format is None else [f"{np.unique(log.match_format).size} match formats"]) + \
            ([] if log.margin is None else ["margins"])
        return log, ", ".join([players, *extra])
    data = game_log_pairs(log, min_games=args.min_games)  # (the columns the pairs drop are named above)
    return data, f"{data.n_players} players, {data.n_pairs} pairs"


def _fit(model, data, quiet: bool) -> None:
    """Fit ``model``, its progress on stderr unless ``quiet``, its warnings printed."""
    with warnings.catch_warnings(record=True) as caught, FitProgress(quiet).listening():
        warnings.simplefilter("always")
        model.fit(data)
    print_warnings(caught)


def add(sub) -> None:
    """The ``fit`` command: the log's columns and filters, the model and its options, the outputs."""
    p = sub.add_parser("fit", help=f"fit a model (default {DEFAULT_MODEL}) to a game log (CSV, Parquet or PGN)")
    p.add_argument("games", help="CSV or Parquet file, one row per game; or a PGN file (.pgn, .pgn.gz ...)")
    add_columns(p)
    p.add_argument("--time", help="column of the game's time (for --start / --end; needed by --model dynamic)")
    p.add_argument("--start", help="keep games at or after this time (needs --time; rows before are not checked)")
    p.add_argument("--end", help="keep games before this time (needs --time; rows after are not checked)")
    add_bad_rows(p)
    choices = model_choices()
    p.add_argument("--model", choices=list(choices), default=DEFAULT_MODEL,
                   help=f"the model (default {DEFAULT_MODEL}): " + "; ".join(f"{name}: {c.help}" for name, c in
                                                                           choices.items())
                        + ". An option that does not apply to the model is an error (exit status 2)")
    _add_model_options(p, choices)
    p.add_argument("--min-games", type=int_at_least(1), default=1,
                   help="keep pairs with at least this many games (models fitted on pairs)")
    p.add_argument("--min-player-games", type=int_at_least(1), default=1,
                   help="keep players with at least this many games")
    p.add_argument("--top", type=int_at_least(1), default=20, help="rows of the printed leaderboard (default 20)")
    p.add_argument("--table-min-games", type=int_at_least(0), metavar="N",
                   help="hide the players with fewer games from the table (printed and --out)")
    p.add_argument("--table-max-sd", type=float, metavar="SD",
                   help="hide the ratings whose standard deviation is above SD logits (a model with one: dynamic)")
    p.add_argument("--active-since", metavar="TIME",
                   help="keep in the table the players seen at or after TIME (models that keep the games' times: "
                        "dynamic, online, online-disc)")
    p.add_argument("--table-context", metavar="VALUE",
                   help="the table in one context (dynamic fitted with --context): each rating plus the player's "
                        "effect there, with the sd of the sum")
    p.add_argument("--out", help="write the ratings table (CSV) there: the columns printed, with provisional (fewer "
                                 "than 10 games, or an sd above 110 Elo points)")
    p.add_argument("--save", help="save the fitted model (.npz) there")
    p.add_argument("--quiet", action="store_true", help="no progress and no leaderboard")
    p.set_defaults(func=run)


#: Each model option of ``fit``: its type, metavar and help (the models it applies to are added).
_OPTION_ARGS = {
    "components": dict(type=int_at_least(1), metavar="K", help="components k (default 1)"),
    "regularization": dict(type=regularization,
                           help="lambda of Appendix B.2 (a number >= 0), or 'cv' to choose it by cross-validation"),
    "prior_scale": dict(type=positive(allow_inf=True), metavar="SCALE",
                        help="sd of the ratings' Gaussian prior in logits ('inf': none; default: tuned)"),
    "draws": dict(choices=["davidson", "rao-kupper"],
                  help="fit a draw model (P(draw) from the rating gap); the log needs draws"),
    "period": dict(type=period, help="the random walk's time step: day, week (default), month, year, a width for "
                                      "numeric times, or none (one rating per player)"),
    "drift": dict(type=positive(), help="sd of a rating's change per period, in logits (default: tuned)"),
    "variance_scale": dict(type=positive(), metavar="SCALE",
                           help="multiplier of the predictive variance (default: tuned with the drift)"),
    "tuning_budget": dict(type=int, metavar="N", help="the most (drift, prior) candidates the tuning scores "
                                                       "(default: no limit)"),
    "context_scale": dict(type=float, metavar="SCALE",
                          help="sd of a player's effect in a context, in logits (with --context; 0: none; default: "
                               "tuned)"),
    "margin_scale": dict(type=float, metavar="SCALE",
                         help="the logit scale of a sub-contest (a point, a game, a goal) relative to the game's, "
                              "with --margin; 0: none; default: tuned"),
    "disc_components": dict(type=int_at_least(0), metavar="K",
                            help="components of the disc game added to each game's logit (default 0: none)"),
    "disc_scale": dict(type=positive(), metavar="SCALE",
                       help="sd of each disc component's u and v (with --disc-components; default: tuned)"),
    "draw_propensity_scale": dict(type=scale_or_tuned, metavar="SCALE",
                                  help="sd of each player's draw propensity in Davidson's log nu (with --draws "
                                       "davidson; 0: none; default: tuned)"),
    "step": dict(type=positive(), help="the update's step in logits (Elo's K times ln 10 / 400; default: tuned)"),
    "threads": dict(type=threads, help="threads of the core (default: all)"),
}


def _add_model_options(p: argparse.ArgumentParser, choices: dict) -> None:
    """The model options (:data:`discrank.cli._models.MODEL_OPTIONS`), each help naming its models."""
    takes = {name: set(options_of(c.cls)) for name, c in choices.items()}
    for option in MODEL_OPTIONS:
        spec = dict(_OPTION_ARGS[option.dest])
        models = [name for name in choices if option.flag in takes[name]]
        spec["help"] += f"; --model {', '.join(models)}" if models else ""
        p.add_argument(*option.flag.split("/"), dest=option.dest, default=None, **spec)

