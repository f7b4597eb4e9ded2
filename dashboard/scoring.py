"""Score matrices and what the pages read from them: per metric, cached with only the settings it reads.

Score matrices are kept one metric at a time (:func:`score`) with only the sidebar settings that metric
reads (:func:`relevant`), so moving a gain slider recomputes the graded metrics and reuses AP, RR and NWRR.
Every value here is kept in the shared byte-bounded store (:func:`dashboard.stores.memo`), keyed by the
collection's fingerprint.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from evalcore import registry
from evalcore.collection import Collection

from . import safe, state
from .state import Settings
from .stores import memo

#: The metrics the app offers: every score of the registry, not the counts (NumRet, NumRel, NumRelRet:
#: ``MetricSpec.count``), which its [0, 1] charts and meta-evaluation pages do not fit (the CLI and the
#: Python API compute them).
METRIC_KEYS = registry.SCORE_KEYS
METRICS = registry.METRICS
ONE_DOCUMENT_KEYS = registry.ONE_DOCUMENT_KEYS


def relevant(key: str, s: Settings) -> tuple:
    """The sidebar settings this metric reads (its registry parameters), as hashable (name, value) pairs:
    only these key its cached scores, so a slider move recomputes only the metrics that read it."""
    sidebar = {"gains": s.gains, "beta": s.beta, "penalties": s.penalties, "rel_threshold": s.rel_threshold,
               **dict(s.measure_settings)}
    return tuple(sorted(METRICS[key.partition("@")[0]].reads(sidebar).items()))


def data_key(c: Collection, s: Settings) -> tuple:
    """Identity of a score set for the long computations' caches."""
    return (c.fingerprint, s.metric_keys, s.gains, s.beta, s.penalties, s.rel_threshold, s.cutoff, s.measure_settings)


def score(c: Collection, key: str, s: Settings) -> np.ndarray:
    """(n_runs, n_topics) scores of one metric key under the settings (read-only, shared)."""
    settings = relevant(key, s)

    def make():
        kw = {k: list(v) if isinstance(v, (tuple, list)) else v for k, v in settings}
        return registry.score_matrix(c, key, **kw)
    return memo(("score", c.fingerprint, key, settings), make)


def usable(c: Collection, s: Settings) -> Settings:
    """The settings with every metric that cannot be computed under them left
    out (e.g. NWRR when the penalties grow with the level),
    each with a warning in the sidebar saying why."""
    ok = []
    for base in s.metrics:
        key = state.expand(base, s.cutoff)
        try:
            score(c, key, s)
            ok.append(base)
        except ValueError as e:
            st.sidebar.warning(f"{safe.md(key)} is left out with these settings: {safe.md(e)}",
                               icon=":material/warning:")
    return replace(s, metrics=tuple(ok) or ("AP",))


def scores(c: Collection, s: Settings, keys=None) -> dict[str, np.ndarray]:
    return {k: score(c, k, s) for k in (keys or s.metric_keys)}


def per_topic_table(c: Collection, s: Settings, keys=None) -> pd.DataFrame:
    """One row per (run, topic) the run has a ranked list for, one column per metric key: the per-topic
    values the papers print (the worked examples define X, Y, Z, ... on one topic, so their means over
    the collection's topics are not the papers' numbers)."""
    mats = scores(c, s, keys)
    rows = [(r, t) for i, r in enumerate(c.run_ids) for j, t in enumerate(c.topic_ids) if c.lengths[i, j] > 0]
    idx = [(c.run_ids.index(r), c.topic_ids.index(t)) for r, t in rows]
    out = pd.DataFrame({"run": [r for r, _ in rows], "topic": [t for _, t in rows]})
    for k, m in mats.items():
        out[k] = [float(m[i, j]) for i, j in idx]
    return out


def means(c: Collection, s: Settings, keys=None) -> pd.DataFrame:
    """Index = runs, one column per metric key: mean over topics."""
    mats = scores(c, s, keys)
    return pd.DataFrame({k: m.mean(axis=1) for k, m in mats.items()},
                        index=pd.Index(c.run_ids, name="run"))


#: The counts the Data page tabulates (trec_eval's num_ret, num_rel, num_rel_ret).
COUNT_KEYS = tuple(k for k, spec in METRICS.items() if spec.count)


def _counts(c: Collection, rel_threshold: int) -> pd.DataFrame:
    sums = registry.means_table(c, list(COUNT_KEYS), rel_threshold=rel_threshold, topics="trec_eval")
    return sums.round().astype("int64")


