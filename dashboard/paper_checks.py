"""Sakai 2007's printed numbers beside the data's, each with a verdict a student can read.

Wherever a page shows a number next to the paper's (the lesson's steps, the Overview's and the Rank
correlation page's Kendall taus), it says whether the two agree. A worked example is exact, so "agrees"
means the same value at the paper's two decimals; a figure computed on the data has a topic-bootstrap
interval (:data:`TOPIC_SAMPLES` samples of the topics, evalcore.meta.paper), and agrees when it lies in
the range 003 prints over its four data sets or its interval reaches that range
(:func:`evalcore.meta.paper.agreement`). Verdicts are words first ("agrees", "differs"), the box colour
second, so they read in greyscale too.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.meta import paper

from . import scoring, teaching, widgets
from .stores import memo

#: Topic samples behind every interval of this module (and their seed): ~50 ms for Table 2's seven metrics
#: on 30 runs x 50 topics, so the Overview recomputes them at every gain move.
TOPIC_SAMPLES, TOPIC_SEED = 200, 0

#: The paper as a reader sees it named (evalcore.meta.paper's words default to the report's "003").
PAPER = "Sakai 2007"
#: A status of evalcore.meta.paper.agreement, in a table cell.
SHORT_WORDS = {"inside": "yes", "near": "yes, within the uncertainty", "above": "no: higher than the paper",
               "below": "no: lower than the paper", "undefined": "no value here"}


def short(key: str) -> str:
    """A metric's short name in the lesson's tables (O, P, P+), else 003's (AveP for AP)."""
    return teaching.SHORT.get(key, "AveP" if key == "AP" else key)


# -- worked examples: exact values at the paper's precision ---------------------------------------------------
def fig3_agreement(t: pd.DataFrame) -> tuple[list[str], str]:
    """Per system of :func:`dashboard.teaching.fig3_table`, whether every value 003 prints for it is the value
    computed, at 003's two decimals ("yes (2 of 2)", "no: P 0.85, paper 0.86", an en dash where 003 prints
    none); and one sentence for the whole table."""
    cells, same, total, wrong = [], 0, 0, []
    for system in t.index:
        printed = teaching.PAPER_FIG3.get(system, {})
        off = [f"{teaching.SHORT[k]} {t.loc[system, k]:.2f}, paper {v:.2f}" for k, v in printed.items()
               if f"{t.loc[system, k]:.2f}" != f"{v:.2f}"]
        total += len(printed)
        same += len(printed) - len(off)
        wrong += [f"{system}: {o}" for o in off]
        cells.append("\u2013" if not printed else f"yes ({len(printed)} of {len(printed)})" if not off
                     else "no: " + "; ".join(off))
    text = (f"**Agrees with Sakai 2007**: all {total} values it prints for Fig. 3 come out the same here, to its "
            "two decimals (a worked example: no data, no uncertainty)." if not wrong else
            f"**Differs from Sakai 2007** on {total - same} of {total} printed values: " + "; ".join(wrong) + ".")
    return cells, text


def o_flip_agreement(f: pd.DataFrame, flip: str, default: str) -> str:
    """Sakai 2007 Sec. 3.2 on step 2's table (rows X, Y; a column per gain setting): Y beats X under the default gains
    (Fig. 3 prints O(Y) 0.57, O(X) 0.50) and X beats Y under 2:1.5:1 (003 names the gains, prints no value)."""
    x3, y3, xf, yf = f.loc["X", default], f.loc["Y", default], f.loc["X", flip], f.loc["Y", flip]
    ok3 = f"{x3:.2f}" == "0.50" and f"{y3:.2f}" == "0.57"
    okf = xf > yf
    first = (f"under 3:2:1 Y beats X, {y3:.2f} to {x3:.2f}, the values the paper prints (0.57, 0.50)" if ok3 else
             f"under 3:2:1 O(Y) = {y3:.2f} and O(X) = {x3:.2f}, where the paper prints 0.57 and 0.50")
    second = (f"under 2:1.5:1 X beats Y, {xf:.2f} to {yf:.2f}, as the paper says it would" if okf else
              f"under 2:1.5:1 X does not beat Y ({xf:.2f} against {yf:.2f}), as the paper says it would")
    word = "Agrees with Sakai 2007 Sec. 3.2" if ok3 and okf else "Differs from Sakai 2007 Sec. 3.2"
    return f"**{word}**: {first}; {second}."


