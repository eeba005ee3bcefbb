"""bootstrap on every data a model fits: GameLog (times, advantage columns), PeriodGames, PairwiseData and the
three-array form; the table on ratings_frame's scale, integer rank bounds, beta intervals, and the errors."""

import numpy as np
import pandas as pd
import pytest

from discrank import DiscDecomposition, DynamicElo, Elo, GameLog, MElo, PairwiseData, PeriodGames, bootstrap
from discrank.online import OnlineElo
from discrank.evaluation._bootstrap import BootstrapResult, _sampler

BETA = 0.35  # the simulated home advantage, logits
#: 20000 games, a third of them neutral: beta's standard error is about 0.02, its 95% interval about 0.08 wide
BETA_WIDTH = (0.03, 0.15)
#: the replicates' standard deviation of beta within 40% of the fit's Laplace standard error (30 replicates)
SE_AGREEMENT = 0.4
#: the mean of a mean-centred elo column is 1500 up to rounding
CENTRE_ATOL = 1e-9
#: DynamicElo fitted on PeriodGames and on their log stop at tol 1e-9 from different starts' rounding
SAME_FIT_ATOL = 1e-6


def league_log(n_players=8, n_games=3000, seed=0, beta=BETA, draws=False):
    """Games between random players with a home indicator (1, 0 or -1 for ``a``), in time order 0, 1, ..."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(1.0, -1.0, n_players)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    home = rng.choice([-1.0, 0.0, 1.0], n_games)
    p = 1.0 / (1.0 + np.exp(-(skill[a] - skill[b] + beta * home)))
    u = rng.random(n_games)
    score = (u < p).astype(float)
    if draws:
        score[np.abs(u - p) < 0.1] = 0.5
    names = np.array([f"p{k}" for k in range(n_players)])
    return GameLog.from_arrays(names[a], names[b], score, time=np.arange(n_games), advantage={"home": home})


def dynamic():
    return DynamicElo(period=500.0, drift=0.1, prior_scale=2.0)


# ------------------------------------------------------------------------------------ reproducible
def test_the_same_seed_gives_the_same_table_with_one_or_two_workers():
    log = league_log()
    one = bootstrap(Elo(prior_scale=2.0, tol=1e-6), log, n_boot=6, seed=4, n_jobs=1)
    two = bootstrap(Elo(prior_scale=2.0, tol=1e-6), log, n_boot=6, seed=4, n_jobs=2)
    pd.testing.assert_frame_equal(one.frame(), two.frame(), check_exact=True)
    pd.testing.assert_frame_equal(one.beta_frame(), two.beta_frame(), check_exact=True)
    other = bootstrap(Elo(prior_scale=2.0, tol=1e-6), log, n_boot=6, seed=5, n_jobs=1)
    assert not np.array_equal(other.scores, one.scores)  # the seed matters


def test_dynamic_elo_replicates_are_the_same_with_one_or_two_workers():
    games = PeriodGames.from_log(league_log(n_games=1500), 500.0)
    one = bootstrap(dynamic(), games, n_boot=4, seed=2)
    two = bootstrap(dynamic(), games, n_boot=4, seed=2, n_jobs=2)
    np.testing.assert_array_equal(one.scores, two.scores)
    np.testing.assert_array_equal(one.beta_scores, two.beta_scores)


# ------------------------------------------------------------------------------------ what it estimates
def test_beta_intervals_contain_the_true_simulated_beta_on_a_large_log():
    log = league_log(n_players=20, n_games=20000, seed=1)
    res = bootstrap(Elo(prior_scale=2.0, tol=1e-6), log, n_boot=30, seed=0)
    table = res.beta_frame()
    assert table["name"].tolist() == ["home"]
    lo, hi = table["lo"][0], table["hi"][0]
    assert lo < BETA < hi
    assert BETA_WIDTH[0] < hi - lo < BETA_WIDTH[1]
    assert abs(table["se"][0] - res.model.beta_se_[0]) < SE_AGREEMENT * res.model.beta_se_[0]


@pytest.mark.parametrize("make,column", [(lambda: Elo(prior_scale=2.0, tol=1e-6), "elo"),
                                         (lambda: MElo(1, prior_scale=2.0, random_state=0), "rating"),
                                         (lambda: DiscDecomposition(1, prior_scale=2.0, random_state=0), "elo")],
                         ids=["Elo", "MElo", "DiscDecomposition"])
def test_the_tables_point_column_is_the_fitted_models_ratings_frame_column(make, column):
    pairs = league_log(n_games=2000).to_pairs()
    pairs.covariates = None  # m-Elo takes no covariate: the plain pairs
    res = bootstrap(make(), pairs, n_boot=3, seed=0)
    frame, own = res.frame(), make().fit(pairs).ratings_frame()
    assert res.column == column and frame.attrs["column"] == column
    assert frame["player"].tolist() == own["player"].tolist()
    assert frame["rank"].tolist() == own["rank"].tolist()
    np.testing.assert_array_equal(frame[column].to_numpy(), own[column].to_numpy())


def test_the_table_is_in_elo_points_and_the_anchor_is_ratings_frames():
    log = league_log(n_games=2000)
    res = bootstrap(Elo(prior_scale=2.0, tol=1e-6), log, n_boot=4, seed=0, anchor="p3")
    own = Elo(prior_scale=2.0, tol=1e-6).fit(log).ratings_frame(anchor="p3")
    np.testing.assert_array_equal(res.frame()["elo"].to_numpy(), own["elo"].to_numpy())
    assert np.all(res.scores[:, 3] == 1500.0)
    # each replicate's mean-centred table: the mean over its players is 1500 Elo points
    free = bootstrap(Elo(prior_scale=2.0, tol=1e-6), log, n_boot=4, seed=0)
    np.testing.assert_allclose(np.nanmean(free.scores, axis=1), 1500.0, rtol=0, atol=CENTRE_ATOL)


def test_rank_bounds_are_ints_around_the_point_rank():
    res = bootstrap(Elo(prior_scale=2.0, tol=1e-6), league_log(n_games=1500), n_boot=10, seed=3)
    frame = res.frame()
    for name in ("rank", "rank_lo", "rank_hi"):
        assert frame[name].dtype == np.int64
    assert (frame["rank_lo"] <= frame["rank"]).all() and (frame["rank"] <= frame["rank_hi"]).all()
    assert frame["rank_lo"].iloc[0] == 1 and frame["rank_hi"].iloc[-1] == len(frame)


def _result(lo, hi, point):
    """A result whose percentile intervals at ci=0.5 (the 25th and 75th of two replicates) are [lo, hi]."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    scores = np.vstack([lo - 0.5 * (hi - lo), hi + 0.5 * (hi - lo)])
    return BootstrapResult(np.array(list("abcd"[:lo.size])), np.asarray(point, float), scores, 0.5, "elo")


