"""Real-browser tests: the dashboard started exactly as a user starts it - the installed ``evalcore app``
command, in the checkout, with no EVALCORE_* setting - and Debian's chromium via Playwright.

Opens every page on the built-in data and on an uploaded collection, waits for the app to finish
running, asserts that no exception element and no error box is shown and that every chart page draws
at least one plotly chart; saves a screenshot of each page to a temporary folder (set
EVALCORE_SCREENSHOTS=dir to keep them, e.g. for docs/screenshots/).

Skipped when chromium, playwright or the installed ``evalcore`` command is missing, unless CI=true: then
it fails.
"""
from __future__ import annotations

import os
import re
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

from dashboard.pages import PAGES as _REGISTRY  # noqa: E402

# url path, has a chart (with no button press: every page is live), button to press; from the registry
# app.py builds its navigation from
PAGES = [(p.url_path, p.has_chart, p.button) for p in _REGISTRY]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def evalcore_command() -> str | None:
    """The ``evalcore`` console command installed beside this interpreter (``pip install ".[app]"``)."""
    import shutil
    beside = Path(sys.executable).parent / "evalcore"
    return str(beside) if beside.is_file() else shutil.which("evalcore")


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    if evalcore_command() is None:
        return 'the evalcore command is not installed (python -m pip install ".[app]", as the README says)'
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
    # as a user starts it: the README's command in the checkout, the server's settings at their defaults
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVALCORE_") and k != "PYTHONPATH"}
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([evalcore_command(), "app", "--port", str(port)], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT)
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
    _SERVER_LOGS[url] = log
    yield url
    _SERVER_LOGS.pop(url, None)
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


_SERVER_LOGS: dict = {}      # server address -> its log file (the server fixture's)


def _server_log_tail(server: str, chars: int = 4000) -> str:
    log = _SERVER_LOGS.get(server)
    if log is None:
        return "(no log)"
    log.seek(0)
    return log.read().decode(errors="replace")[-chars:]


_LOAD_READY_JS = """() => [...document.querySelectorAll('button')].some(
    b => b.innerText.includes('Load these files') && !b.disabled)"""


def _choose_files(page, server: str, qrels, runs, timeout_ms: int = 180000) -> None:
    """Choose the qrels on the Data page's upload tab, then - once its box shows it and the app has rerun -
    the runs, one box after the other as a user does, and wait until "Load these files" is enabled.

    On a timeout: fail with what the Data page shows (each box's files, any upload error) and the server's
    log, so that a slow upload and a lost one are told apart."""
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    boxes = page.locator('[data-testid="stFileUploader"]')
    try:
        inputs.nth(0).set_input_files(str(qrels))
        # a box holding its file shows the file in place of its drop zone's instructions
        page.wait_for_function("""() => {
            const b = document.querySelectorAll('[data-testid="stFileUploader"]')[0];
            return b && !b.querySelector('[data-testid="stFileUploaderDropzoneInstructions"]'); }""",
                               timeout=timeout_ms)
        _wait_idle(page, timeout_ms)
        inputs.nth(1).set_input_files(runs if isinstance(runs, (list, tuple)) else str(runs))
        page.wait_for_function(_LOAD_READY_JS, timeout=timeout_ms)
    except Exception as e:      # noqa: BLE001 - any wait that ran out: say what the page and the server show
        shown = [boxes.nth(i).inner_text()[:800] for i in range(boxes.count())]
        main = page.locator('[data-testid="stMain"]')
        pytest.fail(f"the chosen files were not taken ({type(e).__name__}: {str(e)[:200]})\n"
                    f"upload boxes: {shown}\n"
                    f"page: {main.inner_text()[:1500] if main.count() else '(no main area)'}\n"
                    f"server log: {_server_log_tail(server)}")


def _local_only(page, server: str, blocked: list | None = None) -> None:
    """Every request the page makes goes through here: the local server's pass, all others are
    aborted (and noted in ``blocked``), so no test reaches the network and a leak is seen."""
    def handle(route):
        url = route.request.url
        if url.startswith((server, server.replace("http", "ws", 1))):
            route.continue_()
        else:
            if blocked is not None:
                blocked.append(url)
            route.abort()
    page.route("**/*", handle)


def _new_page(browser, server: str, blocked: list | None = None, **kw):
    page = browser.new_page(**({"viewport": {"width": 1440, "height": 1000}} | kw))
    _local_only(page, server, blocked)
    return page


_IDLE_JS = """() => {
    const s = document.querySelector('[data-testid="stStatusWidget"]');
    const busy = (s && /running|connecting|stop/i.test(s.innerText || ''))
        || document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
    const skeleton = document.querySelector('[data-testid*="Skeleton"]');
    return !busy && !skeleton;
}"""


