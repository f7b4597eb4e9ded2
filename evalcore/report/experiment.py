"""003's experiment (Sakai 2007, IPSJ TOD, Sec. 5) on any collection, with Monte Carlo spread.

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
Tukey HSD and 002's stability method; a topic bootstrap (Tables 7-8) for the
uncertainty from the topics. Swap, bootstrap, Tukey and stability run ``repeats`` times with derived seeds
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
from typing import Any

import numpy as np
import pandas as pd

from .. import registry
from ..collection import Collection
from ..gains import level_label, levels_statement, resolve_gains, resolve_penalties
from ..meta import correlation_matrix, gain_correlation_table, kendall_test, subset_runs, top_runs
from ..meta._parallel import resolve_threads
from ..meta.paper import agreement, table2_comparison, table2_findings, table5_findings
from ..meta.repeat import RepeatResult, repeat
from ..meta.topic_bootstrap import TopicBootstrapResult, claim_shares, topic_bootstrap
from ..meta.verdict import CLAIM_003_TEXT, gain_choice_verdict
from ..workload import check_all, report_work
from .cells import (
    CLAIM_STEPS,
    RECALL_STEPS,
    level_text,
    numeric_spread,
    range_cell,
    relation_text,
    shares_text,
    spread_cell,
)
from .render import render, write_report

__all__ = ["METRICS", "GAIN_SETTINGS", "Experiment", "run_experiment", "render", "write_report", "mapping_text"]

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
PAPER: dict[str, Any] = {
    "boot_RR": (12, 57), "boot_Q": (31, 70),                      # Table 4, % pairs significant
    "swap_RR": (4.5, 47), "swap_Q": (16, 67),                     # Table 3, % comparisons
    "tau_O_NWRR": (0.8391, 0.9356),                               # Table 2
    "tau_RR_onedoc_5J": (0.6138, 0.7839),                         # Table 2 (d), RR vs NWRR/O/P/P+
    "tau_AveP_O_5J": 0.3563,                                      # Table 2 (d)
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
    load: object = None                 # the collection's LoadReport (topics and run topics ignored)
    depth: int = 0                      # the tensor's depth (the longest list evaluated)
    topics: dict = field(default_factory=dict)      # method -> TopicBootstrapResult (Tables 7-8)


@dataclass
class _Setup:
    """What every table needs: the collection, the chosen runs' score matrices and the run settings."""
    c: Collection
    name: str
    K: int
    params: dict            # gains, beta, penalties, rel_threshold as used
    g_label: str
    p_label: str
    idx: list
    runs: list
    S: dict
    top: int
    top_by: str
    B: int
    tukey_B: int
    R: int
    seed: int
    say: Callable[[str], None]
    topic_resamples: int = 0
    topic_B: int = 200
    topic_seed: int = 0
    threads: int | None = None
    scheduler: object = None
    reuse: object = None

    @property
    def engine(self) -> dict:
        """How the repeated methods run (:func:`evalcore.meta.repeat`'s keywords): on Dask with
        ``scheduler``, else in memory on ``threads``; rows found in ``reuse`` are taken, not computed."""
        if self.scheduler is not None:
            return {"on_dask": True, "scheduler": self.scheduler, "reuse": self.reuse}
        return {"threads": self.threads, "reuse": self.reuse}

    @property
    def n(self) -> int:
        return len(self.runs)

    @property
    def T(self) -> int:
        return self.c.n_topics

    @property
    def P(self) -> int:
        return self.n * (self.n - 1) // 2


def _check(c, name, top):
    if c.n_runs < 2:
        raise ValueError(f"the report compares runs: it needs at least 2 runs; {name} has {c.n_runs}")
    if c.n_topics < 2:
        raise ValueError(f"the report resamples topics: it needs at least 2 topics; {name} has {c.n_topics}")
    if int(c.max_level) < 1:
        raise ValueError(f"{name} has no relevant documents (no relevance level >= 1) in its qrels")
    if isinstance(top, bool) or int(top) != top or top < 2:
        raise ValueError(f"--top must be a whole number >= 2; got {top!r}")


def _setup(c, *, name, top, top_by, B, tukey_B, repeats, seed, gains, penalties, beta, rel_threshold,
           topic_resamples, topic_B, topic_seed, say, threads=None, scheduler=None, reuse=None) -> _Setup:
    _check(c, name, top)
    # every method's calls sized together before anything is scored (docs/reliability.md, "Work products")
    check_all(report_work(min(int(top), c.n_runs), c.n_topics, B=int(B), tukey_B=int(tukey_B), repeats=int(repeats),
                          topic_resamples=int(topic_resamples), topic_B=int(topic_B), threads=resolve_threads(threads)),
              "lower B, tukey_B, repeats, topic_resamples or topic_B, or keep fewer runs (top)", what="report")
    K = int(c.max_level)
    if isinstance(rel_threshold, bool) or int(rel_threshold) != rel_threshold or not 1 <= rel_threshold <= K:
        raise ValueError(f"--rel-threshold must be a level in 1..{K} (the collection's levels); got {rel_threshold!r}")
    g_default, p_default = resolve_gains(gains, K), resolve_penalties(penalties, K)
    params = dict(gains=g_default.tolist(), beta=beta, penalties=p_default.tolist(), rel_threshold=int(rel_threshold))
    say(f"scoring {c.n_runs} runs x {c.n_topics} topics ({K} relevance levels)")
    ranker = registry.score_matrix(c, top_by, **params)
    idx = [int(i) for i in top_runs(ranker.mean(axis=1), int(top))]
    S = subset_runs(registry.score_matrices(c, METRICS, **params), idx)
    return _Setup(c=c, name=name, K=K, params=params, g_label=level_label(g_default), p_label=level_label(p_default),
                  idx=idx, runs=[c.run_ids[i] for i in idx], S=S, top=top, top_by=top_by, B=int(B),
                  tukey_B=int(tukey_B), R=int(repeats), seed=seed, say=say, topic_resamples=int(topic_resamples),
                  topic_B=int(topic_B), topic_seed=int(topic_seed),
                  threads=None if threads is None else resolve_threads(threads),   # None: each method's default
                  scheduler=scheduler, reuse=reuse)


