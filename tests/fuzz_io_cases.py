"""Hypothesis strategies for fuzzing evalcore.io with mutated real files.

Shared by the short fuzz test (tests/test_io_fuzz.py) and the long run
(benchmarks/fuzz_io.py). Seeds are excerpts of the real clef2015 qrels and
runs (read from ../shared/data, never copied), in TREC and NTCIR forms;
every case applies one to three mutations from ``MUTATIONS`` and says which
(``Case.kinds``) so the long run can count cases per class.

The property checked by both: ``load_collection`` returns a Collection or
raises InputError - never anything else - within a time and memory bound,
and an InputError's text stays short.
"""
from __future__ import annotations

import gzip
import io
import re
import time
import tracemalloc
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bombs import gzip_bomb, many_member_zip, zip_bomb
from hypothesis import strategies as st

CLEF = Path(__file__).resolve().parents[2] / "shared" / "data" / "clef2015"
if not CLEF.exists():
    CLEF = Path("/work/shared/data/clef2015")


@lru_cache(maxsize=1)
def seeds() -> dict[str, bytes]:
    """Real excerpts: the qrels of 6 topics and the first 300 lines of 3 runs, as bytes."""
    qlines = (CLEF / "qrels.txt").read_bytes().splitlines(keepends=True)
    topics = []
    for ln in qlines:
        t = ln.split()[0]
        if t not in topics:
            topics.append(t)
    keep = set(topics[:6])
    qrels = b"".join(ln for ln in qlines if ln.split()[0] in keep)
    runs = {}
    for p in sorted((CLEF / "runs").iterdir())[:3]:
        lines = gzip.decompress(p.read_bytes()).splitlines(keepends=True)
        mine = b"".join(ln for ln in lines if ln.split()[0] in keep)
        runs[p.name.replace(".gz", "")] = mine[:mine.index(b"\n", 40_000) + 1]  # whole lines
    ntcir = b"".join(b"%s %s L%s\n" % tuple(ln.split()[i] for i in (0, 2, 3)) for ln in qrels.splitlines())
    first = next(iter(runs.values()))
    jsonl = b"".join(b'{"qid": "%s", "docno": "%s", "rank": %s, "score": %s}\n'
                     % tuple(ln.split()[i] for i in (0, 2, 3, 4))
                     for ln in first.splitlines())
    from evalcore.io import load_collection  # the seeds themselves must load
    for q in (qrels, ntcir):
        load_collection(("q.txt", q), [(k, v) for k, v in runs.items()])
    load_collection(("q.txt", qrels), [("r.jsonl", jsonl)])
    return {"qrels": qrels, "ntcir_qrels": ntcir, "jsonl_run": jsonl, **{f"run:{k}": v for k, v in runs.items()}}


@dataclass
class Case:
    qrels: tuple[str, bytes]
    runs: list[tuple[str, bytes]] | tuple[str, bytes]
    kinds: list[str] = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)

    def size(self) -> int:
        rs = self.runs if isinstance(self.runs, list) else [self.runs]
        return len(self.qrels[1]) + sum(len(b) for _, b in rs)


# -- mutations: (data, draw) -> data -------------------------------------------------------
BAD_LABELS = ["128", "255", "300", "21", "1000000", "1000000000", str(2 ** 63), str(2 ** 64), "9" * 5000, "-1",
              "-" + "9" * 30, "1.5", "2e3", "nan", "\u0661", "\uff12", "L300", "L-5", "0x10", "", "S", "B"]
BAD_SCORES = ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1e400", "1,5", "\u0661.5", "0x1p3", "--1",
              "1e", ".", "7" * 100_000 + "z", "1" * 400]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def m_flip(d, draw):
    if not d:
        return d
    b = bytearray(d)
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(b) - 1))
        b[i] ^= draw(st.integers(1, 255))
    return bytes(b)


def m_truncate(d, draw):
    return d[:draw(st.integers(0, len(d)))]


