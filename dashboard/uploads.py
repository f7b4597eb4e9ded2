"""Uploaded collections: their parse (in a worker, kept once per distinct upload), their names, and what
uploads may hold (:mod:`dashboard.budget`).

The parsed collection is kept once per distinct upload (content hash), shared by every session: a second
session uploading the same files gets the same arrays, not a second copy. The files themselves are
released as soon as they are loaded; those of a closed tab by :mod:`dashboard.closed_tabs`.
"""
from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import replace

import streamlit as st

from evalcore.collection import Collection
from evalcore.io import InputError

from . import stores
from .closed_tabs import release_closed_uploads, released_when
from .loader import load_in_worker
from .progress import loader_callbacks
from .stores import UPLOAD_LIMITS, Store, mb


@st.cache_resource
def _uploads() -> Store:
    return Store(4, stores.BUDGET.collections_bytes)


def upload_digest(qrels: tuple[str, bytes] | None, runs: list[tuple[str, bytes]], **options) -> str:
    """Content hash of an upload (file names, bytes and reading options); ``qrels`` None: one zip in
    ``runs`` holds both."""
    import hashlib
    h = hashlib.sha256()
    for name, data in ([qrels] if qrels is not None else []) + list(runs):
        h.update(str(name).encode() + b"\0" + len(data).to_bytes(8, "little"))
        h.update(data)
    h.update(b"bundle" if qrels is None else b"")
    h.update(repr(sorted(options.items())).encode())
    return h.hexdigest()


#: Qrels file names that say nothing about the collection (a default name is then built from the runs).
_GENERIC_QRELS = ("qrels", "qrel", "rels", "judgments", "")


def default_upload_name(qrels_name: str | None, run_names: list[str]) -> str:
    """A name for an uploaded collection: the runs' zip or folder name, else the qrels file's stem
    unless it is a generic "qrels", else what was uploaded: ``qrels + 3 runs (bm25.run, dfr.run, ...)``, so
    that several uploads of a session (and of a server's links) are told apart.

    >>> default_upload_name("qrels.txt", ["bm25.run", "dfr.run", "lm.run"])
    'qrels + 3 runs (bm25.run, dfr.run, ...)'
    >>> default_upload_name("robust04.qrels", ["a.txt"]), default_upload_name(None, ["trec8.zip"])
    ('robust04', 'trec8')
    """
    import posixpath
    for n in run_names:
        n = str(n).replace("\\", "/")
        if n.lower().endswith(".zip"):
            return posixpath.basename(n)[:-4]
        if "/" in n:
            return n.split("/")[0]
    stem = posixpath.basename(str(qrels_name or "").replace("\\", "/")).split(".")[0]
    if stem.lower() not in _GENERIC_QRELS:
        return stem
    runs = [posixpath.basename(str(n).replace("\\", "/")) for n in run_names]
    head = ", ".join(runs[:2]) + (", ..." if len(runs) > 2 else "")
    return f"{stem or 'qrels'} + {len(runs)} run{'s' if len(runs) != 1 else ''} ({head})"


def load_upload(qrels: tuple[str, bytes] | None, runs: list[tuple[str, bytes]], *, order: str = "score",
                condensed: bool = False, keep_first_duplicate: bool = False, name: str | None = None,
                progress: Callable | None = None) -> Collection:
    """Parse uploaded files; raises evalcore.InputError (readable) on bad input.

    ``qrels`` None: ``runs`` is one zip holding the qrels and the runs together (evalcore.load_collection
    tells them apart by name and content, and says so when it cannot).

    The parsed collection is kept once per distinct upload (content hash),
    shared by every session (memory under a class of users, docs/reliability.md): a second session uploading the same
    files gets the same arrays, not a second copy. Parsing runs outside any
    ``st.cache_*`` function, so ``progress`` may draw. Bounded by
    ``UPLOAD_LIMITS`` (``evalcore.io.APP_LIMITS``: decompression, runs,
    topics, depth, tensor memory), checked before the memory is taken, and run
    in a worker process with its own memory limit, one load at a time, with
    the queue position shown (:mod:`dashboard.loader`).
    """
    opts = {"order": order, "condensed": condensed, "keep_first_duplicate": keep_first_duplicate}
    digest = upload_digest(qrels, runs, **opts)
    c = _uploads().get(digest)
    if c is None:
        if qrels is None:
            if len(runs) != 1 or not runs[0][0].lower().endswith(".zip"):
                raise InputError("no qrels given: give a qrels file, or one .zip holding the qrels and the runs",
                                 hint="upload the qrels in the Qrels box, or put qrels and runs in one zip")
            q_arg, run_arg = runs[0], None
        else:
            q_arg = qrels
            run_arg = runs[0] if len(runs) == 1 and runs[0][0].lower().endswith(".zip") else runs
        try:
            # in a worker process (dashboard.loader): the other sessions keep their interpreter
            c = load_in_worker(q_arg, run_arg, progress=progress, limits=UPLOAD_LIMITS, **opts,
                               **loader_callbacks(progress))
        finally:
            # the server does not collect after every rerun (.streamlit/config.toml, runner.postScriptGC);
            # a load leaves the cycles of its temporaries, so collect once here (what that frees:
            # docs/benchmarks.md section 17)
            gc.collect()
        _uploads().put(digest, c)
    if name and name != c.name:
        c = replace(c, name=str(name)[:200])     # shares the arrays; only the title differs
    return c


