"""The Bootstrap Sensitivity Method on Dask: pairs in chunks as tasks, for a thread pool, processes or a cluster.

Optional (``pip install "evalcore[dask]"``); nothing else in evalcore imports
this module or Dask. It is the pair-chunked path of docs/scaling.md, section 3:

* the B topic samples are drawn once from the seed
  (:func:`~evalcore.meta.bootstrap_samples`, as in memory) and shared by
  every task;
* one task = one metric x one chunk of run pairs, computed by the same kernel
  as the in-memory path (``bootstrap._pairs_chunk``: the ASL of 003 Sec. 4.3,
  Fig. 5-6, and Fig. 7's estimated difference; Sakai SIGIR 2006), with one
  BLAS thread per task;
* the per-pair columns are concatenated in pair order, and Fig. 7's estimated
  difference is the maximum over the chunks (associative).

A pair's result depends only on its two rows and the shared samples, and the
kernel computes every value with the same floating-point operations whatever
the chunk, so the result equals :func:`evalcore.meta.bootstrap_sensitivity`'s
for the same seed exactly, for any chunk size and scheduler
(tests/test_meta_dask.py). What this path does *not* do yet: the result tables
are still gathered into pandas in the calling process (at 300 runs they are
~100 MB; docs/scaling.md says where that stops), and there is no progress
callback (Dask's own diagnostics show progress: ``dask.diagnostics.ProgressBar``
or the distributed dashboard).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._common import check_positive_int, one_blas_thread
from .bootstrap import BootstrapResult, _pairs_chunk, _result, _setup

#: Default pairs per task: about 64 MB of (pairs x B) work arrays at B = 1000.
PAIRS_PER_TASK = 1300


def _task(M: np.ndarray, pi: np.ndarray, pj: np.ndarray, Ct: np.ndarray, c: int, ks: list[int]):
    """One metric's chunk of pairs (in a Dask worker)."""
    with one_blas_thread():
        return _pairs_chunk(M[pi] - M[pj], Ct, c, ks)


def bootstrap_sensitivity(scores: Mapping[str, np.ndarray], *, run_ids=None, B: int = 1000, seed: int | None = 0,
                          alpha=0.05, samples: np.ndarray | None = None, pairs_per_task: int = PAIRS_PER_TASK,
                          scheduler=None) -> BootstrapResult:
    """:func:`evalcore.meta.bootstrap_sensitivity` computed as Dask tasks of ``pairs_per_task`` pairs.

    Same parameters and the same result (equal tables for the same seed); in addition:

    pairs_per_task : run pairs per task (default :data:`PAIRS_PER_TASK`); a task holds about
        48 x B bytes per pair of work arrays
    scheduler : passed to ``dask.compute``: None (Dask's default for delayed tasks: a thread pool),
        "threads", "processes", "synchronous", or a ``dask.distributed.Client``'s scheduler

    Example (not a doctest: Dask is optional; tests/test_meta_dask.py runs it)::

        from evalcore.meta import bootstrap_sensitivity as in_memory
        s = {"M": np.random.default_rng(0).random((6, 12))}
        bootstrap_sensitivity(s, B=200, pairs_per_task=4).pairs.equals(in_memory(s, B=200).pairs)   # True
    """
    try:
        import dask
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('evalcore.meta.on_dask needs Dask: pip install "evalcore[dask]"') from None
    pairs_per_task = check_positive_int(pairs_per_task, "pairs_per_task")
    metrics, mats, ids, alphas, samples, Ct, pi, pj, ks = _setup(scores, run_ids, B, seed, alpha, samples)
    c = samples.shape[1]
    P = pi.size
    chunks = [slice(s, min(s + pairs_per_task, P)) for s in range(0, P, pairs_per_task)]
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
    return _result(per_metric, ids, pi, pj, alphas, ks, samples, seed)
