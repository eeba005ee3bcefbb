"""The matrix of issue 32: every estimator against every surface, through the public API only.

Each cell of :data:`EXPECTED` is either ``YES`` (the surface serves the model; the cell checks its result
exactly) or a :class:`No` (the surface refuses the model with the documented error, whose type and message
fragment the cell asserts). A cell in :data:`BUGS` does not do what :data:`EXPECTED` says yet: it runs as
``xfail(strict=True)``, so it fails the day the bug is fixed and its entry must go. The table under "What
each model serves" in docs/models.md is rendered from these two dicts (:func:`table_rows`) and
``test_the_docs_table_is_the_matrix`` holds the page to them, cell for cell.

Every cell runs on one small seeded league (10 players, 360 games over 12 periods of numeric times, about
a fifth of them draws); the advantage cell on the same league with a ``home`` column that is worth 0.4
logits. The hyperparameters are fixed (no tuning), so that a fit on any surface is the same fit.
"""

import contextlib
import io
import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pytest

import discrank.online
from discrank import (DiscDecomposition, DiscDecompositionCV, DynamicElo, Elo, EloPlusPlus, GameLog, MElo, OnlineDisc,
                      PeriodGames, SchurDecomposition, UnknownPlayerError, bootstrap, evaluate, load)
from discrank.cli import main
from discrank.exceptions import UnusedColumnWarning
from discrank.online import OnlineElo

pd = pytest.importorskip("pandas")

DOC = Path(__file__).resolve().parents[1] / "docs" / "models.md"
SECTION = "## What each model serves"
PERIOD = 1.0  # the time step of the dynamic models and of PeriodGames: one period per time unit
CUTOFF = 9.0  # evaluate: train on periods 0-8, test on 9-11


# ------------------------------------------------------------------ the rows: every estimator
@dataclass(frozen=True)
class Spec:
    """One row: the estimator, the ``discrank fit`` options that build the same one, and the tolerance
    of ``dask.fit`` against the in-process fit (test_dask.py's)."""

    make: Callable
    cli: tuple
    cli_make: Optional[Callable] = None  # what ``cli`` builds, where the CLI cannot set make's parameters
    dask_atol: float = 0.0  # bit for bit up to 16 parts (stationary models); Newton's rounding (dynamic)

    def cli_model(self):
        return (self.cli_make or self.make)()


MODELS = {
    "Elo": Spec(lambda: Elo(prior_scale=1.0), ("--model", "elo", "--prior-scale", "1")),
    'Elo(draws="davidson")': Spec(lambda: Elo(prior_scale=1.0, draws="davidson"),
                                  ("--model", "elo", "--prior-scale", "1", "--draws", "davidson")),
    "EloPlusPlus": Spec(lambda: EloPlusPlus(prior_scale=1.0), ("--model", "elo++", "--prior-scale", "1")),
    "MElo": Spec(lambda: MElo(1, prior_scale=1.0, random_state=0), ("--model", "melo", "--prior-scale", "1")),
    "DiscDecomposition": Spec(lambda: DiscDecomposition(1, prior_scale=1.0, random_state=0),
                              ("--model", "disc", "--prior-scale", "1")),
    'DiscDecomposition(draws="davidson")': Spec(
        lambda: DiscDecomposition(1, prior_scale=1.0, random_state=0, draws="davidson"),
        ("--model", "disc", "--prior-scale", "1", "--draws", "davidson")),
    "DiscDecompositionCV": Spec(
        lambda: DiscDecompositionCV(regularizations=(0.0, 1.0), cv=2, prior_scale=1.0, random_state=0),
        ("--model", "disc", "--prior-scale", "1", "--regularization", "cv"),
        cli_make=lambda: DiscDecompositionCV(prior_scale=1.0, random_state=0)),
    "SchurDecomposition": Spec(lambda: SchurDecomposition(1), ("--model", "schur")),
    "DynamicElo": Spec(lambda: DynamicElo(period=PERIOD, drift=0.1, prior_scale=1.0, variance_scale=1.0),
                       ("--model", "dynamic", "--period", "1", "--drift", "0.1", "--prior-scale", "1",
                        "--variance-scale", "1"),
                       dask_atol=1e-7),
    'DynamicElo(draws="davidson")': Spec(
        lambda: DynamicElo(period=PERIOD, drift=0.1, prior_scale=1.0, variance_scale=1.0, draws="davidson"),
        ("--model", "dynamic", "--period", "1", "--drift", "0.1", "--prior-scale", "1", "--variance-scale", "1",
         "--draws", "davidson"),
        dask_atol=1e-7),
    'DynamicElo(draws="davidson", draw_propensity_scale=0.5)': Spec(
        lambda: DynamicElo(period=PERIOD, drift=0.1, prior_scale=1.0, variance_scale=1.0, draws="davidson",
                           draw_propensity_scale=0.5),
        ("--model", "dynamic", "--period", "1", "--drift", "0.1", "--prior-scale", "1", "--variance-scale", "1",
         "--draws", "davidson", "--draw-propensity-scale", "0.5"),
        dask_atol=1e-7),
    "OnlineElo": Spec(lambda: OnlineElo(step=0.1), ("--model", "online", "--step", "0.1")),
    "OnlineDisc": Spec(lambda: OnlineDisc(step=0.1), ("--model", "online-disc", "--step", "0.1")),
}

