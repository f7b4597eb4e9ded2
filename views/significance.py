"""Significance & topic sets: pair statistics, power and topic set size. Live with the sidebar, no button.

Every run pair with mean difference, CI, effect size, raw and adjusted p-values
for the chosen test and correction (evalcore.meta.pair_statistics, one call
with every test, so switching test/correction/alpha/CI recomputes nothing),
with a forest plot for one run and, below it, the results table for a paper
(evalcore.compare: every run against that baseline, with downloads as CSV,
Markdown and LaTeX); discriminative power per metric with the
Monte Carlo spread over seeds for the resampled tests; a topic set size
calculator (evalcore.meta.topicsets, Sakai 2016) with its power curve.
Quick pass + refine through widgets.live_meta, as the other meta pages.

Page choices are kept under plain session keys (``sg_*``, ``ts_*``) and copied
into their widgets (``_w_*``) each run, so they survive visits to other pages
(widget keys are dropped by Streamlit when their page is not shown), and are
mirrored into the address like every other setting.
"""

import pandas as pd
import streamlit as st

from dashboard import cached, safe, shell, state, widgets
from evalcore import figures
from evalcore.texfmt import format_p

ss = st.session_state
s, full, c = shell.setup_analysis()

TEST_LABELS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
               "randomisation": "paired randomisation test (resampled)",
               "bootstrap": "paired bootstrap test (resampled)"}
CORR_LABELS = {"none": "none (each pair on its own)", "holm": "Holm (family-wise error rate)",
               "bh": "Benjamini-Hochberg (false discovery rate)"}
STD_LABELS = {"none": "raw scores", "z": "z-scores per topic", "cdf": "std-CDF (normal CDF of z)",
              "ab": "std-AB (0.15 z + 0.5)"}
DESIGN_LABELS = {"paired-t": "paired t-test (two systems, same topics)", "anova": "one-way ANOVA (m systems)",
                 "ci": "confidence interval width (paired)",
                 "unpaired-t": "unpaired t-test (two systems, separate topic sets)",
                 "unpaired-ci": "confidence interval width (unpaired)"}
ESTIMATOR_LABELS = {"two-way": "2 V_E, residual of the two-way ANOVA without replication (Sakai 2016; paired default)",
                    "one-way": "sigma^2, within-system variance pooled over runs (Sakai 2018; unpaired default)"}
PAIRED_DESIGNS = ("paired-t", "ci")
CONFIDENCES = (0.9, 0.95, 0.99)
BETAS = (0.05, 0.1, 0.2, 0.3, 0.5)
ALL = state.SIG_ALL
DEFAULTS = state.SIGNIFICANCE_DEFAULTS     # in the address too (dashboard/state.py)


def w(key: str) -> str:
    """The widget key of a page setting."""
    return "_w_" + key


for k, d in DEFAULTS.items():           # widget value -> setting (same page), or setting -> widget (coming back)
    if w(k) in ss:
        ss[k] = ss[w(k)]
    else:
        ss.setdefault(k, d)
        ss[w(k)] = ss[k]


def choose(key: str, options, fallback):
    """Make a page setting one of ``options`` before its widget is drawn."""
    if ss[w(key)] not in options:
        ss[w(key)] = ss[key] = fallback


st.title("Significance & topic sets")
n_pairs = c.n_runs * (c.n_runs - 1) // 2
widgets.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs ({n_pairs} pairs) · {c.n_topics} topics")
if c.n_runs < 2:
    st.warning(f"Significance tests compare run pairs: they need at least two runs; this collection has "
               f"{c.n_runs}.")
    st.stop()

