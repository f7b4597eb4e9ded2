"""A class on one server, for ``benchmarks/bench_dashboard.py --mode load`` (and ``--mode floor``): the
dashboard started as users start it, simulated sessions speaking Streamlit's own protocol, and the scenarios.

Each simulated session is a websocket client speaking Streamlit's own protocol (``/_stcore/stream``, protobuf
``BackMsg`` / ``ForwardMsg``), all of them in one asyncio process, separate from the server's: the server does
every rerun, the clients only parse messages. Loopback only. Server RSS from /proc/PID/status, CPU from
/proc/PID/stat. Each scenario returns a table (a dict: id, title, columns, rows, notes) that bench_dashboard.py
prints and keeps in its result file (benchmarks/harness.py); what each measures is in bench_dashboard.py's
docstring. tests/test_bench_load.py tests the session count and the pinning plan; tests/test_app_memory.py
drives a real server with :class:`Server` and :func:`open_session`.
"""
from __future__ import annotations

import asyncio
import io
import os
import random
import re
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
import zipfile
from pathlib import Path

import websockets
from harness import col, percentile
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
CLEF = ROOT.parent / "shared" / "data" / "clef2015"
MiB = 1 << 20


def _table(tid: str, columns: list[dict], rows: list[dict], title: str | None = None, notes=()) -> dict:
    return {"id": tid, "title": title, "columns": columns, "rows": rows, "notes": list(notes)}


# -- the server ------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The dashboard on a free loopback port, started as users start it (``evalcore app``, which becomes the
    server process: its settings, e.g. one BLAS thread and two malloc arenas, are the shipped ones); RSS and
    CPU from /proc."""

    env: dict[str, str] = {}   # extra environment for every server (--env KEY=VALUE)

    def __init__(self, extra: list[str] | None = None, cores: set[int] | None = None, root: Path = ROOT):
        """``root``: the checkout whose app (and evalcore) the server runs (default this one)."""
        self.port = free_port()
        self.log = open(f"/tmp/bench_load_{self.port}.log", "wb")  # noqa: SIM115 - lives as long as the server
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "evalcore", "app", "--app-dir", str(root), "--port", str(self.port),
             "--address", "127.0.0.1", "--", "--server.fileWatcherType", "none", *(extra or [])],
            cwd=root, stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, **Server.env},
            # pinned before exec, so every thread and worker process of the server inherits the cores
            preexec_fn=(lambda c=cores: os.sched_setaffinity(0, c)) if cores else None)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=1):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"streamlit did not start; see {self.log.name}")

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def cpu_s(self) -> float:
        f = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    def sessions(self) -> int:
        """Open connections to this server: one websocket per session (behind nginx too: the balancer keeps
        no idle upstream connections, so an HTTP request's connection is closed when it is answered)."""
        return established(self.port)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


class Cluster:
    """N streamlit servers behind nginx, configured by docs/deploy/nginx.conf (ports filled in).
    RSS and CPU are the servers' sums (nginx's own are printed apart)."""

    def __init__(self, n: int, pins: list[set[int] | None] | None = None, rest: set[int] | None = None,
                 root: Path = ROOT):
        """``pins``: each server's cores (None: any); ``rest``: nginx's cores (None: any); ``root``: the
        checkout whose app the servers run."""
        self.servers = [Server(cores=(pins or [None] * n)[i], root=root) for i in range(n)]
        self.port = free_port()
        self.dir = Path(f"/tmp/bench_load_nginx_{self.port}")
        self.dir.mkdir(exist_ok=True)
        conf = (ROOT / "docs" / "deploy" / "nginx.conf").read_text()
        lines = "\n".join(f"        server 127.0.0.1:{s.port};" for s in self.servers)
        conf = re.sub(r"        server 127\.0\.0\.1:8601;.*\n        server 127\.0\.0\.1:8602;", lines, conf)
        conf = conf.replace("listen 127.0.0.1:8600;", f"listen 127.0.0.1:{self.port};")
        (self.dir / "nginx.conf").write_text(conf)
        self.nginx = subprocess.Popen(["nginx", "-c", str(self.dir / "nginx.conf"), "-p", str(self.dir)],
                                      stdout=subprocess.DEVNULL,
                                      preexec_fn=(lambda: os.sched_setaffinity(0, rest)) if rest else None,
                                      stderr=open(self.dir / "error.log", "wb"))  # noqa: SIM115
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = self.nginx
        for _ in range(100):
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)

    def rss_mib(self) -> float:
        return sum(s.rss_mib() for s in self.servers)

    def cpu_s(self) -> float:
        return sum(s.cpu_s() for s in self.servers)

    def stop(self) -> None:
        self.nginx.terminate()
        self.nginx.wait(10)
        for s in self.servers:
            s.stop()


