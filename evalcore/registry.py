"""The metric registry and the tidy ``evaluate`` entry point.

A metric key is the name users type (CLI, DataFrames, the app): ``AP``,
``Q-measure``, ``nDCG@10``, ``P+-measure@1000``. A :class:`MetricSpec` says
which kernel computes it and which settings it reads, so a configured
metric has one canonical label (``Q-measure(beta=2)@100``) usable as a
cache key, column header and plot label.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .collection import Collection
from .gains import levels_statement, resolve_gains, resolve_penalties
from .names import TREC_LIKE, Resolved, metric_text, resolve
from .specs import BETA as BETA  # the table lives in evalcore.specs (below evalcore.names); its public home is here
from .specs import GAINS as GAINS
from .specs import LOG_BASE as LOG_BASE
from .specs import METRIC_KEYS, METRICS, ORDER_TEXT, PARAMS, POLICY_TEXT, SCORE_KEYS, MetricSpec, Param
from .specs import ONE_DOCUMENT_KEYS as ONE_DOCUMENT_KEYS
from .specs import PARAM_SPELLINGS as PARAM_SPELLINGS
from .specs import PENALTIES as PENALTIES
from .specs import PERSISTENCE as PERSISTENCE
from .specs import REL as REL
from .specs import SETTING_PARAMS as SETTING_PARAMS
from .specs import TOPIC_POLICIES as TOPIC_POLICIES
from .specs import Setting as Setting
from .specs import readers as readers
from .specs import setting_help as setting_help

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made: `evalcore evaluate` never imports it
    import pandas as pd

__all__ = ["Param", "PARAMS", "Setting", "SETTING_PARAMS", "readers", "setting_help", "MetricSpec", "METRICS",
           "cutoff_required", "METRIC_KEYS", "SCORE_KEYS",
           "parse_metric", "resolve_metric", "crosswalk", "score_matrix", "score_matrices", "evaluate",
           "evaluate_rows", "ScoreRows", "topic_means", "TOPIC_POLICIES", "topic_policy", "MEAN_TOPIC",
           "policy_matrices", "conventions", "metric_levels", "display_label", "label_note", "VARIANT_WORDS",
           "TopicSetWarning", "ThresholdWarning"]


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
        spec = METRICS[r.base]
        if r.cutoff is None and spec.cutoff == "required":
            out.extend(f"{k}@{int(cut)}" for cut in cutoffs)
        elif spec.at is not None and r.at is None:   # IPrec: trec_eval's 11 recall levels
            out.extend(f"{k}_{x:.2f}" if r.convention == "trec_eval" else f"{k}@{x:g}" for x in spec.at_values)
        else:
            out.append(k)
    return list(dict.fromkeys(out))


#: Parameters that change the ranked lists a kernel reads, not the kernel: applied to the collection first
#: (:func:`_lists_for`), never passed to the kernel.
LIST_PARAMS = ("judged_only", "ties")


def _lists_for(collection: Collection, params: dict) -> Collection:
    """The lists a measure reads under its list parameters: without the unjudged documents for
    ``judged_only=True`` (trec_eval's ``-J``, :meth:`Collection.condensed`), score ties in ir_measures' order
    for ``ties="ir_measures"`` (:meth:`Collection.in_order`)."""
    if params.get("judged_only"):
        collection = collection.condensed()
    if params.get("ties", "trec_eval") != "trec_eval":
        collection = collection.in_order(params["ties"])
    return collection


def _kwargs(spec: MetricSpec, cutoff, **settings) -> dict:
    """The kernel's keyword arguments: each parameter of the spec's table from ``settings`` (its
    default when absent), plus the cutoff unless the metric takes none."""
    kw = {p.name: settings.get(p.name, p.default) for p in spec.params if p.name not in LIST_PARAMS}
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
    parts = [part for prm in PARAMS.values() if prm in spec.params and prm is not spec.at
             for part in [prm.show(given.get(prm.name, prm.default), K)] if part is not None]
    label = spec.key + (f"({','.join(parts)})" if parts else "")
    if r.at is not None:
        return label + f"@{r.at}"
    return label + (f"@{cutoff}" if cutoff is not None else "")


#: The word a label gets when two conventions read it as different measures (:func:`display_label`): evalcore's
#: reading of its own key, by the measure's spec key; the peers' reading is named ``trec_eval`` (ir_measures'
#: ``nDCG@k`` and ``AP@k`` are trec_eval's ``ndcg_cut`` and ``map_cut``), or after the tool that defines it where
#: that is another (``_PEER_WORDS``: ir_measures' ``RBP(rel=1)`` is cwl_eval's).
VARIANT_WORDS = {"nDCG": "JK", "AP": "NTCIREVAL"}
_PEER_WORDS = {"RBP-cwl": "cwl_eval"}


def _readings(text: str) -> set[str]:
    """The measures (spec keys) ``text`` means in evalcore's and in ir_measures' convention (a refused name
    means none)."""
    out = set()
    for conv in ("evalcore", "ir_measures"):
        try:
            out.add(resolve(text, conv, warn=False).base)
        except (KeyError, ValueError):
            pass
    return out


def display_label(metric, names: str | None = None, label: str | None = None) -> str:
    """The label a table, legend or chart prints for ``metric`` (a name or an ir_measures object):

    * ``label``, the user's own, wins;
    * an ir_measures object, or a name read in ir_measures' convention (``irm:nDCG@10``,
      ``names="ir_measures"``), keeps ir_measures' own name (``str(measure)``: ``nDCG@10``);
    * any other name gets evalcore's canonical label (:func:`metric_label`: ``ndcg_cut_10`` ->
      ``MSnDCG@10``, ``map`` -> ``AP``);
    * a label that evalcore and ir_measures read as two different measures is printed with its variant:
      ``nDCG@10 (JK)`` (Jarvelin-Kekalainen's, the papers') or ``nDCG@10 (trec_eval)`` (ir_measures',
      trec_eval's ``ndcg_cut.10``); ``AP@10 (NTCIREVAL)`` or ``AP@10 (trec_eval)`` (``map_cut.10``).

    >>> display_label("nDCG@10"), display_label("nDCG@10", "ir_measures"), display_label("irm:AP@10")
    ('nDCG@10 (JK)', 'nDCG@10 (trec_eval)', 'AP@10 (trec_eval)')
    >>> display_label("ndcg_cut_10"), display_label("P_10"), display_label("nDCG@10", label="nDCG@10 (ours)")
    ('MSnDCG@10', 'P@10', 'nDCG@10 (ours)')
    """
    if label is not None:
        return str(label)
    text = metric_text(metric)
    r = resolve(text, names, warn=False)
    prefix, colon, rest = text.partition(":")
    if colon and prefix in ("irm", "ir_measures"):
        shown = rest.strip()
    elif r.convention == "ir_measures":
        shown = text
    else:
        shown = metric_label(text)
    if len(_readings(shown)) < 2:
        return shown
    own = r.base in _readings(shown) and r.convention == "evalcore"
    return f"{shown} ({VARIANT_WORDS.get(r.base, 'evalcore') if own else _PEER_WORDS.get(r.base, 'trec_eval')})"


def label_note(metric, names: str | None = None) -> str:
    """For a label :func:`display_label` prints with its variant, what it means in words (a legend's line):
    ``nDCG@10 (JK) is nDCG (Jarvelin-Kekalainen)``; "" for any other label.

    >>> label_note("nDCG@10", "ir_measures")
    'nDCG@10 (trec_eval) is nDCG (Microsoft, log2(r+1)), trec_eval ndcg_cut'
    """
    shown = display_label(metric, names)
    if not shown.endswith(")") or len(_readings(shown.rsplit(" (", 1)[0])) < 2:
        return ""
    spec = METRICS[resolve(metric_text(metric), names, warn=False).base]
    return f"{shown} is {spec.name}" + (f", trec_eval {spec.trec_eval}" if spec.trec_eval else "")


def _own_settings(settings: dict, where: str) -> dict:
    """The measures' own settings given as keywords (``p=0.9``, ``f_beta=0.5``: any parameter of :data:`PARAMS`,
    by its name), each the value of every measure that reads it where the name does not fix it; TypeError
    naming a keyword that is none of them."""
    bad = [k for k in settings if k not in PARAMS]
    if bad:
        raise TypeError(f"{where}() got an unexpected keyword argument {bad[0]!r}; a measure's own setting is "
                        f"one of {', '.join(PARAMS)}")
    return settings


def score_matrix(collection: Collection, key: str, *, gains=None, beta: float = 1.0, penalties=None,
                 rel_threshold: int = 1, log_base: float = 2, names: str | None = None, **settings
                 ) -> np.ndarray:
    """Per-topic scores of one metric, shape (n_runs, n_topics).

    ``key``: any name :mod:`evalcore.names` accepts (``Q-measure(beta=2)``,
    ``ndcg_cut.10``, ``AP(rel=2)``, ``P-plus``); parameters the name fixes
    override the keyword arguments. ``names``: the convention to read it in
    (None = auto: the ambiguous ``nDCG@k`` is evalcore's; :func:`score_matrices`
    and :func:`evaluate`, where users paste lists of names, warn about it).
    ``settings``: the measures' own settings by the parameter's name (:data:`PARAMS`): ``p=0.9``, the
    persistence of RBP (Moffat & Zobel 2008), for RBP@k and RBP-residual@k without ``(p=...)``; ``f_beta=0.5``,
    SetF's beta (trec_eval's ``set_F.0.5``).
    """
    spec, cutoff = parse_metric(key, names)
    r = resolve(key, names, warn=False)
    kw = dict(gains=gains, beta=beta, penalties=penalties, rel_threshold=rel_threshold, log_base=log_base,
              **_own_settings(settings, "score_matrix"))
    kw.update(r.params)
    m = spec.func(_lists_for(collection, r.params), **_kwargs(spec, cutoff, **kw))
    if r.base == "NumRel" and r.convention != "trec_eval":
        # ir_measures' NumRel counts only the topics a run retrieved (pytrec_eval evaluates the run's topics):
        # 0 for a topic missing from a run. trec_eval's num_rel under -c keeps R there (the kernel's value).
        m = np.where(collection.lengths > 0, m, 0.0)
    if r.base == "NumQ" and r.convention == "trec_eval":
        m = np.ones_like(m)       # trec_eval -c: num_q counts every qrels topic, retrieved or not
    return m


def score_matrices(collection: Collection, metrics: Iterable[str] | None = None, *, gains=None,
                   beta: float = 1.0, penalties=None, cutoffs: Sequence[int] = (10, 1000),
                   rel_threshold: int = 1, log_base: float = 2, names: str | None = None,
                   standardise: str | None = None, std_a: float = 0.15, std_b: float = 0.5, **settings
                   ) -> dict[str, np.ndarray]:
    """``{key: (n_runs, n_topics) array}`` for every requested metric key.

    Parameters are validated once, up front, so a bad gain fails before any work.
    ``standardise`` ("z", "cdf" or "ab" with ``std_a``/``std_b``; default None = raw
    scores) standardises every matrix per topic over all the collection's runs
    (:mod:`evalcore.meta.standardise`, Webber et al. 2008; Sakai 2016). ``settings``: the measures' own
    settings, as :func:`score_matrix` takes them (``p=0.9``, ``f_beta=0.5``).
    """
    _own_settings(settings, "score_matrices")
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
    _warn_threshold_above_levels(collection, keys, rel_threshold, names)
    out = {k: score_matrix(collection, k, gains=gains, beta=beta, penalties=penalties,
                           rel_threshold=rel_threshold, log_base=log_base, names=names, **settings) for k in keys}
    if names is None and metrics is not None:
        _warn_tie_order(collection, out, rel_threshold)
    if standardise in (None, "none"):
        return out
    from .meta.standardise import standardise_scores

    return standardise_scores(out, standardise, A=std_a, B=std_b)


def _warn_tie_order(collection: Collection, mats: dict[str, np.ndarray], rel_threshold: int) -> None:
    """AmbiguousNameWarning for an unprefixed ``RR@k`` (evalcore's, trec_eval's tie order) whose values differ
    from ir_measures' ``RR@k`` (msmarco's tie order, :meth:`Collection.in_order`) on this collection: the
    same name, another number where score ties straddle the cutoff."""
    moves = collection.ir_measures_order
    if moves is None or not moves.size:
        return
    for key, m in mats.items():
        r = resolve(key, None, warn=False)
        prefixed = key.split("(")[0].count(":") > 0          # evalcore:RR@10 chose its convention
        if prefixed or r.convention != "evalcore" or r.base != "RR" or r.cutoff is None or r.params.get("ties"):
            continue
        theirs = METRICS["RR"].func(_lists_for(collection, {**r.params, "ties": "ir_measures"}), cutoff=r.cutoff,
                                    rel_threshold=r.params.get("rel_threshold", rel_threshold))
        n = int((~np.isclose(m, theirs, rtol=0, atol=1e-12)).sum())
        if n:
            import warnings

            from .names import AmbiguousNameWarning

            warnings.warn(AmbiguousNameWarning(
                f"{key!r} is read as evalcore's RR@{r.cutoff}: score ties in trec_eval's order (document id "
                f"descending). ir_measures' RR@{r.cutoff} (its msmarco provider) orders ties by document id "
                f"ascending and differs on {n} (run, topic) here, where tied documents straddle rank {r.cutoff}: "
                f"write irm:{key} (ir_measures' number) or evalcore:{key} (this one, without this warning)"),
                stacklevel=3)


GEOMETRIC_EPSILON = 1e-5


def topic_means(matrix: np.ndarray, mean: str = "arithmetic", *, skip_nan: bool = False) -> np.ndarray:
    """Mean over topics (axis 1). ``"geometric"``: exp(mean(log(max(x, 1e-5)))),
    the G_AveP / G_Q-measure of the papers, with the usual floor for zeros. ``skip_nan``: over each run's
    topics that are not NaN (a measure undefined there: ir_measures' Accuracy); NaN where every one is."""
    if mean not in ("arithmetic", "geometric"):
        raise ValueError(f"mean must be 'arithmetic' or 'geometric'; got {mean!r}")
    x = np.log(np.maximum(matrix, GEOMETRIC_EPSILON)) if mean == "geometric" else matrix
    if skip_nan:
        ok = ~np.isnan(matrix)
        n = ok.sum(axis=1)
        mu = np.full(matrix.shape[0], np.nan)
        np.divide(np.where(ok, x, 0.0).sum(axis=1), n, out=mu, where=n > 0)
    else:
        mu = x.mean(axis=1)
    return np.exp(mu) if mean == "geometric" else mu


def _aggregate(key: str, matrix: np.ndarray, mean: str, names: str | None) -> np.ndarray:
    """The "all" row of one metric: :func:`topic_means`, or the sum over topics for a count (NumRet,
    NumRel, NumRelRet), as trec_eval and ir_measures aggregate counts, whatever ``mean`` says."""
    spec = METRICS[resolve(key, names, warn=False).base]
    if spec.count:
        return matrix.sum(axis=1)
    return topic_means(matrix, "geometric" if spec.aggregate == "geometric" else mean,
                       skip_nan=spec.aggregate == "defined")


#: The topic label of the mean rows in :func:`evaluate` (and trec_eval's output).
MEAN_TOPIC = "all"



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
      trec_eval, ir_measures or ranx name (``map``, ``P_10``, ``irm:nDCG@10``,
      ``mrr@10``, anything under ``names="trec_eval"``) and for the measures only
      trec_eval and ir_measures define, whose evalcore key is the peer's name
      (``R@k``, ``bpref``, ``Judged@k``, ``NumRet``, ``NumRel``,
      ``NumRelRet``; ``MetricSpec.topics``); ``"ntcireval"`` for evalcore's
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
    r = resolve(name, names, warn=False)
    if r.convention in TREC_LIKE or METRICS[r.base].topics == "trec_eval":
        return "trec_eval"
    return "ntcireval"


def _check_mean_topic(collection: Collection, per_topic: bool) -> None:
    if per_topic and MEAN_TOPIC in (*collection.topic_ids, *collection.topics_without_relevant):
        raise ValueError(f"a topic is named {MEAN_TOPIC!r}, the label of the mean rows: its per-topic rows would "
                         "mix with the means. Rename that topic in the qrels and the runs (e.g. to 'all_'), or "
                         "ask for the means only (per_topic=False / no --per-topic)")


def _under_policy(collection: Collection, key: str, m: np.ndarray, topics: str | None, names: str | None,
                  settings: dict | None = None) -> tuple[np.ndarray, tuple[str, ...], str]:
    """(matrix over the policy's topics, their ids, the policy) for one metric's (n_runs, n_topics) matrix.

    Under trec_eval's policy the topics without a relevant document are appended: 0 for every measure
    (trec_eval computes 0 there), except the measures that describe the list itself (NumRet, Judged@k;
    ``MetricSpec.scores_without_relevant``), computed on ``collection.no_relevant`` with ``settings``
    (the call's keyword arguments) - 0 too when the collection does not carry those lists (built by
    hand), as for a topic missing from a run; NaN (no value) for a measure whose mean skips the topics where
    it is undefined (``MetricSpec.aggregate == "defined"``)."""
    policy = topic_policy(key, topics, names)
    zero_ids = collection.topics_without_relevant
    if policy == "trec_eval" and zero_ids:
        r = resolve(key, names, warn=False)
        spec, side = METRICS[r.base], collection.no_relevant
        extra = np.full((m.shape[0], len(zero_ids)), np.nan if spec.aggregate == "defined" else 0.0)
        if spec.scores_without_relevant and side is not None and side.topic_ids == zero_ids:
            kw = {k: v for k, v in (settings or {}).items() if k in PARAMS}
            extra = spec.func(_lists_for(side, r.params), **_kwargs(spec, r.cutoff, **{**kw, **r.params}))
        return np.concatenate([m, extra], axis=1), collection.topic_ids + zero_ids, policy
    return m, collection.topic_ids, policy


class ThresholdWarning(UserWarning):
    """A binary metric's relevance threshold above the collection's highest level: no document counts as
    relevant and every score of that metric is 0 (as trec_eval ``-l`` and ir_measures' ``rel=`` give, silently)."""


def _warn_threshold_above_levels(collection: Collection, keys, rel_threshold: int, names: str | None) -> None:
    """:class:`ThresholdWarning` naming the metrics whose threshold (``rel_threshold`` or the name's own
    ``rel=``) exceeds ``collection.max_level``."""
    K = int(collection.max_level)
    if K < 1:
        return
    high: dict[int, list[str]] = {}
    for k in keys:
        r = resolve(k, names, warn=False)
        if METRICS[r.base].uses_threshold:
            t = int(r.params.get("rel_threshold", rel_threshold))
            if t > K:
                high.setdefault(t, []).append(k)
    for t, ks in high.items():
        import warnings

        shown = ", ".join(ks[:6]) + (f" and {len(ks) - 6} more" if len(ks) > 6 else "")
        warnings.warn(ThresholdWarning(
            f"relevance threshold {t} is above the collection's highest relevance level ({K}): no document counts "
            f"as relevant, so every score of {shown} is 0; give a threshold of 1 to {K} (--rel-threshold, "
            "rel_threshold=, or rel= in the name)"), stacklevel=3)


class TopicSetWarning(UserWarning):
    """A metric name that evalcore and ir_measures compute alike per topic but average over different topics
    (``P@10``, ``RR``, ``AP(rel=2)``), on data where the two means differ."""


def _ambiguous_topics(collection: Collection, key: str, m: np.ndarray, topics: str | None, names: str | None,
                      settings: dict) -> str | None:
    """The sentence for :class:`TopicSetWarning` when ``key`` (read by its name's convention, ``topics`` None)
    means the same per topic as ir_measures' name but averages over NTCIREVAL's topics, and the means over
    ir_measures' (trec_eval's) topics differ on this collection; else None."""
    if topics is not None or names is not None or not collection.topics_without_relevant:
        return None
    r = resolve(key, None, warn=False)
    if r.convention != "evalcore" or topic_policy(key) != "ntcireval":
        return None
    try:
        peer = resolve(key, "ir_measures", warn=False)
    except ValueError:
        return None
    if peer.convention != "ir_measures" or (peer.base, peer.cutoff, peer.params) != (r.base, r.cutoff, r.params):
        return None
    ours = m.mean(axis=1)
    theirs = _under_policy(collection, key, m, "trec_eval", names, settings)[0].mean(axis=1)
    if np.allclose(ours, theirs, rtol=1e-12, atol=1e-15):
        return None
    n, n_all = m.shape[1], m.shape[1] + len(collection.topics_without_relevant)
    return (f"{key} (means over {n} topics, NTCIREVAL's: only topics with a relevant document; ir_measures' "
            f"{key} averages over all {n_all} qrels topics, scoring 0 on the others)")


def _warn_topic_sets(notes: list[str]) -> None:
    if notes:
        import warnings

        warnings.warn("names that evalcore and ir_measures share but average over different topics, with "
                      "different means here: " + "; ".join(notes) + ". Choose with topics='trec_eval' "
                      "(ir_measures' and trec_eval's topics; CLI --topics trec_eval) or topics='ntcireval' "
                      "(NTCIREVAL's; the default for these names), or write irm:NAME / names='ir_measures'.",
                      TopicSetWarning, stacklevel=4)


def conventions(collection: Collection, *, gains=None, penalties=None) -> dict:
    """What shaped every number besides the metric's own parameters, as :func:`evaluate`'s ``attrs`` and
    every output state it: ``order`` (how each ranked list was ordered, :attr:`Collection.order`, and
    ``order_text`` in words), ``depth`` (the depth the lists were cut at, None for whole lists), ``condensed``
    (unjudged documents removed first, :meth:`Collection.condensed`), ``gains``
    and ``penalties`` as used on the collection's levels, highest level first with each level named
    (``L3=3 : L2=2 : L1=1``, :func:`evalcore.gains.levels_statement`).

    >>> import evalcore
    >>> conventions(evalcore.paper_examples())["gains"]
    'S=3 : A=2 : B=1'
    """
    K, names = collection.max_level, collection.level_names
    return {"order": collection.order, "order_text": ORDER_TEXT.get(collection.order, collection.order),
            "depth": collection.depth_limit, "condensed": collection.condensed_lists,
            "gains": levels_statement(resolve_gains(gains, K), names) if K else None,
            "penalties": levels_statement(resolve_penalties(penalties, K), names) if K else None}


def metric_levels(collection: Collection, key: str, names: str | None = None, *, gains=None, penalties=None
                  ) -> dict[str, str]:
    """The gains and penalties measure ``key`` used on the collection's levels, each written with its levels
    highest first (:func:`evalcore.gains.levels_statement`): ``{"gains": ..., "penalties": ...}``, only those
    the measure reads. A value the name fixes wins over the call's (``ndcg_cut.10``: gain = level, whatever
    ``gains`` is; ``O-measure(gains=10:5:1)``).

    >>> import evalcore
    >>> c = evalcore.paper_examples()
    >>> metric_levels(c, "ndcg_cut.10", gains="10:5:1"), metric_levels(c, "Q-measure", gains="10:5:1")
    ({'gains': 'S=3 : A=2 : B=1'}, {'gains': 'S=10 : A=5 : B=1'})
    """
    K = collection.max_level
    if not K:
        return {}
    r = resolve(key, names, warn=False)
    spec = METRICS[r.base]
    out = {}
    if spec.uses_gains:
        out["gains"] = levels_statement(resolve_gains(r.params.get("gains", gains), K), collection.level_names)
    if spec.uses_penalties:
        out["penalties"] = levels_statement(resolve_penalties(r.params.get("penalties", penalties), K),
                                            collection.level_names)
    return out


def policy_matrices(collection: Collection, metrics: Iterable[str] | None = None, *, topics: str | None = None,
                    **params) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
    """:func:`score_matrices` over the topics each metric's mean runs over (:func:`topic_policy`), as
    :func:`evaluate` averages them: ``({key: (n_runs, n_topics) matrix}, {key: {"policy", "n_topics"}})``.
    What every meta-evaluation command scores (``pairs``, ``kendall``, ``swap``, ``bootstrap``, ...), so
    that ``-m map`` runs over trec_eval's topics there as in ``evaluate`` and ``compare``."""
    if topics is not None:
        topic_policy("AP", topics)
    mats = score_matrices(collection, metrics, **params)
    names = params.get("names") or ("evalcore" if metrics is None else None)
    settings = {k: v for k, v in params.items() if k in PARAMS}
    out, info = {}, {}
    for k, m in mats.items():
        out[k], tids, policy = _under_policy(collection, k, m, topics, names, settings)
        info[k] = {"policy": policy, "n_topics": len(tids)}
    return out, info


@dataclass
class ScoreRows:
    """:func:`evaluate`'s table without pandas: the columns as lists, in the table's row order, and the
    table's ``attrs``. What :mod:`evalcore.writers` and ``evalcore evaluate`` read (a DataFrame works
    there too); ``evalcore evaluate`` therefore never imports pandas (docs/benchmarks.md section 14)."""

    run: list[str]
    topic: list[str]
    metric: list[str]
    value: np.ndarray
    attrs: dict
    columns = ("run", "topic", "metric", "value")

    def rows(self):
        """(run, topic, metric, value) tuples, in order."""
        return zip(self.run, self.topic, self.metric, self.value.tolist(), strict=True)

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        df = pd.DataFrame({"run": self.run, "topic": self.topic, "metric": self.metric, "value": self.value})
        df.attrs.update(self.attrs)
        return df


def _state_settings(collection: Collection, key: str, names, rel_threshold: int, gains, penalties,
                    used_threshold: dict, used_levels: dict) -> Resolved:
    """Note what shaped measure ``key``'s numbers for :func:`evaluate_rows`' attrs (its threshold, when binary;
    the gains and penalties it used, :func:`metric_levels`); returns what the name means."""
    r = resolve(key, names, warn=False)
    if METRICS[r.base].uses_threshold:
        used_threshold[key] = int(r.params.get("rel_threshold", rel_threshold))
    for what, v in metric_levels(collection, key, names, gains=gains, penalties=penalties).items():
        used_levels[what][key] = v
    return r


def evaluate_rows(collection: Collection, metrics: Iterable[str] | None = None, *, gains=None, beta: float = 1.0,
                  penalties=None, cutoffs: Sequence[int] = (10, 1000), rel_threshold: int = 1,
                  log_base: float = 2, mean: str = "arithmetic", per_topic: bool = False,
                  names: str | None = None, topics: str | None = None, means: bool | None = None, **settings
                  ) -> ScoreRows | None:
    """:func:`evaluate`'s rows and attrs as a :class:`ScoreRows` (None when no metric is asked for); same
    arguments, same rows in the same order. ``evalcore evaluate --per-topic`` asks for ``means=True``:
    trec_eval -q's layout, each run's topics then its ``all`` rows."""
    if mean not in ("arithmetic", "geometric"):
        raise ValueError(f"mean must be 'arithmetic' or 'geometric'; got {mean!r}")
    if topics is not None:
        topic_policy("AP", topics)            # a bad policy fails before any work
    means = (not per_topic) if means is None else bool(means)
    if not per_topic and not means:
        raise ValueError("per_topic=False and means=False ask for no rows: ask for the per-topic rows "
                         "(per_topic=True), the means (means=True) or both")
    _check_mean_topic(collection, per_topic)
    mats = score_matrices(collection, metrics, gains=gains, beta=beta, penalties=penalties, cutoffs=cutoffs,
                          rel_threshold=rel_threshold, log_base=log_base, names=names, **settings)
    if metrics is None:
        names = names or "evalcore"
    if not mats:
        return None
    runs = list(collection.run_ids)
    used_topics: dict[str, dict] = {}
    used_threshold: dict[str, int] = {}
    used_levels: dict[str, dict[str, str]] = {"gains": {}, "penalties": {}}
    parts = []   # (key, matrix over the policy's topics, their ids, the means)
    aggregate: dict[str, str] = {}
    settings = dict(gains=gains, beta=beta, penalties=penalties, rel_threshold=rel_threshold, log_base=log_base,
                    **settings)
    notes = []
    for key, m in mats.items():
        note = _ambiguous_topics(collection, key, m, topics, names, settings)
        if note:
            notes.append(note)
        m, tids, policy = _under_policy(collection, key, m, topics, names, settings)
        used_topics[key] = {"policy": policy, "n_topics": len(tids)}
        r = _state_settings(collection, key, names, rel_threshold, gains, penalties, used_threshold, used_levels)
        spec = METRICS[r.base]
        aggregate[key] = "sum" if spec.count else "geometric" if spec.aggregate == "geometric" else mean
        parts.append((key, m, list(tids), _aggregate(key, m, mean, names)))
    run_col: list[str] = []
    topic_col: list[str] = []
    metric_col: list[str] = []
    values = []
    if per_topic:   # run by run: the per-topic rows of every metric, then (if asked for) the means
        for i, run in enumerate(runs):
            for key, m, ids, _ in parts:
                run_col += [run] * len(ids)
                topic_col += ids
                metric_col += [key] * len(ids)
                values.append(m[i])
            if not means:
                continue
            for key, _, _, mu in parts:
                run_col.append(run)
                topic_col.append(MEAN_TOPIC)
                metric_col.append(key)
                values.append(mu[i:i + 1])
    else:           # the means, metric after metric
        for key, _, _, mu in parts:
            run_col += runs
            topic_col += [MEAN_TOPIC] * len(runs)
            metric_col += [key] * len(runs)
            values.append(mu)
    value = np.concatenate(values).astype(np.float64, copy=False) if values else np.zeros(0)
    _warn_topic_sets(notes)
    policies = {v["policy"] for v in used_topics.values()}
    return ScoreRows(run_col, topic_col, metric_col, value,
                     {"topics": used_topics, "rel_threshold": used_threshold, "mean": mean,
                      "metric_gains": used_levels["gains"], "metric_penalties": used_levels["penalties"],
                      "labels": {k: display_label(k, names) for k in mats},
                      "aggregate": aggregate, "policies": {k: POLICY_TEXT[k] for k in TOPIC_POLICIES if k in policies},
                      **conventions(collection, gains=gains, penalties=penalties)})


def evaluate(collection: Collection, metrics: Iterable[str] | None = None, *, gains=None, beta: float = 1.0,
             penalties=None, cutoffs: Sequence[int] = (10, 1000), rel_threshold: int = 1,
             log_base: float = 2, mean: str = "arithmetic", per_topic: bool = False,
             names: str | None = None, topics: str | None = None, means: bool | None = None, **settings
             ) -> pd.DataFrame:
    """Evaluate every run on every topic; a tidy DataFrame (run, topic, metric, value).

    ``metrics``: names in any convention :mod:`evalcore.names` accepts, or
    ir_measures measure objects (the ``metric`` column keeps the names as
    given; ``names`` picks a convention). By default (``per_topic=False``) the
    rows hold the means: topic ``"all"``, the mean over the topics that :func:`topic_policy` picks for ``topics``
    (``"trec_eval"``, ``"ntcireval"`` or None = per metric by its name's
    convention); a topic missing from a run counts as 0. The "all" row of a
    count (NumRet, NumRel, NumRelRet; ``MetricSpec.count``) is the sum over
    those topics instead, as trec_eval and ir_measures aggregate counts
    (``attrs["aggregate"][metric]`` says ``"sum"`` or the mean).

    ``per_topic=True`` gives the per-topic rows, run by run, and *only* them: every row is a topic, so
    a test or a mean written on the frame cannot take a mean row for a topic. Under trec_eval's policy
    they include the topics without a relevant document (value 0, but for NumRet and Judged@k,
    computed on their lists). ``means=True`` adds each run's ``"all"`` rows after its topics
    (trec_eval -q's layout, as :func:`evalcore.to_trec_eval` writes it); the means alone are
    ``per_topic=False``, a separate frame.

    ``df.attrs`` states what was used, per metric: ``attrs["topics"][metric]
    = {"policy": ..., "n_topics": ...}`` and, for binary measures,
    ``attrs["rel_threshold"][metric]`` (a threshold written in the name,
    ``AP(rel=2)``, wins over ``rel_threshold``); for the whole table:
    ``attrs["policies"]`` (each policy used, in words: ``trec_eval -c: ...``),
    ``attrs["order"]`` / ``attrs["order_text"]`` (the ranking order, with
    its tie-breaking), ``attrs["depth"]``, ``attrs["condensed"]`` and ``attrs["gains"]`` /
    ``attrs["penalties"]`` as used, highest level first with each level
    named (:func:`conventions`); per metric ``attrs["metric_gains"]`` / ``attrs["metric_penalties"]``
    (the values each measure used, :func:`metric_levels`: a peer's name pins its own) and
    ``attrs["aggregate"]``. :func:`evalcore.legend.meta` and :func:`evalcore.legend.sentence` state
    them as JSON and in words. A name that evalcore and ir_measures compute
    alike per topic but average over different topics (``P@10``, ``RR``,
    ``AP(rel=2)``: NTCIREVAL's topics here, every qrels topic there) raises
    one :class:`TopicSetWarning` per call when ``topics`` is None and the two
    means differ on this collection; ``topics=`` chooses and silences it. ``settings``: the measures' own
    settings by the parameter's name, each where the name does not fix it: ``p``, RBP's persistence (Moffat &
    Zobel 2008; ``RBP(p=0.9)@10`` fixes it); ``f_beta``, SetF's beta (``SetF(beta=0.5)``).

    >>> import evalcore
    >>> c = evalcore.paper_examples()
    >>> df = evaluate(c, ["O-measure"], per_topic=True)
    >>> list(df.columns), "all" in set(df["topic"])
    (['run', 'topic', 'metric', 'value'], False)
    """
    rows = evaluate_rows(collection, metrics, gains=gains, beta=beta, penalties=penalties, cutoffs=cutoffs,
                         rel_threshold=rel_threshold, log_base=log_base, mean=mean, per_topic=per_topic,
                         names=names, topics=topics, means=means, **settings)
    if rows is None:
        import pandas as pd

        return pd.DataFrame(columns=["run", "topic", "metric", "value"])
    return rows.to_frame()


def means_table(collection: Collection, metrics: Iterable[str] | None = None, *, mean: str = "arithmetic",
                topics: str | None = None, **params) -> pd.DataFrame:
    """Wide table of means: index = runs, one column per metric key; each mean over the topics
    :func:`topic_policy` picks (as in :func:`evaluate`; a count's column holds the sum)."""
    mats = score_matrices(collection, metrics, **params)
    names = params.get("names") or ("evalcore" if metrics is None else None)
    import pandas as pd

    settings = {k: v for k, v in params.items() if k in PARAMS}
    return pd.DataFrame({k: _aggregate(k, _under_policy(collection, k, m, topics, names, settings)[0], mean, names)
                         for k, m in mats.items()}, index=pd.Index(collection.run_ids, name="run"))


def crosswalk() -> pd.DataFrame:
    """Every measure with its names in ir_measures, trec_eval, NTCIREVAL and ranx (from the registry;
    ``evalcore metrics`` prints it and docs/metrics.md's table is generated from it)."""
    import pandas as pd

    from .names import crosswalk_rows

    return pd.DataFrame(crosswalk_rows(), columns=["key", "parameters", "definition", "ir_measures", "trec_eval",
                                                 "ntcireval", "ranx"])
