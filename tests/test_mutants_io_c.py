"""Tests that kill surviving mutants of evalcore/io/ (docs/mutation.md), part C.

Files: _frames, _qrels, _runs, _arrow, _jsonl, _lines, _order. Every expected value is a hand
computation or the exact words of an error message; each test names the row (file:line) it pins down.
"""
from __future__ import annotations

from collections import namedtuple

import pandas as pd
import pyarrow as pa
import pytest

from evalcore.io import _arrow as ak
from evalcore.io import load_collection, read_qrels, read_run
from evalcore.io._frames import as_frame, python_sources
from evalcore.io._lines import raw_blocks
from evalcore.io.errors import InputError

Q = namedtuple("TrecQrel", "query_id doc_id relevance iteration")


def _ranx(kind: str, d: dict, name=None):
    """A stand-in for a ranx object: recognised by its class's module and its to_dict method."""
    cls = type(kind, (), {"__module__": "ranx.data_structures", "to_dict": lambda self: d})
    obj = cls()
    if name is not None:
        obj.name = name
    return obj


# --- _qrels.py (two files: the line loop, not the single-file fast path) ---

def test_qrels_letter_levels_named_line_loop():
    """_qrels.py:167: an S/A/B label makes the level names B, A, S (levels 1, 2, 3)."""
    q = read_qrels([("a.txt", b"t1 d1 S\n"), ("b.txt", b"t1 d2 L0\n")], fmt="ntcir")
    assert q.level_names == ("B", "A", "S")


def test_qrels_level_judgments_counted_line_loop():
    """_qrels.py:280: judgments per level: two at level 1, one at level 0."""
    q = read_qrels([("a.txt", b"t1 0 d1 1\nt1 0 d2 1\n"), ("b.txt", b"t1 0 d3 0\n")])
    assert q.level_judgments == {0: 1, 1: 2}


def test_qrels_identical_duplicates_warn_line_loop():
    """_qrels.py:348 and :364: identical repeats are no clash; two of them: 'judgments' (plural)."""
    q = read_qrels([("a.txt", b"t1 0 d1 1\nt1 0 d1 1\nt1 0 d1 1\n"), ("b.txt", b"t1 0 d2 0\n")])
    assert "a.txt: 2 duplicate judgments (same topic, document and level; e.g. line 2) counted once" in q.warnings
    assert q.frame.values.tolist() == [["t1", "d1", 1], ["t1", "d2", 0]]


def test_arrow_cast_safe_checks_truncation():
    """_arrow.py:34: cast is safe by default (1.5 -> int64 refused); safe=False truncates to 1.
    (Through read_qrels the row is not observable: pyarrow range-checks string -> int8 parses either way.)"""
    with pytest.raises(pa.ArrowInvalid):
        ak.cast(pa.array([1.5]), pa.int64())
    assert ak.cast(pa.array([1.5]), pa.int64(), safe=False).to_pylist() == [1]


# --- _frames.py ---

def test_as_frame_single_record_list():
    """_frames.py:84: a list of one record is a one-row frame."""
    df = as_frame([Q("1", "d1", 2, "0")], "qrels", "qrels")
    assert df.values.tolist() == [["1", "d1", 2, "0"]]


class _PathIter:
    """A path-like object that is also an iterator."""

    def __fspath__(self):
        return "q.txt"

    def __iter__(self):
        return self

    def __next__(self):
        raise StopIteration


def test_as_frame_pathlike_passes_through():
    """_frames.py:115: anything with __fspath__ is a path, passed on unchanged (never iterated)."""
    p = _PathIter()
    assert as_frame(p, "qrels", "qrels") is p


def test_ranx_qrels_recognised():
    """_frames.py:140: a ranx Qrels (module ranx.*, with to_dict) becomes a pytrec_eval dict."""
    qrels, _ = python_sources(_ranx("Qrels", {1: {"d1": 2}}), None)
    assert qrels == {"1": {"d1": 2}}


def test_ranx_run_list_names():
    """_frames.py:167: a list of ranx Runs keeps each run's name; an unnamed one is run<i>."""
    a = _ranx("Run", {"q": {"d": 1.0}}, name="bm25")
    b = _ranx("Run", {"q": {"d": 2.0}})
    _, runs = python_sources({"1": {"d": 1}}, [a, b])
    assert list(runs) == ["bm25", "run2"]
    assert runs["run2"] == {"q": {"d": 2.0}}


def test_empty_qrels_iterable_message():
    """_frames.py:182: the message names the qrels in lower case."""
    with pytest.raises(InputError) as e:
        python_sources(iter([]), None)
    assert e.value.message == "the iterable of qrels records yielded nothing"


def test_qrels_frame_wrong_columns_lists_them():
    """_frames.py:198: the error lists the columns the DataFrame has."""
    with pytest.raises(InputError) as e:
        read_qrels(pd.DataFrame({"a": ["1"], "b": ["d"]}))
    assert e.value.message.endswith("; it has a, b")


