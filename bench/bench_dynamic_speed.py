"""DynamicElo's speed on the real logs (issue 35): the default fit (its tuning included) against the fit at
the parameters it chooses, and an update's time against the length of the history.

    python bench/bench_dynamic_speed.py --tuning atp go football   # default fit / fixed fit, same run
    python bench/bench_dynamic_speed.py --updates                  # ATP: a week's update, 3 history lengths
    python bench/bench_dynamic_speed.py --quick                    # small sizes, for the tests

``--tuning`` fits ``DynamicElo()`` on the whole log (the tuning of drift, prior scale and variance scale on
its latest 10%, then the fit), then ``DynamicElo(drift=..., prior_scale=..., variance_scale=...)`` at the
chosen values, and prints both times, their ratio, the choice and each candidate's validation log loss.

``--updates`` takes the latest games of the ATP log (10%, 30% and 100% of them, cut at a week's start),
fits ``DynamicElo`` at fixed parameters on all but their last ``UPDATE_WEEKS`` weeks, then updates it one
week at a time, and prints each update's time and the median, against the history's length (games).
The online-protocol evaluation (the tuning, then a weekly update to the end of the log) is
``python bench/bench_dynamic.py --online tennis``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import datasets  # noqa: E402

#: The weeks updated one at a time after each fit of ``--updates``.
UPDATE_WEEKS = 4
#: The parameters of the fixed fits of ``--updates`` (those the tuning chooses on the whole ATP log).
ATP_PARAMS = dict(drift=0.05537502037550825, prior_scale=2.0, variance_scale=4.0)
LOADERS = {"atp": datasets.tennis_atp_log, "go": datasets.go_tygem_log, "football": datasets.football_log}


def tuning(name: str, log) -> dict:
    """The default fit and the fit at its choice, timed in the same run."""
    from discrank import DynamicElo

    clock = time.perf_counter()
    tuned = DynamicElo().fit(log)
    t_default = time.perf_counter() - clock
    chosen = dict(drift=tuned.drift_, prior_scale=tuned.prior_scale_, variance_scale=tuned.variance_scale_)
    clock = time.perf_counter()
    fixed = DynamicElo(**chosen).fit(log)
    t_fixed = time.perf_counter() - clock
    scores = tuned.tuning_["scores"]
    best = scores[tuned._candidate(chosen["drift"], chosen["prior_scale"])]
    print(f"{name}: {len(log):,} games; default fit {t_default:.3g} s, fit at its choice {t_fixed:.3g} s: "
          f"ratio {t_default / t_fixed:.1f}x; chose drift={chosen['drift']:.4g}, prior_scale="
          f"{chosen['prior_scale']:.3g}, variance_scale={chosen['variance_scale']:.3g} (validation log loss "
          f"{best:.6f}, {len(scores)} candidates); the two fits' ratings differ by "
          f"{float(np.abs(tuned.pp_rating_ - fixed.pp_rating_).max()):.1e}")
    for key, value in scores.items():
        print(f"    {key}: {value:.6f}")
    return {"default": t_default, "fixed": t_fixed, "scores": scores}


def updates(log, fractions=(0.1, 0.3, 1.0), weeks: int = UPDATE_WEEKS, params=ATP_PARAMS) -> list:
    """A week's update against the history's length: [(games fitted, [seconds of each update])]."""
    from discrank import DynamicElo

    week = np.asarray(log.time).astype("datetime64[W]")
    starts = np.unique(week)
    rows = []
    for fraction in fractions:
        first = week[min(int(len(log) * (1 - fraction)), len(log) - 1)]  # a week's start
        fitted = (week >= first) & (week < starts[-weeks])
        model = DynamicElo(**params).fit(log._take(fitted))
        spent = []
        for w in starts[-weeks:]:
            part = log._take(week == w)
            clock = time.perf_counter()
            model.update(part)
            spent.append(time.perf_counter() - clock)
        n = int(fitted.sum())
        print(f"history of {n:,} games ({fraction:.0%} of the log): updates of "
              f"{', '.join(f'{s * 1000:.0f}' for s in spent)} ms (median {np.median(spent) * 1000:.0f} ms)")
        rows.append((n, spent))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tuning", nargs="*", choices=sorted(LOADERS), help="logs whose default fit to time")
    parser.add_argument("--updates", action="store_true", help="ATP: an update's time against the history")
    parser.add_argument("--quick", action="store_true", help="small sizes (the tests)")
    args = parser.parse_args(argv)
    if args.quick:
        from discrank import GameLog

        rng = np.random.default_rng(0)
        n, p = 6000, 120
        a = rng.integers(0, p, n)
        b = (a + rng.integers(1, p, n)) % p
        t = np.sort(np.datetime64("2020-01-06") + rng.integers(0, 7 * 60, n).astype("timedelta64[D]"))
        log = GameLog.from_arrays(a, b, (rng.random(n) < 0.5).astype(float), t)
        tuning("synthetic", log)
        updates(log, fractions=(0.5, 1.0), weeks=2, params=dict(drift=0.1, prior_scale=1.0, variance_scale=1.0))
        return 0
    if not datasets.available():
        print("skipped: ../shared/data is absent (the real logs)")
        return 0
    for name in args.tuning or []:
        tuning(name, LOADERS[name]())
    if args.updates:
        updates(datasets.tennis_atp_log())
    return 0


if __name__ == "__main__":
    sys.exit(main())
