"""Advantage covariates in the pair models: ``logit P(i beats j) = score(i, j) + beta . x`` for Elo,
Elo++ and the disc decomposition (models/_covariates.py), fitted on a GameLog with advantage columns.

Elo with covariates is checked against DynamicElo(period=None), an independent joint Newton solver of the
same posterior, and against the gradient of the posterior computed here game by game; the disc
decomposition by the gradient in beta and its predictions' logit shift."""

import warnings

import numpy as np
import pytest
from scipy.special import expit

import discrank
from discrank import DiscDecomposition, DiscDecompositionCV, DynamicElo, Elo, EloPlusPlus, GameLog, MElo
from discrank.solvers._tuning import _score

BETA = 0.5


def home_log(n_games=4000, n_players=30, seed=0, beta=BETA, share_home=0.8):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    home = (rng.random(n_games) < share_home).astype(float)
    s = rng.normal(0.0, 1.0, n_players)
    y = (rng.random(n_games) < expit(s[a] - s[b] + beta * home)).astype(float)
    return GameLog.from_arrays(a, b, y, np.arange(n_games), advantage={"home": home})


def posterior_gradient(log, labels, s, beta, sigma):
    """The gradient of the negative log posterior (games' bce plus s^2 / (2 sigma^2), plus beta's prior
    N(0, (10 / rms(x))^2)) in (s, beta)."""
    pos = {lab: k for k, lab in enumerate(labels.tolist())}
    ia = np.array([pos[v] for v in log.a.tolist()])
    ib = np.array([pos[v] for v in log.b.tolist()])
    x = log.advantage
    r = expit(s[ia] - s[ib] + x @ beta) - log.score
    g_s = np.bincount(ia, r, len(labels)) - np.bincount(ib, r, len(labels)) + s / sigma**2
    return g_s, x.T @ r + beta * np.mean(x * x, axis=0) / 10.0**2


def test_elo_with_covariates_is_the_joint_posterior_mode_of_dynamic_elos_stationary_mode():
    log = home_log()
    elo = Elo(prior_scale=2.0).fit(log)
    dyn = DynamicElo(period=None, prior_scale=2.0).fit(log)
    assert elo.advantage_names_ == ("home",) and elo.converged_
    np.testing.assert_allclose(elo.beta_, dyn.beta_, atol=1e-7)
    np.testing.assert_allclose(elo.beta_se_, dyn.beta_se_, rtol=1e-5)
    order = np.argsort(dyn.labels_[dyn.pp_player_])
    np.testing.assert_allclose(elo.ratings_, dyn.pp_rating_[order], atol=1e-7)
    # the gradient of the posterior, game by game, vanishes in every rating and in beta
    g_s, g_b = posterior_gradient(log, elo.labels_, elo.ratings_, elo.beta_, 2.0)
    games = np.bincount(np.concatenate([log.a, log.b]).astype(int))
    assert np.max(np.abs(g_s) / games) < 1e-8
    assert np.abs(g_b[0]) / np.sum(np.abs(log.advantage)) < 1e-8
    assert abs(elo.beta_[0] - BETA) < 4 * elo.beta_se_[0]


def test_elo_ignoring_the_covariate_differs_and_the_covariate_shifts_each_logit_by_beta():
    log = home_log(seed=1)
    elo = Elo(prior_scale=2.0).fit(log)
    plain = Elo(prior_scale=2.0).fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    assert plain.beta_ is None and plain.advantage_names_ == ()
    assert np.max(np.abs(elo.ratings_ - plain.ratings_)) > 1e-3
    at_home = elo.decision_function([0, 1, 2], [3, 4, 5], advantage=[1.0, 1.0, 1.0])
    neutral = elo.decision_function([0, 1, 2], [3, 4, 5])
    np.testing.assert_allclose(at_home - neutral, elo.beta_[0], atol=1e-12)
    assert elo.predict_proba(0, 3, advantage=1.0) == pytest.approx(expit(neutral[0] + elo.beta_[0]), abs=1e-14)
    # a model fitted on the log predicts its own games with their covariates (log_loss by covariate row)
    pairs = log.to_pairs()
    q = elo.predict_proba(log.a, log.b, advantage=log.advantage)
    y = log.score
    by_games = -np.mean(y * np.log(q) + (1 - y) * np.log1p(-q))
    assert elo.log_loss(pairs) == pytest.approx(by_games, rel=1e-10)
    assert plain.log_loss(pairs) > elo.log_loss(pairs)


