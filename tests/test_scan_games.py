"""scan_games: the pairs of files read chunk by chunk, spilled under a memory limit, equal the in-memory
aggregation's; bad files and rows are named; an interrupted scan leaves no temporary file."""

import gzip
import os

import numpy as np
import pytest

import discrank
import discrank.data._scan_tables as _scan_tables
import discrank.scan as scan
from discrank.exceptions import InvalidRowsWarning

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


def _frame(seed=0, n_games=20000, n_players=800, strings=True):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, 60, n_games)) % n_players
    lab = (lambda v: np.array([f"p{k:04d}" for k in v], dtype=object)) if strings else (lambda v: v)
    return pd.DataFrame({"a": lab(a), "b": lab(b), "score": rng.choice([0.0, 0.5, 1.0], n_games),
                         "home": rng.choice([-1.0, 0.0, 1.0], n_games),
                         "t": np.datetime64("2020-01-01") + rng.integers(0, 1000, n_games).astype("timedelta64[D]")})


def _same(d, ref):
    assert np.array_equal(d.labels, ref.labels) and d.labels.dtype.kind == ref.labels.dtype.kind
    for f in ("i", "j", "p", "n_games"):
        assert np.array_equal(getattr(d, f), getattr(ref, f)), f
    if ref.covariates is not None:
        for f in ("pair", "p", "n_games", "x"):
            assert np.array_equal(getattr(d.covariates, f), getattr(ref.covariates, f)), f
        assert d.covariates.names == ref.covariates.names


@pytest.fixture
def spills(monkeypatch):
    calls = {"n": 0}
    original = _scan_tables.Accumulator._spill

    def counted(self):
        calls["n"] += 1
        return original(self)

    monkeypatch.setattr(_scan_tables.Accumulator, "_spill", counted)
    return calls


@pytest.mark.parametrize("limit", ["1GiB", "1MiB"])
@pytest.mark.parametrize("strings", [True, False])
def test_parquet_directory_equals_in_memory(tmp_path, spills, limit, strings):
    frames = [_frame(k, strings=strings) for k in range(3)]
    for k, f in enumerate(frames):
        f.to_parquet(tmp_path / f"g{k}.parquet")
    ref = discrank.GameLog.from_frame(pd.concat(frames, ignore_index=True), score="score").to_pairs()
    _same(scan.scan_games(tmp_path, score="score", memory_limit=limit, batch_rows=4000), ref)
    # 1 MiB holds 12 483 rows: the merged table (about 43 000 pairs) is spilled, and merged by key range
    assert (spills["n"] >= 2) == (limit == "1MiB")
    _same(scan.scan_games(str(tmp_path / "g*.parquet"), score="score", batch_rows=7000), ref)


def test_covariates_filters_and_winner_equal_in_memory(tmp_path):
    df = _frame(4)
    df.to_parquet(tmp_path / "g.parquet")
    ref = discrank.GameLog.from_frame(df, score="score", advantage="home").to_pairs()
    _same(scan.scan_games(tmp_path / "g.parquet", score="score", advantage="home", memory_limit="1MiB",
                          batch_rows=3000), ref)
    kw = dict(time="t", start="2020-06-01", end="2022-01-01")
    ref = discrank.GameLog.from_frame(df, score="score", **kw).to_pairs()
    _same(scan.scan_games(tmp_path / "g.parquet", score="score", batch_rows=3000, **kw), ref)
    df["w"] = np.where(df.score == 1.0, df.a, np.where(df.score == 0.0, df.b, "draw"))
    df.to_parquet(tmp_path / "g.parquet")
    ref = discrank.GameLog.from_frame(df, winner="w").to_pairs()
    _same(scan.scan_games(tmp_path / "g.parquet", winner="w", batch_rows=3000), ref)


def test_min_player_games_equals_in_memory(tmp_path):
    df = _frame(5, n_games=6000, n_players=1500)  # about 8 games a player: some have 3 or fewer
    df.to_parquet(tmp_path / "g.parquet")
    ref = discrank.GameLog.from_frame(df, score="score", min_player_games=5).to_pairs()
    got = scan.scan_games(tmp_path / "g.parquet", score="score", min_player_games=5, batch_rows=1000)
    assert 0 < got.n_players < 1500
    _same(got, ref)


def test_csv_compressed_equals_in_memory(tmp_path):
    df = _frame(6)[["a", "b", "score"]]
    df.iloc[:8000].to_csv(tmp_path / "g1.csv.gz", index=False)
    df.iloc[8000:14000].to_csv(tmp_path / "g2.csv.bz2", index=False)
    df.iloc[14000:].to_csv(tmp_path / "g3.csv", index=False)
    ref = discrank.GameLog.from_frame(df, score="score").to_pairs()
    _same(scan.scan_games(tmp_path, score="score", memory_limit="1MiB"), ref)


