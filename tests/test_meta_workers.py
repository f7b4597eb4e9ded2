"""The resampling methods on worker processes (evalcore.meta._workers).

Exact equality of tables is the rule here for the reason given in test_meta_threads.py: no float in these
tables is summed in an order that depends on the workers (exact products, disjoint slices, integer counts,
maxima, one random stream per 10 Tukey trials). A worker process runs the same kernels on the same values
as the calling thread, so one worker and two worker processes must give the same bits. The process path
is forced with ``process_work=0``, the argument users have to move the crossover.
"""
from __future__ import annotations

import glob
import importlib
import os
import threading

import numpy as np
import pytest

from evalcore.meta import (
    Cancelled,
    bootstrap_sensitivity,
    pair_statistics,
    repeat,
    stability,
    swap_method,
    tukey_hsd,
)
from evalcore.meta import _workers as W

pytest.importorskip("joblib")


def _scores(seed: int = 0, n_runs: int = 14, n_topics: int = 25) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.beta(0.6, 1.2, size=(n_runs, n_topics))
    b = np.round(rng.random((n_runs, n_topics)), 1)   # many ties
    b[3] = b[2]                                       # identical runs
    b[5] = b[4] + 0.25                                # a constant difference
    return {"A": a, "B": b}


def _leftovers() -> set[str]:
    """This process's shared files (other processes, such as a parallel test run, have their own pid)."""
    return {p for d in ("/dev/shm", W.tempfile.gettempdir())
            for p in glob.glob(os.path.join(d, f"evalcore-{os.getpid()}-*.shared"))}


@pytest.fixture(autouse=True)
def _no_worker_settings(monkeypatch):
    monkeypatch.delenv(W.WORKERS_ENV, raising=False)
    monkeypatch.delenv("EVALCORE_THREADS", raising=False)


CASES = [
    ("bootstrap", lambda s, **kw: bootstrap_sensitivity(s, B=300, seed=4, alpha=(0.05, 0.01), **kw),
     ("pairs", "summary", "asl_curves")),
    ("stability", lambda s, **kw: stability(s, B=120, seed=3, **kw), ("summary", "pairs")),
    ("stability, general path", lambda s, **kw: stability({"N": -s["A"], **s}, B=97, seed=5, replacement=True,
                                                         fuzziness=(0.0, 0.3), **kw), ("summary", "pairs")),
    ("swap", lambda s, **kw: swap_method(s, B=101, seed=1, **kw), ("curves", "summary")),
    ("swap, 004", lambda s, **kw: swap_method(s, B=64, seed=2, sampling="disjoint", rule="004", **kw),
     ("curves", "summary")),
    ("tukey", lambda s, **kw: tukey_hsd(s, B=257, seed=9, alpha=(0.05, 0.01), **kw), ("pairs", "summary")),
    ("pairs", lambda s, **kw: pair_statistics({**s, "C": np.where(s["A"] > 0.9, np.nan, s["A"])}, B=200, seed=2,
                                              **kw), ("pairs",)),
    ("pairs, two tests", lambda s, **kw: pair_statistics(s, tests=("t", "sign"), **kw), ("pairs",)),   # NaN columns
]


@pytest.mark.parametrize("name, fn, tables", CASES, ids=[c[0] for c in CASES])
def test_two_worker_processes_give_one_worker_s_tables_bit_for_bit(name, fn, tables):
    s = _scores(1)
    before = _leftovers()
    one = fn(s, workers=1)
    two = fn(s, workers=2, process_work=0)
    for t in tables:
        assert getattr(two, t).equals(getattr(one, t)), t
    if name == "tukey":
        assert all(np.array_equal(two.ranges[m], one.ranges[m]) for m in s)
    assert _leftovers() <= before                     # the shared file is gone after the call


