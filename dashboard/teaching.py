"""The metric playground's arithmetic: one hand-built ranked list and topic.

Pure numpy/pandas over evalcore (no streamlit): a one-topic collection is
built with ``Collection.from_lists`` so every value shown comes from the same
kernels as the rest of the app; the per-rank table (g, cg, cg_I, count, BR)
is written straight from Sakai 2007's definitions, as the tests' reference loops are.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore import metrics as M
from evalcore import registry
from evalcore.collection import Collection
from evalcore.gains import resolve_gains

#: Formulas of the one-document family and its graded relatives (Sakai 2007, Sakai 2004).
FORMULAS = {
    "BR(r)": r"BR(r) = \frac{\beta\,cg(r) + count(r)}{\beta\,cg_I(r) + r}",
    "AP": r"AP = \frac{1}{R}\sum_{r} isrel(r)\,\frac{count(r)}{r}",
    "Q-measure": r"Q = \frac{1}{R}\sum_{r} isrel(r)\,BR(r)",
    "RR": r"RR = \frac{1}{r_1}",
    "O-measure": r"O = BR(r_1)",
    # the penalty is pi (beta is the blended ratio's weight): Sakai 2007 writes both as beta
    "NWRR": r"NWRR = \frac{1 - 1/\pi(M)}{r_1 - 1/\pi(L_{r_1})}",
    "P-measure": r"P = BR(r_p)",
    "P+-measure": r"P^{+} = \frac{1}{count(r_p)}\sum_{r \le r_p} isrel(r)\,BR(r)",
    "nDCG": r"nDCG@l = \frac{\sum_{r\le l} g(r)/\max(1,\log_b r)}{\sum_{r\le l} g_I(r)/\max(1,\log_b r)}",
}


def one_topic(levels: list[int], counts: list[int], level_names=None) -> Collection:
    """A collection of one run ("list") on one topic ("topic").

    ``levels``: the level at each rank (0 = non-relevant); ``counts``: the
    topic's relevant documents per level, ascending L1..LK. Counts are raised
    where the list holds more documents of a level than the topic has.
    """
    K = len(counts)
    cnt = list(counts)
    for L in range(1, K + 1):
        cnt[L - 1] = max(cnt[L - 1], sum(1 for v in levels if v == L))
    if sum(cnt) == 0:
        cnt[K - 1] = 1
    return Collection.from_lists({"list": {"topic": list(levels)}}, {"topic": [0] + cnt},
                                 level_names=level_names, name="playground")


def metric_values(c: Collection, keys, *, gains, beta, penalties, rel_threshold) -> pd.DataFrame:
    """Every metric's value on the one-topic collection, with its user model."""
    rows = []
    for key in keys:
        spec, _ = registry.parse_metric(key)
        # score_matrix passes each metric only the settings it reads
        v = float(registry.score_matrix(c, key, gains=gains, beta=beta, penalties=penalties,
                                        rel_threshold=rel_threshold)[0, 0])
        rows.append({"metric": key, "value": v, "user model": spec.user_model, "source": spec.citation})
    return pd.DataFrame(rows)


