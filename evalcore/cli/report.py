"""``python -m evalcore report``: 003's experiment on any collection, written as Markdown + CSV + LaTeX.

Registered by :func:`evalcore.cli.stats.register` (one call); the
logic lives in :mod:`evalcore.report.experiment`. This module is the command's floor: it imports
:mod:`evalcore.report` and the command line's options, and nothing in :mod:`evalcore.report` imports
the command line.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from evalcore.specs import SETTING_PARAMS, readers

__all__ = ["add_report_subcommand", "run_report", "collection_name", "parse_report_args", "experiment_from_args"]

_DESC = """\
Run Sakai 2007 (003) Sec. 5 on a collection: Kendall's tau between the seven
metrics (Table 2), the swap method (Table 3), the Bootstrap Sensitivity
Method (Table 4), other gain settings (Tables 5, 6) and the randomised Tukey
HSD, then compare with 003's findings; a topic bootstrap (Tables 7-8) gives
the uncertainty from the topics. Writes OUT/report.md and each table as
OUT/<table>.csv (numbers) and OUT/<table>.tex (booktabs).

Works on any collection with >= 2 runs and >= 2 topics and 1..K relevance
levels: the papers' S:A:B settings are mapped onto the collection's levels
(evalcore.gains.map_levels) and every label shows the values used. Swap,
bootstrap and Tukey run --repeats times with seeds derived from --seed;
every Monte Carlo figure is reported as mean +- Monte Carlo sd [min-max] and
every order claim with the share of repetitions in which it held.

