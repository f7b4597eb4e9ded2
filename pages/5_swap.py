"""Swap method (003 Sec. 4.2, Table 3): how large a difference must be to hold on another topic set."""
import streamlit as st

from dashboard import cached, figures, shell, widgets

ss = st.session_state
s, full = shell.setup()
c = cached.analysis_collection(full, s)

st.title("Swap method")
st.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics · metrics: "
           + ", ".join(s.metric_keys))

ss["sw_subset"] = min(int(ss["sw_subset"]), c.n_topics)
c1, c2, c3, c4 = st.columns(4)
c1.selectbox("topic sampling", ["replacement", "disjoint", "independent"], key="sw_sampling",
             help="replacement: two bootstrap samples of the topics (003); disjoint: two disjoint halves "
                  "(Voorhees & Buckley, 004); independent: two subsets drawn independently.")
c2.number_input("topics per sample (0 = default)", min_value=0, max_value=max(c.n_topics, 1), step=1,
                key="sw_subset", help="Default: all topics with replacement, half of them otherwise.")
c3.number_input("trials B", min_value=10, max_value=100000, step=100, key="sw_B")
c4.number_input("seed", min_value=0, max_value=10**6, step=1, key="sw_seed")
subset = int(ss["sw_subset"]) or None
key = (cached.data_key(c, s), ss["sw_sampling"], subset, int(ss["sw_B"]), int(ss["sw_seed"]))
res = widgets.long_computation(
    "swap", key, "Run the swap method",
    lambda prog: cached.swap(cached.scores(c, s), key, ss["sw_sampling"], subset, int(ss["sw_B"]),
                             int(ss["sw_seed"]), _progress=prog),
    "Swap method")
if res is not None:
    curves = res["curves"].dropna(subset=["swap_rate"])
    left, right = st.columns([1.4, 1], gap="large")
    with left:
        st.plotly_chart(
            figures.lines(curves, "lower", "swap_rate", "metric", x_title="difference in mean score |D| (bin lower edge)",
                          y_title="swap rate (share of trials that disagree)", y_percent=True,
                          ref_y=0.05, ref_label="5% (95% confidence)"),
            width="stretch", key="sw_chart")
        st.caption("A curve that falls below the dashed 5% line early belongs to a metric that needs only a small "
                   "difference to give a reliable conclusion: a sensitive metric.")
    with right:
        summ = res["summary"]
        st.markdown("**Sensitivity summary (003 Table 3)**")
        confs = sorted(summ["confidence"].unique(), reverse=True)
        conf = st.segmented_control("confidence", confs, default=confs[0], format_func=lambda v: f"{v:.0%}",
                                    key="sw_conf") or confs[0]
        summ = summ[summ["confidence"] == conf]        # sorted by % comparisons, as 003 Table 3
        widgets.table(summ, digits=4, hide_index=True,
                      column_config={"confidence": st.column_config.NumberColumn(format="%.2f"),
                                     "pct_comparisons": st.column_config.NumberColumn("% comparisons", format="%.1f")})
        st.caption("abs_diff: the difference needed for that confidence; max_performance: the largest mean score "
                   "of any run on any sampled topic set; relative: abs_diff / max_performance; % comparisons: "
                   "share of comparisons (pairs x trials) whose difference is at least abs_diff.")