def per_rank(c: Collection, *, gains, beta, penalties=None) -> tuple[pd.DataFrame, int, int]:
    """Per-rank g(r), cg(r), cg_I(r), count(r), BR(r) and, with ``penalties`` (ascending, one per
    level), the NWRR term 1/(r - 1/pi(L)) of Sakai 2007 Sec. 3.2 at relevant ranks (WRR reads it at r_1,
    NWRR divides that by the best possible value, 1 - 1/pi(M)); and r_1, r_p (0 if none)."""
    K = c.max_level
    g_lv = resolve_gains(gains, K)
    levels = c.levels[0, 0, : int(c.lengths[0, 0])].astype(int)
    n = levels.size
    g = np.where(levels > 0, g_lv[np.maximum(levels, 1) - 1], 0.0)
    cg = np.cumsum(g)
    counts = c.level_counts[0, 1:]
    ideal = np.sort(np.repeat(g_lv, counts))[::-1]
    ideal = np.concatenate([ideal, np.zeros(max(0, n - ideal.size))])[:max(n, 1)]
    cg_i = np.cumsum(ideal)[:n]
    count = np.cumsum(levels > 0)
    r = np.arange(1, n + 1)
    br = np.where(levels > 0, (beta * cg + count) / (beta * cg_i + r), np.nan)
    r1 = int(M.first_rank(c, rel_threshold=1)[0, 0])
    rp = int(M.preferred_rank(c)[0, 0])
    names = [c.level_label(int(v)) for v in levels]
    df = pd.DataFrame({"rank": r, "level": names, "g(r)": g, "cg(r)": cg, "cg_I(r)": cg_i,
                       "count(r)": count, "BR(r)": br})
    if penalties is not None:
        pen = np.asarray(penalties, dtype=float)
        pi = np.where(levels > 0, pen[np.maximum(levels, 1) - 1], np.nan)
        df["pi(L)"] = pi
        df["1/(r - 1/pi(L))"] = np.where(levels > 0, 1.0 / (r - 1.0 / pi), np.nan)
    marks = [("r_1 and r_p" if (x == r1 and x == rp) else "r_1" if x == r1 else "r_p" if x == rp else "")
             for x in r]
    df.insert(2, "marks", marks)
    return df, r1, rp


def compare_lists(lists: dict, keys, *, gains, beta, penalties, rel_threshold,
                  level_names=None) -> pd.DataFrame:
    """Every metric of ``keys`` (rows) on each of several hand-built lists (columns, in ``lists``' order).

    ``lists``: ``{name: (levels by rank, documents per level ascending)}``, each list with its own topic
    (:func:`one_topic`). The values come from the same kernels as :func:`metric_values`.

    >>> fig3 = [1, 1, 1]       # Sakai 2007 Fig. 3's topic: one S, one A, one B document; gains 3:2:1
    >>> t = compare_lists({"X": ([1], fig3), "Y": ([0, 3], fig3), "Z": ([1, 3], fig3)},
    ...                   ["O-measure", "P-measure"], gains=[1, 2, 3], beta=1.0, penalties=[4, 3, 2],
    ...                   rel_threshold=1)
    >>> t.round(4).values.tolist()
    [[0.5, 0.5714, 0.5], [0.5, 0.5714, 0.8571]]
    """
    cols = {}
    for name, (levels, counts) in lists.items():
        c = one_topic(list(levels), list(counts), level_names=level_names)
        v = metric_values(c, keys, gains=gains, beta=beta, penalties=penalties, rel_threshold=rel_threshold)
        cols[name] = v.set_index("metric")["value"]
    out = pd.DataFrame(cols, index=pd.Index(list(keys), name="metric"))
    return out


def list_from_collection(c: Collection, run: int, topic: int, max_ranks: int = 30) -> tuple[list[int], list[int], int]:
    """A ranked list (cut after its last relevant document, at most ``max_ranks``),
    the topic's counts, and how many relevant documents fell beyond the cut."""
    lv = c.levels[run, topic, : int(c.lengths[run, topic])].astype(int)
    rel = np.flatnonzero(lv > 0)
    end = int(rel[-1]) + 1 if rel.size else min(lv.size, 5)
    cut = min(end, max_ranks)
    beyond = int((lv[cut:] > 0).sum())
    return lv[:cut].tolist(), c.level_counts[topic, 1:].astype(int).tolist(), beyond


def parse_pin(text: str, K: int, max_ranks: int = 30) -> tuple[list[int], list[int]] | None:
    """A pinned list from the address (``"1,3|1,1,1"``: levels by rank | documents per level,
    ascending), bounded to K levels and ``max_ranks`` ranks; None if absent or unreadable."""
    try:
        lv_txt, _, cnt_txt = str(text).partition("|")
        levels = [min(max(int(v), 0), K) for v in lv_txt.split(",") if v.strip()][:max_ranks]
        counts = [min(max(int(v), 0), 1000) for v in cnt_txt.split(",") if v.strip()]
    except ValueError:
        return None
    if not levels:
        return None
    return levels, (counts + [0] * K)[:K] if counts else [1] * K


