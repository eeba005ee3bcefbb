"""The hostile-input battery: every case runs in its own process, so a crash of the interpreter (a
segfault, libgomp's exit on a failed allocation, an abort) is a failed case, not a dead test run.

A case is ``(name, code, expect)``. ``code`` runs with the names in ``PRELUDE`` in scope. ``expect`` is
one of:

- ``raises(ExceptionName, fragment)``: the code raises that exception (or a subclass, by name of any
  class in its MRO) and ``fragment`` is in its message (case-insensitive);
- ``warns(WarningName, fragment)``: the code finishes, and a warning of that category whose message holds
  ``fragment`` was emitted;
- ``ok(check)``: the code finishes and the boolean expression ``check`` holds in its namespace (a correct
  answer, not merely no error).

The children are forked from a forkserver that has already imported discrank, so a case costs a few
milliseconds, not an interpreter start-up.
"""

import multiprocessing as mp
import os
import textwrap

import pytest

PRELUDE = textwrap.dedent("""
    import io, os, sys, warnings, tempfile, pathlib
    import numpy as np
    import pandas as pd
    import discrank
    from discrank import (DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, GameLog, MElo,
                          PairwiseData, SchurDecomposition, load)
    from discrank.core import _core
    from discrank.online import online_disc, online_elo
    from discrank.cli import main as cli
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="hostile-"))

    def small():
        return PairwiseData.from_games(["x", "y", "z", "x", "y"], ["y", "z", "x", "z", "x"],
                                       [1.0, 0.0, 0.5, 1.0, 1.0])
""")


def raises(exc, fragment):
    return ("raises", exc, fragment)


def warns(category, fragment):
    return ("warns", category, fragment)


def ok(check):
    return ("ok", check, None)


CASES = []


def case(name, code, expect, env=None):
    """Add a case; ``env`` (a dict) runs it in a new interpreter with those environment variables."""
    CASES.append((name, textwrap.dedent(code).strip(), expect, env))


# ------------------------------------------------------------------ threads, the core's boundary, params
case("elo_n_jobs_zero", "Elo(n_jobs=0).fit(small())", raises("ValueError", "n_jobs=0"))
case("elo_draws_equal", "r = Elo(prior_scale=np.inf).fit(PairwiseData.from_games(['x', 'y'], ['y', 'x'], [0.5, 0.5]))",
     ok("abs(r.ratings_[0] - r.ratings_[1]) < 1e-9"))
case("omp_env_small", "r = Elo().fit(small())", ok("np.all(np.isfinite(r.ratings_))"), env={"OMP_NUM_THREADS": "1"})

# thread counts: clamped to thread_limit() (4 per processor, at most 1024) with a ThreadCountWarning;
# before, these crashed the interpreter (segfault, libgomp's exit, "Thread creation failed")
RR = "from discrank._util.threads import thread_limit\n" \
     "ra, rb = np.triu_indices(5, 1); rs = np.r_[np.full(10, 0.5), np.linspace(0, 1, 10)]\n" \
     "ra, rb = np.tile(ra, 2), np.tile(rb, 2); rr = PairwiseData.from_games(ra, rb, rs)\n"
case("elo_n_jobs_100000", "Elo(n_jobs=100000).fit(small())", warns("ThreadCountWarning", "n_jobs=100000 "))
case("disc_n_jobs_1e6", "DiscDecomposition(1, n_jobs=10**6, random_state=0).fit(small())",
     warns("ThreadCountWarning", "n_jobs=1000000 "))
case("core_scores_n_threads_1e6",
     "x = _core.scores(np.array([0, 1], np.int32), np.array([1, 2], np.int32), 3, s=np.array([0.1, 0.2, 0.4]), "
     "n_threads=10**6)", ok("np.max(np.abs(x - np.array([-0.1, -0.2]))) < 1e-12"))
case("core_aggregate_n_threads_1e6",
     "x = _core.aggregate_games(3, np.array([0, 1, 2], np.int32), np.array([1, 2, 0], np.int32), np.ones(3), None, 10**6)",
     ok("x[0].tolist() == [0, 0, 1] and x[1].tolist() == [1, 2, 2] and x[3].tolist() == [1.0, 0.0, 1.0]"))
case("omp_env_1e6_warns", "r = Elo().fit(small())", warns("ThreadCountWarning", "OMP_NUM_THREADS asks for 1000000"),
     env={"OMP_NUM_THREADS": "1000000"})
case("omp_env_1e6_same_fit", RR + "r = DiscDecomposition(1, random_state=0).fit(rr)\n"
     "q = DiscDecomposition(1, random_state=0, n_jobs=thread_limit()).fit(rr)",
     ok("np.array_equal(r.predict_proba(rr), q.predict_proba(rr))"), env={"OMP_NUM_THREADS": "1000000"})
case("omp_env_5000_warns", "r = Elo().fit(small())", warns("ThreadCountWarning", "OMP_NUM_THREADS asks for 5000"),
     env={"OMP_NUM_THREADS": "5000"})
case("elo_n_jobs_int32_max", "Elo(n_jobs=2**31 - 1).fit(small())", warns("ThreadCountWarning", "n_jobs=2147483647 "))
case("elo_n_jobs_2_31", "Elo(n_jobs=2**31).fit(small())", warns("ThreadCountWarning", "n_jobs=2147483648 "))
case("elo_n_jobs_2_64", "r = Elo(n_jobs=2**64).fit(small())", ok("r._n_threads == discrank._util.threads.thread_limit()"))
for _n in (2048, 4096, 10000):
    case(f"elo_n_jobs_{_n}_same_fit", RR + f"r = Elo(n_jobs={_n}).fit(rr)\nq = Elo(n_jobs=thread_limit()).fit(rr)",
         ok("np.array_equal(r.ratings_, q.ratings_)"))
case("elo_n_jobs_minus_1e9", "Elo(n_jobs=-10**9).fit(small())", raises("ValueError", "n_jobs=-1000000000 "))
case("elo_n_jobs_below_cores", "Elo(n_jobs=-(os.cpu_count() + 1)).fit(small())", raises("ValueError", "must be in [-"))
case("elo_n_jobs_minus_one_same_fit", RR + "r = Elo(n_jobs=-1).fit(rr)\nq = Elo(n_jobs=os.cpu_count()).fit(rr)",
     ok("np.array_equal(r.ratings_, q.ratings_)"))
case("elo_n_jobs_float", "Elo(n_jobs=2.0).fit(small())", raises("TypeError", "got 2.0"))
case("eloplusplus_n_jobs_huge", "EloPlusPlus(n_jobs=10**9).fit(small())", warns("ThreadCountWarning", "n_jobs=1000000000 "))
case("melo_n_jobs_huge", "MElo(1, n_jobs=10**7, random_state=0).fit(small())", warns("ThreadCountWarning", "n_jobs=10000000 "))
case("cv_n_jobs_huge", RR + "DiscDecompositionCV([1], cv=2, prior_scale=1.0, random_state=0, n_jobs=10**6).fit(rr)",
     warns("ThreadCountWarning", "n_jobs=1000000 "))
case("cv_n_jobs_huge_same_fit", RR + "r = DiscDecompositionCV([1], cv=2, prior_scale=1.0, random_state=0, n_jobs=10**6).fit(rr)\n"
     "q = DiscDecompositionCV([1], cv=2, prior_scale=1.0, random_state=0, n_jobs=thread_limit()).fit(rr)",
     ok("np.array_equal(r.predict_proba(rr), q.predict_proba(rr))"))
case("schur_n_jobs_huge", "SchurDecomposition(1, n_jobs=10**6).fit(small())", warns("ThreadCountWarning", "n_jobs=1000000 "))
case("bootstrap_n_jobs_huge", "from discrank.evaluation._bootstrap import bootstrap\n"
     "bootstrap(Elo(prior_scale=1.0), ['x', 'y', 'z'], ['y', 'z', 'x'], [1.0, 0.0, 0.5], n_boot=3, n_jobs=10**6)",
     warns("ThreadCountWarning", "n_jobs=1000000 "))
case("bootstrap_n_jobs_huge_same_result", "from discrank.evaluation._bootstrap import bootstrap\n"
     "args = (['x', 'y', 'z', 'x'], ['y', 'z', 'x', 'z'], [1.0, 0.0, 0.5, 0.5])\n"
     "r = bootstrap(Elo(prior_scale=1.0), *args, n_boot=4, n_jobs=10**6)\n"
     "q = bootstrap(Elo(prior_scale=1.0), *args, n_boot=4, n_jobs=1)",
     ok("np.nanmax(np.abs(r.scores - q.scores)) < 1e-12 and np.array_equal(np.isnan(r.scores), np.isnan(q.scores))"))
case("bootstrap_n_jobs_minus_1e9", "from discrank.evaluation._bootstrap import bootstrap\n"
     "bootstrap(Elo(), ['x', 'y', 'z'], ['y', 'z', 'x'], [1.0, 0.0, 0.5], n_boot=3, n_jobs=-10**9)",
     raises("ValueError", "n_jobs=-1000000000 "))
case("bootstrap_blas_counts_kept", "from discrank.evaluation._bootstrap import bootstrap\nfrom threadpoolctl import threadpool_info\n"
     "before = [x['num_threads'] for x in threadpool_info() if x['user_api'] == 'blas']\n"
     "bootstrap(DiscDecomposition(1, prior_scale=1.0, random_state=0), ['x', 'y', 'z', 'x'], ['y', 'z', 'x', 'z'], "
     "[1.0, 0.0, 0.5, 0.5], n_boot=6, n_jobs=3)\n"
     "after = [x['num_threads'] for x in threadpool_info() if x['user_api'] == 'blas']",
     ok("after == before"))

# seeds: a TypeError or ValueError naming the parameter and the value (was numpy's SeedSequence error)
case("disc_random_state_abc", "DiscDecomposition(1, random_state='abc').fit(small())", raises("TypeError", "random_state must be"))
case("disc_random_state_minus_one", "DiscDecomposition(1, random_state=-1).fit(small())", raises("ValueError", "got -1"))
case("disc_random_state_true", "DiscDecomposition(1, random_state=True).fit(small())", raises("TypeError", "got True"))
case("melo_random_state_float", "MElo(1, random_state=1.5).fit(small())", raises("TypeError", "random_state must be"))
case("cv_random_state_negative", RR + "DiscDecompositionCV([1], cv=2, random_state=-5).fit(rr)",
     raises("ValueError", "random_state must be"))
case("disc_random_state_generator_same_fit", RR + "r = DiscDecomposition(1, random_state=np.random.default_rng(3)).fit(rr)\n"
     "q = DiscDecomposition(1, random_state=3).fit(rr)", ok("np.array_equal(r.u_, q.u_) and np.array_equal(r.v_, q.v_)"))
