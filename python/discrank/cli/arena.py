"""``discrank arena``: the leaderboard of an arena's votes (:func:`discrank.arena_board`), printed and written
(``--out PREFIX``) to ``PREFIX.csv`` (the frame), ``PREFIX.png`` (its forest plot), ``PREFIX_style.csv`` (with
``--style``) and ``PREFIX_<category>.csv`` / ``.png`` (with ``--category``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from discrank.cli._args import finite_float, fraction, int_at_least, pd_options, print_warnings, write_file

__all__ = ["CATEGORY_ROWS", "add", "output_prefix", "run", "safe_names"]

#: The rows of each category's printed table (at most ``--top``).
CATEGORY_ROWS = 5


def run(args: argparse.Namespace) -> int:
    """``discrank arena``: read the votes, fit the board, print it (style coefficients, categories,
    ``--holdout``'s log loss, ``--flip``'s vote-drop check) and write its files.

    Returns
    -------
    int
        0. Errors are ValueErrors naming the value (exit status 2 by :func:`discrank.cli.main`); warnings are
        printed as ``discrank: warning: ...``.
    """
    prefix = args.out if args.out else output_prefix(args.votes)
    folder = os.path.dirname(prefix)
    if folder and not os.path.isdir(folder):
        raise ValueError(f"--out {prefix}: no folder {folder!r} to write the board's files in")
    frame = _read(args)
    columns = dict(model_a=args.model_a, model_b=args.model_b, winner=args.winner)
    if args.time is not None:
        columns["time"] = args.time
    test = None
    if args.holdout is not None:
        frame, test, how = _holdout(frame, args, columns)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        board = _fit(frame, args, columns)
    print_warnings(caught)
    print(f"fitted in {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    print(_heading(board, "the board"))
    print(f"table: {board.frame.attrs['note']}", file=sys.stderr)
    with pd_options():
        print(board_table(board.frame, args.top))
        if len(board.style):
            print("\nstyle coefficients (logits per standard deviation of the feature):")
            print(board.style.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        for name, sub in board.categories.items():
            print("\n" + _heading(sub, f"category {name!r}"))
            print(board_table(sub.frame, min(args.top, CATEGORY_ROWS)))
    if test is not None:
        held = board.log_loss(test, bothbad=args.bothbad, **columns)
        print(f"\nheld out: the last {100 * args.holdout:g}% of the votes {how} ({held.n} votes scored, {held.skipped} "
              f"skipped: a model the board has not rated): log loss {held.log_loss:.6f}, coin {held.coin:.6f}, "
              f"difference {held.difference:.6f} (SE {held.se:.6f})")
    if args.flip:
        print("\n" + _flip_line(board.votes_to_flip(rank=1)))
    written = _write(board, prefix)
    print(f"wrote {', '.join(written)}", file=sys.stderr)
    return 0


def _read(args: argparse.Namespace):
    """The votes' rows; a file that cannot be read, or a flag's column that it lacks, is a ValueError naming it."""
    from discrank.data.arena import frame_of

    path = args.votes
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    try:
        frame = frame_of(path)
    except (ValueError, OSError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(text if path in text else f"{path}: cannot read the votes ({text})") from None
    for flag, column in (("--model-a", args.model_a), ("--model-b", args.model_b), ("--winner", args.winner),
                         ("--time", args.time), ("--category", args.category)):
        if column is not None and column not in frame.columns:
            raise ValueError(f"{flag} {column!r}: no such column in {path} (its columns: {list(frame.columns)[:12]})")
    return frame


#: The options of :func:`discrank.arena_board` the command passes by flag: a message that begins with
#: ``name=`` names the flag instead.
_FLAGS = {"anchor": "--anchor", "anchor_rating": "--anchor-rating", "level": "--level", "n_boot": "--n-boot",
          "seed": "--seed"}


def _fit(frame, args: argparse.Namespace, columns: dict):
    """:func:`discrank.arena_board` with the command's options; an error about one of them names its flag."""
    from discrank.arena.board import arena_board

    try:
        return arena_board(frame, style=args.style, category=args.category, ties=args.ties, bothbad=args.bothbad,
                           anchor=args.anchor, anchor_rating=args.anchor_rating, ci=args.ci, level=args.level,
                           n_boot=args.n_boot, seed=args.seed, min_votes=args.min_votes, reweighted=args.reweighted,
                           min_pair_count=args.min_pair_count, verbose=0 if args.quiet else 1 if args.verbose else None,
                           **columns)
    except ValueError as exc:
        text = str(exc)
        name = text.split("=", 1)[0]
        if name in _FLAGS and "=" in text:
            raise ValueError(f"{_FLAGS[name]} {text[len(name) + 1:]}") from None
        raise


