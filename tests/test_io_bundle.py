"""One zip holding a collection's qrels and runs (evalcore.io._bundle), and the load report's one line
per repeated problem (LoadReport.summary / grouped_warnings)."""
from __future__ import annotations

import io
import zipfile

import pytest

from evalcore.collection import LoadReport, group_by_subject
from evalcore.io import InputError, load_collection

QRELS = b"t1 0 dA 2\nt1 0 dB 1\nt1 0 dN 0\nt2 0 dC 1\n"
RUN_A = b"t1 Q0 dB 1 3.0 a\nt1 Q0 dA 2 2.0 a\nt2 Q0 dC 1 1.0 a\n"
RUN_B = b"t1 Q0 dA 1 3.0 b\nt1 Q0 dN 2 2.0 b\n"


def zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize("qrels_name", ["qrels.txt", "data/judgments", "trec.qrels.gz"])
def test_one_zip_with_qrels_and_runs_loads_as_the_separate_files_do(qrels_name):
    import gzip
    q = gzip.compress(QRELS) if qrels_name.endswith(".gz") else QRELS
    c = load_collection(("trec.zip", zipped({qrels_name: q, "runs/a.txt": RUN_A, "runs/b": RUN_B})))
    assert c.run_ids == ("a", "b") and c.topic_ids == ("t1", "t2")
    # by hand from the files: run a ranks B (1), A (2) on t1 and C (1) on t2; run b ranks A (2), N (0)
    assert c.lengths.tolist() == [[2, 1], [2, 0]]
    assert c.levels[0, 0, :2].tolist() == [1, 2] and c.levels[0, 1, 0] == 1
    assert c.levels[1, 0, :2].tolist() == [2, 0]
    assert c.report.qrels_source == f"trec.zip:{qrels_name}"


def test_a_zip_of_ntcir_rel_and_res_files_splits_by_extension(tmp_path):
    files = {"rels/t1.rel": b"dA L2\ndB L1\n", "rels/t2.rel": b"dC L1\n",
             "sysA/t1.res": b"dB\ndA\n", "sysA/t2.res": b"dC\n"}
    path = tmp_path / "ntcir.zip"
    path.write_bytes(zipped(files))
    c = load_collection(str(path))                # a path works as an upload does
    assert c.run_ids == ("sysA",) and c.levels[0, 0, :2].tolist() == [1, 2] and c.levels[0, 1, 0] == 1


@pytest.mark.parametrize("files, words", [
    ({"q1.txt": QRELS, "q2.txt": QRELS, "a": RUN_A}, "2 files that look like qrels"),
    ({"a": RUN_A, "b": RUN_B}, "holds no qrels"),
    ({"qrels": QRELS}, "no runs"),
    ({"qrels": QRELS, "a": RUN_A, "notes.txt": b"hello world\n"}, "cannot tell whether this member"),
])
def test_an_ambiguous_zip_says_what_it_found_and_what_to_do(files, words):
    with pytest.raises(InputError) as e:
        load_collection(("all.zip", zipped(files)))
    assert words in str(e.value) and e.value.hint and "separately" in e.value.hint


def test_a_run_topic_missing_from_the_qrels_in_every_run_is_one_line_with_the_count():
    runs = [(f"r{i}.txt", b"t1 Q0 dA 1 2.0 x\nt9 Q0 dA 1 2.0 x\n") for i in range(7)]
    c = load_collection(("qrels.txt", QRELS), runs)
    lines = [ln for ln in c.report.summary(None).splitlines() if "not in the qrels" in ln]
    assert lines == ["7 runs (r0, r1, r2, r3, r4, ...): 1 topic(s) not in the qrels ignored: t9"]


def test_warnings_repeated_across_runs_or_files_are_said_once_with_their_count():
    rep = LoadReport(warnings=["run a: 2 topics written differently", "run b: 2 topics written differently",
                               "q.txt: 3 duplicate judgments", "run c: 1 repeated document dropped",
                               "same words", "same words"])
    assert rep.grouped_warnings() == ["2 runs (a, b): 2 topics written differently", "q.txt: 3 duplicate judgments",
                                      "run c: 1 repeated document dropped", "same words (2 times)"]
    assert group_by_subject(["x.txt: bad", "y.txt: bad"]) == ["2 files (x.txt, y.txt): bad"]


@pytest.mark.parametrize("member", ["qrels.txt", "runs/b"])
def test_a_damaged_member_is_named_as_an_unreadable_zip_not_a_traceback(member):
    """Flipped bytes in one member's deflate stream: zlib's error, met while sniffing ("runs/b" has no
    extension, so its head is read) or while reading, reaches the user as one InputError naming the archive."""
    files = {"qrels.txt": QRELS * 50, "runs/a.txt": RUN_A * 50, "runs/b": RUN_B * 50}
    data = bytearray(zipped(files))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(member)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for k in range(start + 2, start + 12):
        data[k] ^= 0xFF
    with pytest.raises(InputError) as e:
        load_collection(("trec.zip", bytes(data)))
    assert str(e.value).startswith("trec.zip: not a readable zip file (")
    assert "re-create the archive with a standard zip tool" in str(e.value)
