"""The whole-history fit's speed and memory: the ATP log, and against TrueSkill Through Time's Python package.

    python bench/bench_dynamic.py                 # both parts (TTT's budget: 600 s per fit)
    python bench/bench_dynamic.py --only atp      # the whole ATP log (weekly periods), with a tuned drift
    python bench/bench_dynamic.py --only ttt --ttt-budget 120
    python bench/bench_dynamic.py --quick         # small sizes, for the tests
    python bench/bench_dynamic.py --online go --period week   # dynamic Elo against online Elo, online protocol
    python bench/bench_dynamic.py --memory        # peak memory of the ATP fit, default and at fixed parameters
    python bench/bench_dynamic.py --memory fixed  # the fit at fixed parameters alone
    python bench/bench_dynamic.py --memory fixed --memory-trace   # and what Python holds at its peak

Part 1 fits ``DynamicElo(period="week")`` on every ATP game (1968-2024) at a fixed drift and prior, and
prints the time, the Newton steps, the conjugate-gradient products and the relative gradient; the
tuning of the drift on the training period (``drift=None``) is timed separately. Part 2 fits the first
``n`` ATP games with both ``DynamicElo`` (period day, the drift per day matched to TTT's gamma) and
``trueskillthroughtime.History(...).convergence()`` (the package's ATP-example settings: epsilon 0.01, 10
iterations), doubling ``n`` until TTT's fit takes more than half the budget (the next would not finish
in it); it prints both times and their ratio, measured in the same run.

``--memory`` measures the memory of ``DynamicElo().fit`` on the whole ATP log (its tuning included) and
of the fit at fixed parameters (:data:`MEMORY_FIXED`: those the tuning chooses), each in a fresh
interpreter that reads the log from a temporary .npz written here (so the CSV reader's memory is not
the child's) and builds it with ``GameLog.from_arrays``. Each child prints its resident set after the
load (VmRSS), the load's peak, the fit's peak (VmHWM, reset after the load) and the fit's increment over
the load, and its wall time; the process's peak is compared with the 500 MB target of issue 35.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import datasets  # noqa: E402


def atp_whole(quick: bool, tune: bool = True) -> None:
    from discrank import DynamicElo

    log = datasets.tennis_atp_log()
    if quick:
        log = log._take(np.arange(20000))
    players = len(np.union1d(log.a, log.b))
    print(f"ATP: {len(log)} games, {players} players, weekly periods")
    model = DynamicElo(period="week", drift=0.0136, prior_scale=1.0, variance_scale=1.0)  # nothing tuned
    clock = time.perf_counter()
    model.fit(log)
    fit_s = time.perf_counter() - clock
    print(f"{'fit (drift 0.0136 / week, prior 1)':<40} {fit_s:8.2f} s   player-periods {model.pp_rating_.size}, "
          f"Newton steps {model.n_iter_}, CG products {model.n_cg_}, relative gradient {model.gradient_:.1e}, "
          f"converged {model.converged_}")
    if not tune:
        return
    train = log._take(log.time < np.datetime64("2020-01-01")) if not quick else log
    clock = time.perf_counter()
    tuned = DynamicElo(period="week").fit(train)
    print(f"{'tuning + fit on 1968-2019 (drift=None)':<40} {time.perf_counter() - clock:8.2f} s   drift {tuned.drift_:.4g}, "
          f"prior {tuned.prior_scale_:.3g}, candidates {len(tuned.tuning_['scores']) if tuned.tuning_ else 0}")


def against_ttt(budget: float, quick: bool) -> None:
    try:
        import trueskillthroughtime as ttt
    except ImportError:
        print("TTT: skipped, the PyPI package 'trueskillthroughtime' is not installed (pip install '.[bench]')")
        return
    from discrank import DynamicElo

    log = datasets.tennis_atp_log()
    day = log.time.astype("datetime64[D]").astype(np.int64)
    gamma = 0.01  # TTT's drift per day (its sigma units: beta = 1)
    # TTT's skill in units of its beta (1), a logit difference ~ 1.7 times a probit one: drift per day in logits
    drift = gamma * 1.7
    print(f"\n{'games':>8} {'TTT s':>9} {'discrank s':>11} {'ratio':>8}")
    n = 2000 if quick else 5000
    while n <= len(log):
        a, b, s, d = log.a[:n], log.b[:n], log.score[:n], day[:n]
        res = {1.0: [1, 0], 0.0: [0, 1], 0.5: [0, 0]}
        clock = time.perf_counter()
        h = ttt.History([[[x], [y]] for x, y in zip(a.tolist(), b.tolist())], [res[v] for v in s.tolist()],
                        (d - d[0]).tolist(), mu=0.0, sigma=6.0, beta=1.0, gamma=gamma, p_draw=0.0)
        h.convergence(epsilon=0.01, iterations=10, verbose=False)
        ttt_s = time.perf_counter() - clock
        sub = log._take(np.arange(n))
        clock = time.perf_counter()
        DynamicElo(period="day", drift=drift, prior_scale=6.0 * 1.7, variance_scale=1.0).fit(sub)
        ours = time.perf_counter() - clock
        print(f"{n:>8} {ttt_s:>9.2f} {ours:>11.3f} {ttt_s / ours:>8.0f}x", flush=True)
        if ttt_s > budget / 2 or (quick and n >= 4000):
            break
        n *= 2


def online(key: str, period: str) -> None:
    """DynamicElo (default drift and prior, tuned on the training period) against OnlineElo (K tuned)
    under ``discrank.evaluate``'s online protocol on one of the prediction splits (datasets.SPLITS)."""
    import discrank
    from discrank import DynamicElo
    from discrank.online import OnlineElo

    class TimedDynamicElo(DynamicElo):
        """DynamicElo that adds up the seconds of its tuning and of its updates."""

        spent = {"tuning": 0.0, "updates": 0.0, "n_updates": 0}

        def _tune(self, *args):
            clock = time.perf_counter()
            out = super()._tune(*args)
            self.spent["tuning"] += time.perf_counter() - clock
            return out

        def _update_log(self, log):
            clock = time.perf_counter()
            out = super()._update_log(log)
            self.spent["updates"] += time.perf_counter() - clock
            self.spent["n_updates"] += 1
            return out

    names = {"tennis": "tennis ATP", "go": "Go Tygem", "football": "football"}
    log, split = datasets.full_logs()[names[key]]
    models = {"online Elo (K tuned)": OnlineElo(), f"dynamic Elo ({period})": TimedDynamicElo(period=period)}
    clock = time.perf_counter()
    ev = discrank.evaluate(models, log, cutoff=split["cutoff"], test_start=split["test_start"],
                           test_end=split["test_end"], protocol="online")
    print(f"{names[key]}, online protocol ({time.perf_counter() - clock:.0f} s in all)")
    print(ev)
    dyn = ev.fitted[f"dynamic Elo ({period})"]
    se = ", ".join(f"{n} {b:.4f} +- {e:.4f}" for n, b, e in zip(dyn.advantage_names_, dyn.beta_, dyn.beta_se_))
    print(f"dynamic Elo: drift {dyn.drift_:.4g} per {period}, prior scale {dyn.prior_scale_:.3g}, variance scale "
          f"{dyn.variance_scale_:.3g}; advantage: {se or 'none'}")
    spent = TimedDynamicElo.spent
    print(f"dynamic Elo's time: tuning {spent['tuning']:.0f} s, {spent['n_updates']} updates {spent['updates']:.0f} s "
          f"({spent['updates'] / max(spent['n_updates'], 1):.2f} s each)")

