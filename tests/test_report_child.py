"""The Report page's build (``evalcore report``'s experiment) in a child interpreter (dashboard.compute.report_in_child,
routed by dashboard.meta_store.report_build): the same files byte for byte as in the server's thread, its steps
drawn, the kept rows taken and the new ones brought back, a cancel kills the child, the command's refusals are
InputErrors as before, and the page builds through the child with nothing on screen but the report.

The threshold is forced low through the server setting users have (``EVALCORE_COMPUTE_SECONDS=0``)."""
from __future__ import annotations

import io
import zipfile

import pytest

pytest.importorskip("streamlit")
from test_io_worker import _children, _children_of_other_tests  # noqa: E402,F401 - the fixture is autouse

import evalcore  # noqa: E402
from dashboard import compute, meta_store, stores  # noqa: E402
from evalcore import meta  # noqa: E402
from evalcore.io import InputError  # noqa: E402

ARGV = ["--simulated", "--topics", "10", "--systems", "6", "--seed-data", "4", "--B", "30", "--tukey-B", "40",
        "--repeats", "2", "--seed", "7", "--topic-resamples", "4", "--topic-B", "20", "--topic-seed", "3", "--top", "5",
        "--out", "evalcore-report", "--quiet"]
#: long enough to cancel while it runs (seconds in a child)
LONG = ["--simulated", "--topics", "50", "--systems", "40", "--B", "2000", "--tukey-B", "5000", "--repeats", "5",
        "--topic-resamples", "50", "--topic-B", "500", "--out", "evalcore-report", "--quiet"]


@pytest.fixture
def fresh(monkeypatch):
    """Fresh result and row stores (nothing built before is looked up) and the server's settings unset."""
    results, rows = stores.Store(256), stores.Store(None, 1 << 30)
    monkeypatch.setattr(meta_store, "_results", lambda: results)
    monkeypatch.setattr(meta_store, "_rows", lambda: rows)
    for var in ("EVALCORE_COMPUTE_SECONDS", "EVALCORE_COMPUTE_WORKERS", "EVALCORE_COMPUTE_MEMORY",
                "EVALCORE_COMPUTE_BUDGET", "EVALCORE_COMPUTE_INPROCESS"):
        monkeypatch.delenv(var, raising=False)
    return results, rows


def _unzipped(files: dict) -> tuple[dict, dict]:
    """The files but the zip, and the zip's members (a zip's bytes carry the time it was written)."""
    with zipfile.ZipFile(io.BytesIO(files["evalcore-report.zip"])) as z:
        members = {n: z.read(n) for n in z.namelist()}
    return {n: b for n, b in files.items() if n != "evalcore-report.zip"}, members


def test_a_report_built_in_the_child_is_the_threads_byte_for_byte(fresh, monkeypatch):
    results, rows = fresh
    c = evalcore.simulated_collection(n_topics=10, n_runs=6, seed=4)
    before = compute.started()
    steps_here: list = []
    here = meta_store.report_build(c, ARGV, progress=lambda f, m: steps_here.append((f, m)))
    assert compute.started() == before          # a small report: its work is below the default threshold
    kept_here = len(rows)
    rows.clear()
    results.clear()
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    steps: list = []
    there = meta_store.report_build(c, ARGV, progress=lambda f, m: steps.append((f, m)))
    assert compute.started() == before + 1 and not _children()
    assert _unzipped(there[1]) == _unzipped(here[1])
    assert sorted(there[1]) == sorted(here[1])
    assert there[0].findings == here[0].findings
    # every step's fraction and message reached the callback
    assert [m for _, m in steps if m] == [m for _, m in steps_here]
    # the rows the child computed are kept in the server's store, as a build in the thread keeps them
    assert len(rows) == kept_here > 0


def test_the_child_takes_the_kept_rows_and_computes_only_the_rest(fresh, monkeypatch):
    results, rows = fresh
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=10, n_runs=6, seed=4)
    first = meta_store.report_build(c, ARGV)
    sent, back = [], []
    real = compute.report_in_child

    def spy(c, argv, rows, **kw):
        sent.append(len(rows))
        out = real(c, argv, rows, **kw)
        back.append(len(out[2]))
        return out
    monkeypatch.setattr(compute, "report_in_child", spy)
    results.clear()                              # built again: every row is found, none computed
    again = meta_store.report_build(c, ARGV)
    assert sent == [len(rows)] and back == [0]
    assert _unzipped(again[1]) == _unzipped(first[1])


def test_inprocess_keeps_the_report_in_the_thread(fresh, monkeypatch):
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    monkeypatch.setenv("EVALCORE_COMPUTE_INPROCESS", "1")
    before = compute.started()
    meta_store.report_build(evalcore.simulated_collection(n_topics=10, n_runs=6, seed=4), ARGV)
    assert compute.started() == before


def test_options_the_command_refuses_are_input_errors(fresh, monkeypatch):
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=10, n_runs=6, seed=4)
    with pytest.raises(InputError, match="--rel-threshold must be a level in 1..3"):   # refused in the child
        meta_store.report_build(c, [*ARGV, "--rel-threshold", "9"])
    assert not _children()


def test_a_report_over_the_childs_memory_limit_is_a_readable_error(fresh, monkeypatch):
    """The build runs under the child's address-space limit (EVALCORE_COMPUTE_MEMORY): a report whose bootstrap
    needs more (200 topics, B = 100,000: its topic samples alone are 160 MB a copy) ends in an error naming the
    limit and what to do, with the child gone and nothing kept."""
    results, rows = fresh
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    monkeypatch.setenv("EVALCORE_COMPUTE_MEMORY", str(600 << 20))
    c = evalcore.simulated_collection(n_topics=200, n_runs=6, seed=5)
    big = ["--simulated", "--topics", "200", "--systems", "6", "--B", "100000", "--tukey-B", "40", "--repeats", "1",
           "--topic-resamples", "2", "--topic-B", "20", "--out", "evalcore-report", "--quiet"]
    before = compute.started()
    with pytest.raises(InputError) as e:
        meta_store.report_build(c, big, progress=lambda f, m: None)
    text = str(e.value)
    assert "this computation needs more than 600 MiB" in text and "EVALCORE_COMPUTE_MEMORY" in text, text
    assert compute.started() == before + 1 and not _children() and len(rows) == 0


def test_a_cancel_kills_the_child(fresh, monkeypatch):
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=50, n_runs=40, seed=1)
    pids: list[int] = []

    def progress(frac: float, msg):
        pids.extend(_children())
        return True if msg and not msg.startswith("scoring") else None
    with pytest.raises(meta.Cancelled):
        meta_store.report_build(c, LONG, progress=progress)
    assert pids and not _children()


def test_a_progress_callback_that_raises_kills_the_child_and_passes_through(fresh, monkeypatch):
    """What Streamlit does to a Stop's, a rerun's or a closed tab's script thread: raise at the next draw."""
    class Gone(BaseException):
        pass

    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=50, n_runs=40, seed=1)

    def progress(frac: float, msg):
        if _children():
            raise Gone
    with pytest.raises(Gone):
        meta_store.report_build(c, LONG, progress=progress)
    assert not _children()


def test_the_report_page_builds_through_the_child(monkeypatch):
    from test_app_report import _app_report

    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    before = compute.started()
    at = _app_report({"nt": "10", "nr": "5", "seed": "9"})     # no exception and no error on screen
    assert compute.started() > before and not _children()
    assert "## Table 7" in at.session_state["_report"][0]["report.md"].decode()
