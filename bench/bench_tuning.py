"""DynamicElo's tuning: its cost against the fit at the parameters it chooses, and the held-out quality of a
tuning with fewer forecast origins against the default's, under the online protocol (issue 48).

    python bench/bench_tuning.py --logs football go tennis --origins 2    # plain logs
    python bench/bench_tuning.py --logs football --features --origins 8   # with contexts, margins and formats
    python bench/bench_tuning.py --logs tennis go football --no-race      # the race against none
    python bench/bench_tuning.py --logs football go tennis --evidence     # the Laplace evidence's drift and prior
    python bench/bench_tuning.py --tour                                   # ATP tour 2017-24, every feature
    python bench/bench_tuning.py --quick                                  # a small league, for the tests

For each log of ``datasets.full_logs`` (the prediction splits), the training games (before the split's
cut-off) are fitted by ``DynamicElo`` with its scales left to the tuning, as ``discrank.evaluate``'s online
protocol fits it (``Validation(online=True)``), with two numbers of forecast origins, in the same run:

- ``fewer``: ``Validation(origins=K)``, ``K`` from ``--origins`` (default 2);
- ``default``: the package's (``Validation.origins`` None: :data:`discrank.models.dynamic._tuning.ORIGINS`, or
  one per ``ORIGIN_GAMES // n`` games of an ``n``-game log when that is more, up to one per period).

With ``--no-race`` the other tuning is the default's with every candidate scored on every origin
(``RACE_Z`` infinite), instead of fewer origins.

With ``--evidence`` the other tuning chooses the drift and the prior scale by the Laplace approximation of the
marginal likelihood of the training games (KickScore and TrueSkill Through Time choose theirs by the evidence),
with each player's chain as one block (:func:`evidence`): a walk by factors of 2, then of sqrt 2, on the drift at
prior scale 2, then on the prior scale, then the drift again, each candidate the MAP to a relative gradient of
1e-6 warm-started from the last; the variance scale is then tuned as the default tunes it, at that drift and prior.

Each prints its seconds (the tuning and the final fit), its origins, its choice and its validation log loss;
then the fit at the default's choice (every scale given: no tuning) is timed, and each tuned fit's ratio to it
printed. When the two choose differently, both choices are evaluated under ``discrank.evaluate``'s online
protocol on the split's test period (every scale given, the same updates), and the paired difference of their
log losses (fewer minus default; the three-outcome log loss with a draw model) is printed with its standard
error over the scored games; the same choice gives the same forecasts, and is said to.

``--tour`` times the default fit of the ATP tour-level matches (Grand Slams, Masters, ATP 250/500 and the
Finals, 2017-2024) with their surfaces, games won and best-of formats, against the fit at its choice.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import datasets  # noqa: E402

NAMES = {"tennis": "tennis ATP", "go": "Go Tygem", "football": "football"}
#: Each log's draw model (football's draws are scored as three outcomes).
DRAWS = {"tennis": None, "go": None, "football": "davidson"}
#: The origins of the ``fewer`` tuning when ``--origins`` is not given.
FEWER = 2
#: The scales each run leaves to the tuning: plain (every feature off) and with the features of the log.
PLAIN = {"context_scale": 0, "margin_scale": 0, "format_scales": 0, "draw_propensity_scale": 0}
FEATURES = {"draw_propensity_scale": 0}


def choice(model) -> dict:
    """The parameters that refit ``model``'s choice with nothing tuned."""
    out = dict(drift=model.drift_, prior_scale=model.prior_scale_, variance_scale=model.variance_scale_)
    for name in ("context_scale", "margin_scale", "draw_propensity_scale"):
        value = getattr(model, name + "_", None)
        out[name] = 0 if value is None else value
    scales = getattr(model, "format_scales_", None)
    out["format_scales"] = 0 if scales is None else dict(zip(model.format_labels_.tolist(), scales.tolist()))
    return out


def shown(params: dict) -> str:
    """The tuned values of ``params``, briefly."""
    parts = [f"drift {params['drift']:.4g}", f"prior {params['prior_scale']:.3g}",
             f"variance {params['variance_scale']:.3g}"]
    parts += [f"{k.split('_')[0]} {v:.3g}" for k, v in params.items()
              if k in ("context_scale", "margin_scale") and v]
    if params.get("format_scales"):
        parts.append("formats " + " ".join(f"{k} {v:.3g}" for k, v in params["format_scales"].items()))
    return ", ".join(parts)


