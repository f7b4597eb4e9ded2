r"""Sakai's Bootstrap Sensitivity Method (003 Sec. 4.3, Fig. 5-7; Sakai SIGIR 2006).

For every run pair (X, Y): z = x - y per topic, the Studentised statistic
:math:`t(z) = \bar z / (\bar\sigma / \sqrt n)`, w = z - mean(z) (so w obeys
H0), B bootstrap samples w*b of w (Fig. 5; the same topic samples for every
pair and every metric), and ASL = #{b : |t(w*b)| >= |t(z)|} / B (Fig. 6).

Vectorised with the topic-count matrix counts (B, n): the sums of w*b and
(w*b)^2 over sample b are ``w @ counts.T`` and ``(w*w) @ counts.T``, computed
exactly up to one rounding by :func:`evalcore._exact.fmat_imat` (the same bits
on every CPU, BLAS kernel, chunking and engine), so
mean* = S1 / n and var* = (S2 - S1^2 / n) / (n - 1). Pairs are processed in
chunks of pairs (:data:`CHUNK_BYTES` of pairs x B floats at a time), never
the pairs x B x n tensor, so memory does not grow with the number of pairs
beyond the result columns. The chunks run on worker processes or threads (``workers``; one BLAS
thread per task, :mod:`evalcore.meta._workers`); a pair's values do not depend on its chunk or worker.

Why pair products and not per-run sums: S2 holds the cross term sum x*y,
which only a pair product gives. S1 alone could come from per-run sums
(R[x] - R[y] - c mean(z)), but with other rounding: a sample whose w*b sum
is exactly 0 (zero spread, |t*| = 0 by the edge policy below) would turn
into a tiny non-zero sum (|t*| = inf). The two products are ~1/4 of the
time (docs/benchmarks.md, section 4: the matrix-product floor).

Edge policy (documented, tested):
- rounding: a difference |z_t| <= ZERO_RTOL (1e-13) times the largest |score| of the metric's matrix is
  set to 0 first (:data:`evalcore.meta.pairs.ZERO_RTOL`), as in every paired test of
  :func:`evalcore.meta.pair_statistics`;
- identical runs (z = 0 on every topic): ASL = 1, never significant;
- a constant non-zero difference (sd(z) = 0, mean != 0): |t(z)| = inf, ASL = 0;
- a bootstrap sample with zero spread: |t(w*b)| = inf if its mean is non-zero,
  0 if its mean is zero (no division by zero);
- ties: |t(w*b)| counts as >= |t(z)| when within 1e-9 (relative) of it (t(z)
  and t(w*b) come from different formulas, so an exact tie need not be bitwise
  equal); the plain-loop reference in tests/ uses exact >= and agrees on
  random data.

Reproducibility: the same seed gives bitwise the same tables on every CPU,
with any chunking and on Dask (tests/test_meta_bootstrap.py, and CI reruns the
resampling tests under other OpenBLAS kernels).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._exact import check_integral, fmat_imat, part_bits
from ..workload import check_call
from ._common import (
    TIE_RTOL,
    Progress,
    ProgressFn,
    check_alpha,
    check_positive_int,
    check_run_ids,
    check_scores,
    count_rows,
    pair_chunks,
    pair_index,
    pair_keys,
    pair_range,
    pair_table,
    round_sig,
    topic_counts,
    work_arrays,
    zero_rounding,
    zero_tolerance,
)
from ._parallel import split_range
from ._workers import Runner, check_process_work, plan, worker_count

__all__ = ["bootstrap_sensitivity", "BootstrapResult", "bootstrap_samples", "paired_t"]


def bootstrap_samples(n_topics: int, *, B: int = 1000, seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Fig. 5: B samples of n topic indices drawn with replacement, shape (B, n)."""
    n = check_positive_int(n_topics, "n_topics")
    B = check_positive_int(B, "B")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.integers(0, n, size=(B, n))


