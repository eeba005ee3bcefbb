"""Games summed by pair, period and covariate value (PeriodGames): scan_games(period=) equals the in-memory
sums; DynamicElo fits them as it fits the log itself (bitwise at a fixed drift and prior, the same
choices when tuned on whole periods); they save, load and update; bad input is named."""

import re

import numpy as np
import pytest

import discrank
import discrank.scan as scan
from discrank import DynamicElo, GameLog, PeriodGames
from discrank._util.calendar import period_index, period_start
from discrank.solvers._tuning import Validation, _time_bounds, time_cut
from discrank.exceptions import InvalidRowsWarning
from test_scan_games import _pgn, spills  # noqa: F401 (a fixture)

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


def _frame(seed=0, n_games=12000, n_players=150, strings=True, days=500):
    """Games with results, a home covariate and dates, ratings drifting over time."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    day = np.sort(rng.integers(0, days, n_games))
    walk = np.cumsum(rng.normal(0, 0.05, (n_players, days)), axis=1) + rng.normal(0, 1, (n_players, 1))
    home = rng.choice([-1.0, 0.0, 1.0], n_games)
    d = walk[a, day] - walk[b, day] + 0.3 * home
    pa, pb, nu = np.exp(d / 2), np.exp(-d / 2), 0.6
    u = rng.random(n_games) * (pa + pb + nu)
    score = np.where(u < pa, 1.0, np.where(u < pa + nu, 0.5, 0.0))
    lab = (lambda v: np.array([f"p{k:03d}" for k in v], dtype=object)) if strings else (lambda v: v)
    return pd.DataFrame({"a": lab(a), "b": lab(b), "score": score, "home": home,
                         "t": np.datetime64("2021-01-01") + day.astype("timedelta64[D]")})


def _same(got, ref):
    assert np.array_equal(got.labels, ref.labels) and got.labels.dtype.kind == ref.labels.dtype.kind
    for f in ("a", "b", "bins", "time", "games", "score", "draws"):
        assert np.array_equal(getattr(got, f), getattr(ref, f)), f
    assert got.results == ref.results and got.period == ref.period
    assert got.advantage_names == ref.advantage_names
    assert (got.advantage is None) == (ref.advantage is None)
    if ref.advantage is not None:
        assert np.array_equal(got.advantage, ref.advantage)


def _floored(log, period):
    """The log with each game's time moved to the start of its period."""
    t = period_start(period_index(log.time, period), period, log.time.dtype.kind == "M")
    adv = None if log.advantage is None else dict(zip(log.advantage_names, log.advantage.T))
    return GameLog.from_arrays(log.a, log.b, log.score, t, advantage=adv)


# ------------------------------------------------------------------------------------------- the sums
@pytest.mark.parametrize("advantage", [None, "home"])
@pytest.mark.parametrize("limit", ["1GiB", "1MiB"])
def test_scan_by_period_equals_the_in_memory_sums(tmp_path, advantage, limit):
    frames = [_frame(k) for k in range(3)]
    for k, f in enumerate(frames):
        f.to_parquet(tmp_path / f"g{k}.parquet")
    log = GameLog.from_frame(pd.concat(frames, ignore_index=True), score="score", time="t", advantage=advantage)
    ref = PeriodGames.from_log(log, "week")
    got = scan.scan_games(tmp_path, score="score", time="t", advantage=advantage, period="week",
                          memory_limit=limit, batch_rows=2500)
    _same(got, ref)
    assert got.n_games == len(log) and got.results
    assert np.all(np.diff(got.bins) >= 0)  # rows in period order
    # every row's time is its period's start, a Monday
    assert np.all(got.time.astype("datetime64[D]").astype(np.int64) % 7 == 4)
    assert np.array_equal(period_index(got.time, "week"), got.bins)
    # summed over the periods: the pairs of the plain scan (and of the log)
    pairs = scan.scan_games(tmp_path, score="score", advantage=advantage, batch_rows=2500)
    back = got.to_pairs()
    for f in ("i", "j", "p", "n_games"):
        assert np.array_equal(getattr(back, f), getattr(pairs, f)), f
    if advantage:
        for f in ("pair", "p", "n_games", "x"):
            assert np.array_equal(getattr(back.covariates, f), getattr(pairs.covariates, f)), f


