"""Stationary Elo (Eq. (1)) and Elo++ without its time decay (appendix, "Elo ++")."""

from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

from discrank.core import _core
from discrank.data._coding import map_rows
from discrank.solvers._draws import DRAWS, check_draw_data, check_draw_model, outcome_probabilities
from discrank.solvers._fitdata import FitData, FitPlan
from discrank.solvers._newton import newton_elo
from discrank.solvers._optim import minimize_scaled, pair_curvature
from discrank._util.params import check_params
from discrank.data.pairs import PairwiseData, one_sided, separated_examples
from discrank._util.exceptions import ConvergenceWarning, SeparationWarning
from discrank.models._base import LOSSES, stores_params
from discrank.models._pairwise import PairwiseModel
from discrank.persist.model_file import FittedArray

__all__ = ["Elo", "EloPlusPlus"]


_SOLVERS = ("newton", "lbfgs")
#: How Newton's method solves its linear systems (``linear_solver_``, discrank.solvers._newton.newton_elo).
LINEAR_SOLVERS = ("cg", "banded Cholesky")

#: Prior standard deviation (logits; 10 is 1737 Elo points) added when the results separate the players.
SEPARATION_PRIOR_SCALE = 10.0
#: Largest rating spread (logits) within a piece before the fit checks for a separated group.
SEPARATION_CHECK_SPREAD = 18.0
#: Logs with at most this many pairs are checked for separated groups before the fit.
TARJAN_UP_FRONT = 200_000
#: Most Newton steps of a warm-started fit made while tuning the prior scale.
TUNING_STEPS = 2


class _Solved:
    """A scale whose fit has been run already (the maximum-likelihood fit, kept when nothing separates)."""

    def __init__(self, sigma, result):
        self.sigma, self.result = sigma, result


def _spread(s: np.ndarray, piece: np.ndarray) -> float:
    if s.size == 0:
        return 0.0
    hi = np.full(piece.max() + 1, -np.inf)
    lo = np.full(piece.max() + 1, np.inf)
    np.maximum.at(hi, piece, s)
    np.minimum.at(lo, piece, s)
    return float(np.max(hi - lo))


def _ridge(sigma: Optional[float], total_weight: float) -> float:
    """The prior N(0, sigma^2) per rating on the scale of the objective (the mean loss per unit weight):
    ``1 / (sigma^2 W)``; 0 without a prior (``sigma=None``)."""
    return 0.0 if sigma is None else 1.0 / (sigma**2 * float(total_weight))


