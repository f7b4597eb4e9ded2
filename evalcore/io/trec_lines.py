"""Run parsing, slow path: line by line, to name the first bad line of a TREC run in an InputError."""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from .errors import _DUP_FIX, InputError, _short
from .text import _FLOAT_RE, _INT_RE, _lines

_RUN_FIELDS = "topic Q0 doc rank score tag"


def _slow_trec(data: bytes, fname: str, order: str, keep_first: bool):
    """Line-by-line TREC run parser: raises the precise InputError for the first bad line."""
    topics, docs, scores, ranks = [], [], [], []
    seen: dict[tuple[str, str], int] = {}
    for i, text, fl in _lines(data):
        if len(fl) != 6:
            if len(fl) == 4 and _INT_RE.match(fl[3].decode("utf-8", "replace")):
                hint = ("this looks like a qrels line (topic iter doc rel), not a run line: if this file is "
                        "the qrels, give it as the qrels (--qrels FILE; load_collection's first argument), "
                        "and only run files as runs")
            elif len(fl) == 1:
                hint = "an NTCIR run (one document id per line) is a directory or zip of TOPIC.res files"
            else:
                hint = ("every line of a TREC run has 6 fields separated by blanks; "
                        + ("remove the extra fields" if len(fl) > 6 else "complete or remove the line"))
            raise InputError(f"expected 6 fields ({_RUN_FIELDS}), found {len(fl)}", file=fname, line=i,
                             text=text, hint=hint)
        t, d = fl[0].decode(), fl[2].decode()
        s = fl[4].decode()
        if not _FLOAT_RE.match(s):
            note = " (only ASCII digits 0-9 are read)" if not s.isascii() and any(c.isdigit() for c in s) else ""
            raise InputError(f"score {_short(s)} is not a number{note}", file=fname, line=i, text=text,
                             hint="the 5th field of a TREC run line is the score, e.g. 12.5 or -3.2e-4")
        score = float(s)
        if not math.isfinite(score):
            raise InputError(f"score {_short(s)} is not a finite number", file=fname, line=i, text=text,
                             hint="give finite scores (nan, inf and numbers beyond +-1.8e308 are refused: "
                                  "their ranking order is undefined)")
        if order == "rank":
            r = fl[3].decode()
            if not _INT_RE.match(r) or len(r.lstrip("+-").lstrip("0")) > 18:
                what = "is not an integer" if not _INT_RE.match(r) else "is too large (at most 18 digits)"
                raise InputError(f"rank {_short(r)} {what}", file=fname, line=i, text=text,
                                 hint="the 4th field is the rank (1, 2, ...); or use order='score' "
                                      "(trec_eval's order), which ignores it")
            ranks.append(int(r))
        if not keep_first:
            first = seen.setdefault((t, d), i)
            if first != i:
                raise InputError(f"document {_short(d)} is listed twice for topic {_short(t)} (first on line {first})",
                                 file=fname, line=i, text=text, hint=_DUP_FIX)
        topics.append(t)
        docs.append(d)
        scores.append(score)
    if not topics:
        raise InputError("no run lines: the file holds only comments (#) and blank lines", file=fname,
                         hint="give the run file itself (topic Q0 doc rank score tag per line)")
    return (pa.array(topics, pa.string()), pa.array(docs, pa.string()), pa.array(scores, pa.float64()),
            np.asarray(ranks, np.int64) if order == "rank" else None)
