"""The PyPI rating systems a discrank user would pick instead, behind one small interface.

Each adapter has a ``name``, ``fit(log)`` (``log`` a time-sorted :class:`discrank.GameLog`) and
``predict_proba(a, b)`` (arrays of labels of players seen in training) -> P(a beats b): for a system that
models draws, the expected score P(a wins) + P(draw) / 2. ``fit`` fills ``info`` (the parameters used,
the tuning scores, the seconds taken). Models are frozen after ``fit``: nothing is updated while
predicting; uncertainties are carried (where the system has them) to the end of the training log.

Each package is run as its documentation recommends:

``Glicko2Adapter``  ``glicko2`` (Kirkman / deepy, 2.1.0): rating periods (calendar weeks, months or
                    years), every player of a period updated at once from the ratings at the start of
                    the period, ``did_not_compete`` for the periods a rated player sits out (applied
                    lazily, in closed form). Prediction: Glickman's expected score with both deviations,
                    E = 1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b))).
``TrueSkillAdapter`` ``trueskill`` (0.4.5): the default environment, ``draw_probability`` = the training
                    log's draw rate (0 without draws), ``rate_1vs1`` game by game. Prediction: the
                    standard formula P = Phi((mu_a - mu_b - eps) / c), c^2 = 2 beta^2 + sig_a^2 + sig_b^2,
                    eps the draw margin (0 without draws), expected score with the draw probability.
``OpenSkillAdapter`` ``openskill`` (6.2.0): the default model (PlackettLuce), 1v1 teams, ``rate`` game
                    by game (ranks; a draw is a tied rank). Prediction: ``predict_win``.
``WHRAdapter``      ``whr`` (2.2.0, C++): ``Base(w2=...)`` with the time step in days, ``create_games``,
                    ``iterate_until_converge``. Prediction: its probability function
                    1 / (1 + 10^(-(r_a - r_b) / 400)) with each player's rating on the last training day
                    (``Evaluate.get_rating``).
``TTTAdapter``      ``trueskillthroughtime`` (1.1.0): ``History`` with times in days, ``p_draw`` = the
                    training draw rate, ``convergence()``. Prediction: the Gaussian formula of its
                    ``Game`` (beta, draw margin ``compute_margin``) on each player's last posterior,
                    forgotten (gamma) to the end of the training log.

The parameter each system's documentation says to tune (Glicko-2's tau and rating period, WHR's w^2,
TTT's gamma) is chosen on the TRAINING log only: fit on its first 90% (by time, cut at a time boundary),
score the log loss of the last 10% (games whose two players were both seen), keep the best value of a
small grid, refit on the whole training log. ``info["tuning"]`` has the validation log loss of every
value tried.

A package that is not installed makes the adapter's constructor raise ImportError naming it.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Optional, Sequence

import numpy as np
from scipy.special import ndtr

__all__ = ["Glicko2Adapter", "TrueSkillAdapter", "OpenSkillAdapter", "WHRAdapter", "TTTAdapter",
           "ALL_ADAPTERS", "log_loss", "available_adapters"]

GLICKO_SCALE = 173.7178  # Glicko-2's scale factor (display = 1500 + 173.7178 mu)


def _require(module: str, pip_name: str, adapter: str):
    try:
        return __import__(module)
    except ImportError as exc:
        raise ImportError(f"{adapter} needs the PyPI package '{pip_name}' (import {module!r} failed: {exc}); "
                          f"pip install {pip_name}") from None


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean of -(y log p + (1 - y) log(1 - p)) (y in {0, 0.5, 1}), p clipped to [1e-15, 1 - 1e-15]."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-15, 1.0 - 1e-15)
    y = np.asarray(y, dtype=np.float64)
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log1p(-p)))


def _days(t: np.ndarray) -> np.ndarray:
    """datetime64 -> whole days since 1970-01-01 (int64)."""
    return np.asarray(t).astype("datetime64[D]").astype(np.int64)


class _Adapter:
    """Shared bookkeeping: label coding, the tuning loop, the checks of ``predict_proba``."""

    name = "?"
    tunable: dict = {}  # parameter -> grid (tuple); a grid of one value is not tuned
    discrete_scores = True  # the system rates wins, draws and losses only (scores 1, 0.5, 0)

    def __init__(self):
        self.info: dict = {}
        self.labels_: Optional[np.ndarray] = None

    # -- labels
    def _code(self, log) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        labels, code = np.unique(np.r_[log.a, log.b], return_inverse=True)
        n = len(log)
        return labels, code[:n], code[n:]

    def _lookup(self, x: Any) -> np.ndarray:
        if self.labels_ is None:
            raise RuntimeError(f"{self.name}: call fit(log) before predict_proba")
        x = np.asarray(x)
        if x.dtype.kind != self.labels_.dtype.kind:
            x = x.astype(self.labels_.dtype)
        k = np.clip(np.searchsorted(self.labels_, x), 0, self.labels_.size - 1)
        bad = self.labels_[k] != x
        if bad.any():
            raise KeyError(f"{self.name}: player {x[np.flatnonzero(bad)[0]]!r} was not in the training log")
        return k

    # -- fitting
    def fit(self, log) -> "_Adapter":
        if log.time is None:
            raise ValueError(f"{self.name}: the game log needs a time column")
        if np.any(np.diff(log.time.astype("datetime64[ns]").astype(np.int64)) < 0):
            log = log.sorted_by_time()
        if self.discrete_scores and not np.all(np.isin(log.score, (0.0, 0.5, 1.0))):
            raise ValueError(f"{self.name} rates wins, draws and losses: scores must be 1, 0.5 or 0")
        t0 = time.perf_counter()
        grid = self._grid()
        tuning = {}
        if len(grid) > 1:
            part, val = _validation_split(log)
            score = {}
            for params in grid:
                key = _show(params)
                try:
                    model = self._fit(part, **params)
                    p = self._predict(model, *self._val_codes(model, val))
                except (ArithmeticError, ValueError) as exc:  # e.g. glicko2's 1 / 0 once a rating diverged
                    score[key], tuning[key] = np.inf, f"failed: {type(exc).__name__}: {exc}"
                    continue
                score[key] = tuning[key] = log_loss(p, val.score) if np.all(np.isfinite(p)) else np.inf
            params = min(grid, key=lambda p: score[_show(p)])
            if not np.isfinite(score[_show(params)]):
                raise RuntimeError(f"{self.name}: every parameter value tried failed on the training log: {tuning}")
        else:
            params = grid[0]
        t1 = time.perf_counter()
        self.model_ = self._fit(log, **params)
        t2 = time.perf_counter()
        self.labels_ = self.model_["labels"]
        self.info = {"params": {**self._fixed(), **params}, "tuning": tuning, "fit_seconds": t2 - t0,
                     "final_fit_seconds": t2 - t1, "train_games": len(log), "players": int(self.labels_.size)}
        return self

    def predict_proba(self, a: Any, b: Any) -> np.ndarray:
        ia, ib = self._lookup(a), self._lookup(b)
        return self._predict(self.model_, ia, ib)

    def _val_codes(self, model, val):
        labels = model["labels"]
        return np.searchsorted(labels, val.a), np.searchsorted(labels, val.b)

    def _grid(self) -> list[dict]:
        grid = [{}]
        for key, values in self.tunable.items():
            grid = [{**g, key: v} for g in grid for v in values]
        return grid

    def _fixed(self) -> dict:
        return {}

    def _fit(self, log, **params) -> dict:
        raise NotImplementedError

    def _predict(self, model: dict, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _show(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _validation_split(log, fraction: float = 0.9):
    """(first ~90% of the games by time, the rest restricted to players seen in the first part); the cut
    is moved to a time boundary so that games of one date are not split."""
    from discrank import GameLog

    n = len(log)
    cut = int(round(fraction * n))
    cut = int(np.searchsorted(log.time, log.time[min(cut, n - 1)], side="left"))
    if cut <= 0 or cut >= n:
        raise ValueError("the training log is too short (or has a single date) for a 90/10 tuning split")
    part = GameLog(log.a[:cut], log.b[:cut], log.score[:cut], log.time[:cut])
    seen = np.union1d(part.a, part.b)
    keep = np.isin(log.a[cut:], seen) & np.isin(log.b[cut:], seen)
    if not keep.any():
        raise ValueError("no game of the last 10% of the training log has two players seen before it")
    val = GameLog(log.a[cut:][keep], log.b[cut:][keep], log.score[cut:][keep], log.time[cut:][keep])
    return part, val


def _draw_rate(score: np.ndarray) -> float:
    return float(np.mean(score == 0.5))


def _expected_score(delta: np.ndarray, c: np.ndarray, margin: float) -> np.ndarray:
    """P(win) + P(draw) / 2 for a performance difference ~ N(delta, c^2) and a draw margin."""
    win = ndtr((delta - margin) / c)
    loss = ndtr((-delta - margin) / c)
    return win + 0.5 * (1.0 - win - loss)


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
            return (_days(t) + 3) // 7  # weeks starting on Monday (1970-01-01 was a Thursday)
        months = np.asarray(t).astype("datetime64[M]").astype(np.int64)
        return {"month": months, "quarter": months // 3, "year": months // 12}[period]

    def _fit(self, log, period: str, tau: float) -> dict:
        Player = self._glicko2.Player
        labels, a, b = self._code(log)
        n = labels.size
        per = self._period_index(log.time, period)
        per = per - per[0]
        # each game from both sides: (period, player, opponent, outcome), grouped by (period, player)
        me = np.r_[a, b]
        op = np.r_[b, a]
        out = np.r_[log.score, 1.0 - log.score]
        pp = np.r_[per, per]
        order = np.lexsort((me, pp))
        me, op, out, pp = me[order], op[order], out[order], pp[order]
        seg = np.flatnonzero(np.r_[True, (me[1:] != me[:-1]) | (pp[1:] != pp[:-1]), True])
        period_start = np.flatnonzero(np.r_[True, pp[1:] != pp[:-1], True])
        seg_of_period = np.searchsorted(seg, period_start)

        mu = np.zeros(n)  # internal scale
        phi = np.full(n, 350.0 / GLICKO_SCALE)  # at the end of the player's last rated period
        vol = np.full(n, 0.06)
        last = np.full(n, -1, dtype=np.int64)  # last period played (-1: not yet rated)
        out_list = out.tolist()
        for k in range(period_start.size - 1):
            p = int(pp[period_start[k]])
            lo, hi = int(period_start[k]), int(period_start[k + 1])
            s0, s1 = int(seg_of_period[k]), int(seg_of_period[k + 1])
            # ratings and deviations at the start of the period (all read before any is updated):
            # did_not_compete (phi^2 += vol^2) for every period a rated player sat out since the last
            # one they played; a player's first period starts from the defaults (1500, 350, 0.06)
            who = np.r_[op[lo:hi], me[seg[s0:s1]]]
            idle = np.where(last[who] >= 0, p - last[who] - 1, 0)
            r_now = 1500.0 + GLICKO_SCALE * mu[who]
            rd_now = GLICKO_SCALE * np.sqrt(phi[who] ** 2 + idle * vol[who] ** 2)
            m = hi - lo
            opp_r, opp_rd = r_now[:m].tolist(), rd_now[:m].tolist()
            own_r, own_rd, own_vol = r_now[m:].tolist(), rd_now[m:].tolist(), vol[who[m:]].tolist()
            new_mu, new_phi, new_vol = [], [], []
            for s in range(s0, s1):
                i0, i1 = int(seg[s]) - lo, int(seg[s + 1]) - lo
                q = s - s0
                pl = Player(own_r[q], own_rd[q], own_vol[q])
                pl._tau = tau
                pl.update_player(opp_r[i0:i1], opp_rd[i0:i1], out_list[lo + i0:lo + i1])
                new_mu.append((pl.rating - 1500.0) / GLICKO_SCALE)
                new_phi.append(pl.rd / GLICKO_SCALE)
                new_vol.append(pl.vol)
            players_here = who[m:]
            mu[players_here] = new_mu
            phi[players_here] = new_phi
            vol[players_here] = new_vol
            last[players_here] = p
        # deviations carried to the last period of the training log (did_not_compete since)
        end = int(pp[-1])
        phi_end = np.sqrt(phi ** 2 + (end - last) * vol ** 2)
        return {"labels": labels, "mu": mu, "phi": phi_end, "vol": vol}

    def _predict(self, model, ia, ib):
        mu, phi = model["mu"], model["phi"]
        s = np.sqrt(phi[ia] ** 2 + phi[ib] ** 2)
        g = 1.0 / np.sqrt(1.0 + 3.0 * s ** 2 / math.pi ** 2)
        return 1.0 / (1.0 + np.exp(-g * (mu[ia] - mu[ib])))


# ------------------------------------------------------------------------------------------ TrueSkill
class TrueSkillAdapter(_Adapter):
    """``trueskill`` with its default environment (mu 25, sigma 25/3, beta 25/6, tau 25/300); its
    draw_probability set to the training log's draw rate (0 when there are no draws)."""

    name = "TrueSkill (trueskill)"

    def __init__(self):
        super().__init__()
        self._ts = _require("trueskill", "trueskill", "TrueSkillAdapter")
        self.tunable = {}

    def _fit(self, log) -> dict:
        ts = self._ts
        labels, a, b = self._code(log)
        draw = _draw_rate(log.score)
        env = ts.TrueSkill(draw_probability=draw)
        ratings = [env.create_rating() for _ in range(labels.size)]
        rate = ts.rate_1vs1
        for i, j, s in zip(a.tolist(), b.tolist(), log.score.tolist()):
            if s == 1.0:
                ratings[i], ratings[j] = rate(ratings[i], ratings[j], env=env)
            elif s == 0.0:
                ratings[j], ratings[i] = rate(ratings[j], ratings[i], env=env)
            else:
                ratings[i], ratings[j] = rate(ratings[i], ratings[j], drawn=True, env=env)
        margin = ts.calc_draw_margin(draw, 2, env=env) if draw > 0 else 0.0
        return {"labels": labels, "mu": np.array([r.mu for r in ratings]),
                "sigma": np.array([r.sigma for r in ratings]), "beta": env.beta, "margin": margin,
                "draw_probability": draw}

    def fit(self, log):
        super().fit(log)
        self.info["params"] = {"draw_probability": self.model_["draw_probability"],
                               "env": "defaults (mu 25, sigma 8.33, beta 4.17, tau 0.0833)"}
        return self

    def _predict(self, model, ia, ib):
        c = np.sqrt(2.0 * model["beta"] ** 2 + model["sigma"][ia] ** 2 + model["sigma"][ib] ** 2)
        return _expected_score(model["mu"][ia] - model["mu"][ib], c, model["margin"])


