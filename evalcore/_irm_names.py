"""ir_measures' names, read as ir_measures 0.4.3 reads them and computed as its default providers compute them.

ir_measures parses a name as a Python expression (``ir_measures.util.parse_measure``): ``Name(param=literal,
...)@literal``, the ``@`` setting the measure's ``AT_PARAM`` (the cutoff; IPrec's recall level). Its
``DefaultPipeline`` then gives each measure to the first provider that supports it with those parameters
(runtime, pytrec_eval, cwl_eval, compat, pyndeval, judged, msmarco, gdeval, accuracy, ranx). So the name says
which definition applies, and this module maps it to the registry entry with that definition:

=====================================  =======================  ====================================
ir_measures                            provider                 evalcore
=====================================  =======================  ====================================
``AP``, ``AP@k``                       pytrec_eval              ``AP``, ``map_cut@k``
``nDCG@k``, ``nDCG``                   pytrec_eval              ``MSnDCG@k``, ``MSnDCG-list``
``nDCG(gains={0:0,1:1,2:3})@k``        pytrec_eval (relabels)   ``MSnDCG(gains={0:0,1:1,2:3})@k``
``nDCG(dcg='exp-log2')@k``             gdeval                   ``MSnDCG(gains=2^L-1)@k``
``ERR@k``                              gdeval                   ``ERR@k``
``RR``, ``RR@k``                       pytrec_eval, msmarco     ``RR``, ``RR(ties=ir_measures)@k``
``Judged@k``                           judged                   ``Judged@k``
``SetP(relative=True)`` (``SetRelP``)  pytrec_eval              ``SetRelP``
=====================================  =======================  ====================================

and every other name of the registry's ``ir_measures`` field as it stands (``P@k``, ``R@k``, ``Rprec``,
``Bpref``, ``infAP``, ``IPrec@x``, ``SetP``, ``SetR``, ``SetF(beta=...)``, ``SetAP``, ``Success@k``,
``NumQ``, ``NumRel``, ``NumRet``, ``NumRet(rel=L)``); ``rel=`` is the measure's threshold and
``judged_only=True`` trec_eval's ``-J``. A name with parameters no provider supports (``RR(judged_only=True)@10``,
``nDCG(dcg='exp-log2', gains=...)``) is refused, as ir_measures refuses it.
"""
from __future__ import annotations

import ast

from ._resolved import Resolved, refusals
from .specs import METRICS, MetricSpec, spelled

#: ir_measures 0.4.3's measures that need only qrels and a run, with their parameters (SUPPORTED_PARAMS)
IRM_PARAMS: dict[str, tuple[str, ...]] = {
    "AP": ("cutoff", "rel", "judged_only"), "Bpref": ("rel",), "infAP": ("rel",),
    "IPrec": ("recall", "rel", "judged_only"), "Judged": ("cutoff",),
    "nDCG": ("cutoff", "dcg", "gains", "judged_only"), "ERR": ("cutoff",), "NumQ": (), "NumRel": ("rel",),
    "NumRet": ("rel",), "P": ("cutoff", "rel", "judged_only"), "R": ("cutoff", "rel", "judged_only"),
    "Rprec": ("rel", "judged_only"), "RR": ("cutoff", "rel", "judged_only"), "SetAP": ("rel", "judged_only"),
    "SetF": ("rel", "beta", "judged_only"), "SetP": ("rel", "relative", "judged_only"), "SetR": ("rel",),
    "Success": ("cutoff", "rel", "judged_only"), "RBP": ("cutoff", "p", "rel"),
    # cwl_eval's (evalcore.cwl) and the accuracy provider's
    "BPM": ("cutoff", "T", "min_rel", "max_rel"), "SDCG": ("cutoff", "dcg", "min_rel", "max_rel"),
    "NERR8": ("cutoff", "min_rel", "max_rel"), "NERR9": ("cutoff", "min_rel", "max_rel"),
    "NERR10": ("p", "min_rel", "max_rel"), "NERR11": ("T", "min_rel", "max_rel"),
    "INST": ("T", "min_rel", "max_rel"), "INSQ": ("T", "min_rel", "max_rel"), "Accuracy": ("cutoff", "rel"),
}
#: parameters without which no provider of the default pipeline computes the measure (cwl_eval's ``required=True``)
IRM_REQUIRED: dict[str, tuple[str, ...]] = {
    "RBP": ("rel",), **{m: ("max_rel",) for m in ("BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST",
                                                  "INSQ")}}
IRM_WHY_REQUIRED = {
    "RBP": "cwl_eval computes RBP on relevance 0/1 at rel=; graded RBP is its trectools provider, which is not in "
           "its default pipeline (trec_eval's graded rbp is evalcore's RBP-graded)"}