case("bootstrap_seed_abc", "from discrank.evaluation._bootstrap import bootstrap\n"
     "bootstrap(Elo(), ['x', 'y', 'z'], ['y', 'z', 'x'], [1.0, 0.0, 0.5], n_boot=2, seed='abc')", raises("TypeError", "seed must be"))
case("bootstrap_seed_minus_one", "from discrank.evaluation._bootstrap import bootstrap\n"
     "bootstrap(Elo(), ['x', 'y', 'z'], ['y', 'z', 'x'], [1.0, 0.0, 0.5], n_boot=2, seed=-1)", raises("ValueError", "got -1"))

# strided arrays at every public entry: the contiguous answer (was "incompatible function arguments")
ST = RR + "wide = np.repeat(rs, 2)\nG = np.column_stack([ra, rb, rs]).astype(np.float64)\n"
case("from_games_strided_score", ST + "x = PairwiseData.from_games(ra, rb, wide[::2])",
     ok("np.array_equal(x.p, rr.p) and np.array_equal(x.n_games, rr.n_games)"))
case("from_games_column", ST + "x = PairwiseData.from_games(ra, rb, G[:, 2])", ok("np.array_equal(x.p, rr.p)"))
case("from_games_strided_players", ST + "x = PairwiseData.from_games(np.repeat(ra, 2)[::2], np.repeat(rb, 2)[::2], rs)",
     ok("np.array_equal(x.i, rr.i) and np.array_equal(x.j, rr.j) and np.array_equal(x.p, rr.p)"))
case("from_pairs_strided_n_games", "c = np.array([4.0, 4.0, 2.0, 2.0, 8.0, 8.0])\n"
     "x = PairwiseData.from_pairs([0, 1, 2], [1, 2, 0], np.array([0.25, 0, 0.5, 0, 0.75, 0])[::2], n_games=c[::2])\n"
     "y = PairwiseData.from_pairs([0, 1, 2], [1, 2, 0], [0.25, 0.5, 0.75], n_games=[4.0, 2.0, 8.0])",
     ok("np.array_equal(x.p, y.p) and np.array_equal(x.n_games, y.n_games)"))
case("pairwise_ctor_strided", "M = np.array([[0, 1, 0.25, 4.0], [0, 2, 0.5, 2.0], [1, 2, 0.75, 8.0]])\n"
     "x = PairwiseData(M[:, 0].astype(int)[::1], M[:, 1].astype(int), M[:, 2], M[:, 3])\n"
     "y = PairwiseData([0, 0, 1], [1, 2, 2], [0.25, 0.5, 0.75], [4.0, 2.0, 8.0])",
     ok("np.array_equal(x.p, y.p) and np.array_equal(x.n_games, y.n_games) and np.array_equal(x.j, y.j)"))
case("gamelog_from_arrays_strided", ST + "x = GameLog.from_arrays(ra, rb, wide[::2]).to_pairs()",
     ok("np.array_equal(x.p, rr.p) and np.array_equal(x.i, rr.i)"))
case("online_elo_strided", ST + "x = online_elo(np.repeat(ra, 2)[::2], rb, G[:, 2])\ny = online_elo(ra, rb, rs)",
     ok("np.max(np.abs(x.ratings - y.ratings)) <= 1e-12 and np.max(np.abs(x.predictions - y.predictions)) <= 1e-12"))
case("online_disc_strided", ST + "x = online_disc(ra, np.repeat(rb, 2)[::2], wide[::2])\ny = online_disc(ra, rb, rs)",
     ok("np.max(np.abs(x.ratings - y.ratings)) <= 1e-12 and np.max(np.abs(x.consistency - y.consistency)) <= 1e-12"))
case("predict_proba_strided", ST + "m = Elo().fit(rr)\nx = m.predict_proba(G[:, 0].astype(int), np.repeat(rb, 2)[::2])\n"
     "y = m.predict_proba(ra, rb)", ok("np.max(np.abs(x - y)) <= 1e-12"))
case("fit_on_strided_same_fit", ST + "x = DiscDecomposition(1, random_state=0).fit(PairwiseData.from_games(ra, rb, wide[::2]))\n"
     "y = DiscDecomposition(1, random_state=0).fit(rr)", ok("np.array_equal(x.u_, y.u_) and np.array_equal(x.v_, y.v_)"))
case("core_aggregate_strided", "a = np.array([0, 9, 1, 9, 2, 9], np.int32)[::2]\nb = np.array([1, 2, 0], np.int32)\n"
     "x = _core.aggregate_games(3, a, b, np.array([1.0, 0, 0.5, 0, 0.25, 0])[::2])\n"
     "y = _core.aggregate_games(3, np.array([0, 1, 2], np.int32), b, np.array([1.0, 0.5, 0.25]))",
     ok("all(np.array_equal(u, v) for u, v in zip(x, y))"))
case("core_scores_fortran_factors", "U = np.asfortranarray(np.arange(6.0).reshape(3, 2))\nV = np.asfortranarray(U[::-1])\n"
     "a, b = np.array([0, 1, 2, 9], np.int32)[:3], np.array([2, 9, 0, 9, 1, 9], np.int32)[::2]\n"
     "x = _core.scores(a, b, 3, U=U, V=V)\ny = _core.scores(a, np.ascontiguousarray(b), 3, U=np.ascontiguousarray(U), "
     "V=np.ascontiguousarray(V))", ok("np.array_equal(x, y)"))
case("core_objective_strided", "i, j = np.array([0, 0, 1], np.int32), np.array([1, 2, 2], np.int32)\n"
     "y = np.array([0.5, 9, 0.25, 9, 0.75, 9])[::2]\ns = np.array([0.3, -0.1, 0.2])\n"
     "x = _core.PairObjective(3, i, j, y, np.ones(3)).evaluate(_core.LOSS_BCE, s=s, grad_s=True)\n"
     "z = _core.PairObjective(3, i, j, np.ascontiguousarray(y), np.ones(3)).evaluate(_core.LOSS_BCE, s=s, grad_s=True)",
     ok("x[0] == z[0] and np.array_equal(x[3], z[3])"))
case("core_wrong_dtype_refused", "_core.scores(np.array([0, 1], np.int64), np.array([1, 2], np.int32), 3, s=np.zeros(3))",
     raises("TypeError", "incompatible function arguments"))
case("core_strided_ratings_refused", "_core.online_elo(np.array([0, 1], np.int32), np.array([1, 2], np.int32), np.ones(2), "
     "0.1, np.zeros(6)[::2])", raises("TypeError", "incompatible function arguments"))

# ------------------------------------------------------------------ labels and pairwise data
# mixed kinds: between a and b, within one, as lists or arrays
case("labels_str_array_int_array", "PairwiseData.from_games(np.array(['x', 'y']), np.array([1, 2]), [1.0, 0.0])",
     raises("ValueError", "a holds strings (first 'x' at position 0) and b holds numbers (first 1 at position 0)"))
case("labels_int_list_str_list", "PairwiseData.from_games([1, 2], ['x', 'y'], [1.0, 0.0])",
     raises("ValueError", "a holds numbers (first 1 at position 0) and b holds strings"))
case("labels_digit_strings_vs_ints", "PairwiseData.from_games(['1', '2'], [2, 1], [1.0, 0.0])",
     raises("ValueError", "b holds numbers (first 2 at position 0)"))
case("labels_int_vs_empty_string", "PairwiseData.from_games([0], [''], [0.0])",
     raises("ValueError", "b holds strings (first '' at position 0)"))
case("labels_mixed_within_list", "PairwiseData.from_games(['x', 3], ['y', 'x'], [1.0, 0.0])",
     raises("ValueError", "a mixes label types: strings (first 'x' at position 0), numbers (first 3 at position 1)"))
case("labels_mixed_within_object_array", "PairwiseData.from_games(np.array(['x', 'y'], dtype=object), np.array(['y', 2.5], dtype=object), [1.0, 0.0])",
     raises("ValueError", "b mixes label types: strings (first 'y' at position 0), numbers (first 2.5 at position 1)"))
case("labels_str_and_bytes_in_list", "PairwiseData.from_games(['x', b'y'], ['y', 'z'], [1.0, 0.0])",
     raises("ValueError", "bytes (first b'y' at position 1)"))
case("labels_bytes_list", "PairwiseData.from_games([b'x'], [b'y'], [1.0])", raises("TypeError", "decode them first"))
case("labels_bytes_array", "PairwiseData.from_games(np.array([b'x']), np.array([b'y']), [1.0])",
     raises("TypeError", "a holds bytes labels (b'x' at position 0)"))
case("labels_bool_list", "PairwiseData.from_games([True], [False], [1.0])", raises("TypeError", "a holds bools (True at position 0)"))
case("labels_bool_among_ints", "PairwiseData.from_games([1, True], [2, 3], [1.0, 0.0])",
     raises("ValueError", "bools (first True at position 1)"))
case("labels_none", "PairwiseData.from_games(['x', None], ['y', 'z'], [1.0, 0.0])", raises("ValueError", "missing label None at position 1"))
case("labels_nan_array", "PairwiseData.from_games(np.array([0.0, np.nan]), [1.0, 2.0], [1.0, 0.0])",
     raises("ValueError", "non-finite label nan at position 1"))
case("labels_inf_in_list", "PairwiseData.from_games([0.0, float('inf')], [1.0, 2.0], [1.0, 0.0])",
     raises("ValueError", "non-finite label inf at position 1"))
case("labels_blank_string", "PairwiseData.from_games(['x', 'y'], ['y', '   '], [1.0, 0.0])",
     raises("ValueError", "b has an empty or blank player name '   ' at position 1"))
case("labels_given_of_other_kind", "PairwiseData.from_games(['x'], ['y'], [1.0], labels=[1, 2])",
     raises("ValueError", "labels holds numbers (first 1 at position 0)"))
case("labels_online_mixed", "online_elo(['x', 'y'], [1, 2], [1.0, 0.0])", raises("ValueError", "a holds strings"))
case("labels_gamelog_mixed", "GameLog.from_arrays(np.array(['x']), np.array([1]), [1.0])", raises("ValueError", "b holds numbers"))
# integer labels stay exact
case("labels_int64_uint64_exact",
     "d = PairwiseData.from_games(np.array([1, 2**62 + 1]), np.array([2**62 + 3, 3], dtype=np.uint64), [1.0, 0.0])",
     ok("d.labels.dtype == np.int64 and d.labels.tolist() == [1, 3, 2**62 + 1, 2**62 + 3]"))
case("labels_uint64_above_int64",
     "d = PairwiseData.from_games(np.array([2**64 - 1, 2**63], dtype=np.uint64), np.array([1, 2], dtype=np.int32), [1.0, 0.0])",
     ok("d.labels.dtype == np.uint64 and d.labels.tolist() == [1, 2, 2**63, 2**64 - 1]"))
