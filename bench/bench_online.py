"""Games per second of the sequential updates.

    python bench/bench_online.py            # 40 000 players, 4.7 million games
    python bench/bench_online.py --quick    # 2 000 players, 200 000 games

Times the C++ loops alone (index arrays ready) and the Python entry points end to end (labels mapped
to indices, inputs checked), on random pairings with random results.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from discrank.core import _core
from discrank.online import online_disc, online_elo


def rate(fn, n_games: int) -> float:
    t0 = time.perf_counter()
    fn()
    return n_games / (time.perf_counter() - t0) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, T = (2_000, 200_000) if args.quick else (40_000, 4_700_000)
    rng = np.random.default_rng(0)
    a = rng.integers(0, n, T).astype(np.int32)
    b = ((a + rng.integers(1, n, T)) % n).astype(np.int32)
    score = (rng.random(T) < 0.5).astype(np.float64)
    state = np.zeros((2, n))
    state[1] = 1.0
    print(f"{n} players, {T} games; million games per second:")
    print(f"  C++ Elo loop           {rate(lambda: _core.online_elo(a, b, score, 0.1, np.zeros(n)), T):8.1f}")
    print(f"  C++ disc loop          {rate(lambda: _core.online_disc(a, b, score, 0.1, state), T):8.1f}")
    print(f"  online_elo (Python)    {rate(lambda: online_elo(a, b, score, step=0.1), T):8.1f}")
    print(f"  online_disc (Python)   {rate(lambda: online_disc(a, b, score, step=0.1), T):8.1f}")


if __name__ == "__main__":
    main()
