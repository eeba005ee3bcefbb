"""DynamicElo's player-by-context effects (issue 36, item 2): the solver's block of effects, the model's fit,
tuning, forecasts and updates, the surfaces that serve a context model or refuse it, and the bad input."""

import re
import warnings

import numpy as np
import pytest
from _map_checks import check_derivatives, check_map_against_lbfgs

from discrank import DynamicElo, Elo, GameLog, bootstrap, evaluate, load
from discrank.solvers._history import _Problem, build_history, solve_history
from discrank.exceptions import MissingColumnWarning, UnusedColumnWarning

CONTEXTS = np.array(["clay", "grass", "hard"])

GRAD_TOL = 1e-9  # the Newton MAP's largest gradient entry: the fit's tol 1e-11 times its scale (at most ~100)


def league(seed=0, n=30, games=6000, days=300.0, scale=0.7):
    """A league whose players' strengths differ by context (effects of standard deviation ``scale``), with a
    slow drift; (log, effects)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.uniform(0.0, days, games))
    c = rng.integers(0, CONTEXTS.size, games)
    base, trend = rng.normal(size=n), rng.normal(scale=0.3, size=n)
    effect = rng.normal(scale=scale, size=(n, CONTEXTS.size))
    d = base[a] - base[b] + (trend[a] - trend[b]) * t / days + effect[a, c] - effect[b, c]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(np.float64)
    labels = np.array([f"p{k:02d}" for k in range(n)], dtype=object)
    return GameLog.from_arrays(labels[a], labels[b], y, t, context=CONTEXTS[c]), effect


def fixed(**kw):
    """DynamicElo at fixed scales (no tuning)."""
    return DynamicElo(period=10.0, drift=0.05, prior_scale=1.0, variance_scale=1.0, **kw)


def log_loss(p, y):
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)))


# ------------------------------------------------------------------ the solver
@pytest.mark.parametrize("draws, n_cov", [(None, 0), ("davidson", 1), (None, 2)])
def test_the_effects_gradient_and_hessian_match_finite_differences_and_the_map_matches_lbfgs(draws, n_cov):
    rng = np.random.default_rng(1)
    n_players, games, n_ctx = 12, 600, 3
    ca = rng.integers(0, n_players, games)
    cb = (ca + rng.integers(1, n_players, games)) % n_players
    bins, ctx = np.sort(rng.integers(0, 20, games)), rng.integers(0, n_ctx, games)
    eff = rng.normal(scale=0.8, size=(n_players, n_ctx))
    d = rng.normal(size=n_players)[ca] - rng.normal(size=n_players)[cb] + eff[ca, ctx] - eff[cb, ctx]
    y = (rng.random(games) < 1.0 / (1.0 + np.exp(-d))).astype(float)
    if draws:
        y = np.where(rng.random(games) < 0.2, 0.5, y)
    x = rng.normal(size=(games, n_cov)) if n_cov else None
    h = build_history(ca, cb, y, bins, x, n_players, draws, None, ctx, n_ctx)
    assert h.n_eff == n_players * n_ctx
    prob = _Problem(h, 0.1, 1.5, draws, context_scale=0.7)
    theta = rng.normal(scale=0.3, size=h.n_pp + h.n_eff + h.n_cov + (1 if draws else 0))
    check_derivatives(prob, theta, rng, grad_atol=2e-6, hessp_atol=1e-6)
    res = solve_history(h, 0.1, 1.5, draws, context_scale=0.7, tol=1e-11)
    assert res.converged
    check_map_against_lbfgs(prob, res, np.zeros(theta.size), grad_tol=GRAD_TOL)
    np.testing.assert_array_equal(res.effects, res.theta[h.n_pp:h.n_pp + h.n_eff])


# ------------------------------------------------------------------ the model
def test_contexts_recover_the_effects_and_forecast_the_future_better_than_ratings_alone():
    log, effect = league()
    past, future = log.filter(end=250.0), log.filter(start=250.0)
    ctx = fixed(context_scale=0.7).fit(past)
    plain = fixed().fit(GameLog.from_arrays(past.a, past.b, past.score, past.time))
    assert list(ctx.context_labels_) == list(CONTEXTS) and ctx.context_effects_.shape == (30, 3)
    centred = effect - effect.mean(axis=1, keepdims=True)  # the rating absorbs each player's mean effect
    got = ctx.context_effects_ - ctx.context_effects_.mean(axis=1, keepdims=True)
    assert np.corrcoef(got.ravel(), centred.ravel())[0, 1] > 0.85
    assert (ctx.context_sd_ > 0).all() and (ctx.context_sd_ < 0.7).all()
    y = future.score
    bare = GameLog.from_arrays(future.a, future.b, future.score, future.time)  # (plain refuses contexts)
    gain = log_loss(plain.predict_games(bare), y) - log_loss(ctx.predict_games(future), y)
    assert gain > 0.03  # 0.052 measured: a third of the players' strength varies by context


def test_the_tuned_context_scale_follows_the_effects_in_the_data():
    strong, _ = league(scale=0.7)
    none, _ = league(seed=2, scale=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a scale chosen at the bound of its search warns (checked below)
        tuned_strong = DynamicElo(period=10.0, drift=0.05, prior_scale=1.0).fit(strong)
        tuned_none = DynamicElo(period=10.0, drift=0.05, prior_scale=1.0).fit(none)
    assert 0.4 <= tuned_strong.context_scale_ <= 1.6
    assert tuned_none.context_scale_ <= 0.1  # no effect in the data: the walk goes down the grid
    record = tuned_strong.tuning_
    # the lowest validation log loss, each scale past the grid's edge (0.8) paying the edge's gain per step
    cost = {c: v + record["edge_gain"] * max(0.0, np.log2(c / 0.8)) for c, v in record["context_scales"].items()}
    assert tuned_strong.context_scale_ == min(cost, key=cost.get)
    assert record["scanned"]["context_scale"] == sorted(record["context_scales"])


def test_an_update_with_contexts_equals_the_refit_of_every_game_a_new_context_and_player_included():
    log, _ = league(games=3000)
    past, new = log.filter(end=250.0), log.filter(start=250.0)
    labels = np.where(new.a == "p00", "newcomer", new.a).astype(object)  # a player the fit has not seen
    new = GameLog.from_arrays(labels, new.b, new.score, new.time,
                              context=np.where(new.context == "clay", "carpet", new.context))
    model = fixed(context_scale=0.5).fit(past).update(new)
    whole = GameLog.from_arrays(np.concatenate([past.a, new.a]), np.concatenate([past.b, new.b]),
                                np.concatenate([past.score, new.score]), np.concatenate([past.time, new.time]),
                                context=np.concatenate([past.context, new.context]))
    ref = fixed(context_scale=0.5).fit(whole)
    assert list(model.context_labels_) == ["clay", "grass", "hard", "carpet"]
    np.testing.assert_allclose(model.predict_games(whole), ref.predict_games(whole), rtol=0, atol=1e-5)


def test_an_unseen_context_forecasts_with_the_prior_of_the_effects():
    log, _ = league(games=2000)
    model = fixed(context_scale=0.5).fit(log)
    at = lambda c: GameLog.from_arrays(["p01"], ["p02"], [0.5], [log.time.max()], context=[c])  # noqa: E731
    with pytest.warns(MissingColumnWarning, match="no context column"):
        plain = model.predict_games(GameLog.from_arrays(["p01"], ["p02"], [0.5], [log.time.max()]))[0]
    unseen = model.predict_games(at("ice"))[0]
    # the effects' mean is 0 and their variance the prior's: a forecast closer to a coin than without contexts
    assert abs(unseen - 0.5) < abs(plain - 0.5) and np.sign(unseen - 0.5) == np.sign(plain - 0.5)
    e = model.context_effects_[[1, 2], 0]
    assert (model.predict_games(at("clay"))[0] > unseen) == (e[0] - e[1] > 0)


# ------------------------------------------------------------------ the surfaces
def test_evaluate_gives_the_contexts_to_dynamic_elo_and_notes_the_models_that_take_none():
    log, _ = league(games=3000)
    with pytest.warns(UnusedColumnWarning, match=re.escape(
            "evaluate: 'elo' takes no contexts: fitted and scored without the log's context column")):
        ev = evaluate({"ctx": fixed(context_scale=0.5), "elo": Elo(prior_scale=1.0)}, log, cutoff=250.0,
                      protocol="online", refit=10.0)
    assert any("'elo' takes no contexts" in note for note in ev.notes)
    rows = {r["model"]: r for r in ev.summary()}
    assert rows["ctx"]["log_loss"] < rows["elo"]["log_loss"] - 0.02
    # the online walk feeds the context model its updates with their contexts: the first period is the fit's
    first = ev.predictions["ctx"][: int(np.sum((log.time >= 250.0) & (log.time < 260.0)))]
    np.testing.assert_allclose(first, fixed(context_scale=0.5).fit(log.filter(end=250.0)).predict_games(
        log.filter(start=250.0, end=260.0)), rtol=0, atol=1e-12)


def test_bootstrap_resamples_the_contexts_with_their_games():
    log, _ = league(games=1500)
    result = bootstrap(fixed(context_scale=0.5), log, n_boot=3, seed=0)
    point = fixed(context_scale=0.5).fit(log)
    frame = result.frame().set_index("player")
    np.testing.assert_allclose(frame[result.column], point.ratings_frame().set_index("player").loc[
        frame.index, result.column], rtol=0, atol=1e-9)


def test_a_pair_model_warns_that_it_ignores_the_contexts():
    log, _ = league(games=500)
    with pytest.warns(UserWarning, match=r"Elo\.fit: Elo takes no contexts and ignores the log's context column"):
        Elo(prior_scale=1.0).fit(log)


# ------------------------------------------------------------------ bad input
def test_a_fit_refuses_one_context_and_a_context_scale_without_contexts():
    log, _ = league(games=500)
    one = GameLog.from_arrays(log.a, log.b, log.score, log.time, context=np.full(len(log), "clay"))
    with pytest.raises(ValueError, match=r"context column holds one value only \('clay'\)"):
        DynamicElo(period=10.0).fit(one)
    bare = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    with pytest.raises(ValueError, match=r"context_scale=0.5 asks for context effects, but the log has no context"):
        fixed(context_scale=0.5).fit(bare)
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="context_scale"):
            fixed(context_scale=bad).fit(log)


def test_an_update_refuses_games_without_contexts_or_with_contexts_of_another_kind():
    log, _ = league(games=1000)
    model = fixed(context_scale=0.5).fit(log.filter(end=250.0))
    later = log.filter(start=250.0)
    with pytest.raises(ValueError, match=r"update's games have no context column; the DynamicElo was fitted with "
                                         r"contexts \['clay', 'grass', 'hard'\]"):
        model.update(GameLog.from_arrays(later.a, later.b, later.score, later.time))
    with pytest.raises(ValueError, match=re.escape("update's games have the context 1, numbers, and the DynamicElo "
                                                   "was fitted on contexts that are text (['clay', 'grass', 'hard'])")):
        model.update(GameLog.from_arrays(later.a, later.b, later.score, later.time, context=np.ones(len(later), int)))
    plain = fixed().fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    with pytest.raises(ValueError, match="update's games have a context column; the DynamicElo was fitted without"):
        plain.update(later)


def test_a_context_model_saves_and_loads(tmp_path):
    log, _ = league(games=500)
    model = fixed(context_scale=0.5).fit(log)
    model.save(tmp_path / "model.npz")  # (its file holds the feature: tests/test_feature_files.py)
    np.testing.assert_array_equal(load(tmp_path / "model.npz").predict_games(log), model.predict_games(log))


def test_the_cli_reads_a_context_column_and_fits_the_effects_as_the_api_does(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    from discrank.cli import main

    log, _ = league(games=1000)
    csv, out = tmp_path / "games.csv", tmp_path / "ratings.csv"
    pd.DataFrame({"a": log.a, "b": log.b, "score": log.score, "t": log.time, "surface": log.context}).to_csv(
        csv, index=False)
    args = ["fit", str(csv), "--score", "score", "--time", "t", "--model", "dynamic", "--period", "10", "--drift",
            "0.05", "--prior-scale", "1", "--variance-scale", "1", "--quiet", "--out", str(out)]
    assert main(args + ["--context", "surface", "--context-scale", "0.5"]) == 0
    got = pd.read_csv(out).set_index("player")
    ref = fixed(context_scale=0.5).fit(log).ratings_frame().set_index("player")
    np.testing.assert_allclose(got.loc[ref.index, "rating"], ref["rating"], rtol=0, atol=1e-9)
    assert main(args + ["--context-scale", "0.5"]) == 2
    assert "context_scale=0.5 asks for context effects, but the log has no context column" in capsys.readouterr().err
