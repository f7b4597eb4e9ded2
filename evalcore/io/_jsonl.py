"""Runs as JSON lines: one object per line, ``{"query_id": ..., "doc_id": ..., "score": ...}``.

PyTerrier's names ``qid`` / ``docno`` are accepted too, and ``rank`` is used
with ``order="rank"``; other keys are ignored. Blank lines and ``#`` comment
lines are skipped. The same ordering, tie and duplicate policy as TREC runs
applies (:mod:`._order`); a bad line is named with its number and text.
"""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from . import _arrow as ak
from ._dochash import as_arrow
from ._lines import raw_lines
from ._order import order_rows
from ._text import text_bytes
from ._types import Parsed, RunSource
from .errors import DUP_FIX, InputError, shorten

_KEYS = (("query_id", "qid"), ("doc_id", "docno"))
_HINT = 'each line is one JSON object such as {"query_id": "q1", "doc_id": "d7", "score": 12.5}'


def _field(obj: dict, names: tuple[str, str], fname: str, i: int, text: str) -> str:
    for n in names:
        v = obj.get(n)
        if v is not None and not isinstance(v, (dict, list, bool)) and str(v).strip():
            return str(v)
    raise InputError(f"missing or empty {names[0]!r} (or {names[1]!r})", file=fname, line=i, text=text, hint=_HINT)


def parse_jsonl_run(src: RunSource, order: str, keep_first: bool, data: bytes | None = None) -> Parsed:
    f = src.files[0]
    data = text_bytes(f) if data is None else data
    topics, docs, scores, ranks = [], [], [], []
    seen: dict[tuple[str, str], int] = {}
    for i, raw in enumerate(raw_lines(data), 1):
        s = raw.strip()
        if not s or s.startswith(b"#"):
            continue
        text = raw.decode("utf-8", "replace")
        try:
            obj = json.loads(s)
        except (ValueError, RecursionError) as e:  # JSONDecodeError, or an int beyond 4,300 digits
            why = "nested too deeply" if isinstance(e, RecursionError) else getattr(e, "msg", None) or str(e)[:120]
            raise InputError(f"not a JSON object ({why})", file=f.name, line=i,
                             text=text, hint=_HINT) from None
        if not isinstance(obj, dict):
            raise InputError(f"expected a JSON object, found {type(obj).__name__}", file=f.name, line=i, text=text,
                             hint=_HINT)
        t, d = _field(obj, _KEYS[0], f.name, i, text), _field(obj, _KEYS[1], f.name, i, text)
        sc: Any = obj.get("score")
        try:  # a JSON integer beyond 1.8e308 does not fit a float (OverflowError): not finite either
            ok = not isinstance(sc, bool) and isinstance(sc, (int, float)) and math.isfinite(float(sc))
        except OverflowError:
            ok = False
        if not ok:
            raise InputError(f"score {shorten(sc)} is not a finite number", file=f.name, line=i, text=text,
                             hint=_HINT)
        if order == "rank":
            r = obj.get("rank")
            if isinstance(r, bool) or not isinstance(r, int) or abs(r) >= 2 ** 62:
                raise InputError(f"rank {shorten(r)} is not an integer below 2**62", file=f.name, line=i, text=text,
                                 hint="give each line an integer \"rank\", or use order='score' (trec_eval's order)")
            ranks.append(r)
        first = seen.setdefault((t, d), i)
        if first != i and not keep_first:
            raise InputError(f"document {shorten(d)} is listed twice for topic {shorten(t)} (first on line {first})",
                             file=f.name, line=i, text=text, hint=DUP_FIX)
        topics.append(t)
        docs.append(d)
        scores.append(float(sc))
    if not topics:
        raise InputError("empty run: no JSON lines", file=f.name, hint=_HINT)
    rank = np.asarray(ranks, np.int64) if order == "rank" else None
    return order_rows(src, ak.strings(topics), ak.strings(docs), as_arrow(np.asarray(scores, np.float64)), rank,
                      order, keep_first, len(topics), lambda *_: None)
