"""The bootstrap, stability, swap and randomised Tukey methods on Dask: chunks of pairs and trials as tasks.

Optional (``pip install "evalcore-ir[dask]"``; ``dask.distributed`` for a cluster); nothing else in
evalcore imports this module or Dask at import time. docs/scaling.md, sections 3-4, describes the design:

* the random draws are made once in the caller, from the seed, as in memory (the bootstrap, stability
  and swap topic samples; Tukey's per-stream ``SeedSequence`` children, :func:`evalcore.meta.tukey.trial_streams`);
* what every task reads (the score matrices, the topic counts, the run means, the run ids) is sent to the
  workers once: ``Client.scatter`` with a ``dask.distributed`` client, one graph key per object with the
  local schedulers; a task itself receives only a range of pairs or of trials (two integers);
* a task is a contiguous range of run pairs (or of Tukey's random streams) processed with the in-memory
  kernels, looping over cache-sized chunks with work arrays kept per worker thread; tasks are sized so
  that there are about 4 per worker thread (``pairs_per_task`` overrides it);
* the cross-task reductions are concatenations in pair order, integer counts summed and maxima, so
  the tables equal the in-memory ones for the same seed, bit for bit, for any task size, scheduler
  and number of workers (tests/test_meta_dask.py);
* ``to_parquet=DIR``: the per-pair tables are written by the tasks themselves as Parquet files
  partitioned by metric (``DIR/metric=<name>/part-00000.parquet``; run ids dictionary-encoded, pyarrow,
  no pandas in the tasks), and only the summaries come back to the caller: discriminative power (the
  bootstrap's significant counts and Fig. 7 estimate, Tukey's), stability's error rate and ties, the
  swap bins (swap has no per-pair table). The result's ``pairs`` (and ``asl_curves``) are then empty
  frames with the usual columns; read the pairs with ``pandas.read_parquet(DIR)`` or
  ``dask.dataframe.read_parquet(DIR)``. DIR must be reachable by every worker (a shared file system).

``scheduler``: None (Dask's default for delayed tasks: a thread pool), "threads", "synchronous",
"processes", a ``dask.distributed.Client``, or a scheduler address ("tcp://host:8786"). See
:func:`dask_client` for a local cluster of N single-threaded worker processes. No progress callback:
Dask's own diagnostics show progress (the distributed dashboard, ``dask.diagnostics.ProgressBar``).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import contextmanager
from urllib.parse import quote

import numpy as np
import pandas as pd

from .._exact import fmat_imat
from ._common import check_positive_int, pair_range, zero_rounding, zero_tolerance
from ._parallel import WorkCache, machine_threads, split_range
from .bootstrap import CHUNK_BYTES as BOOT_CHUNK_BYTES
from .bootstrap import BootstrapResult, bootstrap_result, count_bits, pairs_chunk, prepare_bootstrap
from .stability import CHUNK_BYTES as STAB_CHUNK_BYTES
from .stability import StabilityResult, count_chunk, fast_path_ok, prepare_stability, stability_result
from .swap import (
    ROW_BUDGET,
    SwapResult,
    distinct_rows,
    prepare_swap,
    row_blocks,
    swap_hist,
    swap_means,
    swap_result,
    task_groups,
)
from .tukey import (
    BLOCK_CELLS,
    TRIALS_PER_STREAM,
    TukeyResult,
    stream_ranges,
    trial_streams,
    tukey_pvalues,
    tukey_result,
)

__all__ = ["bootstrap_sensitivity", "dask_client", "stability", "swap_method", "tukey_hsd"]

__all__ = ["bootstrap_sensitivity", "stability", "swap_method", "tukey_hsd", "dask_client", "TASKS_PER_THREAD"]

#: Tasks per worker thread when ``pairs_per_task`` is not given: enough for the scheduler to balance
#: the load, few enough that a task's fixed cost (scheduling, one result message) stays small.
TASKS_PER_THREAD = 4
#: Kept for callers of the earlier API: explicit task sizes still work (``pairs_per_task=``).
PAIRS_PER_TASK = None
STABILITY_PAIRS_PER_TASK = None

_WORK = WorkCache()          # work arrays per worker thread, reused by its next task


def _aligned(*arrays):
    """The arrays, copied where they are not aligned: an array scattered by ``dask.distributed`` can
    arrive at an unaligned address, and numpy's kernels on unaligned data fall off their vectorised
    loops (docs/scaling.md section 4, docs/benchmarks.md section 17). A copy costs one pass over the
    array per task."""
    out = tuple(a if not isinstance(a, np.ndarray) or a.flags.aligned else np.array(a) for a in arrays)
    return out if len(out) > 1 else out[0]


def _dask():
    try:
        import dask
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('evalcore.meta.on_dask needs Dask: pip install "evalcore-ir[dask]"') from None
    return dask


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None):
    """A ``dask.distributed.Client`` for ``scheduler`` (an address) or a new ``LocalCluster`` of ``workers``
    single-threaded worker processes, closed on exit; yields None when neither is given.

    One thread per worker process: the kernels hold the GIL in places, so processes scale where
    threads of one process would wait for each other."""
    if scheduler is None and workers is None:
        yield None
        return
    if scheduler is not None and workers is not None:
        raise ValueError("give a scheduler address or a number of local workers, not both")
    try:
        from distributed import Client, LocalCluster  # type: ignore[import-not-found, unused-ignore]
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('a Dask scheduler or workers need dask.distributed: '
                          'pip install "evalcore-ir[dask]"') from None
    if workers is not None:
        workers = check_positive_int(workers, "workers")
        # dask.distributed starts its workers with MALLOC_TRIM_THRESHOLD_=65536, which also fixes glibc's
        # mmap threshold at 128 KB: every temporary array above it is then mapped and unmapped afresh, and
        # the kernels here make many (pairs x B) temporaries, each paying its page faults again (the cost:
        # docs/scaling.md section 4). Without the variable, glibc's default (an adaptive threshold)
        # applies, as in the caller.
        dask = _dask()
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return
    client = Client(scheduler)
    try:
        yield client
    finally:
        client.close()


class _Runner:
    """Runs tasks on a distributed client (inputs scattered once) or on a local Dask scheduler."""

    def __init__(self, scheduler):
        self.dask = _dask()
        self.client = None
        self.own = None
        if isinstance(scheduler, str) and "://" in scheduler:
            from distributed import Client  # type: ignore[import-not-found, unused-ignore]
            self.client = self.own = Client(scheduler)
        elif type(scheduler).__name__ == "Client" and hasattr(scheduler, "scatter"):
            self.client = scheduler
        self.scheduler = None if self.client is not None else scheduler

    def threads(self) -> int:
        if self.client is not None:
            return max(1, sum(self.client.nthreads().values()))
        if self.scheduler == "synchronous":
            return 1
        return machine_threads()

    def share(self, obj):
        """``obj`` as every task will read it: scattered to every worker once, or one graph key."""
        if self.client is not None:
            # scattered as one item of a list, so that it gets a key of its own: a dict scattered as it is
            # becomes one piece of data per dict key, keyed by the dict's keys ("AP", ...), and the release
            # of an earlier call's pieces removed a later call's data of the same names from the workers
            # ("lost dependencies" in Tukey's tasks, every repetition scattering {metric: scores})
            return self.client.scatter([obj], broadcast=True, hash=False)[0]
        return self.dask.delayed(obj, pure=True, traverse=False)

    def map(self, fn, argsets: list) -> list:
        if self.client is not None:
            futures = [self.client.submit(fn, *args, pure=False) for args in argsets]
            return self.client.gather(futures)
        task = self.dask.delayed(fn, pure=True)
        return list(self.dask.compute(*[task(*args) for args in argsets], scheduler=self.scheduler))

    def close(self):
        if self.own is not None:
            self.own.close()


def _task_ranges(n: int, n_jobs: int, threads: int, per_task: int | None) -> list[tuple[int, int]]:
    if per_task is not None:
        per_task = check_positive_int(per_task, "pairs_per_task")
        return [(s, min(s + per_task, n)) for s in range(0, n, per_task)]
    return split_range(n, -(-TASKS_PER_THREAD * threads // max(n_jobs, 1)))


def _check_parquet(path) -> str | None:
    if path is None:
        return None
    path = os.fspath(path)
    if os.path.exists(path) and (not os.path.isdir(path) or os.listdir(path)):
        raise ValueError(f"to_parquet: {path} exists and is not an empty directory; give a new or empty one "
                         "(parts of an earlier result would be mixed into this one)")
    try:
        import pyarrow  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("to_parquet needs pyarrow: pip install pyarrow") from None
    os.makedirs(path, exist_ok=True)
    return path


def _write_part(path: str, metric: str, part: int, ids: list, pi: np.ndarray, pj: np.ndarray, columns: dict) -> None:
    """One task's rows as ``path/metric=<metric>/part-<part>.parquet`` (pyarrow; run ids as dictionaries)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    where = os.path.join(path, "metric=" + quote(str(metric), safe=""))
    os.makedirs(where, exist_ok=True)
    names = pa.array(ids, pa.string())
    table = pa.table({"run_x": pa.DictionaryArray.from_arrays(pa.array(pi.astype(np.int32)), names),
                      "run_y": pa.DictionaryArray.from_arrays(pa.array(pj.astype(np.int32)), names),
                      **{k: pa.array(v) for k, v in columns.items()}})
    pq.write_table(table, os.path.join(where, f"part-{part:05d}.parquet"))


