"""Overview, the first screen: it demos itself on the built-in data and follows every sidebar setting.

The run ranking under the current gains beside 3:2:1, the Kendall heatmap
between metrics, and the discriminative power of every metric (bootstrap %
significant, 003 Table 4; swap difference at 95 %, Table 3), all live.
"""
import streamlit as st

from dashboard import cached, figures, safe, shell, state, widgets

ss = st.session_state
s, full, c = shell.setup_analysis()

st.title("How do IR metrics rank these systems?")
st.caption(f"{safe.md(c.name or 'collection')}: {c.n_runs} runs · {c.n_topics} topics · " + widgets.settings_line(s, c))
st.markdown("Move a **gain slider** or **beta** in the sidebar: the ranking, the correlations and the "
            "discriminative power below all follow. Load your own qrels and runs on the Data page.")
st.page_link("views/data.py", label="Load data", icon=":material/upload_file:")

graded = [k for k in s.metric_keys if cached.METRICS[k.partition("@")[0]].uses_gains]
left, right = st.columns([1, 1], gap="large")
with left:
    if not graded:
        st.info("No graded metric is selected in the sidebar: add Q-measure, P-measure or nDCG to see the "
                "ranking move with the gains.")
    else:
        if ss.get("ov_metric") not in graded:
            ss["ov_metric"] = "P-measure" if "P-measure" in graded else graded[0]
        metric = st.selectbox("Ranking by", graded, key="ov_metric")
        df, tau, ref_gains = cached.rank_comparison(c, metric, s)
        ref_name = state.paper(ref_gains) + (" (3:2:1 extended: gain = level)" if c.max_level != 3 else "")
        cur_name = f"current ({state.paper(s.gains)})"
        st.plotly_chart(figures.rank_shift(df, state.paper(ref_gains), cur_name), width="stretch", key="ov_shift")
        moved = int((df["rank_left"] != df["rank_right"]).sum())
        st.caption(f"Each line is a run: its rank by {metric} under {ref_name} (left) and under the current gains "
                   f"(right). {moved} of {len(df)} runs change rank; Kendall tau-b = {tau:.3f}.")
with right:
    st.markdown("**Metrics against each other** (Kendall tau-b between run rankings, 003 Table 2)")
    if c.n_runs < 3:
        st.info(f"Rank correlation needs at least three runs; this collection has {c.n_runs}.")
    else:
        means = cached.means(c, s)
        tau_m, sig = cached.correlation(means, alpha=0.01)
        st.plotly_chart(figures.tau_heatmap(tau_m, sig), width="stretch", key="ov_heat")
        lo, hi = figures.tau_scale(tau_m)
        crit = cached.kendall_critical(c.n_runs, 0.01)
        sig_txt = (f"* = significant at alpha = 0.01 (|tau| >= {crit:.3f} with {c.n_runs} runs)" if crit <= 1 else
                   f"with {c.n_runs} runs no tau can be significant at alpha = 0.01 (it would need "
                   f"|tau| >= {crit:.2f})")
        st.caption(f"Colour scale fixed to [{lo:g}, {hi:g}]. {sig_txt}.")

st.subheader("Discriminative power per metric")
if c.n_runs < 2:
    st.info("Discriminative power compares run pairs: it needs at least two runs.")
else:
    alpha = float(ss["bs_alpha"])
    p1, p2 = st.columns(2, gap="large")

    def draw_boot(res, B_shown, B_chosen):
        summ = res["summary"][["metric", "pct_significant"]].copy()
        summ["share"] = summ["pct_significant"] / 100.0
        fig = figures.share_bars(summ.sort_values("share", ascending=False), "metric", "share",
                                 y_title=f"run pairs significant (alpha = {alpha:g})",
                                 title=f"Bootstrap test (003 Table 4), {widgets.b_title(B_shown, B_chosen)}")
        st.plotly_chart(fig, width="stretch", key="ov_boot")
        st.caption("Higher bars: the metric tells more run pairs apart. Settings on the Bootstrap page.")

    def draw_swap(res, B_shown, B_chosen):
        summ = res["summary"]
        conf = summ["confidence"].max()
        row = summ[summ["confidence"] == conf][["metric", "abs_diff", "pct_comparisons"]]
        shown = row.sort_values("abs_diff").rename(columns={"abs_diff": f"difference needed ({conf:.0%})",
                                                            "pct_comparisons": "% of pairs that large"})
        st.markdown(f"**Swap method (003 Table 3)**, {params_sw['sampling']} sampling, "
                    f"{widgets.b_title(B_shown, B_chosen)}")
        widgets.table(shown, digits=4, hide_index=True)
        st.caption("A smaller difference needed: a more sensitive metric. Settings on the Swap page.")

    params_sw = {"sampling": ss["sw_sampling"], "subset_size": min(int(ss["sw_subset"]), c.n_topics) or None,
                 "seed": int(ss["sw_seed"])}
    with p1:
        widgets.live_meta("bootstrap", c, s, {"alpha": alpha, "seed": int(ss["bs_seed"])}, int(ss["bs_B"]),
                          "Bootstrap", draw_boot)
    with p2:
        widgets.live_meta("swap", c, s, params_sw, int(ss["sw_B"]), "Swap method", draw_swap)
widgets.finish_live()
