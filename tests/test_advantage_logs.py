"""Advantage covariates on the way in: GameLog.from_arrays / from_frame / read_csv / read_parquet, the
invalid rows of a covariate, the filters and splits that keep the columns aligned, to_pairs's rows by value,
the command line's --advantage / --protocol / --refit / dynamic, and the bench's data sets."""

import csv
import gzip
import importlib.util
import lzma
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import discrank
from discrank import GameLog
from discrank.cli import main
from discrank.data.logs import INVALID_KINDS

from _data import DATA

A, B, S = ["p", "q", "r", "s"], ["q", "r", "s", "p"], [1.0, 0.0, 0.5, 1.0]


def log4(**kw):
    return GameLog.from_arrays(A, B, S, [1, 2, 3, 4], **kw)


# ------------------------------------------------------------------ from_arrays
def test_a_1d_array_is_one_column_named_x0_stored_as_float64():
    log = log4(advantage=np.array([1, 0, -1, 1], dtype=np.int32))
    assert log.advantage.dtype == np.float64 and log.advantage.shape == (4, 1)
    assert log.advantage[:, 0].tolist() == [1.0, 0.0, -1.0, 1.0]
    assert log.advantage_names == ("x0",)


def test_a_2d_array_names_its_columns_x0_x1():
    x = np.array([[1, 0], [0, 1], [-1, 0], [1, 1]])
    log = log4(advantage=x)
    assert log.advantage_names == ("x0", "x1")
    np.testing.assert_array_equal(log.advantage, x.astype(np.float64))


def test_a_dict_names_its_columns_in_order_and_bools_read_as_0_1():
    log = log4(advantage={"home": [True, False, True, True], "white": [1, 1, 1, 1]})
    assert log.advantage_names == ("home", "white")
    assert log.advantage.tolist() == [[1.0, 1.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0]]


def test_a_constant_nonzero_column_is_valid():
    # a = White in every game: x = 1 (the first-move advantage) is identifiable when players meet both ways
    log = log4(advantage={"white": np.ones(4)})
    assert log.advantage[:, 0].tolist() == [1.0, 1.0, 1.0, 1.0]


def test_no_advantage_leaves_the_fields_empty():
    log = log4()
    assert log.advantage is None and log.advantage_names == ()


@pytest.mark.parametrize("advantage, error, message", [
    ([1, np.nan, 0, 1], ValueError,
     "advantage column 'x0' has the value nan at row 1, which is not a finite number"),
    ({"home": [1, 0, 0, np.inf]}, ValueError,
     "advantage column 'home' has the value inf at row 3, which is not a finite number"),
    ({"home": [1, 0, -np.inf, 1]}, ValueError,
     "advantage column 'home' has the value -inf at row 2, which is not a finite number"),
    # (a fit on 1e300 failed with "LinAlgError: SVD did not converge", naming no column)
    ({"home": [1, 0, 1e300, 1]}, ValueError,
     "advantage column 'home' has the value 1e+300 at row 2, larger in magnitude than 1e+100: a fit sums the "
     "squares of a covariate over the games, which would overflow; rescale the column"),
    ([1, -1.5e100, 0, 1], ValueError, "advantage column 'x0' has the value -1.5e+100 at row 1, larger in magnitude"),
    ({"home": [1, "away", 0, 1]}, TypeError, "advantage column 'home' holds 'away' at row 1, which is not a number"),
    ({"home": np.array(["h", "a", "h", "a"])}, TypeError,
     "advantage column 'home' holds values of type <U1 (row 0: 'h'), not numbers"),
    ({"home": [1, None, 0, 1]}, ValueError, "advantage column 'home' is missing a value at row 1 (None)"),
    ({"home": [1, 0, 1]}, ValueError, "advantage column 'home' has 3 values, and the log has 4 games"),
    (np.ones((5, 2)), ValueError, "advantage has 5 rows, and the log has 4 games"),
    (np.ones((4, 2, 1)), ValueError, "advantage must be an array (n_games,) or (n_games, n_covariates), got shape "
                                     "(4, 2, 1)"),
    ({}, ValueError, "advantage has no column"),
    ({3: [1, 0, 1, 0]}, TypeError, "advantage column names must be non-empty text, got 3"),
    ([[1, 0], [0, 1], [1], [0, 0]], ValueError, "advantage is a list of rows of different lengths (row 0: [1, 0])"),
])
def test_bad_covariates_are_refused_naming_the_column_row_and_value(advantage, error, message):
    with pytest.raises(error, match=re.escape(message)):
        log4(advantage=advantage)


