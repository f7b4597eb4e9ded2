"""Page runs take turns: first come, first served, a few at a time (docs/reliability.md, "Serving a class").

One server process runs every session's script in a thread of its own, and the threads share one
interpreter lock: with 20 sessions moving sliders, 20 reruns were interleaved every few milliseconds,
each paying the others' cache misses and lock hand-overs, and which of them finished first was up to the
scheduler - so a move's settle time grew with the number of reruns in flight and had a long tail. The gate
lets :data:`SLOTS` page runs proceed at once and queues the others in arrival order; a run that has waited
:data:`PATIENCE_S` seconds goes on anyway (a gate never stops the server), and a run that starts a long
computation with a progress bar steps aside (:func:`step_aside`) so it does not hold the others up.

``EVALCORE_PAGE_SLOTS`` sets the slots (default :data:`DEFAULT_SLOTS`; 0 turns the gate off). Pure Python.
"""
from __future__ import annotations

import collections
import threading
import time
from contextlib import contextmanager

from .budget import whole_number_setting

ENV = "EVALCORE_PAGE_SLOTS"
DEFAULT_SLOTS = 1
SLOTS_RANGE = (0, 1000)
#: the longest a page run waits for its turn before it goes on anyway (seconds)
PATIENCE_S = 5.0
#: a slot held this long is taken as abandoned (a run stuck in a wait): it no longer counts (seconds)
STALE_S = 30.0


def slots(env: dict | None = None) -> int:
    """``EVALCORE_PAGE_SLOTS``, else :data:`DEFAULT_SLOTS`; ValueError naming the setting for a bad value."""
    n = whole_number_setting(ENV, *SLOTS_RANGE, "page runs at once; 0: no limit", env=env)
    return DEFAULT_SLOTS if n is None else n


class Gate:
    """At most ``n`` holders at once, served in arrival order; a waiter gives up waiting after ``patience``."""

    def __init__(self, n: int, patience: float = PATIENCE_S):
        self.n = int(n)
        self.patience = float(patience)
        self._cv = threading.Condition()
        self._queue: collections.deque = collections.deque()
        self._held: dict[object, float] = {}     # holder -> when it took its slot
        self._local = threading.local()

    def _busy(self, now: float) -> int:
        """Slots held, not counting those held longer than :data:`STALE_S`."""
        return sum(1 for t in self._held.values() if now - t < STALE_S)

    @contextmanager
    def turn(self):
        """Hold a slot for the ``with`` block (waiting for it first); re-entrant within a thread."""
        if self.n <= 0 or getattr(self._local, "held", None) is not None:
            yield
            return
        me = object()
        with self._cv:
            self._queue.append(me)
            deadline = time.monotonic() + self.patience
            while True:
                now = time.monotonic()
                if (self._busy(now) < self.n and self._queue[0] is me) or now >= deadline:
                    break
                self._cv.wait(min(deadline - now, 1.0))
            self._queue.remove(me)
            self._held[me] = time.monotonic()
            self._cv.notify_all()
        self._local.held = me
        try:
            yield
        finally:
            self.step_aside()

    def step_aside(self) -> None:
        """Give this thread's slot back now (a long computation follows); no-op if it holds none."""
        me = getattr(self._local, "held", None)
        if me is None:
            return
        self._local.held = None
        with self._cv:
            self._held.pop(me, None)
            self._cv.notify_all()

    @property
    def waiting(self) -> int:
        with self._cv:
            return len(self._queue)


def _configured() -> int:
    try:
        return slots()
    except ValueError as e:                  # said in the server log; the default is used
        import logging
        logging.getLogger(__name__).warning("%s; using %d", e, DEFAULT_SLOTS)
        return DEFAULT_SLOTS


#: the server's gate (one per process)
GATE = Gate(_configured())
