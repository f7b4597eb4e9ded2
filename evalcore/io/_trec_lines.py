"""Run parsing, slow path: line by line, to name the first bad line of a TREC run in an InputError.

Memory: lines are read a block at a time (:mod:`._lines`) and each block's fields become arrow
arrays before the next block is read, so a 96 MB run with a bad last line holds its text plus its
columns (a few bytes per line beyond the text), not many times the text in Python objects
(docs/reliability.md, "Parse memory"). The first
malformed line is named (fields, score, rank); a file without one is then checked, all at once, for
a document listed twice (:func:`._repeats.first_occurrence`), naming the first such line.
"""
from __future__ import annotations

import math
from itertools import islice

import numpy as np
import pyarrow as pa

from . import _arrow as ak
from ._dochash import as_arrow
from ._lines import raw_lines
from ._repeats import first_occurrence
from ._text import FLOAT_RE, INT_RE, content_lines
from .errors import DUP_FIX, InputError, shorten

_RUN_FIELDS = "topic Q0 doc rank score tag"
_ROWS = 65_536   # rows per block of columns


def _bad_fields(fl: list, i: int, text: str, fname: str) -> InputError:
    if len(fl) == 4 and INT_RE.match(fl[3].decode("utf-8", "replace")):
        hint = ("this looks like a qrels line (topic iter doc rel), not a run line: if this file is "
                "the qrels, give it as the qrels (--qrels FILE; load_collection's first argument), "
                "and only run files as runs")
    elif len(fl) == 1:
        hint = "an NTCIR run (one document id per line) is a directory or zip of TOPIC.res files"
    else:
        hint = ("every line of a TREC run has 6 fields separated by blanks; "
                + ("remove the extra fields" if len(fl) > 6 else "complete or remove the line"))
    return InputError(f"expected 6 fields ({_RUN_FIELDS}), found {len(fl)}", file=fname, line=i,
                      text=text, hint=hint)


def _score(s: str, i: int, text: str, fname: str) -> float:
    if not FLOAT_RE.match(s):
        note = " (only ASCII digits 0-9 are read)" if not s.isascii() and any(c.isdigit() for c in s) else ""
        raise InputError(f"score {shorten(s)} is not a number{note}", file=fname, line=i, text=text,
                         hint="the 5th field of a TREC run line is the score, e.g. 12.5 or -3.2e-4")
    score = float(s)
    if not math.isfinite(score):
        raise InputError(f"score {shorten(s)} is not a finite number", file=fname, line=i, text=text,
                         hint="give finite scores (nan, inf and numbers beyond +-1.8e308 are refused: "
                              "their ranking order is undefined)")
    return score


def _rank(r: str, i: int, text: str, fname: str) -> int:
    if not INT_RE.match(r) or len(r.lstrip("+-").lstrip("0")) > 18:
        what = "is not an integer" if not INT_RE.match(r) else "is too large (at most 18 digits)"
        raise InputError(f"rank {shorten(r)} {what}", file=fname, line=i, text=text,
                         hint="the 4th field is the rank (1, 2, ...); or use order='score' "
                              "(trec_eval's order), which ignores it")
    return int(r)


def slow_trec(data: bytes, fname: str, order: str,
               keep_first: bool) -> tuple[pa.Array, pa.Array, pa.Array, np.ndarray | None]:
    """Line-by-line TREC run parser: raises the precise InputError for the first bad line."""
    chunks: list[tuple] = []
    topics: list[str] = []
    docs: list[str] = []
    scores: list[float] = []
    ranks: list[int] = []
    lines: list[int] = []

    def flush():
        chunks.append((ak.strings(topics), ak.strings(docs), np.asarray(scores, np.float64),
                       np.asarray(ranks, np.int64), np.asarray(lines, np.int64)))
        for x in (topics, docs, scores, ranks, lines):
            x.clear()

    for i, text, fl in content_lines(data):
        if len(fl) != 6:
            raise _bad_fields(fl, i, text, fname)
        scores.append(_score(fl[4].decode(), i, text, fname))
        if order == "rank":
            ranks.append(_rank(fl[3].decode(), i, text, fname))
        topics.append(fl[0].decode())
        docs.append(fl[2].decode())
        lines.append(i)
        if len(lines) >= _ROWS:
            flush()
    if lines or not chunks:
        flush()
    if not sum(len(c[0]) for c in chunks):
        raise InputError("no run lines: the file holds only comments (#) and blank lines", file=fname,
                         hint="give the run file itself (topic Q0 doc rank score tag per line)")
    t = pa.concat_arrays([c[0] for c in chunks])
    d = pa.concat_arrays([c[1] for c in chunks])
    s = as_arrow(np.concatenate([c[2] for c in chunks]))
    r = np.concatenate([c[3] for c in chunks]) if order == "rank" else None
    if not keep_first:
        first = first_occurrence(t, d)
        rep = np.flatnonzero(first != np.arange(len(first)))
        if rep.size:
            k = int(rep[0])                      # the earliest line that repeats an earlier one
            line_of = np.concatenate([c[4] for c in chunks])
            i, i0 = int(line_of[k]), int(line_of[first[k]])
            text = next(islice(raw_lines(data), i - 1, None)).decode("utf-8", "replace")
            raise InputError(f"document {shorten(d[k].as_py())} is listed twice for topic {shorten(t[k].as_py())} "
                             f"(first on line {i0})", file=fname, line=i, text=text, hint=DUP_FIX)
    return t, d, s, r
