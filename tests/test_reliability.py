"""Reliability: a battery of malformed inputs, properties on random data, numerical extremes,
determinism, interruption and memory."""

import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from reference import random_pairs

from discrank import (DiscDecomposition, Elo, EloPlusPlus, GameLog, MElo, PairwiseData, SchurDecomposition,
                      load)
from discrank.core import _core
from discrank.cli import main
from discrank.exceptions import DisconnectedGraphWarning, NotFittedError, SeparationWarning
from discrank.online import online_disc, online_elo

OK_A, OK_B, OK_S = ["x", "y", "z"], ["y", "z", "x"], [1.0, 0.0, 0.5]


def small_data():
    # every player wins and loses somewhere: a finite maximum-likelihood answer
    return PairwiseData.from_games(["x", "y", "z", "x", "y"], ["y", "z", "x", "z", "x"], [1.0, 0.0, 0.5, 1.0, 1.0])


def incomplete_data():
    return PairwiseData.from_games(["x", "y", "z", "w"], ["y", "z", "w", "x"], [1.0, 0.5, 0.5, 0.5])


def fitted_elo():
    return Elo().fit(small_data())


# ------------------------------------------------------------------------------------ the battery
# (callable, exception type, a fragment of the message that names the value and what is allowed)
BATTERY = [
    # PairwiseData.from_games
    (lambda: PairwiseData.from_games(["x", "y"], ["y"], [1.0, 0.0]), ValueError, "inconsistent lengths"),
    (lambda: PairwiseData.from_games([], [], []), ValueError, "empty"),
    (lambda: PairwiseData.from_games(["x"], ["x"], [1.0]), ValueError, "against themself"),
    (lambda: PairwiseData.from_games(["x", "y"], ["y", "x"], [1.0, np.nan]), ValueError, "nan"),
    (lambda: PairwiseData.from_games(["x", "y"], ["y", "x"], [1.0, 1.5]), ValueError, "1.5"),
    (lambda: PairwiseData.from_games(["x", "y"], ["y", "x"], [1.0, -0.1]), ValueError, "-0.1"),
    (lambda: PairwiseData.from_games(["x", None], ["y", "x"], [1.0, 0.0]), ValueError, "None"),
    (lambda: PairwiseData.from_games(["x", 3], ["y", "x"], [1.0, 0.0]), ValueError, "mixes label types"),
    (lambda: PairwiseData.from_games([1.0, np.nan], [2.0, 1.0], [1.0, 0.0]), ValueError, "nan"),
    (lambda: PairwiseData.from_games(["x"], ["y"], ["win"]), (ValueError, TypeError), "win"),
    (lambda: PairwiseData.from_games(["x"], ["q"], [1.0], labels=["x", "y"]), ValueError, "'q'"),
    (lambda: PairwiseData.from_games(["x"], ["y"], [1.0], min_games=0), ValueError, "min_games"),
    (lambda: PairwiseData.from_games([[1, 2]], [[2, 3]], [1.0]), ValueError, "1-D"),
    # PairwiseData.from_pairs and the constructor
    (lambda: PairwiseData.from_pairs(["x"], ["y"], [0.5], [-2.0]), ValueError, "-2"),
    (lambda: PairwiseData.from_pairs(["x"], ["y"], [0.5], [np.inf]), ValueError, "inf"),
    (lambda: PairwiseData.from_pairs(["x", "y"], ["y", "x"], [0.7, 0.7]), ValueError, "disagreeing"),
    (lambda: PairwiseData(np.array([0]), np.array([5]), [0.5], n_players=3), ValueError, "j[0] = 5"),
    (lambda: PairwiseData(np.array([0, 0]), np.array([1, 1]), [0.5, 0.5]), ValueError, "more than once"),
    (lambda: PairwiseData(np.array([0.5]), np.array([1]), [0.5]), TypeError, "integer player indices"),
    (lambda: PairwiseData(np.array([2**40]), np.array([1]), [0.5]), ValueError, "1099511627776"),
    # from_matrix
    (lambda: PairwiseData.from_matrix(np.ones((2, 3))), ValueError, "square"),
    (lambda: PairwiseData.from_matrix([[0.5, 2.0], [-1.0, 0.5]]), ValueError, "P[0, 1] = 2"),
    (lambda: PairwiseData.from_matrix([[0.5, 0.7], [0.7, 0.5]]), ValueError, "P[0, 1]"),
    # frames and files
    (lambda: GameLog.from_frame(pd.DataFrame({"a": ["x"], "b": ["y"]}), score="s"), ValueError, "column 's'"),
    (lambda: GameLog.from_frame(pd.DataFrame({"a": ["x"], "b": ["y"], "s": ["1-1"]}), score="s"), ValueError, "'1-1'"),
    (lambda: GameLog.from_frame([["x", "y", 1]], score="s"), TypeError, "DataFrame"),
    (lambda: GameLog.from_arrays(["x"], ["y"], [1.0], time=["not a date"]), ValueError, "'not a date'"),
    # model parameters (checked at fit)
    (lambda: Elo(tol=-1.0).fit(small_data()), ValueError, "tol must be a positive finite number, got -1.0"),
    (lambda: Elo(max_iter=1.5).fit(small_data()), ValueError, "max_iter must be an integer >= 1, got 1.5"),
    (lambda: Elo(prior_scale=0.0).fit(small_data()), ValueError, "prior_scale must be a positive number"),
    (lambda: Elo(n_jobs=0).fit(small_data()), ValueError, "n_jobs=0 is not allowed"),
    (lambda: Elo(n_jobs="two").fit(small_data()), TypeError, "n_jobs must be an int or None, got 'two'"),
    (lambda: EloPlusPlus(solver="adam").fit(small_data()), ValueError, "'adam'"),
    (lambda: DiscDecomposition(n_components=0).fit(small_data()), ValueError, "n_components"),
    (lambda: DiscDecomposition(n_components=5).fit(small_data()), ValueError, "n_components"),
    (lambda: DiscDecomposition(loss="hinge").fit(small_data()), ValueError, "'hinge'"),
    (lambda: DiscDecomposition(regularization=-1.0).fit(small_data()), ValueError, "regularization"),
    (lambda: DiscDecomposition(solver="newton").fit(small_data()), ValueError, "'newton'"),
    (lambda: MElo(n_components=-1).fit(small_data()), ValueError, "n_components"),
    (lambda: SchurDecomposition(1).fit(incomplete_data()), ValueError, "missing"),
    (lambda: DiscDecomposition(loss="squared_logit").fit(small_data()), ValueError, "has p = 0.0"),
    (lambda: Elo().fit("games.csv"), TypeError, "PeriodGames, got str"),
    (lambda: Elo().set_params(learning_rate=1), ValueError, "invalid parameter 'learning_rate'"),
    # prediction
    (lambda: Elo().predict_proba("x", "y"), NotFittedError, "not fitted"),
    (lambda: fitted_elo().predict_proba("x", "nobody"), ValueError, "'nobody'"),
    (lambda: fitted_elo().predict_proba(["x", "y"], ["y"]), ValueError, "inconsistent lengths"),
    (lambda: fitted_elo().predict_proba("x"), TypeError, "needs the players a and b"),
    # online updates
    (lambda: online_elo(["x", "y"], ["y"], [1.0, 0.0]), ValueError, "inconsistent lengths"),
    (lambda: online_elo(["x"], ["x"], [1.0]), ValueError, "against themself"),
    (lambda: online_elo(["x"], ["y"], [2.0]), ValueError, "2"),
    (lambda: online_elo(["x"], ["y"], [1.0], step=-1.0), ValueError, "step"),
    (lambda: online_disc(["x", "y"], ["y", "x"], [1.0, 0.0], times=[2, 1]), ValueError, "time"),
    # the compiled core, called directly: never a crash
    (lambda: _core.PairObjective(3, np.array([0], np.int32), np.array([7], np.int32), np.ones(1), np.ones(1)),
     ValueError, "outside [0, 3)"),
    (lambda: _core.PairObjective(3, np.array([0], np.int64), np.array([1], np.int32), np.ones(1), np.ones(1)),
     TypeError, "incompatible"),
    (lambda: _core.scores(np.array([-1], np.int32), np.array([0], np.int32), 2, s=np.zeros(2)), ValueError,
     "outside [0, 2)"),
    (lambda: _core.online_elo(np.array([0], np.int32), np.array([5], np.int32), np.ones(1), 0.1, np.zeros(2)),
     ValueError, "outside [0, 2)"),
    # saved models
    (lambda: load(os.devnull), ValueError, "not a readable discrank model file"),
]


