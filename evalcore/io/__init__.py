r"""Reading qrels and runs (TREC and NTCIR formats) into a :class:`Collection`.

Formats
-------
Qrels
    * TREC: ``topic iter doc rel`` (4 fields; ``rel`` an integer).
    * NTCIR, one file: ``topic doc L<n>`` or ``topic doc S|A|B`` (3 fields;
      S = 3, A = 2, B = 1, and then ``level_names = ("B", "A", "S")``; a plain
      integer label is read as that level).
    * NTCIREVAL per-topic ``.rel`` files: ``doc L<n>`` (2 fields); the topic id
      is the file stem (``0001.rel`` -> ``0001``). Give them as a directory, a
      zip, or a list of sources.
Runs
    * TREC: ``topic Q0 doc rank score tag`` (6 fields). The run's name is the
      file name (:func:`run_name`), not the tag.
    * NTCIR ``.res``: one ranked document id per line, file order = rank
      order, one ``TOPIC.res`` file per topic; a run is a directory or zip of
      such files and is named after it.
    * JSON lines (``.jsonl`` / ``.ndjson``, or any file whose first line
      starts with ``{``): ``{"query_id": ..., "doc_id": ..., "score": ...}``
      per line (PyTerrier's ``qid`` / ``docno`` too).
Python objects (:mod:`evalcore.io._frames`)
    * DataFrames with PyTerrier's (``qid, docno, label`` / ``qid, docno,
      score[, rank]``) or ir_measures' columns (``query_id, doc_id,
      relevance`` / ``query_id, doc_id, score``); pyarrow Tables with the
      same columns; pytrec_eval dicts ``{qid: {docno: value}}``;
      ir_datasets-style iterables of namedtuples (``qrels_iter()``,
      ``scoreddocs_iter()``); a dict of named runs ``{name: run}``.

All text formats: ``#`` comment lines (ir_metadata headers) are skipped;
fields are split on any whitespace; trailing blanks, CRLF line ends and
leading UTF-8 BOMs are tolerated, blank lines skipped; ``.gz`` files are
decompressed wherever they appear (also inside a zip). Numbers (labels,
scores, ranks) are ASCII only. Relevance labels go up to ``MAX_LEVEL`` = 20;
scores must be finite.

Hostile input
-------------
Decompression, runs, topics, depth and the tensor's memory are bounded by
:class:`Limits` (module ``limits``), each checked before the memory it guards
is taken; documentation files (README.md, Thumbs.db, ...) in a directory or
zip are skipped with a note; zip members with absolute or ``..`` paths,
symlinks and archives inside archives are skipped with a note. Only regular
files are read (a device, FIFO or socket is refused unread), never past the
limit whatever their size on disk says; a zip's member count is bounded from
its end record before it is listed; all compressed files of one load share
one expansion budget. The line-by-line parsers hold one block of lines and
arrow columns, not Python objects per line. Everything that escapes the
loader is an :class:`InputError`.

Sniffing (``fmt="auto"``)
-------------------------
* Qrels file: a ``.rel`` extension (before ``.gz``) means a per-topic
  NTCIREVAL file; otherwise the first non-blank line decides: 4 fields =
  TREC, 3 fields = NTCIR one-file, 2 fields = per-topic ``.rel`` file.
* Run: a ``.res`` file (or a directory / zip holding ``.res`` files) is an
  NTCIR run; everything else is a TREC run (6 fields per line).

Force a format with ``fmt="trec"``, ``fmt="ntcir"`` (qrels: either NTCIR
form, by field count; runs: every file is a ``.res`` file) or ``fmt="rel"``
(qrels: every file is a per-topic ``.rel`` file, topic = file stem).

Ranking order of a TREC run (``order=``)
----------------------------------------
``"score"`` (default) **sorts each topic by score, descending, and breaks
exact score ties by document id, descending, comparing the ids byte-wise** -
exactly what trec_eval does (it ignores the rank column). Like trec_eval,
which stores scores as C ``float``, scores are compared in single precision:
0.0019528380786704603 and 0.0019528380786704601 tie. ``"rank"`` sorts by
the rank column ascending (ties: file order); ``"file"`` keeps file order.

Speed and memory
----------------
Runs are parsed by pyarrow's CSV reader in 1 MB blocks (after turning
tabs, repeated blanks and trailing blanks into single spaces when a file
has any). Most runs are written in score order already: then only the
rows of each group of equal scores are sorted (by document id), otherwise
one vectorised three-key sort orders the run. A TREC or NTCIR one-file
qrels file is read the same way (labels as int8; ``L<n>`` and S, A, B
vectorised). Document ids are hashed once, in numpy, straight from the
arrow buffers (:mod:`._dochash`: an id of 8-16 bytes is two overlapping
8-byte reads); the judged (topic, document) keys are indexed once per
collection by a slot table on their top bits (and a second one, on the
low bits, for the keys that share a slot) plus one packed record per key
(key, length, the id's bytes as words), so placing a run costs one table
read per line and one record read per judged line - nothing is rebuilt
per run and loading time grows linearly with the number of run lines.
Hashing, keys and lookup run in blocks of 65,536 rows, each block's words
read once and compared while they sit in the CPU cache. A document
repeated within a topic is looked for by sorting each topic's keys on
their own (their top 32 bits first, when topics are short). Hashes only
propose matches: every match is confirmed on the key and on the id's
bytes, and every repeated document on the strings, so results are exact.
Whenever anything looks off (a parse error, an empty field, a label out of
range) the file is re-read by a
plain line-by-line parser whose job is to name the first bad line in an
:class:`InputError` (or word the warning exactly); it reads a block of
~1 MB of lines at a time (:mod:`._lines`) into arrow columns, so it holds the
text plus ~40 bytes per line. A repeated document is named by one streamed
scan of the text for its line, not a second parse.

Parsing alone (``read_qrels``, ``read_run``) holds a few times the file's text
beyond the text itself, every path within the target of docs/reliability.md,
"Parse memory" (the figures per path, from benchmarks/hostile_io.py);
``load_collection`` adds the judgment index below.

Runs are *streamed*: one reader thread reads and parses the next run file
while the current run is ordered and placed, and a run's text and parsed
columns are dropped as soon as its rows are in the tensor. Peak memory is
therefore bounded by

    tensor (2 bytes per run x topic x rank cell: int8 levels + bool unjudged)
    + qrels (~33 bytes per judgment, strings in arrow buffers, plus the
      slot tables (64 MB from ~2 M judgments on) and the records: ~75
      bytes per judgment of 12-byte ids)
    + one run being placed (~4x its text) + one being read (its text + ~1 MB
      of parse blocks + its columns)
    + the interpreter with numpy, pandas and pyarrow (~105 MB),

not by the text of all runs (benchmarks/bench_scale.py, docs/benchmarks.md).
The tensor's rank axis grows to the longest list seen (one extra copy
while growing). Arrow's memory pool keeps the freed parse buffers for the
next run rather than returning them after every run (the next run's parse
faulted them back in: docs/benchmarks.md section 10.1 gives the CPU), and
returns them once, when the last run is placed (what it would otherwise
leave resident under the memory the metrics then take grows with the runs'
lines).

Code map (one stage per module)
-------------------------------
``sources`` paths, directories, zip archives, uploads -> files / run sources;
``frames`` DataFrames and pytrec_eval dicts; ``jsonl`` JSON-lines runs;
``text`` decompression, UTF-8 (UTF-16 / UTF-32 named), lines; ``lines`` a
block of lines at a time; ``repeats`` repeated (topic, document) pairs, with arrays; ``qrels`` qrels formats (fast path
for one TREC or NTCIR one-file qrels, the line loop otherwise); ``dochash`` document-id hashes;
``trec_fast`` the pyarrow fast path for TREC runs; ``trec_lines`` the line-by-line parser
that names the first bad line; ``runs`` TREC / NTCIR ``.res`` runs and
:func:`read_run`; ``order`` evaluation order (trec_eval ties); ``assemble``
the judgment lookup, placing and :func:`load_collection`; ``stream`` the
run read ahead and the growing tensor; ``errors`` :class:`InputError`;
``limits`` :class:`Limits` and the expansion budget.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import InputError
from .limits import APP_LIMITS, DEFAULT_LIMITS, MAX_LEVEL, Limits

if TYPE_CHECKING:  # the readers import numpy and pyarrow: loaded on first use (evalcore.treceval needs neither)
    from ._names import run_name
    from ._public import load_collection, read_qrels
    from ._qrels import Qrels
    from ._runs import Run, read_run

#: public name -> the module (of this package) that defines it, imported when the name is first used
_LAZY = {"load_collection": "_public", "read_qrels": "_public", "run_name": "_names", "Qrels": "_qrels",
         "Run": "_runs", "read_run": "_runs"}


def __getattr__(name: str):
    """The readers, imported on first use: ``from evalcore.io.errors import InputError`` (evalcore trec_eval's
    only need) then costs neither numpy's nor pyarrow's import."""
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
           "APP_LIMITS",
           "DEFAULT_LIMITS",
           "MAX_LEVEL",
           "InputError",
           "Limits",
           "Qrels",
           "Run",
           "load_collection",
           "read_qrels",
           "read_run",
           "run_name",
]
