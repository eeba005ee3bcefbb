"""Type stub of the compiled core (cpp/src/bindings.cpp)."""

from typing import Optional

import numpy as np
import numpy.typing as npt

__version__: str
LOSS_BCE: int
LOSS_SQUARED_LOGIT: int
LOSS_PROBABILITY: int
LOSS_SIGMOID_SQUARED: int
openmp: bool

def max_threads() -> int: ...

class PairObjective:
    """Observed pairs (i < j not required, i != j), targets y, weights w; borrows the arrays."""

    def __init__(
        self,
        n_players: int,
        i: npt.NDArray[np.int32],
        j: npt.NDArray[np.int32],
        y: npt.NDArray[np.float64],
        w: npt.NDArray[np.float64],
    ) -> None: ...
    @property
    def n_players(self) -> int: ...
    @property
    def n_pairs(self) -> int: ...
    def evaluate(
        self,
        loss: int,
        U: Optional[npt.NDArray[np.float64]] = None,
        V: Optional[npt.NDArray[np.float64]] = None,
        s: Optional[npt.NDArray[np.float64]] = None,
        offset: Optional[npt.NDArray[np.float64]] = None,
        grad_u: bool = False,
        grad_v: bool = False,
        grad_s: bool = False,
        n_threads: int = 0,
    ) -> tuple[
        float,
        Optional[npt.NDArray[np.float64]],
        Optional[npt.NDArray[np.float64]],
        Optional[npt.NDArray[np.float64]],
    ]: ...

def scores(
    a: npt.NDArray[np.int32],
    b: npt.NDArray[np.int32],
    n_players: int,
    U: Optional[npt.NDArray[np.float64]] = None,
    V: Optional[npt.NDArray[np.float64]] = None,
    s: Optional[npt.NDArray[np.float64]] = None,
    n_threads: int = 0,
) -> npt.NDArray[np.float64]: ...

def online_elo(
    a: npt.NDArray[np.int32],
    b: npt.NDArray[np.int32],
    score: npt.NDArray[np.float64],
    step: float,
    ratings: npt.NDArray[np.float64],
    every: int = 0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Elo updates in place on ratings (n,); returns (pre-game predictions, snapshots)."""

def online_disc(
    a: npt.NDArray[np.int32],
    b: npt.NDArray[np.int32],
    score: npt.NDArray[np.float64],
    step: float,
    ratings: npt.NDArray[np.float64],
    every: int = 0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Disc updates in place on ratings (2, n): strength then consistency; returns (predictions, snapshots)."""
