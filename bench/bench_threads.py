"""Thread scaling of discrank at the paper's Lichess scale: the kernel, the aggregation and whole fits.

    python bench/bench_threads.py                      # 1, 2, 4, ... up to the machine's cores
    python bench/bench_threads.py --threads 1,2,4,8,16
    python bench/bench_threads.py --quick              # 2 000 players, 235 000 games

One seeded log of 40 000 players and 4.7 million games (bench_scale.py's: an Elo game plus a disc
game per pair of players). Each thread count runs in a fresh process with ``OMP_NUM_THREADS`` set
(so the aggregation, which takes the OpenMP default, uses it too) and ``n_jobs`` set on the models:

- kernel: ns per observed pair of one call of the objective (median of 7): Elo loss + gradient on the
  pairs sorted by (i, j), disc k = 1 loss + gradient in u and v on the pairs in tile order (each in
  the order its fit uses; discrank.solvers._fitdata.in_tile_order);
- aggregation: ``PairwiseData.from_games`` on the raw log (best of 3);
- fits: ``Elo(prior_scale=inf)`` and ``DiscDecomposition(n_components=1, prior_scale=inf)`` (the maximum-likelihood problems, seed 0), wall time.

"speed-up" is against 1 thread in the same run; "max |diff|" is the largest difference of the ratings
(Elo) or of the predicted logits on the observed pairs (disc) from the 1-thread fit: the contract is
the same result for any thread count to 1e-10 (tests/test_reliability.py checks 1-4 threads).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def simulate(n_players: int, n_games: int, seed: int = 0):
    sys.path.insert(0, HERE)
    from bench_scale import simulate as sim

    return sim(n_players, n_games, seed)


def child(threads: int, n: int, games: int, out_dir: str) -> None:
    from discrank import DiscDecomposition, Elo, PairwiseData
    from discrank.core import _core
    from discrank.solvers._fitdata import in_tile_order

    a, b, score = simulate(n, games)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        data = PairwiseData.from_games(a, b, score)
        times.append(time.perf_counter() - t0)
    res = {"aggregate": min(times), "pairs": data.n_pairs}

    w = data.pair_weights() / data.pair_weights().sum()
    obj = _core.PairObjective(data.n_players, data.i, data.j, data.p, w)
    tiled, wt = in_tile_order(data, w, threads)
    obj_tiled = _core.PairObjective(data.n_players, tiled.i, tiled.j, tiled.p, wt)
    rng = np.random.default_rng(0)
    s = rng.normal(size=n)
    U, V = rng.normal(size=(n, 1)), rng.normal(size=(n, 1))
    for name, target, kw in (("kernel_elo", obj, dict(s=s, grad_s=True)),
                             ("kernel_disc", obj_tiled, dict(U=U, V=V, grad_u=True, grad_v=True))):
        target.evaluate(0, n_threads=threads, **kw)
        ts = []
        for _ in range(7):
            t0 = time.perf_counter()
            target.evaluate(0, n_threads=threads, **kw)
            ts.append(time.perf_counter() - t0)
        res[name] = float(np.median(ts)) / data.n_pairs * 1e9

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        elo = Elo(prior_scale=np.inf, n_jobs=threads).fit(data)
        res["fit_elo"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        disc = DiscDecomposition(n_components=1, prior_scale=np.inf, random_state=0, n_jobs=threads).fit(data)
        res["fit_disc"] = time.perf_counter() - t0
    res["elo_converged"] = bool(elo.converged_)
    res["disc_converged"] = bool(np.all(disc.converged_))
    np.save(os.path.join(out_dir, f"elo_{threads}.npy"), elo.ratings_)
    logits = _core.scores(data.i, data.j, data.n_players, n_threads=1, **disc._factors())
    np.save(os.path.join(out_dir, f"disc_{threads}.npy"), logits)
    print(json.dumps(res))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cores = os.cpu_count() or 1
    default = ",".join(str(1 << k) for k in range(cores.bit_length()) if (1 << k) <= cores)
    parser.add_argument("--threads", default=default, help=f"comma-separated thread counts (default {default})")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    n, games = (2_000, 235_000) if args.quick else (40_000, 4_700_000)
    if args.child is not None:
        child(args.child, n, games, args.out)
        return

    import discrank

    threads = [int(t) for t in args.threads.split(",")]
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"discrank {discrank.__version__}, numpy {np.__version__}, Python {platform.python_version()}; "
          f"{cores} CPUs ({cpu})")
    print(f"{n} players, {games} games; each thread count in a fresh process\n")
    rows = {}
    with tempfile.TemporaryDirectory() as out:
        for t in threads:
            env = dict(os.environ, OMP_NUM_THREADS=str(t))
            proc = subprocess.run([sys.executable, __file__, "--child", str(t), "--out", out]
                                  + (["--quick"] if args.quick else []),
                                  env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stdout, proc.stderr)
                raise SystemExit(f"the {t}-thread run failed")
            rows[t] = json.loads(proc.stdout.strip().splitlines()[-1])
            base = threads[0]
            rows[t]["elo_diff"] = float(np.max(np.abs(np.load(f"{out}/elo_{t}.npy") - np.load(f"{out}/elo_{base}.npy"))))
            rows[t]["disc_diff"] = float(np.max(np.abs(np.load(f"{out}/disc_{t}.npy") - np.load(f"{out}/disc_{base}.npy"))))
    first = rows[threads[0]]
    print(f"observed pairs: {first['pairs']}")
    cols = [("kernel_elo", "Elo kernel ns/pair"), ("kernel_disc", "disc k=1 kernel ns/pair"),
            ("aggregate", "aggregation s"), ("fit_elo", "Elo fit s"), ("fit_disc", "disc k=1 fit s")]
    print(f"{'threads':>7}" + "".join(f"{title:>26}" for _, title in cols) + f"{'max |diff| Elo':>16}{'disc':>10}")
    for t in threads:
        r = rows[t]
        cells = "".join(f"{r[key]:>17.3g} ({first[key] / r[key]:4.1f}x)" for key, _ in cols)
        flags = "" if r["elo_converged"] and r["disc_converged"] else "  (not converged)"
        print(f"{t:>7}" + cells + f"{r['elo_diff']:>16.1e}{r['disc_diff']:>10.1e}{flags}")


if __name__ == "__main__":
    main()
