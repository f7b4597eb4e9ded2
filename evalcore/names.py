r"""Metric names users already know: one parser, driven by the registry.

Accepted, for every measure (:func:`resolve`):

* **evalcore's canonical keys** - ``Q-measure``, ``P+-measure``, ``nDCG@10`` -
  with parameters in ir_measures' style: ``Q-measure(beta=2)``,
  ``AP(rel=2)``, ``P(rel=2)@10``, ``O-measure(gains=10:5:1)``,
  ``nDCG(b=10)@20``, ``NWRR(penalties=2:3:4)``; ``rel>=2`` is read like
  ``rel=2``, so every label :func:`evalcore.registry.metric_label` writes
  reads back. Canonical names follow the call's settings (gains, beta, ...)
  except where the name fixes a parameter.
* **ir_measures** names (``nDCG@10``, ``AP(rel=2)``, ``RR(rel=2)``, ``Rprec``,
  ``Success@10``, ``P@10``), **trec_eval** names (``map``, ``recip_rank``,
  ``P_10`` / ``P.10``, ``ndcg_cut_10`` / ``ndcg_cut.10``, ``Rprec``,
  ``success_10``) and **NTCIREVAL** names (``P-plus``, ``nERR@0010``,
  ``Prec@10``, ``MSnDCG@10``). A peer's name means the peer's definition:
  its gains are pinned (``ndcg_cut.10`` always uses gain = level, whatever
  the call's gains are), while the call's ``rel_threshold`` (CLI
  ``--rel-threshold L``) is trec_eval's ``-l L`` for every binary measure
  whatever its name (``map``, ``P_10``, ``recip_rank``, ``AP``, ``P@10``);
  a threshold written in the name (``AP(rel=2)``) is that measure's own
  and wins over the call's (the label shows it).
* **ranx** names (``map``, ``mrr@10``, ``precision@10``, ``recall@100``,
  ``ndcg@10``, ``r-precision``, ``hit_rate@10``, ``bpref``): ranx writes
  them in lower case, and its ``ndcg@k`` is trec_eval's ``ndcg_cut`` (gain =
  level, log2(r+1)), evalcore's ``MSnDCG@k``; ``map@k`` (divided by R) is
  refused as ir_measures' ``AP@k`` is.
* **any letter case**: a name matched exactly in no convention is matched
  regardless of case (``NDCG@10``, ``MRR``, ``Precision@10``, ``MAP``),
  evalcore's keys first, then the peers' names in the order above - so
  ``NDCG@10`` is evalcore's nDCG@10, with the warning below, as ``nDCG@10`` is.
* **ir_measures Measure objects** (``ir_measures.nDCG@10``,
  ``ir_measures.AP(rel=2)``) are read in ir_measures' convention, always:
  ``nDCG@10`` is the Burges nDCG (evalcore's ``MSnDCG@10``), and a measure
  evalcore computes differently (``AP@10``, ``ERR@20``, whole-list ``nDCG``)
  is refused with the reason (:func:`metric_text`).

**The nDCG clash (a documented convention).** evalcore's canonical ``nDCG@k``
is the original Jarvelin-Kekalainen nDCG of the papers (and NTCIREVAL's
``nDCG@k``); ir_measures' ``nDCG@k`` and trec_eval's ``ndcg_cut.k`` are the
Burges form, evalcore's ``MSnDCG@k``. So:

* ``names="ir_measures"`` (CLI ``--names ir_measures``) or the prefix
  ``irm:nDCG@10`` gives ir_measures' meaning (``MSnDCG@10``, gain = level);
* ``names="trec_eval"`` / ``trec:``, ``names="ntcireval"`` / ``ntcir:``, ``names="ranx"`` / ``ranx:`` and
  ``names="evalcore"`` / ``evalcore:`` likewise choose one convention;
* with no convention (``names=None``), a peer name that is not also an
  evalcore key is unambiguous and accepted (``ndcg_cut.10``, ``map``,
  ``P-plus``), and the ambiguous names are evalcore's **with a warning**
  (:class:`AmbiguousNameWarning`) saying how to get the other: ``nDCG@k``
  (evalcore's original nDCG, not ir_measures' Burges form), a bare ``nDCG``
  (evalcore's nDCG at each configured cutoff, not the whole-list nDCG of
  ir_measures and trec_eval) and ``AP@k`` (NTCIREVAL's AP@k, dividing by
  min(R, k), not ir_measures' ``AP@k`` = trec_eval's ``map_cut_k``, which
  divides by R) and ``RBP@k`` (evalcore's RBP, relevance 0/1 at
  ``rel_threshold`` as Moffat & Zobel 2008 define it, cut at k; ir_measures'
  ``RBP@k`` needs trectools, outside its default pipeline, so ``irm:RBP@k`` is
  refused, and its ``RBP(rel=L)`` is cwl_eval's, evalcore's ``RBP-cwl``).

Names whose peer definition differs from every evalcore measure are refused
with the reason (the rules are data on the metric's spec, :class:`evalcore.specs.PeerRule`, and the
warnings above too, :class:`evalcore.specs.Ambiguity`) (``map_cut_10``, ir_measures' ``AP@10`` and ``ERR@20``,
whole-list ``ndcg``); a peer measure evalcore does not compute (``infAP``,
``set_P``, ``iprec_at_recall``, ``alpha_nDCG``) is an error saying so; any
other unknown name is an error listing the closest known names.

ir_measures writes the relevant documents retrieved as ``NumRet(rel=L)``
(its ``NumRelRet`` is ``NumRet(rel=1)``): a ``NumRet`` name with ``rel=``
is read as evalcore's ``NumRelRet`` with that threshold, in every
convention that allows parameters; a bare ``NumRet`` counts every retrieved
document.
"""
from __future__ import annotations