# ------------------------------------------------------------------ the columns: every surface
SURFACES = ("GameLog", "PairwiseData", "PeriodGames", "advantage column", "context column", "margin column",
            "format column", "predict_proba", "predict_games", "predict_outcomes", "predict in contexts",
            "predict_proba in contexts",
            "evaluate frozen", "evaluate online", "bootstrap", "save / load", "CLI fit", "CLI predict",
            "CLI predict in contexts", "CLI info", "CLI plot", "dask.fit GameLog", "dask.fit PairwiseData")


class CliRefusal(Exception):
    """``discrank`` exited with status 2 (a refusal); the message is its stderr."""


@dataclass(frozen=True)
class No:
    """A refusing cell: why (the table's text), and the error (or warning) and message fragment it raises."""

    why: str
    error: tuple
    match: str

    def text(self) -> str:
        return f"no: {self.why}"


YES = "yes"

_PAIRS_LOST = "a PairwiseData has summed its games over time"
_TIMES = No(_PAIRS_LOST, (TypeError,), r"DynamicElo\.fit expects a discrank\.GameLog or discrank\.PeriodGames, "
                                        r"got PairwiseData: a PairwiseData has summed its games over time")
_DASK_TIMES = No("fitted on games with their times, not pairs", (TypeError,),
                 r"DynamicElo fits games with their times: give a GameLog, PeriodGames")
_ONLINE_ORDER = "rates the games one by one in time order, which {} have lost"
_DASK_NONE = "no pair kernel to spread over a cluster"
_NO_CONTEXT = No("its ratings hold across contexts: warns and ignores the column", (UserWarning,),
                 r"takes no contexts and ignores the log's context column")
_NO_MARGIN = No("fits the results alone: warns and ignores the columns", (UserWarning,),
                r"takes no margins and ignores the log's margin columns")
_NO_FORMAT = No("fits every format alike: warns and ignores the column", (UserWarning,),
                r"takes no match formats and ignores the log's match_format column")
_NO_CONTEXT_PREDICTED = No("predicts every context alike: warns and ignores the column", (UnusedColumnWarning,),
                           r"takes no contexts and ignores the games' context column")
_NO_CONTEXT_PROBA = No("its ratings hold across contexts: refuses context=", (ValueError,),
                       r"context= does not apply to \w+: it takes no contexts")
_NO_CONTEXT_CLI = No("fitted without contexts: refuses --context", (CliRefusal,),
                     r"--context does not apply to .*model\d+\.npz: its \w+ was fitted without contexts")
_DASK_DRAWS = No("the draw model is not fitted on a cluster yet", (ValueError,),
                 r"Elo\(draws='davidson'\) is not fitted on a Dask cluster yet")


def _row(**cells) -> dict:
    """A row of the matrix: every surface ``YES`` unless given (by its name, spaces and dots as ``_``), the
    context, margin and format columns refused unless given (only DynamicElo fits contexts, margins and formats),
    and the predictions in contexts with them."""
    keys = {re.sub(r"[ ./]+", "_", s): s for s in SURFACES}
    unknown = set(cells) - set(keys)
    assert not unknown, unknown
    refused_ = {"context_column": _NO_CONTEXT, "margin_column": _NO_MARGIN, "format_column": _NO_FORMAT,
                "predict_in_contexts": _NO_CONTEXT_PREDICTED, "predict_proba_in_contexts": _NO_CONTEXT_PROBA,
                "CLI_predict_in_contexts": _NO_CONTEXT_CLI}
    return {s: cells.get(k, refused_.get(k, YES)) for k, s in keys.items()}


#: The cells of a model that fits contexts, margins and formats, and predicts in contexts (DynamicElo).
_IN_CONTEXTS = dict(context_column=YES, margin_column=YES, format_column=YES, predict_in_contexts=YES,
                    predict_proba_in_contexts=YES, CLI_predict_in_contexts=YES)

