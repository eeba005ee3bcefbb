"""Predicting real games: discrank's models and the rating systems users run instead, on the same splits.

    python bench/bench_prediction.py                  # the three logs and the tuning cost; writes the
                                                      # tables into bench/PREDICTION.md
    python bench/bench_prediction.py --only football  # one of: tennis go football cost
    python bench/bench_prediction.py --no-write       # print only

Every model is fitted on the training period only (its tuning included) and scored on the test period,
on the test games whose two players both appear in training (``discrank.evaluate``, frozen models: no
update during the test period). The splits (``datasets.prediction_splits``):

- ATP tennis: train 1968-2019, test 2022-2024, each game oriented by a fair coin (not by who won);
- Tygem Go: train 2005-2015, test the second half of 2016 (a = Black);
- international football: train 1872-2014, test 2019 onwards (a = the home side; a draw counts 0.5).

The reference is stationary Elo with its prior chosen by a grid on the training period ("Elo, prior by
validation grid": 25 scales from 0.03 to 8 logits, each scored on a validation window of the training
period as long as the test period and after the same gap), and every difference is given with its
paired standard error over the test games. The peers (``rating_peers.py``) are skipped, with the
reason, when their package is not installed (``pip install '.[bench]'``) or would run too long.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import datasets
from discrank import DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, GameLog, MElo, PairwiseData
from discrank._tuning import _holdout, _score
from discrank.evaluation import evaluate
from discrank.online import OnlineElo

HERE = Path(__file__).resolve().parent
LOGS = {"tennis": "tennis ATP", "go": "Go Tygem", "football": "football"}
#: Prior scales of the reference's grid (logits): 2^-5 .. 2^3 by quarter powers of two.
GRID = tuple(2.0 ** (x / 4.0) for x in range(-20, 13))
#: Peers that take longer than this on a log are skipped there (seconds, projected from a subsample).
PEER_BUDGET = 900.0


class GridElo(Elo):
    """Stationary Elo whose prior scale is the best of ``GRID`` on the validation window (the bench's
    reference: the "best stationary Elo with a prior tuned on validation")."""

    def fit(self, data, *, validation=None):
        split = _holdout(self, data.to_pairs() if isinstance(data, GameLog) else data, data, None, validation)
        inner, val, _ = split
        scores = []
        for sigma in GRID:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores.append(_score(Elo(prior_scale=sigma).fit(inner), val))
        self.grid_scores_ = dict(zip(GRID, scores))
        chosen = GRID[int(np.argmin(scores))]
        self.prior_scale = chosen
        super().fit(data)
        self.prior_scale = None
        return self


def discrank_models(name: str) -> dict:
    models = {
        "Elo, prior by validation grid (reference)": GridElo(),
        "Elo (default prior)": Elo(),
        "online Elo (K tuned)": OnlineElo(),
        "Elo++ (default prior)": EloPlusPlus(),
        "m-Elo k=1 (default prior)": MElo(1, random_state=0),
        "disc k=1 (default prior)": DiscDecomposition(1, random_state=0),
        "disc k=2 (default prior)": DiscDecomposition(2, random_state=0),
        "disc k=1 CV lambda (default prior)": DiscDecompositionCV(regularizations=(0.0, 10.0, 1000.0), cv=3,
                                                                   random_state=0),
    }
    return models


def peer_models() -> tuple[dict, dict]:
    """(name -> adapter, name -> reason skipped)."""
    try:
        import rating_peers
    except ImportError as exc:
        return {}, {"all peers": f"bench/rating_peers.py could not be imported ({exc})"}
    made, skipped = rating_peers.available_adapters()
    return {adapter.name: adapter for adapter in made}, skipped


#: Peers too slow for a log of this many training games (their projected time over PEER_BUDGET),
#: measured by running them on a subsample (see bench/PREDICTION.md).
TOO_SLOW = {"TrueSkill Through Time (trueskillthroughtime)": 50_000,  # 408 s on football's 38 417 games
            "WHR (whr)": 200_000}  # 30 s on football's 38 417 games, its w2 grid of 6 refits


def constant_baseline(train: GameLog, test: GameLog) -> float:
    """Log loss of the best constant prediction of the training period (its mean score of a)."""
    q = float(np.clip(np.mean(train.score), 1e-6, 1 - 1e-6))
    y = test.score
    return float(np.mean(-(y * math.log(q) + (1 - y) * math.log1p(-q))))


def run_log(key: str, out: list, with_peers: bool) -> None:
    splits = datasets.prediction_splits()
    title = LOGS[key]
    train, test, info = splits[title]
    both = GameLog(np.concatenate([train.a, test.a]), np.concatenate([train.b, test.b]),
                   np.concatenate([train.score, test.score]), np.concatenate([train.time, test.time]))
    day = np.timedelta64(1, "D")
    cutoff = train.time.max() + day  # the training log is the games up to its last day
    test_start = min(test.time.min(), np.datetime64(info["test_period"][:10]).astype(test.time.dtype))
    models = discrank_models(key)
    skipped = {}
    if with_peers:
        peers, skipped = peer_models()
        for label, adapter in peers.items():
            if len(train) > TOO_SLOW.get(label, math.inf):
                skipped[label] = (f"projected over the bench's {PEER_BUDGET:.0f} s budget on {len(train)} "
                                  "training games (see the timing note below the tables)")
            else:
                models[label] = adapter
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(models, both, cutoff=cutoff, test_start=test_start)
    elapsed = time.perf_counter() - t0
    rows = ev.summary()
    coin = math.log(2.0)
    const = constant_baseline(train, test)
    lines = [f"### {title}: train {info['train_games']} games, test {ev.n_games} games with both players seen "
             f"({info['test_dropped_unseen']} test games with a new player left out); train {info['train_period']}, "
             f"test {info['test_period']}", "",
             f"A coin: {coin:.4f} nats per game; the best constant of the training period (mean score of a "
             f"{np.mean(train.score):.3f}): {const:.4f}.", "",
             "| model | log loss | Brier | accuracy | minus reference (paired se) | fit s | converged | chosen |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        m = ev.fitted[r["model"]]
        conv = getattr(m, "converged_", None)
        conv = "-" if conv is None else str(bool(np.all(conv)))
        lines.append(f"| {r['model']} | {r['log_loss']:.4f} | {r['brier']:.4f} | {r['accuracy']:.4f} | "
                     f"{r['diff']:+.4f} ({r['se']:.4f}) | {r['fit_seconds']:.2f} | {conv} | {_chosen(m)} |")
    for label, why in skipped.items():
        lines.append(f"| {label} | skipped: {why} | | | | | | |")
    lines.append("")
    lines.append(f"(evaluation of all models: {elapsed:.0f} s)")
    text = "\n".join(lines)
    print(text, flush=True)
    out.append((key, text))


def _chosen(model) -> str:
    if hasattr(model, "prior_scale_"):
        s = f"prior scale {model.prior_scale_:.3g}"
        best = getattr(model, "best_params_", None)
        if best:
            s += f", lambda {best['regularization']:g}"
        return s
    if hasattr(model, "step_"):
        return f"step {model.step_:.3g} (K = {model.step_ * 400 / math.log(10):.0f})"
    info = getattr(model, "info", None)
    if info and info.get("params"):
        return ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in info["params"].items())
    return ""


def run_cost(out: list) -> None:
    """Fit time with the prior tuned against the fit at a fixed prior, 40 000 players / 4.7M games."""
    rng = np.random.default_rng(0)
    n, m = 40_000, 4_700_000
    skill = rng.normal(0.0, 1.0, n)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    score = (rng.random(m) < 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))).astype(np.float64)
    log = GameLog(a, b, score, np.arange(m))
    data = PairwiseData.from_games(a, b, score)
    lines = ["### Cost of tuning the prior (40 000 players, 4.7M games, random pairings; best of 2)", "",
             "| model | input | fixed prior s | tuned | ratio | chosen scale |", "|---|---|---|---|---|---|"]
    for label, make in (("Elo", lambda s: Elo(prior_scale=s)),
                        ("disc k=1", lambda s: DiscDecomposition(1, prior_scale=s, random_state=0))):
        for what, x in (("PairwiseData (held-out pairs)", data), ("GameLog (time order)", log)):
            tuned = make(None)
            t_tuned = min(_timed(lambda: tuned.fit(x)) for _ in range(2))
            t_fixed = min(_timed(lambda: make(tuned.prior_scale_).fit(x)) for _ in range(2))
            lines.append(f"| {label} | {what} | {t_fixed:.2f} | {t_tuned:.2f} | {t_tuned / t_fixed:.2f}x | "
                         f"{tuned.prior_scale_:.3g} |")
            print(lines[-1], flush=True)
    text = "\n".join(lines)
    print(text)
    out.append(("cost", text))


def _timed(fn) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0


def write(out: list) -> None:
    path = HERE / "PREDICTION.md"
    text = path.read_text() if path.exists() else ""
    for key, table in out:
        begin, end = f"<!-- {key} begin -->", f"<!-- {key} end -->"
        block = f"{begin}\n{table}\n{end}"
        if begin in text:
            text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
        else:
            text += "\n" + block + "\n"
    path.write_text(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=[*LOGS, "cost"])
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    if not datasets.available() and args.only != "cost":
        print("skipped: ../shared/data (the real logs) is absent")
        return 0
    out: list = []
    for key in (*LOGS, "cost"):
        if args.only and key != args.only:
            continue
        if key == "cost":
            run_cost(out)
        else:
            run_log(key, out, not args.no_peers)
    if not args.no_write:
        write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
