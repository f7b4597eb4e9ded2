"""Hostile input cannot hurt the loader.

Bounded relevance levels, finite ASCII scores, streamed decompression with a
limit (real gzip and zip bombs, peak memory measured with tracemalloc),
zip member checks, size limits that say the cost, and nothing but
InputError escaping. Expected values come from the reproductions in docs/reliability.md section 2
and from plain arithmetic (2 bytes per run x topic x rank).
"""
from __future__ import annotations

import gzip
import io
import tracemalloc
import zipfile
from dataclasses import replace

import pytest
from bombs import gzip_bomb, zip_bomb

from evalcore import evaluate
from evalcore.cli import main
from evalcore.io import APP_LIMITS, DEFAULT_LIMITS, MAX_LEVEL, InputError, Limits, load_collection, read_qrels, read_run
from evalcore.io.errors import MAX_QUOTE
from evalcore.io.limits import parse_size

MiB = 1 << 20
RUN = ("r.txt", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n")


def fails(fn, *words) -> InputError:
    with pytest.raises(InputError) as ei:
        fn()
    e = ei.value
    for w in words:
        assert w in str(e), (w, str(e))
    return e


def peak_of(fn) -> tuple[object, int]:
    """(result or raised exception, tracemalloc peak in bytes)."""
    tracemalloc.start()
    try:
        try:
            out = fn()
        except Exception as e:  # noqa: BLE001 - returned for the caller's checks
            out = e
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- relevance levels ----------------------------------------------------------------
@pytest.mark.parametrize("label", ["21", "128", "255", "300", "1000000", "1000000000", str(2 ** 63),
                                   str(2 ** 64 + 1), "9" * 5000])
def test_a_label_above_the_maximum_names_file_line_and_value(label):
    q = ("q.txt", b"q1 0 d2 1\nq1 0 d1 " + label.encode() + b"\n")
    e, peak = peak_of(lambda: load_collection(q, [RUN]))
    assert isinstance(e, InputError)
    assert (e.file, e.line) == ("q.txt", 2)
    assert f"above {MAX_LEVEL}" in e.message and label[:20] in e.message
    assert len(str(e)) < 1000          # a 5,000-digit label is not echoed whole
    assert peak < 5 * MiB              # nothing sized by the label (before the bound: 484 GiB for 10**9)


def test_labels_128_to_255_no_longer_wrap_into_wrong_scores():
    # before the fix: label 128 wrapped in int8 and AP became 0.25; with label 127 (and now 20) AP is 1.0
    with pytest.raises(InputError):
        load_collection(("q.txt", b"q1 0 d1 128\nq1 0 d2 1\n"), [RUN])
    c = load_collection(("q.txt", b"q1 0 d1 20\nq1 0 d2 1\n"), [RUN])
    assert c.max_level == 20 and c.levels.tolist() == [[[20, 1]]]
    df = evaluate(c, ["AP"])
    assert df.loc[df["topic"] == "all", "value"].tolist() == [1.0]


@pytest.mark.parametrize("q, fmt", [(b"q1 d1 L21\n", "ntcir"), (b"d1 L300\n", "rel"), (b"q1 d1 99\n", "ntcir")])
def test_ntcir_levels_above_the_maximum(q, fmt):
    fails(lambda: read_qrels(("0001.rel" if fmt == "rel" else "q.txt", q), fmt=fmt), "above 20")


def test_huge_negative_label_counts_as_non_relevant():
    q = read_qrels(("q.txt", b"q1 0 d1 -" + b"9" * 5000 + b"\nq1 0 d2 1\n"))
    assert q.frame["level"].tolist() == [0, 1]
    assert "negative" in q.warnings[0] and len(q.warnings[0]) < 300


@pytest.mark.parametrize("label", ["\u0661", "\u0968", "L\u0662", "\uff11"])  # Arabic-Indic, Devanagari, fullwidth
def test_unicode_digits_are_refused_and_said_so(label):
    data = ("q1 0 d1 " + label + "\n").encode() if not label.startswith("L") else ("q1 d1 " + label + "\n").encode()
    fails(lambda: read_qrels(("q.txt", data)), "ASCII")


# -- scores and ranks ---------------------------------------------------------------------
@pytest.mark.parametrize("score", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1e400"])
@pytest.mark.parametrize("messy", [False, True])  # the fast (pyarrow) path and the line-by-line path
def test_non_finite_scores_are_an_error_naming_the_line(score, messy):
    sep = "\t" if messy else " "
    run = f"q1 Q0 d1 1 1.5 x\nq1{sep}Q0 d2 2 {score} x\n".encode()
    e = fails(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), [("r.txt", run)]), "not a finite number")
    assert (e.file, e.line) == ("r.txt", 2)