with st.expander("What is on this page (tests, corrections, V_E, resampling)"):
    widgets.markdown(
        "- **Pair table.** For every pair of runs x, y and every metric: the mean over topics of the per-topic "
        "difference x - y, its confidence interval (paired t, or bootstrap percentile), the effect size and the "
        "p-value of the chosen test, raw and adjusted.\n"
        "- **Effect size** = mean difference / sqrt(V_E) (Sakai 2014). **V_E** is the residual variance of the "
        "two-way ANOVA without replication over all runs and topics of the metric: what is left of the scores "
        "once each run's and each topic's average is taken out - the noise against which a difference is "
        "measured. **d_z** = mean difference / standard deviation of the differences of that pair.\n"
        "- **Tests.** Paired t-test; Wilcoxon signed-rank (ranks of |x - y|); sign test (only which run won "
        "each topic); paired randomisation test (random sign flips of the differences; all of them when "
        "2^n <= B); paired bootstrap test (the ASL of Sakai 2007 Fig. 6, B topic samples with replacement).\n"
        "- **Resampled** means the p-value is estimated from B random samples: another seed gives a slightly "
        "different p-value. That Monte Carlo error is shown as whiskers on the discriminative-power bars "
        "(the test repeated with several seeds). The t, Wilcoxon and sign tests are exact: B plays no part.\n"
        "- **Correction.** Testing every pair at alpha finds some 'significant' differences by chance. "
        "Holm controls the chance of any false positive among all pairs of a metric (family-wise error); "
        "Benjamini-Hochberg controls the expected share of false positives among those called significant "
        "(false discovery rate). The family is all pairs of one metric (Carterette 2012).\n"
        "- **Standardisation** (Webber et al. 2008): per topic, scores minus the mean over the loaded runs, "
        "divided by their standard deviation (z); std-CDF and std-AB map z into [0, 1].")

# -- shared controls -----------------------------------------------------------------------------
c1, c2, c3 = st.columns([1.4, 1.4, 1])
choose("sg_test", cached.PAIR_TESTS, "t")
test = c1.selectbox("test", cached.PAIR_TESTS, key=w("sg_test"), format_func=TEST_LABELS.get)
choose("sg_corr", cached.PAIR_CORRECTIONS, "holm")
corr = c2.selectbox("correction over all pairs of a metric", cached.PAIR_CORRECTIONS, key=w("sg_corr"),
                    format_func=CORR_LABELS.get)
choose("sg_alpha", state.ALPHAS, 0.05)
alpha = float(c3.select_slider("significance level alpha", options=list(state.ALPHAS), key=w("sg_alpha")))
c1, c2, c3 = st.columns([1.4, 1.4, 1])
choose("sg_ci", ("t", "bootstrap"), "t")
ci = c1.radio("confidence interval", ("t", "bootstrap"), key=w("sg_ci"), horizontal=True,
              format_func={"t": "paired t", "bootstrap": "bootstrap percentile"}.get)
choose("sg_std", cached.STANDARDISATIONS, "none")
std = c2.selectbox("scores", cached.STANDARDISATIONS, key=w("sg_std"), format_func=STD_LABELS.get,
                   help="Standardise each topic over the loaded runs before testing (Webber et al. 2008); the "
                        "topic set size calculator uses the same scores.")
choose("sg_conf", CONFIDENCES, 0.95)
conf = float(c3.select_slider("confidence level", options=list(CONFIDENCES), key=w("sg_conf"),
                              format_func=lambda v: f"{v:.0%}"))
resampled = test in cached.RESAMPLED_TESTS
widgets.b_controls("resampled tests:", w("sg_B"), w("sg_seed"))
B, seed = int(ss[w("sg_B")]), int(ss[w("sg_seed")])
ss["sg_B"], ss["sg_seed"] = B, seed
ci_name = f"{conf:.0%} {'paired-t' if ci == 't' else 'bootstrap percentile'} CI"
CORR_SHORT = {"none": "unadjusted", "holm": "Holm", "bh": "BH"}
sig_name = f"{CORR_SHORT[corr]}-adjusted p < {alpha:g}" if corr != "none" else f"p < {alpha:g}"
std_note = "" if std == "none" else f" on {STD_LABELS[std]}"

# -- 1. every run pair -----------------------------------------------------------------------------
widgets.subheader("Differences against a baseline run, with confidence intervals")