# -- figures computed on the data: an interval from the topics -------------------------------------------------
def max_rp(c, rp: np.ndarray) -> dict:
    """The collection's largest preferred rank r_p beside Sakai 2007 Tables 7-9's (852-980 on its four data sets):
    ``value``, ``lo``, ``hi`` (a topic-bootstrap interval of the largest per-topic r_p), ``agrees`` and
    ``text``."""
    rp = np.asarray(rp, dtype=np.float64)
    per_topic = np.where(rp > 0, rp, np.nan)
    per_topic = np.array([np.nanmax(col) if np.isfinite(col).any() else np.nan for col in per_topic.T])
    v, lo, hi = memo(("max_rp_interval", c.fingerprint, TOPIC_SAMPLES, TOPIC_SEED),
                     lambda: paper.topic_interval(per_topic, np.max, resamples=TOPIC_SAMPLES, seed=TOPIC_SEED))
    plo, phi = min(paper.MAX_RP.values()), max(paper.MAX_RP.values())
    ag = paper.agreement(v, lo, hi, plo, phi, digits=0, paper=PAPER)
    word = "Agrees with" if ag["agrees"] else "Differs from"
    lists = int(c.depth) if hasattr(c, "depth") else None
    text = (f"**{word} Sakai 2007 Tables 7-9** ({ag['verdict']}): the largest r_p here, {v:,.0f} ({lo:,.0f}-{hi:,.0f} "
            f"on other topic sets of this size), is {ag['detail']}. The paper's point: P and P+ may read hundreds of "
            "ranks down a list to its best document." + (f" (Lists here are up to {lists:,} documents long.)"
                                                          if lists else ""))
    return {"value": v, "lo": lo, "hi": hi, "agrees": ag["agrees"], "text": text}


def table2(c, s) -> pd.DataFrame:
    """:func:`evalcore.meta.paper.table2_comparison` on the analysed runs under the sidebar's settings (Table 2's
    seven metrics, whether chosen or not), kept per data and per setting the metrics read."""
    keys = list(paper.TABLE2_ORDER)
    settings = tuple(scoring.relevant(k, s) for k in keys)
    return memo(("table2_vs_003", c.fingerprint, settings, TOPIC_SAMPLES, TOPIC_SEED),
                lambda: paper.table2_comparison({k: scoring.score(c, k, s) for k in keys},
                                                resamples=TOPIC_SAMPLES, seed=TOPIC_SEED, paper=PAPER))


def tau_frame(cmp: pd.DataFrame, pairs=None) -> pd.DataFrame:
    """The pairs of ``cmp`` (all, or ``pairs`` in their order, either orientation) as a table for a reader:
    tau here, its interval over topic samples, 003's range over its four data sets, the verdict."""
    rows = {(r.metric_a, r.metric_b): r for r in cmp.itertuples(index=False)}
    want = list(rows) if pairs is None else [p if p in rows else p[::-1] for p in pairs]
    out = []
    for a, b in want:
        if (a, b) not in rows:
            continue
        r = rows[(a, b)]
        out.append({"pair": f"{short(a)} - {short(b)}", "tau here": f"{r.tau:.3f}",
                    "other topic sets (95 %)": f"{r.lo:.3f}-{r.hi:.3f}",
                    "paper (4 data sets)": f"{paper.paper_number(r.paper_lo)}-{paper.paper_number(r.paper_hi)}",
                    "agrees?": SHORT_WORDS[r.status]})
    return pd.DataFrame(out, columns=["pair", "tau here", "other topic sets (95 %)", "paper (4 data sets)",
                                      "agrees?"]).set_index("pair")


def findings(cmp: pd.DataFrame, *, compact: bool = False) -> None:
    """Sakai 2007 Sec. 5.2's observations on Table 2, each with its verdict on this data, in one box: green when every
    one agrees, yellow when one differs (the words say which; the colour only repeats them)."""
    fs = paper.table2_findings(cmp, label=short)
    if not fs:
        return
    ok = all(f["agrees"] for f in fs)
    lines = [f"- **{f['verdict'].capitalize()}** - the paper: {f['claim']}. Here: {f['detail']}." for f in fs]
    head = (f"**Sakai 2007 Table 2 on this data: {sum(f['agrees'] for f in fs)} of {len(fs)} of its observations "
            "agree.**")
    how = (f"tau-b between the run rankings ({cmp.attrs.get('n_runs', '?')} runs); the interval: 2.5-97.5 % of tau "
           f"over {TOPIC_SAMPLES} topic samples (the topics drawn with replacement): where another topic set of "
           "this size could put it. The paper's range: its four NTCIR data sets.")
    widgets.note("text", text=head + "\n" + "\n".join(lines))
    (st.success if ok else st.warning)(head + "\n" + "\n".join(lines) + ("" if compact else f"\n\n{how}"), icon=None)
    if compact:
        widgets.caption(how)


def overview_line(cmp: pd.DataFrame) -> str:
    """One sentence for the Overview's heatmap: how many of 003's Table 2 observations agree on this data, the
    lowest tau with its interval."""
    fs = paper.table2_findings(cmp, label=short)
    if not fs:
        return ""
    bad = [f["name"] for f in fs if not f["agrees"]]
    verdict = ("agrees with all " + str(len(fs)) + " of its observations" if not bad else
               f"differs on {len(bad)} of its {len(fs)} observations ({', '.join(bad)})")
    return (f"**Against Sakai 2007 Table 2**, this data {verdict} ({fs[0]['detail']}); every pair with its verdict "
            "on the Rank correlation page.")