@pytest.mark.parametrize("order", ["score", "rank", "file"])
def test_unicode_digits_in_scores_are_refused(order):
    run = "q1 Q0 d1 1 \u0661\u0662 x\n".encode()
    fails(lambda: read_run(("r.txt", run), order=order), "ASCII", "line 1")


def test_a_rank_that_does_not_fit_is_an_input_error():
    run = b"q1 Q0 d1 99999999999999999999999 1.0 x\n"
    fails(lambda: read_run(("r.txt", run), order="rank"), "too large", "line 1")


# -- decompression -----------------------------------------------------------------------------
def test_gzip_bomb_stops_at_the_limit_with_bounded_memory():
    bomb = gzip_bomb(1024)                      # 1 GiB of zeros in ~1 MiB
    limit = DEFAULT_LIMITS.expanded_limit(len(bomb))
    assert limit == 50 * len(bomb)              # min(4 GiB, max(16 MiB, 50 x compressed))
    e, peak = peak_of(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), [("bomb.txt.gz", bomb)]))
    assert isinstance(e, InputError), e
    assert e.file == "bomb.txt.gz" and "expands to more than 50.6 MiB" in e.message and "bomb" in e.message
    assert "--max-expanded" in e.hint
    assert peak < limit + 8 * MiB, peak / MiB   # the limit plus one 4 MiB step (and the bomb itself)


def test_gzip_bomb_under_the_app_limits_and_a_custom_limit():
    bomb = gzip_bomb(256)
    lim = replace(APP_LIMITS, expansion_floor=1 * MiB, expansion_ratio=4)
    e, peak = peak_of(lambda: read_run(("bomb.gz", bomb), limits=lim))
    assert isinstance(e, InputError) and "more than 1.0 MiB" in e.message
    assert "min(1 GiB, max(1 MiB, 4 x 259.3 KiB compressed))" in e.message
    assert peak < 1 * MiB + 8 * MiB


