"""What every model shares: parameters, validation, the compiled objective, predictions and scores."""

from __future__ import annotations

import contextlib
import functools
import inspect
import numbers
import os
import threading
import warnings
from typing import Any, Callable, Optional, Union

import numpy as np
from threadpoolctl import ThreadpoolController

from discrank import _core
from discrank._labels import LabelIndex, as_query, show
from discrank.data import PairwiseData, warn_isolated
from discrank.exceptions import DisconnectedGraphWarning, ThreadCountWarning

__all__ = ["PairwiseModel", "LOSSES", "check_data", "check_n_components", "check_random_state", "resolve_n_jobs",
           "one_blas_thread", "thread_limit"]

#: Loss names and their ids in the compiled core (cpp/include/discrank/losses.hpp).
LOSSES = {
    "bce": _core.LOSS_BCE,
    "squared_logit": _core.LOSS_SQUARED_LOGIT,
    "probability": _core.LOSS_PROBABILITY,
    "sigmoid_squared": _core.LOSS_SIGMOID_SQUARED,
}

#: Players per tile of the pair order the iterative fits use (``_core.tile_pairs``): 2^11 = 2048.
TILE_BITS = 11

#: Clipping of predicted probabilities in the log loss, so that a confident wrong 0 or 1 costs ~34.5.
LOG_LOSS_EPS = 1e-15


_CONTROLLER: Optional[ThreadpoolController] = None


