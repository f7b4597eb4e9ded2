"""Hostile input that once ended in a traceback, a hang or an unbounded read: each must now be one clear
error (file or option, what was wrong, the limit) - from the API and from the command line."""
from __future__ import annotations

import inspect
import json
import os
import sys
import threading

import pytest

from evalcore.cli import main
from evalcore.io import InputError, load_collection
from evalcore.io.limits import read_limited
from evalcore.settings import SettingsError, parse_settings, read_settings

POSIX = os.name == "posix"
SIM = ["evaluate", "--simulated", "--topics", "3", "--systems", "2", "--metrics", "AP"]


def _nested(depth: int, kind: str = "dict") -> str:
    """A JSON text nested ``depth`` containers deep (a 1.2 KB file at depth 600)."""
    if kind == "dict":
        return '{"a":' * depth + "1" + "}" * depth
    return '{"settings":' + "[" * depth + "]" * depth + "}"


# -- settings nesting: counted without recursion -----------------------------------------------------
@pytest.mark.parametrize("depth, kind", [(600, "list"), (900, "dict"), (100_000, "list")])
def test_deep_settings_are_refused_even_on_a_short_stack(depth, kind):
    """The nesting is counted before the JSON is parsed, without recursion: with only ~60 frames of
    stack left (as in a server thread deep in its own calls) a 900-deep file is still a SettingsError."""
    text = _nested(depth, kind)
    with pytest.raises(SettingsError, match="nested deeper than 4 levels"):   # the default stack
        parse_settings(text)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 60)
    try:
        with pytest.raises(SettingsError, match="nested deeper than 4 levels"):
            parse_settings(text)
    finally:
        sys.setrecursionlimit(old)


