"""KickScore (PyPI ``kickscore``, Maystre et al., KDD 2019) against ``discrank.DynamicElo()`` under the
online protocol of bench_prediction.py's splits.

    python bench/bench_kickscore.py                   # football, then Go, then tennis
    python bench/bench_kickscore.py --only football   # one of: football go tennis
    python bench/bench_kickscore.py --only go --players 300 --train-from 2014-01-01   # another subsample
    python bench/bench_kickscore.py --only go --refit month   # KickScore refitted monthly (default: yearly)
    python bench/bench_kickscore.py --quick           # a tiny synthetic log with draws, in seconds (for
                                                      # the tests)
    python bench/bench_kickscore.py --only tennis --refit month --features   # and DynamicElo with the log's
                                                      # contexts and margins (and draw propensities on football)

Each log is evaluated by ``discrank.evaluate(..., protocol="online")`` with the split's dates
(``bench_prediction.full_log``): both models are fitted on the training period (KickScore tuning its
kernel variance on the training log's last 10%, ``rating_peers.KickScoreAdapter``), then walk through
every later game, week by week, each week's games predicted before the models are given them
(KickScore buffers them and refits once a calendar year, or month with ``--refit month``). Both models
rate the log's advantage columns (football's home, Go's black). Printed per log: each model's log loss,
its three-outcome log loss where it predicts draws, its difference to DynamicElo with the paired
standard error over the test games (the three-outcome difference to ``DynamicElo(draws="davidson")`` on
a log with draws), the seconds of its fit and walk, and the log used. With ``--features``, the log is read with
its contexts and margins (bench_features.py's columns) and ``DynamicElo(features)`` joins: DynamicElo with every
scale of the log's columns tuned (and, on a log with draws, Davidson's draws with each player's draw
propensity), the others given the log without the columns; the last line is its paired difference to KickScore.

KickScore's fit sweeps every game in Python at each of its EP iterations: the whole tennis and Go logs
(about 800 000 training games each) would take hours. On those logs the bench runs both models on the
same subsample (``SUBSAMPLES``): the games from ``train_from`` on between two of the ``players`` players
with the most games in the training period (from ``train_from`` to the cut-off), the split's cut-off and
test window kept. Football runs on the whole log.

Skips, saying why, when kickscore is not installed or the shared data (``datasets.available()``) is
absent (``--quick`` needs kickscore only).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

import datasets
import discrank
from bench_prediction import LOGS, _chosen, _paired, full_log
from discrank import GameLog
from discrank.evaluation._evaluate import evaluate

#: Subsamples of the big logs: key -> (train_from, players): the games from train_from on between two of
#: the players with the most games in [train_from, cut-off). None: the whole log. KickScore's monthly refits of
#: these take 25 to 30 minutes on the 2-core development machine (Go 1 493 s, tennis 1 775 s).
SUBSAMPLES = {"football": None, "go": ("2014-01-01", 1000), "tennis": ("2014-01-01", 1000)}
KICKSCORE = "KickScore (kickscore)"


def subsample(log: GameLog, cutoff, train_from: str, players: int) -> tuple[GameLog, str]:
    """(the games from ``train_from`` on between two of the ``players`` players with the most games in
    [train_from, cutoff), its description)."""
    t = log.time
    start = np.datetime64(train_from, "ns")
    train = (t >= start) & (t < cutoff)
    names, counts = np.unique(np.r_[log.a[train], log.b[train]], return_counts=True)
    top = names[np.argsort(-counts, kind="stable")[:players]]
    keep = (t >= start) & np.isin(log.a, top) & np.isin(log.b, top)
    return log._take(keep), (f"games from {train_from} between two of the {players} players with the most "
                             f"games from {train_from} to the cut-off ({int(keep.sum())} of {len(log)} games)")


FEATURED = "DynamicElo(features)"


def models(log: GameLog, kick_kw: dict, features: bool = False) -> dict:
    import rating_peers

    plain = dict(context_scale=0, margin_scale=0)
    out = {"DynamicElo()": discrank.DynamicElo(**plain)}
    draws = bool((np.asarray(log.score) == 0.5).any())
    if draws:
        out['DynamicElo(draws="davidson")'] = discrank.DynamicElo(draws="davidson", **plain)
    if features:  # every column's scale tuned (None: the defaults), and the draw propensities on a log with draws
        out[FEATURED] = (discrank.DynamicElo(draws="davidson") if draws
                         else discrank.DynamicElo())
    out[KICKSCORE] = rating_peers.KickScoreAdapter(**kick_kw)
    return out


def table(title: str, log: GameLog, dates: dict, used: str, kick_kw: dict, features: bool = False) -> str:
    """Evaluate the models on ``log`` under the online protocol; the markdown table."""
    named = models(log, kick_kw, features)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(named, log, protocol="online", reference="DynamicElo()", **dates)
    elapsed = time.perf_counter() - t0
    ref = np.asarray(ev.losses["DynamicElo()"]["log_loss"])
    ref3 = ev.losses.get('DynamicElo(draws="davidson")', {}).get("log_loss3")
    origin = ev.origins[0]
    seconds = {r["model"]: r["fit_seconds"] for r in ev.summary()}
    lines = [f"### {title}, online: train {origin['train_games']} games, test {ev.n_games} games with both "
             f"players seen in training", "", f"log: {used}", "",
             "| model | log loss | log loss, 3 outcomes | minus DynamicElo() (paired se) | 3 outcomes minus "
             "DynamicElo(draws=\"davidson\") (paired se) | fit+walk s | chosen |",
             "|---|---|---|---|---|---|---|"]
    for name in named:
        loss = ev.losses[name]
        ll = np.asarray(loss["log_loss"])
        d, se = _paired(ll - ref)
        ll3 = loss.get("log_loss3")
        three = "-" if ll3 is None else f"{np.mean(ll3):.4f}"
        if ll3 is None or ref3 is None:
            diff3 = "-"
        else:
            d3, se3 = _paired(np.asarray(ll3) - np.asarray(ref3))
            diff3 = f"{d3:+.4f} ({se3:.4f})"
        chosen = _chosen(ev.fitted[name])
        lines.append(f"| {name} | {np.mean(ll):.4f} | {three} | {d:+.4f} ({se:.4f}) | {diff3} | "
                     f"{seconds[name]:.1f} | {chosen} |")
    kick = ev.fitted[KICKSCORE]
    lines += ["", f"KickScore's tuning (online log loss of the training log's last 10%): {kick.info.get('tuning')}; "
              f"its fits converged within max_iter: {kick.converged_.tolist()}",
              f"(evaluation of the models: {elapsed:.0f} s)"]
    if features:
        for key, what in (("log_loss", "log loss"), ("log_loss3", "three-outcome log loss")):
            if key in ev.losses[FEATURED] and key in ev.losses[KICKSCORE]:
                d, se = _paired(np.asarray(ev.losses[FEATURED][key]) - np.asarray(ev.losses[KICKSCORE][key]))
                lines.append(f"{FEATURED} minus KickScore, {what}: {d:+.4f} ({se:.4f})")
    return "\n".join(lines)


def quick_log() -> tuple[GameLog, dict]:
    """A tiny synthetic log with draws: 20 players whose skills drift, 1 200 games over four years."""
    rng = np.random.default_rng(0)
    n, m = 20, 1200
    days = np.sort(rng.integers(0, 4 * 365, m))
    skill = rng.normal(0.0, 1.0, n)[None, :] + np.cumsum(rng.normal(0.0, 0.05, (4 * 365, n)), axis=0)[days] * 0.2
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    d = skill[np.arange(m), a] - skill[np.arange(m), b]
    u, p = rng.random(m), 1.0 / (1.0 + np.exp(-d))
    score = np.where(u < p - 0.1, 1.0, np.where(u < p + 0.1, 0.5, 0.0))
    t = np.datetime64("2019-01-07", "ns") + days * np.timedelta64(1, "D")
    log = GameLog.from_arrays(np.char.mod("p%d", a), np.char.mod("p%d", b), score, t)
    dates = dict(cutoff=np.datetime64("2022-01-01", "ns"), test_start=np.datetime64("2022-01-01", "ns"))
    return log, dates


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=list(LOGS))
    parser.add_argument("--quick", action="store_true", help="a tiny synthetic log, in seconds")
    parser.add_argument("--players", type=int, help="the subsample's number of players (default: SUBSAMPLES)")
    parser.add_argument("--train-from", help="the subsample's first date, YYYY-MM-DD (default: SUBSAMPLES)")
    parser.add_argument("--refit", choices=["year", "month"], default="year", help="KickScore's refit period")
    parser.add_argument("--features", action="store_true",
                        help="read the log's contexts and margins, and add DynamicElo with them")
    args = parser.parse_args(argv)
    try:
        import kickscore  # noqa: F401
    except ImportError as exc:
        print(f"skipped: kickscore is not installed ({exc}); pip install kickscore")
        return 0
    kick_kw = {"refit": args.refit}
    if args.quick:
        log, dates = quick_log()
        print(table("synthetic (20 players, 1 200 games with draws)", log, dates,
                    "the whole synthetic log; train 2019-2021, test 2022", kick_kw, args.features), flush=True)
        return 0
    if not datasets.available():
        print("skipped: ../shared/data (the real logs) is absent")
        return 0
    keys = [args.only] if args.only else ["football", "go", "tennis"]
    for key in keys:
        log, dates, text = full_log(key, features=args.features)
        dates = {k: v for k, v in dates.items() if k != "train_start"}
        sub = SUBSAMPLES[key]
        if args.players or args.train_from:  # each replaces the default's value (none: every player, every date)
            train_from, players = sub or (text[0], 10 ** 9)
            sub = (args.train_from or train_from, args.players or players)
        if sub is None:
            used = f"the whole log ({len(log)} games)"
        else:
            log, used = subsample(log, dates["cutoff"], *sub)
        used += f"; train {text[0] if sub is None else sub[0]} .. {text[1]}, test {text[2]} .. {text[3] or 'end'}"
        print(table(LOGS[key], log, dates, used, kick_kw, args.features), "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
