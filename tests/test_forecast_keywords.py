"""One forecast in one call (issue 49): DynamicElo.predict_proba at a time, in a context and match format, with
advantage covariates, equal to the GameLog route (predict_games); `discrank predict` with --time beside --context and
--match-format; each keyword the model cannot use, or needs and does not get, refused by name."""

import numpy as np
import pandas as pd
import pytest

from discrank import DynamicElo, Elo, GameLog
from discrank.cli import main

START = np.datetime64("2023-01-02", "ns")
SURFACES = np.array(["clay", "grass", "hard"])
FORMATS = np.array(["bo3", "bo3", "bo5"])


def _log(seed=5, games=1500, players=16):
    """Dated games (one per 6 hours over about a year) with a surface, a best-of and a home column."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, players, games)
    b = (a + rng.integers(1, players, games)) % players
    c = rng.integers(0, 3, games)
    home = rng.integers(0, 2, games).astype(float)
    strength = rng.normal(size=players)
    effect = rng.normal(scale=0.5, size=(players, 3))
    d = strength[a] - strength[b] + effect[a, c] - effect[b, c] + 0.3 * home
    y = (rng.random(games) < 1 / (1 + np.exp(-d))).astype(float)
    t = START + (np.arange(games) * 6 * 3600 * 10 ** 9).astype("timedelta64[ns]")
    names = np.array([f"p{i}" for i in range(players)])
    return GameLog.from_arrays(names[a], names[b], y, t, advantage={"home": home}, context=SURFACES[c],
                               match_format=FORMATS[rng.integers(0, 3, games)])


@pytest.fixture(scope="module")
def model():
    return DynamicElo(drift=0.05, prior_scale=1.5, variance_scale=2.0, context_scale=0.4, margin_scale=0,
                      format_scales={"bo3": 1.0, "bo5": 1.3}).fit(_log())


def _games(a, b, time, context, fmt, home):
    n = len(a)
    return GameLog.from_arrays(np.asarray(a), np.asarray(b), np.zeros(n), np.asarray(time, dtype="datetime64[ns]"),
                               advantage={"home": np.asarray(home, dtype=float)}, context=np.asarray(context),
                               match_format=np.asarray(fmt))


def test_one_call_equals_the_game_log_route(model):
    """A scalar fixture and an array of fixtures at given times, contexts, formats and covariates: the same
    probabilities as predict_games of a GameLog of those games, to 1e-12 (here exactly)."""
    one = model.predict_proba("p1", "p4", time="2023-11-01", context="clay", match_format="bo5",
                              advantage={"home": 1})
    assert isinstance(one, float)
    route = model.predict_games(_games(["p1"], ["p4"], ["2023-11-01"], ["clay"], ["bo5"], [1.0]))[0]
    assert one == pytest.approx(route, abs=1e-12, rel=0)
    a, b = np.array(["p0", "p2", "p3", "p9"]), np.array(["p5", "p7", "p11", "p15"])
    times = np.array(["2023-03-01", "2023-06-30", "2023-12-24", "2024-02-01"], dtype="datetime64[ns]")
    ctx, fmt, home = np.array(["hard", "grass", "clay", "hard"]), np.array(["bo3", "bo5", "bo5", "bo3"]), [0, 1, 1, 0]
    many = model.predict_proba(a, b, time=times, context=ctx, match_format=fmt, advantage={"home": home})
    np.testing.assert_allclose(many, model.predict_games(_games(a, b, times, ctx, fmt, home)), rtol=0, atol=1e-12)
    # an array of covariates in advantage_names_' order is the dict's
    np.testing.assert_array_equal(model.predict_proba(a, b, time=times, context=ctx, match_format=fmt,
                                                      advantage=np.array(home, float)), many)


def test_the_context_format_time_and_advantage_each_move_the_forecast(model):
    """Each keyword changes the answer as the fitted model says: clay against hard by the players' effects, bo5
    against bo3 by the format's scale (1.3) of the logit, home by beta, and the default time is the last period."""
    kw = dict(time="2023-11-01", match_format="bo3")
    clay = model.predict_proba("p1", "p4", context="clay", **kw)
    hard = model.predict_proba("p1", "p4", context="hard", **kw)
    effects = model.context_effects_
    i, j = model._player_codes(np.array(["p1"]), np.array(["p4"]), "raise")
    moved = (effects[i[0], 0] - effects[j[0], 0]) - (effects[i[0], 2] - effects[j[0], 2])
    assert np.sign(np.log(clay / (1 - clay)) - np.log(hard / (1 - hard))) == np.sign(moved) != 0
    bo3 = model.predict_proba("p1", "p4", context="clay", time="2023-11-01", match_format="bo3")
    bo5 = model.predict_proba("p1", "p4", context="clay", time="2023-11-01", match_format="bo5")
    assert abs(bo5 - 0.5) > abs(bo3 - 0.5)
    home = model.predict_proba("p1", "p4", context="clay", advantage={"home": 1}, **kw)
    assert (home > clay) == (model.beta_[0] > 0)
    last = model.games_.time[-1]
    assert model.predict_proba("p1", "p4", context="clay", match_format="bo3") == \
        model.predict_proba("p1", "p4", context="clay", match_format="bo3", time=last)


