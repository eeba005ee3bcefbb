"""The prediction protocol on every model: predict_proba, predict_games and predict_outcomes, one policy
for players the model has not seen (UnknownPlayerError, or unseen="prior"), the unseen= check, the
active players of DynamicElo's current table, and OnlineElo's refusal of advantage columns."""

import math
import re
import warnings

import numpy as np
import pytest
from scipy.special import expit

import discrank
from discrank import (DiscDecomposition, DiscDecompositionCV, DynamicElo, Elo, EloPlusPlus, GameLog, MElo,
                      SchurDecomposition, UnknownPlayerError, evaluate)
from discrank.exceptions import UnusedColumnWarning
from discrank.online import OnlineElo

PLAYERS = np.array([f"p{k}" for k in range(6)])
STRENGTH = np.linspace(-1.0, 1.0, 6)
LAST = 9.0  # the latest time of the log: DynamicElo's last period (period=1)


def round_robin(seed=0, rounds=10):
    """Every pair of six players, ``rounds`` times each way, one round per time 0 .. 9."""
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(6, k=1)
    a = np.concatenate([np.concatenate([i, j]) for _ in range(rounds)])
    b = np.concatenate([np.concatenate([j, i]) for _ in range(rounds)])
    t = np.repeat(np.arange(rounds, dtype=np.float64), 2 * i.size)
    y = (rng.random(a.size) < expit(STRENGTH[a] - STRENGTH[b])).astype(float)
    return GameLog.from_arrays(PLAYERS[a], PLAYERS[b], y, t)


MODELS = {
    "Elo": lambda: Elo(prior_scale=1.0),
    "EloPlusPlus": lambda: EloPlusPlus(prior_scale=1.0),
    "MElo": lambda: MElo(1, prior_scale=2.0, random_state=0),
    "DiscDecomposition": lambda: DiscDecomposition(1, prior_scale=2.0, random_state=0),
    "DiscDecompositionCV": lambda: DiscDecompositionCV(regularizations=(0.0, 1.0), cv=2, prior_scale=2.0,
                                                       random_state=0),
    "SchurDecomposition": lambda: SchurDecomposition(1),
    "DynamicElo": lambda: DynamicElo(period=1.0, drift=0.1, prior_scale=1.0),
    "OnlineElo": lambda: OnlineElo(step=0.1),
}
_FITTED = {}


def fitted(name):
    """The model ``name`` fitted on the round robin (once per session)."""
    if name not in _FITTED:
        log = round_robin()
        data = log.to_pairs() if name == "SchurDecomposition" else log  # (the Schur fit takes pairs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _FITTED[name] = MODELS[name]().fit(data)
    return _FITTED[name]


def query(a, b, time=LAST):
    """Games to predict (scores a placeholder) at ``time``: DynamicElo's last fitted period."""
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    return GameLog.from_arrays(a, b, np.full(a.size, 0.5), np.full(a.size, time))


def predict(model, method, a, b, **kw):
    """``method`` of ``model`` for the games a vs b: predict_proba on the labels, the others on a log."""
    if method == "predict_proba":
        return model.predict_proba(np.atleast_1d(a), np.atleast_1d(b), **kw)
    return getattr(model, method)(query(a, b), **kw)


METHODS = ["predict_proba", "predict_games", "predict_outcomes"]
A, B = PLAYERS[[0, 1, 2, 3, 5, 4]], PLAYERS[[1, 0, 5, 2, 3, 4][::-1]]


