"""Priors tuned by default, and the time-split evaluation (issue 14)."""

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from discrank import (
    ConvergenceWarning,
    DiscDecomposition,
    DiscDecompositionCV,
    Elo,
    GameLog,
    MElo,
    PairwiseData,
    Validation,
    evaluate,
    load,
)
from discrank.cli import main
from discrank.exceptions import SeparationWarning
from discrank.evaluation._evaluate import game_losses
from discrank.online import OnlineElo


def simulated_log(n_players=40, n_games=4000, seed=0, draws=True):
    """Games in time order 0 .. n_games - 1 between players of true ratings N(0, 1)."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, n_players)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    p = expit(skill[a] - skill[b])
    u = rng.random(n_games)
    score = (u < p).astype(float)
    if draws:
        score[np.abs(u - p) < 0.05] = 0.5
    return GameLog(a, b, score, np.arange(n_games))


def separated(n=8, games=3):
    """The lower index always wins."""
    i, j = np.triu_indices(n, 1)
    return PairwiseData.from_pairs(i, j, np.ones(i.size), n_games=np.full(i.size, float(games)))


# ---------------------------------------------------------------------------------------------- priors
def test_elo_with_a_prior_is_the_exact_map_estimate():
    data = simulated_log(30, 600, seed=1).to_pairs()
    sigma = 0.7

    def posterior(s):
        q = expit(s[data.i] - s[data.j])
        nll = -np.sum(data.n_games * (data.p * np.log(q) + (1 - data.p) * np.log1p(-q)))
        r = data.n_games * (q - data.p)
        g = np.bincount(data.i, r, data.n_players) - np.bincount(data.j, r, data.n_players)
        return nll + s @ s / (2 * sigma**2), g + s / sigma**2

    model = Elo(prior_scale=sigma).fit(data)
    f, g = posterior(model.ratings_)
    assert np.max(np.abs(g)) <= 1e-8 * np.max(data.n_games.sum())
    ref = minimize(posterior, np.zeros(data.n_players), jac=True, method="L-BFGS-B",
                   options={"ftol": 0, "gtol": 1e-12, "maxiter": 10000}).x
    np.testing.assert_allclose(model.ratings_, ref, atol=1e-6)
    assert model.prior_scale_ == sigma and model.separated_ is None and model.prior_tuning_ is None


def test_disc_prior_makes_separated_data_converge_where_maximum_likelihood_diverges():
    data = separated()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        disc = DiscDecomposition(1, prior_scale=1.0, random_state=0).fit(data)
        melo = MElo(1, prior_scale=0.5, random_state=0).fit(data)
    assert disc.converged_ and melo.converged_
    assert max(np.abs(disc.u_).max(), np.abs(disc.v_).max()) < 10
    with pytest.warns(SeparationWarning, match="no finite answer"):
        ml = DiscDecomposition(1, prior_scale=np.inf, random_state=0, max_iter=300).fit(data)
    # no finite maximum-likelihood answer: its fit stops where the sigmoid saturates, and says so
    assert ml.separated_ is True and ml.converged_ is False and disc.separated_ is None
    assert ml.predict_proba(0, 7) > 1 - 1e-9 and ml.predict_proba(0, 1) > 1 - 1e-6
    assert disc.predict_proba(0, 1) < 0.99


def test_a_tiny_prior_pins_the_disc_to_v_one_and_elo_to_zero():
    data = simulated_log(20, 800, seed=2).to_pairs()
    disc = DiscDecomposition(1, prior_scale=1e-3, random_state=0).fit(data)
    assert np.max(np.abs(disc.v_[:, 0] - 1.0)) < 1e-2 and np.max(np.abs(disc.u_)) < 1e-2
    assert np.max(np.abs(Elo(prior_scale=1e-3).fit(data).ratings_)) < 1e-3


@pytest.mark.parametrize("make", [Elo, lambda **k: DiscDecomposition(1, **k), lambda **k: MElo(1, **k),
                                  lambda **k: DiscDecompositionCV(**k)])
@pytest.mark.parametrize("value, exc, fragment", [(0, ValueError, "got 0"), (-1.0, ValueError, "got -1.0"),
                                                  (float("nan"), ValueError, "got nan"),
                                                  ("abc", TypeError, "got 'abc'"),
                                                  (1e-300, ValueError, "too small")])
def test_bad_prior_scale_is_named(make, value, exc, fragment):
    with pytest.raises(exc, match=fragment):
        make(prior_scale=value).fit(separated())


# ---------------------------------------------------------------------------------------------- tuning
def test_tuning_rule_follows_the_input():
    log = simulated_log(40, 3000, seed=3)
    by_time = Elo().fit(log)
    by_pairs = Elo().fit(PairwiseData.from_games(log.a, log.b, log.score))  # pairs without times
    assert by_time.prior_tuning_["rule"] == "time order"
    assert Elo().fit(log.to_pairs()).prior_tuning_["rule"] == "time order"  # the pairs of the log keep it
    assert by_pairs.prior_tuning_["rule"] == "held-out pairs"
    tiny = Elo().fit(PairwiseData.from_pairs([0, 1, 2, 0, 1], [1, 2, 3, 3, 3], [0.6, 0.5, 0.7, 0.4, 0.5]))
    assert tiny.prior_tuning_["rule"].startswith("fallback") and tiny.prior_scale_ == 1.0
    for model in (by_time, by_pairs):
        rec = model.prior_tuning_
        best = rec["scales"][int(np.argmin(rec["scores"]))]
        assert best / 2 <= rec["best"] <= best * 2  # the parabola's vertex lies in the best bracket
        assert rec["chosen"] == model.prior_scale_ <= rec["best"]  # the one-SE rule steps down from it


def test_tuning_is_seeded_and_validation_uses_only_the_games_given():
    log = simulated_log(40, 3000, seed=4)
    a = DiscDecomposition(1, random_state=0).fit(log)
    b = DiscDecomposition(1, random_state=0).fit(log)
    np.testing.assert_array_equal(a.u_, b.u_)
    assert a.prior_scale_ == b.prior_scale_
    assert a.prior_tuning_["n_validation_games"] == 300  # the latest 10% of 3000 games
    gap = Elo().fit(log, validation=Validation(window=500, gap=400))
    assert gap.prior_tuning_["n_validation_games"] <= 500
    assert gap.prior_tuning_["n_fit_games"] == 3000 - 500 - 400


def test_save_and_load_keep_the_prior_scale(tmp_path):
    model = Elo().fit(simulated_log(30, 1500, seed=5))
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert back.prior_scale_ == model.prior_scale_
    np.testing.assert_array_equal(back.predict_proba([0, 1], [2, 3]), model.predict_proba([0, 1], [2, 3]))


def test_unseen_players_are_predicted_from_the_prior_on_request():
    model = Elo(prior_scale=1.0).fit(simulated_log(10, 500, seed=6))
    s = dict(zip(model.labels_.tolist(), model.ratings_))
    assert model.predict_proba(99, 3, unseen="prior") == pytest.approx(expit(0.0 - s[3]), abs=1e-15)
    with pytest.raises(ValueError, match="99"):
        model.predict_proba(99, 3)
    disc = DiscDecomposition(1, prior_scale=1.0, random_state=0).fit(simulated_log(10, 500, seed=6))
    # a player at the prior mean (u = 0, v = 1) against x scores 0 * v_x - 1 * u_x
    x = int(np.flatnonzero(disc.labels_ == 3)[0])
    assert disc.decision_function(99, 3, unseen="prior") == pytest.approx(-disc.u_[x, 0], abs=1e-12)


# ---------------------------------------------------------------------------------------------- evaluate
def test_evaluation_scores_are_the_per_game_losses_and_the_paired_standard_error():
    log = simulated_log(40, 4000, seed=7)
    ev = evaluate({"elo": Elo(), "online": OnlineElo(step=0.05)}, log, cutoff=3000)
    y = ev.scores
    assert ev.n_games == 1000 and ev.n_unseen == 0
    rows = {r["model"]: r for r in ev.summary()}
    for name in ("elo", "online"):
        q = ev.predictions[name]
        ll = -(y * np.log(q) + (1 - y) * np.log1p(-q))
        assert rows[name]["log_loss"] == pytest.approx(ll.mean(), abs=1e-12)
        assert rows[name]["brier"] == pytest.approx(np.mean((q - y) ** 2), abs=1e-12)
        decisive = y != 0.5
        assert rows[name]["accuracy"] == pytest.approx(np.mean((q[decisive] > 0.5) == (y[decisive] > 0.5)), abs=1e-12)
    d = ev.losses["online"]["log_loss"] - ev.losses["elo"]["log_loss"]
    assert rows["online"]["diff"] == pytest.approx(d.mean(), abs=1e-12)
    assert rows["online"]["se"] == pytest.approx(np.std(d, ddof=1) / math.sqrt(d.size), rel=1e-12)
    cal = ev.calibration("elo")
    assert cal["games"].sum() == 1000
    assert np.nansum(cal["predicted"] * cal["games"]) == pytest.approx(ev.predictions["elo"].sum(), rel=1e-12)


def test_unseen_players_are_counted_and_scored_on_request():
    log = simulated_log(40, 4000, seed=8)
    late = (log.a >= 36) | (log.b >= 36)
    first = np.flatnonzero(~late)
    keep = np.r_[first[first < 3000], np.arange(3000, 4000)]  # players 36-39 only play after the cut
    log = GameLog(log.a[keep], log.b[keep], log.score[keep], log.time[keep])
    n_new = int(((log.a >= 36) | (log.b >= 36))[log.time >= 3000].sum())
    out = evaluate(Elo(prior_scale=1.0), log, cutoff=3000)
    assert out.n_unseen == n_new > 0
    assert out.n_games == int((log.time >= 3000).sum()) - n_new
    prior = evaluate(Elo(prior_scale=1.0), log, cutoff=3000, unseen="prior")
    assert prior.n_games == out.n_games + n_new and prior.n_unseen == n_new


def test_rolling_origins_cover_the_test_period():
    log = simulated_log(30, 3000, seed=9)
    ev = evaluate([Elo(prior_scale=1.0), OnlineElo()], log, test_fraction=0.3, rolling=3)
    assert len(ev.origins) == 3
    assert sum(o["scored_games"] for o in ev.origins) == ev.n_games == 900
    assert [o["train_end"] for o in ev.origins][1:] == [o["test_start"] for o in ev.origins][1:]
    assert ev.names == ["Elo", "OnlineElo"]


def test_tuning_in_evaluate_never_sees_the_test_games():
    log = simulated_log(40, 4000, seed=10)
    flipped = GameLog(log.a, log.b, np.where(log.time >= 3000, 1.0 - log.score, log.score), log.time)
    one = evaluate({"elo": Elo(), "disc": DiscDecomposition(1, random_state=0), "online": OnlineElo()}, log, cutoff=3000)
    two = evaluate({"elo": Elo(), "disc": DiscDecomposition(1, random_state=0), "online": OnlineElo()}, flipped,
                   cutoff=3000)
    for name in ("elo", "disc"):
        assert one.fitted[name].prior_scale_ == two.fitted[name].prior_scale_
    assert one.fitted["online"].step_ == two.fitted["online"].step_
    np.testing.assert_array_equal(one.predictions["disc"], two.predictions["disc"])


@pytest.mark.parametrize("kwargs, exc, fragment", [
    (dict(cutoff=99999), ValueError, "outside the log's time range"),
    (dict(cutoff=-5), ValueError, "outside the log's time range"),
    (dict(cutoff=2000, test_start=1500), ValueError, "precedes the end of the training period"),
    (dict(cutoff=2000, test_end=1000), ValueError, "test_end=1000 is not after"),
    (dict(cutoff=2000, reference="nobody"), ValueError, "reference='nobody' is not among the models"),
    (dict(cutoff=2000, unseen="bogus"), ValueError, "unseen must be one of"),
    (dict(), ValueError, "exactly one of cutoff"),
    (dict(cutoff=2000, test_fraction=0.1), ValueError, "exactly one of cutoff"),
    (dict(test_fraction=1.5), ValueError, "test_fraction must be in"),
    (dict(cutoff="2020-01-01"), ValueError, "is not a number"),
    (dict(cutoff=2000, rolling=0), ValueError, "rolling must be an integer"),
])
def test_bad_evaluation_arguments_are_named(kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        evaluate({"elo": Elo(prior_scale=1.0)}, simulated_log(20, 3000, seed=11), **kwargs)


def test_evaluation_needs_times_and_overlapping_players():
    log = simulated_log(20, 1000, seed=12)
    with pytest.raises(ValueError, match="needs a game log with times"):
        evaluate(Elo(), GameLog(log.a, log.b, log.score), cutoff=500)
    disjoint = GameLog(np.r_[log.a[:500], log.a[500:] + 100], np.r_[log.b[:500], log.b[500:] + 100], log.score,
                       log.time)
    with pytest.raises(ValueError, match="no overlapping players"):
        evaluate(Elo(), disjoint, cutoff=500)
    with pytest.raises(TypeError, match="no fit / predict_proba"):
        evaluate({"x": object()}, log, cutoff=500)


def test_game_losses_count_a_draw_as_half():
    out = game_losses(np.array([0.8, 0.8, 0.5]), np.array([1.0, 0.5, 0.0]))
    np.testing.assert_allclose(out["log_loss"], [-math.log(0.8), -(0.5 * math.log(0.8) + 0.5 * math.log(0.2)),
                                                 math.log(2)], rtol=1e-15)
    np.testing.assert_array_equal(out["correct"][[0, 2]], [1.0, 0.5])
    assert np.isnan(out["correct"][1])


def test_online_elo_tunes_its_step_on_the_training_games_only():
    log = simulated_log(30, 3000, seed=13)
    model = OnlineElo().fit(log)
    scores = model.step_scores_
    assert model.step_ == min(scores, key=scores.get)
    fixed = OnlineElo(step=model.step_).fit(log)
    np.testing.assert_array_equal(fixed.ratings_, model.ratings_)
    with pytest.raises(ValueError, match="step must be a positive finite number"):
        OnlineElo(step=-1.0).fit(log)


def test_cli_evaluate_prints_the_table_and_names_bad_arguments(tmp_path, capsys):
    import pandas as pd

    log = simulated_log(30, 2000, seed=14)
    path = tmp_path / "games.csv"
    pd.DataFrame({"w": log.a, "b": log.b, "r": log.score, "t": log.time}).to_csv(path, index=False)
    assert main(["evaluate", str(path), "--a", "w", "--b", "b", "--score", "r", "--time", "t", "--cutoff", "1500",
                 "--models", "elo,online-elo,disc", "--calibration"]) == 0
    out = capsys.readouterr().out
    assert "500 test games scored" in out and "online-elo" in out and "calibration of disc" in out
    assert main(["evaluate", str(path), "--a", "w", "--b", "b", "--score", "r", "--time", "t", "--cutoff", "5000"]) == 2
    assert "cutoff=5000 is outside the log's time range" in capsys.readouterr().err
    assert main(["evaluate", str(path), "--a", "w", "--b", "b", "--score", "r", "--time", "t", "--cutoff", "1500",
                 "--models", "elo,nope"]) == 2
    assert "unknown model(s) ['nope']" in capsys.readouterr().err
