"""discrank.dask on a LocalCluster of 2 worker processes: the aggregation equals the in-memory one, the
fits equal the in-process fits, a worker killed mid-fit leaves the result unchanged, and a dynamic model
fitted on the cluster updates with scanned weeks as a fit of every game."""

import os
import signal
import warnings

import numpy as np
import pytest

import discrank

pd = pytest.importorskip("pandas")
dask_dataframe = pytest.importorskip("dask.dataframe", reason="the [dask] extra is not installed")
distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")

import discrank.dask as ddk  # noqa: E402
from test_feature_files import FEATURES, FIXED, NONE, league  # noqa: E402
from discrank.online import OnlineElo  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster's start-up chatter (ports, deprecations) is not ours
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=50)
        c = distributed.Client(cluster)
    yield c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c.close()
        cluster.close()


def _games(seed=0, n_players=120, n_games=6000, strings=True):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    strength = np.linspace(-1.5, 1.5, n_players)
    p = 1.0 / (1.0 + np.exp(-(strength[a] - strength[b] + 0.3 * (rng.random(n_games) < 0.5))))
    u = rng.random(n_games)
    score = np.where(u < p - 0.05, 1.0, np.where(u < p + 0.05, 0.5, 0.0))
    home = rng.choice([-1.0, 0.0, 1.0], n_games)
    lab = (lambda v: np.array([f"p{k:03d}" for k in v], dtype=object)) if strings else (lambda v: v)
    return pd.DataFrame({"a": lab(a), "b": lab(b), "score": score, "home": home})


def _same_pairs(d, ref):
    assert np.array_equal(d.labels, ref.labels) and d.labels.dtype.kind == ref.labels.dtype.kind
    for f in ("i", "j", "p", "n_games"):
        assert np.array_equal(getattr(d, f), getattr(ref, f)), f


@pytest.mark.parametrize("strings", [True, False])
def test_aggregate_equals_in_memory(strings):
    df = _games(strings=strings)
    ddf = dask_dataframe.from_pandas(df, npartitions=5)
    ref = discrank.GameLog.from_frame(df, score="score").to_pairs()
    _same_pairs(ddk.aggregate(ddf, score="score"), ref)


def test_aggregate_covariates_equal_in_memory():
    df = _games(1)
    ddf = dask_dataframe.from_pandas(df, npartitions=4)
    ref = discrank.GameLog.from_frame(df, score="score", advantage="home").to_pairs()
    got = ddk.aggregate(ddf, score="score", advantage="home")
    _same_pairs(got, ref)
    for f in ("pair", "p", "n_games", "x"):
        assert np.array_equal(getattr(got.covariates, f), getattr(ref.covariates, f)), f
    assert got.covariates.names == ("home",)


def test_aggregate_names_the_bad_row():
    df = _games(2)
    df.loc[4000, "b"] = df.loc[4000, "a"]
    ddf = dask_dataframe.from_pandas(df, npartitions=3)  # row 4000 is row 0 of partition 2
    with pytest.raises(ValueError, match=r"partition 2: .*row 0"):
        ddk.aggregate(ddf, score="score")
    with pytest.raises(ValueError, match="column 'winner' .* is not in the frame"):
        ddk.aggregate(ddf, winner="winner")


@pytest.mark.parametrize("params", [dict(prior_scale=1.0), dict()])
def test_elo_fit_equals_in_process(client, params):
    data = discrank.GameLog.from_frame(_games(3), score="score").to_pairs()
    ref = discrank.Elo(**params).fit(data)
    got = ddk.fit(discrank.Elo(**params), data, client)
    # the parts' sums are added as the kernel adds its own: every call returns the in-process numbers,
    # and the solver (the tuning's fits too) takes the same steps
    assert np.array_equal(got.ratings_, ref.ratings_)
    assert got.prior_scale_ == ref.prior_scale_
    assert got.converged_ and got.dask_calls_ > 5


