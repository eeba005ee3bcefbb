"""Predicting real games: discrank's models and the rating systems users run instead, on the same splits.

    python bench/bench_prediction.py                     # the three logs under both protocols and the
                                                         # tuning cost; writes the tables into
                                                         # bench/PREDICTION.md
    python bench/bench_prediction.py --only football     # one of: tennis go football cost melo-oracle
    python bench/bench_prediction.py --protocol online   # frozen, online or both (default)
    python bench/bench_prediction.py --no-write          # print only
    python bench/bench_prediction.py --quick             # football only, without the slow peers (WHR,
                                                         # TTT, KickScore); prints, never writes (for
                                                         # the tests)

The splits (``datasets.SPLITS``), with the test games scored whose two players both appear in training:

- ATP tennis: train 1968-2019, test 2022-2024, each game oriented by a fair coin (not by who won);
- Tygem Go: train 2005-2015, test the second half of 2016 (a = Black);
- international football: train 1872-2014, test 2019 onwards (a = the home side; a draw counts 0.5).

Two protocols of ``discrank.evaluate`` on the whole log of each split:

- **online** (the headline): every model is fitted on the training period (its tuning included, for
  online forecasts: ``Validation(online=True)``), then walks through every later game in time order,
  the games between the cut-off and the test period and those of players new since training included:
  each group of games is predicted from every game before it, then given to the model (``update``;
  the stationary Elo is refitted on every game so far with its tuned prior). Groups are calendar weeks,
  one distinct date for the systems that update after every game (online Elo, TrueSkill, OpenSkill).
  The reference is stationary Elo with its default tuned prior, refitted each week.
- **frozen**: every model is fitted once on the training period and stops there. The reference is
  stationary Elo with its prior chosen by a grid on the training period ("Elo, prior by validation
  grid": 33 scales from 0.03 to 8 logits, each scored on a validation window of the training period
  as long as the test period and after the same gap).

Every difference is given with its paired standard error over the test games, and each table ends with
the best discrank model minus the best peer. The peers (``rating_peers.py``) are skipped, with the
reason, when their package is not installed (``pip install '.[bench]'``) or would run too long
(``TOO_SLOW``, ``TOO_SLOW_ONLINE``; ``--slow-peers`` runs them anyway).
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
import discrank
from discrank import DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, GameLog, MElo, PairwiseData
from discrank.solvers._tuning import _holdout, _score
from discrank.evaluation._evaluate import evaluate
from discrank.online import OnlineElo

HERE = Path(__file__).resolve().parent
LOGS = {"tennis": "tennis ATP", "go": "Go Tygem", "football": "football"}
#: Prior scales of the reference's grid (logits): 2^-5 .. 2^3 by quarter powers of two.
GRID = tuple(2.0 ** (x / 4.0) for x in range(-20, 13))
#: Peers that take longer than this on a log are skipped there (seconds, projected from a subsample).
PEER_BUDGET = 900.0
#: The slow peers, skipped by --quick.
SLOW_PEERS = ("WHR (whr)", "TrueSkill Through Time (trueskillthroughtime)", "KickScore (kickscore)")


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
    """The discrank models of the frozen tables."""
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


def online_models(log: GameLog) -> dict:
    """The discrank models of the online tables (name -> model)."""
    models = {
        "Elo, tuned prior (refit each week)": Elo(),  # evaluate refits it with its tuned prior frozen
        "online Elo (K tuned)": OnlineElo(),
    }
    models.update(dynamic_models(log))
    return models


def dynamic_models(log: GameLog) -> dict:
    """``discrank.DynamicElo()`` with its defaults, and on a log with draws with each draw model too
    (Davidson's, with each player's draw propensity tuned by default, and Rao and Kupper's ordered logit: their
    three-outcome log loss, side by side)."""
    models = {"dynamic Elo": discrank.DynamicElo()}
    if (np.asarray(log.score) == 0.5).any():
        models["dynamic Elo, Davidson draws and propensities"] = discrank.DynamicElo(draws="davidson")
        models["dynamic Elo, Rao-Kupper draws"] = discrank.DynamicElo(draws="rao-kupper")
    return models


def peer_models() -> tuple[dict, dict]:
    """(name -> a fresh adapter, name -> reason skipped)."""
    try:
        import rating_peers
    except ImportError as exc:
        return {}, {"all peers": f"bench/rating_peers.py could not be imported ({exc})"}
    made, skipped = rating_peers.available_adapters()
    return {adapter.name: adapter for adapter in made}, skipped


#: Peers too slow for a log of this many training games under the frozen protocol (their projected time
#: over PEER_BUDGET), measured by running them on a subsample (see bench/PREDICTION.md).
TOO_SLOW = {"TrueSkill Through Time (trueskillthroughtime)": 50_000,  # 408 s on football's 38 417 games
            "WHR (whr)": 200_000,  # 30 s on football's 38 417 games, its w2 grid of 6 refits
            # about 70 s a fit (100 EP sweeps) on football's 38 417 games: its dvar grid of 4 and the final fit
            "KickScore (kickscore)": 100_000}
#: The same under the online protocol, where the tuning walks through the last tenth of the training
#: games and the model is updated through the test period. WHR iterates its whole history at each weekly
#: update (0.15 s a round on football, 2-20 rounds to converge: 0.5-1.6 s a week for w2 0.5-512, about
#: 1 300 s projected for football's six w2 walks of the tuning and 420 test weeks); TTT refits its whole
#: History once a year of the walk (about 60 s a fit on football: five gammas times a fit and four
#: yearly refits in the tuning, then a fit and twelve refits, about 2 300 s projected).
TOO_SLOW_ONLINE = {"TrueSkill Through Time (trueskillthroughtime)": 10_000,
                   "WHR (whr)": 20_000,
                   # its grid's fits and yearly warm refits: 653 s on football's 38 417 training games (4
                   # values of dvar, the home item; bench_kickscore.py, which runs tennis and Go on subsamples)
                   "KickScore (kickscore)": 50_000}


def _peers(n_train: int, online: bool, with_peers: bool, quick: bool, slow_peers: bool) -> tuple[dict, dict]:
    """The peers to run on a log of ``n_train`` training games, and the reasons the others are skipped."""
    if not with_peers:
        return {}, {}
    peers, skipped = peer_models()
    run = {}
    limits = TOO_SLOW_ONLINE if online else TOO_SLOW
    for label, adapter in peers.items():
        if quick and label in SLOW_PEERS:
            skipped[label] = "--quick skips the slow peers"
        elif not slow_peers and n_train > limits.get(label, math.inf):
            skipped[label] = (f"projected over the bench's {PEER_BUDGET:.0f} s budget on {n_train} training games "
                              f"under the {'online' if online else 'frozen'} protocol (see the timing note below "
                              "the tables; --slow-peers runs it)")
        else:
            run[label] = adapter
    return run, skipped


def constant_baseline(train_scores: np.ndarray, test_scores: np.ndarray) -> float:
    """Log loss of the best constant prediction of the training period (its mean score of a)."""
    q = float(np.clip(np.mean(train_scores), 1e-6, 1 - 1e-6))
    y = test_scores
    return float(np.mean(-(y * math.log(q) + (1 - y) * math.log1p(-q))))


def full_log(key: str, features: bool = False) -> tuple[GameLog, dict, tuple]:
    """(the whole log of a split, evaluate's dates, (train start, train end, test start, test end) as text);
    ``features``: the log read with its contexts and margins where it has them (``datasets``' loaders)."""
    title = LOGS[key]
    load, start, end, test_start, test_end = datasets.SPLITS[title]
    log = datasets.load_columns(load, context=features, margin=features)
    day = np.timedelta64(1, "D")
    dates = dict(train_start=np.datetime64(start, "ns"), cutoff=np.datetime64(end, "ns") + day,
                 test_start=np.datetime64(test_start, "ns"),
                 test_end=None if test_end is None else np.datetime64(test_end, "ns") + day)
    return log, dates, (start, end, test_start, test_end)


def _paired(d: np.ndarray) -> tuple[float, float]:
    n = d.shape[0]
    return float(np.mean(d)), (float(np.std(d, ddof=1) / math.sqrt(n)) if n > 1 else math.nan)


def best_versus_peers(ev, ours: list, peers: list) -> list[str]:
    """The lines "best discrank model minus best peer" (two-outcome log loss, and three-outcome among the
    models that predict three outcomes), from the per-game losses of ``ev``."""
    lines = []
    for key, what in (("log_loss", "log loss"), ("log_loss3", "three-outcome log loss")):
        mine = [m for m in ours if key in ev.losses[m]]
        theirs = [m for m in peers if key in ev.losses[m]]
        if not mine or not theirs:
            if key == "log_loss":
                lines.append("best discrank model minus best peer: no peer ran")
            continue
        best = min(mine, key=lambda m: np.nanmean(ev.losses[m][key]))
        peer = min(theirs, key=lambda m: np.nanmean(ev.losses[m][key]))
        d, se = _paired(ev.losses[best][key] - ev.losses[peer][key])
        lines.append(f"best discrank model minus best peer{'' if key == 'log_loss' else ', ' + what}: "
                     f"{d:+.4f} (paired se {se:.4f}): {best} ({np.nanmean(ev.losses[best][key]):.4f}) against "
                     f"{peer} ({np.nanmean(ev.losses[peer][key]):.4f})")
    return lines


def _table(ev, skipped: dict, online: bool) -> list[str]:
    rows = ev.summary()
    three = any(not math.isnan(r["log_loss3"]) for r in rows)
    head = "| model | log loss | Brier | accuracy |" + (" log loss, 3 outcomes |" if three else "")
    head += f" minus reference (paired se) | {'fit+update' if online else 'fit'} s | converged | chosen |"
    cols = head.count("|") - 1
    lines = [head, "|" + "---|" * cols]
    for r in rows:
        m = ev.fitted[r["model"]]
        conv = getattr(m, "converged_", None)
        conv = "-" if conv is None else str(bool(np.all(conv)))
        ll3 = ("" if not three else
               (" - |" if math.isnan(r["log_loss3"]) else f" {r['log_loss3']:.4f} |"))
        lines.append(f"| {r['model']} | {r['log_loss']:.4f} | {r['brier']:.4f} | {r['accuracy']:.4f} |{ll3} "
                     f"{r['diff']:+.4f} ({r['se']:.4f}) | {r['fit_seconds']:.2f} | {conv} | {_chosen(m)} |")
    for label, why in skipped.items():
        lines.append(f"| {label} | skipped: {why} |" + " |" * (cols - 2))
    return lines


def run_log(key: str, log: GameLog, dates: dict, text_dates: tuple, out: list, *, online: bool,
            with_peers: bool, quick: bool, slow_peers: bool) -> None:
    """One table: the models on one log under one protocol."""
    title = LOGS[key]
    t = log.time
    train = (t >= dates["train_start"]) & (t < dates["cutoff"])
    n_train = int(train.sum())
    skipped = {}
    if online:
        models = online_models(log)
    else:
        models = {**discrank_models(key), "dynamic Elo": discrank.DynamicElo()}
    ours = list(models)
    peers, why = _peers(n_train, online, with_peers, quick, slow_peers)
    models.update(peers)
    skipped.update(why)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(models, log, protocol="online" if online else "frozen", **dates)
    elapsed = time.perf_counter() - t0
    origin = ev.origins[0]
    start, end, test_start, test_end = text_dates
    period = f"train {start} .. {end}, test {test_start} .. {test_end or str(t[-1])[:10]}"
    coin = math.log(2.0)
    const = constant_baseline(log.score[train], ev.scores)
    if online:
        walk = t[(t >= dates["cutoff"]) & ((t < dates["test_end"]) if dates["test_end"] is not None else True)]
        days = walk.astype("datetime64[D]").astype(np.int64)
        weeks, dated = np.unique((days + 3) // 7).size, np.unique(days).size
        head = (f"### {title}, online: train {origin['train_games']} games, test {ev.n_games} games with both "
                f"players seen in training; {period}",
                "",
                f"Every game after the cut-off ({origin.get('walk_games', walk.size)}: the test games, the "
                f"{origin['unseen_games']} test games with a player new since training and the games between "
                f"the cut-off and the test period, all given to the models, the first ones only scored) is predicted "
                f"from every game before it: the models are updated group by group, {weeks} calendar weeks (Monday "
                f"to Sunday), or {dated} distinct dates for the systems that update after every game.")
    else:
        head = (f"### {title}, frozen: train {origin['train_games']} games, test {ev.n_games} games with both "
                f"players seen ({origin['unseen_games']} test games with a new player left out); {period}",
                "", "Every model is fitted once on the training period and stops there.")
    lines = [*head, "",
             f"A coin: {coin:.4f} nats per game; the best constant of the training period (mean score of a "
             f"{np.mean(log.score[train]):.3f}): {const:.4f}.", ""]
    lines += _table(ev, skipped, online)
    lines.append("")
    lines += best_versus_peers(ev, ours, list(peers))
    lines += [f"note: {n}" for n in ev.notes]
    lines.append("")
    lines.append(f"(evaluation of all models: {elapsed:.0f} s)")
    text = "\n".join(lines)
    print(text, "\n", flush=True)
    out.append((f"{key} online" if online else key, text))


def _chosen(model) -> str:
    parts = []
    drift = getattr(model, "drift_", None)
    if drift is not None:
        parts.append(f"drift {drift:.3g}")
    if hasattr(model, "prior_scale_"):
        parts.append(f"prior scale {model.prior_scale_:.3g}")
        scale = getattr(model, "variance_scale_", None)
        if scale is not None:
            parts.append(f"variance scale {scale:.3g}")
        best = getattr(model, "best_params_", None)
        if best:
            parts.append(f"lambda {best['regularization']:g}")
    beta = getattr(model, "beta_", None)
    if beta is not None and np.size(beta):
        names = tuple(getattr(model, "advantage_names_", ())) or tuple(f"x{k}" for k in range(np.size(beta)))
        se = getattr(model, "beta_se_", None)
        for k, nm in enumerate(names[:np.size(beta)]):
            with_se = se is not None and np.size(se) > k
            parts.append(f"beta {nm} {beta[k]:.3g}" + (f" (se {se[k]:.2g})" if with_se else ""))
    nu = getattr(model, "draw_nu_", None)
    if nu is not None:
        parts.append(f"draw nu {nu:.3g} (se of log nu {model.draw_eta_se_:.2g})")
    kappa = getattr(model, "draw_threshold_", None)
    if kappa is not None:
        parts.append(f"draw threshold {kappa:.3g} (se {model.draw_eta_se_:.2g})")
    if parts:
        return ", ".join(parts)
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


#: Prior scales of m-Elo's oracle (probability units): 2^-6 .. 2 by half powers of two.
MELO_SCALES = tuple(2.0 ** (x / 2.0) for x in range(-12, 3))


def run_melo_oracle(out: list) -> None:
    """m-Elo's test log loss at every prior scale of MELO_SCALES on each log's frozen split, against the
    reference: the best of them is chosen on the test games themselves, a bound that no tuning on the
    training period can beat."""
    lines = ["### m-Elo at every prior scale, on the test games (an oracle bound on tuning its prior)", "",
             "| log | reference (Elo, prior by validation grid) | m-Elo, tuned prior | m-Elo, best scale on the test games "
             "| its scale | best minus reference (paired se) |", "|---|---|---|---|---|---|"]
    for key in LOGS:
        log, dates, _ = full_log(key)
        models = {"reference": GridElo(), "tuned": MElo(1, random_state=0)}
        models.update({f"{sigma:.4g}": MElo(1, prior_scale=sigma, random_state=0) for sigma in MELO_SCALES})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = evaluate(models, log, **dates)
        loss = {name: np.asarray(ev.losses[name]["log_loss"]) for name in models}
        best = min((name for name in models if name not in ("reference", "tuned")), key=lambda k: loss[k].mean())
        diff, se = _paired(loss[best] - loss["reference"])
        lines.append(f"| {LOGS[key]} | {loss['reference'].mean():.4f} | {loss['tuned'].mean():.4f} "
                     f"({ev.fitted['tuned'].prior_scale_:.3g}) | {loss[best].mean():.4f} | {best} | "
                     f"{diff:+.4f} ({se:.4f}) |")
        print(lines[-1], flush=True)
    text = "\n".join(lines)
    out.append(("melo oracle", text))


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
    parser.add_argument("--only", choices=[*LOGS, "cost", "melo-oracle"])
    parser.add_argument("--protocol", choices=["frozen", "online", "both"], default="both")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--slow-peers", action="store_true", help="run the peers over the time budget too")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="football only, without the slow peers; prints, never writes")
    args = parser.parse_args(argv)
    if args.quick and args.only not in (None, "football"):
        parser.error("--quick runs the football log only")
    keys = ["football"] if args.quick else [args.only] if args.only else [*LOGS, "cost", "melo-oracle"]
    if not datasets.available() and keys != ["cost"]:
        print("skipped: ../shared/data (the real logs) is absent")
        return 0
    out: list = []
    for key in keys:
        if key == "cost":
            run_cost(out)
            continue
        if key == "melo-oracle":
            run_melo_oracle(out)
            continue
        log, dates, text_dates = full_log(key)
        for online in (True, False):
            if args.protocol == ("frozen" if online else "online"):
                continue
            run_log(key, log, dates, text_dates, out, online=online, with_peers=not args.no_peers,
                    quick=args.quick, slow_peers=args.slow_peers)
    if not (args.no_write or args.quick):
        write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
