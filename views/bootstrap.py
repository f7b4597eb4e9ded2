"""Bootstrap sensitivity (Sakai 2007 Sec. 4.3, Table 4) and randomised Tukey HSD. Live, no button."""
import streamlit as st

from dashboard import claims, live, meta_kinds, shell, state, widgets
from evalcore import figures

ss = st.session_state
s, full, c = shell.setup_analysis()

st.title("Bootstrap sensitivity")
widgets.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs ({c.n_runs * (c.n_runs - 1) // 2} pairs) · "
                f"{c.n_topics} topics")
if c.n_runs < 2:
    st.warning(f"Significance tests compare run pairs: they need at least two runs; this collection has "
               f"{c.n_runs}.")
    st.stop()

st.select_slider("significance level alpha", options=list(state.ALPHAS), key="bs_alpha")
live.b_controls("bootstrap samples / permutations", "bs_B", "bs_seed")
alpha, B, seed = float(ss["bs_alpha"]), int(ss["bs_B"]), int(ss["bs_seed"])
params = {"alpha": alpha, "seed": seed}
# at the Report page's B and seed, the bootstrap also computes the Report's alphas, for the Report to take
boot_params = {**params, "report_alphas": True} if meta_kinds.report_alphas_wanted(B, seed) else params


def draw_boot(res, B_shown, B_chosen):
    fig = figures.lines(res["asl_curves"], "pair_rank", "asl", "metric",
                        x_title="run pairs, sorted by ASL", y_title="achieved significance level (ASL)",
                        ref_y=alpha, ref_label=f"alpha = {alpha:g}", markers=False, top=70,
                        title=f"ASL curves, {live.b_title(B_shown, B_chosen)}")
    widgets.chart(fig, width="stretch", key="bs_chart")
    widgets.caption("Each curve sorts one metric's run pairs by their ASL (p-value). The further right a curve "
                    "stays below the alpha line, the more pairs the metric can tell apart: "
                    "higher discriminative power.")
    widgets.markdown(f"**Discriminative power (Sakai 2007 Table 4)**, {live.b_title(B_shown, B_chosen)}")
    # the unrounded copy of the difference needed stays in the downloads: on a 1024 px screen the table
    # then shows every column without scrolling sideways
    widgets.table(res["summary"].drop(columns=["estimated_diff_raw"], errors="ignore"), digits=4, hide_index=True,
                  column_config={"pct_significant": st.column_config.NumberColumn("% significant", format="%.1f")})
    widgets.caption("Difference needed for significance (Sakai 2007 Fig. 7): for each pair, the mean difference of the "
                    "bootstrap sample at the "
                    "B*alpha-th largest |t|; the largest over pairs, to two significant figures: about the "
                    "difference in means needed for significance.")
    pairs = res["pairs"]
    only = st.toggle("significant pairs only", key="bs_only_sig")
    with st.expander(f"Every run pair ({len(pairs)} rows)"):
        widgets.table(pairs[pairs["significant"]] if only else pairs, digits=4, hide_index=True, height=360)


def draw_tukey(res, B_shown, B_chosen):
    pairs = res["pairs"]
    if "metric" in pairs and "significant" in pairs:
        share = pairs.groupby("metric", sort=False)["significant"].mean().reset_index()
        fig = figures.share_bars(share, "metric", "significant", y_title="run pairs significant (Tukey HSD)",
                                 title=f"Randomised Tukey HSD, alpha = {alpha:g}, {live.b_title(B_shown, B_chosen)}")
        widgets.chart(fig, width="stretch", key="tk_chart")
        widgets.caption("Share of run pairs each metric separates under Tukey HSD at the chosen alpha.")
    widgets.table(res["summary"], digits=4, hide_index=True)
    with st.expander(f"Every run pair ({len(pairs)} rows)"):
        widgets.table(pairs, digits=4, hide_index=True, height=360)


TABS = ["Paired bootstrap test", "Randomised Tukey HSD"]
if ss.get("bs_tab") not in TABS:           # "" (the default) or a value from the address this page lacks
    ss["bs_tab"] = TABS[0]
tab_b, tab_t = st.tabs(TABS, key="bs_tab", on_change="rerun")   # the tab in session state, so in the address
R = meta_kinds.SPREAD_REPEATS


def draw_boot_spread(res, B_shown, B_chosen):
    live.spread_chart(res, "pct_significant", {"alpha": alpha}, y_title="% pairs significant",
                         what=f"% significant at alpha = {alpha:g}", repeats=R, seed=seed,
                         B_shown=B_shown, B_chosen=B_chosen, key="bs_spread_chart")


with tab_b:
    live.live_meta("bootstrap", c, s, boot_params, B, "Bootstrap", draw_boot)
    widgets.markdown(f"**Monte Carlo spread** of discriminative power over {R} repetitions")
    live.live_meta("bootstrap_spread", c, s, {**boot_params, "repeats": R}, B, "Bootstrap spread",
                      draw_boot_spread)
    widgets.markdown("**Sakai 2007's claim on this data**")
    claims.show(claims.compute("bootstrap", c, s, *claims.page_params("bootstrap", c)), compact=True)
with tab_t:
    widgets.caption("Tests every run pair at once, controlling the family-wise error rate (Carterette 2012, "
                    "Sakai 2012): fewer pairs come out significant than with pairwise tests.")
    live.live_meta("tukey", c, s, params, B, "Randomised Tukey HSD", draw_tukey)
live.finish_live()
