"""``evalcore evaluate``: score every run on every topic; tsv, csv, json (and, later, more) outputs."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .. import registry
from .._atomic import OutputError, check_writable_dir, write_text
from ..settings import dump_settings
from .options import (
    EPILOG_LEVELS,
    SEED_MAX,
    file_settings,
    load_from_args,
    mean_of,
    metric_params,
    metrics_of,
    number,
)

OUTPUTS = ("tsv", "csv", "json", "jsonl", "trec_eval")


def register(sub, data: argparse.ArgumentParser) -> None:
    ev = sub.add_parser(
        "evaluate", parents=[data], help="score every run on every topic",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Score runs. Output (tsv): a header run<TAB>topic<TAB>metric<TAB>value, one line per "
                    "(run, topic, metric) with --per-topic, and lines with topic 'all' holding the means "
                    "(12 significant digits).\n\nMetric keys: " + ", ".join(registry.METRIC_KEYS) +
                    " (cutoff metrics: nDCG@10, P@5, ...; Q-measure@1000 etc. also take a cutoff), with "
                    "parameters such as AP(rel=2) or Q-measure(beta=2)@100, and the ir_measures / trec_eval / "
                    "NTCIREVAL names 'evalcore metrics' lists (map, P_10, ndcg_cut.10, P-plus, ...).",
        epilog=EPILOG_LEVELS)
    ev.add_argument("--seed", dest="seed_data", type=number("--seed", int, 0, SEED_MAX), default=0, metavar="N",
                    help="seed of --simulated (same as --seed-data; default 0)")
    ev.add_argument("--metrics", nargs="+", metavar="KEY", help="metric names (default: every evalcore key; see 'evalcore metrics')")
    ev.add_argument("--per-topic", action="store_true", help="also print per-topic values")
    ev.add_argument("--output", choices=OUTPUTS, default="tsv",
                    help="tsv (default), csv, json (one object with the settings), jsonl (one {run, topic, "
                         "metric, value} object per line), trec_eval (trec_eval -q's layout: "
                         "measure<TAB>topic<TAB>value; per run the per-topic lines, then 'runid all NAME' and the means)")
    ev.add_argument("--report", action="store_true", help="print the load summary to stderr")
    ev.set_defaults(func=run_evaluate)


def _fmt(v: float) -> str:
    return format(float(v), ".12g")


def _json_value(v):
    v = float(v)
    return v if v == v and abs(v) != float("inf") else None


def write_trec_eval(df, out) -> None:
    """trec_eval -q's layout, run after run: every topic's measures (topics in the collection's order),
    then ``runid<TAB>all<TAB>NAME`` and the means with topic ``all``. The measure is padded to 22
    characters as trec_eval prints it; values keep 12 significant digits (trec_eval prints 4 decimals)."""
    for run, part in df.groupby("run", sort=False):
        per = part[part["topic"] != "all"]
        for _, tpart in per.groupby("topic", sort=False):
            for _, t, m, v in tpart.itertuples(index=False, name=None):
                out.write(f"{m:<22}\t{t}\t{_fmt(v)}\n")
        out.write(f"{'runid':<22}\tall\t{run}\n")
        for _, t, m, v in part[part["topic"] == "all"].itertuples(index=False, name=None):
            out.write(f"{m:<22}\tall\t{_fmt(v)}\n")


def settings_used(args, params: dict, metrics) -> dict:
    """Everything that shaped the scores, in the settings-file form (:mod:`evalcore.settings`)."""
    out = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in params.items()}
    out["mean"] = mean_of(args)
    out["metrics"] = list(metrics) if metrics is not None else None
    return out


def settings_target(args) -> Path | None:
    """The ``--save-settings`` file, checked before anything is computed: its directory exists and is
    writable and the name is not a directory (:class:`evalcore._atomic.OutputError` naming it)."""
    path = getattr(args, "save_settings", None)
    if not path:
        return None
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{p}: is a directory; --save-settings needs a file name, e.g. {p / 'settings.json'}")
    check_writable_dir(p.parent)
    return p


def save_settings(target: Path | None, args, params: dict, metrics) -> None:
    """Write the settings used to ``target`` atomically (a temporary file beside it, renamed into place:
    an earlier file is either kept whole or replaced whole)."""
    if target is not None:
        write_text(target, dump_settings({k: v for k, v in settings_used(args, params, metrics).items()
                                          if v is not None}))


def run_evaluate(args) -> int:
    target = settings_target(args)  # a bad output path fails before the data is read
    file_settings(args)             # and so does a bad settings file
    c = load_from_args(args)
    params = metric_params(args)
    metrics = metrics_of(args)
    mean = mean_of(args)
    df = registry.evaluate(c, metrics, per_topic=args.per_topic, mean=mean, **params)
    save_settings(target, args, params, metrics)
    out = sys.stdout
    if args.output == "json":
        settings = settings_used(args, params, metrics)
        settings["metrics"] = list(dict.fromkeys(df["metric"]))
        json.dump({"collection": c.name, "runs": list(c.run_ids), "topics": list(c.topic_ids),
                   "settings": settings, "results": df.to_dict(orient="records")}, out, indent=1)
        out.write("\n")
    elif args.output == "jsonl":
        for r, t, m, v in df.itertuples(index=False, name=None):
            out.write(json.dumps({"run": r, "topic": t, "metric": m, "value": _json_value(v)}) + "\n")
    elif args.output == "trec_eval":
        write_trec_eval(df, out)
    else:
        sep = "\t" if args.output == "tsv" else ","
        out.write(sep.join(["run", "topic", "metric", "value"]) + "\n")
        for r, t, m, v in df.itertuples(index=False, name=None):
            out.write(f"{r}{sep}{t}{sep}{m}{sep}{_fmt(v)}\n")
    if args.report:
        print(c.report.summary(c), file=sys.stderr)
    return 0
