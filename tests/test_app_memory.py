"""Memory within the server's budget (dashboard.budget): every cache bounded by bytes, uploads bounded and
released, stale work handed over to the newer move (docs/reliability.md, "Memory budget")."""
from __future__ import annotations

import gc
import html
import tracemalloc
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import evalcore
from dashboard import budget, closed_tabs, meta_store, stores
from dashboard.state import gain_keys
from evalcore import meta
from evalcore.collection import Collection

MiB = 1 << 20
APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_budget_derives_every_bound_from_the_server_memory():
    b = budget.budget(4 << 30, max_runs=500)
    assert (b.file_bytes, b.session_bytes, b.server_upload_bytes) == (512 * MiB, 512 * MiB, 1 << 30)
    assert (b.cache_bytes, b.collections_bytes, b.session_files, b.file_mb) == (256 * MiB, 512 * MiB, 501, 512)
    big = budget.budget(64 << 30)
    assert (big.file_bytes, big.cache_bytes, big.server_upload_bytes) == (1 << 30, 1 << 30, 16 << 30)
    assert budget.budget(256 * MiB).cache_bytes == 32 * MiB          # the floor of a cache
    assert (b.rows_bytes, big.rows_bytes, budget.budget(256 * MiB).rows_bytes) == (16 * MiB, 64 * MiB, 4 * MiB)
    assert budget.server_memory({"EVALCORE_SERVER_MEMORY_MB": "2048"}) == 2048 * MiB
    assert budget.server_memory({"EVALCORE_SERVER_PROCESSES": "1"}) == budget.machine_memory() > 0


def test_the_default_budget_is_the_machines_memory_shared_by_the_server_processes():
    """Told the process count: the machine's memory (physical, or the cgroup's limit) divided by it, said in the
    budget's words; the explicit memory setting wins over both."""
    total = budget.machine_memory()
    physical = __import__("os").sysconf("SC_PAGE_SIZE") * __import__("os").sysconf("SC_PHYS_PAGES")
    assert 0 < total <= physical
    m, how = budget.memory_and_source({"EVALCORE_SERVER_PROCESSES": "4"})
    assert m == total // 4
    assert f"{total // MiB:,} MB, shared by 4 server processes (EVALCORE_SERVER_PROCESSES=4)" in how
    assert budget.memory_and_source({"EVALCORE_SERVER_PROCESSES": "4", "EVALCORE_SERVER_MEMORY_MB": "1024"}) == (
        1024 * MiB, "set by EVALCORE_SERVER_MEMORY_MB")
    with pytest.raises(ValueError, match="EVALCORE_SERVER_PROCESSES must be a whole number of processes from 1"):
        budget.server_processes({"EVALCORE_SERVER_PROCESSES": "0"})


@pytest.mark.skipif(not Path("/proc/self/cmdline").is_file(), reason="Linux /proc")
def test_the_dashboard_servers_running_on_the_machine_are_found(tmp_path):
    """Processes whose command line runs this dashboard's app.py under streamlit (relative to their folder or
    absolute) are counted; another app.py (no dashboard/ beside it) and other programs are not."""
    import subprocess
    import sys
    import time

    root = Path(APP).parent
    other = tmp_path / "other"
    other.mkdir()
    (other / "app.py").write_text("")
    sleep = "import time; time.sleep(120)"
    before = budget.running_servers()
    procs = [subprocess.Popen([sys.executable, "-c", sleep, "streamlit", "run", APP, "--server.port=1"]),
             subprocess.Popen([sys.executable, "-c", sleep, "-m", "streamlit", "run", "app.py"], cwd=root),
             subprocess.Popen([sys.executable, "-c", sleep, "streamlit", "run", str(other / "app.py")]),
             subprocess.Popen([sys.executable, "-c", sleep, "app.py"], cwd=root)]
    try:
        time.sleep(0.5)
        assert budget.running_servers() == before + 2
        n, how = budget.server_processes({})
        assert n == max(1, before + 2) and how == f"{before + 2} dashboard server processes found running"
    finally:
        for p in procs:
            p.kill()
            p.wait()
    assert budget.running_servers() == before


