"""Uploads loaded in a worker process: one upload never stalls the other sessions of the server.

Why: parsing is Python and numpy work in the server's own interpreter; while one session loaded a large
qrels file in it, much of the load holding the GIL, the other sessions' slider moves waited for it (their p95,
with and without the worker: docs/reliability.md, "Loads in a worker process", and docs/benchmarks.md
section 17), and the server kept the load's memory after the session was gone. Here:

* each load runs :func:`evalcore.load_collection` in a fresh interpreter (a subprocess started with
  ``sys.executable``: nothing of the server is inherited, and unlike multiprocessing's ``spawn`` it
  does not re-run the server's main module) with its own address-space limit (``LOAD_MEMORY``,
  ``RLIMIT_AS``), so a load that needs more ends in a readable error, not in a server that swaps;
* at most ``LOAD_WORKERS`` loads run at once (a semaphore): by default half the cores the server may
  use, and no more than the memory budget of all loads together (``EVALCORE_LOAD_BUDGET``, default half
  the machine's memory) holds at ``LOAD_MEMORY`` each (:func:`pool_size`); a session that waits sees its
  place in the queue (``waiting(position)``); the worker runs at niceness ``LOAD_NICE`` (10), so the
  other sessions' reruns get the CPU first on a busy machine;
* a load has a time limit from its worker's start that grows with its files (:func:`time_limit`:
  ``LOAD_BASE_SECONDS`` plus ``EVALCORE_LOAD_SECONDS_PER_MB`` per MB of text, compressed files counted at
  ``COMPRESSION`` times their size, at most ``EVALCORE_LOAD_TIMEOUT``, default 600 s): with one worker slot
  (a 2-core server), a hung load of a few MB held every other upload for the whole 600 s. A worker that
  takes longer, or hangs (stopped, deadlocked), is killed with a message saying what happened, the limit
  and how it was derived, and what to do, and its slot goes to the next load in the queue; a worker
  that dies (killed by a signal, the out-of-memory killer among them, or exiting early) is reported by
  its exit status, read before the end of its pipe is taken for an answer (:func:`_died`), and the next
  load - a retry too - gets a fresh worker;
* clean stops: a worker watches the pipe its payload came through, which the server holds open for the
  whole load; when the server goes (stopped, killed) the pipe closes and the worker exits at once. On a
  normal stop (SIGTERM: Streamlit stops and the interpreter exits) the running workers are killed and
  the staging directories removed (``atexit``); a staging directory is named with the server's process
  id (``evalcore-load-<pid>-...``), and those of a server that no longer runs (killed, crashed) are
  removed when the next one starts (:mod:`dashboard.staging`, called first thing by ``app.py``);
* the uploaded bytes reach the worker as files, not through the pipe: each ``(name, bytes)`` is
  written to a private temporary directory (``EVALCORE_LOAD_DIR``, default the system's temporary
  directory; removed when the load ends, cancelled or not) and the worker is sent only their names and
  paths (a few hundred bytes), reading each file once. Pickling the bytes cost the server a second
  copy of the upload (the pickle) and the worker two (the pickle and the bytes); if the files cannot be
  written (a full disk), the bytes go through the pipe as before;
* the worker hands back only the compact collection (the levels tensor and its report), pickled
  through a pipe; its parse memory goes with the process;
* the load is cancelled (the worker killed) as soon as the waiting session's callback raises -
  Streamlit raises in the session's script thread when the session goes away (a closed tab) or
  reruns, at the next element the loop draws - or ``cancelled()`` says so.

The child machinery (start, lifeline, limits, queue, wait loop, death diagnosis) is :mod:`dashboard.child`,
shared with the long resampling computations (:mod:`dashboard.compute`).

No Streamlit here: the callbacks draw (``dashboard.uploads.load_upload`` passes them).
Settings (environment): ``EVALCORE_LOAD_WORKERS`` (loads at once; default :func:`pool_size`),
``EVALCORE_LOAD_MEMORY`` (bytes of address space per worker, default 4 GiB), ``EVALCORE_LOAD_BUDGET``
(bytes all loads together may take, default half the machine's memory), ``EVALCORE_LOAD_TIMEOUT``
(the most seconds any load may take, default 600), ``EVALCORE_LOAD_SECONDS_PER_MB`` (seconds a load may take
per MB of text, default 3), ``EVALCORE_LOAD_INPROCESS=1`` (load in the server's own
interpreter, as before: for debugging).
"""
from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from evalcore.collection import Collection
from evalcore.io import InputError
from evalcore.io.limits import human_bytes