def draw_pairs(frames, B_shown, B_chosen):
    r = frames["result"]
    tbl = r.table(test, corr, alpha, ci)
    metrics = list(dict.fromkeys(tbl["metric"]))
    b_note = (widgets.b_title(B_shown, B_chosen) if resampled or ci == "bootstrap"
              else f"the {TEST_LABELS[test]} and the t CI do not depend on B")
    widgets.markdown(f"**{TEST_LABELS[test]}**, correction **{CORR_LABELS[corr]}**, alpha = {alpha:g}, {ci_name}"
                     f"{std_note} · {b_note}")
    # the picture first: every run against a baseline (the best run by the chosen metric unless chosen)
    g1, g2 = st.columns(2)
    choose("sg_fmetric", metrics, metrics[0])
    fmet = g1.selectbox("metric", metrics, key=w("sg_fmetric"))
    run_ids = [str(x) for x in c.run_ids]
    best = str(cached.means(c, s, [fmet])[fmet].idxmax()) if fmet in s.metric_keys else run_ids[0]
    choose("sg_frun", run_ids, best)
    frun = g2.selectbox("baseline run", run_ids, key=w("sg_frun"), format_func=safe.text,
                        help="Every other run is compared with this one. Default: the best run by the metric.")
    fd = figures.forest_data(tbl[tbl["metric"] == fmet], frun)
    widgets.chart(figures.forest(fd, run=frun, metric=fmet, ci_label=ci_name, sig_label=sig_name),
                    width="stretch", key="sg_forest")
    nsig = int(fd["significant"].sum())
    widgets.caption(f"Each row: the baseline {safe.md(frun)} minus another run on {fmet}, dot = mean difference, bar = "
                    f"{ci_name}. "
                    f"{nsig} of {len(fd)} differences are significant ({TEST_LABELS[test]}, {sig_name}). "
                    + ("An adjusted p-value and an unadjusted CI can disagree: a CI not crossing 0 is a pair-wise "
                  "statement." if corr != "none" else ""))

    widgets.markdown(f"**Results table for a paper**: every run against the baseline {safe.md(frun)}, "
                     f"{TEST_LABELS[test]}, {sig_name}{std_note}")
    state.list_setting("sg_cmp_metrics", metrics, [fmet])
    chosen = st.multiselect("metrics in the table", metrics, key="sg_cmp_metrics",
                            format_func=lambda k: cached.label(k, c, s))
    if chosen:
        cmp = cached.compare_table(c, s, r, chosen, baseline=frun, test=test, correction=corr, alpha=alpha,
                                   standardise=std)
        widgets.markdown(cmp.to_markdown())
        d1, d2, d3, _ = st.columns([1, 1, 1, 2])
        d1.download_button("CSV", cmp.to_csv(), "evalcore-compare.csv", mime="text/csv", key="sg_cmp_csv")
        d2.download_button("Markdown", cmp.to_markdown(), "evalcore-compare.md", mime="text/markdown",
                           key="sg_cmp_md")
        d3.download_button("LaTeX (booktabs)", cmp.to_latex(), "evalcore-compare.tex", mime="text/x-tex",
                           key="sg_cmp_tex")
    else:
        widgets.caption("Choose at least one metric for the table.")

    widgets.markdown("**Every run pair**: the table behind the picture, for all metrics")
    f1, f2, f3 = st.columns([1.2, 1.6, 1], vertical_alignment="bottom")
    choose("sg_tmetric", [ALL] + metrics, ALL)
    fm = f1.selectbox("metric", [ALL] + metrics, key=w("sg_tmetric"))
    runs_q = f2.text_input("runs whose name contains", key=w("sg_runs"), placeholder="e.g. run 3 or 'BM25'")
    only = f3.toggle("significant only", key=w("sg_only_sig"), help=f"Only pairs with {sig_name}.")
    shown = tbl
    if fm != ALL:
        shown = shown[shown["metric"] == fm]
    q = str(runs_q).strip().lower()
    if q:
        shown = shown[shown["run_x"].astype(str).str.lower().str.contains(q, regex=False)
                      | shown["run_y"].astype(str).str.lower().str.contains(q, regex=False)]
    if only:
        shown = shown[shown["significant"]]
    # p-values as every table and download writes them (< 0.001, else three significant digits): text, so
    # the rows are put in order of p first (a click on a text column would sort "< 0.001" after "1")
    by = [col for col in ("p_adjusted", "p_value") if col in shown.columns]
    metric_order = {m: i for i, m in enumerate(metrics)}
    shown = (shown.assign(_m=shown["metric"].map(metric_order)).sort_values(["_m", *by], kind="stable")
             .drop(columns="_m"))
    for col in by:
        shown[col] = shown[col].map(format_p)
    widgets.caption(f"{len(shown)} of {len(tbl)} rows ({len(metrics)} metrics x {n_pairs} pairs), in order of "
                    f"{'adjusted p' if 'p_adjusted' in by else 'p'} within each metric. mean difference = "
                    "mean over topics of x - y; a positive value: x scores higher. p below 0.001 is shown as "
                    "< 0.001, else to three significant digits, as in every table and download.")
    p_cols = {"p_value": f"p ({test})", "p_adjusted": f"p adjusted ({corr})"}
    shown = shown.rename(columns={
        "run_x": "run x", "run_y": "run y", "mean_diff": "mean difference (x - y)",
        "ci_low": f"{conf:.0%} CI low", "ci_high": f"{conf:.0%} CI high", "effect_size": "effect size (/sqrt V_E)",
        "significant": f"significant ({sig_name})", "n_topics": "topics", **p_cols})
    cfg = {col: st.column_config.NumberColumn(format="%.4f")
           for col in shown.columns if pd.api.types.is_float_dtype(shown[col])}
    cfg.update({col: st.column_config.TextColumn(col) for col in p_cols.values() if col in shown.columns})
    widgets.table(shown, column_config=cfg, hide_index=True, height=380)
    widgets.caption("V_E per metric (residual variance of the two-way ANOVA without replication" + std_note + "): "
                    + " · ".join(f"{m} {v:.5g}" for m, v in r.v_e.items()) + ". "
                    + (f"Randomisation test: {'all ' if r.exact_randomisation else ''}{r.n_flips} sign flips"
                  + (" (exact: every flip)." if r.exact_randomisation else " drawn at random.")
                  if "randomisation" in r.tests else ""))