def _display_name(metric: str) -> str:
    return NAMES.get(metric, metric)


def _selection_notes(s: _Setup) -> list[str]:
    notes = []
    thr = s.params["rel_threshold"]
    how = (" (relaxed: levels >= 1 count as relevant)" if thr == 1 else f" (levels >= {thr} count as relevant)")
    if s.c.n_runs <= s.top:
        notes.append(f"The collection has {s.c.n_runs} runs and all are used (003 keeps the top 30 runs by mean "
                     "relaxed AP of larger sets).")
    else:
        notes.append(f"Top {s.n} of {s.c.n_runs} runs by mean {s.top_by}"
                     f"{how if s.top_by in ('AP', 'RR') else ''}, as 003 Sec. 5.1.")
    dup = [(s.runs[i], s.runs[j]) for i in range(s.n) for j in range(i + 1, s.n)
           if all(np.array_equal(s.S[m][i], s.S[m][j]) for m in METRICS)]
    if dup:
        notes.append("Runs with identical scores on every metric: " + ", ".join(f"{a} = {b}" for a, b in dup) +
                     ". Their system scores tie (hence tau-b); they are never significantly different (ASL = 1) "
                     "and their comparisons count as swaps under 003's rule (D = 0).")
    if s.P < 30:
        step = 100.0 / s.P
        notes.append(f"Only {s.P} run pairs: one pair more or less significant moves a % of pairs by "
                     f"{step:.1f} points, so differences between metrics smaller than that are one pair, and an "
                     "order between metrics cannot be read from them.")
    return notes


def _tau_text(v) -> str:
    return "n/a" if math.isnan(v) else f"{v:.4f}".replace("0.", ".", 1)


def _table2(s: _Setup):
    s.say("Table 2: Kendall's tau between metrics")
    n = s.n
    means = pd.DataFrame({m: s.S[m].mean(axis=1) for m in METRICS}, index=s.runs)
    corr = correlation_matrix(means, method="tau-b", alpha=0.01)
    crit = kendall_test(0.0, n, alpha=0.01)["tau_critical"] if n >= 2 else float("nan")
    can_sig = crit < 1
    letters = "abcdefg"
    rows_num, rows_disp = [], []
    for i, a in enumerate(METRICS):
        num: dict[str, str | float] = {"metric": f"({letters[i]}) {NAMES[a]}"}
        disp: dict[str, str] = {"metric": f"({letters[i]}) {NAMES[a]}"}
        for j, b in enumerate(METRICS[1:], start=1):
            col = f"({letters[j]})"
            if j <= i:
                num[col], disp[col] = np.nan, "-"
                continue
            tau = float(corr.tau[b][a])
            num[col] = tau
            disp[col] = _tau_text(tau) + ("°" if can_sig and not bool(corr.significant.loc[a, b]) else "")
        rows_num.append(num)
        rows_disp.append(disp)
    n_nonsig = int((~corr.tidy["significant"]).sum())
    notes = [", ".join(f"({letters[i]}) {NAMES[m]}" for i, m in enumerate(METRICS)) + "."]
    if can_sig:
        notes.append(f"With n = {n} runs the Eq. 9 test is significant at alpha = 0.01 (two-tailed) for "
                     f"|tau| > {crit:.3f} (003, n = 30: 0.34). ° marks a correlation that is not significant: "
                     f"{n_nonsig} of {len(corr.tidy)} pairs.")
    else:
        notes.append(f"With n = {n} runs the Eq. 9 test would need |tau| > {crit:.3f} at alpha = 0.01, which no "
                     "tau can reach: no correlation here can be significant, so none is marked.")
    if corr.tidy["tau"].isna().any():
        notes.append("n/a: tau is undefined because one of the two rankings ties every run.")
    cap = (f"Kendall's rank correlations (tau-b) based on the {n} runs of {s.name}; ° not significant at "
           f"alpha = 0.01 (Eq. 9, two-tailed, critical |tau| = {crit:.3f})." if can_sig else
           f"Kendall's rank correlations (tau-b) based on the {n} runs of {s.name}; with {n} runs no tau can be "
           "significant at alpha = 0.01 (Eq. 9).")
    t = Table("table2_kendall", "Table 2 — Kendall's rank correlation (tau-b) between metrics",
              pd.DataFrame(rows_num), pd.DataFrame(rows_disp), cap, notes)
    return t, corr, can_sig


def _mc_words(s: _Setup) -> str:
    return (f"mean ± Monte Carlo sd [min–max] over {s.R} seeds (topics and runs fixed)" if s.R > 1 else
            "one seed: no Monte Carlo sd")