def test_the_process_path_runs_in_other_processes_and_cleans_up():
    how = W.plan("swap", 1, workers=2, process_work=0)
    assert how == W.Plan("processes", 2)
    arrays = {"x": np.arange(10.0), "out": np.zeros(10)}

    def task(a, job, cache):                          # sent by value (cloudpickle)
        a["out"][job] = a["x"][job] * 2
        return os.getpid()

    with W.Runner(how, arrays, outputs=["out"]) as run:
        path = run._shared.path
        assert os.path.exists(path)
        pids = run.map(task, range(10))
    assert os.getpid() not in pids
    assert arrays["out"].tolist() == [2.0 * i for i in range(10)]
    assert not os.path.exists(path)


def _wait_for(path: str, seconds: float) -> bool:
    """True once ``path`` exists (sent by value to the workers; a module function of a test file is not
    importable there)."""
    import os as _os
    import time as _time
    end = _time.monotonic() + seconds
    while _time.monotonic() < end:
        if _os.path.exists(path):
            return True
        _time.sleep(0.01)
    return False


def test_meanwhile_runs_in_the_calling_thread_while_the_worker_processes_run(tmp_path):
    """The calling thread's ``meanwhile`` work overlaps with the tasks on worker processes: it runs once they
    are submitted (each task waits for the file it writes, and would time out if it ran after them)."""
    marker = str(tmp_path / "made")
    seen: list = []

    def meanwhile():
        seen.append(threading.get_ident())
        open(marker, "w").close()

    wait_for = _wait_for
    with W.Runner(W.Plan("processes", 2), {"x": np.zeros(2)}) as run:
        got = run.map(lambda a, job, cache: wait_for(marker, 60), range(4), meanwhile=meanwhile)
    assert got == [True] * 4
    assert seen == [threading.get_ident()]


def test_meanwhile_waits_until_the_first_round_of_tasks_has_begun():
    """``meanwhile``'s Python work holds the GIL, which the pool's threads need to hand the tasks to the
    workers: it starts once a task runs in each worker. The interpreter's switch interval is raised for the
    test so that a ``meanwhile`` started at once would keep the GIL to its end and the tasks would begin after
    it (the order this test refuses); with the wait, both workers' first tasks begin before it ends. The first
    round's tasks last 1 s, so that the wait's other end (a task has ended) cannot come first on a loaded
    machine where the second worker takes its task late."""
    import sys
    import time

    spans: list = []

    def start_time(a, job, cache) -> float:
        import time as _time
        t = _time.monotonic()
        if job == "first round":
            _time.sleep(1.0)
        return t

    def meanwhile():                           # pure Python: keeps the GIL for 0.3 s
        t0 = time.monotonic()
        while time.monotonic() - t0 < 0.3:
            pass
        spans.append((t0, time.monotonic()))

    with W.Runner(W.Plan("processes", 2), {"x": np.zeros(2)}) as run:
        run.map(start_time, range(2))         # the pool started and the function's module imported
        old = sys.getswitchinterval()
        sys.setswitchinterval(10.0)
        try:
            starts = run.map(start_time, ["first round"] * 2 + ["second round"] * 2, meanwhile=meanwhile)
        finally:
            sys.setswitchinterval(old)
    (t0, t1), = spans
    assert sorted(starts)[1] < t1 - 0.2, (starts, t0, t1)    # the first two tasks began, not after its end


def _mapped_in(pid: int) -> bool:
    """Whether process ``pid`` maps a shared file of a call made by this process."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            return f"evalcore-{os.getpid()}-" in f.read()
    except FileNotFoundError:              # the worker ended: nothing mapped
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads /proc/PID/maps (Linux)")
def test_an_idle_worker_drops_the_calls_shared_file():
    """A worker unmaps a call's shared file RELEASE_AFTER seconds after its last task there (so that the
    unmapping happens while it is idle, not before the next call's first task); while the call runs it keeps it."""
    import time

    def pid_while_mapped(a, job, cache):
        import os as _os
        import time as _time
        _time.sleep(0.05)
        return _os.getpid(), f"evalcore-{_os.getppid()}-" in open(f"/proc/{_os.getpid()}/maps").read()

    with W.Runner(W.Plan("processes", 2), {"x": np.zeros(2)}) as run:
        got = run.map(pid_while_mapped, range(6))
    assert all(mapped for _, mapped in got)
    pids = {p for p, _ in got}
    end = time.monotonic() + 10 * W.RELEASE_AFTER + 5
    while time.monotonic() < end and any(_mapped_in(p) for p in pids):
        time.sleep(0.02)
    assert not any(_mapped_in(p) for p in pids)


