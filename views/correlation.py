"""Rank correlation: Kendall tau-b across metrics, across gain settings, and as one gain moves."""
import streamlit as st

from dashboard import gainsets, paper_checks, ranks, scoring, shell, state, widgets
from evalcore import figures

ss = st.session_state
s, full = shell.setup()
c = scoring.analysis_collection(full, s)

st.title("Rank correlation")
widgets.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs")

if c.n_runs < 3:
    st.warning("Rank correlation needs at least three runs.")
    st.stop()

means = scoring.means(c, s)
tau, sig = ranks.correlation(means, alpha=0.01)
widgets.subheader("Metrics against each other (Sakai 2007 Table 2)")
widgets.chart(figures.tau_heatmap(tau, sig), width="stretch", key="kc_heat")
crit = ranks.kendall_critical(c.n_runs, 0.01)
lo, hi = figures.tau_scale(tau)
if crit <= 1:
    sig_txt = f"* = significant at alpha = 0.01 (two-sided; |tau| of at least {crit:.3f} with {c.n_runs} runs)."
else:
    sig_txt = (f"With only {c.n_runs} runs **no Kendall tau can be significant** at alpha = 0.01: the test "
               f"(Sakai 2007 Eq. 9) would need |tau| >= {crit:.2f}, above the largest possible value 1. Use more runs.")
widgets.caption(f"Kendall tau-b between the run rankings of every pair of metrics ({c.n_runs} runs). {sig_txt} "
                f"Colour scale fixed to [{lo:g}, {hi:g}]"
                + (" (every tau here is >= 0)" if lo == 0 else "") + ": light cells are metrics that rank the runs "
                "alike; a dark row marks a metric that sees the systems differently.")

widgets.subheader("Beside Sakai 2007 Table 2")
cmp = paper_checks.table2(c, s)
paper_checks.findings(cmp)
pairs = paper_checks.tau_frame(cmp)
widgets.table(pairs.reset_index(), hide_index=True, height=widgets.rows_height(len(pairs)),
              label="Every pair of Sakai 2007 Table 2's metrics beside the paper")
widgets.caption("Table 2's seven metrics under the sidebar's settings, chosen or not. agrees?: yes when tau here "
                "lies in Sakai 2007's range; yes, within the uncertainty, when it lies outside but other topic sets of "
                "this size reach the range; no when even they do not.")

widgets.subheader("Gain settings for one metric (Sakai 2007 Table 5)")
graded = [k for k in s.metric_keys if scoring.METRICS[k.partition("@")[0]].uses_gains]
if not graded:
    st.info(f"Add a graded metric (Q-measure, P-measure, nDCG ...) in {widgets.sidebar_words()} to compare gain "
            "settings.")
    st.stop()
if ss.get("kc_metric") not in graded:
    ss["kc_metric"] = "P-measure" if "P-measure" in graded else graded[0]
metric = st.selectbox("Metric", graded, key="kc_metric")
table = gainsets.gain_settings_means(c, metric, s)
gtau, gsig = ranks.correlation(table, alpha=0.01)
widgets.chart(figures.tau_heatmap(gtau, gsig), width="stretch", key="kc_gain_heat")
glo, ghi = figures.tau_scale(gtau)
widgets.caption(f"Kendall tau-b between the rankings {metric} gives under each gain setting (highest level first, "
                f"values used for this collection's {c.max_level} levels; presets that do not extend to them are "
                f"left out). Colour scale fixed to [{glo:g}, {ghi:g}]. Values near 1 mean the choice of gains hardly "
                "matters for this metric on this data; the **Which gains should I report?** page adds discriminative "
                "power.")
# full width: one column per setting plus "current (...)" is wider than half a page (so it is drawn full width, not in
# a column)
widgets.markdown(f"**Mean {metric} per run under each setting**")
widgets.table(table.sort_values(table.columns[0], ascending=False), digits=4)     # every row up to 30 runs

widgets.subheader("Gain sweep")
K = c.max_level
names = state.level_names(K, c.level_names)
if not 1 <= int(ss.get("kc_level", 0)) <= K:
    ss["kc_level"] = K
level = st.radio("Level whose gain moves", options=list(range(K, 0, -1)), key="kc_level", horizontal=True,
                 format_func=lambda L: f"{names[L - 1]} (level {L})")
sweep = gainsets.gain_sweep(c, metric, s, level)
widgets.chart(figures.gain_sweep(sweep.assign(metric=metric), level_name=names[level - 1], current=s.gains[level - 1],
                                 reference=state.paper(gainsets.preset_gains("3:2:1", K))),
              width="stretch", key="kc_sweep")
widgets.caption(f"The other levels keep their current gains ({state.paper(s.gains)}). Where the curve stays near 1 "
                f"the gain of {names[level - 1]} barely changes the ranking; a drop shows where it starts to matter.")