# ------------------------------------------------------------------ known players
@pytest.mark.parametrize("name", list(MODELS))
def test_known_players_games_equal_proba_and_outcomes_are_rows_summing_to_one(name):
    model = fitted(name)
    a, b = PLAYERS[[0, 1, 2, 5, 3]], PLAYERS[[1, 0, 5, 2, 4]]
    p = model.predict_proba(a, b)
    np.testing.assert_allclose(model.predict_games(query(a, b)), p, rtol=0, atol=1e-15)
    q = model.predict_outcomes(query(a, b))
    assert q.shape == (5, 3)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(q[:, 1], 0.0)  # no draw model: P(draw) = 0
    np.testing.assert_allclose(q[:, 0], p, rtol=0, atol=1e-15)
    assert model.predicts_draws is False
    # two single players: a float, the same as the array's
    single = model.predict_proba("p0", "p5")
    assert isinstance(single, float) and single == pytest.approx(float(model.predict_proba(["p0"], ["p5"])[0]),
                                                                 rel=0, abs=1e-15)
    # the stronger player is favoured (p5 is the strongest, p0 the weakest)
    assert single < 0.5


# ------------------------------------------------------------------ unknown players
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(MODELS))
def test_an_unknown_player_raises_unknown_player_error_naming_it_and_the_model(name, method):
    model = fitted(name)
    with pytest.raises(UnknownPlayerError, match=rf"unknown player label\(s\): 'Jannik Siner': this {name} ") as info:
        predict(model, method, ["p0", "p1"], ["p2", "Jannik Siner"])
    assert isinstance(info.value, ValueError)
    assert info.value.labels == ("Jannik Siner",) and info.value.model == name
    assert "unseen='prior'" in str(info.value)


def test_unknown_player_error_names_the_first_labels_in_order_and_counts_them():
    model = fitted("Elo")
    new = [f"new{k}" for k in range(7)]
    with pytest.raises(UnknownPlayerError, match=re.escape("'new0', 'new1', 'new2', 'new3', 'new4', ... (7 in all)")):
        model.predict_proba(new, ["p0"] * 7)
    with pytest.raises(UnknownPlayerError, match=re.escape("unknown player label(s): 'x', 'y':")) as info:
        model.predict_proba(["x", "p1", "x"], ["p0", "y", "p2"])  # a's unknowns, then b's, each once
    assert info.value.labels == ("x", "y")
    assert discrank.UnknownPlayerError is discrank.exceptions.UnknownPlayerError


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(MODELS))
def test_unseen_prior_predicts_two_unknown_players_at_one_half_and_known_ones_as_before(name, method):
    model = fitted(name)
    a, b = ["new1", "p0", "p5"], ["new2", "p1", "p2"]
    out = np.asarray(predict(model, method, a, b, unseen="prior"))
    known = np.asarray(predict(model, method, a[1:], b[1:]))
    if method == "predict_outcomes":
        np.testing.assert_array_equal(out[0], [0.5, 0.0, 0.5])
        np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    else:
        assert out[0] == 0.5
    np.testing.assert_allclose(out[1:], known, rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", ["Elo", "OnlineElo"])
def test_unseen_prior_gives_an_unknown_player_rating_zero(name):
    model = fitted(name)
    p = model.predict_proba(["p5", "new"], ["new", "p2"], unseen="prior")
    r = model.ratings_[[list(model.labels_).index("p5"), list(model.labels_).index("p2")]]
    np.testing.assert_allclose(p, expit([r[0], -r[1]]), rtol=0, atol=1e-15)


def test_unseen_prior_gives_a_dynamic_model_the_prior_rating_and_its_variance():
    model = fitted("DynamicElo")
    row = model.ratings_frame().set_index("player").loc["p5"]
    v = row["sd"] ** 2 + model.prior_scale_ ** 2  # the two ratings' variances: p5's now, the prior's
    expected = expit(row["rating"] / math.sqrt(1.0 + model.variance_scale_ * math.pi * v / 8.0))
    assert model.predict_proba("p5", "new", unseen="prior") == pytest.approx(expected, rel=0, abs=1e-15)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(MODELS))
def test_unseen_with_another_value_is_refused_naming_it_and_the_allowed_ones(name, method):
    model = fitted(name)
    for bad in ("maybe", None, "exclude"):
        with pytest.raises(ValueError, match=re.escape(f"unseen={bad!r} is not one of ('raise', 'prior')")):
            predict(model, method, ["p0"], ["p1"], unseen=bad)


