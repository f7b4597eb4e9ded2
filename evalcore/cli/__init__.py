"""The ``evalcore`` command (also ``python -m evalcore``): one parser, one module per subcommand.

* :mod:`.options`  - the data and metric options every subcommand shares;
* :mod:`.evaluate` - ``evaluate``;
* :mod:`.meta`     - ``kendall``, ``swap``, ``bootstrap``, ``stability``, ``tukey``;
* :mod:`.metrics`  - ``metrics`` (the crosswalk of metric names);
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

from .. import __version__
from .options import EPILOG_LEVELS, OptionError, data_options_parser, load_from_args, metric_params

__all__ = ["main", "build_parser", "data_options_parser", "load_from_args", "metric_params", "SUBCOMMANDS"]

#: Modules (of this package) whose ``register(subparsers, data_parent)`` adds subcommands, in --help
#: order, with the subcommands each registers. They are imported only when needed, so that a call of
#: ``evaluate`` does not import evalcore.meta (every CLI call pays its imports; issue 12).
SUBCOMMANDS = {"evaluate": ("evaluate",),
               "meta": ("kendall", "swap", "bootstrap", "stability", "tukey", "pairs", "topics", "report"),
               "metrics": ("metrics",), "app": ("app",)}


def _command(argv) -> str | None:
    """The subcommand named on the command line (the first word not starting with '-'), if any."""
    for a in argv:
        if not a.startswith("-"):
            return a
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with a known ``command``, only the module that registers it is imported."""
    data = data_options_parser()
    parser = argparse.ArgumentParser(
        prog="evalcore",
        description="Graded-relevance IR evaluation (Sakai's P/P+/O-measure, NWRR, Q-measure, nDCG, ...) "
                    "and the evaluation of the metrics themselves.",
        epilog=EPILOG_LEVELS,
    )
    parser.add_argument("--version", action="version", version=f"evalcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    owners = [m for m, cmds in SUBCOMMANDS.items() if command in cmds] or list(SUBCOMMANDS)
    for name in owners:
        importlib.import_module(f".{name}", __name__).register(sub, data)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"warning: {message}", file=sys.stderr)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command(argv))
    try:
        args = parser.parse_args(argv)
    except OptionError as e:          # a numeric option outside its documented range
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