def established(port: int) -> int:
    """Established TCP connections whose local port is ``port`` (from /proc/net/tcp and tcp6)."""
    n = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "01" and int(f[1].rsplit(":", 1)[1], 16) == port:
                n += 1
    return n


def pin_plan(servers: int, pin: bool) -> tuple[list[set[int] | None], set[int] | None]:
    """``--pin``: server i on core i (mod the cores); the clients (this process) and nginx on the cores left
    over, if any - so each process has a core of its own, as in a deployment with one process per core."""
    if not pin:
        return [None] * servers, None
    cores = sorted(os.sched_getaffinity(0))
    pins = [{cores[i % len(cores)]} for i in range(servers)]
    rest = set(cores) - set().union(*pins)
    return pins, rest or None


# -- one simulated session -------------------------------------------------------------------------
class Session:
    """A browser tab, reduced to the protocol: rerun requests with widget states; waits for script_finished."""

    FINISHED = 0  # ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY

    def __init__(self, url: str, timeout: float):
        self.http = url
        self.ws_url = url.replace("http", "ws", 1) + "/_stcore/stream"
        self.timeout = timeout
        self.widgets: dict[str, tuple[str, str]] = {}   # user key -> (widget id, type)
        self.pages: dict[str, str] = {}                 # url path -> page_script_hash
        self.session_id = ""
        self.page_hash = ""
        self.exceptions = 0
        self.metrics: dict[str, str] = {}
        self.error_boxes: list[str] = []
        self.errors: list[str] = []
        self.states: dict[str, object] = {}             # widget id -> WidgetState builder
        self.pending_urls: asyncio.Future | None = None

    async def __aenter__(self):
        # the XSRF cookie (as the browser gets it): uploads send it back as cookie and X-Xsrftoken header
        loop = asyncio.get_running_loop()
        cookie = await loop.run_in_executor(None, _xsrf_cookie, self.http, self.timeout)
        m = re.search(r"_streamlit_xsrf=([^;]+)", cookie)
        self.xsrf = m.group(1) if m else ""
        self.ws = await websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None,
                                           origin=self.http, open_timeout=self.timeout,
                                           additional_headers={"Cookie": f"_streamlit_xsrf={self.xsrf}"})
        self.reader = asyncio.create_task(self._read())
        self.finished: asyncio.Queue = asyncio.Queue()
        return self

    async def __aexit__(self, *exc):
        self.reader.cancel()
        await self.ws.close()

    async def _read(self):
        try:
            async for raw in self.ws:
                m = ForwardMsg()
                m.ParseFromString(raw)
                kind = m.WhichOneof("type")
                if kind == "new_session":
                    self.session_id = m.new_session.initialize.session_id or self.session_id
                elif kind == "navigation":
                    for p in m.navigation.app_pages:
                        self.pages[p.url_pathname or p.page_name] = p.page_script_hash
                    self.page_hash = m.navigation.page_script_hash or self.page_hash
                elif kind == "delta" and m.delta.WhichOneof("type") == "new_element":
                    e = m.delta.new_element
                    et = e.WhichOneof("type")
                    if et == "metric":
                        self.metrics[e.metric.label] = e.metric.body
                    if et == "alert" and e.alert.format == 1:  # Alert.Format.ERROR: an error box
                        self.error_boxes.append(e.alert.body[:300])
                    if et == "exception":
                        self.exceptions += 1
                        self.errors.append(f"{e.exception.type}: {e.exception.message[:200]}")
                    w = getattr(e, et, None)
                    wid = getattr(w, "id", "")
                    if wid.startswith("$$ID-"):
                        key = wid.rsplit("-", 1)[-1]
                        self.widgets[key] = (wid, et)
                    elif et == "button" and getattr(w, "label", ""):
                        self.widgets["button:" + w.label] = (w.id, et)
                elif kind == "file_urls_response" and self.pending_urls is not None:
                    self.pending_urls.set_result(m.file_urls_response)
                elif kind == "script_finished":
                    await self.finished.put(m.script_finished)
        except (websockets.ConnectionClosed, asyncio.CancelledError):
            pass

    async def rerun(self, page: str | None = None, triggers: tuple[str, ...] = (), query: str = "") -> float:
        """Request a rerun with the current widget states; seconds until it finished (a full run). ``query``: the
        address's query string (read by the app at a session's first run), the page by its name there when
        its hash is not known yet."""
        while not self.finished.empty():
            self.finished.get_nowait()
        b = BackMsg()
        cs = b.rerun_script
        cs.query_string = query
        cs.page_script_hash = self.pages.get(page, self.page_hash) if page else self.page_hash
        if page and not cs.page_script_hash:
            cs.page_name = page
        for wid, fill in self.states.items():
            ws = cs.widget_states.widgets.add()
            ws.id = wid
            fill(ws)
        for t in triggers:
            ws = cs.widget_states.widgets.add()
            ws.id = t
            ws.trigger_value = True
        t0 = time.perf_counter()
        await self.ws.send(b.SerializeToString())
        while True:
            status = await asyncio.wait_for(self.finished.get(), self.timeout)
            if status == self.FINISHED:
                return time.perf_counter() - t0

    def set_slider(self, key: str, value: float) -> None:
        """Set a gain: a number box (``double_value``) or, on older checkouts, a float slider."""
        wid, kind = self.widgets[key]
        if kind == "number_input":
            self.states[wid] = lambda ws, v=value: setattr(ws, "double_value", v)
        else:
            self.states[wid] = lambda ws, v=value: ws.double_array_value.data.append(v)

    async def upload(self, key: str, files: list[tuple[str, bytes]]) -> None:
        """Upload through /_stcore/upload_file (as the browser does) and set the uploader's state."""
        wid = self.widgets[key][0]
        loop = asyncio.get_running_loop()
        self.pending_urls = loop.create_future()
        b = BackMsg()
        b.file_urls_request.request_id = uuid.uuid4().hex
        b.file_urls_request.session_id = self.session_id
        b.file_urls_request.file_names.extend(n for n, _ in files)
        await self.ws.send(b.SerializeToString())
        resp = await asyncio.wait_for(self.pending_urls, self.timeout)
        infos = []
        for (name, data), urls in zip(files, resp.file_urls, strict=True):
            await loop.run_in_executor(None, _put, self.http + urls.upload_url if urls.upload_url.startswith("/")
                                       else urls.upload_url, name, data, self.xsrf)
            infos.append((urls.file_id, name, len(data), urls))

        def fill(ws, infos=infos):
            st = ws.file_uploader_state_value
            for fid, name, size, urls in infos:
                u = st.uploaded_file_info.add()
                u.file_id, u.name, u.size = fid, name, size
                u.file_urls.CopyFrom(urls)
        self.states[wid] = fill


