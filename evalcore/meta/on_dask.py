"""The Bootstrap Sensitivity Method and the stability method on Dask: run pairs in chunks as tasks.

Optional (``pip install "evalcore[dask]"``); nothing else in evalcore imports
this module or Dask. It is the pair-chunked path of docs/scaling.md, section 3, for the two
pair-chunked methods (:func:`bootstrap_sensitivity`, :func:`stability`). For the bootstrap:

* the B topic samples are drawn once from the seed
  (:func:`~evalcore.meta.bootstrap_samples`, as in memory) and shared by
  every task;
* one task = one metric x one chunk of run pairs, computed by the same kernel
  as the in-memory path (``bootstrap.pairs_chunk``: the ASL of 003 Sec. 4.3,
  Fig. 5-6, and Fig. 7's estimated difference; Sakai SIGIR 2006), with one
  BLAS thread per task;
* the per-pair columns are concatenated in pair order, and Fig. 7's estimated
  difference is the maximum over the chunks (associative).

A pair's result depends only on its two rows and the shared samples, and the
kernel computes every value with the same floating-point operations whatever
the chunk, so the result equals :func:`evalcore.meta.bootstrap_sensitivity`'s
for the same seed exactly, for any chunk size and scheduler
(tests/test_meta_dask.py). The stability method's tasks count wins, losses
and ties (integers) with the in-memory kernel after one task per metric has
computed the runs' means per trial, so its tables are equal too. What this
path does *not* do yet: the result tables
are still gathered into pandas in the calling process (at 300 runs they are
~100 MB; docs/scaling.md says where that stops), and there is no progress
callback (Dask's own diagnostics show progress: ``dask.diagnostics.ProgressBar``
or the distributed dashboard).
"""
from __future__ import annotations

__all__ = ["bootstrap_sensitivity", "stability"]

from collections.abc import Mapping

import numpy as np

from .._exact import fmat_imat
from ._common import check_positive_int, one_blas_thread, pair_chunks, work_arrays, zero_rounding, zero_tolerance
from .bootstrap import BootstrapResult, bootstrap_result, pairs_chunk, prepare_bootstrap
from .stability import StabilityResult, count_chunk, fast_path_ok, prepare_stability, stability_result

#: Default pairs per task of the bootstrap: about 43 MB of (pairs x B) work arrays at B = 1000.
PAIRS_PER_TASK = 1300
#: Default pairs per task of the stability method: about 20 MB of work arrays at B = 1000 (its kernel is
#: a few comparisons per cell, so a task's cost is mostly touching fresh memory; measured at 300 runs:
#: 5,200 pairs per task took 4x the CPU of the in-memory path)
STABILITY_PAIRS_PER_TASK = 500


def _task(M: np.ndarray, pi: np.ndarray, pj: np.ndarray, Ct: np.ndarray, c: int, ks: list[int]):
    """One metric's chunk of pairs (in a Dask worker)."""
    with one_blas_thread():
        return pairs_chunk(zero_rounding(M[pi] - M[pj], zero_tolerance(M)), Ct, c, ks)


def _dask():
    try:
        import dask
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('evalcore.meta.on_dask needs Dask: pip install "evalcore[dask]"') from None
    return dask


def bootstrap_sensitivity(scores: Mapping[str, np.ndarray], *, run_ids=None, B: int = 1000, seed: int | None = 0,
                          alpha=0.05, samples: np.ndarray | None = None, pairs_per_task: int = PAIRS_PER_TASK,
                          scheduler=None) -> BootstrapResult:
    """:func:`evalcore.meta.bootstrap_sensitivity` computed as Dask tasks of ``pairs_per_task`` pairs.

    Same parameters and the same result (equal tables for the same seed); in addition:

    pairs_per_task : run pairs per task (default :data:`PAIRS_PER_TASK`); a task holds about
        33 x B bytes per pair of work arrays
    scheduler : passed to ``dask.compute``: None (Dask's default for delayed tasks: a thread pool),
        "threads", "processes", "synchronous", or a ``dask.distributed.Client``'s scheduler

    Example (not a doctest: Dask is optional; tests/test_meta_dask.py runs it)::

        from evalcore.meta import bootstrap_sensitivity as in_memory
        s = {"M": np.random.default_rng(0).random((6, 12))}
        bootstrap_sensitivity(s, B=200, pairs_per_task=4).pairs.equals(in_memory(s, B=200).pairs)   # True
    """
    dask = _dask()
    pairs_per_task = check_positive_int(pairs_per_task, "pairs_per_task")
    metrics, mats, ids, alphas, samples, Ct, pi, pj, ks = prepare_bootstrap(scores, run_ids, B, seed, alpha, samples)
    c = samples.shape[1]
    P = pi.size
    chunks = pair_chunks(P, 1, budget=pairs_per_task, min_chunks=1)   # pairs_per_task pairs per slice
    task = dask.delayed(_task, pure=True)
    shared = dask.delayed(Ct, pure=True)  # one copy in the graph, not one per task
    graph = {}
    for m in metrics:
        M = dask.delayed(mats[m], pure=True)
        graph[m] = [task(M, pi[sl], pj[sl], shared, c, ks) for sl in chunks]
    done = dask.compute(graph, scheduler=scheduler)[0]
    per_metric = {}
    for m in metrics:
        parts = done[m]
        est = np.zeros(len(alphas))
        for p in parts:
            est = np.maximum(est, p[3])
        per_metric[m] = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                         np.concatenate([p[2] for p in parts]), est)
    return bootstrap_result(per_metric, ids, pi, pj, alphas, ks, samples, seed)


