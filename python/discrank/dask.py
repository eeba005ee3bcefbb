"""discrank on a Dask cluster (``pip install 'discrank[dask]'``): games aggregated by partition, and fits
whose pair kernel runs on the workers.

- :func:`aggregate`: a ``dask.dataframe`` of games to :class:`~discrank.PairwiseData`. Each partition's
  rows are screened by the readers' rules (:meth:`discrank.GameLog.from_frame`) and summed by pair in
  the core (``_core.aggregate_games``); a groupby on the pair's two labels adds the partitions' sums.
  The result is what ``GameLog.from_frame(df).to_pairs()`` gives for the whole frame.
- :func:`fit`: a model fitted with its pairs split into parts held by the workers. Each part's
  ``_core.PairObjective`` evaluates that part's loss, gradient, per-pair curvature and Laplacian
  products (the kernel the in-process fit calls); the driver runs the model's own solver
  (Newton's method, L-BFGS) and adds the parts' results in part order. The parts are built once per
  fit and stay on the workers; each call ships the parameters (n x k numbers) out and the part's
  value and gradient back. A part's curvature stays on its worker; if the worker is lost, Dask
  rebuilds the part from its task (the pairs are the task's arguments) and the part computes its
  curvature again at the parameters it was last computed at, so the fit goes on unchanged.
  The prior's tuning fits run the same way.
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings
from typing import Any, Optional

import numpy as np

from discrank import _core
from discrank._labels import as_label_array
from discrank._rows import advantage_columns, read_frame_rows
from discrank.data import PairwiseData, covariate_data

__all__ = ["aggregate", "fit", "DistributedObjective"]


def _require() -> None:
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:  # pragma: no cover - the extra is installed with the tests
        raise ImportError("discrank.dask needs dask and distributed: pip install 'discrank[dask]'") from exc


# ---------------------------------------------------------------------------------------------- aggregate
def _partition_sums(df: Any, spec: dict, partition_info: Optional[dict] = None) -> Any:
    """One partition's games summed by (label of the pair's first player, of its second[, covariates]):
    columns lo, hi, [x...], n (games), w (score sum of lo); the pair's players in label order."""
    import pandas as pd

    xnames = spec["xnames"]
    cols = ["lo", "hi", *xnames, "n", "w"]
    if len(df) == 0:
        return spec["meta"]
    where = "" if partition_info is None else f"partition {partition_info.get('number')}: "
    try:
        rows = read_frame_rows(df.reset_index(drop=True), spec["a"], spec["b"], spec["score"], spec["winner"],
                               spec["time"], start=spec["start"], end=spec["end"], invalid=spec["invalid"],
                               advantage=list(xnames) or None, empty_ok=True)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{where}{exc}") from None
    if rows.a.size == 0:
        return spec["meta"]
    a, b = as_label_array(rows.a, "a"), as_label_array(rows.b, "b")
    if a.dtype.kind == "U":
        a, b = a.astype(object), b.astype(object)
    uniq, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)  # codes in label order
    inverse = inverse.reshape(-1).astype(np.int32)
    ia, ib = inverse[: a.size], inverse[a.size:]
    score = np.asarray(rows.score, dtype=np.float64)
    if not xnames:
        lo, hi, games, wins = _core.aggregate_games(uniq.size, ia, ib, score, None)
        return pd.DataFrame({"lo": uniq[lo], "hi": uniq[hi], "n": games, "w": wins})[cols]
    swap = ia > ib
    lo = np.where(swap, ib, ia).astype(np.int64)
    hi = np.where(swap, ia, ib).astype(np.int64)
    y = np.where(swap, 1.0 - score, score)
    x = np.where(swap[:, None], -rows.advantage, rows.advantage) + 0.0
    frame = pd.DataFrame({"lo": lo, "hi": hi, **{c: x[:, k] for k, c in enumerate(xnames)}, "n": 1.0, "w": y})
    out = frame.groupby(["lo", "hi", *xnames], sort=True).sum().reset_index()
    out["lo"], out["hi"] = uniq[out["lo"].to_numpy()], uniq[out["hi"].to_numpy()]
    return out[cols]