def tuned_fit(train, base: dict, origins, race: bool = True) -> tuple:
    """(model, seconds) of ``DynamicElo(**base)`` fitted on ``train`` with the online validation at ``origins``,
    its candidates raced (``race``) or each scored on every origin."""
    import math
    import warnings

    from discrank import DynamicElo, Validation
    from discrank.models.dynamic import _candidates as _dynamic_candidates

    clock = time.perf_counter()
    z = _dynamic_candidates.RACE_Z
    try:
        _dynamic_candidates.RACE_Z = z if race else math.inf
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a TuningWarning at a bound is printed with the choice)
            model = DynamicElo(**base).fit(train, validation=Validation(online=True, origins=origins))
    finally:
        _dynamic_candidates.RACE_Z = z
    return model, time.perf_counter() - clock


def evidence(h, drift: float, prior: float, draws, theta0=None) -> tuple:
    """(log evidence, MAP parameters) of the history ``h`` at ``drift`` and ``prior``, in the Laplace approximation
    with the Hessian's blocks of one player each (a mean-field bound): ``-objective + log det(P) / 2 - log det(H_b) /
    2``, ``P`` the chains' and the first ratings' prior precision (a random walk: the product of its increments'
    precisions), ``H_b`` the Hessian's chain blocks at the MAP (their pivots' product); the global parameters' terms,
    the same for every candidate but for their curvature, left out."""
    import math

    from discrank.solvers._history import chain_pivots, chain_precisions, solve_history

    res = solve_history(h, drift, prior, draws, theta0=theta0, tol=1e-6)
    chain = chain_precisions(h.gap, drift)
    log_det_p = int(np.count_nonzero(h.first)) * math.log(1.0 / prior ** 2) + float(np.log(chain[chain > 0]).sum())
    log_det_h = float(np.log(chain_pivots(res.hessian_diag, res.hessian_off, h.first)).sum())
    return -res.objective + 0.5 * log_det_p - 0.5 * log_det_h, res.theta


def history_of(train, base: dict) -> tuple:
    """(``DynamicElo(**base)``, the whole history of ``train`` that its fit would solve) for :func:`evidence`."""
    from discrank import DynamicElo
    from discrank.solvers._history_build import build_history

    model = DynamicElo(**base)
    labels, g = model._games(train)
    return model, build_history(g.a, g.b, g.score, g.bins, g.x, len(labels), model.draws, g.count)


def evidence_fit(train, base: dict) -> tuple:
    """(model, seconds) of ``DynamicElo(**base)`` fitted on ``train`` at the drift and prior scale of the largest
    evidence (the walks of the module's docstring), its variance scale tuned by the default validation."""
    from discrank import DynamicElo, Validation

    clock = time.perf_counter()
    model, h = history_of(train, base)
    scored, last = {}, [None]

    def value(drift, prior):
        if (drift, prior) not in scored:
            scored[drift, prior], last[0] = evidence(h, drift, prior, model.draws, last[0])
        return scored[drift, prior]

    def walk(f, x, ratio):
        for r in (ratio, 1.0 / ratio):
            moved = False
            while f(x * r) > f(x):
                x, moved = x * r, True
            if moved:
                break
        return x

    drift, prior = 2.0 * model._walk_scale(), 2.0
    drift = walk(lambda d: value(d, prior), walk(lambda d: value(d, prior), drift, 2.0), 2 ** 0.5)
    prior = walk(lambda p: value(drift, p), walk(lambda p: value(drift, p), prior, 2.0), 2 ** 0.5)
    drift = walk(lambda d: value(d, prior), drift, 2 ** 0.5)
    h = last[0] = None
    print(f"evidence: {len(scored)} candidates in {time.perf_counter() - clock:.1f} s, best drift {drift:.6g}, "
          f"prior {prior:.6g}", flush=True)
    fitted = DynamicElo(**{**base, "drift": drift, "prior_scale": prior}).fit(train, validation=Validation(online=True))
    return fitted, time.perf_counter() - clock


