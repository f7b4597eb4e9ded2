"""The dashboard in a real browser (Playwright driving Debian's chromium), for ``benchmarks/bench_dashboard.py
--mode pages``: cold start to the first chart, and slider to settled on clef2015 uploaded through the Data page.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(os.environ.get("EVALCORE_BENCH_ROOT") or Path(__file__).resolve().parents[1]).resolve()
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "clef2015"
CHROMIUM = Path("/usr/bin/chromium")


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
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
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
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
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


def zip_runs() -> Path:
    """clef2015's runs in one stored zip (made once, in the temporary folder), as a user uploads them."""
    import tempfile
    import zipfile
    path = Path(tempfile.gettempdir()) / "evalcore-bench-clef2015.zip"
    if not path.exists():
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            for f in sorted((DATA / "runs").iterdir()):
                z.write(f, f.name)
    return path
