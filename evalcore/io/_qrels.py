"""Qrels: TREC (4 fields), NTCIR one-file (3 fields, L<n> or S/A/B), NTCIREVAL per-topic ``.rel`` files."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, cast

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv

from . import _arrow as ak
from ._dochash import as_arrow, as_numpy, hash_strings, pair_keys
from ._frames import qrels_frame
from ._kinds import is_frame
from ._lines import raw_lines
from ._names import extension, natural_sorted, run_name
from ._repeats import first_occurrence
from ._sources import qrels_files, source_name
from ._text import INT_RE, content_lines, first_fields, text_bytes
from ._trec_fast import clean_blanks, drop_comments, needs_cleaning, read_table
from ._types import SourceFile
from .errors import InputError, shorten, unforeseen
from .limits import DEFAULT_LIMITS, MAX_LEVEL, Ctx, Limits

if TYPE_CHECKING:
    import pandas as pd

_QRELS_FIELDS = "topic iter doc rel"
_ROWS = 65_536   # judgments per block of columns
_LETTER_LEVELS = {"B": 1, "A": 2, "S": 3}
_NTCIR_LEVEL_RE = re.compile(r"L([+-]?[0-9]++)\Z")
_LEVEL_FIX = (f"relevance levels are 0..{MAX_LEVEL} (TREC and NTCIR use 0..4); map larger labels onto "
              f"0..{MAX_LEVEL} before loading")


class _LazyFrame:
    """``Qrels.frame`` as a data descriptor: given to the constructor (a DataFrame), or made on first
    read from the arrays :func:`_finish` keeps (pandas is imported then, not before: ``evalcore
    evaluate`` on files never imports it; docs/benchmarks.md section 14). No class-level default, so
    the dataclass field stays required."""

    def __get__(self, obj, owner=None):
        if obj is None:
            raise AttributeError("frame")
        f = obj.__dict__.get("_frame")
        if f is None:
            import pandas as pd

            t, d, lv = obj.__dict__["_arrays"]
            # strings stay in arrow buffers (pandas' "str" dtype): ~25 bytes per judgment instead of ~130
            f = obj.__dict__["_frame"] = pd.DataFrame({"topic": t.to_pandas(), "doc": d.to_pandas(), "level": lv})
        return f

    def __set__(self, obj, value) -> None:
        obj.__dict__["_frame"] = value


@dataclass
class Qrels:
    """Relevance judgments.

    ``frame``: DataFrame with columns ``topic`` and ``doc`` (pandas' ``str`` dtype, held in arrow buffers),
    ``level`` (int >= 0), one row per judged (topic, document); ``source``:
    display name; ``level_names``: names of levels 1..K or None; ``warnings``:
    sentences; ``n_lines``: judgment lines read; ``level_judgments``: lines
    per level (after negative labels became 0).
    """

    if TYPE_CHECKING:   # (a required field for the type checker, as for the dataclass: see _LazyFrame)
        frame: pd.DataFrame
    else:
        frame: pd.DataFrame = _LazyFrame()
    source: str
    level_names: tuple[str, ...] | None = None
    warnings: list[str] = field(default_factory=list)
    n_lines: int = 0
    level_judgments: dict[int, int] = field(default_factory=dict)

    def arrays(self) -> tuple[pa.Array, pa.Array, np.ndarray]:
        """(topic, doc, level) of every judgment: arrow string arrays and an int64 array, without pandas
        when the qrels were read from text (the loader's input; :attr:`frame` is then made on first use)."""
        cols = self.__dict__.get("_arrays")
        if cols is not None:
            return cols
        f = self.frame
        return (pa.array(f["topic"], pa.string()), pa.array(f["doc"], pa.string()),
                f["level"].to_numpy(dtype=np.int64))

    @property
    def max_level(self) -> int:
        """K: the highest level judged (at least 1)."""
        levels = self.arrays()[2]
        return max(1, int(levels.max()) if levels.size else 1)

    @property
    def topics(self) -> list[str]:
        """Every qrels topic, natural order."""
        return natural_sorted(ak.unique(self.arrays()[0]).to_pylist())


_QRELS_FMTS = ("auto", "trec", "ntcir", "rel")
_QRELS_CONVERT = {kind: pcsv.ConvertOptions(column_types={c: pa.string() for c in cols}, null_values=[],
                                            strings_can_be_null=False, quoted_strings_can_be_null=False,
                                            check_utf8=False)  # text_bytes checked it
                  for kind, cols in (("trec", "tidr"), ("ntcir", "tdr"))}
#: the letters by level (B, A, S), as the value set of arrow's ``index_in``: made on first use, since
#: ``pa.array`` of Python strings imports pandas (which loading TREC files does without)
_LETTERS: list[pa.Array] = []


def _qrels_kind(f: SourceFile, data: bytes, fmt: str) -> str:
    n = len(first_fields(data))
    if fmt == "ntcir":  # either NTCIR form
        return "rel" if extension(f.name) == "rel" or n == 2 else "ntcir"
    if fmt != "auto":
        return fmt
    if extension(f.name) == "rel":
        return "rel"
    if n == 4:
        return "trec"
    if n == 3:
        return "ntcir"
    if n == 2:
        return "rel"
    first = next(content_lines(data), None)
    if first is None:
        raise InputError("no judgment lines: the file holds only comments (#) and blank lines", file=f.name,
                         hint="give the qrels file itself (topic iter doc rel per line)")
    i, text, fields = first
    raise InputError(
        f"not a qrels line: expected 4 fields ({_QRELS_FIELDS}) for TREC, 3 (topic doc L<n>) for NTCIR "
        f"or 2 (doc L<n>) for an NTCIREVAL .rel file, found {len(fields)}",
        file=f.name, line=i, text=text,
        hint="give a TREC qrels file (topic iter doc rel), or say which format it is: "
             "--qrels-format trec|ntcir|rel on the command line, qrels_fmt= in load_collection, fmt= in read_qrels")


def _level(digits: str, tok: str, *, fname, line, text) -> int:
    """An ASCII integer label, checked against MAX_LEVEL before anything is sized by it
    (a 4,300-digit label is never converted; negative labels are returned as -1)."""
    neg = digits.startswith("-")
    mag = digits.lstrip("+-").lstrip("0") or "0"
    if neg:
        return -1 if mag != "0" else 0
    if len(mag) > 2 or int(mag) > MAX_LEVEL:
        raise InputError(f"relevance label {shorten(tok)} is above {MAX_LEVEL}, the highest level read",
                         file=fname, line=line, text=text, hint=_LEVEL_FIX)
    return int(mag)


def _ascii_note(tok: str) -> str:
    return " (only ASCII digits 0-9 are read)" if not tok.isascii() and any(c.isdigit() for c in tok) else ""


def _parse_label(tok: str, kind: str, *, fname, line, text) -> tuple[int, bool]:
    """(level, is_letter); negative labels -> -1, labels above MAX_LEVEL refused."""
    if kind == "trec":
        if INT_RE.match(tok):
            return _level(tok, tok, fname=fname, line=line, text=text), False
        raise InputError(f"relevance label {shorten(tok)} is not an integer{_ascii_note(tok)}", file=fname,
                         line=line, text=text,
                         hint="TREC relevance labels are integers: 0 = non-relevant, 1, 2, ... = relevant")
    if tok in _LETTER_LEVELS:
        return _LETTER_LEVELS[tok], True
    m = _NTCIR_LEVEL_RE.match(tok)
    if m:
        return _level(m.group(1), tok, fname=fname, line=line, text=text), False
    if INT_RE.match(tok):  # "topic doc 2": a TREC-style label without the iter column
        return _level(tok, tok, fname=fname, line=line, text=text), False
    raise InputError(f"relevance level {shorten(tok)} is not of the form L<n> (or S, A, B){_ascii_note(tok)}",
                     file=fname, line=line, text=text,
                     hint="NTCIR relevance levels are L0 (non-relevant), L1, L2, ... or S, A, B")


def read_qrels(source, *, fmt: str = "auto", limits: Limits | None = None) -> Qrels:
    """Read relevance judgments (TREC, NTCIR one-file, or NTCIREVAL ``.rel`` files).

    ``source``: a path, a ``(filename, bytes)`` pair, a directory / zip of
    files (e.g. per-topic ``.rel`` files), or a list of these; all judgments
    are merged. Also a DataFrame (``qid, docno, label`` or ``query_id,
    doc_id, relevance``) or a dict ``{qid: {docno: level}}``
    (:mod:`evalcore.io._frames`). See the module docstring for the formats and how ``fmt="auto"``
    sniffs them.

    Labels are ASCII integers (or NTCIR's ``L<n>`` / S, A, B) up to
    ``MAX_LEVEL`` (20); a larger label is an :class:`InputError` naming the
    file and line. Negative labels count as non-relevant (level 0), with one
    warning per file. ``limits`` bounds decompression (:mod:`.limits`). A document judged twice for one topic with
    different labels is an
    error; identical duplicates are kept once, with a warning.

    >>> q = read_qrels(("q.txt", b"t1 0 d1 2\\nt1 0 d2 0\\n"))
    >>> q.frame.values.tolist(), q.max_level
    ([['t1', 'd1', 2], ['t1', 'd2', 0]], 2)
    """
    if fmt not in _QRELS_FMTS:
        raise ValueError(f"fmt must be one of {', '.join(_QRELS_FMTS)}; got {fmt!r}")
    if limits is not None and not isinstance(limits, Limits):
        raise ValueError(f"limits must be an evalcore.io.Limits; got {type(limits).__name__}")
    try:
        if is_frame(source) or isinstance(source, Mapping):
            return _qrels_from_python(source)
        return _read_qrels(source, fmt, Ctx(limits or DEFAULT_LIMITS))
    except InputError:
        raise
    except Exception as e:  # never a traceback for input we failed to foresee
        raise unforeseen(e, source_name(source) if isinstance(source, (str, tuple)) else None) from e


def _read_qrels(source, fmt: str, ctx: Ctx) -> Qrels:
    """The line loop (every format; the fast path first for one TREC file). Memory: lines are read a
    block at a time and each block's fields become arrow arrays (:class:`_Columns`), so what parsing
    holds is the text plus a few bytes per judgment; repeated judgments are found at the end, with
    arrays (:func:`._repeats.first_occurrence`), not with a dict of Python tuples (~200 bytes a line)."""
    files = qrels_files(source, ctx)
    for f in files:
        f.total = ctx.total
    display = source_name(source) if not isinstance(source, list) else ", ".join(f.name for f in files[:3])
    warnings: list[str] = list(ctx.notes)
    level_lines: dict[int, int] = {}
    any_letter = False
    first = text_bytes(files[0]) if len(files) == 1 else None
    if first is not None and fmt in ("auto", "trec", "ntcir"):
        fast = _fast_qrels(files[0], first, fmt, display)
        if fast is not None:
            return fast
    cols = _Columns()
    for fi, f in enumerate(files):
        data = first if first is not None else text_bytes(f)
        any_letter |= _read_lines(f, fi, data, fmt, cols, level_lines, warnings)
        if first is None:
            del data
    topics, docs, levels, n_lines = _judged_once(cols, files, first, warnings)
    return _finish(display, topics, docs, levels, any_letter, warnings, n_lines, level_lines)


def _fast_qrels(f: SourceFile, data: bytes, fmt: str, display: str) -> Qrels | None:
    """The only qrels file read by :func:`_fast_single`; None when it hands the file to the line loop."""
    fast = _fast_single(f, data, fmt)
    if fast is not None:
        return _finish(display, *fast)
    # the fast path's buffers go back to the system before the line loop's numpy and Python
    # objects are allocated (arrow's pool would keep them beside the line loop's: docs/benchmarks.md
    # section 17)
    pa.default_memory_pool().release_unused()
    return None


_KIND_FIELDS = {"trec": (4, _QRELS_FIELDS), "ntcir": (3, "topic doc L<n>"), "rel": (2, "doc L<n>")}


def _read_lines(f: SourceFile, fi: int, data: bytes, fmt: str, cols: _Columns, level_lines: dict[int, int],
                warnings: list[str]) -> bool:
    """The judgments of file number ``fi`` (text ``data``) added to ``cols`` and counted per level in
    ``level_lines``, with one warning for its negative labels; returns whether a label was a letter."""
    kind = _qrels_kind(f, data, fmt)
    want, what = _KIND_FIELDS[kind]
    stem = run_name(f.base)
    any_letter = False
    neg, neg_first = 0, None
    for i, text, fl in content_lines(data):
        if len(fl) != want:
            raise _field_count_error(fl, want, what, kind, fmt, f.name, i, text)
        toks = [t.decode() for t in fl]
        if kind == "trec":
            topic, doc, lab = toks[0], toks[2], toks[3]
        elif kind == "ntcir":
            topic, doc, lab = toks
        else:
            topic, (doc, lab) = stem, toks
        level, letter = _parse_label(lab, kind, fname=f.name, line=i, text=text)
        any_letter |= letter
        if level < 0:
            neg += 1
            if neg_first is None:
                neg_first = (i, lab if len(lab) <= 40 else shorten(lab, 40))
            level = 0
        level_lines[level] = level_lines.get(level, 0) + 1
        cols.add(topic, doc, level, fi, i)
    cols.flush()
    if neg and neg_first is not None:
        warnings.append(f"{f.name}: {neg} judgment{'s' if neg > 1 else ''} with a negative label "
                        f"(e.g. line {neg_first[0]}: {neg_first[1]}) count as non-relevant")
    return any_letter


def _field_count_error(fl: list, want: int, what: str, kind: str, fmt: str, fname: str, i: int, text
                       ) -> InputError:
    """A line with ``len(fl)`` fields where the format has ``want``; a run line given as qrels is named."""
    hint = ("each line needs all fields; remove extra text or fix the separator"
            if len(fl) > want else "each line needs all fields; complete or remove the line")
    if kind == "trec" and fmt == "auto" and len(fl) == 6:
        hint = ("this looks like a run line (topic Q0 doc rank score tag): give the qrels file as "
                "the qrels (--qrels FILE; load_collection's first argument) and this file as a run")
    return InputError(f"expected {want} fields ({what}), found {len(fl)}", file=fname, line=i,
                      text=text, hint=hint)


class _Columns:
    """The judgments read so far: arrow / numpy blocks of :data:`_ROWS` rows (topic, doc, level, and
    the file and line each came from), filled from short Python lists."""

    def __init__(self):
        self.blocks: list[list] = []
        self._t, self._d, self._lv, self._f, self._ln = [], [], [], [], []

    def add(self, topic: str, doc: str, level: int, file: int, line: int) -> None:
        self._t.append(topic)
        self._d.append(doc)
        self._lv.append(level)
        self._f.append(file)
        self._ln.append(line)
        if len(self._ln) >= _ROWS:
            self.flush()

    def flush(self) -> None:
        if self._ln:
            self.blocks.append([ak.strings(self._t), ak.strings(self._d),
                                np.asarray(self._lv, np.int8), np.asarray(self._f, np.int32),
                                np.asarray(self._ln, np.int64)])
        for x in (self._t, self._d, self._lv, self._f, self._ln):
            x.clear()

    def column(self, j: int):
        """Column ``j`` of every block, concatenated; the blocks' parts are dropped meanwhile, so that
        the column and its blocks are never held twice for more than one column."""
        parts = [b[j] for b in self.blocks]
        for b in self.blocks:
            b[j] = None
        if j < 2:
            return pa.concat_arrays(parts) if parts else ak.strings([])
        return np.concatenate(parts) if parts else np.zeros(0, (np.int8, np.int32, np.int64)[j - 2])


def _judged_once(cols: _Columns, files, first_data, warnings: list[str]):
    """Every (topic, document) kept once: a repeat with another level is an error naming both lines
    (the earliest such line, in file order), identical repeats are counted in one warning per file.
    Returns (topics, docs, levels, lines read)."""
    topics, docs, levels = cols.column(0), cols.column(1), cols.column(2).astype(np.int64)
    fidx, lines = cols.column(3), cols.column(4)
    cols.blocks.clear()
    n = len(levels)
    first = first_occurrence(topics, docs)
    rep = first != np.arange(n)
    if rep.any():
        clash = np.flatnonzero(rep & (levels != levels[first]))
        if clash.size:
            k = int(clash[0])
            j = int(first[k])
            f, f0 = files[int(fidx[k])], files[int(fidx[j])]
            where = f"line {lines[j]}" if f0.name == f.name else f"{f0.name}, line {lines[j]}"
            data = first_data if first_data is not None else text_bytes(f)
            text = next(islice(raw_lines(data), int(lines[k]) - 1, None)).decode("utf-8", "replace")
            raise InputError(
                f"document {shorten(docs[k].as_py())} is judged twice for topic {shorten(topics[k].as_py())} with "
                f"different levels ({levels[j]} on {where}, {levels[k]} here)", file=f.name, line=int(lines[k]),
                text=text, hint="keep exactly one judgment per (topic, document)")
        rows = np.flatnonzero(rep)
        for fi in np.unique(fidx[rows]):
            mine = rows[fidx[rows] == fi]
            nd = mine.size
            warnings.append(f"{files[int(fi)].name}: {nd} duplicate judgment{'s' if nd > 1 else ''} (same topic, "
                            f"document and level; e.g. line {lines[mine[0]]}) counted once")
        keep = as_arrow(~rep)
        topics, docs, levels = ak.filter_(topics, keep), ak.filter_(docs, keep), levels[~rep]
    return topics, docs, levels, n


def _finish(display: str, topics: pa.Array, docs: pa.Array, levels: np.ndarray, any_letter: bool,
            warnings: list[str], n_lines: int, level_lines: dict[int, int]) -> Qrels:
    K = max(1, int(levels.max()) if levels.size else 1)
    names = None
    if any_letter:
        base_names = ("B", "A", "S")
        names = tuple(base_names[i] if i < 3 else f"L{i + 1}" for i in range(K))
    if not (levels >= 1).any():
        raise InputError("no relevant document (level >= 1) in the qrels: nothing can be evaluated",
                         file=display,
                         hint="check that this is the qrels file and that relevant documents have a label >= 1")
    q = Qrels(frame=cast("pd.DataFrame", None), source=display, level_names=names, warnings=warnings, n_lines=n_lines,
              level_judgments=dict(sorted(level_lines.items())))
    q.__dict__["_arrays"] = (topics, docs, levels.astype(np.int64, copy=False))   # the frame: on first use
    return q


def _qrels_from_python(source) -> Qrels:
    name = "qrels DataFrame" if is_frame(source) else "qrels dict"
    frame, warnings, counts = qrels_frame(source, name)
    if not (frame["level"] >= 1).any():
        raise InputError("no relevant document (level >= 1) in the qrels: nothing can be evaluated", file=name,
                         hint="check that relevant documents have a label >= 1")
    return Qrels(frame=frame, source=name, warnings=warnings, n_lines=sum(counts.values()), level_judgments=counts)


def _negative_labels(levels: np.ndarray, tokens, fname: str, line_of) -> tuple[np.ndarray, list[str]]:
    """Label rule of the fast path, kept in one place (the line loop applies the same rule line by
    line): negative labels count as non-relevant (level 0), with one warning naming the first.
    ``tokens``: the labels as written; ``line_of(i)``: the file line of row i. Returns (levels, warnings).
    Labels above MAX_LEVEL never get here: the fast path hands such a file to the line loop, which
    refuses them naming the line."""
    neg = np.flatnonzero(levels < 0)
    if not neg.size:
        return levels, []
    first = int(neg[0])
    tok = tokens[first].as_py()
    w = (f"{fname}: {neg.size} judgment{'s' if neg.size > 1 else ''} with a negative label "
         f"(e.g. line {line_of(first)}: {tok if len(tok) <= 40 else shorten(tok, 40)}) count as non-relevant")
    return np.maximum(levels, 0), [w]


def _letters() -> pa.Array:
    if not _LETTERS:
        _LETTERS.append(ak.strings(sorted(_LETTER_LEVELS, key=_LETTER_LEVELS.__getitem__)))
    return _LETTERS[0]


def _fast_single(f: SourceFile, data: bytes, fmt: str):
    """The only qrels file, TREC or NTCIR one-file, read by pyarrow's CSV reader, vectorised: the arguments
    of :func:`_finish`, or None whenever anything looks off (another format, a parse error, an empty field,
    a label that is not an integer (or NTCIR's ``L<n>`` / S, A, B) in -128..``MAX_LEVEL``, a judgment
    repeated with another level, a warning whose line number comment or blank lines would shift) - the
    line loop of :func:`read_qrels` then reads the file and names the first bad line. Same result as the
    line loop: ``#`` comment lines (ir_metadata headers) are dropped first, and a judgment repeated with
    the same level is kept once, with the line loop's warning.

    Memory (docs/reliability.md, "Parse memory"): the reader's columns stay in ~1 MB chunks; only the
    topic and document columns are combined, one at a time, after the table is dropped; labels are
    read as int8 and checked first; every intermediate is dropped before the next is built, so the peak
    stays within the target of that section, whose table gives it per case."""
    kind = _qrels_kind(f, data, fmt)
    if kind not in ("trec", "ntcir"):
        return None
    names = list("tidr") if kind == "trec" else list("tdr")
    clean = drop_comments(data)
    commented = clean is not data   # ir_metadata headers: row i is then not line i + 1
    data = clean
    del clean
    if needs_cleaning(data) or b"\r" in data:
        data = clean_blanks(data)
    tb = read_table(data, names, _QRELS_CONVERT[kind])
    if tb is None:
        return None
    n = tb.num_rows
    lines_match = not commented and data.count(b"\n") + (not data.endswith(b"\n")) == n  # row i is line i + 1
    del data   # (a cleaned copy, when there is one)
    if n == 0 or any(ak.min_length(tb.column(c)) == 0 for c in names):
        return None
    labels = tb.column("r")
    any_letter = False
    try:
        if kind == "trec":
            levels = ak.cast(labels, pa.int8())
        else:
            idx = ak.index_in(labels, _letters())   # B, A, S -> 0, 1, 2; null for L<n> and integers
            any_letter = idx.null_count < len(idx)
            digits = ak.replace_regex(labels, "^L", "")
            if any_letter:
                digits = ak.call("if_else", ak.call("is_valid", idx), "0", digits)
            levels = ak.cast(digits, pa.int8())
            del digits
            if any_letter:
                letter_level = ak.cast(ak.call("add", idx, 1), pa.int8())
                levels = ak.call("if_else", ak.call("is_valid", idx), letter_level, levels)
    except (pa.ArrowInvalid, pa.ArrowException, ValueError):
        return None  # not an integer: the line loop names the line
    levels = as_numpy(levels)
    if levels.max(initial=0) > MAX_LEVEL:
        return None  # a label above MAX_LEVEL: the line loop refuses it, naming the line (never a wrap-around)
    if (levels < 0).any() and not lines_match:
        return None
    # labels first: a bad one ends here, before the topic and document columns are combined
    t, d = tb.column("t"), tb.column("d")
    del tb   # the iter column goes; the kept columns are combined one at a time, each chunked copy dropped
    t = t.combine_chunks()
    d = d.combine_chunks()
    pa.default_memory_pool().release_unused()   # the reader's buffers: back before numpy allocates
    levels, warnings = _negative_labels(levels, labels, f.name, lambda i: i + 1)
    del labels
    lv, counts = np.unique(levels, return_counts=True)
    tenc = as_numpy(ak.dictionary_encode(t).indices)
    keys = np.sort(pair_keys(hash_strings(d), tenc))
    del tenc
    repeated = keys.size > 1 and bool((keys[1:] == keys[:-1]).any())
    del keys
    if repeated:   # a repeated judgment, or a hash collision
        first = first_occurrence(t, d)
        rep = first != np.arange(n)
        if rep.any():
            if not lines_match or (levels[rep] != levels[first[rep]]).any():
                return None   # another level (an error), or lines to name: the line loop reports it
            del first
            k = int(np.flatnonzero(rep)[0])
            m = int(rep.sum())
            warnings.append(f"{f.name}: {m} duplicate judgment{'s' if m > 1 else ''} (same topic, document and "
                            f"level; e.g. line {k + 1}) counted once")
            keep = as_arrow(~rep)
            t = ak.filter_(t, keep)
            d = ak.filter_(d, keep)
            levels = levels[~rep]
    return (t, d, levels, any_letter, warnings, n, {int(a): int(b) for a, b in zip(lv, counts, strict=True)})
