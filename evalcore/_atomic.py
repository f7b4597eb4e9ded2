"""Atomic file writes: a file is either its old content or its whole new content, never half of one.

Every file the CLI writes goes through here: the bytes go to a temporary file in the same directory
(same file system), are flushed and fsynced, and the temporary file is renamed over the target
(``os.replace``, atomic on POSIX and Windows). :func:`write_files` writes a set of files so that a
failure part-way leaves every target as it was: all temporaries are written first, and only when all
of them are complete are they renamed into place. Errors name the file.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

_P = TypeVar("_P", bound=str | os.PathLike)

__all__ = ["OutputError", "check_writable_dir", "write_bytes", "write_files", "write_text"]


class OutputError(OSError):
    """An output file could not be written; the message names the file and the reason."""


def check_writable_dir(directory: str | os.PathLike, *, create: bool = False) -> Path:
    """The directory as a Path, checked before any computation: it exists (or is created when
    ``create``) and is a writable directory. Raises :class:`OutputError` naming it."""
    d = Path(directory)
    if create:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OutputError(f"{d}: cannot create the output directory ({e.strerror or e})") from None
    if not d.is_dir():
        raise OutputError(f"{d}: no such directory; create it first or choose another output path")
    if not os.access(d, os.W_OK | os.X_OK):
        raise OutputError(f"{d}: the directory is not writable")
    return d


def check_output_file(path: str | os.PathLike | None, option: str, example: str) -> Path | None:
    """The output file an option names, checked before any computation (None when none is given): not a
    directory, in a writable directory. ``example``: a file name suggested when a directory is given."""
    if not path:
        return None
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{p}: is a directory; {option} needs a file name, e.g. {p / example}")
    check_writable_dir(p.parent)
    return p


def _temp_for(target: Path, data: bytes) -> Path:
    import tempfile  # (here: importing it costs ~5 ms at every start, writing files is rare)

    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException as e:
        Path(name).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OutputError(f"{target}: could not be written ({e.strerror or e}); "
                              "the file was left as it was") from None
        raise
    return Path(name)


def write_files(files: Mapping[_P, bytes | str]) -> None:
    """Write several files all-or-nothing: each to a temporary file beside it, then all renamed into place.

    Text is written as UTF-8. If any file cannot be written, no target is changed and the temporaries
    are removed.
    """
    temps: list[tuple[Path, Path]] = []
    try:
        for target, data in files.items():
            t = Path(target)
            raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
            temps.append((_temp_for(t, raw), t))
    except BaseException:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
        raise
    for i, (tmp, t) in enumerate(temps):
        try:
            os.replace(tmp, t)
        except OSError as e:
            for rest, _ in temps[i:]:
                rest.unlink(missing_ok=True)
            raise OutputError(f"{t}: could not be put in place ({e.strerror or e})") from None


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write one file atomically."""
    write_files({path: data})


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write one UTF-8 text file atomically."""
    write_files({path: text})