@pytest.mark.parametrize("method", ["predict_games", "predict_outcomes"])
def test_predict_games_and_outcomes_take_a_game_log_only(method):
    with pytest.raises(TypeError, match=f"Elo.{method} expects a discrank.GameLog, got list"):
        getattr(fitted("Elo"), method)([["p0", "p1"]])


# ------------------------------------------------------------------ advantage columns
def home_log(seed=1):
    rng = np.random.default_rng(seed)
    log = round_robin(seed)
    home = rng.choice([-1.0, 1.0], len(log))
    y = (rng.random(len(log)) < expit(0.5 * home)).astype(float)
    return GameLog.from_arrays(log.a, log.b, np.where(rng.random(len(log)) < 0.5, y, log.score), log.time,
                               advantage={"home": home})


def test_predict_games_uses_the_log_advantage_columns_of_a_model_fitted_with_them():
    log = home_log()
    model = Elo(prior_scale=1.0).fit(log)
    np.testing.assert_allclose(model.predict_games(log), model.predict_proba(log.a, log.b, advantage=log.advantage),
                               rtol=0, atol=1e-15)
    neutral = model.predict_proba(log.a, log.b)
    assert np.abs(model.predict_games(log) - neutral).max() > 0.01  # the columns are used
    bare = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    with pytest.raises(ValueError, match=re.escape("fitted with the advantage column(s) ['home']; the games to "
                                                   "predict have none")):
        model.predict_games(bare)
    other = GameLog.from_arrays(log.a, log.b, log.score, log.time, advantage={"white": log.advantage[:, 0]})
    with pytest.raises(ValueError, match=re.escape("the games to predict have ['white']")):
        model.predict_outcomes(other)


def test_a_model_fitted_without_covariates_predicts_a_log_with_them_as_neutral_games_and_names_them():
    log = home_log()
    with pytest.warns(UnusedColumnWarning, match=re.escape("MElo(loss='probability') takes no advantage covariates")):
        model = MElo(1, prior_scale=2.0, random_state=0).fit(log)
    with pytest.warns(UnusedColumnWarning) as caught:
        p = model.predict_games(log)
    assert [str(w.message) for w in caught] == [
        "MElo.predict_games: this MElo was fitted without advantage columns and ignores the games' column 'home' (it "
        "predicts every game as neutral; fit it on a GameLog with them to use them)"]
    np.testing.assert_array_equal(p, model.predict_proba(log.a, log.b))


# ------------------------------------------------------------------ OnlineElo and advantage columns
def test_online_elo_refuses_advantage_columns_in_fit_and_update_naming_them():
    log = home_log()
    message = "OnlineElo.{}: the log has the advantage column(s) 'home', which Elo's online update cannot use"
    model = OnlineElo(step=0.1)
    with pytest.raises(ValueError, match=re.escape(message.format("fit"))) as info:
        model.fit(log)
    assert "DynamicElo" in str(info.value) and "Elo, EloPlusPlus" in str(info.value)
    assert not hasattr(model, "ratings_")  # all or nothing
    model.fit(round_robin())
    before = model.ratings_.copy()
    with pytest.raises(ValueError, match=re.escape(message.format("update"))):
        model.update(GameLog.from_arrays(log.a, log.b, log.score, log.time + 10, advantage={"home": log.advantage[:, 0]}))
    np.testing.assert_array_equal(model.ratings_, before)


