"""The parts of a fit on a Dask cluster (:mod:`discrank.dask`): the actors that hold a share of the pairs
(or of the dynamic model's rows) on the workers, rebuilt when a worker is lost, and the driver's view of
them as one objective, whose sums are completed as the kernel completes its own (the reduction tree)."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

import numpy as np

from discrank.core import _core
from discrank.solvers._history_build import History
from discrank.solvers._history_core import CorePart, core_rows

__all__ = ["PartGroup", "DistributedObjective", "DistributedRows", "LEAVES", "LOST_WORKER_TIMEOUT", "live_workers",
           "leaf_first_pair", "tree_cover", "tree_sum", "part_bounds"]

#: How long a call waits for the scheduler to drop a worker it can no longer reach, and for a live
#: worker to rebuild a lost part on (seconds).
LOST_WORKER_TIMEOUT = 120.0


class PartGroup:
    """Stateful parts of a fit held on the workers as Dask actors, called in parallel, results in part order.

    An actor's method call goes from the driver to its worker directly, and the part keeps its state (its
    compiled kernel, its last per-pair curvature) between calls. A call that cannot reach a part's worker
    waits until the scheduler has dropped it, rebuilds the part on a live worker from the arguments the
    driver holds, lets its owner restore its state (``restore``) and repeats the call: the calls are
    deterministic, so it returns what the lost one would have.

    Parameters
    ----------
    client : distributed.Client
    factory : callable
        Builds a part from the arguments of ``args[k]`` (on a worker).
    args : list of tuple
        Each part's arguments (numpy arrays are shipped to the part's worker, not copied on the driver).
    first : int
        The worker of the first part, in the cluster's order (the parts go round the workers from it).
    """

    def __init__(self, client: Any, factory: Any, args: list, first: int = 0) -> None:
        self.client, self.factory, self.args = client, factory, args
        workers = live_workers(client)
        if not workers:
            raise RuntimeError("the Dask cluster has no worker")
        self.workers = [workers[(first + k) % len(workers)] for k in range(len(args))]
        self.futures = self._submit(range(len(args)))
        self.actors = [f.result() for f, _ in self.futures]
        self.rebuilt = 0  # parts rebuilt after their worker was lost
        self.n_calls = 0
        #: called with a rebuilt part's index before the call is repeated on it (to restore its state)
        self.restore: Optional[Callable[[int], None]] = None

    def _submit(self, parts: Any) -> list:
        """Build the parts ``parts`` on their workers (all at once); their futures, each with the futures of
        its scattered arguments (the part holds those arrays themselves: keeping them costs no memory)."""
        data = [self.client.scatter(list(self.args[k]), workers=[self.workers[k]], hash=False, direct=True)
                for k in parts]
        futures = [self.client.submit(self.factory, *d, actor=True, workers=[self.workers[k]], pure=False)
                   for k, d in zip(parts, data)]
        for f in futures:
            f.result()
        return list(zip(futures, data))

    def call(self, method: str, per_part: list) -> list:
        """``method(*per_part[k])`` on every part ``k`` at once; the results in part order."""
        return self.collect(method, per_part, self.send(method, per_part))

    def send(self, method: str, per_part: list) -> list:
        """Start ``method(*per_part[k])`` on every part ``k``: the pending calls, for :meth:`collect` (another
        group's calls may be started before this group's results are awaited)."""
        self.n_calls += 1
        return [self._send(actor, method, a) for actor, a in zip(self.actors, per_part)]

    def collect(self, method: str, per_part: list, pending: list) -> list:
        """The results of the calls :meth:`send` started, in part order; a part whose worker was lost is rebuilt,
        restored and called again."""
        out = []
        for k, fut in enumerate(pending):
            try:
                if fut is None:
                    raise OSError("the part's worker was lost")
                out.append(fut.result())
            except OSError:  # the part's worker cannot be reached (CommClosedError is an OSError)
                self._rebuild(k)
                if self.restore is not None:
                    self.restore(k)
                out.append(getattr(self.actors[k], method)(*per_part[k]).result())
        return out

    @staticmethod
    def _send(actor: Any, method: str, args: tuple) -> Any:
        """The future of ``method(*args)`` on ``actor``; None when the actor's worker is already known lost (a
        part of another group on the same worker met the loss first: Dask's actor then refuses the call with a
        RuntimeError, "Worker holding Actor was lost")."""
        try:
            return getattr(actor, method)(*args)
        except RuntimeError as exc:
            if "lost" not in str(exc):
                raise
            return None

    def _rebuild(self, k: int) -> None:
        lost = self.workers[k]
        deadline = time.monotonic() + LOST_WORKER_TIMEOUT
        while True:
            live = set(live_workers(self.client))
            if lost not in live and live:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"part {k} of the fit cannot reach its worker {lost}, and no other worker took "
                                   f"its place within {LOST_WORKER_TIMEOUT:.0f} s")
            time.sleep(0.05)
        held = {w: 0 for w in live}
        for w in self.workers:
            if w in held:
                held[w] += 1
        self.workers[k] = min(sorted(held), key=held.get)  # the live worker holding the fewest parts
        _release(self.futures[k])
        self.futures[k] = self._submit([k])[0]
        self.actors[k] = self.futures[k][0].result()
        self.rebuilt += 1

    def close(self) -> None:
        """Release the parts on the workers."""
        for f in self.futures:
            _release(f)
        self.futures, self.actors, self.args = [], [], []


def live_workers(client: Any) -> list:
    """The addresses of the workers the scheduler holds now, sorted (asked of the scheduler on each call, not
    of ``client.scheduler_info()``'s cached identity)."""
    return sorted(client.nthreads())


def _release(part: tuple) -> None:
    """Release a part's actor and its scattered arguments."""
    part[0].release()
    for piece in part[1]:
        piece.release()


LEAVES = _core.REDUCTION_LEAVES  # the leaves (chunks of pairs) of the kernel's per-player sums' tree


def leaf_first_pair(n_pairs: int, c: int) -> int:
    """The first pair of leaf ``c`` of the kernel's reduction tree over ``n_pairs`` pairs (``c = LEAVES``:
    ``n_pairs``): leaves are whole blocks of ``_core.BLOCK_PAIRS`` pairs (``PairSet::chunk_first_pair``)."""
    n_blocks = -(-int(n_pairs) // _core.BLOCK_PAIRS)
    return min(int(n_pairs), (c * n_blocks // LEAVES) * _core.BLOCK_PAIRS)


def tree_cover(lo: int, hi: int) -> list:
    """The largest nodes ``(first leaf, level)`` of the pairwise tree over the leaves inside ``[lo, hi)``, left
    to right (``cover`` in sums.hpp): a part holding those leaves returns one row per node."""
    nodes, c = [], lo
    while c < hi:
        level = 0
        while c % (2 << level) == 0 and c + (2 << level) <= hi:
            level += 1
        nodes.append((c, level))
        c += 1 << level
    return nodes


def tree_sum(covers: list, outs: list) -> np.ndarray:
    """The root of the pairwise tree from the parts' node rows (``outs[k][r]``: node ``covers[k][r]``), each
    node made as its left child plus its right child, as the kernel folds its leaves: the whole set's sum,
    bit for bit."""
    held = {node: out[r] for cover, out in zip(covers, outs) for r, node in enumerate(cover)}
    step, level = 1, 0
    while step < LEAVES:
        for c in range(0, LEAVES, 2 * step):
            if (c, level) in held and (c + step, level) in held:
                held[(c, level + 1)] = held.pop((c, level)) + held.pop((c + step, level))
        step, level = 2 * step, level + 1
    return held.pop((0, level))


class _Part:
    """A part of a fit's pairs on a worker: its arrays, its compiled kernel, and its last curvature.

    ``where = (total, first pair, lo, hi)``: the part holds the leaves ``[lo, hi)`` of the kernel's
    reduction tree over all the fit's ``total`` pairs: its per-player results are the rows of its nodes
    (:func:`tree_cover`), and its loss is its blocks' losses, which the driver adds as the in-process
    kernel does (``(m, 0, 0, LEAVES)``: its ``m`` pairs are a set of their own, one row per result).

    The methods are the calls of :class:`DistributedObjective`; a per-pair vector named ``"curv"`` is
    the curvature of the last evaluation that asked for one, ``"w"`` the part's weights."""

    def __init__(self, n_players: int, i: np.ndarray, j: np.ndarray, p: np.ndarray, w: np.ndarray,
                 where: tuple) -> None:
        self.n_players = int(n_players)
        self.i, self.j = np.ascontiguousarray(i, np.int32), np.ascontiguousarray(j, np.int32)
        self.p, self.w = np.ascontiguousarray(p, np.float64), np.ascontiguousarray(w, np.float64)
        self.kernel = _core.PairObjective(self.n_players, self.i, self.j, self.p, self.w, part=where)
        self.curv: Optional[np.ndarray] = None

    def _vector(self, v):
        """The per-pair vector a call names: this part's curvature, its weights, or the slice shipped."""
        if not isinstance(v, str):
            return v
        return self.w if v == "w" else self.curv

    def evaluate(self, loss, U, V, s, offset, grad_u, grad_v, grad_s, with_curv, n_threads):
        """The kernel's evaluation: the blocks' losses and the gradients' nodes; ``with_curv``: the
        curvature kept, and its player sums' nodes (the solvers' next call: the Laplacian's diagonal) sent
        with the result to save a round trip."""
        curv = np.empty(self.i.size) if with_curv else None
        out = self.kernel.evaluate(loss, U=U, V=V, s=s, offset=offset, grad_u=grad_u, grad_v=grad_v,
                                   grad_s=grad_s, curv=curv, n_threads=n_threads)
        out = (self.kernel.block_losses(), *out[1:])
        if not with_curv:
            return out, None
        self.curv = curv
        return out, self.kernel.player_sums(curv, n_threads=n_threads)

    def hessp_s(self, v, x, n_threads):
        return self.kernel.hessp_s(self._vector(v), x, n_threads=n_threads)

    def player_sums(self, v, n_threads):
        return self.kernel.player_sums(self._vector(v), n_threads=n_threads)

    def opponent_sums(self, v, c, n_threads):
        return self.kernel.opponent_sums(self._vector(v), c, n_threads=n_threads)

    def score_sums(self, n_threads):
        return self.kernel.score_sums(n_threads=n_threads)

    def curvature(self):
        return self.curv


class DistributedObjective:
    """The interface of ``_core.PairObjective`` over pairs split into parts held by Dask workers.

    Built by :func:`fit`; the models' solvers call it as they call the in-process kernel. The parts are
    :class:`_Part` actors of a :class:`PartGroup`. Up to ``LEAVES`` (16) parts are cut at the leaves of the
    kernel's reduction tree and added as the kernel adds them (:func:`tree_sum`): every call returns the
    in-process kernel's numbers bit for bit (``exact``). More parts are cut evenly and summed in part order.
    The curvature an :meth:`evaluate` call fills stays on the workers (the caller's array holds NaN until
    :meth:`gather` fetches it; naming it in a call uses the workers' copy); the weights ``w`` are the parts'
    own; other per-pair arrays are split and shipped with each call.
    """

    def __init__(self, client: Any, n_players: int, i: np.ndarray, j: np.ndarray, p: np.ndarray, w: np.ndarray,
                 n_parts: int, worker_threads: int = 1) -> None:
        self._n_players, self._n_pairs = int(n_players), int(i.shape[0])
        self.n_threads = int(worker_threads)
        self.w = w
        n_parts = max(1, int(n_parts))
        self.exact = n_parts <= LEAVES
        if self.exact:  # parts at the kernel's leaves, summed as the kernel sums
            leaves = [k * LEAVES // n_parts for k in range(n_parts + 1)]
            self.covers: Optional[list] = [tree_cover(lo, hi) for lo, hi in zip(leaves[:-1], leaves[1:])]
            self.bounds = np.array([leaf_first_pair(self._n_pairs, c) for c in leaves], np.int64)
            where: list = [(self._n_pairs, a, lo, hi) for a, lo, hi in zip(self.bounds, leaves[:-1], leaves[1:])]
        else:  # more parts than leaves: each part a set of its own, the parts summed in part order
            self.covers, self.bounds = None, part_bounds(self._n_pairs, n_parts)
            where = [(int(b - a), 0, 0, LEAVES) for a, b in zip(self.bounds[:-1], self.bounds[1:])]
        self.group = PartGroup(client, _Part, [(n_players, i[a:b], j[a:b], p[a:b], w[a:b], at)
                                               for a, b, at in zip(self.bounds[:-1], self.bounds[1:], where)])
        self.group.restore = self._restore
        self._curv: Optional[np.ndarray] = None  # the caller's array of the last evaluation with a curvature
        self._curv_sums: Optional[np.ndarray] = None  # its player sums
        self._replay: Optional[list] = None  # that evaluation's arguments, part by part

    def _sum(self, outs: list) -> np.ndarray:
        return _sum([o[0] for o in outs]) if self.covers is None else tree_sum(self.covers, outs)

    def _restore(self, k: int) -> None:
        """A rebuilt part computes the curvature of the last evaluation that kept one."""
        if self._replay is not None:
            self.group.actors[k].evaluate(*self._replay[k]).result()

    @property
    def n_players(self) -> int:
        return self._n_players

    @property
    def n_pairs(self) -> int:
        return self._n_pairs

    @property
    def n_calls(self) -> int:
        return self.group.n_calls

    @property
    def rebuilt(self) -> int:
        """Parts rebuilt after their worker was lost."""
        return self.group.rebuilt

    @property
    def strategy(self) -> str:
        return "distributed"

    def _slices(self, v: Optional[np.ndarray]) -> list:
        if v is None:
            return [None] * len(self.group.args)
        return [np.ascontiguousarray(v[a:b]) for a, b in zip(self.bounds[:-1], self.bounds[1:])]

    def _per_part(self, v: np.ndarray, *args: Any) -> list:
        """Each part's arguments of a call on the per-pair vector ``v`` (its name where the part holds it:
        the curvature, the weights; else its slice), then ``args`` and the threads."""
        if self._curv is not None and v is self._curv:
            named = ["curv"] * len(self.group.args)
        elif v is self.w:
            named = ["w"] * len(self.group.args)
        else:
            named = self._slices(v)
        return [(named[k], *args, self.n_threads) for k in range(len(named))]

    def evaluate(self, loss, U=None, V=None, s=None, offset=None, grad_u=False, grad_v=False, grad_s=False,
                 curv=None, n_threads=0):
        offsets = self._slices(offset)
        calls = [(loss, U, V, s, o, grad_u, grad_v, grad_s, curv is not None, self.n_threads) for o in offsets]
        outs = self.group.call("evaluate", calls)
        if curv is not None:
            curv.fill(np.nan)  # the curvature is the workers'
            self._curv, self._replay = curv, [(*c[:5], False, False, False, True, c[-1]) for c in calls]
            self._curv_sums = self._sum([o[1] for o in outs])
        outs = [o[0] for o in outs]
        value = _core.compensated_sum(np.concatenate([o[0] for o in outs]))
        grads = [None if outs[0][k] is None else self._sum([o[k] for o in outs]) for k in (1, 2, 3)]
        return (value, *grads)

    def hessp_s(self, curv, x, n_threads=0):
        return self._sum(self.group.call("hessp_s", self._per_part(curv, x)))

    def player_sums(self, v, n_threads=0):
        if self._curv is not None and v is self._curv:  # sent with the evaluation
            return self._curv_sums.copy()
        return self._sum(self.group.call("player_sums", self._per_part(v)))

    def opponent_sums(self, v, c, n_threads=0):
        return self._sum(self.group.call("opponent_sums", self._per_part(v, c)))

    def score_sums(self, n_threads=0):
        outs = self.group.call("score_sums", [(self.n_threads,)] * len(self.group.args))
        return tuple(self._sum([o[k] for o in outs]) for k in range(3))

    def gather(self, v: np.ndarray) -> np.ndarray:
        """``v`` filled with its values where the workers hold them (the curvature: the banded Cholesky
        solve of ``discrank.solvers._newton`` needs it on the driver); ``v`` itself."""
        if self._curv is not None and v is self._curv:
            v[:] = np.concatenate(self.group.call("curvature", [()] * len(self.group.args)))
        return v

    def stream_limit(self, loss, n_threads=0):  # pragma: no cover - not called by the solvers
        raise NotImplementedError("stream_limit is not distributed")

    def close(self) -> None:
        """Release the parts on the workers."""
        self.group.close()


class DistributedRows:
    """The games' terms of :class:`~discrank.DynamicElo`'s whole-history MAP over a history's rows split into
    parts held by Dask workers.

    Each part is a :class:`discrank.solvers._history_core.CorePart` actor of a :class:`PartGroup`: the core's
    problem over a contiguous range of the results' rows and of the margin rows, with their features, without
    the chains and priors. It evaluates its rows' value and gradient, keeps their curvature, and gives its part
    of the Hessian's products, diagonal and global block. The driver runs Newton's method and adds the parts'
    results in part order. A rebuilt part evaluates the last point again.
    """

    def __init__(self, client: Any, h: History, draws: Any, n_parts: int, worker_threads: int = 1,
                 context_scale: float = 0.0, margin_scale: float = 0.0, disc: int = 0, disc_scale: float = 0.0,
                 propensity_scale: float = 0.0, format_scales: Optional[np.ndarray] = None) -> None:
        """The parts of ``h``'s rows with the features of :func:`discrank.solvers._history.solve_history`'s arguments (the
        priors' scales are the driver's)."""
        propensity = propensity_scale > 0
        self.n_threads = int(worker_threads)
        self.bounds = part_bounds(h.lo.size, n_parts)
        k = self.bounds.size - 1
        margins = np.linspace(0, 0 if h.margin is None else h.margin[0].size, k + 1).astype(np.int64)
        self.group = PartGroup(client, CorePart, [
            (core_rows(h, draws, margin_scale, format_scales, disc, propensity, slice(a, b), slice(c, d)),
             self.n_threads)
            for a, b, c, d in zip(self.bounds[:-1], self.bounds[1:], margins[:-1], margins[1:])])
        self.group.restore = self._restore
        self._last: Optional[np.ndarray] = None

    def _restore(self, k: int) -> None:
        if self._last is not None:
            self.group.actors[k].value_grad(self._last).result()

    def _all(self, method: str, *args: Any) -> list:
        """Every part's ``method(*args)``, in part order."""
        return self.group.call(method, [args] * len(self.group.args))

    def value_grad(self, theta: np.ndarray) -> tuple:
        outs = self._all("value_grad", theta)
        self._last = theta
        value = 0.0
        for out in outs:  # in part order
            value += out[0]
        with np.errstate(invalid="ignore"):  # (a point outside the draw model: an infinite value, the driver backs off)
            return value, _sum([o[1] for o in outs])

    def diagonal(self) -> np.ndarray:
        return _sum(self._all("diagonal"))

    def global_block(self) -> np.ndarray:
        return _sum(self._all("global_block"))

    def hessp(self, v: np.ndarray) -> np.ndarray:
        return _sum(self._all("hessp", v))

    @property
    def n_calls(self) -> int:
        return self.group.n_calls

    @property
    def rebuilt(self) -> int:
        """Parts rebuilt after their worker was lost."""
        return self.group.rebuilt

    def close(self) -> None:
        """Release the parts on the workers."""
        self.group.close()


def part_bounds(n: int, n_parts: int) -> np.ndarray:
    """The bounds of ``n_parts`` contiguous parts of ``n`` entries (at least one entry each)."""
    n_parts = max(1, min(int(n_parts), int(n)))
    return np.linspace(0, n, n_parts + 1).astype(np.int64)


def _sum(arrays: list) -> np.ndarray:
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out
