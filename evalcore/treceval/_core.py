"""trec_eval's ``official`` measures and the other rank-list counts, every topic at once.

Each function follows the named ``m_*.c`` file of trec_eval 10.0 line by line (same conditions, same order of
additions: sums over ranks are running sums, :func:`running_sum`, as the C loops add), vectorised over topics
with the padded :class:`~._rels.ResRels`. A value trec_eval leaves at 0 (a measure's early ``return``) is 0 here.
"""
from __future__ import annotations

import math

import numpy as np

from ._rels import NONPOOL, UNJUDGED, ResRels
from ._table import Measure, register

__all__ = ["running_sum", "lround", "col", "c_log"]

MIN_GEO_MEAN = 0.00001   # trec_eval.h


def running_sum(x: np.ndarray) -> np.ndarray:
    """Row sums added left to right, as a C loop adds (numpy's ``sum`` adds pairwise: other last bits)."""
    if x.shape[1] == 0:
        return np.zeros(x.shape[0])
    return np.cumsum(x, axis=1)[:, -1]


def c_log(x: np.ndarray) -> np.ndarray:
    """The C library's ``log`` of each value (``math.log``, as trec_eval calls it): numpy's own ``log`` may differ
    in the last bit. Values here are >= trec_eval's ``MIN_GEO_MEAN``, so every one has a logarithm."""
    return np.array([math.log(v) for v in np.asarray(x, dtype=np.float64).tolist()], dtype=np.float64)


def lround(x: np.ndarray | float) -> np.ndarray:
    """C's ``lround``: halves away from zero (Python's ``round`` rounds them to even)."""
    x = np.asarray(x, dtype=np.float64)
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int64)


def col(v) -> np.ndarray:
    """One value per topic as the (n_topics, 1) float64 column every ``calc`` returns."""
    return np.asarray(v, dtype=np.float64).reshape(-1, 1)


def _counts(rr: ResRels, values: np.ndarray, cuts) -> np.ndarray:
    """``values`` (a running count per rank) at rank ``min(cut, num_ret)`` for each cut: (n_topics, n_cuts)."""
    return np.stack([rr.at(values, np.minimum(c, rr.num_ret)) for c in cuts], axis=1).astype(np.float64)


def runid(rr: ResRels, params) -> np.ndarray:
    """m_runid.c: the run's tag (printed in the summary only)."""
    return np.zeros((rr.n_topics, 1))


def num_q(rr: ResRels, params) -> np.ndarray:
    """m_num_q.c: 1 per topic; the summary is the number of topics averaged over."""
    return np.ones((rr.n_topics, 1))


def num_ret(rr: ResRels, params) -> np.ndarray:
    """m_num_ret.c: documents retrieved (after ``-M`` and ``-J``)."""
    return col(rr.num_ret)


def num_rel(rr: ResRels, params) -> np.ndarray:
    """m_num_rel.c: judged documents at or above the relevance level."""
    return col(rr.num_rel)


def num_rel_ret(rr: ResRels, params) -> np.ndarray:
    """m_num_rel_ret.c: relevant documents retrieved."""
    return col(rr.num_rel_ret)


def _ap(rr: ResRels) -> np.ndarray:
    """m_map.c's sum and its division: precision at each relevant rank, added down the list, over num_rel."""
    rel = rr.relevant()
    rsf = np.cumsum(rel, axis=1)
    ranks = np.arange(1, rr.width + 1, dtype=np.float64)
    total = running_sum(np.where(rel, rsf / ranks, 0.0))
    found = rsf[:, -1] > 0 if rr.width else np.zeros(rr.n_topics, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(found, total / rr.num_rel, 0.0)


def ap(rr: ResRels, params) -> np.ndarray:
    """m_map.c: average precision (0 when no relevant document is retrieved)."""
    return col(_ap(rr))


def gm_map(rr: ResRels, params) -> np.ndarray:
    """m_gm_map.c: log(max(AP, 0.00001)) per topic; the summary is exp of their mean (geometric mean)."""
    return col(c_log(np.maximum(_ap(rr), MIN_GEO_MEAN)))


def rprec(rr: ResRels, params) -> np.ndarray:
    """m_Rprec.c: relevant documents in the first min(num_ret, num_rel) ranks, over num_rel."""
    n = np.minimum(rr.num_ret, rr.num_rel)
    got = rr.at(rr.rel_so_far(), n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(n > 0, got / rr.num_rel, 0.0))


def _bpref_sum(rr: ResRels) -> np.ndarray:
    """m_bpref.c's loop: for each relevant judged document, 1 - min(nonrel above, R) / min(nonrel judged, R)."""
    L = rr.rel_levels.shape[1]
    num_nonrel = rr.rel_levels[:, :max(0, min(rr.level, L))].sum(axis=1)
    rel = rr.rel
    live = rr.retrieved() & (rel != NONPOOL) & (rel != UNJUDGED)
    nonrel = live & (rel >= 0) & (rel < rr.level)
    is_rel = live & ~nonrel
    nsf = np.cumsum(nonrel, axis=1)
    R = rr.num_rel[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nsf > 0, 1.0 - np.minimum(nsf, R) / np.minimum(num_nonrel[:, None], R), 1.0)
    return running_sum(np.where(is_rel, term, 0.0))


def bpref(rr: ResRels, params) -> np.ndarray:
    """m_bpref.c: binary preference (Buckley & Voorhees 2004), over num_rel."""
    s = _bpref_sum(rr)
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(rr.num_rel > 0, s / rr.num_rel, s))


def gm_bpref(rr: ResRels, params) -> np.ndarray:
    """m_gm_bpref.c: log(max(bpref, 0.00001)) per topic; the summary is their geometric mean."""
    return col(c_log(np.maximum(bpref(rr, params)[:, 0], MIN_GEO_MEAN)))