def test_elo_fit_on_a_ladder_equals_in_process(client):
    # a ladder (each player against the next only, far apart in strength): conjugate gradients crawl and
    # Newton's method switches to the banded Cholesky solve, which needs the curvature on the driver
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2999, 60000)
    strength = np.linspace(0.0, 900.0, 3000)
    y = (rng.random(a.size) < 1.0 / (1.0 + np.exp(strength[a + 1] - strength[a]))).astype(float)
    data = discrank.PairwiseData.from_games(a, a + 1, y)
    ref = discrank.Elo(prior_scale=100.0).fit(data)
    got = ddk.fit(discrank.Elo(prior_scale=100.0), data, client)
    assert ref.linear_solver_ == got.linear_solver_ == "banded Cholesky"
    assert got.converged_
    assert np.array_equal(got.ratings_, ref.ratings_)


def test_elo_covariates_fit_equals_in_process(client):
    data = discrank.GameLog.from_frame(_games(4), score="score", advantage="home").to_pairs()
    ref = discrank.Elo(prior_scale=1.0).fit(data)
    got = ddk.fit(discrank.Elo(prior_scale=1.0), data, client)
    assert np.array_equal(got.ratings_, ref.ratings_) and np.array_equal(got.beta_, ref.beta_)


@pytest.mark.parametrize("n_parts", [2, 3, 16])
def test_disc_fit_equals_in_process(client, n_parts):
    data = discrank.GameLog.from_frame(_games(5), score="score").to_pairs()
    ref = discrank.DiscDecomposition(2, prior_scale=1.0, random_state=0).fit(data)
    got = ddk.fit(discrank.DiscDecomposition(2, prior_scale=1.0, random_state=0), data, client,
                  n_parts=n_parts)
    # L-BFGS amplifies any rounding-level change of a sum to its tolerance (predictions were 1e-6 apart
    # when the parts were summed in another order); summed as the kernel sums, the two fits are one
    assert got.converged_ and ref.converged_ and got.dask_calls_ > 10
    for f in ("u_", "v_", "n_iter_", "grad_measure_", "prior_scale_"):
        assert np.array_equal(getattr(got, f), getattr(ref, f)), f
    assert np.array_equal(got.predict_proba(data.labels[data.i], data.labels[data.j]),
                          ref.predict_proba(data.labels[data.i], data.labels[data.j]))


def test_more_parts_than_leaves_are_summed_in_part_order(client):
    data = discrank.GameLog.from_frame(_games(3), score="score").to_pairs()
    ref = discrank.Elo(prior_scale=1.0).fit(data)
    got_parts = []
    original = ddk.DistributedObjective.__init__

    def counting(self, *args, **kw):
        original(self, *args, **kw)
        got_parts.append(len(self.group.actors))
        assert not self.exact

    ddk.DistributedObjective.__init__ = counting
    try:
        got = ddk.fit(discrank.Elo(prior_scale=1.0), data, client, n_parts=ddk.LEAVES + 3)
    finally:
        ddk.DistributedObjective.__init__ = original
    # 19 parts of 300 or 301 pairs, each summed as a set of its own: Newton's method ends at the
    # in-process fit's point to rounding
    assert got.converged_ and len(got_parts) == 1 and got_parts[0] == ddk.LEAVES + 3
    np.testing.assert_allclose(got.ratings_, ref.ratings_, rtol=0, atol=1e-10)


@pytest.mark.parametrize("make", [lambda: discrank.EloPlusPlus(), lambda: discrank.MElo(1, random_state=0)],
                         ids=["elo++", "m-elo"])
def test_other_pair_models_fit_as_in_process(client, make):
    data = discrank.GameLog.from_frame(_games(6), score="score").to_pairs()
    ref = make().fit(data)
    got = ddk.fit(make(), data, client, n_parts=3)
    assert got.dask_calls_ > 3
    assert np.array_equal(got.predict_proba(data.labels[data.i], data.labels[data.j]),
                          ref.predict_proba(data.labels[data.i], data.labels[data.j]))


@pytest.mark.parametrize("make", [lambda: discrank.SchurDecomposition(), lambda: OnlineElo()],
                         ids=["schur", "online"])