case("labels_python_ints_above_int64", "d = PairwiseData.from_games([2**63 + 1, 2**63 + 3], [2**63 + 3, 2**63 + 2], [1.0, 0.0])",
     ok("d.labels.dtype == np.uint64 and d.labels.tolist() == [2**63 + 1, 2**63 + 2, 2**63 + 3]"))
case("labels_negative_with_above_int64_arrays",
     "PairwiseData.from_games(np.array([-1, 2]), np.array([2**63, 3], dtype=np.uint64), [1.0, 0.0])",
     raises("ValueError", "a[0] = -1 and b[0] = 9223372036854775808 have no common integer type"))
case("labels_negative_with_above_int64_list", "PairwiseData.from_games([-1, 2**63], [1, 2], [1.0, 0.0])",
     raises("ValueError", "negative integer label -1 (position 0) with 9223372036854775808"))
case("labels_beyond_uint64", "PairwiseData.from_games([2**64], [1], [1.0])",
     raises("ValueError", "a holds the integer label 18446744073709551616 at position 0"))
case("labels_int32_int64_mix", "d = PairwiseData.from_games(np.array([5, 7], dtype=np.int32), np.array([7, 2**40]), [1.0, 0.0])",
     ok("d.labels.dtype == np.int64 and d.labels.tolist() == [5, 7, 2**40]"))
case("labels_int32_both", "d = PairwiseData.from_games(np.array([5, 7], dtype=np.int32), np.array([7, 9], dtype=np.int32), [1.0, 0.0])",
     ok("d.labels.dtype == np.int64 and d.labels.tolist() == [5, 7, 9]"))
case("labels_ints_with_integral_floats", "d = PairwiseData.from_games(np.array([1, 2]), np.array([2.0, 3.0]), [1.0, 0.0])",
     ok("d.labels.dtype == np.int64 and d.labels.tolist() == [1, 2, 3]"))
case("labels_big_int_with_fraction", "PairwiseData.from_games([1, 2**62 + 1], [0.5, 3.0], [1.0, 0.0])",
     raises("ValueError", "float64 cannot hold exactly"))
case("labels_gamelog_filter_exact",
     "log = GameLog.from_arrays(np.array([2**62 + 1, 1, 2**62 + 1]), np.array([2**62 + 3, 2**62 + 3, 3], dtype=np.uint64), "
     "[1.0, 0.0, 1.0])\nlog.filter(min_player_games=2)",
     raises("ValueError", "no player has at least min_player_games=2"))
case("labels_str_are_objects", "d = PairwiseData.from_games(np.array(['x', 'y']), ['y', 'z'], [1.0, 0.0]); m = Elo().fit(d)",
     ok("m.labels_.dtype == object and all(type(v) is str for v in m.labels_) and m.labels_.tolist() == ['x', 'y', 'z']"))
case("labels_float32_to_float64", "d = PairwiseData.from_games(np.array([1.5, 2.5], dtype=np.float32), [2.5, 3.0], [1.0, 0.0])",
     ok("d.labels.dtype == np.float64 and d.labels.tolist() == [1.5, 2.5, 3.0]"))
case("labels_long_name_memory",
     "import tracemalloc\n"
     "names = ['p%d' % k for k in range(1000)]; names[3] = 'L' * 200_000\n"
     "a = names[:-1] * 3; b = names[1:] * 3\n"
     "PairwiseData.from_games(a[:5], b[:5], np.ones(5))\n"
     "tracemalloc.start(); d = PairwiseData.from_games(a, b, np.ones(len(a))); peak = tracemalloc.get_traced_memory()[1]",
     ok("peak < 8e6 and d.n_players == 1000 and d.labels.dtype == object"))
case("labels_long_name_in_message", "PairwiseData.from_games(['L' * 10**6], ['L' * 10**6], [1.0])",
     raises("ValueError", "... (1000000 characters) against themself"))
# counts and n_players
case("pairs_n_games_overflow", "PairwiseData.from_pairs(['a', 'b', 'c'], ['b', 'c', 'a'], [0.5] * 3, n_games=[1e308] * 3)",
     raises("ValueError", "n_games adds up to inf games (the largest, n_games[0] = 1e+308)"))
case("pairs_n_games_inf", "PairwiseData.from_pairs(['a'], ['b'], [0.5], n_games=[np.inf])", raises("ValueError", "n_games contains inf at position 0"))
case("pairs_n_games_nan", "PairwiseData.from_pairs(['a'], ['b'], [0.5], n_games=[np.nan])", raises("ValueError", "n_games contains nan at position 0"))
case("pairs_n_games_negative", "PairwiseData.from_pairs(['a'], ['b'], [0.5], n_games=[-3])", raises("ValueError", "n_games must be positive; got -3"))
case("pairs_n_games_constructor_overflow", "PairwiseData([0], [1], [0.5], [1e300])", raises("ValueError", "at most 2^53"))
case("pairs_n_games_fractional_ok", "d = PairwiseData.from_pairs(['a', 'a'], ['b', 'b'], [1.0, 0.0], n_games=[0.5, 1.5])",
     ok("d.n_games.tolist() == [2.0] and abs(d.p[0] - 0.25) < 1e-12"))
case("pairs_n_players_fraction", "PairwiseData([0], [1], [0.5], n_players=2.5)", raises("ValueError", "n_players must be an integer, got 2.5"))
case("pairs_n_players_string", "PairwiseData([0], [1], [0.5], n_players='3')", raises("ValueError", "n_players must be an integer, got '3'"))
case("pairs_n_players_bool", "PairwiseData([0], [1], [0.5], n_players=True)", raises("ValueError", "n_players must be an integer, got True"))
case("pairs_n_players_numpy_int", "d = PairwiseData([0], [1], [0.5], n_players=np.int64(4))", ok("d.n_players == 4 and d.labels.tolist() == [0, 1, 2, 3]"))
case("pairs_n_players_huge", "PairwiseData([0], [1], [0.5], n_players=10**12)", raises("ValueError", "n_players=1000000000000: far more than"))
case("pairs_sparse_index", "PairwiseData([0], [2**31 - 2], [1.0])", raises("ValueError", "the largest index, 2147483646, makes n_players=2147483647"))
case("pairs_sparse_ids_via_from_games", "d = PairwiseData.from_games([0], [2**31 - 2], [1.0])",
     ok("d.n_players == 2 and d.labels.tolist() == [0, 2**31 - 2]"))
# from_matrix
case("matrix_float32_memory",
     "import tracemalloc\n"
     "P = np.full((1500, 1500), 0.5, dtype=np.float32)\n"
     "PairwiseData.from_matrix(P[:9, :9])\n"
     "tracemalloc.start(); d = PairwiseData.from_matrix(P); peak = tracemalloc.get_traced_memory()[1]",
     ok("peak / P.nbytes <= 2.5 and d.n_pairs == 1500 * 1499 // 2 and np.all(d.p == 0.5)"))
case("matrix_inconsistent_after_bad_entry",
     "P = np.full((700, 700), 0.5); P[0, 600] = 0.9; P[650, 3] = 1.5\nPairwiseData.from_matrix(P)",
     raises("ValueError", "P[650, 3] = 1.5 is not a probability"))
case("matrix_one_sided", "d = PairwiseData.from_matrix([[np.nan, np.nan, 0.2], [np.nan, 0.5, np.nan], [np.nan, 0.3, np.nan]])",
     ok("d.i.tolist() == [0, 1] and d.j.tolist() == [2, 2] and np.allclose(d.p, [0.2, 0.7])"))
case("matrix_wrong_label_count", "PairwiseData.from_matrix(np.full((3, 3), 0.5), labels=['a', 'b'])",
     raises("ValueError", "P has 3 rows (players) but 2 labels were given"))
case("matrix_weights_games", "PairwiseData.from_matrix(np.full((3, 3), 0.5), weights='games')", raises("ValueError", "needs n_games"))
case("matrix_empty", "PairwiseData.from_matrix(np.full((3, 3), np.nan))", raises("ValueError", "no observed pair"))
# predict lookups
case("predict_2d_a", "small_m = Elo().fit(small()); small_m.predict_proba([['x']], ['y'])",
     raises("ValueError", "a must be 1-D (or a single player), got shape (1, 1)"))
case("predict_2d_b", "Elo().fit(small()).predict_proba(['x', 'y'], np.array([['y'], ['z']]))",
     raises("ValueError", "b must be 1-D (or a single player), got shape (2, 1)"))
case("predict_unknown_label", "Elo().fit(small()).predict_proba(['x', 'w'], ['y', 'z'])", raises("ValueError", "unknown player label(s): 'w'"))
case("predict_int_for_str_label", "Elo().fit(small()).predict_proba(1, 'y')", raises("ValueError", "unknown player label(s): 1"))
case("predict_uint64_exact",
     "m = Elo().fit(PairwiseData.from_games([2**63 + 1, 2**63 + 2], [2**63 + 2, 2**63 + 1], [1.0, 0.5]))\n"
     "q = m.predict_proba(2**63 + 1, np.uint64(2**63 + 2))",
     ok("q > 0.5 and m.labels_.dtype == np.uint64"))
case("predict_float_never_rounds_onto_int_label",
     "m = Elo().fit(PairwiseData.from_games([2**62 + 1, 5], [5, 2**62 + 1], [1.0, 0.5]))\nm.predict_proba(float(2**62 + 1), 5)",
     raises("ValueError", "unknown player label(s): 4.611686018427388e+18"))

# ------------------------------------------------------------------ model files, readers and the CLI
# helpers of the cases below (prepended to each case's code): a fitted model's file, a tampered copy, a
# raw npy header, the CLI with its stderr captured, and small game files
_FILES = '''
import json, zipfile, contextlib, gzip, bz2, lzma, resource
def model_file(kind="elo"):
    m = {"elo": Elo(), "disc": DiscDecomposition(1, random_state=0), "disc2": DiscDecomposition(2, random_state=0),
         "melo": MElo(1, random_state=0)}[kind]
    d = PairwiseData.from_games(["x", "y", "z", "w", "x", "y"], ["y", "z", "w", "x", "z", "w"], [1., 0., .5, 1., 0., 1.])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(d)
    path = tmp / f"{kind}.npz"
    m.save(path)
    return path
def tampered(kind="elo", meta=None, arrays=None):
    with np.load(model_file(kind)) as z:
        files = {k: z[k] for k in z.files}
    head = json.loads(str(files["__discrank__"]))
    if meta:
        meta(head)
    files["__discrank__"] = np.array(json.dumps(head))
    if arrays:
        arrays(files)
    path = tmp / "t.npz"
    np.savez_compressed(path, **files)
    return path
def npy_header(shape, descr="<f8"):
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()
def with_member(name, raw, kind="elo"):
    src = zipfile.ZipFile(model_file(kind))
    path = tmp / "m.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, raw if info.filename == name else src.read(info.filename))
        if name not in src.namelist():
            z.writestr(name, raw)
    return path
def run_cli(*argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = cli([str(a) for a in argv])
    return rc, err.getvalue()
def pgn(n, date=lambda k: f"2024.01.{k % 28 + 1:02d}"):
    return "".join(f'[Event "e"]\\n[White "p{k}"]\\n[Black "q{k}"]\\n[Result "1-0"]\\n[Date "{date(k)}"]\\n\\n1. e4 1-0\\n\\n'
                   for k in range(n))
def cut(path, data):
    path.write_bytes(data[: len(data) // 2])
    return path
'''


