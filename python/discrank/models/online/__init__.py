"""Ratings updated game by game: :func:`online_elo` and :func:`online_disc` (the core's loops,
cpp/include/discrank/online.hpp) and the estimators :class:`OnlineElo` and :class:`OnlineDisc`. Public as
``discrank.online``."""

from discrank.models.online._disc import OnlineDisc
from discrank.models.online._elo import STEP_GRID, OnlineElo
from discrank.models.online._runs import ELO_K32_STEP, OnlineRatings, online_disc, online_elo

__all__ = ["OnlineRatings", "OnlineElo", "STEP_GRID", "online_elo", "online_disc", "ELO_K32_STEP"]
