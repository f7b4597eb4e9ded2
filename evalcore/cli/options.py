"""Options every subcommand shares (where the data is, how to score it) and their resolution.

Precedence of a metric setting: an option given on the command line, then the
``--settings`` file (read by :func:`evalcore.settings.read_settings`, the
reader the dashboard uses too), then :data:`evalcore.settings.DEFAULTS`.
Options therefore default to ``None`` here, so "given" can be told from
"left at its default".
"""
from __future__ import annotations

import argparse

from ..collection import Collection
from ..gains import GAIN_PRESETS, parse_ascending
from ..names import CONVENTIONS
from ..settings import DEFAULTS, read_settings

__all__ = ["data_options_parser", "load_from_args", "limits_from_args", "metric_params", "EPILOG_LEVELS"]

EPILOG_LEVELS = (
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
    d.add_argument("--qrels-format", choices=("auto", "trec", "ntcir", "rel"), default="auto",
                   help="qrels format (default auto: sniffed from the first line / the .rel extension)")
    d.add_argument("--run-format", choices=("auto", "trec", "ntcir", "jsonl"), default="auto",
                   help="run format (default auto: .res files = NTCIR, .jsonl or a first '{' = JSON lines, "
                        "else TREC)")
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
    m.add_argument("--beta", type=float, help="beta of the blended ratio (default 1)")
    m.add_argument("--penalties", metavar="P1:P2:..", help="NWRR/WRR penalty of each level, ASCENDING "
                   "(default K-L+2, i.e. 4:3:2 = S:A:B 2:3:4); all > 1")
    m.add_argument("--cutoffs", metavar="L1,L2",
                   help="cutoffs for nDCG@l, P@l, ... when no @l is given (default 10,1000)")
    m.add_argument("--rel-threshold", type=int, metavar="L",
                   help="binary metrics count level >= L as relevant (1 = relaxed, default; 2 = rigid)")
    m.add_argument("--log-base", type=float, help="b of the Jarvelin-Kekalainen discount (default 2)")
    m.add_argument("--mean", choices=("arithmetic", "geometric"),
                   help="mean over topics (geometric: exp mean log max(x, 1e-5))")
    m.add_argument("--names", choices=CONVENTIONS, help="read metric names in this convention (ir_measures: "
                   "nDCG@10 is the Burges nDCG, evalcore's MSnDCG@10); default: evalcore's keys plus every "
                   "unambiguous peer name (map, P_10, ndcg_cut.10, P-plus, ...), warning on a bare nDCG@k")
    m.add_argument("--settings", metavar="JSON", help="a settings file saved by the app's Report page or by "
                   "--save-settings; explicit options override it")
    m.add_argument("--save-settings", metavar="JSON", help="write the settings used (after --settings and the "
                   "options) to this file, for --settings or the app's Report page")
    return p


def load_from_args(args) -> Collection:
    """The collection the data options name."""
    from .. import io, simulate

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
                               fmt=args.run_format, qrels_fmt=args.qrels_format,
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

    from ..io.limits import DEFAULT_LIMITS, parse_size

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


def file_settings(args) -> dict:
    """The validated ``--settings`` file ({} without one); read once per run."""
    if getattr(args, "_file_settings", None) is None:
        path = getattr(args, "settings", None)
        args._file_settings = read_settings(path) if path else {}
    return args._file_settings


def _cutoffs(text: str) -> list[int]:
    try:
        cutoffs = [int(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--cutoffs must be whole numbers separated by commas; got {text!r}") from None
    if not cutoffs or min(cutoffs) < 1:
        raise ValueError(f"--cutoffs must be whole numbers >= 1; got {text!r}")
    return cutoffs


def metric_params(args) -> dict:
    """Keyword arguments for ``evalcore.score_matrices`` / ``evaluate``: option > settings file > default."""
    st = file_settings(args)

    def pick(option, key):
        if option is not None:
            return option
        return DEFAULTS[key] if st.get(key) is None else st[key]

    gains = st.get("gains")
    if args.gain_preset:
        gains = args.gain_preset
    if args.gains:
        gains = parse_ascending(args.gains, "--gains")
    penalties = st.get("penalties")
    if args.penalties:
        penalties = parse_ascending(args.penalties, "--penalties")
    cutoffs = _cutoffs(args.cutoffs) if args.cutoffs is not None else pick(None, "cutoffs")
    return dict(gains=gains, beta=float(pick(args.beta, "beta")), penalties=penalties, cutoffs=list(cutoffs),
                rel_threshold=int(pick(args.rel_threshold, "rel_threshold")),
                log_base=float(pick(args.log_base, "log_base")), names=pick(args.names, "names"))


def mean_of(args) -> str:
    """``--mean``, else the settings file's, else arithmetic."""
    return args.mean or file_settings(args).get("mean") or DEFAULTS["mean"]


def metrics_of(args) -> list[str] | None:
    """``--metrics``, else the settings file's, else None (every metric / the subcommand's default)."""
    return args.metrics if args.metrics is not None else file_settings(args).get("metrics")
