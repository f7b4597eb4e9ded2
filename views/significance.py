"""Significance & topic sets: pair statistics, power and topic set size. Live with the sidebar, no button.

Every run pair with mean difference, CI, effect size, raw and adjusted p-values
for the chosen test and correction (evalcore.meta.pair_statistics, one call
with every test, so switching test/correction/alpha/CI recomputes nothing),
with a forest plot for one run and, below it, the results table for a paper
(evalcore.compare: every run against that baseline, with downloads as CSV,
Markdown and LaTeX); discriminative power per metric with the
Monte Carlo spread over seeds for the resampled tests; a topic set size
calculator (evalcore.meta.topicsets, Sakai 2016) with its power curve.
Quick pass + refine through live.live_meta, as the other meta pages. The page's
computations, labels, table shaping and settings (``sg_*``, ``ts_*``, copied into their
widgets ``_w_*`` each run) are in dashboard/significance.py.
"""
import functools

import pandas as pd
import streamlit as st

from dashboard import live, meta_store, safe, scoring, shell, state, widgets
from dashboard import significance as sig
from evalcore import figures

ss = st.session_state
s, full, c = shell.setup_analysis()
w = sig.widget_key
sig.bind_settings(ss, state.SIGNIFICANCE_DEFAULTS)      # in the address too (dashboard/state.py)
choose = functools.partial(sig.choose, ss)
TESTS = sig.TEST_LABELS

st.title("Significance & topic sets")
n_pairs = c.n_runs * (c.n_runs - 1) // 2
widgets.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs ({n_pairs} pairs) · {c.n_topics} topics")
if c.n_runs < 2:
    st.warning(f"Significance tests compare run pairs: they need at least two runs; this collection has "
               f"{c.n_runs}.")
    st.stop()

with st.expander("What is on this page (tests, corrections, V_E, resampling)"):
    widgets.markdown(sig.ABOUT)

# -- shared controls -----------------------------------------------------------------------------
c1, c2, c3 = st.columns([1.4, 1.4, 1])
choose("sg_test", sig.PAIR_TESTS, "t")
test = c1.selectbox("test", sig.PAIR_TESTS, key=w("sg_test"), format_func=TESTS.get)
choose("sg_corr", sig.PAIR_CORRECTIONS, "holm")
corr = c2.selectbox("correction over all pairs of a metric", sig.PAIR_CORRECTIONS, key=w("sg_corr"),
                    format_func=sig.CORR_LABELS.get)
choose("sg_alpha", state.ALPHAS, 0.05)
alpha = float(c3.select_slider("significance level alpha", options=list(state.ALPHAS), key=w("sg_alpha")))
c1, c2, c3 = st.columns([1.4, 1.4, 1])
choose("sg_ci", tuple(sig.CI_LABELS), "t")
ci = c1.radio("confidence interval", tuple(sig.CI_LABELS), key=w("sg_ci"), horizontal=True,
              format_func=sig.CI_LABELS.get)
choose("sg_std", sig.STANDARDISATIONS, "none")
std = c2.selectbox("scores", sig.STANDARDISATIONS, key=w("sg_std"), format_func=sig.STD_LABELS.get,
                   help="Standardise each topic over the loaded runs before testing (Webber et al. 2008); the "
                        "topic set size calculator uses the same scores.")
choose("sg_conf", sig.CONFIDENCES, 0.95)
conf = float(c3.select_slider("confidence level", options=list(sig.CONFIDENCES), key=w("sg_conf"),
                              format_func=lambda v: f"{v:.0%}"))
resampled = test in sig.RESAMPLED_TESTS
live.b_controls("resampled tests:", w("sg_B"), w("sg_seed"))
B, seed = int(ss[w("sg_B")]), int(ss[w("sg_seed")])
ss["sg_B"], ss["sg_seed"] = B, seed
ci_name = f"{conf:.0%} {'paired-t' if ci == 't' else 'bootstrap percentile'} CI"
sig_name = sig.significance_name(corr, alpha)
std_note = "" if std == "none" else f" on {sig.STD_LABELS[std]}"

# -- 1. every run pair -----------------------------------------------------------------------------
widgets.subheader("Differences against a baseline run, with confidence intervals")


