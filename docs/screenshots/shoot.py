"""Regenerate the screenshots of the README and docs/dashboard.md from the real app: `python docs/screenshots/shoot.py`.

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


#: Sizes to check a page at: the README's screen, a 1024 x 768 laptop or classroom screen, and a
#: projector (1280 x 720 CSS pixels drawn at 1.5x, as a 1920 x 1080 beamer with 150 % zoom shows them).
SIZES = {
    "1440": {"viewport": VIEWPORT},
    "1024": {"viewport": {"width": 1024, "height": 768}},
    "projector": {"viewport": {"width": 1280, "height": 720}, "device_scale_factor": 1.5},
}

#: What a reader would see as broken, from the DOM and plotly's own layout (a list of sentences, empty when
#: all is well): a chart title running off its chart or under the legend, a heatmap label or cell value
#: missing or overlapping, a table whose columns do not all fit (it scrolls sideways: columns out of
#: view), a short table not showing every row, a metric's value, a button's label or a selector's value
#: cut short (an ellipsis: "0.…", "i…"), an exception element. Charts and tables in closed tabs or expanders (no width) are skipped.
LAYOUT_JS = """() => {
  const box = e => e.getBoundingClientRect();
  const overlap = (a, b, t = 0) => a.left < b.right - t && b.left < a.right - t && a.top < b.bottom - t && b.top < a.bottom - t;
  const r = v => Math.round(v);
  const fmt = b => `[${r(b.left)},${r(b.top)},${r(b.right)},${r(b.bottom)}]`;
  const problems = [];
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
  charts.forEach((c, i) => {
    const cb = box(c);
    if (cb.width === 0) return;              // in a closed tab or expander
    const name = `chart ${i + 1}`;
    const titles = [...c.querySelectorAll('.gtitle')].map(box);
    const legends = [...c.querySelectorAll('.legend')].map(box);
    for (const t of titles) {
      if (t.right > cb.right + 2 || t.left < cb.left - 2) problems.push(`${name}: title ${fmt(t)} runs off the chart ${fmt(cb)}`);
      for (const l of legends) if (overlap(t, l)) problems.push(`${name}: legend ${fmt(l)} overlaps the title ${fmt(t)}`);
    }
    const gd = c.querySelector('.js-plotly-plot');
    for (const d of (gd && gd.data) || []) {
      if (d.type !== 'heatmap') continue;
      const nx = new Set(d.x).size, ny = new Set(d.y).size;
      const xl = [...c.querySelectorAll('.xtick text')].filter(e => e.textContent), yl = [...c.querySelectorAll('.ytick text')].filter(e => e.textContent);
      const shown = (gd.layout.xaxis || {}).showticklabels !== false;
      if (shown && xl.length !== nx) problems.push(`${name}: ${xl.length} of ${nx} x labels of the heatmap drawn`);
      if (yl.length !== ny) problems.push(`${name}: ${yl.length} of ${ny} y labels of the heatmap drawn`);
      for (const e of [...xl, ...yl]) { const b = box(e); if (b.left < cb.left - 2 || b.right > cb.right + 2 || b.bottom > cb.bottom + 2) problems.push(`${name}: label ${e.textContent} ${fmt(b)} cut off ${fmt(cb)}`); }
      const cells = [...c.querySelectorAll('.heatmaplayer text, g.heatmaplayer text')].filter(e => e.textContent).map(e => [e.textContent, box(e)]);
      for (let a = 0; a < cells.length; a++) for (let b = a + 1; b < cells.length; b++)
        if (overlap(cells[a][1], cells[b][1], 0.5)) { problems.push(`${name}: cell values ${cells[a][0]} and ${cells[b][0]} overlap`); a = cells.length; break; }
      if (d.texttemplate && cells.length === 0) problems.push(`${name}: heatmap values not drawn`);
    }
  });
  document.querySelectorAll('[data-testid="stDataFrame"]').forEach((d, i) => {
    const g = d.querySelector('table[role="grid"]');
    const db = box(d);
    if (!g || db.width === 0) return;
    const n = Number(g.getAttribute('aria-colcount'));
    const sc = d.querySelector('.dvn-scroller');
    // the grid scrolls sideways when its columns are wider than the table: some are out of view
    // a short table (at most 20 rows) shows every row: no inner scroll bar (dashboard.widgets.table shows up to
    // FULL_HEIGHT_ROWS = 30 unless its page gives a height); any table that scrolls says so right under it (the
    // grid's scroll bar shows only on hover)
    const rows = Number(g.getAttribute('aria-rowcount')) - 1;
    if (sc && rows <= 20 && sc.scrollHeight > sc.clientHeight + 1) problems.push(`table ${i + 1}: ${rows} rows, not all in view (${sc.scrollHeight} px, ${Math.round(sc.clientHeight)} px shown)`);
    const holder = d.closest('[data-testid="stElementContainer"]');
    const next = holder && holder.nextElementSibling;
    const says = next && /scroll inside the table/.test(next.innerText || '');
    if (sc && sc.scrollHeight > sc.clientHeight + 1 && !says) problems.push(`table ${i + 1}: ${rows} rows scroll inside it with no note saying so`);
    if (sc && sc.scrollWidth > sc.clientWidth + 1) problems.push(`table ${i + 1}: its ${n} columns need ${sc.scrollWidth} px, ${Math.round(sc.clientWidth)} px shown (${[...d.querySelectorAll('[role="columnheader"]')].map(h => h.textContent).join(', ')})`);
  });
  // text cut short (Streamlit ends it with an ellipsis, "0.…", "i…"): a metric's value, a button's label, a
  // selector's value (a selector too narrow for its value showed nothing at all) - in the page, not the sidebar
  const cut = e => e.scrollWidth > e.clientWidth + 1;
  const shown = e => e.getBoundingClientRect().width > 0;
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  const first = (el, sel) => [el, ...el.querySelectorAll(sel)].find(cut);
  main.querySelectorAll('[data-testid="stMetricValue"]').forEach(m => {
    const e = shown(m) && first(m, '*');
    if (e) problems.push(`metric value ${m.innerText.trim()} cut short (${e.scrollWidth} px in ${e.clientWidth} px)`);
  });
  main.querySelectorAll('button').forEach(b => {
    const e = shown(b) && first(b, '*');
    if (e) problems.push(`button ${b.innerText.trim().split('\\n').pop()} cut short (${e.scrollWidth} px in ${e.clientWidth} px)`);
  });
  main.querySelectorAll('[data-testid="stSelectbox"]').forEach(s => {
    if (!shown(s)) return;
    const texts = [...s.querySelectorAll('[data-baseweb="select"] *')].filter(e => !e.children.length && e.textContent.trim());
    const e = texts.find(t => cut(t) || t.getBoundingClientRect().width < 8);
    if (e) problems.push(`selector ${s.innerText.trim().split('\\n')[0]}: its value ${e.textContent.trim()} cut short (${e.scrollWidth} px in ${e.clientWidth} px)`);
  });
  const exc = document.querySelectorAll('[data-testid="stException"]').length;
  if (exc) problems.push(`${exc} exception element(s)`);
  return problems;
}"""


def layout_problems(page) -> list[str]:
    """:data:`LAYOUT_JS` on the page as it is now."""
    return page.evaluate(LAYOUT_JS)


def wait_idle(page, timeout_ms: int = 180000) -> None:
    """The app view is there and no script run is in progress, twice 600 ms apart (a live page
    may rerun once more to draw a refined result). Three minutes at most: a first run on a busy
    two-core machine took 96 s."""
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


def shoot(browser, server: str, out: Path, pages=None, query: str = QUERY, viewport=VIEWPORT,
          check=None, **context) -> dict[str, Path]:
    """One screenshot of the first screen of each page: ``{url_path: png}``. ``check(page, spec)``, if
    given, runs on each page once it is drawn (tests/test_browser.py asserts :func:`layout_problems` there);
    ``context`` goes to ``browser.new_page`` (``device_scale_factor=1.5``)."""
    sys.path.insert(0, str(ROOT))
    from dashboard.pages import PAGES
    from evalcore._atomic import check_writable_dir, write_bytes
    check_writable_dir(out, create=True)
    page = browser.new_page(viewport=viewport, **context)
    local_only(page, server)
    shots = {}
    try:
        for p in pages or PAGES:
            page.goto(f"{server}/{p.url_path}?{query}")
            wait_idle(page)
            if p.has_chart:
                page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=30000)
                page.wait_for_timeout(500)
            if check is not None:
                check(page, p)
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
    ap.add_argument("--size", choices=sorted(SIZES), default="1440",
                    help="screen: 1440 x 900 (the README's), 1024 x 768, or a projector (1280 x 720 at 1.5x); "
                         "the layout problems found on each page are printed")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright
    found = []

    def check(page, spec):
        found.extend(f"{spec.url_path}: {m}" for m in layout_problems(page))

    with server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for name, path in shoot(browser, url, args.out, check=check, **SIZES[args.size]).items():
                print(f"{name}: {path}")
            for m in found:
                print("layout:", m)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
