"""The gain sweep: how a metric's ranking of the runs moves as one relevance level's gain moves
(the dashboard's Rank correlation page; :func:`evalcore.figures.gain_sweep` draws it)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .collection import Collection
from .gains import level_label, resolve_gains
from .meta.correlation import kendall_tau
from .registry import score_matrix

#: Gains the sweep visits by default: 25 values spaced evenly on a log scale from 0.1 to 30.
DEFAULT_GRID = tuple(np.round(np.geomspace(0.1, 30, 25), 3).tolist())


def gain_sweep(collection: Collection, metric: str, *, level: int, gains=None, beta: float = 1.0,
               reference="3:2:1", grid: Sequence[float] = DEFAULT_GRID) -> pd.DataFrame:
    """Kendall tau-b (Sakai 2007 Eq. 8) between the runs' ranking by ``metric`` under the ``reference``
    gains and their ranking as the gain of ``level`` takes each value of ``grid``, the other levels
    keeping ``gains`` (any form :func:`evalcore.resolve_gains` reads; None = the papers' default).

    Returns a frame ``gain, tau`` (tau NaN where the metric does not accept a gain, e.g. nERR's gains
    must grow with the level); ``attrs`` holds ``metric``, ``level``, ``reference`` (paper notation,
    highest level first, the values used) and ``gains`` (the same for the fixed levels).
    """
    K = collection.max_level
    if not (isinstance(level, (int, np.integer)) and 1 <= level <= K):
        raise ValueError(f"level must be a relevance level 1..{K} of this collection; got {level!r}")
    if len(grid) == 0 or len(grid) > 1000 or not all(np.isfinite(v) and v > 0 for v in grid):
        raise ValueError(f"grid must hold 1 to 1000 positive gains; got {list(grid)[:5]!r}"
                         f"{' ...' if len(grid) > 5 else ''}")
    base = resolve_gains(gains, K)
    ref_gains = resolve_gains(reference, K)
    ref = score_matrix(collection, metric, gains=ref_gains.tolist(), beta=beta).mean(axis=1)
    rows = []
    for v in grid:
        g = base.copy()
        g[level - 1] = float(v)
        try:
            m = score_matrix(collection, metric, gains=g.tolist(), beta=beta).mean(axis=1)
        except ValueError:          # a gain this metric does not accept: a gap in the curve
            rows.append({"gain": float(v), "tau": float("nan")})
            continue
        rows.append({"gain": float(v), "tau": kendall_tau(ref, m, variant="b")})
    out = pd.DataFrame(rows, columns=["gain", "tau"])
    out.attrs.update(metric=str(metric), level=int(level), reference=level_label(ref_gains.tolist()),
                     gains=level_label(base.tolist()))
    return out
