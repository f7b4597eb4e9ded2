"""What every page does first: page config, settings from the session/URL, the sidebar.

Each page calls :func:`setup` itself rather than relying on app.py, because
Streamlit treats a ``pages/`` folder beside the entry point as a v1
multipage app in some runs (AppTest resets that flag on every run, and a
server's very first request may go straight to a page): the page script then
runs without app.py. Calling the shell from the page makes both paths the same.
"""
from __future__ import annotations

import streamlit as st

from . import cached, state, widgets


def _leave_pages_folder_mode() -> None:
    """On a server's very first request for a page URL, Streamlit runs the page
    file alone in its v1 "pages folder" mode (st.navigation never ran yet).
    Switch that off once and rerun through app.py's navigation. AppTest resets
    the flag on every run and handles pages either way, so it is left alone."""
    from streamlit import config
    from streamlit.runtime.pages_manager import PagesManager
    if PagesManager.uses_pages_directory and not config.get_option("global.appTest"):
        PagesManager.uses_pages_directory = False
        st.rerun()


def setup():
    """Page config, session defaults (from the URL once), the shared sidebar.

    Returns ``(settings, collection)`` for this run.
    """
    _leave_pages_folder_mode()
    st.set_page_config(page_title="evalcore · IR metric dashboard", page_icon=":material/leaderboard:",
                       layout="wide", initial_sidebar_state="expanded")
    ss = st.session_state
    state.init(cached.METRIC_KEYS)
    state.keep_alive()
    if ss.get("_switch_to_upload"):  # the Data page just loaded files
        ss["dataset"] = "upload"
    if ss["dataset"] == "upload" and ss.get("uploaded") is None:
        ss["dataset"] = "sim"
        st.toast("Uploaded data lives only in the browser session that uploaded it; "
                 "showing the simulated collection.")
    collection = cached.current_collection()
    state.set_levels(collection.max_level)
    widgets.sidebar(collection)
    for msg in ss.pop("_url_warnings", []):
        st.toast(msg)
    state.sync_url()
    return cached.usable(collection, state.current()), collection
