"""Documented limits on what the loader accepts, checked before anything is sized by the input.

Hostile or careless input (a gzip or zip bomb, a label of 2**63, one topic
20,000 deep among 100,000 topics) must end in an :class:`InputError` that
says the cost and how to raise the limit - never in a server that swaps or
dies. Every limit here is checked *before* the memory it guards is taken:

* ``MAX_LEVEL`` (20, fixed): relevance labels above it are refused where
  they are read (file, line, value). TREC and NTCIR use at most 4-5 levels;
  the tensor is int8 and the dashboard draws one gain slider per level.
* Decompression (:class:`Limits` ``max_expanded_bytes``,
  ``expansion_ratio``, ``expansion_floor``): a ``.gz`` file, or a ``.zip``
  archive with everything in it (``.gz`` members included), may expand to
  at most ``min(max_expanded_bytes, max(expansion_floor, expansion_ratio x
  its compressed size))`` - by default min(4 GiB, max(16 MiB, 50 x)). Real
  runs compress 4-6 x (clef2015: at most 6.3 x), so 50 x leaves room while a
  bomb (1,000 x and more) stops early. Inflation is streamed in 4 MiB steps
  and stops when the limit is reached, so memory never grows past the limit
  plus one step. A plain file larger than ``max_expanded_bytes`` is refused
  before it is read; a file is read in steps and never past the limit,
  whatever its size on disk says (:func:`read_limited`: a file that grows
  while it is read, or a ``/proc`` file whose size reads 0, stops at the
  limit). Devices, FIFOs and sockets are refused unopened for reading
  (``/dev/zero`` never ends, and a FIFO without a writer would wait forever).
* Per load: ``max_total_expanded`` bounds what all the compressed files
  of one load expand to together (500 small ``.gz`` runs, each within its
  16 MiB floor, would otherwise expand to 8 GiB); ``max_members`` bounds a
  zip's members, read from its end record (and its central directory's
  size, which cannot hold more than one member per 46 bytes) before a
  single member is listed (listing a zip of a million members took memory
  far beyond its size: docs/reliability.md, "Parse memory").
* Sizes: ``max_runs``, ``max_topics`` (evaluated topics), ``max_depth``
  (the longest list kept, after ``depth=``) and ``max_tensor_bytes`` (the
  levels tensor plus its unjudged mask: 2 bytes per run x topic x rank,
  reported as ``LoadReport.tensor_bytes``).

Raise any of them with ``load_collection(..., limits=Limits(...))``, the
CLI options ``--max-expanded``, ``--max-memory``, ``--max-runs``,
``--max-topics``, ``--max-depth``, or ``dataclasses.replace(APP_LIMITS,
...)`` for the dashboard (which reads :data:`APP_LIMITS`).
"""
from __future__ import annotations

import os
import re
import stat
import threading
from dataclasses import dataclass, field

from .errors import InputError

__all__ = ["Limits", "DEFAULT_LIMITS", "APP_LIMITS", "MAX_LEVEL", "INFLATE_STEP", "human_bytes", "parse_size",
           "Budget", "Ctx", "read_limited"]

#: the highest relevance level read (labels 0..MAX_LEVEL; negative labels count as 0)
MAX_LEVEL = 20

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
INFLATE_STEP = 4 * MiB  # bytes inflated per step (the "small buffer" past a limit)


@dataclass(frozen=True)
class Limits:
    """What one ``load_collection`` call may cost; every field can be raised.

    Defaults suit a workstation (the API and the CLI); :data:`APP_LIMITS`
    is tighter, for a server shared by a class.
    """

    max_expanded_bytes: int = 4 * GiB
    expansion_ratio: float = 50.0
    expansion_floor: int = 16 * MiB
    max_runs: int = 2_000
    max_topics: int = 200_000
    max_depth: int = 100_000
    max_tensor_bytes: int = 2 * GiB
    max_total_expanded: int = 16 * GiB
    max_members: int = 200_000

    def __post_init__(self):
        for k in ("max_expanded_bytes", "expansion_floor", "max_runs", "max_topics", "max_depth",
                  "max_tensor_bytes", "max_total_expanded", "max_members"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"Limits.{k} must be a positive integer; got {v!r}")
        r = self.expansion_ratio
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not (1 <= r < float("inf")):
            raise ValueError(f"Limits.expansion_ratio must be a finite number >= 1; got {r!r}")

    def expanded_limit(self, compressed: int) -> int:
        """Bytes a compressed source of ``compressed`` bytes may expand to."""
        return int(min(self.max_expanded_bytes, max(self.expansion_floor, self.expansion_ratio * compressed)))

    def _budget(self, source: str, compressed: int) -> Budget:
        rule = (f"min({human_bytes(self.max_expanded_bytes)}, max({human_bytes(self.expansion_floor)}, "
                f"{self.expansion_ratio:g} x {human_bytes(compressed)} compressed))")
        return Budget(source, self.expanded_limit(compressed), rule)


#: the API's and the CLI's defaults
DEFAULT_LIMITS = Limits()

