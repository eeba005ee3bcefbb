"""Regression tests of issue 15 for model files, game-log readers and the command line: each test is
named after what it guards (the hostile battery in test_hostile.py runs the wider set in processes)."""

import bz2
import gzip
import io
import json
import lzma
import os
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

from discrank import DiscDecomposition, Elo, GameLog, MElo, PairwiseData, load
from discrank.cli import main
from discrank.exceptions import TruncatedFileWarning
from discrank.data.logs import read_pgn
from discrank.persist.model_file import MAX_ABS_PARAMETER


def four_players():
    return PairwiseData.from_games(["x", "y", "z", "w", "x", "y"], ["y", "z", "w", "x", "z", "w"],
                                   [1.0, 0.0, 0.5, 1.0, 0.0, 1.0])


def fitted(model, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(four_players())
    model.save(path)
    return path


def rewrite(path, meta=None, arrays=None):
    with np.load(path) as z:
        files = {k: z[k] for k in z.files}
    head = json.loads(str(files["__discrank__"]))
    if meta:
        meta(head)
    files["__discrank__"] = np.array(json.dumps(head))
    if arrays:
        arrays(files)
    out = path.with_name("tampered.npz")
    np.savez_compressed(out, **files)
    return out


def npy_header(shape, descr="<f8"):
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()


# ------------------------------------------------------------------------------- model files
def test_a_model_file_with_huge_coordinates_is_refused_instead_of_predicting_nan(tmp_path):
    path = rewrite(fitted(DiscDecomposition(1, random_state=0), tmp_path / "m.npz"),
                   arrays=lambda f: f["u_"].__setitem__((0, 0), 1e200))
    with pytest.raises(ValueError, match=r"tampered\.npz: u_\[0, 0\] = 1e\+200 is above MAX_ABS_PARAMETER"):
        load(path)
    assert MAX_ABS_PARAMETER == 1e6


def test_a_model_file_at_the_bound_predicts_finite_probabilities(tmp_path):
    def at_bound(f):
        f["u_"][:] = MAX_ABS_PARAMETER
        f["v_"][:] = -MAX_ABS_PARAMETER
    model = load(rewrite(fitted(DiscDecomposition(1, random_state=0), tmp_path / "m.npz"), arrays=at_bound))
    assert np.all(np.isfinite(model.predict_proba(["x", "y"], ["z", "w"])))


@pytest.mark.parametrize("field, value, message", [
    ("n_components", "lots", "params.n_components = 'lots' is not a positive integer"),
    ("n_jobs", -10**9, "params.n_jobs = -1000000000 is not None or a nonzero integer"),
    ("tol", 0.0, "params.tol = 0.0 is not a positive finite number"),
    ("solver", ["joint"], "params.solver = ['joint'] is not one of"),
    ("regularization", -1, "params.regularization = -1 is not a finite number >= 0"),
    ("evil", 1, "params.evil is not a parameter of DiscDecomposition"),
])
def test_tampered_header_parameters_are_refused_by_name(tmp_path, field, value, message):
    path = rewrite(fitted(DiscDecomposition(1, random_state=0), tmp_path / "m.npz"),
                   meta=lambda h: h["params"].update({field: value}))
    with pytest.raises(ValueError, match="tampered.npz") as info:
        load(path)
    assert message in str(info.value)


@pytest.mark.parametrize("field, value, message", [
    ("converged_", [1, 2, {}], "scalars.converged_ = [1, 2, {}] is not true or false"),
    ("grad_measure_", -1.0, "scalars.grad_measure_ = -1.0 is not a finite number >= 0"),
    ("n_players_", 5, "scalars.n_players_ = 5, but labels_ holds 4 players"),
    ("solver_", "magic", "scalars.solver_ = 'magic' is not 'newton' or 'lbfgs'"),
])
def test_tampered_fitted_scalars_are_refused_by_name(tmp_path, field, value, message):
    path = rewrite(fitted(Elo(), tmp_path / "m.npz"), meta=lambda h: h["scalars"].update({field: value}))
    with pytest.raises(ValueError) as info:
        load(path)
    assert message in str(info.value)


@pytest.mark.parametrize("model, change, message", [
    (Elo(), lambda f: f.update(ratings_=np.zeros((4, 3))),
     "ratings_ has shape (4, 3) and dtype float64, expected shape (4,)"),
    (DiscDecomposition(1), lambda f: f.update(v_=np.zeros((4, 2))),
     "v_ has shape (4, 2) and dtype float64, expected shape (4, 1)"),
    (DiscDecomposition(1), lambda f: f.pop("v_"), "missing array 'v_'"),
    (Elo(), lambda f: f.update(labels_=np.array(["x", "y", "x", "w"])), "labels_ repeats the label 'x'"),
    (MElo(1), lambda f: f["_base"].__setitem__(1, np.nan), "_base[1] = nan is not finite"),
])
def test_model_files_with_wrong_shapes_or_values_are_value_errors_not_index_errors(tmp_path, model, change, message):
    path = rewrite(fitted(model, tmp_path / "m.npz"), arrays=change)
    with pytest.raises(ValueError) as info:
        load(path)
    assert message in str(info.value)


def test_the_cli_on_a_model_file_of_the_wrong_shape_is_one_line_and_exit_2(tmp_path, capsys):
    path = rewrite(fitted(Elo(), tmp_path / "m.npz"), arrays=lambda f: f.update(ratings_=np.zeros((4, 3))))
    assert main(["predict", str(path), "x", "y"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"discrank: error: {path}: ratings_ has shape (4, 3)") and err.count("\n") == 1
    assert "internal error" not in err


def test_an_npy_header_claiming_1e12_entries_is_refused_without_allocating(tmp_path):
    src = zipfile.ZipFile(fitted(Elo(), tmp_path / "m.npz"))
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            raw = npy_header((10**12,)) + bytes(32) if info.filename == "ratings_.npy" else src.read(info.filename)
            z.writestr(info.filename, raw)
    with pytest.raises(ValueError, match=r"declares shape \(1000000000000,\) of float64 \(8000000000000 bytes\), "
                                         r"but its member holds 32 bytes"):
        load(bomb)


def test_a_zip_bomb_is_refused_before_it_is_decompressed(tmp_path):
    src = zipfile.ZipFile(fitted(Elo(), tmp_path / "m.npz"))
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for info in src.infolist():
            if info.filename != "ratings_.npy":
                z.writestr(info.filename, src.read(info.filename))
        with z.open("ratings_.npy", "w", force_zip64=True) as w:
            w.write(npy_header((32 << 17,)))
            for _ in range(32):
                w.write(bytes(1 << 20))
    assert os.path.getsize(bomb) < 1 << 20
    with pytest.raises(ValueError, match=r"bomb\.npz: the file's \d+ bytes would decompress to \d+ \(the member "
                                         r"'ratings_\.npy' to 33554560\), a ratio above 200:1"):
        load(bomb)


def test_a_member_that_compresses_like_a_bomb_passes_in_a_file_of_ordinary_ratio(tmp_path):
    # a dynamic model's scores, periods and times can compress 600:1 on their own next to incompressible
    # ratings: the guard weighs the whole file, and here the next check (the members a model holds) answers
    src = zipfile.ZipFile(fitted(Elo(), tmp_path / "m.npz"))
    path = tmp_path / "padded.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, src.read(info.filename))
        z.writestr("pad.npy", npy_header((20 << 17,)) + bytes(20 << 20))  # 20 MiB of zeros
        z.writestr("noise.npy", npy_header((1 << 15,)) + np.random.default_rng(0).bytes(1 << 18))
    assert z.getinfo("pad.npy").file_size > 500 * z.getinfo("pad.npy").compress_size
    with pytest.raises(ValueError, match=r"padded\.npz: unexpected array '(pad|noise)'") as info:
        load(path)
    assert "zip bomb" not in str(info.value)


@pytest.mark.parametrize("a, b, dtype", [
    (["x", "é"], ["é", "x"], object),
    ([1, -2], [-2, 1], np.int64),
    ([2**63 + 1, 2**64 - 1], [2**64 - 1, 2**63 + 1], np.uint64),
    ([0.5, 1.25], [1.25, 0.5], np.float64),
])
def test_save_and_load_keep_each_labels_type_and_value(tmp_path, a, b, dtype):
    model = Elo().fit(PairwiseData.from_games(a, b, [1.0, 0.0]))
    model.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    assert back.labels_.dtype == dtype and back.labels_.tolist() == model.labels_.tolist()
    assert [type(v) for v in back.labels_.tolist()] == [type(v) for v in model.labels_.tolist()]
    assert back.predict_proba(a[0], b[0]) == model.predict_proba(a[0], b[0])


def test_a_long_label_does_not_make_the_model_file_fixed_width(tmp_path):
    names = ["n" * 100_000] + [f"p{k}" for k in range(500)]
    model = Elo().fit(PairwiseData.from_games(names[:-1], names[1:], np.tile([1.0, 0.0], 250)))
    model.save(tmp_path / "m.npz")
    assert sum(i.file_size for i in zipfile.ZipFile(tmp_path / "m.npz").infolist()) < 200_000
    assert load(tmp_path / "m.npz").labels_.tolist() == model.labels_.tolist()


def test_files_of_the_format_without_a_label_kind_still_load(tmp_path):
    # as discrank wrote them before the header's "labels" key: <U labels, no kind
    path = rewrite(fitted(Elo(), tmp_path / "m.npz"), meta=lambda h: h.pop("labels"),
                   arrays=lambda f: f.update(labels_=np.array(["w", "x", "y", "z"])))
    back = load(path)
    assert back.labels_.tolist() == ["w", "x", "y", "z"] and 0 < back.predict_proba("x", "y") < 1


# ------------------------------------------------------------------------------- readers
def pgn_text(n, date=lambda k: "2024.01.01"):
    return "".join(f'[Event "e"]\n[White "p{k}"]\n[Black "q{k}"]\n[Result "1-0"]\n[Date "{date(k)}"]\n\n1. e4 1-0\n\n'
                   for k in range(n))


@pytest.mark.parametrize("suffix, compress", [(".pgn.gz", gzip.compress), (".pgn.bz2", lambda b: bz2.compress(b, 1)),
                                              (".pgn.xz", lzma.compress)])
def test_a_truncated_compressed_pgn_names_the_file_and_the_last_complete_game(tmp_path, suffix, compress):
    data = compress(pgn_text(3000).encode())
    path = tmp_path / f"g{suffix}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"the compressed file is truncated") as info:
        read_pgn(path)
    assert str(path) in str(info.value) and "(the last, game" in str(info.value)
    with pytest.warns(TruncatedFileWarning, match=r"kept the \d+ complete games read before the truncation") as caught:
        log = read_pgn(path, truncated="keep")
    kept = int(str(caught[0].message).split("kept the ")[1].split()[0])
    assert len(log) == kept > 0 and log.a[-1] == f"p{kept - 1}"


def test_a_truncated_csv_gz_names_the_last_complete_row_and_can_keep_the_rows_before(tmp_path):
    data = gzip.compress(("a,b,s\n" + "".join(f"p{k},q{k},1\n" for k in range(5000))).encode())
    path = tmp_path / "g.csv.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"g\.csv\.gz: the compressed file is truncated .*: its text ends at byte "
                                         r"[\d,]+, in line \d+; the last complete row is row \d+, on line \d+"):
        GameLog.read_csv(path, score="s")
    with pytest.warns(UserWarning, match="kept the"):
        log = GameLog.read_csv(path, score="s", truncated="keep")
    assert 0 < len(log) < 5000 and log.a.tolist() == [f"p{k}" for k in range(len(log))]


def test_one_bad_pgn_date_names_the_file_the_game_and_the_value(tmp_path):
    path = tmp_path / "g.pgn"
    path.write_text(pgn_text(6, lambda k: {2: "2024.13.45", 4: "hello"}.get(k, "2024.01.0%d" % (k + 1))))
    with pytest.raises(ValueError, match=r"g\.pgn: game 2 has the date '2024\.13\.45', which is not a date"):
        read_pgn(path)
    with pytest.warns(Warning, match=r"2 unparseable time \(games 2, 4\)"):
        log = read_pgn(path, invalid="drop")
    assert len(log) == 4 and log.dropped == {"unparseable time": 2} and log.time is not None


def test_a_parquet_list_column_is_named_with_its_type(tmp_path):
    pd.DataFrame({"a": [["x"], ["y"]], "b": ["y", "x"], "s": [1.0, 0.0]}).to_parquet(tmp_path / "g.parquet")
    with pytest.raises(ValueError, match=r"g\.parquet: column 'a' \(for a\) has the type list<element: string>"):
        GameLog.read_parquet(tmp_path / "g.parquet", score="s")


@pytest.mark.parametrize("times, bound, message", [
    ([1, 2, 3], np.datetime64("2020-01-01"), "datetime64('2020-01-01') is not a number, and the times are numbers"),
    ([1, 2, 3], "2020-01-01", "start='2020-01-01' is not a number"),
    (np.array(["2024-01-01", "2024-01-02", "2024-01-03"], "datetime64[D]"), "not a date",
     "start='not a date' is not a date, and the times are dates"),
])
def test_filter_bounds_of_the_wrong_kind_name_start_and_the_value(times, bound, message):
    log = GameLog.from_arrays(["x", "y", "z"], ["y", "z", "x"], [1, 0, 1], time=times)
    with pytest.raises(ValueError) as info:
        log.filter(start=bound)
    assert message in str(info.value)


def test_split_time_of_text_names_test_fraction():
    log = GameLog.from_arrays(["x", "y", "z"], ["y", "z", "x"], [1, 0, 1], time=[1, 2, 3])
    with pytest.raises(ValueError, match=r"test_fraction must be a number in \(0, 1\).*got '0\.5'"):
        log.split_time("0.5")


# ------------------------------------------------------------------------------- the command line
@pytest.mark.parametrize("argv, message", [
    (["demo", "--cyclic", "nan", "--plot", ""], "argument --cyclic: must be a finite number, got 'nan'"),
    (["demo", "--top", "-3", "--plot", ""], "argument --top: must be an integer >= 1, got '-3'"),
    (["fit", "G", "--score", "s", "--regularization", "abc"], "argument --regularization: 'abc' is neither a number"),
    (["fit", "G", "--score", "s", "--time", "t", "--start", "garbage"], "--start 'garbage' is neither a date"),
    (["fit", "G", "--score", "s", "--time", "a"], "column 'a' (the time): a[0] = 'x' is not a time"),
    (["predict", "M", "--pairs", "EMPTY"], "empty.csv: the file is empty"),
    (["fit", "G", "--score", "s", "--model", "elo", "--quiet", "--out", "OUT"], "cannot write"),
])
def test_cli_errors_name_the_option_file_or_column_in_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "g.csv").write_text("a,b,s,t\nx,y,1,2024-01-01\ny,z,0,2024-01-02\nz,x,1,2024-01-03\n")
    (tmp_path / "empty.csv").write_text("")
    model = fitted(Elo(), tmp_path / "m.npz")
    paths = {"G": tmp_path / "g.csv", "M": model, "EMPTY": tmp_path / "empty.csv", "OUT": tmp_path / "no" / "r.csv"}
    assert main([str(paths.get(a, a)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("discrank: error: ") and err.count("\n") == 1 and "internal error" not in err
    assert message in err
