"""Cell formatting of the report: Monte Carlo spread as "mean ± sd [min–max]", order claims, shares."""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import cast

import numpy as np
import pandas as pd

from ..meta.repeat import RepeatResult
from ..meta.verdict import CLAIM_003

ONE_DOC = ["P+-measure", "O-measure", "NWRR", "RR"]        # 003's one-document metrics, in its claim's order
#: 003's one-document metrics, P-measure included ("P(+)")
ONE_DOC_ALL = ["P+-measure", "P-measure", "O-measure", "NWRR", "RR"]
#: 003's claim "P(+) is more discriminative than O, O than NWRR, NWRR than RR" as strict steps (a > b)
CLAIM_STEPS = list(CLAIM_003)
#: 003's claim that the recall-oriented Q-measure and AveP beat every one-document metric, as strict steps
RECALL_STEPS = [(a, b) for a in ("Q-measure", "AP") for b in ONE_DOC_ALL]


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
    row = cast(pd.Series, t.loc[m])      # one metric's row
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
    broken = [f"{label(a)} < {label(b)}" for a, b in itertools.pairwise(names) if values[a] < values[b]]
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


def relation_text(values: dict, steps, label: Callable[[str], str], fmt="{:.1f}") -> str:
    """Each step "a > b" of a claim on point values, written with the relation that holds: >, = or <.

    >>> relation_text({"A": 70.0, "B": 70.0, "C": 50.0}, [("A", "B"), ("B", "C")], str)
    'A 70.0 = B 70.0, B 70.0 > C 50.0'
    """
    out = []
    for a, b in steps:
        va, vb = values[a], values[b]
        if math.isnan(va) or math.isnan(vb):
            out.append(f"{label(a)} vs {label(b)} undefined")
            continue
        rel = "=" if math.isclose(va, vb, rel_tol=1e-12, abs_tol=1e-12) else (">" if va > vb else "<")
        out.append(f"{label(a)} {fmt.format(va)} {rel} {label(b)} {fmt.format(vb)}")
    return ", ".join(out)


def shares_text(cs: dict, label: Callable[[str], str], unit: str) -> str:
    """A strict claim's shares (from :func:`evalcore.meta.claim_shares`) in words."""
    steps = "; ".join(f"{label(k.split(' > ')[0])} > {label(k.split(' > ')[1])}: {v['holds']:.0%} "
                      f"(tie {v['tie']:.0%}, reversed {v['fails']:.0%})" for k, v in cs["steps"].items())
    return f"holds strictly in {cs['holds']:.0%} of {cs['n']} {unit} ({steps})"


def level_text(pairs: dict, label: Callable[[str], str], what: str, than: str, unit: str = "points",
               fmt: str = "{:.1f}") -> str:
    """Where one set of figures runs against another, in words computed from them.

    ``pairs``: {group: {metric: (value, reference)}} (e.g. group = a method, value = the topic-bootstrap
    mean, reference = the seed mean). Per group, how many metrics are higher / lower / equal (within
    1e-9) and by how much at most; NaN pairs are left out. The first clause says which way all of them
    run, or that the direction is mixed, so no fixed "run higher" survives a collection where they run lower.

    >>> level_text({"swap": {"A": (30.0, 25.0), "B": (20.0, 18.5)}}, str, "the means here", "Table 3's")
    "The means here run higher than Table 3's for every metric (swap: 2 of 2 higher, by up to 5.0 points)."
    >>> t = level_text({"swap": {"A": (20.0, 25.0)}, "tukey": {"A": (12.0, 10.0)}}, str, "the means here", "the seeds'")
    >>> t.split(" (")[0]
    "The means here do not run one way against the seeds'"
    >>> t.split("(", 1)[1].split("; ")
    ['swap: 1 of 1 lower, by up to 5.0 points', 'tukey: 1 of 1 higher, by up to 2.0 points).']
    """
    parts, signs = [], set()
    for group, vals in pairs.items():
        d = np.array([v - r for v, r in vals.values() if not (math.isnan(v) or math.isnan(r))], dtype=np.float64)
        if d.size == 0:
            parts.append(f"{group}: undefined")
            continue
        eq = np.isclose(d, 0.0, rtol=0.0, atol=1e-9)
        hi, lo, n_eq = int(np.sum((d > 0) & ~eq)), int(np.sum((d < 0) & ~eq)), int(np.sum(eq))
        bits = []
        if hi:
            bits.append(f"{hi} of {d.size} higher, by up to {fmt.format(float(d[~eq & (d > 0)].max()))} {unit}")
            signs.add(1)
        if lo:
            bits.append(f"{lo} of {d.size} lower, by up to {fmt.format(float(-d[~eq & (d < 0)].min()))} {unit}")
            signs.add(-1)
        if n_eq:
            bits.append(f"{n_eq} of {d.size} equal")
            signs.add(0)
        parts.append(f"{group}: {', '.join(bits)}")
    head = what[0].upper() + what[1:]
    if signs == {1}:
        lead = f"{head} run higher than {than} for every metric"
    elif signs == {-1}:
        lead = f"{head} run lower than {than} for every metric"
    elif signs == {0}:
        lead = f"{head} equal {than} for every metric"
    elif signs == {1, 0}:
        lead = f"{head} run higher than or equal to {than}, never lower"
    elif signs == {-1, 0}:
        lead = f"{head} run lower than or equal to {than}, never higher"
    elif not signs:
        lead = f"{head} cannot be compared with {than}"
    else:
        lead = f"{head} do not run one way against {than}"
    return f"{lead} ({'; '.join(parts)})."
