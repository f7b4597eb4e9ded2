"""trec_eval's gain-based measures: ``binG``, ``G``, ``dcg``, ``ideal_dcg``, ``ndcg``, ``ndcg_rel``, ``Rndcg``,
``ndcg_cut``, ``rbp``, ``rbp_resid``, each a port of its ``m_*.c`` file of trec_eval 10.0.

Gains (``gain_init.c``'s ``setup_gains``, used by ``G``, the ``ndcg`` family and ``rbp``): ``-m ndcg.1=3,2=9``
gives relevance value 1 the gain 3 and value 2 the gain 9. A pair whose name is not a whole number (``p=0.8``)
is not a gain. Every value 0..L-1, L one more than the topic's highest judged value, that no pair names has
its own value as gain; a named value the topic's qrels lack (``4=4.5`` where the highest judgment is 2) is a
gain with no judged document; a value not in the list (a document not in the pool, -1, or in it and unjudged,
-2, unless a pair names them; a value above the topic's highest judgment) has gain 0. The relevance level
``-l`` plays no part in the gains. The ideal ranking is the list sorted by gain with C's ``qsort`` and walked
from its end: each value's gain repeated once per judged document of that value, then 0.

trec_eval quirks reproduced (each measure's docstring names its own):

* ``qsort``'s comparison is ``(int)(gain1 - gain2)``: gains less than 1 apart compare equal, so glibc's merge
  sort (stable) keeps them in their first order, pairs as given and then the unnamed values upward. With
  ``-m ndcg.1=0.5`` the list is [1: 0.5, 0: 0], the ideal ranking starts at gain 0 and ``ndcg`` is 0 for every
  topic (so it is in trec_eval); a difference of 2**31 or more is C's out-of-range conversion, ``INT_MIN``.
  :func:`_qsort` is glibc's ``msort`` with that comparison.
* ``get_gain`` returns the first entry for a value in that sorted list (a value named twice).
* ``G`` and the ``ndcg`` family stop the ideal ranking at its first gain that is not positive; a list sorted
  out of order by the comparison above may hold positive gains after it, which never count.
* C's ``log2`` is called for every discount (Python's :func:`math.log2`, the same libm function: numpy's own
  ``log2`` differs in the last bit for some arguments).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ._core import col
from ._rels import ResRels
from ._table import Measure, register

__all__ = ["setup_gains", "get_gains", "log2_ranks"]

_INT_MIN = -(2 ** 31)
_LONG_MIN, _LONG_MAX = -(2 ** 63), 2 ** 63 - 1
_VALID_INT = re.compile(r"[+-]?[0-9]+")

_log2_cache: list[float] = []


def log2_ranks(n: int) -> np.ndarray:
    """``log2(i + 2)`` for the 0-based ranks ``i < n`` (the discount of rank i + 1), C's ``log2`` values."""
    while len(_log2_cache) < n:
        _log2_cache.append(math.log2(len(_log2_cache) + 2))
    return np.array(_log2_cache[:n], dtype=np.float64)


def _c_log2(x: np.ndarray) -> np.ndarray:
    """glibc's ``log2`` element by element: -inf at 0, NaN (sign set, as x86 gives it) below 0 or at NaN."""
    out = np.empty(len(x))
    for k, v in enumerate(x.tolist()):
        out[k] = math.log2(v) if v > 0 else (-math.inf if v == 0 else -math.nan)
    return out


def _c_int(x: float) -> int:
    """C's ``(int)`` of a double on x86-64 (``cvttsd2si``): truncation toward 0; ``INT_MIN`` out of range or NaN."""
    if not -2147483649.0 < x < 2147483648.0:       # False for NaN too
        return _INT_MIN
    return int(x)


