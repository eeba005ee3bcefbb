"""Models judged on the future: ``evaluate`` (time splits, the frozen and online protocols, paired standard
errors), its result, the rating-model protocol, and ``bootstrap``."""

from discrank.evaluation._bootstrap import BootstrapResult, bootstrap
from discrank.evaluation._evaluate import Evaluation, evaluate, game_losses, outcome_losses

__all__ = ["BootstrapResult", "Evaluation", "bootstrap", "evaluate", "game_losses", "outcome_losses"]
