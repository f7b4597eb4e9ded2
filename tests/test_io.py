"""evalcore.io: every format, every bad input, trec_eval ordering, the real clef2015 collection."""
from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from evalcore.collection import Collection
from evalcore.io import InputError, Qrels, Run, load_collection, read_qrels, read_run, run_name

QRELS = b"t1 0 dA 2\nt1 0 dB 1\nt1 0 dN 0\nt2 0 dC 1\nt2 0 dN 0\n"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def err(excinfo) -> InputError:
    e = excinfo.value
    assert isinstance(e, InputError)
    return e


# -- small helpers ---------------------------------------------------------------
def test_run_name():
    assert run_name("CUNI_EN_Run.2.dat.gz") == "CUNI_EN_Run.2"
    assert run_name("runs/bm25.txt") == "bm25"
    assert run_name("bm25") == "bm25"
    assert run_name("a.res.gz") == "a"


def test_input_error_renders_file_line_text_and_fix():
    e = InputError("expected 6 fields (topic Q0 doc rank score tag), found 5", file="runs/a.txt", line=12,
                   text="q1 Q0 d1 1 2.5", hint="complete the line")
    assert str(e) == ("runs/a.txt, line 12: expected 6 fields (topic Q0 doc rank score tag), found 5\n"
                      "  line: 'q1 Q0 d1 1 2.5'\n  fix: complete the line")
    assert isinstance(e, ValueError) and (e.file, e.line, e.text) == ("runs/a.txt", 12, "q1 Q0 d1 1 2.5")


# -- qrels formats -----------------------------------------------------------
def test_trec_qrels(tmp_path):
    q = read_qrels(write(tmp_path, "qrels.txt", QRELS))
    assert isinstance(q, Qrels)
    assert q.frame.values.tolist() == [["t1", "dA", 2], ["t1", "dB", 1], ["t1", "dN", 0],
                                       ["t2", "dC", 1], ["t2", "dN", 0]]
    assert q.max_level == 2 and q.level_names is None and q.n_lines == 5
    assert q.level_judgments == {0: 2, 1: 2, 2: 1}


def test_ntcir_one_file_qrels_levels_and_letters():
    q = read_qrels(("q.txt", b"0001 dA L2\n0001 dB L0\n0002 dC L1\n"))
    assert q.frame.values.tolist() == [["0001", "dA", 2], ["0001", "dB", 0], ["0002", "dC", 1]]
    q = read_qrels(("q.txt", b"0001 dS S\n0001 dA A\n0001 dB B\n"))
    assert q.frame["level"].tolist() == [3, 2, 1]
    assert q.level_names == ("B", "A", "S")
    assert read_qrels(("q.txt", b"0001 dA 2\n")).frame["level"].tolist() == [2]
    c = load_collection(("q.txt", b"0001 dS S\n0001 dA A\n0001 dB B\n"), [("r.txt", b"0001 Q0 dA 1 1 x\n")])
    assert c.level_names == ("B", "A", "S") and c.max_level == 3


def test_ntcireval_rel_files_directory_zip_and_list(tmp_path):
    d = tmp_path / "rel"
    write(d, "0001.rel", b"dA L2\ndB L0\n")
    write(d, "0002.rel.gz", gzip.compress(b"dC L1\n"))
    expect = [["0001", "dA", 2], ["0001", "dB", 0], ["0002", "dC", 1]]
    assert read_qrels(d).frame.values.tolist() == expect
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("qrels/0001.rel", b"dA L2\ndB L0\n")
        z.writestr("qrels/0002.rel", b"dC L1\n")
    assert read_qrels(("rel.zip", buf.getvalue())).frame.values.tolist() == expect
    assert read_qrels([("0001.rel", b"dA L2\ndB L0\n"), ("0002.rel", b"dC L1\n")]).frame.values.tolist() == expect


def test_qrels_tolerates_bom_crlf_tabs_trailing_blanks_and_blank_lines():
    data = b"\xef\xbb\xbft1\t0\tdA\t2  \r\n\r\n   \nt1 0  dB 1\t\r\n"
    q = read_qrels(("q.txt", data))
    assert q.frame.values.tolist() == [["t1", "dA", 2], ["t1", "dB", 1]]


