"""One zip holding a whole collection: its qrels and its runs, told apart by name and content.

``load_collection(("trec8.zip", data))`` (no ``runs``) reads such an archive: a member is qrels when
its extension is ``.rel`` (NTCIREVAL's per-topic files) or its name says ``qrel``; a run when its
extension is ``.res`` (NTCIR) or ``.jsonl`` / ``.ndjson``; any other member is told by its first line
that is not blank or a ``#`` comment: 6 fields (``topic Q0 doc rank score tag``) or a JSON object is a
run, 4 fields ending in an integer (``topic iter doc rel``), 3 (``topic doc L2``) or 2 (``doc L2``)
ending in a level are qrels. Only the first
few KB of a member are inflated to look (the budgets of :mod:`.limits` apply to them as to the rest).

Nothing is guessed silently: a member that is neither is an :class:`InputError` naming it and its first
line; so is an archive with no qrels, with no run, or with two qrels files that are not per-topic
``.rel`` files (which one was meant?).
"""
from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from pathlib import Path

from ._names import base_name, extension
from ._sources import group_files, is_res, is_zip_name, reading_zip, zip_bytes, zip_members
from ._types import RunSource, SourceFile
from .errors import InputError, shorten
from .limits import Ctx

_INT = re.compile(rb"-?[0-9]+")
_NTCIR_LABEL = re.compile(rb"L[0-9]+|[SAB]")
#: Bytes of a member inflated to read its first line.
HEAD_BYTES = 8192
_RUN_EXTS = ("res", "jsonl", "ndjson")


def is_bundle(source) -> bool:
    """Whether ``source`` (a path or a ``(filename, bytes)`` upload) is a zip archive by its name."""
    if isinstance(source, tuple) and len(source) == 2 and isinstance(source[1], (bytes, bytearray, memoryview)):
        return is_zip_name(str(source[0]))
    if isinstance(source, (str, os.PathLike)):
        return is_zip_name(str(source)) and Path(os.fspath(source)).is_file()
    return False


def _first_line(head: bytes) -> bytes:
    for line in head.splitlines():
        line = line.strip().lstrip(b"\xef\xbb\xbf")
        if line and not line.startswith(b"#"):
            return line
    return b""


def _head(zf: zipfile.ZipFile, member: str) -> bytes:
    """The first :data:`HEAD_BYTES` of a member, gunzipped when it is a ``.gz`` file."""
    with zf.open(member) as fh:
        raw = fh.read(HEAD_BYTES)
    if member.lower().endswith(".gz") or raw[:2] == b"\x1f\x8b":
        try:
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, HEAD_BYTES)
        except zlib.error:
            return b""
    return raw


def member_kind(name: str, head: bytes, fmt: str = "auto") -> str | None:
    """``"qrels"``, ``"run"`` or None (cannot tell) for a member called ``name`` starting with ``head``.

    >>> member_kind("qrels.txt", b""), member_kind("r1.txt", b"401 Q0 d1 1 2.5 r1\\n")
    ('qrels', 'run')
    >>> member_kind("judgments", b"401 0 d1 2\\n"), member_kind("notes.txt", b"hello\\n") is None
    ('qrels', True)
    """
    ext = extension(name)
    if ext == "rel":
        return "qrels"
    if ext in _RUN_EXTS or is_res(name, "auto" if fmt == "ntcir" else fmt):
        return "run"
    if "qrel" in base_name(name).lower():
        return "qrels"
    line = _first_line(head)
    if line.startswith(b"{"):
        return "run"
    fields = line.split()
    if len(fields) == 6:
        return "run"
    label = fields[-1] if fields else b""
    if len(fields) == 4 and _INT.fullmatch(label):
        return "qrels"
    if len(fields) in (2, 3) and (_NTCIR_LABEL.fullmatch(label) or (len(fields) == 3 and _INT.fullmatch(label))):
        return "qrels"
    return None


def split_bundle(source, fmt: str, ctx: Ctx) -> tuple[list[SourceFile], list[RunSource]]:
    """The qrels files and the runs of one zip holding both (see the module doc)."""
    if isinstance(source, tuple):
        zname, data = str(source[0]), bytes(source[1])
    else:
        zname, data = str(source), zip_bytes(Path(os.fspath(source)), ctx)
    files = zip_members(zname, data, ctx)
    qrels: list[SourceFile] = []
    runs: list[SourceFile] = []
    with reading_zip(zname):
        zf = zipfile.ZipFile(io.BytesIO(data))
        for f in files:
            member = f.name[len(zname) + 1:]
            kind = member_kind(member, b"" if extension(member) in ("rel", *_RUN_EXTS) else _head(zf, member), fmt)
            if kind is None:
                first = _first_line(_head(zf, member)).decode("utf-8", "replace")
                raise InputError(f"cannot tell whether this member holds qrels or a run: its first line has "
                                 f"{len(first.split())} field(s): {shorten(first)}", file=f.name,
                                 hint="qrels lines have 4 fields (topic 0 doc level) or 3 (topic doc L2), run lines "
                                      "6 (topic Q0 doc rank score tag); remove other files from the archive, or "
                                      "upload the qrels and the runs separately")
            (qrels if kind == "qrels" else runs).append(f)
    if not qrels:
        raise InputError("this archive holds no qrels: no member is named like qrels (qrels*, *.rel) or starts "
                         "with a qrels line (topic 0 doc level)", file=zname,
                         hint="add the qrels file to the archive, or upload the qrels separately")
    whole = [f for f in qrels if extension(f.name) != "rel"]
    if len(whole) > 1 or (whole and len(qrels) > len(whole)):
        names = ", ".join(shorten(f.name[len(zname) + 1:]) for f in qrels[:6]) + (" ..." if len(qrels) > 6 else "")
        raise InputError(f"this archive holds {len(qrels)} files that look like qrels ({names}): "
                         "which one holds the judgments is ambiguous", file=zname,
                         hint="keep one qrels file (or only per-topic .rel files) in the archive, or upload the "
                              "qrels separately and the runs as a zip")
    if not runs:
        raise InputError("this archive holds qrels but no runs", file=zname,
                         hint="add the run files to the archive, or upload them separately")
    return qrels, group_files(runs, zname, fmt)
