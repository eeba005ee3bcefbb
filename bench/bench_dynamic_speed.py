"""DynamicElo's speed on the real logs (issue 35): the default fit (its tuning included) against the fit at
the parameters it chooses, and an update's time against the length of the history.

    python bench/bench_dynamic_speed.py --tuning atp go football   # default fit / fixed fit, same run
    python bench/bench_dynamic_speed.py --updates                  # ATP: a week's update, 3 history lengths
    python bench/bench_dynamic_speed.py --moved                    # ATP: how far back a week's update reaches
    python bench/bench_dynamic_speed.py --quick                    # small sizes, for the tests

``--tuning`` fits ``DynamicElo()`` on the whole log (the tuning of drift, prior scale and variance scale on
its latest 10%, then the fit), then ``DynamicElo(drift=..., prior_scale=..., variance_scale=...)`` at the
chosen values, and prints both times, their ratio, the choice and each candidate's validation log loss.

``--updates`` takes the latest games of the ATP log (10%, 30% and 100% of them, cut at a week's start),
fits ``DynamicElo`` at fixed parameters on all but their last ``UPDATE_WEEKS`` weeks, then updates it one
week at a time, and prints each update's time and the median, against the history's length (games).
The online-protocol evaluation (the tuning, then a weekly update to the end of the log) is
``python bench/bench_dynamic.py --online tennis``.

``--moved`` measures how far back an exact update reaches: the games before the ATP log's last week fitted to a
relative gradient of 1e-10, updated with that week to the same, and the largest and mean change of the fitted
player-periods' ratings printed by their age in weeks.

``--local WEEKS EVERY REACH`` measures what an update that skips the whole-history solve would cost in
accuracy: from a fit of the ATP games before the last ``WEEKS`` weeks (the fixed parameters above), each
week's games are predicted by two states, then absorbed: the exact one refits the whole history (as
``update`` does), the local one only re-solves the new player-periods and ``REACH`` periods back along each
touched chain (:class:`discrank.solvers._history_update.HistoryState`), taking the exact state every ``EVERY``
weeks. It prints both log losses over the predicted games, their paired difference and standard error, the
mean and largest difference of the two forecasts' probabilities, and the time per week of each.
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
          f"{best:.6f}, {len(scores)} candidates, {len(tuned.tuning_['raced'])} raced out); the two fits' ratings "
          f"differ by "
          f"{float(np.abs(tuned.pp_rating_ - fixed.pp_rating_).max()):.1e}")
    for key, value in scores.items():
        raced = tuned.tuning_["raced"].get(key)
        print(f"    {key}: {value:.6f}" + (f" (raced out after {raced} origins: an estimate)" if raced else ""))
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


def local(log, weeks: int, every: int, reach: int, params=ATP_PARAMS) -> float:
    """The log loss of weekly forecasts from local updates against exact refits (see the module); returns the
    mean paired difference."""
    from scipy.special import expit

    from discrank import DynamicElo
    from discrank.solvers._history import build_history, solve_history
    from discrank.solvers._history_update import HistoryState
    from discrank._util.threads import one_blas_thread

    labels, g = DynamicElo(drift=params["drift"])._games(log)
    p, drift, prior, scale = len(labels), params["drift"], params["prior_scale"], params["variance_scale"]
    starts = np.unique(g.bins)

    def state_of(h, res):
        return HistoryState(h, res.theta.copy(), drift, prior, None, 1e-5 * res.scale, grad=res.grad.copy(),
                            games_diag=res.games_diag.copy())

    def losses(state, a, b, bins, y):
        m, v, last, known = state.latest(np.arange(p))
        var = v[a] + v[b] + drift ** 2 * ((bins - last[a]) + (bins - last[b]))
        q = expit((m[a] - m[b]) / np.sqrt(1 + scale * np.pi * var / 8))
        return -(y * np.log(q) + (1 - y) * np.log(1 - q)), known[a] & known[b], q

    with one_blas_thread():
        cut = int(np.searchsorted(g.bins, starts[-weeks]))
        h = build_history(g.a[:cut], g.b[:cut], g.score[:cut], g.bins[:cut], None, p, False)
        res = solve_history(h, drift, prior, None, tol=1e-9)
        exact, approx = state_of(h, res), state_of(h, res)
        diffs, exact_losses, gaps, spent = [], [], [], [0.0, 0.0]
        for i, week in enumerate(starts[-weeks:]):
            sel = g.bins == week
            a, b, y, bins = g.a[sel], g.b[sel], g.score[sel], g.bins[sel]
            le, ok, qe = losses(exact, a, b, bins, y)
            la, _, qa = losses(approx, a, b, bins, y)
            diffs.append((la - le)[ok])
            exact_losses.append(le[ok])
            gaps.append(np.abs(qa - qe)[ok])
            clock = time.perf_counter()
            exact.absorb(a, b, y, bins, None, None, p)
            h = exact.history()
            res = solve_history(h, drift, prior, None, theta0=exact.theta, tol=1e-5, ratings_scale=True)
            exact = state_of(h, res)
            spent[0] += time.perf_counter() - clock
            clock = time.perf_counter()
            if (i + 1) % every == 0:
                approx = state_of(h, res)
            else:
                approx.absorb(a, b, y, bins, None, None, p, reach=reach)
            spent[1] += time.perf_counter() - clock
    d, le, gap = np.concatenate(diffs), np.concatenate(exact_losses), np.concatenate(gaps)
    print(f"{weeks} weeks, {d.size:,} games predicted: exact refits {le.mean():.6f}, local updates (reach "
          f"{reach}, the exact state every {every} weeks) {le.mean() + d.mean():.6f}: {d.mean():+.2e} +- "
          f"{d.std() / np.sqrt(d.size):.1e} a game; the forecasts' probabilities differ by {gap.mean():.1e} on "
          f"average, {gap.max():.1e} at most; {spent[0] / weeks * 1000:.0f} ms against "
          f"{spent[1] / weeks * 1000:.0f} ms a week")
    return float(d.mean())


def moved(log, params=ATP_PARAMS, bands=(0, 1, 4, 13, 52, 104, 208, 520)) -> list:
    """How far back one week's games move the exact MAP: the games before the log's last week fitted to a relative
    gradient of 1e-10, then updated with that week to the same; the largest and the mean change of each fitted
    player-period's rating (logits), by its age in weeks before the last week, in ``bands``. Returns [(band's
    first age, player-periods, largest, mean)]."""
    from discrank import DynamicElo

    week = np.asarray(log.time).astype("datetime64[W]")
    last = np.unique(week)[-1]
    model = DynamicElo(**params, tol=1e-10, update_tol=1e-10).fit(log._take(week < last))
    r0, p0, b0 = model.pp_rating_.copy(), model.pp_player_.astype(np.int64), model.pp_bin_.astype(np.int64)
    model.update(log._take(week == last))
    p1, b1 = model.pp_player_.astype(np.int64), model.pp_bin_.astype(np.int64)
    base = int(min(b0.min(), b1.min()))
    k0, k1 = (p0 << 32) + (b0 - base), (p1 << 32) + (b1 - base)  # each player-period, before and after
    order = np.argsort(k1)
    change = np.abs(model.pp_rating_[order[np.searchsorted(k1, k0, sorter=order)]] - r0)
    age = int(b1.max()) - b0
    print(f"one week's update ({int(np.count_nonzero(week == last)):,} games) on {int(np.count_nonzero(week < last)):,} "
          f"games: the change of the {r0.size:,} fitted player-periods' ratings (logits), by age in weeks")
    rows = []
    for lo, hi in zip(bands, list(bands[1:]) + [None]):
        inside = (age >= lo) & (age < hi if hi is not None else True)
        if inside.any():
            rows.append((lo, int(inside.sum()), float(change[inside].max()), float(change[inside].mean())))
            print(f"  age {lo}-{'' if hi is None else hi - 1}: {rows[-1][1]:,} player-periods, largest {rows[-1][2]:.2e}, "
                  f"mean {rows[-1][3]:.2e}")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tuning", nargs="*", choices=sorted(LOADERS), help="logs whose default fit to time")
    parser.add_argument("--updates", action="store_true", help="ATP: an update's time against the history")
    parser.add_argument("--local", nargs=3, type=int, metavar=("WEEKS", "EVERY", "REACH"),
                        help="ATP: local updates against exact refits, week by week")
    parser.add_argument("--moved", action="store_true", help="ATP: how far back a week's update moves the MAP")
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
        small = dict(drift=0.1, prior_scale=1.0, variance_scale=1.0)
        updates(log, fractions=(0.5, 1.0), weeks=2, params=small)
        local(log, 6, 3, 2, params=small)
        moved(log, params=small)
        return 0
    if not datasets.available():
        print("skipped: ../shared/data is absent (the real logs)")
        return 0
    for name in args.tuning or []:
        tuning(name, LOADERS[name]())
    if args.updates:
        updates(datasets.tennis_atp_log())
    if args.local:
        local(datasets.tennis_atp_log(), *args.local)
    if args.moved:
        moved(datasets.tennis_atp_log())
    return 0


if __name__ == "__main__":
    sys.exit(main())