#: ir_measures' defaults of parameters that are also the call's settings (RBP's p): the name pins them
IRM_DEFAULTS: dict[str, dict] = {"RBP": {"p": 0.8}}
#: ir_measures' other names of those measures, with the parameters the alias sets
ALIASES: dict[str, tuple[str, dict]] = {
    "MAP": ("AP", {}), "BPref": ("Bpref", {}), "NDCG": ("nDCG", {}), "Precision": ("P", {}), "Recall": ("R", {}),
    "RPrec": ("Rprec", {}), "MRR": ("RR", {}), "SetRelP": ("SetP", {"relative": True}),
    "NumRelRet": ("NumRet", {"rel": 1}),
}
#: the parameter ``@`` sets, where it is not the cutoff
AT_PARAM = {"IPrec": "recall"}
#: ir_measures' parameter -> the registry's (the others select the measure: dcg, relative)
RENAMED = {"rel": "rel_threshold", "judged_only": "judged_only", "beta": "f_beta", "gains": "gains",
           "recall": "recall"}
#: ir_measures' defaults of the parameters that select a measure
SELECTORS = {"relative": False, "dcg": "log2"}
#: evalcore's gains for gdeval's 2^label - 1 (evalcore.gains.resolve_gains)
EXP_GAINS = "2^L-1"


def _literal(text: str, where: str):
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        raise ValueError(f"{where}: {text.strip()!r} is not a Python literal, as ir_measures reads parameter "
                         "values (rel=2, judged_only=True, dcg='exp-log2', gains={0:0,1:1,2:3})") from None


def _arguments(text: str, raw: str | None) -> dict:
    """``rel=2, gains={0:0,1:1}`` -> {"rel": 2, "gains": {0: 0, 1: 1}}, as Python (ir_measures) parses it."""
    if not raw or not raw.strip():
        return {}
    try:
        call = ast.parse(f"f({raw})", mode="eval").body
    except SyntaxError:
        raise ValueError(f"{text!r}: ir_measures writes parameters as name=value pairs (Python syntax)") from None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise ValueError(f"{text!r}: ir_measures' parameters must be named (rel=2)")
    return {k.arg: _literal(ast.unparse(k.value), repr(text)) for k in call.keywords}


def gains_text(gains: dict) -> str:
    """ir_measures' gains mapping as evalcore's gains string ``{0:0,1:1,2:3}`` (levels in order)."""
    try:
        items = sorted((int(k), float(v)) for k, v in gains.items())
    except (TypeError, ValueError):
        raise ValueError(f"gains must map whole relevance labels to numbers; got {gains!r}") from None
    return "{" + ",".join(f"{k}:{v:g}" for k, v in items) + "}"


def _spec_for(name: str, args: dict) -> MetricSpec | None:
    """The registry entry ir_measures' ``name`` with ``args`` is computed as."""
    if name == "NumRet" and "rel" in args:
        return METRICS["NumRelRet"]
    has_cut = "cutoff" in args
    for spec in METRICS.values():
        if spec.ir_measures != name or spec.key == "NumRelRet":
            continue
        if spec.ir_measures_when == "cutoff" and not has_cut or spec.ir_measures_when == "no cutoff" and has_cut:
            continue
        fixed = dict(spec.ir_measures_fixed)
        if all(args.get(k, d) == fixed.get(k, d) for k, d in SELECTORS.items() if k != "dcg"):
            return spec
    return None


def _refuse(text: str, why: str) -> ValueError:
    return ValueError(f"metric {text!r} is refused: {why}")


def read_ir_measures(text: str, base: str, raw: str | None, cut: str | None) -> Resolved | None:
    """``base(raw)@cut`` read as ir_measures' name; None when ir_measures has no such measure (another
    convention may); ValueError when it has but the parameters are not ir_measures' or no provider of its
    default pipeline computes them."""
    if base in ALIASES and base not in METRICS and any(k.lower() == base.lower() for k in METRICS):
        return None   # NDCG@10: evalcore's nDCG in another letter case (evalcore.names), as before ir_measures' alias
    name, implied = ALIASES.get(base, (base, {}))
    if name not in IRM_PARAMS:
        return None
    args = {**implied, **_arguments(text, raw)}
    if cut is not None:
        args[AT_PARAM.get(name, "cutoff")] = _literal(cut, repr(text))
    unknown = [k for k in args if k not in IRM_PARAMS[name]]
    if unknown:
        raise ValueError(f"{text!r}: ir_measures' {name} has no parameter {unknown[0]}; it takes "
                         + (", ".join(f"{k}=" for k in IRM_PARAMS[name]) or "no parameters"))
    for rule in refusals().get(("ir_measures", name.lower()), ()):
        if rule.name == name and rule.applies(cut is not None):
            raise _refuse(text, rule.reason)
    _provider_args(text, name, args)
    spec = _spec_for(name, args)
    if spec is None:
        return None
    return _resolved(text, name, spec, args)