def test_zip_bomb_is_refused_from_its_declared_sizes_before_inflating():
    bomb = zip_bomb(1024, members=10)           # 10 GiB declared in ~10 MiB
    e, peak = peak_of(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", bomb)))
    assert isinstance(e, InputError), e
    assert e.file == "runs.zip:run0.txt" and "zip bomb" in e.message and "--max-expanded" in e.hint
    assert peak < 2 * MiB


def test_zip_bomb_with_lying_sizes_stops_at_the_declared_size():
    bomb = bytearray(zip_bomb(1024))
    # declare 1 MiB (local and central header) while the stream holds 1 GiB: zipfile stops at 1 MiB
    i = bomb.index(b"PK\x03\x04")
    bomb[i + 22:i + 26] = MiB.to_bytes(4, "little")
    j = bomb.index(b"PK\x01\x02")
    bomb[j + 24:j + 28] = MiB.to_bytes(4, "little")
    e, peak = peak_of(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", bytes(bomb))))
    assert isinstance(e, InputError), e
    assert peak < 16 * MiB


def test_gzip_bomb_inside_a_zip_uses_the_archive_budget():
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as zf:
        zf.writestr("a.txt", b"q1 Q0 d1 1 1 x\n")
        zf.writestr("b.txt.gz", gzip_bomb(1024))
    data = b.getvalue()
    limit = DEFAULT_LIMITS.expanded_limit(len(data))
    e, peak = peak_of(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", data)))
    assert isinstance(e, InputError) and e.file == "runs.zip:b.txt.gz" and "inside runs.zip" in e.message
    assert peak < limit + len(data) + 8 * MiB


def test_the_limit_is_configurable_and_genuine_files_pass():
    lines = b"".join(b"q1 Q0 doc%06d %d %d.5 tag\n" % (i, i + 1, 100000 - i) for i in range(50000))
    gz = gzip.compress(lines)
    assert len(lines) / len(gz) > 4
    strict = Limits(expansion_floor=1024, expansion_ratio=2)
    fails(lambda: read_run(("r.txt.gz", gz), limits=strict), "expands to more than")
    assert len(read_run(("r.txt.gz", gz)).docs) == 50000          # default limits
    assert len(read_run(("r.txt.gz", gz), limits=Limits(expansion_floor=1024, expansion_ratio=100)).docs) == 50000


def test_a_plain_file_larger_than_the_limit_is_refused_before_reading(tmp_path):
    p = tmp_path / "r.txt"
    p.write_bytes(b"".join(b"q1 Q0 d%d 1 1 x\n" % i for i in range(100)))
    fails(lambda: read_run(p, limits=Limits(max_expanded_bytes=1000)), "larger than the input limit", "1000 bytes")
    assert len(read_run(p, limits=Limits(max_expanded_bytes=2000)).docs) == 100


def _zip(members: dict) -> bytes:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return b.getvalue()


def test_zip_members_with_bad_paths_links_archives_and_docs_are_skipped_with_a_note():
    link = zipfile.ZipInfo("link.txt")
    link.external_attr = 0o120777 << 16
    data = _zip({"a.txt": b"q1 Q0 d1 1 1 x\n", "../evil.txt": b"q1 Q0 d1 1 1 x\n",
                 "/abs.txt": b"q1 Q0 d1 1 1 x\n", "C:/win.txt": b"q1 Q0 d1 1 1 x\n", link: b"/etc/passwd",
                 "inner.zip": zip_bomb(64), "README.md": b"# runs\n", "Thumbs.db": b"\0\1"})
    c = load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", data))
    assert c.run_ids == ("a",)
    notes = "\n".join(c.report.warnings)
    for member, why in [("../evil.txt", "'..' path"), ("/abs.txt", "absolute"), ("C:/win.txt", "absolute"),
                        ("link.txt", "symbolic link"), ("inner.zip", "archive"), ("README.md", "documentation"),
                        ("Thumbs.db", "documentation")]:
        assert f"'{member}' skipped" in notes and why in notes, (member, notes)


def test_zip_members_compressed_otherwise_than_deflate_are_refused():
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_BZIP2) as zf:
        zf.writestr("a.txt", b"q1 Q0 d1 1 1 x\n")
    fails(lambda: read_run(("runs.zip", b.getvalue())), "runs.zip:a.txt", "deflate")


def test_a_runs_directory_with_readme_and_thumbs_db_skips_them_with_a_note(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    (d / "bm25.txt").write_bytes(b"q1 Q0 d1 1 1 x\n")
    (d / "README.md").write_bytes(b"# my runs\n")
    (d / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0\0\0")
    c = load_collection(("q.txt", b"q1 0 d1 1\n"), d)
    assert c.run_ids == ("bm25",)
    assert sum("skipped" in w for w in c.report.warnings) == 2
    assert "README.md" in c.report.summary(c)


def test_a_zip_where_text_is_expected_and_utf16_say_what_they_are():
    fails(lambda: read_run(("r.txt", _zip({"a.txt": b"x"}))), "zip archive")
    fails(lambda: read_run(("r.txt", "q1 Q0 d1 1 1 x\n".encode("utf-16"))), "UTF-16")


# -- sizes -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_reproduced_case_one_deep_topic_among_100k_topics_is_refused_with_its_cost():
    q = b"".join(b"t%d 0 d 1\n" % i for i in range(100_000))
    r = (b"".join(b"t%d Q0 d 1 1 x\n" % i for i in range(100_000))
         + b"".join(b"t0 Q0 e%d %d %d x\n" % (i, i, -i) for i in range(19_999)))
    with pytest.raises(InputError) as ei:   # refused after parsing, before the 3.7 GiB tensor exists
        load_collection(("q.txt", q), [("r.txt", r)])
    e = ei.value
    cost = 2 * 1 * 100_000 * 20_000
    assert "3.7 GiB" in e.message and f"{cost / 2**30:.1f}" == "3.7"
    assert "topic 't0', with 20,000 documents" in e.message
    assert "depth=10737" in e.hint and "--max-memory" in e.hint   # 2 GiB / (2 x 100,000)
    c = load_collection(("q.txt", q), [("r.txt", r)], depth=100)
    assert c.levels.shape == (1, 100_000, 100) and c.report.tensor_bytes == 2 * 100_000 * 100


def test_tensor_cost_is_reported_before_and_after():
    c = load_collection(("q.txt", b"q1 0 d1 1\nq2 0 d1 1\n"),
                        [("a.txt", b"q1 Q0 d1 1 1 x\nq1 Q0 d2 2 0 x\nq1 Q0 d3 3 -1 x\n"),
                         ("b.txt", b"q2 Q0 d1 1 1 x\n")])
    assert c.levels.shape == (2, 2, 3) and c.report.tensor_bytes == 2 * 2 * 2 * 3
    assert "memory: 24 bytes" in c.report.summary(c)
    tight = Limits(max_tensor_bytes=23)
    e = fails(lambda: load_collection(("q.txt", b"q1 0 d1 1\nq2 0 d1 1\n"),
                                      [("a.txt", b"q1 Q0 d1 1 1 x\nq1 Q0 d2 2 0 x\nq1 Q0 d3 3 -1 x\n"),
                                       ("b.txt", b"q2 Q0 d1 1 1 x\n")], limits=tight), "24 bytes", "23 bytes")
    assert "depth=2" in e.hint  # 23 // (2 x 2 x 2) = 2 ranks fit


@pytest.mark.parametrize("field, kw, words", [
    ("runs", {"max_runs": 1}, ["2 runs, more than the limit of 1", "--max-runs"]),
    ("topics", {"max_topics": 1}, ["2 evaluated topics", "limit of 1", "--max-topics"]),
    ("depth", {"max_depth": 2}, ["3 deep, more than the depth limit of 2", "depth=2", "--max-depth"]),
])
def test_runs_topics_and_depth_limits(field, kw, words):
    q = ("q.txt", b"q1 0 d1 1\nq2 0 d1 1\n")
    runs = [("a.txt", b"q1 Q0 d1 1 1 x\nq1 Q0 d2 2 0 x\nq1 Q0 d3 3 -1 x\n"), ("b.txt", b"q2 Q0 d1 1 1 x\n")]
    fails(lambda: load_collection(q, runs, limits=Limits(**kw)), *words)
    assert load_collection(q, runs).levels.shape == (2, 2, 3)


def test_limits_are_validated_and_sizes_parsed():
    with pytest.raises(ValueError, match="max_runs"):
        Limits(max_runs=0)
    with pytest.raises(ValueError, match="expansion_ratio"):
        Limits(expansion_ratio=float("nan"))
    with pytest.raises(ValueError, match="limits"):
        load_collection(("q.txt", b"q1 0 d1 1\n"), [RUN], limits={"max_runs": 3})
    assert parse_size("512M") == 512 * MiB and parse_size("1.5GiB") == 3 << 29 and parse_size("100") == 100
    with pytest.raises(ValueError):
        parse_size("lots")


# -- nothing but InputError ----------------------------------------------------------------------
@pytest.mark.parametrize("exc", [MemoryError(), OverflowError("int too large"), KeyError("x"), IndexError("y")])
def test_unforeseen_errors_inside_the_loader_become_input_errors(monkeypatch, exc):
    import evalcore.io._assemble as A

    def boom(*a, **k):
        raise exc
    for stage in ("read_run_file", "finish_run", "_place"):  # in the reader thread, then while placing
        with monkeypatch.context() as m:
            m.setattr(A, stage, boom)
            e = fails(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), [RUN, ("s.txt", b"q1 Q0 d1 1 1 x\n")]))
        assert e.file == "r.txt", stage
        assert ("not enough memory" in e.message) if isinstance(exc, MemoryError) else (type(exc).__name__ in e.message)
    monkeypatch.setattr(A, "_judgments", boom)  # outside the per-run guard
    fails(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), [RUN]))


