"""No 404 and no error in the browser's console, on any page, in a real browser.

Streamlit's browser code, on a page opened by its address (``/lesson``), first asked ``/lesson/_stcore/health``
and ``/lesson/_stcore/host-config`` - two 404s in every student's console on every page - before trying the
server's root (Streamlit issue 7074). ``evalcore app`` serves app.py as an ``st.App`` whose pages tell the
browser where the server is (dashboard/serve.py). The app is started as users start it (tests/test_browser.py's
``server``); every request but the local server's is aborted.
"""
from __future__ import annotations

import pytest
import test_browser
from test_browser import ARGS, CHROMIUM, PAGES, _local_only, _wait_idle

#: The app as users start it (``evalcore app``), one server for this module.
server = test_browser.server


@pytest.mark.browser
@pytest.mark.parametrize("extra", ["", "&present=1"], ids=["sidebar-open", "presentation"])
def test_no_page_logs_a_404_or_a_console_error(server, extra):
    from playwright.sync_api import sync_playwright

    seen: dict[str, list[str]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for path, _, _ in PAGES:
                page = browser.new_page(viewport={"width": 1024, "height": 768})     # a fresh load of each address
                _local_only(page, server)
                bad: list[str] = []
                page.on("response", lambda r, bad=bad: bad.append(f"{r.status} {r.url}") if r.status >= 400 else None)
                page.on("console", lambda m, bad=bad: bad.append(f"console {m.type}: {m.text[:200]}")
                        if m.type == "error" else None)
                page.goto(f"{server}/{path}?swb=100&bsb=100&stb=100{extra}")
                _wait_idle(page, 120000)
                if bad:
                    seen[path] = bad
                page.close()
        finally:
            browser.close()
    assert not seen, "\n".join(f"/{p}: {b}" for p, bs in seen.items() for b in bs)
