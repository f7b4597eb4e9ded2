"""Every multi-valued option of every subcommand takes its values the same way."""
from __future__ import annotations

import argparse

import pytest

from evalcore.cli import SUBCOMMANDS, build_parser
from evalcore.cli.options import ListOption

COMMANDS = [c for cmds in SUBCOMMANDS.values() for c in cmds]
#: the options a subcommand requires, so that its parser accepts the lines below
REQUIRED = {"topics": ["--min-diff", "0.1"], "report": ["--out", "x"]}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _multi_valued(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if a.option_strings and a.nargs in ("+", "*") or isinstance(a, ListOption)]


def test_every_subcommand_is_checked():
    assert sorted(_subparsers()) == sorted(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_multi_valued_options_are_one_kind_everywhere(command):
    p = _subparsers()[command]
    for a in _multi_valued(p):
        assert isinstance(a, ListOption), (command, a.option_strings)
        flag = a.option_strings[0]
        values = {"--alpha": ["0.05", "0.01"], "--confidence": ["0.9", "0.8"], "--fuzziness": ["0.01", "0.1"]}.get(
            flag, ["x", "y"])
        req = REQUIRED.get(command, [])
        once = vars(p.parse_args([*req, flag, *values]))[a.dest]
        twice = vars(p.parse_args([*req, flag, values[0], flag, values[1]]))[a.dest]
        assert once == twice and len(once) == 2, (command, flag, once, twice)
        if a.default:   # the values given replace the default, not add to it
            assert len(vars(p.parse_args([*req, flag, values[0]]))[a.dest]) == 1, (command, flag)


@pytest.mark.parametrize("command", COMMANDS)
def test_metric_names_are_written_the_same_in_every_subcommand(command):
    p = _subparsers()[command]
    metrics = [a for a in p._actions if a.dest == "metrics"]
    if not metrics:
        # one metric, or none to choose; trec_eval's -m is trec_eval's own (one measure or nickname per -m,
        # read by evalcore.treceval.cli, tested in tests/test_treceval_cli.py)
        assert command in ("topics", "report", "metrics", "app", "trec_eval"), command
        return
    (a,) = metrics
    assert set(a.option_strings) == {"-m", "--metric", "--metrics"}
    for argv in (["-m", "map", "P_10"], ["-m", "map", "-m", "P_10"], ["--metrics", "map", "P_10"],
                 ["--metric", "map", "--metrics", "P_10"]):
        assert p.parse_args(argv).metrics == ["map", "P_10"], (command, argv)
    assert p.parse_args([]).metrics is None


def test_compare_takes_several_metrics_after_one_m(capsys):
    from evalcore.cli import main
    assert main(["compare", "--paper-examples", "-m", "map", "P_10"]) == 0
    out = capsys.readouterr().out
    assert "| AP | P@10 |" in out