def test_rank_bounds_follow_fastchats_rule():
    res = _result([10, 9, 5, 5.5], [12, 11, 6, 8], [11, 10, 5.5, 7])
    np.testing.assert_array_equal(res.intervals()[0], [10, 9, 5, 5.5])
    rank_lo, rank_hi = res.rank_intervals()
    # a: nobody surely above, c and d surely below -> 1..2; c: a and b surely above -> 3..4
    assert rank_lo.tolist() == [1, 1, 3, 3] and rank_hi.tolist() == [2, 2, 4, 4]
    assert res.frame()["player"].tolist() == ["a", "b", "d", "c"]


def test_rank_bounds_hold_the_point_rank_when_a_point_lies_outside_its_interval():
    res = _result([10, 13], [12, 14], [11, 9])  # b's point below its interval: ranked 2nd, though surely above a
    rank_lo, rank_hi = res.rank_intervals()
    assert rank_lo.tolist() == [1, 1] and rank_hi.tolist() == [2, 2]


def test_a_player_missing_from_a_replicate_has_no_score_there():
    log = league_log(n_games=600, seed=2)
    rare = GameLog.from_arrays(np.append(log.a, "rare"), np.append(log.b, "p0"), np.append(log.score, 0.0),
                               time=np.arange(601), advantage={"home": np.append(log.advantage[:, 0], 1.0)})
    res = bootstrap(Elo(prior_scale=2.0, tol=1e-6), rare, n_boot=12, seed=7)
    k = res.labels.tolist().index("rare")
    drawn = np.array([np.random.default_rng([7, r]).multinomial(601, np.full(601, 1 / 601))[-1] > 0
                      for r in range(12)])
    assert 0 < drawn.sum() < 12
    np.testing.assert_array_equal(~np.isnan(res.scores[:, k]), drawn)
    assert not np.isnan(np.delete(res.scores, k, axis=1)).any()
    assert res.frame().set_index("player").loc["rare", "replicates"] == drawn.sum()


# ------------------------------------------------------------------------------------ every data
@pytest.mark.parametrize("kind", ["log", "periods", "pairs"])
def test_each_replicate_draws_as_many_games_as_the_data_holds(kind):
    log = league_log(n_games=900, draws=True)
    data = {"log": log, "periods": PeriodGames.from_log(log, 300.0), "pairs": log.to_pairs()}[kind]
    _, labels, draw = _sampler(data, None)
    assert labels.tolist() == [f"p{k}" for k in range(8)]
    for r in range(3):
        sample = draw(np.random.default_rng([0, r]))
        games = {"log": lambda s: len(s), "periods": lambda s: s.n_games, "pairs": lambda s: s.n_games.sum()}[kind]
        assert games(sample) == 900
        if kind == "periods":  # whole results: the draws drawn are draws of the data
            assert sample.results and sample.draws.sum() > 0 and np.all(sample.score * 2 == np.round(sample.score * 2))