def draw_forest(tbl: pd.DataFrame, metrics: list[str]) -> tuple[str, str]:
    """Every run against a baseline (the best run by the chosen metric unless chosen); returns both."""
    g1, g2 = st.columns(2)
    choose("sg_fmetric", metrics, metrics[0])
    fmet = g1.selectbox("metric", metrics, key=w("sg_fmetric"))
    run_ids = [str(x) for x in c.run_ids]
    best = str(scoring.means(c, s, [fmet])[fmet].idxmax()) if fmet in s.metric_keys else run_ids[0]
    choose("sg_frun", run_ids, best)
    frun = g2.selectbox("baseline run", run_ids, key=w("sg_frun"), format_func=safe.text,
                        help="Every other run is compared with this one. Default: the best run by the metric.")
    fd = figures.forest_data(tbl[tbl["metric"] == fmet], frun)
    widgets.chart(figures.forest(fd, run=frun, metric=fmet, ci_label=ci_name, sig_label=sig_name),
                  width="stretch", key="sg_forest")
    nsig = int(fd["significant"].sum())
    widgets.caption(f"Each row: the baseline {safe.md(frun)} minus another run on {fmet}, dot = mean difference, "
                    f"bar = {ci_name}. {nsig} of {len(fd)} differences are significant ({TESTS[test]}, "
                    f"{sig_name}). " + ("An adjusted p-value and an unadjusted CI can disagree: a CI not crossing "
                                       "0 is a pair-wise statement." if corr != "none" else ""))
    return fmet, frun


def draw_paper_table(r, metrics: list[str], fmet: str, frun: str) -> None:
    """Every run against the baseline on the chosen metrics (evalcore.compare), with its downloads."""
    widgets.markdown(f"**Results table for a paper**: every run against the baseline {safe.md(frun)}, "
                     f"{TESTS[test]}, {sig_name}{std_note}")
    state.list_setting("sg_cmp_metrics", metrics, [fmet])
    chosen = st.multiselect("metrics in the table", metrics, key="sg_cmp_metrics",
                            format_func=lambda k: scoring.label(k, c, s))
    if not chosen:
        widgets.caption("Choose at least one metric for the table.")
        return
    cmp = sig.compare_table(c, s, r, chosen, baseline=frun, test=test, correction=corr, alpha=alpha,
                            standardise=std)
    widgets.markdown(cmp.to_markdown())
    d1, d2, d3, _ = st.columns([1, 1, 1, 2])
    d1.download_button("CSV", cmp.to_csv(), "evalcore-compare.csv", mime="text/csv", key="sg_cmp_csv")
    d2.download_button("Markdown", cmp.to_markdown(), "evalcore-compare.md", mime="text/markdown", key="sg_cmp_md")
    d3.download_button("LaTeX (booktabs)", cmp.to_latex(), "evalcore-compare.tex", mime="text/x-tex",
                       key="sg_cmp_tex")


def draw_pair_table(r, tbl: pd.DataFrame, metrics: list[str]) -> None:
    """The table behind the picture, every pair of every metric, filtered as asked."""
    widgets.markdown("**Every run pair**: the table behind the picture, for all metrics")
    f1, f2, f3 = st.columns([1.2, 1.6, 1], vertical_alignment="bottom")
    choose("sg_tmetric", [state.SIG_ALL] + metrics, state.SIG_ALL)
    fm = f1.selectbox("metric", [state.SIG_ALL] + metrics, key=w("sg_tmetric"))
    runs_q = f2.text_input("runs whose name contains", key=w("sg_runs"), placeholder="e.g. run 3 or 'BM25'")
    only = f3.toggle("significant only", key=w("sg_only_sig"), help=f"Only pairs with {sig_name}.")
    shown, by = sig.pair_rows(tbl, metrics, metric=None if fm == state.SIG_ALL else fm, runs=runs_q,
                              significant_only=only)
    widgets.caption(f"{len(shown)} of {len(tbl)} rows ({len(metrics)} metrics x {n_pairs} pairs), in order of "
                    f"{'adjusted p' if 'p_adjusted' in by else 'p'} within each metric. mean difference = "
                    "mean over topics of x - y; a positive value: x scores higher. p below 0.001 is shown as "
                    "< 0.001, else to three significant digits, as in every table and download.")
    names, p_cols = sig.pair_columns(test, corr, conf, sig_name)
    shown = shown.rename(columns=names)
    cfg = {col: st.column_config.NumberColumn(format="%.4f")
           for col in shown.columns if pd.api.types.is_float_dtype(shown[col])}
    cfg.update({col: st.column_config.TextColumn(col) for col in p_cols.values() if col in shown.columns})
    widgets.table(shown, column_config=cfg, hide_index=True, height=380)
    flips = (f"Randomisation test: {'all ' if r.exact_randomisation else ''}{r.n_flips} sign flips"
             + (" (exact: every flip)." if r.exact_randomisation else " drawn at random.")
             if "randomisation" in r.tests else "")
    widgets.caption("V_E per metric (residual variance of the two-way ANOVA without replication" + std_note + "): "
                    + " · ".join(f"{m} {v:.5g}" for m, v in r.v_e.items()) + ". " + flips)


