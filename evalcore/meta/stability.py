"""The Buckley/Voorhees (SIGIR 2000) stability method, as used in 002.

For B trials draw a topic subset of size c (without replacement by default;
with replacement = 002's bootstrap samples), compute every run's mean over
it and, for every run pair, record a *win* (X > Y), a *loss* (X < Y) or a
*tie*: |M(X) - M(Y)| <= f * max(M(X), M(Y)) for fuzziness f (default 5% of
the larger score). Then

    error rate   = sum over pairs of min(wins, losses) / sum of (wins + losses + ties)
    prop. ties   = sum of ties / sum of (wins + losses + ties)

A stable metric has a low error rate at a low proportion of ties; curves of
error rate against ties over several f compare metrics.

Means over the sample are ``scores @ counts.T / c`` (topic-count matrix,
O(runs x topics x B), computed in chunks of trials; the sums exact up to one rounding by
:func:`evalcore._exact.fmat_imat`, so the same bits on every CPU), pair differences are taken from
those means in chunks of pairs (:data:`CHUNK_BYTES` at a time), so memory
beyond the result columns does not grow with the number of pairs. Both kinds of chunk run on
worker processes or threads (``workers``, one BLAS thread per task; :mod:`evalcore.meta._workers`): counts
are integers and the means exact, so the tables do not depend on the workers.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._exact import fmat_imat
from ..workload import check_call
from ._common import (
    Progress,
    ProgressFn,
    check_positive_int,
    check_run_ids,
    check_scores,
    count_rows,
    pair_chunks,
    pair_index,
    pair_keys,
    pair_range,
    pair_table,
    topic_counts,
)
from ._parallel import split_range
from ._workers import Runner, check_process_work, plan, worker_count

__all__ = ["stability", "StabilityResult", "stability_samples"]


def stability_samples(n_topics: int, *, subset_size: int | None = None, B: int = 1000, replacement: bool = False,
                      seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """(B, c) topic-index samples; c defaults to |Q| with replacement, |Q| // 2 without."""
    n = check_positive_int(n_topics, "n_topics")
    B = check_positive_int(B, "B")
    c = (n if replacement else max(n // 2, 1)) if subset_size is None else subset_size
    c = check_positive_int(c, "subset_size")
    if not replacement and c > n:
        raise ValueError(f"subset_size must be <= {n} (the number of topics) without replacement; got {c}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if replacement:
        return rng.integers(0, n, size=(B, c))
    return np.argsort(rng.random((B, n)), axis=1, kind="stable")[:, :c].copy()


#: Bytes of (pairs x B) work per chunk (``pair_chunks`` budget): small enough that a chunk's work arrays
#: stay in cache, large enough that the per-chunk Python overhead does not show; the timings that chose
#: 4 MB are in docs/benchmarks.md section 17.
CHUNK_BYTES = 4 << 20


def count_chunk(means: np.ndarray, ix: np.ndarray, iy: np.ndarray, fz: tuple[float, ...], fast: bool,
                 W: np.ndarray, L: np.ndarray, T: np.ndarray, work: list[np.ndarray]) -> None:
    """Wins, losses and ties of a chunk of pairs (runs ix[k] vs iy[k]) into W, L, T (fuzziness x pairs).

    ``means`` (n_runs, B) holds every run's mean per trial; ``work`` are
    :func:`work_arrays` of at least the chunk's rows (5 float, 1 bool).
    The definition: tie = |d| <= f max(a, b), win = d > 0 and not tie, loss =
    d < 0 and not tie, with a, b the two runs' means and d = a - b. When
    every mean is finite and >= 0 (``fast``; always so for IR metrics)
    f max(a, b) >= 0, so win <=> d > f max(a, b), win or loss <=> |d| > f
    max(a, b) and tie is the rest: 2 comparisons per f instead of 6, with the
    same floating-point values compared, so the same counts.
    """
    p = ix.size
    a, b, d, ad, fb, mask = (x[:p] for x in work)
    # mode="clip" (the indices are valid pairs): with the default mode="raise" numpy takes into a fresh
    # temporary and copies it to ``out``, 3x the time of the gather itself (docs/benchmarks.md section 15.2)
    np.take(means, ix, axis=0, out=a, mode="clip")
    np.take(means, iy, axis=0, out=b, mode="clip")
    np.subtract(a, b, out=d)
    big = np.maximum(a, b, out=a)
    B = d.shape[1]
    if fast:
        np.abs(d, out=ad)
        for q, f in enumerate(fz):
            np.multiply(f, big, out=fb)
            W[q] = count_rows(np.greater(d, fb, out=mask))
            wl = count_rows(np.greater(ad, fb, out=mask))
            L[q] = wl - W[q]
            T[q] = B - wl
        return
    for q, f in enumerate(fz):
        tie = np.abs(d) <= f * big
        W[q] = np.sum((d > 0) & ~tie, axis=1)
        L[q] = np.sum((d < 0) & ~tie, axis=1)
        T[q] = np.sum(tie, axis=1)


@dataclass(frozen=True)
class StabilityResult:
    """Result of :func:`stability`.

    Attributes
    ----------
    summary : DataFrame, one row per (metric, fuzziness)
        ``metric``; ``fuzziness`` f; ``error_rate`` = sum min(wins, losses) /
        sum (wins + losses + ties); ``prop_ties`` = sum ties / the same total
        (plot error_rate against prop_ties over f for the stability curves).
    pairs : DataFrame, one row per (metric, fuzziness, run pair)
        ``metric``, ``fuzziness``, ``run_x``, ``run_y``, ``wins`` (trials with
        X better beyond the fuzziness), ``losses``, ``ties``.
    samples : (B, c) topic-index array used for every metric
    subset_size, B, seed, replacement : the settings
    """
    summary: pd.DataFrame
    pairs: pd.DataFrame
    samples: np.ndarray = field(repr=False)
    subset_size: int = 0
    B: int = 0
    seed: object = 0
    replacement: bool = False


def stability(scores: Mapping[str, np.ndarray], *, run_ids=None, subset_size: int | None = None, B: int = 1000,
              seed: int | None = 0, fuzziness=(0.01, 0.02, 0.05, 0.1), replacement: bool = False,
              samples: np.ndarray | None = None, progress: ProgressFn | None = None,
              threads: int | None = None, workers: int | None = None,
              process_work: int | None = None) -> StabilityResult:
    """Error rate and proportion of ties of every metric, for each fuzziness value.

    Parameters
    ----------
    scores : {metric label: (n_runs, n_topics) per-topic scores}
    run_ids : names of the runs (default "0", "1", ...)
    subset_size : c; default |Q| // 2 without replacement, |Q| with replacement
    B : trials (default 1000)
    seed : seed of the topic subsets, shared by every metric
    fuzziness : f values; a pair is tied when |M(X) - M(Y)| <= f * max(M(X), M(Y))
    replacement : draw each subset with replacement (002's bootstrap variant)
    samples : optional (B, c) topic-index array to use instead of drawing (tests)
    progress : callback given the fraction done; return True to cancel (raises Cancelled)
    workers : the most workers running the chunks of trials (the means) and of pairs (the counts) (default
        ``$EVALCORE_WORKERS``, else every core; 1: the calling thread only). A call of at least ``process_work``
        run pairs x B runs on that many worker processes, a smaller one on threads
        (:mod:`evalcore.meta._workers`). The tables are the same for any number
    process_work : run pairs x B from which the call runs on worker processes (default
        ``_workers.PROCESS_WORK["stability"]``, docs/benchmarks.md section 18; 0: always)
    threads : threads of this process instead (no worker processes), used as given; with neither this nor
        ``workers``, ``$EVALCORE_THREADS`` (when ``$EVALCORE_WORKERS`` is unset) sets the threads, cut to one
        per 2,500,000 run pairs x B (``_parallel.fit_threads``, docs/benchmarks.md section 15.3)

    >>> s = {"M": np.array([[0.9, 0.8, 0.7, 0.6], [0.1, 0.2, 0.1, 0.2]])}
    >>> r = stability(s, B=10, fuzziness=(0.05,))
    >>> r.summary[["error_rate", "prop_ties"]].values.tolist()
    [[0.0, 0.0]]
    """
    count, _ = worker_count(workers, threads)
    check_process_work(process_work)
    # sized from every setting together before anything is drawn (docs/reliability.md, "Work products")
    check_call("stability", scores, B=B if samples is None else len(samples), threads=count,
               subset_size=subset_size if samples is None else len(samples[0]), replacement=replacement,
               fuzziness=fuzziness)
    metrics, mats, ids, fz, samples, Ct, pi, pj = prepare_stability(scores, run_ids, subset_size, B, seed, fuzziness,
                                                        replacement, samples)
    B, c = samples.shape
    P = pi.size
    how = plan("stability", P * B, workers=workers, threads=threads, process_work=process_work)
    chunks = pair_chunks(P, 8 * (5 * B), budget=CHUNK_BYTES, min_chunks=how.tasks(len(metrics), progress))
    # a task runs several consecutive chunks: tens of tasks per call, not thousands of chunk-sized ones
    # (each task is a hand-off with the calling thread; docs/benchmarks.md section 15.2)
    groups = split_range(len(chunks), how.tasks(len(metrics), progress))
    # the means: every metric's in one task of trials (a hand-off per task, a short phase), one task per worker
    trial_parts = split_range(B, how.count)
    prog = Progress(progress, len(metrics) * len(groups) + len(trial_parts))
    prog.report(0.0)
    n_runs = mats[metrics[0]].shape[0]
    # wins, losses and ties of every (metric, fuzziness, pair) in one array each, in the per-pair table's row
    # order: its columns are these arrays, not copies (stability_result)
    # (each task makes its own span's run pairs, pair_range: the pair index is not copied to the workers)
    arrays: dict = {"Ct": Ct, **{col: np.zeros((len(metrics), len(fz), P), dtype=np.int64) for col in ("W", "L", "T")}}
    outputs = ["W", "L", "T"]
    for k, m in enumerate(metrics):
        arrays["M", k] = mats[m]
        # every run's mean per trial, computed in chunks of trials: every column of the topic counts sums to
        # c, so the exact products (evalcore._exact) give the same bits for any split of the trials
        arrays["means", k] = np.empty((n_runs, B))
    rows = max(sl.stop - sl.start for sl in chunks)
    with Runner(how, arrays, outputs=outputs, fresh=outputs + [("means", k) for k in range(len(metrics))]) as run:
        seen = run.map(_means_task, [(len(metrics), c, part) for part in trial_parts], prog)
        fast = {k: all(ok[k] for ok in seen) for k in range(len(metrics))}
        jobs = [(k, fz, fast[k], [(sl.start, sl.stop) for sl in chunks[g0:g1]], rows)
                for k in range(len(metrics)) for g0, g1 in groups]
        # the table's key and name columns need no counts: made while the tasks run
        made: list = []
        part_sums = run.map(_count_task, jobs, prog,
                            meanwhile=lambda: made.append(pair_keys(ids, pi, pj, stability_keys(metrics, fz))))
    # the summary's integer sums, added up from the tasks' own (exact in any order): the calling process never
    # reads the counts, which on worker processes live in the shared file's pages (docs/benchmarks.md section 18)
    sums = {m: np.zeros((2, len(fz)), dtype=np.int64) for m in metrics}
    for job, got in zip(jobs, part_sums, strict=True):
        sums[metrics[job[0]]] += got
    return stability_result({m: (arrays["W"][k], arrays["L"][k], arrays["T"][k]) for k, m in enumerate(metrics)},
                            ids, fz, pi, pj, samples, seed, replacement,
                            stacked=tuple(arrays[col].reshape(-1) for col in ("W", "L", "T")), sums=sums,
                            key_columns=made[0])


def _means_task(arrays: dict, job, cache) -> list[bool]:
    """Every metric's means over trials t0..t1-1 into ``arrays["means", k]``; for each metric, whether they all
    allow :func:`count_chunk`'s fast path (:func:`fast_path_ok` of this part)."""
    n_metrics, c, (t0, t1) = job
    ok = []
    for k in range(n_metrics):
        part = fmat_imat(arrays["M", k], arrays["Ct"][:, t0:t1]) / c
        arrays["means", k][:, t0:t1] = part
        ok.append(fast_path_ok(part))
    return ok


def _count_task(arrays: dict, job, cache) -> np.ndarray:
    """Metric k's wins, losses and ties of the chunks of pairs ``spans``, into ``arrays``; returns their sums
    for the summary: (sum of min(wins, losses), sum of ties) per fuzziness value, a (2, fuzziness) array."""
    k, fz, fast, spans, rows = job
    means = arrays["means", k]
    W, L, T = arrays["W"][k], arrays["L"][k], arrays["T"][k]
    work = cache.get(rows, means.shape[1], *[np.float64] * 5, np.bool_)
    lo, hi = spans[0][0], spans[-1][1]
    pi, pj = pair_range(means.shape[0], lo, hi)
    for a, b in spans:
        sl = slice(a, b)
        count_chunk(means, pi[a - lo:b - lo], pj[a - lo:b - lo], fz, fast, W[:, sl], L[:, sl], T[:, sl], work)
    return np.stack([np.minimum(W[:, lo:hi], L[:, lo:hi]).sum(axis=1), T[:, lo:hi].sum(axis=1)])


def fast_path_ok(means: np.ndarray) -> bool:
    """Every mean finite and >= 0 (:func:`count_chunk`'s two-comparison path)."""
    return bool(np.isfinite(means).all() and means.min() >= 0)


def prepare_stability(scores, run_ids, subset_size, B, seed, fuzziness, replacement, samples):
    """Checked inputs and what every chunk of pairs shares: (metrics, matrices, run ids, fuzziness values,
    samples, Ct = topic counts per trial (n_topics, B), pair index i, j)."""
    metrics, mats, n_runs, n_topics = check_scores(scores)
    ids = check_run_ids(run_ids, n_runs)
    fz = (fuzziness,) if np.isscalar(fuzziness) else tuple(fuzziness)
    if not fz or any(not (0 <= float(f) < 1) for f in fz):
        raise ValueError(f"fuzziness must be values in [0, 1); got {fuzziness!r}")
    fz = tuple(float(f) for f in fz)
    if samples is None:
        samples = stability_samples(n_topics, subset_size=subset_size, B=B, replacement=replacement, seed=seed)
    else:
        samples = np.asarray(samples, dtype=np.intp)
        if samples.ndim != 2 or samples.size == 0 or samples.min() < 0 or samples.max() >= n_topics:
            raise ValueError(f"samples must be a (B, c) array of topic indices 0..{n_topics - 1}")
    Ct = topic_counts(samples, n_topics).T          # counts; divided by c after the exact sums
    pi, pj = pair_index(n_runs)
    return metrics, mats, ids, fz, samples, Ct, pi, pj


def stability_keys(metrics, fz) -> dict:
    """The per-pair table's keys, one value per block of pairs: every fuzziness value of each metric in turn."""
    return {"metric": [m for m in metrics for _ in fz], "fuzziness": [f for _ in metrics for f in fz]}


def stability_result(counts: dict, ids, fz, pi, pj, samples, seed, replacement,
                     stacked: tuple | None = None, sums: dict | None = None,
                     key_columns: dict | None = None) -> StabilityResult:
    """The result tables from each metric's (wins, losses, ties), each (fuzziness x pairs). ``key_columns``:
    :func:`~._common.pair_keys` of :func:`stability_keys`, made beforehand (else made here). ``stacked``: the
    wins, losses and ties of every (metric, fuzziness, pair) as three 1-D arrays in the table's row order,
    taken as its columns without a copy (the caller hands them over); ``sums``: {metric: (2, fuzziness)
    integer array} of the sums of min(wins, losses) and of ties over the pairs, when already added up."""
    B, c = samples.shape
    P = pi.size
    if sums is None:
        sums = {m: np.stack([np.minimum(W, L).sum(axis=1), T.sum(axis=1)]) for m, (W, L, T) in counts.items()}
    summ = []
    for m in counts:
        for q, f in enumerate(fz):
            total = float(P * B)
            summ.append({"metric": m, "fuzziness": f, "error_rate": float(sums[m][0, q]) / total,
                         "prop_ties": float(sums[m][1, q]) / total})
    blocks = [(m, q) for m in counts for q in range(len(fz))]
    columns = ("wins", "losses", "ties")
    pairs = pair_table(ids, pi, pj, stability_keys(list(counts), fz),
                       dict(zip(columns, stacked, strict=True)) if stacked is not None else
                       {col: [counts[m][c][q] for m, q in blocks] for c, col in enumerate(columns)},
                       key_columns=key_columns)
    return StabilityResult(summary=pd.DataFrame(summ, columns=["metric", "fuzziness", "error_rate", "prop_ties"]),
                           pairs=pairs, samples=samples, subset_size=c, B=B,
                           seed=seed, replacement=replacement)
