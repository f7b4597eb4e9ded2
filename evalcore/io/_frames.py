"""Sources from Python pipelines: pandas DataFrames, pytrec_eval-style dicts, pyarrow Tables and
ir_datasets-style iterables of records.

Qrels
    * a DataFrame with PyTerrier's columns ``qid, docno, label`` or
      ir_measures' ``query_id, doc_id, relevance`` (other columns, e.g.
      ``iteration``, are ignored);
    * a dict ``{qid: {docno: level}}`` (pytrec_eval).
Runs
    * a DataFrame with ``qid, docno, score`` (PyTerrier; ``rank`` used with
      ``order="rank"``) or ``query_id, doc_id, score`` (ir_measures); named
      ``df.attrs["name"]`` or ``"run"``;
    * a dict ``{qid: {docno: score}}`` (pytrec_eval), named ``"run"``;
    * a dict of named runs ``{"bm25": <DataFrame or dict>, ...}``.
Either
    * a pyarrow ``Table`` or ``RecordBatch`` with the same columns as a
      DataFrame;
    * an iterable of records, as ir_datasets yields them: namedtuples
      (``dataset.qrels_iter()``: ``query_id, doc_id, relevance, iteration``;
      ``dataset.scoreddocs_iter()``: ``query_id, doc_id, score``) or dicts
      with those keys (PyTerrier's ``qid, docno, ...`` too). A generator is
      read once. :func:`python_sources` turns both into DataFrames before the
      loader sees them.
ranx
    * a ``ranx.Qrels`` as qrels, and a ``ranx.Run``, a list of them or a dict
      ``{name: ranx.Run}`` as runs: read through their ``to_dict()`` (the
      pytrec_eval dicts above), each run named by its ``name`` (``"run"``
      when it has none). ranx is not imported: an object is recognised by
      its class's module.

Query and document ids are compared as strings (``1`` and ``"1"`` are the
same topic). The same policies as files apply: trec_eval's order (score
descending in single precision, ties by document id descending), a repeated
document is an error (or the first kept with ``keep_first_duplicate``),
topics missing from a run score 0, and errors name the run, the row (0-based
position in the DataFrame; the qid/docno for a dict) and the column.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ._kinds import is_nested_dict
from ._order import order_rows
from ._types import Parsed
from .errors import DUP_FIX, InputError
from .limits import MAX_LEVEL

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made or read, not with the module
    import pandas as pd


def _is_df(obj) -> bool:
    """A pandas DataFrame? Without importing pandas: none can exist before pandas is imported, and
    ``evalcore evaluate`` on files does not import it (docs/benchmarks.md section 14)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


_QRELS_COLS = (("qid", "docno", "label"), ("query_id", "doc_id", "relevance"))
_RUN_COLS = (("qid", "docno", "score"), ("query_id", "doc_id", "score"))


def _is_record(x) -> bool:
    """One ir_datasets-style record: a namedtuple, or a flat dict with a query id key."""
    if isinstance(x, tuple):
        return hasattr(x, "_fields")
    return isinstance(x, Mapping) and ("query_id" in x or "qid" in x) and \
        not any(isinstance(v, Mapping) for v in x.values())


def _is_pair(x) -> bool:
    """A ``(filename, bytes)`` source (an upload)."""
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], (bytes, bytearray, memoryview))


def _records_frame(rows: list, what: str, name: str) -> pd.DataFrame:
    import pandas as pd

    first = rows[0]
    kind = type(first)
    odd = next((i for i, r in enumerate(rows) if type(r) is not kind), None)
    if odd is not None:
        raise InputError(f"record {odd} is a {type(rows[odd]).__name__}, record 0 a {kind.__name__}", file=name,
                         hint=f"give records of one kind (e.g. only {kind.__name__}s)")
    if isinstance(first, tuple):
        cols = list(first._fields)  # type: ignore[attr-defined]  # a namedtuple: the records readers accept
        return pd.DataFrame({c: pd.Series([r[i] for r in rows], dtype=object) for i, c in enumerate(cols)})
    return pd.DataFrame.from_records(rows)


