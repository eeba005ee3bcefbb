"""The command line: the README's first command, and its errors."""

import os
import shutil
import subprocess
import sys

from discrank.cli import main


def test_demo_prints_both_leaderboards_and_disc_wins_on_hidden_pairs(capsys):
    assert main(["demo", "--players", "30", "--games-per-pair", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Elo (stationary, Eq. 1)" in out and "Disc decomposition, k=2" in out
    assert "The main disc component is cyclic" in out  # the default league's cyclic part is the larger
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("  Elo ") or line.startswith("  Disc ")}
    elo_log_loss = float(rows["Elo"][1])
    disc_log_loss = float(rows["Disc"][2])
    assert disc_log_loss < elo_log_loss  # the league has a cyclic part that Elo cannot represent


def test_bad_argument_is_one_line_and_exit_code_2(capsys):
    assert main(["demo", "--players", "2"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "discrank: error: --players must be >= 4 and --games-per-pair >= 1, got 2 and 20"


def test_console_script_is_installed():
    exe = shutil.which("discrank", path=os.path.dirname(sys.executable)) or shutil.which("discrank")
    assert exe is not None, "the discrank command is not on PATH: is the package installed?"
    proc = subprocess.run([exe, "demo", "--players", "12", "--top", "3"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n     1 ") == 2  # rank 1 of each leaderboard