def _wait_idle(page, timeout_ms: int = 30000) -> None:
    """Wait until the app view is there and no script run is in progress - twice,
    600 ms apart, since a live page may rerun once more to draw a refined result
    and Streamlit shows its running icon only after a short delay."""
    page.wait_for_selector('[data-testid="stAppViewContainer"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stSlider"]', timeout=timeout_ms)
    for _ in range(2):
        page.wait_for_timeout(600)
        page.wait_for_function(_IDLE_JS, timeout=timeout_ms)
    page.wait_for_timeout(300)


@pytest.mark.browser
def test_every_page_in_a_real_browser(server):
    """Every page at the shipped defaults, on the built-in data, then on a real collection uploaded through the
    Data page (every page again, opened with the address the upload gave it): no exception, no error box, a
    chart on every chart page; each page's button pressed twice."""
    from playwright.sync_api import sync_playwright

    from tests.conftest import need_clef2015
    clef = need_clef2015()
    out = Path(os.environ.get("EVALCORE_SCREENSHOTS") or tempfile.mkdtemp(prefix="evalcore-shots-"))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server)
            for path, has_chart, button in PAGES:
                page.goto(f"{server}/{path}")
                _check_page(page, path, has_chart, button, "built-in data")
                builtin = _data_line(page)
                page.screenshot(path=str(out / f"{path}.png"), full_page=False)
            # a real collection, uploaded as a user does: qrels and every run file
            page.goto(f"{server}/data")
            _wait_idle(page)
            page.get_by_role("tab", name="Upload files").click()
            _choose_files(page, server, clef / "qrels.txt", sorted(str(f) for f in (clef / "runs").glob("*.dat.gz")))
            _wait_idle(page)
            page.get_by_role("button", name="Load these files").click()
            page.wait_for_function("() => location.search.includes('data=upload')", timeout=180000)
            _wait_idle(page, 180000)
            _no_error(page, "the Data page after the upload")
            # the address now names the upload (?data=upload&up=<content hash>...): every page opened with it
            query = page.url.split("?", 1)[1] if "?" in page.url else ""
            assert "data=upload" in query and "up=" in query, page.url
            for path, has_chart, button in PAGES:
                page.goto(f"{server}/{path}?{query}")
                _check_page(page, path, has_chart, button, "the uploaded collection")
                assert _data_line(page) != builtin, f"/{path} shows the built-in data, not the upload"
                page.screenshot(path=str(out / f"upload-{path or 'home'}.png"), full_page=False)
        finally:
            browser.close()
    print(f"screenshots in {out}")


def _data_line(page) -> str:
    """The sidebar's dataset choice and its size line ("30 runs · 50 topics · levels S A B")."""
    side = page.locator('[data-testid="stSidebar"]').inner_text()
    return "\n".join(line for line in side.splitlines()[:6] if "runs" in line or "Simulated" in line
                     or "pload" in line)


def _no_error(page, where: str) -> None:
    """No exception element and no error box (a bug the page turned into a message is a failure too)."""
    _no_exception(page, where)
    err = page.locator('[data-testid="stAlertContentError"]')
    assert err.count() == 0, f"{where} shows an error box: {err.first.inner_text()[:500]}"


def _check_page(page, path: str, has_chart: bool, button: str | None, data: str) -> None:
    where = f"page /{path} on {data}"
    _wait_idle(page, 120000)
    if button:
        for _ in range(2):               # twice: the second press reuses stored results
            page.get_by_role("button", name=button).click()
            _wait_idle(page, 180000)
    _no_error(page, where)
    dialog = page.locator('[data-testid="stDialog"]')      # "Page not found" is a dialog
    assert dialog.count() == 0, f"{where} opens a dialog: {dialog.first.inner_text()[:200]}"
    if has_chart:
        page.wait_for_selector('[data-testid="stPlotlyChart"]', timeout=60000)
        assert page.locator('[data-testid="stPlotlyChart"]').count() >= 1, f"no chart on {where}"


def _no_exception(page, where: str) -> None:
    exc = page.locator('[data-testid="stException"]')
    assert exc.count() == 0, f"{where} shows an exception: {exc.first.inner_text()[:500]}"


def _chart_svg(page, index: int = 0) -> str:
    """The drawn data of a plotly chart: the path of every line and bar (no ids, no hover state)."""
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=30000)
    chart = page.locator('[data-testid="stPlotlyChart"]').nth(index)
    return "|".join(chart.locator(".scatterlayer path.js-line, .barlayer path").evaluate_all(
        "els => els.map(e => e.getAttribute('d'))"))


def _nudge(page, thumb, key: str, target: str, max_presses: int = 60) -> None:
    """Press an arrow key on the slider until it shows ``target``, looking after
    each press (a rerun may redraw the sidebar and take the focus away)."""
    for _ in range(max_presses):
        if thumb.get_attribute("aria-valuetext") == target:
            return
        thumb.focus()
        page.keyboard.press(key)
        page.wait_for_timeout(120)