@pytest.mark.parametrize("kw, match", [
    (dict(match_format="bo3"), r"fitted with the contexts \['clay', 'grass', 'hard'\]: give the games' context="),
    (dict(context="clay"), r"fitted with the formats \['bo3', 'bo5'\]: give the games' match_format="),
    (dict(context="clay", match_format="bo3", time=20230101), r"time=20230101 is not a date"),
    (dict(context="clay", match_format="bo3", advantage={"away": 1}), r"'away', which is not among this DynamicElo's"),
    (dict(context=["clay", "hard"], match_format="bo3"), r"context has 2 values for 1 games"),
    (dict(context="clay", match_format="bo3", time=["2023-01-05", "2023-02-05"]), r"time has 2 values for 1 games"),
    (dict(context=1, match_format="bo3"), r"the context 1, numbers, and the DynamicElo was fitted on contexts that"),
])
def test_a_keyword_that_cannot_be_used_is_named(model, kw, match):
    with pytest.raises(ValueError, match=match):
        model.predict_proba("p1", "p4", **kw)


def test_a_model_without_the_columns_refuses_them():
    """A model fitted without contexts, formats or covariates refuses them; one with period=None refuses a time."""
    log = _log()
    plain = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    dynamic = DynamicElo(drift=0.05, prior_scale=1.5, variance_scale=2.0).fit(plain)
    with pytest.raises(ValueError, match="fitted without contexts"):
        dynamic.predict_proba("p1", "p4", context="clay")
    with pytest.raises(ValueError, match="fitted without match formats"):
        dynamic.predict_proba("p1", "p4", match_format="bo5")
    with pytest.raises(ValueError, match="fitted without advantage covariates"):
        dynamic.predict_proba("p1", "p4", advantage={"home": 1})
    stationary = DynamicElo(period=None, prior_scale=1.5, variance_scale=2.0).fit(plain)
    with pytest.raises(ValueError, match="period=None, one rating per player at every time"):
        stationary.predict_proba("p1", "p4", time="2023-05-01")


def test_the_command_line_forecasts_the_same_in_one_command(model, tmp_path, capsys):
    """`discrank predict MODEL A B --context --match-format --time --advantage` prints the API's probability; a
    --pairs file with those columns gives it to full precision, and --time as one time for every fixture."""
    path = tmp_path / "m.npz"
    model.save(path)
    args = ["predict", str(path), "p1", "p4", "--context", "clay", "--match-format", "bo5", "--time", "2023-11-01",
            "--advantage", "home=1"]
    assert main(args) == 0
    expected = model.predict_proba("p1", "p4", time="2023-11-01", context="clay", match_format="bo5",
                                   advantage={"home": 1})
    assert capsys.readouterr().out.strip() == f"P(p1 beats p4) = {expected:.4f}"
    fixtures = pd.DataFrame({"a": ["p1", "p2"], "b": ["p4", "p7"], "context": ["clay", "hard"],
                             "match_format": ["bo5", "bo3"], "time": ["2023-11-01", "2023-04-01"], "home": [1, 0]})
    fixtures.to_csv(tmp_path / "f.csv", index=False)
    assert main(["predict", str(path), "--pairs", str(tmp_path / "f.csv"), "--out", str(tmp_path / "p.csv")]) == 0
    got = pd.read_csv(tmp_path / "p.csv")["p"].to_numpy()
    want = model.predict_proba(fixtures.a, fixtures.b, time=fixtures.time.to_numpy(), context=fixtures.context,
                               match_format=fixtures.match_format, advantage={"home": fixtures.home})
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert main(["predict", str(path), "--pairs", str(tmp_path / "f.csv"), "--time", "2023-06-01", "--out",
                 str(tmp_path / "q.csv")]) == 0
    got = pd.read_csv(tmp_path / "q.csv")["p"].to_numpy()
    want = model.predict_proba(fixtures.a, fixtures.b, time="2023-06-01", context=fixtures.context,
                               match_format=fixtures.match_format, advantage={"home": fixtures.home})
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert main(args[:-2] + ["--time", "soon"]) == 2
    assert "--time: time='soon' is not a date" in capsys.readouterr().err


def test_the_command_line_refuses_a_time_for_a_model_whose_ratings_do_not_move(tmp_path, capsys):
    """Elo has no time step: --time is an error naming it, and a time column of --pairs a warning."""
    log = _log()
    path = tmp_path / "elo.npz"
    Elo().fit(GameLog.from_arrays(log.a, log.b, log.score, log.time).to_pairs()).save(path)
    assert main(["predict", str(path), "p1", "p4", "--time", "2023-11-01"]) == 2
    assert "--time does not apply to" in capsys.readouterr().err
    pd.DataFrame({"a": ["p1"], "b": ["p4"], "time": ["2023-11-01"]}).to_csv(tmp_path / "f.csv", index=False)
    assert main(["predict", str(path), "--pairs", str(tmp_path / "f.csv")]) == 0
    assert "column 'time' of" in capsys.readouterr().err


