"""discrank: ratings for two-player zero-sum games beyond Elo.

Implements the disc decomposition of Bertrand, Czarnecki and Gidel, "Limitations of the Elo rating
system and the disc decomposition" (AISTATS 2023), with its Elo baselines, on a C++ core that evaluates
the losses and gradients over the observed pairs only. docs/ARCHITECTURE.md maps the subpackages.
"""

import sys

from discrank.core._core import __version__
from discrank.data.pairs import PairwiseData
from discrank._util import exceptions
from discrank._util.exceptions import (
    ConvergenceWarning,
    DisconnectedGraphWarning,
    InvalidRowsWarning,
    IsolatedPlayerWarning,
    NotFittedError,
    NumericalError,
    UnknownPlayerError,
)
from discrank.models import analysis, dynamic, online
from discrank.models import DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, MElo, OnlineDisc, SchurDecomposition
from discrank.data.logs import GameLog, read_pgn
from discrank.data.readers import read_football, read_tennis
from discrank.persist.model_file import load
from discrank.evaluation._bootstrap import bootstrap
from discrank.solvers._tuning import Validation
from discrank.evaluation._evaluate import Evaluation, evaluate
from discrank.models.dynamic._model import DynamicElo
from discrank.data.periods import PeriodGames
from discrank.data import scan
from discrank.data.scan import scan_games
from discrank.data.arena import read_arena
from discrank.arena.board import ArenaBoard, arena_board
from discrank._util.progress import progress

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

#: The public modules whose code sits in a subpackage, under their public names (``import discrank.online``).
for _module in (analysis, dynamic, exceptions, online, scan):
    sys.modules[f"discrank.{_module.__name__.rpartition('.')[2]}"] = _module
del _module
