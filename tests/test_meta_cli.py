"""CLI subcommands kendall, swap, bootstrap, stability, tukey (through evalcore.cli.main)."""
from __future__ import annotations

import json
import os

import pytest

from evalcore.cli import main


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("cmd,tables", [("kendall", ["matrix", "pairs"]), ("swap", ["summary", "curves"]),
                                        ("bootstrap", ["summary", "pairs", "curves"]),
                                        ("stability", ["summary", "pairs"]), ("tukey", ["summary", "pairs"])])
def test_json_keys(capsys, cmd, tables):
    doc = _json(capsys, [cmd, "--simulated", "--topics", "12", "--systems", "6", "--metrics", "AP", "RR",
                         "--B", "40", "--output", "json"] if cmd != "kendall" else
                [cmd, "--simulated", "--topics", "12", "--systems", "6", "--metrics", "AP", "RR", "--output", "json"])
    assert {"command", "collection", "runs", "n_topics", "metrics", "settings", *tables} <= set(doc)
    assert doc["command"] == cmd and doc["metrics"] == ["AP", "RR"] and len(doc["runs"]) == 6


def test_top_and_seed(capsys):
    a = _json(capsys, ["bootstrap", "--simulated", "--top", "5", "--B", "50", "--seed", "3", "--output", "json"])
    b = _json(capsys, ["bootstrap", "--simulated", "--top", "5", "--B", "50", "--seed", "3", "--output", "json"])
    assert len(a["runs"]) == 5 and a == b
    assert len(a["pairs"]) == 10 * 7 and a["settings"]["top_by"] == "AP"


def test_tsv_and_scores_csv(capsys, tmp_path):
    assert main(["evaluate", "--simulated", "--topics", "10", "--systems", "5", "--metrics", "AP", "RR",
                 "--per-topic", "--output", "csv"]) == 0
    p = tmp_path / "s.csv"
    p.write_text(capsys.readouterr().out)
    assert main(["swap", "--scores", str(p), "--B", "30", "--sampling", "disjoint", "--table", "curves"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["metric", "bin", "lower", "upper", "count", "swaps", "swap_rate"]
    assert len(lines) == 1 + 2 * 21
    assert main(["tukey", "--scores", str(p), "--B", "50", "--metrics", "RR"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("metric\talpha") and out[1].startswith("RR\t0.05")


def test_errors_exit_2(capsys, tmp_path):
    assert main(["swap", "--simulated", "--B", "0"]) == 2
    assert "--B must be >= 1" in capsys.readouterr().err
    assert main(["kendall"]) == 2
    assert "no data" in capsys.readouterr().err
    assert main(["swap", "--simulated", "--sampling", "disjoint", "--subset-size", "40"]) == 2
    assert "subset_size must be <= 25" in capsys.readouterr().err
    assert main(["bootstrap", "--scores", str(tmp_path / "none.csv")]) == 2
    assert "none.csv: cannot read the file" in capsys.readouterr().err
    # a device or a FIFO is refused before anything is read (it may never end)
    assert main(["bootstrap", "--scores", "/dev/zero"]) == 2
    assert "character device, not a regular file" in capsys.readouterr().err
    fifo = tmp_path / "scores.fifo"
    os.mkfifo(fifo)
    assert main(["bootstrap", "--scores", str(fifo)]) == 2
    assert "FIFO (named pipe), not a regular file" in capsys.readouterr().err


def test_reproduce_script_on_simulated_data(tmp_path, monkeypatch):
    import runpy
    import sys
    from pathlib import Path

    out = tmp_path / "r.md"
    script = Path(__file__).resolve().parents[1] / "docs" / "reproduce_003.py"
    monkeypatch.setattr(sys, "argv", [str(script), "--simulated", "--B", "100", "--tukey-B", "200", "--repeats",
                                      "2", "--topic-resamples", "4", "--topic-B", "50", "--out", str(out), "--quiet"])
    with pytest.raises(SystemExit) as e:
        runpy.run_path(str(script), run_name="__main__")
    assert e.value.code == 0
    text = out.read_text()
    for head in ("Table 2", "Table 3", "Table 4", "Table 5", "Table 6", "Tukey", "P(+) > O > NWRR > RR", "Table 7",
                 "Table 8",
                 "a simulated collection"):
        assert head in text
    assert (tmp_path / "r" / "table3_swap.csv").is_file()


@pytest.mark.parametrize("cmd", ["swap", "bootstrap", "stability", "tukey", "pairs"])
def test_threads_option_same_output_and_checked(capsys, monkeypatch, cmd):
    """--threads changes no number (the sums are exact, evalcore.meta._parallel): the JSON of 1 and 3
    threads is the same; out-of-range values and a bad EVALCORE_THREADS are refused naming the setting."""
    base = [cmd, "--simulated", "--topics", "12", "--systems", "7", "--metrics", "AP", "RR", "--B", "60",
            "--output", "json"]
    assert _json(capsys, base + ["--threads", "1"]) == _json(capsys, base + ["--threads", "3"])
    for bad in ("0", "2000", "x"):
        assert main(base + ["--threads", bad]) == 2
        assert "--threads must be" in capsys.readouterr().err
    monkeypatch.setenv("EVALCORE_THREADS", "-1")
    assert main(base) == 2
    assert "EVALCORE_THREADS must be a whole number from 1 to 1,024" in capsys.readouterr().err
    assert main(base + ["--threads", "2"]) == 0         # the option wins over the environment
