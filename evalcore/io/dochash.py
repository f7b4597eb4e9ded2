"""64-bit hashes of arrow string arrays, vectorised, for the judgment lookup and duplicate checks.

Why: matching every run's document ids against the judged ids with a hash
set built per run (``pc.index_in``) rebuilds the set of all judged ids for
every run - on a Robust-sized qrels that was the largest cost of loading.
Here each id is hashed once, in numpy, straight from the arrow buffers (one
unaligned 8-byte read per 8 bytes of id), and the judged (topic, doc) keys
are sorted once per collection; a run then costs a ``searchsorted``.

Hashes only *propose* matches: every proposed match is confirmed by
comparing the strings themselves (:func:`same_strings`), so a collision can
never turn an unjudged document into a judged one or invent a duplicate.
Distinct strings never share a hash-equal pair that goes unchecked, and equal
strings always have equal hashes, so no match is ever missed.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
MAX_WORDS = 32  # ids longer than 256 bytes are hashed on their first 256 bytes and their length


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (a bijection of uint64), in place."""
    h ^= h >> np.uint64(30)
    h *= _M2
    h ^= h >> np.uint64(27)
    h *= _M3
    h ^= h >> np.uint64(31)
    return h


def hash_strings(arr: pa.Array) -> np.ndarray:
    """uint64 hash of every string of ``arr`` (a non-null string array).

    Equal strings get equal hashes (a string's hash depends on its own bytes
    only); ids longer than 256 bytes are hashed on their first 256 bytes and
    their length, which only makes collisions - always confirmed by callers -
    likelier among such ids.
    """
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    n = len(arr)
    if n == 0:
        return np.zeros(0, np.uint64)
    otype = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    bufs = arr.buffers()
    offs = np.frombuffer(bufs[1], dtype=otype)[arr.offset:arr.offset + n + 1].astype(np.int64)
    starts, lens = offs[:-1], np.diff(offs)
    words = min(int(-(-int(lens.max()) // 8)), MAX_WORDS)
    buf = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    span = 8 * words + 8
    # ids whose 8-byte reads stay inside the buffer are hashed in place (no copy of the text);
    # the last few from a zero-padded copy of the buffer's tail
    cut = int(np.searchsorted(starts, buf.size - span, side="right"))
    h = np.empty(n, np.uint64)
    if cut:
        h[:cut] = _hash_rows(_windows(buf), starts[:cut], lens[:cut], words)
    if cut < n:
        lo = int(starts[cut])
        tail = np.zeros(buf.size - lo + span, np.uint8)
        tail[:buf.size - lo] = buf[lo:]
        h[cut:] = _hash_rows(_windows(tail), starts[cut:] - lo, lens[cut:], words)
    return h


def _windows(data: np.ndarray) -> np.ndarray:
    """Every 8-byte window of ``data``, unaligned: w[i] = bytes i..i+7 as one little-endian word."""
    return np.ndarray(shape=(data.size - 7,), dtype="<u8", buffer=data, strides=(1,))


def _hash_rows(win: np.ndarray, starts: np.ndarray, lens: np.ndarray, words: int) -> np.ndarray:
    h = lens.astype(np.uint64) * _M1
    for k in range(max(words, 1)):
        w = win[starts + 8 * k]
        rem = lens - 8 * k
        if (rem < 8).any():  # keep only the string's own bytes (none once past its end)
            sh = np.clip(rem, 0, 7).astype(np.uint64) * np.uint64(8)
            w &= np.where(rem >= 8, _ALL, (np.uint64(1) << sh) - np.uint64(1))
        live = rem > 0
        if k and not live.all():  # a string's hash depends on its own bytes only, not on the longest id
            h[live] = _mix(h[live] ^ w[live])
        else:
            h ^= w
            h = _mix(h)
    return h


def pair_keys(h: np.ndarray, group: np.ndarray) -> np.ndarray:
    """One uint64 key per (group, string hash) pair (e.g. topic, document)."""
    k = group.astype(np.uint64)
    k += np.uint64(1)
    k *= _M1
    k += h
    return _mix(k)


def same_strings(a: pa.Array, b: pa.Array) -> np.ndarray:
    """Element-wise equality of two string arrays of one length, as a bool array."""
    if len(a) == 0:
        return np.zeros(0, bool)
    if b.type != a.type:  # string vs large_string
        b = b.cast(a.type)
    return pc.equal(a, b).to_numpy(zero_copy_only=False).astype(bool)

