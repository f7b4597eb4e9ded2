"""The meta subcommands on Dask from the command line: --workers N (a local cluster), --scheduler ADDRESS
(a running dask.distributed scheduler) and --to-parquet DIR, against the in-memory command's output.

Exact equality of the JSON documents is the point here, not a shortcut: evalcore.meta.on_dask computes
every table with the in-memory kernels over the same random draws, the sums exact (evalcore._exact) and
the cross-task reductions integer counts, maxima and concatenations in pair order, so the numbers are
the same bits (tests/test_meta_dask.py checks the Python API the same way; test_meta_reference.py checks
the in-memory values against plain loops)."""
from __future__ import annotations

import json
import sys

import pandas as pd
import pytest

from evalcore.cli import main

pytest.importorskip("dask")

BASE = ["--simulated", "--topics", "12", "--systems", "7", "--metrics", "AP", "RR", "--B", "60", "--seed", "4",
        "--output", "json"]


def _json(capsys, argv) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _without_dask(doc: dict) -> dict:
    doc = dict(doc)
    doc["settings"] = {k: v for k, v in doc["settings"].items() if k != "dask"}
    return doc


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
@pytest.mark.parametrize("cmd,extra", [("swap", []), ("bootstrap", ["--repeats", "2"]), ("stability", []),
                                       ("tukey", [])])
def test_workers_give_the_in_memory_output(capsys, plain_main, cmd, extra):
    pytest.importorskip("distributed")
    mem = _json(capsys, [cmd, *BASE, *extra])
    dask = _json(capsys, [cmd, *BASE, *extra, "--workers", "2"])
    assert mem["settings"]["dask"] is None
    assert dask["settings"]["dask"] == {"scheduler": None, "workers": 2, "to_parquet": None}
    assert _without_dask(dask) == _without_dask(mem)
    assert any(len(v) for k, v in mem.items() if k in ("pairs", "curves"))      # tables with rows were compared


def test_scheduler_address_gives_the_in_memory_output(capsys, plain_main):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp://",
                                  dashboard_address=None) as cluster:
        got = _json(capsys, ["bootstrap", *BASE, "--scheduler", cluster.scheduler_address])
    assert got["settings"]["dask"]["scheduler"] == cluster.scheduler_address
    assert _without_dask(got) == _without_dask(_json(capsys, ["bootstrap", *BASE]))


def _pairs_of(path) -> pd.DataFrame:
    t = pd.read_parquet(path)
    t["metric"] = t["metric"].astype(str)
    for c in ("run_x", "run_y"):
        t[c] = t[c].astype(str)
    return t


@pytest.mark.parametrize("cmd,workers", [("bootstrap", []), ("stability", ["--workers", "2"]), ("tukey", [])])
def test_to_parquet_writes_the_in_memory_pairs_and_prints_the_summary(capsys, plain_main, tmp_path, cmd, workers):
    if workers:
        pytest.importorskip("distributed")
    pytest.importorskip("pyarrow")
    out = tmp_path / "pairs"
    mem = _json(capsys, [cmd, *BASE])
    got = _json(capsys, [cmd, *BASE, *workers, "--to-parquet", str(out)])
    assert got["settings"]["dask"]["to_parquet"] == str(out)
    assert got["summary"] == mem["summary"] and got["pairs"] == []
    assert sorted(p.name for p in out.iterdir()) == ["metric=AP", "metric=RR"]
    ref = pd.DataFrame(mem["pairs"])
    keys = ["metric", "run_x", "run_y"] + (["fuzziness"] if cmd == "stability" else [])
    t = _pairs_of(out)[ref.columns.tolist()].sort_values(keys, kind="stable").reset_index(drop=True)
    ref = ref.sort_values(keys, kind="stable").reset_index(drop=True)
    assert len(t) == len(ref) == 2 * 21 * (4 if cmd == "stability" else 1)          # 21 pairs of 7 runs
    for c in ref.columns:
        assert t[c].tolist() == ref[c].tolist(), c


@pytest.mark.parametrize("argv,message", [
    (["--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "give --scheduler ADDRESS"),
    (["--workers", "2", "--threads", "2"], "leave --threads out"),
    (["--scheduler", "localhost"], "--scheduler must be a Dask scheduler address, [protocol://]host:port"),
    (["--workers", "0"], "--workers must be >= 1 and <= 256; got 0"),
    (["--workers", "257"], "--workers must be >= 1 and <= 256; got 257"),
    (["--to-parquet", "DIR", "--repeats", "2"], "--to-parquet writes one result's pairs; --repeats 2"),
    (["--to-parquet", "DIR", "--table", "pairs", "--output", "tsv"], "--table pairs: with --to-parquet"),
])
def test_bad_dask_options_are_refused_by_name_before_loading(capsys, tmp_path, argv, message):
    argv = [str(tmp_path / "p") if a == "DIR" else a for a in argv]
    assert main(["bootstrap", "--simulated", "--B", "20", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "simulated" not in err.lower()
    assert not (tmp_path / "p").exists()


def test_to_parquet_refuses_a_directory_with_files_and_swap_has_no_pairs(capsys, tmp_path):
    (tmp_path / "old.parquet").write_text("x")
    assert main(["tukey", *BASE, "--to-parquet", str(tmp_path)]) == 2
    assert "exists and is not an empty directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):                     # swap has no per-pair table: no such option
        main(["swap", *BASE, "--to-parquet", str(tmp_path / "new")])
    assert "unrecognized arguments: --to-parquet" in capsys.readouterr().err


def test_an_unreachable_scheduler_is_named(capsys):
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(["swap", *BASE, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler tcp://127.0.0.1:1: no Dask scheduler could be reached there" in err


@pytest.mark.parametrize("module,option", [("dask", "--to-parquet"), ("distributed", "--workers")])
def test_missing_packages_name_the_extra(capsys, monkeypatch, tmp_path, module, option):
    monkeypatch.setitem(sys.modules, module, None)          # as if it were not installed
    value = str(tmp_path / "p") if option == "--to-parquet" else "2"
    assert main(["bootstrap", *BASE, option, value]) == 2
    err = capsys.readouterr().err
    assert option in err and 'pip install "evalcore-ir[dask]"' in err