# ------------------------------------------------------------------ evaluate through the protocol
def test_evaluate_passes_unseen_prior_to_every_model():
    log = round_robin(rounds=10)
    late = GameLog.from_arrays(["p0", "late", "p3"], ["late", "p1", "p4"], [1.0, 0.0, 1.0], [8.0, 8.0, 8.0])
    t = np.concatenate([log.time, late.time])
    order = np.argsort(t, kind="stable")  # (evaluate's order: by time)
    full = GameLog.from_arrays(np.concatenate([log.a, late.a])[order], np.concatenate([log.b, late.b])[order],
                               np.concatenate([log.score, late.score])[order], t[order])
    models = {"online": OnlineElo(step=0.1),
              "dyn": DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0)}
    ev = evaluate(models, full, cutoff=8.0, unseen="prior")
    train = full._take(full.time < 8.0)
    test = full._take(full.time >= 8.0)
    assert ev.n_unseen == 2 and ev.n_games == len(test)
    for name, make in (("online", lambda: OnlineElo(step=0.1)),
                       ("dyn", lambda: DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0))):
        expected = make().fit(train).predict_games(test, unseen="prior")
        np.testing.assert_allclose(ev.predictions[name], expected, rtol=0, atol=1e-12)
    with pytest.raises(UnknownPlayerError, match="'late'"):
        OnlineElo(step=0.1).fit(train).predict_games(test)


def test_evaluate_scores_three_outcomes_only_for_models_with_a_draw_model():
    log = round_robin()
    y = log.score.copy()
    y[::7] = 0.5  # some draws
    log = GameLog.from_arrays(log.a, log.b, y, log.time)
    ev = evaluate({"elo": Elo(prior_scale=1.0), "dyn": DynamicElo(period=None, prior_scale=1.0),
                   "draws": DynamicElo(period=None, prior_scale=1.0, draws="davidson")}, log, cutoff=7.0)
    assert set(ev.outcomes) == {"draws"}
    rows = {r["model"]: r for r in ev.summary()}
    assert math.isnan(rows["elo"]["log_loss3"]) and math.isnan(rows["dyn"]["log_loss3"])
    assert math.isfinite(rows["draws"]["log_loss3"])


# ------------------------------------------------------------------ the active players of a dynamic table
def test_ratings_frame_says_when_each_player_was_last_seen_and_keeps_the_active_ones():
    log = round_robin()
    old = GameLog.from_arrays(np.concatenate([["ghost"], log.a]), np.concatenate([["p0"], log.b]),
                              np.concatenate([[1.0], log.score]), np.concatenate([[0.0], log.time]))
    model = DynamicElo(period=1.0, drift=0.1, prior_scale=1.0).fit(old)
    frame = model.ratings_frame()
    assert list(frame.columns) == ["player", "rank", "games", "elo", "rating", "sd", "last_seen", "provisional"]
    np.testing.assert_allclose(frame["elo"], 1500 + 400 / np.log(10) * (frame["rating"] - frame["rating"].mean()),
                               rtol=0, atol=1e-9)
    top = frame["player"][0]
    anchored = model.ratings_frame(anchor=top, anchor_rating=2000.0)
    assert anchored["elo"][0] == 2000.0
    assert list(frame["rank"]) == list(range(1, 8)) and frame["rating"].is_monotonic_decreasing
    seen = frame.set_index("player")
    assert seen.loc["ghost", "last_seen"] == 0.0 and seen.loc["ghost", "games"] == 1
    assert (seen.drop("ghost")["last_seen"] == LAST).all()
    assert seen.loc["p0", "games"] == 101 and (seen.drop(["ghost", "p0"])["games"] == 100).all()
    state = model.ratings_at(LAST).set_index("player")
    np.testing.assert_allclose(seen["rating"], state.loc[seen.index, "rating"], rtol=0, atol=0)
    active = model.ratings_frame(active_since=1.0)
    assert "ghost" not in set(active["player"]) and len(active) == 6
    assert list(active["rank"]) == list(range(1, 7))
    assert list(model.ratings_frame(active_since=0.0)["player"]) == list(frame["player"])  # the range's ends count
    assert len(model.ratings_frame(active_since=LAST)) == 6


