"""trec_eval's two input files, read as trec_eval 10.0 reads them (``get_qrels.c``, ``get_trec_results.c``).

* **qrels**: ``qid iter docno rel``, exactly four whitespace-separated fields; ``rel`` an integer (negative
  values are kept: in the pool but unjudged, trec_eval's ``RELVALUE_UNJUDGED``). A line whose first character is
  ``#`` is a comment. A document listed twice for one topic is an error, as in trec_eval.
* **results**: ``qid iter docno rank sim run_tag``; fields after the sixth are ignored (trec_eval's own
  ``test/results.trunc`` has them), the ``iter`` and ``rank`` fields are not read (trec_eval ranks by ``sim``),
  blank lines and lines whose first non-blank character is ``#`` are skipped. The run's tag is the last line's,
  as trec_eval prints it. A document retrieved twice for one topic is an error.

Where trec_eval reads garbage silently (``atof("1.5abc")`` is 1.5, ``atol("2x")`` is 2) these readers refuse the
line with the file, the line number and what to do; on every file trec_eval reads without complaint the values
are the same. Two differences, documented in docs/cli.md ("evalcore trec_eval"): a second ``#`` line right after a
comment is a comment here too (trec_eval 10.0 parses it as data), and a blank qrels line is skipped (trec_eval
stops with "Malformed line"). Files may be gzip-compressed; the text must be UTF-8 (ASCII in practice), whose
code-point order is the byte order trec_eval's ``strcmp`` sorts by.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..io._source_file import SourceFile
from ..io._text import text_bytes
from ..io.errors import InputError
from ..io.limits import DEFAULT_LIMITS, read_limited

__all__ = ["Qrels", "Results", "read_qrels", "read_results", "read_file"]

_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)\Z", re.IGNORECASE)


@dataclass
class Qrels:
    """Judgments per topic: ``topics[qid] = {docno: rel}``, the topics in trec_eval's (byte) order."""

    name: str
    topics: dict[str, dict[str, int]]


@dataclass
class Results:
    """One run, in file order: topic ids, document ids, scores (float64); ``run_id`` the tag."""

    name: str
    qid: list[str]
    docno: list[str]
    sim: np.ndarray
    run_id: str

    @property
    def topics(self) -> dict[str, tuple[list[str], list[float]]]:
        """``{qid: (docnos, sims)}`` in file order, topics sorted."""
        out: dict[str, tuple[list[str], list[float]]] = {}
        for q, d, v in zip(self.qid, self.docno, self.sim.tolist(), strict=True):
            got = out.setdefault(q, ([], []))
            got[0].append(d)
            got[1].append(v)
        return dict(sorted(out.items()))


def read_file(path: str) -> bytes:
    """The decompressed UTF-8 bytes of ``path`` (``-`` is standard input, as in trec_eval)."""
    if path == "-":
        import sys
        return text_bytes(SourceFile("standard input", lambda: sys.stdin.buffer.read()))
    hint = "give a smaller file"
    return text_bytes(SourceFile(path, lambda: read_limited(path, DEFAULT_LIMITS.max_expanded_bytes, hint=hint)))


def read_qrels(path: str, data: bytes | None = None) -> Qrels:
    """Read a qrels file as trec_eval does (see the module docstring)."""
    raw = read_file(path) if data is None else data
    text = raw.decode("utf-8")
    topics: dict[str, dict[str, int]] = {}
    toks: list[str] = [] if b"#" in raw else text.split()
    per = _fields_per_line(raw, toks)
    if per is not None and (per == 4).all() \
            and not "\n".join(toks[3::4]).encode().translate(None, b"0123456789+-\n"):
        # one judgment a line, no blank or comment line: whole-text passes; a repeated document falls through
        try:
            values = list(map(int, toks[3::4]))
        except ValueError:               # "+-1": the line-by-line reader names the line
            values = []
        for qid, doc, value in zip(toks[0::4], toks[2::4], values, strict=False):
            got = topics.get(qid)
            if got is None:
                topics[qid] = got = {}
            got[doc] = value
        n_judged = sum(map(len, topics.values()))
        if values and n_judged == len(toks) // 4 and -2**62 < min(values) and max(values) < 2**62:
            return Qrels(path, {q: topics[q] for q in sorted(topics)})
        topics = {}
    for i, line in enumerate(text.split("\n"), 1):
        if not line or line[0] == "#":
            continue
        f = line.split()
        if not f:
            continue
        if len(f) != 4:
            raise InputError(f"expected 4 fields (qid iter docno rel), found {len(f)}", file=path, line=i,
                             text=line, hint="trec_eval's qrels lines are 'qid iter docno rel'")
        qid, _, doc, rel = f
        if not _INT.match(rel):
            raise InputError(f"the relevance {rel!r} is not a whole number", file=path, line=i, text=line,
                             hint="write the judgment as an integer (negative: in the pool but not judged)")
        judged = topics.setdefault(qid, {})
        if doc in judged:
            raise InputError(f"document {doc} is judged twice for topic {qid} (trec_eval stops here too: "
                             "'duplicate docs')", file=path, line=i, text=line,
                             hint="keep one judgment per topic and document")
        r = int(rel)
        if not -2**62 < r < 2**62:
            raise InputError(f"the relevance {rel} is out of range", file=path, line=i, text=line)
        judged[doc] = r
    if not topics:
        raise InputError("no judgments in the qrels file", file=path, hint="give a file of 'qid iter docno rel' lines")
    return Qrels(path, {q: topics[q] for q in sorted(topics)})


