"""discrank: ratings for two-player zero-sum games beyond Elo.

Implements the disc decomposition of Bertrand, Czarnecki and Gidel, "Limitations of the Elo rating
system and the disc decomposition" (AISTATS 2023), with its Elo baselines, on a C++ core that evaluates
the losses and gradients over the observed pairs only.
"""

from discrank._core import __version__
from discrank.data import PairwiseData
from discrank.exceptions import ConvergenceWarning, DisconnectedGraphWarning, IsolatedPlayerWarning
from discrank.models import DiscDecomposition, Elo, EloPlusPlus, MElo

__all__ = [
    "ConvergenceWarning",
    "DiscDecomposition",
    "DisconnectedGraphWarning",
    "Elo",
    "EloPlusPlus",
    "IsolatedPlayerWarning",
    "MElo",
    "PairwiseData",
    "__version__",
]
