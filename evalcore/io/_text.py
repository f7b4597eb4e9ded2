"""Decompression (gzip, ISA-L when installed), UTF-8 checks and the line splitter shared by every parser.

Numbers are read in ASCII only: ``[0-9]``, never other Unicode digits
(Python's ``int("١٢")`` would accept Arabic-Indic digits; trec_eval and
pyarrow do not). Leading byte order marks are all removed (a doubled BOM
too), so the fast and the line-by-line run parsers see the same text.
"""
from __future__ import annotations

import re
from itertools import islice

from ._lines import raw_blocks, raw_lines
from ._source_file import SourceFile
from .errors import InputError
from .limits import INFLATE_STEP

try:  # ISA-L inflates about twice as fast as zlib; optional, same bytes out
    from isal.isal_zlib import decompressobj as _inflater
except ImportError:  # pragma: no cover - depends on the environment
    from zlib import decompressobj as _inflater  # type: ignore[assignment]  # the same interface

INT_RE = re.compile(r"[+-]?[0-9]++\Z")
# unambiguous and possessive (Python >= 3.11): one pass even over a 32 MB token of digits ending in a
# letter (r"\d+\.?\d*" backtracks quadratically there: hours)
FLOAT_RE = re.compile(
    r"[+-]?(?:[0-9]++(?:\.[0-9]*+)?|\.[0-9]++)(?:[eE][+-]?[0-9]++)?\Z|[+-]?(?:inf|infinity|nan)\Z",
    re.IGNORECASE)
_BOM = b"\xef\xbb\xbf"
_BOMS = re.compile(b"(?:" + re.escape(_BOM) + b")+")
_NONZERO = re.compile(rb"[^\x00]")
_IN_STEP = 1 << 17  # compressed bytes per inflate call after the first (gzip.py reads 128 kB at a time too)


def _gunzip(data: bytes, f: SourceFile) -> bytes:
    """Inflate a (multi-member) gzip file against the expansion budget: a bomb stops when the limit is
    reached, with at most one step past it in memory.

    The first call sees the whole file and inflates up to the size its trailer states (ISIZE, RFC 1952
    section 2.3.1: the text's length modulo 2**32, for a one-member file the whole text) plus one byte,
    so that a genuine file is inflated in one call into one buffer; the stated size is only believed up
    to the budget left and 32 x the compressed size plus one step, so that no trailer makes anything
    larger than that. Every later call inflates at most ``INFLATE_STEP`` bytes from at most
    ``_IN_STEP`` compressed bytes (a view of the file, never a copy of its rest: many members or steps
    cost linear time). Members follow one another as ``gzip`` reads them (zero bytes between and after
    them are padding); the CRC and length of every member are checked. One call into one buffer is
    cheaper than ``GzipFile.read`` in steps (docs/benchmarks.md section 14.4).
    """
    budget = f.budget or f.limits._budget(f.name, len(data))
    budgets = (budget,) if f.total is None else (budget, f.total)
    room = min(b.limit - b.used for b in budgets)
    stated = int.from_bytes(data[-4:], "little") if len(data) >= 18 else 0
    step = stated + 1 if 0 < stated < min(room, 32 * len(data) + INFLATE_STEP) else INFLATE_STEP
    view, n, pos, take = memoryview(data), len(data), 0, len(data)
    chunks = []
    try:
        while pos < n:
            z = _inflater(wbits=31)
            while True:
                part = view[pos:pos + take]
                b = z.decompress(part, step)
                step, take = INFLATE_STEP, _IN_STEP
                for bud in budgets:
                    bud.charge(len(b), f.name)
                chunks.append(b)
                used = len(part) - len(z.unconsumed_tail) - len(z.unused_data)
                pos += used
                if z.eof or not (b or used):   # the member's end, or no progress: the input ran out
                    break
            if not z.eof:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            nonzero = _NONZERO.search(data, pos)   # (padding: skipped without copying the rest)
            pos = nonzero.start() if nonzero else n
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - zlib.error, EOFError, isal's error: all a bad file
        raise InputError(f"not a valid gzip file ({e})", file=f.name,
                         hint="re-compress it with gzip, or give the uncompressed file") from None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def text_bytes(f: SourceFile) -> bytes:
    """Decompressed, BOM-free, validated UTF-8 bytes of a text file."""
    data = f.load()
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, f)
    if data[:3] == _BOM and (boms := _BOMS.match(data)):
        data = data[boms.end():]
    if data[:4] == b"PK\x03\x04":
        raise InputError("this is a zip archive, not a text file", file=f.name,
                         hint="give the archive itself with a .zip name (archives inside archives are not opened)")
    if b"\x00" in data[:4] or data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data:
        wide = _wide_encoding(data[:4096])
        if wide:
            raise InputError(f"this text is {wide}, not UTF-8", file=f.name,
                             hint="save the file as UTF-8 (or plain ASCII)")
        raise InputError("this is a binary file, not a text file", file=f.name,
                         hint="give the plain-text (or .gz / .zip) qrels or run file")
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            before = data[:e.start]
            line = sum(map(len, raw_blocks(before))) + (1 if not before or before.endswith((b"\n", b"\r")) else 0)
            text = next(islice(raw_lines(data), line - 1, None)).decode("utf-8", "replace")
            raise InputError("not valid UTF-8 text", file=f.name, line=line, text=text,
                             hint="save the file as UTF-8 (or plain ASCII)") from None
    if not data[:4096].strip() and not data.strip():  # (strip copies: a whole file's copy only when its start is blank)
        raise InputError("empty file", file=f.name, hint="give a file with at least one line")
    return data


_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"), (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
              (b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)"))


def _wide_encoding(head: bytes) -> str | None:
    """The name of a UTF-16 / UTF-32 encoding ``head`` is written in (by its byte order mark, or, without
    one, by the zero bytes ASCII text has in it: ``t\\0`` / ``\\0t`` in UTF-16, ``t\\0\\0\\0`` /
    ``\\0\\0\\0t`` in UTF-32), or None. UTF-32's marks are tested first: its little-endian mark
    begins with UTF-16's."""
    for bom, name in _WIDE_BOMS:
        if head.startswith(bom):
            return name
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        h = head[:len(head) // width * width]
        if len(h) < 2 * width:
            continue
        cols = [h[i::width] for i in range(width)]
        for text_col, order in ((0, "little-endian"), (width - 1, "big-endian")):
            zeros = [c for i, c in enumerate(cols) if i != text_col]
            if all(not c.strip(b"\x00") for c in zeros) and b"\x00" not in cols[text_col]:
                return f"{name} ({order})"
    return None


def content_lines(data: bytes):
    """(1-based line number, decoded line, fields) for every line that is neither blank nor a ``#``
    comment (ir_metadata headers)."""
    for i, raw in enumerate(raw_lines(data), 1):
        fields = raw.split()
        if fields and not fields[0].startswith(b"#"):
            yield i, raw.decode("utf-8", "replace"), fields


def first_fields(data: bytes) -> list[bytes]:
    """The fields of the first content line (not blank, not a ``#`` comment), whole: lines are looked for
    in the first 64 KiB only where they end there (a first line cut at 64 KiB had fewer fields, and a TREC
    file was read as NTCIR: "expected 4 fields, found 4"); a longer first line is read by
    :func:`content_lines`."""
    head = data[:65536]
    end = head.rfind(b"\n") + 1 if len(data) > len(head) else len(head)
    for raw in head[:end].splitlines():
        f = raw.split()
        if f and not f[0].startswith(b"#"):
            return f
    for _, _, f in content_lines(data):
        return f
    return []