#: What each surface does with each model: the one source of truth of the table in docs/models.md.
EXPECTED = {
    "Elo": _row(),
    'Elo(draws="davidson")': _row(dask_fit_GameLog=_DASK_DRAWS, dask_fit_PairwiseData=_DASK_DRAWS),
    "EloPlusPlus": _row(),
    "MElo": _row(advantage_column=No("fitted in probability space: warns and ignores the column", (UserWarning,),
                                     r"MElo\(loss='probability'\) takes no advantage covariates.*ignores the column "
                                     r"'home'")),
    "DiscDecomposition": _row(),
    'DiscDecomposition(draws="davidson")': _row(
        advantage_column=No("its draw model takes no advantage columns yet", (ValueError,),
                            r"DiscDecomposition\(draws='davidson'\) takes no advantage columns yet"),
        dask_fit_GameLog=No("the draw model is not fitted on a cluster yet", (ValueError,),
                            r"DiscDecomposition\(draws='davidson'\) is not fitted on a Dask cluster yet"),
        dask_fit_PairwiseData=No("the draw model is not fitted on a cluster yet", (ValueError,),
                                 r"DiscDecomposition\(draws='davidson'\) is not fitted on a Dask cluster yet")),
    "DiscDecompositionCV": _row(),
    "SchurDecomposition": _row(
        advantage_column=No("decomposes the payoff matrix: warns and ignores the column", (UserWarning,),
                            r"SchurDecomposition.*takes no advantage covariates.*'home'"),
        dask_fit_GameLog=No(f"a direct decomposition: {_DASK_NONE}", (TypeError, ValueError), "SchurDecomposition"),
        dask_fit_PairwiseData=No(f"a direct decomposition: {_DASK_NONE}", (TypeError, ValueError),
                                 "SchurDecomposition")),
    "DynamicElo": _row(PairwiseData=_TIMES, dask_fit_PairwiseData=_DASK_TIMES, **_IN_CONTEXTS),
    'DynamicElo(draws="davidson")': _row(PairwiseData=_TIMES, dask_fit_PairwiseData=_DASK_TIMES, **_IN_CONTEXTS),
    'DynamicElo(draws="davidson", draw_propensity_scale=0.5)': _row(
        PairwiseData=_TIMES, dask_fit_PairwiseData=_DASK_TIMES, **_IN_CONTEXTS),
    "OnlineElo": _row(
        PairwiseData=No(_ONLINE_ORDER.format("pairs"), (TypeError,),
                        r"OnlineElo\.fit expects a discrank\.GameLog, got PairwiseData: its update rates the games "
                        "one by one in time order"),
        PeriodGames=No(_ONLINE_ORDER.format("period sums"), (TypeError,),
                       r"OnlineElo\.fit expects a discrank\.GameLog, got PeriodGames: its update rates the games "
                       "one by one in time order"),
        advantage_column=No("Elo's online update cannot use it", (ValueError,),
                            r"OnlineElo\.fit: the log has the advantage column\(s\) 'home', which Elo's online "
                            "update cannot use"),
        dask_fit_GameLog=No(f"a sequential update: {_DASK_NONE}", (TypeError, ValueError), "OnlineElo"),
        dask_fit_PairwiseData=No(f"a sequential update: {_DASK_NONE}", (TypeError, ValueError), "OnlineElo")),
    "OnlineDisc": _row(
        PairwiseData=No(_ONLINE_ORDER.format("pairs"), (TypeError,),
                        r"OnlineDisc\.fit expects a discrank\.GameLog, got PairwiseData: its update rates the games "
                        "one by one in time order"),
        PeriodGames=No(_ONLINE_ORDER.format("period sums"), (TypeError,),
                       r"OnlineDisc\.fit expects a discrank\.GameLog, got PeriodGames: its update rates the games "
                       "one by one in time order"),
        advantage_column=No("the online disc update cannot use it", (ValueError,),
                            r"OnlineDisc\.fit: the log has the advantage column\(s\) 'home'"),
        dask_fit_GameLog=No(f"a sequential update: {_DASK_NONE}", (TypeError, ValueError), "OnlineDisc"),
        dask_fit_PairwiseData=No(f"a sequential update: {_DASK_NONE}", (TypeError, ValueError), "OnlineDisc")),
}

#: The cells that do not do what EXPECTED says yet (xfail, strict): what they do instead.
BUGS: dict = {}


def cell_text(name: str, surface: str) -> str:
    """The table's text of a cell: ``yes``, ``no: why``, or ``bug: what it does now``."""
    bug = BUGS.get((name, surface))
    if bug is not None:
        return f"bug: {bug}"
    cell = EXPECTED[name][surface]
    return cell if cell == YES else cell.text()


def table_rows() -> list:
    """The table of docs/models.md as rows of cells: the header, then one row per model."""
    return [["model", *SURFACES]] + [[f"`{name}`", *(cell_text(name, s) for s in SURFACES)] for name in MODELS]