tests = cached.pair_tests(test, ci)
pair_params = {"seed": seed, "confidence": conf, "standardise": std, "tests": tests}
if any(t in cached.RESAMPLED_TESTS for t in tests):      # quick pass + refine, as every resampling page
    res = widgets.live_meta("pairs", c, s, pair_params, B, "Pair statistics", draw_pairs)
else:                                                     # exact tests only: no B, a few ms
    try:
        res = cached.meta_compute("pairs", c, s, pair_params, 1)
    except ValueError as e:
        st.error(f"Pair statistics cannot run with these settings: {safe.md_lines(e)}", icon=":material/error:")
        res = None
    if res is not None:
        draw_pairs(res["frames"], None, None)

# -- 2. discriminative power -------------------------------------------------------------------------
widgets.subheader("Discriminative power per metric")
reps = 5


def draw_spread(frames, B_shown, B_chosen):
    sp = cached.spread_power(frames["pvalues"], corr, alpha)
    title = (f"{TEST_LABELS[test]}, {CORR_SHORT[corr]}, alpha = {alpha:g}, "
             f"{widgets.b_title(B_shown, B_chosen)}, seeds {seed}..{seed + reps - 1}")
    widgets.chart(figures.power_bars(sp, "metric", "pct_seed", lo="min", hi="max", sd="sd",
                                       y_title="run pairs significant", title=title), width="stretch",
                    key="sg_power")
    widgets.caption(f"Bar: % of run pairs significant with seed {seed} (the pair table's). Whisker: lowest to highest "
                    f"over {reps} seeds ({seed}..{seed + reps - 1}): differences between metrics smaller than the "
                    "whiskers are Monte Carlo noise, not the metrics.")
    widgets.table(sp.rename(columns={"pct_seed": f"% significant (seed {seed})", "mean": "mean over seeds",
                                     "min": "min", "max": "max", "sd": "sd"}), digits=2, hide_index=True)


