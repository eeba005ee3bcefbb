"""How often the arena board's 95% intervals cover the true ratings, on synthetic arenas with known strengths.

    python bench/arena_coverage.py               # 200 seeds, 1000 replicates: about 40 min on one shared core
    python bench/arena_coverage.py --quick       # 10 seeds, 200 replicates
    python bench/arena_coverage.py --seeds 50
    python bench/arena_coverage.py --save runs.npz     # then --load runs.npz reprints the tables

The world (fixed over the seeds, drawn from seed 0): 40 models with strengths ``theta ~ N(0, 0.6^2)``
logits; sampling shares skewed (34 models with log-normal weights, sd 1, and 6 "new" models expected in
60 to 180 battles out of 30 000); each model's answers have a length (log-normal, its mean rising with the
model's strength) and a markdown count (Poisson, its rate rising with the strength). A seed draws 30 000
battles: the pair by the shares, the two answers' style, then the outcome from

    eta = theta_a - theta_b + beta . z,   z = style_features(frame, ["length", "markdown"])

(the normalised differences ``(x_a - x_b) / (x_a + x_b)``), ``beta = (0.8, 0.4)``. Two tie models:

- "consistent": a tie with probability ``sigmoid(eta) (1 - sigmoid(eta))`` (1/4 between equals), and
  otherwise a's win with the probability that makes the expected score ``sigmoid(eta)`` exactly: the
  board's likelihood with ties counted as half a win ("half") is then the true model (its score equations
  are unbiased), so ``theta`` is what the board estimates.
- "davidson": Davidson's model, ``P(a) : P(tie) : P(b) = e^(eta/2) : nu : e^(-eta/2)`` with ``nu = 2/3``
  (1/4 ties between equals). Counting its ties as half a win is a misspecified model: the expected score
  is a flatter curve than ``sigmoid(eta)``, so the board estimates a shrunk ``theta``.

Half of the ties are "tie (bothbad)" (counted as ties). Each arm's truths, on the board's scale
(``1000 + 400 / ln 10 * (t - mean(t))``, the board's mean anchor applied to the true strengths):

- ``theta``: the generating strengths.
- ``pseudo``: what the board's estimator converges to on that seed's battles: the board fitted to the
  battles' expected scores (``arena_board`` on a GameLog whose scores are the expected ones, same pairs,
  same style features). It equals ``theta`` when the model is right; it is the honest target when it is
  not (a style effect left out of the model, Davidson ties counted as halves), since then no estimator of
  this model converges to ``theta``.

The style coefficients are compared on the board's scale: per standard deviation of the feature over the
votes (``normalize=True``), so the truth is ``beta * z.std(axis=0)`` for ``theta`` and the pseudo-true
fit's coefficient for ``pseudo``. The bootstrap runs on one thread (``n_jobs=1``).
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

import discrank
from discrank.data.arena import style_features

ELO = 400.0 / math.log(10.0)
STYLE = ["length", "markdown"]
BETA = np.array([0.8, 0.4])
N_MODELS, N_SMALL, N_BATTLES = 40, 6, 30_000
NU = 2.0 / 3.0  # Davidson's tie parameter: nu / (2 + nu) = 1/4 ties between equals
SMALL = 200  # the split of the report: models with fewer battles than this in a seed


@dataclass
class World:
    """The fixed truth: strengths, sampling shares, and each model's style propensities."""

    theta: np.ndarray
    share: np.ndarray
    log_len: np.ndarray
    md_rate: np.ndarray
    names: np.ndarray = field(repr=False)


