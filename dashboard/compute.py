"""A page's long resampling computation in a child interpreter: one session's B = 5000 never slows the others.

Why: the resampling methods are numpy work driven from Python; run in a thread of the server process, a long
one (a chosen B of thousands on 100+ runs: seconds to minutes) holds the server's GIL for a share of its time,
and every other session's slider move waits for it (docs/benchmarks.md section 18 measures that share).
Here a computation that is **long** - it has a progress bar (the live charts' refinement, never their quick
passes) and its work (:func:`dashboard.limits.meta_workload`) is at least ``EVALCORE_COMPUTE_SECONDS`` of one
core at :data:`evalcore.workload.RATES` (:func:`is_long`) - runs in one child interpreter of its own
(:mod:`dashboard.child`, the machinery the uploads' loader uses):

* on one thread with one BLAS thread and no worker processes (``EVALCORE_WORKERS=1``), so a session's work
  takes at most one extra process; every method draws its samples from the seed alone, so the frames are bit
  for bit those of the server's thread (tests/test_compute_child.py);
* at most ``EVALCORE_COMPUTE_WORKERS`` at once in the server (default :func:`dashboard.child.pool_size`: half
  the cores, and no more than ``EVALCORE_COMPUTE_BUDGET`` - default a quarter of the machine's memory, the
  loads having half - holds at ``EVALCORE_COMPUTE_MEMORY`` each); a session that waits sees its place in the
  queue on its progress bar;
* with an address-space limit (``EVALCORE_COMPUTE_MEMORY``, default 4 GiB: a computation over it ends in a
  readable error) and niceness :data:`COMPUTE_NICE`, so the sessions' slider moves get the CPU first;
* with a time limit (``EVALCORE_COMPUTE_TIMEOUT``, default an hour from the child's start): a child past it is
  killed, its slot freed, and the session told so in words naming the setting;
* progress drawn by the page's callback; a rerun, a Stop or a closed tab (the callback raising, or asking to
  cancel: :func:`dashboard.progress.cancellable`) kills the child at once and raises
  :class:`evalcore.meta.Cancelled`, as the method itself would; a child that dies is reported by its exit
  status, in words that say what to do.

The Report page's build (``evalcore report``'s whole experiment, :func:`report_in_child`) runs the same way
when its work (:func:`evalcore.workload.report_work`) reaches the threshold: the same files byte for byte, each
step's (fraction, message) drawn, sent the kept summary rows it may take (:mod:`evalcore.meta.reuse`) and
bringing back the rows it computed.

Only the result's frames come back (the kind's ``parts`` and the summary rows the Report keeps); the server
keeps them (dashboard.meta_store, unchanged). A short computation stays in the server's thread as before:
starting an interpreter and importing numpy and pandas costs more than it gives there (the crossover:
docs/benchmarks.md section 17). ``EVALCORE_COMPUTE_INPROCESS=1`` keeps every computation in the server's
threads (for debugging). Settings are read and checked at each long computation (the number of slots once,
at the server's first); a bad value is an error naming the setting, shown where the result would be.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import NamedTuple

from evalcore.io import InputError
from evalcore.io.limits import human_bytes
from evalcore.workload import Workload

from . import child

__all__ = ["COMPUTE_NICE", "SECONDS_ENV", "SECONDS_DEFAULT", "Settings", "in_child", "is_long", "report_in_child",
           "serve", "serve_report", "settings", "started"]

#: The server setting: seconds of one core (at evalcore.workload.RATES) from which a computation with a
#: progress bar runs in a child; 0 sends every one there. The default: where the child's start is a small
#: share of the computation's own time (docs/benchmarks.md section 17).
SECONDS_ENV, SECONDS_DEFAULT = "EVALCORE_COMPUTE_SECONDS", 5.0
WORKERS_ENV, MEMORY_ENV, BUDGET_ENV = "EVALCORE_COMPUTE_WORKERS", "EVALCORE_COMPUTE_MEMORY", "EVALCORE_COMPUTE_BUDGET"
INPROCESS_ENV = "EVALCORE_COMPUTE_INPROCESS"
#: The most seconds one computation's child may run (from its start, not its wait for a slot): a child that
#: hangs would otherwise hold its slot until the session's Stop, and a closed tab has none.
TIMEOUT_ENV, TIMEOUT_DEFAULT = "EVALCORE_COMPUTE_TIMEOUT", 3600.0
MEMORY_DEFAULT = 4 << 30
COMPUTE_NICE = 10   # the child's scheduling niceness (lower priority than the server's threads)
#: The child's environment: one BLAS thread, and every evalcore call in its own thread (no pool of processes).
_CHILD_ENV = {"EVALCORE_WORKERS": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
              "MKL_NUM_THREADS": "1"}
#: What to change when a computation does not fit (dashboard.limits.WORK_HINT's words; that module imports
#: Streamlit, which the child does not need)
_HINT = "lower B, or choose fewer metrics or runs (the sidebar)"
_WORDS = child.Words(job="computation", doing="this computation", smaller=_HINT,
                     innocent="your settings were not at fault",
                     report="please report it with the page's address (its settings)", fewer=_HINT,
                     workers_env=WORKERS_ENV, memory_env=MEMORY_ENV, small="B and the data are small")


class Settings(NamedTuple):
    """The server's settings for long computations, checked (:func:`settings`)."""

    seconds: float     # the threshold (EVALCORE_COMPUTE_SECONDS)
    memory: int        # bytes of address space per child (EVALCORE_COMPUTE_MEMORY)
    budget: int        # bytes all children together may take (EVALCORE_COMPUTE_BUDGET)
    workers: int       # children at once (EVALCORE_COMPUTE_WORKERS, default from the cores and the budget)
    timeout: float = TIMEOUT_DEFAULT   # seconds one child may run (EVALCORE_COMPUTE_TIMEOUT)


