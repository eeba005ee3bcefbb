"""The ``discrank`` command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from typing import Callable, NoReturn, Optional, Sequence, Union

import numpy as np

from discrank._cli_models import (DEFAULT_MODEL, MODEL_OPTIONS, advantage_values, build_model, check_fit_options,
                                  check_fitted_advantage, check_known, coefficient_lines, history_axes, model_choices,
                                  options_of, predict_fixtures, ratings_table, verdict)
from discrank._demo import simulate_league
from discrank._labels import show

__all__ = ["main"]


# ------------------------------------------------------------------ option types: errors name the option
def _number(text: str, convert: Callable[[str], Union[int, float]], what: str) -> Union[int, float]:
    """``convert(text)``; an ArgumentTypeError saying ``'text' is {what}`` when it cannot be converted."""
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is {what}") from None


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = _number(text, int, "not an integer")
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def _finite_float(text: str) -> float:
    value = _number(text, float, "not a number")
    if not np.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _fraction(text: str) -> float:
    value = _finite_float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be a number strictly between 0 and 1, got {text!r}")
    return value


def _regularization(text: str) -> Union[str, float]:
    if text == "cv":
        return text
    value = _number(text, float, "neither a number >= 0 nor 'cv'")
    if not np.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0 or 'cv', got {text!r}")
    return value


def _positive(allow_inf: bool = False) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = _number(text, float, "not a number")
        if not (value > 0 and (np.isfinite(value) or (allow_inf and value == np.inf))):
            raise argparse.ArgumentTypeError(f"must be a {'' if allow_inf else 'finite '}number > 0"
                                             f"{' or inf' if allow_inf else ''}, got {text!r}")
        return value

    parse.__name__ = "positive number"
    return parse


def _period(text: str) -> Union[str, float]:
    if text in ("day", "week", "month", "year", "none"):
        return text
    value = _number(text, float, "neither day, week, month, year, none nor a number")
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be day, week, month, year, none or a finite number > 0, got {text!r}")
    return value


def _threads(text: str) -> int:
    value = _number(text, int, "not an integer")
    if value == 0:
        raise argparse.ArgumentTypeError("must be a positive count, or -1 for all cores (-2 all but one ...), got '0'")
    return value


def _bound_text(flag: str, value: Optional[str]) -> Optional[str]:
    """``--start`` / ``--end``: a date or a number (which one the log's times say, when it is read)."""
    if not value:
        return None
    try:
        float(value)
        return value
    except ValueError:
        pass
    try:
        if not np.isnat(np.datetime64(value)):
            return value
    except (ValueError, TypeError, OverflowError):
        pass
    raise ValueError(f"{flag} {value!r} is neither a date (YYYY-MM-DD) nor a number")


def _write(path: str, write: Callable[[], None]) -> None:
    """Run ``write``; an OSError names ``path`` (``[Errno 5] Input/output error`` alone does not)."""
    try:
        write()
    except OSError as exc:
        target = exc.filename if isinstance(exc.filename, str) else path  # (numpy adds .npz, matplotlib .png)
        raise OSError(f"cannot write {target!r}: {exc.strerror or exc}") from None


class _UsageError(Exception):
    """A command line that argparse refuses (an unknown option, a value of the wrong type)."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors :func:`main` prints as one line and exit code 2 (not the usage)."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        raise _UsageError(f"{message} (discrank {self.prog.split()[-1]} --help lists the options)"
                          if " " in self.prog else message)


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
        _write(args.plot, lambda: ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight"))
        plt.close(ax.figure)
        print(f"\nwrote the embedding of the first disc component to {args.plot}")
    return 0


class _FitProgress:
    """Prints iterations, objective, stopping measure and elapsed time on stderr during long fits."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.tty = sys.stderr.isatty()

    def __call__(self, iteration: int, f: float, measure: float) -> None:
        now = time.perf_counter() - self.t0
        if self.quiet or now - self.last < (0.2 if self.tty else 2.0) or now < 1.0:
            return
        self.last = now
        line = f"  iteration {iteration:>5}  loss {f:.10f}  gradient measure {measure:.2e}  {now:6.1f} s"
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def done(self) -> None:
        if not self.quiet and self.tty and self.last > 0:
            print(file=sys.stderr)


def _read_log(args: argparse.Namespace):
    """The game log of ``args.games`` (CSV, Parquet or PGN), filtered by ``--start`` / ``--end`` and
    ``--min-player-games`` before its rows are checked; ``--drop-invalid`` drops the invalid rows (with an
    ``InvalidRowsWarning``) instead of stopping at the first; ``--keep-truncated`` keeps the games of a
    truncated compressed file read before the truncation (with a warning) instead of stopping."""
    path = args.games
    lower = path.lower()
    filters = dict(start=_bound_text("--start", args.start), end=_bound_text("--end", args.end),
                   min_player_games=args.min_player_games,
                   invalid="drop" if getattr(args, "drop_invalid", False) else "raise",
                   truncated="keep" if getattr(args, "keep_truncated", False) else "raise")
    try:
        return _read_games(args, path, lower, filters)
    except ValueError as exc:  # the readers name start= and end=; here they are --start and --end
        text = str(exc)
        if text.startswith(("start=", "end=")):
            raise ValueError("--" + text.replace("=", " ", 1)) from None
        raise


def _read_games(args: argparse.Namespace, path: str, lower: str, filters: dict):
    from discrank.logs import GameLog, read_pgn

    advantage = getattr(args, "advantage", None)
    if lower.endswith((".pgn", ".pgn.gz", ".pgn.bz2", ".pgn.xz")):
        if advantage:
            raise ValueError(f"--advantage {advantage[0]}: a PGN file has no covariate columns (--advantage names "
                             "columns of a CSV or Parquet file)")
        return read_pgn(path, progress=None if not args.quiet else False, **filters)
    if args.score is None and args.winner is None:
        raise ValueError("give the result column: --score COL (1, 0.5, 0 or 1-0 / 0-1 / 1/2-1/2) or --winner COL")
    if (filters["start"] or filters["end"]) and args.time is None:
        raise ValueError("--start / --end need the time column: --time COL")
    cols = dict(a=args.a, b=args.b, score=args.score, winner=args.winner, time=args.time, advantage=advantage)
    if lower.endswith(".parquet"):
        filters.pop("truncated")
        return GameLog.read_parquet(path, **cols, **filters)
    return GameLog.read_csv(path, **cols, **filters)


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
        log = _read_log(args)
    _print_warnings(caught)
    if log.time is None and model.get_params().get("period") is not None:
        raise ValueError(f"--model {args.model} needs the games' times: give --time COL (or --period none for "
                         "one rating per player)")
    data, counts = _fit_data(args, log)
    if not args.quiet:
        print(f"{len(log)} games, {counts}; fitting {type(model).__name__}", file=sys.stderr)
    t0 = time.perf_counter()
    _fit(model, data, args.quiet)
    check_fitted_advantage(args.model, model, log)
    frame = ratings_table(model)
    if not args.quiet:
        summary = verdict(model)
        print(f"fitted in {time.perf_counter() - t0:.2f} s" + (f"; {summary}" if summary else ""), file=sys.stderr)
        with _pd_options():
            print(frame.head(args.top).to_string(index=False))
    if args.out:
        _write(args.out, lambda: frame.to_csv(args.out, index=False))
    if args.save:
        _write(args.save, lambda: model.save(args.save))
    return 0


def _print_warnings(caught) -> None:
    for w in caught:
        if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)):
            print(f"discrank: warning: {w.message}", file=sys.stderr)


