"""Slow, literal reference implementations of every metric, for one ranked list.

Written straight from the equations (Sakai 2007 = 003 Sec. 3 Eq. 1-7,
001 Sec. 2, 004 Sec. 4.1) and the project's metric spec, with plain Python
loops over ranks and no numpy, so that a reader can check each line against
the paper. The vectorised kernels in ``evalcore.metrics`` are compared with
these functions on random collections (tests/test_metrics_reference.py).

Conventions (every function):

* ``levels`` is the ranked list as relevance levels, rank 1 first
  (0 = non-relevant or unjudged). Ranks beyond the end of the list hold
  non-relevant padding.
* ``counts[L]`` is the number of judged documents of level L for the topic
  (``counts[0]``: judged non-relevant); K = len(counts) - 1.
* ``gains`` is None (gain(L) = L), a sequence of gains of levels 1..K in
  ascending order (L1 first), or a string in paper notation, highest level
  first ("3:2:1" = gain(S)=3, gain(A)=2, gain(B)=1 when K = 3).
* ``penalties`` likewise: None gives penalty(L) = K - L + 2.
* Ranks are 1-based, as in the papers.
"""
from __future__ import annotations

import math

__all__ = [
    "gain_values", "penalty_values", "ideal_levels",
    "ref_average_precision", "ref_q_measure", "ref_r_measure", "ref_awp", "ref_r_precision",
    "ref_reciprocal_rank", "ref_o_measure", "ref_wrr", "ref_nwrr", "ref_p_measure",
    "ref_p_plus_measure", "ref_ndcg", "ref_msndcg", "ref_ncg", "ref_andcg", "ref_ancg",
    "ref_nerr", "ref_precision", "ref_hit", "ref_rbp", "ref_rbp_residual", "REFERENCES", "reference_matrix",
]


# --------------------------------------------------------------------------
# parameters
# --------------------------------------------------------------------------
def gain_values(gains, K):
    """gain(L) for L = 0..K as a list (gain(0) = 0)."""
    if gains is None:
        g = [float(L) for L in range(1, K + 1)]
    elif isinstance(gains, str):
        hi_first = [float(v) for v in gains.split(":")]
        g = list(reversed(hi_first))
    else:
        g = [float(v) for v in gains]
    assert len(g) == K, (gains, K)
    return [0.0] + g


def penalty_values(penalties, K):
    """penalty(L) for L = 1..K as a dict."""
    if penalties is None:
        p = [float(K - L + 2) for L in range(1, K + 1)]
    elif isinstance(penalties, str):
        p = list(reversed([float(v) for v in penalties.split(":")]))
    else:
        p = [float(v) for v in penalties]
    assert len(p) == K
    return {L: p[L - 1] for L in range(1, K + 1)}


def _K(counts):
    return len(counts) - 1


def _level(levels, r):
    """Level of the document at rank r (1-based); padding beyond the list is 0."""
    return int(levels[r - 1]) if r <= len(levels) else 0


def _R(counts):
    return sum(counts[L] for L in range(1, _K(counts) + 1))


def _R_b(counts, t):
    return sum(counts[L] for L in range(1, _K(counts) + 1) if L >= t)


def ideal_levels(counts, gains=None):
    """The ideal list: every relevant document, highest gain first.

    Ties in gain keep the higher level first (it does not change cg_I).
    """
    K = _K(counts)
    g = gain_values(gains, K)
    docs = []
    for L in range(1, K + 1):
        docs += [L] * int(counts[L])
    return sorted(docs, key=lambda L: (-g[L], -L))


def _prefix(levels, n, f):
    """[f-sum at rank 0, at rank 1, ..., at rank n] for a per-level weight f."""
    out = [0.0]
    for r in range(1, n + 1):
        out.append(out[-1] + f(_level(levels, r)))
    return out


def _graded_prefixes(levels, counts, gains, n):
    """cg(r), count(r), cg_I(r) for r = 0..n (index = rank)."""
    g = gain_values(gains, _K(counts))
    cg = _prefix(levels, n, lambda L: g[L])
    count = _prefix(levels, n, lambda L: 1.0 if L >= 1 else 0.0)
    ideal = ideal_levels(counts, gains)
    cg_I = _prefix(ideal, n, lambda L: g[L])
    return g, cg, count, cg_I