def test_disc_decomposition_fits_beta_jointly_with_its_components():
    log = home_log(seed=2)
    for k in (1, 2):
        disc = DiscDecomposition(k, prior_scale=2.0, random_state=0).fit(log)
        assert disc.converged_ and disc.advantage_names_ == ("home",)
        # the scaled gradient in beta at the fitted factors is below tol
        pos = {lab: c for c, lab in enumerate(disc.labels_.tolist())}
        ia = np.array([pos[v] for v in log.a.tolist()])
        ib = np.array([pos[v] for v in log.b.tolist()])
        d = disc.decision_function(disc.labels_[ia], disc.labels_[ib], advantage=log.advantage)
        x = log.advantage[:, 0]
        g_b = x @ (expit(d) - log.score) + disc.beta_[0] * np.mean(x * x) / 10.0**2  # with beta's prior
        assert abs(g_b) / np.sum(np.abs(log.advantage)) <= disc.tol
        assert abs(disc.beta_[0] - BETA) < 4 * disc.beta_se_[0]
        neutral = disc.decision_function(disc.labels_[ia[:5]], disc.labels_[ib[:5]])
        np.testing.assert_allclose(d[:5] - neutral, disc.beta_[0] * log.advantage[:5, 0], atol=1e-12)
    cv = DiscDecompositionCV(n_components=[1], prior_scale=2.0, random_state=0).fit(log)
    assert cv.beta_ is cv.best_estimator_.beta_ and cv.advantage_names_ == ("home",)


def _codes(log, labels):
    pos = {lab: k for k, lab in enumerate(labels.tolist())}
    return np.array([pos[v] for v in log.a.tolist()]), np.array([pos[v] for v in log.b.tolist()])


def test_elo_plus_plus_fits_beta_jointly_with_its_ratings_on_the_squared_error():
    log = home_log(seed=6)
    model = EloPlusPlus(prior_scale=2.0).fit(log)
    assert model.converged_ and model.advantage_names_ == ("home",)
    # the gradient of the objective, game by game (sum of 1/2 (y - q)^2 plus s^2 / (2 sigma^2), plus beta's
    # prior N(0, (10 / rms(x))^2)), vanishes in every rating and in beta
    ia, ib = _codes(log, model.labels_)
    s, beta, x, y = model.ratings_, model.beta_, log.advantage, log.score
    q = expit(s[ia] - s[ib] + x @ beta)
    r = (q - y) * q * (1 - q)
    n = len(model.labels_)
    g_s = np.bincount(ia, r, n) - np.bincount(ib, r, n) + s / 2.0**2
    games = np.bincount(np.concatenate([ia, ib]), minlength=n)
    assert np.max(np.abs(g_s) / games) < 1e-7
    lam = np.mean(x[:, 0] ** 2) / 10.0**2
    assert abs(x[:, 0] @ r + lam * beta[0]) / np.sum(np.abs(x)) <= 1e-6
    # it recovers the simulated advantage, and the covariate shifts each logit by beta
    assert abs(beta[0] - BETA) < 4 * model.beta_se_[0]
    neutral = model.decision_function([0, 1], [2, 3])
    np.testing.assert_allclose(model.decision_function([0, 1], [2, 3], advantage=[1.0, 1.0]) - neutral, beta[0],
                               atol=1e-12)
    # beta_se_ is the sandwich given the ratings, game by game: H = sum g^2 x^2 + lam, J = sum q (1 - q) g^2 x^2
    g = q * (1 - q)
    H = np.sum(g * g * x[:, 0] ** 2) + lam
    J = np.sum(q * (1 - q) * g * g * x[:, 0] ** 2)
    assert model.beta_se_[0] == pytest.approx(np.sqrt(J) / H, rel=1e-6)
    plain = EloPlusPlus(prior_scale=2.0).fit(GameLog.from_arrays(log.a, log.b, log.score, log.time))
    assert plain.log_loss(log.to_pairs()) > model.log_loss(log.to_pairs())


