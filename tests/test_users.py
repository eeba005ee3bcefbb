"""Data in (frames, CSV, Parquet, PGN), ratings out (frames, save/load, bootstrap), plots for users."""

import gzip
import math

import numpy as np
import pandas as pd
import pytest

from discrank import DiscDecomposition, Elo, EloPlusPlus, GameLog, MElo, PairwiseData, SchurDecomposition, bootstrap, load
from discrank.exceptions import ConvergenceWarning
from discrank.data.logs import parse_results, read_pgn


def league(n=8, games_per_pair=30, seed=0, names=True):
    rng = np.random.default_rng(seed)
    skill = np.linspace(1.5, -1.5, n)
    a, b = np.triu_indices(n, 1)
    a, b = np.repeat(a, games_per_pair), np.repeat(b, games_per_pair)
    score = (rng.random(a.size) < 1 / (1 + np.exp(-(skill[a] - skill[b])))).astype(float)
    label = np.array([f"p{k}" for k in range(n)]) if names else np.arange(n)
    return label[a], label[b], score, skill


# ------------------------------------------------------------------------------------------ data in
def test_frame_with_numbers_pgn_strings_or_winner_gives_the_same_pairs():
    a, b, score, _ = league()
    df = pd.DataFrame({"white": a, "black": b, "result": score})
    ref = PairwiseData.from_games(a, b, score)
    d1 = PairwiseData.from_frame(df, a="white", b="black", score="result")
    pgn = np.where(score == 1.0, "1-0", "0-1").astype(object)
    pgn[::7] = "1/2-1/2"
    s2 = np.where(pgn == "1-0", 1.0, np.where(pgn == "0-1", 0.0, 0.5))
    d2 = PairwiseData.from_frame(df.assign(result=pgn), a="white", b="black", score="result")
    winner = np.where(score == 1.0, a, b).astype(object)
    winner[::7] = "draw"
    d3 = PairwiseData.from_frame(df.assign(w=winner), a="white", b="black", winner="w")
    for d in (d1,):
        assert np.array_equal(d.labels, ref.labels) and np.array_equal(d.p, ref.p)
    ref2 = PairwiseData.from_games(a, b, s2)
    for d in (d2, d3):
        assert np.array_equal(d.labels, ref2.labels)
        np.testing.assert_allclose(d.p, ref2.p, rtol=0, atol=1e-15)
        np.testing.assert_array_equal(d.n_games, ref2.n_games)


@pytest.mark.parametrize("values, message", [
    (["1-0", "*"], r"score\[1\] = '\*' is not a result"),
    (["1-0", "2-0"], r"score\[1\] = '2-0' is not a result"),
    ([1.0, 1.5], r"score\[1\] = 1.5 is not a score in \[0, 1\]"),
    ([0.0, float("nan")], r"score\[1\] = nan is not a score in \[0, 1\]"),
    ([1.0, None], r"score\[1\] = None is not a result"),
])
def test_bad_results_are_named(values, message):
    with pytest.raises(ValueError, match=message):
        parse_results(np.array(values, dtype=object))


@pytest.mark.parametrize("kwargs, message", [
    (dict(a="x", b="black", score="result"), r"column 'x' \(for a\) is not in the frame; its columns are \['white', 'black', 'result', 'w'\]"),
    (dict(a="white", b="black"), "give exactly one of score="),
    (dict(a="white", b="black", score="result", winner="w"), "give exactly one of score="),
    (dict(a="white", b="black", winner="w"), r"winner\[1\] = 'nobody' is neither player of that game \('q', 'r'\)"),
])
def test_frame_errors_name_the_column_or_value(kwargs, message):
    df = pd.DataFrame({"white": ["p", "q"], "black": ["q", "r"], "result": [1.0, 0.0], "w": ["p", "nobody"]})
    with pytest.raises(ValueError, match=message):
        GameLog.from_frame(df, **kwargs)


def test_frame_with_missing_result_or_player_is_refused():
    df = pd.DataFrame({"a": ["p", "q"], "b": ["q", None], "s": [1.0, 0.0]})
    with pytest.raises(ValueError, match="column 'b' is missing a player at row 1"):
        GameLog.from_frame(df, score="s")
    df = pd.DataFrame({"a": ["p", "q"], "b": ["q", "p"], "s": [1.0, np.nan]})
    with pytest.raises(ValueError, match=r"column 's' has no result at row 1 \(NaN\)"):
        GameLog.from_frame(df, score="s")


def test_csv_and_parquet_round_trip(tmp_path):
    a, b, score, _ = league()
    t = np.datetime64("2024-01-01") + np.arange(a.size)
    df = pd.DataFrame({"a": a, "b": b, "s": score, "t": t})
    df.to_csv(tmp_path / "g.csv", index=False)
    df.to_parquet(tmp_path / "g.parquet")
    for log in (GameLog.read_csv(tmp_path / "g.csv", score="s", time="t"),
                GameLog.read_parquet(tmp_path / "g.parquet", score="s", time="t")):
        assert len(log) == a.size
        assert np.array_equal(log.a, a) and np.array_equal(log.score, score)
        assert log.time.dtype.kind == "M" and log.time[3] == np.datetime64("2024-01-04")