@pytest.mark.parametrize("case", range(len(BATTERY)))
def test_malformed_input_gets_a_specific_error(case):
    fn, exc, fragment = BATTERY[case]
    with pytest.raises(exc) as info:
        fn()
    assert fragment in str(info.value), f"message {str(info.value)!r} does not name {fragment!r}"


def test_the_battery_is_large():
    assert len(BATTERY) >= 40


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"a,b,s\n", "the frame has no rows"),
    (b"a,b,s\nx,y,1\nx,y\n", "no result at row 1"),
    (b"a,b,s\n\xff\xfe,y,1\n", "not UTF-8 text"),
    (b"a,b,s\nx,x,1\n", "against themself"),
    (b"a,b,s\nx,y,nan\n", "no result at row 0"),
    (b"a,b,s\nx,y,1-0\ny,x,draw?\n", "'draw?'"),
])
def test_cli_on_broken_files_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "g.csv"
    path.write_bytes(content)
    assert main(["fit", str(path), "--score", "s", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("discrank: error: ") and "\n" not in err and message in err


def test_cli_on_a_corrupted_model_file(tmp_path, capsys):
    Elo().fit(small_data()).save(tmp_path / "m.npz")
    raw = bytearray((tmp_path / "m.npz").read_bytes())
    raw[len(raw) // 2: len(raw) // 2 + 40] = b"\x00" * 40
    (tmp_path / "m.npz").write_bytes(bytes(raw))
    assert main(["info", str(tmp_path / "m.npz")]) == 2
    assert capsys.readouterr().err.startswith("discrank: error: ")


# ------------------------------------------------------------------------------- numerical extremes
def test_a_player_who_never_loses_gets_a_warning_and_a_finite_rating():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 10, 2000)
    b = (a + rng.integers(1, 10, a.size)) % 10
    score = (rng.random(a.size) < 0.5).astype(float)
    score[a == 0], score[b == 0] = 1.0, 0.0  # player 0 wins every game
    data = PairwiseData.from_games(a, b, score)
    with pytest.warns(SeparationWarning, match=r"e\.g\. 0"):
        model = Elo(prior_scale=np.inf).fit(data)
    assert model.separated_ and model.prior_scale_ == 10.0 and model.converged_
    assert np.all(np.isfinite(model.ratings_))
    assert model.ratings_[0] == model.ratings_.max() and model.ratings_[0] - np.sort(model.ratings_)[-2] > 2
    # the others barely move: compare with the fit without player 0
    rest = Elo(prior_scale=np.inf).fit(PairwiseData.from_games(a[(a != 0) & (b != 0)], b[(a != 0) & (b != 0)],
                                             score[(a != 0) & (b != 0)]))
    centred = model.ratings_[1:] - model.ratings_[1:].mean()
    np.testing.assert_allclose(centred, rest.ratings_, atol=0.05)


def test_a_player_who_never_loses_gets_a_finite_rating_from_the_default_prior_without_a_warning():
    # the default prior (tuned) keeps every rating finite: no separation to warn about, none flagged
    rng = np.random.default_rng(0)
    a = rng.integers(0, 10, 2000)
    b = (a + rng.integers(1, 10, a.size)) % 10
    score = (rng.random(a.size) < 0.5).astype(float)
    score[a == 0], score[b == 0] = 1.0, 0.0  # player 0 wins every game
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SeparationWarning, no ConvergenceWarning
        model = Elo().fit(PairwiseData.from_games(a, b, score))
    assert model.converged_ and model.separated_ is None
    assert np.isfinite(model.prior_scale_) and model.prior_scale_ > 0
    assert model.prior_tuning_["rule"] == "held-out pairs"
    assert np.all(np.isfinite(model.ratings_)) and np.abs(model.ratings_).max() < 10
    assert model.ratings_[0] == model.ratings_.max()


def test_a_dominant_group_is_detected_too():
    # 0 and 1 beat everyone else and split their own games: no single player is unbeaten
    a = np.array([0, 1, 0, 1, 2, 3, 2, 0, 1])
    b = np.array([1, 0, 2, 3, 3, 4, 4, 4, 4])
    s = np.array([1, 1, 1, 1, 1, 0, 0.5, 1, 1.0])
    with pytest.warns(SeparationWarning, match="separate the players into"):
        model = Elo(prior_scale=np.inf).fit(PairwiseData.from_games(a, b, s))
    assert np.all(np.isfinite(model.ratings_)) and min(model.ratings_[:2]) > max(model.ratings_[2:])


def test_a_dominant_group_gets_finite_ratings_from_the_default_prior_without_a_warning():
    a = np.array([0, 1, 0, 1, 2, 3, 2, 0, 1])
    b = np.array([1, 0, 2, 3, 3, 4, 4, 4, 4])
    s = np.array([1, 1, 1, 1, 1, 0, 0.5, 1, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = Elo().fit(PairwiseData.from_games(a, b, s))
    # 8 pairs: too few to hold any out, the fallback N(0, 1) prior
    assert model.prior_tuning_["rule"].startswith("fallback") and model.prior_scale_ == 1.0
    assert model.converged_ and model.separated_ is None
    assert np.all(np.isfinite(model.ratings_)) and min(model.ratings_[:2]) > max(model.ratings_[2:])


def test_all_draws_give_equal_ratings():
    a, b = np.triu_indices(6, 1)
    model = Elo().fit(PairwiseData.from_games(a, b, np.full(a.size, 0.5)))
    np.testing.assert_allclose(model.ratings_, 0.0, atol=1e-12)
    assert not model.separated_


def test_two_players_and_one_pair_with_ten_million_games():
    data = PairwiseData.from_pairs(["a"], ["b"], [0.75], [1e7])
    model = Elo(prior_scale=np.inf).fit(data)
    assert model.ratings_[0] - model.ratings_[1] == pytest.approx(np.log(3.0), rel=1e-9)


def test_very_unbalanced_counts():
    # a pair with 1e6 games beside pairs with one game each: the heavy pair fixes its gap exactly
    data = PairwiseData.from_pairs(["a", "b", "c"], ["b", "c", "a"], [0.8, 0.5, 0.5], [1e6, 1.0, 1.0])
    model = Elo().fit(data)
    assert model.converged_
    assert model.ratings_[0] - model.ratings_[1] == pytest.approx(np.log(4.0), abs=1e-4)


def test_pieces_are_centred_each():
    data = PairwiseData.from_games(["a", "b", "c", "d"], ["b", "a", "d", "c"], [1.0, 0.0, 1.0, 0.5])
    with pytest.warns(DisconnectedGraphWarning), pytest.warns(SeparationWarning):
        model = Elo(prior_scale=np.inf).fit(data)
    assert model.ratings_[:2].sum() == pytest.approx(0.0, abs=1e-12)
    assert model.ratings_[2:].sum() == pytest.approx(0.0, abs=1e-12)


def test_pieces_are_centred_each_with_the_default_prior_and_only_the_pieces_are_warned_about():
    data = PairwiseData.from_games(["a", "b", "c", "d"], ["b", "a", "d", "c"], [1.0, 0.0, 1.0, 0.5])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = Elo().fit(data)
    assert [w.category for w in caught] == [DisconnectedGraphWarning]  # no SeparationWarning
    assert model.separated_ is None and model.prior_scale_ == 1.0 and model.converged_
    assert model.ratings_[:2].sum() == pytest.approx(0.0, abs=1e-12)
    assert model.ratings_[2:].sum() == pytest.approx(0.0, abs=1e-12)
    assert model.ratings_[0] > model.ratings_[1] and model.ratings_[2] > model.ratings_[3]


def test_disc_with_k_equal_to_half_the_players():
    rng = np.random.default_rng(1)
    n = 8
    A = rng.normal(size=(n, n))
    P = 1 / (1 + np.exp(-(A - A.T)))
    model = DiscDecomposition(n_components=n // 2, loss="squared_logit", random_state=0, prior_scale=np.inf).fit(PairwiseData.from_matrix(P))
    assert model.converged_
    assert model.mse(PairwiseData.from_matrix(P)) < 1e-12  # k = n/2 components represent any game exactly


def test_a_million_players_with_few_games_each():
    rng = np.random.default_rng(2)
    n, games = 1_000_000, 3_000_000
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, 1000, games)) % n
    s = (rng.random(games) < 0.5).astype(float)
    data = PairwiseData.from_games(a, b, s)
    with pytest.warns(Warning):  # separated players and isolated ones: warned, not fatal
        model = Elo(tol=1e-6).fit(data)
    assert model.converged_ and np.all(np.isfinite(model.ratings_))
    assert _core.PairObjective(data.n_players, data.i, data.j, data.p, np.ones(data.n_pairs)).strategy == "gather"


# ------------------------------------------------------------------------------ determinism and threads
@pytest.mark.parametrize("make", [lambda t: Elo(n_jobs=t), lambda t: DiscDecomposition(2, random_state=3, n_jobs=t)])
def test_same_seed_same_threads_bitwise_and_any_threads_within_1e_10(make):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 300, 60_000)
    b = (a + rng.integers(1, 300, a.size)) % 300
    s = (rng.random(a.size) < 1 / (1 + np.exp(-(np.sin(a) - np.sin(b))))).astype(float)
    data = PairwiseData.from_games(a, b, s)

    def params(t):
        m = make(t).fit(data)
        return np.concatenate([m.ratings_]) if hasattr(m, "ratings_") else np.concatenate([m.u_.ravel(), m.v_.ravel()])

    one = params(1)
    assert np.array_equal(one, params(1))
    for t in (2, 4):
        np.testing.assert_allclose(params(t), one, rtol=0, atol=1e-10)


def test_disc_fit_in_tile_order_is_bitwise_the_same_for_any_thread_count():
    # more than 2048 players: the fit moves the pairs into tile order (a counting sort over per-thread
    # ranges, discrank.solvers._fitdata) before the kernel runs; both are fixed by the data, not the threads
    rng = np.random.default_rng(17)
    n = 4500
    i, j = random_pairs(rng, n, 60_000)
    theta = rng.uniform(0, 2 * np.pi, n)
    data = PairwiseData(i, j, 1 / (1 + np.exp(-(np.sin(theta[i] - theta[j]) + 0.1 * (j - i) / n))))
    fits = [DiscDecomposition(2, random_state=1, n_jobs=t).fit(data) for t in (1, 3, 1)]
    assert data.n_players > 2048 and all(f.converged_ for f in fits)
    for f in fits[1:]:
        assert np.array_equal(f.u_, fits[0].u_) and np.array_equal(f.v_, fits[0].v_) and f.loss_ == fits[0].loss_


# ------------------------------------------------------------------------------ interruption and memory
def test_ctrl_c_stops_a_long_fit_and_leaves_the_process_usable():
    # the child restores Python's Ctrl-C handler: a run started in the background of a non-interactive
    # shell (nohup ... &) inherits SIGINT ignored, and Python keeps an inherited SIG_IGN
    script = textwrap.dedent("""
        import signal, sys, time, numpy as np
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from discrank import DiscDecomposition, Elo, PairwiseData
        rng = np.random.default_rng(0)
        a = rng.integers(0, 20000, 2_000_000); b = (a + rng.integers(1, 20000, a.size)) % 20000
        data = PairwiseData.from_games(a, b, (rng.random(a.size) < 0.5).astype(float))
        print("ready", flush=True)
        t0 = time.perf_counter()
        try:
            DiscDecomposition(3, tol=1e-12, max_iter=100000, random_state=0).fit(data)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print(f"interrupted after {time.perf_counter() - t0:.2f} s", flush=True)
        small = PairwiseData.from_games([0, 1, 2], [1, 2, 0], [1.0, 0.5, 0.0])
        print("usable", Elo().fit(small).converged_, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "interrupted after" in out and "usable True" in out
    assert time.perf_counter() - t0 < 5.0  # prompt: the kernel calls take milliseconds


def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux) to read the RSS")
def test_no_memory_growth_over_1000_fits():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 50, 3000)
    b = (a + rng.integers(1, 50, a.size)) % 50
    data = PairwiseData.from_games(a, b, (rng.random(a.size) < 0.5).astype(float))
    for _ in range(50):  # warm up allocators and caches
        Elo().fit(data)
        DiscDecomposition(1, random_state=0).fit(data)
    before = rss()
    for _ in range(500):
        Elo().fit(data)
        DiscDecomposition(1, random_state=0).fit(data)
    growth = rss() - before
    assert growth < 8 * 2**20, f"RSS grew by {growth / 2**20:.1f} MiB over 1000 fits"