import re
import warnings

from ._resolved import Resolved, refusals
from .specs import METRICS, PARAM_SPELLINGS, MetricSpec, spelled

__all__ = ["resolve", "metric_text", "Resolved", "AmbiguousNameWarning", "CONVENTIONS", "known_names", "crosswalk_rows"]

#: The conventions a name can be read in; ``None`` = auto (see the module doc).
CONVENTIONS = ("evalcore", "ir_measures", "trec_eval", "ntcireval", "ranx")
#: The peers in the order an unprefixed name is tried in (auto: ``names=None``).
_PEERS = ("trec_eval", "ir_measures", "ntcireval", "ranx")
_PREFIXES = {"evalcore": "evalcore", "irm": "ir_measures", "ir_measures": "ir_measures", "trec": "trec_eval",
             "trec_eval": "trec_eval", "ntcir": "ntcireval", "ntcireval": "ntcireval", "ranx": "ranx"}
#: Peer conventions that average over every qrels topic (trec_eval's policy, :func:`evalcore.registry.topic_policy`)
#: and whose names pin the gains to the level (:func:`_pinned`).
TREC_LIKE = ("trec_eval", "ir_measures", "ranx")

# Peer measures evalcore does not compute: an error that says so (rather than suggesting a look-alike such as
# RR for R@100). Checked only after every registered name, so a measure added to the registry is found first.
_NOT_COMPUTED = {
    "relstring": "trec_eval's relstring, a string of relevance values, not a number (`evalcore trec_eval -m "
    "relstring QRELS RUN` prints it)",
    "yaap": "trec_eval's yaap (not in all_trec; `evalcore trec_eval -m yaap` prints it)",
    # ir_measures' measures that need more than qrels and a run (subtopic judgments), or an optional provider
    "alpha_nDCG": "alpha-nDCG (ir_measures' pyndeval: subtopic judgments)", "alpha_DCG": "alpha-DCG (subtopic "
    "judgments)", "ERR_IA": "ERR-IA (subtopic judgments)", "nERR_IA": "nERR-IA (subtopic judgments)", "NRBP":
    "NRBP (subtopic judgments)", "nNRBP": "nNRBP (subtopic judgments)", "AP_IA": "AP-IA (subtopic judgments)",
    "MAP_IA": "AP-IA (subtopic judgments)", "P_IA": "P-IA (subtopic judgments)", "StRecall": "subtopic recall",
    "Compat": "ir_measures' Compat (Clarke, Vtyurina & Smucker 2020, its compat provider): its ideal ranking "
    "orders equally relevant documents by the run's score, an unretrieved one as score 0.0 (so ahead of retrieved "
    "ones with a negative score), and exact ties by the qrels file's order; the collection keeps neither the "
    "scores nor the qrels' order (evalcore.io reads both into relevance levels), so that ideal ranking cannot be "
    "rebuilt from it",
    # ranx's
    "f1": "F1", "dcg": "unnormalised DCG", "dcg_burges": "unnormalised DCG", "hits": "hits@k (ranx's count of "
    "relevant documents in the top k; NumRelRet counts them over the whole list)",
}


