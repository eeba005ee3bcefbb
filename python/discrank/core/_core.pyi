"""Type stub of the compiled core (cpp/src/module.cpp and the bind_*.cpp files beside it).

Input arrays must have the dtype shown (another dtype, or a list, is a TypeError); a C-contiguous,
aligned one is used without a copy, a strided one (``s[::2]``, ``G[:, 2]``) is copied once to C order.
Arrays the core writes into (``ratings`` of the online updates, ``curv``) must be C-contiguous float64.
Every ``n_threads`` (0: OpenMP's default, ``omp_get_max_threads()``) is clamped to ``thread_limit()``.
Player indices are checked by one check (cpp/include/discrank/checks.hpp): an index outside [0, n), or
a pair that breaks the function's rule (two different players; ``lo < hi`` for ``group_pairs``), is a
``ValueError`` naming the first offending entry.
"""

from typing import Optional

import numpy as np
import numpy.typing as npt

__version__: str
REDUCTION_LEAVES: int
BLOCK_PAIRS: int
LOSS_BCE: int
LOSS_SQUARED_LOGIT: int
LOSS_PROBABILITY: int
LOSS_SIGMOID_SQUARED: int
DRAW_DAVIDSON: int
DRAW_RAO_KUPPER: int

def draw_terms(
    model: int,
    d: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    q: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    eta: float,
) -> tuple[npt.NDArray[np.float64], ...]:
    """A draw model's per-pair terms at scores d (y score shares, q draw shares, w weights): (w L, w dL/dd,
    w d2L/dd2, w dL/deta, w d2L/dd deta, w d2L/deta2); Rao-Kupper's are +inf for eta <= 0."""

def max_threads() -> int:
    """OpenMP's default thread count (``OMP_NUM_THREADS`` when set, else the processors), unclamped."""

def thread_limit() -> int:
    """The most threads a kernel call starts: 4 per processor (``omp_get_num_procs``), at most 1024."""

def trim_heap() -> bool:
    """Return the allocator's free pages to the system (glibc's ``malloc_trim(0)``; False elsewhere): whether any
    were returned."""

class PairObjective:
    """Observed pairs (i < j not required, i != j), targets y, weights w; borrows the arrays.

    ``strategy`` ("auto", "scatter" or "gather") forces the way per-player sums are formed, so that the
    tests check both ways on the same pairs; "auto" takes the one the data call for (see ``strategy``).
    """

    def __init__(
        self,
        n_players: int,
        i: npt.NDArray[np.int32],
        j: npt.NDArray[np.int32],
        y: npt.NDArray[np.float64],
        w: npt.NDArray[np.float64],
        strategy: str = "auto",
        part: tuple[int, int, int, int] | None = None,
    ) -> None:
        """``part``: (total_pairs, first_pair, leaf_lo, leaf_hi): the pairs are those of a set of
        ``total_pairs`` pairs that make its leaves [leaf_lo, leaf_hi) of the per-player sums' reduction tree
        (a part of a distributed fit); every per-player output then has a leading axis, one row per node
        of ``nodes`` (one, the sum itself, for a part holding every leaf)."""
    @property
    def nodes(self) -> list[tuple[int, int]]:
        """The (first leaf, level) of each node of the reduction tree the per-player outputs hold."""
    def block_losses(self) -> npt.NDArray[np.float64]:
        """The last evaluation's loss per block of BLOCK_PAIRS pairs (its value: their compensated_sum)."""
    @property
    def n_players(self) -> int: ...
    @property
    def n_pairs(self) -> int: ...
    @property
    def strategy(self) -> str:
        """"scatter" (chunk buffers: "auto" when the pairs number 16 x the players or more) or "gather"
        (adjacency list, sparse logs)."""
    def score_sums(
        self, n_threads: int = 0
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """(total, scored, conceded) per player: sums over their pairs of w, w * own score, w * opponent's."""
    def hessp_s(
        self, curv: npt.NDArray[np.float64], x: npt.NDArray[np.float64], n_threads: int = 0
    ) -> npt.NDArray[np.float64]:
        """The weighted Laplacian (Elo's Hessian for the curvature ``curv`` from evaluate) times x."""
    def player_sums(self, v: npt.NDArray[np.float64], n_threads: int = 0) -> npt.NDArray[np.float64]:
        """Per player, the sum of v over their pairs."""
    def opponent_sums(
        self, v: npt.NDArray[np.float64], c: npt.NDArray[np.float64], n_threads: int = 0
    ) -> npt.NDArray[np.float64]:
        """Per player a, the sum over a's pairs of v_p c_b^2 (b the other player)."""
    def stream_limit(self, loss: int, n_threads: int = 0) -> float:
        """The bench's limit: the pair arrays streamed through the loss code, no gather or scatter."""
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
        curv: Optional[npt.NDArray[np.float64]] = None,
        n_threads: int = 0,
    ) -> tuple[
        float,
        Optional[npt.NDArray[np.float64]],
        Optional[npt.NDArray[np.float64]],
        Optional[npt.NDArray[np.float64]],
    ]: ...
    def evaluate_draws(
        self,
        model: int,
        q: npt.NDArray[np.float64],
        eta: float,
        U: Optional[npt.NDArray[np.float64]] = None,
        V: Optional[npt.NDArray[np.float64]] = None,
        s: Optional[npt.NDArray[np.float64]] = None,
        offset: Optional[npt.NDArray[np.float64]] = None,
        grad_u: bool = False,
        grad_v: bool = False,
        grad_s: bool = False,
        curv: Optional[npt.NDArray[np.float64]] = None,
        n_threads: int = 0,
    ) -> tuple[
        float,
        Optional[npt.NDArray[np.float64]],
        Optional[npt.NDArray[np.float64]],
        Optional[npt.NDArray[np.float64]],
        float,
        float,
    ]:
        """``evaluate`` with a draw model (DRAW_DAVIDSON, DRAW_RAO_KUPPER): the targets y are the pairs'
        score shares, q their draw shares, eta the draw parameter; also dL/deta and d2L/deta2, summed in
        the loss's fixed order."""

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

