"""The registry's table: every metric's spec and every parameter a metric name may set, as data.

:mod:`evalcore.registry` (evaluation by name) and :mod:`evalcore.names` (the name parser) both read it; it
sits below them and imports neither. ``evalcore.registry`` re-exports every name here, its public home.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import cwl as W
from . import metrics as M
from . import trec_measures as T
from .gains import gains_label, label_gains, resolve_gains


@dataclass(frozen=True)
class Setting:
    """How a :class:`Param` is also a *setting*: a value the command line, a settings file, the dashboard's
    address and its sidebar set for every measure that reads the parameter (where the measure's name does not
    fix it), as RBP's persistence ``p`` is. Declaring it on the parameter is all there is to it: the option
    (:func:`evalcore.cli.options.data_options_parser`), the settings file's field (:data:`evalcore.settings.FIELDS`,
    key = the parameter's ``name``, bounds from the parameter), the address (``?<name>=``) and the sidebar's
    slider (shown while a measure that reads it is chosen) are made from it.

    ``option``: the command-line option (``--persistence``; released options are never renamed); ``widget``:
    the dashboard's session key of the slider (``rbp_p``); ``label``: the slider's label; ``span``: the
    slider's range (a value from a file or an address outside it is clamped, with a note); ``step``: the
    slider's step; ``cap``: the upper bound of the file and the option where the parameter itself has none
    (a limit on hostile input, not a property of the measure).
    """

    option: str
    widget: str
    label: str
    span: tuple[float, float]
    step: float = 0.01
    cap: float = 1000.0

    @property
    def dest(self) -> str:
        """The option's argparse destination (``--f-beta`` -> ``f_beta``)."""
        return self.option.lstrip("-").replace("-", "_")


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
    non-default value is shown in a label (a format with ``{v}``); ``setting``: how it is also a setting of
    the command line, the settings file and the dashboard (:class:`Setting`; None: only a name sets it).
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
    choices: tuple = ()
    setting: Setting | None = None

    def __post_init__(self):
        if self.kind not in ("int", "float", "levels", "floats", "bool", "choice"):
            raise ValueError(f"Param {self.name}: unknown kind {self.kind!r}")

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
        if self.kind == "levels" and (v.strip().startswith("{") or v.strip() == "2^L-1"):
            label_gains(v, 1)   # ir_measures' gains mapping {0:0,1:1,2:3}, gdeval's 2^L - 1
            return v.strip()
        if self.kind in ("levels", "floats"):
            [float(x) for x in v.split(":")]
            return v
        if self.kind == "bool":
            if v.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return v.lower() in ("true", "1")
        if self.kind == "choice":
            if v.strip("'\"") not in self.choices:
                raise ValueError
            return v.strip("'\"")
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
        if self.kind == "floats":
            return None if v is None else self.label.format(v=v if isinstance(v, str) else ":".join(
                f"{float(x):g}" for x in v))
        if self.kind in ("bool", "choice"):
            return None if v == self.default else self.label.format(v=v)
        if v is None:              # a parameter without a fixed default (max_rel: the collection's) left unset
            return None
        x = int(v) if self.kind == "int" else float(v)
        if x == self.default:
            return None
        return self.label.format(v=x) if self.kind == "int" else self.label.format(v=f"{x:g}")


#: How a mean over topics treats qrels topics without a relevant document: ``"trec_eval"`` (every qrels
#: topic; such a topic scores 0) or ``"ntcireval"`` (only topics with a relevant document);
#: :func:`evalcore.registry.topic_policy` says which a metric's mean uses.
TOPIC_POLICIES = ("trec_eval", "ntcireval")
#: Each topic policy in words, as every output states it beside the number (``attrs["policies"]``).
POLICY_TEXT = {
    "trec_eval": "trec_eval -c: every qrels topic; a topic without a relevant document, or missing from a run, "
                 "scores 0 (as trec_eval -c, ir_measures, ranx, PyTerrier)",
    "ntcireval": "NTCIREVAL: only the topics with a relevant document; a topic missing from a run scores 0",
}
#: How a ranked list was ordered (:attr:`evalcore.Collection.order`), in words.
ORDER_TEXT = {
    "score": "score descending, exact ties by document id descending (trec_eval's tie-breaking)",
    "rank": "the run's rank column ascending, ties in file order",
    "file": "the run file's order, as written (NTCIREVAL reads a ranked list this way)",
    "given": "the ranked lists as given (built in Python or simulated)",
}

#: Every parameter a metric may read, in the order labels write them. A metric lists the ones it reads.
GAINS = Param("gains", "levels", None, ("gains",), "gains={v}", doc="gain per relevance level")
BETA = Param("beta", "float", 1.0, ("beta",), "beta={v}", low=0.0, doc="weight of the gains in BR(r)")
PENALTIES = Param("penalties", "levels", None, ("penalties",), "penalties={v}", doc="WRR penalty per level")
REL = Param("rel_threshold", "int", 1, ("rel",), "rel>={v}", low=1,
            doc="the lowest level counted as relevant by a binary measure")
