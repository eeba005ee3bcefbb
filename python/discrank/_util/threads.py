"""Threads: the core's thread count from ``n_jobs``, and the BLAS pools held at one thread around the
solvers' small products (threadpoolctl).

Shared by every model and solver; it imports nothing from discrank but the core and
:mod:`discrank._util.exceptions`.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import threading
import warnings
from typing import Any, Optional

from threadpoolctl import ThreadpoolController

from discrank.core import _core
from discrank._util.exceptions import ThreadCountWarning

__all__ = ["resolve_n_jobs", "one_blas_thread", "thread_limit"]


_CONTROLLER: Optional[ThreadpoolController] = None


def _blas_controller() -> ThreadpoolController:
    """threadpoolctl's view of the loaded thread pools, found at the first fit and kept. The BLAS libraries
    that matter, numpy's and scipy's (L-BFGS-B), are loaded by then: importing discrank imports both."""
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
    """threadpoolctl lets only one "controlling" thread change OpenBLAS's shared pool (the others' changes are
    silently dropped); the first fit in and the last one out may be different threads, so each change here
    gives control back at once."""
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
    with a :class:`~discrank._util.exceptions.ThreadCountWarning` (``warn=False``: silently, for a check
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

