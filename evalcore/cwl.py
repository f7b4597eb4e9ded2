r"""The C/W/L measures of cwl_eval, as ir_measures 0.4.3 computes them (its ``cwl_eval`` provider, cwl-eval 1.0.12).

In the C/W/L framework (Moffat, Bailey, Scholer & Thomas 2017, "Incorporating user expectations and behavior
into the measurement of search effectiveness", ACM TOIS 35(3), Sec. 2) a measure is its user model: ``C(i)``,
the chance that a user who has read rank ``i`` goes on to rank ``i + 1``. Rank ``i`` is then read with weight

.. math:: W(i) = \frac{\prod_{j<i} C(j)}{\sum_{k=1}^{N} \prod_{j<k} C(j)}, \qquad
          EU = \sum_{i=1}^{N} W(i)\, g(i)

and the measure is EU, the expected gain per document read. cwl_eval (Azzopardi, Thomas & Moffat 2019,
"cwl_eval: An evaluation tool for information retrieval", SIGIR '19 demo) computes it with these conventions,
which every kernel here follows (read from cwl's ``ruler/ranking.py``, ``ruler/measures/*.py`` and
ir_measures' ``providers/cwl_eval.py``):

* **N = 1000 ranks.** Every list is padded with gain 0 to 1000 ranks and cut there (``RankingMaker(max_n=
  1000)``), and ``W`` is normalised over those 1000 ranks: RBP's weights are
  :math:`p^{i-1}(1-p)/(1-p^{1000})`, not Moffat & Zobel's :math:`(1-p)p^{i-1}`. Ranks past 1000 are never read.
* **Gains.** ir_measures clips a label to ``[min_rel, max_rel]`` (a negative label to 0 first) and scales it to
  ``g = (label - min_rel) / (max_rel - min_rel)``: a label above ``max_rel`` gains 1, as ``max_rel`` does, and a
  label at or below ``min_rel`` gains 0. RBP takes ``rel`` instead: g = 1 for a label >= rel, else 0. A document
  without a qrels entry gains 0 (cwl_eval's "worse case"); with ``min_rel < 0`` a judged non-relevant document
  gains ``-min_rel / (max_rel - min_rel)`` and an unjudged one still 0. Every document costs 1.
* **Order.** ir_measures sorts a topic's documents with Python's stable sort on the score alone: score
  descending in double precision, ties in the run's own order (the order of a file's lines, of a dict's or a
  DataFrame's rows) - neither trec_eval's order (ties by document id descending) nor that of ir_measures'
  msmarco and judged providers (ascending). The loader records it (:attr:`Collection.input_order`); a
  collection built by hand, or read in rank or file order, is read as it is.
* **Topics.** Every qrels topic: a topic missing from a run scores 0 (ir_measures' default value), a topic of
  the run that is not in the qrels is left out, and a topic without a relevant document scores 0 whenever
  ``min_rel >= 0`` (every gain is 0); with ``min_rel < 0`` it is computed like the others.

Each kernel returns a float64 array of shape ``(n_runs, n_topics)``. ``max_rel=None`` (evalcore's names only;
ir_measures requires it) is the collection's highest level.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .collection import Collection
from .metrics import check_cutoff, check_threshold

__all__ = ["N_RANKS", "cwl_gains", "expected_utility", "rbp", "sdcg", "bpm", "inst", "insq", "nerr8", "nerr9",
           "nerr10", "nerr11"]

#: cwl_eval's ranks: every list is padded with gain 0 to this depth and cut there (``RankingMaker(max_n=1000)``)
N_RANKS = 1000
#: (runs x topics x ranks) float64 cells one gain-dependent pass materialises at once (8 MiB an array)
_CHUNK_CELLS = 1 << 20


def _check_goal(goal) -> float:
    T = float(goal)
    if not np.isfinite(T) or T <= 0:
        raise ValueError(f"T (goal) must be a finite number > 0; got {goal!r}")
    return T


def _check_unit(name: str, x) -> float:
    v = float(x)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be in [0, 1]; got {x!r}")
    return v


def _label_range(c: Collection, min_rel, max_rel) -> tuple[int, int]:
    lo = 0 if min_rel is None else min_rel
    hi = c.max_level if max_rel is None else max_rel
    for name, v in (("min_rel", lo), ("max_rel", hi)):
        if isinstance(v, bool) or not float(v).is_integer():
            raise ValueError(f"{name} must be a whole relevance label; got {v!r}")
    if int(hi) <= int(lo):
        raise ValueError(f"max_rel must be above min_rel (ir_measures' cwl_eval provider scales labels to "
                         f"(label - min_rel) / (max_rel - min_rel)); got min_rel={int(lo)}, max_rel={int(hi)}")
    return int(lo), int(hi)


def cwl_gains(c: Collection, *, min_rel: int = 0, max_rel: int | None = None, rel_threshold: int | None = None,
              depth: int = N_RANKS) -> np.ndarray:
    """The gains cwl_eval reads, shape ``(n_runs, n_topics, min(c.depth, depth))``, lists in cwl_eval's order
    (:meth:`Collection.in_order` ``"input"``): ``(clip(label, min_rel, max_rel) - min_rel) / (max_rel - min_rel)``,
    or with ``rel_threshold`` 1 for a label >= it and 0 otherwise; 0 for an unjudged document and past the end
    of a list (module doc).

    >>> c = Collection.from_lists({"s": {"t": [3, 0, 1]}}, {"t": [1, 1, 0, 1]})
    >>> cwl_gains(c, max_rel=2)[0, 0].tolist()
    [1.0, 0.0, 0.5]
    """
    c = c.in_order("input")
    lv = c.levels[:, :, :depth]
    if rel_threshold is not None:
        t = check_threshold(c, rel_threshold)
        return (lv >= t).astype(np.float64)
    lo, hi = _label_range(c, min_rel, max_rel)
    # as ir_measures computes it, in Python: (min(max(label, min_rel), max_rel) - min_rel) / (max_rel - min_rel)
    table = (np.clip(np.arange(c.max_level + 1), lo, hi) - lo) / float(hi - lo)
    g = table[lv]
    if table[0] > 0:    # min_rel < 0: a judged level-0 document gains; an unjudged one and the padding do not
        off = np.arange(lv.shape[2])[None, None, :] >= c.lengths[:, :, None]
        if c.unjudged is not None:
            off |= c.unjudged[:, :, :depth]
        g[off] = 0.0
    return g


def _weights(C: np.ndarray) -> np.ndarray:
    """prod_{j<i} C(j) for every rank i (C along the last axis): the unnormalised W of the module doc."""
    P = np.ones(C.shape)
    np.cumprod(C[..., :-1], axis=-1, out=P[..., 1:])
    return P


def expected_utility(C: np.ndarray, g: np.ndarray) -> np.ndarray:
    """EU = sum_i W(i) g(i) for continuation probabilities ``C`` (last axis: the N ranks; broadcast against
    ``g``'s leading axes) and gains ``g`` (last axis: the first ``g.shape[-1] <= N`` ranks, 0 after).

    >>> round(float(expected_utility(np.full(3, 0.5), np.array([1.0, 0.0, 1.0]))), 6)   # (1 + 0.25) / 1.75
    0.714286
    """
    P = _weights(C)
    n = g.shape[-1]
    return (P[..., :n] * g).sum(axis=-1) / P.sum(axis=-1)


def _static(C: np.ndarray, g: np.ndarray) -> np.ndarray:
    """EU for a user model that does not read the gains (one C for every list): a product per list."""
    P = _weights(C)
    return g @ P[:g.shape[-1]] / P.sum()


def _adaptive(c: Collection, g: np.ndarray, cvec: Callable[[np.ndarray, np.ndarray], np.ndarray],
              n: int = N_RANKS) -> np.ndarray:
    """EU for a user model that reads the gains: ``cvec(gains, ranks)`` gives C over the first ``n`` ranks
    (gains padded with 0 to ``n``; ranks 1..n), computed a block of runs at a time."""
    R, T = g.shape[:2]
    out = np.zeros((R, T))
    step = max(1, _CHUNK_CELLS // max(T * n, 1))
    ranks = np.arange(1, n + 1, dtype=np.float64)
    for a in range(0, R, step):
        b = min(R, a + step)
        full = np.zeros((b - a, T, n))
        m = min(n, g.shape[2])
        full[:, :, :m] = g[a:b, :, :m]
        out[a:b] = expected_utility(cvec(full, ranks), full)
    return out


def rbp(c: Collection, *, p: float = 0.8, rel_threshold: int = 1) -> np.ndarray:
    r"""Rank-biased precision as cwl_eval computes it (ir_measures ``RBP(rel=L, p=...)``): Moffat & Zobel 2008
    ("Rank-biased precision for measurement of retrieval effectiveness", ACM TOIS 27(1), Eq. 6), relevance
    0/1 at ``rel_threshold``, over cwl_eval's 1000 ranks and normalised there:

    .. math:: RBP = \frac{\sum_{i \le 1000} r_i\, p^{i-1}}{\sum_{i \le 1000} p^{i-1}}
              = \frac{1 - p}{1 - p^{1000}} \sum_{i \le 1000} r_i\, p^{i-1}

    (C(i) = p; the factor 1/(1 - p^1000) is 1 to 1e-96 at p = 0.8). Ties in the run's own order; evalcore's
    ``RBP@k`` is Moffat & Zobel's sum cut at k, in trec_eval's order.

    >>> c = Collection.from_lists({"s": {"t": [1, 0, 1]}}, {"t": [0, 2]})
    >>> round(float(rbp(c, p=0.5)[0, 0]), 12)            # 0.5 * (1 + 0.25), to 1e-301
    0.625
    """
    p = float(p)
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1); got {p!r}")
    g = cwl_gains(c, rel_threshold=rel_threshold)
    return _static(np.full(N_RANKS, p), g)


def sdcg(c: Collection, *, cutoff: int, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    r"""Scaled DCG (cwl_eval's ``NDCG-k``; ir_measures ``SDCG(max_rel=M)@k``): DCG@k with the discount
    1/log2(i + 1) of Jarvelin & Kekalainen 2002 (Burges' form) over the DCG of k documents of gain 1, as the
    C/W/L form of DCG in cwl_eval (Azzopardi, Thomas & Moffat 2019) gives it:

    .. math:: SDCG@k = \frac{\sum_{i \le k} g(i) / \log_2(i + 1)}{\sum_{i \le k} 1 / \log_2(i + 1)}

    with C(i) = log(i + 1) / log(i + 2) for i < k, 0 after (k above 1000 reads 1000 ranks). Not nDCG: the
    ideal is k documents at ``max_rel``, whatever the topic's judgments hold.

    >>> c = Collection.from_lists({"s": {"t": [2, 0, 1]}}, {"t": [0, 1, 1]})
    >>> round(float(sdcg(c, cutoff=2)[0, 0]), 6)         # 1 / (1 + 1/log2(3))
    0.613147
    """
    k = check_cutoff(cutoff, required=True)
    n = min(k, N_RANKS)
    i = np.arange(1, N_RANKS + 1, dtype=np.float64)
    C = np.where(i < k, (np.log(i + 1) / np.log(2.0)) / (np.log(i + 2) / np.log(2.0)), 0.0)
    g = cwl_gains(c, min_rel=min_rel, max_rel=max_rel, depth=n)
    return _static(C[:n], g)


def insq(c: Collection, *, goal: float = 1.0, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    r"""INSQ (Moffat, Scholer & Thomas 2012; in the C/W/L form of Moffat, Bailey, Scholer & Thomas 2017, TOIS
    35(3), Eq. 9): a user who wants gain T goes on from rank i with

    .. math:: C(i) = \left(\frac{i + 2T - 1}{i + 2T}\right)^2

    whatever the list holds (ir_measures ``INSQ(T=..., max_rel=M)``).

    >>> c = Collection.from_lists({"s": {"t": [1]}}, {"t": [0, 1]})
    >>> 0 < float(insq(c)[0, 0]) < 1
    True
    """
    T = _check_goal(goal)
    i = np.arange(1, N_RANKS + 1, dtype=np.float64)
    C = (((i + (2.0 * T)) - 1.0) / (i + (2.0 * T))) ** 2.0
    return _static(C, cwl_gains(c, min_rel=min_rel, max_rel=max_rel))


def inst(c: Collection, *, goal: float = 1.0, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    r"""INST (Moffat, Bailey, Scholer & Thomas 2017, TOIS 35(3), Eq. 10; ADCS 2015): a user who wants gain T
    and still lacks T_i = T - sum_{j<=i} g(j) after rank i goes on with

    .. math:: C(i) = \left(\frac{i + T + T_i - 1}{i + T + T_i}\right)^2

    so the more gain found, the sooner the user stops (ir_measures ``INST(T=..., max_rel=M)``; T is a gain,
    in units of a document at ``max_rel``).

    A relevant document read first scores higher than one read second:

    >>> first, second = (Collection.from_lists({"s": {"t": lst}}, {"t": [0, 1]}) for lst in ([1, 0], [0, 1]))
    >>> bool(inst(first)[0, 0] > inst(second)[0, 0] > 0)
    True
    """
    T = _check_goal(goal)

    def cvec(g, i):
        Ti = T - np.cumsum(g, axis=-1)
        return ((((i + T) + Ti) - 1.0) / ((i + T) + Ti)) ** 2.0

    return _adaptive(c, cwl_gains(c, min_rel=min_rel, max_rel=max_rel), cvec)


def bpm(c: Collection, *, cutoff: int, goal: float = 1.0, min_rel: int = 0, max_rel: int | None = None
        ) -> np.ndarray:
    r"""The static Bejeweled Player Model (Zhang, Liu, Li, Zhang, Xu & Ma 2017, "Evaluating web search with a
    Bejeweled Player Model", SIGIR '17, Sec. 4), in cwl_eval's C/W/L form (ir_measures ``BPM(T=...,
    max_rel=M)@k``): the user reads on while the gain so far is below T and fewer than k - 1 documents are
    read, C(i) = 1 while cg(i) < T and i < k - 1, 0 from the first rank where either fails. W is then uniform
    over the first m ranks read, m = min(first i with cg(i) >= T, k, 1000):

    .. math:: BPM = cg(m) / m

    >>> c = Collection.from_lists({"s": {"t": [0, 1, 1, 1]}}, {"t": [0, 3]})
    >>> float(bpm(c, cutoff=10, goal=2.0)[0, 0])          # stops at rank 3, gain 2 in 3 documents
    0.6666666666666666
    """
    k = check_cutoff(cutoff, required=True)
    T = _check_goal(goal)
    n = min(k, N_RANKS)
    cg = np.cumsum(cwl_gains(c, min_rel=min_rel, max_rel=max_rel, depth=n), axis=-1)   # cwl_eval's sums, in its order
    d = cg.shape[-1]
    reached = cg >= T
    first = np.where(reached.any(axis=-1), reached.argmax(axis=-1), N_RANKS)
    m = np.minimum(np.minimum(first, k - 1) + 1, N_RANKS)
    if not d:
        return np.zeros(m.shape)
    # the gain of the first m ranks; past the list's depth every gain is 0
    return np.take_along_axis(cg, np.minimum(m, d)[..., None] - 1, axis=-1)[..., 0] / m


def nerr8(c: Collection, *, cutoff: int, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    r"""NERR, Eq. 8 of Azzopardi, Mackenzie & Moffat 2021 ("ERR is not C/W/L", ICTIR '21), as cwl_eval computes
    it (Azzopardi, Thomas & Moffat 2019; ir_measures ``NERR8(max_rel=M)@k``): ERR's stopping at a document of
    gain g, truncated at k,

    .. math:: C(i) = 1 - g(i) \quad (i < k), \qquad C(i) = 0 \quad (i \ge k)

    >>> c = Collection.from_lists({"s": {"t": [0, 1]}}, {"t": [0, 1]})
    >>> float(nerr8(c, cutoff=10)[0, 0])                  # W = (1/2, 1/2): 0.5
    0.5
    """
    k = check_cutoff(cutoff, required=True)
    n = min(k, N_RANKS)

    def cvec(g, i):
        return np.where(i < k, 1.0 - g, 0.0)

    return _adaptive(c, cwl_gains(c, min_rel=min_rel, max_rel=max_rel, depth=n), cvec, n)


def nerr9(c: Collection, *, cutoff: int, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    r"""NERR, Eq. 9 of Azzopardi, Mackenzie & Moffat 2021, as cwl_eval computes it (ir_measures
    ``NERR9(max_rel=M)@k``): ERR's stopping and its 1/i discount, truncated at k,

    .. math:: C(i) = \frac{i}{i + 1}\,(1 - g(i)) \quad (i < k), \qquad C(i) = 0 \quad (i \ge k)

    >>> c = Collection.from_lists({"s": {"t": [0, 1]}}, {"t": [0, 1]})
    >>> round(float(nerr9(c, cutoff=10)[0, 0]), 6)        # W = (2/3, 1/3)
    0.333333
    """
    k = check_cutoff(cutoff, required=True)
    n = min(k, N_RANKS)

    def cvec(g, i):
        return np.where(i < k, (1.0 * i / (i + 1.0)) * (1.0 - g), 0.0)

    return _adaptive(c, cwl_gains(c, min_rel=min_rel, max_rel=max_rel, depth=n), cvec, n)


def nerr10(c: Collection, *, phi: float = 0.9, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    r"""NERR, Eq. 10 of Azzopardi, Mackenzie & Moffat 2021, as cwl_eval computes it (ir_measures
    ``NERR10(p=..., max_rel=M)``): ERR's stopping with RBP's patience, over the whole list (1000 ranks),

    .. math:: C(i) = \phi\,(1 - g(i))

    >>> c = Collection.from_lists({"s": {"t": [1]}}, {"t": [0, 1]})
    >>> float(nerr10(c)[0, 0])                            # C(1) = 0: the user stops at rank 1
    1.0
    """
    phi = _check_unit("p (phi)", phi)

    def cvec(g, i):
        return phi * (1 - g)

    return _adaptive(c, cwl_gains(c, min_rel=min_rel, max_rel=max_rel), cvec)


def nerr11(c: Collection, *, goal: float = 1.0, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    r"""NERR, Eq. 11 of Azzopardi, Mackenzie & Moffat 2021, as cwl_eval computes it (ir_measures
    ``NERR11(T=..., max_rel=M)``): ERR's stopping with INSQ's patience, over the whole list (1000 ranks),

    .. math:: C(i) = \left(\frac{i + 2T - 1}{i + 2T}\right)^2 (1 - g(i))

    >>> c = Collection.from_lists({"s": {"t": [1]}}, {"t": [0, 1]})
    >>> float(nerr11(c)[0, 0])
    1.0
    """
    T = _check_goal(goal)

    def cvec(g, i):
        return ((((i + (2.0 * T)) - 1.0) / (i + (2.0 * T))) ** 2.0) * (1.0 - g)

    return _adaptive(c, cwl_gains(c, min_rel=min_rel, max_rel=max_rel), cvec)