def test_a_model_with_a_fit_of_its_own_is_refused_by_name(make):
    data = discrank.GameLog.from_frame(_games(6), score="score").to_pairs()
    model = make()
    with pytest.raises(TypeError, match=f"{type(model).__name__} has a fit of its own, which runs in process"):
        ddk.fit(model, data, client=None)
    assert not hasattr(model, "labels_")


def test_cv_fit_equals_in_process(client):
    # the tuning's fits, every fold's fits and the refit run on the workers, each as in process
    data = discrank.GameLog.from_frame(_games(7, n_players=40, n_games=2000), score="score").to_pairs()

    def make():
        return discrank.DiscDecompositionCV(regularizations=(0.0, 1.0), cv=2, random_state=0)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", discrank.ConvergenceWarning)
        ref = make().fit(data)
        got = ddk.fit(make(), data, client, n_parts=2)
    assert got.dask_calls_ > 10
    assert got.prior_tuning_ == ref.prior_tuning_ and got.best_params_ == ref.best_params_
    for key, value in ref.cv_results_.items():
        assert np.array_equal(got.cv_results_[key], value), key
    assert np.array_equal(got.u_, ref.u_) and np.array_equal(got.v_, ref.v_)


def test_the_fit_sets_nothing_on_the_model_but_its_fitted_attributes(client):
    data = discrank.GameLog.from_frame(_games(6), score="score").to_pairs()
    got = ddk.fit(discrank.Elo(), data, client, n_parts=2)
    ref = discrank.Elo().fit(data)
    assert set(vars(got)) == set(vars(ref)) | {"dask_calls_", "dask_parts_rebuilt_"}
    assert np.array_equal(got.ratings_, ref.ratings_) and got.prior_tuning_ == ref.prior_tuning_


def test_fit_from_a_dask_frame(client):
    df = _games(6)
    ref = discrank.Elo(prior_scale=1.0).fit(discrank.GameLog.from_frame(df, score="score").to_pairs())
    got = ddk.fit(discrank.Elo(prior_scale=1.0), dask_dataframe.from_pandas(df, npartitions=3), client,
                  score="score")
    assert np.array_equal(got.ratings_, ref.ratings_)


def test_worker_lost_mid_fit_leaves_the_result_unchanged(client):
    data = discrank.GameLog.from_frame(_games(7, n_players=200, n_games=12000), score="score").to_pairs()
    quiet = ddk.fit(discrank.Elo(prior_scale=1.0), data, client, n_parts=4)
    pids = client.run(os.getpid)  # {worker address: pid}
    victim = sorted(pids.values())[0]
    calls = {"n": 0}
    original = ddk.DistributedObjective.hessp_s

    def hessp_then_kill(self, curv, x, n_threads=0):
        calls["n"] += 1
        if calls["n"] == 3:  # mid-fit: after the curvature is on the workers, before the next product
            os.kill(victim, signal.SIGKILL)
        return original(self, curv, x, n_threads)

    ddk.DistributedObjective.hessp_s = hessp_then_kill
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the nanny's restart chatter
            lost = ddk.fit(discrank.Elo(prior_scale=1.0), data, client, n_parts=4)
    finally:
        ddk.DistributedObjective.hessp_s = original
    assert calls["n"] >= 3
    assert lost.dask_parts_rebuilt_ >= 1 and quiet.dask_parts_rebuilt_ == 0  # the victim's parts
    assert victim not in client.run(os.getpid).values()  # the worker was replaced
    # the same parts summed in the same order: the same numbers, bit for bit
    assert np.array_equal(lost.ratings_, quiet.ratings_)
    client.wait_for_workers(2, timeout=60)


def _die_in_hessp():  # run on the victim worker: its parts' next Laplacian product kills the process
    import discrank.dask._parts as worker_parts

    def hessp_s(self, *args):
        os.kill(os.getpid(), signal.SIGKILL)

    worker_parts._Part.hessp_s = hessp_s


def _fit_with_a_death(client, die, fit):
    """``fit()`` on a quiet cluster, then again with ``die`` run first on part 0's worker (its next call
    of the patched method kills the process); both fits."""
    client.wait_for_workers(2, timeout=60)
    quiet = fit()
    victim = ddk.live_workers(client)[0]  # part 0's worker
    client.run(die, workers=[victim])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the nanny's restart chatter
        lost = fit()
    assert lost.dask_parts_rebuilt_ >= 1 and quiet.dask_parts_rebuilt_ == 0
    assert victim not in ddk.live_workers(client)
    client.wait_for_workers(2, timeout=60)
    return quiet, lost


