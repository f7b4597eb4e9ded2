"""Finished resampling results, reused row by row: :func:`evalcore.meta.repeat`'s ``reuse=`` store.

Each method (swap, bootstrap, Tukey HSD, stability) draws its samples from the seed alone and treats every
metric on its own, so one summary row - one metric at one level (confidence, alpha or fuzziness) - is
fixed by the method, that metric's score matrix, the seed and the method's other settings, whichever
metrics and levels shared the call (tests/test_report_reuse.py checks the tables against calls without
the store, byte for byte). For the swap, bootstrap and stability methods it is fixed whatever the order of
the runs too (:data:`ORDER_FREE`). A store keyed by exactly these (:func:`row_key`; the score matrix by
a digest of its bytes, shape and dtype) lets a later call take the rows an earlier call computed: the
dashboard's Bootstrap page, run at the report's B and seed, fills the rows of the report's Table 4, and
the report computes only the metrics (and seeds) not found. Settings that change no number (threads,
workers, run names, progress) are not part of the key; every other argument is, with its default filled in, so
``rule="003"`` written or left to its default is one key.

The store is anything with ``lookup(key)`` (the row or None) and ``put(key, row)``, such as
:class:`evalcore._cache.BytesLRU`.
"""
from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .bootstrap import bootstrap_sensitivity
from .stability import stability
from .swap import swap_method
from .tukey import tukey_hsd

__all__ = ["RowStore", "FUNCTIONS", "LEVEL_ARGUMENT", "LEVEL_COLUMN", "ORDER_FREE", "digest", "method_settings",
           "row_key", "keep_rows", "take_rows"]

#: method -> its in-memory function (as :data:`evalcore.meta.repeat.METHODS`), whose signature gives the defaults
FUNCTIONS: dict[str, Callable[..., Any]] = {"swap": swap_method, "bootstrap": bootstrap_sensitivity,
                                             "stability": stability, "tukey": tukey_hsd}
#: method -> the argument holding its summary levels (one summary row per metric and level)
LEVEL_ARGUMENT = {"swap": "confidences", "bootstrap": "alpha", "tukey": "alpha", "stability": "fuzziness"}
#: method -> the summary column holding the level
LEVEL_COLUMN = {"swap": "confidence", "bootstrap": "alpha", "tukey": "alpha", "stability": "fuzziness"}
#: arguments that change no summary figure (or fix the draw: never reused), left out of the key
_NOT_KEYED = frozenset({"scores", "seed", "progress", "threads", "workers", "process_work", "run_ids", "samples",
                        "permutations"})
#: columns of a repetition's summary that are not the method's own
_REPEAT_COLUMNS = ("repeat", "seed")


class RowStore(Protocol):
    """Where rows are kept: ``lookup(key)`` gives the row or None, ``put(key, row)`` keeps one."""

    def lookup(self, key: Any) -> Any: ...

    def put(self, key: Any, value: Any) -> None: ...


#: Methods whose summary does not depend on the order of the runs (the rows of a score matrix): they draw
#: topics only, every figure sums or takes the maximum over run pairs, and a pair taken the other way
#: round changes only the sign of its differences, which every sum keeps exactly (evalcore._exact: integer-
#: weighted sums in a fixed order). Tukey HSD permutes scores across runs, so the order is part of its draw.
ORDER_FREE = frozenset({"swap", "bootstrap", "stability"})


def digest(matrix: np.ndarray, order_free: bool = False) -> str:
    """A digest of a score matrix's values and shape (as float64, as every method reads it); with
    ``order_free`` the same for any order of its rows (the runs: the report ranks them best first, a page
    keeps the collection's order)."""
    a = np.ascontiguousarray(matrix, dtype=np.float64)
    if order_free and a.ndim == 2 and a.shape[0] > 1:
        a = np.ascontiguousarray(a[np.lexsort(a.T[::-1])])
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((a.shape, bool(order_free))).encode())
    h.update(a.tobytes())
    return h.hexdigest()


