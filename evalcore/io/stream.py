"""Streaming the runs into the tensor: a bounded window of runs in flight, and a tensor that grows.

Why: holding every parsed run until the end made peak memory grow with the
text of all runs (~45 bytes per run line); here a run's text is dropped as
soon as its rows are placed.
"""
from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator

import numpy as np


def _in_order(fn: Callable, items: list, workers: int) -> Iterator:
    """``fn(item)`` for every item, yielded in order, with at most ``workers`` calls under way or
    waiting to be consumed: memory holds that many runs' text, never all of them."""
    if workers <= 1 or len(items) <= 1:
        for x in items:
            yield fn(x)
        return
    with ThreadPoolExecutor(max_workers=workers) as ex:
        pending: deque = deque()
        try:
            for x in items:
                pending.append(ex.submit(fn, x))
                if len(pending) >= workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for fut in pending:
                fut.cancel()


class _Tensor:
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
        self.levels[r, pl.topic, pl.pos] = np.maximum(lv, 0)
        self.unjudged[r, pl.topic, pl.pos] = lv < 0

    def final(self) -> tuple[np.ndarray, np.ndarray]:
        if self.levels.shape[2] > self.D:
            self.levels = np.ascontiguousarray(self.levels[:, :, :self.D])
            self.unjudged = np.ascontiguousarray(self.unjudged[:, :, :self.D])
        return self.levels, self.unjudged
