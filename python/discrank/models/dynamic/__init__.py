"""Ratings that move with time: :class:`DynamicElo`, the whole-history MAP of a Gaussian random walk per
player, and its features, one module each (``_part.py`` says what a feature brings). Public as
``discrank.dynamic``."""

from discrank.models.dynamic._model import DRIFT_GRID, PRIOR_GRID, VARIANCE_GRID, DynamicElo

__all__ = ["DynamicElo", "DRIFT_GRID", "PRIOR_GRID", "VARIANCE_GRID"]
