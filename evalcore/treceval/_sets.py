"""trec_eval's sampled, cutoff-multiple, set-based and smoothed measures, every topic at once.

``infAP``, ``Rprec_mult``, ``utility``, ``11pt_avg``, ``relative_P``, ``success``, ``set_P``,
``set_relative_P``, ``set_recall``, ``set_map``, ``set_F``, ``num_nonrel_judged_ret``, ``map_cut`` and ``yaap``,
each a port of its ``m_*.c`` file of trec_eval 10.0 (named in its docstring) with the conventions of
:mod:`._core`: the same conditions and the same order of floating-point operations (sums over ranks are the C
loop's running sums, :func:`~._core.running_sum`), a value trec_eval leaves at 0 (an early ``return``) is 0, and
a division by zero gives what C gives (``inf``, ``-nan``) under :func:`numpy.errstate`.

Quirks of trec_eval reproduced (see the functions): ``utility`` is 0 on a ``-c`` stand-in topic only when it is
printed as plain ``utility`` (no parameters typed; the engine's clean-up by value name); ``11pt_avg`` on a topic
with no document retrieved (``-M 0``, or ``-J`` leaving none) is ``0/0``, printed ``-nan``, and its recall points
given out of order take the interpolated precision at the first relevant document; ``set_F`` with ``x = -R/P``
divides by zero (``-nan``, ``-0.0000``).
"""
from __future__ import annotations

import math

import numpy as np

from ._core import col, lround, running_sum
from ._rels import NONPOOL, UNJUDGED, EvaluationError, ResRels
from ._table import Measure, register

__all__ = ["infap", "rprec_mult", "utility", "pt11_avg", "relative_p", "success", "set_p", "set_relative_p",
           "set_recall", "set_map", "set_f", "num_nonrel_judged_ret", "map_cut", "yaap"]

INFAP_EPSILON = .00001   # trec_eval.h


def _at_cuts(rr: ResRels, values: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """``values[t, min(cut, num_ret) - 1]`` (0 for a cut of 0 or less) per topic and cut: (n_topics, n_cuts).
    ``cuts`` is one row of cutoffs for every topic (n_cuts,) or one per topic (n_topics, n_cuts)."""
    cuts = np.broadcast_to(np.asarray(cuts, dtype=np.int64), (rr.n_topics, np.shape(cuts)[-1]))
    out = [rr.at(values, np.minimum(cuts[:, j], rr.num_ret)) for j in range(cuts.shape[1])]
    return np.stack(out, axis=1).astype(np.float64) if out else np.zeros((rr.n_topics, 0))


def _precision_terms(rr: ResRels) -> np.ndarray:
    """``rel_so_far / (i + 1)`` at each relevant rank ``i`` (0 elsewhere): what m_map.c's loop adds."""
    rel = rr.relevant()
    ranks = np.arange(1, rr.width + 1, dtype=np.float64)
    return np.where(rel, np.cumsum(rel, axis=1) / ranks, 0.0)


def infap(rr: ResRels, params) -> np.ndarray:
    """m_infap.c: inferred AP (Yilmaz & Aslam, CIKM 2006) for a judged random sample of the pool.

    Documents not in the pool are skipped (they count as nonrelevant through the rank ``j``), documents in the
    pool and unjudged (qrels value < 0) are counted but neither relevant nor nonrelevant, any other one below
    the relevance level is nonrelevant and the rest relevant. At the relevant document of 0-based rank ``j`` the
    sum gains 1 if ``j == 0`` and otherwise ``1/(j+1) + (j/(j+1)) * ((r-1+n+u)/j) * ((r-1+eps)/(r-1+n+2eps))``
    (``r``, ``n``, ``u``: relevant, nonrelevant and pool-unjudged documents so far, ``r`` counting this one,
    ``eps`` = 0.00001); the sum is divided by num_rel when num_rel > 0.
    """
    rel = rr.rel
    ret = rr.retrieved()
    unjudged = ret & (rel == UNJUDGED)
    nonrel = ret & (rel >= 0) & (rel < rr.level)
    is_rel = ret & (rel != NONPOOL) & ~unjudged & ~nonrel
    r = np.cumsum(is_rel, axis=1)
    n = np.cumsum(nonrel, axis=1)
    u = np.cumsum(unjudged, axis=1)
    fj = np.broadcast_to(np.arange(rr.width, dtype=np.float64), rel.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r - 1 + n + u) / fj)
                * (((r - 1).astype(np.float64) + INFAP_EPSILON) / ((r - 1 + n).astype(np.float64)
                                                                  + 2 * INFAP_EPSILON)))
        term = np.where(fj == 0, 1.0, term)
        total = running_sum(np.where(is_rel, term, 0.0))
        return col(np.where(rr.num_rel != 0, total / rr.num_rel, total))