def draw_pairs(frames, B_shown, B_chosen):
    r = frames["result"]
    tbl = r.table(test, corr, alpha, ci)
    metrics = list(dict.fromkeys(tbl["metric"]))
    b_note = (live.b_title(B_shown, B_chosen) if resampled or ci == "bootstrap"
              else f"the {TESTS[test]} and the t CI do not depend on B")
    widgets.markdown(f"**{TESTS[test]}**, correction **{sig.CORR_LABELS[corr]}**, alpha = {alpha:g}, {ci_name}"
                     f"{std_note} · {b_note}")
    fmet, frun = draw_forest(tbl, metrics)
    draw_paper_table(r, metrics, fmet, frun)
    draw_pair_table(r, tbl, metrics)


tests = sig.pair_tests(test, ci)
pair_params = {"seed": seed, "confidence": conf, "standardise": std, "tests": tests}
if any(t in sig.RESAMPLED_TESTS for t in tests):      # quick pass + refine, as every resampling page
    res = live.live_meta("pairs", c, s, pair_params, B, "Pair statistics", draw_pairs)
else:                                                     # exact tests only: no B, no quick pass
    try:
        res = meta_store.meta_compute("pairs", c, s, pair_params, 1)
    except ValueError as e:
        st.error(f"Pair statistics cannot run with these settings: {safe.md_lines(e)}", icon=":material/error:")
        res = None
    if res is not None:
        draw_pairs(res["frames"], None, None)

# -- 2. discriminative power -------------------------------------------------------------------------
widgets.subheader("Discriminative power per metric")
power_title = f"{TESTS[test]}, {sig.CORR_SHORT[corr]}, alpha = {alpha:g}"


def draw_spread(frames, B_shown, B_chosen, reps: int):
    sp = sig.spread_power(frames["pvalues"], corr, alpha)
    title = f"{power_title}, {live.b_title(B_shown, B_chosen)}, seeds {seed}..{seed + reps - 1}"
    widgets.chart(figures.power_bars(sp, "metric", "pct_seed", lo="min", hi="max", sd="sd",
                                     y_title="run pairs significant", title=title), width="stretch", key="sg_power")
    widgets.caption(f"Bar: % of run pairs significant with seed {seed} (the pair table's). Whisker: lowest to highest "
                    f"over {reps} seeds ({seed}..{seed + reps - 1}): differences between metrics smaller than the "
                    "whiskers are Monte Carlo noise, not the metrics.")
    widgets.table(sp.rename(columns={"pct_seed": f"% significant (seed {seed})", "mean": "mean over seeds",
                                     "min": "min", "max": "max", "sd": "sd"}), digits=2, hide_index=True)


def draw_power(res: dict) -> None:
    """% significant per metric: with its Monte Carlo spread over seeds for a resampled test."""
    result = res["frames"]["result"]
    pw = result.power(test, corr, alpha).rename(columns={"pct_significant": "pct"})
    if not resampled:
        widgets.chart(figures.power_bars(pw, "metric", "pct", y_title="run pairs significant", title=power_title),
                      width="stretch", key="sg_power")
        widgets.caption(f"% of the {n_pairs} run pairs whose {sig_name} ({TESTS[test]}{std_note}). This test is "
                        "not resampled: the same data always give the same bars, so there is no Monte Carlo spread.")
        widgets.table(pw[["metric", "n_significant", "n_pairs", "pct"]].rename(columns={"pct": "% significant"}),
                      digits=1, hide_index=True)
        return
    p1, _ = st.columns([1, 3])
    choose("sg_reps", sig.SPREAD_SEEDS, 5)
    reps = int(p1.selectbox("seeds for the spread", sig.SPREAD_SEEDS, key=w("sg_reps"),
                            help="The resampled test is repeated with seeds seed, seed+1, ...: the spread "
                                 "of % significant is the Monte Carlo error alone."))
    # The spread costs `reps` pair computations: it is never part of the quick pass. Drawn at once when
    # done (by any session) or cheap (estimated from the table's own run); otherwise the bars of the
    # table's seed are drawn now, stated as such, and the spread at the chosen B is computed after the
    # page, with progress, by live.finish_live (the same queue the quick passes use).
    sp_params = {"seed": seed, "repeats": reps, "test": test, "standardise": std}
    what = f"Monte Carlo spread ({reps} seeds)"
    sp = meta_store.meta_lookup("pairs_spread", c, s, sp_params, B)
    if sp is None and res["B"] == B and res["seconds"] * reps <= live.BUDGET_S:
        sp = meta_store.meta_compute("pairs_spread", c, s, sp_params, B)
    if sp is not None:
        widgets.caption(f"{what}: B = {B} (chosen) - the result on screen uses B = {B}.")
        draw_spread(sp["frames"], B, B, reps)
        return
    status = st.empty()
    status.caption(f"{what} at the chosen B = {B}: computed after the rest of the page, then it replaces "
                   f"this chart ...")
    widgets.chart(figures.power_bars(
        pw, "metric", "pct", y_title="run pairs significant",
        title=f"{power_title}, seed {seed} only, {live.b_title(result.B, B)} (spread over seeds follows)"),
        width="stretch", key="sg_power")
    state.this_run().setdefault("live_pending", []).append(("pairs_spread", c, s, sp_params, B, what, status))


