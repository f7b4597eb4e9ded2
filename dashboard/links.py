"""Links that reopen an upload: the server's store of loaded uploads a link may name, by an unguessable key.

A link to someone's data is a capability: it names the upload by its content hash (and its load report's,
:func:`link_key`), the docs say "anyone with the link", and the server setting ``EVALCORE_UPLOAD_LINKS=off``
turns it off. The store is bounded by bytes (:data:`UPLOAD_LINKS_BYTES`); a link whose upload was pushed
out says when and why (:func:`link_gone_reason`).
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import replace

import streamlit as st

from evalcore.collection import Collection

from . import stores
from .stores import Store, mb

#: Bytes of the uploads links reopen (by :func:`link_key`: content hash and load report): the server's memory
#: for collections (memory / 8, dashboard.budget). Kept by bytes, not by count: 4 links dropped a class's
#: fifth small upload while most of this room was free, and 4 large ones could pass it (docs/reliability.md,
#: "Memory budget"). The least recently loaded or opened goes first; the newest is always kept.
UPLOAD_LINKS_BYTES = stores.BUDGET.collections_bytes
#: links pushed out of the store: key -> (when, bytes it held), the last 1,000, to say why a link fails
_links_gone: OrderedDict[str, tuple[float, int]] = OrderedDict()
_links_gone_lock = threading.Lock()


def _link_pushed_out(key, size: int) -> None:
    with _links_gone_lock:
        _links_gone[str(key)] = (time.time(), int(size))
        _links_gone.move_to_end(str(key))
        while len(_links_gone) > 1000:
            _links_gone.popitem(last=False)


def link_gone_reason(key: str) -> str:
    """Why the link naming upload ``key`` (:func:`link_key`) cannot reopen it: pushed out by newer uploads
    (when, and what it held) or never held by this server process; with the rule links are kept by."""
    rule = (f"links keep uploads while they fit this server's memory for them, {mb(UPLOAD_LINKS_BYTES)} (an "
            f"eighth of its memory budget of {mb(stores.BUDGET.memory)}: {stores.BUDGET.source}), the least recently "
            "used going first")
    with _links_gone_lock:
        gone = _links_gone.get(str(key))
    if gone is not None:
        from evalcore.io.limits import human_bytes

        when, size = gone
        at = time.strftime("%H:%M", time.localtime(when))
        return (f"this server does not hold it any more: it was let go at {at} to make room for newer uploads "
                f"(it held {human_bytes(size)}; {rule})")
    return ("this server does not hold it: uploads are kept in memory only while the server runs, so it was "
            f"loaded before the server restarted or on another server process ({rule})")


def upload_links_on() -> bool:
    """Whether a link may reopen uploaded data (server setting EVALCORE_UPLOAD_LINKS, on by default)."""
    import os
    return os.environ.get("EVALCORE_UPLOAD_LINKS", "on").strip().lower() not in ("off", "0", "false", "no")


@st.cache_resource
def _links() -> Store:
    return Store(None, UPLOAD_LINKS_BYTES, on_evict=_link_pushed_out)


def link_key(c: Collection) -> str:
    """The key a link names an upload by: its content hash and a hash of its load report (the file names
    it was loaded from, its warnings). Two uploads of the same bytes under other names share a content
    hash; keyed by that alone, the link store kept the first one's report, and a second user's link
    showed the first user's file names ("Source: alice-private-judgments.txt")."""
    import hashlib

    return f"{c.fingerprint}-{hashlib.sha1(repr(c.report).encode()).hexdigest()[:12]}"


def share_upload(c: Collection) -> str:
    """Offer a loaded upload to links naming :func:`link_key` (arrays shared, nothing copied); returns the key."""
    key = link_key(c)
    if upload_links_on() and _links().get(key) is None:
        _links().put(key, c)
        with _links_gone_lock:
            _links_gone.pop(key, None)
    return key


def shared_upload(key: str, name: str = "") -> Collection | None:
    """The upload a link names by :func:`link_key`, titled as in the link; None if not held (or links are off)."""
    if not key or not upload_links_on():
        return None
    c = _links().get(str(key))
    if c is None:
        return None
    return replace(c, name=str(name)[:200]) if name and name != c.name else c
