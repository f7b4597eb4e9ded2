"""trec_eval's ``RES_RELS`` for every evaluated topic of one run at once (``form_res_rels.c``).

For each topic trec_eval sorts the retrieved documents by score, highest first, ties broken by document
number in *decreasing* byte order (``comp_sim_docno``), keeps the first ``-M`` of them, and writes each one's
relevance: its qrels value, ``-1`` (:data:`NONPOOL`) for a document not in the qrels, ``-2``
(:data:`UNJUDGED`) for one the qrels list with a negative value (in the pool, not judged; infAP's sample).
With ``-J`` the documents not judged (``rel < 0``) are dropped and the rest move up.

:class:`ResRels` holds those lists as one padded matrix (topics x ranks) so that a measure is a few numpy
operations over every topic; ranks past a topic's ``num_ret`` hold :data:`PAD`, below any relevance level.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..io.errors import InputError
from ._read import Qrels, Results

__all__ = ["ResRels", "NONPOOL", "UNJUDGED", "PAD", "form_res_rels", "BOGUS_DOCNO", "Options", "EvaluationError"]

NONPOOL = -1
UNJUDGED = -2
#: the value of the padding past a topic's last retrieved document: below every level ``-l`` accepts
PAD = -(2 ** 62)
#: the document of the one-line ranking trec_eval evaluates for a qrels topic the run lacks under ``-c``
BOGUS_DOCNO = "ceci_nest_pas_un_docno"


class EvaluationError(InputError):
    """An input trec_eval reads but cannot evaluate (a topic the run lacks without ``-c``, a document
    retrieved twice): trec_eval exits with status 4 there, and so does ``evalcore trec_eval``."""

    status = 4


@dataclass(frozen=True)
class Options:
    """trec_eval's evaluation options (its ``EPI``): ``-l``, ``-M``, ``-J``, ``-c``, ``-N``."""

    relevance_level: int = 1
    max_num_docs_per_topic: int = 2 ** 62
    judged_docs_only: bool = False
    average_complete: bool = False
    num_docs_in_coll: int = 0


@dataclass
class ResRels:
    """One run's ranked relevance lists over the evaluated topics, as trec_eval's measures read them.

    ``rel`` (n_topics, width) int64: the relevance of the document at each rank, :data:`PAD` past ``num_ret``.
    ``rel_levels`` (n_topics, L) int64: judged documents per relevance value 0..L-1 (the qrels, not the run).
    ``num_rel_levels``: one more than the highest value with a judged document (0 if none), per topic.
    ``bogus``: topics evaluated on trec_eval's stand-in ranking (``-c``, the run has no line for them).
    """

    qids: list[str]
    rel: np.ndarray
    num_ret: np.ndarray
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonpool: np.ndarray
    num_unjudged_in_pool: np.ndarray
    rel_levels: np.ndarray
    num_rel_levels: np.ndarray
    bogus: np.ndarray
    options: Options
    run_id: str

    @property
    def level(self) -> int:
        return self.options.relevance_level

    @property
    def n_topics(self) -> int:
        return len(self.qids)

    @property
    def width(self) -> int:
        return self.rel.shape[1]

    def relevant(self) -> np.ndarray:
        """bool (n_topics, width): the rank holds a document at or above the relevance level."""
        return self.rel >= self.level

    def rel_so_far(self) -> np.ndarray:
        """int64 (n_topics, width): relevant documents at ranks 1..i+1."""
        return np.cumsum(self.relevant(), axis=1)

    def retrieved(self) -> np.ndarray:
        """bool (n_topics, width): the rank holds a retrieved document (not padding)."""
        return np.arange(self.width)[None, :] < self.num_ret[:, None]

    def at(self, values: np.ndarray, cut: np.ndarray | int) -> np.ndarray:
        """``values[t, cut[t] - 1]`` for each topic (0 where the cut is 0): a cumulative count at a rank."""
        cut = np.broadcast_to(np.asarray(cut, dtype=np.int64), (self.n_topics,))
        idx = np.clip(cut - 1, 0, max(self.width - 1, 0))
        if self.width == 0:
            return np.zeros(self.n_topics, dtype=values.dtype)
        got = values[np.arange(self.n_topics), idx]
        return np.where(cut > 0, got, 0)


def _duplicate(ranked: list[str], qid: str, results_name: str) -> None:
    if len(set(ranked)) != len(ranked):
        seen: set[str] = set()
        dup = next(d for d in ranked if d in seen or seen.add(d))  # type: ignore[func-returns-value]
        raise EvaluationError(f"document {dup} is retrieved twice for topic {qid} (trec_eval stops here too: "
                              "'duplicate docs')", file=results_name, hint="keep one line per topic and document")