def _table3(s: _Setup):
    B, R, P, T = s.B, s.R, s.P, s.T
    s.say(f"Table 3: swap method (B = {B}, {R} repetition(s))")
    sw = repeat("swap", s.S, repeats=R, **s.engine, seed=s.seed, sampling="replacement", B=B,
                confidences=(0.95,))
    pct = sw.table("pct_comparisons", confidence=0.95)
    order = list(pct["mean"].sort_values(ascending=False, kind="stable", na_position="last").index)
    abs_t, max_t = sw.table("abs_diff", confidence=0.95), sw.table("max_performance", confidence=0.95)
    rel_t = sw.table("relative", confidence=0.95)
    rel_t[["mean", "sd", "min", "max"]] *= 100.0
    disp = pd.DataFrame({
        "(i) metric": [NAMES[m] for m in order],
        "(ii) abs. diff.": [spread_cell(abs_t, m, "{:.2f}", R, with_range=False) for m in order],
        "(iii) max.": [spread_cell(max_t, m, "{:.4f}", R, with_range=False) for m in order],
        "(ii)/(iii) %": [spread_cell(rel_t, m, "{:.0f}", R, with_range=False) for m in order],
        "% comparisons satisfying (ii)": [spread_cell(pct, m, "{:.1f}", R) for m in order],
    })
    num = numeric_spread(sw, {"confidence": 0.95}, ["abs_diff", "max_performance", "relative", "pct_comparisons"],
                         order)
    num.insert(1, "metric_name", [NAMES[m] for m in order])
    cap = (f"Swap method results (swap rate <= 5%; {s.name}, {T} topics, {s.n} runs; bootstrap topic samples with "
           f"replacement, c = {T}, B = {B} trials; cells: {_mc_words(s)}).")
    t = Table("table3_swap", f"Table 3 — swap method (replacement, c = |Q| = {T}, B = {B}, 003 rule; swap rate ≤ 5%)",
              num, disp, cap,
              ["(ii): the smallest absolute difference whose bin and every larger bin have swap rate ≤ 5% ('-': no "
               "bin qualifies); (iii): the maximum performance observed, i.e. the largest mean score of any run on "
               f"any of the {2 * B} sampled topic sets (003's numbers; its prose says 'maximum overall absolute "
               "difference'); (ii)/(iii) the relative difference in %; last column: % of the "
               f"{P} pairs × {B} trials = {P * B:,} comparisons whose difference reaches (ii). Rows sorted by the "
               "last column, as in 003." + (f" Cells: mean ± Monte Carlo sd over {R} repetitions with derived "
                                             "seeds (topics and runs fixed), [min–max] for the last column."
                                             if R > 1 else " One seed: no Monte Carlo spread shown.")])
    return t, sw, pct


def _pct_cell(pt, m, R) -> str:
    """One unit per cell: % of pairs, with the Monte Carlo sd and range in the same unit."""
    row = pt.loc[m]
    cell = f"{row['mean']:.1f}"
    if R > 1:
        cell += f" ± {row['sd']:.1f}" + range_cell(row["min"], row["max"], "{:.1f}")
    return cell


def _table4(s: _Setup):
    B, R, P = s.B, s.R, s.P
    s.say(f"Table 4: bootstrap sensitivity (B = {B}, {R} repetition(s))")
    bs = repeat("bootstrap", s.S, repeats=R, **s.engine, seed=s.seed, run_ids=s.runs, B=B, alpha=(0.05, 0.01))
    bpct = bs.table("pct_significant", alpha=0.05)
    best = bs.table("estimated_diff_raw", alpha=0.05)
    p01 = bs.table("pct_significant", alpha=0.01)
    order = list(bpct["mean"].sort_values(ascending=False, kind="stable").index)
    disp = pd.DataFrame({"metric": [NAMES[m] for m in order],
                         f"% of {P} pairs with ASL < 0.05": [_pct_cell(bpct, m, R) for m in order],
                         "estimated diff.": [spread_cell(best, m, "{:.2g}", R, with_range=False) for m in order],
                         f"% of {P} pairs with ASL < 0.01": [_pct_cell(p01, m, R) for m in order]})
    num = numeric_spread(bs, {"alpha": 0.05}, ["n_significant", "pct_significant", "estimated_diff_raw"], order)
    n01 = numeric_spread(bs, {"alpha": 0.01}, ["n_significant", "pct_significant"], order)
    num = num.join(n01.drop(columns="metric").add_suffix("_alpha_0.01"))
    cap = (f"Bootstrap Sensitivity results ({s.name}, {s.n} runs, {P} pairs, B = {B}): % of pairs with achieved "
           f"significance level below alpha = 0.05 and 0.01; estimated diff. at alpha = 0.05; cells: {_mc_words(s)}.")
    t = Table("table4_bootstrap", f"Table 4 — Bootstrap Sensitivity (B = {B}, alpha = 0.05 and 0.01)", num, disp, cap,
              ["Sensitivity: % of the pairs with ASL < alpha (the counts are in the CSV); estimated diff.: 003 Fig. "
               "7, the largest over pairs of the difference at the (B alpha)-th largest bootstrap |t|."
               + (f" Mean ± Monte Carlo sd [min–max] over {R} repetitions (seeds only: topics and runs fixed)."
                  if R > 1 else "")])
    return t, bs, bpct