LOG_BASE = Param("log_base", "float", 2.0, ("b", "log_base"), "b={v}", low=1.0, low_open=True,
                 doc="base b of the Jarvelin-Kekalainen discount log_b(r)")
PERSISTENCE = Param("p", "float", 0.8, ("p",), "p={v}", low=0.0, high=1.0, low_open=True, high_open=True,
                    doc="persistence: the chance the user goes on to the next rank",
                    setting=Setting("--persistence", "rbp_p", "RBP persistence p", (0.01, 0.99)))
# The parameters of the measures trec_eval and ir_measures define (evalcore.trec_measures); a name sets them,
# and the ones declared with a Setting are settings too, under their own keys (SetF's beta is f_beta, not
# Q-measure's beta).
JUDGED_ONLY = Param("judged_only", "bool", False, ("judged_only",), "judged_only={v}",
                    doc="trec_eval -J: the unjudged documents are removed before scoring (ir_measures' "
                        "judged_only=True)")
TIES = Param("ties", "choice", "trec_eval", ("ties",), "ties={v}", choices=("trec_eval", "ir_measures"),
             doc="the order of documents of equal score: trec_eval's (document id descending) or ir_measures' "
                 "(score compared in double precision, document id ascending, as its msmarco and judged "
                 "providers sort)")
RECALL = Param("recall", "float", None, ("recall",), "recall={v}", low=0.0, high=1.0,
               doc="the recall level of interpolated precision (written @x: IPrec@0.1)")
MULT = Param("mult", "float", None, ("mult",), "mult={v}", low=0.0, low_open=True,
             doc="the multiple of R (written @x: Rprec_mult@0.5)")
F_BETA = Param("f_beta", "float", 1.0, ("beta",), "beta={v}", low=0.0,
               doc="SetF's weight of recall against precision (trec_eval set_F's parameter)",
               setting=Setting("--f-beta", "f_beta", "SetF beta", (0.0, 10.0), step=0.1))
RBP_P = Param("rbp_p", "float", 0.9, ("p",), "p={v}", low=0.0, high=1.0, low_open=True, high_open=True,
              doc="persistence of trec_eval's rbp (0.9 by default, as trec_eval)")
COUNT_RULE = Param("count_rule", "choice", "round", ("count_rule",), "count_rule={v}", choices=("round", "trunc"),
                   doc="how IPrec turns x R into a count of relevant documents: trec_eval 10.0's round(x R) or "
                       "trec_eval 9's trunc(x R + 0.9), which pytrec_eval and ir_measures' IPrec compute")
COEFFICIENTS = Param("coefficients", "floats", None, ("coefficients",), "coefficients={v}",
                     doc="utility's a:b:c:d (rel_ret, nonrel_ret, rel_nonret, nonrel_nonret; default 1:-1:0:0)")
# The parameters of cwl_eval's measures (evalcore.cwl), spelt as ir_measures spells them
GOAL = Param("goal", "float", 1.0, ("T",), "T={v}", low=0.0, low_open=True,
             doc="T: the gain the user sets out to find (INST, INSQ, NERR11) or BPM's bound on it, in units of a "
                 "document at max_rel (gains are scaled to [0, 1])")
MIN_REL = Param("min_rel", "int", 0, ("min_rel",), "min_rel={v}",
                doc="the label that gains 0 in cwl_eval's measures (lower labels too): gain = (label - min_rel) / "
                    "(max_rel - min_rel)")
MAX_REL = Param("max_rel", "int", None, ("max_rel",), "max_rel={v}",
                doc="the label that gains 1 in cwl_eval's measures (higher labels too); ir_measures requires it, "
                    "evalcore's own names default to the collection's highest level")
PHI = Param("phi", "float", 0.9, ("p",), "p={v}", low=0.0, high=1.0,
            doc="NERR10's persistence phi (ir_measures' p, 0.9 by default)")
PARAMS: dict[str, Param] = {p.name: p for p in (GAINS, BETA, PENALTIES, REL, LOG_BASE, PERSISTENCE, JUDGED_ONLY,
                                                TIES, RECALL, MULT, F_BETA, RBP_P, COUNT_RULE, COEFFICIENTS,
                                                PHI, GOAL, MIN_REL, MAX_REL)}
#: A spelling in a metric name -> the parameter (``rel`` -> rel_threshold, ``b`` -> log_base); where two
#: parameters share a spelling (``beta``, ``p``) the first is listed here and a metric's own is read
#: (:func:`spelled`).
PARAM_SPELLINGS: dict[str, Param] = {}
for _p in PARAMS.values():
    for _k in _p.spellings:
        PARAM_SPELLINGS.setdefault(_k, _p)


#: The parameters that are also settings (declared with a :class:`Setting`), in the order of :data:`PARAMS`.
SETTING_PARAMS: tuple[Param, ...] = tuple(p for p in PARAMS.values() if p.setting is not None)


def spelled(spec: MetricSpec, spelling: str) -> Param | None:
    """The parameter of ``spec`` a name writes as ``spelling`` (``beta`` is SetF's f_beta, Q-measure's beta)."""
    return next((p for p in spec.params if spelling in p.spellings), None)


