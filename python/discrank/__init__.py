"""discrank: ratings for two-player zero-sum games beyond Elo.

Implements the disc decomposition of Bertrand, Czarnecki and Gidel, "Limitations of the Elo rating
system and the disc decomposition" (AISTATS 2023), with its Elo baselines, on a C++ core that evaluates
the losses and gradients over the observed pairs only.
"""

from discrank._core import __version__
from discrank.data import PairwiseData
from discrank.exceptions import ConvergenceWarning, DisconnectedGraphWarning, IsolatedPlayerWarning
from discrank import analysis
from discrank.models import DiscDecomposition, DiscDecompositionCV, Elo, EloPlusPlus, MElo, SchurDecomposition

__all__ = [
    "ConvergenceWarning",
    "DiscDecomposition",
    "DiscDecompositionCV",
    "DisconnectedGraphWarning",
    "Elo",
    "EloPlusPlus",
    "IsolatedPlayerWarning",
    "MElo",
    "PairwiseData",
    "SchurDecomposition",
    "analysis",
    "__version__",
]