def test_the_pair_and_online_models_refuse_a_time_a_context_or_a_format_and_take_covariates_by_name():
    """Their ratings hold at every time and across contexts and formats: each keyword is a ValueError naming it; the
    pair models' covariates by name equal the array, and a name they were not fitted with is named."""
    from discrank.online import OnlineElo

    log = _log()
    elo = Elo(prior_scale=1.0).fit(GameLog.from_arrays(log.a, log.b, log.score, log.time,
                                                       advantage={"home": log.advantage[:, 0]}))
    online = OnlineElo(step=0.1).fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    for model in (elo, online):
        for key, value in (("time", "2023-05-01"), ("context", "clay"), ("match_format", "bo5")):
            with pytest.raises(ValueError, match=f"{key}= does not apply to {type(model).__name__}"):
                model.predict_proba("p1", "p4", **{key: value})
    assert elo.predict_proba("p1", "p4", advantage={"home": 1}) == elo.predict_proba("p1", "p4", advantage=[[1.0]])
    assert elo.predict_proba("p1", "p4", advantage={"home": 1}) > elo.predict_proba("p1", "p4")
    with pytest.raises(ValueError, match=r"advantage names 'away', which is not among Elo's covariates \['home'\]"):
        elo.predict_proba("p1", "p4", advantage={"away": 1})


def test_outcomes_gives_the_three_outcomes_of_a_draw_model_in_one_call():
    """predict_proba(..., outcomes=True): [P(a wins), P(draw), P(b wins)] per game, predict_outcomes' for a GameLog of
    the games (DynamicElo with Davidson's draws), the expected score its first plus half its second column; Elo's
    and OnlineElo's too."""
    from discrank.online import OnlineElo

    rng = np.random.default_rng(2)
    log = _log()
    score = np.where(rng.random(len(log)) < 0.2, 0.5, log.score)
    drawn = GameLog.from_arrays(log.a, log.b, score, log.time, advantage={"home": log.advantage[:, 0]})
    model = DynamicElo(drift=0.05, prior_scale=1.5, variance_scale=2.0, draws="davidson",
                       draw_propensity_scale=0).fit(drawn)
    three = model.predict_proba(["p1", "p2"], ["p4", "p9"], time="2023-11-01", advantage={"home": [1, 0]},
                                outcomes=True)
    games = GameLog.from_arrays(np.array(["p1", "p2"]), np.array(["p4", "p9"]), np.zeros(2),
                                np.array(["2023-11-01"] * 2, dtype="datetime64[ns]"), advantage={"home": [1.0, 0.0]})
    np.testing.assert_allclose(three, model.predict_outcomes(games), rtol=0, atol=1e-12)
    assert three.shape == (2, 3) and (three[:, 1] > 0.05).all()
    np.testing.assert_allclose(three[:, 0] + three[:, 1] / 2, model.predict_proba(
        ["p1", "p2"], ["p4", "p9"], time="2023-11-01", advantage={"home": [1, 0]}), rtol=0, atol=1e-15)
    elo = Elo(prior_scale=1.0, draws="davidson").fit(GameLog.from_arrays(log.a, log.b, score, log.time))
    assert elo.predict_proba("p1", "p4", outcomes=True).shape == (1, 3)
    online = OnlineElo(step=0.1).fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    np.testing.assert_allclose(online.predict_proba("p1", "p4", outcomes=True)[:, 0],
                               online.predict_proba("p1", "p4"), rtol=0, atol=1e-15)


def test_the_command_line_warns_of_a_time_before_the_fit_and_reads_a_yyyymmdd_column(model, tmp_path, capsys):
    """--time before the first fitted game prints the API's warning; a --pairs time column of YYYYMMDD integers
    (as pandas reads Sackmann-style dates) is read as those dates."""
    path = tmp_path / "m.npz"
    model.save(path)
    assert main(["predict", str(path), "p1", "p4", "--context", "clay", "--match-format", "bo5", "--time",
                 "1999-01-01"]) == 0
    assert "discrank: warning: time=" in capsys.readouterr().err
    pd.DataFrame({"a": ["p1"], "b": ["p4"], "context": ["clay"], "match_format": ["bo5"], "time": [20231101],
                  "home": [1]}).to_csv(tmp_path / "f.csv", index=False)
    assert main(["predict", str(path), "--pairs", str(tmp_path / "f.csv"), "--out", str(tmp_path / "p.csv")]) == 0
    want = model.predict_proba("p1", "p4", time="2023-11-01", context="clay", match_format="bo5",
                               advantage={"home": 1})
    assert pd.read_csv(tmp_path / "p.csv")["p"].iloc[0] == pytest.approx(want, abs=1e-12)
