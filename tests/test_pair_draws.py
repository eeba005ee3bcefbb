"""Draws on the stationary pair models: pairs keep their draw counts, Elo fits Davidson's and Rao and Kupper's
draw models (the same fit as DynamicElo(period=None)), the disc decomposition fits them on the core's draw
loss, the other pair models refuse them and say why."""

from __future__ import annotations

import json
import math
import zipfile

import numpy as np
import pytest

import discrank as dr
from discrank.core import _core
from discrank.solvers._draws import DRAW_IDS, DRAWS, outcome_probabilities
from discrank.solvers._fitdata import build_fit_data


def _log(seed=0, n=15, games=900, advantage=False, times=False):
    """Games of Davidson's model (eta = log 0.6) between ``n`` players; optionally a home column and times."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    skill = rng.normal(0.0, 0.8, n)
    home = rng.choice([-1.0, 0.0, 1.0], games)
    d = skill[a] - skill[b] + (0.3 * home if advantage else 0.0)
    q = outcome_probabilities(d, math.log(0.6), "davidson")
    u = rng.random(games)
    score = np.where(u < q[:, 0], 1.0, np.where(u < q[:, 0] + q[:, 1], 0.5, 0.0))
    names = np.array([f"p{k:02d}" for k in range(n)], dtype=object)
    return dr.GameLog.from_arrays(names[a], names[b], score, time=np.arange(games) if times else None,
                                  advantage={"home": home} if advantage else None)


# ------------------------------------------------------------------ the pairs' draw counts
def test_to_pairs_draw_counts_equal_a_hand_count():
    log = dr.GameLog.from_arrays(["a", "b", "a", "c", "b", "c", "a", "b"], ["b", "a", "c", "a", "c", "b", "b", "c"],
                                 [1, 0.5, 0.5, 0, 0.5, 1, 0.5, 0])
    pairs = log.to_pairs()
    # (a, b): 1, 0.5, 0.5 -> 2 draws of 3; (a, c): 0.5, 0 -> 1 of 2; (b, c): 0.5, 1 (c won), 0 -> 1 of 3
    assert pairs.labels.tolist() == ["a", "b", "c"]
    assert list(zip(pairs.i.tolist(), pairs.j.tolist())) == [(0, 1), (0, 2), (1, 2)]
    assert pairs.draws.tolist() == [2.0, 1.0, 1.0]
    assert pairs.n_games.tolist() == [3.0, 2.0, 3.0]
    same = dr.PairwiseData.from_games(log.a, log.b, log.score)
    assert same.draws.tolist() == [2.0, 1.0, 1.0]
    # subsets, filters and splits carry them with their pairs
    assert pairs.subset([2, 0]).draws.tolist() == [2.0, 1.0]
    assert pairs.subset(np.array([False, True, True])).draws.tolist() == [1.0, 1.0]
    assert pairs.filter(3).draws.tolist() == [2.0, 1.0]
    train, test = pairs.split(test_fraction=1 / 3, seed=0)
    by_pair = dict(zip(zip(pairs.i.tolist(), pairs.j.tolist()), pairs.draws.tolist()))
    for part in (train, test):
        assert part.draws.tolist() == [by_pair[k] for k in zip(part.i.tolist(), part.j.tolist())]


def test_to_pairs_covariate_rows_keep_their_draw_counts():
    log = dr.GameLog.from_arrays(["a", "b", "a", "c"], ["b", "a", "b", "a"], [1, 0.5, 0.5, 0.5],
                                 advantage={"home": [1, 1, 1, 0]})
    pairs = log.to_pairs()
    rows = pairs.covariates
    # (a, b): a at home won, then drew; b at home drew (x = -1 for a); (a, c): a neutral draw
    assert rows.pair.tolist() == [0, 0, 1]
    assert rows.x[:, 0].tolist() == [-1.0, 1.0, 0.0]
    assert rows.draws.tolist() == [1.0, 1.0, 1.0]
    assert rows.n_games.tolist() == [1.0, 2.0, 1.0]
    assert pairs.draws.tolist() == [2.0, 1.0]


def test_draw_counts_are_unknown_without_games_of_results():
    assert dr.GameLog.from_arrays(["a", "b"], ["b", "a"], [0.7, 0.5]).to_pairs().draws is None
    assert dr.PairwiseData.from_pairs(["a"], ["b"], [0.5], [4]).draws is None
    assert dr.PairwiseData.from_matrix(np.array([[0.5, 0.6], [0.4, 0.5]])).draws is None
    assert dr.GameLog.from_arrays(["a", "b"], ["b", "a"], [1, 0]).to_pairs().draws.tolist() == [0.0]


# ------------------------------------------------------------------ Elo's draw models
@pytest.mark.parametrize("draws", DRAWS)
def test_elo_draws_equal_dynamic_elo_of_one_period(draws):
    log = _log()
    elo = dr.Elo(draws=draws, prior_scale=1.5).fit(log)
    dyn = dr.DynamicElo(period=None, draws=draws, prior_scale=1.5, draw_propensity_scale=0).fit(log)
    assert elo.labels_.tolist() == dyn.labels_.tolist()
    np.testing.assert_allclose(elo.ratings_, dyn.pp_rating_, rtol=0, atol=1e-8)
    eta = math.log(dyn.draw_nu_) if draws == "davidson" else dyn.draw_threshold_
    assert abs(elo.draw_eta_ - eta) <= 1e-8
    assert abs(elo.draw_eta_se_ - dyn.draw_eta_se_) <= 1e-8
    assert elo.converged_ and elo.prior_scale_ == 1.5 and elo.beta_ is None


@pytest.mark.parametrize("draws", DRAWS)
def test_elo_draws_with_advantage_equal_dynamic_elo_of_one_period(draws):
    log = _log(seed=1, advantage=True)
    elo = dr.Elo(draws=draws, prior_scale=0.8).fit(log)
    dyn = dr.DynamicElo(period=None, draws=draws, prior_scale=0.8, variance_scale=1.0, draw_propensity_scale=0).fit(log)
    np.testing.assert_allclose(elo.ratings_, dyn.pp_rating_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(elo.beta_, dyn.beta_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(elo.beta_se_, dyn.beta_se_, rtol=0, atol=1e-8)
    assert abs(elo.draw_eta_se_ - dyn.draw_eta_se_) <= 1e-8
    assert elo.advantage_names_ == ("home",)


@pytest.mark.parametrize("draws", DRAWS)
def test_elo_draw_outcomes_are_the_draw_model_of_the_ratings(draws):
    log = _log(seed=2, advantage=True)
    elo = dr.Elo(draws=draws, prior_scale=1.0).fit(log)
    ia = np.array([0, 3, 7], dtype=np.int32)
    ib = np.array([1, 2, 9], dtype=np.int32)
    x = np.array([[1.0], [0.0], [-1.0]])
    q = elo._outcome_proba(ia, ib, x)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    d = elo.ratings_[ia] - elo.ratings_[ib] + x[:, 0] * elo.beta_[0]
    if draws == "davidson":  # P(a) : P(draw) : P(b) = e^{d/2} : nu : e^{-d/2}
        nu = math.exp(elo.draw_eta_)
        z = np.exp(d / 2) + np.exp(-d / 2) + nu
        expected = np.column_stack([np.exp(d / 2) / z, nu / z * np.ones_like(d), np.exp(-d / 2) / z])
    else:
        k = elo.draw_eta_
        win, loss = 1 / (1 + np.exp(k - d)), 1 / (1 + np.exp(k + d))
        expected = np.column_stack([win, 1 - win - loss, loss])
    np.testing.assert_allclose(q, expected, rtol=1e-12, atol=1e-15)
    # predict_proba keeps meaning P(a beats b): the expected score, a draw counting half
    labels = elo.labels_
    p = elo.predict_proba(labels[ia], labels[ib], advantage=x)
    np.testing.assert_allclose(p, q[:, 0] + 0.5 * q[:, 1], rtol=1e-12)


@pytest.mark.skipif(not hasattr(dr.Elo, "predict_outcomes"), reason="predict_outcomes is the prediction protocol's "
                    "(models/_base.py, the unseen branch of issue 32)")
def test_elo_predict_outcomes_gives_the_draw_model():
    log = _log(seed=3)
    elo = dr.Elo(draws="davidson", prior_scale=1.0).fit(log)
    q = np.asarray(elo.predict_outcomes(log))
    ia, ib = elo._indices(log.a, log.b)
    np.testing.assert_allclose(q, elo._outcome_proba(ia, ib, None), rtol=0, atol=1e-15)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert q[:, 1].min() > 0.0


def test_elo_draw_log_loss_is_the_three_outcome_log_loss_of_the_games():
    log = _log(seed=4)
    elo = dr.Elo(draws="rao-kupper", prior_scale=1.0).fit(log)
    ia, ib = elo._indices(log.a, log.b)
    q = elo._outcome_proba(ia, ib, None)
    col = np.where(log.score == 1.0, 0, np.where(log.score == 0.5, 1, 2))
    expected = -np.mean(np.log(q[np.arange(len(log)), col]))
    assert elo.log_loss(log.to_pairs()) == pytest.approx(expected, rel=1e-12)
    assert elo.score(log.to_pairs()) == pytest.approx(-expected, rel=1e-12)


def test_elo_draws_with_uniform_weights_weigh_each_pair_once():
    log = _log(seed=5, games=400)
    twice = dr.GameLog.from_arrays(np.concatenate([log.a, log.a]), np.concatenate([log.b, log.b]),
                                   np.concatenate([log.score, log.score]))
    once = dr.Elo(draws="davidson", prior_scale=1.0).fit(log.to_pairs(weights="uniform"))
    doubled = dr.Elo(draws="davidson", prior_scale=1.0).fit(twice.to_pairs(weights="uniform"))
    np.testing.assert_allclose(once.ratings_, doubled.ratings_, rtol=0, atol=1e-9)
    assert once.draw_eta_ == pytest.approx(doubled.draw_eta_, abs=1e-9)
    by_games = dr.Elo(draws="davidson", prior_scale=1.0).fit(log)
    assert np.abs(once.ratings_ - by_games.ratings_).max() > 1e-3  # (the weighting matters on this log)


def test_elo_draw_model_tunes_its_prior_on_the_three_outcome_log_loss():
    log = _log(seed=6, times=True)
    elo = dr.Elo(draws="davidson").fit(log)
    tuning = elo.prior_tuning_
    assert tuning["rule"] == "time order" and len(tuning["scales"]) >= 3
    assert elo.prior_scale_ == tuning["chosen"] and math.isfinite(elo.draw_eta_)
    # each score is the three-outcome log loss of the held-out games: above a two-outcome coin's log 2,
    # the best below a uniform forecast's log 3, none far above it (the one-SE rule's strongest priors
    # forecast nearly uniformly)
    scores = tuning["scores"]
    assert all(math.log(2.0) < s < math.log(3.0) + 0.01 for s in scores) and min(scores) < math.log(3.0)
    # without times, on held-out pairs that keep their draw counts
    pairs = dr.Elo(draws="davidson").fit(dr.GameLog.from_arrays(log.a, log.b, log.score).to_pairs())
    assert pairs.prior_tuning_["rule"] == "held-out pairs"
    scores = pairs.prior_tuning_["scores"]
    assert all(math.log(2.0) < s < math.log(3.0) + 0.01 for s in scores) and min(scores) < math.log(3.0)


def test_elo_draw_model_save_load_round_trip_is_bit_for_bit(tmp_path):
    log = _log(seed=7, advantage=True)
    elo = dr.Elo(draws="rao-kupper", prior_scale=1.2).fit(log)
    path = tmp_path / "elo_draws.npz"
    elo.save(path)
    back = dr.load(path)
    assert type(back) is dr.Elo and back.draws == "rao-kupper"
    assert np.array_equal(back.ratings_, elo.ratings_)
    assert back.draw_eta_ == elo.draw_eta_ and back.draw_eta_se_ == elo.draw_eta_se_
    assert np.array_equal(back.beta_, elo.beta_) and np.array_equal(back.beta_se_, elo.beta_se_)
    ia, ib = elo._indices(log.a[:50], log.b[:50])
    x = log.advantage[:50]
    assert np.array_equal(back._outcome_proba(ia, ib, x), elo._outcome_proba(ia, ib, x))
    assert np.array_equal(back.predict_proba(log.a[:50], log.b[:50], advantage=x),
                          elo.predict_proba(log.a[:50], log.b[:50], advantage=x))


def _rewrite_header(src, dst, change):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "__discrank__.npy":
                import io

                meta = json.loads(str(np.load(io.BytesIO(data))))
                change(meta)
                buf = io.BytesIO()
                np.save(buf, np.array(json.dumps(meta)))
                data = buf.getvalue()
            zout.writestr(info.filename, data)


def test_elo_files_without_draw_fields_still_load(tmp_path):
    log = _log(seed=8)
    elo = dr.Elo(prior_scale=1.0).fit(log)
    elo.save(tmp_path / "new.npz")
    # a file of the version before draws: no draws parameter, no draw scalars
    _rewrite_header(tmp_path / "new.npz", tmp_path / "old.npz", lambda meta: meta["params"].pop("draws"))
    old = dr.load(tmp_path / "old.npz")
    assert old.draws is None and old.draw_eta_ is None and old.draw_eta_se_ is None
    assert np.array_equal(old.ratings_, elo.ratings_)
    assert old.predict_proba("p00", "p01") == elo.predict_proba("p00", "p01")


def test_a_draw_model_file_without_its_draw_parameter_is_refused(tmp_path):
    elo = dr.Elo(draws="davidson", prior_scale=1.0).fit(_log(seed=9))
    elo.save(tmp_path / "draws.npz")
    _rewrite_header(tmp_path / "draws.npz", tmp_path / "bad.npz", lambda meta: meta["scalars"].pop("draw_eta_"))
    with pytest.raises(ValueError, match=r"bad\.npz.*draw_eta_ is missing"):
        dr.load(tmp_path / "bad.npz")
    _rewrite_header(tmp_path / "draws.npz", tmp_path / "inf.npz",
                    lambda meta: meta["scalars"].update(draw_eta_se_=-1.0))
    with pytest.raises(ValueError, match=r"draw_eta_se_ = -1\.0 is not a standard error"):
        dr.load(tmp_path / "inf.npz")


# ------------------------------------------------------------------ capabilities and refusals
def test_draw_models_are_declared_by_each_class():
    assert dr.Elo.draw_models == DRAWS and dr.DynamicElo.draw_models == DRAWS
    assert dr.DiscDecomposition.draw_models == DRAWS and dr.DiscDecomposition().get_params()["draws"] is None
    for cls in (dr.EloPlusPlus, dr.MElo):
        assert cls.draw_models == ()
        assert cls().get_params()["draws"] is None


@pytest.mark.parametrize("model, why", [
    (dr.EloPlusPlus(draws="davidson"), "EloPlusPlus takes no draw model.*no likelihood of three outcomes"),
    (dr.MElo(draws="davidson"), "MElo takes no draw model.*no likelihood of three outcomes"),
])
def test_pair_models_without_a_draw_model_refuse_draws_naming_the_model(model, why):
    with pytest.raises(ValueError, match=why):
        model.fit(_log(seed=10, games=200))


@pytest.mark.parametrize("scores, why", [
    ([0.5] * 6, r"Elo\(draws='davidson'\): every game of the data is a draw"),
    ([1, 0, 1, 0, 1, 0], r"Elo\(draws='davidson'\): the data has no draw"),
    ([0.7, 0.5, 1, 0, 0.5, 1], r"Elo\(draws='davidson'\) fits wins, draws and losses.*no draw counts"),
])
def test_elo_draw_model_refuses_logs_it_cannot_fit(scores, why):
    log = dr.GameLog.from_arrays(list("abcabc"), list("bcacab"), scores)
    with pytest.raises(ValueError, match=why):
        dr.Elo(draws="davidson", prior_scale=1.0).fit(log)


def test_elo_draw_model_refuses_what_its_solver_cannot_do():
    log = _log(seed=11, games=200)
    with pytest.raises(ValueError, match=r"Elo\(draws='davidson'\) needs a finite prior_scale"):
        dr.Elo(draws="davidson", prior_scale=np.inf).fit(log)
    with pytest.raises(ValueError, match=r"Elo\(draws='rao-kupper'\) is fitted by Newton's method.*solver='lbfgs'"):
        dr.Elo(draws="rao-kupper", solver="lbfgs", prior_scale=1.0).fit(log)
    with pytest.raises(ValueError, match=r"draws='ties' is not one of \('davidson', 'rao-kupper'\) or None \(Elo's"):
        dr.Elo(draws="ties").fit(log)
    with pytest.raises(ValueError, match=r"Elo\(draws='davidson'\) fits wins, draws and losses.*no draw counts"):
        dr.Elo(draws="davidson", prior_scale=1.0).fit(dr.PairwiseData.from_pairs(["a", "b"], ["b", "c"], [0.5, 0.6], [4, 5]))
    elo = dr.Elo(draws="davidson", prior_scale=1.0).fit(log)
    with pytest.raises(ValueError, match=r"log_loss scores wins, draws and losses.*no draw counts"):
        elo.log_loss(dr.PairwiseData.from_pairs(log.a[:5], log.b[:5], log.score[:5]))


def test_elo_draw_model_refuses_a_dask_fit_it_would_run_in_process():
    distributed = pytest.importorskip("distributed")
    from discrank import dask as dr_dask

    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as client:
        with pytest.raises(ValueError, match=r"Elo\(draws='davidson'\) is not fitted on a Dask cluster yet"):
            dr_dask.fit(dr.Elo(draws="davidson", prior_scale=1.0), _log(seed=12, games=200).to_pairs(), client)


def test_elo_names_its_draw_parameter_as_dynamic_elo_does():
    rng = np.random.default_rng(11)
    n = 2000
    a = rng.integers(0, 12, n)
    b = (a + 1 + rng.integers(0, 11, n)) % 12
    u = rng.random(n)
    score = np.where(u < 0.4, 1.0, np.where(u < 0.6, 0.5, 0.0))
    log = dr.GameLog.from_arrays(a, b, score)
    dav = dr.Elo(prior_scale=1.0, draws="davidson").fit(log)
    assert dav.draw_nu_ == float(np.exp(dav.draw_eta_)) and dav.draw_threshold_ is None
    rk = dr.Elo(prior_scale=1.0, draws="rao-kupper").fit(log)
    assert rk.draw_threshold_ == rk.draw_eta_ and rk.draw_nu_ is None
    dyn = dr.DynamicElo(period=None, prior_scale=1.0, variance_scale=1.0, draws="davidson", draw_propensity_scale=0).fit(log)
    np.testing.assert_allclose(dav.draw_nu_, dyn.draw_nu_, rtol=1e-8)


# ------------------------------------------------------------------ the disc decomposition's draw models
def _disc_log(seed=1, n=24, games=8000, eta=math.log(0.5)):
    """Games of a cyclic disc game (players on a circle of radius ~1.5) with Davidson's draws."""
    rng = np.random.default_rng(seed)
    angle = 2 * np.pi * np.arange(n) / n + rng.normal(0.0, 0.1, n)
    radius = 1.5 + 0.2 * rng.standard_normal(n)
    u, v = radius * np.cos(angle), radius * np.sin(angle)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    q = outcome_probabilities(u[a] * v[b] - v[a] * u[b], eta, "davidson")
    x = rng.random(games)
    score = np.where(x < q[:, 0], 1.0, np.where(x < q[:, 0] + q[:, 1], 0.5, 0.0))
    names = np.array([f"p{k:02d}" for k in range(n)], dtype=object)
    return dr.GameLog.from_arrays(names[a], names[b], score), (u, v), rng


