"""OnlineDisc: the paper's online disc update (Section 4, "Online Update") as an estimator of the family."""

import json
import math
import re
import warnings

import numpy as np
import pytest
from scipy.special import expit

import discrank
from discrank import GameLog, OnlineDisc, PairwiseData, PeriodGames, UnknownPlayerError, Validation, evaluate, load
from discrank._util.losses import binary_log_loss
from discrank.solvers._tuning import time_cut
from discrank.exceptions import NotFittedError, NumericalError, UnusedColumnWarning
from discrank.models.online._disc import tune_step
from discrank.online import STEP_GRID, OnlineElo, online_disc, online_elo

PLAYERS = np.array(["ann", "bob", "cat", "dan", "eve", "fay"])
STRENGTH = np.linspace(-1.0, 1.0, 6)


def transitive_log(n_games=400, seed=0, shuffled=True):
    """Games between six players of increasing strength, at times 0 .. n_games - 1 (given out of order
    when ``shuffled``)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, n_games)
    b = (a + rng.integers(1, 6, n_games)) % 6
    y = (rng.random(n_games) < expit(STRENGTH[a] - STRENGTH[b])).astype(float)
    t = np.arange(n_games, dtype=np.float64)
    order = rng.permutation(n_games) if shuffled else np.arange(n_games)
    return GameLog.from_arrays(PLAYERS[a][order], PLAYERS[b][order], y[order], t[order])


def rps_log(seed=0, per_kind=2, n_games=3000, logit=2.0):
    """A pure rock-paper-scissors league: ``per_kind`` players of each kind, paper beats rock beats scissors
    beats paper with P = sigmoid(logit), one kind against itself 1/2; one game per time. Returns the log
    and the true P(a beats b) of each game."""
    rng = np.random.default_rng(seed)
    kind = np.arange(3 * per_kind) % 3
    names = np.array([f"{'RPS'[k]}{i}" for i, k in enumerate(kind)])
    a = rng.integers(0, kind.size, n_games)
    b = (a + rng.integers(1, kind.size, n_games)) % kind.size
    beats = (kind[a] - kind[b]) % 3  # 1: a's kind beats b's
    p = expit(np.where(beats == 0, 0.0, np.where(beats == 1, logit, -logit)))
    y = (rng.random(n_games) < p).astype(float)
    return GameLog.from_arrays(names[a], names[b], y, np.arange(n_games, dtype=np.float64)), p


def in_time_order(log):
    order = np.argsort(log.time, kind="stable")
    return log.a[order], log.b[order], log.score[order]


def by_label(model, labels, attr):
    """``model``'s ``attr`` for the players ``labels``."""
    index = {label: k for k, label in enumerate(model.labels_.tolist())}
    return getattr(model, attr)[[index[label] for label in labels]]


def loss_or_inf(forecast, y):
    """The mean log loss of ``forecast()`` against ``y``; infinity where the update diverges."""
    try:
        return float(np.mean(binary_log_loss(forecast(), y)))
    except NumericalError:
        return math.inf


# ------------------------------------------------------------------ the update
def test_fit_state_is_online_disc_run_on_the_games_in_time_order_bitwise():
    log = transitive_log()
    model = OnlineDisc(step=0.07).fit(log)
    run = online_disc(*in_time_order(log), step=0.07)
    assert model.labels_.tolist() == run.labels.tolist() == sorted(PLAYERS.tolist())
    np.testing.assert_array_equal(model.strength_, run.ratings)
    np.testing.assert_array_equal(model.consistency_, run.consistency)
    np.testing.assert_array_equal(model.u_[:, 0], run.ratings * run.consistency)
    assert model.step_ == 0.07 and model.step_scores_ is None
    assert model.n_games_.sum() == 2 * len(log) and model.last_time_ == 399.0 and model.time_dtype_ == "float64"
    a, b, _ = in_time_order(log)
    assert model.n_games_.tolist() == [int((a == p).sum() + (b == p).sum()) for p in model.labels_]