def test_negative_labels_count_as_non_relevant_with_one_warning():
    q = read_qrels(("qrels.txt", b"t1 0 d1 1\nt1 0 d2 0\nt1 0 d3 -1\nt1 0 d4 -2\n"))
    assert q.frame["level"].tolist() == [1, 0, 0, 0]
    assert q.warnings == ["qrels.txt: 2 judgments with a negative label (e.g. line 3: -1) count as non-relevant"]
    assert q.level_judgments == {0: 3, 1: 1}


def test_identical_duplicate_judgment_is_kept_once_with_a_warning():
    q = read_qrels(("qrels.txt", b"t1 0 d1 1\nt1 0 d1 1\n"))
    assert q.frame.values.tolist() == [["t1", "d1", 1]]
    assert len(q.warnings) == 1 and "duplicate" in q.warnings[0] and "line 2" in q.warnings[0]


# -- qrels errors ------------------------------------------------------------
@pytest.mark.parametrize("data, line, text, words, fix", [
    (b"t1 0 d1 1\nt1 0 d2 x\n", 2, "t1 0 d2 x", "relevance label 'x' is not an integer", "integers"),
    (b"t1 0 d1 1\nt1 0 d2 1.5\n", 2, "t1 0 d2 1.5", "'1.5' is not an integer", "integers"),
    (b"t1 0 d1 1\n\nt1 0 d2\n", 3, "t1 0 d2", "expected 4 fields (topic iter doc rel), found 3",
     "complete or remove"),
    (b"t1 0 d1 1\nt1 0 d2 1 extra\n", 2, "t1 0 d2 1 extra", "expected 4 fields (topic iter doc rel), found 5",
     "remove extra"),
    (b"t1 0 d1 1\nt1 0 d1 2\n", 2, "t1 0 d1 2", "judged twice for topic 't1' with different levels (1 on line 1",
     "one judgment per"),
    (b"t1 d1 L1\nt1 d2 Q\n", 2, "t1 d2 Q", "relevance level 'Q' is not of the form L<n>", "L0"),
])
def test_bad_qrels_lines(data, line, text, words, fix):
    with pytest.raises(InputError) as ei:
        read_qrels(("qrels.txt", data))
    e = err(ei)
    assert (e.file, e.line, e.text) == ("qrels.txt", line, text)
    assert words in str(e) and fix in e.hint and str(e).startswith(f"qrels.txt, line {line}: ")


@pytest.mark.parametrize("data, words", [
    (b"", "empty file"),
    (b"\n  \r\n", "empty file"),
    (b"\x1f\x8b\x08garbage", "not a valid gzip file"),
    (b"t1 0 d1 1\x00\x01\x02", "binary file"),
    (b"t1 0 d1 0\nt1 0 d2 0\n", "no relevant document"),
    (b"a b c d e f g\n", "not a qrels line"),
])
def test_bad_qrels_files(data, words):
    with pytest.raises(InputError) as ei:
        read_qrels(("qrels.txt", data))
    e = err(ei)
    assert e.file == "qrels.txt" and words in str(e) and e.hint


GZ_RUN = b"t1 Q0 dA 1 3 x\nt1 Q0 dZ 2 2 x\nt2 Q0 dC 1 1 x\n"


def _gz_members(*texts: bytes) -> bytes:
    # mtime=0: the same bytes, and so the same test ids, in every process (pytest-xdist's workers each collect
    # the tests, and a header holding the time of collection made their lists differ)
    return b"".join(gzip.compress(t, mtime=0) for t in texts)


@pytest.mark.parametrize("data", [
    _gz_members(GZ_RUN),
    _gz_members(GZ_RUN[:20], GZ_RUN[20:]),            # two members, as ``cat a.gz b.gz`` makes
    _gz_members(GZ_RUN[:20], b"", GZ_RUN[20:]),       # an empty member between them
    _gz_members(GZ_RUN) + b"\x00" * 7,               # zero padding after the last member
    b"\x00\x00".join(_gz_members(line) for line in GZ_RUN.splitlines(keepends=True)),  # a member a line, padded
])
def test_gzip_runs_read_as_pythons_gzip_reads_them(data):
    assert gzip.GzipFile(fileobj=io.BytesIO(data)).read() == GZ_RUN   # the reference
    assert read_run(("r.txt.gz", data)).ranking("q1") == read_run(("r.txt", GZ_RUN)).ranking("q1")


