"""Run parsing, slow path: line by line, to name the first bad line of a TREC run in an InputError."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from .errors import _DUP_FIX, InputError
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
            raise InputError(f"score {s!r} is not a number", file=fname, line=i, text=text,
                             hint="the 5th field of a TREC run line is the score, e.g. 12.5 or -3.2e-4")
        if order == "rank":
            r = fl[3].decode()
            if not _INT_RE.match(r):
                raise InputError(f"rank {r!r} is not an integer", file=fname, line=i, text=text,
                                 hint="the 4th field is the rank (1, 2, ...); or use order='score' "
                                      "(trec_eval's order), which ignores it")
            ranks.append(int(r))
        if not keep_first:
            first = seen.setdefault((t, d), i)
            if first != i:
                raise InputError(f"document {d!r} is listed twice for topic {t!r} (first on line {first})",
                                 file=fname, line=i, text=text, hint=_DUP_FIX)
        topics.append(t)
        docs.append(d)
        scores.append(float(s))
    if not topics:
        raise InputError("empty file", file=fname, hint="give a file with at least one line")
    return (pa.array(topics, pa.string()), pa.array(docs, pa.string()), pa.array(scores, pa.float64()),
            np.asarray(ranks, np.int64) if order == "rank" else None)