#: Metrics whose formula the playground fills in with the list's numbers, step by step.
WORKED = ("P-measure", "P+-measure", "O-measure", "Q-measure", "AP", "RR", "NWRR")


def _n(x: float) -> str:
    return f"{x:g}" if float(x).is_integer() else f"{x:.4g}"


def _br(row, beta: float) -> str:
    """BR(r) of one rank written out: the formula, the numbers, the fraction, the value."""
    r, cg, cgi, cnt = int(row["rank"]), float(row["cg(r)"]), float(row["cg_I(r)"]), int(row["count(r)"])
    num, den = beta * cg + cnt, beta * cgi + r
    return (rf"BR({r}) = \frac{{\beta\,cg({r}) + count({r})}}{{\beta\,cg_I({r}) + {r}}}"
            rf" = \frac{{{_n(beta)} \cdot {_n(cg)} + {cnt}}}{{{_n(beta)} \cdot {_n(cgi)} + {r}}}"
            rf" = \frac{{{_n(num)}}}{{{_n(den)}}} = {num / den:.4f}")


def worked_steps(metric: str, table: pd.DataFrame, *, r1: int, rp: int, R: int, beta: float,
                 penalties=None, top_level: int | None = None) -> tuple[list[str], float]:
    """The formula of ``metric`` (one of :data:`WORKED`) filled in with this list's numbers, as LaTeX lines,
    and the value it arrives at (relaxed threshold: every relevant level counts). ``table`` is
    :func:`per_rank`'s; Sakai 2007 Eqs. for O, P, P+ and NWRR, Sakai 2004 for Q-measure."""
    rel = table[table["count(r)"].diff().fillna(table["count(r)"]) > 0]          # relevant ranks
    if metric in ("O-measure", "P-measure", "RR", "NWRR") and (r1 == 0 if metric != "P-measure" else rp == 0):
        return [rf"\text{{no relevant document retrieved: }} {metric.replace('-', '')} = 0"], 0.0
    if metric not in _STEPS:
        raise ValueError(f"no worked formula for {metric!r}; one of {', '.join(WORKED)}")
    return _STEPS[metric](table, rel, r1=r1, rp=rp, R=R, beta=beta, penalties=penalties, top_level=top_level)


def _brs(rows: pd.DataFrame, beta: float) -> list[float]:
    """BR(r) of each row: (beta cg(r) + count(r)) / (beta cg_I(r) + r)."""
    return [(beta * x["cg(r)"] + x["count(r)"]) / (beta * x["cg_I(r)"] + x["rank"]) for _, x in rows.iterrows()]


def _rr_steps(table, rel, *, r1, **_):
    return [rf"RR = \frac{{1}}{{r_1}} = \frac{{1}}{{{r1}}} = {1 / r1:.4f}"], 1 / r1


def _br_at_steps(metric: str):
    """O-measure = BR(r_1), P-measure = BR(r_p) (Sakai 2007)."""
    def steps(table, rel, *, r1, rp, beta, **_):
        at = r1 if metric == "O-measure" else rp
        name = "O = BR(r_1)" if metric == "O-measure" else "P = BR(r_p)"
        row = table[table["rank"] == at].iloc[0]
        v = (beta * row["cg(r)"] + row["count(r)"]) / (beta * row["cg_I(r)"] + at)
        return [rf"{name} = BR({at})", _br(row, beta)], float(v)
    return steps


def _p_plus_steps(table, rel, *, rp, beta, **_):
    if rp == 0:
        return [r"\text{no relevant document retrieved: } P^{+} = 0"], 0.0
    upto = rel[rel["rank"] <= rp]
    brs = _brs(upto, beta)
    k = int(upto["count(r)"].iloc[-1])
    lines = [_br(x, beta) for _, x in upto.iterrows()]
    terms = " + ".join(f"{b:.4f}" for b in brs)
    v = sum(brs) / k
    lines.append(rf"P^{{+}} = \frac{{1}}{{count(r_p)}}\sum_{{r \le r_p}} isrel(r)\,BR(r) = \frac{{1}}{{{k}}}"
                 rf"({terms}) = {v:.4f}")
    return lines, float(v)


