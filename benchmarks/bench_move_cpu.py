"""CPU per gain move on the Overview and the Rankings, and where it goes (docs/benchmarks.md section 16).

    python benchmarks/bench_move_cpu.py                          # both pages, simulated data and clef2015
    python benchmarks/bench_move_cpu.py --data sim --pages overview --moves 8
    python benchmarks/bench_move_cpu.py --profile 30             # also cProfile's top 30 (CPU clock)
    BENCH_CALLERS='filtered_state|deepcopy' python benchmarks/bench_move_cpu.py --profile 5   # and who calls these
    BENCH_SORT=cumtime BENCH_PAT='dashboard/|plotly_chart' BENCH_N=40 python benchmarks/bench_move_cpu.py --profile 1
                                     # --profile 1: the functions matching BENCH_PAT, BENCH_N of them, by BENCH_SORT
    python benchmarks/bench_move_cpu.py --against /tmp/before --rounds 2   # this checkout against another

The page runs in AppTest (the real page script, in this process; its time is server time: the script, the
elements' protobufs, no network). Each move sets the level-1 gain box to a value not used before (every
gain-dependent result is a miss; everything the gain does not read may come from the stores) and runs the
page until it is settled (a page that refines a quick pass reruns itself: that rerun is in the move).

CPU, not wall: ``time.process_time`` of the whole process (the script thread and any pool thread it starts),
because the machine these numbers come from is shared. Absolute CPU seconds per move are printed, with a
breakdown by what the time was spent in: functions of the dashboard and evalcore are wrapped, and each CPU
interval is charged to the innermost wrapped function running (pool threads' CPU to whatever the script
thread waits in). Compare two checkouts by running this file in each (``EVALCORE_BENCH_ROOT``, as
benchmarks/bench_app.py does): the wrapped names are looked up and skipped where a checkout lacks them.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
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


def open_page(data: str, page: str):
    """An AppTest session of the app on ``data`` ("sim": the built-in default; "clef2015"), settled on
    ``page`` ("overview", "rankings"), compiling each page once as a server does."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import AppTest, app_test, local_script_runner

    # a server compiles each page once (one ScriptCache for the runtime); AppTest makes a new cache every
    # run and would charge each move the page's parse and compile: share one, as the server does
    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    if data == "clef2015":
        import evalcore
        at.session_state["uploaded"] = evalcore.load_collection(str(DATA / "qrels.txt"), str(DATA / "runs"))
        at.run()
        at.selectbox(key="dataset").set_value("upload").run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def move_cpu(data: str, page: str, moves: int, profile: int = 0) -> tuple[list[float], dict[str, float]]:
    """CPU seconds of each of ``moves`` gain moves of ``page`` ("overview", "rankings") on ``data`` ("sim":
    the app's built-in default; "clef2015"), and the CPU of all moves by category."""
    from dashboard.state import gain_keys

    meter = Meter()
    meter.install()
    at = open_page(data, page)
    meter.cpu.clear()
    prof = None
    if profile:
        import cProfile

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
    out = []
    for i in range(moves):
        v = round(1.05 + 0.37 * i + 0.001 * (i % 7), 3)    # a gain not used before at every move
        at.number_input(key=gain_keys(at.session_state, 1)[1]).set_value(v)
        c0 = time.process_time()
        at.run()
        out.append(time.process_time() - c0)
        assert not at.exception, [e.message for e in at.exception]
    if prof is not None:
        import io
        import pstats
        buf = io.StringIO()
        sort = os.environ.get("BENCH_SORT", "tottime")
        what = (profile,) if profile > 1 else (os.environ.get("BENCH_PAT", "."), int(os.environ.get("BENCH_N", "60")))
        pstats.Stats(prof, stream=buf).sort_stats(sort).print_stats(*what)
        if os.environ.get("BENCH_CALLERS"):
            pstats.Stats(prof, stream=buf).print_callers(os.environ["BENCH_CALLERS"])
        print(buf.getvalue())
    return out, dict(meter.cpu)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["sim", "clef2015"], choices=["sim", "clef2015"])
    ap.add_argument("--pages", nargs="+", default=["overview", "rankings"], choices=["overview", "rankings"])
    ap.add_argument("--moves", type=int, default=6)
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's top N by own CPU")
    ap.add_argument("--against", metavar="DIR", help="another checkout (e.g. `git archive` of an older commit): "
                    "each case runs in both, alternating, and a table of medians and ratios ends the output")
    ap.add_argument("--rounds", type=int, default=1, help="alternations of the checkouts (with --against)")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if not args.one:              # each (data, page) in a fresh process: no store shared between cases
        import json
        import subprocess
        trees = [("this", ROOT)] + ([("against", Path(args.against).resolve())] if args.against else [])
        res: dict = {}
        for _ in range(args.rounds):
            for data in args.data:
                for page in args.pages:
                    for name, tree in trees:
                        out = subprocess.run([sys.executable, __file__, "--one", "--data", data, "--pages", page,
                                              "--moves", str(args.moves), "--profile", str(args.profile)],
                                             check=True, capture_output=True, text=True,
                                             env={**os.environ, "EVALCORE_BENCH_ROOT": str(tree)})
                        lines = out.stdout.strip().splitlines()
                        print("\n".join(lines[:-1]))
                        res.setdefault((data, page, name), []).extend(json.loads(lines[-1]))
        if args.against:
            print(f"\nCPU per move (s), median of {args.moves} x {args.rounds} moves; this = {ROOT}, against = "
                  f"{trees[1][1]}\n| data | page | this | against | this / against |\n|---|---|---:|---:|---:|")
            for data in args.data:
                for page in args.pages:
                    a, b = (statistics.median(res[(data, page, n)]) for n, _ in trees)
                    print(f"| {data} | {page} | {a:.3f} | {b:.3f} | {a / b:.2f} |")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (CPU time does not count the "
              "neighbours' work, but a busy machine still slows every process: caches, memory bandwidth)")
        return
    import json
    data, page = args.data[0], args.pages[0]
    xs, cats = move_cpu(data, page, args.moves, args.profile)
    total = sum(xs)
    print(f"\n{data} / {page}: CPU per move median {statistics.median(xs):.3f} s (min {min(xs):.3f}, max "
          f"{max(xs):.3f}) over {len(xs)} moves; checkout {ROOT}")
    print("| spent in | CPU per move (s) | share |\n|---|---:|---:|")
    rest = total - sum(cats.values())
    for cat, t in sorted([*cats.items(), ("everything else (page script, Streamlit, AppTest)", rest)],
                         key=lambda kv: -kv[1]):
        print(f"| {cat} | {t / len(xs):.3f} | {t / total:.0%} |")
    print(json.dumps(xs))         # the parent's table of medians reads this line


if __name__ == "__main__":
    main()