if res is not None:
    result = res["frames"]["result"]
    if resampled:
        p1, _ = st.columns([1, 3])
        choose("sg_reps", (3, 5, 10), 5)
        reps = int(p1.selectbox("seeds for the spread", (3, 5, 10), key=w("sg_reps"),
                                help="The resampled test is repeated with seeds seed, seed+1, ...: the spread "
                                     "of % significant is the Monte Carlo error alone."))
        # The spread costs `reps` pair computations: it is never part of the quick pass. Drawn at once when
        # done (by any session) or cheap (estimated from the table's own run); otherwise the bars of the
        # table's seed are drawn now, stated as such, and the spread at the chosen B is computed after the
        # page, with progress, by widgets.finish_live (the same queue the quick passes use).
        sp_params = {"seed": seed, "repeats": reps, "test": test, "standardise": std}
        what = f"Monte Carlo spread ({reps} seeds)"
        sp = cached.meta_lookup("pairs_spread", c, s, sp_params, B)
        if sp is None and res["B"] == B and res["seconds"] * reps <= widgets.BUDGET_S:
            sp = cached.meta_compute("pairs_spread", c, s, sp_params, B)
        if sp is not None:
            widgets.caption(f"{what}: B = {B} (chosen) - the result on screen uses B = {B}.")
            draw_spread(sp["frames"], B, B)
        else:
            status = st.empty()
            status.caption(f"{what} at the chosen B = {B}: computed after the rest of the page, then it replaces "
                           f"this chart ...")
            pw = result.power(test, corr, alpha).rename(columns={"pct_significant": "pct"})
            widgets.chart(figures.power_bars(
                pw, "metric", "pct", y_title="run pairs significant",
                title=f"{TEST_LABELS[test]}, {CORR_SHORT[corr]}, alpha = {alpha:g}, seed {seed} only, "
                      f"{widgets.b_title(result.B, B)} (spread over seeds follows)"), width="stretch", key="sg_power")
            state.this_run().setdefault("live_pending", []).append(("pairs_spread", c, s, sp_params, B, what, status))
    else:
        pw = result.power(test, corr, alpha).rename(columns={"pct_significant": "pct"})
        widgets.chart(figures.power_bars(pw, "metric", "pct", y_title="run pairs significant",
                                           title=f"{TEST_LABELS[test]}, {CORR_SHORT[corr]}, "
                                                 f"alpha = {alpha:g}"), width="stretch", key="sg_power")
        widgets.caption(f"% of the {n_pairs} run pairs whose {sig_name} ({TEST_LABELS[test]}{std_note}). This test is "
                        "not resampled: the same data always give the same bars, so there is no Monte Carlo spread.")
        widgets.table(pw[["metric", "n_significant", "n_pairs", "pct"]].rename(columns={"pct": "% significant"}),
                      digits=1, hide_index=True)
    with st.expander("Sorted p-value curves (Sakai 2007's ASL curve is the bootstrap test, no correction)"):
        cur = result.curves(test, corr)
        widgets.chart(figures.lines(cur, "pair_rank", "p_value", "metric", x_title="run pairs, sorted by p-value",
                                      y_title=f"p-value ({test}, {corr})", ref_y=alpha,
                                      ref_label=f"alpha = {alpha:g}", markers=False), width="stretch",
                        key="sg_curves")
        widgets.caption(f"B = {result.B} for the resampled test on this chart "
                        f"({'chosen' if result.B == B else 'quick pass'})." if resampled else
                        "Exact test: B plays no part.")