def test_the_inputs_reach_the_shared_file_as_they_are():
    """The call's inputs are copied into its shared file as they are: strided, Fortran-ordered, empty and
    odd-sized arrays come back with their values, shapes and dtypes; fresh ones are not copied (zeros)."""
    rng = np.random.default_rng(5)
    arrays = {"strided": rng.random((7, 9))[:, ::2], "fortran": np.asfortranarray(rng.random((5, 3))),
              "empty": np.zeros((0, 4)), "odd": np.arange(13, dtype=np.int8), "fresh": np.full(3, 7.0),
              ("key", 1): rng.integers(0, 10**9, 4097)}
    with W.Runner(W.Plan("processes", 2), dict(arrays), fresh=["fresh"]) as run:
        for name, a in arrays.items():
            view = run.arrays[name]
            assert view.shape == a.shape and view.dtype == a.dtype
            if name == "fresh":
                assert not view.any()                      # a new file reads as zeros
            else:
                np.testing.assert_array_equal(view, a)


@pytest.mark.parametrize("count", [1, 2])
def test_meanwhile_on_threads_runs_before_the_tasks(count):
    """On threads (which share the GIL that ``meanwhile``'s Python work holds) it runs first, once."""
    order: list = []
    with W.Runner(W.Plan("threads", count), {"x": np.zeros(2)}) as run:
        run.map(lambda a, job, cache: order.append(job), range(4), meanwhile=lambda: order.append("meanwhile"))
    assert order[0] == "meanwhile" and sorted(order[1:]) == [0, 1, 2, 3]


def test_an_error_in_meanwhile_propagates_after_the_running_tasks_end(tmp_path):
    before = _leftovers()
    start, done = str(tmp_path / "start"), str(tmp_path / "done")

    def task(a, job, cache):
        import time as _time
        open(start + str(job), "w").close()
        _time.sleep(0.3)
        open(done + str(job), "w").close()

    wait_for = _wait_for

    def meanwhile():                                  # once both tasks run, an error
        assert wait_for(start + "0", 60) and wait_for(start + "1", 60)
        raise ValueError("table")

    with pytest.raises(ValueError, match="table"):
        with W.Runner(W.Plan("processes", 2), {"x": np.zeros(2)}) as run:
            run.map(task, range(2), meanwhile=meanwhile)
    assert os.path.exists(done + "0") and os.path.exists(done + "1")     # the running tasks ended first
    assert _leftovers() <= before


def test_evalcore_workers_1_runs_everything_in_the_calling_thread(monkeypatch):
    monkeypatch.setenv(W.WORKERS_ENV, "1")
    assert W.plan("bootstrap", 10**12) == W.Plan("threads", 1)
    assert W.plan("bootstrap", 10**12, process_work=0) == W.Plan("threads", 1)

    def no_pool(n):
        raise AssertionError("a worker process was asked for")

    monkeypatch.setattr(W, "pool_executor", no_pool)
    where = set()
    s = _scores(2)
    ref = bootstrap_sensitivity(s, B=200, seed=1, workers=1)
    got = bootstrap_sensitivity(s, B=200, seed=1, process_work=0, progress=lambda f: where.add(threading.get_ident()))
    assert got.pairs.equals(ref.pairs) and where == {threading.get_ident()}
    # the argument wins over the environment
    assert W.plan("bootstrap", 10**12, workers=3) == W.Plan("processes", 3)