def files_case(name, code, expect):
    case(name, _FILES + textwrap.dedent(code), expect)


def setp(**kw):
    return f"meta=lambda h: h['params'].update({kw!r})"


# model files: every field of the header, wrong type, range, NaN / inf, missing, extra
files_case("file_n_components_lots", f"load(tampered('disc', {setp(n_components='lots')}))",
           raises("ValueError", "t.npz: params.n_components = 'lots' is not a positive integer"))
files_case("file_n_components_disagrees_with_u", f"load(tampered('disc', {setp(n_components=2)}))",
           raises("ValueError", "u_ has shape (4, 1) and dtype float64, expected shape (4, 2)"))
files_case("file_n_components_too_many_for_players", f"load(tampered('disc', {setp(n_components=3)}))",
           raises("ValueError", "params.n_components = 3 needs at least 6 players, but labels_ holds 4"))
files_case("file_n_jobs_minus_1e9", f"load(tampered('elo', {setp(n_jobs=-10**9)}))",
           raises("ValueError", "params.n_jobs = -1000000000 is not None or a nonzero integer"))
files_case("file_n_jobs_text", f"load(tampered('elo', {setp(n_jobs='all')}))", raises("ValueError", "params.n_jobs = 'all'"))
files_case("file_n_jobs_zero", f"load(tampered('elo', {setp(n_jobs=0)}))", raises("ValueError", "params.n_jobs = 0"))
files_case("file_tol_negative", f"load(tampered('disc', {setp(tol=-1.0)}))", raises("ValueError", "params.tol = -1.0"))
files_case("file_max_iter_float", f"load(tampered('disc', {setp(max_iter=2.5)}))", raises("ValueError", "params.max_iter = 2.5"))
files_case("file_prior_scale_nan", "load(tampered('elo', meta=lambda h: h['params'].update(prior_scale=float('nan'))))",
           raises("ValueError", "params.prior_scale = nan"))
files_case("file_loss_unknown", f"load(tampered('disc', {setp(loss='evil')}))", raises("ValueError", "params.loss = 'evil'"))
files_case("file_random_state_negative", f"load(tampered('disc', {setp(random_state=-3)}))",
           raises("ValueError", "params.random_state = -3"))
files_case("file_param_unknown", f"load(tampered('elo', {setp(evil=1)}))",
           raises("ValueError", "params.evil is not a parameter of Elo"))
files_case("file_param_missing_takes_the_default",
           "m = load(tampered('disc', meta=lambda h: h['params'].pop('loss')))\n"
           "ref = load(model_file('disc'))",
           ok("m.loss == 'bce' and np.allclose(m.predict_proba(['x'], ['y']), ref.predict_proba(['x'], ['y']))"))
files_case("file_converged_list", "load(tampered('elo', meta=lambda h: h['scalars'].update(converged_=[1, 2, {}])))",
           raises("ValueError", "scalars.converged_ = [1, 2, {}] is not true or false"))
files_case("file_loss_infinite", "load(tampered('elo', meta=lambda h: h['scalars'].update(loss_=float('inf'))))",
           raises("ValueError", "scalars.loss_ = inf is not a finite number"))
files_case("file_n_players_disagrees", "load(tampered('elo', meta=lambda h: h['scalars'].update(n_players_=9)))",
           raises("ValueError", "scalars.n_players_ = 9, but labels_ holds 4 players"))
files_case("file_scalar_unknown", "load(tampered('elo', meta=lambda h: h['scalars'].update(evil=1)))",
           raises("ValueError", "scalars.evil is not a fitted attribute"))
files_case("file_header_key_unknown", "load(tampered('elo', meta=lambda h: h.update(evil=1)))",
           raises("ValueError", "unexpected key 'evil'"))
files_case("file_header_params_missing", "load(tampered('elo', meta=lambda h: h.pop('params')))",
           raises("ValueError", "corrupted header: no 'params'"))
files_case("file_header_params_not_object", "load(tampered('elo', meta=lambda h: h.update(params=[1])))",
           raises("ValueError", "params is [1], not a JSON object"))
files_case("file_header_format_text", "load(tampered('elo', meta=lambda h: h.update(format='1')))",
           raises("ValueError", "format '1' is not supported"))
files_case("file_header_model_unknown", "load(tampered('elo', meta=lambda h: h.update(model='Pickle')))",
           raises("ValueError", "unknown model 'Pickle'"))
files_case("file_header_not_json",
           "load(tampered('elo', arrays=lambda f: f.update(__discrank__=np.array('{bad'))))",
           raises("ValueError", "t.npz: corrupted header: not JSON"))
files_case("file_header_an_array",
           "load(tampered('elo', arrays=lambda f: f.update(__discrank__=np.array(['{}', '{}']))))",
           raises("ValueError", "the __discrank__ header is <U2 of shape (2,)"))
# model files: arrays of the wrong shape, dtype or values
files_case("file_u_1e200", "load(tampered('disc', arrays=lambda f: f['u_'].__setitem__((0, 0), 1e200)))",
           raises("ValueError", "u_[0, 0] = 1e+200 is above MAX_ABS_PARAMETER"))
files_case("file_ratings_2e6", "load(tampered('elo', arrays=lambda f: f['ratings_'].__setitem__(2, 2e6)))",
           raises("ValueError", "ratings_[2] = 2000000.0 is above MAX_ABS_PARAMETER"))
files_case("file_ratings_inf", "load(tampered('elo', arrays=lambda f: f['ratings_'].__setitem__(0, np.inf)))",
           raises("ValueError", "ratings_[0] = inf is not finite"))
files_case("file_v_nan", "load(tampered('disc2', arrays=lambda f: f['v_'].__setitem__((1, 1), np.nan)))",
           raises("ValueError", "v_[1, 1] = nan is not finite"))
files_case("file_ratings_n_by_3", "load(tampered('elo', arrays=lambda f: f.update(ratings_=np.zeros((4, 3)))))",
           raises("ValueError", "ratings_ has shape (4, 3) and dtype float64, expected shape (4,)"))
files_case("file_ratings_short", "load(tampered('elo', arrays=lambda f: f.update(ratings_=np.zeros(3))))",
           raises("ValueError", "ratings_ has shape (3,)"))
files_case("file_ratings_text", "load(tampered('elo', arrays=lambda f: f.update(ratings_=np.array(['a'] * 4))))",
           raises("ValueError", "ratings_ has shape (4,) and dtype <U1"))
files_case("file_ratings_missing", "load(tampered('elo', arrays=lambda f: f.pop('ratings_')))",
           raises("ValueError", "missing array 'ratings_' for a Elo"))
files_case("file_v_missing", "load(tampered('disc', arrays=lambda f: f.pop('v_')))",
           raises("ValueError", "missing array 'v_'"))
files_case("file_u_v_shapes_differ", "load(tampered('disc', arrays=lambda f: f.update(v_=np.zeros((4, 2)))))",
           raises("ValueError", "v_ has shape (4, 2)"))
files_case("file_array_unknown", "load(tampered('elo', arrays=lambda f: f.update(junk=np.zeros(3))))",
           raises("ValueError", "unexpected array 'junk'"))
files_case("file_labels_repeated", "load(tampered('elo', arrays=lambda f: f.update(labels_=np.array(['x', 'x', 'y', 'z']))))",
           raises("ValueError", "labels_ repeats the label 'x'"))
files_case("file_labels_nan",
           "load(tampered('elo', meta=lambda h: h.update(labels='float'), arrays=lambda f: f.update(labels_=np.array([1., np.nan, 2., 3.]))))",
           raises("ValueError", "labels_[1] = nan is not a label"))
files_case("file_labels_2d", "load(tampered('elo', arrays=lambda f: f.update(labels_=np.array([['x', 'y'], ['z', 'w']]))))",
           raises("ValueError", "labels_ has shape (2, 2)"))
files_case("file_labels_kind_disagrees", "load(tampered('elo', meta=lambda h: h.update(labels='int')))",
           raises("ValueError", "labels_ has dtype <U1, expected int labels (the header says 'int' labels)"))
files_case("file_melo_base_outside", "load(tampered('melo', arrays=lambda f: f['_base'].__setitem__(0, 3.0)))",
           raises("ValueError", "_base[0] = 3.0 is outside [-0.5, 0.5]"))
files_case("file_n_iter_negative", "load(tampered('disc', arrays=lambda f: f['n_iter_'].__setitem__(0, -5)))",
           raises("ValueError", "n_iter_ holds -5"))
# model files: declared sizes against the file, before allocating
files_case("file_npy_claims_1e12_entries",
           "load(with_member('ratings_.npy', npy_header((10**12,)) + bytes(32)))",
           raises("ValueError", "the array ratings_ declares shape (1000000000000,) of float64 (8000000000000 bytes), but"))
files_case("file_npy_huge_text_header",
           "load(with_member('__discrank__.npy', npy_header((), '<U100000000') + bytes(64)))",
           raises("ValueError", "the array __discrank__ declares shape () of <U100000000 (400000000 bytes)"))
files_case("file_npy_object_dtype", "load(with_member('ratings_.npy', npy_header((4,), '|O') + bytes(32)))",
           raises("ValueError", "the array ratings_ has dtype 'object'"))
files_case("file_zip_member_not_npy", "load(with_member('evil.txt', b'hello'))",
           raises("ValueError", "the member 'evil.txt' is not an .npy array"))
_BOMB = '''
def bomb(megabytes):
    src = zipfile.ZipFile(model_file("elo"))
    path = tmp / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for info in src.infolist():
            if info.filename != "ratings_.npy":
                z.writestr(info.filename, src.read(info.filename))
        with z.open("ratings_.npy", "w", force_zip64=True) as w:
            w.write(npy_header((megabytes << 17,)))
            for _ in range(megabytes):
                w.write(bytes(1 << 20))
    return path
'''
files_case("file_zip_bomb_refused", _BOMB + "load(bomb(64))", raises("ValueError", "(a zip bomb?); refused before decompressing"))
files_case("file_zip_bomb_allocates_nothing", _BOMB + """
path = bomb(256)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    load(path)
    refused = False
except ValueError:
    refused = True
grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
""", ok("refused and grown_mb < 64 and os.path.getsize(path) < 2 << 20"))
files_case("file_plain_npy_is_not_a_model", "np.save(tmp / 'x.npy', np.zeros(3)); load(tmp / 'x.npy')",
           raises("ValueError", "x.npy: not a readable discrank model file (not an .npz archive"))
