"""A least-recently-used cache of per-collection derived arrays, bounded by bytes, not by entries.

Why bytes: one gain setting's graded hits take ~32 bytes per relevant
retrieved document - 0.1 MB on clef2015 but ~50 MB on a 25 M-line
collection - so a cap of "16 settings" meant 1.6 MB for one collection and
0.8 GB for the other. Here the cap is a memory budget (:data:`DEFAULT_BYTES`,
change it with ``cache.max_bytes = ...``); the least recently used values
go first. A value larger than the whole budget is computed and returned but
not kept.

Entries are keyed by the collection's identity and are dropped as soon as the
collection is garbage-collected (the cache never keeps a collection, and
so its tensor, alive). Thread-safe (Streamlit runs sessions in threads).
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

DEFAULT_BYTES = 256 * 2**20


def nbytes(value: Any) -> int:
    """Bytes held by a numpy array, or by the arrays in a (nested) tuple / list."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(nbytes(v) for v in value)
    return 0


def _read_only(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for v in value:
            _read_only(v)
    return value


class BytesLRU:
    """``get(owner, key, make)``: ``make()``'s value for (owner, key), cached within ``max_bytes``."""

    def __init__(self, max_bytes: int = DEFAULT_BYTES):
        self.max_bytes = int(max_bytes)
        self.nbytes = 0
        self._items: OrderedDict[tuple[int, Hashable], tuple[Any, int]] = OrderedDict()
        self._owners: dict[int, weakref.finalize] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, owner: object, key: Hashable, make: Callable[[], Any]) -> Any:
        k = (id(owner), key)
        with self._lock:
            hit = self._items.get(k)
            if hit is not None:
                self._items.move_to_end(k)
                return hit[0]
        value = _read_only(make())  # outside the lock: other threads keep reading
        size = nbytes(value)
        with self._lock:
            if size > self.max_bytes or k in self._items:
                return value
            if id(owner) not in self._owners:
                self._owners[id(owner)] = weakref.finalize(owner, self._forget, id(owner))
            self._items[k] = (value, size)
            self.nbytes += size
            self._shrink()
        return value

    def _shrink(self) -> None:
        while self.nbytes > self.max_bytes and self._items:
            _, (_, size) = self._items.popitem(last=False)
            self.nbytes -= size

    def _forget(self, owner_id: int) -> None:
        with self._lock:
            for k in [k for k in self._items if k[0] == owner_id]:
                self.nbytes -= self._items.pop(k)[1]
            self._owners.pop(owner_id, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.nbytes = 0