def test_tuned_step_is_the_grid_step_whose_forecasts_of_the_latest_half_predict_best():
    log = transitive_log()
    model = OnlineDisc().fit(log)
    a, b, y = in_time_order(log)
    expected = [loss_or_inf(lambda: online_disc(a, b, y, step=s).predictions[200:], y[200:]) for s in STEP_GRID]
    assert math.isinf(expected[-1])  # the largest step diverges: never chosen
    assert list(model.step_scores_) == list(STEP_GRID)
    np.testing.assert_array_equal(list(model.step_scores_.values()), expected)
    assert model.step_ == STEP_GRID[int(np.argmin(expected))]
    np.testing.assert_array_equal(model.strength_, online_disc(a, b, y, step=model.step_).ratings)


@pytest.mark.parametrize("online", [True, False])
def test_tuned_step_with_a_validation_window_predicts_the_window_best(online):
    log = transitive_log()
    a, b, y = in_time_order(log)
    validation = Validation(fraction=0.25, online=online)
    fit, val = time_cut(np.sort(log.time), validation)
    model = OnlineDisc().fit(log, validation=validation)
    def forecast(s):
        if online:
            return online_disc(a, b, y, step=s).predictions[val]
        run = online_disc(a[fit], b[fit], y[fit], step=s)
        u = dict(zip(run.labels.tolist(), run.ratings))
        v = dict(zip(run.labels.tolist(), run.consistency))
        return np.array([expit(v.get(p, 1.0) * v.get(r, 1.0) * (u.get(p, 0.0) - u.get(r, 0.0)))
                         for p, r in zip(a[val], b[val])])

    expected = [loss_or_inf(lambda: forecast(s), y[val]) for s in STEP_GRID]
    np.testing.assert_array_equal(list(model.step_scores_.values()), expected)
    assert model.step_ == STEP_GRID[int(np.argmin(expected))]


@pytest.mark.parametrize("validation", [None, Validation(fraction=0.25), Validation(fraction=0.25, online=True)])
def test_tune_step_with_elo_updates_chooses_as_online_elo_does(validation):
    # the rule is OnlineElo's: given Elo's update it scores every step as OnlineElo's own fit does
    log = transitive_log()
    a, b, y = in_time_order(log)
    codes = {p: k for k, p in enumerate(PLAYERS.tolist())}
    ia, ib = np.array([codes[p] for p in a]), np.array([codes[p] for p in b])

    def frozen(step, fitted, window):
        run = online_elo(ia[fitted], ib[fitted], y[fitted], step=step)
        s = np.zeros(6)
        s[run.labels] = run.ratings
        return expit(s[ia[window]] - s[ib[window]])

    step, scores = tune_step(lambda s: online_elo(ia, ib, y, step=s).predictions, frozen, y, np.sort(log.time),
                             validation)
    elo = OnlineElo().fit(log, validation=validation)
    np.testing.assert_array_equal(list(scores.values()), list(elo.step_scores_.values()))
    assert list(scores) == list(elo.step_scores_) and step == elo.step_


def test_update_a_then_b_equals_fit_of_a_plus_b():
    log = transitive_log(shuffled=False)
    late = GameLog.from_arrays(["gus", "ann", "gus"], ["bob", "hal", "cat"], [1.0, 0.5, 0.0], [400.0, 401.0, 401.0])
    whole = GameLog.from_arrays(np.concatenate([log.a, late.a]), np.concatenate([log.b, late.b]),
                                np.concatenate([log.score, late.score]), np.concatenate([log.time, late.time]))
    model = OnlineDisc(step=0.05).fit(log._take(log.time < 250))
    model.update(log._take(log.time >= 250)).update(late)
    full = OnlineDisc(step=0.05).fit(whole)
    assert model.labels_.tolist() == sorted(PLAYERS.tolist()) + ["gus", "hal"]  # the new ones appended
    labels = full.labels_.tolist()
    for attr in ("strength_", "consistency_", "n_games_"):
        np.testing.assert_array_equal(by_label(model, labels, attr), getattr(full, attr))
    assert model.last_time_ == full.last_time_ == 401.0
    np.testing.assert_array_equal(model.predict_proba(["gus", "hal"], ["ann", "gus"]),
                                  full.predict_proba(["gus", "hal"], ["ann", "gus"]))


