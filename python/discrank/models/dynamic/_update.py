"""How a fitted :class:`~discrank.DynamicElo` absorbs new games: :meth:`DynamicUpdates.update` (a base of the
estimator)."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import numpy as np

from discrank._util.calendar import check_span
from discrank.solvers._history import default_start, gradient_at
from discrank.solvers._history_update import LATE, HistoryState
from discrank._util.labels import extend_labels
from discrank._util.threads import one_blas_thread, resolve_n_jobs
from discrank.models.dynamic._state import Games, check_draws

__all__ = ["DynamicUpdates", "UPDATE_REACH"]

#: The periods back along each touched player's chain that an update re-solves with the new games before the
#: whole-history solve.
UPDATE_REACH = 16


class DynamicUpdates:
    """:meth:`update` of :class:`~discrank.DynamicElo`."""

    def update(self, log: Any) -> Any:
        """Absorb new games and refit the whole history, with ``drift_`` and ``prior_scale_`` kept.

        The fit of every game is the MAP to ``update_tol`` (the stopping rule of ``fit`` with ``update_tol``
        for ``tol``), started from the fitted ratings with the new games absorbed locally: the ratings of their
        player-periods and of :data:`UPDATE_REACH` periods back along each of their players' chains are
        re-solved with the others held (:class:`discrank.solvers._history_update.HistoryState`), then Newton's method
        on the whole history finishes in a few steps. It runs in the process that holds the model, also for a
        model fitted by :func:`discrank.dask.fit`.

        Parameters
        ----------
        log : GameLog or PeriodGames
            The new games, with the fitted games' kind of labels (numbers or strings) and advantage
            columns (else a ValueError naming them; also for a history of more than ``MAX_PERIODS``
            periods, the model left as it was); new players enter with the prior. A model fitted with contexts
            needs each new game's context (a new context enters with its effects at 0, the prior's mean); its
            refit starts from the fitted ratings and effects, without the local absorb. Games earlier than the
            latest fitted ones (results that came late) join the history in time order (the refit then
            starts from each player-period's latest fitted rating at or before it).

        Returns
        -------
        DynamicElo
            ``self``.

        Raises
        ------
        TypeError
            ``log`` is not a GameLog or PeriodGames (a dask DataFrame: read or scan its games first).
        ValueError
            Games of another kind of labels, other advantage columns, times of another kind, PeriodGames of
            another period, or a history of more than ``MAX_PERIODS`` periods; a context, margin or match format
            column the fit did not have (unless its scale was 0), or contexts or formats of another kind than
            the fitted ones (the text "1" for the context 1), named.

        Warns
        -----
        UserWarning
            New player labels that are not integers (1.5) given to a model of integer labels: each enters as a
            new player, and the warning names them (almost always a typo).
        """
        with one_blas_thread():
            return self._update_log(log)

    def _update_log(self, log: Any) -> Any:
        """:meth:`update`'s body (see there)."""
        self._check_fitted()
        self._check_games(log, "DynamicElo.update")
        if len(log) == 0:
            return self
        old = self.games_
        # the new games coded by their own labels, then by the model's (new players appended)
        new, games = self._games(log)
        labels, idx = extend_labels(self.labels_, new, "update's log", self._label_lookup())
        games = dataclasses.replace(games, a=idx[games.a].astype(np.int64), b=idx[games.b].astype(np.int64))
        for part in self._parts:
            games = part.update_games(self, log, games)
        check_draws(self.draws, games.score, "new game")
        t0, t1 = old.time, games.time
        if t0 is not None and t1 is not None and t0.dtype.kind != t1.dtype.kind:
            raise ValueError(f"the new games' times are {'dates' if t1.dtype.kind == 'M' else 'numbers'}, the "
                             f"fitted games' {'dates' if t0.dtype.kind == 'M' else 'numbers'}")
        whole = old.then(games)
        if self.period is not None:
            check_span(whole.bins, self.period, " of the fitted games with update's")
        # with a feature, the whole history refitted from the fitted state (HistoryState holds ratings alone)
        plain = not any(part.active(self) for part in self._parts)
        start = self._absorbed(games, whole, labels.size) if plain else None
        warm = None if start is not None else (self.pp_player_, self.pp_bin_, self.pp_rating_, self.theta_tail_)
        self._store(labels, whole, self.drift_ or 1.0, self.prior_scale_, self.tuning_, warm,
                    start=start)
        return self

    def _absorbed(self, games: Games, whole: Games, n_players: int) -> Optional[tuple]:
        """(history of ``whole``, a start for it, tolerance): the fitted ratings with ``games`` (new, coded into
        ``n_players`` players) absorbed locally, and the history of every game from the fitted one and the new
        rows (:meth:`HistoryState.history`); None for games before a player's latest fitted period."""
        h = self._cov_state[0]
        tol = max(self.tol, self.update_tol)
        drift, threads = self.drift_ or 1.0, resolve_n_jobs(self.n_jobs)
        scale = getattr(self, "_scale", None)
        if scale is None:  # a model read from a file: the stopping rule's scale, the gradient at zero
            zero = default_start(h, self.draws)
            grad0 = gradient_at(h, drift, self.prior_scale_, self.draws, zero, threads)[0]
            scale = max(1.0, float(np.abs(grad0).max()))
            self._scale = scale
        # the fit's gradient and curvature, if kept: given up to the state (which writes into them)
        grad, games_diag = getattr(self, "_terms", None) or (None, None)
        self._terms = None
        state = HistoryState(h, self._theta, drift, self.prior_scale_, self.draws, tol * scale, threads, grad,
                             games_diag)
        if state.absorb(games.a, games.b, games.score, games.bins, games.x, games.count, n_players,
                        reach=UPDATE_REACH) == LATE:
            return None
        return state.history(), state.theta, tol
