"""The public readers of :mod:`evalcore.io` with their Python-object inputs (DataFrames, dicts, iterables)."""
from __future__ import annotations

import functools

from ._assemble import load_collection as _load_collection
from ._frames import python_sources
from ._qrels import read_qrels as _read_qrels

__all__ = ["load_collection", "read_qrels"]
_PYTHON_INPUTS = """
    Also, for qrels and runs: a pyarrow ``Table`` / ``RecordBatch`` with a
    DataFrame's columns, and ir_datasets-style iterables of records
    (``dataset.qrels_iter()``, ``dataset.scoreddocs_iter()``: namedtuples
    with ``query_id, doc_id, relevance`` / ``query_id, doc_id, score``), as
    :mod:`evalcore.io._frames` describes; a dict ``{name: iterable}`` names
    several runs.
"""


@functools.wraps(_load_collection)
def load_collection(qrels, runs=None, **kwargs):
    qrels, runs = python_sources(qrels, runs)
    return _load_collection(qrels, runs, **kwargs)


@functools.wraps(_read_qrels)
def read_qrels(source, **kwargs):
    return _read_qrels(python_sources(source, None)[0], **kwargs)


load_collection.__doc__ = (_load_collection.__doc__ or "") + _PYTHON_INPUTS
read_qrels.__doc__ = (_read_qrels.__doc__ or "") + _PYTHON_INPUTS