def test_the_tuned_prior_scores_validation_games_with_their_covariates():
    log = home_log(seed=3)
    elo = Elo().fit(log)
    assert elo.prior_tuning_["rule"] == "time order" and elo.beta_ is not None
    val = log.to_pairs()
    rows = val.covariates
    q = expit(elo.decision_function(val.labels[val.i[rows.pair]], val.labels[val.j[rows.pair]]) + rows.x @ elo.beta_)
    w = rows.n_games
    manual = -np.sum(w * (rows.p * np.log(q) + (1 - rows.p) * np.log1p(-q))) / w.sum()
    assert _score(elo, val) == pytest.approx(manual, rel=1e-12)


@pytest.mark.parametrize("model", [MElo(1, prior_scale=1.0), DiscDecomposition(1, loss="probability", prior_scale=1.0)])
def test_a_model_without_covariates_warns_that_it_ignores_the_columns(model):
    log = home_log(n_games=600, n_players=12, seed=4)
    with pytest.warns(UserWarning, match="takes no advantage covariates .* ignores the column 'home'"):
        model.fit(log)
    assert getattr(model, "beta_", None) is None


def test_advantage_arguments_are_checked():
    log = home_log(n_games=600, n_players=12, seed=5)
    elo = Elo(prior_scale=1.0).fit(log)
    plain = Elo(prior_scale=1.0).fit(GameLog.from_arrays(log.a, log.b, log.score))
    with pytest.raises(ValueError, match="fitted without advantage covariates"):
        plain.predict_proba([0], [1], advantage=[1.0])
    with pytest.raises(ValueError, match=r"advantage has shape \(3,\): expected 2 game\(s\) x 1 covariate"):
        elo.predict_proba([0, 1], [2, 3], advantage=[1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="advantage 'home' is nan at row 1"):
        elo.predict_proba([0, 1], [2, 3], advantage=[1.0, np.nan])


@pytest.mark.parametrize("make", [lambda: Elo(prior_scale=1.0), lambda: EloPlusPlus(prior_scale=1.0),
                                  lambda: DiscDecomposition(n_components=1, prior_scale=1.0)])
def test_a_model_file_keeps_the_advantage_coefficients(tmp_path, make):
    from discrank.persist import model_file as persist
    log = home_log(n_games=900, n_players=12, seed=5)
    model = make().fit(log)
    path = tmp_path / "m.npz"
    model.save(path)
    back = persist.load(path)
    assert back.advantage_names_ == ("home",)
    np.testing.assert_array_equal(back.beta_, model.beta_)
    np.testing.assert_array_equal(back.beta_se_, model.beta_se_)
    a, b, x = [0, 1, 2], [3, 4, 5], [1.0, 0.0, 1.0]
    np.testing.assert_array_equal(back.predict_proba(a, b, advantage=x), model.predict_proba(a, b, advantage=x))
    plain = make().fit(GameLog.from_arrays(log.a, log.b, log.score))
    plain.save(tmp_path / "p.npz")
    again = persist.load(tmp_path / "p.npz")
    assert again.beta_ is None and again.advantage_names_ == ()
    with pytest.raises(ValueError, match="fitted without advantage covariates"):
        again.predict_proba([0], [1], advantage=[1.0])


def _rewrite(src, dst, meta_change=None, arrays_change=None):
    """A copy of the model file ``src`` with its header and arrays edited (for the refusal tests)."""
    import json

    with np.load(src, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("__discrank__")))
    if meta_change:
        meta_change(meta)
    if arrays_change:
        arrays_change(arrays)
    np.savez(dst, __discrank__=np.array(json.dumps(meta)), **arrays)


