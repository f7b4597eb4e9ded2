"""Dashboard speed: slider-to-settled server time on clef2015, in AppTest and in a real browser.

    python benchmarks/bench_app.py                 # everything
    python benchmarks/bench_app.py --no-browser    # server time only
    python benchmarks/bench_app.py --many-runs 300 --moves 3   # live pages with 300 simulated runs
    python benchmarks/bench_app.py --cpu-per-move --against /path/to/older/checkout --moves 8
    python benchmarks/bench_app.py --cpu-per-move --profile     # where a move's CPU goes (cProfile)

1. **Slider to update, analysis pages** (target <= 300 ms): clef2015 (30 runs
   x 65 topics x 1000) is loaded once into an AppTest session; the top gain
   slider is moved to a new value (never seen before: no cache hits) and the
   whole script run of the Rankings and Rank correlation pages is timed.
2. **Slider to settled, live meta pages** (docs/benchmarks.md section 8, target <= 500 ms
   server time with the quick pass): the same on the Swap, Bootstrap (+ Tukey)
   and Overview pages, which now compute at every move. Two times per move:
   *first chart* (script start -> the page's meta chart drawn, quick pass or
   full B) and *settled* (the whole run, including refining to the chosen B
   and the rerun that draws it). CPU time of the run is reported beside
   wall time: other engineers share the 2 cores.
3. **Cold start to first chart** (target <= 5 s): `streamlit run app.py`
   started headless, Debian's chromium opens it; the clock stops when the
   Overview's first plotly chart is drawn.
4. **Real browser, slider to settled**: on clef2015 uploaded through the Data
   page (zip of the runs), the top gain slider is moved with the keyboard on
   the Swap and Bootstrap pages; the clock stops when the chart's drawn paths
   have changed (first chart) and when the app is idle again (settled).

5. **CPU per move, this checkout against another** (``--cpu-per-move``): an Overview and a Rankings
   move (the B gain slider to a new value) on the built-in simulated data and on clef2015, CPU seconds
   of the whole process per rerun (the script thread, plus anything it starts); each (data, page) runs
   in a fresh process per checkout, the two checkouts alternating, so both see the same machine.
   ``--profile`` adds the functions where the script thread spent its time (cProfile).

AppTest runs the real page script in-process: its time is server time (script
+ serialisation), no network or browser rendering.
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(os.environ.get("EVALCORE_BENCH_ROOT") or Path(__file__).resolve().parents[1]).resolve()
sys.path.insert(0, str(ROOT))
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "clef2015"

import evalcore  # noqa: E402
from dashboard.state import gain_keys  # noqa: E402
from evalcore.collection import Collection  # noqa: E402


def load_clef() -> tuple[Collection, str]:
    qrels, runs = DATA / "qrels.txt", DATA / "runs"
    return evalcore.load_collection(str(qrels), str(runs)), "evalcore.load_collection"


def _session(c: Collection):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.session_state["uploaded"] = c          # as the Data page stores a loaded upload
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    assert at.session_state["_K"] == c.max_level
    return at


def slider_to_update(c: Collection, moves: int = 15, pages=("views/rankings.py", "views/correlation.py"),
                     seed0: float = 3.1) -> dict[str, dict[str, list[float]]]:
    """Per page: wall ms, CPU ms and (live pages) ms to the first meta chart, per slider move."""
    at = _session(c)
    out: dict[str, dict[str, list[float]]] = {}
    values = np.round(np.linspace(seed0, 9.9, moves * len(pages)), 2)   # every move a new value: no cache hits
    for k, page in enumerate(pages):
        at.switch_page(page).run()
        assert not at.exception, [e.message for e in at.exception]
        rec = {"wall": [], "cpu": [], "first": []}
        for v in values[k::len(pages)]:
            at.number_input(key=gain_keys(at.session_state, c.max_level)[1]).set_value(float(v))
            at.session_state["_live_log"] = []
            t0, c0 = time.perf_counter(), time.process_time()
            at.run()
            rec["wall"].append((time.perf_counter() - t0) * 1000)
            rec["cpu"].append((time.process_time() - c0) * 1000)
            log = at.session_state["_live_log"] if "_live_log" in at.session_state else []
            if log:
                rec["first"].append((log[0][0] - t0) * 1000)
            assert not at.exception, [e.message for e in at.exception]
        out[page] = rec
    return out


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_to_first_chart(runs: int = 3) -> list[tuple[float, float, float]]:
    """(wall s to the first chart, of which server start until it answers, server CPU s), per start."""
    from playwright.sync_api import sync_playwright

    out = []
    for _ in range(runs):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"])
            page = browser.new_page()
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                     "--server.port", str(port), "--server.fileWatcherType", "none"],
                                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                while True:
                    try:
                        page.goto(f"http://127.0.0.1:{port}/", timeout=2000)
                        break
                    except Exception:  # noqa: BLE001 - server not up yet
                        if time.perf_counter() - t0 > 60:
                            raise
                        time.sleep(0.05)
                up = time.perf_counter() - t0
                page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=120000)
                out.append((time.perf_counter() - t0, up, _cpu_s(proc.pid)))
            finally:
                browser.close()
                proc.terminate()
                proc.wait(10)
    return out


def browser_slider(zip_path: Path, moves: int = 5) -> dict[str, dict[str, list[float]]]:
    """Real browser on clef2015 uploaded through the Data page: key presses on
    the top gain slider -> chart changed (first) and app idle (settled), in s."""
    from playwright.sync_api import sync_playwright
    sys.path.insert(0, str(ROOT / "tests"))
    from test_browser import _IDLE_JS, ARGS, _chart_svg, _wait_idle

    with socket.socket() as s_:
        s_.bind(("127.0.0.1", 0))
        port = s_.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out: dict[str, dict[str, list[float]]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            for _ in range(150):
                try:
                    page.goto(f"http://127.0.0.1:{port}/data", timeout=2000)
                    break
                except Exception:  # noqa: BLE001 - server not up yet
                    time.sleep(0.2)
            _wait_idle(page, 60000)
            page.get_by_role("tab", name="Upload files").click()
            page.wait_for_timeout(500)
            up = page.locator('[data-testid="stFileUploader"]')
            up.nth(0).locator("input[type=file]").set_input_files(str(DATA / "qrels.txt"))
            up.nth(1).locator("input[type=file]").set_input_files(str(zip_path))
            try:
                page.wait_for_selector("[data-testid=stTextInputField]", timeout=300000)
            except Exception:
                page.screenshot(path="/tmp/evalcore-bench-upload-failed.png")
                raise
            _wait_idle(page, 120000)
            page.get_by_role("button", name="Load these files").click()
            page.wait_for_selector("text=65 topics", timeout=300000)
            _wait_idle(page, 180000)
            for path in ("swap", "bootstrap"):
                # the pages are links along the top (the last ones behind "N more"): the link's own click,
                # which the app routes in the page (the session and its upload kept)
                page.locator(f'a[href$="/{path}"]').first.dispatch_event("click")
                _wait_idle(page, 120000)
                rec = {"first": [], "settled": []}
                thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
                for i in range(moves):
                    before = _chart_svg(page)
                    thumb.focus()
                    t0 = time.perf_counter()
                    page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowUp")
                    while _chart_svg(page) == before and time.perf_counter() - t0 < 60:
                        page.wait_for_timeout(20)
                    rec["first"].append(time.perf_counter() - t0)
                    page.wait_for_function(_IDLE_JS, timeout=120000)
                    rec["settled"].append(time.perf_counter() - t0)
                    _wait_idle(page, 120000)
                out[path] = rec
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return out


def _zip_runs() -> Path:
    import tempfile
    import zipfile
    path = Path(tempfile.gettempdir()) / "evalcore-bench-clef2015.zip"
    if not path.exists():
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            for f in sorted((DATA / "runs").iterdir()):
                z.write(f, f.name)
    return path


def _ms(xs) -> str:
    return f"median {statistics.median(xs):.0f} ms, max {max(xs):.0f} ms" if xs else "-"


CPU_CASES = (("sim", "views/overview.py"), ("sim", "views/rankings.py"), ("clef2015", "views/overview.py"),
             ("clef2015", "views/rankings.py"))


def cpu_per_move(data: str, page: str, moves: int, profile: bool = False) -> list[float]:
    """CPU seconds per move of ``page`` on ``data`` ("sim": the built-in simulated collection, the app's
    default; "clef2015"), in this process; with ``profile``, prints the script thread's top functions."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    if data == "clef2015":
        at.session_state["uploaded"] = load_clef()[0]
        at.run()
        at.selectbox(key="dataset").set_value("upload").run()
    K = int(at.session_state["_K"])
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    prof = None
    if profile:                      # AppTest runs the script in its own thread: profile that thread
        import cProfile

        from streamlit.runtime.scriptrunner import script_runner as sr
        prof = cProfile.Profile(time.process_time)   # CPU, not wall: the machine is shared
        orig = sr.ScriptRunner._run_script

        def run_profiled(self, *a, **k):
            prof.enable()
            try:
                return orig(self, *a, **k)
            finally:
                prof.disable()
        sr.ScriptRunner._run_script = run_profiled
    out = []
    for v in np.round(np.linspace(3.05, 9.95, moves), 2):      # every move a new value: no cache hits
        at.number_input(key=gain_keys(at.session_state, K)[1]).set_value(float(v))
        c0 = time.process_time()
        at.run()
        out.append(time.process_time() - c0)
        assert not at.exception, [e.message for e in at.exception]
    if prof is not None:
        import io
        import pstats
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(int(os.environ.get("BENCH_TOP", 40)))
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(int(os.environ.get("BENCH_TOP", 40)))
        print(buf.getvalue())
    return out