def test_predicts_the_rock_paper_scissors_cycle_better_than_online_elo():
    # The cycle is one disc component: the online disc update learns it, Elo's cannot (every rating
    # equal predicts 1/2: log 2 = 0.693). Online protocol, seeded: disc 0.4387, Elo 0.6934, truth 0.4332.
    log, p = rps_log(seed=0)
    ev = evaluate({"elo": OnlineElo(), "disc": OnlineDisc()}, log, cutoff=2000.0, protocol="online")
    loss = {name: float(np.mean(ev.losses[name]["log_loss"])) for name in ("elo", "disc")}
    truth = float(np.mean(binary_log_loss(p[2000:], p[2000:])))
    assert loss["disc"] < loss["elo"] - 0.2
    assert loss["disc"] < truth + 0.01
    assert loss["elo"] > math.log(2.0) - 0.002
    # under the online protocol (one game per time) the predictions are the update's own forecasts
    disc = ev.fitted["disc"]
    run = online_disc(log.a, log.b, log.score, step=disc.step_)
    np.testing.assert_allclose(ev.predictions["disc"], run.predictions[2000:], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(by_label(disc, run.labels.tolist(), "strength_"), run.ratings)  # relabelled
    frame = disc.ratings_frame()  # a cycle has no strength: unranked, the disc coordinates only
    assert frame.columns.tolist() == ["player", "rank", "games", "u_1", "v_1", "last_seen", "provisional"]
    assert frame["rank"].isna().all() and frame.attrs["transitivity"] == {"share": [1.0], "transitive": [False]}
    assert disc._verdict().endswith("the disc component is cyclic (no strength to rank by)")


# ------------------------------------------------------------------ readout
def test_ratings_frame_of_a_transitive_state_ranks_by_strength_on_the_elo_scale():
    model = OnlineDisc(step=0.05).fit(transitive_log())
    assert (model.consistency_ > 0).all()
    frame = model.ratings_frame()
    order = np.argsort(-model.strength_, kind="stable")
    assert frame.columns.tolist() == ["player", "rank", "games", "elo", "strength", "consistency", "u_1", "v_1", "last_seen",
                                      "provisional"]
    assert frame["player"].tolist() == model.labels_[order].tolist() == ["fay", "eve", "dan", "cat", "bob", "ann"]
    assert frame["rank"].tolist() == [1, 2, 3, 4, 5, 6]
    np.testing.assert_array_equal(frame["strength"], model.strength_[order])
    np.testing.assert_array_equal(frame["consistency"], model.consistency_[order])
    elo = 1500 + 400 / np.log(10) * (model.strength_ - model.strength_.mean())
    np.testing.assert_allclose(frame["elo"], elo[order],
                               rtol=0, atol=1e-9)
    anchored = model.ratings_frame(anchor="ann", anchor_rating=1000.0)
    assert anchored.loc[anchored["player"] == "ann", "elo"].item() == 1000.0
    assert frame.attrs["model"] == "OnlineDisc" and frame.attrs["transitivity"]["transitive"] == [True]


def test_ratings_frame_reads_a_transitive_state_with_consistencies_of_both_signs_by_proposition_2():
    model = OnlineDisc(step=0.05).fit(transitive_log(n_games=30))
    # three players at the points (u~ v, v) = (1, 1), (2, 1), (1, -0.2): the origin is outside their hull
    model.labels_, model.n_games_ = np.arange(3), np.array([1, 1, 1])  # codes, relabelled below
    model.last_seen_ = model.time_span_ = None  # (times of no game)
    model.strength_, model.consistency_ = np.array([1.0, 2.0, -5.0]), np.array([1.0, 1.0, -0.2])
    model.relabel(np.array(["x", "y", "z"]))
    frame = model.ratings_frame().set_index("player")
    s, c = frame.loc[["x", "y", "z"], "strength"].to_numpy(), frame.loc[["x", "y", "z"], "consistency"].to_numpy()
    assert (c > 0).all() and frame.attrs["transitivity"]["transitive"] == [True]
    u, v = model.strength_, model.consistency_
    for i, j in ((0, 1), (0, 2), (1, 2)):  # every prediction kept: c_i c_j (s_i - s_j) = v_i v_j (u~_i - u~_j)
        assert c[i] * c[j] * (s[i] - s[j]) == pytest.approx(v[i] * v[j] * (u[i] - u[j]), rel=1e-12, abs=1e-12)
    assert frame.sort_values("rank").index.tolist() == list(np.array(["x", "y", "z"])[np.argsort(-s)])


# ------------------------------------------------------------------ save and load
def test_save_and_load_round_trip_bitwise_and_update_goes_on_from_the_file(tmp_path):
    log = transitive_log(shuffled=False)
    dates = np.datetime64("2024-01-01") + np.arange(len(log)).astype("timedelta64[D]")
    log = GameLog.from_arrays(log.a, log.b, log.score, dates)
    model = OnlineDisc().fit(log)
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert type(back) is OnlineDisc and back.get_params() == {"n_components": 1, "step": None}
    assert back.labels_.tolist() == model.labels_.tolist()
    for attr in ("strength_", "consistency_", "n_games_"):
        np.testing.assert_array_equal(getattr(back, attr), getattr(model, attr))
    assert (back.step_, back.last_time_, back.time_dtype_) == (model.step_, model.last_time_, model.time_dtype_)
    np.testing.assert_array_equal(back.predict_games(log), model.predict_games(log))
    late = GameLog.from_arrays(["ann", "gus"], ["gus", "bob"], [1.0, 0.0], np.array(["2025-02-04"] * 2, "M8[D]"))
    np.testing.assert_array_equal(back.update(late).strength_, model.update(late).strength_)
    with pytest.raises(ValueError, match=r"at time 2024-06-01, before the latest time already seen \(2025-02-04\)"):
        back.update(GameLog.from_arrays(["ann"], ["bob"], [1.0], np.array(["2024-06-01"], "M8[D]")))


def rewrite_header(path, **scalars):
    """The model file ``path`` with its header's scalars changed."""
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["__discrank__"]))
    meta["scalars"].update(scalars)
    arrays["__discrank__"] = np.array(json.dumps(meta))
    np.savez_compressed(path, **arrays)


