"""Tests that kill surviving mutants of evalcore/io/ (docs/mutation.md, "the sampled survivors",
part D: _assemble, _bundle, _dochash, _sources, _stream, _trec_fast, _trec_lines, limits).
Every expected value is worked out by hand from the tiny inputs below or is a documented message."""
from __future__ import annotations

import gzip
import io
import zipfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from evalcore.io import InputError, Limits, load_collection
from evalcore.io._assemble import _judgments
from evalcore.io._dochash import Strings
from evalcore.io._trec_fast import blank_layout
from evalcore.io.limits import read_limited

QRELS = b"t1 0 dA 2\nt1 0 dB 1\nt2 0 dC 1\n"
RUN_A = b"t1 Q0 dB 1 3.0 a\nt1 Q0 dA 2 2.0 a\nt2 Q0 dC 1 1.0 a\n"


def zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


# ---- limits.py -------------------------------------------------------------------------------------

def test_read_limited_missing_file_names_the_os_reason(tmp_path):
    p = tmp_path / "absent.txt"
    with pytest.raises(InputError) as ei:
        read_limited(p, 100, hint="h")
    assert ei.value.message == "cannot read the file (No such file or directory)"
    assert ei.value.file == str(p)


def test_read_limited_file_growing_past_its_disk_size_names_the_file():
    # /proc files say 0 bytes on disk but hold more: refused past the limit, naming the file
    name = "/proc/self/status"
    with pytest.raises(InputError) as ei:
        read_limited(name, 10, hint="raise it")
    assert ei.value.file == name
    assert ei.value.message == "the file holds more than 10 bytes, the input limit (its size on disk said 0 bytes)"
    assert ei.value.hint == "raise it"


def test_total_expansion_budget_hint_names_both_ways_to_raise_it():
    # two gzip runs of 2000 bytes each: each within its own limit, 4000 together over a 3000-byte budget
    body = b"".join(b"t1 Q0 d%04d 1 1.0 r\n" % i for i in range(100))
    assert len(body) == 2000
    lim = Limits(max_total_expanded=3000)
    with pytest.raises(InputError) as ei:
        load_collection(("q.txt", QRELS), [("a.txt.gz", gzip.compress(body)), ("b.txt.gz", gzip.compress(body))],
                        limits=lim)
    assert ei.value.hint == ("load fewer compressed files at once, or raise the limit: limits=Limits("
                             "max_total_expanded=...) or --max-expanded SIZE")


# ---- _bundle.py ------------------------------------------------------------------------------------

def test_bundle_member_named_gz_but_not_gzip_has_an_empty_head():
    # "judg.gz" holds plain text: its head cannot be gunzipped, so it reads as empty and cannot be told
    data = zipped({"judg.gz": b"t1 0 dA 2\n", "a.txt": RUN_A})
    with pytest.raises(InputError) as ei:
        load_collection(("b.zip", data))
    assert ei.value.message == ("cannot tell whether this member holds qrels or a run: its first line has "
                                "0 field(s): ''")


def test_bundle_with_seven_qrels_lists_only_the_first_six():
    files = {f"qrels{i}.txt": QRELS for i in range(1, 8)}
    files["a.txt"] = RUN_A
    with pytest.raises(InputError) as ei:
        load_collection(("b.zip", zipped(files)))
    names = "'qrels1.txt', 'qrels2.txt', 'qrels3.txt', 'qrels4.txt', 'qrels5.txt', 'qrels6.txt'"
    assert ei.value.message == (f"this archive holds 7 files that look like qrels ({names} ...): "
                                "which one holds the judgments is ambiguous")


# ---- _sources.py -----------------------------------------------------------------------------------

def test_member_limit_hint_names_the_cli_option():
    data = zipped({"qrels.txt": QRELS, "a.txt": RUN_A, "b.txt": RUN_A})
    with pytest.raises(InputError) as ei:
        load_collection(("q.txt", QRELS), ("runs.zip", data), limits=Limits(max_members=2))
    assert ei.value.hint == ("put fewer files in one archive, or raise the limit: limits=Limits(max_members=...)"
                             " or --max-members N")


