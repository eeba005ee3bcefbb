"""Player-by-context effects of :class:`~discrank.DynamicElo` (``context_scale``; :data:`CONTEXTS`, one of its
parts, :mod:`discrank.models.dynamic._part`).

A log with a context column (:attr:`discrank.GameLog.context`: a tennis match's surface, a chess game's time
control) gives each player a Gaussian random effect per context around the rating: ``logit P(a beats b) = r_{a,t}
+ e_{a,c} - r_{b,t} - e_{b,c} + beta . x``, ``e_{p,c} ~ N(0, context_scale^2)``, fitted with the ratings as one
exact MAP (a block of the Newton system, preconditioned by its diagonal). ``context_scale`` is tuned on the
validation window, so that contexts the data does not support shrink to nothing. An update's new context enters
with its effects at 0. A forecast adds the two players' effects in the game's context to the logit and their
Laplace variances to the variance; a player or a context the fit has not seen has the effect 0 with the prior's
variance.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from discrank._util.checks import show
from discrank._util.labels import LabelIndex
from discrank.models.dynamic._part import LabelPart, check_codes, game_codes, held_whole
from discrank.persist.model_file import FittedArray

__all__ = ["CONTEXTS", "CONTEXT_GRID", "CONTEXT_BOUNDS", "context_terms"]

#: Context scales (logits) tried when ``context_scale`` is None and the log has contexts.
CONTEXT_GRID = (0.05, 0.1, 0.2, 0.4, 0.8)
#: The hard bounds of the context scale's search past its grid's edges.
CONTEXT_BOUNDS = (1.0 / 80, 3.2)


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


class Contexts(LabelPart):
    """The context effects: their coding, scale, block, file fields and forecast terms."""

    name, column, log_column, labels_attr = "context_scale", "ctx", "context", "context_labels_"
    one, many = "context", "contexts"
    without = "forecast without a context effect"
    fitted = ("context_labels_", "context_effects_", "context_sd_", "context_scale_")
    arrays = (FittedArray("games_ctx_", ("g",), kind="i", required=False, nonnegative="context code",
                          attr="games_.ctx"),
              FittedArray("context_effects_", ("n", "contexts"), required=False),
              FittedArray("context_sd_", ("n", "contexts"), required=False, nonnegative="standard deviation"))
    label_sets = {"context_labels_": "contexts"}
    scalars = ("context_scale_",)
    grid, bounds = CONTEXT_GRID, CONTEXT_BOUNDS
    advice = {"upper": "the players differ by context more than the search allows: give context_scale=",
              "lower": "the contexts barely change the forecasts: give context_scale=0"}

    def unused(self, model: Any) -> bool:
        return model.context_scale == 0

    def asks(self, model: Any) -> Optional[str]:
        scale = model.context_scale
        return f"context_scale={show(scale)} asks for context effects" if scale else None

    def code(self, values: np.ndarray) -> tuple:
        labels = np.unique(values)
        if labels.size < 2:
            raise ValueError(f"the log's context column holds one value only ({show(labels[0])}): context effects "
                             "need games in two contexts at least (give context_scale=0, or no context column)")
        return labels, LabelIndex(labels).lookup(values)

    def grow(self, model: Any, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The new contexts appended (in sorted order), the fitted effects widened to them: at 0, with the prior's
        standard deviation."""
        labels = np.concatenate([model.context_labels_, np.unique(values[codes < 0])])
        extra = labels.size - model.context_effects_.shape[1]
        model.context_effects_ = np.pad(model.context_effects_, ((0, 0), (0, extra)))
        model.context_sd_ = np.pad(model.context_sd_, ((0, 0), (0, extra)), constant_values=model.context_scale_)
        model.context_labels_ = labels
        return LabelIndex(labels).lookup(values)

    def given(self, model: Any, games: Any) -> Any:
        return 0.0 if games.ctx is None else model.context_scale

    def solver(self, model: Any, h: Any) -> dict:
        return {"context_scale": model._scales[self.name] if h.n_eff else 0.0}

    def start(self, model: Any, n_players: int) -> np.ndarray:
        """The fitted effects, one per player and context (new players' at 0), as the solver numbers them
        (``player * n_ctx + context``)."""
        if not self.n_labels(model):
            return np.zeros(0)
        e = model.context_effects_
        return np.pad(e, ((0, n_players - e.shape[0]), (0, 0))).reshape(-1)

    def keep(self, model: Any, res: Any, n_players: int) -> dict:
        k = self.n_labels(model)
        if not k:
            return dict.fromkeys(self.fitted[1:])
        return {"context_effects_": res.effects.reshape(n_players, k),
                "context_sd_": (1.0 / np.sqrt(res.effects_diag)).reshape(n_players, k),
                "context_scale_": float(model._scales[self.name])}

    def check_file(self, model: Any, n_players: int) -> None:
        if held_whole("contexts", {"context_labels_": model.context_labels_, "games_ctx_": model.games_.ctx,
                                   "context_effects_": model.context_effects_, "context_sd_": model.context_sd_,
                                   "scalars.context_scale_": model.context_scale_}):
            if model.context_scale == 0:
                raise ValueError("the file holds context effects, but its parameter context_scale is 0 (no contexts)")
            check_codes("games_ctx_", model.games_.ctx, model.context_labels_, "context")

    def terms(self, fitted: Any, d: Any, v: Any, eta: Any, ia: np.ndarray, ib: np.ndarray,
              codes: Optional[np.ndarray]) -> tuple:
        if codes is None or getattr(fitted, "context_effects_", None) is None:
            return d, v, eta
        dc, vc = context_terms(fitted.context_effects_, fitted.context_sd_ ** 2, fitted.context_scale_, ia, ib, codes)
        return d + dc, v + vc, eta

    def in_context(self, model: Any, context: Any, rating: np.ndarray, sd: np.ndarray) -> tuple:
        """(rating, sd, effect) of each player in ``context`` (``ratings_frame(context=...)``): the current rating plus
        the player's effect there, the standard deviation of the sum (the two Laplace variances added), and the
        effect; a ValueError naming a context the model was not fitted with."""
        labels = getattr(model, "context_labels_", None)
        if labels is None:
            raise ValueError(f"context={show(context)}: this DynamicElo was fitted without contexts (fit it on a log "
                             "with a context column)")
        code = game_codes(context, 1, labels, "context")[0]
        if code < 0:
            raise ValueError(f"context={show(context)} is not among the fitted contexts {[str(v) for v in labels]}")
        effect, effect_sd = model.context_effects_[:, code], model.context_sd_[:, code]
        return rating + effect, np.sqrt(sd ** 2 + effect_sd ** 2), effect

    def verdict(self, model: Any) -> Optional[str]:
        if getattr(model, "context_scale_", None) is None:
            return None
        return (f"context effects in {len(model.context_labels_)} contexts, scale {model.context_scale_:.4g}, the "
                f"largest {np.abs(model.context_effects_).max():.3g} logits")


CONTEXTS = Contexts()
