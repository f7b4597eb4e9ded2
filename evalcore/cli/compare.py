"""``evalcore compare``: the runs x metrics table of a paper (:func:`evalcore.compare`).

    evalcore compare --qrels q.txt --runs runs/ -m map -m nDCG@10 --baseline BM25 --format latex --out t.tex

Data, metric settings and the topic policy (``--topics trec_eval|ntcireval``) are read exactly as by
``evaluate``; the output is Markdown (default), CSV, TSV or LaTeX, printed or written atomically to
``--out`` (the path is checked before anything is computed).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._atomic import check_output_file
from ..comparison import CORRECTIONS, FORMATS, TESTS, compare
from .evaluate import add_topics_option
from .options import (
    MAX_B,
    SEED_MAX,
    add_metrics_option,
    data_options_parser,
    file_settings,
    load_from_args,
    metric_params,
    number,
    policy_of,
)

__all__ = ["register", "run_compare"]

HELP = "one results table for a paper: runs x metrics, p-values and significance marks vs a baseline or all pairs"


def register(sub, data: argparse.ArgumentParser) -> None:
    # a private copy of the data options: 'resolve' below replaces --topics by removing the shared action
    # from its parser, which would take it from every later subcommand (as ``topics`` does in .stats)
    data = data_options_parser()
    p = sub.add_parser(
        "compare", parents=[data], conflict_handler="resolve", help=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Means of every run on every metric with a paired test per run pair.\n\n"
                    "With --baseline NAME (PyTerrier's pt.Experiment(..., baseline=...)): per metric the "
                    "adjusted p-value of each run against the baseline, the topics it wins / loses (+/-) and "
                    "a mark for a significant gain or loss. Without it (ranx's compare): every run gets a "
                    "letter and each cell the letters of the runs it is significantly better than. The "
                    "correction runs over the comparisons of one metric. Every output states the test, the "
                    "correction, alpha, the number of topics and the topic policy.")
    g = p.add_argument_group("compare")
    add_metrics_option(g, "one column each")
    g.add_argument("--baseline", metavar="RUN", help="the run every other run is tested against (its name, "
                   "as in the run file's tag or the file name); default: every pair, ranx-style letters")
    g.add_argument("--test", choices=TESTS, default="t", help="paired test (default t)")
    g.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="p-value correction over the comparisons of one metric (default holm)")
    g.add_argument("--alpha", type=number("--alpha", float, 0, 1, strict=True), default=0.05,
                   help="significance level of the adjusted p-values (default 0.05)")
    g.add_argument("--B", type=number("--B", int, 1, MAX_B), default=1000, metavar="N",
                   help="samples / sign flips of the randomisation and bootstrap tests (default 1000)")
    g.add_argument("--seed", type=number("--seed", int, 0, SEED_MAX), default=0, metavar="N",
                   help="seed of the resampled tests (default 0)")
    g.add_argument("--digits", type=number("--digits", int, 0, 12), default=4, metavar="N",
                   help="decimals of the means in md/latex (default 4)")
    g.add_argument("--details", action="store_true",
                   help="add effect size and CI (baseline mode; csv/tsv always carry them)")
    g.add_argument("--full", action="store_true",
                   help="latex: the adjusted p and +/- columns under each metric (default: compact, one column "
                        "per metric, significance as superscripts)")
    g.add_argument("--label", dest="labels", action="append", metavar="KEY=TEXT", default=[],
                   help="the label of a metric in every format: md/latex column, legend, CSV 'metric_label' "
                        "column (repeat: --label map=MAP); default: evalcore's label of the name (ndcg_cut_10 -> "
                        "MSnDCG@10, P_10 -> P@10), ir_measures' own name under --names ir_measures, and a name two "
                        "conventions read differently with its variant: nDCG@10 (JK), nDCG@10 (trec_eval)")
    g.add_argument("--format", choices=FORMATS, default="md", help="md (default), csv, tsv or latex (booktabs)")
    g.add_argument("--out", metavar="FILE", help="write to FILE (atomically) instead of printing")
    add_topics_option(p, data)
    p.set_defaults(func=run_compare, topic_policy=None)


def _target(path: str | None) -> Path | None:
    return check_output_file(path, "--out", "table.tex")


def run_compare(args) -> int:
    target = _target(args.out)     # a bad output path fails before the data is read
    file_settings(args)
    metrics = args.metrics or file_settings(args).get("metrics")
    if not metrics:
        raise ValueError("name the metric columns: -m KEY (repeatable), e.g. -m map -m nDCG@10 "
                         "('evalcore metrics' lists every name)")
    from .meta import check_simulated, check_workload

    check_simulated(args, len(metrics))     # sized from the options before the collection is built
    c = load_from_args(args)
    check_workload(args, c.n_runs, c.n_topics, len(metrics))
    params = metric_params(args)
    r = compare(c, metrics, baseline=args.baseline, test=args.test, correction=args.correction, alpha=args.alpha,
                topics=policy_of(args), B=args.B, seed=args.seed, **params)
    labels = {}
    for item in args.labels:
        key, eq, text = item.partition("=")
        if not eq or not key or not text:
            raise ValueError(f"--label takes KEY=TEXT (e.g. --label ndcg_cut_10=nDCG@10); got {item!r}")
        labels[key] = text
    opts: dict = {"labels": labels} if args.format in ("csv", "tsv") else {"digits": args.digits,
                                                                           "details": args.details, "labels": labels}
    if args.format == "latex":
        opts["compact"] = not (args.full or args.details)
    text = r.write(args.format, target, **opts)
    if target is None:
        sys.stdout.write(text)
    else:
        print(f"wrote {target} ({len(r.runs)} runs x {len(r.metrics)} metrics; {r.topics_statement()})",
              file=sys.stderr)
    return 0
