"""Assembling the Collection: qrels lookup, placing every run's rows in the levels tensor, the load report."""
from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..collection import Collection, LoadReport
from .errors import InputError, _short, _unforeseen
from .limits import DEFAULT_LIMITS, Limits, _Ctx, human_bytes
from .names import _base, _natural_sorted
from .order import _check_order, _Parsed
from .qrels import Qrels, read_qrels
from .runs import _parse_run
from .sources import _RUN_FMTS, _run_sources, _RunSource


@dataclass
class _Judgments:
    """The qrels as lookup structures for the evaluated topics."""

    topic_index: dict[str, int]
    doc_values: pa.Array       # unique judged doc ids
    table: np.ndarray | None   # int8 (n_topics, n_docs), -1 = not judged
    keys: np.ndarray | None    # sorted int64 topic * n_docs + doc (when the table would be too big)
    key_levels: np.ndarray | None

    def lookup(self, topic: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """Level per (topic, doc code) pair; -1 where unjudged (doc code -1 = unknown doc)."""
        ok = doc >= 0
        out = np.full(topic.shape, -1, dtype=np.int8)
        if self.table is not None:
            out[ok] = self.table[topic[ok], doc[ok]]
            return out
        k = topic[ok].astype(np.int64) * len(self.doc_values) + doc[ok]
        pos = np.searchsorted(self.keys, k)
        pos = np.minimum(pos, max(self.keys.size - 1, 0))
        hit = self.keys[pos] == k
        sub = np.full(k.shape, -1, dtype=np.int8)
        sub[hit] = self.key_levels[pos[hit]]
        out[ok] = sub
        return out


def _judgments(frame: pd.DataFrame, topic_ids: list[str]) -> _Judgments:
    tindex = {t: i for i, t in enumerate(topic_ids)}
    sub = frame[frame["topic"].isin(tindex)]
    codes, uniques = pd.factorize(sub["doc"].to_numpy(dtype=object))
    tcode = sub["topic"].map(tindex).to_numpy(dtype=np.int64)
    lv = sub["level"].to_numpy(dtype=np.int8)
    n_docs = max(len(uniques), 1)
    doc_values = pa.array(list(uniques), pa.string())
    if len(topic_ids) * n_docs <= 64_000_000:
        table = np.full((len(topic_ids), n_docs), -1, dtype=np.int8)
        table[tcode, codes] = lv
        return _Judgments(tindex, doc_values, table, None, None)
    keys = tcode * n_docs + codes
    order = np.argsort(keys)
    return _Judgments(tindex, doc_values, None, keys[order], lv[order])


@dataclass
class _Placed:
    """One run mapped onto the evaluated topics."""

    topic: np.ndarray   # evaluated topic index per kept row
    pos: np.ndarray     # 0-based rank
    level: np.ndarray   # int8, -1 = unjudged
    lengths: np.ndarray
    ignored: list[str]
    missing: list[str]


def _place(p: _Parsed, J: _Judgments, qrels_topics: set[str], depth: int | None) -> _Placed:
    n_eval = len(J.topic_index)
    tmap = np.array([J.topic_index.get(t, -1) for t in p.topics], dtype=np.int64)
    starts = np.cumsum(p.counts) - p.counts
    pos = np.arange(p.row_topic.size, dtype=np.int64) - starts[p.row_topic]
    te = tmap[p.row_topic] if tmap.size else np.zeros(0, np.int64)
    keep = te >= 0
    if depth is not None:
        keep &= pos < depth
    dq = pc.index_in(p.doc_values, value_set=J.doc_values).fill_null(-1).to_numpy(zero_copy_only=False)
    te, pos, dc = te[keep], pos[keep], dq[p.doc_code[keep]]
    lengths = np.zeros(n_eval, dtype=np.int64)
    has = tmap >= 0
    lengths[tmap[has]] = p.counts[has]
    if depth is not None:
        lengths = np.minimum(lengths, depth)
    eval_names = {i: t for t, i in J.topic_index.items()}
    present = set(tmap[has].tolist())
    return _Placed(te, pos, J.lookup(te, dc), lengths,
                   ignored=[t for t in p.topics if t not in qrels_topics],
                   missing=[eval_names[i] for i in range(n_eval) if i not in present])


def load_collection(qrels, runs=None, *, order: str = "score", depth: int | None = None,
                    condensed: bool = False, keep_first_duplicate: bool = False, name: str | None = None,
                    progress: Callable[[float], None] | None = None, fmt: str = "auto",
                    qrels_fmt: str = "auto", limits: Limits | None = None) -> Collection:
    """Read qrels and runs into a :class:`Collection` (levels tensor + report).

    Parameters
    ----------
    qrels : path, ``(filename, bytes)``, directory / zip of NTCIREVAL ``.rel``
        files, or a list of these (see :func:`read_qrels`).
    runs : a list of sources (paths or ``(filename, bytes)``), a directory
        (every regular file in it, sorted by name, hidden files skipped; a
        directory of ``TOPIC.res`` files is one NTCIR run), a ``.zip`` path or
        ``(name.zip, bytes)`` (every member), or a mix. ``.gz`` anywhere.
    order : "score" (default: trec_eval's order - score descending, in
        single precision like trec_eval, exact ties broken by document id
        descending, byte-wise), "rank" (the rank
        column ascending, ties in file order) or "file".
    depth : None = the longest ranked list; an int truncates every list.
    condensed : drop unjudged documents first (``Collection.condensed()``).
    keep_first_duplicate : keep the first of repeated documents in a topic
        instead of raising.
    name : collection name (default: the qrels file name).
    progress : ``progress(fraction)`` called as runs load.
    fmt, qrels_fmt : force the run / qrels format (default: sniffed).
    limits : :class:`~evalcore.io.limits.Limits` (default ``DEFAULT_LIMITS``):
        decompression (min(4 GiB, max(16 MiB, 50 x compressed)) per .gz file
        or zip archive), at most 2,000 runs, 200,000 evaluated topics, depth
        100,000 and 2 GiB for the levels tensor (2 bytes per run x topic x
        rank). Each is checked before the memory it guards is taken; the
        error says the cost and how to raise the limit (or to pass ``depth``).
        ``collection.report.tensor_bytes`` is the tensor's cost.

    Every problem with the input is an :class:`InputError` (file, line,
    value, fix) - also out-of-memory and errors the loader did not foresee;
    bad arguments (``order``, ``depth``, ``fmt``, ``limits``) are
    ``ValueError``.

    The evaluated topics are the qrels topics with at least one document of
    level >= 1, in natural order ("q2" < "q10"). Unjudged retrieved
    documents count as non-relevant and are flagged in ``unjudged``; a topic
    missing from a run has length 0; run topics absent from the qrels are
    ignored. All of it is listed in ``collection.report``.

    >>> c = load_collection(("q.txt", b"t1 0 d1 1\\n"), [("r.txt", b"t1 Q0 d1 1 1.0 x\\n")])
    >>> c.levels.tolist(), c.run_ids
    ([[[1]]], ('r',))
    """
    _check_order(order)
    if depth is not None and (not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth must be a positive integer or None; got {depth!r}")
    if fmt not in _RUN_FMTS:
        raise ValueError(f"fmt must be one of {', '.join(_RUN_FMTS)}; got {fmt!r}")
    if limits is not None and not isinstance(limits, Limits):
        raise ValueError(f"limits must be an evalcore.io.Limits; got {type(limits).__name__}")
    ctx = _Ctx(limits or DEFAULT_LIMITS)
    cb = None
    if progress is not None:
        def cb(x: float) -> None:  # the caller's own exceptions pass through unchanged
            try:
                progress(x)
            except Exception as e:
                raise _CallbackError(e) from e
    try:
        return _load(qrels, runs, order, depth, condensed, keep_first_duplicate, name, cb, fmt, qrels_fmt, ctx)
    except _CallbackError as e:
        raise e.args[0] from None
    except InputError:
        raise
    except Exception as e:  # never a traceback for input we failed to foresee
        raise _unforeseen(e, None) from e


class _CallbackError(Exception):
    """Carries an exception raised by the caller's progress callback past the loader's guard."""


def _too_many(what: str, n: int, limit: int, option: str, file: str | None = None) -> InputError:
    return InputError(f"{n:,} {what}, more than the limit of {limit:,}", file=file,
                      hint=f"raise it: limits=Limits({option.replace('-', '_').lstrip('_')}=...) or "
                           f"--{option} N")


def _load(qrels, runs, order, depth, condensed, keep_first_duplicate, name, progress, fmt, qrels_fmt,
          ctx: _Ctx) -> Collection:
    L = ctx.limits
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels, fmt=qrels_fmt, limits=L)
    srcs = _run_sources(runs, fmt, ctx)
    if len(srcs) > L.max_runs:
        raise _too_many("runs", len(srcs), L.max_runs, "max-runs")
    by_name: dict[str, str] = {}
    for s in srcs:
        if s.name in by_name:
            raise InputError(f"two runs have the same name {_short(s.name)}: {by_name[s.name]} and {s.display}",
                             hint="rename one of the files (the run name is the file name without extensions)")
        by_name[s.name] = s.display

    frame = q.frame
    rel_topics = set(frame.loc[frame["level"] >= 1, "topic"].unique())
    all_topics = _natural_sorted(frame["topic"].unique())
    qrels_set = set(all_topics)
    topic_ids = [t for t in all_topics if t in rel_topics]
    if len(topic_ids) > L.max_topics:
        raise _too_many("evaluated topics (with a relevant document) in the qrels", len(topic_ids), L.max_topics,
                        "max-topics", q.source)
    K = q.max_level
    J = _judgments(frame, topic_ids)
    lc = np.zeros((len(topic_ids), K + 1), dtype=np.int64)
    sub = frame[frame["topic"].isin(J.topic_index)]
    np.add.at(lc, (sub["topic"].map(J.topic_index).to_numpy(dtype=np.int64),
                   sub["level"].to_numpy(dtype=np.int64)), 1)

    def work(s: _RunSource) -> tuple[_Parsed, _Placed]:
        try:
            p = _parse_run(s, order, keep_first_duplicate)
            return p, _place(p, J, qrels_set, depth)
        except InputError:
            raise
        except Exception as e:  # never a traceback for input we failed to foresee
            raise _unforeseen(e, s.display) from e

    results: list[tuple[_Parsed, _Placed]] = []
    if len(srcs) == 1:
        results.append(work(srcs[0]))
        if progress:
            progress(1.0)
    else:
        with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as ex:
            futures = [ex.submit(work, s) for s in srcs]
            try:
                for i, fut in enumerate(futures, 1):
                    results.append(fut.result())
                    if progress:
                        progress(i / len(futures))
            except BaseException:
                for fut in futures:
                    fut.cancel()
                raise

    D = max([int(pl.lengths.max(initial=0)) for _, pl in results] + [1])  # already <= depth
    n_runs, n_topics = len(results), len(topic_ids)
    cost = _check_size(results, topic_ids, D, L)
    levels = np.zeros((n_runs, n_topics, D), dtype=np.int8)
    unjudged = np.zeros((n_runs, n_topics, D), dtype=bool)
    lengths = np.zeros((n_runs, n_topics), dtype=np.int32)
    report = LoadReport(qrels_source=q.source, n_qrels_lines=q.n_lines,
                        level_judgments=dict(q.level_judgments),
                        topics_without_relevant=[t for t in all_topics if t not in rel_topics],
                        warnings=list(q.warnings) + ctx.notes, tensor_bytes=cost)
    for r, (p, pl) in enumerate(results):
        lv = pl.level
        levels[r, pl.topic, pl.pos] = np.maximum(lv, 0)
        unjudged[r, pl.topic, pl.pos] = lv < 0
        lengths[r] = pl.lengths
        report.n_run_lines += p.n_lines
        report.warnings.extend(p.warnings)
        if pl.ignored:
            report.ignored_run_topics[p.name] = pl.ignored
        if pl.missing:
            report.missing_run_topics[p.name] = pl.missing
    c = Collection(levels=levels, lengths=lengths, level_counts=lc, run_ids=tuple(p.name for p, _ in results),
                   topic_ids=tuple(topic_ids), unjudged=unjudged, level_names=q.level_names,
                   name=name if name is not None else _base(q.source.split(", ")[0]) or q.source,
                   report=report)
    return c.condensed() if condensed else c


def _check_size(results, topic_ids, D: int, L: Limits) -> int:
    """The levels tensor's cost in bytes (int8 levels + bool unjudged mask), checked before it is allocated."""
    n_runs, n_topics = len(results), len(topic_ids)
    cost = 2 * n_runs * n_topics * D
    if D <= L.max_depth and cost <= L.max_tensor_bytes:
        return cost
    r = max(range(n_runs), key=lambda i: int(results[i][1].lengths.max(initial=0)))
    t = int(np.argmax(results[r][1].lengths))
    deepest = (f"the deepest list is run {_short(results[r][0].name)}, topic {_short(topic_ids[t])}, "
               f"with {D:,} documents")
    fit = max(1, min(L.max_depth, L.max_tensor_bytes // max(2 * n_runs * n_topics, 1)))
    if D > L.max_depth:
        msg = f"lists {D:,} deep, more than the depth limit of {L.max_depth:,} ({deepest})"
        raise_ = "limits=Limits(max_depth=...) or --max-depth N"
    else:
        msg = (f"the collection would take {human_bytes(cost)} for its levels tensor ({n_runs:,} "
               f"run{'s' if n_runs != 1 else ''} x "
               f"{n_topics:,} topics x depth {D:,} x 2 bytes; {deepest}), more than the limit of "
               f"{human_bytes(L.max_tensor_bytes)}")
        raise_ = "limits=Limits(max_tensor_bytes=...) or --max-memory SIZE"
    raise InputError(msg, hint=f"evaluate the top {fit:,} documents of each list (depth={fit} / --depth {fit}), "
                               f"or raise the limit: {raise_}")