@pytest.mark.parametrize("data", [
    _gz_members(GZ_RUN)[:-3],                                   # truncated trailer
    _gz_members(GZ_RUN)[:30],                                   # truncated stream
    _gz_members(GZ_RUN) + b"junk",                              # not a member after the last one
    _gz_members(GZ_RUN)[:-4] + (2**32 - 1).to_bytes(4, "little"),   # a trailer stating the wrong size
    _gz_members(GZ_RUN)[:-8] + b"\x00\x00\x00\x00" + _gz_members(GZ_RUN)[-4:],  # a wrong CRC
])
def test_damaged_gzip_runs_are_refused(data):
    with pytest.raises((OSError, EOFError)):
        gzip.GzipFile(fileobj=io.BytesIO(data)).read()   # the reference refuses them too
    with pytest.raises(InputError) as ei:
        read_run(("r.txt.gz", data))
    assert "not a valid gzip file" in str(ei.value) and "re-compress" in ei.value.hint


def test_undecodable_qrels_names_the_line():
    with pytest.raises(InputError) as ei:
        read_qrels(("qrels.txt", b"t1 0 d1 1\nt1 0 d\xff\xfe 1\n"))
    e = err(ei)
    assert e.line == 2 and "UTF-8" in str(e) and "UTF-8" in e.hint


def test_missing_qrels_path(tmp_path):
    with pytest.raises(InputError) as ei:
        read_qrels(tmp_path / "nope.txt")
    assert "no such file" in str(ei.value)


# -- runs: order --------------------------------------------------------------
TIES = (b"t1 Q0 d10 1 1.5 x\n"
        b"t1 Q0 d2 2 1.5 x\n"
        b"t1 Q0 d9 3 2.0 x\n"
        b"t1 Q0 D1 4 1.5 x\n"
        b"t1 Q0 d1 5 0.5 x\n")


def test_trec_eval_order_score_descending_ties_by_doc_id_descending():
    r = read_run(("tie.txt", TIES))
    # byte-wise: "d9" > "d2" > "d10" > "D1" (upper case sorts before lower case)
    assert r.ranking("t1") == ["d9", "d2", "d10", "D1", "d1"]
    assert isinstance(r, Run) and r.name == "tie" and r.topics == ("t1",) and r.lengths.tolist() == [5]


def test_order_rank_and_file():
    data = b"t1 Q0 a 3 9 x\nt1 Q0 b 1 1 x\nt1 Q0 c 2 5 x\nt1 Q0 d 1 0 x\n"
    assert read_run(("r.txt", data), order="rank").ranking("t1") == ["b", "d", "c", "a"]
    assert read_run(("r.txt", data), order="file").ranking("t1") == ["a", "b", "c", "d"]
    assert read_run(("r.txt", data)).ranking("t1") == ["a", "c", "b", "d"]


def test_topics_in_natural_order():
    data = b"q.10 Q0 a 1 1 x\nq.2 Q0 a 1 1 x\nq.1 Q0 a 1 1 x\n"
    assert read_run(("r.txt", data)).topics == ("q.1", "q.2", "q.10")


def test_run_tolerates_bom_crlf_tabs_trailing_blanks(tmp_path):
    messy = (b"\xef\xbb\xbft1\tQ0\tdA\t1\t3.0\tx  \r\n\r\n"
             b"  t1 Q0   dB 2 2.0 x \r\n"
             b"t1 Q0 dN 3 1.0 x\t\n")
    r = read_run(("m.txt", messy))
    assert r.ranking("t1") == ["dA", "dB", "dN"]
    clean = b"t1 Q0 dA 1 3.0 x\nt1 Q0 dB 2 2.0 x\nt1 Q0 dN 3 1.0 x\n"
    a = load_collection(("q.txt", QRELS), [("m.txt", messy)])
    b = load_collection(("q.txt", QRELS), [("m.txt", clean)])
    assert a.fingerprint == b.fingerprint