def test_the_callers_progress_exceptions_pass_through_unchanged():
    class Stop(Exception):
        pass

    def progress(x):
        raise Stop
    with pytest.raises(Stop):
        load_collection(("q.txt", b"q1 0 d1 1\n"), [RUN], progress=progress)


def test_a_32_mb_line_is_not_echoed_whole():
    run = b"q1 Q0 d1 1 1 x\n" + b"x" * (32 * MiB) + b"\n"
    e = fails(lambda: load_collection(("q.txt", b"q1 0 d1 1\n"), [("r.txt", run)]), "line 2")
    assert len(str(e)) < 1000 and len(e.text) < MAX_QUOTE + 50 and "more characters" in e.text


def test_a_long_token_in_a_message_is_cut():
    run = b"q1 Q0 d1 1 " + b"7" * (4 * MiB) + b"z x\n"  # a number-like token: the score regex stays linear
    e = fails(lambda: read_run(("r.txt", run)), "not a number")
    assert len(str(e)) < 1000


def test_a_doubled_bom_is_handled_the_same_by_the_fast_and_the_line_by_line_paths():
    bom2 = b"\xef\xbb\xbf\xef\xbb\xbf"
    q = ("q.txt", bom2 + b"q1 0 d1 1\nq1 0 d2 1\n")
    fast = load_collection(q, [("r.txt", bom2 + b"q1 Q0 d1 1 2 x\nq1 Q0 d2 2 1 x\n")])
    slow = load_collection(q, [("r.txt", bom2 + b"q1 Q0 d1 1 2 x\nq1\tQ0  d2 2 1 x\n")])
    lines = load_collection(q, [("r.txt", bom2 + b"q1 Q0 d1 1 2 x\nq1 Q0 d2 2 1 x \n\n  ")])
    for c in (fast, slow, lines):
        assert c.topic_ids == ("q1",) and c.levels.tolist() == [[[1, 1]]] and not c.report.missing_run_topics


