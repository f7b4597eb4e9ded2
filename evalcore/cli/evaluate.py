"""``evalcore evaluate``: score every run on every topic; tsv, csv, json (and, later, more) outputs."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .. import legend, registry, writers
from .._atomic import check_output_file, write_text
from ..gains import level_label, resolve_gains, resolve_penalties
from ..settings import dump_settings
from .options import (
    EPILOG_LEVELS,
    SEED_MAX,
    add_metrics_option,
    data_options,
    file_settings,
    load_from_args,
    mean_of,
    metric_params,
    metrics_of,
    number,
    policy_of,
)

OUTPUTS = ("tsv", "csv", "json", "jsonl", "trec_eval")


def register(sub, data: argparse.ArgumentParser) -> None:
    ev = sub.add_parser(
        "evaluate", parents=[data], help="score every run on every topic", conflict_handler="resolve",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Score runs. Output (tsv): a header run<TAB>topic<TAB>metric<TAB>value<TAB>topics<TAB>"
                    "rel_threshold<TAB>order<TAB>depth<TAB>gains<TAB>mean<TAB>condensed, one line per (run, topic, "
                    "metric) with --per-topic, and lines with topic 'all' holding the means (12 significant "
                    "digits) and, in the topics column, the topics they ran over (trec_eval:66 = trec_eval's "
                    "policy, 66 topics; see --topics); each line states the gains its measure used (levels "
                    "highest first), its threshold, the ranking order, the depth and the mean.\n\nMetric keys: "
                    + ", ".join(registry.METRIC_KEYS) +
                    " (cutoff metrics: nDCG@10, P@5, ...; Q-measure@1000 etc. also take a cutoff), with "
                    "parameters such as AP(rel=2) or Q-measure(beta=2)@100, and the ir_measures / trec_eval / "
                    "NTCIREVAL names 'evalcore metrics' lists (map, P_10, ndcg_cut.10, P-plus, ...).",
        epilog=EPILOG_LEVELS)
    ev.add_argument("--seed", dest="seed_data", type=number("--seed", int, 0, SEED_MAX), default=0, metavar="N",
                    help="seed of --simulated (same as --seed-data; default 0)")
    add_metrics_option(ev, "default: every evalcore key")
    ev.add_argument("--per-topic", action="store_true", help="also print per-topic values")
    ev.add_argument("--output", choices=OUTPUTS, default="tsv",
                    help="tsv (default), csv, json (one object with the settings and a 'meta' object: gains, "
                         "thresholds, topics, means, order, depth), jsonl (one {run, topic, metric, value, ...} "
                         "object per line), trec_eval (trec_eval -q's layout: measure<TAB>topic<TAB>value; per run "
                         "the per-topic lines, then 'runid all NAME', num_q, relevance_level, topic_policy, "
                         "ranking_order, depth, condensed, gains, mean and the means; not the drop-in, which is "
                         "'evalcore trec_eval'). Every format states the gains, threshold, topics, ranking order, "
                         "depth and mean behind its numbers (docs/cli.md, 'Output')")
    ev.add_argument("--report", action="store_true", help="print the load summary to stderr")
    add_topics_option(ev, data)
    ev.set_defaults(func=run_evaluate, topic_policy=None)


class _TopicsAction(argparse.Action):
    """``--topics trec_eval|ntcireval`` (the topic policy) or ``--topics N`` (topics of --simulated)."""

    def __init__(self, *a, simulated_type=int, **kw):
        self.simulated_type = simulated_type
        super().__init__(*a, **kw)

    def __call__(self, parser, namespace, value, option_string=None):
        if value in registry.TOPIC_POLICIES:
            namespace.topic_policy = value
            return
        if not str(value).strip().lstrip("+-").isdigit():
            policies = ", ".join(registry.TOPIC_POLICIES)
            parser.error(f"argument --topics: {value!r} is neither a topic policy ({policies}) "
                         "nor a whole number of topics for --simulated")
        namespace.topics = self.simulated_type(value)   # a number out of range: its bounds' error


def add_topics_option(ev: argparse.ArgumentParser, data: argparse.ArgumentParser) -> None:
    """``--topics`` taking the topic policy too (``evaluate``, ``compare``); a number stays the topics of
    --simulated (the shared option's own type, default and help). The parser must be made with
    ``conflict_handler="resolve"``; the policy lands in ``args.topic_policy``."""
    shared = next(a for a in data._actions if "--topics" in a.option_strings)
    # (the subparser is made with conflict_handler="resolve", so this --topics replaces the shared one)
    ev.add_argument("--topics", dest="topics", default=shared.default, metavar="POLICY|N",
                    action=_TopicsAction, simulated_type=shared.type or int,
                    help="the topics each mean runs over: trec_eval (every qrels topic; one without a relevant "
                         "document scores 0, as in trec_eval, ir_measures, ranx, PyTerrier) or ntcireval (only "
                         "topics with a relevant document, NTCIREVAL's convention); default: trec_eval for "
                         "trec_eval / ir_measures names and for --output trec_eval, ntcireval otherwise. Every "
                         "output states the policy and the number of topics. A number N: " + str(shared.help))


def settings_used(args, params: dict, metrics, c=None) -> dict:
    """Everything that shaped the scores, in the settings-file form (:mod:`evalcore.settings`): the metric
    settings, the mean, the topic policy, the metrics and how the runs were read (:func:`data_options`:
    order, depth, condensed, duplicates, formats), so that ``--settings`` gives the same numbers. Given the
    collection ``c``, the gains and penalties are the values used on its levels (an ascending list, and
    ``gains_paper_notation`` highest level first), so the file means the same on any collection."""
    out = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in params.items()}
    if c is not None and c.max_level:
        g = resolve_gains(params.get("gains"), c.max_level)
        out["gains"], out["gains_paper_notation"] = g.tolist(), level_label(g)
        out["penalties"] = resolve_penalties(params.get("penalties"), c.max_level).tolist()
    out["mean"] = mean_of(args)
    out["topics"] = topics_of(args)
    out.update(data_options(args))
    out["metrics"] = list(metrics) if metrics is not None else None
    return out


def settings_target(args) -> Path | None:
    """The ``--save-settings`` file, checked before anything is computed: its directory exists and is
    writable and the name is not a directory (:class:`evalcore._atomic.OutputError` naming it)."""
    return check_output_file(getattr(args, "save_settings", None), "--save-settings", "settings.json")


def save_settings(target: Path | None, args, params: dict, metrics, c=None) -> None:
    """Write the settings used to ``target`` atomically (a temporary file beside it, renamed into place:
    an earlier file is either kept whole or replaced whole)."""
    if target is not None:
        write_text(target, dump_settings({k: v for k, v in settings_used(args, params, metrics, c).items()
                                          if v is not None}))


def topics_of(args) -> str | None:
    """The topic policy: ``--topics trec_eval|ntcireval``, else the ``--settings`` file's ``topics``; else
    trec_eval's for ``--output trec_eval`` (trec_eval's layout promises trec_eval's numbers); else None
    (per metric, by its name)."""
    policy = policy_of(args)
    if policy is None and args.output == "trec_eval":
        return "trec_eval"
    return policy


def run_evaluate(args) -> int:
    target = settings_target(args)  # a bad output path fails before the data is read
    file_settings(args)             # and so does a bad settings file
    c = load_from_args(args)
    params = metric_params(args)
    metrics = metrics_of(args)
    mean = mean_of(args)
    # the table as lists (registry.ScoreRows), not a DataFrame: the same rows, without importing pandas,
    # whose import is a large share of this command's time (docs/benchmarks.md section 14.3)
    # --per-topic: trec_eval -q's layout, each run's topics then its "all" rows
    df = registry.evaluate_rows(c, metrics, per_topic=args.per_topic, means=True, mean=mean, topics=topics_of(args),
                                **params)
    if df is None:
        df = registry.ScoreRows([], [], [], np.zeros(0), {})
    save_settings(target, args, params, metrics, c)
    out = sys.stdout
    if args.output == "json":
        settings = settings_used(args, params, metrics, c)
        settings["metrics"] = list(dict.fromkeys(df.metric))
        settings["topic_policy"] = df.attrs["topics"]
        settings["topic_policies"] = df.attrs.get("policies", {})
        settings["rel_threshold_used"] = df.attrs["rel_threshold"]
        a = df.attrs
        settings.update(gains_levels=a.get("gains"), penalties_levels=a.get("penalties"), order=a.get("order"),
                        order_text=a.get("order_text"), depth=a.get("depth"))
        json.dump({"collection": c.name, "runs": list(c.run_ids), "topics": list(c.topic_ids),
                   "topics_without_relevant": list(c.topics_without_relevant),
                   "settings": settings, "meta": legend.meta(df.attrs),
                   "results": [dict(zip(df.columns, row, strict=True)) for row in df.rows()]},
                  out, indent=1)
        out.write("\n")
    else:
        out.write(writers.write(df, args.output))
    if args.report:
        print(c.report.summary(c), file=sys.stderr)
    return 0