def _BR(r, cg, count, cg_I, beta):
    """Blended ratio, 003 Eq. (2) in the beta form of 001."""
    return (beta * cg[r] + count[r]) / (beta * cg_I[r] + r)


def _last_rank(levels, cutoff):
    return len(levels) if cutoff is None else min(len(levels), cutoff)


# --------------------------------------------------------------------------
# recall-oriented metrics
# --------------------------------------------------------------------------
def ref_average_precision(levels, counts, *, rel_threshold=1, cutoff=None):
    """003 Eq. (1) with isrel = level >= rel_threshold; cutoff l: r <= l, divide by min(R, l)."""
    R = _R_b(counts, rel_threshold)
    if R == 0:
        return 0.0
    total = 0.0
    count = 0
    for r in range(1, _last_rank(levels, cutoff) + 1):
        if _level(levels, r) >= rel_threshold:
            count += 1
            total += count / r
    return total / (R if cutoff is None else min(R, cutoff))


def ref_q_measure(levels, counts, *, gains=None, beta=1.0, cutoff=None):
    """003 Eq. (2): (1/R) sum_r isrel(r) BR(r); cutoff l: r <= l, divide by min(R, l)."""
    R = _R(counts)
    n = _last_rank(levels, cutoff)
    g, cg, count, cg_I = _graded_prefixes(levels, counts, gains, n)
    total = 0.0
    for r in range(1, n + 1):
        if _level(levels, r) >= 1:
            total += _BR(r, cg, count, cg_I, beta)
    return total / (R if cutoff is None else min(R, cutoff))


def ref_r_measure(levels, counts, *, gains=None, beta=1.0):
    """001 Sec. 2.3: R-measure = BR(R)."""
    R = _R(counts)
    g, cg, count, cg_I = _graded_prefixes(levels, counts, gains, R)
    return _BR(R, cg, count, cg_I, beta)


def ref_awp(levels, counts, *, gains=None, cutoff=None):
    """001 Sec. 2.2: (1/R) sum_r isrel(r) cg(r)/cg_I(r); cutoff l: r <= l, divide by min(R, l)."""
    R = _R(counts)
    n = _last_rank(levels, cutoff)
    g, cg, count, cg_I = _graded_prefixes(levels, counts, gains, n)
    total = 0.0
    for r in range(1, n + 1):
        if _level(levels, r) >= 1:
            total += cg[r] / cg_I[r]
    return total / (R if cutoff is None else min(R, cutoff))


def ref_r_precision(levels, counts, *, rel_threshold=1):
    """count_b(R_b) / R_b (trec_eval Rprec)."""
    R = _R_b(counts, rel_threshold)
    if R == 0:
        return 0.0
    return sum(1 for r in range(1, R + 1) if _level(levels, r) >= rel_threshold) / R


# --------------------------------------------------------------------------
# one-document metrics (003 Sec. 3.2-3.3)
# --------------------------------------------------------------------------
def _first(levels, cutoff, threshold=1):
    """r_1: first rank with level >= threshold within the cutoff, or None."""
    for r in range(1, _last_rank(levels, cutoff) + 1):
        if _level(levels, r) >= threshold:
            return r
    return None


def _preferred(levels, cutoff):
    """r_p: the first rank holding the highest level present in the list (003 Sec. 3.3)."""
    n = _last_rank(levels, cutoff)
    best = 0
    for r in range(1, n + 1):
        best = max(best, _level(levels, r))
    if best == 0:
        return None
    for r in range(1, n + 1):
        if _level(levels, r) == best:
            return r


def ref_reciprocal_rank(levels, counts, *, rel_threshold=1, cutoff=None):
    r1 = _first(levels, cutoff, rel_threshold)
    return 0.0 if r1 is None else 1.0 / r1


def ref_o_measure(levels, counts, *, gains=None, beta=1.0, cutoff=None):
    """003 Eq. (3): BR(r_1)."""
    r1 = _first(levels, cutoff)
    if r1 is None:
        return 0.0
    g, cg, count, cg_I = _graded_prefixes(levels, counts, gains, r1)
    return _BR(r1, cg, count, cg_I, beta)


def ref_wrr(levels, counts, *, penalties=None, cutoff=None):
    """003 Eq. (4): 1 / (r_1 - 1/penalty(L_1))."""
    r1 = _first(levels, cutoff)
    if r1 is None:
        return 0.0
    p = penalty_values(penalties, _K(counts))
    return 1.0 / (r1 - 1.0 / p[_level(levels, r1)])


