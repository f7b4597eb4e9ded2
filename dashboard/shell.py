"""What every page does first: page config, settings from the session/URL, the sidebar;
and the guard app.py runs every page through.

The page scripts live in ``views/``, not ``pages/``: a ``pages/`` folder
beside the entry point makes Streamlit (and AppTest, on every run) run a page
file on its own in its v1 "pages folder" mode, bypassing app.py and so the
guard. With ``views/`` every run goes through app.py's st.navigation.
"""
from __future__ import annotations

import logging
import os
import time

import streamlit as st

from . import cached, state, widgets


def setup():
    """Page config, session defaults (from the URL once), the shared sidebar.

    Returns ``(settings, collection)`` for this run.
    """
    st.session_state["_live_pending"] = []       # quick passes drawn in this run (widgets.live_meta)
    st.session_state["_run_t0"] = time.perf_counter()
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


def setup_analysis():
    """:func:`setup`, plus the collection the analysis pages use (top N runs).

    Returns ``(settings, full collection, analysed collection)``.
    """
    s, full = setup()
    return s, full, cached.analysis_collection(full, s)


_log = logging.getLogger("evalcore.app")


def _raise_in_tests() -> bool:
    """Under streamlit.testing (AppTest) a real bug must fail the test, not
    become an error box; EVALCORE_GUARD=on forces the guard (its own test)."""
    if os.environ.get("EVALCORE_GUARD", "").lower() in ("on", "1", "true"):
        return False
    from streamlit import config
    return bool(config.get_option("global.appTest"))


def guard(run) -> None:
    """Run a page; never let an exception reach the browser as an stException.

    * ``InputError`` (evalcore's message for bad data or settings): an error
      box saying so.
    * Anything else is a bug: the traceback goes to the server log, the user
      gets an error box with the message and the session keeps its data and
      settings (nothing is reset). Under AppTest it is re-raised so tests see
      real bugs (issue 11).

    Streamlit's own control flow (st.rerun, st.stop) derives from
    BaseException, not Exception, and passes through untouched.
    """
    try:
        run()
    except cached.InputError as e:
        st.error(f"This view could not be computed with the current data and settings: {e}",
                 icon=":material/error:")
    except Exception as e:  # noqa: BLE001 - the one place that turns a bug into a message
        if _raise_in_tests():
            raise
        _log.exception("unexpected error while drawing the page")
        st.error(f"Something went wrong while drawing this page ({type(e).__name__}: {str(e)[:500]}). "
                 "Your data and settings are kept; change a setting or reload the page. The details are in "
                 "the server log.", icon=":material/error:")