files_case("cli_info_wrong_shape_is_exit_2",
           "rc, err = run_cli('info', tampered('elo', arrays=lambda f: f.update(ratings_=np.zeros((4, 3)))))",
           ok("rc == 2 and 't.npz: ratings_ has shape (4, 3)' in err and 'internal error' not in err and err.count(chr(10)) == 1"))
files_case("cli_predict_u_1e200_is_exit_2",
           "rc, err = run_cli('predict', tampered('disc', arrays=lambda f: f['u_'].__setitem__((0, 0), 1e200)), 'x', 'y')",
           ok("rc == 2 and 'u_[0, 0] = 1e+200' in err and 'internal error' not in err"))
# labels: a round trip keeps each label's type and value
files_case("labels_float_round_trip", """
d = PairwiseData.from_games([0.5, 1.5, 2.25], [1.5, 2.25, 0.5], [1., 0., 1.])
m = Elo().fit(d); m.save(tmp / 'f.npz'); back = load(tmp / 'f.npz')
""", ok("back.labels_.dtype == np.float64 and back.labels_.tolist() == [0.5, 1.5, 2.25] "
        "and back.predict_proba(0.5, 1.5) == m.predict_proba(0.5, 1.5)"))
files_case("labels_uint64_round_trip", """
big = [2**63 + 1, 2**63 + 3, 2**64 - 1]
m = Elo().fit(PairwiseData.from_games(big, big[1:] + big[:1], [1., 0., 1.])); m.save(tmp / 'u.npz'); back = load(tmp / 'u.npz')
""", ok("back.labels_.dtype == np.uint64 and back.labels_.tolist() == sorted(big) and m.labels_.dtype == np.uint64"))
files_case("labels_int64_round_trip", """
ids = [-5, 7, 2**62 + 1]
m = Elo().fit(PairwiseData.from_games(ids, ids[1:] + ids[:1], [1., 0., 1.])); m.save(tmp / 'i.npz'); back = load(tmp / 'i.npz')
""", ok("back.labels_.dtype == np.int64 and back.labels_.tolist() == sorted(ids)"))
files_case("labels_str_round_trip", """
names = ['zoë', 'a\\x00', '李', 'x y']
m = Elo().fit(PairwiseData.from_games(names, names[1:] + names[:1], [1., 0., 1., .5])); m.save(tmp / 's.npz')
back = load(tmp / 's.npz')
""", ok("back.labels_.tolist() == m.labels_.tolist() and all(type(v) is str for v in back.labels_.tolist())"))
files_case("labels_long_name_file_stays_small", """
names = ['x' * 200_000] + [f'p{k}' for k in range(2000)]
m = Elo().fit(PairwiseData.from_games(names[:-1], names[1:], np.tile([1., 0.], 1000)[:2000]))
m.save(tmp / 'long.npz')
stored = sum(i.file_size for i in zipfile.ZipFile(tmp / 'long.npz').infolist())
back = load(tmp / 'long.npz')
""", ok("stored < 1_000_000 and back.labels_.tolist() == m.labels_.tolist()"))
files_case("labels_bytes_round_trip", """
m = Elo().fit(PairwiseData.from_games(['x', 'y'], ['y', 'x'], [1., 0.]))
m.labels_ = np.array([b'x', b'y']); m.save(tmp / 'b.npz'); back = load(tmp / 'b.npz')
""", ok("back.labels_.tolist() == [b'x', b'y']"))
# readers: truncated compressed files, dates, Parquet list columns
files_case("truncated_csv_gz", """
text = 'a,b,s\\n' + ''.join(f'p{k},q{k},1\\n' for k in range(3000))
discrank.GameLog.read_csv(cut(tmp / 'g.csv.gz', gzip.compress(text.encode())), score='s')
""", raises("ValueError", "g.csv.gz: the compressed file is truncated (Compressed file ended before the end-of-stream "
                          "marker was reached): its text ends at byte"))
files_case("truncated_csv_gz_keep", """
text = 'a,b,s\\n' + ''.join(f'p{k},q{k},1\\n' for k in range(3000))
log = discrank.GameLog.read_csv(cut(tmp / 'g.csv.gz', gzip.compress(text.encode())), score='s', truncated='keep')
assert 0 < len(log) < 3000 and log.a[-1] == f'p{len(log) - 1}'
""", warns("TruncatedFileWarning", "kept the"))
files_case("truncated_pgn_gz", "discrank.read_pgn(cut(tmp / 'g.pgn.gz', gzip.compress(pgn(300).encode())))",
           raises("ValueError", "complete games (the last, game"))
files_case("truncated_pgn_bz2", "discrank.read_pgn(cut(tmp / 'g.pgn.bz2', bz2.compress(pgn(300).encode())))",
           raises("ValueError", "g.pgn.bz2: the compressed file is truncated"))
files_case("truncated_pgn_xz_keep", """
log = discrank.read_pgn(cut(tmp / 'g.pgn.xz', lzma.compress(pgn(300).encode())), truncated='keep')
assert 0 < len(log) < 300 and log.a[-1] == f'p{len(log) - 1}'
""", warns("TruncatedFileWarning", "kept the"))
files_case("truncated_value_unknown", "discrank.read_pgn(tmp / 'x.pgn', truncated='yes')",
           raises("ValueError", "truncated='yes' is not one of ('raise', 'keep')"))
files_case("pgn_date_month_13", """
(tmp / 'g.pgn').write_text(pgn(5, lambda k: '2024.13.45' if k == 3 else '2024.01.01'))
discrank.read_pgn(tmp / 'g.pgn')
""", raises("ValueError", "g.pgn: game 3 has the date '2024.13.45', which is not a date"))
files_case("pgn_date_hello_dropped", """
(tmp / 'g.pgn').write_text(pgn(5, lambda k: 'hello' if k == 1 else '2024.01.01'))
log = discrank.read_pgn(tmp / 'g.pgn', invalid='drop')
""", ok("len(log) == 4 and log.dropped == {'unparseable time': 1} and log.time is not None and 'p1' not in log.a.tolist()"))
files_case("pgn_date_with_question_marks_is_no_date", """
(tmp / 'g.pgn').write_text(pgn(5, lambda k: '2024.??.??' if k == 1 else '2024.01.01'))
log = discrank.read_pgn(tmp / 'g.pgn')
""", ok("len(log) == 5 and log.time is None and log.dropped == {}"))
files_case("parquet_list_column", """
pd.DataFrame({'a': [['x'], ['y']], 'b': ['y', 'x'], 's': [1.0, 0.0]}).to_parquet(tmp / 'g.parquet')
discrank.GameLog.read_parquet(tmp / 'g.parquet', score='s')
""", raises("ValueError", "g.parquet: column 'a' (for a) has the type list<element: string>"))
# filters and splits: a bound or a fraction of the wrong kind names the parameter
_LOG = "log = discrank.GameLog.from_arrays(['x', 'y', 'z'], ['y', 'z', 'x'], [1, 0, 1], time=TIMES)\n"
_INT_LOG = _LOG.replace("TIMES", "[1, 2, 3]")
_DATE_LOG = _LOG.replace("TIMES", "np.array(['2024-01-01', '2024-01-02', '2024-01-03'], 'datetime64[D]')")
case("filter_int_times_date_text", _INT_LOG + "log.filter(start='2020-01-01')",
     raises("ValueError", "start='2020-01-01' is not a number, and the times are numbers (such as 1)"))
case("filter_int_times_datetime64", _INT_LOG + "log.filter(start=np.datetime64('2020-01-01'))",
     raises("ValueError", "datetime64('2020-01-01') is not a number, and the times are numbers"))
case("filter_int_times_nan", _INT_LOG + "log.filter(end=float('nan'))", raises("ValueError", "end=nan is NaN"))
case("filter_dates_not_a_date", _DATE_LOG + "log.filter(start='not a date')",
     raises("ValueError", "start='not a date' is not a date, and the times are dates (such as '2024-01-01')"))
case("filter_dates_number", _DATE_LOG + "log.filter(end=5)", raises("ValueError", "end=5 is not a date"))
case("filter_dates_datetime", _DATE_LOG + "import datetime\nkept = log.filter(start=datetime.date(2024, 1, 2))",
     ok("len(kept) == 2"))
case("split_time_text", _INT_LOG + "log.split_time('0.5')", raises("ValueError", "test_fraction must be a number in (0, 1)"))
case("split_time_nan", _INT_LOG + "log.split_time(float('nan'))", raises("ValueError", "got nan"))
# the command line: every bad value named, one line, exit 2, never "internal error"
_CSV = "(tmp / 'g.csv').write_text('a,b,s,t\\nx,y,1,2024-01-01\\ny,z,0,2024-01-02\\nz,x,1,2024-01-03\\n')\n"
_ONE_LINE = "rc == 2 and err.count(chr(10)) == 1 and 'internal error' not in err"
files_case("cli_demo_cyclic_nan", "rc, err = run_cli('demo', '--cyclic', 'nan', '--plot', '')",
           ok(f"{_ONE_LINE} and \"argument --cyclic: must be a finite number, got 'nan'\" in err"))
files_case("cli_demo_top_negative", "rc, err = run_cli('demo', '--top', '-3', '--plot', '')",
           ok(f"{_ONE_LINE} and \"argument --top: must be an integer >= 1, got '-3'\" in err"))
files_case("cli_demo_huge_league", "rc, err = run_cli('demo', '--players', '100000', '--plot', '')",
           ok(f"{_ONE_LINE} and 'the demo simulates at most' in err"))
files_case("cli_fit_start_garbage", _CSV + "rc, err = run_cli('fit', tmp / 'g.csv', '--score', 's', '--time', 't', '--start', 'garbage')",
           ok(f"{_ONE_LINE} and \"--start 'garbage' is neither a date\" in err"))
files_case("cli_fit_start_date_for_numbers",
           "(tmp / 'n.csv').write_text('a,b,s,t\\nx,y,1,1\\ny,z,0,2\\n')\n"
           "rc, err = run_cli('fit', tmp / 'n.csv', '--score', 's', '--time', 't', '--start', '2020-01-01')",
           ok(f"{_ONE_LINE} and \"--start '2020-01-01' is not a number, and the times are numbers\" in err"))
files_case("cli_fit_time_column_of_names", _CSV + "rc, err = run_cli('fit', tmp / 'g.csv', '--score', 's', '--time', 'a')",
           ok(f"{_ONE_LINE} and \"column 'a' (the time)\" in err"))
files_case("cli_fit_regularization_abc", _CSV + "rc, err = run_cli('fit', tmp / 'g.csv', '--score', 's', '--regularization', 'abc')",
           ok(f"{_ONE_LINE} and \"argument --regularization: 'abc' is neither a number >= 0 nor 'cv'\" in err"))