def _numpy_draw_loss(U, V, eta, i, j, y, q, w, draws):
    """The weighted three-outcome negative log-likelihood from outcome_probabilities (the reference)."""
    d = np.sum(U[i] * V[j] - V[i] * U[j], axis=1)
    pr = outcome_probabilities(d, eta, draws)
    return float(np.sum(w * -((y - q / 2) * np.log(pr[:, 0]) + q * np.log(pr[:, 1]) + (1 - y - q / 2) * np.log(pr[:, 2]))))


@pytest.mark.parametrize("draws, eta", [("davidson", -0.4), ("rao-kupper", 0.7)])
def test_disc_draw_kernel_gradient_matches_finite_differences_of_the_numpy_loss(draws, eta):
    rng = np.random.default_rng(3)
    n, m, k = 9, 30, 2
    i = rng.integers(0, n, m).astype(np.int32)
    j = ((i + rng.integers(1, n, m)) % n).astype(np.int32)
    games = rng.integers(1, 6, m).astype(float)
    q = rng.integers(0, 3, m) / 3.0 * (games > 0)
    y = np.clip(q / 2 + rng.random(m) * (1 - q), 0.0, 1.0)
    w = rng.random(m)
    U, V = rng.normal(0, 0.8, (n, k)), rng.normal(0, 0.8, (n, k))
    objective = _core.PairObjective(n, i, j, y, w)
    f, gu, gv, _, g_eta, h_eta = objective.evaluate_draws(DRAW_IDS[draws], q, eta, U=U, V=V, grad_u=True, grad_v=True)
    assert f == pytest.approx(_numpy_draw_loss(U, V, eta, i, j, y, q, w, draws), rel=1e-12)
    h = 1e-5

    def fd(fun, x):
        out = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            xp, xm = x.copy(), x.copy()
            xp[idx] += h
            xm[idx] -= h
            out[idx] = (fun(xp) - fun(xm)) / (2 * h)
        return out

    np.testing.assert_allclose(gu, fd(lambda X: _numpy_draw_loss(X, V, eta, i, j, y, q, w, draws), U), rtol=1e-6,
                               atol=1e-9)
    np.testing.assert_allclose(gv, fd(lambda X: _numpy_draw_loss(U, X, eta, i, j, y, q, w, draws), V), rtol=1e-6,
                               atol=1e-9)
    loss_of_eta = lambda e: _numpy_draw_loss(U, V, float(e[0]), i, j, y, q, w, draws)  # noqa: E731
    assert g_eta == pytest.approx(fd(loss_of_eta, np.array([eta]))[0], rel=1e-6)
    grad_of_eta = lambda e: objective.evaluate_draws(DRAW_IDS[draws], q, float(e[0]), U=U, V=V)[4]  # noqa: E731
    assert h_eta == pytest.approx(fd(grad_of_eta, np.array([eta]))[0], rel=1e-6)
    # the per-pair terms: each derivative the difference quotient of the one below it
    d = np.sum(U[i] * V[j] - V[i] * U[j], axis=1)
    terms = lambda dd, e: _core.draw_terms(DRAW_IDS[draws], dd, y, q, w, e)  # noqa: E731
    f0, f_d, f_dd, f_e, f_de, f_ee = terms(d, eta)
    np.testing.assert_allclose(f_d, (terms(d + h, eta)[0] - terms(d - h, eta)[0]) / (2 * h), rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(f_dd, (terms(d + h, eta)[1] - terms(d - h, eta)[1]) / (2 * h), rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(f_de, (terms(d, eta + h)[1] - terms(d, eta - h)[1]) / (2 * h), rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(f_ee, (terms(d, eta + h)[3] - terms(d, eta - h)[3]) / (2 * h), rtol=1e-6, atol=1e-10)


def test_rao_kupper_kernel_is_infinite_at_a_threshold_outside_the_model():
    objective = _core.PairObjective(2, np.array([0], np.int32), np.array([1], np.int32), np.array([0.5]), np.array([1.0]))
    U, V = np.ones((2, 1)), np.zeros((2, 1))
    assert objective.evaluate_draws(_core.DRAW_RAO_KUPPER, np.array([1.0]), 0.0, U=U, V=V)[0] == np.inf
    with pytest.raises(ValueError, match="unknown draw model id 2"):
        objective.evaluate_draws(2, np.array([1.0]), 0.5, U=U, V=V)


def test_disc_draw_fit_recovers_eta_and_beats_elo_on_held_out_pairs_of_a_cyclic_game():
    # eta from 20000 games: its Fisher information per game is P(draw)(1 - P(draw)) ~ 0.2, a standard error
    # of ~0.016; 0.1 leaves room for the prior's shrinkage of the factors
    log, _, _ = _disc_log(seed=1, games=20000)
    for draws in DRAWS:
        disc = dr.DiscDecomposition(1, draws=draws, prior_scale=3.0, random_state=0).fit(log)
        assert disc.converged_
        if draws == "davidson":
            assert abs(disc.draw_eta_ - math.log(0.5)) < 0.1
        else:  # the threshold whose draw rate at equal strength is Davidson's: 0.5 / 2.5 = 2 sigmoid(kappa) - 1
            assert disc.draw_eta_ > 0.0
    log, (u, v), rng = _disc_log(seed=1, games=8000)
    pairs = log.to_pairs()
    held = rng.random(pairs.n_pairs) < 0.3
    train, test = pairs.subset(~held), pairs.subset(held)
    disc = dr.DiscDecomposition(1, draws="davidson", prior_scale=2.0, random_state=0).fit(train)
    elo = dr.Elo(draws="davidson", prior_scale=2.0).fit(train)
    truth = outcome_probabilities(u[test.i] * v[test.j] - v[test.i] * u[test.j], math.log(0.5), "davidson")
    from discrank._util.losses import outcome_log_loss

    best = outcome_log_loss(truth, test.p, test.n_games, test.draws, test.pair_weights())
    # Elo cannot hold a cycle: its three-outcome log loss on the held-out pairs is ~0.2 worse
    assert disc.log_loss(test) < elo.log_loss(test) - 0.1
    assert disc.log_loss(test) < best + 0.02


def test_disc_draw_predictions_are_the_draw_model_of_the_disc_logit():
    log, _, _ = _disc_log(seed=2, games=3000)
    disc = dr.DiscDecomposition(1, draws="rao-kupper", prior_scale=2.0, random_state=0).fit(log)
    a, b = log.a[:40], log.b[:40]
    q = disc.predict_outcomes(dr.GameLog.from_arrays(a, b, log.score[:40]))
    expected = outcome_probabilities(disc.decision_function(a, b), disc.draw_eta_, "rao-kupper")
    np.testing.assert_allclose(q, expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(disc.predict_proba(a, b), q[:, 0] + q[:, 1] / 2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    # score is the three-outcome log-likelihood per game, as the fit's loss_ at the same pairs
    pairs = log.to_pairs()
    assert disc.score(pairs) == pytest.approx(-disc.loss_, abs=1e-12)
    # draw_eta_se_: 1 / sqrt of the negative log-likelihood's second derivative in eta, the components fixed
    ia, ib = disc._indices(pairs, None)
    args = (ia, ib, pairs.p, pairs.draws / pairs.n_games, pairs.n_games.astype(float), "rao-kupper")
    h, eta = 1e-4, disc.draw_eta_
    second = (_numpy_draw_loss(disc.u_, disc.v_, eta + h, *args) - 2 * _numpy_draw_loss(disc.u_, disc.v_, eta, *args)
              + _numpy_draw_loss(disc.u_, disc.v_, eta - h, *args)) / h**2
    assert disc.draw_eta_se_ == pytest.approx(1.0 / math.sqrt(second), rel=1e-5)


@pytest.mark.parametrize("draws, solver, k", [("davidson", "joint", 2), ("rao-kupper", "joint", 2),
                                              ("davidson", "alternating", 1)])
def test_disc_draw_fit_is_the_same_with_one_or_two_threads(draws, solver, k):
    log, _, _ = _disc_log(seed=4, n=12, games=1500)
    fits = [dr.DiscDecomposition(k, draws=draws, solver=solver, prior_scale=1.0, random_state=0, n_jobs=jobs,
                                 max_iter=300).fit(log) for jobs in (1, 2)]
    for name in ("u_", "v_"):
        np.testing.assert_allclose(getattr(fits[0], name), getattr(fits[1], name), rtol=0, atol=1e-12)
    assert fits[0].draw_eta_ == pytest.approx(fits[1].draw_eta_, abs=1e-12)


def test_fit_data_keeps_each_pairs_draws_in_tile_order():
    rng = np.random.default_rng(5)
    n = 3000  # more than one tile of 2048 players: the pairs are reordered
    a = rng.integers(0, n, 9000)
    b = (a + rng.integers(1, n, 9000)) % n
    pairs = dr.GameLog.from_arrays(a, b, rng.choice([0.0, 0.5, 1.0], 9000)).to_pairs()
    assert build_fit_data(pairs, 1, tile=True).draws is None  # (a model without a draw model: no copy)
    data = build_fit_data(pairs, 1, tile=True, draws=True)
    assert not np.array_equal(data.i, pairs.i)
    by_pair = {(i, j): (d, g) for i, j, d, g in zip(pairs.i.tolist(), pairs.j.tolist(), pairs.draws.tolist(),
                                                    pairs.n_games.tolist())}
    assert [by_pair[k] for k in zip(data.i.tolist(), data.j.tolist())] == list(zip(data.draws.tolist(),
                                                                                  data.n_games.tolist()))


def test_disc_draw_model_save_load_round_trip_is_bit_for_bit(tmp_path):
    log, _, _ = _disc_log(seed=6, n=10, games=1500)
    disc = dr.DiscDecomposition(2, draws="davidson", prior_scale=1.5, random_state=0).fit(log)
    disc.save(tmp_path / "disc_draws.npz")
    back = dr.load(tmp_path / "disc_draws.npz")
    assert type(back) is dr.DiscDecomposition and back.draws == "davidson" and back.draw_eta_ == disc.draw_eta_
    assert back.draw_eta_se_ == disc.draw_eta_se_ > 0.0
    assert np.array_equal(back.u_, disc.u_) and np.array_equal(back.v_, disc.v_)
    games = dr.GameLog.from_arrays(log.a[:50], log.b[:50], log.score[:50])
    assert np.array_equal(back.predict_outcomes(games), disc.predict_outcomes(games))
    _rewrite_header(tmp_path / "disc_draws.npz", tmp_path / "bad.npz", lambda meta: meta["scalars"].pop("draw_eta_"))
    with pytest.raises(ValueError, match=r"draw_eta_ is None but params\.draws is 'davidson'"):
        dr.load(tmp_path / "bad.npz")
    plain = dr.DiscDecomposition(1, prior_scale=1.5, random_state=0).fit(log)
    plain.save(tmp_path / "plain.npz")
    assert dr.load(tmp_path / "plain.npz").draw_eta_ is None and dr.load(tmp_path / "plain.npz").draw_eta_se_ is None


@pytest.mark.parametrize("scores, why", [
    ([0.5] * 6, r"DiscDecomposition\(draws='davidson'\): every game of the data is a draw"),
    ([1, 0, 1, 0, 1, 0], r"DiscDecomposition\(draws='davidson'\): the data has no draw"),
    ([0.7, 0.5, 1, 0, 0.5, 1], r"DiscDecomposition\(draws='davidson'\) fits wins, draws and losses.*no draw counts"),
])
def test_disc_draw_model_refuses_logs_it_cannot_fit_as_elo_does(scores, why):
    log = dr.GameLog.from_arrays(list("abcabc"), list("bcacab"), scores)
    with pytest.raises(ValueError, match=why):
        dr.DiscDecomposition(draws="davidson", prior_scale=1.0).fit(log)


def test_disc_draw_model_refuses_what_it_cannot_fit_naming_the_model():
    log = _log(seed=13, games=300, advantage=True)
    with pytest.raises(ValueError, match=r"DiscDecomposition\(draws='rao-kupper'\) fits the three-outcome likelihood"
                                         r".*loss='probability'"):
        dr.DiscDecomposition(loss="probability", draws="rao-kupper", prior_scale=1.0).fit(_log(seed=13, games=300))
    with pytest.raises(ValueError, match=r"DiscDecomposition\(draws='davidson'\) takes no advantage columns yet "
                                         r"\(here 'home'\)"):
        dr.DiscDecomposition(draws="davidson", prior_scale=1.0).fit(log)
    with pytest.raises(ValueError, match=r"draws='ties' is not one of \('davidson', 'rao-kupper'\) or None "
                                         r"\(DiscDecomposition's"):
        dr.DiscDecomposition(draws="ties").fit(log)
    disc = dr.DiscDecomposition(draws="davidson", prior_scale=1.0, random_state=0).fit(_log(seed=13, games=300))
    with pytest.raises(ValueError, match=r"DiscDecomposition\(draws='davidson'\)\.log_loss scores wins, draws and "
                                         r"losses.*no draw counts"):
        disc.log_loss(dr.PairwiseData.from_pairs(log.a[:5], log.b[:5], log.score[:5]))


def test_disc_draw_model_refuses_a_dask_fit_naming_the_model():
    distributed = pytest.importorskip("distributed")
    from discrank import dask as dr_dask

    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as client:
        with pytest.raises(ValueError, match=r"DiscDecomposition\(draws='davidson'\) is not fitted on a Dask cluster"):
            dr_dask.fit(dr.DiscDecomposition(draws="davidson", prior_scale=1.0), _log(seed=12, games=200).to_pairs(),
                        client)


@pytest.mark.parametrize("strategy", ["scatter", "gather"])
def test_draw_kernel_is_bitwise_the_same_for_any_thread_count(strategy):
    rng = np.random.default_rng(14)
    n, m = 500, 20000  # many blocks of pairs
    i = rng.integers(0, n, m).astype(np.int32)
    j = ((i + rng.integers(1, n, m)) % n).astype(np.int32)
    q = rng.integers(0, 3, m) / 4.0
    y = q / 2 + rng.random(m) * (1 - q)
    w = rng.random(m)
    U, V = rng.normal(0, 1, (n, 3)), rng.normal(0, 1, (n, 3))
    objective = _core.PairObjective(n, i, j, y, w, strategy=strategy)
    for model, eta in ((_core.DRAW_DAVIDSON, -0.7), (_core.DRAW_RAO_KUPPER, 0.4)):
        runs = [objective.evaluate_draws(model, q, eta, U=U, V=V, grad_u=True, grad_v=True, n_threads=t)
                for t in (1, 2, 3)]
        for other in runs[1:]:
            assert other[0] == runs[0][0] and other[4] == runs[0][4] and other[5] == runs[0][5]
            assert np.array_equal(other[1], runs[0][1]) and np.array_equal(other[2], runs[0][2])


@pytest.mark.parametrize("draws", ["davidson", "rao-kupper"])
def test_a_log_of_draws_only_is_refused_by_every_draw_model(draws):
    """issue 33: DynamicElo fitted a log of draws only to P(draw) = 1 - 1e-9 and reported convergence."""
    log = dr.GameLog.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"], [0.5] * 4, time=[0.0, 1.0, 2.0, 3.0])
    for model in (dr.DynamicElo(period=1.0, draws=draws, prior_scale=1.0, drift=0.1),
                  dr.Elo(draws=draws, prior_scale=1.0), dr.DiscDecomposition(1, draws=draws, prior_scale=1.0)):
        with pytest.raises(ValueError, match="every game of the (log|data) is a draw"):
            model.fit(log)
