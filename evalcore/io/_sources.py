"""Where the bytes come from: paths, directories, zip archives, ``(filename, bytes)`` uploads.

Qrels sources become a flat list of :class:`SourceFile`; run sources become
:class:`RunSource` objects (one per run: a TREC file, or a directory / zip
folder of NTCIR ``TOPIC.res`` files). Nothing is read here beyond zip
directories: each ``SourceFile`` loads its bytes when a parser asks.

Zip archives are read in memory (nothing is written to disk). Members are
inflated in steps against one expansion budget per archive (see
:mod:`.limits`); members with an absolute or ``..`` path, symbolic links,
archives inside the archive and documentation files (README.md, Thumbs.db,
...) are skipped with a note in the load report; members compressed other
than stored / deflate are refused (they cannot be inflated in bounded
steps). In directories, documentation files and archives are skipped with a
note too.
"""
from __future__ import annotations

import io
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ._kinds import is_frame, is_named_runs, is_nested_dict
from ._names import base_name, not_data, run_name
from ._types import RunSource, SourceFile
from .errors import InputError, shorten, too_many
from .formats import format_of
from .limits import INFLATE_STEP, Budget, Ctx, Limits, human_bytes, read_limited

# the run formats' table (kinds, names, extensions, readers): evalcore.io.formats


def _holding(data: bytes) -> Callable[[], bytes]:
    """The loader of bytes already in memory (an upload)."""
    return lambda: data


_SEP = re.compile(r"[/\\]")
_DRIVE = re.compile(r"[A-Za-z]:")


def _is_hidden(name: str) -> bool:
    return any(p.startswith(".") or p == "__MACOSX" for p in _SEP.split(name) if p)


def _read_path(p: Path, limits: Limits) -> Callable[[], bytes]:
    def load() -> bytes:
        return read_limited(p, limits.max_expanded_bytes,
                            hint="raise it: limits=Limits(max_expanded_bytes=...) or --max-expanded SIZE")
    return load


ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError,
               ValueError, OverflowError, KeyError)


def _member_problem(i: zipfile.ZipInfo) -> str | None:
    """Why a zip member is skipped, or None."""
    parts = _SEP.split(i.filename)
    if i.filename.startswith(("/", "\\")) or _DRIVE.match(i.filename) or ".." in parts:
        return "an absolute or '..' path"
    if (i.external_attr >> 16) & 0o170000 == 0o120000:
        return "a symbolic link"
    return not_data(i.filename)


def _zip_member_loader(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, budget: Budget,
                       total: Budget | None = None):
    def load() -> bytes:
        chunks = []
        try:
            with zf.open(info) as fh:
                while True:
                    b = fh.read(INFLATE_STEP)
                    if not b:
                        break
                    budget.charge(len(b), name)
                    if total is not None:
                        total.charge(len(b), name)
                    chunks.append(b)
        except InputError:
            raise
        except ZIP_ERRORS as e:
            why = re.sub(r"<ZipInfo filename='([^']*)'[^>]*>", r"'\1'", str(e))   # not zipfile's repr
            raise InputError(f"cannot read this zip member ({why})", file=name,
                             hint="re-create the archive with a standard zip tool") from None
        return b"".join(chunks)
    return load


def _zip_directory(data: bytes) -> tuple[int, int] | None:
    """(members, central directory bytes) as the archive's end record declares them (zip64 too), or
    None without an end record. Read from the last 64 KiB, before anything is listed."""
    tail = data[-(65536 + 22):]
    k = tail.rfind(b"PK\x05\x06")
    if k < 0 or k + 22 > len(tail):
        return None
    total, cd_size = struct.unpack_from("<H", tail, k + 10)[0], struct.unpack_from("<I", tail, k + 12)[0]
    loc = k - 20
    if (total == 0xFFFF or cd_size == 0xFFFFFFFF) and loc >= 0 and tail[loc:loc + 4] == b"PK\x06\x07":
        off = struct.unpack_from("<Q", tail, loc + 8)[0]
        if 0 <= off <= len(data) - 56 and data[off:off + 4] == b"PK\x06\x06":
            total, cd_size = struct.unpack_from("<QQ", data, off + 32)
    return total, cd_size


