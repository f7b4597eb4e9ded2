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

All text formats: fields are split on any whitespace; trailing blanks, CRLF
line ends and a UTF-8 BOM are tolerated, blank lines skipped; ``.gz`` files
are decompressed wherever they appear (also inside a zip).

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

Speed
-----
Runs are parsed by pyarrow's multithreaded CSV reader (after turning tabs,
repeated blanks and trailing blanks into single spaces when a file has any);
sorting and the relevance lookup are vectorised (pyarrow / numpy), and several
files are read at once. Whenever anything looks off (a parse error, an empty
field, a duplicate document) the file is re-read by a plain line-by-line
parser whose job is to name the first bad line in an :class:`InputError`.
"""
from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .collection import Collection, LoadReport

try:  # ISA-L inflates about twice as fast as zlib; optional, same bytes out
    from isal.igzip import decompress as _gunzip
except ImportError:  # pragma: no cover - depends on the environment
    from gzip import decompress as _gunzip

__all__ = ["InputError", "Qrels", "Run", "read_qrels", "read_run", "load_collection", "run_name"]

_ORDERS = ("score", "rank", "file")
_RUN_FIELDS = "topic Q0 doc rank score tag"
_QRELS_FIELDS = "topic iter doc rel"
_LETTER_LEVELS = {"B": 1, "A": 2, "S": 3}
_INT_RE = re.compile(r"[+-]?\d+\Z")
_FLOAT_RE = re.compile(
    r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)\Z", re.IGNORECASE
)
_NTCIR_LEVEL_RE = re.compile(r"L([+-]?\d+)\Z")
_DUP_FIX = "pass keep_first_duplicate=True / --keep-first-duplicate to keep the first occurrence"


# -- errors ----------------------------------------------------------------
class InputError(ValueError):
    """Bad input: names the file, the line, the offending text and the fix.

    Attributes ``file`` (str | None), ``line`` (1-based int | None), ``text``
    (the offending line | None), ``hint`` (what to do | None) and
    ``message`` (the bare problem). ``str(e)`` reads::

        runs/a.txt, line 12: expected 6 fields (topic Q0 doc rank score tag), found 5
          line: 'q1 Q0 d1 1 2.5'
          fix: ...
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 text: str | None = None, hint: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.text = text
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file + (f", line {self.line}" if self.line is not None else "") + ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        out = where + self.message
        if self.text is not None:
            out += f"\n  line: {self.text!r}"
        if self.hint:
            out += f"\n  fix: {self.hint}"
        return out

    def __str__(self) -> str:
        return self._render()


# -- names -----------------------------------------------------------------
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


# -- sources ---------------------------------------------------------------
@dataclass
class _File:
    """One input file: display name (for messages) and a loader of its raw bytes."""

    name: str
    load: Callable[[], bytes]

    @property
    def base(self) -> str:
        return _base(self.name)


def _is_hidden(name: str) -> bool:
    return any(p.startswith(".") or p == "__MACOSX" for p in re.split(r"[/\\]", name) if p)


def _read_path(p: Path) -> Callable[[], bytes]:
    def load() -> bytes:
        try:
            return p.read_bytes()
        except OSError as e:
            raise InputError(f"cannot read the file ({e.strerror or e})", file=str(p)) from None
    return load


def _zip_members(zname: str, data: bytes | Path) -> list[_File]:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data)
        infos = [i for i in zf.infolist() if not i.is_dir() and not _is_hidden(i.filename)]
        members = []
        for i in sorted(infos, key=lambda i: i.filename):
            blob = zf.read(i)
            members.append(_File(f"{zname}:{i.filename}", (lambda b=blob: b)))
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as e:
        raise InputError(f"not a readable zip file ({e})", file=zname,
                         hint="re-create the archive with a standard zip tool") from None
    if not members:
        raise InputError("the zip file holds no usable files", file=zname,
                         hint="put the qrels / run files in the archive (hidden files are skipped)")
    return members


def _is_zip_name(name: str) -> bool:
    return _base(name).lower().endswith(".zip")


def _source_name(source) -> str:
    if isinstance(source, tuple):
        return str(source[0])
    return str(source)


def _check_tuple(source) -> tuple[str, bytes]:
    if len(source) != 2 or not isinstance(source[1], (bytes, bytearray, memoryview)):
        raise InputError(f"an uploaded file must be a (filename, bytes) pair; got {type(source).__name__} "
                         f"of length {len(source)}")
    return str(source[0]), bytes(source[1])


def _path_of(source) -> Path:
    p = Path(os.fspath(source))
    if not p.exists():
        raise InputError("no such file or directory", file=str(source),
                         hint="check the path (it is relative to the current directory)")
    return p


