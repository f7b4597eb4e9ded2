"""The server's memory budget, and every size the dashboard derives from it (docs/reliability.md, "Memory budget").

One setting, ``EVALCORE_SERVER_MEMORY_MB`` (the memory one server process may use), sizes everything a class
can make the server hold. Its default is this process's share of the machine (:func:`default_memory`): the
machine's RAM, or the container's (cgroup's) limit if lower, divided by the server processes sharing it -
``EVALCORE_SERVER_PROCESSES`` if set, else the dashboard servers found running on this machine when the
server's first page runs (the documented deployment, one ``streamlit run app.py`` per core behind nginx,
docs/deploy/nginx.conf, is so bounded without a setting; :func:`server_processes`):

=====================================  =====================================================================
what                                   bound
=====================================  =====================================================================
one uploaded file                      min(1 GiB, memory / 8): Streamlit refuses a larger file before holding
                                       its bytes (``server.maxUploadSize``, set from this at the first run)
one session's upload                   files <= 1 qrels + ``APP_LIMITS.max_runs`` runs, bytes <= min(1 GiB,
                                       memory / 8), checked before the files are read
all sessions' uploads held at once     memory / 4; a Load that would pass it waits for the others' to go
derived arrays (scores per metric,     one byte-bounded LRU each (:class:`evalcore._cache.BytesLRU`):
r_1 / r_p, counts, gain tables),       memory / 16 each, within [32 MiB, 1 GiB]
finished meta results, evalcore's
per-collection arrays
uploaded collections kept for reuse    memory / 8 (the upload store and the link store)
the pages' summary rows kept for the   memory / 256, within [4 MiB, 64 MiB]: the same LRU class (a row is
Report                                 counted at about 1 KB: 4 MiB hold some 4,000 rows, a report reads
                                       about 300)
=====================================  =====================================================================

So on a 4 GiB server: 512 MiB per file and per session, 1 GiB of uploads held, 256 MiB per cache, 16 MiB
of rows; on 32 GiB: 1 GiB per file and per session, 8 GiB of uploads, 1 GiB per cache, 64 MiB of rows.
Pure Python: no streamlit.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MiB = 1 << 20
GiB = 1 << 30
#: the smallest and the largest memory the setting accepts (MB)
MEMORY_MB_RANGE = (256, 16 * 1024 * 1024)
ENV = "EVALCORE_SERVER_MEMORY_MB"
#: the number of server processes sharing the machine's memory (default: the dashboard servers found running)
PROCESSES_ENV = "EVALCORE_SERVER_PROCESSES"
#: the range that setting accepts
PROCESSES_RANGE = (1, 4096)


def machine_memory() -> int:
    """Bytes of RAM this process may use: the machine's physical memory, or the cgroup's limit if lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                raw = f.read().strip()
        except OSError:
            continue
        if raw.isdigit() and 0 < int(raw) < total:
            total = int(raw)
    return int(total)