def _not_records(first, what: str, name: str) -> InputError:
    fields = "query_id, doc_id, relevance" if what == "qrels" else "query_id, doc_id, score"
    return InputError(f"an iterable of {what} records must yield namedtuples or dicts with the fields {fields} "
                      f"(ir_datasets' {'qrels_iter()' if what == 'qrels' else 'scoreddocs_iter()'}); its first "
                      f"item is a {type(first).__name__}: {first!r:.80}", file=name,
                      hint="give the namedtuples themselves, a DataFrame with those columns, or a file path")


def as_frame(obj, what: str, name: str):
    """``obj`` as a DataFrame if it is a pyarrow Table / RecordBatch or an iterable of records;
    otherwise ``obj`` unchanged (paths, DataFrames, dicts, lists of sources).

    >>> from collections import namedtuple
    >>> Q = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    >>> as_frame(iter([Q("1", "d1", 2, "0")]), "qrels", "qrels").values.tolist()
    [['1', 'd1', 2, '0']]
    """
    if isinstance(obj, (pa.Table, pa.RecordBatch)):
        return obj.to_pandas()
    if isinstance(obj, (str, bytes, bytearray, memoryview, Mapping)) or _is_df(obj) or hasattr(obj, "__fspath__"):
        return obj
    if _is_pair(obj):
        return obj
    if isinstance(obj, Iterator):                           # a generator: read once
        first = next(obj, _END)
        if first is _END:
            raise InputError(f"the iterable of {what} records yielded nothing", file=name,
                             hint=f"give at least one {what} record")
        if isinstance(first, str) or hasattr(first, "__fspath__") or _is_pair(first):
            return [first, *obj]                            # an iterator of paths / (name, bytes) pairs
        if not _is_record(first):
            raise _not_records(first, what, name)
        return _records_frame([first, *obj], what, name)
    if isinstance(obj, (list, tuple)) and obj and _is_record(obj[0]):
        return _records_frame(list(obj), what, name)
    return obj


_END = object()


def _ranx_kind(obj) -> str | None:
    """``"Qrels"`` or ``"Run"`` for a ranx object (by its class's module: ranx is never imported here)."""
    module = type(obj).__module__ or ""
    if (module == "ranx" or module.startswith("ranx.")) and hasattr(obj, "to_dict"):
        return type(obj).__name__
    return None


def _from_ranx_qrels(obj):
    kind = _ranx_kind(obj)
    if kind is None:
        return obj
    if kind != "Qrels":
        raise InputError(f"a ranx {kind} was given as the qrels", file="qrels",
                         hint="give the ranx.Qrels as qrels and the ranx.Run(s) as runs")
    return {str(q): dict(d) for q, d in obj.to_dict().items()}


def _from_ranx_runs(runs):
    """A ranx Run, a list of them or ``{name: Run}`` -> ``{name: {qid: {docno: score}}}``; anything else as is."""
    def one(r, name=None):
        kind = _ranx_kind(r)
        if kind != "Run":
            raise InputError(f"a ranx {kind} was given as a run", file=str(name or "run"),
                             hint="give the ranx.Qrels as qrels and the ranx.Run(s) as runs")
        return {str(q): dict(d) for q, d in r.to_dict().items()}

    if _ranx_kind(runs) is not None:
        return {str(getattr(runs, "name", None) or "run"): one(runs)}
    if isinstance(runs, (list, tuple)) and runs and all(_ranx_kind(r) is not None for r in runs):
        names = [str(getattr(r, "name", None) or f"run{i + 1}") for i, r in enumerate(runs)]
        if len(set(names)) < len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise InputError(f"two ranx runs are both named {dup!r}", file="runs",
                             hint="give each ranx.Run its own name (Run(..., name='bm25')) or pass a dict "
                                  "{name: run}")
        return {n: one(r, n) for n, r in zip(names, runs, strict=True)}
    if isinstance(runs, Mapping) and runs and any(_ranx_kind(r) is not None for r in runs.values()):
        return {k: one(r, k) if _ranx_kind(r) is not None else r for k, r in runs.items()}
    return runs


