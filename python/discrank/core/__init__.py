"""The compiled core (``_core``, built from cpp/): loaded here, below every module that calls it."""


def _load_core():
    """Load the compiled core with its OpenMP threads sleeping between parallel regions.

    OpenMP threads spin-wait between parallel regions by default, which starves the working threads when
    other processes or fits share the cores. The OpenMP runtime reads ``OMP_WAIT_POLICY`` once, when it loads
    with the core, so the variable is set to ``PASSIVE`` for that moment only, unless the user set it:
    importing discrank leaves ``os.environ`` unchanged. (An OpenMP runtime that another library loaded earlier
    keeps its own policy; README.md, "Threads".)
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