def _q_steps(table, rel, *, R, beta, **_):
    brs = _brs(rel, beta)
    lines = [_br(x, beta) for _, x in rel.iterrows()]
    v = sum(brs) / R if R else 0.0
    lines.append(rf"Q = \frac{{1}}{{R}}\sum_r isrel(r)\,BR(r) = \frac{{1}}{{{R}}}"
                 rf"({' + '.join(f'{b:.4f}' for b in brs) or '0'}) = {v:.4f}")
    return lines, float(v)


def _ap_steps(table, rel, *, R, **_):
    parts = [(int(x["count(r)"]), int(x["rank"])) for _, x in rel.iterrows()]
    v = sum(c / r for c, r in parts) / R if R else 0.0
    frac = " + ".join(rf"\frac{{{c}}}{{{r}}}" for c, r in parts) or "0"
    return [rf"AP = \frac{{1}}{{R}}\sum_r isrel(r)\,\frac{{count(r)}}{{r}} = \frac{{1}}{{{R}}}({frac})"
            rf" = {v:.4f}"], float(v)


def _nwrr_steps(table, rel, *, r1, penalties, top_level, **_):
    row = table[table["rank"] == r1].iloc[0]
    pi_l = float(row["pi(L)"])
    pi_m = float(penalties[(top_level or len(penalties)) - 1])
    v = (1 - 1 / pi_m) / (r1 - 1 / pi_l)
    return [rf"NWRR = \frac{{1 - 1/\pi(M)}}{{r_1 - 1/\pi(L_{{r_1}})}} = \frac{{1 - 1/{_n(pi_m)}}}"
            rf"{{{r1} - 1/{_n(pi_l)}}} = \frac{{{1 - 1 / pi_m:.4f}}}{{{r1 - 1 / pi_l:.4f}}} = {v:.4f}"], float(v)


#: metric -> its worked steps (one function per formula)
_STEPS = {"RR": _rr_steps, "O-measure": _br_at_steps("O-measure"), "P-measure": _br_at_steps("P-measure"),
          "P+-measure": _p_plus_steps, "Q-measure": _q_steps, "AP": _ap_steps, "NWRR": _nwrr_steps}


# -- the lesson: Sakai 2007's story in four steps (views/lesson.py) ------------------------------------------
#: Sakai 2007's default gains (B, A, S ascending: gain(S) = 3, gain(A) = 2, gain(B) = 1) and WRR penalties
#: (beta(S) = 2, beta(A) = 3, beta(B) = 4), Sakai 2007 Sec. 3; every printed value of Fig. 2/3 uses them.
GAINS_003 = (1.0, 2.0, 3.0)
PENALTIES_003 = (4.0, 3.0, 2.0)
#: The gains Sakai 2007 Sec. 3.2 names for a user who prefers System X to Y under O-measure: S:A:B = 2:1.5:1.
GAINS_FLIP = (1.0, 1.5, 2.0)
#: The systems of Sakai 2007 Fig. 3 (Topic 3: one S-, one A- and one B-relevant document), in the lesson's order.
LESSON_SYSTEMS = ("X", "Y", "Z", "inverse", "ideal")
#: The one-document metrics 003 compares (Sec. 3), in the lesson's column order.
LESSON_METRICS = ("RR", "O-measure", "P-measure", "P+-measure", "NWRR")
#: Every value 003 prints for Fig. 3's systems (Sec. 3.2-3.3), at its printed precision (two decimals):
#: O = P = 0.50 for X, O = P = 4/7 = 0.57 for Y, O = 0.50 and P = 6/7 = 0.86 for Z, P = 1 and
#: P+ = (2/4 + 5/7 + 1)/3 = 0.74 for the perfect inverse.
PAPER_FIG3 = {"X": {"O-measure": 0.50, "P-measure": 0.50}, "Y": {"O-measure": 0.57, "P-measure": 0.57},
              "Z": {"O-measure": 0.50, "P-measure": 0.86}, "inverse": {"P-measure": 1.00, "P+-measure": 0.74}}
