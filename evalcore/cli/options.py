"""Options every subcommand shares (where the data is, how to score it) and their resolution.

Precedence of a metric setting: an option given on the command line, then the
``--settings`` file (read by :func:`evalcore.settings.read_settings`, the
reader the dashboard uses too), then :data:`evalcore.settings.DEFAULTS`.
Options therefore default to ``None`` here, so "given" can be told from
"left at its default".
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import Any

from ..collection import Collection
from ..gains import GAIN_PRESETS, inverted, parse_levels
from ..io.formats import RUN_FORMATS, formats_help
from ..names import CONVENTIONS
from ..settings import DEFAULTS, FIELDS, MAX_CUTOFF, MAX_GAIN, MAX_LIST, SEED_MAX, Field, read_settings
from ..specs import SETTING_PARAMS, Param, setting_help

__all__ = ["add_threads_option", "add_dask_options", "check_dask_options", "dask_options_given", "MAX_WORKERS",
           "data_options_parser", "field_option", "ListOption", "add_list_option", "add_metrics_option",
           "load_from_args", "limits_from_args", "metric_params", "add_setting_option", "setting_values", "number",
           "OptionError", "EPILOG_LEVELS",
           "MAX_B", "MAX_COUNT", "MAX_REPEATS", "MAX_TOPIC_RESAMPLES",
           "SEED_MAX", "SIM_DEPTH", "SIM_MAX_SYSTEMS", "SIM_MAX_TOPICS"]

# SEED_MAX (evalcore._seeds, read through evalcore.settings): the largest seed an option takes, the settings
# file's too; numpy's generators take any, and the seeds evalcore derives (repetitions, topic samples) stay
# within it.
#: Bounds of the simulated collection's options (its levels: --topics x --systems x SIM_DEPTH bytes, also
#: bounded by --max-memory).
SIM_MAX_TOPICS, SIM_MAX_SYSTEMS, SIM_DEPTH = 100_000, 10_000, 1000
#: Bound of the size options (--depth, --max-runs, --max-topics, --max-depth, --top, --subset-size).
MAX_COUNT = 10**9
#: Most trials / samples (--B) and repetitions (--repeats) of a meta-evaluation: the swap method holds
#: two (B, c) topic-index arrays (16 bytes per trial and topic), 1.6 GB at B = 10**6 and 100 topics.
MAX_B, MAX_REPEATS = 10**6, 1000
#: Most topic samples of the report's topic bootstrap (--topic-resamples): each runs swap, bootstrap and
#: Tukey with --topic-B trials.
MAX_TOPIC_RESAMPLES = 10_000
#: Longest numeral an option reads: Python refuses to convert integers of more than 4,300 digits, and
#: every bound here has far fewer, so a longer numeral is out of range whatever it says.
_MAX_DIGITS = 64


def add_threads_option(group) -> None:
    """``--threads N``: threads of the resampling methods (evalcore.meta), 1..MAX_THREADS; default the
    ``EVALCORE_THREADS`` environment variable, else every core for swap and tukey, at most 4 for bootstrap
    and stability and one thread for the others (evalcore.meta._parallel.default_threads). The tables do
    not depend on it."""
    from ..meta._parallel import MAX_THREADS, THREADS_ENV

    group.add_argument("--threads", type=number("--threads", int, 1, MAX_THREADS), default=None, metavar="N",
                       help=f"threads for the resampling (default: ${THREADS_ENV}, else every core for swap and "
                            f"tukey, at most 4 for bootstrap and stability, 1 for the others, fewer on small data; "
                            f"at most {MAX_THREADS:,}); the results are the same for any number")


#: Most local worker processes of ``--workers`` (each one a Python process holding its own copy of the
#: score matrices and topic counts).
MAX_WORKERS = 256
#: A Dask scheduler address: ``[protocol://]host:port`` (tcp://10.0.0.5:8786, tls://[::1]:8786, host:8786).
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):\d{1,5}$")


def add_dask_options(group, *, parquet: bool) -> None:
    """``--scheduler ADDRESS`` and ``--workers N`` (evalcore.meta.on_dask: the same tables as in memory), and
    ``--to-parquet DIR`` where the method has per-pair tables (``parquet``)."""
    group.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="run the resampling as Dask tasks on a running dask.distributed scheduler, e.g. "
                            "tcp://10.0.0.5:8786 (evalcore-ir[dask]); the results are the same as in memory")
    group.add_argument("--workers", type=number("--workers", int, 1, MAX_WORKERS), default=None, metavar="N",
                       help="run the resampling as Dask tasks on a local cluster of N single-threaded worker "
                            f"processes (evalcore-ir[dask]; at most {MAX_WORKERS}); the results are the same as in "
                            "memory")
    if parquet:
        group.add_argument("--to-parquet", default=None, metavar="DIR",
                           help="write the per-pair table as Parquet files partitioned by metric "
                                "(DIR/metric=NAME/part-*.parquet; a new or empty directory every worker can "
                                "reach) and print only the summary; runs on Dask (--scheduler, --workers, else "
                                "Dask's local threads)")


def dask_options_given(args) -> bool:
    """Whether ``args`` asks for the Dask path (``--scheduler``, ``--workers`` or ``--to-parquet``)."""
    return any(getattr(args, k, None) is not None for k in ("scheduler", "workers", "to_parquet"))


def check_dask_options(args, *, allow_threads: bool = False) -> None:
    """Before anything is loaded: the Dask options are consistent, their packages installed and the Parquet
    directory new or empty (ValueError naming the option otherwise). ``allow_threads``: ``--threads`` may
    come with them (``report``, whose other steps run in memory)."""
    if not dask_options_given(args):
        return
    given = [o for o, k in (("--scheduler", "scheduler"), ("--workers", "workers"), ("--to-parquet", "to_parquet"))
             if getattr(args, k, None) is not None]
    if args.scheduler is not None and args.workers is not None:
        raise ValueError("give --scheduler ADDRESS (a running Dask scheduler) or --workers N (a local cluster), "
                         "not both")
    if not allow_threads and getattr(args, "threads", None) is not None:
        raise ValueError(f"--threads sets the in-memory path's threads; with {given[0]} the Dask workers run the "
                         "tasks (--workers N for N local worker processes): leave --threads out")
    if args.scheduler is not None and not _ADDRESS.match(args.scheduler):
        raise ValueError(f"--scheduler must be a Dask scheduler address, [protocol://]host:port (e.g. "
                         f"tcp://10.0.0.5:8786); got {args.scheduler!r}")
    try:
        import dask  # noqa: F401
    except ImportError:
        raise ValueError(f'{given[0]} runs the resampling on Dask, which is not installed: pip install '
                         '"evalcore-ir[dask]"') from None
    if args.scheduler is not None or args.workers is not None:
        try:
            import distributed  # noqa: F401  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise ValueError(f'{"--scheduler" if args.scheduler is not None else "--workers"} needs '
                             'dask.distributed, which is not installed: pip install "evalcore-ir[dask]"') from None
    path = getattr(args, "to_parquet", None)
    if path is not None:
        if getattr(args, "repeats", 1) > 1:
            raise ValueError(f"--to-parquet writes one result's pairs; --repeats {args.repeats} would write "
                             f"{args.repeats}: run each seed on its own (--output json lists them in settings.seeds)")
        table = getattr(args, "table", None)
        if table in ("pairs", "curves"):
            raise ValueError(f"--table {table}: with --to-parquet the per-pair tables go to {path}; the summary "
                             "tables (summary, spread, repeats, claims) are printed")
        if os.path.exists(path) and (not os.path.isdir(path) or os.listdir(path)):
            raise ValueError(f"--to-parquet {path}: exists and is not an empty directory; give a new or empty one "
                             "(parts of an earlier result would be mixed into this one)")
        args.to_parquet = os.path.abspath(path)     # the workers write there, whatever their working directory


class OptionError(Exception):
    """A numeric option outside its range. Raised by :func:`number` while the options are parsed; not a
    ValueError, so that argparse lets it through and :func:`evalcore.cli.main` prints it as one line
    (``error: --B must be >= 1 and <= 1,000,000; got 1000000000``) and exits with status 2."""


def number(option: str, kind: type, lo: float, hi: float, *, strict: bool = False):
    """An argparse ``type``: a finite ``kind`` (int or float) in ``[lo, hi]`` (``(lo, hi)`` when ``strict``).

    Every numeric option is bounded, so that ``--beta 1e308`` or ``--B 1000000000`` is refused naming
    the option and its range before anything is computed or sized by it.
    """
    what = "a whole number" if kind is int else "a number"
    fmt = (lambda x: f"{x:,}") if kind is int else (lambda x: f"{x:g}")
    rng = f"> {fmt(lo)} and < {fmt(hi)}" if strict else f">= {fmt(lo)} and <= {fmt(hi)}"

    def parse(text: str):
        if len(str(text).strip()) > _MAX_DIGITS:
            raise OptionError(f"{option} must be {rng}; got a numeral of {len(str(text).strip()):,} characters")
        try:
            v = int(text) if kind is int else float(text)
        except ValueError:
            raise OptionError(f"{option} must be {what}; got {text!r}") from None
        if kind is float and not math.isfinite(v):
            raise OptionError(f"{option} must be a finite number {rng}; got {text!r}")
        if not (lo < v < hi if strict else lo <= v <= hi):
            raise OptionError(f"{option} must be {rng}; got {text}")
        return v

    parse.__name__ = what   # argparse's fallback message names the type
    parse.bounds = (kind, lo, hi, strict)   # type: ignore[attr-defined]  # read by numeric_options
    return parse


def field_option(option: str, f: Field):
    """The argparse ``type`` of a settings-file field (:data:`evalcore.settings.FIELDS`): the same kind
    and bounds as the file, so an option and the file accept the same values. A field whose lower
    bound is open (``log_base`` > 1) is checked strictly at both ends, as ``--log-base`` always was."""
    return number(option, int if f.kind == "int" else float, *f.bounds, strict=f.low_open)


class ListOption(argparse.Action):
    """The one way every multi-valued option takes its values, in every subcommand: one or more values after
    the option, and the option repeated adds to them (``-m map P_10``, ``-m map -m P_10`` and
    ``--metrics map --metrics P_10`` are the same). A default is replaced by the first values given, not
    added to (argparse's own ``extend`` would keep the default's values in front)."""

    def __init__(self, option_strings, dest, nargs="+", **kw):
        super().__init__(option_strings, dest, nargs=nargs, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        now = getattr(namespace, self.dest, None)
        before = [] if now is None or now is self.default else list(now)
        setattr(namespace, self.dest, before + list(values))


def add_list_option(group, *flags: str, **kw) -> None:
    """A multi-valued option (:class:`ListOption`)."""
    group.add_argument(*flags, action=ListOption, nargs="+", **kw)


def add_metrics_option(group, default_help: str) -> None:
    """``-m`` / ``--metric`` / ``--metrics``: the metric names of every subcommand that takes several, defined
    once so that they are written the same way everywhere (as trec_eval's ``-m``)."""
    add_list_option(group, "-m", "--metrics", "--metric", dest="metrics", metavar="KEY", default=None,
                    help="metric names, any convention (map P_10 nDCG@10 ndcg_cut.10 ...; 'evalcore metrics' "
                         "lists them): -m map P_10, or -m map -m P_10; " + default_help)


_BETA, _LOG_BASE, _REL = FIELDS["beta"], FIELDS["log_base"], FIELDS["rel_threshold"]

EPILOG_LEVELS = (
    "Level order: --gains and --penalties are written as the papers write them, HIGHEST LEVEL FIRST: "
    "--gains 3:2:1 is S=3 : A=2 : B=1 (on K levels give K values, L_K first, or 3 values, mapped onto K "
    "levels), exactly as gains=\"3:2:1\" in Python, \"gains\": \"3:2:1\" in a settings file and ?gains=3:2:1 "
    "in the app's address. (evalcore 0.1.0 read them on the command line lowest level first: reverse an old "
    "command line's values.) Presets: --gain-preset " + ", ".join(GAIN_PRESETS) + "."
)


def data_options_parser() -> argparse.ArgumentParser:
    """The options every subcommand shares: where the data is and how to score it."""
    p = argparse.ArgumentParser(add_help=False)
    d = p.add_argument_group("data")
    d.add_argument("--qrels", metavar="FILE", help="qrels: TREC 'topic iter doc rel', NTCIR 'topic doc L2|S|A|B', "
                   "or a directory/zip of NTCIREVAL TOPIC.rel files")
    add_list_option(d, "--run", metavar="FILE", default=[],
                   help="one or more run files (TREC 'topic Q0 doc rank score tag'; .gz ok)")
    d.add_argument("--runs", metavar="DIR|ZIP", help="a directory or .zip holding the run files")
    d.add_argument("--simulated", action="store_true", help="use the built-in simulated NTCIR-like collection")
    d.add_argument("--paper-examples", action="store_true", help="use the 003 worked examples (X, Y, Z, ...)")
    d.add_argument("--seed-data", type=number("--seed-data", int, 0, SEED_MAX), default=0, metavar="N",
                   help="seed of --simulated (default 0)")
    d.add_argument("--topics", type=number("--topics", int, 1, SIM_MAX_TOPICS), default=50, metavar="N",
                   help=f"topics of --simulated (default 50, at most {SIM_MAX_TOPICS:,})")
    d.add_argument("--systems", type=number("--systems", int, 1, SIM_MAX_SYSTEMS), default=30, metavar="N",
                   help=f"runs of --simulated (default 30, at most {SIM_MAX_SYSTEMS:,})")
    d.add_argument("--order", choices=("score", "rank", "file"), default=None,
                   help="ranking of a TREC run: score (default; score descending, ties by document id "
                        "descending, exactly as trec_eval), rank (the rank column), file (file order)")
    d.add_argument("--depth", type=number("--depth", int, 1, MAX_COUNT), metavar="N",
                   help="evaluate only the top N documents of each list")
    d.add_argument("--condensed", action="store_true", default=None,
                   help="remove unjudged documents first (condensed lists, Sakai SIGIR 2007)")
    d.add_argument("--qrels-format", choices=("auto", "trec", "ntcir", "rel"), default=None,
                   help="qrels format (default auto: sniffed from the first line / the .rel extension)")
    d.add_argument("--run-format", choices=RUN_FORMATS, default=None, help=formats_help())
    d.add_argument("--keep-first-duplicate", action="store_true", default=None,
                   help="if a run lists a document twice for a topic, keep the first (default: error)")
    lim = p.add_argument_group("limits (hostile or huge input is refused before memory is taken)")
    lim.add_argument("--max-expanded", metavar="SIZE",
                     help="most bytes a .gz file or .zip archive may expand to (default: min(4G, max(16M, 50 x "
                          "its compressed size)); a SIZE here replaces the 4G cap and lifts the 50 x ratio; all "
                          "compressed files of one load together: 16G, or SIZE if larger)")
    lim.add_argument("--max-memory", metavar="SIZE", help="most memory for the levels tensor, 2 bytes per "
                     "run x topic x rank (default 2G)")
    lim.add_argument("--max-runs", type=number("--max-runs", int, 1, MAX_COUNT), metavar="N",
                     help="most runs (default 2000)")
    lim.add_argument("--max-topics", type=number("--max-topics", int, 1, MAX_COUNT), metavar="N",
                     help="most evaluated topics (default 200000)")
    lim.add_argument("--max-members", type=number("--max-members", int, 1, MAX_COUNT), metavar="N",
                     help="most members of one .zip archive, checked before they are listed (default 200000)")
    lim.add_argument("--max-depth", type=number("--max-depth", int, 1, MAX_COUNT), metavar="N",
                     help="most documents per ranked list, after --depth "
                     "(default 100000)")
    m = p.add_argument_group("metric settings")
    m.add_argument("--gains", metavar="GK:..:G1", help="gain of each level, HIGHEST LEVEL FIRST as the papers "
                   "write S:A:B (default 3:2:1, i.e. gain(L) = L on any K); K values, or 3 mapped onto K levels")
    m.add_argument("--gain-preset", metavar="NAME", choices=list(GAIN_PRESETS),
                   help="a paper preset, highest level first: " + ", ".join(GAIN_PRESETS))
    m.add_argument("--beta", type=field_option("--beta", _BETA),
                   help=f"beta of the blended ratio (default {_BETA.default:g}; {_BETA.low:g} to {_BETA.high:g})")
    m.add_argument("--penalties", metavar="PK:..:P1", help="NWRR/WRR penalty of each level, HIGHEST LEVEL "
                   "FIRST (default S:A:B = 2:3:4, i.e. penalty(L) = K-L+2); all > 1, never growing with the level")
    m.add_argument("--cutoffs", metavar="L1,L2",
                   help="cutoffs for nDCG@l, P@l, ... when no @l is given (default 10,1000)")
    m.add_argument("--rel-threshold", type=field_option("--rel-threshold", _REL), metavar="L",
                   help="binary metrics count level >= L as relevant (1 = relaxed, default; 2 = rigid)")
    m.add_argument("--log-base", type=field_option("--log-base", _LOG_BASE),
                   help=f"b of the Jarvelin-Kekalainen discount (default {_LOG_BASE.default:g}; > {_LOG_BASE.low:g} "
                        f"and < {_LOG_BASE.high:g})")
    for prm in SETTING_PARAMS:      # each measure's own setting, as its declaration gives it (evalcore.specs)
        add_setting_option(m, prm)
    m.add_argument("--mean", choices=("arithmetic", "geometric"),
                   help="mean over topics (geometric: exp mean log max(x, 1e-5))")
    m.add_argument("--names", choices=CONVENTIONS, help="read metric names in this convention (ir_measures: "
                   "nDCG@10 is the Burges nDCG, evalcore's MSnDCG@10); default: evalcore's keys plus every "
                   "unambiguous peer name (map, P_10, ndcg_cut.10, P-plus, ...), warning on a bare nDCG@k")
    m.add_argument("--settings", metavar="JSON", help="a settings file saved by the app's Report page or by "
                   "--save-settings; explicit options override it")
    m.add_argument("--save-settings", metavar="JSON", help="evaluate: write the settings used (after --settings and "
                   "the options) to this file, for --settings or the app's Report page; the path is checked "
                   "before anything is computed and the file is replaced atomically")
    return p


def add_setting_option(group, prm: Param) -> None:
    """The option of a parameter declared as a setting (``--persistence``, ``--f-beta``): the settings file's
    field (its key, bounds and default: :data:`evalcore.settings.FIELDS`) and its help, from the declaration
    (:class:`evalcore.specs.Setting`)."""
    assert prm.setting is not None, f"{prm.name} is not declared as a setting"
    option = prm.setting.option
    group.add_argument(option, dest=prm.setting.dest, type=field_option(option, FIELDS[prm.name]),
                       metavar=prm.spellings[0].upper(), help=setting_help(prm))


def setting_values(args, st: dict) -> dict:
    """Each measure's own setting (parameter name -> value): its option, else the settings file ``st``, else
    its default."""
    out = {}
    for prm in SETTING_PARAMS:
        assert prm.setting is not None
        v = getattr(args, prm.setting.dest, None)
        if v is None:
            v = DEFAULTS[prm.name] if st.get(prm.name) is None else st[prm.name]
        out[prm.name] = int(v) if prm.kind == "int" else float(v)
    return out


#: The data options a settings file records and restores (:data:`evalcore.settings.FIELDS`, role "data"):
#: argparse dest -> settings key. Their parser defaults are None, so that an option given wins over the file
#: and the file over the default (:func:`data_options`).
DATA_OPTIONS = {"order": "order", "depth": "depth", "condensed": "condensed",
                "keep_first_duplicate": "keep_first_duplicate", "qrels_format": "qrels_format",
                "run_format": "run_format"}


def data_options(args) -> dict:
    """How the runs are read: each of :data:`DATA_OPTIONS` from the command line, else the ``--settings``
    file, else its default (``order`` score, whole lists, not condensed, ...)."""
    st = file_settings(args) if getattr(args, "settings", None) else {}
    out = {}
    for dest, key in DATA_OPTIONS.items():
        v = getattr(args, dest, None)
        out[key] = v if v is not None else st.get(key, DEFAULTS[key])
    if out["run_format"] not in RUN_FORMATS:
        raise ValueError(f"run_format {out['run_format']!r} (from --settings {args.settings}) is not a run format; "
                         f"choose one of {', '.join(RUN_FORMATS)}")
    return out


def load_from_args(args) -> Collection:
    """The collection the data options name (read as :func:`data_options` says)."""
    from .. import io, simulate

    if getattr(args, "save_settings", None) and getattr(args, "command", "evaluate") != "evaluate":
        raise ValueError(f"--save-settings is written by 'evaluate' only; '{args.command}' would ignore it "
                         "(run 'evaluate' with the same options and --save-settings FILE)")
    d = data_options(args)
    sources = sum(bool(x) for x in (args.simulated, args.paper_examples, args.qrels))
    if sources == 0:
        raise ValueError("no data: give --qrels FILE with --run FILE... or --runs DIR, or --simulated")
    if sources > 1:
        raise ValueError("give only one of --qrels, --simulated, --paper-examples")
    if args.simulated:
        cap = limits_from_args(args).max_tensor_bytes
        if args.topics * args.systems * SIM_DEPTH > cap:
            raise ValueError(f"--topics {args.topics:,} x --systems {args.systems:,} x depth {SIM_DEPTH:,} is "
                             f"{args.topics * args.systems * SIM_DEPTH:,} bytes of levels, more than the "
                             f"{cap:,}-byte limit (--max-memory); lower --topics or --systems, or raise --max-memory")
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
                               order=d["order"], keep_first_duplicate=bool(d["keep_first_duplicate"]),
                               fmt=d["run_format"], qrels_fmt=d["qrels_format"],
                               depth=d["depth"] if d["depth"] and d["depth"] >= 1 and not d["condensed"] else None,
                               limits=limits_from_args(args))
        _print_warnings(c, args)
    if d["condensed"]:
        c = c.condensed()
    if d["depth"] is not None:
        if d["depth"] < 1:
            raise ValueError(f"--depth must be >= 1; got {d['depth']}")
        c = c.truncated(d["depth"])
    return c


