"""Balduzzi et al. (2019): the truncated normal (real Schur) decomposition of a complete game."""

from __future__ import annotations

from typing import Any

import numpy as np

from discrank._util.checks import check_n_components, check_one_of
from discrank._util.labels import show
from discrank.models.analysis import normal_decomposition
from discrank._util.params import check_params
from discrank._util.threads import resolve_n_jobs
from discrank.models._base import atomic, stores_params
from discrank.models._pairwise import PairwiseModel, fit_pairs
from discrank.models._readout import DiscReadout
from discrank.persist.model_file import FittedArray

__all__ = ["SchurDecomposition"]

SPACES = ("probability", "logit")


class SchurDecomposition(DiscReadout, PairwiseModel):
    """Truncated real Schur decomposition of ``2 P - 1`` (Balduzzi et al. 2019) or of ``logit P``.

    Theorem 2 (normal decomposition): a skew-symmetric matrix is ``sum_l u_l v_l^T - v_l u_l^T`` with
    orthogonal components; the k largest give its best rank-2k approximation in Frobenius norm. ``fit``
    refuses a missing pair, and in logit space a probability of 0 or 1; for incomplete data use
    ``DiscDecomposition(loss="probability")`` (the same model over the observed pairs) or
    ``loss="squared_logit"``.

    ``space="probability"``: ``P(i beats j) = clip(1/2 + sum_l u_il v_jl - v_il u_jl, 0, 1)`` (the
    components of ``2 P - 1`` halved); ``space="logit"``: ``sigmoid(...)``. 2kn parameters.

    Attributes
    ----------
    u_, v_ : ndarray, shape (n_players, n_components)
    lambdas_ : ndarray, shape (n_components,)
        ``|u_l| |v_l|``, decreasing (of the matrix decomposed: ``2 P - 1`` halved, or ``logit P``).
    n_iter_ : int (0: a direct method); converged_ : bool (True)
    """

    _fitted_arrays = (FittedArray("u_", ("n", "k")), FittedArray("v_", ("n", "k")))
    #: A direct decomposition of the payoff matrix, in process: nothing for :func:`discrank.dask.fit` to spread.
    distributed_parts = None
    _fitted_scalars = ("n_players_", "n_iter_", "converged_", "transitive_")
    _choices = {"space": SPACES}

    @stores_params
    def __init__(self, n_components: int = 1, space: str = "probability", *, n_jobs=None):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    @property
    def _loss(self) -> str:  # type: ignore[override]
        return "probability" if self.space == "probability" else "bce"

    @atomic
    def fit(self, data: Any, *, validation: Any = None) -> "SchurDecomposition":
        """Decompose the payoff matrix of ``data`` (Theorem 2); returns ``self``.

        Parameters
        ----------
        data : PairwiseData, GameLog or PeriodGames
            A complete set of pairs: every pair of players observed (a log is summed to its pairs; its
            advantage columns are ignored, with a warning naming them).
        validation : discrank.Validation, optional
            Checked, then unused: the decomposition has no prior to tune.

        Returns
        -------
        SchurDecomposition
            ``self``.

        Raises
        ------
        ValueError
            A missing pair, or in logit space a probability of 0 or 1; invalid parameters.
        """
        from discrank.solvers._tuning import check_validation

        check_validation(validation)
        data = self._covariates_or_not(fit_pairs(data, "SchurDecomposition.fit")[0])
        check_one_of(self.space, "space", SPACES)
        check_params(self, ("n_components", "n_jobs"))
        k = check_n_components(self.n_components, data.n_players)
        n = data.n_players
        n_threads = resolve_n_jobs(self.n_jobs)
        P = data.to_matrix()
        missing = np.argwhere(np.isnan(P))
        if missing.size:
            r, c = missing[0]
            raise ValueError(
                f"the Schur decomposition needs a complete matrix; {missing.shape[0] // 2} of {n * (n - 1) // 2} pairs "
                f"are missing, e.g. ({show(data.labels[r])}, {show(data.labels[c])}). Use "
                "DiscDecomposition(loss='probability') for incomplete data"
            )
        if self.space == "logit":
            off = ~np.eye(n, dtype=bool)
            certain = off & ((P <= 0.0) | (P >= 1.0))
            if certain.any():
                r, c = np.argwhere(certain)[0]
                raise ValueError(
                    f"space='logit' needs probabilities strictly inside (0, 1); pair ({show(data.labels[r])}, "
                    f"{show(data.labels[c])}) has P = {show(P[r, c])}, an infinite logit. Use space='probability'"
                )
            with np.errstate(divide="ignore"):
                M = np.log(P) - np.log1p(-P)
            np.fill_diagonal(M, 0.0)
            U, V, lam = normal_decomposition(M, k)
        else:
            M = 2.0 * P - 1.0
            np.fill_diagonal(M, 0.0)
            U, V, lam = normal_decomposition(M, k)
            U, V, lam = U / np.sqrt(2.0), V / np.sqrt(2.0), lam / 2.0
        self._set_players(data.labels.copy(), n_threads)
        counts = data.n_games if data.n_games is not None else np.ones(data.n_pairs)
        self.n_games_ = np.bincount(data.i, counts, n) + np.bincount(data.j, counts, n)  # (pairs without counts)
        self.u_, self.v_, self.lambdas_ = U, V, lam
        self.n_iter_, self.converged_ = 0, True
        self._describe_first_component()
        self._check_finite_state()
        return self

    def _factors(self) -> dict[str, np.ndarray]:
        return {"U": self.u_, "V": self.v_}

    def _rebuild(self) -> None:
        """``lambdas_`` from the components, and the reading of the first one (Propositions 1 and 2)."""
        self.lambdas_ = np.linalg.norm(self.u_, axis=0) * np.linalg.norm(self.v_, axis=0)
        self._describe_first_component()
