"""Where uploads wait for their load's worker, and the removal of what a dead server left there.

A load writes the uploaded files to a private directory named ``evalcore-load-<server pid>-...`` under
``EVALCORE_LOAD_DIR`` (default: the system's temporary directory; :mod:`dashboard.loader`). A server that
stops normally removes its own; one that is killed (SIGKILL, the out-of-memory killer, a crash) cannot, and
its staged upload - the whole upload, hundreds of MB for a real one - would stay on disk.
:func:`sweep_once` removes those of servers that no longer run; ``app.py`` calls it before anything else
of the dashboard is imported, so it runs at the first page run of a new server, the earliest point
Streamlit runs the app's code (docs/reliability.md, "Loads that cannot hang the queue").

Two servers on one machine share the directory, so a directory is removed only when its owner is shown
to be gone: no process has its id, or the process that has it now started after the directory was last
written (the id was reused by a later process). A process of another user counts as alive.

Standard library only: this runs before numpy, evalcore or Streamlit are imported.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading

__all__ = ["PREFIX", "owner_alive", "staging_root", "sweep_once", "sweep_stale"]

#: The start of every staging directory's name; the server's process id follows.
PREFIX = "evalcore-load-"
_NAME = re.compile(re.escape(PREFIX) + r"(\d+)-")
#: Seconds of tolerance between a process's start time (read from /proc, boot time in whole seconds) and
#: a directory's modification time.
_SLACK = 2.0


def staging_root() -> str:
    """The directory staging directories are made in: ``EVALCORE_LOAD_DIR``, else the system's temporary one."""
    return os.environ.get("EVALCORE_LOAD_DIR") or tempfile.gettempdir()


def _started(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), from /proc; None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/stat") as f:
            boot = next(float(line.split()[1]) for line in f if line.startswith("btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def owner_alive(pid: int, written: float) -> bool:
    """Whether the server that made a staging directory last written at ``written`` (seconds since the
    epoch) may still run: a process ``pid`` exists and did not start after the directory was written."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:     # another user's process: alive
        return True
    started = _started(pid)
    return started is None or started <= written + _SLACK


def sweep_stale(root: str | None = None) -> list[str]:
    """Remove the staging directories (``evalcore-load-<pid>-...``) of servers that no longer run (killed
    or crashed during a load); returns their paths. Those of running servers, this one's among them, are
    kept."""
    root = root or staging_root()
    gone: list[str] = []
    try:
        names = os.listdir(root)
    except OSError:
        return gone
    for name in names:
        m = _NAME.match(name)
        if not m or int(m.group(1)) == os.getpid():
            continue
        path = os.path.join(root, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if os.path.isdir(path) and not os.path.islink(path) and not owner_alive(int(m.group(1)), st.st_mtime):
            shutil.rmtree(path, ignore_errors=True)
            gone.append(path)
    return gone


_done: list[str] | None = None
_lock = threading.Lock()


def sweep_once() -> list[str]:
    """:func:`sweep_stale` once per server process (the first call sweeps; later calls return what it removed)."""
    global _done
    with _lock:
        if _done is None:
            _done = sweep_stale()
        return list(_done)