def compare(key: str, log, split: dict, base: dict, fewer: int = FEWER, race: bool = True,
            by_evidence: bool = False) -> dict:
    """The two tunings on one split (see the module's docstring): what is printed, as a dict. ``race`` False:
    the other tuning is the default's without the race (every candidate scored on every origin); ``by_evidence``:
    the other tuning's drift and prior are the evidence's (:func:`evidence_fit`)."""
    import discrank
    from discrank import DynamicElo

    train = log._take(np.flatnonzero(log.time < split["cutoff"]))
    out = {"log": key, "games": len(train)}
    label = "evidence" if by_evidence else "fewer origins" if race else "without the race"
    for name, k in (("fewer", fewer if race else None), ("default", None)):
        if by_evidence and name == "fewer":
            model, seconds = evidence_fit(train, base)
        else:
            model, seconds = tuned_fit(train, base, k, race or name == "default")
        best = min(model.tuning_["scores"].values())
        out[name] = {"seconds": seconds, "choice": choice(model), "periods": model.tuning_["periods"],
                     "candidates": len(model.tuning_["scores"]), "validation": best}
        print(f"{key}: {label if name == 'fewer' else 'default origins'} ({model.tuning_['periods']}): {seconds:.2f} s;"
              f" chose {shown(out[name]['choice'])} (validation log loss {best:.5f}; "
              f"{len(model.tuning_['raced'])} candidates raced out)", flush=True)
    clock = time.perf_counter()
    DynamicElo(**{**base, **out["default"]["choice"]}).fit(train)
    fixed = out["fixed"] = time.perf_counter() - clock
    print(f"{key}: {len(train):,} training games; the fit at the default's choice {fixed:.2f} s; the default fit "
          f"{out['default']['seconds'] / fixed:.1f}x it, {label} {out['fewer']['seconds'] / fixed:.1f}x",
          flush=True)
    if out["fewer"]["choice"] == out["default"]["choice"]:
        print(f"{key}: the same choice: the same forecasts (paired difference 0)", flush=True)
        out["paired"] = (0.0, 0.0)
        return out
    models = {name: DynamicElo(**{**base, **out[name]["choice"]}) for name in ("fewer", "default")}
    clock = time.perf_counter()
    ev = discrank.evaluate(models, log, cutoff=split["cutoff"], test_start=split["test_start"],
                           test_end=split["test_end"], protocol="online")
    column = "log_loss3" if base.get("draws") else "log_loss"
    diff = ev.losses["fewer"][column] - ev.losses["default"][column]
    out["paired"] = (float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(diff.size)))
    out["test_loss"] = {name: float(np.mean(ev.losses[name][column])) for name in models}
    print(f"{key}: online protocol on {diff.size:,} test games ({time.perf_counter() - clock:.0f} s): {column} "
          f"{label} {out['test_loss']['fewer']:.5f}, default {out['test_loss']['default']:.5f}, {label} minus "
          f"default {out['paired'][0]:+.5f} (paired se {out['paired'][1]:.5f})", flush=True)
    return out


def tour(quick: bool = False) -> dict:
    """The default fit of the ATP tour log against the fit at its choice."""
    from discrank import DynamicElo

    log = datasets.tennis_atp_tour_log()
    if quick:
        log = log._take(np.arange(3000))
    base = {"period": "week", "draw_propensity_scale": 0}
    model, seconds = tuned_fit(log, base, None)
    params = choice(model)
    clock = time.perf_counter()
    DynamicElo(**{**base, **params}).fit(log)
    fixed = time.perf_counter() - clock
    print(f"ATP tour 2017-24: {len(log):,} games with surfaces, games won and formats; default fit {seconds:.2f} s, "
          f"fit at its choice {fixed:.2f} s: ratio {seconds / fixed:.1f}x; chose {shown(params)} "
          f"({len(model.tuning_['scores'])} candidates)", flush=True)
    return {"default": seconds, "fixed": fixed, "choice": params}


def quick() -> dict:
    """The comparison on a small synthetic league (the tests)."""
    from bench_features import quick_log

    log, split = quick_log()
    base = {"period": "day", **PLAIN}
    return {"fewer": compare("quick", log, split, base), "evidence": compare("quick", log, split, base, by_evidence=True)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", nargs="*", choices=sorted(NAMES), default=[], help="the splits to run")
    parser.add_argument("--features", action="store_true", help="with the logs' contexts, margins and formats")
    parser.add_argument("--tour", action="store_true", help="the ATP tour log 2017-24 with every feature")
    parser.add_argument("--quick", action="store_true", help="a small synthetic league (the tests)")
    parser.add_argument("--origins", type=int, default=FEWER, help=f"the fewer origins (default {FEWER})")
    parser.add_argument("--no-race", action="store_true",
                        help="compare the default with itself without the race, instead of with fewer origins")
    parser.add_argument("--evidence", action="store_true",
                        help="compare the default with the drift and prior of the Laplace evidence")
    args = parser.parse_args(argv)
    if args.quick:
        quick()
        return 0
    if (args.logs or args.tour) and not datasets.available():
        print("skipped: ../shared/data is absent (the real logs)")
        return 0
    if args.tour:
        tour()
    if args.logs:
        logs = datasets.full_logs(context=args.features, margin=args.features, match_format=args.features)
        for key in args.logs:
            log, split = logs[NAMES[key]]
            base = {"period": "week", "draws": DRAWS[key], **(FEATURES if args.features else PLAIN)}
            compare(key + (" with features" if args.features else ""), log, split, base, args.origins,
                    not args.no_race, args.evidence)
    return 0


if __name__ == "__main__":
    sys.exit(main())