def test_csv_errors_are_one_clear_line(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="the file is empty"):
        GameLog.read_csv(tmp_path / "empty.csv", score="s")
    (tmp_path / "header.csv").write_text("a,b,s\n")
    with pytest.raises(ValueError, match="the frame has no rows"):
        GameLog.read_csv(tmp_path / "header.csv", score="s")
    (tmp_path / "latin.csv").write_bytes("a,b,s\nJos\xe9,Ana,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8 text"):
        GameLog.read_csv(tmp_path / "latin.csv", score="s")


def test_filters_by_date_and_player_games_and_time_split():
    a = np.array(["x", "y", "x", "z", "x", "y", "w"])
    b = np.array(["y", "z", "z", "x", "y", "x", "x"])
    s = np.array([1, 0, 1, 0.5, 1, 0, 1.0])
    t = np.array(["2024-01-0%d" % d for d in range(1, 8)])
    log = GameLog.from_arrays(a, b, s, t)
    assert len(log.filter(start="2024-01-03")) == 5
    assert len(log.filter(end="2024-01-03")) == 2
    kept = log.filter(min_player_games=3)  # w has one game; after dropping it everyone has >= 3
    assert set(np.r_[kept.a, kept.b]) == {"x", "y", "z"} and len(kept) == 6
    past, future = log.split_time(0.3)
    assert len(past) == 5 and len(future) == 2 and past.time.max() < future.time.min()
    with pytest.raises(ValueError, match="start / end need a time column"):
        GameLog.from_arrays(a, b, s).filter(start="2024-01-01")
    with pytest.raises(ValueError, match="no player has at least min_player_games=10 games"):
        log.filter(min_player_games=10)


PGN = """[Event "Rated Blitz game"]
[White "alice"]
[Black "bob"]
[Result "1-0"]
[UTCDate "2024.03.01"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "Rated Blitz game"]
[White "bob"]
[Black "carol"]
[Result "1/2-1/2"]
[UTCDate "2024.03.02"]

1. d4 d5 1/2-1/2

[Event "Rated Blitz game"]
[White "carol"]
[Black "alice"]
[Result "*"]
[UTCDate "2024.03.03"]

1. c4 *

[Event "Rated Blitz game"]
[White "carol"]
[Black "alice"]
[Result "0-1"]
[UTCDate "2024.03.04"]

1. c4 e5 0-1
"""


def test_pgn_is_streamed_and_unfinished_games_skipped(tmp_path, capsys):
    (tmp_path / "g.pgn").write_text(PGN)
    with gzip.open(tmp_path / "g.pgn.gz", "wt") as fh:
        fh.write(PGN)
    for name in ("g.pgn", "g.pgn.gz"):
        log = read_pgn(tmp_path / name, progress=True)
        assert log.a.tolist() == ["alice", "bob", "carol"]
        assert log.b.tolist() == ["bob", "carol", "alice"]
        assert log.score.tolist() == [1.0, 0.5, 0.0]
        assert log.time[2] == np.datetime64("2024-03-04")
    assert "games read: 4" in capsys.readouterr().err  # 4 read, the unfinished one skipped
    assert len(read_pgn(tmp_path / "g.pgn", max_games=2)) == 2


# ------------------------------------------------------------------------------------------ ratings out
def test_elo_ratings_frame_is_sorted_with_the_familiar_scale():
    a, b, score, skill = league()
    model = Elo().fit(PairwiseData.from_games(a, b, score))
    frame = model.ratings_frame()
    assert list(frame.columns) == ["player", "rank", "games", "elo", "rating", "provisional"]
    assert frame["rank"].tolist() == list(range(1, 9))
    assert np.all(np.diff(frame["rating"].to_numpy()) <= 0)
    assert frame["elo"].mean() == pytest.approx(1500.0, abs=1e-9)
    # 400 / ln 10 Elo points per natural-log unit
    d_elo = frame["elo"].iloc[0] - frame["elo"].iloc[1]
    d_nat = frame["rating"].iloc[0] - frame["rating"].iloc[1]
    assert d_elo == pytest.approx(400 / math.log(10) * d_nat, rel=1e-12)
    assert np.all(frame["games"] == 7 * 30)
    anchored = model.ratings_frame(anchor="p3", anchor_rating=2000.0)
    assert anchored.set_index("player").loc["p3", "elo"] == pytest.approx(2000.0, abs=1e-9)
    with pytest.raises(ValueError, match="p99"):
        model.ratings_frame(anchor="p99")


