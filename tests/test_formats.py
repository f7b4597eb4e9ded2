"""The run formats' table (evalcore.io.formats) is the one the loader, the command line and the docs read."""
from __future__ import annotations

import argparse

import pytest

import evalcore
from evalcore.cli import build_parser
from evalcore.io import formats


def test_the_command_line_offers_every_named_format_and_nothing_else():
    p = build_parser("evaluate")
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices["evaluate"]
    (action,) = [a for a in sub._actions if a.dest == "run_format"]
    assert tuple(action.choices) == formats.RUN_FORMATS
    for f in formats.RUN_FORMAT_TABLE.values():
        for name in f.names:
            assert name in action.help
        assert callable(formats.reader(f.kind))


@pytest.mark.parametrize("name,fmt,kind", [
    ("run.txt", "auto", "trec"), ("run.jsonl.gz", "auto", "jsonl"), ("x.ndjson", "auto", "jsonl"),
    ("101.res", "auto", "res"), ("101.txt", "ntcir", "res"), ("101.txt", "res", "res"), ("a.res", "trec", "trec")])
def test_a_files_format_comes_from_the_table(name, fmt, kind):
    assert formats.format_of(name, fmt).kind == kind


def test_every_named_format_loads_through_its_reader(tmp_path):
    """One small run per format, the same ranked lists: the same AP through every reader."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    trec = tmp_path / "run.txt"
    trec.write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 c 3 1 t\n")
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text("".join(f'{{"qid": "1", "docno": "{d}", "score": {s}}}\n' for d, s in (("b", 3), ("a", 2),
                                                                                              ("c", 1))))
    res = tmp_path / "ntcir"
    res.mkdir()
    (res / "1.res").write_text("b\na\nc\n")
    seen = set()
    for path, fmt in ((trec, "trec"), (jsonl, "jsonl"), (res, "ntcir")):
        c = evalcore.load_collection(tmp_path / "q.txt", path, fmt=fmt)
        ap = evalcore.evaluate(c, ["AP"])["value"].item()
        assert ap == pytest.approx((1 / 2 + 2 / 3) / 2)       # relevant at ranks 2 and 3, R = 2
        seen.add(formats.format_of(path.name if path.is_file() else "1.res", fmt).kind)
    assert seen == {f.kind for f in formats.RUN_FORMAT_TABLE.values() if f.names}