def _xsrf_cookie(http: str, timeout: float) -> str:
    with urllib.request.urlopen(http + "/_stcore/health", timeout=timeout) as r:
        return r.headers.get("Set-Cookie", "")


def _put(url: str, name: str, data: bytes, xsrf: str) -> None:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(url, data=body, method="PUT",
                                 headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                                          "Cookie": f"_streamlit_xsrf={xsrf}", "X-Xsrftoken": xsrf})
    with urllib.request.urlopen(req, timeout=120) as r:
        r.read()


# -- scenarios ---------------------------------------------------------------------------------------
async def open_session(url: str, timeout: float, page: str = "rankings") -> Session:
    s = Session(url, timeout)
    await s.__aenter__()
    await s.rerun()                      # first run: navigation + sidebar widgets
    if page:
        await s.rerun(page)
    return s


def gain_key(s: Session) -> str:
    """The key of the level-1 gain *box* in the sidebar, as drawn in the latest run (``_gn1_<n>``: the box
    and the slider get fresh keys when another control sets the gain). The box takes any value in
    GAIN_MIN..GAIN_MAX; the slider beside it is a select_slider over fixed stops (about 20 values, sent as
    option indices), so moving it cannot reach 30 new gains and a float sent to it is an error in the
    server's widget state. Older checkouts: the slider ``_gs1`` / ``g1``."""
    fresh = [k for k in s.widgets if k.startswith("_gn1_")]
    if fresh:
        return max(fresh, key=lambda k: int(k.rpartition("_")[2]))
    for k in ("_gs1", "g1"):
        if k in s.widgets:
            return k
    return next(k for k, v in s.widgets.items() if v[1] == "slider")


