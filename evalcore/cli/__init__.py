"""The ``evalcore`` command (also ``python -m evalcore``): one parser, one module per subcommand.

* :mod:`.options`  - the data and metric options every subcommand shares;
* :mod:`.evaluate` - ``evaluate``;
* :mod:`.compare`  - ``compare`` (the runs x metrics table of :func:`evalcore.compare`);
* :mod:`.meta`     - ``kendall``, ``swap``, ``bootstrap``, ``stability``, ``tukey``, and the plumbing
  every meta-evaluation command shares (its parent parser, score loading, JSON/table output);
* :mod:`.stats`    - ``pairs``, ``topics`` and ``report``;
* :mod:`.metrics`  - ``metrics`` (the crosswalk of metric names);
* :mod:`.trec_eval` - ``trec_eval`` (trec_eval's command line, :mod:`evalcore.treceval`);
* :mod:`.app`      - ``app`` (starts the Streamlit dashboard).

A subcommand module has ``register(subparsers, data_parent)``; adding one is
a module with that function plus one entry in :data:`SUBCOMMANDS`.

Bad input never ends in a Python traceback: errors print one readable
message (file, line, what was wrong, what to do) and exit with status 2.
Every numeric option is bounded (:func:`.options.number`: ``--beta 1e308``
is a usage error naming the option and its range); running out of memory is
an error naming the options that size the request; anything unforeseen is
one line asking for a report (``EVALCORE_TRACEBACK=1`` shows the traceback).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from typing import NoReturn

__all__ = ["main", "build_parser", "data_options_parser", "load_from_args", "metric_params", "SUBCOMMANDS"]

_FROM_OPTIONS = ("data_options_parser", "load_from_args", "metric_params", "EPILOG_LEVELS")


def __getattr__(name: str):
    """``data_options_parser``, ``load_from_args``, ``metric_params`` from :mod:`.options`, imported on first
    use: ``evalcore --version`` / ``--help`` import neither it nor numpy (docs/benchmarks.md, "Start-up")."""
    if name in _FROM_OPTIONS:
        return getattr(importlib.import_module(".options", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Modules (of this package) whose ``register(subparsers, data_parent)`` adds subcommands, in --help
#: order, with the subcommands each registers. They are imported only when needed, so that a call of
#: ``evaluate`` does not import evalcore.meta (every CLI call pays its imports;
#: docs/benchmarks.md sections 11 and 14.1).
SUBCOMMANDS = {"evaluate": ("evaluate",), "compare": ("compare",),
               "meta": ("kendall", "swap", "bootstrap", "stability", "tukey"),
               "stats": ("pairs", "topics", "report"),
               "metrics": ("metrics",), "trec_eval": ("trec_eval",), "app": ("app",)}


def _command(argv) -> str | None:
    """The subcommand named on the command line (the first word not starting with '-'), if any."""
    for a in argv:
        if not a.startswith("-"):
            return a
    return None


#: ``evalcore --help``'s list of subcommands and its epilog, written out so that ``evalcore --help`` and
#: ``--version`` import no subcommand module (nor numpy, pandas, pyarrow), whose imports would be most of
#: their time (docs/benchmarks.md section 14.1). tests/test_packaging.py keeps them equal to what the
#: modules register.
LEAN_HELP = {
    "evaluate": "score every run on every topic",
    "compare": "one results table for a paper: runs x metrics, p-values and significance marks vs a baseline or "
               "all pairs",
    "kendall": "rank correlation between metrics' system rankings (003 Table 2)",
    "swap": "swap method: swap rates and sensitivity (003 Table 3, 004 Table 1)",
    "bootstrap": "Bootstrap Sensitivity Method: ASL of every run pair (003 Table 4)",
    "stability": "Buckley/Voorhees stability: error rate vs ties (002)",
    "tukey": "randomised Tukey HSD over all run pairs (Sakai 2012)",
    "pairs": "every run pair: mean difference, CI, effect size, p-value, adjusted p-value",
    "topics": "topic set size design: topics needed for a paired or unpaired t-test, ANOVA or a CI (Sakai 2016, 2018)",
    "report": "Sakai 2007's whole experiment on a collection: Markdown report + tables as CSV and LaTeX",
    "metrics": "list every measure and its names in ir_measures, trec_eval, NTCIREVAL",
    "trec_eval": "trec_eval 10.0's command line and output, byte for byte (-q, -c, -l N, -M N, -m all_trec, "
                 "-m P.5,10 ...)",
    "app": "start the Streamlit dashboard (needs: pip install \"evalcore-ir[app]\")",
}
LEAN_EPILOG = (
    'Level order: --gains and --penalties are written as the papers write them, HIGHEST LEVEL FIRST: '
    '--gains 3:2:1 is S=3 : A=2 : B=1 (on K levels give K values, L_K first, or 3 values, mapped onto K '
    'levels), exactly as gains="3:2:1" in Python, "gains": "3:2:1" in a settings file and ?gains=3:2:1 in'
    " the app's address. (evalcore 0.1.0 read them on the command line lowest level first: reverse an old"
    " command line's values.) Presets: --gain-preset 3:2:1, 30:20:10, 0.3:0.2:0.1, 1:1:1, 10:5:1, "
    '2:1.5:1.'
)
_DESCRIPTION = ("Graded-relevance IR evaluation (Sakai's P/P+/O-measure, NWRR, Q-measure, nDCG, ...) "
                "and the evaluation of the metrics themselves.")


class _Version(argparse.Action):
    """``--version``: ``evalcore X.Y.Z`` on the first line (what scripts read), then which distribution is
    running (:func:`evalcore.provenance`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from .. import provenance
        print("\n".join(provenance()))
        parser.exit()


def build_parser(command: str | None = None, *, lean: bool = False) -> argparse.ArgumentParser:
    """The whole parser; with a known ``command``, only the module that registers it is imported.
    ``lean=True`` (no command on the line: ``--help``, ``--version``): the subcommands as names and help
    lines only (:data:`LEAN_HELP`), nothing imported."""
    parser = argparse.ArgumentParser(prog="evalcore", description=_DESCRIPTION,
                                     epilog=LEAN_EPILOG if lean else __getattr__("EPILOG_LEVELS"))
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the version, the distribution installed (evalcore-ir) and where it runs from")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if lean:
        for name, text in LEAN_HELP.items():
            sub.add_parser(name, help=text)
        return parser
    data = __getattr__("data_options_parser")()
    owners = [m for m, cmds in SUBCOMMANDS.items() if command in cmds] or list(SUBCOMMANDS)
    for name in owners:
        importlib.import_module(f".{name}", __name__).register(sub, data)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"warning: {message}", file=sys.stderr)


