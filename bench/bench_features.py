"""What each feature of the dynamic model gains under the online protocol: DynamicElo with player-by-context
effects (``context_scale``), with a margin likelihood (``margin_scale``), with both, and with the disc game
(``disc_components=1``), against DynamicElo with none, on the prediction splits' logs with their contexts and
margins.

    python bench/bench_features.py                  # tennis (surface; games won), Go (time control), football
                                                    # (friendly or competitive; goals)
    python bench/bench_features.py --only tennis    # one of: tennis go football
    python bench/bench_features.py --only tennis --feature "+ disc (k = 1)"   # some of the features
    python bench/bench_features.py --cost           # the disc's fit at fixed parameters against DynamicElo's (ATP)
    python bench/bench_features.py --quick          # a small synthetic league with contexts and margins (seconds)

Every model follows ``discrank.evaluate``'s online protocol on the splits of ``datasets.full_logs`` (train
before the cutoff, weekly updates through the test period, the same scored games). The reference is
DynamicElo with its defaults, the columns unused and no draw propensities (``context_scale=0, margin_scale=0,
format_scales=0, draw_propensity_scale=0``): its drift, prior and variance scales tuned on the training period; a
feature's model leaves the other features out the same way. Each feature's model keeps that drift and prior and tunes its variance scale and
its feature's scales on the same validation window (the training period alone chooses them). Each line gives
the log loss per scored game, the paired difference to the reference with its standard error (over the
scored games), the chosen scales and the seconds of the whole evaluation.
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
#: Each log's draw model under the online protocol (football's draws are scored as three outcomes).
DRAWS = {"tennis": None, "go": None, "football": "davidson"}


def paired(loss: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """(mean of ``loss - ref``, its standard error over the games)."""
    diff = np.asarray(loss) - np.asarray(ref)
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(diff.size))


#: The features compared with the reference: name -> the DynamicElo parameters that turn them on (None: tuned).
FEATURES = {
    "+ contexts": {"context_scale": None, "margin_scale": 0, "format_scales": 0, "draw_propensity_scale": 0},
    "+ margins": {"context_scale": 0, "margin_scale": None, "format_scales": 0, "draw_propensity_scale": 0},
    "+ contexts + margins": {"context_scale": None, "margin_scale": None, "format_scales": 0,
                             "draw_propensity_scale": 0},
    "+ disc (k = 1)": {"context_scale": 0, "margin_scale": 0, "disc_components": 1, "format_scales": 0,
                       "draw_propensity_scale": 0},
    "+ draw propensity": {"context_scale": 0, "margin_scale": 0, "draw_propensity_scale": None, "format_scales": 0},
    "+ margins + draw propensity": {"context_scale": 0, "margin_scale": None, "draw_propensity_scale": None,
                                    "format_scales": 0},
    "+ formats": {"context_scale": 0, "margin_scale": 0, "format_scales": None, "draw_propensity_scale": 0},
    "+ contexts + margins + formats": {"context_scale": None, "margin_scale": None, "format_scales": None,
                                       "draw_propensity_scale": 0}}


def evaluate_features(log, split: dict, draws=None, period: str = "week", only=None) -> dict:
    """The reference and each feature the log supports (:data:`FEATURES`, or those named in ``only``) on ``log``
    under the online protocol: {name: (Evaluation, model, seconds)} (each Evaluation of one model; their scored
    games are the same)."""
    import discrank
    from discrank import DynamicElo

    def run(name, model):
        clock = time.perf_counter()
        ev = discrank.evaluate({name: model}, log, cutoff=split["cutoff"], test_start=split["test_start"],
                               test_end=split["test_end"], protocol="online")
        return ev, ev.fitted[name], time.perf_counter() - clock

    out = {"DynamicElo()": run("DynamicElo()", DynamicElo(period=period, draws=draws, context_scale=0,
                                                          margin_scale=0, format_scales=0, draw_propensity_scale=0))}
    ref = out["DynamicElo()"][1]
    has = {"context_scale": log.context is not None, "margin_scale": getattr(log, "margin", None) is not None,
           "draw_propensity_scale": draws == "davidson",
           "format_scales": getattr(log, "match_format", None) is not None}
    for name, params in FEATURES.items():
        if (only is None or name in only) and all(has.get(key, True) or value == 0 for key, value in params.items()):
            model = DynamicElo(period=period, draws=draws, drift=ref.drift_, prior_scale=ref.prior_scale_, **params)
            out[name] = run(name, model)
            print(f"{name}: {out[name][2]:.0f} s", file=sys.stderr, flush=True)
    return out


def report(title: str, runs: dict) -> list[str]:
    """The lines of one log's comparison (see the module's docstring)."""
    (ev0, ref, _), = [runs["DynamicElo()"]]
    base = ev0.losses["DynamicElo()"]
    lines = [f"### {title}: {base['log_loss'].size} scored games", "",
             "| model | log loss | minus reference (paired se) | log loss, 3 outcomes | minus reference (paired se) "
             "| chosen | seconds |", "|---|---|---|---|---|---|---|"]
    for name, (ev, model, seconds) in runs.items():
        loss = ev.losses[name]
        diff, se = paired(loss["log_loss"], base["log_loss"])
        three = loss.get("log_loss3")
        if three is not None and base.get("log_loss3") is not None:
            d3, s3 = paired(three, base["log_loss3"])
            col3 = f"{np.mean(three):.4f} | {d3:+.4f} ({s3:.4f})"
        else:
            col3 = "- | -"
        chosen = f"drift {model.drift_:.4g}, prior {model.prior_scale_:.3g}, variance {model.variance_scale_:.3g}"
        if model.context_scale_ is not None:
            chosen += f", context {model.context_scale_:.3g}"
        if model.margin_scale_ is not None:
            chosen += f", margin {model.margin_scale_:.3g}"
        if model.disc_scale_ is not None:
            chosen += f", disc {model.disc_scale_:.3g}"
        if getattr(model, "format_scales_", None) is not None:
            chosen += ", formats " + " ".join(f"{k} {v:.3g}" for k, v in zip(model.format_labels_,
                                                                               model.format_scales_))
        if model.draw_propensity_scale_ is not None:
            chosen += f", draw propensity {model.draw_propensity_scale_:.3g}"
        lines.append(f"| {name} | {np.mean(loss['log_loss']):.4f} | {diff:+.4f} ({se:.4f}) | {col3} | {chosen} | "
                     f"{seconds:.0f} |")
    return lines + [""]


def quick_log(seed: int = 0):
    """(log, split) of a synthetic league of 60 players over 300 days, three contexts in which each player's
    strength differs (effects of standard deviation 0.6 around a slowly drifting rating), and a margin of 12
    sub-contests a game, each won with probability sigmoid(0.35 d)."""
    from discrank import GameLog

    rng = np.random.default_rng(seed)
    n, g, k = 60, 12000, 3
    a = rng.integers(0, n, g)
    b = (a + rng.integers(1, n, g)) % n
    t = np.sort(rng.uniform(0, 300, g))
    c = rng.integers(0, k, g)
    base = rng.normal(size=n)
    trend = rng.normal(scale=0.3, size=n)
    effect = rng.normal(scale=0.6, size=(n, k))
    d = base[a] + trend[a] * t / 300 - base[b] - trend[b] * t / 300 + effect[a, c] - effect[b, c]
    score = (rng.random(g) < 1.0 / (1.0 + np.exp(-d))).astype(np.float64)
    won = rng.binomial(12, 1.0 / (1.0 + np.exp(-0.35 * d))).astype(np.float64)
    days = np.datetime64("2020-01-01", "ns") + (t * 86400e9).astype("timedelta64[ns]")
    log = GameLog.from_arrays([f"p{i}" for i in a], [f"p{i}" for i in b], score, days,
                              context=np.array(["clay", "grass", "hard"])[c], margin=np.stack([won, 12 - won], axis=1))
    split = {"cutoff": np.datetime64("2020-09-01", "ns"), "test_start": np.datetime64("2020-09-01", "ns"),
             "test_end": None}
    return log, split


#: The scales of ``--cost``'s fits: those DynamicElo() chooses on the whole ATP log (bench/bench_dynamic.py's
#: MEMORY_FIXED).
COST_FIXED = {"drift": 0.05537502037550825, "prior_scale": 2.0, "variance_scale": 4.0}
#: The disc's prior scales of ``--cost``'s fits: below, near and above the log's threshold, and the middle of
#: the disc's grid.
COST_SCALES = (0.15, 0.2, 0.25, 1.0)


def game_logits(model, log) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(player labels, each game's first and second player coded in them, each game's logit ``r_a(t) - r_b(t)``
    from ``model``'s ratings at the game's time)."""
    names, codes = np.unique(np.r_[log.a, log.b], return_inverse=True)
    ia, ib = codes[:len(log)], codes[len(log):]
    d = np.empty(len(log))
    times, which = np.unique(log.time, return_inverse=True)
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(times.size + 1))
    for j, t in enumerate(times):  # each game's ratings at its time
        games = order[bounds[j]:bounds[j + 1]]
        who = np.unique(np.r_[ia[games], ib[games]])
        at = model.ratings_at(t, names[who])
        r = dict(zip(who, at["rating"].to_numpy()))
        d[games] = [r[a] - r[b] for a, b in zip(ia[games], ib[games])]
    return names, ia, ib, d


