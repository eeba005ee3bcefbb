"""discrank: ratings for two-player zero-sum games beyond Elo (disc decomposition)."""
from discrank._core import __version__
__all__ = ["__version__"]