#: the dashboard's limits (uploads on a shared server): 1 GiB expanded per file and per upload,
#: 512 MiB tensor, 500 runs, 100,000 topics, depth 10,000, 20,000 zip members (clef2015 needs
#: 30 runs x 66 topics x 1,000: 4 MB)
APP_LIMITS = Limits(max_expanded_bytes=1 * GiB, max_runs=500, max_topics=100_000, max_depth=10_000,
                    max_tensor_bytes=512 * MiB, max_total_expanded=1 * GiB, max_members=20_000)


def human_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'; binary units, as the limits are set."""
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{int(n)} bytes"


#: Largest size :func:`parse_size` takes (1 PiB): a bound for --max-memory / --max-expanded, far above
#: any memory, so that a numeral of thousands of digits is refused instead of overflowing.
MAX_SIZE = 1 << 50
_SIZE_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:i?b)?\Z", re.IGNORECASE)


def parse_size(text: str, what: str = "size") -> int:
    """'512M', '4G', '1.5GiB', '1000000' -> bytes (binary units).

    >>> parse_size("512M"), parse_size("2GiB"), parse_size("100")
    (536870912, 2147483648, 100)
    """
    t = str(text).strip()
    m = _SIZE_RE.match(t) if len(t) <= 40 else None
    if not m:
        got = repr(text) if len(t) <= 40 else f"a text of {len(t):,} characters"
        raise ValueError(f"{what} must be a size such as 512M, 4G or 1000000; got {got}")
    n = float(m.group(1)) * {"": 1, "k": KiB, "m": MiB, "g": GiB, "t": 1 << 40}[m.group(2).lower()]
    if n < 1:
        raise ValueError(f"{what} must be at least 1 byte; got {text!r}")
    if n > MAX_SIZE:
        raise ValueError(f"{what} must be at most 1024T (2**50 bytes); got {text!r}")
    return int(n)


@dataclass
class Budget:
    """Expanded bytes left for one compressed source (a .gz file, or a zip and all it holds).

    Thread-safe: members of one zip may be inflated by two loader threads."""

    source: str
    limit: int
    rule: str = ""
    used: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def charge(self, n: int, member: str) -> None:
        with self.lock:
            self.used += n
            over = self.used > self.limit
        if over and self.source == "this load":
            raise InputError(
                f"the compressed files of this load expand to more than {human_bytes(self.limit)} together "
                f"({self.rule}); each file is within its own limit, but not all of them", file=member,
                hint="load fewer compressed files at once, or raise the limit: limits=Limits("
                     "max_total_expanded=...) or --max-expanded SIZE")
        if over:
            inside = "" if member == self.source else f" (inside {self.source})"
            raise InputError(
                f"expands to more than {human_bytes(self.limit)}{inside}, the decompression limit "
                f"({self.rule}); this looks like a decompression bomb", file=member,
                hint="if the data is genuine, raise the limit: limits=Limits(max_expanded_bytes=..., "
                     "expansion_ratio=...) or --max-expanded SIZE; or give the files uncompressed")


@dataclass
class Ctx:
    """Limits plus the notes (skipped files, ignored zip members) for the load report, and the
    expansion budget shared by every compressed file of one load (``max_total_expanded``)."""

    limits: Limits = DEFAULT_LIMITS
    notes: list[str] = field(default_factory=list)
    total: Budget | None = None

    def __post_init__(self):
        if self.total is None:
            n = self.limits.max_total_expanded
            self.total = Budget("this load", n, f"max_total_expanded = {human_bytes(n)} for all the "
                                                  "compressed files of one load")


_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def read_limited(path, limit: int, *, hint: str) -> bytes:
    """The bytes of the regular file ``path``, read in steps and refused past ``limit`` bytes.

    The size on disk is only a hint (``/proc`` files say 0, a growing file says less than it will
    hold): reading stops one byte past ``limit`` whatever it says. The file is opened without blocking
    and checked on the open descriptor, so a device, FIFO or socket is refused before anything is read
    from it (``/dev/zero`` never ends; a FIFO without a writer would wait forever). Errors are
    :class:`InputError` naming the file; ``hint`` says how to raise the limit.
    """
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise InputError(f"cannot read the file ({e.strerror or e})", file=name) from None
    try:
        st = os.fstat(fd)
        kind = next((k for test, k in _KINDS if test(st.st_mode)), None)
        if kind is not None or not stat.S_ISREG(st.st_mode):
            raise InputError(f"this is {kind or 'not a regular file'}, not a regular file; only regular files "
                             "are read (a device or a pipe may never end)", file=name,
                             hint="save the data to a file and give that file")
        if st.st_size > limit:
            raise InputError(f"the file is {human_bytes(st.st_size)}, larger than the input limit "
                             f"{human_bytes(limit)}", file=name, hint=hint)
        chunks, total = [], 0
        want = min(st.st_size, limit) + 1   # one read for a file as large as it says; more only if it grew
        while True:
            b = os.read(fd, min(want, INFLATE_STEP) if total else want)
            if not b:
                break
            chunks.append(b)
            total += len(b)
            if total > limit:
                raise InputError(f"the file holds more than {human_bytes(limit)}, the input limit (its size on "
                                 f"disk said {human_bytes(st.st_size)})", file=name, hint=hint)
            want = INFLATE_STEP
    except OSError as e:
        raise InputError(f"cannot read the file ({e.strerror or e})", file=name) from None
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
