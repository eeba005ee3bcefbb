"""The command line: the README's first command, and its errors."""

import os
import shutil
import subprocess
import sys

from discrank.cli import main


def test_demo_prints_both_leaderboards_and_disc_wins_on_hidden_pairs(capsys, tmp_path):
    plot = tmp_path / "embedding.png"
    assert main(["demo", "--players", "30", "--games-per-pair", "20", "--seed", "1", "--plot", str(plot)]) == 0
    assert plot.stat().st_size > 1000
    out = capsys.readouterr().out
    assert f"wrote the embedding of the first disc component to {plot}" in out
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


def test_console_script_is_installed(tmp_path):
    exe = shutil.which("discrank", path=os.path.dirname(sys.executable)) or shutil.which("discrank")
    assert exe is not None, "the discrank command is not on PATH: is the package installed?"
    proc = subprocess.run([exe, "demo", "--players", "12", "--top", "3"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert (tmp_path / "discrank-demo.png").exists()  # the demo's default plot
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n     1 ") == 2  # rank 1 of each leaderboard


def _games_csv(path, n=8, per_pair=25, seed=0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    skill = np.linspace(1.2, -1.2, n)
    a, b = np.triu_indices(n, 1)
    a, b = np.repeat(a, per_pair), np.repeat(b, per_pair)
    win = rng.random(a.size) < 1 / (1 + np.exp(-(skill[a] - skill[b])))
    names = np.array([f"bot{k}" for k in range(n)])
    pd.DataFrame({"white": names[a], "black": names[b], "result": np.where(win, "1-0", "0-1")}).to_csv(path, index=False)


def test_fit_predict_info_plot_round_trip(tmp_path, capsys):
    import pandas as pd

    games = tmp_path / "games.csv"
    _games_csv(games)
    out, model = tmp_path / "ratings.csv", tmp_path / "model.npz"
    assert main(["fit", str(games), "--a", "white", "--b", "black", "--score", "result", "--model", "elo",
                 "--out", str(out), "--save", str(model)]) == 0
    printed = capsys.readouterr()
    assert "fitting Elo" in printed.err and "bot0" in printed.out
    table = pd.read_csv(out)
    assert table["player"].iloc[0] == "bot0" and table["rank"].tolist() == list(range(1, 9))
    assert main(["predict", str(model), "bot0", "bot7"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("P(bot0 beats bot7) = ") and float(line.split("= ")[1]) > 0.8
    pairs = tmp_path / "pairs.csv"
    pd.DataFrame({"a": ["bot1", "bot6"], "b": ["bot6", "bot1"]}).to_csv(pairs, index=False)
    assert main(["predict", str(model), "--pairs", str(pairs)]) == 0
    p = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))["p"].to_numpy()
    assert abs(p.sum() - 1.0) < 1e-12
    assert main(["info", str(model)]) == 0
    assert "Elo, 8 players" in capsys.readouterr().out
    assert main(["fit", str(games), "--a", "white", "--b", "black", "--score", "result", "--model", "disc", "-k", "1",
                 "--save", str(tmp_path / "disc.npz"), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["info", str(tmp_path / "disc.npz")]) == 0
    assert "main disc component transitive" in capsys.readouterr().out
    assert main(["plot", str(tmp_path / "disc.npz"), "--out", str(tmp_path / "e.png")]) == 0
    assert (tmp_path / "e.png").stat().st_size > 1000


import pytest  # noqa: E402


@pytest.mark.parametrize("content, args, message", [
    ("white,black,result\nx,y,1-0\n", ["--a", "w"], "column 'w' (for a) is not in the frame"),
    ("white,black,result\nx,y,3-0\n", [], "result[0] = '3-0' is not a result"),
    ("", [], "the file is empty"),
    ("white,black,result\n", [], "the frame has no rows"),
    ("white,black,result\nx,x,1-0\n", [], "game 0 is player 'x' against themself"),
    ("white,black,result\nx,y,\n", [], "column 'result' has no result at row 0"),
    (b"white,black,result\nJos\xe9,y,1-0\n", [], "not UTF-8 text"),
])
def test_fit_errors_are_one_line_without_traceback(tmp_path, capsys, content, args, message):
    path = tmp_path / "g.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    base = ["fit", str(path), "--a", "white", "--b", "black", "--score", "result"]
    argv = base[:2] + args + [x for x in base[2:] if not (args and x in ("--a", "white"))]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("discrank: error: ") and message in err and "\n" not in err and "Traceback" not in err


def test_predict_errors(tmp_path, capsys):
    assert main(["predict", str(tmp_path / "none.npz"), "a", "b"]) == 2
    assert "no such model file" in capsys.readouterr().err
    (tmp_path / "bad.npz").write_bytes(b"\x00" * 100)
    assert main(["info", str(tmp_path / "bad.npz")]) == 2
    assert "not a readable discrank model file" in capsys.readouterr().err
    games = tmp_path / "games.csv"
    _games_csv(games)
    assert main(["fit", str(games), "--a", "white", "--b", "black", "--score", "result", "--model", "elo",
                 "--save", str(tmp_path / "m.npz"), "--quiet"]) == 0
    assert main(["predict", str(tmp_path / "m.npz"), "bot0", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["games.pgn", "games.pgn.zst"])
def test_fit_reads_a_pgn_file(name, tmp_path, capsys):
    # every compression of data/formats.py, .zst too (a .pgn.zst was read as a CSV file before)
    from test_users import PGN

    path = tmp_path / name
    text = "\n".join([PGN] * 3).encode()  # three copies (a blank line between games, as PGN requires)
    path.write_bytes(pytest.importorskip("zstandard").ZstdCompressor().compress(text) if name.endswith(".zst") else text)
    assert main(["fit", str(path), "--model", "elo", "--out", str(tmp_path / "r.csv"), "--quiet"]) == 0
    import pandas as pd

    table = pd.read_csv(tmp_path / "r.csv")
    assert sorted(table["player"]) == ["alice", "bob", "carol"]
    assert table["games"].sum() == 2 * 9  # 9 finished games, two players each


def test_info_predict_and_plot_read_a_dynamic_model_file(tmp_path, capsys):
    import numpy as np
    import pytest as _pytest

    from discrank import DynamicElo, GameLog

    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, 400)
    b = (a + rng.integers(1, 6, 400)) % 6
    strength = np.arange(6.0) / 2
    y = (rng.random(400) < 1 / (1 + np.exp(strength[b] - strength[a]))).astype(float)
    t = np.sort(rng.integers(0, 120, 400)).astype("datetime64[D]")
    log = GameLog.from_arrays(np.char.add("p", a.astype(str)), np.char.add("p", b.astype(str)), y, t,
                              advantage={"home": rng.choice([-1.0, 1.0], 400)})
    model = DynamicElo(drift=0.05, prior_scale=1.0, variance_scale=1.0).fit(log)
    path = tmp_path / "dyn.npz"
    model.save(path)
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("DynamicElo, 6 players, parameters {'period': 'week', 'drift': 0.05")
    assert "a random walk per 'week' period, drift 0.05 logits per period; prior scale 1, variance scale 1" in out
    assert f"{model.pp_rating_.size} player-periods from 400 games" in out
    assert f"advantage 'home': {model.beta_[0]:.4g} +- {model.beta_se_[0]:.2g} logits" in out
    assert main(["predict", str(path), "p5", "p0"]) == 0
    assert capsys.readouterr().out == f"P(p5 beats p0) = {model.predict_proba('p5', 'p0'):.4f}\n"
    assert model.predict_proba("p5", "p0") == _pytest.approx(float(model.predict_proba(["p5"], ["p0"])[0]))
    assert main(["plot", str(path), "--out", str(tmp_path / "h.png")]) == 0
    assert (tmp_path / "h.png").stat().st_size > 1000


# ------------------------------------------------------------------ evaluate's log options (issue 33)
def _winner_first_csv(path, n_players=12, n_games=1500, seed=3):
    """Games written winner first, as Sackmann's tennis files: columns winner, loser, day (a number) and
    date."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    skill = np.linspace(1.5, -1.5, n_players)
    i = rng.integers(0, n_players, n_games)
    j = (i + rng.integers(1, n_players, n_games)) % n_players
    won = rng.random(n_games) < 1 / (1 + np.exp(-(skill[i] - skill[j])))
    day = np.sort(rng.integers(0, 400, n_games))
    names = np.array([f"p{k}" for k in range(n_players)])
    pd.DataFrame({"winner": names[np.where(won, i, j)], "loser": names[np.where(won, j, i)], "day": day,
                  "date": (np.datetime64("2023-01-02") + day).astype(str)}).to_csv(path, index=False)
    return path


def _log_loss_line(out):
    return next(line for line in out.splitlines() if line.startswith("elo "))


def test_evaluate_warns_on_a_winner_first_log_and_shuffle_sides_orients_it(tmp_path, capsys):
    path = _winner_first_csv(tmp_path / "wf.csv")
    argv = ["evaluate", str(path), "--a", "winner", "--b", "loser", "--winner", "winner", "--time", "date",
            "--test-fraction", "0.3", "--models", "elo", "--calibration"]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert "discrank: warning: side 'a' wins 1500 of the 1500 decided games of this log (100.0%)" in printed.err
    assert "discrank --shuffle-sides SEED" in printed.err
    table = printed.out.split("calibration of elo")[1].splitlines()[1:]
    assert table and all(line.split()[-1] == "1.0000" for line in table)  # every bin: a won
    assert main(argv + ["--shuffle-sides", "7"]) == 0
    shuffled = capsys.readouterr()
    assert "warning" not in shuffled.err
    observed = [float(line.split()[-1]) for line in shuffled.out.split("calibration of elo")[1].splitlines()[1:]]
    assert min(observed) < 0.4 and max(observed) > 0.6
    # the models are symmetric in the sides: the scores do not change
    assert _log_loss_line(shuffled.out).split()[:4] == _log_loss_line(printed.out).split()[:4]
    assert main(["fit", str(path), "--a", "winner", "--b", "loser", "--winner", "winner", "--shuffle-sides", "-1"]) == 2
    assert "argument --shuffle-sides: must be an integer >= 0, got '-1'" in capsys.readouterr().err


def test_evaluate_and_fit_of_a_dynamic_model_on_numeric_times_take_the_width_from_period(tmp_path, capsys,
                                                                                        monkeypatch):
    import discrank.evaluation._evaluate

    path = _winner_first_csv(tmp_path / "wf.csv")
    base = ["evaluate", str(path), "--a", "winner", "--b", "loser", "--winner", "winner", "--test-fraction", "0.3",
            "--shuffle-sides", "0"]
    assert main(base + ["--time", "day", "--models", "elo,dynamic"]) == 2
    assert capsys.readouterr().err == (
        "discrank: error: --models dynamic: the times are numbers (such as 0) and the default period, week, is a "
        "calendar period: give the random walk's period as a width in the times' units, --period WIDTH (say "
        "--period 7 for times counted in days), or --period none for one rating per player\n")
    given = []
    real = discrank.evaluation._evaluate.evaluate

    def spy(models, log, **kw):
        given.append({name: m.get_params().get("period") for name, m in models.items()})
        return real(models, log, **kw)

    monkeypatch.setattr(discrank.evaluation._evaluate, "evaluate", spy)
    assert main(base + ["--time", "day", "--models", "elo,dynamic", "--period", "7",
                        "--protocol", "online", "--refit", "14"]) == 0
    out = capsys.readouterr().out
    assert given[-1] == {"elo": None, "dynamic": 7.0}
    assert "models updated or refitted periods of 14.0" in out and "\ndynamic " in out
    assert main(base + ["--time", "day", "--models", "dynamic", "--period", "none"]) == 0
    assert given[-1] == {"dynamic": None}
    assert main(base + ["--time", "date", "--models", "dynamic", "--period", "7"]) == 2
    assert ("--models dynamic: --period 7 is a width for numeric times, but the times are dates (such as 2023-01-02): "
            "give --period day, week, month or year (or none)") in capsys.readouterr().err
    assert main(base + ["--time", "date", "--models", "elo", "--period", "week"]) == 2
    assert ("--period week is the random walk's period of the models dynamic, dynamic-draws, dynamic-rao-kupper; "
            "--models elo has none of them") in capsys.readouterr().err
    assert main(base + ["--time", "date", "--models", "elo", "--protocol", "online", "--refit", "7"]) == 2
    assert "discrank: error: --refit 7.0 is a number, and this log's times are datetimes" in capsys.readouterr().err
    fit = ["fit", str(path), "--a", "winner", "--b", "loser", "--winner", "winner", "--time", "day", "--model",
           "dynamic", "--quiet", "--shuffle-sides", "0"]
    assert main(fit) == 2
    assert "--model dynamic: the times are numbers (such as 0) and the default period, week, is a calendar period: " \
           "give the random walk's period as a width in the times' units, --period WIDTH" in capsys.readouterr().err
    assert main(fit + ["--period", "30"]) == 0


@pytest.mark.parametrize("suffix", [".parquet", ".pq"])
def test_fit_reads_a_parquet_file_by_either_suffix(suffix, tmp_path, capsys):
    # the suffixes of data/formats.py: a .pq file is Parquet here as in scan_games and read_arena
    import pandas as pd

    pytest.importorskip("pyarrow")
    _games_csv(tmp_path / "games.csv")
    pd.read_csv(tmp_path / "games.csv").to_parquet(tmp_path / f"games{suffix}")
    argv = ["--a", "white", "--b", "black", "--score", "result", "--model", "elo", "--quiet", "--out"]
    assert main(["fit", str(tmp_path / f"games{suffix}"), *argv, str(tmp_path / "p.csv")]) == 0
    assert main(["fit", str(tmp_path / "games.csv"), *argv, str(tmp_path / "c.csv")]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "p.csv"), pd.read_csv(tmp_path / "c.csv"))