# -- what uploads may hold (dashboard.budget; Streamlit's own bound: dashboard.stores) ------------------
def upload_budget_line() -> str:
    """The upload bounds in force, for the Data page."""
    b = stores.BUDGET
    return (f"Up to {mb(b.file_bytes)} a file and {mb(b.session_bytes)} in all, at most {b.session_files - 1} "
            f"run files (this server process's memory budget: {mb(b.memory)}, {b.source}).")


def uploader_key(base: str) -> str:
    """The file uploader's key in this session: a new key after each load clears the widget (and with it
    Streamlit's hold on the files)."""
    gen = int(st.session_state.get("_up_generation", 0))
    return base if gen == 0 else f"{base}~{gen}"


def _held_upload_bytes() -> tuple[int, object, str | None]:
    """(bytes every session's uploads hold in the server now, the upload manager, this session's id)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    release_closed_uploads()
    ctx = get_script_run_ctx(suppress_warning=True)
    mgr = getattr(ctx, "uploaded_file_mgr", None)
    storage = getattr(mgr, "file_storage", None)
    total = 0
    if isinstance(storage, dict):
        for files in list(storage.values()):
            total += sum(len(getattr(rec, "data", b"")) for rec in list(files.values()))
    return total, mgr, getattr(ctx, "session_id", None)


def upload_over_budget(qrels, runs) -> str | None:
    """Why the chosen files exceed this session's or the server's upload budget (a message naming the
    numbers and what to do), or None. Checked before any file is read or parsed."""
    files = ([qrels] if qrels else []) + list(runs or [])
    if not files:
        return None
    b = stores.BUDGET
    size = sum(int(f.size) for f in files)
    if len(files) > b.session_files:
        return (f"{len(files)} files chosen; one upload takes at most {b.session_files} (one qrels file and "
                f"{b.session_files - 1} runs). Fix: put the runs in one .zip, or choose fewer runs.")
    if size > b.session_bytes:
        return (f"The chosen files hold {mb(size)}; one session may upload at most {mb(b.session_bytes)} "
                f"(this server process's memory budget, {mb(b.memory)}: {b.source}). Fix: compress "
                f"the files (.gz, or the runs as one .zip), or choose fewer runs.")
    held, _, _ = _held_upload_bytes()
    if held > b.server_upload_bytes:
        return (f"The server holds {mb(held)} of uploads from this and other sessions right now, above its "
                f"bound of {mb(b.server_upload_bytes)}. Fix: try again in a few minutes ({released_when()}).")
    return None


def release_upload(qrels, runs) -> None:
    """Drop the server's copy of the uploaded files (the widget gets a new key, so it starts empty)."""
    _, mgr, sid = _held_upload_bytes()
    remove = getattr(mgr, "remove_file", None)
    for f in ([qrels] if qrels else []) + list(runs or []):
        fid = getattr(f, "file_id", None)
        if remove is not None and sid is not None and fid is not None:
            remove(sid, fid)
    st.session_state["_up_generation"] = int(st.session_state.get("_up_generation", 0)) + 1
