"""Elo on ladder data: players meet only opponents within +-50 ranks, as in real rating pools.

    python bench/bench_ladder.py                         # 10 000 players, 1 million games
    python bench/bench_ladder.py --players 40000 --games 4700000

Skill s ~ N(0, 1.5^2), sorted so that rank = index; each game pairs a random player with one 1 to 50
ranks away. Long chains of near-equals make first-order fits crawl (the Hessian is a path-like graph
Laplacian); an objective-change stopping rule then stops far from the optimum. Prints the time,
iterations, discrank's gradient stopping measure, and the Spearman correlation with the true skills,
beside scipy's L-BFGS-B with its default rule on the same numpy objective.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import scipy.optimize
from scipy.stats import spearmanr

from discrank import Elo, PairwiseData


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.players
    skill = np.sort(rng.normal(0.0, 1.5, n))
    a = rng.integers(0, n, args.games)
    b = np.clip(a + rng.integers(1, 51, args.games) * rng.choice([-1, 1], args.games), 0, n - 1)
    keep = a != b
    a, b = a[keep], b[keep]
    score = (rng.random(a.size) < 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))).astype(np.float64)
    data = PairwiseData.from_games(a, b, score)
    truth = skill[data.labels]
    print(f"ladder: {n} players, {a.size} games, {data.n_pairs} pairs")

    w = data.pair_weights() / data.pair_weights().sum()

    def fun(s):
        A = s[data.i] - s[data.j]
        r = w * (0.5 * (1.0 + np.tanh(0.5 * A)) - data.p)
        return np.sum(w * (np.logaddexp(0.0, A) - data.p * A)), np.bincount(data.i, r, n) - np.bincount(data.j, r, n)

    t0 = time.perf_counter()
    res = scipy.optimize.minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B")
    t_np = time.perf_counter() - t0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        elo = Elo().fit(data)
        t_elo = time.perf_counter() - t0
    print(f"{'fit':<36}{'time (s)':>9}{'iters':>7}{'objective':>18}{'Spearman':>10}  stop")
    print(f"{'numpy BT, scipy L-BFGS-B defaults':<36}{t_np:>9.2f}{res.nit:>7}{res.fun:>18.12f}"
          f"{spearmanr(res.x, truth).correlation:>10.4f}  {res.message}")
    name = f"discrank Elo ({elo.solver_}, tol {elo.tol_:g})"
    print(f"{name:<36}{t_elo:>9.2f}{elo.n_iter_:>7}{elo.loss_:>18.12f}"
          f"{spearmanr(elo.ratings_, truth).correlation:>10.4f}  converged={elo.converged_}, "
          f"measure {elo.grad_measure_:.1e}{'; ' + str(caught[0].message) if caught else ''}")


if __name__ == "__main__":
    main()
