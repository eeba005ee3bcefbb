"""Arena leaderboards (issue 34): the board's fit, sandwich and bootstrap intervals, anchor, rank bounds,
style control, categories, the vote-drop check, held-out log loss and the bad input they refuse."""

import math

import re

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

import discrank
from discrank.arena._fit import fit_bt, rows_of
from discrank.arena.board import ELO, arena_board
from discrank.cli import main

WINNERS = np.array(["model_b", "model_a"])


def arena(n=8, votes=4000, seed=0, style=0.0, ties=0.1):
    """A synthetic arena frame: strengths 0.3 apart, a style column pair len_a/len_b of true effect
    ``style`` on the normalised difference, a ``lang`` category, ties at rate ``ties``."""
    rng = np.random.default_rng(seed)
    theta = 0.3 * np.arange(n)[::-1]
    a = rng.integers(0, n, votes)
    b = (a + rng.integers(1, n, votes)) % n
    la, lb = rng.integers(50, 500, votes), rng.integers(50, 500, votes)
    z = (la - lb) / (la + lb)
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + style * z)))
    win = rng.random(votes) < p
    tie = rng.random(votes) < ties
    winner = np.where(tie, np.where(rng.random(votes) < 0.5, "tie", "tie (bothbad)"), WINNERS[win.astype(int)])
    names = np.array([f"m{i}" for i in range(n)])
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, "len_a": la, "len_b": lb,
                         "lang": np.where(rng.random(votes) < 0.5, "en", "de")})


def scores(df):
    return np.where(df.winner == "model_a", 1.0, np.where(df.winner == "model_b", 0.0, 0.5))


def direct_fit(df, style=False):
    """The same maximum-likelihood board by scipy's BFGS on the per-vote loss (no cells, no Newton)."""
    labels = np.array(sorted(set(df.model_a) | set(df.model_b)))
    a, b = np.searchsorted(labels, df.model_a), np.searchsorted(labels, df.model_b)
    y = scores(df)
    z = ((df.len_a - df.len_b) / (df.len_a + df.len_b)).to_numpy()
    z = (z - z.mean()) / z.std()
    n = labels.size

    def loss(x):
        d = x[a] - x[b] + (x[n] * z if style else 0.0)
        return np.sum(np.logaddexp(0.0, d) - y * d) + 0.5 * x[:n].sum() ** 2

    x = optimize.minimize(loss, np.zeros(n + 1), method="BFGS", options={"gtol": 1e-9}).x
    return labels, x


def test_the_board_is_the_maximum_likelihood_bradley_terry_fit_on_the_elo_scale():
    df = arena()
    board = arena_board(df)
    labels, x = direct_fit(df)
    got = board.frame.set_index("model").rating
    want = 1000.0 + ELO * (x[:labels.size] - x[:labels.size].mean())
    np.testing.assert_allclose(got.loc[labels].to_numpy(), want, atol=1e-4)
    assert board.frame.rating.is_monotonic_decreasing
    assert board.frame["rank"].tolist() == list(range(1, 9))
    assert board.frame.rating.mean() == pytest.approx(1000.0, abs=1e-9)


def test_the_style_controlled_board_is_the_contextual_fit_and_shows_the_plain_board_beside_it():
    df = arena(style=1.5)
    board = arena_board(df, style="len")
    labels, x = direct_fit(df, style=True)
    frame = board.frame.set_index("model")
    np.testing.assert_allclose(frame.rating.loc[labels], 1000 + ELO * (x[:8] - x[:8].mean()), atol=1e-4)
    assert board.style.coef.iloc[0] == pytest.approx(x[8], abs=1e-6)
    plain = arena_board(df).frame.set_index("model")
    np.testing.assert_allclose(frame.rating_plain.loc[labels], plain.rating.loc[labels], atol=1e-9)
    assert (frame.rank_change == frame.rank_plain - frame["rank"]).all()