def _plain(v: Any) -> Any:
    if isinstance(v, (list, tuple, np.ndarray)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    return v


def _levels(v: Any) -> tuple[float, ...]:
    """The levels as the methods read them (check_alpha, the swap's confidences, the stability's fuzziness)."""
    values: list[Any] = [v] if np.isscalar(v) else list(v)
    return tuple(float(x) for x in values)


def method_settings(method: str, kwargs: Mapping[str, Any]) -> tuple[tuple[float, ...], tuple]:
    """``(levels, settings)`` of one call of ``method`` (its in-memory function, :data:`FUNCTIONS`) with
    ``kwargs``: the summary levels asked for, and every other argument that shapes a number, defaults
    filled in, as a hashable tuple."""
    params = inspect.signature(FUNCTIONS[method]).parameters
    full = {n: p.default for n, p in params.items() if p.default is not inspect.Parameter.empty}
    full.update({k: v for k, v in kwargs.items() if k in params})
    levels = _levels(full.pop(LEVEL_ARGUMENT[method]))
    settings = tuple(sorted((k, _plain(v)) for k, v in full.items() if k not in _NOT_KEYED))
    return levels, settings


def row_key(method: str, matrix_digest: str, seed: int, level: float, settings: tuple) -> tuple:
    """The identity of one summary row: method, the metric's scores (digest), seed, level, settings. The
    metric's name is not part of it (a label: ``P+-measure`` on a page is ``P+ 3:2:1 (default)`` in the
    report's Table 6); :func:`take_rows` writes the caller's name into the rows it gives."""
    return ("row", method, matrix_digest, int(seed), float(level), settings)


def keep_rows(store: RowStore, method: str, scores: Mapping[str, np.ndarray], summary: pd.DataFrame,
              kwargs: Mapping[str, Any], *, seed: int | None = None, digests: Mapping[str, str] | None = None) -> None:
    """Keep every row of ``summary`` in ``store``, one entry per metric and level: ``summary`` is the
    summary of ``method`` on ``scores`` with ``seed`` and ``kwargs``, or the repetitions of
    :func:`evalcore.meta.repeat` (``per_repeat``: each row's seed in its ``seed`` column). A row is kept
    as ``(columns, dtypes, values)``: about 0.7 KB with its key, where a one-row frame held 4-7 KB of pandas'
    own structures (a store of rows is bounded by bytes); :func:`unpack_row` gives the frame back."""
    _, settings = method_settings(method, kwargs)
    digests = dict(digests or {})                   # each metric's digest once, not once per row
    own = tuple(c for c in summary.columns if c not in _REPEAT_COLUMNS)
    dtypes = tuple(summary[c].dtype for c in own)
    at = {c: own.index(c) for c in ("metric", LEVEL_COLUMN[method])}
    seeds = summary["seed"].tolist() if "seed" in summary.columns else [seed] * len(summary)
    for values, s in zip(summary[list(own)].itertuples(index=False, name=None), seeds, strict=True):
        m = values[at["metric"]]
        if m not in scores or s is None:
            continue                        # (no seed: entropy drawn by the method, not reproducible, never reused)
        if m not in digests:
            digests[m] = digest(scores[m], method in ORDER_FREE)
        key = row_key(method, digests[m], int(s), float(values[at[LEVEL_COLUMN[method]]]), settings)
        store.put(key, (own, dtypes, tuple(values)))


def unpack_row(packed: tuple) -> pd.DataFrame:
    """The one-row frame of a row as :func:`keep_rows` keeps it: the same columns, dtypes and values."""
    columns, dtypes, values = packed
    return pd.DataFrame({c: pd.Series([v], dtype=t) for c, t, v in zip(columns, dtypes, values, strict=True)})


def take_rows(store: RowStore, method: str, metrics, digests: Mapping[str, str], seed: int,
              levels: tuple[float, ...], settings: tuple) -> dict[str, list[pd.DataFrame]]:
    """Every metric whose rows at all ``levels`` are kept, with those rows as one-row frames (in level order,
    named as ``metrics`` names them)."""
    out = {}
    for m in metrics:
        packed = [store.lookup(row_key(method, digests[m], seed, lv, settings)) for lv in levels]
        if all(p is not None for p in packed):
            rows = [unpack_row(p) for p in packed]
            out[m] = [r.assign(metric=m) if r["metric"].iloc[0] != m else r for r in rows]
    return out
