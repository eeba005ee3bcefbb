"""The command line's argument types (a value, or an ``argparse.ArgumentTypeError`` naming it) and its game log
options: :func:`read_log` reads the log of ``fit`` and ``evaluate``."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from typing import Callable, Iterator, NoReturn, Optional, Union

import numpy as np

from discrank._util.labels import show

__all__ = ["parse_number", "number_or", "int_at_least", "finite_float", "fraction", "share", "regularization", "positive", "period",
           "refit_period", "threads", "bound_text", "write_file", "UsageError", "Parser", "FitProgress", "read_log",
           "read_games", "check_period", "print_warnings", "warn_notes", "pd_options", "add_columns", "add_bad_rows", "as_labels_of"]


def parse_number(text: str, convert: Callable[[str], Union[int, float]], what: str) -> Union[int, float]:
    """``convert(text)``; an ArgumentTypeError saying ``'text' is {what}`` when it cannot be converted."""
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is {what}") from None


def number_or(*keywords: str, convert: Callable[[str], Union[int, float]] = float, unreadable: str = "not a number",
              rules: tuple = (), name: str = "number") -> Callable[[str], Union[str, int, float]]:
    """The argument type of a number, or one of ``keywords`` (returned as it is): ``convert(text)``, an
    ArgumentTypeError saying ``'text' is {unreadable}`` when it cannot be converted, then each ``(test, need)``
    of ``rules`` in order, ``must be {need}, got 'text'`` for the first the value fails."""
    def parse(text: str) -> Union[str, int, float]:
        if text in keywords:
            return text
        value = parse_number(text, convert, unreadable)
        for test, need in rules:
            if not test(value):
                raise argparse.ArgumentTypeError(f"must be {need}, got {text!r}")
        return value

    parse.__name__ = name
    return parse


def _finite(value: float) -> bool:
    return bool(np.isfinite(value))


FINITE = (_finite, "a finite number")
finite_float = number_or(rules=(FINITE,), name="finite number")
fraction = number_or(rules=(FINITE, (lambda v: 0.0 < v < 1.0, "a number strictly between 0 and 1")), name="fraction")
share = number_or(rules=(FINITE, (lambda v: 0.0 <= v <= 1.0, "a number from 0 to 1")), name="share")
#: The lambda of Appendix B.2, or ``cv``.
regularization = number_or("cv", unreadable="neither a number >= 0 nor 'cv'", name="regularization",
                           rules=((lambda v: _finite(v) and v >= 0, "a finite number >= 0 or 'cv'"),))
#: A prior scale (a finite number >= 0; 0: the feature off) or ``tuned``.
scale_or_tuned = number_or("tuned", unreadable="neither a number >= 0 nor 'tuned'", name="scale",
                           rules=((lambda v: _finite(v) and v >= 0, "a finite number >= 0 or 'tuned'"),))
period = number_or("day", "week", "month", "year", "none", unreadable="neither day, week, month, year, none nor a "
                   "number", rules=((lambda v: _finite(v) and v > 0, "day, week, month, year, none or a finite number "
                                     "> 0"),), name="period")
refit_period = number_or("day", "week", "month", "year", unreadable="neither day, week, month, year nor a number",
                         rules=((lambda v: _finite(v) and v > 0, "day, week, month, year or a finite number > 0"),),
                         name="refit period")
threads = number_or(convert=int, unreadable="not an integer", name="threads",
                    rules=((lambda v: v != 0, "a positive count, or -1 for all cores (-2 all but one ...)"),))


def int_at_least(low: int) -> Callable[[str], int]:
    """An integer >= ``low``."""
    return number_or(convert=int, unreadable="not an integer", rules=((lambda v: v >= low, f"an integer >= {low}"),),
                     name=f"integer >= {low}")


def positive(allow_inf: bool = False) -> Callable[[str], float]:
    """A finite number > 0, or ``inf`` too with ``allow_inf``."""
    need = "a number > 0 or inf" if allow_inf else "a finite number > 0"
    return number_or(rules=((lambda v: v > 0 and (_finite(v) or (allow_inf and v == np.inf)), need),),
                     name="positive number")


def check_period(models: str, value: Union[str, float, None], t: Optional[np.ndarray], given: bool) -> None:
    """The random walk's period of a dynamic model (``value``: a calendar period, a width, or None for
    none) checked against the kind of the log's times ``t``; the errors name ``--period``.

    Parameters
    ----------
    models : str
        The option that chose the model(s), for the message ("--model dynamic").
    value : str, float or None
        The model's period.
    t : ndarray or None
        The log's times (None: no time column, which the caller refuses).
    given : bool
        Whether ``--period`` was given (else ``value`` is the model's default).

    Raises
    ------
    ValueError
        A calendar period for numeric times, or a width for dates.
    """
    if value is None or t is None or not t.size:
        return
    first = str(t[0])[:10] if t.dtype.kind == "M" else f"{t[0]:g}" if t.dtype.kind == "f" else str(t[0])
    if t.dtype.kind != "M" and isinstance(value, str):
        what = f"--period {value} is" if given else f"the default period, {value}, is"
        raise ValueError(f"{models}: the times are numbers (such as {first}) and {what} a calendar period: give the "
                         "random walk's period as a width in the times' units, --period WIDTH (say --period 7 for "
                         "times counted in days), or --period none for one rating per player")
    if t.dtype.kind == "M" and not isinstance(value, str):
        raise ValueError(f"{models}: --period {value:g} is a width for numeric times, but the times are dates (such "
                         f"as {first}): give --period day, week, month or year (or none)")


def bound_text(flag: str, value: Optional[str]) -> Optional[str]:
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


def write_file(path: str, write: Callable[[], None]) -> None:
    """Run ``write``; an OSError names ``path`` (``[Errno 5] Input/output error`` alone does not)."""
    try:
        write()
    except OSError as exc:
        target = exc.filename if isinstance(exc.filename, str) else path  # (numpy adds .npz, matplotlib .png)
        raise OSError(f"cannot write {target!r}: {exc.strerror or exc}") from None


class UsageError(Exception):
    """A command line that argparse refuses (an unknown option, a value of the wrong type)."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors :func:`main` prints as one line and exit code 2 (not the usage)."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        raise UsageError(f"{message} (discrank {self.prog.split()[-1]} --help lists the options)"
                          if " " in self.prog else message)


class FitProgress:
    """Prints on stderr, unless ``quiet``, the progress of long fits: the solvers' iterations (after the first
    second, every 0.2 s on a terminal, overwriting one line, else every 2 s), and each reported stage
    (:func:`discrank._util.progress.report_stage`) on a line of its own."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.tty = sys.stderr.isatty()
        self.open = False  # an iteration line on the terminal, not yet ended

    def __call__(self, iteration: int, f: float, measure: float) -> None:
        now = time.perf_counter() - self.t0
        if self.quiet or now - self.last < (0.2 if self.tty else 2.0) or now < 1.0:
            return
        self.last = now
        line = (f"  the fit in progress: iteration {iteration:>5}, loss {f:.10f}, gradient measure {measure:.2e}, "
                f"{now:6.1f} s")
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)
        self.open = self.tty

    def stage(self, text: str) -> None:
        """Print a stage's report on a line of its own (after the iteration line it ends, on a terminal)."""
        if self.quiet:
            return
        self.done()
        print(text, file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def listening(self) -> Iterator["FitProgress"]:
        """Listen to the iterations and stages of the code run inside the block (nothing when quiet)."""
        from discrank._util.progress import reporting, staging

        try:
            with reporting(None if self.quiet else self), staging(None if self.quiet else self.stage):
                yield self
        finally:
            self.done()

    def done(self) -> None:
        """End the iteration line left on the terminal, if any."""
        if self.open:
            print(file=sys.stderr)
            self.open = False


def read_log(args: argparse.Namespace):
    """The game log of ``args.games`` (CSV, Parquet or PGN) with its filters (``--start``, ``--end``,
    ``--min-player-games``), its bad-row options (``--drop-invalid``, ``--max-invalid``, ``--keep-truncated``)
    and ``--shuffle-sides``."""
    path = args.games
    lower = path.lower()
    drop = getattr(args, "drop_invalid", False)
    max_invalid = getattr(args, "max_invalid", None)
    if max_invalid is not None and not drop:
        raise ValueError(f"--max-invalid {max_invalid:g} is the largest share of rows that --drop-invalid drops: "
                         "give --drop-invalid too")
    filters = dict(start=bound_text("--start", args.start), end=bound_text("--end", args.end),
                   min_player_games=args.min_player_games, invalid="drop" if drop else "raise",
                   truncated="keep" if getattr(args, "keep_truncated", False) else "raise")
    if max_invalid is not None:
        filters["max_invalid"] = max_invalid
    try:
        log = read_games(args, path, lower, filters)
    except ValueError as exc:  # the readers name start= and end=; here they are --start and --end
        text = str(exc)
        if text.startswith(("start=", "end=")):
            raise ValueError("--" + text.replace("=", " ", 1)) from None
        raise
    seed = getattr(args, "shuffle_sides", None)
    return log if seed is None else log.shuffle_sides(seed)


def read_games(args: argparse.Namespace, path: str, lower: str, filters: dict):
    from discrank.data.formats import format_of, formats
    from discrank.data.logs import GameLog, read_pgn

    advantage = getattr(args, "advantage", None)
    context = getattr(args, "context", None)
    match_format = getattr(args, "match_format", None)
    margin = getattr(args, "margin", None)
    kind = format_of(lower, formats(pgn=("pgn",), parquet=("parquet",)))
    if kind == "pgn":
        if advantage:
            raise ValueError(f"--advantage {advantage[0]}: a PGN file has no covariate columns (--advantage names "
                             "columns of a CSV or Parquet file)")
        if context:
            raise ValueError(f"--context {context}: a PGN file has no context column (--context names a column of "
                             "a CSV or Parquet file)")
        if match_format:
            raise ValueError(f"--match-format {match_format}: a PGN file has no match format column (--match-format "
                             "names a column of a CSV or Parquet file)")
        if margin:
            raise ValueError(f"--margin {' '.join(margin)}: a PGN file has no margin columns (--margin names two "
                             "columns of a CSV or Parquet file)")
        return read_pgn(path, progress=None if not args.quiet else False, **filters)
    if getattr(args, "reader", None):
        return _read_with(args, path, filters)
    if args.score is None and args.winner is None:
        raise ValueError("give the result column: --score COL (1, 0.5, 0 or 1-0 / 0-1 / 1/2-1/2) or --winner COL")
    if (filters["start"] or filters["end"]) and args.time is None:
        raise ValueError("--start / --end need the time column: --time COL")
    cols = dict(a=args.a, b=args.b, score=args.score, winner=args.winner, time=args.time, advantage=advantage,
                context=context, margin=None if margin is None else tuple(margin), match_format=match_format)
    if kind == "parquet":
        filters.pop("truncated")
        return GameLog.read_parquet(path, **cols, **filters)
    return GameLog.read_csv(path, **cols, **filters)


def _read_with(args: argparse.Namespace, path: str, filters: dict):
    """The log of ``--reader tennis`` or ``football`` (the column options refused), filtered by
    ``--min-player-games``."""
    from discrank.data.readers import read_football, read_tennis

    given = [flag for flag, value in (("--a", args.a != "a"), ("--b", args.b != "b"), ("--score", args.score),
                                      ("--winner", args.winner), ("--time", args.time),
                                      ("--advantage", getattr(args, "advantage", None)),
                                      ("--context", getattr(args, "context", None)),
                                      ("--margin", getattr(args, "margin", None)),
                                      ("--match-format", getattr(args, "match_format", None))) if value]
    if given:
        raise ValueError(f"{given[0]} does not apply with --reader {args.reader}: the reader takes its own columns "
                         "(docs/data.md)")
    reader = read_tennis if args.reader == "tennis" else read_football
    log = reader(path, invalid=filters["invalid"], start=filters["start"], end=filters["end"],
                 **({"max_invalid": filters["max_invalid"]} if "max_invalid" in filters else {}))
    return log if filters["min_player_games"] <= 1 else log.filter(min_player_games=filters["min_player_games"])


def warn_notes(notes: list) -> None:
    """Print each of ``notes`` as ``discrank: warning: ...`` on stderr."""
    for note in notes:
        print(f"discrank: warning: {note}", file=sys.stderr)


def print_warnings(caught) -> None:
    """The warnings ``caught``, but deprecations, printed by :func:`warn_notes`."""
    deprecations = (DeprecationWarning, PendingDeprecationWarning)
    warn_notes([w.message for w in caught if not issubclass(w.category, deprecations)])


class pd_options:
    def __enter__(self):
        import pandas as pd

        self.ctx = pd.option_context("display.width", 120, "display.max_columns", 12, "display.precision", 4)
        self.ctx.__enter__()

    def __exit__(self, *exc):
        self.ctx.__exit__(*exc)


def add_columns(p: argparse.ArgumentParser) -> None:
    """The columns of a game log (fit and evaluate)."""
    p.add_argument("--a", default="a", help="column of the first player (default a)")
    p.add_argument("--b", default="b", help="column of the second player (default b)")
    p.add_argument("--score", help="column of the first player's result: 1 / 0.5 / 0 or 1-0 / 1/2-1/2 / 0-1")
    p.add_argument("--winner", help="column of the winner's label (or draw), instead of --score")
    p.add_argument("--advantage", nargs="+", action="extend", metavar="COL",
                   help="columns of advantage covariates of the first player (1 at home, 0 neutral, -1 away; "
                        "bools read as 1 / 0)")
    p.add_argument("--context", metavar="COL",
                   help="column of each game's context (a surface, a time control, a map): DynamicElo fits each "
                        "player's effect in each context; the other models ignore it, with a warning")
    p.add_argument("--match-format", metavar="COL",
                   help="column of each game's match format (bo3, bo5): DynamicElo fits each format's scale of the "
                        "logit; the other models ignore it, with a warning")
    p.add_argument("--margin", nargs=2, metavar=("COL_A", "COL_B"),
                   help="columns of the sub-contests (points, games, goals) won by the first player and by the "
                        "second in each game: DynamicElo fits a margin likelihood; the other models ignore them, "
                        "with a warning")
    p.add_argument("--reader", choices=["tennis", "football"],
                   help="read a log of its known layout, by the rules of docs/data.md: tennis, Jeff Sackmann's match "
                        "files (winner_name, loser_name, score strings to games won, surface, best_of); football, the "
                        "international results (home_team, away_team, goals, neutral to the home column)")
    p.add_argument("--shuffle-sides", type=int_at_least(0), metavar="SEED",
                   help="swap the players of a random half of the games (drawn with this seed), flipping their "
                        "results, covariates and margins: for a log written winner first, such as --winner with the "
                        "winner's column as --a")


def add_bad_rows(p: argparse.ArgumentParser) -> None:
    """What to do with invalid rows and truncated files (fit and evaluate)."""
    p.add_argument("--drop-invalid", action="store_true",
                   help="drop invalid rows (a player against themself, a missing or unparseable result, name or "
                        "time) and report how many of each kind on stderr, instead of stopping at the first; "
                        "refused when more than --max-invalid of the rows are invalid")
    p.add_argument("--max-invalid", type=share, metavar="FRACTION",
                   help="with --drop-invalid: the largest share of the rows dropped (default 0.5; more usually "
                        "means a misread column); 1 drops any number")
    p.add_argument("--keep-truncated", action="store_true",
                   help="a truncated compressed file (.gz, .bz2, .xz): keep the games read before the truncation, "
                        "with a warning, instead of stopping")


def as_labels_of(labels: np.ndarray, values: np.ndarray, where: str) -> np.ndarray:
    """``values`` as labels of the kind of ``labels`` (numbers, or text: a command-line value is text)."""
    if labels.dtype.kind in "iuf":
        number = int if labels.dtype.kind in "iu" else float
        out = []
        for v in values.tolist():
            try:
                got = number(v)
                whole = isinstance(v, str) or float(got) == float(v)  # (1.5 is no integer label)
            except (TypeError, ValueError, OverflowError):
                whole = False
            if not whole:
                raise ValueError(f"{where}: {show(v)} is not one of the model's values, which are numbers")
            out.append(got)
        return np.array(out)
    return values.astype(str).astype(object)
