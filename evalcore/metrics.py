r"""Metric kernels: one vectorised function per metric, every (run, topic) at once.

Every kernel takes a :class:`~evalcore.collection.Collection` and returns a
float64 array of shape ``(n_runs, n_topics)``. Notation (Sakai 2007, IPSJ TOD,
paper 003 in docs/metrics.md "Sources", Sec. 3): for rank ``r`` of a ranked list, ``isrel(r)``
is 1 for a document of level >= 1; ``count(r)`` the relevant documents at or
above ``r``; ``g(r)`` the gain of its level; ``cg(r)`` the cumulative gain;
``cg_I(r)`` that of the ideal list (all relevant documents sorted by gain,
descending); ``R`` the topic's relevant documents; and the blended ratio

.. math:: BR(r) = \frac{\beta\,cg(r) + count(r)}{\beta\,cg_I(r) + r}

(the beta form of Sakai, AIRS 2004, paper 001; beta = 1 is 003's Eq. 2).

How it is fast: most ranks hold non-relevant documents, and every metric
here is a sum or a pick over *relevant* ranks. The kernels read
``Collection.hits`` (the relevant documents retrieved, with per-level
counts at each, computed once per collection), so new gains cost a
(n_hits x K) product, not a pass over the dense tensor. ``cg_I(r)`` is a
closed form of the per-level counts.

Edge policy, for every kernel:

* a topic missing from a run (empty list) scores 0 (but NumRel, which
  counts the topic's judgments, not the list, as trec_eval ``-c`` does);
* the one-document metrics (RR, O, WRR, NWRR, P, P+) are 0 when the list,
  within the cutoff, holds no relevant document;
* a metric with a cutoff ``l`` divides by ``min(R, l)`` where it divides
  by ``R`` (NTCIREVAL);
* binary metrics (AP, R-Prec, RR, P@k, Hit@k, R@k, bpref, NumRel,
  NumRelRet) count a document as relevant
  when its level >= ``rel_threshold`` (1 = relaxed, 2 = rigid); a topic
  with no such document scores 0 on them. Graded metrics ignore
  ``rel_threshold``.
"""
from __future__ import annotations

from typing import Literal, overload

import numpy as np

from ._cache import BytesLRU
from ._exact import fmat_imat, imat_fmat, part_bits
from .collection import Collection, Hits
from .gains import resolve_gains, resolve_penalties

__all__ = [
    "cache",
    "average_precision",
    "q_measure",
    "r_measure",
    "awp",
    "r_precision",
    "reciprocal_rank",
    "o_measure",
    "wrr",
    "nwrr",
    "p_measure",
    "p_plus_measure",
    "ndcg",
    "msndcg",
    "ncg",
    "andcg",
    "ancg",
    "nerr",
    "precision",
    "hit",
    "rbp",
    "rbp_residual",
    "recall",
    "bpref",
    "judged",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "accuracy",
    "preferred_rank",
    "first_rank",
    "blended_ratio",
]


# --------------------------------------------------------------------------
# validation and shared pieces
# --------------------------------------------------------------------------
@overload
def _check_cutoff(cutoff, required: Literal[True]) -> int: ...
@overload
def _check_cutoff(cutoff, required: bool = False) -> int | None: ...
def _check_cutoff(cutoff, required: bool = False) -> int | None:
    if cutoff is None:
        if required:
            raise ValueError("cutoff is required for this metric (e.g. cutoff=10)")
        return None
    if isinstance(cutoff, bool) or not float(cutoff).is_integer() or int(cutoff) < 1:
        raise ValueError(f"cutoff must be a whole number >= 1; got {cutoff!r}")
    return int(cutoff)


def _check_threshold(c: Collection, rel_threshold) -> int:
    if isinstance(rel_threshold, bool) or not float(rel_threshold).is_integer():
        raise ValueError(f"rel_threshold must be a whole number >= 1; got {rel_threshold!r}")
    t = int(rel_threshold)
    if t < 1:
        raise ValueError(f"rel_threshold must be >= 1 (1 = relaxed, 2 = rigid); got {t}")
    return t


@overload
def check_cutoff(cutoff, required: Literal[True]) -> int: ...
@overload
def check_cutoff(cutoff, required: bool = False) -> int | None: ...
def check_cutoff(cutoff, required: bool = False) -> int | None:
    """A metric's cutoff checked as every kernel checks it (a whole number >= 1; ``None`` allowed unless
    ``required``): for kernels defined outside this module (:mod:`evalcore.trec_measures`)."""
    return _check_cutoff(cutoff, required)


def check_threshold(c: Collection, rel_threshold) -> int:
    """``rel_threshold`` checked against ``c``'s levels as every kernel checks it (for kernels defined outside
    this module)."""
    return _check_threshold(c, rel_threshold)


def _check_beta(beta) -> float:
    b = float(beta)
    if not np.isfinite(b) or b < 0:
        raise ValueError(f"beta must be a finite number >= 0; got {beta!r}")
    return b


