"""How much one page's computation may take: its work (evalcore.workload, at the page's limit) and its
threads (the server's cap per session, and one thread while other sessions compute).

Every result is the same for any thread count (evalcore.meta._parallel); only the time changes.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from evalcore import workload
from evalcore.collection import Collection
from evalcore.io import InputError
from evalcore.meta._parallel import default_threads, fit_threads, threads_from_env

from . import scoring
from .state import Settings

#: Threads one session's resampling may use: the server setting EVALCORE_SESSION_THREADS (default 2;
#: docs/dashboard.md, "Server settings"), so that one session cannot take a class's cores. Every result is
#: the same for any thread count (evalcore.meta._parallel).
SESSION_THREADS_ENV, SESSION_THREADS_DEFAULT = "EVALCORE_SESSION_THREADS", 2


def session_threads(kind: str | None = None) -> int:
    """The threads of one session's meta computations: the server's cap (:data:`SESSION_THREADS_ENV`,
    checked), and at most the method's own default (evalcore.meta._parallel.default_threads: one thread
    for the methods whose kernel did not scale with threads, such as the bootstrap; docs/benchmarks.md
    section 15)."""
    cap = threads_from_env(SESSION_THREADS_ENV, SESSION_THREADS_DEFAULT)
    return cap if kind is None else min(cap, default_threads(kind.split("_")[0]))


#: Meta computations running in this server process now (every session's): :func:`running` counts them, and
#: a computation gets more than one thread only when it is the only one. With a class computing at once
#: there are no idle cores for a second thread to use, and extra threads cost CPU and lengthen every
#: session's wait (the Overview under bench_dashboard.py --mode load with 1 and 2 threads per session:
#: docs/benchmarks.md section 16.2).
_RUNNING = 0
_RUNNING_LOCK = threading.Lock()


@contextmanager
def running() -> Iterator[int]:
    """Count one more meta computation in this server process while the block runs; yields how many run
    now, this one included."""
    global _RUNNING
    with _RUNNING_LOCK:
        _RUNNING += 1
        now = _RUNNING
    try:
        yield now
    finally:
        with _RUNNING_LOCK:
            _RUNNING -= 1


def threads_now(kind: str, running: int, work: int) -> int:
    """The threads of a computation of ``work`` run pairs x trials that finds ``running`` meta computations in
    the server (itself included): one thread when other sessions compute too; alone, :func:`session_threads`
    cut to what the work can use (evalcore.meta._parallel.fit_threads: one thread on small data, where a
    second one cost more than it gave - the Bootstrap page on clef2015's 30 runs settled later with two
    threads than with one, docs/benchmarks.md section 15.3)."""
    return fit_threads(session_threads(kind), kind.split("_")[0], work) if running <= 1 else 1


def clock(threads: int):
    """The cost clock of a computation on ``threads`` threads: this script thread's CPU when it computes
    alone (other sessions' work does not count), the wall time when pool threads do the work (the
    script thread only waits for them, so its CPU would say nearly nothing)."""
    return time.thread_time if threads <= 1 else time.perf_counter


#: kind -> (evalcore method, the parameter that repeats its calls): the kinds :func:`meta_check` sizes
_WORK_KINDS = {"swap": ("swap", None), "bootstrap": ("bootstrap", None), "tukey": ("tukey", None),
               "stability": ("stability", None), "swap_spread": ("swap", "repeats"),
               "bootstrap_spread": ("bootstrap", "repeats"), "swap_topics": ("swap", "resamples"),
               "bootstrap_topics": ("bootstrap", "resamples"), "pairs": ("pairs", None),
               "pairs_spread": ("pairs", "repeats")}
#: What to change on a page when a request is over a limit of evalcore.workload
WORK_HINT = "lower B, or choose fewer metrics or runs (the sidebar)"


def meta_check(kind: str, c: Collection, s: Settings, params: dict, B: int) -> None:
    """The check of :mod:`evalcore.workload` (the command line's and the Python functions') on a page's
    request, before its quick pass, at the page's limit (:data:`evalcore.workload.PAGE_SECONDS` of one core,
    below the command line's): ValueError naming the product and the limit when a
    B (pressed "B x 10" a few times) and the runs of an upload multiply past it. Sized with one thread
    per request, as a page runs when other sessions compute."""
    w = meta_workload(kind, scoring.scores(c, s), params, B)
    if w is not None:
        page_check(w)


def meta_workload(kind: str, scores: dict, params: dict, B: int) -> workload.Workload | None:
    """The :class:`evalcore.workload.Workload` of a computation of ``kind`` on ``scores`` (metric -> runs x
    topics), or None for a kind not sized (or data too small to compute anything)."""
    spec = _WORK_KINDS.get(kind)
    if spec is None:
        return None
    method, times = spec
    M, R, n = workload.scores_shape(scores)
    if M == 0 or R < 2:
        return None
    reps = int(params.get(times) or 1) if times else 1
    if method == "pairs":
        tests = tuple(params.get("tests") or ((params.get("test"),) if params.get("test") else ("t",)))
        w = workload.pairs_work(R, n, B=int(B), n_metrics=M * reps, tests=tests)
    else:
        w = workload.method_work(method, R, n, B=int(B), n_metrics=M, repeats=reps,
                                 **{k: params.get(k) for k in ("subset_size", "sampling", "replacement",
                                                               "fuzziness")})
    return w


def page_check(w: workload.Workload) -> None:
    """:func:`evalcore.workload.check` at the page's limit (:data:`evalcore.workload.PAGE_SECONDS` of one
    core); over it, InputError: the settings' fault, not a bug, shown as the page's "cannot be computed" box."""
    try:
        workload.check(w, WORK_HINT, max_seconds=workload.PAGE_SECONDS, scope="for a page")
    except ValueError as e:
        raise InputError(str(e)) from None
