"""Threads for the resampling methods: how many, and one pool that runs a method's chunks.

Every resampling method of :mod:`evalcore.meta` splits its work into chunks
(of run pairs, of trials or of permutations) whose results are combined by
exact operations: disjoint slices of the per-pair columns, integer counts
summed, maxima. The products inside a chunk are the exact integer-weighted
sums of :mod:`evalcore._exact` (the same bits whatever the chunk a value is
computed in). So running the chunks on several threads, in any order, gives
the tables bit for bit equal to one thread's (tests/test_meta_threads.py).

How many threads (:func:`resolve_threads`): the ``threads`` argument if
given, else the ``EVALCORE_THREADS`` environment variable, else the method's
default (:func:`default_threads`): every core this process may run on
(``os.process_cpu_count()`` on Python >= 3.13, the scheduler affinity before)
for the methods measured to scale (swap, randomised Tukey), at most 4 for the
bootstrap and stability (fastest there on 16 cores), one thread for the others; the bootstrap's, stability's
and swap's default is then cut to what the call's run pairs x B can use (:func:`fit_threads`: one thread on
small data, where a second one ran slower). Each task runs with one BLAS thread
(:func:`~evalcore.meta._common.one_blas_thread` around the pool): the
parallelism comes from the tasks, not from BLAS.
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import nullcontext
from typing import Any

import numpy as np

from ._common import Progress, one_blas_thread, work_arrays

__all__ = ["MAX_THREADS", "THREADS_ENV", "SCALING_METHODS", "CAPPED_METHODS", "MIN_WORK_PER_THREAD", "default_threads",
           "fit_threads", "machine_threads",
           "resolve_threads", "run_tasks", "WorkCache", "WINDOW_PER_THREAD",
           "min_tasks", "split_range", "threads_from_env"]

#: Largest thread count accepted (argument, environment variable, CLI option): far above any one
#: machine's cores, low enough that a typo (``--threads 10000``) is refused before any pool is made.
MAX_THREADS = 1024
#: The environment variable that sets the default thread count.
THREADS_ENV = "EVALCORE_THREADS"


def machine_threads() -> int:
    """The cores this process may run on: ``os.process_cpu_count()`` (Python >= 3.13), else the
    scheduler affinity (Linux), else ``os.cpu_count()``; at least 1."""
    count = getattr(os, "process_cpu_count", None)
    n = count() if count is not None else None
    if n is None and hasattr(os, "sched_getaffinity"):
        n = len(os.sched_getaffinity(0))
    return max(1, int(n or os.cpu_count() or 1))


def _check(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_THREADS:
        raise ValueError(f"{what} must be a whole number from 1 to {MAX_THREADS:,}; got {value!r}")
    return int(value)


#: Methods whose threads were measured to scale to every core of a 16-core machine (docs/benchmarks.md
#: section 15.1): they use every core by default.
SCALING_METHODS = frozenset({"swap", "tukey"})

#: Methods whose threads help up to a point and then cost more than they give, with the most threads
#: they use by default. After the pool's fix (:func:`run_tasks`: a bounded window of tasks in flight) the
#: bootstrap and stability on the 16-core machine were fastest at 4 threads and slower at 16 than at 4
#: (docs/benchmarks.md section 15.2): each chunk still holds the GIL for part of its time (pure-Python
#: bookkeeping and small numpy calls), a serial share that caps the speed-up. The pair statistics were
#: not measured and keep one thread. The tables are the same on any count; ``threads=`` /
#: EVALCORE_THREADS choose more.
CAPPED_METHODS: dict[str, int] = {"bootstrap": 4, "stability": 4}


#: Run pairs x trials (B) a thread must get for the methods' default to use it: below this a call runs on
#: fewer threads (one for small data), because a small call's few chunks cost more in hand-offs than a second
#: core gives. The values sit where a second thread started to pay on the project's 2-core machine (the
#: bootstrap at fewer runs than stability and swap; the crossover runs: docs/benchmarks.md section 15.3). The
#: dashboard's live pages call these methods many times on small data (the Monte Carlo repetitions, the topic
#: samples), which this keeps on one thread each.
MIN_WORK_PER_THREAD: dict[str, int] = {"bootstrap": 400_000, "stability": 2_500_000, "swap": 2_500_000}


def fit_threads(threads: int, method: str, work: int) -> int:
    """``threads`` cut to what a call of ``work`` run pairs x trials can use: at most one thread per
    :data:`MIN_WORK_PER_THREAD` of the method's work, at least one (methods not listed: ``threads``). The
    methods apply it to their default thread count only; an explicit ``threads=`` is obeyed.

    >>> fit_threads(16, "swap", 435 * 1000), fit_threads(16, "swap", 499_500 * 1000), fit_threads(4, "tukey", 1)
    (1, 16, 4)
    """
    per = MIN_WORK_PER_THREAD.get(method)
    return threads if per is None else max(1, min(threads, int(work) // per))


def default_threads(method: str | None = None) -> int:
    """The thread count a method uses when neither ``threads=`` nor ``$EVALCORE_THREADS`` says: every
    core (:func:`machine_threads`) for the methods in :data:`SCALING_METHODS` (and for ``None``), at most
    the cap of :data:`CAPPED_METHODS` for those, 1 for any other."""
    if method is None or method in SCALING_METHODS:
        return machine_threads()
    return min(machine_threads(), CAPPED_METHODS.get(method, 1))


def resolve_threads(threads: int | None = None, method: str | None = None) -> int:
    """The thread count to use: ``threads`` if given, else ``$EVALCORE_THREADS``, else
    :func:`default_threads` of ``method`` (every core for the methods measured to scale).

    >>> resolve_threads(3)
    3
    >>> resolve_threads(0)
    Traceback (most recent call last):
    ...
    ValueError: threads must be a whole number from 1 to 1,024; got 0
    """
    if threads is not None:
        return _check(threads, "threads")
    return threads_from_env(THREADS_ENV, default_threads(method))


def threads_from_env(variable: str, default: int) -> int:
    """A thread count from the environment variable ``variable`` (1..:data:`MAX_THREADS`), ``default`` when
    it is unset or empty; a clear error naming the variable otherwise (a server setting such as the
    dashboard's ``EVALCORE_SESSION_THREADS``)."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return _check(default, variable)
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"the environment variable {variable} must be a whole number from 1 to "
                         f"{MAX_THREADS:,}; got {raw!r}") from None
    return _check(value, f"the environment variable {variable}")