# -- decoding --------------------------------------------------------------
def _text_bytes(f: _File) -> bytes:
    """Decompressed, BOM-free, validated UTF-8 bytes of a text file."""
    data = f.load()
    if data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip(data)
        except Exception as e:  # zlib.error, OSError, EOFError, isal's error: all mean a bad file
            raise InputError(f"not a valid gzip file ({e})", file=f.name,
                             hint="re-compress it with gzip, or give the uncompressed file") from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if b"\x00" in data:
        raise InputError("this is a binary file, not a text file", file=f.name,
                         hint="give the plain-text (or .gz / .zip) qrels or run file")
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            before = data[:e.start]
            line = len(before.splitlines()) + (1 if not before or before.endswith((b"\n", b"\r")) else 0)
            text = data.splitlines()[line - 1].decode("utf-8", "replace")
            raise InputError("not valid UTF-8 text", file=f.name, line=line, text=text,
                             hint="save the file as UTF-8 (or plain ASCII)") from None
    if not data.strip():
        raise InputError("empty file", file=f.name, hint="give a file with at least one line")
    return data


def _lines(data: bytes):
    """(1-based line number, decoded line, fields) for every non-blank line."""
    for i, raw in enumerate(data.splitlines(), 1):
        fields = raw.split()
        if fields:
            yield i, raw.decode("utf-8", "replace"), fields


def _first_fields(data: bytes) -> list[bytes]:
    for raw in data[:65536].splitlines():
        f = raw.split()
        if f:
            return f
    for _, _, f in _lines(data):
        return f
    return []


# -- qrels -----------------------------------------------------------------
@dataclass
class Qrels:
    """Relevance judgments.

    ``frame``: DataFrame with columns ``topic`` (str), ``doc`` (str),
    ``level`` (int >= 0), one row per judged (topic, document); ``source``:
    display name; ``level_names``: names of levels 1..K or None; ``warnings``:
    sentences; ``n_lines``: judgment lines read; ``level_judgments``: lines
    per level (after negative labels became 0).
    """

    frame: pd.DataFrame
    source: str
    level_names: tuple[str, ...] | None = None
    warnings: list[str] = field(default_factory=list)
    n_lines: int = 0
    level_judgments: dict[int, int] = field(default_factory=dict)

    @property
    def max_level(self) -> int:
        """K: the highest level judged (at least 1)."""
        return max(1, int(self.frame["level"].max()) if len(self.frame) else 1)

    @property
    def topics(self) -> list[str]:
        """Every qrels topic, natural order."""
        return _natural_sorted(self.frame["topic"].unique())


_QRELS_FMTS = ("auto", "trec", "ntcir", "rel")


def _qrels_files(source) -> list[_File]:
    if isinstance(source, (list, tuple)) and not (
        isinstance(source, tuple) and len(source) == 2 and isinstance(source[1], (bytes, bytearray, memoryview))
    ):
        out = []
        for s in source:
            out.extend(_qrels_files(s))
        if not out:
            raise InputError("no qrels files given", hint="give a qrels file (or NTCIREVAL .rel files)")
        return out
    if isinstance(source, tuple):
        name, data = _check_tuple(source)
        return _zip_members(name, data) if _is_zip_name(name) else [_File(name, lambda d=data: d)]
    p = _path_of(source)
    if p.is_dir():
        files = [_File(str(c), _read_path(c)) for c in sorted(p.iterdir(), key=lambda c: c.name)
                 if c.is_file() and not c.name.startswith(".")]
        if not files:
            raise InputError("the directory holds no files", file=str(source),
                             hint="give the qrels file, or a directory of NTCIREVAL .rel files")
        return files
    if _is_zip_name(p.name):
        return _zip_members(str(source), p)
    return [_File(str(source), _read_path(p))]


def _qrels_kind(f: _File, data: bytes, fmt: str) -> str:
    n = len(_first_fields(data))
    if fmt == "ntcir":  # either NTCIR form
        return "rel" if _ext(f.name) == "rel" or n == 2 else "ntcir"
    if fmt != "auto":
        return fmt
    if _ext(f.name) == "rel":
        return "rel"
    if n == 4:
        return "trec"
    if n == 3:
        return "ntcir"
    if n == 2:
        return "rel"
    i, text, fields = next(_lines(data))
    raise InputError(
        f"not a qrels line: expected 4 fields ({_QRELS_FIELDS}) for TREC, 3 (topic doc L<n>) for NTCIR "
        f"or 2 (doc L<n>) for an NTCIREVAL .rel file, found {len(fields)}",
        file=f.name, line=i, text=text,
        hint="give a TREC qrels file (topic iter doc rel), or pass fmt= to say which format it is")


def _parse_label(tok: str, kind: str, *, fname, line, text) -> tuple[int, bool]:
    """(level, is_letter)."""
    if kind == "trec":
        if _INT_RE.match(tok):
            return int(tok), False
        raise InputError(f"relevance label {tok!r} is not an integer", file=fname, line=line, text=text,
                         hint="TREC relevance labels are integers: 0 = non-relevant, 1, 2, ... = relevant")
    if tok in _LETTER_LEVELS:
        return _LETTER_LEVELS[tok], True
    m = _NTCIR_LEVEL_RE.match(tok)
    if m:
        return int(m.group(1)), False
    if _INT_RE.match(tok):  # "topic doc 2": a TREC-style label without the iter column
        return int(tok), False
    raise InputError(f"relevance level {tok!r} is not of the form L<n> (or S, A, B)", file=fname, line=line,
                     text=text, hint="NTCIR relevance levels are L0 (non-relevant), L1, L2, ... or S, A, B")