def test_scan_by_period_spills_and_merges_runs(tmp_path, spills):
    df = _frame(3, n_games=40000, n_players=300, strings=False, days=60)
    df.to_parquet(tmp_path / "g.parquet")
    ref = PeriodGames.from_log(GameLog.from_frame(df, score="score", time="t"), "day")
    # 1 MiB holds 7 943 rows of (key, period, covariate, games, score, draws): the table is spilled
    _same(scan.scan_games(tmp_path / "g.parquet", score="score", time="t", period="day", memory_limit="1MiB",
                          batch_rows=3000), ref)
    assert spills["n"] >= 2


def test_numeric_periods_csv_and_min_player_games(tmp_path):
    df = _frame(4, n_games=6000, n_players=900, strings=False)
    df["t"] = (df["t"] - np.datetime64("2021-01-01")).dt.days + 0.25  # numeric times
    df.iloc[:3000].to_csv(tmp_path / "g1.csv.gz", index=False)
    df.iloc[3000:].to_csv(tmp_path / "g2.csv", index=False)
    log = GameLog.from_frame(df, score="score", time="t", min_player_games=5)
    got = scan.scan_games(tmp_path, score="score", time="t", period=2.5, min_player_games=5)
    assert 0 < got.labels.size < 900
    _same(got, PeriodGames.from_log(log, 2.5))
    assert np.array_equal(period_index(got.time, 2.5), got.bins)


def test_fractional_scores_keep_their_sum(tmp_path):
    df = _frame(5, n_games=3000)
    df.loc[::7, "score"] = 0.75
    df.to_parquet(tmp_path / "g.parquet")
    got = scan.scan_games(tmp_path / "g.parquet", score="score", time="t", period="month")
    ref = PeriodGames.from_log(GameLog.from_frame(df, score="score", time="t"), "month")
    _same(got, ref)
    assert not got.results
    with pytest.raises(ValueError, match="draws='davidson' needs results 1, 0.5 or 0"):
        DynamicElo(period="month", drift=0.1, prior_scale=1.0, draws="davidson").fit(got)


def test_pgn_by_period_names_a_game_without_a_date(tmp_path):
    text = _pgn(600).replace('[UTCDate "2024.01.05"]', '[UTCDate "????.??.??"]')
    (tmp_path / "g.pgn").write_text(text)
    with pytest.raises(ValueError, match=r"g\.pgn: game 4 has no date .* to put it in a period"):
        scan.scan_games(tmp_path / "g.pgn", period="day")
    with pytest.warns(InvalidRowsWarning, match=r"21 missing time, 163 unfinished game"):
        got = scan.scan_games(tmp_path / "g.pgn", period="day", invalid="drop", batch_rows=50)
    assert got.n_games == 600 - 21 - 163
    dated = text.replace('[UTCDate "????.??.??"]', '[UTCDate "2024.01.05"]')
    (tmp_path / "g.pgn").write_text(dated)
    with pytest.warns(InvalidRowsWarning):
        log = discrank.read_pgn(tmp_path / "g.pgn", invalid="drop")
    with pytest.warns(InvalidRowsWarning):
        got = scan.scan_games(tmp_path / "g.pgn", period="day", invalid="drop", batch_rows=50)
    _same(got, PeriodGames.from_log(log, "day"))


