"""Lines of a text, a block at a time: what the line-by-line parsers hold is one block, not the file.

``bytes.splitlines()`` of a whole 100 MB file is a list of ~3 M bytes objects, about 2.5 x the text
(33 bytes of header per line, plus the list); every parser then kept its own per-line objects beside
it. :func:`raw_blocks` cuts the text at line ends into blocks of about ``BLOCK`` bytes and splits one
block at a time, so the line lists never hold more than one block. The lines are exactly those of
``data.splitlines()``: a cut is always just after ``\\n`` (or a ``\\r`` not followed by ``\\n``), and a
line longer than a block is one block of its own.
"""
from __future__ import annotations

from collections.abc import Iterator

#: bytes per block of lines (about 20,000 run lines)
BLOCK = 1 << 20


def raw_blocks(data: bytes, block: int = BLOCK) -> Iterator[list[bytes]]:
    """``data.splitlines()``, a block of about ``block`` bytes at a time (one list per block)."""
    n, start = len(data), 0
    while start < n:
        end = start + block
        if end >= n:
            end = n
        else:
            cut = data.rfind(b"\n", start, end)
            if cut < 0:
                cut = data.rfind(b"\r", start, end)
            if cut < 0:   # one line longer than a block: it is a block of its own
                ends = [x for x in (data.find(b"\n", end), data.find(b"\r", end)) if x >= 0]
                cut = min(ends) if ends else n - 1
            end = cut + 1
            if data[cut:end] == b"\r" and data[end:end + 1] == b"\n":   # never split a CRLF
                end += 1
        yield data[start:end].splitlines()
        start = end


def raw_lines(data: bytes, block: int = BLOCK) -> Iterator[bytes]:
    """``data.splitlines()``, one line at a time, holding one block of lines."""
    for lines in raw_blocks(data, block):
        yield from lines
