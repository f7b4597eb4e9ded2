"""64-bit hashes of arrow string arrays, vectorised, for the judgment lookup and duplicate checks.

Why: matching every run's document ids against the judged ids with a hash
set built per run (arrow's ``index_in``) rebuilds the set of all judged ids for
every run - on a Robust-sized qrels that was the largest cost of loading.
Here each id is hashed once, in numpy, straight from the arrow buffers, and
the judged (topic, doc) keys sit in one hash table per collection; a run then
costs one probe per row.

An id of ``L`` bytes is read as ``ceil(L / 8)`` 8-byte words straight from
the arrow buffer (unaligned reads, no copy of the text): the full words at
0, 8, 16, ... and, as its last word, the 8 bytes that *end* the id (they
overlap the word before; an id of 8..16 bytes costs two reads, never a
mask). An id under 8 bytes is one masked word. These words hold every byte
of the id (of its first 256 bytes past that), so comparing them *is*
comparing the strings (:func:`same_rows`).

Hashes only *propose* matches: every proposed match is confirmed by
comparing the strings themselves (:func:`same_rows`, :func:`same_strings`),
so a collision can never turn an unjudged document into a judged one or
invent a duplicate. Equal strings always have equal hashes (a string's hash
depends on its own bytes only), so no match is ever missed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from . import _arrow as ak

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
MAX_WORDS = 32  # ids longer than 256 bytes are hashed on their first 256 bytes and their length
_MAX_BYTES = 8 * MAX_WORDS
# Rows per block of the hashing and the judgment lookup: a block's uint64 temporaries (512 kB each)
# stay in the CPU's L2 cache across the ~20 numpy passes made over them, where whole runs' temporaries
# would go to L3 or memory on every pass (docs/benchmarks.md section 10.0)
BLOCK_ROWS = 1 << 16


def _step(h: np.ndarray) -> np.ndarray:
    """One multiply-xorshift round (a bijection of uint64), in place: what each word of an id goes
    through. Cheaper than :func:`_mix` (3 passes instead of 8); the full mix is applied once, to the
    (group, hash) key (:func:`pair_keys`). The xorshift folds the product's high bits down, so that
    differences in the top bits of two words cannot cancel out."""
    h *= _M2
    h ^= h >> np.uint64(32)
    return h


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (a bijection of uint64), in place."""
    h ^= h >> np.uint64(30)
    h *= _M2
    h ^= h >> np.uint64(27)
    h *= _M3
    h ^= h >> np.uint64(31)
    return h


@dataclass
class Strings:
    """The buffers of a string array, as numpy views: ``win[i]`` = the 8 bytes from byte ``i``."""

    win: np.ndarray      # every 8-byte window of the data buffer (unaligned, a view)
    starts: np.ndarray   # int64 byte offset of each string
    lens: np.ndarray     # int64 length of each string
    arr: pa.Array        # the strings themselves
    _last: np.ndarray | None = None  # (:meth:`last`)
    contiguous: bool = False         # string i + 1 starts where string i ends (an arrow array or a slice of it)
    _even: int | None = None         # (:meth:`even`)

    @classmethod
    def of(cls, arr: pa.Array) -> Strings:
        arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
        n = len(arr)
        otype = np.int64 if pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type) else np.int32
        bufs = arr.buffers()
        offs = np.frombuffer(bufs[1], dtype=otype)[arr.offset:arr.offset + n + 1].astype(np.int64) if n else \
            np.zeros(1, np.int64)
        buf = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
        if buf.size < 16:  # so that every read below stays inside the buffer
            small = np.zeros(16, np.uint8)
            small[:buf.size] = buf
            buf = small
        starts = offs[:-1]
        lens = np.diff(offs)
        return cls(np.ndarray(shape=(buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,)), starts, lens, arr,
                   contiguous=True)

    def slice(self, a: int, b: int) -> Strings:
        """Strings ``a`` to ``b - 1`` (views)."""
        return Strings(self.win, self.starts[a:b], self.lens[a:b], self.arr, contiguous=self.contiguous)

    def even(self) -> int:
        """``L`` when these strings lie one after the other in the buffer and all have one length
        ``L`` >= 8 (most collections' document ids: clef2015's are 19 bytes), else 0. Word ``k`` of every
        string is then one strided read of the buffer, much cheaper than a gather at each string's offset
        (docs/benchmarks.md section 14.3)."""
        if self._even is None:
            n = self.lens.size
            L = int(self.lens[0]) if n else 0
            ok = self.contiguous and n > 1 and L >= 8 and int(self.lens.min()) == L == int(self.lens.max())
            self._even = L if ok else 0
        return self._even

    def take(self, rows: np.ndarray) -> Strings:
        """The strings ``rows`` (a view of the same buffer)."""
        return Strings(self.win, self.starts[rows], self.lens[rows], self.arr)

    def last(self) -> np.ndarray:
        """Where each string's last word starts: byte ``min(L, 256) - 8`` of it (computed once).

        Never before the buffer's start nor past its last 8-byte window: strings under 8 bytes (which
        have no word past word 0) get any in-buffer position, unused."""
        if self._last is None:
            last = np.minimum(self.lens, _MAX_BYTES)
            last += self.starts
            last -= 8
            self._last = np.maximum(last, 0, out=last)
        return self._last

    def word(self, k: int) -> np.ndarray:
        """Word ``k`` of each string; only meaningful where ``k < words``.

        Word ``k`` is read at byte ``min(8k, min(L, 256) - 8)`` of the string: the last word ends
        with the string (or its 256th byte). Strings under 8 bytes: their bytes, zero above.
        """
        starts, lens = self.starts, self.lens
        L = self.even()
        if L:   # word k of each: at byte min(8k, min(L, 256) - 8) of it, every L bytes from the first
            a = int(starts[0]) + min(8 * k, min(L, _MAX_BYTES) - 8)
            return self.win[a:a + L * (starts.size - 1) + 1:L].copy()
        if k:
            off = starts + 8 * k
            np.minimum(off, self.last(), out=off)
            return self.win[off]
        w = self.win[np.minimum(starts, self.win.size - 1)]
        short = lens < 8
        if not short.any():
            return w
        # a short string: the 8 bytes from its start, masked to its own bytes (one read and one mask;
        # cheaper than reading backwards when most ids are short, e.g. MS MARCO's numbers: docs/benchmarks.md
        # section 17) ...
        mask = np.minimum(lens, 8).astype(np.uint64)
        mask <<= np.uint64(3)
        np.left_shift(np.uint64(1), mask, out=mask, where=short)
        np.subtract(mask, np.uint64(1), out=mask, where=short)
        np.bitwise_and(w, mask, out=w, where=short)
        # ... but one whose forward read would leave the buffer reads the 8 bytes that end it and shifts
        # its bytes down (a string within the buffer's first 8 bytes is read forwards instead)
        tail = np.flatnonzero(short & (starts > self.win.size - 1))
        if not tail.size:
            return w
        s, n = starts[short], lens[short]
        back = s + n >= 8
        ws = self.win[np.where(back, s + n - 8, s)]
        ws >>= np.where(back, 64 - 8 * n, 0).astype(np.uint64)
        ws &= (np.uint64(1) << (8 * n).astype(np.uint64)) - np.uint64(1)
        w[short] = ws
        return w