def _print_warnings(c: Collection, args, most: int = 10) -> None:
    """The load's warnings (negative labels, repeated judgments, topic ids written differently, skipped
    files) on stderr, so that none is lost when ``--report`` is not given (which prints them all)."""
    ws = list(getattr(c.report, "warnings", None) or [])
    if not ws or getattr(args, "report", False):
        return
    for w in ws[:most]:
        print(f"warning: {w}", file=sys.stderr)
    if len(ws) > most:
        print(f"warning: ... and {len(ws) - most:,} more (--report lists them all)", file=sys.stderr)


def limits_from_args(args):
    """``evalcore.io.Limits`` from --max-expanded/--max-memory/--max-runs/--max-topics/--max-depth."""
    from dataclasses import replace

    from ..io.limits import DEFAULT_LIMITS, parse_size

    kw: dict[str, Any] = {}
    if getattr(args, "max_expanded", None):
        n = parse_size(args.max_expanded, "--max-expanded")
        kw.update(max_expanded_bytes=n, expansion_floor=n, expansion_ratio=float(max(n, 1)),
                  max_total_expanded=max(n, DEFAULT_LIMITS.max_total_expanded))
    if getattr(args, "max_memory", None):
        kw["max_tensor_bytes"] = parse_size(args.max_memory, "--max-memory")
    for opt in ("runs", "topics", "depth", "members"):
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
        unused = [k for k in args._file_settings if k not in _CLI_KEYS and k not in _INFORMATIONAL]
        if unused:   # said, not silently dropped: these are the dashboard's
            print(f"warning: {path}: {', '.join(unused)} {'is' if len(unused) == 1 else 'are'} not used by the "
                  "command line (the app's settings); the command's own options apply", file=sys.stderr)
    return args._file_settings