async def memory(url: str, server: Server | None, counts: list[int], timeout: float) -> dict:
    rows = [{"sessions": "0 (server started)", "rss": server.rss_mib() if server else float("nan")}]
    sessions: list[Session] = []
    prev_n, prev_rss = 0, rows[0]["rss"]
    for n in counts:
        while len(sessions) < n:
            sessions.append(await open_session(url, timeout))
        await asyncio.sleep(1.0)
        rss = server.rss_mib() if server else float("nan")
        rows.append({"sessions": n, "rss": rss, "per_session": (rss - prev_rss) / max(n - prev_n, 1)})
        prev_n, prev_rss = n, rss
    errors = sum(s.exceptions for s in sessions)
    for s in sessions:
        await s.__aexit__()
    return _table("memory", [col("sessions on the built-in data (Rankings page)", "{}", "sessions", right=True),
                             col("server RSS (MiB)", "{:.0f}", "rss", right=True),
                             col("per extra session (MiB)", "{:.1f}", "per_session", right=True)],
                  rows, "Memory, built-in data", [f"exception elements seen: {errors}"])


def clef_files() -> tuple[tuple[str, bytes], tuple[str, bytes]]:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as zf:
        for p in sorted((CLEF / "runs").iterdir()):
            zf.writestr(p.name, p.read_bytes())
    return ("qrels.txt", (CLEF / "qrels.txt").read_bytes()), ("clef2015_runs.zip", b.getvalue())


#: a qrels file to upload instead of clef2015's (--upload-qrels), with clef2015's runs
UPLOAD_QRELS: Path | None = None


async def upload_clef(s: Session, window: list | None = None) -> float:
    """Upload clef2015 and press Load; seconds from the button press to the settled rerun
    (``window`` receives the perf_counter times of the press and of the settled rerun)."""
    (qn, qb), (rn, rb) = clef_files()
    if UPLOAD_QRELS is not None:
        qn, qb = UPLOAD_QRELS.name, UPLOAD_QRELS.read_bytes()
    await s.rerun("data")
    await s.upload("up_qrels", [(qn, qb)])
    await s.upload("up_runs", [(rn, rb)])
    await s.rerun("data")               # the Load button becomes enabled
    button = s.widgets.get("up_load") or s.widgets.get("button:Load these files")
    t = time.perf_counter()
    await s.rerun("data", triggers=(button[0],))
    took = time.perf_counter() - t
    if window is not None:
        window[:] = [t, t + took]
    await s.rerun("data")
    want_topics = s.metrics.get("topics") if UPLOAD_QRELS is not None else "65"   # another qrels: its topics
    if s.metrics.get("topics") != want_topics or s.metrics.get("runs") != "30" or s.error_boxes:
        raise RuntimeError(f"clef2015 did not load: {s.metrics} {s.error_boxes[-1:]}")
    return took


async def memory_uploads(url: str, server: Server | None, n: int, timeout: float) -> dict:
    rows: list[dict] = [{"sessions": 0, "rss": server.rss_mib() if server else float("nan")}]
    sessions = []
    for i in range(n):
        s = await open_session(url, timeout, page="")
        took = await upload_clef(s)
        await s.rerun("rankings")
        sessions.append(s)
        await asyncio.sleep(1.0)
        rows.append({"sessions": i + 1, "rss": server.rss_mib() if server else float("nan"), "load_s": took})
    errors = sum(s.exceptions for s in sessions)
    for s in sessions:
        await s.__aexit__()
    await _after_close(rows, server, "all {n} sessions closed, after {t} s", n)
    return _table("uploads", [col("sessions that uploaded clef2015", "{}", "sessions", right=True),
                              col("server RSS (MiB)", "{:.0f}", "rss", right=True),
                              col("load time (s)", "{:.1f}", "load_s", right=True)],
                  rows, "Memory, uploads", [f"exception elements seen: {errors}"])