def read_qrels(source, *, fmt: str = "auto") -> Qrels:
    """Read relevance judgments (TREC, NTCIR one-file, or NTCIREVAL ``.rel`` files).

    ``source``: a path, a ``(filename, bytes)`` pair, a directory / zip of
    files (e.g. per-topic ``.rel`` files), or a list of these; all judgments
    are merged. See the module docstring for the formats and how ``fmt="auto"``
    sniffs them.

    Negative labels count as non-relevant (level 0), with one warning per
    file. A document judged twice for one topic with different labels is an
    error; identical duplicates are kept once, with a warning.

    >>> q = read_qrels(("q.txt", b"t1 0 d1 2\\nt1 0 d2 0\\n"))
    >>> q.frame.values.tolist(), q.max_level
    ([['t1', 'd1', 2], ['t1', 'd2', 0]], 2)
    """
    if fmt not in _QRELS_FMTS:
        raise ValueError(f"fmt must be one of {', '.join(_QRELS_FMTS)}; got {fmt!r}")
    files = _qrels_files(source)
    display = _source_name(source) if not isinstance(source, list) else ", ".join(f.name for f in files[:3])
    judged: dict[tuple[str, str], tuple[int, str, int]] = {}  # (topic, doc) -> (level, file, line)
    topics, docs, levels = [], [], []
    warnings: list[str] = []
    level_lines: dict[int, int] = {}
    any_letter = False
    n_lines = 0
    for f in files:
        data = _text_bytes(f)
        kind = _qrels_kind(f, data, fmt)
        want = {"trec": 4, "ntcir": 3, "rel": 2}[kind]
        what = {"trec": _QRELS_FIELDS, "ntcir": "topic doc L<n>", "rel": "doc L<n>"}[kind]
        stem = run_name(f.base)
        neg, neg_first, dup, dup_first = 0, None, 0, None
        for i, text, fl in _lines(data):
            if len(fl) != want:
                hint = ("each line needs all fields; remove extra text or fix the separator"
                        if len(fl) > want else "each line needs all fields; complete or remove the line")
                if kind == "trec" and fmt == "auto" and len(fl) == 6:
                    hint = "this looks like a run line; give the qrels file first, then the runs"
                raise InputError(f"expected {want} fields ({what}), found {len(fl)}", file=f.name, line=i,
                                 text=text, hint=hint)
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
                    neg_first = (i, lab)
                level = 0
            n_lines += 1
            level_lines[level] = level_lines.get(level, 0) + 1
            key = (topic, doc)
            prev = judged.get(key)
            if prev is not None:
                if prev[0] != level:
                    where = f"line {prev[2]}" if prev[1] == f.name else f"{prev[1]}, line {prev[2]}"
                    raise InputError(
                        f"document {doc!r} is judged twice for topic {topic!r} with different levels "
                        f"({prev[0]} on {where}, {level} here)", file=f.name, line=i, text=text,
                        hint="keep exactly one judgment per (topic, document)")
                dup += 1
                if dup_first is None:
                    dup_first = i
                continue
            judged[key] = (level, f.name, i)
            topics.append(topic)
            docs.append(doc)
            levels.append(level)
        if neg:
            warnings.append(f"{f.name}: {neg} judgment{'s' if neg > 1 else ''} with a negative label "
                            f"(e.g. line {neg_first[0]}: {neg_first[1]}) count as non-relevant")
        if dup:
            warnings.append(f"{f.name}: {dup} duplicate judgment{'s' if dup > 1 else ''} (same topic, "
                            f"document and level; e.g. line {dup_first}) counted once")
    frame = pd.DataFrame({"topic": pd.Series(topics, dtype=object), "doc": pd.Series(docs, dtype=object),
                          "level": np.asarray(levels, dtype=np.int64)})
    K = max(1, max(levels) if levels else 1)
    names = None
    if any_letter:
        base_names = ("B", "A", "S")
        names = tuple(base_names[i] if i < 3 else f"L{i + 1}" for i in range(K))
    if not any(level >= 1 for level in levels):
        raise InputError("no relevant document (level >= 1) in the qrels: nothing can be evaluated",
                         file=display,
                         hint="check that this is the qrels file and that relevant documents have a label >= 1")
    return Qrels(frame=frame, source=display, level_names=names, warnings=warnings, n_lines=n_lines,
                 level_judgments=dict(sorted(level_lines.items())))


# -- runs: sources -----------------------------------------------------------
@dataclass
class _RunSource:
    name: str                 # run name
    display: str              # file / directory / zip name for messages
    kind: str                 # "trec" | "res"
    files: list[_File]


_RUN_FMTS = ("auto", "trec", "ntcir", "res")


def _group_files(files: list[_File], container: str, fmt: str) -> list[_RunSource]:
    """Files of a directory or zip -> runs: ``.res`` files grouped by folder, every other file a run."""
    res_groups: dict[str, list[_File]] = {}
    out: list[_RunSource] = []
    for f in files:
        inner = f.name[len(container) + 1:] if f.name.startswith(container) else f.name
        if fmt in ("ntcir", "res") or (fmt == "auto" and _ext(f.name) == "res"):
            folder = re.split(r"[/\\]", inner)[:-1]
            res_groups.setdefault("/".join(folder), []).append(f)
        else:
            out.append(_RunSource(run_name(f.base), f.name, "trec", [f]))
    for folder, fs in res_groups.items():
        nm = folder.split("/")[-1] if folder else (
            run_name(container) if _is_zip_name(container) else _base(container))
        out.append(_RunSource(nm, f"{container}/{folder}" if folder else container, "res", fs))
    return out