# ------------------------------------------------------------------------------------------ openskill
class OpenSkillAdapter(_Adapter):
    """``openskill``'s default model (PlackettLuce, default parameters), 1v1 teams, game by game."""

    name = "OpenSkill PlackettLuce (openskill)"

    def __init__(self):
        super().__init__()
        _require("openskill", "openskill", "OpenSkillAdapter")
        from openskill.models import PlackettLuce

        self._model_cls = PlackettLuce
        self.tunable = {}

    def _fit(self, log) -> dict:
        pl = self._model_cls()
        labels, a, b = self._code(log)
        ratings = [pl.rating() for _ in range(labels.size)]
        rate = pl.rate
        for i, j, s in zip(a.tolist(), b.tolist(), log.score.tolist()):
            ranks = [0, 1] if s == 1.0 else [1, 0] if s == 0.0 else [0, 0]
            [[ratings[i]], [ratings[j]]] = rate([[ratings[i]], [ratings[j]]], ranks=ranks)
        return {"labels": labels, "model": pl, "ratings": ratings}

    def fit(self, log):
        super().fit(log)
        self.info["params"] = {"model": "PlackettLuce defaults"}
        return self

    def _predict(self, model, ia, ib):
        pl, r = model["model"], model["ratings"]
        return np.array([pl.predict_win([[r[i]], [r[j]]])[0] for i, j in zip(ia.tolist(), ib.tolist())])


