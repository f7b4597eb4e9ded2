"""Subcommands ``pairs`` and ``topics`` of ``evalcore`` and the ``--standardise`` option.

Registered by :func:`register` (with the subparsers and the shared data/metric parent parser); the
``--standardise`` option and the input/output plumbing are :mod:`.meta`'s. Input, output and
``--top``/``--scores`` work as for the other meta-evaluation subcommands.

The JSON layouts are :data:`PAIRS_HELP` and :data:`TOPICS_HELP` (shown by
``--help``; plain strings, so ``python -OO`` keeps them).
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from ..meta.pairs import CI_METHODS, CORRECTIONS, TESTS, TIE_RULE, pair_statistics
from ..meta.topicsets import (
    DESIGNS,
    ESTIMATORS,
    design_variance,
    estimator_sizes,
    min_detectable_difference,
    power,
    residual_variance,
    topic_set_size,
    within_system_variance,
)
from ..settings import FIELDS
from .meta import (
    add_standardise_options,
    apply_standardise,
    common_settings,
    emit,
    load_scores,
    meta_parent,
    pairs_tests,
    progress_printer,
    standardise_settings,
)
from .options import SIM_MAX_SYSTEMS, number

__all__ = ["register", "add_subparsers", "add_standardise_options", "apply_standardise", "run_pairs", "run_topics"]

PAIRS_HELP = """\
``pairs`` (JSON, with ``--output json``): command, collection, runs, n_topics,
metrics, settings (test, correction, alpha, ci, confidence, B, seed,
standardise, ties: the rule that ties per-topic differences by value, not by
bits, and tie_tolerance: its absolute tolerance per metric, ...) and three
tables:

    pairs    one record per (metric, run_x, run_y): mean_diff, ci_low, ci_high,
             effect_size (mean_diff / sqrt(V_E), V_E over the runs compared:
             settings.effect_size_runs), p_value (the chosen --test),
             p_adjusted (--correction over all pairs of that metric), significant
             (p_adjusted < alpha), d_z (Cohen's d_z = mean / sd of the
             differences; no Hedges correction), n_topics (topics used),
             p_mc_se (Monte Carlo standard error of p_value: sqrt(p (1 - p) / B)
             for the resampled tests, 0 for exact ones), ci_mc_se (Monte Carlo
             standard error of the bootstrap CI's endpoints, 0 for the t CI)
    summary  discriminative power: metric, test, correction, alpha, n_significant,
             n_pairs, pct_significant
    curves   the sorted (adjusted) p-values: metric, pair_rank, p_value

``--output tsv`` prints one table (``--table``, default pairs).

"""
TOPICS_HELP = """\
``topics`` (JSON): n_topics (topics needed), power (achieved at n_topics;
expected_width for the CI designs), n_approx (normal approximation), the inputs
echoed (test, alpha, beta, min_diff, variance, systems), variance_estimator
("two-way", "one-way" or "given"), variance_estimator_name (the ANOVA whose
residual it is), variance_estimator_default (whether it is the design's
default), variance_source (what variance is, e.g. "2 V_E (two-way ANOVA
without replication residual: the topic effect removed; Sakai 2016) of AP"),
variance_definition (the estimator's formula and source), sigma2 (the one-way
ANOVA residual of --metric), v_e (the two-way ANOVA residual of --metric),
n_topics_two_way and n_topics_one_way (the topics needed under each estimate,
null with --variance or where an estimate is 0), variance_runs /
variance_topics (the runs and the complete topics the estimate used), metric,
metric_settings (gains, beta,
penalties, rel_threshold, log_base used to score a collection), and with data the collection's own
collection_n_topics with collection_min_diff (the minimum detectable
difference / range / expected CI width at that n) and collection_power (the
power at --min-diff with that n). ``--output tsv``: the same keys as a header
line and one row.
"""


def register(subparsers, data_parent: argparse.ArgumentParser) -> None:
    """Register ``pairs``, ``topics`` and ``report`` (the last, 003's whole experiment, builds on every
    meta-evaluation command; registered here so that ``--help`` lists it last)."""
    add_subparsers(subparsers, data_parent)

    from .report import add_report_subcommand
    add_report_subcommand(subparsers, data_parent)


def add_subparsers(sub, data_parent: argparse.ArgumentParser) -> None:
    """Register ``pairs`` and ``topics`` on ``sub``."""

    from .evaluate import add_topics_option
    from .options import data_options_parser

    fmt = argparse.RawDescriptionHelpFormatter
    data = data_options_parser()   # a private copy: 'resolve' (for --topics POLICY|N) edits its actions
    p = sub.add_parser("pairs", parents=[data, meta_parent(1000, [0.05], ["pairs", "summary", "curves"])],
                       conflict_handler="resolve",
                       help="every run pair: mean difference, CI, effect size, p-value, adjusted p-value",
                       description="Paired comparison of every run pair of every metric (Sakai 2014/2018; "
                                   "Carterette 2012): CI, effect size over sqrt(V_E), the p-value of one test "
                                   "and its Holm/BH adjustment over all pairs of a metric.",
                       epilog=PAIRS_HELP, formatter_class=fmt)
    g = p.add_argument_group("pairs")
    g.add_argument("--test", choices=TESTS, default="t", help="test of p_value (default t: paired t-test)")
    g.add_argument("--correction", choices=CORRECTIONS, default="none",
                   help="p-value adjustment over all pairs of a metric (default none)")
    g.add_argument("--ci", choices=CI_METHODS, default="t",
                   help="ci_low/ci_high from the paired t distribution (default) or the bootstrap percentiles "
                        "(B samples, --seed, as the bootstrap subcommand)")
    g.add_argument("--confidence", type=number("--confidence", float, 0, 1, strict=True), metavar="C",
                   help="CI level (default 1 - alpha, so the t CI excludes 0 exactly when p_t < alpha)")
    add_topics_option(p, data)
    p.set_defaults(func=run_pairs, topic_policy=None)

    fresh = data_options_parser()        # a private copy: 'resolve' below edits its actions
    t = sub.add_parser("topics", parents=[fresh], conflict_handler="resolve",
                       help="topic set size design: topics needed for a paired or unpaired t-test, ANOVA or a "
                            "CI (Sakai 2016, 2018)",
                       description="Number of topics needed to detect --min-diff with power 1 - beta at level "
                                   "alpha, by exact noncentral t / F power (Sakai 2016; unpaired designs: Sakai "
                                   "2018). The variance is --variance, or estimated from --metric on the loaded "
                                   "data (--variance-estimator, either for every design): by default V_E, the "
                                   "residual variance of the two-way ANOVA without replication, sum (x_ij - "
                                   "x_i. - x_.j + x..)^2 / ((m-1)(n-1)), for paired-t, ci (2 V_E) and anova, as "
                                   "Sakai 2016 estimates it; the one-way ANOVA residual sigma^2 = sum (x_ij - "
                                   "x_i.)^2 / (m(n-1)) (the within-system variance pooled over runs, topic "
                                   "variance kept) for the unpaired designs, whose systems share no topics "
                                   "(Sakai 2018). The output names the estimate used and gives n_topics under "
                                   "both (n_topics_two_way, n_topics_one_way). Here --beta is 1 - power "
                                   "and --systems the m of ANOVA: the blended-ratio beta is --metric-beta, "
                                   "the simulated collection's runs --sim-systems.",
                       epilog=TOPICS_HELP, formatter_class=fmt)
    d = t.add_argument_group("design")
    d.add_argument("--test", choices=DESIGNS, default="paired-t", help="design (default paired-t)")
    d.add_argument("--alpha", type=number("--alpha", float, 0, 1, strict=True), default=0.05,
                   help="significance level (default 0.05)")
    d.add_argument("--beta", dest="power_beta", type=number("--beta", float, 0, 1, strict=True), default=0.2,
                   help="type II error rate, 1 - power (default 0.2)")
    d.add_argument("--min-diff", type=number("--min-diff", float, 0, 1e6, strict=True), required=True, metavar="D",
                   help="minimum detectable difference (t designs), range (anova) or CI width (ci designs)")
    d.add_argument("--variance", type=number("--variance", float, 0, 1e6, strict=True), metavar="V",
                   help="variance: of a per-topic difference (paired-t, ci) or within systems (anova, "
                        "unpaired-t, unpaired-ci); default: estimated from the data's --metric")
    d.add_argument("--variance-estimator", choices=ESTIMATORS,
                   help="two-way (default of paired-t, ci and anova; Sakai 2016): V_E = sum (x_ij - x_i. - x_.j "
                        "+ x..)^2 / ((m-1)(n-1)), the residual of the two-way ANOVA without replication (runs x "
                        "topics); one-way (default of unpaired-t and unpaired-ci; Sakai 2018): sigma^2 = sum "
                        "(x_ij - x_i.)^2 / (m(n-1)), the one-way ANOVA residual (runs as groups). Either fits "
                        "every design; paired-t and ci take twice it")
    d.add_argument("--systems", dest="m_systems", type=number("--systems", int, 2, 100_000), metavar="M",
                   help="m systems of the anova design (default: the number of loaded runs)")
    d.add_argument("--metric", metavar="KEY", help="metric whose scores estimate the variance (e.g. AP)")
    d.add_argument("--scores", metavar="CSV", help="per-topic scores CSV/TSV (run, topic, metric, value) "
                   "instead of a collection")
    d.add_argument("--metric-beta", dest="beta", type=number("--metric-beta", float, *FIELDS["beta"].bounds),
                   default=1.0,
                   help="beta of the blended ratio (Q-measure, P+, ...; default 1)")
    d.add_argument("--sim-systems", dest="systems", type=number("--sim-systems", int, 1, SIM_MAX_SYSTEMS), default=30,
                   metavar="N",
                   help="runs of --simulated (default 30)")
    d.add_argument("--output", choices=("json", "tsv"), default="json")
    add_standardise_options(d)
    t.set_defaults(func=run_topics)


# -- pairs -------------------------------------------------------------------------------
def run_pairs(args) -> int:
    """``pairs``: one record per (metric, run_x, run_y)."""

    alpha = args.alpha[0]
    confidence = 1 - alpha if args.confidence is None else args.confidence
    if not 0 < confidence < 1:
        raise ValueError(f"--confidence must lie in (0, 1); got {confidence}")
    name, runs, n_topics, scores = load_scores(args)
    r = pair_statistics(scores, run_ids=runs, confidence=confidence, tests=pairs_tests(args), B=args.B,
                        seed=args.seed, threads=args.threads,
                        progress=progress_printer(args, getattr(args, "workloads", [])))
    st = {**common_settings(args), "test": args.test, "correction": args.correction, "ci": args.ci,
          "confidence": confidence, **standardise_settings(args), "effect_size_runs": r.v_e_runs,
          "effect_size_variance": f"V_E of the two-way ANOVA over the {r.v_e_runs} runs compared (after --top) "
                                  "and the topics every one of them scored; it changes with the run set",
          "ties": TIE_RULE, "tie_tolerance": {m: float(v) for m, v in r.tie_tolerance.items()}}
    if args.test not in ("randomisation", "bootstrap") and args.ci != "bootstrap":
        st.update(B=None, seed=None)
    if args.test == "randomisation":
        st.update(n_flips=r.n_flips, exact_randomisation=r.exact_randomisation)
    return emit(args, "pairs", name, runs, n_topics, list(scores), st,
                 {"pairs": r.table(args.test, args.correction, alpha, ci=args.ci),
                  "summary": r.power(args.test, args.correction, tuple(args.alpha)),
                  "curves": r.curves(args.test, args.correction)})


# -- topics ------------------------------------------------------------------------------
def _topics_data(args):
    """(name, runs, n_topics, matrix of --metric, metric settings) from --scores or the data options;
    None if no data is given."""
    has_data = bool(args.scores or args.qrels or args.simulated or args.paper_examples)
    if not has_data:
        return None
    if args.metric is None:
        raise ValueError("--metric KEY is needed to estimate the variance from data (or give --variance V)")
    if args.scores:
        from ..meta.scores import read_score_csv

        runs, topics, scores = read_score_csv(args.scores)
        if args.metric not in scores:
            raise ValueError(f"--metric {args.metric} is not in {args.scores} (it has: {', '.join(scores)})")
        return args.scores, runs, len(topics), scores[args.metric], None

    from ..registry import policy_matrices
    from .options import load_from_args, metric_params, policy_of

    c = load_from_args(args)
    params = metric_params(args)
    # over the topics the name implies (map: trec_eval -c's, AP: NTCIREVAL's), as evaluate averages it
    mats, sets = policy_matrices(c, [args.metric], topics=policy_of(args), **params)
    if len(mats) != 1:
        raise ValueError(f"--metric {args.metric} names {len(mats)} measures ({', '.join(mats)}); give one, "
                         f"e.g. {next(iter(mats))}")
    M = next(iter(mats.values()))
    params.pop("cutoffs", None)
    settings = {k: (list(v) if isinstance(v, (tuple, np.ndarray)) else v) for k, v in params.items()}
    settings["topic_set"] = next(iter(sets.values()))
    return c.name, list(c.run_ids), M.shape[1], M, settings


def run_topics(args) -> int:
    """``topics``: the topic set size, with the inputs echoed."""
    data = _topics_data(args)
    if args.variance is not None and data is not None:
        raise ValueError("give either --variance V or data (--qrels/--scores/--simulated with --metric), not both")
    if args.variance is None and data is None:
        raise ValueError("no variance: give --variance V, or data (--qrels Q --runs R, --scores CSV or "
                         "--simulated) with --metric KEY to estimate it")
    if args.variance is not None and args.variance_estimator is not None:
        raise ValueError(f"--variance-estimator {args.variance_estimator} estimates the variance from data; with "
                         "--variance V there is nothing to estimate: give one of them")
    doc: dict = {"command": "topics"}
    m = args.m_systems
    v_e = sigma2 = None
    est = {"variance_estimator": "given", "variance_estimator_name": None, "variance_estimator_default": None,
           "variance_definition": None, "variance_runs": None, "variance_topics": None}
    sizes: dict = {}
    if data is not None:
        name, runs, n_coll, M, metric_settings = data
        M = apply_standardise(args, {args.metric: M})[args.metric]
        dv = design_variance(M, args.test, args.variance_estimator)    # None: the design's default
        v_e, sigma2 = residual_variance(M), within_system_variance(M)
        variance, source = dv["variance"], f"{dv['label']} of {args.metric}"
        est = {"variance_estimator": dv["estimator"], "variance_estimator_name": dv["name"],
               "variance_estimator_default": dv["default"], "variance_definition": dv["definition"],
               "variance_runs": dv["runs"], "variance_topics": dv["topics"]}
        if m is None and args.test == "anova":
            m = len(runs)
        sizes = estimator_sizes(M, args.test, alpha=args.alpha, beta=args.power_beta, min_diff=args.min_diff,
                                systems=m)
    else:
        name, runs, n_coll, metric_settings = None, None, None, None
        variance, source = args.variance, "given"
    r = topic_set_size(args.test, alpha=args.alpha, beta=args.power_beta, min_diff=args.min_diff,
                       variance=variance, systems=m)
    doc.update(r)
    doc.update({**est, "variance_source": source, "sigma2": _finite(sigma2), "v_e": _finite(v_e),
                **{f"n_topics_{e.replace('-', '_')}": sizes.get(e, {}).get("n_topics") for e in ESTIMATORS},
                "metric": args.metric if data is not None else None, "collection": name,
                "metric_settings": metric_settings, **standardise_settings(args)})
    if n_coll is not None and n_coll >= 2:
        doc["collection_n_topics"] = n_coll
        doc["collection_min_diff"] = min_detectable_difference(args.test, n_coll, alpha=args.alpha,
                                                               beta=args.power_beta, variance=variance, systems=m)
        doc["collection_power"] = float(power(args.test, n_coll, alpha=args.alpha, min_diff=args.min_diff,
                                              variance=variance, systems=m))
    out = sys.stdout
    if args.output == "json":
        json.dump(doc, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        keys = list(doc)
        out.write("\t".join(keys) + "\n")
        out.write("\t".join(_cell(doc[k]) for k in keys) + "\n")
    return 0


def _finite(v):
    return None if v is None or not math.isfinite(v) else float(v)


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "-" if math.isnan(v) else format(v, ".12g")
    return str(v)

