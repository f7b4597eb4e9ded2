"""dashboard.gate: page runs take turns in arrival order, a few at a time, and never wait for ever.

Threads stand in for the server's script threads; events order them, so nothing depends on the CPU's speed
(the waits that must *not* end early are bounded by generous timeouts).
"""
from __future__ import annotations

import threading
import time

import pytest

from dashboard import gate


def test_the_setting_defaults_to_one_and_refuses_what_is_not_a_count():
    assert gate.slots({}) == gate.DEFAULT_SLOTS == 1
    assert gate.slots({gate.ENV: "0"}) == 0 and gate.slots({gate.ENV: " 3 "}) == 3
    for raw in ("-1", "1.5", "two", "1001", "9" * 4000):
        with pytest.raises(ValueError, match="EVALCORE_PAGE_SLOTS must be a whole number from 0 to 1000"):
            gate.slots({gate.ENV: raw})


def _queue_up(g: gate.Gate, names, log, inside, release, timeout=30.0):
    """Start one thread per name, each after the previous one is waiting; each logs its entry, counts the
    holders inside, and leaves when ``release[name]`` is set."""
    threads = []
    for name in names:
        before = g.waiting

        def body(name=name):
            with g.turn():
                with inside["lock"]:
                    inside["now"] += 1
                    inside["max"] = max(inside["max"], inside["now"])
                log.append(name)
                release[name].wait(timeout)
                with inside["lock"]:
                    inside["now"] -= 1
        t = threading.Thread(target=body, daemon=True)
        t.start()
        threads.append(t)
        deadline = time.monotonic() + timeout
        while g.waiting == before and name not in log and time.monotonic() < deadline:
            time.sleep(0.001)          # queued (or already in) before the next one starts
    return threads


def _counters():
    return {"lock": threading.Lock(), "now": 0, "max": 0}


def test_one_slot_serves_page_runs_one_at_a_time_in_arrival_order():
    g = gate.Gate(1, patience=60)
    names = ["a", "b", "c", "d", "e"]
    log, inside, release = [], _counters(), {n: threading.Event() for n in names}
    threads = _queue_up(g, names, log, inside, release)
    assert log == ["a"] and g.waiting == 4
    for n in names:                    # each leaves in turn; the next in line enters
        release[n].set()
    for t in threads:
        t.join(30)
    assert log == names and inside["max"] == 1 and g.waiting == 0


def test_two_slots_let_two_in_and_queue_the_rest():
    g = gate.Gate(2, patience=60)
    names = ["a", "b", "c"]
    log, inside, release = [], _counters(), {n: threading.Event() for n in names}
    threads = _queue_up(g, names, log, inside, release)
    assert sorted(log) == ["a", "b"] and g.waiting == 1
    release["a"].set()
    threads[2].join(0.01)
    deadline = time.monotonic() + 30
    while "c" not in log and time.monotonic() < deadline:
        time.sleep(0.001)
    assert log[-1] == "c"
    release["b"].set()
    release["c"].set()
    for t in threads:
        t.join(30)
    assert inside["max"] == 2


def test_a_run_that_waited_its_patience_goes_on_anyway():
    g = gate.Gate(1, patience=0.2)
    log, inside, release = [], _counters(), {"a": threading.Event(), "b": threading.Event()}
    release["b"].set()
    threads = _queue_up(g, ["a"], log, inside, release)
    t0 = time.monotonic()
    with g.turn():                     # "a" holds its slot and never gives it back in time
        waited = time.monotonic() - t0
        assert "a" in log and not release["a"].is_set()
    assert 0.15 <= waited < 20
    release["a"].set()
    threads[0].join(30)


def test_stepping_aside_lets_the_next_run_in_before_the_holder_ends():
    g = gate.Gate(1, patience=60)
    entered = threading.Event()
    done = threading.Event()

    def holder():
        with g.turn():
            g.step_aside()              # a long computation with a progress bar follows
            assert entered.wait(30)     # the next run got in meanwhile
            g.step_aside()              # a second time: nothing held, nothing given back
        done.set()

    t = threading.Thread(target=holder, daemon=True)
    t.start()
    with g.turn():
        entered.set()
    assert done.wait(30)
    t.join(30)
    assert g._held == {}


def test_a_slot_held_past_the_stale_limit_no_longer_counts(monkeypatch):
    monkeypatch.setattr(gate, "STALE_S", 0.05)
    g = gate.Gate(1, patience=60)
    release = threading.Event()
    inside = threading.Event()

    def stuck():
        with g.turn():
            inside.set()
            release.wait(30)

    t = threading.Thread(target=stuck, daemon=True)
    t.start()
    assert inside.wait(30)
    t0 = time.monotonic()
    with g.turn():                     # not the full minute of patience: the stuck slot went stale
        assert time.monotonic() - t0 < 30
    release.set()
    t.join(30)


def test_an_exception_gives_the_slot_back_and_zero_slots_never_wait():
    g = gate.Gate(1, patience=60)
    with pytest.raises(RuntimeError), g.turn():
        raise RuntimeError("a page bug")
    assert g._held == {} and g.waiting == 0
    with g.turn(), g.turn():            # re-entrant within a thread
        assert len(g._held) == 1
    off = gate.Gate(0)
    with off.turn(), off.turn():
        assert off._held == {}
