"""DynamicElo against hostile input: labels of another kind and columns the fit did not have, refused in
predictions as in updates; games of one period fitted (and the tuning saying what it could not tune); covariates
too large for the fit's sums refused naming the column."""

import re
import warnings
from contextlib import contextmanager

import numpy as np
import pytest

from discrank import DynamicElo, GameLog, PeriodGames, Validation
from discrank.exceptions import ConvergenceWarning, MissingColumnWarning, TuningWarning


def league(seed=0, n=12, games=600, days=100.0, **columns):
    """Games between ``n`` integer players over ``days`` (numeric times), with the given extra columns (each a
    function of the random generator and the number of games)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.uniform(0.0, days, games))
    d = rng.normal(size=n)[a] - rng.normal(size=n)[b]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(np.float64)
    return GameLog.from_arrays(a, b, y, t, **{k: f(rng, y) for k, f in columns.items()})


@contextmanager
def warnings_as_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def fixed(**kw):
    return DynamicElo(period=10.0, drift=0.05, prior_scale=1.0, variance_scale=1.0, **kw)


def ints(rng, y):
    return rng.integers(0, 3, y.size)


def formats(rng, y):
    return np.where(rng.random(y.size) < 0.6, "bo3", "bo5")


def margins(rng, y):
    won = rng.integers(0, 3, y.size)
    return np.stack([np.where(y == 1.0, 3, won), np.where(y == 1.0, won, 3)], axis=1)


def one(value, t=50.0, **columns):
    """One game of players 0 and 1 at time ``t``, with the given columns' one value."""
    return GameLog.from_arrays([0], [1], [1.0], [t], **{k: np.array([v]) for k, v in columns.items()}, **(
        {} if value is None else {"context": np.array([value])}))


# ------------------------------------------------------------------ labels of another kind
def test_a_prediction_with_a_text_context_on_integer_contexts_is_refused_naming_the_value_and_both_kinds():
    # it was forecast as in a context never seen (0.109 away), without a word, where update refused it
    model = fixed(context_scale=0.3).fit(league(context=ints))
    message = ("have the context '1', text, and the DynamicElo was fitted on contexts that are numbers ([0, 1, 2]): "
               "text never equals a number")
    with pytest.raises(ValueError, match=re.escape("the games to predict " + message)):
        model.predict_games(one("1"))
    with pytest.raises(ValueError, match=re.escape("the games to predict " + message)):
        model.predict_outcomes(one("1"))
    with pytest.raises(ValueError, match=re.escape("update's games " + message)):
        model.update(one("1"))
    assert 0.0 < model.predict_games(one(1))[0] < 1.0  # the same context as a number


def test_a_prediction_with_integer_formats_on_text_formats_is_refused_naming_the_value_and_both_kinds():
    model = fixed(format_scales={"bo3": 1.0, "bo5": 1.5}).fit(league(match_format=formats))
    message = ("have the match_format 5, numbers, and the DynamicElo was fitted on match_formats that are text "
               "(['bo3', 'bo5'])")
    with pytest.raises(ValueError, match=re.escape("the games to predict " + message)):
        model.predict_games(one(None, match_format=5))
    with pytest.raises(ValueError, match=re.escape("update's games " + message)):
        model.update(one(None, match_format=5))


# ------------------------------------------------------------------ columns the fit did not have
@pytest.mark.parametrize("column, value, words", [("context", "clay", "contexts"),
                                                  ("match_format", "bo5", "match formats")])
def test_a_model_fitted_without_a_context_or_format_column_refuses_it_in_predictions_and_updates(column, value, words):
    # its forecasts were those of a game without the column, without a word
    model = fixed().fit(league())
    games = one(None, **{column: value})
    for predict in (model.predict_games, model.predict_outcomes):
        with pytest.raises(ValueError, match=re.escape(f"the games to predict have a {column} column; this DynamicElo "
                                                       f"was fitted without {words}")):
            predict(games)
    with pytest.raises(ValueError, match=re.escape(f"update's games have a {column} column; the DynamicElo was fitted "
                                                   "without")):
        model.update(games)


