"""The solvers' progress hook (discrank.solvers._optim.reporting): per context, restored on exit."""

import threading

import numpy as np
import pytest

from discrank import DiscDecomposition, Elo, PairwiseData
from discrank.solvers._optim import reporting


def small_log(seed=0, n=40, games=2000):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    skill = rng.normal(0.0, 1.0, n)
    score = (rng.random(games) < 1.0 / (1.0 + np.exp(-(skill[a] - skill[b])))).astype(float)
    return PairwiseData.from_games(a, b, score)


@pytest.mark.parametrize("model", [Elo(prior_scale=np.inf), Elo(solver="lbfgs", prior_scale=np.inf),
                                   DiscDecomposition(1, prior_scale=np.inf, random_state=0)],
                         ids=["newton", "lbfgs", "disc"])
def test_every_solver_reports_each_iteration_inside_the_block_only(model):
    data = small_log()
    calls = []
    with reporting(lambda it, f, measure: calls.append((it, f, measure))):
        model.fit(data)
    assert calls
    assert all(isinstance(it, int) and it >= 1 and np.isfinite(f) and measure >= 0 for it, f, measure in calls)
    if isinstance(model, Elo):
        assert [it for it, _, _ in calls] == list(range(1, model.n_iter_ + 1))
        assert calls[-1][2] == pytest.approx(model.grad_measure_)
    n = len(calls)
    model.fit(data)
    assert len(calls) == n


def test_blocks_nest_and_restore_the_previous_hook_on_an_exception():
    data = small_log()
    outer, inner = [], []
    with reporting(lambda *a: outer.append(a)):
        with pytest.raises(KeyError):
            with reporting(lambda *a: inner.append(a)):
                Elo(prior_scale=np.inf).fit(data)
                raise KeyError("stop")
        assert inner and not outer
        n_inner = len(inner)
        Elo(prior_scale=np.inf).fit(data)
        with reporting(None):
            Elo(prior_scale=np.inf).fit(data)
    assert outer and len(inner) == n_inner


def test_a_fit_in_another_thread_does_not_call_the_hook():
    data = small_log(seed=1)
    calls, seen = [], []
    with reporting(lambda *a: calls.append(threading.current_thread().name)):
        worker = threading.Thread(target=lambda: seen.append(Elo(prior_scale=np.inf).fit(data).n_iter_), name="worker")
        worker.start()
        worker.join()
        Elo(prior_scale=np.inf).fit(data)
    assert seen and seen[0] >= 1
    assert calls and "worker" not in calls
