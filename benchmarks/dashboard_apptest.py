"""The dashboard in AppTest, for ``benchmarks/bench_dashboard.py``'s pages, cpu, ab, instr and significance modes.

AppTest runs the real page script in this process: its time is server time (the script, the elements'
protobufs; no network, no browser). A session is opened on the built-in simulated data (``"sim"``, the app's
default) or on clef2015 stored as an upload, as the Data page stores one; a *move* sets one level's gain box
to a value (the benchmarks pick one not used before, so every gain-dependent result is a cache miss) and
the page is run until settled (a page that refines a quick pass reruns itself: that rerun is in the move).

``EVALCORE_BENCH_ROOT`` names another checkout whose app, dashboard and evalcore are measured (the
``--against`` comparisons run this file's modes in a fresh process per checkout); by default this one.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(os.environ.get("EVALCORE_BENCH_ROOT") or Path(__file__).resolve().parents[1]).resolve()
sys.path.insert(0, str(ROOT))
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "clef2015"

#: (module, attribute, category): the functions whose CPU is charged to a category. The innermost wins:
#: the scores computed inside a meta-evaluation call are "scores", its resampling "meta: <kind>".
WRAP = [
    ("dashboard.shell", "setup", "sidebar, settings, state"),
    ("dashboard.scoring", "scores", "scores (metric kernels + store)"),
    ("dashboard.scoring", "score", "scores (metric kernels + store)"),
    ("dashboard.scoring", "means", "means table"),
    ("dashboard.scoring", "first_and_preferred", "r_1 / r_p"),
    ("dashboard.ranks", "correlation", "Kendall matrix / tau"),
    ("dashboard.ranks", "kendall", "Kendall matrix / tau"),
    ("dashboard.ranks", "rank_comparison", "Kendall matrix / tau"),
    ("dashboard.claims", "claim_verdict", "claim verdict"),
    ("dashboard.meta_store", "meta_lookup", "meta: store look-ups and assembly"),
    ("dashboard.meta_store", "meta_missing", "meta: store look-ups and assembly"),
    ("dashboard.widgets", "chart", "st.plotly_chart (figure to JSON, element)"),
    ("dashboard.widgets", "table", "st.dataframe (table to Arrow, element)"),
]


def load_clef():
    """clef2015 (30 runs x 65 topics x 1000) as a Collection."""
    import evalcore
    return evalcore.load_collection(str(DATA / "qrels.txt"), str(DATA / "runs"))


def open_app(data="sim", *, share_scripts: bool = True, timeout: float = 900):
    """An AppTest session of the app, settled, on ``data``: ``"sim"`` (the built-in default), ``"clef2015"`` or a
    Collection (stored as an upload). ``share_scripts``: compile each page once, as a server does (AppTest
    makes a new script cache every run and would charge each move the page's parse and compile)."""
    from streamlit.testing.v1 import AppTest, app_test, local_script_runner

    if share_scripts:
        from streamlit.runtime.scriptrunner.script_cache import ScriptCache
        shared = ScriptCache()
        app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    if not (isinstance(data, str) and data == "sim"):
        at.session_state["uploaded"] = load_clef() if data == "clef2015" else data
        at.run()
        at.selectbox(key="dataset").set_value("upload").run()
    return at


def open_page(data, page: str, **kw):
    """:func:`open_app` switched to ``page`` (``"overview"``, ``"rankings"`` or ``"views/NAME.py"``), settled."""
    at = open_app(data, **kw)
    at.switch_page(page if page.endswith(".py") else f"views/{page}.py").run()
    check(at)
    return at


def check(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def set_gain(at, value: float, level: int = 1) -> None:
    """Put ``value`` in level ``level``'s gain box (run the page afterwards)."""
    from dashboard.state import gain_keys
    at.number_input(key=gain_keys(at.session_state, level)[1]).set_value(float(value))


def fresh_gain(i: int) -> float:
    """The i-th gain of a sequence whose values are never repeated (every move a cache miss)."""
    return round(1.05 + 0.37 * (i % 40) + 0.001 * (i % 7) + 0.0001 * (i // 40), 4)


class Meter:
    """CPU charged to the innermost wrapped call of the script thread (process CPU: pool threads included)."""

    def __init__(self):
        self.cpu: dict[str, float] = {}
        self.stack: list[str] = []
        self.last = 0.0
        self.lock = threading.Lock()

    def _charge(self, now: float) -> None:
        if self.stack:
            self.cpu[self.stack[-1]] = self.cpu.get(self.stack[-1], 0.0) + now - self.last
        self.last = now

    def wrap(self, fn, category: str):
        def wrapped(*a, **k):
            if threading.current_thread() is threading.main_thread():
                return fn(*a, **k)        # AppTest's own thread: not the script
            self._charge(time.process_time())
            self.stack.append(category)
            try:
                return fn(*a, **k)
            finally:
                self._charge(time.process_time())
                self.stack.pop()
        wrapped.__wrapped__ = fn
        return wrapped

    def install(self) -> None:
        """Wrap :data:`WRAP`, every figure builder and every meta kind (names a checkout lacks are skipped)."""
        import importlib

        import evalcore.figures as figs
        for mod, name, cat in WRAP:
            m = importlib.import_module(mod)
            if hasattr(m, name):
                setattr(m, name, self.wrap(getattr(m, name), cat))
        for name in getattr(figs, "__all__", []):           # every figure builder: plotly objects
            f = getattr(figs, name)
            if callable(f) and not isinstance(f, type):
                setattr(figs, name, self.wrap(f, "plotly figure building"))
        from dashboard import meta_kinds
        for kind, (fn, *rest) in list(meta_kinds.META_KINDS.items()):
            meta_kinds.META_KINDS[kind] = (self.wrap(fn, f"meta: {kind}"), *rest)


@contextmanager
def profiled(top: int = 0):
    """cProfile (CPU clock: the machine is shared) of the page script's thread while the block runs; on exit
    prints the top ``top`` functions by ``BENCH_SORT`` (default own time), or with ``top`` <= 1 the
    ``BENCH_N`` functions matching ``BENCH_PAT``, and the callers of ``BENCH_CALLERS`` if set."""
    import cProfile
    import io
    import pstats

    from streamlit.runtime.scriptrunner import script_runner as sr
    prof = cProfile.Profile(time.process_time)
    orig = sr.ScriptRunner._run_script

    def run_profiled(self, *a, **k):
        prof.enable()
        try:
            return orig(self, *a, **k)
        finally:
            prof.disable()
    sr.ScriptRunner._run_script = run_profiled
    try:
        yield prof
    finally:
        sr.ScriptRunner._run_script = orig
        buf = io.StringIO()
        sort = os.environ.get("BENCH_SORT", "tottime")
        what = (top,) if top > 1 else (os.environ.get("BENCH_PAT", "."), int(os.environ.get("BENCH_N", "60")))
        pstats.Stats(prof, stream=buf).sort_stats(sort).print_stats(*what)
        if os.environ.get("BENCH_CALLERS"):
            pstats.Stats(prof, stream=buf).print_callers(os.environ["BENCH_CALLERS"])
        print(buf.getvalue())