# -- runs: errors ----------------------------------------------------------------
@pytest.mark.parametrize("data, kw, line, text, words, fix", [
    (b"q1 Q0 d0 1 3 x\nq1 Q0 d1 1 2.5\n", {}, 2, "q1 Q0 d1 1 2.5",
     "expected 6 fields (topic Q0 doc rank score tag), found 5", "complete or remove"),
    (b"q1 Q0 d0 1 3 x\nq1 Q0 d1 1 2.5 x y\n", {}, 2, "q1 Q0 d1 1 2.5 x y",
     "expected 6 fields (topic Q0 doc rank score tag), found 7", "remove the extra"),
    (b"q1 Q0 d0 1 3 x extra\nq1 Q0 d1 1 2.5 x\n", {}, 1, "q1 Q0 d0 1 3 x extra",
     "expected 6 fields (topic Q0 doc rank score tag), found 7", "remove the extra"),
    (b"q1 Q0 d0 1 3 x\n\nq1 Q0 d1 2 high x\n", {}, 3, "q1 Q0 d1 2 high x",
     "score 'high' is not a number", "5th field"),
    (b"q1 Q0 d0 1 3 x\nq1 Q0 d1 2.5 2 x\n", {"order": "rank"}, 2, "q1 Q0 d1 2.5 2 x",
     "rank '2.5' is not an integer", "order='score'"),
    (b"q1 Q0 d0 1 3 x\nq1 Q0 d1 2 2 x\nq1 Q0 d0 3 1 x\n", {}, 3, "q1 Q0 d0 3 1 x",
     "document 'd0' is listed twice for topic 'q1' (first on line 1)", "keep_first_duplicate=True"),
    (b"q1 Q0 d0 1 3 x\nq1 Q0 d0 2 3 x\n", {"order": "file"}, 2, "q1 Q0 d0 2 3 x",
     "listed twice", "--keep-first-duplicate"),
    (b"q1 0 d0 1\n", {}, 1, "q1 0 d0 1", "found 4", "give it as the qrels"),
])
def test_bad_run_lines(data, kw, line, text, words, fix):
    with pytest.raises(InputError) as ei:
        load_collection(("qrels.txt", b"q1 0 d0 1\n"), [("runs/a.txt", data)], **kw)
    e = err(ei)
    assert (e.file, e.line, e.text) == ("runs/a.txt", line, text)
    assert words in str(e) and fix in e.hint
    assert str(e).startswith(f"runs/a.txt, line {line}: ") and f"\n  line: {text!r}\n  fix: " in str(e)


def test_bad_line_in_messy_file_still_named_exactly():
    data = b"q1\tQ0\td0 1 3 x  \r\nq1 Q0 d1 1 2.5  \r\n"
    with pytest.raises(InputError) as ei:
        read_run(("a.txt", data))
    assert (ei.value.line, ei.value.text) == (2, "q1 Q0 d1 1 2.5  ")


def test_keep_first_duplicate_keeps_the_first_occurrence():
    data = b"q1 Q0 d0 1 1 x\nq1 Q0 d1 2 2 x\nq1 Q0 d0 3 3 x\nq2 Q0 d0 1 1 x\n"
    r = read_run(("a.txt", data), keep_first_duplicate=True)
    assert r.ranking("q1") == ["d1", "d0"] and r.ranking("q2") == ["d0"]
    assert len(r.warnings) == 1 and "1 repeated document dropped" in r.warnings[0]
    r = read_run(("a.txt", data), keep_first_duplicate=True, order="file")
    assert r.ranking("q1") == ["d0", "d1"]


@pytest.mark.parametrize("data, words", [
    (b"", "empty file"),
    (b"\x00\x01\x02\x03", "binary file"),
    (b"q1 Q0 \xff\xfe 1 1 x\n", "not valid UTF-8"),
])
def test_bad_run_files(data, words):
    with pytest.raises(InputError) as ei:
        load_collection(("qrels.txt", b"q1 0 d0 1\n"), [("a.txt", data)])
    assert ei.value.file == "a.txt" and words in str(ei.value) and ei.value.hint


