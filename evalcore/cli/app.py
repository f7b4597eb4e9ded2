"""``evalcore app``: start the Streamlit dashboard (needs the ``app`` extra: ``pip install "evalcore-ir[app]"``).

The dashboard (``app.py``, ``views/``, ``dashboard/``) lives in the source
checkout beside the ``evalcore`` package, not inside it (evalcore stays free
of Streamlit); a wheel ships it as the data package ``evalcore_app`` (the
script and pages, copied at build time by setup.py) plus the ``dashboard``
package. The command looks for ``app.py`` in ``--app-dir``, else the current
directory, the checkout evalcore was installed from, then the installed
``evalcore_app``.

Signals: on POSIX the command *becomes* the Streamlit server (``os.execve``:
same process id), so ``kill PID``, a service manager's stop or a container's
SIGTERM reach the server itself, which shuts down and frees the port; on
Windows, which has no exec, the server runs as a child and the command waits,
stopping it (terminate, then kill) when it is interrupted.

The address served on: Streamlit listens on every network interface unless told otherwise, so the command
always passes ``--server.address``: ``localhost`` (the loopback, this machine only) unless ``--address`` (or
``-- --server.address``) says otherwise; the checkout's ``.streamlit/config.toml`` says ``localhost`` too, for
``streamlit run app.py`` started by hand. tests/test_app_command.py checks the listening socket.

The address printed: Streamlit looks up the machine's *external* IP on start
(an HTTP request to a public service) and, offline, logs "Did not auto detect
external IP" as a warning, which reads like a failure. The command sets
``browser.serverAddress`` (the address Streamlit prints) to the host it serves
on, ``localhost`` by default, so no lookup is made, and prints that address
itself; ``--address 0.0.0.0`` serves other machines too.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

#: Streamlit's default port, and the host the dashboard is served on and printed as unless --address says
DEFAULT_PORT, DEFAULT_ADDRESS = 8501, "localhost"


def register(sub, data: argparse.ArgumentParser) -> None:
    a = sub.add_parser("app", help="start the Streamlit dashboard (needs: pip install \"evalcore-ir[app]\")",
                       description="Start the dashboard on the built-in simulated collection "
                                   "(streamlit run app.py) at http://localhost:8501; --port and --address "
                                   "choose where. Extra arguments go to streamlit, e.g. "
                                   "'evalcore app -- --server.maxUploadSize 4096'. The command becomes the "
                                   "server (same process id): Ctrl-C or kill PID stops it.")
    a.add_argument("--app-dir", metavar="DIR", help="the checkout holding app.py (default: the current "
                   "directory, then the checkout evalcore was installed from)")
    a.add_argument("--port", type=_port, default=None, metavar="N",
                   help=f"the port to serve on (default {DEFAULT_PORT}; a port in use is an error naming it)")
    a.add_argument("--address", metavar="HOST", default=None,
                   help=f"the address to serve on (default {DEFAULT_ADDRESS}: this machine only; 0.0.0.0: every "
                        "interface, for other machines - the dashboard has no login)")
    a.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    a.add_argument("streamlit_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    a.set_defaults(func=run_app)


def _port(text: str) -> int:
    from .options import number
    return number("--port", int, 1, 65535)(text)


def _installed_app() -> Path | None:
    """The dashboard a wheel installed (package ``evalcore_app``), found without importing it."""
    spec = importlib.util.find_spec("evalcore_app")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if (Path(loc) / "app.py").is_file():
            return Path(loc)
    return None


def find_app(app_dir: str | None) -> Path:
    candidates = [Path(app_dir)] if app_dir else [Path.cwd(), Path(__file__).resolve().parents[2]]
    for d in candidates:
        if (d / "app.py").is_file() and (d / "dashboard").is_dir():
            return (d / "app.py").resolve()
    installed = None if app_dir else _installed_app()
    if installed is not None:
        return (installed / "app.py").resolve()
    where = ", ".join(str(d) for d in candidates)
    raise ValueError(f"no dashboard (app.py with dashboard/ beside it) in {where}; install it with "
                     "pip install \"evalcore-ir[app]\" (the wheel ships the dashboard), run 'evalcore app' from a "
                     "source checkout, or pass --app-dir CHECKOUT")


def server_script(app: Path) -> Path:
    """What ``streamlit run`` is given: the dashboard's ``dashboard/serve.py`` (app.py as a Streamlit ``st.App``
    that tells the browser where the server is: without it every page opened by its address asks two addresses
    that do not exist first, two 404s in the browser's console), else app.py itself."""
    serve = app.parent / "dashboard" / "serve.py"
    return serve if serve.is_file() else app


