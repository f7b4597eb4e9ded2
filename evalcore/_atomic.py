"""Atomic file writes: a file is either its old content or its whole new content, never half of one.

Every file the CLI writes goes through here: the bytes go to a temporary file in the same directory
(same file system), are flushed and fsynced, and the temporary file is renamed over the target
(``os.replace``, atomic on POSIX and Windows). :func:`write_files` writes a set of files so that a
failure part-way leaves every target as it was: all temporaries are written first, and only when all
of them are complete are they renamed into place. Errors name the file.

What is replaced is what the path names, as a shell's ``>`` would write it:

* a **symbolic link** is followed (every link of a chain) and the file it names is replaced; the link
  stays a link (a dangling link creates the file it names);
* a **FIFO or character device** (``/dev/null``, ``/dev/stdout``, a terminal) is not a file that can be
  replaced: it is written directly, after every temporary of the set is complete, and never renamed
  over (replacing ``/dev/full`` as root would put a regular file where the device was). A FIFO that no
  process reads is refused at once rather than waited on. A block device, a socket or a directory is
  refused with a message;
* a **new file** gets the usual permissions, 0666 minus the umask (it is created with mode 0666 and the
  kernel applies the umask and any default ACL), as ``open(path, "w")`` would; an **existing file keeps
  its mode** (and, when the process may, its owner and group);
* a file with **several hard links** (``st_nlink > 1``) keeps them: a rename would give the path a new
  inode and leave every other name holding the old content, so once the temporary (and every other
  temporary of the set) is complete, its bytes are copied into the existing file, which is then
  truncated to their length and fsynced. That copy is the one write here that is not atomic: a crash
  during it can leave the file part-written. If the copy fails, the temporary is kept and the error
  names it: it holds the whole new content (docs/reliability.md, "Atomic ``--save-settings``").
"""
from __future__ import annotations

import os
import stat
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
    directory, in a writable directory (the directory of the file a symbolic link names); a FIFO or a
    character device is checked for writing itself. ``example``: a file name suggested when a directory
    is given."""
    if not path:
        return None
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{p}: is a directory; {option} needs a file name, e.g. {p / example}")
    real, st = _resolve(p)
    if st is not None and not stat.S_ISREG(st.st_mode):
        _check_special(p, st)
        if not os.access(real, os.W_OK):
            raise OutputError(f"{p}: not writable")
        return p
    check_writable_dir(real.parent)
    return p


def _resolve(target: Path) -> tuple[Path, os.stat_result | None]:
    """The path the data goes to (every symbolic link followed) and its status (None: no such file yet)."""
    real = Path(os.path.realpath(target))
    try:
        return real, os.stat(real)
    except FileNotFoundError:
        return real, None
    except OSError as e:   # a loop of links, a component that is not a directory, no permission
        raise OutputError(f"{target}: cannot be written ({e.strerror or e})") from None


def _check_special(target: Path, st: os.stat_result) -> None:
    """Refuse what is neither a regular file nor something a shell's ``>`` writes through harmlessly."""
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        raise OutputError(f"{target}: is a directory; give a file name")
    if stat.S_ISBLK(mode):
        raise OutputError(f"{target}: is a block device; evalcore writes reports only to files, FIFOs and "
                          "character devices")
    if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        raise OutputError(f"{target}: is not a regular file, a FIFO or a character device (a socket?); "
                          "give a file name")


def _temp_for(target: Path, real: Path, st: os.stat_result | None, data: bytes) -> Path:
    """``data`` in a new temporary file beside ``real``, with ``real``'s mode (and owner, where allowed)
    when it exists, else 0666 minus the umask."""
    import secrets  # (here: importing it costs at every start, writing files is rare)

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = real.parent / f".{real.name}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(name, flags, 0o666)
            break
        except FileExistsError:
            continue
        except OSError as e:
            raise OutputError(f"{target}: could not be written ({e.strerror or e}); "
                              "the file was left as it was") from None
    else:
        raise OutputError(f"{target}: could not create a temporary file beside it; the file was left as it was")
    try:
        if st is not None:
            if hasattr(os, "fchown") and (os.geteuid() == 0 or st.st_uid == os.geteuid()):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)
                except OSError:   # another group we are not in: the mode is still kept
                    pass
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
        with os.fdopen(fd, "wb") as f:
            fd = -1
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException as e:
        if fd >= 0:
            os.close(fd)
        name.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OutputError(f"{target}: could not be written ({e.strerror or e}); "
                              "the file was left as it was") from None
        raise
    return name


def _write_through(target: Path, real: Path, st: os.stat_result, data: bytes) -> None:
    """Write ``data`` into a FIFO or a character device as it is (never created, truncated or replaced)."""
    fifo = stat.S_ISFIFO(st.st_mode)
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags | (os.O_NONBLOCK if fifo else 0))
    except OSError as e:
        if fifo and e.errno == 6:   # ENXIO: nobody has the FIFO open for reading; waiting could be forever
            raise OutputError(f"{target}: is a FIFO that no process is reading; start the reader first "
                              "(e.g. cat " + str(target) + ") or give a file name") from None
        raise OutputError(f"{target}: could not be written ({e.strerror or e})") from None
    try:
        if fifo:
            os.set_blocking(fd, True)   # the reader is there: write at its pace
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as e:
        raise OutputError(f"{target}: could not be written ({e.strerror or e})") from None
    finally:
        os.close(fd)


def write_files(files: Mapping[_P, bytes | str]) -> None:
    """Write several files all-or-nothing: each to a temporary file beside it, then all renamed into place.

    Text is written as UTF-8. If any file cannot be written, no target is changed and the temporaries
    are removed. A symbolic link is followed to the file it names; a FIFO or character device among the
    targets is written directly once every temporary is complete (so all-or-nothing holds for the regular
    files; what went into a device cannot be taken back); see the module's docstring.
    """
    temps: list[tuple[Path, Path, bytes | None]] = []   # (temporary, target, bytes to copy in place or None)
    direct: list[tuple[Path, Path, os.stat_result, bytes]] = []
    try:
        for target, data in files.items():
            t = Path(target)
            raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
            real, st = _resolve(t)
            if st is not None and not stat.S_ISREG(st.st_mode):
                _check_special(t, st)
                direct.append((t, real, st, raw))
                continue
            linked = st is not None and st.st_nlink > 1
            temps.append((_temp_for(t, real, st, raw), real, raw if linked else None))
        for t, real, st, raw in direct:
            _write_through(t, real, st, raw)
    except BaseException:
        for tmp, _, _ in temps:
            tmp.unlink(missing_ok=True)
        raise
    for i, (tmp, real, in_place) in enumerate(temps):
        if in_place is not None:
            _copy_in_place(tmp, real, in_place)
            tmp.unlink(missing_ok=True)
            continue
        try:
            os.replace(tmp, real)
        except OSError as e:
            for rest, _, _ in temps[i:]:
                rest.unlink(missing_ok=True)
            raise OutputError(f"{real}: could not be put in place ({e.strerror or e})") from None


def _copy_in_place(tmp: Path, real: Path, data: bytes) -> None:
    """Write ``data`` into the existing file ``real`` (its inode, so every hard link to it sees the new
    content), truncate it to their length and fsync it. On failure the complete temporary ``tmp`` is kept
    and the error names it."""
    try:
        fd = os.open(real, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise OutputError(f"{real}: could not be rewritten in place to keep its hard links ({e.strerror or e}); "
                          f"it may be part-written - the whole new content is in {tmp}") from None


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write one file atomically."""
    write_files({path: data})


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write one UTF-8 text file atomically."""
    write_files({path: text})
