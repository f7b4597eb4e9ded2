"""One input file and the loader of its bytes (:class:`SourceFile`), in a module that imports neither numpy nor
pyarrow: :mod:`._text` decompresses and checks such a file for every reader, :mod:`evalcore.treceval` included."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._names import base_name
from .limits import DEFAULT_LIMITS, Budget, Limits

__all__ = ["SourceFile"]


@dataclass
class SourceFile:
    """One input file: display name (for messages) and a loader of its raw bytes."""

    name: str
    load: Callable[[], bytes]
    limits: Limits = DEFAULT_LIMITS
    budget: Budget | None = None  # the enclosing zip's expansion budget (None: a file of its own)
    total: Budget | None = None   # the load's budget for all its compressed files

    @property
    def base(self) -> str:
        return base_name(self.name)
