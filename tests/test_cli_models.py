"""The command line serves every model: fit --model, the options each model takes, predict with draws,
advantage values and unknown players, info's coefficients, plot --players."""

import io
import math
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank import DynamicElo, Elo, GameLog
from discrank.cli import main


def _league_csv(path, n=600, seed=0):
    """Six players p0 .. p5 (p5 strongest), a home column (+-1), about one draw in five, dated games."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    home = rng.choice([-1.0, 1.0], n)
    win = 1 / (1 + np.exp(-(a - b) / 2 - 0.6 * home))
    u = rng.random(n)
    score = np.where(u < 0.8 * win, 1.0, np.where(u < 0.8 * win + 0.2, 0.5, 0.0))
    date = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.sort(rng.integers(0, 120, n)), unit="D")
    pd.DataFrame({"a": np.char.add("p", a.astype(str)), "b": np.char.add("p", b.astype(str)), "s": score, "t": date,
                  "home": home}).to_csv(path, index=False)
    return path


@pytest.fixture
def league(tmp_path):
    return _league_csv(tmp_path / "league.csv")


def _error(capsys):
    err = capsys.readouterr().err.strip()
    assert err.startswith("discrank: error: ") and "\n" not in err and "Traceback" not in err, err
    return err


def _fit_dynamic(league, path, *extra):
    """fit --model dynamic with draws and the home column, drift, prior and variance scale given (nothing
    tuned)."""
    assert main(["fit", str(league), "--score", "s", "--time", "t", "--model", "dynamic", "--draws", "davidson",
                 "--advantage", "home", "--drift", "0.05", "--prior-scale", "1", "--variance-scale", "1",
                 "--save", str(path), "--quiet", *extra]) == 0
    return discrank.load(path)


def _coefficients(info):
    """The rows of ``info``'s coefficient table: name -> [estimate, standard error] (or [estimate])."""
    return {m[1]: m[2].split() for m in re.finditer(r"^  (\S.*?)\s{2,}(\S.*)$", info, re.M)}


def _fixture_log(model, a, b, home):
    """The API's log of fixtures at the model's last fitted period (where the command line predicts)."""
    time = np.full(len(a), model.history()["time"].to_numpy().max())
    return GameLog.from_arrays(a, b, np.zeros(len(a)), time, advantage={"home": np.asarray(home, dtype=float)})


