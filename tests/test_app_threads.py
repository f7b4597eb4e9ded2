"""The dashboard's cap on one session's resampling threads (server setting EVALCORE_SESSION_THREADS)."""
from __future__ import annotations

import pytest

pytest.importorskip("streamlit")
from test_app_live import _settings  # noqa: E402

import evalcore  # noqa: E402


def test_session_threads_setting(monkeypatch):
    from dashboard import limits
    monkeypatch.delenv("EVALCORE_SESSION_THREADS", raising=False)
    monkeypatch.setenv("EVALCORE_THREADS", "9")         # the library's default is not the server's cap
    assert limits.session_threads() == 2
    monkeypatch.setenv("EVALCORE_SESSION_THREADS", "6")
    assert limits.session_threads() == 6
    for bad in ("0", "lots", "5000"):
        monkeypatch.setenv("EVALCORE_SESSION_THREADS", bad)
        with pytest.raises(ValueError, match="EVALCORE_SESSION_THREADS must be a whole number from 1 to 1,024"):
            limits.session_threads()


def _spy(monkeypatch, kind: str, *, work_rule: bool = False) -> list:
    """A 16-core server with EVALCORE_SESSION_THREADS=3, a fresh result store, and ``kind``'s method wrapped
    to record (threads it was given, computations running then); ``work_rule``: keep MIN_WORK_PER_THREAD
    (else the cap alone is tested)."""
    from dashboard import limits, meta_kinds, meta_store, stores
    from evalcore.meta import _parallel
    store = stores.Store(64)
    monkeypatch.setattr(meta_store, "_results", lambda: store)
    monkeypatch.setenv("EVALCORE_SESSION_THREADS", "3")
    monkeypatch.setattr(_parallel, "machine_threads", lambda: 16)     # any machine: a 16-core server
    if not work_rule:
        monkeypatch.setattr(_parallel, "MIN_WORK_PER_THREAD", {})
    fn, names, parts = meta_kinds.META_KINDS[kind]
    seen: list = []
    monkeypatch.setitem(meta_kinds.META_KINDS, kind,
                        (lambda sc, run_ids, **kw: (seen.append((kw.get("threads"), limits._RUNNING)),
                                                    fn(sc, run_ids, **kw))[1], names, parts))
    return seen


# the session's cap (3) for the methods measured to scale (evalcore.meta._parallel.SCALING_METHODS) and for
# those capped at 4 (CAPPED_METHODS); one thread for the pair statistics, not measured
@pytest.mark.parametrize("kind, params, want", [
    ("bootstrap", {"alpha": 0.05, "seed": 1}, 3),
    ("stability", {"subset_size": None, "seed": 1}, 3),
    ("pairs", {"confidence": 0.95, "standardise": "none", "tests": ("t",), "seed": 1}, 1),
    ("swap", {"sampling": "replacement", "subset_size": None, "seed": 1}, 3),
    ("tukey", {"alpha": 0.05, "seed": 1}, 3)])
def test_every_meta_computation_runs_on_the_session_threads(kind, params, want, monkeypatch):
    from dashboard import meta_store
    seen = _spy(monkeypatch, kind)
    c = evalcore.simulated_collection(n_topics=12, n_runs=5, seed=2)
    meta_store.meta_compute(kind, c, _settings(), params, 40)
    assert seen and {t for t, _ in seen} == {want}


def test_a_computation_gets_one_thread_while_another_session_computes(monkeypatch):
    """More than one thread only for a computation alone in the server: with a class computing at once there
    is no idle core for a second thread (bench_dashboard.py --mode load: twice the server CPU per Overview move
    with two)."""
    from dashboard import limits, meta_store
    seen = _spy(monkeypatch, "swap")
    c = evalcore.simulated_collection(n_topics=12, n_runs=5, seed=2)
    params = {"sampling": "replacement", "subset_size": None, "seed": 1}
    monkeypatch.setattr(limits, "_RUNNING", 1)                  # another session's computation is running
    meta_store.meta_compute("swap", c, _settings(), params, 40)
    assert seen and {t for t, _ in seen} == {1} and {r for _, r in seen} == {2}
    assert limits._RUNNING == 1                                 # this one's count released
    seen.clear()
    monkeypatch.setattr(limits, "_RUNNING", 0)                  # alone
    meta_store.meta_compute("swap", c, _settings(), {**params, "seed": 2}, 40)
    assert {t for t, _ in seen} == {3} and limits._RUNNING == 0


@pytest.mark.parametrize("n_runs, B, want", [(30, 1000, 1), (60, 1000, 3), (8, 100, 1)])
def test_small_data_runs_on_one_thread(n_runs, B, want, monkeypatch):
    """Alone in the server, a computation still gets no more threads than its run pairs x B can use
    (evalcore.meta._parallel.MIN_WORK_PER_THREAD: 400,000 for the bootstrap): clef2015's 30 runs at B = 1000
    (435,000) run on one thread, 60 runs (1,770,000) on the session's 3."""
    from dashboard import meta_store
    seen = _spy(monkeypatch, "bootstrap", work_rule=True)
    c = evalcore.simulated_collection(n_topics=5, n_runs=n_runs, seed=2)
    meta_store.meta_compute("bootstrap", c, _settings(), {"alpha": 0.05, "seed": 1}, B)
    assert seen and {t for t, _ in seen} == {want}
