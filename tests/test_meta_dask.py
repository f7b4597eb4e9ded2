"""The optional Dask path of the bootstrap, stability, swap and randomised Tukey methods
(docs/scaling.md).

References: the in-memory :func:`evalcore.meta.bootstrap_sensitivity` and
:func:`evalcore.meta.stability` (themselves checked against plain per-pair loops and the papers'
examples in test_meta_bootstrap.py and test_meta_stability_tukey.py). The Dask path must give equal
tables, bit for bit, for the same seed, whatever the chunking and the scheduler: exact equality is
right here because no float is summed in a chunk-dependent order (the products are the exact sums of
evalcore._exact, the reductions integer counts and maxima; Tukey's streams are drawn alike).
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask")
from evalcore.meta import bootstrap_sensitivity, on_dask, stability, swap_method, tukey_hsd  # noqa: E402


def _scores(seed: int, n_runs: int = 9, n_topics: int = 14) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random((n_runs, n_topics))
    b = np.round(rng.random((n_runs, n_topics)), 1)   # many ties
    b[3] = b[2]                                       # identical runs (ASL 1)
    b[5] = b[4] + 0.25                                # a constant difference (t infinite)
    return {"A": a, "B": b}


def _equal(x, y) -> None:
    assert x.pairs.equals(y.pairs)
    assert x.summary.equals(y.summary)
    assert x.asl_curves.equals(y.asl_curves)
    assert np.array_equal(x.samples, y.samples) and (x.B, x.alphas) == (y.B, y.alphas)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("per_task", [1, 5, 36, 1000])
def test_equals_the_in_memory_path(seed, per_task):
    s = _scores(seed)
    ref = bootstrap_sensitivity(s, B=150, seed=seed, alpha=(0.05, 0.01, 0.3))
    _equal(on_dask.bootstrap_sensitivity(s, B=150, seed=seed, alpha=(0.05, 0.01, 0.3), pairs_per_task=per_task,
                                         scheduler="synchronous"), ref)


@pytest.mark.parametrize("scheduler", ["threads", "synchronous", None])
def test_any_local_scheduler_same_result(scheduler):
    s = _scores(7, n_runs=16, n_topics=30)            # 120 pairs in 10 tasks
    ref = bootstrap_sensitivity(s, B=300, seed=11, run_ids=[f"r{i}" for i in range(16)])
    got = on_dask.bootstrap_sensitivity(s, B=300, seed=11, run_ids=[f"r{i}" for i in range(16)],
                                        pairs_per_task=12, scheduler=scheduler)
    _equal(got, ref)
    assert got.pairs["run_x"].iloc[0] == "r0" and len(got.pairs) == 2 * 120


def test_given_samples_and_the_checks_of_the_in_memory_path():
    s = _scores(3)
    samples = np.random.default_rng(5).integers(0, 14, (64, 14))
    _equal(on_dask.bootstrap_sensitivity(s, samples=samples, pairs_per_task=7),
           bootstrap_sensitivity(s, samples=samples))
    with pytest.raises(ValueError, match="pairs_per_task"):
        on_dask.bootstrap_sensitivity(s, pairs_per_task=0)
    with pytest.raises(ValueError, match="alpha must lie in"):
        on_dask.bootstrap_sensitivity(s, alpha=5)
    with pytest.raises(ValueError, match="at least 2 topics"):
        on_dask.bootstrap_sensitivity({"M": s["A"][:, :1]})


def test_the_docstring_example():
    s = {"M": np.random.default_rng(0).random((6, 12))}
    assert on_dask.bootstrap_sensitivity(s, B=200, pairs_per_task=4).pairs.equals(
        bootstrap_sensitivity(s, B=200).pairs)


@pytest.mark.parametrize("per_task", [1, 7, 1000])
@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
def test_stability_equals_the_in_memory_path(per_task, scheduler):
    s = _scores(4, n_runs=10, n_topics=16)
    s["N"] = -s["A"]                                   # negative means: the kernel's general path
    for kw in ({"B": 120, "seed": 3}, {"B": 90, "seed": 5, "replacement": True, "fuzziness": (0.0, 0.3)}):
        ref = stability(s, **kw)
        got = on_dask.stability(s, pairs_per_task=per_task, scheduler=scheduler, **kw)
        assert got.pairs.equals(ref.pairs) and got.summary.equals(ref.summary)
        assert np.array_equal(got.samples, ref.samples) and (got.B, got.subset_size) == (ref.B, ref.subset_size)
    with pytest.raises(ValueError, match="fuzziness"):
        on_dask.stability(s, fuzziness=(1.5,))


@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
def test_swap_equals_the_in_memory_path(scheduler):
    s = _scores(5, n_runs=11, n_topics=18)
    for kw in ({"B": 90, "seed": 1}, {"B": 70, "seed": 2, "sampling": "disjoint", "rule": "004"}):
        ref = swap_method(s, **kw)
        got = on_dask.swap_method(s, scheduler=scheduler, **kw)
        assert got.curves.equals(ref.curves) and got.summary.equals(ref.summary)
        assert np.array_equal(got.Q, ref.Q) and np.array_equal(got.Q2, ref.Q2)


@pytest.mark.parametrize("per_task", [None, 1, 3])
@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
def test_tukey_equals_the_in_memory_path(per_task, scheduler):
    s = _scores(6, n_runs=8, n_topics=12)
    ref = tukey_hsd(s, B=133, seed=5, alpha=(0.05, 0.2))
    got = on_dask.tukey_hsd(s, B=133, seed=5, alpha=(0.05, 0.2), streams_per_task=per_task, scheduler=scheduler,
                            block=3)
    assert got.pairs.equals(ref.pairs) and got.summary.equals(ref.summary)
    for m in s:
        assert np.array_equal(got.ranges[m], ref.ranges[m])


def _read_parquet(path):
    import pandas as pd
    pytest.importorskip("pyarrow")
    df = pd.read_parquet(path)
    df["metric"] = df["metric"].astype(str)
    for col in ("run_x", "run_y"):
        df[col] = df[col].astype(str)
    return df


def test_to_parquet_writes_the_pairs_and_keeps_the_summaries(tmp_path):
    s = _scores(8, n_runs=10, n_topics=15)
    s["P(rel=2)@5"] = s.pop("B")                       # a label that needs quoting as a folder name
    ids = [f"run{i}" for i in range(10)]
    keys = ["metric", "run_x", "run_y"]
    ref = bootstrap_sensitivity(s, B=120, seed=3, alpha=(0.05, 0.01), run_ids=ids)
    got = on_dask.bootstrap_sensitivity(s, B=120, seed=3, alpha=(0.05, 0.01), run_ids=ids, pairs_per_task=7,
                                        scheduler="threads", to_parquet=tmp_path / "boot")
    assert got.summary.equals(ref.summary) and len(got.pairs) == 0
    assert list(got.pairs.columns) == list(ref.pairs.columns)
    df = _read_parquet(tmp_path / "boot").sort_values(keys).reset_index(drop=True)
    want = ref.pairs.sort_values(keys).reset_index(drop=True)
    assert sorted(set(df["metric"])) == sorted(s)
    for col in ("run_x", "run_y", "mean_diff", "t", "asl", "significant"):
        assert df[col].tolist() == want[col].tolist(), col

    ref_s = stability(s, B=80, seed=2, run_ids=ids)
    got_s = on_dask.stability(s, B=80, seed=2, run_ids=ids, pairs_per_task=9, to_parquet=tmp_path / "stab")
    assert got_s.summary.equals(ref_s.summary) and len(got_s.pairs) == 0
    df = _read_parquet(tmp_path / "stab").sort_values(keys + ["fuzziness"]).reset_index(drop=True)
    want = ref_s.pairs.sort_values(keys + ["fuzziness"]).reset_index(drop=True)
    for col in ("fuzziness", "wins", "losses", "ties"):
        assert df[col].tolist() == want[col].tolist(), col

    ref_t = tukey_hsd(s, B=60, seed=1, run_ids=ids)
    got_t = on_dask.tukey_hsd(s, B=60, seed=1, run_ids=ids, to_parquet=tmp_path / "tukey")
    assert got_t.summary.equals(ref_t.summary)
    df = _read_parquet(tmp_path / "tukey").sort_values(keys).reset_index(drop=True)
    want = ref_t.pairs.sort_values(keys).reset_index(drop=True)
    assert df["p_value"].tolist() == want["p_value"].tolist()

    with pytest.raises(ValueError, match="exists and is not an empty directory"):
        on_dask.bootstrap_sensitivity(s, B=50, to_parquet=tmp_path / "boot")


def test_a_distributed_local_cluster_gives_the_same_tables(plain_main):
    pytest.importorskip("distributed")
    s = _scores(9, n_runs=9, n_topics=14)
    with on_dask.dask_client(workers=2) as client:
        assert sum(client.nthreads().values()) == 2
        got_b = on_dask.bootstrap_sensitivity(s, B=100, seed=1, scheduler=client)
        got_s = on_dask.stability(s, B=100, seed=1, scheduler=client)
        got_w = on_dask.swap_method(s, B=100, seed=1, scheduler=client)
        got_t = on_dask.tukey_hsd(s, B=100, seed=1, scheduler=client)
    _equal(got_b, bootstrap_sensitivity(s, B=100, seed=1))
    ref_s, ref_w, ref_t = stability(s, B=100, seed=1), swap_method(s, B=100, seed=1), tukey_hsd(s, B=100, seed=1)
    assert got_s.pairs.equals(ref_s.pairs) and got_s.summary.equals(ref_s.summary)
    assert got_w.curves.equals(ref_w.curves) and got_w.summary.equals(ref_w.summary)
    assert got_t.pairs.equals(ref_t.pairs)
    with pytest.raises(ValueError, match="not both"):
        with on_dask.dask_client("tcp://127.0.0.1:1", workers=1):
            pass


def test_tukey_repetitions_on_one_local_cluster_lose_no_data(plain_main):
    """The 16-worker run of docs/benchmarks.md section 15.1 failed with "lost dependencies": each Tukey call
    scattered {metric: scores}, which distributed keys by the dict's keys, and the release of one call's pieces
    removed the next call's data of the same names. Several calls and repetitions on one cluster of 2 worker
    processes, with the other methods in between as the report runs them, give the in-memory tables."""
    pytest.importorskip("distributed")
    from evalcore.meta import repeat

    s = _scores(5, n_runs=12, n_topics=15)
    with on_dask.dask_client(workers=2) as client:
        calls = [on_dask.tukey_hsd(s, B=120, seed=2, scheduler=client) for _ in range(3)]
        spread = {m: repeat(m, s, repeats=3, B=80, seed=4, on_dask=True, scheduler=client).per_repeat
                  for m in ("tukey", "swap", "tukey", "stability", "bootstrap")}
    ref = tukey_hsd(s, B=120, seed=2, workers=1)
    assert all(c.pairs.equals(ref.pairs) and c.summary.equals(ref.summary) for c in calls)
    for m, got in spread.items():
        assert got.equals(repeat(m, s, repeats=3, B=80, seed=4, workers=1).per_repeat), m