def test_empty_qrels_directory_error_names_the_directory(tmp_path):
    d = tmp_path / "rels"
    d.mkdir()
    with pytest.raises(InputError) as ei:
        load_collection(d, [("a.txt", RUN_A)])
    assert ei.value.message == "the directory holds no files"
    assert ei.value.file == str(d)


def test_named_frame_runs_keep_their_names():
    qrels = pd.DataFrame({"query_id": ["t1"], "doc_id": ["dA"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["t1"], "doc_id": ["dA"], "score": [1.0]})
    c = load_collection(qrels, {"alpha": run, "beta": run})
    assert c.run_ids == ("alpha", "beta")


def test_zipped_runs_with_one_name_are_refused_naming_both_members():
    r = b"t1 Q0 dA 1 1.0 a\n"
    with pytest.raises(InputError) as ei:
        load_collection(("q.txt", QRELS), ("runs.zip", zipped({"x/a.txt": r, "y/a.txt": r})))
    assert ei.value.message == "two runs have the same name 'a': runs.zip:x/a.txt and runs.zip:y/a.txt"


# ---- _trec_lines.py --------------------------------------------------------------------------------

def test_run_read_by_the_line_parser_is_ordered_by_score():
    # a tab before "#" keeps the comment past the fast comment filter, so the arrow reader refuses the
    # file and the line parser reads it: dA (2.5) ranks before dB (1.0) whatever the file order
    run = b"t1 Q0 dB 1 1.0 a\nt1 Q0 dA 2 2.5 a\n\t# a note\n"
    c = load_collection(("q.txt", b"t1 0 dA 2\nt1 0 dB 1\n"), [("a.txt", run)])
    assert c.levels[0, 0, :2].tolist() == [2, 1] and c.lengths.tolist() == [[2]]


# ---- _dochash.py -----------------------------------------------------------------------------------

def test_strings_of_an_empty_array_holds_no_strings():
    s = Strings.of(pa.array([], pa.string()))
    assert s.starts.tolist() == [] and s.lens.tolist() == []


def test_a_slice_of_contiguous_equal_strings_is_still_even():
    s = Strings.of(pa.array(["abcdefgh", "ijklmnop", "qrstuvwx"]))
    assert s.even() == 8
    assert s.slice(0, 2).even() == 8


# ---- _trec_fast.py ---------------------------------------------------------------------------------

def test_blank_layout_of_single_blanks_is_plain():
    assert blank_layout(b"t1 Q0 d1 1 1.0 r\nt1 Q0 d2 2 0.5 r\n") == "plain"
    assert blank_layout(b"t1 Q0 d1 1 1.0 r \n") == "trailing"


# ---- _assemble.py ----------------------------------------------------------------------------------

def test_judgments_from_large_string_doc_ids():
    # doc ids as large_string (what the parsers build past 2 GiB of ids) are indexed as plain strings:
    # t1 holds one document at level 2 and one at level 1, t2 one at level 1
    J = _judgments(pa.array(["t1", "t1", "t2"]), pa.array(["dA", "dB", "dC"], pa.large_string()),
                   np.array([2, 1, 1], np.int8), ["t1", "t2"], 2)
    assert J.level_counts.tolist() == [[0, 1, 1], [0, 1, 0]]


def test_first_topic_without_relevant_documents_gets_its_list():
    # t1 has a relevant document; t2 and t3 are judged with none relevant. The run retrieves 2 documents
    # for t2 and 1 for t3: no_relevant holds those lists (lengths 2 and 1, judged dX at rank 1 of t2).
    qrels = b"t1 0 dA 1\nt2 0 dX 0\nt3 0 dY 0\n"
    run = b"t1 Q0 dA 1 3.0 a\nt2 Q0 dX 1 3.0 a\nt2 Q0 dZ 2 2.0 a\nt3 Q0 dY 1 1.0 a\n"
    c = load_collection(("q.txt", qrels), [("a.txt", run)])
    assert c.topics_without_relevant == ("t2", "t3")
    side = c.no_relevant
    assert side.lengths.tolist() == [[2, 1]]
    assert side.unjudged[0, 0, :2].tolist() == [False, True]
