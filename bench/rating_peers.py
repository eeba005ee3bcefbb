"""The PyPI rating systems a discrank user would pick instead, behind one small interface.

Each adapter has a ``name`` and the methods ``discrank.evaluate`` calls:

- ``fit(log, *, validation=None)`` (``log`` a :class:`discrank.GameLog` with times): tune (see below)
  and rate the training games; fills ``info`` (the parameters used, the tuning scores, the seconds);
- ``update(log)``: absorb later games (all at or after every time already absorbed), the parameters
  kept as tuned; each system is updated as its documentation runs it (below);
- ``predict_games(log)``: the expected score of ``a`` (P(a wins) + P(draw) / 2 for a system that models
  draws) of each game of ``log`` AT THE GAME'S TIME, from every game absorbed so far (``log.score`` is
  not read);
- ``predict_proba(a, b)``: the same from each player's latest rating (at the last time absorbed);
- ``predict_outcomes(log)`` (TrueSkill, TrueSkill Through Time and KickScore, whose Gaussian performance
  models have a draw margin): [P(a wins), P(draw), P(b wins)] at each game's time, for the three-outcome
  log loss;
- ``relabel(labels)``: after a fit on player codes 0..n-1 (``evaluate`` fits on codes), the labels.

Each package is run as its documentation recommends:

``Glicko2Adapter``  ``glicko2`` (Kirkman / deepy, 2.1.0): rating periods (calendar weeks, months or
                    years), every player of a period updated at once from the ratings at the start of
                    the period, ``did_not_compete`` for the periods a rated player sits out (applied
                    lazily, in closed form). A period is rated once it is complete: when a game of a
                    later period is absorbed. A game is predicted from the ratings at the start of its
                    period: every completed period, the one before it included (rated on the spot from
                    the games absorbed when the game's period is later than the last one absorbed), and
                    no game of its own period. Expected score with both deviations at that time,
                    E = 1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b))), each phi grown by
                    did_not_compete for the periods its player sat out before the game's period.
``TrueSkillAdapter`` ``trueskill`` (0.4.5): the default environment, ``draw_probability`` = the training
                    log's draw rate (0 without draws), ``rate_1vs1`` game by game, new players at the
                    environment's default rating. Prediction: the standard formula
                    P = Phi((mu_a - mu_b - eps) / c), c^2 = 2 beta^2 + sig_a^2 + sig_b^2, eps the draw
                    margin (0 without draws), expected score with the draw probability.
``OpenSkillAdapter`` ``openskill`` (6.2.0): the default model (PlackettLuce), 1v1 teams, ``rate`` game
                    by game (ranks; a draw is a tied rank), new players at ``model.rating()``.
                    Prediction: ``predict_win``.
``WHRAdapter``      ``whr`` (2.2.0, C++): ``Base(w2=...)`` with the time step in days, ``create_games``,
                    ``iterate(50)`` on the training log (see the class); ``update`` adds the games with
                    ``create_games`` and iterates warm (``iterate(1)`` rounds) until the ratings of the
                    new games' players stop moving against each other. Prediction: its probability
                    function 1 / (1 + 10^(-(r_a - r_b) / 400)) with each player's rating on the game's
                    day (``Evaluate.get_rating``: the last rating for a day after the player's last game).
``TTTAdapter``      ``trueskillthroughtime`` (1.1.0): ``History`` with times in days, ``p_draw`` = the
                    training draw rate, ``convergence()``. The History has no incremental API: ``update``
                    buffers the games and refits the whole History once a year (when a game of a later
                    calendar year than the last fit's arrives). Prediction: the Gaussian formula of its
                    ``Game`` (beta, draw margin ``compute_margin``) on each player's last posterior of the
                    last fit, forgotten (gamma) to the game's day.
``KickScoreAdapter`` ``kickscore`` (0.2.0): each player's score a Gaussian process, kernel Constant +
                    Matern-3/2 with times in years, probit observations (``BinaryModel``; ``TernaryModel``
                    with a draw margin from the training draw rate on a log with draws), an item with a
                    constant kernel for each advantage column (the paper's home advantage), ``model.fit()``.
                    Like TTT it has no incremental fit: ``update`` buffers the games and observes them and
                    refits the whole model (warm) once a calendar year (or month; see the class). Prediction:
                    ``model.probabilities`` at each game's time from the last fit.

TrueSkill and OpenSkill update after every game (``sequential_updates = True``: ``evaluate`` gives them
one group of games per distinct time); the others are updated once per group of ``evaluate``'s refit
period (calendar weeks by default).

The parameter each system's documentation says to tune (Glicko-2's tau and rating period, WHR's w^2,
TTT's gamma, KickScore's kernel variance) is chosen on the TRAINING log only, on its last 10% (by time,
cut at a time boundary), for the protocol the model is evaluated under:

- frozen (``validation`` None, or a ``discrank.Validation`` with ``online`` False): fit on the first
  90%, score the log loss of the predictions of the last 10% (games whose two players were both seen in
  the first part) from the state at the cut;
- online (``validation.online`` True, as ``discrank.evaluate(..., protocol="online")`` passes): fit on
  the first 90%, then walk through the last 10% as the protocol does (groups of one distinct time for
  sequential systems, calendar weeks for the others: predict the group's games, then ``update`` with
  the whole group) and score the log loss of the games whose two players were both seen in the first
  part.

The best value of a small grid is kept and the model refitted on the whole training log.
``info["tuning"]`` has the validation log loss of every value tried. ``validation.window`` and ``gap``
are not used (the peers always tune on the last 10%).

A package that is not installed makes the adapter's constructor raise ImportError naming it.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Optional, Sequence

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = ["Glicko2Adapter", "TrueSkillAdapter", "OpenSkillAdapter", "WHRAdapter", "TTTAdapter",
           "KickScoreAdapter", "ALL_ADAPTERS", "log_loss", "available_adapters"]

GLICKO_SCALE = 173.7178  # Glicko-2's scale factor (display = 1500 + 173.7178 mu)


def _require(module: str, pip_name: str, adapter: str):
    try:
        return __import__(module)
    except ImportError as exc:
        raise ImportError(f"{adapter} needs the PyPI package '{pip_name}' (import {module!r} failed: {exc}); "
                          f"pip install {pip_name}") from None


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean log loss of predictions of a's score.

    Parameters
    ----------
    p : array of float
        Predicted P(a beats b) (an expected score), clipped to [1e-15, 1 - 1e-15].
    y : array of float
        Observed score of a: 1, 0.5 or 0.

    Returns
    -------
    float
        The mean of -(y log p + (1 - y) log(1 - p)).
    """
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-15, 1.0 - 1e-15)
    y = np.asarray(y, dtype=np.float64)
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log1p(-p)))