def test_no_runs_empty_zip_and_duplicate_run_names(tmp_path):
    q = ("qrels.txt", b"q1 0 d0 1\n")
    for runs in (None, []):
        with pytest.raises(InputError, match="no runs"):
            load_collection(q, runs)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(".hidden", b"q1 Q0 d0 1 1 x\n")
        z.writestr("empty/", b"")
    with pytest.raises(InputError) as ei:
        load_collection(q, ("runs.zip", buf.getvalue()))
    assert ei.value.file == "runs.zip" and "no usable files" in str(ei.value)
    with pytest.raises(InputError) as ei:
        load_collection(q, ("runs.zip", b"PK not really"))
    assert "zip" in str(ei.value)
    with pytest.raises(InputError) as ei:
        load_collection(q, [("a/bm25.txt", b"q1 Q0 d0 1 1 x\n"), ("b/bm25.txt.gz", gzip.compress(b"q1 Q0 d0 1 1 x\n"))])
    assert "same name 'bm25'" in str(ei.value) and "a/bm25.txt" in str(ei.value) and "b/bm25.txt.gz" in str(ei.value)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="order must be one of"):
        read_run(("a.txt", b"q1 Q0 d0 1 1 x\n"), order="best")
    with pytest.raises(ValueError, match="depth"):
        load_collection(("q.txt", QRELS), [("a.txt", b"t1 Q0 d0 1 1 x\n")], depth=0)


# -- sources -----------------------------------------------------------------------
RUN_X = b"t1 Q0 dA 1 3 x\nt1 Q0 dZ 2 2 x\nt2 Q0 dC 1 1 x\n"
RUN_Y = b"t1 Q0 dB 1 3 y\n"


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in members.items():
            z.writestr(k, v)
    return buf.getvalue()


def _expected_x_y(c: Collection):
    assert c.run_ids == ("X", "Y") and c.topic_ids == ("t1", "t2")
    assert c.levels[0, 0, :2].tolist() == [2, 0] and c.unjudged[0, 0, :2].tolist() == [False, True]
    assert c.levels[0, 1, 0] == 1 and c.levels[1, 0, 0] == 1
    assert c.lengths.tolist() == [[2, 1], [1, 0]]


def test_sources_paths_gz_directory_zip_tuples_and_mixes(tmp_path):
    qp = write(tmp_path, "qrels.txt.gz", gzip.compress(QRELS))
    d = tmp_path / "runs"
    write(d, "X.txt", RUN_X)
    write(d, "Y.run.gz", gzip.compress(RUN_Y))
    write(d, ".DS_Store", b"\x00junk")
    (d / "sub").mkdir()
    _expected_x_y(load_collection(qp, d))
    _expected_x_y(load_collection(str(qp), [str(d / "X.txt"), d / "Y.run.gz"]))
    z = _zip({"X.txt.gz": gzip.compress(RUN_X), "inner/Y.dat": RUN_Y, "__MACOSX/._X.txt": b"\x00"})
    _expected_x_y(load_collection(("qrels.txt", QRELS), ("runs.zip", z)))
    zp = write(tmp_path, "runs.zip", _zip({"Y.txt": RUN_Y}))
    _expected_x_y(load_collection(("qrels.txt", QRELS), [("X.txt", RUN_X), zp]))
    c = load_collection(("qrels.txt", QRELS), [("X.txt", RUN_X)])
    assert c.name == "qrels.txt" and c.report.qrels_source == "qrels.txt"
    assert load_collection(qp, d, name="mine").name == "mine"


def test_progress_is_reported(tmp_path):
    seen = []
    load_collection(("q.txt", QRELS), [("X.txt", RUN_X), ("Y.txt", RUN_Y)], progress=seen.append)
    assert seen == [0.5, 1.0]


def test_ntcir_res_runs_directory_zip_and_subdirectories(tmp_path):
    q = [("t1.rel", b"dA L2\ndB L1\ndN L0\n"), ("t2.rel", b"dC L1\n")]
    d = tmp_path / "X"
    write(d, "t1.res", b"dA\ndZ\n")
    write(d, "t2.res.gz", gzip.compress(b"dC\n"))
    r = read_run(d)
    assert r.name == "X" and r.ranking("t1") == ["dA", "dZ"] and r.ranking("t2") == ["dC"]
    zy = ("Y.zip", _zip({"t1.res": b"dB\n"}))
    _expected_x_y(load_collection(q, [d, zy]))
    parent = tmp_path / "ntcir_runs"
    write(parent / "X", "t1.res", b"dA\ndZ\n")
    write(parent / "X", "t2.res", b"dC\n")
    write(parent / "Y", "t1.res", b"dB\n")
    _expected_x_y(load_collection(q, parent))
    zz = ("both.zip", _zip({"X/t1.res": b"dA\ndZ\n", "X/t2.res": b"dC\n", "Y/t1.res": b"dB\n"}))
    _expected_x_y(load_collection(q, zz))
    with pytest.raises(InputError) as ei:
        read_run(("t1.res", b"dA\ndA\n"))
    assert (ei.value.line, ei.value.text) == (2, "dA") and "keep_first_duplicate" in ei.value.hint
    with pytest.raises(InputError) as ei:
        read_run(("t1.res", b"dA\ndB 3\n"))
    assert ei.value.line == 2 and "expected 1 field" in str(ei.value)