def test_the_sandwich_is_the_per_vote_robust_covariance():
    df = arena(style=1.0)
    board = arena_board(df, style="len")
    fit = board.fit
    n = 8
    v = board._votes
    d = fit.x[v.a] - fit.x[v.b] + v.z[:, 0] * fit.x[n]
    p = 1 / (1 + np.exp(-d))
    X = np.zeros((v.a.size, n + 1))
    X[np.arange(v.a.size), v.a] = 1.0
    X[np.arange(v.a.size), v.b] = -1.0
    X[:, n] = v.z[:, 0]
    H = (X * (p * (1 - p))[:, None]).T @ X
    S = X * (p - v.y)[:, None]
    meat = S.T @ S
    # the covariance of (ratings minus their mean, beta): H's pseudo-inverse on the constrained space
    P = np.eye(n + 1)
    P[:n, :n] -= 1.0 / n
    Hp = np.linalg.pinv(P @ H @ P)
    cov = Hp @ meat @ Hp
    se = np.sqrt(np.diag(cov))
    frame = board.frame.set_index("model").loc[board.labels]
    np.testing.assert_allclose(frame.se.to_numpy(), ELO * se[:n], rtol=1e-7)
    np.testing.assert_allclose(frame.upper - frame.rating, 1.959963984540054 * ELO * se[:n], rtol=1e-7)
    assert board.style.se.iloc[0] == pytest.approx(se[n], rel=1e-7)


def test_votes_summed_into_cells_fit_as_the_votes_one_by_one():
    df = arena()
    y = scores(df)
    labels = np.array(sorted(set(df.model_a) | set(df.model_b)))
    a, b = np.searchsorted(labels, df.model_a), np.searchsorted(labels, df.model_b)
    cells = rows_of(8, a, b, y, np.ones(y.size))
    single = rows_of(8, a, b, y, np.ones(y.size), np.zeros((y.size, 1)) + np.arange(y.size)[:, None] % 2)
    assert cells.a.size <= 3 * 28 and cells.votes == y.size
    f_cells = fit_bt(cells)
    np.testing.assert_allclose(f_cells.meat(), _per_vote_meat(a, b, y, f_cells.x), rtol=1e-10, atol=1e-9)
    assert single.a.size == y.size


def _per_vote_meat(a, b, y, x):
    n = x.size
    p = 1 / (1 + np.exp(-(x[a] - x[b])))
    S = np.zeros((a.size, n))
    S[np.arange(a.size), a] = p - y
    S[np.arange(a.size), b] = -(p - y)
    return S.T @ S


def test_one_win_each_is_fastchats_doubled_votes_and_the_board_of_half():
    df = arena(ties=0.3)
    board = arena_board(df, ties="one-win-each")
    log = discrank.read_arena(df, ties="one-win-each")
    assert len(log) == 2 * len(df)
    dup = pd.DataFrame({"model_a": log.a, "model_b": log.b, "winner": WINNERS[log.score.astype(int)]})
    np.testing.assert_allclose(board.frame.rating, arena_board(dup).frame.rating, atol=1e-8)
    assert (board.frame.model == arena_board(dup).frame.model).all()
    # each vote stays one vote: the intervals are those of half, not of the doubled games
    pd.testing.assert_frame_equal(board.frame, arena_board(df).frame, rtol=1e-9)
    ignored = arena_board(df, ties="ignore")
    assert ignored.frame.votes.sum() == 2 * np.sum(~df.winner.str.startswith("tie"))
    assert arena_board(df, bothbad="ignore").frame.votes.sum() == 2 * np.sum(df.winner != "tie (bothbad)")


def test_an_anchor_model_sits_at_the_anchor_rating_with_no_width_and_moves_no_gap():
    df = arena()
    mean = arena_board(df).frame.set_index("model")
    pinned = arena_board(df, anchor="m3", anchor_rating=1114.0).frame.set_index("model")
    assert pinned.rating["m3"] == pytest.approx(1114.0, abs=1e-9)
    assert pinned.se["m3"] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(pinned.rating - pinned.rating["m3"], mean.rating - mean.rating["m3"], atol=1e-9)
    # the anchor's variance moves to the others: their gap to m3 is what the interval measures
    assert (pinned.drop("m3").se > 0).all()


