"""Score matrices from elsewhere (a tidy CSV) and the papers' top-N run selection."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["read_score_csv", "top_runs", "subset_runs"]

_COLUMNS = ("run", "topic", "metric", "value")


def read_score_csv(path, *, fill: float | None = None) -> tuple[list[str], list[str], dict[str, np.ndarray]]:
    """Read per-topic scores from a tidy CSV/TSV with columns ``run, topic, metric, value``.

    The separator (comma or tab) is detected from the header line; other
    columns are ignored. Rows whose topic is ``all`` (the means that
    ``python -m evalcore evaluate --per-topic`` prints) are skipped, so that
    command's output can be read back directly. Runs and topics keep their
    first-seen order. Every metric must cover every (run, topic) cell, unless
    ``fill`` gives the value of a missing cell (e.g. 0.0, as evaluate does for
    a topic missing from a run). A (run, topic, metric) given twice is an error.

    Returns ``(run_ids, topic_ids, {metric: (n_runs, n_topics) float64 array})``.
    """
    from ..io.limits import Limits, read_limited

    p = Path(path)
    # a regular file only, read within the input limit (a device or FIFO is refused before any read)
    data = read_limited(p, Limits().max_expanded_bytes, hint="give a regular CSV/TSV file of at most 4 GiB")
    header = data.split(b"\n", 1)[0].decode("utf-8", errors="replace")
    sep = "\t" if header.count("\t") > header.count(",") else ","
    try:
        df = pd.read_csv(io.BytesIO(data), sep=sep, dtype={"run": str, "topic": str, "metric": str})
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a readable CSV/TSV ({e})") from None
    df.columns = [str(c).strip().lower() for c in df.columns]
    missing = [c for c in _COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: a score file needs the columns run, topic, metric, value; "
                         f"missing {', '.join(missing)} (header: {header.strip()!r})")
    df = df[df["topic"].astype(str) != "all"]
    if df.empty:
        raise ValueError(f"{path}: no per-topic rows (only 'all' rows or no rows at all)")
    vals = pd.to_numeric(df["value"], errors="coerce")
    bad = vals.isna() & df["value"].notna()
    if bad.any() or vals.isna().any():
        i = int(np.flatnonzero(vals.isna().to_numpy())[0])
        raise ValueError(f"{path}, data row {i + 1}: value must be a number; got {df['value'].iloc[i]!r}")
    df = df.assign(value=vals.astype(np.float64))
    dup = df.duplicated(["run", "topic", "metric"])
    if dup.any():
        r = df[dup].iloc[0]
        raise ValueError(f"{path}: run {r['run']!r}, topic {r['topic']!r}, metric {r['metric']!r} appears twice")
    runs = list(dict.fromkeys(df["run"]))
    topics = list(dict.fromkeys(df["topic"]))
    out: dict[str, np.ndarray] = {}
    for m, g in df.groupby("metric", sort=False):
        piv = g.pivot(index="run", columns="topic", values="value").reindex(index=runs, columns=topics)
        a = piv.to_numpy(dtype=np.float64)
        if np.isnan(a).any():
            if fill is None:
                r, t = np.argwhere(np.isnan(a))[0]
                raise ValueError(f"{path}: metric {m!r} has no value for run {runs[r]!r}, topic {topics[t]!r} "
                                 f"({int(np.isnan(a).sum())} cells missing); give every cell or use fill=0")
            a = np.where(np.isnan(a), fill, a)
        out[str(m)] = a
    return runs, topics, out


def top_runs(means, n: int) -> np.ndarray:
    """Indices of the ``n`` runs with the highest mean, best first; ties keep run order.

    The papers keep the top 30 runs by mean relaxed AP (003 Sec. 5.1).

    >>> top_runs(np.array([0.2, 0.5, 0.2, 0.9]), 3).tolist()
    [3, 1, 0]
    """
    a = np.asarray(means, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"means must be a 1-D array (one value per run); got shape {a.shape}")
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number >= 1; got {n!r}")
    return np.argsort(-a, kind="stable")[: int(n)]


def subset_runs(scores: dict, idx) -> dict:
    """The same score matrices restricted to the runs ``idx`` (in that order)."""
    idx = np.asarray(idx, dtype=np.intp)
    return {k: np.asarray(v)[idx] for k, v in scores.items()}