def _gain_scores(s: _Setup):
    """Scores of P+, P and O under every other (mapped) gain setting (``{metric: {setting: (runs, topics)}}``), the
    same with the default under its Table 6 label, and what was left out."""
    variants: dict[str, dict[str, np.ndarray]] = {m: {} for m in GAIN_METRICS}
    gain_scores, used, skipped = {}, {s.g_label: "default"}, []
    for fam in GAIN_METRICS:
        gain_scores[f"{FAMILY[fam]} {s.g_label} (default)"] = s.S[fam]
    for setting in GAIN_SETTINGS:
        gv = resolve_gains(setting, s.K)
        lab = level_label(gv)
        if lab in used:
            skipped.append(f"{setting} (on {s.K} level{'s' if s.K > 1 else ''} it is {lab}, the same values as "
                           f"{used[lab]})")
            continue
        used[lab] = setting
        Sg = subset_runs(registry.score_matrices(s.c, GAIN_METRICS, **{**s.params, "gains": gv.tolist()}), s.idx)
        for m in GAIN_METRICS:
            variants[m][lab] = Sg[m]
            gain_scores[f"{FAMILY[m]} {lab}"] = Sg[m]
    return variants, gain_scores, skipped


def mapping_text(K: int) -> str:
    """The papers' S:A:B settings as used on K levels, e.g. "3:2:1 → 2:1, ..."."""
    return ", ".join(f"{g} → {level_label(resolve_gains(g, K))}" for g in ["3:2:1"] + GAIN_SETTINGS)


def _tables56(s: _Setup):
    s.say("Tables 5 and 6: other gain settings")
    variants, gain_scores, skipped = _gain_scores(s)
    t5 = gain_correlation_table({m: s.S[m].mean(axis=1) for m in GAIN_METRICS},
                                {m: {k: v.mean(axis=1) for k, v in per.items()} for m, per in variants.items()})
    t5n = t5.reset_index().rename(columns={"index": "metric"})
    t5d = t5n.copy()
    for col in t5d.columns[1:]:
        t5d[col] = [_tau_text(v) for v in t5n[col]]
    map_note = (f"Gain settings are the papers' S:A:B values mapped onto this collection's {s.K} level"
                f"{'s' if s.K > 1 else ''} (evalcore.gains.map_levels; labels show the values used, highest level "
                f"first): {mapping_text(s.K)}." + ("" if s.K == 3 else " These are not 003's settings: 003's numbers "
                                                    "quoted beside them come from 3-level S:A:B data."))
    notes = [map_note] + ([f"Left out: {'; '.join(skipped)}."] if skipped else [])
    if t5n.iloc[:, 1:].isna().to_numpy().any():
        notes.append("n/a: tau is undefined because one of the two rankings ties every run.")
    tab5 = Table("table5_gains", f"Table 5 — Kendall's tau: default gain values ({s.g_label}) versus others",
                 t5n, t5d, f"Kendall's rank correlations (tau-b): default gain values ({s.g_label}) versus others "
                           f"({s.name}, {s.n} runs; gain settings mapped onto {s.K} levels, highest first).", notes)
    R, P = s.R, s.P
    bs6 = repeat("bootstrap", gain_scores, repeats=R, **s.engine, seed=s.seed, B=s.B, alpha=0.05)
    p6, e6 = bs6.table("pct_significant", alpha=0.05), bs6.table("estimated_diff_raw", alpha=0.05)
    order = []
    for fam in GAIN_METRICS:
        keys = [k for k in gain_scores if k.split(" ")[0] == FAMILY[fam]]
        order += sorted(keys, key=lambda k: -p6.loc[k, "mean"])            # stable: ties keep default first
    t6d = pd.DataFrame({"metric": order, f"% of {P} pairs with ASL < 0.05": [_pct_cell(p6, k, R) for k in order],
                        "estimated diff.": [spread_cell(e6, k, "{:.2g}", R, with_range=False) for k in order]})
    t6n = numeric_spread(bs6, {"alpha": 0.05}, ["n_significant", "pct_significant", "estimated_diff_raw"], order)
    tab6 = Table("table6_gain_bootstrap", "Table 6 — gain values and Bootstrap Sensitivity (alpha = 0.05)",
                 t6n, t6d, f"The effect of changing gain values on the Bootstrap Sensitivity ({s.name}, {P} pairs, "
                           f"B = {s.B}, alpha = 0.05; cells: {_mc_words(s)}).",
                 ["Families in 003's order (P+, P, O), each sorted by sensitivity. The default rows are Table 4's "
                  "metrics; the bootstrap samples are the same (same seed)."])
    verdicts = {}
    for fam in GAIN_METRICS:
        keys = [k for k in gain_scores if k.split(" ")[0] == FAMILY[fam]]
        sub = bs6.table("pct_significant", alpha=0.05).reindex(keys)
        verdicts[fam] = gain_choice_verdict(t5.loc[fam].to_numpy(), sub["mean"], sub["min"], sub["max"], P,
                                            reference=f"the default {s.g_label}")
    t5_findings = table5_findings({m: s.S[m] for m in GAIN_METRICS}, variants, resamples=s.topic_resamples,
                                  seed=s.topic_seed, label=_display_name)
    return tab5, tab6, t5, verdicts, t5_findings


