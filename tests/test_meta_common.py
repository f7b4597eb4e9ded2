"""Plumbing of evalcore.meta used by the pair-chunked methods: row counts and the BLAS thread limit."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from evalcore.meta._common import count_rows, one_blas_thread


@pytest.mark.parametrize("width", [1, 999, 1 << 16, (1 << 16) + 3])
def test_count_rows_equals_count_nonzero(width):
    # both branches: uint16 sums below 65,536 columns, int64 from there on (a uint16 would wrap)
    rng = np.random.default_rng(width)
    m = rng.random((3, width)) < 0.7
    m[1] = True
    assert count_rows(m).tolist() == np.count_nonzero(m, axis=1).tolist()
    assert count_rows(m).dtype == np.int64


def _blas_threads():
    from threadpoolctl import threadpool_info
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_one_blas_thread_limits_and_restores():
    pytest.importorskip("threadpoolctl")
    before = _blas_threads()
    with one_blas_thread():
        assert set(_blas_threads()) == {1}
        with one_blas_thread():
            assert set(_blas_threads()) == {1}
        assert set(_blas_threads()) == {1}          # the inner exit does not restore early
    assert _blas_threads() == before


def test_one_blas_thread_concurrent_users_restore_once(monkeypatch):
    # two overlapping users in threads (the dashboard runs page scripts in threads): the limit is set
    # by the first to enter and restored only when the last one leaves. A recording controller stands
    # in for threadpoolctl's: OpenBLAS itself ignores a later set_num_threads from a second thread
    # once the main thread has set it (observed with numpy 2.4's scipy-openblas 0.3.31).
    from evalcore.meta import _common
    calls = []

    class Limiter:
        def restore_original_limits(self):
            calls.append("restore")

    class Controller:
        def limit(self, limits, user_api):
            calls.append(("limit", limits, user_api))
            return Limiter()

    monkeypatch.setitem(_common._blas_state, "controller", Controller())
    entered, release = threading.Barrier(2), threading.Event()

    def user(wait):
        with one_blas_thread():
            entered.wait(5)
            if wait:
                release.wait(5)

    t1, t2 = threading.Thread(target=user, args=(True,)), threading.Thread(target=user, args=(False,))
    t1.start(), t2.start()
    t2.join(5)
    assert calls == [("limit", 1, "blas")]          # t1 is still inside: not restored
    release.set()
    t1.join(5)
    assert calls == [("limit", 1, "blas"), "restore"]
    with pytest.raises(KeyError):
        with one_blas_thread():
            raise KeyError("boom")                  # an error inside still restores
    assert calls[-1] == "restore" and _common._blas_state["depth"] == 0