# -- the CLI ---------------------------------------------------------------------------------------
def test_cli_limit_options(tmp_path, capsys):
    q = tmp_path / "q.txt"
    q.write_bytes(b"q1 0 d1 1\nq2 0 d1 1\n")
    r = tmp_path / "r.txt.gz"
    r.write_bytes(gzip_bomb(64))
    assert main(["evaluate", "--qrels", str(q), "--run", str(r)]) == 2
    assert "expands to more than 16 MiB" in capsys.readouterr().err
    assert main(["evaluate", "--qrels", str(q), "--run", str(r), "--max-expanded", "8M"]) == 2
    assert "more than 8 MiB" in capsys.readouterr().err
    deep = tmp_path / "deep.txt"
    deep.write_bytes(b"".join(b"q1 Q0 d%d %d %d x\n" % (i, i + 1, -i) for i in range(50)))
    assert main(["evaluate", "--qrels", str(q), "--run", str(deep), "--max-memory", "100"]) == 2
    err = capsys.readouterr().err
    assert "200 bytes" in err and "--depth 25" in err          # 2 x 1 run x 2 topics x 50
    assert main(["evaluate", "--qrels", str(q), "--run", str(deep), "--max-memory", "100", "--depth", "25"]) == 0
    assert main(["evaluate", "--qrels", str(q), "--run", str(deep), "--max-depth", "10"]) == 2
    assert "--max-depth" in capsys.readouterr().err
    assert main(["evaluate", "--qrels", str(q), "--run", str(deep), "--max-runs", "0"]) == 2
    assert "--max-runs must be >= 1 and <= 1,000,000,000; got 0" in capsys.readouterr().err


# -- DataFrames, pytrec_eval dicts and JSON-lines runs follow the same rules ----------------------------
@pytest.mark.parametrize("label", [21, 128, 2 ** 63, 1e30])
def test_dataframe_and_dict_labels_above_the_maximum(label):
    import pandas as pd

    df = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "label": [label, 1]})
    fails(lambda: read_qrels(df), "row 0", "above 20")
    fails(lambda: read_qrels({"q1": {"d1": label, "d2": 1}}), "above 20")


@pytest.mark.parametrize("line, words", [
    (b'{"qid": "q1", "docno": "d1", "score": 1' + b"0" * 400 + b"}", "not a finite number"),   # > 1.8e308
    (b'{"qid": "q1", "docno": "d1", "score": ' + b"1" * 5000 + b"}", "4300 digits"),
    (b'{"qid": "q1", "docno": "d1", "score": NaN}', "not a finite number"),
    (b'{"qid": "q1", "docno": "d1", "score": 1, "rank": ' + b"9" * 30 + b"}", "below 2**62"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
])
def test_hostile_json_lines(line, words):
    e = fails(lambda: read_run(("r.jsonl", line + b"\n"), order="rank"), "line 1", words)
    assert len(str(e)) < 1000


def test_not_even_one_rank_fitting_is_refused_before_the_first_allocation():
    q = ("q.txt", b"q1 0 d1 1\nq2 0 d1 1\n")
    runs = [("a.txt", b"q1 Q0 d1 1 1 x\n"), ("b.txt", b"q2 Q0 d1 1 1 x\n")]
    fails(lambda: load_collection(q, runs, limits=Limits(max_tensor_bytes=7)),
          "2 runs x 2 topics need 8 bytes per rank", "--max-memory")     # 2 x 2 x 2 bytes
    assert load_collection(q, runs, limits=Limits(max_tensor_bytes=8)).levels.shape == (2, 2, 1)