def _blas_controller() -> ThreadpoolController:
    """threadpoolctl's view of the loaded thread pools, found at the first fit and kept (the search of
    the loaded libraries costs ~2 ms; a fit of 1000 players, ~70 ms). The BLAS libraries that matter,
    numpy's and scipy's (L-BFGS-B), are loaded by then: importing discrank imports both."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


# One process-wide limit of the BLAS pools, shared by the fits running at the same time: the BLAS
# thread count is a process-wide setting, so per-fit limits entered and exited from overlapping Python
# threads would restore each other's values (the last one out could leave 1 thread for good).
_BLAS_LOCK = threading.Lock()
_BLAS_USERS = 0
_BLAS_LIMITER: Any = None


def _release_blas_control() -> None:
    """Recent threadpoolctl (3.8 here) lets only one "controlling" thread change OpenBLAS's shared pool
    (the first to set it, until it releases control; the others' changes are silently dropped). The
    first fit in and the last one out may be different threads, so each change here gives control back
    at once."""
    try:
        from threadpoolctl import OpenBLASController
    except ImportError:  # pragma: no cover - threadpoolctl < 3
        return
    clear = getattr(OpenBLASController, "clear_controlling_thread", None)
    if clear is not None:
        clear()  # only when this thread holds control


@contextlib.contextmanager
def one_blas_thread():
    """Run the body with the BLAS pools at one thread, reference-counted across Python threads: the
    first fit in applies the limit (threadpoolctl records the original counts), the last one out
    restores them. Nested and concurrent uses are safe; the lock is held only to enter and to leave."""
    global _BLAS_USERS, _BLAS_LIMITER
    with _BLAS_LOCK:
        if _BLAS_USERS == 0:
            _BLAS_LIMITER = _blas_controller().limit(limits=1, user_api="blas")
            _release_blas_control()
        _BLAS_USERS += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS -= 1
            if _BLAS_USERS == 0:
                limiter, _BLAS_LIMITER = _BLAS_LIMITER, None
                limiter.restore_original_limits()
                _release_blas_control()


def thread_limit() -> int:
    """The most threads the core starts in a kernel call: 4 per processor available to the process, at
    most 1024 (``_core.thread_limit``, cpp/include/discrank/threads.hpp). The core clamps any request to
    it; ``resolve_n_jobs`` warns first."""
    return int(_core.thread_limit())


def resolve_n_jobs(n_jobs: Optional[int], warn: bool = True) -> int:
    """Threads for the core, with scikit-learn's meaning of ``n_jobs``.

    ``None``: OpenMP's default (``OMP_NUM_THREADS`` when set, else all cores), returned as 0 for the
    core to resolve; ``-1``: all cores; ``-2``: all but one, and so on down to ``-cores``; a positive
    number: that many. ``0``, a count below ``-cores`` and a non-integer are errors. A request above
    :func:`thread_limit` (an explicit count, or ``OMP_NUM_THREADS`` with ``None``) is clamped to it,
    with a :class:`~discrank.exceptions.ThreadCountWarning` (``warn=False``: silently, for a check
    repeated before the fit resolves it again).
    """
    limit = thread_limit()
    if n_jobs is None:
        default = int(_core.max_threads())
        if default <= limit:
            return 0
        if warn:
            warnings.warn(
                f"OMP_NUM_THREADS asks for {default} threads (n_jobs=None), more than the {limit} allowed "
                f"(4 per processor, at most 1024): using {limit}",
                ThreadCountWarning, stacklevel=3,
            )
        return limit
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be an int or None, got {n_jobs!r}")
    n_jobs = int(n_jobs)
    cores = os.cpu_count() or 1
    if n_jobs == 0:
        raise ValueError("n_jobs=0 is not allowed: use None (OpenMP default), -1 (all cores) or a positive count")
    if n_jobs > limit:
        if warn:
            warnings.warn(
                f"n_jobs={n_jobs} asks for more threads than the {limit} allowed on this machine's {cores} "
                f"cores (4 per processor, at most 1024): using {limit}",
                ThreadCountWarning, stacklevel=3,
            )
        return limit
    if n_jobs > 0:
        return n_jobs
    threads = cores + 1 + n_jobs
    if threads < 1:
        raise ValueError(
            f"n_jobs={n_jobs} asks for {threads} threads on a machine with {cores} cores: a negative n_jobs "
            f"must be in [-{cores}, -1] (-1: all cores, -2: all but one, ...); or use None or a positive count"
        )
    return threads


def check_random_state(value: Any, name: str = "random_state") -> Any:
    """``value`` if ``numpy.random.default_rng`` takes it as a seed: None, an integer >= 0, a sequence of
    them, a ``SeedSequence``, a ``BitGenerator`` or a ``Generator``; else a TypeError or ValueError that
    names ``name`` and the value."""
    if value is None or isinstance(value, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)):
        return value
    allowed = "None, an integer >= 0, a sequence of them, or a numpy Generator, BitGenerator or SeedSequence"
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {allowed}; got {value!r}")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{name} must be {allowed}; got {value!r}, which is negative")
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            np.random.SeedSequence(value)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name} must be {allowed}; got {show(value)} ({exc})") from None
        return value
    raise TypeError(f"{name} must be {allowed}; got {show(value)} of type {type(value).__name__}")


def atomic(fit: Callable) -> Callable:
    """Make a ``fit`` method all or nothing: when it raises or is interrupted (Ctrl-C), the estimator is
    left as it was before the call, unfitted or with its previous fit whole (the fitted attributes are
    new arrays, never written in place, so the previous ones are kept by reference)."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    return wrapper


def check_positive_float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def check_data(data: Any) -> None:
    if not isinstance(data, PairwiseData):
        raise TypeError(f"fit expects a discrank.PairwiseData, got {type(data).__name__}")


def check_n_components(value: Any, n_players: int) -> int:
    """``1 <= k <= n / 2`` (Theorem 2: a skew-symmetric n x n matrix has at most n // 2 components)."""
    k = check_positive_int(value, "n_components")
    if 2 * k > n_players:
        raise ValueError(f"n_components={k} needs at least {2 * k} players (k <= n/2, Theorem 2); the data has {n_players}")
    return k


def sigmoid(a: np.ndarray) -> np.ndarray:
    out = np.empty_like(a)
    pos = a >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-a[pos]))
    e = np.exp(a[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def in_tile_order(data: PairwiseData, w: np.ndarray, n_threads: int) -> tuple[PairwiseData, np.ndarray]:
    """``data`` and the pair weights ``w`` with the pairs in the objective's cache-friendly order:
    stable by the second player's tile of 2^TILE_BITS players (``_core.tile_pairs``), so that each pass
    reads the first players as a stream and the second players' parameters and gradient rows within one
    tile, in cache. The same pairs, their order only (and so the order of the sums) changes; with at
    most one tile of players, ``data`` and ``w`` themselves. Costs copies of the pair arrays (24 bytes
    per pair, 32 with game counts) for the fit's duration: for the fits that evaluate the objective
    many times."""
    if data.n_players <= 1 << TILE_BITS:
        return data, w
    cols = [data.p, w] if data.n_games is None else [data.p, w, data.n_games]
    i, j, moved = _core.tile_pairs(data.n_players, data.i, data.j, cols, TILE_BITS, n_threads)
    tiled = PairwiseData._trusted(i, j, moved[0], moved[2] if len(moved) > 2 else None, data.labels, data.weights)
    tiled._index = data._index
    return tiled, moved[1]


class PairwiseModel:
    """Base class: scikit-learn's estimator contract over :class:`~discrank.PairwiseData`.

    The constructor only stores parameters; :meth:`fit` validates them and the data, and sets the fitted
    attributes, whose names end in ``_``. Subclasses implement ``_fit`` and ``_factors``.
    """

    _loss: str = "bce"
    #: Whether ``_fit`` gets the pairs in tile order (``in_tile_order``): for the fits that evaluate the
    #: objective hundreds of times, where the reordering (one counting sort, about two objective calls:
    #: bench/bench_kernel.py) pays.
    _tile_pairs: bool = False

    # ------------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> "PairwiseModel":
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {valid}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # ------------------------------------------------------------------ fitting
    #: Whether the model has a Gaussian prior whose scale ``prior_scale=None`` tunes (``discrank._tuning``).
    _has_prior: bool = False

    @atomic
    def fit(self, data: Any, *, validation: Any = None) -> "PairwiseModel":
        """Fit the model; returns ``self``.

        Parameters
        ----------
        data : PairwiseData or GameLog
            The observed pairs, or a game log (aggregated to pairs with ``GameLog.to_pairs``). A game log
            with times lets ``prior_scale=None`` tune the prior on its own time order.
        validation : discrank.Validation, optional
            How the prior is tuned in time order (the share of the latest games held out, or a window and
            a gap); default: the latest 10% of the games. Ignored when the prior scale is given.

        The fit is all or nothing (:func:`atomic`).
        """
        from discrank.logs import GameLog

        log = coded = None
        if isinstance(data, GameLog):
            from discrank._tuning import code_log, pairs_from_codes

            log, coded = data, code_log(data)
            data = pairs_from_codes(*coded, log.score)
        check_data(data)
        if validation is not None:
            from discrank._tuning import Validation

            if not isinstance(validation, Validation):
                raise TypeError(f"validation must be a discrank.Validation, got {type(validation).__name__}")
        self._validate_params(data)
        self._sigma = None
        self.prior_tuning_ = None
        if self._has_prior:
            from discrank._tuning import check_prior_scale, tune_prior_scale

            sigma = check_prior_scale(self.prior_scale)
            if sigma is None:
                sigma, record = tune_prior_scale(self, data, log, validation, coded)
                self.prior_tuning_ = record.as_dict()
            self._sigma = sigma
        loss = self._loss
        if loss == "squared_logit":
            bad = (data.p <= 0.0) | (data.p >= 1.0)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"loss='squared_logit' needs probabilities strictly inside (0, 1), where logit is finite; "
                    f"pair ({show(data.labels[data.i[k]])}, {show(data.labels[data.j[k]])}) has p = {show(data.p[k])}. "
                    "Use loss='bce', which handles 0 and 1"
                )
        n_pieces, piece = data.components()
        isolated = warn_isolated(data, piece)
        n_connected_pieces = n_pieces - int(isolated.sum())
        if n_connected_pieces > 1:
            sizes = np.sort(np.bincount(piece[~isolated]))[::-1]
            sizes = sizes[sizes > 0]
            warnings.warn(
                f"the comparison graph is in {n_connected_pieces} pieces (sizes {sizes[:5].tolist()}"
                f"{' ...' if sizes.size > 5 else ''}): ratings of different pieces are not comparable",
                DisconnectedGraphWarning,
                stacklevel=2,
            )
        w = data.pair_weights(copy=False)
        w = w / w.sum()
        self._n_threads = resolve_n_jobs(self.n_jobs)
        if self._tile_pairs:
            data, w = in_tile_order(data, w, self._n_threads)
        objective = _core.PairObjective(data.n_players, data.i, data.j, data.p, w)
        self.labels_ = data.labels.copy()
        self.n_players_ = data.n_players
        counts = data.n_games if data.n_games is not None else np.ones(data.n_pairs)
        self.n_games_ = objective.player_sums(np.ascontiguousarray(counts, dtype=np.float64), n_threads=self._n_threads)
        self._label_index = None
        # scipy's L-BFGS-B calls a threaded BLAS on small matrices; its threads then spin against the
        # core's OpenMP threads (kernel calls measured 2x slower on 2 cores). One BLAS thread is enough.
        # One process-wide, reference-counted limit (one_blas_thread), so that fits in concurrent Python
        # threads (bootstrap's workers) leave the original counts behind.
        with one_blas_thread():
            self._fit(data, objective, w, piece)
        self._warm_start = None
        return self

    def _warm_state(self) -> Any:
        """What a fit at a nearby prior scale starts from (``discrank._tuning``); None: a cold start."""
        return None

    def _validate_params(self, data: PairwiseData) -> None:
        check_positive_float(self.tol, "tol")
        check_positive_int(self.max_iter, "max_iter")
        resolve_n_jobs(self.n_jobs, warn=False)  # fit resolves it again, and warns there
        if "random_state" in self._param_names():
            check_random_state(self.random_state)

    def _fit(self, data: PairwiseData, objective: Any, w: np.ndarray, piece: np.ndarray) -> None:
        raise NotImplementedError

    def _factors(self) -> dict[str, np.ndarray]:
        """Keyword arguments of ``_core.scores`` (``U``, ``V`` and/or ``s``)."""
        raise NotImplementedError

    def _check_fitted(self) -> None:
        if not hasattr(self, "labels_"):
            raise RuntimeError(f"this {type(self).__name__} is not fitted yet: call fit(data) first")

    # ------------------------------------------------------------------ output
    def save(self, path: Any) -> None:
        """Write the fitted model to an ``.npz`` file (``discrank.load`` reads it; no pickle)."""
        from discrank.persist import save

        save(self, path)

    def _rating_columns(self) -> tuple[dict[str, np.ndarray], Optional[np.ndarray]]:
        """Model-specific columns of ``ratings_frame`` and the values to sort by (None: unsorted)."""
        raise NotImplementedError

    def ratings_frame(self, *, anchor: Any = None, anchor_rating: float = 1500.0):
        """A pandas DataFrame, one row per player, best first.

        Columns: ``player`` (label), ``rank``, ``games`` (games played, or pairs without game counts),
        then the model's: for Elo ``rating`` (natural-log units, the model's) and ``elo`` (the familiar
        scale: ``anchor_rating + 400 / ln 10 * (rating - reference)``, the reference being the mean
        rating or, with ``anchor=label``, that player's); for disc models ``strength`` and
        ``consistency`` (Proposition 2, when the first component is transitive; ``elo`` from the
        strength), and ``u_1 .. u_k``, ``v_1 .. v_k``. ``df.attrs`` holds the model name and, for disc
        models, the transitivity summary (Theorem 2, Proposition 1).
        """
        self._check_fitted()
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("ratings_frame needs pandas: pip install 'discrank[pandas]'") from exc
        cols, key = self._rating_columns()
        base = cols.pop("_elo_base", None)
        if base is not None:
            if anchor is None:
                ref = float(np.mean(base))
            else:
                if self._label_index is None:
                    self._label_index = LabelIndex(self.labels_)
                ref = float(base[self._label_index.index([anchor], "anchor")[0]])
            cols = {"elo": anchor_rating + 400.0 / np.log(10.0) * (base - ref), **cols}
        frame = pd.DataFrame({"player": self.labels_, "games": getattr(self, "n_games_", np.full(self.n_players_, np.nan)),
                              **cols})
        if key is not None:
            order = np.argsort(-key, kind="stable")
            frame = frame.iloc[order].reset_index(drop=True)
            frame.insert(1, "rank", np.arange(1, self.n_players_ + 1))
        else:
            frame.insert(1, "rank", np.full(self.n_players_, np.nan))
        frame.attrs["model"] = type(self).__name__
        return frame

    # ------------------------------------------------------------------ prediction
    def _indices(self, a: Any, b: Any, unseen: str = "raise") -> tuple[np.ndarray, np.ndarray]:
        """Player indices of ``a`` and ``b``; with ``unseen="prior"`` an unknown label gets the index
        ``n_players_`` (the prior's row, ``_scores``)."""
        if unseen not in ("raise", "prior"):
            raise ValueError(f"unseen must be 'raise' or 'prior', got {unseen!r}")
        if self._label_index is None:
            self._label_index = LabelIndex(self.labels_)
        if isinstance(a, PairwiseData):
            if b is not None:
                raise TypeError("give either a PairwiseData or two arrays of players, not both")
            if a.n_players == self.n_players_ and np.array_equal(a.labels, self.labels_):
                return a.i, a.j
            a, b = a.labels[a.i], a.labels[a.j]
        elif b is None:
            raise TypeError("predict needs the players a and b (labels), or a PairwiseData")
        # 1-D (or a single player) each, named by its shape otherwise; lists of strings stay Python strings
        a, b = as_query(a, "a"), as_query(b, "b")
        if unseen == "prior":
            ia = self._label_index.lookup(a)
            ib = self._label_index.lookup(b)
            ia[ia < 0] = self.n_players_
            ib[ib < 0] = self.n_players_
            ia, ib = ia.astype(np.int32), ib.astype(np.int32)
        else:
            ia = self._label_index.index(a, "player")
            ib = self._label_index.index(b, "player")
        if ia.shape != ib.shape:
            raise ValueError(f"found inputs of inconsistent lengths: a has {ia.shape[0]}, b has {ib.shape[0]}")
        return ia, ib

    def _prior_mean(self) -> dict[str, np.ndarray]:
        """The parameters of a player the data has not seen: the prior's mean (a row per factor)."""
        out = {}
        for key, value in self._factors().items():
            row = np.zeros((1,) + value.shape[1:])
            if key == "V" and row.shape[1]:
                row[0, 0] = getattr(getattr(self, "best_estimator_", self), "_first_v_centre", 0.0)
            out[key] = row
        return out

    def _scores(self, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        factors = self._factors()
        n = self.n_players_
        if (ia.size and ia.max() >= n) or (ib.size and ib.max() >= n):
            prior = self._prior_mean()
            factors = {k: np.concatenate([v, prior[k]]) for k, v in factors.items()}
            n += 1
        return _core.scores(ia, ib, n, n_threads=self._n_threads, **factors)

    def decision_function(self, a: Any, b: Any = None, *, unseen: str = "raise") -> Union[float, np.ndarray]:
        """The score A(a, b) of the model (logit of P(a beats b) for the logit-space models).

        ``unseen="prior"``: a player not seen in the fit is given the prior's mean parameters (Elo: rating
        0; disc: u = 0, v = 1 on the first component and 0 on the others); default: a ValueError.
        """
        self._check_fitted()
        ia, ib = self._indices(a, b, unseen)
        scores = self._scores(ia, ib)
        return float(scores[0]) if _is_scalar(a, b) else scores

    def _link(self, scores: np.ndarray) -> np.ndarray:
        if self._loss == "probability":
            return np.clip(0.5 + scores, 0.0, 1.0)
        return sigmoid(scores)

    def predict_proba(self, a: Any, b: Any = None, *, unseen: str = "raise") -> Union[float, np.ndarray]:
        """P(a beats b), for players given by label (arrays or scalars), or for the pairs of a PairwiseData.

        Data built without labels has labels ``0 .. n_players - 1``, so indices work there. A label the
        fit has not seen is a ValueError, or with ``unseen="prior"`` a player at the prior's mean (see
        :meth:`decision_function`).
        """
        self._check_fitted()
        ia, ib = self._indices(a, b, unseen)
        proba = self._link(self._scores(ia, ib))
        return float(proba[0]) if _is_scalar(a, b) else proba

    def mse(self, data: PairwiseData) -> float:
        """Mean squared error between predicted and observed probabilities, over pairs (the paper's metric)."""
        return float(np.mean((self.predict_proba(data) - data.p) ** 2))

    def log_loss(self, data: PairwiseData) -> float:
        """Mean binary cross-entropy of the predictions, pairs weighted by ``data.pair_weights()``.

        With game counts (``weights="games"``) this is the log loss per game.
        """
        q = np.clip(self.predict_proba(data), LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)
        w = data.pair_weights()
        losses = -(data.p * np.log(q) + (1.0 - data.p) * np.log1p(-q))
        return float(np.sum(w * losses) / np.sum(w))


def _is_scalar(a: Any, b: Any) -> bool:
    return b is not None and _single(a) and _single(b) and not isinstance(a, PairwiseData)


def _single(x: Any) -> bool:
    """One player (not a sequence); a list is never converted to find out (np.ndim of a list of long names
    would build a fixed-width string array)."""
    return not isinstance(x, (list, tuple)) and np.ndim(x) == 0