def test_disc_ratings_frame_has_strength_consistency_and_the_summary():
    a, b, score, _ = league(n=10)
    model = DiscDecomposition(2, random_state=0).fit(PairwiseData.from_games(a, b, score))
    frame = model.ratings_frame()
    for col in ("player", "rank", "games", "elo", "strength", "consistency", "u_1", "v_1", "u_2", "v_2"):
        assert col in frame.columns
    assert np.all(np.diff(frame["strength"].to_numpy()) <= 0)
    assert frame.attrs["transitivity"]["transitive"][0] is True
    assert sum(frame.attrs["transitivity"]["share"]) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("make", [
    lambda: Elo(), lambda: EloPlusPlus(), lambda: DiscDecomposition(2, random_state=0),
    lambda: MElo(1, random_state=0), lambda: SchurDecomposition(1),
])
def test_save_and_load_predict_the_same(tmp_path, make):
    a, b, score, _ = league(n=6, games_per_pair=40)
    model = make().fit(PairwiseData.from_games(a, b, score))
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert type(back) is type(model) and back.get_params() == model.get_params()
    x, y = np.array(["p0", "p1", "p5"]), np.array(["p3", "p0", "p2"])
    np.testing.assert_array_equal(back.predict_proba(x, y), model.predict_proba(x, y))
    if getattr(model, "strength_", None) is not None:  # derived again on loading, identically
        np.testing.assert_array_equal(back.strength_, model.strength_)
        np.testing.assert_array_equal(back.ranking_, model.ranking_)
    if hasattr(model, "transitivity"):
        assert back.transitivity().transitive.tolist() == model.transitivity().transitive.tolist()


def test_save_keeps_integer_labels(tmp_path):
    a, b, score, _ = league(names=False)
    model = Elo().fit(PairwiseData.from_games(a, b, score))
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert back.labels_.dtype.kind == "i"
    assert back.predict_proba(0, 7) == model.predict_proba(0, 7)


def test_broken_model_files_are_value_errors(tmp_path):
    a, b, score, _ = league()
    Elo().fit(PairwiseData.from_games(a, b, score)).save(tmp_path / "m.npz")
    raw = (tmp_path / "m.npz").read_bytes()
    (tmp_path / "trunc.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="trunc.npz: not a readable discrank model file"):
        load(tmp_path / "trunc.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="junk.npz: not a readable discrank model file"):
        load(tmp_path / "junk.npz")
    np.savez(tmp_path / "other.npz", x=np.ones(3))
    with pytest.raises(ValueError, match="no __discrank__ header"):
        load(tmp_path / "other.npz")
    np.savez(tmp_path / "bad.npz", __discrank__=np.array('{"format": 1, "model": "Evil", "params": {}, "scalars": {}}'),
             labels_=np.arange(3))
    with pytest.raises(ValueError, match="unknown model 'Evil'"):
        load(tmp_path / "bad.npz")
    np.savez(tmp_path / "shape.npz", __discrank__=np.array('{"format": 1, "model": "Elo", "params": {}, "scalars": {}}'),
             labels_=np.arange(3), ratings_=np.ones(2))
    with pytest.raises(ValueError, match="ratings_ has shape"):
        load(tmp_path / "shape.npz")


def test_bootstrap_intervals_cover_and_are_seeded():
    a, b, score, skill = league(n=6, games_per_pair=60, seed=3)
    res = bootstrap(Elo(), a, b, score, n_boot=40, seed=1)
    lo, hi = res.intervals()
    assert res.scores.shape == (40, 6)
    assert np.all(lo <= res.point) and np.all(res.point <= hi)
    # more games, narrower intervals: 4x the games roughly halves the width
    a4, b4, s4, _ = league(n=6, games_per_pair=240, seed=3)
    lo4, hi4 = bootstrap(Elo(), a4, b4, s4, n_boot=40, seed=1).intervals()
    assert np.median((hi4 - lo4) / (hi - lo)) < 0.7
    again = bootstrap(Elo(), a, b, score, n_boot=40, seed=1, n_jobs=2)
    np.testing.assert_array_equal(again.scores, res.scores)  # same seed, any number of workers
    frame = res.frame()
    assert frame["player"].iloc[0] == "p0" and frame["rank_lo"].iloc[0] == 1
    anchored = bootstrap(Elo(), a, b, score, n_boot=40, seed=1, anchor="p5")
    # the anchor at ratings_frame's anchor_rating, 1500 Elo points, in the point fit and every replicate
    assert anchored.point[5] == 1500.0 and np.all(anchored.scores[:, 5][~np.isnan(anchored.scores[:, 5])] == 1500.0)
    np.testing.assert_allclose(anchored.point, res.point - res.point[5] + 1500.0, atol=1e-9)
    with pytest.raises(ValueError, match="n_boot must be an integer >= 2, got 1"):
        bootstrap(Elo(), a, b, score, n_boot=1)


def test_plots_render_headless(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from discrank.models.plot import plot_leaderboard, plot_model_payoff

    a, b, score, _ = league()
    model = Elo().fit(PairwiseData.from_games(a, b, score))
    ax = plot_leaderboard(bootstrap(Elo(), a, b, score, n_boot=10).frame())
    assert len(ax.patches) == 8 and ax.get_yticklabels()[0].get_text() == "p0"  # the best on top
    ax.figure.savefig(tmp_path / "lb.png")
    ax = plot_model_payoff(model)
    P = ax.images[0].get_array()
    assert P.shape == (8, 8) and P[0, -1] > 0.5  # ordered by strength: the best beats the worst
    assert (tmp_path / "lb.png").stat().st_size > 1000
