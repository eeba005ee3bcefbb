"""The compiled core (``_core``, built from cpp/): loaded here, below every module that calls it."""

def _load_core():
    """Load the compiled core with its OpenMP threads sleeping between parallel regions.

    OpenMP threads spin-wait between parallel regions by default; when other processes or fits share
    the cores, the spinning threads starve the working ones (two concurrent fits on 2 cores: 4.5x slower
    than one, against 1.1x with sleeping threads, and no loss for a fit alone:
    ``python bench/bench_oversubscription.py``). The OpenMP runtime reads ``OMP_WAIT_POLICY`` once, when
    it loads with the core, so the variable is set to ``PASSIVE`` for that moment only, unless the user
    set it, and the environment is then restored as it was: importing discrank leaves ``os.environ``
    unchanged. (An OpenMP runtime that another library loaded earlier in the process keeps its own
    policy; README.md, "Threads".)
    """
    import os

    key = "OMP_WAIT_POLICY"
    preset = key in os.environ
    if not preset:
        os.environ[key] = "PASSIVE"
    try:
        from discrank.core import _core
    finally:
        if not preset:
            os.environ.pop(key, None)
    return _core



_core = _load_core()

__all__ = ["_core"]