files_case("cli_evaluate_test_fraction_text", _CSV + "rc, err = run_cli('evaluate', tmp / 'g.csv', '--score', 's', '--time', 't', '--test-fraction', 'half')",
           ok(f"{_ONE_LINE} and \"argument --test-fraction: 'half' is not a number\" in err"))
files_case("cli_predict_pairs_empty", "(tmp / 'empty.csv').write_text('')\nrc, err = run_cli('predict', model_file('elo'), '--pairs', tmp / 'empty.csv')",
           ok(f"{_ONE_LINE} and 'empty.csv: the file is empty' in err"))
files_case("cli_fit_out_unwritable", _CSV + "rc, err = run_cli('fit', tmp / 'g.csv', '--score', 's', '--model', 'elo', '--quiet', '--out', tmp / 'no' / 'r.csv')",
           ok(f"{_ONE_LINE} and \"cannot write '\" in err and 'r.csv' in err"))
files_case("cli_fit_out_proc_version", _CSV + "rc, err = run_cli('fit', tmp / 'g.csv', '--score', 's', '--model', 'elo', '--quiet', '--out', '/proc/version')",
           ok(f"{_ONE_LINE} and \"cannot write '/proc/version'\" in err"))
files_case("cli_fit_truncated_pgn", "rc, err = run_cli('fit', cut(tmp / 'g.pgn.gz', gzip.compress(pgn(300).encode())), '--model', 'elo', '--quiet')",
           ok(f"{_ONE_LINE} and '--keep-truncated' in err and 'g.pgn.gz' in err"))
files_case("cli_predict_float_labels_saved_as_floats", """
Elo().fit(PairwiseData.from_games([0.5, 1.5, 2.25], [1.5, 2.25, 0.5], [1., 0., 1.])).save(tmp / 'f.npz')
out = io.StringIO()
with contextlib.redirect_stdout(out):
    rc = cli(['predict', str(tmp / 'f.npz'), '0.5', '1.5'])
""", ok("rc == 0 and out.getvalue().startswith('P(0.5 beats 1.5) = 0.')"))
files_case("cli_fit_truncated_pgn_kept", "rc, err = run_cli('fit', cut(tmp / 'g.pgn.gz', gzip.compress(pgn(300).encode())), '--model', 'elo', '--quiet', '--keep-truncated')",
           ok("rc == 0 and 'discrank: warning: ' in err and 'kept the' in err"))

# ------------------------------------------------------------------ models: separation, steps, interruption
SEPARATED = "i, j = np.triu_indices(8, 1); d = PairwiseData.from_pairs(i, j, np.ones(i.size))\n"
RPS = "d = PairwiseData.from_games(['r', 'p', 's'], ['s', 'r', 'p'], [1.0, 1.0, 1.0])\n"
FOUR = "d = PairwiseData.from_games(['a', 'a', 'a', 'b', 'b', 'c'], ['b', 'c', 'd', 'c', 'd', 'd'], [1.0] * 6)\n"
for k in (1, 2):
    case(f"disc{k}_ml_on_a_total_order_warns",
         SEPARATED + f"m = DiscDecomposition({k}, prior_scale=np.inf, random_state=0).fit(d)",
         warns("SeparationWarning", "no finite answer"))
    case(f"disc{k}_ml_on_a_total_order_is_not_converged",
         SEPARATED + f"warnings.simplefilter('ignore'); m = DiscDecomposition({k}, prior_scale=np.inf, random_state=0).fit(d)",
         ok("m.separated_ is True and m.converged_ is False"))
    case(f"disc{k}_default_prior_on_a_total_order_is_finite",
         SEPARATED + f"m = DiscDecomposition({k}, random_state=0).fit(d)",
         ok("m.converged_ and m.separated_ is None and np.abs(m.u_).max() < 10 and m.predict_proba(0, 7) < 0.9999"))
case("disc_ml_on_four_separated_players_warns", FOUR + "DiscDecomposition(1, prior_scale=np.inf, random_state=0).fit(d)",
     warns("SeparationWarning", "never lose"))
case("disc_ml_on_four_separated_players_names_one", FOUR + "DiscDecomposition(1, prior_scale=np.inf, random_state=0).fit(d)",
     warns("SeparationWarning", "'a'"))
case("disc_ml_on_a_perfect_cycle_warns", RPS + "DiscDecomposition(1, prior_scale=np.inf, random_state=0).fit(d)",
     warns("SeparationWarning", "beyond 15 logits"))
case("disc_ml_alternating_on_a_perfect_cycle_warns",
     RPS + "DiscDecomposition(1, prior_scale=np.inf, solver='alternating', random_state=0).fit(d)",
     warns("SeparationWarning", "no finite answer"))
case("disc_regularised_ml_on_a_total_order_warns",
     SEPARATED + "DiscDecomposition(1, prior_scale=np.inf, regularization=1.0, random_state=0).fit(d)",
     warns("SeparationWarning", "no finite answer"))
case("disc_default_prior_on_a_perfect_cycle_is_finite", RPS + "m = DiscDecomposition(1, random_state=0).fit(d)",
     ok("m.converged_ and np.all(np.isfinite(m.u_)) and np.abs(m.decision_function(['r'], ['s'])).max() < 15"))
case("elo_ml_on_a_total_order_warns", SEPARATED + "Elo(prior_scale=np.inf).fit(d)", warns("SeparationWarning", "infinite"))
case("elo_default_prior_on_a_total_order_is_finite", SEPARATED + "m = Elo().fit(d)",
     ok("m.converged_ and np.abs(m.ratings_).max() < 10"))
case("melo_on_a_total_order_is_finite", SEPARATED + "m = MElo(1, prior_scale=np.inf, random_state=0).fit(d)",
     ok("np.all(np.isfinite(m.u_)) and np.all(np.isfinite(m.predict_proba(d)))"))
case("disc_probability_loss_on_a_total_order_is_finite",
     SEPARATED + "m = DiscDecomposition(1, loss='probability', prior_scale=np.inf, random_state=0).fit(d)",
     ok("np.all(np.isfinite(m.u_)) and m.separated_ is None"))
for step in ("2.0", "1e300", "1e6"):
    case(f"online_disc_step_{step}_diverges_with_an_error",
         f"online_disc(['x', 'y', 'x', 'y'] * 5, ['y', 'x', 'y', 'x'] * 5, [1.0, 0.0, 1.0, 1.0] * 5, step={step})",
         raises("ValueError", f"step={float(step)!r}"))
case("online_disc_step_1_stays_finite",
     "r = online_disc(['x', 'y', 'x', 'y'] * 5, ['y', 'x', 'y', 'x'] * 5, [1.0, 0.0, 1.0, 1.0] * 5, step=1.0)",
     ok("np.all(np.isfinite(r.ratings)) and np.all(np.isfinite(r.predictions))"))
case("online_elo_step_1e300_is_refused_or_finite",
     "r = online_elo(['x', 'y'] * 5, ['y', 'x'] * 5, [1.0, 0.0] * 5, step=1e300)",
     ok("np.all(np.isfinite(r.ratings))"))
for value, fragment in (("1e-300", "too small"), ("1e300", "too large"), ("1e-170", "too small"), ("1e170", "too large"),
                        ("-1.0", "positive"), ("float('nan')", "positive"), ("0.0", "positive")):
    for model in ("Elo", "EloPlusPlus", "DiscDecomposition", "MElo"):
        case(f"{model}_prior_scale_{value}", f"{model}(prior_scale={value}).fit(small())", raises("ValueError", fragment))
case("elo_prior_scale_string", "Elo(prior_scale='wide').fit(small())", raises("TypeError", "'wide'"))
case("disc_prior_scale_list", "DiscDecomposition(prior_scale=[1.0]).fit(small())", raises("TypeError", "[1.0]"))
case("elo_prior_scale_1e100_is_a_prior", "m = Elo(prior_scale=1e100).fit(small())",
     ok("np.all(np.isfinite(m.ratings_))"))
INTERRUPT = """
import discrank.models.disc as D, discrank.models.elo as E
def boom(*args, **kwargs):
    raise KeyboardInterrupt
"""
case("interrupted_first_fit_leaves_an_unfitted_model",
     INTERRUPT + "m = DiscDecomposition(1, prior_scale=1.0)\nD.alternate_then_joint = boom\n"
     "try:\n    m.fit(small())\nexcept KeyboardInterrupt:\n    pass\n"
     "fitted = [k for k in vars(m) if k.endswith('_')]\n"
     "try:\n    m.predict_proba('x', 'y'); said = ''\nexcept Exception as e:\n    said = str(e)",
     ok("fitted == [] and 'not fitted' in said"))
case("interrupted_refit_keeps_the_previous_fit_whole",
     INTERRUPT + "m = DiscDecomposition(1, prior_scale=1.0, random_state=0).fit(small()); u = m.u_.copy(); p = m.predict_proba('x', 'y')\n"
     "D.alternate_then_joint = boom\nbig = PairwiseData.from_games(list('abcdefg'), list('bcdefga'), [1.0, 0, 1, 0, 1, 0, 0.5])\n"
     "try:\n    m.fit(big)\nexcept KeyboardInterrupt:\n    pass",
     ok("m.u_.shape == (3, 1) and list(m.labels_) == ['x', 'y', 'z'] and np.array_equal(m.u_, u) and m.predict_proba('x', 'y') == p"))
case("interrupted_elo_refit_keeps_the_previous_fit",
     INTERRUPT + "m = Elo(prior_scale=1.0).fit(small()); r = m.ratings_.copy()\nE.newton_elo = boom\n"
     "big = PairwiseData.from_games(list('abcdefg'), list('bcdefga'), [1.0, 0, 1, 0, 1, 0, 0.5])\n"
     "try:\n    m.fit(big)\nexcept KeyboardInterrupt:\n    pass",
     ok("np.array_equal(m.ratings_, r) and len(m.labels_) == 3 and m.prior_scale_ == 1.0"))
case("failed_refit_keeps_the_previous_fit",
     "m = Elo(prior_scale=1.0).fit(small()); r = m.ratings_.copy()\n"
     "try:\n    m.fit(PairwiseData.from_games(['a'], ['b'], [1.0]), validation='no')\nexcept TypeError:\n    pass",
     ok("np.array_equal(m.ratings_, r) and len(m.labels_) == 3"))
case("interrupted_cv_fit_leaves_an_unfitted_model",
     INTERRUPT + "m = DiscDecompositionCV(prior_scale=1.0, cv=2, random_state=0)\nD.alternate_then_joint = boom\n"
     "big = PairwiseData.from_matrix(0.5 + 0.2 * np.triu(np.ones((6, 6)), 1) - 0.2 * np.tril(np.ones((6, 6)), -1))\n"
     "try:\n    m.fit(big)\nexcept KeyboardInterrupt:\n    pass",
     ok("[k for k in vars(m) if k.endswith('_')] == []"))
