"""Putting one run's rows into evaluation order (trec_eval's score order, rank or file order), vectorised."""
from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pyarrow as pa

from . import _arrow as ak
from ._dochash import as_arrow, as_numpy, hash_strings, pair_keys
from ._names import natural_key
from ._repeats import first_occurrence
from ._types import Parsed, RunSource
from .errors import DUP_FIX, InputError

_ORDERS = ("score", "rank", "file")


def check_order(order: str) -> None:
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {', '.join(_ORDERS)}; got {order!r}")


def _topic_codes(t: pa.Array) -> tuple[tuple[str, ...], np.ndarray]:
    """(the distinct topics in order of first appearance, int32 index into them per row), as
    arrow's ``dictionary_encode`` gives. Most runs list each topic's lines together: then the topics are
    read once per block of equal neighbours (an exact string comparison of each row with the one
    before), cheaper than hashing every row (docs/benchmarks.md section 17)."""
    t = t.combine_chunks() if isinstance(t, pa.ChunkedArray) else t
    n = len(t)
    if n > 1:
        starts = np.flatnonzero(as_numpy(ak.call("not_equal", t.slice(1), t.slice(0, n - 1)))) + 1
        if starts.size < n // 16:
            starts = np.concatenate(([0], starts))
            first: dict[str, int] = {}
            block = np.array([first.setdefault(v, len(first)) for v in ak.take(t, as_arrow(starts)).to_pylist()],
                             np.int32)
            return tuple(first), np.repeat(block, np.diff(np.append(starts, n)))
    enc = ak.dictionary_encode(t)
    return tuple(enc.dictionary.to_pylist()), as_numpy(enc.indices)


@functools.lru_cache(maxsize=4)
def _natural_ranks(tvals: tuple[str, ...]) -> tuple[list[int], np.ndarray]:
    """(positions of ``tvals`` in natural order, natural rank of each value). Cached: the runs of one
    collection usually list the same topics in the same order, and sorting thousands of topic ids by
    their natural key in Python, once per run, would be a visible share of a load (the rank array is
    read-only)."""
    nat = sorted(range(len(tvals)), key=lambda i: natural_key(tvals[i]))
    rank_of = np.empty(len(tvals), np.int32)
    rank_of[nat] = np.arange(len(tvals), dtype=np.int32)
    rank_of.flags.writeable = False
    return nat, rank_of


def order_rows(src: RunSource, t: pa.Array, d: pa.Array, score, rank, order: str,
                keep_first: bool, n_lines: int, on_dup: Callable[[int, int], None], judgments=None) -> Parsed:
    """Sort the rows into evaluation order, vectorised (pyarrow / numpy).

    Topics are dictionary-encoded; documents are hashed (:mod:`._dochash`) and
    repeated (topic, document) pairs are looked for among integer keys - an
    equal pair of keys is confirmed on the strings (dictionary codes) before
    anything is reported. For ``order="score"`` a single multi-key sort
    (topic, score descending, doc id descending) compares strings only
    within exact score ties, so it costs little more than a numeric sort.
    Cost: linear in the run's lines (plus the sorts' log factor).

    ``judgments`` (the loader's ``assemble._Judgments``): the (topic, document) keys of the duplicate
    check are then made with its topic numbers (other topics numbered after them) by its ``judge``,
    which looks every row's judged level up on the way (``Parsed.levels``).
    """
    tvals, tind = _topic_codes(t)
    nat, rank_of = _natural_ranks(tvals)
    rt = rank_of[tind]
    h = levels = None
    if judgments is None:
        h = hash_strings(d)
        keys = pair_keys(h, rt)
    else:
        topic_code = judgments.topic_index
        code = np.array([topic_code.get(v, -1) for v in tvals], np.int64)
        code = np.where(code >= 0, code, len(topic_code) + rank_of)  # distinct numbers for the other topics
        keys, levels = judgments.judge(d, code[tind])
    warnings = []
    if _may_repeat(keys, tind, len(tvals)):  # a repeated document, or (rarely) a hash collision
        # exact, with arrays (:func:`._repeats.first_occurrence`: hashes propose, the strings confirm);
        # a dictionary of every document id (the earlier way) held ~2 x the run's text more
        first = first_occurrence(t.combine_chunks() if isinstance(t, pa.ChunkedArray) else t,
                                 d.combine_chunks() if isinstance(d, pa.ChunkedArray) else d)
        rep = first != np.arange(first.size)
        if rep.any():
            if not keep_first:
                k = int(np.flatnonzero(rep)[0])   # the earliest row repeating an earlier one
                j = int(first[k])
                del first, rep
                on_dup(k, j)  # raises the precise error, naming their lines
                raise InputError("a document is listed twice for one topic", file=src.display, hint=DUP_FIX)
            ki = np.flatnonzero(~rep)   # first occurrences, in file order
            del first, rep
            n_drop = int(keys.size - ki.size)
            warnings.append(f"{src.display}: {n_drop} repeated document{'s' if n_drop > 1 else ''} dropped "
                            f"(kept the first occurrence in each topic)")
            rt, keys = rt[ki], keys[ki]
            h = None if h is None else h[ki]
            levels = None if levels is None else levels[ki]
            d = ak.take(d, as_arrow(ki))
            if score is not None:
                score = ak.take(score, as_arrow(ki))
            if rank is not None:
                rank = rank[ki]
    moves = input_moves = None
    if order == "score":
        # trec_eval keeps scores as C floats (TEXT_RESULTS.sim): compare in single precision
        s32 = ak.cast(score, pa.float32(), safe=False)
        idx = _score_order(rt, s32, d)
        moves, input_moves = tie_moves(rt[idx], as_numpy(s32)[idx], score, d, idx)
    elif order == "rank":
        idx = np.lexsort((rank, rt))
    else:
        idx = _by_topic(rt)
    del tind
    return Parsed(src.name, src.display, [tvals[i] for i in nat], np.bincount(rt, minlength=len(tvals)),
                   rt[idx], idx, d, h, n_lines, warnings, levels, moves, input_moves)