def test_worker_dying_inside_a_call_leaves_the_result_unchanged(client):
    data = discrank.GameLog.from_frame(_games(9, n_players=150, n_games=9000), score="score").to_pairs()
    quiet, lost = _fit_with_a_death(client, _die_in_hessp,
                                    lambda: ddk.fit(discrank.Elo(prior_scale=1.0), data, client, n_parts=2))
    assert np.array_equal(lost.ratings_, quiet.ratings_)


def test_distributed_objective_products_equal_the_kernel(client):
    data = discrank.GameLog.from_frame(_games(8), score="score").to_pairs()
    obj = ddk.DistributedObjective(client, data.n_players, data.i, data.j, data.p, np.full(data.n_pairs, 1.0),
                                   n_parts=2)
    try:
        curv = np.empty(data.n_pairs)
        obj.evaluate(0, s=np.zeros(data.n_players), grad_s=True, curv=curv)
        assert np.isnan(curv).all()  # the curvature stays on the workers
        local = discrank.core._core.PairObjective(data.n_players, data.i, data.j, data.p, np.full(data.n_pairs, 1.0))
        c2 = np.empty(data.n_pairs)
        x = np.random.default_rng(0).normal(size=data.n_players)
        local.evaluate(0, s=x, grad_s=True, curv=c2)
        obj.evaluate(0, s=x, grad_s=True, curv=curv)
        assert np.array_equal(obj.hessp_s(curv, x), local.hessp_s(c2, x))
        assert np.array_equal(obj.gather(curv), c2)
        # a curvature of the caller's own is shipped with the call
        mine = np.random.default_rng(1).random(data.n_pairs)
        assert np.array_equal(obj.hessp_s(mine, x), local.hessp_s(mine, x))
        assert np.array_equal(obj.player_sums(mine), local.player_sums(mine))
        assert np.array_equal(obj.opponent_sums(mine, x), local.opponent_sums(mine, x))
        assert all(np.array_equal(a, b) for a, b in zip(obj.score_sums(), local.score_sums()))
    finally:
        obj.close()


# ------------------------------------------------------------------------------- the dynamic model
def _league(seed=0, n=40, periods=20, games=5000, draws=False):
    """Games between ``n`` players whose strengths walk over ``periods`` periods, with a home column."""
    rng = np.random.default_rng(seed)
    true = np.cumsum(rng.normal(0, 0.2, (n, periods)), axis=1) + rng.normal(0, 1, (n, 1))
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.integers(0, periods, games))
    home = rng.choice([-1.0, 0.0, 1.0], games)
    d = true[a, t] - true[b, t] + 0.4 * home
    u = rng.random(games)
    p = 1.0 / (1.0 + np.exp(-d))
    y = np.where(u < p - 0.1, 1.0, np.where(u < p + 0.1, 0.5, 0.0)) if draws else (u < p).astype(float)
    return discrank.GameLog.from_arrays(a, b, y, t.astype(float), advantage={"home": home})


@pytest.mark.parametrize("params", [dict(drift=0.2, prior_scale=1.0, tol=1e-12),
                                    dict(drift=0.2, prior_scale=1.0, draws="davidson", tol=1e-12),
                                    dict(drift=0.2, prior_scale=1.0, draws="rao-kupper", tol=1e-12),
                                    dict()])  # the tuning's fits too, at the default tolerance