@pytest.mark.parametrize("scalars, message", [
    ({"step_": -0.5}, "scalars.step_ = -0.5 is not a positive finite number"),
    ({"time_dtype_": "object"}, "time_dtype_ = 'object' needs last_seen_int_, which the file does not hold"),
    ({"last_time_": "noon"}, "scalars.last_time_ = 'noon' with time_dtype_ = 'float64' is not a time"),
    ({"time_dtype_": None}, "the file holds times (last_seen_) but no time_dtype_ to read them"),
])
def test_load_refuses_a_file_whose_step_or_latest_time_is_wrong_naming_them(tmp_path, scalars, message):
    path = tmp_path / "m.npz"
    OnlineDisc(step=0.05).fit(transitive_log()).save(path)
    rewrite_header(path, **scalars)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        load(path)
    assert str(path) in str(info.value)


# ------------------------------------------------------------------ prediction and unseen players
@pytest.mark.parametrize("method", ["predict_proba", "predict_games", "predict_outcomes"])
def test_an_unknown_player_raises_naming_it_unless_unseen_prior(method):
    model = OnlineDisc(step=0.05).fit(transitive_log())

    def ask(a, b, **kw):
        if method == "predict_proba":
            return model.predict_proba(np.array(a), np.array(b), **kw)
        out = getattr(model, method)(GameLog.from_arrays(a, b, np.full(len(a), 0.5)), **kw)
        return out if method == "predict_games" else out[:, 0]

    with pytest.raises(UnknownPlayerError, match=r"'Jannik Siner': this OnlineDisc has not seen them") as info:
        ask(["ann", "Jannik Siner"], ["bob", "cat"])
    assert info.value.labels == ("Jannik Siner",) and info.value.model == "OnlineDisc"
    with pytest.raises(ValueError, match=r"unseen='sometimes' is not one of \('raise', 'prior'\)"):
        ask(["ann"], ["bob"], unseen="sometimes")
    got = ask(["x1", "fay", "x2", "ann"], ["x2", "x1", "ann", "bob"], unseen="prior")
    k = {p: i for i, p in enumerate(model.labels_.tolist())}
    u, v = model.strength_, model.consistency_
    expected = [0.5, expit(v[k["fay"]] * u[k["fay"]]), expit(-v[k["ann"]] * u[k["ann"]]),
                expit(v[k["ann"]] * v[k["bob"]] * (u[k["ann"]] - u[k["bob"]]))]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
    if method == "predict_outcomes":
        q = model.predict_outcomes(GameLog.from_arrays(["ann"], ["bob"], [0.5]))
        assert q[0, 1] == 0.0 and q[0, 0] + q[0, 2] == 1.0 and model.predicts_draws is False


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("params, message", [
    ({"n_components": 2}, "OnlineDisc: n_components must be 1: the paper's online update (Section 4) moves one "
                          "disc component, in the strength/consistency form of Proposition 2, got 2"),
    ({"n_components": True}, "OnlineDisc: n_components must be 1"),
    ({"step": 0.0}, "OnlineDisc: step must be a positive finite number (the update's step), or None to tune it, "
                    "got 0.0"),
    ({"step": -1}, "got -1"),
    ({"step": math.inf}, "got inf"),
    ({"step": math.nan}, "got nan"),
    ({"step": "0.1"}, "got '0.1'"),
])
def test_bad_parameters_are_refused_naming_the_model_and_the_value(params, message):
    model = OnlineDisc(**params)
    with pytest.raises(ValueError, match=re.escape(message)):
        model.fit(transitive_log())
    assert not hasattr(model, "labels_")