# ------------------------------------------------------------------------------------------------ WHR
class WHRAdapter(_Adapter):
    """``whr`` (C++ Whole-History Rating): time step = day, ``iterate(50)`` as its README's basic usage
    (``iterate_until_converge``, which waits until no rating moves by 0.01 Elo for 10 rounds, had not
    returned after 10 minutes on the 38k football games: the whole-history level drifts slowly while the
    predictions no longer change); w^2 (Elo^2 per day) tuned on the training log. Coulom's paper found
    w^2 = 14 best on KGS Go; the package defaults to 300 and its README example uses 30."""

    name = "WHR (whr)"

    def __init__(self, w2s: Sequence[float] = (0.5, 2.0, 8.0, 32.0, 128.0, 512.0), virtual_games: int = 2,
                 iterations: Optional[int] = 50):
        super().__init__()
        self._whr = _require("whr", "whr", "WHRAdapter")
        self.virtual_games = virtual_games
        self.iterations = iterations  # None: iterate_until_converge
        self.tunable = {"w2": tuple(w2s)}

    def _fixed(self):
        return {"virtual_games": self.virtual_games, "iterations": self.iterations or "until converged"}

    def _fit(self, log, w2: float) -> dict:
        whr = self._whr
        labels, a, b = self._code(log)
        day = _days(log.time)
        day = day - day[0]
        winner = np.where(log.score == 1.0, "B", np.where(log.score == 0.0, "W", "D"))
        names = np.char.mod("%d", np.arange(labels.size)).tolist()
        base = whr.Base(config={"w2": float(w2), "virtual_games": self.virtual_games})
        base.create_games([[names[i], names[j], w, int(d)] for i, j, w, d in
                           zip(a.tolist(), b.tolist(), winner.tolist(), day.tolist())])
        if self.iterations is None:
            iterations = base.iterate_until_converge(False)
        else:
            base.iterate(self.iterations)
            iterations = self.iterations
        ev = whr.Evaluate(base)
        end = int(day[-1])
        elo = np.array([ev.get_rating(nm, end) for nm in names], dtype=np.float64)
        return {"labels": labels, "elo": elo, "iterations": iterations}

    def fit(self, log):
        super().fit(log)
        self.info["iterations"] = self.model_["iterations"]
        return self

    def _predict(self, model, ia, ib):
        elo = model["elo"]
        return 1.0 / (1.0 + 10.0 ** (-(elo[ia] - elo[ib]) / 400.0))