def ref_nwrr(levels, counts, *, penalties=None, cutoff=None):
    """003 Eq. (5): (1 - 1/penalty(M)) / (r_1 - 1/penalty(L_1)), M the topic's highest level."""
    r1 = _first(levels, cutoff)
    if r1 is None:
        return 0.0
    K = _K(counts)
    p = penalty_values(penalties, K)
    M = max(L for L in range(1, K + 1) if counts[L] > 0)
    return (1.0 - 1.0 / p[M]) / (r1 - 1.0 / p[_level(levels, r1)])


def ref_p_measure(levels, counts, *, gains=None, beta=1.0, cutoff=None):
    """003 Eq. (6): BR(r_p)."""
    rp = _preferred(levels, cutoff)
    if rp is None:
        return 0.0
    g, cg, count, cg_I = _graded_prefixes(levels, counts, gains, rp)
    return _BR(rp, cg, count, cg_I, beta)


def ref_p_plus_measure(levels, counts, *, gains=None, beta=1.0, cutoff=None):
    """003 Eq. (7): (1/count(r_p)) sum_{r <= r_p} isrel(r) BR(r)."""
    rp = _preferred(levels, cutoff)
    if rp is None:
        return 0.0
    g, cg, count, cg_I = _graded_prefixes(levels, counts, gains, rp)
    total = 0.0
    for r in range(1, rp + 1):
        if _level(levels, r) >= 1:
            total += _BR(r, cg, count, cg_I, beta)
    return total / count[rp]


# --------------------------------------------------------------------------
# cumulative-gain family (Jarvelin & Kekalainen; 004) and friends
# --------------------------------------------------------------------------
def _jk_disc(r, b):
    """Jarvelin-Kekalainen discount: 1 for r < b, log_b(r) for r >= b."""
    return 1.0 if r < b else math.log(r) / math.log(b)


def _ms_disc(r):
    return math.log2(r + 1)


def _dcg(levels, g, k, disc):
    return sum(g[_level(levels, r)] / disc(r) for r in range(1, k + 1))


def _normalised(levels, counts, gains, k, disc):
    g = gain_values(gains, _K(counts))
    ideal = ideal_levels(counts, gains)
    return _dcg(levels, g, k, disc) / _dcg(ideal, g, k, disc)


def ref_ndcg(levels, counts, *, gains=None, cutoff, log_base=2):
    return _normalised(levels, counts, gains, cutoff, lambda r: _jk_disc(r, log_base))


def ref_msndcg(levels, counts, *, gains=None, cutoff):
    return _normalised(levels, counts, gains, cutoff, _ms_disc)


def ref_ncg(levels, counts, *, gains=None, cutoff):
    return _normalised(levels, counts, gains, cutoff, lambda r: 1.0)


def _averaged(levels, counts, gains, k, disc):
    """(1/k) sum_{r=1..k} DCG(r)/DCG_I(r), with DCG(r) and DCG_I(r) as running sums."""
    g = gain_values(gains, _K(counts))
    ideal = ideal_levels(counts, gains)
    dcg = dcg_I = total = 0.0
    for r in range(1, k + 1):
        dcg += g[_level(levels, r)] / disc(r)
        dcg_I += g[_level(ideal, r)] / disc(r)
        total += dcg / dcg_I
    return total / k


def ref_andcg(levels, counts, *, gains=None, cutoff, log_base=2):
    """AnDCG@l = (1/l) sum_{r=1..l} nDCG@r (Jarvelin-Kekalainen discount)."""
    return _averaged(levels, counts, gains, cutoff, lambda r: _jk_disc(r, log_base))


def ref_ancg(levels, counts, *, gains=None, cutoff):
    """AnCG@l = (1/l) sum_{r=1..l} nCG@r."""
    return _averaged(levels, counts, gains, cutoff, lambda r: 1.0)


def _err(levels, g, gK, k):
    total = 0.0
    not_stopped = 1.0
    for r in range(1, k + 1):
        p = g[_level(levels, r)] / (gK + 1.0)
        total += not_stopped * p / r
        not_stopped *= 1.0 - p
    return total