def test_dynamic_fit_equals_in_process(client, params):
    log = _league(10, draws="draws" in params)
    ref = discrank.DynamicElo(period=1.0, **params).fit(log)
    got = ddk.fit(discrank.DynamicElo(period=1.0, **params), log, client, n_parts=3)
    # Newton's method on a strictly convex problem: the parts' other summation order moves the CG
    # steps by rounding, and each fit ends within its tolerance of the MAP (at the default tol=1e-9 the
    # two were seen 5e-9 apart; at 1e-12 both are at the MAP to rounding)
    atol = 1e-10 if "tol" in params else 1e-7
    assert got.converged_ and got.dask_calls_ > 10
    np.testing.assert_allclose(got.pp_rating_, ref.pp_rating_, rtol=0, atol=atol)
    np.testing.assert_allclose(got.pp_sd_, ref.pp_sd_, rtol=0, atol=atol)
    np.testing.assert_allclose(got.beta_, ref.beta_, rtol=0, atol=atol)
    assert (got.drift_, got.prior_scale_, got.variance_scale_) == (ref.drift_, ref.prior_scale_, ref.variance_scale_)
    if "draws" in params:
        assert got.draw_eta_se_ == pytest.approx(ref.draw_eta_se_, rel=1e-8)


@pytest.mark.parametrize("feature", [*FEATURES, "tuned"])
def test_dynamic_fit_with_features_equals_in_process(client, feature):
    """Each feature's rows spread over the workers with their features (context effects, disc, draw propensities,
    format scales, margin rows), each part the core's problem over its share: the fit of tests/test_feature_files.py's league
    ends where the in-process one does; "tuned" tunes the context and margin scales on the cluster."""
    params = ({**FIXED, **FEATURES["all"], "context_scale": None, "margin_scale": None} if feature == "tuned"
              else {**FIXED, **NONE, **FEATURES[feature], "tol": 1e-12})
    log = league(draws=params.get("draws") is not None)
    ref = discrank.DynamicElo(**params).fit(log)
    got = ddk.fit(discrank.DynamicElo(**params), log, client, n_parts=3)
    assert got.converged_ and got.dask_calls_ > 10
    # the same steps from the same start, to the parts' summation order (seen 1e-15 apart; the tuned fits stop
    # at the default tolerance, 1e-9)
    atol = 1e-7 if feature == "tuned" else 1e-10
    for attr in ("pp_rating_", "context_effects_", "disc_u_", "disc_v_", "draw_propensity_"):
        if getattr(ref, attr) is None:
            assert getattr(got, attr) is None, attr
        else:
            np.testing.assert_allclose(getattr(got, attr), getattr(ref, attr), rtol=0, atol=atol, err_msg=attr)
    for attr in ("context_scale_", "margin_scale_", "disc_scale_", "draw_propensity_scale_"):
        assert getattr(got, attr) == getattr(ref, attr), attr


def test_dynamic_fit_from_a_dask_frame(client):
    log = _league(11)
    frame = pd.DataFrame({"a": log.a, "b": log.b, "score": log.score, "t": log.time, "home": log.advantage[:, 0]})
    ref = discrank.DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, tol=1e-12).fit(log)
    got = ddk.fit(discrank.DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, tol=1e-12),
                  dask_dataframe.from_pandas(frame, npartitions=3), client,
                  score="score", time="t", advantage="home")
    np.testing.assert_allclose(got.pp_rating_, ref.pp_rating_, rtol=0, atol=1e-10)
    with pytest.raises(TypeError, match="GameLog, PeriodGames .* or a dask DataFrame"):
        ddk.fit(discrank.DynamicElo(period=1.0), log.to_pairs(), client)


def test_dynamic_fit_on_the_cluster_reports_its_fit_and_newton_steps_with_verbose(client, capsys):
    log = _league(11)
    got = ddk.fit(discrank.DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, variance_scale=1.0, verbose=2), log,
                  client, n_parts=2)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"DynamicElo: fitting the whole history of {len(log):,} games at drift=0.2, prior_scale=1"
    assert sum(line.startswith("  iteration ") for line in lines) == got.n_iter_ >= 2
    assert lines[-1].startswith("DynamicElo: fitted in ")


def test_dynamic_fit_of_games_summed_by_period(client):
    log = _league(13, draws=True)
    summed = discrank.PeriodGames.from_log(log, 1.0)
    kw = dict(period=1.0, drift=0.2, prior_scale=1.0, draws="davidson", draw_propensity_scale=0.3, tol=1e-12)
    ref = discrank.DynamicElo(**kw).fit(log)
    got = ddk.fit(discrank.DynamicElo(**kw), summed, client, n_parts=2)
    assert got.dask_calls_ > 10
    np.testing.assert_allclose(got.pp_rating_, ref.pp_rating_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.beta_, ref.beta_, rtol=0, atol=1e-10)