# -- the bootstrap ---------------------------------------------------------------------------------
def _boot_task(M, tol, Ct, c, ks, n_runs, start, stop, alphas, part, path, ids, metric):
    """ASL, mean difference, t and Fig. 7's estimate of pairs start..stop-1 (in a worker); ``tol``: the
    metric's rounding tolerance, computed by the caller from the whole matrix."""
    from ._common import one_blas_thread, pair_chunks

    M, Ct = _aligned(M, Ct)
    B = Ct.shape[1]
    n = stop - start
    asl, mdiff, tobs = np.empty(n), np.empty(n), np.empty(n)
    est = np.zeros(len(ks))
    chunks = pair_chunks(n, 8 * (6 * B + 3 * Ct.shape[0]), budget=BOOT_CHUNK_BYTES, min_chunks=1)
    work = _WORK.get(max(sl.stop - sl.start for sl in chunks), B, *[np.float64] * 4, np.bool_)
    pi, pj = pair_range(n_runs, start, stop)
    bits = count_bits(Ct)
    with one_blas_thread():
        for sl in chunks:
            z = zero_rounding(M[pi[sl]] - M[pj[sl]], tol)
            asl[sl], mdiff[sl], tobs[sl], e = pairs_chunk(z, Ct, c, ks, work, bits)
            est = np.maximum(est, e)
    if path is None:
        return asl, mdiff, tobs, est
    _write_part(path, metric, part, ids, pi, pj, {"mean_diff": mdiff, "t": tobs, "asl": asl,
                                                  "significant": asl < alphas[0]})
    return np.array([np.sum(asl < a) for a in alphas]), est


