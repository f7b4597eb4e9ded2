"""Assembling the Collection: qrels lookup, placing every run's rows in the levels tensor, the load report."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ..collection import Collection, LoadReport
from . import _arrow as ak
from ._bundle import is_bundle, split_bundle
from ._dochash import HashTable, Strings, as_arrow, as_numpy, blocks, hash_block, hash_strings, pair_keys, same_rows
from ._names import base_name, natural_sorted, written_differently
from ._order import check_order
from ._qrels import Qrels, read_qrels
from ._runs import finish_run, read_run_file
from ._sources import run_sources
from ._stream import ReadAhead, TensorFill, settle_malloc
from ._types import Parsed, RunSource
from .errors import InputError, shorten, too_many, unforeseen
from .formats import RUN_FORMATS
from .limits import DEFAULT_LIMITS, Ctx, Limits, human_bytes


@dataclass
class _Judgments:
    """The qrels of the evaluated topics as one sorted array of (topic, document) hash keys.

    Built once per collection (O(J log J) for J judgments); each run then
    costs, per row, one read of a slot table indexed by the key's top bits
    (which judged key, if any, has them), one read of that key's record
    (key, length and first words of its doc id) and a byte-wise comparison
    (:func:`._dochash.same_rows`); rows whose slot several judged keys share
    read a second slot table, indexed by the key's low bits, that holds
    only those keys, and the few rows whose second slot is shared too find
    their key by binary search. Nothing here is rebuilt per run, so loading
    time grows linearly with the number of runs.

    Why the second table: a few per cent of the judged keys share a top-bits
    slot (8-16 slots per key), and of a run's rows land in such slots; finding
    their keys in pandas' hash table of all judged keys cost more of the
    lookup than a larger first table would, and that costs memory
    (docs/benchmarks.md sections 10.0 and 17).
    """

    topic_index: dict[str, int]
    keys: np.ndarray       # sorted uint64 pair keys
    levels: np.ndarray     # int8 level per key
    docs: pa.Array         # judged doc id per key
    first: np.ndarray      # per distinct key: its first position in ``keys``
    d_levels: np.ndarray   # per distinct key: the level at ``first``
    d_shared: np.ndarray   # per distinct key: shared by several judgments (a hash collision; checked one by one)
    d_docs: HashTable         # per distinct key: the key and the doc id at ``first``, read out for the comparison
    slot: np.ndarray       # int32 per value of a key's top bits: the distinct key with them, -1 none, -2 several
    shift: np.uint64       # 64 - the number of those bits
    slot2: np.ndarray      # int32 per value of a key's low bits, for the keys in shared slots only (same codes)
    level_counts: np.ndarray  # (n_topics, max_level + 1) judgments per topic and level

    def __post_init__(self):
        self.several = bool((self.slot == -2).any())  # some slot holds several keys
        self.any_shared = bool(self.d_shared.any())   # some key is shared by several judged ids
        # the distinct keys, sorted (the keys themselves when none is shared)
        self.d_keys = self.keys if self.first.size == self.keys.size else np.ascontiguousarray(self.d_docs.rec[:, 0])

    def judge(self, docs: pa.Array, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(key, level) of every row of a run, in file order: row ``i`` is document ``docs[i]`` for the
        topic numbered ``group[i]`` (the evaluated topics numbered as ``topic_index``, others past
        them); level -1 = unjudged. The keys (:func:`._dochash.pair_keys`) are the run's duplicate check.

        Hashing, keys and lookup run block by block (:func:`._dochash.blocks`), so that a block's ids,
        read once from the arrow buffer, are hashed and compared while they sit in the CPU cache.
        """
        s = Strings.of(docs)
        n = len(s.lens)
        keys = np.empty(n, np.uint64)
        out = np.full(n, -1, dtype=np.int8)
        for a, b in blocks(n):
            h, words = hash_block(s.slice(a, b), keep=self.d_docs.n_words)
            k = pair_keys(h, group[a:b])
            keys[a:b] = k
            out[a:b] = self._levels(k, s, np.arange(a, b), words)
        return keys, out

    def lookup(self, k: np.ndarray, docs: Strings, rows_of: np.ndarray) -> np.ndarray:
        """Level per row (its (topic index, document) key, :func:`._dochash.pair_keys`); -1 where unjudged.

        ``docs`` holds the run's document ids and row ``i``'s id is ``docs``' string ``rows_of[i]``:
        every match is confirmed on the key and on the ids themselves, byte for byte (equal keys and
        equal ids mean equal topics: for one id, distinct topics give distinct keys).
        """
        out = np.full(k.shape, -1, dtype=np.int8)
        for a, b in blocks(k.size):
            out[a:b] = self._levels(k[a:b], docs, rows_of[a:b], None)
        return out

    def _levels(self, k: np.ndarray, docs: Strings, rows_of: np.ndarray, words: list | None) -> np.ndarray:
        """:meth:`lookup` of one block; ``words``: the first words of the block's ids, if at hand."""
        out = np.full(k.shape, -1, dtype=np.int8)
        if not self.keys.size or not k.size:
            return out
        sid = self.slot[(k >> self.shift).view(np.int64)]  # most unjudged rows stop here (-1)
        rows = np.flatnonzero(sid >= 0)
        found = sid[rows]
        several = np.flatnonzero(sid == -2) if self.several else ()
        if len(several):  # slots shared by several judged keys: the second table, on the low bits
            ks = k[several]
            f = self.slot2[(ks & np.uint64(self.slot2.size - 1)).view(np.int64)]
            again = np.flatnonzero(f == -2)
            if again.size:  # shared there too (rare): binary search among the sorted distinct keys
                at = np.minimum(np.searchsorted(self.d_keys, ks[again]), self.d_keys.size - 1)
                f[again] = np.where(self.d_keys[at] == ks[again], at, -1)
            rows, found = np.concatenate((rows, several[f >= 0])), np.concatenate((found, f[f >= 0]))
        if not rows.size:
            return out
        rec = self.d_docs.rows(found)
        key_ok = rec[:, 0] == k[rows]
        ok = key_ok & same_rows(docs, rows_of[rows], self.d_docs, found, rec,
                                None if words is None else [w[rows] for w in words])
        out[rows[ok]] = self.d_levels[found[ok]]
        shared = np.flatnonzero(~ok & key_ok & self.d_shared[found]) if self.any_shared else ()
        for i in shared:  # judged ids sharing a key (a hash collision): each in turn
            r, text = rows[i], docs.arr[int(rows_of[rows[i]])].as_py()
            j = int(self.first[found[i]])
            while j < self.keys.size and self.keys[j] == k[r]:
                if self.docs[j].as_py() == text:
                    out[r] = self.levels[j]
                    break
                j += 1
        return out