# -- 3. topic set size -------------------------------------------------------------------------------------
widgets.subheader("How many topics do I need? (topic set size design, Sakai 2016)")
d1, d2, d3, d4 = st.columns(4)
shown_designs = [d for d in cached.TOPIC_DESIGNS if d in DESIGN_LABELS]   # the designs this page can label
choose("ts_design", shown_designs, "paired-t")
design = d1.selectbox("test", shown_designs, key=w("ts_design"), format_func=DESIGN_LABELS.get)
is_ci = design in ("ci", "unpaired-ci")
choose("ts_alpha", state.ALPHAS, 0.05)
t_alpha = float(d2.select_slider("alpha", options=list(state.ALPHAS), key=w("ts_alpha")))
choose("ts_beta", BETAS, 0.2)
beta = float(d3.select_slider("beta (1 - power)", options=list(BETAS), key=w("ts_beta"), disabled=is_ci,
                              help="The chance of missing a real difference of the minimum size; power = 1 - beta. "
                                   "The CI design has no beta."))
diff_label = {"paired-t": "minimum detectable difference", "anova": "minimum detectable range",
              "ci": "largest CI width delta", "unpaired-t": "minimum detectable difference",
              "unpaired-ci": "largest CI width delta"}[design]
if not (isinstance(ss[w("ts_mind")], (int, float)) and 0.001 <= float(ss[w("ts_mind")]) <= 10):
    ss[w("ts_mind")] = ss["ts_mind"] = 0.1
min_diff = float(d4.number_input(diff_label, min_value=0.001, max_value=10.0, step=0.01, format="%.3f",
                                 key=w("ts_mind")))
m1, m2 = st.columns([2, 1])
keys = list(s.metric_keys)
choose("ts_metric", keys, keys[0])
t_metric = m1.selectbox("variance from the loaded data for the metric", keys, key=w("ts_metric"))
systems = None
if design == "anova":
    if not (isinstance(ss[w("ts_systems")], int) and 2 <= ss[w("ts_systems")] <= 1000):
        ss[w("ts_systems")] = ss["ts_systems"] = max(2, min(c.n_runs, 1000))
    systems = int(m2.number_input("systems m", min_value=2, max_value=1000, step=1, key=w("ts_systems"),
                                  help="Number of systems compared by the ANOVA (default: the loaded runs)."))
estimators = [e for e in cached.TOPIC_ESTIMATORS if design in PAIRED_DESIGNS or e == "one-way"]
# an estimator not offered for this design (or none chosen) falls back to the design's default: two-way for
# the paired designs (Sakai 2016), one-way for anova and the unpaired ones (Sakai 2018)
choose("ts_est", estimators, "two-way" if design in PAIRED_DESIGNS else "one-way")
estimator = st.radio("variance estimated as", estimators, key=w("ts_est"), format_func=ESTIMATOR_LABELS.get,
                     horizontal=True,
                     help="Two-way: V_E = sum (x_ij - x_i. - x_.j + x..)^2 / ((m-1)(n-1)), the residual of the "
                          "two-way ANOVA without replication (the topic effect removed); a paired t-test or "
                          "paired CI uses 2 V_E, as Sakai 2016 sizes topic sets for paired data. One-way: "
                          "sigma^2 = sum (x_ij - x_i.)^2 / (m(n-1)), each run's topic variance pooled over runs "
                          "(one-way ANOVA residual), the within-system variance of the ANOVA and unpaired "
                          "designs (Sakai 2018); with a paired design it becomes 2 sigma^2 and, keeping the "
                          "topic variance, asks for more topics.")
try:
    var = cached.design_variance(c, t_metric, s, design, estimator, std)
except ValueError as e:
    var = None
    st.info(f"No variance to size a topic set from: {safe.md(str(e))}.")
