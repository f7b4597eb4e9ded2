"""Swap method (Sakai 2007 Sec. 4.2, Table 3): how large a difference must be to hold on another topic set.

Live: the result follows every sidebar setting with no button (quick pass
first when the chosen B does not fit the interactive budget, see
dashboard.live.live_meta).
"""
import streamlit as st

from dashboard import claims, live, meta_kinds, shell, widgets
from evalcore import figures

ss = st.session_state
s, full, c = shell.setup_analysis()

st.title("Swap method")
widgets.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics · metrics: "
                + ", ".join(s.metric_keys))
if c.n_runs < 2:
    st.warning(f"The swap method compares run pairs: it needs at least two runs; this collection has {c.n_runs}.")
    st.stop()

ss["sw_subset"] = min(int(ss["sw_subset"]), c.n_topics)
c1, c2 = st.columns(2)
c1.selectbox("topic sampling", ["replacement", "disjoint", "independent"], key="sw_sampling",
             help="replacement: two bootstrap samples of the topics (Sakai 2007); disjoint: two disjoint halves "
                  "(Voorhees & Buckley 2002; Sakai 2005); independent: two subsets drawn independently.")
c2.number_input("topics per sample (0 = default)", min_value=0, max_value=max(c.n_topics, 1), step=1,
                key="sw_subset", help="Default: all topics with replacement, half of them otherwise.")
live.b_controls("trials", "sw_B", "sw_seed")
params = {"sampling": ss["sw_sampling"], "subset_size": int(ss["sw_subset"]) or None, "seed": int(ss["sw_seed"])}


def draw(res, B_shown, B_chosen):
    curves = res["curves"].dropna(subset=["swap_rate"])
    fig = figures.lines(curves, "lower", "swap_rate", "metric",
                        x_title="difference in mean score |D| (bin lower edge)",
                        y_title="swap rate (share of trials that disagree)", y_percent=True,
                        ref_y=0.05, ref_label="5% (95% confidence)", top=70,
                        title=f"Swap rates, {params['sampling']} sampling, {live.b_title(B_shown, B_chosen)}")
    widgets.chart(fig, width="stretch", key="sw_chart")
    widgets.caption("A curve that falls below the dashed 5% line early belongs to a metric that needs only a small "
                    "difference to give a reliable conclusion: a sensitive metric.")
    summ = res["summary"]
    widgets.markdown(f"**Sensitivity summary (Sakai 2007 Table 3)**, {live.b_title(B_shown, B_chosen)}")
    confs = sorted(summ["confidence"].unique(), reverse=True)
    if ss.get("sw_conf") not in confs:      # a value from the address this result does not have
        ss["sw_conf"] = min(confs, key=lambda v: abs(v - float(ss.get("sw_conf") or 0.95)))
    conf = st.segmented_control("confidence", confs, format_func=lambda v: f"{v:.0%}", key="sw_conf") or confs[0]
    # sorted by % comparisons, as Sakai 2007 Table 3; the confidence is the one chosen above (not repeated
    # in a column, so that every column fits at 1024 px)
    summ = summ[summ["confidence"] == conf].drop(columns="confidence")
    widgets.table(summ, digits=4, hide_index=True,
                  column_config={"pct_comparisons": st.column_config.NumberColumn("% comparisons", format="%.1f")})
    widgets.caption("Difference needed: the difference in mean score needed for that confidence; largest mean score: "
                    "of any run on any sampled topic set; difference / largest: the two divided; % comparisons: "
                    "share of comparisons (pairs x trials) whose difference is at least the one needed.")


live.live_meta("swap", c, s, params, int(ss["sw_B"]), "Swap method", draw)


def draw_spread(res, B_shown, B_chosen):
    conf = ss.get("sw_conf") or float(res["spread"]["confidence"].max())
    live.spread_chart(res, "pct_comparisons", {"confidence": conf}, y_title="% comparisons",
                         what=f"% comparisons at {conf:.0%} confidence", repeats=R, seed=params["seed"],
                         B_shown=B_shown, B_chosen=B_chosen, key="sw_spread_chart",
                         note=" A ranking of metrics that flips inside these ranges is not a finding of one seed "
                              "(Sakai 2007's Table 3 is one draw).")


R = meta_kinds.SPREAD_REPEATS
widgets.markdown(f"**Monte Carlo spread** of the summary over {R} repetitions")
live.live_meta("swap_spread", c, s, {**params, "repeats": R}, int(ss["sw_B"]), "Swap spread", draw_spread)
widgets.markdown("**Sakai 2007's claim on this data**")
claims.show(claims.compute("swap", c, s, *claims.page_params("swap", c)), compact=True)
live.finish_live()
