"""Every student can use it (WCAG 2.1 AA), in a real browser.

* axe-core's WCAG 2.1 A and AA rules (tags wcag2a, wcag2aa, wcag21a, wcag21aa) report no violation on any
  page of the registry, at 1440 x 900 with the sidebar open (a tall window, so every element is laid out and
  checked, not only the first screen) and at 1024 x 768 in presentation mode. axe-core's JavaScript comes
  with the ``axe-playwright-python`` package (requirements-dev.txt): nothing is fetched at test time, and every
  request but the local server's is aborted as in tests/test_browser.py.
* Every chart has a text alternative: a table of its data for screen readers (dashboard.widgets.chart), and a
  caption or table on screen after it.
* The lesson can be followed with the keyboard alone: Tab to "Next", Enter, from step 1 to step 4, and back with
  "Previous"; the keys N and P do the same.
"""
from __future__ import annotations

import pytest
import test_browser
from test_browser import ARGS, CHROMIUM, PAGES, _new_page, _wait_idle

#: The app as users start it (``evalcore app``), one server for this module.
server = test_browser.server

#: WCAG 2.1 level A and AA, as axe-core tags its rules.
WCAG21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: Small B so the resampling pages settle in seconds.
QUERY = "swb=200&bsb=200&stb=200&sgB=200"


def _axe():
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        if test_browser.IN_CI:
            pytest.fail("CI=true but axe-playwright-python is not installed (requirements-dev.txt)")
        pytest.skip("axe-playwright-python is not installed (pip install -r requirements-dev.txt)")
    return Axe()


def _violations(axe, page) -> list[str]:
    res = axe.run(page, options={"runOnly": {"type": "tag", "values": WCAG21_AA}, "resultTypes": ["violations"]})
    out = []
    for rule in res.response["violations"]:
        nodes = "; ".join(f"{n['target']} {(n.get('failureSummary') or '').splitlines()[-1].strip()[:160]}"
                          for n in rule["nodes"][:3])
        out.append(f"{rule['id']} ({len(rule['nodes'])} elements): {rule['help']} - {nodes}")
    return out


def _open_every_page(page, server: str, extra: str = ""):
    for path, _, button in PAGES:
        page.goto(f"{server}/{path}?{QUERY}{extra}")
        _wait_idle(page, 180000)
        if button:
            page.get_by_role("button", name=button).click()
            _wait_idle(page, 180000)
        page.wait_for_timeout(500)
        yield path


@pytest.mark.browser
@pytest.mark.parametrize("size, extra", [((1440, 2400), ""), ((1024, 768), "&present=1")],
                         ids=["1440-sidebar-open", "1024-presentation"])
def test_axe_finds_no_wcag_21_aa_violation_on_any_page(server, size, extra):
    from playwright.sync_api import sync_playwright

    axe = _axe()
    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server, viewport={"width": size[0], "height": size[1]})
            for path in _open_every_page(page, server, extra):
                v = _violations(axe, page)
                if v:
                    found[path] = v
        finally:
            browser.close()
    assert not found, "\n".join(f"/{p}: {v}" for p, vs in found.items() for v in vs)


#: Every chart's text alternative: the screen-reader table dashboard.widgets.chart puts after it (an element with
#: the chart's title as its label) and, on screen, a caption, text or table within the next two elements.
_ALT_JS = r"""() => {
  const missing = [];
  document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach((chart, i) => {
    const box = chart.closest('[data-testid="stElementContainer"]') || chart;
    if (box.getBoundingClientRect().width === 0) return;          // a closed tab or expander
    let alt = null, seen = null, el = box;
    for (let k = 0; k < 3 && el; k++) {
      el = el.nextElementSibling;
      if (!el) break;
      if (!alt) alt = el.querySelector('table.chart-alt');
      if (!seen && el.querySelector('[data-testid="stCaptionContainer"], [data-testid="stMarkdown"], '
                                    + '[data-testid="stTable"], [data-testid="stDataFrame"]')) seen = el;
    }
    const title = (chart.querySelector('.gtitle') || {}).textContent || `chart ${i + 1}`;
    if (!alt || !alt.querySelector('caption') || alt.querySelectorAll('tr').length < 2)
      missing.push(`${title}: no data table for screen readers`);
    if (!seen) missing.push(`${title}: no caption or table after it`);
  });
  return missing;
}"""


@pytest.mark.browser
def test_every_chart_has_a_text_alternative(server):
    from playwright.sync_api import sync_playwright

    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server, viewport={"width": 1440, "height": 2400})
            charts = 0
            for path in _open_every_page(page, server):
                charts += page.locator('[data-testid="stPlotlyChart"]').count()
                missing = page.evaluate(_ALT_JS)
                if missing:
                    found[path] = missing
        finally:
            browser.close()
    assert charts >= 12 and not found, found


_FOCUSED_JS = """() => { const e = document.activeElement, s = getComputedStyle(e);
    return [e.tagName, (e.innerText || '').slice(0, 40), s.outlineStyle, s.outlineWidth, s.boxShadow]; }"""
_FOCUS_RING_JS = """() => { const s = getComputedStyle(document.activeElement);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none'; }"""


def _tab_to(page, name: str, max_tabs: int = 120) -> int:
    """Press Tab until the focused element is the button ``name``; the number of presses."""
    for n in range(1, max_tabs + 1):
        page.keyboard.press("Tab")
        tag, label = page.evaluate("() => [document.activeElement.tagName, document.activeElement.innerText || '']")
        if tag == "BUTTON" and name in label.split():     # "arrow_forward Next N": its icon, label and key hint
            return n
    raise AssertionError(f"{name!r} not reached with {max_tabs} Tab presses")


@pytest.mark.browser
@pytest.mark.parametrize("extra", ["", "&present=1"], ids=["sidebar-open", "presentation"])
def test_the_lesson_can_be_followed_with_the_keyboard_alone(server, extra):
    """From step 1 to step 4 with Tab and Enter only (no mouse), then back to step 3 with "Previous": the step,
    its heading and the address follow, and the focused control is visibly marked (an outline or a ring)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = _new_page(browser, server, viewport={"width": 1024, "height": 768})
            page.goto(f"{server}/lesson?{QUERY}{extra}")
            _wait_idle(page, 120000)
            presses = []
            for name, step in (("Next", 2), ("Next", 3), ("Next", 4), ("Previous", 3)):
                presses.append(_tab_to(page, name))
                page.wait_for_timeout(400)                 # the ring fades in (a CSS transition)
                ring = page.evaluate(_FOCUS_RING_JS)
                assert ring, (f"the focused {name!r} button shows no focus mark", page.evaluate(_FOCUSED_JS))
                page.keyboard.press("Enter")
                page.wait_for_function(f"() => location.search.includes('step={step}')", timeout=60000)
                _wait_idle(page, 120000)
                heading = page.locator('[data-testid="stMain"] h2').first.inner_text()
                assert heading.startswith(f"{step}. "), heading
            print(f"Tab presses to reach the button, step by step: {presses}")
            page.locator('[data-testid="stMain"] h2').first.click()      # focus out of any control, then keys
            for key, step in (("n", 4), ("p", 3), ("p", 2)):
                page.keyboard.press(key)
                page.wait_for_function(f"() => location.search.includes('step={step}')", timeout=60000)
                _wait_idle(page, 120000)
        finally:
            browser.close()
