"""Nanoseconds per observed pair of the C++ objective, by loss, gradient blocks and threads, and the
share of a measured limit.

    python bench/bench_kernel.py                   # 40 000 players, 4.7 million pairs
    python bench/bench_kernel.py --quick           # 2 000 players, 200 000 pairs
    python bench/bench_kernel.py --threads 1,2,4,8,16
    python bench/bench_kernel.py --players 1000000 --draws 5000000   # sparse: the gather way

Random unordered pairs (each once), random targets in {0, 1/2, 1}, random factors. The calls are made in
rounds (``--rounds``, default 9): each round times the limit and every case once, at every thread count,
so that the machine's slow swings (20-30% here) hit all of them alike. A time is the median over the
rounds; a share is the median over the rounds of (the round's limit time / the round's case time).
"probability" needs no exp or log: its time is the memory and indexing cost of a pass.

The limit: ``PairObjective.stream_limit`` streams the same pair arrays (i, j, y, w) through the same
vectorised loss code (one exp and one log1p per pair, the compensated block sums), with the score
computed from i and j instead of gathered from the parameters and no gradient spread: what a pass
costs without the model's random accesses. "share" = limit time / kernel time for the bce cases.

What the fits call: Elo's Newton solver "Elo, loss + gradient" (with the curvature), on the pairs
sorted by (i, j) as PairwiseData holds them; the disc joint solver "disc k=1, loss + gradient u, v",
with the earlier components' scores as an offset for the second and later components, on the pairs in
tile order (``_core.tile_pairs``: stable by the second player's tile of 2048 players, the order the
disc fits pass them in). Algorithm 2 fits one component at a time, so no fit calls the k = 2 case; it
is measured for users who evaluate several components at once, in both orders. The last line times
``_core.tile_pairs`` (i, j, y, w moved into tile order), done once per disc fit.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from discrank.core import _core
def seconds(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=9, help="rounds of calls (default 9)")
    parser.add_argument("--players", type=int, help="players (default 40 000; 2 000 with --quick)")
    parser.add_argument("--draws", type=int, help="pairs drawn before duplicates are merged (default 4.7 M)")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    n, draws = (2_000, 200_000) if args.quick else (40_000, 4_700_000)
    n, draws = args.players or n, args.draws or draws
    rng = np.random.default_rng(0)
    a = rng.integers(0, n, draws)
    b = (a + rng.integers(1, n, draws)) % n
    key = np.unique(np.minimum(a, b) * n + np.maximum(a, b))
    i, j = (key // n).astype(np.int32), (key % n).astype(np.int32)
    m = i.size
    y = rng.choice([0.0, 0.5, 1.0], m)
    w = np.full(m, 1.0 / m)
    obj = _core.PairObjective(n, i, j, y, w)
    it, jt, (yt, wt) = _core.tile_pairs(n, i, j, [y, w])  # the disc fits' order (discrank.solvers._fitdata)
    tiled = _core.PairObjective(n, it, jt, yt, wt)
    s = rng.normal(size=n)
    U1, V1 = rng.normal(size=(n, 1)), rng.normal(size=(n, 1))
    U2, V2 = rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    offset = rng.normal(size=m)  # the earlier components' scores, per pair
    cases = [  # (name, objective, arguments)
        ("Elo, bce, loss only", obj, dict(loss=0, s=s)),
        ("Elo, bce, loss + gradient", obj, dict(loss=0, s=s, grad_s=True)),
        ("disc k=1, bce, loss only", tiled, dict(loss=0, U=U1, V=V1)),
        ("disc k=1, bce, loss + gradient u", tiled, dict(loss=0, U=U1, V=V1, grad_u=True)),
        ("disc k=1, bce, loss + gradient u, v", tiled, dict(loss=0, U=U1, V=V1, grad_u=True, grad_v=True)),
        ("  same, with an offset (later component)", tiled, dict(loss=0, U=U1, V=V1, grad_u=True, grad_v=True,
                                                                 offset=offset)),
        ("  same, pairs in (i, j) order", obj, dict(loss=0, U=U1, V=V1, grad_u=True, grad_v=True, offset=offset)),
        ("disc k=2, bce, loss + gradient u, v", tiled, dict(loss=0, U=U2, V=V2, grad_u=True, grad_v=True)),
        ("  same, pairs in (i, j) order", obj, dict(loss=0, U=U2, V=V2, grad_u=True, grad_v=True)),
        ("disc k=1, probability, loss only", tiled, dict(loss=2, U=U1, V=V1)),
    ]
    calls = [("limit: bce stream, no gather/scatter", lambda t: obj.stream_limit(0, n_threads=t), False)]
    calls += [(name, lambda t, f=target.evaluate, kw=kw: f(n_threads=t, **kw), kw["loss"] == 0)
              for name, target, kw in cases]
    for _, fn, _ in calls:  # warm up: first touches of the scratch buffers
        for t in threads:
            fn(t)
    times = np.zeros((args.rounds, len(calls), len(threads)))
    for r in range(args.rounds):
        for c, (_, fn, _) in enumerate(calls):
            for k, t in enumerate(threads):
                times[r, c, k] = seconds(lambda: fn(t))
    ns = np.median(times, axis=0) / m * 1e9
    share = np.median(times[:, :1, :] / times, axis=0)
    print(f"{n} players, {m} pairs, strategy {obj.strategy}; ns per pair (median of {args.rounds} rounds); "
          "speed-up over 1 thread in brackets; share of the measured limit")
    print(f"{'case':<40}" + "".join(f"{f'{t} thr':>24}" for t in threads))
    for c, (name, _, bce) in enumerate(calls):
        print(f"{name:<40}" + "".join(
            f"{ns[c, k]:>8.1f} ({ns[c, 0] / ns[c, k]:4.1f}x) " + (f"{share[c, k]:>6.0%} " if bce and c else " " * 7)
            for k in range(len(threads))))
    tile = np.array([[seconds(lambda: _core.tile_pairs(n, i, j, [y, w], n_threads=t)) for t in threads]
                     for _ in range(args.rounds)])
    tile_ns = np.median(tile, axis=0) / m * 1e9
    print(f"{'moving the pairs into tile order':<40}" + "".join(
        f"{x:>8.1f} ({tile_ns[0] / x:4.1f}x)        " for x in tile_ns))
    elo = [name for name, _, _ in calls].index("Elo, bce, loss + gradient")
    print("million pairs per second per thread, Elo loss + gradient: " + ", ".join(
        f"{t} thr {1e3 / ns[elo, k] / t:.0f}" for k, t in enumerate(threads)))


if __name__ == "__main__":
    main()