def bootstrap_sensitivity(scores: Mapping[str, np.ndarray], *, run_ids=None, B: int = 1000, seed: int | None = 0,
                          alpha=0.05, samples: np.ndarray | None = None, pairs_per_task: int | None = None,
                          scheduler=None, to_parquet=None) -> BootstrapResult:
    """:func:`evalcore.meta.bootstrap_sensitivity` computed as Dask tasks of run pairs.

    Same parameters and the same result (equal tables for the same seed); in addition:

    pairs_per_task : run pairs per task (default: about :data:`TASKS_PER_THREAD` tasks per worker thread)
    scheduler : as in the module docstring
    to_parquet : a new directory: the pairs are written there, partitioned by metric, and the result's
        ``pairs`` and ``asl_curves`` are empty (the summary is computed from the tasks' counts)

    Example (not a doctest: Dask is optional; tests/test_meta_dask.py runs it)::

        from evalcore.meta import bootstrap_sensitivity as in_memory
        s = {"M": np.random.default_rng(0).random((6, 12))}
        bootstrap_sensitivity(s, B=200, pairs_per_task=4).pairs.equals(in_memory(s, B=200).pairs)   # True
    """
    if pairs_per_task is not None:
        check_positive_int(pairs_per_task, "pairs_per_task")
    metrics, mats, ids, alphas, samples, Ct, pi, pj, ks = prepare_bootstrap(scores, run_ids, B, seed, alpha, samples)
    path = _check_parquet(to_parquet)
    c = samples.shape[1]
    P, n_runs = pi.size, len(ids)
    run = _Runner(scheduler)
    try:
        ranges = _task_ranges(P, len(metrics), run.threads(), pairs_per_task)
        ct, sid = run.share(Ct), run.share(ids if path is not None else None)
        argsets: list = []
        where: list = []
        for m in metrics:
            M, tol = run.share(mats[m]), zero_tolerance(mats[m])
            for k, (a, b) in enumerate(ranges):
                argsets.append((M, tol, ct, c, ks, n_runs, a, b, alphas, len(where), path, sid, m))
                where.append((m, k))
        done = run.map(_boot_task, argsets)
    finally:
        run.close()
    if path is None:
        per_metric = {}
        for m in metrics:
            parts = [r for (m2, _), r in zip(where, done, strict=True) if m2 == m]
            est = np.zeros(len(alphas))
            for p in parts:
                est = np.maximum(est, p[3])
            per_metric[m] = tuple(np.concatenate([p[q] for p in parts]) for q in range(3)) + (est,)
        return bootstrap_result(per_metric, ids, pi, pj, alphas, ks, samples, seed)
    from ._common import round_sig
    rows = []
    for m in metrics:
        parts = [r for (m2, _), r in zip(where, done, strict=True) if m2 == m]
        nsig = np.sum([p[0] for p in parts], axis=0)
        est = np.max([p[1] for p in parts], axis=0)
        for q, a in enumerate(alphas):
            raw = est[q] if ks[q] >= 1 else float("nan")
            rows.append({"metric": m, "alpha": a, "n_significant": int(nsig[q]), "n_pairs": P,
                         "pct_significant": 100.0 * int(nsig[q]) / P, "estimated_diff": round_sig(raw, 2),
                         "estimated_diff_raw": raw})
    pairs = pd.DataFrame({"metric": pd.Series(dtype=object), "run_x": pd.Series(dtype=object),
                          "run_y": pd.Series(dtype=object), "mean_diff": np.empty(0), "t": np.empty(0),
                          "asl": np.empty(0), "significant": np.empty(0, dtype=bool)})
    curves = pd.DataFrame({"metric": pd.Series(dtype=object), "pair_rank": np.empty(0, dtype=np.int64),
                           "asl": np.empty(0)})
    return BootstrapResult(pairs=pairs, summary=pd.DataFrame(rows, columns=list(rows[0])), asl_curves=curves,
                           samples=samples, B=samples.shape[0], seed=seed, alphas=alphas)


