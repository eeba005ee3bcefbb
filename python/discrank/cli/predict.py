"""``discrank predict``: P(A beats B), or win / draw / loss, of fixtures from a saved model."""

from __future__ import annotations

import argparse
import warnings
from typing import Optional

import numpy as np

from discrank.cli._args import print_warnings, warn_notes, write_file
from discrank.cli._fixtures import fixture_features, fixture_times, predict_fixtures
from discrank.cli._models import advantage_names, advantage_values, check_known, load_model, match_labels
from discrank._util.labels import show

__all__ = ["add", "run"]


def run(args: argparse.Namespace) -> int:
    """``discrank predict``: P(A beats B), or P(A wins), P(draw), P(B wins) for a model with a draw model, of
    one fixture or of the pairs of a CSV file, in each fixture's context, match format and time where the model
    has them. An unknown player, context or format is an error naming it, unless ``--unseen prior``."""
    model = load_model(args.model)
    given = advantage_values(model, args.advantage, args.model)
    options = {"context": args.context, "match_format": args.match_format}
    if args.pairs:
        df = _read_pairs(args)
        a = match_labels(model, df[args.a].to_numpy())
        b = match_labels(model, df[args.b].to_numpy())
        features, notes = fixture_features(model, options, a.size, args.model, args.unseen, df, args.pairs)
        times, more = fixture_times(model, args.time, a.size, args.model, df, args.pairs)
        warn_notes(notes + more)
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
    ab = match_labels(model, np.array([args.player_a, args.player_b]))
    features, notes = fixture_features(model, options, 1, args.model, args.unseen)
    times, more = fixture_times(model, args.time, 1, args.model)
    warn_notes(notes + more)
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


def _predict(model, a: np.ndarray, b: np.ndarray, values: dict, unseen: str, source: str,
             features: Optional[dict] = None, times: Optional[np.ndarray] = None) -> np.ndarray:
    """The predictions of the fixtures ``a`` against ``b`` with their advantage covariates ``values`` by name (a
    covariate not given is 0), ``features`` and ``times``; an unknown player is an error naming it (``source``:
    where it was given), or with ``unseen="prior"`` a warning. The model's warnings are printed."""
    unknown = check_known(model, np.concatenate([a, b]), unseen, source)
    if unknown.size:
        warn_notes([f"{', '.join(map(show, unknown))} not among the model's players: predicted from its prior"])
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



def add(sub) -> None:
    """The ``predict`` command."""
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
    p.set_defaults(func=run)