def _die_in_product():  # run on the victim worker: its rows' next Hessian product kills the process
    import discrank.solvers._history_core as worker_history

    def product(self, *args):
        os.kill(os.getpid(), signal.SIGKILL)

    worker_history.CorePart.hessp = product


@pytest.mark.parametrize("margins", [False, True])
def test_dynamic_fit_survives_a_worker_dying_inside_a_call(client, margins):
    """Each part holds a share of the results' rows and of the margin rows: the part on the dying worker is rebuilt
    once, with or without margins."""
    log = league(draws=False) if margins else _league(12)
    params = {**FIXED, **NONE, **FEATURES["margins"]} if margins else dict(period=1.0, drift=0.2, prior_scale=1.0)
    quiet, lost = _fit_with_a_death(client, _die_in_product, lambda: ddk.fit(
        discrank.DynamicElo(**params), log, client, n_parts=2))
    # the rebuilt parts evaluated the last point again before the product was repeated: bit for bit
    assert lost.dask_parts_rebuilt_ == 1
    assert np.array_equal(lost.pp_rating_, quiet.pp_rating_)
    assert np.array_equal(lost.beta_, quiet.beta_)


def test_a_game_log_is_fitted_as_in_process(client):
    """dask.fit of a GameLog (and of its PeriodGames) runs the model's own pipeline: the prior tuned on the
    log's time order, every fit on the workers, the result the in-process fit's bit for bit."""
    from discrank import PeriodGames

    rng = np.random.default_rng(7)
    n = 3000
    a = rng.integers(0, 40, n)
    b = (a + 1 + rng.integers(0, 39, n)) % 40
    s = rng.normal(size=40)
    score = (rng.random(n) < 1 / (1 + np.exp(-(s[a] - s[b])))).astype(float)
    log = discrank.GameLog.from_arrays(a, b, score, time=np.arange(n, dtype=float))
    here = discrank.Elo().fit(log)
    there = ddk.fit(discrank.Elo(), log, client)
    assert there.dask_calls_ > 0 and there.prior_scale_ == here.prior_scale_
    np.testing.assert_array_equal(there.ratings_, here.ratings_)
    periods = PeriodGames.from_log(log, period=100.0)
    np.testing.assert_array_equal(ddk.fit(discrank.Elo(prior_scale=1.0), periods, client).ratings_,
                                  discrank.Elo(prior_scale=1.0).fit(periods).ratings_)


def test_a_closed_client_is_refused_by_its_status():
    """issue 33: a fit through a closed client said only "AttributeError: ... ncores"."""
    closed = distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0")
    closed.close()
    with pytest.raises(ValueError, match=r"the Dask client is not running \(status 'closed'\)"):
        ddk.fit(discrank.Elo(prior_scale=1.0), discrank.PairwiseData.from_games([0, 1], [1, 0], [1.0, 0.0]), closed)


def test_aggregate_refuses_labels_of_two_kinds_across_partitions_naming_them(client):
    """issue 33: int labels in one partition and str labels in another gave "'<' not supported"."""
    ints = pd.DataFrame({"a": [1, 2], "b": [2, 1], "score": [1.0, 0.0]})
    strs = pd.DataFrame({"a": ["x", "y"], "b": ["y", "x"], "score": [1.0, 0.5]})
    ddf = dask_dataframe.concat([dask_dataframe.from_pandas(ints, npartitions=1),
                                 dask_dataframe.from_pandas(strs, npartitions=1)])
    with pytest.raises(ValueError, match=r"the partitions' labels mixes label types: numbers \(first 1 .*strings "
                                         r"\(first 'x'"):
        ddk.aggregate(ddf, score="score")


