"""The run formats, in one table: what each is called, how it is recognised, which function reads it and
which limits bound it. The loader (:mod:`._sources` sniffs a file's kind, :mod:`._runs` dispatches to its
reader), the command line's ``--run-format`` choices and its help, and the docs all read this table.

Adding a format is a reader ``(src: RunSource, order: str, keep_first: bool) -> Parsed`` plus one entry
here; its tests go in tests/test_io.py. A reader reads the bytes of ``src.files`` (already bounded by
:class:`evalcore.io.Limits`: ``max_expanded_bytes`` per file, the expansion budget over a load) and must
check every size it allocates from the data against a limit before allocating.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ._names import extension

__all__ = ["RunFormat", "RUN_FORMAT_TABLE", "RUN_FORMATS", "format_of", "reader", "formats_help"]


@dataclass(frozen=True)
class RunFormat:
    """One run format.

    ``kind``: the loader's name for it (``RunSource.kind``); ``names``: the values of ``fmt=`` /
    ``--run-format`` that force it (none: it is chosen from the input's type, never named); ``extensions``:
    the file extensions (before ``.gz``) that select it under ``fmt="auto"``; ``reader``: ``"module:function"``
    of its reader, imported on first use; ``per_topic``: a run is a folder (or zip) of such files, one per
    topic (NTCIR's ``TOPIC.res``); ``text``: one line for the docs and ``--help``; ``limits``: the limits that
    bound it, in words.
    """

    kind: str
    names: tuple[str, ...]
    extensions: tuple[str, ...]
    reader: str
    text: str
    limits: str = "max_expanded_bytes per file; max_depth, max_topics, max_runs after parsing"
    per_topic: bool = False


#: Every run format, in the order ``fmt="auto"`` tries the extensions; the last named one (``trec``) is the
#: fallback for a file no extension selects (a first line starting with ``{`` is read as JSON lines there).
RUN_FORMAT_TABLE: dict[str, RunFormat] = {f.kind: f for f in (
    RunFormat("res", ("ntcir", "res"), ("res",), "evalcore.io._runs:parse_res",
              "NTCIR: one ranked document id per line, one TOPIC.res file per topic, a run is a folder or zip "
              "of them", per_topic=True),
    RunFormat("jsonl", ("jsonl",), ("jsonl", "ndjson"), "evalcore.io._jsonl:parse_jsonl_run",
              "JSON lines: one {query_id|qid, doc_id|docno, score[, rank]} object per line (also any file whose "
              "first line starts with '{')"),
    RunFormat("trec", ("trec",), (), "evalcore.io._runs:read_trec",
              "TREC: 'topic Q0 doc rank score tag' per line (the default for any other file)"),
    RunFormat("frame", (), (), "evalcore.io._frames:parse_source_frame",
              "a DataFrame, pytrec_eval dict or ranx Run given in Python (evalcore.io._frames)",
              limits="max_depth, max_topics, max_runs"),
)}

#: The values ``fmt=`` and ``--run-format`` take: ``auto`` and every format's names.
RUN_FORMATS: tuple[str, ...] = ("auto", *(n for f in RUN_FORMAT_TABLE.values() for n in f.names))


def format_of(name: str, fmt: str) -> RunFormat:
    """The format of a run file called ``name`` under ``fmt`` (``auto``: by its extension before ``.gz``,
    else TREC)."""
    if fmt != "auto":
        for f in RUN_FORMAT_TABLE.values():
            if fmt in f.names:
                return f
        raise ValueError(f"fmt must be one of {', '.join(RUN_FORMATS)}; got {fmt!r}")
    ext = extension(name)
    for f in RUN_FORMAT_TABLE.values():
        if ext in f.extensions:
            return f
    return RUN_FORMAT_TABLE["trec"]


def reader(kind: str) -> Callable:
    """The reader function of the format ``kind``."""
    module, _, func = RUN_FORMAT_TABLE[kind].reader.partition(":")
    return getattr(importlib.import_module(module), func)


def formats_help() -> str:
    """``--run-format``'s help: every choice and what selects it."""
    parts = [f"{'/'.join(f.names)} ({', '.join('.' + e for e in f.extensions) or 'the default'})"
             for f in RUN_FORMAT_TABLE.values() if f.names]
    return "run format (default auto: by the file's extension, before .gz: " + "; ".join(parts) + \
        "; a first line starting with '{' = JSON lines)"