class AmbiguousNameWarning(UserWarning):
    """A bare name that means one measure in evalcore and another in a peer tool (``nDCG@k``)."""


_NAME_RE = re.compile(r"^(?P<base>[A-Za-z0-9][A-Za-z0-9+\-_.]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<cut>[^@()]*))?$")
# trec_eval's value names: P_10, ndcg_cut.10, iprec_at_recall_0.10, Rprec_mult_0.20, 11pt_avg has none
_TREC_CUT_RE = re.compile(r"^(?P<base>[A-Za-z0-9_]+?)[_.](?P<cut>\d+(?:\.\d+)?)$")


def _registry() -> dict[str, MetricSpec]:
    return METRICS


def _param_keys() -> dict:
    """Spelling in a name (``rel``, ``b``, ``p``) -> the registry's parameter (its table, :data:`PARAMS`)."""
    return PARAM_SPELLINGS


def _peer_table(convention: str) -> dict[str, str]:
    """Peer base name -> evalcore key, from the registry's crosswalk fields."""
    return {getattr(s, convention): k for k, s in _registry().items() if getattr(s, convention)}


def _case_folded(base: str, names: str | None) -> str | None:
    """The spelling of ``base`` known in some convention (``names`` or, auto, any) when only the letter case
    differs: evalcore's keys first, then the peers' names in :data:`_PEERS` order; None if there is none."""
    folded = base.lower()
    pools = [] if names not in (None, "evalcore") else [list(_registry())]
    pools += [list(_peer_table(conv)) + [r.name for rs in refusals().values() for r in rs if r.convention == conv]
              for conv in ([names] if names not in (None, "evalcore") else _PEERS)]
    pools += [list(_NOT_COMPUTED)]
    for pool in pools:
        for name in pool:
            if name.lower() == folded and name != base:
                return name
    return None


def known_names() -> list[str]:
    """Every base name accepted in some convention (for suggestions and ``evalcore metrics``)."""
    out = list(_registry())
    for conv in CONVENTIONS[1:]:
        out += list(_peer_table(conv))
    return list(dict.fromkeys(out))


def _written(name: str, cut: str | None) -> str:
    """A known base name as it is written with the cutoff the user gave (or ``k`` where the measure needs
    one): ``P@10``, ``P_10`` (trec_eval), ``ndcg_cut_10``; as is where the measure takes none."""
    hits = [(conv, t[name]) for conv, t in (("evalcore", {k: k for k in _registry()}),
                                            *((c, _peer_table(c)) for c in _PEERS)) if name in t]
    conv, key = hits[0] if hits else ("evalcore", None)
    spec = _registry().get(key) if key else None
    if spec is None or spec.cutoff == "none" or (cut is None and spec.cutoff == "optional"):
        return name
    k = cut if cut and cut.isdigit() else "k"
    return f"{name}_{k}" if conv == "trec_eval" else f"{name}@{k}"


def _unknown(text: str) -> ValueError:
    import difflib  # (here: only a misspelt name needs it)

    body = text.partition(":")[2] if text.partition(":")[0] in _PREFIXES else text
    m = _NAME_RE.match(body.strip())
    base, cut = (m.group("base"), m.group("cut")) if m else (re.split(r"[(@]", body, maxsplit=1)[0], None)
    trec = _TREC_CUT_RE.match(base)
    if cut is None and trec:          # P_10, ndcg_cut.10: the cutoff written trec_eval's way
        base, cut = trec.group("base"), trec.group("cut")
    pool = known_names()
    lower: dict[str, str] = {}
    for p in pool:
        lower.setdefault(p.lower(), p)
    close = [lower[n] for n in difflib.get_close_matches(base.lower(), list(lower), n=5, cutoff=0.5)]
    close += [n for n in difflib.get_close_matches(base, pool, n=5, cutoff=0.5) if n not in close]
    shown = list(dict.fromkeys(_written(n, cut) for n in close))[:5]
    hint = f"; closest known names: {', '.join(shown)}" if shown else ""
    return ValueError(f"unknown metric {text!r}{hint} (`evalcore metrics` lists every name and alias)")


def _cutoff(text: str, cut: str) -> int:
    if not cut.isdigit() or int(cut) < 1:
        raise ValueError(f"cutoff of {text!r} must be a whole number >= 1")
    return int(cut)  # NTCIREVAL writes @0010


def _takes(spec) -> str:
    return ", ".join(f"{s}=" for prm in spec.params if prm is not spec.at for s in prm.spellings) or "no parameters"