def test_a_step_that_diverges_is_a_numerical_error_and_leaves_the_model_as_it_was():
    model = OnlineDisc(step=0.05).fit(transitive_log())
    before = model.strength_
    with pytest.raises(NumericalError, match="online_disc diverged with step=1000.0"):
        model.set_params(step=1000.0).fit(transitive_log())
    assert model.strength_ is before and model.step_ == 0.05


def test_advantage_columns_are_refused_in_fit_and_update_naming_them():
    log = transitive_log(shuffled=False)
    home = GameLog.from_arrays(log.a, log.b, log.score, log.time, advantage={"home": np.arange(len(log)) % 2})
    assert OnlineDisc.takes_advantage is False and OnlineDisc.sequential_updates is True
    message = ("OnlineDisc.{}: the log has the advantage column(s) 'home', which the paper's online disc update "
               "cannot use")
    model = OnlineDisc(step=0.05)
    with pytest.raises(ValueError, match=re.escape(message.format("fit"))):
        model.fit(home)
    assert not hasattr(model, "labels_")
    model.fit(log)
    before = model.strength_
    later = GameLog.from_arrays(log.a, log.b, log.score, log.time + 400, advantage={"home": np.arange(len(log)) % 2})
    with pytest.raises(ValueError, match=re.escape(message.format("update"))):
        model.update(later)
    assert model.strength_ is before


@pytest.mark.parametrize("data, name", [("pairs", "PairwiseData"), ("periods", "PeriodGames")])
def test_pairs_and_period_sums_are_refused_saying_what_they_lost(data, name):
    log = transitive_log()
    given = log.to_pairs() if data == "pairs" else PeriodGames.from_log(log, period=100.0)
    assert type(given) is {"PairwiseData": PairwiseData, "PeriodGames": PeriodGames}[name]
    with pytest.raises(TypeError, match=f"OnlineDisc.fit expects a discrank.GameLog, got {name}: .*one by one in time"):
        OnlineDisc(step=0.05).fit(given)


