"""Bootstrap confidence intervals on ratings, ranks and advantage coefficients, resampling games (as
Chatbot-Arena's leaderboards).

Each replicate draws the games of the data with replacement, as many as it holds (what a game is depends on
the data: :func:`bootstrap`), and refits a clone of the estimator on them; percentiles of the replicates give
the intervals. Replicate ``r`` draws from ``numpy.random.default_rng([seed, r])``, so the result is the same
whatever the number of workers (threads, each fit on one core thread). The table is the model's own
``ratings_frame()`` (its ``elo`` column where it has one, else its ``rating``), read from each replicate's fit.
"""

from __future__ import annotations

import contextvars
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from discrank._util.checks import show
from discrank.data._coding import game_log_pairs
from discrank._util.progress import Ticker, reporting, speaking, staging
from discrank.data.pairs import PairwiseData, covariate_data
from discrank._util.exceptions import ConvergenceWarning
from discrank.data.logs import GameLog
from discrank.data.periods import PeriodGames

__all__ = ["BootstrapResult", "bootstrap"]

#: The columns of ``ratings_frame()`` a bootstrap table can show, in order of preference (the first
#: one the frame has): Elo points, then the model's own rating (m-Elo's mean score minus 1/2), then the
#: disc strength.
TABLE_COLUMNS = ("elo", "rating", "strength")


@dataclass
class BootstrapResult:
    """The replicates of a :func:`bootstrap`, with the point estimate on all the games.

    Attributes
    ----------
    labels : ndarray
        The players of the data.
    point : ndarray, shape (n_players,)
        The ``column`` of the model fitted on all the games, in ``labels`` order.
    scores : ndarray, shape (n_boot, n_players)
        The ``column`` of each replicate's fit; NaN for a player absent from a replicate's games, for
        every player of a replicate whose fit failed, ranked no player (a cyclic first disc component),
        or lacked the anchor.
    ci : float
        The level of the intervals.
    column : str
        The ``ratings_frame()`` column the scores are (``"elo"``: Elo points, ``anchor_rating + 400 /
        ln 10 * (rating - reference)``; ``"rating"``: the model's own units).
    beta_names : tuple of str
        The advantage covariates of a model fitted with them (empty otherwise).
    beta_point : ndarray, shape (n_covariates,)
        Their coefficients (logits) fitted on all the games.
    beta_scores : ndarray, shape (n_boot, n_covariates)
        The coefficients of each replicate (NaN where its fit failed).
    model : object
        The estimator fitted on all the games (None when not kept).
    """

    labels: np.ndarray
    point: np.ndarray
    scores: np.ndarray
    ci: float
    column: str = "score"
    beta_names: tuple = ()
    beta_point: np.ndarray = field(default_factory=lambda: np.zeros(0))
    beta_scores: Optional[np.ndarray] = None
    model: Any = None

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, the ``ci`` interval of their score over the replicates.

        Returns
        -------
        lo, hi : ndarray, shape (n_players,)
            The ``50 (1 - ci)`` and ``50 (1 + ci)`` percentiles of each player's scores, the replicates'
            NaN left out; NaN for a player without a score in any replicate.
        """
        return _percentiles(self.scores, self.ci)

    def rank_intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, integer bounds of their rank (1 = best), by FastChat's rule on the intervals.

        A player's best rank is 1 plus the number of players whose interval lies wholly above theirs
        (lower bound above their upper bound); their worst rank is the number of players minus those
        whose interval lies wholly below. A player without an interval (no score in any replicate) is
        placed nowhere: bounds 1 and ``n_players``. The bounds are widened to hold the point rank (the
        rank of :meth:`frame`), which they hold already whenever each player's point lies in their
        interval.

        Returns
        -------
        rank_lo, rank_hi : ndarray of int64, shape (n_players,)
            The best and the worst rank of each player, in ``labels`` order, ``rank_lo <= rank <= rank_hi``.
        """
        lo, hi = self.intervals()
        return rank_bounds(lo, hi, self._point_ranks())

    def _point_ranks(self) -> np.ndarray:
        """The rank of each player (``labels`` order) in the point estimate, ties in label order."""
        rank = np.empty(self.point.size, dtype=np.int64)
        rank[np.argsort(-self.point, kind="stable")] = np.arange(1, self.point.size + 1)
        return rank

    def frame(self):
        """The table, best first, as ``ratings_frame()`` orders it.

        Returns
        -------
        pandas.DataFrame
            Columns ``player``, ``rank`` (of the point estimate), ``rank_lo`` and ``rank_hi`` (integers,
            :meth:`rank_intervals`), the point estimate under its ``ratings_frame()`` name (:attr:`column`:
            ``elo`` for the rating models), its interval ``lo`` and ``hi`` (:meth:`intervals`), and
            ``replicates``: how many replicates rated the player. ``attrs`` holds ``column``, ``ci`` and
            the model's name.
        """
        import pandas as pd

        lo, hi = self.intervals()
        rlo, rhi = self.rank_intervals()
        order = np.argsort(-self.point, kind="stable")
        frame = pd.DataFrame({
            "player": self.labels[order], "rank": np.arange(1, order.size + 1), "rank_lo": rlo[order],
            "rank_hi": rhi[order], self.column: self.point[order], "lo": lo[order], "hi": hi[order],
            "replicates": np.sum(~np.isnan(self.scores), axis=0)[order],
        })
        frame.attrs.update(column=self.column, ci=self.ci, model=type(self.model).__name__)
        return frame

    def beta_frame(self):
        """The advantage coefficients with their intervals.

        Returns
        -------
        pandas.DataFrame
            One row per covariate: ``name``, ``beta`` (fitted on all the games, logits), ``lo`` and
            ``hi`` (the ``ci`` percentile interval of the replicates) and ``se`` (the replicates' standard
            deviation); no row for a model fitted without covariates.
        """
        import pandas as pd

        scores = np.zeros((self.scores.shape[0], 0)) if self.beta_scores is None else self.beta_scores
        lo, hi = _percentiles(scores, self.ci)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # fewer than two replicates: NaN
            se = np.nanstd(scores, axis=0, ddof=1)
        return pd.DataFrame({"name": list(self.beta_names), "beta": self.beta_point, "lo": lo, "hi": hi, "se": se})