def _run_sources(runs, fmt: str) -> list[_RunSource]:
    if runs is None:
        raise InputError("no runs given", hint="give run files, a directory of runs or a .zip of runs")
    if isinstance(runs, tuple) and len(runs) == 2 and isinstance(runs[1], (bytes, bytearray, memoryview)):
        runs = [runs]
    if not isinstance(runs, (list, tuple)):
        runs = [runs]
    out: list[_RunSource] = []
    for src in runs:
        if isinstance(src, tuple):
            name, data = _check_tuple(src)
            if _is_zip_name(name):
                out.extend(_group_files(_zip_members(name, data), name, fmt))
            else:
                kind = "res" if fmt in ("ntcir", "res") or (fmt == "auto" and _ext(name) == "res") else "trec"
                out.append(_RunSource(run_name(name), name, kind, [_File(name, lambda d=data: d)]))
            continue
        p = _path_of(src)
        name = str(src)
        if p.is_dir():
            entries = sorted((c for c in p.iterdir() if not c.name.startswith(".")), key=lambda c: c.name)
            files = [_File(str(c), _read_path(c)) for c in entries if c.is_file()]
            got = _group_files(files, name.rstrip("/\\"), fmt) if files else []
            for d in entries:  # sub-directories holding NTCIR .res files: one run each
                if d.is_dir():
                    sub = [_File(str(c), _read_path(c)) for c in sorted(d.iterdir(), key=lambda c: c.name)
                           if c.is_file() and not c.name.startswith(".") and _ext(c.name) == "res"]
                    if sub:
                        got.append(_RunSource(d.name, str(d), "res", sub))
            if not got:
                raise InputError("the directory holds no run files", file=name,
                                 hint="put the run files in it (hidden files are skipped)")
            out.extend(got)
        elif _is_zip_name(p.name):
            out.extend(_group_files(_zip_members(name, p), name, fmt))
        else:
            kind = "res" if fmt in ("ntcir", "res") or (fmt == "auto" and _ext(name) == "res") else "trec"
            out.append(_RunSource(run_name(p.name), name, kind, [_File(name, _read_path(p))]))
    if not out:
        raise InputError("no runs given", hint="give run files, a directory of runs or a .zip of runs")
    return out


# -- runs: parsing -------------------------------------------------------------
_RUN_COLS = ["t", "q", "d", "r", "s", "g"]
_PARSE = pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False,
                           newlines_in_values=False, ignore_empty_lines=True)


def _convert_options(rank: bool) -> pcsv.ConvertOptions:
    types = {c: pa.string() for c in _RUN_COLS}
    types["s"] = pa.float64()
    if rank:
        types["r"] = pa.int64()
    return pcsv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                               quoted_strings_can_be_null=False)


_CONVERT = {False: _convert_options(False), True: _convert_options(True)}


def _needs_cleaning(data: bytes) -> bool:
    """Whitespace other than single blanks? Tabs anywhere (a fast byte search over
    the whole file: a tab inside a 6-field line would otherwise glue two fields);
    repeated, leading or trailing blanks in the first 64 kB (elsewhere they leave an
    empty field or a wrong field count, which sends the file to the cleaner anyway)."""
    head = data[:65536]
    return (b"\t" in data or b"\x0b" in data or b"\x0c" in data or b"  " in head or b" \n" in head
            or b" \r" in head or b"\n " in head or head[:1] == b" ")


def _clean_blanks(d: bytes) -> bytes:
    """Any whitespace run inside a line -> one blank; no blanks at line ends.
    Keeps the number of lines (a lone CR counts as a line end, like splitlines)."""
    if b"\r" in d:
        d = d.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    for ch in (b"\t", b"\x0b", b"\x0c"):
        if ch in d:
            d = d.replace(ch, b" ")
    while b"  " in d:
        d = d.replace(b"  ", b" ")
    if b" \n" in d:
        d = d.replace(b" \n", b"\n")
    if b"\n " in d:
        d = d.replace(b"\n ", b"\n")
    return d.strip(b" ")


def _arrow_trec(data: bytes, rank: bool):
    """(topic, doc, score, rank) arrow arrays, or None if anything looks off."""
    try:
        tb = pcsv.read_csv(pa.py_buffer(data),
                           read_options=pcsv.ReadOptions(column_names=_RUN_COLS, use_threads=False,
                                                         block_size=1 << 26),
                           parse_options=_PARSE, convert_options=_CONVERT[rank])
    except (pa.ArrowInvalid, pa.ArrowException, ValueError):
        return None
    if tb.num_rows == 0:
        return None
    cols = {c: tb.column(c).combine_chunks() for c in _RUN_COLS}
    for c in ("t", "q", "d", "r", "g"):
        if c == "r" and rank:
            continue
        if pc.min(pc.binary_length(cols[c])).as_py() == 0:
            return None
    if cols["s"].null_count or (rank and cols["r"].null_count):
        return None
    return cols["t"], cols["d"], cols["s"], (cols["r"].to_numpy() if rank else None)


