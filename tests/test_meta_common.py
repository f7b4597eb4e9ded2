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


# -- pair_table: one per-pair table from blocks of the same pairs ----------------------------------------
def _blockwise(ids, pi, pj, keys, columns):
    """The definition: one DataFrame per block, concatenated (how the methods built their tables before)."""
    import pandas as pd
    names = np.asarray(list(ids), dtype=object)
    frames = []
    for b in range(len(next(iter(keys.values())))):
        frames.append(pd.DataFrame({**{k: v[b] for k, v in keys.items()},
                                    "run_x": list(names[pi]), "run_y": list(names[pj]),
                                    **{c: a[b] for c, a in columns.items()}}))
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("n_runs,blocks", [(2, 1), (5, 1), (7, 3), (30, 8)])
def test_pair_table_equals_one_frame_per_block_concatenated(n_runs, blocks):
    import pandas as pd

    from evalcore.meta._common import pair_index, pair_table
    rng = np.random.default_rng(n_runs)
    pi, pj = pair_index(n_runs)
    ids = [f"r{i}" for i in rng.permutation(n_runs)]
    keys = {"metric": [f"M{b // 2}" for b in range(blocks)], "fuzziness": [0.01 * (b % 2 + 1) for b in range(blocks)]}
    columns = {"wins": [rng.integers(0, 9, pi.size) for _ in range(blocks)],
               "asl": [rng.random(pi.size) for _ in range(blocks)],
               "significant": [rng.random(pi.size) < 0.5 for _ in range(blocks)]}
    got = pair_table(ids, pi, pj, keys, columns)
    pd.testing.assert_frame_equal(got, _blockwise(ids, pi, pj, keys, columns), check_exact=True)
    # the table owns its numbers: changing the inputs afterwards leaves it as it was
    before = got.copy()
    for a in columns["wins"]:
        a[:] = -1
    pd.testing.assert_frame_equal(got, before, check_exact=True)


def test_pair_table_takes_a_stacked_column_as_it_is_and_checks_its_length():
    import pandas as pd

    from evalcore.meta._common import pair_index, pair_table
    pi, pj = pair_index(4)
    stacked = np.arange(2 * pi.size, dtype=np.int64)
    got = pair_table(["a", "b", "c", "d"], pi, pj, {"metric": ["M", "N"]}, {"wins": stacked})
    assert got["wins"].tolist() == list(range(12))
    assert got["metric"].tolist() == ["M"] * 6 + ["N"] * 6
    assert got["run_x"].tolist() == ["a", "a", "a", "b", "b", "c"] * 2
    assert np.shares_memory(got["wins"].to_numpy(), stacked)      # handed over, not copied
    with pytest.raises(ValueError, match="2 blocks of 6 pairs need 12 values; got an array of shape"):
        pair_table(["a", "b", "c", "d"], pi, pj, {"metric": ["M", "N"]}, {"wins": stacked[:11]})
    assert isinstance(got, pd.DataFrame)


@pytest.mark.parametrize("n_runs", [0, 1, 2, 3, 7, 64, 401])
def test_pair_index_is_the_upper_triangle(n_runs):
    from evalcore.meta._common import pair_index
    pi, pj = pair_index(n_runs)
    ti, tj = np.triu_indices(n_runs, k=1)
    assert pi.dtype == pj.dtype == np.intp
    assert np.array_equal(pi, ti) and np.array_equal(pj, tj)
