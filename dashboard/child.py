"""Child interpreters for the dashboard's long work: what loading an upload (:mod:`dashboard.loader`) and a
page's long resampling computation (:mod:`dashboard.compute`) share.

Why a child: Python work in the server's interpreter holds its GIL for part of its time, so one session's
long load or computation slowed every other session's slider moves (docs/reliability.md, "Loads in a
worker process"). A child here is

* a fresh interpreter (a subprocess started with ``sys.executable -c``: nothing of the server is inherited,
  and unlike multiprocessing's ``spawn`` it does not re-run the server's main module), given its payload
  through one pipe and answering through another (:func:`start`);
* tied to the server by that payload pipe, which the server holds open for the child's whole life: when the
  server goes (stopped, killed) the pipe closes and the child exits at once (:func:`accept`, in the child);
  on a normal stop (SIGTERM: Streamlit stops and the interpreter exits) the running children are killed
  (``atexit``);
* bounded: an address-space limit (``RLIMIT_AS``) and a niceness of its own (:func:`restrict`), and a
  semaphore per kind of work bounding how many run at once, a waiting session seeing its place in the queue
  (:class:`Slots`, sized by :func:`pool_size` from the cores and a memory budget);
* watched (:func:`wait`): its progress messages go to the session's callback, a tick lets the session draw
  (and so stop, when it went away), a cancel or a callback's exception kills it, and a child that ends without
  an answer is diagnosed from its exit status, read before the end of its pipe is taken for an answer
  (:func:`died`): killed (the out-of-memory killer), aborted by a library short of memory, another signal,
  an early exit - each in words that say what to do (:class:`Words`).

The messages a child sends are tuples: ``("progress", fraction)`` any number of times, then one answer
(``("done", value)`` or ``("error", kind, text)``), which :func:`wait` returns. No Streamlit and no evalcore
computation here.
"""
from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple

from evalcore.io.limits import human_bytes

__all__ = ["TICK", "CHILD_ENV", "MIN_MEMORY", "Child", "Slots", "Words", "accept", "cores", "died", "env_bytes",
           "env_count", "env_seconds", "machine_memory", "pool_size", "restrict", "running", "start", "stop", "wait"]

TICK = 0.25   # seconds between looks at a child (and calls of the session's callbacks)
#: Set in every child's environment: a module imported there registers no server-side cleanup.
CHILD_ENV = "EVALCORE_CHILD"

_lock = threading.Lock()
_all: set[subprocess.Popen] = set()      # every running child of this server (killed at exit)


def cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):   # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def machine_memory() -> int:
    """Bytes of physical memory of the machine."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):   # pragma: no cover - not on POSIX
        return 8 << 30


def pool_size(cores: int, budget: int, per_child: int) -> int:
    """Children that may run at once: half the ``cores`` (the sessions' reruns keep the other half), and no
    more than the ``budget`` of bytes all of them together may take holds at ``per_child`` each; at least 1.

    >>> pool_size(2, 64 << 30, 4 << 30), pool_size(16, 64 << 30, 4 << 30), pool_size(16, 10 << 30, 4 << 30)
    (1, 8, 2)
    """
    return max(1, min(cores // 2, budget // max(per_child, 1)))


# -- server settings ------------------------------------------------------------------------------------
def _raw(name: str) -> str:
    return os.environ.get(name, "").strip()


def env_seconds(name: str, default: float, *, low: float = 0.0, inclusive: bool = False) -> float:
    """A number of seconds from the server setting ``name`` (above ``low``, or from it when ``inclusive``;
    at most a day); ``default`` when unset. Raises ValueError naming the setting for anything else."""
    raw = _raw(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    ok = (low <= value if inclusive else low < value) and value <= 86_400
    if not ok:
        above = f"at least {low:g}" if inclusive else f"above {low:g}"
        raise ValueError(f"{name} must be a number of seconds {above} and at most 86400; got {raw[:40]!r}")
    return value


def env_count(name: str, default: int, *, high: int = 1024) -> int:
    """A whole number from 1 to ``high`` from the server setting ``name``; ``default`` when unset. Raises
    ValueError naming the setting for anything else."""
    raw = _raw(name)
    if not raw:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= high:
        raise ValueError(f"{name} must be a whole number from 1 to {high:,}; got {raw[:40]!r}")
    return int(raw)


#: The least memory a child may be given: an interpreter with numpy and pandas imported maps more.
MIN_MEMORY = 256 << 20


def env_bytes(name: str, default: int) -> int:
    """A number of bytes (at least :data:`MIN_MEMORY`) from the server setting ``name``; ``default`` when
    unset. Raises ValueError naming the setting for anything else."""
    raw = _raw(name)
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < MIN_MEMORY:
        raise ValueError(f"{name} must be a whole number of bytes, at least {MIN_MEMORY:,} "
                         f"({human_bytes(MIN_MEMORY)}); got {raw[:40]!r}")
    return int(raw)


# -- the queue ------------------------------------------------------------------------------------------
class Slots:
    """How many children of one kind of work run at once (a semaphore of ``size``), and who waits: first come
    first served, each waiting session told its place."""

    def __init__(self, size: int):
        self.size = int(size)
        self.semaphore = threading.BoundedSemaphore(self.size)
        self.lock = threading.Lock()
        self.queue: list[object] = []

    def waiting(self) -> int:
        """Sessions waiting for a slot now."""
        with self.lock:
            return len(self.queue)

    def acquire(self, waiting: Callable[[int], None] | None, cancelled: Callable[[], bool],
                cancel: Callable[[], BaseException], semaphore=None) -> None:
        """Wait for a slot (``semaphore``: another to wait on, e.g. one a test put in place), calling
        ``waiting(position)`` (1 = next) about every :data:`TICK`; raises ``cancel()`` once ``cancelled()``
        says so. A callback's exception passes through, the place in the queue given up."""
        sem = self.semaphore if semaphore is None else semaphore
        ticket = object()
        with self.lock:
            self.queue.append(ticket)
        try:
            while not sem.acquire(timeout=TICK):
                if cancelled():
                    raise cancel()
                if waiting is not None:
                    with self.lock:
                        pos = self.queue.index(ticket) + 1
                    waiting(pos)
        finally:
            with self.lock:
                self.queue.remove(ticket)


# -- starting, watching and stopping a child --------------------------------------------------------------
class Child(NamedTuple):
    """A started child: the process, the pipe its answers come through (``here``) and the payload pipe
    (``lifeline``), held open for the child's whole life (closing it ends the child)."""

    proc: subprocess.Popen
    here: Connection
    lifeline: Connection


def start(target: str, payload, *, env: dict[str, str] | None = None,
          registry: set[subprocess.Popen] | None = None, lock: threading.Lock | None = None) -> Child:
    """A child interpreter running ``target`` (``"package.module:function"``, called with the two pipes'
    file descriptors), its payload sent. The process is kept in ``registry`` (under ``lock``) besides this
    module's own list of children killed at exit."""
    module, func = target.split(":")
    to_r, to_w = os.pipe()
    from_r, from_w = os.pipe()
    root = str(Path(__file__).resolve().parents[1])
    full_env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", ""),
                CHILD_ENV: "1", **(env or {})}
    code = f"from {module} import {func}; {func}({to_r}, {from_w})"
    try:
        proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=(to_r, from_w), env=full_env, cwd=root,
                                stdin=subprocess.DEVNULL)
    finally:
        os.close(to_r)
        os.close(from_w)
    with _lock:
        _all.add(proc)
    if registry is not None:
        with lock or _lock:
            registry.add(proc)
    out = Connection(to_w, readable=False)
    try:
        out.send(payload)
    except OSError:   # the child died at once; its exit status says why
        pass
    return Child(proc, Connection(from_r, writable=False), out)


def stop(child: Child, registry: set[subprocess.Popen] | None = None, lock: threading.Lock | None = None) -> None:
    """The child killed if it still runs, reaped, forgotten, and its pipes closed."""
    child.here.close()
    proc = child.proc
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:   # pragma: no cover - a kill not taken within 5 s
        pass
    with _lock:
        _all.discard(proc)
    if registry is not None:
        with lock or _lock:
            registry.discard(proc)
    child.lifeline.close()


def running() -> int:
    """Children of this server running now (every kind)."""
    with _lock:
        return len(_all)


def wait(child: Child, *, died: Callable[[], BaseException], cancel: Callable[[], BaseException],
         progress: Callable[[float], object] | None = None, tick: Callable[[float], None] | None = None,
         cancelled: Callable[[], bool] = lambda: False, seconds: float | None = None,
         timed_out: Callable[[], BaseException] | None = None) -> tuple:
    """The child's answer (the first message that is not ``("progress", x)``).

    ``progress(x)`` for each progress message (a return of True cancels); ``cancelled()`` and
    ``tick(seconds since the start)`` about every :data:`TICK` while the child works. Raises ``cancel()``
    when cancelled, ``died()`` when the child ended without an answer, ``timed_out()`` after ``seconds``
    (None: no limit). A callback's exception passes through; the caller then stops the child (:func:`stop`).
    """
    proc, here = child.proc, child.here
    t0 = time.perf_counter()
    while True:
        if seconds is not None and timed_out is not None and time.perf_counter() - t0 > seconds:
            raise timed_out()   # checked first: a child that only reports progress too
        if here.poll(TICK):
            try:
                msg = here.recv()
            except EOFError:     # the child is gone: its exit status says why
                raise died() from None
            if msg[0] == "progress":
                if progress is not None and progress(msg[1]) is True:
                    raise cancel()
                continue
            return msg
        if proc.poll() is not None and not here.poll():
            raise died()
        if cancelled():
            raise cancel()
        if tick is not None:
            tick(time.perf_counter() - t0)


