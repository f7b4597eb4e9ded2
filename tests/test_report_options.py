"""`report`: every option applied to the tables it affects or refused by name; the "Written by" command
re-run writes the same bytes; report.md states how the data was read; output checked before computing."""
from __future__ import annotations

import shlex

import numpy as np
import pandas as pd
import pytest
from test_report import FAST, write_collection

from evalcore.cli import main


@pytest.fixture()
def coll(tmp_path):
    q, r = write_collection(tmp_path / "c4", K=4, n_runs=5, n_topics=10)
    with open(r / "run0.txt", "a") as f:          # two run topics the qrels do not have
        f.write("99 Q0 dx 1 3.0 run0\n98 Q0 dy 1 3.0 run0\n")
    return q, r


def _run(q, r, out, *extra):
    argv = ["report", "--qrels", str(q), "--runs", str(r), "--out", str(out), *FAST, *extra]
    assert main(argv) == 0
    return (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_written_by_reproduces_every_file_byte_for_byte(tmp_path, coll):
    q, r = coll
    out = tmp_path / "out"
    md = _run(q, r, out, "--order", "rank", "--rel-threshold", "2", "--depth", "15", "--beta", "0.75")
    cmd = md.split("Written by `", 1)[1].split("`", 1)[0]
    for opt in ("--order rank", "--rel-threshold 2", "--depth 15", "--beta 0.75", "--B 40", "--repeats 2"):
        assert opt in cmd
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    argv = shlex.split(cmd)
    assert argv[:4] == ["python", "-m", "evalcore", "report"]
    for p in out.iterdir():
        p.unlink()
    assert main(argv[3:] + ["--quiet"]) == 0
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(after) == sorted(before) and all(after[k] == before[k] for k in before)


def test_rel_threshold_changes_binary_metrics_and_is_stated(tmp_path, coll):
    q, r = coll
    md1 = _run(q, r, tmp_path / "a")
    md2 = _run(q, r, tmp_path / "b", "--rel-threshold", "2")
    assert "level >= 1 counts as relevant (relaxed, as 003)" in md1
    assert "level >= 2 counts as relevant (not 003" in md2
    t1 = pd.read_csv(tmp_path / "a" / "table4_bootstrap.csv").set_index("metric")
    t2 = pd.read_csv(tmp_path / "b" / "table4_bootstrap.csv").set_index("metric")
    # graded metrics do not depend on the threshold; AP's estimated difference does
    assert t1.loc["Q-measure", "estimated_diff_raw_mean"] == t2.loc["Q-measure", "estimated_diff_raw_mean"]
    assert t1.loc["AP", "estimated_diff_raw_mean"] != t2.loc["AP", "estimated_diff_raw_mean"]


def test_report_states_depth_order_topic_policy_and_ignored_topics(tmp_path, coll):
    q, r = coll
    md = _run(q, r, tmp_path / "o", "--depth", "12")
    assert ("Lists: the top 12 documents of each ranked list (longest evaluated: 12); run order: score — score "
            "descending, exact ties by document id descending (trec_eval's tie-breaking).") in md
    assert "a run topic not in the qrels is ignored" in md
    assert "Run topics not in the qrels, ignored: 1 run (2 topics each; 2 distinct topics: 98, 99)." in md
    assert "5 of 5 runs, 10 run pairs" in md and "B = 40" in md and "repetition seeds 0, " in md
    assert "Runs used (5, in the order of the selection by AP): run" in md
    assert "one pair more or less significant moves a % of pairs by 10.0 points" in md


def test_table4_columns_agree_across_csv_md_and_tex(tmp_path, coll):
    q, r = coll
    md = _run(q, r, tmp_path / "o")
    csv = pd.read_csv(tmp_path / "o" / "table4_bootstrap.csv")
    assert {"pct_significant_mean", "pct_significant_mean_alpha_0.01", "n_significant_mean_alpha_0.01"} <= set(csv)
    tex = (tmp_path / "o" / "table4_bootstrap.tex").read_text()
    # "<" escaped (a bare < prints as an inverted exclamation mark in LaTeX's default font encoding)
    assert r"ASL \textless{} 0.01" in tex and "Monte Carlo sd" in tex and "B = 40" in tex
    row = [line for line in md.split("## Table 4", 1)[1].splitlines() if line.startswith("| AveP")][0]
    cells = [c.strip() for c in row.strip("|").split("|")]
    mean = csv.set_index("metric").loc["AP", "pct_significant_mean"]
    assert cells[1].startswith(f"{mean:.1f} ± ") and "/" not in cells[1] and "%" not in cells[1]


@pytest.mark.parametrize("extra,word", [(["--cutoffs", "10,20"], "--cutoffs"), (["--mean", "geometric"], "--mean"),
                                        (["--log-base", "10"], "--log-base"),
                                        (["--persistence", "0.9"], "--persistence"),
                                        (["--f-beta", "0.5"], "--f-beta"),
                                        (["--names", "trec_eval"], "--names")])
def test_unused_options_are_refused_by_name(tmp_path, coll, capsys, extra, word):
    q, r = coll
    out = tmp_path / "never"
    assert main(["report", "--qrels", str(q), "--runs", str(r), "--out", str(out), *FAST, *extra]) == 2
    err = capsys.readouterr().err
    assert f"report does not take {word}" in err and not out.exists()


def test_output_checked_before_computing(tmp_path, coll, capsys):
    q, r = coll
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    assert main(["report", "--qrels", str(q), "--runs", str(r), "--out", str(blocker / "sub"), *FAST]) == 2
    err = capsys.readouterr().err
    assert str(blocker / "sub") in err and "report: loading" not in err


def test_topic_bootstrap_tables_and_strict_claims(tmp_path, coll):
    q, r = coll
    md = _run(q, r, tmp_path / "o")
    assert "## Table 7 — uncertainty from the topics (topic bootstrap)" in md
    assert "## Stability (Buckley and Voorhees 2000, as 002; c = 5, B = 40, fuzziness 5%)" in md
    st = pd.read_csv(tmp_path / "o" / "stability.csv")
    assert {"error_rate_mean", "prop_ties_sd"} <= set(st) and len(st) == 7
    assert "mean ± topic-sampling sd" in (tmp_path / "o" / "table7_topic_uncertainty.tex").read_text().replace(
        "$\\pm$", "±")
    t8 = pd.read_csv(tmp_path / "o" / "table8_metric_differences.csv")
    assert set(t8["method"]) == {"swap", "bootstrap", "tukey"} and len(t8) == 3 * 21
    total = t8[["a_higher", "tie", "b_higher", "undefined"]].sum(axis=1)
    assert np.allclose(total, 1.0)
    claim = md.split("**Discriminative power: 003's claim P(+) > O > NWRR > RR**", 1)[1].split("\n", 1)[0]
    assert "P-measure" in claim and "of 6 topic samples" in claim and "ties reported as ties" in claim
    assert "Monte Carlo sd" in md and "topic seed 0" in md


def test_topic_seed_changes_only_the_topic_tables(tmp_path, coll):
    q, r = coll
    _run(q, r, tmp_path / "a")
    _run(q, r, tmp_path / "b", "--topic-seed", "5")
    same = (tmp_path / "a" / "table4_bootstrap.csv").read_bytes() == \
        (tmp_path / "b" / "table4_bootstrap.csv").read_bytes()
    diff = (tmp_path / "a" / "table7_topic_uncertainty.csv").read_bytes() != \
        (tmp_path / "b" / "table7_topic_uncertainty.csv").read_bytes()
    assert same and diff


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_threads_change_no_byte_of_the_report(tmp_path, coll):
    """--threads 1 and --threads 3 write the same files, byte for byte (the resampling sums are exact,
    evalcore.meta._parallel), and --threads is not in the "Written by" command since it changes nothing."""
    q, r = coll
    md1 = _run(q, r, tmp_path / "one", "--threads", "1")
    md3 = _run(q, r, tmp_path / "three", "--threads", "3")
    assert "--threads" not in md3.split("Written by `", 1)[1].split("`", 1)[0]
    for p in (tmp_path / "one").iterdir():
        if p.name != "report.md":                      # (report.md names its own --out folder)
            assert p.read_bytes() == (tmp_path / "three" / p.name).read_bytes(), p.name
    assert md1.replace(str(tmp_path / "one"), "OUT") == md3.replace(str(tmp_path / "three"), "OUT")
    assert main(["report", "--qrels", str(q), "--runs", str(r), "--out", str(tmp_path / "x"), "--threads", "0"]) == 2


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_workers_change_no_byte_of_the_report(tmp_path, coll, monkeypatch, plain_main):
    """--workers 2 runs Tables 3-6's swap, bootstrap, Tukey and stability repetitions as Dask tasks on a local
    cluster (evalcore.meta.on_dask: the same bits as in memory), so every file is the in-memory one, and neither
    option enters the "Written by" command."""
    pytest.importorskip("distributed")
    from evalcore.meta import on_dask

    q, r = coll
    mem = _run(q, r, tmp_path / "mem")
    used = []

    def spy(name, f):
        def call(*a, **kw):
            used.append((name, type(kw["scheduler"]).__name__))
            return f(*a, **kw)
        return call

    for name in ("swap_method", "bootstrap_sensitivity", "stability", "tukey_hsd"):
        monkeypatch.setattr(on_dask, name, spy(name, getattr(on_dask, name)))
    dask = _run(q, r, tmp_path / "dask", "--workers", "2", "--threads", "1")
    assert {n for n, _ in used} == {"swap_method", "bootstrap_sensitivity", "stability", "tukey_hsd"}
    assert {s for _, s in used} == {"Client"}
    assert "--workers" not in dask.split("Written by `", 1)[1].split("`", 1)[0]
    for p in (tmp_path / "mem").iterdir():
        if p.name != "report.md":
            assert p.read_bytes() == (tmp_path / "dask" / p.name).read_bytes(), p.name
    assert mem.replace(str(tmp_path / "mem"), "OUT") == dask.replace(str(tmp_path / "dask"), "OUT")
    out = tmp_path / "never"
    assert main(["report", "--qrels", str(q), "--runs", str(r), "--out", str(out), *FAST,
                 "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"]) == 2
    assert not out.exists()
