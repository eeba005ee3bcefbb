"""The tuning driver (discrank.solvers._tuning.Search) and the plan of a fit (discrank.solvers._fitdata.FitPlan): the walk,
the probe, the scan and the parabola written once, each fit told its plan as an argument; a tuned fit
leaves nothing on the model but its parameters and fitted state; the one-SE rule of the prior's choice, and
the defaults against a coin on a short weak log and on the ATP tennis log (issue 33)."""

import math
import warnings

import numpy as np
import pytest

from discrank import DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, GameLog, MElo
from discrank.solvers._fitdata import FitPlan
from discrank.solvers._tuning import TUNING_TOL, Search
from discrank.dynamic import DRIFT_GRID
from discrank.models.dynamic._tuning import walk_grid as _walk_grid


def traced(f):
    """A scoring function of ``f(x)`` that records each call's point and plan; its state is ``("fit", x)``."""
    calls = []

    def score(x, plan):
        calls.append((x, plan))
        return f(x), ("fit", x)

    return score, calls


def test_walk_extends_past_the_grid_edge_while_the_score_falls():
    # unbounded, the walk is no prisoner of a grid: from 0 it goes on to the minimum at 9, each point once
    score, calls = traced(lambda x: (x - 9.0) ** 2)
    search = Search(score, to_scale=lambda x: 2.0 ** x)
    assert search.walk(0.0) == 9.0
    assert [x for x, _ in calls] == [float(k) for k in range(11)]
    assert [plan.scale for _, plan in calls] == [2.0 ** k for k in range(11)]


def test_walk_stops_inside_its_bounds():
    score, calls = traced(lambda x: (x - 9.0) ** 2)
    search = Search(score, bounds=(-7.0, 6.0))
    assert search.walk(-1.0) == 5.0
    assert max(x for x, _ in calls) == 5.0  # 6 is the bound: never fitted


def test_walk_goes_down_when_the_first_step_up_does_not_lower_the_score():
    score, calls = traced(lambda x: (x + 3.0) ** 2)
    search = Search(score, step=0.5)
    assert search.walk(0.0) == -3.0
    assert [x for x, _ in calls] == [0.0, 0.5] + [-0.5 * k for k in range(1, 8)]
    assert list(search.fits) == [x for x, _ in calls]  # each point fitted once, in order


@pytest.mark.parametrize("best", range(len(DRIFT_GRID)))
def test_a_walk_on_a_grid_of_values_ends_where_the_dynamic_models_grid_walk_does(best):
    # DynamicElo's drift and prior walks: an index axis, the bounds just outside the grid
    loss = [abs(k - best) + 0.1 * k for k in range(len(DRIFT_GRID))]
    start = DRIFT_GRID.index(1.0)
    score, calls = traced(lambda i: loss[int(i)])
    search = Search(score, bounds=(-1, len(DRIFT_GRID)), to_scale=lambda i: DRIFT_GRID[int(i)])
    assert search.walk(start) == _walk_grid(len(DRIFT_GRID), start, lambda i: loss[i]) == best
    assert {plan.scale for _, plan in calls} <= set(DRIFT_GRID)


@pytest.mark.parametrize("fall, cap, end, last", [
    (3.0, 32.0, 32.0, 64.0),     # past the edge (8) while a doubling gains 3 times the gain asked; flat from 32
    (0.5, 1e9, 8.0, 16.0),       # a doubling past the edge gains half of it: the walk stays at 8
    (2.0, 1e9, 128.0, 128.0),    # still gaining at the hard bound (PRIOR_BOUNDS): it ends there
])
def test_a_dynamic_walk_goes_past_its_grid_edge_while_each_step_gains_more_than_asked(fall, cap, end, last):
    # DynamicElo's prior walk from the grid's middle (2) on a loss falling by `fall` times the gain asked a
    # doubling, up to `cap`: inside the grid any fall is a step, past its edge only one of more than `gain`
    from discrank.models.dynamic._tuning import PRIOR_BOUNDS, PRIOR_GRID, _Axis, _axis_walk

    gain = 1e-3
    scored = {}  # each value's loss, kept as the tuning keeps its candidates' scores

    def loss(p):
        return scored.setdefault(p, -fall * gain * math.log2(min(p, cap)))

    axis = _Axis(PRIOR_GRID, PRIOR_BOUNDS)
    assert axis.bounds == PRIOR_BOUNDS == (1 / 32, 128.0)
    assert _axis_walk(axis, PRIOR_GRID.index(2.0), loss, gain) == end
    assert sorted(scored) == [2.0 ** k for k in range(1, int(math.log2(last)) + 1)]  # up from 2, one past the end
    assert (axis.side(end) == "upper") == (end == 128.0)


