"""trec_eval's measures over the collection tensor: one adaptor, so that each definition exists once.

:mod:`evalcore.treceval` ports trec_eval 10.0 measure by measure (its ``m_*.c`` files); each measure reads a
run's ranked relevance lists, trec_eval's ``RES_RELS`` (:class:`evalcore.treceval.ResRels`). :func:`res_rels`
builds them from a :class:`~evalcore.collection.Collection`, run by run, and :func:`trec_measure` calls a
measure's ``calc`` on them: the kernels below are that call with the measure's parameters, each returning
a float64 array (n_runs, n_topics) as every kernel of :mod:`evalcore.metrics` does.

How the collection stands for trec_eval's input (``form_res_rels.c``):

* the ranks hold the relevance level of each retrieved document in the collection's order - trec_eval's
  order (score descending, ties by document id descending) for a run loaded with ``order="score"``, the
  loader's default; a document without a qrels entry (``Collection.unjudged``) is trec_eval's -1
  (not in the pool); ranks past the list's length are padding;
* the topic's judged documents per level are ``Collection.level_counts`` (trec_eval's ``rel_levels``);
* ``rel_threshold`` is trec_eval's ``-l`` and ``judged_only=True`` its ``-J`` (the unjudged documents are
  removed before scoring, :meth:`Collection.condensed`, as ir_measures' ``judged_only=True`` asks);
* a topic missing from a run scores 0, as everywhere in evalcore (trec_eval ``-c`` scores trec_eval's
  one-document stand-in ranking, which gives 0 on these measures too).

One difference is in the input, not here: evalcore's loader reads a negative qrels label as 0 (judged
non-relevant), where trec_eval keeps it apart as "in the pool, not judged" (its -2). infAP and bpref read
that difference; on qrels without negative labels (clef2015, most TREC qrels) there is none.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import metrics as M
from .collection import Collection
from .gains import resolve_gains
from .treceval import MEASURES, NONPOOL, PAD, Options, ResRels

__all__ = ["res_rels", "trec_measure", "trec_measure_all", "iprec_at_recall", "eleven_point_average", "inferred_ap",
           "rprec_mult", "utility", "bin_g", "g_measure", "ndcg_whole", "ndcg_rel", "rndcg", "relative_precision",
           "set_precision", "set_relative_precision", "set_recall", "set_ap", "set_f", "map_cut",
           "num_nonrel_judged_ret", "unjudged_share", "rbp_graded", "rbp_graded_residual", "num_q",
           "err_gdeval"]


def res_rels(c: Collection, run: int, *, rel_threshold: int = 1) -> ResRels:
    """trec_eval's ranked relevance lists (``RES_RELS``) of run ``run`` over every topic of ``c``.

    >>> c = Collection.from_lists({"s": {"t": [2, 0, 1]}}, {"t": [4, 1, 1]})
    >>> rr = res_rels(c, 0)
    >>> rr.rel.tolist(), rr.num_rel.tolist(), rr.rel_levels.tolist()
    ([[2, 0, 1]], [2], [[4, 1, 1]])
    """
    n, D = c.n_topics, c.depth
    rel = c.levels[run].astype(np.int64)
    if c.unjudged is not None:
        rel[c.unjudged[run]] = NONPOOL
    num_ret = c.lengths[run].astype(np.int64)
    rel[np.arange(D)[None, :] >= num_ret[:, None]] = PAD
    levels = c.level_counts.astype(np.int64)
    nz = levels > 0
    L = levels.shape[1]
    num_rel_levels = np.where(nz.any(axis=1), L - np.argmax(nz[:, ::-1], axis=1), 0).astype(np.int64)
    t = int(rel_threshold)
    num_rel = levels[:, t:].sum(axis=1) if t < L else np.zeros(n, np.int64)
    return ResRels(list(c.topic_ids), rel, num_ret, num_rel, ((rel >= 0) & (rel >= t)).sum(axis=1),
                   (rel == NONPOOL).sum(axis=1), np.zeros(n, np.int64), levels, num_rel_levels,
                   num_ret == 0, Options(relevance_level=t), c.run_ids[run])


def trec_measure(c: Collection, name: str, params: Sequence = (), *, column: int = 0, rel_threshold: int = 1,
                 judged_only: bool = False) -> np.ndarray:
    """trec_eval's measure ``name`` (a key of :data:`evalcore.treceval.MEASURES`) on every (run, topic):
    column ``column`` of its values (one per cutoff) with the parameters ``params`` as trec_eval parses them
    (``-m name.params``; empty: its default), at ``-l rel_threshold`` and, with ``judged_only``, ``-J``.
    A topic missing from a run scores 0."""
    m = MEASURES.get(name)
    if m is None:
        raise ValueError(f"trec_eval's {name} is not in evalcore.treceval (its measures: {', '.join(MEASURES)})")
    M.check_threshold(c, rel_threshold)
    if judged_only:
        c = c.condensed()
    out = np.zeros((c.n_runs, c.n_topics))
    for i in range(c.n_runs):
        v = np.asarray(m.calc(res_rels(c, i, rel_threshold=rel_threshold), tuple(params) or m.default),
                       dtype=np.float64)
        out[i] = np.where(c.lengths[i] > 0, v[:, column], 0.0)
    return out


def _gain_pairs(c: Collection, gains) -> tuple:
    """evalcore's gains (levels 1..K, :func:`evalcore.gains.resolve_gains`) as trec_eval's ``level=gain``
    pairs (``-m ndcg.1=1,2=3``); level 0 keeps gain 0, trec_eval's default. No gains (None) give no pairs:
    trec_eval's default, gain = level for the levels each topic's judgments hold (rbp scales those to
    [0, 1] per topic: 0, 1 where a topic's judgments stop at level 1)."""
    if gains is None:
        return ()
    g = resolve_gains(gains, c.max_level) if c.max_level else np.zeros(0)
    return tuple((str(L), float(v)) for L, v in enumerate(g, start=1))


def _check_unit(value, what: str, *, low: float = 0.0, high: float = 1.0) -> float:
    v = float(value)
    if not np.isfinite(v) or not low <= v <= high:
        raise ValueError(f"{what} must be a number from {low:g} to {high:g}; got {value!r}")
    return v


# -- interpolated precision and its averages --------------------------------------------------------------------
def iprec_at_recall(c: Collection, *, recall: float, rel_threshold: int = 1, count_rule: str = "round"
                    ) -> np.ndarray:
    """IPrec@x: interpolated precision at recall level x, the best precision at or below the rank of the k-th
    relevant document (trec_eval ``iprec_at_recall_x``, ir_measures ``IPrec@x``; m_iprec_at_recall.c); 0
    past the relevant documents retrieved. ``count_rule``: how x R becomes k - ``"round"``, trec_eval 10.0's
    ``lround(x R)``, or ``"trunc"``, trec_eval 9's ``(long)(x R + 0.9)``, which pytrec_eval and so
    ir_measures' ``IPrec`` still compute (the two differ where x R is not a whole number: x = 0.1, R = 14
    asks for the 1st relevant document in 10.0, the 2nd in 9)."""
    x = _check_unit(recall, "recall")
    if count_rule == "round":
        return trec_measure(c, "iprec_at_recall", (x,), rel_threshold=rel_threshold)
    if count_rule != "trunc":
        raise ValueError(f"count_rule must be 'round' (trec_eval 10.0) or 'trunc' (trec_eval 9); got {count_rule!r}")
    # trec_eval 9's k per topic, asked of the port as the level k / R that lround turns back into k: one call
    # with every topic's level, each topic then reading its own column
    t = M.check_threshold(c, rel_threshold)
    R = c.level_counts[:, t:].sum(axis=1) if t <= c.max_level else np.zeros(c.n_topics, np.int64)
    k = np.trunc(x * R + 0.9)
    levels = np.where(R > 0, k / np.maximum(R, 1), x)
    cuts, col = np.unique(levels, return_inverse=True)
    out = trec_measure_all(c, "iprec_at_recall", tuple(cuts.tolist()), rel_threshold=rel_threshold)
    return np.take_along_axis(out, np.broadcast_to(col[None, :, None], out.shape[:2] + (1,)), axis=2)[:, :, 0]


def trec_measure_all(c: Collection, name: str, params: Sequence, *, rel_threshold: int = 1) -> np.ndarray:
    """Every value of trec_eval's measure ``name`` (one per cutoff): float64 (n_runs, n_topics, n_values)."""
    m = MEASURES[name]
    out = None
    for i in range(c.n_runs):
        v = np.asarray(m.calc(res_rels(c, i, rel_threshold=rel_threshold), tuple(params)), dtype=np.float64)
        if out is None:
            out = np.zeros((c.n_runs, c.n_topics, v.shape[1]))
        out[i] = np.where(c.lengths[i][:, None] > 0, v, 0.0)
    return out if out is not None else np.zeros((0, c.n_topics, len(params)))


def eleven_point_average(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """11pt_avg: interpolated precision averaged over the recall levels 0.0, 0.1, ..., 1.0 (trec_eval
    ``11pt_avg``, m_11pt_avg.c)."""
    return trec_measure(c, "11pt_avg", rel_threshold=rel_threshold)


def inferred_ap(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """infAP: inferred AP (Yilmaz & Aslam, CIKM 2006) as trec_eval computes it (``infAP``, ir_measures
    ``infAP``; m_infap.c): precision above each relevant document estimated from the judged documents above
    it, unjudged ones (not in the qrels) counting as non-relevant."""
    return trec_measure(c, "infAP", rel_threshold=rel_threshold)


def rprec_mult(c: Collection, *, mult: float, rel_threshold: int = 1) -> np.ndarray:
    """Rprec_mult@x: precision at rank x R (trec_eval ``Rprec_mult_x``, m_Rprec_mult.c)."""
    x = _check_unit(mult, "mult", high=1e6)
    return trec_measure(c, "Rprec_mult", (x,), rel_threshold=rel_threshold)


def utility(c: Collection, *, coefficients=None, rel_threshold: int = 1) -> np.ndarray:
    """utility: a rel_ret + b nonrel_ret + c rel_nonret + d nonrel_nonret (trec_eval ``utility``,
    m_utility.c), coefficients ``a:b:c:d`` (default trec_eval's 1:-1:0:0; trec_eval reads d against the
    number of documents in the collection, ``-N``, 0 here). Not a score in [0, 1]."""
    if coefficients is None:
        coef: tuple = ()
    else:
        coef = tuple(float(v) for v in (coefficients.split(":") if isinstance(coefficients, str) else coefficients))
        if len(coef) != 4 or not all(np.isfinite(coef)):
            raise ValueError(f"coefficients must be 4 numbers a:b:c:d; got {coefficients!r}")
    return trec_measure(c, "utility", coef, rel_threshold=rel_threshold)


# -- gain-based measures ----------------------------------------------------------------------------------------
def bin_g(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """binG: binary G, the mean over the relevant documents of 1/log2(2 + non-relevant retrieved above)
    (trec_eval ``binG``, m_binG.c)."""
    return trec_measure(c, "binG", rel_threshold=rel_threshold)


def g_measure(c: Collection, *, gains=None) -> np.ndarray:
    """G: trec_eval's normalised gain (``G``, m_G.c), gain(doc) / log2(2 + ideal gain so far - gain so far),
    with evalcore's gains per level (default gain = level, trec_eval's)."""
    return trec_measure(c, "G", _gain_pairs(c, gains))


def ndcg_whole(c: Collection, *, gains=None) -> np.ndarray:
    """MSnDCG over the whole list: gain/log2(r + 1) summed over every retrieved document, over the ideal
    DCG of every judged document (trec_eval ``ndcg``, ir_measures ``nDCG`` without a cutoff; m_ndcg.c),
    with evalcore's gains per level (default gain = level, as trec_eval and ir_measures)."""
    return trec_measure(c, "ndcg", _gain_pairs(c, gains))


def ndcg_rel(c: Collection, *, gains=None) -> np.ndarray:
    """ndcg_rel: nDCG averaged over the relevant documents' ranks (trec_eval ``ndcg_rel``, m_ndcg_rel.c)."""
    return trec_measure(c, "ndcg_rel", _gain_pairs(c, gains))


def rndcg(c: Collection, *, gains=None, rel_threshold: int = 1) -> np.ndarray:
    """Rndcg: nDCG averaged at the R levels of the judgments (trec_eval ``Rndcg``, m_Rndcg.c; a topic with
    no document at ``-l rel_threshold`` scores 0)."""
    return trec_measure(c, "Rndcg", _gain_pairs(c, gains), rel_threshold=rel_threshold)


def rbp_graded(c: Collection, *, gains=None, rbp_p: float = 0.9) -> np.ndarray:
    """trec_eval's ``rbp`` (m_rbp.c): (1 - p) sum_r g(r) p^(r-1) over the whole list, the gains per level
    scaled to [0, 1] when one is outside it, p = 0.9 by default (Moffat & Zobel 2008, graded)."""
    q = _check_unit(rbp_p, "p")
    return trec_measure(c, "rbp", (("p", q), *_gain_pairs(c, gains)))


def rbp_graded_residual(c: Collection, *, gains=None, rbp_p: float = 0.9) -> np.ndarray:
    """trec_eval's ``rbp_resid`` (m_rbp_resid.c): how far :func:`rbp_graded` could rise if every unjudged
    document retrieved had the highest gain."""
    q = _check_unit(rbp_p, "p")
    return trec_measure(c, "rbp_resid", (("p", q), *_gain_pairs(c, gains)))


# -- precision and recall of the set, at cutoffs ---------------------------------------------------------------
def relative_precision(c: Collection, *, cutoff: int, rel_threshold: int = 1) -> np.ndarray:
    """relative_P@k: precision at k over the best possible, min(R, k)/k (trec_eval ``relative_P_k``,
    m_rel_P.c)."""
    return trec_measure(c, "relative_P", (M.check_cutoff(cutoff, required=True),), rel_threshold=rel_threshold)


def map_cut(c: Collection, *, cutoff: int, rel_threshold: int = 1) -> np.ndarray:
    """map_cut@k: AP over the top k, divided by R, all of the topic's relevant documents (trec_eval
    ``map_cut_k``, ir_measures ``AP@k``; m_map_cut.c). evalcore's AP@k divides by min(R, k) (NTCIREVAL)."""
    return trec_measure(c, "map_cut", (M.check_cutoff(cutoff, required=True),), rel_threshold=rel_threshold)


def unjudged_share(c: Collection, *, cutoff: int) -> np.ndarray:
    """unj@k: the share of the top k (k, not the list's length, divides) without a qrels entry
    (trec_eval ``unj_k``, m_unjudged.c)."""
    return trec_measure(c, "unj", (M.check_cutoff(cutoff, required=True),))


def set_precision(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """SetP: NumRelRet / NumRet, the precision of the whole list (trec_eval ``set_P``, ir_measures ``SetP``;
    m_set_P.c)."""
    return trec_measure(c, "set_P", rel_threshold=rel_threshold)


def set_relative_precision(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """SetRelP: set precision over the best possible for a list of that length (trec_eval
    ``set_relative_P``, ir_measures ``SetP(relative=True)``; m_set_rel_P.c)."""
    return trec_measure(c, "set_relative_P", rel_threshold=rel_threshold)


def set_recall(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """SetR: NumRelRet / R, the recall of the whole list (trec_eval ``set_recall``, ir_measures ``SetR``;
    m_set_recall.c)."""
    return trec_measure(c, "set_recall", rel_threshold=rel_threshold)


def set_ap(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """SetAP: set precision times set recall (trec_eval ``set_map``, ir_measures ``SetAP``; m_set_map.c)."""
    return trec_measure(c, "set_map", rel_threshold=rel_threshold)


def set_f(c: Collection, *, f_beta: float = 1.0, rel_threshold: int = 1) -> np.ndarray:
    """SetF: (beta + 1) P R / (beta P + R) of the whole list, as trec_eval writes it (its parameter x is
    ir_measures' beta, not squared; trec_eval ``set_F``, ir_measures ``SetF(beta=...)``; m_set_F.c); 0 when
    no relevant document is retrieved."""
    b = float(f_beta)
    if not np.isfinite(b) or b < 0:
        raise ValueError(f"beta of SetF must be a finite number >= 0; got {f_beta!r}")
    return trec_measure(c, "set_F", (b,), rel_threshold=rel_threshold)


# -- counts ------------------------------------------------------------------------------------------------------
def num_nonrel_judged_ret(c: Collection, *, rel_threshold: int = 1) -> np.ndarray:
    """The judged non-relevant documents retrieved, a count (trec_eval ``num_nonrel_judged_ret``)."""
    return trec_measure(c, "num_nonrel_judged_ret", rel_threshold=rel_threshold)


def num_q(c: Collection) -> np.ndarray:
    """NumQ: 1 for every topic the run retrieved (ir_measures ``NumQ``, whose sum counts the topics
    evaluated); trec_eval ``num_q`` under ``-c`` counts every qrels topic (:func:`evalcore.score_matrix`)."""
    return (c.lengths > 0).astype(np.float64)


# -- ir_measures' gdeval provider ---------------------------------------------------------------------------------
#: gdeval.pl's ``$MAX_JUDGMENT``: the highest label it reads, and the 2^4 of ERR's stop probability
GDEVAL_MAX = 4


def err_gdeval(c: Collection, *, cutoff: int) -> np.ndarray:
    r"""ERR@k as gdeval computes it (the TREC Web track's gdeval.pl, ir_measures' ``ERR@k``; Chapelle et al.
    2009): not normalised, stop probability R(L) = (2^L - 1) / 2^4 for label L (gdeval's fixed maximum
    label 4), a topic without a relevant document 0.

    .. math:: ERR = \sum_{r \le k} \frac{R(L_r)}{r} \prod_{i < r} (1 - R(L_i))

    gdeval prints 5 decimals; this is the unrounded value. Its qrels may hold labels up to 4 (gdeval stops
    on a higher one, and R would exceed 1): a level above 4 is read as 4 here.

    >>> c = Collection.from_lists({"s": {"t": [2, 0, 1]}}, {"t": [1, 1, 1]})
    >>> round(float(err_gdeval(c, cutoff=10)[0, 0]), 6)   # 3/16 + (1 - 3/16) (1/16) / 3
    0.204427
    """
    k = M.check_cutoff(cutoff, required=True)
    D = min(k, c.depth)
    lv = np.minimum(c.levels[:, :, :D], GDEVAL_MAX).astype(np.float64)
    r = (2.0 ** lv - 1.0) / 2.0 ** GDEVAL_MAX
    keep = np.cumprod(1.0 - r, axis=2)
    decay = np.concatenate([np.ones(keep.shape[:2] + (1,)), keep[:, :, :-1]], axis=2)
    terms = r * decay / np.arange(1, D + 1)[None, None, :]
    out = np.cumsum(terms, axis=2)[:, :, -1] if D else np.zeros((c.n_runs, c.n_topics))
    return np.where(c.R[None, :] > 0, out, 0.0)
