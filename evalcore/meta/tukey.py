"""Randomised Tukey HSD test (Carterette 2012; Sakai 2012/2014), all run pairs at once.

Under H0 (all runs equivalent) the runs' scores on a topic are exchangeable.
For each of B trials, permute the scores *within every topic* across all
runs, compute the run means and their range max - min. The p-value of a pair
is the fraction of trials whose range reaches the pair's observed |mean
difference|; a pair is significant if p < alpha. Using the max-min range
controls the familywise error over all pairs. Discriminative power = % of
pairs significant.

Vectorised: the permutations are drawn in blocks of trials as index arrays
(trials, n_runs, n_topics) shared by every metric; the permuted means are
one gather and one mean per block.

Random streams: the B trials fall into streams of :data:`TRIALS_PER_STREAM`
(10) trials, and stream i draws its permutations from its own generator,
``default_rng(SeedSequence(seed).spawn(n_streams)[i])``, trial after trial.
Streams run on worker processes or threads (``workers``) or as Dask tasks
(:func:`evalcore.meta.on_dask.tukey_hsd`) and give the same permutations, so
the same seed gives the same p-values on every path, with any block size.
(Before this, one generator ``default_rng(seed)`` drew every trial in turn:
the same seed now gives other, equally valid, permutations.) A range within 1e-9 (relative) of the
observed difference counts as reaching it (so the identity permutation
reaches the largest observed difference whatever the summation order).

Order invariance (the p-value must not depend on the order the runs were given in): before the drawn permutations are
applied, the
scores of every topic are sorted (a canonical order of the runs' scores on
that topic). The permutation distribution of the range depends only on the
multiset of scores per topic, so this changes nothing in law, but it makes
the result for a given seed independent of the order in which the runs are
given: permuting the runs permutes the rows of ``pairs`` and nothing else.
Explicit ``permutations`` (tests) are applied to the scores as given.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..workload import check_call
from ._common import (
    TIE_RTOL,
    Progress,
    ProgressFn,
    check_alpha,
    check_positive_int,
    check_run_ids,
    check_scores,
    pair_index,
    pair_keys,
    pair_table,
)
from ._parallel import split_range
from ._workers import Runner, check_process_work, plan, worker_count

__all__ = ["tukey_hsd", "TukeyResult"]


@dataclass(frozen=True)
class TukeyResult:
    """Result of :func:`tukey_hsd`.

    Attributes
    ----------
    pairs : DataFrame, one row per (metric, run pair)
        ``metric``, ``run_x``, ``run_y``; ``mean_diff`` = mean(x) - mean(y);
        ``p_value`` = fraction of permutations whose range of run means >= |mean_diff|;
        ``significant`` = p_value < alpha (the first alpha if several).
    summary : DataFrame, one row per (metric, alpha)
        ``metric``, ``alpha``, ``n_significant``, ``n_pairs``, ``pct_significant``.
    ranges : dict {metric: (B,) array} the permutation distribution of max - min
    B, seed, alphas : the settings
    """
    pairs: pd.DataFrame
    summary: pd.DataFrame
    ranges: dict
    B: int = 0
    seed: object = 0
    alphas: tuple = (0.05,)


#: Most trial x run x topic cells permuted at once (~100 MB of work arrays at 24 bytes a cell).
BLOCK_CELLS = 1 << 22


#: Trials drawn from one random stream. Trial b's permutations come from stream b // TRIALS_PER_STREAM,
#: the generator ``default_rng(SeedSequence(seed).spawn(n_streams)[b // TRIALS_PER_STREAM])``, so any
#: block of streams can be drawn on any thread or Dask worker with the same result.
TRIALS_PER_STREAM = 10

#: Cells per sorted range in :func:`count_below`'s lookup: a key shares a cell with another distinct range
#: value rarely, so few keys need a binary search.
CELLS_PER_VALUE = 16


def trial_streams(B: int, seed) -> list[np.random.SeedSequence]:
    """The seed sequences of the ceil(B / :data:`TRIALS_PER_STREAM`) streams of permutations."""
    return np.random.SeedSequence(seed).spawn(-(-B // TRIALS_PER_STREAM))


def stream_seeds(root: np.random.SeedSequence | None, first: int, count: int) -> list:
    """Streams ``first .. first + count - 1`` of :func:`trial_streams` from its root ``SeedSequence(seed)``,
    made where they are used (a task's own streams, not every stream made and sent by the calling process):
    ``spawn``'s child i is ``SeedSequence(root.entropy, spawn_key=root.spawn_key + (i,), pool_size=...)``.
    ``root`` None (given permutations): None entries.

    >>> r = np.random.SeedSequence(5)
    >>> [s.generate_state(1)[0] for s in stream_seeds(r, 3, 2)] == [s.generate_state(1)[0] for s in
    ...                                                          np.random.SeedSequence(5).spawn(5)[3:]]
    True
    """
    if root is None:
        return [None] * count
    return [np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, i), pool_size=root.pool_size)
            for i in range(first, first + count)]


def stream_ranges(src: dict, seeds: list, first: int, B: int, step: int, n_runs: int, n_topics: int,
                  ranges: dict | None = None, permutations=None, work=None) -> dict:
    """The permutation ranges of streams ``first .. first + len(seeds) - 1`` (their trials, in order).

    ``src``: {metric: flat (runs x topics) scores}, sorted per topic; ``seeds``: those streams'
    SeedSequences (:func:`trial_streams`; None entries with given ``permutations``); ``step``: trials
    permuted at once. Writes into ``ranges`` ({metric: (B,) array}) if given, else returns
    {metric: ranges of these trials}. ``work``: two intp work arrays of >= step x n_runs x n_topics.
    """
    t_first = first * TRIALS_PER_STREAM
    t_end = min((first + len(seeds)) * TRIALS_PER_STREAM, B)
    own = ranges is None
    out = {m: np.empty(t_end - t_first) for m in src} if own else ranges
    assert out is not None
    if work is None:
        work = [np.empty((step, n_runs * n_topics), np.intp) for _ in range(2)]
    draw, idx = work
    for k, ss in enumerate(seeds):
        s = first + k
        rng = None if permutations is not None else np.random.default_rng(ss)
        for t0 in range(s * TRIALS_PER_STREAM, min((s + 1) * TRIALS_PER_STREAM, B), step):
            t1 = min(t0 + step, (s + 1) * TRIALS_PER_STREAM, B)
            ranges_block(src, out, t0, t1, rng, permutations, draw, idx, n_runs, n_topics,
                         offset=t_first if own else 0)
    return out


def ranges_block(src: dict, ranges: dict, t0: int, t1: int, rng, permutations, draw, idx, n_runs: int,
                 n_topics: int, offset: int = 0) -> None:
    """The permutation ranges of trials t0..t1-1 (one stream's, drawn next from ``rng``) into ``ranges``.

    The permutations are drawn as (trial, topic, run) rows, shuffled in place along the contiguous run
    axis: ``rng.permuted`` walks the (trial, topic) slices in the same order with the same Fisher-Yates
    draws whichever axis holds the runs, so these are exactly the permutations of
    ``rng.permuted(arange over runs, axis=1)`` on (trial, run, topic), at ~1/3 of the cost. The flat
    gather index (trial, run, topic) is shared by every metric. ``draw``, ``idx``: work arrays of at
    least t1 - t0 rows of n_runs x n_topics intp. Trial t goes to ``ranges[m][t - offset]``.
    """
    k = t1 - t0
    if permutations is None:
        d = draw[:k].reshape(k, n_topics, n_runs)
        np.copyto(d, np.arange(n_runs, dtype=np.intp))
        rng.permuted(d, axis=2, out=d)
        perm = d.transpose(0, 2, 1)                   # (k, n_runs, n_topics): run perm[b, :, t] for topic t
    else:
        perm = permutations[t0:t1]
    ix = idx[:k].reshape(k, n_runs, n_topics)
    np.multiply(perm, n_topics, out=ix)                # flat index of (perm[b, r, t], t) in a (runs, topics) matrix
    ix += np.arange(n_topics, dtype=np.intp)
    for m, v in src.items():
        pm = v[ix].mean(axis=2)                        # (k, n_runs): the permuted run means
        ranges[m][t0 - offset:t1 - offset] = pm.max(axis=1) - pm.min(axis=1)


def tukey_hsd(scores: Mapping[str, np.ndarray], *, run_ids=None, B: int = 5000, seed: int | None = 0, alpha=0.05,
              block: int = 250, permutations: np.ndarray | None = None,
              progress: ProgressFn | None = None, threads: int | None = None, workers: int | None = None,
              process_work: int | None = None) -> TukeyResult:
    """Randomised Tukey HSD for every run pair of every metric.

    Parameters
    ----------
    scores : {metric label: (n_runs, n_topics) per-topic scores}
    run_ids : names of the runs (default "0", "1", ...)
    B : permutations (default 5000), the same permutations for every metric
    seed : seed of the permutations; same seed, same result
    alpha : significance level or a list of them; one summary row per alpha
    block : at most this many trials permuted at once (and at most :data:`BLOCK_CELLS` trial x run x
        topic cells; memory: 24 bytes per cell); the result does not depend on it
    permutations : optional (B, n_runs, n_topics) int array; column [b, :, t] is the
        permutation of runs applied to topic t in trial b, to the scores as given (tests);
        overrides B and seed
    progress : callback given the fraction done; return True to cancel (raises Cancelled)
    workers : the most workers running the blocks of trials (default ``$EVALCORE_WORKERS``, else every core;
        1: the calling thread only). A call of at least ``process_work`` trials x runs x topics runs on that
        many worker processes, a smaller one on threads (:mod:`evalcore.meta._workers`); every stream of
        :data:`TRIALS_PER_STREAM` trials has its own generator, so the result is the same for any number
    process_work : trials x runs x topics from which the call runs on worker processes (default
        ``_workers.PROCESS_WORK["tukey"]``, docs/benchmarks.md section 18; 0: always)
    threads : threads of this process instead (no worker processes), used as given (``$EVALCORE_THREADS``
        sets them when neither this, ``workers`` nor ``$EVALCORE_WORKERS`` is given)

    >>> hi, lo = [0.9, 0.8, 0.9, 0.7] * 2, [0.1, 0.2, 0.1, 0.2] * 2
    >>> s = {"M": np.array([hi, lo, lo])}
    >>> r = tukey_hsd(s, B=200)
    >>> r.pairs[["run_x", "run_y", "significant"]].values.tolist()
    [['0', '1', True], ['0', '2', True], ['1', '2', False]]
    """
    metrics, mats, n_runs, n_topics = check_scores(scores)
    ids = check_run_ids(run_ids, n_runs)
    if permutations is not None:
        permutations = np.asarray(permutations, dtype=np.intp)
        if permutations.ndim != 3 or permutations.shape[1:] != (n_runs, n_topics):
            raise ValueError(f"permutations must have shape (B, {n_runs}, {n_topics}); got {permutations.shape}")
        B = permutations.shape[0]
    B = check_positive_int(B, "B")
    block = check_positive_int(block, "block")
    count, _ = worker_count(workers, threads)
    check_process_work(process_work)
    # sized from every setting together before anything is drawn (docs/reliability.md, "Work products")
    check_call("tukey", mats, B=B, threads=count)
    alphas = check_alpha(alpha)
    how = plan("tukey", B * n_runs * n_topics, workers=workers, threads=threads, process_work=process_work)
    # each task makes its own streams' seeds from the root (stream_seeds): the same as trial_streams(B, seed)
    root = np.random.SeedSequence(seed) if permutations is None else None
    groups = split_range(-(-B // TRIALS_PER_STREAM), how.tasks(1, progress))
    # trials permuted at once: at most `block`, a stream, and BLOCK_CELLS trial x run x topic cells over
    # all workers (24 bytes each in the work arrays); the result does not depend on it
    step = min(block, TRIALS_PER_STREAM, max(1, BLOCK_CELLS // max(how.count, 1) // (n_runs * n_topics)))
    # canonical order of each topic's scores, so a seed's result does not depend on the run order
    arrays: dict = {}
    for k, m in enumerate(metrics):
        arrays["src", k] = (mats[m] if permutations is not None else np.sort(mats[m], axis=0)).ravel()
        arrays["ranges", k] = np.empty(B)
    if permutations is not None:
        arrays["perms"] = permutations
    jobs = [(len(metrics), root, g0, g1 - g0, B, step, n_runs, n_topics) for g0, g1 in groups]
    outputs = [("ranges", k) for k in range(len(metrics))]
    prog = Progress(progress, len(groups))
    prog.report(0.0)
    made: list = []
    with Runner(how, arrays, outputs=outputs, fresh=outputs, blas=False) as run:
        # the table's names and mean differences need no ranges: made while the tasks run
        run.map(_streams_task, jobs, prog, meanwhile=lambda: made.append(tukey_pairs(mats, ids, metrics)))
    ranges = {m: np.array(arrays["ranges", k]) for k, m in enumerate(metrics)}    # the result's own arrays
    return tukey_result(mats, ids, ranges, B, seed, alphas, prepared=made[0])


def _streams_task(arrays: dict, job, cache) -> None:
    """The ranges of streams first .. first + count - 1 (:func:`stream_ranges`) into ``arrays``."""
    n_metrics, root, first, count, B, step, n_runs, n_topics = job
    src = {k: arrays["src", k] for k in range(n_metrics)}
    ranges = {k: arrays["ranges", k] for k in range(n_metrics)}
    stream_ranges(src, stream_seeds(root, first, count), first, B, step, n_runs, n_topics, ranges, arrays.get("perms"),
                  cache.get(step, n_runs * n_topics, np.intp, np.intp))


def count_below(sorted_values: np.ndarray, keys: np.ndarray, *, out: np.ndarray | None = None,
                work: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """How many of ``sorted_values`` (ascending) lie below each key: ``np.searchsorted(sorted_values, keys,
    side="left")``, equal to it for every input, at a fraction of its cost for many unsorted keys.

    A binary search per key is slow when the keys come in no order (each step a branch the processor cannot
    predict; the times: docs/benchmarks.md section 18). Here the span of the values is cut into
    :data:`CELLS_PER_VALUE` cells per value by a function ``cell`` that never decreases (a subtraction, a
    product by a positive number, a clip and a truncation, each monotone in IEEE arithmetic), applied alike
    to the values and the keys. Then a value in a lower cell than a key's lies below it and one in a higher
    cell does not, so a key's count is the values in the lower cells (a lookup) plus those of its own cell
    below it: none when the cell is empty or the key is not above its smallest value, all when the key is
    above its largest, a binary search otherwise (rare). Few keys (under 8 a value), non-finite keys or
    values, and a span beyond floats take ``np.searchsorted`` itself.

    ``out`` (an intp array of the keys' shape) receives the counts; ``work`` (a float64 and an intp array of
    the keys' shape) holds the keys' cells. Given arrays whose pages are already in memory, the call allocates
    nothing of the keys' size: a fresh array of a few hundred KiB is mapped from the system and its pages
    faulted in on first write, which cost more than the counting itself on a cold call (docs/benchmarks.md
    section 18).
    """
    n = sorted_values.size
    if out is None:
        out = np.empty(keys.shape, np.intp)
    if n == 0 or keys.size < 8 * n or not np.isfinite(keys).all():
        out[...] = np.searchsorted(sorted_values, keys, side="left")
        return out
    lo, hi = float(sorted_values[0]), float(sorted_values[-1])
    G = CELLS_PER_VALUE * n
    span = hi - lo                                # Python floats: inf or nan, never an exception
    scale = G / span * (1 - 2.0 ** -20) if span > 0 else 0.0    # the largest value in cell G, far keys in G + 1
    if not (math.isfinite(span) and math.isfinite(scale) and scale > 0):
        out[...] = np.searchsorted(sorted_values, keys, side="left")    # one value, or a span beyond floats
        return out

    def cell(x: np.ndarray, c: np.ndarray | None = None, ck: np.ndarray | None = None) -> np.ndarray:
        # 0 (below lo) .. G + 1, never decreasing in x
        with np.errstate(over="ignore"):          # far keys become +-inf, clipped like any far key
            c = np.subtract(x, lo, out=c)
            c *= scale
        np.clip(c, -1.0, float(G), out=c)
        c += 1.0
        if ck is None:
            return c.astype(np.intp)
        np.copyto(ck, c, casting="unsafe")        # the same truncation as astype
        return ck

    per_cell = np.bincount(cell(sorted_values), minlength=G + 2)
    below = np.zeros(G + 2, np.intp)               # values in the cells under each cell
    np.cumsum(per_cell[:-1], out=below[1:])
    ck = cell(keys, *(work if work is not None else (None, None)))
    np.take(below, ck, out=out, mode="clip")       # every cell index is in range; "clip" writes out unbuffered
    shared = np.flatnonzero((per_cell > 0)[ck])    # keys whose cell holds values
    if shared.size:
        c = ck[shared]
        first, count = below[c], per_cell[c]
        v0, v1 = sorted_values[first], sorted_values[first + count - 1]
        k = keys[shared]
        out[shared] = first + np.where(v1 < k, count, 0)     # all the cell's values below the key, or none
        inside = shared[(v0 < k) & (k <= v1)]                 # some: a binary search
        if inside.size:
            out[inside] = np.searchsorted(sorted_values, keys[inside], side="left")
    return out


def tukey_pvalues(means: np.ndarray, pi: np.ndarray, pj: np.ndarray, sorted_ranges: np.ndarray):
    """(mean_diff, p_value) of the pairs (pi, pj): the fraction of the B ranges that reach |mean_diff|."""
    d = means[pi] - means[pj]
    return d, pvalues_of(d, sorted_ranges)


def thresholds(d: np.ndarray) -> np.ndarray:
    """The values a range must reach to count for the mean differences ``d``: |d| less :data:`~._common.TIE_RTOL`
    of it (a range within that tolerance of |d| counts)."""
    thr = np.abs(d)
    thr *= 1 - TIE_RTOL
    return thr


def pvalues_of(d: np.ndarray, sorted_ranges: np.ndarray) -> np.ndarray:
    """The p-values of the mean differences ``d``: the fraction of the B sorted ranges that reach |d|
    (:func:`thresholds`)."""
    B = sorted_ranges.size
    return (B - count_below(sorted_ranges, thresholds(d))) / B


def tukey_pairs(mats: dict, ids: list, metrics: list) -> tuple:
    """What :func:`tukey_result` needs before the ranges exist: the pair index (pi, pj), the table's key
    columns (:func:`~._common.pair_keys`: metric, run_x, run_y), every metric's mean differences in one array,
    metric after metric (the ``mean_diff`` column), their :func:`thresholds`, and the arrays the p-values are
    counted in (:func:`count_below`'s ``out`` and ``work``, and the ``p_value`` column), written once so that
    their pages are in memory. :func:`tukey_hsd` makes them while its tasks run."""
    n_runs = mats[metrics[0]].shape[0]
    pi, pj = pair_index(n_runs)
    P = pi.size
    keys = pair_keys(ids, pi, pj, {"metric": list(metrics)})
    diff = np.empty(len(metrics) * P)
    for k, m in enumerate(metrics):
        means = mats[m].mean(axis=1)
        np.subtract(means[pi], means[pj], out=diff[k * P:(k + 1) * P])
    work = {"p_value": np.empty(diff.size), "counts": np.empty(P, np.intp), "cells": np.empty(P),
            "cell_index": np.empty(P, np.intp)}
    for a in work.values():
        a.fill(0)                                  # the pages faulted in now, while the workers compute
    return pi, pj, keys, diff, thresholds(diff), work


def tukey_result(mats: dict, ids: list, ranges: dict, B: int, seed, alphas: tuple,
                 prepared: tuple | None = None) -> TukeyResult:
    """The result tables from every metric's B permutation ranges (the pairs' p-values by
    :func:`pvalues_of`, in the calling process on every path: with :func:`count_below` they cost less than a
    hand-off to worker processes and back, docs/benchmarks.md section 18). ``prepared``: :func:`tukey_pairs`
    of these scores, ids and metrics (``ranges``' order), made beforehand (else made here)."""
    metrics = list(ranges)
    pi, pj, keys, diff, thr, work = tukey_pairs(mats, ids, metrics) if prepared is None else prepared
    P = pi.size
    pval, counts = work["p_value"], work["counts"]
    summ = []
    for k, m in enumerate(metrics):
        p = pval[k * P:(k + 1) * P]
        # the p-values as pvalues_of counts them, in the arrays tukey_pairs made: (B - count) / B
        n_ranges = ranges[m].size
        count_below(np.sort(ranges[m]), thr[k * P:(k + 1) * P], out=counts, work=(work["cells"], work["cell_index"]))
        np.subtract(n_ranges, counts, out=p)
        p /= n_ranges
        for a in alphas:
            n_sig = int(np.count_nonzero(p < a))
            summ.append({"metric": m, "alpha": a, "n_significant": n_sig, "n_pairs": P,
                         "pct_significant": 100.0 * n_sig / P})
    pairs = pair_table(ids, pi, pj, {"metric": metrics},
                       {"mean_diff": diff, "p_value": pval, "significant": pval < alphas[0]}, key_columns=keys)
    return TukeyResult(pairs=pairs,
                       summary=pd.DataFrame(summ, columns=["metric", "alpha", "n_significant", "n_pairs",
                                                           "pct_significant"]),
                       ranges=ranges, B=B, seed=seed, alphas=alphas)
