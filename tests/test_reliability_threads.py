"""Reliability of threads, seeds and the compiled core's boundary (issue 15): thread counts are clamped
(in Python with a ThreadCountWarning, in the core silently), seeds are checked, concurrent fits leave the
BLAS thread counts as they found them, and strided arrays are accepted with the contiguous answer."""

import os
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController, threadpool_info

from discrank import (DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, GameLog, MElo, PairwiseData,
                      SchurDecomposition)
from discrank.core import _core
from discrank.evaluation._bootstrap import bootstrap
from discrank.exceptions import ThreadCountWarning
from discrank._util import threads as _threads
from discrank._util.checks import check_random_state
from discrank._util.threads import one_blas_thread, resolve_n_jobs, thread_limit
from discrank.online import online_disc, online_elo

HUGE = 10**6


def round_robin(n=6, rounds=3, seed=0):
    """Every pair of n players meets `rounds` times; random results, so that no player is separated."""
    rng = np.random.default_rng(seed)
    a, b = np.triu_indices(n, 1)
    a, b = np.tile(a, rounds), np.tile(b, rounds)
    score = rng.choice([0.0, 0.5, 1.0], size=a.size)
    score[: n * (n - 1) // 2] = 0.5  # a draw in every pair: a finite optimum
    return a.astype(np.int64), b.astype(np.int64), score


def data():
    return PairwiseData.from_games(*round_robin())


MODELS = {
    "Elo": lambda n_jobs: Elo(n_jobs=n_jobs),
    "EloPlusPlus": lambda n_jobs: EloPlusPlus(n_jobs=n_jobs),
    "DiscDecomposition": lambda n_jobs: DiscDecomposition(1, random_state=0, n_jobs=n_jobs),
    "MElo": lambda n_jobs: MElo(1, random_state=0, n_jobs=n_jobs),
    "DiscDecompositionCV": lambda n_jobs: DiscDecompositionCV([1], cv=2, random_state=0, prior_scale=1.0,
                                                              n_jobs=n_jobs),
    "SchurDecomposition": lambda n_jobs: SchurDecomposition(1, n_jobs=n_jobs),
}


# ------------------------------------------------------------------------------------ thread counts
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux")  # the core is built with OpenMP (CMakeLists.txt)
def test_thread_limit_is_four_threads_per_available_processor_at_most_1024():
    assert thread_limit() == _core.thread_limit() == min(1024, 4 * len(os.sched_getaffinity(0)))


@pytest.mark.parametrize("name", list(MODELS))
def test_n_jobs_above_the_limit_is_clamped_with_a_warning_and_the_same_fit(name):
    d = data()
    with pytest.warns(ThreadCountWarning, match=rf"n_jobs={HUGE} .* using {thread_limit()}"):
        clamped = MODELS[name](HUGE).fit(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ThreadCountWarning)
        at_limit = MODELS[name](thread_limit()).fit(d)
    assert clamped._n_threads == thread_limit()
    assert np.array_equal(clamped.predict_proba(d), at_limit.predict_proba(d))


@pytest.mark.parametrize("n_jobs", [2**31 - 1, 2**31, 2**63, 10**30, np.int64(2**40)])
def test_n_jobs_beyond_int32_is_clamped_not_a_type_error(n_jobs):
    with pytest.warns(ThreadCountWarning, match=f"n_jobs={int(n_jobs)} "):
        model = Elo(n_jobs=n_jobs).fit(data())
    assert model._n_threads == thread_limit()


def test_resolve_n_jobs_keeps_the_sklearn_convention():
    cores = os.cpu_count() or 1
    assert resolve_n_jobs(-1) == cores
    assert resolve_n_jobs(-cores) == 1
    assert resolve_n_jobs(1) == 1
    assert resolve_n_jobs(thread_limit()) == thread_limit()


@pytest.mark.parametrize("n_jobs", [-10**9, -(os.cpu_count() or 1) - 1, -2**70])
def test_negative_n_jobs_beyond_the_cores_names_the_value_and_the_range(n_jobs):
    with pytest.raises(ValueError, match=rf"n_jobs={n_jobs} .* must be in \[-{os.cpu_count() or 1}, -1\]"):
        Elo(n_jobs=n_jobs).fit(data())


def test_n_jobs_zero_and_non_integers_stay_errors():
    with pytest.raises(ValueError, match="n_jobs=0"):
        Elo(n_jobs=0).fit(data())
    with pytest.raises(TypeError, match="n_jobs must be an int or None, got 2.0"):
        Elo(n_jobs=2.0).fit(data())


def test_one_warning_per_fit():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Elo(n_jobs=HUGE).fit(data())
        DiscDecomposition(1, random_state=0, n_jobs=HUGE).fit(data())
    assert sum(issubclass(w.category, ThreadCountWarning) for w in caught) == 2


def _core_calls(n_threads):
    """Every binding that takes n_threads, called with n_threads: their results."""
    a, b, score = round_robin()
    ia, ib = a.astype(np.int32), b.astype(np.int32)
    out = list(_core.aggregate_games(6, ia, ib, score, None, n_threads))
    out += list(_core.group_pairs(6, np.minimum(ia, ib), np.maximum(ia, ib), n_threads))
    codes = _core.factorize_ints(a, b, 100, n_threads)
    out += list(codes)
    i, j = out[0], out[1]
    p = out[3] / out[2]
    w = np.full(i.size, 1.0 / i.size)
    obj = _core.PairObjective(6, i, j, p, w)
    s = np.linspace(-1.0, 1.0, 6)
    U, V = np.linspace(0, 1, 6).reshape(6, 1), np.linspace(1, 2, 6).reshape(6, 1)
    curv = np.zeros(i.size)
    out += [x for x in obj.evaluate(_core.LOSS_BCE, U=U, V=V, s=s, grad_u=True, grad_v=True, grad_s=True,
                                    curv=curv, n_threads=n_threads) if x is not None]
    out += [curv, obj.hessp_s(curv, s, n_threads), obj.player_sums(w, n_threads), obj.opponent_sums(w, s, n_threads)]
    out += list(obj.score_sums(n_threads)) + [obj.stream_limit(_core.LOSS_BCE, n_threads)]
    out += [_core.scores(ia, ib, 6, U=U, V=V, s=s, n_threads=n_threads)]
    ti, tj, moved = _core.tile_pairs(6, i, j, [p, w], 1, n_threads)
    return out + [ti, tj] + list(moved)


def test_the_core_clamps_thread_counts_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = _core_calls(HUGE)
        at_limit = _core_calls(thread_limit())
    assert len(huge) == len(at_limit)
    for x, y in zip(huge, at_limit):
        assert np.array_equal(x, y)


def _run_child(code, env, limit_bytes=None):
    preexec = None
    if limit_bytes is not None:
        import resource

        def preexec():
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=300, preexec_fn=preexec)


