"""Regenerate the README's screenshots from the real app: `python docs/screenshots/shoot.py`.

Starts `streamlit run app.py` on a free local port, opens every page of the registry
(dashboard/pages.py) in headless chromium at 1440 x 900 (the first screen, not the whole
page), waits until the app is idle and saves ``<page>.png`` here (or in ``--out``). Every
request except the local server's is aborted. tests/test_browser.py calls :func:`shoot`
and checks what the first screen shows, so a broken screenshot fails a test.

Needs playwright (the python package) and a chromium (EVALCORE_CHROMIUM, default
/usr/bin/chromium).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHROMIUM = os.environ.get("EVALCORE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1440, "height": 900}
#: Small B so the meta-evaluation pages settle in seconds; the first screen shows the default view.
QUERY = "swb=200&bsb=200&stb=200"

IDLE_JS = """() => {
    const s = document.querySelector('[data-testid="stStatusWidget"]');
    const busy = (s && /running|connecting|stop/i.test(s.innerText || ''))
        || document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
    const skeleton = document.querySelector('[data-testid*="Skeleton"]');
    return !busy && !skeleton;
}"""


def wait_idle(page, timeout_ms: int = 60000) -> None:
    """The app view is there and no script run is in progress, twice 600 ms apart (a live page
    may rerun once more to draw a refined result)."""
    page.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stSlider"]', timeout=timeout_ms)
    for _ in range(2):
        page.wait_for_timeout(600)
        page.wait_for_function(IDLE_JS, timeout=timeout_ms)
    page.wait_for_timeout(300)


def local_only(page, server: str, blocked: list | None = None) -> None:
    """Abort every request that is not to the local server (noted in ``blocked``)."""
    def handle(route):
        url = route.request.url
        if url.startswith(server):
            route.continue_()
        else:
            if blocked is not None:
                blocked.append(url)
            route.abort()
    page.route("**/*", handle)


def shoot(browser, server: str, out: Path, pages=None, query: str = QUERY, viewport=VIEWPORT) -> dict[str, Path]:
    """One screenshot of the first screen of each page: ``{url_path: png}``."""
    sys.path.insert(0, str(ROOT))
    from dashboard.pages import PAGES
    from evalcore._atomic import check_writable_dir, write_bytes
    check_writable_dir(out, create=True)
    page = browser.new_page(viewport=viewport)
    local_only(page, server)
    shots = {}
    try:
        for p in pages or PAGES:
            page.goto(f"{server}/{p.url_path}?{query}")
            wait_idle(page)
            if p.has_chart:
                page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=30000)
                page.wait_for_timeout(500)
            shots[p.url_path] = out / f"{p.url_path}.png"
            # written atomically (a temporary file renamed into place): an interrupted run leaves the old PNG
            write_bytes(shots[p.url_path], page.screenshot(full_page=False))
    finally:
        page.close()
    return shots


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server():
    """`streamlit run app.py` on a free port; yields its URL."""
    port = _free_port()
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while time.time() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        else:
            log.seek(0)
            raise SystemExit("streamlit did not start:\n" + log.read().decode(errors="replace")[-3000:])
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE, help="folder for the PNG files (default: docs/screenshots)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright
    with server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for name, path in shoot(browser, url, args.out).items():
                print(f"{name}: {path}")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