def fast_exp_log1p(x: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(exp(-|x|), log1p(exp(-|x|))) by the vectorised code of fastmath.hpp (for its accuracy test)."""

def factorize_fixed(
    a: npt.NDArray[np.str_], b: npt.NDArray[np.str_]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(codes of a then b, index in a then b of each code's first occurrence) of fixed-width unicode labels, coded
    by hashing in first-seen order."""

def factorize_ints(
    a: npt.NDArray[np.integer], b: npt.NDArray[np.integer], max_range: int, n_threads: int = 0
) -> Optional[tuple[npt.NDArray[np.integer], npt.NDArray[np.int32], npt.NDArray[np.int32]]]:
    """(distinct values, codes of a, codes of b) for int32 / int64 ids of a range narrower than max_range,
    else None."""

def group_pairs(
    n: int, lo: npt.NDArray[np.int32], hi: npt.NDArray[np.int32], n_threads: int = 0
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """(inverse, pair_lo, pair_hi): the distinct pairs sorted by (lo, hi) and each entry's rank."""

def aggregate_games(
    n: int,
    a: npt.NDArray[np.int32],
    b: npt.NDArray[np.int32],
    score: npt.NDArray[np.float64],
    count: Optional[npt.NDArray[np.float64]] = None,
    n_threads: int = 0,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(pair_lo, pair_hi, games, score of lo): a game log aggregated to its distinct pairs."""

def tile_pairs(
    n: int,
    i: npt.NDArray[np.int32],
    j: npt.NDArray[np.int32],
    cols: list[npt.NDArray[np.float64]],
    tile_bits: int = 11,
    n_threads: int = 0,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], list[npt.NDArray[np.float64]]]:
    """(i, j, cols) moved into the cache-friendly order of the objective: stable by j >> tile_bits."""

def connected_pieces(
    n: int, i: npt.NDArray[np.int32], j: npt.NDArray[np.int32]
) -> tuple[int, npt.NDArray[np.int32]]:
    """(count, piece of each player) of the comparison graph."""

def beat_pieces(
    n: int, i: npt.NDArray[np.int32], j: npt.NDArray[np.int32], p: npt.NDArray[np.float64]
) -> tuple[int, npt.NDArray[np.int32]]:
    """(count, strong piece of each player) of the graph a -> b when a scored against b."""

def chain_add(
    diag: npt.NDArray[np.float64],
    off: npt.NDArray[np.float64],
    x: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
    n_threads: int = 0,
) -> None:
    """out += T x in place, T the symmetric tridiagonal matrix with diagonal diag and off-diagonal -off."""

def chain_pivots(
    diag: npt.NDArray[np.float64],
    off: npt.NDArray[np.float64],
    first: npt.NDArray[np.bool_],
    variances: bool = False,
    n_threads: int = 0,
) -> tuple[npt.NDArray[np.float64], Optional[npt.NDArray[np.float64]]]:
    """(pivots, diagonal of the inverse or None) of the players' blocks of a tridiagonal matrix; the same bits
    for any n_threads."""

def chain_solve(
    d: npt.NDArray[np.float64], e: npt.NDArray[np.float64], b: npt.NDArray[np.float64], n_threads: int = 0
) -> npt.NDArray[np.float64]:
    """x with L D L^T x = b from LAPACK dpttrf's factors (d, e); the same bits for any n_threads."""

class HistoryProblem:
    """The whole-history problem's rows (lo, hi, n, win, each row's logit scale) over n_pp player-periods, n_eff
    context effects (e_lo, e_hi), ``n_disc`` disc components and draw propensities of each player (``owner``: each
    player-period's), its chains (link precisions ``chain``), the prior precision of each player-period and of each
    entry of the block after them: every result the same bits for any n_threads."""

    def __init__(
        self,
        n_pp: int,
        n_eff: int,
        lo: npt.NDArray[np.int32],
        hi: npt.NDArray[np.int32],
        n: npt.NDArray[np.float64],
        win: npt.NDArray[np.float64],
        scale: Optional[npt.NDArray[np.float64]],
        e_lo: Optional[npt.NDArray[np.int32]],
        e_hi: Optional[npt.NDArray[np.int32]],
        chain: npt.NDArray[np.float64],
        prior: npt.NDArray[np.float64],
        eff_prior: npt.NDArray[np.float64],
        player: Optional[npt.NDArray[np.int32]] = None,
        n_players: int = 0,
        x: Optional[npt.NDArray[np.float64]] = None,
        beta_prior: Optional[npt.NDArray[np.float64]] = None,
        draws: int = -1,
        draw: Optional[npt.NDArray[np.float64]] = None,
        m_results: int = 0,
        owner: Optional[npt.NDArray[np.int32]] = None,
        n_disc: int = 0,
        propensity: bool = False,
    ) -> None:
        """With ``player`` (each player-period's, numbered player by player), the two-level preconditioner."""
    def value_grad(self, theta: npt.NDArray[np.float64], n_threads: int = 0) -> tuple[float, npt.NDArray[np.float64]]:
        """(value, gradient) at theta; keeps each row's curvature for the Hessian."""
    def hessp(self, v: npt.NDArray[np.float64], n_threads: int = 0) -> npt.NDArray[np.float64]:
        """The Hessian at the last value_grad times v."""
    def games_diagonal(self, n_threads: int = 0) -> npt.NDArray[np.float64]:
        """The games' part of the Hessian's diagonal at the last value_grad."""
    def global_block(self, n_threads: int = 0) -> npt.NDArray[np.float64]:
        """The Hessian's global block (covariates, draw parameter) at the last value_grad, with the covariates'
        prior."""
    def precondition(self, r: npt.NDArray[np.float64], n_threads: int = 0) -> npt.NDArray[np.float64]:
        """The Newton step's preconditioner at the last value_grad applied to r."""
    def newton_step(
        self,
        theta: npt.NDArray[np.float64],
        value: float,
        grad: npt.NDArray[np.float64],
        scale: float,
        forcing_cap: float,
        rounding: float,
        max_cg: int = 500,
        n_threads: int = 0,
    ) -> tuple[npt.NDArray[np.float64], float, npt.NDArray[np.float64], int, float, bool]:
        """(theta, value, grad, n_cg, t, fallback) after one inexact Newton step with its line search."""
