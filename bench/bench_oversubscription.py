"""Two fits at once on a 2-core machine: OpenMP's spin-waiting against OMP_WAIT_POLICY=PASSIVE.

    python bench/bench_oversubscription.py

Runs the same small fit (Table 1's quick workload) alone and as two concurrent processes, once with
OMP_WAIT_POLICY=ACTIVE (OpenMP's spinning threads) and once with PASSIVE (sleeping threads, what the
core uses unless the user sets the variable), and prints the wall times and their ratio
to the fit alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMAND = [sys.executable, str(HERE / "reproduce.py"), "--quick", "--only", "table1"]


def timed(n_procs: int, policy: str) -> float:
    env = dict(os.environ, OMP_WAIT_POLICY=policy)
    t0 = time.perf_counter()
    procs = [subprocess.Popen(COMMAND, env=env, stdout=subprocess.DEVNULL, cwd=HERE) for _ in range(n_procs)]
    for p in procs:
        if p.wait() != 0:
            raise RuntimeError("the fit failed")
    return time.perf_counter() - t0


def main() -> None:
    print(f"{os.cpu_count()} CPUs; wall time of Table 1's quick fits (s)")
    for policy in ("ACTIVE", "PASSIVE"):
        alone = timed(1, policy)
        both = timed(2, policy)
        print(f"  OMP_WAIT_POLICY={policy:<8} alone {alone:6.2f}   two at once {both:6.2f}   ratio {both / alone:5.2f}")


if __name__ == "__main__":
    main()