if var is not None:
    variance = float(var["variance"])
    var_text = f"variance = {var['label']} = {variance:.5g}"
    widgets.markdown(f"{'sigma^2' if estimator == 'one-way' else 'V_E'} of **{safe.md(t_metric)}**{std_note} on this "
                     f"collection ({var['runs']} runs x {var['topics']} topics) = **{var['estimate']:.5g}**; "
                     f"{safe.md(var_text)}.")
    widgets.caption(f"Estimator: {safe.md(var['definition'])}.")
    try:
        out = cached.topic_design(design, t_alpha, beta, min_diff, variance, systems, c.n_topics)
    except ValueError as e:
        st.error(f"No topic set size for these settings: {safe.md_lines(e)}", icon=":material/error:")
        out = None
    if out is not None:
        size = out["size"]
        n_req = int(size["n_topics"])
        k1, k2, k3 = st.columns(3)
        k1.metric("topics needed", f"{n_req:,}",
                  help="Smallest n with exact power >= 1 - beta (noncentral t / F), or with expected CI width "
                       "<= delta.")
        if is_ci:
            k2.metric("expected CI width at that n", f"{size['expected_width']:.4f}")
        else:
            k2.metric("power at that n", f"{size['power']:.3f}")
        if out["mdd_error"]:
            k3.caption(f"The inverse (what {c.n_topics} topics can detect) could not be computed: "
                       f"{out['mdd_error']}")
        if out["mdd"] is not None:
            k3.metric({"ci": "expected CI width", "anova": "smallest range detectable",
                       "paired-t": "smallest difference detectable", "unpaired-t": "smallest difference detectable",
                       "unpaired-ci": "expected CI width"}[design] + f" at n = {c.n_topics}",
                      f"{out['mdd']:.4f}",
                      help=(f"The expected {1 - t_alpha:.0%} CI width with this collection's {c.n_topics} topics."
                            if is_ci else
                            f"The {diff_label} this collection's {c.n_topics} topics detect with power "
                            f"1 - beta = {1 - beta:g} (the inverse of the design)."))
        spec = {"paired-t": f"two-sided paired t-test, alpha = {t_alpha:g}, power 1 - beta = {1 - beta:g}, "
                            f"minimum difference {min_diff:g}",
                "anova": f"one-way ANOVA over m = {systems} systems, alpha = {t_alpha:g}, power 1 - beta = "
                         f"{1 - beta:g}, minimum range {min_diff:g} (two systems that far apart, the others "
                         "half-way)",
                "ci": f"{1 - t_alpha:.1%} CI of a paired difference, expected width <= {min_diff:g}",
                "unpaired-t": f"two-sided unpaired t-test (n topics per system), alpha = {t_alpha:g}, power "
                              f"1 - beta = {1 - beta:g}, minimum difference {min_diff:g} (Sakai 2018)",
                "unpaired-ci": f"{1 - t_alpha:.1%} CI of an unpaired difference (n topics per system), expected "
                               f"width <= {min_diff:g} (Sakai 2018)"}[design]
        approx = (f" The normal approximation gives {size['n_approx']}." if size.get("n_approx") else "")
        at_n = ("" if out["power_at_n"] is None or is_ci else
                f" With the collection's own n = {c.n_topics}, the power for a difference of {min_diff:g} is "
                f"{out['power_at_n']:.3f}.")
        widgets.caption(f"{spec}; {var_text} from {t_metric}.{approx}{at_n}")
        curve = out["curve"]
        if is_ci:
            fig = figures.power_curve(curve, "expected_width", y_title="expected CI width", n_required=n_req,
                                      n_collection=c.n_topics, target=min_diff, target_label=f"delta = {min_diff:g}",
                                      log_x=out["log_x"], title=f"Expected {1 - t_alpha:.0%} CI width vs topics")
        else:
            fig = figures.power_curve(curve, "power", y_title="power (1 - beta)", n_required=n_req,
                                      n_collection=c.n_topics, target=1 - beta,
                                      target_label=f"1 - beta = {1 - beta:g}", log_x=out["log_x"],
                                      title=f"Power vs number of topics ({DESIGN_LABELS[design]}, "
                                            f"alpha = {t_alpha:g}, {diff_label} {min_diff:g})")
        widgets.chart(fig, width="stretch", key="ts_curve")

widgets.finish_live()
