"""Shared plumbing of :mod:`evalcore.meta`: validation, run pairs, progress/cancel.

Every long computation in this package takes ``progress``: a callable that is
given the fraction of the work done (0..1) at least every ~5% of the work and
at the end; if it returns ``True`` the computation stops by raising
:class:`Cancelled`. Nothing here holds global state.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

ProgressFn = Callable[[float], "bool | None"]

# Relative tolerance used where a statistic computed by matrix products is
# compared with >= against an observed value that an exact computation could
# reproduce bit for bit (bootstrap |t| ties, Tukey range ties). A bootstrap
# value within 1e-9 (relative) of the observed one counts as reaching it, so
# the summation order of BLAS cannot move a tie across the comparison.
TIE_RTOL = 1e-9

#: Relative tolerance of the one rule "equal within rounding", wherever scores or their paired differences are
#: compared with each other or with zero: two values that differ by at most ZERO_RTOL times the scores' scale
#: are the same value. Against zero (:func:`zero_rounding`, :func:`sign_tol`): the sign and Wilcoxon tests drop
#: such a difference as a tie (and every other test of :func:`evalcore.meta.pair_statistics` sees 0), as do the
#: bootstrap test, the better / worse counts and marks of :func:`evalcore.compare` and the swap method's signs.
#: Against each other (:func:`tie_groups`): the Wilcoxon test's ranks of |differences| (P@5's 0.6 - 0.4 and
#: 0.4 - 0.2 are different floats, one value on paper) and the ranks of Kendall's tau / Spearman's rho / tau_ap.
#: The tolerance is ZERO_RTOL times the scores' scale, the largest |score| of the matrix (or vectors)
#: compared (:func:`zero_tolerance`): about 450 ulps (float64 eps = 2.2e-16) of the largest score. That is
#: far above the rounding of a score summed in another order (0.1 + (0.2 + 0.3) - ((0.1 + 0.2) + 0.3) is
#: -1.1e-16) and far below any difference a rank-based metric can make (the smallest, one of R relevant
#: documents moved from rank k to k + 1 in AP, is about 1 / (R k^2): 1e-12 at R = k = 10^4).
ZERO_RTOL = 1e-13


def zero_tolerance(*scores) -> float:
    """The absolute tolerance of :data:`ZERO_RTOL`: ZERO_RTOL times the largest finite |score| of the arrays
    given (0 when there is none).

    >>> zero_tolerance(np.array([[0.5, -2.0], [np.nan, 1.0]]))
    2e-13
    """
    top = 0.0
    for a in scores:
        x = np.abs(np.asarray(a, dtype=np.float64))
        x = x[np.isfinite(x)]
        if x.size:
            top = max(top, float(x.max()))
    return ZERO_RTOL * top


def zero_rounding(d: np.ndarray, tol: float) -> np.ndarray:
    """``d`` with every difference of magnitude <= ``tol`` set to exactly 0 (in place; NaN stays NaN).

    >>> zero_rounding(np.array([0.1 + (0.2 + 0.3) - ((0.1 + 0.2) + 0.3), 0.25, np.nan]), 1e-13).tolist()
    [0.0, 0.25, nan]
    """
    d[np.abs(d) <= tol] = 0.0
    return d


def sign_tol(d: np.ndarray, tol: float) -> np.ndarray:
    """The sign of ``d`` (+1, 0, -1; float) with differences of magnitude <= ``tol`` counted as 0.

    >>> sign_tol(np.array([1e-17, -0.5, 0.0, 0.5]), 1e-13).tolist()
    [0.0, -1.0, 0.0, 1.0]
    """
    d = np.asarray(d, dtype=np.float64)
    return np.where(d > tol, 1.0, np.where(d < -tol, -1.0, 0.0))


def tie_groups(a: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ties by value along axis 1 of a 2-D array: ``(ranks, sizes, values)``, each of ``a``'s shape.

    Each row is sorted; a value starts a new tie group when it exceeds the one before it by more than
    ``tol`` (:data:`ZERO_RTOL` times the scores' scale), so the rounding variants of one value (0.6 - 0.4 =
    0.19999999999999996 and 0.4 - 0.2 = 0.2) are one group, as they are on paper. ``ranks``: average ranks
    1..n (``scipy.stats.rankdata``'s "average" on the grouped values); ``sizes``: the size of each value's
    group; ``values``: each value replaced by its group's smallest member, so that rank-based code (or scipy)
    given ``values`` sees the same ties. Why gaps and not rounding to a number of decimals: a grid has
    boundaries, and the two rounding variants of a value on one (2**-13 = 0.0001220703125 at 12 decimals)
    round apart; a gap of at most ``tol`` has none. Its own risk, distinct values chained through gaps of at
    most ``tol`` each, needs values closer than any metric makes them (:data:`ZERO_RTOL`). ``+inf`` entries
    (padding) sort last and group with each other.

    >>> r, k, v = tie_groups(np.array([[0.6 - 0.4, 0.4 - 0.2, 0.1, np.inf]]), 1e-13)
    >>> r.tolist(), k.tolist(), v[0, :3].tolist()
    ([[2.5, 2.5, 1.0, 4.0]], [[2.0, 2.0, 1.0, 1.0]], [0.19999999999999996, 0.19999999999999996, 0.1])
    """
    P, n = a.shape
    order = np.argsort(a, axis=1, kind="stable")
    s = np.take_along_axis(a, order, axis=1)
    idx = np.broadcast_to(np.arange(n), (P, n))
    new = np.ones((P, n), dtype=bool)
    with np.errstate(invalid="ignore"):          # inf - inf (padding) is NaN: not a new group
        new[:, 1:] = s[:, 1:] - s[:, :-1] > tol
    last = np.ones((P, n), dtype=bool)
    last[:, :-1] = new[:, 1:]
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, idx, n - 1)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty((P, n))
    sizes = np.empty((P, n))
    values = np.empty((P, n))
    np.put_along_axis(ranks, order, (start + end) / 2.0 + 1.0, axis=1)
    np.put_along_axis(sizes, order, (end - start + 1).astype(np.float64), axis=1)
    np.put_along_axis(values, order, np.take_along_axis(s, start, axis=1), axis=1)
    return ranks, sizes, values


