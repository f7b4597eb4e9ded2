"""One least-recently-used cache bounded by bytes (and, if asked, by entries), and its size function.

Why bytes: one gain setting's graded hits take ~32 bytes per relevant
retrieved document - 0.1 MB on clef2015 but ~50 MB on a 25 M-line
collection - so a cap of "16 settings" meant 1.6 MB for one collection and
0.8 GB for the other. Here the cap is a memory budget (:data:`DEFAULT_BYTES`,
change it with ``cache.max_bytes = ...``); the least recently used values
go first. Thread-safe (Streamlit runs sessions in threads).

Two ways in, one store:

- ``get(owner, key, make)``, evalcore's per-collection cache of derived arrays: entries are keyed by
  the owner's identity and dropped as soon as the owner is garbage-collected (the cache never keeps a
  collection, and so its tensor, alive); a value larger than the whole budget is computed and
  returned but not kept; kept arrays are made read-only.
- ``lookup(key)`` / ``put(key, value)``, the dashboard's store of finished results shared by every
  session (``dashboard.cached``): ``put`` always keeps the newest entry, even one over the budget
  (a result just computed is shown and looked up again at once), and ``max_entries`` may bound the
  count too; ``max_bytes=None`` bounds by entries only, and sizes are then not measured.

``on_evict(key, size)``, if given, is called for each entry the bounds push out (not for ``clear`` or an
owner's collection), with the cache's lock held: it must be quick and must not use the cache.
"""
from __future__ import annotations

import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

DEFAULT_BYTES = 256 * 2**20
#: A DataFrame's own memory besides its cells: :data:`FRAME_BYTES` for the frame, its index and column labels,
#: :data:`BLOCK_BYTES` for each block (one per numpy dtype, one per extension column such as pandas' arrow
#: strings) and 16 bytes a column. Fitted to tracemalloc's count of one-row frames of 6 to 32 columns and
#: 1 to 4 blocks (pandas 3; the fit's error: docs/benchmarks.md section 17): they dominate a small frame, so
#: they are counted, and a store of small frames is bounded by what they really hold.
FRAME_BYTES = 1664
BLOCK_BYTES = 680


def _frame_bytes(df) -> int:
    dtypes = df.dtypes.tolist()
    blocks = len({d for d in dtypes if isinstance(d, np.dtype)}) + sum(not isinstance(d, np.dtype) for d in dtypes)
    return FRAME_BYTES + BLOCK_BYTES * blocks + 16 * df.shape[1] + 8 * df.shape[0] * df.shape[1]


def nbytes(value: Any, depth: int = 0) -> int:
    """Approximate bytes held by a value: numpy arrays and pandas Series exactly, a DataFrame as its
    structures (:data:`FRAME_BYTES`, :data:`BLOCK_BYTES` a block, 16 bytes a column) + 8 bytes a cell
    (numbers; an arrow string cell is about as much - ``DataFrame.memory_usage`` builds a Series per
    call, too slow to run on every cached part of a live page), a string or number by ``sys.getsizeof``,
    dtypes as nothing (shared), and (nested) tuples and lists (8 bytes a slot + 56), dicts (their values +
    64 bytes an item) and plain objects' attributes, to depth 4 (deeper: 0)."""
    if depth > 4:
        return 0
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return 56 + 8 * len(value) + sum(nbytes(v, depth + 1) for v in value)
    if isinstance(value, (str, bytes, int, float, np.generic)):
        return 0 if isinstance(value, bool) else sys.getsizeof(value)
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        return _frame_bytes(value)
    if isinstance(value, pd.Series):
        return int(value.nbytes)
    if isinstance(value, (np.dtype, pd.api.extensions.ExtensionDtype)):
        return 0
    if isinstance(value, dict):
        return 64 * len(value) + sum(nbytes(v, depth + 1) for v in value.values())
    if hasattr(value, "__dict__"):
        return sum(nbytes(v, depth + 1) for v in vars(value).values())
    return 0


def _read_only(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for v in value:
            _read_only(v)
    return value


class BytesLRU:
    """A thread-safe LRU within ``max_bytes`` (None: unbounded by bytes) and ``max_entries`` (None:
    unbounded by count); see the module doc for its two ways in."""

    def __init__(self, max_bytes: int | None = DEFAULT_BYTES, *, max_entries: int | None = None,
                 on_evict: Callable[[Hashable, int], None] | None = None):
        self.max_bytes = None if max_bytes is None else int(max_bytes)
        self.max_entries = max_entries
        self.on_evict = on_evict
        self.nbytes = 0
        self._d: OrderedDict[Hashable, Any] = OrderedDict()
        self._sizes: dict[Hashable, int] = {}
        self._owners: dict[int, weakref.finalize] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._d)

    # -- by key: the dashboard's shared results --------------------------------------------------------
    def lookup(self, key: Hashable) -> Any:
        """The value kept for ``key`` (now the most recently used), or None."""
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
        return None

    def put(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` under ``key`` (replacing any), then drop the least recently used entries while
        over a bound - never the newest."""
        size = nbytes(value) if self.max_bytes is not None else 0
        with self._lock:
            self._insert(key, value, size)

    # -- by owner: evalcore's per-collection arrays ----------------------------------------------------
    def get(self, owner: object, key: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``'s value for (owner, key), cached while ``owner`` lives and the value fits the budget."""
        k = (id(owner), key)
        with self._lock:
            if k in self._d:
                self._d.move_to_end(k)
                return self._d[k]
        value = _read_only(make())  # outside the lock: other threads keep reading
        size = nbytes(value)
        with self._lock:
            if (self.max_bytes is not None and size > self.max_bytes) or k in self._d:
                return value
            if id(owner) not in self._owners:
                self._owners[id(owner)] = weakref.finalize(owner, self._forget, id(owner))
            self._insert(k, value, size)
        return value

    def _insert(self, key: Hashable, value: Any, size: int) -> None:
        self.nbytes += size - self._sizes.pop(key, 0)
        self._d[key] = value
        self._d.move_to_end(key)
        self._sizes[key] = size
        while len(self._d) > 1 and self._over():
            old, _ = self._d.popitem(last=False)
            size_old = self._sizes.pop(old, 0)
            self.nbytes -= size_old
            if self.on_evict is not None:
                self.on_evict(old, size_old)

    def _over(self) -> bool:
        return ((self.max_entries is not None and len(self._d) > self.max_entries)
                or (self.max_bytes is not None and self.nbytes > self.max_bytes))

    def _forget(self, owner_id: int) -> None:
        with self._lock:
            for k in [k for k in self._d if isinstance(k, tuple) and k and k[0] == owner_id]:
                del self._d[k]
                self.nbytes -= self._sizes.pop(k, 0)
            self._owners.pop(owner_id, None)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._sizes.clear()
            self.nbytes = 0
