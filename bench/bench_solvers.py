"""The disc solvers (Algorithm 1 as written, alternating, against the joint solver) and Elo's Newton solver.

    python bench/bench_solvers.py                  # about a minute on 2 cores
    python bench/bench_solvers.py --quick          # seconds
    python bench/bench_solvers.py --only newton    # Elo's Newton solver only (--only disc: the disc solvers)

Disc solvers, two workloads:
- a sparse game log, k = 1: the log of bench_scale.py (random pairings, logit = skill difference +
  0.5 sin(style difference)), 2 000 players and 200 000 games (--quick: 300 and 20 000), weights="games";
- a dense game, k = 1 and 2: 200 players (--quick: 60), logit P = 0.7 (s_i - s_j) + sin(theta_i -
  theta_j) exactly (an Elo game plus a disc game), 20% of the pairs hidden, uniform weights.
tol = 1e-6, at most 500 rounds (alternating) or L-BFGS iterations (joint) per component. Prints the
iterations per component (rounds of u-step + v-step for "alternating"; the warm-start round plus the
joint L-BFGS iterations for "joint"), wall time, whether every component met tol, the objective and the
MSE on hidden pairs (dense game).

Elo's Newton solver (``discrank.solvers._newton.newton_elo``, maximum likelihood, tol = 1e-9) on the pairs of
``simulate`` (random pairings: its Laplacian solves run preconditioned conjugate gradients) at two sizes,
and on the ladder of bench_peers.py (3 000 players who meet only opponents 1-50 ranks away, 150 000
games: conjugate gradients until a solve hits their cap, then banded Cholesky). Prints the Newton steps,
the products with the Laplacian of the conjugate-gradient solves that converged, the linear solver of
the last step, the objective and the best and median wall time of ``--repeat`` fits.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from bench_peers import simulate_ladder
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


def run_newton(label: str, data: PairwiseData, repeat: int) -> None:
    from discrank.core import _core
    from discrank.solvers._newton import newton_elo

    w = data.pair_weights()
    w = w / w.sum()
    _, piece = data.components()
    n_threads = 0  # OpenMP's default, as a model with n_jobs=None
    objective = _core.PairObjective(data.n_players, data.i, data.j, data.p, w)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = newton_elo(objective, 0, data.i, data.j, w, data.n_players, piece, 1e-9, 100, n_threads)
        times.append(time.perf_counter() - t0)
    print(f"{label:<28}{res.n_iter:>6}{res.n_cg:>8}  {res.linear_solver:<17}{str(res.converged):>9}"
          f"{res.fun:>20.14f}{min(times):>10.4f}{float(np.median(times)):>12.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=("disc", "newton"), help="run one part of the bench only")
    parser.add_argument("--repeat", type=int, default=None, help="fits per Newton workload (default 20, --quick 5)")
    args = parser.parse_args()
    if args.only != "disc":
        repeat = args.repeat or (5 if args.quick else 20)
        sizes = ((300, 20_000), (2_000, 200_000)) if args.quick else ((2_000, 200_000), (20_000, 1_000_000))
        lad = (3_000, 150_000)
        print(f"{'Elo Newton workload':<28}{'steps':>6}{'L prods':>8}  {'linear solver':<17}{'converged':>9}"
              f"{'objective':>20}{'best (s)':>10}{'median (s)':>12}")
        for n, g in sizes:
            run_newton(f"random pairings {n}/{g // 1000}k", PairwiseData.from_games(*simulate(n, g, seed=0)), repeat)
        run_newton(f"ladder {lad[0]}/{lad[1] // 1000}k", PairwiseData.from_games(*simulate_ladder(*lad)[:3]), repeat)
        if args.only == "newton":
            return
        print()
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
