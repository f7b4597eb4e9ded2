"""Cell formatting of the report: Monte Carlo spread as "mean ± sd [min–max]", order claims, shares."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..meta.repeat import RepeatResult

ONE_DOC = ["P+-measure", "O-measure", "NWRR", "RR"]        # 003: P+ >= O >= NWRR >= RR


def pm_cell(mean, sd, fmt="{:.2f}") -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    s = fmt.format(mean)
    if sd is not None and not (isinstance(sd, float) and math.isnan(sd)):
        s += " ± " + fmt.format(sd)
    return s


def range_cell(lo, hi, fmt="{:.1f}") -> str:
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return ""
    return f" [{fmt.format(lo)}–{fmt.format(hi)}]"


def spread_cell(t: pd.DataFrame, m: str, fmt: str, R: int, with_range: bool = True) -> str:
    if m not in t.index or t.loc[m, "n"] == 0:
        return "-"
    row = t.loc[m]
    s = pm_cell(row["mean"], row["sd"] if R > 1 else None, fmt)
    if R > 1 and with_range:
        s += range_cell(row["min"], row["max"], fmt)
    if R > 1 and row["n"] < R:
        s += f" ({int(row['n'])}/{R} defined)"
    return s


def numeric_spread(rr: RepeatResult, where: dict, figures: list[str], order: list[str]) -> pd.DataFrame:
    cols = {}
    for f in figures:
        t = rr.table(f, **where).reindex(order)
        for stat in ("mean", "sd", "min", "max"):
            cols[f"{f}_{stat}"] = t[stat].to_numpy()
    return pd.DataFrame({"metric": order, **cols})


def order_text(values: dict, names: list[str], label: Callable[[str], str], fmt="{:.1f}") -> str:
    txt = ", ".join(f"{label(m)} {fmt.format(values[m])}" for m in names)
    broken = [f"{label(a)} < {label(b)}" for a, b in zip(names, names[1:]) if values[a] < values[b]]
    return txt + (f" (in the means: {', '.join(broken)})" if broken else "")


def recall_share(rr: RepeatResult, figure: str, where: dict) -> float:
    """Share of repetitions in which both Q-measure and AveP beat every one-document metric."""
    d = rr.per_repeat
    for k, v in where.items():
        d = d[np.isclose(d[k], v)]
    w = d.pivot_table(index="repeat", columns="metric", values=figure, aggfunc="first", dropna=False)
    ok = np.minimum(w["Q-measure"], w["AP"]) >= w[ONE_DOC].max(axis=1)
    return float(ok.mean())


def share_text(sh: float, R: int) -> str:
    if R == 1:
        return "**holds**" if sh == 1 else "**does not hold**"
    n = int(round(sh * R))
    if n == R:
        return f"**holds** in all {R} repetitions"
    if n == 0:
        return f"**does not hold** in any of the {R} repetitions"
    return f"**holds in {n} of {R}** repetitions"
