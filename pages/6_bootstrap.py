"""Bootstrap sensitivity (003 Sec. 4.3, Table 4) and randomised Tukey HSD."""
import streamlit as st

from dashboard import cached, figures, shell, state, widgets

ss = st.session_state
s, full = shell.setup()
c = cached.analysis_collection(full, s)

st.title("Bootstrap sensitivity")
st.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs ({c.n_runs * (c.n_runs - 1) // 2} pairs) · "
           f"{c.n_topics} topics")
if c.n_runs < 2:
    st.warning("Significance tests need at least two runs.")
    st.stop()

c1, c2, c3 = st.columns(3)
c1.select_slider("significance level alpha", options=list(state.ALPHAS), key="bs_alpha")
c2.number_input("bootstrap samples / permutations B", min_value=10, max_value=100000, step=100, key="bs_B")
c3.number_input("seed", min_value=0, max_value=10**6, step=1, key="bs_seed")
alpha, B, seed = float(ss["bs_alpha"]), int(ss["bs_B"]), int(ss["bs_seed"])
key = (cached.data_key(c, s), alpha, B, seed)

tab_b, tab_t = st.tabs(["Paired bootstrap test", "Randomised Tukey HSD"])
with tab_b:
    res = widgets.long_computation(
        "boot", key, "Run the bootstrap test",
        lambda prog: cached.bootstrap(cached.scores(c, s), key, tuple(c.run_ids), B, seed, alpha,
                                      _progress=prog),
        "Bootstrap")
    if res is not None:
        left, right = st.columns([1.4, 1], gap="large")
        with left:
            st.plotly_chart(
                figures.lines(res["asl_curves"], "pair_rank", "asl", "metric",
                              x_title="run pairs, sorted by ASL", y_title="achieved significance level (ASL)",
                              ref_y=alpha, ref_label=f"alpha = {alpha:g}", markers=False),
                width="stretch", key="bs_chart")
            st.caption("Each curve sorts one metric's run pairs by their ASL (p-value). The further right a curve "
                       "stays below the alpha line, the more pairs the metric can tell apart: "
                       "higher discriminative power.")
        with right:
            st.markdown("**Discriminative power (003 Table 4)**")
            widgets.table(res["summary"], digits=4, hide_index=True,
                          column_config={"pct_significant": st.column_config.NumberColumn("% significant",
                                                                                         format="%.1f")})
            st.caption("estimated_diff (003 Fig. 7): for each pair, the mean difference of the bootstrap sample at the "
                       "B*alpha-th largest |t|; the largest over pairs, to two significant figures: about the "
                       "difference in means needed for significance.")
        st.markdown("**Every run pair**")
        pairs = res["pairs"]
        only = st.toggle("significant pairs only", key="bs_only_sig")
        widgets.table(pairs[pairs["significant"]] if only else pairs, digits=4, hide_index=True, height=360)
with tab_t:
    st.caption("Tests every run pair at once, controlling the family-wise error rate (Carterette 2012, "
               "Sakai 2012): fewer pairs come out significant than with pairwise tests.")
    res = widgets.long_computation(
        "tukey", key, "Run Tukey HSD",
        lambda prog: cached.tukey(cached.scores(c, s), key, tuple(c.run_ids), B, seed, alpha,
                                  _progress=prog),
        "Randomised Tukey HSD")
    if res is not None:
        widgets.table(res["summary"], digits=4, hide_index=True)
        pairs = res["pairs"]
        if "metric" in pairs and "significant" in pairs:
            share = pairs.groupby("metric", sort=False)["significant"].mean().reset_index()
            st.plotly_chart(figures.share_bars(share, "metric", "significant",
                                               y_title="run pairs significant (Tukey HSD)"),
                            width="stretch", key="tk_chart")
            st.caption("Share of run pairs each metric separates under Tukey HSD at the chosen alpha.")
        widgets.table(pairs, digits=4, hide_index=True, height=360)