def _is_dashboard_server(pid: str) -> bool:
    """Whether process ``pid`` (Linux /proc) is a Streamlit server running this dashboard's ``app.py`` (any
    checkout or install of it: an ``app.py`` with ``dashboard/budget.py`` beside it)."""
    try:
        argv = [a.decode(errors="replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
    except OSError:
        return False
    if not any(os.path.basename(a).startswith("streamlit") or a == "streamlit" for a in argv) or "run" not in argv:
        return False
    script = next((a for a in argv[argv.index("run") + 1:] if not a.startswith("-")), None)
    if script is None or os.path.basename(script) != "app.py":
        return False
    try:
        where = Path(script) if os.path.isabs(script) else Path(os.readlink(f"/proc/{pid}/cwd")) / script
    except OSError:
        return False
    return (where.parent / "dashboard" / "budget.py").is_file()


def running_servers() -> int:
    """The dashboard servers running on this machine (:func:`_is_dashboard_server`; this one included when it is
    one), or 0 where /proc cannot tell (not Linux)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return 0
    try:
        pids = [d.name for d in proc.iterdir() if d.name.isdigit()]
    except OSError:
        return 0
    return sum(_is_dashboard_server(pid) for pid in pids)


def server_processes(env: dict | None = None) -> tuple[int, str]:
    """(the server processes that share the machine's memory, how that number was found):
    ``EVALCORE_SERVER_PROCESSES`` if set, else :func:`running_servers` (at least 1)."""
    n = whole_number_setting(PROCESSES_ENV, *PROCESSES_RANGE, "the dashboard server processes sharing this "
                             "machine's memory", unit="processes", env=env)
    if n is not None:
        return n, f"{PROCESSES_ENV}={n}"
    found = running_servers()
    return max(1, found), (f"{found} dashboard server processes found running" if found > 1 else
                           "one dashboard server process found running")


def default_memory(env: dict | None = None) -> tuple[int, str]:
    """(bytes, how they were derived): :func:`machine_memory` divided by :func:`server_processes`."""
    total = machine_memory()
    n, how = server_processes(env)
    if n == 1:
        return total, f"this machine's memory, {total // MiB:,} MB ({how})"
    return total // n, f"this machine's memory, {total // MiB:,} MB, shared by {n} server processes ({how})"


def server_memory(env: dict | None = None) -> int:
    """Bytes of the server's memory budget: ``EVALCORE_SERVER_MEMORY_MB`` (MB = MiB), else
    :func:`default_memory`.

    Raises ValueError naming the setting for a value that is not a whole number of MB in
    :data:`MEMORY_MB_RANGE`."""
    return memory_and_source(env)[0]


def memory_and_source(env: dict | None = None) -> tuple[int, str]:
    """(:func:`server_memory`, the words that say where it came from, for messages)."""
    mb = whole_number_setting(ENV, *MEMORY_MB_RANGE, "the server's memory", unit="MB", env=env)
    if mb is not None:
        return mb * MiB, f"set by {ENV}"
    m, how = default_memory(env)
    return m, f"the default: {how}; {ENV} sets it"


def return_to_os() -> int:
    """Collect garbage and hand the C heap's free pages back to the system (glibc's ``malloc_trim(0)``), after a
    closed tab's uploads were released: without it the freed arrays' pages stay in the process's heap and its
    RSS stays at its peak (docs/reliability.md, "Memory budget"). Returns the objects the collector found
    unreachable; elsewhere than glibc only the collection runs."""
    import gc
    found = gc.collect()
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return found


def whole_number_setting(name: str, lo: int, hi: int, meaning: str, unit: str = "",
                         env: dict | None = None) -> int | None:
    """The server setting ``name`` (an environment variable) as a whole number in [lo, hi]; None when it is
    unset or empty. Raises ValueError naming the setting, its range and ``meaning`` for anything else (signs,
    decimals, words, thousands of digits). Every dashboard server setting is read through here."""
    raw = (os.environ if env is None else env).get(name, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 20 or not lo <= int(raw) <= hi:
        def n(v: int) -> str:
            return f"{v:,}" if v >= 10_000 else str(v)
        of = f" of {unit}" if unit else ""
        raise ValueError(f"{name} must be a whole number{of} from {n(lo)} to {n(hi)} ({meaning}); got {raw[:40]!r}")
    return int(raw)


def _clamp(v: float, lo: int, hi: int) -> int:
    return int(min(max(v, lo), hi))


@dataclass(frozen=True)
class Budget:
    """Every size derived from the server's memory (bytes unless said otherwise); see the module doc."""

    memory: int
    file_bytes: int
    session_bytes: int
    session_files: int
    server_upload_bytes: int
    cache_bytes: int
    collections_bytes: int
    rows_bytes: int
    #: where ``memory`` came from (the setting, or how the default was derived), for messages
    source: str = "given"

    @property
    def file_mb(self) -> int:
        """The per-file bound in whole MB, as Streamlit's ``server.maxUploadSize`` takes it."""
        return max(1, self.file_bytes // MiB)


def budget(memory: int | None = None, max_runs: int = 500) -> Budget:
    """The sizes for a server with ``memory`` bytes (default :func:`server_memory`), ``max_runs`` runs per upload."""
    m, source = memory_and_source() if memory is None else (int(memory), "given")
    return Budget(memory=m, source=source, file_bytes=min(GiB, m // 8), session_bytes=min(GiB, m // 8),
                  session_files=1 + int(max_runs), server_upload_bytes=m // 4,
                  cache_bytes=_clamp(m / 16, 32 * MiB, GiB), collections_bytes=m // 8,
                  rows_bytes=_clamp(m / 256, 4 * MiB, 64 * MiB))