def streamlit_command(app: Path, args) -> list[str]:
    """``python -m streamlit run SERVER`` (:func:`server_script`) with the port, the address and the printed address
    (``browser.serverAddress``, which also spares Streamlit its external-IP lookup) unless the extra arguments set
    them."""
    extra = [x for x in args.streamlit_args if x != "--"]

    def given(option: str) -> bool:
        return any(x == option or x.startswith(option + "=") for x in extra)

    if args.port is not None and given("--server.port"):
        raise ValueError("give the port once: --port or -- --server.port, not both")
    if args.address is not None and given("--server.address"):
        raise ValueError("give the address once: --address or -- --server.address, not both")
    opts = []
    if not given("--server.port"):
        opts.append(f"--server.port={DEFAULT_PORT if args.port is None else args.port}")
    if not given("--server.address"):
        opts.append(f"--server.address={DEFAULT_ADDRESS if args.address is None else args.address}")
    if not given("--browser.serverAddress"):
        shown = args.address if args.address not in (None, "", "0.0.0.0", "::") else DEFAULT_ADDRESS
        opts.append(f"--browser.serverAddress={shown}")
    return [sys.executable, "-m", "streamlit", "run", str(server_script(app)), *opts, *extra]


def _option(cmd: list[str], name: str) -> str | None:
    last = None
    for x in cmd:
        if x.startswith(f"--{name}="):
            last = x.split("=", 1)[1]
    return last


def run_app(args) -> int:
    app = find_app(args.app_dir)
    if importlib.util.find_spec("streamlit") is None:
        raise ValueError("the dashboard needs streamlit and plotly: pip install \"evalcore-ir[app]\" "
                         "(or pip install -r requirements.txt)")
    cmd = streamlit_command(app, args)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    # one BLAS thread per server process (app.py sets it too, when it runs before numpy is loaded); two malloc
    # arenas, so that memory freed after an upload goes back to the system instead of staying in per-thread
    # arenas (docs/reliability.md, "Memory budget"); the user's own settings win
    env = {**{v: "1" for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")},
           "MALLOC_ARENA_MAX": "2", **os.environ}
    _sweep_staging(app, env)
    host, port = _option(cmd, "browser.serverAddress"), _option(cmd, "server.port")
    if host and port:
        print(f"evalcore app: starting the dashboard at http://{host}:{port} (process {os.getpid()}; Ctrl-C or "
              f"kill {os.getpid()} stops it)", file=sys.stderr, flush=True)
    return _run(cmd, cwd=app.parent, env=env)


def _sweep_staging(app: Path, env: dict[str, str]) -> None:
    """Remove a killed server's leftover upload staging before this server starts (the dashboard's
    ``dashboard.staging.sweep_stale``; app.py sweeps again at the first page run, which ``streamlit run``
    starts only when a browser connects). Run in a child interpreter from the app's folder: evalcore never
    imports the dashboard. A sweep that fails leaves the directories to that first page run."""
    try:
        subprocess.run([sys.executable, "-c", "from dashboard import staging; staging.sweep_stale()"],
                       cwd=str(app.parent), env=env, timeout=60, capture_output=True, check=False)
    except (OSError, subprocess.SubprocessError):
        pass


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> int:
    """Run the server so that a signal to this process stops it (see the module's docstring)."""
    if hasattr(os, "execve") and os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.chdir(cwd)
        os.execve(cmd[0], cmd, env)   # does not return
    child = subprocess.Popen(cmd, cwd=str(cwd), env=env)
    try:
        return child.wait()
    except BaseException:             # KeyboardInterrupt or SystemExit from a handler: stop the server too
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        raise
