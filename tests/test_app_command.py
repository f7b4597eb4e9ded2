"""``evalcore app``: the server it starts stops on a signal to the command, and says where it serves."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("streamlit")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _processes_serving(port: int) -> list[int]:
    """Processes (Linux /proc) whose command line runs streamlit on ``port``."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"streamlit" in b" ".join(cmd) and f"--server.port={port}".encode() in cmd:
                out.append(int(d.name))
    return out


def _default_signals() -> None:
    """The child starts with SIGHUP's default action, as under a service manager: a test run started under
    ``nohup`` passes SIGHUP on ignored, and a server that inherits that ignores the hang-up, as nohup asks."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="POSIX signals, Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, pytest.param(signal.SIGHUP, marks=pytest.mark.slow)])
def test_a_signal_to_evalcore_app_stops_the_server_and_frees_the_port(tmp_path, sig):
    """A service manager or ``docker stop`` signals the command's process only (not its group): the server
    must stop with it, not run on as an orphan still answering on the port."""
    port = _free_port()
    log = tmp_path / "log"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with log.open("w") as fh:
        # a new session: the signal reaches this one process, as kill PID from a service manager does
        proc = subprocess.Popen([sys.executable, "-m", "evalcore", "app", "--app-dir", str(ROOT), "--port", str(port)],
                                cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                preexec_fn=_default_signals)
    try:
        deadline = time.monotonic() + 90
        while not _open(port):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not open its port in 90 s:\n" + log.read_text()
            time.sleep(0.2)
        assert _processes_serving(port) == [proc.pid]   # the command became the server: one process, same id
        os.kill(proc.pid, sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _open(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _open(port), "the port still answers after the signal"
        assert _processes_serving(port) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in _processes_serving(port):      # an orphaned server (the old subprocess.call) is ours to end
            os.kill(pid, signal.SIGKILL)
    text = log.read_text()
    assert f"http://localhost:{port}" in text     # the address to open, printed by the command and by Streamlit
    assert "Did not auto detect external IP" not in text and "External URL" not in text


def test_evalcore_app_options_choose_port_and_address():
    from evalcore.cli import build_parser
    from evalcore.cli.app import streamlit_command
    from evalcore.cli.options import OptionError

    def cmd(*argv):
        args = build_parser("app").parse_args(["app", *argv])
        return streamlit_command(ROOT / "app.py", args)[4:]

    serve = str(ROOT / "dashboard" / "serve.py")      # app.py as an st.App that tells the browser its base address
    assert cmd() == [serve, "--server.port=8501", "--server.address=localhost",
                     "--browser.serverAddress=localhost"]
    assert cmd("--port", "9000", "--address", "0.0.0.0") == [
        serve, "--server.port=9000", "--server.address=0.0.0.0", "--browser.serverAddress=localhost"]
    assert cmd("--address", "10.0.0.5")[-1] == "--browser.serverAddress=10.0.0.5"
    # Streamlit's own options still pass through, and win where they set the same thing
    assert cmd("--", "--server.port", "8600", "--browser.serverAddress=example.org") == [
        serve, "--server.address=localhost", "--server.port", "8600",
        "--browser.serverAddress=example.org"]
    assert "--server.address=localhost" not in cmd("--", "--server.address=127.0.0.2")
    with pytest.raises(ValueError, match="--port or -- --server.port"):
        cmd("--port", "9000", "--", "--server.port=9001")
    with pytest.raises(OptionError, match="--port must be >= 1 and <= 65,535"):
        cmd("--port", "70000")


def _listening(port: int) -> set[str]:
    """The local addresses listening on TCP ``port``, as the system sees them (``ss -ltn``, else
    /proc/net/tcp and tcp6)."""
    import shutil
    if shutil.which("ss"):
        out = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True,
                             timeout=30).stdout
        return {line.split()[3].rsplit(":", 1)[0].strip("[]") for line in out.splitlines() if line.strip()}
    found = set()
    for name in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            host, p = local.split(":")
            if state == "0A" and int(p, 16) == port:
                raw = bytes.fromhex(host)
                if len(raw) == 4:
                    found.add(socket.inet_ntop(socket.AF_INET, raw[::-1]))
                else:
                    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                    found.add(socket.inet_ntop(socket.AF_INET6, words))
    return found


@pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(), reason="Linux sockets")
@pytest.mark.parametrize("address, want", [
    (None, {"127.0.0.1", "::1"}),
    pytest.param("0.0.0.0", {"0.0.0.0"}, marks=pytest.mark.slow),
])
def test_evalcore_app_listens_on_the_loopback_unless_told(tmp_path, address, want):
    """``evalcore app`` as a user starts it in the checkout: by default the listening socket is the loopback's
    only (127.0.0.1 and, where the machine has IPv6, ::1), never every interface; ``--address`` chooses
    another."""
    port = _free_port()
    log = tmp_path / "log"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    argv = [sys.executable, "-m", "evalcore", "app", "--app-dir", str(ROOT), "--port", str(port)]
    argv += [] if address is None else ["--address", address]
    with log.open("w") as fh:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not _listening(port):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not listen in 90 s:\n" + log.read_text()
            time.sleep(0.2)
        time.sleep(0.5)                         # both families bound
        seen = _listening(port)
        assert seen and seen <= want, seen
        assert "127.0.0.1" in seen or "0.0.0.0" in seen, seen
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
