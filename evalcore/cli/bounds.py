"""The bounds of every numeric option of every subcommand, read from the parsers themselves (each option's
:func:`evalcore.cli.options.number` type): docs/reliability.md's table ("Bounds of every numeric option") is
:func:`bounds_table`, and tests/test_cli_bounds.py passes a value past each end to every option.

A module of its own: it builds every subcommand's parser (:mod:`evalcore.cli`), which imports
:mod:`evalcore.cli.options`; kept apart, the options module does not import the package back.
"""
from __future__ import annotations

import argparse

__all__ = ["numeric_options", "bounds_table"]


def numeric_options():
    """Every numeric option of every subcommand: ``(command, option, kind, lo, hi, strict)`` in --help
    order, read from the parsers themselves (each option's :func:`number` type), so the table in
    docs/reliability.md ("Bounds of every numeric option") cannot drift from the code. An option whose
    type is a bare ``int`` or ``float`` is listed with bounds ``None`` (tests/test_cli_bounds.py fails on
    it). Each subcommand's parser is built as ``main`` builds it for that command."""
    from . import SUBCOMMANDS, build_parser

    for command in (c for cmds in SUBCOMMANDS.values() for c in cmds):
        parser = build_parser(command)
        subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        for a in subs.choices[command]._actions:
            if not a.option_strings:
                continue
            t = getattr(a, "simulated_type", None) or a.type
            bounds = getattr(t, "bounds", None)
            if bounds is not None:
                yield (command, a.option_strings[-1], *bounds)
            elif t in (int, float):
                yield (command, a.option_strings[-1], t, None, None, False)


def bounds_table() -> str:
    """:func:`numeric_options` as a Markdown table: an option with the same bounds in several subcommands
    is one row naming them all."""
    rows: dict[tuple, list[str]] = {}
    for command, option, kind, lo, hi, strict in numeric_options():
        rows.setdefault((option, kind, lo, hi, strict), []).append(command)

    def fmt(kind, x):
        return "-" if x is None else (f"{x:,}" if kind is int else f"{x:g}")
    out = ["| option | kind | range | subcommands |", "|---|---|---|---|"]
    for (option, kind, lo, hi, strict), commands in sorted(rows.items(), key=lambda r: (r[0][0], r[1])):
        rng = f"({fmt(kind, lo)}, {fmt(kind, hi)})" if strict else f"[{fmt(kind, lo)}, {fmt(kind, hi)}]"
        out.append(f"| `{option}` | {'integer' if kind is int else 'number'} | {rng} | {', '.join(commands)} |")
    return "\n".join(out)
