"""Another page's settings wait outside the session's keys, and are never lost or read as defaults.

Each keyed widget Streamlit draws reads the whole session state key by key, so the app keeps as keys
only the sidebar's settings and the shown page's own (dashboard.state.keep_alive); the other pages'
settings wait in a plain store and code reads them with ``dashboard.state.value``. These tests check
what a user sees: a setting made on one page is used by the pages that read it, survives a trip through
other pages, and stays in the address; and they check the pages' code for a direct read of another
page's setting, which would see nothing (or a default) while that page is not shown.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import pages  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def _page(name: str) -> pages.PageSpec:
    return pages.by_name(name)


def _open(name: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"nt": "12", "nr": "6", "swb": "100", "bsb": "100", **(query or {})})
    at.switch_page(_page(name).script).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _go(at: AppTest, name: str) -> AppTest:
    at.switch_page(_page(name).script).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _keys(at: AppTest) -> set[str]:
    return set(at.session_state._state._state.filtered_state)


def test_only_the_shown_pages_settings_are_session_keys():
    at = _open("rankings")
    at.run()                                  # the second run of the page: the first run of a session keeps all
    keys = _keys(at)
    own = {c.key for c in _page("rankings").controls}
    others = {c.key for p in pages.PAGES if p.url_path != "rankings" for c in p.controls}
    assert own <= keys
    assert not (others & keys), sorted(others & keys)
    assert {c.key for c in pages.SIDEBAR if c.kind != "levels"} - {"upload_fp", "upload_name"} <= keys


def test_a_setting_made_on_one_page_is_used_elsewhere_and_comes_back():
    # the Data page's simulated size: every page draws from it (dashboard.cached.current_collection)
    at = _open("data")
    at.number_input(key="sim_topics").set_value(17).run()
    assert not at.exception
    _go(at, "rankings")
    at.run()
    assert at.session_state["_view"]["data"]["topics"] == 17          # not the default 12 / 50
    _go(at, "correlation")
    assert at.session_state["_view"]["data"]["topics"] == 17
    assert at.query_params["nt"] in ("17", ["17"])                  # still in the address on another page
    _go(at, "data")
    assert at.number_input(key="sim_topics").value == 17           # the widget shows it again


def test_the_bootstrap_pages_alpha_reaches_the_overview():
    at = _open("bootstrap")
    at.select_slider(key="bs_alpha").set_value(0.01).run()
    assert not at.exception
    _go(at, "overview")
    at.run()
    specs = " ".join(e.proto.spec for e in at.get("plotly_chart"))
    assert "alpha = 0.01" in specs and "alpha = 0.05" not in specs    # the Overview's bootstrap chart
    _go(at, "bootstrap")
    assert at.select_slider(key="bs_alpha").value == 0.01


def test_a_link_carrying_another_pages_setting_opens_on_the_overview_and_keeps_it():
    at = _open("overview", {"bsb": "300"})
    at.run()
    assert "bs_B" not in _keys(at)
    assert at.query_params["bsb"] in ("300", ["300"])
    _go(at, "bootstrap")
    assert at.number_input(key="bs_B").value == 300


#: Where a page's own setting may be named: its own page (views/<page>.py and its helper dashboard/<page>.py,
#: used by that page alone), the declarations, the state module.
_ALLOWED = {"dashboard/pages.py", "dashboard/state.py"}


def test_no_page_reads_another_pages_setting_from_the_session_directly():
    owner = {c.key: p.file for p in pages.PAGES for c in p.controls}
    files = sorted((ROOT / "views").glob("*.py")) + sorted((ROOT / "dashboard").glob("*.py"))
    bad = []
    for f in files:
        rel = f.relative_to(ROOT).as_posix()
        if rel in _ALLOWED:
            continue
        text = f.read_text()
        for key, page_file in owner.items():
            if rel in (f"views/{page_file}", f"dashboard/{page_file}"):
                continue
            for m in re.finditer("[\"']" + re.escape(key) + "[\"']", text):
                before = text[max(0, m.start() - 6):m.start()]
                if not re.search(r"\b(value|v)\($", before):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append(f"{rel}:{line}: {key!r} (the {page_file} page's) read without state.value")
    assert not bad, "\n".join(bad)
