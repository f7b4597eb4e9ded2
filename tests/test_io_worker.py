"""Uploads loaded in a worker process (dashboard.loader): the same collection and errors as a load in
the server's interpreter, a memory limit of its own, a queue position, and no worker left behind when
the waiting session goes away."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import evalcore
from dashboard.loader import load_in_worker
from evalcore.io import APP_LIMITS, InputError

QRELS = ("q.txt", b"q1 0 d1 1\nq1 0 d2 2\nq2 0 d1 1\n")
RUNS = [("a.txt", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\nq2 Q0 d3 1 1.0 x\n"), ("b.txt", b"q1 Q0 d2 1 1.0 x\n")]


def _all_children() -> set[int]:
    """Process ids whose parent is this process (Linux)."""
    me, out = str(os.getpid()), set()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if (p / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                    out.add(int(p.name))
            except (OSError, IndexError):
                pass
    return out


_BEFORE: set[int] = set()


@pytest.fixture(autouse=True)
def _children_of_other_tests():
    """The children this process had before the test: another test's (the meta-evaluation's worker pool,
    Dask's local cluster) stay alive for reuse, and under pytest-xdist a worker runs other files' tests
    before these, in any order. :func:`_children` counts only the ones started since."""
    _BEFORE.clear()
    _BEFORE.update(_all_children())
    yield


def _children() -> set[int]:
    """Children of this process started during the test (the load's worker), still alive."""
    return _all_children() - _BEFORE


def _big_qrels(lines: int = 1_500_000) -> tuple[str, bytes]:
    return ("big.txt", b"".join(b"%d 0 doc-%08d 1\n" % (i % 1000, i) for i in range(lines)))


def test_the_worker_returns_the_collection_a_load_in_process_gives():
    ref = evalcore.load_collection(QRELS, RUNS, limits=APP_LIMITS)
    seen = []
    c = load_in_worker(QRELS, RUNS, limits=APP_LIMITS, progress=seen.append)
    assert np.array_equal(c.levels, ref.levels) and np.array_equal(c.unjudged, ref.unjudged)
    assert np.array_equal(c.lengths, ref.lengths) and np.array_equal(c.level_counts, ref.level_counts)
    assert (c.run_ids, c.topic_ids, c.report.missing_run_topics) == (ref.run_ids, ref.topic_ids,
                                                                      ref.report.missing_run_topics)
    assert seen and seen[-1] == 1.0


def test_clef2015_through_the_worker_scores_as_in_process(clef2015):
    runs = sorted((clef2015 / "runs").iterdir())[:5]
    ref = evalcore.load_collection(clef2015 / "qrels.txt", runs)
    c = load_in_worker(str(clef2015 / "qrels.txt"), [str(p) for p in runs])
    assert np.array_equal(c.levels, ref.levels) and c.run_ids == ref.run_ids


def test_bad_input_is_the_same_input_error():
    bad = [("r.txt", b"q1 Q0 d1 1 nan x\n")]
    with pytest.raises(InputError) as here:
        evalcore.load_collection(QRELS, bad)
    with pytest.raises(InputError) as there:
        load_in_worker(QRELS, bad)
    assert str(there.value) == str(here.value)


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
def test_a_load_over_the_workers_memory_limit_is_a_readable_error():
    with pytest.raises(InputError, match="not enough memory|needs more than"):
        load_in_worker(_big_qrels(), RUNS, memory=500 << 20)
    assert not _children()


def test_a_session_that_goes_away_kills_its_worker():
    class Gone(BaseException):   # what Streamlit raises in a closed session's script thread
        pass

    def tick(seconds: float) -> None:
        if seconds > 0.3:
            raise Gone
    t = time.perf_counter()
    with pytest.raises(Gone):
        load_in_worker(_big_qrels(3_000_000), RUNS, tick=tick)
    assert time.perf_counter() - t < 30 and not _children()


def test_a_second_load_waits_for_the_first_and_sees_its_place(monkeypatch):
    """No timing assumed: the first load holds the one worker slot (as on a 2-core server) until the second has
    said it waits - its progress callback, called while its worker runs, blocks until then."""
    from dashboard import loader
    monkeypatch.setattr(loader, "_slots", threading.BoundedSemaphore(1))
    running, second_waits = threading.Event(), threading.Event()
    first_result: list = []

    def hold(_fraction: float) -> None:
        running.set()
        second_waits.wait(60)

    first = threading.Thread(target=lambda: first_result.append(load_in_worker(QRELS, RUNS[:1], progress=hold)))
    first.start()
    assert running.wait(60)               # the first load's worker runs: it has the slot
    places: list[int] = []

    def waiting(place: int) -> None:
        places.append(place)
        second_waits.set()

    c = load_in_worker(QRELS, RUNS, waiting=waiting)
    first.join(60)
    assert c.run_ids == ("a", "b") and first_result[0].run_ids == ("a",)
    assert places and set(places) == {1}


def test_uploads_reach_the_worker_as_files_not_through_the_pipe(tmp_path, monkeypatch):
    """The payload sent to the worker names the uploads by path (a few hundred bytes, not a pickled copy
    of the upload); the worker reads the same bytes back; the files are gone when the load ends."""
    import pickle

    from dashboard import loader

    monkeypatch.setenv("EVALCORE_LOAD_DIR", str(tmp_path))
    big = _big_qrels(50_000)
    runs = [RUNS[0], ("runs/b.txt", RUNS[1][1]), "/some/path.txt"]
    q, r, where = loader._payload(big, runs)
    try:
        assert len(pickle.dumps((q, r))) < 1000 < len(big[1])
        assert loader._unstage(q) == big and loader._unstage(r) == [RUNS[0], ("runs/b.txt", RUNS[1][1]),
                                                                  "/some/path.txt"]
    finally:
        import shutil
        shutil.rmtree(where)
    sent = []
    real = loader._start
    monkeypatch.setattr(loader, "_start", lambda payload: sent.append(len(pickle.dumps(payload))) or real(payload))
    ref = evalcore.load_collection(big, RUNS, limits=APP_LIMITS)
    c = load_in_worker(big, RUNS, limits=APP_LIMITS)
    assert np.array_equal(c.levels, ref.levels) and c.report.n_qrels_lines == ref.report.n_qrels_lines
    assert sent and sent[0] < 2000 and list(tmp_path.iterdir()) == []
    with pytest.raises(InputError) as e:                 # messages name the file as uploaded, not the path
        load_in_worker(("my qrels.txt", b"q1 0 d1 x\n"), RUNS)
    assert str(e.value).startswith("my qrels.txt, line 1:") and list(tmp_path.iterdir()) == []


def test_a_full_disk_sends_the_bytes_through_the_pipe(tmp_path, monkeypatch):
    from dashboard import loader

    monkeypatch.setenv("EVALCORE_LOAD_DIR", str(tmp_path / "missing"))   # mkdtemp fails: OSError
    assert loader._payload(QRELS, RUNS) == (QRELS, RUNS, None)
    c = load_in_worker(QRELS, RUNS)
    assert c.run_ids == ("a", "b")


def test_a_cancelled_load_leaves_no_files(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_LOAD_DIR", str(tmp_path))

    class Gone(BaseException):
        pass

    def tick(seconds: float) -> None:
        if seconds > 0.3:
            assert len(list(tmp_path.iterdir())) == 1     # the load's directory, while it runs
            raise Gone
    with pytest.raises(Gone):
        load_in_worker(_big_qrels(3_000_000), RUNS, tick=tick)
    assert list(tmp_path.iterdir()) == [] and not _children()


# -- a worker that dies, hangs or outlives its server --------------------------------------------------------
def _kill_worker_at_first_tick(sig):
    from dashboard import loader

    def tick(seconds: float) -> None:
        if not done:
            done.append(True)
            with loader._lock:
                procs = list(loader._workers)
            assert len(procs) == 1
            os.kill(procs[0].pid, sig)
    done: list[bool] = []
    return tick


def test_a_killed_worker_is_named_as_killed_and_a_retry_works():
    """SIGKILL (what the out-of-memory killer sends) was "these files could not be loaded () - fix: check that
    they are TREC / NTCIR qrels": the end of the pipe was read before the exit status."""
    import signal

    with pytest.raises(InputError) as e:
        load_in_worker(_big_qrels(), RUNS, tick=_kill_worker_at_first_tick(signal.SIGKILL))
    text = str(e.value)
    assert "worker process was killed (SIGKILL)" in text and "out-of-memory killer" in text, text
    assert "your files were not at fault" in text and "try again" in text and "TREC" not in text
    assert not _children()
    c = load_in_worker(QRELS, RUNS)                       # the retry gets a fresh worker and the slot
    assert c.run_ids == ("a", "b") and not _children()


def test_a_worker_stopped_by_another_signal_says_which():
    import signal

    with pytest.raises(InputError, match=r"worker process was stopped by SIGTERM \(15\)"):
        load_in_worker(_big_qrels(), RUNS, tick=_kill_worker_at_first_tick(signal.SIGTERM))
    assert not _children()


def test_a_worker_aborted_by_a_library_reads_as_short_of_memory():
    """A C or C++ library that cannot allocate under the worker's memory limit aborts (SIGABRT) instead of
    raising MemoryError (seen with the lowest supported versions): the message says memory, not "report it"."""
    import signal

    with pytest.raises(InputError, match=r"stopped by SIGABRT \(6\).*most likely needs more than") as e:
        load_in_worker(_big_qrels(), RUNS, tick=_kill_worker_at_first_tick(signal.SIGABRT))
    assert "EVALCORE_LOAD_MEMORY" in str(e.value) and not _children()


def test_a_hung_worker_times_out_and_the_queue_moves_on(monkeypatch):
    """A stopped worker (SIGSTOP) left its session counting seconds forever and every other session "1 upload
    ahead of this one": now the load ends at its time limit with a message, and the next one runs."""
    import signal

    from dashboard import loader

    monkeypatch.setattr(loader, "_slots", threading.BoundedSemaphore(1))   # one worker, as on a 2-core server
    errors: list[str] = []
    big = _big_qrels()

    def first() -> None:
        try:
            load_in_worker(big, RUNS, tick=_kill_worker_at_first_tick(signal.SIGSTOP), timeout=2)
        except InputError as e:
            errors.append(str(e))
    t = threading.Thread(target=first)
    t.start()
    deadline = time.time() + 30
    while not loader._workers and time.time() < deadline:   # the first load holds the one slot
        time.sleep(0.02)
    places: list[int] = []
    t0 = time.perf_counter()
    c = load_in_worker(QRELS, RUNS, waiting=places.append)
    t.join()
    assert c.run_ids == ("a", "b") and places and set(places) == {1}
    assert time.perf_counter() - t0 < 30
    assert errors and "the load took more than 2 s and was stopped" in errors[0]
    assert "EVALCORE_LOAD_TIMEOUT" in errors[0] and not _children()


def test_the_time_limit_grows_with_the_files_and_the_operator_caps_it(monkeypatch):
    """One slot on a 2-core server: a hung load of a few MB held every upload for 600 s. The limit is now a
    base plus an allowance per MB of text (compressed files counted at 6 x), at most EVALCORE_LOAD_TIMEOUT."""
    from dashboard.loader import time_limit

    mb = b"x" * 10**6
    for var in ("EVALCORE_LOAD_TIMEOUT", "EVALCORE_LOAD_SECONDS_PER_MB"):
        monkeypatch.delenv(var, raising=False)
    small = time_limit(("q.txt", mb), [("r1.txt", mb), ("r2.txt", mb)])
    assert small.seconds == 69.0 and "60 s to start plus 3 s per MB of text for these files' 3.0 MB" in small.how
    assert "at most 600 s (EVALCORE_LOAD_TIMEOUT)" in small.how and "compressed" not in small.how
    packed = time_limit(("q.txt", mb), [("runs.zip", 5 * mb)])
    assert packed.seconds == 60 + 3 * (1 + 6 * 5) and "counted at 6 x their size" in packed.how
    big = time_limit(("q.txt", b"x" * (200 * 10**6)), [])
    assert big.seconds == 600.0 and "capped at 600 s (EVALCORE_LOAD_TIMEOUT)" in big.how
    monkeypatch.setenv("EVALCORE_LOAD_TIMEOUT", "100")
    monkeypatch.setenv("EVALCORE_LOAD_SECONDS_PER_MB", "5")
    assert time_limit(("q.txt", mb), [("r.txt", mb)]).seconds == 70.0
    assert time_limit(("q.txt", 20 * mb), [("r.txt", mb)]).seconds == 100.0
    monkeypatch.setenv("EVALCORE_LOAD_TIMEOUT", "ten minutes")
    with pytest.raises(ValueError, match="EVALCORE_LOAD_TIMEOUT must be a number of seconds"):
        time_limit(("q.txt", mb), [])


def test_a_hung_load_stops_at_its_files_limit_saying_how_it_was_derived(monkeypatch, tmp_path):
    """No timeout argument: the limit the server gives these files, capped by the operator's setting."""
    import signal

    monkeypatch.setenv("EVALCORE_LOAD_TIMEOUT", "3")
    monkeypatch.delenv("EVALCORE_LOAD_SECONDS_PER_MB", raising=False)
    t0 = time.perf_counter()
    with pytest.raises(InputError) as e:
        load_in_worker(_big_qrels(), RUNS, tick=_kill_worker_at_first_tick(signal.SIGSTOP))
    text = str(e.value)
    assert 3 <= time.perf_counter() - t0 < 20 and not _children()
    assert "the load took more than 3 s and was stopped" in text, text
    assert "60 s to start plus 3 s per MB of text for these files' 31.3 MB, capped at 3 s (EVALCORE_LOAD_TIMEOUT)" \
        in text, text
    assert "most likely stuck" in text and "try again" in text and "EVALCORE_LOAD_SECONDS_PER_MB" in text


def test_the_pool_is_sized_to_the_cores_and_the_memory_budget():
    from dashboard.loader import pool_size

    sizes = [pool_size(c, b << 30, 4 << 30) for c, b in ((1, 64), (2, 64), (8, 64), (64, 64), (64, 3))]
    assert sizes == [1, 1, 4, 16, 1]


_SERVER = r"""
import os, signal, sys, threading, time
sys.path.insert(0, {root!r})
from dashboard import loader
fifo, pidfile = sys.argv[1], sys.argv[2]
loader._stage = lambda source, where, count: loader._OnDisk("q.txt", fifo)   # the worker blocks reading it
def tick(seconds):
    if not os.path.exists(pidfile):
        with loader._lock:
            pids = [p.pid for p in loader._workers]
        with open(pidfile + ".tmp", "w") as f:
            f.write(f"{{pids[0]}} {{next(iter(loader._staging))}}")
        os.replace(pidfile + ".tmp", pidfile)
t = threading.Thread(target=lambda: loader.load_in_worker(("q.txt", b"x"), [("r.txt", b"y")], tick=tick),
                     daemon=True)                      # as Streamlit's script threads
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))   # as Streamlit: stop, then the interpreter exits
t.start()
while t.is_alive():
    t.join(0.1)
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")       # a zombie waiting for init to reap it has ended


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_no_worker_outlives_its_server_and_staging_is_cleaned(how, tmp_path):
    import signal
    import subprocess
    import sys

    from dashboard import loader

    fifo, pidfile = tmp_path / "fifo", tmp_path / "pid"
    os.mkfifo(fifo)
    stage = tmp_path / "stage"
    stage.mkdir()
    root = str(Path(__file__).resolve().parents[1])
    server = subprocess.Popen([sys.executable, "-c", _SERVER.format(root=root), str(fifo), str(pidfile)],
                              env={**os.environ, "EVALCORE_LOAD_DIR": str(stage)})
    writer = -1
    try:
        deadline = time.time() + 60
        while not pidfile.exists() and time.time() < deadline and server.poll() is None:
            time.sleep(0.05)
        worker, where = pidfile.read_text().split()
        worker_pid = int(worker)
        assert Path(where).parent == stage and Path(where).name.startswith(f"evalcore-load-{server.pid}-")
        writer = -1
        while writer < 0 and time.time() < deadline:       # the worker has reached the FIFO (imports done):
            try:                                            # a writer can open it once a reader waits there
                writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.05)
        assert writer >= 0 and not _gone(worker_pid)       # blocked reading the FIFO: it would wait forever
        server.send_signal(getattr(signal, how))
        server.wait(10)
        t = time.time()
        while not _gone(worker_pid) and time.time() - t < 5:
            time.sleep(0.05)
        assert _gone(worker_pid) and time.time() - t < 2.0, f"the worker outlived its server by {time.time() - t:.1f} s"
    finally:
        if server.poll() is None:
            server.kill()
        if writer >= 0:
            os.close(writer)
    if how == "SIGTERM":
        assert list(stage.iterdir()) == []                 # removed on a normal stop
    else:
        assert [p.name for p in stage.iterdir()] == [Path(where).name]   # a killed server leaves it ...
        assert loader.sweep_stale(str(stage)) == [where]   # ... and the next server's start removes it
        assert list(stage.iterdir()) == []


# -- staged uploads of a dead server (dashboard.staging) -----------------------------------------------------
def _dead_pid() -> int:
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()                  # reaped: no process has this id now
    return p.pid


def _staged(root: Path, pid: int, tag: str) -> Path:
    d = root / f"evalcore-load-{pid}-{tag}"
    d.mkdir()
    (d / "1").write_bytes(b"x" * 1000)       # a staged upload
    return d


def test_the_sweep_removes_only_the_staging_of_servers_that_no_longer_run(tmp_path):
    """Two servers on one machine share the staging directory: only a dead server's directory goes - its id
    is no process's now, or the process holding the id started after the directory was written (reused)."""
    import subprocess
    import sys

    from dashboard import staging

    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = _staged(tmp_path, _dead_pid(), "a1")
        alive = _staged(tmp_path, live.pid, "b2")                 # another server, running now
        mine = _staged(tmp_path, os.getpid(), "c3")               # this server's own
        reused = _staged(tmp_path, live.pid, "d4")                # the id of a server dead for an hour, reused
        hour_ago = time.time() - 3600
        os.utime(reused, (hour_ago, hour_ago))
        other = tmp_path / "evalcore-loadx-1-e5"                  # not a staging directory's name
        other.mkdir()
        gone = staging.sweep_stale(str(tmp_path))
        assert sorted(gone) == sorted([str(dead), str(reused)])
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, mine.name, other.name])
        assert (alive / "1").read_bytes() == b"x" * 1000
    finally:
        live.kill()
        live.wait()


