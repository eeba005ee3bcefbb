"""Fit Elo and the disc decomposition at the paper's Lichess scale, beside a plain numpy/scipy fit.

    python bench/bench_scale.py                 # 40 000 players, 4.7 million games (about 2 minutes on 2 cores)
    python bench/bench_scale.py --quick         # 2 000 players, 235 000 games (seconds)

A seeded game log is simulated: each game pairs two players drawn at random; the logit of the win
probability is ``s_a - s_b + c sin(theta_a - theta_b)`` (an Elo game plus a disc game, Examples 2.1 and
2.2; ``s ~ N(0, 0.6^2)``, ``c = 0.5``). The log is aggregated once by ``PairwiseData.from_games``
(timed), then each fit runs on the same pairs with ``weights="games"`` (maximum likelihood):

- numpy BT: a plain numpy/scipy Bradley-Terry (= stationary Elo) fit: loss and gradient with numpy
  over the pairs, scipy's L-BFGS-B with its default stopping rule (the baseline of the ratios), and
  again with the objective-change rule off and a tight gradient rule, to reach the same optimum;
- discrank ``Elo(prior_scale=inf)``, ``DiscDecomposition(n_components=1, prior_scale=inf)`` (the maximum-likelihood problem the peers solve).

Wall time is measured in this run; "peak extra memory" is the largest resident-set growth during the
fit over its start (sampled every 2 ms from /proc/self/statm), per observed pair.
"""

from __future__ import annotations

import argparse
import os
import platform
import threading
import time
import warnings

import numpy as np
import scipy
import scipy.optimize

import discrank
from discrank import DiscDecomposition, Elo, PairwiseData


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakMemory:
    """Largest RSS growth over the value at entry, sampled in a background thread."""

    def __enter__(self):
        self.start = rss_bytes()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_bytes())
            time.sleep(0.002)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())
        self.extra = self.peak - self.start


def simulate(n_players: int, n_games: int, seed: int):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 0.6, n_players)
    theta = rng.uniform(0.0, 2.0 * np.pi, n_players)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players  # never a == b
    logit = skill[a] - skill[b] + 0.5 * np.sin(theta[a] - theta[b])
    score = (rng.random(n_games) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float64)
    return a, b, score


def numpy_bradley_terry(data: PairwiseData, options=None):
    """Plain numpy/scipy stationary Elo over the aggregated pairs (the baseline)."""
    i, j, y = data.i, data.j, data.p
    w = data.pair_weights()
    w = w / w.sum()
    n = data.n_players

    def fun(s):
        A = s[i] - s[j]
        loss = np.sum(w * (np.logaddexp(0.0, A) - y * A))
        r = w * (0.5 * (1.0 + np.tanh(0.5 * A)) - y)
        return loss, np.bincount(i, r, n) - np.bincount(j, r, n)

    res = scipy.optimize.minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B", options=options)
    s = res.x - res.x.mean()
    return s, res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=40_000)
    parser.add_argument("--games", type=int, default=4_700_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="2 000 players, 235 000 games (as many per player)")
    args = parser.parse_args()
    if args.quick:
        args.players, args.games = 2_000, 235_000

    print(f"discrank {discrank.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    a, b, score = simulate(args.players, args.games, args.seed)
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        data = PairwiseData.from_games(a, b, score)
        t_agg = time.perf_counter() - t0
    m = data.n_pairs
    print(f"game log: {args.players} players, {args.games} games -> {m} observed pairs; "
          f"aggregation {t_agg:.2f} s, {mem.extra / m:.0f} B/pair\n")

    rows = []
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        s_np, res = numpy_bradley_terry(data)
        t_np = time.perf_counter() - t0
    rows.append(("numpy BT (scipy L-BFGS-B defaults)", t_np, mem.extra, res.nit, res.success, res.fun))
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        s_tight, res = numpy_bradley_terry(data, {"ftol": 0.0, "gtol": 1e-12 / m, "maxiter": 10_000})
        t_tight = time.perf_counter() - t0
    rows.append(("numpy BT (ftol=0, gtol=1e-12/pairs)", t_tight, mem.extra, res.nit, res.success, res.fun))

    results = {}
    for name, model in (("discrank Elo", Elo(prior_scale=np.inf)), ("discrank disc k=1", DiscDecomposition(n_components=1, prior_scale=np.inf, random_state=0))):
        with warnings.catch_warnings(record=True) as caught, PeakMemory() as mem:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            model.fit(data)
            elapsed = time.perf_counter() - t0
        for w in caught:
            print(f"  [{name}] {w.category.__name__}: {w.message}")
        n_iter = int(np.sum(model.n_iter_))
        rows.append((name, elapsed, mem.extra, n_iter, model.converged_, model.loss_))
        results[name] = model

    print(f"{'fit':<38}{'time (s)':>10}{'vs numpy':>10}{'peak extra':>14}{'B/pair':>8}{'iters':>7}"
          f"{'converged':>11}{'objective':>20}")
    for name, seconds, extra, n_iter, ok, loss in rows:
        print(f"{name:<38}{seconds:>10.2f}{t_np / seconds:>9.1f}x{extra / 2**20:>11.0f} MiB{extra / m:>8.0f}"
              f"{n_iter:>7}{str(bool(ok)):>11}{loss:>20.12f}")
    elo = results["discrank Elo"]
    print(f"\nmax |rating difference| to discrank Elo: numpy BT defaults {np.abs(elo.ratings_ - s_np).max():.2e}, "
          f"numpy BT tight {np.abs(elo.ratings_ - s_tight - (elo.ratings_ - s_tight).mean()).max():.2e}; "
          f"discrank Elo stopping measure {elo.grad_measure_:.1e} (tol {elo.tol_:g})")


if __name__ == "__main__":
    main()