def _qsort(items: list, cmp) -> list:
    """glibc's ``qsort`` for trec_eval's small arrays (``msort_with_tmp``): a top-down merge sort, the first half
    ``n / 2`` elements, the left element taken while ``cmp(left, right) <= 0``."""
    n = len(items)
    if n <= 1:
        return list(items)
    a, b = _qsort(items[:n // 2], cmp), _qsort(items[n // 2:], cmp)
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if cmp(a[i], b[j]) <= 0:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]


def _comp_rel_gain(x: list, y: list) -> int:
    """gain_init.c's ``comp_rel_gain``: ``return gain1 - gain2;`` in a function returning ``int``."""
    return _c_int(x[1] - y[1])


def setup_gains(params, rel_levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """gain_init.c's ``setup_gains`` for one topic: ``(levels, gains, counts)`` in ``qsort``'s order.

    ``params``: the measure's (name, value) pairs; ``rel_levels``: judged documents per value 0..L-1 (L the
    topic's ``num_rel_levels``). The named values (names that ``valid_int`` accepts, ``atol``'s value) come
    first, in the given order, with no documents; then each value 0..L-1 gives its count to the first entry
    naming it, or is added with its own value as gain. Sorted by :func:`_comp_rel_gain`.
    """
    entries: list[list] = []
    for name, value in params:
        if not _VALID_INT.fullmatch(name):
            continue
        entries.append([min(max(int(name), _LONG_MIN), _LONG_MAX), float(value), 0])
    for i, n in enumerate(rel_levels.tolist()):
        for e in entries:
            if e[0] == i:
                e[2] = n
                break
        else:
            entries.append([i, float(i), n])
    ordered = _qsort(entries, _comp_rel_gain)
    return (np.array([e[0] for e in ordered], dtype=np.int64), np.array([e[1] for e in ordered], dtype=np.float64),
            np.array([e[2] for e in ordered], dtype=np.int64))


def get_gains(rels: np.ndarray, levels: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """gain_init.c's ``get_gain`` for each relevance value of ``rels``: the first sorted entry's gain, else 0."""
    out = np.zeros(len(rels))
    for lvl, g in zip(levels[::-1].tolist(), gains[::-1].tolist(), strict=True):   # the first match wins
        out[rels == lvl] = g
    return out


@dataclass
class _Topic:
    """One topic as the ``ndcg`` family's loops see it.

    ``rg``: ``get_gain`` at each retrieved rank. ``s[i]``: ``ideal_gain`` after step i of the ideal walk
    (``cur_level`` moving down the sorted gains), 0 once the list is spent. The loops run while the *previous*
    ideal gain is positive, starting from the top entry's gain (``started``): they execute steps 0..``k``, ``k``
    the first step whose gain is not positive; ``k`` is -1 when they never start. ``loop1``: the steps made in
    the first loop (over the ranking), ``min(k + 1, num_ret)``.
    """

    rg: np.ndarray
    s: np.ndarray
    init: float
    started: bool
    k: int
    loop1: int
    num_ret: int

    def ideal_terms(self, disc: np.ndarray) -> np.ndarray:
        """``ideal_gain / log2(i + 2)`` for the steps that add to ``ideal_dcg`` (``i < k``)."""
        return self.s[:max(self.k, 0)] / disc[:max(self.k, 0)]

    def result_terms(self, disc: np.ndarray) -> np.ndarray:
        """``results_gain / log2(i + 2)`` at each retrieved rank (0 where the gain is 0: not added)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.rg != 0, self.rg / disc[:self.num_ret], 0.0)


def _topics(rr: ResRels, params) -> list[_Topic]:
    out = []
    for t in range(rr.n_topics):
        levels, gains, counts = setup_gains(params, rr.rel_levels[t, :int(rr.num_rel_levels[t])])
        n = int(rr.num_ret[t])
        rg = get_gains(rr.rel[t, :n], levels, gains)
        ideal = np.repeat(gains[::-1], counts[::-1])
        s = np.concatenate([ideal, np.zeros(max(n - len(ideal), 0) + 1)])
        init = float(gains[-1]) if len(gains) else 0.0
        started = init > 0.0
        k = int(np.argmax(~(s > 0.0))) if started else -1
        out.append(_Topic(rg, s, init, started, k, min(k + 1, n), n))
    return out


def _width(tops: list[_Topic]) -> int:
    return max((len(x.s) for x in tops), default=0) + 1


def _csum(x: np.ndarray) -> np.ndarray:
    """Running sums along the last axis from C's ``sum = 0.0``: each ``0.0 + x[0] + x[1] ...`` in order
    (numpy's ``cumsum`` starts from ``x[0]``, which keeps a -0.0 that ``0.0 + -0.0`` turns into 0.0)."""
    x = np.asarray(x, dtype=np.float64)
    zero = np.zeros(x.shape[:-1] + (1,))
    return np.cumsum(np.concatenate([zero, x], axis=-1), axis=-1)[..., 1:]


def _rsum(x: np.ndarray) -> np.ndarray:
    """The running sum of each row from ``sum = 0.0`` (0.0 for an empty row): what the C loop ends with."""
    x = np.asarray(x, dtype=np.float64)
    zero = np.zeros(x.shape[:-1] + (1,))
    return np.cumsum(np.concatenate([zero, x], axis=-1), axis=-1)[..., -1]


# -- binG ----------------------------------------------------------------------------------------------------------

def bin_g(rr: ResRels, params) -> np.ndarray:
    """m_binG.c: binary G. For the n-th relevant document retrieved (rank i + 1, i from 0) add
    ``1 / log2(3 + i - n)``, i.e. ``1 / log2(2 + nonrelevant documents above it)``; the sum over num_rel, 0 with
    no relevant document retrieved. Relevance by ``-l``; no gains."""
    rel = rr.relevant()
    rsf = np.cumsum(rel, axis=1)
    disc = log2_ranks(rr.width + 1)
    j = np.arange(rr.width)[None, :] + 1 - rsf                 # 3 + i - rel_so_far = j + 2, j >= 0
    total = _rsum(np.where(rel, 1.0 / disc[np.clip(j, 0, None)], 0.0))
    found = rsf[:, -1] > 0 if rr.width else np.zeros(rr.n_topics, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(found, total / rr.num_rel, 0.0))


# -- G -------------------------------------------------------------------------------------------------------------

def g_measure(rr: ResRels, params) -> np.ndarray:
    """m_G.c: Sakai's G. At each retrieved rank i (0-based) ``sum_results`` adds the document's gain and
    ``sum_cost`` the ideal gain at that step if it is at least 1, else 1 (1 once the ideal walk has stopped);
    a document with a nonzero gain adds ``gain / log2(2 + sum_cost - sum_results)``. Divided by ``sum_ideal``,
    the sum of the positive ideal gains; 0 when that is not positive. Quirk: a result gain above the cost makes
    the ``log2`` argument not positive (-inf, NaN), as in C."""
    tops = _topics(rr, params)
    out = np.zeros(rr.n_topics)
    for t, x in enumerate(tops):
        cost = np.ones(x.num_ret)
        head = x.s[:x.loop1]
        cost[:x.loop1] = np.where(head >= 1.0, head, 1.0)
        arg = (2.0 + _csum(cost)) - _csum(x.rg)
        nz = x.rg != 0
        with np.errstate(divide="ignore", invalid="ignore"):
            results_g = _rsum(x.rg[nz] / _c_log2(arg[nz]))
            sum_ideal = _rsum(x.s[:max(x.k, 0)])
            if sum_ideal > 0.0:
                out[t] = results_g / sum_ideal
    return col(out)


# -- dcg, ideal_dcg, ndcg ------------------------------------------------------------------------------------------

def _dcgs(rr: ResRels, params) -> tuple[np.ndarray, np.ndarray]:
    """m_ndcg.c's ``results_dcg`` and ``ideal_dcg`` per topic."""
    tops = _topics(rr, params)
    disc = log2_ranks(_width(tops))
    dcg = np.array([_rsum(x.result_terms(disc)) for x in tops], dtype=np.float64)
    ideal = np.array([_rsum(x.ideal_terms(disc)) for x in tops], dtype=np.float64)
    return dcg, ideal


def dcg(rr: ResRels, params) -> np.ndarray:
    """m_ndcg.c (``dcg``): the sum over retrieved ranks i (0-based) of ``gain / log2(i + 2)`` (Jarvelin and
    Kekalainen 2002), gains as ``setup_gains`` sets them."""
    return col(_dcgs(rr, params)[0])


def ideal_dcg(rr: ResRels, params) -> np.ndarray:
    """m_ndcg.c (``ideal_dcg``): the same sum over the ideal ranking, every judged document sorted by gain,
    down to its first gain that is not positive."""
    return col(_dcgs(rr, params)[1])


def ndcg(rr: ResRels, params) -> np.ndarray:
    """m_ndcg.c (``ndcg``): ``dcg / ideal_dcg`` over the whole ranking (no cutoff); 0 when ``ideal_dcg`` is not
    positive. Quirk: ``-m ndcg.1=0.5`` sorts gain 0.5 below 0 (see the module docstring) and gives 0."""
    d, i = _dcgs(rr, params)
    with np.errstate(divide="ignore", invalid="ignore"):
        return col(np.where(i > 0.0, d / i, 0.0))


# -- ndcg_rel --------------------------------------------------------------------------------------------------------

def ndcg_rel(rr: ResRels, params) -> np.ndarray:
    """m_ndcg_rel.c: nDCG averaged over the relevant documents. At each retrieved document with a positive
    gain, add ``dcg / ideal_dcg`` at its rank (the ideal sum stops growing where the ideal walk stops); every
    one of the ``num_rel`` ideal positions (positive ideal gains) not matched by such a document adds the final
    ``dcg / ideal_dcg`` (``(num_rel - num_rel_ret) * dcg / ideal_dcg``); the sum over ``num_rel``, 0 when the
    sum is not positive. Quirk: a positive gain where the ideal sum is still 0 (a pair naming -1) adds
    ``x / 0``, infinite or NaN, as in C."""
    tops = _topics(rr, params)
    disc = log2_ranks(_width(tops))
    out = np.zeros(rr.n_topics)
    with np.errstate(divide="ignore", invalid="ignore"):
        for t, x in enumerate(tops):
            n = x.num_ret
            rcum = _csum(x.result_terms(disc))
            iterms = np.zeros(max(n, x.k, 0) + 1)
            iterms[:max(x.k, 0)] = x.ideal_terms(disc)
            icum = _csum(iterms)
            pos = x.rg > 0
            s = _rsum(rcum[pos] / icum[:n][pos])
            num_rel = np.float64(max(x.k, 0))
            num_rel_ret = np.float64(int(pos.sum()))
            final_r = rcum[-1] if n else np.float64(0.0)
            s = s + ((num_rel - num_rel_ret) * final_r) / icum[-1]
            if s > 0.0:
                out[t] = s / num_rel
    return col(out)


# -- Rndcg -----------------------------------------------------------------------------------------------------------

def rndcg(rr: ResRels, params) -> np.ndarray:
    """m_Rndcg.c: nDCG averaged at the ranks where the ideal gain changes. Each time a step of the ideal walk
    changes the ideal gain (the first step compared with the top entry's gain), ``dcg / ideal_dcg`` *before*
    that rank is added if ``ideal_dcg`` is positive and counted; if the ranking outlasts the walk, the final
    ``dcg / ideal_dcg`` is added and counted once more. The sum over the count; 0 with no relevant document
    (num_rel by ``-l``). Quirk: a count of 0 (every gain 0 or below) gives C's ``0.0 / 0``, printed ``-nan``."""
    tops = _topics(rr, params)
    disc = log2_ranks(_width(tops))
    out = np.zeros(rr.n_topics)
    with np.errstate(divide="ignore", invalid="ignore"):
        for t, x in enumerate(tops):
            if rr.num_rel[t] == 0:
                continue
            n = x.num_ret
            # dcg and ideal_dcg before each step i: the running sums of the earlier terms
            rbefore = np.concatenate([[0.0], _csum(x.result_terms(disc))])
            m = max(n, x.k, 0) + 1
            iterms = np.zeros(m)
            iterms[:max(x.k, 0)] = x.ideal_terms(disc)
            ibefore = np.concatenate([[0.0], _csum(iterms)])
            steps = np.arange(x.k + 1)                                    # steps 0..k (none if not started)
            prev = np.concatenate([[x.init], x.s])[:x.k + 1]              # old_ideal_gain before each step
            cur = x.s[:x.k + 1]
            changed = steps[(prev != cur) & (ibefore[steps] > 0.0)]
            rb = rbefore[np.minimum(changed, n)]
            terms = rb / ibefore[changed]
            count = len(changed)
            if x.loop1 < n:                                               # the second loop ran
                if ibefore[m] > 0.0:
                    terms = np.append(terms, rbefore[n] / ibefore[m])
                    count += 1
            out[t] = _rsum(terms) / np.float64(count)
    return col(out)


# -- ndcg_cut --------------------------------------------------------------------------------------------------------

def ndcg_cut(rr: ResRels, params) -> np.ndarray:
    """m_ndcg_cut.c: nDCG at each cutoff k. The gain is the relevance value itself (only values above 0 add;
    no gain parameters, and ``-l`` plays no part): the dcg of the first min(k, num_ret) ranks over the dcg of
    the ideal ranking's first k ranks (every judged document of value 1 or more, highest value first). Quirk:
    where the ideal dcg is 0 the dcg is left undivided (it is 0 there too)."""
    cuts = np.asarray(params, dtype=np.int64)
    disc = log2_ranks(rr.width)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(rr.rel > 0, rr.rel.astype(np.float64) / disc[None, :], 0.0)
    cum = _csum(terms)
    dcgs = np.stack([rr.at(cum, np.minimum(c, rr.num_ret)) for c in cuts.tolist()], axis=1).astype(np.float64)
    reach = int(cuts.max()) if len(cuts) else 0
    ideal_rows = []
    for t in range(rr.n_topics):
        top = int(rr.num_rel_levels[t])
        lv = np.arange(top - 1, 0, -1, dtype=np.int64)
        ideal_rows.append(np.repeat(lv, rr.rel_levels[t, lv])[:reach])
    n_ideal = np.array([len(r) for r in ideal_rows], dtype=np.int64)
    iw = int(n_ideal.max()) if rr.n_topics else 0
    imat = np.zeros((rr.n_topics, iw))
    for t, r in enumerate(ideal_rows):
        imat[t, :len(r)] = r
    icum = _csum(imat / log2_ranks(iw)[None, :])
    ideals = np.stack([_at(icum, np.minimum(c, n_ideal)) for c in cuts.tolist()], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideals > 0.0, dcgs / ideals, dcgs)


def _at(values: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """``values[t, cut[t] - 1]`` per row, 0.0 where the cut is 0."""
    if values.shape[1] == 0:
        return np.zeros(values.shape[0])
    got = values[np.arange(values.shape[0]), np.clip(cut - 1, 0, None)]
    return np.where(cut > 0, got, 0.0)


# -- rbp, rbp_resid ----------------------------------------------------------------------------------------------------

def _rbp_p(params) -> float:
    """m_rbp.c's persistence: the last pair named ``p`` (``-m rbp.p=0.8``), else 0.9."""
    p = 0.9
    for name, value in params:
        if name == "p":
            p = float(value)
    return p


def _powers(p: float, n: int) -> np.ndarray:
    """``cur_p`` before each of the ranks 0..n: 1, then multiplied by p once per rank (C's order)."""
    return np.cumprod(np.concatenate([[1.0], np.full(n, p)]))


def rbp(rr: ResRels, params) -> np.ndarray:
    """m_rbp.c: rank-biased precision (Moffat and Zobel 2008), ``(1 - p) * sum gain_i * p**i`` (i from 0),
    ``p`` from ``-m rbp.p=0.95`` (default 0.9), gains as ``setup_gains`` sets them and rescaled to
    ``(g - min) / (max - min)`` when one lies outside [0, 1] (the default 0..2 levels become 0, 0.5, 1).
    A value with no entry (not in the pool, unjudged) has gain 0, not rescaled.

    Quirk: m_rbp.c never initialises ``min`` and ``max`` before taking them over the gains. In trec_eval 10.0's
    build they hold what the stack held; with ``-m rbp`` alone or within ``-m all_trec`` that is a tiny positive
    number (a pointer's bits), which acts as 0: here both start at 0. A measure computed just before ``rbp``
    can leave a real number there (``-m rbp -m ndcg``: ``max`` starts near ndcg's last ``ideal_dcg``), and
    trec_eval's ``rbp`` then differs from this one."""
    p = _rbp_p(params)
    cur_p = _powers(p, rr.width)
    gmat = np.zeros((rr.n_topics, rr.width))
    cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for t in range(rr.n_topics):
        nl = int(rr.num_rel_levels[t])
        if nl not in cache:
            levels, gains, _ = setup_gains(params, np.zeros(nl, dtype=np.int64))
            lo = hi = 0.0
            for g in gains.tolist():
                if g < lo:
                    lo = g
                if g > hi:
                    hi = g
            if lo < 0 or hi > 1:
                with np.errstate(divide="ignore", invalid="ignore"):
                    gains = (gains - lo) / (hi - lo)
            cache[nl] = (levels, gains)
        levels, gains = cache[nl]
        n = int(rr.num_ret[t])
        gmat[t, :n] = get_gains(rr.rel[t, :n], levels, gains)
    with np.errstate(invalid="ignore"):
        terms = np.where(gmat != 0, gmat * cur_p[None, :rr.width], 0.0)
    return col((1.0 - p) * _rsum(terms))


def rbp_resid(rr: ResRels, params) -> np.ndarray:
    """m_rbp_resid.c: rbp's residual, the most the unjudged documents could add: ``p**num_ret + (1 - p) *
    sum p**i`` over the retrieved documents not judged (not in the pool, or in it and unjudged); 0 with none.
    Quirk, reproduced by the engine (:func:`~._engine._clean_bogus`, hence ``bogus_zero``): trec_eval's ``-c``
    clean-up sets a stand-in topic's value to 0 only when it is named ``rbp_resid``, so with parameters
    (``rbp_resid_p=0.8``) the stand-in topic keeps its value, 1.0 (one unjudged document: ``p + (1 - p)``)."""
    p = _rbp_p(params)
    cur_p = _powers(p, rr.width)
    unj = rr.retrieved() & (rr.rel < 0)
    total = _rsum(np.where(unj, cur_p[None, :rr.width], 0.0))
    return col(np.where(unj.any(axis=1), cur_p[rr.num_ret] + (1.0 - p) * total, 0.0))


_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

register(Measure("binG", bin_g, source="m_binG.c", doc="binary G"))
register(Measure("G", g_measure, params="pair", source="m_G.c", doc="Sakai's G with gains"))
register(Measure("dcg", dcg, params="pair", source="m_ndcg.c", doc="discounted cumulative gain"))
register(Measure("ideal_dcg", ideal_dcg, params="pair", source="m_ndcg.c", doc="ideal discounted cumulative gain"))
register(Measure("ndcg", ndcg, params="pair", source="m_ndcg.c", doc="normalized discounted cumulative gain"))
register(Measure("ndcg_rel", ndcg_rel, params="pair", source="m_ndcg_rel.c",
                 doc="nDCG averaged over the relevant documents"))
register(Measure("Rndcg", rndcg, params="pair", source="m_Rndcg.c",
                 doc="nDCG averaged where the ideal gain changes"))
register(Measure("ndcg_cut", ndcg_cut, params="cut_long", default=_CUTS, source="m_ndcg_cut.c",
                 doc="nDCG at cutoffs"))
register(Measure("rbp", rbp, params="pair", source="m_rbp.c", doc="rank-biased precision"))
register(Measure("rbp_resid", rbp_resid, params="pair", bogus_zero=True, source="m_rbp_resid.c",
                 doc="rank-biased precision's residual"))
