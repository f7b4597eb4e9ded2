"""The process-wide stores every session shares, bounded by the server's memory budget.

Memory: every cache whose entries grow with the data (scores, r_1 / r_p, counts, gain tables, run subsets,
finished meta results, evalcore's per-collection arrays) is a :class:`Store` (evalcore's one byte-bounded
cache, :class:`evalcore._cache.BytesLRU`) bounded by bytes from the server's memory budget
(:data:`BUDGET`, :mod:`dashboard.budget`, ``EVALCORE_SERVER_MEMORY_MB``), not by a count of entries: a
score matrix is 8 bytes x runs x topics, 4 MB on a 10,000 x 50 collection, and 2,048 of them were 8 GB.
The few ``st.cache_data`` functions left hold results of a fixed small size.

Cache keys always carry the data's identity, ``collection.fingerprint``, and only the settings a value
reads (:func:`memo`), so moving a gain slider recomputes the graded metrics and reuses AP, RR and NWRR.
The budget also bounds Streamlit's upload endpoint (``server.maxUploadSize``), set when this module is
first imported. Draws nothing: :func:`memo` hands a stale run over to the newer move (:mod:`dashboard.progress`).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

import numpy as np

import evalcore
from evalcore._cache import BytesLRU

from . import budget as _budget
from .progress import interrupt_point

#: what one upload may cost on a shared server (decompression, runs, topics, depth, tensor memory)
UPLOAD_LIMITS = evalcore.io.APP_LIMITS
#: every size derived from the server's memory (dashboard.budget; EVALCORE_SERVER_MEMORY_MB)
BUDGET = _budget.budget(max_runs=UPLOAD_LIMITS.max_runs)
# evalcore's per-collection arrays (graded hits, ideal vectors) within the same per-cache budget
evalcore.metrics.cache.max_bytes = BUDGET.cache_bytes


def _limit_upload_endpoint() -> None:
    """Lower Streamlit's per-file bound (``server.maxUploadSize``, read by the upload endpoint at every
    request, before the body is held) to the budget's; never raise what the operator configured. Run when
    the server's first page run imports this module, before any page can offer an uploader."""
    from streamlit import config as st_config
    try:
        now = int(st_config.get_option("server.maxUploadSize"))
    except Exception:   # noqa: BLE001 - no config (bare imports in tests): nothing to lower
        return
    if BUDGET.file_mb < now:
        st_config.set_option("server.maxUploadSize", BUDGET.file_mb, "dashboard.budget (EVALCORE_SERVER_MEMORY_MB)")


_limit_upload_endpoint()


def mb(n: int) -> str:
    """Bytes in whole MB, as the budget's messages state them."""
    return f"{n / 2**20:,.0f} MB"


class Store(BytesLRU):
    """A bounded, thread-safe LRU of finished results shared by every session: evalcore's one
    byte-bounded cache (:class:`evalcore._cache.BytesLRU`, its ``lookup`` / ``put`` side), bounded by
    ``max_entries`` and, for results, by ``max_bytes`` (a 100-run pair table is several MB); the
    newest entry is always kept.

    Why not ``st.cache_data`` with a progress callback: a cached function that
    draws into a bar created outside it raises ``CacheReplayClosureError`` on
    replay. Here the computation runs outside any cached function
    (so it may call a plain progress callback that draws) and only the
    finished, immutable result is kept. Identical settings in two sessions
    are one entry (a cache hit, not a recomputation).
    """

    def __init__(self, max_entries: int | None, max_bytes: int | None = None,
                 on_evict: Callable[[Hashable, int], None] | None = None):
        super().__init__(max_bytes, max_entries=max_entries, on_evict=on_evict)

    def get(self, key):  # type: ignore[override]  # the app looks results up by key alone
        return self.lookup(key)

    def items(self) -> list[tuple[Hashable, object, int]]:
        """``(key, value, bytes)`` of every entry, least recently used first (a snapshot; nothing is touched)."""
        with self._lock:
            return [(k, v, self._sizes.get(k, 0)) for k, v in self._d.items()]


def shared(make: Callable[[], Store]) -> Callable[[], Store]:
    """A process-wide store made on first use, as ``st.cache_resource`` without arguments gives, without its
    cost per call: it hashes the function at every call, and a page makes dozens of look-ups
    (docs/benchmarks.md section 16 gives the share of a page's CPU). ``.clear()`` drops it, as
    ``st.cache_resource``'s does."""
    box: list[Store] = []
    lock = threading.Lock()

    def get() -> Store:
        if not box:
            with lock:
                if not box:
                    box.append(make())
        return box[0]
    get.clear = box.clear       # type: ignore[attr-defined]
    return get


#: Arrays and frames derived from a collection, shared by every session, keyed by the collection's
#: fingerprint and only the settings each one reads; bounded by bytes (``BUDGET.cache_bytes``).
derived = shared(lambda: Store(None, BUDGET.cache_bytes))


def memo(key: tuple, make: Callable[[], object]):
    """``make()``, kept in :func:`derived` under ``key`` (arrays made read-only: every session shares them).

    Not ``st.cache_data``: that hashes every argument and unpickles a copy of the value at every hit, over
    the dozens of score look-ups a page makes (docs/benchmarks.md section 16), and bounds entries, not
    bytes."""
    store = derived()
    hit = store.lookup(key)
    if hit is None:
        interrupt_point()           # a newer move is waiting: do not start computing for a stale one
        hit = make()
        for a in hit if isinstance(hit, tuple) else (hit,):
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        store.put(key, hit)
    return hit