@pytest.mark.parametrize("column, param", [("context", {"context_scale": 0}), ("match_format", {"format_scales": 0})])
def test_a_model_fitted_with_the_feature_at_0_predicts_the_column_as_a_game_without_it(column, param):
    log = league(**{column: ints if column == "context" else formats})
    model = fixed(**param).fit(log)
    bare = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    np.testing.assert_array_equal(model.predict_games(log), model.predict_games(bare))
    np.testing.assert_array_equal(model.predict_games(log), fixed().fit(bare).predict_games(bare))


@pytest.mark.parametrize("margin_scale", [None, 0.3])
def test_a_forecast_never_reads_margins_and_an_update_refuses_them_for_a_model_fitted_without(margin_scale):
    log = league(margin=margins)
    bare = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    model = fixed(margin_scale=margin_scale).fit(log if margin_scale else bare)
    # a margin is an outcome of the game, as its score is: the forecasts are the same with or without
    np.testing.assert_array_equal(model.predict_games(log), model.predict_games(bare))
    if margin_scale is None:
        with pytest.raises(ValueError, match=re.escape("update's games have margin columns; the DynamicElo was fitted "
                                                       "without")):
            model.update(one(None, margin=np.array([3, 1])))


# ------------------------------------------------------------------ one period
@pytest.mark.parametrize("column, fitted, words", [("context", ints, "no context column; this DynamicElo was "
                                                                   "fitted with the contexts [0, 1, 2]"),
                                                    ("match_format", formats, "no match_format column")])
def test_a_model_fitted_with_a_context_or_format_warns_when_the_games_to_predict_lack_it(column, fitted, words):
    log = league(**{column: fitted})
    model = fixed().fit(log)
    bare = GameLog.from_arrays(log.a[:5], log.b[:5], log.score[:5], log.time[:5])
    with pytest.warns(MissingColumnWarning, match=re.escape(words)):
        p = model.predict_games(bare)
    with warnings_as_errors():
        with_column = model.predict_games(GameLog.from_arrays(log.a[:5], log.b[:5], log.score[:5], log.time[:5],
                                                              **{column: getattr(log, column)[:5]}))
    assert p.shape == with_column.shape == (5,) and not np.array_equal(p, with_column)


def test_a_fractional_context_on_integer_contexts_warns_naming_it_in_predictions_and_updates():
    model = fixed().fit(league(context=ints))
    with pytest.warns(UserWarning, match=re.escape("have the context(s) [1.5], not integers")):
        p = model.predict_games(one(1.5))
    with warnings_as_errors():
        unseen = model.predict_games(one(7))  # an integer never fitted: unseen, as 1.5 is
        integral = model.predict_games(one(1.0))  # 1.0 is the context 1
        exact = model.predict_games(one(1))
    assert p == pytest.approx(unseen, abs=1e-15) and integral == pytest.approx(exact, abs=1e-15)
    with pytest.warns(UserWarning, match=re.escape("update's games have the context(s) [2.5]")):
        model.update(one(2.5, t=101.0))


def _dated(games=400, days=100, seed=0):
    rng = np.random.default_rng(seed)
    log = league(seed, games=games)
    day = np.sort(rng.integers(0, days, games))
    return GameLog.from_arrays(log.a, log.b, log.score, np.datetime64("2024-01-01") + day.astype("timedelta64[D]"))


def test_a_log_in_one_period_is_fitted_as_one_rating_per_player_and_the_tuning_warns_of_the_drift():
    # it failed inside the solver: "ValueError: s must have shape (1,), got (0,)"
    log = _dated()
    with pytest.warns(TuningWarning, match=re.escape(
            "every game of the log falls in one period (period='year', the period starting 2024-01-01, from "
            "2024-01-01 to 2024-04-09): the fit is one rating per player, and the games say nothing of the drift, "
            "which only widens the forecasts of later periods; drift=0.2 (its grid's middle) is kept")):
        model = DynamicElo(period="year").fit(log)
    assert model.drift_ == pytest.approx(0.2, rel=1e-12)  # 2 x 0.1 logit per square root of a year
    # the prior and variance scales tuned on the games' order within the period, as period=None's are
    stationary = DynamicElo(period=None).fit(log)
    assert (model.prior_scale_, model.variance_scale_) == (stationary.prior_scale_, stationary.variance_scale_)
    np.testing.assert_allclose(model.ratings_frame().set_index("player")["rating"],
                               stationary.ratings_frame().set_index("player")["rating"], rtol=0, atol=1e-8)
    with warnings_as_errors():  # a drift given: nothing to say
        DynamicElo(period="year", drift=0.1).fit(log)