async def _after_close(rows: list[dict], server: Server | None, label: str, n: int) -> None:
    """RSS rows 5 s and 30 s after the sessions closed, and past Streamlit's session timeout (120 s,
    server.disconnectedSessionTTL: a closed tab's session is kept that long for a reconnect; its uploads are
    released after it, dashboard.closed_tabs.release_closed)."""
    waited = 0
    for t in (5, 30, 150):
        await asyncio.sleep(t - waited)
        waited = t
        rows.append({"sessions": label.format(n=n, t=t), "moment": label.format(n=n, t=t),
                     "rss": server.rss_mib() if server else float("nan")})


def wide_files(n_topics: int, n_runs: int, depth: int = 10, seed: int = 0) -> tuple[tuple[str, bytes],
                                                                                  tuple[str, bytes]]:
    """A wide collection as files (qrels + a deflated zip of the runs): ``n_topics`` topics x ``n_runs`` runs,
    ``depth`` documents a list, levels 0-3 at random."""
    rng = random.Random(seed)
    q = io.StringIO()
    for t in range(n_topics):
        for d in range(2 * depth):
            q.write(f"t{t} 0 d{d} {rng.choice((0, 0, 0, 1, 1, 2, 3))}\n")
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as zf:
        for r in range(n_runs):
            lines = io.StringIO()
            for t in range(n_topics):
                for k, d in enumerate(rng.sample(range(2 * depth), depth)):
                    lines.write(f"t{t} Q0 d{d} {k + 1} {depth - k} run{r}\n")
            zf.writestr(f"run{r:03d}.txt", lines.getvalue())
    return ("qrels_wide.txt", q.getvalue().encode()), ("wide_runs.zip", b.getvalue())


async def memory_wide(url: str, server: Server | None, n_topics: int, n_runs: int, moves: int,
                      timeout: float) -> dict:
    """One session uploads a wide collection and moves the gain slider ``moves`` times to new values (every
    move a miss for each graded metric): RSS as the moves go, and after the session closed."""
    (qn, qb), (rn, rb) = wide_files(n_topics, n_runs)

    def rss() -> float:
        return server.rss_mib() if server else float("nan")
    rows = [{"moment": "before", "rss": rss()}]
    s = await open_session(url, timeout, page="")
    await s.rerun("data")
    await s.upload("up_qrels", [(qn, qb)])
    await s.upload("up_runs", [(rn, rb)])
    await s.rerun("data")
    button = s.widgets.get("up_load") or s.widgets.get("button:Load these files")
    await s.rerun("data", triggers=(button[0],))
    await s.rerun("data")
    if s.metrics.get("topics") != f"{n_topics:,}".replace(",", "") and s.metrics.get("topics") != f"{n_topics:,}":
        raise RuntimeError(f"the wide collection did not load: {s.metrics} {s.error_boxes[-1:]}")
    rows.append({"moment": "loaded", "rss": rss()})
    await s.rerun("rankings")
    key = gain_key(s)
    for i in range(moves):
        s.set_slider(key, round(1.05 + 8.9 * i / max(moves - 1, 1), 2))
        await s.rerun("rankings")
        if (i + 1) % 10 == 0:
            rows.append({"moment": f"after {i + 1} gain moves", "rss": rss()})
    errors = s.exceptions
    await s.__aexit__()
    await _after_close(rows, server, "session closed, after {t} s", 1)
    what = (f"wide upload ({n_topics:,} topics x {n_runs} runs, {(len(qb) + len(rb)) / MiB:.0f} MB of files), "
            "Rankings page")
    return _table("wide", [col(what, "{}", "moment"), col("server RSS (MiB)", "{:.0f}", "rss", right=True)], rows,
                  f"Memory, a wide upload and {moves} gain moves",
                  [f"exception elements seen: {errors}; error boxes: {len(s.error_boxes)}"])