def test_the_variance_scan_goes_below_its_grid_while_a_halving_gains_more_than_asked():
    # a loss linear in the variance scale, 0.01 c: halving c from c gains 0.005 c, more than the gain asked
    # (1e-5) down to c = 2^-9; the step to 2^-10 gains 9.8e-6 and is refused
    from discrank.models.dynamic._candidates import scan_axis
    from discrank.models.dynamic._tuning import VARIANCE_BOUNDS, VARIANCE_GRID, _Axis

    best, losses = scan_axis(_Axis(VARIANCE_GRID, VARIANCE_BOUNDS), lambda c: 0.01 * c, 1e-5)
    assert best == 2.0 ** -9
    assert sorted(losses) == [2.0 ** -k for k in range(10, 1, -1)] + list(VARIANCE_GRID)
    # above the grid, by its ratio there (8 / 6), while the loss falls by more than the gain asked a step
    best, losses = scan_axis(_Axis(VARIANCE_GRID, VARIANCE_BOUNDS), lambda c: -0.01 * min(c, 10.0), 1e-5)
    assert best == pytest.approx(8.0 * 4 / 3) and max(losses) == pytest.approx(8.0 * (4 / 3) ** 2)


def test_each_fit_starts_from_the_closest_point_scored_and_carries_the_search_plan():
    score, calls = traced(lambda x: (x - 2.0) ** 2)
    search = Search(score, FitPlan(tol=1e-4), warm=lambda state, near, x: (state, near, x))
    search.walk(0.0)
    points = [x for x, _ in calls]
    assert points == [0.0, 1.0, 2.0, 3.0]
    assert calls[0][1].warm_start is None  # nothing scored yet: a cold start
    for k, (x, plan) in enumerate(calls[1:], 1):
        near = min(points[:k], key=lambda y: abs(y - x))
        assert plan.warm_start == (("fit", near), near, x)
        assert plan.tol == 1e-4 and plan.tuning and plan.scale == x


def test_without_warm_every_fit_starts_cold():
    score, calls = traced(lambda x: (x - 2.0) ** 2)
    Search(score).walk(0.0)
    assert [plan.warm_start for _, plan in calls] == [None] * 4
    assert not any(plan.tuning for _, plan in calls)


def test_the_probe_finds_a_second_basin_and_its_fit_starts_the_exact_one():
    # two basins: -1 (score 1), 3 (score 0); the walk from -1 stays in the first, the probe at 2 sees the second
    score, calls = traced(lambda x: min((x + 1.0) ** 2 + 1.0, 0.25 * (x - 3.0) ** 2))
    search = Search(score, FitPlan(tol=1e-4), warm=lambda state, near, x: state)
    assert search.walk(-1.0) == -1.0
    assert search.probe_basin(-1.0, 2.0, 1e-2) == 3.0
    probe, exact = [plan for x, plan in calls if x == 2.0]
    assert probe.tol == 1e-2  # the probe's looser fit
    assert exact.tol == 1e-4 and exact.warm_start == ("fit", 2.0)  # the exact fit from the probe's
    assert search.probes == {2.0: (0.25, ("fit", 2.0))}
    assert list(search.fits) == [-1.0, 0.0, -2.0, 2.0, 3.0, 4.0]