# ------------------------------------------------------------------------------- updates (issue 35)
def _weeks(seed=20, n=30, weeks=16, games=3000):
    """Dated games of ``n`` players (labels 'p0'...) over ``weeks`` weeks from Monday 2024-01-01, a home column."""
    rng = np.random.default_rng(seed)
    strength = np.cumsum(rng.normal(0, 0.15, (n, weeks)), axis=1) + rng.normal(0, 1, (n, 1))
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    day = np.sort(rng.integers(0, 7 * weeks, games))
    home = rng.choice([-1.0, 0.0, 1.0], games)
    p = 1.0 / (1.0 + np.exp(-(strength[a, day // 7] - strength[b, day // 7] + 0.4 * home)))
    return pd.DataFrame({"a": [f"p{k}" for k in a], "b": [f"p{k}" for k in b],
                         "score": (rng.random(games) < p).astype(float),
                         "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(day, "D"), "home": home})


def test_a_cluster_fitted_dynamic_model_updates_week_by_week_from_scanned_files_as_a_fit_of_every_game(client,
                                                                                                      tmp_path):
    """dask.fit of the first weeks' files (scanned by week), then update with the next week's GameLog and the
    week after's scan: the predictions of a fit of every game, to the update tolerance (1e-5); the updates'
    refits ran in this process (no call on the cluster)."""
    frame, read = _weeks(), dict(score="score", time="t", advantage="home")
    week = frame.t.dt.isocalendar().week.to_numpy() - 1
    frame[week < 14].to_parquet(tmp_path / "weeks_0_13.parquet")
    for k in (14, 15):
        frame[week == k].to_parquet(tmp_path / f"week_{k}.parquet")
    kw = dict(period="week", drift=0.05, prior_scale=1.0, variance_scale=1.0)
    past = discrank.scan_games(tmp_path / "weeks_0_13.parquet", period="week", **read)
    model = ddk.fit(discrank.DynamicElo(**kw), past, client, n_parts=2)
    calls = model.dask_calls_
    model.update(discrank.GameLog.from_frame(pd.read_parquet(tmp_path / "week_14.parquet"), **read))
    model.update(discrank.scan_games(tmp_path / "week_15.parquet", period="week", **read))
    assert model.dask_calls_ == calls > 10
    every = discrank.GameLog.from_frame(frame, **read)
    ref = discrank.DynamicElo(**kw).fit(every)
    assert np.max(np.abs(model.predict_games(every) - ref.predict_games(every))) < 1e-5
    i, j = np.triu_indices(ref.labels_.size, 1)
    got, want = model.predict_proba(ref.labels_[i], ref.labels_[j]), ref.predict_proba(ref.labels_[i], ref.labels_[j])
    assert np.max(np.abs(got - want)) < 1e-5
    np.testing.assert_allclose(model.beta_, ref.beta_, rtol=0, atol=1e-5)


def test_an_update_with_a_dask_frame_is_refused_saying_how_to_read_its_games(client):
    log = _league(14)
    fitted = ddk.fit(discrank.DynamicElo(period=1.0, drift=0.2, prior_scale=1.0, variance_scale=1.0), log, client)
    frame = dask_dataframe.from_pandas(pd.DataFrame({"a": [1], "b": [2], "score": [1.0], "t": [30.0]}), npartitions=1)
    with pytest.raises(TypeError, match=r"DynamicElo.update expects a discrank.GameLog or discrank.PeriodGames, got "
                                        r"DataFrame: read the games into one \(GameLog.from_frame\(frame.compute\(\), "
                                        r"...\)\) or scan their files"):
        fitted.update(frame)
    assert len(fitted.games_) == len(log)


def test_a_tuning_budget_holds_on_the_cluster_as_in_process(client):
    log = _league(15)
    here = discrank.DynamicElo(period=1.0, tuning_budget=2).fit(log)
    there = ddk.fit(discrank.DynamicElo(period=1.0, tuning_budget=2), log, client, n_parts=2)
    assert there.tuning_["budget_reached"] is True and list(there.tuning_["scores"]) == list(here.tuning_["scores"])
    assert len(there.tuning_["scores"]) == 2
    assert (there.drift_, there.prior_scale_, there.variance_scale_) == (here.drift_, here.prior_scale_,
                                                                         here.variance_scale_)