def test_ratings_frame_active_since_with_dates():
    log = round_robin()
    days = np.datetime64("2026-01-05") + (log.time * 7).astype("timedelta64[D]")
    a = np.concatenate([["club 1923"], log.a])
    t = np.concatenate([[np.datetime64("1923-05-01")], days]).astype("datetime64[D]")
    dated = GameLog.from_arrays(a, np.concatenate([["p0"], log.b]), np.concatenate([[1.0], log.score]), t)
    model = DynamicElo(period="year", drift=0.1, prior_scale=1.0).fit(dated)
    frame = model.ratings_frame()
    assert frame.set_index("player").loc["club 1923", "last_seen"] == np.datetime64("1923-05-01")
    active = model.ratings_frame(active_since="2026-01-01")
    assert set(active["player"]) == set(PLAYERS)
    with pytest.raises(ValueError, match=re.escape("active_since=2027-01-01 is outside the fitted games' time range: "
                                                   "the fitted games' times run from 1923-05-01 to 2026-03-09")):
        model.ratings_frame(active_since="2027-01-01")
    with pytest.raises(ValueError, match=r"active_since=5 is not a date.*times run from 1923-05-01 to 2026-03-09"):
        model.ratings_frame(active_since=5)


@pytest.mark.parametrize("value, message", [
    (-1.0, "active_since=-1.0 is outside the fitted games' time range: the fitted games' times run from 0.0 to 9.0"),
    (9.5, "active_since=9.5 is outside the fitted games' time range"),
    ("2020-01-01", "active_since='2020-01-01' is not a number, and the times are numbers"),
    (np.datetime64("2020-01-01"), "active_since=np.datetime64('2020-01-01') is not a number"),
    (float("nan"), "active_since=nan is NaN"),
])
def test_ratings_frame_refuses_an_active_since_outside_the_range_or_of_the_other_kind(value, message):
    model = fitted("DynamicElo")
    with pytest.raises(ValueError, match=re.escape(message)):
        model.ratings_frame(active_since=value)


def test_ratings_frame_of_a_log_without_times_has_no_last_seen_and_refuses_active_since():
    log = round_robin()
    model = DynamicElo(period=None, prior_scale=1.0).fit(GameLog.from_arrays(log.a, log.b, log.score))
    frame = model.ratings_frame()
    assert frame["last_seen"].isna().all() and len(frame) == 6
    with pytest.raises(ValueError, match=re.escape("active_since=3: this DynamicElo was fitted on games without times")):
        model.ratings_frame(active_since=3)


def test_evaluate_gives_online_elo_the_log_without_advantage_columns_and_warns_once_naming_them():
    rng = np.random.default_rng(3)
    n = 600
    a = rng.integers(0, 8, n)
    b = (a + 1 + rng.integers(0, 7, n)) % 8
    home = rng.integers(0, 2, n).astype(np.float64)
    score = (rng.random(n) < 1 / (1 + np.exp(-(0.3 * (a - b) / 4 + 0.8 * home)))).astype(np.float64)
    t = np.arange(n, dtype=np.float64)
    log = GameLog.from_arrays(a, b, score, time=t, advantage={"home": home})
    bare = GameLog.from_arrays(a, b, score, time=t)
    with pytest.warns(UnusedColumnWarning, match=re.escape(
            "evaluate: 'online' takes no advantage covariates: fitted and scored without the column(s) 'home'")):
        ev = evaluate({"online": OnlineElo(step=0.05)}, log, cutoff=450.0)
    alone = evaluate({"online": OnlineElo(step=0.05)}, bare, cutoff=450.0)
    np.testing.assert_array_equal(ev.predictions["online"], alone.predictions["online"])
    assert ev.notes == ["'online' takes no advantage covariates: fitted and scored without the column(s) 'home'"]
    assert alone.notes == []


@pytest.mark.parametrize("name", ["Elo", "EloPlusPlus", "MElo", "DiscDecomposition", "DiscDecompositionCV",
                                  "SchurDecomposition"])
