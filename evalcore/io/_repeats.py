"""Repeated (topic, document) pairs found with arrays, not a dict of Python tuples.

The line-by-line parsers used to keep a ``dict[(topic, doc)] -> line`` to spot a document listed
twice: a tuple, two strings and a dict slot per line, many times the text (docs/reliability.md, "Parse
memory").
Here the parsers keep their columns as arrow arrays (a few bytes per line beyond the text) and
:func:`first_occurrence` finds every repeat at once: 64-bit keys of (topic, document) hashes
(:mod:`._dochash`), one stable sort, and every proposed match confirmed on the strings themselves
(hashes only propose; results are exact, collisions included).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from . import _arrow as ak
from ._dochash import as_arrow, as_numpy, hash_strings, pair_keys, same_strings


def first_occurrence(topics: pa.Array, docs: pa.Array) -> np.ndarray:
    """For every row, the row index of the first row with the same (topic, document) - itself when it
    is the first. Rows are in file order, so ``first[i] < i`` marks row i as a repeat of row ``first[i]``.

    >>> first_occurrence(pa.array(["q1", "q1", "q2", "q1"]), pa.array(["a", "b", "a", "a"])).tolist()
    [0, 1, 2, 0]
    """
    n = len(topics)
    first = np.arange(n, dtype=np.int64)
    if n < 2:
        return first
    codes = as_numpy(ak.dictionary_encode(topics).indices)
    keys = pair_keys(hash_strings(docs), codes)
    order = np.argsort(keys, kind="stable")        # equal keys keep file order
    sk = keys[order]
    same_as_prev = sk[1:] == sk[:-1]
    if not same_as_prev.any():
        return first
    # the group (run of equal keys) of every sorted position, and the group's first row
    start = np.concatenate(([True], ~same_as_prev))
    group_first = order[np.flatnonzero(start)][np.cumsum(start) - 1]
    cand = np.flatnonzero(group_first != order)    # sorted positions proposed as repeats
    rows, heads = order[cand], group_first[cand]
    take_r, take_h = as_arrow(rows), as_arrow(heads)
    equal = (same_strings(ak.take(topics, take_r), ak.take(topics, take_h))
             & same_strings(ak.take(docs, take_r), ak.take(docs, take_h)))
    first[rows[equal]] = heads[equal]
    if not equal.all():   # a hash collision inside a group: settle those groups exactly, by the strings
        for g in np.unique(heads[~equal]):
            members = order[group_first == g]
            seen: dict[tuple[str, str], int] = {}
            for i in members.tolist():
                first[i] = seen.setdefault((topics[i].as_py(), docs[i].as_py()), i)
    return first