# ------------------------------------------------------------------ the data
def league(home: bool = False, context: bool = False, margin: bool = False, match_format: bool = False) -> GameLog:
    """10 players of strengths -1.2 .. 1.2 logits, 360 games at times 0 .. 11, draws when the result falls
    within 0.1 of the win probability; with ``home``, a home column worth 0.4 logits; with ``context``, each game
    in context "x" or "y", where the players p00 .. p04 are 0.8 logits stronger in "x" and as much weaker in "y"
    (the others the other way round); with ``margin``, 10 points a game, those of ``a`` Binomial(10,
    sigmoid(d / 2)) for the game's logit d, the rest ``b``'s; with ``match_format``, each game a "bo3" or a "bo5"."""
    rng = np.random.default_rng(0)
    n, games = 10, 360
    strength = np.linspace(-1.2, 1.2, n)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    t = np.sort(rng.integers(0, 12, games)).astype(float)
    h = rng.choice([-1.0, 0.0, 1.0], games)
    c = np.random.default_rng(1).integers(0, 2, games)  # (a stream of its own: the league without is unchanged)
    effect = np.where(np.arange(n) < 5, 0.8, -0.8)[:, None] * np.array([1.0, -1.0])
    d = strength[a] - strength[b] + (0.4 * h if home else 0.0) + (effect[a, c] - effect[b, c] if context else 0.0)
    p = 1.0 / (1.0 + np.exp(-d))
    u = rng.random(games)
    y = np.where(u < p - 0.1, 1.0, np.where(u < p + 0.1, 0.5, 0.0))
    points = np.random.default_rng(2).binomial(10, 1.0 / (1.0 + np.exp(-0.5 * d)))  # (a stream of its own too)
    fmt = np.array(["bo3", "bo5"])[np.random.default_rng(3).integers(0, 2, games)]  # (and one more)
    labels = np.array([f"p{k:02d}" for k in range(n)], dtype=object)
    return GameLog.from_arrays(labels[a], labels[b], y, t, advantage={"home": h} if home else None,
                               context=np.array(["x", "y"])[c] if context else None,
                               margin=(points, 10 - points) if margin else None,
                               match_format=fmt if match_format else None)


LOG = league()
PLAYERS = np.unique(LOG.a.astype(str))
FIX_A, FIX_B = (PLAYERS[k].astype(object) for k in np.nonzero(~np.eye(PLAYERS.size, dtype=bool)))  # 90 fixtures


def fixtures(a=FIX_A, b=FIX_B) -> GameLog:
    """The fixtures ``a`` against ``b`` as a log at the league's last time (a dynamic model's last period)."""
    return GameLog.from_arrays(a, b, np.full(a.size, 0.5), np.full(a.size, LOG.time.max()))


#: The fixtures twice over, in the contexts "x" and "y" (:func:`in_contexts`).
CONTEXTS = np.repeat(np.array(["x", "y"]), FIX_A.size)
#: p00 .. p04 against p05 .. p09 (the players stronger in "x" against those stronger in "y"), in each context.
CROSS = np.tile([a < "p05" <= b for a, b in zip(FIX_A, FIX_B)], 2)


def in_contexts() -> GameLog:
    """The fixtures in each context (:data:`CONTEXTS`) at the league's last time."""
    a, b = np.concatenate([FIX_A, FIX_A]), np.concatenate([FIX_B, FIX_B])
    return GameLog.from_arrays(a, b, np.full(a.size, 0.5), np.full(a.size, LOG.time.max()), context=CONTEXTS)


def logit(p):
    return np.log(p / (1.0 - p))


_FITTED: dict = {}


def fitted(name: str):
    """The model of row ``name`` fitted on the league's GameLog (once per session)."""
    if name not in _FITTED:
        _FITTED[name] = MODELS[name].make().fit(LOG)
    return _FITTED[name]


def table(model):
    """The model's table of ratings by player: ``ratings_frame()``, or a frame of ``ratings_``."""
    frame = model.ratings_frame() if hasattr(model, "ratings_frame") else pd.DataFrame(
        {"player": model.labels_, "rating": model.ratings_})
    return frame.set_index("player")


def coin_beaten(model, log=LOG) -> float:
    """Mean cross-entropy of the expected score on ``log``'s games: below ln 2 = 0.693 (the coin's)."""
    p = np.clip(model.predict_games(log), 1e-12, 1.0 - 1e-12)
    y = log.score
    loss = float(-np.mean(y * np.log(p) + (1.0 - y) * np.log1p(-p)))
    assert loss < 0.6, loss  # every model fits the league's spread of strengths (0.55 - 0.57 measured)
    return loss


def same_predictions(got, ref, atol: float = 0.0) -> None:
    """``got`` predicts the league's games (and their outcomes) as ``ref`` does, to ``atol``."""
    np.testing.assert_allclose(got.predict_games(LOG), ref.predict_games(LOG), rtol=0, atol=atol)
    np.testing.assert_allclose(got.predict_outcomes(LOG), ref.predict_outcomes(LOG), rtol=0, atol=atol)


def train_test() -> tuple:
    """The league cut at :data:`CUTOFF`: the training games, the test window's games, and its mask."""
    mask = LOG.time >= CUTOFF
    part = lambda m: GameLog.from_arrays(LOG.a[m], LOG.b[m], LOG.score[m], LOG.time[m])  # noqa: E731
    return part(~mask), part(mask), mask


