"""Overview, the first screen: it demos itself on the built-in data and follows every sidebar setting.

The run ranking under the current gains beside a paper preset (binary 1:1:1 by default), the Kendall heatmap
between metrics, and the discriminative power of every metric (bootstrap %
significant, Sakai 2007 Table 4; swap difference at 95 %, Table 3), all live.
"""
import streamlit as st

from dashboard import claims, gainsets, live, meta_kinds, paper_checks, ranks, safe, scoring, shell, state, widgets
from evalcore import figures

ss = st.session_state
s, full, c = shell.setup_analysis()

st.title("How do IR metrics rank these systems?")
widgets.caption(f"{safe.md(c.name or 'collection')}: {c.n_runs} runs · {c.n_topics} topics · "
                + widgets.settings_line(s, c) + f" · change {widgets.gain_control_words()} (beta and the other "
                f"settings: {widgets.sidebar_words()}): every chart follows. Your own qrels and runs: the Data page.")
# Sakai 2007's claim on the data shown, at the top of the first screen; computed at the end of the page (after
# the charts), so that the charts come first
claim_box = st.container()
if s.dataset == "examples":           # the papers print per-topic values: show them first (X = 0.50, not a mean)
    widgets.subheader("The papers' worked examples, per topic")
    widgets.table(scoring.per_topic_table(c, s), digits=4, hide_index=True)
    widgets.caption("Sakai 2007 Fig. 2-3: each run's value on each topic it has a ranked list for - the numbers "
                    "the paper prints (e.g. P(X) = 0.50 on T3). The charts below rank the runs by their means over "
                    f"the {c.n_topics} topics, where a run with no list on a topic scores 0 there.")

graded = [k for k in s.metric_keys if scoring.METRICS[k.partition("@")[0]].uses_gains]
left, right = st.columns([1, 1], gap="large")
with left:
    if not graded:
        st.info(f"No graded metric is selected in {widgets.sidebar_words()}: add Q-measure, P-measure or nDCG to "
                "see the ranking move with the gains.")
    else:
        if ss.get("ov_metric") not in graded:
            ss["ov_metric"] = "P-measure" if "P-measure" in graded else graded[0]
        # the reference the current gains are compared with: a paper preset that extends to K levels;
        # binary relevance (1:1:1) by default, so the first screen shows what graded gains change
        refs = [p for p in state.PRESETS if (g := gainsets.preset_gains(p, c.max_level)) is not None
                and max(g) <= state.GAIN_MAX]
        if ss.get("ov_ref") not in refs:
            ss["ov_ref"] = "1:1:1" if "1:1:1" in refs else refs[0]
        k1, k2 = st.columns(2)
        metric = k1.selectbox("Ranking by", graded, key="ov_metric")
        ref_name = k2.selectbox("compared with the gains", refs, key="ov_ref",
                                format_func=lambda p: state.paper(gainsets.preset_gains(p, c.max_level))
                                + (" (binary)" if p == "1:1:1" else ""),
                                help="A paper preset, with the values used for this collection's levels.")
        df, tau, ref_gains = ranks.rank_comparison(c, metric, s, ref_name)
        ref_label, cur_label = state.paper(ref_gains), f"current ({state.paper(s.gains)})"
        if ref_label == state.paper(s.gains):
            cur_label = f"current (also {state.paper(s.gains)})"
        moved = int((df["rank_left"] != df["rank_right"]).sum())
        widgets.chart(figures.rank_shift(df, ref_label, cur_label,
                                           title=f"{metric}: {moved} of {len(df)} runs change rank,<br>"
                                                 f"Kendall tau-b = {tau:.3f}", row_px=13),
                        width="stretch", key="ov_shift")
        widgets.caption(f"Each line is a run: its rank by {metric} under gains {ref_label} (left) and under the "
                        f"current gains (right); blue moved up, orange down.")