# -- inside the child --------------------------------------------------------------------------------------
def accept(fd_in: int, fd_out: int) -> tuple[Any, Connection]:
    """In the child: the payload read from ``fd_in`` and the connection to answer on. A daemon thread then
    watches the payload pipe, which the server holds open for the child's whole life: its end (the server
    stopped or was killed) ends this child at once."""
    src, conn = Connection(fd_in, writable=False), Connection(fd_out, readable=False)
    payload = src.recv()

    def lifeline() -> None:
        try:
            while True:
                src.recv_bytes()
        except (EOFError, OSError):
            os._exit(3)
    threading.Thread(target=lifeline, daemon=True).start()
    return payload, conn


def restrict(memory: int, nice: int) -> None:
    """In the child: at most ``memory`` bytes of address space (``RLIMIT_AS``: past it an allocation fails,
    a MemoryError, not a server that swaps) and a scheduling niceness of ``nice`` (the sessions' reruns
    first)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        os.nice(nice)
    except (ImportError, ValueError, OSError, AttributeError):  # pragma: no cover - not on this platform
        pass


# -- why a child ended without an answer ---------------------------------------------------------------
class Words(NamedTuple):
    """How the messages of :func:`died` name one kind of work (the loader's: "load", "loading these files",
    ...)."""

    job: str          # "load"
    doing: str        # "loading these files"
    smaller: str      # "load fewer runs or topics at once"
    innocent: str     # "your files were not at fault"
    report: str       # "please report it with the files"
    fewer: str        # "load fewer files at once" (after an early exit)
    workers_env: str  # "EVALCORE_LOAD_WORKERS"
    memory_env: str   # "EVALCORE_LOAD_MEMORY"
    small: str        # "the files are small"


def died(proc: subprocess.Popen, memory: int, words: Words) -> tuple[str, str]:
    """(what happened, what to do) for a child that ended without an answer, from its exit status - read
    first (waiting a moment for it): the end of its pipe alone says nothing (a killed child and a crashed
    one look alike there)."""
    try:
        rc = proc.wait(2)
    except subprocess.TimeoutExpired:
        rc = None
    w, mem = words, human_bytes(memory)
    if rc is not None and rc < 0:
        sig = -rc
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        if sig == signal.SIGKILL:
            return (f"the {w.job}'s worker process was killed (SIGKILL) before it finished: on a server this is "
                    f"usually the system's out-of-memory killer (the machine ran short of memory; one {w.job} may "
                    f"take {mem}), or the server's operator; {w.innocent}",
                    f"try again in a moment; if it happens again, {w.smaller}, or ask the server's operator "
                    f"({w.workers_env}, {w.memory_env})")
        if sig == signal.SIGABRT:
            # a C or C++ library that cannot allocate aborts (an uncaught std::bad_alloc, a failed allocation
            # check) where Python would raise MemoryError: under the child's address-space limit, the usual cause
            return (f"the {w.job}'s worker process was stopped by SIGABRT ({sig}) before it finished, as a library "
                    f"does when it cannot allocate memory: {w.doing} most likely needs more than {mem}, the memory "
                    f"one {w.job} may take on this server",
                    f"{w.smaller}, or ask the server's operator to raise {w.memory_env}; if {w.small}, {w.report}")
        return (f"the {w.job}'s worker process was stopped by {name} ({sig}) before it finished",
                f"try again; if it happens again, {w.report}")
    what = f"exited with status {rc}" if rc else "ended without an answer"
    return (f"the {w.job}'s worker process {what} before it finished",
            f"try again; if it happens again, {w.fewer}, or {w.report}")


def _at_exit() -> None:
    """The server stops (SIGTERM, Ctrl-C: Streamlit stops and the interpreter exits, its script threads
    being daemons): kill the running children."""
    with _lock:
        procs = list(_all)
    for p in procs:
        try:
            p.kill()
        except OSError:
            pass


if os.environ.get(CHILD_ENV) != "1":   # the server (a child imports this module too)
    atexit.register(_at_exit)
