"""Rating models, one module per family, every estimator on one base (:class:`discrank.models._base.Model`)."""

from discrank.models.cv import DiscDecompositionCV
from discrank.models.disc import DiscDecomposition, MElo
from discrank.models.dynamic._model import DynamicElo
from discrank.models.online._elo import OnlineElo
from discrank.models.schur import SchurDecomposition
from discrank.models.elo import Elo, EloPlusPlus
from discrank.models.online._disc import OnlineDisc

__all__ = ["DiscDecomposition", "DiscDecompositionCV", "DynamicElo", "Elo", "EloPlusPlus", "MElo", "OnlineDisc",
           "OnlineElo", "SchurDecomposition"]
