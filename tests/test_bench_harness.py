"""The benchmark harness (benchmarks/harness.py) and the docs tables made from its result files
(benchmarks/report.py): interleaved rounds, the result file's schema, and docs/benchmarks.md agreeing with
benchmarks/results/. No timing is asserted: speed is measured by the benchmarks, never by tests."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))
harness = pytest.importorskip("harness")
report = pytest.importorskip("report")


def test_rounds_interleave_the_contenders_and_reverse_every_other_round():
    calls = []
    got = harness.rounds({"A": lambda: calls.append("A") or 1, "B": lambda: calls.append("B") or 2}, 3,
                         warmup=1, alternate=True)
    assert calls == ["A", "B"] + ["A", "B", "B", "A", "A", "B"]       # the warm-up, then A B, B A, A B
    assert [s.result for s in got.samples["A"]] == [1, 1, 1]
    for name in "AB":
        st = got.stats(name, "wall")
        assert st.n == 3 and st.min <= st.median <= st.max
        assert all(s.wall >= 0 and s.cpu >= 0 and s.child_cpu >= 0 for s in got.samples[name])
    assert len(got.ratios("A", "B", "wall")) == 3
    with pytest.raises(ValueError, match="repeat must be at least 1; got 0"):
        harness.rounds({"A": lambda: None}, 0)


def test_a_command_runs_in_a_child_whose_cpu_is_counted_apart():
    s = harness.measure(harness.command([sys.executable, "-c", "pass"]))
    assert s.result.returncode == 0
    assert s.child_cpu >= 0 and s.all_cpu == s.cpu + s.child_cpu


def test_cells_take_templates_lists_and_fallbacks():
    col = harness.col("x", ["{:.2f} ({first:.1f})", "{:.2f}"], "v")
    assert harness.cell({"v": 1.234, "first": 2.0}, col) == "1.23 (2.0)"
    assert harness.cell({"v": 1.234}, col) == "1.23"
    assert harness.cell({}, col) == ""
    assert harness.cell({"v": [1, 2.5]}, harness.col("x", "{:.1f}", "v")) == "1.0, 2.5"
    table = harness.markdown([harness.col("a"), harness.col("b", "{:.1f}", right=True)], [{"a": "x", "b": 1}])
    assert table == "| a | b |\n|---|---:|\n| x | 1.0 |"


def _trivial_result(tmp_path: Path) -> Path:
    got = harness.rounds({"sum": lambda: sum(range(1000)), "sorted": lambda: sorted(range(1000))}, 2)
    res = harness.Result("trivial", ["--repeat", "2"], {"repeat": 2}, script=BENCH / "bench_trivial.py")
    res.add_rounds(got)
    rows = [{"what": n, "wall": got.stats(n, "wall").median} for n in got.samples]
    text = res.table([harness.col("what"), harness.col("wall s", "{:.6f}", "wall")], rows, title="Trivial:",
                     notes=["a note"])
    assert text.startswith("Trivial:\n\n| what | wall s |") and text.endswith("\n\na note")
    res.table([harness.col("n")], [{"n": 1}], id="second")
    return res.save(directory=tmp_path)


def test_a_result_file_has_the_schema(tmp_path):
    path = _trivial_result(tmp_path)
    assert path.parent == tmp_path / "trivial" and path.suffix == ".json"
    data = json.loads(path.read_text())
    harness.validate(data)
    assert data["schema"] == "evalcore-bench/1" and data["name"] == "trivial" and data["id"] == path.stem
    assert data["script"] == "benchmarks/bench_trivial.py"
    assert data["command"] == "python benchmarks/bench_trivial.py --repeat 2" and data["argv"] == ["--repeat", "2"]
    assert data["origin"] == "measured" and data["params"]["repeat"] == 2
    env = data["environment"]
    for key in ("cpu", "cores", "loadavg", "python", "packages", "commit", "dirty"):
        assert key in env, key
    assert "numpy" in env["packages"]
    assert [t["id"] for t in data["tables"]] == ["main", "second"]
    assert [r.get("table", "main") for r in data["rows"]] == ["main", "main", "second"]
    assert {r["what"] for r in data["rows"][:2]} == {"sum", "sorted"}
    assert set(data["rounds"]) == {"sum", "sorted"} and len(data["rounds"]["sum"]) == 2
    assert set(data["rounds"]["sum"][0]) == {"wall", "cpu", "child_cpu"}
    twin = harness.Result("trivial", [], {}, script="x.py", run_id=data["id"], env={})   # the same id: a new file
    twin.table([harness.col("a")], [{"a": 1}])
    assert twin.save(directory=tmp_path).name == f"{data['id']}-2.json"


def test_validate_names_what_is_wrong():
    good = harness.Result("x", [], {}, script="benchmarks/x.py", env={})
    good.table([harness.col("a")], [{"a": 1}])
    harness.validate(good.data)
    for key, value, message in (("schema", "other/1", "schema must be 'evalcore-bench/1'"),
                                ("tables", [], "no table"), ("rows", {}, "'rows' must be a list"),
                                ("origin", "guessed", "origin must be")):
        bad = dict(good.data, **{key: value})
        with pytest.raises(ValueError, match=message):
            harness.validate(bad)
    bad = dict(good.data, rows=[{"a": 1, "table": "nowhere"}])
    with pytest.raises(ValueError, match="not a dict of a known table"):
        harness.validate(bad)


def test_report_makes_marked_blocks_and_check_finds_a_stale_one(tmp_path):
    path = _trivial_result(tmp_path)
    docs = tmp_path / "page.md"
    docs.write_text(f"# Page\n\nprose\n\n<!-- bench:trivial -->\nold table\n<!-- /bench:trivial -->\n\n"
                    f"<!-- bench:trivial@{path.stem}#second -->\n<!-- /bench:trivial@{path.stem}#second -->\nend\n")
    args = ["--docs", str(docs), "--results", str(tmp_path)]
    assert report.main([*args, "--check"]) == 1                       # the hand-written "old table"
    assert report.main(args) == 0
    text = docs.read_text()
    assert "old table" not in text and "Trivial:\n\n| what | wall s |" in text and "| n |\n|---|\n| 1 |" in text
    assert text.startswith("# Page\n\nprose\n\n") and text.endswith("end\n")
    assert text.count(f"Result file: [{path}]") == 2
    assert report.main([*args, "--check"]) == 0
    docs.write_text(text.replace("| 1 |", "| 2 |"))
    assert report.main([*args, "--check"]) == 1
    docs.write_text("<!-- bench:missing -->\n<!-- /bench:missing -->\n<!-- bench:trivial -->\nno end\n")
    assert report.main([*args, "--check"]) == 1


def test_the_committed_docs_agree_with_the_committed_results():
    """docs/benchmarks.md's marked tables are what `python benchmarks/report.py` makes from
    benchmarks/results/ (after a benchmark run: regenerate and commit both, or run it with --no-save)."""
    r = subprocess.run([sys.executable, str(BENCH / "report.py"), "--check"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    for spec in ("bench:trec_eval", "bench:workers@", "bench:peer@", "bench:startup@"):
        assert f"<!-- {spec}" in text, spec


#: scripts in benchmarks/ that time nothing (a data generator) or are the harness's own parts and helpers
NOT_TIMED = {"gen_scale.py", "harness.py", "report.py", "dashboard_apptest.py", "dashboard_browser.py",
             "dashboard_load.py"}


def test_every_benchmark_script_times_with_the_harness():
    scripts = sorted(p for p in BENCH.glob("*.py") if p.name not in NOT_TIMED)
    assert scripts, "no benchmark scripts found"
    for p in scripts:
        text = p.read_text(encoding="utf-8")
        assert "import harness" in text, f"{p.name} does not use benchmarks/harness.py"
        assert "add_options" in text, f"{p.name} has no --results / --no-save (harness.add_options)"


def test_bench_workers_pairs_each_round_s_calls():
    """benchmarks/bench_workers.py's per-round ratio: each round's one-worker time over its own other time, the
    median and range of those, not the fastest over the fastest (which here would be 1.0 / 0.5 = 2.0)."""
    code = ("import bench_workers as b\n"
            "print(*b.paired([1.0, 2.0, 1.6, 1.2], [0.55, 0.5, 1.0, 0.8]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=BENCH, capture_output=True, text=True, check=True)
    # ratios 1.0/0.55 = 1.8181..., 4.0, 1.6, 1.5: median (1.6 + 1.8181...) / 2, lowest 1.5, highest 4.0
    med, lo, hi = (float(x) for x in out.stdout.split())
    assert abs(med - (1.6 + 1.0 / 0.55) / 2) < 1e-12 and abs(lo - 1.5) < 1e-12 and abs(hi - 4.0) < 1e-12


def test_bench_workers_counts_the_time_outside_the_tasks_before_between_and_after_the_stages():
    """benchmarks/bench_workers.py's "outside the tasks": before the k-th task of the first stage begins, from a
    stage's last end to the next stage's k-th start, after the last end; a stage's uneven end is not counted.
    In a fresh process: importing the script sets its environment (one BLAS thread, no EVALCORE_WORKERS)."""
    code = ("import bench_workers as b\n"
            "print(b.outside_tasks(0.0, 12.0, [[(1.0, 5.0), (2.0, 6.0), (3.0, 4.0)], [(8.0, 10.0), (7.0, 9.5)]], 2))\n"
            "print(b.outside_tasks(0.0, 12.0, [[(1.0, 5.0)]], 4), b.outside_tasks(0.0, 1.0, [], 2))\n"
            "p = b.pieces(0.0, 12.0, [[(1.0, 5.0), (2.0, 6.0), (3.0, 4.0)], [(8.0, 10.0), (7.0, 9.5)]], 2)\n"
            "print(p['first'], p['kth'], p['between'], p['after'])\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=BENCH, capture_output=True, text=True, check=True)
    # 2 + (8 - 6) + (12 - 10); 1 + (12 - 5); no stages; --stages' pieces of the first: 1, 2 - 1, 8 - 6, 12 - 10
    assert out.stdout.split() == ["6.0", "8.0", "None", "1.0", "1.0", "2.0", "2.0"]