def ref_nerr(levels, counts, *, gains=None, cutoff):
    """nERR@l: p(r) = g(r)/(max gain + 1), normalised by the ideal list's ERR (a probability for any gains).

    For gains ascending in the level max gain = gain(K): NTCIREVAL's nERR."""
    K = _K(counts)
    g = gain_values(gains, K)
    gmax = max(g[1:]) if K else 0.0
    return _err(levels, g, gmax, cutoff) / _err(ideal_levels(counts, gains), g, gmax, cutoff)


def ref_precision(levels, counts, *, cutoff, rel_threshold=1):
    return sum(1 for r in range(1, cutoff + 1) if _level(levels, r) >= rel_threshold) / cutoff


def ref_hit(levels, counts, *, cutoff, rel_threshold=1):
    return 1.0 if any(_level(levels, r) >= rel_threshold for r in range(1, cutoff + 1)) else 0.0


def ref_rbp(levels, counts, *, cutoff, p=0.8, rel_threshold=1):
    """RBP(p)@k = (1 - p) sum_{r=1..k} rel(r) p^(r-1), rel(r) = 1 at level >= rel_threshold
    (Moffat & Zobel 2008)."""
    total = 0.0
    for r in range(1, cutoff + 1):
        if _level(levels, r) >= rel_threshold:
            total += (1 - p) * p ** (r - 1)
    return total


def ref_rbp_residual(levels, counts, *, cutoff, p=0.8, unjudged=()):
    """(1 - p) sum_{r <= k, r unjudged} p^(r-1) + p^k; ``unjudged``: the unjudged ranks (1-based)."""
    total = p ** cutoff
    for r in range(1, cutoff + 1):
        if r in unjudged:
            total += (1 - p) * p ** (r - 1)
    return total


#: metric key -> (reference function, name of the evalcore.metrics kernel, parameters it takes)
REFERENCES = {
    "AP": (ref_average_precision, "average_precision", ("rel_threshold", "cutoff")),
    "Q-measure": (ref_q_measure, "q_measure", ("gains", "beta", "cutoff")),
    "R-measure": (ref_r_measure, "r_measure", ("gains", "beta")),
    "AWP": (ref_awp, "awp", ("gains", "cutoff")),
    "R-Prec": (ref_r_precision, "r_precision", ("rel_threshold",)),
    "RR": (ref_reciprocal_rank, "reciprocal_rank", ("rel_threshold", "cutoff")),
    "O-measure": (ref_o_measure, "o_measure", ("gains", "beta", "cutoff")),
    "WRR": (ref_wrr, "wrr", ("penalties", "cutoff")),
    "NWRR": (ref_nwrr, "nwrr", ("penalties", "cutoff")),
    "P-measure": (ref_p_measure, "p_measure", ("gains", "beta", "cutoff")),
    "P+-measure": (ref_p_plus_measure, "p_plus_measure", ("gains", "beta", "cutoff")),
    "nDCG": (ref_ndcg, "ndcg", ("gains", "cutoff!", "log_base")),
    "MSnDCG": (ref_msndcg, "msndcg", ("gains", "cutoff!")),
    "nCG": (ref_ncg, "ncg", ("gains", "cutoff!")),
    "AnDCG": (ref_andcg, "andcg", ("gains", "cutoff!", "log_base")),
    "AnCG": (ref_ancg, "ancg", ("gains", "cutoff!")),
    "nERR": (ref_nerr, "nerr", ("gains", "cutoff!")),
    "P": (ref_precision, "precision", ("cutoff!", "rel_threshold")),
    "Hit": (ref_hit, "hit", ("cutoff!", "rel_threshold")),
    "RBP": (ref_rbp, "rbp", ("cutoff!", "p", "rel_threshold")),
}


def params_for(key, **params):
    """The subset of ``params`` metric ``key`` takes (``cutoff!`` = required cutoff)."""
    names = [n.rstrip("!") for n in REFERENCES[key][2]]
    return {n: params[n] for n in names if n in params}


def reference_matrix(collection, key, **params):
    """The reference value for every (run, topic) of an evalcore Collection, as nested lists."""
    func = REFERENCES[key][0]
    kw = params_for(key, **params)
    out = []
    for i in range(collection.n_runs):
        row = []
        for j in range(collection.n_topics):
            n = int(collection.lengths[i, j])
            levels = [int(v) for v in collection.levels[i, j, :n]]
            counts = [int(v) for v in collection.level_counts[j]]
            row.append(func(levels, counts, **kw))
        out.append(row)
    return out