def _per_list(c: Collection, h: Hits, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum ``values`` (one per hit) over each ranked list -> (n_runs, n_topics)."""
    if mask is None:
        s = np.bincount(h.seg, weights=values, minlength=h.n_seg)
    else:
        s = np.bincount(h.seg[mask], weights=values[mask] if np.ndim(values) else None, minlength=h.n_seg)
    return s.reshape(c.n_runs, c.n_topics)


def _pick(c: Collection, h: Hits, values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Place one value per list (where ``mask`` picks at most one hit per list); 0 elsewhere."""
    out = np.zeros(h.n_seg)
    out[h.seg[mask]] = values[mask] if np.ndim(values) else values
    return out.reshape(c.n_runs, c.n_topics)


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.broadcast_to(den, num.shape)
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _ideal_order(gains: np.ndarray) -> np.ndarray:
    """Level indices (0-based) in ideal order: gain descending, then level descending."""
    K = gains.size
    return np.lexsort((-np.arange(K), -gains))


def _ideal_counts(c: Collection, order: np.ndarray, topic: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """(len(rank), K) int: level-L documents among the top ``rank`` of ``topic``'s ideal list, the levels
    placed in ``order`` (:func:`_ideal_order`); times the gains, cg_I(rank) (closed form).

    The ideal list holds, per topic, the relevant documents sorted by gain;
    the number of level-L documents among its top r is
    clip(r - (documents ranked above level L), 0, R(L)).
    """
    RL = c.level_counts[:, 1:]                       # (T, K)
    offsets = np.zeros_like(RL)
    # documents ranked above each level in the ideal list
    acc = np.zeros(RL.shape[0], dtype=np.int64)
    for k in order:
        offsets[:, k] = acc
        acc = acc + RL[:, k]
    return np.clip(rank[:, None] - offsets[topic], 0, RL[topic])


def _level_weights(c: Collection, order: tuple | None) -> tuple[np.ndarray, int]:
    """The gain-independent half of the hits' cg (``order`` None: ``c.hits.cnt``) or cg_I (the ideal list's
    level counts at each hit's rank for one level order), as the exact products with the gains take it:
    a float (K, n_hits) array and its part bits (:func:`evalcore._exact.part_bits`). Kept in :data:`cache`
    per collection and order, so a gain move that keeps the order of the gains multiplies and does not
    recount: the products, and so every value, are bit for bit those of ``imat_fmat(counts, gains)``."""
    def make():
        h = c.hits
        n = h.cnt if order is None else _ideal_counts(c, np.asarray(order), h.topic, h.rank)
        C = np.ascontiguousarray(n.T, dtype=np.float64)
        return C, part_bits(C, axis=0)
    return cache.get(c, ("level weights", order), make)


def _times_gains(weights: tuple[np.ndarray, int], gains: np.ndarray) -> np.ndarray:
    """``imat_fmat(counts, gains)`` from :func:`_level_weights` (integer-valued, checked when made)."""
    C, bits = weights
    return fmat_imat(gains, C, bits=bits)


def ideal_gain_vectors(c: Collection, gains: np.ndarray, length: int) -> np.ndarray:
    """Gains of the ideal list at ranks 1..length for every topic, shape (T, length).

    Cached per (collection, gains, length) in :data:`cache` (bounded by
    bytes): every @l metric of one evaluation shares it. Read-only.
    """
    g = tuple(np.asarray(gains, dtype=np.float64).tolist())
    return cache.get(c, ("ideal", g, int(length)), lambda: _ideal_vectors(c, g, int(length)))


#: Derived per-collection arrays (graded hits per gain setting, ideal gain
#: vectors), least recently used first out, within ``cache.max_bytes``
#: (default 256 MB; see :mod:`evalcore._cache`).
cache = BytesLRU()


def _ideal_vectors(c: Collection, gains: tuple, length: int) -> np.ndarray:
    gv = np.asarray(gains)
    RL = c.level_counts[:, 1:]
    out = np.zeros((c.n_topics, length))
    pos = np.zeros(c.n_topics, dtype=np.int64)
    cols = np.arange(length)[None, :]
    for k in _ideal_order(gv):                       # fill level blocks in ideal order
        end = pos + RL[:, k]
        out[(cols >= pos[:, None]) & (cols < end[:, None])] = gv[k]
        pos = end
    return out


def _graded(c: Collection, gains: tuple, beta: float):
    """Per-hit g, cg, cg_I and BR for one gain setting (uncached; see :func:`_graded_for`)."""
    h = c.hits
    gv = np.asarray(gains, dtype=np.float64)
    g = gv[h.level - 1] if h.level.size else np.zeros(0)
    if h.level.size:
        cg = _times_gains(_level_weights(c, None), gv)
        cgi = _times_gains(_level_weights(c, tuple(_ideal_order(gv).tolist())), gv)
    else:
        cg = cgi = np.zeros(0)
    br = (beta * cg + h.count) / (beta * cgi + h.rank)
    return g, cg, cgi, br


def _graded_for(c: Collection, gains, beta):
    gv = resolve_gains(gains, c.max_level)
    g, b = tuple(gv.tolist()), _check_beta(beta)
    return gv, cache.get(c, ("graded", g, b), lambda: _graded(c, g, b))


def blended_ratio(c: Collection, *, gains=None, beta: float = 1.0) -> np.ndarray:
    """BR(r) at every relevant rank of ``c.hits`` (flat, aligned with the hits)."""
    return _graded_for(c, gains, beta)[1][3]


def _within(h: Hits, cutoff: int | None) -> np.ndarray:
    return np.ones(h.rank.shape, bool) if cutoff is None else h.rank <= cutoff


def _first_mask(h: Hits, sel: np.ndarray) -> np.ndarray:
    """For hits selected by ``sel``: True at the first selected hit of each list."""
    idx = np.flatnonzero(sel)
    first = np.zeros(h.rank.shape, bool)
    if idx.size:
        s = h.seg[idx]
        f = np.ones(idx.size, bool)
        f[1:] = s[1:] != s[:-1]
        first[idx[f]] = True
    return first


def first_rank(c: Collection, *, rel_threshold: int = 1, cutoff: int | None = None) -> np.ndarray:
    """r_1: rank of the first document of level >= rel_threshold, 0 if none. (n_runs, n_topics) int."""
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    sel = (h.level >= t) & _within(h, _check_cutoff(cutoff))
    m = _first_mask(h, sel)
    return _pick(c, h, h.rank.astype(np.float64), m).astype(np.int64)


def _preferred_mask(c: Collection, h: Hits, cutoff: int | None) -> np.ndarray:
    """True at the hit at r_p: the first document of the highest level in the list. Gain-independent: kept
    in :data:`cache` per collection and cutoff (read-only), so a gain move does not look for it again."""
    return cache.get(c, ("preferred", cutoff), lambda: _find_preferred(c, h, cutoff))


def _find_preferred(c: Collection, h: Hits, cutoff: int | None) -> np.ndarray:
    sel = _within(h, cutoff)
    idx = np.flatnonzero(sel)
    m = np.zeros(h.rank.shape, bool)
    if not idx.size:
        return m
    big = c.depth + 1
    key = h.level[idx] * big - h.rank[idx]            # highest level, then earliest rank
    s = h.seg[idx]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    best = np.maximum.reduceat(key, starts)
    best_of = np.repeat(best, np.diff(np.r_[starts, idx.size]))
    m[idx[key == best_of]] = True
    return m


def preferred_rank(c: Collection, *, cutoff: int | None = None) -> np.ndarray:
    """r_p (003 Sec. 3.3): rank of the first document of the highest level
    present in the list; 0 when the list holds no relevant document."""
    h = c.hits
    m = _preferred_mask(c, h, _check_cutoff(cutoff))
    return _pick(c, h, h.rank.astype(np.float64), m).astype(np.int64)


def _binary_R(c: Collection, t: int) -> np.ndarray:
    return c.level_counts[:, t:].sum(axis=1) if t <= c.max_level else np.zeros(c.n_topics, np.int64)


# --------------------------------------------------------------------------
# recall-oriented metrics
# --------------------------------------------------------------------------
def average_precision(c: Collection, *, rel_threshold: int = 1, cutoff: int | None = None) -> np.ndarray:
    r"""Average Precision, binary at ``rel_threshold`` (003 Eq. 1).

    .. math:: AP = \frac{1}{R}\sum_r isrel(r)\,\frac{count(r)}{r}

    Relaxed AP (threshold 1) equals trec_eval's ``map``; rigid AP uses 2.
    With a cutoff l: ranks <= l and divide by min(R, l).

    >>> c = Collection.from_lists({"s": {"t": [0, 1, 0, 1]}}, {"t": [0, 2]})
    >>> float(average_precision(c)[0, 0])   # (1/2 + 2/4) / 2
    0.5
    """
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    l = _check_cutoff(cutoff)
    sel = (h.level >= t) & _within(h, l)
    count_b = h.cnt[:, t - 1:].sum(axis=1) if t <= c.max_level else np.zeros_like(h.rank)
    s = _per_list(c, h, count_b / h.rank, sel)
    R = _binary_R(c, t)
    return _divide(s, R if l is None else np.minimum(R, l))


def q_measure(c: Collection, *, gains=None, beta: float = 1.0, cutoff: int | None = None) -> np.ndarray:
    r"""Q-measure (003 Eq. 2; beta form of 001).

    .. math:: Q = \frac{1}{R}\sum_r isrel(r)\,BR(r)

    beta = 0 gives AP (relaxed); gains x10 equals beta = 10 (001).
    With a cutoff l: ranks <= l and divide by min(R, l) (NTCIREVAL).

    001 Sec. 2.3: one B-relevant document at rank 1000, R = R(B) = 5:
    >>> c = Collection.from_lists({"B": {"t": [0] * 999 + [1]}}, {"t": [0, 5]})
    >>> round(float(q_measure(c)[0, 0]), 4)
    0.0004
    """
    h = c.hits
    l = _check_cutoff(cutoff)
    _, (g, cg, cgi, br) = _graded_for(c, gains, beta)
    s = _per_list(c, h, br, None if l is None else h.rank <= l)      # every hit without a cutoff: no copies
    return _divide(s, c.R if l is None else np.minimum(c.R, l))


def r_measure(c: Collection, *, gains=None, beta: float = 1.0) -> np.ndarray:
    r"""R-measure = BR(R) (001 Sec. 2.3): the blended ratio at rank R."""
    h = c.hits
    gv, (g, cg, cgi, br) = _graded_for(c, gains, beta)
    b = _check_beta(beta)
    sel = h.rank <= c.R[h.topic]
    cgR = _per_list(c, h, g, sel)
    countR = _per_list(c, h, np.ones_like(g), sel)
    total_ideal = imat_fmat(c.level_counts[:, 1:], gv)
    return (b * cgR + countR) / (b * total_ideal + c.R)


def awp(c: Collection, *, gains=None, cutoff: int | None = None) -> np.ndarray:
    r"""Average Weighted Precision (001 Sec. 2.2): (1/R) sum isrel(r) cg(r)/cg_I(r).

    It "freezes" below rank R (cg_I is constant there): 001's example gives
    0.04 for one B document at rank 5 or at rank 1000 when R = R(B) = 5.
    """
    h = c.hits
    l = _check_cutoff(cutoff)
    _, (g, cg, cgi, br) = _graded_for(c, gains, 1.0)
    s = _per_list(c, h, cg / cgi, None if l is None else h.rank <= l)
    return _divide(s, c.R if l is None else np.minimum(c.R, l))


def r_precision(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """R-Precision: count(R)/R at the binary threshold (trec_eval ``Rprec``)."""
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    R = _binary_R(c, t)
    sel = (h.level >= t) & (h.rank <= R[h.topic])
    return _divide(_per_list(c, h, np.ones(h.rank.shape), sel), R)


# --------------------------------------------------------------------------
# one-document metrics (003 Sec. 3.2-3.3)
# --------------------------------------------------------------------------
def reciprocal_rank(c: Collection, *, rel_threshold: int = 1, cutoff: int | None = None) -> np.ndarray:
    """RR = 1/r_1, binary at ``rel_threshold`` (trec_eval ``recip_rank``)."""
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    m = _first_mask(h, (h.level >= t) & _within(h, _check_cutoff(cutoff)))
    return _pick(c, h, 1.0 / h.rank, m)


def o_measure(c: Collection, *, gains=None, beta: float = 1.0, cutoff: int | None = None) -> np.ndarray:
    r"""O-measure = BR(r_1) (003 Eq. 3): the blended ratio at the first relevant document.

    003 Fig. 3 (Topic 3: one S, one A, one B; gains 3:2:1), System Y =
    [non-relevant, S]: O = (3 + 1)/(5 + 2) = 4/7.
    >>> c = Collection.from_lists({"Y": {"t3": [0, 3]}}, {"t3": [0, 1, 1, 1]})
    >>> round(float(o_measure(c)[0, 0]), 4)
    0.5714
    """
    h = c.hits
    _, (g, cg, cgi, br) = _graded_for(c, gains, beta)
    m = _first_mask(h, _within(h, _check_cutoff(cutoff)))
    return _pick(c, h, br, m)


def _wrr_parts(c: Collection, penalties, cutoff):
    h = c.hits
    p = resolve_penalties(penalties, c.max_level)
    m = _first_mask(h, _within(h, _check_cutoff(cutoff)))
    wrr = 1.0 / (h.rank - 1.0 / p[h.level - 1]) if h.rank.size else np.zeros(0)
    return h, p, m, wrr


def wrr(c: Collection, *, penalties=None, cutoff: int | None = None) -> np.ndarray:
    r"""Weighted Reciprocal Rank (003 Eq. 4): 1 / (r_1 - 1/penalty(L_1)).

    Not bounded by one: its maximum is 1/(1 - 1/penalty(M)).
    """
    h, p, m, w = _wrr_parts(c, penalties, cutoff)
    return _pick(c, h, w, m)


def nwrr(c: Collection, *, penalties=None, cutoff: int | None = None) -> np.ndarray:
    r"""Normalised WRR (003 Eq. 5): (1 - 1/penalty(M)) / (r_1 - 1/penalty(L_1)).

    M is the highest level the *topic* has (from the qrels). 003 Fig. 2: an
    S document at rank 3 gives (1 - 1/2)/(3 - 1/2) = 1/5 for any topic.
    >>> c = Collection.from_lists({"s": {"t": [0, 0, 3]}}, {"t": [0, 0, 0, 1]})
    >>> float(nwrr(c)[0, 0])
    0.2
    """
    h, p, m, w = _wrr_parts(c, penalties, cutoff)
    has = c.level_counts[:, 1:] > 0
    M = c.max_level - np.argmax(has[:, ::-1], axis=1)        # highest level per topic
    norm = 1.0 - 1.0 / p[M - 1]
    return _pick(c, h, w, m) * norm[None, :]


def p_measure(c: Collection, *, gains=None, beta: float = 1.0, cutoff: int | None = None) -> np.ndarray:
    r"""P-measure = BR(r_p) (003 Eq. 6), r_p the preferred rank: the first
    document of the highest level present in the list.

    003 Fig. 3, System Z = [B, S]: (4 + 2)/(5 + 2) = 6/7.
    >>> c = Collection.from_lists({"Z": {"t3": [1, 3]}}, {"t3": [0, 1, 1, 1]})
    >>> round(float(p_measure(c)[0, 0]), 4)
    0.8571
    """
    h = c.hits
    _, (g, cg, cgi, br) = _graded_for(c, gains, beta)
    m = _preferred_mask(c, h, _check_cutoff(cutoff))
    return _pick(c, h, br, m)


def p_plus_measure(c: Collection, *, gains=None, beta: float = 1.0, cutoff: int | None = None) -> np.ndarray:
    r"""P+-measure (003 Eq. 7): (1/count(r_p)) sum_{r <= r_p} isrel(r) BR(r).

    003 Sec. 3.3, the perfect inverse [B, A, S]: (2/4 + 5/7 + 1)/3 = 0.738.
    >>> c = Collection.from_lists({"inv": {"t3": [1, 2, 3]}}, {"t3": [0, 1, 1, 1]})
    >>> round(float(p_plus_measure(c)[0, 0]), 3)
    0.738
    """
    h = c.hits
    _, (g, cg, cgi, br) = _graded_for(c, gains, beta)
    sel, cnt = _up_to_preferred(c, h, _check_cutoff(cutoff))
    return _divide(_per_list(c, h, br, sel), cnt)


def _up_to_preferred(c: Collection, h: Hits, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The hits at or above r_p (bool, per hit) and count(r_p) (n_runs, n_topics): gain-independent, kept
    in :data:`cache` per collection and cutoff (read-only)."""
    def make():
        m = _preferred_mask(c, h, cutoff)
        rp = _pick(c, h, h.rank.astype(np.float64), m).ravel()
        return h.rank <= rp[h.seg], _pick(c, h, h.count.astype(np.float64), m)
    return cache.get(c, ("up to preferred", cutoff), make)


# --------------------------------------------------------------------------
# cumulative-gain family (Jarvelin & Kekalainen; 004)
# --------------------------------------------------------------------------
def _jk_discount(rank: np.ndarray, log_base: float) -> np.ndarray:
    b = float(log_base)
    if not b > 1:
        raise ValueError(f"log_base must be > 1; got {log_base!r}")
    r = np.asarray(rank, dtype=np.float64)
    return np.where(r < b, 1.0, np.log(np.maximum(r, 1.0)) / np.log(b))


def _ideal_length(c: Collection, cutoff: int) -> int:
    """Ranks of the ideal list that can hold gain within ``cutoff``: min(cutoff, R_max)."""
    return max(1, min(int(cutoff), int(c.R.max()) if c.n_topics else 1))


def _dcg(c, gains, cutoff, discount, key):
    """DCG@cutoff / ideal DCG@cutoff with ``discount(rank)``. ``key`` names the discount: its value at every
    hit's rank depends on the collection alone and is kept in :data:`cache`, so a new gain setting pays for
    the gains, not for the logarithms again."""
    h = c.hits
    gv = resolve_gains(gains, c.max_level)
    g = gv[h.level - 1] if h.level.size else np.zeros(0)
    sel = h.rank <= cutoff
    dcg = _per_list(c, h, g / cache.get(c, ("hit discount", key), lambda: discount(h.rank)), sel)
    L = _ideal_length(c, cutoff)                            # the ideal list is 0 beyond R
    ideal = ideal_gain_vectors(c, gv, L)                    # (T, L)
    idcg = (ideal / discount(np.arange(1, L + 1))[None, :]).sum(axis=1)
    return _divide(dcg, idcg[None, :])


def ndcg(c: Collection, *, gains=None, cutoff: int, log_base: float = 2) -> np.ndarray:
    r"""nDCG@l, Jarvelin-Kekalainen original: gain at rank r divided by
    log_b(r) for r >= b (no discount above rank b), normalised by the ideal
    list's DCG at the same cutoff (004)."""
    l = _check_cutoff(cutoff, required=True)
    return _dcg(c, gains, l, lambda r: _jk_discount(r, log_base), ("jk", float(log_base)))


def msndcg(c: Collection, *, gains=None, cutoff: int) -> np.ndarray:
    r"""Microsoft-style nDCG@l: gain(L)/log2(r + 1); with gains = levels it
    equals trec_eval's ``ndcg_cut_l``."""
    l = _check_cutoff(cutoff, required=True)
    return _dcg(c, gains, l, lambda r: np.log2(np.asarray(r, dtype=np.float64) + 1.0), "log2(r + 1)")


def ncg(c: Collection, *, gains=None, cutoff: int) -> np.ndarray:
    """nCG@l = cg(l)/cg_I(l) (004)."""
    l = _check_cutoff(cutoff, required=True)
    return _dcg(c, gains, l, lambda r: np.ones(np.shape(r)), "none")


def _segment_cumsum(seg: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``values`` within each run of equal ``seg``.

    Done on a zero-padded (lists x hits) block, so identical lists get
    bit-identical sums wherever they stand (a global cumsum would not).
    """
    n = seg.size
    start = np.r_[True, seg[1:] != seg[:-1]]
    starts = np.flatnonzero(start)
    sizes = np.diff(np.r_[starts, n])
    row = np.repeat(np.arange(starts.size), sizes)
    col = np.arange(n) - np.repeat(starts, sizes)
    block = np.zeros((starts.size, int(sizes.max())))
    block[row, col] = values
    return np.cumsum(block, axis=1)[row, col]


def _averaged(c, gains, cutoff, discount):
    """(1/l) sum_{r=1..l} DCG(r)/DCG_I(r), summed segment by segment over hits."""
    h = c.hits
    l = cutoff
    gv = resolve_gains(gains, c.max_level)
    # Below rank L0 = max(depth, R_max) nothing changes: compute S up to L0, extend linearly.
    L0 = min(l, max(c.depth, int(c.R.max()) if c.n_topics else 1))
    ideal = ideal_gain_vectors(c, gv, L0) / discount(np.arange(1, L0 + 1))[None, :]
    idcg = np.cumsum(ideal, axis=1)                         # DCG_I(r), r = 1..L0 (> 0: R >= 1)
    S0 = np.zeros((c.n_topics, L0 + 1))
    S0[:, 1:] = np.cumsum(1.0 / idcg, axis=1)               # S[t, r] = sum_{i<=r} 1/DCG_I(i)

    def S_at(t, r):
        return np.where(r <= L0, S0[t, np.minimum(r, L0)], S0[t, L0] + (r - L0) / idcg[t, L0 - 1])

    sel = np.flatnonzero(h.rank <= l)
    if not sel.size:
        return np.zeros((c.n_runs, c.n_topics))
    seg, rank, topic = h.seg[sel], h.rank[sel], h.topic[sel]
    contrib = gv[h.level[sel] - 1] / discount(rank)
    dcg_after = _segment_cumsum(seg, contrib)               # DCG at this hit's rank
    nxt = np.empty_like(rank)
    nxt[:-1] = rank[1:]
    last = np.r_[seg[1:] != seg[:-1], True]
    nxt[last] = l + 1
    w = S_at(topic, nxt - 1) - S_at(topic, rank - 1)
    out = np.bincount(seg, weights=dcg_after * w, minlength=h.n_seg) / l
    return out.reshape(c.n_runs, c.n_topics)


def andcg(c: Collection, *, gains=None, cutoff: int, log_base: float = 2) -> np.ndarray:
    r"""AnDCG@l = (1/l) sum_{r=1..l} DCG(r)/DCG_I(r) (Jarvelin-Kekalainen discount; 004)."""
    l = _check_cutoff(cutoff, required=True)
    return _averaged(c, gains, l, lambda r: _jk_discount(r, log_base))


def ancg(c: Collection, *, gains=None, cutoff: int) -> np.ndarray:
    r"""AnCG@l = (1/l) sum_{r=1..l} cg(r)/cg_I(r) (004)."""
    l = _check_cutoff(cutoff, required=True)
    return _averaged(c, gains, l, lambda r: np.ones(np.shape(r)))


def nerr(c: Collection, *, gains=None, cutoff: int) -> np.ndarray:
    r"""nERR@l: ERR with stop probability p(L) = gain(L) / (max gain + 1),
    normalised by the ERR of the ideal list at the same cutoff.

    .. math:: ERR = \sum_{r \le l} \frac{1}{r}\,p(r)\prod_{i<r}(1 - p(i))

    With gains ascending in the level (the papers' settings) the largest
    gain is gain(K), K the highest level, so this is NTCIREVAL's
    ``nERR`` (p = g / (gain(K) + 1)). With any positive gains p stays a
    probability in (0, 1), so nERR is defined for every gain setting. The
    ideal list is sorted by gain, as for every other metric here (not by
    level). Edge policy: R = 0 gives NaN, like the other normalised metrics.
    """
    l = _check_cutoff(cutoff, required=True)
    h = c.hits
    gv = resolve_gains(gains, c.max_level)
    pL = gv / (gv.max() + 1.0)
    logq = np.log1p(-pL)                                     # log(1 - p) per level
    sel = h.rank <= l
    onehot_before = h.cnt.astype(np.float64)
    if h.level.size:
        onehot_before[np.arange(h.level.size), h.level - 1] -= 1
    surv = np.exp(imat_fmat(onehot_before, logq)) if h.level.size else np.zeros(0)
    p = pL[h.level - 1] if h.level.size else np.zeros(0)
    err = _per_list(c, h, p * surv / h.rank, sel)
    L = _ideal_length(c, l)
    ideal = ideal_gain_vectors(c, gv, L)                     # (T, L)
    ip = ideal / (gv.max() + 1.0)
    isurv = np.cumprod(np.c_[np.ones(c.n_topics), 1.0 - ip[:, :-1]], axis=1)
    ierr = (ip * isurv / np.arange(1, L + 1)[None, :]).sum(axis=1)
    return _divide(err, ierr[None, :])


# --------------------------------------------------------------------------
# precision at a cutoff
# --------------------------------------------------------------------------
def precision(c: Collection, *, cutoff: int, rel_threshold: int = 1) -> np.ndarray:
    """P@l = count(l)/l at the binary threshold (trec_eval ``P_l``; divides by l
    even when the list is shorter)."""
    l = _check_cutoff(cutoff, required=True)
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    return _per_list(c, h, np.ones(h.rank.shape), (h.level >= t) & (h.rank <= l)) / l


def hit(c: Collection, *, cutoff: int, rel_threshold: int = 1) -> np.ndarray:
    """Hit@l: 1 if the top l hold a document of level >= rel_threshold, else 0."""
    l = _check_cutoff(cutoff, required=True)
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    s = _per_list(c, h, np.ones(h.rank.shape), (h.level >= t) & (h.rank <= l))
    return (s > 0).astype(np.float64)


# --------------------------------------------------------------------------
# rank-biased precision (Moffat & Zobel 2008)
# --------------------------------------------------------------------------
def _check_persistence(p) -> float:
    if isinstance(p, bool) or not np.isfinite(float(p)) or not 0.0 < float(p) < 1.0:
        raise ValueError(f"p (persistence) must be a number with 0 < p < 1; got {p!r}")
    return float(p)


def rbp(c: Collection, *, cutoff: int, p: float = 0.8, rel_threshold: int = 1) -> np.ndarray:
    r"""Rank-biased precision RBP(p)@k (Moffat & Zobel, TOIS 2008), summed to depth k.

    .. math:: RBP = (1 - p) \sum_{r=1}^{k} rel(r)\, p^{r-1}

    The user reads rank 1 and goes on from each rank to the next with
    probability p (the persistence; 0.8 by default, as in ir_measures).
    ``rel(r)`` is binary: 1 when the document's level >= ``rel_threshold``,
    as Moffat & Zobel define it (r_i in {0, 1}). A graded form (rel = gain(L)
    / max gain) was not chosen: the graded variants of other tools disagree
    (trectools, behind ir_measures' ``RBP@k``, weighs each document by its raw
    label and is not bounded by 1), so no peer would agree with it, and the
    residual below keeps its plain meaning only for a 0/1 relevance.

    Edge policy: ranks past the end of a shorter list count as non-relevant
    (so do unjudged documents: their weight is :func:`rbp_residual`); a topic
    with no document of level >= ``rel_threshold`` scores 0; the score is never
    normalised by R (RBP does not need the number of relevant documents).

    Hand-computed: relevant at ranks 1 and 3, p = 0.5:
    0.5 * (1 + 0.25) = 0.625.
    >>> c = Collection.from_lists({"s": {"t": [1, 0, 2, 0]}}, {"t": [0, 2, 1]})
    >>> float(rbp(c, cutoff=10, p=0.5)[0, 0])
    0.625
    """
    l = _check_cutoff(cutoff, required=True)
    q = _check_persistence(p)
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    w = (1.0 - q) * q ** (h.rank - 1.0)
    return _per_list(c, h, w, (h.level >= t) & (h.rank <= l)).astype(np.float64)   # float with no hits too


def rbp_residual(c: Collection, *, cutoff: int, p: float = 0.8) -> np.ndarray:
    r"""The residual of RBP(p)@k (Moffat & Zobel 2008): how far RBP
    could still rise if every unknown document were relevant.

    .. math:: residual = (1 - p) \sum_{r \le k,\ r\ \mathrm{unjudged}} p^{r-1} + p^{k}

    The first term is the weight of the retrieved documents within the cutoff
    that have no judgment (``Collection.unjudged``; none when the collection
    carries no unjudged mask); the second the weight of every rank beyond k.
    Ranks past the end of a list shorter than k are not unknown: no document
    stands there, so they add nothing (they count as non-relevant in
    :func:`rbp` too). Judging every document and reading on past k would give
    an RBP between ``rbp`` and ``rbp + rbp_residual`` (the "RBP = 0.x + 0.y"
    of Moffat & Zobel).
    The sum of the first term runs rank by rank within each list (np.bincount),
    an order the code fixes, so the result is the same on every CPU.

    >>> c = Collection.from_lists({"s": {"t": [1, 0]}}, {"t": [1, 1]})
    >>> float(rbp_residual(c, cutoff=2, p=0.5)[0, 0])   # nothing unjudged: p^k
    0.25
    """
    l = _check_cutoff(cutoff, required=True)
    q = _check_persistence(p)
    out = np.full((c.n_runs, c.n_topics), q ** l)
    if c.unjudged is None:
        return out
    D = min(l, c.depth)
    run, topic, rank0 = np.nonzero(c.unjudged[:, :, :D])
    if run.size:
        seg = run * c.n_topics + topic
        w = (1.0 - q) * q ** rank0.astype(np.float64)
        out += np.bincount(seg, weights=w, minlength=c.n_runs * c.n_topics).reshape(c.n_runs, c.n_topics)
    return out


# --------------------------------------------------------------------------
# the other measures researchers report with trec_eval and ir_measures
# --------------------------------------------------------------------------
def recall(c: Collection, *, cutoff: int, rel_threshold: int = 1) -> np.ndarray:
    """R@l: the share of the topic's relevant documents found in the top l,
    count(l)/R at the binary threshold (trec_eval ``recall_l``, ir_measures
    ``R@l``). A topic with no document of level >= ``rel_threshold`` scores 0
    (trec_eval's convention); a list shorter than l is read to its end.

    >>> c = Collection.from_lists({"s": {"t": [1, 0, 2, 0]}}, {"t": [5, 2, 2]})
    >>> float(recall(c, cutoff=3)[0, 0])   # 2 of R = 4 in the top 3
    0.5
    """
    l = _check_cutoff(cutoff, required=True)
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    found = _per_list(c, h, np.ones(h.rank.shape), (h.level >= t) & (h.rank <= l))
    return _divide(found, _binary_R(c, t).astype(np.float64))


def _unjudged_above(c: Collection, h: Hits) -> np.ndarray:
    """For every hit: the unjudged documents ranked above it in its own list (0 without an unjudged mask).

    Sparse: the flat positions of the unjudged documents are sorted, so two binary searches per hit
    count those between its list's start and its own rank - no cumulative sum over the dense tensor.
    """
    if c.unjudged is None or not h.rank.size:
        return np.zeros(h.rank.shape, np.int64)
    u = np.flatnonzero(c.unjudged)                     # seg * depth + rank - 1, sorted
    at = h.seg * c.depth + (h.rank - 1)
    return np.searchsorted(u, at) - np.searchsorted(u, h.seg * c.depth)


def bpref(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    r"""bpref (Buckley & Voorhees 2004, as trec_eval computes it): how often
    the judged relevant documents are ranked above judged non-relevant ones,
    ignoring unjudged documents.

    .. math:: bpref = \frac{1}{R}\sum_{r:\ rel(r)} \Bigl(1 - \frac{\min(n_r, R)}{\min(N, R)}\Bigr)

    ``n_r`` is the number of judged non-relevant documents ranked above the
    relevant document at rank r, ``N`` the topic's judged non-relevant
    documents and R its relevant ones, all at ``rel_threshold`` L: a judged
    document of level < L (level 0 or a lower relevant level) is non-relevant,
    as under trec_eval's ``-l L``. Documents without a qrels entry
    (``Collection.unjudged``) are skipped. Edge policy, trec_eval's: a
    relevant document with no judged non-relevant one above it adds 1 (so a
    topic without judged non-relevant documents scores count_ret/R, not 0/0);
    a topic with R = 0 scores 0. A collection without an unjudged mask (built
    by hand, :meth:`Collection.from_lists`) counts every retrieved level-0
    document as judged; where the topic's counts hold fewer judged
    non-relevant documents than the list shows, the larger number is N.
    evalcore reads a negative qrels label as 0 (judged non-relevant), so it
    counts here; trec_eval skips a label of -1 ("in the pool, unjudged").

    Hand-computed: [N, R, U, R] with R = 2 and N = 3 judged non-relevant: the
    first relevant document has 1 non-relevant above it (1 - 1/2), the second
    also 1 (the unjudged one is skipped): (0.5 + 0.5) / 2 = 0.5.
    >>> import numpy as np
    >>> lv = np.array([[[0, 1, 0, 1]]], np.int8)
    >>> uj = np.array([[[False, False, True, False]]])
    >>> c = Collection(lv, np.array([[4]]), np.array([[3, 2]]), ("s",), ("t",), unjudged=uj)
    >>> float(bpref(c)[0, 0])
    0.5
    """
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    R = _binary_R(c, t)
    N = c.level_counts[:, :t].sum(axis=1) if t <= c.max_level else c.level_counts.sum(axis=1)
    sel = h.level >= t
    rel_above = (h.cnt[:, t - 1:].sum(axis=1) - 1) if t <= c.max_level else np.zeros_like(h.rank)
    nonrel_above = (h.rank - 1) - _unjudged_above(c, h) - rel_above   # judged, level < t, above the hit
    Rh, Nh = R[h.topic], np.maximum(N[h.topic], nonrel_above)
    den = np.minimum(Nh, Rh)
    frac = np.zeros(h.rank.shape)
    np.divide(np.minimum(nonrel_above, Rh), den, out=frac, where=(nonrel_above > 0) & (den > 0))
    return _divide(_per_list(c, h, 1.0 - frac, sel), R.astype(np.float64))


def judged(c: Collection, *, cutoff: int) -> np.ndarray:
    """Judged@l: the share of the top min(l, list length) documents that have a
    qrels entry, of any level (ir_measures ``Judged@l``, which divides by the
    list's length when it is shorter than l). An empty list (a topic missing
    from the run) scores 0. A collection without an unjudged mask counts every
    retrieved document as judged. The top l is read in ir_measures' order
    (:meth:`Collection.in_order`): its judged provider sorts score ties by
    document id ascending, not descending as trec_eval.

    Hand-computed: [judged, unjudged, judged], l = 10: 2 of 3.
    >>> import numpy as np
    >>> uj = np.array([[[False, True, False]]])
    >>> c = Collection(np.array([[[1, 0, 0]]], np.int8), np.array([[3]]), np.array([[5, 1]]), ("s",), ("t",),
    ...                unjudged=uj)
    >>> round(float(judged(c, cutoff=10)[0, 0]), 4)
    0.6667
    """
    l = _check_cutoff(cutoff, required=True)
    c = c.in_order("ir_measures")     # the judged provider sorts the run itself: ties by document id ascending
    n = np.minimum(c.lengths.astype(np.int64), l)
    unj = np.zeros(c.n_runs * c.n_topics, np.int64)
    if c.unjudged is not None:
        run, topic, _ = np.nonzero(c.unjudged[:, :, :min(l, c.depth)])
        unj = np.bincount(run * c.n_topics + topic, minlength=c.n_runs * c.n_topics)
    return _divide((n - unj.reshape(n.shape)).astype(np.float64), n.astype(np.float64))


def num_ret(c: Collection) -> np.ndarray:
    """NumRet: the documents retrieved (trec_eval ``num_ret``, ir_measures
    ``NumRet``), a count; 0 for a topic missing from the run. The list's
    length as loaded: a ``depth`` given to the loader truncates it."""
    return c.lengths.astype(np.float64)


def num_rel(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """NumRel: the topic's relevant documents, level >= ``rel_threshold``
    (trec_eval ``num_rel`` under ``-l``, ir_measures ``NumRel(rel=L)``), a
    count; the same for every run, also one that did not retrieve the topic
    (as trec_eval ``-c`` fills it)."""
    t = _check_threshold(c, rel_threshold)
    return np.broadcast_to(_binary_R(c, t).astype(np.float64), (c.n_runs, c.n_topics)).copy()


def num_rel_ret(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """NumRelRet: the relevant documents retrieved, level >= ``rel_threshold``,
    anywhere in the list (trec_eval ``num_rel_ret``, ir_measures ``NumRelRet``
    = ``NumRet(rel=1)``), a count."""
    h = c.hits
    t = _check_threshold(c, rel_threshold)
    return _per_list(c, h, np.ones(h.rank.shape), h.level >= t).astype(np.float64)


def accuracy(c: Collection, *, cutoff: int | None = None, rel_threshold: int = 1) -> np.ndarray:
    r"""Accuracy as ir_measures 0.4.3's accuracy provider computes it (ir_measures ``Accuracy``,
    ``Accuracy@k``, ``Accuracy(rel=L)``): of the pairs (relevant, non-relevant document) in the top k, the
    share with the relevant one ranked first - the chance that a relevant document is ranked before a
    non-relevant one, a diagnostic (ir_measures' ``_Accuracy``):

    .. math:: Accuracy = 1 - \frac{\sum_{i=1}^{m} n_i}{m\,N}

    for the m documents at level >= ``rel_threshold`` in the top k (the whole list without a cutoff), n_i the
    non-relevant documents above the i-th of them and N those in the top k; an unjudged document is
    non-relevant. The list is read as the provider sorts it: score descending, ties in the run's own order
    (:meth:`Collection.in_order` ``"input"``, as cwl_eval).

    Edge policy: NaN where the pairs are none. With no relevant document in the top k (a topic missing from
    the run, or without one at the threshold) ir_measures reports no value, so the topic is left out of its
    mean (evalcore's mean skips NaN for this measure: ``MetricSpec.aggregate == "defined"``); with no
    non-relevant one (every document of the top k relevant) the provider divides 0 by 0 and raises
    ZeroDivisionError - evalcore says NaN there too and leaves the topic out of the mean.

    Hand-computed: [N, R, N, R] with k = 4: n = (1, 2), m = 2, N = 2: 1 - 3/4.

    >>> c = Collection.from_lists({"s": {"t": [0, 1, 0, 1]}}, {"t": [2, 2]})
    >>> float(accuracy(c)[0, 0]), bool(np.isnan(accuracy(c, cutoff=1)[0, 0]))
    (0.25, True)
    """
    l = _check_cutoff(cutoff)
    t = _check_threshold(c, rel_threshold)
    c = c.in_order("input")
    h = c.hits
    n = c.lengths.astype(np.int64) if l is None else np.minimum(c.lengths.astype(np.int64), l)
    sel = h.level >= t
    if l is not None:
        sel &= h.rank <= l
    rel_at = h.cnt[:, t - 1:].sum(axis=1) if t <= c.max_level else np.zeros_like(h.rank)  # relevant at or above
    pairs_lost = _per_list(c, h, (h.rank - rel_at).astype(np.float64), sel)   # non-relevant above each relevant
    m = _per_list(c, h, np.ones(h.rank.shape), sel)
    N = n - m
    out = np.full(m.shape, np.nan)
    ok = (m > 0) & (N > 0)
    out[ok] = 1.0 - pairs_lost[ok] / (m[ok] * N[ok])
    return out