def test_update_refuses_the_past_times_of_another_kind_and_an_unfitted_model():
    log = transitive_log()
    with pytest.raises(NotFittedError, match="this OnlineDisc is not fitted yet"):
        OnlineDisc(step=0.05).update(log)
    with pytest.raises(NotFittedError, match="this OnlineDisc is not fitted yet"):
        OnlineDisc(step=0.05).predict_proba("ann", "bob")
    model = OnlineDisc(step=0.05).fit(log)
    before = model.strength_
    with pytest.raises(ValueError, match=r"a game at time 12.0, before the latest time already seen \(399.0\)"):
        model.update(GameLog.from_arrays(["ann"], ["bob"], [1.0], [12.0]))
    with pytest.raises(TypeError, match=r"the times of update's log \(datetime64\[D\]\) are not of the kind fitted"):
        model.update(GameLog.from_arrays(["ann"], ["bob"], [1.0], np.array(["2024-01-01"], "M8[D]")))
    with pytest.raises(TypeError, match=r"validation must be a discrank.Validation, got float"):
        OnlineDisc().fit(log, validation=0.1)
    assert model.strength_ is before
    assert discrank.OnlineDisc is discrank.models.OnlineDisc is OnlineDisc
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.update(GameLog.from_arrays(["ann"], ["bob"], [1.0], [399.0]))  # the latest time itself: allowed


def test_the_cli_reads_a_model_file_predicts_describes_and_plots_it(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from discrank.cli import main

    model = OnlineDisc(step=0.05).fit(transitive_log())
    model.save(tmp_path / "m.npz")
    assert main(["predict", str(tmp_path / "m.npz"), "fay", "ann"]) == 0
    assert f"P(fay beats ann) = {model.predict_proba('fay', 'ann'):.4f}" in capsys.readouterr().out
    assert main(["predict", str(tmp_path / "m.npz"), "fay", "Jannik Siner"]) != 0
    assert "unknown player 'Jannik Siner'" in capsys.readouterr().err
    assert main(["info", str(tmp_path / "m.npz")]) == 0
    out = capsys.readouterr().out
    assert "online disc update (Section 4), step 0.05, 400 games: the disc component is transitive" in out
    assert main(["plot", str(tmp_path / "m.npz"), "--out", str(tmp_path / "m.png")]) == 0
    assert (tmp_path / "m.png").stat().st_size > 0


def test_evaluate_fits_it_without_the_advantage_columns_and_warns_once_naming_them():
    log = transitive_log(shuffled=False)
    home = GameLog.from_arrays(log.a, log.b, log.score, log.time, advantage={"home": np.arange(len(log)) % 2})
    with pytest.warns(UnusedColumnWarning, match=re.escape(
            "evaluate: 'disc' takes no advantage covariates: fitted and scored without the column(s) 'home'")):
        ev = evaluate({"disc": OnlineDisc(step=0.05)}, home, cutoff=300.0)
    assert ev.notes == ["'disc' takes no advantage covariates: fitted and scored without the column(s) 'home'"]
    train, test = log._take(log.time < 300.0), log._take(log.time >= 300.0)
    expected = OnlineDisc(step=0.05).fit(train).predict_games(test)
    np.testing.assert_array_equal(ev.predictions["disc"], expected)


def test_ratings_frame_says_when_each_player_was_last_seen_and_keeps_the_active_ones():
    a = np.array(["p0", "p1", "p2", "p0", "p1", "p0"])
    b = np.array(["p1", "p2", "p0", "p1", "p0", "p1"])
    score = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    t = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    log = GameLog.from_arrays(a, b, score, time=t)
    model = OnlineDisc(step=0.1).fit(GameLog.from_arrays(a[:4], b[:4], score[:4], time=t[:4]))
    model.update(GameLog.from_arrays(a[4:], b[4:], score[4:], time=t[4:]))
    frame = model.ratings_frame()
    assert dict(zip(frame["player"], frame["last_seen"])) == {"p0": 5.0, "p1": 5.0, "p2": 2.0}
    active = model.ratings_frame(active_since=3.0)
    assert sorted(active["player"]) == ["p0", "p1"] and active["rank"].tolist() in ([1, 2], [float("nan")] * 2)
    with pytest.raises(ValueError, match=r"active_since=9.0 is outside the fitted games' time range: the fitted games' times run from 0.0 to 5.0"):
        model.ratings_frame(active_since=9.0)
    again = OnlineDisc(step=0.1).fit(log)
    np.testing.assert_array_equal(again.last_seen_, model.last_seen_)
    np.testing.assert_array_equal(again.n_games_, model.n_games_)
