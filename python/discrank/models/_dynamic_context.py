"""Player-by-context effects and the margin likelihood of :class:`~discrank.DynamicElo` (:class:`DynamicContexts`,
a base of the estimator).

A log with a context column (:attr:`discrank.GameLog.context`: the surface of a tennis match, the time control
of a chess game, the map of an e-sports match) gives each player one effect per context, a Gaussian random
effect around the player's rating: ``logit P(a beats b) = r_{a,t} + e_{a,c} - r_{b,t} - e_{b,c} + beta . x``,
``e_{p,c} ~ N(0, context_scale^2)``. The effects are fitted with the ratings as one exact MAP
(:func:`discrank._history.solve_history`: they are a block of the Newton system, preconditioned by their
diagonal); ``context_scale`` is tuned on the validation window with the drift and the prior
(:mod:`discrank.models._dynamic_tuning`), so that contexts the data does not support shrink to nothing.

A forecast adds the two players' effects in the game's context to the logit and their Laplace variances (each
effect's, the others held) to the variance; a player or a context the fit has not seen has the effect 0 with the
prior's variance.

A log with margins (:attr:`discrank.GameLog.margin`: the games won by each player of a tennis match, the goals of
each side) adds the likelihood of their sub-contests at the logit scale ``margin_scale``
(:mod:`discrank._history_core`), tuned as the context scale is; the forecasts of a result are unchanged in form.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Optional

import numpy as np

from discrank._checks import show
from discrank.exceptions import MissingColumnWarning
from discrank._history_build import carry
from discrank._labels import LabelIndex

__all__ = ["DynamicContexts", "CONTEXT_GRID", "CONTEXT_BOUNDS", "MARGIN_GRID", "MARGIN_BOUNDS", "check_kind",
           "code_contexts", "context_terms", "game_codes"]

#: Context scales (logits) tried when ``context_scale`` is None and the log has contexts.
CONTEXT_GRID = (0.05, 0.1, 0.2, 0.4, 0.8)
#: The hard bounds of the context scale's search past its grid's edges.
CONTEXT_BOUNDS = (1.0 / 80, 3.2)
#: Margin scales (a sub-contest's logit per logit of the game) tried when ``margin_scale`` is None and the log
#: has margins: a game of tennis is about 0.3 of a match on the ATP log (bench/bench_features.py).
MARGIN_GRID = (0.1, 0.2, 0.3, 0.45, 0.7, 1.0)
#: The hard bounds of the margin scale's search past its grid's edges.
MARGIN_BOUNDS = (1.0 / 40, 4.0)


def code_contexts(values: np.ndarray, known: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray]:
    """(labels, codes) of contexts: ``known`` (default none) followed by the new values in sorted order, and
    each value's code into them."""
    values = np.asarray(values)
    new = np.unique(values)
    if known is None:
        labels = new
    else:
        check_kind(values, known, "context", "update's games")
        labels = np.concatenate([known, new[~np.isin(new, known)]])
    return labels, LabelIndex(labels).lookup(values)


def _kind(values: np.ndarray) -> str:
    """"text" or "numbers": the kind of the labels ``values`` (one kind, as a log holds them)."""
    if values.dtype.kind in "US":
        return "text"
    if values.dtype.kind == "O":
        return "text" if values.size and isinstance(values.flat[0], str) else "numbers"
    return "numbers"


def check_kind(values: Any, known: np.ndarray, name: str, games: str) -> None:
    """A ValueError when the ``name`` labels ``values`` (of ``games``: "update's games", "the games to predict")
    are of another kind (text or numbers) than the fitted ``known``: the text "1" is never the context 1, so the
    games would be read as in a context the fit has not seen. The message names the first value and both kinds."""
    values = np.asarray(values)
    if not values.size or not known.size:
        return
    kind, fitted = _kind(values), _kind(known)
    if kind != fitted:
        shown = ", ".join(show(v) for v in known.tolist()[:10]) + (", ..." if known.size > 10 else "")
        raise ValueError(f"{games} have the {name} {show(values.flat[0])}, {kind}, and the DynamicElo was fitted on "
                         f"{name}s that are {fitted} ([{shown}]): text never equals a number; give the {name}s as "
                         "the fit's")
    if known.dtype.kind in "iu" and values.dtype.kind == "f":  # 1.5 among the contexts 0, 1, 2: almost a typo
        odd = np.unique(values[np.isfinite(values) & (values != np.floor(values))])
        if odd.size:
            warnings.warn(f"{games} have the {name}(s) {show(odd.tolist()[:5])}, not integers, while the DynamicElo "
                          f"was fitted on integer {name}s: each is a {name} the fit has not seen (never the integer "
                          "nearest it); check them for a typo", UserWarning, stacklevel=5)