def test_the_bootstrap_is_the_same_for_any_thread_count_and_matches_the_sandwich():
    df = arena(votes=20000, style=1.0)
    one = arena_board(df, style="len", ci="bootstrap", n_boot=200, seed=3, n_jobs=1)
    two = arena_board(df, style="len", ci="bootstrap", n_boot=200, seed=3, n_jobs=2)
    np.testing.assert_array_equal(one.replicates, two.replicates)
    assert (one.steps > 0).all()
    other = arena_board(df, style="len", ci="bootstrap", n_boot=200, seed=4, n_jobs=2)
    assert not np.array_equal(one.replicates, other.replicates)
    sandwich = arena_board(df, style="len").frame.set_index("model")
    boot = one.frame.set_index("model").loc[sandwich.index]
    # 200 replicates: a standard deviation within 10% (its relative Monte-Carlo error is 5%)
    np.testing.assert_allclose(boot.se, sandwich.se, rtol=0.15)
    assert one.style.se.iloc[0] == pytest.approx(arena_board(df, style="len").style.se.iloc[0], rel=0.15)
    assert (boot.lower < boot.rating).all() and (boot.rating < boot.upper).all()


def test_a_replicate_of_votes_counted_many_times_over_is_the_point_estimate():
    """Each cell counted 10^8 times over (weight 10^-8 each: the same loss): a replicate's Poisson counts
    then differ from the counts by 10^-4 relatively, so its fit sits within 10^-3 standard errors of the
    point: the replicates solve the reweighted problem, by the large-mean sampler."""
    from dataclasses import replace

    board = arena_board(arena(votes=3000))
    fit = board.fit
    many = replace(fit, rows=replace(fit.rows, count=fit.rows.count * 1e8, mult=fit.rows.mult * 1e-8))
    reps, steps = many.bootstrap(4, seed=7, n_jobs=1)
    assert (steps >= 0).all()
    se = board.frame.set_index("model").loc[board.labels].se.to_numpy() / ELO
    assert np.abs(reps[:, :8] - fit.x[:8]).max() < 1e-3 * se.min()
    assert np.abs(reps[:, :8] - fit.x[:8]).max() > 0  # yet not the point itself: the counts were drawn
    assert abs(reps[:, :8].sum(axis=1)).max() < 1e-9  # ratings held at mean 0


def test_rank_bounds_are_integers_by_fastchats_rule():
    df = arena(n=6, votes=3000)
    frame = arena_board(df).frame
    lo, hi = frame.lower.to_numpy(), frame.upper.to_numpy()
    for i in range(6):
        assert frame.rank_lower[i] == 1 + np.sum(lo > hi[i])
        assert frame.rank_upper[i] == 6 - np.sum(hi < lo[i])
    assert frame.rank_lower.dtype == np.int64 and frame.rank_upper.dtype == np.int64


def test_a_category_board_is_the_board_of_that_categorys_votes():
    df = arena(votes=6000)
    board = arena_board(df, category="lang")
    assert sorted(board.categories) == ["de", "en"]
    for lang, sub in board.categories.items():
        alone = arena_board(df[df.lang == lang])
        pd.testing.assert_frame_equal(sub.frame, alone.frame)
    log = discrank.read_arena(df)
    from_log = arena_board(log, category=df.lang.to_numpy())
    pd.testing.assert_frame_equal(from_log.categories["en"].frame, board.categories["en"].frame)