def _tukey_table(s: _Setup):
    R, P = s.R, s.P
    s.say(f"randomised Tukey HSD (B = {s.tukey_B}, {R} repetition(s))")
    tk = repeat("tukey", s.S, repeats=R, **s.engine, seed=s.seed, run_ids=s.runs, B=s.tukey_B, alpha=0.05)
    tpct = tk.table("pct_significant", alpha=0.05)
    order = list(tpct["mean"].sort_values(ascending=False, kind="stable").index)
    disp = pd.DataFrame({"metric": [NAMES[m] for m in order],
                         f"% of {P} pairs significant (alpha = 0.05)": [_pct_cell(tpct, m, R) for m in order]})
    num = numeric_spread(tk, {"alpha": 0.05}, ["n_significant", "pct_significant"], order)
    t = Table("tukey", f"Randomised Tukey HSD (B = {s.tukey_B}, alpha = 0.05) — beyond the paper", num, disp,
              f"Randomised Tukey HSD: % of run pairs significantly different (alpha = 0.05; {s.name}, {P} pairs, "
              f"B = {s.tukey_B} permutations; cells: {_mc_words(s)}).",
              ["Permutations within each topic across all runs; the range of run means controls the "
               "familywise error (Carterette 2012, Sakai 2012)."])
    return t, tk, tpct


