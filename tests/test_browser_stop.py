"""A lecturer stops a long computation in a real browser: "B x 10" twice on the Bootstrap page asks before
B = 100,000, and the refinement it starts shows progress and a Stop button that ends it within seconds; the
quick pass stays on screen, said so, and the page computes nothing more until asked. The app is started as
users start it (tests/test_browser.py's ``server``); every request but the local server's is aborted."""
from __future__ import annotations

import time

import pytest
import test_browser
from test_browser import _IDLE_JS, ARGS, CHROMIUM, _new_page, _no_exception, _wait_idle

#: The app as users start it (``evalcore app``), one server for this module.
server = test_browser.server


@pytest.mark.browser
def test_b_times_10_twice_asks_and_stop_ends_the_refinement(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server, viewport={"width": 1024, "height": 768})
            page.goto(f"{server}/bootstrap?nt=30&nr=12")
            _wait_idle(page, 120000)
            main = page.locator('[data-testid="stMain"]')
            B = main.locator('[data-testid="stNumberInput"] input').first
            assert B.input_value() == "1000"
            main.get_by_role("button", name="B x 10").click()
            page.wait_for_function("() => !document.body.innerText.includes('B = 1000 (chosen)')", timeout=60000)
            _wait_idle(page, 300000)
            assert B.input_value() == "10000"                      # up to 10,000 at once
            main.get_by_role("button", name="B x 10").click()
            main.get_by_text("B = 100,000?").wait_for(timeout=60000)   # above it: asked first
            assert B.input_value() == "10000"
            main.get_by_role("button", name="Compute B = 100,000").click()
            stop = main.get_by_role("button", name="Stop")
            stop.first.wait_for(timeout=120000)
            page.wait_for_timeout(2000)
            assert main.get_by_text("Refining Bootstrap to B = 100,000").count() == 1     # progress, with its text
            clicked = time.time()
            stop.first.click()
            main.get_by_text("was stopped").first.wait_for(timeout=30000)
            _wait_idle(page, 30000)
            took = time.time() - clicked
            assert took < 20, f"the page went on computing for {took:.0f} s after Stop"
            text = main.inner_text()
            assert "refining to the chosen B = 100,000 was stopped" in text
            assert main.get_by_role("button", name="Refine to B = 100,000 again").count() >= 1
            # nothing starts again by itself: idle for five more seconds, the quick pass still on screen
            for _ in range(5):
                page.wait_for_timeout(1000)
                assert page.evaluate(_IDLE_JS), "the page started computing again after Stop"
            assert "ASL curves, B = 100" in text
            _no_exception(page, "the Bootstrap page after Stop")
            print(f"Stop took effect in {took:.1f} s")
        finally:
            browser.close()
