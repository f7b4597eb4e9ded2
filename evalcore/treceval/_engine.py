"""trec_eval's main loop (``trec_eval.c``): mark the measures, evaluate every topic, average, print.

:func:`select` reads the ``-m`` arguments as ``mark_measure`` does; :func:`evaluate` computes every marked
measure on every evaluated topic (:class:`Evaluation`); :func:`render` writes trec_eval's lines
(``%-22s\\t%s\\t%6.4f`` for a number, ``%ld`` for a count, ``'%s'`` for ``relstring``) per topic with ``-q``
and then the summary (``all``), in trec_eval's measure order.

Summaries (``meas_avg.c``): a mean is the running sum over topics in trec_eval's topic order divided by the
number of topics; ``gm_*`` is ``exp`` of the mean of the per-topic logs; counts are sums; ``num_rel`` under
``-c`` counts the qrels documents with a relevance above 0 in every qrels topic (trec_eval's
``te_calc_avg_num_rel``, whatever ``-l`` says).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _core, _gains, _sets  # noqa: F401  - registers the measures
from ._read import Qrels, Results
from ._rels import Options, ResRels, form_res_rels
from ._table import MEASURES, NICKNAMES, Measure, ParamError, Params, parse_params, value_names

__all__ = ["Selection", "select", "Evaluation", "evaluate", "render", "UnknownMeasure", "format_value"]


class UnknownMeasure(ValueError):
    """A ``-m`` name that is neither a measure nor a nickname (trec_eval: "illegal measure")."""


@dataclass(frozen=True)
class Selection:
    """The marked measures in trec_eval's order, each with its parameters and their text as typed."""

    measures: tuple[tuple[Measure, Params, str | None], ...]


_PREFS = ("prefs_", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "all_prefs", "qrels_jg", "prefs")


def select(args: list[str]) -> Selection:
    """The measures ``-m`` marks (``official`` when none), with the first parameters given for each."""
    marked: set[str] = set()
    given: dict[str, str] = {}
    for arg in args or ["official"]:
        name, dot, text = arg.partition(".")
        if dot:
            if text == "":
                raise UnknownMeasure(f"trec_eval: improper measure in parameter '{name}'")
            given.setdefault(name, text)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in MEASURES:
            marked.add(name)
        elif name.startswith(_PREFS) or name in _PREFS:
            raise UnknownMeasure(f"trec_eval: measure '{arg}' needs preference judgments (-R prefs / qrels_prefs "
                                 "/ qrels_jg), which evalcore trec_eval does not read; see docs/cli.md")
        else:
            raise UnknownMeasure(f"trec_eval: illegal measure '{arg}'")
    out = []
    for name, m in MEASURES.items():
        if name in marked:
            typed = given.get(name)
            try:
                params = parse_params(m, typed) if typed is not None else m.default
            except ParamError as e:
                raise ParamError(f"{e} (in -m {name}.{typed})") from None
            out.append((m, params, typed if (typed is not None and m.params is not None) else None))
    return Selection(tuple(out))


@dataclass
class Evaluation:
    """Per-topic values of every selected measure, and the run's tag."""

    rr: ResRels
    selection: Selection
    values: list[np.ndarray]        # one (n_topics, n_values) array per measure, float64 or object
    names: list[list[str]]
    zscores: bool = False           # values are -Z z-scores (printed Z..., %6.4f)

    @property
    def qids(self) -> list[str]:
        return self.rr.qids


def evaluate(qrels: Qrels, results: Results, selection: Selection, opts: Options,
             zscores: dict[tuple[str, str], tuple[float, float]] | None = None) -> Evaluation:
    """Compute every selected measure on every evaluated topic (:func:`~._rels.form_res_rels`); with
    ``zscores`` (``-Z``, :mod:`._zscore`) each per-topic value becomes its z-score."""
    rr = form_res_rels(qrels, results, opts)
    values, names = [], []
    for m, params, printable in selection.measures:
        v = m.calc(rr, params)
        nm = value_names(m, params, printable)
        if rr.bogus.any():
            v = _clean_bogus(v, nm, rr.bogus)
        if zscores is not None and m.kind in ("double", "long"):
            from ._zscore import convert
            v = np.array([[convert(float(v[t, j]), q, nm[j], zscores) for j in range(v.shape[1])]
                          for t, q in enumerate(rr.qids)]).reshape(v.shape)
        values.append(v)
        names.append(nm)
    return Evaluation(rr, selection, values, names, zscores is not None)