def make_world(seed: int = 0) -> World:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.6, N_MODELS)
    small = np.linspace(60, 180, N_SMALL) / (2 * N_BATTLES)  # expected appearances / all appearances
    big = np.exp(rng.normal(0.0, 1.0, N_MODELS - N_SMALL))
    share = np.r_[big / big.sum() * (1.0 - small.sum()), small]
    log_len = 6.0 + 0.4 * theta / 0.6 + rng.normal(0.0, 0.2, N_MODELS)
    md_rate = np.exp(0.7 + 0.3 * theta / 0.6 + rng.normal(0.0, 0.3, N_MODELS))
    return World(theta, share, log_len, md_rate, np.array([f"m{i:02d}" for i in range(N_MODELS)]))


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def battles(world: World, rng: np.random.Generator, ties: str, beta: np.ndarray):
    """A seed's battles: the arena frame, the style features ``z`` of the board, and each battle's expected
    score of a (the target of the pseudo-true fit)."""
    n = world.theta.size
    a = rng.choice(n, N_BATTLES, p=world.share)
    b = rng.choice(n, N_BATTLES, p=world.share)
    while np.any(same := a == b):
        b[same] = rng.choice(n, int(same.sum()), p=world.share)
    frame = pd.DataFrame({"model_a": world.names[a], "model_b": world.names[b]})
    for side, m in (("a", a), ("b", b)):
        frame[f"length_{side}"] = np.exp(world.log_len[m] + rng.normal(0.0, 0.5, N_BATTLES))
        frame[f"markdown_{side}"] = rng.poisson(world.md_rate[m])
    z, _ = style_features(frame, STYLE)
    eta = world.theta[a] - world.theta[b] + z @ beta
    if ties == "consistent":
        s = sigmoid(eta)
        p_tie = s * (1.0 - s)
        p_a = s - p_tie / 2.0
    else:
        ea, eb = np.exp(eta / 2.0), np.exp(-eta / 2.0)
        p_a, p_tie = ea / (ea + eb + NU), NU / (ea + eb + NU)
    u = rng.random(N_BATTLES)
    tie = u < p_tie
    bothbad = rng.random(N_BATTLES) < 0.5
    frame["winner"] = np.where(tie, np.where(bothbad, "tie (bothbad)", "tie"),
                               np.where(u < p_tie + p_a, "model_a", "model_b"))
    return frame, z, p_a + p_tie / 2.0


def board_truth(world: World, frame: pd.DataFrame, z: np.ndarray, expected: np.ndarray, style: bool,
                anchor: str | None = None):
    """The pseudo-true ratings (in the world's model order) and style coefficients: the board fitted to
    the expected scores of the same battles."""
    adv = {name: z[:, j] for j, name in enumerate(STYLE)} if style else None
    log = discrank.GameLog.from_arrays(frame["model_a"].to_numpy(), frame["model_b"].to_numpy(), expected,
                                       advantage=adv)
    board = discrank.arena_board(log, ci="none", anchor=anchor)
    return board.frame.set_index("model").loc[world.names, "rating"].to_numpy(), board.style["coef"].to_numpy()


def theta_truth(world: World, z: np.ndarray, beta: np.ndarray, style: bool, anchor: str | None = None):
    ref = world.theta.mean() if anchor is None else world.theta[list(world.names).index(anchor)]
    ratings = 1000.0 + ELO * (world.theta - ref)
    return ratings, (beta * z.std(axis=0) if style else np.zeros(0))


#: The data sets: the tie model and the true style coefficients.
DATA = {"S": ("consistent", BETA), "P": ("consistent", np.zeros(2)), "D": ("davidson", BETA)}
#: The arms: name, data set, style control, anchor (None: the mean), and what the arm is.
ARMS = [
    ("A", "S", True, None, "style control; consistent ties; style effect"),
    ("B", "S", False, None, "no style control; consistent ties; style effect (an omitted variable)"),
    ("C", "P", False, None, "no style control; consistent ties; no style effect"),
    ("D", "P", True, None, "style control; consistent ties; no style effect (true coefficients 0)"),
    ("E", "D", True, None, "style control; Davidson ties counted as halves; style effect"),
    ("F", "S", True, "m34", "as A, anchored at m34, the model with the fewest battles (60 expected); its own "
                            "rating, fixed at 1000, is left out of the coverage"),
]
CIS = ("sandwich", "bootstrap")


def run_seed(world: World, seed: int, n_boot: int, out: dict, arms: str) -> None:
    """Fit the boards of the ``arms`` on the seed's battles and append the intervals and the truths to
    ``out``."""
    for key, (ties, beta) in DATA.items():
        if not any(data == key and arm in arms for arm, data, *_ in ARMS):
            continue
        frame, z, expected = battles(world, np.random.default_rng([seed, ord(key)]), ties, beta)
        for arm, data, style, anchor, _ in ARMS:
            if data != key or arm not in arms:
                continue
            truths = {"theta": theta_truth(world, z, beta, style, anchor),
                      "pseudo": board_truth(world, frame, z, expected, style, anchor)}
            for name, (ratings, coefs) in truths.items():
                out.setdefault((arm, "truth", name), []).append(np.r_[ratings, coefs])
            for ci in CIS:
                board = discrank.arena_board(frame, style=STYLE if style else None, ci=ci, n_boot=n_boot,
                                             seed=seed, n_jobs=1, anchor=anchor)
                f = board.frame.set_index("model").loc[world.names]
                st = board.style
                out.setdefault((arm, ci), []).append(np.stack([
                    np.r_[f["rating"], st["coef"]], np.r_[f["lower"], st["lower"]], np.r_[f["upper"], st["upper"]],
                    np.r_[f["votes"], np.full(len(st), -1)]]))


