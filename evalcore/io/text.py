"""Decompression (gzip, ISA-L when installed), UTF-8 checks and the line splitter shared by every parser."""
from __future__ import annotations

import re

from .errors import InputError
from .sources import _File

try:  # ISA-L inflates about twice as fast as zlib; optional, same bytes out
    from isal.igzip import decompress as _gunzip
except ImportError:  # pragma: no cover - depends on the environment
    from gzip import decompress as _gunzip

_INT_RE = re.compile(r"[+-]?\d+\Z")
_FLOAT_RE = re.compile(
    r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)\Z", re.IGNORECASE
)


def _text_bytes(f: _File) -> bytes:
    """Decompressed, BOM-free, validated UTF-8 bytes of a text file."""
    data = f.load()
    if data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip(data)
        except Exception as e:  # zlib.error, OSError, EOFError, isal's error: all mean a bad file
            raise InputError(f"not a valid gzip file ({e})", file=f.name,
                             hint="re-compress it with gzip, or give the uncompressed file") from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if b"\x00" in data:
        raise InputError("this is a binary file, not a text file", file=f.name,
                         hint="give the plain-text (or .gz / .zip) qrels or run file")
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            before = data[:e.start]
            line = len(before.splitlines()) + (1 if not before or before.endswith((b"\n", b"\r")) else 0)
            text = data.splitlines()[line - 1].decode("utf-8", "replace")
            raise InputError("not valid UTF-8 text", file=f.name, line=line, text=text,
                             hint="save the file as UTF-8 (or plain ASCII)") from None
    if not data.strip():
        raise InputError("empty file", file=f.name, hint="give a file with at least one line")
    return data


def _lines(data: bytes):
    """(1-based line number, decoded line, fields) for every non-blank line."""
    for i, raw in enumerate(data.splitlines(), 1):
        fields = raw.split()
        if fields:
            yield i, raw.decode("utf-8", "replace"), fields


def _first_fields(data: bytes) -> list[bytes]:
    for raw in data[:65536].splitlines():
        f = raw.split()
        if f:
            return f
    for _, _, f in _lines(data):
        return f
    return []
