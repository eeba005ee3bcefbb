"""DynamicElo under hostile input (issues 33 and 35): updates out of time order, before the first fitted period
or beyond the period cap, far times, labels and covariates of another kind in an update, covariates that
separate the results, the tolerance of warm updates, and the tuning's budget."""

import warnings

import numpy as np
import pytest

from discrank import DynamicElo, Elo, GameLog, PeriodGames, load


def random_log(seed, n=None, draws=False, with_x=True):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 300)) if n is None else n
    p = int(rng.integers(3, 20))
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p
    y = rng.choice([0.0, 0.5, 1.0] if draws else [0.0, 1.0], n)
    t = np.sort(rng.integers(0, 40, n)).astype(float)
    x = {"home": rng.choice([0.0, 1.0, -1.0], n)} if with_x else None
    return GameLog.from_arrays(a, b, y, t, advantage=x)


def model(**kw):
    return DynamicElo(period=5.0, drift=0.2, prior_scale=1.0, variance_scale=1.0, **kw)


def test_an_update_with_games_earlier_than_the_fitted_ones_is_the_fit_of_every_game_and_its_file_loads(tmp_path):
    log = random_log(0, n=200)
    late, early = log._take(log.time >= 20), log._take(log.time < 20)
    updated = model(update_tol=1e-10).fit(late).update(early)
    whole = model().fit(log)
    assert updated.games_.time.tolist() == sorted(log.time.tolist())  # in time order again
    assert np.array_equal(updated.pp_bin_, whole.pp_bin_)
    assert np.max(np.abs(updated.predict_games(log) - whole.predict_games(log))) < 1e-8
    updated.save(tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    assert np.array_equal(again.predict_games(log), updated.predict_games(log))


def test_an_update_beyond_the_period_cap_is_refused_naming_the_periods_and_leaves_the_model_as_it_was():
    log = random_log(1, n=100, with_x=False)
    fitted = model().fit(log)
    before = fitted.pp_rating_.copy()
    far = GameLog.from_arrays([1], [2], [1.0], [5.0 * 20_000_000])
    with pytest.raises(ValueError, match=r"period=5.0 makes 20000001 periods between the first game and the last of "
                                         r"the fitted games with update's .*periods 0 and 20000000"):
        fitted.update(far)
    assert np.array_equal(fitted.pp_rating_, before) and len(fitted.games_) == 100


def test_far_future_times_keep_a_known_player_known_or_are_refused_naming_the_time():
    log = random_log(2, n=100, with_x=False)
    fitted = DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, variance_scale=1.0).fit(log)
    now = fitted.ratings_at(50.0)
    far = fitted.ratings_at(1e18)  # 1e18 periods ahead: players x span overflowed int64
    assert far["known"].all()
    np.testing.assert_allclose(far["rating"], now["rating"], atol=1e-12)
    np.testing.assert_allclose(far["sd"] ** 2, now["sd"] ** 2 + 0.2**2 * (1e18 - 50.0), rtol=1e-12)
    with pytest.raises(ValueError, match=r"time 1e\+19 is out of range for period=1.0"):
        fitted.ratings_at(1e19)
    with pytest.raises(ValueError, match=r"time 1e\+19 is out of range for period=1.0"):
        DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, variance_scale=1.0).fit(
            GameLog.from_arrays(log.a, log.b, log.score, np.r_[log.time[:-1], 1e19]))
    with pytest.raises(ValueError, match=r"time 1e\+25 is out of range for period=1.0"):
        fitted.predict_games(GameLog.from_arrays([1], [2], [1.0], [1e25]))


def test_an_update_with_labels_of_another_kind_is_refused_or_adds_a_new_player_never_an_old_one():
    log = random_log(3, n=100, with_x=False)  # integer labels
    with pytest.raises(ValueError, match=r"update's log holds strings \(first '1' .*labels_ holds numbers"):
        model().fit(log).update(GameLog.from_arrays(["1"], ["2"], [1.0], [45.0]))
    with pytest.raises(ValueError, match=r"a holds strings \(first '17'.* b holds numbers"):
        model().fit(log).update(GameLog.from_arrays(["17"], [2], [1.0], [45.0]))
    fitted = model().fit(log)
    n = len(fitted.labels_)
    with pytest.warns(UserWarning, match=r"update's log holds the player label\(s\) 1\.5, which are not integers"):
        fitted.update(GameLog.from_arrays([1.5], [2], [1.0], [45.0]))  # 1.5 is a new player, not player 1
    assert len(fitted.labels_) == n + 1 and fitted.labels_[-1] == 1.5
    assert fitted.labels_[:n].tolist() == list(range(n))