def test_bad_period_arguments_are_named(tmp_path):
    df = _frame(6, n_games=2000)
    df.to_parquet(tmp_path / "g.parquet")
    with pytest.raises(ValueError, match="period='week' needs a time column"):
        scan.scan_games(tmp_path / "g.parquet", score="score", period="week")
    with pytest.raises(ValueError, match="period='fortnight' is not one of"):
        scan.scan_games(tmp_path / "g.parquet", score="score", time="t", period="fortnight")
    with pytest.raises(ValueError, match="period=-1 is not a positive number"):
        scan.scan_games(tmp_path / "g.parquet", score="score", time="t", period=-1)
    with pytest.raises(ValueError, match="weights= is a PairwiseData's"):
        scan.scan_games(tmp_path / "g.parquet", score="score", time="t", period="week", weights="uniform")
    numeric = df.assign(t=np.arange(len(df), dtype=float))
    numeric.to_parquet(tmp_path / "h.parquet")
    with pytest.raises(ValueError, match=r"h\.parquet: the times are numbers, but in .*g\.parquet they are dates"):
        scan.scan_games(tmp_path, score="score", time="t", period="week")
    with pytest.raises(ValueError, match=r"h\.parquet: period='week': this log's times are numbers; give a positive"):
        scan.scan_games(tmp_path / "h.parquet", score="score", time="t", period="week")
    with pytest.raises(ValueError, match="PeriodGames need the games' times"):
        PeriodGames.from_log(GameLog.from_arrays(["x", "y"], ["y", "x"], [1.0, 0.0]), "week")


@pytest.mark.parametrize("columns", [("context",), ("margin",), ("match_format",),
                                     ("context", "margin", "match_format")])