def test_memory_freed_after_a_release_goes_back_to_the_system():
    """budget.return_to_os: 200 MB of 1 KB blocks (glibc's heap, below its mmap threshold) built and dropped
    but the last: without malloc_trim glibc keeps every freed page under that last block (RSS stays at the
    peak); after the call the process's RSS is within 50 MB of where it was before them."""
    import os
    if not Path("/proc/self/statm").is_file():
        pytest.skip("Linux /proc")

    def rss() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    budget.return_to_os()
    base = rss()
    blocks = [bytes(1000) + bytes([i % 256]) for i in range(200_000)]     # ~200 MB in 1 KB heap blocks
    keep = blocks[-1:]
    assert rss() > base + 100 * MiB
    del blocks
    budget.return_to_os()
    assert rss() < base + 50 * MiB, (rss() - base) / MiB
    assert keep


@pytest.mark.parametrize("raw", ["abc", "100", "-5", "1e9", "9" * 5000, "2048.5"])
def test_a_bad_memory_setting_is_refused_naming_it(raw):
    with pytest.raises(ValueError, match="EVALCORE_SERVER_MEMORY_MB must be a whole number of MB from 256"):
        budget.server_memory({"EVALCORE_SERVER_MEMORY_MB": raw})


def wide_collection(n_topics: int, n_runs: int, depth: int = 10, K: int = 3, seed: int = 0) -> Collection:
    """A wide collection built in memory (many topics, short lists): levels drawn at random, each topic's
    judged counts at least what any run retrieves of each level."""
    rng = np.random.default_rng(seed)
    levels = rng.choice(K + 1, size=(n_runs, n_topics, depth), p=[0.7, 0.15, 0.1, 0.05]).astype(np.int8)
    per = np.stack([(levels == L).sum(axis=2).max(axis=0) for L in range(K + 1)], axis=1)
    counts = per + rng.integers(0, 3, size=per.shape)
    counts[:, K] = np.maximum(counts[:, K], 1)
    return Collection(levels=levels, lengths=np.full((n_runs, n_topics), depth, dtype=np.int64),
                      level_counts=counts.astype(np.int64), run_ids=[f"run{i:02d}" for i in range(n_runs)],
                      topic_ids=[f"t{j}" for j in range(n_topics)])


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_thirty_gain_moves_on_a_wide_collection_stay_within_the_cache_budget(monkeypatch):
    """Every move is a new gain setting (a miss for each graded metric: 5 x 8 x runs x topics bytes of new
    scores, 1.6 MB here, which every page computes for the sidebar's metrics); with a 2 MiB budget per cache,
    30 moves leave the derived-array store within it and the traced memory (garbage collected) grows by at
    most the three byte-bounded caches' budgets plus a little, not by the ~40 MB that keeping 25 moves'
    scores would hold (74 MiB on the Rankings page with the former 2,048-entry score cache)."""
    cap = 2 * MiB
    monkeypatch.setattr(stores, "BUDGET", replace(stores.BUDGET, cache_bytes=cap))
    monkeypatch.setattr(meta_store, "RESULTS_MAX_BYTES", cap)
    monkeypatch.setattr(evalcore.metrics.cache, "max_bytes", cap)
    stores.derived.clear()
    meta_store._results.clear()
    evalcore.metrics.cache.clear()
    c = wide_collection(n_topics=1000, n_runs=40)
    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    at.session_state["uploaded"] = c
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    at.switch_page("views/data.py").run()      # the lightest page: every page scores the sidebar's metrics
    assert not at.exception, [e.message for e in at.exception]
    store = stores.derived()
    score_bytes = 8 * c.n_runs * c.n_topics
    values = np.round(np.linspace(3.05, 9.95, 30), 2)          # every move a value not seen before
    tracemalloc.start()
    try:
        seen = []
        for i, v in enumerate(values):
            at.number_input(key=gain_keys(at.session_state, c.max_level)[1]).set_value(float(v)).run()
            assert not at.exception, [e.message for e in at.exception]
            assert store.nbytes <= cap, (i, store.nbytes)
            gc.collect()                                    # count what is held, not garbage not collected yet
            if i == 4:
                base = tracemalloc.get_traced_memory()[0]   # after the first moves: the page's own working set
            seen.append(store.nbytes)
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    # the store is full and evicting, not empty (the moves did compute new scores)
    assert max(seen) > cap - 2 * score_bytes
    assert grown < 3 * cap + 6 * MiB, f"traced memory grew {grown / MiB:.0f} MiB over 25 moves"


