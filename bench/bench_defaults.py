"""The stationary models' defaults against a coin: each model as a user first fits it, on the three logs.

    python bench/bench_defaults.py                  # the three logs; writes the table into bench/PREDICTION.md
    python bench/bench_defaults.py --only tennis    # one of: tennis go football
    python bench/bench_defaults.py --no-write       # print only
    python bench/bench_defaults.py --quick          # football only; prints, never writes (for the tests)

Two set-ups on each log of ``datasets.SPLITS`` (issue 33), cut at the end of its training period (tennis
2019-12-31, Go 2015-12-31, football 2014-12-31):

- **pairs**: the whole training period's games aggregated to a ``PairwiseData`` (``to_pairs``), which keeps
  the log (``PairwiseData.games_log``), so that the prior is tuned on its latest games, as a fit of the log;
- **pairs without times**: the same pairs without their log (as pairs built from games without times), so
  that the prior is tuned on held-out pairs, which cannot see ratings move;
- **18 months**: a ``GameLog`` of the training period's last 18 calendar months, so that the prior is tuned
  in time order on a short log.

Each model is fitted with its defaults (``prior_scale=None``, nothing else but ``random_state``;
``DiscDecompositionCV`` tunes its prior as its first candidate, a disc decomposition, does) and
predicts the games of the next three years (Go: 2016, the log's last year) whose two players both appear
in its training games. Each row gives the log loss per game (a draw counts 0.5), the scale chosen (and the
best one of the validation, from which the one-SE rule steps down: ``prior_tuning_``), the difference to a
coin (log 2 = 0.6931 per game) with its paired standard error over the test games, and the log loss of
the same model with its prior fixed at the validation's best (the choice before the one-SE rule).
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import warnings

import numpy as np

import datasets
from discrank import DiscDecomposition, Elo, EloPlusPlus, MElo
from discrank._util.losses import binary_log_loss

LOGS = {"tennis": "tennis ATP", "go": "Go Tygem", "football": "football"}
COIN = math.log(2.0)
#: The test period after the training end, in years.
YEARS = 3


def models() -> dict:
    """The stationary models with a tuned default prior, as a user first fits them."""
    return {"Elo": Elo(), "Elo++": EloPlusPlus(), "m-Elo k=1": MElo(1, random_state=0),
            "disc k=1": DiscDecomposition(1, random_state=0), "disc k=2": DiscDecomposition(2, random_state=0)}


def setups(key: str) -> tuple[dict, str]:
    """(set-up name -> (training data, test GameLog, the games fitted), the heading's dates) of one log."""
    load, start, end, _, _ = datasets.SPLITS[LOGS[key]]
    log = load()
    day = np.timedelta64(1, "D")
    first_test = np.datetime64(end) + day
    last_test = str(np.datetime64(f"{int(end[:4]) + YEARS}{end[4:]}"))
    window = str((np.datetime64(end, "M") - 17).astype("datetime64[D]"))  # the last 18 calendar months
    out = {}
    for name, train_start in (("pairs", start), ("18 months", window)):
        train, test, info = datasets._split(log, train_start, end, str(first_test), last_test)
        data = train.to_pairs() if name == "pairs" else train
        out[name] = (data, test, f"{train_start} .. {end}, {info['train_games']} games")
        if name == "pairs":
            untimed = copy.copy(data)
            untimed.games_log = None
            out["pairs without times"] = (untimed, test, out[name][2])
    dates = f"test {first_test} .. {min(last_test, str(log.time.max())[:10])}"
    return out, dates


def _versus_coin(loss: np.ndarray) -> tuple[float, float]:
    """The mean of ``loss - log 2`` and its paired standard error."""
    d = loss - COIN
    return float(np.mean(d)), float(np.std(d, ddof=1) / math.sqrt(d.size))


def _at_scale(model, scale: float, data, test) -> float:
    """The test log loss of ``model``'s parameters with the prior scale fixed at ``scale``: at the
    validation's best, the scale the tuning chose before the one-SE rule."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixed = type(model)(**{**model.get_params(), "prior_scale": scale}).fit(data)
        return float(np.mean(binary_log_loss(fixed.predict_games(test), test.score)))


def run_log(key: str, out: list) -> None:
    """The table of one log: every model in both set-ups."""
    cases, dates = setups(key)
    lines = [f"### {LOGS[key]}: the defaults on the next {YEARS} years ({dates})", "",
             "| set-up | trained on | model | chosen scale (validation's best, rule) | test games | log loss | "
             "minus a coin (paired se) | log loss at the validation's best |", "|---|---|---|---|---|---|---|---|"]
    for setup, (data, test, trained) in cases.items():
        for name, model in models().items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(data)
                loss = binary_log_loss(model.predict_games(test), test.score)
            diff, se = _versus_coin(loss)
            record = model.prior_tuning_
            at_best = _at_scale(model, record["best"], data, test)
            lines.append(f"| {setup} | {trained} | {name} | {model.prior_scale_:.3g} ({record['best']:.3g}, "
                         f"{record['rule']}) | {loss.size} | {loss.mean():.4f} | {diff:+.4f} ({se:.4f}) | "
                         f"{at_best:.4f} |")
            print(lines[-1], file=sys.stderr, flush=True)  # progress; the table follows on stdout
    lines += ["", f"A coin: {COIN:.4f} nats per game."]
    text = "\n".join(lines)
    print(text, "\n", flush=True)
    out.append((f"defaults {key}", text))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=list(LOGS))
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--quick", action="store_true", help="football only; prints, never writes")
    args = parser.parse_args(argv)
    if not datasets.available():
        print(f"skipped: the real logs are absent ({datasets.DATA}: $DISCRANK_DATA, else ../shared/data)")
        return 0
    keys = ["football"] if args.quick else [args.only] if args.only else list(LOGS)
    out: list = []
    for key in keys:
        run_log(key, out)
    if not (args.no_write or args.quick):
        import bench_prediction

        bench_prediction.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