def test_worker_counts_and_crossovers_are_checked(monkeypatch):
    s = _scores()
    for bad in ("0", "-2", "x", "2.5", "1025", "two"):
        monkeypatch.setenv(W.WORKERS_ENV, bad)
        with pytest.raises(ValueError, match="environment variable EVALCORE_WORKERS must be a whole number from 1 "
                                             f"to 1,024; got '{bad}'"):
            swap_method(s, B=10)
    monkeypatch.delenv(W.WORKERS_ENV)
    for bad in (0, -1, 1.5, True, 1025, "4"):
        with pytest.raises(ValueError, match="workers must be a whole number from 1 to 1,024"):
            stability(s, B=10, workers=bad)
    for bad in (-1, 2.5, "0", True):
        with pytest.raises(ValueError, match="process_work must be a whole number >= 0"):
            tukey_hsd(s, B=10, process_work=bad)
    with pytest.raises(ValueError, match="give workers= or threads=, not both"):
        bootstrap_sensitivity(s, B=10, workers=2, threads=2)
    with pytest.raises(ValueError, match="give workers= or threads=, not both"):
        repeat("swap", s, repeats=2, B=10, workers=2, threads=2)


def test_threads_keep_their_meaning_and_the_default_picks_by_size(monkeypatch):
    """threads= (and EVALCORE_THREADS) never start processes; by default a large call goes to processes
    and a small one to the thread path's default (one thread on small data)."""
    P = W._parallel
    monkeypatch.setattr(P, "machine_threads", lambda: 8)
    assert W.plan("stability", 10**12, threads=4) == W.Plan("threads", 4)
    assert W.plan("stability", 10**12) == W.Plan("processes", 8)
    assert W.plan("stability", 1000) == W.Plan("threads", 1)
    assert W.plan("tukey", W.PROCESS_WORK["tukey"] - 1) == W.Plan("threads", 8)     # Tukey's threads scale
    monkeypatch.setenv("EVALCORE_THREADS", "3")
    assert W.plan("swap", 10**12) == W.Plan("threads", 3)                           # as before: threads only
    monkeypatch.setenv(W.WORKERS_ENV, "2")
    assert W.plan("swap", 10**12) == W.Plan("processes", 2)                         # EVALCORE_WORKERS wins


def test_a_call_from_another_thread_stays_on_threads(monkeypatch):
    """A server's request thread (the dashboard runs each session's script in one) never starts worker
    processes, even when the work or process_work=0 asks for them."""
    def no_pool(n):
        raise AssertionError("a worker process was asked for")

    monkeypatch.setattr(W, "pool_executor", no_pool)
    got: dict = {}

    def in_thread():
        got["plan"] = W.plan("bootstrap", 10**12, workers=4, process_work=0)
        got["result"] = bootstrap_sensitivity(_scores(4), B=100, seed=2, workers=2, process_work=0)

    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    assert got["plan"].kind == "threads"
    assert got["result"].pairs.equals(bootstrap_sensitivity(_scores(4), B=100, seed=2, workers=1).pairs)


def test_a_killed_process_s_shared_file_is_removed_by_the_next_one(tmp_path, monkeypatch):
    dead = tmp_path / "evalcore-999999999-abc.shared"          # no process has this pid
    live = tmp_path / f"evalcore-{os.getpid()}-abc.shared"
    other = tmp_path / "evalcore-notapid.shared"
    for f in (dead, live, other):
        f.write_bytes(b"x")
    monkeypatch.setattr(W, "_shared_dir", lambda nbytes: str(tmp_path))
    with W.Runner(W.Plan("processes", 2), {"x": np.zeros(3)}) as run:
        assert run._shared.path.startswith(str(tmp_path))
    assert not dead.exists() and live.exists() and other.exists()


def test_a_cancel_on_processes_stops_and_leaves_no_shared_file():
    s = _scores(3, n_runs=30)
    before = _leftovers()
    for fn in (bootstrap_sensitivity, stability, swap_method, tukey_hsd, pair_statistics):
        with pytest.raises(Cancelled):
            fn(s, B=100, workers=2, process_work=0, progress=lambda f: f >= 0.3)
    assert _leftovers() <= before