#: C's isspace() for each byte value (trec_eval splits fields on it)
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True

def _fields_per_line(raw: bytes, toks: list[str]) -> np.ndarray | None:
    """The number of fields on each non-blank line of ``raw`` (split on C's ``isspace``, as trec_eval splits),
    or ``None`` when ``toks`` (``str.split`` of the text) are not those fields (non-ASCII text, other spaces)."""
    if not toks or not raw.isascii():
        return None
    b = np.frombuffer(raw, dtype=np.uint8)
    ws = _SPACE[b]
    starts = np.flatnonzero(~ws & np.concatenate(([True], ws[:-1])))
    if len(starts) != len(toks):
        return None
    per = np.bincount(np.searchsorted(np.flatnonzero(b == 10), starts))
    return per[per > 0]


def _columns(raw: bytes, text: str) -> tuple[list[str], list[str], list[str], str] | None:
    """(qids, docnos, scores, last tag) of a results file whose every non-blank line has at least six fields and
    no comment, read in a few whole-text passes; ``None`` when the file needs the line-by-line reader (which
    also names a bad line)."""
    if b"#" in raw:
        return None
    toks = text.split()
    per = _fields_per_line(raw, toks)
    if per is None or (per < 6).any():
        return None
    if (per == 6).all():                 # the usual file: list slices, no per-line work
        qids, docs, sims = toks[0::6], toks[2::6], toks[4::6]
    else:                                # fields after the sixth on some lines (ignored, as trec_eval does)
        first = np.concatenate(([0], np.cumsum(per)[:-1]))
        t = np.array(toks, dtype=object)
        qids, docs, sims = t[first].tolist(), t[first + 2].tolist(), t[first + 4].tolist()
    if "\n".join(sims).encode().translate(None, b"0123456789+-.eE\n"):
        return None                      # inf, nan, or not a number: the line-by-line reader decides
    return qids, docs, sims, toks[len(toks) - int(per[-1]) + 5]


def read_results(path: str, data: bytes | None = None) -> Results:
    """Read a results (run) file as trec_eval does (see the module docstring)."""
    raw = read_file(path) if data is None else data
    text = raw.decode("utf-8")
    fast = _columns(raw, text)
    scores = None
    if fast is not None:
        qids, docs, sims, run_id = fast
        try:                             # digits, signs, dots and exponents only: float() is C's strtod here
            scores = np.fromiter(map(float, sims), dtype=np.float64, count=len(sims))
        except ValueError:               # "1.2.3", "1e": the line-by-line reader names the line
            fast = None
    if fast is None:
        qids, docs, sims, run_id = _line_by_line(path, text)
    if not qids:
        raise InputError("no results in the file", file=path,
                         hint="give a file of 'qid iter docno rank sim run_tag' lines")
    if scores is None:
        scores = np.fromiter(map(float, sims), dtype=np.float64, count=len(sims))
    return Results(path, qids, docs, scores, run_id)


def _line_by_line(path: str, text: str) -> tuple[list[str], list[str], list[str], str]:
    qids: list[str] = []
    docs: list[str] = []
    sims: list[str] = []
    run_id = ""
    for i, line in enumerate(text.split("\n"), 1):
        f = line.split()
        if not f or f[0][0] == "#":
            continue
        if len(f) < 6:
            raise InputError(f"expected 6 fields (qid iter docno rank sim run_tag), found {len(f)}", file=path,
                             line=i, text=line, hint="trec_eval's results lines are 'qid iter docno rank sim run_tag'")
        if not _FLOAT.match(f[4]):
            raise InputError(f"the score {f[4]!r} is not a number", file=path, line=i, text=line,
                             hint="the fifth field is the document's score (higher ranks first)")
        qids.append(f[0])
        docs.append(f[2])
        sims.append(f[4])
        run_id = f[5]
    return qids, docs, sims, run_id
