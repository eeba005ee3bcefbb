"""Seconds of ``discrank arena`` end to end (read the file, fit, print, write the CSV and PNG files)
against ``discrank.arena_board`` alone on the same votes already in memory.

    python bench/bench_arena_cli.py            # 200 000 votes, 60 models, 4 style features, 3 categories
    python bench/bench_arena_cli.py --quick    # 20 000 votes, 100 bootstrap replicates

The votes: models of known strengths sampled with a skew (the first models in more votes), ties and
both-bad ties, four style features given as ``NAME_a`` / ``NAME_b`` columns (their normalised
difference is the feature), a category column, written once as Parquet and as CSV in a temporary
folder. A first run on 2 000 votes loads the modules (untimed); then each row runs once (the times
include pandas' reading and matplotlib's drawing: each category's board draws its own forest plot).
``--threads`` sets ``OMP_NUM_THREADS`` (default: unset, all cores).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
from pathlib import Path

import numpy as np


def votes(m: int, n: int, seed: int = 0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    weight = 1.0 / np.arange(1, n + 1) ** 0.5
    a = rng.choice(n, m, p=weight / weight.sum())
    b = (a + rng.integers(1, n, m)) % n
    skill = np.linspace(1.5, -1.5, n)
    cols, d = {}, skill[a] - skill[b]
    for k, (name, effect) in enumerate([("len", 0.8), ("header", 0.2), ("list", 0.1), ("bold", 0.1)]):
        za, zb = rng.integers(1, 1000, m), rng.integers(1, 1000, m)
        cols[f"{name}_a"], cols[f"{name}_b"] = za, zb
        d = d + effect * (za - zb) / (za + zb)
    u = rng.random(m)
    winner = np.where(u < 0.1, "tie", np.where(u < 0.13, "tie (bothbad)",
                                               np.where(rng.random(m) < 1 / (1 + np.exp(-d)), "model_a", "model_b")))
    names = np.array([f"model-{k:02d}" for k in range(n)])
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, **cols,
                         "lang": rng.choice(["en", "zh", "de"], m)})


def timed(fn) -> float:
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int)
    args = parser.parse_args()
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import discrank
    from discrank.cli import main as cli

    m, boots = (20_000, 100) if args.quick else (200_000, 1000)
    df = votes(m, 60)
    style = "len,header,list,bold"
    print(f"{m} votes, 60 models, style {style}, 3 categories; {os.cpu_count()} cores")
    print(f"{'run':<44}{'discrank arena':>16}{'arena_board':>14}")
    with tempfile.TemporaryDirectory() as folder:
        for suffix in (".parquet", ".csv"):
            path = Path(folder) / f"votes{suffix}"
            df.to_parquet(path) if suffix == ".parquet" else df.to_csv(path, index=False)
        out = str(Path(folder) / "board")
        df.iloc[:2000].to_csv(Path(folder) / "warm.csv", index=False)
        timed(lambda: cli(["arena", str(Path(folder) / "warm.csv"), "--out", out]))  # imports, not timed
        runs = [("parquet, sandwich", "votes.parquet", ["--ci", "sandwich"], {}),
                ("csv, sandwich", "votes.csv", ["--ci", "sandwich"], {}),
                ("parquet, sandwich, style", "votes.parquet", ["--style", style], dict(style=style)),
                (f"parquet, bootstrap {boots}, style", "votes.parquet",
                 ["--style", style, "--ci", "bootstrap", "--n-boot", str(boots)],
                 dict(style=style, ci="bootstrap", n_boot=boots)),
                ("parquet, sandwich, style, category", "votes.parquet", ["--style", style, "--category", "lang"],
                 dict(style=style, category="lang"))]
        for name, file, flags, kwargs in runs:
            path = str(Path(folder) / file)
            status = []
            cli_s = timed(lambda: status.append(cli(["arena", path, "--out", out, *flags])))
            assert status == [0], f"{name}: exit status {status}"
            board_s = timed(lambda: discrank.arena_board(df, **kwargs))
            print(f"{name:<44}{cli_s:>14.2f} s{board_s:>12.2f} s")


if __name__ == "__main__":
    main()