UNIDENTIFIABLE = [
    ({"neutral": [0, 0, 0, 0]},
     "advantage column 'neutral' is 0 in every game: it carries no information (its coefficient is not "
     "identifiable); leave it out"),
    ({"home": [1, 0, 1, 0], "host": [1, 0, 1, 0]},
     "advantage columns 'home' and 'host' are identical in every game: their coefficients are not identifiable"),
    ({"home": [1, 0, 1, 0], "away": [-1, 0, -1, 0]}, "advantage columns 'home' and 'away' are opposite in every game"),
]


@pytest.mark.parametrize("advantage, message", UNIDENTIFIABLE)
def test_a_log_holds_unidentifiable_columns_and_every_fit_refuses_them_naming_the_columns(advantage, message):
    # a log is not a fit: a week at neutral venues (a batch of updates, games to predict) is a valid log
    log = log4(advantage=advantage)
    assert log.advantage.shape == (4, len(advantage))
    for model in (discrank.Elo(prior_scale=1.0), discrank.EloPlusPlus(prior_scale=1.0),
                  discrank.DiscDecomposition(1, prior_scale=1.0, random_state=0),
                  discrank.DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0)):
        with pytest.raises(ValueError, match=re.escape(message)):
            model.fit(log)


def test_an_update_batch_at_neutral_venues_is_absorbed_by_the_dynamic_model():
    log = GameLog.from_arrays(["p", "q", "r", "p"], ["q", "r", "p", "r"], [1, 0, 1, 0], [1, 2, 3, 4],
                              advantage={"home": [1.0, -1.0, 1.0, 0.0]})
    model = discrank.DynamicElo(period=1.0, drift=0.1, prior_scale=1.0, variance_scale=1.0).fit(log)
    week = GameLog.from_arrays(["q"], ["p"], [1.0], [5], advantage={"home": [0.0]})
    model.update(week)
    assert len(model.games_) == 5 and model.games_.x[-1, 0] == 0.0 and model.converged_


# ------------------------------------------------------------------ the log's operations keep the columns
def test_filter_sort_split_and_take_keep_the_columns_aligned():
    t = [4, 1, 3, 2, 5, 6]
    x = np.array([[4.0, 0.0], [1.0, 1.0], [3.0, 0.0], [2.0, 1.0], [5.0, 1.0], [6.0, 0.0]])  # column 0 = the time
    log = GameLog.from_arrays(["p", "q", "r", "s", "p", "q"], ["q", "r", "s", "p", "r", "s"],
                              [1, 0, 1, 0, 1, 0], t, advantage={"t": x[:, 0], "home": x[:, 1]})
    srt = log.sorted_by_time()
    assert srt.advantage[:, 0].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert srt.advantage_names == ("t", "home")
    past, future = log.split_time(0.5)
    assert past.advantage[:, 0].tolist() == [1.0, 2.0, 3.0] and future.advantage[:, 0].tolist() == [4.0, 5.0, 6.0]
    assert future.advantage[:, 1].tolist() == [0.0, 1.0, 0.0]
    window = log.filter(start=2, end=5)
    assert window.time.tolist() == window.advantage[:, 0].tolist() == [4.0, 3.0, 2.0]
    busy = log.filter(min_player_games=3)  # p, q, r, s play 3 games each: all kept
    np.testing.assert_array_equal(busy.advantage, x)
    fewer = GameLog.from_arrays(["p", "q", "r", "z"], ["q", "r", "p", "p"], [1, 0, 1, 0], [1, 2, 3, 4],
                                advantage=[1, 2, 3, 4]).filter(min_player_games=2)  # z has one game
    assert fewer.advantage[:, 0].tolist() == [1.0, 2.0, 3.0]


