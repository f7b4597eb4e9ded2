"""What kind of in-memory input an object is: a DataFrame, a pytrec_eval-style dict, or named runs.

Read by :mod:`._sources` (to tell the inputs apart) and by the parsers (:mod:`._frames`, :mod:`._qrels`); it
imports no other stage, so every stage may ask it.
"""
from __future__ import annotations

import sys
from collections.abc import Mapping

__all__ = ["is_frame", "is_nested_dict", "is_named_runs"]


def is_frame(obj) -> bool:
    """A pandas DataFrame? Without importing pandas: none can exist before pandas is imported, and
    ``evalcore evaluate`` on files does not import it (docs/benchmarks.md section 14)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def is_nested_dict(obj) -> bool:
    """``{qid: {docno: value}}``: a mapping whose values are mappings of scalars (or empty)."""
    return isinstance(obj, Mapping) and all(
        isinstance(v, Mapping) and not any(isinstance(x, Mapping) or is_frame(x) for x in v.values())
        for v in obj.values())


def is_named_runs(obj) -> bool:
    """``{name: run}`` with every run a DataFrame or a pytrec_eval dict."""
    return isinstance(obj, Mapping) and len(obj) > 0 and all(
        is_frame(v) or (isinstance(v, Mapping) and is_nested_dict(v) and v) for v in obj.values()) \
        and not is_nested_dict(obj)
