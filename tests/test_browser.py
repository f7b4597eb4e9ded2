"""One real-browser test: `streamlit run app.py` headless, Debian's chromium via Playwright.

Opens every page, waits for the app to finish running, asserts that no
exception element is shown and that every chart page draws at least one
plotly chart; saves a screenshot of each page to a temporary folder (set
EVALCORE_SCREENSHOTS=dir to keep them, e.g. for docs/screenshots/).

Skipped when chromium or playwright is missing, unless CI=true: then it fails.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("EVALCORE_CHROMIUM", "/usr/bin/chromium")
IN_CI = os.environ.get("CI", "").lower() == "true"

# url path, has a chart (after pressing the button, if any), button to press
PAGES = [
    ("data", False, None),
    ("playground", True, None),
    ("rankings", True, None),
    ("correlation", True, None),
    ("swap", True, "Run the swap method"),
    ("bootstrap", True, "Run the bootstrap test"),
    ("stability", True, "Run the stability test"),
    ("significance", True, None),
    ("report", False, "Build the report"),
]


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    why = _missing()
    if why:                      # decide before starting a server we would not use
        if IN_CI:
            pytest.fail(f"CI=true but the browser test cannot run: {why}")
        pytest.skip(why)
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.2)
        if proc.poll() is not None:
            break
    else:
        proc.terminate()
        log.seek(0)
        pytest.fail("streamlit did not start within 30 s:\n" + log.read().decode(errors="replace")[-3000:])
    if proc.poll() is not None:
        log.seek(0)
        pytest.fail("streamlit exited:\n" + log.read().decode(errors="replace")[-3000:])
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _wait_idle(page, timeout_ms: int = 30000) -> None:
    """Wait until the app view is there and no script run is in progress."""
    page.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stSlider"]', timeout=timeout_ms)
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => {
            const s = document.querySelector('[data-testid="stStatusWidget"]');
            const busy = s && /running|connecting/i.test(s.innerText || '');
            const skeleton = document.querySelector('[data-testid*="Skeleton"]');
            return !busy && !skeleton;
        }""", timeout=timeout_ms)
    page.wait_for_timeout(500)


@pytest.mark.browser
def test_every_page_in_a_real_browser(server):
    from playwright.sync_api import sync_playwright

    out = Path(os.environ.get("EVALCORE_SCREENSHOTS") or tempfile.mkdtemp(prefix="evalcore-shots-"))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            # B kept small so the whole test stays well under a minute
            query = "?swb=200&bsb=200&stb=200"
            for path, has_chart, button in PAGES:
                page.goto(f"{server}/{path}{query}")
                _wait_idle(page)
                if button:
                    page.get_by_role("button", name=button).click()
                    _wait_idle(page, 60000)
                exc = page.locator('[data-testid="stException"]')
                assert exc.count() == 0, f"page {path} shows an exception: {exc.first.inner_text()[:500]}"
                if has_chart:
                    page.wait_for_selector('[data-testid="stPlotlyChart"]', timeout=20000)
                    assert page.locator('[data-testid="stPlotlyChart"]').count() >= 1, f"no chart on {path}"
                page.screenshot(path=str(out / f"{path}.png"), full_page=False)
        finally:
            browser.close()
    print(f"screenshots in {out}")