class _EloFamily(PairwiseModel):
    _default_solver = "newton"

    @stores_params
    def __init__(
        self,
        *,
        solver: Optional[str] = None,
        prior_scale: Optional[float] = None,
        draws: Optional[str] = None,
        tol: Optional[float] = None,
        max_iter: Optional[int] = None,
        n_jobs: Optional[int] = None,
    ):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    _has_prior = True
    _fitted_arrays = (FittedArray("ratings_", ("n",)),)
    _fitted_scalars = ("n_players_", "n_iter_", "converged_", "grad_measure_", "loss_", "solver_", "tol_",
                       "linear_solver_", "prior_scale_", "draw_eta_", "draw_eta_se_")
    _choices = {"solver": _SOLVERS, "solver_": _SOLVERS, "linear_solver_": LINEAR_SOLVERS, "draws": DRAWS}
    _optional_params = ("solver", "tol", "max_iter", "draws")
    #: Why the class fits no draw model, when it declares none (:func:`discrank.solvers._draws.check_draw_model`).
    _no_draws_reason = ""

    def _validate_params(self, data: PairwiseData) -> None:
        if self.solver is not None and self.solver not in _SOLVERS:
            raise ValueError(f"solver must be one of {_SOLVERS} or None, got {self.solver!r}")
        check_params(self, ("prior_scale", "tol", "max_iter", "n_jobs"))  # fit resolves n_jobs again, and warns
        if check_draw_model(self, self._no_draws_reason) is not None:
            _check_draw_fit(self, data)

    def _warm_state(self):
        if self.draw_eta_ is not None:  # the draw model's beta and eta too (the whole-history solver's tail)
            return (self.labels_, self.ratings_, np.append(self.beta_ if self.beta_ is not None else [],
                                                           self.draw_eta_))
        return (self.labels_, self.ratings_)

    def _takes_covariates(self) -> bool:
        return True

    def _fit(self, data: FitData, plan: FitPlan) -> None:
        """Newton's method or L-BFGS on the ratings, with the prior; a separation check at ``prior_scale=inf``.
        With a draw model, the whole-history solver's Newton method (:meth:`_fit_draws`). A tuning fit
        (``plan.tuning``) runs to the plan's tolerance, and warm started, to at most ``TUNING_STEPS``
        Newton steps."""
        self.draw_eta_ = self.draw_eta_se_ = None
        if self.draws is not None:
            return self._fit_draws(data, plan)
        objective, w, piece = data.objective, data.w, data.piece
        loss_id = LOSSES[self._loss]
        n_threads = data.n_threads
        solver = self.solver
        if solver is None:  # Elo++ without a prior: L-BFGS (its Gauss-Newton system is singular on separated players)
            solver = "lbfgs" if self._loss == "sigmoid_squared" and plan.scale == np.inf else self._default_solver
        tol = (1e-9 if solver == "newton" else 1e-7) if self.tol is None else self.tol
        if plan.tuning:
            tol = max(tol, plan.tol)
        max_iter = (100 if solver == "newton" else 2000) if self.max_iter is None else self.max_iter
        if plan.tuning and plan.warm_start is not None and solver == "newton":
            # From the optimum at a neighbouring prior scale, Newton's method converges quadratically: its
            # TUNING_STEPS steps leave validation scores within ~1e-6 of the exact optimum's.
            max_iter = min(max_iter, TUNING_STEPS)
        self.solver_, self.tol_ = solver, tol
        n_pieces = data.n_pieces
        s0 = None
        warm = plan.warm_start
        if warm is not None:
            s0 = map_rows(warm[0], warm[1], data.labels, np.zeros)

        def solve(sigma, offset=None, start=None):
            ridge = _ridge(sigma, data.total_weight)
            start = s0 if start is None else start
            if solver == "newton":
                return newton_elo(objective, loss_id, data.i, data.j, w, data.n_players, piece, tol, int(max_iter),
                                  n_threads, s0=start, ridge=ridge, sums=sums, offset=offset)

            def fun(s: np.ndarray) -> tuple[float, np.ndarray]:
                f, _, _, gs = objective.evaluate(loss_id, s=s, offset=offset, grad_s=True, n_threads=n_threads)
                return f + 0.5 * ridge * float(s @ s), gs + ridge * s

            h = pair_curvature(objective, w, None, n_threads) + ridge
            return minimize_scaled(fun, np.zeros(data.n_players) if start is None else start, h, tol, int(max_iter))

        sums = data.score_sums()  # (total, scored, conceded) per player
        sigma = plan.scale
        separated = None
        if sigma == np.inf:
            sigma, separated = self._check_separation(data, piece, n_pieces, sums, solve)
        covariates_converged = True
        if data.x is None:
            res = solve(sigma) if not isinstance(sigma, _Solved) else sigma.result
            sigma = sigma.sigma if isinstance(sigma, _Solved) else sigma
        else:
            res, sigma, covariates_converged = self._fit_covariates(data, sigma, solve, tol)
        self.separated_ = separated
        self.prior_scale_ = np.inf if sigma is None else float(sigma)
        if solver == "newton":
            self.linear_solver_ = res.linear_solver
        s = res.x
        # The scores are defined up to a constant in each piece of the comparison graph: centre each piece.
        # (With a prior the optimum has mean 0 in each piece already.)
        s -= (np.bincount(piece, s) / np.bincount(piece))[piece]
        self.ratings_ = s
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged and covariates_converged
        self.grad_measure_ = res.grad_measure
        self.loss_ = res.fun
        if not res.converged:
            warnings.warn(f"{type(self).__name__} did not converge: {res.message}", ConvergenceWarning, stacklevel=3)

    def _fit_covariates(self, data: FitData, sigma, solve, tol):
        """The ratings and ``beta`` of ``logit P = s_i - s_j + beta . x`` (models/_covariates.py): block
        coordinate descent, Newton's method (Gauss-Newton for Elo++) on each block; ``beta_se_`` from the
        Schur complement of the ratings' Hessian (Elo), or the sandwich given the ratings (Elo++). Returns
        (the ratings' last solver result, the prior scale, whether the descent converged)."""
        from discrank.models._covariates import alternate, beta_prior, elo_beta_covariance, sandwich_se

        start = sigma.result.x if isinstance(sigma, _Solved) else None
        sigma = sigma.sigma if isinstance(sigma, _Solved) else sigma
        last = {}

        def fit_at(offset):
            last["res"] = solve(sigma, offset, last["res"].x if last else start)

        def scores():
            s = last["res"].x
            return s[data.i] - s[data.j]

        fit = alternate(fit_at, scores, data.x, data.p, data.w, beta_prior(data.x, data.w, data.total_weight), tol,
                        type(self).__name__, loss=self._loss)
        self.beta_ = fit.beta
        d = fit.scores + data.x @ fit.beta
        if self._loss == "bce":
            cov = elo_beta_covariance(data, d, _ridge(sigma, data.total_weight))
            self.beta_se_ = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        else:  # Elo++: the squared error is no likelihood; the M-estimator's sandwich, given the ratings
            self.beta_se_ = sandwich_se(d, data.x, data.w, data.total_weight)
        return last["res"], sigma, fit.converged

    def _check_separation(self, data: FitData, piece, n_pieces, sums, solve):
        """Maximum likelihood (``prior_scale=inf``): (the scale to fit with, whether the data separates).

        Separation (no finite maximum-likelihood answer): a player who never scores or never concedes is
        found in one pass; a separated *group* by the strong pieces of the beat graph (Tarjan, O(m)): up
        front on logs of up to TARJAN_UP_FRONT pairs, else only when the fit does not converge or spreads
        a piece wider than SEPARATION_CHECK_SPREAD logits. When the fit without a prior was run and is
        kept, the scale returned is a ``_Solved`` holding its result.
        """
        strong_pieces = None  # (count, piece of each player) of the beat graph, computed at most once

        def strongly_separated() -> bool:
            nonlocal strong_pieces
            strong_pieces = _core.beat_pieces(data.n_players, data.i, data.j, data.p)
            return bool(strong_pieces[0] > n_pieces)

        separated = one_sided(piece, sums[1], sums[2])
        if not separated and data.n_pairs <= TARJAN_UP_FRONT:
            separated = strongly_separated()
        if not separated:
            res = solve(None)
            if data.n_pairs <= TARJAN_UP_FRONT or (res.converged and _spread(res.x, piece) <= SEPARATION_CHECK_SPREAD):
                return _Solved(None, res), False
            if not strongly_separated():
                return _Solved(None, res), False
        if strong_pieces is None:  # found by the one-pass check: the groups are still to name
            strong_pieces = _core.beat_pieces(data.n_players, data.i, data.j, data.p)
        n_strong, strong = strong_pieces
        names = separated_examples(data.pairs, strong)
        warnings.warn(
            f"the results separate the players into {n_strong} groups where {n_pieces} connected "
            f"piece(s) were expected: some players or groups never lose (or never win) against the others "
            f"(e.g. {', '.join(names)}), so the maximum-likelihood ratings are infinite. A N(0, "
            f"{SEPARATION_PRIOR_SCALE:g}^2) prior on each rating (in logits) keeps them finite; "
            "their values for those players say 'far above / below', not how far. The default "
            "prior_scale=None tunes a prior instead",
            SeparationWarning,
            stacklevel=4,
        )
        return SEPARATION_PRIOR_SCALE, True

    def _fit_draws(self, data: FitData, plan: FitPlan) -> None:
        """The MAP of the draw model over the pairs (or their covariate rows): the whole-history problem
        of one period, whose player-periods are the players (no chain), solved jointly in (ratings, beta,
        eta) by :func:`discrank.solvers._history.solve_history`; the standard errors of beta and eta from the
        Laplace approximation (:func:`discrank.solvers._history.covariance_at`)."""
        from discrank.solvers._history import covariance_at, solve_history

        if not isinstance(data.objective, _core.PairObjective):
            raise ValueError(f"{type(self).__name__}(draws={self.draws!r}) is not fitted on a Dask cluster yet: "
                             "discrank.dask.fit runs the pair kernel on the workers, and the draw model is fitted "
                             "by the whole-history solver in process; fit it with model.fit")
        tol = 1e-9 if self.tol is None else self.tol
        if plan.tuning:
            tol = max(tol, plan.tol)
        h = _draw_history(data)
        theta0 = None
        warm = plan.warm_start
        if warm is not None and len(warm) == 3 and warm[2].shape == (h.n_cov + 1,):
            theta0 = np.concatenate([map_rows(warm[0], warm[1], data.labels, np.zeros), warm[2]])
        sigma = plan.scale
        res = solve_history(h, 1.0, sigma, self.draws, theta0=theta0, tol=tol,
                            max_iter=100 if self.max_iter is None else int(self.max_iter), n_threads=data.n_threads)
        s = res.r.copy()  # (mean 0 in each piece already, as the prior pins each piece's shift)
        s -= (np.bincount(data.piece, s) / np.bincount(data.piece))[data.piece]
        self.ratings_, self.draw_eta_ = s, float(res.eta)
        self.solver_, self.linear_solver_, self.tol_, self.prior_scale_ = "newton", "cg", tol, float(sigma)
        self.separated_ = None
        self.n_iter_, self.converged_, self.grad_measure_ = res.n_iter, res.converged, res.gradient
        self.loss_ = res.objective / float(data.total_weight)
        if data.x is not None:
            self.beta_ = res.beta.copy()
        if not plan.tuning:  # (the tuning's fits are only scored)
            theta = np.concatenate([res.r, res.beta, [res.eta]])
            cov = covariance_at(h, 1.0, sigma, self.draws, theta, data.n_threads)
            se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
            self.draw_eta_se_ = float(se[-1])
            if data.x is not None:
                self.beta_se_ = se[:-1]
        if not res.converged:
            warnings.warn(f"{type(self).__name__}(draws={self.draws!r}) did not converge in {res.n_iter} Newton steps "
                          f"(relative gradient {res.gradient:.3g}, tol {tol:g})", ConvergenceWarning, stacklevel=3)

    @property
    def draw_nu_(self) -> Optional[float]:
        """Davidson's draw parameter nu = exp(``draw_eta_``), as :class:`~discrank.DynamicElo` names it; None
        for another draw model or none."""
        return float(np.exp(self.draw_eta_)) if self.draws == "davidson" and self.draw_eta_ is not None else None

    @property
    def draw_threshold_(self) -> Optional[float]:
        """Rao and Kupper's threshold kappa (``draw_eta_``), as :class:`~discrank.DynamicElo` names it; None for
        another draw model or none."""
        return self.draw_eta_ if self.draws == "rao-kupper" else None

    def _rebuild(self) -> None:
        """The draw parameter of a model file: None where the file holds none; a model has one exactly when it
        has a draw model."""
        for name in ("draw_eta_", "draw_eta_se_"):
            if not hasattr(self, name):
                setattr(self, name, None)
        if self.draws is not None and self.draw_eta_ is None:
            raise ValueError(f"scalars.draw_eta_ is missing: a model with draws={self.draws!r} has a draw parameter")
        if self.draws is None and self.draw_eta_ is not None:
            raise ValueError(f"scalars.draw_eta_ = {self.draw_eta_!r}, but params.draws is None (no draw model)")

    def _link(self, scores: np.ndarray) -> np.ndarray:
        """P(a beats b) of logits ``scores``; with a draw model the expected score, P(a wins) + P(draw) / 2."""
        if getattr(self, "draw_eta_", None) is None:
            return super()._link(scores)
        q = outcome_probabilities(scores, self.draw_eta_, self.draws)
        return q[:, 0] + 0.5 * q[:, 1]

    def _factors(self) -> dict[str, np.ndarray]:
        return {"s": self.ratings_}

    def _rating_columns(self) -> dict[str, np.ndarray]:
        return {"rating": self.ratings_}

    def _sort_key(self) -> np.ndarray:
        """The ratings."""
        return self.ratings_

    def _elo_scale(self) -> np.ndarray:
        """The ratings, in logits."""
        return self.ratings_