def cli(*argv) -> str:
    """Run ``discrank argv``: its stdout when it exits 0; a :class:`CliRefusal` with its stderr when it
    exits 2 (an error it names); any other status fails."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    if status == 2:
        raise CliRefusal(err.getvalue().strip())
    assert status == 0, err.getvalue()
    return out.getvalue()


@dataclass
class Context:
    """What a cell may need: a folder of its own, the league as CSV, the saved models, the Dask client."""

    tmp: Path
    shared: dict = field(default_factory=dict)
    request: object = None

    def games_csv(self) -> Path:
        return self.shared["csv"]

    def saved(self, name: str) -> Path:
        """The model file ``discrank fit --save`` writes for row ``name`` (once per module)."""
        if name not in self.shared:
            path = self.shared["dir"] / f"model{len(self.shared)}.npz"
            cli("fit", self.games_csv(), "--score", "score", "--time", "t", *MODELS[name].cli, "--save", path,
                "--quiet")
            self.shared[name] = path
        return self.shared[name]

    def client(self):
        return self.request.getfixturevalue("dask_client")


# ------------------------------------------------------------------ the cells, one function per surface
def fit_on_a_game_log(name: str, ctx: Context) -> None:
    model = MODELS[name].make().fit(LOG)
    assert sorted(map(str, model.labels_)) == list(PLAYERS)
    coin_beaten(model)


def fit_on_pairs(name: str, ctx: Context) -> None:
    data = LOG.to_pairs()
    model = MODELS[name].make().fit(data)
    # the log's pairs are all a stationary model reads of the log (the draws too): the same fit
    same_predictions(model, fitted(name))


def fit_on_period_sums(name: str, ctx: Context) -> None:
    model = MODELS[name].make().fit(PeriodGames.from_log(LOG, PERIOD))
    # a stationary model fits the sums over the periods, a dynamic one each period's: both the log's fit
    same_predictions(model, fitted(name), atol=1e-10 if isinstance(model, DynamicElo) else 0.0)


def fit_with_an_advantage_column(name: str, ctx: Context) -> None:
    log = league(home=True)
    model = MODELS[name].make().fit(log)
    assert tuple(model.advantage_names_) == ("home",)
    assert 0.3 < float(model.beta_[0]) < 0.8  # the league's home advantage is 0.4 logits
    at = lambda side: GameLog.from_arrays(FIX_A, FIX_B, np.full(FIX_A.size, 0.5),  # noqa: E731
                                          np.full(FIX_A.size, LOG.time.max()), advantage={"home": np.full(90, side)})
    assert (model.predict_games(at(1.0)) > model.predict_games(at(-1.0))).all()


def fit_with_a_context_column(name: str, ctx: Context) -> None:
    model = MODELS[name].make()
    if model.takes_context:
        model.set_params(context_scale=0.5)
    model.fit(league(context=True))
    assert list(model.context_labels_) == ["x", "y"] and model.context_effects_.shape == (PLAYERS.size, 2)
    at = lambda c: GameLog.from_arrays(FIX_A, FIX_B, np.full(FIX_A.size, 0.5),  # noqa: E731
                                       np.full(FIX_A.size, LOG.time.max()), context=np.full(FIX_A.size, c))
    e = model.context_effects_  # the players by label order: p00 .. p04 stronger in "x", the others in "y"
    assert (e[:5, 0] > e[:5, 1]).all() and (e[5:, 0] < e[5:, 1]).all()
    cross = np.array([a < "p05" <= b for a, b in zip(FIX_A, FIX_B)])  # p00 .. p04 against p05 .. p09
    logit = lambda p: np.log(p / (1.0 - p))  # noqa: E731
    # the league's gap between the two contexts is 3.2 logits for these fixtures, shrunk by the prior
    assert (logit(model.predict_games(at("x"))[cross]) - logit(model.predict_games(at("y"))[cross]) > 0.3).all()


def fit_with_a_margin_column(name: str, ctx: Context) -> None:
    model = MODELS[name].make()
    if model.takes_margin:
        model.set_params(margin_scale=0.5)
    log = league(margin=True)
    model.fit(log)
    coin_beaten(model, log)
    assert model.margin_scale_ == 0.5


def fit_with_a_format_column(name: str, ctx: Context) -> None:
    model = MODELS[name].make()
    if model.takes_format:
        model.set_params(format_scales={"bo3": 1.0, "bo5": 1.5})
    model.fit(league(match_format=True))
    assert sorted(model.format_labels_) == ["bo3", "bo5"] and list(model.format_scales_[model.format_labels_.argsort()]) \
        == [1.0, 1.5]
    at = lambda f: GameLog.from_arrays(FIX_A, FIX_B, np.full(FIX_A.size, 0.5),  # noqa: E731
                                       np.full(FIX_A.size, LOG.time.max()), match_format=np.full(FIX_A.size, f))
    logit = lambda p: np.log(p / (1.0 - p))  # noqa: E731
    # a best of five's logit is 1.5 times the best of three's, the forecasts' uncertainty scaled alike
    three, five = logit(model.predict_games(at("bo3"))), logit(model.predict_games(at("bo5")))
    assert (np.abs(five) > np.abs(three)).all() and (np.sign(five) == np.sign(three)).all()


def predict_proba(name: str, ctx: Context) -> None:
    model = fitted(name)
    p = model.predict_proba(FIX_A, FIX_B)
    assert p.shape == (90,) and ((p >= 0.0) & (p <= 1.0)).all()
    np.testing.assert_allclose(p + model.predict_proba(FIX_B, FIX_A), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(p, model.predict_games(fixtures()), rtol=0, atol=1e-12)
    assert model.predict_proba(FIX_A[0], FIX_B[0]) == pytest.approx(p[0], abs=1e-15)
    with pytest.raises(UnknownPlayerError, match=rf"'nobody': this {type(model).__name__} has not seen"):
        model.predict_proba("p00", "nobody")


def predict_games(name: str, ctx: Context) -> None:
    model = fitted(name)
    p = model.predict_games(LOG)
    outcomes = model.predict_outcomes(LOG)
    assert p.shape == (len(LOG),) and ((p >= 0.0) & (p <= 1.0)).all()
    np.testing.assert_allclose(p, outcomes[:, 0] + outcomes[:, 1] / 2, rtol=0, atol=1e-12)
    with pytest.raises(UnknownPlayerError, match="'nobody'"):
        model.predict_games(fixtures(np.array(["p00"], dtype=object), np.array(["nobody"], dtype=object)))


def predict_outcomes(name: str, ctx: Context) -> None:
    model = fitted(name)
    out = model.predict_outcomes(LOG)
    assert out.shape == (len(LOG), 3) and (out >= 0.0).all()
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    if model.predicts_draws:
        # the draw parameter's score equation at the fit: the predicted draws add up to the draws seen
        # (a dynamic model's predictions integrate over its ratings' uncertainty: 0.003 off, measured)
        atol = 0.01 if isinstance(model, DynamicElo) else 1e-6
        assert out[:, 1].mean() == pytest.approx(np.mean(LOG.score == 0.5), abs=atol)
    else:
        assert (out[:, 1] == 0.0).all()


def predict_in_contexts(name: str, ctx: Context) -> None:
    model = MODELS[name].make()
    if model.takes_context:  # fitted with contexts: it predicts by them
        model = model.set_params(context_scale=0.5).fit(league(context=True))
    else:  # (its fit on the league with contexts would warn first: the same fit as on the league)
        model = fitted(name)
    p = model.predict_games(in_contexts())
    np.testing.assert_allclose(p, model.predict_outcomes(in_contexts()) @ [1.0, 0.5, 0.0], rtol=0, atol=1e-12)
    x, y = logit(p[:FIX_A.size]), logit(p[FIX_A.size:])
    assert (x[CROSS[:FIX_A.size]] - y[CROSS[:FIX_A.size]] > 0.3).all()  # (3.2 logits in the league, shrunk)


def predict_proba_in_contexts(name: str, ctx: Context) -> None:
    """``predict_proba(a, b, context=)``: the forecast of the same games as a GameLog, in each context."""
    model = MODELS[name].make()
    if model.takes_context:
        model = model.set_params(context_scale=0.5).fit(league(context=True))
    else:
        model = fitted(name)
    games = in_contexts()
    p = model.predict_proba(games.a, games.b, context=games.context)  # (the last period: the fixtures')
    np.testing.assert_allclose(p, model.predict_games(games), rtol=0, atol=1e-12)
    x, y = logit(p[:FIX_A.size]), logit(p[FIX_A.size:])
    assert (x[CROSS[:FIX_A.size]] - y[CROSS[:FIX_A.size]] > 0.3).all()


def evaluate_frozen(name: str, ctx: Context) -> None:
    train, test, mask = train_test()
    ev = evaluate(MODELS[name].make(), LOG, cutoff=CUTOFF)
    key = ev.names[0]
    assert ev.n_games == mask.sum() and np.array_equal(ev.scores, LOG.score[mask])  # every player seen in training
    np.testing.assert_allclose(ev.predictions[key], MODELS[name].make().fit(train).predict_games(test), rtol=0,
                               atol=1e-12)
    assert (key in ev.outcomes) == fitted(name).predicts_draws
    assert math.isfinite(ev.summary()[0]["log_loss"])


def evaluate_online(name: str, ctx: Context) -> None:
    train, test, mask = train_test()
    ev = evaluate(MODELS[name].make(), LOG, cutoff=CUTOFF, protocol="online", refit=PERIOD)
    got = ev.predictions[ev.names[0]]
    assert ev.n_games == mask.sum() and np.array_equal(ev.scores, LOG.score[mask])
    frozen = MODELS[name].make().fit(train).predict_games(test)
    first = test.time == CUTOFF  # predicted from the training games alone, as under the frozen protocol
    np.testing.assert_allclose(got[first], frozen[first], rtol=0, atol=1e-12)
    assert np.abs(got[~first] - frozen[~first]).max() > 1e-3  # the later ones from the games since


def bootstrap_table(name: str, ctx: Context) -> None:
    result = bootstrap(MODELS[name].make(), LOG, n_boot=4, seed=0)
    frame = result.frame().set_index("player")
    ref = table(fitted(name))
    np.testing.assert_allclose(frame[result.column], ref.loc[frame.index, result.column], rtol=0, atol=1e-9)
    assert frame["rank_lo"].dtype.kind == frame["rank_hi"].dtype.kind == "i"
    assert ((frame["rank_lo"] <= frame["rank"]) & (frame["rank"] <= frame["rank_hi"])).all()
    assert frame["replicates"].between(1, 4).all()


def save_and_load(name: str, ctx: Context) -> None:
    model = fitted(name)
    model.save(ctx.tmp / "model.npz")
    loaded = load(ctx.tmp / "model.npz")
    same_predictions(loaded, model)  # bit for bit
    np.testing.assert_array_equal(loaded.predict_proba(FIX_A, FIX_B), model.predict_proba(FIX_A, FIX_B))


def cli_fit(name: str, ctx: Context) -> None:
    out = ctx.tmp / "ratings.csv"
    cli("fit", ctx.games_csv(), "--score", "score", "--time", "t", *MODELS[name].cli, "--out", out, "--quiet")
    got = pd.read_csv(out).set_index("player")
    ref = table(MODELS[name].cli_model().fit(LOG))
    assert set(ref.columns) <= set(got.columns) and list(got["rank"]) == list(range(1, PLAYERS.size + 1))
    pd.testing.assert_frame_equal(got[list(ref.columns)], ref.loc[got.index], check_dtype=False, check_exact=False,
                                  rtol=0, atol=1e-12)


def cli_predict(name: str, ctx: Context) -> None:
    path = ctx.saved(name)
    pairs, out = ctx.tmp / "pairs.csv", ctx.tmp / "predictions.csv"
    pd.DataFrame({"a": FIX_A, "b": FIX_B}).to_csv(pairs, index=False)
    cli("predict", path, "--pairs", pairs, "--out", out)
    got, model = pd.read_csv(out), load(path)
    if model.predicts_draws:
        ref = model.predict_outcomes(fixtures())
        np.testing.assert_allclose(got[["p_win", "p_draw", "p_loss"]].to_numpy(), ref, rtol=0, atol=1e-12)
    else:
        np.testing.assert_allclose(got["p"].to_numpy(), model.predict_proba(FIX_A, FIX_B), rtol=0, atol=1e-12)
    with pytest.raises(CliRefusal, match="unknown player 'nobody'"):
        cli("predict", path, "p00", "nobody")


def cli_predict_in_contexts(name: str, ctx: Context) -> None:
    if MODELS[name].make().takes_context:  # fitted with the contexts of the log's column surface
        path = ctx.tmp / "contexts.npz"
        cli("fit", ctx.shared["csv_contexts"], "--score", "score", "--time", "t", *MODELS[name].cli, "--context",
            "surface", "--context-scale", "0.5", "--save", path, "--quiet")
    else:
        path = ctx.saved(name)
    fixtures_csv, out = ctx.tmp / "fixtures.csv", ctx.tmp / "predictions.csv"
    games = in_contexts()
    pd.DataFrame({"a": games.a, "b": games.b, "surface": CONTEXTS}).to_csv(fixtures_csv, index=False)
    cli("predict", path, "--pairs", fixtures_csv, "--context", "surface", "--out", out)
    got, model = pd.read_csv(out), load(path)
    p = got["p_win"].to_numpy() + got["p_draw"].to_numpy() / 2 if model.predicts_draws else got["p"].to_numpy()
    if model.predicts_draws:
        np.testing.assert_allclose(got[["p_win", "p_draw", "p_loss"]].to_numpy(), model.predict_outcomes(games),
                                   rtol=0, atol=1e-12)
    np.testing.assert_allclose(p, model.predict_games(games), rtol=0, atol=1e-12)
    x, y = logit(p[:FIX_A.size]), logit(p[FIX_A.size:])
    assert (x[CROSS[:FIX_A.size]] - y[CROSS[:FIX_A.size]] > 0.3).all()  # clay is not hard


def cli_info(name: str, ctx: Context) -> None:
    path = ctx.saved(name)
    lines, model = cli("info", path).splitlines(), load(path)
    assert lines[0] == f"{type(model).__name__}, {PLAYERS.size} players, parameters {model.get_params()}"
    draws = [line.split() for line in lines if line.lstrip().startswith("draws:")]
    assert len(draws) == int(model.predicts_draws)
    if draws:
        assert draws[0][-1] == f"{model.draw_eta_se_:.4f}"
    scale = getattr(model, "prior_scale_", None)
    shown = [line.split()[2] for line in lines if line.split()[:2] == ["prior", "scale"]]
    assert shown == ([] if scale is None else [f"{scale:.4f}"])


def cli_plot(name: str, ctx: Context) -> None:
    image = pytest.importorskip("matplotlib.image")
    path = ctx.saved(name)
    png = ctx.tmp / "plot.png"
    players = ["--players", "p00", "p09"] if hasattr(load(path), "plot_history") else []
    assert cli("plot", path, "--out", png, *players) == f"wrote {png}\n"
    pixels = image.imread(png)
    assert pixels.ndim == 3 and min(pixels.shape[:2]) > 100


def _dask_fit(name: str, ctx: Context, data) -> None:
    ddk = pytest.importorskip("discrank.dask")
    got = ddk.fit(MODELS[name].make(), data, ctx.client(), n_parts=2)
    assert got.dask_calls_ > 0  # the kernel ran on the cluster
    same_predictions(got, fitted(name), atol=MODELS[name].dask_atol)


def dask_fit_log(name: str, ctx: Context) -> None:
    _dask_fit(name, ctx, LOG)


def dask_fit_pairs(name: str, ctx: Context) -> None:
    _dask_fit(name, ctx, LOG.to_pairs())


CELLS = dict(zip(SURFACES, (fit_on_a_game_log, fit_on_pairs, fit_on_period_sums, fit_with_an_advantage_column,
                            fit_with_a_context_column, fit_with_a_margin_column, fit_with_a_format_column, predict_proba,
                            predict_games, predict_outcomes, predict_in_contexts, predict_proba_in_contexts,
                            evaluate_frozen, evaluate_online,
                            bootstrap_table, save_and_load, cli_fit, cli_predict, cli_predict_in_contexts, cli_info,
                            cli_plot, dask_fit_log, dask_fit_pairs)))


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("matrix")
    csv = folder / "games.csv"
    pd.DataFrame({"a": LOG.a, "b": LOG.b, "score": LOG.score, "t": LOG.time}).to_csv(csv, index=False)
    contexts = league(context=True)
    pd.DataFrame({"a": contexts.a, "b": contexts.b, "score": contexts.score, "t": contexts.time,
                  "surface": contexts.context}).to_csv(folder / "contexts.csv", index=False)
    return {"csv": csv, "csv_contexts": folder / "contexts.csv", "dir": folder}


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    pytest.importorskip("dask.dataframe", reason="the [dask] extra is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster's start-up chatter is not ours
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                           dashboard_address=None, silence_logs=50)
        client = distributed.Client(cluster)
    yield client
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client.close()
        cluster.close()


@contextlib.contextmanager
def refused(cell: No):
    """The block raises ``cell``'s error (a warning of its kind raised as one) with its message fragment."""
    with warnings.catch_warnings():
        for kind in cell.error:
            if issubclass(kind, Warning):
                warnings.simplefilter("error", kind)
        with pytest.raises(cell.error, match=cell.match):
            yield


