"""Rating models, one module per family, all on the compiled pair objective."""

from discrank.models.cv import DiscDecompositionCV
from discrank.models.disc import DiscDecomposition, MElo
from discrank.models.schur import SchurDecomposition
from discrank.models.elo import Elo, EloPlusPlus
from discrank.models.online_disc import OnlineDisc

__all__ = ["DiscDecomposition", "DiscDecompositionCV", "Elo", "EloPlusPlus", "MElo", "OnlineDisc", "SchurDecomposition"]
