"""Fast hands in a real browser: bursts of key presses and clicks on the gain boxes end where slow input ends.

A lecturer's hand is quick: ten ArrowUp presses on a gain box, five clicks on its "+", 100-150 ms apart,
while the page's charts are recomputed. Each press commits a value and asks for a rerun; the runs overlap.
These tests press and click in bursts on two pages - in presentation mode on the row of gain boxes at the top
of the page, and on the sidebar's exact-value box - and compare with the same input given slowly (one press,
then wait for the app): the boxes, the sidebar, the address and the first chart must agree, on the level
pressed and no other. The app is started as users start it (``evalcore app``, tests/test_browser.py's
``server``); every request but the local server's is aborted.
"""
from __future__ import annotations

import re
import time

import pytest
import test_browser
from test_browser import _IDLE_JS, ARGS, CHROMIUM, _chart_svg, _new_page, _no_exception

#: The app as users start it (``evalcore app``), one server for this module.
server = test_browser.server

#: A page's first chart follows the gains; B of the resampling pages small, so a page settles in seconds.
PAGES = ("overview?bsb=300&swb=300", "bootstrap?bsb=300")
ROW = '[data-testid="stMain"] [data-testid="stNumberInput"]'
SIDE_BOX = '[data-testid="stSidebar"] [data-testid="stNumberInput"] input'


def _settle(page, timeout_ms: int = 120000) -> None:
    """Wait until no script runs, three times 700 ms apart: a burst leaves reruns queued behind each other, and
    a live page reruns once more to draw its refined result."""
    for _ in range(3):
        page.wait_for_timeout(700)
        page.wait_for_function(_IDLE_JS, timeout=timeout_ms)


def _state(page, where: str) -> dict:
    """What the reader sees: the row of gain boxes (S, A, B; presentation mode), the sidebar's boxes, the gains in
    the address, the first chart's drawn paths."""
    row = page.locator(f"{ROW} input" if where == "row" else "#no-row")
    side = page.locator(SIDE_BOX)
    gains = re.search(r"gains=([^&]+)", page.url)
    return {"row": [row.nth(i).input_value() for i in range(min(row.count(), 3))],
            "sidebar": [side.nth(i).input_value() for i in range(3)],
            "address": gains.group(1).replace("%3A", ":") if gains else "3:2:1",
            "chart": _chart_svg(page)}


def _open(browser, server, path: str, present: bool = True):
    page = _new_page(browser, server, viewport={"width": 1024, "height": 768})
    page.goto(f"{server}/{path}" + ("&present=1" if present else ""))
    page.wait_for_selector(f"{ROW} input" if present else SIDE_BOX, timeout=180000)
    _settle(page)
    return page


def _row_box(page, name: str = "gain S (level 3)"):
    return page.locator(ROW).filter(has_text=name)


def _keys(page, box, n: int, gap_ms: int, slow: bool, key: str = "ArrowUp") -> None:
    """``n`` presses of ``key`` on ``box`` then Enter: ``gap_ms`` apart (a burst) or each after the app settled."""
    for _ in range(n):
        if slow or not box.evaluate("e => e === document.activeElement"):
            box.focus()
        page.keyboard.press(key)
        _settle(page) if slow else page.wait_for_timeout(gap_ms)
    page.keyboard.press("Enter")


def _clicks(page, plus, n: int, gap_ms: int, slow: bool) -> None:
    for _ in range(n):
        plus.click()
        _settle(page) if slow else page.wait_for_timeout(gap_ms)


def _script(page, slow: bool, where: str) -> list[dict]:
    """The input of one trial: ten ArrowUp presses on S's box (3.00 -> 4.00), then five clicks on its "+"
    (-> 4.50) in the row, five ArrowDown presses (-> 3.50) in the sidebar, whose narrow boxes have no "+";
    the state after each part."""
    seen = []
    if where == "row":
        box = _row_box(page).locator("input")
        _keys(page, box, 10, 120, slow)
        _settle(page)
        seen.append(_state(page, where))
        _clicks(page, _row_box(page).locator("button").last, 5, 140, slow)
    else:
        box = page.locator(SIDE_BOX).first
        _keys(page, box, 10, 110, slow)
        _settle(page)
        seen.append(_state(page, where))
        _keys(page, page.locator(SIDE_BOX).first, 5, 150, slow, key="ArrowDown")
    _settle(page)
    seen.append(_state(page, where))
    return seen


@pytest.mark.browser
@pytest.mark.parametrize("where", ["row", "sidebar"])
def test_bursts_on_the_gain_boxes_end_where_slow_input_ends(server, where):
    """On two pages, in presentation mode (the row of gain boxes at the top) or on the sidebar's exact-value
    box: ten ArrowUp presses 120 ms apart then Enter, then five clicks on "+" 140 ms apart (the sidebar: five
    ArrowDown presses 150 ms apart), give the same boxes, sidebar, address and chart as the same input given
    slowly: S at 4.00, then 4.50 (3.50); A and B untouched. Before, a burst was lost whole (S back at 3.00) or
    in part, or overshot (4.20 after ten presses from 3.00 on the Bootstrap page)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for path in PAGES:
                slow_page = _open(browser, server, path, present=where == "row")
                started = time.time()
                slow = _script(slow_page, True, where)
                slow_page.close()
                targets = ("4.00", "4.50") if where == "row" else ("4.00", "3.50")
                for target, state in zip(targets, slow, strict=True):           # the reference is right itself
                    assert state["row" if where == "row" else "sidebar"][0] == target, (path, "slow", state)
                fast_page = _open(browser, server, path, present=where == "row")
                fast = _script(fast_page, False, where)
                _no_exception(fast_page, f"{path} after bursts")
                for i, (want, got) in enumerate(zip(slow, fast, strict=True)):
                    what = f"{path}, {where}, after {'the key burst' if i == 0 else 'the click burst'}"
                    assert got["row"] == want["row"], (what, got["row"], want["row"])
                    assert got["sidebar"] == want["sidebar"], (what, got["sidebar"], want["sidebar"])
                    assert got["address"] == want["address"], (what, got["address"], want["address"])
                    assert got["chart"] == want["chart"], f"{what}: the chart differs from slow input's"
                fast_page.close()
                print(f"{path} ({where}): slow and fast agree; {time.time() - started:.0f} s")
        finally:
            browser.close()
