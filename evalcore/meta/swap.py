"""The Voorhees/Buckley swap method (003 Sec. 4.2, Fig. 4; 004 Sec. 2-3, Fig. 1).

For every run pair (X, Y) and trial b, D = M(X, Q_b) - M(Y, Q_b) and
D' = M(X, Q'_b) - M(Y, Q'_b) (means over the topic samples). The comparison
is counted in BIN(|D|) and, if the two topic sets disagree, as a swap there.

Vectorised (O(runs x topics x B), not O(pairs x topics x B)): with the
topic-count matrix counts[b, t] (how often topic t is in Q_b), the mean of
every run over every sample is one matrix product ``M @ counts.T / c``
(n_runs, B); D of a pair is the difference of two rows of it, formed for
chunks of pairs (pairs x B floats at a time). Identical runs (equal score
rows) share one row of means, so their D is exactly 0; a D within rounding
of 0 (ZERO_RTOL = 1e-13 times the largest |score|, :mod:`evalcore.meta.pairs`)
counts as 0 too. Everything depends on
the runs only through their scores, so permuting the runs permutes the pairs
and leaves every summary unchanged (same seed).

The summary follows 003 Table 3 / 004 Tables 1-4: (i) the absolute
difference needed for the confidence level, (ii) the *maximum performance*
observed (the largest mean score of any run on any of the 2B sampled topic
sets; 003 Table 3 prints .9524 = 40/42 for RR on 42 topics), (iii) the
relative difference (i)/(ii) and (iv) the % of comparisons whose difference
reaches (i); rows are sorted by (iv), largest first, as in the papers.
003's prose calls (ii) the "maximum overall absolute difference", but its
numbers (and 004's definition) are the maximum *performance*; we follow the
numbers.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._exact import fmat_imat
from ..workload import check_call
from ._common import Progress, ProgressFn, check_positive_int, check_scores, sign_tol, topic_counts, zero_tolerance
from ._parallel import split_range
from ._workers import Runner, check_process_work, plan, worker_count
from .sampling import sample_topics

__all__ = ["swap_method", "SwapResult", "bin_index", "swap_mask", "RULES", "sort_summary"]

RULES = ("003", "004")
BIN_EPS = 1e-9
#: bytes of pair differences held at once (the four (partners x B) float arrays of a block of pairs); memory
#: stays bounded whatever the number of runs. Sized to a core's cache, not to memory: larger blocks ran slower on
#: one worker and contended for the shared cache when workers ran side by side (docs/benchmarks.md section 18,
#: "Swap's blocks sized to a core's cache"; ``benchmarks/bench_workers.py --swap-blocks``)
ROW_BUDGET = 2 << 20


def bin_index(abs_diff: np.ndarray, bin_width: float = 0.01, n_bins: int = 21) -> np.ndarray:
    """BIN(d): bin i holds i*w <= d < (i+1)*w, the last bin everything >= (n_bins-1)*w.

    ``floor(d / w + 1e-9)``: a difference within 1e-9 bin widths below an edge
    counts as reaching it, so 0.03 falls in bin 3 although 0.03/0.01 is
    2.9999999999999996 in binary floating point.

    >>> bin_index(np.array([0.0, 0.009, 0.01, 0.03, 0.199, 0.2, 0.9])).tolist()
    [0, 0, 1, 3, 19, 20, 20]
    """
    k = np.floor(np.abs(abs_diff) / bin_width + BIN_EPS)
    return np.minimum(k, n_bins - 1).astype(np.intp)


def swap_mask(D: np.ndarray, D2: np.ndarray, rule: str = "003", tol: float = 0.0) -> np.ndarray:
    """Which comparisons are swaps; a difference of magnitude <= ``tol`` counts as zero
    (:func:`swap_method` passes :func:`~evalcore.meta.pairs.zero_tolerance` of the scores: rounding is not
    a difference).

    ``"003"`` (003 Fig. 4): a swap unless D * D' > 0 (so D = 0 is always a swap).
    ``"004"`` (004 Fig. 1): D * D' < 0, or exactly one of D, D' is zero.
    Decided on signs, so products of tiny numbers cannot underflow.

    >>> swap_mask(np.array([1., 1., 0., 0.]), np.array([1., -1., 0., 1.]), "003").tolist()
    [False, True, True, True]
    >>> swap_mask(np.array([1., 1., 0., 0.]), np.array([1., -1., 0., 1.]), "004").tolist()
    [False, True, False, True]
    """
    s1, s2 = sign_tol(D, tol), sign_tol(D2, tol)
    if rule == "003":
        return (s1 * s2) <= 0
    if rule == "004":
        return s1 != s2
    raise ValueError(f"rule must be '003' or '004'; got {rule!r}")


@dataclass(frozen=True)
class SwapResult:
    """Result of :func:`swap_method`.

    Attributes
    ----------
    curves : DataFrame, one row per (metric, bin)
        ``metric``; ``bin`` (0-based); ``lower``, ``upper`` its edges (upper
        = inf for the last bin); ``count`` comparisons whose |D| falls in the
        bin; ``swaps`` how many of them swapped; ``swap_rate`` = swaps / count
        (NaN for an empty bin).
    summary : DataFrame, one row per (metric, confidence) — 003 Table 3 / 004 Table 1
        ``metric``; ``confidence`` (e.g. 0.95); ``abs_diff`` the lower edge of
        the smallest non-empty bin such that it and every non-empty larger bin
        have swap rate <= 1 - confidence (column (i); NaN where the paper
        prints "-"); ``max_performance`` the largest mean score of any run on
        any of the 2B sampled topic sets (column (ii); 003's prose says
        "maximum overall absolute difference", its numbers and 004 mean
        performance); ``relative`` = abs_diff / max_performance (column
        (iii)); ``pct_comparisons`` = 100 * (comparisons with |D| in a bin
        >= abs_diff's) / (pairs * B) (column (iv), the discriminative power);
        ``n_comparisons`` = pairs * B. Rows are grouped by confidence (in the
        order given) and sorted by ``pct_comparisons``, largest first (NaN
        last), as the papers sort their tables.
    Q, Q2 : (B, c) int arrays, the topic samples used (shared by every metric)
    sampling, subset_size, B, seed, rule, bin_width, n_bins : the settings
    """
    curves: pd.DataFrame
    summary: pd.DataFrame
    Q: np.ndarray = field(repr=False)
    Q2: np.ndarray = field(repr=False)
    sampling: str = "replacement"
    subset_size: int = 0
    B: int = 0
    seed: object = 0
    rule: str = "003"
    bin_width: float = 0.01
    n_bins: int = 21


def _summary_row(metric, conf, count, swaps, max_performance, bin_width, total):
    thr = 1.0 - conf
    nonempty = count > 0
    ok = ~nonempty | (swaps <= thr * count + 1e-12 * count)
    # smallest i such that all bins >= i are ok
    bad = np.flatnonzero(~ok)
    start = bad[-1] + 1 if bad.size else 0
    cand = np.flatnonzero(nonempty[start:])
    if cand.size == 0:
        abs_diff = rel = pct = float("nan")
    else:
        i = start + int(cand[0])
        abs_diff = round(i * bin_width, 10)
        rel = abs_diff / max_performance if max_performance > 0 else float("nan")
        pct = 100.0 * float(count[i:].sum()) / total
    return {"metric": metric, "confidence": conf, "abs_diff": abs_diff, "max_performance": max_performance,
            "relative": rel, "pct_comparisons": pct, "n_comparisons": total}


def swap_method(scores: Mapping[str, np.ndarray], *, sampling: str = "replacement", subset_size: int | None = None,
                B: int = 1000, seed: int | None = 0, bin_width: float = 0.01, n_bins: int = 21, rule: str = "003",
                confidences=(0.95, 0.90, 0.80), samples: tuple[np.ndarray, np.ndarray] | None = None,
                progress: ProgressFn | None = None, threads: int | None = None, workers: int | None = None,
                process_work: int | None = None) -> SwapResult:
    """Swap rates per performance-difference bin and the sensitivity summary, for every metric.

    Parameters
    ----------
    scores : {metric label: (n_runs, n_topics) per-topic scores}, one shape for all
    sampling : "replacement" (003; default), "disjoint" (Voorhees/Buckley, 004) or "independent"
    subset_size : c; None = |Q| for replacement, |Q| // 2 otherwise
    B : trials (default 1000)
    seed : seed of the topic samples; the same samples serve every pair and every metric
    bin_width, n_bins : bins [0, w), [w, 2w), ..., [(n_bins-1) w, inf) (default 0.01 and 21)
    rule : "003" (a swap unless D * D' > 0; default) or "004" (sign disagreement or exactly one zero)
    confidences : levels for the summary (default 95%, 90%, 80%)
    samples : optional (Q, Q2) index arrays (B, c) to use instead of drawing them (tests, shared samples)
    progress : callback given the fraction done; return True to cancel (raises Cancelled)
    workers : the most workers running the chunks of trials (the means) and of pairs (the bin counts)
        (default ``$EVALCORE_WORKERS``, else every core; 1: the calling thread only). A call of at least
        ``process_work`` run pairs x B runs on that many worker processes, a smaller one on threads
        (:mod:`evalcore.meta._workers`). Counts are integers, the means exact: the same tables for any number
    process_work : run pairs x B from which the call runs on worker processes (default
        ``_workers.PROCESS_WORK["swap"]``, docs/benchmarks.md section 18; 0: always)
    threads : threads of this process instead (no worker processes), used as given; with neither this nor
        ``workers``, ``$EVALCORE_THREADS`` (when ``$EVALCORE_WORKERS`` is unset) sets the threads, cut to one
        per 2,500,000 run pairs x B (``_parallel.fit_threads``, docs/benchmarks.md section 15.3)

    >>> rng = np.random.default_rng(0)
    >>> r = swap_method({"M": rng.random((4, 10))}, B=50, seed=1)
    >>> list(r.summary.columns)[:6]
    ['metric', 'confidence', 'abs_diff', 'max_performance', 'relative', 'pct_comparisons']
    """
    count, _ = worker_count(workers, threads)
    check_process_work(process_work)
    # sized from every setting together before anything is drawn (docs/reliability.md, "Work products")
    check_call("swap", scores, B=B if samples is None else len(samples[0]), threads=count, sampling=sampling,
               subset_size=subset_size if samples is None else len(samples[0][0]))
    prep = prepare_swap(scores, sampling, subset_size, B, seed, bin_width, n_bins, rule, confidences, samples)
    metrics, mats, n_runs, B, c = prep.metrics, prep.mats, prep.n_runs, prep.B, prep.c
    P = n_runs * (n_runs - 1) // 2
    how = plan("swap", P * B, workers=workers, threads=threads, process_work=process_work)
    per_job = how.tasks(len(metrics), progress)
    groups = task_groups(row_blocks(n_runs, max(1, min(ROW_BUDGET // (8 * 4 * B), P // per_job))), per_job)
    trial_parts = split_range(B, how.parts(len(metrics)))
    prog = Progress(progress, len(metrics) * (len(groups) + len(trial_parts)))
    prog.report(0.0)
    arrays: dict = {"C1": prep.C1, "C2": prep.C2}
    for k, m in enumerate(metrics):
        # one row of means per distinct score row: identical runs get bit-identical means (D = 0 exactly)
        arrays["U", k], arrays["inv", k] = distinct_rows(mats[m])
        arrays["A1", k], arrays["A2", k] = np.empty((n_runs, B)), np.empty((n_runs, B))     # (n_runs, B) each
    with Runner(how, arrays, fresh=[(a, k) for k in range(len(metrics)) for a in ("A1", "A2")]) as run:
        parts = [(k, c, part) for k in range(len(metrics)) for part in trial_parts]
        tops = run.map(_means_task, parts, prog)
        jobs = [(k, g, prep.bin_width, prep.n_bins, prep.rule, prep.tols[m]) for k, m in enumerate(metrics)
                for g in groups]
        hists = run.map(_hist_task, jobs, prog)
    total = {m: np.zeros(2 * prep.n_bins, dtype=np.int64) for m in metrics}
    for job, h in zip(jobs, hists, strict=True):
        total[metrics[job[0]]] += h                          # integer counts: any order, the same sum
    # the largest mean of any run on any sample: every distinct row is some run's, so the parts' maxima
    max_perf = {m: float(max(t for job, t in zip(parts, tops, strict=True) if job[0] == k))
                for k, m in enumerate(metrics)}
    return swap_result(prep, total, max_perf)


def _means_task(arrays: dict, job, cache) -> float:
    """Metric k's means over trials t0..t1-1 of both samples, for every run, into ``arrays["A1"/"A2", k]``;
    returns their largest value."""
    k, c, (t0, t1) = job
    U, inv = arrays["U", k], arrays["inv", k]
    m1, m2 = swap_means(U, arrays["C1"], arrays["C2"], c, t0, t1)
    arrays["A1", k][:, t0:t1] = m1[inv]
    arrays["A2", k][:, t0:t1] = m2[inv]
    return float(max(m1.max(), m2.max()))


def _hist_task(arrays: dict, job, cache) -> np.ndarray:
    """:func:`swap_hist` of metric k's pairs in ``group``."""
    k, group, bin_width, n_bins, rule, tol = job
    return swap_hist(arrays["A1", k], arrays["A2", k], group, bin_width, n_bins, rule, tol)


@dataclass
class SwapSetup:
    """Checked inputs of :func:`swap_method` and what every chunk shares (the topic counts C1, C2 of the
    samples Q, Q2, each (n_topics, B); ``tols``: each metric's rounding tolerance,
    :func:`~evalcore.meta.pairs.zero_tolerance` of its whole score matrix)."""
    metrics: list
    mats: dict
    n_runs: int
    Q: np.ndarray
    Q2: np.ndarray
    C1: np.ndarray
    C2: np.ndarray
    B: int
    c: int
    sampling: str
    seed: object
    bin_width: float
    n_bins: int
    rule: str
    confs: tuple
    tols: dict


def prepare_swap(scores, sampling, subset_size, B, seed, bin_width, n_bins, rule, confidences, samples) -> SwapSetup:
    """Validate :func:`swap_method`'s arguments and draw (or check) the topic samples."""
    metrics, mats, n_runs, n_topics = check_scores(scores)
    if not (bin_width > 0):
        raise ValueError(f"bin_width must be > 0; got {bin_width!r}")
    n_bins = check_positive_int(n_bins, "n_bins")
    if rule not in RULES:
        raise ValueError(f"rule must be '003' or '004'; got {rule!r}")
    confs = tuple(float(c) for c in confidences)
    for c in confs:
        if not (0 < c < 1):
            raise ValueError(f"confidences must lie in (0, 1); got {c!r}")
    if samples is None:
        Q, Q2 = sample_topics(n_topics, sampling=sampling, subset_size=subset_size, B=B, seed=seed)
    else:
        Q, Q2 = (np.asarray(s, dtype=np.intp) for s in samples)
        if Q.ndim != 2 or Q.shape != Q2.shape or Q.size == 0 or Q.min() < 0 or Q2.min() < 0 \
                or max(Q.max(), Q2.max()) >= n_topics:
            raise ValueError(f"samples must be two (B, c) arrays of topic indices 0..{n_topics - 1}")
    B, c = Q.shape
    # (n_topics, B): (M @ C1) / c are the runs' means over Q_b
    return SwapSetup(metrics, mats, n_runs, Q, Q2, topic_counts(Q, n_topics).T, topic_counts(Q2, n_topics).T, B, c,
                     sampling if samples is None else "given", seed, bin_width, n_bins, rule, confs,
                     {m: zero_tolerance(mats[m]) for m in metrics})


def distinct_rows(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows of M, the row of each run among them): identical runs then share one row of means."""
    u, inv = np.unique(M, axis=0, return_inverse=True)
    return u, np.asarray(inv).ravel()


def swap_means(U: np.ndarray, C1: np.ndarray, C2: np.ndarray, c: int, t0: int, t1: int):
    """The means of the rows U over trials t0..t1-1 of both topic samples: ((rows, t1 - t0), same).

    Exact sums (evalcore._exact): the same bits on every CPU and, every column of the topic counts
    summing to c, for any split of the trials, so no swap or bin can flip."""
    return fmat_imat(U, C1[:, t0:t1]) / c, fmat_imat(U, C2[:, t0:t1]) / c


def swap_hist(A1: np.ndarray, A2: np.ndarray, group, bin_width: float, n_bins: int, rule: str,
              tol: float = 0.0) -> np.ndarray:
    """Comparisons and swaps per bin of the pairs in ``group`` (blocks (i, j0, j1): run i against runs
    j0..j1-1), as one int64 histogram indexed by bin * 2 + swapped. A difference of magnitude <= ``tol``
    is 0 in the swap test (the metric's :attr:`SwapSetup.tols`, computed once from its whole score matrix,
    so that no split into tasks can change it)."""
    hist = np.zeros(2 * n_bins, dtype=np.int64)
    for i, j0, j1 in group:
        D = A1[i] - A1[j0:j1]                                # pairs (i, j), j in j0..j1-1: run i minus run j
        D2 = A2[i] - A2[j0:j1]
        code = _bins_fast(D, bin_width, n_bins) * 2 + _swap_fast(D, D2, rule, tol)
        hist += np.bincount(code.ravel(), minlength=2 * n_bins)
    return hist


def swap_result(prep: SwapSetup, hists: dict, max_perfs: dict) -> SwapResult:
    """The result tables from each metric's histogram (:func:`swap_hist`, summed) and maximum performance."""
    P = prep.n_runs * (prep.n_runs - 1) // 2
    curve_rows, summ_rows = [], []
    lower = np.arange(prep.n_bins) * prep.bin_width
    upper = np.r_[lower[1:], np.inf]
    for m in prep.metrics:
        hist = hists[m]
        count = hist[0::2] + hist[1::2]
        swaps = hist[1::2]
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(count > 0, swaps / np.maximum(count, 1), np.nan)
        curve_rows.append(pd.DataFrame({"metric": m, "bin": np.arange(prep.n_bins), "lower": lower, "upper": upper,
                                        "count": count, "swaps": swaps, "swap_rate": rate}))
        for conf in prep.confs:
            summ_rows.append(_summary_row(m, conf, count, swaps, max_perfs[m], prep.bin_width, P * prep.B))
    summary = sort_summary(pd.DataFrame(summ_rows, columns=SUMMARY_COLUMNS), prep.confs)
    return SwapResult(curves=pd.concat(curve_rows, ignore_index=True), summary=summary, Q=prep.Q, Q2=prep.Q2,
                      sampling=prep.sampling, subset_size=prep.c, B=prep.B, seed=prep.seed, rule=prep.rule,
                      bin_width=prep.bin_width, n_bins=prep.n_bins)


def row_blocks(n_runs: int, max_rows: int) -> list[tuple[int, int, int]]:
    """Pairs (i, j > i) as blocks (i, j0, j1) of at most ``max_rows`` partners, in pair_index order."""
    out = []
    for i in range(n_runs - 1):
        for j0 in range(i + 1, n_runs, max_rows):
            out.append((i, j0, min(j0 + max_rows, n_runs)))
    return out


def task_groups(blocks, parts: int) -> list[list]:
    """Consecutive blocks grouped into about ``parts`` tasks of near-equal pair counts (blocks of run i
    hold n_runs - 1 - i pairs, so equal numbers of blocks would not balance the threads)."""
    sizes = np.array([j1 - j0 for _, j0, j1 in blocks], dtype=np.int64)
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if ends.size else 0
    groups, start = [], 0
    for k in range(1, max(parts, 1) + 1):
        stop = int(np.searchsorted(ends, total * k / max(parts, 1), side="left")) + 1
        stop = min(max(stop, start), len(blocks))
        if stop > start:
            groups.append(blocks[start:stop])
            start = stop
    if start < len(blocks):
        groups.append(blocks[start:])
    return groups


def _bins_fast(D: np.ndarray, bin_width: float, n_bins: int) -> np.ndarray:
    """:func:`bin_index` with fewer temporaries (same values: |d| / w + 1e-9, floored, capped)."""
    x = np.abs(D)
    x /= bin_width
    x += BIN_EPS
    np.minimum(x, n_bins - 1, out=x)
    return x.astype(np.intp)              # truncation = floor for x >= 0


def _swap_fast(D: np.ndarray, D2: np.ndarray, rule: str, tol: float = 0.0) -> np.ndarray:
    """:func:`swap_mask` on comparisons (signs only; no products, so nothing underflows); |D| <= ``tol`` is 0."""
    if rule == "003":
        return ~(((D > tol) & (D2 > tol)) | ((D < -tol) & (D2 < -tol)))
    return swap_mask(D, D2, rule, tol)


SUMMARY_COLUMNS = ["metric", "confidence", "abs_diff", "max_performance", "relative", "pct_comparisons",
                   "n_comparisons"]


def sort_summary(summary: pd.DataFrame, confidences) -> pd.DataFrame:
    """Rows grouped by confidence (in the given order), then by % comparisons (column (iv)) descending, NaN
    last; ties keep the metrics' order (stable)."""
    order = {c: i for i, c in enumerate(confidences)}
    key = pd.DataFrame({"c": summary["confidence"].map(order), "p": -summary["pct_comparisons"].fillna(-np.inf)})
    idx = key.sort_values(["c", "p"], kind="stable").index
    return summary.loc[idx].reset_index(drop=True)
