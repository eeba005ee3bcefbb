"""The ``discrank`` command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from typing import Optional, Sequence

import numpy as np

from discrank._cli_fixtures import fixture_features, fixture_times, predict_fixtures
from discrank._cli_models import (DEFAULT_MODEL, MODEL_OPTIONS, advantage_names, advantage_values, build_model,
                                  check_fit_options, check_fitted_advantage, check_known, coefficient_lines,
                                  history_axes, model_choices, options_of, ratings_table, verdict)
from discrank._cli_arena import add_arena
from discrank._cli_args import (FitProgress, Parser, UsageError, add_bad_rows, add_columns, check_period, int_at_least,
                                pd_options, period, positive, print_warnings, read_log, regularization, scale_or_tuned,
                                threads, write_file)
# demo, evaluate_command, EVAL_MODELS and the DEMO_MAX_ limits stay importable from discrank.cli
from discrank._cli_compare import (DEMO_MAX_GAMES, DEMO_MAX_PLAYERS, EVAL_MODELS, add_demo, add_evaluate,  # noqa: F401
                                   demo, evaluate_command)
from discrank._coding import game_log_pairs
from discrank._labels import show
from discrank.models._base import unused_columns

__all__ = ["main"]


def _make_model(args: argparse.Namespace):
    """The unfitted estimator of ``--model`` with its options (:func:`discrank._cli_models.build_model`)."""
    return build_model(args.model, args)


def fit_command(args: argparse.Namespace) -> int:
    """``discrank fit``: read a game log, fit a model, print the leaderboard, write the ratings or the model.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``fit`` arguments: the file and its columns, the filters (``--start``, ``--end``,
        ``--min-player-games``, applied before the rows are checked), ``--drop-invalid``, the model with its
        options and the outputs. A model fitted on the games (``dynamic``, ``online``), or any model given
        ``--advantage`` columns, is fitted on the game log; the others on its pairs.

    Returns
    -------
    int
        0. Errors (an invalid row without ``--drop-invalid``, an option that does not apply to the model)
        are raised and turned into exit code 2 by :func:`main`; warnings (the rows ``--drop-invalid``
        dropped, a fit's warnings) are printed as ``discrank: warning: ...`` on stderr.
    """
    model = _make_model(args)
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
    """What ``fit`` gives the model, and its counts for the progress line: the game log for a model
    fitted on the games or with ``--advantage``, ``--context``, ``--match-format`` or ``--margin`` columns
    (pairs would drop them; a pair model names them in a warning), else its pairs; with ``--min-games``, the
    pairs, the columns that a pair model ignores named in a warning here."""
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
    """Fit ``model``, its progress on stderr (unless ``quiet``: :class:`FitProgress`, the solvers' iterations
    and the stages such as DynamicElo's tuning candidates), its warnings printed as ``discrank: warning: ...``."""
    with warnings.catch_warnings(record=True) as caught, FitProgress(quiet).listening():
        warnings.simplefilter("always")
        model.fit(data)
    print_warnings(caught)


def _load(path: str):
    from discrank.persist import load

    if not os.path.exists(path):
        raise ValueError(f"{path}: no such model file")
    return load(path)


def predict_command(args: argparse.Namespace) -> int:
    """``discrank predict``: P(A beats B), or P(A wins), P(draw), P(B wins) for a model with a draw model,
    of one fixture or of the pairs of a CSV file, in each fixture's context and match format for a model
    fitted with them (``--context``, ``--match-format``: a column of the file, by default ``context`` and
    ``match_format``, or the value of the one fixture; needed by such a model, refused by one fitted
    without, whose file's ``context`` or ``match_format`` column is named in a warning). An unknown player,
    context or format is an error naming it (exit status 2), unless ``--unseen prior``."""
    model = _load(args.model)
    given = advantage_values(model, args.advantage, args.model)
    options = {"context": args.context, "match_format": args.match_format}
    if args.pairs:
        df = _read_pairs(args)
        a = _match_labels(model, df[args.a].to_numpy())
        b = _match_labels(model, df[args.b].to_numpy())
        features, notes = fixture_features(model, options, a.size, args.model, args.unseen, df, args.pairs)
        times, more = fixture_times(model, args.time, a.size, args.model, df, args.pairs)
        _warn(notes + more)
        p = _predict(model, a, b, {**_pair_covariates(model, df, args.pairs), **given}, args.unseen,
                     f"{args.model} (--pairs {args.pairs})", features, times)
        if p.ndim == 2:
            df["p_win"], df["p_draw"], df["p_loss"] = p[:, 0], p[:, 1], p[:, 2]
        else:
            df["p"] = p
        if args.out:
            write_file(args.out, lambda: df.to_csv(args.out, index=False))
        else:
            print(df.to_csv(index=False), end="")
        return 0
    if args.player_a is None or args.player_b is None:
        raise ValueError("give two players (discrank predict MODEL A B) or --pairs FILE")
    ab = _match_labels(model, np.array([args.player_a, args.player_b]))
    features, notes = fixture_features(model, options, 1, args.model, args.unseen)
    times, more = fixture_times(model, args.time, 1, args.model)
    _warn(notes + more)
    p = _predict(model, ab[:1], ab[1:], given, args.unseen, args.model, features, times)
    if p.ndim == 2:
        print(f"P({args.player_a} wins) = {p[0, 0]:.4f}\nP(draw) = {p[0, 1]:.4f}\n"
              f"P({args.player_b} wins) = {p[0, 2]:.4f}")
    else:
        print(f"P({args.player_a} beats {args.player_b}) = {p[0]:.4f}")
    return 0


def _read_pairs(args: argparse.Namespace):
    """The ``--pairs`` CSV, with its columns ``--a`` and ``--b``."""
    import pandas as pd

    try:
        df = pd.read_csv(args.pairs)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{args.pairs}: the file is empty; --pairs needs a CSV with the columns {args.a!r} and "
                         f"{args.b!r}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{args.pairs}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"{args.pairs}: not a CSV file ({str(exc).strip()})") from None
    for col in (args.a, args.b):
        if col not in df.columns:
            raise ValueError(f"column {col!r} is not in {args.pairs}; its columns are {list(df.columns)}")
    return df


def _warn(notes: list) -> None:
    """Print each of ``notes`` as ``discrank: warning: ...`` on stderr."""
    for note in notes:
        print(f"discrank: warning: {note}", file=sys.stderr)


def _predict(model, a: np.ndarray, b: np.ndarray, values: dict, unseen: str, source: str,
             features: Optional[dict] = None, times: Optional[np.ndarray] = None) -> np.ndarray:
    """The predictions of the fixtures ``a`` against ``b`` (:func:`discrank._cli_fixtures.predict_fixtures`),
    their advantage covariates ``values`` by name (numbers or columns; a covariate not given is 0, a
    neutral game), their contexts and match formats ``features`` (:func:`discrank._cli_fixtures.fixture_features`)
    and times ``times`` (:func:`discrank._cli_fixtures.fixture_times`);
    an unknown player is named (``source`` says where it was given) unless ``unseen`` is "prior", when a
    warning names it. The model's own warnings are printed as ``discrank: warning: ...``."""
    unknown = check_known(model, np.concatenate([a, b]), unseen, source)
    if unknown.size:
        _warn([f"{', '.join(map(show, unknown))} not among the model's players: predicted from its prior"])
    names = advantage_names(model)
    x = None
    if names:
        x = np.zeros((a.size, len(names)))
        for k, name in enumerate(names):
            x[:, k] = values.get(name, 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = predict_fixtures(model, a, b, x, bool(unknown.size), features, times)
    print_warnings(caught)
    return p


def _pair_covariates(model, df, source: str) -> dict:
    """The columns of the ``--pairs`` file named as the model's advantage covariates, as numbers."""
    import pandas as pd

    out = {}
    for name in advantage_names(model):
        if name in df.columns:
            values = np.asarray(pd.to_numeric(df[name], errors="coerce"), dtype=np.float64)
            bad = np.flatnonzero(~np.isfinite(values))
            if bad.size:
                raise ValueError(f"column {name!r} of {source} has {show(df[name].iloc[bad[0]])} at row {bad[0]}: "
                                 "an advantage covariate is a finite number")
            out[name] = values
    return out


def _match_labels(model, values: np.ndarray) -> np.ndarray:
    """Command-line labels are text: read them as the model's labels are, integers, floats or text."""
    labels = np.asarray(model.labels_)
    if labels.dtype.kind in "iuf":
        number, kind = (int, "integers") if labels.dtype.kind in "iu" else (float, "numbers")
        out = []
        for v in values.tolist():
            try:
                out.append(number(v) if isinstance(v, str) else v)
            except ValueError:
                raise ValueError(f"unknown player {show(v)}: this model's players are {kind}") from None
        return np.array(out)
    return values.astype(str)


def info_command(args: argparse.Namespace) -> int:
    """``discrank info``: the model, its parameters, its coefficients with their standard errors
    (:func:`discrank._cli_models.coefficient_lines`) and its summary of the fit."""
    model = _load(args.model)
    print(f"{type(model).__name__}, {len(model.labels_)} players, parameters {model.get_params()}")
    conv = getattr(model, "converged_", None)
    if conv is not None:
        loss = getattr(model, "loss_", None)
        print(f"converged: {bool(conv)}" + ("" if loss is None else f"; final loss {loss:.10f}"))
    for line in coefficient_lines(model):
        print(line)
    print(verdict(model))
    return 0


def plot_command(args: argparse.Namespace) -> int:
    """``discrank plot``: a dynamic model's rating histories (``--players``, default its best now), a disc
    model's first component, or a leaderboard."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from discrank import plot

    model = _load(args.model)
    players = None if args.players is None else _match_labels(model, np.array(args.players))
    ax = history_axes(model, players, args.top, args.model)
    if ax is None and getattr(model, "u_", None) is not None:  # a disc model: its first component's embedding
        labels = model.labels_ if model.n_players_ <= 40 else None
        ax = plot.plot_embedding(model.u_[:, 0], model.v_[:, 0], labels=labels)
    elif ax is None:
        ax = plot.plot_leaderboard(model.ratings_frame(), top=args.top)
    write_file(args.out, lambda: ax.figure.savefig(args.out, dpi=120, bbox_inches="tight"))
    plt.close(ax.figure)
    print(f"wrote {args.out}")
    return 0


def _add_fit(sub) -> None:
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
    p.set_defaults(func=fit_command)


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
    """The model options (:data:`discrank._cli_models.MODEL_OPTIONS`), each help naming its models."""
    takes = {name: set(options_of(c.cls)) for name, c in choices.items()}
    for option in MODEL_OPTIONS:
        spec = dict(_OPTION_ARGS[option.dest])
        models = [name for name in choices if option.flag in takes[name]]
        spec["help"] += f"; --model {', '.join(models)}" if models else ""
        p.add_argument(*option.flag.split("/"), dest=option.dest, default=None, **spec)


def _add_saved(sub) -> None:
    """The commands that read a saved model: ``predict``, ``info``, ``plot``."""
    p = sub.add_parser("predict", help="P(A beats B), or win / draw / loss, from a saved model",
                       description="P(A beats B) from a saved model; for a model with a draw model (fit --draws): "
                                   "P(A wins), P(draw), P(B wins). A dynamic model predicts at its last fitted "
                                   "period (or at --time), in each fixture's context and match format where it was "
                                   "fitted with them (--context, --match-format). Exit status 2, with a message naming the player, when a player is not "
                                   "one of the model's (unless --unseen prior), as for every other error.")
    p.add_argument("model", help="a model saved by discrank fit --save")
    p.add_argument("player_a", nargs="?")
    p.add_argument("player_b", nargs="?")
    p.add_argument("--pairs", help="CSV of pairs to predict (columns --a and --b, the model's advantage columns "
                                   "where it has them, and its context and match format columns where it was "
                                   "fitted with them: --context, --match-format)")
    p.add_argument("--a", default="a")
    p.add_argument("--b", default="b")
    p.add_argument("--advantage", nargs="+", action="extend", metavar="NAME=VALUE",
                   help="advantage covariates of A (say home=1); a covariate not given is 0, a neutral game")
    p.add_argument("--context", metavar="COL|VALUE",
                   help="for a model fitted with contexts (fit --context): with --pairs, the column of each "
                        "fixture's context (default: a column named context); with two players, their game's "
                        "context (say clay). Needed by such a model; refused by a model fitted without contexts")
    p.add_argument("--match-format", metavar="COL|VALUE",
                   help="for a model fitted with match formats (fit --match-format): with --pairs, the column of "
                        "each fixture's format (default: a column named match_format); with two players, their "
                        "match's format (say bo5). Needed by such a model; refused by a model fitted without them")
    p.add_argument("--time", metavar="COL|TIME",
                   help="for a model whose ratings move with time (DynamicElo with a period): the fixtures' time, "
                        "a date such as 2024-06-01 (a number for numeric times); with --pairs, a column of the file "
                        "(default: a column named time, where there is one) or one time for every fixture. Default: "
                        "the model's last fitted period. Refused by a model whose ratings do not move")
    p.add_argument("--unseen", choices=["raise", "prior"], default="raise",
                   help="a player, context or match format the model has not seen: an error, exit status 2 "
                        "(default), or predicted from the model's prior (a context: no effect, at the prior's "
                        "variance; a format: the scale 1), with a warning")
    p.add_argument("--out", help="write the pairs with their predictions there: a column p, or p_win, p_draw, "
                                 "p_loss for a model with draws (default: stdout)")
    p.set_defaults(func=predict_command)

    p = sub.add_parser("info", help="what a saved model says: coefficients and standard errors, components")
    p.add_argument("model")
    p.set_defaults(func=info_command)

    p = sub.add_parser("plot", help="rating histories, disc embedding or leaderboard of a saved model as an image")
    p.add_argument("model")
    p.add_argument("--out", required=True, help="image file (png, pdf, svg)")
    p.add_argument("--players", nargs="+", metavar="PLAYER",
                   help="a dynamic model: the players whose rating histories to draw (default: the best now)")
    p.add_argument("--top", type=int_at_least(1), default=30,
                   help="players of a leaderboard plot (default 30; a dynamic model draws the histories of at most 8)")
    p.set_defaults(func=plot_command)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``discrank`` command line; returns the exit status (0, 2 for an error, 3 for a bug)."""
    parser = Parser(prog="discrank", description="Ratings for two-player zero-sum games.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (add_demo, _add_fit, add_evaluate, _add_saved, add_arena):
        add(sub)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"discrank: error: {exc}", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("discrank: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, ImportError, KeyError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"discrank: error: {message}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # an input too large for this machine: not a bug
        print(f"discrank: error: out of memory{f' ({exc})' if str(exc) else ''}: the input is too large for this "
              "machine's memory", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug of discrank: still one line, and what to report
        message = str(exc).splitlines()[0] if str(exc) else ""
        print(f"discrank: error: internal error {type(exc).__name__}: {message} (please report it)", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