def rprec_mult(rr: ResRels, params) -> np.ndarray:
    """m_Rprec_mult.c: precision at each multiple ``p`` of num_rel: at the cutoff ``c = (long)(p * num_rel +
    0.9)`` (truncated), relevant documents in the first ``min(c, num_ret)`` ranks over ``c``; 0 for ``c <= 0``.

    (The C walks the ranks up from num_ret, setting a cutoff's value when it reaches it, and the cutoffs past
    num_ret to num_rel_ret / c: the same numbers, the same single division.)
    """
    pcts = np.asarray(params, dtype=np.float64)
    cuts = np.trunc(pcts[None, :] * rr.num_rel[:, None].astype(np.float64) + 0.9).astype(np.int64)
    got = _at_cuts(rr, rr.rel_so_far(), cuts)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cuts >= 1, got / cuts, 0.0)


def utility(rr: ResRels, params) -> np.ndarray:
    """m_utility.c: ``p1*a + p2*b + p3*c + p4*d`` over the contingency table of the retrieved set: ``a``
    relevant retrieved, ``b`` nonrelevant retrieved, ``c`` relevant not retrieved, ``d`` = ``-N`` (documents in
    the collection) + a - num_ret - num_rel; added left to right. Exactly four parameters, as in trec_eval.

    trec_eval's quirk, reproduced by the engine (:func:`~._engine._clean_bogus`, hence ``bogus_zero``): its
    clean-up of a ``-c`` stand-in topic (trec_eval.c) sets the value *named* ``utility`` to 0, and a ``utility``
    given parameters is named ``utility_p1,p2,p3,p4``, so with typed parameters (even the default ones) the
    stand-in topic keeps the stand-in ranking's value (one document, not in the pool: ``p2 + p3*num_rel +
    p4*(N-1-num_rel)``; with ``-J`` it is dropped and num_ret is 0).
    Other than four parameters stops as trec_eval stops (exit status 4, nothing printed).
    """
    if len(params) != 4:
        raise EvaluationError("trec_eval.calc_utility: improper number of coefficients (trec_eval stops here "
                              "too: \"Can't calculate measure 'utility'\")",
                              hint="give utility four coefficients: -m utility.p1,p2,p3,p4 (default 1,-1,0,0)")
    p = [float(x) for x in params]
    a, ret, R = rr.num_rel_ret, rr.num_ret, rr.num_rel
    d = rr.options.num_docs_in_coll + a - ret - R
    v = p[0] * a + p[1] * (ret - a) + p[2] * (R - a) + p[3] * d
    return col(v)