def _slow_trec(data: bytes, fname: str, order: str, keep_first: bool):
    """Line-by-line TREC run parser: raises the precise InputError for the first bad line."""
    topics, docs, scores, ranks = [], [], [], []
    seen: dict[tuple[str, str], int] = {}
    for i, text, fl in _lines(data):
        if len(fl) != 6:
            if len(fl) == 4 and _INT_RE.match(fl[3].decode("utf-8", "replace")):
                hint = "this looks like a qrels line; give the qrels first, then the runs"
            elif len(fl) == 1:
                hint = "an NTCIR run (one document id per line) is a directory or zip of TOPIC.res files"
            else:
                hint = ("every line of a TREC run has 6 fields separated by blanks; "
                        + ("remove the extra fields" if len(fl) > 6 else "complete or remove the line"))
            raise InputError(f"expected 6 fields ({_RUN_FIELDS}), found {len(fl)}", file=fname, line=i,
                             text=text, hint=hint)
        t, d = fl[0].decode(), fl[2].decode()
        s = fl[4].decode()
        if not _FLOAT_RE.match(s):
            raise InputError(f"score {s!r} is not a number", file=fname, line=i, text=text,
                             hint="the 5th field of a TREC run line is the score, e.g. 12.5 or -3.2e-4")
        if order == "rank":
            r = fl[3].decode()
            if not _INT_RE.match(r):
                raise InputError(f"rank {r!r} is not an integer", file=fname, line=i, text=text,
                                 hint="the 4th field is the rank (1, 2, ...); or use order='score' "
                                      "(trec_eval's order), which ignores it")
            ranks.append(int(r))
        if not keep_first:
            first = seen.setdefault((t, d), i)
            if first != i:
                raise InputError(f"document {d!r} is listed twice for topic {t!r} (first on line {first})",
                                 file=fname, line=i, text=text, hint=_DUP_FIX)
        topics.append(t)
        docs.append(d)
        scores.append(float(s))
    if not topics:
        raise InputError("empty file", file=fname, hint="give a file with at least one line")
    return (pa.array(topics, pa.string()), pa.array(docs, pa.string()), pa.array(scores, pa.float64()),
            np.asarray(ranks, np.int64) if order == "rank" else None)


@dataclass
class _Parsed:
    """One run, rows in evaluation order, grouped by topic (natural order)."""

    name: str
    display: str
    topics: list[str]        # the run's topics, natural order
    counts: np.ndarray       # rows per topic
    row_topic: np.ndarray    # int32, index into topics, sorted ascending
    doc_code: np.ndarray     # int32 per row, index into doc_values
    doc_values: pa.Array     # the run's distinct doc ids
    n_lines: int
    warnings: list[str]


def _order_rows(src: _RunSource, t: pa.Array, d: pa.Array, score, rank, order: str,
                keep_first: bool, n_lines: int, on_dup: Callable[[], None]) -> _Parsed:
    """Sort the rows into evaluation order, vectorised (pyarrow / numpy).

    Topics and documents are dictionary-encoded once; repeated documents are
    found among integer keys. For ``order="score"`` a single multi-key sort
    (topic, score descending, doc id descending) compares strings only
    within exact score ties, so it costs little more than a numeric sort.
    """
    tenc = pc.dictionary_encode(t)
    tvals = tenc.dictionary.to_pylist()
    nat = sorted(range(len(tvals)), key=lambda i: _natural_key(tvals[i]))
    rank_of = np.empty(len(tvals), np.int32)
    rank_of[nat] = np.arange(len(tvals), dtype=np.int32)
    rt = rank_of[tenc.indices.to_numpy(zero_copy_only=False)]
    denc = pc.dictionary_encode(d)
    dcode = denc.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    key = rt.astype(np.int64) * max(len(denc.dictionary), 1) + dcode
    sk = np.sort(key)
    warnings = []
    if sk.size > 1 and (sk[1:] == sk[:-1]).any():
        if not keep_first:
            on_dup()  # raises the precise error
            raise InputError("a document is listed twice for one topic", file=src.display, hint=_DUP_FIX)
        _, first = np.unique(key, return_index=True)  # first occurrence in file order
        ki = np.sort(first)
        n_drop = int(key.size - ki.size)
        warnings.append(f"{src.display}: {n_drop} repeated document{'s' if n_drop > 1 else ''} dropped "
                        f"(kept the first occurrence in each topic)")
        rt, dcode = rt[ki], dcode[ki]
        d = d.take(pa.array(ki))
        if score is not None:
            score = score.take(pa.array(ki))
        if rank is not None:
            rank = rank[ki]
    if order == "score":
        # trec_eval keeps scores as C floats (TEXT_RESULTS.sim): compare in single precision
        score = pc.cast(score, pa.float32(), safe=False)
        idx = pc.sort_indices(pa.table({"t": rt, "s": score, "d": d}),
                              sort_keys=[("t", "ascending"), ("s", "descending"), ("d", "descending")])
        idx = idx.to_numpy()
    elif order == "rank":
        idx = np.lexsort((rank, rt))
    else:
        idx = np.argsort(rt, kind="stable")
    return _Parsed(src.name, src.display, [tvals[i] for i in nat], np.bincount(rt, minlength=len(tvals)),
                   rt[idx], dcode[idx], denc.dictionary, n_lines, warnings)


