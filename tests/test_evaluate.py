"""discrank.evaluate: train on the past, score the future (issue 14).

Every number evaluate reports is recomputed here from its per-game predictions and from the log, with
numpy: the losses, the paired standard errors, the calibration table, the unseen players' games (known
by construction of the log), the rolling origins; and the tuning is checked blind to the test games.
"""

import math
import re
import warnings

import numpy as np
import pytest
from scipy.special import expit

from discrank import DiscDecomposition, Elo, Evaluation, GameLog, MElo, PairwiseData, evaluate
from discrank.evaluation._evaluate import game_losses
from discrank.exceptions import OneSidedLogWarning

EXACT = 1e-12  # reported scores against the same sums done here
N_PLAYERS, N_GAMES, CUTOFF, N_OLD = 40, 4000, 3000, 36  # players N_OLD.. first play at CUTOFF or later


def simulated(seed=7):
    """40 players of N(0, 1) true ratings, 4000 games at times 0 .. 3999, about 10% draws; before the
    cut-off only players 0 .. 35 play, from it on all 40."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, N_PLAYERS)
    t = np.arange(N_GAMES)
    early = t < CUTOFF
    a = np.where(early, rng.integers(0, N_OLD, N_GAMES), rng.integers(0, N_PLAYERS, N_GAMES))
    b = np.where(early, (a + rng.integers(1, N_OLD, N_GAMES)) % N_OLD, (a + rng.integers(1, N_PLAYERS, N_GAMES)) % N_PLAYERS)
    p = expit(skill[a] - skill[b])
    u = rng.random(N_GAMES)
    y = (u < p).astype(float)
    y[np.abs(u - p) < 0.05] = 0.5
    return GameLog.from_arrays(a, b, y, t)


@pytest.fixture(scope="module")
def log():
    out = simulated()
    early = out.time < CUTOFF
    assert set(np.r_[out.a[early], out.b[early]].tolist()) == set(range(N_OLD))  # all 36 seen before the cut
    assert np.sum(out.score == 0.5) > 100 and np.all(out.a != out.b)
    return out


def new_player_games(log, start=CUTOFF, end=N_GAMES):
    """Games in [start, end) with a player who has no game before ``start``: counted from the log."""
    seen = set(np.r_[log.a[log.time < start], log.b[log.time < start]].tolist())
    window = (log.time >= start) & (log.time < end)
    return window & ~np.array([x in seen and y in seen for x, y in zip(log.a, log.b)])


@pytest.fixture(scope="module")
def evaluation(log):
    return evaluate({"elo": Elo(), "disc": DiscDecomposition(1, random_state=0), "fixed": Elo(prior_scale=0.5)},
                    log, cutoff=CUTOFF)


# ------------------------------------------------------------------------------- what is scored
def test_unseen_games_are_counted_and_left_out_by_default(log, evaluation):
    unseen = new_player_games(log)
    n_new = int(unseen.sum())
    assert n_new == int((((log.a >= N_OLD) | (log.b >= N_OLD)) & (log.time >= CUTOFF)).sum()) > 100
    assert evaluation.n_unseen == n_new
    assert evaluation.n_games == (N_GAMES - CUTOFF) - n_new
    scored = (log.time >= CUTOFF) & ~unseen
    np.testing.assert_array_equal(evaluation.scores, log.score[scored])  # in time order
    (origin,) = evaluation.origins
    assert origin["train_games"] == CUTOFF and origin["test_games"] == N_GAMES - CUTOFF
    assert origin["scored_games"] == evaluation.n_games and origin["unseen_games"] == n_new


def test_predictions_are_those_of_the_models_fitted_on_the_training_games(log, evaluation):
    scored = (log.time >= CUTOFF) & ~new_player_games(log)
    train = GameLog.from_arrays(log.a[:CUTOFF], log.b[:CUTOFF], log.score[:CUTOFF], log.time[:CUTOFF])
    fixed = Elo(prior_scale=0.5).fit(train)  # no tuning: the same fit as inside evaluate
    np.testing.assert_allclose(evaluation.predictions["fixed"], fixed.predict_proba(log.a[scored], log.b[scored]),
                               rtol=0, atol=1e-12)
    for name in ("elo", "disc", "fixed"):
        model = evaluation.fitted[name]
        assert sorted(model.labels_.tolist()) == list(range(N_OLD))  # the log's labels, training players only
        np.testing.assert_array_equal(evaluation.predictions[name], model.predict_proba(log.a[scored], log.b[scored]))


def test_reported_scores_are_the_means_of_the_per_game_losses(evaluation):
    y = evaluation.scores
    rows = {r["model"]: r for r in evaluation.summary()}
    assert list(rows) == ["elo", "disc", "fixed"] and evaluation.reference == "elo"
    for name, q in evaluation.predictions.items():
        assert np.all((q > 0) & (q < 1))
        log_loss = -(y * np.log(q) + (1.0 - y) * np.log(1.0 - q))
        decisive = y != 0.5
        right = np.where(q[decisive] == 0.5, 0.5, ((q[decisive] > 0.5) == (y[decisive] == 1.0)).astype(float))
        assert rows[name]["log_loss"] == pytest.approx(np.sum(log_loss) / y.size, rel=0, abs=EXACT)
        assert rows[name]["brier"] == pytest.approx(np.sum((q - y) ** 2) / y.size, rel=0, abs=EXACT)
        assert rows[name]["accuracy"] == pytest.approx(np.sum(right) / decisive.sum(), rel=0, abs=EXACT)
        np.testing.assert_allclose(evaluation.losses[name]["log_loss"], log_loss, rtol=1e-13, atol=0)
        assert rows[name]["fit_seconds"] == evaluation.fit_seconds[name] >= 0
    assert 0.4 < rows["elo"]["log_loss"] < 0.693  # the ratings predict: better than a coin


def test_paired_standard_error_is_that_of_the_per_game_log_loss_differences(evaluation):
    y = evaluation.scores
    n = y.size
    loss = {name: -(y * np.log(q) + (1.0 - y) * np.log(1.0 - q)) for name, q in evaluation.predictions.items()}
    rows = {r["model"]: r for r in evaluation.summary()}
    for name in ("disc", "fixed"):
        d = loss[name] - loss["elo"]
        assert rows[name]["diff"] == pytest.approx(d.mean(), rel=0, abs=EXACT)
        assert rows[name]["se"] == pytest.approx(np.std(d, ddof=1) / math.sqrt(n), rel=1e-9)
        assert rows[name]["se"] > 0
    assert rows["elo"]["diff"] == 0.0 and rows["elo"]["se"] == 0.0


def test_another_reference_moves_the_differences_only(log, evaluation):
    other = evaluate({"elo": Elo(), "disc": DiscDecomposition(1, random_state=0), "fixed": Elo(prior_scale=0.5)},
                     log, cutoff=CUTOFF, reference="fixed")
    assert other.reference == "fixed"
    rows, base = {r["model"]: r for r in other.summary()}, {r["model"]: r for r in evaluation.summary()}
    assert rows["fixed"]["diff"] == 0.0
    assert rows["elo"]["diff"] == pytest.approx(-base["fixed"]["diff"], rel=0, abs=EXACT)
    assert rows["elo"]["se"] == pytest.approx(base["fixed"]["se"], rel=1e-9)
    for name in rows:
        assert rows[name]["log_loss"] == base[name]["log_loss"]


def test_calibration_table_bins_the_predictions(evaluation):
    q, y = evaluation.predictions["elo"], evaluation.scores
    table = evaluation.calibration("elo")
    edges = np.linspace(0.0, 1.0, 11)  # ten equal-width bins of [0, 1], the last one closed
    np.testing.assert_array_equal(table["lo"], edges[:-1])
    np.testing.assert_array_equal(table["hi"], edges[1:])
    for k in range(10):
        inside = (q >= edges[k]) & ((q < edges[k + 1]) if k < 9 else (q <= 1.0))
        assert table["games"][k] == inside.sum()
        if inside.any():
            assert table["predicted"][k] == pytest.approx(q[inside].mean(), rel=1e-12)
            assert table["observed"][k] == pytest.approx(y[inside].mean(), rel=1e-12)
        else:
            assert np.isnan(table["predicted"][k]) and np.isnan(table["observed"][k])
    assert table["games"].sum() == evaluation.n_games
    with pytest.raises(ValueError, match="unknown model 'nope'"):
        evaluation.calibration("nope")


def test_unseen_prior_scores_the_games_with_a_new_player_too(log, evaluation):
    out = evaluate({"elo": Elo(), "disc": DiscDecomposition(1, random_state=0), "fixed": Elo(prior_scale=0.5)},
                   log, cutoff=CUTOFF, unseen="prior")
    unseen = new_player_games(log)
    assert out.unseen == "prior" and out.n_unseen == evaluation.n_unseen == int(unseen.sum())
    assert out.n_games == evaluation.n_games + out.n_unseen == N_GAMES - CUTOFF
    np.testing.assert_array_equal(out.scores, log.score[CUTOFF:])
    test_unseen = unseen[CUTOFF:]
    for name in ("elo", "disc", "fixed"):
        # the games of known players are predicted as before, the others from the prior
        np.testing.assert_array_equal(out.predictions[name][~test_unseen], evaluation.predictions[name])
    fixed = out.fitted["fixed"]
    s = dict(zip(fixed.labels_.tolist(), fixed.ratings_))
    expected = expit(np.array([s.get(x, 0.0) - s.get(z, 0.0) for x, z in zip(log.a[CUTOFF:], log.b[CUTOFF:])]))
    np.testing.assert_allclose(out.predictions["fixed"], expected, rtol=0, atol=1e-15)
    both_new = (log.a[CUTOFF:] >= N_OLD) & (log.b[CUTOFF:] >= N_OLD)
    assert both_new.any() and np.all(out.predictions["fixed"][both_new] == 0.5)


def test_rolling_origins_split_the_test_period_and_their_scored_games_add_up(log):
    out = evaluate([Elo(prior_scale=0.5), Elo()], log, cutoff=CUTOFF, rolling=3)
    assert len(out.origins) == 3
    starts = [o["test_start"] for o in out.origins]
    ends = [o["test_end"] for o in out.origins]
    assert starts[0] == CUTOFF and ends[-1] == N_GAMES and starts[1:] == ends[:-1]
    assert [o["train_end"] for o in out.origins] == starts  # each origin trains on every earlier game
    assert sum(o["test_games"] for o in out.origins) == N_GAMES - CUTOFF
    assert sum(o["scored_games"] for o in out.origins) == out.n_games == out.scores.size
    assert out.predictions["Elo"].size == out.n_games
    for o in out.origins:
        assert o["train_games"] == int(np.sum(log.time < o["test_start"]))
        assert o["test_games"] == int(np.sum((log.time >= o["test_start"]) & (log.time < o["test_end"])))
        new = new_player_games(log, o["test_start"], o["test_end"])
        assert o["unseen_games"] == int(new.sum())
        assert o["scored_games"] == o["test_games"] - o["unseen_games"]
    assert out.n_unseen == sum(o["unseen_games"] for o in out.origins) > 0
    # the later origins have seen the new players in the earlier windows: fewer games left out
    assert out.n_unseen < int(new_player_games(log).sum())


def test_tuned_prior_scale_does_not_depend_on_the_test_games(log):
    flipped = GameLog.from_arrays(log.a, log.b, np.where(log.time >= CUTOFF, 1.0 - log.score, log.score), log.time)
    models = {"elo": Elo(), "disc": DiscDecomposition(1, random_state=0), "melo": MElo(1, random_state=0)}
    one = evaluate(models, log, cutoff=CUTOFF)
    two = evaluate(models, flipped, cutoff=CUTOFF)
    for name in models:
        assert one.fitted[name].prior_scale_ == two.fitted[name].prior_scale_
        assert one.fitted[name].prior_tuning_ == two.fitted[name].prior_tuning_
        assert one.fitted[name].prior_tuning_["rule"].startswith("time order")
        np.testing.assert_array_equal(one.predictions[name], two.predictions[name])
    np.testing.assert_array_equal(two.scores, 1.0 - one.scores)


def test_tuning_validates_on_the_latest_tenth_of_the_training_games_when_asked(log):
    out = evaluate(Elo(), log, cutoff=CUTOFF, tune_like_test=False)
    record = out.fitted["Elo"].prior_tuning_
    assert record["rule"] == "time order"
    assert record["n_fit_games"] == 2700 and record["n_validation_games"] == 300


def test_the_prototypes_given_are_not_fitted(log):
    proto = Elo()
    evaluate(proto, log, cutoff=CUTOFF)
    assert not hasattr(proto, "labels_") and proto.prior_scale is None


def test_test_fraction_cuts_at_the_latest_share_of_the_games(log):
    out = evaluate(Elo(prior_scale=0.5), log, test_fraction=0.25)
    (origin,) = out.origins
    assert origin["train_end"] == CUTOFF and origin["test_games"] == N_GAMES - CUTOFF
    np.testing.assert_array_equal(out.predictions["Elo"],
                                  evaluate(Elo(prior_scale=0.5), log, cutoff=CUTOFF).predictions["Elo"])


def test_test_period_and_gap_bound_the_scored_games(log):
    out = evaluate(Elo(prior_scale=0.5), log, cutoff=2500, test_start=3000, test_end=3500)
    (origin,) = out.origins
    assert origin["train_games"] == 2500 and origin["test_games"] == 500  # 2500 .. 2999 in neither
    assert out.n_games == 500 - int(new_player_games(log, 2500, 3500)[3000:3500].sum())


# ------------------------------------------------------------------------------- the models argument
def test_models_can_be_one_estimator_a_list_or_a_dict(log):
    one = evaluate(Elo(prior_scale=0.5), log, cutoff=CUTOFF)
    assert isinstance(one, Evaluation) and one.names == ["Elo"] and one.reference == "Elo"
    listed = evaluate([Elo(prior_scale=0.5), Elo(prior_scale=2.0), MElo(1, prior_scale=0.5, random_state=0)], log,
                      cutoff=CUTOFF)
    assert listed.names == ["Elo", "Elo_2", "MElo"] and listed.reference == "Elo"
    as_dict = evaluate({"b": Elo(prior_scale=2.0), "a": Elo(prior_scale=0.5)}, log, cutoff=CUTOFF)
    assert as_dict.names == ["b", "a"] and as_dict.reference == "b"
    np.testing.assert_array_equal(as_dict.predictions["a"], one.predictions["Elo"])
    np.testing.assert_array_equal(as_dict.predictions["b"], listed.predictions["Elo_2"])


# ------------------------------------------------------------------------------- bad arguments
@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(cutoff=5000), ValueError, "cutoff=5000 is outside the log's time range (0 .. 3999)"),
    (dict(cutoff=0), ValueError, "cutoff=0 is outside the log's time range (0 .. 3999)"),
    (dict(cutoff=-3), ValueError, "cutoff=-3 is outside the log's time range"),
    (dict(cutoff=2000, test_start=1500), ValueError, "test_start=1500 precedes the end of the training period (cutoff=2000)"),
    (dict(cutoff=2000, test_end=2000), ValueError, "test_end=2000 is not after test_start=2000"),
    (dict(cutoff=2000, test_start=2500, test_end=2400), ValueError, "test_end=2400 is not after test_start=2500"),
    (dict(cutoff=2000, train_start=2000), ValueError, "train_start=2000 is not before the cutoff 2000"),
    (dict(cutoff=2000, reference="nobody"), ValueError, "reference='nobody' is not among the models ['elo']"),
    (dict(cutoff=2000, unseen="bogus"), ValueError, "unseen must be one of ('exclude', 'prior'), got 'bogus'"),
    (dict(), ValueError, "give exactly one of cutoff= (a time) and test_fraction="),
    (dict(cutoff=2000, test_fraction=0.2), ValueError, "give exactly one of cutoff= (a time) and test_fraction="),
    (dict(test_fraction=1.5), ValueError, "test_fraction must be in (0, 1), got 1.5"),
    (dict(test_fraction=0.0), ValueError, "test_fraction must be in (0, 1), got 0.0"),
    (dict(cutoff="2020-01-01"), ValueError, "cutoff='2020-01-01' is not a number"),
    (dict(cutoff=float("nan")), ValueError, "cutoff=nan is not a number"),
    (dict(cutoff=2000, rolling=0), ValueError, "rolling must be an integer >= 1, got 0"),
    (dict(cutoff=2000, rolling=2.5), ValueError, "rolling must be an integer >= 1, got 2.5"),
    (dict(cutoff=2000, bins=1), ValueError, "bins must be an integer >= 2, got 1"),
])
def test_bad_arguments_are_refused_naming_the_value(log, kwargs, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        evaluate({"elo": Elo(prior_scale=0.5)}, log, **kwargs)


def test_a_log_without_times_is_refused(log):
    with pytest.raises(ValueError, match="needs a game log with times"):
        evaluate(Elo(), GameLog.from_arrays(log.a, log.b, log.score), cutoff=CUTOFF)
    with pytest.raises(TypeError, match="log must be a discrank.GameLog, got PairwiseData"):
        evaluate(Elo(), PairwiseData.from_games(log.a, log.b, log.score), cutoff=CUTOFF)


def test_a_test_period_without_a_known_pair_is_refused(log):
    # the games from the cut-off on are between other players: nothing can be predicted
    b = np.where(log.time >= CUTOFF, log.b + 100, log.b)
    a = np.where(log.time >= CUTOFF, log.a + 100, log.a)
    with pytest.raises(ValueError, match=r"no test game between 3000 and 4000 has both players in the training "
                                         r"period: the models are given no overlapping players"):
        evaluate(Elo(), GameLog.from_arrays(a, b, log.score, log.time), cutoff=CUTOFF)
    # as many games with one new player each: known players on both sides are needed, not one
    half = GameLog.from_arrays(a, np.where(log.time >= CUTOFF, log.b, b), log.score, log.time)
    with pytest.raises(ValueError, match="no overlapping players"):
        evaluate(Elo(), half, cutoff=CUTOFF, unseen="prior")


@pytest.mark.parametrize("models, exc, message", [
    ([], ValueError, "give at least one model to evaluate"),
    ({}, ValueError, "give at least one model to evaluate"),
    ({"x": object()}, TypeError, "model 'x' (object) has no fit / predict_proba"),
    ({1: Elo()}, TypeError, "model names must be strings, got 1"),
])
def test_bad_models_are_refused(log, models, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        evaluate(models, log, cutoff=CUTOFF)


# ------------------------------------------------------------------------------- per-game losses
def test_game_losses_count_a_draw_as_half_and_leave_it_out_of_the_accuracy():
    q = np.array([0.8, 0.8, 0.8, 0.5, 0.5, 0.3])
    y = np.array([1.0, 0.0, 0.5, 1.0, 0.5, 0.0])
    out = game_losses(q, y)
    expected = -(y * np.log(q) + (1.0 - y) * np.log(1.0 - q))
    np.testing.assert_allclose(out["log_loss"], expected, rtol=1e-15, atol=0)
    np.testing.assert_allclose(out["brier"], (q - y) ** 2, rtol=0, atol=0)
    np.testing.assert_array_equal(out["correct"][[0, 1, 3, 5]], [1.0, 0.0, 0.5, 1.0])
    assert np.isnan(out["correct"][2]) and np.isnan(out["correct"][4])


def test_game_losses_clip_certain_predictions():
    out = game_losses(np.array([0.0, 1.0, 1.0]), np.array([1.0, 0.0, 1.0]))
    lo, hi = 1e-15, 1.0 - 1e-15  # the clip, as floats (hi is 1 - 0.999e-15)
    np.testing.assert_allclose(out["log_loss"], [-math.log(lo), -math.log(1.0 - hi), -math.log(hi)], rtol=1e-12)
    assert np.all(np.isfinite(out["log_loss"])) and out["log_loss"][0] == pytest.approx(34.538776394910684, rel=1e-15)
    np.testing.assert_array_equal(out["brier"], [1.0, 1.0, 0.0])


# ------------------------------------------------------------------------------- one-sided logs (issue 33)
def winner_first(log):
    """The games with the winner as ``a`` (and the draws as they are): Sackmann's files read with winner=."""
    lost = log.score < 0.5
    return GameLog.from_arrays(np.where(lost, log.b, log.a), np.where(lost, log.a, log.b),
                               np.where(lost, 1.0 - log.score, log.score), log.time)