#: The fit at fixed parameters of ``--memory``: the drift (per week), prior and variance scales that
#: ``DynamicElo().fit`` chooses on the whole ATP log.
MEMORY_FIXED = {"drift": 0.05537502037550825, "prior_scale": 2.0, "variance_scale": 4.0}
#: Issue 35's target for the process's peak, in MB (10^6 bytes).
MEMORY_TARGET_MB = 500.0


def _status_mib(key: str) -> float:
    """A field of /proc/self/status (VmRSS, VmHWM: kB) in MiB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    raise KeyError(key)


def _traced_fit(model, log, top: int = 14) -> tuple[float, list]:
    """``model.fit(log)`` under tracemalloc: the peak of the memory Python's allocator sees (numpy's arrays
    included; not the C++ core's buffers), over the start, and the ``top`` source lines holding the most at
    the largest snapshot (one taken whenever the traced memory passes its high by 64 KiB), as text."""
    import linecache
    import tracemalloc

    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    best = {"size": 0, "snap": None}

    def hook(frame, event, arg):
        size = tracemalloc.get_traced_memory()[0]
        if size > best["size"] + 2**16:
            best["size"], best["snap"] = size, tracemalloc.take_snapshot()

    sys.setprofile(hook)
    try:
        model.fit(log)
    finally:
        sys.setprofile(None)
    peak = (tracemalloc.get_traced_memory()[1] - start) / 2**20
    tracemalloc.stop()
    lines = [f"{(best['size'] - start) / 2**20:.1f} MiB at the largest snapshot; its largest lines:"]
    for stat in best["snap"].statistics("lineno")[:top]:
        f = stat.traceback[0]
        where = f"{Path(f.filename).parent.name}/{Path(f.filename).name}:{f.lineno}"
        text = linecache.getline(f.filename, f.lineno).strip()[:70]
        lines.append(f"{stat.size / 2**20:6.1f} MiB  {where:<36} {text}")
    return peak, lines


def memory_child(path: str, mode: str, trace: bool = False) -> dict:
    """One fit of the log saved at ``path`` (arrays a, b, score, time) in this process: ``mode`` "default"
    (``DynamicElo()``, tuned) or "fixed" (:data:`MEMORY_FIXED`). Returns the resident set after the load,
    the load's peak, the fit's peak (VmHWM reset after the load: Linux's clear_refs 5), the fit's increment
    over the load, the wall time and the fit's player-periods (MiB, seconds); with ``trace``, also the fit
    under tracemalloc (:func:`_traced_fit`: its own RSS and time then include tracemalloc's)."""
    from discrank import DynamicElo, GameLog

    with np.load(path) as z:
        log = GameLog.from_arrays(z["a"], z["b"], z["score"], z["time"])
    load_rss, load_peak = _status_mib("VmRSS"), _status_mib("VmHWM")
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    model = DynamicElo(period="week", **(MEMORY_FIXED if mode == "fixed" else {}))
    clock = time.perf_counter()
    traced, lines = _traced_fit(model, log) if trace else (None, [])
    if not trace:
        model.fit(log)
    wall = time.perf_counter() - clock
    peak = _status_mib("VmHWM")
    return {"mode": mode, "games": len(log), "player_periods": int(model.pp_rating_.size), "load_rss": load_rss,
            "load_peak": load_peak, "fit_peak": peak, "increment": peak - load_rss, "wall": wall,
            "drift": model.drift_, "prior_scale": model.prior_scale_, "traced_peak": traced, "traced_lines": lines}


def memory(quick: bool, modes: tuple = ("fixed", "default"), trace: bool = False) -> None:
    """``--memory``: the fits ``modes`` ("fixed", "default": :func:`memory_child`) of the ATP log, each in a
    fresh child (with ``trace``: under tracemalloc, whose peak and largest lines are printed too)."""
    log = datasets.tennis_atp_log()
    if quick:
        log = log._take(np.arange(20000))
    print(f"ATP: {len(log)} games, weekly periods; each fit in a fresh process, the log read from an .npz "
          f"(MiB = 2^20 bytes)")
    print(f"{'fit':<8} {'after load':>11} {'load peak':>10} {'fit peak':>9} {'increment':>10} {'wall':>8}")
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "atp.npz")
        np.savez(path, a=log.a, b=log.b, score=log.score, time=log.time)
        del log
        for mode in modes:
            proc = subprocess.run([sys.executable, __file__, "--memory-child", path, mode]
                                  + (["--memory-trace"] if trace else []), capture_output=True, text=True, check=True)
            r = json.loads(proc.stdout.splitlines()[-1])
            peak = max(r["load_peak"], r["fit_peak"])
            print(f"{mode:<8} {r['load_rss']:>7.0f} MiB {r['load_peak']:>6.0f} MiB {r['fit_peak']:>5.0f} MiB "
                  f"{r['increment']:>6.0f} MiB {r['wall']:>6.1f} s   process peak {peak:.0f} MiB = "
                  f"{peak * 2**20 / 1e6:.0f} MB (target < {MEMORY_TARGET_MB:.0f} MB: "
                  f"{'met' if peak * 2**20 / 1e6 < MEMORY_TARGET_MB else 'missed'}); drift {r['drift']:.4g}, "
                  f"prior {r['prior_scale']:.3g}, {r['player_periods']} player-periods", flush=True)
            if trace:
                print(f"  tracemalloc: the fit's peak {r['traced_peak']:.1f} MiB over its start; "
                      + "\n  ".join(r["traced_lines"]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["atp", "ttt"])
    parser.add_argument("--ttt-budget", type=float, default=600.0, help="seconds one TTT fit may take (default 600)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--online", choices=["tennis", "go", "football"], help="the online-protocol comparison on one log")
    parser.add_argument("--skip-tuning", action="store_true", help="atp: time the fit only, not the drift's tuning")
    parser.add_argument("--period", default="week", choices=["day", "week", "month", "year"])
    parser.add_argument("--memory", nargs="?", const="both", choices=["both", "fixed", "default"],
                        help="peak memory of the ATP fit: both fits (default), or the fixed or the default one")
    parser.add_argument("--memory-trace", action="store_true",
                        help="--memory: each fit under tracemalloc, with the lines holding the most at its peak")
    parser.add_argument("--memory-child", nargs=2, metavar=("NPZ", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(*args.memory_child, trace=args.memory_trace)))
        return 0
    if not datasets.available():
        print("skipped: ../shared/data is absent (the ATP log)")
        return 0
    if args.online:
        online(args.online, args.period)
        return 0
    if args.memory:
        memory(args.quick, ("fixed", "default") if args.memory == "both" else (args.memory,), args.memory_trace)
        return 0
    if args.only in (None, "atp"):
        atp_whole(args.quick, not args.skip_tuning)
    if args.only in (None, "ttt"):
        against_ttt(args.ttt_budget, args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
