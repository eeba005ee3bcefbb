"""Milliseconds of the core's graph pieces against scipy.sparse.csgraph on the same pairs.

    python bench/bench_pieces.py            # 40 000 players, 4.7 million pairs; 1 million players, 2 million pairs
    python bench/bench_pieces.py --quick    # 2 000 players, 200 000 pairs

- connected pieces of the comparison graph: ``_core.connected_pieces`` (union-find, stops after n - 1
  joins) against ``connected_components(connection="weak")`` on a CSR matrix built from (i, j);
- strong pieces of the beat graph (a -> b when a scored against b): ``_core.beat_pieces`` (iterative
  Tarjan) against ``connected_components(directed=True, connection="strong")`` on the matrix of the
  beat edges.

scipy's times include building its matrix from the pair arrays (``csr_matrix((data, (i, j)))``), as
a caller would have to. Random unordered pairs (each once) of the game model of bench_kernel.py,
targets in {0, 1/2, 1}. Each time is the best of ``--rounds`` (default 5). Both give the same
partitions (checked).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from discrank.core import _core
def best(fn, rounds: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3, out


def scipy_weak(n, i, j):
    graph = csr_matrix((np.ones(i.size, dtype=np.int8), (i, j)), shape=(n, n))
    return connected_components(graph, directed=False)


def scipy_strong(n, i, j, p):
    fwd, back = p > 0.0, p < 1.0  # i -> j when i scored, j -> i when j scored
    src = np.concatenate([i[fwd], j[back]])
    dst = np.concatenate([j[fwd], i[back]])
    graph = csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    return connected_components(graph, directed=True, connection="strong")


def same_partition(a, b) -> bool:
    # equal up to the numbering of the pieces: the map piece of a -> piece of b is one-to-one
    pairs = np.unique(np.stack([a, b]), axis=1)
    return np.unique(pairs[0]).size == pairs.shape[1] == np.unique(pairs[1]).size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sizes = [(2_000, 200_000)] if args.quick else [(40_000, 4_700_000), (1_000_000, 2_000_000)]
    rng = np.random.default_rng(0)
    print(f"{'players':>9} {'pairs':>9}  {'connected: core':>16} {'scipy':>8}  {'strong: core':>13} {'scipy':>8}  (ms)")
    for n, draws in sizes:
        a = rng.integers(0, n, draws)
        b = (a + rng.integers(1, n, draws)) % n
        key = np.unique(np.minimum(a, b) * n + np.maximum(a, b))
        i, j = (key // n).astype(np.int32), (key % n).astype(np.int32)
        p = rng.choice([0.0, 0.5, 1.0], i.size)
        t_core_w, (c1, piece1) = best(lambda: _core.connected_pieces(n, i, j), args.rounds)
        t_scipy_w, (c2, piece2) = best(lambda: scipy_weak(n, i, j), args.rounds)
        t_core_s, (c3, strong1) = best(lambda: _core.beat_pieces(n, i, j, p), args.rounds)
        t_scipy_s, (c4, strong2) = best(lambda: scipy_strong(n, i, j, p), args.rounds)
        assert c1 == c2 and np.array_equal(piece1, piece2)
        assert c3 == c4 and same_partition(strong1, strong2)
        print(f"{n:>9} {i.size:>9}  {t_core_w:>16.1f} {t_scipy_w:>8.1f}  {t_core_s:>13.1f} {t_scipy_s:>8.1f}")


if __name__ == "__main__":
    main()
