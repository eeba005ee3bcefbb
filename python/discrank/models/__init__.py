"""Rating models, one module per family, all on the compiled pair objective."""

from discrank.models.disc import DiscDecomposition, MElo
from discrank.models.elo import Elo, EloPlusPlus

__all__ = ["DiscDecomposition", "Elo", "EloPlusPlus", "MElo"]