def rank_bounds(lo: np.ndarray, hi: np.ndarray, rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer rank bounds by FastChat's rule: 1 plus the number of intervals wholly above (``lo_j >
    hi_i``), and ``n`` minus the number wholly below, widened to hold ``rank``; a NaN bound is unbounded."""
    n = lo.size
    lo = np.where(np.isnan(lo), -np.inf, lo)
    hi = np.where(np.isnan(hi), np.inf, hi)
    above = n - np.searchsorted(np.sort(lo), hi, side="right")  # players with lo_j > hi_i
    below = np.searchsorted(np.sort(hi), lo, side="left")  # players with hi_j < lo_i
    return np.minimum(1 + above, rank).astype(np.int64), np.maximum(n - below, rank).astype(np.int64)


def _percentiles(values: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``ci`` percentile interval of each column of ``values``, NaN left out (all NaN: NaN)."""
    lo, hi = 50.0 * (1.0 - ci), 50.0 * (1.0 + ci)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        return np.nanpercentile(values, lo, axis=0), np.nanpercentile(values, hi, axis=0)


def _scores(model: Any) -> np.ndarray:
    """The values the fitted model ranks its players by (``_sort_key``: Elo's ratings, m-Elo's mean score,
    a disc model's strength), as float64; NaN for a model without a ranking (a cyclic disc component)."""
    key = model._sort_key()
    if key is None:
        return np.full(model.n_players_, np.nan)
    return np.array(key, dtype=np.float64)


