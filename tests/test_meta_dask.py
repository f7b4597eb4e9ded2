"""The optional Dask path of the Bootstrap Sensitivity Method and the stability method
(docs/scaling.md).

References: the in-memory :func:`evalcore.meta.bootstrap_sensitivity` and
:func:`evalcore.meta.stability` (themselves checked against plain per-pair loops and the papers'
examples in test_meta_bootstrap.py and test_meta_stability_tukey.py). The Dask path must give equal
tables, bit for bit, for the same seed, whatever the chunking and the scheduler.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask")
from evalcore.meta import bootstrap_sensitivity, on_dask, stability  # noqa: E402


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
