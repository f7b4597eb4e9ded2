"""A page's long resampling computation in a child interpreter (dashboard.compute on dashboard.child): the same
frames, bit for bit, as in the server's thread; progress drawn; a cancel kills the child; a child over its
memory limit is a readable error; a bad server setting names itself; a live page's refinement goes through a
child with nothing on screen but its result.

The threshold is forced low through the server setting users have (``EVALCORE_COMPUTE_SECONDS=0``): no test-only
code path."""
from __future__ import annotations

import os
import threading
import time

import pandas as pd
import pytest

pytest.importorskip("streamlit")
from test_app_live import SMALL, _captions, _settings  # noqa: E402
from test_io_worker import _children, _children_of_other_tests  # noqa: E402,F401 - the fixture is autouse

import evalcore  # noqa: E402
from dashboard import compute, meta_store, stores  # noqa: E402
from evalcore import meta  # noqa: E402

KINDS = [
    ("swap", {"sampling": "replacement", "subset_size": None, "seed": 3}),
    ("bootstrap", {"alpha": 0.05, "seed": 3}),
    ("tukey", {"alpha": 0.05, "seed": 3}),
    ("stability", {"subset_size": None, "seed": 3}),
    ("pairs", {"confidence": 0.95, "standardise": "none", "tests": ("t", "bootstrap", "randomisation"),
               "seed": 3}),
    ("bootstrap_spread", {"alpha": 0.05, "seed": 3, "repeats": 2}),
]


