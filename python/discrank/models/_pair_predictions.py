"""What the stationary pair models predict and how they score (:class:`PairPredictions`, a base of
:class:`~discrank.models._pairwise.PairwiseModel`): ``predict_proba``, ``decision_function``, the three outcomes
and the scores of ``PairwiseData``."""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np
from scipy.special import expit

from discrank.core import _core
from discrank.solvers._draws import outcome_probabilities
from discrank._util.losses import binary_log_loss, outcome_pair_losses
from discrank.data.pairs import PairwiseData
from discrank.models._prediction import (advantage_rows, check_unseen, code_players, expected_score, log_covariates,
                                         refuse_keywords)

__all__ = ["PairPredictions"]


class PairPredictions:
    """The predictions and scores of a fitted pair model (its ``_factors``, ``_link`` and, with covariates,
    ``beta_``)."""

    def _covariate_term(self, advantage: Any, n: int) -> Optional[np.ndarray]:
        """``x . beta_`` for the covariates ``advantage`` of ``n`` games (None: none given)."""
        x = self._covariate_rows(advantage, n)
        return None if x is None else x @ self.beta_

    def _covariate_rows(self, advantage: Any, n: int) -> Optional[np.ndarray]:
        """The covariates ``advantage`` of ``n`` games as a checked array (n, n_covariates); None: none given."""
        names = tuple(self.advantage_names_ or ()) if self.beta_ is not None else ()
        return advantage_rows(advantage, n, names, type(self).__name__)

    def _row_proba(self, data: PairwiseData) -> np.ndarray:
        """P(i beats j) of each row of ``data.covariates`` (players of the fit), with ``beta_ . x``."""
        rows = data.covariates
        ia, ib = self._indices(data, None)
        return self._link(self._logits(ia[rows.pair], ib[rows.pair], rows.x))

    # ------------------------------------------------------------------ prediction
    def _indices(self, a: Any, b: Any, unseen: str = "raise") -> tuple[np.ndarray, np.ndarray]:
        """Player indices (int32) of ``a`` and ``b``, or of the pairs of a PairwiseData ``a``; with
        ``unseen="prior"`` an unknown label gets the index ``n_players_`` (the prior's row)."""
        check_unseen(unseen)
        if isinstance(a, PairwiseData):
            if b is not None:
                raise TypeError("give either a PairwiseData or two arrays of players, not both")
            if a.n_players == self.n_players_ and np.array_equal(a.labels, self.labels_):
                return a.i, a.j
            a, b = a.labels[a.i], a.labels[a.j]
        elif b is None:
            raise TypeError("predict needs the players a and b (labels), or a PairwiseData")
        ia, ib = code_players(self._label_lookup(), a, b, unseen, type(self).__name__)
        ia[ia < 0] = self.n_players_
        ib[ib < 0] = self.n_players_
        return ia.astype(np.int32), ib.astype(np.int32)

    def _player_codes(self, a: Any, b: Any, unseen: str) -> tuple[np.ndarray, np.ndarray]:
        """The indices of :meth:`_indices`, for :meth:`predict_games` and :meth:`predict_outcomes`."""
        self._check_fitted()
        return self._indices(a, b, unseen)

    def _log_outcomes(self, log: Any, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """:meth:`_outcome_proba` of the games of ``log``, with their advantage columns where the model has some."""
        names = self.advantage_names_ if self.beta_ is not None else ()
        return self._outcome_proba(ia, ib, log_covariates(log, names, type(self).__name__))

    def _prior_mean(self) -> dict[str, np.ndarray]:
        """The parameters of a player the data has not seen: the prior's mean (a row per factor)."""
        out = {}
        for key, value in self._factors().items():
            row = np.zeros((1,) + value.shape[1:])
            if key == "V" and row.shape[1]:
                row[0, 0] = self._first_v_centre
            out[key] = row
        return out

    def _scores(self, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        factors = self._factors()
        n = self.n_players_
        if (ia.size and ia.max() >= n) or (ib.size and ib.max() >= n):
            prior = self._prior_mean()
            factors = {k: np.concatenate([v, prior[k]]) for k, v in factors.items()}
            n += 1
        return _core.scores(ia, ib, n, n_threads=self._n_threads, **factors)

    def _logits(self, ia: np.ndarray, ib: np.ndarray, x: Optional[np.ndarray]) -> np.ndarray:
        """The scores of the players ``ia``, ``ib`` (indices of :meth:`_indices`) plus ``x . beta_`` for
        covariate rows ``x`` (None: neutral games)."""
        scores = self._scores(ia, ib)
        term = self._covariate_term(x, ia.shape[0])
        return scores if term is None else scores + term

    def _outcome_proba(self, ia: np.ndarray, ib: np.ndarray, x: Optional[np.ndarray] = None) -> np.ndarray:
        """[P(a wins), P(draw), P(b wins)] of games between the players ``ia`` and ``ib`` with covariate rows
        ``x`` (None: neutral games): the fitted draw model's probabilities (``draw_eta_``), else ``[p, 0, 1 - p]``.
        """
        if getattr(self, "draw_eta_", None) is not None:
            return outcome_probabilities(self._logits(ia, ib, x), self.draw_eta_, self.draws)
        p = self._link(self._logits(ia, ib, x))
        return np.stack([p, np.zeros_like(p), 1.0 - p], axis=1)

    def decision_function(self, a: Any, b: Any = None, *, unseen: str = "raise",
                          advantage: Any = None) -> Union[float, np.ndarray]:
        """The score A(a, b) of the model (logit of P(a beats b) for the logit-space models).

        Parameters
        ----------
        a, b : label or array of labels, or a PairwiseData as ``a`` (and no ``b``)
            The players.
        unseen : {"raise", "prior"}, optional
            ``"prior"``: a player not seen in the fit is given the prior's mean parameters (Elo: rating 0; disc:
            u = 0, v = 1 on the first component); default: an :class:`~discrank._util.exceptions.UnknownPlayerError`.
        advantage : array_like, optional
            For a model fitted with advantage covariates: the games' covariates, attributed to ``a``
            (shape (n_games,) or (n_games, n_covariates)); ``beta_ . x`` is added. Default: a neutral game.

        Returns
        -------
        float or ndarray
            A float for two single players, else an array.

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        discrank._util.exceptions.UnknownPlayerError
            A player the fit has not seen, with ``unseen="raise"`` (a ValueError).
        ValueError
            ``unseen`` not one of ``("raise", "prior")``, or inputs of different lengths.
        """
        self._check_fitted()
        ia, ib = self._indices(a, b, unseen)
        scores = self._logits(ia, ib, self._covariate_rows(advantage, ia.shape[0]))
        return float(scores[0]) if _is_scalar(a, b) else scores

    def _link(self, scores: np.ndarray) -> np.ndarray:
        if self._loss == "probability":
            return np.clip(0.5 + scores, 0.0, 1.0)
        return expit(scores)

    def predict_proba(self, a: Any, b: Any = None, *, unseen: str = "raise", advantage: Any = None, time: Any = None,
                      context: Any = None, match_format: Any = None,
                      outcomes: bool = False) -> Union[float, np.ndarray]:
        """P(a beats b) (the expected score of ``a``), for players given by label, or for the pairs of a
        PairwiseData (labels ``0 .. n_players - 1`` when built without). Errors as :meth:`decision_function`.

        Parameters
        ----------
        a, b : label or array of labels, or a PairwiseData as ``a`` (and no ``b``)
            The players.
        unseen : {"raise", "prior"}, optional
            A label the fit has not seen is an :class:`~discrank._util.exceptions.UnknownPlayerError` (default),
            or with ``"prior"`` a player at the prior's mean.
        advantage : dict or array_like, optional
            The games' advantage covariates, for a model fitted with them: by name (``{"home": 1}``; a covariate not
            given is 0) or an array in the order of ``advantage_names_``; default: a neutral game.
        time, context, match_format : optional
            Refused (a ValueError naming it).
        outcomes : bool, default False
            Return [P(a wins), P(draw), P(b wins)] of each game (shape (n, 3); P(draw) 0 without a draw model).

        Returns
        -------
        float or ndarray
            The probabilities: a float for two single players, else an array.
        """
        self._check_fitted()
        refuse_keywords(self, context=context, match_format=match_format, time=time)
        ia, ib = self._indices(a, b, unseen)
        three = self._outcome_proba(ia, ib, self._covariate_rows(advantage, ia.shape[0]))
        if outcomes:
            return three
        proba = expected_score(three)
        return float(proba[0]) if _is_scalar(a, b) else proba

    def mse(self, data: PairwiseData) -> float:
        """Mean squared error between predicted and observed probabilities, over pairs (the paper's metric), or
        over the rows of ``data.covariates`` for a model fitted with covariates.

        Parameters
        ----------
        data : PairwiseData
            Pairs of players the fit has seen.

        Returns
        -------
        float
            Lower is better.
        """
        if self._by_rows(data):
            return float(np.mean((self._row_proba(data) - data.covariates.p) ** 2))
        return float(np.mean((self.predict_proba(data) - data.p) ** 2))

    def _by_rows(self, data: PairwiseData) -> bool:
        """Whether ``data`` is scored by covariate row: it has covariates and the model fitted them."""
        return getattr(data, "covariates", None) is not None and self.beta_ is not None

    def log_loss(self, data: PairwiseData) -> float:
        """Mean binary cross-entropy of the predictions (clipped to ``[EPS, 1 - EPS]``), pairs weighted by
        ``data.pair_weights()`` (covariate rows by ``data.row_weights()``): per game with ``weights="games"``.
        A model with a draw model scores the three outcomes of ``data`` instead (its ``draws``).

        Parameters
        ----------
        data : PairwiseData
            Pairs of players the fit has seen (with draw counts for a draw model).

        Returns
        -------
        float
            Lower is better.

        Raises
        ------
        ValueError
            A draw model and data without draw counts.
        """
        losses, w, _ = self._log_losses(data)
        return float(np.sum(w * losses) / np.sum(w))

    def _log_losses(self, data: PairwiseData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What :meth:`log_loss` averages: ``(loss per game, weight, pair)`` of each pair of ``data``, or of each
        covariate row where ``data`` is scored by row (``pair``: the row's pair)."""
        if getattr(self, "draw_eta_", None) is not None:
            return self._outcome_log_losses(data)
        if self._by_rows(data):
            rows = data.covariates
            return binary_log_loss(self._row_proba(data), rows.p), data.row_weights(), rows.pair
        return binary_log_loss(self.predict_proba(data), data.p), data.pair_weights(), np.arange(data.n_pairs)

    def _outcome_log_losses(self, data: PairwiseData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_log_losses` of a draw model: the three-outcome log loss of ``data``'s pairs (or its
        covariate rows)."""
        ia, ib = self._indices(data, None)
        if self._by_rows(data):
            rows = data.covariates
            q = self._outcome_proba(ia[rows.pair], ib[rows.pair], rows.x)
            p, games, draws, w, pair = rows.p, rows.n_games, rows.draws, data.row_weights(), rows.pair
        else:
            q = self._outcome_proba(ia, ib)
            p, games, draws, w, pair = data.p, data.n_games, data.draws, data.pair_weights(), np.arange(data.n_pairs)
        if draws is None:
            raise ValueError(f"{type(self).__name__}(draws={self.draws!r}).log_loss scores wins, draws and losses: the "
                             "data has no draw counts (PairwiseData.draws is None)")
        return outcome_pair_losses(q, p, games, draws), w, pair

    def score(self, data: PairwiseData) -> float:
        """The mean log-likelihood of ``data`` under the model, ``-log_loss(data)``: higher is better
        (scikit-learn's convention); per game with ``weights="games"``, otherwise per pair.

        Parameters
        ----------
        data : PairwiseData
            The pairs to score, as for :meth:`log_loss`.

        Returns
        -------
        float
            At most 0; 0 for a model that predicts every result with certainty.

        Raises
        ------
        discrank._util.exceptions.NotFittedError
            The model is not fitted.
        """
        return -self.log_loss(data)


def _is_scalar(a: Any, b: Any) -> bool:
    return b is not None and _single(a) and _single(b) and not isinstance(a, PairwiseData)


def _single(x: Any) -> bool:
    """One player (not a sequence); a list is never converted to find out."""
    return not isinstance(x, (list, tuple)) and np.ndim(x) == 0