def test_a_validation_window_starting_in_the_first_period_is_forecast_from_the_later_origins():
    # 95% of the games in the first period: the window's first origin has no game before it
    rng = np.random.default_rng(3)
    log = league(3, games=400)
    t = np.r_[np.sort(rng.uniform(0.0, 9.0, 380)), np.sort(rng.uniform(10.0, 19.0, 20))]
    log = GameLog.from_arrays(log.a, log.b, log.score, t)
    with warnings_as_errors():
        model = DynamicElo(period=10.0).fit(log)
    assert model.tuning_["periods"] == 1 and len(model.tuning_["scores"]) > 1
    with pytest.warns(TuningWarning, match=re.escape("no game precedes the first period of the validation window "
                                                     "(its first game at ") + ".*the grids' middle values are kept"):
        frozen = DynamicElo(period=10.0).fit(log, validation=Validation(online=False))
    assert (frozen.drift_, frozen.prior_scale_, frozen.variance_scale_) == (0.2, 2.0, 1.0) and frozen.tuning_ is None


def test_summed_games_of_one_period_keep_the_middle_values_and_say_so():
    log = league(games=400, days=9.0)
    with pytest.warns(TuningWarning, match=re.escape("every game of the log falls in one period (period=10.0, the "
                                                     "period starting 0.0): ") + ".*the prior and variance scales are "
                                                                                 "kept at their grids' middle values"):
        model = DynamicElo(period=10.0).fit(PeriodGames.from_log(log, 10.0))
    assert (model.drift_, model.prior_scale_, model.variance_scale_) == (0.2, 2.0, 1.0)


# ------------------------------------------------------------------ covariates too large
def test_a_covariate_within_the_bound_fits_as_the_same_column_rescaled():
    rng = np.random.default_rng(5)
    log = league(5, games=1000)
    home = rng.integers(0, 2, len(log)).astype(np.float64)
    fits = [fixed().fit(GameLog.from_arrays(log.a, log.b, log.score, log.time, advantage={"home": home * s}))
            for s in (1.0, 1e90)]
    # (the fits stop at a relative gradient of 1e-9: the same MAP to about 1e-9)
    np.testing.assert_allclose(fits[1].beta_ * 1e90, fits[0].beta_, rtol=1e-7)
    np.testing.assert_allclose(fits[1].pp_rating_, fits[0].pp_rating_, rtol=0, atol=1e-7)


def test_summed_games_with_a_covariate_beyond_the_bound_are_refused_naming_the_column_and_value():
    # (a GameLog refuses it when built; summed games made by hand reached the solver: "SVD did not converge")
    log = league(games=200)
    summed = PeriodGames.from_log(GameLog.from_arrays(log.a, log.b, log.score, log.time,
                                                      advantage={"home": np.tile([1.0, 0.0], 100)}), 10.0)
    summed.advantage = summed.advantage * 1e300
    with pytest.raises(ValueError, match=re.escape("advantage column 'home' has the value 1e+300 at game ")
                       + r"\d+" + re.escape(", larger in magnitude than 1e+100")):
        fixed().fit(summed)



# ------------------------------------------------------------------ parameters that would go unused, fits that stop
def test_a_disc_scale_without_disc_components_is_refused_naming_both():
    with pytest.raises(ValueError, match=re.escape("disc_scale=0.5 asks for a disc game, but disc_components=0")):
        fixed(disc_scale=0.5).fit(league())
    with warnings_as_errors():  # with components, the same scale fits the disc
        assert fixed(disc_scale=0.5, disc_components=1).fit(league()).disc_scale_ == 0.5


def test_a_fit_stopped_by_max_iter_warns_with_its_gradient_and_says_it_did_not_converge():
    with pytest.warns(ConvergenceWarning, match=r"did not converge in 1 Newton steps \(max_iter=1\): its gradient "
                                                r"is [0-9.e-]+ of its scale, above tol=1e-09"):
        model = fixed(max_iter=1).fit(league())
    assert not model.converged_ and model.n_iter_ == 1 and model.gradient_ > 1e-9
    with warnings_as_errors():
        assert fixed().fit(league()).converged_
