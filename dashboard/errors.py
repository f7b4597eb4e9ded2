"""The one place that turns an unexpected exception into a message (never a raw traceback).

:func:`dashboard.shell.guard` runs every page through :func:`report`. Widget callbacks
(``on_click`` / ``on_change``) run before the page script, outside that guard, so every
callback is wrapped in :func:`guarded`: an exception in it is logged and shown as an error
box at the top of the next run, and the session keeps its data and settings.
"""
from __future__ import annotations

import functools
import logging
import os

import streamlit as st

from . import safe

_log = logging.getLogger("evalcore.app")
_PENDING = "_callback_errors"


def raise_in_tests() -> bool:
    """Under streamlit.testing (AppTest) a real bug must fail the test, not
    become an error box; EVALCORE_GUARD=on forces the guard (its own test)."""
    if os.environ.get("EVALCORE_GUARD", "").lower() in ("on", "1", "true"):
        return False
    from streamlit import config
    return bool(config.get_option("global.appTest"))


def message(e: BaseException, where: str) -> str:
    """What the user reads: what failed, the exception's type and message (escaped), and that nothing is lost."""
    return (f"Something went wrong while {where} ({type(e).__name__}: {safe.md(e)}). Your data and settings "
            "are kept; change a setting or reload the page. The details are in the server log.")


def guarded(fn):
    """A widget callback that never shows a traceback: its exception becomes an error box."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - a callback's bug becomes a message, as a page's does
            if raise_in_tests():
                raise
            _log.exception("unexpected error in a widget callback (%s)", getattr(fn, "__name__", fn))
            st.session_state.setdefault(_PENDING, []).append(message(e, "applying this change"))
    run.__guarded__ = True
    return run


def show_pending() -> None:
    """Draw the error boxes of callbacks that failed before this run (call once per run)."""
    for msg in st.session_state.pop(_PENDING, []):
        st.error(msg, icon=":material/error:")