Every data and metric option applies to every table it affects
(--rel-threshold: RR, AveP and the run selection; --depth, --order,
--condensed: the lists read); options no table can use (--cutoffs,
--log-base, the measures' own settings such as --persistence and --f-beta, --names,
--mean geometric, --save-settings) are refused.
The "Written by" line of report.md repeats every option that differs from
its default, so re-running it writes the same bytes.
"""


def add_report_subcommand(subparsers, data_parent: argparse.ArgumentParser) -> None:
    from .options import (
        MAX_B,
        MAX_COUNT,
        MAX_REPEATS,
        MAX_TOPIC_RESAMPLES,
        SEED_MAX,
        add_dask_options,
        add_threads_option,
        number,
    )

    r = subparsers.add_parser("report", parents=[data_parent], help="Sakai 2007's whole experiment on a collection: "
                              "Markdown report + tables as CSV and LaTeX", description=_DESC,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    g = r.add_argument_group("report")
    g.add_argument("--out", required=True, metavar="DIR", help="directory for report.md and the tables")
    g.add_argument("--markdown", metavar="FILE", help="write the Markdown report here instead of DIR/report.md")
    g.add_argument("--name", help="the collection's name in the text and captions (default: the folder holding "
                                  "the qrels, e.g. clef2015)")
    g.add_argument("--top", type=number("--top", int, 2, MAX_COUNT), default=30, metavar="N",
                   help="keep the N best runs (default 30, as Sakai 2007)")
    g.add_argument("--top-by", default="AP", metavar="KEY", help="metric that ranks the runs for --top (default "
                   "AP at relevance threshold 1, i.e. Sakai 2007's relaxed AP)")
    g.add_argument("--B", type=number("--B", int, 1, MAX_B), default=1000, metavar="N",
                   help="swap trials and bootstrap samples "
                   "(default 1000, as Sakai 2007)")
    g.add_argument("--tukey-B", type=number("--tukey-B", int, 1, MAX_B), default=5000, metavar="N",
                   help="Tukey permutations (default 5000)")
    g.add_argument("--repeats", type=number("--repeats", int, 1, MAX_REPEATS), default=5, metavar="N",
                   help="Monte Carlo repetitions with derived seeds (default 5)")
    g.add_argument("--seed", type=number("--seed", int, 0, SEED_MAX), default=0, metavar="N",
                   help="seed of the first repetition (default 0); each repetition's seed, as report.md lists "
                        "them, is within the same range and reruns that repetition when given here with "
                        "--repeats 1 (or to swap, bootstrap, tukey, stability)")
    g.add_argument("--topic-resamples", type=number("--topic-resamples", int, 0, MAX_TOPIC_RESAMPLES), default=100,
                   metavar="N",
                   help="topic samples of the topic bootstrap (Tables 7-8: uncertainty from the topics around every "
                        "discriminative-power figure and difference between metrics); 0 = none (default 100)")
    g.add_argument("--topic-B", type=number("--topic-B", int, 1, MAX_B), default=200, metavar="N",
                   help="B of the swap, bootstrap and Tukey methods run on each topic sample (default 200)")
    g.add_argument("--topic-seed", type=number("--topic-seed", int, 0, SEED_MAX), default=0, metavar="N",
                   help="seed of the topic samples, separate from --seed (default 0)")
    add_threads_option(g)
    add_dask_options(r.add_argument_group("Dask (evalcore-ir[dask]; docs/scaling.md): Tables 3-6's swap, bootstrap, "
                                          "Tukey and stability repetitions as Dask tasks; --threads then serves "
                                          "the rest"), parquet=False)
    g.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    r.set_defaults(func=run_report, report_parser=r)


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


#: options of the data parser that no report table could use, and why (refused when given)
REFUSED = {
    "cutoffs": "Sakai 2007's seven metrics (RR, NWRR, O, P, P+, AveP, Q) have no cutoff: use --depth to evaluate the "
               "top N documents of each list",
    "log_base": "none of Sakai 2007's seven metrics has a log discount",
    # each measure's own setting (--persistence, --f-beta): read by none of the seven
    **{prm.setting.dest: f"none of Sakai 2007's seven metrics reads {prm.name} (read by {', '.join(readers(prm))} only)"
       for prm in SETTING_PARAMS if prm.setting is not None},
    "names": "the report's metrics are fixed (Sakai 2007's seven) and --top-by takes evalcore's keys",
    "save_settings": "the report records its settings in report.md and its command line; use `evalcore evaluate "
                     "--save-settings`",
}
#: options left out of the command written into report.md: they change no number (the tables are the same
#: for any thread count and on Dask), so the report's bytes do not depend on them either
_NOT_IN_COMMAND = {"func", "quiet", "report_parser", "help", "threads", "scheduler", "workers"}


def _refuse_unused(args) -> None:
    """Raise ValueError naming an option (or a --settings key) the report would otherwise ignore."""
    from evalcore.settings import DEFAULTS

    from .options import file_settings

    for dest, why in REFUSED.items():
        if getattr(args, dest, None) not in (None, False):
            raise ValueError(f"report does not take --{dest.replace('_', '-')}: {why}")
    if args.mean == "geometric":
        raise ValueError("report does not take --mean geometric: Sakai 2007's Kendall's tau, swap and bootstrap tests "
                         "are defined on arithmetic means of per-topic scores")
    st = file_settings(args)
    if st.get("topics") not in (None, "ntcireval"):
        raise ValueError(f"report cannot use topics = {st['topics']!r} from --settings {args.settings}: the "
                         "report's means run over the topics with a relevant document (NTCIREVAL's convention, "
                         "where Sakai 2007's P, P+, O, Q and NWRR are defined); remove it from the file")
    dests = {prm.name: prm.setting.dest for prm in SETTING_PARAMS if prm.setting is not None}
    for key in ("cutoffs", "log_base", *dests, "names", "metrics", "mean"):
        if st.get(key) is not None and st[key] != DEFAULTS[key]:
            why = REFUSED.get(dests.get(key, key),
                              "the report's metrics are fixed (Sakai 2007's seven) and averaged arithmetically")
            raise ValueError(f"report cannot use {key} = {st[key]!r} from --settings {args.settings}: "
                             + why + "; remove it from the file")


def _check_output(args) -> None:
    """Before any computation: the output directory (created if needed) and the Markdown file's folder."""
    from evalcore._atomic import OutputError, check_writable_dir
    from evalcore.report.render import report_paths

    out_dir, md, _ = report_paths(args.out, args.markdown)
    check_writable_dir(out_dir, create=True)
    check_writable_dir(md.parent if str(md.parent) else Path("."), create=True)
    if md.is_dir():
        raise OutputError(f"{md}: is a directory; --markdown needs a file name")


def run_report(args) -> int:
    from evalcore.report.experiment import write_report

    from . import load_from_args

    check_report_args(args)
    _check_output(args)
    say = (lambda m: None) if args.quiet else (lambda m: print(f"report: {m} ...", file=sys.stderr, flush=True))
    if args.simulated:                  # the sizes are known from the options: checked before anything is built
        check_report_workload(args, args.systems, args.topics)
    say("loading the collection")
    c = load_from_args(args)
    e, command = experiment_from_args(args, c, progress=say)
    files = write_report(e, args.out, markdown=args.markdown, command=command)
    say(f"wrote {len(files)} files: {files[-1]} and the tables in {args.out}")
    return 0