def _ranked_topics(results: Results, opts: Options) -> dict[str, list[str]]:
    """Each run topic's documents in trec_eval's order (score down, then docno down: ``comp_sim_docno``), cut
    at ``-M``, a document retrieved twice refused (among those kept, as trec_eval checks them).

    One stable sort by (topic, score down); only runs of equal scores are then put in decreasing docno order
    (a run with few ties costs no string sort)."""
    code = {q: i for i, q in enumerate(sorted(set(results.qid)))}
    qinv = np.fromiter(map(code.__getitem__, results.qid), dtype=np.int64, count=len(results.qid))
    order = np.lexsort((-results.sim, qinv))
    sq, ss = qinv[order], results.sim[order]
    docs = [results.docno[i] for i in order.tolist()]
    same = (sq[1:] == sq[:-1]) & (ss[1:] == ss[:-1])
    if same.any():
        edges = np.flatnonzero(np.diff(np.concatenate(([False], same, [False])).astype(np.int8)))
        for lo, hi in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
            docs[lo:hi + 1] = sorted(docs[lo:hi + 1], reverse=True)
    bounds = np.searchsorted(sq, np.arange(len(code) + 1)).tolist()
    out = {}
    for qid, j in code.items():
        lo, hi = bounds[j], bounds[j + 1]
        ranked = docs[lo:min(hi, lo + opts.max_num_docs_per_topic)]
        _duplicate(ranked, qid, results.name)
        out[qid] = ranked
    return out


def form_res_rels(qrels: Qrels, results: Results, opts: Options) -> ResRels:
    """Every evaluated topic's ranked relevance list (``te_form_res_rels``), in trec_eval's topic order.

    The evaluated topics are the qrels topics (trec_eval loops over them). A qrels topic the run lacks is an
    error, as in trec_eval 10.0, unless ``average_complete`` (``-c``), where it is evaluated on trec_eval's
    one-document stand-in ranking (:data:`BOGUS_DOCNO`, score 1). Run topics absent from the qrels are ignored.
    """
    qids = list(qrels.topics)
    ranked_topics = _ranked_topics(results, opts)
    lists: list[list[int]] = []
    levels: list[list[int]] = []
    bogus = np.zeros(len(qids), dtype=bool)
    counted = False     # trec_eval's rel_levels buffer exists (a topic before had a judgment >= 0)
    for t, qid in enumerate(qids):
        judged = qrels.topics[qid]
        max_rel = max(judged.values())
        if max_rel >= 0:
            counted = True
        elif not counted:
            raise EvaluationError(f"topic {qid} has only negative judgments and no topic before it has one >= 0: "
                                  "trec_eval 10.0 cannot evaluate it (its per-level count is empty: 'Can't "
                                  "calculate measure')", file=qrels.name,
                                  hint="give the topic a judgment >= 0, or leave it out of the qrels")
        ranked = ranked_topics.get(qid)
        if ranked is None:
            if not opts.average_complete:
                raise EvaluationError(f"topic {qid} of the qrels has no line in the run (trec_eval 10.0 stops here "
                                 f"too: \"result qid '{qid}' not found in qrels\")", file=results.name,
                                 hint="add -c to score it 0 and average over every qrels topic, as trec_eval -c "
                                      "does, or give a qrels file with the run's topics only")
            bogus[t] = True
            ranked = [BOGUS_DOCNO][:opts.max_num_docs_per_topic]
        rels = []
        for d in ranked:
            r = judged.get(d)
            rels.append(NONPOOL if r is None else UNJUDGED if r < 0 else r)
        if opts.judged_docs_only:
            rels = [r for r in rels if r >= 0]
        lists.append(rels)
        counts = [0] * (max_rel + 1 if max_rel >= 0 else 0)
        for r in judged.values():
            if r >= 0:
                counts[r] += 1
        levels.append(counts)
    n = len(qids)
    width = max((len(x) for x in lists), default=0)
    rel = np.full((n, width), PAD, dtype=np.int64)
    for t, x in enumerate(lists):
        rel[t, :len(x)] = x
    num_ret = np.array([len(x) for x in lists], dtype=np.int64)
    L = max((len(x) for x in levels), default=0)
    rel_levels = np.zeros((n, L), dtype=np.int64)
    for t, x in enumerate(levels):
        rel_levels[t, :len(x)] = x
    nz = rel_levels > 0
    num_rel_levels = (np.where(nz.any(axis=1), L - np.argmax(nz[:, ::-1], axis=1), 0).astype(np.int64) if L
                      else np.zeros(n, dtype=np.int64))
    level = opts.relevance_level
    num_rel = rel_levels[:, max(level, 0):].sum(axis=1) if L else np.zeros(n, dtype=np.int64)
    num_nonpool = (rel == NONPOOL).sum(axis=1)
    num_unjudged = (rel == UNJUDGED).sum(axis=1)
    num_rel_ret = ((rel >= 0) & (rel >= level)).sum(axis=1)
    return ResRels(qids, rel, num_ret, num_rel.astype(np.int64), num_rel_ret.astype(np.int64),
                   num_nonpool.astype(np.int64), num_unjudged.astype(np.int64), rel_levels, num_rel_levels,
                   bogus, opts, results.run_id)