# -- stability ------------------------------------------------------------------------------------
def _means_task(M, Ct, c, t0, t1):
    """Every run's mean over trials t0..t1-1 (in a worker): the exact sums of the in-memory path."""
    from ._common import one_blas_thread
    M, Ct = _aligned(M, Ct)
    with one_blas_thread():
        return fmat_imat(M, Ct[:, t0:t1]) / c


def _stab_task(means, fz, fast, n_runs, start, stop, part, path, ids, metric):
    """Wins, losses and ties of pairs start..stop-1 (in a worker)."""
    from ._common import pair_chunks

    means = _aligned(means)
    B = means.shape[1]
    n = stop - start
    W = np.zeros((len(fz), n), dtype=np.int64)
    L, T = np.zeros_like(W), np.zeros_like(W)
    chunks = pair_chunks(n, 8 * 5 * B, budget=STAB_CHUNK_BYTES, min_chunks=1)
    work = _WORK.get(max(sl.stop - sl.start for sl in chunks), B, *[np.float64] * 5, np.bool_)
    pi, pj = pair_range(n_runs, start, stop)
    for sl in chunks:
        count_chunk(means, pi[sl], pj[sl], fz, fast, W[:, sl], L[:, sl], T[:, sl], work)
    if path is None:
        return W, L, T
    q = np.repeat(np.arange(len(fz)), n)
    _write_part(path, metric, part, ids, np.tile(pi, len(fz)), np.tile(pj, len(fz)),
                {"fuzziness": np.asarray(fz)[q], "wins": W.ravel(), "losses": L.ravel(), "ties": T.ravel()})
    return np.minimum(W, L).sum(axis=1), T.sum(axis=1)