# ------------------------------------------------------------------------------------------------ TTT
class TTTAdapter(_Adapter):
    """``trueskillthroughtime``: ``History`` (mu 0, sigma 6, beta 1 by default) with times in days and
    p_draw = the training draw rate, then ``convergence``; gamma (skill drift per day) tuned on the
    training log. ``convergence`` runs with the package's ATP-example settings (epsilon 0.01, 10
    iterations) unless given."""

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

    def _fit(self, log, gamma: float) -> dict:
        ttt = self._ttt
        labels, a, b = self._code(log)
        days = _days(log.time)
        days = (days - days[0]).astype(np.float64)
        draw = _draw_rate(log.score)
        composition = [[[i], [j]] for i, j in zip(a.tolist(), b.tolist())]
        res = {1.0: [1, 0], 0.0: [0, 1], 0.5: [0, 0]}
        results = [res[s] for s in log.score.tolist()]
        h = ttt.History(composition, results, days.tolist(), mu=ttt.MU, sigma=ttt.SIGMA, beta=ttt.BETA,
                        gamma=gamma, p_draw=draw)
        step, it = h.convergence(epsilon=self.epsilon, iterations=self.iterations, verbose=False)
        mu = np.zeros(labels.size)
        sigma = np.zeros(labels.size)
        last = np.zeros(labels.size)
        for agent, curve in h.learning_curves().items():
            t, g = curve[-1]
            mu[agent], sigma[agent], last[agent] = g.mu, g.sigma, t
        sigma = np.sqrt(sigma ** 2 + (days[-1] - last) * gamma ** 2)  # forget to the end of training
        margin = ttt.compute_margin(draw, math.sqrt(2.0) * ttt.BETA) if draw > 0 else 0.0
        return {"labels": labels, "mu": mu, "sigma": sigma, "beta": ttt.BETA, "margin": margin,
                "draw_probability": draw, "iterations": it, "step": step}

    def fit(self, log):
        super().fit(log)
        self.info["params"]["p_draw"] = self.model_["draw_probability"]
        self.info["iterations"] = self.model_["iterations"]
        return self

    def _predict(self, model, ia, ib):
        c = np.sqrt(2.0 * model["beta"] ** 2 + model["sigma"][ia] ** 2 + model["sigma"][ib] ** 2)
        return _expected_score(model["mu"][ia] - model["mu"][ib], c, model["margin"])


ALL_ADAPTERS: tuple[Callable[[], _Adapter], ...] = (Glicko2Adapter, TrueSkillAdapter, OpenSkillAdapter,
                                                     WHRAdapter, TTTAdapter)


def available_adapters(**kw) -> tuple[list[_Adapter], dict[str, str]]:
    """(adapters whose package is installed, {adapter class: why skipped})."""
    made, skipped = [], {}
    for cls in ALL_ADAPTERS:
        try:
            made.append(cls(**kw.get(cls.__name__, {})))
        except ImportError as exc:
            skipped[cls.__name__] = str(exc)
    return made, skipped