def test_dynamic_elo_on_period_games_gives_each_players_current_rating():
    log = league_log(n_games=1500)
    games = PeriodGames.from_log(log, 500.0)
    res = bootstrap(dynamic(), games, n_boot=4, seed=0)
    model = dynamic().fit(games)
    if hasattr(model, "ratings_frame"):
        expected = model.ratings_frame().set_index("player")[res.column]
    else:
        expected = model.history().drop_duplicates("player", keep="last").set_index("player")["rating"]
    np.testing.assert_array_equal(res.point, expected.loc[res.labels].to_numpy())
    assert res.beta_names == ("home",) and res.beta_scores.shape == (4, 1)
    assert not np.isnan(res.scores).any() and not np.isnan(res.beta_scores).any()
    on_log = bootstrap(dynamic(), log, n_boot=2, seed=0)
    np.testing.assert_allclose(on_log.point, res.point, rtol=0, atol=SAME_FIT_ATOL)  # the same fit either way


def test_online_elo_is_bootstrapped_on_its_final_ratings():
    full = league_log(n_games=800)
    log = GameLog.from_arrays(full.a, full.b, full.score, time=full.time)  # OnlineElo takes no advantage columns
    res = bootstrap(OnlineElo(step=0.05), log, n_boot=3, seed=0)
    model = OnlineElo(step=0.05).fit(log)
    table = model.ratings_frame().set_index("player")  # its table's elo, the scale of ratings_frame
    np.testing.assert_allclose(res.point, table.loc[model.labels_, "elo"], rtol=1e-12, atol=1e-9)
    assert res.column == "elo" and res.frame()["rank_lo"].dtype == np.int64


def test_the_three_array_form_is_the_log_without_times():
    log = league_log(n_games=500)
    old = bootstrap(Elo(prior_scale=1.0), log.a, log.b, log.score, n_boot=4, seed=1)
    new = bootstrap(Elo(prior_scale=1.0), GameLog.from_arrays(log.a, log.b, log.score), n_boot=4, seed=1)
    np.testing.assert_array_equal(old.scores, new.scores)
    assert old.column == "elo" and old.beta_names == () and old.beta_frame().empty


def test_replicates_that_cannot_be_fitted_are_counted_and_left_out():
    log = league_log(n_games=300, seed=4)
    score = np.where(np.arange(300) == 5, 0.5, np.where(log.score == 0.5, 1.0, log.score))  # one draw: game 5
    one_draw = GameLog.from_arrays(log.a, log.b, score, time=log.time)
    drawn = np.array([np.random.default_rng([0, r]).multinomial(300, np.full(300, 1 / 300))[5] > 0 for r in range(8)])
    assert 0 < drawn.sum() < 8
    with pytest.warns(UserWarning, match=f"{8 - drawn.sum()} of 8 bootstrap replicates of DynamicElo could not be "
                                         "fitted.*has no draw"):
        res = bootstrap(DynamicElo(period=None, prior_scale=2.0, draws="davidson"), one_draw, n_boot=8)
    np.testing.assert_array_equal(~np.isnan(res.scores).all(axis=1), drawn)


# ------------------------------------------------------------------------------------ errors
def test_bad_data_is_refused_with_its_type():
    log = league_log(n_games=200)
    with pytest.raises(TypeError, match="data must be a discrank.GameLog, PeriodGames or PairwiseData.*got list"):
        bootstrap(Elo(), [1, 2, 3])
    with pytest.raises(TypeError, match="needs both b and score"):
        bootstrap(Elo(), log.a, log.b)
    with pytest.raises(TypeError, match="got a GameLog and the arrays b and score"):
        bootstrap(Elo(), log, log.b, log.score)
    with pytest.raises(TypeError, match="refits clones of a discrank model.*got str"):
        bootstrap("Elo", log)


def test_a_model_that_cannot_fit_the_data_is_named():
    with pytest.raises(TypeError, match="bootstrap: DynamicElo cannot fit a PairwiseData"):
        bootstrap(dynamic(), league_log(n_games=200).to_pairs(), n_boot=2)
    with pytest.raises(TypeError, match="bootstrap: DynamicElo cannot fit a GameLog aggregated to pairs"):
        bootstrap(dynamic(), league_log(n_games=200), n_boot=2, weights="uniform")