# ------------------------------------------------------------------ fit: the default model and --help
def test_fit_default_model_is_elo_and_help_says_so(league, tmp_path, capsys):
    path = tmp_path / "m.npz"
    assert main(["fit", str(league), "--score", "s", "--save", str(path), "--quiet"]) == 0
    assert type(discrank.load(path)) is Elo
    with pytest.raises(SystemExit) as exit_:
        main(["fit", "--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--model {elo,elo++,melo,disc,schur,dynamic,online,online-disc}" in out
    assert "the model (default elo):" in out and "dynamic: whole-history dynamic Elo" in out


def test_fit_dynamic_round_trip_fit_predict_info_plot(league, tmp_path, capsys, monkeypatch):
    path, ratings = tmp_path / "dyn.npz", tmp_path / "r.csv"
    model = _fit_dynamic(league, path, "--out", str(ratings))
    assert type(model) is DynamicElo
    assert model.get_params()["drift"] == 0.05 and model.get_params()["draws"] == "davidson"
    assert model.advantage_names_ == ("home",)
    table = pd.read_csv(ratings)  # ranked as each player's latest rating
    latest = model.history().groupby("player").tail(1).sort_values("rating", ascending=False)
    assert table["player"].tolist() == latest["player"].tolist() and table["player"][0] == "p5"
    assert table["rank"].tolist() == [1, 2, 3, 4, 5, 6]

    # predict: win / draw / loss of a fixture, equal to the API's predict_outcomes
    assert main(["predict", str(path), "p5", "p0", "--advantage", "home=1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" = ")[0] for line in lines] == ["P(p5 wins)", "P(draw)", "P(p0 wins)"]
    printed = np.array([float(line.split(" = ")[1]) for line in lines])
    expected = model.predict_outcomes(_fixture_log(model, ["p5"], ["p0"], [1.0]))[0]
    np.testing.assert_allclose(printed, expected, rtol=0, atol=5e-5)
    assert abs(printed.sum() - 1.0) <= 1.5e-4 and printed[1] > 0.05

    # --pairs: the three columns at full precision, the home column of the file used
    pairs = tmp_path / "pairs.csv"
    pd.DataFrame({"a": ["p5", "p1", "p3"], "b": ["p0", "p4", "p2"], "home": [1, -1, 1]}).to_csv(pairs, index=False)
    assert main(["predict", str(path), "--pairs", str(pairs)]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(got.columns) == ["a", "b", "home", "p_win", "p_draw", "p_loss"]
    q = got[["p_win", "p_draw", "p_loss"]].to_numpy()
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    api = model.predict_outcomes(_fixture_log(model, ["p5", "p1", "p3"], ["p0", "p4", "p2"], [1, -1, 1]))
    np.testing.assert_allclose(q, api, rtol=0, atol=1e-12)

    # info: beta with its standard error, the draw parameter with its standard error, the drift
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("DynamicElo, 6 players, parameters {'period': 'week', 'drift': 0.05")
    rows = _coefficients(out)
    assert rows["advantage 'home'"] == [f"{model.beta_[0]:.4f}", f"{model.beta_se_[0]:.4f}"]
    assert rows["draws: log nu (Davidson)"] == [f"{math.log(model.draw_nu_):.4f}", f"{model.draw_eta_se_:.4f}"]
    assert rows["drift per period"] == ["0.0500"] and rows["prior scale"] == ["1.0000"]

    # plot --players: those players' histories
    drawn = []
    plot_history = DynamicElo.plot_history
    monkeypatch.setattr(DynamicElo, "plot_history", lambda self, players, **kw: drawn.append(list(players)) or
                        plot_history(self, players, **kw))
    assert main(["plot", str(path), "--players", "p1", "p4", "--out", str(tmp_path / "h.png")]) == 0
    assert drawn == [["p1", "p4"]] and (tmp_path / "h.png").stat().st_size > 1000
    assert main(["plot", str(path), "--players", "p1", "nobody", "--out", str(tmp_path / "x.png")]) == 2
    assert "unknown player 'nobody'" in _error(capsys)
    assert not (tmp_path / "x.png").exists()


def test_fit_dynamic_needs_a_time_column_unless_period_none(league, tmp_path, capsys):
    assert main(["fit", str(league), "--score", "s", "--model", "dynamic", "--quiet"]) == 2
    assert _error(capsys) == ("discrank: error: --model dynamic needs the games' times: give --time COL (or "
                              "--period none for one rating per player)")
    path = tmp_path / "still.npz"
    assert main(["fit", str(league), "--score", "s", "--model", "dynamic", "--period", "none", "--prior-scale", "1",
                 "--save", str(path), "--quiet"]) == 0
    model = discrank.load(path)
    assert model.period is None and model.prior_scale_ == 1.0


def test_fit_online_prints_the_sequential_ratings(league, tmp_path):
    from discrank.online import OnlineElo

    out = tmp_path / "r.csv"
    assert main(["fit", str(league), "--score", "s", "--time", "t", "--model", "online", "--step", "0.1",
                 "--out", str(out), "--quiet"]) == 0
    model = OnlineElo(step=0.1).fit(GameLog.read_csv(league, score="s", time="t"))
    table = pd.read_csv(out)
    expected = dict(zip(model.labels_, model.ratings_))
    assert table["rating"].is_monotonic_decreasing and table["rank"].tolist() == [1, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(table["rating"], [expected[p] for p in table["player"]], rtol=0, atol=1e-12)



def test_fit_online_saves_a_model_that_info_and_predict_read(league, tmp_path, capsys):
    from discrank.online import OnlineElo

    path = tmp_path / "o.npz"
    assert main(["fit", str(league), "--score", "s", "--time", "t", "--model", "online", "--step", "0.1",
                 "--save", str(path), "--quiet"]) == 0
    model = OnlineElo(step=0.1).fit(GameLog.read_csv(league, score="s", time="t"))
    back = discrank.load(path)
    assert type(back) is OnlineElo and back.step_ == 0.1
    a, b = model.labels_[:3], model.labels_[1:4]
    np.testing.assert_array_equal(back.predict_proba(a, b), model.predict_proba(a, b))
    assert back.ratings_frame().equals(model.ratings_frame())
    capsys.readouterr()
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OnlineElo, 6 players, parameters {'step': 0.1}") and re.search(r"step\s+0\.1000", out)


# ------------------------------------------------------------------ options that do not apply
@pytest.mark.parametrize("args, message", [
    (["--model", "elo", "-k", "2"], "-k/--components does not apply to --model elo: Elo has no n_components parameter"),
    (["--model", "melo", "--regularization", "1"], "--regularization does not apply to --model melo: MElo has no "
                                                   "regularization parameter"),
    (["--model", "disc", "--period", "week"], "--period does not apply to --model disc: DiscDecomposition has no "
                                              "period parameter"),
    (["--model", "elo", "--drift", "0.1"], "--drift does not apply to --model elo: Elo has no drift parameter"),
    (["--model", "dynamic", "--step", "0.1"], "--step does not apply to --model dynamic: DynamicElo has no step"),
    (["--model", "melo", "--draws", "davidson"], "--draws does not apply to --model melo: MElo "),
    (["--model", "schur", "--draws", "davidson"], "--draws does not apply to --model schur: SchurDecomposition has "
                                                  "no draws parameter"),
    (["--model", "online", "--draws", "rao-kupper"], "--draws does not apply to --model online: OnlineElo has no "
                                                     "draws parameter"),
    (["--model", "schur", "--prior-scale", "1"], "--prior-scale does not apply to --model schur"),
    (["--model", "online", "--threads", "1"], "--threads does not apply to --model online: OnlineElo has no n_jobs"),
    (["--model", "melo", "--advantage", "home"], "--advantage home does not apply to --model melo: MElo fits no "
                                                 "advantage covariates"),
    (["--model", "dynamic", "--time", "t", "--min-games", "2"], "--min-games does not apply to --model dynamic: "
                                                                "DynamicElo is fitted on the games"),
])
def test_an_option_that_does_not_apply_exits_2_naming_option_and_model(league, capsys, args, message):
    assert main(["fit", str(league), "--score", "s", "--quiet", *args]) == 2
    assert message in _error(capsys)


def test_the_refusal_lists_the_options_the_model_takes(league, capsys):
    assert main(["fit", str(league), "--score", "s", "--model", "schur", "--drift", "1"]) == 2
    assert _error(capsys) == ("discrank: error: --drift does not apply to --model schur: SchurDecomposition has no "
                              "drift parameter; its options: -k/--components, --threads")


def test_online_with_advantage_columns_is_refused(league, capsys):
    assert main(["fit", str(league), "--score", "s", "--time", "t", "--model", "online", "--advantage", "home",
                 "--quiet"]) == 2
    err = _error(capsys)
    assert err.startswith("discrank: error: --advantage home does not apply to --model online: OnlineElo")


def test_predict_and_plot_options_that_do_not_apply(league, tmp_path, capsys):
    path = tmp_path / "elo.npz"
    assert main(["fit", str(league), "--score", "s", "--save", str(path), "--quiet"]) == 0
    assert main(["predict", str(path), "p1", "p2", "--advantage", "home=1"]) == 2
    assert _error(capsys) == (f"discrank: error: --advantage does not apply to {path}: its Elo was fitted without "
                              "advantage columns")
    assert main(["plot", str(path), "--players", "p1", "--out", str(tmp_path / "p.png")]) == 2
    assert _error(capsys) == (f"discrank: error: --players does not apply to {path}: its Elo has no rating histories "
                              "(a dynamic model has: discrank fit --model dynamic)")


# ------------------------------------------------------------------ predict: unknown players, advantage values
def test_predict_an_unknown_player_exits_2_unless_unseen_prior(league, tmp_path, capsys):
    path = tmp_path / "elo.npz"
    assert main(["fit", str(league), "--score", "s", "--save", str(path), "--quiet"]) == 0
    model = discrank.load(path)
    assert main(["predict", str(path), "p1", "Jannik Siner"]) == 2
    assert _error(capsys) == (f"discrank: error: unknown player 'Jannik Siner': not one of the 6 players of {path}; "
                              "--unseen prior predicts an unknown player from the model's prior")
    pairs = tmp_path / "pairs.csv"
    pd.DataFrame({"a": ["p1", "x", "y"], "b": ["p2", "p3", "x"]}).to_csv(pairs, index=False)
    assert main(["predict", str(path), "--pairs", str(pairs)]) == 2
    assert f"unknown player 'x': not one of the 6 players of {path} (--pairs {pairs}); 1 other unknown label" \
        in _error(capsys)
    assert main(["predict", str(path), "p1", "Jannik Siner", "--unseen", "prior"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "discrank: warning: 'Jannik Siner' not among the model's players: predicted from its prior\n"
    assert captured.out == f"P(p1 beats Jannik Siner) = {model.predict_proba('p1', 'x', unseen='prior'):.4f}\n"


def test_predict_help_states_the_exit_status_of_an_unknown_player(capsys):
    with pytest.raises(SystemExit):
        main(["predict", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert ("Exit status 2, with a message naming the player, when a player is not one of the model's (unless "
            "--unseen prior)") in out


def test_predict_unknown_player_exit_status_of_the_executable(league, tmp_path):
    exe = shutil.which("discrank", path=os.path.dirname(sys.executable)) or shutil.which("discrank")
    assert exe is not None
    path = tmp_path / "dyn.npz"
    _fit_dynamic(league, path)
    proc = subprocess.run([exe, "predict", str(path), "p5", "nobody"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("discrank: error: unknown player 'nobody': not one of the 6 players of")
    proc = subprocess.run([exe, "predict", str(path), "p5", "nobody", "--unseen", "prior"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "'nobody' not among the model's players: predicted from its prior" in proc.stderr
    printed = [float(line.split(" = ")[1]) for line in proc.stdout.splitlines()]
    assert len(printed) == 3 and abs(sum(printed) - 1.0) <= 1.5e-4


def test_predict_takes_advantage_values_and_info_prints_beta_with_se(league, tmp_path, capsys):
    path = tmp_path / "elo.npz"
    assert main(["fit", str(league), "--score", "s", "--advantage", "home", "--prior-scale", "2", "--save", str(path),
                 "--quiet"]) == 0
    model = discrank.load(path)
    assert model.advantage_names_ == ("home",) and model.beta_[0] > 0
    assert main(["predict", str(path), "p5", "p0", "--advantage", "home=-1"]) == 0
    assert capsys.readouterr().out == f"P(p5 beats p0) = {model.predict_proba('p5', 'p0', advantage=[-1.0]):.4f}\n"
    assert main(["predict", str(path), "p5", "p0"]) == 0  # a covariate not given: a neutral game
    assert capsys.readouterr().out == f"P(p5 beats p0) = {model.predict_proba('p5', 'p0', advantage=[0.0]):.4f}\n"
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\nfitted parameters     estimate  std. error\n" in out
    rows = _coefficients(out)
    assert rows == {"advantage 'home'": [f"{model.beta_[0]:.4f}", f"{model.beta_se_[0]:.4f}"],
                    "prior scale": ["2.0000"]}
    for bad, message in [("home", "--advantage 'home' is not NAME=VALUE (the model's advantage columns: home)"),
                         ("away=1", f"--advantage 'away' is not an advantage column of {path}; its columns are 'home'"),
                         ("home=inf", "--advantage home='inf': the value is not a finite number")]:
        assert main(["predict", str(path), "p5", "p0", "--advantage", bad]) == 2
        assert _error(capsys) == f"discrank: error: {message}"


def test_fit_dynamic_tuning_budget_caps_the_candidates_and_a_bad_budget_is_named(league, tmp_path, capsys):
    path = tmp_path / "m.npz"
    assert main(["fit", str(league), "--score", "s", "--time", "t", "--model", "dynamic", "--period", "week",
                 "--tuning-budget", "2", "--save", str(path), "--quiet"]) == 0
    model = discrank.load(path)
    assert model.tuning_budget == 2
    capsys.readouterr()
    assert main(["fit", str(league), "--score", "s", "--time", "t", "--model", "dynamic", "--tuning-budget", "0",
                 "--quiet"]) == 2
    assert _error(capsys) == ("discrank: error: tuning_budget must be a positive integer (the most (drift, prior) "
                              "candidates the tuning scores), got 0")
    assert main(["fit", str(league), "--score", "s", "--model", "elo", "--tuning-budget", "3", "--quiet"]) == 2
    assert _error(capsys) == ("discrank: error: --tuning-budget does not apply to --model elo: Elo has no "
                              "tuning_budget parameter; its options: --prior-scale, --draws, --threads")
