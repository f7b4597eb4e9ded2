"""Run names from file names, natural topic order, base names and extensions."""
from __future__ import annotations

import re
from typing import Iterable


def run_name(filename: str) -> str:
    """The file name without ``.gz`` and without its last extension.

    >>> run_name("runs/CUNI_EN_Run.2.dat.gz")
    'CUNI_EN_Run.2'
    >>> run_name("bm25")
    'bm25'
    """
    base = re.split(r"[/\\]", str(filename).rstrip("/\\"))[-1]
    if base.lower().endswith(".gz"):
        base = base[:-3]
    stem, dot, _ = base.rpartition(".")
    return stem if dot and stem else base


def _natural_key(s: str):
    """Natural order: digit runs compare as numbers ("qtest.2" < "qtest.10"),
    the plain string breaks what is left ("01" vs "1")."""
    parts = re.split(r"(\d+)", s)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), s


def _natural_sorted(items: Iterable[str]) -> list[str]:
    return sorted(items, key=_natural_key)


def _base(name: str) -> str:
    return re.split(r"[/\\:]", name.rstrip("/\\"))[-1]


def _ext(name: str) -> str:
    """Lower-case last extension, ignoring a final .gz ("a.res.gz" -> "res")."""
    b = _base(name).lower()
    if b.endswith(".gz"):
        b = b[:-3]
    return b.rpartition(".")[2] if "." in b else ""