def test_the_report_row_store_is_bounded_by_the_bytes_its_rows_hold():
    """The pages' summary rows are kept by bytes: a store of ``BUDGET.rows_bytes``' kind fed 100 seeds'
    bootstrap summaries (4 metrics x 3 alphas each) never counts more than its bound, is full and evicting,
    and what it counts is at least the memory its rows and keys really hold (tracemalloc, the reference;
    within 10 %) and at most about twice it (a row's column names and dtypes are shared with its summary's
    other rows, and counted with each). Kept as one-row frames, as before, a row held ~7 KB of pandas'
    structures and was counted as ~200 bytes."""
    from evalcore.meta import reuse

    rng = np.random.default_rng(1)
    scores = {m: rng.random((6, 20)) for m in ("AP", "Q-measure", "nDCG@10", "P-measure")}   # runs x topics
    kw = {"B": 50, "alpha": (0.05, 0.01, 0.1)}
    summaries = [meta.bootstrap_sensitivity(scores, B=50, seed=s, alpha=kw["alpha"]).summary for s in range(100)]
    digests = {m: reuse.digest(x, True) for m, x in scores.items()}
    probe = stores.Store(None, 10**9)
    reuse.keep_rows(probe, "bootstrap", scores, summaries[0], kw, seed=0, digests=digests)
    cap = 50 * probe.nbytes                                  # 600 rows' worth
    store = stores.Store(None, cap)
    tracemalloc.start()
    try:
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        for seed, summary in enumerate(summaries):
            reuse.keep_rows(store, "bootstrap", scores, summary, kw, seed=seed, digests=digests)
            assert store.nbytes <= cap
        del summary
        summaries.clear()                                    # what stays is what the store holds
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert 550 <= len(store) <= 600                          # full and evicting: the bound is the bytes
    assert held <= 1.1 * store.nbytes <= 2.2 * held, (held, store.nbytes)
    row = reuse.take_rows(store, "bootstrap", ["AP"], digests, 99, (0.05,), reuse.method_settings("bootstrap", kw)[1])
    plain = meta.bootstrap_sensitivity({"AP": scores["AP"]}, B=50, seed=99, alpha=0.05).summary
    pd.testing.assert_frame_equal(row["AP"][0], plain)       # the row given back is the plain call's


def _uploader_app():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("views/data.py").run()
    return at


def test_an_upload_over_the_session_budget_is_refused_and_released(monkeypatch):
    monkeypatch.setattr(stores, "BUDGET", replace(stores.BUDGET, session_bytes=1000))
    at = _uploader_app()
    at.file_uploader(key="up_qrels").set_value(("qrels.txt", b"1 0 d1 1\n" * 80, "text/plain"))
    at.file_uploader(key="up_runs").set_value([("r1.txt", b"1 Q0 d1 1 1.0 r1\n" * 60, "text/plain")])
    at.run()
    assert not at.exception
    errs = [html.unescape(e.value) for e in at.error]
    assert any("hold 0 MB" in e or "at most 0 MB" in e for e in errs), errs     # 1,740 bytes against 1,000
    assert any("compress the files" in e for e in errs), errs
    assert at.session_state["_up_generation"] == 1           # the uploader starts empty under a new key
    assert at.button(key="up_load").disabled


def test_the_server_bound_message_says_when_memory_is_really_released(monkeypatch):
    """It said uploads are released "as soon as ... their tab closes": Streamlit keeps a closed tab's session,
    files and all, for server.disconnectedSessionTTL (read from the running configuration) for a reconnect."""
    from streamlit import config as st_config

    monkeypatch.setattr(stores, "BUDGET", replace(stores.BUDGET, server_upload_bytes=100))
    before = st_config.get_option("server.disconnectedSessionTTL")
    try:
        for want in (120, 300):            # Streamlit's default, then an operator's setting
            if want != 120:
                st_config.set_option("server.disconnectedSessionTTL", want, "a server's config.toml")
            assert closed_tabs.session_ttl() == want
            _refused_for_the_server(want)
    finally:
        st_config.set_option("server.disconnectedSessionTTL", before, "<default>")


def _refused_for_the_server(want: int) -> None:
    at = _uploader_app()
    at.file_uploader(key="up_qrels").set_value(("qrels.txt", b"1 0 d1 1\n" * 80, "text/plain"))
    at.file_uploader(key="up_runs").set_value([("r1.txt", b"1 Q0 d1 1 1.0 r1\n" * 60, "text/plain")])
    at.run()
    errs = [html.unescape(e.value) for e in at.error]
    assert any("above its bound" in e for e in errs), errs
    msg = next(e for e in errs if "above its bound" in e)
    assert f"{want} to {want + 20} s after it closed" in msg and "server.disconnectedSessionTTL" in msg, msg
    assert "their tab closes" not in msg


