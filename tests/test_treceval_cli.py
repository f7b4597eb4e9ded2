"""``evalcore trec_eval`` against trec_eval 10.0's own acceptance test and outputs of the real binary.

* trec_eval's Makefile ``quicktest``: each line run with ``evalcore trec_eval`` in place of ``./trec_eval`` on
  trec_eval's test inputs (tests/data/trec_eval, copied from https://github.com/usnistgov/trec_eval's ``test/``
  folder with its NIST notice, tests/data/trec_eval/NOTICE), diffed against trec_eval's expected output: empty.
  The preference lines (``-R prefs``, ``qrels_prefs``, ``qrels_jg``) are left out: those formats are not read.
* tests/data/trec_eval/cases.txt: edge cases (ties, topics missing from the run, unjudged and -1 documents, a
  topic emptied by ``-J``, ``-M 0``, ``-l 0``/``2``/``3``, parameters) with outputs written by the real
  trec_eval 10.0 binary (make_expected.sh).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalcore.treceval.cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"
ROOT = Path(__file__).resolve().parents[1]

#: trec_eval 10.0's Makefile quicktest lines (test/ -> tests/data/trec_eval), without the preference formats
QUICKTEST = [
    ("qrels.test results.test", "out.test"),
    ("qrels.test.with-comments results.test", "out.test"),
    ("-m all_trec qrels.test results.test", "out.test.a"),
    ("-m all_trec -q qrels.test results.test", "out.test.aq"),
    ("-m all_trec -q -c qrels.test results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 qrels.test results.trunc", "out.test.aqcM"),
    ("-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test", "out.test.aql"),
    ("-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
     "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
     "qrels.test results.test", "out.test.meas_params"),
    ("-q -m all_trec -Z zscores_file qrels.test results.test", "out.test.aqZ"),
]


def _run(capsys, args: str, where: Path = DATA) -> tuple[int, str, str]:
    cwd = os.getcwd()
    os.chdir(where)
    try:
        rc = main(args.split())
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("args,expected", QUICKTEST, ids=[e for _, e in QUICKTEST])
def test_quicktest_line_diffs_empty(capsys, args, expected):
    rc, out, err = _run(capsys, args)
    assert rc == 0, err
    want = (DATA / expected).read_text()
    assert out == want


def _cases():
    for line in (DATA / "cases.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, args = (x.strip() for x in line.split("|"))
            yield pytest.param(args, name, id=name)


@pytest.mark.parametrize("args,name", list(_cases()))
def test_edge_cases_equal_the_binary(capsys, args, name):
    rc, out, err = _run(capsys, args)
    assert rc == 0, err
    assert out == (DATA / "expected" / name).read_text()


def test_installed_command_prints_trec_evals_bytes():
    """The console path users run: ``python -m evalcore trec_eval`` (evalcore's parser hands trec_eval's
    options over untouched: ``-q``, glued ``-l2`` and ``-mP.5``)."""
    got = subprocess.run([sys.executable, "-m", "evalcore", "trec_eval", "-m", "all_trec", "-mrelstring.20", "-q",
                          "-l2", str(DATA / "qrels.rel_level"), str(DATA / "results.test")],
                         capture_output=True, cwd=ROOT, timeout=120)
    assert got.returncode == 0, got.stderr
    assert got.stdout == (DATA / "out.test.aql").read_bytes()


def test_missing_topic_without_c_stops_as_trec_eval_does(capsys):
    """trec_eval 10.0 exits with status 4 when a qrels topic has no line in the run (results.trunc lacks 302)."""
    rc, out, err = _run(capsys, "qrels.test results.trunc")
    assert (rc, out) == (4, "")
    assert "302" in err and "-c" in err


@pytest.mark.parametrize("args,status,words", [
    ("-m nosuch qrels.test results.test", 1, "illegal measure 'nosuch'"),
    ("-m P. qrels.test results.test", 1, "improper measure"),
    ("-m P.0,5 qrels.test results.test", 2, "Negative cutoff"),
    ("-m P.5,5 qrels.test results.test", 2, "duplicate cutoffs"),
    ("-m prefs_simp qrels.test results.test", 1, "preference judgments"),
    ("-R prefs qrels.test results.test", 1, "qrels"),
    ("-l -1 qrels.test results.test", 1, "-l"),
    ("qrels.test", 1, "Usage"),
    ("qrels.test nosuchfile", 2, "nosuchfile"),
])
def test_bad_command_lines_fail_with_trec_evals_status(capsys, args, status, words):
    rc, out, err = _run(capsys, args)
    assert (rc, out) == (status, "")
    assert words in err


def test_malformed_run_line_names_file_and_line(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 x.5 tag\n")
    rc, out, err = _run(capsys, "q r", tmp_path)
    assert (rc, out) == (2, "")
    assert "r, line 2" in err and "score" in err


def test_duplicate_document_is_refused_like_trec_eval(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.5 tag\n1 Q0 d1 2 1.5 tag\n")
    rc, out, err = _run(capsys, "q r", tmp_path)
    assert (rc, out) == (4, "")
    assert "d1" in err and "twice" in err


def test_run_tag_is_the_last_lines(tmp_path, capsys):
    """trec_eval prints the tag of the run file's last line (every topic's RESULTS keeps that pointer)."""
    (tmp_path / "q").write_text("1 0 d1 1\n2 0 d2 1\n")
    (tmp_path / "r").write_text("2 Q0 d2 1 1 first\n1 Q0 d1 1 1 second\n")
    rc, out, _ = _run(capsys, "-m runid q r", tmp_path)
    assert (rc, out) == (0, "runid                 \tall\tsecond\n")


def test_gzip_run_and_standard_input(tmp_path, capsys, monkeypatch):
    import gzip
    import io
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n")
    run = b"1 Q0 d2 1 2 t\n1 Q0 d1 2 1 t\n"
    (tmp_path / "r.gz").write_bytes(gzip.compress(run))
    rc, out, _ = _run(capsys, "-m map q r.gz", tmp_path)
    assert (rc, out) == (0, "map                   \tall\t0.5000\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run)))
    rc, out, _ = _run(capsys, "-m map q -", tmp_path)
    assert (rc, out) == (0, "map                   \tall\t0.5000\n")


@pytest.mark.parametrize("qrels,run,line,words", [
    ("1 0 d1\n1 0 d2 1 1\n", "1 Q0 d1 1 2 t\n", "q, line 1", "4 fields"),         # 3 + 5 fields: 8 = 2 x 4
    ("1 0 d1 1\n", "1 Q0 d1 1 2\n1 Q0 d2 2 1 t x\n", "r, line 1", "6 fields"),    # 5 + 7 fields: 12 = 2 x 6
    ("1 0 d1 1\n", "1 Q0 d1 1 1e t\n", "r, line 1", "score"),
    ("1 0 d1 1\n", "1 Q0 d1 1 nan t\n", "r, line 1", "score"),
    ("1 0 d1 +-1\n", "1 Q0 d1 1 1 t\n", "q, line 1", "whole number"),
    ("1 0 d1 1\n1 0 d1 0\n", "1 Q0 d1 1 1 t\n", "q, line 2", "twice"),
])
def test_uneven_or_malformed_lines_are_named(tmp_path, capsys, qrels, run, line, words):
    """Whole-text fast paths never misalign fields: a file they cannot read line for line goes to the
    line-by-line reader, which names the line."""
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    rc, out, err = _run(capsys, "q r", tmp_path)
    assert (rc, out) == (2, "")
    assert line in err and words in err


def test_infinite_scores_rank_as_trec_eval(tmp_path, capsys):
    """inf and -inf are numbers to C's atof: first and last; extra fields are ignored on some lines only."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 -inf t\n1 Q0 a 2 inf t extra\n1 Q0 c 3 0 t\n")
    rc, out, _ = _run(capsys, "-q -m relstring q r", tmp_path)
    assert (rc, out) == (0, "relstring             \t1\t'110'\n")


def test_all_negative_first_topic_stops_as_trec_eval(tmp_path, capsys):
    """trec_eval 10.0 cannot evaluate a topic whose judgments are all negative when no topic before it has one
    >= 0 (its per-level buffer is never allocated: 'Can't calculate measure', status 4); after such a topic it
    can (the binary's behaviour on these two files)."""
    (tmp_path / "r").write_text("a Q0 d1 1 1 t\nb Q0 d2 1 1 t\n")
    (tmp_path / "q").write_text("a 0 d1 -1\nb 0 d2 1\n")
    rc, out, err = _run(capsys, "q r", tmp_path)
    assert (rc, out) == (4, "") and "topic a" in err
    (tmp_path / "q").write_text("a 0 d2 1\nb 0 d1 -1\n")
    rc, out, _ = _run(capsys, "-m num_rel q r", tmp_path)
    assert (rc, out) == (0, "num_rel               \tall\t1\n")
