"""discrank on a Dask cluster (``pip install 'discrank[dask]'``): games aggregated by partition, and fits
whose pair kernel runs on the workers.

- :func:`aggregate`: a ``dask.dataframe`` of games to :class:`~discrank.PairwiseData`. Each partition's
  rows are screened by the readers' rules and summed by pair in the core; a groupby on the pair's labels adds
  the partitions' sums: what ``GameLog.from_frame(df).to_pairs()`` gives for the whole frame.
- :func:`fit`: a model fitted with its pairs (or :class:`~discrank.DynamicElo`'s rows over player-periods)
  split into parts held by the workers as Dask actors (:class:`PartGroup`). Each part evaluates its share of
  the loss, gradient, curvature and Laplacian or Hessian products with the in-process kernel
  (``_core.PairObjective``, ``_core.HistoryProblem``); the driver runs the model's own solver, the prior's
  tuning fits included. Up to 16 parts, the stationary models' parts are cut and added where the kernel's
  reduction tree cuts and adds its sums, so the fit equals the in-process fit bit for bit; more parts, and
  the dynamic model's, are added in part order (the same point to rounding). The parts are built once per
  fit and stay on the workers; each call ships the parameters out and the value and gradient back. A lost
  worker's parts are rebuilt on a live worker and the call repeated, to the same numbers. A
  :class:`~discrank.DynamicElo` fitted here updates in the process that holds it, with no call on the cluster.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from discrank.core import _core
from discrank.dask._parts import (LEAVES, LOST_WORKER_TIMEOUT, DistributedObjective, DistributedRows,  # noqa: F401
                                  PartGroup, leaf_first_pair, live_workers, tree_cover, tree_sum)
from discrank.solvers._history import History
from discrank._util.labels import as_label_array
from discrank._util.progress import speaking
from discrank.data._rows import advantage_columns, read_frame_rows
from discrank.data._screen import MAX_INVALID, check_max_invalid, refuse_mostly_invalid
from discrank.data.pairs import PairwiseData, covariate_data
from discrank._util.threads import one_blas_thread
from discrank.data._votes import check_bothbad, check_ties, tie_games, vote_frame
from discrank.models._base import atomic
from discrank.models._pairwise import PairwiseModel

__all__ = ["aggregate", "fit", "DistributedObjective", "DistributedRows", "PartGroup"]


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
    df, row0 = vote_frame(df.reset_index(drop=True), spec["winner"], spec["bothbad"])
    if len(df) == 0:
        return spec["meta"]
    try:
        rows = read_frame_rows(df, spec["a"], spec["b"], spec["score"], spec["winner"], spec["time"],
                               start=spec["start"], end=spec["end"], invalid=spec["invalid"],
                               advantage=list(xnames) or None, row0=row0, empty_ok=True)
        n_invalid = sum(rows.dropped.values())
        refuse_mostly_invalid(n_invalid, rows.a.size + n_invalid, rows.dropped, spec["max_invalid"])
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{where}{exc}") from None
    score, a, b, advantage = tie_games(spec["ties"], rows.score, rows.a, rows.b, rows.advantage)
    if a.size == 0:
        return spec["meta"]
    a, b = as_label_array(a, "a"), as_label_array(b, "b")
    if a.dtype.kind == "U":
        a, b = a.astype(object), b.astype(object)
    uniq, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)  # codes in label order
    inverse = inverse.reshape(-1).astype(np.int32)
    ia, ib = inverse[: a.size], inverse[a.size:]
    score = np.asarray(score, dtype=np.float64)
    if not xnames:
        lo, hi, games, wins = _core.aggregate_games(uniq.size, ia, ib, score, None)
        return pd.DataFrame({"lo": uniq[lo], "hi": uniq[hi], "n": games, "w": wins})[cols]
    swap = ia > ib
    lo = np.where(swap, ib, ia).astype(np.int64)
    hi = np.where(swap, ia, ib).astype(np.int64)
    y = np.where(swap, 1.0 - score, score)
    x = np.where(swap[:, None], -advantage, advantage) + 0.0
    frame = pd.DataFrame({"lo": lo, "hi": hi, **{c: x[:, k] for k, c in enumerate(xnames)}, "n": 1.0, "w": y})
    out = frame.groupby(["lo", "hi", *xnames], sort=True).sum().reset_index()
    out["lo"], out["hi"] = uniq[out["lo"].to_numpy()], uniq[out["hi"].to_numpy()]
    return out[cols]


def aggregate(ddf: Any, a: str = "a", b: str = "b", score: Optional[str] = None, winner: Optional[str] = None,
              time: Optional[str] = None, *, start: Any = None, end: Any = None, invalid: str = "raise",
              advantage: Any = None, weights: Optional[str] = None, split_out: int = 1,
              max_invalid: float = MAX_INVALID, ties: str = "half", bothbad: str = "tie") -> PairwiseData:
    """A ``dask.dataframe`` of games aggregated to pairs: partition-wise sums in the core, then a groupby
    on the pair's labels (module docstring).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per game.
    a, b, score, winner, time, start, end, invalid, advantage
        As in :meth:`discrank.GameLog.from_frame` (``invalid="drop"`` drops the invalid rows of each
        partition, unreported). An arena log's winner column is read as :func:`discrank.read_arena` reads
        it: ``a="model_a", b="model_b", winner="winner"``.
    max_invalid : float, optional
        With ``invalid="drop"``: the largest share of a partition's rows (in the time window) dropped
        (default 0.5); a partition with more is refused.
    weights : {"games", "uniform"}, optional
        As in :class:`~discrank.PairwiseData`.
    split_out : int
        Partitions of the groupby's result (for pair tables too large for one).
    ties : {"half", "ignore", "one-win-each"}, default "half"
        How ties (games scored 0.5) count, as :func:`discrank.data.arena.apply_ties` counts them.
    bothbad : {"tie", "ignore"}, default "tie"
        The ties in which both answers were bad (``discrank.data.arena.BOTH_BAD``): ties like the others, or
        dropped before the checks (needs ``winner``).

    Returns
    -------
    PairwiseData
        Labels sorted; with ``advantage``, the games kept by covariate value, as
        :meth:`GameLog.to_pairs` keeps them. Identical to the in-memory aggregation for scores that are
        multiples of 1/2.

    Raises
    ------
    ValueError
        An invalid row (``invalid="raise"``: its partition, row and value), a partition with more than
        ``max_invalid`` of its rows invalid (``invalid="drop"``), a missing column, no game, or a ``ties``
        or ``bothbad`` not one of those.
    """
    _require()
    import pandas as pd

    if (score is None) == (winner is None):
        raise ValueError("give exactly one of score= (results of a) and winner= (label of the winner)")
    ties, bothbad = check_ties(ties, False), check_bothbad(bothbad, winner)
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
                xnames=xnames, meta=meta, max_invalid=check_max_invalid(max_invalid), ties=ties, bothbad=bothbad)
    sums = ddf.map_partitions(_partition_sums, spec, meta=meta)
    keys = ["lo", "hi", *xnames]
    table = sums.groupby(keys, sort=False).agg({"n": "sum", "w": "sum"}, split_out=split_out).compute()
    table = table.reset_index()
    if len(table) == 0:
        raise ValueError("no valid game in the frame"
                         + (" (ties='ignore' drops the ties)" if ties == "ignore" else ""))
    both = np.concatenate([table["lo"].to_numpy(), table["hi"].to_numpy()])
    if both.dtype.kind == "O":  # (partitions may disagree: labels of one kind, else refused naming each kind)
        both = as_label_array(both, "the partitions' labels")
    labels, codes = np.unique(both, return_inverse=True)
    codes = codes.reshape(-1)
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
def fit(model: Any, data: Any, client: Any = None, *, n_parts: Optional[int] = None, worker_threads: int = 1,
        **fit_kw: Any) -> Any:
    """Fit ``model`` on ``data`` with its pair kernel on the workers of a Dask cluster (module docstring).

    Parameters
    ----------
    model : Elo, EloPlusPlus, DiscDecomposition, MElo, DiscDecompositionCV or DynamicElo
        An unfitted (or refitted) model; its solver, prior and tuning are those of ``model.fit``.
    data : PairwiseData, GameLog, PeriodGames or dask.dataframe.DataFrame
        For the stationary models: the pairs, a game log or games by period (summed as the model's ``fit``
        sums them), or a dask DataFrame of games to :func:`aggregate` first (columns given in ``fit_kw``).
        For :class:`~discrank.DynamicElo`: a :class:`~discrank.GameLog` with times or a PeriodGames (kept on
        the driver), or a dask DataFrame of games read into a log (``fit_kw``: ``GameLog.from_frame``'s).
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    n_parts : int, optional
        Parts of the pairs or of the dynamic model's rows; default one per worker thread. Up to
        ``LEAVES`` = 16 the stationary fits are exact (below).
    worker_threads : int
        The core's threads per part call (1 suits one-thread workers).
    **fit_kw
        Passed to :func:`aggregate` (stationary models) or ``GameLog.from_frame`` (DynamicElo) when
        ``data`` is a dask DataFrame.

    Returns
    -------
    model
        Fitted; ``model.dask_calls_`` is the number of calls made on the cluster, ``model.dask_parts_rebuilt_``
        the parts rebuilt after a worker was lost. The fitted attributes of Elo, EloPlusPlus,
        DiscDecomposition and MElo equal the in-process fit's bit for bit with up to 16 parts; with more, and
        for DynamicElo, to rounding for Newton's methods and to L-BFGS's tolerance for the disc decomposition.

    Raises
    ------
    TypeError
        A model of another class (SchurDecomposition, OnlineElo: their fits run in process), or
        ``fit_kw`` with data that is not a dask DataFrame.
    """
    _require()
    from distributed import get_client

    parts = getattr(model, "distributed_parts", None)  # the protocol's capability (Model.distributed_parts)
    if parts not in ("pairs", "rows"):
        raise TypeError(f"discrank.dask.fit fits the models whose solver runs over parts of their data (their "
                        f"distributed_parts: Elo, EloPlusPlus, DiscDecomposition, MElo, DiscDecompositionCV and "
                        f"DynamicElo); {type(model).__name__} has a fit of its own, which runs in process: call its fit")
    client = client or get_client()
    if getattr(client, "status", "running") != "running":
        raise ValueError(f"discrank.dask.fit: the Dask client is not running (status {client.status!r}): give a "
                         "connected client, or none to use the current one")
    if n_parts is None:
        n_parts = max(1, sum(client.nthreads().values()))
    if parts == "rows":
        return _fit_dynamic(model, data, client, n_parts, worker_threads, fit_kw)
    from discrank.data.logs import GameLog
    from discrank.data.periods import PeriodGames

    if not isinstance(data, (PairwiseData, GameLog, PeriodGames)):
        data = aggregate(data, **fit_kw)  # a dask DataFrame of games
    elif fit_kw:
        raise TypeError(f"unexpected arguments {sorted(fit_kw)}: they are aggregate()'s, for a dask DataFrame")
    made: list[DistributedObjective] = []

    def build(owner: Any, pairs: PairwiseData, stacklevel: int = 2):
        """``owner``'s fit data of ``pairs`` with its objective on the workers (the parts kept in ``made``).
        The pipeline fits one after another (a tuning's fits share one fit data): the parts of the fit
        data built before are released."""
        for obj in made:
            obj.close()
        fd = owner._build_fit_data(pairs, stacklevel + 1)
        obj = DistributedObjective(client, fd.n_players, fd.i, fd.j, fd.p, fd.w, n_parts, worker_threads)
        made.append(obj)
        return dataclasses.replace(fd, objective=obj, _cache={})

    # the model's own fit pipeline (all or nothing, as its fit), given the distributed fit data's builder as
    # an argument: the final fit and the prior's tuning fits run on the workers
    return _fit_with(model, made, lambda: atomic(type(model)._fit_pairs)(model, data, fit_data_builder=build))


def _fit_with(model: Any, made: list, run: Callable[[], Any]) -> Any:
    """Run ``run`` (the model's fit, whose distributed parts are appended to ``made``); then release the
    parts and record the calls made."""
    try:
        run()
    finally:
        for obj in made:
            obj.close()
    model.dask_calls_ = sum(obj.n_calls for obj in made)
    model.dask_parts_rebuilt_ = sum(obj.rebuilt for obj in made)
    return model


def _fit_dynamic(model: Any, data: Any, client: Any, n_parts: int, worker_threads: int, fit_kw: dict) -> Any:
    """:func:`fit` of a DynamicElo: each whole-history solve (the tuning's and the final one) runs on
    :class:`DistributedRows`."""
    from discrank.data.logs import GameLog
    from discrank.data.periods import PeriodGames

    validation = fit_kw.pop("validation", None)
    if not isinstance(data, (GameLog, PeriodGames)):
        if isinstance(data, PairwiseData):
            raise TypeError("DynamicElo fits games with their times: give a GameLog, PeriodGames (scan_games "
                            "with period=) or a dask DataFrame of games, not pairs")
        data = GameLog.from_frame(data.compute(), **fit_kw)
    elif fit_kw:
        raise TypeError(f"unexpected arguments {sorted(fit_kw)}: they are GameLog.from_frame()'s, for a dask "
                        "DataFrame")
    made: list[DistributedRows] = []

    def rows_of(h: History, draws: Any, **features: Any) -> DistributedRows:
        rows = DistributedRows(client, h, draws, n_parts, worker_threads, **features)
        made.append(rows)
        return rows

    def run():
        with one_blas_thread(), speaking(model.verbose):  # as DynamicElo.fit: BLAS threads only contend; progress
            return atomic(type(model)._fit_log)(model, data, validation, rows_of=rows_of)

    return _fit_with(model, made, run)
