"""Game logs in and pairs out: readers (CSV, Parquet, PGN, JSON lines, tennis, football, arena votes), the
screen of invalid rows, :class:`GameLog`, :class:`PairwiseData`, :class:`PeriodGames`, ``scan_games`` for files
larger than memory, and the paper's synthetic games."""

from discrank.data.logs import GameLog, read_pgn
from discrank.data.pairs import PairwiseData, covariate_data
from discrank.data.periods import PeriodGames

__all__ = ["GameLog", "PairwiseData", "PeriodGames", "covariate_data", "read_pgn"]