def game_codes(values: Any, n: int, labels: np.ndarray, name: str) -> np.ndarray:
    """The codes into ``labels`` (-1 for a label not among them) of the ``name`` labels ``values`` of ``n`` games
    to forecast: one value for every game, or one per game (a ValueError naming ``name`` otherwise, or labels of
    another kind than the fitted ones, :func:`check_kind`)."""
    values = np.asarray(values)
    check_kind(values, labels, name, "the games to predict")
    values = np.full(n, values.item(), dtype=object) if values.ndim == 0 else values
    if values.shape != (n,):
        raise ValueError(f"{name} has {values.shape[0]} values for {n} games")
    return LabelIndex(labels).lookup(values)


def context_terms(effects: np.ndarray, variances: np.ndarray, prior: float, ia: np.ndarray, ib: np.ndarray,
                  c: np.ndarray) -> tuple:
    """(logit term, variance term) of the context effects of games between ``ia`` and ``ib`` in contexts ``c``:
    ``effects`` and their ``variances`` by player and context, shape (n_players, n_contexts); a player coded -1,
    or a context -1, has the effect 0 with the prior's variance ``prior^2``."""
    terms = []
    for i in (ia, ib):
        ok = (i >= 0) & (c >= 0)
        at = (np.where(ok, i, 0), np.where(ok, c, 0))
        terms.append((np.where(ok, effects[at], 0.0), np.where(ok, variances[at], prior ** 2)))
    return terms[0][0] - terms[1][0], terms[0][1] + terms[1][1]


