"""Runs: TREC run files (fast path, then the line-by-line fallback) and NTCIR ``.res`` runs; :func:`read_run`."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from . import _arrow as ak
from ._jsonl import parse_jsonl_run
from ._names import run_name
from ._order import check_order, order_rows
from ._sources import run_sources, source_name
from ._text import content_lines, first_fields, text_bytes
from ._trec_fast import arrow_trec, blank_layout, clean_blanks, drop_comments
from ._trec_lines import slow_trec
from ._types import Parsed, RunSource
from .errors import DUP_FIX, InputError, shorten, unforeseen
from .formats import RUN_FORMATS, reader
from .limits import DEFAULT_LIMITS, Ctx, Limits


@dataclass
class _Columns:
    """A TREC run's columns as read from the file, before ordering: what the loader's reader thread
    hands over (:func:`read_run_file`), one run ahead of the placing."""

    src: RunSource
    t: pa.Array
    d: pa.Array
    s: pa.Array | None
    r: np.ndarray | None
    redo: Callable[[int, int], None]   # re-reads the text to name a repeated document's line


def read_trec(src: RunSource, order: str, keep_first: bool) -> _Columns | Parsed:
    """The TREC format's reader (:data:`evalcore.io.formats.RUN_FORMAT_TABLE`): the run's columns, ordered
    later by :func:`finish_run` (a JSON-lines run under another extension is parsed whole)."""
    f = src.files[0]
    data = text_bytes(f)
    first = first_fields(data)
    if first and first[0].startswith(b"{"):  # a JSON-lines run under another extension
        return parse_jsonl_run(src, order, keep_first, data)
    rank = order == "rank"
    cols: tuple[pa.Array, pa.Array, pa.Array | None, np.ndarray | None] | None = None
    fast = drop_comments(data)
    layout = blank_layout(fast)
    if layout != "messy":
        cols = arrow_trec(fast, rank, trailing=layout == "trailing")
    if cols is None:
        cols = arrow_trec(clean_blanks(fast), rank)
    if cols is None:  # the slow parser reads the original text, to quote lines as they are
        cols = slow_trec(data, f.name, order, keep_first)
    t, d, s, r = cols
    return _Columns(src, t, d, s, r, lambda k, j: _name_repeat(f, k, j, order))


def _name_repeat(f, k: int, j: int, order: str) -> None:
    """Raise the error naming row ``k`` of the run (0-based, counting only the lines that are neither
    blank nor ``#`` comments, as the columns were read) as a repeat of row ``j``: the text is scanned a
    block of lines at a time, so nothing but the text is held (the whole line parser, run again, held
    its columns beside the caller's, several times the text). Should the rows not line up (they do), the line
    parser names it."""
    data = text_bytes(f)
    i0 = None
    for row, (i, text, fl) in enumerate(content_lines(data)):
        if row == j:
            i0 = i
        if row == k:
            if i0 is not None and len(fl) == 6:
                raise InputError(f"document {shorten(fl[2].decode())} is listed twice for topic "
                                 f"{shorten(fl[0].decode())} (first on line {i0})", file=f.name, line=i, text=text,
                                 hint=DUP_FIX)
            break
    slow_trec(data, f.name, order, False)


def read_run_file(src: RunSource, order: str, keep_first: bool) -> _Columns | Parsed:
    """The part of parsing a run that reads its file: the columns of a TREC run (ordered later by
    :func:`finish_run`), any other run parsed whole."""
    return reader(src.kind)(src, order, keep_first)


def finish_run(x: _Columns | Parsed, order: str, keep_first: bool, judgments=None) -> Parsed:
    """A run's rows put in order (:func:`._order.order_rows`; ``judgments``: the loader's, to look
    every row's judged level up on the way)."""
    if isinstance(x, Parsed):
        return x
    return order_rows(x.src, x.t, x.d, x.s, x.r, order, keep_first, len(x.t), x.redo, judgments)


def parse_res(src: RunSource, order: str, keep_first: bool) -> Parsed:
    """The NTCIR format's reader: one document id per line, one ``TOPIC.res`` file per topic, file order
    (``order`` does not apply: NTCIREVAL reads a ranked list as written)."""
    topics, docs = [], []
    seen_topics: dict[str, str] = {}
    for f in src.files:
        topic = run_name(f.base)
        if topic in seen_topics:
            raise InputError(f"two files hold topic {shorten(topic)}: {seen_topics[topic]} and {f.name}",
                             file=src.display, hint="keep one TOPIC.res file per topic")
        seen_topics[topic] = f.name
        data = text_bytes(f)
        seen: dict[str, int] = {}
        for i, text, fl in content_lines(data):
            if len(fl) != 1:
                raise InputError(f"expected 1 field (a document id) in an NTCIR .res file, found {len(fl)}",
                                 file=f.name, line=i, text=text,
                                 hint="list one document id per line, best first")
            doc = fl[0].decode()
            first = seen.setdefault(doc, i)
            if first != i:
                if keep_first:
                    continue
                raise InputError(f"document {shorten(doc)} is listed twice for topic {shorten(topic)} (first on line "
                                 f"{first})",
                                 file=f.name, line=i, text=text, hint=DUP_FIX)
            topics.append(topic)
            docs.append(doc)
    if not topics:
        raise InputError("empty run: no document ids", file=src.display, hint="give non-empty TOPIC.res files")
    return order_rows(src, ak.strings(topics), ak.strings(docs), None, None, "file",
                       keep_first, len(topics), lambda *_: None)


def _parse_run(src: RunSource, order: str, keep_first: bool) -> Parsed:
    return finish_run(read_run_file(src, order, keep_first), order, keep_first)


# -- runs: public ------------------------------------------------------------
@dataclass
class Run:
    """One run, in evaluation order.

    ``topics``: the run's topic ids (natural order); ``lengths[i]``: number of
    documents retrieved for ``topics[i]``; ``docs``: every document id,
    topic after topic, each topic's list in evaluation order (see
    :func:`read_run` for the order); ``warnings``: sentences.
    """

    name: str
    topics: tuple[str, ...]
    docs: tuple[str, ...]
    lengths: np.ndarray
    source: str = ""
    n_lines: int = 0
    warnings: list[str] = field(default_factory=list)

    def ranking(self, topic: str) -> list[str]:
        """The ranked document ids for one topic (empty if the run lacks it)."""
        if topic not in self.topics:
            return []
        i = self.topics.index(topic)
        start = int(self.lengths[:i].sum())
        return list(self.docs[start:start + int(self.lengths[i])])


def read_run(source, *, fmt: str = "auto", order: str = "score", keep_first_duplicate: bool = False,
             name: str | None = None, limits: Limits | None = None) -> Run:
    """Read one run: a TREC run file, a JSON-lines run, an NTCIR run (directory / zip of ``TOPIC.res``
    files), a DataFrame or a pytrec_eval dict (see :mod:`evalcore.io._frames`).

    **Order** (TREC runs): ``order="score"`` (default) ranks each topic's
    documents by score, descending, and breaks exact score ties by document
    id, descending, comparing ids byte-wise - exactly as trec_eval does (the
    rank column is ignored; scores are compared in single precision, as
    trec_eval stores them in a C ``float``). ``order="rank"``: by the rank column ascending
    (ties keep file order); ``order="file"``: file order. NTCIR ``.res``
    runs are always in file order.

    A document listed twice for one topic is an error unless
    ``keep_first_duplicate=True`` (the first occurrence in the file is kept).
    ``name`` overrides the run name (default: :func:`run_name` of the file).
    Scores must be finite ASCII numbers (``nan``, ``inf``, ``1e999`` are an
    :class:`InputError` naming the line). ``limits`` bounds decompression
    (:mod:`.limits`).

    >>> r = read_run(("bm25.txt", b"q1 Q0 a 1 1.0 x\\nq1 Q0 b 2 1.0 x\\nq1 Q0 c 3 2.0 x\\n"))
    >>> r.name, r.ranking("q1")
    ('bm25', ['c', 'b', 'a'])
    """
    check_order(order)
    if fmt not in RUN_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(RUN_FORMATS)}; got {fmt!r}")
    if limits is not None and not isinstance(limits, Limits):
        raise ValueError(f"limits must be an evalcore.io.Limits; got {type(limits).__name__}")
    ctx = Ctx(limits or DEFAULT_LIMITS)
    try:
        srcs = run_sources(source, fmt, ctx)
        if len(srcs) != 1:
            raise InputError(f"read_run reads one run; this source holds {len(srcs)}", file=source_name(source),
                             hint="use load_collection for several runs")
        p = _parse_run(srcs[0], order, keep_first_duplicate)
        docs = p.docs_in_order().to_pylist()
    except InputError:
        raise
    except Exception as e:  # never a traceback for input we failed to foresee
        raise unforeseen(e, source_name(source) if isinstance(source, (str, tuple)) else None) from e
    return Run(name=name or p.name, topics=tuple(p.topics), docs=tuple(docs), lengths=p.counts.astype(np.int64),
               source=p.display, n_lines=p.n_lines, warnings=ctx.notes + list(p.warnings))