def pt11_avg(rr: ResRels, params) -> np.ndarray:
    """m_11pt_avg.c: interpolated precision averaged over the given recall points (default 0, 0.1, ..., 1).

    A point ``p`` asks for the ``k = lround(p * num_rel)``-th relevant document; its value is the interpolated
    precision there (the best precision at or below its rank, down to num_ret); points with ``k`` above
    num_rel_ret add 0. The C walks the ranks up from num_ret and the points down from the last given, matching
    each point as the count of relevant documents passes its ``k``; a point it cannot match (``k <= 0``, or
    given out of order) and every point before it get the last interpolated precision, the one at the first
    relevant document (num_rel_ret / num_ret when none is retrieved: ``0/0`` = ``-nan`` with no document
    retrieved, as ``-M 0`` gives, a trec_eval quirk reproduced). The points are added in that order (last
    given first) and the sum divided by their number.
    """
    pcts = np.asarray(params, dtype=np.float64)
    nrr = rr.num_rel_ret
    cuts = lround(pcts[None, :] * rr.num_rel[:, None].astype(np.float64))
    rel = rr.relevant()
    rsf = np.cumsum(rel, axis=1)
    ranks = np.arange(1, rr.width + 1, dtype=np.float64)
    prec = np.where(rr.retrieved(), rsf / ranks, -np.inf)
    smax = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]     # best precision at rank j..num_ret
    # by_count[t, k]: the interpolated precision at the k-th relevant document
    by_count = np.zeros((rr.n_topics, int(nrr.max(initial=0)) + 1))
    t_idx, j_idx = np.nonzero(rel)
    by_count[t_idx, rsf[t_idx, j_idx]] = smax[t_idx, j_idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        last = np.where(nrr > 0, by_count[:, min(1, by_count.shape[1] - 1)], nrr / rr.num_ret)
        rev = cuts[:, ::-1]                                     # the C's order: the last point first
        skip = np.logical_and.accumulate(rev > nrr[:, None], axis=1)
        prev = np.concatenate([np.full((rr.n_topics, 1), np.iinfo(np.int64).max), rev[:, :-1]], axis=1)
        good = skip | ((rev >= 1) & (rev <= prev))
        matched = ~skip & np.logical_and.accumulate(good, axis=1)
        blocked = ~skip & ~matched
        k = np.clip(rev, 0, by_count.shape[1] - 1)
        vals = np.where(matched, by_count[np.arange(rr.n_topics)[:, None], k],
                        np.where(blocked, last[:, None], 0.0))
        return col(running_sum(vals) / np.float64(len(pcts)))


def relative_p(rr: ResRels, params) -> np.ndarray:
    """m_rel_P.c: relevant documents in the first k ranks over min(k, num_rel), the best possible count
    (precision up to num_rel, recall after); 0 when num_rel is 0. A shorter list counts as nonrelevant below."""
    cuts = np.asarray(params, dtype=np.int64)
    got = _at_cuts(rr, rr.rel_so_far(), cuts)
    best = np.minimum(cuts[None, :], rr.num_rel[:, None]).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rr.num_rel[:, None] == 0, 0.0, got / best)


def success(rr: ResRels, params) -> np.ndarray:
    """m_success.c: 1 if a relevant document is in the first k ranks, else 0."""
    got = _at_cuts(rr, rr.rel_so_far(), np.asarray(params, dtype=np.int64))
    return np.where(got > 0, 1.0, 0.0)


def set_p(rr: ResRels, params) -> np.ndarray:
    """m_set_P.c: num_rel_ret / num_ret over the whole retrieved set (0 when nothing is retrieved)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(rr.num_ret != 0, rr.num_rel_ret / rr.num_ret, 0.0))


def set_relative_p(rr: ResRels, params) -> np.ndarray:
    """m_set_rel_P.c: num_rel_ret / min(num_ret, num_rel) (0 when either is 0)."""
    ok = (rr.num_ret != 0) & (rr.num_rel != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(ok, rr.num_rel_ret / np.minimum(rr.num_ret, rr.num_rel), 0.0))


def set_recall(rr: ResRels, params) -> np.ndarray:
    """m_set_recall.c: num_rel_ret / num_rel (0 when num_rel is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(rr.num_rel != 0, rr.num_rel_ret / rr.num_rel, 0.0))


def set_map(rr: ResRels, params) -> np.ndarray:
    """m_set_map.c: (num_rel_ret * num_rel_ret) / (num_ret * num_rel), set precision times set recall (0 when
    num_ret or num_rel is 0)."""
    a = rr.num_rel_ret.astype(np.float64)
    ok = (rr.num_ret != 0) & (rr.num_rel != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(ok, (a * a) / (rr.num_ret.astype(np.float64) * rr.num_rel.astype(np.float64)), 0.0))