def test_repeat_passes_workers_to_each_repetition():
    s = _scores(7)
    a = repeat("stability", s, repeats=2, B=60, seed=1, workers=1)
    b = repeat("stability", s, repeats=2, B=60, seed=1, workers=2, process_work=0)
    assert a.spread.equals(b.spread) and a.per_repeat.equals(b.per_repeat)


#: the module evalcore.meta.repeat (the package exports its function of the same name)
_REPEAT = importlib.import_module("evalcore.meta.repeat")


@pytest.mark.parametrize("method, B", [("bootstrap", 40), ("swap", 30), ("stability", 30), ("tukey", 50)])
def test_repetitions_below_the_crossover_one_by_one_go_to_the_pool_together(method, B, monkeypatch):
    """14 runs (91 pairs), 2 metrics: one call's work is 91 x B (B x 14 x 25 for Tukey); a crossover between
    one call and the four repetitions together sends the repetitions, one per task, to worker processes,
    and the tables are one worker's bit for bit."""
    s = _scores(8)
    unit = B * 14 * 25 if method == "tukey" else B * 91
    limit = 2 * unit                   # above one call, below 4 repetitions x 2 metrics / 2
    R = _REPEAT
    kw = {"B": B, "workers": 2, "process_work": limit}
    assert R.repetitions_plan(method, s, 4, kw) == W.Plan("processes", 2)
    assert R.repetitions_plan(method, s, 1, {"B": B, "workers": 2, "process_work": limit}) is None
    assert R.repetitions_plan(method, s, 4, {"B": B, "workers": 2, "process_work": unit}) is None   # calls go
    assert R.repetitions_plan(method, s, 4, {"B": B, "threads": 2, "process_work": limit}) is None
    assert R.repetitions_plan(method, s, 4, {"B": B, "workers": 1, "process_work": limit}) is None
    seen, pools, real = [], [], R.on_workers
    monkeypatch.setattr(R, "on_workers", lambda *a: pools.append(a[4]) or real(*a))
    one = repeat(method, s, repeats=4, B=B, seed=3, workers=1)
    two = repeat(method, s, repeats=4, B=B, seed=3, workers=2, process_work=limit, progress=seen.append)
    assert two.per_repeat.equals(one.per_repeat) and two.spread.equals(one.spread)
    assert two.first.summary.equals(one.first.summary)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and len(seen) == 5        # a step per finished repetition
    assert pools == [W.Plan("processes", 2)]                              # the second call only


def test_a_cancel_of_repetitions_on_the_pool_stops_them():
    s = _scores(9)
    with pytest.raises(Cancelled):
        repeat("bootstrap", s, repeats=6, B=40, seed=1, workers=2, process_work=2 * 40 * 91,
               progress=lambda f: f >= 0.3)


@pytest.mark.parametrize("method, B", [("bootstrap", 30), ("tukey", 40)])
def test_topic_samples_below_the_crossover_go_to_the_pool_together(method, B, monkeypatch):
    from evalcore.meta import topic_bootstrap
    s = _scores(10)
    unit = B * 14 * 25 if method == "tukey" else B * 91
    seen, pools, real = [], [], _REPEAT.on_workers
    tb = importlib.import_module("evalcore.meta.topic_bootstrap")
    monkeypatch.setattr(tb, "on_workers", lambda *a, **k: pools.append(a[4]) or real(*a, **k))
    one = topic_bootstrap(s, method, resamples=30, seed=2, B=B, workers=1)
    two = topic_bootstrap(s, method, resamples=30, seed=2, B=B, workers=2, process_work=3 * unit,
                          progress=seen.append)
    assert pools == [W.Plan("processes", 2)]
    assert two.per_resample.equals(one.per_resample)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and len(seen) == 21        # 30 samples in 20 tasks, a step each