def _n_words(n_bytes: int) -> int:
    """Words of an id of ``n_bytes`` bytes (:meth:`Strings.word`): at least 1, at most MAX_WORDS."""
    return max(1, -(-min(n_bytes, _MAX_BYTES) // 8))


def hash_block(s: Strings, keep: int = 0) -> tuple[np.ndarray, list[np.ndarray]]:
    """(uint64 hash of every string of ``s``, its first ``keep`` words (:meth:`Strings.word`)).

    The words are handed back so that a caller comparing these strings with others (the judgment
    lookup) does not read them from the buffer a second time (:func:`same_rows`' ``words``).
    """
    h = s.lens.astype(np.uint64)
    h *= _M1
    words = []
    most = _n_words(int(s.lens.max(initial=0)))
    for k in range(most):
        w = s.word(k)
        if k < keep:
            words.append(w)
            w = w ^ h
        else:
            w ^= h
        _step(w)
        if k and (s.lens <= 8 * k).any():  # a string's hash depends on its own words only (it has a word k
            np.copyto(h, w, where=s.lens > 8 * k)  # iff it is longer than 8k bytes)
        else:
            h = w
    return h, words


def numpy_dtype(t: pa.DataType) -> np.dtype:
    """The numpy dtype of an arrow number or boolean type, without ``DataType.to_pandas_dtype`` (which
    imports pandas in pyarrow 16, the lowest version evalcore supports)."""
    if pa.types.is_boolean(t):
        return np.dtype(bool)
    for is_kind, code in ((pa.types.is_signed_integer, "i"), (pa.types.is_unsigned_integer, "u"),
                          (pa.types.is_floating, "f")):
        if is_kind(t):
            return np.dtype(f"{code}{t.bit_width // 8}")
    raise TypeError(f"as_numpy takes arrays of numbers or booleans; got {t}")


def as_numpy(arr) -> np.ndarray:
    """A null-free arrow array (or chunked array) of numbers or booleans as numpy, read from its buffers.

    Why not ``arr.to_numpy()``: pyarrow's conversion layer imports pandas on its first use, a large share
    of ``evalcore evaluate`` on clef2015 (docs/benchmarks.md section 14.3), and loading plain files needs
    none of it. Numbers are a view of the buffer (read-only); booleans (one bit
    each) are unpacked into a new array.
    """
    if isinstance(arr, pa.ChunkedArray):
        parts = [as_numpy(c) for c in arr.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, numpy_dtype(arr.type))
    if arr.null_count:
        raise ValueError("as_numpy takes arrays without nulls")
    n, off = len(arr), arr.offset
    buf = arr.buffers()[1]
    if pa.types.is_boolean(arr.type):
        if n == 0:
            return np.zeros(0, bool)
        bits = np.frombuffer(buf, np.uint8)[off // 8:(off + n + 7) // 8]
        return np.unpackbits(bits, bitorder="little")[off % 8:off % 8 + n].view(bool)
    dt = numpy_dtype(arr.type)
    if n == 0:
        return np.zeros(0, dt)
    return np.frombuffer(buf, dt, count=n, offset=off * dt.itemsize)


def as_arrow(a: np.ndarray) -> pa.Array:
    """A 1-d numpy array of numbers or booleans as an arrow array (a view of its buffer; booleans are
    packed into bits). ``pa.array(a)`` would import pandas on first use, as ``to_numpy`` does
    (:func:`as_numpy`)."""
    a = np.ascontiguousarray(a)
    if a.dtype == bool:
        return pa.Array.from_buffers(pa.bool_(), a.size, [None, pa.py_buffer(np.packbits(a, bitorder="little"))])
    return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), a.size, [None, pa.py_buffer(a)])


def blocks(n: int):
    """``(start, stop)`` of the row blocks of ``n`` rows (:data:`BLOCK_ROWS` rows each)."""
    return ((a, min(n, a + BLOCK_ROWS)) for a in range(0, n, BLOCK_ROWS))


def hash_strings(arr: pa.Array) -> np.ndarray:
    """uint64 hash of every string of ``arr`` (a non-null string array).

    Equal strings get equal hashes (a string's hash depends on its own bytes
    only); ids longer than 256 bytes are hashed on their first 256 bytes and
    their length, which only makes collisions - always confirmed by callers -
    likelier among such ids. Computed in blocks of :data:`BLOCK_ROWS` rows.

    Each word goes through one cheap round (:func:`_step`), not the full mix: pass the hashes through
    :func:`pair_keys` (which applies it) before anything reads their top or low bits as a slot.
    """
    n = len(arr)
    if n == 0:
        return np.zeros(0, np.uint64)
    s = Strings.of(arr)
    out = np.empty(n, np.uint64)
    for a, b in blocks(n):
        out[a:b] = hash_block(s.slice(a, b))[0]
    return out


class HashTable:
    """A fixed set of strings (the judged ids) with their length and first words read out once, to
    compare many strings against: row ``i`` of ``rec`` = (tag, length, word 0, word 1, ...) of string
    ``i`` (:meth:`Strings.word`; 0 past its words; ``tag``: any uint64 the caller keeps with it, e.g.
    its hash key), one row per string so that a comparison costs one random read, not one per word."""

    def __init__(self, arr: pa.Array, max_words: int = 4, tag: np.ndarray | None = None):
        s = Strings.of(arr)
        self.arr = s.arr
        self.n_words = min(_n_words(int(s.lens.max(initial=0))), max_words)
        self.rec = np.zeros((len(s.lens), 2 + self.n_words), np.uint64)
        if tag is not None:
            self.rec[:, 0] = tag
        self.rec[:, 1] = s.lens
        for k in range(self.n_words):
            np.copyto(self.rec[:, 2 + k], s.word(k), where=s.lens > 8 * k)

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """The records of ``rows`` (np.take: much faster than ``rec[rows]`` on a 2-d array)."""
        return np.take(self.rec, rows, axis=0)


def same_rows(a: Strings, rows_a: np.ndarray, b: HashTable, rows_b: np.ndarray,
              rec: np.ndarray | None = None, words: list[np.ndarray] | None = None) -> np.ndarray:
    """Whether string ``rows_a[i]`` of ``a`` equals string ``rows_b[i]`` of ``b``, byte for byte, as a bool array.

    Compares lengths and the words of :meth:`Strings.word` (which hold every byte of the string);
    strings with more words than ``b`` keeps (over 32 bytes by default) or over 256 bytes are
    compared whole, with arrow. ``rec``: ``b.rows(rows_b)`` when the caller has it already;
    ``words``: the first words of the strings ``rows_a`` (``words[k][i]`` = word ``k`` of string
    ``rows_a[i]``, as :func:`hash_block` returns them), when the caller has them already.
    """
    sa = a.take(rows_a)
    rec = b.rows(rows_b) if rec is None else rec
    eq = sa.lens.view(np.uint64) == rec[:, 1]
    for k in range(min(_n_words(int(sa.lens.max(initial=0))), b.n_words)):
        same = (words[k] if words is not None and k < len(words) else sa.word(k)) == rec[:, 2 + k]
        if k:
            same |= sa.lens <= 8 * k  # no word k (and of equal length: nor has b's string)
        eq &= same
    rest = np.flatnonzero(eq & (sa.lens > 8 * b.n_words))  # (b.n_words <= 32: every id over 256 bytes too)
    if rest.size:
        eq[rest] = same_strings(ak.take(a.arr, as_arrow(rows_a[rest])), ak.take(b.arr, as_arrow(rows_b[rest])))
    return eq


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
        b = ak.cast(b, a.type)
    return as_numpy(ak.call("equal", a, b)).astype(bool)