from . import child
from .child import pool_size
from .gate import GATE
from .staging import PREFIX as _PREFIX
from .staging import staging_root as _staging_root
from .staging import sweep_once, sweep_stale

__all__ = ["LOAD_MEMORY", "LOAD_TIMEOUT", "LOAD_WORKERS", "LoadCancelled", "TimeLimit", "load_in_worker",
           "pool_size", "queue_length", "sweep_stale", "time_limit"]


LOAD_MEMORY = int(os.environ.get("EVALCORE_LOAD_MEMORY", str(4 << 30)))
LOAD_BUDGET = int(os.environ.get("EVALCORE_LOAD_BUDGET", str(child.machine_memory() // 2)))
LOAD_WORKERS = max(1, int(os.environ.get("EVALCORE_LOAD_WORKERS")
                          or pool_size(child.cores(), LOAD_BUDGET, LOAD_MEMORY)))
LOAD_TIMEOUT = 600.0   # the most seconds any load may take unless EVALCORE_LOAD_TIMEOUT says otherwise
#: Seconds every load may take besides its files: a worker interpreter starting and importing evalcore on a
#: busy machine at niceness 10.
LOAD_BASE_SECONDS = 60.0
#: Seconds a load may take per MB of text unless EVALCORE_LOAD_SECONDS_PER_MB says otherwise: above every
#: wall time per MB measured for a worker's load, the slowest path on the busiest host included, and over
#: ten times the CPU time of the slowest path now (docs/reliability.md, "Loads that cannot hang the queue"),
#: so only a stuck load reaches it.
SECONDS_PER_MB = 3.0
#: A compressed file (.gz, .zip) counts as this many times its size in text: real runs compress 4-6 x
#: (docs/reliability.md, "In short").
COMPRESSION = 6
LOAD_NICE = 10   # the worker's scheduling niceness (lower priority than the server's threads)

_queue = child.Slots(LOAD_WORKERS)        # the loads waiting for a slot, first come first served
_slots = _queue.semaphore                 # the slots (a module name, read at each load: tests swap it)
_lock = threading.Lock()
_workers: set[subprocess.Popen] = set()   # the running workers (killed at exit)
_staging: set[str] = set()                # the staging directories of the running loads (removed at exit)


class LoadCancelled(Exception):
    """The session that asked for the load went away (or asked to stop); the worker was killed."""


def queue_length() -> int:
    """Loads waiting for a free worker now."""
    return _queue.waiting()


class _OnDisk(NamedTuple):
    """An uploaded file handed to the worker by its path: ``name`` as uploaded (for the messages and
    the format), ``path`` where the server wrote its bytes."""

    name: str
    path: str


def _is_upload(x) -> bool:
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], (bytes, bytearray, memoryview))


def _stage(source, where: str, count: list[int]):
    """``source`` with every ``(name, bytes)`` written to a file in ``where`` and replaced by an
    :class:`_OnDisk` (lists element by element; paths and other values unchanged)."""
    if _is_upload(source):
        count[0] += 1
        path = os.path.join(where, str(count[0]))
        with open(path, "wb") as fh:
            fh.write(source[1])
        return _OnDisk(str(source[0]), path)
    if isinstance(source, list):
        return [_stage(x, where, count) for x in source]
    return source


def _unstage(source):
    """In the worker: every :class:`_OnDisk` read back into ``(name, bytes)``."""
    if isinstance(source, _OnDisk):
        return source.name, Path(source.path).read_bytes()
    if isinstance(source, list):
        return [_unstage(x) for x in source]
    return source


def _at_exit() -> None:
    """The server stops (SIGTERM, Ctrl-C: Streamlit stops and the interpreter exits, its script threads
    being daemons): kill the running workers and remove the staging directories."""
    with _lock:
        procs, dirs = list(_workers), list(_staging)
    for p in procs:
        try:
            p.kill()
        except OSError:
            pass
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


if os.environ.get("EVALCORE_LOAD_WORKER") != "1":   # the server (a worker imports this module too)
    atexit.register(_at_exit)
    sweep_once()     # app.py has already swept (dashboard.staging); a server started otherwise sweeps here


def _payload(qrels, runs) -> tuple[object, object, str | None]:
    """(qrels, runs, directory): the uploads written to a new private directory, or, if that fails
    (a full disk, no temporary directory), the sources unchanged and None."""
    where = None
    try:
        where = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=_staging_root())
        with _lock:
            _staging.add(where)
        count = [0]
        return _stage(qrels, where, count), _stage(runs, where, count), where
    except OSError:
        if where is not None:
            shutil.rmtree(where, ignore_errors=True)
        return qrels, runs, None