def _parts(raw: str) -> list[str]:
    """``rel=2,gains={0:0,1:1}`` split at the commas outside braces (ir_measures' gains mapping)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(raw):
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            out.append(raw[start:i])
            start = i + 1
    return out + [raw[start:]]


def _params(text: str, raw: str | None, spec) -> dict:
    out: dict = {}
    if not raw:
        return out
    keys = _param_keys()
    for part in _parts(raw):
        k, sep, v = part.strip().replace(">=", "=").partition("=")
        k, v = k.strip(), v.strip()
        if not sep or k not in keys:
            raise ValueError(f"{text!r}: unknown parameter {part.strip()!r}; {spec.key} takes {_takes(spec)}")
        prm = spelled(spec, k)
        if prm is None or prm is spec.at:
            raise ValueError(f"{text!r}: {spec.key} does not use {k}")
        try:
            out[prm.name] = prm.parse(v)
        except ValueError:
            bounds = prm.bounds_text()
            raise ValueError(f"{text!r}: bad value {v!r} for {k}" + (f" (must be {bounds})" if bounds else "")
                             ) from None
    return out


def _at(text: str, spec, cut: str, params: dict) -> str:
    """``@x`` of a measure whose @ sets a parameter (IPrec@0.1) into ``params``; its text as keys write it."""
    prm = spec.at
    try:
        params[prm.name] = prm.parse(cut)
    except ValueError:
        raise ValueError(f"{text!r}: bad value {cut!r} after @: {spec.key}@x takes {prm.doc}, "
                         f"{prm.bounds_text()}") from None
    return f"{params[prm.name]:g}"


def _canonical(text: str, base: str, raw, cut) -> Resolved:
    spec = _registry()[base]
    cutoff = None
    params = _params(text, raw, spec)
    if cut is not None and spec.at is not None:
        return Resolved(base, None, params, "evalcore", _at(text, spec, cut, params))
    if cut is not None:
        if spec.cutoff == "none":
            raise ValueError(f"metric {base} takes no cutoff; got {text!r}")
        cutoff = _cutoff(text, cut)
    return Resolved(base, cutoff, params, "evalcore")


def _pinned(spec, conv: str) -> dict:
    """An ir_measures / trec_eval name means that tool's definition: gain = level (trec_eval's and
    ir_measures' nDCG take the label as the gain). The binary threshold is *not* pinned: it is the
    call's ``rel_threshold``, as trec_eval's ``-l`` applies to every measure it computes
    (``map``, ``P_10``, ``recip_rank``, ...); a name's own ``(rel=L)`` overrides it.
    (NTCIREVAL takes its gains from the user, as evalcore does: nothing pinned.)"""
    out: dict = {}
    if conv not in TREC_LIKE:
        return out
    if spec.uses_gains:
        out["gains"] = None
    return out


def _peer(text: str, conv: str, base: str, raw, cut) -> Resolved | None:
    """Read ``base(raw)@cut`` in a peer convention; None if that convention has no such name."""
    if conv == "ir_measures":
        from ._irm_names import read_ir_measures

        return read_ir_measures(text, base, raw, cut)
    if conv == "trec_eval":
        if cut is not None or raw is not None:   # trec_eval names have no @k and no (parameters)
            return None
        m = _TREC_CUT_RE.match(base)
        if m:
            base, cut = m.group("base"), m.group("cut")
    for rule in refusals().get((conv, base.lower()), ()):
        if rule.applies(cut is not None) and (rule.name == base or conv == "ranx"):
            raise ValueError(f"metric {text!r} is refused: {rule.reason}")
    key = _peer_table(conv).get(base)
    if key is None:
        return None
    spec = _registry()[key]
    params = {**_pinned(spec, conv), **_params(text, raw, spec)}
    cutoff = None
    if cut is not None and spec.at is not None:
        return Resolved(key, None, params, conv, _at(text, spec, cut, params))
    if cut is not None:
        if spec.cutoff == "none":
            raise ValueError(f"{base} takes no cutoff; got {text!r}")
        cutoff = _cutoff(text, cut)
    elif spec.cutoff == "required":
        raise ValueError(f"{text!r} needs a cutoff, e.g. {base}@10" if conv != "trec_eval"
                         else f"{text!r} needs a cutoff, e.g. {base}_10")
    return Resolved(key, cutoff, params, conv)


def _warn_ambiguous(text: str, base: str, cut: str | None) -> None:
    """AmbiguousNameWarning for an evalcore key that a peer tool reads differently (the spec's
    :class:`evalcore.specs.Ambiguity`; module doc)."""
    amb = _registry()[base].ambiguity
    if amb is None or (amb.when == "cutoff" and not cut):
        return
    msg = amb.text.format(text=text, cut=f"@{cut}" if cut else "@k", k=cut or "k")
    warnings.warn(msg + ("" if cut else amb.without_cutoff), AmbiguousNameWarning, stacklevel=5)


def _warn_case(text: str, conv: str, key: str) -> None:
    """AmbiguousNameWarning for a peer's name that differs from an evalcore key only in letter case and means
    another measure (ranx's ``ndcg@10`` is MSnDCG@10; evalcore's ``nDCG@10`` the Jarvelin-Kekalainen nDCG)."""
    base = _NAME_RE.match(text.partition(":")[2] if text.partition(":")[0] in _PREFIXES else text)
    b = base.group("base") if base else text
    same = [k for k in _registry() if k.lower() == b.lower() and k != key]
    if same:
        warnings.warn(f"{text!r} is read as {conv}'s {b}, evalcore's {key}; evalcore's own {same[0]} is another "
                      f"measure (`evalcore metrics`); write {conv}:{text} to keep this meaning without this "
                      "warning", AmbiguousNameWarning, stacklevel=5)


def metric_text(metric) -> str:
    """A metric as text: a string as given; an ir_measures ``Measure`` object (``ir_measures.nDCG@10``)
    as ``irm:`` + its ir_measures name, so that it is read in ir_measures' convention, never evalcore's
    (the object's own ``str()`` is ir_measures' name, e.g. ``nDCG@10`` or ``AP(rel=2)``).

    >>> metric_text(" map ")
    'map'
    """
    if isinstance(metric, str):
        return metric.strip()
    module = type(metric).__module__ or ""
    if module == "ir_measures" or module.startswith("ir_measures."):
        return "irm:" + str(metric).strip()
    raise TypeError(f"a metric is a name (str) or an ir_measures measure; got {type(metric).__name__} {metric!r}")


def resolve(text: str, names: str | None = None, *, warn: bool = True) -> Resolved:
    """What ``text`` means under the convention ``names`` (None = auto). See the module doc.

    >>> resolve("ndcg_cut.10").key, resolve("P_10").key, resolve("AP(rel=2)").params
    ('MSnDCG@10', 'P@10', {'rel_threshold': 2})
    >>> resolve("nDCG@10", "ir_measures").key, resolve("nDCG@10", "evalcore").key
    ('MSnDCG@10', 'nDCG@10')
    """
    text = metric_text(text)
    if names is not None and names not in CONVENTIONS:
        raise ValueError(f"names must be one of {', '.join(CONVENTIONS)} or None; got {names!r}")
    prefix, colon, rest = text.partition(":")
    if colon and prefix in _PREFIXES:
        names, text_body = _PREFIXES[prefix], rest.strip()
    else:
        text_body = text
    m = _NAME_RE.match(text_body)
    if not m:
        raise _unknown(text)
    base, raw, cut = m.group("base"), m.group("params"), m.group("cut")
    if base == "NumRet" and raw and re.match(r"\s*rel\s*(=|>=)", raw):
        base = "NumRelRet"        # ir_measures: NumRelRet = NumRet(rel=1) (module doc)
    registry = _registry()
    if names in (None, "evalcore") and base in registry:
        return _own_name(text, base, raw, cut, names, warn)
    for conv in ([names] if names not in (None, "evalcore") else _PEERS):
        peer = _peer(text, conv, base, raw, cut)
        if peer is not None:
            if names is None and warn:
                _warn_case(text, conv, peer.base)
            return peer
    if names not in (None, "evalcore") and base in registry:   # evalcore-only measures in any convention
        return _canonical(text, base, raw, cut)
    return _other_case_or_refused(text, text_body, base, raw, cut, names, warn)


def _own_name(text: str, base: str, raw, cut, names: str | None, warn: bool) -> Resolved:
    """:func:`resolve` of a registry key: evalcore's own name, or ir_measures' parameters on it
    (``nDCG(dcg='exp-log2')@10``, ``SetP(relative=True)``) when evalcore's reading refuses them."""
    try:
        r = _canonical(text, base, raw, cut)
    except ValueError as own:
        # ir_measures' own parameters (nDCG(dcg='exp-log2')@10, SetP(relative=True)): its name, unprefixed
        if names is not None or not raw:
            raise
        try:
            irm = _peer(text, "ir_measures", base, raw, cut)
        except ValueError as theirs:
            # a parameter only ir_measures knows (dcg=, relative=), on a measure no provider of it computes
            if "is refused" in str(theirs) and ("unknown parameter" in str(own) or "does not use" in str(own)):
                raise
            raise own from None
        if irm is None:
            raise
        return irm
    if names is None and warn:
        _warn_ambiguous(text, base, cut)
    return r


