"""Every evalcore call the app makes, cached (the only module importing both
streamlit and evalcore for computing; dashboard/state.py reads evalcore's
constants and rules only).

Cache keys always carry the data's identity, ``collection.fingerprint``,
passed explicitly as ``fp`` because the collection itself is an unhashed
``_c`` argument. Score matrices are cached one metric at a time with only
the settings that metric reads, so moving a gain slider recomputes the
graded metrics and reuses AP, RR and NWRR.

Memory: every cache whose entries grow with the data (scores, r_1 / r_p, counts, gain tables, run subsets,
finished meta results, evalcore's per-collection arrays) is a :class:`evalcore._cache.BytesLRU` bounded by
bytes from the server's memory budget (:mod:`dashboard.budget`, ``EVALCORE_SERVER_MEMORY_MB``), not by a
count of entries: a score matrix is 8 bytes x runs x topics, 4 MB on a 10,000 x 50 collection, and 2,048
of them were 8 GB. The few ``st.cache_data`` functions left hold results of a fixed small size.

Stale work: a newer move of the same session makes this run's remaining work pointless. Streamlit stops
a run only at its next element; long numpy work between elements checks :func:`superseded` (between
metrics, and between the chunks of every resampling method through its progress callback) and hands the
run over at once (:func:`interrupt_point`).
"""
from __future__ import annotations

import gc
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from contextlib import nullcontext
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import evalcore
from evalcore import meta as _meta
from evalcore import registry, workload
from evalcore._cache import BytesLRU
from evalcore.collection import Collection
from evalcore.gains import resolve_gains
from evalcore.meta import reuse as _reuse
from evalcore.meta._parallel import default_threads, fit_threads, threads_from_env
from evalcore.meta.swap import sort_summary as _sort_swap_summary

from . import budget as _budget
from . import gate as _gate
from . import safe, state
from .loader import load_in_worker
from .state import Settings

#: The metrics the app offers: every score of the registry, not the counts (NumRet, NumRel, NumRelRet:
#: ``MetricSpec.count``), which its [0, 1] charts and meta-evaluation pages do not fit (the CLI and the
#: Python API compute them).
METRIC_KEYS = registry.SCORE_KEYS
METRICS = registry.METRICS
ONE_DOCUMENT_KEYS = registry.ONE_DOCUMENT_KEYS
InputError = evalcore.InputError
#: what one upload may cost on a shared server (decompression, runs, topics, depth, tensor memory)
UPLOAD_LIMITS = evalcore.io.APP_LIMITS
#: every size derived from the server's memory (dashboard.budget; EVALCORE_SERVER_MEMORY_MB)
BUDGET = _budget.budget(max_runs=UPLOAD_LIMITS.max_runs)
# evalcore's per-collection arrays (graded hits, ideal vectors) within the same per-cache budget
evalcore.metrics.cache.max_bytes = BUDGET.cache_bytes


# -- stale work --------------------------------------------------------------
def superseded() -> bool:
    """Whether a newer rerun (or a stop) of this session is waiting: the rest of this run is stale.

    Reads the script runner's pending request (Streamlit acts on it at the next element; this lets
    numpy work between elements find out). False outside a script run."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    ctx = get_script_run_ctx(suppress_warning=True)
    pending = getattr(getattr(ctx, "script_requests", None), "_state", None)
    return pending is not None and getattr(pending, "name", "CONTINUE") != "CONTINUE"


def interrupt_point() -> None:
    """If a newer rerun is waiting, hand over to it now (Streamlit raises its rerun or stop at an element)."""
    if superseded():
        st.empty()


def _cancellable(progress: Callable | None) -> Callable[[float], object]:
    """A progress callback for evalcore.meta that also cancels (returns True) once the run is stale."""
    def cb(frac: float):
        if superseded():
            return True
        return None if progress is None else progress(frac)
    return cb


# -- data ------------------------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner="Simulating a collection ...")
def simulated(n_topics: int, n_runs: int, seed: int) -> Collection:
    return evalcore.simulated_collection(n_topics=n_topics, n_runs=n_runs, seed=seed)


@st.cache_resource
def examples() -> Collection:
    return evalcore.paper_examples()


def example_notes() -> dict[str, str]:
    from evalcore.simulate import PAPER_EXAMPLE_NOTES
    return dict(PAPER_EXAMPLE_NOTES)


@st.cache_resource
def _uploads() -> _Store:
    return _Store(4, BUDGET.collections_bytes)


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
                               **_loader_callbacks(progress))
        finally:
            # the server does not collect after every rerun (.streamlit/config.toml, runner.postScriptGC);
            # a load leaves the cycles of its temporaries, so collect once here (~90 MB after three
            # clef2015 uploads, docs/reliability.md)
            gc.collect()
        _uploads().put(digest, c)
    if name and name != c.name:
        c = replace(c, name=str(name)[:200])     # shares the arrays; only the title differs
    return c


# -- what uploads may hold (dashboard.budget) -----------------------------------
def _limit_upload_endpoint() -> None:
    """Lower Streamlit's per-file bound (``server.maxUploadSize``, read by the upload endpoint at every
    request, before the body is held) to the budget's; never raise what the operator configured."""
    from streamlit import config as st_config
    try:
        now = int(st_config.get_option("server.maxUploadSize"))
    except Exception:   # noqa: BLE001 - no config (bare imports in tests): nothing to lower
        return
    if BUDGET.file_mb < now:
        st_config.set_option("server.maxUploadSize", BUDGET.file_mb, "dashboard.budget (EVALCORE_SERVER_MEMORY_MB)")


_limit_upload_endpoint()


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MB"


def upload_budget_line() -> str:
    """The upload bounds in force, for the Data page."""
    b = BUDGET
    return (f"Up to {_mb(b.file_bytes)} a file and {_mb(b.session_bytes)} in all, at most {b.session_files - 1} "
            f"run files (this server process's memory budget: {_mb(b.memory)}, {b.source}).")


def uploader_key(base: str) -> str:
    """The file uploader's key in this session: a new key after each load clears the widget (and with it
    Streamlit's hold on the files)."""
    gen = int(st.session_state.get("_up_generation", 0))
    return base if gen == 0 else f"{base}~{gen}"


# -- the uploads of closed tabs (docs/reliability.md, "Memory budget") -----------------------------------
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
    b = BUDGET
    size = sum(int(f.size) for f in files)
    if len(files) > b.session_files:
        return (f"{len(files)} files chosen; one upload takes at most {b.session_files} (one qrels file and "
                f"{b.session_files - 1} runs). Fix: put the runs in one .zip, or choose fewer runs.")
    if size > b.session_bytes:
        return (f"The chosen files hold {_mb(size)}; one session may upload at most {_mb(b.session_bytes)} "
                f"(this server process's memory budget, {_mb(b.memory)}: {b.source}). Fix: compress "
                f"the files (.gz, or the runs as one .zip), or choose fewer runs.")
    held, _, _ = _held_upload_bytes()
    if held > b.server_upload_bytes:
        return (f"The server holds {_mb(held)} of uploads from this and other sessions right now, above its "
                f"bound of {_mb(b.server_upload_bytes)}. Fix: try again in a few minutes ({released_when()}).")
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