@pytest.fixture
def store(monkeypatch):
    """A fresh result store (nothing computed before is looked up) and the server's settings unset."""
    s = stores.Store(256)
    monkeypatch.setattr(meta_store, "_results", lambda: s)
    for var in ("EVALCORE_COMPUTE_SECONDS", "EVALCORE_COMPUTE_WORKERS", "EVALCORE_COMPUTE_MEMORY",
                "EVALCORE_COMPUTE_BUDGET", "EVALCORE_COMPUTE_INPROCESS", "EVALCORE_COMPUTE_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    return s


def _frames_equal(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        x, y = a[name], b[name]
        if isinstance(x, pd.DataFrame):
            pd.testing.assert_frame_equal(x, y, check_exact=True)
        else:            # the pair statistics' result object: its frames
            for attr in ("pairs", "summary"):
                if getattr(x, attr, None) is not None:
                    pd.testing.assert_frame_equal(getattr(x, attr), getattr(y, attr), check_exact=True)


@pytest.mark.parametrize("kind, params", KINDS, ids=[k for k, _ in KINDS])
def test_a_long_computation_in_the_child_gives_the_threads_frames_bit_for_bit(kind, params, store, monkeypatch):
    c = evalcore.simulated_collection(n_topics=12, n_runs=6, seed=5)
    B = 60
    # in the server's thread: a progress callback, the default threshold (far above this work)
    seen_here: list[float] = []
    before = compute.started()
    here = meta_store.meta_compute(kind, c, _settings(), params, B, progress=seen_here.append)
    assert compute.started() == before
    fresh = stores.Store(256)
    monkeypatch.setattr(meta_store, "_results", lambda: fresh)     # nothing to look up
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")         # every long computation to a child
    seen: list[float] = []
    there = meta_store.meta_compute(kind, c, _settings(), params, B, progress=seen.append)
    assert compute.started() == before + 1
    _frames_equal(here["frames"], there["frames"])
    assert seen and seen[-1] == pytest.approx(1.0)
    assert there["seconds"] > 0 and not _children()


def test_a_short_computation_without_progress_stays_in_the_thread(store, monkeypatch):
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=12, n_runs=6, seed=5)
    before = compute.started()
    meta_store.meta_compute("bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, 40)   # a quick pass
    assert compute.started() == before


def test_cancel_kills_the_child_at_once(store, monkeypatch):
    """The page's progress callback asks to cancel (dashboard.progress.cancellable returns True once a newer
    move waits): the child is killed and evalcore.meta.Cancelled raised, as in the thread."""
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=50, n_runs=60, seed=1)
    pids: list[int] = []

    def progress(frac: float):
        pids.extend(_children())
        return True if frac > 0 else None
    t = time.perf_counter()
    with pytest.raises(meta.Cancelled):
        meta_store.meta_compute("bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, 5000, progress=progress)
    assert time.perf_counter() - t < 60
    assert pids and not _children()
    assert all(not os.path.exists(f"/proc/{p}") or _zombie(p) for p in pids)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_a_callback_that_raises_kills_the_child_and_passes_through(store, monkeypatch):
    """What Streamlit does to a closed tab's or a rerun's script thread: raise at the next draw."""
    class Gone(BaseException):
        pass

    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=50, n_runs=60, seed=1)

    def progress(frac: float):
        if _children():
            raise Gone
    with pytest.raises(Gone):
        meta_store.meta_compute("bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, 5000, progress=progress)
    assert not _children()


def test_a_child_over_its_memory_limit_is_a_readable_error(store, monkeypatch):
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    # room for the interpreter with numpy, pandas and evalcore imported, not for this bootstrap's topic
    # samples (B x topics; evalcore.workload.bootstrap_work puts its peak above 600 MiB)
    monkeypatch.setenv("EVALCORE_COMPUTE_MEMORY", str(600 << 20))
    c = evalcore.simulated_collection(n_topics=200, n_runs=6, seed=5)
    with pytest.raises(ValueError) as e:
        meta_store.meta_compute("bootstrap", c, _settings(metrics=("AP",)), {"alpha": 0.05, "seed": 1}, 100_000,
                                progress=lambda f: None)
    text = str(e.value)
    assert "this computation needs more than 600 MiB" in text and "EVALCORE_COMPUTE_MEMORY" in text, text
    assert "lower B" in text and not _children()


def test_a_killed_child_is_named_as_killed(store, monkeypatch):
    import signal

    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    c = evalcore.simulated_collection(n_topics=50, n_runs=60, seed=1)

    def progress(frac: float):
        for pid in _children():
            os.kill(pid, signal.SIGKILL)
    with pytest.raises(ValueError) as e:
        meta_store.meta_compute("bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, 5000, progress=progress)
    text = str(e.value)
    assert "computation's worker process was killed (SIGKILL)" in text and "out-of-memory killer" in text, text
    assert "EVALCORE_COMPUTE_WORKERS" in text and not _children()


def test_a_child_past_its_time_limit_is_stopped_with_a_readable_error(store, monkeypatch):
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    monkeypatch.setenv("EVALCORE_COMPUTE_TIMEOUT", "0.5")      # far less than this bootstrap takes
    c = evalcore.simulated_collection(n_topics=50, n_runs=60, seed=1)
    t = time.perf_counter()
    with pytest.raises(ValueError) as e:
        meta_store.meta_compute("bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, 5000,
                                progress=lambda f: None)
    text = str(e.value)
    assert "this computation ran past 0.5 s" in text and "EVALCORE_COMPUTE_TIMEOUT" in text, text
    assert "lower B" in text and time.perf_counter() - t < 30 and not _children()


@pytest.mark.parametrize("var, bad, says", [
    ("EVALCORE_COMPUTE_SECONDS", "soon", "EVALCORE_COMPUTE_SECONDS must be a number of seconds at least 0"),
    ("EVALCORE_COMPUTE_SECONDS", "-1", "EVALCORE_COMPUTE_SECONDS must be a number of seconds at least 0"),
    ("EVALCORE_COMPUTE_WORKERS", "0", "EVALCORE_COMPUTE_WORKERS must be a whole number from 1 to 1,024"),
    ("EVALCORE_COMPUTE_MEMORY", "4G", "EVALCORE_COMPUTE_MEMORY must be a whole number of bytes"),
    ("EVALCORE_COMPUTE_BUDGET", "12", "EVALCORE_COMPUTE_BUDGET must be a whole number of bytes"),
    ("EVALCORE_COMPUTE_TIMEOUT", "0", "EVALCORE_COMPUTE_TIMEOUT must be a number of seconds above 0"),
    ("EVALCORE_COMPUTE_TIMEOUT", "an hour", "EVALCORE_COMPUTE_TIMEOUT must be a number of seconds above 0"),
])
def test_a_bad_server_setting_is_an_error_naming_it(var, bad, says, store, monkeypatch):
    monkeypatch.setenv(var, bad)
    c = evalcore.simulated_collection(n_topics=12, n_runs=6, seed=5)
    with pytest.raises(ValueError, match=says):
        meta_store.meta_compute("bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, 60, progress=lambda f: None)


def test_a_second_long_computation_waits_for_the_slot_and_sees_its_place(store, monkeypatch):
    """No timing assumed: the first computation holds the one slot (a 2-core server) until the second has said
    it waits - its progress callback, called while its child runs, blocks until then."""
    from dashboard import child

    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    monkeypatch.setattr(compute, "_slots", child.Slots(1))
    c = evalcore.simulated_collection(n_topics=12, n_runs=6, seed=5)
    running, second_waits = threading.Event(), threading.Event()
    first: list = []

    def hold(_f: float) -> None:
        running.set()
        second_waits.wait(60)
    t = threading.Thread(target=lambda: first.append(meta_store.meta_compute(
        "bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, 60, progress=hold)))
    t.start()
    assert running.wait(60)
    places: list[int] = []

    def waiting(place: int) -> None:
        places.append(place)
        second_waits.set()
    run = compute.in_child("swap", waiting=waiting)
    from dashboard import scoring
    sc = scoring.scores(c, _settings())
    res = run(sc, list(c.run_ids), B=60, progress=lambda f: None, sampling="replacement", subset_size=None, seed=1)
    t.join(60)
    assert first and res.summary is not None and places and set(places) == {1}
    assert not _children()


def test_a_live_pages_refinement_runs_in_a_child_with_nothing_but_its_result_on_screen(monkeypatch):
    """The Bootstrap page with a zero interactive budget: the quick pass in the server's thread, then the chosen
    B refined after the page with a progress bar - in a child (EVALCORE_COMPUTE_SECONDS=0), as a server
    started with that setting runs it."""
    from test_app import _app, _goto

    from dashboard import live
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    monkeypatch.setattr(live, "BUDGET_S", 0.0)
    before = compute.started()
    at = _goto(_app({**SMALL, "bsb": "700", "bsseed": "13"}), "bootstrap")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "B = 700 (chosen)" in _captions(at)
    assert compute.started() > before and not _children()
