"""Progress reports of long operations, sent to whoever listens in the current context.

Two channels, each held in a :class:`contextvars.ContextVar` (a fit in another thread does not report to
this thread's listener; an asyncio task created inside a block copies the context, and does):

- the solvers' iterations (:func:`reporting`, :func:`report_step`): L-BFGS, Elo's Newton method and the
  whole-history Newton method call ``hook(iteration, objective, measure)`` after each iteration;
- the stages of a tuning, a fit or an evaluation (:func:`staging`, :func:`report_stage`): a line of text
  and its level, 1 for a stage (a tuning's candidate scored), 2 for a detail (each update of an
  evaluation's online walk).

:func:`progress` (public: ``discrank.progress``) prints both on stderr; a ``verbose`` argument opens it
around the work (:func:`speaking`), and the command line listens with its own printer
(``discrank.cli._args.FitProgress``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any, ContextManager, Optional

import numpy as np

from discrank._util.checks import check_verbose, show

__all__ = ["progress", "reporting", "report_step", "staging", "report_stage", "stage_level", "speaking", "when",
           "plural", "interactive", "Ticker", "TICK_SECONDS"]

#: The seconds between two reports of a :class:`Ticker` (a bootstrap's replicates done).
TICK_SECONDS = 2.0

# The per-iteration hook of the current context, called as hook(iteration, objective, stopping measure).
_STEPS: ContextVar[Optional[Callable[[int, float, float], None]]] = ContextVar("discrank_progress", default=None)
# The stage listener of the current context: (the highest level it hears, hook(text)), or None.
_STAGES: ContextVar[Optional[tuple[int, Callable[[str], None]]]] = ContextVar("discrank_stages", default=None)


@contextmanager
def reporting(hook: Optional[Callable[[int, float, float], None]]) -> Iterator[None]:
    """Call ``hook`` after each solver iteration of the fits run inside the ``with`` block.

    Parameters
    ----------
    hook : callable or None
        Called as ``hook(iteration, objective, measure)`` after each iteration of every solver (L-BFGS,
        Elo's Newton method, the whole-history Newton method), ``measure`` being the solver's stopping
        measure (the scaled gradient of :func:`discrank.solvers._optim.scaled_gradient`; the gradient relative to
        the one at zero for the whole history). None: no report.

    Yields
    ------
    None
        The previous hook is restored when the block exits, also on an exception.
    """
    token = _STEPS.set(hook)
    try:
        yield
    finally:
        _STEPS.reset(token)


def report_step(iteration: int, f: float, measure: float) -> None:
    """Tell the hook of :func:`reporting`, if any, that an iteration ended."""
    hook = _STEPS.get()
    if hook is not None:
        hook(iteration, f, measure)


@contextmanager
def staging(hook: Optional[Callable[[str], None]], level: int = 1) -> Iterator[None]:
    """Call ``hook(text)`` for each stage of level ``level`` or lower reported inside the ``with`` block.

    Parameters
    ----------
    hook : callable or None
        Called with each report's text. None: no report.
    level : int, default 1
        The highest level heard: 1, the stages; 2, also the details.

    Yields
    ------
    None
        The previous listener is restored when the block exits, also on an exception.
    """
    token = _STAGES.set(None if hook is None or level < 1 else (level, hook))
    try:
        yield
    finally:
        _STAGES.reset(token)


def stage_level() -> int:
    """The highest level of report the current listener hears (0: nobody listens), so that a report's
    text is only made when heard."""
    listener = _STAGES.get()
    return 0 if listener is None else listener[0]


def report_stage(text: str, level: int = 1) -> None:
    """Tell the listener of :func:`staging`, if it hears ``level``, that a stage began or ended."""
    listener = _STAGES.get()
    if listener is not None and level <= listener[0]:
        listener[1](text)


def when(t: Any) -> str:
    """A time in a report: a datetime64 as its date (and its time of day, to the second, when not
    midnight), a number as :func:`discrank._util.checks.show` writes it."""
    if isinstance(t, np.datetime64):
        text = str(t.astype("datetime64[s]"))
        return text[:-9] if text.endswith("T00:00:00") else text
    return show(t)


def plural(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless ``n`` is 1: ``"1 candidate"``, ``"12 candidates"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _print_line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _print_step(iteration: int, f: float, measure: float) -> None:
    _print_line(f"  iteration {iteration}: objective {f:.10g}, gradient measure {measure:.3g}")


@contextmanager
def progress(verbose: Any = 1) -> Iterator[None]:
    """Print the progress of the fits, tunings and evaluations run inside the ``with`` block on stderr,
    one line per report, flushed.

    Every model of the package reports to it: the stages of :class:`~discrank.DynamicElo`'s tuning and of
    :func:`~discrank.evaluate`, and at ``verbose=2`` each iteration of every solver.

    Parameters
    ----------
    verbose : bool or int, default 1
        False or 0: nothing is printed inside the block (an outer listener is silenced too); True or 1:
        the stages; 2 or more: also each solver iteration (iteration, objective, stopping measure) and
        each update of an evaluation's online walk (at level 1 those come at most every
        :data:`discrank.evaluation._walk.WALK_REPORT_SECONDS`).

    Yields
    ------
    None
        The previous listeners are restored when the block exits, also on an exception.

    Raises
    ------
    TypeError
        ``verbose`` is not a bool or an integer (the message names the value).
    ValueError
        ``verbose`` is negative.
    """
    level = check_verbose(verbose)
    with reporting(_print_step if level >= 2 else None), staging(_print_line if level else None, level):
        yield


def interactive() -> bool:
    """Whether a person watches: stderr is a terminal, or the code runs in a Jupyter kernel (a notebook). The rule
    of ``verbose=None``, the default of the long operations (DynamicElo's fit, ``evaluate``, ``bootstrap``,
    ``arena_board``): their progress is shown where a person watches, and scripts and pipes stay quiet."""
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def speaking(verbose: Any) -> ContextManager[None]:
    """A model's or a function's ``verbose`` (checked: a TypeError or ValueError names the value):
    :func:`progress` at that level, or, at 0, a block that leaves the current listeners as they are
    (the command line's, an enclosing ``discrank.progress``); None: level 1 where a person watches
    (:func:`interactive`), else 0."""
    if verbose is None:
        level = 1 if interactive() and stage_level() == 0 else 0  # (an outer listener keeps its own level)
    else:
        level = check_verbose(verbose)
    return progress(level) if level else nullcontext()


class Ticker:
    """Reports ``what: k of n <units>, t s`` to the stage listener of the context it is made in (:func:`staging`,
    level 1) as work is done, at most every :data:`TICK_SECONDS` and once at the end; :meth:`done` may be called
    from other threads (a pool's workers, which do not share the context)."""

    def __init__(self, what: str, n: int, units: str) -> None:
        import threading
        import time

        listener = _STAGES.get()
        self.hook = listener[1] if listener is not None else None
        self.what, self.n, self.units, self.k = what, int(n), units, 0
        self._clock, self._lock = time.perf_counter, threading.Lock()
        self.t0 = self.last = self._clock()

    def done(self, k: int = 1) -> None:
        """``k`` more units done."""
        if self.hook is None:
            return
        with self._lock:
            self.k += k
            now = self._clock()
            if self.k < self.n and now - self.last < TICK_SECONDS:
                return
            self.last = now
            self.hook(f"{self.what}: {self.k:,} of {self.n:,} {self.units}, {now - self.t0:.1f} s")