SHORT = {"RR": "RR", "O-measure": "O", "P-measure": "P", "P+-measure": "P+", "NWRR": "NWRR"}


def _fig3() -> tuple[Collection, int]:
    from evalcore.simulate import paper_examples
    c = paper_examples()
    return c, c.topic_ids.index("T3")


def list_text(levels, names=("B", "A", "S")) -> str:
    """A ranked list in letters, "-" for a non-relevant document: [0, 3] -> "-, S"."""
    return ", ".join(names[int(v) - 1] if v > 0 else "-" for v in levels)


def fig3_values(metrics=LESSON_METRICS, *, gains=GAINS_003, penalties=PENALTIES_003, beta: float = 1.0
                ) -> pd.DataFrame:
    """Per-topic values of Sakai 2007 Fig. 3's systems on Topic 3 (not means over the worked-examples topics):
    rows :data:`LESSON_SYSTEMS`, columns ``list`` then one per metric key."""
    c, j = _fig3()
    idx = [c.run_ids.index(r) for r in LESSON_SYSTEMS]
    out = pd.DataFrame(index=pd.Index(LESSON_SYSTEMS, name="system"))
    out["list"] = [list_text(c.levels[i, j, : int(c.lengths[i, j])]) for i in idx]
    for key in metrics:
        m = registry.score_matrix(c, key, gains=list(gains), beta=beta, penalties=list(penalties))
        out[key] = m[idx, j]
    return out


def fig3_table(extra=(), **kw) -> pd.DataFrame:
    """:func:`fig3_values` under RR, O, P, P+, NWRR and the ``extra`` metric keys, each of the first five
    followed by "<metric> (003)": the value 003 prints (NaN where it prints none)."""
    keys = list(LESSON_METRICS) + [k for k in extra if k not in LESSON_METRICS]
    v = fig3_values(keys, **kw)
    cols = {"list": v["list"]}
    for key in keys:
        cols[key] = v[key]
        if key in LESSON_METRICS and any(key in p for p in PAPER_FIG3.values()):
            cols[f"{key} (003)"] = [PAPER_FIG3.get(s, {}).get(key, np.nan) for s in LESSON_SYSTEMS]
    return pd.DataFrame(cols, index=v.index)


def o_flip(gain_sets: dict[str, tuple[float, ...]], systems=("X", "Y")) -> pd.DataFrame:
    """O-measure of ``systems`` under each named gain vector (ascending B, A, S): Sakai 2007 Sec. 3.2's point that
    Y beats X under 3:2:1 and X beats Y under 2:1.5:1. Rows: systems; columns: the names."""
    c, j = _fig3()
    idx = [c.run_ids.index(r) for r in systems]
    return pd.DataFrame({name: registry.score_matrix(c, "O-measure", gains=list(g))[idx, j]
                         for name, g in gain_sets.items()}, index=pd.Index(systems, name="system"))


def fig3_ranks(gains=GAINS_003) -> pd.DataFrame:
    """r_1 (first relevant document), r_p (preferred rank: the first document of the highest level the list
    holds, Sakai 2007 Sec. 3.3), O = BR(r_1) and P = BR(r_p) for Fig. 3's systems."""
    c, j = _fig3()
    idx = [c.run_ids.index(r) for r in LESSON_SYSTEMS]
    r1, rp = M.first_rank(c, rel_threshold=1)[idx, j], M.preferred_rank(c)[idx, j]
    v = fig3_values(("O-measure", "P-measure"), gains=gains)
    return pd.DataFrame({"list": v["list"], "r_1": r1.astype(int), "r_p": rp.astype(int),
                         "O = BR(r_1)": v["O-measure"], "P = BR(r_p)": v["P-measure"]}, index=v.index)