def python_sources(qrels, runs):
    """(qrels, runs) with ranx objects turned into pytrec_eval dicts, pyarrow Tables and iterables of records
    into DataFrames; a dict of named runs keeps its names. Everything else passes through unchanged."""
    qrels = as_frame(_from_ranx_qrels(qrels), "qrels", "qrels")
    runs = _from_ranx_runs(runs)
    if isinstance(runs, Mapping) and not is_nested_dict(runs):
        runs = {k: as_frame(v, "run", f"run {str(k)!r}") for k, v in runs.items()}
    elif isinstance(runs, list) and runs and not _is_record(runs[0]):
        runs = [as_frame(r, "run", "run") for r in runs]
    else:
        runs = as_frame(runs, "run", "run")
    return qrels, runs


def _columns(df: pd.DataFrame, choices, what: str, name: str) -> tuple[str, str, str]:
    for cols in choices:
        if all(c in df.columns for c in cols):
            return cols
    raise InputError(f"a {what} DataFrame needs the columns " + " or ".join(", ".join(c) for c in choices)
                     + f"; it has {', '.join(map(str, df.columns)) or 'none'}", file=name,
                     hint="rename the columns (PyTerrier: qid, docno, ...; ir_measures: query_id, doc_id, ...)")


def _ids(df: pd.DataFrame, col: str, name: str) -> np.ndarray:
    s = df[col]
    bad = s.isna().to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {i}: column {col!r} is empty", file=name, hint=f"give every row a {col}")
    out = s.astype(str).to_numpy(dtype=object)
    empty = np.flatnonzero((s.astype(str).str.strip() == "").to_numpy())
    if empty.size:
        raise InputError(f"row {int(empty[0])}: column {col!r} is blank", file=name, hint=f"give every row a {col}")
    return out


def _show(v) -> str:
    return repr(v.item() if isinstance(v, np.generic) else v)


def _numbers(df: pd.DataFrame, col: str, name: str, *, integer: bool, most: float | None = None) -> np.ndarray:
    """The column as float64 / int64; not numeric, not finite, not integer (when ``integer``) or above
    ``most`` (checked before the int64 conversion) is an InputError naming the row."""
    import pandas as pd

    s = df[col]
    v = pd.to_numeric(s, errors="coerce")
    bad = (v.isna() | ~np.isfinite(v.astype(float))).to_numpy() if len(v) else np.zeros(0, bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        kind = "an integer relevance label" if integer else "a finite number"
        raise InputError(f"row {i}: column {col!r} holds {_show(s.iloc[i])}, not {kind}", file=name,
                         hint=f"make {col} numeric" + (" (0 = non-relevant, 1, 2, ... relevant)" if integer else ""))
    if integer:
        frac = np.flatnonzero((v != np.floor(v)).to_numpy())
        if frac.size:
            i = int(frac[0])
            raise InputError(f"row {i}: relevance label {_show(s.iloc[i])} in column {col!r} is not an integer",
                             file=name, hint="relevance labels are integers: 0 = non-relevant, 1, 2, ...")
    if most is not None:
        over = np.flatnonzero((v.astype(float) > most).to_numpy())
        if over.size:
            i = int(over[0])
            what = f"relevance label {_show(s.iloc[i])} is above {MAX_LEVEL}, the highest level read" \
                if most == MAX_LEVEL else f"{_show(s.iloc[i])} is too large (at most {most:.0f})"
            raise InputError(f"row {i}: column {col!r}: {what}", file=name,
                             hint=f"map larger labels onto 0..{MAX_LEVEL} before loading" if most == MAX_LEVEL
                             else f"give {col} values below {most:.0f}")
        under = np.flatnonzero((v.astype(float) < -2.0 ** 62).to_numpy())
        if under.size:  # very negative labels / ranks would wrap in int64; labels < 0 mean 0 anyway
            v = v.clip(lower=-2.0 ** 62)
    return v.to_numpy(dtype=np.int64 if integer else np.float64)


def _dict_frame(d: Mapping, value: str, name: str) -> pd.DataFrame:
    import pandas as pd

    rows_q, rows_d, rows_v = [], [], []
    for q, docs in d.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"query {q!r}: expected a dict {{docno: {value}}}, got {type(docs).__name__}", file=name,
                             hint="pytrec_eval layout: {qid: {docno: " + value + "}}")
        for doc, v in docs.items():
            rows_q.append(q)
            rows_d.append(doc)
            rows_v.append(v)
    return pd.DataFrame({"qid": pd.Series(rows_q, dtype=object), "docno": pd.Series(rows_d, dtype=object),
                         value: pd.Series(rows_v, dtype=object)})