def _serve(fd_in: int, fd_out: int) -> None:
    """The worker's main: read (qrels, runs, options, memory) from ``fd_in`` (uploads as
    :class:`_OnDisk` paths, read here, under the memory limit), load, and send
    ("progress", x) messages and then ("done", collection) or ("error", kind, text) on ``fd_out``."""
    payload, conn = child.accept(fd_in, fd_out)     # the server's end of the payload pipe is this worker's lifeline
    qrels, runs, options, memory = payload
    child.restrict(memory, LOAD_NICE)   # the sessions' reruns first: a load may take longer, a slider must not
    try:
        import evalcore

        last = [-1.0]

        def progress(x: float) -> None:
            if x - last[0] >= 0.01 or x >= 1.0:
                last[0] = x
                conn.send(("progress", float(x)))

        qrels, runs = _unstage(qrels), _unstage(runs)
        c = evalcore.load_collection(qrels, runs, progress=progress, **options)
        del qrels, runs
        conn.send(("done", c))
    except MemoryError:
        conn.send(("error", "memory", ""))
    except InputError as e:
        conn.send(("error", "input", str(e)))
    except Exception as e:  # noqa: BLE001 - everything reaches the session as text
        conn.send(("error", "other", f"{type(e).__name__}: {str(e)[:500]}"))
    finally:
        conn.close()


def _start(payload) -> child.Child:
    """A worker interpreter (:func:`dashboard.child.start`) with the payload sent: the process, the result
    pipe and the payload pipe, kept open for the whole load (the worker's lifeline: closing it ends it)."""
    return child.start("dashboard.loader:_serve", payload, env={"EVALCORE_LOAD_WORKER": "1"}, registry=_workers,
                       lock=_lock)


def _memory_error(memory: int) -> InputError:
    return InputError(f"loading these files needs more than {human_bytes(memory)}, the memory one load may "
                      "take on this server", hint="load fewer runs or topics at once, or ask the server's "
                                                  "operator to raise EVALCORE_LOAD_MEMORY")


#: How a dead worker's message names a load (dashboard.child.died)
_WORDS = child.Words(job="load", doing="loading these files", smaller="load fewer runs or topics at once",
                     innocent="your files were not at fault", report="please report it with the files",
                     fewer="load fewer files at once", workers_env="EVALCORE_LOAD_WORKERS",
                     memory_env="EVALCORE_LOAD_MEMORY", small="the files are small")


def _died(proc: subprocess.Popen, memory: int) -> InputError:
    """Why a worker ended without an answer, from its exit status (:func:`dashboard.child.died`)."""
    what, hint = child.died(proc, memory, _WORDS)
    return InputError(what, hint=hint)


class TimeLimit(NamedTuple):
    """The time one load may take (``seconds``) and how it was derived, in words (``how``)."""

    seconds: float
    how: str


def _sizes(source, out: list[tuple[str, int]]) -> None:
    """(name, bytes) of every file in a load's source: uploads as ``(name, bytes)``, paths, lists of them."""
    if _is_upload(source):
        out.append((str(source[0]), len(source[1])))
    elif isinstance(source, (str, os.PathLike)):
        try:
            out.append((os.fspath(source), os.path.getsize(source)))
        except OSError:
            pass
    elif isinstance(source, list):
        for x in source:
            _sizes(x, out)


