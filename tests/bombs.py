"""Real decompression bombs, built in memory in well under a second.

A deflate stream restarted with Z_FULL_FLUSH compresses the same 1 MiB of
zeros to the same ~1 KiB every time, so repeating that block gives a valid
single-stream deflate of any expanded size at ~1,000 x (CRC and sizes are
correct: fully inflated, the files are well-formed). Used by the io tests,
the fuzz script and the browser test.
"""
from __future__ import annotations

import struct
import zlib

MiB = 1 << 20
_ZEROS = b"\0" * MiB


def _deflate_zeros(n_mib: int, fill: bytes = b"\0") -> tuple[bytes, int]:
    """(raw deflate stream of n_mib MiB of ``fill`` bytes, its CRC-32)."""
    block = fill * MiB if fill != b"\0" else _ZEROS
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    assert first == again
    crc = 0
    for _ in range(n_mib):
        crc = zlib.crc32(block, crc)
    return first * n_mib + c.flush(zlib.Z_FINISH), crc


def gzip_bomb(n_mib: int = 1024, fill: bytes = b"\0") -> bytes:
    """A single-member gzip file that inflates to n_mib MiB (1 GiB: ~1 MiB compressed)."""
    raw, crc = _deflate_zeros(n_mib, fill)
    return (b"\x1f\x8b\x08\x00\0\0\0\0\x02\xff" + raw
            + struct.pack("<II", crc, (n_mib * MiB) & 0xFFFFFFFF))


def zip_bomb(n_mib: int = 1024, members: int = 1, name: str = "run{}.txt", fill: bytes = b"\0") -> bytes:
    """A zip archive of ``members`` deflated members, each inflating to n_mib MiB.

    Each member holds its own copy of the ~1,000 x stream; sizes and CRCs
    are correct (zip64 when a member reaches 4 GiB). Built by hand: zipfile
    would compress the data for real, which takes seconds per GiB.
    """
    raw, crc = _deflate_zeros(n_mib, fill)
    size = n_mib * MiB
    zip64 = size >= 0xFFFFFFFF
    out = bytearray()
    central = bytearray()
    for k in range(members):
        fname = name.format(k).encode()
        off = len(out)
        extra = struct.pack("<HHQQ", 1, 16, size, len(raw)) if zip64 else b""
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, 0, 8, 0, 0, crc,
                           0xFFFFFFFF if zip64 else len(raw), 0xFFFFFFFF if zip64 else size,
                           len(fname), len(extra)) + fname + extra
        out += raw
        data_off = off
        cextra = struct.pack("<HHQQQ", 1, 24, size, len(raw), data_off) if zip64 else b""
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45 if zip64 else 20, 45 if zip64 else 20, 0, 8,
                               0, 0, crc, 0xFFFFFFFF if zip64 else len(raw), 0xFFFFFFFF if zip64 else size,
                               len(fname), len(cextra), 0, 0, 0, 0o100644 << 16,
                               0xFFFFFFFF if zip64 else data_off) + fname + cextra
    cd_off = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, members, members, len(central), cd_off, 0)
    return bytes(out)


def many_member_zip(members: int, content: bytes = b"q1 Q0 d1 1 1.0 x\n", name: str = "r{}.txt") -> bytes:
    """A zip of ``members`` stored (uncompressed) members, each holding ``content``: a 96 MB archive of
    1 M small members, the kind whose listing alone cost 1.4 GiB. Zip64 end records past 65,535 members.
    Built by hand (zipfile takes ~20 s per million members)."""
    crc = zlib.crc32(content)
    out, central = bytearray(), bytearray()
    n = len(content)
    for k in range(members):
        fname = name.format(k).encode()
        off = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, crc, n, n, len(fname), 0) + fname + content
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, crc, n, n, len(fname), 0, 0,
                               0, 0, 0o100644 << 16, off) + fname
    cd_off = len(out)
    out += central
    if members > 0xFFFF:
        z64 = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, members, members, len(central), cd_off)
        out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    else:
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, members, members, len(central), cd_off, 0)
    return bytes(out)
