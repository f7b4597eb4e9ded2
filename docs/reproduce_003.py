"""Reproduce Sakai (2007, IPSJ TOD; shared/papers/003) Sec. 5 on clef2015 and write docs/reproduction.md.

    python docs/reproduce_003.py [--data ../shared/data/clef2015] [--out docs/reproduction.md] [--B 1000] [--seed 0]
    python docs/reproduce_003.py --simulated      # the same pipeline on the built-in simulated collection

Every number in the written file comes from this script. Steps, as in 003:
top 30 runs by mean relaxed AP (5.1); Kendall's tau between the seven
metrics (Table 2; tau-b since clef2015 has two identical runs; Eq. 9 test at
alpha = 0.01); the swap method with bootstrap topic samples, c = |Q|, B = 1000
(Table 3); the Bootstrap Sensitivity Method, B = 1000, alpha = 0.05
(Table 4); Kendall's tau of P+, P and O under other gain values against the
default 3:2:1 (Table 5) and their bootstrap sensitivity (Table 6); plus the
randomised Tukey HSD (B = 5000) as a modern cross-check.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import evalcore  # noqa: E402
from evalcore import meta  # noqa: E402

METRICS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]
SHORT = {"Q-measure": "Q", "AP": "AveP", "P+-measure": "P+", "P-measure": "P", "O-measure": "O", "NWRR": "NWRR",
         "RR": "RR"}
GAIN_SETTINGS = ["30:20:10", "0.3:0.2:0.1", "1:1:1", "10:5:1"]
GAIN_METRICS = ["P+-measure", "P-measure", "O-measure"]
ONE_DOC = ["P+-measure", "O-measure", "NWRR", "RR"]     # the paper's claim: P+ >= O >= NWRR >= RR


def md_table(df: pd.DataFrame, floatfmt: str = "{:.4f}") -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(cols))) + "|"]
    for row in df.itertuples(index=False, name=None):
        cells = []
        for v in row:
            if isinstance(v, (float, np.floating)):
                cells.append("-" if np.isnan(v) else floatfmt.format(v))
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def order_holds(values: dict, names: list) -> tuple[bool, str]:
    seq = [values[m] for m in names]
    ok = all(a >= b for a, b in zip(seq, seq[1:]))
    txt = " >= ".join(f"{SHORT[m]} ({values[m]:.1f})" for m in names)
    broken = [f"{SHORT[a]} < {SHORT[b]}" for a, b in zip(names, names[1:]) if values[a] < values[b]]
    return ok, txt + ("" if ok else "  — broken: " + ", ".join(broken))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "clef2015")
    ap.add_argument("--simulated", action="store_true", help="use evalcore.simulated_collection(66, 30) instead")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "reproduction.md")
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    t0 = time.perf_counter()

    if args.simulated:
        c = evalcore.simulated_collection(n_topics=66, n_runs=30, seed=0)
        source = "evalcore.simulated_collection(n_topics=66, n_runs=30, seed=0) (simulated, NOT the real data)"
    else:
        c = evalcore.load_collection(str(args.data / "qrels.txt"), str(args.data / "runs"))
        source = f"clef2015 (`{args.data.name}`: CLEF eHealth 2015 IR task, English; qrels levels 0/1/2)"
    relaxed_ap = evalcore.score_matrix(c, "AP", rel_threshold=1)
    idx = meta.top_runs(relaxed_ap.mean(axis=1), args.top)
    runs = [c.run_ids[i] for i in idx]
    S = meta.subset_runs(evalcore.score_matrices(c, METRICS), idx)
    n_runs, n_topics = S["AP"].shape
    P = n_runs * (n_runs - 1) // 2
    means = pd.DataFrame({m: S[m].mean(axis=1) for m in METRICS}, index=runs)
    dup = [(runs[i], runs[j]) for i in range(n_runs) for j in range(i + 1, n_runs)
           if all(np.array_equal(S[m][i], S[m][j]) for m in METRICS)]

    # Table 2
    corr = meta.correlation_matrix(means, method="tau-b", alpha=0.01)
    crit = meta.kendall_test(0.5, n_runs, alpha=0.01)["tau_critical"]
    t2 = corr.tau.rename(index=SHORT, columns=SHORT)
    t2 = t2.where(np.tril(np.ones(t2.shape, dtype=bool), k=-1)).iloc[1:, :-1]
    t2_fmt = t2.reset_index().rename(columns={"index": ""})
    n_nonsig = int((~corr.tidy["significant"]).sum())

    # Table 3
    sw = meta.swap_method(S, sampling="replacement", B=args.B, seed=args.seed)
    t3 = sw.summary[sw.summary.confidence == 0.95].copy()
    t3 = t3.sort_values("pct_comparisons", ascending=False, kind="stable")
    def f(fmt, v):
        return "-" if pd.isna(v) else fmt.format(v)
    t3_fmt = pd.DataFrame({"metric": t3["metric"].map(SHORT),
                           "(ii) abs. diff.": [f("{:.2f}", v) for v in t3["abs_diff"]],
                           "(iii) max.": [f("{:.4f}", v) for v in t3["max_diff"]],
                           "(ii)/(iii)": [f("{:.0%}", v) for v in t3["relative"]],
                           "% comparisons satisfying (ii)": [f("{:.1f}%", v) for v in t3["pct_comparisons"]]})

    # Table 4
    bs = meta.bootstrap_sensitivity(S, run_ids=runs, B=args.B, seed=args.seed, alpha=(0.05, 0.01))
    t4 = bs.summary[bs.summary.alpha == 0.05].sort_values("n_significant", ascending=False, kind="stable")
    t4_01 = bs.summary[bs.summary.alpha == 0.01].set_index("metric")
    t4_fmt = pd.DataFrame({"metric": t4["metric"].map(SHORT),
                           "sensitivity (ASL < 0.05)": [f"{k}/{P} = {100 * k / P:.0f}%" for k in t4["n_significant"]],
                           "estimated diff.": t4["estimated_diff"],
                           "ASL < 0.01": [f"{t4_01.loc[m, 'n_significant']}/{P}" for m in t4["metric"]]})

    # Table 5 and 6
    default_means = {m: S[m].mean(axis=1) for m in GAIN_METRICS}
    variants, gain_scores = {m: {} for m in GAIN_METRICS}, {}
    for g in GAIN_SETTINGS:
        Sg = meta.subset_runs(evalcore.score_matrices(c, GAIN_METRICS, gains=g), idx)
        for m in GAIN_METRICS:
            variants[m][g] = Sg[m].mean(axis=1)
            gain_scores[f"{SHORT[m]} {g}"] = Sg[m]
    for m in GAIN_METRICS:
        gain_scores[f"{SHORT[m]} 3:2:1 (default)"] = S[m]
    t5 = meta.gain_correlation_table(default_means, variants).rename(index=SHORT)
    t5_fmt = t5.reset_index().rename(columns={"index": ""})
    bs6 = meta.bootstrap_sensitivity(gain_scores, B=args.B, seed=args.seed, alpha=0.05).summary
    bs6["family"] = bs6["metric"].str.split(" ").str[0]
    bs6 = bs6.sort_values(["family", "n_significant"], ascending=[True, False], kind="stable")
    t6_fmt = pd.DataFrame({"metric": bs6["metric"],
                           "sensitivity (ASL < 0.05)": [f"{k}/{P} = {100 * k / P:.0f}%" for k in bs6["n_significant"]],
                           "estimated diff.": bs6["estimated_diff"]})

    # Tukey HSD cross-check
    tk = meta.tukey_hsd(S, run_ids=runs, B=5000, seed=args.seed, alpha=0.05).summary.set_index("metric")

    # findings
    swap_pct = dict(zip(t3["metric"], t3["pct_comparisons"]))
    boot_pct = dict(zip(t4["metric"], t4["pct_significant"]))
    tukey_pct = tk["pct_significant"].to_dict()
    ok_s, txt_s = order_holds(swap_pct, ONE_DOC)
    ok_b, txt_b = order_holds(boot_pct, ONE_DOC)
    ok_t, txt_t = order_holds(tukey_pct, ONE_DOC)
    recall_best = all(min(boot_pct["Q-measure"], boot_pct["AP"]) >= boot_pct[m] for m in ONE_DOC)
    recall_best_s = all(min(swap_pct["Q-measure"], swap_pct["AP"]) >= swap_pct[m] for m in ONE_DOC)
    rr_corr = {m: corr.tau.loc["RR", m] for m in ["P+-measure", "P-measure", "O-measure", "NWRR"]}
    on_corr = corr.tau.loc["O-measure", "NWRR"]
    ap_corr = {m: corr.tau.loc["AP", m] for m in ONE_DOC}
    g_min = t5.min(axis=1)

    def yes(b):
        return "**holds**" if b else "**does not hold**"

    elapsed = time.perf_counter() - t0
    out = [
        "# Reproducing Sakai 2007 (003) Sec. 5 on clef2015",
        "",
        "Written by `python docs/reproduce_003.py`; every number below comes from that script "
        f"(seed {args.seed}, {elapsed:.1f} s on this machine). Nothing here is typed by hand.",
        "",
        f"Data: {source}. Top {n_runs} runs by mean relaxed AP (003 Sec. 5.1), {n_topics} topics, "
        f"{P} run pairs. Default gains: the papers' 3:2:1 restricted to the collection's levels "
        "(evalcore keeps the lowest K values of a preset), beta = 1, NWRR penalties K-L+2.",
        "",
        ("Identical runs (same per-topic scores on every metric): " + ", ".join(f"{a} = {b}" for a, b in dup) +
         ". Their system scores tie, so Table 2 uses Kendall's tau-b; they are never significantly different "
         "(ASL = 1) and count as swaps in the 003 rule (D = 0)." if dup else
         "No two runs have identical scores on every metric." + (
             " (clef2015's KISTI_EN_RUN.6 and KISTI_EN_RUN.8 are near-copies, but their scores differ in the "
             "8th significant digit, which reorders a few documents; Kendall's tau-b is used all the same.)"
             if "KISTI_EN_RUN.6" in runs else "")),
        "",
        "## Table 2 — Kendall's rank correlation (tau-b) between metrics",
        "",
        md_table(t2_fmt),
        "",
        f"With {n_runs} runs the Eq. 9 test is significant at alpha = 0.01 (two-tailed) for |tau| > {crit:.3f} "
        f"(003 rounds this to 0.34). Pairs not significant: {n_nonsig} of {len(corr.tidy)}.",
        "",
        f"## Table 3 — swap method (replacement, c = |Q| = {n_topics}, B = {args.B}, 003 rule; 95% confidence)",
        "",
        md_table(t3_fmt),
        "",
        "(ii): smallest absolute difference whose bin and all larger bins have swap rate <= 5%; (iii): largest "
        f"difference observed over the {2 * args.B} topic samples and all pairs; last column: % of the "
        f"{P} x {args.B} comparisons with at least (ii). '-' = no bin qualifies.",
        "",
        f"## Table 4 — Bootstrap Sensitivity (B = {args.B}, alpha = 0.05)",
        "",
        md_table(t4_fmt, "{:.2g}"),
        "",
        "## Table 5 — Kendall's tau: default gain values (3:2:1) versus others",
        "",
        md_table(t5_fmt),
        "",
        "## Table 6 — gain values and Bootstrap Sensitivity (alpha = 0.05)",
        "",
        md_table(t6_fmt, "{:.2g}"),
        "",
        "## Randomised Tukey HSD (B = 5000, alpha = 0.05) — beyond the paper",
        "",
        md_table(tk.reset_index()[["metric", "n_significant", "n_pairs", "pct_significant"]]
                 .assign(metric=lambda d: d["metric"].map(SHORT)), "{:.1f}"),
        "",
        "## Comparison with the paper's findings",
        "",
        f"- **Discriminative power, P+ >= O >= NWRR >= RR.** Swap method (% comparisons at 95%): {txt_s} — "
        f"the order {yes(ok_s)}. Bootstrap (% pairs with ASL < 0.05): {txt_b} — {yes(ok_b)}. "
        f"Randomised Tukey HSD (% pairs): {txt_t} — {yes(ok_t)}. In 003 the order held on all four NTCIR "
        "data sets under both methods (Table 3, Table 4).",
        f"- **Recall-oriented metrics are more discriminative** (003: Q-measure and AveP beat every "
        f"one-document metric): bootstrap {yes(recall_best)}, swap {yes(recall_best_s)} here "
        f"(Q {boot_pct['Q-measure']:.1f}%, AveP {boot_pct['AP']:.1f}% of pairs significant).",
        f"- **Absolute levels.** 003 reports 22-57% of pairs significant for RR and 31-70% for Q-measure across "
        f"its four data sets; here RR {boot_pct['RR']:.1f}% and Q-measure {boot_pct['Q-measure']:.1f}%. As 003 "
        "notes, absolute values depend heavily on the set of runs; only the order of metrics is comparable.",
        f"- **Rank correlation.** O-measure vs NWRR: {on_corr:.4f} (003: consistently high, 0.8+ on all sets). "
        "RR vs the graded one-document metrics: " + ", ".join(f"{SHORT[m]} {v:.4f}" for m, v in rr_corr.items()) +
        " (003: not very high, .61-.78 on NTCIR-5 Japanese). AveP vs the one-document metrics: " +
        ", ".join(f"{SHORT[m]} {v:.4f}" for m, v in ap_corr.items()) + " (003: as low as .3563).",
        "- **Gain values (Table 5).** Lowest tau against the default per metric: " +
        ", ".join(f"{m} {v:.4f}" for m, v in g_min.items()) +
        ". 003 found P(+) rankings fairly robust to gains (>= .75) and O-measure less so (down to .65). "
        "clef2015 has only two relevance levels, so the presets reduce to their two lowest values "
        "(the default 3:2:1 becomes 2:1, 10:5:1 becomes 5:1) and 1:1:1 is binary relevance.",
        "",
        f"Caveats: one collection ({n_topics} evaluated medical-web topics, 2 relevance levels) against 003's four NTCIR CLIR sets "
        "(42-50 topics, 3 levels); one seed; B = 1000 as in the paper, so swap and ASL values carry Monte Carlo "
        "error of about +-1.5 percentage points.",
        "",
    ]
    args.out.write_text("\n".join(out), encoding="utf-8")
    print(f"wrote {args.out} ({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
