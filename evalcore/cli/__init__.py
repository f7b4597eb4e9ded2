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
"""
from __future__ import annotations

import argparse
import sys
import warnings

from .. import __version__
from . import app, evaluate, meta, metrics
from .options import EPILOG_LEVELS, data_options_parser, load_from_args, metric_params

__all__ = ["main", "build_parser", "data_options_parser", "load_from_args", "metric_params", "SUBCOMMANDS"]

#: Modules whose ``register(subparsers, data_parent)`` adds subcommands, in --help order.
SUBCOMMANDS = (evaluate, meta, metrics, app)


def build_parser() -> argparse.ArgumentParser:
    data = data_options_parser()
    parser = argparse.ArgumentParser(
        prog="evalcore",
        description="Graded-relevance IR evaluation (Sakai's P/P+/O-measure, NWRR, Q-measure, nDCG, ...) "
                    "and the evaluation of the metrics themselves.",
        epilog=EPILOG_LEVELS,
    )
    parser.add_argument("--version", action="version", version=f"evalcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.register(sub, data)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"warning: {message}", file=sys.stderr)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
    except (ValueError, OSError) as e:   # InputError and SettingsError are ValueErrors
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
