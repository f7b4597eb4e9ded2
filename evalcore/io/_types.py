"""The types the io stages hand each other, in one module below them all.

:class:`SourceFile` (one input file and the loader of its bytes; made by :mod:`._sources`, read by
:mod:`._text`, :mod:`._qrels` and :mod:`._runs`), :class:`RunSource` (one run's files; made by
:mod:`._sources`, ordered by :mod:`._order`, parsed by :mod:`._runs` and :mod:`._jsonl`, placed by
:mod:`._assemble`) and :class:`Parsed` (one run's rows in evaluation order; made by :mod:`._order`,
read by :mod:`._assemble`). The budgets and limits they carry are :mod:`.limits`'.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from . import _arrow as ak
from ._dochash import as_arrow
from ._source_file import SourceFile

__all__ = ["SourceFile", "RunSource", "Parsed"]


@dataclass
class RunSource:
    name: str                 # run name
    display: str              # file / directory / zip name for messages
    kind: str                 # "trec" | "res" | "jsonl" | "frame"
    files: list[SourceFile]
    obj: object = None        # kind "frame": the DataFrame or pytrec_eval dict


@dataclass
class Parsed:
    """One run, rows in evaluation order, grouped by topic (natural order).

    Row ``i`` of the evaluation order is row ``perm[i]`` of ``docs`` /
    ``doc_hash`` (file order, repeated documents already dropped).
    """

    name: str
    display: str
    topics: list[str]        # the run's topics, natural order
    counts: np.ndarray       # rows per topic
    row_topic: np.ndarray    # int32 per row in evaluation order, index into topics, sorted ascending
    perm: np.ndarray         # int64: evaluation order -> file row
    docs: pa.Array           # doc id per file row
    doc_hash: np.ndarray | None  # uint64 per file row (:func:`._dochash.hash_strings`); None when ``levels`` is set
    n_lines: int
    warnings: list[str]
    levels: np.ndarray | None = None  # int8 judged level per file row (-1 unjudged), when the loader's
    #                                   judgments were at hand (``order_rows``' ``judgments``)
    # int64 (n, 2): rows (evaluation order) i, j of one topic where ir_measures' own sort puts the document
    # of row i at row j's rank (score ties: ``Collection.ir_measures_order``); None when not in score order
    irm_moves: np.ndarray | None = None
    # the same for the order of Python's stable sort on the score (ties in the run's own order:
    # ``Collection.input_order``)
    input_moves: np.ndarray | None = None

    def docs_in_order(self) -> pa.Array:
        return ak.take(self.docs, as_arrow(self.perm))