def test_a_new_server_removes_a_dead_servers_staging_at_its_first_page_run(tmp_path):
    """The sweep runs from app.py, before the rest of the dashboard is imported: a fresh interpreter runs the
    app once (as a new server's first page run) with a dead server's and a live server's staging beside it."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        dead = _staged(tmp_path, _dead_pid(), "a1")
        alive = _staged(tmp_path, live.pid, "b2")
        code = ("from streamlit.testing.v1 import AppTest\n"
                "import dashboard.staging as s\n"
                "assert s._done is None, 'swept before the app ran'\n"
                f"at = AppTest.from_file({str(root / 'app.py')!r}, default_timeout=120)\n"
                "at.run()\n"
                "assert not at.exception, [e.value for e in at.exception]\n"
                "print('SWEPT', s._done)\n")
        out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300,
                             env={**os.environ, "EVALCORE_LOAD_DIR": str(tmp_path)})
        assert out.returncode == 0, out.stderr[-2000:]
        assert f"SWEPT ['{dead}']" in out.stdout, out.stdout[-500:]
        assert [p.name for p in tmp_path.iterdir()] == [alive.name]
    finally:
        live.kill()
        live.wait()


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="Linux /proc")
def test_evalcore_app_removes_a_dead_servers_staging_before_it_serves(tmp_path):
    """``evalcore app`` sweeps before the server starts, with no browser connected (no page run): a dead
    server's staging is gone once the port listens, a live one's is kept."""
    import signal
    import socket
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[1]
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        port = so.getsockname()[1]
    server = None
    try:
        dead = _staged(tmp_path, _dead_pid(), "c3")
        alive = _staged(tmp_path, live.pid, "d4")
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "EVALCORE_LOAD_DIR": str(tmp_path)}
        argv = [sys.executable, "-m", "evalcore", "app", "--app-dir", str(root), "--port", str(port)]
        server = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        deadline = time.monotonic() + 90
        while True:
            with socket.socket() as so:
                if so.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        assert not Path(dead).exists() and Path(alive).exists()
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        live.kill()
        live.wait()
