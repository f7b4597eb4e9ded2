"""Writes that respect their target (evalcore._atomic): a symbolic link is followed, a FIFO or a character
device is written through and never replaced, new files get 0666 minus the umask, existing files keep
their mode. The device cases guard ``os.replace`` so that a regression fails the test instead of replacing
/dev/null on a machine where the tests run as root."""
from __future__ import annotations

import os
import stat
import threading
import time

import pytest

from evalcore._atomic import OutputError, check_output_file, write_files, write_text
from evalcore.cli import main

SIM = ["evaluate", "--simulated", "--topics", "6", "--systems", "4"]


@pytest.fixture
def no_replace(monkeypatch):
    """Any rename fails the test: a device or FIFO must never be renamed over."""
    def boom(src, dst, *a, **kw):
        raise AssertionError(f"os.replace({src!r}, {dst!r}) on a target that must be written through")
    monkeypatch.setattr(os, "replace", boom)


def _umask(mask: int) -> int:
    return os.umask(mask)


def test_a_symlink_is_followed_to_the_file_it_names(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "report.md"
    target.write_text("old\n")
    link = tmp_path / "link.md"
    link.symlink_to(os.path.relpath(target, tmp_path))
    write_text(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "report.md")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md", "real"]
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["report.md"]   # no temporary left


def test_a_chain_of_links_and_a_dangling_link(tmp_path):
    target = tmp_path / "t.txt"
    (tmp_path / "b").symlink_to(target)          # dangling: writing creates the file it names
    (tmp_path / "a").symlink_to(tmp_path / "b")
    write_files({tmp_path / "a": b"x", tmp_path / "plain.txt": "y"})
    assert target.read_bytes() == b"x" and (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()
    assert (tmp_path / "plain.txt").read_text() == "y"


def test_a_loop_of_links_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OutputError, match=r"a: cannot be written"):
        write_text(tmp_path / "a", "x")


def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path, no_replace):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    ready = threading.Event()

    def reader():
        # open without waiting for a writer, then poll: a read before the writer opens returns b"" (no
        # writer yet), which is not the end of the data
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        ready.set()
        data, deadline = b"", time.monotonic() + 10
        try:
            while time.monotonic() < deadline:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:          # a writer is there, nothing written yet
                    chunk = None
                if chunk:
                    data += chunk
                elif chunk == b"" and data:      # the writer closed after writing
                    break
                else:
                    time.sleep(0.01)
        finally:
            os.close(fd)
        got.append(data)
    th = threading.Thread(target=reader)
    th.start()
    ready.wait(5)
    write_text(fifo, "through the pipe\n")
    th.join(5)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_fifo_nobody_reads_is_refused_at_once(tmp_path, no_replace):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="is a FIFO that no process is reading"):
        write_text(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_character_device_is_written_not_replaced(no_replace):
    before = os.lstat("/dev/null")
    write_text("/dev/null", "discarded\n")
    after = os.lstat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_dev_full_is_a_full_disk_not_a_file_to_replace(no_replace):
    with pytest.raises(OutputError, match=r"/dev/full: could not be written \(No space left on device\)"):
        write_text("/dev/full", "x")
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_cli_save_settings_to_dev_full_keeps_the_device(capsys, no_replace):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    assert main(SIM + ["--save-settings", "/dev/full"]) == 2
    assert "/dev/full: could not be written (No space left on device)" in capsys.readouterr().err
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_a_socket_is_refused(tmp_path):
    import socket
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(OutputError, match="not a regular file, a FIFO or a character device"):
            write_text(path, "x")
        with pytest.raises(OutputError, match="not a regular file"):
            check_output_file(path, "--out", "x.md")


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_0666_minus_the_umask(tmp_path, mask, mode):
    old = _umask(mask)
    try:
        write_text(tmp_path / "new.md", "x")
        main_out = tmp_path / "s.json"
        assert main(SIM + ["--save-settings", str(main_out)]) == 0
    finally:
        _umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.md").st_mode) == mode
    assert stat.S_IMODE(os.stat(main_out).st_mode) == mode


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_an_existing_file_keeps_its_mode(tmp_path, mode):
    f = tmp_path / "report.md"
    f.write_text("old")
    os.chmod(f, mode)
    old = _umask(0o077)
    try:
        write_text(f, "new")
    finally:
        _umask(old)
    assert f.read_text() == "new" and stat.S_IMODE(os.stat(f).st_mode) == mode


def test_check_output_file_looks_at_the_link_target_directory(tmp_path):
    (tmp_path / "out").mkdir()
    link = tmp_path / "l.json"
    link.symlink_to(tmp_path / "out" / "s.json")
    assert check_output_file(link, "--save-settings", "s.json") == link
    (tmp_path / "l2.json").symlink_to(tmp_path / "missing" / "s.json")
    with pytest.raises(OutputError, match="missing: no such directory"):
        check_output_file(tmp_path / "l2.json", "--save-settings", "s.json")
    assert check_output_file("/dev/null", "--out", "x") is not None


def test_a_hard_linked_file_keeps_its_links(tmp_path):
    """A rename over the target gave the path a new inode: the file's other names kept the old content."""
    target, other = tmp_path / "report.md", tmp_path / "elsewhere.md"
    target.write_text("old content, longer than the new one\n")
    os.chmod(target, 0o640)
    os.link(target, other)
    inode = os.stat(target).st_ino
    write_text(target, "new\n")
    assert other.read_text() == "new\n" and target.read_text() == "new\n"
    st = os.stat(target)
    assert st.st_ino == inode and st.st_nlink == 2 and stat.S_IMODE(st.st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.md", "report.md"]   # no temporary left
    write_files({other: b"x" * 10_000, tmp_path / "new.txt": "n"})          # longer, and in a set
    assert target.read_bytes() == b"x" * 10_000 and os.stat(other).st_nlink == 2


def test_the_cli_out_keeps_a_hard_link(tmp_path):
    out, link = tmp_path / "scores.tsv", tmp_path / "link.tsv"
    out.write_text("old\n")
    os.link(out, link)
    assert main(["compare", "--simulated", "--topics", "6", "--systems", "4", "-m", "AP", "--out", str(out)]) == 0
    assert link.read_text() == out.read_text() and "| AP |" in out.read_text() and os.stat(out).st_nlink == 2
    settings = tmp_path / "s.json"
    settings.write_text("{}")
    os.link(settings, tmp_path / "s-link.json")
    assert main([*SIM, "--save-settings", str(settings)]) == 0
    assert (tmp_path / "s-link.json").read_text() == settings.read_text() != "{}"


def test_a_failed_copy_into_a_hard_linked_file_keeps_the_new_content_and_names_it(tmp_path, monkeypatch):
    import errno

    target = tmp_path / "r.md"
    target.write_text("old\n")
    os.link(target, tmp_path / "l.md")

    def full(fd, length):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "ftruncate", full)
    with pytest.raises(OutputError, match=r"r.md: could not be rewritten in place .*No space left") as e:
        write_text(target, "new\n")
    kept = str(e.value).rsplit(" in ", 1)[1]
    assert open(kept).read() == "new\n" and os.path.dirname(kept) == str(tmp_path)
