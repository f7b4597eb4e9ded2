"""Writers for :func:`evalcore.evaluate`'s tidy table: the bytes ``evalcore evaluate --output ...`` prints.

``evalcore evaluate`` calls these very functions, so a Python pipeline and the
CLI write the same bytes for the same table. Each returns the text and, given a
``path``, also writes it atomically (the file is either its old content or the
whole new one).

Every format states the conventions that shaped each number, from ``df.attrs`` (which
:func:`evalcore.evaluate` fills): the topics each mean ran over (:func:`evalcore.registry.topic_policy`:
``trec_eval`` = trec_eval ``-c``'s topics, every qrels topic; ``ntcireval`` = the topics with a relevant
document), the relevance threshold of a binary measure, the ranking order with its tie-breaking
(:attr:`evalcore.Collection.order`) and the depth the lists were cut at:

* ``tsv`` / ``csv`` - columns ``run, topic, metric, value, topics, rel_threshold, order, depth, gains,
  mean, condensed`` (:data:`COLUMNS`); ``topics`` is ``POLICY:N`` on the mean rows (``trec_eval:66``:
  trec_eval -c's topics, 66 of them) and empty on per-topic rows; ``rel_threshold`` the level a binary
  measure counts as relevant (empty for a graded one); ``order`` ``score`` (trec_eval's tie-breaking),
  ``rank``, ``file`` or ``given``; ``depth`` the cut (``all``: whole lists); ``gains`` the gains the
  measure used, with their levels, highest first (``S=10 : A=5 : B=1``; empty for a measure that reads
  no gains; a peer's name such as ``ndcg_cut.10`` shows its own gain = level); ``mean`` how a mean row
  combines the topics (``arithmetic``, ``geometric``, ``sum``; empty on per-topic rows); ``condensed``
  ``yes`` when unjudged documents were removed first. Read back with ``pandas.read_csv(path,
  sep="\t", keep_default_na=False)`` (the header names every column; ``keep_default_na`` keeps the
  empty cells and the run ``NA`` as text);
* ``jsonl`` - one ``{run, topic, metric, value, order, depth, condensed}`` object per line
  (``rel_threshold`` too for a binary measure, ``gains`` for a graded one); the mean rows also carry
  ``"topics": POLICY, "n_topics": N`` and ``"mean"``;
* ``trec_eval`` - trec_eval ``-q``'s layout, with its own ``num_q`` and ``relevance_level`` summary
  lines, and more in the same ``name<TAB>all<TAB>value`` form: ``topic_policy`` (``trec_eval-c``
  or ``ntcireval``), ``ranking_order``, ``depth``, ``condensed``, ``gains`` and ``mean``
  (:func:`_trec_eval_settings`; every value one field without spaces). This is evalcore's own
  trec_eval-like layout; ``evalcore trec_eval``, the drop-in, prints trec_eval's bytes and nothing
  else. trec_eval's format has no comment syntax, and the
  programs that read it (trectools' ``TrecRes``, scripts splitting each line into three fields) take
  every line as ``measure topic value``: a ``#`` line would become a bogus measure or a parse error,
  whereas these lines read as three more summary values beside trec_eval's own ``runid``.

Run and topic ids in ``tsv`` and ``trec_eval`` (text read on a terminal) show control, bidirectional and
zero-width characters as ``\\uXXXX`` escapes (:func:`evalcore.texfmt.visible`); ``csv`` and ``jsonl``
keep the exact characters (JSON writes them as ``\\u`` escapes itself).

Values keep 12 significant digits (``format(v, ".12g")``); a NaN or infinite
value is ``null`` in JSON.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from ._atomic import write_text
from .legend import compact
from .texfmt import visible

if TYPE_CHECKING:  # the writers take a DataFrame or evalcore.registry.ScoreRows; neither needs pandas here
    import pandas as pd

    from .registry import ScoreRows

__all__ = ["to_tsv", "to_csv", "to_jsonl", "to_trec_eval", "FORMATS", "COLUMNS", "write"]

MEAN_TOPIC = "all"   # evalcore.registry.MEAN_TOPIC (not imported: the writers need neither numpy kernels nor names)


def _fmt(v) -> str:
    return format(float(v), ".12g")


def _json_value(v):
    v = float(v)
    return v if v == v and abs(v) != float("inf") else None


def _check(df: pd.DataFrame | ScoreRows) -> None:
    missing = [c for c in ("run", "topic", "metric", "value") if c not in df.columns]
    if missing:
        raise ValueError(f"the writers take evalcore.evaluate()'s table (columns run, topic, metric, value); "
                         f"this one lacks {', '.join(missing)}")


def _topics_of(df: pd.DataFrame | ScoreRows) -> dict:
    return df.attrs.get("topics") or {}


def _stated(topics: dict, metric: str) -> str:
    t = topics.get(metric)
    return f"{t['policy']}:{t['n_topics']}" if t else ""


def _rows(df: pd.DataFrame | ScoreRows):
    if hasattr(df, "rows"):   # evalcore.registry.ScoreRows
        return cast("ScoreRows", df).rows()
    frame = cast("pd.DataFrame", df)
    return frame[["run", "topic", "metric", "value"]].itertuples(index=False, name=None)


def _groups(rows, col: int) -> dict:
    """Rows grouped by column ``col``, groups in order of first appearance, rows in order within
    each (``DataFrame.groupby(..., sort=False)``)."""
    out: dict = {}
    for row in rows:
        out.setdefault(row[col], []).append(row)
    return out


def _order_depth(df: pd.DataFrame | ScoreRows) -> tuple[str, str]:
    a = df.attrs
    depth = a.get("depth")
    return str(a.get("order") or ""), ("all" if depth is None and "order" in a else "" if depth is None else str(depth))


def _shown_ids():
    """``visible`` of a run or topic id, memoised per output (a table repeats each id many times)."""
    memo: dict = {}

    def shown(x):
        v = memo.get(x)
        if v is None:
            v = memo[x] = visible(x)
        return v
    return shown


#: The columns of ``tsv`` and ``csv``, in order (the module doc says what each holds).
COLUMNS = ("run", "topic", "metric", "value", "topics", "rel_threshold", "order", "depth", "gains", "mean",
           "condensed")


def _delimited(df: pd.DataFrame | ScoreRows, sep: str) -> Iterator[str]:
    _check(df)
    shown = _shown_ids() if sep == "\t" else str   # tsv is read on a terminal; csv keeps the exact ids
    topics = _topics_of(df)
    thresholds = df.attrs.get("rel_threshold") or {}
    gains = df.attrs.get("metric_gains") or {}
    means = df.attrs.get("aggregate") or {}
    order, depth = _order_depth(df)
    condensed = ("yes" if df.attrs.get("condensed") else "no") if order else ""
    yield sep.join(COLUMNS) + "\n"
    for r, t, m, v in _rows(df):
        mean_row = t == MEAN_TOPIC
        note = _stated(topics, m) if mean_row else ""
        yield (f"{shown(r)}{sep}{shown(t)}{sep}{m}{sep}{_fmt(v)}{sep}{note}{sep}{thresholds.get(m, '')}{sep}{order}"
               f"{sep}{depth}{sep}{gains.get(m, '')}{sep}{means.get(m, '') if mean_row else ''}{sep}{condensed}\n")


def _jsonl(df: pd.DataFrame | ScoreRows) -> Iterator[str]:
    _check(df)
    topics = _topics_of(df)
    thresholds = df.attrs.get("rel_threshold") or {}
    gains = df.attrs.get("metric_gains") or {}
    means = df.attrs.get("aggregate") or {}
    order, depth = _order_depth(df)
    for r, t, m, v in _rows(df):
        rec = {"run": r, "topic": t, "metric": m, "value": _json_value(v)}
        if t == MEAN_TOPIC and m in topics:
            rec.update(topics=topics[m]["policy"], n_topics=topics[m]["n_topics"])
        if m in thresholds:
            rec["rel_threshold"] = thresholds[m]
        if m in gains:
            rec["gains"] = gains[m]
        if t == MEAN_TOPIC and m in means:
            rec["mean"] = means[m]
        if order:
            rec.update(order=order, depth=None if depth == "all" else int(depth),
                       condensed=bool(df.attrs.get("condensed")))
        yield json.dumps(rec) + "\n"


def _trec_eval(df: pd.DataFrame | ScoreRows) -> Iterator[str]:
    """trec_eval -q's layout, run after run: every topic's measures (topics in the table's order), then
    ``runid<TAB>all<TAB>NAME``, ``num_q`` (the topics the means ran over), ``relevance_level``
    (trec_eval's ``-l``) and ``topic_policy`` where the table states one for every measure,
    ``ranking_order`` and ``depth``, and the means with topic ``all``. The measure is
    padded to 22 characters as trec_eval prints it (``%-22s``); values keep 12 significant digits
    (trec_eval prints 4 decimals)."""
    _check(df)
    topics = _topics_of(df)
    n_q = sorted({t["n_topics"] for t in topics.values()})
    levels = sorted(set((df.attrs.get("rel_threshold") or {}).values()))
    policies = sorted({t["policy"] for t in topics.values()})
    order, depth = _order_depth(df)
    extra = list(_trec_eval_settings(df))
    shown = _shown_ids()
    for run, part in _groups(_rows(df), 0).items():
        for tpart in _groups((row for row in part if row[1] != MEAN_TOPIC), 1).values():
            for _, t, m, v in tpart:
                yield f"{m:<22}\t{shown(t)}\t{_fmt(v)}\n"
        yield f"{'runid':<22}\tall\t{shown(run)}\n"
        if len(n_q) == 1:        # one topic set for every measure (as in trec_eval)
            yield f"{'num_q':<22}\tall\t{n_q[0]}\n"
        if len(levels) == 1:
            yield f"{'relevance_level':<22}\tall\t{levels[0]}\n"
        if len(policies) == 1:
            yield f"{'topic_policy':<22}\tall\t{'trec_eval-c' if policies[0] == 'trec_eval' else policies[0]}\n"
        if order:
            yield f"{'ranking_order':<22}\tall\t{order}\n{'depth':<22}\tall\t{depth}\n"
        yield from extra
        for _, t, m, v in part:
            if t == MEAN_TOPIC:
                yield f"{m:<22}\tall\t{_fmt(v)}\n"


def _trec_eval_settings(df: pd.DataFrame | ScoreRows) -> Iterator[str]:
    """The summary lines of ``--output trec_eval`` after ``depth``: ``condensed`` (``yes``/``no``), ``gains``
    (levels highest first, without spaces: ``S=10:A=5:B=1``; one line when every graded measure used the
    same, else one ``gains(METRIC)`` line per measure) and ``mean`` (likewise ``mean(METRIC)`` when the
    measures differ: ``arithmetic``, ``geometric``, ``sum``). Each value is one field without whitespace."""
    a = df.attrs
    if "order" in a:
        yield f"{'condensed':<22}\tall\t{'yes' if a.get('condensed') else 'no'}\n"
    for key, word in (("metric_gains", "gains"), ("aggregate", "mean")):
        per = dict(a.get(key) or {})
        values = {compact(str(v)) for v in per.values()}
        if len(values) == 1:
            yield f"{word:<22}\tall\t{values.pop()}\n"
        elif values:
            for m, v in per.items():
                yield f"{f'{word}({m})':<22}\tall\t{compact(str(v))}\n"


def _emit(lines: Iterator[str], path) -> str:
    text = "".join(lines)
    if path is not None:
        write_text(os.fspath(path), text)
    return text


def to_tsv(df: pd.DataFrame | ScoreRows, path: str | os.PathLike | None = None) -> str:
    """Tab-separated :data:`COLUMNS` (the default ``--output tsv``; see the module doc)."""
    return _emit(_delimited(df, "\t"), path)


def to_csv(df: pd.DataFrame | ScoreRows, path: str | os.PathLike | None = None) -> str:
    """Comma-separated, as :func:`to_tsv` (``--output csv``)."""
    return _emit(_delimited(df, ","), path)


def to_jsonl(df: pd.DataFrame | ScoreRows, path: str | os.PathLike | None = None) -> str:
    """One JSON object per row (``--output jsonl``); the mean rows say which topics they ran over.

    >>> import evalcore
    >>> df = evalcore.evaluate(evalcore.paper_examples(), ["map"])
    >>> import json
    >>> json.loads(to_jsonl(df).splitlines()[0])       # doctest: +NORMALIZE_WHITESPACE
    {'run': 'X', 'topic': 'all', 'metric': 'map', 'value': 0.1111111111111111, 'topics': 'trec_eval',
     'n_topics': 3, 'rel_threshold': 1, 'mean': 'arithmetic', 'order': 'given', 'depth': None, 'condensed': False}
    """
    return _emit(_jsonl(df), path)


def to_trec_eval(df: pd.DataFrame | ScoreRows, path: str | os.PathLike | None = None) -> str:
    """trec_eval ``-q``'s layout (``--output trec_eval``); see the module doc.

    For trec_eval's numbers under trec_eval's names, evaluate with ``topics="trec_eval"`` (the CLI's
    ``--output trec_eval`` does unless ``--topics`` says otherwise).
    """
    return _emit(_trec_eval(df), path)


#: ``--output`` name -> writer (the CLI's ``json`` output, a whole document with the settings, is its own).
FORMATS = {"tsv": to_tsv, "csv": to_csv, "jsonl": to_jsonl, "trec_eval": to_trec_eval}


def write(df: pd.DataFrame | ScoreRows, fmt: str, path: str | os.PathLike | None = None) -> str:
    """``FORMATS[fmt](df, path)``, with a clear error for an unknown format."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt](df, path)