def _cells():
    for name in MODELS:
        for surface in SURFACES:
            bug = BUGS.get((name, surface))
            marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
            yield pytest.param(name, surface, marks=marks, id=re.sub(r"[^\w.+]+", "_", f"{name}-{surface}"))


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("name, surface", list(_cells()))
def test_each_cell_serves_or_refuses_as_the_matrix_says(name, surface, tmp_path, shared, request):
    ctx = Context(tmp_path, shared, request)
    cell = EXPECTED[name][surface]
    if cell == YES:
        CELLS[surface](name, ctx)
    else:
        with refused(cell):
            CELLS[surface](name, ctx)


def test_the_docs_table_is_the_matrix():
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text, f"{DOC} has no section {SECTION!r}"
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    lines = [line.strip() for line in body.splitlines() if line.strip().startswith("|")]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    rows = [r for r in rows if not all(set(c) <= set("-: ") for c in r)]  # the header's rule
    assert rows == table_rows()


def test_every_estimator_is_a_row_of_the_matrix():
    public = {getattr(module, n) for module in (discrank, discrank.online) for n in module.__all__}
    estimators = {c.__name__ for c in public if isinstance(c, type) and callable(getattr(c, "fit", None))
                  and callable(getattr(c, "predict_games", None))}
    rows = {type(spec.make()).__name__ for spec in MODELS.values()}
    assert estimators <= rows, (f"{sorted(estimators - rows)} have no row of the matrix: add each to MODELS and "
                                "EXPECTED, and its row to docs/models.md")
    assert rows <= estimators, f"{sorted(rows - estimators)} are rows of the matrix but no public estimator"


def test_every_cell_of_the_matrix_is_a_surface_of_every_row():
    assert list(EXPECTED) == list(MODELS) and all(list(row) == list(SURFACES) for row in EXPECTED.values())
    assert set(BUGS) <= {(n, s) for n in MODELS for s in SURFACES}
    assert all(isinstance(c, No) and c.error and c.match for row in EXPECTED.values() for c in row.values()
               if c != YES)