def test_an_update_with_other_covariate_columns_is_refused_naming_both():
    log = random_log(4, n=100)
    fitted = model().fit(log)
    two = GameLog.from_arrays([1], [2], [1.0], [45.0], advantage=np.ones((1, 2)))
    with pytest.raises(ValueError, match=r"DynamicElo was fitted with the advantage column\(s\) \['home'\]; update's games have "
                                         r"\['x0', 'x1'\]"):
        fitted.update(two)
    with pytest.raises(ValueError, match=r"fitted with the advantage column\(s\) \['home'\]; the games to predict "
                                         r"have \['x0', 'x1'\]"):
        fitted.predict_games(two)


def _strings(v):
    return np.array([f"p{k}" for k in v], dtype=object)


# (fitted log, new games, error, message): issue 35's update with games of other labels' kinds, covariate
# widths, periods or types
UPDATE_REFUSALS = {
    "numbers into strings": (lambda log: GameLog.from_arrays(_strings(log.a), _strings(log.b), log.score, log.time),
                             lambda: GameLog.from_arrays([1], [2], [1.0], [45.0]), ValueError,
                             r"update's log holds numbers \(first 1 at position 0\) and labels_ holds strings "
                             r"\(first 'p"),
    "strings by period into numbers": (lambda log: log, lambda: PeriodGames.from_log(
        GameLog.from_arrays(["1"], ["2"], [1.0], [45.0]), 5.0), ValueError,
        r"update's log holds strings \(first '1' at position 0\) and labels_ holds numbers"),
    "a covariate into none": (lambda log: log, lambda: GameLog.from_arrays([1], [2], [1.0], [45.0],
                                                                            advantage={"home": [1.0]}), ValueError,
                              r"update's games have the advantage column\(s\) \['home'\]; the DynamicElo was fitted "
                              r"without"),
    "none into a covariate": (lambda log: GameLog.from_arrays(log.a, log.b, log.score, log.time,
                                                              advantage={"home": np.resize([1.0, -1.0], len(log))}),
                              lambda: GameLog.from_arrays([1], [2], [1.0], [45.0]), ValueError,
                              r"fitted with the advantage column\(s\) \['home'\]; update's games have none"),
    "two covariates by period into one": (lambda log: GameLog.from_arrays(
        log.a, log.b, log.score, log.time, advantage={"home": np.resize([1.0, -1.0], len(log))}),
        lambda: PeriodGames.from_log(GameLog.from_arrays([1], [2], [1.0], [45.0], advantage=np.ones((1, 2))), 5.0),
        ValueError, r"fitted with the advantage column\(s\) \['home'\]; update's games have \['x0', 'x1'\]"),
    "games by another period": (lambda log: log, lambda: PeriodGames.from_log(
        GameLog.from_arrays([1], [2], [1.0], [45.0]), 10.0), ValueError,
        r"the games are summed by period=10.0, but this model's period is 5.0: scan them with period=5.0"),
    "pairs": (lambda log: log, lambda: GameLog.from_arrays([1], [2], [1.0], [45.0]).to_pairs(), TypeError,
              r"DynamicElo.update expects a discrank.GameLog or discrank.PeriodGames, got PairwiseData: a PairwiseData "
              r"has summed its games over time"),
    "a list": (lambda log: log, lambda: [1, 2, 1.0], TypeError,
               r"DynamicElo.update expects a discrank.GameLog or discrank.PeriodGames, got list$"),
}


