"""The one place that turns an unexpected exception into a message (never a raw traceback), and
that words evalcore's fixes for the app's controls (:func:`app_text`).

:func:`dashboard.shell.guard` runs every page through :func:`report`. Widget callbacks
(``on_click`` / ``on_change``) run before the page script, outside that guard, so every
callback is wrapped in :func:`guarded`: an exception in it is logged and shown as an error
box at the top of the next run, and the session keeps its data and settings.

Tests run this path as users get it (there is no switch for tests): the traceback goes to the
``evalcore.app`` logger, and the test suite fails any test in which that logger records an unexpected
error (tests/conftest.py).
"""
from __future__ import annotations

import functools
import logging

import streamlit as st

from evalcore.io.errors import option_hints

from . import safe

_log = logging.getLogger("evalcore.app")
_PENDING = "_callback_errors"


#: What the user does in the app for each option an evalcore message names (evalcore.io.errors.OPTION_HINTS,
#: written there in the command line's and the library's words): the label of the app's control, or, for
#: what the app has no control for, what to do instead. Plain text (it is escaped with the message).
APP_WORDING: dict[str, str] = {
    "keep_first_duplicate": "tick \"keep first duplicate\" (Data page, Upload files, Reading options)",
    "depth": "the app reads whole lists: cut each run to its top documents per topic before uploading",
    "qrels_file": "the \"Qrels (one file)\" box on the Data page",
    "qrels_format": ("give an NTCIR qrels file (topic doc L2) or an NTCIREVAL .rel file (doc L2): the app tells "
                     "the formats apart by their lines"),
    "limit": "the app's upload limits are fixed on this server; evaluate larger input with the evalcore command line",
    "save_settings": " (Download settings)",
    "per_topic": "show the means only",
}


def app_text(text) -> str:
    """An evalcore message (``str(e)``) with every option it names (``--keep-first-duplicate``,
    ``keep_first_duplicate=True``, ``limits=Limits(...)``, ...) said as the app's control or what to do in
    the app (:data:`APP_WORDING`); the rest as it is."""
    text = str(text)
    out, at = [], 0
    for key, start, end in option_hints(text):
        out += [text[at:start], APP_WORDING[key]]
        at = end
    return "".join(out) + text[at:]


def message(e: BaseException, where: str) -> str:
    """What the user reads: what failed, the exception's type and message (escaped, options in the app's
    words), and that nothing is lost."""
    return (f"Something went wrong while {where} ({type(e).__name__}: {safe.md(app_text(e))}). Your data and settings "
            "are kept; change a setting or reload the page. The details are in the server log.")


def guarded(fn):
    """A widget callback that never shows a traceback: its exception becomes an error box."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - a callback's bug becomes a message, as a page's does
            _log.exception("unexpected error in a widget callback (%s)", getattr(fn, "__name__", fn))
            st.session_state.setdefault(_PENDING, []).append(message(e, "applying this change"))
    run.__guarded__ = True
    return run


def show_pending() -> None:
    """Draw the error boxes of callbacks that failed before this run (call once per run)."""
    for msg in st.session_state.pop(_PENDING, []):
        st.error(msg, icon=":material/error:")