#: the settings-file keys the command line reads; the others are the dashboard's
_CLI_KEYS = tuple(k for k, f in FIELDS.items() if f.role in ("metric", "data"))
_INFORMATIONAL = tuple(k for k, f in FIELDS.items() if f.role == "info")


def _cutoffs(text: str) -> list[int]:
    if str(text).count(",") >= MAX_LIST:
        raise ValueError(f"--cutoffs gives more than {MAX_LIST} cutoffs; give at most {MAX_LIST}")
    try:
        cutoffs = [int(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--cutoffs must be whole numbers separated by commas; got {text!r}") from None
    if not cutoffs or min(cutoffs) < 1 or max(cutoffs) > MAX_CUTOFF:
        raise ValueError(f"--cutoffs must be whole numbers from 1 to {MAX_CUTOFF:,}; got {text!r}")
    return cutoffs


def _levels(text: str, option: str) -> str:
    """``--gains`` / ``--penalties``: the papers' notation, highest level first (:func:`evalcore.gains.parse_levels`,
    the reader of every string form), each value at most :data:`evalcore.settings.MAX_GAIN` (gains of
    1e308 overflow the cumulated gain to inf, and every score would be NaN). Returned as the string, so
    that it means on the command line what it means in Python (K values, or 3 mapped onto K levels)."""
    vals = parse_levels(text, option)
    big = [v for v in vals if not abs(v) <= MAX_GAIN]
    if big:
        raise ValueError(f"{option} values must be at most {MAX_GAIN:g} (only their ratios matter); got {big[0]:g}")
    if option == "--gains" and inverted(vals):
        print(f"warning: --gains {text} gives the highest level the smallest gain: --gains is read highest level "
              f"first (S:A:B); evalcore 0.1.0 read it lowest level first - for that meaning write --gains "
              f"{':'.join(reversed(str(text).strip().split(':')))}", file=sys.stderr)
    return str(text).strip()


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
        gains = _levels(args.gains, "--gains")
    penalties = st.get("penalties")
    if args.penalties:
        penalties = _levels(args.penalties, "--penalties")
    cutoffs = _cutoffs(args.cutoffs) if args.cutoffs is not None else pick(None, "cutoffs")
    return dict(gains=gains, beta=float(pick(args.beta, "beta")), penalties=penalties, cutoffs=list(cutoffs),
                rel_threshold=int(pick(args.rel_threshold, "rel_threshold")),
                log_base=float(pick(args.log_base, "log_base")), names=pick(args.names, "names"),
                **setting_values(args, st))


def mean_of(args) -> str:
    """``--mean``, else the settings file's, else arithmetic."""
    return str(args.mean or file_settings(args).get("mean") or DEFAULTS["mean"])


def policy_of(args) -> str | None:
    """The topic policy asked for: ``--topics trec_eval|ntcireval``, else the settings file's ``topics``,
    else None (per metric, by its name: :func:`evalcore.registry.topic_policy`)."""
    policy = getattr(args, "topic_policy", None)
    return policy if policy is not None else file_settings(args).get("topics")


def metrics_of(args) -> list[str] | None:
    """``--metrics``, else the settings file's, else None (every metric / the subcommand's default)."""
    return args.metrics if args.metrics is not None else file_settings(args).get("metrics")