def _stability_table(s: _Setup):
    """002's stability method (Buckley and Voorhees 2000): error rate and ties at fuzziness 5%."""
    R, T = s.R, s.T
    c = max(T // 2, 1)
    s.say(f"stability method (B = {s.B}, c = {c}, {R} repetition(s))")
    st = repeat("stability", s.S, repeats=R, **s.engine, seed=s.seed, run_ids=s.runs, B=s.B,
                fuzziness=(0.05,))
    err, ties = st.table("error_rate", fuzziness=0.05), st.table("prop_ties", fuzziness=0.05)
    for t in (err, ties):
        t[["mean", "sd", "min", "max"]] *= 100.0
    order = list(err["mean"].sort_values(kind="stable").index)
    disp = pd.DataFrame({"metric": [NAMES[m] for m in order],
                         "error rate %": [spread_cell(err, m, "{:.2f}", R) for m in order],
                         "proportion of ties %": [spread_cell(ties, m, "{:.1f}", R) for m in order]})
    num = numeric_spread(st, {"fuzziness": 0.05}, ["error_rate", "prop_ties"], order)
    return Table("stability", f"Stability (Buckley and Voorhees 2000, as 002; c = {c}, B = {s.B}, fuzziness 5%) — "
                 "beyond 003", num, disp,
                 f"Stability method ({s.name}, {s.n} runs, {s.P} pairs): {s.B} topic subsets of c = {c} of the {T} "
                 "topics drawn without replacement; a pair ties when its means differ by <= 5% of the larger; "
                 f"cells in %: {_mc_words(s)}.",
                 ["Error rate = sum over pairs of min(wins, losses) / all comparisons; lower is more stable at a "
                  "comparable proportion of ties. Rows sorted by error rate."])


#: the discriminative-power figure of each method, with its summary filter
POWER_FIGURES = {"swap": ("pct_comparisons", {"confidence": 0.95}, "swap method, % comparisons"),
                 "bootstrap": ("pct_significant", {"alpha": 0.05}, "bootstrap, % pairs with ASL < 0.05"),
                 "tukey": ("pct_significant", {"alpha": 0.05}, "randomised Tukey HSD, % pairs significant")}


def _topic_bootstraps(s: _Setup) -> dict[str, TopicBootstrapResult]:
    """Swap, bootstrap sensitivity and Tukey on ``topic_resamples`` topic samples (empty if 0)."""
    if s.topic_resamples < 1:
        return {}
    kw = {"swap": dict(sampling="replacement", B=s.topic_B, confidences=(0.95,)),
          "bootstrap": dict(run_ids=s.runs, B=s.topic_B, alpha=0.05),
          "tukey": dict(run_ids=s.runs, B=s.topic_B, alpha=0.05)}
    out = {}
    for method, args in kw.items():
        s.say(f"topic bootstrap of the {method} method ({s.topic_resamples} topic samples, B = {s.topic_B})")
        last = [-1]

        def progress(f, method=method, last=last):
            pct = int(f * 100) // 25 * 25
            if pct > last[0] and 0 < pct < 100:
                last[0] = pct
                s.say(f"  {method}: {pct}% of the topic samples")

        out[method] = topic_bootstrap(s.S, method, resamples=s.topic_resamples, seed=s.topic_seed,
                                      progress=progress, threads=s.threads, **args)
    return out


def _tb_cell(row) -> str:
    if row["n"] == 0:
        return "-"
    return f"{row['mean']:.1f} ± {row['sd']:.1f} [{row['lo']:.1f}–{row['hi']:.1f}]"


def _levels_note(spreads: dict, seeds: dict) -> str:
    """How Table 7's means run against the same figures over seeds (Tables 3-4 and Tukey), computed."""
    pairs = {}
    for k, sp in spreads.items():
        fig, where, words = POWER_FIGURES[k]
        ref = seeds[k].table(fig, **where)["mean"]
        pairs[words.split(",")[0]] = {NAMES[m]: (float(sp.loc[m, "mean"]), float(ref.get(m, np.nan)))
                                      for m in METRICS if m in sp.index}
    txt = level_text(pairs, str, "the means here", "the same figures over seeds in Tables 3-4 and Tukey")
    why = (" Repeated topics in a sample can make run differences look more consistent, which pushes these "
           "means up." if txt.startswith("The means here run higher") else "")
    return txt + why + " Read the sd, the interval's width and the shares, not the level."


def _topic_tables(s: _Setup, tbs: dict, seeds: dict) -> list[Table]:
    if not tbs:
        return []
    N, Bt = s.topic_resamples, s.topic_B
    spreads = {m: tbs[m].spread(POWER_FIGURES[m][0], **POWER_FIGURES[m][1]) for m in tbs}
    disp = pd.DataFrame({"metric": [NAMES[m] for m in METRICS],
                         **{f"{POWER_FIGURES[k][2]}": [_tb_cell(spreads[k].loc[m]) for m in METRICS] for k in tbs}})
    num = pd.DataFrame({"metric": METRICS})
    for k in tbs:
        for col in ("mean", "sd", "lo", "hi", "n"):
            num[f"{k}_{POWER_FIGURES[k][0]}_{col}"] = spreads[k].reindex(METRICS)[col].to_numpy()
    what = (f"{N} topic samples ({s.T} topics drawn with replacement), each running the method at B = {Bt}, topic "
            f"seed {s.topic_seed}")
    t7 = Table("table7_topic_uncertainty", "Table 7 — uncertainty from the topics (topic bootstrap)", num, disp,
               f"Discriminative power over topic samples ({s.name}, {s.n} runs, {s.P} pairs; {what}); cells: mean "
               "± topic-sampling sd [2.5–97.5 percentiles, taken on observed values: shares of "
               f"{s.P} pairs or of the comparisons, never interpolated], in % (of comparisons or of pairs).",
               [f"Each of the {N} topic samples draws {s.T} topics with replacement and reruns the method (B = {Bt}; "
                "swap with c = |Q| bootstrap trials inside). The ± here is the sd over topic samples: how far a "
                "figure moves on another topic set of this size (it includes the method's own Monte Carlo error "
                f"at B = {Bt}). Compare it with the Monte Carlo sd of Tables 3-4, which keeps the topics fixed. "
                + _levels_note(spreads, seeds)])
    rows_n, rows_d = [], []
    for k in tbs:
        fig, where, _ = POWER_FIGURES[k]
        d = tbs[k].differences(fig, [(a, b) for i, a in enumerate(METRICS) for b in METRICS[i + 1:]], **where)
        d.insert(0, "method", k)
        rows_n.append(d)
        if k == "bootstrap":
            for r in d.itertuples():
                rows_d.append({"a − b": f"{NAMES[r.a]} − {NAMES[r.b]}",
                               "difference in points": f"{r.mean:+.1f} ± {r.sd:.1f} [{r.lo:+.1f}–{r.hi:+.1f}]",
                               "% of topic samples: a higher / tie / b higher":
                                   f"{100 * r.a_higher:.0f} / {100 * r.tie:.0f} / {100 * r.b_higher:.0f}"
                                   + (f" ({100 * r.undefined:.0f} undefined)" if r.undefined > 0 else "")})
    t8 = Table("table8_metric_differences", "Table 8 — differences between metrics over topic samples (bootstrap)",
               pd.concat(rows_n, ignore_index=True), pd.DataFrame(rows_d),
               f"Differences in % pairs with ASL < 0.05 between metrics over topic samples ({s.name}; {what}); "
               "cells: mean ± topic-sampling sd [2.5–97.5 percentiles on observed values] in points, and the % of "
               "topic samples in "
               "which the first metric is strictly higher, equal, or lower.",
               ["The CSV has the same for the swap method and Tukey HSD (column method). A difference whose "
                "interval contains 0 cannot be told from topic sampling; equal counts of pairs are ties, never "
                "'higher'."])
    return [t7, t8]


def _claim_finding(s: _Setup, sw, bs, tk, tbs) -> str:
    lab = _display_name
    R, P = s.R, s.P
    res = {"swap": sw, "bootstrap": bs, "tukey": tk}
    parts = []
    for k, rr in res.items():
        fig, where, words = POWER_FIGURES[k]
        d = rr.per_repeat
        for key, v in where.items():
            d = d[np.isclose(d[key], v)]
        wide = d.pivot_table(index="repeat", columns="metric", values=fig, aggfunc="first", dropna=False)
        point = wide.mean(axis=0).to_dict()
        txt = (f"{words[0].upper()}{words[1:]}{' (mean over ' + str(R) + ' seeds)' if R > 1 else ''}: "
               f"{relation_text(point, CLAIM_STEPS, lab)}; "
               f"{shares_text(claim_shares(wide, CLAIM_STEPS), lab, 'seeds')}")
        if k in tbs:
            txt += "; " + shares_text(tbs[k].claim(CLAIM_STEPS, fig, **where), lab, "topic samples")
        parts.append(txt + ".")
    few = (f" With {P} pairs one pair is {100 / P:.1f} points of % pairs: an order between metrics cannot be read "
           "from differences of that size." if P < 30 else "")
    topics = ("" if tbs else " No topic bootstrap was run (--topic-resamples 0): the shares over seeds measure Monte "
              "Carlo error only, not the uncertainty from the topics.")
    return (f"**Discriminative power: 003's claim {CLAIM_003_TEXT}** (003 Tables 3-4: P+ and P more "
            "discriminative than O, O than NWRR, NWRR than RR, on all four NTCIR data sets; checked strictly here, "
            "ties reported as ties). "
            + " ".join(parts) + " Shares over seeds keep the topics fixed (Monte Carlo error); shares over topic "
            "samples say how often the claim would hold on another topic set." + few + topics)


def _recall_finding(s: _Setup, sw, bs, tbs) -> str:
    parts = []
    for k, rr in (("bootstrap", bs), ("swap", sw)):
        fig, where, words = POWER_FIGURES[k]
        d = rr.per_repeat
        for key, v in where.items():
            d = d[np.isclose(d[key], v)]
        wide = d.pivot_table(index="repeat", columns="metric", values=fig, aggfunc="first", dropna=False)
        cs = claim_shares(wide, RECALL_STEPS)
        txt = f"{words}: holds strictly in {cs['holds']:.0%} of {cs['n']} seeds"
        if k in tbs:
            ct = tbs[k].claim(RECALL_STEPS, fig, **where)
            txt += f" and {ct['holds']:.0%} of {ct['n']} topic samples"
        parts.append(txt)
    b = bs.table("pct_significant", alpha=0.05)["mean"]
    return ("**003's claim: recall-oriented metrics are more discriminative** (003: Q-measure and AveP beat every "
            "one-document metric, P-measure included, on every data set): " + "; ".join(parts) +
            f" (bootstrap: Q-measure {b['Q-measure']:.1f}%, AveP {b['AP']:.1f}% of pairs significant).")


def _tau_finding(s: _Setup, mapped: str, can_sig: bool) -> str:
    """003 Sec. 5.2's observations on Table 2, each with its verdict on this data: the taus beside 003's range over
    its four data sets, with an interval from the topic bootstrap's samples (evalcore.meta.paper)."""
    cmp = table2_comparison({m: s.S[m] for m in METRICS}, resamples=s.topic_resamples, seed=s.topic_seed)
    fs = table2_findings(cmp, label=_display_name)
    how = (f"intervals: 2.5-97.5 % of tau over the {s.topic_resamples} topic samples (topic seed {s.topic_seed})"
           if s.topic_resamples else "no topic bootstrap (--topic-resamples 0): no intervals")
    agree = sum(f["agrees"] for f in fs)
    return (f"**Rank correlation**{mapped}: {agree} of {len(fs)} of 003 Table 2's observations (Sec. 5.2, its four "
            f"data sets) agree here ({how}). " + " ".join(
                f"003: {f['claim']} - {f['verdict']}: {f['detail']}." for f in fs) +
            ("" if can_sig else f" With {s.n} runs none of these can be significant."))


def _absolute_finding(s: _Setup, b_pct: dict, tbs, mapped: str) -> str:
    """003 Table 4's range of % pairs significant for RR and Q-measure beside this data's, each with its verdict
    (:func:`evalcore.meta.paper.agreement`) and the interval over the topic bootstrap's samples."""
    spread = tbs["bootstrap"].spread(*POWER_FIGURES["bootstrap"][:1], **POWER_FIGURES["bootstrap"][1]) \
        if "bootstrap" in tbs else None
    parts, agree = [], 0
    for m, key in (("RR", "boot_RR"), ("Q-measure", "boot_Q")):
        lo, hi = ((float(spread.loc[m, "lo"]), float(spread.loc[m, "hi"])) if spread is not None and m in spread.index
                  else (float("nan"), float("nan")))
        ag = agreement(float(b_pct[m]), lo, hi, *PAPER[key], digits=1)
        agree += bool(ag["agrees"])
        parts.append(f"{_display_name(m)} {b_pct[m]:.1f}% ({PAPER[key][0]}%-{PAPER[key][1]}% in 003): {ag['words']}")
    how = (f"intervals: 2.5-97.5 % over the {s.topic_resamples} topic samples, B = {s.topic_B} on each"
           if spread is not None else "no topic bootstrap (--topic-resamples 0): no intervals")
    return (f"**Absolute levels**{mapped}: {agree} of 2 agree with 003 Table 4's range over its four data sets "
            f"({how}). " + "; ".join(parts) + ". As 003 notes, absolute values depend heavily on the set of runs; "
            "the order of the metrics is the comparable finding.")


def _gain_finding(s: _Setup, t5, verdicts, t5_findings, mapped: str) -> str:
    """003 Sec. 5.5's two observations on Table 5, each with its verdict (:func:`table5_findings`), then the
    dashboard's rule for which gains to report."""
    agree = sum(f["agrees"] for f in t5_findings)
    how = (f"intervals and shares over the {s.topic_resamples} topic samples (topic seed {s.topic_seed})"
           if s.topic_resamples else "no topic bootstrap (--topic-resamples 0): no intervals")
    return (f"**Gain values (Table 5)**{mapped}: {agree} of {len(t5_findings)} of 003's observations agree here "
            f"({how}). " + " ".join(f"003: {f['claim']} - {f['text']}." for f in t5_findings) +
            (f" {s.name} has {s.K} relevance level{'s' if s.K > 1 else ''}, so the settings become "
             f"{mapping_text(s.K)}; the comparison with 003 is between different settings." if s.K != 3 else "") +
            " Which gains to report (the dashboard's rule, evalcore.meta.gain_choice_verdict): " +
            " ".join(f"{_display_name(m)}: {v['text']}" for m, v in verdicts.items()))


def _findings(s: _Setup, corr, can_sig, sw, bs, bpct, tk, t5, tbs, verdicts, t5_findings) -> tuple[list[str], str]:
    s.say("comparison with 003's findings")
    R, n, K, T = s.R, s.n, s.K, s.T
    b_pct = bpct["mean"].to_dict()
    mapped = "" if K == 3 else f" (settings mapped onto {K} levels: not 003's)"
    findings = [_claim_finding(s, sw, bs, tk, tbs), _recall_finding(s, sw, bs, tbs)]
    findings.append(_absolute_finding(s, b_pct, tbs, mapped))
    findings.append(_tau_finding(s, mapped, can_sig))
    findings.append(_gain_finding(s, t5, verdicts, t5_findings, mapped))
    caveat = (f"Caveats: one collection ({T} topics, {K} relevance level{'s' if K > 1 else ''}, {n} runs) "
              "against 003's four NTCIR CLIR sets (42-50 topics, 3 levels, 30 runs each)" +
              (f"; {R} Monte Carlo repetitions (B = {s.B}): the ± and [min–max] of Tables 3-6 and Tukey are Monte "
               "Carlo error (seeds), not the uncertainty from the choice of topics"
               if R > 1 else f"; one seed (B = {s.B}): Monte Carlo error is not shown (use --repeats)") +
              (f"; Tables 7-8 give the uncertainty from the topics ({s.topic_resamples} topic samples)." if
               s.topic_resamples else "; no topic bootstrap (--topic-resamples 0)."))
    return findings, caveat


def run_experiment(c, *, name: str, top: int = 30, top_by: str = "AP", B: int = 1000, tukey_B: int = 5000,
                   repeats: int = 5, seed: int = 0, gains=None, penalties=None, beta: float = 1.0,
                   rel_threshold: int = 1, topic_resamples: int = 100, topic_B: int = 200, topic_seed: int = 0,
                   data: dict | None = None, progress: Callable[[str], None] | None = None,
                   threads: int | None = None, scheduler=None, reuse=None) -> Experiment:
    """Compute 003's tables on collection ``c`` (the writer is :func:`write_report`).

    Parameters
    ----------
    c : Collection (any number of levels >= 1, at least 2 runs and 2 topics)
    name : the collection's name, used in every caption and in the text
    top, top_by : keep the ``top`` best runs by mean ``top_by`` (003: 30 by relaxed AP, i.e. AP at
        relevance threshold 1); all runs if there are fewer
    B, tukey_B : bootstrap/swap samples and Tukey permutations (003: B = 1000)
    repeats, seed : Monte Carlo repetitions and the seed they derive from (see :mod:`evalcore.meta.repeat`)
    gains, penalties, beta : the default metric settings (None: 3:2:1 and 2:3:4 mapped onto K levels)
    rel_threshold : binary relevance threshold of RR, AP and the run selection (1 = relaxed, as 003)
    topic_resamples, topic_B, topic_seed : the topic bootstrap of Tables 7-8
        (:mod:`evalcore.meta.topic_bootstrap`): topic samples (0: none), B of the methods run on each
        sample, and its own seed
    data : how the collection was read (``order``, ``depth``, ``condensed``), stated in the report
    progress : called with a short message before each step
    threads : threads of every resampling method (:func:`evalcore.meta._parallel.resolve_threads`: default
        ``$EVALCORE_THREADS``, else each method's :func:`~evalcore.meta._parallel.default_threads`); the tables
        are the same for any number
    scheduler : None (in memory), or a Dask scheduler (:mod:`evalcore.meta.on_dask`: a
        ``dask.distributed.Client``, an address, "threads", ...) on which the swap, bootstrap, Tukey and
        stability repetitions of Tables 3-6 run as Dask tasks (the same tables); Kendall's tau and the topic
        bootstrap of Tables 7-8 (many small runs of the methods) stay in memory on ``threads``
    reuse : None, or a store of finished summary rows (:mod:`evalcore.meta.reuse`, e.g. an
        :class:`evalcore._cache.BytesLRU`) from which the swap, bootstrap, Tukey and stability repetitions of
        Tables 3-6 take every row computed before with the same scores, seed, B and settings, computing only
        the rest (and keeping it there); the tables are the same
    """
    say = progress or (lambda msg: None)
    s = _setup(c, name=name, top=top, top_by=top_by, B=B, tukey_B=tukey_B, repeats=repeats, seed=seed, gains=gains,
               penalties=penalties, beta=beta, rel_threshold=rel_threshold, topic_resamples=topic_resamples,
               topic_B=topic_B, topic_seed=topic_seed, say=say, threads=threads,
               scheduler=scheduler, reuse=reuse)
    notes = _selection_notes(s)
    t2, corr, can_sig = _table2(s)
    t3, sw, pct = _table3(s)
    t4, bs, bpct = _table4(s)
    t5, t6, t5df, verdicts, t5_findings = _tables56(s)
    tt, tk, tpct = _tukey_table(s)
    ts = _stability_table(s)
    tbs = _topic_bootstraps(s)
    topic_tables = _topic_tables(s, tbs, {"swap": sw, "bootstrap": bs, "tukey": tk})
    findings, caveat = _findings(s, corr, can_sig, sw, bs, bpct, tk, t5df, tbs, verdicts, t5_findings)
    settings = {"top": top, "top_by": top_by, "B": s.B, "tukey_B": s.tukey_B, "repeats": s.R, "seed": seed,
                "seeds": list(sw.seeds), "gains": s.g_label, "penalties": s.p_label, "beta": beta,
                "gains_levels": levels_statement(s.params["gains"], c.level_names),
                "penalties_levels": levels_statement(s.params["penalties"], c.level_names),
                "rel_threshold": s.params["rel_threshold"], "levels": s.K, "runs_used": s.n,
                "runs_total": c.n_runs, "topics": s.T, "data": dict(data or {}),
                "topic_resamples": s.topic_resamples, "topic_B": s.topic_B, "topic_seed": s.topic_seed}
    return Experiment(name=name, K=s.K, level_names=tuple(c.level_names or ()), runs=s.runs, n_runs_total=c.n_runs,
                      n_topics=s.T, top=top, settings=settings, tables=[t2, t3, t4, t5, t6, tt, ts, *topic_tables],
                      findings=findings,
                      notes=notes + [caveat], swap=sw, boot=bs, tukey=tk, load=c.report, depth=int(c.depth))
