"""Worker processes for the resampling methods: how many workers, which kind, and one runner for both.

The threads of :mod:`evalcore.meta._parallel` share one interpreter: a chunk holds the GIL for part of its
time (Python bookkeeping, small numpy calls), a serial share that caps the speed-up of threads
(docs/benchmarks.md sections 15.2 and 18). Worker processes have an interpreter each. A call of the
bootstrap, stability, the swap method, randomised Tukey or the pair statistics is therefore run

* on **worker processes** when its work reaches the method's crossover (:data:`PROCESS_WORK`, run pairs x B,
  or trials x runs x topics for Tukey; measured, docs/benchmarks.md section 18): a reusable pool of loky
  processes (joblib's), started on the first such call and kept for the next ones (idle workers end after
  :data:`IDLE_SECONDS`), each with one BLAS thread;
* on **threads** of this process below the crossover (the thread defaults of :mod:`._parallel`: one thread
  for small data), where starting or feeding processes costs more than it gives, and for any call made
  outside the main thread (a server's request threads, such as the dashboard's: one process for every
  session's work, and a process-wide pool never shared between threads).

How many workers (:func:`worker_count`): ``workers=`` if given, else ``$EVALCORE_WORKERS``, else every core
this process may use. ``EVALCORE_WORKERS=1`` (or ``workers=1``) runs every call in the calling thread.
``threads=`` (and, when ``$EVALCORE_WORKERS`` is unset, ``$EVALCORE_THREADS``) keep their meaning: threads
of this process, never processes (the dashboard's server uses them, one process for every session).
``process_work=`` moves the crossover (0: every call with more than one worker goes to processes).

The arrays of a call (score matrices, topic counts, the per-pair output columns) go to the workers through
one memory-mapped file, in ``/dev/shm`` when it has room, else in the temporary folder: a worker maps it,
reads its inputs and writes its pairs' columns into disjoint slices, so only ranges and small reductions
cross the pipes. Every task runs the kernels of the thread path on the same values, so the tables are bit
for bit those of one worker (tests/test_meta_workers.py).
"""
from __future__ import annotations

import glob
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from . import _parallel
from ._common import Progress, one_blas_thread
from ._parallel import MAX_THREADS, THREADS_ENV, WorkCache, fit_threads, min_tasks, run_tasks

__all__ = ["WORKERS_ENV", "PROCESS_WORK", "TASKS_PER_PROCESS", "IDLE_SECONDS", "Plan", "worker_count", "plan",
           "Runner", "pool_executor", "check_process_work"]

#: The environment variable that sets the default worker count (1 = everything in the calling thread).
WORKERS_ENV = "EVALCORE_WORKERS"

#: The work from which a call runs on worker processes by default: run pairs x B (bootstrap, stability,
#: swap), run pairs x (bootstrap samples + sign flips) (pair statistics) or trials x runs x topics (Tukey).
#: Below it the call runs on threads (one for small data). From the crossover runs on the 2-core machine
#: (``benchmarks/bench_workers.py --crossover``; the break-even figures: docs/benchmarks.md section 17): a
#: started pool breaks even with the threads on calls of a fraction of a second of one worker's time, so the
#: default sends calls of about twice that (two metrics) to processes, which leaves room for the pool's start
#: on a process's first such call. At
#: B = 1000 and 50 topics: the bootstrap from ~140 runs, stability and swap from ~280, Tukey from ~300, the
#: pair statistics with both resampling tests from ~70.
PROCESS_WORK: dict[str, int] = {"bootstrap": 10_000_000, "stability": 40_000_000, "swap": 40_000_000,
                                "tukey": 15_000_000, "pairs": 5_000_000}

#: Tasks per worker process of a call without a progress callback. Each task costs the calling process CPU
#: (pickling, loky's queue threads, waking the waiting thread), a serial share that grows with the workers;
#: two per worker (four before) still leave a worker a second task when the other is slowed (the coordinator's
#: share at each count: docs/benchmarks.md section 18).
TASKS_PER_PROCESS = 2

#: Seconds an idle worker process waits for the next task before it ends (a later call starts it again).
IDLE_SECONDS = 60

#: Each worker's environment: one BLAS thread (the parallelism comes from the workers), and one worker
#: for any evalcore call made inside a worker (no pool of pools).
_WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", WORKERS_ENV: "1"}