def _pgn(n=300, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        w, b = rng.integers(0, 30, 2)
        b = (w + 1 + b % 29) % 30
        result = ["1-0", "0-1", "1/2-1/2", "*"][k % 4 if k % 37 else 3]
        out.append(f'[Event "x"]\n[White "p{w}"]\n[Black "p{b}"]\n[Result "{result}"]\n[UTCDate "2024.01.{1 + k % 28:02d}"]\n\n1. e4 {result}\n\n')
    return "".join(out)


@pytest.mark.parametrize("name", ["g.pgn", "g.pgn.gz", "g.pgn.zst"])
def test_pgn_equals_read_pgn(tmp_path, name):
    text = _pgn().encode()
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text))
    elif name.endswith(".zst"):
        zstandard = pytest.importorskip("zstandard")
        path.write_bytes(zstandard.ZstdCompressor().compress(text))
    else:
        path.write_bytes(text)
    with pytest.warns(InvalidRowsWarning, match="unfinished"):
        ref = discrank.read_pgn(path, invalid="drop").to_pairs()
    with pytest.warns(InvalidRowsWarning, match=r"dropped 82 invalid rows of 1 file: 82 unfinished"):
        got = scan.scan_games(path, invalid="drop", batch_rows=37)
    _same(got, ref)


def test_invalid_row_named_by_file_and_row(tmp_path):
    df = _frame(7)[["a", "b", "score"]]
    df.loc[15123, "b"] = df.loc[15123, "a"]
    df.to_parquet(tmp_path / "g.parquet")
    with pytest.raises(ValueError, match=r"g\.parquet: .*row 15123"):
        scan.scan_games(tmp_path / "g.parquet", score="score", batch_rows=4000)
    with pytest.warns(InvalidRowsWarning, match=r"dropped 1 invalid row of 1 file: 1 player against themself"):
        got = scan.scan_games(tmp_path / "g.parquet", score="score", batch_rows=4000, invalid="drop")
    with pytest.warns(InvalidRowsWarning):
        ref = discrank.GameLog.from_frame(df, score="score", invalid="drop").to_pairs()
    _same(got, ref)


