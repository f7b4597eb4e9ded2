"""Rankings of runs compared: Kendall's tau between metrics or gain settings, and runs ranked by their means.

Cheap and live: every move recomputes them from the cached means (:mod:`dashboard.scoring`); the correlation
matrix is a small ``st.cache_data`` result keyed by the means themselves.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from evalcore import meta as _meta
from evalcore.collection import Collection
from evalcore.gains import resolve_gains

from . import scoring
from .state import Settings


@st.cache_data(max_entries=256, show_spinner=False)
def correlation(means_df: pd.DataFrame, alpha: float = 0.01) -> tuple[pd.DataFrame, pd.DataFrame]:
    res = _meta.correlation_matrix(means_df, method="tau-b", alpha=alpha)
    return res.tau, res.significant


def kendall(x, y) -> float:
    return float(_meta.kendall_tau(np.asarray(x, float), np.asarray(y, float), variant="b"))


def kendall_critical(n: int, alpha: float) -> float:
    """Smallest |tau| significant at ``alpha`` for ``n`` runs (Sakai 2007 Eq. 9); > 1 means none can be."""
    return float(_meta.kendall_test(0.0, n, alpha=alpha).get("tau_critical", float("nan")))


def rank_comparison(c: Collection, key: str, s: Settings,
                    ref: str = "3:2:1") -> tuple[pd.DataFrame, float, list[float]]:
    """Runs ranked by ``key`` under the paper preset ``ref`` (extended to K levels, e.g. 3:2:1 as
    gain = level) and under the current gains:
    ``(df with run/value_left/value_right/rank_left/rank_right, tau, ref gains)``."""
    ref_gains = resolve_gains(ref, c.max_level).tolist()
    ref = scoring.score(c, key, replace(s, gains=tuple(ref_gains))).mean(axis=1)
    cur = scoring.score(c, key, s).mean(axis=1)
    return rank_frame(c.run_ids, ref, cur), kendall(ref, cur), ref_gains


def rank_frame(run_ids, left: np.ndarray, right: np.ndarray) -> pd.DataFrame:
    """Runs' means under two settings and their ranks (1 = best; tied means share the best rank, as
    ``pandas.Series.rank(ascending=False, method="min")``): columns run, value_left, value_right, rank_left,
    rank_right. Ranked with numpy: the frame is built once, not column by column."""
    left, right = np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)
    return pd.DataFrame({"run": list(run_ids), "value_left": left, "value_right": right,
                         "rank_left": _rank_desc(left), "rank_right": _rank_desc(right)})


def _rank_desc(x: np.ndarray) -> np.ndarray:
    """Rank 1 for the largest value, ties sharing the best (smallest) rank among them ("min" ranking)."""
    ranks = np.empty(x.size, dtype=np.int64)
    if not x.size:
        return ranks
    order = np.argsort(-x, kind="stable")
    xs = x[order]
    first = np.r_[True, xs[1:] != xs[:-1]]          # where a new value starts a group of ties
    ranks[order] = np.maximum.accumulate(np.where(first, np.arange(1, x.size + 1), 0))
    return ranks