# ------------------------------------------------------------------------------------ the table
def _table(model: Any, anchor: Any) -> Optional[tuple[str, np.ndarray, np.ndarray]]:
    """``(column, players, values)`` of a fitted model: its ``ratings_frame(anchor=anchor)`` column (the
    first of :data:`TABLE_COLUMNS` it has; every model of the family has a table); None when the frame
    ranks no player."""
    frame = model.ratings_frame(anchor=anchor)
    column = next((c for c in TABLE_COLUMNS if c in frame.columns), None)
    if column is None or frame["rank"].isna().all():
        return None
    return column, frame["player"].to_numpy(), frame[column].to_numpy(dtype=np.float64)


def _betas(model: Any, names: tuple) -> np.ndarray:
    """The fitted advantage coefficients of ``names`` (NaN for one the fit lacks)."""
    fitted = getattr(model, "beta_", None)
    have = dict(zip(getattr(model, "advantage_names_", ()), () if fitted is None else np.asarray(fitted)))
    return np.array([have.get(name, np.nan) for name in names], dtype=np.float64)


# ------------------------------------------------------------------------------------ resampling
def _present(lo: np.ndarray, hi: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The players of the kept entries (codes into the data's labels, sorted) and each code's new index."""
    used = np.zeros(n, dtype=bool)
    used[lo] = True
    used[hi] = True
    players = np.flatnonzero(used)
    pos = np.full(n, -1, dtype=np.int64)
    pos[players] = np.arange(players.size)
    return players, pos


def _log_sampler(log: GameLog, weights: Optional[str]) -> tuple[np.ndarray, Callable]:
    """(labels, draw): a replicate is ``len(log)`` rows drawn with replacement, in the log's order, with
    their times, covariates, contexts, margins and match formats, the players coded into ``labels``;
    aggregated to pairs with ``weights`` when given."""
    from discrank.solvers._tuning import code_log

    labels, ca, cb = code_log(log)
    score = np.asarray(log.score, dtype=np.float64)
    g = len(log)

    def draw(rng: np.random.Generator) -> Any:
        idx = np.repeat(np.arange(g), rng.multinomial(g, np.full(g, 1.0 / g)))
        sample = GameLog._trusted(ca[idx], cb[idx], score[idx], None if log.time is None else np.asarray(log.time)[idx],
                                  {}, None if log.advantage is None else np.asarray(log.advantage)[idx],
                                  log.advantage_names,
                                  context=None if log.context is None else np.asarray(log.context)[idx],
                                  margin=None if log.margin is None else np.asarray(log.margin)[idx],
                                  match_format=None if log.match_format is None else np.asarray(log.match_format)[idx])
        return sample if weights is None else game_log_pairs(sample, weights=weights)  # (the lost columns named once)

    return labels, draw


#: How far a count of games may be from a whole number (rounding of ``p * n_games``) and still read as one.
WHOLE_TOLERANCE = 1e-6


def _whole(games: np.ndarray, what: str) -> np.ndarray:
    """``games`` rounded to whole numbers of games; a ValueError names the first that is not one."""
    rounded = np.round(games)
    bad = np.flatnonzero((np.abs(games - rounded) > WHOLE_TOLERANCE * np.maximum(1.0, rounded)) | (rounded < 0))
    if bad.size:
        raise ValueError(f"bootstrap resamples games: {what}[{bad[0]}] = {show(games[bad[0]])} is not a whole "
                         "number of games")
    return rounded


def _draw_counts(rng: np.random.Generator, games: np.ndarray) -> np.ndarray:
    """How often each cell is drawn when ``sum(games)`` games are drawn with replacement from cells of
    ``games`` games each (whole numbers): a multinomial."""
    total = int(round(float(games.sum())))
    return rng.multinomial(total, games / games.sum()).astype(np.float64)


def _outcomes_sampler(games: np.ndarray, score: np.ndarray, draws: Optional[np.ndarray], what: str) -> Callable:
    """The draw of entries of ``games`` games each, with the score sums ``score`` and the draws ``draws``:
    ``rng -> (games, score, draws)`` of the games drawn with replacement. With the draws known, an entry
    is its wins, draws and losses, drawn as they are (a multinomial over the three per entry); without
    (None), its ``n`` games with mean score ``p`` read as ``n`` games each won with probability ``p``: the
    ``n'`` drawn score ``Binomial(n', p)``, their draws None."""
    if draws is None:
        games = _whole(games, what)
        p = np.clip(score / games, 0.0, 1.0)

        def binomial(rng: np.random.Generator) -> tuple:
            count = _draw_counts(rng, games)
            return count, rng.binomial(count.astype(np.int64), p).astype(np.float64), None

        return binomial
    wins = score - 0.5 * draws
    cells = _whole(np.stack([wins, draws, games - wins - draws], axis=1).reshape(-1),
                   f"the wins, draws and losses of the {what} (3 per entry, in order)")

    def outcomes(rng: np.random.Generator) -> tuple:
        w, d, lost = _draw_counts(rng, cells).reshape(-1, 3).T
        return w + d + lost, w + 0.5 * d, d

    return outcomes


def _pairs_sampler(data: PairwiseData, weights: Optional[str]) -> tuple[np.ndarray, Callable]:
    """(labels, draw): a replicate draws the data's games with replacement, the games of each pair (or
    covariate row) as :func:`_outcomes_sampler` draws them: wins, draws and losses where the pairs keep
    their draws, else the score binomial."""
    if data.n_games is None:
        raise ValueError("bootstrap resamples games: this PairwiseData has no game counts (n_games), only "
                         "probabilities; build it from games (from_games, GameLog.to_pairs) or with n_games")
    rows = data.covariates
    entries = data if rows is None else rows
    # the draw counts of the pairs (``PairwiseData.draws``, ``CovariateRows.draws``) where they are known
    outcomes = _outcomes_sampler(entries.n_games, entries.p * entries.n_games, getattr(entries, "draws", None),
                                 "n_games" if rows is None else "covariates.n_games")
    weights = weights or data.weights
    n = data.n_players

    def draw(rng: np.random.Generator) -> PairwiseData:
        count, won, draws = outcomes(rng)
        keep = count > 0
        kept_draws = {} if draws is None else {"draws": draws[keep]}
        if rows is None:
            players, pos = _present(data.i[keep], data.j[keep], n)
            out = PairwiseData(pos[data.i[keep]], pos[data.j[keep]], won[keep] / count[keep], count[keep],
                               labels=players, weights=weights)
            if draws is not None:
                out.draws = draws[keep]
            return out
        kept_pairs, row_pair = np.unique(rows.pair[keep], return_inverse=True)
        players, pos = _present(data.i[kept_pairs], data.j[kept_pairs], n)
        return covariate_data(row_pair.reshape(-1), pos[data.i[kept_pairs]].astype(np.int32),
                              pos[data.j[kept_pairs]].astype(np.int32), count[keep], won[keep], rows.x[keep],
                              rows.names, players, weights, **kept_draws)

    return data.labels, draw


def _period_sampler(games: PeriodGames) -> tuple[np.ndarray, Callable]:
    """(labels, draw): a replicate draws the games with replacement, as :func:`_outcomes_sampler` draws
    the rows' games: their wins, draws and losses when every score is a result (``games.results``), else
    the score binomial (no draw)."""
    games.check()
    outcomes = _outcomes_sampler(games.games, games.score, games.draws if games.results else None, "rows")
    n = games.labels.shape[0]

    def draw(rng: np.random.Generator) -> PeriodGames:
        count, score, draws = outcomes(rng)
        keep = count > 0
        players, pos = _present(games.a[keep], games.b[keep], n)
        x = None if games.advantage is None else games.advantage[keep]
        return PeriodGames(players, pos[games.a[keep]].astype(np.int32), pos[games.b[keep]].astype(np.int32),
                           games.bins[keep], games.period, games.dates, count[keep], score[keep],
                           np.zeros(int(keep.sum())) if draws is None else draws[keep], games.results, x,
                           tuple(games.advantage_names))

    return games.labels, draw


def _sampler(data: Any, weights: Optional[str]) -> tuple[Any, np.ndarray, Callable]:
    """(the data the point estimate fits, its labels, the replicates' draw) of any data ``bootstrap``
    takes."""
    if isinstance(data, GameLog):
        labels, draw = _log_sampler(data, weights)
        return (data if weights is None else game_log_pairs(data, weights=weights)), labels, draw
    if isinstance(data, PairwiseData):
        labels, draw = _pairs_sampler(data, weights)
        if weights is not None and weights != data.weights:
            raise ValueError(f"weights={weights!r}: the PairwiseData has weights={data.weights!r}; give weights "
                             "when building it")
        return data, labels, draw
    if isinstance(data, PeriodGames):
        if weights is not None:
            raise ValueError(f"weights={weights!r} applies to games aggregated to pairs: PeriodGames keep their "
                             "games by period")
        labels, draw = _period_sampler(data)
        return data, labels, draw
    raise TypeError("bootstrap resamples games: data must be a discrank.GameLog, PeriodGames or PairwiseData "
                    f"(or the arrays a, b, score), got {type(data).__name__}")


# ------------------------------------------------------------------------------------ the driver
def _check_args(seed: Any, n_boot: Any, ci: Any) -> None:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer >= 0 (replicate r draws from default_rng([seed, r])), got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be an integer >= 0 (replicate r draws from default_rng([seed, r])), got {seed!r}")
    if isinstance(n_boot, (bool, np.bool_)) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"n_boot must be an integer >= 2, got {n_boot!r}")
    if isinstance(ci, (bool, np.bool_)) or not isinstance(ci, (int, float, np.integer, np.floating)) \
            or not 0.0 < float(ci) < 1.0:
        raise ValueError(f"ci must be a number in (0, 1), got {ci!r}")


def _as_data(data: Any, b: Any, score: Any) -> Any:
    """``data``, or the game log of the arrays ``(data, b, score)`` (bootstrap's three-array form)."""
    if b is None and score is None:
        return data
    if b is None or score is None:
        raise TypeError("bootstrap(estimator, a, b, score) needs both b and score; or give one GameLog, "
                        "PeriodGames or PairwiseData as data")
    if isinstance(data, (GameLog, PairwiseData, PeriodGames)):
        raise TypeError(f"bootstrap got a {type(data).__name__} and the arrays b and score: give one or the other")
    return GameLog.from_arrays(data, b, score)


def _point_fit(estimator: Any, data: Any, fitted: Any) -> Any:
    """The estimator's clone fitted on all the games (``fitted``: what it is given, ``data`` as the caller
    gave it); a model that cannot fit them raises, naming it and the data."""
    if not (hasattr(estimator, "get_params") and hasattr(estimator, "fit")):
        raise TypeError("bootstrap refits clones of a discrank model (get_params, fit); got "
                        f"{type(estimator).__name__}")
    name = type(estimator).__name__
    try:
        return type(estimator)(**estimator.get_params()).fit(fitted)
    except TypeError as exc:
        what = type(data).__name__ + (" aggregated to pairs (weights=)" if fitted is not data else "")
        raise TypeError(f"bootstrap: {name} cannot fit a {what}: {exc}") from exc


def _run(replicate: Callable, n_boot: int, workers: int, name: str) -> list:
    """The replicates' results, ``workers`` threads at a time, their progress reported (:class:`Ticker`); their
    warnings collected (one ``ConvergenceWarning`` counts those that did not converge) and their failed fits
    counted in one warning (all failed: a ValueError)."""
    ticker = Ticker(f"bootstrap of {name}", n_boot, "replicates")

    def run(r: int) -> Any:
        row = replicate(r)
        ticker.done()
        return row

    # The replicates' own fits report nothing (a listener that swallows, which their verbose=None respects), in
    # this thread and in the workers (each runs in a copy of this context); the warning filters are process-wide:
    # set once here, around all the workers.
    with warnings.catch_warnings(record=True) as caught, staging(lambda text: None), reporting(None):
        warnings.simplefilter("always")
        if workers > 1:
            contexts = [contextvars.copy_context() for _ in range(n_boot)]
            with ThreadPoolExecutor(max_workers=workers) as pool:
                rows = list(pool.map(lambda r: contexts[r].run(run, r), range(n_boot)))
        else:
            rows = [run(r) for r in range(n_boot)]
    unconverged = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
    if unconverged:
        warnings.warn(f"{unconverged} of {n_boot} bootstrap replicates of {name} did not converge", ConvergenceWarning,
                      stacklevel=3)
    failed = [row for row in rows if isinstance(row, Exception)]
    if len(failed) == n_boot:
        raise ValueError(f"bootstrap: no replicate of {name} could be fitted; the first: {failed[0]}") from failed[0]
    if failed:
        warnings.warn(f"{len(failed)} of {n_boot} bootstrap replicates of {name} could not be fitted and are left out "
                      f"of the intervals (the first: {failed[0]})", UserWarning, stacklevel=3)
    return rows


def bootstrap(estimator: Any, data: Any, b: Any = None, score: Any = None, *, n_boot: int = 200, ci: float = 0.95,
              seed: int = 0, n_jobs: Optional[int] = None, weights: Optional[str] = None,
              anchor: Any = None, verbose: Any = None) -> BootstrapResult:
    """Refit ``estimator`` (cloned with its parameters) on ``n_boot`` resamples of the games of ``data``;
    returns the replicates' ratings and advantage coefficients with the fit on all the games.

    Each replicate draws as many games as the data holds, with replacement: a :class:`~discrank.GameLog`'s
    rows (with their times and covariates, in the log's order), a :class:`~discrank.PeriodGames` row's wins,
    draws and losses, a :class:`~discrank.PairwiseData` pair's (or covariate row's) games: wins, draws and
    losses where the pairs keep draw counts, else a binomial score. Parameters left None (a prior scale) are
    tuned again in each replicate. A player with no game in a replicate has no score there (NaN); each
    replicate's ``elo`` is centred on its own players. The replicates' warnings are collected (see Warns).

    Parameters
    ----------
    estimator : model
        The model to refit: a pair model (Elo, EloPlusPlus, MElo, DiscDecomposition, ...), DynamicElo or
        OnlineElo; its own fitted state, if any, is not used.
    data : GameLog, PeriodGames, PairwiseData or array_like
        Anything the estimator's ``fit`` takes; or, with ``b`` and ``score``, the labels ``a`` of the
        first player of each game.
    b, score : array_like, optional
        With ``data`` as ``a``: the second player and the score of ``a`` in each game, as in
        :meth:`~discrank.GameLog.from_arrays` (a log without times).
    n_boot : int, optional
        Number of replicates, an integer >= 2; default 200.
    ci : float, optional
        Level of the intervals, in (0, 1); default 0.95.
    seed : int, optional
        An integer >= 0; replicate ``r`` draws from ``numpy.random.default_rng([seed, r])``. Default 0.
    n_jobs : int, optional
        None (default): one worker, each fit then using OpenMP's default threads. Otherwise that many
        worker threads, with scikit-learn's meaning of ``n_jobs`` (-1: all cores; a count above the limit
        clamped with a ``ThreadCountWarning``), never more than the replicates; with more than one worker,
        the replicates of an estimator with an ``n_jobs`` parameter fit with ``n_jobs=1``.
    weights : {"games", "uniform"}, optional
        For a pair model on a game log: each fit is on the games aggregated to pairs with these weights
        (:meth:`~discrank.GameLog.to_pairs`; the prior, when tuned, then on held-out pairs). Default:
        the log is fitted as it is.
    anchor : label, optional
        The player at ``ratings_frame``'s ``anchor_rating`` (1500 Elo points) in every replicate and in
        the point estimate (for a model without ``ratings_frame``: at rating 0); a replicate without the
        anchor's games is left out (NaN). Default: each fit's mean rating is.
    verbose : bool, int or None, optional
        The replicates done on stderr, every 2 s (:func:`discrank.progress`); None (default): where a person
        watches (stderr a terminal, or a notebook), else none.

    Returns
    -------
    BootstrapResult
        The players, the point estimate, the replicates' scores and coefficients; :meth:`~BootstrapResult.frame`
        gives the table, :meth:`~BootstrapResult.beta_frame` the coefficients.

    Raises
    ------
    TypeError
        A ``seed`` that is not an integer, an ``n_jobs`` that is neither an int nor None, data that is none
        of the above, or an estimator that cannot fit it (named with the data).
    ValueError
        A negative ``seed``, an ``n_boot`` that is not an integer >= 2, a ``ci`` outside (0, 1),
        ``n_jobs=0`` or below minus the number of cores, an unknown ``anchor``, invalid games, a
        PairwiseData or PeriodGames without whole game counts (named with the entry), a model that ranks
        no player on all the games (a cyclic first disc component), or no replicate that could be fitted.

    Warns
    -----
    UnusedColumnWarning
        With ``weights``, each context, margin or match format column of a game log (which its pairs do not
        keep), named once; without, the fit on all the games warns as ``fit`` does.
    ConvergenceWarning
        Some replicates did not converge (one warning with their number).
    UserWarning
        Some replicates could not be fitted (one warning with their number and the first error).
    """
    from discrank._util.labels import LabelIndex
    from discrank._util.threads import resolve_n_jobs

    _check_args(seed, n_boot, ci)
    speaking(verbose)  # (checked first: the message names the value)
    workers = 1 if n_jobs is None else min(resolve_n_jobs(n_jobs), int(n_boot))
    data = _as_data(data, b, score)
    fitted, labels, draw = _sampler(data, weights)
    ref = None if anchor is None else int(LabelIndex(labels).index([anchor], "anchor")[0])
    with staging(lambda text: None), reporting(None):  # (the fits report nothing: the replicates are the progress)
        model = _point_fit(estimator, data, fitted)
    name = type(estimator).__name__
    if fitted is not data and isinstance(data, GameLog):  # the log's columns that its pairs (weights=) have lost
        from discrank.models._base import unused_columns

        unused_columns(data, f"bootstrap(weights={weights!r})", name)
    table = _table(model, anchor)
    if table is None:
        raise ValueError(f"bootstrap: {name} ranks no player on these games (ratings_frame has no rank: a cyclic "
                         "first disc component has no strength), so there is no rating to bootstrap")
    column, players, values = table
    point = np.full(labels.shape[0], np.nan)
    point[LabelIndex(labels).index(players)] = values
    names = tuple(getattr(model, "advantage_names_", ()) or ()) if getattr(model, "beta_", None) is not None else ()
    fit_params = dict(estimator.get_params())
    if "n_jobs" in fit_params and workers > 1:
        fit_params["n_jobs"] = 1

    def replicate(r: int) -> Any:
        sample = draw(np.random.default_rng([seed, r]))
        try:
            fit = type(estimator)(**fit_params).fit(sample)
        except ValueError as exc:
            return exc
        row = np.full(labels.shape[0], np.nan)
        out = None if ref is not None and ref not in fit.labels_ else _table(fit, ref)
        if out is not None and out[0] == column:
            row[np.asarray(out[1], dtype=np.int64)] = out[2]
        return row, _betas(fit, names)

    with speaking(verbose):
        rows = _run(replicate, int(n_boot), workers, name)
    nan = (np.full(labels.shape[0], np.nan), np.full(len(names), np.nan))
    rows = [nan if isinstance(row, Exception) else row for row in rows]
    return BootstrapResult(labels, point, np.vstack([r[0] for r in rows]), float(ci), column, names,
                           _betas(model, names), np.vstack([r[1] for r in rows]).reshape(len(rows), len(names)),
                           model)
