"""The server ``evalcore app`` starts: the dashboard (app.py) as a Streamlit ``st.App``, whose pages' addresses
answer with Streamlit's own index.html plus one line telling the browser where the server is.

Why: Streamlit's browser code does not know whether ``/lesson`` is a page of the app at ``/`` or an app served
under ``/lesson``, so on every page opened by its address it first asks ``/lesson/_stcore/health`` and
``/lesson/_stcore/host-config`` - two 404s in the console of every student's browser - before trying ``/``
(Streamlit issue 7074). ``window.__streamlit.BACKEND_BASE_URL``, the setting Streamlit reads for apps embedded
in another page, names the server's base address, and the browser asks only there. Nothing else changes:
the same app.py, the same pages and addresses, every other request served by Streamlit as before.
``streamlit run app.py`` still works (with those two 404s per page).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import streamlit as st
from starlette.responses import HTMLResponse
from starlette.routing import Route

APP = Path(__file__).resolve().parents[1] / "app.py"
_INDEX = Path(st.__file__).resolve().parent / "static" / "index.html"


def base_path() -> str:
    """The server's base path (``server.baseUrlPath``, e.g. ``evalcore`` behind a proxy), "" at the root."""
    from streamlit import config
    return str(config.get_option("server.baseUrlPath") or "").strip("/")


def page_html(base: str = "") -> str:
    """Streamlit's index.html with ``window.__streamlit.BACKEND_BASE_URL`` set to this page's origin plus ``base``
    before any of Streamlit's scripts runs."""
    path = json.dumps("/" + (base + "/" if base else ""))
    script = f"<script>window.__streamlit = {{BACKEND_BASE_URL: window.location.origin + {path}}};</script>"
    html = _INDEX.read_text(encoding="utf-8")
    return html.replace("<head>", "<head>" + script, 1)


def page_paths() -> list[str]:
    """``/`` and every page's path (dashboard.pages: the registry the navigation is built from)."""
    if str(APP.parent) not in sys.path:
        sys.path.insert(0, str(APP.parent))
    from dashboard.pages import PAGES, ROOT_NAME
    return ["", ROOT_NAME] + [p.url_path for p in PAGES]


def routes() -> list[Route]:
    base = base_path()
    html = page_html(base)

    async def page(request) -> HTMLResponse:
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})     # as Streamlit serves index.html
    prefix = "/" + base if base else ""
    return [Route(f"{prefix}/{p}" if p else (prefix or "/"), page, methods=["GET", "HEAD"]) for p in page_paths()]


app = st.App(str(APP), routes=routes())