def aggregate(ddf: Any, a: str = "a", b: str = "b", score: Optional[str] = None, winner: Optional[str] = None,
              time: Optional[str] = None, *, start: Any = None, end: Any = None, invalid: str = "raise",
              advantage: Any = None, weights: Optional[str] = None, split_out: int = 1) -> PairwiseData:
    """A ``dask.dataframe`` of games aggregated to pairs: partition-wise sums in the core, then a groupby
    on the pair's labels (module docstring).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per game.
    a, b, score, winner, time, start, end, invalid, advantage
        As in :meth:`discrank.GameLog.from_frame` (``invalid="drop"`` drops the invalid rows of each
        partition; the count is not reported).
    weights : {"games", "uniform"}, optional
        As in :class:`~discrank.PairwiseData`.
    split_out : int
        Partitions of the groupby's result (for pair tables too large for one).

    Returns
    -------
    PairwiseData
        Labels sorted; with ``advantage``, the games kept by covariate value, as
        :meth:`GameLog.to_pairs` keeps them. Identical to the in-memory aggregation for scores that are
        multiples of 1/2.

    Raises
    ------
    ValueError
        An invalid row (``invalid="raise"``: its partition, row and value), a missing column, or no game.
    """
    _require()
    import pandas as pd

    if (score is None) == (winner is None):
        raise ValueError("give exactly one of score= (results of a) and winner= (label of the winner)")
    xnames = tuple(advantage_columns(advantage))
    for role, col in (("a", a), ("b", b), ("score", score), ("winner", winner), ("time", time),
                      *(("advantage", c) for c in xnames)):
        if col is not None and col not in ddf.columns:
            raise ValueError(f"column {col!r} (for {role}) is not in the frame; its columns are {list(ddf.columns)}")
    label_dtype = ddf[a].dtype
    kind = object if label_dtype == object or str(label_dtype).startswith(("string", "str")) else np.int64
    meta = pd.DataFrame({"lo": pd.Series([], dtype=kind), "hi": pd.Series([], dtype=kind),
                         **{c: pd.Series([], dtype=np.float64) for c in xnames},
                         "n": pd.Series([], dtype=np.float64), "w": pd.Series([], dtype=np.float64)})
    spec = dict(a=a, b=b, score=score, winner=winner, time=time, start=start, end=end, invalid=invalid,
                xnames=xnames, meta=meta)
    sums = ddf.map_partitions(_partition_sums, spec, meta=meta)
    keys = ["lo", "hi", *xnames]
    table = sums.groupby(keys, sort=False).agg({"n": "sum", "w": "sum"}, split_out=split_out).compute()
    table = table.reset_index()
    if len(table) == 0:
        raise ValueError("no valid game in the frame")
    lo_lab, hi_lab = table["lo"].to_numpy(), table["hi"].to_numpy()
    labels, codes = np.unique(np.concatenate([lo_lab, hi_lab]), return_inverse=True)
    codes = codes.reshape(-1)
    if labels.dtype.kind == "O":
        labels = as_label_array(labels, "labels")
    m = len(table)
    lo, hi = codes[:m].astype(np.int32), codes[m:].astype(np.int32)
    n, w = table["n"].to_numpy(np.float64), table["w"].to_numpy(np.float64)
    if not xnames:
        idx = np.lexsort((hi, lo))
        p = w[idx] / n[idx]
        np.clip(p, 0.0, 1.0, out=p)
        return PairwiseData._trusted(lo[idx], hi[idx], p, n[idx], labels, weights or "games")
    x = table[list(xnames)].to_numpy(np.float64)
    values, xc = np.unique(x, axis=0, return_inverse=True)
    xc = xc.reshape(-1)
    idx = np.lexsort((xc, hi, lo))
    lo, hi, n, w, xc = lo[idx], hi[idx], n[idx], w[idx], xc[idx]
    new = np.ones(m, dtype=bool)
    new[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    first = np.flatnonzero(new)
    return covariate_data(np.cumsum(new) - 1, lo[first], hi[first], n, w, values[xc], xnames, labels, weights)


# ---------------------------------------------------------------------------------------------- fit
class _Part:
    """A part of a fit's pairs on a worker: its arrays, its compiled kernel, and its last curvature."""

    def __init__(self, n_players: int, i: np.ndarray, j: np.ndarray, p: np.ndarray, w: np.ndarray) -> None:
        self.n_players = int(n_players)
        self.i, self.j = np.ascontiguousarray(i, np.int32), np.ascontiguousarray(j, np.int32)
        self.p, self.w = np.ascontiguousarray(p, np.float64), np.ascontiguousarray(w, np.float64)
        self.kernel = _core.PairObjective(self.n_players, self.i, self.j, self.p, self.w)
        self.curv: Optional[np.ndarray] = None
        self.curv_token: Any = None

    def __reduce__(self):  # moved between workers: rebuilt from its arrays, its curvature recomputed
        return (_Part, (self.n_players, self.i, self.j, self.p, self.w))

    def ensure_curv(self, token: Any, replay: tuple, n_threads: int) -> np.ndarray:
        """The curvature of the evaluation ``token``; recomputed from ``replay`` (its arguments) when this
        part has another (a part rebuilt after its worker was lost)."""
        if self.curv_token != token:
            loss, U, V, s, offset = replay
            curv = np.empty(self.i.size)
            self.kernel.evaluate(loss, U=U, V=V, s=s, offset=offset, curv=curv, n_threads=n_threads)
            self.curv, self.curv_token = curv, token
        return self.curv


def _evaluate(part: _Part, loss, U, V, s, offset, grad_u, grad_v, grad_s, token, n_threads):
    curv = None if token is None else np.empty(part.i.size)
    out = part.kernel.evaluate(loss, U=U, V=V, s=s, offset=offset, grad_u=grad_u, grad_v=grad_v, grad_s=grad_s,
                               curv=curv, n_threads=n_threads)
    if token is not None:
        part.curv, part.curv_token = curv, token
    return out


def _hessp(part: _Part, curv, x, token, replay, n_threads):
    return part.kernel.hessp_s(_vector(part, curv, token, replay, n_threads), x, n_threads=n_threads)


def _vector(part: _Part, v, token, replay, n_threads):
    """The per-pair vector a call names: this part's curvature, its weights, or the slice shipped."""
    if isinstance(v, str):
        return part.w if v == "w" else part.ensure_curv(token, replay, n_threads)
    return v


def _player_sums(part: _Part, v, token, replay, n_threads):
    return part.kernel.player_sums(_vector(part, v, token, replay, n_threads), n_threads=n_threads)


def _opponent_sums(part: _Part, v, c, token, replay, n_threads):
    return part.kernel.opponent_sums(_vector(part, v, token, replay, n_threads), c, n_threads=n_threads)


def _score_sums(part: _Part, n_threads):
    return part.kernel.score_sums(n_threads=n_threads)


class DistributedObjective:
    """The interface of ``_core.PairObjective`` over pairs split into parts held by Dask workers.

    Built by :func:`fit`; the models' solvers call it as they call the in-process kernel. Per-pair
    arrays: the curvature an :meth:`evaluate` call fills stays on the workers (the caller's array is
    filled with NaN, and naming it in :meth:`hessp_s`, :meth:`player_sums` or :meth:`opponent_sums`
    uses the workers' copy); the fit's weights ``w`` are the parts' own; other per-pair arrays (the
    covariates' offsets, a curvature computed on the driver) are split and shipped with each call.
    """

    _tokens = itertools.count()

    def __init__(self, client: Any, n_players: int, i: np.ndarray, j: np.ndarray, p: np.ndarray, w: np.ndarray,
                 n_parts: int, worker_threads: int = 1) -> None:
        self.client = client
        self._n_players, self._n_pairs = int(n_players), int(i.shape[0])
        self.n_threads = int(worker_threads)
        self.w = w
        n_parts = max(1, min(int(n_parts), self._n_pairs))
        self.bounds = np.linspace(0, self._n_pairs, n_parts + 1).astype(np.int64)
        with warnings.catch_warnings():
            # the pairs go in the parts' tasks on purpose: a part lost with its worker is rebuilt from them
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            self.parts = [client.submit(_Part, n_players, i[a:b], j[a:b], p[a:b], w[a:b], pure=False)
                          for a, b in zip(self.bounds[:-1], self.bounds[1:])]
        self._curv: Any = None  # (the caller's array, its token)
        self._replays: list = []
        self.n_calls = 0

    @property
    def n_players(self) -> int:
        return self._n_players

    @property
    def n_pairs(self) -> int:
        return self._n_pairs

    @property
    def strategy(self) -> str:
        return "distributed"

    def _slices(self, v: Optional[np.ndarray]) -> list:
        if v is None:
            return [None] * len(self.parts)
        return [np.ascontiguousarray(v[a:b]) for a, b in zip(self.bounds[:-1], self.bounds[1:])]

    def _named(self, v: np.ndarray) -> list:
        """What the workers use for the per-pair vector ``v``: a name, or its slices."""
        if self._curv is not None and v is self._curv[0]:
            return ["curv"] * len(self.parts)
        if v is self.w:
            return ["w"] * len(self.parts)
        return self._slices(v)

    def evaluate(self, loss, U=None, V=None, s=None, offset=None, grad_u=False, grad_v=False, grad_s=False,
                 curv=None, n_threads=0):
        token = None if curv is None else next(self._tokens)
        outs = self._run_evaluate(loss, U, V, s, self._slices(offset), grad_u, grad_v, grad_s, token)
        if curv is not None:
            curv.fill(np.nan)  # the curvature is the workers'
            self._curv = (curv, token)
        value = 0.0
        grads: list = [None, None, None]
        for out in outs:  # in part order: the same sums whatever the workers
            value += out[0]
            for k in range(3):
                if out[k + 1] is not None:
                    grads[k] = out[k + 1].copy() if grads[k] is None else grads[k] + out[k + 1]
        return (value, *grads)

    def _run_evaluate(self, loss, U, V, s, offsets, grad_u, grad_v, grad_s, token):
        self.n_calls += 1
        futures = []
        for k, part in enumerate(self.parts):
            futures.append(self.client.submit(_evaluate, part, loss, U, V, s, offsets[k], grad_u, grad_v, grad_s,
                                              token, self.n_threads, pure=False))
        if token is not None:
            self._replays = [(loss, U, V, s, offsets[k]) for k in range(len(self.parts))]
        return self.client.gather(futures)

    def _curv_calls(self) -> tuple[list, list]:
        if self._curv is None:
            return [None] * len(self.parts), [None] * len(self.parts)
        return [self._curv[1]] * len(self.parts), self._replays

    def hessp_s(self, curv, x, n_threads=0):
        named = self._named(curv)
        tokens, replays = self._curv_calls()
        self.n_calls += 1
        futures = [self.client.submit(_hessp, part, named[k], x, tokens[k], replays[k], self.n_threads, pure=False)
                   for k, part in enumerate(self.parts)]
        return _sum(self.client.gather(futures))

    def player_sums(self, v, n_threads=0):
        named = self._named(v)
        tokens, replays = self._curv_calls()
        self.n_calls += 1
        futures = [self.client.submit(_player_sums, part, named[k], tokens[k], replays[k], self.n_threads, pure=False)
                   for k, part in enumerate(self.parts)]
        return _sum(self.client.gather(futures))

    def opponent_sums(self, v, c, n_threads=0):
        named = self._named(v)
        tokens, replays = self._curv_calls()
        self.n_calls += 1
        futures = [self.client.submit(_opponent_sums, part, named[k], c, tokens[k], replays[k], self.n_threads,
                                      pure=False) for k, part in enumerate(self.parts)]
        return _sum(self.client.gather(futures))

    def score_sums(self, n_threads=0):
        self.n_calls += 1
        futures = [self.client.submit(_score_sums, part, self.n_threads, pure=False) for part in self.parts]
        outs = self.client.gather(futures)
        return tuple(_sum([o[k] for o in outs]) for k in range(3))

    def stream_limit(self, loss, n_threads=0):  # pragma: no cover - not called by the solvers
        raise NotImplementedError("stream_limit is not distributed")

    def close(self) -> None:
        """Release the parts on the workers."""
        for f in self.parts:
            f.release()
        self.parts = []


def _sum(arrays: list) -> np.ndarray:
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out


def fit(model: Any, data: Any, client: Any = None, *, n_parts: Optional[int] = None, worker_threads: int = 1,
        **fit_kw: Any) -> Any:
    """Fit ``model`` on ``data`` with its pair kernel on the workers of a Dask cluster (module docstring).

    Parameters
    ----------
    model : Elo, EloPlusPlus, DiscDecomposition or MElo
        An unfitted (or refitted) stationary model; its solver, prior and tuning are those of
        ``model.fit``.
    data : PairwiseData or dask.dataframe.DataFrame
        The pairs, or games to :func:`aggregate` first (``a="a", b="b", score="score"`` columns, or
        those given in ``fit_kw``).
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    n_parts : int, optional
        Parts of the pairs; default one per worker thread.
    worker_threads : int
        The core's threads per part call (1 suits one-thread workers).
    **fit_kw
        Passed to :func:`aggregate` when ``data`` is a dask DataFrame.

    Returns
    -------
    model
        Fitted; ``model.dask_calls_`` is the number of kernel calls made on the cluster. The fitted
        attributes equal the in-process fit's to rounding (the parts' sums are added in another order).
    """
    _require()
    from distributed import get_client

    client = client or get_client()
    if not isinstance(data, PairwiseData):
        data = aggregate(data, **fit_kw)
    elif fit_kw:
        raise TypeError(f"unexpected arguments {sorted(fit_kw)}: they are aggregate()'s, for a dask DataFrame")
    if n_parts is None:
        n_parts = max(1, sum(client.nthreads().values()))
    made: list[DistributedObjective] = []
    cls_build = type(model)._build_fit_data

    def build(pairs: PairwiseData, stacklevel: int = 2):
        fd = cls_build(model, pairs, stacklevel + 1)
        obj = DistributedObjective(client, fd.n_players, fd.i, fd.j, fd.p, fd.w, n_parts, worker_threads)
        made.append(obj)
        return dataclasses.replace(fd, objective=obj, _cache={})

    model._build_fit_data = build
    try:
        model.fit(data)
    finally:
        del model._build_fit_data
        for obj in made:
            obj.close()
    model.dask_calls_ = sum(obj.n_calls for obj in made)
    return model