with right:
    widgets.markdown("**Metrics against each other** (Kendall tau-b between run rankings, Sakai 2007 Table 2)")
    if c.n_runs < 3:
        st.info(f"Rank correlation needs at least three runs; this collection has {c.n_runs}.")
    else:
        means = scoring.means(c, s)
        tau_m, sig = ranks.correlation(means, alpha=0.01)
        # no numbers in the cells: half a 1024 px screen leaves no room for them (the hover has each value)
        widgets.chart(figures.tau_heatmap(tau_m, sig, cell_text=False), width="stretch", key="ov_heat")
        lo, hi = figures.tau_scale(tau_m)
        crit = ranks.kendall_critical(c.n_runs, 0.01)
        sig_txt = (f"* = significant at alpha = 0.01 (|tau| >= {crit:.3f} with {c.n_runs} runs)" if crit <= 1 else
                   f"with {c.n_runs} runs no tau can be significant at alpha = 0.01 (it would need "
                   f"|tau| >= {crit:.2f})")
        widgets.caption(f"Colour scale fixed to [{lo:g}, {hi:g}]; hover a cell for its tau ({sig_txt}); the Rank "
                        "correlation page writes every value.")
        widgets.caption(paper_checks.overview_line(paper_checks.table2(c, s)))

widgets.subheader("Discriminative power per metric")
if c.n_runs < 2:
    st.info("Discriminative power compares run pairs: it needs at least two runs.")
else:
    alpha = float(state.value("bs_alpha"))      # the Bootstrap and Swap pages' settings
    ask_box = st.container()          # the on-request button and its note, above both (live.discriminative_power)
    p1, p2 = st.columns(2, gap="large")

    def draw_boot(res, B_shown, B_chosen, stale=""):
        summ = res["summary"][["metric", "pct_significant"]].copy()
        summ["share"] = summ["pct_significant"] / 100.0
        a = res.get("alpha", alpha)              # an earlier result's own alpha
        when = " - earlier settings" if stale else ""
        fig = figures.share_bars(summ.sort_values("share", ascending=False), "metric", "share",
                                 y_title=f"run pairs significant (alpha = {a:g})",
                                 title=f"Bootstrap test (Sakai 2007 Table 4), {live.b_title(B_shown, B_chosen)}"
                                       f"{when}")
        widgets.chart(fig, width="stretch", key="ov_boot")
        widgets.caption(stale or "Higher bars: the metric tells more run pairs apart. Settings on the Bootstrap page.")

    def draw_swap(res, B_shown, B_chosen, stale=""):
        summ = res["summary"]
        conf = summ["confidence"].max()
        row = summ[summ["confidence"] == conf][["metric", "abs_diff", "pct_comparisons"]]
        # short headers: the table shares a 1024 px screen with the bootstrap chart (~300 px)
        shown = row.sort_values("abs_diff").rename(columns={"abs_diff": f"needed ({conf:.0%})",
                                                            "pct_comparisons": "% pairs"})
        when = " - earlier settings" if stale else ""
        widgets.markdown(f"**Swap method (Sakai 2007 Table 3)**, {res.get('sampling', params_sw['sampling'])} "
                         f"sampling, {live.b_title(B_shown, B_chosen)}{when}")
        widgets.table(shown, digits=4, hide_index=True,        # a percentage with one decimal, not 83.9418
                      column_config={"% pairs": st.column_config.NumberColumn(format="%.1f %%")})
        widgets.caption(stale or f"needed: the difference in mean score needed for {conf:.0%} confidence; % pairs: "
                        "share of run pairs at least that far apart. A smaller difference needed: a more sensitive "
                        "metric. Settings on the Swap page.")

    params_bs, B_bs, _ = claims.page_params("bootstrap", c)
    params_sw, B_sw, _ = claims.page_params("swap", c)
    if meta_kinds.report_alphas_wanted(B_bs, params_bs["seed"]):    # as the Bootstrap page asks: one result
        params_bs["report_alphas"] = True
    jobs = [("bootstrap", params_bs, B_bs, "Bootstrap", draw_boot, p1),
            ("swap", params_sw, B_sw, "Swap method", draw_swap, p2)]
    live.discriminative_power(c, s, jobs, ask_box)
    claims.overview(claim_box, c, s)     # checked when asked after a move: dashboard.claims.overview
live.finish_live()