case("interrupted_online_elo_fit_leaves_an_unfitted_model",
     "import discrank.models.online._elo as O\nm = O.OnlineElo(step=0.1)\n"
     "def boom(*a, **k):\n    raise KeyboardInterrupt\nO._core = type('C', (), {'online_elo': staticmethod(boom)})\n"
     "log = GameLog.from_arrays(['x', 'y', 'z'], ['y', 'z', 'x'], [1.0, 0.0, 1.0])\n"
     "try:\n    m.fit(log)\nexcept KeyboardInterrupt:\n    pass",
     ok("[k for k in vars(m) if k.endswith('_')] == []"))

# ------------------------------------------------------------------ issue 33: dynamic tuning
# DynamicElo's tuning stopped at its grid's largest value without a word (prior 8 and variance scale 8 on
# a Go log), and a given drift and prior switched the variance scale's tuning off
SHIFTED = ("from scipy.special import expit\n"
           "def shifted(q, games=3000, n=12):  # its last 30% of games each a coin flip with probability q\n"
           "    rng = np.random.default_rng(0); r = 0.5 * (np.arange(n) - (n - 1) / 2)\n"
           "    a = rng.integers(0, n, games); b = (a + rng.integers(1, n, games)) % n\n"
           "    y = rng.random(games) < expit(r[a] - r[b])\n"
           "    coin = (np.arange(games) >= 0.7 * games) & (rng.random(games) < q)\n"
           "    y = np.where(coin, rng.random(games) < 0.5, y).astype(float)\n"
           "    return GameLog.from_arrays(a, b, y, np.sort(rng.integers(0, 30, games)).astype(float))\n")
case("dynamic_tuning_variance_past_the_grid_edge",
     SHIFTED + "m = discrank.DynamicElo(period=None, prior_scale=2.0)\n"
     "m.fit(shifted(0.15), validation=discrank.Validation(fraction=0.3))",
     ok("abs(m.variance_scale_ - 8 * (4 / 3) ** 6) < 1e-9 and m.tuning_['at_bound'] == {}"))
case("dynamic_tuning_variance_at_its_bound_warns",
     SHIFTED + "m = discrank.DynamicElo(period=None, prior_scale=2.0).fit(shifted(1.0))",
     warns("TuningWarning", "variance_scale=59.93 is the upper bound of its search"))
case("dynamic_fixed_drift_and_prior_tunes_the_variance_scale",
     "from scipy.special import expit\nrng = np.random.default_rng(0)\n"
     "true = np.cumsum(rng.normal(0, 2.0, (12, 30)), axis=1)  # a drift twenty times the one given\n"
     "a = rng.integers(0, 12, 2000); b = (a + rng.integers(1, 12, 2000)) % 12\n"
     "t = np.sort(rng.integers(0, 30, 2000)); y = (rng.random(2000) < expit(true[a, t] - true[b, t])).astype(float)\n"
     "m = discrank.DynamicElo(period=1.0, drift=0.1, prior_scale=2.0).fit(GameLog.from_arrays(a, b, y, t.astype(float)))",
     ok("m.variance_scale_ == 6.0 and (m.drift_, m.prior_scale_) == (0.1, 2.0) "
        "and len(m.tuning_['scanned']['variance_scale']) >= 8"))


# ------------------------------------------------------------------ issue 33: the dynamic model, covariates, labels, logs
DATED = ("from discrank import DynamicElo\nrng = np.random.default_rng(0)\n"
         "da = rng.integers(0, 8, 200); db = (da + rng.integers(1, 8, 200)) % 8\n"
         "dy = (rng.random(200) < 0.5).astype(float); dt = np.sort(rng.uniform(0, 100, 200))\n"
         "dated = GameLog.from_arrays(da, db, dy, time=dt)\n"
         "dyn = lambda **k: DynamicElo(**{'period': 10.0, 'drift': 0.1, 'prior_scale': 1.0, 'variance_scale': 1.0, **k})\n")
case("dynamic_draws_only_log", DATED + "dyn(draws='davidson').fit(GameLog.from_arrays(['x', 'y'], ['y', 'x'], [0.5, 0.5], "
     "time=[1.0, 2.0]))", raises("ValueError", "every game of the log is a draw"))
case("dynamic_update_earlier_games_saves_a_loadable_file",
     DATED + "m = dyn().fit(dated).update(GameLog.from_arrays([1], [2], [1.0], time=[5.0]))\n"
     "m.save(tmp / 'm.npz'); back = load(tmp / 'm.npz')",
     ok("len(back.games_) == 201 and np.all(np.diff(back.games_.time) >= 0)"))
case("dynamic_update_beyond_the_period_cap", DATED + "dyn().fit(dated).update(GameLog.from_arrays([1], [2], [1.0], time=[2e8]))",
     raises("ValueError", "makes 20000001 periods between the first game and the last of the fitted games with update's"))
case("dynamic_ratings_far_ahead_stay_known", DATED + "m = dyn(period=1.0).fit(dated); r = m.ratings_at(1e18)",
     ok("r['known'].all() and np.all(np.isfinite(r['sd']))"))
case("dynamic_ratings_at_1e19", DATED + "dyn(period=1.0).fit(dated).ratings_at(1e19)",
     raises("ValueError", "time 1e+19 is out of range for period=1.0"))
case("dynamic_fit_with_a_time_of_1e19", DATED + "dyn(period=1.0).fit(GameLog.from_arrays(da, db, dy, time=np.r_[dt[:-1], 1e19]))",
     raises("ValueError", "time 1e+19 is out of range"))
case("dynamic_unknown_label_refused", DATED + "dyn().fit(dated).predict_proba(0, 99)", raises("UnknownPlayerError", "99"))
case("dynamic_update_float_label_into_int_model", DATED + "m = dyn().fit(dated).update(GameLog.from_arrays([1.5], [2], [1.0], "
     "time=[120.0]))", ok("len(m.labels_) == 9 and m.labels_[-1] == 1.5 and m.labels_[1] == 1"))
case("dynamic_update_text_label_into_int_model", DATED + "dyn().fit(dated).update(GameLog.from_arrays(['17'], ['2'], [1.0], "
     "time=[120.0]))", raises("ValueError", "update's log holds strings (first '17'"))
case("dynamic_update_other_covariate_width",
     DATED + "m = dyn().fit(GameLog.from_arrays(da, db, dy, time=dt, advantage=rng.normal(size=200)))\n"
     "m.update(GameLog.from_arrays([1], [2], [1.0], time=[120.0], advantage=np.ones((1, 2))))",
     raises("ValueError", "update's games have ['x0', 'x1']"))
case("dynamic_predict_other_covariate_width",
     DATED + "m = dyn().fit(GameLog.from_arrays(da, db, dy, time=dt, advantage=rng.normal(size=200)))\n"
     "m.predict_games(GameLog.from_arrays([1], [2], [1.0], time=[120.0], advantage=np.ones((1, 2))))",
     raises("ValueError", "the games to predict have ['x0', 'x1']"))
case("dynamic_update_week_at_neutral_venues",
     DATED + "m = dyn().fit(GameLog.from_arrays(da, db, dy, time=dt, advantage=rng.choice([-1.0, 1.0], 200)))\n"
     "m.update(GameLog.from_arrays([1], [2], [1.0], time=[120.0], advantage=[0.0]))",
     ok("m.converged_ and len(m.games_) == 201"))
case("dynamic_separating_covariate_stays_finite",
     DATED + "x = np.zeros(200); x[0] = 1.0; dy[0] = 1.0\n"
     "m = dyn().fit(GameLog.from_arrays(da, db, dy, time=dt, advantage=x)).update(GameLog.from_arrays([1], [2], [1.0], "
     "time=[120.0], advantage=[1.0]))",
     ok("np.isfinite(m.beta_[0]) and np.isfinite(m.beta_se_[0]) and m.converged_"))
case("dynamic_one_game_covariate_file_loads",
     DATED + "m = dyn(period=1.0).fit(GameLog.from_arrays(['x'], ['y'], [1.0], time=[1.0], advantage=[1.0]))\n"
     "m.save(tmp / 'one.npz'); back = load(tmp / 'one.npz')",
     ok("np.isfinite(back.beta_se_[0]) and back.beta_[0] == m.beta_[0]"))
case("elo_separating_covariate_stays_finite",
     "m = Elo(prior_scale=1.0).fit(GameLog.from_arrays(['x', 'y', 'z', 'x', 'y', 'z'], ['y', 'z', 'x', 'z', 'x', 'y'], "
     "[1, 0, 1, 0, 1, 0.0], advantage=[1, 0, 1, 0, 1, 0.0]))",
     ok("0 < m.beta_[0] < 60 and m.beta_se_[0] < 30"))
case("fit_refuses_a_covariate_0_in_every_game",
     "Elo(prior_scale=1.0).fit(GameLog.from_arrays(['x', 'y'], ['y', 'x'], [1.0, 0.0], advantage={'neutral': [0, 0]}))",
     raises("ValueError", "advantage column 'neutral' is 0 in every game"))
case("gamelog_constructor_self_play", "GameLog(np.array(['x', 'y']), np.array(['x', 'z']), np.array([1.0, 0.0]))",
     raises("ValueError", "player 'x' against themself"))
case("gamelog_constructor_text_times", "log = GameLog(['x', 'y'], ['y', 'z'], [1.0, 0.0], time=['2020-01-01', '2020-02-01'])",
     ok("log.time.dtype.kind == 'M'"))
case("iso_time_with_a_fraction_of_a_second",
     "log = GameLog.from_arrays(['x', 'y'], ['y', 'z'], [1.0, 0.0], ['2020-01-01T10:00:00.250', '2020-01-01T10:00:01'])",
     ok("log.time.dtype.kind == 'M' and (log.time[1] - log.time[0]) == np.timedelta64(750, 'ms')"))
SCAN = ("frame = pd.DataFrame({'a': ['x', 'y', 'z'] * 10, 'b': ['y', 'z', 'x'] * 10, 's': [1.0, 0.0, 0.5] * 10})\n"
        "(tmp / 'd' / 'sub').mkdir(parents=True); frame.to_csv(tmp / 'd' / 'g0.csv', index=False)\n"
        "frame.to_csv(tmp / 'd' / 'sub' / 'g1.csv', index=False)\n")
case("scan_games_fifo_beside_the_data", SCAN + "os.mkfifo(tmp / 'd' / 'pipe.csv')\ndiscrank.scan_games(tmp / 'd', score='s')",
     raises("ValueError", "pipe.csv: not a regular file"))
case("scan_games_symlinked_folder_is_read",
     SCAN + "(tmp / 'd' / 'sub' / 'g1.csv').rename(tmp / 'g1.csv'); (tmp / 'l').mkdir(); "
     "(tmp / 'g1.csv').rename(tmp / 'l' / 'g1.csv')\nos.symlink(tmp / 'l', tmp / 'd' / 'link')\n"
     "p = discrank.scan_games(tmp / 'd', score='s')", ok("p.n_games.sum() == 60"))