def test_no_probe_when_the_walk_reached_the_probe_point_or_the_probe_scores_worse():
    score, calls = traced(lambda x: (x - 2.0) ** 2)
    search = Search(score)
    best = search.walk(0.0)
    assert search.probe_basin(best, 2.0, 1e-2) == 2.0 and not search.probes
    score, calls = traced(lambda x: (x + 1.0) ** 2)
    search = Search(score)
    assert search.probe_basin(search.walk(-1.0), 2.0, 1e-2) == -1.0
    assert list(search.probes) == [2.0] and 2.0 not in search.fits


def test_vertex_is_that_of_the_parabola_through_the_best_point_and_its_neighbours():
    score, _ = traced(lambda x: (x - 0.3) ** 2)
    search = Search(score)
    best = search.walk(0.0)
    assert best == 0.0
    assert search.vertex(best) == pytest.approx(0.3, abs=1e-12)
    assert search.nearest(0.3) == ("fit", 0.0)
    # a neighbour not scored (the bound): the best point itself
    score, _ = traced(lambda x: (x - 9.0) ** 2)
    search = Search(score, bounds=(-7.0, 6.0))
    assert search.vertex(search.walk(-1.0)) == 5.0


def test_the_one_se_rule_steps_down_while_within_one_standard_error_and_interpolates_the_crossing():
    # 400 held-out pairs whose paired differences to the best point (0) sum to rise[x], with a standard
    # error of 0.01 |x| (times sqrt(400 / 399)): -1 lies within one standard error of the best, -2 beyond
    from discrank.solvers._tuning import _paired, _within_one_se

    e = np.tile([1.0, -1.0], 200)
    rise = {1.0: 0.02, 0.0: 0.0, -1.0: 0.001, -2.0: 0.03, -3.0: 0.05}  # the sum of d at each point
    shares = {x: r / 400 + 0.01 * abs(x) * e / np.sqrt(400) for x, r in rise.items()}
    score, calls = traced(lambda x: rise[x])
    search = Search(score, bounds=(-2.5, 6.0))
    search.value(0.0)
    diff, se = _paired(shares[-1.0], shares[0.0])
    assert diff == pytest.approx(0.001) and se == pytest.approx(0.01 * np.sqrt(400 / 399), rel=1e-12)
    diff2, se2 = _paired(shares[-2.0], shares[0.0])
    assert diff2 == pytest.approx(0.03) and diff2 > se2 and diff < se
    # -1 within, -2 beyond: the crossing of diff2 t^2 / 4 and se2 t / 2 is t = 2 se2 / diff2, kept in [1, 2]
    assert _within_one_se(search, shares, 0.0) == pytest.approx(-max(min(2.0 * se2 / diff2, 2.0), 1.0), abs=1e-12)
    assert [x for x, _ in calls] == [0.0, -1.0, -2.0]  # the points below the best fitted on demand, once
    # at the search's lower bound the last point within is the answer
    search = Search(score, bounds=(-1.5, 6.0))
    search.value(0.0)
    assert _within_one_se(search, shares, 0.0) == -1.0
    # the first step down already beyond: the crossing lies between it and the best, at t = se / diff
    far = {x: v + (0.0 if x == 0.0 else 0.05 / 400) for x, v in shares.items()}
    search = Search(traced(lambda x: float(far[x].sum()))[0], bounds=(-7.0, 6.0))
    search.value(0.0)
    diff, se = _paired(far[-1.0], far[0.0])
    assert diff == pytest.approx(0.051) and _within_one_se(search, far, 0.0) == pytest.approx(-se / diff, abs=1e-12)
    # from the vertex of the parabola through the best point and its neighbours, at its floor
    search.value(1.0)
    vertex, floor = search.vertex(0.0), search.floor(0.0)
    fa, fm, fb = (float(far[x].sum()) for x in (-1.0, 0.0, 1.0))
    assert vertex == pytest.approx(0.5 * (fa - fb) / (fa + fb - 2 * fm))
    assert floor == pytest.approx(fm - (fa - fb) ** 2 / (8 * (fa + fb - 2 * fm)))
    t = (vertex + 1.0) * se / (fa - floor)
    assert _within_one_se(search, far, 0.0) == pytest.approx(vertex - t, abs=1e-12)