def _fit_data(args: argparse.Namespace, log):
    """What ``fit`` gives the model, and its counts for the progress line: the game log for a model
    fitted on the games or with ``--advantage`` columns (pairs would drop them), else its pairs."""
    players = f"{np.union1d(log.a, log.b).size} players"
    if log.advantage is not None:
        if args.min_games > 1:
            raise ValueError(f"--min-games {args.min_games} aggregates the games to pairs, which drops the "
                             "--advantage columns: use --min-player-games")
        names = log.advantage_names
        return log, f"{players}, advantage column{'s' if len(names) > 1 else ''} {', '.join(names)}"
    if model_choices()[args.model].games:
        return log, players
    data = log.to_pairs(min_games=args.min_games)
    return data, f"{data.n_players} players, {data.n_pairs} pairs"


def _fit(model, data, quiet: bool) -> None:
    """Fit ``model``, its progress on stderr (unless ``quiet``), its warnings printed as ``discrank: warning: ...``."""
    from discrank._optim import reporting

    progress = _FitProgress(quiet)
    try:
        with warnings.catch_warnings(record=True) as caught, reporting(progress):
            warnings.simplefilter("always")
            model.fit(data)
    finally:
        progress.done()
    for w in caught:
        print(f"discrank: warning: {w.message}", file=sys.stderr)


