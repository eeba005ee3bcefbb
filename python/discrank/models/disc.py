"""The disc decomposition (Eq. (4)) by Algorithms 1 and 2 of the paper, and m-Elo on the same solver.

The objectives of one component and the two solvers are in ``models/_disc_problem.py``; the reading of
a fitted model (Propositions 1 and 2) in ``models/_readout.py``.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from discrank.core import _core
from discrank.data._coding import map_rows
from discrank._util.checks import check_n_components, check_one_of
from discrank.solvers._draws import DRAW_IDS, DRAWS, check_draw_data, check_draw_model, draw_start
from discrank.solvers._fitdata import FitData, FitPlan
from discrank._util.labels import show
from discrank.solvers._newton import logit_mean_score
from discrank._util.params import check_params
from discrank.data.pairs import PairwiseData, one_sided, separated_examples
from discrank._util.exceptions import ConvergenceWarning, SeparationWarning
from discrank.models._base import LOSSES, stores_params
from discrank.models._pairwise import PairwiseModel
from discrank.models._disc_problem import Component, alternate_blocks, alternate_then_joint, is_live, unit_columns
from discrank.models._readout import DiscReadout
from discrank.persist.model_file import FittedArray

__all__ = ["DiscDecomposition", "MElo"]

#: Losses a disc decomposition can be fitted with.
DISC_LOSSES = ("bce", "squared_logit", "probability")

#: Solvers of one component: the paper's alternation alone, or the alternation then a joint L-BFGS.
SOLVERS = ("joint", "alternating")

#: Scale of the random perturbation of the first component's starting v (which is 1: an Elo start).
INIT_NOISE = 0.01
#: Maximum likelihood: a decided result (0 or 1) fitted with a score beyond this many logits (P within
#: 3e-7 of 0 or 1) says the factors are growing towards an infinite optimum.
SATURATED = 15.0

#: Most iterations per component of a fit made while tuning the prior scale: at the largest scales of the
#: search a sparse log's fit is nearly the maximum-likelihood one, which converges slowly and scores badly.
TUNING_MAX_ITER = 200

#: The fitted arrays of a disc model file: the components, and each component's iterations and measure.
DISC_ARRAYS = (
    FittedArray("u_", ("n", "k")),
    FittedArray("v_", ("n", "k")),
    FittedArray("n_iter_", ("k",), kind="i", required=False, nonnegative="iteration count"),
    FittedArray("grad_measure_", ("k",), required=False, bound=None, nonnegative="gradient measure"),
)


class DiscDecomposition(DiscReadout, PairwiseModel):
    """Disc decomposition of a symmetric zero-sum game, Eq. (4) of the paper.

    The model is ``A_ij = sum_l u_il v_jl - v_il u_jl``, a skew-symmetric matrix of rank ``2k``, fitted
    over the observed pairs only ("Missing Entries"):

    - ``loss="bce"`` (the paper's experiments): ``bce(P_ij, sigmoid(A_ij))``, ``P(i beats j) = sigmoid(A_ij)``;
    - ``loss="squared_logit"`` (the problem of Eq. (4) and Theorem 2): ``(logit P_ij - A_ij)^2``, needs
      ``0 < P_ij < 1``; ``P(i beats j) = sigmoid(A_ij)``;
    - ``loss="probability"`` (appendix, "This work (probability space)", as in Balduzzi et al. 2019):
      ``1/2 (P_ij - 1/2 - A_ij)^2``; ``P(i beats j) = clip(1/2 + A_ij, 0, 1)``.

    The objective is the weighted mean of the loss over the observed pairs (each unordered pair once: half
    the paper's double sum over ``(i, j)`` and ``(j, i)``).

    Algorithm 2 finds the components one after another, each on top of the previous ones (a fixed offset).
    Algorithm 1 fits component ``l`` by L-BFGS steps on u, then v, of
    ``f(u, v) + sum_m <u, us_m>^2/|us_m|^2 + <u, vs_m>^2/|vs_m|^2`` and
    ``f(u, v) + <u, v>^2/|u|^2 + sum_m <v, us_m>^2/|us_m|^2 + <v, vs_m>^2/|vs_m|^2`` (m < l): penalties that keep
    the components orthogonal (Eq. (4)'s constraints), weighing 1 against the paper's double sum. The first
    component starts from ``v = 1`` plus noise of scale ``INIT_NOISE`` (``random_state``), an Elo game, and with
    the bce loss from u at each player's logit of their mean score; later components, and other losses, from
    ``u = 0`` (later ones with a random v orthogonal to the previous components).

    ``solver="alternating"`` repeats the u- and v-steps until both block gradients meet ``tol``: the paper's
    algorithm (linear convergence). ``solver="joint"`` (default) runs L-BFGS on (u, v) together (after a
    first u-step when u starts at 0, a saddle), with the ``<u, v>`` penalty and the orthogonality to the
    previous components as an exact constraint. The two share the first component's fixed points; later
    components differ slightly unless the penalised optimum is orthogonal (Theorem 2's complete matrix with
    the squared logit loss).

    Parameters
    ----------
    n_components : int
        Number of disc games ``k`` (pairs of components), ``1 <= k <= n_players / 2``.
    loss : {"bce", "squared_logit", "probability"}
    regularization : float
        lambda of Appendix B.2: adds ``lambda / 2 sum_i (v_i1 - 1)^2`` (first component only: it pulls the
        main disc game towards an Elo game, v = 1) on the paper's scale, the double sum over both orders
        of the observed pairs, each with its pair weight. 0 (default) is the unregularised Eq. (4).
        :class:`DiscDecompositionCV` chooses it by cross-validation.
    draws : {"davidson", "rao-kupper"} or None, default None
        None: a draw counts as half a win. A draw model (``draw_models``, :class:`~discrank.Elo`'s) on the
        disc logit ``d = sum_l u_al v_bl - v_al u_bl``; the loss is the three-outcome negative
        log-likelihood, and ``eta`` (flat prior) is fitted with each component (its final value the last
        component's). Needs ``loss="bce"``, the pairs' draw counts (a ``GameLog`` of results 1, 0.5, 0 with
        draws and other results) and no advantage columns. ``predict_proba`` gives the expected score
        P(a wins) + P(draw) / 2, ``predict_outcomes`` the three probabilities, ``log_loss`` and ``score`` the
        three-outcome log loss.
    solver : {"joint", "alternating"}
    tol : float
        Converged when every parameter's ``|gradient| / curvature scale`` is at most ``tol``
        (``discrank.solvers._optim``). Much below 1e-7 it may be out of reach (the line search's objective
        values round off), and the fit ends with a ``ConvergenceWarning``.
    max_iter : int
        Per component: most L-BFGS iterations of the joint solver, or most rounds of the alternation.
    random_state : int, numpy Generator or None
        Seed of the initialisation.
    n_jobs : int, optional
        Threads of the compiled core, scikit-learn's meaning; the result does not depend on it.

    Attributes
    ----------
    u_, v_ : ndarray, shape (n_players, n_components)
        The components, each with ``|u_l| = |v_l|`` (a rescaling that keeps every prediction) but a
        regularised first component, whose scale the regulariser sets.
    labels_ : ndarray
    n_iter_ : ndarray of int, shape (n_components,)
        Iterations run for each component (joint L-BFGS iterations plus the warm-start round, or rounds).
    converged_ : bool
        Whether every component met ``tol`` (a ``ConvergenceWarning`` is raised otherwise); False when
        ``separated_``.
    separated_ : bool or None
        With ``prior_scale=inf`` and ``loss="bce"``: whether the results alone have no finite optimum
        (a ``SeparationWarning`` says why); None with a finite prior, which always has one.
    grad_measure_ : ndarray, shape (n_components,)
        Final stopping measure of each component.
    loss_ : float
        Final objective (weighted mean loss over the observed pairs, without the penalties).
    transitive_ : bool
        Proposition 1 for the first component: the origin outside the hull of the points (u_i1, v_i1).
    strength_, consistency_ : ndarray or None
        Proposition 2, when the first component is transitive: ``v_i1 u_j1 - ... = c_i c_j (s_i - s_j)``
        with ``c > 0`` (see :func:`discrank.models.analysis.reparametrize`); None when it is cyclic.
    ranking_ : ndarray or None
        Labels by decreasing strength (transitive only).
    angle_, radius_ : ndarray
        Polar coordinates of (u_i1, v_i1), the reading of a cyclic component.
    beta_, beta_se_ : ndarray of shape (n_covariates,), or None
        With ``loss="bce"`` on a :class:`~discrank.GameLog` with advantage columns: ``logit P = sum_l u_il v_jl
        - v_il u_jl + beta . x``, ``beta`` (the weak prior of :data:`discrank.data._advantage.BETA_PRIOR_SCALE`)
        fitted by block coordinate descent (Algorithm 2 at a fixed offset, then Newton's method on ``beta``)
        until its scaled gradient meets ``tol``; ``beta_se_`` its standard error *given* the components
        (smaller than the joint one). None without covariates.
    advantage_names_ : tuple of str
        The covariates' names (empty without).
    draw_eta_, draw_eta_se_ : float or None
        With a draw model: ``eta`` (Davidson's ``log nu``, Rao and Kupper's threshold) and its standard error
        *given* the components, as ``beta_se_``. None without.
    """

    @stores_params
    def __init__(
        self,
        n_components: int = 1,
        loss: str = "bce",
        *,
        prior_scale: Optional[float] = None,
        regularization: float = 0.0,
        draws: Optional[str] = None,
        solver: str = "joint",
        tol: float = 1e-6,
        max_iter: int = 2000,
        random_state: Any = None,
        n_jobs: Optional[int] = None,
    ):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    _tile_pairs = True  # hundreds of objective calls: the pairs in tile order (discrank.solvers._fitdata)
    _fitted_arrays = DISC_ARRAYS
    _fitted_scalars = ("n_players_", "converged_", "loss_", "transitive_", "prior_scale_", "draw_eta_",
                       "draw_eta_se_")
    _choices = {"loss": DISC_LOSSES, "solver": SOLVERS, "draws": DRAWS}
    _optional_params = ("draws",)
    draw_models = DRAWS
    #: Why the class fits no draw model, when it declares none (:func:`discrank.solvers._draws.check_draw_model`).
    _no_draws_reason = ""
    _has_prior = True
    #: How the prior scale is searched (discrank.solvers._tuning): the walk, then a probe of a large scale, as the
    #: validation score of a disc model can have two basins (an Elo-like fit at small scales, the cyclic
    #: structure at large ones).
    _scale_search = "probe"
    #: Prior mean of the first component's v: 1, an Elo game (Appendix B.2's (v - 1)^2); later ones 0.
    _first_v_centre = 1.0

    @property
    def _loss(self) -> str:  # type: ignore[override]
        return self.loss

    def _validate_params(self, data: PairwiseData) -> None:
        super()._validate_params(data)
        check_one_of(self.loss, "loss", DISC_LOSSES)
        check_one_of(self.solver, "solver", SOLVERS)
        check_params(self, ("regularization", "n_components", "prior_scale"))
        check_n_components(self.n_components, data.n_players)
        if check_draw_model(self, self._no_draws_reason) is not None:
            self._check_draw_fit(data)

    def _check_draw_fit(self, data: PairwiseData) -> None:
        """What a draw model's fit needs beyond its parameters: the likelihood loss, no advantage columns, and
        draw counts with draws and other results (a ValueError names the model and says why)."""
        name = f"{type(self).__name__}(draws={self.draws!r})"
        if self.loss != "bce":
            raise ValueError(f"{name} fits the three-outcome likelihood in logit space; loss={self.loss!r} is no "
                             "likelihood of wins, draws and losses: use loss='bce'")
        if data.covariates is not None:
            raise ValueError(f"{name} takes no advantage columns yet (here {', '.join(map(repr, data.covariates.names))}): "
                             "its covariates' Newton step (models/_covariates.py) is written for two outcomes; fit "
                             "a GameLog without them, or use Elo(draws=...), which fits both")
        check_draw_data(self, data)

    def _fit(self, data: FitData, plan: FitPlan) -> None:
        """Algorithm 2: the components one after another, each by ``solver`` on top of the previous ones,
        from ``plan.warm_start`` where it holds live components. A tuning fit (``plan.tuning``) runs to the
        plan's tolerance, at most ``TUNING_MAX_ITER`` iterations per component."""
        objective, w, piece = data.objective, data.w, data.piece
        n, k = data.n_players, int(self.n_components)
        self._base = self._base_ratings(data, plan.scale)
        offset = None if self._base is None else self._base[data.i] - self._base[data.j]
        # Algorithm 1 adds the penalties with weight 1, and Appendix B.2 its regulariser with weight
        # lambda / 2, to the paper's double sum over (i, j) and (j, i). That sum is 2 W times our weighted
        # mean (W the total pair weight), so here they weigh 1 / (2 W) and lambda / (4 W).
        total_weight = data.total_weight
        pen_weight = 1.0 / (2.0 * total_weight)
        reg_weight = float(self.regularization) / (4.0 * total_weight)
        # Gaussian priors on every u and v (against the negative log-likelihood, the objective times W)
        sigma = plan.scale
        prior_weight = 0.0 if sigma == np.inf else 1.0 / (sigma * sigma * total_weight)
        self.prior_scale_ = float(sigma)
        tol = max(self.tol, plan.tol) if plan.tuning else self.tol
        warm = plan.warm_start
        start = None
        if warm is not None:
            start = (map_rows(warm[0], warm[1], data.labels, lambda m: np.zeros((m, warm[1].shape[1]))),
                     map_rows(warm[0], warm[2], data.labels, lambda m: np.zeros((m, warm[2].shape[1]))))
        max_iter = min(int(self.max_iter), TUNING_MAX_ITER) if plan.tuning else int(self.max_iter)
        args = (objective, w, piece, n, k, total_weight, pen_weight, reg_weight, prior_weight, tol, max_iter,
                self._draw_problem(data))
        covariates_converged = True
        if data.x is None:
            U, V, n_iter, measures = self._components(data, offset, start, *args)
        else:
            from discrank.models._covariates import alternate, beta_hessian, beta_prior, row_curvature

            last = {}

            def fit_at(extra):
                both = (extra if np.any(extra) else None) if offset is None else offset + extra
                last["fit"] = self._components(data, both, last["fit"][:2] if last else start, *args)

            def scores():
                return _core.scores(data.i, data.j, n, U=last["fit"][0], V=last["fit"][1], n_threads=self._n_threads)

            prec = beta_prior(data.x, data.w, total_weight)
            fit = alternate(fit_at, scores, data.x, data.p, data.w, prec, tol, type(self).__name__)
            U, V, n_iter, measures = last["fit"]
            self.beta_ = fit.beta
            H = (beta_hessian(row_curvature(fit.scores + data.x @ fit.beta, data.w), data.x) + np.diag(prec)) \
                * float(total_weight)
            try:
                self.beta_se_ = np.sqrt(np.clip(np.diag(np.linalg.inv(H)), 0.0, None))
            except np.linalg.LinAlgError:
                self.beta_se_ = np.full(fit.beta.shape, np.inf)
            covariates_converged = fit.converged

        self.u_, self.v_ = U, V
        self.n_iter_ = n_iter
        self.grad_measure_ = measures
        self.converged_ = bool(np.all(measures <= tol)) and covariates_converged
        if self._base is None:
            self._describe_first_component()
        self.separated_ = None
        if sigma == np.inf and self.loss == "bce":
            self.separated_ = self._warn_separation(data)
            if self.separated_:
                self.converged_ = False  # a point where the gradient vanishes numerically, not an optimum
                return
        if not self.converged_:
            scale = max(np.abs(U).max(), np.abs(V).max())
            stopped = ("in max_iter=" + str(self.max_iter) + " iterations" if np.any(n_iter > int(self.max_iter))
                       else "(the line search made no progress)")
            warnings.warn(
                f"{type(self).__name__} did not converge {stopped}: final scaled "
                f"gradients {measures.tolist()} for tol={tol}; the largest |u|, |v| is {scale:.3g}"
                + (" (growing parameters: some players' results are perfectly separated; use regularization, "
                   "fewer components or min_games)" if scale > 50 else ""),
                ConvergenceWarning,
                stacklevel=3,
            )

    def _components(self, data, offset, start, objective, w, piece, n, k, total_weight, pen_weight, reg_weight,
                    prior_weight, tol, max_iter, draw=None):
        """Algorithm 2's loop at a fixed per-entry ``offset`` (or None), each component from ``start``
        ``(U0, V0)`` where it holds a live one, each to ``tol`` in at most ``max_iter`` iterations:
        ``(U, V, n_iter, measures)``; sets ``loss_`` and ``draw_eta_`` and ``draw_eta_se_`` (with a ``draw``
        model, :meth:`_draw_problem`: the draw parameter, fitted with each component from the previous
        one's)."""
        self.draw_eta_ = None if draw is None else draw[2]
        self.draw_eta_se_ = None
        rng = np.random.default_rng(self.random_state)
        U = np.zeros((n, k))
        V = np.zeros((n, k))
        if start is not None:
            U0, V0 = start
        n_iter = np.zeros(k, dtype=int)
        measures = np.zeros(k)
        for comp in range(k):
            Q = unit_columns([U[:, m] for m in range(comp)] + [V[:, m] for m in range(comp)])
            centre = self._first_v_centre if comp == 0 else 0.0
            problem = Component(objective, LOSSES[self.loss], n, w, offset, Q, pen_weight, self._n_threads,
                                 reg_weight if comp == 0 else 0.0, prior_weight, centre,
                                 None if draw is None else draw[:2])
            if draw is not None:
                problem.eta = self.draw_eta_
            v = 1.0 + INIT_NOISE * rng.standard_normal(n) if comp == 0 else problem.project(rng.standard_normal(n))
            u = np.zeros(n)
            if start is not None and comp < U0.shape[1] and is_live(U0[:, comp], V0[:, comp]):
                # (a component the prior collapsed to 0 is no start: the joint solver would sit at that saddle)
                u = np.ascontiguousarray(problem.project(U0[:, comp]))
                v = np.ascontiguousarray(problem.project(V0[:, comp]))
            elif comp == 0 and offset is None and self.loss == "bce":
                # with v = 1 the score u_i v_j - v_i u_j is the Elo score u_i - u_j
                total, scored, _ = data.score_sums()
                u = logit_mean_score(total, scored, piece)
            fit = alternate_blocks if self.solver == "alternating" else alternate_then_joint
            u, v, n_iter[comp], measures[comp] = fit(problem, u, v, tol, max_iter)
            if draw is not None:
                self.draw_eta_ = float(problem.eta)
            if comp + 1 == k and draw is not None:  # one pass: the loss and eta's curvature at the answer
                self.loss_ = float(problem.loss(u, v, False, False)[0])
                self.draw_eta_se_ = float(1.0 / np.sqrt(problem.eta_second_derivative() * float(total_weight)))
            elif comp + 1 == k:  # with the earlier components as the offset: the model's loss
                self.loss_ = problem.loss_at(u, v)
            # (u, v) -> (a u, v / a) keeps every prediction; |u| = |v| makes a symmetric disc game a circle.
            u, v = problem.balance(u, v, set_weight=False)
            U[:, comp], V[:, comp] = u, v
            if comp + 1 < k:  # the next component fits on top of this one's scores
                contribution = _core.scores(data.i, data.j, n, U=u.reshape(n, 1), V=v.reshape(n, 1),
                                            n_threads=self._n_threads)
                offset = contribution if offset is None else offset + contribution
        return U, V, n_iter, measures

    def _draw_problem(self, data: FitData) -> Optional[tuple]:
        """The draw model of the fit: (its core id, the entries' draw shares in the objective's order, the
        start of the draw parameter: the one that gives a game of logit 0 the data's draw rate); None
        without one."""
        if self.draws is None:
            return None
        if not isinstance(data.objective, _core.PairObjective):
            raise ValueError(f"{type(self).__name__}(draws={self.draws!r}) is not fitted on a Dask cluster yet: the "
                             "workers' objective has no draw model; fit it with model.fit")
        share = np.ascontiguousarray(data.draws / data.n_games, dtype=np.float64)
        return DRAW_IDS[self.draws], share, draw_start(self.draws, float(data.w @ share))

    def _warm_state(self):
        return (self.labels_, self.u_, self.v_)

    def _takes_covariates(self) -> bool:
        return self.loss == "bce"

    def _warn_separation(self, data: FitData) -> bool:
        """Maximum likelihood in logit space (``prior_scale=inf``): whether the results alone have no
        finite optimum, with a ``SeparationWarning`` when so.

        Two ways: the results separate the players as they do for Elo (a player or a group that never
        loses, or never wins, against the others: Elo is the disc model with v = 1, so its infinite
        ratings are the disc model's too); or the fit reproduces decided results (0 or 1) with scores
        beyond SATURATED logits, as a perfectly cyclic log (a beats b beats c beats a, every game) is fitted
        by a disc game whose radius grows without end.
        """
        n, piece = data.n_players, data.piece
        _, scored, conceded = data.score_sums()
        n_strong, strong = _core.beat_pieces(n, data.i, data.j, data.p)
        separates = one_sided(piece, scored, conceded) or n_strong > data.n_pieces
        scores = _core.scores(data.i, data.j, n, U=self.u_, V=self.v_, n_threads=self._n_threads)
        decided = (data.p == 0.0) | (data.p == 1.0)
        saturated = decided & (np.abs(scores) > SATURATED)
        if not (separates or saturated.any()):
            return False
        if separates:
            why = (f"the results separate the players: some players or groups never lose (or never win) against "
                   f"the others (e.g. {', '.join(separated_examples(data.pairs, strong))})")
        else:
            k = int(np.flatnonzero(saturated)[0])
            why = (f"the fit reproduces decided results with scores beyond {SATURATED:g} logits (e.g. "
                   f"{show(data.labels[data.i[k]])} against {show(data.labels[data.j[k]])}: {scores[k]:.3g})")
        scale = max(np.abs(self.u_).max(), np.abs(self.v_).max())
        warnings.warn(
            f"{why}, so the maximum-likelihood {type(self).__name__} has no finite answer: its factors grow "
            f"until the solver stops (here |u|, |v| up to {scale:.3g}), and converged_ is False. The default "
            "prior_scale=None (or any finite prior_scale) gives a finite answer",
            SeparationWarning,
            stacklevel=4,
        )
        return True

    def _base_ratings(self, data: FitData, sigma: float) -> Optional[np.ndarray]:
        """Fixed per-player scores added to every component's score, at the prior scale ``sigma`` (none for
        the disc decomposition)."""
        return None

    def _factors(self) -> dict[str, np.ndarray]:
        factors = {"U": self.u_, "V": self.v_}
        if self._base is not None:
            factors["s"] = self._base
        return factors

    def _rebuild(self) -> None:
        """No fixed per-player scores; the reading of the first component (Propositions 1 and 2); the draw
        parameter (None in a file of a model without a draw model)."""
        self._base = None
        for name in ("draw_eta_", "draw_eta_se_"):
            if not hasattr(self, name):
                setattr(self, name, None)
        if (self.draws is None) != (self.draw_eta_ is None):
            raise ValueError(f"scalars.draw_eta_ is {self.draw_eta_!r} but params.draws is {self.draws!r}: a model "
                             "has a draw parameter exactly when it has a draw model")
        self._describe_first_component()


class MElo(DiscDecomposition):
    """m-Elo of Balduzzi et al. (2018), as the paper's appendix writes it.

    ``P(i beats j) = clip(1/2 + (Pbar_i - Pbar_j) + sum_l u_il v_jl - v_il u_jl, 0, 1)``: the disc
    components are fitted in probability space (``1/2 (y - 1/2 - A)^2``) to the target
    ``P_ij - (Pbar_i - Pbar_j)``, ``Pbar_i`` player i's mean observed score weighted by the pair weights
    (the paper's ``1/n sum_j P_ij`` but for its diagonal term). ``(2k + 1) n`` parameters.

    With a finite prior scale ``s`` (tuned by default), ``Pbar_i`` is its posterior mean under a N(1/2, s^2)
    prior: the mean score with ``1 / (4 s^2)`` drawn games added, so that a player seen in one game has no
    transitive part of +-1/2 (a certain prediction under the clipped link). ``prior_scale=inf`` is the
    paper's m-Elo.

    Parameters are those of :class:`DiscDecomposition` but ``loss`` (always ``"probability"``) and
    ``regularization``; ``draws`` is only None (the squared error is no likelihood of three outcomes).

    Attributes
    ----------
    ratings_ : ndarray, shape (n_players,)
        ``Pbar_i - 1/2``, the transitive part (the posterior mean score with a finite prior).
    u_, v_ : ndarray, shape (n_players, n_components)
        The cyclic part.
    """

    _first_v_centre = 0.0  # the transitive part is Pbar: every component is a cyclic one, centred at 0
    _fitted_arrays = DISC_ARRAYS + (
        FittedArray("_base", ("n",), bound=0.5, bound_text="outside [-0.5, 0.5] (a mean score minus 1/2)"),
    )

    @stores_params
    def __init__(
        self,
        n_components: int = 1,
        *,
        prior_scale: Optional[float] = None,
        draws: Optional[str] = None,
        solver: str = "joint",
        tol: float = 1e-6,
        max_iter: int = 2000,
        random_state: Any = None,
        n_jobs: Optional[int] = None,
    ):
        """The parameters, stored as they are (:func:`~discrank.models._base.stores_params`)."""

    #: Fixed, no parameters of m-Elo: the loss of Eq. (3), the squared error in probability space, and no
    #: regularisation.
    loss, regularization = "probability", 0.0
    draw_models = ()
    _choices = {**DiscDecomposition._choices, "draws": ()}
    _no_draws_reason = ("its loss, the squared error 1/2 (P - 1/2 - A)^2 in probability space, is no likelihood of "
                        "three outcomes (win, draw, loss), so there is no draw parameter to fit")

    def _base_ratings(self, data: FitData, sigma: float) -> np.ndarray:
        n, w = data.n_players, data.w
        score = np.bincount(data.i, w * data.p, n) + np.bincount(data.j, w * (1.0 - data.p), n)
        total = np.bincount(data.i, w, n) + np.bincount(data.j, w, n)
        if sigma is not None and sigma != np.inf:
            # the posterior mean of Pbar_i under a N(1/2, sigma^2) prior, each game's score having
            # variance at most 1/4: the mean score with 1 / (4 sigma^2) draws added (in the units of
            # w, which the fit normalises: a game weighs sum(w) / (number of games))
            pseudo = w.sum() / data.total_weight / (4.0 * sigma * sigma)
            score, total = score + 0.5 * pseudo, total + pseudo
        pbar = np.divide(score, total, out=np.full(n, 0.5), where=total > 0)
        self.ratings_ = pbar - 0.5
        return self.ratings_

    def _rebuild(self) -> None:
        """``ratings_``, the transitive part, is the fixed per-player score ``_base``."""
        self.ratings_ = self._base

    def _sort_key(self) -> np.ndarray:
        """The transitive part ``ratings_`` (the mean score minus 1/2)."""
        return self.ratings_

    def _rating_columns(self) -> dict[str, np.ndarray]:
        return {"rating": self.ratings_, **super()._rating_columns()}
