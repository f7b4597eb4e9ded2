"""Reading qrels and runs (TREC and NTCIR formats) into a Collection.

STUB: being written. See the interface in the docstrings below.
"""
from __future__ import annotations


class InputError(ValueError):
    """Bad input: names the file, the line, the offending text and the fix."""


def load_collection(qrels, runs, **kwargs):  # pragma: no cover - stub
    raise NotImplementedError