def recip_rank(rr: ResRels, params) -> np.ndarray:
    """m_recip_rank.c: 1 / rank of the first relevant document (0 if none)."""
    rel = rr.relevant()
    if rr.width == 0:
        return np.zeros((rr.n_topics, 1))
    has = rel.any(axis=1)
    first = np.argmax(rel, axis=1) + 1
    return col(np.where(has, 1.0 / first, 0.0))


def iprec_at_recall(rr: ResRels, params) -> np.ndarray:
    """m_iprec_at_recall.c: interpolated precision at each recall level p: the highest precision at or below the
    rank of the lround(p x num_rel)-th relevant document; 0 past the relevant documents retrieved."""
    cuts = np.asarray(params, dtype=np.float64)
    out = np.zeros((rr.n_topics, len(cuts)))
    rel = rr.relevant()
    rsf = np.cumsum(rel, axis=1)
    ranks = np.arange(1, rr.width + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for t in range(rr.n_topics):
            n, k_all = int(rr.num_ret[t]), int(rr.num_rel_ret[t])
            counts = lround(cuts * rr.num_rel[t])
            precis = np.float64(k_all) / np.float64(n)        # 0/0 is NaN, as in C
            if k_all == 0 or n == 0:
                out[t] = np.where(counts <= k_all, precis, 0.0)
                continue
            p = rsf[t, :n] / ranks[:n]
            smax = np.maximum.accumulate(p[::-1])[::-1]        # the best precision at or below each rank
            pos = np.flatnonzero(rel[t, :n])                   # ranks (0-based) of the relevant documents
            k = np.clip(counts, 1, None) - 1                   # count 0 reads the first relevant document's rank
            vals = smax[pos[np.minimum(k, len(pos) - 1)]]
            out[t] = np.where(counts <= len(pos), vals, 0.0)
    return out


def precision_at(rr: ResRels, params) -> np.ndarray:
    """m_P.c: relevant documents in the first k ranks over k (a shorter list counts as nonrelevant below)."""
    cuts = np.asarray(params, dtype=np.float64)
    return _counts(rr, rr.rel_so_far(), params) / cuts[None, :]


def relstring(rr: ResRels, params) -> np.ndarray:
    """m_relstring.c: the first N relevance values as characters (``-`` not in the pool, ``.`` in the pool
    and unjudged, ``>`` above 9)."""
    n = int(params[0]) if params else 10
    out = np.empty((rr.n_topics, 1), dtype=object)
    table = {NONPOOL: "-", UNJUDGED: "."}
    for t in range(rr.n_topics):
        m = max(0, min(n, int(rr.num_ret[t])))
        out[t, 0] = "".join(">" if r > 9 else str(r) if r >= 0 else table.get(r, "<")
                            for r in rr.rel[t, :m].tolist())
    return out


def recall_at(rr: ResRels, params) -> np.ndarray:
    """m_recall.c: relevant documents in the first k ranks over num_rel (0 when num_rel is 0)."""
    got = _counts(rr, rr.rel_so_far(), params)
    R = rr.num_rel[:, None].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(R > 0, got / R, 0.0)


def unj(rr: ResRels, params) -> np.ndarray:
    """m_unjudged.c: the share of the first k ranks holding a document not judged (not in the pool, or in it
    and unjudged)."""
    un = np.cumsum((rr.rel == NONPOOL) | (rr.rel == UNJUDGED), axis=1)
    return _counts(rr, un, params) / np.asarray(params, dtype=np.float64)[None, :]


_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

register(Measure("runid", runid, kind="runid", summary="none", per_topic=False, source="m_runid.c",
                 doc="the run's tag"))
register(Measure("num_q", num_q, kind="long", summary="num_q", per_topic=False, source="m_num_q.c",
                 doc="number of topics averaged over"))
register(Measure("num_ret", num_ret, kind="long", summary="sum", bogus_zero=True, source="m_num_ret.c",
                 doc="documents retrieved"))
register(Measure("num_rel", num_rel, kind="long", summary="num_rel", source="m_num_rel.c",
                 doc="relevant documents"))
register(Measure("num_rel_ret", num_rel_ret, kind="long", summary="sum", source="m_num_rel_ret.c",
                 doc="relevant documents retrieved"))
register(Measure("map", ap, source="m_map.c", doc="average precision"))
register(Measure("gm_map", gm_map, summary="gm", per_topic=False, source="m_gm_map.c",
                 doc="geometric mean of average precision"))
register(Measure("Rprec", rprec, source="m_Rprec.c", doc="precision at rank num_rel"))
register(Measure("bpref", bpref, source="m_bpref.c", doc="binary preference"))
register(Measure("recip_rank", recip_rank, source="m_recip_rank.c", doc="reciprocal rank of the first relevant"))
register(Measure("iprec_at_recall", iprec_at_recall, params="cut_double", default=_RECALLS,
                 source="m_iprec_at_recall.c", doc="interpolated precision at recall levels"))
register(Measure("P", precision_at, params="cut_long", default=_CUTS, source="m_P.c", doc="precision at k"))
register(Measure("relstring", relstring, kind="relstring", params="double", default=(10.0,), summary="none",
                 source="m_relstring.c", doc="the first N relevance values as a string"))
register(Measure("recall", recall_at, params="cut_long", default=_CUTS, source="m_recall.c", doc="recall at k"))
register(Measure("gm_bpref", gm_bpref, summary="gm", per_topic=False, source="m_gm_bpref.c",
                 doc="geometric mean of bpref"))
register(Measure("unj", unj, params="cut_long", default=(5, 10, 20), bogus_zero=True, source="m_unjudged.c",
                 doc="share of unjudged documents in the first k ranks"))