def test_scan_scores_every_point_in_order_and_returns_the_first_lowest():
    # OnlineElo's step grid and DiscDecompositionCV's candidates: every point, no walk
    values = {0.5: 3.0, 1.0: 1.0, 2.0: 2.0, 4.0: 1.0}
    score, calls = traced(values.get)
    search = Search(score)
    assert search.scan(values) == 1.0
    assert [x for x, _ in calls] == list(values)
    assert [v for v, _ in search.fits.values()] == list(values.values())


# ---------------------------------------------------------------------------------- the models' plans
def _log(n_players=30, n_games=3000, seed=5):
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 1.0, n_players)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    home = (np.arange(n_games) % 2).astype(float)
    p = 1.0 / (1.0 + np.exp(-(skill[a] - skill[b] + 0.4 * home)))
    u = rng.random(n_games)
    y = np.where(u < 0.85 * p, 1.0, np.where(u < 0.85 * p + 0.15, 0.5, 0.0))
    return GameLog.from_arrays(a, b, y, np.arange(n_games), advantage={"home": home})


TUNED = {
    "Elo": lambda **kw: Elo(**kw),
    "EloPlusPlus": lambda **kw: EloPlusPlus(**kw),
    "Elo(draws)": lambda **kw: Elo(draws="davidson", **kw),
    "DiscDecomposition": lambda **kw: DiscDecomposition(1, random_state=0, **kw),
    "MElo": lambda **kw: MElo(1, random_state=0, **kw),
    "DiscDecompositionCV": lambda **kw: DiscDecompositionCV(regularizations=(0.0, 1.0), cv=2, random_state=0, **kw),
}