def _check_draw_fit(model: _EloFamily, data: PairwiseData) -> None:
    """What a draw model's fit needs beyond its parameters: a finite prior, Newton's method, and draw counts
    with draws and other results (a ValueError names the model and says why)."""
    name = f"{type(model).__name__}(draws={model.draws!r})"
    if model.prior_scale is not None and float(model.prior_scale) == np.inf:
        raise ValueError(f"{name} needs a finite prior_scale (or None, tuned): its solver pins each piece's "
                         "common shift of the ratings by the prior, and prior_scale=inf has none")
    if model.solver not in (None, "newton"):
        raise ValueError(f"{name} is fitted by Newton's method (the whole-history solver); solver={model.solver!r} "
                         "is not available with a draw model")
    check_draw_data(model, data)


def _draw_history(data: FitData):
    """The whole-history problem of the draw model over the fit's entries (pairs or covariate rows, in the
    data's order: Elo's fit data is not tiled): one period, each player its own player-period, each entry a
    row of games, wins of its first player and draws. With ``weights="uniform"`` each game weighs
    ``1 / n_games`` of its pair, so that a pair weighs 1."""
    from discrank.solvers._history import History

    pairs, n = data.pairs, data.n_players
    rows = pairs.covariates if data.x is not None else None
    draws = pairs.draws if rows is None else rows.draws
    games = data.n_games
    wins = np.round(data.p * games - 0.5 * draws)  # whole numbers: the scores are results (1, 0.5, 0)
    if pairs.weights != "games":
        per_game = (pairs.row_weights() if rows is not None else pairs.pair_weights()) / games
        games, wins, draws = games * per_game, wins * per_game, draws * per_game
    x = np.zeros((data.n_pairs, 0)) if data.x is None else data.x
    return History(n, n, np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool),
                   np.zeros(n - 1), data.i.astype(np.int64), data.j.astype(np.int64), x, games, wins, draws)


