"""Another page's settings wait outside the session's keys, and are never lost or read as defaults.

Each keyed widget Streamlit draws reads the whole session state key by key, so the app keeps as keys
only the sidebar's settings and the shown page's own (dashboard.state.keep_alive); the other pages'
settings wait in a plain store and code reads them with ``dashboard.state.value``. These tests check
what a user sees: a setting made on one page is used by the pages that read it, survives a trip through
other pages, and stays in the address; and they check the pages' code for a direct read of another
page's setting, which would see nothing (or a default) while that page is not shown.
"""
from __future__ import annotations

import ast
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
    # the Data page's simulated size: every page draws from it (dashboard.datasets.current_collection)
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
        bad += _computed_reads(rel, text, {k: f for k, f in owner.items()
                                           if rel not in (f"views/{f}", f"dashboard/{f}")})
    assert not bad, "\n".join(bad)


#: keys built at run time that are the sidebar's own (always session keys): the gain and penalty of level L
_SIDEBAR_TEMPLATES = {"g{}", "p{}"}


def _template(node: ast.expr) -> str:
    """An f-string key with its replacement fields as ``{}`` (``f"g{L}"``: ``"g{}"``)."""
    if not isinstance(node, ast.JoinedStr):
        return ""
    return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


def _key_prefix(node: ast.expr) -> str | None:
    """The fixed start of a key built at run time (``f"sw_{x}"``, ``"sw_" + x``: ``"sw_"``); None for a plain
    string (the quoted-key scan above sees those) or a bare name (its value is a quoted key somewhere)."""
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = node.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str):
            return left.value
        return _key_prefix(left)
    return None


def _is_session(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "ss") or (
        isinstance(node, ast.Attribute) and node.attr == "session_state")


def _computed_reads(rel: str, text: str, foreign: dict[str, str]) -> list[str]:
    """Reads of the session with a key built at run time that could be another page's setting: the key's
    fixed start is the start of one of ``foreign``'s keys, or there is no fixed start to tell."""
    bad = []
    for node in ast.walk(ast.parse(text)):
        key = None
        if isinstance(node, ast.Subscript) and _is_session(node.value):
            key = node.slice
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and _is_session(node.func.value) and node.args):
            key = node.args[0]
        prefix = _key_prefix(key) if key is not None else None
        if prefix is None or _template(key) in _SIDEBAR_TEMPLATES:
            continue
        hits = sorted(k for k in foreign if k.startswith(prefix))
        if hits or not prefix:
            bad.append(f"{rel}:{node.lineno}: a key built at run time ({ast.unparse(key)}) that may be another "
                       f"page's setting ({', '.join(hits[:4]) or 'no fixed start'}): read it with state.value")
    return bad


def test_the_scan_sees_a_computed_key_of_another_page():
    """The check above can fail: an f-string, a concatenation and a key with no fixed start are caught; keys
    no page owns and the sidebar's gains are not."""
    foreign = {"sw_B": "swap.py", "sw_seed": "swap.py", "bs_B": "bootstrap.py"}
    code = ('import streamlit as st\nss = st.session_state\nm = "B"\n'
            'a = ss[f"sw_{m}"]\nb = st.session_state.get("bs_" + m)\nc = ss[f"{m}_x"]\n'
            'd = ss[f"pl_r{m}"]\ne = ss["sw_B"]\nf = ss[f"g{m}"]\n')
    bad = _computed_reads("views/x.py", code, foreign)
    assert [b.split(":")[1] for b in bad] == ["4", "5", "6"], bad