def settings() -> Settings:
    """The settings from the environment; ValueError naming the variable for a bad value."""
    seconds = child.env_seconds(SECONDS_ENV, SECONDS_DEFAULT, inclusive=True)
    memory = child.env_bytes(MEMORY_ENV, MEMORY_DEFAULT)
    budget = child.env_bytes(BUDGET_ENV, child.machine_memory() // 4)
    workers = child.env_count(WORKERS_ENV, child.pool_size(child.cores(), budget, memory))
    timeout = child.env_seconds(TIMEOUT_ENV, TIMEOUT_DEFAULT)
    return Settings(seconds, memory, budget, workers, timeout)


def is_long(w: Workload | None, progress) -> bool:
    """Whether a computation of workload ``w`` runs in a child: it has a ``progress`` callback (the live
    charts' short calls have none) and ``w`` is at least the threshold (``EVALCORE_COMPUTE_SECONDS``)."""
    if progress is None or w is None or os.environ.get(INPROCESS_ENV) == "1":
        return False
    return w.seconds() >= settings().seconds


_lock = threading.Lock()
_children: set = set()                   # the running computations' children
_slots: child.Slots | None = None        # made at the first long computation, sized by the settings then
_started = [0]


def started() -> int:
    """Children this server started for computations so far."""
    with _lock:
        return _started[0]


def _queue(workers: int) -> child.Slots:
    global _slots
    with _lock:
        if _slots is None:
            _slots = child.Slots(workers)
        return _slots


def _memory_error(memory: int) -> InputError:
    return InputError(f"this computation needs more than {human_bytes(memory)}, the memory one computation may "
                      "take on this server", hint=f"{_HINT}, or ask the server's operator to raise {MEMORY_ENV}")


def _timed_out(seconds: float) -> InputError:
    return InputError(f"this computation ran past {seconds:g} s, the time one computation may take on this server "
                      f"({TIMEOUT_ENV}), and its worker process was stopped; nothing of it was kept",
                      hint=f"{_HINT}, or ask the server's operator to raise {TIMEOUT_ENV}")


def _died(proc, memory: int) -> InputError:
    what, hint = child.died(proc, memory, _WORDS)
    return InputError(what, hint=hint)


def _run(target: str, payload, conf: Settings, *, report: Callable, cancelled: Callable[[], bool],
         cancel: Callable[[], BaseException], waiting: Callable[[int], None] | None,
         tick: Callable[[float], None] | None) -> tuple:
    """The ``("done", value, cpu seconds)`` answer of a child running ``target`` on ``payload``, started once
    a slot is free and stopped (killed if it still runs) whatever happens; its error answers raised as the
    server's thread would see them (MemoryError's as a readable InputError, ValueError as ValueError)."""
    slots = _queue(conf.workers)
    slots.acquire(waiting, cancelled, cancel)
    ch = None
    try:
        ch = child.start(target, payload, env=_CHILD_ENV, registry=_children, lock=_lock)
        with _lock:
            _started[0] += 1
        msg = child.wait(ch, progress=report, tick=tick, cancelled=cancelled, cancel=cancel,
                         died=lambda: _died(ch.proc, conf.memory), seconds=conf.timeout,
                         timed_out=lambda: _timed_out(conf.timeout))
    finally:
        if ch is not None:
            child.stop(ch, _children, _lock)
        slots.semaphore.release()
    if msg[0] == "done":
        return msg
    what, text = msg[1], msg[2]
    if what == "memory":
        raise _memory_error(conf.memory)
    if what == "value":
        raise ValueError(text)
    raise InputError(f"the computation failed in its worker process ({text})",
                     hint=f"try again; if it happens again, {_WORDS.report}")


def in_child(kind: str, *, waiting: Callable[[int], None] | None = None,
             tick: Callable[[float], None] | None = None) -> Callable:
    """A function with the signature of the kind's (``(scores, run_ids, *, B, progress, threads, **params)``,
    :data:`dashboard.meta_kinds.META_KINDS`) that runs it in a child on one thread (``threads`` is not
    used) and returns its frames. ``progress(fraction)`` is called as the child reports, and with the last
    fraction about every quarter second; it cancels (:class:`evalcore.meta.Cancelled`, the child killed) by
    returning True, and any exception it raises kills the child and passes through. ``waiting(position)``
    while the computation waits for a free slot, ``tick(seconds)`` while it runs (places to draw)."""
    def run(scores, run_ids, *, B, progress=None, threads=1, **params):
        from evalcore.meta import Cancelled

        conf = settings()
        last = [0.0]

        def report(x: float):
            last[0] = float(x)
            return None if progress is None else progress(x)

        def cancelled() -> bool:
            return progress is not None and progress(last[0]) is True

        def cancel() -> Cancelled:
            return Cancelled(f"cancelled at {last[0]:.0%}")
        payload = (conf.memory, kind, dict(scores), list(run_ids), int(B), dict(params))
        msg = _run("dashboard.compute:serve", payload, conf, report=report, cancelled=cancelled, cancel=cancel,
                   waiting=waiting, tick=tick)
        return SimpleNamespace(**msg[1], cpu_seconds=msg[2])
    return run


def serve(fd_in: int, fd_out: int) -> None:
    """The child's main: read (memory, kind, scores, run_ids, B, params), run the kind's function on one
    thread under the memory limit, and send ("progress", x) messages and then ("done", frames, cpu seconds)
    or ("error", kind, text)."""
    payload, conn = child.accept(fd_in, fd_out)
    memory, kind, scores, run_ids, B, params = payload
    # imported before the limit, which bounds the computation, not the imports
    from .meta_kinds import META_KINDS

    child.restrict(memory, COMPUTE_NICE)
    fn, _, parts = META_KINDS[kind]
    last = [-1.0]

    def progress(x: float) -> None:
        if x - last[0] >= 0.01 or x >= 1.0:
            last[0] = x
            conn.send(("progress", float(x)))

    def work() -> dict:
        res = fn(scores, run_ids, B=B, progress=progress, threads=1, **params)
        # only what the server keeps: the kind's frames and the summary rows the Report takes
        return {n: getattr(res, n) for n in (*parts, "summary", "per_repeat") if getattr(res, n, None) is not None}
    _answer(conn, work)


def _answer(conn, work: Callable[[], object]) -> None:
    """In the child: ``work()``'s value sent as ("done", value, cpu seconds), or its error as ("error", kind,
    text): "memory" for a MemoryError, "value" for a ValueError (the server raises it again), else "other"."""
    try:
        t0 = time.process_time()
        value = work()
        conn.send(("done", value, time.process_time() - t0))
    except MemoryError:
        conn.send(("error", "memory", ""))
    except ValueError as e:
        conn.send(("error", "value", str(e)))
    except Exception as e:  # noqa: BLE001 - everything reaches the session as text
        conn.send(("error", "other", f"{type(e).__name__}: {str(e)[:500]}"))
    finally:
        conn.close()


# -- the Report page's build (dashboard.report.build): evalcore report's whole experiment ------------------
class _Rows:
    """The child's row store (:mod:`evalcore.meta.reuse`): the server's rows it was sent, and the rows the
    build keeps (``new``), sent back for the server's store."""

    def __init__(self, rows: list[tuple]):
        self.rows, self.new = dict(rows), []

    def lookup(self, key):
        return self.rows.get(key)

    def put(self, key, value) -> None:
        self.rows[key] = value
        self.new.append((key, value))


def report_in_child(c, argv: list[str], rows: list[tuple], *, progress: Callable[[float, str], object],
                    waiting: Callable[[int], None] | None = None,
                    tick: Callable[[float], None] | None = None) -> tuple:
    """:func:`dashboard.report.build` of ``argv`` on the collection ``c`` in a child (one thread, no worker
    processes; the same files byte for byte): ``(experiment, files, new rows)``. ``rows``: ``(key, row)``
    pairs of finished summary rows it may take (:mod:`evalcore.meta.reuse`); the new rows are the ones it
    computed. ``progress(fraction, message)`` as each step begins (a return of True cancels:
    :class:`evalcore.meta.Cancelled`, the child killed); an exception it, ``waiting`` or ``tick`` raises kills
    the child and passes through (a Stop, a rerun, a closed tab). A ValueError of the command passes through."""
    from evalcore.meta import Cancelled

    conf = settings()
    last: list = [0.0, None]

    def report(step):
        last[:] = [float(step[0]), step[1]]
        return progress(*last)

    def cancelled() -> bool:
        return progress(*last) is True

    def cancel() -> Cancelled:
        return Cancelled(f"cancelled at {last[0]:.0%}")
    msg = _run("dashboard.compute:serve_report", (conf.memory, c, list(argv), list(rows)), conf, report=report,
               cancelled=cancelled, cancel=cancel, waiting=waiting, tick=tick)
    return msg[1]


def serve_report(fd_in: int, fd_out: int) -> None:
    """The child's main for a report: read (memory, collection, argv, rows), build it under the memory limit
    with the rows as its reuse store, sending ("progress", (fraction, message)) at each step, then ("done",
    (experiment, files, new rows), cpu seconds) or ("error", kind, text)."""
    payload, conn = child.accept(fd_in, fd_out)
    memory, c, argv, rows = payload
    # imported before the limit, which bounds the build, not the imports (pandas, evalcore's report; no Streamlit)
    import evalcore.cli.report  # noqa: F401 - dashboard.report.build's own imports
    import evalcore.report.render  # noqa: F401

    from . import report

    child.restrict(memory, COMPUTE_NICE)
    store = _Rows(rows)
    del rows, payload

    def work() -> tuple:
        say = report.StepProgress(lambda f, m: conn.send(("progress", (float(f), str(m)))))
        e, files = report.build(c, argv, progress=say, reuse=store)
        return e, files, store.new
    _answer(conn, work)
