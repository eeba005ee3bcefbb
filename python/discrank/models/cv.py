"""Choosing the regularisation (and the number of components) by cross-validation over pairs."""

from __future__ import annotations

import itertools
import numbers
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from discrank._util.exceptions import ConvergenceWarning, DisconnectedGraphWarning, IsolatedPlayerWarning
from discrank._util.checks import check_one_of, check_positive_int
from discrank._util.params import check_param
from discrank.models._base import atomic, stores_params
from discrank.models._pairwise import PairwiseModel, fit_pairs
from discrank.models._readout import DiscReadout
from discrank.models.disc import DiscDecomposition

__all__ = ["DiscDecompositionCV"]

SCORINGS = ("mse", "log_loss")


class DiscDecompositionCV(DiscReadout, PairwiseModel):
    """:class:`DiscDecomposition` with ``regularization`` (lambda of Appendix B.2) and optionally
    ``n_components`` chosen by K-fold cross-validation over pairs, as the paper does for StarCraft.

    The observed pairs are cut at random into ``cv`` folds (a held-out pair is held out in both
    orientations). Every candidate is fitted on ``cv - 1`` folds and scored on the held-out pairs whose
    two players are in the same connected piece of those folds' pairs (across pieces no prediction is
    defined); the candidate with the lowest mean score is refitted on all the pairs.

    Parameters
    ----------
    regularizations : sequence of float
        Candidate lambdas (>= 0), Appendix B.2's regulariser, on top of the prior.
    n_components : int or sequence of int
        Candidate numbers of components.
    loss : {"bce", "squared_logit", "probability"}
    prior_scale : float, optional
        The Gaussian prior of :class:`DiscDecomposition` on every u and v; None (default): tuned once on
        the training data (``prior_scale_``, ``prior_tuning_``); ``numpy.inf``: none.
    cv : int
        Number of folds (>= 2).
    scoring : {"mse", "log_loss"}
        ``"mse"``: squared error of the probabilities of the held-out pairs (the paper's metric);
        ``"log_loss"``: their cross-entropy, per game when the data has game counts.
    solver, tol, max_iter, random_state, n_jobs
        As :class:`DiscDecomposition`; ``random_state`` also draws the folds.

    Attributes
    ----------
    cv_results_ : dict of arrays
        ``params`` (list of dicts), ``mean_test_score``, ``std_test_score``, ``split<f>_test_score``,
        ``rank_test_score`` (1 = best), ``n_unconverged`` (fits of the candidate that did not converge).
    best_params_ : dict
    best_score_ : float
    best_estimator_ : DiscDecomposition
        Refitted on all the data; ``u_``, ``v_``, ``n_iter_``, ``converged_``, ``loss_`` are its.
    """

    @stores_params
    def __init__(
        self,
        regularizations: Sequence[float] = (0.0, 0.1, 1.0, 10.0, 100.0, 1000.0),
        n_components: Any = 1,
        loss: str = "bce",
        *,
        prior_scale: Optional[float] = None,
        cv: int = 5,
        scoring: str = "mse",
        solver: str = "joint",
        tol: float = 1e-6,
        max_iter: int = 2000,
        random_state: Any = None,
        n_jobs: Optional[int] = None,
    ):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    #: The prior mean of the first component's v, the refitted :class:`DiscDecomposition`'s.
    _first_v_centre = DiscDecomposition._first_v_centre

    @property
    def _loss(self) -> str:  # type: ignore[override]
        return self.loss

    def _candidates(self) -> list[dict[str, Any]]:
        regs = np.atleast_1d(np.asarray(self.regularizations, dtype=object))
        if regs.size == 0:
            raise ValueError("regularizations must hold at least one candidate")
        for reg in regs:
            if isinstance(reg, bool) or not isinstance(reg, numbers.Real) or not np.isfinite(reg) or reg < 0:
                raise ValueError(f"regularizations must be finite numbers >= 0, got {reg!r}")
        ks = [self.n_components] if isinstance(self.n_components, numbers.Integral) else list(self.n_components)
        if not ks:
            raise ValueError("n_components must hold at least one candidate")
        ks = [check_positive_int(k, "n_components") for k in ks]
        return [{"n_components": k, "regularization": float(r)} for k, r in itertools.product(ks, regs)]

    def _takes_covariates(self) -> bool:
        return self.loss == "bce"

    def refit_copy(self) -> "DiscDecomposition":
        """A fresh copy of the best estimator to refit with no tuning: the chosen regularisation,
        components and prior scale (:meth:`~discrank.models._base.Model.refit_copy`)."""
        return self.best_estimator_.refit_copy()

    @atomic
    def fit(self, data: Any, *, validation: Any = None) -> "DiscDecompositionCV":
        """Cross-validate the candidates, refit the best on all of ``data``; returns ``self``. With
        ``prior_scale=None`` the prior scale is tuned once, for the first candidate, and used by every fit.

        Parameters
        ----------
        data : PairwiseData, GameLog or PeriodGames
            The observed pairs, or a game log (aggregated to pairs), as in :meth:`DiscDecomposition.fit`.
        validation : discrank.Validation, optional
            How the prior is tuned, as in :meth:`DiscDecomposition.fit`; ignored when the scale is given.

        Returns
        -------
        DiscDecompositionCV
            ``self``, with ``cv_results_``, ``best_params_``, ``best_score_``, ``best_estimator_`` and the
            best estimator's fitted attributes.

        Raises
        ------
        TypeError, ValueError
            Invalid parameters or data (the message names the value): among them ``cv`` below 2 or above
            the number of pairs, and a fold that holds out no pair whose players are connected by the
            other folds' pairs.

        Warns
        -----
        ConvergenceWarning
            Some cross-validation fits did not converge (one warning with their number).
        """
        return self._fit_pairs(data, validation)

    def _fit_pairs(self, data: Any, validation: Any = None,
                   fit_data_builder: Optional[Callable[..., Any]] = None) -> "DiscDecompositionCV":
        """:meth:`fit`'s body; ``fit_data_builder`` builds the fit data of each of its fits (the tuning's, the
        folds', the refit), as in :meth:`PairwiseModel._fit_pairs` (:func:`discrank.dask.fit` passes one)."""
        from discrank.solvers._tuning import Search, check_validation, tune_prior_scale

        check_validation(validation)
        data, log, coded = fit_pairs(data, "DiscDecompositionCV.fit")
        data = self._covariates_or_not(data)
        candidates = self._candidates()
        cv = check_positive_int(self.cv, "cv")
        if cv < 2:
            raise ValueError(f"cv must be >= 2 folds, got {cv}")
        if cv > data.n_pairs:
            raise ValueError(f"cv={cv} folds need at least as many pairs; the data has {data.n_pairs}")
        check_one_of(self.scoring, "scoring", SCORINGS)
        check_param(type(self), "n_jobs", self.n_jobs)  # the fits resolve it again, and warn there
        sigma = check_param(type(self), "prior_scale", self.prior_scale)
        common = dict(loss=self.loss, solver=self.solver, tol=self.tol, max_iter=self.max_iter,
                      random_state=self.random_state, n_jobs=self.n_jobs)
        # Parameters are validated once, on the whole data, before any fold is fitted.
        for cand in candidates:
            DiscDecomposition(**cand, **common)._validate_params(data)
        self.prior_tuning_ = None
        if sigma is None:
            plan, record = tune_prior_scale(DiscDecomposition(**candidates[0], **common), data, log, validation, coded,
                                            fit_data_builder, stacklevel=4)
            sigma = plan.scale  # (every fit below starts cold: the tuning's warm start is its first candidate's)
            self.prior_tuning_ = record.as_dict()
        self.prior_scale_ = sigma
        common["prior_scale"] = sigma

        folds = self._folds(data, cv)

        def cross_validate(c: int, plan: Any) -> tuple[float, tuple]:
            """The mean test score of candidate ``c`` over the folds, and (its fold scores, the number of its
            fits that did not converge); its fits at the prior scale found, each from a cold start."""
            row, unconverged = np.zeros(cv), 0
            for f, (train, test) in enumerate(folds):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("ignore", IsolatedPlayerWarning)
                    warnings.simplefilter("ignore", DisconnectedGraphWarning)
                    warnings.simplefilter("always", ConvergenceWarning)
                    model = DiscDecomposition(**candidates[c], **common)._fit_pairs(train, None, fit_data_builder)
                unconverged += any(issubclass(w.category, ConvergenceWarning) for w in caught)
                row[f] = model.mse(test) if self.scoring == "mse" else model.log_loss(test)
            return row.mean(), (row, unconverged)

        search = Search(cross_validate)
        best = search.scan(range(len(candidates)))
        mean = np.array([value for value, _ in search.fits.values()])
        scores = np.array([row for _, (row, _) in search.fits.values()])
        unconverged = np.array([n for _, (_, n) in search.fits.values()], dtype=int)
        self.cv_results_ = {
            "params": candidates,
            "mean_test_score": mean,
            "std_test_score": scores.std(axis=1),
            **{f"split{f}_test_score": scores[:, f] for f in range(cv)},
            "rank_test_score": np.argsort(np.argsort(mean, kind="stable"), kind="stable") + 1,
            "n_unconverged": unconverged,
        }
        if unconverged.any():
            warnings.warn(
                f"{int(unconverged.sum())} of {len(candidates) * cv} cross-validation fits did not converge "
                "(see cv_results_['n_unconverged'])",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.best_params_ = candidates[best]
        self.best_score_ = float(mean[best])
        self.best_estimator_ = DiscDecomposition(**self.best_params_, **common)._fit_pairs(data, None, fit_data_builder)
        est = self.best_estimator_
        self._set_players(est.labels_, est._n_threads)
        self.u_, self.v_ = est.u_, est.v_
        self.n_iter_, self.converged_, self.loss_ = est.n_iter_, est.converged_, est.loss_
        self.beta_, self.beta_se_, self.advantage_names_ = est.beta_, est.beta_se_, est.advantage_names_
        self._describe_first_component()
        return self

    def _folds(self, data: Any, cv: int) -> list:
        """The ``cv`` folds' (training pairs, test pairs) of ``data``, drawn by ``random_state``; a test pair
        is kept where its players are in one piece of the training pairs (across pieces no prediction is
        defined: each piece can be shifted or turned independently)."""
        rng = np.random.default_rng(self.random_state)
        fold = rng.permutation(data.n_pairs) % cv
        folds = []
        for f in range(cv):
            train, test = data.subset(fold != f), data.subset(fold == f)
            _, piece = train.components()
            inside = piece[test.i] == piece[test.j]
            if not inside.any():
                raise ValueError(
                    f"fold {f} holds out no pair whose players are connected by the other folds' pairs; "
                    f"the comparison graph is too sparse for cv={cv}: use fewer folds"
                )
            folds.append((train, test.subset(inside)))
        return folds

    def _factors(self) -> dict[str, np.ndarray]:
        return self.best_estimator_._factors()

    def _saved_model(self) -> DiscDecomposition:
        """The refitted best estimator: a file holds it (``discrank.persist.model_file.save``)."""
        return self.best_estimator_

    def relabel(self, labels: np.ndarray) -> None:
        """Give a model fitted on player codes its players' labels (the best estimator's too).

        Parameters
        ----------
        labels : ndarray
            ``labels[c]`` is the label of the player coded ``c``.
        """
        super().relabel(labels)
        self.best_estimator_.relabel(labels)