def test_corrupt_files_are_named(tmp_path, monkeypatch):
    df = _frame(8)[["a", "b", "score"]]
    df.to_parquet(tmp_path / "a.parquet")
    good = (tmp_path / "a.parquet").read_bytes()
    (tmp_path / "b.parquet").write_bytes(good[: len(good) // 2])
    df.to_parquet(tmp_path / "c.parquet")
    with pytest.raises(ValueError, match=r"b\.parquet"):
        scan.scan_games(tmp_path, score="score")
    text = df.to_csv(index=False).splitlines()
    text[15000] = "x,y,1,extra"
    (tmp_path / "bad.csv").write_text("\n".join(text) + "\n")
    monkeypatch.setattr(scan, "BLOCK_BYTES", 1 << 14)
    with pytest.raises(ValueError, match=r"bad\.csv: cannot read the rows from row \d+"):
        scan.scan_games(tmp_path / "bad.csv", score="score")
    packed = gzip.compress(df.to_csv(index=False).encode())
    (tmp_path / "cut.csv.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(ValueError, match=r"cut\.csv\.gz"):
        scan.scan_games(tmp_path / "cut.csv.gz", score="score")


def test_interrupted_scan_leaves_no_temporary_file(tmp_path, monkeypatch):
    _frame(9).to_parquet(tmp_path / "g.parquet")
    spill_dir = tmp_path / "spill"
    spill_dir.mkdir()
    original = _scan_tables.Accumulator._spill

    def spill_then_interrupt(self):
        original(self)
        assert os.listdir(spill_dir)  # a run was written
        raise KeyboardInterrupt

    monkeypatch.setattr(_scan_tables.Accumulator, "_spill", spill_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        scan.scan_games(tmp_path / "g.parquet", score="score", memory_limit="1MiB", batch_rows=2000,
                        tmpdir=spill_dir)
    assert os.listdir(spill_dir) == []


def test_progress_bar_on_stderr(tmp_path, capsys):
    pytest.importorskip("tqdm")
    _frame(10).to_parquet(tmp_path / "g.parquet")
    scan.scan_games(tmp_path / "g.parquet", score="score", progress=True)
    err = capsys.readouterr().err
    assert "scan_games" in err and "20.0k" in err
    scan.scan_games(tmp_path / "g.parquet", score="score", progress=False)
    assert capsys.readouterr().err == ""


def test_bad_arguments_are_named(tmp_path):
    df = _frame(11)
    df.to_parquet(tmp_path / "s.parquet")
    with pytest.raises(ValueError, match="memory_limit='lots'"):
        scan.scan_games(tmp_path / "s.parquet", score="score", memory_limit="lots")
    with pytest.raises(ValueError, match="memory_limit=10: give at least 1 MiB"):
        scan.scan_games(tmp_path / "s.parquet", score="score", memory_limit=10)
    with pytest.raises(FileNotFoundError, match="nope.parquet"):
        scan.scan_games(tmp_path / "nope.parquet", score="score")
    with pytest.raises(ValueError, match=r"no file matches .*\*\.csv"):
        scan.scan_games(str(tmp_path / "*.csv"), score="score")
    (tmp_path / "x.txt").write_text("a,b\n")
    with pytest.raises(ValueError, match=r"x\.txt: not a file scan_games reads"):
        scan.scan_games(tmp_path / "x.txt", score="score")
    with pytest.raises(ValueError, match="format"):
        scan.scan_games(tmp_path / "s.parquet", score="score", format="xml")
    with pytest.raises(ValueError, match=r"s\.parquet: no column 'result'"):
        scan.scan_games(tmp_path / "s.parquet", score="result")
    with pytest.raises(ValueError, match="exactly one of score"):
        scan.scan_games(tmp_path / "s.parquet")
    ints = _frame(12, strings=False)
    ints.to_parquet(tmp_path / "t.parquet")
    os.remove(tmp_path / "x.txt")
    with pytest.raises(ValueError, match=r"t\.parquet: the players are integers, but in .*s\.parquet they are strings"):
        scan.scan_games(tmp_path, score="score")


def test_label_table_codes_and_orders():
    from discrank.core import _core
    table = _core.LabelTable("str")
    first = table.code_strings(np.array(["é", "Z", "a", "ä", "Z"], dtype=object))
    again = table.code_strings(np.array(["a", "new", "é"], dtype=object))
    assert first.tolist() == [0, 1, 2, 3, 1] and again.tolist() == [2, 4, 0]
    order = table.order(False)
    assert table.labels(order).tolist() == sorted(["é", "Z", "a", "ä", "new"])
    ints = _core.LabelTable("int")
    assert ints.code_ints(np.array([5, -3, 5, 2**62], dtype=np.int64)).tolist() == [0, 1, 0, 2]
    assert ints.labels(ints.order(False)).tolist() == [-3, 5, 2**62]
    big = _core.LabelTable("str")
    big.code_strings(np.array([f"player{k:06d}" for k in range(100_000)], dtype=object))
    # 12 bytes of text, an 8-byte offset, an 8-byte hash, 8-byte slots at most half full, and the
    # vectors' spare capacity: under 100 bytes a label
    assert big.size == 100_000 and big.nbytes / big.size < 100
    with pytest.raises(TypeError, match="not a str"):
        big.code_strings(np.array(["x", 3], dtype=object))


# ------------------------------------------------------------------ one traversal rule (issue 33)
def _two_folders(tmp_path):
    """``data/`` with a file and a sub-folder ``sub/`` with another; the reference pairs of both."""
    frames = [_frame(k, n_games=2000) for k in range(2)]
    (tmp_path / "data" / "sub").mkdir(parents=True)
    frames[0].to_csv(tmp_path / "data" / "g0.csv", index=False)
    frames[1].to_csv(tmp_path / "data" / "sub" / "g1.csv", index=False)
    ref = discrank.GameLog.from_frame(pd.concat(frames, ignore_index=True), score="score").to_pairs()
    return tmp_path / "data", ref


def test_a_named_pipe_in_a_folder_is_refused_by_name_not_read(tmp_path):
    data, _ = _two_folders(tmp_path)
    os.mkfifo(data / "pipe.csv")  # reading it would block forever
    with pytest.raises(ValueError, match=r"pipe\.csv: not a regular file \(a named pipe, a socket or a device\)"):
        scan.scan_games(data, score="score")


def test_a_symlinked_folder_and_a_glob_matching_a_folder_are_read_as_a_folder(tmp_path):
    data, ref = _two_folders(tmp_path)
    linked = tmp_path / "linked"
    linked.mkdir()
    (data / "g0.csv").rename(linked / "g0.csv")
    os.symlink(linked, data / "link")  # the first file now lies behind a symlinked sub-folder
    _same(scan.scan_games(data, score="score"), ref)
    _same(scan.scan_games(str(data) + "/*", score="score"), ref)  # a glob matching a link and a folder


def test_overlapping_paths_read_each_file_once_and_say_so(tmp_path):
    data, ref = _two_folders(tmp_path)
    with pytest.warns(UserWarning, match=r"1 file\(s\) named more than once .*g1\.csv"):
        got = scan.scan_games([data, str(data / "sub") + "/*.csv"], score="score")
    _same(got, ref)
