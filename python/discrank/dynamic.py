"""Ratings that move with time: :class:`DynamicElo`, the whole-history MAP of a Gaussian random walk per
player (its module is :mod:`discrank.models.dynamic`; this one keeps its names where they were)."""

from discrank.models._dynamic_tuning import walk_grid as _walk_grid  # noqa: F401 - the grid walk, by its old name
from discrank.models.dynamic import DRIFT_GRID, PRIOR_GRID, VARIANCE_GRID, DynamicElo

__all__ = ["DynamicElo", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID"]