@pytest.mark.parametrize("case", list(UPDATE_REFUSALS))
def test_an_update_with_games_of_another_kind_is_refused_naming_them_and_leaves_the_model_as_it_was(case):
    fitted_log, new, error, message = UPDATE_REFUSALS[case]
    fitted = model().fit(fitted_log(random_log(5, n=100, with_x=False)))
    before = fitted.pp_rating_.copy()
    with pytest.raises(error, match=message):
        fitted.update(new())
    assert np.array_equal(fitted.pp_rating_, before) and len(fitted.games_) == 100


@pytest.mark.parametrize("make", [lambda: model(), lambda: Elo(prior_scale=1.0)], ids=["dynamic", "elo"])
def test_a_covariate_that_separates_the_results_has_a_finite_coefficient_and_standard_error(make, tmp_path):
    # the covariate is nonzero in one game only, which its side won: the flat prior's maximum is at infinity
    log = GameLog.from_arrays(["x", "y", "z", "x", "y", "z"], ["y", "z", "x", "z", "x", "y"],
                              [1, 0, 1, 0, 1, 0.0], [1, 2, 3, 4, 5, 6], advantage={"home": [1, 0, 0, 0, 0, 0.0]})
    fitted = make().fit(log)
    # the prior N(0, (10 / rms)^2), rms = 1 / sqrt(6), holds it within a few prior sd of 0
    assert fitted.converged_ and 0 < fitted.beta_[0] < 3 * 10 * np.sqrt(6)
    assert np.isfinite(fitted.beta_se_[0]) and 0 < fitted.beta_se_[0] <= 10 * np.sqrt(6)
    fitted.save(tmp_path / "m.npz")
    assert load(tmp_path / "m.npz").beta_[0] == fitted.beta_[0]


def test_a_one_game_log_with_a_covariate_fits_saves_and_loads(tmp_path):
    log = GameLog.from_arrays(["x"], ["y"], [1.0], [1.0], advantage={"home": [1.0]})
    fitted = DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0).fit(log)
    assert np.isfinite(fitted.beta_[0]) and np.isfinite(fitted.beta_se_[0]) and fitted.beta_se_[0] < 10.0
    fitted.save(tmp_path / "one.npz")
    again = load(tmp_path / "one.npz")
    assert again.beta_se_[0] == pytest.approx(fitted.beta_se_[0], rel=1e-12)


