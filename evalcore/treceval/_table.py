"""trec_eval's measure table (``measures.c``) and its parameter syntax (``meas_init.c``).

A :class:`Measure` says what trec_eval's ``TREC_MEAS`` entry says: its name, its parameter kind and default,
how a topic's value is computed (``calc``: every topic at once, over a :class:`~._rels.ResRels`), how the
summary combines topics, and how values print. :data:`MEASURES` lists them in trec_eval's order
(``te_trec_measures[]``), the order of its output; :data:`NICKNAMES` are its ``-m`` nicknames.

Parameters, as ``-m name.params`` gives them (``meas_init.c``):

* ``cut_long`` (``P.5,10``): whole numbers (``atol``: ``23.4`` is 23), sorted, at least 1, no duplicates; one
  value per cutoff, named ``P_5``;
* ``cut_double`` (``iprec_at_recall..1,.5``): numbers, sorted, no duplicates; named with ``%3.2f``
  (``iprec_at_recall_0.10``);
* ``double`` (``utility.2,-1,0,0``): numbers in the given order; one value, named ``utility``, or
  ``utility_2,-1,0,0`` when parameters are given (the text as typed, on every line);
* ``pair`` (``ndcg.1=3,2=9``): ``name=value`` pairs; one value, named like ``double``.

Only a measure's first ``-m name.params`` counts (trec_eval keeps the first match).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Measure", "MEASURES", "NICKNAMES", "register", "parse_params", "value_names", "ParamError",
           "c_atol", "c_atof", "PAIR", "Params"]


class ParamError(ValueError):
    """A ``-m name.params`` that trec_eval refuses (its message, with the measure)."""


#: a parsed parameter list: numbers (``cut_long``, ``cut_double``, ``double``) or (name, value) pairs
Params = tuple
PAIR = "pair"


@dataclass(frozen=True)
class Measure:
    """One trec_eval measure (a ``TREC_MEAS``).

    ``kind``: ``"double"`` or ``"long"`` (printed ``%6.4f`` or ``%ld``), ``"runid"``, ``"relstring"``.
    ``params``: ``None``, ``"cut_long"``, ``"cut_double"``, ``"double"`` or ``"pair"``; ``default`` their values.
    ``calc(rr, params) -> float64 (n_topics, n_values)``: one column per cutoff (one for the others).
    ``summary``: ``"mean"`` (sum / topics), ``"gm"`` (geometric mean, trec_eval's ``MIN_GEO_MEAN`` floor),
    ``"sum"``, ``"num_q"``, ``"num_rel"`` (sum; under ``-c`` over every qrels topic), ``"none"``.
    ``per_topic``: printed for each topic with ``-q``. ``bogus_zero``: documents that trec_eval's clean-up after a
    ``-c`` stand-in topic touches the measure (the engine applies trec_eval.c's rule, by value name:
    :func:`~._engine._clean_bogus`). ``source``: the trec_eval file.
    """

    name: str
    calc: Callable[..., np.ndarray]
    kind: str = "double"
    params: str | None = None
    default: tuple = ()
    summary: str = "mean"
    per_topic: bool = True
    bogus_zero: bool = False
    source: str = ""
    doc: str = ""


#: trec_eval's measures in its order (te_trec_measures[]); filled by :func:`register`
MEASURES: dict[str, Measure] = {}
_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
          "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
          "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
          "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
          "yaap", "rbp", "rbp_resid", "unj")

#: trec_eval's ``-m`` nicknames (measures.c); the preference measures (-R prefs) are not computed here
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
}


def register(m: Measure) -> Measure:
    """Add ``m`` to :data:`MEASURES`, keeping trec_eval's order."""
    if m.name not in _ORDER:
        raise ValueError(f"{m.name} is not one of trec_eval's measures")
    MEASURES[m.name] = m
    ordered = sorted(MEASURES.values(), key=lambda x: _ORDER.index(x.name))
    MEASURES.clear()
    MEASURES.update((x.name, x) for x in ordered)
    return m


_LEAD_INT = re.compile(r"\s*([+-]?[0-9]+)")
_LEAD_FLOAT = re.compile(r"\s*([+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan))",
                         re.IGNORECASE)


def c_atol(text: str) -> int:
    """C's ``atol``: the leading whole number of ``text``, 0 if none (``"23.4"`` -> 23)."""
    m = _LEAD_INT.match(text)
    return int(m.group(1)) if m else 0


def c_atof(text: str) -> float:
    """C's ``atof``: the leading number of ``text``, 0.0 if none (``".25"`` -> 0.25)."""
    m = _LEAD_FLOAT.match(text)
    return float(m.group(1)) if m else 0.0


def parse_params(m: Measure, text: str) -> Params:
    """The parameters of ``-m NAME.text`` for measure ``m``, as trec_eval's ``meas_init.c`` reads them."""
    if m.params is None:
        return ()   # trec_eval stores them and the measure never reads them
    parts = text.split(",")
    if m.params == "cut_long":
        vals = sorted(c_atol(p) for p in parts)
        if vals[0] <= 0:
            raise ParamError("trec_eval: Negative cutoff detected")
        if len(set(vals)) != len(vals):
            raise ParamError("trec_eval: duplicate cutoffs detected")
        return tuple(vals)
    if m.params == "cut_double":
        fvals = sorted(c_atof(p) for p in parts)
        if len(set(fvals)) != len(fvals):
            raise ParamError("trec_eval: duplicate cutoffs detected")
        return tuple(fvals)
    if m.params == "double":
        return tuple(c_atof(p) for p in parts)
    # pairs "a=1,b=2": every item needs its '=' (get_param_pairs' check on the last one)
    if "=" not in parts[-1] or any(p.count("=") != 1 for p in parts):
        raise ParamError(f"trec_eval: malformed pair parameters in '{text}'")
    return tuple((p.split("=", 1)[0], c_atof(p.split("=", 1)[1])) for p in parts)


def value_names(m: Measure, params: Params | None, printable: str | None) -> list[str]:
    """The names trec_eval prints for ``m``'s values: ``P_5`` per cutoff (``%ld``), ``iprec_at_recall_0.10``
    (``%3.2f``, cut to the name plus 9 characters as ``append_double``'s buffer cuts it), ``utility_2,-1,0,0``
    for a one-value measure given parameters (the text as typed, ``append_string``), else the bare name."""
    if m.params == "cut_long":
        return [f"{m.name}_{int(v)}" for v in (params or m.default)]
    if m.params == "cut_double":
        return [f"{m.name}_{v:3.2f}"[:len(m.name) + 9] for v in (params or m.default)]
    if m.params in ("double", "pair") and printable is not None:
        return [f"{m.name}_{printable}"]
    return [m.name]
