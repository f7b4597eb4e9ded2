"""Streaming the runs into the tensor: a bounded window of runs in flight, and a tensor that grows.

Why: holding every parsed run until the end made peak memory grow with the
text of all runs (~45 bytes per run line); here a run's text is dropped as
soon as its rows are placed, and only the next run is read meanwhile (in one
reader thread): two runs at most, one of them only as its parsed columns.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np


def settle_malloc() -> None:
    """Let glibc's malloc keep the loader's per-run arrays instead of returning them to the system
    after every run.

    Why: placing a run allocates tens of MB of numpy temporaries; glibc (malloc.c, ``free``) trims the
    heap once more than ``trim_threshold`` is free at its top, and that threshold starts at 128 kB x 2,
    so every run faulted its pages in again, a large share of a big load's CPU
    (docs/benchmarks.md section 10.2). glibc raises both thresholds by itself the first time it frees a
    memory-mapped block larger than the current threshold (up to 32 MB: mmap threshold = that size,
    trim threshold = twice it); freeing one untouched 31 MB block now does that once, for the
    process, as reading any 31 MB file would have. Nothing else changes (no mallopt, no tunables);
    on other allocators it only costs a map and an unmap. Called once a first run of at least 50,000
    lines is placed (smaller collections do not need it).
    """
    np.empty(31 << 20, np.uint8)


class ReadAhead:
    """``fn(item)`` for every item, in order, each computed one item ahead in one reader thread.

    While the caller works on item ``i``'s result, the reader computes item ``i + 1`` (reading and
    parsing the next run file while this one is ordered and placed); it never runs further ahead,
    so memory holds at most two runs: the one being placed and the one being read. Nothing here
    keeps a result once handed over. ``ahead=False``: no thread, one item at a time. Use as a
    context manager: leaving it cancels the read ahead (after an error) and joins the thread.
    """

    def __init__(self, fn: Callable, items: list, ahead: bool = True):
        self.fn, self.items, self.i = fn, items, 0
        self.ex = ThreadPoolExecutor(max_workers=1) if ahead and len(items) > 1 else None
        self.next: Future | None = None

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc) -> None:
        if self.next is not None:
            self.next.cancel()
            self.next = None
        if self.ex is not None:
            self.ex.shutdown(wait=True)

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        if self.i >= len(self.items):
            raise StopIteration
        item = self.items[self.i]
        self.i += 1
        if self.ex is None:
            return self.fn(item)
        fut = self.next if self.next is not None else self.ex.submit(self.fn, item)
        self.next = self.ex.submit(self.fn, self.items[self.i]) if self.i < len(self.items) else None
        return fut.result()


class TensorFill:
    """The levels and unjudged tensors, filled one run at a time.

    The rank axis grows to the longest list seen so far (by half again at
    least, so that growing costs amortised linear time; never past
    ``depth``) and is trimmed to the longest list at the end. Peak memory:
    the final tensors (2 bytes per cell: int8 levels + bool unjudged) plus
    one copy while growing or trimming.
    """

    def __init__(self, n_runs: int, n_topics: int, depth: int | None, check: Callable | None = None,
                 max_depth: int | None = None):
        """``check(need, r, placed)`` raises before the rank axis grows to ``need`` for run ``r``;
        ``max_depth``: the rank axis never grows past it (the size limits), even by the extra half."""
        self.depth, self.D, self.check = depth, 1, check
        self.max_depth = max_depth
        self.levels = np.zeros((n_runs, n_topics, 1), dtype=np.int8)
        self.unjudged = np.zeros((n_runs, n_topics, 1), dtype=bool)

    def _grow(self, need: int) -> None:
        cap = max(need, self.levels.shape[2] * 3 // 2)
        if self.depth is not None:
            cap = min(cap, self.depth)
        if self.max_depth is not None:   # grow by half again only while that stays within the limits
            cap = max(need, min(cap, self.max_depth))
        for name in ("levels", "unjudged"):
            old = getattr(self, name)
            new = np.zeros(old.shape[:2] + (cap,), dtype=old.dtype)
            new[:, :, :old.shape[2]] = old
            setattr(self, name, new)
            del old, new

    def put(self, r: int, pl) -> None:
        """Write one placed run (``assemble._Placed``: topic, pos, level with -1 = unjudged) as run ``r``."""
        need = int(pl.lengths.max(initial=0))
        if need > self.levels.shape[2]:
            if self.check is not None:
                self.check(need, r, pl)   # raises before anything is sized by a depth over the limits
            self._grow(need)
        self.D = max(self.D, need)
        lv = pl.level
        cell = pl.topic.astype(np.int64) * self.levels.shape[2]  # one flat index into run r's (topic, rank) plane
        cell += pl.pos
        self.levels[r].reshape(-1)[cell] = np.maximum(lv, 0)
        self.unjudged[r].reshape(-1)[cell] = lv < 0

    def final(self) -> tuple[np.ndarray, np.ndarray]:
        if self.levels.shape[2] > self.D:
            self.levels = np.ascontiguousarray(self.levels[:, :, :self.D])
            self.unjudged = np.ascontiguousarray(self.unjudged[:, :, :self.D])
        return self.levels, self.unjudged