def arm_arrays(out: dict, arm: str, ci: str, truth: str):
    """(point, lower, upper, votes, truth) of an arm over the seeds, each (seeds, models + coefficients)
    but ``votes`` (seeds, models); an anchor model's own column (its rating fixed) left out."""
    anchor = next(a for name, _, _, a, _ in ARMS if name == arm)
    rated = np.array([m != anchor for m in make_world(0).names])
    fits = np.array(out[(arm, ci)])  # (seeds, 4, models + coefficients)
    keep = np.r_[rated, np.ones(fits.shape[2] - N_MODELS, dtype=bool)]
    t = np.array(out[(arm, "truth", truth)])[:, keep]
    fits = fits[:, :, keep]
    m = int(rated.sum())
    return fits[:, 0], fits[:, 1], fits[:, 2], fits[:, 3, :m], t


def coverage_rows(out: dict) -> list[dict]:
    """One row per arm, interval method and truth: the coverage of the ratings (all, small models, the
    rest) and of the style coefficients, with the standard errors and the calibration of the errors."""
    rows = []
    for arm, *_ in ARMS:
        if (arm, "sandwich") not in out:
            continue
        for ci in CIS:
            for truth in ("theta", "pseudo"):
                point, lo, hi, votes, t = arm_arrays(out, arm, ci, truth)
                m = votes.shape[1]
                hit = (lo <= t) & (t <= hi)
                r, c = hit[:, :m], hit[:, m:]
                small = votes < SMALL
                cov = r.mean()
                zs = (point - t)[:, :m] / ((hi - lo)[:, :m] / (2 * 1.959964))
                gap = np.abs(arm_arrays(out, arm, ci, "pseudo")[4] - arm_arrays(out, arm, ci, "theta")[4])[:, :m]
                rows.append(dict(
                    arm=arm, ci=ci, truth=truth, cov=cov, se=math.sqrt(cov * (1 - cov) / r.size),
                    seed_se=r.mean(axis=1).std(ddof=1) / math.sqrt(r.shape[0]) if r.shape[0] > 1 else float("nan"),
                    small=r[small].mean() if small.any() else float("nan"), n_small=int(small.sum()),
                    rest=r[~small].mean(), n_rest=int((~small).sum()),
                    coef=[c[:, j].mean() for j in range(c.shape[1])],
                    z_sd=float(zs.std()), z_mean=float(zs.mean()), gap=float(gap.max())))
    return rows