def test_a_winner_first_log_warns_that_side_a_always_wins_and_names_shuffle_sides(log):
    wf = winner_first(log)
    decided = int(np.sum(log.score != 0.5))
    with pytest.warns(OneSidedLogWarning) as seen:
        ev = evaluate({"elo": Elo(prior_scale=0.5)}, wf, cutoff=CUTOFF)
    assert [str(w.message) for w in seen] == [
        f"side 'a' wins {decided} of the {decided} decided games of this log (100.0%): it is written winner first, "
        "and the calibration table measures the order of the columns, not the models. Orient the games at random: "
        "log.shuffle_sides(seed) (discrank --shuffle-sides SEED)"]
    c = ev.calibration("elo")  # what the warning is about: a wins (or draws) in every bin, whatever predicted
    ok = c["games"] > 0
    assert np.all(c["observed"][ok] > 0.7) and c["predicted"][ok].min() < 0.3
    loser_first = GameLog.from_arrays(wf.b, wf.a, 1.0 - wf.score, wf.time)
    with pytest.warns(OneSidedLogWarning, match=r"^side 'b' wins .* it is written loser first"):
        evaluate({"elo": Elo(prior_scale=0.5)}, loser_first, cutoff=CUTOFF)


@pytest.mark.parametrize("wins, losses, warned", [(99, 1, True), (98, 2, False), (99, 0, False), (0, 100, True)])
def test_the_one_sided_warning_needs_99_percent_of_at_least_100_decided_games(wins, losses, warned):
    n = wins + losses
    a, b = np.arange(n) % 7, (np.arange(n) + 1 + np.arange(n) // 7 % 5) % 7
    score = np.r_[np.ones(wins), np.zeros(losses), np.full(20, 0.5)]  # draws are not decided games
    log = GameLog.from_arrays(np.r_[a, np.arange(20) % 7], np.r_[b, (np.arange(20) + 1) % 7], score,
                              np.arange(n + 20))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        evaluate({"elo": Elo(prior_scale=0.5)}, log, test_fraction=0.3, unseen="prior")
    assert [w.category for w in seen if w.category is OneSidedLogWarning] == ([OneSidedLogWarning] if warned else [])


def test_shuffle_sides_swaps_a_seeded_random_half_flipping_scores_and_covariates():
    n = 101
    base = GameLog.from_arrays(np.arange(n), np.arange(n) + 1000, np.linspace(0.0, 1.0, n), np.arange(n) * 2.0,
                               advantage={"home": np.where(np.arange(n) % 3 == 0, 1.0, 0.0), "rest": np.arange(n) - 50.0})
    base.dropped = {"missing result": 3}
    out = base.shuffle_sides(5)
    swapped = out.a >= 1000
    assert swapped.sum() == n // 2
    np.testing.assert_array_equal(np.where(swapped, out.b, out.a), base.a)
    np.testing.assert_array_equal(np.where(swapped, out.a, out.b), base.b)
    np.testing.assert_array_equal(out.score, np.where(swapped, 1.0 - base.score, base.score))
    np.testing.assert_array_equal(np.where(swapped[:, None], -out.advantage, out.advantage), base.advantage)
    assert not np.signbit(out.advantage[out.advantage == 0.0]).any()  # no -0.0
    np.testing.assert_array_equal(out.time, base.time)
    assert out.advantage_names == ("home", "rest") and out.dropped == {"missing result": 3}
    np.testing.assert_array_equal(base.shuffle_sides(5).a, out.a)  # the seed fixes the draw
    assert not np.array_equal(base.shuffle_sides(6).a, out.a)
    assert base.a.tolist() == list(range(n))  # the log itself is unchanged
    with pytest.raises(TypeError, match="random_state must be None, an integer >= 0"):
        base.shuffle_sides("seven")


def test_shuffle_sides_calibrates_a_winner_first_log_and_keeps_its_losses(log):
    wf = winner_first(log)
    with pytest.warns(OneSidedLogWarning):
        one_sided = evaluate({"elo": Elo(prior_scale=0.5)}, wf, cutoff=CUTOFF)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneSidedLogWarning)
        shuffled = evaluate({"elo": Elo(prior_scale=0.5)}, wf.shuffle_sides(0), cutoff=CUTOFF)
        plain = evaluate({"elo": Elo(prior_scale=0.5)}, log, cutoff=CUTOFF)
    # the models are symmetric in the sides: the per-game losses do not depend on the orientation
    for ev in (shuffled, plain):
        for k in ("log_loss", "brier"):
            np.testing.assert_allclose(ev.losses["elo"][k], one_sided.losses["elo"][k], rtol=1e-10, atol=1e-12)
    c = shuffled.calibration("elo")
    full = c["games"] >= 50
    assert full.sum() >= 5 and np.all(np.abs(c["observed"][full] - c["predicted"][full]) < 0.15)