def counts(c: Collection, s: Settings) -> pd.DataFrame:
    """Index = runs, one column per count (NumRet, NumRel, NumRelRet): the sum over every qrels topic at the
    sidebar's threshold, as trec_eval's num_ret / num_rel / num_rel_ret and ir_measures report them (a topic
    without a relevant document adds its retrieved documents to NumRet and nothing to the others)."""
    return memo(("counts", c.fingerprint, s.rel_threshold), lambda: _counts(c, s.rel_threshold)).copy()


def top_runs(c: Collection, s: Settings) -> np.ndarray:
    """Indices of the runs the analysis pages use: the top N by a metric (all if N = 0). N = 1 leaves
    nothing to rank, correlate or compare, so the best 2 are used, and the sidebar says so."""
    n = s.top_n
    if n == 1 and c.n_runs > 1:
        st.sidebar.warning("Top N = 1 leaves one run: nothing to rank, correlate or compare. The best 2 runs "
                           "are used; set 0 for all runs.", icon=":material/warning:")
        n = 2
    if n <= 0 or n >= c.n_runs:
        return np.arange(c.n_runs)
    key = state.expand(s.top_by, s.cutoff) if s.top_by in METRICS else s.metric_keys[0]
    try:
        m = score(c, key, s).mean(axis=1)
    except ValueError as e:
        st.sidebar.warning(f"Top N by {safe.md(key)} is off with these settings: {safe.md(e)}",
                           icon=":material/warning:")
        return np.arange(c.n_runs)
    order = np.argsort(-m, kind="stable")
    return np.sort(order[:n])


def analysis_collection(c: Collection, s: Settings) -> Collection:
    idx = top_runs(c, s)
    if len(idx) == c.n_runs:
        return c
    runs = tuple(idx.tolist())
    # ``name`` is in the key: two sessions with the same bytes under two titles get their own title back
    return memo(("subset", c.fingerprint, c.name, runs), lambda: c.subset(runs=list(runs)))


def label(key: str, c: Collection, s: Settings) -> str:
    """The canonical configured label, e.g. ``Q-measure(gains=10:5:1)``."""
    return registry.metric_label(key, c, gains=list(s.gains), beta=s.beta, penalties=list(s.penalties),
                                 rel_threshold=s.rel_threshold, **dict(s.measure_settings))


def first_and_preferred(c: Collection, s: Settings) -> tuple[np.ndarray, np.ndarray]:
    """r_1 and r_p per (run, topic): gain-independent, so cached by the data alone."""
    from evalcore import metrics as M
    return memo(("ranks", c.fingerprint), lambda: (M.first_rank(c, rel_threshold=1), M.preferred_rank(c)))


def depth_view(c: Collection, draw: Callable[[pd.DataFrame], object]) -> dict:
    """The Rankings page's "how deep" section, made once per collection and shared: r_1 and r_p read the
    data alone, so no slider moves them, and rebuilding the chart (``draw``: the figure of the r_1 / r_p
    frame), its three figures and the per-topic medians at every move was CPU spent for nothing (its
    share of a Rankings move: docs/benchmarks.md section 16.1). Keys: ``empty`` (no relevant document
    retrieved), ``fig``, ``median_rp``, ``share_later``, ``extra`` (None where no list has both),
    ``per_topic``."""
    def make() -> dict:
        r1, rp = first_and_preferred(c, None)      # type: ignore[arg-type]  # reads the data alone
        depth = pd.concat([
            pd.DataFrame({"kind": "r_1: first relevant document (RR, O-measure)", "rank": r1[r1 > 0]}),
            pd.DataFrame({"kind": "r_p: preferred rank (P, P+-measure)", "rank": rp[rp > 0]}),
        ], ignore_index=True)
        if depth.empty:
            return {"empty": True}
        both = (r1 > 0) & (rp > 0)
        # pandas' median skips NaN without numpy's "All-NaN slice" warning for topics no run finds
        per_topic = pd.DataFrame({"topic": c.topic_ids,
                                  "median r_1": pd.DataFrame(np.where(r1 > 0, r1, np.nan)).median(axis=0).to_numpy(),
                                  "median r_p": pd.DataFrame(np.where(rp > 0, rp, np.nan)).median(axis=0).to_numpy()}) \
            if c.n_runs else pd.DataFrame()
        return {"empty": False, "fig": draw(depth), "frame": depth, "median_rp": float(np.median(rp[rp > 0])),
                "share_later": float((rp[both] > r1[both]).mean()) if both.any() else None,
                "extra": float((rp[both] - r1[both]).mean()) if both.any() else None, "per_topic": per_topic}
    return memo(("depth_view", c.fingerprint, getattr(draw, "__qualname__", "")), make)