#: Bytes of the uploads links reopen (by :func:`link_key`: content hash and load report): the server's memory
#: for collections (memory / 8, dashboard.budget). Kept by bytes, not by count: 4 links dropped a class's
#: fifth small upload while most of this room was free, and 4 large ones could pass it (docs/reliability.md,
#: "Memory budget"). The least recently loaded or opened goes first; the newest is always kept.
UPLOAD_LINKS_BYTES = BUDGET.collections_bytes
#: links pushed out of the store: key -> (when, bytes it held), the last 1,000 (~0.2 MB), to say why a link fails
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
    rule = (f"links keep uploads while they fit this server's memory for them, {_mb(UPLOAD_LINKS_BYTES)} (an "
            f"eighth of its memory budget of {_mb(BUDGET.memory)}: {BUDGET.source}), the least recently "
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
def _links() -> _Store:
    return _Store(None, UPLOAD_LINKS_BYTES, on_evict=_link_pushed_out)


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


def _loader_callbacks(progress) -> dict:
    """Queue position and elapsed time drawn into a :class:`Progress` bar while a load waits or runs.
    Drawing is also how a closed session stops: Streamlit raises in its script thread at the next
    element, and dashboard.loader then kills the worker."""
    bar = getattr(progress, "bar", None)
    if bar is None:
        return {}
    shown = [-1]

    def waiting(position: int) -> None:
        bar.progress(0.0, text=f"Waiting for the loader: {position} upload{'s' if position > 1 else ''} "
                               f"ahead of this one ...")

    def tick(seconds: float) -> None:
        if int(seconds) != shown[0]:
            shown[0] = int(seconds)
            bar.progress(max(progress.last, 0.0), text=f"{progress.text} ({seconds:.0f} s)")
    return {"waiting": waiting, "tick": tick}


def current_collection(s: Settings | None = None) -> Collection:
    """The collection the sidebar's dataset choice points at."""
    ss = st.session_state
    ds = ss.get("dataset", "sim")
    if ds == "upload" and ss.get("uploaded") is not None:
        return ss["uploaded"]
    if ds == "examples":
        return examples()
    return simulated(n_topics=int(state.value("sim_topics")), n_runs=int(state.value("sim_runs")),
                     seed=int(state.value("sim_seed")))


# -- scores ------------------------------------------------------------------
def _relevant(key: str, s: Settings) -> tuple:
    """The sidebar settings this metric reads (its registry parameters), as hashable (name, value) pairs:
    only these key its cached scores, so a slider move recomputes only the metrics that read it."""
    sidebar = {"gains": s.gains, "beta": s.beta, "penalties": s.penalties, "rel_threshold": s.rel_threshold,
               "p": s.p}
    return tuple(sorted(METRICS[key.partition("@")[0]].reads(sidebar).items()))


def _shared(make: Callable[[], _Store]) -> Callable[[], _Store]:
    """A process-wide store made on first use, as ``st.cache_resource`` without arguments gives, without its
    cost per call (it hashes the function at every call: ~5 % of a live page's CPU over the dozens of
    lookups a page makes); ``.clear()`` drops it, as ``st.cache_resource``'s does."""
    box: list[_Store] = []
    lock = threading.Lock()

    def get() -> _Store:
        if not box:
            with lock:
                if not box:
                    box.append(make())
        return box[0]
    get.clear = box.clear       # type: ignore[attr-defined]
    return get


#: Arrays and frames derived from a collection, shared by every session, keyed by the collection's
#: fingerprint and only the settings each one reads; bounded by bytes (``BUDGET.cache_bytes``).
_derived = _shared(lambda: _Store(None, BUDGET.cache_bytes))


def _memo(key: tuple, make: Callable[[], object]):
    """``make()``, kept in :func:`_derived` under ``key`` (arrays made read-only: every session shares them).

    Not ``st.cache_data``: that hashes every argument and unpickles a copy of the value at every hit (a
    tenth of a move's CPU over the dozens of score lookups a page makes), and bounds entries, not bytes."""
    store = _derived()
    hit = store.lookup(key)
    if hit is None:
        interrupt_point()           # a newer move is waiting: do not start computing for a stale one
        hit = make()
        for a in hit if isinstance(hit, tuple) else (hit,):
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        store.put(key, hit)
    return hit


def score(c: Collection, key: str, s: Settings) -> np.ndarray:
    """(n_runs, n_topics) scores of one metric key under the settings (read-only, shared)."""
    settings = _relevant(key, s)

    def make():
        kw = {k: list(v) if isinstance(v, (tuple, list)) else v for k, v in settings}
        return registry.score_matrix(c, key, **kw)
    return _memo(("score", c.fingerprint, key, settings), make)


def usable(c: Collection, s: Settings) -> Settings:
    """The settings with every metric that cannot be computed under them left
    out (e.g. NWRR when the penalties grow with the level),
    each with a warning in the sidebar saying why."""
    ok = []
    for base in s.metrics:
        key = state.expand(base, s.cutoff)
        try:
            score(c, key, s)
            ok.append(base)
        except ValueError as e:
            st.sidebar.warning(f"{safe.md(key)} is left out with these settings: {safe.md(e)}",
                               icon=":material/warning:")
    return replace(s, metrics=tuple(ok) or ("AP",))


def scores(c: Collection, s: Settings, keys=None) -> dict[str, np.ndarray]:
    return {k: score(c, k, s) for k in (keys or s.metric_keys)}


def per_topic_table(c: Collection, s: Settings, keys=None) -> pd.DataFrame:
    """One row per (run, topic) the run has a ranked list for, one column per metric key: the per-topic
    values the papers print (the worked examples define X, Y, Z, ... on one topic, so their means over
    the collection's topics are not the papers' numbers)."""
    mats = scores(c, s, keys)
    rows = [(r, t) for i, r in enumerate(c.run_ids) for j, t in enumerate(c.topic_ids) if c.lengths[i, j] > 0]
    idx = [(c.run_ids.index(r), c.topic_ids.index(t)) for r, t in rows]
    out = pd.DataFrame({"run": [r for r, _ in rows], "topic": [t for _, t in rows]})
    for k, m in mats.items():
        out[k] = [float(m[i, j]) for i, j in idx]
    return out


def means(c: Collection, s: Settings, keys=None) -> pd.DataFrame:
    """Index = runs, one column per metric key: mean over topics."""
    mats = scores(c, s, keys)
    return pd.DataFrame({k: m.mean(axis=1) for k, m in mats.items()},
                        index=pd.Index(c.run_ids, name="run"))


#: The counts the Data page tabulates (trec_eval's num_ret, num_rel, num_rel_ret).
COUNT_KEYS = tuple(k for k, spec in METRICS.items() if spec.count)


def _counts(c: Collection, rel_threshold: int) -> pd.DataFrame:
    sums = registry.means_table(c, list(COUNT_KEYS), rel_threshold=rel_threshold, topics="trec_eval")
    return sums.round().astype("int64")


def counts(c: Collection, s: Settings) -> pd.DataFrame:
    """Index = runs, one column per count (NumRet, NumRel, NumRelRet): the sum over every qrels topic at the
    sidebar's threshold, as trec_eval's num_ret / num_rel / num_rel_ret and ir_measures report them (a topic
    without a relevant document adds its retrieved documents to NumRet and nothing to the others)."""
    return _memo(("counts", c.fingerprint, s.rel_threshold), lambda: _counts(c, s.rel_threshold)).copy()


def top_runs(c: Collection, s: Settings) -> np.ndarray:
    """Indices of the runs the analysis pages use: the top N by a metric (all if N = 0). N = 1 leaves
    nothing to rank, correlate or compare, so the best 2 are used, and the sidebar says so."""
    n = s.top_n
    if n == 1 and c.n_runs > 1:
        st.sidebar.warning("Top N = 1 leaves one run: nothing to rank, correlate or compare. The best 2 runs "
                           "are used; set 0 for all runs.", icon=":material/warning:")
        n = 2
    if n <= 0 or n >= c.n_runs:
        return np.arange(c.n_runs)
    key = state.expand(s.top_by, s.cutoff) if s.top_by in METRICS else s.metric_keys[0]
    try:
        m = score(c, key, s).mean(axis=1)
    except ValueError as e:
        st.sidebar.warning(f"Top N by {safe.md(key)} is off with these settings: {safe.md(e)}",
                           icon=":material/warning:")
        return np.arange(c.n_runs)
    order = np.argsort(-m, kind="stable")
    return np.sort(order[:n])


def analysis_collection(c: Collection, s: Settings) -> Collection:
    idx = top_runs(c, s)
    if len(idx) == c.n_runs:
        return c
    runs = tuple(idx.tolist())
    # ``name`` is in the key: two sessions with the same bytes under two titles get their own title back
    return _memo(("subset", c.fingerprint, c.name, runs), lambda: c.subset(runs=list(runs)))


def preset_gains(name: str, K: int) -> list[float] | None:
    """Ascending gains of a paper preset for K levels, None if it does not extend to K."""
    try:
        return resolve_gains(name, K).tolist()
    except ValueError:
        return None


def label(key: str, c: Collection, s: Settings) -> str:
    """The canonical configured label, e.g. ``Q-measure(gains=10:5:1)``."""
    return registry.metric_label(key, c, gains=list(s.gains), beta=s.beta, penalties=list(s.penalties),
                                 rel_threshold=s.rel_threshold, p=s.p)


def first_and_preferred(c: Collection, s: Settings) -> tuple[np.ndarray, np.ndarray]:
    """r_1 and r_p per (run, topic): gain-independent, so cached by the data alone."""
    from evalcore import metrics as M
    return _memo(("ranks", c.fingerprint), lambda: (M.first_rank(c, rel_threshold=1), M.preferred_rank(c)))


def depth_view(c: Collection, draw: Callable[[pd.DataFrame], object]) -> dict:
    """The Rankings page's "how deep" section, made once per collection and shared: r_1 and r_p read the
    data alone, so no slider moves them, and rebuilding the chart (``draw``: the figure of the r_1 / r_p
    frame), its three figures and the per-topic medians cost ~5 % of a Rankings move's CPU
    (docs/benchmarks.md section 16). Keys: ``empty`` (no relevant document retrieved), ``fig``,
    ``median_rp``, ``share_later``, ``extra`` (None where no list has both), ``per_topic``."""
    def make() -> dict:
        r1, rp = first_and_preferred(c, None)      # type: ignore[arg-type]  # reads the data alone
        depth = pd.concat([
            pd.DataFrame({"kind": "r_1: first relevant document (RR, O-measure)", "rank": r1[r1 > 0]}),
            pd.DataFrame({"kind": "r_p: preferred rank (P, P+-measure)", "rank": rp[rp > 0]}),
        ], ignore_index=True)
        if depth.empty:
            return {"empty": True}
        both = (r1 > 0) & (rp > 0)
        # pandas' median skips NaN without numpy's "All-NaN slice" warning for topics no run finds
        per_topic = pd.DataFrame({"topic": c.topic_ids,
                                  "median r_1": pd.DataFrame(np.where(r1 > 0, r1, np.nan)).median(axis=0).to_numpy(),
                                  "median r_p": pd.DataFrame(np.where(rp > 0, rp, np.nan)).median(axis=0).to_numpy()}) \
            if c.n_runs else pd.DataFrame()
        return {"empty": False, "fig": draw(depth), "frame": depth, "median_rp": float(np.median(rp[rp > 0])),
                "share_later": float((rp[both] > r1[both]).mean()) if both.any() else None,
                "extra": float((rp[both] - r1[both]).mean()) if both.any() else None, "per_topic": per_topic}
    return _memo(("depth_view", c.fingerprint, getattr(draw, "__qualname__", "")), make)


# -- rank correlation (cheap, live) -----------------------------------------
@st.cache_data(max_entries=256, show_spinner=False)
def correlation(means_df: pd.DataFrame, alpha: float = 0.01) -> tuple[pd.DataFrame, pd.DataFrame]:
    res = _meta.correlation_matrix(means_df, method="tau-b", alpha=alpha)
    return res.tau, res.significant


def kendall(x, y) -> float:
    return float(_meta.kendall_tau(np.asarray(x, float), np.asarray(y, float), variant="b"))


def kendall_test(tau: float, n: int, alpha: float = 0.05) -> dict:
    return dict(_meta.kendall_test(tau, n, alpha=alpha))


def _gain_table(_c: Collection, key: str, beta: float, presets: tuple) -> pd.DataFrame:
    cols = {}
    for name in presets:
        g = preset_gains(name, _c.max_level)
        if g is not None:
            try:
                cols[state.paper(g)] = registry.score_matrix(_c, key, gains=g, beta=beta).mean(axis=1)
            except ValueError:      # e.g. nERR under a preset it does not accept
                continue
    return pd.DataFrame(cols, index=pd.Index(_c.run_ids, name="run"))


def gain_settings_means(c: Collection, key: str, s: Settings) -> pd.DataFrame:
    """Means of one metric under every paper preset and the current gains (Sakai 2007 Table 5)."""
    presets = tuple(evalcore.GAIN_PRESETS)
    df = _memo(("gain_table", c.fingerprint, key, s.beta, presets),
               lambda: _gain_table(c, key, s.beta, presets)).copy()
    cur = "current (" + state.paper(s.gains) + ")"
    if state.paper(s.gains) not in df.columns:
        df[cur] = score(c, key, s).mean(axis=1)
    return df




def gain_sweep(c: Collection, key: str, s: Settings, level: int) -> pd.DataFrame:
    """tau between the 3:2:1 ranking and the ranking as level ``level``'s gain moves
    (:func:`evalcore.gain_sweep`, its default grid)."""
    gains = tuple(s.gains)
    return _memo(("sweep", c.fingerprint, key, gains, s.beta, level),
                 lambda: evalcore.gain_sweep(c, key, level=level, gains=list(gains), beta=s.beta,
                                             reference="3:2:1")).copy()


# -- meta-evaluation: live, shared across sessions, never drawing ----------
class _Store(BytesLRU):
    """A bounded, thread-safe LRU of finished results shared by every session: evalcore's one
    byte-bounded cache (:class:`evalcore._cache.BytesLRU`, its ``lookup`` / ``put`` side), bounded by
    ``max_entries`` and, for results, by ``max_bytes`` (a 100-run pair table is several MB); the
    newest entry is always kept.

    Why not ``st.cache_data`` with a progress callback: a cached function that
    draws into a bar created outside it raises ``CacheReplayClosureError`` on
    replay. Here the computation runs outside any cached function
    (so it may call a plain progress callback that draws) and only the
    finished, immutable result is kept. Identical settings in two sessions
    are one entry (a cache hit, not a recomputation).
    """

    def __init__(self, max_entries: int | None, max_bytes: int | None = None,
                 on_evict: Callable[[Hashable, int], None] | None = None):
        super().__init__(max_bytes, max_entries=max_entries, on_evict=on_evict)

    def get(self, key):  # type: ignore[override]  # the app looks results up by key alone
        return self.lookup(key)


#: Bytes the shared result store may hold (memory bounded by bytes, not entries:
#: one entry for many runs can be far larger than one for a few; docs/reliability.md).
RESULTS_MAX_BYTES = BUDGET.cache_bytes


_results = _shared(lambda: _Store(4096, RESULTS_MAX_BYTES))   # a bootstrap result on clef2015 is ~0.5 MB


#: The alphas of the Report's Table 4 (evalcore report). When the Bootstrap page's B and seed are the ones
#: the Report page would use (:func:`report_alphas_wanted`; only then can the Report take its rows), its
#: bootstrap results are computed at these beside the page's own alpha (``report_alphas`` among the
#: parameters; the page's alpha first, so the pairs' ``significant`` column reads it) and shown at the page's
#: alpha only, so that the Report takes Table 4's rows from the page (:data:`_rows`). An extra alpha costs
#: CPU (1.3-1.4x for a bootstrap at B = 1000, by thread time on a loaded 2-core machine: a second pass over
#: every pair's B values), so it is asked for only then.
REPORT_ALPHAS = (0.05, 0.01)


def report_alphas_wanted(B: int, seed: int) -> bool:
    """Whether the Bootstrap page's B and seed are the Report page's (its options, else its defaults)."""
    return (int(B), int(seed)) == (int(state.value("rp_B")), int(state.value("rp_seed")))


def _report_alphas(kw: dict) -> dict:
    """The bootstrap's keywords: ``report_alphas`` (True) turns into the page's alpha and :data:`REPORT_ALPHAS`."""
    kw = dict(kw)
    if kw.pop("report_alphas", False):
        kw["alpha"] = tuple(dict.fromkeys((float(kw["alpha"]), *REPORT_ALPHAS)))
    return kw


def _page_alpha(kind: str, frames: dict, params: dict) -> dict:
    """A bootstrap result's summary frames at the page's alpha only (:data:`REPORT_ALPHAS`)."""
    if kind not in ("bootstrap", "bootstrap_spread"):
        return frames
    a = float(params["alpha"])
    return {n: df[np.isclose(df["alpha"], a)].reset_index(drop=True) if "alpha" in df.columns else df
            for n, df in frames.items()}


#: The four resampling methods the app runs live: evalcore function, its
#: parameter names (besides scores, B, seed, progress), the result frames kept.
META_KINDS = {
    "swap": (lambda sc, run_ids, **kw: _meta.swap_method(sc, rule="003", **kw), ("sampling", "subset_size"),
             ("curves", "summary")),
    "bootstrap": (lambda sc, run_ids, **kw: _meta.bootstrap_sensitivity(sc, run_ids=run_ids, **_report_alphas(kw)),
                  ("alpha",),
                  ("pairs", "summary", "asl_curves")),
    "tukey": (lambda sc, run_ids, **kw: _meta.tukey_hsd(sc, run_ids=run_ids, **kw), ("alpha",),
              ("pairs", "summary")),
    "stability": (lambda sc, run_ids, **kw: _meta.stability(sc, **kw), ("subset_size",), ("summary",)),
}

#: Monte Carlo repetitions drawn beside the swap and bootstrap summaries, to show their Monte Carlo
#: spread: the same
#: method repeated with seeds derived from the page's seed (evalcore.meta.repeat); the spread frame
#: (mean, sd, min, max, n of every summary figure) is kept.
SPREAD_REPEATS = 5
META_KINDS["swap_spread"] = (lambda sc, run_ids, **kw: _meta.repeat("swap", sc, rule="003", **kw),
                             ("sampling", "subset_size", "repeats"), ("spread", "per_repeat"))
META_KINDS["bootstrap_spread"] = (lambda sc, run_ids, **kw: _meta.repeat("bootstrap", sc, run_ids=run_ids,
                                                                         **_report_alphas(kw)),
                                  ("alpha", "repeats"), ("spread", "per_repeat"))
#: Topic samples behind the claim verdicts (evalcore.meta.topic_bootstrap): how often Sakai 2007's order would hold
#: on another topic set of this size. Each sample runs the method at :data:`TOPIC_B`, a fixed B kept small
#: so that the verdict's topic part costs a few seconds (the Report runs more, at the B asked for).
TOPIC_RESAMPLES = 20
TOPIC_B = 100
META_KINDS["swap_topics"] = (lambda sc, run_ids, **kw: _meta.topic_bootstrap(sc, "swap", rule="003", **kw),
                             ("sampling", "subset_size", "resamples"), ("per_resample",))
META_KINDS["bootstrap_topics"] = (lambda sc, run_ids, **kw: _meta.topic_bootstrap(sc, "bootstrap", run_ids=run_ids,
                                                                                  **kw),
                                  ("alpha", "resamples"), ("per_resample",))


#: Summary rows of the pages' swap, bootstrap, Tukey and stability results, by evalcore's row keys
#: (evalcore.meta.reuse: method, the metric's scores, seed, level, settings): the Report takes from here
#: every row a page computed with the report's B and seed, and computes only the rest. A row is kept as plain
#: values (evalcore.meta.reuse.keep_rows: about 0.7 KB with its key, counted at about 1 KB), and the store is
#: bounded by bytes (``BUDGET.rows_bytes``, memory / 256 within [4, 64] MiB: from some 4,000 rows, a Bootstrap
#: page's 8 metrics at 3 alphas over 1 + 5 seeds being 144 and a report reading about 300).
_rows = _shared(lambda: _Store(None, BUDGET.rows_bytes))
#: kind -> (evalcore method, the arguments its META_KINDS function adds): the kinds whose rows are kept
_ROW_KINDS = {"swap": ("swap", {"rule": "003"}), "bootstrap": ("bootstrap", {}), "tukey": ("tukey", {}),
              "stability": ("stability", {}), "swap_spread": ("swap", {"rule": "003"}),
              "bootstrap_spread": ("bootstrap", {})}


def _keep_rows(kind: str, sc: dict, res, B: int, params: dict) -> None:
    """Keep the summary rows of a page's result for the Report (:data:`_rows`)."""
    if kind not in _ROW_KINDS:
        return
    method, extra = _ROW_KINDS[kind]
    kw = {**{k: v for k, v in params.items() if k not in ("seed", "repeats")}, **extra, "B": int(B)}
    if method == "bootstrap":
        kw = _report_alphas(kw)
    summary = res.per_repeat if kind.endswith("_spread") else res.summary
    _reuse.keep_rows(_rows(), method, sc, summary, kw, seed=params.get("seed"))


#: Kinds whose frames all carry a ``metric`` column. The dashboard keeps these one metric at a time and
#: computes only the metrics not kept yet (in one call: a call has a fixed cost of a few ms), so a slider
#: move recomputes only what it changes: a gain move leaves AP, RR and NWRR (and their bootstrap, swap and
#: Tukey results) as they were, a beta move nDCG too (docs/reliability.md, "What a slider move costs"). Every method
#: draws its samples from
#: the seed alone, so a metric's rows do not depend on which metrics share the call
#: (``tests/test_app_live.py``), except that the bootstrap's ``estimated_diff_raw`` may differ in the last
#: bit (BLAS block sizes); the rounded ``estimated_diff`` and everything else are identical.
PER_METRIC_KINDS = frozenset({"swap", "bootstrap", "tukey", "swap_spread", "bootstrap_spread",
                              "swap_topics", "bootstrap_topics"})


def meta_key(kind: str, c: Collection, s: Settings, params: dict, B: int) -> tuple:
    """Identity of one result: method, data + every setting the scores read, parameters, B."""
    return (kind, data_key(c, s), tuple(sorted(params.items())), int(B))


def _metric_meta_key(kind: str, c: Collection, s: Settings, key: str, params: dict, B: int) -> tuple:
    """Identity of one metric's part of a per-metric result: only the settings that metric reads."""
    return (kind, "metric", c.fingerprint, key, _relevant(key, s), tuple(sorted(params.items())), int(B))


def meta_lookup(kind: str, c: Collection, s: Settings, params: dict, B: int):
    """A finished result ``{"frames": {...}, "seconds": float, "B": int}`` or None (never computes)."""
    hit = _results().get(meta_key(kind, c, s, params, B))
    if hit is not None or kind not in PER_METRIC_KINDS:
        return hit
    parts = _parts(kind, c, s, params, B)
    return None if parts is None else _assemble_and_keep(kind, c, s, params, B, parts)


def _parts(kind: str, c: Collection, s: Settings, params: dict, B: int, fresh: dict | None = None) -> list | None:
    """Every metric's part (``fresh`` first, then the store), or None if one is missing (never computed,
    or dropped by the store's bound since)."""
    store, out = _results(), []
    for k in s.metric_keys:
        p = (fresh or {}).get(k) or store.get(_metric_meta_key(kind, c, s, k, params, B))
        if p is None:
            return None
        out.append(p)
    return out


def meta_missing(kind: str, c: Collection, s: Settings, params: dict, B: int) -> list[str]:
    """The metric keys whose part of a result is not computed yet (for kinds outside
    :data:`PER_METRIC_KINDS`: all of them unless the whole result is)."""
    store = _results()
    if kind not in PER_METRIC_KINDS:
        return [] if store.get(meta_key(kind, c, s, params, B)) is not None else list(s.metric_keys)
    return [k for k in s.metric_keys if store.get(_metric_meta_key(kind, c, s, k, params, B)) is None]


#: CPU seconds per metric of the last computation of a kind on some data at some B (bounded), so that a
#: slider move whose full B is known to fit the interactive budget skips the quick pass.
_COSTS: dict = {}
_COSTS_MAX = 512
_COSTS_LOCK = threading.Lock()
_SHORT_LOCK = threading.Lock()


def _cost_key(kind: str, c: Collection, params: dict, B: int) -> tuple:
    # the seed and alpha do not change the cost; the sampling and the subset size do
    return (kind, c.fingerprint, tuple(sorted((k, v) for k, v in params.items() if k not in ("seed", "alpha"))),
            int(B))


def meta_known_cost(kind: str, c: Collection, s: Settings, params: dict, B: int) -> float | None:
    """CPU seconds the metrics still missing at ``B`` took last time on this data, or None if never measured."""
    per = _COSTS.get(_cost_key(kind, c, params, B)) if kind in PER_METRIC_KINDS else None
    return None if per is None else per * len(meta_missing(kind, c, s, params, B))


def meta_estimate(kind: str, c: Collection, s: Settings, params: dict, B: int, quick: dict) -> float:
    """CPU seconds the chosen ``B`` would take, scaled from a quick pass (``meta_compute`` at a smaller B):
    only the metrics still missing at ``B`` count."""
    per = quick.get("metric_seconds")
    if per is None:
        return quick["seconds"] * B / quick["B"]
    return sum(per.get(k, 0.0) for k in meta_missing(kind, c, s, params, B)) * B / quick["B"]


def _assemble(frames: list[dict[str, pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    """A whole result's frames from the frames of one metric each (in the sidebar's metric order)."""
    out = {}
    for name in frames[0]:
        df = pd.concat([f[name] for f in frames], ignore_index=True)
        if name in ("summary", "spread") and "confidence" in df:
            confs = list(dict.fromkeys(frames[0][name]["confidence"]))
            if name == "summary":     # as swap_method sorts: by confidence, then % comparisons (iv) descending
                df = _sort_swap_summary(df, confs)
            else:                     # grouped by confidence, metrics in the sidebar's order
                rank = df["confidence"].map({c: i for i, c in enumerate(confs)}).to_numpy()
                df = df.iloc[np.argsort(rank, kind="stable")].reset_index(drop=True)
        out[name] = df
    return out


def _assemble_and_keep(kind: str, c: Collection, s: Settings, params: dict, B: int, parts: list) -> dict:
    store = _results()
    per = {k: p["seconds"] for k, p in zip(s.metric_keys, parts, strict=True)}
    out = {"frames": _assemble([p["frames"] for p in parts]), "seconds": sum(per.values()), "B": int(B),
           "metric_seconds": per}
    store.put(meta_key(kind, c, s, params, B), out)
    return out


#: Threads one session's resampling may use: the server setting EVALCORE_SESSION_THREADS (default 2;
#: docs/dashboard.md, "Server settings"), so that one session cannot take a class's cores. Every result is
#: the same for any thread count (evalcore.meta._parallel).
SESSION_THREADS_ENV, SESSION_THREADS_DEFAULT = "EVALCORE_SESSION_THREADS", 2


def session_threads(kind: str | None = None) -> int:
    """The threads of one session's meta computations: the server's cap (:data:`SESSION_THREADS_ENV`,
    checked), and at most the method's own default (evalcore.meta._parallel.default_threads: one thread
    for the methods not measured to scale, such as the bootstrap, whose kernel ran slower on more)."""
    cap = threads_from_env(SESSION_THREADS_ENV, SESSION_THREADS_DEFAULT)
    return cap if kind is None else min(cap, default_threads(kind.split("_")[0]))


#: Meta computations running in this server process now (every session's): :func:`meta_compute` gives a
#: computation more than one thread only when it is the only one. With a class computing at once there are
#: no idle cores for a second thread to use, and extra threads cost CPU: bench_load's Overview, 10 sessions
#: on 2 cores, spent 0.83 s of server CPU per move with 2 threads per session against 0.41 s with 1, and its
#: p95 was 9.5 s against 5.1 s (docs/benchmarks.md section 16.2).
_RUNNING = 0
_RUNNING_LOCK = threading.Lock()


#: kind -> (evalcore method, the parameter that repeats its calls): the kinds :func:`meta_check` sizes
_WORK_KINDS = {"swap": ("swap", None), "bootstrap": ("bootstrap", None), "tukey": ("tukey", None),
               "stability": ("stability", None), "swap_spread": ("swap", "repeats"),
               "bootstrap_spread": ("bootstrap", "repeats"), "swap_topics": ("swap", "resamples"),
               "bootstrap_topics": ("bootstrap", "resamples"), "pairs": ("pairs", None),
               "pairs_spread": ("pairs", "repeats")}
#: What to change on a page when a request is over a limit of evalcore.workload
WORK_HINT = "lower B, or choose fewer metrics or runs (the sidebar)"


def meta_check(kind: str, c: Collection, s: Settings, params: dict, B: int) -> None:
    """The check of :mod:`evalcore.workload` (the command line's and the Python functions') on a page's
    request, before its quick pass, at the page's limit (:data:`evalcore.workload.PAGE_SECONDS` of one core,
    below the command line's): ValueError naming the product and the limit when a
    B (pressed "B x 10" a few times) and the runs of an upload multiply past it. Sized with one thread
    per request, as a page runs when other sessions compute."""
    spec = _WORK_KINDS.get(kind)
    if spec is None:
        return
    method, times = spec
    M, R, n = workload.scores_shape(scores(c, s))
    if M == 0 or R < 2:
        return
    reps = int(params.get(times) or 1) if times else 1
    if method == "pairs":
        tests = tuple(params.get("tests") or ((params.get("test"),) if params.get("test") else ("t",)))
        w = workload.pairs_work(R, n, B=int(B), n_metrics=M * reps, tests=tests)
    else:
        w = workload.method_work(method, R, n, B=int(B), n_metrics=M, repeats=reps,
                                 **{k: params.get(k) for k in ("subset_size", "sampling", "replacement",
                                                               "fuzziness")})
    page_check(w)


def page_check(w: workload.Workload) -> None:
    """:func:`evalcore.workload.check` at the page's limit (:data:`evalcore.workload.PAGE_SECONDS` of one
    core); over it, InputError: the settings' fault, not a bug, shown as the page's "cannot be computed" box."""
    try:
        workload.check(w, WORK_HINT, max_seconds=workload.PAGE_SECONDS, scope="for a page")
    except ValueError as e:
        raise InputError(str(e)) from None


def threads_now(kind: str, running: int, work: int) -> int:
    """The threads of a computation of ``work`` run pairs x trials that finds ``running`` meta computations in
    the server (itself included): one thread when other sessions compute too; alone, :func:`session_threads`
    cut to what the work can use (evalcore.meta._parallel.fit_threads: one thread on small data, where a
    second one cost more than it gave - on clef2015's 30 runs the Bootstrap page settled in 2.5 s with two
    threads against 1.8 s with one, docs/benchmarks.md section 15.3)."""
    return fit_threads(session_threads(kind), kind.split("_")[0], work) if running <= 1 else 1


def _clock(threads: int):
    """The cost clock of a computation on ``threads`` threads: this script thread's CPU when it computes
    alone (other sessions' work does not count), the wall time when pool threads do the work (the
    script thread only waits for them, so its CPU would say nearly nothing)."""
    return time.thread_time if threads <= 1 else time.perf_counter


def meta_compute(kind: str, c: Collection, s: Settings, params: dict, B: int,
                 progress: Callable[[float], object] | None = None) -> dict:
    """Run one resampling method (outside any st.cache_*), keep and return its result.

    ``progress`` is a plain callable given the fraction done; it may draw
    (it runs in the page's script, not inside a cached function). Kinds in
    :data:`PER_METRIC_KINDS` run for the metrics not kept yet, in one call.
    """
    key = meta_key(kind, c, s, params, B)
    hit = _results().get(key)
    if hit is not None:
        return hit
    meta_check(kind, c, s, params, B)       # every page's computation, at the page's limit
    global _RUNNING
    with _RUNNING_LOCK:
        _RUNNING += 1
        running = _RUNNING
    try:
        work = c.n_runs * (c.n_runs - 1) // 2 * int(B)
        return _meta_compute(kind, c, s, params, B, progress, key, threads_now(kind, running, work))
    finally:
        with _RUNNING_LOCK:
            _RUNNING -= 1


def _meta_compute(kind: str, c: Collection, s: Settings, params: dict, B: int, progress, key: tuple,
                  threads: int) -> dict:
    """:func:`meta_compute` on ``threads`` threads."""
    fn, _, parts = META_KINDS[kind]
    per_metric = kind in PER_METRIC_KINDS
    clock = _clock(threads)
    if not per_metric:
        t0 = clock()
        sc = scores(c, s)
        res = _stale_to_rerun(fn, sc, list(c.run_ids), B=int(B), progress=_cancellable(progress),
                              threads=threads, **params)
        _keep_rows(kind, sc, res, B, params)
        out = {"frames": _page_alpha(kind, _frames(res, parts), params), "seconds": clock() - t0, "B": int(B)}
        _results().put(key, out)
        return out
    fresh: dict = {}
    while (got := _parts(kind, c, s, params, B, fresh)) is None:
        # the missing metrics (a part the store's bound dropped meanwhile is computed again)
        todo = [k for k in meta_missing(kind, c, s, params, B) if k not in fresh]
        sc = scores(c, s, todo)
        t0 = clock()
        # Short computations (the live charts' calls without a progress bar: quick passes, and a chosen
        # B within the interactive budget) run one session at a time. They are thousands of small numpy
        # calls, each releasing and retaking the GIL; with a class computing at once, every call waited
        # in a convoy of threads. Long ones (with progress) never wait here, so one user's long
        # refinement does not hold up the others.
        with _SHORT_LOCK if progress is None else nullcontext():
            res = _stale_to_rerun(fn, sc, list(c.run_ids), B=int(B), progress=_cancellable(progress),
                                  threads=threads, **params)
        _keep_rows(kind, sc, res, B, params)
        frames = _page_alpha(kind, _frames(res, parts), params)
        each = (clock() - t0) / len(todo)
        with _COSTS_LOCK:
            _COSTS[_cost_key(kind, c, params, B)] = each
            while len(_COSTS) > _COSTS_MAX:
                _COSTS.pop(next(iter(_COSTS)))
        split = {name: dict(tuple(df.groupby("metric", sort=False))) for name, df in frames.items()}
        for k in todo:
            part = {"frames": {name: split[name][k].reset_index(drop=True) if k in split[name] else df.iloc[:0]
                               for name, df in frames.items()},
                    "seconds": each, "B": int(B)}
            fresh[k] = part
            _results().put(_metric_meta_key(kind, c, s, k, params, B), part)
    return _assemble_and_keep(kind, c, s, params, B, got)


def _stale_to_rerun(fn, *args, **kw):
    """``fn(*args, **kw)``; when its progress callback cancelled it because a newer move is waiting
    (:func:`_cancellable`), hand the run over to that move (nothing is kept of the stale work)."""
    try:
        return fn(*args, **kw)
    except _meta.Cancelled:
        interrupt_point()           # raises Streamlit's rerun (or stop) here
        raise                       # a cancel from the caller's own progress callback


class Progress:
    """A progress callback for evalcore.meta drawing into a st.progress bar.

    Never pass it into a ``st.cache_*`` function (see :class:`_Store`)."""

    def __init__(self, text: str):
        _gate.GATE.step_aside()        # a long computation: the other sessions' page runs need not wait for it
        self.bar = st.progress(0.0, text=text)
        self.text = text
        self.last = -1.0
        self.t0 = time.perf_counter()

    def __call__(self, frac: float, text: str | None = None):
        frac = float(min(max(frac, 0.0), 1.0))
        if text is not None and text != self.text:
            self.text, self.last = text, -1.0         # a new step: always shown
        if frac - self.last >= 0.02 or frac >= 1.0:
            self.last = frac
            self.bar.progress(frac, text=f"{self.text} {frac:.0%} ({time.perf_counter() - self.t0:.1f} s)")
        return None

    def done(self):
        self.bar.empty()


def _frames(res, names) -> dict[str, pd.DataFrame]:
    return {n: getattr(res, n) for n in names if getattr(res, n, None) is not None}


# -- "Which gains should I report?": discriminative power with its spread ----
@st.cache_data(max_entries=512, show_spinner=False)
def _power_spread(_c: Collection, fp: str, key: str, gains: tuple, beta: float, penalties: tuple, thr: int,
                  alpha: float, B: int, seed: int, repeats: int) -> dict:
    """Bootstrap % significant of one metric under one gain setting, repeated
    ``repeats`` times with seeds derived from ``seed`` (evalcore.meta.repeat;
    repetition 1 uses ``seed`` itself): mean, sd (ddof = 1), min, max.
    """
    sc = {key: registry.score_matrix(_c, key, gains=list(gains), beta=beta, penalties=list(penalties),
                                     rel_threshold=thr)}
    res = _meta.repeat("bootstrap", sc, repeats=int(repeats), seed=int(seed), run_ids=list(_c.run_ids), B=int(B),
                       alpha=alpha, threads=session_threads("bootstrap"))
    row = res.spread[res.spread["figure"] == "pct_significant"].iloc[0]
    sd = float(row["sd"])
    return {"mean": float(row["mean"]), "sd": sd if np.isfinite(sd) else 0.0,
            "min": float(row["min"]), "max": float(row["max"]), "repeats": int(repeats), "B": int(B)}


def power_spread(c: Collection, key: str, s: Settings, gains, *, alpha: float, B: int, seed: int,
                 repeats: int) -> dict:
    page_check(workload.method_work("bootstrap", c.n_runs, c.n_topics, B=int(B), n_metrics=1,
                                    repeats=int(repeats)))
    return _power_spread(c, c.fingerprint, key, tuple(float(g) for g in gains), s.beta, s.penalties,
                         s.rel_threshold, float(alpha), int(B), int(seed), int(repeats))


def tau_against(c: Collection, key: str, s: Settings, gains, ref_gains) -> float:
    """Kendall tau-b between the run rankings of ``key`` under two gain vectors (cached scores)."""
    a = score(c, key, replace(s, gains=tuple(float(g) for g in ref_gains))).mean(axis=1)
    b = score(c, key, replace(s, gains=tuple(float(g) for g in gains))).mean(axis=1)
    return kendall(a, b)


def data_key(c: Collection, s: Settings) -> tuple:
    """Identity of a score set for the long computations' caches."""
    return (c.fingerprint, s.metric_keys, s.gains, s.beta, s.penalties, s.rel_threshold, s.cutoff)


def kendall_critical(n: int, alpha: float) -> float:
    """Smallest |tau| significant at ``alpha`` for ``n`` runs (Sakai 2007 Eq. 9); > 1 means none can be."""
    return float(_meta.kendall_test(0.0, n, alpha=alpha).get("tau_critical", float("nan")))


# -- the overview and the gains view -----------------------------------------
def rank_comparison(c: Collection, key: str, s: Settings,
                    ref: str = "3:2:1") -> tuple[pd.DataFrame, float, list[float]]:
    """Runs ranked by ``key`` under the paper preset ``ref`` (extended to K levels, e.g. 3:2:1 as
    gain = level) and under the current gains:
    ``(df with run/value_left/value_right/rank_left/rank_right, tau, ref gains)``."""
    ref_gains = resolve_gains(ref, c.max_level).tolist()
    ref = score(c, key, replace(s, gains=tuple(ref_gains))).mean(axis=1)
    cur = score(c, key, s).mean(axis=1)
    return rank_frame(c.run_ids, ref, cur), kendall(ref, cur), ref_gains


def rank_frame(run_ids, left: np.ndarray, right: np.ndarray) -> pd.DataFrame:
    """Runs' means under two settings and their ranks (1 = best; tied means share the best rank, as
    ``pandas.Series.rank(ascending=False, method="min")``): columns run, value_left, value_right, rank_left,
    rank_right. Ranked with numpy: the frame is built once, not column by column."""
    left, right = np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)
    return pd.DataFrame({"run": list(run_ids), "value_left": left, "value_right": right,
                         "rank_left": _rank_desc(left), "rank_right": _rank_desc(right)})


def _rank_desc(x: np.ndarray) -> np.ndarray:
    """Rank 1 for the largest value, ties sharing the best (smallest) rank among them ("min" ranking)."""
    ranks = np.empty(x.size, dtype=np.int64)
    if not x.size:
        return ranks
    order = np.argsort(-x, kind="stable")
    xs = x[order]
    first = np.r_[True, xs[1:] != xs[:-1]]          # where a new value starts a group of ties
    ranks[order] = np.maximum.accumulate(np.where(first, np.arange(1, x.size + 1), 0))
    return ranks


def ratio_gains(K: int, ratio: float) -> list[float]:
    """A geometric gain setting for K levels: level 1 gets 1, level K gets
    ``ratio``, levels between are spaced evenly on a log scale (ascending).

    This is the one-parameter family the "Which gains?" view sweeps: ratio 1
    is 1:1:1 (binary relevance), ratio 3 on three levels is 3:1.73:1. For K = 1
    there is one level and the gain is 1. Each gain is rounded to three significant digits, and the
    rounded values are the ones used: the label a table or chart shows (``100:21.5:4.64:1``) is then
    the setting computed, not an abbreviation of ``100:21.5443:4.64159:1``.

    >>> ratio_gains(4, 100.0), ratio_gains(3, 3.0)
    ([1.0, 4.64, 21.5, 100.0], [1.0, 1.73, 3.0])
    """
    if K <= 1:
        return [1.0]
    return [float(f"{ratio ** ((L - 1) / (K - 1)):.3g}") for L in range(1, K + 1)]


def gain_settings(K: int, ratio: float, current) -> list[tuple[str, str, list[float]]]:
    """(label, family, ascending gains) of every setting the gains view compares:
    the papers' presets that extend to K levels (labelled with the values
    actually used), the geometric family at fixed ratios, the slider's ratio
    and the sidebar's current gains."""
    out: list[tuple[str, str, list[float]]] = []
    seen: dict[str, int] = {}

    def add(family, g):
        lab = state.paper(g)
        if lab in seen:             # one point per distinct setting; it carries every family it belongs to
            i = seen[lab]
            out[i] = (lab, out[i][1] + " + " + family, out[i][2])
            return
        seen[lab] = len(out)
        out.append((lab, family, [float(v) for v in g]))

    for name in state.PRESETS + ("2:1.5:1",):
        g = preset_gains(name, K)
        if g is not None:
            # labelled with the values used: "3:2:1" would misname a setting on 2, 4 or 5 levels
            add("paper preset" + ("" if state.paper(g) == name else f", adapted to {K} levels"), g)
    for r in (2.0, 5.0, 30.0, 100.0):
        add("ratio grid", ratio_gains(K, r))
    add("ratio slider", ratio_gains(K, ratio))
    add("sidebar (current)", list(current))
    return out


# -- "Significance & topic sets" page: pair statistics, power, topic set size ---------
# Two more live kinds for widgets.live_meta / finish_live, kept in the shared result store like the
# others (computed outside any st.cache_*, progress may draw). "pairs" is one pair_statistics call;
# the correction, alpha and the forest plot are applied to its result when drawing;
# "pairs_spread" repeats the chosen resampled test over seeds seed..seed+repeats-1 and keeps only
# the raw p-values, so the correction and alpha are applied when drawing. "pairs" computes only the
# tests the table needs (pair_tests): the exact ones take a few ms, so switching is still instant.
PAIR_TESTS = tuple(_meta.TESTS)
PAIR_CORRECTIONS = tuple(_meta.CORRECTIONS)
RESAMPLED_TESTS = ("randomisation", "bootstrap")
STANDARDISATIONS = tuple(_meta.STANDARDISATIONS)
TOPIC_DESIGNS = tuple(_meta.DESIGNS)


def _standardised(sc: dict, standardise: str | None) -> dict:
    """Score matrices standardised per topic over the loaded runs (Webber et al. 2008), or as they are."""
    return sc if standardise in (None, "none") else _meta.standardise_scores(sc, standardise)


def _one_blas_thread():
    """Single-threaded BLAS while pair statistics run (threadpoolctl, if installed).

    pair_statistics' resampled tests are many small matrix products; on this shared
    2-core machine OpenBLAS's two threads made them 5-8x slower in CPU time
    (bootstrap test, 8 metrics x 435 pairs, B = 100: 0.31 CPU s with 2 threads,
    0.04 s with 1). The limit is process-wide for the duration of the call.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:                     # optional: without it BLAS keeps its default
        from contextlib import nullcontext
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _pairs_kind(sc, run_ids, *, B, seed, confidence, standardise, tests, progress=None, threads=1):
    from types import SimpleNamespace
    with _one_blas_thread():
        res = _meta.pair_statistics(_standardised(sc, standardise), run_ids=run_ids, confidence=confidence,
                                    tests=tests, B=B, seed=seed, progress=progress, threads=threads)
    return SimpleNamespace(result=replace(res, samples=None))     # the (B, n) samples are not kept


def pair_tests(test: str, ci: str) -> tuple[str, ...]:
    """The tests one pair table needs: the chosen test, plus the bootstrap for its CI."""
    return (test,) + (("bootstrap",) if ci == "bootstrap" and test != "bootstrap" else ())


def _spread_kind(sc, run_ids, *, B, seed, repeats, test, standardise, progress=None, threads=1):
    from types import SimpleNamespace
    if test not in RESAMPLED_TESTS:
        raise ValueError(f"a Monte Carlo spread exists only for the resampled tests "
                         f"({', '.join(RESAMPLED_TESTS)}); got {test!r}")
    sc = _standardised(sc, standardise)
    frames = []
    for r in range(int(repeats)):
        sub = None if progress is None else (lambda f, r=r: progress((r + f) / int(repeats)))
        with _one_blas_thread():
            res = _meta.pair_statistics(sc, run_ids=run_ids, tests=(test,), B=B, seed=int(seed) + r, progress=sub,
                                        threads=threads)
        p = res.pairs
        frames.append(pd.DataFrame({"metric": p["metric"], "run_x": p["run_x"], "run_y": p["run_y"], "repeat": r,
                                    "seed": int(seed) + r, "p_value": p["p_" + test]}))
    return SimpleNamespace(pvalues=pd.concat(frames, ignore_index=True))


META_KINDS["pairs"] = (_pairs_kind, ("confidence", "standardise", "tests"), ("result",))
META_KINDS["pairs_spread"] = (_spread_kind, ("repeats", "test", "standardise"), ("pvalues",))


def spread_power(pvalues: pd.DataFrame, correction: str, alpha: float) -> pd.DataFrame:
    """% pairs significant per metric from repeated resampled tests (``pairs_spread``).

    For each metric and repeat the p-values of all pairs form one family, adjusted by
    ``correction`` (evalcore.meta.adjust_pvalues); significant = adjusted p < alpha. Returns
    ``metric, pct_seed`` (the first seed: the value the pair table gives), ``mean, sd, min, max``
    over the repeats and ``repeats``.
    """
    rows = []
    for (m, r), g in pvalues.groupby(["metric", "repeat"], sort=False):
        adj = _meta.adjust_pvalues(g["p_value"].to_numpy(), correction)
        rows.append({"metric": m, "repeat": r, "pct": 100.0 * float(np.mean(adj < alpha)) if len(adj) else 0.0})
    d = pd.DataFrame(rows)
    out = d.groupby("metric", sort=False)["pct"].agg(["mean", "std", "min", "max", "count"]).reset_index()
    first = d[d["repeat"] == d["repeat"].min()].set_index("metric")["pct"]
    out.insert(1, "pct_seed", out["metric"].map(first))
    return out.rename(columns={"std": "sd", "count": "repeats"}).fillna({"sd": 0.0})


def compare_table(c: Collection, s: Settings, result, keys, *, baseline: str, test: str, correction: str,
                  alpha: float, standardise: str = "none"):
    """The paper table of the Significance page (:func:`evalcore.compare`, baseline mode): every run against
    ``baseline`` on the metrics ``keys``, from the page's own pair statistics ``result`` (the same p-values
    as its pair table; nothing is recomputed) and the same (standardised) scores. Metrics are shown under
    their configured labels (the gains etc. used); the topics are the collection's topics with a relevant
    document, NTCIREVAL's policy, as every score of the app. A few ms: not cached."""
    keys = list(keys)
    labels = {k: label(k, c, s) for k in keys}
    sc = _standardised(scores(c, s, keys), standardise)
    pairs = result.pairs[result.pairs["metric"].isin(keys)].assign(metric=lambda d: d["metric"].map(labels))
    return evalcore.compare({labels[k]: sc[k] for k in keys}, run_ids=[str(r) for r in c.run_ids],
                            baseline=str(baseline), test=test, correction=correction, alpha=alpha,
                            topics="ntcireval", pairs=replace(result, pairs=pairs))


def residual_variance(c: Collection, key: str, s: Settings, standardise: str = "none") -> float:
    """V_E of the two-way ANOVA without replication (runs x topics) of one metric's scores
    (Sakai 2016 Sec. 6), after the chosen standardisation; NaN with fewer than 2 runs/topics."""
    return float(_meta.residual_variance(_standardised({key: score(c, key, s)}, standardise)[key]))


@st.cache_data(max_entries=512, show_spinner=False)
def topic_design(design: str, alpha: float, beta: float, min_diff: float, variance: float, systems: int | None,
                 n_collection: int) -> dict:
    """Topic set size (evalcore.meta.topic_set_size), the inverse at the collection's n (minimum
    detectable difference, and the power for ``min_diff``), and the power curve for the chart.

    Raises ValueError (not cached) when the design cannot be met, e.g. more than MAX_TOPICS topics.
    """
    size = _meta.topic_set_size(design, alpha=alpha, beta=beta, min_diff=min_diff, variance=variance,
                                systems=systems)
    n_req = int(size["n_topics"])
    out = {"size": size, "n_collection": int(n_collection), "mdd": None, "power_at_n": None, "mdd_error": None}
    if n_collection >= 2:
        try:
            out["mdd"] = float(_meta.min_detectable_difference(design, int(n_collection), alpha=alpha, beta=beta,
                                                               variance=variance, systems=systems))
        except ValueError as e:         # e.g. n = 2: scipy's noncentral t gives NaN power with 1 degree of freedom
            out["mdd_error"] = str(e)
        pw = float(_meta.power_curve(design, [int(n_collection)], alpha=alpha, min_diff=min_diff,
                                     variance=variance, systems=systems)["power"].iloc[0])
        out["power_at_n"] = pw if np.isfinite(pw) else None
    hi = max(2 * n_req, 2 * int(n_collection), 20)
    ns = np.arange(2, hi + 1) if hi <= 400 else np.unique(np.round(np.geomspace(2, hi, 300)).astype(np.int64))
    out["curve"] = _meta.power_curve(design, ns, alpha=alpha, min_diff=min_diff, variance=variance, systems=systems)
    out["log_x"] = bool(hi > 400)
    return out


def design_variance(c: Collection, key: str, s: Settings, design: str, estimator: str,
                    standardise: str = "none") -> dict:
    """The variance ``design`` assumes, estimated from one metric's scores (evalcore.meta.design_variance):
    Sakai 2016's pooled within-system sigma^2 (one-way; 2 sigma^2 for the paired designs) or 2 V_E of the
    two-way ANOVA (paired designs only). Raises ValueError with the reason when there is no estimate."""
    return _meta.design_variance(_standardised({key: score(c, key, s)}, standardise)[key], design, estimator)


TOPIC_ESTIMATORS = tuple(_meta.ESTIMATORS)


def gain_choice_verdict(*args, **kw):
    """The report's "which gains" rule (evalcore.meta.gain_choice_verdict), for the pages: pure, not cached."""
    return _meta.gain_choice_verdict(*args, **kw)


def variance_for(design: str, v_e: float) -> float:
    """The variance a topic set design uses from V_E (2 V_E for paired-t and ci, V_E for anova)."""
    return float(_meta.variance_for(design, v_e))


# -- the Report page: evalcore report's files ----------------------------------------------------------
def _report_key(c: Collection, argv: list[str]) -> tuple:
    return ("report", c.fingerprint, tuple(argv))


def report_lookup(c: Collection, argv: list[str]):
    """The report already built for this data and these options (by any session), or None."""
    return _results().lookup(_report_key(c, argv))


def report_build(c: Collection, argv: list[str], progress: Progress | None = None):
    """``evalcore report``'s experiment and files for ``argv`` (dashboard.report.build), kept for every
    session; ``progress`` (a :class:`Progress`) shows each step. Raises InputError for options the
    command refuses."""
    from . import report as _report

    key = _report_key(c, argv)
    got = _results().lookup(key)
    if got is not None:
        return got
    say = _report.StepProgress(lambda f, m: progress(f, m) if progress is not None else None)
    try:
        # every swap, bootstrap, Tukey and stability row a page (or an earlier report) computed with the same
        # scores, seed, B and settings is taken, not computed again: the same files (evalcore.meta.reuse)
        got = _report.build(c, argv, progress=say, reuse=_rows())
    except ValueError as e:
        raise InputError(str(e)) from e
    _results().put(key, got)
    return got


# -- Sakai 2007's claim on the data shown ------------------------------------------------------------------
#: The figure Sakai 2007's order claim is read from, per method: (column, the summary key that selects the row)
CLAIM_FIGURES = {"swap": ("pct_comparisons", "confidence"), "bootstrap": ("pct_significant", "alpha")}


def claim_wide(frame: pd.DataFrame, index: str, method: str, level: float) -> pd.DataFrame:
    """Rows: repetitions (``index`` = "repeat") or topic samples ("resample"); columns: metrics; values: the
    method's discriminative-power figure at ``level`` (the confidence of the swap, the alpha of the bootstrap)."""
    fig, by = CLAIM_FIGURES[method]
    d = frame[np.isclose(frame[by].astype(float), float(level))]
    cols = list(dict.fromkeys(d["metric"]))
    rows = np.unique(d[index].to_numpy())
    i = np.searchsorted(rows, d[index].to_numpy())
    j = pd.Index(cols).get_indexer(d["metric"])
    cell = i * len(cols) + j
    if len(np.unique(cell)) < len(cell):         # a (row, metric) twice: pandas' "first non-missing" rule
        w = d.pivot_table(index=index, columns="metric", values=fig, aggfunc="first", dropna=False)
        return w.reindex(columns=cols)
    # one value per cell (every method writes one row per repetition / sample and metric): placed directly,
    # as pivot_table would place it (rows sorted, a missing cell NaN) at a sixth of its CPU, four times a move
    out = np.full((len(rows), len(cols)), np.nan)
    out[i, j] = d[fig].to_numpy(dtype=float)
    return pd.DataFrame(out, index=pd.Index(rows, name=index), columns=pd.Index(cols, name="metric"))


def claim_verdict(method: str, per_repeat: pd.DataFrame, per_resample: pd.DataFrame | None, level: float) -> dict:
    """evalcore.meta.order_claim_verdict of Sakai 2007's claim (Tables 3-4) on one method's repetitions and topic
    samples, as the pages show it."""
    what = "% comparisons" if method == "swap" else "% of pairs significant"
    topics = None if per_resample is None else claim_wide(per_resample, "resample", method, level)
    return _meta.order_claim_verdict(claim_wide(per_repeat, "repeat", method, level), _meta.CLAIM_003,
                                     topics=topics, what=what)
