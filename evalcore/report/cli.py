"""``python -m evalcore report``: 003's experiment on any collection, written as Markdown + CSV + LaTeX.

Registered by :func:`evalcore.cli.meta.register` (one call); the
logic lives in :mod:`evalcore.report.experiment`.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

__all__ = ["add_report_subcommand", "run_report", "collection_name"]

_DESC = """\
Run Sakai 2007 (003) Sec. 5 on a collection: Kendall's tau between the seven
metrics (Table 2), the swap method (Table 3), the Bootstrap Sensitivity
Method (Table 4), other gain settings (Tables 5, 6) and the randomised Tukey
HSD, then compare with 003's findings. Writes OUT/report.md and each table
as OUT/<table>.csv (numbers) and OUT/<table>.tex (booktabs).

Works on any collection with >= 2 runs and >= 2 topics and 1..K relevance
levels: the papers' S:A:B settings are mapped onto the collection's levels
(evalcore.gains.map_levels) and every label shows the values used. Swap,
bootstrap and Tukey run --repeats times with seeds derived from --seed;
every Monte Carlo figure is reported as mean +- sd [min-max] and every order
claim with the share of repetitions in which it held.
"""


def add_report_subcommand(subparsers, data_parent: argparse.ArgumentParser) -> None:
    r = subparsers.add_parser("report", parents=[data_parent], help="003's whole experiment on a collection: "
                              "Markdown report + tables as CSV and LaTeX", description=_DESC,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    g = r.add_argument_group("report")
    g.add_argument("--out", required=True, metavar="DIR", help="directory for report.md and the tables")
    g.add_argument("--markdown", metavar="FILE", help="write the Markdown report here instead of DIR/report.md")
    g.add_argument("--name", help="the collection's name in the text and captions (default: the folder holding "
                                  "the qrels, e.g. clef2015)")
    g.add_argument("--top", type=int, default=30, metavar="N", help="keep the N best runs (default 30, as 003)")
    g.add_argument("--top-by", default="AP", metavar="KEY", help="metric that ranks the runs for --top (default "
                   "AP at relevance threshold 1, i.e. 003's relaxed AP)")
    g.add_argument("--B", type=int, default=1000, metavar="N", help="swap trials and bootstrap samples "
                   "(default 1000, as 003)")
    g.add_argument("--tukey-B", type=int, default=5000, metavar="N", help="Tukey permutations (default 5000)")
    g.add_argument("--repeats", type=int, default=5, metavar="N",
                   help="Monte Carlo repetitions with derived seeds (default 5)")
    g.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the first repetition (default 0)")
    g.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    r.set_defaults(func=run_report)


def collection_name(args, c) -> str:
    """``--name``, else the folder holding the qrels file (``.../clef2015/qrels.txt`` -> clef2015), else the
    collection's own name."""
    if getattr(args, "name", None):
        return str(args.name)
    if getattr(args, "simulated", False):
        return f"a simulated collection (seed {args.seed_data}, {c.n_topics} topics, {c.n_runs} runs)"
    if getattr(args, "paper_examples", False):
        return "003's worked examples"
    q = getattr(args, "qrels", None)
    if q:
        p = Path(q)
        if p.is_file() and p.parent.name:
            return p.resolve().parent.name
        return p.stem or str(c.name)
    return str(c.name)


def run_report(args) -> int:
    from evalcore.cli import load_from_args, metric_params

    from .experiment import run_experiment, write_report

    for opt, v, lo in (("--B", args.B, 1), ("--tukey-B", args.tukey_B, 1), ("--repeats", args.repeats, 1),
                       ("--top", args.top, 2), ("--seed", args.seed, 0)):
        if v < lo:
            raise ValueError(f"{opt} must be >= {lo}; got {v}")
    say = (lambda m: None) if args.quiet else (lambda m: print(f"report: {m} ...", file=sys.stderr, flush=True))
    say("loading the collection")
    c = load_from_args(args)
    params = metric_params(args)
    name = collection_name(args, c)
    e = run_experiment(c, name=name, top=args.top, top_by=args.top_by, B=args.B, tukey_B=args.tukey_B,
                       repeats=args.repeats, seed=args.seed, gains=params["gains"], penalties=params["penalties"],
                       beta=params["beta"], progress=say)
    command = _command(args)
    files = write_report(e, args.out, markdown=args.markdown, command=command)
    say(f"wrote {len(files)} files: {files[-1]} and the tables in {args.out}")
    return 0


def _command(args) -> str:
    """The command line that reproduces this report (data, metric and report options that differ from the
    defaults), written into the Markdown."""
    parts = ["python", "-m", "evalcore", "report"]
    if args.simulated:
        parts += ["--simulated", "--topics", str(args.topics), "--systems", str(args.systems),
                  "--seed-data", str(args.seed_data)]
    for opt, v in (("--qrels", args.qrels), ("--runs", args.runs)):
        if v:
            parts += [opt, str(v)]
    if args.run:
        parts += ["--run", *map(str, args.run)]
    for opt, v, default in (("--name", args.name, None), ("--gains", args.gains, None),
                            ("--gain-preset", args.gain_preset, None), ("--penalties", args.penalties, None),
                            ("--beta", args.beta, 1.0), ("--depth", args.depth, None),
                            ("--top", args.top, 30), ("--top-by", args.top_by, "AP"), ("--B", args.B, 1000),
                            ("--tukey-B", args.tukey_B, 5000), ("--repeats", args.repeats, 5),
                            ("--seed", args.seed, 0)):
        if v is not None and v != default:
            parts += [opt, f"{v:g}" if isinstance(v, float) else str(v)]
    if args.condensed:
        parts.append("--condensed")
    parts += ["--out", str(args.out)]
    if args.markdown:
        parts += ["--markdown", str(args.markdown)]
    return " ".join(shlex.quote(p) for p in parts)