class Elo(_EloFamily):
    """Stationary Elo score, Eq. (1) of the paper.

    ``ratings_ = argmin_s sum_p w_p bce(P_p, sigmoid(s_i - s_j))`` over the observed pairs, so that
    ``P(i beats j) = sigmoid(s_i - s_j)`` (the paper's alpha = 1: natural-log units; times 400 / ln 10
    for Elo points), with a Gaussian prior N(0, prior_scale^2) on each rating: the fit is the maximum a
    posteriori, finite on sparse logs. ``prior_scale=numpy.inf`` is Eq. (1) itself; when the results then
    separate the players (a player or a group that never loses, or never wins, against the others in its
    piece), the fit warns (``SeparationWarning``) and adds the prior N(0, ``SEPARATION_PRIOR_SCALE``^2).

    Parameters
    ----------
    solver : {"newton", "lbfgs"}, default "newton"
        "newton": Newton's method, its Hessian (the comparison graph's weighted Laplacian) solved by
        Jacobi-preconditioned conjugate gradients, or by a banded Cholesky factorisation on ladder-like
        data (``linear_solver_``). "lbfgs": preconditioned L-BFGS.
    prior_scale : float, optional
        Standard deviation (logits) of the prior on every rating. None (default): tuned on the training
        data by the one-SE rule, on the latest 10% of a dated ``GameLog``'s games, else on a random tenth
        of the pairs (docs/models.md, "Priors"; ``prior_scale_``, ``prior_tuning_``). ``numpy.inf``: none.
    draws : {"davidson", "rao-kupper"} or None, default None
        None: a draw counts as half a win. A draw model (``draw_models``; the fit of
        :class:`~discrank.DynamicElo` with ``period=None`` at the same ``prior_scale``): "davidson",
        ``P(a wins) : P(draw) : P(b wins) = e^{d/2} : e^eta : e^{-d/2}``, or "rao-kupper", ``P(a wins) =
        sigmoid(d - eta)``, ``P(b wins) = sigmoid(-d - eta)``, ``d = s_a - s_b + beta . x``; ``eta`` (flat
        prior) is fitted with the ratings and ``beta`` by the whole-history solver's Newton method
        (:mod:`discrank.solvers._history`; ``tol`` its relative gradient). Needs the pairs' draw counts (a
        ``GameLog`` of results 1, 0.5, 0 with draws and other results) and a finite ``prior_scale`` (or
        None). ``predict_proba`` gives the expected score P(a wins) + P(draw) / 2, ``predict_outcomes`` the
        three probabilities, ``log_loss`` and ``score`` the three-outcome log loss.
    tol : float, default 1e-9 (newton) or 1e-7 (lbfgs)
        Converged when every player's ``|gradient| / curvature scale`` is at most ``tol``: the gap between
        the player's expected and observed mean score (``discrank.solvers._optim``).
    max_iter : int, default 100 (Newton steps) or 2000 (L-BFGS iterations)
    n_jobs : int, optional
        Threads of the compiled core, scikit-learn's meaning (None: OpenMP's default, -1: all).

    Attributes
    ----------
    ratings_ : ndarray, shape (n_players,)
        Elo scores, mean 0 in each piece of the comparison graph.
    labels_ : ndarray
        The players, in the order of ``ratings_``.
    n_iter_ : int
        Newton steps or L-BFGS iterations.
    solver_, tol_ : str, float
        The solver and tolerance used (the defaults resolved).
    separated_ : bool or None
        With ``prior_scale=inf``: whether the results separate the players (no finite
        maximum-likelihood answer). None with a finite prior, which keeps every rating finite.
    prior_scale_ : float
        The prior scale used (``inf``: none).
    prior_tuning_ : dict or None
        When the scale was tuned: the rule ("time order" or "held-out pairs"), the metric, the scales
        tried with their validation scores, the best scale of the validation (``best``, from which the
        one-SE rule steps down to ``chosen``), and the games fitted and held out.
    linear_solver_ : str
        (newton) "cg" or "banded Cholesky": how the last Newton systems were solved.
    converged_ : bool
        Whether the gradient criterion was met (a ``ConvergenceWarning`` is raised otherwise).
    grad_measure_ : float
        The final value of the stopping measure.
    loss_ : float
        Final objective: the weighted mean loss over the observed pairs.
    beta_, beta_se_ : ndarray of shape (n_covariates,), or None
        Fitted on a :class:`~discrank.GameLog` with advantage columns: ``logit P(a beats b) = s_a - s_b +
        beta . x``, ``beta`` fitted with the ratings (the weak prior of
        :data:`discrank.data._advantage.BETA_PRIOR_SCALE`), its standard error the Laplace approximation's (the
        Schur complement of the ratings in the Hessian). None without covariates.
    advantage_names_ : tuple of str
        The covariates' names (empty without).
    draw_eta_, draw_eta_se_ : float or None
        With a draw model: ``eta`` (Davidson's ``log nu``, Rao and Kupper's threshold) and its standard error
        (Laplace, as ``beta_se_``). None without.
    """

    _loss = "bce"
    draw_models = DRAWS


class EloPlusPlus(_EloFamily):
    """Elo++ (Sismanis 2010) without its time decay, as in the paper's appendix.

    :class:`Elo`'s model, prior and advantage covariates, fitted with the quadratic loss
    ``1/2 (P_ij - sigmoid(s_i - s_j))^2``; parameters and attributes as :class:`Elo`'s. The loss is not
    convex: "newton" runs Gauss-Newton (positive definite with the prior), and without a prior
    (``prior_scale=inf``) the default solver is "lbfgs", the Gauss-Newton system being singular on separated
    players. The squared error is no likelihood: ``draws`` is only None (``draw_models`` is empty; a draw
    model is a ValueError), and ``beta_se_`` is the M-estimator's sandwich standard error given the ratings
    (``discrank.models._covariates.sandwich_se``).
    """

    _loss = "sigmoid_squared"
    _choices = {**_EloFamily._choices, "draws": ()}
    _no_draws_reason = ("its loss, the squared error 1/2 (P - sigmoid(d))^2 of the mean score, is no likelihood of "
                        "three outcomes (win, draw, loss), so there is no draw parameter to fit")
