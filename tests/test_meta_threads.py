"""The resampling methods on a pool of threads (evalcore.meta._parallel).

Why tables may be compared with exact equality here (the project's rule is a tolerance between floats
summed in different orders): no float in these tables is summed in an order that depends on the
threads or the chunks. The products over topics are the exact integer-weighted sums of evalcore._exact
(every partial sum an integer below 2^53, so any order gives the same bits), the per-pair columns are
written into disjoint slices, the cross-chunk reductions are integer counts and maxima, and Tukey's
permutations come from one random stream per 10 trials whichever thread draws them. So 1, 2 and 5
threads (5 is more than this 2-core machine has) and different chunk sizes must give bit for bit the
same tables; the values themselves are checked against the plain per-pair loops of
test_meta_reference.py with several threads.
"""
from __future__ import annotations

import importlib
import threading

import numpy as np
import pytest
from test_meta_reference import ref_bootstrap_pair, ref_stability, ref_swap, ref_tukey

from evalcore.meta import (
    Cancelled,
    bootstrap_samples,
    bootstrap_sensitivity,
    pair_statistics,
    repeat,
    sample_topics,
    stability,
    swap_method,
    tukey_hsd,
)
from evalcore.meta._parallel import MAX_THREADS, THREADS_ENV, machine_threads, resolve_threads

THREADS = (1, 2, 5)
# the modules (evalcore.meta's names bootstrap_sensitivity / stability are the functions)
bmod = importlib.import_module("evalcore.meta.bootstrap")
smod = importlib.import_module("evalcore.meta.stability")


def _scores(seed: int = 0, n_runs: int = 12, n_topics: int = 25) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.beta(0.6, 1.2, size=(n_runs, n_topics))
    b = np.round(rng.random((n_runs, n_topics)), 1)   # many ties
    b[3] = b[2]                                       # identical runs
    b[5] = b[4] + 0.25                                # a constant difference
    return {"A": a, "B": b}


def _frames_equal(x, y, names) -> None:
    for n in names:
        assert getattr(x, n).equals(getattr(y, n)), n


@pytest.mark.parametrize("chunk_bytes", [None, 1])
def test_bootstrap_same_tables_for_any_threads_and_chunks(monkeypatch, chunk_bytes):
    s = _scores(1)
    ref = bootstrap_sensitivity(s, B=300, seed=4, alpha=(0.05, 0.01), threads=1)
    if chunk_bytes is not None:                       # one pair per chunk: hundreds of tasks
        monkeypatch.setattr(bmod, "CHUNK_BYTES", chunk_bytes)
    for t in THREADS:
        _frames_equal(bootstrap_sensitivity(s, B=300, seed=4, alpha=(0.05, 0.01), threads=t), ref,
                      ("pairs", "summary", "asl_curves"))


def test_bootstrap_with_threads_equals_the_plain_loop():
    rng = np.random.default_rng(8)
    M = rng.beta(0.7, 1.3, size=(7, 20))
    M[4] = M[2]
    samples = bootstrap_samples(20, B=150, seed=2)
    r = bootstrap_sensitivity({"M": M}, samples=samples, threads=5)
    asl = [ref_bootstrap_pair(M[x], M[y], samples, alpha=0.05)[0] for x in range(7) for y in range(x + 1, 7)]
    assert r.pairs["asl"].tolist() == asl


@pytest.mark.parametrize("chunk_bytes", [None, 1])
def test_stability_same_tables_for_any_threads_and_chunks(monkeypatch, chunk_bytes):
    s = _scores(2)
    s["N"] = -s["A"]                                  # negative means: the kernel's general path
    for kw in ({"B": 120, "seed": 3}, {"B": 97, "seed": 5, "replacement": True, "fuzziness": (0.0, 0.3)}):
        ref = stability(s, threads=1, **kw)
        if chunk_bytes is not None:
            monkeypatch.setattr(smod, "CHUNK_BYTES", chunk_bytes)
        for t in THREADS:
            _frames_equal(stability(s, threads=t, **kw), ref, ("summary", "pairs"))
        monkeypatch.undo()