def test_to_pairs_keeps_the_games_by_pair_and_covariate_value_oriented_for_the_first_player():
    # p-q twice (p at home, then q at home), q-p once with q at home: one pair (p, q), two rows
    log = GameLog.from_arrays(["p", "q", "q", "r"], ["q", "p", "p", "p"], [1.0, 1.0, 0.5, 0.0], [1, 2, 3, 4],
                              advantage={"home": [1, 1, 1, 0], "white": [1, 1, 0, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pairs = log.to_pairs()
    assert pairs.labels.tolist() == ["p", "q", "r"]
    assert list(zip(pairs.i.tolist(), pairs.j.tolist())) == [(0, 1), (0, 2)]
    np.testing.assert_allclose(pairs.n_games, [3, 1])
    np.testing.assert_allclose(pairs.p, [(1.0 + 0.0 + 0.5) / 3, 1.0])  # p's score against q; r lost to p
    rows = pairs.covariates
    assert rows.names == ("home", "white")
    assert rows.pair.tolist() == [0, 0, 0, 1]
    # rows sorted by pair then covariate value, x oriented for i: q at home is home = -1 for p
    np.testing.assert_allclose(rows.x, [[-1, -1], [-1, 0], [1, 1], [0, -1]])
    np.testing.assert_allclose(rows.p, [0.0, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(rows.n_games, [1, 1, 1, 1])
    assert "covariates=['home', 'white']" in repr(pairs)
    kept = pairs.subset(np.array([False, True]))
    assert kept.covariates.pair.tolist() == [0] and kept.covariates.x.tolist() == [[0.0, -1.0]]
    with pytest.raises(ValueError, match="min_games and labels are not available"):
        log.to_pairs(min_games=2)
    assert log4().to_pairs().covariates is None


# ------------------------------------------------------------------ frames and files
def frame():
    return pd.DataFrame({"a": ["p", "q", "r", "s", "p"], "b": ["q", "r", "s", "p", "r"], "s": [1, 0, 0.5, 1, 0],
                         "t": [1, 2, 3, 4, 5], "home": [True, False, True, True, False],
                         "level": [1.0, 2.0, 0.0, 3.0, 1.0]})


def test_from_frame_reads_one_column_or_several_with_bools_as_0_1():
    log = GameLog.from_frame(frame(), score="s", time="t", advantage="home")
    assert log.advantage_names == ("home",) and log.advantage[:, 0].tolist() == [1.0, 0.0, 1.0, 1.0, 0.0]
    log = GameLog.from_frame(frame(), score="s", advantage=["level", "home"])
    assert log.advantage_names == ("level", "home")
    assert log.advantage.tolist() == [[1.0, 1.0], [2.0, 0.0], [0.0, 1.0], [3.0, 1.0], [1.0, 0.0]]


def test_text_that_reads_as_a_number_is_that_number():
    df = frame().assign(level=["1", " 2.5", "0", "-1", "3"])
    assert GameLog.from_frame(df, score="s", advantage="level").advantage[:, 0].tolist() == [1.0, 2.5, 0.0, -1.0, 3.0]


@pytest.mark.parametrize("column, values, message", [
    ("home", [True, False, None, True, False],
     "column 'home' (an advantage covariate) has no value at row 2 (None): drop or fill the row"),
    ("level", [1.0, 2.0, 0.0, np.nan, 1.0],
     "column 'level' (an advantage covariate) has no value at row 3 (nan): drop or fill the row"),
    ("level", [1.0, np.inf, 0.0, 2.0, 1.0],
     "column 'level' (an advantage covariate): level[1] = inf is not a finite number at row 1"),
    ("level", ["1", "2", "x", "0", "1"],
     "column 'level' (an advantage covariate): level[2] = 'x' is not a finite number at row 2"),
    ("level", [1.0, 2.0, 0.0, 1e300, 1.0],
     "column 'level' (an advantage covariate): level[3] = 1e+300 is larger in magnitude than 1e+100 at row 3"),
    ("level", ["1", "-1e200", "0", "2", "1"],
     "column 'level' (an advantage covariate): level[1] = '-1e200' is larger in magnitude than 1e+100 at row 1"),
])
def test_an_invalid_covariate_row_is_raised_on_naming_the_column_and_row(column, values, message):
    df = frame().assign(**{column: values})
    with pytest.raises(ValueError, match=re.escape(message) + '.*invalid="drop"'):
        GameLog.from_frame(df, score="s", advantage=["home", "level"])


def test_dropped_covariate_rows_are_counted_by_kind_and_the_columns_stay_aligned():
    df = frame().assign(home=[True, None, True, True, False], level=[1.0, 2.0, "x", 3.0, 1.0])
    with pytest.warns(discrank.exceptions.InvalidRowsWarning) as caught:
        log = GameLog.from_frame(df, score="s", time="t", advantage=["home", "level"], invalid="drop")
    assert str(caught[0].message) == "dropped 2 of 5 rows: 1 missing covariate (row 1), 1 unparseable covariate (row 2)"
    assert log.dropped == {"missing covariate": 1, "unparseable covariate": 1}
    assert log.time.tolist() == [1, 4, 5]
    assert log.advantage.tolist() == [[1.0, 1.0], [1.0, 3.0], [0.0, 1.0]]
    assert {"missing covariate", "unparseable covariate"} <= set(INVALID_KINDS)


def test_a_row_invalid_for_its_result_counts_under_that_kind_only():
    df = frame().assign(s=[1, np.nan, 0.5, 1, 0], level=[1.0, np.nan, 0.0, 3.0, 1.0])
    with pytest.warns(discrank.exceptions.InvalidRowsWarning):
        log = GameLog.from_frame(df, score="s", advantage="level", invalid="drop")
    assert log.dropped == {"missing result": 1}
    assert log.advantage[:, 0].tolist() == [1.0, 0.0, 3.0, 1.0]


def test_reader_filters_keep_the_covariates_of_the_games_kept():
    df = pd.DataFrame({"a": ["p", "q", "r", "z", "p"], "b": ["q", "r", "p", "p", "q"], "s": [1, 0, 1, 0, 1],
                       "t": [1, 2, 3, 4, 5], "x": [1.0, 2.0, 3.0, 4.0, 5.0]})
    log = GameLog.from_frame(df, score="s", time="t", advantage="x", start=2, min_player_games=2)
    # the window keeps games 1..4; z has one game there, so game 3 goes
    assert log.advantage[:, 0].tolist() == [2.0, 3.0, 5.0] and log.time.tolist() == [2, 3, 5]


def test_a_column_that_is_0_in_every_kept_game_is_refused_by_the_fit_after_the_filters():
    df = frame().assign(level=[0.0, 0.0, 0.0, 0.0, 7.0])
    assert GameLog.from_frame(df, score="s", advantage="level").advantage[4, 0] == 7.0
    kept = GameLog.from_frame(df, score="s", time="t", advantage="level", end=5)
    assert kept.advantage[:, 0].tolist() == [0.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="advantage column 'level' is 0 in every game"):
        discrank.Elo(prior_scale=1.0).fit(kept)


@pytest.mark.parametrize("advantage, error, message", [
    ("venue", ValueError, "column 'venue' (for advantage) is not in the frame"),
    (["home", "home"], ValueError, "advantage names the column 'home' twice"),
    ([], ValueError, "advantage is an empty list"),
    (3, TypeError, "advantage must be a column name or a list of column names, got 3"),
    ("t2", TypeError, "column 't2' (for advantage) holds values of type datetime64["),
])
def test_bad_advantage_arguments_of_the_readers(advantage, error, message):
    df = frame().assign(t2=np.array(["2020-01-01"] * 5, dtype="datetime64[ns]"))
    with pytest.raises(error, match=re.escape(message)):
        GameLog.from_frame(df, score="s", advantage=advantage)


def test_read_csv_reads_true_false_as_1_0_and_drops_an_empty_covariate(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text("a,b,s,neutral\np,q,1,FALSE\nq,r,0,TRUE\nr,s,1,\ns,p,0.5,FALSE\n")
    with pytest.warns(discrank.exceptions.InvalidRowsWarning, match=re.escape("1 missing covariate (row 2)")):
        log = GameLog.read_csv(path, score="s", advantage="neutral", invalid="drop")
    assert log.dropped == {"missing covariate": 1}
    assert log.advantage[:, 0].tolist() == [0.0, 1.0, 0.0] and log.a.tolist() == ["p", "q", "s"]
    with pytest.raises(ValueError, match=re.escape("column 'neutral' (an advantage covariate) has no value at row 2")):
        GameLog.read_csv(path, score="s", advantage="neutral")


def test_read_parquet_reads_the_columns(tmp_path):
    pytest.importorskip("pyarrow", reason="reading Parquet needs pyarrow")
    path = tmp_path / "games.parquet"
    frame().to_parquet(path)
    log = GameLog.read_parquet(path, score="s", advantage=["home", "level"])
    assert log.advantage.tolist() == [[1.0, 1.0], [0.0, 2.0], [1.0, 0.0], [1.0, 3.0], [0.0, 1.0]]


# ------------------------------------------------------------------ command line
@pytest.fixture
def games_csv(tmp_path):
    path = tmp_path / "games.csv"
    rng = np.random.default_rng(0)
    n = 60
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    pd.DataFrame({"a": a, "b": b, "s": (rng.random(n) < 0.6).astype(float), "t": np.arange(n),
                  "home": np.arange(n) % 3 != 0, "neutral": (np.arange(n) % 3 == 0).astype(int)}).to_csv(path,
                                                                                                       index=False)
    return path


def test_fit_passes_the_advantage_columns_to_the_reader_and_the_model(games_csv, monkeypatch, capsys):
    import discrank.cli.fit as cli

    seen = []

    class Recording(discrank.Elo):
        def fit(self, data, **kw):
            seen.append(data)
            return super().fit(data, **kw)

    monkeypatch.setattr(cli, "build_model", lambda name, args: Recording())
    assert main(["fit", str(games_csv), "--score", "s", "--advantage", "home", "--advantage", "neutral",
                 "--quiet"]) == 0
    (data,) = seen
    assert isinstance(data, GameLog) and data.advantage_names == ("home", "neutral")
    expected = pd.read_csv(games_csv)
    np.testing.assert_array_equal(data.advantage, expected[["home", "neutral"]].to_numpy(dtype=np.float64))
    assert main(["fit", str(games_csv), "--score", "s", "--quiet"]) == 0
    assert not isinstance(seen[-1], GameLog)  # without covariates: the pairs, as before


def test_fit_refuses_min_games_with_advantage_and_advantage_of_a_pgn(games_csv, tmp_path, capsys):
    assert main(["fit", str(games_csv), "--score", "s", "--advantage", "home", "--min-games", "2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "discrank: error: --min-games 2 aggregates the games to pairs, which drops the --advantage columns: use "
        "--min-player-games")
    assert main(["fit", str(tmp_path / "games.pgn"), "--advantage", "white"]) == 2
    assert capsys.readouterr().err.strip() == (
        "discrank: error: --advantage white: a PGN file has no covariate columns (--advantage names columns of a "
        "CSV or Parquet file)")
    assert main(["fit", str(games_csv), "--score", "s", "--advantage", "venue"]) == 2
    assert "column 'venue' (for advantage) is not in the frame" in capsys.readouterr().err


class _FakeEvaluation:
    names = ()

    def __str__(self):
        return "fake evaluation"


@pytest.fixture
def fake_evaluate(monkeypatch):
    import discrank.evaluation._evaluate

    calls = []

    def evaluate(models, log, **kw):
        calls.append((models, log, kw))
        return _FakeEvaluation()

    monkeypatch.setattr(discrank.evaluation._evaluate, "evaluate", evaluate)
    return calls


def test_evaluate_passes_advantage_protocol_and_refit(games_csv, fake_evaluate, capsys):
    assert main(["evaluate", str(games_csv), "--score", "s", "--time", "t", "--cutoff", "40", "--models", "elo",
                 "--advantage", "home", "--protocol", "online", "--refit", "week"]) == 0
    assert capsys.readouterr().out == "fake evaluation\n"
    models, log, kw = fake_evaluate[-1]
    assert list(models) == ["elo"] and log.advantage_names == ("home",)
    assert log.advantage[:4, 0].tolist() == [0.0, 1.0, 1.0, 0.0]
    assert kw["protocol"] == "online" and kw["refit"] == "week" and kw["cutoff"] == 40
    assert main(["evaluate", str(games_csv), "--score", "s", "--time", "t", "--cutoff", "40", "--models", "elo"]) == 0
    _, log, kw = fake_evaluate[-1]
    assert "protocol" not in kw and "refit" not in kw and log.advantage is None  # evaluate's own defaults


def test_evaluate_refuses_an_unknown_protocol_or_refit(games_csv, capsys):
    assert main(["evaluate", str(games_csv), "--score", "s", "--time", "t", "--cutoff", "40", "--protocol",
                 "live"]) == 2
    assert "argument --protocol: invalid choice: 'live'" in capsys.readouterr().err
    assert main(["evaluate", str(games_csv), "--score", "s", "--time", "t", "--cutoff", "40", "--refit", "hour"]) == 2
    assert "argument --refit: 'hour' is neither day, week, month, year nor a number" in capsys.readouterr().err


def test_evaluate_offers_the_dynamic_models(games_csv, fake_evaluate):
    assert main(["evaluate", str(games_csv), "--score", "s", "--time", "t", "--cutoff", "40", "--models",
                 "elo,dynamic,dynamic-draws", "--period", "5"]) == 0
    models, _, _ = fake_evaluate[-1]
    assert list(models) == ["elo", "dynamic", "dynamic-draws"]
    assert models["dynamic"].period == 5 and models["dynamic-draws"].period == 5  # the times are numbers
    assert isinstance(models["dynamic"], discrank.DynamicElo) and models["dynamic"].draws is None
    assert models["dynamic-draws"].draws == "davidson"


# ------------------------------------------------------------------ bench data sets
@pytest.fixture
def datasets(monkeypatch, tmp_path):
    path = Path(__file__).resolve().parents[1] / "bench" / "datasets.py"
    spec = importlib.util.spec_from_file_location("_bench_datasets_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "DATA", tmp_path)
    return module


def test_football_log_has_home_1_unless_the_venue_is_neutral(datasets, tmp_path):
    (tmp_path / "football_international").mkdir()
    rows = ["date,home_team,away_team,home_score,away_score,tournament,city,country,neutral",
            "1990-05-02,Chile,Peru,1,0,Friendly,Lima,Peru,TRUE",
            "1990-05-01,Peru,Chile,2,2,Friendly,Lima,Peru,FALSE",
            "1990-05-03,Peru,Peru,1,0,Friendly,Lima,Peru,FALSE",
            "1990-05-04,Chile,Brazil,NA,NA,Friendly,\"Santiago, Centro\",Chile,FALSE",
            "1990-05-05,Brazil,Chile,0,3,Friendly,Rio,Brazil,FALSE"]
    with gzip.open(tmp_path / "football_international" / "results.csv.gz", "wt") as fh:
        fh.write("\n".join(rows) + "\n")
    log = datasets.football_log()
    assert log.a.tolist() == ["Peru", "Chile", "Brazil"] and log.score.tolist() == [0.5, 1.0, 0.0]
    assert log.advantage_names == ("home",) and log.advantage[:, 0].tolist() == [1.0, 0.0, 1.0]


def test_go_log_has_black_1_in_every_game(datasets, tmp_path):
    (tmp_path / "go_tygem").mkdir()
    rows = ["date_raw\tblack_id\twhite_id\tresult", "[2010.01.02]\tb1\tw1\tB+R", "[2010.01.01]\tw1\tb1\tW+3.5",
            "[2010.01.03]\tb1\tw1\tDraw"]
    with lzma.open(tmp_path / "go_tygem" / "tygem_9d_games_2005-2011_2015-2016.tsv.xz", "wt") as fh:
        fh.write("\n".join(rows) + "\n")
    log = datasets.go_tygem_log()
    assert log.a.tolist() == ["w1", "b1"] and log.score.tolist() == [0.0, 1.0]
    assert log.advantage_names == ("black",) and log.advantage[:, 0].tolist() == [1.0, 1.0]


def test_split_keeps_the_columns(datasets):
    log = datasets._game_log(["p", "q", "r", "p"], ["q", "r", "p", "s"], [1, 0, 1, 0],
                             np.array(["2000-01-02", "2000-01-01", "2000-02-01", "2000-02-02"], dtype="datetime64[D]"),
                             {"home": np.array([2.0, 1.0, 3.0, 4.0])})
    train, test, info = datasets._split(log, "2000-01-01", "2000-01-31", "2000-02-01")
    assert train.advantage[:, 0].tolist() == [1.0, 2.0]
    assert test.advantage[:, 0].tolist() == [3.0] and info["test_dropped_unseen"] == 1  # s is unseen


def test_full_logs_gives_each_whole_log_with_the_dates_of_its_split(datasets, monkeypatch):
    loaded = []
    monkeypatch.setattr(datasets, "SPLITS", {name: ((lambda name=name: loaded.append(name) or name), *rest)
                                             for name, (_, *rest) in datasets.SPLITS.items()})
    out = datasets.full_logs()
    assert loaded == ["tennis ATP", "Go Tygem", "football"] and {k: v[0] for k, v in out.items()} == {
        "tennis ATP": "tennis ATP", "Go Tygem": "Go Tygem", "football": "football"}
    d = {k: {f: None if v is None else str(v)[:10] for f, v in dates.items()} for k, (_, dates) in out.items()}
    assert d == {"tennis ATP": {"cutoff": "2020-01-01", "test_start": "2022-01-01", "test_end": None},
                 "Go Tygem": {"cutoff": "2016-01-01", "test_start": "2016-07-01", "test_end": "2017-01-01"},
                 "football": {"cutoff": "2015-01-01", "test_start": "2019-01-01", "test_end": None}}
    assert out["Go Tygem"][1]["cutoff"].dtype == np.dtype("datetime64[ns]")


@pytest.mark.data("football_international/results.csv.gz")
def test_the_real_football_log_marks_every_non_neutral_match_home(monkeypatch):
    path = Path(__file__).resolve().parents[1] / "bench" / "datasets.py"
    spec = importlib.util.spec_from_file_location("_bench_datasets_real", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "DATA", DATA)
    log = module.football_log()
    home = neutral = 0
    with gzip.open(DATA / "football_international" / "results.csv.gz", "rt") as fh:
        for r in csv.DictReader(fh):  # the rows football_log keeps: a score, two different teams
            if r["home_score"] in ("", "NA") or r["home_team"] == r["away_team"]:
                continue
            home += r["neutral"] == "FALSE"
            neutral += r["neutral"] == "TRUE"
    assert len(log) == home + neutral
    assert int(log.advantage[:, 0].sum()) == home and int((log.advantage[:, 0] == 0).sum()) == neutral
