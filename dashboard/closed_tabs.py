"""The uploads of closed tabs (docs/reliability.md, "Memory budget"): released when Streamlit's reconnect
window has passed, and the closed sessions shut down.

Streamlit removes a session's files when the session shuts down, but a closed tab's session is only stored
for a reconnect (``server.disconnectedSessionTTL``); a thread started once per server
(:func:`release_closed_uploads`) looks every :data:`RELEASE_TICK` seconds for the tabs gone longer than that.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from . import budget as _budget

#: Seconds between looks for the uploads of closed tabs (:func:`release_closed_uploads`).
RELEASE_TICK = 10.0
_inactive_since: dict[str, float] = {}     # session id -> when it was first seen without a connection
_release_lock = threading.Lock()
_release_started: list[threading.Thread] = []


def session_ttl() -> float:
    """Seconds Streamlit keeps a closed tab's session for a reconnect: ``server.disconnectedSessionTTL``, read
    from the running server's configuration (120 by default)."""
    from streamlit import config as st_config
    try:
        return float(st_config.get_option("server.disconnectedSessionTTL"))
    except Exception:   # noqa: BLE001 - an option this Streamlit does not have: its documented default
        return 120.0


def released_when() -> str:
    """When uploaded files are released, in words, with the server's own session timeout."""
    ttl = session_ttl()
    return (f"uploads are released as soon as they are loaded; those of a tab closed before loading them "
            f"{ttl:g} to {ttl + 2 * RELEASE_TICK:g} s after it closed: Streamlit keeps a closed tab's session "
            f"{ttl:g} s for a reconnect (server.disconnectedSessionTTL), and this server looks for them every "
            f"{RELEASE_TICK:g} s")


def release_closed(mgr, is_active: Callable[[str], bool], ttl: float, now: float) -> list[str]:
    """Drop the uploaded files (``mgr``, Streamlit's upload manager) of every session without a connection
    for ``ttl`` seconds (first seen so at a look before ``now``, a monotonic time); returns their ids.

    Why: Streamlit removes a session's files when the session shuts down, but a closed tab's session is
    only stored for a reconnect; when ``server.disconnectedSessionTTL`` passes, it is dropped from that
    store at the store's next write (another tab closing) and shut down when the garbage collector gets
    to it - or never, on a quiet server - so its uploads counted against every other session's bound."""
    storage = getattr(mgr, "file_storage", None)
    remove = getattr(mgr, "remove_session_files", None)
    if not isinstance(storage, dict) or remove is None:
        return []
    released = []
    with _release_lock:
        for sid in list(storage):
            if is_active(sid):
                _inactive_since.pop(sid, None)
                continue
            since = _inactive_since.setdefault(sid, now)
            if now - since >= ttl:
                remove(sid)
                _inactive_since.pop(sid, None)
                released.append(sid)
        for sid in [s for s in _inactive_since if s not in storage]:
            del _inactive_since[sid]
    return released


def end_expired_sessions(mgr) -> int:
    """Shut down the closed tabs' sessions whose ``server.disconnectedSessionTTL`` has passed; returns how many.

    Streamlit (1.66-1.67) stores a closed tab's session in a TTL cache for a reconnect; an expired entry is
    inaccessible but removed only at the cache's next write (another tab closing) or by its ``expire()``, and
    the session is shut down when the garbage collector reaches it. Until then its state - the session's
    results, figures and collections - stays in the server: on a quiet server, for ever. This reaps the
    expired entries (under the session manager's own storage lock) and shuts their sessions down, as
    Streamlit's ``close_session`` does for a stored session. It reads Streamlit's session manager's storage
    (``_session_storage._cache``, ``_storage_lock``), which has no public handle: where those are missing
    (another Streamlit), nothing is done and the sessions go as Streamlit lets them.
    tests/test_app_memory.py checks it against Streamlit's own session manager."""
    storage = getattr(getattr(mgr, "_session_storage", None), "_cache", None)
    expire = getattr(storage, "expire", None)
    if expire is None:
        return 0
    lock = getattr(mgr, "_storage_lock", None) or threading.Lock()
    with lock:
        expired = expire()
    for _, info in expired:
        session = getattr(info, "session", None)
        if session is not None:
            session.shutdown()
    return len(expired)


def release_closed_uploads() -> None:
    """Start, once per server, the thread that looks every :data:`RELEASE_TICK` seconds for closed tabs'
    uploads (:func:`release_closed`); nothing outside a Streamlit server (AppTest, bare imports)."""
    from streamlit import runtime
    if not runtime.exists() or _release_started:
        return
    rt = runtime.get_instance()

    def look() -> None:
        while True:
            time.sleep(RELEASE_TICK)
            try:
                released = release_closed(rt.uploaded_file_mgr, rt.is_active_session, session_ttl(), time.monotonic())
                if end_expired_sessions(getattr(rt, "_session_mgr", None)) or released:
                    _budget.return_to_os()      # the files and the closed sessions' state, back to the system
            except Exception:   # noqa: BLE001 - a look that failed is tried again at the next tick
                import logging
                logging.getLogger("evalcore.app").warning("releasing closed tabs' uploads failed", exc_info=True)

    with _release_lock:
        if not _release_started:
            t = threading.Thread(target=look, name="evalcore-release-uploads", daemon=True)
            _release_started.append(t)
            t.start()