@pytest.mark.parametrize("meta_change, arrays_change, message", [
    (lambda m: m.update(advantage="home"), None, "the header's advantage 'home' is not a list of distinct"),
    (lambda m: m.update(advantage=["home", "home"]), None, "is not a list of distinct covariate names"),
    (lambda m: m.update(advantage=["home", "neutral"]), None, r"beta_ has shape \(1,\) .*expected shape \(2,\)"),
    (lambda m: m.pop("advantage"), None, "unexpected array 'beta_'"),
    (None, lambda a: a.pop("beta_se_"), "missing array 'beta_se_'"),
    (None, lambda a: a.update(beta_=np.array([np.nan])), r"beta_\[0\] = nan is not a finite coefficient"),
    (None, lambda a: a.update(beta_se_=np.array([-1.0])), r"beta_se_\[0\] = -1.0 is not a standard error"),
])
def test_a_tampered_advantage_in_a_model_file_is_named(tmp_path, meta_change, arrays_change, message):
    from discrank.persist import model_file as persist
    elo = Elo(prior_scale=1.0).fit(home_log(n_games=600, n_players=12, seed=5))
    elo.save(tmp_path / "m.npz")
    _rewrite(tmp_path / "m.npz", tmp_path / "bad.npz", meta_change, arrays_change)
    with pytest.raises(ValueError, match=message):
        persist.load(tmp_path / "bad.npz")


def test_threads_give_the_same_covariate_fit():
    log = home_log(seed=6)
    one = Elo(prior_scale=2.0, n_jobs=1).fit(log)
    two = Elo(prior_scale=2.0, n_jobs=2).fit(log)
    np.testing.assert_allclose(one.beta_, two.beta_, atol=1e-10)
    np.testing.assert_allclose(one.ratings_, two.ratings_, atol=1e-10)


def test_the_tile_order_of_covariate_rows_gives_the_fit_in_row_order():
    # more than 2^11 players: the disc fit puts its rows, and their covariates, in tile order
    log = home_log(n_games=30000, n_players=2500, seed=8)

    class RowOrder(DiscDecomposition):
        _tile_pairs = False

    tiled = DiscDecomposition(1, prior_scale=1.0, random_state=0).fit(log)
    plain = RowOrder(1, prior_scale=1.0, random_state=0).fit(log)
    assert tiled.converged_ and plain.converged_
    assert abs(tiled.beta_[0] - plain.beta_[0]) < 1e-5
    q = [m.predict_proba(log.a[:500], log.b[:500], advantage=log.advantage[:500]) for m in (tiled, plain)]
    assert np.max(np.abs(q[0] - q[1])) < 1e-5


def test_evaluate_gives_pair_models_the_test_games_covariates():
    log = home_log(n_games=6000, seed=7, beta=0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = discrank.evaluate({"elo": Elo(prior_scale=2.0)}, log, test_fraction=0.2)
    train, test = log.split_time(0.2)
    elo = Elo(prior_scale=2.0).fit(train)
    q = elo.predict_proba(test.a, test.b, advantage=test.advantage, unseen="prior")
    y = test.score
    manual = -np.mean(y * np.log(q) + (1 - y) * np.log1p(-q))
    assert res.n_unseen == 0 and len(res.losses["elo"]["log_loss"]) == len(test)
    assert float(np.mean(res.losses["elo"]["log_loss"])) == pytest.approx(manual, rel=1e-9)