def tie_moves(t: np.ndarray, s32: np.ndarray, score, d: pa.Array, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the orders of ir_measures' providers that sort a run themselves put the documents of trec_eval's
    score ties (single precision), as rows (i, j) of the evaluation order ``idx`` (topics ``t``, single-precision
    scores ``s32``, both in that order), the document of row i standing at row j's rank: (msmarco's and the
    judged provider's order - score descending in double precision, then document id ascending; the order of
    Python's stable sort on the score alone, as cwl_eval and the accuracy provider sort - score descending in
    double precision, then the run's own order: its file rows, ``idx``'s values, ascending). Only the rows of
    ties are sorted again, so a run without ties costs one comparison per row."""
    none = np.zeros((0, 2), np.int64)
    n = t.size
    if n < 2:
        return none, none
    tie = (t[1:] == t[:-1]) & (s32[1:] == s32[:-1])
    if not tie.any():
        return none, none
    in_group = np.zeros(n, bool)
    in_group[:-1] = tie
    in_group[1:] |= tie
    rows = np.flatnonzero(in_group)
    group = np.cumsum(~np.concatenate(([False], tie)))[rows]
    file_rows = idx[rows]
    s64 = ak.take(ak.cast(score, pa.float64()), as_arrow(file_rows))
    by_id = as_numpy(ak.sort_indices(pa.table({"g": as_arrow(group), "s": s64, "d": ak.take(d, as_arrow(file_rows))}),
                                     [("g", "ascending"), ("s", "descending"), ("d", "ascending")]))
    by_row = np.lexsort((file_rows, -as_numpy(s64), group))   # ids are not compared: numpy's sort is enough
    return _moved(rows, by_id), _moved(rows, by_row)


def _moved(rows: np.ndarray, o: np.ndarray) -> np.ndarray:
    """(i, j) for the rows whose document the sort ``o`` of ``rows`` moves: a tie group keeps its rows, the
    k-th of them in the sorted order stands at rows[k]."""
    src = rows[o]
    moved = src != rows
    return np.column_stack([src[moved], rows[moved]]).astype(np.int64)


def _may_repeat(keys: np.ndarray, tind: np.ndarray, n_topics: int) -> bool:
    """Whether some (topic, document) key may appear twice in a run (False: certainly not). ``tind``:
    each row's topic, numbered 0 .. ``n_topics`` - 1 in order of first appearance.

    A repeated key can only repeat within its topic. When the file lists every topic's rows together
    (as runs are written) and the topics are of similar length, each topic's keys are sorted on their
    own - one row of a (topics x longest topic) array, shorter topics padded with distinct small numbers
    - and neighbours compared: small in-cache sorts. Topics of up to 23,170 rows sort the keys' top
    32 bits (a repeat there is then checked on the whole keys; two of n keys share their top 32 bits
    with probability ~n**2 / 2**33, under 1 in 16 at that length). Both paths are cheaper than the hash
    set of ``pandas.Series.duplicated`` (docs/benchmarks.md sections 10.0 and 17). Otherwise all the keys
    are sorted at once (numpy's sort of uint64 beats that hash set too, and needs no pandas import,
    whose first import costs more than the check). A pad equal to
    a key can only answer True (never hide a repeat); True is then checked on the ids themselves by the
    caller.
    """
    n = keys.size
    if n < 2:
        return False
    bounds = np.flatnonzero(tind[1:] != tind[:-1])
    if bounds.size + 1 == n_topics:  # every topic's rows together
        bounds += 1
        starts = np.concatenate(([0], bounds))
        lens = np.diff(np.append(starts, n))
        L = int(lens.max())
        if L * n_topics <= 2 * n + 4096:  # the padded array stays within twice the keys
            narrow = L * L <= 1 << 29
            vals = (keys >> np.uint64(32)).astype(np.uint32) if narrow else keys
            if L * n_topics == n:
                m = vals.reshape(n_topics, L).copy()
            else:
                m = np.empty((n_topics, L), vals.dtype)
                m[:] = np.arange(L, dtype=vals.dtype)
                row = np.repeat(np.arange(n_topics), lens)
                m[row, np.arange(n) - starts[row]] = vals
            m.sort(axis=1)
            if not (m[:, 1:] == m[:, :-1]).any():
                return False
            if not narrow:
                return True
    s = np.sort(keys)
    return bool((s[1:] == s[:-1]).any())


def _grouped(rt: np.ndarray) -> bool:
    """Are the rows in topic order already (as most runs list their topics)?"""
    return rt.size < 2 or bool((rt[1:] >= rt[:-1]).all())


def _by_topic(rt: np.ndarray) -> np.ndarray:
    """int64 row order grouping the rows by topic, file order within a topic (a stable sort by topic;
    no sort at all when the file already lists its topics in natural order)."""
    if _grouped(rt):
        return np.arange(rt.size, dtype=np.int64)
    return np.argsort(rt, kind="stable").astype(np.int64, copy=False)


def _score_order(rt: np.ndarray, score: pa.Array, d: pa.Array) -> np.ndarray:
    """int64 row order by (topic ascending, score descending, doc id descending byte-wise): trec_eval's order.

    Most runs are written in that order already, but for the order of documents of equal score: when
    scores never rise within a topic (in file order, once grouped by topic), only the rows of each
    group of equal scores are sorted (by doc id), with arrow's sort; otherwise arrow sorts every row
    on the three keys. The order is the same either way: (topic, doc id) pairs are distinct here,
    so the three keys order the rows totally.
    """
    n = rt.size
    grouped = _grouped(rt)
    idx = np.arange(n, dtype=np.int64) if grouped else np.argsort(rt, kind="stable").astype(np.int64, copy=False)
    s = as_numpy(score)
    if n < 2:
        return idx
    s, t = (s, rt) if grouped else (s[idx], rt[idx])
    same = t[1:] == t[:-1]
    if (same & (s[1:] > s[:-1])).any():  # not in score order: sort everything
        srt = ak.sort_indices(pa.table({"t": as_arrow(rt), "s": score, "d": d}),
                              [("t", "ascending"), ("s", "descending"), ("d", "descending")])
        return as_numpy(srt).astype(np.int64, copy=False)
    tie = same & (s[1:] == s[:-1])  # row i and i + 1 (of this order) tie
    if not tie.any():
        return idx
    in_group = np.zeros(n, bool)
    in_group[:-1] = tie
    in_group[1:] |= tie
    rows = np.flatnonzero(in_group)
    group = np.cumsum(~np.concatenate(([False], tie)))[rows]  # the same number for the rows of one group
    sub = idx[rows]
    o = ak.sort_indices(pa.table({"g": as_arrow(group), "d": ak.take(d, as_arrow(sub))}),
                        [("g", "ascending"), ("d", "descending")])
    o = as_numpy(o)
    idx[rows] = sub[o]
    return idx