def _days(t: np.ndarray) -> np.ndarray:
    """datetime64 -> whole days since 1970-01-01 (int64)."""
    return np.asarray(t).astype("datetime64[D]").astype(np.int64)


def _weeks(t: np.ndarray) -> np.ndarray:
    """datetime64 -> calendar weeks starting on Monday (1970-01-01 was a Thursday)."""
    return (_days(t) + 3) // 7


def _group_bounds(t: np.ndarray, sequential: bool) -> np.ndarray:
    """Bounds of the update groups of time-sorted games: one per distinct time (sequential systems) or one
    per calendar week starting on Monday (the others; ``discrank.evaluate``'s default refit period)."""
    key = np.asarray(t).astype("datetime64[ns]").astype(np.int64) if sequential else _weeks(t)
    return np.flatnonzero(np.r_[True, key[1:] != key[:-1], True])


class _Players:
    """Player labels -> the system's indices 0, 1, ... (the first batch in sorted order, later players
    appended in sorted order as they arrive)."""

    def __init__(self):
        self.labels: Optional[np.ndarray] = None
        self._sorted: Optional[np.ndarray] = None
        self._order: Optional[np.ndarray] = None

    @property
    def n(self) -> int:
        return 0 if self.labels is None else int(self.labels.size)

    def _cast(self, x: np.ndarray) -> np.ndarray:
        if self.labels is not None and x.dtype.kind != self.labels.dtype.kind:
            x = x.astype(str) if self.labels.dtype.kind == "U" else x.astype(self.labels.dtype)
        return x

    def _resort(self) -> None:
        order = np.argsort(self.labels, kind="stable")
        self._sorted, self._order = self.labels[order], order

    def _find(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pos = np.clip(np.searchsorted(self._sorted, u), 0, self._sorted.size - 1)
        found = self._sorted[pos] == u
        return pos, found

    def code(self, x: Any) -> np.ndarray:
        """Indices of the labels ``x``; labels not seen before get new indices."""
        x = self._cast(np.asarray(x))
        u, inv = np.unique(x, return_inverse=True)
        if self.labels is None:
            self.labels = u
            self._resort()
            return inv.reshape(-1)
        pos, found = self._find(u)
        idx = np.empty(u.size, dtype=np.int64)
        idx[found] = self._order[pos[found]]
        new = ~found
        k = int(new.sum())
        if k:
            idx[new] = self.labels.size + np.arange(k)
            self.labels = np.concatenate([self.labels, u[new]])
            self._resort()
        return idx[inv.reshape(-1)]

    def lookup(self, x: Any, who: str) -> np.ndarray:
        """Indices of the labels ``x``; KeyError naming the first label never seen."""
        if self.labels is None:
            raise RuntimeError(f"{who}: call fit(log) before predicting")
        x = self._cast(np.asarray(x))
        pos, found = self._find(x)
        if not found.all():
            raise KeyError(f"{who}: player {x[np.flatnonzero(~found)[0]]!r} was not in the games absorbed")
        return self._order[pos]

    def relabel(self, labels: np.ndarray) -> None:
        if self.labels is None:
            return
        if self.labels.dtype.kind not in "iu":
            raise TypeError(f"relabel needs a fit on integer player codes; this one was fitted on "
                            f"{self.labels.dtype} labels")
        self.labels = np.asarray(labels)[self.labels]
        self._resort()


class _State:
    """The state of one run of a system: its players, its parameters and what it absorbed."""

    def __init__(self, params: dict):
        self.players = _Players()
        self.params = dict(params)
        self.n_games = 0  # games absorbed (fit and updates)
        self.t_last: Optional[np.datetime64] = None


class _Adapter:
    """Shared bookkeeping: label coding, the two tuning loops, fit / update / predict."""

    name = "?"
    tunable: dict = {}  # parameter -> grid (tuple); a grid of one value is not tuned
    discrete_scores = True  # the system rates wins, draws and losses only (scores 1, 0.5, 0)
    sequential_updates = False  # True: the system updates after every game
    uses_advantage = False  # True: _absorb and _predict are given the games' advantage columns (x=...)

    def __init__(self):
        self.info: dict = {}
        self.state_: Optional[_State] = None

    @property
    def labels_(self) -> Optional[np.ndarray]:
        """Labels of the players absorbed (None before ``fit``)."""
        return None if self.state_ is None else self.state_.players.labels

    @property
    def n_games_(self) -> int:
        """Games absorbed so far by the system's own store (fit and updates)."""
        return 0 if self.state_ is None else self._stored(self.state_)

    # -- checks
    def _checked(self, log):
        if log.time is None:
            raise ValueError(f"{self.name}: the game log needs a time column")
        if np.asarray(log.time).dtype.kind != "M":
            raise ValueError(f"{self.name}: times must be dates (datetime64: its periods and days are "
                             f"calendar ones), got {np.asarray(log.time).dtype}")
        if len(log) > 1 and np.any(np.diff(log.time.astype("datetime64[ns]").astype(np.int64)) < 0):
            log = log.sorted_by_time()
        if self.discrete_scores and not np.all(np.isin(log.score, (0.0, 0.5, 1.0))):
            raise ValueError(f"{self.name} rates wins, draws and losses: scores must be 1, 0.5 or 0")
        return log

    # -- the system's run
    def _start(self, log, **params) -> _State:
        st = _State(params)
        self._init(st, log)
        self._feed(st, log.a, log.b, log.score, log.time, log.advantage)
        return st

    def _x(self, x) -> dict:
        """The keyword of the advantage columns ``x`` (rows of a log's ``advantage``, or None) for the
        systems that use them; none for the others."""
        return {"x": None if x is None else np.asarray(x, dtype=np.float64)} if self.uses_advantage else {}

    def _feed(self, st: _State, a, b, score, t, x=None) -> None:
        n = len(a)
        if n == 0:
            return
        t = np.asarray(t).astype("datetime64[ns]")
        if st.t_last is not None and t[0] < st.t_last:
            raise ValueError(f"{self.name}: update got a game at {t[0]}, before the last time absorbed "
                             f"({st.t_last}); updates must come in time order")
        code = st.players.code(np.r_[np.asarray(a), np.asarray(b)])
        self._grow(st, st.players.n)
        self._absorb(st, code[:n], code[n:], np.asarray(score, dtype=np.float64), t, **self._x(x))
        st.n_games += n
        st.t_last = t[-1]

    def _walk(self, st: _State, log, scored: np.ndarray) -> np.ndarray:
        """Online forecasts of ``log``'s games marked ``scored``: each group predicted, then absorbed."""
        bounds = _group_bounds(log.time, self.sequential_updates)
        x = log.advantage
        out = []
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            m = scored[lo:hi]
            if m.any():
                ia = st.players.lookup(log.a[lo:hi][m], self.name)
                ib = st.players.lookup(log.b[lo:hi][m], self.name)
                out.append(self._predict(st, ia, ib, log.time[lo:hi][m].astype("datetime64[ns]"),
                                         **self._x(None if x is None else x[lo:hi][m])))
            self._feed(st, log.a[lo:hi], log.b[lo:hi], log.score[lo:hi], log.time[lo:hi],
                       None if x is None else x[lo:hi])
        return np.concatenate(out) if out else np.zeros(0)

    # -- the estimator
    def fit(self, log, *, validation: Any = None) -> "_Adapter":
        """Tune on the training log (see the module's docstring), then rate all of it.

        Parameters
        ----------
        log : discrank.GameLog
            The training games, with datetime times.
        validation : discrank.Validation, optional
            With ``online`` True, tune on online forecasts of the last 10% of the games; otherwise
            (or None) on frozen predictions of them.

        Returns
        -------
        self
        """
        log = self._checked(log)
        online = bool(getattr(validation, "online", False))
        t0 = time.perf_counter()
        grid = self._grid()
        tuning: dict = {}
        if len(grid) > 1:
            if online:
                part, rest, scored = _online_split(log)
            else:
                part, val = _validation_split(log)
            score = {}
            for params in grid:
                key = _show(params)
                try:
                    st = self._start(part, **params)
                    if online:
                        p, y = self._walk(st, rest, scored), rest.score[scored]
                    else:
                        ia, ib = st.players.lookup(val.a, self.name), st.players.lookup(val.b, self.name)
                        p, y = self._predict(st, ia, ib, None, **self._x(val.advantage)), val.score
                except (ArithmeticError, ValueError) as exc:  # e.g. glicko2's 1 / 0 once a rating diverged
                    score[key], tuning[key] = np.inf, f"failed: {type(exc).__name__}: {exc}"
                    continue
                score[key] = tuning[key] = log_loss(p, y) if np.all(np.isfinite(p)) else np.inf
            params = min(grid, key=lambda p: score[_show(p)])
            if not np.isfinite(score[_show(params)]):
                raise RuntimeError(f"{self.name}: every parameter value tried failed on the training log: {tuning}")
        else:
            params = grid[0]
        t1 = time.perf_counter()
        self.state_ = self._start(log, **params)
        t2 = time.perf_counter()
        self.info = {"params": {**self._fixed(), **params, **self._derived(self.state_)}, "tuning": tuning,
                     "tuning_protocol": ("online" if online else "frozen") if len(grid) > 1 else "none",
                     "fit_seconds": t2 - t0, "final_fit_seconds": t2 - t1, "train_games": len(log),
                     "players": self.state_.players.n, "updates": 0, "update_games": 0, "update_seconds": 0.0}
        return self

    def update(self, log) -> "_Adapter":
        """Absorb later games, the parameters kept as tuned.

        Parameters
        ----------
        log : discrank.GameLog
            Games at or after every time already absorbed (sorted here if they are not in time order).

        Returns
        -------
        self
        """
        if self.state_ is None:
            raise RuntimeError(f"{self.name}: call fit(log) before update")
        if len(log) == 0:
            return self
        log = self._checked(log)
        t0 = time.perf_counter()
        self._feed(self.state_, log.a, log.b, log.score, log.time, log.advantage)
        self.info["updates"] += 1
        self.info["update_games"] += len(log)
        self.info["update_seconds"] += time.perf_counter() - t0
        self.info["players"] = self.state_.players.n
        return self

    def predict_games(self, log) -> np.ndarray:
        """Expected score of a in each game of ``log`` at the game's time.

        Parameters
        ----------
        log : discrank.GameLog
            Games between players already absorbed, at or after the last time absorbed (times None:
            as :meth:`predict_proba`); the scores are not read.

        Returns
        -------
        ndarray, shape (n_games,)
        """
        return self._predict(*self._query(log, "predict_games"), **self._x(log.advantage))

    def _query(self, log, what: str):
        if self.state_ is None:
            raise RuntimeError(f"{self.name}: call fit(log) before {what}")
        st = self.state_
        ia, ib = st.players.lookup(log.a, self.name), st.players.lookup(log.b, self.name)
        t = None if log.time is None else np.asarray(log.time).astype("datetime64[ns]")
        if t is not None and t.size and t.min() < st.t_last:
            raise ValueError(f"{self.name}: {what} got a game at {t.min()}, before the last time "
                             f"absorbed ({st.t_last}): a game is predicted before it is absorbed")
        return st, ia, ib, t

    def predict_proba(self, a: Any, b: Any) -> np.ndarray:
        """Expected score of a against b from each player's latest rating.

        Parameters
        ----------
        a, b : array of labels
            Players already absorbed.

        Returns
        -------
        ndarray
        """
        if self.state_ is None:
            raise RuntimeError(f"{self.name}: call fit(log) before predict_proba")
        st = self.state_
        return self._predict(st, st.players.lookup(a, self.name), st.players.lookup(b, self.name), None)

    def relabel(self, labels: np.ndarray) -> None:
        """Replace the player codes the adapter was fitted on by their labels.

        Parameters
        ----------
        labels : ndarray
            ``labels[code]`` is the label of player ``code``.
        """
        if self.state_ is not None:
            self.state_.players.relabel(labels)

    # -- what each system writes
    def _grid(self) -> list[dict]:
        grid = [{}]
        for key, values in self.tunable.items():
            grid = [{**g, key: v} for g in grid for v in values]
        return grid

    def _fixed(self) -> dict:
        return {}

    def _derived(self, st: _State) -> dict:
        """Settings taken from the training log (shown with the parameters)."""
        return {}

    def _init(self, st: _State, log) -> None:
        raise NotImplementedError

    def _grow(self, st: _State, n: int) -> None:
        raise NotImplementedError

    def _absorb(self, st: _State, ia, ib, score, t) -> None:
        raise NotImplementedError

    def _predict(self, st: _State, ia: np.ndarray, ib: np.ndarray, t: Optional[np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def _stored(self, st: _State) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _show(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _cut(log, fraction: float = 0.9) -> int:
    n = len(log)
    cut = int(round(fraction * n))
    cut = int(np.searchsorted(log.time, log.time[min(cut, n - 1)], side="left"))
    if cut <= 0 or cut >= n:
        raise ValueError("the training log is too short (or has a single date) for a 90/10 tuning split")
    return cut


def _rows(log, sel):
    """The games ``sel`` (a slice or indices) of ``log`` with their advantage columns."""
    from discrank import GameLog

    x = None if log.advantage is None else log.advantage[sel]
    return GameLog(log.a[sel], log.b[sel], log.score[sel], log.time[sel], advantage=x,
                   advantage_names=log.advantage_names if x is not None else ())


def _validation_split(log, fraction: float = 0.9):
    """(first ~90% of the games by time, the rest restricted to players seen in the first part); the cut
    is moved to a time boundary so that games of one date are not split."""
    cut = _cut(log, fraction)
    part = _rows(log, slice(0, cut))
    seen = np.union1d(part.a, part.b)
    keep = np.isin(log.a[cut:], seen) & np.isin(log.b[cut:], seen)
    if not keep.any():
        raise ValueError("no game of the last 10% of the training log has two players seen before it")
    val = _rows(log, cut + np.flatnonzero(keep))
    return part, val


def _online_split(log, fraction: float = 0.9):
    """(first ~90% of the games, all the rest, mask of the rest's games whose two players are in the
    first part): the online walk absorbs every game of the rest and scores the masked ones."""
    cut = _cut(log, fraction)
    part, rest = _rows(log, slice(0, cut)), _rows(log, slice(cut, len(log)))
    seen = np.union1d(part.a, part.b)
    scored = np.isin(rest.a, seen) & np.isin(rest.b, seen)
    if not scored.any():
        raise ValueError("no game of the last 10% of the training log has two players seen before it")
    return part, rest, scored


def _draw_rate(score: np.ndarray) -> float:
    return float(np.mean(score == 0.5))


def _expected_score(delta: np.ndarray, c: np.ndarray, margin: float) -> np.ndarray:
    """P(win) + P(draw) / 2 for a performance difference ~ N(delta, c^2) and a draw margin."""
    win = ndtr((delta - margin) / c)
    loss = ndtr((-delta - margin) / c)
    return win + 0.5 * (1.0 - win - loss)


class _GaussianOutcomes:
    """Three outcomes of a system whose performance difference is N(delta, c^2) with a draw margin
    (TrueSkill, TrueSkill Through Time): its ``_gauss(st, ia, ib, t)`` gives (delta, c, margin)."""

    def _predict(self, st, ia, ib, t):
        return _expected_score(*self._gauss(st, ia, ib, t))

    def predict_outcomes(self, log) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of each game of ``log`` at the game's time (P(draw) = 0 when
        the training log had no draws).

        Parameters
        ----------
        log : discrank.GameLog
            As for :meth:`predict_games`.

        Returns
        -------
        ndarray, shape (n_games, 3)
        """
        delta, c, margin = self._gauss(*self._query(log, "predict_outcomes"))
        win = ndtr((delta - margin) / c)
        loss = ndtr((-delta - margin) / c)
        return np.column_stack([win, np.maximum(1.0 - win - loss, 0.0), loss])


# ------------------------------------------------------------------------------------------ Glicko-2
class Glicko2Adapter(_Adapter):
    """``glicko2`` with rating periods; tau and the period length tuned on the training log.

    tau: Glickman, "Example of the Glicko-2 system" (2013): "Reasonable choices are between 0.3 and 1.2".
    period: calendar week, month or year (he advises periods with about 10-15 games per player).
    A grid value under which the package fails is scored as failed (e.g. yearly periods on the tennis log:
    Glicko-2's one-step update overshoots for a new player with dozens of games in his first period, to
    a rating of 12 554, and glicko2's ``_v`` then divides by zero).
    Note: glicko2 2.1.0's ``Player._f`` (step 5 of Glickman's algorithm) has the rating mu^2 where
    Glickman has phi^2; it only slows the volatility's adaptation (with the formula corrected, the tennis
    test log loss moves by < 1e-4), and the package is run as published.

    Parameters
    ----------
    taus : sequence of float
        The grid of tau (the volatility's constraint).
    periods : sequence of str
        The grid of rating periods: "day", "week" (calendar weeks starting on Monday), "month",
        "quarter" or "year".
    """

    name = "Glicko-2 (glicko2)"
    discrete_scores = False  # Glicko-2 takes any score in [0, 1]

    def __init__(self, taus: Sequence[float] = (0.3, 0.6, 1.2),
                 periods: Sequence[str] = ("week", "month", "year")):
        super().__init__()
        self._glicko2 = _require("glicko2", "glicko2", "Glicko2Adapter")
        for p in periods:
            if p not in ("day", "week", "month", "quarter", "year"):
                raise ValueError(f"period must be day, week, month, quarter or year, got {p!r}")
        self.tunable = {"period": tuple(periods), "tau": tuple(taus)}

    @staticmethod
    def _period_index(t: np.ndarray, period: str) -> np.ndarray:
        if period == "day":
            return _days(t)
        if period == "week":
            return _weeks(t)
        months = np.asarray(t).astype("datetime64[M]").astype(np.int64)
        return {"month": months, "quarter": months // 3, "year": months // 12}[period]

    # state: mu, phi, vol (internal scale, after each player's last rated period), last (that period,
    # -1: never rated), q (the period of the pending games, not yet rated), pending (its games),
    # rated_games, cache (the ratings with the pending period rated, while no game is added to it)
    def _init(self, st, log):
        st.origin = int(self._period_index(log.time[:1], st.params["period"])[0])
        st.mu, st.phi, st.vol = np.zeros(0), np.zeros(0), np.zeros(0)
        st.last = np.zeros(0, dtype=np.int64)
        st.q, st.pending, st.rated_games, st.cache = None, [], 0, None

    def _grow(self, st, n):
        k = n - st.mu.size
        if k > 0:
            st.mu = np.r_[st.mu, np.zeros(k)]
            st.phi = np.r_[st.phi, np.full(k, 350.0 / GLICKO_SCALE)]
            st.vol = np.r_[st.vol, np.full(k, 0.06)]
            st.last = np.r_[st.last, np.full(k, -1, dtype=np.int64)]

    def _absorb(self, st, ia, ib, score, t):
        per = self._period_index(t, st.params["period"]) - st.origin
        cuts = np.flatnonzero(np.r_[True, per[1:] != per[:-1], True])
        for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
            p = int(per[lo])
            if st.q is not None and p != st.q:  # a game of a later period: the pending one is complete
                self._commit(st)
            st.q = p
            st.pending.append((ia[lo:hi], ib[lo:hi], score[lo:hi]))
            st.cache = None

    def _pending(self, st):
        a, b, s = (np.concatenate([g[k] for g in st.pending]) for k in range(3))
        return a, b, s

    def _rated(self, st):
        """(mu, phi, vol, last) with the pending period rated (cached until a game is added to it)."""
        if not st.pending:
            return st.mu, st.phi, st.vol, st.last
        if st.cache is None:
            arrays = [st.mu.copy(), st.phi.copy(), st.vol.copy(), st.last.copy()]
            self._rate(*arrays, st.q, *self._pending(st), st.params["tau"])
            st.cache = arrays
        return st.cache

    def _commit(self, st):
        n = sum(g[0].size for g in st.pending)
        st.mu, st.phi, st.vol, st.last = self._rated(st)
        st.rated_games += n
        st.pending, st.cache = [], None
        self._grow(st, st.players.n)  # players coded since the ratings were cached

    def _rate(self, mu, phi, vol, last, p, a, b, s, tau):
        """Rate period ``p`` (its games a, b, s) in place: every player of the period at once, from the
        ratings and deviations at the start of the period."""
        Player = self._glicko2.Player
        me, op, out = np.r_[a, b], np.r_[b, a], np.r_[s, 1.0 - s]
        order = np.argsort(me, kind="stable")
        me, op, out = me[order], op[order], out[order]
        seg = np.flatnonzero(np.r_[True, me[1:] != me[:-1], True])
        # did_not_compete (phi^2 += vol^2) for every period a rated player sat out since the last one
        # they played; a player's first period starts from the defaults (1500, 350, 0.06)
        who = np.r_[op, me[seg[:-1]]]
        idle = np.where(last[who] >= 0, p - last[who] - 1, 0)
        r_now = 1500.0 + GLICKO_SCALE * mu[who]
        rd_now = GLICKO_SCALE * np.sqrt(phi[who] ** 2 + idle * vol[who] ** 2)
        m = op.size
        opp_r, opp_rd = r_now[:m].tolist(), rd_now[:m].tolist()
        own_r, own_rd, own_vol = r_now[m:].tolist(), rd_now[m:].tolist(), vol[who[m:]].tolist()
        out_list = out.tolist()
        new_mu, new_phi, new_vol = [], [], []
        for q in range(seg.size - 1):
            i0, i1 = int(seg[q]), int(seg[q + 1])
            pl = Player(own_r[q], own_rd[q], own_vol[q])
            pl._tau = tau
            pl.update_player(opp_r[i0:i1], opp_rd[i0:i1], out_list[i0:i1])
            new_mu.append((pl.rating - 1500.0) / GLICKO_SCALE)
            new_phi.append(pl.rd / GLICKO_SCALE)
            new_vol.append(pl.vol)
        players = who[m:]
        mu[players] = new_mu
        phi[players] = new_phi
        vol[players] = new_vol
        last[players] = p

    def _predict(self, st, ia, ib, t):
        q = st.q if st.q is not None else int(st.last.max())
        if t is None:  # the latest ratings: every period absorbed rated, deviations at the next period
            p = np.full(ia.size, q + 1, dtype=np.int64)
        else:
            p = self._period_index(t, st.params["period"]) - st.origin
        later = p > q  # the pending period is complete for these games
        committed, rated = (st.mu, st.phi, st.vol, st.last), self._rated(st)
        out = np.empty(ia.size)
        for sel, (mu, phi, vol, last) in ((~later, committed), (later, rated)):
            if not sel.any():
                continue
            i, j, pp = ia[sel], ib[sel], p[sel]

            def dev(k):
                idle = np.where(last[k] >= 0, pp - 1 - last[k], 0)
                return phi[k] ** 2 + idle * vol[k] ** 2

            s = np.sqrt(dev(i) + dev(j))
            g = 1.0 / np.sqrt(1.0 + 3.0 * s ** 2 / math.pi ** 2)
            out[sel] = 1.0 / (1.0 + np.exp(-g * (mu[i] - mu[j])))
        return out

    def _stored(self, st):
        return st.rated_games + sum(g[0].size for g in st.pending)


# ------------------------------------------------------------------------------------------ TrueSkill
class TrueSkillAdapter(_GaussianOutcomes, _Adapter):
    """``trueskill`` with its default environment (mu 25, sigma 25/3, beta 25/6, tau 25/300); its
    draw_probability set to the training log's draw rate (0 when there are no draws); ``rate_1vs1``
    after every game."""

    name = "TrueSkill (trueskill)"
    sequential_updates = True

    def __init__(self):
        super().__init__()
        self._ts = _require("trueskill", "trueskill", "TrueSkillAdapter")
        self.tunable = {}

    def _init(self, st, log):
        ts = self._ts
        st.draw = _draw_rate(log.score)
        st.env = ts.TrueSkill(draw_probability=st.draw)
        st.margin = ts.calc_draw_margin(st.draw, 2, env=st.env) if st.draw > 0 else 0.0
        st.ratings, st.rated = [], 0

    def _derived(self, st):
        return {"draw_probability": st.draw, "env": "defaults (mu 25, sigma 8.33, beta 4.17, tau 0.0833)"}

    def _grow(self, st, n):
        st.ratings.extend(st.env.create_rating() for _ in range(n - len(st.ratings)))

    def _absorb(self, st, ia, ib, score, t):
        ratings, env, rate = st.ratings, st.env, self._ts.rate_1vs1
        for i, j, s in zip(ia.tolist(), ib.tolist(), score.tolist()):
            if s == 1.0:
                ratings[i], ratings[j] = rate(ratings[i], ratings[j], env=env)
            elif s == 0.0:
                ratings[j], ratings[i] = rate(ratings[j], ratings[i], env=env)
            else:
                ratings[i], ratings[j] = rate(ratings[i], ratings[j], drawn=True, env=env)
        st.rated += ia.size

    def _gauss(self, st, ia, ib, t):
        r = st.ratings
        mu_a, mu_b = np.array([r[i].mu for i in ia.tolist()]), np.array([r[j].mu for j in ib.tolist()])
        sa, sb = np.array([r[i].sigma for i in ia.tolist()]), np.array([r[j].sigma for j in ib.tolist()])
        c = np.sqrt(2.0 * st.env.beta ** 2 + sa ** 2 + sb ** 2)
        return mu_a - mu_b, c, st.margin

    def _stored(self, st):
        return st.rated


# ------------------------------------------------------------------------------------------ openskill
class OpenSkillAdapter(_Adapter):
    """``openskill``'s default model (PlackettLuce, default parameters), 1v1 teams, ``rate`` after every
    game."""

    name = "OpenSkill PlackettLuce (openskill)"
    sequential_updates = True

    def __init__(self):
        super().__init__()
        _require("openskill", "openskill", "OpenSkillAdapter")
        from openskill.models import PlackettLuce

        self._model_cls = PlackettLuce
        self.tunable = {}

    def _init(self, st, log):
        st.model, st.ratings, st.rated = self._model_cls(), [], 0

    def _derived(self, st):
        return {"model": "PlackettLuce defaults"}

    def _grow(self, st, n):
        st.ratings.extend(st.model.rating() for _ in range(n - len(st.ratings)))

    def _absorb(self, st, ia, ib, score, t):
        ratings, rate = st.ratings, st.model.rate
        for i, j, s in zip(ia.tolist(), ib.tolist(), score.tolist()):
            ranks = [0, 1] if s == 1.0 else [1, 0] if s == 0.0 else [0, 0]
            [[ratings[i]], [ratings[j]]] = rate([[ratings[i]], [ratings[j]]], ranks=ranks)
        st.rated += ia.size

    def _predict(self, st, ia, ib, t):
        pl, r = st.model, st.ratings
        return np.array([pl.predict_win([[r[i]], [r[j]]])[0] for i, j in zip(ia.tolist(), ib.tolist())])

    def _stored(self, st):
        return st.rated


# ------------------------------------------------------------------------------------------------ WHR
class WHRAdapter(_Adapter):
    """``whr`` (C++ Whole-History Rating): time step = day; w^2 (Elo^2 per day) tuned on the training log.

    The training log is fitted with ``iterate(50)``, as the package README's basic usage
    (``iterate_until_converge``, which waits until no rating moves by 0.01 Elo for 10 rounds, had not
    returned after 10 minutes on the 38k football games: the whole-history level drifts by about 1 Elo
    per round while the predictions no longer change). ``update`` adds the games (``create_games``) and
    iterates warm, one ``iterate(1)`` round at a time, until the ratings of the new games' players
    (on their last day) move against each other by less than ``update_tol`` Elo in a round (their
    change minus its median: the level's drift does not change a prediction), at most
    ``update_rounds`` rounds. Coulom's paper found w^2 = 14 best on KGS Go; the package defaults to 300
    and its README example uses 30.

    Parameters
    ----------
    w2s : sequence of float
        The grid of w^2 (Elo^2 per day).
    virtual_games : int
        The package's virtual draws on each player's first day.
    iterations : int or None
        Rounds on the training log (None: ``iterate_until_converge``).
    update_tol : float
        Convergence of an update, in Elo.
    update_rounds : int
        Most rounds of an update.
    """

    name = "WHR (whr)"

    def __init__(self, w2s: Sequence[float] = (0.5, 2.0, 8.0, 32.0, 128.0, 512.0), virtual_games: int = 2,
                 iterations: Optional[int] = 50, update_tol: float = 1.0, update_rounds: int = 20):
        super().__init__()
        self._whr = _require("whr", "whr", "WHRAdapter")
        self.virtual_games = virtual_games
        self.iterations = iterations  # None: iterate_until_converge
        self.update_tol, self.update_rounds = update_tol, update_rounds
        self.tunable = {"w2": tuple(w2s)}

    def _fixed(self):
        return {"virtual_games": self.virtual_games, "iterations": self.iterations or "until converged"}

    def _init(self, st, log):
        st.base = self._whr.Base(config={"w2": float(st.params["w2"]), "virtual_games": self.virtual_games})
        st.day0 = int(_days(log.time[:1])[0])
        st.created, st.fitted, st.rounds, st.last_day = 0, False, [], 0

    def _grow(self, st, n):
        pass

    def _ratings(self, st, names):
        return np.array([st.base.ratings_for_player(nm)[-1][1] for nm in names], dtype=np.float64)

    def _absorb(self, st, ia, ib, score, t):
        day = _days(t) - st.day0
        winner = np.where(score == 1.0, "B", np.where(score == 0.0, "W", "D"))
        sa, sb = np.char.mod("%d", ia).tolist(), np.char.mod("%d", ib).tolist()
        st.base.create_games([[i, j, w, int(d)] for i, j, w, d in zip(sa, sb, winner.tolist(), day.tolist())])
        st.created += ia.size
        st.last_day = int(day[-1])
        if not st.fitted:
            if self.iterations is None:
                st.rounds.append(st.base.iterate_until_converge(False))
            else:
                st.base.iterate(self.iterations)
                st.rounds.append(self.iterations)
            st.fitted = True
            return
        names = sorted(set(sa) | set(sb))
        prev = self._ratings(st, names)
        for k in range(1, self.update_rounds + 1):
            st.base.iterate(1)
            cur = self._ratings(st, names)
            d = cur - prev
            prev = cur
            if np.max(np.abs(d - np.median(d))) < self.update_tol:
                break
        st.rounds.append(k)

    def _predict(self, st, ia, ib, t):
        ev = self._whr.Evaluate(st.base)
        day = np.full(ia.size, st.last_day, dtype=np.int64) if t is None else _days(t) - st.day0
        keys = np.r_[ia, ib] * np.int64(1 << 32) + np.r_[day, day]
        u, inv = np.unique(keys, return_inverse=True)
        # get_rating answers None for a rating that is not finite (a diverged fit): NaN here, so that the
        # tuning scores that value as failed
        elo = np.array([ev.get_rating(str(int(k >> 32)), int(k & 0xFFFFFFFF)) for k in u.tolist()], dtype=np.float64)
        r = elo[inv.reshape(-1)]
        n = ia.size
        return 1.0 / (1.0 + 10.0 ** (-(r[:n] - r[n:]) / 400.0))

    def _stored(self, st):
        return st.created


# ------------------------------------------------------------------------------------------------ TTT
class TTTAdapter(_GaussianOutcomes, _Adapter):
    """``trueskillthroughtime``: ``History`` (mu 0, sigma 6, beta 1 by default) with times in days and
    p_draw = the training draw rate, then ``convergence``; gamma (skill drift per day) tuned on the
    training log. ``convergence`` runs with the package's ATP-example settings (epsilon 0.01, 10
    iterations) unless given. ``update`` buffers the games and refits the History on every game absorbed
    when a game of a later calendar year than the last fit's arrives (yearly refits: the package has
    no incremental update).

    Parameters
    ----------
    gammas : sequence of float
        The grid of gamma (skill drift per day).
    epsilon : float
        ``convergence``'s tolerance.
    iterations : int
        ``convergence``'s most iterations.
    """

    name = "TrueSkill Through Time (trueskillthroughtime)"

    def __init__(self, gammas: Sequence[float] = (0.001, 0.003, 0.01, 0.03, 0.1), epsilon: float = 0.01,
                 iterations: int = 10):
        super().__init__()
        self._ttt = _require("trueskillthroughtime", "trueskillthroughtime", "TTTAdapter")
        self.epsilon, self.iterations = epsilon, iterations
        self.tunable = {"gamma": tuple(gammas)}

    def _fixed(self):
        return {"epsilon": self.epsilon, "iterations": self.iterations, "mu": self._ttt.MU,
                "sigma": self._ttt.SIGMA, "beta": self._ttt.BETA}

    def _init(self, st, log):
        ttt = self._ttt
        st.draw = _draw_rate(log.score)
        st.margin = ttt.compute_margin(st.draw, math.sqrt(2.0) * ttt.BETA) if st.draw > 0 else 0.0
        st.day0 = int(_days(log.time[:1])[0])
        st.games = []  # (a, b, score, day) of every game absorbed
        st.fit_year, st.fit_games, st.refits, st.last_day = None, 0, 0, 0.0
        st.mu, st.sigma, st.seen = np.zeros(0), np.zeros(0), np.zeros(0)
        st.iterations, st.step = None, None

    def _derived(self, st):
        return {"p_draw": st.draw}

    def _grow(self, st, n):
        pass

    def _absorb(self, st, ia, ib, score, t):
        day = (_days(t) - st.day0).astype(np.float64)
        st.games.append((ia, ib, score, day))
        st.last_day = float(day[-1])
        year = int(np.asarray(t[-1]).astype("datetime64[Y]").astype(np.int64))
        if st.fit_year is None or year > st.fit_year:
            self._refit(st)
            st.fit_year = year

    def _refit(self, st):
        ttt = self._ttt
        a, b, s, day = (np.concatenate([g[k] for g in st.games]) for k in range(4))
        res = {1.0: [1, 0], 0.0: [0, 1], 0.5: [0, 0]}
        h = ttt.History([[[i], [j]] for i, j in zip(a.tolist(), b.tolist())], [res[x] for x in s.tolist()],
                        day.tolist(), mu=ttt.MU, sigma=ttt.SIGMA, beta=ttt.BETA, gamma=st.params["gamma"],
                        p_draw=st.draw)
        st.step, st.iterations = h.convergence(epsilon=self.epsilon, iterations=self.iterations, verbose=False)
        n = int(max(a.max(), b.max())) + 1
        mu, sigma, seen = np.full(n, ttt.MU), np.full(n, ttt.SIGMA), np.full(n, np.nan)
        for agent, curve in h.learning_curves().items():
            t_last, g = curve[-1]
            mu[agent], sigma[agent], seen[agent] = g.mu, g.sigma, t_last
        st.mu, st.sigma, st.seen = mu, sigma, seen
        st.fit_games = a.size
        st.refits += 1

    def _gauss(self, st, ia, ib, t):
        ttt, gamma = self._ttt, st.params["gamma"]
        day = np.full(ia.size, st.last_day) if t is None else (_days(t) - st.day0).astype(np.float64)

        def var(k):  # the last posterior forgotten to the game's day; a player absent from the last fit: prior
            inside = k < st.mu.size
            kk = np.where(inside, k, 0)
            seen = np.where(inside, st.seen[kk], np.nan)
            v = np.where(inside, st.sigma[kk] ** 2, ttt.SIGMA ** 2)
            v = v + np.where(np.isnan(seen), 0.0, np.maximum(day - np.nan_to_num(seen), 0.0)) * gamma ** 2
            return np.where(inside, st.mu[kk], ttt.MU), v

        mu_a, va = var(ia)
        mu_b, vb = var(ib)
        c = np.sqrt(2.0 * ttt.BETA ** 2 + va + vb)
        return mu_a - mu_b, c, st.margin

    def _stored(self, st):
        return sum(g[0].size for g in st.games)


# ------------------------------------------------------------------------------------------ KickScore
#: kickscore's times: years (of 365.25 days) since the first day of the log the adapter was fitted on.
YEAR_DAYS = 365.25


class KickScoreAdapter(_Adapter):
    """``kickscore`` (Maystre et al., KDD 2019): each player's score a Gaussian process with the kernel
    ``Constant(cvar) + Matern32(dvar, lscale)``, times in years, probit observations, ``model.fit()`` (EP,
    the package's defaults: tol 1e-3, at most ``max_iter`` = 100 sweeps), as the paper's tennis model
    (its fitted cvar 0.034, dvar 0.91, lscale 7.5 years) and the package's NBA example (constant plus
    Matern-3/2 in years). A log with draws is rated by ``TernaryModel`` (the paper's football model): a
    draw observed as a tie, the margin set from the training draw rate r as Phi^-1((1 + r) / 2) (the
    draw probability of two equal players whose scores are known); a log without draws by
    ``BinaryModel``. dvar (the dynamic part's variance) tuned on the training log; cvar and lscale fixed.
    Each advantage column of the training log (football's home, Go's black) is an item of its own with a
    ``Constant(advantage_var)`` kernel, on a's side of each game with the column's value as its
    coefficient, as the paper's football model has its home advantage (``advantage=False``: not used;
    the other peers use none).

    ``update`` buffers the games and, when a game of a later calendar period (year, or month) than the
    last fit's arrives, observes every buffered game (``model.observe``) and refits the whole model
    (``model.fit()``, warm: EP starts from the last fit's pseudo-observations): kickscore's fit sweeps
    every observation at each EP iteration, in Python (about 20 us an observation a sweep), too slow for
    a refit each week. Prediction: ``model.probabilities([a], [b], t)`` at each game's time, from the
    last fit (each player's posterior carried forward to the game's time by the kernel; a player new
    since the last fit: the prior); the expected score P(win) + P(draw) / 2.

    Parameters
    ----------
    dvars : sequence of float
        The grid of the Matern-3/2 part's variance.
    cvar : float
        The constant part's variance.
    lscale : float
        The Matern-3/2 part's lengthscale, in years.
    refit : {"year", "month"}
        The calendar period of the refits of ``update``.
    max_iter : int
        ``model.fit``'s most EP sweeps.
    advantage : bool
        Rate the log's advantage columns (an item each).
    advantage_var : float
        The variance of their constant kernel.
    """

    name = "KickScore (kickscore)"
    uses_advantage = True

    def __init__(self, dvars: Sequence[float] = (0.1, 0.3, 0.9, 2.7), cvar: float = 0.03, lscale: float = 7.5,
                 refit: str = "year", max_iter: int = 100, advantage: bool = True, advantage_var: float = 1.0):
        super().__init__()
        self._ks = _require("kickscore", "kickscore", "KickScoreAdapter")
        if refit not in ("year", "month"):
            raise ValueError(f"refit must be 'year' or 'month', got {refit!r}")
        self.cvar, self.lscale, self.refit, self.max_iter = cvar, lscale, refit, max_iter
        self.advantage, self.advantage_var = advantage, advantage_var
        self.tunable = {"dvar": tuple(dvars)}

    @property
    def converged_(self) -> Optional[np.ndarray]:
        """Whether each fit so far (the last run's: fit and refits) converged within ``max_iter`` sweeps."""
        return None if self.state_ is None else np.array(self.state_.converged, dtype=bool)

    def _fixed(self):
        return {"kernel": "Constant + Matern32", "cvar": self.cvar, "lscale (years)": self.lscale,
                "refit": self.refit, "max_iter": self.max_iter}

    def _period(self, t) -> int:
        return int(np.asarray(t).astype("datetime64[Y]" if self.refit == "year" else "datetime64[M]")
                   .astype(np.int64).reshape(-1)[-1])

    def _init(self, st, log):
        ks = self._ks
        st.draw = _draw_rate(log.score)
        st.margin = float(ndtri((1.0 + st.draw) / 2.0)) if st.draw > 0 else 0.0
        st.model = ks.TernaryModel(margin=st.margin) if st.draw > 0 else ks.BinaryModel()
        st.kernel = (ks.kernel.Constant(var=self.cvar)
                     + ks.kernel.Matern32(var=float(st.params["dvar"]), lscale=self.lscale))
        st.day0 = int(_days(log.time[:1])[0])
        st.adv = tuple(f"advantage {name}" for name in log.advantage_names) if self.advantage else ()
        for item in st.adv:
            st.model.add_item(item, kernel=ks.kernel.Constant(var=self.advantage_var))
        st.items, st.pending, st.observed = 0, [], 0
        st.fit_period, st.converged, st.last_year = None, [], 0.0

    def _derived(self, st):
        return {"model": type(st.model).__name__, "margin": st.margin,
                "advantage items": ", ".join(st.adv) or "none"}

    def _grow(self, st, n):
        for k in range(st.items, n):
            st.model.add_item(k, kernel=st.kernel)
        st.items = max(st.items, n)

    def _sides(self, st, ia, ib, x) -> list:
        """Each game's two sides for ``observe`` / ``probabilities``: {item: coefficient}, a's with its
        advantage items (those of nonzero value)."""
        rows = [None] * ia.size if x is None or not st.adv else x.reshape(ia.size, -1).tolist()
        out = []
        for i, j, r in zip(ia.tolist(), ib.tolist(), rows):
            side = {i: 1.0}
            if r is not None:
                side.update((item, v) for item, v in zip(st.adv, r) if v != 0.0)
            out.append((side, {j: 1.0}))
        return out

    def _absorb(self, st, ia, ib, score, t, x=None):
        years = (_days(t) - st.day0) / YEAR_DAYS
        st.pending.append((self._sides(st, ia, ib, x), score, years))
        st.last_year = float(years[-1])
        period = self._period(t)
        if st.fit_period is None or period > st.fit_period:
            self._refit(st)
            st.fit_period = period

    def _refit(self, st):
        model = st.model
        for sides, score, years in st.pending:
            for (sa, sb), s, y in zip(sides, score.tolist(), years.tolist()):
                if s == 0.5:
                    model.observe(sa, sb, t=y, tie=True)
                elif s == 1.0:
                    model.observe(sa, sb, t=y)
                else:
                    model.observe(sb, sa, t=y)
            st.observed += len(sides)
        st.pending = []
        st.converged.append(bool(model.fit(max_iter=self.max_iter)))

    def _outcomes(self, st, ia, ib, t, x=None) -> np.ndarray:
        years = np.full(ia.size, st.last_year) if t is None else (_days(t) - st.day0) / YEAR_DAYS
        prob = st.model.probabilities
        out = np.array([prob(sa, sb, t=y) for (sa, sb), y in zip(self._sides(st, ia, ib, x), years.tolist())])
        if out.shape[1] == 2:  # BinaryModel: (P(a wins), P(b wins))
            out = np.column_stack([out[:, 0], np.zeros(ia.size), out[:, 1]])
        return out

    def _predict(self, st, ia, ib, t, x=None):
        out = self._outcomes(st, ia, ib, t, x)
        return out[:, 0] + 0.5 * out[:, 1]

    def predict_outcomes(self, log) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of each game of ``log`` at the game's time (P(draw) = 0 for a
        ``BinaryModel``, fitted on a log without draws).

        Parameters
        ----------
        log : discrank.GameLog
            As for :meth:`predict_games`.

        Returns
        -------
        ndarray, shape (n_games, 3)
        """
        return self._outcomes(*self._query(log, "predict_outcomes"), **self._x(log.advantage))

    def _stored(self, st):
        return st.observed + sum(len(g[0]) for g in st.pending)


ALL_ADAPTERS: tuple[Callable[[], _Adapter], ...] = (Glicko2Adapter, TrueSkillAdapter, OpenSkillAdapter,
                                                     WHRAdapter, TTTAdapter, KickScoreAdapter)


def available_adapters(**kw) -> tuple[list[_Adapter], dict[str, str]]:
    """The adapters whose package is installed.

    Parameters
    ----------
    **kw
        Class name -> dict of constructor arguments.

    Returns
    -------
    (list of adapters, dict of class name -> why it was skipped)
    """
    made, skipped = [], {}
    for cls in ALL_ADAPTERS:
        try:
            made.append(cls(**kw.get(cls.__name__, {})))
        except ImportError as exc:
            skipped[cls.__name__] = str(exc)
    return made, skipped