def _fit(model, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(data)


@pytest.mark.parametrize("name", TUNED)
def test_a_tuned_fit_leaves_only_parameters_and_fitted_attributes(name):
    data = _log()
    model = _fit(TUNED[name](), data)
    assert model.prior_tuning_ is not None
    constructed = set(vars(TUNED[name]()))  # the parameters, as the constructor stores them
    declared = {spec.name for spec in type(model)._fitted_arrays}  # a model file's arrays (MElo's _base)
    state = {"_n_threads", "_label_index"}  # the base's: the core's thread count, the label lookup
    if isinstance(model, DiscDecomposition):
        state.add("_base")  # the disc family's fixed per-player scores (m-Elo's transitive part; None here)
    extra = {k for k in vars(model) if k not in constructed and not k.endswith("_")}
    assert extra <= declared | state, f"{name} keeps {sorted(extra - declared - state)}"
    # no trace of the tuning: the same attributes as a fit at the scale it chose
    given = _fit(TUNED[name](prior_scale=model.prior_scale_), data)
    assert set(vars(model)) == set(vars(given))


class _TracedElo(Elo):
    """Elo that records the plan of each of its fits (the tuning's clones are of this class too)."""

    plans: list = []

    def _fit(self, data, plan):
        _TracedElo.plans.append(plan)
        return super()._fit(data, plan)


def test_the_tuning_gives_each_fit_its_plan_warm_from_a_smaller_scale_and_the_final_fit_starts_cold():
    _TracedElo.plans = []
    model = _fit(_TracedElo(), _log())
    *tuning, final = _TracedElo.plans
    record = model.prior_tuning_
    assert [plan.scale for plan in tuning] == record["scales"]
    assert all(plan.tol == TUNING_TOL for plan in tuning)
    # each fit starts from the closest scale scored before it where that scale is smaller, else cold
    scales = record["scales"]
    for k, plan in enumerate(tuning):
        near = min(scales[:k], key=lambda s: abs(np.log2(s) - np.log2(scales[k])), default=None)
        assert (plan.warm_start is not None) == (near is not None and near < scales[k])
    assert final == FitPlan(scale=model.prior_scale_) and not final.tuning
    assert record["chosen"] == model.prior_scale_


def test_a_disc_models_final_fit_starts_from_the_closest_tuning_fit():
    plans = []

    class _Traced(DiscDecomposition):  # (a private name: not registered with persist)
        def _fit(self, data, plan):
            plans.append(plan)
            return super()._fit(data, plan)

    model = _fit(_Traced(1, random_state=0), _log())
    final = plans[-1]
    assert not final.tuning and final.scale == model.prior_scale_
    labels, U, V = final.warm_start
    assert U.shape == V.shape == (labels.shape[0], 1)


@pytest.mark.parametrize("name", ["Elo", "DiscDecomposition", "DiscDecompositionCV"])
def test_the_fit_data_builder_is_an_argument_used_for_every_fit(name):
    # discrank.dask.fit's hook: the pipeline builds each fit's data (the tuning's, the folds', the final) with
    # the builder it is given, for the model that fits it, and the fit equals the plain one
    data = _log().to_pairs()
    built = []

    def builder(owner, pairs, stacklevel=2):
        built.append((type(owner).__name__, pairs.n_games.sum()))
        return owner._build_fit_data(pairs, stacklevel + 1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = TUNED[name]()._fit_pairs(data, fit_data_builder=builder)
        ref = TUNED[name]().fit(data)
    fitted = "DiscDecomposition" if name == "DiscDecompositionCV" else name
    folds = 2 * 2 if name == "DiscDecompositionCV" else 0  # cv=2 folds x 2 candidates
    assert [owner for owner, _ in built] == [fitted] * (2 + folds)
    assert built[0][1] < data.n_games.sum() and built[-1][1] == data.n_games.sum()  # the tuning's split first, all last
    assert got.prior_tuning_ == ref.prior_tuning_
    for attr in ("ratings_", "u_", "v_"):
        if hasattr(ref, attr):
            assert np.array_equal(getattr(got, attr), getattr(ref, attr))
    assert "_build_fit_data" not in vars(got)


@pytest.mark.parametrize("name", ["Elo", "DiscDecompositionCV"])
def test_a_validation_that_is_not_a_validation_is_refused_by_type(name):
    model = TUNED[name]()
    with pytest.raises(TypeError, match="validation must be a discrank.Validation, got str"):
        model.fit(_log(), validation="latest 10%")
    assert not hasattr(model, "labels_")


# ------------------------------------------------------------------------------- the default against a coin
def _weak_league(seed, n_players=100, n_games=800, scale=0.3):
    """A short log of a weak league (N(0, scale^2) true ratings, 8 games a player, in time order) and 20 000
    later games between the same players: (log, a, b, score of the later games)."""
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, scale, n_players)

    def games(n):
        a = rng.integers(0, n_players, n)
        b = (a + rng.integers(1, n_players, n)) % n_players
        return a, b, (rng.random(n) < expit(skill[a] - skill[b])).astype(float)

    a, b, y = games(n_games)
    return (GameLog.from_arrays(a, b, y, np.arange(n_games)), *games(20_000))


@pytest.mark.parametrize("seed, pairs", [(2, False), (6, True)])
def test_the_default_prior_of_a_short_weak_log_predicts_later_games_better_than_a_coin(seed, pairs):
    # the walk to the lowest validation score took a noisy dip at a weak prior (0.64 here), which predicts
    # the later games worse than a coin; the one-SE rule keeps the strongest prior the validation cannot
    # tell from it
    from discrank._util.losses import binary_log_loss

    from discrank import PairwiseData

    log, a, b, y = _weak_league(seed)
    data = PairwiseData.from_games(log.a, log.b, log.score) if pairs else log  # pairs without times
    model = Elo().fit(data)
    record = model.prior_tuning_
    assert record["rule"] == ("held-out pairs" if pairs else "time order")
    seen = np.isin(a, model.labels_) & np.isin(b, model.labels_)
    loss = binary_log_loss(model.predict_proba(a[seen], b[seen]), y[seen]).mean()
    at_best = binary_log_loss(Elo(prior_scale=record["best"]).fit(data).predict_proba(a[seen], b[seen]), y[seen]).mean()
    assert record["best"] > 0.6 and model.prior_scale_ < record["best"] / 2
    assert at_best > np.log(2.0) > loss + 0.001  # the validation's best loses to a coin; the default beats it


ATP_FILE = "tennis_atp/atp_matches_singles_all_levels.csv.xz"


@pytest.fixture(scope="module")
def bench_datasets():
    """bench/datasets.py, reading the tests' data folder (tests/_data.py)."""
    import importlib.util
    from pathlib import Path

    from _data import DATA

    spec = importlib.util.spec_from_file_location("_bench_datasets_defaults",
                                                  Path(__file__).resolve().parents[1] / "bench" / "datasets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.DATA = DATA
    return module


def _tennis_default(datasets, train_start, pairs):
    """Elo with its defaults fitted on the ATP log's games from ``train_start`` to 2019-12-31 (as pairs or as
    the log), and its log loss per game on 2020-2022 (the games whose two players it has seen) and at the
    validation's best scale (the choice before the one-SE rule)."""
    from discrank._util.losses import binary_log_loss

    train, test, _ = datasets._split(datasets.tennis_atp_log(), train_start, "2019-12-31", "2020-01-01", "2022-12-31")
    from discrank.exceptions import DisconnectedGraphWarning

    data = train.to_pairs() if pairs else train
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisconnectedGraphWarning)  # 1968-2019 holds a few isolated groups
        model = Elo().fit(data)
        at_best = Elo(prior_scale=model.prior_tuning_["best"]).fit(data)
    return (binary_log_loss(m.predict_games(test), test.score).mean() for m in (model, at_best))


@pytest.mark.data(ATP_FILE)
def test_elo_defaults_on_the_last_18_months_of_tennis_predict_the_next_three_years_better_than_a_coin(bench_datasets):
    # issue 33: the latest tenth of 18 months validates a prior too weak for the next three years (1.69:
    # 0.6947, worse than a coin); the one-SE rule keeps a stronger one (bench/bench_defaults.py)
    loss, at_best = _tennis_default(bench_datasets, "2018-07-01", pairs=False)
    assert at_best > math.log(2.0) > loss + 0.005


@pytest.mark.data(ATP_FILE)
def test_elo_defaults_on_the_pairs_of_1968_2019_tennis_predict_the_next_three_years_better_than_a_coin(bench_datasets):
    # issue 33: held-out random pairs of 1968-2019 tuned a prior for ratings that do not drift (0.72 a game);
    # the pairs of a log keep its time order (PairwiseData.games_log), which tunes the prior on its latest games
    loss, _ = _tennis_default(bench_datasets, "1968-01-01", pairs=True)
    assert loss < math.log(2.0)


def test_the_pairs_of_a_dated_log_tune_the_prior_on_its_latest_games_as_the_log_does():
    from discrank import GameLog, PairwiseData

    rng = np.random.default_rng(4)
    a = rng.integers(0, 20, 3000)
    b = (a + rng.integers(1, 20, 3000)) % 20
    strength = np.linspace(-1.0, 1.0, 20)
    log = GameLog.from_arrays(a, b, (rng.random(3000) < 1 / (1 + np.exp(strength[b] - strength[a]))) * 1.0,
                              np.arange(3000))
    pairs = log.to_pairs()
    assert pairs.games_log is log
    by_log, by_pairs = Elo().fit(log), Elo().fit(pairs)
    assert by_pairs.prior_tuning_["rule"] == by_log.prior_tuning_["rule"] and "time order" in by_log.prior_tuning_["rule"]
    assert by_pairs.prior_scale_ == by_log.prior_scale_
    np.testing.assert_array_equal(by_pairs.ratings_, by_log.ratings_)
    # pairs that are not every game of a dated log have no time order: random held-out pairs tune the prior
    for other in (PairwiseData.from_games(log.a, log.b, log.score), log.to_pairs(min_games=2),
                  GameLog.from_arrays(log.a, log.b, log.score).to_pairs()):
        assert other.games_log is None
        assert "time order" not in Elo().fit(other).prior_tuning_["rule"]


def test_a_payoff_table_takes_the_lowest_validation_score_and_game_results_the_one_se_point():
    # a table of expected payoffs (no game counts) is neither noisy games nor games to come: the vertex of
    # the lowest score; the same table as game results (counts) steps down to the one-SE point
    from discrank import PairwiseData
    from discrank.data.games import elo_game

    P = elo_game(np.random.default_rng(0).normal(0.0, 1.0, 30))
    table = PairwiseData.from_matrix(P)
    games = PairwiseData.from_pairs(table.i, table.j, table.p, n_games=np.full(table.n_pairs, 3.0))
    tuned = {name: Elo().fit(data).prior_tuning_ for name, data in (("table", table), ("games", games))}
    assert tuned["table"]["chosen"] == tuned["table"]["best"]
    assert tuned["games"]["chosen"] < tuned["games"]["best"]


def _reversed_latest_tenth(seed=0):
    """3000 games of 20 players in time order, the stronger side favoured, but in the latest tenth (the
    validation's) the weaker side always wins."""
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    skill = np.linspace(-1.5, 1.5, 20)
    a = rng.integers(0, 20, 3000)
    b = (a + rng.integers(1, 20, 3000)) % 20
    y = (rng.random(3000) < expit(skill[a] - skill[b])).astype(float)
    y[2700:] = (skill[a[2700:]] < skill[b[2700:]]).astype(float)
    return GameLog.from_arrays(a, b, y, np.arange(3000)), a, b


@pytest.mark.parametrize("name", ["Elo", "EloPlusPlus", "MElo", "DiscDecomposition", "DiscDecompositionCV"])
def test_a_default_that_predicts_its_validation_worse_than_a_coin_warns_naming_the_model_scale_and_losses(name):
    from discrank.exceptions import CoinWarning

    make = {"Elo": Elo, "EloPlusPlus": EloPlusPlus, "MElo": lambda: MElo(1, random_state=0),
            "DiscDecomposition": lambda: DiscDecomposition(1, random_state=0),
            "DiscDecompositionCV": lambda: DiscDecompositionCV(regularizations=(0.0, 10.0), cv=2, random_state=0)}
    log, _, _ = _reversed_latest_tenth()
    with pytest.warns(CoinWarning) as caught:
        model = make[name]().fit(log)
    assert model.prior_scale_ == 2.0 ** -6  # every weaker prior predicts the reversed games worse still
    message = str(caught[0].message)
    tuned = "DiscDecomposition" if name == "DiscDecompositionCV" else name  # the CV tunes its first candidate
    assert message.startswith(f"{tuned}(prior_scale=None): the prior scale chosen, 0.0156 (time order), predicts")
    loss = float(message.split("validation games at ")[1].split()[0])
    assert loss > 0.6931 and "worse than a coin (0.6931)" in message
    assert caught[0].filename == __file__  # it points at the fit


def test_a_log_of_coin_flips_is_predicted_at_a_coin_without_a_warning():
    from discrank.exceptions import CoinWarning

    _, a, b = _reversed_latest_tenth()
    y = (np.random.default_rng(1).random(3000) < 0.5).astype(float)
    log = GameLog.from_arrays(a, b, y, np.arange(3000))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CoinWarning)
        for data in (log, log.to_pairs()):
            model = Elo().fit(data)
            assert model.prior_scale_ <= 2.0 ** -4  # the strongest priors, which the validation cannot tell apart
            np.testing.assert_allclose(model.predict_proba(a, b), 0.5, atol=0.01)