@dataclass(frozen=True)
class PeerRule:
    """A peer tool's name that does *not* mean this measure, though it looks like one of its names: refused
    with ``reason`` (:mod:`evalcore.names`). ``convention`` is the peer (``"trec_eval"``, ``"ir_measures"``,
    ``"ranx"``), ``name`` its base name as the peer writes it (matched regardless of letter case), ``when``
    ``"always"``, ``"cutoff"`` (only written with a cutoff: ir_measures' ``AP@10``) or ``"no cutoff"``
    (whole-list ``nDCG``)."""

    convention: str
    name: str
    reason: str
    when: str = "always"

    def applies(self, has_cutoff: bool) -> bool:
        return self.when == "always" or (self.when == "cutoff") == has_cutoff


@dataclass(frozen=True)
class Ambiguity:
    """This measure's evalcore key means another measure in a peer tool: read as evalcore's, with an
    :class:`evalcore.names.AmbiguousNameWarning` saying how to get the peer's. ``text`` is the warning, a
    format with ``{text}`` (the name as written), ``{cut}`` (``@10``, or ``@k`` without a cutoff) and
    ``{k}`` (the cutoff or ``k``); ``without_cutoff`` is added when the name has no cutoff; ``when`` as in
    :class:`PeerRule` (``"cutoff"``: only a name with a cutoff is ambiguous)."""

    text: str
    without_cutoff: str = ""
    when: str = "always"


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
    # ranx's metric name (ranx writes them in lower case: "mrr", "ndcg@10"), where ranx's values equal this
    # measure's (tests/test_peer_names.py, on clef2015); not bpref: ranx's differs from trec_eval's there
    ranx: str | None = None
    definition: str = ""           # one line, for docs/metrics.md's crosswalk and `evalcore metrics`
    # Peer names that look like this measure's but mean something else: refused with the reason.
    refused: tuple[PeerRule, ...] = ()
    # The evalcore key means another measure in a peer tool: read as evalcore's, with this warning.
    ambiguity: Ambiguity | None = None
    # A count (NumRet, NumRel, NumRelRet), not a score in [0, 1]: its "all" row is the sum over the topics,
    # as trec_eval and ir_measures aggregate it, and the dashboard, whose charts and meta-evaluation assume
    # scores in [0, 1], does not offer it (``evalcore evaluate`` and the Python API do).
    count: bool = False
    # The measure can be other than 0 on a topic with no relevant document (NumRet, Judged@k): under
    # trec_eval's topic policy it is computed there (``Collection.no_relevant``), not set to 0.
    scores_without_relevant: bool = False
    # The topic policy of the measure's own evalcore name when none is asked for (topic_policy): None =
    # NTCIREVAL's; "trec_eval" for the measures only trec_eval / ir_measures define, whose evalcore key is
    # their peer's name (bpref, NumRet, R@k), so that the name keeps the peer's mean.
    topics: str | None = None
    # The parameter ``@x`` writes, when it is not a cutoff (IPrec@0.1: the recall level; Rprec_mult@0.5), and
    # the values a name without ``@x`` stands for (trec_eval's defaults: iprec_at_recall is 11 measures).
    at: Param | None = None
    at_values: tuple = ()
    # How the "all" row combines the topics when the call asks for the arithmetic mean: "mean", or
    # "geometric" (trec_eval's gm_map and gm_bpref: exp of the mean log, floored at 1e-5), or "defined" (the
    # mean of the topics where the measure is defined, not NaN: ir_measures' Accuracy, which reports no value
    # elsewhere) - a count sums.
    aggregate: str = "mean"
    # A score in [0, 1] (utility is not): the dashboard, whose charts assume that, offers only these.
    bounded: bool = True
    # The ir_measures name reads as this measure only with a cutoff ("cutoff": AP@k is map_cut@k), only
    # without ("no cutoff"), or always; ``ir_measures_fixed``: ir_measures parameters (name, value) that
    # select this measure and are not parameters of it (SetP(relative=True) is SetRelP).
    ir_measures_when: str = "always"
    ir_measures_fixed: tuple = ()

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
          params=(REL, JUDGED_ONLY), trec_eval="map", ntcireval="AP", ir_measures="AP", ranx="map",
          ir_measures_when="no cutoff",
          definition="003 Eq. 1, binary at `rel_threshold` (relaxed = 1, rigid = 2)",
          refused=(PeerRule("ranx", "map", "ranx's map@k divides by R, as trec_eval's map_cut_k does; evalcore's "
                            "AP@k divides by min(R, k) (NTCIREVAL); use AP (no cutoff), map_cut@k (trec_eval's, "
                            "ir_measures' AP@k) or evalcore:AP@k", when="cutoff"),),
          ambiguity=Ambiguity(
              "{text!r} is read as evalcore's AP{cut} (NTCIREVAL's convention: ranks <= {k}, divided by "
              "min(R, {k})). ir_measures' AP{cut} is trec_eval's map_cut_{k}, which divides by R: write "
              "map_cut{cut} or irm:AP{cut} for that; write evalcore:AP{cut} (or --names evalcore) to keep this "
              "meaning without this warning.", when="cutoff")),
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
          params=(REL, JUDGED_ONLY), cutoff="none", trec_eval="Rprec", ir_measures="Rprec", ranx="r-precision",
          definition="count(R_b)/R_b at the binary threshold"),
    _spec("RR", M.reciprocal_rank, "Reciprocal Rank", "003 Sec. 1",
          "stops at the first relevant document, however relevant",
          params=(REL, JUDGED_ONLY, TIES), trec_eval="recip_rank", ir_measures="RR", ntcireval="RR", ranx="mrr",
          definition="1/r_1, binary at `rel_threshold`; ir_measures' RR@k (msmarco) orders ties by document id "
                     "ascending (`ties=ir_measures`)"),
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
          definition="Jarvelin-Kekalainen original: gain/log_b(r) for r >= b, b = 2 by default",
          ambiguity=Ambiguity(
              "{text!r} is read as evalcore's nDCG{cut}: the original Jarvelin-Kekalainen nDCG of the papers (and "
              "NTCIREVAL), discount log_b(r) from rank b. ir_measures' nDCG{cut}, ranx's ndcg{cut} and "
              "trec_eval's ndcg_cut are evalcore's MSnDCG{cut} (log2(r+1)): write MSnDCG{cut} or irm:nDCG{cut} "
              "(or --names ir_measures) for that; write evalcore:nDCG{cut} (or --names evalcore) to keep this "
              "meaning without this warning.",
              without_cutoff=" Without @k it is computed at every configured cutoff (--cutoffs; default 10 and "
                             "1000), one measure per cutoff: ir_measures' and trec_eval's bare nDCG (the whole "
                             "list, Burges form) is MSnDCG-list (irm:nDCG, trec_eval's ndcg).")),
    _spec("MSnDCG", M.msndcg, "nDCG (Microsoft, log2(r+1))", "Burges et al. 2005",
          "reads the top l, discounting by log2(rank + 1)",
          params=(GAINS, JUDGED_ONLY), cutoff="required", trec_eval="ndcg_cut", ntcireval="MSnDCG",
          ir_measures="nDCG", ranx="ndcg", ir_measures_when="cutoff",
          definition="Burges (Microsoft) form: gain/log2(r+1); peers use gain = level",
          refused=(PeerRule("ranx", "ndcg", "ranx's ndcg without @k scores the whole list; evalcore's needs a "
                            "cutoff: use ranx:ndcg@k (= MSnDCG@k) with k >= the list length", when="no cutoff"),
                   PeerRule("ranx", "ndcg_burges", "ranx's ndcg_burges takes the gain 2^rel - 1, not the level: "
                            "evalcore's MSnDCG@k with those gains, e.g. MSnDCG(gains=7:3:1)@10 on levels 3:2:1"))),
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
          definition="ERR with stop probability gain(L)/(max gain + 1), normalised by the ideal list's "
                     "(NTCIREVAL's gain(K)+1 for ascending gains)"),
    _spec("P", M.precision, "Precision at l", "004 (PDoc)",
          "reads exactly the top l and counts relevant documents",
          params=(REL, JUDGED_ONLY), cutoff="required", trec_eval="P", ir_measures="P", ntcireval="Prec",
          ranx="precision",
          definition="binary at `rel_threshold`; divides by k"),
    _spec("Hit", M.hit, "Hit at l", "",
          "is satisfied by any relevant document in the top l",
          params=(REL, JUDGED_ONLY), cutoff="required", ir_measures="Success", trec_eval="success",
          ntcireval="Hit",
          ranx="hit_rate",
          definition="1 if the top k hold a document at `rel_threshold`"),
    _spec("RBP", M.rbp, "Rank-Biased Precision", "Moffat & Zobel 2008",
          "reads rank 1, then goes on to each next rank with probability p",
          params=(PERSISTENCE, REL), cutoff="required",
          definition="(1 - p) sum_{r<=k} rel(r) p^(r-1), binary at `rel_threshold`, p = 0.8 by default",
          refused=(PeerRule("ir_measures", "RBP", "ir_measures 0.4.3 computes RBP with a cutoff only through its "
                            "trectools provider, which is not in its default pipeline (its cwl_eval provider takes "
                            "RBP(rel=L, p=...) without one: evalcore's RBP-cwl, irm:RBP(rel=1)); evalcore's "
                            "RBP(p=...,rel=L)@k is Moffat & Zobel's sum to rank k; trec_eval's rbp (graded, "
                            "p = 0.9) is RBP-graded", when="cutoff"),),
          ambiguity=Ambiguity(
              "{text!r} is read as evalcore's RBP: relevance 0/1 at rel_threshold (Moffat & Zobel 2008), to rank "
              "{k}, score ties in trec_eval's order. trec_eval's rbp (RBP-graded) weighs each document by its gain "
              "scaled to [0, 1] over the whole list with p = 0.9, and ir_measures' RBP(rel=L) (cwl_eval: 1000 "
              "ranks, normalised there, ties in the run's own order) is RBP-cwl, irm:RBP(rel=1); write "
              "evalcore:{text} (or --names evalcore) to keep this meaning without this warning.")),
    _spec("RBP-residual", M.rbp_residual, "RBP residual", "Moffat & Zobel 2008",
          "the weight RBP@k leaves unknown: unjudged documents and ranks beyond k",
          params=(PERSISTENCE,), cutoff="required",
          definition="(1 - p) sum_{r<=k, unjudged} p^(r-1) + p^k: full judgments would give a score in "
                     "[RBP@k, RBP@k + residual]"),
    _spec("R", M.recall, "Recall at l", "trec_eval recall_k",
          "reads exactly the top l and counts the share of all relevant documents found",
          params=(REL, JUDGED_ONLY), cutoff="required", trec_eval="recall", ir_measures="R", ranx="recall",
          topics="trec_eval",
          definition="count(k)/R, binary at `rel_threshold`; 0 when R = 0"),
    _spec("bpref", M.bpref, "bpref", "Buckley & Voorhees 2004",
          "prefers each judged relevant document to the judged non-relevant ones; ignores unjudged documents",
          params=(REL,), cutoff="none", trec_eval="bpref", ir_measures="Bpref",
          topics="trec_eval",
          definition="(1/R) sum_{rel r} (1 - min(n_r, R)/min(N, R)), n_r judged non-relevant above r, N judged "
                     "non-relevant (level < `rel_threshold`); trec_eval's form"),
    _spec("Judged", M.judged, "Judged at l", "ir_measures Judged@k",
          "not a user model: how much of the top l the judgments cover",
          cutoff="required", ir_measures="Judged", scores_without_relevant=True,
          topics="trec_eval",
          definition="share of the top min(k, list length) with a qrels entry (any level); score ties in "
                     "ir_measures' order (document id ascending)"),
    _spec("NumRet", M.num_ret, "Number retrieved", "trec_eval num_ret",
          "not a user model: a count describing the run",
          cutoff="none", trec_eval="num_ret", ir_measures="NumRet", count=True, scores_without_relevant=True,
          topics="trec_eval",
          definition="documents retrieved (a count; the mean row is the sum over topics)"),
    _spec("NumRel", M.num_rel, "Number relevant", "trec_eval num_rel",
          "not a user model: a count describing the judgments",
          params=(REL,), cutoff="none", trec_eval="num_rel", ir_measures="NumRel", count=True,
          topics="trec_eval",
          definition="R at `rel_threshold` (a count; the mean row is the sum over topics)"),
    _spec("NumRelRet", M.num_rel_ret, "Number relevant retrieved", "trec_eval num_rel_ret",
          "not a user model: a count describing the run",
          params=(REL,), cutoff="none", trec_eval="num_rel_ret", ir_measures="NumRelRet", count=True,
          topics="trec_eval",
          definition="relevant documents retrieved at `rel_threshold` (a count; the mean row is the sum over topics)"),
    # -- trec_eval's measures through evalcore.trec_measures (its port, evalcore.treceval) -------------------
    _spec("IPrec", T.iprec_at_recall, "Interpolated precision at a recall level", "trec_eval iprec_at_recall",
          "reads down to the rank where a share x of the relevant documents is found; the best precision from there",
          params=(REL, JUDGED_ONLY, RECALL, COUNT_RULE), cutoff="none", at=RECALL,
          at_values=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), trec_eval="iprec_at_recall",
          ir_measures="IPrec", topics="trec_eval",
          definition="max precision at ranks >= the rank of the round(x R)-th relevant document (trec_eval 10.0; "
                     "ir_measures' IPrec is trec_eval 9's trunc(x R + 0.9): count_rule=trunc); IPrec@x, x in [0, 1]; "
                     "a bare IPrec is the 11 levels 0.0..1.0, as trec_eval"),
    _spec("11pt_avg", T.eleven_point_average, "11-point average interpolated precision", "trec_eval 11pt_avg",
          "the interpolated precision-recall curve, averaged over 11 recall levels",
          params=(REL,), cutoff="none", trec_eval="11pt_avg", topics="trec_eval",
          definition="mean of IPrec@0.0, @0.1, ..., @1.0"),
    _spec("infAP", T.inferred_ap, "Inferred AP", "Yilmaz & Aslam 2006; trec_eval infAP",
          "AP estimated from a sample of judgments: unjudged documents above a relevant one are inferred",
          params=(REL,), cutoff="none", trec_eval="infAP", ir_measures="infAP", topics="trec_eval",
          definition="trec_eval's infAP; without negative qrels labels (sampled, unjudged) every judged document "
                     "counts and unjudged ones (no qrels entry) are non-relevant"),
    _spec("Rprec_mult", T.rprec_mult, "Precision at a multiple of R", "trec_eval Rprec_mult",
          "reads the top x R documents and counts the relevant ones",
          params=(REL, MULT), cutoff="none", at=MULT, at_values=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
          trec_eval="Rprec_mult", topics="trec_eval",
          definition="P at rank x R (Rprec_mult@1 = R-Prec); a bare Rprec_mult is trec_eval's 10 multiples"),
    _spec("utility", T.utility, "Set utility", "trec_eval utility",
          "not a user model: a weighted count of the contingency table of the whole list",
          params=(REL, COEFFICIENTS), cutoff="none", trec_eval="utility", topics="trec_eval", bounded=False,
          scores_without_relevant=True,
          definition="a rel_ret + b nonrel_ret + c rel_nonret + d nonrel_nonret, a:b:c:d = 1:-1:0:0 by default"),
    _spec("binG", T.bin_g, "Binary G", "trec_eval binG",
          "each relevant document discounted by the non-relevant ones read before it",
          params=(REL,), cutoff="none", trec_eval="binG", topics="trec_eval",
          definition="(1/R) sum over relevant retrieved of 1/log2(2 + non-relevant above)"),
    _spec("G", T.g_measure, "G (normalised gain)", "trec_eval G",
          "each document's gain discounted by how far the list trails the ideal gain so far",
          params=(GAINS,), cutoff="none", trec_eval="G", topics="trec_eval",
          definition="sum gain(r)/log2(2 + ideal gain(r) - gain so far(r)), over the ideal total gain"),
    _spec("MSnDCG-list", T.ndcg_whole, "nDCG of the whole list (log2(r+1))", "Burges et al. 2005; trec_eval ndcg",
          "reads the whole list, discounting by log2(rank + 1)",
          params=(GAINS, JUDGED_ONLY), cutoff="none", trec_eval="ndcg", ir_measures="nDCG",
          ir_measures_when="no cutoff", topics="trec_eval",
          definition="MSnDCG over every retrieved document against the ideal DCG of every judged document"),
    _spec("ndcg_rel", T.ndcg_rel, "nDCG averaged over the relevant documents", "trec_eval ndcg_rel",
          "nDCG read at the rank of each relevant document, averaged",
          params=(GAINS,), cutoff="none", trec_eval="ndcg_rel", topics="trec_eval",
          definition="nDCG averaged at the relevant documents' ranks (unretrieved ones add 0)"),
    _spec("Rndcg", T.rndcg, "nDCG averaged at the R levels", "trec_eval Rndcg",
          "nDCG read where each gain level of the ideal list ends, averaged",
          params=(GAINS, REL), cutoff="none", trec_eval="Rndcg", topics="trec_eval",
          definition="nDCG averaged at the cumulative counts of the gain levels, highest first"),
    _spec("relative_P", T.relative_precision, "Relative precision at l", "trec_eval relative_P",
          "reads exactly the top l; precision over the best possible there",
          params=(REL,), cutoff="required", trec_eval="relative_P", topics="trec_eval",
          definition="P@k / (min(R, k)/k): precision up to R, recall after"),
    _spec("map_cut", T.map_cut, "AP at l, divided by R", "trec_eval map_cut",
          "AP of the top l, every relevant document not found there adding 0",
          params=(REL, JUDGED_ONLY), cutoff="required", trec_eval="map_cut", ir_measures="AP",
          ir_measures_when="cutoff", topics="trec_eval",
          definition="(1/R) sum_{rel r <= k} P@r, R all relevant documents (evalcore's AP@k divides by min(R, k))"),
    _spec("SetP", T.set_precision, "Set precision", "trec_eval set_P",
          "reads the whole list and counts the share of it that is relevant",
          params=(REL, JUDGED_ONLY), cutoff="none", trec_eval="set_P", ir_measures="SetP", topics="trec_eval",
          definition="NumRelRet / NumRet at `rel_threshold`: precision of the whole list"),
    _spec("SetRelP", T.set_relative_precision, "Relative set precision", "trec_eval set_relative_P",
          "set precision over the best a list of that length could do",
          params=(REL, JUDGED_ONLY), cutoff="none", trec_eval="set_relative_P", ir_measures="SetP",
          ir_measures_fixed=(("relative", True),), topics="trec_eval",
          definition="NumRelRet / min(R, NumRet)"),
    _spec("SetR", T.set_recall, "Set recall", "trec_eval set_recall",
          "reads the whole list and counts the share of the relevant documents found",
          params=(REL,), cutoff="none", trec_eval="set_recall", ir_measures="SetR", topics="trec_eval",
          definition="NumRelRet / R: recall of the whole list"),
    _spec("SetAP", T.set_ap, "Set AP", "trec_eval set_map",
          "set precision times set recall",
          params=(REL, JUDGED_ONLY), cutoff="none", trec_eval="set_map", ir_measures="SetAP", topics="trec_eval",
          definition="SetP x SetR"),
    _spec("SetF", T.set_f, "Set F-measure", "van Rijsbergen 1979; trec_eval set_F",
          "weighs the recall and the precision of the whole list",
          params=(REL, JUDGED_ONLY, F_BETA), cutoff="none", trec_eval="set_F", ir_measures="SetF",
          topics="trec_eval",
          definition="(beta + 1) P R / (R + beta P) of the whole list, trec_eval's form (beta = 1: F1)"),
    _spec("gm_map", M.average_precision, "Geometric mean of AP", "Robertson 2006; trec_eval gm_map",
          "AP, with a mean over topics that rewards doing well on every topic",
          params=(REL,), trec_eval="gm_map", cutoff="none", topics="trec_eval", aggregate="geometric",
          definition="per topic AP; the \"all\" row exp(mean log max(AP, 1e-5))"),
    _spec("gm_bpref", M.bpref, "Geometric mean of bpref", "trec_eval gm_bpref",
          "bpref, with a mean over topics that rewards doing well on every topic",
          params=(REL,), trec_eval="gm_bpref", cutoff="none", topics="trec_eval", aggregate="geometric",
          definition="per topic bpref; the \"all\" row exp(mean log max(bpref, 1e-5))"),
    _spec("unj", T.unjudged_share, "Unjudged at l", "trec_eval unj",
          "not a user model: how much of the top l the judgments miss",
          cutoff="required", trec_eval="unj", topics="trec_eval", scores_without_relevant=True,
          definition="share of the top k (divided by k) without a qrels entry"),
    _spec("RBP-graded", T.rbp_graded, "Rank-biased precision, graded (trec_eval)", "Moffat & Zobel 2008; trec_eval rbp",
          "reads rank 1, then goes on to each next rank with probability p, gaining each document's gain",
          params=(GAINS, RBP_P), cutoff="none", trec_eval="rbp", topics="trec_eval",
          definition="(1 - p) sum_r g(r) p^(r-1) over the whole list, gains scaled to [0, 1], p = 0.9"),
    _spec("RBP-graded-residual", T.rbp_graded_residual, "RBP-graded residual (trec_eval)",
          "Moffat & Zobel 2008; trec_eval rbp_resid",
          "the weight RBP-graded leaves unknown: the unjudged documents retrieved at the highest gain",
          params=(GAINS, RBP_P), cutoff="none", trec_eval="rbp_resid", topics="trec_eval",
          scores_without_relevant=True,
          definition="the most RBP-graded could rise if every unjudged document retrieved had the highest gain"),
    _spec("num_nonrel_judged_ret", T.num_nonrel_judged_ret, "Number judged non-relevant retrieved",
          "trec_eval num_nonrel_judged_ret", "not a user model: a count describing the run",
          params=(REL,), cutoff="none", trec_eval="num_nonrel_judged_ret", count=True, scores_without_relevant=True,
          topics="trec_eval",
          definition="judged documents below `rel_threshold` retrieved (a count; the mean row is the sum)"),
    _spec("NumQ", T.num_q, "Number of topics", "trec_eval num_q",
          "not a user model: the topics evaluated", cutoff="none", trec_eval="num_q", ir_measures="NumQ",
          count=True, scores_without_relevant=True, topics="trec_eval",
          definition="1 per topic the run retrieved (a count; the mean row is the sum: ir_measures' NumQ; "
                     "trec_eval's num_q under -c counts every qrels topic)"),
    # -- ir_measures' gdeval provider ------------------------------------------------------------------------
    _spec("ERR", T.err_gdeval, "Expected Reciprocal Rank (gdeval)", "Chapelle et al. 2009; TREC Web gdeval.pl",
          "stops at each document with probability (2^label - 1)/16",
          cutoff="required", ir_measures="ERR", topics="trec_eval",
          definition="sum_{r<=k} R_r/r prod_{i<r}(1 - R_i), R = (2^label - 1)/2^4, not normalised (gdeval's)"),
    # -- ir_measures' cwl_eval provider (evalcore.cwl): EU = sum W(i) g(i) over 1000 ranks, ties in the run's order,
    # g = (clip(label, min_rel, max_rel) - min_rel) / (max_rel - min_rel); unjudged 0; every qrels topic
    _spec("RBP-cwl", W.rbp, "Rank-biased precision (cwl_eval)", "Moffat & Zobel 2008; cwl_eval (Azzopardi et al. 2019)",
          "reads rank 1, then goes on to each next rank with probability p, up to rank 1000",
          params=(PERSISTENCE, REL), cutoff="none", ir_measures="RBP", topics="trec_eval",
          definition="sum_{r<=1000} rel(r) p^(r-1) / sum_{r<=1000} p^(r-1), binary at `rel_threshold`, ties in the "
                     "run's own order (cwl_eval; ir_measures' RBP(rel=L,p=...))"),
    _spec("SDCG", W.sdcg, "Scaled DCG (cwl_eval)", "Jarvelin & Kekalainen 2002; cwl_eval (Azzopardi et al. 2019)",
          "reads the top l, discounting by log2(rank + 1)",
          params=(MIN_REL, MAX_REL), cutoff="required", ir_measures="SDCG", topics="trec_eval",
          scores_without_relevant=True,
          definition="DCG@k of the scaled gains over the DCG of k documents at max_rel: sum g(r)/log2(r+1) / "
                     "sum 1/log2(r+1), r <= k (cwl_eval's NDCG-k)"),
    _spec("BPM", W.bpm, "Bejeweled Player Model, static (cwl_eval)", "Zhang et al. 2017; cwl_eval",
          "reads until the gain found reaches T or k documents are read; the gain per document read",
          params=(GOAL, MIN_REL, MAX_REL), cutoff="required", ir_measures="BPM", topics="trec_eval",
          scores_without_relevant=True,
          definition="cg(m)/m, m = min(first rank with cg >= T, k, 1000) (Zhang et al. 2017's static BPM, cwl_eval)"),
    _spec("INST", W.inst, "INST (cwl_eval)", "Moffat, Bailey, Scholer & Thomas 2017",
          "wants gain T: goes on with C(i) = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i the gain still missing",
          params=(GOAL, MIN_REL, MAX_REL), cutoff="none", ir_measures="INST", topics="trec_eval",
          scores_without_relevant=True,
          definition="C/W/L expected gain per document, C(i) = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - cg(i), "
                     "1000 ranks"),
    _spec("INSQ", W.insq, "INSQ (cwl_eval)", "Moffat, Scholer & Thomas 2012; Moffat et al. 2017",
          "wants gain T: goes on with C(i) = ((i + 2T - 1)/(i + 2T))^2, whatever it finds",
          params=(GOAL, MIN_REL, MAX_REL), cutoff="none", ir_measures="INSQ", topics="trec_eval",
          scores_without_relevant=True,
          definition="C/W/L expected gain per document, C(i) = ((i + 2T - 1)/(i + 2T))^2, 1000 ranks"),
    _spec("NERR8", W.nerr8, "NERR, Eq. 8 (cwl_eval)", "Azzopardi, Mackenzie & Moffat 2021; cwl_eval",
          "stops at a document with probability its gain, and at rank l at the latest",
          params=(MIN_REL, MAX_REL), cutoff="required", ir_measures="NERR8", topics="trec_eval",
          scores_without_relevant=True,
          definition="C/W/L with C(i) = 1 - g(i) for i < k, 0 after"),
    _spec("NERR9", W.nerr9, "NERR, Eq. 9 (cwl_eval)", "Azzopardi, Mackenzie & Moffat 2021; cwl_eval",
          "stops at a document with probability its gain, with ERR's 1/i patience, at rank l at the latest",
          params=(MIN_REL, MAX_REL), cutoff="required", ir_measures="NERR9", topics="trec_eval",
          scores_without_relevant=True,
          definition="C/W/L with C(i) = i/(i + 1) (1 - g(i)) for i < k, 0 after"),
    _spec("NERR10", W.nerr10, "NERR, Eq. 10 (cwl_eval)", "Azzopardi, Mackenzie & Moffat 2021; cwl_eval",
          "stops at a document with probability its gain, and otherwise goes on with probability p",
          params=(PHI, MIN_REL, MAX_REL), cutoff="none", ir_measures="NERR10", topics="trec_eval",
          scores_without_relevant=True,
          definition="C/W/L with C(i) = p (1 - g(i)), p = 0.9 by default, 1000 ranks"),
    _spec("NERR11", W.nerr11, "NERR, Eq. 11 (cwl_eval)", "Azzopardi, Mackenzie & Moffat 2021; cwl_eval",
          "stops at a document with probability its gain, and otherwise goes on with INSQ's patience",
          params=(GOAL, MIN_REL, MAX_REL), cutoff="none", ir_measures="NERR11", topics="trec_eval",
          scores_without_relevant=True,
          definition="C/W/L with C(i) = ((i + 2T - 1)/(i + 2T))^2 (1 - g(i)), 1000 ranks"),
    # -- ir_measures' accuracy provider ----------------------------------------------------------------------
    _spec("Accuracy", M.accuracy, "Accuracy (ir_measures)", "ir_measures' accuracy provider",
          "not a user model: how often a relevant document is ranked above a non-relevant one (a diagnostic)",
          params=(REL,), cutoff="optional", ir_measures="Accuracy", topics="trec_eval", aggregate="defined",
          definition="1 - sum_i n_i / (m N): m relevant and N non-relevant documents in the top k, n_i non-relevant "
                     "above the i-th relevant; undefined (NaN, left out of the mean) without such a pair"),
]}