def _parse_trec(src: _RunSource, order: str, keep_first: bool) -> _Parsed:
    f = src.files[0]
    data = _text_bytes(f)
    rank = order == "rank"
    cols = None
    if not _needs_cleaning(data):
        cols = _arrow_trec(data, rank)
    if cols is None:
        cols = _arrow_trec(_clean_blanks(data), rank)
    if cols is None:  # the slow parser reads the original text, to quote lines as they are
        cols = _slow_trec(data, f.name, order, keep_first)
    t, d, s, r = cols
    return _order_rows(src, t, d, s, r, order, keep_first, len(t),
                       lambda: _slow_trec(data, f.name, order, False))


def _parse_res(src: _RunSource, keep_first: bool) -> _Parsed:
    topics, docs = [], []
    seen_topics: dict[str, str] = {}
    for f in src.files:
        topic = run_name(f.base)
        if topic in seen_topics:
            raise InputError(f"two files hold topic {topic!r}: {seen_topics[topic]} and {f.name}",
                             file=src.display, hint="keep one TOPIC.res file per topic")
        seen_topics[topic] = f.name
        data = _text_bytes(f)
        seen: dict[str, int] = {}
        for i, text, fl in _lines(data):
            if len(fl) != 1:
                raise InputError(f"expected 1 field (a document id) in an NTCIR .res file, found {len(fl)}",
                                 file=f.name, line=i, text=text,
                                 hint="list one document id per line, best first")
            doc = fl[0].decode()
            first = seen.setdefault(doc, i)
            if first != i:
                if keep_first:
                    continue
                raise InputError(f"document {doc!r} is listed twice for topic {topic!r} (first on line {first})",
                                 file=f.name, line=i, text=text, hint=_DUP_FIX)
            topics.append(topic)
            docs.append(doc)
    if not topics:
        raise InputError("empty run: no document ids", file=src.display, hint="give non-empty TOPIC.res files")
    return _order_rows(src, pa.array(topics, pa.string()), pa.array(docs, pa.string()), None, None, "file",
                       keep_first, len(topics), lambda: None)


def _parse_run(src: _RunSource, order: str, keep_first: bool) -> _Parsed:
    if src.kind == "res":
        return _parse_res(src, keep_first)
    return _parse_trec(src, order, keep_first)


# -- runs: public ------------------------------------------------------------
@dataclass
class Run:
    """One run, in evaluation order.

    ``topics``: the run's topic ids (natural order); ``lengths[i]``: number of
    documents retrieved for ``topics[i]``; ``docs``: every document id,
    topic after topic, each topic's list in evaluation order (see
    :func:`read_run` for the order); ``warnings``: sentences.
    """

    name: str
    topics: tuple[str, ...]
    docs: tuple[str, ...]
    lengths: np.ndarray
    source: str = ""
    n_lines: int = 0
    warnings: list[str] = field(default_factory=list)

    def ranking(self, topic: str) -> list[str]:
        """The ranked document ids for one topic (empty if the run lacks it)."""
        if topic not in self.topics:
            return []
        i = self.topics.index(topic)
        start = int(self.lengths[:i].sum())
        return list(self.docs[start:start + int(self.lengths[i])])


def _check_order(order: str) -> None:
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {', '.join(_ORDERS)}; got {order!r}")


def read_run(source, *, fmt: str = "auto", order: str = "score", keep_first_duplicate: bool = False,
             name: str | None = None) -> Run:
    """Read one run: a TREC run file, or an NTCIR run (directory / zip of ``TOPIC.res`` files).

    **Order** (TREC runs): ``order="score"`` (default) ranks each topic's
    documents by score, descending, and breaks exact score ties by document
    id, descending, comparing ids byte-wise - exactly as trec_eval does (the
    rank column is ignored; scores are compared in single precision, as
    trec_eval stores them in a C ``float``). ``order="rank"``: by the rank column ascending
    (ties keep file order); ``order="file"``: file order. NTCIR ``.res``
    runs are always in file order.

    A document listed twice for one topic is an error unless
    ``keep_first_duplicate=True`` (the first occurrence in the file is kept).
    ``name`` overrides the run name (default: :func:`run_name` of the file).

    >>> r = read_run(("bm25.txt", b"q1 Q0 a 1 1.0 x\\nq1 Q0 b 2 1.0 x\\nq1 Q0 c 3 2.0 x\\n"))
    >>> r.name, r.ranking("q1")
    ('bm25', ['c', 'b', 'a'])
    """
    _check_order(order)
    if fmt not in _RUN_FMTS:
        raise ValueError(f"fmt must be one of {', '.join(_RUN_FMTS)}; got {fmt!r}")
    srcs = _run_sources(source, fmt)
    if len(srcs) != 1:
        raise InputError(f"read_run reads one run; this source holds {len(srcs)}", file=_source_name(source),
                         hint="use load_collection for several runs")
    p = _parse_run(srcs[0], order, keep_first_duplicate)
    docs = p.doc_values.take(pa.array(p.doc_code)).to_pylist()
    return Run(name=name or p.name, topics=tuple(p.topics), docs=tuple(docs), lengths=p.counts.astype(np.int64),
               source=p.display, n_lines=p.n_lines, warnings=list(p.warnings))