def time_limit(qrels, runs) -> TimeLimit:
    """The time a load of ``qrels`` and ``runs`` may take: ``LOAD_BASE_SECONDS`` plus
    ``EVALCORE_LOAD_SECONDS_PER_MB`` (default ``SECONDS_PER_MB``) per MB of text, a ``.gz`` or ``.zip``
    file counted at ``COMPRESSION`` times its size, and at most ``EVALCORE_LOAD_TIMEOUT`` (default
    ``LOAD_TIMEOUT``) seconds.

    >>> time_limit(("q.txt", b"x" * 10**6), [("r.gz", b"x" * 10**6)]).seconds   # 60 + 3 x (1 + 6)
    81.0
    """
    files: list[tuple[str, int]] = []
    _sizes(qrels, files)
    _sizes(runs, files)
    packed = sum(n for name, n in files if name.lower().endswith((".gz", ".zip")))
    text_mb = (sum(n for _, n in files) - packed + COMPRESSION * packed) / 1e6
    per_mb = child.env_seconds("EVALCORE_LOAD_SECONDS_PER_MB", SECONDS_PER_MB)
    cap = child.env_seconds("EVALCORE_LOAD_TIMEOUT", LOAD_TIMEOUT)
    scaled = LOAD_BASE_SECONDS + per_mb * text_mb
    seconds = min(scaled, cap)
    how = (f"{LOAD_BASE_SECONDS:g} s to start plus {per_mb:g} s per MB of text for these files' {text_mb:,.1f} MB"
           + (f" (compressed files counted at {COMPRESSION} x their size)" if packed else ""))
    how += (f", capped at {cap:g} s (EVALCORE_LOAD_TIMEOUT)" if scaled > cap else
            f", at most {cap:g} s (EVALCORE_LOAD_TIMEOUT)")
    return TimeLimit(round(seconds, 1), how)


def _timed_out(limit: TimeLimit) -> InputError:
    return InputError(
        f"the load took more than {limit.seconds:g} s and was stopped: this load's time limit on this server is "
        f"{limit.how}. That is several times what a load of these files takes even on a busy server, so the load "
        "was most likely stuck, or the server overloaded; your files may well be fine",
        hint="try again in a moment; if it stops again, load fewer or smaller files at once (or uncompressed "
             "ones), or ask the server's operator (EVALCORE_LOAD_SECONDS_PER_MB, EVALCORE_LOAD_TIMEOUT)")


def _wait_for_slot(waiting: Callable[[int], None] | None, cancelled: Callable[[], bool]) -> None:
    _queue.acquire(waiting, cancelled, lambda: LoadCancelled("the session went away while its load was waiting"),
                   semaphore=_slots)


def load_in_worker(qrels, runs, *, progress: Callable[[float], None] | None = None,
                   waiting: Callable[[int], None] | None = None, tick: Callable[[float], None] | None = None,
                   cancelled: Callable[[], bool] = lambda: False, memory: int | None = None,
                   timeout: float | None = None, **options) -> Collection:
    """``evalcore.load_collection(qrels, runs, **options)`` in a worker process (see the module doc).

    ``progress(fraction)`` as runs are placed; ``waiting(position)`` while the load waits for a free
    worker (1 = next); ``tick(seconds)`` about every quarter second while the worker runs (a place to
    draw, so that a closed session's script thread stops here). Any exception a callback raises kills
    the worker and passes through. Bad input is an :class:`~evalcore.io.InputError`, as in-process; so
    is a load past its time limit (``timeout`` seconds, default :func:`time_limit` of the files) and a
    worker that died, each saying which and what to do.
    """
    memory = LOAD_MEMORY if memory is None else int(memory)
    limit = time_limit(qrels, runs) if timeout is None else TimeLimit(float(timeout), f"{float(timeout):g} s, as asked")
    GATE.step_aside()          # a load waits seconds to minutes: the other sessions' page runs go on meanwhile
    if os.environ.get("EVALCORE_LOAD_INPROCESS") == "1":
        import evalcore

        return evalcore.load_collection(qrels, runs, progress=progress, **options)
    _wait_for_slot(waiting, cancelled)
    worker = where = None
    try:
        qrels, runs, where = _payload(qrels, runs)
        worker = _start((qrels, runs, options, memory))
        msg = child.wait(worker, progress=progress, tick=tick, cancelled=cancelled, seconds=limit.seconds,
                         timed_out=lambda: _timed_out(limit), died=lambda: _died(worker.proc, memory),
                         cancel=lambda: LoadCancelled("the session went away while its load was running"))
        if msg[0] == "done":
            return msg[1]
        kind, text = msg[1], msg[2]
        if kind == "memory":
            raise _memory_error(memory)
        if kind == "input":
            raise InputError(text)
        raise InputError(f"these files could not be loaded ({text})",
                         hint="check that they are TREC / NTCIR qrels and run files; please report "
                              "the files if they are")
    finally:
        if worker is not None:
            child.stop(worker, _workers, _lock)
        if where is not None:
            shutil.rmtree(where, ignore_errors=True)
            with _lock:
                _staging.discard(where)
        _slots.release()
