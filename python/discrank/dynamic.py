"""Ratings that move with time: :class:`DynamicElo`, the whole-history MAP of a Gaussian random walk per
player (its module is :mod:`discrank.models.dynamic`; this one keeps its public names where they were)."""

from discrank.models.dynamic import DRIFT_GRID, PRIOR_GRID, VARIANCE_GRID, DynamicElo

__all__ = ["DynamicElo", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID"]