def test_ntcir_one_file_qrels_with_trec_runs():
    c = load_collection(("q.txt", b"t1 dA S\nt1 dB A\nt1 dN B\n"), [("X.txt", b"t1 Q0 dB 1 2 x\nt1 Q0 dA 2 1 x\n")])
    assert c.levels[0, 0, :2].tolist() == [2, 3] and c.level_counts.tolist() == [[0, 1, 1, 1]]


# -- collection semantics ------------------------------------------------------------
def test_missing_and_ignored_topics_levels_counts_and_report():
    qrels = b"t1 0 dA 2\nt1 0 dB 1\nt1 0 dN 0\nt2 0 dC 1\nt3 0 dN 0\nt10 0 dD 3\n"
    run = b"t1 Q0 dN 1 5 x\nt1 Q0 dU 2 4 x\nt1 Q0 dA 3 3 x\nt9 Q0 dA 1 1 x\nt3 Q0 dN 1 1 x\nt10 Q0 dD 1 1 x\n"
    c = load_collection(("qrels.txt", qrels), [("X.txt", run)])
    assert c.topic_ids == ("t1", "t2", "t10")          # natural order; t3 has no relevant document
    assert c.max_level == 3
    assert c.level_counts.tolist() == [[1, 1, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]
    assert c.lengths.tolist() == [[3, 0, 1]]
    assert c.levels[0, 0].tolist() == [0, 0, 2] and c.unjudged[0, 0].tolist() == [False, True, False]
    assert c.levels[0, 1].sum() == 0 and c.levels[0, 2, 0] == 3
    rep = c.report
    assert rep.topics_without_relevant == ["t3"]
    assert rep.ignored_run_topics == {"X": ["t9"]}
    assert rep.missing_run_topics == {"X": ["t2"]}
    assert rep.level_judgments == {0: 2, 1: 2, 2: 1, 3: 1}
    assert rep.n_qrels_lines == 6 and rep.n_run_lines == 6
    assert "t9" in rep.summary(c)


def test_condensed_drops_unjudged_documents():
    run = b"t1 Q0 dU 1 5 x\nt1 Q0 dA 2 4 x\nt1 Q0 dV 3 3 x\nt1 Q0 dB 4 2 x\n"
    c = load_collection(("q.txt", QRELS), [("X.txt", run)], condensed=True)
    assert c.lengths[0, 0] == 2 and c.levels[0, 0, :2].tolist() == [2, 1]
    assert load_collection(("q.txt", QRELS), [("X.txt", run)]).levels[0, 0].tolist() == [0, 2, 0, 1]


def test_depth_truncates_every_list():
    run = b"t1 Q0 dU 1 5 x\nt1 Q0 dA 2 4 x\nt1 Q0 dV 3 3 x\nt1 Q0 dB 4 2 x\nt2 Q0 dC 1 1 x\n"
    c = load_collection(("q.txt", QRELS), [("X.txt", run)], depth=2)
    assert c.depth == 2 and c.lengths.tolist() == [[2, 1]] and c.levels[0, 0].tolist() == [0, 2]
    assert load_collection(("q.txt", QRELS), [("X.txt", run)]).depth == 4


def test_unjudged_docs_judged_for_another_topic_are_unjudged_here():
    c = load_collection(("q.txt", QRELS), [("X.txt", b"t2 Q0 dA 1 1 x\nt2 Q0 dC 2 0 x\n")])
    assert c.levels[0, 1, :2].tolist() == [0, 1] and c.unjudged[0, 1, :2].tolist() == [True, False]


# -- the real collection -----------------------------------------------------------
def _reference_levels(qrels_path: Path, run_path: Path, topics) -> dict[str, list[int]]:
    """Plain-Python trec_eval ordering: score descending, then doc id descending (byte-wise).
    trec_eval keeps scores in a C float (trec_format.h: ``float sim``), hence float32."""
    judged = {}
    for line in qrels_path.read_text().splitlines():
        t, _, d, r = line.split()
        judged[(t, d)] = max(int(r), 0)
    lists: dict[str, list[tuple[float, bytes]]] = {}
    for line in gzip.decompress(run_path.read_bytes()).splitlines():
        f = line.split()
        if f:
            lists.setdefault(f[0].decode(), []).append((float(np.float32(float(f[4]))), f[2]))
    out = {}
    for t in topics:
        ranked = sorted(lists.get(t, []), key=lambda sd: (sd[0], sd[1]), reverse=True)
        out[t] = [judged.get((t, d.decode()), 0) for _, d in ranked]
    return out


@pytest.fixture(scope="module")
def clef(clef2015):
    return load_collection(clef2015 / "qrels.txt", clef2015 / "runs")


def test_clef2015_shape_and_report(clef, clef2015):
    q = read_qrels(clef2015 / "qrels.txt")
    assert len(q.topics) == 66                      # qrels topics
    assert clef.report.level_judgments == {0: 6741, 1: 1515, 2: 457}
    assert clef.report.topics_without_relevant == ["qtest.42"]   # all 144 judgments non-relevant
    assert clef.n_topics == 65 and clef.n_runs == 30 and clef.max_level == 2
    assert clef.topic_ids[:3] == ("qtest.1", "qtest.2", "qtest.3") and clef.depth == 1000
    assert clef.report.n_run_lines == 1_984_000
    assert clef.run_ids[0] == "CUNI_EN_Run.2" and "KISTI_EN_RUN.6" in clef.run_ids
    assert int(clef.level_counts[:, 1:].sum()) == 1515 + 457


def test_clef2015_the_twin_runs(clef):
    """KISTI_EN_RUN.6 and .8 retrieve the same documents with scores that differ
    around the 7th significant digit, so a few near-ties swap, both in file
    order and in trec_eval's order: same lengths and per-topic level multisets,
    levels equal at all but 47 of 65,000 ranks (the plain-Python reference
    below agrees, and AP equals pytrec_eval's on every run and topic)."""
    a, b = clef.run_ids.index("KISTI_EN_RUN.6"), clef.run_ids.index("KISTI_EN_RUN.8")
    assert np.array_equal(clef.lengths[a], clef.lengths[b])
    assert np.array_equal(np.sort(clef.levels[a], axis=1), np.sort(clef.levels[b], axis=1))
    assert int((clef.levels[a] != clef.levels[b]).sum()) == 47


def test_scores_compare_in_single_precision_like_trec_eval():
    # equal as C floats -> tie -> doc id descending ("b" before "a") although a's double is larger
    r = read_run(("r.txt", b"q Q0 a 1 0.0019528380786704603 x\nq Q0 b 2 0.0019528380786704601 x\n"))
    assert r.ranking("q") == ["b", "a"]


@pytest.mark.parametrize("run", ["TeamHCMUS_EN_Run.1", "ECNU_EN_Run.1", "KISTI_EN_RUN.6", "KISTI_EN_RUN.8"])
def test_clef2015_levels_match_a_plain_python_trec_eval_reference(clef, clef2015, run):
    ref = _reference_levels(clef2015 / "qrels.txt", clef2015 / "runs" / f"{run}.dat.gz", clef.topic_ids)
    r = clef.run_ids.index(run)
    for j, t in enumerate(clef.topic_ids):
        n = clef.lengths[r, j]
        assert n == len(ref[t]), t
        assert clef.levels[r, j, :n].tolist() == ref[t], t
        assert not clef.levels[r, j, n:].any()


def test_forced_formats():
    assert read_qrels(("judgments", b"dA L1\n"), fmt="rel").frame.values.tolist() == [["judgments", "dA", 1]]
    assert read_qrels(("0007.txt", b"dA L1\n"), fmt="ntcir").frame["topic"].tolist() == ["0007"]
    with pytest.raises(InputError) as ei:
        read_qrels(("q.txt", b"t1 dA L1\n"), fmt="trec")
    assert ei.value.line == 1 and "expected 4 fields" in str(ei.value)
    r = read_run(("0003.txt", b"dB\ndA\n"), fmt="ntcir")
    assert r.topics == ("0003",) and r.ranking("0003") == ["dB", "dA"]
    with pytest.raises(ValueError, match="fmt must be one of"):
        read_qrels(("q.txt", QRELS), fmt="csv")


def test_unusual_but_valid_lines_take_the_line_by_line_path():
    data = b"t1 Q0 dA +2 1 x\nt1 Q0 dB +1 2 x\nt1\x0bQ0 dC 3 3 x\n"
    assert read_run(("r.txt", data), order="rank").ranking("t1") == ["dB", "dA", "dC"]
    assert read_run(("r.txt", data)).ranking("t1") == ["dC", "dB", "dA"]


def test_undecodable_line_number_with_crlf():
    with pytest.raises(InputError) as ei:
        read_run(("r.txt", b"t1 Q0 dA 1 1 x\r\nt1 Q0 d\xff 2 0 x\r\n"))
    assert ei.value.line == 2 and ei.value.text.startswith("t1 Q0 d")


def test_depth_larger_than_every_list_keeps_the_tensor_small():
    c = load_collection(("q.txt", QRELS), [("X.txt", RUN_X)], depth=1000)
    assert c.depth == 2 and c.lengths.tolist() == [[2, 1]]


def test_a_tab_deep_in_a_clean_file_is_still_a_separator():
    body = b"".join(b"q1 Q0 d%d %d %d x\n" % (i, i, 100000 - i) for i in range(20000))
    bad = body + b"q1\tQ0 dX 1 2.5 x y\n"
    with pytest.raises(InputError) as ei:
        read_run(("r.txt", bad))
    assert ei.value.line == 20001 and "found 7" in str(ei.value)
    ok = body + b"q1\tQ0\tdX\t1\t2.5\tx\n"
    assert read_run(("r.txt", ok)).lengths.tolist() == [20001]


def test_a_run_whose_lines_end_in_a_blank_is_read_without_a_cleaned_copy(monkeypatch):
    """One blank ending every line (as some systems write runs) is read as it is, with a seventh, empty
    column; a line deep in the file that breaks the pattern sends the file to the cleaner, which then
    reads it or names the bad line as for any other file."""
    from evalcore.io import _runs

    body = b"".join(b"q1 Q0 d%d %d %d x \n" % (i, i, 100000 - i) for i in range(20000))
    plain = body.replace(b" \n", b"\n")
    calls = []
    real = _runs.clean_blanks
    monkeypatch.setattr(_runs, "clean_blanks", lambda d: calls.append(1) or real(d))
    a, b = read_run(("r.txt", body)), read_run(("r.txt", plain))
    assert calls == []
    assert a.ranking("q1") == b.ranking("q1") and len(a.ranking("q1")) == 20000
    assert read_run(("r.txt", body.replace(b"\r", b"").replace(b" \n", b" \r\n"))).ranking("q1") == b.ranking("q1")
    assert calls == []
    # the last line without its blank: read after all (cleaned), the same rows
    assert read_run(("r.txt", body + b"q1 Q0 dX 0 200000 x\n")).ranking("q1")[0] == "dX"
    assert calls == [1]
    assert read_run(("r.txt", body + b"q1 Q0 dX 0 200000 x  \n")).ranking("q1")[0] == "dX"  # two blanks
    for bad, n in ((b"q1 Q0 dX 1 2.5 \n", 5), (b"q1 Q0 dX 1 2.5 x y \n", 7)):
        with pytest.raises(InputError) as ei:
            read_run(("r.txt", body + bad))
        assert ei.value.line == 20001 and f"found {n}" in str(ei.value), bad
    # a seventh field that is not empty is no trailing blank
    with pytest.raises(InputError) as ei:
        read_run(("r.txt", body[:-2] + b" y \n"))
    assert ei.value.line == 20000 and "found 7" in str(ei.value)


def test_missing_field_hidden_by_blanks_deep_in_the_file_is_an_error():
    body = b"".join(b"q1 Q0 d%d %d %d x\n" % (i, i, 100000 - i) for i in range(20000))
    for bad, n in ((b"q1 Q0 dX 1 2.5 \n", 5), (b"q1  dX 1 2.5 x\n", 5), (b" q1 Q0 dX 1 2.5\n", 5)):
        with pytest.raises(InputError) as ei:
            read_run(("r.txt", body + bad))
        assert ei.value.line == 20001 and f"found {n}" in str(ei.value), bad