def _move_to(page, thumb, key: str, target: str, tries: int = 3) -> None:
    """Nudge the slider to ``target`` and wait for the app to settle; again if a rerun that was
    still running when a key was pressed left the slider one step off (seen once under load)."""
    for _ in range(tries):
        _nudge(page, thumb, key, target)
        _wait_idle(page, 60000)
        if thumb.get_attribute("aria-valuetext") == target:
            return
        key = "ArrowLeft" if float(thumb.get_attribute("aria-valuetext")) > float(target) else "ArrowRight"


def _settles(page, ok, timeout_s: float = 90.0) -> bool:
    """Poll the first chart until ``ok(svg)`` (reruns and plotly redraws take a moment; under the slow layer's
    other tests on two cores, once more than 45 s)."""
    end = time.time() + timeout_s
    while time.time() < end:
        if ok(_chart_svg(page)):
            return True
        page.wait_for_timeout(250)
    return False


@pytest.mark.browser
def test_swap_and_bootstrap_are_live_in_a_real_browser(server):
    """Live in a real browser: a chart with no button press; a gain slider moved changes
    it, moved back restores it; a button pressed twice; the same URL in a
    second browser context; no exception element anywhere."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server)
            for path in ("swap", "bootstrap"):
                page.goto(f"{server}/{path}?swb=300&bsb=300")
                _wait_idle(page, 60000)
                _no_exception(page, path)
                assert page.locator('[data-testid="stPlotlyChart"]').count() >= 1, f"no chart on {path}"
                assert page.get_by_text("B = 300 (chosen)").count() >= 1
                before = _chart_svg(page)
                thumb = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]').first
                start = thumb.get_attribute("aria-valuetext")         # the top level's gain, "3"
                _move_to(page, thumb, "ArrowRight", "5")     # 3 -> 4 -> 5 along the log-scale stops, as a hand does
                assert thumb.get_attribute("aria-valuetext") != start
                _no_exception(page, f"{path} after a slider move")
                assert _settles(page, lambda svg, before=before: svg != before), \
                    f"the {path} chart did not follow the gain slider"
                _move_to(page, thumb, "ArrowLeft", start)
                assert thumb.get_attribute("aria-valuetext") == start
                assert _settles(page, lambda svg, before=before: svg == before), f"the {path} chart did not come back"
                for _ in range(2):                       # any button, pressed twice
                    page.get_by_role("button", name="new seed").click()
                    _wait_idle(page, 60000)
                    _no_exception(page, f"{path} after 'new seed'")
                url = page.url
                other = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
                _local_only(other, server)
                other.goto(url)
                _wait_idle(other, 60000)
                _no_exception(other, f"{path} in a second browser context")
                assert other.locator('[data-testid="stPlotlyChart"]').count() >= 1
                other.context.close()
        finally:
            browser.close()


def _hostile_files(tmp: Path) -> dict[str, Path]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bombs import zip_bomb

    files = {
        "qrels": tmp / "qrels.txt",          # a good qrels, for the zip bomb
        "bomb": tmp / "runs.zip",            # 10 members of 1 GiB each, ~10 MB
        "huge_label": tmp / "qrels_huge.txt",  # label 2**63 (before the fix: an OverflowError traceback)
        "run": tmp / "run.txt",
    }
    files["qrels"].write_bytes(b"q1 0 d1 1\nq1 0 d2 0\n")
    files["bomb"].write_bytes(zip_bomb(1024, members=10))
    files["huge_label"].write_bytes(b"q1 0 d1 1\nq1 0 d2 " + str(2 ** 63).encode() + b"\n")
    files["run"].write_bytes(b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n")
    return files


@pytest.mark.browser
def test_hostile_uploads_show_an_error_box_and_keep_the_data(server, tmp_path):
    """Hostile uploads: a zip bomb and a qrels label of 2**63 uploaded through the real page: an error box
    naming the problem, no exception element, the previous data kept, the server alive."""
    from playwright.sync_api import sync_playwright

    files = _hostile_files(tmp_path)
    cases = [(files["qrels"], files["bomb"], "zip bomb"), (files["huge_label"], files["run"], "above 20")]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        try:
            page = _new_page(browser, server)
            page.goto(f"{server}/data")
            _wait_idle(page)
            dialog = page.locator('[data-testid="stDialog"]')
            assert dialog.count() == 0, f"a dialog is open: {dialog.first.inner_text()[:300]}"
            metrics = page.locator('[data-testid="stMetric"]')
            before = metrics.first.inner_text()            # "topics 50": the simulated collection
            for qrels, runs, words in cases:
                page.get_by_role("tab", name="Upload files").click()
                load = page.get_by_role("button", name="Load these files")
                _choose_files(page, server, qrels, runs)
                _wait_idle(page)
                load.click()
                page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=60000)
                _wait_idle(page, 60000)
                err = page.locator('[data-testid="stAlertContentError"]').first.inner_text()
                assert words in err and "previously loaded data" in err, err[:500]
                exc = page.locator('[data-testid="stException"]')
                assert exc.count() == 0, exc.first.inner_text()[:500]
                assert metrics.first.inner_text() == before          # the previous data is kept
                with urllib.request.urlopen(server + "/_stcore/health", timeout=5) as r:
                    assert r.status == 200                           # the server is alive
                # remove the uploaded files before the next case
                for b in page.locator('[data-testid="stFileUploaderDeleteBtn"] button').all()[::-1]:
                    b.click()
                    page.wait_for_timeout(200)
                _wait_idle(page)
        finally:
            browser.close()



@pytest.mark.browser
def test_a_settings_file_nested_600_deep_is_a_clear_message(server, tmp_path):
    """A settings file nested 600 containers deep (1.2 KB; json.loads would recurse 600 frames) uploaded
    on the Report page: an error box saying how deep it may be, no exception element, no traceback, the
    server alive."""
    from playwright.sync_api import sync_playwright

    deep = tmp_path / "deep.json"
    deep.write_text('{"settings":' + "[" * 600 + "]" * 600 + "}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        try:
            page = _new_page(browser, server)
            page.goto(f"{server}/report")
            _wait_idle(page)
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(deep))
            page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=60000)
            _wait_idle(page)
            err = page.locator('[data-testid="stAlertContentError"]').first.inner_text().replace("\u200b", "")
            assert "nested deeper than" in err and "nothing was changed" in err, err[:300]
            exc = page.locator('[data-testid="stException"]')
            assert exc.count() == 0, exc.first.inner_text()[:500]
            assert "Traceback" not in page.inner_text("body")
            with urllib.request.urlopen(server + "/_stcore/health", timeout=5) as r:
                assert r.status == 200
        finally:
            browser.close()


EVIL = "evil.example"
_EVIL_JS = """(host) => {
    const hits = [];
    for (const el of document.querySelectorAll('*')) {
        for (const a of el.attributes) {
            if (/(href|src|srcset|action|data|poster|style)$/i.test(a.name) && a.value.includes(host)) {
                hits.push(el.tagName + ' ' + a.name + '=' + a.value.slice(0, 80));
            }
        }
    }
    return hits;
}"""


def _no_injection(page, blocked: list, where: str) -> None:
    """No element points at the injected host and the page asked it for nothing."""
    hits = page.evaluate(_EVIL_JS, EVIL)
    assert not hits, f"{where}: elements pointing at {EVIL}: {hits[:5]}"
    leaked = [u for u in blocked if EVIL in u]
    assert not leaked, f"{where}: the browser requested {leaked[:3]}"
    _no_exception(page, where)


@pytest.mark.browser
def test_links_images_and_html_from_users_are_shown_as_text(server, tmp_path):
    """Links, images and HTML through every path user text takes: the address (toasts, an upload
    link's title), file names, run and topic ids (load report, tables, charts), a settings file
    (the error box): no element and no request to the injected host, and the text is on screen."""
    from playwright.sync_api import sync_playwright

    link = f"[Session expired - sign in again](https://{EVIL}/login)"
    image = f"![x](https://{EVIL}/pixel.png?leak=1)"
    tag = f"<img src=https://{EVIL}/tag.png>"
    qrels = tmp_path / f"[q](https:{EVIL})"                         # a file name (no '/' possible)
    qrels.write_bytes("".join(f"![t{t}](https://{EVIL}/t{t}.png) 0 d{d} {(d + t) % 3}\n"
                              for t in range(3) for d in range(8)).encode())
    runs = []
    for r in range(3):
        f = tmp_path / f"run{r}.txt"
        lines = [f"![t{t}](https://{EVIL}/t{t}.png) Q0 d{(d * (2 * r + 3)) % 8} {d + 1} {9 - d} "
                 f"[r{r}](https://{EVIL}/r{r})\n" for t in range(3) for d in range(8)]
        lines.append(f"![w](https://{EVIL}/warn.png) Q0 d1 1 1.0 [r{r}](https://{EVIL}/r{r})\n")   # unjudged topic
        f.write_text("".join(lines))
        runs.append(str(f))
    settings = tmp_path / f"[s](https:{EVIL}).json"
    settings.write_text(f'{{"top_by": "{image}"}}')

    blocked: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server, blocked)
            # 1. the address: toasts quoting bad values, the title of an upload link
            from urllib.parse import quote
            page.goto(f"{server}/overview?nt={quote(link)}&beta={quote(image)}&swb=100&bsb=100")
            # two toasts (nt's and beta's), which may appear one after the other: wait for the one quoting the
            # link, as text (shown as a link, its text would lack the address and this would time out)
            toasts = page.wait_for_function(
                """(want) => { const t = [...document.querySelectorAll('[data-testid="stToast"]')]
                                   .map(e => e.innerText.replace(/\\u200b/g, '')).join(' | ');
                               return t.includes(want) ? t : null; }""",
                arg=link, timeout=30000).json_value()
            assert link in toasts.replace("\u200b", ""), toasts           # shown, as text
            _no_injection(page, blocked, "toasts from the address")
            _wait_idle(page, 60000)
            _no_injection(page, blocked, "overview after the toasts")
            page.goto(f"{server}/overview?data=upload&up={'0' * 40}&upname={quote(tag + link)}")
            page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=30000)
            assert tag in page.locator('[data-testid="stText"]').first.inner_text()
            _no_injection(page, blocked, "an upload link's title")
            # 2. file names, run and topic ids, a collection name typed in
            page.goto(f"{server}/data")
            _wait_idle(page)
            page.get_by_role("tab", name="Upload files").click()
            _choose_files(page, server, qrels, runs)
            _wait_idle(page)
            name = page.get_by_role("textbox", name="Name of this collection")
            name.fill(image + " " + tag)
            name.press("Enter")
            _wait_idle(page)
            page.get_by_role("button", name="Load these files").click()
            page.wait_for_function("""() => {
                const m = document.querySelector('[data-testid="stMain"]');
                return m && (m.innerText.includes('relevance levels') && m.innerText.includes('run0.txt')
                             || document.querySelector('[data-testid="stAlertContentError"]')); }""",
                timeout=60000)
            _wait_idle(page, 60000)
            errors = page.locator('[data-testid="stAlertContentError"]')
            if errors.count():
                page.screenshot(path=str(tmp_path / "upload-error.png"), full_page=True)   # kept with the test's files
            assert errors.count() == 0, page.locator('[data-testid="stAlert"]').first.inner_text()[:800]
            page.get_by_text("Runs and topics").click()
            page.wait_for_timeout(500)
            body = page.locator('[data-testid="stMain"]').inner_text()
            assert f"![t0](https://{EVIL}/t0.png)" in body, body[:1000]      # the ids, as text
            _no_injection(page, blocked, "the Data page after the upload")
            for path in ("overview", "rankings", "significance", "playground"):
                page.goto(f"{server}/{path}?{page.url.partition('?')[2]}")
                _wait_idle(page, 60000)
                page.wait_for_timeout(1000)                                    # charts drawn
                _no_injection(page, blocked, f"{path} with hostile ids")
            # 3. a settings file whose value and name are Markdown
            page.goto(f"{server}/report?{page.url.partition('?')[2]}")
            _wait_idle(page)
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(settings))
            page.wait_for_selector('[data-testid="stAlertContentError"]', timeout=30000)
            err = page.locator('[data-testid="stAlertContentError"]').first.inner_text().replace("\u200b", "")
            assert "unknown metric" in err and image in err, err[:300]
            _no_injection(page, blocked, "a settings file's error box")
            # nothing else left the machine either: no font or icon from another origin (a ":material/...:"
            # page icon made the browser fetch fonts.gstatic.com on every page)
            assert blocked == [], f"requests to another origin: {sorted(set(blocked))[:5]}"
        finally:
            browser.close()


def _shoot_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("shoot", ROOT / "docs" / "screenshots" / "shoot.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _in_view(page, locator, what: str, height: int = 900) -> None:
    box = locator.bounding_box()
    assert box is not None, f"{what} is not drawn"
    assert box["y"] >= 0 and box["y"] + min(box["height"], 60) <= height, f"{what} starts at y = {box['y']:.0f}"


@pytest.mark.browser
def test_the_first_screen_shows_sliders_beta_and_a_chart_that_moves(server, tmp_path):
    """At 1440 x 900, without scrolling: every gain slider, beta and the Overview's chart; the default
    chart shows runs changing rank; the top gain slider reaches the maximum gain (log scale, no pinning)
    and moving it redraws the chart. The screenshot is the README's (docs/screenshots/shoot.py)."""
    from playwright.sync_api import sync_playwright

    from dashboard.pages import HOME
    shoot = _shoot_module()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            shots = shoot.shoot(browser, server, tmp_path, pages=[HOME])
            assert shots[HOME.url_path].stat().st_size > 20000          # a real picture, not a blank page
            page = _new_page(browser, server, viewport={"width": 1440, "height": 900})
            page.goto(f"{server}/?swb=100&bsb=100")
            _wait_idle(page, 60000)
            sliders = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]')
            assert sliders.count() == 4                                   # S, A, B and beta
            for i, what in enumerate(["gain of S", "gain of A", "gain of B", "beta"]):
                _in_view(page, sliders.nth(i), what)
            chart = page.locator('[data-testid="stPlotlyChart"]').first
            _in_view(page, chart, "the first chart")
            title = chart.locator(".gtitle").first.text_content()
            moved = int(title.split(": ")[1].split(" of ")[0])
            assert moved >= 5, f"the default view shows no contrast: {title}"
            before = _chart_svg(page)
            thumb = sliders.first.locator('input[type="range"]')
            thumb.focus()
            page.keyboard.press("End")                                    # the whole range is reachable
            _wait_idle(page, 60000)
            assert thumb.get_attribute("aria-valuetext") == "30"
            box = page.locator('[data-testid="stSidebar"] input[type="number"]').first
            assert float(box.input_value()) == 30.0                       # the box and the slider agree
            assert _settles(page, lambda svg, before=before: svg != before), "the chart did not follow the slider"
            new_title = page.locator('[data-testid="stPlotlyChart"]').first.locator(".gtitle").first.text_content()
            assert new_title != title
            _no_exception(page, "the first screen")
        finally:
            browser.close()


