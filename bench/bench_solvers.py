"""Algorithm 1 as written (alternating) against the joint solver, on the same data.

    python bench/bench_solvers.py            # about a minute on 2 cores
    python bench/bench_solvers.py --quick    # seconds

Two workloads:
- a sparse game log, k = 1: the log of bench_scale.py (random pairings, logit = skill difference +
  0.5 sin(style difference)), 2 000 players and 200 000 games (--quick: 300 and 20 000), weights="games";
- a dense game, k = 1 and 2: 200 players (--quick: 60), logit P = 0.7 (s_i - s_j) + sin(theta_i -
  theta_j) exactly (an Elo game plus a disc game), 20% of the pairs hidden, uniform weights.
tol = 1e-6, at most 500 rounds (alternating) or L-BFGS iterations (joint) per component. Prints the
iterations per component (rounds of u-step + v-step for "alternating"; the warm-start round plus the
joint L-BFGS iterations for "joint"), wall time, whether every component met tol, the objective and the
MSE on hidden pairs (dense game).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from bench_scale import simulate
from scipy.special import expit

from discrank import DiscDecomposition, PairwiseData

MAX_ITER = 500


def run(label: str, data: PairwiseData, k: int, test=None) -> None:
    for solver in ("alternating", "joint"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            model = DiscDecomposition(n_components=k, prior_scale=np.inf, solver=solver, max_iter=MAX_ITER, random_state=0).fit(data)
            elapsed = time.perf_counter() - t0
        mse = f"{model.mse(test):.3e}" if test is not None else "-"
        print(f"{label:<24}{k:>2} {solver:<12}{str(model.n_iter_.tolist()):>14}{elapsed:>10.2f}"
              f"{str(model.converged_):>11}{model.loss_:>20.12f}{mse:>12}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    players, games, dense = (300, 20_000, 60) if args.quick else (2_000, 200_000, 200)
    log = PairwiseData.from_games(*simulate(players, games, seed=0))
    rng = np.random.default_rng(1)
    s, theta = rng.normal(size=dense), rng.uniform(0, 2 * np.pi, dense)
    game = expit(0.7 * (s[:, None] - s[None, :]) + np.sin(theta[:, None] - theta[None, :]))
    train, test = PairwiseData.from_matrix(game).split(0.2, seed=0)
    print(f"{'workload':<24}{'k':>2} {'solver':<12}{'iterations':>14}{'time (s)':>10}{'converged':>11}"
          f"{'objective':>20}{'test MSE':>12}")
    run(f"log {players}/{games // 1000}k", log, 1)
    for k in (1, 2):
        run(f"dense game n={dense}", train, k, test)


if __name__ == "__main__":
    main()