def m_nul(d, draw):
    i = draw(st.integers(0, len(d)))
    return d[:i] + b"\0" * draw(st.integers(1, 4)) + d[i:]


def m_bad_utf8(d, draw):
    i = draw(st.integers(0, len(d)))
    return d[:i] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])) + d[i:]


def m_utf16(d, draw):
    return d.decode("utf-8", "replace").encode(draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be"])))


def m_huge_line(d, draw):
    n = draw(st.sampled_from([70_000, 1 << 20]))
    i = draw(st.integers(0, len(d)))
    return d[:i] + draw(st.sampled_from([b"x", b"7", b" ", b"\t"])) * n + b"\n" + d[i:]


def m_long_first_line(d, draw):
    """A valid first line longer than 64 KiB (its document id): the format is sniffed from the whole line
    (a line cut at 64 KiB had fewer fields: "expected 4 fields, found 4")."""
    ls = _lines(d)
    f = ls[0].split()
    f[2 if len(f) > 3 else 1] = b"d" * draw(st.sampled_from([65_530, 70_000, 200_000]))
    return b" ".join(f) + b"\n" + b"".join(ls[1:])


def _field(d, draw, col, values):
    ls = _lines(d)
    k = draw(st.integers(0, len(ls) - 1))
    f = ls[k].split()
    if len(f) > col:
        f[col] = draw(st.sampled_from(values)).encode()
        ls[k] = b" ".join(f) + b"\n"
    return b"".join(ls)


def m_label(d, draw):
    return _field(d, draw, 3, BAD_LABELS)


def m_score(d, draw):
    return _field(d, draw, 4, BAD_SCORES)


def m_rank(d, draw):
    return _field(d, draw, 3, ["99999999999999999999999", "-1", "1.5", "\u0661", "x"])


def m_duplicate(d, draw):
    ls = _lines(d)
    k = draw(st.integers(0, len(ls) - 1))
    return b"".join(ls[:k + 1] + [ls[k]] * draw(st.integers(1, 3)) + ls[k + 1:])


def m_windows(d, draw):
    return d.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def m_boms(d, draw):
    return b"\xef\xbb\xbf" * draw(st.integers(1, 3)) + d


def m_blanks(d, draw):
    return d.replace(b" ", draw(st.sampled_from([b"\t", b"  ", b" \t ", b"\x0b"])))


def m_empty(d, draw):
    return draw(st.sampled_from([b"", b"\n\n", b"   \n", b"\xef\xbb\xbf"]))


def m_fake_gz(d, draw):
    return draw(st.sampled_from([b"\x1f\x8b" + d, gzip.compress(d)[:max(12, len(d) // 3)], b"\x1f\x8b\x08\x00"]))


def m_gz(d, draw):
    return gzip.compress(d, compresslevel=1)


def m_bomb(d, draw):
    return gzip_bomb(draw(st.sampled_from([20, 64])), draw(st.sampled_from([b"\0", b"\n", b"7"])))


def m_many_topics(d, draw):
    n = draw(st.sampled_from([5_000, 20_000, 100_000]))
    return d + b"".join(b"zz%d 0 d%d 1\n" % (i, i) for i in range(n))


def m_control(d, draw):
    i = draw(st.integers(0, len(d)))
    return d[:i] + draw(st.sampled_from([b"\r", b"\x0c", b"\x1c", b"\x85", b"\xe2\x80\xa8", b"\x00\n"])) + d[i:]


def m_utf32(d, draw):
    return d.decode("utf-8", "replace").encode(draw(st.sampled_from(["utf-32", "utf-32-le", "utf-32-be"])))


def m_comments_only(d, draw):
    """Every line made an ir_metadata comment (a header with no data), or a header put before the data."""
    ls = _lines(d)
    if draw(st.booleans()):
        return b"".join(b"# " + ln for ln in ls)
    return b"".join(b"# ir_metadata line %d\n" % i for i in range(draw(st.integers(1, 30)))) + d


def m_numeric_topics(d, draw):
    """Topic ids rewritten as numbers, some of them as another spelling of the same number (1.0, 001)."""
    ls, ids = _lines(d), {}
    out = []
    for ln in ls:
        f = ln.split(None, 1)
        if len(f) == 2 and not f[0].startswith(b"#"):
            n = ids.setdefault(f[0], len(ids) + 1)
            spell = draw(st.sampled_from([b"%d", b"%d.0", b"00%d", b"%d"])) % n
            ln = spell + b" " + f[1]
        out.append(ln)
    return b"".join(out)


def m_long_repeat(d, draw):
    """One line repeated many times (a repeated judgment, or a document listed again)."""
    ls = _lines(d)
    k = draw(st.integers(0, len(ls) - 1))
    return b"".join(ls + [ls[k]] * draw(st.sampled_from([2, 500, 20_000])))


def m_ntcir_labels(d, draw):
    """NTCIR label spellings in a 3-field qrels: some L<n> become S, A, B or a bare integer, one may
    become ``LL1`` / ``L`` / ``L-1`` (the vectorised path must hand those to the line loop, or agree with it)."""
    ls, out = _lines(d), []
    odd = draw(st.sampled_from([b"LL1", b"L", b"L-1", b"L+1", b"L1"]))
    k = draw(st.integers(0, len(ls) - 1))
    for i, ln in enumerate(ls):
        f = ln.split()
        if len(f) == 3 and f[2][:1] == b"L":
            lab = odd if i == k else draw(st.sampled_from([f[2], f[2], b"S", b"A", b"B", f[2][1:]]))
            ln = b" ".join(f[:2] + [lab]) + b"\n"
        out.append(ln)
    return b"".join(out)


MUTATIONS = {f.__name__[2:]: f for f in [m_flip, m_truncate, m_nul, m_bad_utf8, m_utf16, m_huge_line, m_label,
                                          m_score, m_rank, m_duplicate, m_windows, m_boms, m_blanks, m_empty,
                                          m_fake_gz, m_gz, m_bomb, m_many_topics, m_control, m_utf32,
                                          m_comments_only, m_numeric_topics, m_long_repeat, m_ntcir_labels,
                                          m_long_first_line]}
_QRELS_ONLY = {"label", "many_topics", "ntcir_labels"}
_RUN_ONLY = {"score", "rank"}


def _zip(members: dict[str, bytes]) -> bytes:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as zf:
        for k, v in members.items():
            zf.writestr(k, v)
    return b.getvalue()


def _encrypted(z: bytes) -> bytes:
    """``z`` with bit 0 (encrypted) of every local and central header's flags set."""
    b = bytearray(z)
    for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        k = b.find(sig)
        while k >= 0:
            b[k + off] |= 1
            k = b.find(sig, k + 4)
    return bytes(b)


@st.composite
def cases(draw, heavy: bool = True, only: str | None = None) -> Case:
    """A qrels and runs pair built from real files, mutated one to three times
    (``only``: exactly one mutation of that class)."""
    s = seeds()
    kinds = []
    ntcir = draw(st.booleans())
    qrels = s["ntcir_qrels"] if ntcir else s["qrels"]
    run_names = [k for k in s if k.startswith("run:")]
    picked = draw(st.lists(st.sampled_from(run_names), min_size=1, max_size=3, unique=True))
    runs = {k[4:]: s[k] for k in picked}
    if draw(st.integers(0, 5)) == 0:  # a JSON-lines run (PyTerrier / ir_measures style) among them
        runs["jsonl_run.jsonl"] = s["jsonl_run"]
        kinds.append("jsonl")
    names = list(MUTATIONS) if heavy else [k for k in MUTATIONS if k not in ("bomb", "many_topics")]
    for _ in range(1 if only else draw(st.integers(1, 3))):
        kind = only or draw(st.sampled_from(names))
        kinds.append(kind)
        target = "qrels" if kind in _QRELS_ONLY else "run" if kind in _RUN_ONLY else draw(
            st.sampled_from(["qrels", "run"]))
        if target == "qrels":
            qrels = MUTATIONS[kind](qrels, draw)
        else:
            k = draw(st.sampled_from(sorted(runs)))
            runs[k] = MUTATIONS[kind](runs[k], draw)
    # containers and names: plain, Windows-style paths, .gz names, a zip (sometimes with extras)
    wrap = draw(st.sampled_from(["list", "list", "winpath", "zip", "zip+extras", "gzname", "notzip", "many_members",
                                 "encrypted"]))
    kinds.append("wrap:" + wrap)
    qname = "qrels.txt"
    if wrap == "winpath":
        qname = "C:\\data\\qrels.txt"
        run_arg = [(f"C:\\runs\\{k}", v) for k, v in runs.items()]
    elif wrap.startswith("zip"):
        members = dict(runs)
        if wrap == "zip+extras":
            members.update({"README.md": b"# runs\n", "../up.txt": b"x", "Thumbs.db": b"\0",
                            "inner.zip": zip_bomb(8)})
        run_arg = ("runs.zip", _zip(members))
    elif wrap == "encrypted":      # the encryption flag set on every member (a password-protected archive)
        run_arg = ("runs.zip", _encrypted(_zip(runs)))
    elif wrap == "gzname":
        run_arg = [(k + ".gz", v) for k, v in runs.items()]
    elif wrap == "notzip":
        run_arg = ("runs.zip", b"".join(runs.values()))
    elif wrap == "many_members":
        run_arg = ("runs.zip", many_member_zip(draw(st.sampled_from([3, 70_000, 250_000])),
                                               next(iter(runs.values()))[:200]))
    else:
        run_arg = list(runs.items())
    kw = draw(st.sampled_from([{}, {"order": "rank"}, {"order": "file"}, {"keep_first_duplicate": True},
                               {"depth": 10}, {"condensed": True}]))
    return Case((qname, qrels), run_arg, kinds, kw)


def check(case: Case, *, max_seconds: float, max_peak: int, trace: bool = True) -> tuple[str, float, int]:
    """Load the case; assert Collection or InputError in time and memory. Returns (outcome, cpu s, peak bytes).

    Time: the CPU seconds of a load without tracing (what a user waits for; tracemalloc makes an
    allocation-heavy load, such as zipfile listing 70,000 members, 3-10x slower, and by how much depends
    on the machine). Memory (``trace``): a second load under tracemalloc, whose peak must stay under
    ``max_peak`` plus, for a Collection, twice its levels tensor (the tensor and its copy while the rank
    axis grows). The tensor is sized by the input but checked against ``Limits.max_tensor_bytes`` before
    it is allocated; e.g. a qrels file of 40 kB with 200,000 topics asks for ~800 MB, within the API's
    default 2 GiB (the dashboard's limit is 512 MiB)."""
    t = time.process_time()
    outcome, tensor = _load(case)
    cpu = time.process_time() - t
    assert cpu < max_seconds, (case.kinds, cpu)
    peak = 0
    if trace:
        tracemalloc.start()
        try:
            again, _ = _load(case)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert again == outcome, (case.kinds, outcome, again)
        assert peak < max_peak + 2 * tensor, (case.kinds, peak)
    return outcome, cpu, peak


def _load(case: Case) -> tuple[str, int]:
    """("collection", its tensor's bytes) or ("input_error", 0); anything else raises."""
    from evalcore.collection import Collection
    from evalcore.io import InputError, load_collection

    try:
        c = load_collection(case.qrels, case.runs, **case.kwargs)
    except InputError as e:
        text = str(e)
        assert len(text) < 5000, len(text)
        assert text.strip()
        assert "ZipInfo" not in text, text                                   # a message, not zipfile's repr
        m = re.search(r"expected (\d+) fields.*?, found (\d+)", text)
        assert not (m and m.group(1) == m.group(2)), text                  # "expected 4 fields, found 4"
        return "input_error", 0
    assert isinstance(c, Collection)
    return "collection", c.report.tensor_bytes