def test_a_closed_tabs_uploads_are_released_after_the_session_timeout():
    """Streamlit's upload manager, as the server has it: files of a session without a connection go once it
    has been seen so for the session timeout; a connected session's, and one that reconnects, stay."""
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    mgr = MemoryUploadedFileManager("/_stcore/upload_file")
    for sid in ("open", "closed", "back"):
        mgr.add_file(sid, UploadedFileRec(file_id=f"{sid}-1", name="q.txt", type="text/plain", data=b"x" * 1000))
    active = {"open"}
    assert closed_tabs.release_closed(mgr, active.__contains__, 120, now=1000.0) == []     # first seen closed
    assert closed_tabs.release_closed(mgr, active.__contains__, 120, now=1119.0) == []     # not yet 120 s
    active.add("back")                                                                 # a reconnect
    assert closed_tabs.release_closed(mgr, active.__contains__, 120, now=1120.0) == ["closed"]
    assert sorted(mgr.file_storage) == ["back", "open"] and mgr._total_bytes == 2000
    active.discard("back")                                                             # closed again: 120 s anew
    assert closed_tabs.release_closed(mgr, active.__contains__, 120, now=1200.0) == []
    assert closed_tabs.release_closed(mgr, active.__contains__, 120, now=1320.0) == ["back"]
    assert list(mgr.file_storage) == ["open"]


def test_streamlit_alone_keeps_an_expired_closed_session():
    """Why the dashboard releases closed tabs' uploads itself: Streamlit's store of closed sessions (whose
    shutdown removes their files) keeps an expired one until the store is next written, another tab closing."""
    import time
    import weakref

    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.session_manager import SessionInfo

    class Session:
        id = "closed-tab"

    store = MemorySessionStorage(ttl_seconds=0.05)
    s = Session()
    store.save(SessionInfo(client=None, session=s, script_run_count=1))   # type: ignore[arg-type]
    ref = weakref.ref(s)
    del s
    time.sleep(0.1)
    gc.collect()
    assert store.get("closed-tab") is None          # expired: a reconnect gets a new session ...
    assert ref() is not None                        # ... but it is still held, and with it its files


def test_an_expired_closed_session_is_shut_down_and_freed():
    """closed_tabs.end_expired_sessions with Streamlit's own session manager and store: a closed tab's session stored
    for a reconnect is left alone within the timeout, shut down once it has passed (Streamlit alone keeps it
    until another write), and then nothing holds it."""
    import time
    import weakref

    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.runtime.session_manager import SessionInfo
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    class Session:
        id = "closed-tab"
        state = bytearray(10 * MiB)             # what the session holds
        shut = 0

        def shutdown(self):
            Session.shut += 1

    store = MemorySessionStorage(ttl_seconds=0.2)
    mgr = WebsocketSessionManager(store, MemoryUploadedFileManager("/_stcore/upload_file"), ScriptCache(), None)
    s = Session()
    store.save(SessionInfo(client=None, session=s, script_run_count=1))   # type: ignore[arg-type]
    ref = weakref.ref(s)
    del s
    assert closed_tabs.end_expired_sessions(mgr) == 0 and Session.shut == 0     # within the timeout: kept
    time.sleep(0.3)
    assert closed_tabs.end_expired_sessions(mgr) == 1 and Session.shut == 1
    gc.collect()
    assert ref() is None and store.list() == []
    assert closed_tabs.end_expired_sessions(mgr) == 0 and closed_tabs.end_expired_sessions(object()) == 0


def test_too_many_files_are_refused_with_the_bound(monkeypatch):
    monkeypatch.setattr(stores, "BUDGET", replace(stores.BUDGET, session_files=3))
    at = _uploader_app()
    at.file_uploader(key="up_qrels").set_value(("qrels.txt", b"1 0 d1 1\n", "text/plain"))
    at.file_uploader(key="up_runs").set_value([(f"r{i}.txt", b"1 Q0 d1 1 1.0 r\n", "text/plain") for i in range(3)])
    at.run()
    errs = [html.unescape(e.value) for e in at.error]
    assert any("4 files chosen; one upload takes at most 3 (one qrels file and 2 runs)" in e for e in errs), errs