class _pd_options:
    def __enter__(self):
        import pandas as pd

        self.ctx = pd.option_context("display.width", 120, "display.max_columns", 12, "display.precision", 4)
        self.ctx.__enter__()

    def __exit__(self, *exc):
        self.ctx.__exit__(*exc)


def _load(path: str):
    from discrank.persist import load

    if not os.path.exists(path):
        raise ValueError(f"{path}: no such model file")
    return load(path)


def predict_command(args: argparse.Namespace) -> int:
    """``discrank predict``: P(A beats B), or P(A wins), P(draw), P(B wins) for a model with a draw model,
    of one fixture or of the pairs of a CSV file. An unknown player is an error naming it (exit status
    2), unless ``--unseen prior``."""
    model = _load(args.model)
    given = advantage_values(model, args.advantage, args.model)
    if args.pairs:
        df = _read_pairs(args)
        a = _match_labels(model, df[args.a].to_numpy())
        b = _match_labels(model, df[args.b].to_numpy())
        p = _predict(model, a, b, {**_pair_covariates(model, df, args.pairs), **given}, args.unseen,
                     f"{args.model} (--pairs {args.pairs})")
        if p.ndim == 2:
            df["p_win"], df["p_draw"], df["p_loss"] = p[:, 0], p[:, 1], p[:, 2]
        else:
            df["p"] = p
        if args.out:
            _write(args.out, lambda: df.to_csv(args.out, index=False))
        else:
            print(df.to_csv(index=False), end="")
        return 0
    if args.player_a is None or args.player_b is None:
        raise ValueError("give two players (discrank predict MODEL A B) or --pairs FILE")
    ab = _match_labels(model, np.array([args.player_a, args.player_b]))
    p = _predict(model, ab[:1], ab[1:], given, args.unseen, args.model)
    if p.ndim == 2:
        print(f"P({args.player_a} wins) = {p[0, 0]:.4f}\nP(draw) = {p[0, 1]:.4f}\nP({args.player_b} wins) = {p[0, 2]:.4f}")
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


def _predict(model, a: np.ndarray, b: np.ndarray, values: dict, unseen: str, source: str) -> np.ndarray:
    """The predictions of the fixtures ``a`` against ``b`` (:func:`discrank._cli_models.predict_fixtures`),
    their advantage covariates ``values`` by name (numbers or columns; a covariate not given is 0, a
    neutral game); an unknown player is named (``source`` says where it was given) unless ``unseen`` is
    "prior", when a warning names it."""
    unknown = check_known(model, np.concatenate([a, b]), unseen, source)
    if unknown.size:
        print(f"discrank: warning: {', '.join(map(show, unknown))} not among the model's players: predicted from "
              "its prior", file=sys.stderr)
    names = tuple(getattr(model, "advantage_names_", ()) or ())
    x = None
    if names:
        x = np.zeros((a.size, len(names)))
        for k, name in enumerate(names):
            x[:, k] = values.get(name, 0.0)
    return predict_fixtures(model, a, b, x, bool(unknown.size))


