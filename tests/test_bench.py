"""The bench scripts run (quick mode) and their numbers agree with each other."""

import functools
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def run(script):
    proc = subprocess.run([sys.executable, str(BENCH / script), "--quick"], capture_output=True, text=True,
                          timeout=300, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@functools.lru_cache(maxsize=None)
def tuning_quick():
    # bench_tuning.py --quick, run once for the two tests that read its comparisons
    return run("bench_tuning.py")


def rows(out, first_column_width):
    return {line[:first_column_width].strip(): line[first_column_width:].split() for line in out.splitlines()}


def test_scale_bench_elo_reaches_the_tight_numpy_optimum():
    table = rows(run("bench_scale.py"), 38)
    tight = table["numpy BT (ftol=0, gtol=1e-12/pairs)"]
    elo = table["discrank Elo"]
    disc = table["discrank disc k=1"]
    assert elo[6] == "True" and disc[6] == "True"
    assert abs(float(elo[7]) - float(tight[7])) < 1e-10
    assert float(disc[7]) < float(elo[7])  # two parameters per player fit the cyclic part


def test_solver_bench_joint_converges():
    out = run("bench_solvers.py")
    joint = [line.split() for line in out.splitlines() if " joint " in line]
    assert len(joint) == 3 and all("True" in r for r in joint)


@pytest.mark.data()  # reproduce.py reads $DISCRANK_DATA, else ../shared/data, and skips the real games without it
def test_reproduction_quick_mode_shows_the_papers_claims(tmp_path):
    proc = subprocess.run([sys.executable, str(BENCH / "reproduce.py"), "--quick", "--figures", str(tmp_path)],
                          capture_output=True, text=True, timeout=600, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    elo_row = next(line for line in lines if line.startswith("| stationary Elo"))
    disc_row = next(line for line in lines if line.startswith("| disc decomposition k=1"))
    assert float(elo_row.split("|")[2].strip().rstrip("%")) < 100.0  # Figure 2: Elo misranks part of the grid
    assert disc_row.split("|")[2].strip() == "100.0%"  # Figure 4: the disc prediction is right everywhere
    path = {line.split("|")[1].strip(): line for line in lines if line.startswith("| 1.0 |") or line.startswith("| 0.0 |")}
    # Figures 3 and 7, in both spaces without a prior and in logit space with the default prior
    assert path["1.0"].count("transitive") == 3 and path["0.0"].count("cyclic") == 3
    for figure in ("example3.png", "elo_to_disc.png"):
        assert (tmp_path / figure).stat().st_size > 10_000
    if "(metagames skipped" in out:
        return  # ../shared/data is absent: the real games cannot be checked here
    kuhn = next(line for line in lines if line.startswith("| Kuhn-poker |")).split("|")
    # Kuhn poker is cyclic in both spaces (Figure 8), and with the default prior
    assert "cyclic" in kuhn[4] and "cyclic" in kuhn[5] and "cyclic" in kuhn[6]
    assert float(kuhn[7]) > 1.5 and float(kuhn[10]) > 1.5  # m-Elo and disc k=1 beat Elo there (Figure 5)
    assert float(kuhn[16]) > 1.5  # so does disc k=1 with the default prior


def test_peers_bench_ladder_rows_agree_with_the_exact_fit():
    proc = subprocess.run([sys.executable, str(BENCH / "bench_peers.py"), "--quick", "--only", "ladder"],
                          capture_output=True, text=True, timeout=300, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.strip().startswith("discrank Elo (defaults)"))
    fields = line[48:].split()
    spearman_exact, rel_grad = float(fields[3]), float(fields[4])
    assert spearman_exact == 1.0 and rel_grad <= 1e-8
    assert "converged_=True" in line


def test_threads_bench_fits_are_identical_for_1_and_2_threads():
    proc = subprocess.run([sys.executable, str(BENCH / "bench_threads.py"), "--quick", "--threads", "1,2"],
                          capture_output=True, text=True, timeout=300, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr
    table = {line.split()[0]: line for line in proc.stdout.splitlines() if line.split()[:1] in (["1"], ["2"])}
    assert set(table) == {"1", "2"}
    for line in table.values():
        assert "not converged" not in line
        elo_diff, disc_diff = (float(x) for x in line.split()[-2:])
        assert elo_diff == 0.0 and disc_diff == 0.0  # the same bits for any thread count


@pytest.mark.data("football_international/results.csv.gz")
def test_defaults_bench_every_default_beats_a_coin_on_football():
    # bench_defaults.py --quick: football, as pairs of 1872-2014 and as its last 18 months, the next three years
    out = run("bench_defaults.py")
    table = [line.split("|")[1:-1] for line in out.splitlines() if line.startswith("| pairs |")
             or line.startswith("| 18 months |")]
    assert len(table) == 10  # five models in two set-ups
    for row in table:
        loss, diff = float(row[5]), float(row[6].split()[0])
        assert loss < 0.6931 and diff < 0.0, row  # every default below a coin, log 2 per game
        assert float(row[3].split()[0]) <= float(row[3].split("(")[1].split(",")[0])  # chosen <= validation's best


def test_memory_bench_child_fits_the_npz_log_and_reports_its_peak_over_the_load_and_its_traced_lines(tmp_path):
    # bench_dynamic.py --memory's child: a log read from an .npz, one fit at the fixed parameters; its
    # figures in MiB, the fit's peak (VmHWM reset after the load) at least the resident set after the load
    import json

    from discrank import DynamicElo, GameLog

    rng = np.random.default_rng(3)
    names = np.array([f"p{k}" for k in range(40)])
    a = rng.integers(0, 40, 4000)
    b = (a + rng.integers(1, 40, 4000)) % 40
    time = np.datetime64("2020-01-06", "ns") + np.sort(rng.integers(0, 200, 4000)) * np.timedelta64(1, "D")
    score = (rng.random(4000) < 0.5).astype(float)
    path = tmp_path / "log.npz"
    np.savez(path, a=names[a], b=names[b], score=score, time=time)
    proc = subprocess.run([sys.executable, str(BENCH / "bench_dynamic.py"), "--memory-child", str(path), "fixed"],
                          capture_output=True, text=True, timeout=120, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout.splitlines()[-1])
    sys.path.insert(0, str(BENCH))
    from bench_dynamic import MEMORY_FIXED

    here = DynamicElo(period="week", **MEMORY_FIXED).fit(GameLog.from_arrays(names[a], names[b], score, time))
    assert (r["mode"], r["games"], r["player_periods"]) == ("fixed", 4000, here.pp_rating_.size)
    assert r["drift"] == MEMORY_FIXED["drift"] and r["prior_scale"] == MEMORY_FIXED["prior_scale"]
    assert 20.0 < r["load_rss"] <= r["load_peak"] and r["fit_peak"] >= r["load_rss"]
    assert r["increment"] == r["fit_peak"] - r["load_rss"] and r["wall"] > 0.0 and r["traced_peak"] is None
    # --memory-trace: the same fit under tracemalloc, its peak over the start and the lines holding the most
    proc = subprocess.run([sys.executable, str(BENCH / "bench_dynamic.py"), "--memory-child", str(path), "fixed",
                           "--memory-trace"], capture_output=True, text=True, timeout=120, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr
    traced = json.loads(proc.stdout.splitlines()[-1])
    assert traced["player_periods"] == here.pp_rating_.size and 0.0 < traced["traced_peak"] < traced["fit_peak"]
    assert len(traced["traced_lines"]) == 15 and "MiB at the largest snapshot" in traced["traced_lines"][0]


def test_dynamic_speed_bench_times_the_default_fit_against_its_choice_and_updates_against_the_history():
    out = run("bench_dynamic_speed.py")
    head = next(line for line in out.splitlines() if line.startswith("synthetic:"))
    default = float(head.split("default fit ")[1].split(" s")[0])
    fixed = float(head.split("fit at its choice ")[1].split(" s")[0])
    ratio = float(head.split("ratio ")[1].split("x")[0])
    assert default > 0 and fixed > 0 and ratio == pytest.approx(default / fixed, rel=0.15)  # printed rounded
    # one line per candidate scored, under the choice, those raced out marked
    n_candidates = int(head.split(" candidates, ")[0].rsplit(" ", 1)[1])
    n_raced = int(head.split(" candidates, ")[1].split(" raced out)")[0])
    lines = [line for line in out.splitlines() if line.startswith("    drift=")]
    assert n_candidates >= 3 and len(lines) == n_candidates and 0 <= n_raced < n_candidates
    assert sum("(raced out after" in line for line in lines) == n_raced
    updates = [line for line in out.splitlines() if line.startswith("history of ")]
    assert len(updates) == 2 and all("updates of" in line and "median" in line for line in updates)
    # local updates against exact refits: the printed losses differ by the printed paired difference
    line = next(line for line in out.splitlines() if "games predicted" in line)
    exact = float(line.split("exact refits ")[1].split(",")[0])
    local = float(line.split("weeks) ")[1].split(":")[0])
    diff = float(line.split(": ")[2].split(" +-")[0])
    assert abs((local - exact) - diff) < 2e-6
    # how far back an exact update moves the MAP: every fitted player-period in one age band, the largest change at
    # least the mean; the week's games move the latest ratings most (0.35 against 0.018 two years back measured)
    head = next(line for line in out.splitlines() if line.startswith("one week's update"))
    fitted = int(head.split("of the ")[1].split(" fitted")[0].replace(",", ""))
    bands = [re.match(r"  age \d+-\d*: ([\d,]+) player-periods, largest ([\d.e+-]+), mean ([\d.e+-]+)", line)
             for line in out.splitlines() if line.startswith("  age ")]
    assert len(bands) >= 3 and all(bands)
    counts, largest, mean = ([float(m.group(k).replace(",", "")) for m in bands] for k in (1, 2, 3))
    assert sum(counts) == fitted and all(x >= y >= 0 for x, y in zip(largest, mean))
    assert largest[-1] < largest[0] / 5


def test_features_bench_shows_each_feature_against_the_reference_with_its_paired_difference():
    out = run("bench_features.py")
    table = {cells[1].strip(): [c.strip() for c in cells[2:-1]] for cells in
             (line.split("|") for line in out.splitlines() if line.startswith("| ") and "---" not in line)}
    assert {"DynamicElo()", "+ contexts", "+ margins", "+ contexts + margins", "+ disc (k = 1)"} <= set(table)
    ref = float(table["DynamicElo()"][0])
    for name, cells in table.items():
        if name in ("model", "DynamicElo()"):
            continue
        diff = float(cells[1].split(" ")[0])
        assert abs((float(cells[0]) - ref) - diff) < 1.5e-4  # printed to 4 decimals
    # the quick league's players differ by context: the contexts' forecasts win by more than 2 paired se
    diff, se = table["+ contexts"][1].split(" ")
    assert float(diff) < -2 * float(se.strip("()"))
    assert "context" in table["+ contexts"][4] and "margin" in table["+ margins"][4] and "disc" in table[
        "+ disc (k = 1)"][4]


def test_kickscore_bench_quick_mode_prints_both_models_with_finite_losses():
    pytest.importorskip("kickscore", reason="bench_kickscore.py needs the PyPI package kickscore (the [bench] extra)")
    out = run("bench_kickscore.py")
    table = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
             for line in out.splitlines() if line.startswith("| ") and not line.startswith("| model")}
    assert set(table) == {"DynamicElo()", 'DynamicElo(draws="davidson")', "KickScore (kickscore)"}
    kick, ref = table["KickScore (kickscore)"], table["DynamicElo()"]
    loss, loss3 = float(kick[0]), float(kick[1])
    assert 0.3 < loss < math.log(2.0) and loss < loss3 < math.log(3.0)  # better than a coin on the synthetic log
    diff, se = float(kick[2].split()[0]), float(kick[2].split("(")[1].rstrip(")"))
    assert abs(diff - (loss - float(ref[0]))) < 2e-4 and 0.0 < se < 0.05  # the paired difference of the printed losses
    assert float(kick[4]) > 0.0 and "dvar" in kick[5] and "TernaryModel" in kick[5]
    assert "its fits converged within max_iter: [" in out


def test_preconditioner_bench_two_level_cuts_the_iterations_and_reaches_the_same_map():
    out = run("bench_preconditioner.py")
    row = next(line.split() for line in out.splitlines() if line.startswith("league"))
    base, two = float(row[5]), float(row[8])  # conjugate-gradient iterations per Newton step
    assert two < base / 2  # 12.6 -> 3.6 measured on the seeded ladder
    assert float(row[12]) < 1e-6 and abs(float(row[13])) < 1e-12 and row[14] == "True"


def test_history_core_bench_reaches_the_python_loops_map_by_the_same_steps():
    # bench_history_core.py --quick: the seeded ladder's solve by the Python Newton loop over the core's terms, the
    # core with the chains' preconditioner and with two levels; the core's chains take the Python loop's steps and
    # iterations to its MAP
    out = run("bench_history_core.py")
    line = next(line for line in out.splitlines() if line.startswith("league"))
    loop, chains, two = (part.split() for part in line.split("|"))
    assert loop[2:4] == chains[:2]  # Newton steps, iterations per step
    assert float(chains[4]) < 1e-9 and float(two[4]) < 1e-6  # largest parameter difference from the loop's MAP
    assert float(two[1]) < float(chains[1]) / 2  # 8.8 -> 3.6 iterations per step measured on the ladder
    assert "whole fit: Python loop" in out


def test_tuning_bench_compares_fewer_origins_with_the_default_under_the_online_protocol():
    # bench_tuning.py --quick: the synthetic league's tuning with 2 origins and with the default's (one per
    # period of its 24-day window); on this league the two choose differently, and the online protocol scores both
    out = tuning_quick()
    fewer = re.search(r"fewer origins \((\d+)\): ([\d.]+) s", out)
    default = re.search(r"default origins \((\d+)\): ([\d.]+) s", out)
    assert int(fewer.group(1)) == 2 and int(default.group(1)) == 24
    line = re.search(r"on ([\d,]+) test games .* fewer origins ([\d.]+), default ([\d.]+), fewer origins minus "
                     r"default ([+-][\d.]+) \(paired se ([\d.]+)\)", out)
    assert line is not None, out
    loss_fewer, loss_default, diff, se = (float(line.group(k)) for k in range(2, 6))
    assert diff == pytest.approx(loss_fewer - loss_default, abs=1e-5) and se > 0.0


def test_tuning_bench_takes_the_drift_and_prior_of_the_largest_evidence():
    # bench_tuning.py --quick's second comparison: the drift and prior of the largest Laplace evidence (a walk by
    # factors of 2 then sqrt 2), its variance scale tuned as the default's, scored against the default online
    out = tuning_quick()
    walk = re.search(r"evidence: (\d+) candidates in [\d.]+ s, best drift ([\d.e-]+), prior ([\d.]+)", out)
    assert walk is not None, out
    line = re.search(r"log_loss evidence ([\d.]+), default ([\d.]+), evidence minus default ([+-][\d.]+) "
                     r"\(paired se ([\d.]+)\)", out)
    assert line is not None, out
    loss_evidence, loss_default, diff, se = (float(line.group(k)) for k in range(1, 5))
    assert diff == pytest.approx(loss_evidence - loss_default, abs=1e-5) and se > 0.0
    # the walk's choice is a local maximum of the evidence on its sqrt 2 lattice (2 * unit * 2^(k/2), 2 * 2^(j/2))
    sys.path.insert(0, str(BENCH))
    import bench_features
    import bench_tuning

    log, split = bench_features.quick_log()
    train = log._take(np.flatnonzero(log.time < split["cutoff"]))
    model, h = bench_tuning.history_of(train, {"period": "day", **bench_tuning.PLAIN})
    unit = 2.0 * model._walk_scale()
    drift = unit * 2 ** (round(2 * np.log2(float(walk.group(2)) / unit)) / 2)
    prior = 2.0 * 2 ** (round(2 * np.log2(float(walk.group(3)) / 2.0)) / 2)
    assert drift == pytest.approx(float(walk.group(2)), rel=1e-5) and prior == pytest.approx(float(walk.group(3)), rel=1e-5)
    best = bench_tuning.evidence(h, drift, prior, None)[0]
    for d, p in ((drift * 2 ** 0.5, prior), (drift / 2 ** 0.5, prior), (drift, prior * 2 ** 0.5), (drift, prior / 2 ** 0.5)):
        assert bench_tuning.evidence(h, d, p, None)[0] < best
