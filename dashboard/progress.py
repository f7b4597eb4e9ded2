"""What a long computation shows, and how a newer move stops it: progress bars and stale work.

Stale work: a newer move of the same session makes this run's remaining work pointless. Streamlit stops
a run only at its next element; long numpy work between elements checks :func:`superseded` (between
metrics, and between the chunks of every resampling method through its progress callback, made by
:func:`cancellable`) and hands the run over at once (:func:`interrupt_point`).

A :class:`Progress` bar is also the busy gate's hook (:mod:`dashboard.gate`): a computation that shows one
is long, so its page run steps aside and the other sessions' page runs need not wait for it. No evalcore
import: this module only draws.
"""
from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from . import gate as _gate


def superseded() -> bool:
    """Whether a newer rerun (or a stop) of this session is waiting: the rest of this run is stale.

    Reads the script runner's pending request (Streamlit acts on it at the next element; this lets
    numpy work between elements find out). False outside a script run."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    ctx = get_script_run_ctx(suppress_warning=True)
    pending = getattr(getattr(ctx, "script_requests", None), "_state", None)
    return pending is not None and getattr(pending, "name", "CONTINUE") != "CONTINUE"


def interrupt_point() -> None:
    """If a newer rerun is waiting, hand over to it now (Streamlit raises its rerun or stop at an element)."""
    if superseded():
        st.empty()


def cancellable(progress: Callable | None) -> Callable[[float], object]:
    """A progress callback for evalcore.meta that also cancels (returns True) once the run is stale."""
    def cb(frac: float):
        if superseded():
            return True
        return None if progress is None else progress(frac)
    return cb


class Progress:
    """A progress callback for evalcore.meta drawing into a st.progress bar.

    Never pass it into a ``st.cache_*`` function: a cached function that draws into a bar created outside
    it raises ``CacheReplayClosureError`` on replay (:class:`dashboard.stores.Store` says what is kept
    instead)."""

    def __init__(self, text: str):
        _gate.GATE.step_aside()        # a long computation: the other sessions' page runs need not wait for it
        self.bar = st.progress(0.0, text=text)
        self.text = text
        self.last = -1.0
        self.t0 = time.perf_counter()
        #: how far it got, for a Stop button's callback (it runs in the next script run, this object aside)
        self.state = {"frac": 0.0, "seconds": 0.0, "t0": self.t0}

    def __call__(self, frac: float, text: str | None = None):
        frac = float(min(max(frac, 0.0), 1.0))
        if text is not None and text != self.text:
            self.text, self.last = text, -1.0         # a new step: always shown
        self.state.update(frac=frac, seconds=time.perf_counter() - self.t0)
        if frac - self.last >= 0.02 or frac >= 1.0:
            self.last = frac
            self.bar.progress(frac, text=f"{self.text} {frac:.0%} ({time.perf_counter() - self.t0:.1f} s)")
        return None

    def stopped_at(self) -> dict:
        """How far it got when a Stop button was pressed: ``frac`` and ``seconds`` since it started."""
        return {"frac": self.state["frac"], "seconds": time.perf_counter() - self.t0}

    def done(self):
        self.bar.empty()


def loader_callbacks(progress) -> dict:
    """Queue position and elapsed time drawn into a :class:`Progress` bar while a load waits or runs.
    Drawing is also how a closed session stops: Streamlit raises in its script thread at the next
    element, and dashboard.loader then kills the worker."""
    return queue_callbacks(progress, "the loader", "upload")


def queue_callbacks(progress, what: str, item: str, *, percent: bool = False) -> dict:
    """``waiting(position)`` and ``tick(seconds)`` drawing into a :class:`Progress` bar while a job in a child
    process (dashboard.child) waits for ``what`` ("the loader") behind ``position`` others (``item``: "upload"), or runs
    (the elapsed seconds; ``percent``: with the fraction done). Empty for a callback that is no such bar."""
    bar = getattr(progress, "bar", None)
    if bar is None:
        return {}
    shown = [-1]

    def waiting(position: int) -> None:
        bar.progress(0.0, text=f"Waiting for {what}: {position} {item}{'s' if position > 1 else ''} "
                               f"ahead of this one ...")

    def tick(seconds: float) -> None:
        if int(seconds) != shown[0]:
            shown[0] = int(seconds)
            done = max(progress.last, 0.0)
            bar.progress(done, text=f"{progress.text}{f' {done:.0%}' if percent else ''} ({seconds:.0f} s)")
    return {"waiting": waiting, "tick": tick}
