"""Command line: ``python -m evalcore evaluate ...`` and the meta-evaluation subcommands.

Bad input never ends in a Python traceback: errors print one readable
message (file, line, what was wrong, what to do) and exit with status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from . import registry
from .collection import Collection
from .gains import GAIN_PRESETS, parse_ascending

__all__ = ["main", "build_parser", "data_options_parser", "load_from_args", "limits_from_args", "metric_params",
           "load_settings"]

_EPILOG_LEVELS = (
    "Level order: --gains and --penalties list levels in ASCENDING order L1:L2:...:LK, as "
    "NTCIREVAL's -g does (so NTCIR's S:A:B = 3:2:1 is --gains 1:2:3). The papers write S:A:B, highest "
    "first; for their presets use --gain-preset (" + ", ".join(GAIN_PRESETS) + ", written highest first)."
)


def data_options_parser() -> argparse.ArgumentParser:
    """The options every subcommand shares: where the data is and how to score it."""
    p = argparse.ArgumentParser(add_help=False)
    d = p.add_argument_group("data")
    d.add_argument("--qrels", metavar="FILE", help="qrels: TREC 'topic iter doc rel', NTCIR 'topic doc L2|S|A|B', "
                   "or a directory/zip of NTCIREVAL TOPIC.rel files")
    d.add_argument("--run", metavar="FILE", nargs="+", action="extend", default=[],
                   help="one or more run files (TREC 'topic Q0 doc rank score tag'; .gz ok)")
    d.add_argument("--runs", metavar="DIR|ZIP", help="a directory or .zip holding the run files")
    d.add_argument("--simulated", action="store_true", help="use the built-in simulated NTCIR-like collection")
    d.add_argument("--paper-examples", action="store_true", help="use the 003 worked examples (X, Y, Z, ...)")
    d.add_argument("--seed-data", type=int, default=0, metavar="N", help="seed of --simulated (default 0)")
    d.add_argument("--topics", type=int, default=50, metavar="N", help="topics of --simulated (default 50)")
    d.add_argument("--systems", type=int, default=30, metavar="N", help="runs of --simulated (default 30)")
    d.add_argument("--order", choices=("score", "rank", "file"), default="score",
                   help="ranking of a TREC run: score (default; score descending, ties by document id "
                        "descending, exactly as trec_eval), rank (the rank column), file (file order)")
    d.add_argument("--depth", type=int, metavar="N", help="evaluate only the top N documents of each list")
    d.add_argument("--condensed", action="store_true",
                   help="remove unjudged documents first (condensed lists, Sakai SIGIR 2007)")
    d.add_argument("--keep-first-duplicate", action="store_true",
                   help="if a run lists a document twice for a topic, keep the first (default: error)")
    lim = p.add_argument_group("limits (hostile or huge input is refused before memory is taken)")
    lim.add_argument("--max-expanded", metavar="SIZE",
                     help="most bytes a .gz file or .zip archive may expand to (default: min(4G, max(16M, 50 x "
                          "its compressed size)); a SIZE here replaces the 4G cap and lifts the 50 x ratio)")
    lim.add_argument("--max-memory", metavar="SIZE", help="most memory for the levels tensor, 2 bytes per "
                     "run x topic x rank (default 2G)")
    lim.add_argument("--max-runs", type=int, metavar="N", help="most runs (default 2000)")
    lim.add_argument("--max-topics", type=int, metavar="N", help="most evaluated topics (default 200000)")
    lim.add_argument("--max-depth", type=int, metavar="N", help="most documents per ranked list, after --depth "
                     "(default 100000)")
    m = p.add_argument_group("metric settings")
    m.add_argument("--gains", metavar="G1:G2:..", help="gain of each level, ASCENDING L1:L2:..:LK (default L, "
                   "i.e. 1:2:3 = the papers' S:A:B 3:2:1)")
    m.add_argument("--gain-preset", metavar="NAME", choices=list(GAIN_PRESETS),
                   help="a paper preset, highest level first: " + ", ".join(GAIN_PRESETS))
    m.add_argument("--beta", type=float, default=1.0, help="beta of the blended ratio (default 1)")
    m.add_argument("--penalties", metavar="P1:P2:..", help="NWRR/WRR penalty of each level, ASCENDING "
                   "(default K-L+2, i.e. 4:3:2 = S:A:B 2:3:4); all > 1")
    m.add_argument("--cutoffs", default="10,1000", metavar="L1,L2",
                   help="cutoffs for nDCG@l, P@l, ... when no @l is given (default 10,1000)")
    m.add_argument("--rel-threshold", type=int, default=1, metavar="L",
                   help="binary metrics count level >= L as relevant (1 = relaxed, default; 2 = rigid)")
    m.add_argument("--log-base", type=float, default=2.0, help="b of the Jarvelin-Kekalainen discount (default 2)")
    m.add_argument("--mean", choices=("arithmetic", "geometric"), default="arithmetic",
                   help="mean over topics (geometric: exp mean log max(x, 1e-5))")
    m.add_argument("--settings", metavar="JSON", help="a settings file saved by the app's Report page or by "
                   "--save-settings; explicit options override it")
    return p


def load_settings(path: str) -> dict:
    """Read a settings JSON (keys: gains, beta, penalties, cutoffs, rel_threshold, metrics, ...).

    ``gains``/``penalties`` are lists in ascending level order or strings in
    paper notation (highest first).
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read settings file {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}, line {e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a settings file holds a JSON object; got {type(data).__name__}")
    return data.get("settings", data)


def load_from_args(args) -> Collection:
    """The collection the data options name."""
    from . import io, simulate

    sources = sum(bool(x) for x in (args.simulated, args.paper_examples, args.qrels))
    if sources == 0:
        raise ValueError("no data: give --qrels FILE with --run FILE... or --runs DIR, or --simulated")
    if sources > 1:
        raise ValueError("give only one of --qrels, --simulated, --paper-examples")
    if args.simulated:
        c = simulate.simulated_collection(args.topics, args.systems, seed=args.seed_data)
    elif args.paper_examples:
        c = simulate.paper_examples()
    else:
        runs = list(args.run)
        if args.runs:
            runs.append(args.runs)
        if not runs:
            raise ValueError("--qrels needs runs: --run FILE [FILE ...] or --runs DIR|ZIP")
        # --depth truncates while loading (the tensor is never built deeper), except with --condensed,
        # which drops unjudged documents first and truncates after
        c = io.load_collection(args.qrels, runs if len(runs) > 1 or not args.runs else args.runs,
                               order=args.order, keep_first_duplicate=args.keep_first_duplicate,
                               depth=args.depth if args.depth and args.depth >= 1 and not args.condensed else None,
                               limits=limits_from_args(args))
    if args.condensed:
        c = c.condensed()
    if args.depth is not None:
        if args.depth < 1:
            raise ValueError(f"--depth must be >= 1; got {args.depth}")
        c = c.truncated(args.depth)
    return c


def limits_from_args(args):
    """``evalcore.io.Limits`` from --max-expanded/--max-memory/--max-runs/--max-topics/--max-depth."""
    from dataclasses import replace

    from .io.limits import DEFAULT_LIMITS, parse_size

    kw = {}
    if getattr(args, "max_expanded", None):
        n = parse_size(args.max_expanded, "--max-expanded")
        kw.update(max_expanded_bytes=n, expansion_floor=n, expansion_ratio=float(max(n, 1)))
    if getattr(args, "max_memory", None):
        kw["max_tensor_bytes"] = parse_size(args.max_memory, "--max-memory")
    for opt in ("runs", "topics", "depth"):
        v = getattr(args, f"max_{opt}", None)
        if v is not None:
            if v < 1:
                raise ValueError(f"--max-{opt} must be >= 1; got {v}")
            kw[f"max_{opt}"] = v
    return replace(DEFAULT_LIMITS, **kw)


def metric_params(args) -> dict:
    """Keyword arguments for ``evalcore.score_matrices`` / ``evaluate`` from the options."""
    st = load_settings(args.settings) if getattr(args, "settings", None) else {}
    gains = st.get("gains")
    if args.gain_preset:
        gains = args.gain_preset
    if args.gains:
        gains = parse_ascending(args.gains, "--gains")
    penalties = st.get("penalties")
    if args.penalties:
        penalties = parse_ascending(args.penalties, "--penalties")
    cutoffs = st.get("cutoffs")
    if cutoffs is None or args.cutoffs != "10,1000":
        try:
            cutoffs = [int(x) for x in str(args.cutoffs).split(",") if x.strip()]
        except ValueError:
            raise ValueError(f"--cutoffs must be whole numbers separated by commas; got {args.cutoffs!r}") from None
    if not cutoffs or min(cutoffs) < 1:
        raise ValueError(f"--cutoffs must be whole numbers >= 1; got {args.cutoffs!r}")
    beta = args.beta if args.beta != 1.0 else st.get("beta", 1.0)
    rel = args.rel_threshold if args.rel_threshold != 1 else st.get("rel_threshold", 1)
    return dict(gains=gains, beta=float(beta), penalties=penalties, cutoffs=list(cutoffs),
                rel_threshold=int(rel), log_base=float(args.log_base))


def _fmt(v: float) -> str:
    return format(float(v), ".12g")


def run_evaluate(args) -> int:
    c = load_from_args(args)
    params = metric_params(args)
    metrics = args.metrics
    if metrics is None and args.settings:
        metrics = load_settings(args.settings).get("metrics")
    df = registry.evaluate(c, metrics, per_topic=args.per_topic, mean=args.mean, **params)
    out = sys.stdout
    if args.output == "json":
        settings = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in params.items()}
        json.dump({"collection": c.name, "runs": list(c.run_ids), "topics": list(c.topic_ids),
                   "settings": {**settings, "mean": args.mean,
                                "metrics": list(dict.fromkeys(df["metric"]))},
                   "results": df.to_dict(orient="records")}, out, indent=1)
        out.write("\n")
    else:
        sep = "\t" if args.output == "tsv" else ","
        out.write(sep.join(["run", "topic", "metric", "value"]) + "\n")
        for r, t, m, v in df.itertuples(index=False, name=None):
            out.write(f"{r}{sep}{t}{sep}{m}{sep}{_fmt(v)}\n")
    if args.report:
        print(c.report.summary(c), file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    data = data_options_parser()
    parser = argparse.ArgumentParser(
        prog="python -m evalcore",
        description="Graded-relevance IR evaluation (Sakai's P/P+/O-measure, NWRR, Q-measure, nDCG, ...) "
                    "and the evaluation of the metrics themselves.",
        epilog=_EPILOG_LEVELS,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    ev = sub.add_parser(
        "evaluate", parents=[data], help="score every run on every topic",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Score runs. Output (tsv): a header run<TAB>topic<TAB>metric<TAB>value, one line per "
                    "(run, topic, metric) with --per-topic, and lines with topic 'all' holding the means "
                    "(12 significant digits).\n\nMetric keys: " + ", ".join(registry.METRIC_KEYS) +
                    " (cutoff metrics: nDCG@10, P@5, ...; Q-measure@1000 etc. also take a cutoff).",
        epilog=_EPILOG_LEVELS)
    ev.add_argument("--seed", dest="seed_data", type=int, default=0, metavar="N",
                    help="seed of --simulated (same as --seed-data; default 0)")
    ev.add_argument("--metrics", nargs="+", metavar="KEY", help="metric keys (default: all)")
    ev.add_argument("--per-topic", action="store_true", help="also print per-topic values")
    ev.add_argument("--output", choices=("tsv", "csv", "json"), default="tsv")
    ev.add_argument("--report", action="store_true", help="print the load summary to stderr")
    ev.set_defaults(func=run_evaluate)
    try:
        from .meta import cli as meta_cli
    except ImportError:  # pragma: no cover - meta not installed yet
        meta_cli = None
    if meta_cli is not None and hasattr(meta_cli, "add_subcommands"):
        meta_cli.add_subcommands(sub, data)
    return parser


def main(argv=None) -> int:
    from .io import InputError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
