"""Game logs beyond memory: out-of-core aggregation (``discrank.scan_games``), the same through a Dask
LocalCluster, fits with the kernel on the workers (``discrank.dask.fit``), and labels at scale.

    python bench/bench_outofcore.py                       # everything, 100 million games (about 15 minutes)
    python bench/bench_outofcore.py --games 10_000_000    # a tenth
    python bench/bench_outofcore.py --only fit            # the Dask fit at 40 000 players / 4.7 M games
    python bench/bench_outofcore.py --only dynamic        # the same for the dynamic model (52 periods)
    python bench/bench_outofcore.py --only labels         # 10 million string labels coded
    python bench/bench_outofcore.py --only periods        # games kept by week for the dynamic model
    python bench/bench_outofcore.py --only arena          # arena votes as JSON lines, CSV and Parquet

Sections (``--only``):

- ``scan``: writes ``--games`` simulated games as Parquet (10 million per file, int64 player ids, to
  ``--dir`` or a temporary directory removed at the end: generated, never committed); then, each in a
  fresh child process whose peak RSS is read from ``getrusage``: the in-memory aggregation of the first
  file (``GameLog.read_parquet(...).to_pairs()``), ``scan_games`` of the same file, and ``scan_games``
  of every file (``memory_limit="1GiB"``). It prints seconds per million games and the ratio of the full
  scan's rate to the in-memory one's, and checks that the scan of the first file equals the in-memory
  pairs.
- ``dask``: the first ``--dask-files`` files through a 2-worker LocalCluster (``discrank.dask.aggregate``
  of ``dask.dataframe.read_parquet``), checked equal to ``scan_games`` of the same files.
- ``fit``: 40 000 players and 4.7 million games (bench_scale.py's log); ``Elo(prior_scale=1)`` and
  ``DiscDecomposition(1, prior_scale=1)`` fitted in process and through a 2-worker LocalCluster (one
  thread each), alternately ``--repeats`` times (the workers' imports done before); the ratio of the
  median times and the largest difference of the predictions.
- ``dynamic``: the same games at times spread uniformly over ``--periods`` periods (52);
  ``DynamicElo(period=1, drift=0.1, prior_scale=1, variance_scale=1)`` (nothing tuned) in process and
  through the LocalCluster, as above.
- ``periods``: ``--period-games`` (20 million) games of the same log with a date (uniform over 2025,
  10 million per Parquet file, in a subdirectory); each step in a fresh child process: the in-memory
  ``PeriodGames.from_log(GameLog.read_parquet(first file), "week")``, ``scan_games(..., period="week")``
  of the first file (checked equal to it) and of every file, with seconds per million games, peak RSS
  and rows; then ``DynamicElo(period="week", drift=0.014, prior_scale=1, variance_scale=1)`` fitted on the
  first file's GameLog and on its PeriodGames (seconds, peak RSS, the largest rating difference).
- ``arena``: ``--arena-votes`` (2 million) arena votes among 300 models (``model_a, model_b, winner``,
  the winner "model_a", "model_b", "tie" or "tie (bothbad)", a model's chance of winning a decided vote
  ``sigmoid(s_a - s_b)``, a tenth of the votes ties and a twentieth both-bad ties, and a 40-character
  ``question_id`` column besides) written as JSON lines, CSV and Parquet (in a subdirectory); each in a
  fresh child process: ``read_arena(path, ties="one-win-each").to_pairs()`` and ``scan_games(path,
  a="model_a", b="model_b", winner="winner", ties="one-win-each")``, with seconds per million votes,
  peak RSS, and whether the two give the same pairs.
- ``labels``: 10 million distinct string labels ("player_00000001", ...) coded by the core's label
  table in chunks of a million, in a child process: the table's bytes per label, the child's peak RSS
  per label, and the seconds.

The simulated log: 40 000 players with strengths ``s ~ N(0, 0.6^2)``; player ``a`` is uniform, ``b`` is
one of the 200 players after ``a`` (mod 40 000), so that the pairs (at most 8 million) stay far fewer
than the games, as on a rated server; White wins with probability ``sigmoid(s_a - s_b)``, a tenth of
the games are draws.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

import discrank

PER_FILE = 10_000_000
PLAYERS = 40_000
WINDOW = 200


def write_games(directory: str, n_games: int, seed: int = 0, dated: bool = False) -> list[str]:
    """Parquet files of ``n_games`` simulated games (module docstring); ``dated``: with a column ``t`` of
    dates uniform over 2025, each file's sorted."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 0.6, PLAYERS)
    paths = []
    for f in range(-(-n_games // PER_FILE)):
        m = min(PER_FILE, n_games - f * PER_FILE)
        a = rng.integers(0, PLAYERS, m)
        b = (a + rng.integers(1, WINDOW + 1, m)) % PLAYERS
        u = rng.random(m)
        p = 1.0 / (1.0 + np.exp(-(s[a] - s[b])))
        score = np.where(u < 0.1, 0.5, np.where(u < 0.1 + 0.9 * p, 1.0, 0.0))
        path = os.path.join(directory, f"games{f:04d}.parquet")
        columns = {"a": a, "b": b, "score": score}
        if dated:
            columns["t"] = np.datetime64("2025-01-01") + np.sort(rng.integers(0, 365, m)).astype("timedelta64[D]")
        pq.write_table(pa.table(columns), path, row_group_size=1 << 20)
        paths.append(path)
    return paths


def child(code: str) -> dict:
    """Run ``code`` (which leaves its result in a dict ``res``) in a fresh interpreter; add its peak RSS."""
    tail = ("\nimport json, resource\nres['peak_rss_gib'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20"
            "\nprint(json.dumps(res))\n")
    out = subprocess.run([sys.executable, "-c", code + tail], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


IN_MEMORY = """
import json, time, discrank
t = time.perf_counter()
d = discrank.GameLog.read_parquet({path!r}, score="score").to_pairs()
res = dict(seconds=time.perf_counter() - t, pairs=d.n_pairs, players=d.n_players)
"""

SCAN = """
import json, time, discrank
t = time.perf_counter()
d = discrank.scan_games({paths!r}, score="score", memory_limit="1GiB", progress=False)
sec = time.perf_counter() - t
same = None
if {check!r}:
    ref = discrank.GameLog.read_parquet({paths!r}[0], score="score").to_pairs()
    same = bool(all((getattr(d, f) == getattr(ref, f)).all() for f in ("labels", "i", "j", "p", "n_games")))
res = dict(seconds=sec, pairs=d.n_pairs, players=d.n_players, same=same)
"""

LABELS = """
import json, time, numpy as np
from discrank.core import _core
n = {n}
t0 = time.perf_counter()
table = _core.LabelTable("str")
for start in range(0, n, 1_000_000):
    chunk = np.array(["player_%08d" % k for k in range(start, min(n, start + 1_000_000))], dtype=object)
    table.code_strings(chunk)
    del chunk
sec = time.perf_counter() - t0
t1 = time.perf_counter()
order = table.order(False)
sort_sec = time.perf_counter() - t1
res = dict(seconds=sec, sort_seconds=sort_sec, size=table.size, table_bytes=table.nbytes)
"""


PERIODS_IN_MEMORY = """
import time, discrank
t = time.perf_counter()
log = discrank.GameLog.read_parquet({path!r}, score="score", time="t")
d = discrank.PeriodGames.from_log(log, "week")
res = dict(seconds=time.perf_counter() - t, rows=len(d), games=d.n_games)
"""

PERIODS_SCAN = """
import time, numpy as np, discrank
t = time.perf_counter()
d = discrank.scan_games({paths!r}, score="score", time="t", period="week", memory_limit="1GiB", progress=False)
sec = time.perf_counter() - t
same = None
if {check!r}:
    ref = discrank.PeriodGames.from_log(discrank.GameLog.read_parquet({paths!r}[0], score="score", time="t"), "week")
    same = bool(all(np.array_equal(getattr(d, f), getattr(ref, f))
                    for f in ("labels", "a", "b", "bins", "games", "score", "draws")))
res = dict(seconds=sec, rows=len(d), games=d.n_games, players=d.labels.size, same=same)
"""

PERIODS_FIT = """
import time, numpy as np, discrank
if {summed!r}:
    log = discrank.scan_games({path!r}, score="score", time="t", period="week", progress=False)
else:
    log = discrank.GameLog.read_parquet({path!r}, score="score", time="t")
t = time.perf_counter()
m = discrank.DynamicElo(period="week", drift=0.014, prior_scale=1.0, variance_scale=1.0).fit(log)
res = dict(seconds=time.perf_counter() - t, n_iter=m.n_iter_, pp=m.pp_rating_.size)
np.save({out!r}, m.pp_rating_)
"""


def section_periods(args, directory: str) -> None:
    where = os.path.join(directory, "dated")
    os.makedirs(where, exist_ok=True)
    t = time.perf_counter()
    paths = sorted(os.path.join(where, f) for f in os.listdir(where) if f.endswith(".parquet"))
    if len(paths) * PER_FILE < args.period_games:
        paths = write_games(where, args.period_games, seed=2, dated=True)
        print(f"periods: wrote {args.period_games:,} dated games in {len(paths)} Parquet files in "
              f"{time.perf_counter() - t:.0f} s")
    n0 = __import__("pyarrow.parquet").parquet.ParquetFile(paths[0]).metadata.num_rows / 1e6
    n_all = sum(__import__("pyarrow.parquet").parquet.ParquetFile(p).metadata.num_rows for p in paths) / 1e6
    mem = child(PERIODS_IN_MEMORY.format(path=paths[0]))
    one = child(PERIODS_SCAN.format(paths=paths[:1], check=True))
    everything = child(PERIODS_SCAN.format(paths=paths, check=False))
    print(f"periods: games kept by week (period='week'), {n0:.0f} M games in the first file, {n_all:.0f} M in all")
    print(f"  in-memory PeriodGames.from_log(read_parquet), first file: {mem['seconds']:.1f} s = "
          f"{mem['seconds'] / n0:.2f} s per M games, peak RSS {mem['peak_rss_gib']:.2f} GiB, {mem['rows']:,} rows")
    print(f"  scan_games(period='week'), first file: {one['seconds']:.1f} s = {one['seconds'] / n0:.2f} s per M games, "
          f"peak RSS {one['peak_rss_gib']:.2f} GiB, equal to in-memory: {one['same']}")
    print(f"  scan_games(period='week'), all {len(paths)} files: {everything['seconds']:.1f} s = "
          f"{everything['seconds'] / n_all:.2f} s per M games, peak RSS {everything['peak_rss_gib']:.2f} GiB, "
          f"{everything['rows']:,} rows for {everything['games']:,.0f} games "
          f"({everything['rows'] / everything['games']:.2f} rows a game), {everything['players']:,} players")
    fits = {}
    for summed in (False, True):
        out = os.path.join(where, f"ratings{int(summed)}.npy")
        fits[summed] = child(PERIODS_FIT.format(path=paths[0], summed=summed, out=out))
        fits[summed]["r"] = np.load(out)
    g, s = fits[False], fits[True]
    print(f"  DynamicElo(period='week', drift=0.014, prior_scale=1), first file ({g['pp']:,} player-periods, "
          f"{g['n_iter']} Newton steps): on the GameLog {g['seconds']:.1f} s (peak RSS {g['peak_rss_gib']:.2f} GiB), "
          f"on the scan's PeriodGames {s['seconds']:.1f} s (peak RSS {s['peak_rss_gib']:.2f} GiB); reading not timed; "
          f"largest rating difference {np.abs(g['r'] - s['r']).max():.1e}")


ARENA = """
import time, numpy as np, discrank
t = time.perf_counter()
if {scan!r}:
    d = discrank.scan_games({path!r}, a="model_a", b="model_b", winner="winner", ties="one-win-each", progress=False)
else:
    d = discrank.read_arena({path!r}, ties="one-win-each").to_pairs()
res = dict(seconds=time.perf_counter() - t, pairs=d.n_pairs, games=float(d.n_games.sum()))
np.savez({out!r}, labels=d.labels.astype(str), i=d.i, j=d.j, p=d.p, n=d.n_games)
"""


def write_votes(where: str, n_votes: int, seed: int = 3) -> list[str]:
    """The arena votes of ``--only arena`` (module docstring) as JSON lines, CSV and Parquet files."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    n_models = 300
    s = rng.normal(0.0, 1.0, n_models)
    a = rng.integers(0, n_models, n_votes)
    b = (a + rng.integers(1, n_models, n_votes)) % n_models
    u = rng.random(n_votes)
    win = rng.random(n_votes) < 1.0 / (1.0 + np.exp(-(s[a] - s[b])))
    winner = np.where(u < 0.05, "tie (bothbad)", np.where(u < 0.15, "tie", np.where(win, "model_a", "model_b")))
    names = np.array([f"model-{k:03d}" for k in range(n_models)], dtype=object)
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner,
                          "question_id": [f"{k:040x}" for k in rng.integers(0, 2**62, n_votes)]})
    paths = [os.path.join(where, f"votes.{ext}") for ext in ("jsonl", "csv", "parquet")]
    frame.to_json(paths[0], orient="records", lines=True)
    frame.to_csv(paths[1], index=False)
    frame.to_parquet(paths[2])
    return paths


def section_arena(args, directory: str) -> None:
    where = os.path.join(directory, "arena")
    os.makedirs(where, exist_ok=True)
    t = time.perf_counter()
    here = os.path.dirname(os.path.abspath(__file__))  # written in a child: the peak RSS below is the readers' own
    paths = child(f"import sys\nsys.path.insert(0, {here!r})\nimport bench_outofcore\n"
                  f"res = dict(paths=bench_outofcore.write_votes({where!r}, {args.arena_votes}))")["paths"]
    n = args.arena_votes / 1e6
    print(f"arena: wrote {args.arena_votes:,} votes among 300 models as JSON lines, CSV and Parquet in "
          f"{time.perf_counter() - t:.0f} s (ties='one-win-each' below)")
    for path in paths:
        got = {}
        for scan in (False, True):
            out = os.path.join(where, f"pairs{int(scan)}.npz")
            got[scan] = child(ARENA.format(path=path, scan=scan, out=out))
            got[scan]["d"] = dict(np.load(out))
        same = all(np.array_equal(got[False]["d"][f], got[True]["d"][f]) for f in ("labels", "i", "j", "p", "n"))
        size = os.path.getsize(path) / 2**20
        print(f"  {os.path.basename(path)} ({size:.0f} MiB): " + "; ".join(
            f"{name} {r['seconds']:.1f} s = {r['seconds'] / n:.2f} s per M votes, peak RSS {r['peak_rss_gib']:.2f} GiB"
            for name, r in (("read_arena().to_pairs()", got[False]), ("scan_games", got[True])))
            + f"; {got[True]['pairs']:,} pairs, {got[True]['games']:,.0f} games; the same pairs: {same}")


def section_scan(args, directory: str) -> None:
    t = time.perf_counter()
    paths = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".parquet"))
    if len(paths) * PER_FILE < args.games:
        paths = write_games(directory, args.games)
        print(f"wrote {args.games:,} games in {len(paths)} Parquet files in {time.perf_counter() - t:.0f} s "
              f"({sum(os.path.getsize(p) for p in paths) / 2**30:.2f} GiB)")
    per_file = [int(__import__("pyarrow.parquet").parquet.ParquetFile(p).metadata.num_rows) for p in paths]
    mem = child(IN_MEMORY.format(path=paths[0]))
    one = child(SCAN.format(paths=paths[:1], check=True))
    everything = child(SCAN.format(paths=paths, check=False))
    n0, n_all = per_file[0] / 1e6, sum(per_file) / 1e6
    print(f"in-memory, first file ({n0:.0f} M games): {mem['seconds']:.1f} s = {mem['seconds'] / n0:.2f} s per M games, "
          f"peak RSS {mem['peak_rss_gib']:.2f} GiB, {mem['pairs']:,} pairs")
    print(f"scan_games, first file: {one['seconds']:.1f} s = {one['seconds'] / n0:.2f} s per M games, "
          f"equal to in-memory: {one['same']}")
    print(f"scan_games, all {len(paths)} files ({n_all:.0f} M games): {everything['seconds']:.1f} s = "
          f"{everything['seconds'] / n_all:.2f} s per M games, peak RSS {everything['peak_rss_gib']:.2f} GiB, "
          f"{everything['pairs']:,} pairs, {everything['players']:,} players")
    ratio = (everything["seconds"] / n_all) / (mem["seconds"] / n0)
    print(f"ratio, full scan per game / in-memory per game: {ratio:.2f}x (target <= 2x); peak RSS target < 2 GiB: "
          f"{'met' if everything['peak_rss_gib'] < 2 else 'missed'}")


def _cluster():
    from distributed import Client, LocalCluster

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=50)
        return cluster, Client(cluster)


def section_dask(args, directory: str) -> None:
    import dask.dataframe as dd

    import discrank.dask as ddk

    paths = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".parquet"))
    if not paths:
        paths = write_games(directory, args.dask_files * PER_FILE)
    paths = paths[: args.dask_files]
    cluster, client = _cluster()
    try:
        t = time.perf_counter()
        got = ddk.aggregate(dd.read_parquet(paths), score="score")
        sec = time.perf_counter() - t
    finally:
        client.close()
        cluster.close()
    t = time.perf_counter()
    ref = discrank.scan_games(paths, score="score", progress=False)
    scan_sec = time.perf_counter() - t
    same = all(np.array_equal(getattr(got, f), getattr(ref, f)) for f in ("labels", "i", "j", "p", "n_games"))
    n = len(paths) * PER_FILE / 1e6
    print(f"dask aggregate, 2 workers, {n:.0f} M games: {sec:.1f} s = {sec / n:.2f} s per M games; scan_games in "
          f"this process {scan_sec:.1f} s; equal: {same}")


def section_fit(args) -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_scale import simulate

    a, b, score = simulate(args.players, args.fit_games, 0)
    data = discrank.PairwiseData.from_games(a, b, score)
    print(f"fit: {data.n_players:,} players, {args.fit_games:,} games, {data.n_pairs:,} pairs")
    cluster, client = _cluster()
    try:
        client.run(lambda: __import__("discrank.dask"))  # the workers' imports are not the fit's
        for make in (lambda: discrank.Elo(prior_scale=1.0),
                     lambda: discrank.DiscDecomposition(1, prior_scale=1.0, random_state=0)):
            ref, got, local, remote, spread = _alternate(make, data, client, args.repeats)
            pa, pb = data.labels[data.i], data.labels[data.j]
            mine, theirs = got.predict_proba(pa, pb), ref.predict_proba(pa, pb)
            diff = np.abs(mine - theirs).max()
            name = type(ref).__name__
            print(f"  {name}: in process {local:.2f} s, 2-worker LocalCluster {remote:.2f} s ({got.dask_calls_} kernel "
                  f"calls), ratio {remote / local:.2f}x (target <= 3x); predictions of every pair equal: "
                  f"{np.array_equal(mine, theirs)} (largest difference {diff:.1e})"
                  f"\n    ({spread})")
    finally:
        client.close()
        cluster.close()


def _alternate(make, data, client, repeats: int):
    """``make()`` fitted on ``data`` in process and through ``client``, alternately ``repeats`` times (a
    noisy 2-core machine): the last fits, the median seconds of each, and every run's seconds with the
    Dask fits' parts (building the parts on the workers, their first call, the other calls)."""
    import discrank.dask as ddk

    phases: list = []
    build, call = ddk.PartGroup.__init__, ddk.PartGroup.call

    def timed_build(self, *a, **kw):
        t = time.perf_counter()
        build(self, *a, **kw)
        phases.append(("build", time.perf_counter() - t))

    def timed_call(self, *a, **kw):
        t = time.perf_counter()
        out = call(self, *a, **kw)
        phases.append(("call", time.perf_counter() - t))
        return out

    local, remote, parts = [], [], []
    ddk.PartGroup.__init__, ddk.PartGroup.call = timed_build, timed_call
    try:
        for _ in range(repeats):
            t = time.perf_counter()
            ref = make().fit(data)
            local.append(time.perf_counter() - t)
            phases.clear()
            t = time.perf_counter()
            got = ddk.fit(make(), data, client)
            remote.append(time.perf_counter() - t)
            calls = [x for kind, x in phases if kind == "call"]
            parts.append((sum(x for kind, x in phases if kind == "build"), calls[0], sum(calls[1:])))
    finally:
        ddk.PartGroup.__init__, ddk.PartGroup.call = build, call
    spread = (f"runs in process {' '.join(f'{x:.2f}' for x in local)}, "
              f"on the cluster {' '.join(f'{x:.2f}' for x in remote)}; of these, building the parts "
              f"{' '.join(f'{b:.2f}' for b, _, _ in parts)}, the first call {' '.join(f'{c:.2f}' for _, c, _ in parts)},"
              f" the other calls {' '.join(f'{r:.2f}' for _, _, r in parts)}")
    return ref, got, float(np.median(local)), float(np.median(remote)), spread


def section_dynamic(args) -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_scale import simulate

    a, b, score = simulate(args.players, args.fit_games, 0)
    t = np.sort(np.random.default_rng(1).integers(0, args.periods, a.size)).astype(np.float64)
    log = discrank.GameLog.from_arrays(a, b, score, t)
    print(f"dynamic: {args.players:,} players, {a.size:,} games over {args.periods} periods")

    def make():
        return discrank.DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0)

    cluster, client = _cluster()
    try:
        client.run(lambda: __import__("discrank.dask"))
        ref, got, local, remote, spread = _alternate(make, log, client, args.repeats)
    finally:
        client.close()
        cluster.close()
    print(f"  DynamicElo(period=1, drift=0.1, prior_scale=1): {ref.pp_rating_.size:,} player-periods, {ref.n_iter_} "
          f"Newton steps, {ref.n_cg_} CG steps; in process {local:.2f} s, 2-worker LocalCluster {remote:.2f} s "
          f"({got.dask_calls_} calls), ratio {remote / local:.2f}x (target <= 3x); largest rating difference "
          f"{np.abs(got.pp_rating_ - ref.pp_rating_).max():.1e} (tol {ref.tol:g})\n    ({spread})")


def section_labels(args) -> None:
    res = child(LABELS.format(n=args.labels))
    n = res["size"]
    print(f"labels: {n:,} distinct strings of 15 characters coded in {res['seconds']:.1f} s "
          f"({res['seconds'] / n * 1e9:.0f} ns per label, chunks built in Python included), sorted in "
          f"{res['sort_seconds']:.1f} s; the table holds {res['table_bytes'] / n:.0f} bytes per label; the child's "
          f"peak RSS {res['peak_rss_gib']:.2f} GiB = {res['peak_rss_gib'] * 2**30 / n:.0f} bytes per label")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("scan", "dask", "fit", "dynamic", "periods", "arena", "labels"))
    parser.add_argument("--games", type=int, default=100_000_000)
    parser.add_argument("--dask-files", type=int, default=2, help="files (10 M games each) through Dask")
    parser.add_argument("--players", type=int, default=40_000)
    parser.add_argument("--fit-games", type=int, default=4_700_000)
    parser.add_argument("--labels", type=int, default=10_000_000)
    parser.add_argument("--period-games", type=int, default=20_000_000, help="dated games of --only periods")
    parser.add_argument("--periods", type=int, default=52, help="periods of the dynamic section's games")
    parser.add_argument("--arena-votes", type=int, default=2_000_000, help="votes of --only arena")
    parser.add_argument("--repeats", type=int, default=3, help="fits of each kind in --only fit (the median)")
    parser.add_argument("--dir", help="where the Parquet files are (or go); default a temporary directory")
    args = parser.parse_args()
    print(f"discrank {discrank.__version__}, Python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} cores")
    directory = args.dir or tempfile.mkdtemp(prefix="discrank-bench-")
    os.makedirs(directory, exist_ok=True)
    try:
        if args.only in (None, "scan"):
            section_scan(args, directory)
        if args.only in (None, "dask"):
            section_dask(args, directory)
        if args.only in (None, "fit"):
            section_fit(args)
        if args.only in (None, "dynamic"):
            section_dynamic(args)
        if args.only in (None, "periods"):
            section_periods(args, directory)
        if args.only in (None, "arena"):
            section_arena(args, directory)
        if args.only in (None, "labels"):
            section_labels(args)
    finally:
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