def compare_cpu(against: str | None, moves: int, rounds: int) -> None:
    """``cpu_per_move`` for every case in fresh processes, this checkout and ``against`` alternating."""
    import json
    trees = [("this", ROOT)] + ([("against", Path(against).resolve())] if against else [])
    res: dict = {}
    for _ in range(rounds):
        for data, page in CPU_CASES:
            for name, tree in trees:
                # this file, run against the tree's app (its dashboard, evalcore and views)
                out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--one", data, page,
                                      "--moves", str(moves)], cwd=tree, capture_output=True, text=True,
                                     env={**os.environ, "EVALCORE_BENCH_ROOT": str(tree)}, check=True)
                res.setdefault((data, page, name), []).extend(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"CPU per move (s), median over {moves} x {rounds} moves; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    print("| data | page | " + " | ".join(n for n, _ in trees) + (" | this / against |" if against else " |"))
    print("|---|---|" + "---:|" * (len(trees) + bool(against)))
    for data, page in CPU_CASES:
        meds = [statistics.median(res[(data, page, n)]) for n, _ in trees]
        ratio = f" | {meds[0] / meds[1]:.2f}" if against else ""
        print(f"| {data} | {Path(page).stem} | " + " | ".join(f"{m:.3f}" for m in meds) + ratio + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--moves", type=int, default=15)
    ap.add_argument("--many-runs", type=int, metavar="N",
                    help="only the live Overview and Bootstrap pages on simulated_collection(n_runs=N, n_topics=50) "
                         "stored as an upload (a slider never waits for an N-run bootstrap)")
    ap.add_argument("--cpu-per-move", action="store_true", help="section 5: CPU per Overview / Rankings move")
    ap.add_argument("--against", metavar="DIR", help="another checkout to compare with (--cpu-per-move)")
    ap.add_argument("--rounds", type=int, default=1, help="alternations of the checkouts (--cpu-per-move)")
    ap.add_argument("--profile", action="store_true", help="print where the script thread spent its time")
    ap.add_argument("--one", nargs=2, metavar=("DATA", "PAGE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        import json
        xs = cpu_per_move(*args.one, args.moves, profile=args.profile)
        print(json.dumps(xs))
        return
    if args.cpu_per_move and args.profile:
        for data, page in CPU_CASES:
            xs = cpu_per_move(data, page, args.moves, profile=True)
            print(f"{data} {page}: CPU per move median {statistics.median(xs):.3f} s")
        return
    if args.cpu_per_move:
        compare_cpu(args.against, args.moves, args.rounds)
        return
    if args.many_runs:
        c = evalcore.simulated_collection(n_topics=50, n_runs=args.many_runs, seed=0)
        live = slider_to_update(c, args.moves, pages=("views/overview.py", "views/bootstrap.py"))
        for page, r in live.items():
            print(f"{args.many_runs} runs, slider -> {Path(page).stem}: first meta chart {_ms(r['first'])}; "
                  f"settled wall {_ms(r['wall'])}; CPU {_ms(r['cpu'])} over {len(r['wall'])} moves")
        return
    t0 = time.perf_counter()
    c, how = load_clef()
    print(f"clef2015: {c.n_runs} runs x {c.n_topics} topics x depth {c.depth}, levels 0..{c.max_level}; "
          f"read in {time.perf_counter() - t0:.1f} s with {how}")
    res = slider_to_update(c, args.moves)
    for page, r in res.items():
        print(f"slider -> updated {Path(page).stem}: wall {_ms(r['wall'])}; CPU {_ms(r['cpu'])} "
              f"over {len(r['wall'])} moves")
    live = slider_to_update(c, args.moves, pages=("views/swap.py", "views/bootstrap.py", "views/overview.py"),
                            seed0=3.05)
    for page, r in live.items():
        print(f"slider -> settled {Path(page).stem}: first meta chart {_ms(r['first'])}; settled (chosen B on "
              f"screen) wall {_ms(r['wall'])}; CPU {_ms(r['cpu'])} over {len(r['wall'])} moves")
    if not args.no_browser and Path("/usr/bin/chromium").exists():
        t = start_to_first_chart()
        print("cold start -> first chart (Overview, simulated data): wall median "
              f"{statistics.median(x[0] for x in t):.2f} s (max {max(x[0] for x in t):.2f}), of which the server "
              f"needs {statistics.median(x[1] for x in t):.2f} s to answer; server CPU until then median "
              f"{statistics.median(x[2] for x in t):.2f} s over {len(t)} starts; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        br = browser_slider(_zip_runs())
        for path, r in br.items():
            print(f"browser, clef2015 uploaded, slider -> {path}: chart changed median "
                  f"{statistics.median(r['first']):.2f} s (max {max(r['first']):.2f}); settled median "
                  f"{statistics.median(r['settled']):.2f} s (max {max(r['settled']):.2f}) over {len(r['first'])} moves")


if __name__ == "__main__":
    main()