def test_a_loaded_upload_releases_its_files_and_clears_the_uploader():
    at = _uploader_app()
    at.file_uploader(key="up_qrels").set_value(("qrels.txt", b"1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n", "text/plain"))
    runs = [(f"r{i}.txt", f"1 Q0 d1 1 {i}.5 r{i}\n1 Q0 d2 2 0.5 r{i}\n2 Q0 d3 1 1.0 r{i}\n".encode(), "text/plain")
            for i in range(3)]
    at.file_uploader(key="up_runs").set_value(runs)
    at.run()
    at.button(key="up_load").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["uploaded"].n_runs == 3
    assert at.session_state["_up_generation"] == 1
    # the next run draws empty uploaders under new keys; the old ones' values are gone from the session
    assert at.file_uploader(key="up_qrels~1").value is None
    assert not any(k in at.session_state for k in ("up_qrels", "up_runs"))


def test_stale_resampling_hands_over_to_the_newer_move():
    """A move arriving while the bootstrap runs: its progress callback cancels between chunks and Streamlit
    reruns with the newer move; nothing of the stale result is kept."""
    def script():
        import streamlit as st

        from dashboard import meta_store, progress
        from evalcore import meta
        ss = st.session_state
        ss["runs"] = ss.get("runs", 0) + 1
        if ss["runs"] == 1:
            from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
            from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
            rng = __import__("numpy").random.default_rng(0)
            sc = {"M": rng.random((30, 50))}
            steps = []

            def newer_move_arrives(f):
                steps.append(f)
                if len(steps) == 2:
                    get_script_run_ctx().script_requests.request_rerun(RerunData())

            ss["steps"] = steps
            meta_store._stale_to_rerun(meta.bootstrap_sensitivity, sc, B=2000, seed=0,
                                       progress=progress.cancellable(newer_move_arrives))
            ss["finished"] = True
        st.write("done")

    at = AppTest.from_function(script, default_timeout=120)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["runs"] == 2                     # the newer move ran
    assert "finished" not in at.session_state                # the stale one stopped
    assert len(at.session_state["steps"]) == 2               # right after the move arrived, not at the end


@pytest.mark.slow
def test_a_real_server_releases_closed_tabs_uploads_and_sweeps_a_dead_servers_staging(tmp_path):
    """The server as `evalcore app` starts it (benchmarks/dashboard_load.py's protocol client as the tabs), with
    an operator's 256 MB budget (64 MB of uploads held at once) and server.disconnectedSessionTTL = 20: a dead
    server's staging is gone before any page run (the command sweeps before it starts the server); two tabs
    hold 28 MB each without loading and close; a third tab's 10 MB is refused saying when memory comes back;
    50 s after the two closed, a 10 MB upload is taken.
    With Streamlit alone the 56 MB stayed held and the last upload was refused too."""
    import asyncio
    import subprocess
    import sys

    pytest.importorskip("websockets")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    dashboard_load = pytest.importorskip("dashboard_load")

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"evalcore-load-{dead.pid}-x"
    stale.mkdir()
    (stale / "1").write_bytes(b"x" * 1000)
    dashboard_load.Server.env = {"EVALCORE_LOAD_DIR": str(tmp_path), "EVALCORE_SERVER_MEMORY_MB": "256"}
    try:
        server = dashboard_load.Server(["--server.disconnectedSessionTTL", "20"])
    finally:
        dashboard_load.Server.env = {}

    def qrels(mb: int) -> bytes:
        return b"".join(b"%d 0 doc%07d 1\n" % (i % 50, i) for i in range(mb * 10**6 // 17))

    async def tab(mb: int, name: str):
        s = await dashboard_load.open_session(server.url, 60, page="")
        await s.rerun("data")
        await s.upload("up_qrels", [(name, qrels(mb))])
        await s.rerun("data")
        return s, [html.unescape(e) for e in s.error_boxes]

    async def scenario() -> dict:
        out: dict = {}
        a, out["a"] = await tab(28, "a.txt")
        out["stale_after_first_run"] = stale.exists()
        b, out["b"] = await tab(28, "b.txt")
        c, out["c"] = await tab(10, "c.txt")
        for s in (c, a, b):
            await s.__aexit__()
        await asyncio.sleep(50)
        d, out["d"] = await tab(10, "d.txt")
        await d.__aexit__()
        return out

    try:
        assert not stale.exists()                  # swept by evalcore app before the server started
        out = asyncio.run(scenario())
    finally:
        server.stop()
    assert out["stale_after_first_run"] is False
    assert out["a"] == [] and out["b"] == [], out
    refused = " ".join(out["c"])
    assert "above its bound of 64 MB" in refused and "20 to 40 s after it closed" in refused, refused
    assert out["d"] == [], out["d"]             # (the client keeps the first 300 characters of a message)