def test_the_vote_drop_check_removes_the_votes_it_reports_and_the_top_model_changes():
    df = arena(n=5, votes=3000, seed=1)
    df.loc[df.model_a == "m1", "winner"] = np.where(np.arange((df.model_a == "m1").sum()) % 3 == 0, "model_a",
                                                    df.loc[df.model_a == "m1", "winner"])
    board = arena_board(df)
    drop = board.votes_to_flip(rank=1)
    top = board.frame.model.iloc[0]
    assert drop.holder == top and drop.votes > 0 and drop.approximate > 0
    assert drop.removed.size == drop.votes
    kept = np.ones(len(df), dtype=bool)
    kept[drop.removed] = False
    assert arena_board(df[kept]).frame.model.iloc[0] != top
    assert drop.gap == pytest.approx(board.frame.rating.iloc[0] - board.frame.set_index("model").rating[drop.challenger])
    assert drop.votes <= 2 * drop.approximate  # the first-order count is within a factor two here


def test_held_out_log_loss_is_the_mean_of_the_per_vote_losses_against_the_coin():
    df = arena(votes=5000, style=1.0)
    train, test = df.iloc[:4000], df.iloc[4000:]
    board = arena_board(train, style="len")
    held = board.log_loss(test)
    z = ((test.len_a - test.len_b) / (test.len_a + test.len_b)).to_numpy()
    q = board.predict(test.model_a, test.model_b, z[:, None])
    y = scores(test)
    losses = -(y * np.log(q) + (1 - y) * np.log(1 - q))
    assert held.n == 1000 and held.skipped == 0
    assert held.log_loss == pytest.approx(losses.mean(), rel=1e-12)
    d = losses - math.log(2)
    assert held.difference == pytest.approx(d.mean(), rel=1e-12)
    assert held.se == pytest.approx(d.std(ddof=1) / math.sqrt(d.size), rel=1e-12)
    assert held.difference < -3 * held.se  # strengths 0.3 apart: the board beats the coin


def test_the_forest_plot_draws_every_model_best_on_top():
    import matplotlib

    matplotlib.use("Agg")
    board = arena_board(arena(n=7))
    ax = board.plot()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    top_down = [name for _, name in sorted(zip(ax.get_yticks(), labels), reverse=True)]
    assert top_down == board.frame.model.tolist()
    assert len(ax.lines) >= 1 and ax.lines[0].get_xdata().tolist() == board.frame.rating.tolist()
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("change, kwargs, message", [
    (lambda df: df.assign(winner=["model_c"] + df.winner.tolist()[1:]), {}, r"winner\[0\] = 'model_c' is neither player"),
    (lambda df: df.assign(model_b=["m0"] + df.model_b.tolist()[1:], model_a=["m0"] + df.model_a.tolist()[1:]), {},
     r"player 'm0' against themself \(row 0\)"),
    (lambda df: df.assign(len_a=[np.nan] + df.len_a.tolist()[1:]), {"style": "len"}, r"'len_a', row 0"),
    (lambda df: df.assign(flat=1.0), {"style": "flat"}, r"style column 'flat' is constant"),
    (lambda df: df, {"anchor": "gpt-9"}, r"anchor='gpt-9' is not a model"),
    (lambda df: df, {"level": 1.5}, r"level=1\.5 must be a confidence level in \(0, 1\)"),
    (lambda df: df, {"level": 0}, r"level=0 must be a confidence level"),
    (lambda df: df, {"ci": "jackknife"}, r"ci='jackknife' is not one of"),
    (lambda df: df, {"ties": "davidson"}, r"Davidson's ties need a draw model"),
    (lambda df: df, {"style": "speed"}, r"style 'speed': no column 'speed'"),
    (lambda df: df.assign(s1=np.arange(400.0), s2=2 * np.arange(400.0) + 1), {"style": ["s1", "s2"]},
     r"style column 's2' is a linear combination of \['s1'\]"),
    (lambda df: df, {"ci": "bootstrap", "n_boot": 10 ** 12}, r"n_boot=1000000000000 must be an integer in \[2, 1000000\]"),
    (lambda df: df, {"ci": "bootstrap", "seed": -1}, r"seed=-1 must be an integer in \[0, 2\^64\)"),
    (lambda df: df.assign(lang=["", *df.lang.tolist()[1:]]), {"category": "lang"},
     r"category column 'lang': vote 0 has no category"),
])
def test_bad_input_is_refused_naming_the_value(change, kwargs, message):
    with pytest.raises(ValueError, match=message):
        arena_board(change(arena(votes=400)), **kwargs)