def _other_case_or_refused(text: str, text_body: str, base: str, raw, cut, names: str | None,
                           warn: bool) -> Resolved:
    """The end of :func:`resolve`: a known name in another letter case, else the reason a peer measure is not
    computed, else the unknown-name error."""
    folded = _folded_base(base, names, raw, cut)
    if folded is not None:             # NDCG@10, MRR, Precision@10: the same name in another letter case
        return _resolve_folded(text, text_body, base, folded, names, warn)
    trec = _TREC_CUT_RE.match(base)
    missing = _NOT_COMPUTED.get(base) or (_NOT_COMPUTED.get(trec.group("base")) if trec else None)
    if missing:
        raise ValueError(f"metric {text!r}: evalcore does not compute {missing}; `evalcore metrics` lists the "
                         "measures it computes and their names in ir_measures, trec_eval and NTCIREVAL")
    raise _unknown(text)


def _folded_base(base: str, names: str | None, raw, cut) -> str | None:
    """``base`` as a known name in another letter case (:func:`_case_folded`), trec_eval's cutoff forms
    (``NDCG_CUT.10``) included; None when there is none."""
    folded = _case_folded(base, names)
    trec = _TREC_CUT_RE.match(base)
    if folded is None and trec and raw is None and cut is None:   # NDCG_CUT.10: trec_eval's base, another case
        stem = _case_folded(trec.group("base"), names)
        folded = None if stem is None else stem + base[len(trec.group("base")):]
    return folded