def _check(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_THREADS:
        raise ValueError(f"{what} must be a whole number from 1 to {MAX_THREADS:,}; got {value!r}")
    return int(value)


def check_process_work(value) -> int | None:
    """``process_work`` checked: None (the method's :data:`PROCESS_WORK`) or a whole number >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"process_work must be a whole number >= 0 (run pairs x B from which a call runs on "
                         f"worker processes; 0 = always with more than one worker) or None; got {value!r}")
    return int(value)


def _from_env(variable: str) -> int | None:
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not 1 <= value <= MAX_THREADS:
        raise ValueError(f"the environment variable {variable} must be a whole number from 1 to {MAX_THREADS:,}; "
                         f"got {raw!r}")
    return value


def worker_count(workers=None, threads=None) -> tuple[int, str]:
    """(count, source): ``threads=`` ("threads": threads as given), ``workers=`` ("workers"),
    ``$EVALCORE_WORKERS`` ("workers"), ``$EVALCORE_THREADS`` ("threads_env": the thread path's default),
    else every core ("workers"). ``workers`` and ``threads`` together are refused.

    >>> worker_count(3), worker_count(threads=2)
    ((3, 'workers'), (2, 'threads'))
    >>> worker_count(0)
    Traceback (most recent call last):
    ...
    ValueError: workers must be a whole number from 1 to 1,024; got 0
    """
    if workers is not None and threads is not None:
        raise ValueError(f"give workers= or threads=, not both (got workers={workers!r}, threads={threads!r}): "
                         "workers= may use worker processes, threads= only threads of this process")
    if threads is not None:
        return _check(threads, "threads"), "threads"
    if workers is not None:
        return _check(workers, "workers"), "workers"
    n = _from_env(WORKERS_ENV)
    if n is not None:
        return n, "workers"
    n = _from_env(THREADS_ENV)
    if n is not None:
        return n, "threads_env"
    return _parallel.machine_threads(), "workers"


@dataclass(frozen=True)
class Plan:
    """How a call runs: ``count`` threads of this process (1: in the calling thread) or ``count`` worker
    processes."""
    kind: str          # "threads" or "processes"
    count: int

    @property
    def processes(self) -> bool:
        return self.kind == "processes"

    def parts(self, n_jobs: int = 1) -> int:
        """Tasks per job for load balance alone (:func:`~._parallel.min_tasks` with one progress step): 4 per
        thread, :data:`TASKS_PER_PROCESS` per worker process."""
        return min_tasks(self.count, n_jobs, steps=1, per_thread=TASKS_PER_PROCESS if self.processes else 4)

    def tasks(self, n_jobs: int = 1, progress=None) -> int:
        """Tasks per job: :meth:`parts` on processes without a progress callback (each task costs the
        coordinator a hand-off through a pipe, docs/benchmarks.md section 18), else at least 4 per worker and
        20 in all, for a progress step every 5 %."""
        if self.processes and progress is None:
            return self.parts(n_jobs)
        return min_tasks(self.count, n_jobs)


def plan(method: str, work: int, *, workers=None, threads=None, process_work=None) -> Plan:
    """The :class:`Plan` of a call of ``method`` doing ``work`` (its :data:`PROCESS_WORK` unit).

    ``threads=`` is obeyed as given (threads); ``$EVALCORE_THREADS`` sets the thread path's default, cut
    to what the work can use (:func:`~._parallel.fit_threads`). Otherwise, with more than one worker, a
    call of at least ``process_work`` (default :data:`PROCESS_WORK`) runs on that many processes and a
    smaller one on the thread path's default threads, at most the workers.

    >>> plan("swap", 10**9, workers=4), plan("swap", 10**3, workers=4), plan("swap", 10**9, workers=1)
    (Plan(kind='processes', count=4), Plan(kind='threads', count=1), Plan(kind='threads', count=1))
    >>> plan("swap", 10**3, workers=2, process_work=0), plan("swap", 10**9, threads=3)
    (Plan(kind='processes', count=2), Plan(kind='threads', count=3))
    """
    n, source = worker_count(workers, threads)
    limit = check_process_work(process_work)
    if source == "threads":
        return Plan("threads", n)
    if source == "threads_env":
        return Plan("threads", fit_threads(n, method, work))
    if n <= 1:
        return Plan("threads", 1)
    if work >= (PROCESS_WORK.get(method, 0) if limit is None else limit) and _may_start_processes():
        return Plan("processes", n)
    return Plan("threads", max(1, min(n, fit_threads(_parallel.default_threads(method), method, work))))


def _may_start_processes() -> bool:
    """Worker processes serve calls made in the main thread only. A call from another thread (a server's
    request thread: the dashboard runs every session's script in one) runs on threads: the pool is one per
    process, and a server's sessions already share its cores (docs/scaling.md, "Which path")."""
    return threading.current_thread() is threading.main_thread()


# -- the pool ------------------------------------------------------------------------------------------
def pool_executor(n: int):
    """The process's reusable pool of ``n`` loky worker processes (started on first use, idle workers end after
    :data:`IDLE_SECONDS`), each with :data:`_WORKER_ENV`."""
    try:
        from joblib.externals.loky import get_reusable_executor
    except ImportError:  # pragma: no cover - joblib is a dependency; a broken install
        raise ImportError("worker processes need joblib: pip install joblib (or set EVALCORE_WORKERS=1)") from None
    return get_reusable_executor(max_workers=n, timeout=IDLE_SECONDS, env=dict(_WORKER_ENV))


def _shared_dir(nbytes: int) -> str:
    """/dev/shm when it has room for twice the call's arrays (a tmpfs: no disk writes), else the temporary
    folder (still page cache, written back only under memory pressure)."""
    shm = "/dev/shm"
    try:
        if os.path.isdir(shm) and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free >= 2 * nbytes:
            return shm
    except OSError:  # pragma: no cover - an unusual mount
        pass
    return tempfile.gettempdir()


_ALIGN = 4096
_SWEPT: set = set()
#: The shared file's last array: a byte per task of a :meth:`Runner.map` call, set to 1 by the worker as the
#: task begins (the first :data:`START_FLAGS` tasks), so that the calling process sees when its first round runs.
_STARTED = "__started__"
START_FLAGS = 4096


def _sweep(folder: str) -> None:
    """Remove the shared files left in ``folder`` by evalcore processes that no longer run (killed before
    their call's end removed the file); once per folder and process."""
    if folder in _SWEPT:
        return
    _SWEPT.add(folder)
    for path in glob.glob(os.path.join(folder, "evalcore-*-*.shared")):
        pid = os.path.basename(path).split("-")[1]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            try:
                os.unlink(path)
            except OSError:  # pragma: no cover - removed meanwhile, or not ours to remove
                pass
        except OSError:      # alive (another user's: PermissionError)
            pass


class _Shared:
    """The arrays of one call in one memory-mapped file: (path, {name: (offset, shape, dtype)}); the
    arrays not named in ``fresh`` are copied in."""

    def __init__(self, arrays: Mapping[Any, np.ndarray], fresh: Sequence = ()):
        layout, at = {}, 0
        arrays = {**arrays, _STARTED: np.zeros(START_FLAGS, np.uint8)}
        fresh = (*fresh, _STARTED)
        for name, a in arrays.items():
            at += -at % _ALIGN
            layout[name] = (at, tuple(a.shape), a.dtype.str)
            at += a.nbytes
        folder = _shared_dir(at)
        _sweep(folder)
        fd, self.path = tempfile.mkstemp(prefix=f"evalcore-{os.getpid()}-", suffix=".shared",
                                          dir=folder)      # the caller's pid: whose file it is
        try:
            os.ftruncate(fd, max(at, 1))
        finally:
            os.close(fd)
        self.spec = (self.path, layout, os.urandom(8).hex())      # the token tells a reused name apart
        self.views = _attach(self.spec)
        self.started = self.views.pop(_STARTED)
        skip = set(fresh)
        for name, a in arrays.items():
            if name not in skip:
                np.copyto(self.views[name], a)

    def close(self) -> None:
        self.views = {}
        try:
            os.unlink(self.path)        # POSIX: a view still held keeps its pages until it goes
        except FileNotFoundError:  # pragma: no cover
            pass


def _attach(spec) -> dict:
    """Plain ndarray views of the shared file's arrays (the mapping lives as long as a view does). A worker's pages
    are faulted in as its tasks touch them: mapping them all at once (``MAP_POPULATE``) made the first worker
    allocate every output page of the call alone before its first task, where the tasks otherwise share that
    work (docs/benchmarks.md section 18)."""
    path, layout = spec[:2]
    if not layout:
        return {}
    buf = np.asarray(np.memmap(path, dtype=np.uint8, mode="r+"))
    out = {}
    for name, (off, shape, dtype) in layout.items():
        dt = np.dtype(dtype)
        size = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        out[name] = buf[off:off + size].view(dt).reshape(shape)
    return out


_WORK = WorkCache()          # a worker process's work arrays, reused by its next task
_MAPPED: dict = {}           # a worker process's views of the current call's shared file, by its spec's token

#: Seconds a worker keeps a call's shared file mapped after its last task there when no other task comes: then
#: a thread of the worker drops its views, so that the unmapping (and, for the last process that held the file,
#: freeing its pages) happens while the worker is idle, not before the first task of the next call (where it
#: cost up to a few ms on the 2-core machine: docs/benchmarks.md section 18).
RELEASE_AFTER = 0.1


class _Release:
    """A worker process's count of running tasks and the thread that drops :data:`_MAPPED` once none has run
    for :data:`RELEASE_AFTER` seconds (started by the first task). :data:`_MAPPED` is read and changed under
    ``cond``; a running task holds its own references to the views, which keep the mapping until it ends."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.running = 0
        self.last = 0.0
        self.thread: threading.Thread | None = None

    def begin(self) -> None:
        with self.cond:
            self.running += 1
            if self.thread is None:
                self.thread = threading.Thread(target=self._loop, name="evalcore-release", daemon=True)
                self.thread.start()

    def end(self) -> None:
        with self.cond:
            self.running -= 1
            self.last = time.monotonic()
            self.cond.notify()

    def _loop(self) -> None:
        while True:
            with self.cond:
                while self.running or not _MAPPED:
                    self.cond.wait()
                left = self.last + RELEASE_AFTER - time.monotonic()
                if left > 0:
                    self.cond.wait(left)
                    continue
                views = list(_MAPPED.values())
                _MAPPED.clear()
            del views                          # the unmapping, outside the lock


_RELEASE = _Release()


def _in_worker(fn, spec, blas: bool, item):
    """Run one task in a worker. The worker maps the call's shared file once and keeps it for the call's next
    tasks: a mapping made per task faulted in every page it read again (a task of stability or swap reads
    all the run means), work the coordinator's single worker never does (docs/benchmarks.md section 18). A
    worker idle for :data:`RELEASE_AFTER` drops them (:class:`_Release`), else the next call's first task does;
    the file's pages are shared, so that is one call's arrays whatever the number of workers. ``item``: (the
    task's number in its :meth:`Runner.map` call, its job); the task's start is marked in the file's start flags."""
    k, job = item
    _RELEASE.begin()
    try:
        with _RELEASE.cond:
            got = _MAPPED.get(spec[2])
            if got is None:
                _MAPPED.clear()
                arrays = _attach(spec)
                got = _MAPPED[spec[2]] = (arrays, arrays.pop(_STARTED))
        arrays, started = got
        if k < started.size:
            started[k] = 1
        with one_blas_thread() if blas else nullcontext():
            return fn(arrays, job, _WORK)
    finally:
        _RELEASE.end()


class Runner:
    """Runs a method's tasks ``fn(arrays, job, cache)`` as its :class:`Plan` says.

    ``arrays``: the named arrays every task reads or writes (disjoint slices); on threads the tasks get
    ``arrays`` itself, on processes views of copies in one shared file. ``fresh``: names whose content
    the tasks write before anything reads it (not copied in); ``outputs``: names the caller reads after
    the run, put back into ``arrays`` when the runner closes (on processes as the shared file's views,
    which outlive the file's name; copies on Windows, which cannot remove a mapped file). ``fn`` must be a
    module-level function (sent to the workers by name). Use as a context manager; :attr:`arrays` are the
    arrays as the tasks see them (the caller may read a stage's results there).
    """

    def __init__(self, plan: Plan, arrays: dict, outputs: Sequence = (), fresh: Sequence = (), blas: bool = True):
        self.plan, self.blas, self.outputs = plan, blas, tuple(outputs)
        self._own = arrays
        self._shared: _Shared | None = None
        self.cache = WorkCache()
        self.arrays = arrays
        if plan.processes:
            self._shared = _Shared(arrays, fresh)
            self.arrays = self._shared.views

    def map(self, fn: Callable[[dict, Any, WorkCache], Any], jobs: Sequence, prog: Progress | None = None,
            meanwhile: Callable[[], Any] | None = None) -> list:
        """``[fn(arrays, job, cache) for job in jobs]``, in job order; progress in the calling thread.
        ``meanwhile``: the calling thread's own work while the tasks run (:func:`~._parallel.run_tasks`)."""
        if self._shared is None:
            arrays, cache = self.arrays, self.cache
            return run_tasks(lambda job: fn(arrays, job, cache), jobs, self.plan.count, prog, blas=self.blas,
                             meanwhile=meanwhile)
        flags = self._shared.started
        flags[:] = 0                    # the previous call's tasks have all ended
        return run_tasks(partial(_in_worker, fn, self._shared.spec, self.blas), list(enumerate(jobs)),
                         self.plan.count, prog, blas=False, pool=pool_executor(self.plan.count),
                         meanwhile=meanwhile, started=lambda k: int(np.count_nonzero(flags)) >= k)

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, kind, value, tb) -> None:
        if self._shared is None:
            return
        try:
            if kind is None:
                for name in self.outputs:
                    view = self._shared.views[name]
                    self._own[name] = view.copy() if os.name == "nt" else view
        finally:
            self.arrays = self._own
            self._shared.close()
            self._shared = None