def check_report_args(args) -> None:
    """Raise ValueError for a report option out of its range, or an option (or a --settings key) the report
    would ignore, or Dask options that do not go together; before any computation."""
    from .options import check_dask_options

    for opt, v, lo in (("--B", args.B, 1), ("--tukey-B", args.tukey_B, 1), ("--repeats", args.repeats, 1),
                       ("--top", args.top, 2), ("--seed", args.seed, 0), ("--topic-resamples", args.topic_resamples, 0),
                       ("--topic-B", args.topic_B, 1), ("--topic-seed", args.topic_seed, 0)):
        if v < lo:
            raise ValueError(f"{opt} must be >= {lo}; got {v}")
    _refuse_unused(args)
    check_dask_options(args, allow_threads=True)


#: What to lower when the report's request is over a limit of :mod:`evalcore.workload`.
REPORT_HINT = ("lower --B, --tukey-B, --repeats, --topic-resamples or --topic-B, or keep fewer runs with --top N "
               "(or fewer --systems / --topics)")


def check_report_workload(args, n_runs: int, n_topics: int) -> None:
    """:func:`evalcore.workload.report_work` of these options on ``n_runs`` runs (before ``--top``) and
    ``n_topics`` topics, checked (ValueError naming the method, the product, the limit and what to lower)."""
    from evalcore import workload
    from evalcore.meta._parallel import resolve_threads

    threads = resolve_threads(getattr(args, "threads", None))
    workload.check_all(workload.report_work(min(args.top, n_runs), n_topics, B=args.B, tukey_B=args.tukey_B,
                                            repeats=args.repeats, topic_resamples=args.topic_resamples,
                                            topic_B=args.topic_B, threads=threads), REPORT_HINT, what="report")


def parse_report_args(argv: list[str]) -> argparse.Namespace:
    """``evalcore report``'s options from ``argv`` (the words after ``report``), parsed and checked by the
    command's own parser: the dashboard's Report page builds its report from the same options."""
    from . import build_parser

    args = build_parser("report").parse_args(["report", *argv])
    check_report_args(args)
    return args


def experiment_from_args(args, c, progress=None, reuse=None):
    """Run the report's experiment on the collection ``c`` (read as ``args`` say) with ``args``' options:
    ``(Experiment, the command line that reproduces it)``. ``progress`` gets a short message before each
    step. One function for ``evalcore report`` and the dashboard's Report page; ``--scheduler`` /
    ``--workers`` run the resampling repetitions on Dask (the same files). ``reuse``: a store of
    finished summary rows (:func:`evalcore.report.experiment.run_experiment`; the same files)."""
    from contextlib import ExitStack

    from evalcore.report.experiment import run_experiment

    from . import metric_params
    from .meta import dask_scheduler
    from .options import dask_options_given, data_options


    check_report_workload(args, c.n_runs, c.n_topics)
    params = metric_params(args)
    name = collection_name(args, c)
    read = data_options(args)
    data = {"order": read["order"] if args.qrels else "n/a (not read from run files)", "depth": read["depth"],
            "condensed": bool(read["condensed"])}
    with ExitStack() as stack:
        scheduler = dask_scheduler(args, stack) if dask_options_given(args) else None
        e = run_experiment(c, name=name, top=args.top, top_by=args.top_by, B=args.B, tukey_B=args.tukey_B,
                           repeats=args.repeats, seed=args.seed, gains=params["gains"], penalties=params["penalties"],
                           beta=params["beta"], rel_threshold=params["rel_threshold"],
                           topic_resamples=args.topic_resamples, topic_B=args.topic_B, topic_seed=args.topic_seed,
                           data=data, progress=progress, threads=getattr(args, "threads", None), scheduler=scheduler,
                           reuse=reuse)
    return e, _command(args)


def _command(args) -> str:
    """The command line that reproduces this report: every option of the report's parser whose value
    differs from its default, in the parser's order (so an option added later is never left out)."""
    parts = ["python", "-m", "evalcore", "report"]
    for action in args.report_parser._actions:
        dest = action.dest
        if not action.option_strings or dest in _NOT_IN_COMMAND or not hasattr(args, dest):
            continue
        v, opt = getattr(args, dest), action.option_strings[-1] if action.option_strings[-1].startswith("--") \
            else action.option_strings[0]
        if isinstance(action, argparse._StoreTrueAction):
            parts += [opt] if v else []
        elif isinstance(v, list):
            parts += [opt, *map(str, v)] if v and v != action.default else []
        elif v is not None and v != action.default:
            parts += [opt, repr(v) if isinstance(v, float) else str(v)]
    return " ".join(shlex.quote(p) for p in parts)
