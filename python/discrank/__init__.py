"""discrank: ratings for two-player zero-sum games beyond Elo.

Implements the disc decomposition of Bertrand, Czarnecki and Gidel, "Limitations of the Elo rating
system and the disc decomposition" (AISTATS 2023), with its Elo baselines, on a C++ core that evaluates
the losses and gradients over the observed pairs only.
"""

import os

# OpenMP threads spin-wait between parallel regions by default. When another process (or a second fit)
# shares the cores, the spinning threads starve the working ones: two concurrent fits ran 5x slower
# (bench/bench_oversubscription.py). Sleeping instead costs microseconds per kernel call, which take
# milliseconds. Set before the core (and libgomp) loads; a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from discrank._core import __version__  # noqa: E402
from discrank.data import PairwiseData  # noqa: E402
from discrank.exceptions import (  # noqa: E402
    ConvergenceWarning,
    DisconnectedGraphWarning,
    InvalidRowsWarning,
    IsolatedPlayerWarning,
)
from discrank import analysis  # noqa: E402
from discrank.models import DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, MElo, SchurDecomposition  # noqa: E402
from discrank.logs import GameLog, read_pgn  # noqa: E402
from discrank.persist import load  # noqa: E402
from discrank.bootstrap import bootstrap  # noqa: E402
from discrank._tuning import Validation  # noqa: E402
from discrank.evaluation import Evaluation, evaluate  # noqa: E402

__all__ = [
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
    "PairwiseData",
    "SchurDecomposition",
    "Validation",
    "analysis",
    "bootstrap",
    "evaluate",
    "load",
    "read_pgn",
    "__version__",
]