@pytest.mark.parametrize("draws", [None, "davidson"])
def test_two_updates_in_a_row_predict_within_the_documented_1e5_of_a_fit_of_every_game(draws):
    worst = 0.0
    for seed in range(40):
        log = random_log(seed, draws=draws is not None)
        n = len(log)
        k1, k2 = sorted(np.random.default_rng(seed).choice(np.arange(5, n - 5), 2, replace=False))
        parts = [log._take(np.arange(n) < k1), log._take((np.arange(n) >= k1) & (np.arange(n) < k2)),
                 log._take(np.arange(n) >= k2)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a first part may leave players unconnected
                # (with Davidson's draws each player's draw propensity too, at a fixed scale)
                fixed = {} if draws is None else {"draws": draws, "draw_propensity_scale": 0.3}
                updated = model(**fixed).fit(parts[0]).update(parts[1]).update(parts[2])
                whole = model(**fixed).fit(log)
        except ValueError as exc:  # a first part without draws (or of draws only) cannot fit the draw model
            assert "draw" in str(exc)
            continue
        assert updated.update_tol == 1e-5 and updated.gradient_ <= 1e-5
        worst = max(worst, float(np.max(np.abs(updated.predict_games(log) - whole.predict_games(log)))))
    assert 0 < worst < 1e-5, worst


# ------------------------------------------------------------------ issue 35: the tuning's budget
def walking_log():
    """A league whose tuning walk scores 7 (drift, prior) candidates."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 30, 2000)
    b = (a + rng.integers(1, 30, 2000)) % 30
    t = np.sort(rng.integers(0, 60, 2000))
    s = np.cumsum(rng.normal(0, 0.2, (30, 60)), axis=1)
    y = (rng.random(2000) < 1 / (1 + np.exp(-(s[a, t] - s[b, t])))).astype(float)
    return GameLog.from_arrays(a, b, y, t.astype(float))


def test_a_tuning_budget_stops_the_walk_at_that_many_candidates_and_keeps_the_best_scored(tmp_path, capsys):
    log = walking_log()
    free = DynamicElo(period=1.0).fit(log)
    walked = list(free.tuning_["scores"].items())
    assert len(walked) == 7 and free.tuning_["budget"] is None and free.tuning_["budget_reached"] is False
    spent = DynamicElo(period=1.0, tuning_budget=3, verbose=1).fit(log)
    said = capsys.readouterr().err.splitlines()
    assert said[4] == "tuning DynamicElo: the budget of 3 candidates is spent: the best scored is kept"
    assert sum(line.startswith("tuning DynamicElo: candidate ") for line in said) == 3
    assert spent.tuning_["budget"] == 3 and spent.tuning_["budget_reached"] is True
    assert list(spent.tuning_["scores"].items()) == walked[:3]  # the walk's first three, in its order
    best = min(walked[:3], key=lambda kv: kv[1])[0]
    assert spent._candidate(spent.drift_, spent.prior_scale_) == best
    for budget in (7, 50):  # a budget the walk does not reach changes nothing
        same = DynamicElo(period=1.0, tuning_budget=budget).fit(log)
        assert same.tuning_["budget_reached"] is False and list(same.tuning_["scores"].items()) == walked
        assert (same.drift_, same.prior_scale_, same.variance_scale_) == (free.drift_, free.prior_scale_,
                                                                         free.variance_scale_)
    spent.save(tmp_path / "m.npz")
    assert load(tmp_path / "m.npz").tuning_budget == 3


@pytest.mark.parametrize("budget, shown", [(0, "0"), (-1, "-1"), (2.5, "2.5"), ("8", "'8'"), (True, "True")])
def test_a_tuning_budget_that_is_not_a_positive_integer_is_refused_naming_it(budget, shown):
    with pytest.raises(ValueError, match=rf"^tuning_budget must be a positive integer \(the most \(drift, prior\) "
                                         rf"candidates the tuning scores\), got {shown}$"):
        DynamicElo(period=1.0, tuning_budget=budget).fit(walking_log())


@pytest.mark.parametrize("by_period", [False, True], ids=["log", "periods"])
def test_an_update_with_games_before_the_first_fitted_period_is_the_fit_of_every_game_to_the_update_tolerance(
        by_period):
    """issue 35: games weeks before the first fitted one (a new player among them) join the history at its
    start; the predictions then sit within 1e-5 (the default update_tol's documented bound) of a fit of every game."""
    rng = np.random.default_rng(6)
    a = rng.integers(0, 12, 600)
    b = (a + rng.integers(1, 12, 600)) % 12
    day = np.sort(rng.integers(0, 120, 600))
    s = np.cumsum(rng.normal(0, 0.1, (12, 18)), axis=1)
    y = (rng.random(600) < 1 / (1 + np.exp(-(s[a, day // 7] - s[b, day // 7])))).astype(float)
    a, b = _strings(a), _strings(b)
    a[day < 14] = np.where(np.arange(600)[day < 14] % 3 == 0, "newcomer", a[day < 14])  # seen only early
    log = GameLog.from_arrays(a, b, y, np.datetime64("2024-01-01") + day.astype("timedelta64[D]"))
    early, late = log._take(day < 14), log._take(day >= 28)
    kw = dict(period="week", drift=0.05, prior_scale=1.0, variance_scale=1.0)
    updated = DynamicElo(**kw).fit(late)
    first = updated.pp_bin_.min()
    updated.update(PeriodGames.from_log(early, "week") if by_period else early)
    whole = DynamicElo(**kw).fit(log._take((day < 14) | (day >= 28)))
    assert updated.pp_bin_.min() == whole.pp_bin_.min() == first - 4 and "newcomer" in updated.labels_
    assert np.max(np.abs(updated.predict_games(log) - whole.predict_games(log))) < 1e-5
    players = whole.labels_
    i, j = np.triu_indices(players.size, 1)
    got, want = updated.predict_proba(players[i], players[j]), whole.predict_proba(players[i], players[j])
    assert np.max(np.abs(got - want)) < 1e-5