case("scan_games_overlapping_paths_read_once",
     SCAN + "p = discrank.scan_games([tmp / 'd', str(tmp / 'd' / 'sub') + '/*.csv'], score='s')",
     warns("UserWarning", "named more than once"))
case("scan_games_glob_of_folders_only", SCAN + "p = discrank.scan_games(str(tmp / 'd') + '/su*', score='s')",
     ok("p.n_games.sum() == 30"))

# ------------------------------------------------------------------ issue 33: readers, evaluate, CLI
WINNER_FIRST = """
rng = np.random.default_rng(0)
wa = rng.integers(0, 8, 400); wb = (wa + rng.integers(1, 8, 400)) % 8
winner_first = GameLog.from_arrays(wa, wb, np.ones(400), np.arange(400))
"""
case("evaluate_of_a_winner_first_log_warns_naming_shuffle_sides",
     WINNER_FIRST + "discrank.evaluate(Elo(prior_scale=1.0), winner_first, test_fraction=0.25)",
     warns("OneSidedLogWarning", "side 'a' wins 400 of the 400 decided games"))
case("shuffle_sides_orients_half_of_a_winner_first_log",
     WINNER_FIRST + "s = winner_first.shuffle_sides(3)",
     ok("s.score.sum() == 200 and np.array_equal(np.where(s.score == 1, s.a, s.b), wa)"))
case("drop_invalid_of_goals_read_as_a_score_is_refused",
     "GameLog.from_frame(pd.DataFrame({'a': list('xyzxyz'), 'b': list('yzxyzx'), 'g': [3, 0, 2, 1, 4, 5]}), "
     "score='g', invalid='drop')",
     raises("ValueError", "would drop 4 of 6 rows (67%), more than max_invalid=0.5; the most common kind is "
                          "'unparseable result'"))
files_case("cli_drop_invalid_of_a_misread_winner_column_exits_2", """
(tmp / 'w.csv').write_text('a,b,w\\n' + ''.join(f'p{k},q{k},{k}\\n' for k in range(10)) + 'x,y,x\\n')
rc, err = run_cli('fit', tmp / 'w.csv', '--winner', 'w', '--drop-invalid', '--quiet')
rc1, err1 = run_cli('fit', tmp / 'w.csv', '--winner', 'w', '--drop-invalid', '--max-invalid', '1', '--quiet')
""", ok("rc == 2 and 'would drop 10 of 11 rows (91%)' in err and '--max-invalid 1' in err and rc1 == 0"))
case("evaluate_online_refits_of_a_disconnected_log_warn_once",
     "import warnings\n"
     "rng = np.random.default_rng(1); n = 600\n"
     "ga = rng.integers(0, 4, n); gb = (ga + rng.integers(1, 4, n)) % 4; far = rng.random(n) < 0.5\n"
     "log = GameLog.from_arrays(np.where(far, ga + 10, ga), np.where(far, gb + 10, gb), "
     "(rng.random(n) < 0.5).astype(float), np.sort(rng.integers(0, 60, n)))\n"
     "with warnings.catch_warnings(record=True) as seen:\n"
     "    warnings.simplefilter('always')\n"
     "    discrank.evaluate(Elo(prior_scale=1.0), log, test_fraction=0.5, protocol='online')\n"
     "said = [str(w.message) for w in seen if w.category.__name__ == 'DisconnectedGraphWarning']",
     ok("len(said) == 2 and 'refits of the online protocol raised DisconnectedGraphWarning' in said[1]"))
files_case("cli_evaluate_dynamic_on_numeric_times_names_period", """
rng = np.random.default_rng(2); n = 300
ea = rng.integers(0, 6, n); eb = (ea + rng.integers(1, 6, n)) % 6
pd.DataFrame({'a': ea, 'b': eb, 's': (rng.random(n) < 0.5).astype(float), 't': np.arange(n)}).to_csv(tmp / 'n.csv', index=False)
base = ['evaluate', tmp / 'n.csv', '--score', 's', '--time', 't', '--test-fraction', '0.3', '--models', 'dynamic']
rc, err = run_cli(*base)
rc1, err1 = run_cli(*base, '--period', '20')
""", ok("rc == 2 and '--period WIDTH' in err and 'the times are numbers' in err and rc1 == 0"))


# ------------------------------------------------------------------ issue 34: arena boards
ARENA = ("rng = np.random.default_rng(0); n = 600\n"
         "ia = rng.integers(0, 5, n); ib = (ia + rng.integers(1, 5, n)) % 5\n"
         "votes = pd.DataFrame({'model_a': [f'm{k}' for k in ia], 'model_b': [f'm{k}' for k in ib], "
         "'winner': np.where(rng.random(n) < 0.55, 'model_a', np.where(rng.random(n) < 0.2, 'tie (bothbad)', "
         "'model_b')), 'len_a': rng.integers(1, 99, n), 'len_b': rng.integers(1, 99, n)})\n")
case("arena_bootstrap_of_a_billion_replicates_is_refused_before_any_allocation",
     ARENA + "discrank.arena_board(votes, ci='bootstrap', n_boot=10 ** 9)",
     raises("ValueError", "n_boot=1000000000 must be an integer in [2, 1000000]"))
case("arena_bootstrap_with_a_million_threads_warns_and_clamps",
     ARENA + "b = discrank.arena_board(votes, ci='bootstrap', n_boot=20, n_jobs=10 ** 6)",
     warns("ThreadCountWarning", "n_jobs=1000000"))
case("arena_style_of_infinite_lengths_is_refused_naming_the_row",
     ARENA + "votes['len_b'] = votes.len_b.astype(float); votes.loc[7, 'len_b'] = np.inf\ndiscrank.arena_board(votes, style='len')",
     raises("ValueError", "style column 'len_b', row 7"))
case("arena_votes_between_two_islands_are_refused",
     "votes = pd.DataFrame({'model_a': ['a', 'b', 'c', 'd'] * 5, 'model_b': ['b', 'a', 'd', 'c'] * 5, "
     "'winner': ['model_a', 'tie', 'model_b', 'model_a', 'tie'] * 4})\ndiscrank.arena_board(votes)",
     raises("ValueError", "the comparison graph is in 2 pieces"))
case("arena_truncated_json_lines_file_is_named",
     ARENA + "votes.to_json(tmp / 'v.jsonl', orient='records', lines=True)\n"
     "raw = (tmp / 'v.jsonl').read_text(); (tmp / 'v.jsonl').write_text(raw[:-25])\n"
     "discrank.arena_board(tmp / 'v.jsonl')",
     raises("ValueError", "v.jsonl', line 600: not a JSON object"))
case("arena_vote_drop_check_of_an_unknown_rank_names_it",
     ARENA + "discrank.arena_board(votes).votes_to_flip(rank=9)",
     raises("ValueError", "rank=9 must be an integer in [1, 5]"))
case("arena_board_bothbad_ignored_counts_the_votes_left",
     ARENA + "b = discrank.arena_board(votes, bothbad='ignore')",
     ok("int(b.frame.votes.sum()) == 2 * int((votes.winner != 'tie (bothbad)').sum())"))


# ------------------------------------------------------------------ the harness
def _child(code, check, conn):
    import warnings
    ns = {}
    caught = []
    try:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            exec(compile(PRELUDE + "\n" + code, "<case>", "exec"), ns)
            holds = bool(eval(check, ns)) if check is not None else None
        caught = [([c.__name__ for c in type(w.message).__mro__], str(w.message)) for w in record]
        conn.send(("finished", None, None, caught, holds))
    except BaseException as e:  # noqa: BLE001 - a case reports whatever it raised
        conn.send(("raised", [c.__name__ for c in type(e).__mro__], f"{type(e).__name__}: {e}", caught, None))
    finally:
        if "tmp" in ns:  # the prelude's temporary directory
            import shutil
            shutil.rmtree(ns["tmp"], ignore_errors=True)
    conn.close()


_DRIVER = """
import json, sys
sys.path.insert(0, {here!r})
import test_hostile

class _Conn:
    def send(self, message):
        self.message = message
    def close(self):
        print("@@RESULT@@" + json.dumps(self.message))

test_hostile._child({code!r}, {check!r}, _Conn())
"""


def _run(code, check=None, timeout=120.0, env=None):
    """Run ``code`` in a fresh process: forked from the forkserver, or, when the case sets environment
    variables that libraries read at load time, a new interpreter."""
    if env is not None:
        import json
        import subprocess
        import sys
        script = _DRIVER.format(here=os.path.dirname(os.path.abspath(__file__)), code=code, check=check)
        try:
            done = subprocess.run([sys.executable, "-c", script], env={**os.environ, **env}, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ("hang", None)
        for line in done.stdout.splitlines():
            if line.startswith("@@RESULT@@"):
                message = json.loads(line[len("@@RESULT@@"):])
                return (message[0], message)
        return ("crash", f"{done.returncode}; stderr: {done.stderr[-500:]}")
    ctx = mp.get_context("forkserver")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(code, check, child))
    proc.start()
    child.close()
    if not parent.poll(timeout):
        proc.kill()
        proc.join()
        return ("hang", None)
    try:
        message = parent.recv()
    except EOFError:
        message = None
    proc.join(timeout)
    if message is None:
        return ("crash", proc.exitcode)
    return (message[0], message)


def _check(name, code, expect, env=None):
    kind, what, fragment = expect
    how, message = _run(code, check=what if kind == "ok" else None, env=env)
    assert how not in ("crash", "hang"), f"{name}: the interpreter {how}ed ({message})"
    if kind == "raises":
        assert how == "raised", f"{name}: expected {what}, but it finished"
        mro, text = message[1], message[2]
        assert what in mro, f"{name}: expected {what}, got {text}"
        assert "internal error" not in text.lower(), f"{name}: {text}"
        assert fragment.lower() in text.lower(), f"{name}: {fragment!r} not in {text!r}"
    elif kind == "warns":
        assert how == "finished", f"{name}: expected a {what} warning, but it raised {message[2]}"
        found = [m for (mro, m) in message[3] if what in mro]
        assert found, f"{name}: no {what} among {message[3]}"
        assert any(fragment.lower() in m.lower() for m in found), f"{name}: {fragment!r} not in {found}"
    else:
        assert how == "finished", f"{name}: expected a result, but it raised {message[2]}"
        assert message[4], f"{name}: {what} does not hold"


@pytest.fixture(scope="module", autouse=True)
def _forkserver():
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["numpy", "pandas", "discrank", "discrank.cli", "discrank.online"])
    yield


@pytest.mark.parametrize("name,code,expect,env", CASES, ids=[c[0] for c in CASES])
def test_hostile_input(name, code, expect, env):
    _check(name, code, expect, env)


def test_the_battery_covers_every_class():
    assert len(CASES) >= 150, len(CASES)
    assert len({c[0] for c in CASES}) == len(CASES), "case names must be unique"