def test_deep_settings_file_from_the_cli(tmp_path, capsys):
    for depth in (600, 900):
        f = tmp_path / f"deep{depth}.json"
        f.write_text(_nested(depth))
        assert main(SIM + ["--settings", str(f)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {f}: nested deeper than 4 levels") and "Traceback" not in err


def test_nesting_ignores_brackets_inside_strings():
    # brackets inside a string are text, not nesting: this file is 2 deep and valid
    assert parse_settings(json.dumps({"settings": {"collection": "[[[[[[{{{{{{\\\"]]]"}})) == {
        "collection": "[[[[[[{{{{{{\\\"]]]"}


# -- devices, FIFOs and files whose size on disk lies -----------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_devices_are_refused_unread(capsys):
    with pytest.raises(InputError, match="character device, not a regular file"):
        read_limited("/dev/zero", 1 << 20, hint="")
    with pytest.raises(SettingsError, match="/dev/zero: this is a character device"):
        read_settings("/dev/zero")
    q = ("q.txt", b"q1 0 d1 1\n")
    with pytest.raises(InputError, match="/dev/urandom: this is a character device"):
        load_collection(q, ["/dev/urandom"])
    assert main(["evaluate", "--qrels", "/dev/zero", "--run", "/dev/urandom"]) == 2
    assert "/dev/zero: this is a character device" in capsys.readouterr().err
    assert main(SIM + ["--settings", "/dev/zero"]) == 2
    assert "settings file /dev/zero: this is a character device" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_without_a_writer_is_refused_not_waited_on(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = {}

    def go():   # in a thread, so that a regression hangs only the thread and the test fails
        result["rc"] = main(["evaluate", "--qrels", str(fifo), "--run", str(fifo)])
        result["settings"] = main(SIM + ["--settings", str(fifo)])
    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(60)
    assert result == {"rc": 2, "settings": 2}
    err = capsys.readouterr().err
    assert err.count("FIFO (named pipe), not a regular file") == 2


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_the_size_on_disk_is_not_trusted():
    # /proc files are regular files whose size reads 0: the read must stop at the limit anyway
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(InputError, match="holds more than 16 bytes, the input limit"):
        read_limited("/proc/self/status", 16, hint="raise it")
    assert read_limited("/proc/self/status", 1 << 20, hint="").startswith(b"Name:")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    f = tmp_path / "big.txt"
    f.write_bytes(b"x" * 5000)
    with pytest.raises(InputError, match="larger than the input limit") as e:
        read_limited(f, 4096, hint="raise it")
    assert e.value.file == str(f) and e.value.hint == "raise it"
    assert read_limited(f, 5000, hint="") == b"x" * 5000


# -- every numeric option is bounded --------------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["evaluate", "--simulated", "--systems", "10000000"], "--systems must be >= 1 and <= 10,000; got 10000000"),
    (["evaluate", "--simulated", "--topics", "100000000"], "--topics must be >= 1 and <= 100,000; got 100000000"),
    (["swap", "--simulated", "--B", "1000000000"], "--B must be >= 1 and <= 1,000,000; got 1000000000"),
    (["evaluate", "--simulated", "--beta", "1e308"], "--beta must be >= 0 and <= 1000; got 1e308"),
    (["evaluate", "--simulated", "--beta", "nan"], "--beta must be a finite number"),
    (["evaluate", "--simulated", "--log-base", "1"], "--log-base must be > 1 and < 1e+06"),
    (["evaluate", "--simulated", "--rel-threshold", "0"], "--rel-threshold must be >= 1"),
    (["evaluate", "--simulated", "--seed", "-1"], "--seed must be >= 0"),
    (["evaluate", "--simulated", "--depth", "0"], "--depth must be >= 1"),
    (["evaluate", "--simulated", "--cutoffs", "99999999999"], "--cutoffs must be whole numbers from 1 to 1,000,000"),
    (["evaluate", "--simulated", "--gains", "1e308:1e308:1e308"], "--gains values must be at most 1e+06"),
    (["bootstrap", "--simulated", "--alpha", "1.5"], "--alpha must be > 0 and < 1; got 1.5"),
    (["swap", "--simulated", "--repeats", "100000000"], "--repeats must be >= 1 and <= 1,000"),
    (["swap", "--simulated", "--bins", "1e9"], "--bins must be a whole number; got '1e9'"),
    (["topics", "--simulated", "--min-diff", "1e308"], "--min-diff must be > 0 and < 1e+06"),
    (["evaluate", "--simulated", "--topics", "100000", "--systems", "10000"],
     "--topics 100,000 x --systems 10,000 x depth 1,000 is 1,000,000,000,000 bytes of levels, more than the "
     "2,147,483,648-byte limit (--max-memory)"),
])
def test_out_of_range_options_are_one_line_naming_the_option(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err


def test_memory_error_is_an_error_naming_the_sizing_options(monkeypatch, capsys):
    import evalcore.registry

    def no_memory(*a, **k):
        raise MemoryError
    monkeypatch.setattr(evalcore.registry, "evaluate", no_memory)
    monkeypatch.setattr(evalcore.registry, "evaluate_rows", no_memory)  # (what `evalcore evaluate` calls)
    assert main(SIM) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: not enough memory") and "--B" in err and "--topics" in err


# -- clear messages for three quiet mistakes --------------------------------------------------------
R1 = [("r.txt", b"1 Q0 d1 1 1.0 x\n")]


def test_comment_only_files_say_so():
    with pytest.raises(InputError, match="no judgment lines: the file holds only comments") as e:
        load_collection(("q.txt", b"# ir_metadata header\n\n# more\n"), R1)
    assert "please report" not in str(e.value) and "StopIteration" not in str(e.value)
    with pytest.raises(InputError, match="r.txt: no run lines: the file holds only comments"):
        load_collection(("q.txt", b"1 0 d1 1\n"), [("r.txt", b"# header only\n\n")])


@pytest.mark.parametrize("encoding, name", [
    ("utf-32", "UTF-32 (little-endian)"), ("utf-32-be", "UTF-32 (big-endian)"), ("utf-32-le", "UTF-32 (little-endian)"),
    ("utf-16", "UTF-16 (little-endian)"), ("utf-16-be", "UTF-16 (big-endian)"), ("utf-16-le", "UTF-16 (little-endian)"),
])
def test_wide_encodings_are_named(encoding, name):
    text = "1 0 d1 1\n2 0 d2 0\n".encode(encoding)
    with pytest.raises(InputError, match=fr"this text is {name.replace('(', '[(]').replace(')', '[)]')}, not UTF-8"):
        load_collection(("q.txt", text), R1)


def test_binary_is_still_binary():
    with pytest.raises(InputError, match="this is a binary file"):
        load_collection(("q.txt", b"1 0 d1 1\n\x00\x01\x02\x03 binary"), R1)


def test_topic_ids_that_are_the_same_number_written_differently(capsys):
    runs = [("r.txt", b"1 Q0 d1 1 1.0 x\n2 Q0 d1 1 1.0 x\n")]
    with pytest.raises(InputError, match="run topic '1' is not qrels topic '1.0', though they are the same number"):
        load_collection(("q.txt", b"1.0 0 d1 1\n2.0 0 d1 1\n"), runs)
    c = load_collection(("q.txt", b"001 0 d1 1\n2 0 d1 1\n"), runs)   # one topic still matches: a warning
    assert c.report.ignored_run_topics == {"r": ["1"]} and c.report.missing_run_topics == {"r": ["001"]}
    assert [w for w in c.report.warnings if "run topic '1' is not qrels topic '001'" in w]
    # topic ids that are not numbers, or numbers the run does not lack, are left alone
    c = load_collection(("q.txt", b"1 0 d1 1\n1.0 0 d1 1\n"), runs)
    assert not [w for w in c.report.warnings if "same number" in w]


def test_the_cli_prints_load_warnings(tmp_path, capsys):
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_bytes(b"001 0 d1 1\n2 0 d1 1\n2 0 d2 -1\n")
    r.write_bytes(b"1 Q0 d1 1 1.0 x\n2 Q0 d1 1 1.0 x\n")
    assert main(["evaluate", "--qrels", str(q), "--run", str(r), "--metrics", "AP"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert any(e.startswith("warning: run r: 1 topic not in the qrels as written") for e in err)
    assert any(e.startswith(f"warning: {q}: 1 judgment with a negative label") for e in err)


# -- archives with too many members, and many small compressed files --------------------------------
def test_an_archive_with_too_many_members_is_refused_before_listing():
    import tracemalloc

    from bombs import many_member_zip

    from evalcore.io import Limits

    z = many_member_zip(300_000)             # zip64 end records; the default limit is 200,000
    tracemalloc.start()
    with pytest.raises(InputError, match="the archive lists 300,000 members .* more than the limit of 200,000"):
        load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", z))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 << 20                     # listing 300,000 members would take ~400 MB
    # an end record that lies about the count: the directory's size still bounds the members
    small = bytearray(many_member_zip(3_000))
    k = small.rfind(b"PK\x05\x06")
    small[k + 8:k + 12] = b"\x01\x00\x01\x00"  # "1 member"
    with pytest.raises(InputError, match="more than the limit of 100 members"):
        load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", bytes(small)), limits=Limits(max_members=100))
    c = load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", many_member_zip(3)))
    assert c.n_runs == 3


def test_many_small_compressed_runs_share_one_expansion_budget():
    import gzip

    from evalcore.io import APP_LIMITS, Limits

    assert APP_LIMITS.max_total_expanded == 1 << 30
    text = b"".join(b"q1 Q0 d%d %d %d x\n" % (i, i + 1, -i) for i in range(20_000))   # ~450 KB each
    gz = gzip.compress(text)
    runs = [(f"r{i}.txt.gz", gz) for i in range(6)]
    lim = Limits(max_total_expanded=2 * len(text) + 1000)   # each file is within its own limit
    with pytest.raises(InputError, match="the compressed files of this load expand to more than .* together") as e:
        load_collection(("q.txt", b"q1 0 d1 1\n"), runs, limits=lim)
    assert e.value.file in {f"r{i}.txt.gz" for i in range(2, 6)}
    assert load_collection(("q.txt", b"q1 0 d1 1\n"), runs[:2], limits=lim).n_runs == 2


# -- repeated judgments and documents, found with arrays: the same answers as a plain loop ------------
def _reference_qrels(lines: list[tuple[str, str, int]]):
    """Straight from the rule: the first judgment of a (topic, doc) is kept; a later one with another
    level is an error at that line; identical ones are counted. Returns (kept, repeats, first repeat line)
    or ("error", line, first line)."""
    seen: dict[tuple[str, str], tuple[int, int]] = {}
    kept, reps, first_rep = [], 0, None
    for i, (t, d, lv) in enumerate(lines, 1):
        if (t, d) in seen:
            if seen[(t, d)][0] != lv:
                return "error", i, seen[(t, d)][1]
            reps += 1
            first_rep = first_rep or i
            continue
        seen[(t, d)] = (lv, i)
        kept.append([t, d, lv])
    return kept, reps, first_rep


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("form", ["ntcir", "trec"])
def test_repeated_judgments_match_a_plain_loop(seed, form):
    import random

    rng = random.Random(seed)
    lines = [(f"t{rng.randint(1, 3)}", f"d{rng.randint(1, 8)}", rng.choice([0, 1, 1, 2]) if seed % 3 else 1)
             for _ in range(rng.randint(2, 40))]
    lines.append(("t9", "dz", 1))                    # at least one relevant document
    text = "".join(f"{t} {d} L{lv}\n" if form == "ntcir" else f"{t} 0 {d} {lv}\n" for t, d, lv in lines)
    ref = _reference_qrels(lines)
    from evalcore.io import read_qrels
    if ref[0] == "error":
        with pytest.raises(InputError) as e:
            read_qrels(("q.txt", text.encode()))
        assert e.value.line == ref[1] and f"line {ref[2]}," in str(e.value)
        return
    q = read_qrels(("q.txt", text.encode()))
    assert q.frame.values.tolist() == ref[0] and q.n_lines == len(lines)
    dup = [w for w in q.warnings if "duplicate judgment" in w]
    assert (dup == []) == (ref[1] == 0)
    if ref[1]:
        assert f"{ref[1]} duplicate judgment" in dup[0] and f"e.g. line {ref[2]})" in dup[0]


@pytest.mark.parametrize("seed", range(10))
def test_a_document_listed_twice_is_named_as_a_plain_loop_would(seed):
    import random

    rng = random.Random(100 + seed)
    rows = [(f"q{rng.randint(1, 2)}", f"d{rng.randint(1, 12)}") for _ in range(rng.randint(2, 30))]
    text = "".join(f"{t} Q0 {d} {i + 1} {-i} x\n" for i, (t, d) in enumerate(rows))
    first: dict[tuple[str, str], int] = {}
    want = None
    for i, key in enumerate(rows, 1):
        if key in first:
            want = (i, first[key])
            break
        first[key] = i
    qrels = ("q.txt", b"q1 0 d1 1\nq2 0 d1 1\n")
    if want is None:
        assert load_collection(qrels, [("r.txt", text.encode())]).n_runs == 1
        return
    with pytest.raises(InputError) as e:
        load_collection(qrels, [("r.txt", text.encode())])
    assert e.value.line == want[0] and f"(first on line {want[1]})" in str(e.value)


# -- zip: the member count before the listing; the load's expansion budget counts actual bytes ---------
def test_the_member_count_is_read_before_zipfile_lists_anything(monkeypatch):
    import zipfile

    from bombs import many_member_zip

    from evalcore.io import Limits

    def never(*a, **k):
        raise AssertionError("zipfile.ZipFile opened an archive over the member limit")
    z16, z64 = many_member_zip(300), many_member_zip(70_000)   # a plain end record, and zip64 records
    monkeypatch.setattr(zipfile, "ZipFile", never)
    for z, n in ((z16, 300), (z64, 70_000)):
        with pytest.raises(InputError, match=f"lists {n:,} members .* more than the limit of 200 members"):
            load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", z), limits=Limits(max_members=200))


def test_a_zip_of_more_runs_than_the_limit_is_refused_at_the_first_run_over_it(monkeypatch):
    """Every member of a zip of TREC runs is a run of its own: the archive is refused at member
    ``max_runs + 1``, before the members after it are looked at (70,000 members within the member limit
    would otherwise each be checked and grouped before the run count refused them). NTCIR ``.res``
    members are one topic each and group into runs by folder, so they do not count one run each."""
    from bombs import many_member_zip

    from evalcore.io import Limits, _sources

    seen = []
    check = _sources._member_problem
    monkeypatch.setattr(_sources, "_member_problem", lambda i: seen.append(i.filename) or check(i))
    with pytest.raises(InputError, match=r"runs\.zip: 51 runs or more \(one a member\), more than the limit of "
                                         r"50(.|\n)*--max-runs"):
        load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", many_member_zip(5_000)), limits=Limits(max_runs=50))
    assert len(seen) == 51
    res = many_member_zip(60, b"d1\n", name="run{}/q1.res")   # 60 runs of one .res file each: over 50
    with pytest.raises(InputError, match="60 runs, more than the limit of 50"):
        load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", res), limits=Limits(max_runs=50))
    one = many_member_zip(60, b"d1\n", name="run/q{}.res")     # one run of 60 topics: within the limit
    c = load_collection(("q.txt", b"q1 0 d1 1\n"), ("runs.zip", one), limits=Limits(max_runs=50))
    assert c.run_ids == ("run",) and c.n_topics == 1   # q1 of the qrels; q0..q59 are unjudged topics


def test_zip_members_and_gz_files_share_the_loads_expansion_budget():
    """Two zips (deflated members) and a .gz, each within its own limit, over the load's total: the
    inflated bytes are counted as they come out, whatever the archives declare."""
    import gzip
    import io
    import zipfile

    from evalcore.io import Limits

    text = b"".join(b"q1 Q0 d%d %d %d x\n" % (i, i + 1, -i) for i in range(20_000))

    def zipped(name: str) -> bytes:
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(name, text)
        return b.getvalue()
    runs = [("a.zip", zipped("a.txt")), ("b.zip", zipped("b.txt")), ("c.txt.gz", gzip.compress(text))]
    lim = Limits(max_total_expanded=2 * len(text) + 1000)
    with pytest.raises(InputError, match="expand to more than .* together") as e:
        load_collection(("q.txt", b"q1 0 d1 1\n"), runs, limits=lim)
    assert e.value.file == "c.txt.gz"
    with pytest.raises(InputError, match="expand to more than .* together") as e:
        load_collection(("q.txt", b"q1 0 d1 1\n"), runs[:2], limits=Limits(max_total_expanded=len(text) + 10))
    assert e.value.file == "b.zip:b.txt"
    assert load_collection(("q.txt", b"q1 0 d1 1\n"), runs[:2], limits=lim).n_runs == 2


# -- streamed line parsing: blocks, CRLF, lines across block boundaries ---------------------------------
@pytest.mark.parametrize("seed", range(30))
def test_blocks_of_lines_are_exactly_splitlines(seed):
    import random

    from evalcore.io._lines import raw_blocks

    rng = random.Random(seed)
    pieces = [b"a", b"bb", b"q1 0 d1 1", b"", b" ", b"\xc3\xa9"]
    ends = [b"\n", b"\r\n", b"\r", b"\n\n", b"\r\r\n"]
    data = b"".join(rng.choice(pieces) * rng.randint(0, 9) + rng.choice(ends) for _ in range(rng.randint(0, 60)))
    if rng.random() < 0.5:
        data += b"no end" * rng.randint(1, 3)
    for block in (1, 2, 3, 5, 8, 13, 64, 1 << 20):
        blocks = list(raw_blocks(data, block))
        assert [ln for b in blocks for ln in b] == data.splitlines(), (block, data)
        assert all(b for b in blocks) or not data


def _at_boundary(body_lines: int, bad: bytes, eol: bytes, fmt: str) -> tuple[bytes, int]:
    """A file of more than one block of lines whose line ``n`` (returned) is ``bad`` and sits just past
    the first block boundary (``io._lines.BLOCK``)."""
    from evalcore.io._lines import BLOCK

    line = (b"T%04d doc-%08d L1" if fmt == "ntcir" else b"%d 0 doc-%08d 1")
    rows, size, i = [], 0, 0
    while size < BLOCK:
        r = (line % (i % 50, i)) + eol
        rows.append(r)
        size += len(r)
        i += 1
    return b"".join(rows) + bad + eol + b"".join(rows[:body_lines]), len(rows) + 1


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize("fmt", ["ntcir", "trec"])
def test_errors_past_a_block_boundary_name_the_right_line(eol, fmt):
    from evalcore.io import read_qrels

    bad = b"T0001 doc-x L99" if fmt == "ntcir" else b"1 0 doc-x 99"
    data, n = _at_boundary(10, bad, eol, fmt)
    with pytest.raises(InputError) as e:
        read_qrels(("q.txt", data))
    assert e.value.line == n and "above 20" in str(e.value) and e.value.text == bad.decode()
    assert str(e.value).startswith(f"q.txt, line {n}:")


def test_a_run_line_across_the_block_boundary_is_read_whole():
    """The first block ends in the middle of a line: that line is parsed whole, and a bad line after
    it is named by its number (CRLF line ends, a header, blank lines)."""
    from evalcore.io import read_run
    from evalcore.io._lines import BLOCK

    head = b"# ir_metadata\r\n\r\n"
    line = b"q1 Q0 d%07d %d 1.5 tag\r\n"
    rows = [line % (i, i + 1) for i in range(BLOCK // len(line % (0, 1)) + 50)]
    ok = head + b"".join(rows)
    assert len(ok) > BLOCK and (BLOCK - len(head)) % len(rows[0])      # a line straddles the boundary
    r = read_run(("r.txt", ok), order="file")
    assert len(r.docs) == len(rows) and r.docs[-1] == f"d{len(rows) - 1:07d}"
    with pytest.raises(InputError) as e:
        read_run(("r.txt", ok + b"q1 Q0 dx 1 nan tag\r\n"))
    assert e.value.line == 2 + len(rows) + 1 and "not a finite number" in str(e.value)


# -- NTCIR one-file qrels on the vectorised path: the same as a plain reading ---------------------------
@pytest.mark.parametrize("seed", range(8))
def test_ntcir_qrels_match_a_plain_reading(seed):
    import random

    from evalcore.io import read_qrels

    rng = random.Random(seed)
    labels = ["L0", "L1", "L2", "L3", "S", "A", "B", "2", "L-1", "-3"][: 7 if seed % 2 else 10]
    rows = [(f"T{rng.randint(1, 4)}", f"d{i}", rng.choice(labels)) for i in range(rng.randint(5, 200))]
    rows.append(("T9", "dz", "L1"))
    text = "".join(f"{t} {d} {lab}\n" for t, d, lab in rows)

    def level(lab: str) -> int:   # the NTCIR rule, written out
        if lab in ("S", "A", "B"):
            return {"B": 1, "A": 2, "S": 3}[lab]
        v = int(lab[1:] if lab.startswith("L") else lab)
        return max(v, 0)
    q = read_qrels(("q.txt", text.encode()))
    assert q.frame.values.tolist() == [[t, d, level(lab)] for t, d, lab in rows]
    assert (q.level_names is not None) == any(lab in ("S", "A", "B") for _, _, lab in rows)
    neg = [i for i, (_, _, lab) in enumerate(rows, 1) if lab.lstrip("L").startswith("-")]
    warn = [w for w in q.warnings if "negative label" in w]
    assert bool(warn) == bool(neg)
    if neg:
        assert f"{len(neg)} judgment" in warn[0] and f"e.g. line {neg[0]}: {rows[neg[0] - 1][2]})" in warn[0]


@pytest.mark.parametrize("bad, words", [(b"T1 d9 LL1", "not of the form L<n>"), (b"T1 d9 L300", "above 20"),
                                        (b"T1 d9 X", "not of the form L<n>"), (b"T1 d9", "expected 3 fields")])
def test_bad_ntcir_lines_are_named(bad, words):
    from evalcore.io import read_qrels

    with pytest.raises(InputError) as e:
        read_qrels(("q.txt", b"T1 d1 L1\nT1 d2 S\n\n" + bad + b"\nT1 d3 L0\n"))
    assert e.value.line == 4 and words in str(e.value)


# -- an encrypted zip and a first line over 64 KiB: messages that say what is wrong --------------------------------
def _encrypted_zip(members: dict[str, bytes]) -> bytes:
    import io as _io
    import zipfile

    b = _io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        for k, v in members.items():
            z.writestr(k, v)
    data = bytearray(b.getvalue())
    for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):   # set the "encrypted" flag bit
        k = data.find(sig)
        while k >= 0:
            data[k + off] |= 1
            k = data.find(sig, k + 4)
    return bytes(data)


def test_an_encrypted_zip_is_named_as_such_not_by_zipinfos_repr():
    z = _encrypted_zip({"run.txt": b"1 Q0 d1 1 1.0 x\n"})
    for q, r in ((("q.txt", b"1 0 d1 1\n"), ("runs.zip", z)), (("q.zip", z), R1)):
        with pytest.raises(InputError) as ei:
            load_collection(q, r)
        text = str(ei.value)
        assert "this member is encrypted (the archive was made with a password)" in text and "ZipInfo" not in text
        assert "without a password" in text


@pytest.mark.parametrize("n", [65_530, 70_000, 300_000])
def test_a_first_line_over_64_kib_is_read_whole(n):
    """The format was sniffed from the first 64 KiB: a TREC line cut there had 3 fields, was taken for NTCIR,
    and the message said "expected 3 fields (topic doc L<n>), found 4" (or 4 and 4 for a run)."""
    doc = "d" * n
    c = load_collection(("q.txt", f"1 0 {doc} 1\n1 0 d2 1\n".encode()),
                        [("r.txt", f"1 Q0 {doc} 1 2.0 x\n1 Q0 d3 2 1.0 x\n".encode())])
    assert c.n_runs == 1 and c.levels[0, 0, :2].tolist() == [1, 0]
    with pytest.raises(InputError, match="expected 4 fields .*found 5"):
        load_collection(("q.txt", f"1 0 {doc} 1 extra\n".encode()), R1)