def test_stability_with_threads_equals_the_plain_loop():
    M = np.random.default_rng(9).random((6, 12))
    samples = np.argsort(np.random.default_rng(1).random((40, 12)), axis=1)[:, :6]
    r = stability({"M": M}, samples=samples, fuzziness=(0.05,), threads=5)
    err, ties, W, L, T = ref_stability(M, samples, 0.05)
    assert r.pairs["wins"].tolist() == W and r.pairs["losses"].tolist() == L and r.pairs["ties"].tolist() == T
    assert r.summary["error_rate"].iloc[0] == pytest.approx(err, rel=1e-12)


def test_swap_same_tables_for_any_threads():
    s = _scores(3, n_runs=15)
    for kw in ({"B": 101, "seed": 1}, {"B": 64, "seed": 2, "sampling": "disjoint", "rule": "004"}):
        ref = swap_method(s, threads=1, **kw)
        for t in THREADS:
            _frames_equal(swap_method(s, threads=t, **kw), ref, ("curves", "summary"))


def test_swap_with_threads_equals_the_plain_loop():
    M = np.random.default_rng(12).beta(0.6, 1.2, size=(7, 30))
    Q, Q2 = sample_topics(30, sampling="replacement", B=60, seed=3)
    r = swap_method({"M": M}, samples=(Q, Q2), bin_width=0.02, n_bins=11, threads=5)
    count, swaps, _ = ref_swap(M, Q, Q2, width=0.02, n_bins=11)
    assert r.curves["count"].tolist() == count.tolist() and r.curves["swaps"].tolist() == swaps.tolist()


@pytest.mark.parametrize("block", [1, 3, 250])
def test_tukey_same_tables_for_any_threads_and_blocks(block):
    s = _scores(4)
    ref = tukey_hsd(s, B=257, seed=9, alpha=(0.05, 0.01), threads=1)
    for t in THREADS:
        got = tukey_hsd(s, B=257, seed=9, alpha=(0.05, 0.01), threads=t, block=block)
        _frames_equal(got, ref, ("pairs", "summary"))
        for m in s:
            assert np.array_equal(got.ranges[m], ref.ranges[m])


def test_tukey_with_threads_equals_the_plain_loop():
    rng = np.random.default_rng(5)
    M = rng.random((5, 8))
    perms = np.stack([np.stack([rng.permutation(5) for _ in range(8)], axis=1) for _ in range(37)])
    r = tukey_hsd({"M": M}, permutations=perms, threads=5)
    assert r.pairs["p_value"].tolist() == ref_tukey(M, perms)


def test_pair_statistics_same_table_for_any_threads():
    s = _scores(6)
    s["A"][1, 3] = np.nan                             # a missing score: the NaN-aware path
    ref = pair_statistics(s, B=200, seed=2, threads=1)
    for t in THREADS:
        assert pair_statistics(s, B=200, seed=2, threads=t).pairs.equals(ref.pairs)


def test_repeat_passes_threads():
    s = _scores(7)
    a = repeat("tukey", s, repeats=2, B=60, seed=1, threads=1)
    b = repeat("tukey", s, repeats=2, B=60, seed=1, threads=3)
    assert a.spread.equals(b.spread)


def test_progress_runs_in_the_calling_thread_and_cancels():
    s = _scores(8, n_runs=20)
    where, seen = set(), []

    def progress(f):
        where.add(threading.get_ident())
        seen.append(f)

    bootstrap_sensitivity(s, B=100, threads=4, progress=progress)
    assert where == {threading.get_ident()} and seen[-1] == 1.0 and max(np.diff(seen)) <= 0.051
    for fn in (bootstrap_sensitivity, stability, swap_method, tukey_hsd, pair_statistics):
        with pytest.raises(Cancelled):
            fn(s, B=100, threads=4, progress=lambda f: f >= 0.3)