def residual_spectrum(model, log, k: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(the top ``k`` singular values of the skew-symmetric matrix of the games' residuals between each pair of
    players, ``R_ab = sum (score - P(a beats b))`` over their games, at ``model``'s in-sample ratings; the same of
    outcomes drawn from those probabilities, a log with the same games and no cycle beyond the ratings). The disc
    of scale ``s`` is exactly 0 at the MAP below the threshold ``sigma_1(R) = 1 / s^2`` (discrank.solvers._disc_start)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import svds

    names, ia, ib, d = game_logits(model, log)
    p = 1.0 / (1.0 + np.exp(-d))
    n = names.size
    out = []
    for score in (np.asarray(log.score, dtype=float), np.random.default_rng(seed).random(len(log)) < p):
        res = score - p
        R = sp.coo_matrix((np.r_[res, -res], (np.r_[ia, ib], np.r_[ib, ia])), shape=(n, n)).tocsr()
        out.append(np.sort(svds(R, k=k, random_state=seed)[1])[::-1])
    return out[0], out[1]


#: The planted disc of ``--cost``'s simulated log: each (u, v) drawn N(0, PLANT_SCALE^2) for the players with at
#: least PLANT_GAMES games, 0 for the others.
PLANT_SCALE = 0.5
PLANT_GAMES = 50


def planted_log(model, log, seed: int = 1):
    """(ATP's games with outcomes drawn from ``model``'s ratings at each game's time plus a planted disc game, the
    players' labels, the planted u, v): a log of ATP's size whose disc carries signal."""
    from discrank import GameLog

    names, ia, ib, d = game_logits(model, log)
    rng = np.random.default_rng(seed)
    games = np.bincount(ia, minlength=names.size) + np.bincount(ib, minlength=names.size)
    active = games >= PLANT_GAMES
    u = np.where(active, rng.normal(0.0, PLANT_SCALE, names.size), 0.0)
    v = np.where(active, rng.normal(0.0, PLANT_SCALE, names.size), 0.0)
    logit = d + u[ia] * v[ib] - v[ia] * u[ib]
    score = (rng.random(len(log)) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float64)
    return GameLog.from_arrays(names[ia], names[ib], score, log.time), names, u, v


def _timed_fits(log, runs: list) -> list:
    """Each ``(name, parameters)`` of ``runs`` fitted on ``log`` at :data:`COST_FIXED` twice: (name, the fit, the
    best of the two seconds)."""
    from discrank import DynamicElo

    out = []
    for name, extra in runs:
        times = []
        for _ in range(2):
            clock = time.perf_counter()
            model = DynamicElo(**COST_FIXED, **extra).fit(log)
            times.append(time.perf_counter() - clock)
        out.append((name, model, min(times)))
    return out


def _cost_line(name: str, model, seconds: float, base: float, extra: str = "") -> str:
    largest = 0.0 if model.disc_u_ is None else float(np.abs(np.r_[model.disc_u_.ravel(),
                                                                     model.disc_v_.ravel()]).max())
    return (f"| {name} | {seconds:.1f} | {model.n_iter_} | {model.n_cg_} | {largest:.3g} | {seconds / base:.2f} |"
            f"{extra}")


def cost() -> list[str]:
    """``--cost``: the whole ATP log fitted at fixed parameters by DynamicElo and by DynamicElo with the disc game
    (k = 1) at the prior scales :data:`COST_SCALES`, each timed (best of two), and the ratio (issue 36's target: at
    most 5x); then the residuals' spectrum that sets the disc's threshold; then the same on ATP's games with a
    planted disc (:func:`planted_log`), fitted at the planted scale, with the correlation of the fitted and planted
    disc terms over the games."""
    log = datasets.tennis_atp_log()
    head = ["| model | seconds (best of 2) | Newton steps | CG iterations | largest |u|, |v| | ratio |",
            "|---|---|---|---|---|---|"]
    lines = [f"ATP log, {len(log)} games, fixed parameters {COST_FIXED}", ""] + head
    runs = [("DynamicElo", {})] + [(f"DynamicElo(disc_components=1, disc_scale={s:g})",
                                    {"disc_components": 1, "disc_scale": s}) for s in COST_SCALES]
    fits = []
    for run in runs:
        fits += _timed_fits(log, [run])
        lines.append(_cost_line(*fits[-1], fits[0][2]))
        print(lines[-1], flush=True)
    plain = fits[0][1]
    real, drawn = residual_spectrum(plain, log)
    fmt = lambda v: ", ".join(f"{x:.2f}" for x in v)  # noqa: E731
    lines += ["", f"top singular values of the residuals' skew-symmetric matrix at DynamicElo's fit: {fmt(real)} "
              f"(threshold scale 1 / sqrt(sigma_1) = {1 / np.sqrt(real[0]):.3f}); of outcomes drawn from its "
              f"probabilities (no cycle): {fmt(drawn)}"]
    sim, names, u, v = planted_log(plain, log)
    lines += ["", f"ATP's games, outcomes drawn from DynamicElo's ratings plus a disc of scale {PLANT_SCALE:g} planted "
              f"on the {int(np.count_nonzero(u))} players with at least {PLANT_GAMES} games", ""] + head[:1]
    lines[-1] += " corr(fitted, planted disc terms) |"
    lines.append("|---|---|---|---|---|---|---|")
    sims = _timed_fits(sim, [("DynamicElo", {}), (f"DynamicElo(disc_components=1, disc_scale={PLANT_SCALE:g})",
                                                  {"disc_components": 1, "disc_scale": PLANT_SCALE})])
    ia, ib = np.searchsorted(names, sim.a), np.searchsorted(names, sim.b)  # (names: sorted)
    for name, model, seconds in sims:
        corr = " |"
        if model.disc_u_ is not None:
            index = {label: i for i, label in enumerate(model.labels_)}
            at = np.array([index[label] for label in names])  # the planted players in the fit's order
            fu, fv = model.disc_u_[at, 0], model.disc_v_[at, 0]
            corr = f" {np.corrcoef(u[ia] * v[ib] - v[ia] * u[ib], fu[ia] * fv[ib] - fv[ia] * fu[ib])[0, 1]:.3f} |"
        lines.append(_cost_line(name, model, seconds, sims[0][2], corr))
        print(lines[-1], flush=True)
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=sorted(NAMES), action="append", help="the logs to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="a small synthetic league with contexts")
    parser.add_argument("--cost", action="store_true", help="the disc's fit at fixed parameters against DynamicElo's")
    parser.add_argument("--feature", choices=sorted(FEATURES), action="append",
                        help="the features to compare with the reference (default: every one the log supports)")
    args = parser.parse_args(argv)
    if args.quick:
        log, split = quick_log()
        print("\n".join(report("synthetic league, three contexts, margins (quick)",
                                evaluate_features(log, split, period="day"))))
        return
    if not datasets.available():
        print(f"skipped: the shared data ({datasets.DATA}) is not here")
        return
    if args.cost:
        print("\n".join(cost()))
        return
    logs = datasets.full_logs(context=True, margin=True, match_format=True)
    for key in args.only or ["tennis", "go", "football"]:
        log, split = logs[NAMES[key]]
        runs = evaluate_features(log, split, DRAWS[key], only=args.feature)
        print("\n".join(report(f"{NAMES[key]}, online protocol", runs)), flush=True)


if __name__ == "__main__":
    main()
