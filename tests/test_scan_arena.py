"""Arena logs on the out-of-core paths (issue 34): scan_games reads JSON lines as it reads CSV and Parquet,
and scan_games and the Dask aggregation take the arena winner column with read_arena's ties and both-bad
policies, giving exactly the pairs of ``read_arena(...).to_pairs()``; bad votes and truncated lines are
named by file and row or line."""

import gzip
import re

import numpy as np
import pytest

import discrank
import discrank.scan as scan
from discrank import PeriodGames

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

WINNERS = np.array(["model_a", "model_b", "tie", "tie (bothbad)"], dtype=object)
ARENA = dict(a="model_a", b="model_b", winner="winner")


def _votes(seed=0, n_votes=3000, n_models=12):
    """Votes among models with all four winner values, a tenth of them ties of each kind, and days."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_models, n_votes)
    b = (a + rng.integers(1, n_models, n_votes)) % n_models
    names = np.array([f"model-{k:02d}" for k in range(n_models)], dtype=object)
    winner = WINNERS[rng.choice(4, n_votes, p=[0.45, 0.35, 0.1, 0.1])]
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner,
                         "day": np.datetime64("2024-01-01") + rng.integers(0, 60, n_votes).astype("timedelta64[D]")})


def _write(frame, path):
    name = str(path)
    if name.endswith((".parquet", ".pq")):
        frame.to_parquet(path)
    elif ".csv" in name:
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True, date_format="iso")  # (compressed by its suffix)
    return path


def _same(got, ref):
    assert np.array_equal(got.labels, ref.labels) and got.labels.dtype.kind == ref.labels.dtype.kind
    for f in ("i", "j", "p", "n_games"):
        assert np.array_equal(getattr(got, f), getattr(ref, f)), f


@pytest.mark.parametrize("bothbad", ["tie", "ignore"])
@pytest.mark.parametrize("ties", ["half", "ignore", "one-win-each"])
@pytest.mark.parametrize("name", ["votes.jsonl", "votes.csv", "votes.parquet", "votes.ndjson.gz"])
def test_scan_of_arena_votes_equals_read_arena_pairs(tmp_path, name, ties, bothbad):
    path = _write(_votes(), tmp_path / name)
    ref = discrank.read_arena(path, ties=ties, bothbad=bothbad).to_pairs()
    got = scan.scan_games(path, **ARENA, ties=ties, bothbad=bothbad, batch_rows=700)  # five chunks
    _same(got, ref)


def test_the_ties_policies_count_the_votes_as_stated(tmp_path):
    votes = _votes(1)
    path = _write(votes, tmp_path / "votes.jsonl")
    n_tie = int((votes.winner == "tie").sum())
    n_bad = int((votes.winner == "tie (bothbad)").sum())
    decisive = len(votes) - n_tie - n_bad
    games = {(t, bb): scan.scan_games(path, **ARENA, ties=t, bothbad=bb).n_games.sum()
             for t in ("half", "ignore", "one-win-each") for bb in ("tie", "ignore")}
    assert games == {("half", "tie"): len(votes), ("half", "ignore"): len(votes) - n_bad,
                     ("ignore", "tie"): decisive, ("ignore", "ignore"): decisive,
                     ("one-win-each", "tie"): 2 * len(votes),
                     ("one-win-each", "ignore"): 2 * (len(votes) - n_bad)}


def test_json_lines_read_in_blocks_of_text_or_by_format_equal_one_block(tmp_path, monkeypatch):
    votes = _votes(2)
    path = _write(votes, tmp_path / "votes.jsonl")
    whole = scan.scan_games(path, **ARENA)
    monkeypatch.setattr(scan, "JSON_BLOCK_BYTES", 4096)  # about 60 lines a block: 50 blocks
    _same(scan.scan_games(path, **ARENA), whole)
    _same(whole, discrank.read_arena(path).to_pairs())
    other = tmp_path / "votes.json"  # another name: read as JSON lines when told so
    other.write_bytes(path.read_bytes())
    _same(scan.scan_games(other, **ARENA, format="jsonl"), whole)
    with pytest.raises(ValueError, match=r"votes\.json: not a file scan_games reads .*\.jsonl, \.ndjson"):
        scan.scan_games(other, **ARENA)


def test_blank_lines_are_skipped_and_rows_numbered_as_records(tmp_path):
    lines = ['{"model_a": "x", "model_b": "y", "winner": "model_a"}', "", "  ",
             '{"model_a": "y", "model_b": "z", "winner": "tie"}', '{"model_a": "z", "model_b": "z", "winner": "tie"}']
    path = tmp_path / "blank.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}: game 2 is player 'z' against themself (row 2)")):
        scan.scan_games(path, **ARENA, batch_rows=2)
    path.write_text("\n".join(lines[:4]) + "\n")
    got = scan.scan_games(path, **ARENA, batch_rows=2)
    assert got.labels.tolist() == ["x", "y", "z"] and got.p.tolist() == [1.0, 0.5]


@pytest.mark.parametrize("ties", ["one-win-each", "ignore", "davidson"])
def test_scan_by_period_counts_ties_as_read_arena(tmp_path, ties):
    path = _write(_votes(3), tmp_path / "votes.parquet")
    ref = PeriodGames.from_log(discrank.read_arena(path, ties=ties, time="day"), "week")
    got = scan.scan_games(path, **ARENA, time="day", period="week", ties=ties, batch_rows=1000)
    assert np.array_equal(got.labels, ref.labels)
    for f in ("a", "b", "bins", "games", "score", "draws"):
        assert np.array_equal(getattr(got, f), getattr(ref, f)), f
    assert (got.draws.sum() == 0) == (ties != "davidson")  # only davidson keeps ties as draws


# ------------------------------------------------------------------------------------------- dask
@pytest.mark.parametrize("bothbad", ["tie", "ignore"])
@pytest.mark.parametrize("ties", ["half", "ignore", "one-win-each"])
def test_dask_aggregate_of_arena_votes_equals_read_arena_pairs(ties, bothbad):
    dask = pytest.importorskip("dask", reason="the [dask] extra is not installed")
    dask_dataframe = pytest.importorskip("dask.dataframe", reason="the [dask] extra is not installed")
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    import discrank.dask as ddk

    votes = _votes(4)
    ref = discrank.read_arena(votes, ties=ties, bothbad=bothbad).to_pairs()
    with dask.config.set(scheduler="synchronous"):
        got = ddk.aggregate(dask_dataframe.from_pandas(votes, npartitions=4), **ARENA, ties=ties, bothbad=bothbad)
    _same(got, ref)


def test_dask_aggregate_names_a_bad_winner_by_partition_and_row():
    dask = pytest.importorskip("dask", reason="the [dask] extra is not installed")
    dask_dataframe = pytest.importorskip("dask.dataframe", reason="the [dask] extra is not installed")
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    import discrank.dask as ddk

    votes = _votes(5).iloc[:40].reset_index(drop=True)
    votes.loc[[20, 21], "winner"] = ["tie (bothbad)", "model_c"]
    with dask.config.set(scheduler="synchronous"):
        ddf = dask_dataframe.from_pandas(votes, npartitions=2)  # rows 20 to 39: partition 1, from its row 0
        with pytest.raises(ValueError, match=r"partition 1: winner\[1\] = 'model_c' .*\(row 1\)"):
            ddk.aggregate(ddf, **ARENA, bothbad="ignore")  # its row 1 still, the both-bad vote before dropped
        with pytest.raises(ValueError, match=r"ties='davidson' is not one of \('half', 'ignore', 'one-win-each'\)"):
            ddk.aggregate(ddf, **ARENA, ties="davidson")


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", ["votes.jsonl", "votes.csv", "votes.parquet"])
def test_a_bad_winner_is_named_with_its_file_and_row(tmp_path, name):
    votes = _votes(6)
    votes.loc[[1500, 1700], "winner"] = ["tie (bothbad)", "model_c"]
    path = _write(votes, tmp_path / name)
    pattern = (re.escape(f"{path}: winner[1700] = 'model_c' is neither player of that game")
               + ".*" + re.escape("nor a draw marker") + r".*\(row 1700\)")
    for bothbad in ("tie", "ignore"):  # the both-bad vote dropped before it: the row keeps its number
        with pytest.raises(ValueError, match=pattern):
            scan.scan_games(path, **ARENA, bothbad=bothbad, batch_rows=700)


def test_a_truncated_json_line_is_named_with_its_file_line_and_row(tmp_path):
    path = _write(_votes(7).iloc[:2000], tmp_path / "votes.jsonl")
    text = path.read_text()
    path.write_text(text[: text.rindex('"winner"')])  # the last line cut inside its record
    with pytest.raises(ValueError, match=re.escape(f"{path}: cannot read line 2000 (row 1999): ") + ".*"
                       + re.escape("is not a JSON object (") + ".*" + re.escape("the file's last line, with no "
                                                                                "newline: a truncated file?")):
        scan.scan_games(path, **ARENA, batch_rows=700)
    lines = text.splitlines(keepends=True)
    path.write_text("".join(lines[:10] + ["[1, 2]\n"] + lines[10:]))
    with pytest.raises(ValueError, match=re.escape(f"{path}: cannot read line 11 (row 10): '[1, 2]' is not a JSON "
                                                   "object (a JSON list, not an object)")):
        scan.scan_games(path, **ARENA)


def test_a_truncated_compressed_json_lines_file_is_named_with_the_last_line_read(tmp_path):
    path = _write(_votes(8), tmp_path / "votes.jsonl.gz")
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    with gzip.open(path, "rt") as fh:  # the lines a reader gets before the cut
        read = 0
        try:
            for _ in fh:
                read += 1
        except EOFError:
            pass
    with pytest.raises(ValueError, match=re.escape(f"{path}: cannot read the file after line {read} (row {read}) "
                                                   "(EOFError: ") + ".*a corrupt or truncated file"):
        scan.scan_games(path, **ARENA, batch_rows=5000)


def test_bad_ties_and_bothbad_options_are_named(tmp_path):
    path = _write(_votes(9).iloc[:50], tmp_path / "votes.jsonl")
    with pytest.raises(ValueError, match=r"ties='davidson' is not one of .*needs the draws of each pair"):
        scan.scan_games(path, **ARENA, ties="davidson")
    with pytest.raises(ValueError, match=r"ties='both' is not one of \('half', 'ignore', 'one-win-each'\)"):
        scan.scan_games(path, **ARENA, ties="both")
    with pytest.raises(ValueError, match=r"bothbad='drop' is not one of \('tie', 'ignore'\)"):
        scan.scan_games(path, **ARENA, bothbad="drop")
    with pytest.raises(ValueError, match=r"bothbad='ignore' drops the votes whose winner .* not score="):
        scan.scan_games(path, a="model_a", b="model_b", score="winner", bothbad="ignore")
    with pytest.raises(ValueError, match=re.escape(f"{path}: no key 'win' in its first 50 records; their keys are "
                                                   "['model_a', 'model_b', 'winner', 'day']")):
        scan.scan_games(path, a="model_a", b="model_b", winner="win")


def test_a_key_that_no_record_of_a_later_block_holds_is_a_missing_value(tmp_path):
    lines = ['{"model_a": "x", "model_b": "y", "winner": "model_a", "day": "2024-01-01"}',
             '{"model_a": "y", "model_b": "z", "winner": "tie", "day": "2024-01-02"}',
             '{"model_a": "x", "model_b": "z", "winner": "model_b"}', '{"model_a": "y", "model_b": "x", "winner": "tie"}']
    path = tmp_path / "votes.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}: column 'day' has no time at row 2 (None)")):
        scan.scan_games(path, **ARENA, time="day", batch_rows=2)
    with pytest.warns(discrank.exceptions.InvalidRowsWarning, match="dropped 2 invalid rows of 1 file: 2 missing time"):
        got = scan.scan_games(path, **ARENA, time="day", batch_rows=2, invalid="drop", max_invalid=1.0)
    assert got.labels.tolist() == ["x", "y", "z"] and got.n_games.tolist() == [1.0, 1.0]


def test_ignore_on_votes_that_are_all_ties_says_so(tmp_path):
    votes = _votes(10).iloc[:30].assign(winner="tie")
    path = _write(votes, tmp_path / "ties.jsonl")
    with pytest.raises(ValueError, match=r"no valid game in 1 file: ties='ignore' dropped every one of the 30 "
                                         "votes, all ties"):
        scan.scan_games(path, **ARENA, ties="ignore")