def test_thread_count_resolution(monkeypatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert resolve_threads() == machine_threads() >= 1
    assert resolve_threads(7) == 7
    monkeypatch.setenv(THREADS_ENV, "3")
    assert resolve_threads() == 3 and resolve_threads(2) == 2          # the argument wins
    for bad in ("0", "-2", "x", "2.5", str(MAX_THREADS + 1)):
        monkeypatch.setenv(THREADS_ENV, bad)
        with pytest.raises(ValueError, match=f"environment variable {THREADS_ENV} must be a whole number from 1"):
            resolve_threads()
    monkeypatch.delenv(THREADS_ENV)
    for bad in (0, -1, 1.5, True, MAX_THREADS + 1, "4"):
        with pytest.raises(ValueError, match="threads must be a whole number from 1 to 1,024"):
            bootstrap_sensitivity(_scores(), B=10, threads=bad)


# -- rounding tolerance: one per metric matrix, whatever the chunks ------------------------------------
def _rounding_scale_scores():
    """Run 0 sets the matrix's scale (scores near 1, so the tolerance is 1e-13); runs 1 and 2 score near 1e-3
    and differ by 3e-15 on every topic: rounding at the matrix's scale (<= 1e-13), not at their own
    (1e-13 x 1e-3 = 1e-16). A tolerance taken from a chunk's rows or differences would call them different.
    Returns (the scores, the same with run 2 exactly equal to run 1)."""
    rng = np.random.default_rng(8)
    M = np.vstack([rng.uniform(0.9, 1.0, 16), rng.uniform(1e-3, 2e-3, 16), np.zeros(16), rng.uniform(0, 1, 16)])
    M[2] = M[1] + 3e-15
    assert np.all(M[2] != M[1]) and np.abs(M[2] - M[1]).max() < 1e-13 * np.abs(M).max()
    tied = M.copy()
    tied[2] = M[1]
    return {"M": M}, {"M": tied}


def _pair_12(frame, cols):
    return frame.loc[(frame.run_x == "1") & (frame.run_y == "2"), cols].iloc[0].tolist()


def test_rounding_tolerance_is_the_matrix_s_for_any_chunks_and_threads(monkeypatch):
    s, tied = _rounding_scale_scores()
    monkeypatch.setattr(bmod, "CHUNK_BYTES", 1)       # one pair per chunk: the pair (1, 2) alone in its chunk
    for threads in THREADS:
        b = bootstrap_sensitivity(s, B=200, seed=2, threads=threads).pairs
        assert _pair_12(b, ["mean_diff", "t", "asl"]) == [0.0, 0.0, 1.0]          # identical runs: ASL = 1
        assert b.asl.equals(bootstrap_sensitivity(tied, B=200, seed=2, threads=threads).pairs.asl)
        p = pair_statistics(s, tests=("t", "wilcoxon", "sign"), threads=threads).pairs
        assert _pair_12(p, ["mean_diff", "p_t", "p_wilcoxon", "p_sign"]) == [0.0, 1.0, 1.0, 1.0]
        # the swap method: D of the pair (1, 2) is 0 on every trial, a swap under 003's rule, as for tied rows
        sw = swap_method(s, B=60, seed=1, threads=threads).curves
        assert sw.equals(swap_method(tied, B=60, seed=1, threads=threads).curves)
    assert int(sw["swaps"].iloc[0]) >= 60                              # bin 0 holds the pair's 60 swaps


def test_rounding_tolerance_on_dask_tasks_of_one_pair():
    pytest.importorskip("dask")
    from evalcore.meta import on_dask

    s, tied = _rounding_scale_scores()
    b = on_dask.bootstrap_sensitivity(s, B=200, seed=2, pairs_per_task=1, scheduler="synchronous").pairs
    assert _pair_12(b, ["mean_diff", "t", "asl"]) == [0.0, 0.0, 1.0]
    sw = on_dask.swap_method(s, B=60, seed=1, scheduler="synchronous").curves
    assert sw.equals(swap_method(tied, B=60, seed=1, threads=1).curves)


def test_pool_waits_on_a_bounded_window_of_tasks(monkeypatch):
    """Each wait of the pool looks at a few tasks per thread, not at every pending one: waiting on all of
    a method's thousands of pair chunks registered with every pending future on each wait, quadratic in
    the chunks (docs/benchmarks.md section 15.2)."""
    pmod = importlib.import_module("evalcore.meta._parallel")
    sizes: list[int] = []
    real_wait = pmod.wait

    def counting_wait(fs, **kw):
        sizes.append(len(fs))
        return real_wait(fs, **kw)

    monkeypatch.setattr(pmod, "wait", counting_wait)
    gate = threading.Event()

    def task(i):
        gate.wait(5)                                  # every task pending until the first wait has been made
        return i * i

    threading.Timer(0.2, gate.set).start()
    out = pmod.run_tasks(task, range(300), 3, blas=False)
    assert out == [i * i for i in range(300)]
    assert sizes and max(sizes) <= pmod.WINDOW_PER_THREAD * 3


def test_each_method_defaults_to_the_threads_measured_to_help(monkeypatch):
    """docs/benchmarks.md sections 15.1-15.2 (16 cores): swap and Tukey scale to every core; the bootstrap and
    stability are fastest at 4 threads and slower at 16; the pair statistics were not measured (one)."""
    from evalcore.meta import _parallel
    monkeypatch.delenv(THREADS_ENV, raising=False)
    for cores, want in ((16, {"swap": 16, "tukey": 16, "bootstrap": 4, "stability": 4, "pairs": 1}),
                        (2, {"swap": 2, "tukey": 2, "bootstrap": 2, "stability": 2, "pairs": 1})):
        monkeypatch.setattr(_parallel, "machine_threads", lambda cores=cores: cores)
        assert {m: resolve_threads(None, m) for m in want} == want
        monkeypatch.setenv(THREADS_ENV, "7")
        assert {resolve_threads(None, m) for m in want} == {7}          # the setting wins for every method
        monkeypatch.delenv(THREADS_ENV)


@pytest.mark.parametrize("method, fn", [("bootstrap", lambda sc, **kw: bootstrap_sensitivity(sc, B=200, **kw)),
                                        ("stability", lambda sc, **kw: stability(sc, B=200, **kw)),
                                        ("swap", lambda sc, **kw: swap_method(sc, B=200, **kw))])
def test_the_default_gives_small_data_one_thread_and_an_explicit_count_is_obeyed(method, fn, monkeypatch):
    """MIN_WORK_PER_THREAD: by default a call of 45 pairs x B = 200 (9,000, far below every method's
    minimum per thread) runs its chunks on one thread even on 16 cores; threads=3 runs them on 3."""
    P = importlib.import_module("evalcore.meta._parallel")
    mod = importlib.import_module("evalcore.meta._workers")       # the runner of every method's tasks
    monkeypatch.delenv("EVALCORE_THREADS", raising=False)
    monkeypatch.delenv("EVALCORE_WORKERS", raising=False)
    monkeypatch.setattr(P, "machine_threads", lambda: 16)
    seen = []
    real = mod.run_tasks
    monkeypatch.setattr(mod, "run_tasks", lambda f, tasks, threads, *a, **k: (seen.append(threads),
                                                                              real(f, tasks, threads, *a, **k))[1])
    sc = {"M": np.random.default_rng(0).random((10, 8))}
    fn(sc)
    assert seen and set(seen) == {1}
    seen.clear()
    fn(sc, threads=3)
    assert set(seen) == {3}
