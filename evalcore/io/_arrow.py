"""The few arrow compute kernels the loader uses, called without importing :mod:`pyarrow.compute`.

Why: importing ``pyarrow.compute`` builds a Python wrapper, docstring included, for each of arrow's
hundreds of kernels in every process that loads a collection, which cost more than all the loader's kernel
calls on clef2015's 2 M run lines (docs/benchmarks.md section 14.4).
Those wrappers call ``pyarrow._compute.call_function`` with an options object; so do these. Methods
of arrow arrays that run kernels (``Array.take``, ``cast``, ``filter``, ``dictionary_encode``,
``unique``) import ``pyarrow.compute`` on first use, so the loader calls the functions here instead.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
from pyarrow import _compute as _c


def call(name: str, *args, options=None):
    """Arrow kernel ``name`` on ``args`` (arrays, chunked arrays, tables, scalars or Python values)."""
    return _c.call_function(name, list(args), options)


def take(arr, indices):
    return _c.call_function("take", [arr, indices], None)


def filter_(arr, mask):
    return _c.call_function("filter", [arr, mask], None)


def cast(arr, target: pa.DataType, safe: bool = True):
    """``arr`` as ``target``; ``safe=False``: no overflow or truncation checks (float64 -> float32)."""
    if arr.type == target:
        return arr
    return _c.call_function("cast", [arr], _c.CastOptions(target) if safe else _c.CastOptions.unsafe(target))


def dictionary_encode(arr):
    return _c.call_function("dictionary_encode", [arr], None)


def unique(arr):
    return _c.call_function("unique", [arr], None)


def min_length(arr) -> int:
    """The length in bytes of the shortest string of ``arr`` (a non-empty string array)."""
    return _c.call_function("min", [_c.call_function("binary_length", [arr], None)], None).as_py()


def total_length(arr) -> int:
    """The summed length in bytes of the strings of ``arr``."""
    return _c.call_function("sum", [_c.call_function("binary_length", [arr], None)], None).as_py() or 0


def all_finite(arr) -> bool:
    """No nan or infinity among ``arr``'s numbers (nulls aside)."""
    return bool(_c.call_function("all", [_c.call_function("is_finite", [arr], None)], None).as_py())


def sort_indices(table: pa.Table, keys: list[tuple[str, str]]):
    """Row order of ``table`` by ``keys`` ((column, "ascending" | "descending"), first key first)."""
    return _c.call_function("sort_indices", [table], _c.SortOptions(sort_keys=keys))


def index_in(arr, value_set: pa.Array):
    """Position of every value of ``arr`` in ``value_set``; null where it is not there."""
    return _c.call_function("index_in", [arr], _c.SetLookupOptions(value_set))


def replace_regex(arr, pattern: str, replacement: str):
    return _c.call_function("replace_substring_regex", [arr], _c.ReplaceSubstringOptions(pattern, replacement))


def strings(values: list[str]) -> pa.Array:
    """A string array of ``values``, built from its buffers.

    Why: ``pa.array`` on Python objects initialises pyarrow's conversion layer, which imports pandas (and
    with it ``pyarrow.compute``): the dearest import of a load, paid the first time on the line-by-line
    parsers' paths (NTCIR qrels, ``.res`` and JSON-lines runs, a run file the fast reader refused; the
    import's CPU: docs/benchmarks.md section 14.3)."""
    encoded = [v.encode() for v in values]
    lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    large = offsets[-1] > 2**31 - 1
    typ = pa.large_string() if large else pa.string()
    return pa.Array.from_buffers(typ, len(encoded), [None, pa.py_buffer(offsets if large else offsets.astype(np.int32)),
                                                     pa.py_buffer(b"".join(encoded))])
