"""The metric registry and the tidy ``evaluate`` entry point.

A metric key is the name users type (CLI, DataFrames, the app): ``AP``,
``Q-measure``, ``nDCG@10``, ``P+-measure@1000``. A :class:`MetricSpec` says
which kernel computes it and which settings it reads, so a configured
metric has one canonical label (``Q-measure(beta=2)@100``) usable as a
cache key, column header and plot label.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from . import metrics as M
from .collection import Collection
from .gains import gains_label, resolve_gains, resolve_penalties
from .names import Resolved, metric_text, resolve

__all__ = ["Param", "PARAMS", "MetricSpec", "METRICS", "cutoff_required", "METRIC_KEYS", "parse_metric",
           "resolve_metric", "crosswalk", "score_matrix", "score_matrices", "evaluate", "topic_means",
           "TOPIC_POLICIES", "topic_policy", "MEAN_TOPIC"]


@dataclass(frozen=True)
class Param:
    """One parameter of a metric, as data (cf. ir_measures' ``SUPPORTED_PARAMS`` and trec_eval's
    ``te_trec_measures[]``): everything about it that the name parser, the labels, the kernels' keyword
    arguments, the settings a metric reads and the docs need.

    ``name`` is the kernel's keyword and the setting it reads (the call's ``gains``, ``beta``,
    ``penalties``, ``rel_threshold``, ``log_base``, ``p``); ``spellings`` the keys a metric name may
    write it with (``AP(rel=2)``, ``nDCG(b=10)``); ``kind`` ``"int"``, ``"float"`` or ``"levels"``
    (one number per level, written highest level first: ``gains=3:2:1``); ``low`` / ``high`` the
    bounds a value in a name must respect (``low_open`` / ``high_open``: excluded); ``default`` the
    value a canonical label leaves out (None: the label shows any value given); ``label`` how a
    non-default value is shown in a label (a format with ``{v}``).
    """

    name: str
    kind: str
    default: Any
    spellings: tuple[str, ...]
    label: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    doc: str = ""

    def bounds_text(self) -> str:
        lo = "" if self.low is None else f"{'>' if self.low_open else '>='} {self.low:g}"
        hi = "" if self.high is None else f"{'<' if self.high_open else '<='} {self.high:g}"
        return " and ".join(x for x in (lo, hi) if x)

    def in_bounds(self, v: float) -> bool:
        if self.low is not None and (v < self.low or (self.low_open and v == self.low)):
            return False
        return not (self.high is not None and (v > self.high or (self.high_open and v == self.high)))

    def parse(self, v: str):
        """A value as written in a metric name -> the value passed on; ValueError if it is not one."""
        if self.kind == "levels":
            [float(x) for x in v.split(":")]
            return v
        x = int(v) if self.kind == "int" else float(v)
        if x != x or x in (float("inf"), float("-inf")) or not self.in_bounds(x):
            raise ValueError
        return x

    def show(self, v, K: int | None = None) -> str | None:
        """The label part for the value ``v`` (None when it is the default, left out)."""
        if self.kind == "levels":
            if v is None:
                return None
            if isinstance(v, str):
                txt = v
            elif self.name == "gains" and K:
                txt = gains_label(resolve_gains(v, K))
            else:
                txt = ":".join(f"{x:g}" for x in list(v)[::-1])
            return self.label.format(v=txt)
        x = int(v) if self.kind == "int" else float(v)
        if x == self.default:
            return None
        return self.label.format(v=x) if self.kind == "int" else self.label.format(v=f"{x:g}")


#: Every parameter a metric may read, in the order labels write them. A metric lists the ones it reads.
GAINS = Param("gains", "levels", None, ("gains",), "gains={v}", doc="gain per relevance level")
BETA = Param("beta", "float", 1.0, ("beta",), "beta={v}", low=0.0, doc="weight of the gains in BR(r)")
PENALTIES = Param("penalties", "levels", None, ("penalties",), "penalties={v}", doc="WRR penalty per level")
REL = Param("rel_threshold", "int", 1, ("rel",), "rel>={v}", low=1,
            doc="the lowest level counted as relevant by a binary measure")
LOG_BASE = Param("log_base", "float", 2.0, ("b", "log_base"), "b={v}", low=1.0, low_open=True,
                 doc="base b of the Jarvelin-Kekalainen discount log_b(r)")
PERSISTENCE = Param("p", "float", 0.8, ("p",), "p={v}", low=0.0, high=1.0, low_open=True, high_open=True,
                    doc="persistence: the chance the user goes on to the next rank")
PARAMS: dict[str, Param] = {p.name: p for p in (GAINS, BETA, PENALTIES, REL, LOG_BASE, PERSISTENCE)}
#: A spelling in a metric name -> the parameter (``rel`` -> rel_threshold, ``b`` -> log_base).
PARAM_SPELLINGS: dict[str, Param] = {k: p for p in PARAMS.values() for k in p.spellings}


@dataclass(frozen=True)
class MetricSpec:
    key: str
    func: Callable
    name: str                      # display name
    citation: str
    user_model: str                # one line: what the user is assumed to do
    params: tuple[Param, ...] = () # the settings the kernel reads, besides the cutoff
    cutoff: str = "optional"       # "none" | "optional" | "required"
    trec_eval: str | None = None   # crosswalk to other tools' names (see evalcore.names): only where the
    ntcireval: str | None = None   # peer's definition is the same as this measure's
    ir_measures: str | None = None
    definition: str = ""           # one line, for the README crosswalk and `evalcore metrics`

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    # Read-only views of the parameter table, for callers that ask one question.
    @property
    def uses_gains(self) -> bool:
        return GAINS in self.params

    @property
    def uses_beta(self) -> bool:
        return BETA in self.params

    @property
    def uses_penalties(self) -> bool:
        return PENALTIES in self.params

    @property
    def uses_threshold(self) -> bool:
        return REL in self.params

    @property
    def uses_log_base(self) -> bool:
        return LOG_BASE in self.params

    def reads(self, settings: dict) -> dict:
        """The part of ``settings`` (keyword -> value) this metric depends on: what a change recomputes."""
        return {k: v for k, v in settings.items() if k in self.param_names}


def _spec(key, func, name, citation, model, params=(), **kw):
    return MetricSpec(key, func, name, citation, model, tuple(params), **kw)


METRICS: dict[str, MetricSpec] = {s.key: s for s in [
    _spec("AP", M.average_precision, "Average Precision", "003 Eq. 1",
          "scans down the list for every relevant document; precision at each",
          params=(REL,), trec_eval="map", ntcireval="AP", ir_measures="AP",
          definition="003 Eq. 1, binary at `rel_threshold` (relaxed = 1, rigid = 2)"),
    _spec("Q-measure", M.q_measure, "Q-measure", "003 Eq. 2; 001 (beta form)",
          "like AP, but graded: rewards highly relevant documents ranked early",
          params=(GAINS, BETA), ntcireval="Q-measure",
          definition="003 Eq. 2 with the beta form of 001: BR(r) = (beta cg(r) + count(r)) / (beta cg_I(r) + r)"),
    _spec("R-measure", M.r_measure, "R-measure", "001 Sec. 2.3",
          "looks at the top R documents only; graded R-Precision",
          params=(GAINS, BETA), cutoff="none", ntcireval="R-measure",
          definition="BR(R) (001)"),
    _spec("AWP", M.awp, "Average Weighted Precision", "001 Sec. 2.2",
          "graded AP without the late-arrival penalty: 'freezes' below rank R",
          params=(GAINS,),
          definition="(1/R) sum isrel(r) cg(r)/cg_I(r) (001 Sec. 2.2)"),
    _spec("R-Prec", M.r_precision, "R-Precision", "004",
          "counts relevant documents in the top R",
          params=(REL,), cutoff="none", trec_eval="Rprec", ir_measures="Rprec",
          definition="count(R_b)/R_b at the binary threshold"),
    _spec("RR", M.reciprocal_rank, "Reciprocal Rank", "003 Sec. 1",
          "stops at the first relevant document, however relevant",
          params=(REL,), trec_eval="recip_rank", ir_measures="RR", ntcireval="RR",
          definition="1/r_1, binary at `rel_threshold`"),
    _spec("O-measure", M.o_measure, "O-measure", "003 Eq. 3",
          "stops at the first relevant document; graded against the ideal list",
          params=(GAINS, BETA), ntcireval="O-measure",
          definition="BR(r_1) (003 Eq. 3)"),
    _spec("WRR", M.wrr, "Weighted Reciprocal Rank", "003 Eq. 4",
          "stops at the first relevant document; rank matters more than level",
          params=(PENALTIES,),
          definition="1/(r_1 - 1/penalty(L_1)) (003 Eq. 4)"),
    _spec("NWRR", M.nwrr, "Normalised WRR", "003 Eq. 5",
          "stops at the first relevant document; WRR scaled to a maximum of 1",
          params=(PENALTIES,), ntcireval="NWRR",
          definition="(1 - 1/penalty(M)) / (r_1 - 1/penalty(L_1)), M = the topic's highest level (003 Eq. 5)"),
    _spec("P-measure", M.p_measure, "P-measure", "003 Eq. 6; 002",
          "keeps scanning for the best document in the list, then stops",
          params=(GAINS, BETA), ntcireval="P-measure",
          definition="BR(r_p), r_p = first document of the highest level present in the list (003 Eq. 6)"),
    _spec("P+-measure", M.p_plus_measure, "P+-measure", "003 Eq. 7",
          "keeps scanning for the best one, averaging BR over what it passes",
          params=(GAINS, BETA), ntcireval="P-plus",
          definition="(1/count(r_p)) sum_{r<=r_p} isrel(r) BR(r) (003 Eq. 7)"),
    _spec("nDCG", M.ndcg, "nDCG (Jarvelin-Kekalainen)", "004; Jarvelin & Kekalainen 2002",
          "reads the top l with a patience that decays as log_b(rank)",
          params=(GAINS, LOG_BASE), cutoff="required", ntcireval="nDCG",
          definition="Jarvelin-Kekalainen original: gain/log_b(r) for r >= b, b = 2 by default"),
    _spec("MSnDCG", M.msndcg, "nDCG (Microsoft, log2(r+1))", "Burges et al. 2005",
          "reads the top l, discounting by log2(rank + 1)",
          params=(GAINS,), cutoff="required", trec_eval="ndcg_cut", ntcireval="MSnDCG", ir_measures="nDCG",
          definition="Burges (Microsoft) form: gain/log2(r+1); peers use gain = level"),
    _spec("nCG", M.ncg, "normalised Cumulative Gain", "004",
          "reads exactly the top l; order within it does not matter",
          params=(GAINS,), cutoff="required",
          definition="004: normalised cumulative gain"),
    _spec("AnDCG", M.andcg, "Average nDCG over ranks 1..l", "004",
          "stops at any rank 1..l with equal probability (discounted gain)",
          params=(GAINS, LOG_BASE), cutoff="required",
          definition="004: nDCG averaged over ranks 1..k"),
    _spec("AnCG", M.ancg, "Average nCG over ranks 1..l", "004",
          "stops at any rank 1..l with equal probability (cumulated gain)",
          params=(GAINS,), cutoff="required",
          definition="004: nCG averaged over ranks 1..k"),
    _spec("nERR", M.nerr, "normalised Expected Reciprocal Rank", "Chapelle et al. 2009; NTCIREVAL",
          "stops at each document with a probability that grows with its gain",
          params=(GAINS,), cutoff="required", ntcireval="nERR",
          definition="ERR with stop probability gain(L)/(max gain + 1), normalised by the ideal list's (NTCIREVAL's "
                     "gain(K)+1 for ascending gains)"),
    _spec("P", M.precision, "Precision at l", "004 (PDoc)",
          "reads exactly the top l and counts relevant documents",
          params=(REL,), cutoff="required", trec_eval="P", ir_measures="P", ntcireval="Prec",
          definition="binary at `rel_threshold`; divides by k"),
    _spec("Hit", M.hit, "Hit at l", "",
          "is satisfied by any relevant document in the top l",
          params=(REL,), cutoff="required", ir_measures="Success", trec_eval="success", ntcireval="Hit",
          definition="1 if the top k hold a document at `rel_threshold`"),
    _spec("RBP", M.rbp, "Rank-Biased Precision", "Moffat & Zobel 2008",
          "reads rank 1, then goes on to each next rank with probability p",
          params=(PERSISTENCE, REL), cutoff="required",
          definition="(1 - p) sum_{r<=k} rel(r) p^(r-1), binary at `rel_threshold`, p = 0.8 by default"),
    _spec("RBP-residual", M.rbp_residual, "RBP residual", "Moffat & Zobel 2008",
          "the weight RBP@k leaves unknown: unjudged documents and ranks beyond k",
          params=(PERSISTENCE,), cutoff="required",
          definition="(1 - p) sum_{r<=k, unjudged} p^(r-1) + p^k: full judgments would give a score in "
                     "[RBP@k, RBP@k + residual]"),
]}

#: Every base key, in the order the papers discuss them.
METRIC_KEYS: tuple[str, ...] = tuple(METRICS)
#: The one-document family of 003, most to least graded.
ONE_DOCUMENT_KEYS = ("P+-measure", "P-measure", "O-measure", "NWRR", "RR")


def resolve_metric(key: str, names: str | None = None, *, warn: bool = False) -> Resolved:
    """Any accepted name (evalcore, ir_measures, trec_eval, NTCIREVAL; :mod:`evalcore.names`) -> what it means."""
    return resolve(key, names, warn=warn)


def parse_metric(key: str, names: str | None = None) -> tuple[MetricSpec, int | None]:
    """``"nDCG@10"`` -> (spec of nDCG, 10); ``"AP"`` -> (spec of AP, None); ``"ndcg_cut.10"`` ->
    (spec of MSnDCG, 10). Parameters the name fixes (``AP(rel=2)``) are in :func:`resolve_metric`."""
    r = resolve(key, names, warn=False)
    spec = METRICS[r.base]
    if r.cutoff is None and spec.cutoff == "required":
        raise ValueError(f"metric {spec.key} needs a cutoff, e.g. {spec.key}@10")
    return spec, r.cutoff


def expand_metrics(metrics: Iterable[str] | None, cutoffs: Sequence[int] = (10, 1000),
                   names: str | None = None) -> list[str]:
    """Metric names to compute: a name without ``@`` of a cutoff-requiring metric
    expands to one name per cutoff; ``None`` means every metric."""
    keys = list(METRIC_KEYS) if metrics is None else [metric_text(m) for m in metrics]
    out: list[str] = []
    for k in keys:
        r = resolve(k, names, warn=False)
        if r.cutoff is None and METRICS[r.base].cutoff == "required":
            out.extend(f"{k}@{int(cut)}" for cut in cutoffs)
        else:
            out.append(k)
    return list(dict.fromkeys(out))


def _kwargs(spec: MetricSpec, cutoff, **settings) -> dict:
    """The kernel's keyword arguments: each parameter of the spec's table from ``settings`` (its
    default when absent), plus the cutoff unless the metric takes none."""
    kw = {p.name: settings.get(p.name, p.default) for p in spec.params}
    if spec.cutoff != "none":
        kw["cutoff"] = cutoff
    return kw


def cutoff_required() -> tuple[str, ...]:
    """Base keys of the metrics that need ``@l`` (the registry's ``cutoff="required"``)."""
    return tuple(k for k, s in METRICS.items() if s.cutoff == "required")


def metric_label(key: str, collection: Collection | None = None, *, gains=None, beta=1.0,
                 penalties=None, rel_threshold=1, log_base=2, **settings) -> str:
    """Canonical label of a configured metric; defaults are left out. Parameters the name fixes
    win over the keyword arguments; any parameter of :data:`PARAMS` may be given (``p=0.9``).

    >>> metric_label("Q-measure@100", beta=2)
    'Q-measure(beta=2)@100'
    """
    r = resolve(key, warn=False)
    spec, cutoff = METRICS[r.base], r.cutoff
    given = {"gains": gains, "beta": beta, "penalties": penalties, "rel_threshold": rel_threshold,
             "log_base": log_base, **settings, **r.params}
    K = collection.max_level if collection is not None else None
    parts = [part for prm in PARAMS.values() if prm in spec.params
             for part in [prm.show(given.get(prm.name, prm.default), K)] if part is not None]
    label = spec.key + (f"({','.join(parts)})" if parts else "")
    return label + (f"@{cutoff}" if cutoff is not None else "")


def score_matrix(collection: Collection, key: str, *, gains=None, beta: float = 1.0, penalties=None,
                 rel_threshold: int = 1, log_base: float = 2, names: str | None = None) -> np.ndarray:
    """Per-topic scores of one metric, shape (n_runs, n_topics).

    ``key``: any name :mod:`evalcore.names` accepts (``Q-measure(beta=2)``,
    ``ndcg_cut.10``, ``AP(rel=2)``, ``P-plus``); parameters the name fixes
    override the keyword arguments. ``names``: the convention to read it in
    (None = auto: the ambiguous ``nDCG@k`` is evalcore's; :func:`score_matrices`
    and :func:`evaluate`, where users paste lists of names, warn about it).
    """
    spec, cutoff = parse_metric(key, names)
    r = resolve(key, names, warn=False)
    kw = dict(gains=gains, beta=beta, penalties=penalties, rel_threshold=rel_threshold, log_base=log_base)
    kw.update(r.params)
    return spec.func(collection, **_kwargs(spec, cutoff, **kw))


def score_matrices(collection: Collection, metrics: Iterable[str] | None = None, *, gains=None,
                   beta: float = 1.0, penalties=None, cutoffs: Sequence[int] = (10, 1000),
                   rel_threshold: int = 1, log_base: float = 2, names: str | None = None,
                   standardise: str | None = None, std_a: float = 0.15, std_b: float = 0.5
                   ) -> dict[str, np.ndarray]:
    """``{key: (n_runs, n_topics) array}`` for every requested metric key.

    Parameters are validated once, up front, so a bad gain fails before any work.
    ``standardise`` ("z", "cdf" or "ab" with ``std_a``/``std_b``; default None = raw
    scores) standardises every matrix per topic over all the collection's runs
    (:mod:`evalcore.meta.standardise`, Webber et al. 2008; Sakai 2016).
    """
    K = collection.max_level
    resolve_gains(gains, K)
    resolve_penalties(penalties, K)
    if standardise not in (None, "none", "z", "cdf", "ab"):
        raise ValueError(f"standardise must be one of none, z, cdf, ab; got {standardise!r}")
    if metrics is None:   # every measure under its canonical key: nothing to warn about
        names = names or "evalcore"
    keys = expand_metrics(metrics, cutoffs, names)
    # AmbiguousNameWarning for nDCG@k, a bare nDCG and AP@k (evalcore.names), once per name as written
    for k in (keys if metrics is None else dict.fromkeys(metric_text(m) for m in metrics)):
        resolve(k, names, warn=True)
    out = {k: score_matrix(collection, k, gains=gains, beta=beta, penalties=penalties,
                           rel_threshold=rel_threshold, log_base=log_base, names=names) for k in keys}
    if standardise in (None, "none"):
        return out
    from .meta.standardise import standardise_scores

    return standardise_scores(out, standardise, A=std_a, B=std_b)


GEOMETRIC_EPSILON = 1e-5


def topic_means(matrix: np.ndarray, mean: str = "arithmetic") -> np.ndarray:
    """Mean over topics (axis 1). ``"geometric"``: exp(mean(log(max(x, 1e-5)))),
    the G_AveP / G_Q-measure of the papers, with the usual floor for zeros."""
    if mean == "arithmetic":
        return matrix.mean(axis=1)
    if mean == "geometric":
        return np.exp(np.log(np.maximum(matrix, GEOMETRIC_EPSILON)).mean(axis=1))
    raise ValueError(f"mean must be 'arithmetic' or 'geometric'; got {mean!r}")


#: The topic label of the mean rows in :func:`evaluate` (and trec_eval's output).
MEAN_TOPIC = "all"

#: How the mean over topics treats qrels topics without a relevant document (:func:`topic_policy`).
TOPIC_POLICIES = ("trec_eval", "ntcireval")


def topic_policy(name, topics: str | None = None, names: str | None = None) -> str:
    """The topics a metric's mean runs over: ``"trec_eval"`` or ``"ntcireval"``.

    * ``"trec_eval"`` - every qrels topic, as trec_eval, ir_measures, ranx and
      PyTerrier average: a topic whose judgments hold no relevant document
      scores 0 (trec_eval scores every measure 0 there), and so does a topic
      missing from a run (trec_eval's ``-c``; without ``-c`` trec_eval leaves a
      run's missing topics out of its mean - the two agree when every run
      retrieves every qrels topic, as on clef2015).
    * ``"ntcireval"`` - only the topics with at least one relevant document
      (level >= 1), NTCIREVAL's convention: there P, P+, O, Q, NWRR and every
      measure divided by R are undefined. A topic missing from a run scores 0.
    * ``None`` (auto) - per metric: ``"trec_eval"`` for a name read as a
      trec_eval or ir_measures name (``map``, ``P_10``, ``irm:nDCG@10``,
      anything under ``names="trec_eval"``), ``"ntcireval"`` for evalcore's
      and NTCIREVAL's names (``AP``, ``Q-measure``, ``P-plus``).

    At ``rel_threshold`` L > 1 a topic with relevant documents but none of
    level >= L stays in both sets and scores 0 on the binary measures, as
    under trec_eval's ``-l L``.

    >>> topic_policy("map"), topic_policy("AP"), topic_policy("AP", "trec_eval")
    ('trec_eval', 'ntcireval', 'trec_eval')
    """
    if topics is not None:
        if topics not in TOPIC_POLICIES:
            raise ValueError(f"topics must be one of {', '.join(TOPIC_POLICIES)} or None (auto: trec_eval's for "
                             f"trec_eval and ir_measures names, NTCIREVAL's otherwise); got {topics!r}")
        return topics
    conv = resolve(name, names, warn=False).convention
    return "trec_eval" if conv in ("trec_eval", "ir_measures") else "ntcireval"


def _check_mean_topic(collection: Collection, per_topic: bool) -> None:
    if per_topic and MEAN_TOPIC in (*collection.topic_ids, *collection.topics_without_relevant):
        raise ValueError(f"a topic is named {MEAN_TOPIC!r}, the label of the mean rows: its per-topic rows would "
                         "mix with the means. Rename that topic in the qrels and the runs (e.g. to 'all_'), or "
                         "ask for the means only (per_topic=False / no --per-topic)")


def _under_policy(collection: Collection, key: str, m: np.ndarray, topics: str | None, names: str | None
                  ) -> tuple[np.ndarray, tuple[str, ...], str]:
    """(matrix over the policy's topics, their ids, the policy) for one metric's (n_runs, n_topics) matrix."""
    policy = topic_policy(key, topics, names)
    zero_ids = collection.topics_without_relevant
    if policy == "trec_eval" and zero_ids:   # trec_eval scores every measure 0 on these topics
        return (np.concatenate([m, np.zeros((m.shape[0], len(zero_ids)))], axis=1),
                collection.topic_ids + zero_ids, policy)
    return m, collection.topic_ids, policy


def evaluate(collection: Collection, metrics: Iterable[str] | None = None, *, gains=None, beta: float = 1.0,
             penalties=None, cutoffs: Sequence[int] = (10, 1000), rel_threshold: int = 1,
             log_base: float = 2, mean: str = "arithmetic", per_topic: bool = False,
             names: str | None = None, topics: str | None = None) -> pd.DataFrame:
    """Evaluate every run on every topic; a tidy DataFrame (run, topic, metric, value).

    ``metrics``: names in any convention :mod:`evalcore.names` accepts, or
    ir_measures measure objects (the ``metric`` column keeps the names as
    given; ``names`` picks a convention). Rows with topic ``"all"`` hold the
    mean over the topics that :func:`topic_policy` picks for ``topics``
    (``"trec_eval"``, ``"ntcireval"`` or None = per metric by its name's
    convention); a topic missing from a run counts as 0. With
    ``per_topic=True`` the per-topic rows come first, run by run; under
    trec_eval's policy they include the topics without a relevant document
    (value 0).

    ``df.attrs`` states what was used, per metric: ``attrs["topics"][metric]
    = {"policy": ..., "n_topics": ...}`` and, for binary measures,
    ``attrs["rel_threshold"][metric]`` (a threshold written in the name,
    ``AP(rel=2)``, wins over ``rel_threshold``).

    >>> import evalcore
    >>> c = evalcore.paper_examples()
    >>> df = evaluate(c, ["O-measure"], per_topic=True)
    >>> list(df.columns)
    ['run', 'topic', 'metric', 'value']
    """
    if mean not in ("arithmetic", "geometric"):
        raise ValueError(f"mean must be 'arithmetic' or 'geometric'; got {mean!r}")
    if topics is not None:
        topic_policy("AP", topics)            # a bad policy fails before any work
    _check_mean_topic(collection, per_topic)
    mats = score_matrices(collection, metrics, gains=gains, beta=beta, penalties=penalties, cutoffs=cutoffs,
                          rel_threshold=rel_threshold, log_base=log_base, names=names)
    if metrics is None:
        names = names or "evalcore"
    runs = np.asarray(collection.run_ids, dtype=object)
    nR = collection.n_runs
    frames = []
    used_topics: dict[str, dict] = {}
    used_threshold: dict[str, int] = {}
    for key, m in mats.items():
        m, tids, policy = _under_policy(collection, key, m, topics, names)
        used_topics[key] = {"policy": policy, "n_topics": len(tids)}
        r = resolve(key, names, warn=False)
        if METRICS[r.base].uses_threshold:
            used_threshold[key] = int(r.params.get("rel_threshold", rel_threshold))
        nT = len(tids)
        if per_topic:
            frames.append(pd.DataFrame({
                "run": np.repeat(runs, nT), "topic": np.tile(np.asarray(tids, dtype=object), nR),
                "metric": key, "value": m.ravel(),
            }))
        frames.append(pd.DataFrame({"run": runs, "topic": MEAN_TOPIC, "metric": key, "value": topic_means(m, mean)}))
    if not frames:
        return pd.DataFrame(columns=["run", "topic", "metric", "value"])
    df = pd.concat(frames, ignore_index=True)
    if per_topic:
        # run by run: per-topic rows of every metric, then the means
        df["_all"] = df["topic"].eq(MEAN_TOPIC)
        df["_r"] = pd.Categorical(df["run"], categories=list(dict.fromkeys(runs)), ordered=True)
        df = df.sort_values(["_r", "_all"], kind="stable").drop(columns=["_all", "_r"]).reset_index(drop=True)
    df.attrs["topics"] = used_topics
    df.attrs["rel_threshold"] = used_threshold
    df.attrs["mean"] = mean
    return df


def means_table(collection: Collection, metrics: Iterable[str] | None = None, *, mean: str = "arithmetic",
                topics: str | None = None, **params) -> pd.DataFrame:
    """Wide table of means: index = runs, one column per metric key; each mean over the topics
    :func:`topic_policy` picks (as in :func:`evaluate`)."""
    mats = score_matrices(collection, metrics, **params)
    names = params.get("names") or ("evalcore" if metrics is None else None)
    return pd.DataFrame({k: topic_means(_under_policy(collection, k, m, topics, names)[0], mean)
                         for k, m in mats.items()}, index=pd.Index(collection.run_ids, name="run"))


def crosswalk() -> pd.DataFrame:
    """Every measure with its names in ir_measures, trec_eval and NTCIREVAL (from the registry;
    ``evalcore metrics`` prints it and the README's table is generated from it)."""
    from .names import crosswalk_rows

    return pd.DataFrame(crosswalk_rows(), columns=["key", "parameters", "definition", "ir_measures", "trec_eval",
                                                 "ntcireval"])