def qrels_frame(obj, name: str = "qrels") -> tuple[pd.DataFrame, list[str], dict[int, int]]:
    """(frame with topic, doc, level; warnings; judgments per level) from a DataFrame or dict."""
    import pandas as pd

    df = _dict_frame(obj, "label", name) if isinstance(obj, Mapping) else obj
    q, d, lab = _columns(df, _QRELS_COLS, "qrels", name)
    topics, docs = _ids(df, q, name), _ids(df, d, name)
    levels = _numbers(df, lab, name, integer=True, most=MAX_LEVEL)
    warnings = []
    neg = levels < 0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        warnings.append(f"{name}: {int(neg.sum())} judgment{'s' if neg.sum() > 1 else ''} with a negative label "
                        f"(e.g. row {i}: {levels[i]}) count as non-relevant")
        levels = np.maximum(levels, 0)
    frame = pd.DataFrame({"topic": topics, "doc": docs, "level": levels})
    dup = frame.duplicated(["topic", "doc"], keep=False).to_numpy()
    if dup.any():
        sub = frame[dup]
        clash = sub.groupby(["topic", "doc"], sort=False)["level"].nunique()
        if (clash > 1).any():
            t, doc = clash[clash > 1].index[0]
            rows = sub[(sub.topic == t) & (sub.doc == doc)].index.tolist()
            raise InputError(f"document {doc!r} is judged twice for topic {t!r} with different levels "
                             f"(rows {rows[0]} and {rows[1]})", file=name,
                             hint="keep exactly one judgment per (topic, document)")
        n = int(frame.duplicated(["topic", "doc"]).sum())
        warnings.append(f"{name}: {n} duplicate judgment{'s' if n > 1 else ''} (same topic, document and level) "
                        "counted once")
        frame = frame.drop_duplicates(["topic", "doc"]).reset_index(drop=True)
    per_level = pd.Series(levels).value_counts().sort_index()
    counts = {int(k): int(v) for k, v in zip(per_level.index.tolist(), per_level.tolist(), strict=True)}
    return frame, warnings, counts


def parse_source_frame(src, order: str, keep_first: bool) -> Parsed:
    """The reader of the ``frame`` kind (:data:`evalcore.io.formats.RUN_FORMAT_TABLE`): a run given in Python."""
    return parse_frame_run(src.name, src.obj, order, keep_first)


def parse_frame_run(name: str, obj, order: str, keep_first: bool) -> Parsed:
    """One run from a DataFrame or a pytrec_eval dict, in evaluation order (see :mod:`._order`)."""
    import pandas as pd

    from ._types import RunSource

    display = f"run {name!r}"
    df = _dict_frame(obj, "score", display) if isinstance(obj, Mapping) else obj
    if len(df) == 0:
        raise InputError("empty run: no rows", file=display, hint="give at least one (qid, docno, score) row")
    q, d, s = _columns(df, _RUN_COLS, "run", display)
    topics, docs = _ids(df, q, display), _ids(df, d, display)
    score = _numbers(df, s, display, integer=False)
    rank = None
    if order == "rank":
        if "rank" not in df.columns:
            raise InputError("order='rank' needs a 'rank' column", file=display,
                             hint="add the rank column, or use order='score' (trec_eval's order)")
        rank = _numbers(df, "rank", display, integer=True, most=2.0 ** 62)

    def on_dup(*_):
        dup = pd.DataFrame({"t": topics, "d": docs}).duplicated(keep="first").to_numpy()
        i = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero((topics == topics[i]) & (docs == docs[i]))[0])
        raise InputError(f"row {i}: document {docs[i]!r} is listed twice for topic {topics[i]!r} (first in row "
                         f"{first})", file=display, hint=DUP_FIX)

    src = RunSource(name, display, "frame", [])
    return order_rows(src, pa.array(topics, pa.string()), pa.array(docs, pa.string()),
                       pa.array(score, pa.float64()), rank, order, keep_first, len(df), on_dup)