def _slot_bits(n_keys: int, least: int = 16, most: int = 24) -> int:
    """Bits of a slot table for ``n_keys`` distinct keys: 8-16 slots per key, so that few keys
    share a slot (at least 2**``least`` slots, at most 2**``most``; the first table: 64 MB at most)."""
    return int(np.clip(np.ceil(np.log2(max(8 * n_keys, 1))), least, most))


def _topic_table(topics: pa.Array, levels: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(the distinct qrels topics in order of first appearance, each judgment's index into them, whether
    each has a judgment of level >= 1)."""
    enc = ak.dictionary_encode(topics)
    code = as_numpy(enc.indices).astype(np.int64)
    vals = enc.dictionary.to_pylist()
    rel = np.zeros(len(vals), bool)
    rel[code[levels >= 1]] = True
    return vals, code, rel


def _judgments(topics: pa.Array, docs: pa.Array, levels: np.ndarray, topic_ids: list[str],
               max_level: int) -> _Judgments:
    """The index of the evaluated topics' judgments (``topics``, ``docs``, ``levels``: :meth:`Qrels.arrays`).
    Memory: every intermediate is dropped as soon as the next is built, and without a shared key (a 64-bit
    collision: almost always) the distinct-key arrays are the sorted arrays themselves, not copies - ~75
    bytes per judgment of 12-byte ids plus the slot tables (docs/reliability.md, "Parse memory")."""
    tindex = {t: i for i, t in enumerate(topic_ids)}
    vals, code, _ = _topic_table(topics, levels)
    tcode = np.array([tindex.get(v, -1) for v in vals], np.int64)[code]
    inside = tcode >= 0
    if not inside.all():
        tcode, levels, docs = tcode[inside], levels[inside], ak.filter_(docs, as_arrow(inside))
    del inside, code
    lv = levels.astype(np.int64, copy=False)
    counts = np.bincount(tcode * (max_level + 1) + lv, minlength=len(topic_ids) * (max_level + 1))
    counts = counts.reshape(len(topic_ids), max_level + 1).astype(np.int64, copy=False)
    if pa.types.is_large_string(docs.type) and len(docs) and ak.total_length(docs) < 2**31 - 1:
        docs = ak.cast(docs, pa.string())  # the type run ids have
    keys = pair_keys(hash_strings(docs), tcode)
    del tcode
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    levels = lv.astype(np.int8)[order]
    del lv
    docs = ak.take(docs, as_arrow(order))
    del order
    shared = np.zeros(keys.size, bool)
    first = np.ones(keys.size, bool)
    if keys.size > 1:
        eq = keys[1:] == keys[:-1]
        shared[1:] |= eq
        shared[:-1] |= eq
        first[1:] = ~eq
        del eq
    starts = np.flatnonzero(first)
    del first
    distinct = starts.size == keys.size   # no key shared by two judgments: the distinct arrays are the arrays
    d_keys = keys if distinct else keys[starts]
    bits = _slot_bits(starts.size)
    shift = np.uint64(64 - bits)
    top = (d_keys >> shift).view(np.int64)  # non-decreasing, as the keys are sorted
    slot = np.full(1 << bits, -1, np.int32)
    slot[top] = np.arange(starts.size, dtype=np.int32)
    if top.size > 1:
        slot[top[1:][top[1:] == top[:-1]]] = -2
    # the second table: the keys of shared slots, by their low bits (independent of the top bits)
    in_shared = np.flatnonzero(slot[top] == -2)
    del top
    bits2 = _slot_bits(in_shared.size, 8, 22)
    low = (d_keys[in_shared] & np.uint64((1 << bits2) - 1)).view(np.int64)
    slot2 = np.full(1 << bits2, -1, np.int32)
    slot2[low] = in_shared.astype(np.int32)
    if low.size > 1:
        srt = np.sort(low)
        slot2[srt[1:][srt[1:] == srt[:-1]]] = -2
    del low, in_shared
    table = HashTable(docs if distinct else ak.take(docs, as_arrow(starts)), tag=d_keys)
    return _Judgments(tindex, keys, levels, docs, starts, levels if distinct else levels[starts],
                      shared[starts], table, slot, shift, slot2, counts)


@dataclass
class _Placed:
    """One run mapped onto the evaluated topics."""

    topic: np.ndarray   # evaluated topic index per kept row
    pos: np.ndarray     # 0-based rank
    level: np.ndarray   # int8, -1 = unjudged
    lengths: np.ndarray
    ignored: list[str]
    missing: list[str]
    aside: _Placed | None = None   # the qrels topics without a relevant document (``_aside``)
    moves: np.ndarray | None = None   # (topic, rank0, rank0 in ir_measures' order): ``_moves``
    input_moves: np.ndarray | None = None   # (topic, rank0, rank0 in the input order): ``_moves``


def _moves(rows: np.ndarray | None, topic: np.ndarray, pos: np.ndarray, depth: int | None) -> np.ndarray | None:
    """``rows`` (``Parsed.irm_moves`` or ``input_moves``: rows of the evaluation order) as (topic, rank0,
    rank0 in that order) of the placed topics (``topic``: each row's topic number, -1 when not placed;
    ``pos``: its rank0); a topic whose ties cross ``depth`` keeps trec_eval's order
    (``Collection.ir_measures_order``, ``input_order``)."""
    if rows is None:
        return None
    i, j = rows[:, 0], rows[:, 1]
    out = np.column_stack([topic[i], pos[i], pos[j]]).astype(np.int64) if i.size else np.zeros((0, 3), np.int64)
    out = out[out[:, 0] >= 0]
    if depth is not None and out.size:
        cross = np.unique(out[(out[:, 1] >= depth) | (out[:, 2] >= depth), 0])
        out = out[~np.isin(out[:, 0], cross)]
    return out


def _place(p: Parsed, J: _Judgments, qrels_topics: set[str], depth: int | None, n_eval: int | None = None
           ) -> _Placed:
    """The run's rows on the evaluated topics (the first ``n_eval`` of ``J.topic_index``; default all);
    the rows of the topics numbered after them (the qrels topics without a relevant document) are
    placed alike in ``_Placed.aside`` (:func:`_aside`)."""
    n_all = len(J.topic_index)
    n_eval = n_all if n_eval is None else n_eval
    tmap = np.array([J.topic_index.get(t, -1) for t in p.topics], dtype=np.int32)
    aside = _aside(p, J, tmap, n_eval, depth) if n_eval < n_all else None
    tmap = np.where(tmap < n_eval, tmap, -1).astype(np.int32)
    starts = (np.cumsum(p.counts) - p.counts).astype(np.int32)
    pos = np.arange(p.row_topic.size, dtype=np.int32)
    pos -= starts[p.row_topic]
    te = tmap[p.row_topic] if tmap.size else np.zeros(0, np.int32)
    moves = _moves(p.irm_moves, te, pos, depth)
    input_moves = _moves(p.input_moves, te, pos, depth)
    file_row = p.perm
    keep = te >= 0
    if depth is not None:
        keep &= pos < depth
    if not keep.all():  # (usually every row is kept: then no copies)
        kept = np.flatnonzero(keep)
        file_row, te, pos = file_row[kept], te[kept], pos[kept]
    del keep
    if p.levels is not None:  # looked up while the run was ordered (``_Judgments.judge``)
        level = p.levels[file_row]
    else:
        assert p.doc_hash is not None   # Parsed holds doc_hash whenever it holds no levels
        level = J.lookup(pair_keys(p.doc_hash[file_row], te), Strings.of(p.docs), file_row)
    lengths = np.zeros(n_eval, dtype=np.int64)
    has = tmap >= 0
    lengths[tmap[has]] = p.counts[has]
    if depth is not None:
        lengths = np.minimum(lengths, depth)
    eval_names = {i: t for t, i in J.topic_index.items()}
    present = set(tmap[has].tolist())
    return _Placed(te, pos, level, lengths,
                   ignored=[t for t in p.topics if t not in qrels_topics],
                   missing=[eval_names[i] for i in range(n_eval) if i not in present], aside=aside, moves=moves,
                   input_moves=input_moves)


def _aside(p: Parsed, J: _Judgments, tmap: np.ndarray, n_eval: int, depth: int | None) -> _Placed:
    """The rows of the topics numbered ``n_eval`` and after (the qrels topics without a relevant document),
    numbered from 0: their judged / unjudged documents, for the measures that read such a topic's list
    (NumRet, Judged@k; ``Collection.no_relevant``)."""
    n_side = len(J.topic_index) - n_eval
    side = np.where(tmap >= n_eval, tmap - n_eval, -1).astype(np.int32)
    starts = (np.cumsum(p.counts) - p.counts).astype(np.int32)
    rows = np.flatnonzero((side >= 0)[p.row_topic]) if side.size else np.zeros(0, np.int64)  # few rows
    moves, input_moves = (_side_moves(m, p, side, starts, depth) for m in (p.irm_moves, p.input_moves))
    topic_of = p.row_topic[rows]
    pos = (rows - starts[topic_of]).astype(np.int32)
    te = side[topic_of]
    if depth is not None:
        keep = pos < depth
        rows, te, pos = rows[keep], te[keep], pos[keep]
    file_row = p.perm[rows]
    if p.levels is not None:
        level = p.levels[file_row]
    else:
        assert p.doc_hash is not None   # Parsed holds doc_hash whenever it holds no levels
        level = J.lookup(pair_keys(p.doc_hash[file_row], te + n_eval), Strings.of(p.docs), file_row)
    lengths = np.zeros(n_side, dtype=np.int64)
    has = side >= 0
    lengths[side[has]] = p.counts[has]
    if depth is not None:
        lengths = np.minimum(lengths, depth)
    return _Placed(te, pos, level, lengths, ignored=[], missing=[], moves=moves, input_moves=input_moves)


def _side_moves(rows: np.ndarray | None, p: Parsed, side: np.ndarray, starts: np.ndarray, depth: int | None
                ) -> np.ndarray | None:
    """:func:`_moves` of the aside topics (``side``: each of the run's topics' number among them, -1 for
    the others); the ranks are worked out only when some tie moves a document."""
    if rows is None or not rows.size:
        return None if rows is None else np.zeros((0, 3), np.int64)
    every = side[p.row_topic] if side.size else np.zeros(0, np.int32)
    return _moves(rows, every, (np.arange(p.row_topic.size) - starts[p.row_topic]).astype(np.int64), depth)


def load_collection(qrels, runs=None, *, order: str = "score", depth: int | None = None,
                    condensed: bool = False, keep_first_duplicate: bool = False, name: str | None = None,
                    progress: Callable[[float], None] | None = None, fmt: str = "auto",
                    qrels_fmt: str = "auto", limits: Limits | None = None) -> Collection:
    """Read qrels and runs into a :class:`Collection` (levels tensor + report).

    Parameters
    ----------
    qrels : path, ``(filename, bytes)``, directory / zip of NTCIREVAL ``.rel``
        files, or a list of these (see :func:`read_qrels`). With ``runs`` left out, a zip
        holding both the qrels and the runs (members told apart by name and first line; an
        archive where that is ambiguous is an :class:`InputError` saying why).
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

    Runs are placed one at a time while a reader thread reads the next one,
    so peak memory is the tensor (2 bytes per run x topic x rank) + the
    qrels + two runs' working sets, not all runs' text; time is linear in
    the run lines (see the :mod:`evalcore.io` docstring, "Speed and memory").

    The evaluated topics are the qrels topics with at least one document of
    level >= 1, in natural order ("q2" < "q10"). Unjudged retrieved
    documents count as non-relevant and are flagged in ``unjudged``; a topic
    missing from a run has length 0; run topics absent from the qrels are
    ignored. All of it is listed in ``collection.report``.

    >>> c = load_collection(("q.txt", b"t1 0 d1 1\\n"), [("r.txt", b"t1 Q0 d1 1 1.0 x\\n")])
    >>> c.levels.tolist(), c.run_ids
    ([[[1]]], ('r',))
    """
    check_order(order)
    if depth is not None and (not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth must be a positive integer or None; got {depth!r}")
    if fmt not in RUN_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(RUN_FORMATS)}; got {fmt!r}")
    if limits is not None and not isinstance(limits, Limits):
        raise ValueError(f"limits must be an evalcore.io.Limits; got {type(limits).__name__}")
    ctx = Ctx(limits or DEFAULT_LIMITS)
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
        raise unforeseen(e, None) from e


class _CallbackError(Exception):
    """Carries an exception raised by the caller's progress callback past the loader's guard."""


def _load(qrels, runs, order, depth, condensed, keep_first_duplicate, name, progress, fmt, qrels_fmt,
          ctx: Ctx) -> Collection:
    L = ctx.limits
    if runs is None and is_bundle(qrels):         # one zip holding the qrels and the runs
        qrels, runs = split_bundle(qrels, fmt, ctx)
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels, fmt=qrels_fmt, limits=L)
    srcs = _checked_sources(runs, fmt, ctx)
    T, J = _qrels_topics(q, L)

    def read(s: RunSource):
        """In the reader thread: the run's file read and parsed into columns (:func:`._runs.read_run_file`)."""
        try:
            return s, read_run_file(s, order, keep_first_duplicate)
        except InputError:
            raise
        except Exception as e:  # never a traceback for input we failed to foresee
            raise unforeseen(e, s.display) from e

    n_runs, n_topics = len(srcs), len(T.topic_ids)
    fill = _Fill.sized(q, T, [src.name for src in srcs], depth, L, ctx)
    r = -1
    with ReadAhead(read, srcs, ahead=(os.cpu_count() or 1) > 1) as reads:
        for s, cols in reads:  # (not enumerate: its reused result tuple would keep the columns alive)
            r += 1
            try:
                p = finish_run(cols, order, keep_first_duplicate, J)
                del cols
                pl = _place(p, J, T.qrels_set, depth, n_topics)
                run, n_lines, warnings = p.name, p.n_lines, p.warnings
                del p  # the run's text and parsed columns end here
                if r == 0 and n_lines >= 50_000:  # runs whose temporaries glibc would return after each run
                    settle_malloc()
            except InputError:
                raise
            except Exception as e:  # never a traceback for input we failed to foresee
                raise unforeseen(e, s.display) from e
            fill.put(r, pl, run, s.display, n_lines, warnings)
            del pl
            if progress:
                progress((r + 1) / n_runs)
    c = fill.collection(q, J, T, name, order=order, depth=depth)
    return c.condensed() if condensed else c


def _checked_sources(runs, fmt: str, ctx: Ctx) -> list[RunSource]:
    """The run sources (:func:`._sources.run_sources`), at most ``max_runs`` of them, no two with one name."""
    L = ctx.limits
    srcs = run_sources(runs, fmt, ctx)
    if len(srcs) > L.max_runs:
        raise too_many("runs", len(srcs), L.max_runs, "max-runs")
    by_name: dict[str, str] = {}
    for s in srcs:
        if s.name in by_name:
            raise InputError(f"two runs have the same name {shorten(s.name)}: {by_name[s.name]} and {s.display}",
                             hint="rename one of the files (the run name is the file name without extensions)")
        by_name[s.name] = s.display
    return srcs


@dataclass
class _Topics:
    """The qrels' topics: all of them in natural order, the evaluated ones (with a relevant document) and
    the others (``zero_ids``, numbered after the evaluated ones)."""

    all_topics: list[str]
    qrels_set: set[str]
    rel_topics: set[str]
    topic_ids: list[str]
    zero_ids: list[str]


def _qrels_topics(q: Qrels, L: Limits) -> tuple[_Topics, _Judgments]:
    """The topics of the qrels ``q`` (at most ``max_topics`` evaluated) and the :class:`_Judgments` of both
    kinds, the evaluated topics numbered first."""
    q_topics, q_docs, q_levels = q.arrays()
    vals, _, rel = _topic_table(q_topics, q_levels)
    rel_topics = {v for v, r in zip(vals, rel, strict=True) if r}
    all_topics = natural_sorted(vals)
    qrels_set = set(all_topics)
    topic_ids = [t for t in all_topics if t in rel_topics]
    if len(topic_ids) > L.max_topics:
        raise too_many("evaluated topics (with a relevant document) in the qrels", len(topic_ids), L.max_topics,
                        "max-topics", q.source)
    K = q.max_level
    # the qrels topics without a relevant document are numbered after the evaluated ones: their lists are
    # kept aside (Collection.no_relevant) for the measures that are not 0 there (NumRet, Judged@k)
    zero_ids = [t for t in all_topics if t not in rel_topics]
    J = _judgments(q_topics, q_docs, q_levels, topic_ids + zero_ids, K)
    del q_topics, q_docs, q_levels
    return _Topics(all_topics, qrels_set, rel_topics, topic_ids, zero_ids), J


@dataclass
class _Fill:
    """What the runs are placed into, one at a time: the levels tensor of the evaluated topics, that of
    the topics without a relevant document (None when there are none), the list lengths, the run ids
    and the load report."""

    tensor: TensorFill
    lengths: np.ndarray
    aside: TensorFill | None
    aside_lengths: np.ndarray
    report: LoadReport
    n_topics: int
    run_ids: list[str]
    # (run, topic, rank0, ir_measures' rank0) of every run placed, and of the aside topics; None once a run
    # came without them (not in score order): Collection.ir_measures_order
    moves: list | None = field(default_factory=list)
    aside_moves: list | None = field(default_factory=list)
    # the same for Collection.input_order
    input_moves: list | None = field(default_factory=list)
    aside_input_moves: list | None = field(default_factory=list)

    @classmethod
    def sized(cls, q: Qrels, T: _Topics, run_names: list[str], depth: int | None, L: Limits, ctx: Ctx) -> _Fill:
        """Empty tensors for ``run_names`` x the topics of ``T``, refused at once when not even one rank fits
        the limits; each grows later only after :func:`_check_size` allows it."""
        topic_ids, zero_ids = T.topic_ids, T.zero_ids
        n_runs, n_topics = len(run_names), len(topic_ids)

        def too_big(need: int, r: int, pl) -> None:
            """Checked before the tensor grows to depth ``need`` for run ``r`` (nothing is sized by the
            input before it is checked, so a hostile file cannot make the loader allocate its claimed size)."""
            t = int(np.argmax(pl.lengths))
            _check_size(n_runs, n_topics, need, L, run_names[r], topic_ids[t])

        fit = min(L.max_depth, L.max_tensor_bytes // max(2 * n_runs * n_topics, 1))
        if fit < 1:  # not even one rank fits: refuse before the first (n_runs, n_topics, 1) allocation
            raise InputError(f"{n_runs:,} runs x {n_topics:,} topics need {human_bytes(2 * n_runs * n_topics)} "
                             f"per rank, more than the tensor limit of {human_bytes(L.max_tensor_bytes)}",
                             hint="load fewer runs or topics, or raise the limit: "
                                  "limits=Limits(max_tensor_bytes=...) or --max-memory SIZE")
        tensor = TensorFill(n_runs, n_topics, depth, check=too_big, max_depth=fit)
        lengths = np.zeros((n_runs, n_topics), dtype=np.int32)

        def too_big_aside(need: int, r: int, pl) -> None:   # the aside tensor is held to the same limits
            _check_size(n_runs, len(zero_ids), need, L, run_names[r], zero_ids[int(np.argmax(pl.lengths))])

        fit_aside = min(L.max_depth, L.max_tensor_bytes // max(2 * n_runs * len(zero_ids), 1))
        aside = TensorFill(n_runs, len(zero_ids), depth, check=too_big_aside, max_depth=max(fit_aside, 1)) \
            if zero_ids else None
        aside_lengths = np.zeros((n_runs, len(zero_ids)), dtype=np.int32)
        report = LoadReport(qrels_source=q.source, n_qrels_lines=q.n_lines,
                            level_judgments=dict(q.level_judgments),
                            topics_without_relevant=[t for t in T.all_topics if t not in T.rel_topics],
                            warnings=list(q.warnings) + ctx.notes)
        return cls(tensor, lengths, aside, aside_lengths, report, n_topics, [])

    def put(self, r: int, pl: _Placed, run: str, display: str, n_lines: int, warnings: list[str]) -> None:
        """Run ``r`` (named ``run``, read from ``display``) written into the tensors, its topics and
        warnings into the report."""
        self.tensor.put(r, pl)
        self.lengths[r] = pl.lengths
        self.moves = _add_moves(self.moves, r, pl.moves)
        self.input_moves = _add_moves(self.input_moves, r, pl.input_moves)
        if self.aside is not None and pl.aside is not None:
            self.aside.put(r, pl.aside)
            self.aside_lengths[r] = pl.aside.lengths
            self.aside_moves = _add_moves(self.aside_moves, r, pl.aside.moves)
            self.aside_input_moves = _add_moves(self.aside_input_moves, r, pl.aside.input_moves)
        self.run_ids.append(run)
        report = self.report
        report.n_run_lines += n_lines
        report.warnings.extend(warnings)
        if pl.ignored:
            report.ignored_run_topics[run] = pl.ignored
            _check_topic_ids(run, display, pl, self.n_topics, report.warnings)
        if pl.missing:
            report.missing_run_topics[run] = pl.missing

    def collection(self, q: Qrels, J: _Judgments, T: _Topics, name: str | None, *, order: str = "score",
                   depth: int | None = None) -> Collection:
        """The :class:`Collection` of every run placed (the aside tensor as its ``no_relevant``)."""
        levels, unjudged = self.tensor.final()
        # the parse buffers arrow's pool kept for the next run: back to the system once the last run is in
        # (otherwise ~100 MB stay resident at 25 M lines, under whatever the caller allocates next)
        pa.default_memory_pool().release_unused()
        self.report.tensor_bytes = int(levels.nbytes + unjudged.nbytes)
        topic_ids, run_ids = T.topic_ids, self.run_ids
        side = None
        if self.aside is not None:
            a_levels, a_unjudged = self.aside.final()
            side = Collection(levels=a_levels, lengths=self.aside_lengths,
                              level_counts=J.level_counts[len(topic_ids):], run_ids=tuple(run_ids),
                              topic_ids=tuple(T.zero_ids), unjudged=a_unjudged, level_names=q.level_names,
                              topics_without_relevant=(), order=order, depth_limit=depth,
                              ir_measures_order=_stack_moves(self.aside_moves),
                              input_order=_stack_moves(self.aside_input_moves))
        return Collection(levels=levels, lengths=self.lengths, level_counts=J.level_counts[:len(topic_ids)],
                          run_ids=tuple(run_ids), topic_ids=tuple(topic_ids), unjudged=unjudged,
                          level_names=q.level_names, no_relevant=side, order=order, depth_limit=depth,
                          ir_measures_order=_stack_moves(self.moves), input_order=_stack_moves(self.input_moves),
                          name=name if name is not None else base_name(q.source.split(", ")[0]) or q.source,
                          report=self.report)


def _add_moves(acc: list | None, r: int, moves: np.ndarray | None) -> list | None:
    """``acc`` with run ``r``'s moves (topic, rank0, rank0') as (r, topic, rank0, rank0') rows; None once a
    run has none known (its order is not the score order)."""
    if acc is None or moves is None:
        return None
    if moves.size:
        acc.append(np.column_stack([np.full(len(moves), r, np.int64), moves]))
    return acc


def _stack_moves(acc: list | None) -> np.ndarray | None:
    if acc is None:
        return None
    return np.concatenate(acc) if acc else np.zeros((0, 4), np.int64)


def _check_topic_ids(run: str, display: str, pl, n_topics: int, warnings: list[str]) -> None:
    """Run topics that are not in the qrels as written but are the same number as a qrels topic the run
    lacks (run ``1`` vs qrels ``1.0`` or ``001``): an error when the run then matches no qrels topic at
    all (it would score 0 everywhere), a warning naming the first pair otherwise."""
    pairs = written_differently(pl.ignored, pl.missing or ())
    if not pairs:
        return
    (rt, qt), n = pairs[0], len(pairs)
    what = (f"topic ids are compared as text, as trec_eval does: run topic {shorten(rt)} is not qrels topic "
            f"{shorten(qt)}, though they are the same number")
    fix = "write the topic ids the same way in the qrels and the runs (e.g. 1, not 1.0 or 001)"
    if len(pl.missing or ()) >= n_topics:
        raise InputError(f"no topic of this run is in the qrels as written ({what}; {n:,} such topic"
                         f"{'s' if n > 1 else ''})", file=display, hint=fix)
    warnings.append(f"run {run}: {n:,} topic{'s' if n > 1 else ''} not in the qrels as written but the same number "
                    f"as a qrels topic the run lacks ({what}); the run scores 0 on "
                    f"{'them' if n > 1 else 'it'}: {fix}")


def _check_size(n_runs: int, n_topics: int, D: int, L: Limits, run: str, topic: str) -> int:
    """The levels tensor's cost in bytes (int8 levels + bool unjudged mask) at depth ``D``, checked
    before the tensor is grown to it; ``run``/``topic`` name the list that asks for that depth."""
    cost = 2 * n_runs * n_topics * D
    if D <= L.max_depth and cost <= L.max_tensor_bytes:
        return cost
    deepest = f"the deepest list is run {shorten(run)}, topic {shorten(topic)}, with {D:,} documents"
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