async def _mover(s: Session, moves: int, rng: random.Random, out: list, errs: list, key: str,
                 until: asyncio.Event | None = None, starts: list | None = None, page: str = "rankings"):
    """``moves`` slider moves (and more until ``until`` is set); each settle time to ``out``."""
    done = 0
    while done < moves or (until is not None and not until.is_set()):
        s.set_slider(key, round(rng.uniform(0.5, 9.5), 2))
        t = time.perf_counter()
        try:
            out.append(await s.rerun(page))
            if starts is not None:
                starts.append(t)
        except TimeoutError:
            errs.append("timeout")
        done += 1
        await asyncio.sleep(rng.uniform(0.0, 0.3))   # a human's pause between moves


LATENCY = [col("p50 (s)", "{:.2f}", "p50", right=True), col("p95 (s)", "{:.2f}", "p95", right=True),
           col("max (s)", "{:.2f}", "max", right=True), col("errors", "{}", "errors", right=True)]


async def latency(url: str, server: Server | None, counts: list[int], moves: int, timeout: float,
                  seed: int, page: str = "rankings", identical: bool = False) -> dict:
    """Slider to settled with N sessions at once, for each N of ``counts``: one row per N (p50, p95, max,
    errors, the server's CPU per move). ``identical``: every session moves to the same values in the same order
    (a class following the teacher), so all but the first session of each move can be served from the shared
    caches."""
    what = f"{page} page" + (", identical settings" if identical else "")
    rows = []
    for n in counts:
        sessions = [await open_session(url, timeout, page=page) for _ in range(n)]
        key = gain_key(sessions[0])
        times: list[float] = []
        errs: list[str] = []
        cpu0 = server.cpu_s() if server else 0.0
        before = sum(s.exceptions + len(s.error_boxes) for s in sessions)   # error boxes count
        await asyncio.gather(*(_mover(s, moves, random.Random(f"{seed}/{page}/{n}/{0 if identical else i}/{identical}"),
                                      times, errs, key, page=page)
                               for i, s in enumerate(sessions)))
        cpu = (server.cpu_s() - cpu0) if server else float("nan")
        exc = sum(s.exceptions + len(s.error_boxes) for s in sessions) - before
        split_ = (" (per process: " + ", ".join(str(x.sessions()) for x in server.servers) + ")"
                  if isinstance(server, Cluster) else "")
        rows.append({"sessions": n, "split": split_, "moves": len(times), "p50": percentile(times, .5),
                     "p95": percentile(times, .95), "max": max(times, default=float("nan")),
                     "errors": len(errs) + exc, "server_cpu_per_move": cpu / max(len(times), 1), "times": times})
        for s in sessions:
            await s.__aexit__()
    tid = f"latency-{page}" + ("-identical" if identical else "")
    return _table(tid, [col(f"concurrent sessions ({what})", "{}{split}", "sessions", right=True),
                        col("moves", "{}", "moves", right=True), *LATENCY,
                        col("server CPU per move (s)", "{:.3f}", "server_cpu_per_move", right=True)],
                  rows, "Slider to settled" + (", identical settings" if identical else ""))


async def freeze(url: str, n: int, moves: int, timeout: float, seed: int) -> dict:
    """n sessions move sliders alone, then while another session uploads and loads clef2015; with the
    upload, only the moves that started between the Load press and the settled load are counted."""
    what = f"{UPLOAD_QRELS.name} + clef2015 runs" if UPLOAD_QRELS is not None else "clef2015"
    rows = []
    for label, with_upload in (("alone", False), (f"during another session's {what} load", True)):
        sessions = [await open_session(url, timeout) for _ in range(n)]
        up = await open_session(url, timeout, page="") if with_upload else None
        times: list[float] = []
        starts: list[float] = []
        errs: list[str] = []
        until = asyncio.Event() if with_upload else None
        window: list[float] = []
        tasks = [_mover(s, moves, random.Random(seed + i), times, errs, gain_key(s), until, starts)
                 for i, s in enumerate(sessions)]
        if up is not None:
            async def do_upload(up=up, until=until, window=window):
                try:
                    await upload_clef(up, window)
                finally:
                    until.set()
            tasks.append(do_upload())
        await asyncio.gather(*tasks)
        if window:
            times = [dt for t, dt in zip(starts, times, strict=True) if window[0] <= t <= window[1]]
            label += f" (load {window[1] - window[0]:.1f} s)"
        exc = sum(s.exceptions for s in sessions)
        rows.append({"case": label, "moves": len(times), "p50": percentile(times, .5), "p95": percentile(times, .95),
                     "max": max(times, default=float("nan")), "errors": len(errs) + exc, "times": times})
        for s in sessions + ([up] if up else []):
            await s.__aexit__()
    return _table("freeze", [col(f"{n} sessions moving sliders", "{}", "case"), col("moves", "{}", "moves", right=True),
                             *LATENCY], rows, "One upload and the others' sliders")