def print_table(rows: list[dict], seeds: int) -> None:
    print(f"\n95% intervals, {seeds} seeds x {N_MODELS} models; coverage +- binomial SE [seed-clustered SE]; "
          f"models with < {SMALL} battles vs the rest; style coefficients (length, markdown); z: "
          "(rating - truth) / (half-width / 1.96), its sd and mean over models x seeds\n")
    print("| arm | ci | truth | coverage | < 200 battles | >= 200 | coef length | coef markdown | z sd | z mean |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        coef = [f"{v:.3f}" for v in r["coef"]] or ["-", "-"]
        print(f"| {r['arm']} | {r['ci']} | {r['truth']} | {r['cov']:.4f} +- {r['se']:.4f} [{r['seed_se']:.4f}] | "
              f"{r['small']:.3f} (n={r['n_small']}) | {r['rest']:.4f} (n={r['n_rest']}) | {coef[0]} | {coef[1]} | "
              f"{r['z_sd']:.3f} | {r['z_mean']:+.3f} |")
    print("\nlargest |pseudo - theta| over models x seeds (Elo points): "
          + ", ".join(f"{r['arm']} {r['gap']:.1f}" for r in rows[::4]))


def describe(world: World) -> None:
    print(f"world: {N_MODELS} models, theta sd {world.theta.std():.3f} logits "
          f"(ratings {1000 + ELO * (world.theta.min() - world.theta.mean()):.0f} to "
          f"{1000 + ELO * (world.theta.max() - world.theta.mean()):.0f}), {N_BATTLES} battles a seed, "
          f"expected battles per model {np.round(2 * N_BATTLES * np.sort(world.share)).astype(int).tolist()}")
    for arm, data, style, _, what in ARMS:
        print(f"  arm {arm} (data {data}, style={STYLE if style else None}): {what}")


#: Each arm's estimand: the truth its intervals should cover (the pseudo-truth where the model is wrong).
ESTIMAND = {"A": "theta", "B": "pseudo", "C": "theta", "D": "theta", "E": "pseudo", "F": "theta"}
BINS = (0, 100, 200, 500, 2000, 10**9)


def print_bins(out: dict) -> None:
    """The ratings' coverage by the model's battles in the seed, at each arm's estimand, and the range of
    the per-model coverage over the seeds (the world is fixed, so each model is the same one every seed)."""
    edges = list(zip(BINS[:-1], BINS[1:]))
    print("\ncoverage of the ratings by the model's battles in the seed (n: models x seeds), at each arm's "
          "estimand; per model: the lowest and highest coverage of a model over the seeds\n")
    print("| arm | ci | truth | " + " | ".join(f"[{lo}, {hi})" if hi < BINS[-1] else f">= {lo}" for lo, hi in edges)
          + " | per model |")
    print("|---|---|---|" + "---|" * len(edges) + "---|")
    for arm, truth in ESTIMAND.items():
        if (arm, "sandwich") not in out:
            continue
        for ci in CIS:
            _, lo, hi, votes, t = arm_arrays(out, arm, ci, truth)
            m = votes.shape[1]
            hit = (lo[:, :m] <= t[:, :m]) & (t[:, :m] <= hi[:, :m])
            cells = [hit[(votes >= lo) & (votes < hi)] for lo, hi in edges]
            per_model = hit.mean(axis=0)
            print(f"| {arm} | {ci} | {truth} | " + " | ".join(f"{c.mean():.3f} (n={c.size})" for c in cells)
                  + f" | {per_model.min():.3f} to {per_model.max():.3f} |")


def print_smallest(out: dict, count: int = 3) -> None:
    """Arm A's models with the fewest expected battles: the spread of their rating's error over the seeds
    against the mean standard error the intervals imply (half-width / 1.96)."""
    if ("A", "sandwich") not in out:
        return
    world = make_world(0)
    print(f"\narm A, the {count} models with the fewest battles: error sd over the seeds against the mean implied "
          "standard error (Elo points)\n")
    print("| model | battles (median) | ci | coverage | error sd | mean se |")
    print("|---|---|---|---|---|---|")
    for i in np.argsort(world.share)[:count]:
        for ci in CIS:
            point, lo, hi, votes, t = arm_arrays(out, "A", ci, "theta")
            err, se = (point - t)[:, i], (hi - lo)[:, i] / (2 * 1.959964)
            cov = ((lo <= t) & (t <= hi))[:, i].mean()
            print(f"| {world.names[i]} | {np.median(votes[:, i]):.0f} | {ci} | {cov:.3f} | {err.std():.1f} | "
                  f"{se.mean():.1f} |")


def load(path: str) -> dict:
    with np.load(path) as saved:
        return {tuple(key.split("/")): list(saved[key]) for key in saved.files}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="10 seeds, 200 replicates")
    parser.add_argument("--save", help="an .npz file for the raw intervals and truths")
    parser.add_argument("--load", help="print the tables of a file --save wrote, without fitting")
    parser.add_argument("--arms", default="ABCDEF", help="the arms to run (letters; default all)")
    args = parser.parse_args()
    seeds, n_boot = (10, 200) if args.quick else (args.seeds, args.n_boot)
    world = make_world(0)
    if args.load:
        out = load(args.load)
        seeds = len(next(iter(out.values())))
    else:
        print(f"{' '.join(sys.argv)}; {platform.processor() or platform.machine()}, Python "
              f"{platform.python_version()}, numpy {np.__version__}, discrank {discrank.__version__}; "
              f"n_boot {n_boot}, n_jobs 1")
        describe(world)
        out = {}
        t0 = time.perf_counter()
        for seed in range(seeds):
            run_seed(world, seed, n_boot, out, args.arms)
            if (seed + 1) % max(1, seeds // 10) == 0:
                print(f"  {seed + 1} seeds, {time.perf_counter() - t0:.0f} s", flush=True)
    print_table(coverage_rows(out), seeds)
    print_bins(out)
    print_smallest(out)
    if not args.load:
        print(f"\nwall time {time.perf_counter() - t0:.0f} s")
    if args.save:
        np.savez_compressed(args.save, **{"/".join(k): np.array(v) for k, v in out.items()})


if __name__ == "__main__":
    main()
