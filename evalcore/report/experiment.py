"""003's experiment (Sakai 2007, shared/papers/003 Sec. 5) on any collection, with Monte Carlo spread.

:func:`run_experiment` computes every table from the data; :func:`render`
turns the result into Markdown and :func:`write_report` writes the Markdown
plus each table as CSV (numbers) and LaTeX (booktabs, as displayed).

Steps, as in 003: the top N runs by mean relaxed AP (Sec. 5.1; all runs when
the collection has fewer); Kendall's tau-b between the seven metrics in
Table 2's order and orientation (rows RR ... AveP, columns NWRR ... Q, upper
triangle), Eq. 9 test at alpha = 0.01; the swap method with bootstrap topic
samples, c = |Q| (Table 3, rows sorted by the last column); the Bootstrap
Sensitivity Method at alpha = 0.05 (Table 4); Kendall's tau of P+, P and O
under the papers' other gain settings against the default (Table 5) and
their bootstrap sensitivity (Table 6, families P+, P, O); the randomised
Tukey HSD. Swap, bootstrap and Tukey run ``repeats`` times with derived seeds
(:mod:`evalcore.meta.repeat`); every Monte Carlo figure is shown as mean +- sd
[min-max] and every order claim with the share of repetitions in which it held.

Gain settings are mapped onto the collection's K levels by
:func:`evalcore.gains.map_levels` and labelled with the values actually used
(:func:`evalcore.gains.level_label`), e.g. the default is "4:3:2:1" on four
levels and "2:1" on two.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import registry
from ..gains import level_label, resolve_gains, resolve_penalties
from ..meta import correlation_matrix, gain_correlation_table, kendall_test, subset_runs, top_runs
from ..meta.repeat import RepeatResult, order_share, repeat
from .cells import ONE_DOC, numeric_spread, order_text, range_cell, recall_share, share_text, spread_cell
from .render import render, write_report

__all__ = ["METRICS", "GAIN_SETTINGS", "Experiment", "run_experiment", "render", "write_report"]

#: 003 Table 2's metrics and order: (a) RR ... (g) Q-measure
METRICS = ["RR", "NWRR", "O-measure", "P-measure", "P+-measure", "AP", "Q-measure"]
NAMES = {"RR": "RR", "NWRR": "NWRR", "O-measure": "O-measure", "P-measure": "P-measure",
         "P+-measure": "P+-measure", "AP": "AveP", "Q-measure": "Q-measure"}
#: 003 Table 5's columns (paper notation, highest level first), mapped onto K levels
GAIN_SETTINGS = ["30:20:10", "0.3:0.2:0.1", "1:1:1", "10:5:1"]
#: 003 Table 6's families, in its order
GAIN_METRICS = ["P+-measure", "P-measure", "O-measure"]
FAMILY = {"P+-measure": "P+", "P-measure": "P", "O-measure": "O"}

# 003's numbers quoted in the comparison (Tables 2-5, four NTCIR data sets)
PAPER = {
    "boot_RR": (12, 57), "boot_Q": (31, 70),                      # Table 4, % pairs significant
    "swap_RR": (4.5, 47), "swap_Q": (16, 67),                     # Table 3, % comparisons
    "tau_O_NWRR": (0.8391, 0.9356),                               # Table 2
    "tau_RR_onedoc_5J": (0.6138, 0.7839),                         # Table 2 (d), RR vs NWRR/O/P/P+
    "tau_AveP_O_5J": 0.3563,                                      # Table 2 (d)
    "tau_gain_min": {"P+-measure": 0.7517, "P-measure": 0.8575, "O-measure": 0.6506},   # Table 5
}


@dataclass
class Table:
    """One report table: ``numeric`` (written as CSV), ``display`` (Markdown and LaTeX), a caption and notes."""
    stem: str
    title: str
    numeric: pd.DataFrame
    display: pd.DataFrame
    caption: str
    notes: list[str] = field(default_factory=list)


@dataclass
class Experiment:
    """Everything :func:`render` needs; built by :func:`run_experiment`."""
    name: str
    K: int
    level_names: tuple
    runs: list
    n_runs_total: int
    n_topics: int
    top: int
    settings: dict
    tables: list
    findings: list
    notes: list
    swap: RepeatResult | None = None
    boot: RepeatResult | None = None
    tukey: RepeatResult | None = None


def run_experiment(c, *, name: str, top: int = 30, top_by: str = "AP", B: int = 1000, tukey_B: int = 5000,
                   repeats: int = 5, seed: int = 0, gains=None, penalties=None, beta: float = 1.0,
                   progress: Callable[[str], None] | None = None) -> Experiment:
    """Compute 003's tables on collection ``c``.

    Parameters
    ----------
    c : Collection (any number of levels >= 1, at least 2 runs and 2 topics)
    name : the collection's name, used in every caption and in the text
    top, top_by : keep the ``top`` best runs by mean ``top_by`` (003: 30 by relaxed AP, i.e. AP at
        relevance threshold 1); all runs if there are fewer
    B, tukey_B : bootstrap/swap samples and Tukey permutations (003: B = 1000)
    repeats, seed : Monte Carlo repetitions and the seed they derive from (see :mod:`evalcore.meta.repeat`)
    gains, penalties, beta : the default metric settings (None: 3:2:1 and 2:3:4 mapped onto K levels)
    progress : called with a short message before each step
    """
    say = progress or (lambda msg: None)
    K = int(c.max_level)
    if c.n_runs < 2:
        raise ValueError(f"the report compares runs: it needs at least 2 runs; {name} has {c.n_runs}")
    if c.n_topics < 2:
        raise ValueError(f"the report resamples topics: it needs at least 2 topics; {name} has {c.n_topics}")
    if K < 1:
        raise ValueError(f"{name} has no relevant documents (no relevance level >= 1) in its qrels")
    if isinstance(top, bool) or int(top) != top or top < 2:
        raise ValueError(f"--top must be a whole number >= 2; got {top!r}")
    g_default = resolve_gains(gains, K)
    p_default = resolve_penalties(penalties, K)
    g_label, p_label = level_label(g_default), level_label(p_default)
    params = dict(gains=g_default.tolist(), beta=beta, penalties=p_default.tolist())

    say(f"scoring {c.n_runs} runs x {c.n_topics} topics ({K} relevance levels)")
    ranker = registry.score_matrix(c, top_by, rel_threshold=1, gains=params["gains"], beta=beta,
                                   penalties=params["penalties"])
    idx = top_runs(ranker.mean(axis=1), int(top))
    runs = [c.run_ids[i] for i in idx]
    S = subset_runs(registry.score_matrices(c, METRICS, **params), idx)
    n, T = len(runs), c.n_topics
    P = n * (n - 1) // 2
    R = int(repeats)
    notes = []
    if c.n_runs <= top:
        notes.append(f"The collection has {c.n_runs} runs and all are used (003 keeps the top 30 runs by mean "
                     "relaxed AP of larger sets).")
    else:
        notes.append(f"Top {n} of {c.n_runs} runs by mean {top_by}"
                     f"{' (relaxed: levels >= 1 count as relevant)' if top_by == 'AP' else ''}, as 003 Sec. 5.1.")
    dup = [(runs[i], runs[j]) for i in range(n) for j in range(i + 1, n)
           if all(np.array_equal(S[m][i], S[m][j]) for m in METRICS)]
    if dup:
        notes.append("Runs with identical scores on every metric: " + ", ".join(f"{a} = {b}" for a, b in dup) +
                     ". Their system scores tie (hence tau-b); they are never significantly different (ASL = 1) "
                     "and their comparisons count as swaps under 003's rule (D = 0).")
    tables: list[Table] = []
    findings: list[str] = []

    # ---- Table 2 ------------------------------------------------------------------
    say("Table 2: Kendall's tau between metrics")
    means = pd.DataFrame({m: S[m].mean(axis=1) for m in METRICS}, index=runs)
    corr = correlation_matrix(means, method="tau-b", alpha=0.01)
    crit = kendall_test(0.0, n, alpha=0.01)["tau_critical"] if n >= 2 else float("nan")
    can_sig = crit < 1
    letters = "abcdefg"
    rows_num, rows_disp = [], []
    for i, a in enumerate(METRICS):
        num = {"metric": f"({letters[i]}) {NAMES[a]}"}
        disp = {"metric": f"({letters[i]}) {NAMES[a]}"}
        for j, b in enumerate(METRICS[1:], start=1):
            col = f"({letters[j]})"
            if j <= i:
                num[col], disp[col] = np.nan, "-"
                continue
            tau = float(corr.tau.loc[a, b])
            num[col] = tau
            txt = "n/a" if math.isnan(tau) else f"{tau:.4f}".replace("0.", ".", 1)
            if can_sig and not bool(corr.significant.loc[a, b]):
                txt += "°"
            disp[col] = txt
        rows_num.append(num)
        rows_disp.append(disp)
    t2n, t2d = pd.DataFrame(rows_num), pd.DataFrame(rows_disp)
    n_nonsig = int((~corr.tidy["significant"]).sum())
    if corr.tidy["tau"].isna().any():
        undefined_t2 = ["n/a: tau is undefined because one of the two rankings ties every run."]
    else:
        undefined_t2 = []
    t2_notes = [", ".join(f"({letters[i]}) {NAMES[m]}" for i, m in enumerate(METRICS)) + "."]
    if can_sig:
        t2_notes.append(f"With n = {n} runs the Eq. 9 test is significant at alpha = 0.01 (two-tailed) for "
                        f"|tau| > {crit:.3f} (003, n = 30: 0.34). ° marks a correlation that is not significant: "
                        f"{n_nonsig} of {len(corr.tidy)} pairs.")
    else:
        t2_notes.append(f"With n = {n} runs the Eq. 9 test would need |tau| > {crit:.3f} at alpha = 0.01, which no "
                        "tau can reach: no correlation here can be significant, so none is marked.")
    t2_notes += undefined_t2
    tables.append(Table("table2_kendall", "Table 2 — Kendall's rank correlation (tau-b) between metrics",
                        t2n, t2d, f"Kendall's rank correlations (tau-b) based on the {n} runs of {name}.",
                        t2_notes))

    # ---- Table 3 ------------------------------------------------------------------
    say(f"Table 3: swap method (B = {B}, {R} repetition(s))")
    sw = repeat("swap", S, repeats=R, seed=seed, sampling="replacement", B=B, confidences=(0.95,))
    pct = sw.table("pct_comparisons", confidence=0.95)
    order3 = list(pct["mean"].sort_values(ascending=False, kind="stable", na_position="last").index)
    abs_t, max_t = sw.table("abs_diff", confidence=0.95), sw.table("max_performance", confidence=0.95)
    rel_t = sw.table("relative", confidence=0.95)
    rel_t[["mean", "sd", "min", "max"]] *= 100.0
    t3d = pd.DataFrame({
        "(i) metric": [NAMES[m] for m in order3],
        "(ii) abs. diff.": [spread_cell(abs_t, m, "{:.2f}", R, with_range=False) for m in order3],
        "(iii) max.": [spread_cell(max_t, m, "{:.4f}", R, with_range=False) for m in order3],
        "(ii)/(iii)": [spread_cell(rel_t, m, "{:.0f}%", R, with_range=False)
                       for m in order3],
        "% comparisons satisfying (ii)": [spread_cell(pct, m, "{:.1f}", R) for m in order3],
    })
    t3n = numeric_spread(sw, {"confidence": 0.95}, ["abs_diff", "max_performance", "relative", "pct_comparisons"], order3)
    t3n.insert(1, "metric_name", [NAMES[m] for m in order3])
    tables.append(Table(
        "table3_swap", f"Table 3 — swap method (replacement, c = |Q| = {T}, B = {B}, 003 rule; swap rate ≤ 5%)",
        t3n, t3d, f"Swap method results (swap rate <= 5%; {name}, {T} topics, {n} runs).",
        ["(ii): the smallest absolute difference whose bin and every larger bin have swap rate ≤ 5% ('-': no "
         "bin qualifies); (iii): the maximum performance observed, i.e. the largest mean score of any run on any "
         f"of the {2 * B} sampled topic sets (003's numbers; its prose says 'maximum overall absolute "
         "difference'); (ii)/(iii) the relative difference; last column: % of the "
         f"{P} pairs × {B} trials = {P * B:,} comparisons whose difference reaches (ii). Rows sorted by the last "
         "column, as in 003." + (f" Cells: mean ± sd over {R} repetitions with derived seeds, [min–max] for the "
                                  "last column." if R > 1 else " One seed: no Monte Carlo spread shown.")]))

    # ---- Table 4 ------------------------------------------------------------------
    say(f"Table 4: bootstrap sensitivity (B = {B}, {R} repetition(s))")
    bs = repeat("bootstrap", S, repeats=R, seed=seed, run_ids=runs, B=B, alpha=(0.05, 0.01))
    bpct = bs.table("pct_significant", alpha=0.05)
    bk = bs.table("n_significant", alpha=0.05)
    best = bs.table("estimated_diff_raw", alpha=0.05)
    bk01 = bs.table("n_significant", alpha=0.01)
    order4 = list(bpct["mean"].sort_values(ascending=False, kind="stable").index)

    def sens(m, kt, pt):
        k = kt.loc[m]
        s = f"{k['mean']:.1f}/{P}" if R > 1 else f"{int(k['mean'])}/{P}"
        s += f" = {pt.loc[m, 'mean']:.0f}%"
        if R > 1:
            s += f" ± {pt.loc[m, 'sd']:.1f}" + range_cell(pt.loc[m, "min"], pt.loc[m, "max"], "{:.0f}")
        return s

    t4d = pd.DataFrame({"metric": [NAMES[m] for m in order4],
                        "sensitivity (ASL < 0.05)": [sens(m, bk, bpct) for m in order4],
                        "estimated diff.": [spread_cell(best, m, "{:.2g}", R, with_range=False) for m in order4],
                        "ASL < 0.01": [sens(m, bk01, bs.table("pct_significant", alpha=0.01)) for m in order4]})
    t4n = numeric_spread(bs, {"alpha": 0.05}, ["n_significant", "pct_significant", "estimated_diff_raw"], order4)
    tables.append(Table("table4_bootstrap", f"Table 4 — Bootstrap Sensitivity (B = {B}, alpha = 0.05)", t4n, t4d,
                        f"Bootstrap Sensitivity results (alpha = 0.05; {name}, {n} runs, {P} pairs).",
                        ["Sensitivity: pairs with ASL < alpha out of all pairs; estimated diff.: 003 Fig. 7, the "
                         "largest over pairs of the difference at the (B alpha)-th largest bootstrap |t|."
                         + (f" Mean ± sd [min–max] over {R} repetitions." if R > 1 else "")]))

    # ---- Tables 5 and 6 ------------------------------------------------------------
    say("Tables 5 and 6: other gain settings")
    variants, gain_scores, used = {m: {} for m in GAIN_METRICS}, {}, {g_label: "default"}
    skipped = []
    for fam in GAIN_METRICS:
        gain_scores[f"{FAMILY[fam]} {g_label} (default)"] = S[fam]
    for setting in GAIN_SETTINGS:
        gv = resolve_gains(setting, K)
        lab = level_label(gv)
        if lab in used:
            skipped.append(f"{setting} (on {K} level{'s' if K > 1 else ''} it is {lab}, the same values as "
                           f"{used[lab]})")
            continue
        used[lab] = setting
        Sg = subset_runs(registry.score_matrices(c, GAIN_METRICS, gains=gv.tolist(), beta=beta), idx)
        for m in GAIN_METRICS:
            variants[m][lab] = Sg[m].mean(axis=1)
            gain_scores[f"{FAMILY[m]} {lab}"] = Sg[m]
    t5 = gain_correlation_table({m: S[m].mean(axis=1) for m in GAIN_METRICS}, variants)
    t5n = t5.reset_index().rename(columns={"index": "metric"})
    t5d = t5n.copy()
    for col in t5d.columns[1:]:
        t5d[col] = [("n/a" if math.isnan(v) else f"{v:.4f}".replace("0.", ".", 1)) for v in t5n[col]]
    map_note = (f"Gain settings are the papers' S:A:B values mapped onto this collection's {K} level"
                f"{'s' if K > 1 else ''} (evalcore.gains.map_levels; labels show the values used, highest level "
                f"first): " + ", ".join(f"{s} → {level_label(resolve_gains(s, K))}" for s in ["3:2:1"] +
                                        GAIN_SETTINGS) + ".")
    t5_notes = [map_note] + ([f"Left out: {'; '.join(skipped)}."] if skipped else [])
    undefined = "n/a: tau is undefined because one of the two rankings ties every run."
    if t5n.iloc[:, 1:].isna().to_numpy().any():
        t5_notes.append(undefined)
    tables.append(Table("table5_gains", f"Table 5 — Kendall's tau: default gain values ({g_label}) versus others",
                        t5n, t5d, f"Kendall's rank correlations: default gain values ({g_label}) versus others "
                                  f"({name}).", t5_notes))
    bs6 = repeat("bootstrap", gain_scores, repeats=R, seed=seed, B=B, alpha=0.05)
    p6, k6, e6 = (bs6.table(f, alpha=0.05) for f in ("pct_significant", "n_significant", "estimated_diff_raw"))
    order6 = []
    for fam in GAIN_METRICS:
        keys = [k for k in gain_scores if k.split(" ")[0] == FAMILY[fam]]
        order6 += sorted(keys, key=lambda k: -p6.loc[k, "mean"])            # stable: ties keep default first
    t6d = pd.DataFrame({"metric": order6, "sensitivity (ASL < 0.05)": [sens(k, k6, p6) for k in order6],
                        "estimated diff.": [spread_cell(e6, k, "{:.2g}", R, with_range=False) for k in order6]})
    t6n = numeric_spread(bs6, {"alpha": 0.05}, ["n_significant", "pct_significant", "estimated_diff_raw"], order6)
    tables.append(Table("table6_gain_bootstrap", "Table 6 — gain values and Bootstrap Sensitivity (alpha = 0.05)",
                        t6n, t6d, f"The effect of changing gain values on the Bootstrap Sensitivity (alpha = 0.05; "
                                  f"{name}).", ["Families in 003's order (P+, P, O), each sorted by sensitivity. "
                                                "The default rows are Table 4's metrics; the bootstrap samples "
                                                "are the same (same seed)."]))

    # ---- Tukey ---------------------------------------------------------------------
    say(f"randomised Tukey HSD (B = {tukey_B}, {R} repetition(s))")
    tk = repeat("tukey", S, repeats=R, seed=seed, run_ids=runs, B=tukey_B, alpha=0.05)
    tpct, tkk = tk.table("pct_significant", alpha=0.05), tk.table("n_significant", alpha=0.05)
    order_t = list(tpct["mean"].sort_values(ascending=False, kind="stable").index)
    ttd = pd.DataFrame({"metric": [NAMES[m] for m in order_t],
                        "significant pairs (alpha = 0.05)": [sens(m, tkk, tpct) for m in order_t]})
    ttn = numeric_spread(tk, {"alpha": 0.05}, ["n_significant", "pct_significant"], order_t)
    tables.append(Table("tukey", f"Randomised Tukey HSD (B = {tukey_B}, alpha = 0.05) — beyond the paper", ttn, ttd,
                        f"Randomised Tukey HSD: run pairs significantly different (alpha = 0.05; {name}).",
                        ["Permutations within each topic across all runs; the range of run means controls the "
                         "familywise error (Carterette 2012, Sakai 2012)."]))

    # ---- findings ------------------------------------------------------------------
    say("comparison with 003's findings")
    sw_pct = pct["mean"].to_dict()
    b_pct = bpct["mean"].to_dict()
    t_pct = tpct["mean"].to_dict()
    lab = NAMES.get
    cl_s = order_share(sw.per_repeat, ONE_DOC, "pct_comparisons", confidence=0.95)
    cl_b = order_share(bs.per_repeat, ONE_DOC, "pct_significant", alpha=0.05)
    cl_t = order_share(tk.per_repeat, ONE_DOC, "pct_significant", alpha=0.05)
    rep = f" (mean over {R} repetitions)" if R > 1 else ""
    findings.append(
        f"**Discriminative power, P+ ≥ O ≥ NWRR ≥ RR** (003 Tables 3-4: held on all four NTCIR data sets under both "
        f"methods). Swap method, % comparisons{rep}: {order_text(sw_pct, ONE_DOC, lab)} — the order "
        f"{share_text(cl_s['share'], R)}. Bootstrap, % pairs with ASL < 0.05: "
        f"{order_text(b_pct, ONE_DOC, lab)} — {share_text(cl_b['share'], R)}. Randomised Tukey HSD, % pairs: "
        f"{order_text(t_pct, ONE_DOC, lab)} — {share_text(cl_t['share'], R)}." +
        (" Each step, share of repetitions (swap / bootstrap / Tukey): " + "; ".join(
            f"{' ≥ '.join(lab(x) for x in k.split(' >= '))} {cl_s['steps'][k]:.0%} / {cl_b['steps'][k]:.0%} / "
            f"{cl_t['steps'][k]:.0%}" for k in cl_s["steps"]) + "." if R > 1 else ""))
    rs_b = recall_share(bs, "pct_significant", {"alpha": 0.05})
    rs_s = recall_share(sw, "pct_comparisons", {"confidence": 0.95})
    findings.append(
        f"**Recall-oriented metrics are more discriminative** (003: Q-measure and AveP beat every one-document "
        f"metric on every data set): bootstrap {share_text(rs_b, R)}, swap {share_text(rs_s, R)} here "
        f"(bootstrap: Q-measure {b_pct['Q-measure']:.1f}%, AveP {b_pct['AP']:.1f}% of pairs significant).")
    findings.append(
        f"**Absolute levels.** 003 Table 4 gives {PAPER['boot_RR'][0]}% to {PAPER['boot_RR'][1]}% of pairs "
        f"significant for RR and {PAPER['boot_Q'][0]}% to {PAPER['boot_Q'][1]}% for Q-measure across its four "
        f"data sets; here RR {b_pct['RR']:.1f}% and Q-measure {b_pct['Q-measure']:.1f}%. As 003 notes, absolute "
        "values depend heavily on the set of runs; only the order of the metrics is comparable.")
    tau = corr.tau
    on = float(tau.loc["O-measure", "NWRR"])
    rr = {m: float(tau.loc["RR", m]) for m in ["NWRR", "O-measure", "P-measure", "P+-measure"]}
    ap = {m: float(tau.loc["AP", m]) for m in ONE_DOC}
    findings.append(
        f"**Rank correlation.** O-measure vs NWRR: {on:.4f} (003 Table 2: .8391 to .9356). RR vs NWRR, O, P, P+: "
        + ", ".join(f"{lab(m)} {v:.4f}" for m, v in rr.items()) +
        " (003: as low as .6138-.7839 on NTCIR-5 Japanese: finding one highly relevant document is not finding any "
        "one). AveP vs the one-document metrics: " + ", ".join(f"{lab(m)} {v:.4f}" for m, v in ap.items()) +
        " (003: as low as .3563)." + ("" if can_sig else f" With {n} runs none of these can be significant."))
    gmin = t5.min(axis=1)
    findings.append(
        "**Gain values (Table 5).** Lowest tau against the default: " +
        ", ".join(f"{lab(m)} {v:.4f} (003: {PAPER['tau_gain_min'][m]:.4f})" for m, v in gmin.items()) +
        ". 003 found P(+) rankings fairly robust to the gain values and O-measure less so." +
        (f" {name} has {K} relevance level{'s' if K > 1 else ''}, so the settings become "
         + ", ".join(f"{s} → {level_label(resolve_gains(s, K))}" for s in ["3:2:1"] + GAIN_SETTINGS) + "."
         if K != 3 else ""))
    notes.append(f"Caveats: one collection ({T} topics, {K} relevance level{'s' if K > 1 else ''}, {n} runs) "
                 "against 003's four NTCIR CLIR sets (42-50 topics, 3 levels, 30 runs each)" +
                 (f"; {R} Monte Carlo repetitions (B = {B}), so each Monte Carlo figure carries the spread shown."
                  if R > 1 else f"; one seed (B = {B}): Monte Carlo error is not shown (use --repeats)."))
    settings = {"top": top, "top_by": top_by, "B": B, "tukey_B": tukey_B, "repeats": R, "seed": seed,
                "seeds": list(sw.seeds), "gains": g_label, "penalties": p_label, "beta": beta,
                "levels": K, "runs_used": n, "runs_total": c.n_runs, "topics": T}
    return Experiment(name=name, K=K, level_names=tuple(c.level_names or ()), runs=runs, n_runs_total=c.n_runs,
                      n_topics=T, top=top, settings=settings, tables=tables, findings=findings, notes=notes,
                      swap=sw, boot=bs, tukey=tk)