def test_qrels_frame_label_not_number_message():
    """_frames.py:229: a non-numeric label is 'not an integer relevance label'."""
    with pytest.raises(InputError) as e:
        read_qrels(pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": ["x"]}))
    assert e.value.message == "row 0: column 'label' holds 'x', not an integer relevance label"


def test_qrels_frame_very_negative_label_clipped():
    """_frames.py:247: -1e19 (below -2**62) is clipped to -2**62 before the int64 conversion."""
    q = read_qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "label": [-1e19, 1]}))
    assert q.warnings == [f"qrels DataFrame: 1 judgment with a negative label (e.g. row 0: {-2 ** 62}) "
                          "count as non-relevant"]
    assert q.frame["level"].tolist() == [0, 1]


def test_qrels_frame_clash_by_topic_and_doc():
    """_frames.py:285: one (topic, doc) with two levels is an error, though the rows differ."""
    with pytest.raises(InputError) as e:
        read_qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d1"], "label": [1, 2]}))
    assert e.value.message == "document 'd1' is judged twice for topic '1' with different levels (rows 0 and 1)"


def test_qrels_frame_duplicates_dropped_columns():
    """_frames.py:298: after dropping a duplicate the frame has just topic, doc, level."""
    q = read_qrels(pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["d1", "d1", "d2"], "label": [1, 1, 0]}))
    assert list(q.frame.columns) == ["topic", "doc", "level"]
    assert q.frame.values.tolist() == [["1", "d1", 1], ["1", "d2", 0]]


def test_run_frame_read():
    """_frames.py:320: a run DataFrame, ranked by score descending."""
    r = read_run(pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [1.0, 2.0]}), name="x")
    assert r.ranking("q1") == ["b", "a"]


def test_run_frame_duplicate_names_rows():
    """_frames.py:332: the duplicate error names the repeat's row and the first row."""
    with pytest.raises(InputError) as e:
        read_run(pd.DataFrame({"qid": ["q1", "q1", "q1"], "docno": ["d1", "d2", "d1"], "score": [3.0, 2.0, 1.0]}))
    assert e.value.message == "row 2: document 'd1' is listed twice for topic 'q1' (first in row 0)"


# --- _runs.py, _jsonl.py, _order.py ---

def test_jsonl_run_under_txt_keeps_order():
    """_runs.py:44: a JSON-lines run under .txt honours order='rank' (ranks, not scores)."""
    data = b'{"query_id": "q1", "doc_id": "a", "score": 1.0, "rank": 1}\n' \
           b'{"query_id": "q1", "doc_id": "b", "score": 2.0, "rank": 2}\n'
    assert read_run(("r.txt", data), order="rank").ranking("q1") == ["a", "b"]
    assert read_run(("r.txt", data)).ranking("q1") == ["b", "a"]


def test_ntcir_empty_res_message(tmp_path):
    """_runs.py:122: an NTCIR .res file of comments only: 'empty run: no document ids'."""
    (tmp_path / "t1.res").write_bytes(b"# no documents\n")
    with pytest.raises(InputError) as e:
        read_run(tmp_path, fmt="ntcir")
    assert e.value.message == "empty run: no document ids"


def test_read_run_bad_limits_message():
    """_runs.py:187: the error names the type given."""
    with pytest.raises(ValueError, match=r"^limits must be an evalcore.io.Limits; got int$"):
        read_run(("r.txt", b"q1 Q0 d1 1 1.0 x\n"), limits=5)


def test_jsonl_duplicate_message():
    """_jsonl.py:72: the duplicate error names the document, topic and first line."""
    data = b'{"query_id": "q1", "doc_id": "d1", "score": 1.0}\n{"query_id": "q1", "doc_id": "d1", "score": 0.5}\n'
    with pytest.raises(InputError) as e:
        read_run(("r.jsonl", data))
    assert e.value.message == "document 'd1' is listed twice for topic 'q1' (first on line 1)"
    assert e.value.line == 2


def test_keep_first_duplicate_levels_in_collection():
    """_order.py:106: with keep_first_duplicate the judged levels follow the kept rows: d2 (level 2)
    ranked first, d1 (level 1) second; the repeat of d2 is dropped."""
    c = load_collection(("q.txt", b"t1 0 d1 1\nt1 0 d2 2\n"),
                        [("r.txt", b"t1 Q0 d2 1 3.0 x\nt1 Q0 d1 2 2.0 x\nt1 Q0 d2 3 1.0 x\n")],
                        keep_first_duplicate=True)
    assert c.levels.tolist() == [[[2, 1]]]


# --- _lines.py ---

def test_raw_blocks_cut_at_cr_within_block():
    """_lines.py:28: with only CR line ends, a block of 3 bytes is cut at the last CR inside it."""
    assert list(raw_blocks(b"a\rb\rc\rd\r", 3)) == [[b"a"], [b"b"], [b"c"], [b"d"]]
