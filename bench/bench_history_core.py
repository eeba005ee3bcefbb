"""The whole-history solver in the C++ core (discrank.solvers._history_core, cpp/include/discrank/history.hpp), its Newton
steps whole in the core, against the Python Newton loop over the core's terms (the rows as one
:class:`discrank.solvers._history_core.CorePart`, the chains, priors, preconditioner, conjugate gradients and line search in
numpy and scipy: the path of a fit on Dask workers), at DynamicElo's fixed parameters, each measured in the same run:

- the solve alone (``solve_history`` on the history the fit builds): the Python loop, the core with the chains'
  preconditioner, the core with two levels; Newton steps, conjugate-gradient iterations per step, seconds (the
  median of ``--repeats``), the ratio to the Python loop, and the largest difference of a parameter from its;
- the whole fit (``DynamicElo(...).fit``, labels, periods, history, solve, variances), the core's against the
  Python loop's.

Logs: ATP (weekly periods), ATP with its surfaces as contexts, its games won as margins and its best-of as match
formats, ATP with the disc game (k = 1, disc scale 0.25), Go, football, and football with Davidson's draws and each
team's draw propensity (../shared/data).

    python bench/bench_history_core.py                  # every log, 3 repeats
    python bench/bench_history_core.py --logs atp --repeats 5
    python bench/bench_history_core.py --quick          # a seeded ladder of 3 000 players
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time

import numpy as np

import discrank.solvers._history as history
from bench_preconditioner import FIXED, captured_solve, league
from discrank.solvers._history_core import CorePart, core_rows

#: With the features, the contexts', margins' and formats' scales fixed too (no tuning), beside FIXED
#: (bench_preconditioner's: the parameters the tuning chooses on ATP).
FEATURES = {"context_scale": 0.3, "margin_scale": 0.35, "format_scales": {"bo3": 1.0, "bo5": 1.2, "bo1": 0.9}}
#: The disc's and the draw propensities' fits (bench_features.py --cost's disc scale near ATP's threshold).
DISC = {"disc_components": 1, "disc_scale": 0.25}
PROPENSITIES = {"draws": "davidson", "draw_propensity_scale": 0.3}


def one_part(h, draws, margin_scale=0.0, disc=0, propensity_scale=0.0, format_scales=None):
    """The rows of ``h`` as one part, for the Python Newton loop."""
    return CorePart(core_rows(h, draws, margin_scale, format_scales, disc, propensity_scale > 0))


@contextlib.contextmanager
def python_loop():
    """Within the block, every whole-history problem built without rows gets the rows as one part (the Python
    Newton loop)."""
    problem = history._Problem
    init = problem.__init__

    def with_rows(self, h, drift, prior_scale, draws, n_threads=0, rows=None, context_scale=0.0, margin_scale=0.0,
                  disc=0, disc_scale=0.0, propensity_scale=0.0, format_scales=None, preconditioner="chains"):
        if rows is None:
            rows = one_part(h, draws, margin_scale, disc, propensity_scale, format_scales)
        init(self, h, drift, prior_scale, draws, n_threads, rows, context_scale, margin_scale, disc, disc_scale,
             propensity_scale, format_scales, preconditioner)

    problem.__init__ = with_rows
    try:
        yield
    finally:
        problem.__init__ = init


def timed(run, repeats):
    """(result, median seconds) of ``repeats`` calls of ``run``."""
    seconds, out = [], None
    for _ in range(repeats):
        clock = time.perf_counter()
        out = run()
        seconds.append(time.perf_counter() - clock)
    return out, statistics.median(seconds)


def compare(name, log, params, repeats):
    h, drift, prior, draws, kw = captured_solve(log, params)
    kw = dict(kw, theta0=None)
    base_rows = lambda: one_part(h, draws, kw["margin_scale"], kw["disc"], kw["propensity_scale"],  # noqa: E731
                                 kw["format_scales"])
    base, t_base = timed(lambda: history.solve_history(h, drift, prior, draws, **dict(kw, rows=base_rows())), repeats)
    line = f"{name:<12} {h.n_pp:>8} {base.n_iter:>3} {base.n_cg / max(base.n_iter, 1):>6.1f} {t_base:>7.2f}"
    for pre in history.PRECONDITIONERS:
        res, t = timed(lambda: history.solve_history(h, drift, prior, draws, **dict(kw, preconditioner=pre)), repeats)
        assert res.converged and base.converged
        line += (f" | {res.n_iter:>3} {res.n_cg / max(res.n_iter, 1):>6.1f} {t:>7.2f} {t / t_base:>5.2f} "
                 f"{np.abs(res.theta - base.theta).max():>8.1e}")
    print(line)
    fits = []
    for use_core in (False, True):
        with contextlib.nullcontext() if use_core else python_loop():
            fits.append(statistics.median(captured_solve(log, params, timed=True)[1] for _ in range(repeats)))
    print(f"{'':<12} whole fit: Python loop {fits[0]:.2f} s, core {fits[1]:.2f} s, ratio {fits[1] / fits[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = ["atp", "atp+features", "atp+disc", "go", "football", "football+propensities"]
    parser.add_argument("--logs", nargs="*", default=names, choices=names)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a seeded ladder instead of the real logs")
    args = parser.parse_args()
    print(f"{'log':<12} {'pp':>8} {'-- Python loop --':>18} | {'-- core, chains --':>38} | {'-- core, two-level --':>38}")
    print(f"{'':<12} {'':>8} {'st':>3} {'cg/st':>6} {'s':>7} | {'st':>3} {'cg/st':>6} {'s':>7} {'ratio':>5} {'max|d|':>8}"
          f" | {'st':>3} {'cg/st':>6} {'s':>7} {'ratio':>5} {'max|d|':>8}")
    if args.quick:
        compare("league", league(), FIXED, args.repeats)
        return
    import datasets

    logs = {"atp": (lambda: datasets.tennis_atp_log(), FIXED),
            "atp+features": (lambda: datasets.tennis_atp_log(True, True, True), {**FIXED, **FEATURES}),
            "atp+disc": (lambda: datasets.tennis_atp_log(), {**FIXED, **DISC}),
            "go": (datasets.go_tygem_log, FIXED), "football": (datasets.football_log, FIXED),
            "football+propensities": (datasets.football_log, {**FIXED, **PROPENSITIES})}
    for name in args.logs:
        load, params = logs[name]
        compare(name, load(), params, args.repeats)


if __name__ == "__main__":
    main()