def _clean_bogus(v: np.ndarray, names: list[str], bogus: np.ndarray) -> np.ndarray:
    """trec_eval.c's clean-up after a ``-c`` stand-in topic, by value name as it does: ``num_ret``, ``utility``,
    ``rbp_resid`` and every name starting ``unj`` become 0, ``relstring`` the empty string. A name carrying
    parameters (``utility_2,-1,0,0``, ``relstring_20``) is not cleaned, as in trec_eval."""
    v = v.copy()
    for j, name in enumerate(names):
        if name == "relstring":
            v[bogus, j] = ""
        elif name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
            v[bogus, j] = 0.0
    return v


def format_value(v: float) -> str:
    """C's ``%6.4f``, NaN written as glibc writes it (``-nan`` when its sign bit is set)."""
    if math.isnan(v):
        return f"{'-nan' if math.copysign(1.0, v) < 0 else 'nan':>6}"
    return f"{v:6.4f}"


def _line(name: str, qid: str, m: Measure, v, z: bool = False) -> str:
    if z and m.kind in ("double", "long"):
        return f"Z{name:<22}\t{qid}\t{format_value(float(v))}"
    if m.kind == "long":
        return f"{name:<22}\t{qid}\t{int(v)}"
    if m.kind == "relstring":
        return f"{name:<22}\t{qid}\t'{v}'"
    return f"{name:<22}\t{qid}\t{format_value(float(v))}"


def summary_values(ev: Evaluation, qrels: Qrels, m: Measure, v: np.ndarray) -> np.ndarray:
    """One summary value per column of ``v`` (see the module docstring)."""
    n = ev.rr.n_topics
    total = np.zeros(v.shape[1])
    for j in range(v.shape[1]):       # acc += value from 0.0, topic by topic, in trec_eval's order (meas_acc.c):
        acc = 0.0                     # -0.0 on every topic sums to 0.0, and of two NaNs the later one's sign
        for x in v[:, j].tolist():    # is kept (value + acc, as the C addition returns it)
            acc = float(x) + acc
        total[j] = acc
    if m.summary == "mean":
        return total / n if n else total
    if m.summary == "gm":
        return np.array([math.exp(x) for x in (total / n).tolist()]) if n else total   # the C library's exp
    if m.summary == "num_q":
        return np.array([float(n)])
    if m.summary == "num_rel" and ev.rr.options.average_complete:
        return np.array([float(sum(r > 0 for t in qrels.topics.values() for r in t.values()))])
    return total


def render(ev: Evaluation, qrels: Qrels, *, per_topic: bool, summary: bool = True) -> str:
    """trec_eval's output: per-topic lines (``-q``) topic by topic, then the summary lines (unless ``-n``)."""
    out: list[str] = []
    sel = ev.selection.measures
    if per_topic:
        for t, qid in enumerate(ev.qids):
            for (m, _, _), v, names in zip(sel, ev.values, ev.names, strict=True):
                if m.per_topic:
                    out.extend(_line(nm, qid, m, v[t, j], ev.zscores) for j, nm in enumerate(names))
    if summary:
        for (m, _, _), v, names in zip(sel, ev.values, ev.names, strict=True):
            if m.kind == "runid":
                out.append(f"{'runid':<22}\tall\t{ev.rr.run_id}")
            elif m.summary != "none":
                s = summary_values(ev, qrels, m, v)
                out.extend(_line(nm, "all", m, s[j], ev.zscores) for j, nm in enumerate(names))
    return "".join(line + "\n" for line in out)