def test_pair_models_fit_period_games_as_the_games_summed_over_the_periods(name):
    from discrank import PeriodGames

    log = round_robin()
    by_period = MODELS[name]().fit(PeriodGames.from_log(log, period=1.0))
    pairs = MODELS[name]().fit(log.to_pairs())
    a, b = np.meshgrid(PLAYERS, PLAYERS)
    np.testing.assert_allclose(by_period.predict_proba(a.ravel(), b.ravel()),
                               pairs.predict_proba(a.ravel(), b.ravel()), rtol=0, atol=1e-12)


def test_period_games_to_pairs_keeps_the_draws_of_the_log():
    from discrank import PeriodGames

    log = round_robin()
    score = log.score.copy()
    score[::5] = 0.5
    drawn = GameLog.from_arrays(log.a, log.b, score, log.time)
    pairs = PeriodGames.from_log(drawn, period=1.0).to_pairs()
    np.testing.assert_array_equal(pairs.draws, drawn.to_pairs().draws)
    assert pairs.draws.sum() == (score == 0.5).sum()


@pytest.mark.parametrize("name, data, why", [
    ("DynamicElo", "pairs", "summed its games over time"),
    ("OnlineElo", "pairs", "one by one in time order"),
    ("OnlineElo", "periods", "one by one in time order"),
])
def test_a_model_refuses_data_that_lost_what_it_needs_saying_why(name, data, why):
    from discrank import PeriodGames

    log = round_robin()
    given = log.to_pairs() if data == "pairs" else PeriodGames.from_log(log, period=1.0)
    with pytest.raises(TypeError, match=f"{name}.fit expects .* got {type(given).__name__}: .*{why}"):
        MODELS[name]().fit(given)


def test_schur_table_counts_each_players_games():
    log = round_robin()
    frame = SchurDecomposition(1).fit(log).ratings_frame()
    assert frame["games"].tolist() == [100] * 6  # 5 opponents, 10 rounds, both orders: 2 * 5 * 10


@pytest.mark.parametrize("name", list(MODELS))
def test_every_estimator_follows_the_rating_model_protocol(name):
    from discrank.evaluation.protocol import RatingModel

    model = MODELS[name]()
    assert isinstance(model, RatingModel)
    updates = name in ("DynamicElo", "OnlineElo")
    assert model.updates is updates and model.sequential_updates is (name == "OnlineElo")
    refit = fitted(name).refit_copy()
    assert type(refit) is type(fitted(name)) or name == "DiscDecompositionCV"
    assert not hasattr(refit, "labels_")  # unfitted
    if "prior_scale" in refit.get_params():
        assert refit.get_params()["prior_scale"] is not None  # the tuned (or given) prior, frozen


def test_an_object_of_another_library_is_adapted_once_and_given_back():
    from discrank.evaluation.protocol import ForeignModel, RatingModel

    class Coin:
        """fit(log) and predict_proba(a, b) only."""

        def fit(self, log):
            self.n = len(log)
            return self

        def predict_proba(self, a, b):
            return np.full(len(a), 0.5)

    adapted = ForeignModel(Coin())
    assert isinstance(adapted, RatingModel) and not isinstance(Coin(), RatingModel)
    assert not adapted.updates and not adapted.predicts_draws and adapted.takes_advantage
    assert adapted.refit_copy() is adapted
    ev = evaluate({"coin": Coin(), "elo": Elo(prior_scale=1.0)}, round_robin(), cutoff=7.0)
    assert type(ev.fitted["coin"]) is Coin and ev.fitted["coin"].n == 6 * 5 * 7  # the training games
    np.testing.assert_array_equal(ev.predictions["coin"], 0.5)
    with pytest.raises(TypeError, match=r"model 'x' \(object\) has no fit / predict_proba"):
        evaluate({"x": object()}, round_robin(), cutoff=7.0)