# -- the collection ------------------------------------------------------------
@dataclass
class _Judgments:
    """The qrels as lookup structures for the evaluated topics."""

    topic_index: dict[str, int]
    doc_values: pa.Array       # unique judged doc ids
    table: np.ndarray | None   # int8 (n_topics, n_docs), -1 = not judged
    keys: np.ndarray | None    # sorted int64 topic * n_docs + doc (when the table would be too big)
    key_levels: np.ndarray | None

    def lookup(self, topic: np.ndarray, doc: np.ndarray) -> np.ndarray:
        """Level per (topic, doc code) pair; -1 where unjudged (doc code -1 = unknown doc)."""
        ok = doc >= 0
        out = np.full(topic.shape, -1, dtype=np.int8)
        if self.table is not None:
            out[ok] = self.table[topic[ok], doc[ok]]
            return out
        k = topic[ok].astype(np.int64) * len(self.doc_values) + doc[ok]
        pos = np.searchsorted(self.keys, k)
        pos = np.minimum(pos, max(self.keys.size - 1, 0))
        hit = self.keys[pos] == k
        sub = np.full(k.shape, -1, dtype=np.int8)
        sub[hit] = self.key_levels[pos[hit]]
        out[ok] = sub
        return out


def _judgments(frame: pd.DataFrame, topic_ids: list[str]) -> _Judgments:
    tindex = {t: i for i, t in enumerate(topic_ids)}
    sub = frame[frame["topic"].isin(tindex)]
    codes, uniques = pd.factorize(sub["doc"].to_numpy(dtype=object))
    tcode = sub["topic"].map(tindex).to_numpy(dtype=np.int64)
    lv = sub["level"].to_numpy(dtype=np.int8)
    n_docs = max(len(uniques), 1)
    doc_values = pa.array(list(uniques), pa.string())
    if len(topic_ids) * n_docs <= 64_000_000:
        table = np.full((len(topic_ids), n_docs), -1, dtype=np.int8)
        table[tcode, codes] = lv
        return _Judgments(tindex, doc_values, table, None, None)
    keys = tcode * n_docs + codes
    order = np.argsort(keys)
    return _Judgments(tindex, doc_values, None, keys[order], lv[order])


@dataclass
class _Placed:
    """One run mapped onto the evaluated topics."""

    topic: np.ndarray   # evaluated topic index per kept row
    pos: np.ndarray     # 0-based rank
    level: np.ndarray   # int8, -1 = unjudged
    lengths: np.ndarray
    ignored: list[str]
    missing: list[str]


def _place(p: _Parsed, J: _Judgments, qrels_topics: set[str], depth: int | None) -> _Placed:
    n_eval = len(J.topic_index)
    tmap = np.array([J.topic_index.get(t, -1) for t in p.topics], dtype=np.int64)
    starts = np.cumsum(p.counts) - p.counts
    pos = np.arange(p.row_topic.size, dtype=np.int64) - starts[p.row_topic]
    te = tmap[p.row_topic] if tmap.size else np.zeros(0, np.int64)
    keep = te >= 0
    if depth is not None:
        keep &= pos < depth
    dq = pc.index_in(p.doc_values, value_set=J.doc_values).fill_null(-1).to_numpy(zero_copy_only=False)
    te, pos, dc = te[keep], pos[keep], dq[p.doc_code[keep]]
    lengths = np.zeros(n_eval, dtype=np.int64)
    has = tmap >= 0
    lengths[tmap[has]] = p.counts[has]
    if depth is not None:
        lengths = np.minimum(lengths, depth)
    eval_names = {i: t for t, i in J.topic_index.items()}
    present = set(tmap[has].tolist())
    return _Placed(te, pos, J.lookup(te, dc), lengths,
                   ignored=[t for t in p.topics if t not in qrels_topics],
                   missing=[eval_names[i] for i in range(n_eval) if i not in present])