if res is not None:
    draw_power(res)
    result = res["frames"]["result"]
    with st.expander("Sorted p-value curves (Sakai 2007's ASL curve is the bootstrap test, no correction)"):
        widgets.chart(figures.lines(result.curves(test, corr), "pair_rank", "p_value", "metric",
                                    x_title="run pairs, sorted by p-value", y_title=f"p-value ({test}, {corr})",
                                    ref_y=alpha, ref_label=f"alpha = {alpha:g}", markers=False),
                      width="stretch", key="sg_curves")
        widgets.caption(f"B = {result.B} for the resampled test on this chart "
                        f"({'chosen' if result.B == B else 'quick pass'})." if resampled else
                        "Exact test: B plays no part.")

# -- 3. topic set size -------------------------------------------------------------------------------------
widgets.subheader("How many topics do I need? (topic set size design, Sakai 2016)")
d1, d2, d3, d4 = st.columns(4)
shown_designs = [d for d in sig.TOPIC_DESIGNS if d in sig.DESIGN_LABELS]   # the designs this page can label
choose("ts_design", shown_designs, "paired-t")
design = d1.selectbox("test", shown_designs, key=w("ts_design"), format_func=sig.DESIGN_LABELS.get)
is_ci = design in sig.CI_DESIGNS
choose("ts_alpha", state.ALPHAS, 0.05)
t_alpha = float(d2.select_slider("alpha", options=list(state.ALPHAS), key=w("ts_alpha")))
choose("ts_beta", sig.BETAS, 0.2)
beta = float(d3.select_slider("beta (1 - power)", options=list(sig.BETAS), key=w("ts_beta"), disabled=is_ci,
                              help="The chance of missing a real difference of the minimum size; power = 1 - beta. "
                                   "The CI design has no beta."))
diff_label = sig.DIFF_LABELS[design]
sig.fit_number(ss, "ts_mind", (0.001, 10.0), 0.1)
min_diff = float(d4.number_input(diff_label, min_value=0.001, max_value=10.0, step=0.01, format="%.3f",
                                 key=w("ts_mind")))
m1, m2 = st.columns([2, 1])
keys = list(s.metric_keys)
choose("ts_metric", keys, keys[0])
t_metric = m1.selectbox("variance from the loaded data for the metric", keys, key=w("ts_metric"))
systems = None
if design == "anova":
    sig.fit_number(ss, "ts_systems", (2, 1000), max(2, min(c.n_runs, 1000)), whole=True)
    systems = int(m2.number_input("systems m", min_value=2, max_value=1000, step=1, key=w("ts_systems"),
                                  help="Number of systems compared by the ANOVA (default: the loaded runs)."))
estimators = list(sig.TOPIC_ESTIMATORS)        # both estimates for every design, each labelled
# none chosen: the design's default, evalcore's rule (two-way for paired-t, ci and anova; one-way unpaired)
choose("ts_est", estimators, sig.default_estimator(design))
estimator = st.radio("variance estimated as", estimators, key=w("ts_est"),
                     format_func=lambda e: sig.estimator_label(design, e), horizontal=True, help=sig.ESTIMATOR_HELP)

sig.draw_design(c, s, sig.Design(design, t_alpha, beta, min_diff, systems, estimator, t_metric, std))

live.finish_live()