def _pair_covariates(model, df, source: str) -> dict:
    """The columns of the ``--pairs`` file named as the model's advantage covariates, as numbers."""
    import pandas as pd

    out = {}
    for name in tuple(getattr(model, "advantage_names_", ()) or ()):
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
        log = _read_log(args)  # --start / --end / --min-player-games / --drop-invalid applied there
    for w in read_warnings:
        print(f"discrank: warning: {w.message}", file=sys.stderr)
    models = {name: available[name]() for name in names}
    fraction = args.test_fraction  # a number in (0, 1) or None (_fraction)
    if (args.cutoff is None) == (fraction is None):
        raise ValueError("give exactly one of --cutoff TIME and --test-fraction F")
    times = {}
    for flag in ("cutoff", "train_start", "test_start", "test_end"):
        value = getattr(args, flag)
        times[flag] = None if value is None else _time_arg(value, log.time, "--" + flag.replace("_", "-"))
    protocol = {k: getattr(args, k) for k in ("protocol", "refit") if getattr(args, k, None) is not None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = evaluate(models, log, cutoff=times["cutoff"], test_fraction=fraction, train_start=times["train_start"],
                      test_start=times["test_start"], test_end=times["test_end"], rolling=args.rolling,
                      unseen=args.unseen, reference=args.reference, **protocol)
    for w in caught:
        if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)):
            print(f"discrank: warning: {w.message}", file=sys.stderr)
    print(ev)
    if args.calibration:
        for name in ev.names:
            c = ev.calibration(name)
            print(f"\ncalibration of {name}: bin, games, mean predicted, observed")
            for lo, hi, n, p, o in zip(c["lo"], c["hi"], c["games"], c["predicted"], c["observed"]):
                if n:
                    print(f"  [{lo:.1f}, {hi:.1f})  {n:>8}  {p:.4f}  {o:.4f}")
    if args.out:
        _write(args.out, lambda: ev.frame().to_csv(args.out, index=False))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = ev.plot_calibration()
        _write(args.plot, lambda: ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight"))
        plt.close(ax.figure)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


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
    from discrank.models._readout import DiscReadout

    model = _load(args.model)
    players = None if args.players is None else _match_labels(model, np.array(args.players))
    ax = history_axes(model, players, args.top, args.model)
    if ax is None and isinstance(model, DiscReadout):
        ax = plot.plot_embedding(model.u_[:, 0], model.v_[:, 0], labels=model.labels_ if model.n_players_ <= 40 else None)
    elif ax is None:
        ax = plot.plot_leaderboard(model.ratings_frame(), top=args.top)
    _write(args.out, lambda: ax.figure.savefig(args.out, dpi=120, bbox_inches="tight"))
    plt.close(ax.figure)
    print(f"wrote {args.out}")
    return 0


def _add_columns(p: argparse.ArgumentParser) -> None:
    """The columns of a game log (fit and evaluate)."""
    p.add_argument("--a", default="a", help="column of the first player (default a)")
    p.add_argument("--b", default="b", help="column of the second player (default b)")
    p.add_argument("--score", help="column of the first player's result: 1 / 0.5 / 0 or 1-0 / 1/2-1/2 / 0-1")
    p.add_argument("--winner", help="column of the winner's label (or draw), instead of --score")
    p.add_argument("--advantage", nargs="+", action="extend", metavar="COL",
                   help="columns of advantage covariates of the first player (1 at home, 0 neutral, -1 away; "
                        "bools read as 1 / 0)")


def _add_bad_rows(p: argparse.ArgumentParser) -> None:
    """What to do with invalid rows and truncated files (fit and evaluate)."""
    p.add_argument("--drop-invalid", action="store_true",
                   help="drop invalid rows (a player against themself, a missing or unparseable result, name or "
                        "time) and report how many of each kind on stderr, instead of stopping at the first")
    p.add_argument("--keep-truncated", action="store_true",
                   help="a truncated compressed file (.gz, .bz2, .xz): keep the games read before the truncation, "
                        "with a warning, instead of stopping")


def _add_demo(sub) -> None:
    """The ``demo`` command."""
    p = sub.add_parser("demo", help="simulate a league with cycles, fit Elo and the disc decomposition")
    p.add_argument("--players", type=int, default=60,
                   help=f"number of players (default 60; at most {DEMO_MAX_PLAYERS})")
    p.add_argument("--games-per-pair", type=int, default=20, help="games per pair (default 20)")
    p.add_argument("--cyclic", type=_finite_float, default=1.5, help="strength of the cyclic part (default 1.5)")
    p.add_argument("--components", type=_int_at_least(1), default=2, help="disc components k (default 2)")
    p.add_argument("--top", type=_int_at_least(1), default=10, help="rows of each leaderboard (default 10)")
    p.add_argument("--seed", type=_int_at_least(0), default=0, help="random seed (default 0)")
    p.add_argument("--plot", metavar="PNG", default="discrank-demo.png",
                   help="write the embedding of the first disc component there (default discrank-demo.png; "
                        "'' for none; needs matplotlib)")
    p.set_defaults(func=demo)


def _add_fit(sub) -> None:
    """The ``fit`` command: the log's columns and filters, the model and its options, the outputs."""
    p = sub.add_parser("fit", help=f"fit a model (default {DEFAULT_MODEL}) to a game log (CSV, Parquet or PGN)")
    p.add_argument("games", help="CSV or Parquet file, one row per game; or a PGN file (.pgn, .pgn.gz ...)")
    _add_columns(p)
    p.add_argument("--time", help="column of the game's time (for --start / --end; needed by --model dynamic)")
    p.add_argument("--start", help="keep games at or after this time (needs --time; rows before are not checked)")
    p.add_argument("--end", help="keep games before this time (needs --time; rows after are not checked)")
    _add_bad_rows(p)
    choices = model_choices()
    p.add_argument("--model", choices=list(choices), default=DEFAULT_MODEL,
                   help=f"the model (default {DEFAULT_MODEL}): " + "; ".join(f"{name}: {c.help}" for name, c in
                                                                           choices.items())
                        + ". An option that does not apply to the model is an error (exit status 2)")
    _add_model_options(p, choices)
    p.add_argument("--min-games", type=_int_at_least(1), default=1,
                   help="keep pairs with at least this many games (models fitted on pairs)")
    p.add_argument("--min-player-games", type=_int_at_least(1), default=1,
                   help="keep players with at least this many games")
    p.add_argument("--top", type=_int_at_least(1), default=20, help="rows of the printed leaderboard (default 20)")
    p.add_argument("--out", help="write the ratings table (CSV) there")
    p.add_argument("--save", help="save the fitted model (.npz) there")
    p.add_argument("--quiet", action="store_true", help="no progress and no leaderboard")
    p.set_defaults(func=fit_command)


#: Each model option of ``fit``: its type, metavar and help (the models it applies to are added).
_OPTION_ARGS = {
    "components": dict(type=_int_at_least(1), metavar="K", help="components k (default 1)"),
    "regularization": dict(type=_regularization,
                           help="lambda of Appendix B.2 (a number >= 0), or 'cv' to choose it by cross-validation"),
    "prior_scale": dict(type=_positive(allow_inf=True), metavar="SCALE",
                        help="sd of the ratings' Gaussian prior in logits ('inf': none; default: tuned)"),
    "draws": dict(choices=["davidson", "rao-kupper"],
                  help="fit a draw model (P(draw) from the rating gap); the log needs draws"),
    "period": dict(type=_period, help="the random walk's time step: day, week (default), month, year, a width for "
                                      "numeric times, or none (one rating per player)"),
    "drift": dict(type=_positive(), help="sd of a rating's change per period, in logits (default: tuned)"),
    "variance_scale": dict(type=_positive(), metavar="SCALE",
                           help="multiplier of the predictive variance (default: tuned with the drift)"),
    "step": dict(type=_positive(), help="the update's step in logits (Elo's K times ln 10 / 400; default: tuned)"),
    "threads": dict(type=_threads, help="threads of the core (default: all)"),
}


def _add_model_options(p: argparse.ArgumentParser, choices: dict) -> None:
    """The model options (:data:`discrank._cli_models.MODEL_OPTIONS`), each help naming its models."""
    takes = {name: set(options_of(c.cls)) for name, c in choices.items()}
    for option in MODEL_OPTIONS:
        spec = dict(_OPTION_ARGS[option.dest])
        models = [name for name in choices if option.flag in takes[name]]
        spec["help"] += f"; --model {', '.join(models)}"
        p.add_argument(*option.flag.split("/"), dest=option.dest, default=None, **spec)


def _add_evaluate(sub) -> None:
    """The ``evaluate`` command."""
    p = sub.add_parser("evaluate", help="train on the past, test on the future: models side by side")
    p.add_argument("games", help="CSV or Parquet file, one row per game with a time column; or a PGN file")
    _add_columns(p)
    p.add_argument("--time", help="column of the game's time (needed)")
    p.add_argument("--start", help="read only games at or after this time")
    p.add_argument("--end", help="read only games before this time")
    p.add_argument("--min-player-games", type=_int_at_least(1), default=1,
                   help="keep players with at least this many games")
    p.add_argument("--cutoff", help="train on games before this time, test on the later ones")
    p.add_argument("--test-fraction", type=_fraction,
                   help="instead of --cutoff: test on the latest share of the games (between 0 and 1)")
    p.add_argument("--train-start", help="train only on games from this time")
    p.add_argument("--test-start", help="test only on games from this time (a gap after --cutoff)")
    p.add_argument("--test-end", help="test only on games before this time")
    p.add_argument("--rolling", type=_int_at_least(1), default=1, help="origins of a rolling evaluation (default 1)")
    p.add_argument("--models", default="elo,online-elo,disc",
                   help=f"comma-separated, from: {', '.join(EVAL_MODELS)} (default elo,online-elo,disc)")
    p.add_argument("--protocol", choices=["frozen", "online"],
                   help="frozen: every model stops at the cutoff; online: each test game is predicted from every "
                        "game before it (default: discrank.evaluate's)")
    p.add_argument("--refit", choices=["day", "week", "month", "year"],
                   help="with --protocol online: the period at which models without online updates are refitted")
    p.add_argument("--reference", help="model the differences are taken to (default: the first)")
    p.add_argument("--unseen", choices=["exclude", "prior"], default="exclude",
                   help="test games with a player unseen in training: left out (default) or predicted from the prior")
    p.add_argument("--calibration", action="store_true", help="print each model's calibration table")
    p.add_argument("--plot", help="write the calibration plot there (needs matplotlib)")
    p.add_argument("--out", help="write the summary table (CSV) there")
    _add_bad_rows(p)
    p.add_argument("--quiet", action="store_true", help="no progress")
    p.set_defaults(func=evaluate_command)


def _add_saved(sub) -> None:
    """The commands that read a saved model: ``predict``, ``info``, ``plot``."""
    p = sub.add_parser("predict", help="P(A beats B), or win / draw / loss, from a saved model",
                       description="Exit status 2, with a message naming it, when a player is not one of the "
                                   "model's (unless --unseen prior), as for every other error.")
    p.add_argument("model", help="a model saved by discrank fit --save")
    p.add_argument("player_a", nargs="?")
    p.add_argument("player_b", nargs="?")
    p.add_argument("--pairs", help="CSV of pairs to predict (columns --a and --b, and the model's advantage "
                                   "columns where it has them)")
    p.add_argument("--a", default="a")
    p.add_argument("--b", default="b")
    p.add_argument("--advantage", nargs="+", action="extend", metavar="NAME=VALUE",
                   help="advantage covariates of A (say home=1); a covariate not given is 0, a neutral game")
    p.add_argument("--unseen", choices=["raise", "prior"], default="raise",
                   help="a player the model has not seen: an error, exit status 2 (default), or predicted from "
                        "the model's prior, with a warning")
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
    p.add_argument("--top", type=_int_at_least(1), default=30,
                   help="players of a leaderboard plot (default 30; a dynamic model draws the histories of at most 8)")
    p.set_defaults(func=plot_command)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``discrank`` command line; returns the exit status (0, 2 for an error, 3 for a bug)."""
    parser = _Parser(prog="discrank", description="Ratings for two-player zero-sum games.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_demo, _add_fit, _add_evaluate, _add_saved):
        add(sub)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
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
