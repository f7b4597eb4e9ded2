"""``evalcore metrics``: every measure, its definition and its names in ir_measures, trec_eval, NTCIREVAL, ranx.

The table comes from the registry (:func:`evalcore.registry.crosswalk`); the
crosswalk in docs/metrics.md is this command's ``--format markdown`` output (written by
``python docs/make_api.py``), and a test keeps the two equal.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..registry import crosswalk

FORMATS = ("text", "markdown", "tsv", "json")
_HEAD = {"key": "evalcore", "parameters": "parameters (default)", "definition": "definition",
         "ir_measures": "ir_measures", "trec_eval": "trec_eval",
         "ntcireval": "NTCIREVAL", "ranx": "ranx"}
NOTE = ("A peer name means the peer's definition (gain = level, level >= 1 relevant unless the name says rel=). "
        "Bare nDCG@k is evalcore's original nDCG (a warning says so); irm:nDCG@10 / --names ir_measures gives "
        "ir_measures' (MSnDCG@10). Refused with the reason: trec_eval map_cut_k and ir_measures AP@k (divide "
        "by R, evalcore's AP@k by min(R, k)), ranx map@k (likewise), ir_measures ERR@k (not normalised), "
        "ir_measures RBP@k (raw labels, not 0/1), ranx ndcg_burges (gains 2^rel - 1), whole-list ndcg. ranx's "
        "ndcg@k is MSnDCG@k (a warning says so). Names are matched in any letter case where no exact match "
        "exists (NDCG@10 is nDCG@10, MRR is ranx's mrr).")


def register(sub, data: argparse.ArgumentParser) -> None:
    m = sub.add_parser("metrics", help="list every measure and its names in ir_measures, trec_eval, NTCIREVAL",
                       description="The crosswalk of metric names (from the registry). " + NOTE)
    m.add_argument("--format", choices=FORMATS, default="text", help="text (default), markdown (the table "
                   "in docs/metrics.md), tsv or json")
    m.set_defaults(func=run_metrics)


def markdown() -> str:
    """The crosswalk table of docs/metrics.md."""
    df = crosswalk()
    lines = ["| " + " | ".join(_HEAD[c] for c in df.columns) + " |", "|" + "---|" * len(df.columns)]
    for row in df.itertuples(index=False):
        cells = [f"`{v}`" if v and c != "definition" else v for c, v in zip(df.columns, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def run_metrics(args) -> int:
    df = crosswalk()
    out = sys.stdout
    if args.format == "markdown":
        out.write(markdown())
    elif args.format == "json":
        json.dump(df.to_dict(orient="records"), out, indent=1)
        out.write("\n")
    elif args.format == "tsv":
        out.write("\t".join(_HEAD[c] for c in df.columns) + "\n")
        for row in df.itertuples(index=False):
            out.write("\t".join(row) + "\n")
    else:
        cols = [c for c in df.columns if c != "definition"]
        width = {c: max(len(_HEAD[c]), *(len(v) for v in df[c])) for c in cols}
        out.write("  ".join(_HEAD[c].ljust(width[c]) for c in cols) + "  definition\n")
        for rec in df.to_dict(orient="records"):
            out.write("  ".join((rec[c] or "-").ljust(width[c]) for c in cols) + "  " + rec["definition"] + "\n")
        out.write("\n" + NOTE + "\n")
    return 0