def min_tasks(threads: int, n_jobs: int = 1, steps: int = 20, per_thread: int = 4) -> int:
    """Chunks per job so that ``n_jobs`` jobs give at least ``steps`` progress steps in all and every
    one of ``threads`` threads at least ``per_thread`` chunks (load balance)."""
    return max(-(-steps // max(n_jobs, 1)), -(-per_thread * threads // max(n_jobs, 1)), 1)


def split_range(n: int, parts: int) -> list[tuple[int, int]]:
    """``range(n)`` as at most ``parts`` contiguous (start, stop) ranges of near-equal size.

    >>> split_range(10, 3)
    [(0, 4), (4, 7), (7, 10)]
    """
    parts = max(1, min(int(parts), n))
    q, r = divmod(n, parts)
    out, at = [], 0
    for k in range(parts):
        size = q + (k < r)
        out.append((at, at + size))
        at += size
    return [x for x in out if x[1] > x[0]]


class WorkCache:
    """Work arrays (:func:`~evalcore.meta._common.work_arrays`) kept per thread and reused by its next
    chunk, so that a pool of threads allocates (and page-faults) them once per thread, not per chunk."""

    def __init__(self) -> None:
        self._local = threading.local()

    def get(self, rows: int, cols: int, *dtypes) -> list[np.ndarray]:
        key = (cols, tuple(np.dtype(d).str for d in dtypes))
        have = getattr(self._local, "arrays", {})
        got = have.get(key)
        if got is None or got[0].shape[0] < rows:
            got = work_arrays(rows, cols, *dtypes)
            have = {key: got}              # one set per thread: a new shape replaces the old one
            self._local.arrays = have
        return got


#: Tasks a pool holds at once, per thread: the running ones and a few queued behind them.
WINDOW_PER_THREAD = 2


def run_tasks(fn: Callable[[Any], Any], tasks: Sequence, threads: int, prog: Progress | None = None,
              blas: bool = True, pool: Any = None, meanwhile: Callable[[], Any] | None = None,
              started: Callable[[int], bool] | None = None) -> list:
    """``[fn(t) for t in tasks]`` on ``threads`` threads, results in task order.

    ``prog.step()`` is called in the calling thread after each finished task (so a progress callback
    that draws, such as the dashboard's, never runs in a pool thread); when it raises
    :class:`~evalcore.meta.Cancelled` the tasks not started yet are dropped and the exception
    propagates once the running ones end. An exception of a task propagates the same way. With
    ``blas`` every task runs under one BLAS thread.

    At most :data:`WINDOW_PER_THREAD` tasks per thread are submitted at a time, the next one as each
    ends. Submitting every task at once and waiting for the first of all pending futures made each wait
    register with, and unregister from, every pending future while holding the GIL: quadratic in the
    number of tasks (a method's thousands of pair chunks), the largest cost behind the bootstrap's and
    stability's slow-down on threads in docs/benchmarks.md section 15.1 (section 15.2 measures it).

    ``pool``: an executor of ``threads`` worker processes (:mod:`._workers`) to submit to instead of a new
    thread pool; every task then goes to it, and on an error or a cancel the tasks already running are
    waited for before the exception propagates.

    ``meanwhile``: work of the calling thread that does not need the tasks' results (such as a result table's
    name columns). On a ``pool`` of processes it is called once the first tasks are submitted, so that it
    overlaps with them instead of adding to the call's serial part (Amdahl's law; docs/benchmarks.md section
    18), and its exception propagates like a task's, once the running tasks end. On threads it runs before the
    tasks: it would hold the GIL that the threads' own Python steps wait for.

    ``started(k)``: True once k of the submitted tasks have begun in the pool's workers. With it, ``meanwhile``
    waits (the GIL released) until the first round has begun, one task per worker, or a task has ended: the
    pool's threads that hand the tasks to the workers need the GIL, which ``meanwhile``'s Python work would
    hold, and the workers would wait idle for as long as it runs (docs/benchmarks.md section 18).
    """
    tasks = list(tasks)
    if pool is None and meanwhile is not None:
        meanwhile()
    ctx = one_blas_thread() if blas else nullcontext()
    with ctx:
        if pool is None and (threads <= 1 or len(tasks) <= 1):
            out = []
            for t in tasks:
                out.append(fn(t))
                if prog is not None:
                    prog.step()
            return out
        workers = max(1, min(threads, len(tasks)))
        if pool is not None:
            return _windowed(pool, fn, tasks, workers, prog, wait_running=True, meanwhile=meanwhile,
                             started=started)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="evalcore") as ex:
            return _windowed(ex, fn, tasks, workers, prog, wait_running=False)


#: Seconds between the first two looks at whether a pool's first tasks have begun (:func:`run_tasks`'
#: ``started``); the wait doubles after each look up to :data:`START_POLL_MAX`, so that a quick start is seen
#: at once and a slow one (more workers than free cores: the looks go on until a task ends) costs few wake-ups.
START_POLL = 0.0002
START_POLL_MAX = 0.002


def _windowed(ex, fn: Callable[[Any], Any], tasks: list, workers: int, prog: Progress | None,
              wait_running: bool, meanwhile: Callable[[], Any] | None = None,
              started: Callable[[int], bool] | None = None) -> list:
    """:func:`run_tasks`' loop: at most :data:`WINDOW_PER_THREAD` tasks per worker submitted to ``ex``."""
    results: list = [None] * len(tasks)
    running: dict = {}
    todo = iter(range(len(tasks)))

    def submit(k: int) -> None:
        for i in itertools.islice(todo, k):
            running[ex.submit(fn, tasks[i])] = i

    submit(WINDOW_PER_THREAD * workers)
    try:
        if meanwhile is not None:
            first, pause = min(workers, len(tasks)), START_POLL
            while started is not None and not started(first) and not any(f.done() for f in running):
                time.sleep(pause)                        # the GIL free for the pool's hand-off threads
                pause = min(2 * pause, START_POLL_MAX)
            meanwhile()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                results[running.pop(f)] = f.result()     # a task's exception, raised here
            submit(len(done))                            # the pool's next tasks before drawing
            if prog is not None:
                for _ in done:
                    prog.step()
    except BaseException:
        for f in running:
            f.cancel()
        if wait_running:                                 # a thread pool's exit waits for them itself
            wait(running)
        raise
    return results