def _resolve_folded(text: str, text_body: str, base: str, folded: str, names: str | None, warn: bool) -> Resolved:
    """:func:`resolve` of the name with its base in the known letter case, its warnings and errors said of
    the name as the user wrote it."""
    again = text[:len(text) - len(text_body)] + folded + text_body[len(base):]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = resolve(again, names, warn=warn)
        except ValueError as e:
            raise ValueError(str(e).replace(repr(again), repr(text))) from None
    for w in caught:
        warnings.warn(str(w.message).replace(repr(again), repr(text)), w.category, stacklevel=3)
    return r


def _peer_name(name: str | None, style: str, needs_cut: bool, at: bool = False) -> str:
    """A measure's name in one peer tool, with the cutoff placeholder (``map_cut_k`` style for trec_eval;
    ``x`` where ``@`` sets another parameter: ``IPrec@x``, ``iprec_at_recall_x``)."""
    if not name:
        return ""
    if needs_cut or at:
        k = "x" if at else "k"
        return f"{name}_{k}" if style == "trec_eval" else f"{name}@{k}"
    return name


def _default_text(p) -> str:
    if p.default is None:
        return ""
    return f"={p.default}" if p.kind in ("bool", "choice") else f"={p.default:g}"


def crosswalk_rows() -> list[dict]:
    """One row per measure: evalcore key, the parameters its name may fix (with their defaults, from the
    registry's parameter table) and its names in ir_measures, trec_eval, NTCIREVAL and ranx."""
    rows = []
    for key, s in _registry().items():
        needs_cut = s.cutoff == "required"
        at = s.at is not None
        params = ", ".join(p.spellings[0] + _default_text(p) for p in s.params if p is not s.at)
        irm = s.ir_measures
        if irm and s.ir_measures_fixed:
            irm += "(" + ",".join(f"{k}={v}" for k, v in s.ir_measures_fixed) + ")"
        rows.append({"key": key + ("@k" if needs_cut else "@x" if at else ""), "parameters": params,
                     "definition": s.definition,
                     "ir_measures": _peer_name(irm, "irm", needs_cut, at),
                     "trec_eval": _peer_name(s.trec_eval, "trec_eval", needs_cut, at),
                     "ntcireval": _peer_name(s.ntcireval, "ntcir", needs_cut, at),
                     "ranx": _peer_name(s.ranx, "ranx", needs_cut, at)})
    return rows