#: BLAS thread-count variables set to 1 for a command-line process (unless the user set them)
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """One BLAS thread for this process, if numpy is not loaded yet and the user set no thread count: the
    CLI's products are small (hits x levels), and a second OpenBLAS thread only spins, costing CPU
    (docs/benchmarks.md, "Start-up"). A variable the user set is kept."""
    if "numpy" not in sys.modules:
        for var in BLAS_THREAD_VARIABLES:
            os.environ.setdefault(var, "1")


def run() -> NoReturn:
    """The ``evalcore`` console script and ``python -m evalcore``: :func:`main`, then the process ends
    without Python's teardown.

    Why: once the command has printed and written everything, Python's exit frees every module and
    array one by one (numpy's and pyarrow's hundreds of modules, the collection's tensors): CPU spent after
    the command's work is done (its share of ``evalcore evaluate`` on clef2015: docs/benchmarks.md
    section 14.4). Standard output and error are flushed
    first; every file the commands write is closed (and synced) by then (:mod:`evalcore._atomic`),
    and no command leaves a thread or child process behind. Exceptions that escape :func:`main`
    (``--help``, argparse's usage errors, ``EVALCORE_TRACEBACK=1``) end the process as usual.
    """
    rc = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:   # the reader went away (``| head``): nothing more can be shown
        pass
    except OSError as e:      # e.g. a full disk under ``> out.tsv``: the output is incomplete
        print(f"error: could not write the output: {e}", file=sys.stderr)
        rc = rc or 1
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(rc)


def main(argv=None) -> int:
    one_blas_thread()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command(argv)
    if command == "trec_eval":          # trec_eval's own options (-q, -l2, -mP.5): not argparse's
        from ..treceval.cli import main as trec_eval_main
        return trec_eval_main(argv[argv.index("trec_eval") + 1:])
    known = command is not None and any(command in cmds for cmds in SUBCOMMANDS.values())
    parser = build_parser(command, lean=not known and all(a in ("-h", "--help", "--version") for a in argv))
    try:
        args = parser.parse_args(argv)
    except Exception as e:            # OptionError: a numeric option outside its documented range
        from .options import OptionError  # (imported here: --help and --version stay lean)
        if not isinstance(e, OptionError):
            raise
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _show_warning
            return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except ModuleNotFoundError as e:     # an optional dependency: name the extra that brings it
        from .._extras import missing_extra

        found = missing_extra(e)
        if found is None:
            raise
        print(f"error: 'evalcore {args.command}' needs {found[0]}, which is not installed: "
              f"pip install \"evalcore-ir[{found[1]}]\"", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:   # InputError, SettingsError and OutputError are ValueError / OSError
        print(f"error: {e}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: not enough memory for this request; lower the options that size it (--B, --repeats, "
              "--topics, --systems, --depth, --max-memory) or evaluate fewer runs", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - never a raw traceback; EVALCORE_TRACEBACK=1 shows it
        if os.environ.get("EVALCORE_TRACEBACK"):
            raise
        print(f"error: unexpected {type(e).__name__}: {str(e)[:500]} (please report this with the command "
              "line; set EVALCORE_TRACEBACK=1 to see where it happened)", file=sys.stderr)
        return 1