def preferred_rank_summary(r1: np.ndarray, rp: np.ndarray) -> dict:
    """How far r_p lies below r_1 on a collection (Sakai 2007 Appendix, Tables 7-9): over the (run, topic) pairs
    with a relevant document retrieved, the share with r_p > r_1 (P and P+ then read past the first
    relevant document, O and NWRR do not), the median and largest r_p - r_1 among those, and the largest r_p."""
    r1, rp = np.asarray(r1), np.asarray(rp)
    found = r1 > 0
    n = int(found.sum())
    later = found & (rp > r1)
    gap = (rp - r1)[later]
    return {"pairs": n, "later": int(later.sum()), "share": float(later.sum() / n) if n else float("nan"),
            "median_gap": float(np.median(gap)) if gap.size else 0.0, "max_gap": int(gap.max()) if gap.size else 0,
            "max_rp": int(rp[found].max()) if n else 0}


#: The metric pairs of Sakai 2007 Table 2 the lesson shows (RR against the graded ones; O against its neighbours).
TAU_PAIRS = (("RR", "NWRR"), ("RR", "O-measure"), ("RR", "P+-measure"), ("O-measure", "NWRR"),
             ("O-measure", "P+-measure"), ("P-measure", "P+-measure"))


def tau_pairs(tau: pd.DataFrame, sig: pd.DataFrame, pairs=TAU_PAIRS) -> pd.DataFrame:
    """Kendall's tau of :data:`TAU_PAIRS` present in ``tau`` (a metric x metric matrix) with its significance
    (``sig``, same shape, booleans)."""
    rows = [{"pair": f"{SHORT.get(a, a)} - {SHORT.get(b, b)}", "tau": float(tau.loc[a, b]),
             "significant (alpha 0.01)": "yes" if bool(sig.loc[a, b]) else "no"}
            for a, b in pairs if a in tau.index and b in tau.index]
    return pd.DataFrame(rows, columns=["pair", "tau", "significant (alpha 0.01)"]).set_index("pair")


def fig3_presets(K: int, names: list[str]) -> tuple[dict, list[int], str]:
    """Sakai 2007 Fig. 3's systems X, Y, Z (and the inverse and the ideal list) on a topic with one document
    of each of the top three levels, for any K: ``(presets, counts, what)``, presets name -> (levels,
    description); the labels name the levels actually used (``names[L - 1]`` for level L), and the topic's
    counts match them (R = min(K, 3))."""
    top = list(range(K, max(K - 3, 0), -1))           # e.g. [3, 2, 1] for K = 3, [4, 3, 2] for K = 4
    S, A, B = (top + [top[-1]] * 3)[:3]
    n = lambda L: names[L - 1]                        # noqa: E731
    counts = [1 if L in top else 0 for L in range(1, K + 1)]
    presets = {
        "X": ([B], f"a {n(B)} document at rank 1"),   # why each is worth showing: FIG3_WHY below
        "Y": ([0, S], f"non-relevant, then an {n(S)} document"),
        "Z": ([B, S], f"{n(B)} at rank 1, {n(S)} at rank 2: the system P-measure rewards"),
        "inverse": (top[::-1], "the perfect inverse: the ideal list upside down"),
        "ideal": (top, "the ideal list"),
    }
    what = ("one " + ", one ".join(n(L) for L in top) + " document")
    if K < 3:
        what += f" (this collection has {K} level{'s' if K > 1 else ''}, so X, Y and Z share levels)"
    elif K > 3:
        what += f" (the top three of {K} levels; lower levels absent)"
    return presets, counts, what


#: One line a teacher can say for each of the playground's presets (Sakai 2007 Sec. 3.2-3.3).
FIG3_WHY = {
    "X": "only a partially relevant document, at the top: O = P, both reward finding something at once",
    "Y": "the best document, one rank down: O = P again, both the same for a user who stops at r_1",
    "Z": "a weak hit first, the best second: O stops at rank 1, P goes on to the best one - P > O",
    "inverse": "every document found, best last: P = 1, yet P+ < 1 - why P+ averages BR down to r_p",
    "ideal": "the ideal list: every metric is 1",
}