@pytest.mark.browser
def test_the_view_exported_as_html_opens_with_its_charts_and_no_network(server, tmp_path):
    """Download the Overview as HTML in the real app, open the file in a browser that may fetch nothing:
    every chart and table of the page is there (the charts drawn by the inlined plotly.js), with the
    captions, the settings in words, the references and the link, and no literal markup."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server)
            page.goto(f"{server}/overview?swb=100&bsb=100&gains=10:5:1")
            _wait_idle(page, 60000)
            n_charts = page.locator('[data-testid="stPlotlyChart"]').count()
            with page.expect_download(timeout=60000) as dl:
                page.get_by_role("button", name="Download this view (HTML)").click()
            path = tmp_path / "view.html"
            dl.value.save_as(str(path))
            offline = browser.new_page()
            requests: list[str] = []
            offline.route("**/*", lambda route: (requests.append(route.request.url),
                                                 route.continue_() if route.request.url.startswith("file:")
                                                 else route.abort()))
            offline.goto(path.as_uri())
            offline.wait_for_selector(".js-plotly-plot .main-svg", timeout=30000)
            offline.wait_for_timeout(500)
            assert offline.locator(".js-plotly-plot").count() == n_charts >= 2
            assert offline.locator(".js-plotly-plot .main-svg").count() >= n_charts       # drawn, not only placed
            n_tables = page.locator('[data-testid="stDataFrame"]').count()
            # the data summary, then each table of the page with its values (the swap summary, as on screen)
            assert offline.locator("table").count() == 1 + n_tables >= 2
            swap = offline.locator("table").nth(1).inner_text()
            assert "needed (95%)" in swap and "% pairs" in swap and "Q-measure" in swap
            assert re.search(r"\b0\.\d{4}\b", swap) and re.search(r"\b\d+\.\d %", swap)
            text = offline.locator("body").inner_text()
            assert "gains S=10 : A=5 : B=1" in text and "beta 1" in text and "gains=10:5:1" in text
            assert "gains_paper_notation" not in text and "Swap: B: 100" in text
            assert "Each line is a run" in text and "Sakai 2007:" in text            # a caption, the references
            assert "<br>" not in text and "**" not in text
            assert [u for u in requests if not u.startswith("file:")] == [], requests[:5]
        finally:
            browser.close()


#: Tables that scroll sideways at 1024 px by design, with why: (page, table number on the page).
WIDE_TABLES = {
    ("significance", 1): "every run pair with 14 statistics: no screen narrower than ~1300 px shows them all",
}


@pytest.mark.browser
def test_every_page_is_readable_at_1024_x_768(server, tmp_path):
    """Every page at 1024 x 768 with the sidebar open (a laptop, a classroom projector): no chart title
    under its legend or off its chart, every label of every heatmap drawn and no cell values
    overlapping, every table's columns in view (no sideways scroll) and every row of a short table, no
    metric value, button label or selector value cut short (Streamlit's ellipsis: the playground's
    metrics read "0.…", its buttons "i…", its level selectors nothing), no exception element - from the
    DOM and plotly's layout (docs/screenshots/shoot.py LAYOUT_JS). The screenshots are the same as
    docs/screenshots' (one command: shoot.py --size 1024)."""
    from playwright.sync_api import sync_playwright

    shoot = _shoot_module()
    found: dict[str, list[str]] = {}

    def check(page, spec):
        if spec.button:
            page.get_by_role("button", name=spec.button).click()
            shoot.wait_idle(page, 60000)
        page.wait_for_timeout(500)
        found[spec.url_path] = shoot.layout_problems(page)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            shots = shoot.shoot(browser, server, tmp_path, check=check, **shoot.SIZES["1024"])
        finally:
            browser.close()
    assert set(found) == {path for path, _, _ in PAGES} and all(png.stat().st_size > 20000 for png in shots.values())
    problems = []
    for page, msgs in found.items():
        for m in msgs:
            table = m.partition(":")[0]
            if table.startswith("table ") and (page, int(table.split()[1])) in WIDE_TABLES:
                continue
            problems.append(f"{page}: {m}")
    assert not problems, "\n".join(problems)