def resolve_samples(samples, n_topics: int, *, B: int, seed) -> np.ndarray:
    """The bootstrap topic samples to use: ``samples`` as given (checked), or drawn by
    :func:`bootstrap_samples` from ``B`` and ``seed`` (shared by the bootstrap test and the pair statistics,
    so the same seed draws the same samples)."""
    if samples is None:
        return bootstrap_samples(n_topics, B=B, seed=seed)
    samples = np.asarray(samples, dtype=np.intp)
    if samples.ndim != 2 or samples.shape[1] < 2 or samples.min() < 0 or samples.max() >= n_topics:
        raise ValueError(f"samples must be a (B, c >= 2) array of topic indices 0..{n_topics - 1}")
    return samples


def paired_t(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and Studentised t of each row of z (pairs, n): t = mean / (sd / sqrt(n)), sd with n - 1.

    Rows with sd = 0 get t = 0 if the mean is 0 and +-inf otherwise.

    >>> m, t = paired_t(np.array([[0.1, 0.3, 0.2], [0., 0., 0.], [0.5, 0.5, 0.5]]))
    >>> [round(float(v), 6) for v in t]
    [3.464102, 0.0, inf]
    """
    z = np.atleast_2d(np.asarray(z, dtype=np.float64))
    n = z.shape[1]
    mean = z.mean(axis=1)
    sd = z.std(axis=1, ddof=1) if n > 1 else np.zeros(z.shape[0])
    scale = np.abs(z).max(axis=1)
    const = sd <= 1e-12 * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(const, np.where(mean == 0, 0.0, np.sign(mean) * np.inf), mean / (sd / np.sqrt(n)))
    return mean, t


#: Bytes of (pairs x B) work per chunk (``pair_chunks`` budget). With the staggered work arrays
#: (:func:`work_arrays`) larger chunks stop paying off at about 8 MB (docs/benchmarks.md section 17), and
#: 8 MB keeps the five work arrays at ~40 MB whatever the number of pairs.
CHUNK_BYTES = 8 << 20


def _kth_desc_index(ts: np.ndarray, k: int, mask: np.ndarray | None = None) -> np.ndarray:
    """For each row, the column at 1-based position k of its stable descending order.

    Equal to ``np.argsort(-ts, axis=1, kind="stable")[:, k - 1]`` (ties: lowest
    column first) without sorting: split each row into G = 2k interleaved
    groups; the k-th largest group maximum L is a lower bound of the row's
    k-th largest value (k groups, so k values, reach it). Only the values
    >= L (about 1.5 k of B on continuous data) are compacted, in column
    order, and partitioned; rows where more than 4 k values reach L (heavy
    ties, e.g. identical runs) are partitioned whole. ``mask``: optional bool
    work array of ts's shape.
    """
    p, B = ts.shape
    if np.isnan(ts).any():                       # not reachable from finite scores; keep argsort's NaN order
        return np.argsort(-ts, axis=1, kind="stable")[:, k - 1]
    G = min(2 * k, B)
    g = B // G
    if g < 4:
        return _kth_in_rows(ts, k)
    gm = ts[:, :G].copy()
    for i in range(1, g):
        np.maximum(gm, ts[:, i * G:(i + 1) * G], out=gm)
    L = np.partition(gm, G - k, axis=1)[:, G - k]
    mask = np.greater_equal(ts, L[:, None], out=mask)
    cnt = count_rows(mask)
    big = cnt > 4 * k
    out = np.empty(p, dtype=np.intp)
    if big.any():
        out[big] = _kth_in_rows(ts[big], k)
        mask[big] = False
        cnt[big] = 0
    small = np.flatnonzero(~big)
    if small.size:
        flat = np.flatnonzero(mask)
        rows = flat // B
        m = int(cnt.max())
        pos = np.arange(flat.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        vals = np.full((p, m), -np.inf)
        vals[rows, pos] = ts.ravel()[flat]
        idx = np.zeros((p, m), dtype=np.intp)
        idx[rows, pos] = flat - rows * B
        bp = _kth_in_rows(vals[small], k)
        out[small] = idx[small, bp]
    return out


def _kth_in_rows(vals: np.ndarray, k: int) -> np.ndarray:
    """Column at position k of each row's stable descending order, by one partition per row."""
    m = vals.shape[1]
    v = np.partition(vals, m - k, axis=1)[:, m - k, None]   # the k-th largest value
    eq = vals == v
    need = k - np.count_nonzero(vals > v, axis=1)          # its rank among the equal ones, 1-based
    bp = np.argmax(eq, axis=1)
    multi = np.flatnonzero(need > 1)
    if multi.size:
        bp[multi] = np.argmax(np.cumsum(eq[multi], axis=1) >= need[multi, None], axis=1)
    return bp


def pairs_chunk(z: np.ndarray, Ct: np.ndarray, c: int, ks: list[int], work: list[np.ndarray] | None = None,
                bits: int | None = None):
    """ASL, mean, t and the Fig. 7 estimates of a chunk of pairs; z = x - y, shape (pairs, n).

    Returns (asl, zbar, t, est) with est[q] = max over the chunk's pairs of
    |mean(w*b)| for the sample b at position ks[q] of the stable descending
    order of |t(w*b)| (0 where ks[q] < 1), found by :func:`_kth_desc_index`
    in time linear in B. ``work``: :func:`work_arrays` (4 float, 1 bool) of
    at least (pairs, B), reused across chunks. ``bits``: :func:`count_bits` of Ct, computed once by a
    caller running many chunks (else here). Every value of a pair depends on that pair's row alone,
    computed in a fixed order, so results are bit for bit the same whatever the chunk (checked
    against the plain loop in tests/test_meta_bootstrap.py).
    """
    B = Ct.shape[1]
    p = z.shape[0]
    if work is None:
        work = work_arrays(p, B, *[np.float64] * 4, np.bool_)
    S1, S2, mean_s, var_s, mask = (x[:p] for x in work)
    zbar, t = paired_t(z)
    w = z - zbar[:, None]
    w[~np.isfinite(t)] = 0.0      # constant difference: w is rounding noise, exactly 0 in theory
    # exact integer-weighted sums (evalcore._exact): the same bits whatever the BLAS kernel, the CPU or
    # the chunk a pair falls in, so no |t*| >= |t| tie and no rounded estimate can flip between machines
    bits = count_bits(Ct) if bits is None else bits
    S1[...] = fmat_imat(w, Ct, bits=bits)
    S2[...] = fmat_imat(w * w, Ct, bits=bits)
    np.divide(S1, c, out=mean_s)
    np.multiply(S1, mean_s, out=var_s)
    np.subtract(S2, var_s, out=var_s)
    var_s /= (c - 1)                              # var* = (S2 - S1 mean*) / (c - 1)
    ts = np.divide(var_s, c, out=S2)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.sqrt(ts, out=ts)
        np.divide(np.abs(mean_s, out=mean_s), ts, out=ts)   # |t(w*b)| = |mean*| / sqrt(var* / c)
    if np.isnan(ts.max()):
        # zero spread (var* <= 0) leaves NaN; a zero spread with non-zero mean already gave inf
        flat = ~(var_s > 0)
        ts[flat] = np.where(S1[flat] == 0, 0.0, np.inf)
    thr = np.abs(t) * (1 - TIE_RTOL)
    asl = count_rows(np.greater_equal(ts, thr[:, None], out=mask)) / B
    asl[np.all(z == 0, axis=1)] = 1.0             # identical runs
    est = np.zeros(len(ks))
    rows = np.arange(z.shape[0])
    for q, k in enumerate(ks):
        if k >= 1:
            b = _kth_desc_index(ts, min(k, B), mask)
            est[q] = float(np.abs(S1[rows, b] / c).max())
    return asl, zbar, t, est


def count_bits(Ct: np.ndarray) -> int:
    """The part bits of the exact products with the topic counts Ct (:func:`evalcore._exact.part_bits`), Ct
    checked to hold integers: once per call, not in each chunk's two products (a per-chunk cost that held the
    GIL, docs/benchmarks.md section 15.2)."""
    check_integral(Ct)
    return part_bits(Ct, axis=0)


@dataclass(frozen=True)
class BootstrapResult:
    """Result of :func:`bootstrap_sensitivity`.

    Attributes
    ----------
    pairs : DataFrame, one row per (metric, run pair), pairs in the order (0,1), (0,2), ..., (1,2), ...
        ``metric``; ``run_x``, ``run_y`` the run ids; ``mean_diff`` = mean(x) - mean(y)
        over all topics; ``t`` = t(z); ``asl`` the achieved significance level;
        ``significant`` = asl < alpha (the first alpha if several were given).
    summary : DataFrame, one row per (metric, alpha) — 003 Table 4
        ``metric``; ``alpha``; ``n_significant`` pairs with ASL < alpha;
        ``n_pairs``; ``pct_significant`` = 100 n_significant / n_pairs (the
        discriminative power); ``estimated_diff`` the Fig. 7 estimate: for
        each pair the |mean(w*b)| of the sample whose |t(w*b)| is the
        (B alpha)-th largest (ties: lowest b first), the maximum over pairs,
        rounded to two significant figures (NaN if B alpha < 1);
        ``estimated_diff_raw`` the same, unrounded.
    asl_curves : DataFrame — ASL curves (Sakai SIGIR 2006)
        ``metric``; ``pair_rank`` 1..n_pairs; ``asl`` sorted ascending.
    samples : (B, n) int array of the bootstrap topic samples (shared by all pairs and metrics)
    B, seed, alphas : the settings
    """
    pairs: pd.DataFrame
    summary: pd.DataFrame
    asl_curves: pd.DataFrame
    samples: np.ndarray = field(repr=False)
    B: int = 0
    seed: object = 0
    alphas: tuple = (0.05,)


def bootstrap_sensitivity(scores: Mapping[str, np.ndarray], *, run_ids=None, B: int = 1000, seed: int | None = 0,
                          alpha=0.05, samples: np.ndarray | None = None,
                          progress: ProgressFn | None = None, threads: int | None = None,
                          workers: int | None = None, process_work: int | None = None) -> BootstrapResult:
    """Paired bootstrap test for every run pair and the discriminative power of every metric.

    Parameters
    ----------
    scores : {metric label: (n_runs, n_topics) per-topic scores}, one shape for all
    run_ids : names of the runs (default "0", "1", ...)
    B : bootstrap samples (default 1000), shared by every pair and metric
    seed : seed of the samples; same seed, same result
    alpha : significance level, or a list of them (e.g. (0.05, 0.01)); one summary row per alpha
    samples : optional (B, c) topic-index array to use instead of drawing (tests)
    progress : callback given the fraction done; return True to cancel (raises Cancelled)
    workers : the most workers running the chunks of pairs (default ``$EVALCORE_WORKERS``, else every core;
        1: the calling thread only). A call of at least ``process_work`` run pairs x B runs on that many worker
        processes, a smaller one on threads (:mod:`evalcore.meta._workers`); the tables are bit for bit the
        same for any number
    process_work : run pairs x B from which the call runs on worker processes (default
        ``_workers.PROCESS_WORK["bootstrap"]``, the crossover of docs/benchmarks.md section 18; 0: always)
    threads : threads of this process instead (no worker processes), used as given; with neither this nor
        ``workers``, ``$EVALCORE_THREADS`` (when ``$EVALCORE_WORKERS`` is unset) sets the threads, cut to one
        per 400,000 run pairs x B (``_parallel.fit_threads``, docs/benchmarks.md section 15.3)

    >>> s = {"M": np.array([[0.5, 0.6, 0.7, 0.8], [0.1, 0.2, 0.1, 0.2], [0.5, 0.6, 0.7, 0.8]])}
    >>> r = bootstrap_sensitivity(s, B=200, seed=3)
    >>> r.pairs[["run_x", "run_y", "asl"]].values.tolist()[1]
    ['0', '2', 1.0]
    """
    count, _ = worker_count(workers, threads)
    check_process_work(process_work)
    # sized from every setting together before anything is drawn (docs/reliability.md, "Work products")
    check_call("bootstrap", scores, B=B if samples is None else len(samples), threads=count)
    metrics, mats, ids, alphas, samples, Ct, pi, pj, ks = prepare_bootstrap(scores, run_ids, B, seed, alpha, samples)
    B, c = samples.shape
    P = pi.size
    how = plan("bootstrap", P * B, workers=workers, threads=threads, process_work=process_work)
    chunks = pair_chunks(P, 8 * (6 * B + 3 * Ct.shape[0]), budget=CHUNK_BYTES,
                         min_chunks=how.tasks(len(metrics), progress))
    # a task runs several consecutive chunks: tens of tasks per call, not thousands of chunk-sized ones
    # (each task is a hand-off with the calling thread; docs/benchmarks.md section 15.2)
    groups = split_range(len(chunks), how.tasks(len(metrics), progress))
    prog = Progress(progress, len(metrics) * len(groups))
    prog.report(0.0)
    arrays: dict = {"Ct": Ct}         # each task makes its own span's run pairs (pair_range), not copied
    for k, m in enumerate(metrics):
        arrays["M", k] = mats[m]
        for col in ("asl", "mdiff", "t"):
            arrays[col, k] = np.empty(P)
    # per metric, from the whole matrix: not per chunk
    fixed = (c, tuple(ks), count_bits(Ct), max(sl.stop - sl.start for sl in chunks))
    jobs = [(k, zero_tolerance(mats[m]), [(sl.start, sl.stop) for sl in chunks[g0:g1]], fixed)
            for k, m in enumerate(metrics) for g0, g1 in groups]
    cols = [(col, k) for k in range(len(metrics)) for col in ("asl", "mdiff", "t")]
    made: list = []
    with Runner(how, arrays, outputs=cols, fresh=cols) as run:
        # the table's key and name columns need no results: made while the tasks run
        ests = run.map(_pairs_task, jobs, prog,
                       meanwhile=lambda: made.append(pair_keys(ids, pi, pj, {"metric": list(metrics)})))
    per_metric = {}
    for k, m in enumerate(metrics):
        est = np.zeros(len(alphas))
        for job, e in zip(jobs, ests, strict=True):
            if job[0] == k:
                est = np.maximum(est, e)           # Fig. 7's maximum over pairs: associative
        per_metric[m] = (arrays["asl", k], arrays["mdiff", k], arrays["t", k], est)
    return bootstrap_result(per_metric, ids, pi, pj, alphas, ks, samples, seed, key_columns=made[0])


def _pairs_task(arrays: dict, job, cache) -> np.ndarray:
    """One task of :func:`bootstrap_sensitivity`: metric k's chunks of pairs, columns written into
    ``arrays``; returns the chunks' Fig. 7 estimates (their maximum)."""
    k, tol, spans, (c, ks, bits, rows) = job
    M, Ct = arrays["M", k], arrays["Ct"]
    asl, mdiff, tobs = arrays["asl", k], arrays["mdiff", k], arrays["t", k]
    work = cache.get(rows, Ct.shape[1], *[np.float64] * 4, np.bool_)
    est = np.zeros(len(ks))
    lo = spans[0][0]
    pi, pj = pair_range(M.shape[0], lo, spans[-1][1])
    for a, b in spans:
        sl = slice(a, b)
        z = zero_rounding(M[pi[a - lo:b - lo]] - M[pj[a - lo:b - lo]], tol)
        asl[sl], mdiff[sl], tobs[sl], e = pairs_chunk(z, Ct, c, list(ks), work, bits)
        est = np.maximum(est, e)                   # Fig. 7's maximum over pairs: associative
    return est


def prepare_bootstrap(scores, run_ids, B, seed, alpha, samples):
    """Checked inputs and what every chunk of pairs shares: (metrics, matrices, run ids, alphas,
    samples, Ct = topic counts per sample (n_topics, B), pair index i, j, ks = B alpha)."""
    metrics, mats, n_runs, n_topics = check_scores(scores, min_topics=2)
    ids = check_run_ids(run_ids, n_runs)
    alphas = check_alpha(alpha)
    samples = resolve_samples(samples, n_topics, B=B, seed=seed)
    B = samples.shape[0]
    Ct = topic_counts(samples, n_topics).T          # (n_topics, B)
    pi, pj = pair_index(n_runs)
    ks = [int(round(B * a)) for a in alphas]
    return metrics, mats, ids, alphas, samples, Ct, pi, pj, ks


def sort_asl(asl: np.ndarray, B: int) -> np.ndarray:
    """``np.sort(asl)`` for the ASLs of B bootstrap samples, which are counts over B (:func:`pairs_chunk`:
    ``count / B``, 1.0 = B / B for identical runs): a counting sort of the B + 1 levels, linear in the pairs and
    B, where a comparison sort of a large collection's pairs took most of the calling process's time after its
    worker processes (docs/benchmarks.md section 18). The levels are ``np.arange(B + 1) / B``, the same division
    as the ASLs'; a value that is not one of them (NaN, or any other) makes it ``np.sort`` itself."""
    asl = np.asarray(asl, dtype=np.float64)
    if asl.size == 0 or B < 1:
        return np.sort(asl)
    c = asl * B
    np.rint(c, out=c)
    if not (np.isfinite(c).all() and c.min() >= 0 and c.max() <= B):
        return np.sort(asl)
    ci = c.astype(np.intp)
    levels = np.arange(B + 1) / B
    if not np.array_equal(levels[ci], asl):
        return np.sort(asl)
    return np.repeat(levels, np.bincount(ci, minlength=B + 1))


def bootstrap_result(per_metric: dict, ids, pi, pj, alphas, ks, samples, seed,
                     key_columns: dict | None = None) -> BootstrapResult:
    """The result tables from each metric's (asl, mean_diff, t, est) over all pairs. ``key_columns``:
    :func:`~._common.pair_keys` of the metrics (``per_metric``'s order), made beforehand (else made here)."""
    P = pi.size
    summ_rows, curve_frames = [], []
    for m, (asl, _mdiff, _tobs, est) in per_metric.items():
        for q, a_ in enumerate(alphas):
            nsig = int(np.sum(asl < a_))
            raw = est[q] if ks[q] >= 1 else float("nan")
            summ_rows.append({"metric": m, "alpha": a_, "n_significant": nsig, "n_pairs": P,
                              "pct_significant": 100.0 * nsig / P, "estimated_diff": round_sig(raw, 2),
                              "estimated_diff_raw": raw})
        curve_frames.append(pd.DataFrame({"metric": m, "pair_rank": np.arange(1, P + 1),
                                          "asl": sort_asl(asl, samples.shape[0])}))
    cols = list(per_metric.values())
    pairs = pair_table(ids, pi, pj, {"metric": list(per_metric)},
                       {"mean_diff": [c[1] for c in cols], "t": [c[2] for c in cols], "asl": [c[0] for c in cols],
                        "significant": [c[0] < alphas[0] for c in cols]}, key_columns=key_columns)
    return BootstrapResult(pairs=pairs,
                           summary=pd.DataFrame(summ_rows, columns=["metric", "alpha", "n_significant", "n_pairs",
                                                                    "pct_significant", "estimated_diff",
                                                                    "estimated_diff_raw"]),
                           asl_curves=pd.concat(curve_frames, ignore_index=True),
                           samples=samples, B=samples.shape[0], seed=seed, alphas=alphas)
