"""The games of each pair of a :class:`~discrank.PairwiseData` split by their advantage covariates' value."""

from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

__all__ = ["CovariateRows"]


class CovariateRows(NamedTuple):
    """The games of each pair of a :class:`PairwiseData` split by their advantage covariates' value.

    One row per distinct ``(pair, x)``, sorted by pair; the pair's own ``p`` and ``n_games`` are the sums
    over its rows. ``x`` is oriented for the pair's first player ``i`` (a game where ``j`` was at home
    has ``x = -1`` for a home indicator), as the logit ``s_i - s_j + beta . x`` reads it.
    """

    pair: np.ndarray  #: int64, the index of each row's pair
    p: np.ndarray  #: float64, the share of the row's games won by the pair's ``i`` (draws half)
    n_games: np.ndarray  #: float64, the row's games
    x: np.ndarray  #: float64, shape (n_rows, n_covariates): the covariates, oriented for ``i``
    names: tuple  #: the covariates' names
    #: float64, the row's games scored 0.5 (draws); None when unknown (as :attr:`PairwiseData.draws`)
    draws: Optional[np.ndarray] = None

    def take(self, keep: np.ndarray, new_pair: np.ndarray) -> "CovariateRows":
        """The rows of the pairs kept, their pair renumbered.

        Parameters
        ----------
        keep : ndarray of bool, shape (n_pairs,)
            The pairs kept.
        new_pair : ndarray of int, shape (n_pairs,)
            The new index of each kept pair (``cumsum(keep) - 1``).

        Returns
        -------
        CovariateRows
        """
        rows = keep[self.pair]
        return CovariateRows(new_pair[self.pair[rows]], self.p[rows], self.n_games[rows], self.x[rows], self.names,
                             None if self.draws is None else self.draws[rows])