_MARKUP_JS = r"""(tokens) => {
    const main = document.querySelector('[data-testid="stMain"]');
    const made = [];
    // an element made of a name's markup holds exactly one of its words: <em>zq</em>, <code>cq</code>
    for (const el of main.querySelectorAll('a, em, strong, code, del, h1, h2, h3, h4, h5, h6')) {
        const t = (el.textContent || '').trim();
        if (tokens.includes(t)) made.push(el.tagName + ': ' + t);
    }
    // [r0](x), ![r1](y), [t2](z): a link or an image to x, y or z
    for (const el of main.querySelectorAll('a[href], img[src]')) {
        const u = el.getAttribute('href') || el.getAttribute('src');
        if (['x', 'y', 'z'].includes(u) || /\/[xyz]$/.test(u)) made.push(el.tagName + ' -> ' + u);
    }
    return made;
}"""


@pytest.mark.browser
def test_hostile_run_and_collection_names_read_and_copy_as_written(server, tmp_path):
    """Run names, topic ids and a collection name full of Markdown's specials ([](){}*_`#<>!:@): on the
    Overview, Data and Rankings pages the text a reader copies (innerText) holds them exactly as in the
    files - no zero-width space or other added character - and no link, image, emphasis, code or heading
    is made of them."""
    from playwright.sync_api import sync_playwright

    runs_named = ["[r0](x){a}*zq*_wq_`cq`#h<b>!:v2@lab", "![r1](y){b}**zq**__wq__<i>#1", "r2#`cq`*!:1"]
    topics = ["t*zq*_1_:a@b", "[t2](z)", "t3#`cq`!"]          # a line starting with # is a comment
    name = "[coll](x) *zq* _wq_ `cq` #h <b>! v2: see www.evil.example or me@evil.example"
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {(d + i) % 3}\n" for i, t in enumerate(topics) for d in range(8)))
    files = []
    for r, tag in enumerate(runs_named):
        f = tmp_path / f"{tag}.txt"                  # a run is named after its file
        f.write_text("".join(f"{t} Q0 d{(d * (2 * r + 3)) % 8} {d + 1} {9 - d} {tag}\n"
                             for t in topics for d in range(8)))
        files.append(str(f))
    tokens = ["zq", "wq", "cq", "coll", "r0", "r1", "t2", "h <b>!", "1"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server)
            page.goto(f"{server}/data")
            _wait_idle(page)
            page.get_by_role("tab", name="Upload files").click()
            _choose_files(page, server, qrels, files)
            _wait_idle(page)
            box = page.get_by_role("textbox", name="Name of this collection")
            box.fill(name)
            box.press("Enter")
            _wait_idle(page)
            page.get_by_role("button", name="Load these files").click()
            # the address names the upload once it is loaded (the built-in data's page shows 'relevance levels'
            # too, so that text alone does not tell the upload's page from the one before the click)
            page.wait_for_function("() => location.search.includes('data=upload')", timeout=120000)
            _wait_idle(page, 60000)
            main = page.locator('[data-testid="stMain"]')
            text = main.inner_text()
            heads = main.locator("h3").all_inner_texts()
            assert name in text and "\u200b" not in text, (heads, text[:600])  # the collection name, as typed
            page.get_by_text("Runs and topics").click()
            page.wait_for_timeout(500)
            text = main.inner_text()
            assert all(r in text for r in runs_named) and all(t in text for t in topics), text[:1500]
            assert page.evaluate(_MARKUP_JS, tokens) == []
            query = page.url.partition("?")[2]
            for path in ("overview", "rankings"):       # the Rankings' "Run against run" tab open
                page.goto(f"{server}/{path}?{query}" + ("&rkd=Run+against+run" if path == "rankings" else ""))
                _wait_idle(page, 60000)
                text = main.inner_text()
                assert "\u200b" not in text and (path != "overview" or name in text), (path, text[:600])
                made = page.evaluate(_MARKUP_JS, tokens)
                assert made == [], (path, made)
                if path == "rankings":       # "x beats y on ... topics": two run names in one caption
                    caption = next(c for c in main.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
                                   if " beats " in c)
                    x, _, rest = caption.partition(" beats ")
                    assert x in runs_named and rest.split(" on ")[0] in runs_named, caption
            _no_exception(page, "pages with hostile names")
        finally:
            browser.close()