def _means(M: np.ndarray, Ct: np.ndarray, c: int) -> np.ndarray:
    """Every run's mean per trial (in a Dask worker): one product per metric, as in memory."""
    with one_blas_thread():
        return fmat_imat(M, Ct) / c          # the same exact sums as in memory


def _stability_task(means: np.ndarray, pi: np.ndarray, pj: np.ndarray, fz: tuple, fast: bool):
    """Wins, losses and ties of one chunk of pairs (in a Dask worker)."""
    W = np.zeros((len(fz), pi.size), dtype=np.int64)
    L, T = np.zeros_like(W), np.zeros_like(W)
    count_chunk(means, pi, pj, fz, fast, W, L, T, work_arrays(pi.size, means.shape[1], *[np.float64] * 5, np.bool_))
    return W, L, T


def stability(scores: Mapping[str, np.ndarray], *, run_ids=None, subset_size: int | None = None, B: int = 1000,
              seed: int | None = 0, fuzziness=(0.01, 0.02, 0.05, 0.1), replacement: bool = False,
              samples: np.ndarray | None = None, pairs_per_task: int = STABILITY_PAIRS_PER_TASK,
              scheduler=None) -> StabilityResult:
    """:func:`evalcore.meta.stability` (002's stability method) computed as Dask tasks of run pairs.

    One task per metric computes every run's mean per trial (the same product as in memory), then one
    task per (metric, chunk of ``pairs_per_task`` pairs) counts wins, losses and ties with the in-memory
    kernel; counts are integers, so the tables equal the in-memory ones for the same seed. Same
    parameters as :func:`evalcore.meta.stability`, plus ``pairs_per_task`` (default
    :data:`STABILITY_PAIRS_PER_TASK`; ~41 bytes x B of work arrays per pair) and ``scheduler`` (as
    for :func:`bootstrap_sensitivity`). On one machine this path is slower than the in-memory one
    (its kernel is cheap, so the tasks' overhead dominates; docs/benchmarks.md, section 7): its
    point is a cluster.
    """
    dask = _dask()
    pairs_per_task = check_positive_int(pairs_per_task, "pairs_per_task")
    metrics, mats, ids, fz, samples, Ct, pi, pj = prepare_stability(scores, run_ids, subset_size, B, seed, fuzziness,
                                                                  replacement, samples)
    P = pi.size
    chunks = pair_chunks(P, 1, budget=pairs_per_task, min_chunks=1)   # pairs_per_task pairs per slice
    # the means are small (runs x B): computed first, so that every chunk task knows the fast path
    means = dict(zip(metrics,
                     dask.compute(*[dask.delayed(_means, pure=True)(mats[m], Ct, samples.shape[1]) for m in metrics],
                                  scheduler=scheduler), strict=True))
    task = dask.delayed(_stability_task, pure=True)
    graph = {}
    for m in metrics:
        mm = dask.delayed(means[m], pure=True)
        fast = fast_path_ok(means[m])
        graph[m] = [task(mm, pi[sl], pj[sl], fz, fast) for sl in chunks]
    done = dask.compute(graph, scheduler=scheduler)[0]
    counts = {m: tuple(np.concatenate([part[k] for part in done[m]], axis=1) for k in range(3)) for m in metrics}
    return stability_result(counts, ids, fz, pi, pj, samples, seed, replacement)
