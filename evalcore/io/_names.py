"""Run names from file names, natural topic order, base names and extensions."""
from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

_SEP = re.compile(r"[/\\]")
_BASE_SEP = re.compile(r"[/\\:]")


def run_name(filename: str) -> str:
    """The file name without ``.gz`` and without its last extension.

    >>> run_name("runs/CUNI_EN_Run.2.dat.gz")
    'CUNI_EN_Run.2'
    >>> run_name("bm25")
    'bm25'
    """
    base = _SEP.split(str(filename).rstrip("/\\"))[-1]
    if base.lower().endswith(".gz"):
        base = base[:-3]
    stem, dot, _ = base.rpartition(".")
    return stem if dot and stem else base


def natural_key(s: str):
    """Natural order: digit runs compare as numbers ("qtest.2" < "qtest.10"),
    the plain string breaks what is left ("01" vs "1")."""
    parts = re.split(r"([0-9]+)", s)
    # a digit run compares as a number through (length, digits) without leading zeros: the same
    # order as int(), without int()'s 4,300-digit limit on hostile ids
    return tuple((len(p.lstrip("0")), p.lstrip("0")) if i % 2 else p for i, p in enumerate(parts)), s


def natural_sorted(items: Iterable[str]) -> list[str]:
    return sorted(items, key=natural_key)


def base_name(name: str) -> str:
    return _BASE_SEP.split(name.rstrip("/\\"))[-1]


def extension(name: str) -> str:
    """Lower-case last extension, ignoring a final .gz ("a.res.gz" -> "res")."""
    b = base_name(name).lower()
    b = b.removesuffix(".gz")
    return b.rpartition(".")[2] if "." in b else ""


# files that are never qrels or runs: skipped (with a note) when a directory or zip is read
_NOT_DATA_STEMS = {"readme", "license", "licence", "changelog", "changes", "copying", "authors", "notice"}
_NOT_DATA_FILES = {"thumbs.db", "ehthumbs.db", "desktop.ini"}
_NOT_DATA_EXT = {"md", "markdown", "rst", "pdf", "html", "htm", "json", "yaml", "yml", "toml", "ini", "cfg",
                 "png", "jpg", "jpeg", "gif", "svg", "bmp", "db", "doc", "docx", "odt", "xls", "xlsx", "ods",
                 "ppt", "pptx", "py", "sh", "bat", "ipynb", "exe", "dll", "so", "pyc"}
# archives inside archives are not opened (a nested zip bomb stays closed)
_ARCHIVE_EXT = {"zip", "tar", "tgz", "tbz2", "txz", "7z", "rar", "bz2", "xz", "lz4", "zst", "jar", "whl"}


def not_data(name: str) -> str | None:
    """Why a file in a directory / zip is not read as qrels or a run, or None.

    >>> not_data("runs/README.md"), not_data("Thumbs.db"), not_data("bm25.txt")
    ('documentation or metadata', 'documentation or metadata', None)
    >>> not_data("README"), not_data("readme.txt"), not_data("license_run.txt")
    ('documentation or metadata', 'documentation or metadata', None)
    >>> not_data("inner.zip")
    'an archive (only archives given directly are opened)'
    """
    b = base_name(name).lower()
    stem = b.removesuffix(".gz")
    ext = stem.rpartition(".")[2] if "." in stem else ""
    if ext in _ARCHIVE_EXT or b.endswith((".tar.gz", ".tgz")):
        return "an archive (only archives given directly are opened)"
    if ext in _NOT_DATA_EXT or stem.split(".")[0] in _NOT_DATA_STEMS or stem in _NOT_DATA_FILES:
        return "documentation or metadata"
    return None


_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def _as_number(topic: str):
    """A topic id that is a number, as that number (``"1.0"``, ``"01"`` and ``"1e0"`` -> 1), else None."""
    if len(topic) > 40 or not _NUMBER_RE.match(topic):
        return None
    try:
        return Decimal(topic).normalize()
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid numbers
        return None


def written_differently(run_topics, qrels_topics) -> list[tuple[str, str]]:
    """(run topic, qrels topic) pairs that are different text but the same number: ``("1", "1.0")``,
    ``("7", "007")``. Topic ids are compared as text (as trec_eval compares them), so such a run topic
    scores nothing on its qrels topic; the loader says so instead of scoring 0 quietly."""
    by_number: dict = {}
    for t in qrels_topics:
        n = _as_number(t)
        if n is not None:
            by_number.setdefault(n, t)
    out = []
    for t in run_topics:
        n = _as_number(t)
        if n is not None and n in by_number:
            out.append((t, by_number[n]))
    return out