def _check_members(zname: str, data: bytes, limits: Limits) -> None:
    """Refuse an archive with more than ``limits.max_members`` members before listing them: by its
    declared count, and by its central directory's size (a directory entry is at least 46 bytes, so a
    directory of ``cd_size`` bytes lists at most cd_size / 46 members whatever the count says)."""
    d = _zip_directory(data)
    if d is None:
        return
    total, cd_size = d
    most = max(total, cd_size // (46 + 300))   # 300: a generous name; real names are shorter
    if most > limits.max_members:
        raise InputError(f"the archive lists {total:,} members ({human_bytes(cd_size)} of directory), more than "
                         f"the limit of {limits.max_members:,} members", file=zname,
                         hint="put fewer files in one archive, or raise the limit: limits=Limits(max_members=...)"
                              " or --max-members N")


@contextmanager
def reading_zip(zname: str) -> Iterator[None]:
    """Turns a damaged archive's low-level error (zipfile, zlib, a short read) met while reading ``zname``
    into one :class:`InputError` naming the file; an :class:`InputError` raised inside passes unchanged."""
    try:
        yield
    except InputError:
        raise
    except ZIP_ERRORS as e:
        raise InputError(f"not a readable zip file ({e})", file=zname,
                         hint="re-create the archive with a standard zip tool") from None


def zip_members(zname: str, data: bytes, ctx: Ctx, run_fmt: str | None = None) -> list[SourceFile]:
    """The usable members of a zip, by name. ``run_fmt``: the archive holds runs in that format, so every
    member that is not an NTCIR ``.res`` file is a run of its own, and the archive is refused as soon as
    those exceed ``limits.max_runs`` (before the rest of a large archive is looked at)."""
    budget = ctx.limits._budget(zname, len(data))
    members: list[SourceFile] = []
    declared = 0
    single_runs = 0
    _check_members(zname, data, ctx.limits)
    with reading_zip(zname):
        zf = zipfile.ZipFile(io.BytesIO(data))
        for i in sorted(zf.infolist(), key=lambda i: i.filename):
            if i.is_dir():
                continue
            why = _member_problem(i)
            if why is None and _is_hidden(i.filename):
                continue
            if why:
                ctx.notes.append(f"{zname}: member {shorten(i.filename)} skipped: {why}")
                continue
            name = f"{zname}:{i.filename}"
            if run_fmt is not None and not is_res(name, run_fmt):
                single_runs += 1
                if single_runs > ctx.limits.max_runs:
                    raise too_many("runs or more (one a member)", single_runs, ctx.limits.max_runs, "max-runs",
                                   file=zname)
            if i.flag_bits & 0x1:   # bit 0 of the general-purpose flags: encrypted (PKWARE APPNOTE 4.4.4)
                raise InputError("this member is encrypted (the archive was made with a password); evalcore reads "
                                 "only unencrypted archives", file=name,
                                 hint="extract the files with the password and load them, or re-create the "
                                      "archive without a password")
            if i.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise InputError(f"this member is compressed with method {i.compress_type}, which is not read "
                                 f"(only stored and deflate members can be inflated in bounded steps)",
                                 file=name, hint="re-create the archive with a standard zip tool (deflate)")
            declared += i.file_size
            if declared > budget.limit:  # zipfile never inflates past the declared size: refuse now
                raise InputError(
                    f"the archive declares {human_bytes(declared)} of files up to this member, more than "
                    f"{human_bytes(budget.limit)}, the decompression limit for {zname} ({budget.rule}); "
                    f"this looks like a zip bomb",
                    file=name, hint="if the data is genuine, raise the limit: limits=Limits("
                                    "max_expanded_bytes=..., expansion_ratio=...) or --max-expanded SIZE")
            members.append(SourceFile(name, _zip_member_loader(zf, i, name, budget, ctx.total), ctx.limits, budget,
                                 ctx.total))
    if not members:
        raise InputError("the zip file holds no usable files", file=zname,
                         hint="put the qrels / run files in the archive (hidden files are skipped)")
    return members


def _dir_files(p: Path, ctx: Ctx, keep=lambda c: True) -> list[SourceFile]:
    """The regular, non-hidden files of a directory, by name; documentation and archives skipped with a note."""
    out = []
    for c in sorted(p.iterdir(), key=lambda c: c.name):
        if not c.is_file() or c.name.startswith(".") or not keep(c):
            continue
        why = not_data(c.name)
        if why:
            ctx.notes.append(f"{c}: skipped: {why}")
            continue
        out.append(SourceFile(str(c), _read_path(c, ctx.limits), ctx.limits))
    return out


def zip_bytes(p: Path, ctx: Ctx) -> bytes:
    return _read_path(p, ctx.limits)()


def is_zip_name(name: str) -> bool:
    return base_name(name).lower().endswith(".zip")


def source_name(source) -> str:
    if isinstance(source, tuple):
        return str(source[0])
    return str(source)


def _check_tuple(source) -> tuple[str, bytes]:
    if len(source) != 2 or not isinstance(source[1], (bytes, bytearray, memoryview)):
        raise InputError(f"an uploaded file must be a (filename, bytes) pair; got {type(source).__name__} "
                         f"of length {len(source)}")
    return str(source[0]), bytes(source[1])


def _path_of(source) -> Path:
    p = Path(os.fspath(source))
    if not p.exists():
        raise InputError("no such file or directory", file=str(source),
                         hint="check the path (it is relative to the current directory)")
    return p


def qrels_files(source, ctx: Ctx) -> list[SourceFile]:
    if isinstance(source, SourceFile):          # a member already found (a zip holding qrels and runs)
        return [source]
    if isinstance(source, (list, tuple)) and not (
        isinstance(source, tuple) and len(source) == 2 and isinstance(source[1], (bytes, bytearray, memoryview))
    ):
        out = []
        for s in source:
            out.extend(qrels_files(s, ctx))
        if not out:
            raise InputError("no qrels files given", hint="give a qrels file (or NTCIREVAL .rel files)")
        return out
    if isinstance(source, tuple):
        name, data = _check_tuple(source)
        return zip_members(name, data, ctx) if is_zip_name(name) else [SourceFile(name, _holding(data), ctx.limits)]
    p = _path_of(source)
    if p.is_dir():
        files = _dir_files(p, ctx)
        if not files:
            raise InputError("the directory holds no files", file=str(source),
                             hint="give the qrels file, or a directory of NTCIREVAL .rel files")
        return files
    if is_zip_name(p.name):
        return zip_members(str(source), zip_bytes(p, ctx), ctx)
    return [SourceFile(str(source), _read_path(p, ctx.limits), ctx.limits)]


def is_res(name: str, fmt: str) -> bool:
    """Whether a run file holds one topic of a run (NTCIR's ``TOPIC.res``; ``RunFormat.per_topic``)."""
    return format_of(name, fmt).per_topic


def _file_kind(name: str, fmt: str) -> str:
    """A single run file's format (:func:`evalcore.io.formats.format_of`)."""
    return format_of(name, fmt).kind


def group_files(files: list[SourceFile], container: str, fmt: str) -> list[RunSource]:
    """Files of a directory or zip -> runs: ``.res`` files grouped by folder, every other file a run."""
    res_groups: dict[str, list[SourceFile]] = {}
    out: list[RunSource] = []
    for f in files:
        inner = f.name[len(container) + 1:] if f.name.startswith(container) else f.name
        if is_res(f.name, fmt):
            folders = _SEP.split(inner)[:-1]
            res_groups.setdefault("/".join(folders), []).append(f)
        else:
            out.append(RunSource(run_name(f.base), f.name, _file_kind(f.name, fmt), [f]))
    for folder, fs in res_groups.items():
        nm = folder.split("/")[-1] if folder else (
            run_name(container) if is_zip_name(container) else base_name(container))
        out.append(RunSource(nm, f"{container}/{folder}" if folder else container, _file_kind(fs[0].name, fmt), fs))
    return out


def run_sources(runs, fmt: str, ctx: Ctx) -> list[RunSource]:
    if runs is None:
        raise InputError("no runs given", hint="give run files, a directory of runs or a .zip of runs")
    out: list[RunSource] = []
    for src in _run_list(runs):
        out.extend(_source_runs(src, fmt, ctx))
    if not out:
        raise InputError("no runs given", hint="give run files, a directory of runs or a .zip of runs")
    for s in out:
        for f in s.files:
            f.total = ctx.total
    return out


def _run_list(runs) -> list:
    """The ``runs`` argument as a list of sources (one upload, a {name: run} mapping or one source)."""
    if isinstance(runs, tuple) and len(runs) == 2 and isinstance(runs[1], (bytes, bytearray, memoryview)):
        runs = [runs]
    if is_named_runs(runs):
        runs = [{k: v} for k, v in runs.items()]
    if not isinstance(runs, (list, tuple)):
        runs = [runs]
    return runs


def _source_runs(src, fmt: str, ctx: Ctx) -> list[RunSource]:
    """The runs of one source: an in-memory run, an upload ``(name, bytes)``, a path, or a run already
    found (:class:`RunSource`: a zip holding qrels and runs)."""
    if isinstance(src, RunSource):
        return [src]
    if is_frame(src) or is_named_runs(src) or isinstance(src, dict):
        return _memory_runs(src)
    if isinstance(src, tuple):
        return _upload_runs(src, fmt, ctx)
    return _path_runs(src, fmt, ctx)


def _memory_runs(src) -> list[RunSource]:
    """A DataFrame, a {run name: run} mapping or a pytrec_eval {qid: {docno: score}} dict."""
    if is_frame(src):
        nm = str(src.attrs.get("name", "run"))
        return [RunSource(nm, f"run {nm!r}", "frame", [], src)]
    if is_named_runs(src):
        return [RunSource(str(k), f"run {str(k)!r}", "frame", [], v) for k, v in src.items()]
    if not src or not is_nested_dict(src):
        raise InputError("a dict of runs must be {qid: {docno: score}} (pytrec_eval) or "
                         "{run name: DataFrame or such a dict}", hint="check the layout of the dict")
    return [RunSource("run", "run 'run'", "frame", [], src)]


def _upload_runs(src: tuple, fmt: str, ctx: Ctx) -> list[RunSource]:
    """An upload ``(filename, bytes)``: a zip of runs, or one run file."""
    name, data = _check_tuple(src)
    if is_zip_name(name):
        return group_files(zip_members(name, data, ctx, run_fmt=fmt), name, fmt)
    return [RunSource(run_name(name), name, _file_kind(name, fmt), [SourceFile(name, _holding(data), ctx.limits)])]


def _path_runs(src, fmt: str, ctx: Ctx) -> list[RunSource]:
    """A path: a directory of runs, a zip of runs, or one run file."""
    p = _path_of(src)
    name = str(src)
    if p.is_dir():
        return _dir_runs(p, name, fmt, ctx)
    if is_zip_name(p.name):
        return group_files(zip_members(name, zip_bytes(p, ctx), ctx, run_fmt=fmt), name, fmt)
    return [RunSource(run_name(p.name), name, _file_kind(name, fmt),
                       [SourceFile(name, _read_path(p, ctx.limits), ctx.limits)])]


def _dir_runs(p: Path, name: str, fmt: str, ctx: Ctx) -> list[RunSource]:
    """A directory: its files (one run each, or ``.res`` files grouped), and each sub-directory of
    NTCIR ``.res`` files as one run."""
    entries = sorted((c for c in p.iterdir() if not c.name.startswith(".")), key=lambda c: c.name)
    files = _dir_files(p, ctx)
    got = group_files(files, name.rstrip("/\\"), fmt) if files else []
    for d in entries:  # sub-directories holding NTCIR .res files: one run each
        if d.is_dir():
            sub = [SourceFile(str(c), _read_path(c, ctx.limits), ctx.limits)
                   for c in sorted(d.iterdir(), key=lambda c: c.name)
                   if c.is_file() and not c.name.startswith(".") and is_res(c.name, "auto")]
            if sub:
                got.append(RunSource(d.name, str(d), _file_kind(sub[0].name, "auto"), sub))
    if not got:
        raise InputError("the directory holds no run files", file=name,
                         hint="put the run files in it (hidden files are skipped)")
    return got