def load_collection(qrels, runs=None, *, order: str = "score", depth: int | None = None,
                    condensed: bool = False, keep_first_duplicate: bool = False, name: str | None = None,
                    progress: Callable[[float], None] | None = None, fmt: str = "auto",
                    qrels_fmt: str = "auto") -> Collection:
    """Read qrels and runs into a :class:`Collection` (levels tensor + report).

    Parameters
    ----------
    qrels : path, ``(filename, bytes)``, directory / zip of NTCIREVAL ``.rel``
        files, or a list of these (see :func:`read_qrels`).
    runs : a list of sources (paths or ``(filename, bytes)``), a directory
        (every regular file in it, sorted by name, hidden files skipped; a
        directory of ``TOPIC.res`` files is one NTCIR run), a ``.zip`` path or
        ``(name.zip, bytes)`` (every member), or a mix. ``.gz`` anywhere.
    order : "score" (default: trec_eval's order - score descending, in
        single precision like trec_eval, exact ties broken by document id
        descending, byte-wise), "rank" (the rank
        column ascending, ties in file order) or "file".
    depth : None = the longest ranked list; an int truncates every list.
    condensed : drop unjudged documents first (``Collection.condensed()``).
    keep_first_duplicate : keep the first of repeated documents in a topic
        instead of raising.
    name : collection name (default: the qrels file name).
    progress : ``progress(fraction)`` called as runs load.
    fmt, qrels_fmt : force the run / qrels format (default: sniffed).

    The evaluated topics are the qrels topics with at least one document of
    level >= 1, in natural order ("q2" < "q10"). Unjudged retrieved
    documents count as non-relevant and are flagged in ``unjudged``; a topic
    missing from a run has length 0; run topics absent from the qrels are
    ignored. All of it is listed in ``collection.report``.

    >>> c = load_collection(("q.txt", b"t1 0 d1 1\\n"), [("r.txt", b"t1 Q0 d1 1 1.0 x\\n")])
    >>> c.levels.tolist(), c.run_ids
    ([[[1]]], ('r',))
    """
    _check_order(order)
    if depth is not None and (not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth must be a positive integer or None; got {depth!r}")
    if fmt not in _RUN_FMTS:
        raise ValueError(f"fmt must be one of {', '.join(_RUN_FMTS)}; got {fmt!r}")
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels, fmt=qrels_fmt)
    srcs = _run_sources(runs, fmt)
    by_name: dict[str, str] = {}
    for s in srcs:
        if s.name in by_name:
            raise InputError(f"two runs have the same name {s.name!r}: {by_name[s.name]} and {s.display}",
                             hint="rename one of the files (the run name is the file name without extensions)")
        by_name[s.name] = s.display

    frame = q.frame
    rel_topics = set(frame.loc[frame["level"] >= 1, "topic"].unique())
    all_topics = _natural_sorted(frame["topic"].unique())
    qrels_set = set(all_topics)
    topic_ids = [t for t in all_topics if t in rel_topics]
    K = q.max_level
    J = _judgments(frame, topic_ids)
    lc = np.zeros((len(topic_ids), K + 1), dtype=np.int64)
    sub = frame[frame["topic"].isin(J.topic_index)]
    np.add.at(lc, (sub["topic"].map(J.topic_index).to_numpy(dtype=np.int64),
                   sub["level"].to_numpy(dtype=np.int64)), 1)

    def work(s: _RunSource) -> tuple[_Parsed, _Placed]:
        try:
            p = _parse_run(s, order, keep_first_duplicate)
            return p, _place(p, J, qrels_set, depth)
        except InputError:
            raise
        except Exception as e:  # never a traceback for input we failed to foresee
            raise InputError(f"could not read this run ({type(e).__name__}: {e})", file=s.display,
                             hint="check that it is a TREC run (topic Q0 doc rank score tag) or an "
                                  "NTCIR .res run; please report the file if it is") from e

    results: list[tuple[_Parsed, _Placed]] = []
    if len(srcs) == 1:
        results.append(work(srcs[0]))
        if progress:
            progress(1.0)
    else:
        with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as ex:
            futures = [ex.submit(work, s) for s in srcs]
            try:
                for i, fut in enumerate(futures, 1):
                    results.append(fut.result())
                    if progress:
                        progress(i / len(futures))
            except BaseException:
                for fut in futures:
                    fut.cancel()
                raise

    D = max([int(pl.lengths.max(initial=0)) for _, pl in results] + [1])  # already <= depth
    n_runs, n_topics = len(results), len(topic_ids)
    levels = np.zeros((n_runs, n_topics, D), dtype=np.int8)
    unjudged = np.zeros((n_runs, n_topics, D), dtype=bool)
    lengths = np.zeros((n_runs, n_topics), dtype=np.int32)
    report = LoadReport(qrels_source=q.source, n_qrels_lines=q.n_lines,
                        level_judgments=dict(q.level_judgments),
                        topics_without_relevant=[t for t in all_topics if t not in rel_topics],
                        warnings=list(q.warnings))
    for r, (p, pl) in enumerate(results):
        lv = pl.level
        levels[r, pl.topic, pl.pos] = np.maximum(lv, 0)
        unjudged[r, pl.topic, pl.pos] = lv < 0
        lengths[r] = pl.lengths
        report.n_run_lines += p.n_lines
        report.warnings.extend(p.warnings)
        if pl.ignored:
            report.ignored_run_topics[p.name] = pl.ignored
        if pl.missing:
            report.missing_run_topics[p.name] = pl.missing
    c = Collection(levels=levels, lengths=lengths, level_counts=lc, run_ids=tuple(p.name for p, _ in results),
                   topic_ids=tuple(topic_ids), unjudged=unjudged, level_names=q.level_names,
                   name=name if name is not None else _base(q.source.split(", ")[0]) or q.source,
                   report=report)
    return c.condensed() if condensed else c