def test_a_category_that_cannot_be_rated_is_skipped_by_name_and_a_board_of_one_model_is_refused():
    """One thin category (a model that won its one vote there) is skipped with a warning naming it and why; the
    board and the other categories are built (issue 49). A board of one model is refused."""
    df = arena(votes=400)
    df = pd.concat([df, pd.DataFrame({"model_a": ["m0"], "model_b": ["m1"], "winner": ["model_a"], "len_a": [1],
                                      "len_b": [2], "lang": ["fr"]})], ignore_index=True)
    with pytest.warns(UserWarning, match=r"category 'fr': model 'm0' won every one of its 1 votes: its Bradley-Terry "
                                         r"rating is infinite.*: that category's board is skipped, the others are built"):
        board = arena_board(df, category="lang")
    assert "fr" not in board.categories and sorted(board.categories) == sorted(set(df.lang) - {"fr"})
    assert len(board.frame) == len(set(df.model_a) | set(df.model_b))
    one = pd.DataFrame({"model_a": ["a", "b"], "model_b": ["b", "a"], "winner": ["model_a", "model_a"]})
    with pytest.raises(ValueError, match=r"won every|lost every"):
        arena_board(one.iloc[:1])


def test_a_board_in_pieces_is_refused_and_a_model_that_won_every_vote_is_left_out_by_name():
    """A model that won (or lost) every one of its votes has no finite rating: it is left out with its votes and
    named in a warning, the others rated as without it (issue 49: real arenas have such models); a board with fewer
    than two models left is refused, naming the first."""
    pieces = pd.DataFrame({"model_a": ["a", "b", "c", "d"], "model_b": ["b", "a", "d", "c"],
                           "winner": ["model_a", "model_a", "model_a", "model_a"]})
    with pytest.raises(ValueError, match=r"in 2 pieces"):
        arena_board(pieces)
    base = arena(votes=400)
    df = pd.concat([base, pd.DataFrame({"model_a": ["champ"] * 3 + ["m1"], "model_b": ["m0", "m1", "m2", "loser"],
                                        "winner": ["model_a"] * 4})], ignore_index=True)
    with pytest.warns(UserWarning, match=re.escape("the board: left out 2 model(s) that won or lost every one of "
                                                   "their votes (a Bradley-Terry rating would be infinite), with "
                                                   "their votes: 'champ' (won 3 of 3), 'loser' (lost 1 of 1)")):
        board = arena_board(df)
    pd.testing.assert_frame_equal(board.frame, arena_board(base).frame)
    with pytest.raises(ValueError, match=r"model 'a' won every one of its 1 votes: its Bradley-Terry rating is "
                                         r"infinite, and fewer than two models are left"):
        arena_board(pieces.iloc[:1])


def test_summed_pairs_are_refused_with_the_reason():
    log = discrank.read_arena(arena(votes=400))
    with pytest.raises(TypeError, match=r"not a PairwiseData: a PairwiseData has summed the votes"):
        arena_board(log.to_pairs())


def test_style_columns_near_the_float_limit_give_the_board_of_their_scaled_copy():
    df = arena(votes=400)
    sign = np.where(np.arange(400) % 3 == 0, 1.0, -1.0)
    huge = arena_board(df.assign(s=sign * 1e300), style="s")
    unit = arena_board(df.assign(s=sign), style="s")
    pd.testing.assert_frame_equal(huge.frame, unit.frame, rtol=1e-12)
    pd.testing.assert_frame_equal(huge.style, unit.style, rtol=1e-12)