async def long_compute(url: str, n: int, moves: int, timeout: float, seed: int, query: str) -> dict:
    """n sessions move sliders on the Rankings page alone, then while another session opens the Bootstrap page at
    ``query`` (e.g. ``nr=120&nt=50&bsb=5000``: the simulated data's size and a B whose refinement is long); with
    the computation, only the moves that started between its page's open and its result on screen count."""
    rows = []
    for label, with_long in (("alone", False), (f"during another session's Bootstrap page at ?{query}", True)):
        sessions = [await open_session(url, timeout) for _ in range(n)]
        times: list[float] = []
        starts: list[float] = []
        errs: list[str] = []
        until = asyncio.Event() if with_long else None
        window: list[float] = []
        tasks = [_mover(s, moves, random.Random(seed + i), times, errs, gain_key(s), until, starts)
                 for i, s in enumerate(sessions)]
        long_s = Session(url, timeout) if with_long else None
        if long_s is not None:
            await long_s.__aenter__()

            async def do_long(s=long_s, until=until, window=window):
                try:
                    t0 = time.perf_counter()
                    await s.rerun("bootstrap", query=query)     # the page, its quick pass, the refinement, its rerun
                    window.extend([t0, time.perf_counter()])
                finally:
                    until.set()
            tasks.append(do_long())
        await asyncio.gather(*tasks)
        if window:
            times = [dt for t, dt in zip(starts, times, strict=True) if window[0] <= t <= window[1]]
            label += f" ({window[1] - window[0]:.1f} s)"
        exc = sum(s.exceptions + len(s.error_boxes) for s in sessions + ([long_s] if long_s else []))
        rows.append({"case": label, "moves": len(times), "p50": percentile(times, .5), "p95": percentile(times, .95),
                     "max": max(times, default=float("nan")), "errors": len(errs) + exc, "times": times})
        for s in sessions + ([long_s] if long_s else []):
            await s.__aexit__()
    return _table("compute", [col(f"{n} sessions moving sliders (Rankings)", "{}", "case"),
                              col("moves", "{}", "moves", right=True), *LATENCY], rows,
                  "One long computation and the others' sliders")


async def split(url: str, cluster: Cluster, n: int, draws: int, timeout: float) -> dict:
    """How the balancer's sticky hash spreads ``n`` sessions over the processes: ``draws`` times, ``n`` new
    sessions (each a new browser, so a new XSRF cookie to hash) are opened and counted on each process. The
    busiest process's share is the load one core carries in that deployment."""
    p = len(cluster.servers)
    rows = []
    for d in range(draws):
        sessions = [await open_session(url, timeout, page="") for _ in range(n)]
        await asyncio.sleep(0.5)
        per = sorted((x.sessions() for x in cluster.servers), reverse=True)
        if sum(per) != n:
            raise RuntimeError(f"counted {sum(per)} connections for {n} sessions: {per}")
        rows.append({"draw": d + 1, "per_process": per, "busiest": per[0]})
        for x in sessions:
            await x.__aexit__()
        await asyncio.sleep(0.5)
    busiest = [r["busiest"] for r in rows]
    return _table(f"split-{n}", [col(f"{n} sessions over {p} processes, draw", "{}", "draw", right=True),
                                 col("sessions per process", "{}", "per_process"),
                                 col("busiest", "{}", "busiest", right=True)],
                  rows, "Sessions per process (the balancer's sticky hash)",
                  [f"busiest process over {draws} draws: median {percentile(busiest, .5)}, max {max(busiest)} "
                   f"sessions (an even split: {n / p:.1f})"])