def _press_fast(page, thumb, key: str, n: int, gap_ms: int) -> None:
    """Focus the slider once and press ``key`` ``n`` times, ``gap_ms`` apart, as a hand does (no
    refocusing, no waiting for the app between presses)."""
    thumb.focus()
    for _ in range(n):
        page.keyboard.press(key)
        page.wait_for_timeout(gap_ms)


@pytest.mark.browser
def test_sliders_follow_fast_key_presses_on_chart_pages(server):
    """Eight ArrowRight presses 100-200 ms apart, while the page's charts recompute, reach the same
    value as eight presses with a pause after each: the eighth stop. Before, each run wrote the
    widgets' values back into them, and a press that arrived during a run was undone (3 -> 6, 4 or
    8 instead of 15 on the Overview). Gain sliders on Overview, Rankings and Bootstrap, beta on one
    page; afterwards the slider, the exact box and the address agree."""
    from playwright.sync_api import sync_playwright

    from dashboard.state import GAIN_STOPS

    stops = [f"{v:g}" for v in GAIN_STOPS]
    target = stops[stops.index("3") + 8]                      # 3 -> 4, 5, 6, 7, 8, 10, 12, 15
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server)
            sliders = '[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]'
            # the reference: one press at a time, waiting for the app after each
            page.goto(f"{server}/overview")
            _wait_idle(page, 60000)
            thumb = page.locator(sliders).first
            for _ in range(8):
                thumb.focus()
                page.keyboard.press("ArrowRight")
                _wait_idle(page, 60000)
            assert thumb.get_attribute("aria-valuetext") == target
            for i, path in enumerate(("overview", "rankings", "bootstrap")):
                page.goto(f"{server}/{path}?bsb=300")
                _wait_idle(page, 60000)
                thumb = page.locator(sliders).first
                assert thumb.get_attribute("aria-valuetext") == "3"
                _press_fast(page, thumb, "ArrowRight", 8, (100, 150, 200)[i])
                _wait_idle(page, 60000)
                _no_exception(page, f"{path} after fast presses")
                assert thumb.get_attribute("aria-valuetext") == target, \
                    f"{path}: 8 fast presses from 3 ended at {thumb.get_attribute('aria-valuetext')}, not {target}"
                box = page.locator('[data-testid="stSidebar"] [data-testid="stNumberInput"] input').first
                assert float(box.input_value()) == float(target), f"{path}: the box shows {box.input_value()}"
                assert f"gains={target}%3A2%3A1" in page.url or f"gains={target}:2:1" in page.url, page.url
            # beta (a plain slider, 0.1 a step): 1.0 -> 1.8
            page.goto(f"{server}/rankings")
            _wait_idle(page, 60000)
            beta = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(
                has_text="beta (weight").locator('input[type="range"]')
            _press_fast(page, beta, "ArrowRight", 8, 120)
            _wait_idle(page, 60000)
            shown = beta.get_attribute("aria-valuetext") or beta.input_value()
            assert float(shown) == 1.8, shown
            assert "beta=1.8" in page.url, page.url
        finally:
            browser.close()


