"""What shaped a number, stated with it: one description of the conventions for every output.

:func:`evalcore.evaluate` fills its table's ``attrs`` with what shaped each number (the gains and
penalties each measure used, its relevance threshold, the topics its mean ran over and how it was
averaged; for the whole table the ranking order with its tie-breaking, the depth the lists were cut at
and whether unjudged documents were removed first). This module turns those ``attrs`` into the two forms
every output carries them in:

* :func:`meta` - a JSON-ready object (``evalcore evaluate --output json``'s ``meta``, the dashboard's
  downloads, :class:`evalcore.CompareResult`'s ``conventions``);
* :func:`sentence` - one paragraph in words for a legend or a caption (Markdown, LaTeX, figures).

Both name the gains with their levels, highest level first (``S=10 : A=5 : B=1``), since a gains string
without its levels is read in two orders by different tools (docs/conventions.md, "Level order").
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["meta", "sentence", "compact", "MEANS_TEXT"]

#: How a mean row combines the topics, in words (``attrs["aggregate"]`` values).
MEANS_TEXT = {"arithmetic": "arithmetic mean", "geometric": "geometric mean (floor 1e-5)", "sum": "sum"}


def meta(attrs: Mapping) -> dict:
    """The conventions of an :func:`evalcore.evaluate` table as a JSON-ready object: ``gains`` and
    ``penalties`` ({metric: levels statement}, the measures that read them), ``rel_threshold``
    ({metric: level}, binary measures), ``topics`` ({metric: {policy, n_topics}}), ``mean`` ({metric:
    ``arithmetic`` | ``geometric`` | ``sum``}), ``order`` and ``order_text`` (the ranking order and its
    tie-breaking), ``depth`` (None: whole lists), ``condensed`` and ``labels`` ({metric: the label tables and
    charts print}, :func:`evalcore.registry.display_label`: ``nDCG@10 (JK)``).

    >>> import evalcore
    >>> m = meta(evalcore.evaluate(evalcore.paper_examples(), ["Q-measure", "AP"], gains="10:5:1").attrs)
    >>> m["gains"], m["rel_threshold"], m["order"], m["depth"], m["mean"]["AP"]
    ({'Q-measure': 'S=10 : A=5 : B=1'}, {'AP': 1}, 'given', None, 'arithmetic')
    """
    return {"gains": dict(attrs.get("metric_gains") or {}), "penalties": dict(attrs.get("metric_penalties") or {}),
            "rel_threshold": dict(attrs.get("rel_threshold") or {}),
            "topics": {k: dict(v) for k, v in (attrs.get("topics") or {}).items()},
            "mean": dict(attrs.get("aggregate") or {}), "order": attrs.get("order"),
            "order_text": attrs.get("order_text"), "depth": attrs.get("depth"),
            "condensed": bool(attrs.get("condensed", False)), "labels": dict(attrs.get("labels") or {})}


def _grouped(values: Mapping[str, object], show, all_metrics: Iterable[str], labels: Mapping[str, str]) -> str:
    """``show(v) (metric, metric); show(w) (metric)``: one clause per distinct value; the metrics are
    named unless one value holds for every metric of the table."""
    groups: dict[str, list[str]] = {}
    for m, v in values.items():
        groups.setdefault(show(v), []).append(labels.get(m, m))
    everyone = len(groups) == 1 and len(next(iter(groups.values()))) == len(list(all_metrics))
    return "; ".join(text if everyone else f"{text} ({', '.join(ms)})" for text, ms in groups.items())


def _topics_words(policy_n) -> str:
    policy, n = policy_n
    return {"trec_eval": f"every qrels topic ({n}; trec_eval -c: one without a relevant document scores 0)",
            "ntcireval": f"the {n} topics with a relevant document (NTCIREVAL's)"}.get(policy, f"{n} topics")


def sentence(conv: Mapping, metrics: Iterable[str] | None = None, labels: Mapping[str, str] | None = None, *,
             topics: bool = True) -> str:
    """The conventions of :func:`meta` (or a table's ``attrs``) in words, for a legend or caption:
    gains with their levels, relevance threshold, depth, condensed lists, ranking order with its ties,
    the mean and (``topics``) the topics each mean ran over. Metrics are named by ``labels`` where given;
    empty parts are left out.

    >>> sentence({"gains": {"Q": "S=10 : A=5 : B=1"}, "rel_threshold": {"AP": 2}, "depth": 50, "order": "score",
    ...           "order_text": "score descending, exact ties by document id descending", "mean": {"Q": "arithmetic",
    ...           "AP": "arithmetic"}})     # doctest: +NORMALIZE_WHITESPACE
    'Gains, highest level first: S=10 : A=5 : B=1 (Q). Relevant: level >= 2 (AP). Lists cut at rank 50.
     Ranking: score descending, exact ties by document id descending. Means: arithmetic mean.'
    """
    c = meta(conv) if "aggregate" in conv or "metric_gains" in conv else conv
    labels = dict(labels or {})
    names = list(metrics) if metrics is not None else list(dict.fromkeys(
        [*c.get("mean", {}), *c.get("gains", {}), *c.get("rel_threshold", {})]))
    out = []
    for key, word in (("gains", "Gains"), ("penalties", "Penalties")):
        if c.get(key):
            out.append(f"{word}, highest level first: {_grouped(c[key], str, names, labels)}")
    if c.get("rel_threshold"):
        out.append("Relevant: " + _grouped(c["rel_threshold"], lambda v: f"level >= {v}", names, labels))
    depth = c.get("depth")
    if c.get("order") is not None or depth is not None:
        out.append(f"Lists cut at rank {depth}" if depth is not None else "Whole ranked lists")
    if c.get("condensed"):
        out.append("Condensed lists (unjudged documents removed first)")
    if c.get("order_text") or c.get("order"):
        out.append(f"Ranking: {c.get('order_text') or c.get('order')}")
    if c.get("mean"):
        out.append("Means: " + _grouped(c["mean"], lambda v: MEANS_TEXT.get(str(v), str(v)), names, labels))
    if topics and c.get("topics"):
        out.append("Topics: " + _grouped({m: (v.get("policy"), v.get("n_topics")) for m, v in c["topics"].items()},
                                         _topics_words, names, labels))
    text = ". ".join(out)
    return text + ("." if text else "")


def compact(statement: str) -> str:
    """A levels statement without spaces, for one whitespace-free field (``S=10:A=5:B=1``).

    >>> compact("S=10 : A=5 : B=1")
    'S=10:A=5:B=1'
    """
    return statement.replace(" : ", ":").replace(" ", "")
