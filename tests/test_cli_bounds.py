"""Every numeric option of every subcommand has a lower and an upper bound, refused by name before anything
is computed; docs/reliability.md's table of bounds is the parsers' own (evalcore.cli.bounds.bounds_table)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.cli.bounds import bounds_table, numeric_options
from evalcore.cli.options import MAX_TOPIC_RESAMPLES

OPTIONS = list(numeric_options())
HUGE = "9" * 5000


def test_every_numeric_option_has_bounds():
    unbounded = [(c, o) for c, o, _, lo, hi, _ in OPTIONS if lo is None or hi is None]
    assert not unbounded, f"numeric options without bounds (use evalcore.cli.options.number): {unbounded}"
    # the ones that ran until killed at 1e9 are among them
    names = {(c, o) for c, o, *_ in OPTIONS}
    assert {("report", "--tukey-B"), ("report", "--topic-resamples"), ("report", "--repeats"),
            ("report", "--B"), ("report", "--topic-B"), ("report", "--top"), ("pairs", "--confidence")} <= names
    assert len({c for c, *_ in OPTIONS}) == 10   # every subcommand with numeric options


def _past(kind, lo, hi, strict):
    """A value just above the upper bound and one just below the lower bound, as text."""
    if kind is int:
        return str(hi + 1), str(lo - 1)
    above = float(hi) if strict else hi + max(abs(hi), 1.0) * 1e-3
    below = float(lo) if strict else lo - max(abs(lo), 1.0) * 1e-3
    return repr(above), repr(below)


@pytest.mark.parametrize("command, option, kind, lo, hi, strict", OPTIONS,
                         ids=[f"{c}{o}" for c, o, *_ in OPTIONS])
def test_each_option_refuses_values_past_its_bounds(command, option, kind, lo, hi, strict, capsys):
    above, below = _past(kind, lo, hi, strict)
    for value in (above, below, HUGE):
        assert main([command, option, value]) == 2, (command, option, value)
        err = capsys.readouterr().err
        assert err.startswith(f"error: {option} must be ") and err.count("\n") == 1, err
        assert len(err) < 300, err     # the 5,000 digits are not echoed
    try:     # not a number of the option's kind: refused naming the option (argparse's usage error for --topics)
        rc = main([command, option, "1e9" if kind is int else "inf"])
    except SystemExit as e:
        rc = e.code
    assert rc == 2 and option in capsys.readouterr().err
    if kind is int and hi > 10:
        assert main([command, option, "1000000000000"]) == 2
        capsys.readouterr()


def test_the_docs_table_is_the_parsers():
    doc = Path(__file__).resolve().parents[1].joinpath("docs", "reliability.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- bounds-table: [^>]*-->\n(.*?)\n<!-- /bounds-table -->", doc, re.S)
    assert m, "docs/reliability.md lost its bounds table"
    assert m.group(1) == bounds_table(), "regenerate with python -c 'from evalcore.cli.bounds import bounds_table; " \
                                         "print(bounds_table())'"


@pytest.mark.parametrize("option", ["--max-memory", "--max-expanded"])
def test_size_options_refuse_huge_sizes(option, capsys):
    assert main(["evaluate", "--simulated", option, HUGE]) == 2
    err = capsys.readouterr().err
    assert f"{option} must be a size" in err and "a text of 5,000 characters" in err
    assert main(["evaluate", "--simulated", option, "2000T"]) == 2
    assert f"{option} must be at most 1024T" in capsys.readouterr().err


def test_report_topic_resamples_bound_is_in_the_help(capsys):
    assert main(["report", "--topic-resamples", str(MAX_TOPIC_RESAMPLES + 1)]) == 2
    assert f"--topic-resamples must be >= 0 and <= {MAX_TOPIC_RESAMPLES:,}" in capsys.readouterr().err