@pytest.mark.browser
def test_presentation_mode_puts_the_gains_on_the_page_with_larger_type(server):
    """``?present=1`` at 1024 x 768: the sidebar starts closed, the type is 1.25 x larger, the gains are in
    a row at the top of the page, and a gain typed there moves the page (the address and the sidebar's
    gain follow); nothing is cut short."""
    from playwright.sync_api import sync_playwright

    shoot = _shoot_module()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server, viewport={"width": 1024, "height": 768})
            page.goto(f"{server}/playground?present=1")
            row = page.locator('[data-testid="stMain"] [data-testid="stNumberInput"]').filter(
                has_text="gain S (level 3)").locator("input")
            row.wait_for(timeout=180000)
            for _ in range(2):
                page.wait_for_timeout(600)
                page.wait_for_function(_IDLE_JS, timeout=60000)
            assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "20px"
            sidebar = page.locator('[data-testid="stSidebar"]')
            assert sidebar.get_attribute("data-collapsed") == "true"
            assert row.is_visible() and row.bounding_box()["y"] < 300        # at the top of the page
            assert shoot.layout_problems(page) == []
            row.fill("10")
            row.press("Enter")
            page.wait_for_timeout(800)
            page.wait_for_function(_IDLE_JS, timeout=60000)
            assert "gains=10%3A2%3A1" in page.url or "gains=10:2:1" in page.url, page.url
            _no_exception(page, "presentation mode after a gain change")
        finally:
            browser.close()