def test_a_well_formed_frame_is_coded_directly_and_gives_the_readers_board():
    from discrank.data.arena import fast_votes

    df = arena(votes=2000, style=1.0)
    labels, ca, cb, score = fast_votes(df, "model_a", "model_b", "winner")
    log = discrank.read_arena(df)
    assert labels.tolist() == sorted(set(log.a) | set(log.b))
    np.testing.assert_array_equal(labels[ca], log.a)
    np.testing.assert_array_equal(labels[cb], log.b)
    np.testing.assert_array_equal(score, log.score)
    direct = arena_board(df, style="len", category="lang")
    read = arena_board(discrank.read_arena(df, style="len"), category=df.lang.to_numpy())
    pd.testing.assert_frame_equal(direct.frame, read.frame)
    pd.testing.assert_frame_equal(direct.categories["de"].frame, read.categories["de"].frame)
    # what the direct coding does not take goes to the readers, which name it
    assert fast_votes(df.assign(winner=df.model_a), "model_a", "model_b", "winner") is None
    assert fast_votes(df.assign(model_a=np.arange(len(df))), "model_a", "model_b", "winner") is None
    named = df.assign(winner=np.where(df.winner == "model_a", df.model_a, df.winner))
    pd.testing.assert_frame_equal(arena_board(named).frame, arena_board(df).frame)


def test_the_reweighted_board_solves_arena_ranks_inverse_propensity_weighted_likelihood(tmp_path, capsys):
    """reweighted=True weighs each vote by 1 / max(its pair's votes, min_pair_count), scaled to a mean of 1
    (arena-rank's reweighted=True): the board's ratings and style coefficient zero the weighted score equations;
    the weights differ from the plain board's and move it; the command line's --reweighted gives the same board."""
    rng = np.random.default_rng(3)
    n = 3000
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    heavy = rng.random(n) < 0.5  # half the votes between m0 and m1
    a[heavy], b[heavy] = 0, 1
    len_a, len_b = rng.integers(100, 900, n), rng.integers(100, 900, n)
    d = 0.3 * (b - a) + 0.8 * (len_a - len_b) / (len_a + len_b)
    win = rng.random(n) < 1 / (1 + np.exp(-d))
    df = pd.DataFrame({"model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b],
                       "winner": np.where(win, "model_a", "model_b"), "len_a": len_a, "len_b": len_b})
    board = arena_board(df, style="len", reweighted=True, min_pair_count=100)
    plain = arena_board(df, style="len")
    rows, x = board.fit.rows, board.fit.x
    pair = np.minimum(rows.a, rows.b) * 6 + np.maximum(rows.a, rows.b)
    counts = np.bincount(pair, minlength=36)[pair]
    weight = 1.0 / np.maximum(counts, 100)
    np.testing.assert_allclose(rows.mult, weight / weight.mean(), rtol=1e-14)
    dlogit = x[rows.a] - x[rows.b] + rows.z @ x[6:]
    r = rows.count * rows.mult * (rows.y - 1.0 / (1.0 + np.exp(-dlogit)))
    score = np.r_[np.bincount(rows.a, r, minlength=6) - np.bincount(rows.b, r, minlength=6), rows.z.T @ r]
    assert np.abs(score).max() < 1e-8 * n
    assert np.abs(board.frame["rating"].to_numpy() - plain.frame.set_index("model").loc[
        board.frame["model"], "rating"].to_numpy()).max() > 1.0
    df.to_csv(tmp_path / "v.csv", index=False)
    assert main(["arena", str(tmp_path / "v.csv"), "--style", "len", "--reweighted", "--min-pair-count", "100",
                 "--out", str(tmp_path / "b")]) == 0
    written = pd.read_csv(tmp_path / "b.csv")
    np.testing.assert_allclose(written["rating"], board.frame["rating"], rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match=r"min_pair_count=0 must be an integer >= 1"):
        arena_board(df, reweighted=True, min_pair_count=0)