class Cancelled(Exception):
    """Raised when the ``progress`` callback returns ``True``."""


class Progress:
    """Calls ``progress(fraction)`` for ``total`` units of work; raises :class:`Cancelled`."""

    def __init__(self, progress: ProgressFn | None, total: int):
        self.fn = progress
        self.total = max(int(total), 1)
        self.done = 0

    def step(self, units: int = 1) -> None:
        self.done += units
        self.report(min(self.done / self.total, 1.0))

    def report(self, fraction: float) -> None:
        if self.fn is not None and self.fn(float(fraction)) is True:
            raise Cancelled(f"cancelled at {fraction:.0%}")


def check_scores(scores: Mapping[str, np.ndarray], *, min_runs: int = 2, min_topics: int = 1
                 ) -> tuple[list[str], dict[str, np.ndarray], int, int]:
    """Validate ``{metric: (n_runs, n_topics) array}``; all arrays of one shape, finite.

    Returns (metric labels, float64 arrays, n_runs, n_topics).
    """
    if isinstance(scores, np.ndarray):
        raise ValueError("scores must be a mapping {metric label: (n_runs, n_topics) array}; "
                         "got a bare array (wrap it: {'metric': array})")
    if not isinstance(scores, Mapping) or len(scores) == 0:
        raise ValueError(f"scores must be a non-empty mapping {{metric: (n_runs, n_topics) array}}; got {scores!r:.60}")
    out: dict[str, np.ndarray] = {}
    shape: tuple[int, ...] | None = None
    for key, m in scores.items():
        a = np.asarray(m, dtype=np.float64)
        if a.ndim != 2:
            raise ValueError(f"scores[{key!r}] must be 2-D (n_runs, n_topics); got shape {a.shape}")
        if shape is None:
            shape = a.shape
        elif a.shape != shape:
            raise ValueError(f"every score matrix must have one shape; scores[{key!r}] has {a.shape}, "
                             f"the first has {shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"scores[{key!r}] holds NaN or infinite values; fill missing (run, topic) cells first")
        out[str(key)] = a
    assert shape is not None          # scores is a non-empty mapping (checked above)
    n_runs, n_topics = shape
    if n_runs < min_runs:
        raise ValueError(f"need at least {min_runs} runs; got {n_runs}")
    if n_topics < min_topics:
        raise ValueError(f"need at least {min_topics} topics; got {n_topics}")
    return list(out), out, n_runs, n_topics


def check_run_ids(run_ids, n_runs: int) -> list[str]:
    if run_ids is None:
        return [str(i) for i in range(n_runs)]
    ids = [str(r) for r in run_ids]
    if len(ids) != n_runs:
        raise ValueError(f"run_ids must name every run: {n_runs} runs; got {len(ids)} ids")
    return ids


def check_positive_int(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or int(value) != value or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
    return int(value)


def check_alpha(alpha, name: str = "alpha") -> tuple[float, ...]:
    vals = (alpha,) if np.isscalar(alpha) else tuple(alpha)
    if not vals:
        raise ValueError(f"{name} must be a number in (0, 1) or a list of them; got an empty list")
    for a in vals:
        if not (0 < float(a) < 1):
            raise ValueError(f"{name} must lie in (0, 1); got {a!r}")
    return tuple(float(a) for a in vals)


def pair_index(n_runs: int) -> tuple[np.ndarray, np.ndarray]:
    """All pairs i < j of run indices, in the order (0,1), (0,2), ..., (1,2), ... (``np.triu_indices(n_runs, 1)``,
    made from the rows' lengths instead of an n x n mask).

    >>> [a.tolist() for a in pair_index(4)]
    [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    """
    rows = np.arange(n_runs, dtype=np.intp)
    i = np.repeat(rows, n_runs - 1 - rows)
    first = rows * (2 * n_runs - rows - 1) // 2          # index of pair (r, r + 1)
    return i, np.arange(i.size, dtype=np.intp) - first[i] + i + 1


def pair_names(ids, pi: np.ndarray, pj: np.ndarray):
    """The ``run_x`` and ``run_y`` columns of a per-pair table: ``ids[pi]`` and ``ids[pj]`` as pandas Series
    of the dtype a DataFrame gives a list of these ids (``str`` on pandas 3, object before), each made by one
    take instead of a Python list of every pair's id per column and metric (at 1,000 runs, 499,500 ids:
    ~0.1 s a column, a serial step after the parallel chunks; docs/benchmarks.md section 15.3)."""
    import pandas as pd
    names = pd.Series(list(ids))
    return names.take(pi).reset_index(drop=True), names.take(pj).reset_index(drop=True)


def pair_keys(ids, pi: np.ndarray, pj: np.ndarray, keys: Mapping[str, Sequence]) -> dict:
    """The leading columns of :func:`pair_table`: ``keys`` ({column: one value per block}) and then ``run_x`` and
    ``run_y``, for every block. They need none of the method's results, so a method makes them while its tasks
    run (``meanwhile`` of :meth:`~._workers.Runner.map`) and hands them to :func:`pair_table`."""
    import pandas as pd
    n_blocks = len(next(iter(keys.values())))
    P = pi.size
    run_x, run_y = pair_names(ids, pi, pj)
    out: dict = {}
    for name, values in keys.items():
        each: dict = {}
        for v in values:
            if v not in each:
                each[v] = pd.Series(v, index=pd.RangeIndex(P))
        blocks = [each[v] for v in values]
        out[name] = blocks[0] if n_blocks == 1 else pd.concat(blocks, ignore_index=True)
    for name, col in (("run_x", run_x), ("run_y", run_y)):
        out[name] = col if n_blocks == 1 else pd.concat([col] * n_blocks, ignore_index=True)
    return out


def pair_table(ids, pi: np.ndarray, pj: np.ndarray, keys: Mapping[str, Sequence],
               columns: Mapping[str, Sequence | np.ndarray], key_columns: dict | None = None):
    """A per-pair table of ``len(keys[...])`` blocks of the same run pairs ``(pi, pj)``, one block after another.

    ``keys``: {column: one value per block} (the metric, stability's fuzziness), written before ``run_x`` and
    ``run_y``; ``columns``: {column: one array of the pairs' values per block}, after them, copied into the
    table; or {column: one 1-D array of every block's values, block after block}, which becomes the column
    without a copy (the caller hands it over and does not change it). ``key_columns``: :func:`pair_keys` of the
    same ids, pairs and keys, made beforehand (else made here). The table equals
    ``pd.concat`` of one ``DataFrame({key: value, "run_x": ..., **arrays})`` per block, column for column and
    dtype for dtype, built without its per-block frames: a block's constant and name columns are made once
    and repeated by ``pd.concat`` of the same Series, which for pandas' Arrow-backed strings (``str``, pandas
    3) only chains the chunks, no copy; each numeric column is one ``np.concatenate``. What the calling process
    does after its workers end is Amdahl's serial part of a call (docs/benchmarks.md section 18), so the
    methods make the key columns while the workers run."""
    import pandas as pd
    n_blocks = len(next(iter(keys.values())))
    P = pi.size
    out = dict(pair_keys(ids, pi, pj, keys) if key_columns is None else key_columns)
    for name, arrays in columns.items():
        if isinstance(arrays, np.ndarray):
            if arrays.shape != (n_blocks * P,):
                raise ValueError(f"column {name!r}: {n_blocks} blocks of {P} pairs need {n_blocks * P} values; "
                                 f"got an array of shape {arrays.shape}")
            out[name] = arrays
        else:
            out[name] = np.concatenate(list(arrays)) if n_blocks > 1 else np.array(arrays[0])
    return pd.DataFrame(out, copy=False)


def pair_range(n_runs: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``start .. stop - 1`` of :func:`pair_index`'s order, without building all of it.

    >>> [a.tolist() for a in pair_range(4, 2, 5)], [a[2:5].tolist() for a in pair_index(4)]
    ([[0, 1, 1], [3, 2, 3]], [[0, 1, 1], [3, 2, 3]])
    """
    rows = np.arange(n_runs, dtype=np.int64)
    first = rows * (2 * n_runs - rows - 1) // 2          # index of pair (i, i + 1)
    k = np.arange(start, stop, dtype=np.int64)
    i = np.searchsorted(first, k, side="right") - 1
    j = k - first[i] + i + 1
    return i.astype(np.intp), j.astype(np.intp)


def pair_chunks(n_pairs: int, per_row_bytes: int, *, n_jobs: int = 1, budget: int = 16 << 20,
                min_chunks: int = 20) -> list[slice]:
    """Split ``n_pairs`` into slices that each use at most ``budget`` bytes
    (``per_row_bytes`` per pair) and, over ``n_jobs`` such jobs, give at least
    ``min_chunks`` progress steps in all."""
    by_mem = max(1, budget // max(per_row_bytes, 1))
    want = max(1, -(-min_chunks // max(n_jobs, 1)))
    by_steps = max(1, n_pairs // want)
    size = max(1, min(by_mem, by_steps))
    return [slice(s, min(s + size, n_pairs)) for s in range(0, n_pairs, size)]


_blas_lock = threading.Lock()
_blas_state: dict[str, Any] = {"depth": 0, "limiter": None, "controller": None}


@contextmanager
def one_blas_thread():
    """Run the block with BLAS limited to one thread (threadpoolctl), if threadpoolctl is installed.

    The products here are many small (chunk x topics) @ (topics x B) calls:
    a second OpenBLAS thread does not shorten them but spins, doubling the
    CPU time (docs/benchmarks.md section 7, 1 vs 2 threads). Without
    threadpoolctl this does nothing; set ``OPENBLAS_NUM_THREADS=1`` before
    starting Python instead. Nested and concurrent uses (the dashboard runs
    scripts in threads) share one limit, set by the first to enter and
    restored when the last one leaves. Caveat (observed with numpy 2.4's
    scipy-openblas 0.3.31): once the main thread has set OpenBLAS's thread
    count, a later call from another thread is ignored, so in a threaded
    server the limit may not apply; results are the same either way.
    """
    with _blas_lock:
        if _blas_state["depth"] == 0:
            if _blas_state["controller"] is None:
                try:
                    from threadpoolctl import ThreadpoolController
                    _blas_state["controller"] = ThreadpoolController()
                except ImportError:
                    _blas_state["controller"] = False      # not installed: do nothing, do not retry
            ctl = _blas_state["controller"]
            _blas_state["limiter"] = ctl.limit(limits=1, user_api="blas") if ctl else None
        _blas_state["depth"] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_state["depth"] -= 1
            if _blas_state["depth"] == 0 and _blas_state["limiter"] is not None:
                _blas_state["limiter"].restore_original_limits()
                _blas_state["limiter"] = None


def work_arrays(rows: int, cols: int, *dtypes) -> list[np.ndarray]:
    """One C-contiguous (rows, cols) array per dtype, carved from one allocation and staggered in memory.

    The pair-chunked kernels stream through several (pairs x B) arrays at
    once. Fresh arrays of a few hundred KB come from mmap, so they all start
    at the same offset within a 4 KB page and their elements alias in the L1
    cache, so the same chunk loop runs fast or several times slower depending
    on the allocation history (docs/benchmarks.md section 7). Arrays made once per call
    and placed at different offsets within a page run at the fast speed
    every time, and allocating once also saves the page faults of a new
    array per chunk. Array i starts i * (4096 / n) bytes into a page (n
    different offsets). Take ``a[:p]`` views for a shorter last chunk.

    >>> a, b, m = work_arrays(3, 100, np.float64, np.float64, np.bool_)
    >>> a.shape, m.dtype, a.flags.c_contiguous, (b.ctypes.data - a.ctypes.data) % 4096 != 0
    ((3, 100), dtype('bool'), True, True)
    """
    n = len(dtypes)
    sizes = [rows * cols * np.dtype(d).itemsize for d in dtypes]
    step = max(64, 4096 // max(n, 1) // 64 * 64)      # array i starts i * step bytes into a page
    starts, at = [], 0
    for i, size in enumerate(sizes):
        at += -at % 4096 + i * step % 4096
        starts.append(at)
        at += size
    raw = np.empty(at + 4096, dtype=np.uint8)
    base = -raw.ctypes.data % 4096
    return [raw[base + o: base + o + size].view(d).reshape(rows, cols)
            for o, size, d in zip(starts, sizes, dtypes, strict=True)]


def count_rows(mask: np.ndarray) -> np.ndarray:
    """How many True in each row of a 2-D bool array; int64.

    ``np.count_nonzero(mask, axis=1)`` without its bool -> int64 conversion:
    the bytes are summed in uint16 (exact for rows shorter than 65,536), the
    dearer step on (pairs x B) chunks left out (docs/benchmarks.md section 17).

    >>> count_rows(np.array([[True, False, True], [False, False, False]])).tolist()
    [2, 0]
    """
    u8 = mask.view(np.uint8)
    if mask.shape[1] < 1 << 16:
        return u8.sum(axis=1, dtype=np.uint16).astype(np.int64)
    return u8.sum(axis=1, dtype=np.int64)


def topic_counts(samples: np.ndarray, n_topics: int) -> np.ndarray:
    """counts[b, t] = how many times topic t occurs in sample b; float64 (B, n_topics).

    >>> topic_counts(np.array([[0, 2, 0, 1, 4]]), 5).tolist()
    [[2.0, 1.0, 1.0, 0.0, 1.0]]
    """
    samples = np.asarray(samples, dtype=np.intp)
    B = samples.shape[0]
    flat = (np.arange(B, dtype=np.intp)[:, None] * n_topics + samples).ravel()
    return np.bincount(flat, minlength=B * n_topics).reshape(B, n_topics).astype(np.float64)


def round_sig(x: float, digits: int = 2) -> float:
    """Round to ``digits`` significant figures (Fig. 7's 'two significant figures').

    >>> round_sig(0.18349), round_sig(0.0), round_sig(1.234)
    (0.18, 0.0, 1.2)
    """
    x = float(x)
    if not np.isfinite(x) or x == 0:
        return x
    return float(f"{x:.{digits - 1}e}")