def readers(param: Param) -> tuple[str, ...]:
    """The keys of the measures that read ``param`` (a setting's value applies to these)."""
    return tuple(k for k, s in METRICS.items() if param in s.params)


def setting_help(param: Param) -> str:
    """A setting in words, for the option's and the slider's help: what it is, which measures read it, its
    default and bounds (the settings file's: the parameter's, with the setting's ``cap`` where it has no upper
    bound), all from the declaration."""
    who = readers(param)
    cite = f"{METRICS[who[0]].citation}; " if who else ""
    cap = f" and <= {param.setting.cap:g}" if param.setting is not None and param.high is None else ""
    return (f"{param.doc}; read by {', '.join(who)} where the name does not fix it "
            f"({who[0] if who else param.name}({param.spellings[0]}=...)) ({cite}default {param.default:g}; "
            f"{param.bounds_text()}{cap})")


#: Every base key, in the order the papers discuss them.
METRIC_KEYS: tuple[str, ...] = tuple(METRICS)
#: The scores in [0, 1] averaged over topics (not the counts, not utility, not the geometric means, not the
#: measures whose @x is not a cutoff): the measures the dashboard offers and meta-evaluation may compare.
SCORE_KEYS: tuple[str, ...] = tuple(k for k, s in METRICS.items()
                                    if not s.count and s.bounded and s.at is None and s.aggregate == "mean")
#: The one-document family of 003, most to least graded.
ONE_DOCUMENT_KEYS = ("P+-measure", "P-measure", "O-measure", "NWRR", "RR")