def _holdout(frame, args: argparse.Namespace, columns: dict):
    """(the rows fitted, the rows held out, how they were chosen): the last ``--holdout`` share of the votes
    kept by ``--bothbad``, in the order of ``--time`` (stable) or else of the rows."""
    from discrank.data.arena import read_votes

    key = "__discrank_row"
    log, rows = read_votes(frame.assign(**{key: np.arange(len(frame))}), bothbad=args.bothbad, extra=key,
                           **columns)
    order = rows if log.time is None else rows[np.argsort(log.time, kind="stable")]
    cut = int(round((1.0 - args.holdout) * order.size))
    if cut in (0, order.size):
        raise ValueError(f"--holdout {args.holdout:g} of {order.size} votes leaves "
                         f"{'no vote to fit' if cut == 0 else 'no vote held out'}")
    how = f"by {args.time!r}" if args.time is not None else "by row order"
    return frame.iloc[np.sort(order[:cut])], frame.iloc[np.sort(order[cut:])], how


def _heading(board, what: str) -> str:
    frame = board.frame
    votes = frame.attrs["votes"]
    ci = frame.attrs["ci"]
    intervals = "no intervals" if ci == "none" else f"{100 * frame.attrs['level']:g}% {ci} intervals"
    anchor = "the mean" if frame.attrs["anchor"] is None else repr(frame.attrs["anchor"])
    style = f"; style {', '.join(board.style['name'])}" if len(board.style) else ""
    return (f"{what}: {len(frame)} models, {votes} votes, {intervals}{style}; {anchor} at "
            f"{frame.attrs['anchor_rating']:g}")


def board_table(frame, top: int) -> str:
    """The first ``top`` rows of a board's frame as text: rank, rank interval, model (marked preliminary),
    rating, interval, votes, and with style control the plain rating and the rank change (``+2``: up two)."""
    import pandas as pd

    rows = frame.head(top)
    shown = pd.DataFrame({"rank": rows["rank"]})
    ci = frame.attrs["ci"] != "none"
    if ci:
        shown["ranks"] = [f"{lo}-{hi}" for lo, hi in zip(rows["rank_lower"], rows["rank_upper"])]
    shown["model"] = [f"{m} (preliminary)" if p else str(m) for m, p in zip(rows["model"], rows["preliminary"])]
    shown["rating"] = [f"{r:.1f}" for r in rows["rating"]]
    if ci:
        shown["interval"] = [f"[{lo:.1f}, {hi:.1f}]" for lo, hi in zip(rows["lower"], rows["upper"])]
    shown["votes"] = rows["votes"]
    if "rating_plain" in rows.columns:
        shown["plain"] = [f"{r:.1f}" for r in rows["rating_plain"]]
        shown["change"] = [f"{c:+d}" for c in rows["rank_change"]]
    return shown.to_string(index=False)


def _flip_line(drop) -> str:
    if drop.votes == 0:
        return (f"votes to flip the top model {drop.holder!r}: 0; it is tied with {drop.challenger!r} on all the votes "
                f"(a gap of {abs(drop.gap):.1f} Elo points): the top rank is shared")
    if drop.votes < 0:
        tried = "" if drop.approximate < 0 else f" (first-order estimate: {drop.approximate})"
        return (f"votes to flip the top model {drop.holder!r}: none found; removing the most influential votes "
                f"did not change it{tried}")
    return (f"votes to flip the top model {drop.holder!r}: {drop.votes} (first-order estimate {drop.approximate}); "
            f"then {drop.challenger!r} is on top, {drop.gap:.1f} Elo points behind on all the votes")


def _write(board, prefix: str) -> list[str]:
    """Write the board's files under ``prefix`` (the module's docstring lists them); their paths."""
    written = _write_board(board, prefix, "the board")
    if len(board.style):
        path = f"{prefix}_style.csv"
        write_file(path, lambda: board.style.to_csv(path, index=False))
        written.append(path)
    for name, safe in zip(board.categories, safe_names(list(board.categories), taken=("style",))):
        written += _write_board(board.categories[name], f"{prefix}_{safe}", f"category {name!r}")
    return written


def _write_board(board, prefix: str, title: str) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    csv, png = f"{prefix}.csv", f"{prefix}.png"
    write_file(csv, lambda: board.frame.to_csv(csv, index=False))
    ax = board.plot(title=title)
    try:
        write_file(png, lambda: ax.figure.savefig(png, dpi=120, bbox_inches="tight"))
    finally:
        plt.close(ax.figure)
    return [csv, png]


