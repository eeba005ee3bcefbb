"""discrank: ratings for two-player zero-sum games beyond Elo.

Implements the disc decomposition of Bertrand, Czarnecki and Gidel, "Limitations of the Elo rating
system and the disc decomposition" (AISTATS 2023), with its Elo baselines, on a C++ core that evaluates
the losses and gradients over the observed pairs only.
"""



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
        from discrank import _core
    finally:
        if not preset:
            os.environ.pop(key, None)
    return _core


_load_core()

from discrank._core import __version__  # noqa: E402
from discrank.data import PairwiseData  # noqa: E402
from discrank.exceptions import (  # noqa: E402
    ConvergenceWarning,
    DisconnectedGraphWarning,
    InvalidRowsWarning,
    IsolatedPlayerWarning,
    NotFittedError,
    NumericalError,
    UnknownPlayerError,
)
from discrank import analysis  # noqa: E402
from discrank.models import DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, MElo, OnlineDisc, SchurDecomposition  # noqa: E402
from discrank.logs import GameLog, read_pgn  # noqa: E402
from discrank.readers import read_football, read_tennis  # noqa: E402
from discrank.persist import load  # noqa: E402
from discrank.bootstrap import bootstrap  # noqa: E402
from discrank._tuning import Validation  # noqa: E402
from discrank.evaluation import Evaluation, evaluate  # noqa: E402
from discrank.models.dynamic import DynamicElo  # noqa: E402
from discrank.periods import PeriodGames  # noqa: E402
from discrank.scan import scan_games  # noqa: E402
from discrank.arena import read_arena  # noqa: E402
from discrank.leaderboard import ArenaBoard, arena_board  # noqa: E402
from discrank._progress import progress  # noqa: E402

__all__ = [
    "ArenaBoard",
    "DynamicElo",
    "ConvergenceWarning",
    "DiscDecomposition",
    "DiscDecompositionCV",
    "DisconnectedGraphWarning",
    "Elo",
    "EloPlusPlus",
    "Evaluation",
    "GameLog",
    "InvalidRowsWarning",
    "IsolatedPlayerWarning",
    "MElo",
    "NotFittedError",
    "NumericalError",
    "OnlineDisc",
    "PairwiseData",
    "PeriodGames",
    "SchurDecomposition",
    "UnknownPlayerError",
    "Validation",
    "analysis",
    "arena_board",
    "bootstrap",
    "evaluate",
    "load",
    "progress",
    "read_arena",
    "read_football",
    "read_pgn",
    "read_tennis",
    "scan_games",
    "__version__",
]