CHILD = """
    import warnings
    import numpy as np
    from discrank import DiscDecomposition, Elo, PairwiseData
    from discrank._util.threads import thread_limit
    d = PairwiseData.from_games(["x", "y", "z", "x", "y"], ["y", "z", "x", "z", "x"], [1.0, 0.0, 0.5, 1.0, 1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = Elo(prior_scale=np.inf).fit(d)
        q = Elo(prior_scale=np.inf, n_jobs=thread_limit()).fit(d)
        DiscDecomposition(1, random_state=0).fit(d)
    assert np.array_equal(r.ratings_, q.ratings_), (r.ratings_, q.ratings_)
    print("|".join(str(w.message) for w in caught if type(w.message).__name__ == "ThreadCountWarning"))
"""


@pytest.mark.parametrize("omp", ["1000000", "5000"])
def test_huge_omp_num_threads_is_clamped_with_a_warning(omp):
    done = _run_child(CHILD, {"OMP_NUM_THREADS": omp})
    assert done.returncode == 0, done.stderr[-2000:]
    warned = done.stdout.strip().split("|")
    assert len(warned) == 2 and all(f"OMP_NUM_THREADS asks for {omp} threads" in m for m in warned), done.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS on Linux")
def test_thousands_of_threads_under_a_memory_cap_do_not_kill_the_process():
    # 5000 or 10000 threads of 8 MiB stacks need 40 to 80 GiB of address space: under a 4 GiB cap libgomp
    # said "Thread creation failed" and exited. Clamped, the fits need a handful of threads.
    code = CHILD + """
    r2 = Elo(prior_scale=np.inf, n_jobs=10000).fit(d)
    assert np.array_equal(r2.ratings_, q.ratings_)
    """
    done = _run_child(code, {"OMP_NUM_THREADS": "5000"}, limit_bytes=4 << 30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "OMP_NUM_THREADS asks for 5000 threads" in done.stdout


def test_bootstrap_clamps_its_workers_with_a_warning_and_the_same_result():
    a, b, score = round_robin()
    with pytest.warns(ThreadCountWarning, match=f"n_jobs={HUGE} "):
        clamped = bootstrap(Elo(prior_scale=1.0), a, b, score, n_boot=4, n_jobs=HUGE)
    serial = bootstrap(Elo(prior_scale=1.0), a, b, score, n_boot=4, n_jobs=1)
    np.testing.assert_allclose(clamped.scores, serial.scores, rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------ seeds
BAD_SEEDS = [
    ("abc", TypeError, "random_state must be None, an integer >= 0.*got 'abc'"),
    (-1, ValueError, "random_state must be None, an integer >= 0.*got -1"),
    (1.5, TypeError, "random_state .*got 1.5"),
    (True, TypeError, "random_state .*got True"),
    ([3, -1], ValueError, r"random_state .*got \[3, -1\]"),
    (["a"], ValueError, r"random_state .*got \['a'\]"),
    (object(), TypeError, "random_state .*of type object"),
    (np.array(3), TypeError, r"random_state .*got array\(3\)"),
]


@pytest.mark.parametrize("seed,exc,match", BAD_SEEDS)
@pytest.mark.parametrize("make", [lambda s: DiscDecomposition(1, random_state=s), lambda s: MElo(1, random_state=s),
                                  lambda s: DiscDecompositionCV([1], cv=2, random_state=s)])
def test_a_bad_random_state_names_the_parameter_and_the_value(make, seed, exc, match):
    with pytest.raises(exc, match=match):
        make(seed).fit(data())


@pytest.mark.parametrize("seed", [np.int64(3), np.random.SeedSequence(3)])
def test_a_good_random_state_gives_the_fit_of_its_integer(seed):
    d = data()
    ref = DiscDecomposition(1, random_state=3).fit(d).predict_proba(d)
    assert np.array_equal(DiscDecomposition(1, random_state=seed).fit(d).predict_proba(d), ref)


def test_check_random_state_accepts_what_default_rng_accepts():
    for seed in [None, 0, 2**70, [1, 2], np.random.default_rng(1), np.random.PCG64(1), np.random.SeedSequence(1)]:
        assert check_random_state(seed) is seed
        np.random.default_rng(seed)


@pytest.mark.parametrize("seed,exc", [("abc", TypeError), (-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_a_bad_bootstrap_seed_names_the_value(seed, exc):
    a, b, score = round_robin()
    with pytest.raises(exc, match=f"seed must be an integer >= 0.*got {seed!r}"):
        bootstrap(Elo(), a, b, score, n_boot=2, seed=seed)


# ------------------------------------------------------------------------------------ BLAS threads
def _blas_counts():
    return [x["num_threads"] for x in threadpool_info() if x["user_api"] == "blas"]


@pytest.fixture
def blas_at_three():
    """The BLAS pools at 3 threads (not 1, so that a limit left behind shows), no thread holding
    threadpoolctl's control of OpenBLAS; restored afterwards."""
    info = [x for x in threadpool_info() if x["user_api"] == "blas"]
    if not info or any(x.get("threading_layer") == "openmp" for x in info):
        pytest.skip("needs a BLAS with a process-wide pool")
    limiter = ThreadpoolController().limit(limits=3, user_api="blas")
    _threads._release_blas_control()
    assert _blas_counts() == [3] * len(info)
    yield [3] * len(info)
    limiter.restore_original_limits()
    _threads._release_blas_control()


def test_the_blas_limit_is_reference_counted_across_threads(blas_at_three):
    # A enters, B enters, A leaves while B is inside, B leaves: the limit holds until B leaves, and the
    # counts are then the original ones (per-fit limits restored 3 when A left, then 1 when B left).
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with one_blas_thread():
            seen["A inside"] = _blas_counts()
            a_in.set()
            b_in.wait(60)
        a_out.set()

    def second():
        a_in.wait(60)
        with one_blas_thread():
            b_in.set()
            a_out.wait(60)
            seen["B inside after A left"] = _blas_counts()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ones = [1] * len(blas_at_three)
    assert seen == {"A inside": ones, "B inside after A left": ones}
    assert _blas_counts() == blas_at_three


def test_concurrent_fits_in_threads_restore_the_blas_thread_counts(blas_at_three):
    d = data()
    errors = []

    def work():
        try:
            for _ in range(5):
                DiscDecomposition(1, random_state=0, n_jobs=1, prior_scale=1.0).fit(d)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _blas_counts() == blas_at_three


def test_bootstrap_workers_restore_the_blas_thread_counts(blas_at_three):
    a, b, score = round_robin()
    bootstrap(DiscDecomposition(1, random_state=0, prior_scale=1.0), a, b, score, n_boot=8, n_jobs=4)
    assert _blas_counts() == blas_at_three


def test_a_fit_in_the_main_thread_restores_the_blas_thread_counts(blas_at_three):
    DiscDecomposition(1, random_state=0, prior_scale=1.0).fit(data())
    assert _blas_counts() == blas_at_three


# ------------------------------------------------------------------------------------ strided arrays
def _same_data(x, y):
    assert x.n_players == y.n_players and np.array_equal(x.labels, y.labels)
    for name in ("i", "j", "p", "n_games"):
        u, v = getattr(x, name), getattr(y, name)
        assert (u is None) == (v is None), name
        if u is not None:
            assert np.array_equal(u, v), name


def test_from_games_takes_a_strided_score_and_columns_of_a_matrix():
    a, b, score = round_robin()
    wide = np.repeat(score, 2)
    G = np.column_stack([a, b, score]).astype(np.float64)
    ref = PairwiseData.from_games(a, b, score)
    _same_data(PairwiseData.from_games(a, b, wide[::2]), ref)
    _same_data(PairwiseData.from_games(G[:, 0].astype(np.int64), G[:, 1].astype(np.int64), G[:, 2]), ref)
    _same_data(PairwiseData.from_games(np.repeat(a, 2)[::2], np.repeat(b, 2)[::2], score), ref)
    _same_data(PairwiseData.from_games(a[::-1], b[::-1], score[::-1]).subset(np.ones(ref.n_pairs, bool)),
               PairwiseData.from_games(a[::-1].copy(), b[::-1].copy(), score[::-1].copy()))


def test_from_pairs_takes_strided_n_games():
    a, b = np.array([0, 1, 2]), np.array([1, 2, 0])
    p, counts = np.array([0.25, 0.5, 0.75]), np.array([4.0, 2.0, 8.0])
    ref = PairwiseData.from_pairs(a, b, p, n_games=counts)
    _same_data(PairwiseData.from_pairs(a, b, np.repeat(p, 3)[::3], n_games=np.repeat(counts, 2)[::2]), ref)
    _same_data(PairwiseData.from_pairs(a, b, p, n_games=np.column_stack([counts, counts])[:, 1]), ref)


def test_the_pairwise_data_constructor_takes_strided_arrays():
    i, j = np.array([0, 0, 1]), np.array([1, 2, 2])
    p, counts = np.array([0.25, 0.5, 0.75]), np.array([4.0, 2.0, 8.0])
    ref = PairwiseData(i, j, p, counts)
    _same_data(PairwiseData(np.repeat(i, 2)[::2], np.repeat(j, 2)[::2], np.repeat(p, 2)[::2],
                            np.repeat(counts, 2)[::2]), ref)


def test_game_log_from_arrays_takes_strided_arrays():
    a, b, score = round_robin()
    ref = GameLog.from_arrays(a, b, score).to_pairs()
    _same_data(GameLog.from_arrays(np.repeat(a, 2)[::2], b, np.repeat(score, 2)[::2]).to_pairs(), ref)


@pytest.mark.parametrize("online", [online_elo, online_disc])
def test_the_online_updates_take_strided_arrays(online):
    a, b, score = round_robin()
    ref = online(a, b, score)
    got = online(np.repeat(a, 2)[::2], np.repeat(b, 2)[::2], np.repeat(score, 2)[::2])
    assert np.array_equal(got.ratings, ref.ratings) and np.array_equal(got.predictions, ref.predictions)


def test_predict_proba_takes_strided_label_arrays():
    model = Elo().fit(data())
    a, b = np.array([0, 1, 2, 3, 4, 5]), np.array([5, 4, 3, 2, 1, 0])
    ref = model.predict_proba(a, b)
    assert np.array_equal(model.predict_proba(np.repeat(a, 2)[::2], np.column_stack([b, a])[:, 0]), ref)
    assert np.array_equal(model.decision_function(a[::-1], b[::-1]), model.decision_function(a[::-1].copy(),
                                                                                                b[::-1].copy()))


def _strided(x):
    """A view of x with the same values and a stride of two elements (or Fortran order for a matrix)."""
    if x.ndim == 2:
        return np.asfortranarray(x) if x.shape[1] > 1 else np.repeat(x, 2, axis=1)[:, ::2]
    view = np.repeat(x, 2)[::2]
    assert not view.flags.c_contiguous and np.array_equal(view, x)
    return view


def test_every_core_binding_gives_the_contiguous_answer_on_strided_input():
    a, b, score = round_robin()
    ia, ib = a.astype(np.int32), b.astype(np.int32)
    i, j, games, wins = _core.aggregate_games(6, ia, ib, score, None)
    p = wins / games
    w = np.full(i.size, 1.0 / i.size)
    s = np.linspace(-1.0, 1.0, 6)
    U, V = np.linspace(0, 1, 12).reshape(6, 2), np.linspace(1, 2, 12).reshape(6, 2)
    ST = _strided
    calls = {
        "aggregate_games": lambda f: _core.aggregate_games(6, f(ia), f(ib), f(score), f(np.full(score.size, 2.0))),
        "group_pairs": lambda f: _core.group_pairs(6, f(np.minimum(ia, ib)), f(np.maximum(ia, ib))),
        "factorize_ints": lambda f: _core.factorize_ints(f(a), f(b), 100),
        "connected_pieces": lambda f: _core.connected_pieces(6, f(i), f(j)),
        "beat_pieces": lambda f: _core.beat_pieces(6, f(i), f(j), f(p)),
        "tile_pairs": lambda f: _core.tile_pairs(6, f(i), f(j), [f(p), f(w)], 1),
        "scores": lambda f: _core.scores(f(ia), f(ib), 6, U=f(U), V=f(V), s=f(s)),
        "evaluate": lambda f: _core.PairObjective(6, f(i), f(j), f(p), f(w)).evaluate(
            _core.LOSS_BCE, U=f(U), V=f(V), s=f(s), offset=f(np.zeros(i.size)), grad_u=True, grad_v=True,
            grad_s=True),
        "hessp_s": lambda f: _core.PairObjective(6, f(i), f(j), f(p), f(w)).hessp_s(f(w), f(s)),
        "player_sums": lambda f: _core.PairObjective(6, f(i), f(j), f(p), f(w)).player_sums(f(w)),
        "opponent_sums": lambda f: _core.PairObjective(6, f(i), f(j), f(p), f(w)).opponent_sums(f(w), f(s)),
        "score_sums": lambda f: _core.PairObjective(6, f(i), f(j), f(p), f(w)).score_sums(),
        "online_elo": lambda f: _core.online_elo(f(ia), f(ib), f(score), 0.1, np.zeros(6), 5),
        "fast_exp_log1p": lambda f: _core.fast_exp_log1p(f(s)),
    }
    for name, call in calls.items():
        got, ref = call(ST), call(lambda x: x)
        flat_got = [x for x in (got if isinstance(got, tuple) else [got]) if x is not None]
        flat_ref = [x for x in (ref if isinstance(ref, tuple) else [ref]) if x is not None]
        assert len(flat_got) == len(flat_ref), name
        for x, y in zip(flat_got, flat_ref):
            if isinstance(x, list):
                assert all(np.array_equal(u, v) for u, v in zip(x, y)), name
            else:
                assert np.array_equal(x, y), name


def test_contiguous_input_of_the_right_dtype_is_borrowed_not_copied():
    # PairObjective keeps a reference to each array it reads (its pointers stay valid): to the caller's
    # array itself when it is C-contiguous of the right dtype, to a copy when it is strided.
    i, j = np.array([0, 1], dtype=np.int32), np.array([1, 2], dtype=np.int32)
    y, w = np.array([0.5, 0.7]), np.ones(2)
    before = [sys.getrefcount(x) for x in (i, j, y, w)]
    obj = _core.PairObjective(3, i, j, y, w)
    assert [sys.getrefcount(x) for x in (i, j, y, w)] == [r + 1 for r in before]
    wide = np.array([0.5, 0.0, 0.7, 0.0])
    strided = wide[::2]
    base = sys.getrefcount(wide), sys.getrefcount(strided)
    obj2 = _core.PairObjective(3, i, j, strided, w)
    assert (sys.getrefcount(wide), sys.getrefcount(strided)) == base
    s = np.zeros(3)
    assert obj.evaluate(_core.LOSS_BCE, s=s)[0] == obj2.evaluate(_core.LOSS_BCE, s=s)[0]


def test_wrong_dtypes_and_lists_are_still_refused():
    i, j, y = np.array([0, 1], dtype=np.int32), np.array([1, 2], dtype=np.int32), np.array([0.5, 0.7])
    with pytest.raises(TypeError, match="incompatible constructor arguments"):
        _core.PairObjective(3, i.astype(np.int64), j, y, np.ones(2))
    with pytest.raises(TypeError, match="incompatible constructor arguments"):
        _core.PairObjective(3, i, j, np.repeat(y, 2).astype(np.float32)[::2], np.ones(2))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        _core.scores([0, 1], [1, 2], 3, s=np.zeros(3))


def test_arrays_the_core_writes_into_must_be_contiguous():
    # (a strided view of one element is C-contiguous for numpy: the views here have two)
    a, b, score = np.array([0, 1], np.int32), np.array([1, 2], np.int32), np.ones(2)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        _core.online_elo(a, b, score, 0.1, np.zeros(6)[::2])
    obj = _core.PairObjective(3, a, b, score, np.ones(2))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        obj.evaluate(_core.LOSS_BCE, s=np.zeros(3), curv=np.zeros(4)[::2])
