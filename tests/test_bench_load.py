"""The load benchmark's own measuring helpers (benchmarks/dashboard_load.py, for ``bench_dashboard.py --mode
load``): the per-process session count that the "sessions per process" table and the pinned one-process-per-core
simulation rest on."""
import os
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
dashboard_load = pytest.importorskip("dashboard_load")

pytestmark = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc/net/tcp")


def test_established_counts_the_open_connections_to_one_port():
    with socket.socket() as listener, socket.socket() as other:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        other.bind(("127.0.0.1", 0))
        other.listen(8)
        port = listener.getsockname()[1]
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        stray = socket.create_connection(("127.0.0.1", other.getsockname()[1]))   # another port: not counted
        accepted = [listener.accept()[0] for _ in clients]
        try:
            assert dashboard_load.established(port) == 3
            clients[0].close()
            accepted[0].close()
            assert dashboard_load.established(port) == 2
        finally:
            for s in clients + accepted + [stray]:
                s.close()


def test_pin_plan_gives_each_server_a_core_and_the_clients_the_rest():
    cores = sorted(os.sched_getaffinity(0))
    assert dashboard_load.pin_plan(3, False) == ([None, None, None], None)
    pins, rest = dashboard_load.pin_plan(1, True)
    assert pins == [{cores[0]}]
    assert rest == (set(cores[1:]) or None)
    pins, rest = dashboard_load.pin_plan(len(cores) + 1, True)      # more servers than cores: they wrap round
    assert pins[-1] == {cores[0]} and rest is None