def safe_names(names: list[str], taken: tuple = ()) -> list[str]:
    """Each name made safe for a file name: runs of characters other than word characters, ``.`` and ``-``
    become one ``_`` (an empty result: ``category``), and a name met again (ignoring case), or one of
    ``taken``, gets ``-2``, ``-3``, ..."""
    out: list[str] = []
    seen = {t.lower() for t in taken}
    for name in names:
        base = re.sub(r"[^\w.-]+", "_", str(name)).strip("._") or "category"
        safe, k = base, 1
        while safe.lower() in seen:
            k += 1
            safe = f"{base}-{k}"
        seen.add(safe.lower())
        out.append(safe)
    return out


def output_prefix(path: str) -> str:
    """The default ``--out``: the votes file's name without its format and compression suffixes, plus
    ``_board``, in the current folder (``data/battles.jsonl.gz`` -> ``battles_board``)."""
    from discrank.data.arena import FORMATS

    name = Path(path)
    if name.suffix.lower() not in {s for suffixes in FORMATS.values() for s in suffixes}:
        name = name.with_suffix("")  # a compression suffix
    return name.with_suffix("").name + "_board"


def add(sub) -> None:
    """The ``arena`` command."""
    p = sub.add_parser("arena", help="the leaderboard of an arena's votes (model_a, model_b, winner): printed, "
                                     "and written as CSV and PNG",
                       description="Bradley-Terry leaderboard of pairwise votes between models on the Elo scale "
                                   "(discrank.arena_board), with sandwich or bootstrap intervals, rank intervals, "
                                   "style control and per-category boards.")
    p.add_argument("votes", help="CSV, Parquet or JSON-lines file (compressed or not), one vote per row")
    p.add_argument("--model-a", default="model_a", help="column of the first model (default model_a)")
    p.add_argument("--model-b", default="model_b", help="column of the second model (default model_b)")
    p.add_argument("--winner", default="winner",
                   help="column of the winner: model_a, model_b, tie, tie (bothbad), or the winning model's name "
                        "(default winner)")
    p.add_argument("--time", help="column of the votes' times (orders --holdout)")
    p.add_argument("--style", metavar="NAMES",
                   help="style features, comma-separated: columns, NAME_a / NAME_b column pairs, or len, md, "
                        "header, list, bold from the conv_metadata column; the board is then style-controlled")
    p.add_argument("--category", metavar="COLUMN", help="a column of categories: one board per category too")
    p.add_argument("--ci", choices=["sandwich", "bootstrap", "none"], default="sandwich",
                   help="the intervals: sandwich (robust; the default), bootstrap, or none")
    p.add_argument("--level", type=fraction, default=0.95, help="the intervals' confidence level (default 0.95)")
    p.add_argument("--n-boot", type=int_at_least(2), default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="the bootstrap's seed (default 0)")
    p.add_argument("--ties", choices=["half", "ignore", "one-win-each"], default="half",
                   help="a tie: half a win each (the default), dropped, or one win each with every vote "
                        "counted twice (FastChat's rule: the same board as half)")
    p.add_argument("--bothbad", choices=["tie", "ignore"], default="tie",
                   help="the 'tie (bothbad)' votes: ties (the default), or dropped")
    p.add_argument("--anchor", metavar="MODEL", help="the model shown at --anchor-rating (default: the mean is)")
    p.add_argument("--anchor-rating", type=finite_float, default=1000.0, help="(default 1000)")
    p.add_argument("--verbose", action="store_true",
                   help="report the bootstrap's replicates on stderr even when it is not a terminal (a terminal "
                        "shows them by default)")
    p.add_argument("--quiet", action="store_true", help="no progress reports, even on a terminal")
    p.add_argument("--reweighted", action="store_true",
                   help="weigh each vote by the inverse of its pair's votes (at least --min-pair-count), as "
                        "arena-rank's reweighted=True")
    p.add_argument("--min-pair-count", type=int_at_least(1), default=50, metavar="N",
                   help="the floor of a pair's votes in --reweighted (default 50; arena-rank's style example: 100)")
    p.add_argument("--min-votes", type=int_at_least(0), default=0, metavar="N",
                   help="show only the models with N votes at least (each board; the others are fitted); every board "
                        "marks a model with fewer than 500 votes preliminary")
    p.add_argument("--top", type=int_at_least(1), default=20,
                   help=f"rows printed (default 20; {CATEGORY_ROWS} at most per category); the files hold all")
    p.add_argument("--out", metavar="PREFIX",
                   help="write PREFIX.csv, PREFIX.png, PREFIX_style.csv and PREFIX_<category>.csv / .png "
                        "(default: the file's name without its suffixes, plus _board, in the current folder)")
    p.add_argument("--holdout", type=fraction, metavar="FRACTION",
                   help="fit on all but the last FRACTION of the votes (by --time, else by row order) and print "
                        "the held-out log loss against the coin's")
    p.add_argument("--flip", action="store_true", help="print the fewest votes whose removal changes the top model")
    p.set_defaults(func=run)