def test_from_log_refuses_a_log_with_contexts_margins_or_formats_naming_them(columns):
    # the sums held none of them, and a DynamicElo fitted on them fitted the results alone, without a word
    n = 12
    score = np.tile([1.0, 0.0], n // 2)
    extra = {"context": np.tile(["clay", "hard"], n // 2), "margin": np.stack([3 * score, 3 - 3 * score], axis=1),
             "match_format": np.repeat(["bo3", "bo5"], n // 2)}
    log = GameLog.from_arrays(np.tile(["x", "y", "z"], 4), np.tile(["y", "z", "x"], 4), score,
                              np.arange(n, dtype=float), **{c: extra[c] for c in columns})
    with pytest.raises(ValueError, match=re.escape(f"the log has the column(s) {list(columns)}, which PeriodGames do "
                                                   "not hold") + ".*fit the GameLog itself"):
        PeriodGames.from_log(log, 5.0)
    bare = GameLog.from_arrays(log.a, log.b, log.score, log.time)
    assert PeriodGames.from_log(bare, 5.0).n_games == n


# --------------------------------------------------------------------------------------- the fits
@pytest.mark.parametrize("draws", [None, "davidson", "rao-kupper"])
def test_dynamic_fit_on_the_sums_equals_the_fit_on_the_log(draws):
    log = GameLog.from_frame(_frame(7), score="score", time="t", advantage="home")
    summed = PeriodGames.from_log(log, "week")
    assert len(summed) < len(log)
    # (the propensities' scale fixed: its tuning's validation window starts at a game on the log, at a period's
    # start on the sums, and two of its candidates can swap)
    kw = {"draw_propensity_scale": 0.2} if draws == "davidson" else {}
    one = DynamicElo(period="week", drift=0.03, prior_scale=1.0, draws=draws, **kw).fit(log)
    two = DynamicElo(period="week", drift=0.03, prior_scale=1.0, draws=draws, **kw).fit(summed)
    # the same rows over player-periods; the fit starts from the variance scale's tuning, whose sums round
    # apart (the sums' rows add games in another order): the same MAP to rounding
    for attr in ("pp_rating_", "pp_sd_", "pp_games_", "beta_", "beta_se_"):
        np.testing.assert_allclose(getattr(two, attr), getattr(one, attr), rtol=0, atol=1e-12, err_msg=attr)
    assert two.n_iter_ == one.n_iter_
    if draws != "davidson":  # (no nu: pytest 9's approx refuses None with a relative tolerance)
        assert one.draw_nu_ is None and two.draw_nu_ is None
    else:
        assert two.draw_nu_ == pytest.approx(one.draw_nu_, rel=1e-12, abs=0)
    np.testing.assert_allclose(two.predict_games(log), one.predict_games(log), rtol=0, atol=1e-12)
    # with every parameter given (no tuning), the same Newton iterates, bitwise
    full = dict(period="week", drift=0.03, prior_scale=1.0, variance_scale=1.0, draws=draws, **kw)
    np.testing.assert_array_equal(DynamicElo(**full).fit(summed).pp_rating_, DynamicElo(**full).fit(log).pp_rating_)
    # the stationary model (period=None) takes the sums too
    s1 = DynamicElo(period=None, prior_scale=1.0, draws=draws, **kw).fit(log)
    s2 = DynamicElo(period=None, prior_scale=1.0, draws=draws, **kw).fit(summed)
    np.testing.assert_allclose(s2.pp_rating_, s1.pp_rating_, rtol=0, atol=1e-12)


def test_tuned_fit_on_the_sums_equals_the_tuned_fit_on_whole_periods():
    log = GameLog.from_frame(_frame(8), score="score", time="t", advantage="home")
    summed = PeriodGames.from_log(log, "week")
    floored = _floored(log, "week")
    window = Validation(window=np.timedelta64(10 * 7, "D"))  # ten whole weeks: the same games either way
    one = DynamicElo(period="week").fit(floored, validation=window)
    two = DynamicElo(period="week").fit(summed, validation=window)
    assert one.tuning_["scores"].keys() == two.tuning_["scores"].keys()
    np.testing.assert_allclose(list(two.tuning_["scores"].values()), list(one.tuning_["scores"].values()),
                               rtol=1e-12)
    assert (two.drift_, two.prior_scale_, two.variance_scale_) == (one.drift_, one.prior_scale_, one.variance_scale_)
    np.testing.assert_allclose(two.pp_rating_, one.pp_rating_, rtol=0, atol=1e-12)


def test_weighted_time_cut_is_the_cut_of_the_games_it_stands_for():
    rng = np.random.default_rng(9)
    t = np.sort(rng.integers(0, 50, 400)).astype(float)
    w = rng.integers(1, 6, 400).astype(float)
    games_t = np.repeat(t, w.astype(int))
    for v in (Validation(), Validation(fraction=0.3), Validation(fraction=0.3, gap=2.0)):
        n_fit, start = _time_bounds(t, v, w)
        g_fit, g_start = _time_bounds(games_t, v)
        before = np.concatenate([[0.0], np.cumsum(w)])
        # the weighted cut is the row holding the games' cut; the games fitted end at the same time
        assert before[start] <= g_start < before[start + 1]
        assert before[n_fit] == g_fit
    # the unweighted rule is unchanged
    assert _time_bounds(t, Validation()) == _time_bounds(t, Validation(), np.ones(t.size))
    # rows without an order within a time (PeriodGames): the validation starts at its first time's start
    fit, val = time_cut(t, Validation(), w, whole=True)
    start = int(np.argmax(val))
    assert t[start - 1] < t[start] and not fit[start:].any() and fit[:start].all()
    assert t[start] == t[_time_bounds(t, Validation(), w)[1]]


def test_a_model_of_sums_saves_loads_and_updates(tmp_path):
    log = GameLog.from_frame(_frame(10), score="score", time="t", advantage="home")
    cut = int(np.searchsorted(log.time, np.datetime64("2022-01-03")))  # a Monday: whole weeks either side
    first = PeriodGames.from_log(log._take(np.arange(len(log)) < cut), "week")
    second = PeriodGames.from_log(log._take(np.arange(len(log)) >= cut), "week")
    model = DynamicElo(period="week", drift=0.03, prior_scale=1.0, draws="davidson").fit(first)
    model.save(tmp_path / "m.npz")
    back = discrank.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.predict_games(log), model.predict_games(log))
    assert back.beta_se_ == pytest.approx(model.beta_se_, rel=1e-12)
    assert f"from {first.n_games:.0f} games" in back._verdict()
    model.update(second)
    back.update(second)
    whole = DynamicElo(period="week", drift=0.03, prior_scale=1.0, draws="davidson").fit(
        PeriodGames.from_log(log, "week"))
    np.testing.assert_array_equal(back.pp_rating_, model.pp_rating_)
    # a warm refit to update_tol: predictions within 1e-5 of the exact MAP's (DynamicElo's docstring)
    np.testing.assert_allclose(model.predict_games(log), whole.predict_games(log), rtol=0, atol=1e-5)
    # a log of single games updates a model of sums
    extra = GameLog.from_arrays(["p001", "p999"], ["p002", "p001"], [1.0, 0.5],
                                np.array(["2022-05-02", "2022-05-03"], dtype="datetime64[D]"),
                                advantage={"home": [1.0, 0.0]})
    model.update(extra)
    assert "p999" in model.labels_.tolist() and model._n_games() == len(log) + 2
    # a count that is not a positive number of games is named on loading
    with np.load(tmp_path / "m.npz") as z:
        files = {k: z[k] for k in z.files}
    files["games_count_"] = files["games_count_"].copy()
    files["games_count_"][5] = 0.0
    np.savez_compressed(tmp_path / "bad.npz", **files)
    with pytest.raises(ValueError, match=r"games_count_\[5\] = 0(\.0)? is not a positive number of games"):
        discrank.load(tmp_path / "bad.npz")


def test_the_period_of_the_sums_must_be_the_models():
    log = GameLog.from_frame(_frame(11, n_games=2000), score="score", time="t")
    summed = PeriodGames.from_log(log, "week")
    with pytest.raises(ValueError, match="summed by period='week', but this model's period is 'day'"):
        DynamicElo(period="day", drift=0.1, prior_scale=1.0).fit(summed)
    model = DynamicElo(period="week", drift=0.1, prior_scale=1.0).fit(summed)
    with pytest.raises(ValueError, match="summed by period='month'"):
        model.update(PeriodGames.from_log(log, "month"))
    with pytest.raises(TypeError, match="GameLog or discrank.PeriodGames"):
        DynamicElo(period="week").fit(summed.to_pairs())


@pytest.mark.parametrize("field, index, value, message", [
    ("a", 3, 10_000, r"PeriodGames\.a\[3\] = 10000 is not a player code \(150 labels\)"),
    ("b", 0, -1, r"PeriodGames\.b\[0\] = -1 is not a player code"),
    ("games", 2, 0.0, r"PeriodGames\.games\[2\] = 0(\.0)? is not a positive number of games"),
    ("games", 2, np.nan, r"PeriodGames\.games\[2\] = (nan|NaN) is not a positive number of games"),
    ("score", 1, -0.5, r"PeriodGames\.score\[1\] = -0\.5 is not a score sum between 0 and the row's games"),
    ("draws", 4, 7.0, r"PeriodGames\.draws\[4\] = 7(\.0)? is not a number of draws"),
])
def test_rows_that_contradict_each_other_are_named(field, index, value, message):
    import dataclasses

    summed = PeriodGames.from_log(GameLog.from_frame(_frame(12, n_games=3000), score="score", time="t"), "week")
    column = getattr(summed, field).copy()
    column = column.astype(np.float64) if np.isnan(value) else column
    column[index] = value
    bad = dataclasses.replace(summed, **{field: column})
    with pytest.raises(ValueError, match=message):
        DynamicElo(period="week", drift=0.1, prior_scale=1.0).fit(bad)
    same = dataclasses.replace(summed, b=summed.a.copy())
    with pytest.raises(ValueError, match=r"row 0 has the player 'p\d+' against themself"):
        same.check()
    short = dataclasses.replace(summed, games=summed.games[:-1])
    with pytest.raises(ValueError, match=r"PeriodGames\.games has shape"):
        short.check()