def _means(run: _Runner, mats: dict, metrics: list, Ct: np.ndarray, c: int) -> dict:
    """Every metric's (n_runs, B) means per trial, computed as tasks over chunks of trials."""
    B = Ct.shape[1]
    parts = split_range(B, -(-TASKS_PER_THREAD * run.threads() // max(len(metrics), 1)))
    ct = run.share(Ct)
    argsets = [(run.share(mats[m]), ct, c, a, b) for m in metrics for a, b in parts]
    done = run.map(_means_task, argsets)
    k = len(parts)
    return {m: np.concatenate(done[i * k:(i + 1) * k], axis=1) for i, m in enumerate(metrics)}


def stability(scores: Mapping[str, np.ndarray], *, run_ids=None, subset_size: int | None = None, B: int = 1000,
              seed: int | None = 0, fuzziness=(0.01, 0.02, 0.05, 0.1), replacement: bool = False,
              samples: np.ndarray | None = None, pairs_per_task: int | None = None, scheduler=None,
              to_parquet=None) -> StabilityResult:
    """:func:`evalcore.meta.stability` (002's stability method) computed as Dask tasks.

    Tasks over chunks of trials compute every run's mean per trial (the in-memory exact sums); the means
    are then sent to the workers once and tasks over ranges of pairs count wins, losses and ties with the
    in-memory kernel. Counts are integers, so the tables equal the in-memory ones for the same seed.
    ``pairs_per_task``, ``scheduler`` and ``to_parquet`` as for :func:`bootstrap_sensitivity` (the
    Parquet rows: run_x, run_y, fuzziness, wins, losses, ties).
    """
    if pairs_per_task is not None:
        check_positive_int(pairs_per_task, "pairs_per_task")
    metrics, mats, ids, fz, samples, Ct, pi, pj = prepare_stability(scores, run_ids, subset_size, B, seed, fuzziness,
                                                                  replacement, samples)
    path = _check_parquet(to_parquet)
    P, n_runs = pi.size, len(ids)
    run = _Runner(scheduler)
    try:
        means = _means(run, mats, metrics, Ct, samples.shape[1])
        ranges = _task_ranges(P, len(metrics), run.threads(), pairs_per_task)
        sid = run.share(ids if path is not None else None)
        argsets: list = []
        where: list = []
        for m in metrics:
            mm = run.share(means[m])
            fast = fast_path_ok(means[m])
            for a, b in ranges:
                argsets.append((mm, fz, fast, n_runs, a, b, len(where), path, sid, m))
                where.append(m)
        done = run.map(_stab_task, argsets)
    finally:
        run.close()
    if path is None:
        counts = {m: tuple(np.concatenate([r[k] for m2, r in zip(where, done, strict=True) if m2 == m], axis=1)
                           for k in range(3)) for m in metrics}
        return stability_result(counts, ids, fz, pi, pj, samples, seed, replacement)
    rows = []
    total = float(P * samples.shape[0])
    for m in metrics:
        errs = np.sum([r[0] for m2, r in zip(where, done, strict=True) if m2 == m], axis=0)
        ties = np.sum([r[1] for m2, r in zip(where, done, strict=True) if m2 == m], axis=0)
        for q, f in enumerate(fz):
            rows.append({"metric": m, "fuzziness": f, "error_rate": float(errs[q]) / total,
                         "prop_ties": float(ties[q]) / total})
    cols = ["metric", "fuzziness", "run_x", "run_y", "wins", "losses", "ties"]
    return StabilityResult(summary=pd.DataFrame(rows, columns=["metric", "fuzziness", "error_rate", "prop_ties"]),
                           pairs=pd.DataFrame(columns=cols), samples=samples, subset_size=samples.shape[1],
                           B=samples.shape[0], seed=seed, replacement=replacement)


# -- the swap method --------------------------------------------------------------------------------
def _swap_means_task(U, C1, C2, c, t0, t1):
    from ._common import one_blas_thread
    U, C1, C2 = _aligned(U, C1, C2)
    with one_blas_thread():
        return swap_means(U, C1, C2, c, t0, t1)


def _swap_task(A1, A2, group, bin_width, n_bins, rule, tol):
    A1, A2 = _aligned(A1, A2)
    return swap_hist(A1, A2, group, bin_width, n_bins, rule, tol)


def swap_method(scores: Mapping[str, np.ndarray], *, sampling: str = "replacement", subset_size: int | None = None,
                B: int = 1000, seed: int | None = 0, bin_width: float = 0.01, n_bins: int = 21, rule: str = "003",
                confidences=(0.95, 0.90, 0.80), samples: tuple[np.ndarray, np.ndarray] | None = None,
                scheduler=None) -> SwapResult:
    """:func:`evalcore.meta.swap_method` computed as Dask tasks: the runs' means over chunks of trials,
    then the bin counts over groups of run pairs (each task returns one histogram of 2 x n_bins
    integers, summed in the caller). Same parameters and the same tables for the same seed; the swap
    method has no per-pair table, so there is nothing to write to Parquet."""
    prep = prepare_swap(scores, sampling, subset_size, B, seed, bin_width, n_bins, rule, confidences, samples)
    run = _Runner(scheduler)
    try:
        threads = run.threads()
        P = prep.n_runs * (prep.n_runs - 1) // 2
        per_job = -(-TASKS_PER_THREAD * threads // max(len(prep.metrics), 1))
        groups = task_groups(row_blocks(prep.n_runs, max(1, min(ROW_BUDGET // (8 * 4 * prep.B), P // per_job))),
                             per_job)
        parts = split_range(prep.B, per_job)
        c1, c2 = run.share(prep.C1), run.share(prep.C2)
        uniq = {m: distinct_rows(prep.mats[m]) for m in prep.metrics}
        done = run.map(_swap_means_task, [(run.share(uniq[m][0]), c1, c2, prep.c, a, b)
                                          for m in prep.metrics for a, b in parts])
        k = len(parts)
        A, max_perf = {}, {}
        for i, m in enumerate(prep.metrics):
            inv = uniq[m][1]
            A1 = np.concatenate([d[0] for d in done[i * k:(i + 1) * k]], axis=1)[inv]
            A2 = np.concatenate([d[1] for d in done[i * k:(i + 1) * k]], axis=1)[inv]
            A[m] = run.share(A1), run.share(A2)
            max_perf[m] = float(max(A1.max(), A2.max()))
        jobs = [(m, g) for m in prep.metrics for g in groups]
        hists = run.map(_swap_task, [(*A[m], g, prep.bin_width, prep.n_bins, prep.rule, prep.tols[m])
                                     for m, g in jobs])
    finally:
        run.close()
    total = {m: np.zeros(2 * prep.n_bins, dtype=np.int64) for m in prep.metrics}
    for (m, _), h in zip(jobs, hists, strict=True):
        total[m] += h
    return swap_result(prep, total, max_perf)


# -- randomised Tukey HSD ---------------------------------------------------------------------------
def _tukey_task(src, seeds, first, B, step, n_runs, n_topics):
    src = {m: _aligned(v) for m, v in src.items()}
    return stream_ranges(src, seeds, first, B, step, n_runs, n_topics,
                         work=_WORK.get(step, n_runs * n_topics, np.intp, np.intp))


def _tukey_pairs_task(means, sorted_ranges, alphas, n_runs, start, stop, part, path, ids, metric):
    means, sorted_ranges = _aligned(means, sorted_ranges)
    pi, pj = pair_range(n_runs, start, stop)
    d, p = tukey_pvalues(means, pi, pj, sorted_ranges)
    _write_part(path, metric, part, ids, pi, pj, {"mean_diff": d, "p_value": p, "significant": p < alphas[0]})
    return np.array([np.sum(p < a) for a in alphas])


def tukey_hsd(scores: Mapping[str, np.ndarray], *, run_ids=None, B: int = 5000, seed: int | None = 0,
                   alpha=0.05, block: int = 250, streams_per_task: int | None = None, scheduler=None,
                   to_parquet=None) -> TukeyResult:
    """:func:`evalcore.meta.tukey_hsd` computed as Dask tasks of random streams (Tukey's permutations are
    drawn per stream of :data:`~evalcore.meta.tukey.TRIALS_PER_STREAM` trials from
    ``SeedSequence(seed).spawn(...)``, as in memory), so the same seed gives the same ranges and
    p-values. Each task receives the sorted scores once (scattered) and its streams' seeds; it returns
    its trials' ranges (B floats per metric in all). With ``to_parquet`` the p-values of the pairs are
    computed and written by tasks over ranges of pairs, and only the significant counts come back.
    """
    from ._common import check_alpha, check_run_ids, check_scores

    metrics, mats, n_runs, n_topics = check_scores(scores)
    ids = check_run_ids(run_ids, n_runs)
    B = check_positive_int(B, "B")
    block = check_positive_int(block, "block")
    alphas = check_alpha(alpha)
    path = _check_parquet(to_parquet)
    seeds = trial_streams(B, seed)
    src = {m: np.sort(mats[m], axis=0).ravel() for m in metrics}
    step = min(block, TRIALS_PER_STREAM, max(1, BLOCK_CELLS // (n_runs * n_topics)))
    run = _Runner(scheduler)
    try:
        if streams_per_task is None:
            groups = split_range(len(seeds), TASKS_PER_THREAD * run.threads())
        else:
            k = check_positive_int(streams_per_task, "streams_per_task")
            groups = [(s, min(s + k, len(seeds))) for s in range(0, len(seeds), k)]
        shared = run.share(src)
        done = run.map(_tukey_task, [(shared, seeds[a:b], a, B, step, n_runs, n_topics) for a, b in groups])
        ranges = {m: np.concatenate([d[m] for d in done]) for m in metrics}
        if path is None:
            return tukey_result(mats, ids, ranges, B, seed, alphas)
        P = n_runs * (n_runs - 1) // 2
        pr = _task_ranges(P, len(metrics), run.threads(), None)
        sid = run.share(ids)
        argsets: list = []
        where: list = []
        for m in metrics:
            mm, rr = run.share(mats[m].mean(axis=1)), run.share(np.sort(ranges[m]))
            for a, b in pr:
                argsets.append((mm, rr, alphas, n_runs, a, b, len(where), path, sid, m))
                where.append(m)
        counts = run.map(_tukey_pairs_task, argsets)
    finally:
        run.close()
    rows = []
    for m in metrics:
        nsig = np.sum([c for m2, c in zip(where, counts, strict=True) if m2 == m], axis=0)
        for q, level in enumerate(alphas):
            rows.append({"metric": m, "alpha": level, "n_significant": int(nsig[q]), "n_pairs": P,
                         "pct_significant": 100.0 * int(nsig[q]) / P})
    return TukeyResult(pairs=pd.DataFrame(columns=["metric", "run_x", "run_y", "mean_diff", "p_value", "significant"]),
                       summary=pd.DataFrame(rows, columns=["metric", "alpha", "n_significant", "n_pairs",
                                                           "pct_significant"]),
                       ranges=ranges, B=B, seed=seed, alphas=alphas)