def test_pairs_without_whole_game_counts_are_refused():
    P = np.array([[0.5, 0.7], [0.3, 0.5]])
    with pytest.raises(ValueError, match="has no game counts"):
        bootstrap(Elo(), PairwiseData.from_matrix(P), n_boot=2)
    half = PairwiseData([0, 0, 1], [1, 2, 2], [0.5, 0.6, 0.7], [2.0, 2.5, 3.0])
    with pytest.raises(ValueError, match=r"n_games\[1\] = 2.5 is not a whole number of games"):
        bootstrap(Elo(prior_scale=1.0), half, n_boot=2)


def test_a_model_that_ranks_no_player_is_refused():
    # rock, paper, scissors: a cyclic first disc component, which has no strength
    a, b = np.repeat([0, 1, 2], 40), np.repeat([1, 2, 0], 40)
    data = PairwiseData.from_games(a, b, np.full(120, 0.9) > np.tile(np.linspace(0, 1, 40), 3))
    with pytest.raises(ValueError, match="DiscDecomposition ranks no player on these games.*cyclic"):
        bootstrap(DiscDecomposition(1, prior_scale=10.0, random_state=0), data, n_boot=2)


def test_bad_arguments_name_their_value():
    log = league_log(n_games=200)
    with pytest.raises(ValueError, match="ci must be a number in \\(0, 1\\), got 1.5"):
        bootstrap(Elo(), log, ci=1.5)
    with pytest.raises(ValueError, match="n_boot must be an integer >= 2, got 1"):
        bootstrap(Elo(), log, n_boot=1)
    with pytest.raises(ValueError, match="unknown anchor label.*'zz'"):
        bootstrap(Elo(prior_scale=1.0), log, n_boot=2, anchor="zz")
    with pytest.raises(ValueError, match="weights='uniform' applies to games aggregated to pairs"):
        bootstrap(dynamic(), PeriodGames.from_log(log, 500.0), n_boot=2, weights="uniform")
    with pytest.raises(ValueError, match="the PairwiseData has weights='games'"):
        bootstrap(Elo(prior_scale=1.0), log.to_pairs(), n_boot=2, weights="uniform")


def test_pairs_with_covariate_rows_give_beta_intervals():
    pairs = league_log(n_games=3000).to_pairs()
    res = bootstrap(Elo(prior_scale=2.0, tol=1e-6), pairs, n_boot=4, seed=0)
    assert res.beta_names == ("home",) and res.beta_point[0] == res.model.beta_[0]
    assert not np.isnan(res.beta_scores).any() and res.beta_frame()["lo"][0] < res.beta_point[0]


def test_the_leaderboard_plot_draws_the_bootstrap_interval_as_error_bars():
    import matplotlib

    matplotlib.use("Agg")
    from discrank.models.plot import plot_leaderboard

    res = bootstrap(Elo(prior_scale=2.0, tol=1e-6), league_log(n_games=800), n_boot=4, seed=0)
    ax = plot_leaderboard(res.frame())
    from matplotlib.container import ErrorbarContainer

    errorbars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert ax.get_xlabel() == "elo (bootstrap interval)" and len(errorbars) == 1
    segments = errorbars[0].lines[2][0].get_segments()
    frame = res.frame()
    # the best player's bar on top: its error bar spans its interval
    np.testing.assert_allclose(segments[0][:, 0], [frame["lo"][0], frame["hi"][0]])


def test_pairs_with_draw_counts_are_resampled_as_wins_draws_and_losses():
    log = league_log(n_games=900, draws=True)
    plain = GameLog.from_arrays(log.a, log.b, log.score)
    pairs = plain.to_pairs()
    ia, ib = pairs.index(plain.a), pairs.index(plain.b)
    key = np.minimum(ia, ib).astype(np.int64) * pairs.n_players + np.maximum(ia, ib)
    pair_of = np.searchsorted(pairs.i.astype(np.int64) * pairs.n_players + pairs.j, key)
    pairs.draws = np.bincount(pair_of, weights=plain.score == 0.5, minlength=pairs.n_pairs)  # counted by hand
    wins = pairs.p * pairs.n_games - 0.5 * pairs.draws
    cells = np.round(np.stack([wins, pairs.draws, pairs.n_games - wins - pairs.draws], axis=1).reshape(-1))
    _, _, draw = _sampler(pairs, None)
    sample = draw(np.random.default_rng([0, 0]))
    w, d, lost = np.random.default_rng([0, 0]).multinomial(900, cells / 900).reshape(-1, 3).T
    kept = (w + d + lost) > 0
    np.testing.assert_array_equal(sample.n_games, (w + d + lost)[kept])
    np.testing.assert_array_equal(sample.draws, d[kept])
    np.testing.assert_allclose(sample.p * sample.n_games, (w + 0.5 * d)[kept], rtol=1e-12)