def _provider_args(text: str, name: str, args: dict) -> None:
    """``args`` as the provider that ir_measures' default pipeline gives ``name`` reads them (in place):
    refused where none does; the parameters that select evalcore's measure (gains for gdeval's nDCG, RR@k's
    tie order, IPrec's count rule) and ir_measures' defaults that the call's settings must not replace."""
    missing = [k for k in IRM_REQUIRED.get(name, ()) if k not in args]
    if missing:
        raise _refuse(text, f"ir_measures' {name} needs {missing[0]}= (no provider of ir_measures 0.4.3's default "
                            f"pipeline computes it without: {IRM_WHY_REQUIRED.get(name, 'cwl_eval requires it')})")
    dcg = args.pop("dcg", "log2")
    if dcg not in ("log2", "exp-log2") or (name != "nDCG" and dcg != "log2"):
        raise ValueError(f"{text!r}: ir_measures' {name} takes "
                         + ("dcg='log2' or dcg='exp-log2'" if name == "nDCG" else "only dcg='log2'") + f"; got {dcg!r}")
    if dcg == "exp-log2":
        if "gains" in args or args.get("judged_only"):
            raise _refuse(text, "no provider of ir_measures 0.4.3 computes nDCG(dcg='exp-log2') with gains= or "
                                "judged_only=True (gdeval and ranx take neither)")
        if "cutoff" not in args:
            raise _refuse(text, "ir_measures 0.4.3 computes the whole-list nDCG(dcg='exp-log2') with its ranx "
                                "provider (which fails on pandas 3), not reproduced here; write "
                                "nDCG(dcg='exp-log2')@k (gdeval's) with k >= the list length, or "
                                "MSnDCG-list(gains=2^L-1) (trec_eval's ndcg with those gains)")
        args["gains"] = EXP_GAINS
    if name == "RR" and "cutoff" in args:
        if args.get("judged_only"):
            raise _refuse(text, "no provider of ir_measures 0.4.3 computes RR(judged_only=True) with a cutoff "
                                "(pytrec_eval takes no cutoff, msmarco no judged_only); evalcore's own "
                                "RR(judged_only=True)@k is the same RR on the list without unjudged documents")
        args["ties"] = "ir_measures"
    if name == "IPrec":
        args["count_rule"] = "trunc"       # pytrec_eval is trec_eval 9: (long)(x R + 0.9)
    for k, v in IRM_DEFAULTS.get(name, {}).items():
        args.setdefault(k, v)


def _resolved(text: str, name: str, spec: MetricSpec, args: dict) -> Resolved:
    """The :class:`Resolved` of ir_measures' ``name`` with ``args`` (:func:`_provider_args`), computed as
    ``spec``: each ir_measures parameter as the registry's."""
    params: dict = {"gains": None} if any(p.name == "gains" for p in spec.params) else {}
    cutoff = at = None
    for k, v in args.items():
        if k in SELECTORS or (k == "rel" and spec.key == "NumRet"):
            continue
        if k == "cutoff":
            cutoff = _irm_cutoff(text, name, spec, v)
        elif k in ("ties", "count_rule"):
            params[k] = v
        elif k == "gains":
            params["gains"] = v if isinstance(v, str) else gains_text(v)
        else:
            prm = next((p for p in spec.params if p.name == RENAMED.get(k, k)), None) or spelled(spec, k)
            if prm is None:
                if k == "judged_only" and not v:
                    continue
                raise ValueError(f"{text!r}: evalcore's {spec.key} has no {k}=")
            params[prm.name] = _irm_value(text, k, prm, v)
            if prm is spec.at:
                at = f"{params[prm.name]:g}"
    if spec.cutoff == "required" and cutoff is None:
        raise ValueError(f"{text!r} needs a cutoff, e.g. {name}@10")
    if spec.at is not None and at is None:
        raise ValueError(f"{text!r} needs a recall level, e.g. {name}@0.5")
    if not params.get("judged_only", True):
        params.pop("judged_only")
    return Resolved(spec.key, cutoff, params, "ir_measures", at)


def _irm_cutoff(text: str, name: str, spec: MetricSpec, v) -> int:
    if spec.cutoff == "none":
        raise ValueError(f"{text!r}: ir_measures' {name} takes no cutoff here")
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"cutoff of {text!r} must be a whole number >= 1")
    return v


def _irm_value(text: str, k: str, prm, v):
    """ir_measures' value ``v`` of parameter ``k`` as the registry's ``prm`` takes it (a whole number where
    ir_measures wants a float is read as that float: ``T=3`` is ``T=3.0``)."""
    if prm.kind == "bool":
        return bool(v)
    if prm.kind == "int" and (isinstance(v, bool) or not isinstance(v, int)):
        raise ValueError(f"{text!r}: {k} must be a whole number (ir_measures' int); got {v!r}")
    try:
        return prm.parse(str(v))
    except ValueError:
        bounds = prm.bounds_text()
        raise ValueError(f"{text!r}: bad value {v!r} for {k}" + (f" (must be {bounds})" if bounds else "")) from None