def set_f(rr: ResRels, params) -> np.ndarray:
    """m_set_F.c: ``(x+1) * P * R / (x*P + R)`` with P = set_P, R = set_recall and x the parameter (default
    1; further parameters are ignored); 0 when no relevant document is retrieved. ``x*P + R`` = 0 (``x`` =
    -R/P) divides by zero as in C."""
    x = float(params[0])
    a = rr.num_rel_ret
    with np.errstate(divide="ignore", invalid="ignore"):
        P = a / rr.num_ret
        R = a / rr.num_rel
        return col(np.where(a != 0, (x + 1.0) * P * R / (x * P + R), 0.0))


def num_nonrel_judged_ret(rr: ResRels, params) -> np.ndarray:
    """m_num_nonrel_judged_ret.c: num_ret - not in the pool - in the pool unjudged - num_rel_ret: the judged
    nonrelevant documents retrieved (the summary is their sum)."""
    return col(rr.num_ret - rr.num_nonpool - rr.num_unjudged_in_pool - rr.num_rel_ret)


def map_cut(rr: ResRels, params) -> np.ndarray:
    """m_map_cut.c: average precision of the first k ranks: m_map.c's running sum of the precision at each
    relevant rank up to min(k, num_ret), over num_rel (0 when num_rel is 0)."""
    sums = _at_cuts(rr, np.cumsum(_precision_terms(rr), axis=1), np.asarray(params, dtype=np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rr.num_rel[:, None] == 0, 0.0, sums / rr.num_rel[:, None])


def yaap(rr: ResRels, params) -> np.ndarray:
    """m_yaap.c: Robertson's "yet another average precision" (ECIR 2012): ``log((1 + S) / (1 + num_rel - S))``
    with ``S`` m_map.c's running sum of the precision at each relevant rank. ``log`` is C's (``math.log``, the
    libm trec_eval calls; numpy's own ``log`` differs from it in the last bit on some values)."""
    s = running_sum(_precision_terms(rr))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (1.0 + s) / ((1.0 + rr.num_rel.astype(np.float64)) - s)
    return col([math.log(v) if v > 0 else float(np.log(v)) for v in ratio.tolist()])


_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

register(Measure("infAP", infap, source="m_infap.c", doc="inferred average precision (judged pool sample)"))
register(Measure("Rprec_mult", rprec_mult, params="cut_double",
                 default=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), source="m_Rprec_mult.c",
                 doc="precision at multiples of num_rel"))
register(Measure("utility", utility, params="double", default=(1.0, -1.0, 0.0, 0.0), bogus_zero=True,
                 source="m_utility.c",
                 doc="set utility p1*a + p2*b + p3*c + p4*d"))
register(Measure("11pt_avg", pt11_avg, params="double",
                 default=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), source="m_11pt_avg.c",
                 doc="interpolated precision averaged over recall points"))
register(Measure("map_cut", map_cut, params="cut_long", default=_CUTS, source="m_map_cut.c",
                 doc="average precision of the first k ranks"))
register(Measure("relative_P", relative_p, params="cut_long", default=_CUTS, source="m_rel_P.c",
                 doc="precision at k over the best possible"))
register(Measure("success", success, params="cut_long", default=(1, 5, 10), source="m_success.c",
                 doc="a relevant document in the first k ranks"))
register(Measure("set_P", set_p, source="m_set_P.c", doc="precision of the retrieved set"))
register(Measure("set_relative_P", set_relative_p, source="m_set_rel_P.c",
                 doc="set precision over the best possible"))
register(Measure("set_recall", set_recall, source="m_set_recall.c", doc="recall of the retrieved set"))
register(Measure("set_map", set_map, source="m_set_map.c", doc="set precision times set recall"))
register(Measure("set_F", set_f, params="double", default=(1.0,), source="m_set_F.c",
                 doc="F measure of the retrieved set"))
register(Measure("num_nonrel_judged_ret", num_nonrel_judged_ret, kind="long", summary="sum",
                 source="m_num_nonrel_judged_ret.c", doc="judged nonrelevant documents retrieved"))
register(Measure("yaap", yaap, source="m_yaap.c", doc="yet another average precision"))
