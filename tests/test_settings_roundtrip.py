"""Settings survive the trip: every option of ``evaluate`` that changes a number is saved by ``--save-settings``
and gives the same numbers when read back with ``--settings`` alone.

The options are taken from the command line's own parser, so a new option fails here until it is either given a
non-default value in :data:`CHANGED` (and then round-trips) or listed in :data:`NOT_SAVED` with the reason it
changes no number. Each changed option must also change the output on :data:`QRELS` / :data:`RUNS` (the data
has score ties, unjudged documents, a duplicate, four levels and lists longer than the depth), so that a saved
setting which the reader ignored cannot pass.
"""
from __future__ import annotations

import argparse
import json

import pytest

from evalcore.cli import build_parser, main

QRELS = "".join(f"{t} 0 {d} {rel}\n" for t, d, rel in [
    ("1", "a", 3), ("1", "b", 2), ("1", "c", 1), ("1", "d", 0), ("1", "e", 2),
    ("2", "f", 1), ("2", "g", 3), ("2", "h", 0), ("2", "i", 2),
    ("3", "j", 2), ("3", "k", 1), ("3", "l", 0)])
# (topic, doc, rank, score): score ties (x/y differ by file order and by docno), unjudged docs (u*), a duplicate
RUNS = {
    "x": [("1", "u1", 1, 5), ("1", "d", 2, 4), ("1", "c", 3, 4), ("1", "a", 4, 3), ("1", "b", 5, 2),
          ("2", "h", 1, 3), ("2", "u2", 2, 3), ("2", "f", 3, 2), ("2", "g", 4, 1),
          ("3", "l", 1, 2), ("3", "k", 2, 2), ("3", "j", 3, 1)],
    "y": [("1", "e", 1, 4), ("1", "u3", 2, 4), ("1", "a", 3, 3), ("1", "c", 4, 1),
          ("2", "g", 1, 2), ("2", "i", 2, 2), ("2", "u4", 3, 1), ("2", "f", 4, 1),
          ("3", "k", 1, 3), ("3", "u5", 2, 2), ("3", "j", 3, 2), ("3", "j", 4, 1)],
}
METRICS = ["AP", "Q-measure", "P+-measure", "NWRR", "nDCG", "RBP@3", "P@2", "SetF"]

#: dest -> the option and a non-default value, for every option that changes a number
CHANGED = {
    "order": ["--order", "file"], "depth": ["--depth", "2"], "condensed": ["--condensed"],
    "keep_first_duplicate": ["--keep-first-duplicate"], "qrels_format": ["--qrels-format", "ntcir"],
    "run_format": ["--run-format", "trec"],
    "gains": ["--gains", "9:4:1"], "gain_preset": ["--gain-preset", "1:1:1"], "beta": ["--beta", "5"],
    "penalties": ["--penalties", "1.5:2:8"], "cutoffs": ["--cutoffs", "3"], "rel_threshold": ["--rel-threshold", "2"],
    "log_base": ["--log-base", "3"], "persistence": ["--persistence", "0.5"],
    "f_beta": ["--f-beta", "0.5"], "mean": ["--mean", "geometric"],
    "names": ["--names", "ir_measures"], "metrics": ["--metrics", "AP", "RBP@3"], "topics": ["--topics", "trec_eval"],
}
#: dest -> why the option is not part of the settings file (it changes no number)
NOT_SAVED = {
    "help": "prints the help",
    "qrels": "which data: a settings file describes how, not what (it names the collection)",
    "run": "which data", "runs": "which data", "simulated": "which data", "paper_examples": "which data",
    "seed_data": "which data (the seed of --simulated)", "systems": "which data (runs of --simulated)",
    "max_expanded": "a limit: input over it is refused, never scored differently",
    "max_memory": "a limit", "max_runs": "a limit", "max_topics": "a limit", "max_members": "a limit",
    "max_depth": "a limit", "settings": "the file itself", "save_settings": "the file itself",
    "per_topic": "what is printed, not how it is computed", "output": "the format (--output trec_eval's topic "
    "policy is saved as topics)", "report": "prints the load summary",
}
def _evaluate_parser() -> argparse.ArgumentParser:
    root = build_parser("evaluate")
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["evaluate"]


def _write(tmp_path, ntcir: bool = False):
    lines = [ln.split() for ln in QRELS.splitlines()]
    q = tmp_path / "q.txt"
    q.write_text("".join(f"{t} {d} L{r}\n" for t, _, d, r in lines) if ntcir else QRELS)
    runs = tmp_path / "runs"
    runs.mkdir(exist_ok=True)
    for name, rows in RUNS.items():
        (runs / f"{name}.txt").write_text("".join(f"{t} Q0 {d} {rk} {s} {name}\n" for t, d, rk, s in rows))
    return q, runs


def test_every_option_is_either_saved_or_said_to_change_no_number():
    dests = {a.dest for a in _evaluate_parser()._actions}
    assert dests == set(CHANGED) | set(NOT_SAVED), (
        f"classify the new option(s) {sorted(dests - set(CHANGED) - set(NOT_SAVED))}: a non-default value in CHANGED "
        f"(it must round-trip) or a reason in NOT_SAVED")


@pytest.mark.parametrize("dest", sorted(CHANGED))
def test_a_saved_setting_gives_the_same_numbers_read_back(dest, tmp_path, capsys):
    q, runs = _write(tmp_path, ntcir=dest == "qrels_format")
    base = ["evaluate", "--qrels", str(q), "--runs", str(runs), "--per-topic"]
    metrics = [] if dest == "metrics" else ["--metrics", *(METRICS if dest != "names" else ["AP", "nDCG@2", "P@2"])]
    keep = [] if dest == "keep_first_duplicate" else ["--keep-first-duplicate"]
    saved = tmp_path / "s.json"
    assert main([*base, *metrics, *keep, *CHANGED[dest], "--save-settings", str(saved)]) == 0
    with_option = capsys.readouterr().out
    file = json.loads(saved.read_text())["settings"]
    assert main([*base, "--settings", str(saved)]) == 0
    assert capsys.readouterr().out == with_option            # the file alone gives the same bytes
    # and the option mattered on this data: without it the output differs (or, for a duplicate, is refused)
    if dest in ("qrels_format", "run_format"):
        # a format names how to read the files, which "auto" sniffs the same way from these ones: saved and
        # read back, it cannot change their numbers
        assert file[dest] == CHANGED[dest][1]
        return
    rc = main([*base, *metrics, *keep[:0 if dest == "keep_first_duplicate" else 1]])
    default = capsys.readouterr().out
    assert rc != 0 or default != with_option, f"{dest} changed nothing on this data"


def test_a_file_gives_way_to_an_option_on_the_command_line(tmp_path, capsys):
    q, runs = _write(tmp_path)
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"settings": {"order": "file", "depth": 2, "condensed": True}}))
    base = ["evaluate", "--qrels", str(q), "--runs", str(runs), "--keep-first-duplicate", "--metrics", "AP",
            "--output", "json"]
    assert main([*base, "--settings", str(f), "--order", "score", "--depth", "3"]) == 0
    meta = json.loads(capsys.readouterr().out)["meta"]
    assert (meta["order"], meta["depth"], meta["condensed"]) == ("score", 3, True)
