"""The whole-history disc's row kernel (``_core.DiscRows``) against the games' Laplacian product of the ratings alone
(``PairObjective.hessp_s``, each conjugate-gradient product of ``DynamicElo``'s fit), on rows of the ATP log's size.

    python bench/bench_disc_rows.py            # 930 000 rows, 34 000 players, 884 000 player-periods
    python bench/bench_disc_rows.py --quick    # 50 000 rows

The rows are seeded: each player holds a run of consecutive player-periods, each row is a game between a
player-period and one of another player (sorted by the first, as the history's rows are). Each line gives the
milliseconds of one call (median of 7) at 1 thread and at the OpenMP default, and the ratio to the Laplacian
product at the same threads, measured in the same run:

- ``hessp_s``: the Laplacian product (the baseline);
- ``product``: ``DiscRows.product`` with k = 1, the games' Hessian product in the ratings and the disc;
- ``net``: ``DiscRows.net`` with the second-order part, the disc's ``J^T c`` (each gradient evaluation's).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from discrank import _core


def rows(n_rows: int, n_players: int, n_pp: int, seed: int = 0):
    """(lo, hi, player of each player-period): seeded rows between player-periods of different players."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, n_pp), n_players - 1, replace=False))
    player = np.zeros(n_pp, np.int64)
    player[cuts] = 1
    player = np.cumsum(player)
    lo = np.sort(rng.integers(0, n_pp, n_rows))
    hi = rng.integers(0, n_pp, n_rows)
    same = player[lo] == player[hi]
    while same.any():
        hi[same] = rng.integers(0, n_pp, int(same.sum()))
        same = player[lo] == player[hi]
    return lo.astype(np.int32), hi.astype(np.int32), player


def median_ms(call, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        clock = time.perf_counter()
        call()
        times.append(time.perf_counter() - clock)
    return 1e3 * float(np.median(times))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="50 000 rows")
    args = parser.parse_args(argv)
    n_rows, n_players, n_pp = (50_000, 2_000, 47_000) if args.quick else (930_000, 34_000, 884_000)
    lo, hi, player = rows(n_rows, n_players, n_pp)
    rng = np.random.default_rng(1)
    size = 2 * n_players
    nodes = np.stack([player[lo], n_players + player[lo], player[hi], n_players + player[hi]])[None].astype(np.int32)
    clock = time.perf_counter()
    kernel = _core.DiscRows(nodes, size, lo, hi, n_pp)
    built = time.perf_counter() - clock
    pairs = _core.PairObjective(n_pp, lo, hi, rng.random(n_rows), np.ones(n_rows))
    w, f_dd, f_d = rng.standard_normal(size), rng.random(n_rows), rng.standard_normal(n_rows)
    vr, ve, out = rng.standard_normal(n_pp), rng.standard_normal(size), np.zeros(size)
    print(f"{n_rows} rows, {n_players} players, {n_pp} player-periods; the kernel built in {1e3 * built:.0f} ms")
    print("| threads | hessp_s (ms) | product (ms) | ratio | net (ms) | ratio |")
    print("|---|---|---|---|---|---|")
    for threads in (1, 0):
        base = median_ms(lambda: pairs.hessp_s(f_dd, vr, n_threads=threads))
        prod = median_ms(lambda: kernel.product(w, f_dd, f_d, vr, ve, n_threads=threads))
        net = median_ms(lambda: kernel.net(w, f_d, out, f_dd, ve, n_threads=threads))
        name = "1" if threads == 1 else f"default ({_core.max_threads()})"
        print(f"| {name} | {base:.1f} | {prod:.1f} | {prod / base:.2f} | {net:.1f} | {net / base:.2f} |", flush=True)


if __name__ == "__main__":
    main()