class DynamicContexts:
    """The context effects of :class:`~discrank.DynamicElo`: their coding, checks, store and forecasts."""

    def _fit_contexts(self, log: Any, games: Any) -> Any:
        """``games`` (:class:`~discrank.models._dynamic_state.Games`, ``ctx`` the log's raw contexts in time
        order) with their contexts coded, ``context_labels_`` set; a ValueError for a log with one context only,
        or for ``context_scale`` given to a log without contexts."""
        scale = self.context_scale
        if games.ctx is None or scale == 0:
            if games.ctx is None and scale:
                raise ValueError(f"context_scale={show(scale)} asks for context effects, but the log has no context "
                                 "column (GameLog(..., context=...))")
            self.context_labels_ = None
            return dataclasses.replace(games, ctx=None)
        labels, codes = code_contexts(games.ctx)
        if labels.size < 2:
            raise ValueError(f"the log's context column holds one value only ({show(labels[0])}): context effects "
                             "need games in two contexts at least (give context_scale=0, or no context column)")
        self.context_labels_ = labels
        return dataclasses.replace(games, ctx=codes)

    def _fit_margins(self, games: Any) -> Any:
        """``games`` with their margins kept for the fit (``margin_scale`` not 0), or dropped; a ValueError for
        ``margin_scale`` given to a log without margins."""
        if games.margin is None or self.margin_scale == 0:
            if games.margin is None and self.margin_scale:
                raise ValueError(f"margin_scale={show(self.margin_scale)} asks for a margin likelihood, but the log "
                                 "has no margin columns (GameLog(..., margin=(won_by_a, won_by_b)))")
            return dataclasses.replace(games, margin=None)
        return games

    def _update_margins(self, games: Any) -> Any:
        """The new ``games`` of :meth:`update` with their margins, for a model fitted with a margin likelihood
        (a ValueError when they have none), else without (a ValueError for margins that the model was not
        told to leave, ``margin_scale`` 0)."""
        if getattr(self, "margin_scale_", None) is None:
            if games.margin is not None and self.margin_scale != 0:
                raise ValueError("update's games have margin columns; the DynamicElo was fitted without (give them "
                                 "without, or fit with margins)")
            return dataclasses.replace(games, margin=None)
        if games.margin is None:
            raise ValueError("update's games have no margin columns; the DynamicElo was fitted with a margin "
                             "likelihood: give each game's margin (GameLog(..., margin=...))")
        return games

    def _update_contexts(self, log: Any, games: Any) -> Any:
        """The new ``games`` of :meth:`update` with their contexts coded into ``context_labels_`` (new contexts
        appended); a ValueError when the log has contexts and the model none, or the other way round."""
        fitted = getattr(self, "context_labels_", None)
        if fitted is None and self.context_scale == 0:  # contexts unused
            return dataclasses.replace(games, ctx=None)
        if (games.ctx is None) != (fitted is None):
            raise ValueError("update's games have a context column; the DynamicElo was fitted without (give the games "
                             "without it, or fit on a log with contexts)" if fitted is None
                             else "update's games have no context column; the DynamicElo was fitted with contexts "
                             f"{[str(v) for v in fitted]}: give each game's context")
        if fitted is None:
            return games
        labels, codes = code_contexts(games.ctx, fitted)
        self._grow_contexts(labels)
        return dataclasses.replace(games, ctx=codes)

    def _grow_contexts(self, labels: np.ndarray) -> None:
        """Widen the fitted effects to the contexts ``labels`` (the fitted ones first): a new context's effects at
        0, with the prior's standard deviation."""
        old = self.context_effects_
        extra = labels.size - old.shape[1]
        if extra:
            self.context_effects_ = np.pad(old, ((0, 0), (0, extra)))
            self.context_sd_ = np.pad(self.context_sd_, ((0, 0), (0, extra)), constant_values=self.context_scale_)
        self.context_labels_ = labels

    def _n_ctx(self) -> int:
        labels = getattr(self, "context_labels_", None)
        return 0 if labels is None else int(labels.size)

    def _effects_start(self, n_players: int) -> np.ndarray:
        """The fitted effects, one per player and context (new players' at 0), as the solver numbers them
        (``player * n_ctx + context``): a warm start."""
        if not self._n_ctx():
            return np.zeros(0)
        e = self.context_effects_
        return np.pad(e, ((0, n_players - e.shape[0]), (0, 0))).reshape(-1)

    def _carried(self, warm: tuple, h: Any) -> np.ndarray:
        """A warm start for the history ``h`` from the fit ``warm`` (player, period, rating, tail of the
        player-periods fitted, :func:`discrank._history_build.carry`), the fitted context effects, disc
        components and draw propensities between the ratings and the tail."""
        player, period, rating, tail = warm
        block = [self._effects_start(h.n_players), self._disc_start(h.n_players), self._propensity_start(h.n_players),
                 tail]
        return carry(player, period, rating, np.concatenate(block), h)

    def _store_effects(self, res: Any, n_players: int, scale: float) -> None:
        """Keep the fitted effects of a :class:`~discrank._history.HistoryResult` (``context_effects_`` and
        their standard deviations, ``context_sd_``, shape (n_players, n_contexts))."""
        k = self._n_ctx()
        if not k:
            self.context_effects_ = self.context_sd_ = None
            self.context_scale_ = None
            return
        self.context_scale_ = float(scale)
        self.context_effects_ = res.effects.reshape(n_players, k)
        self.context_sd_ = (1.0 / np.sqrt(res.effects_diag)).reshape(n_players, k)

    def _context_codes(self, context: Any, n: int) -> Optional[np.ndarray]:
        """The codes of the contexts of ``n`` games to forecast (-1 for a context not fitted); None for no
        context given, or for a model fitted with ``context_scale=0`` (contexts left out on purpose, as its
        update leaves them). A model fitted without contexts refuses them (a ValueError naming the column: its
        forecasts would ignore them), as do contexts of another kind than the fitted ones (:func:`check_kind`)."""
        if context is None:
            if self._n_ctx():
                warnings.warn(f"the games to predict have no context column; this DynamicElo was fitted with the "
                              f"contexts {show(np.asarray(self.context_labels_).tolist())}: forecast without a context effect",
                              MissingColumnWarning, stacklevel=4)
            return None
        if not self._n_ctx():
            if self.context_scale == 0:
                return None
            raise ValueError("the games to predict have a context column; this DynamicElo was fitted without "
                             "contexts, so its forecasts cannot use them: give the games without it, or fit on a "
                             "log with contexts")
        return game_codes(context, n, self.context_labels_, "context")

    def _context_terms(self, ia: np.ndarray, ib: np.ndarray, c: Optional[np.ndarray]) -> tuple:
        """(logit term, variance term) of the context effects of games between ``ia`` and ``ib`` in contexts
        ``c`` (a player coded -1, or a context -1: the effect 0 with the prior's variance); (0, 0) without."""
        if c is None or not self._n_ctx():
            return 0.0, 0.0
        return context_terms(self.context_effects_, self.context_sd_ ** 2, self.context_scale_, ia, ib, c)
