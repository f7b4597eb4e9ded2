"""Which gains should I report? Sakai 2007 Tables 5 and 6 made interactive.

For one metric, a sweep over gain settings - the papers' presets (adapted to
the collection's K levels, labelled with the values used), a geometric
family at fixed ratios, the ratio on the slider, the sidebar's gains - with,
side by side, Kendall tau-b against 3:2:1 (Table 5: does the ranking
change?) and the bootstrap test's % significant pairs with its Monte Carlo
spread over repeated seeds (Table 6: does discriminative power change?).
"""
import pandas as pd
import streamlit as st

from dashboard import gainsets, scoring, shell, state, widgets
from evalcore import figures

ss = st.session_state
s, full, c = shell.setup_analysis()
K = c.max_level

st.title("Which gains should I report?")
widgets.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics")
graded = [k for k in s.metric_keys if scoring.METRICS[k.partition("@")[0]].uses_gains]
if K < 2:
    st.info("This collection has one relevance level: every gain setting gives the same ranking, so there is "
            "nothing to choose.")
    st.stop()
if not graded:
    st.info(f"Add a graded metric (Q-measure, P-measure, nDCG ...) in {widgets.sidebar_words()}: the others ignore "
            "gains.")
    st.stop()
if c.n_runs < 3:
    st.info(f"Comparing rankings needs at least three runs; this collection has {c.n_runs}.")
    st.stop()

if ss.get("gv_metric") not in graded:
    ss["gv_metric"] = "Q-measure" if "Q-measure" in graded else graded[0]
c1, c2, c3, c4 = st.columns([1.2, 1.6, 0.8, 0.8])
metric = c1.selectbox("Metric", graded, key="gv_metric")
RATIOS = [1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0]
if ss["gv_ratio"] not in RATIOS:
    ss["gv_ratio"] = 10.0
ratio = c2.select_slider("ratio: gain of the top level / gain of level 1", RATIOS, key="gv_ratio",
                         help="A geometric setting: level 1 gets 1, the top level gets the ratio, levels between "
                              "are spaced evenly on a log scale.")
if ss["gv_B"] not in (100, 200, 500, 1000):     # a value from the address this page does not offer
    ss["gv_B"] = 200
if ss["gv_rep"] not in (3, 5, 10):
    ss["gv_rep"] = 5
B = c3.selectbox("B per test", [100, 200, 500, 1000], key="gv_B")
reps = c4.selectbox("repetitions", [3, 5, 10], key="gv_rep", help="Seeds bootstrap_seed, +1, ...: the spread "
                    "shows how much % significant moves from Monte Carlo error alone.")
alpha, seed = float(state.value("bs_alpha")), int(state.value("bs_seed"))    # the Bootstrap page's
ref = gainsets.preset_gains("3:2:1", K)

settings = gainsets.gain_settings(K, ratio, s.gains)
rows = gainsets.power_rows(c, metric, s, settings, ref, alpha=alpha, B=B, seed=seed, repeats=reps)
df = pd.DataFrame(rows)
df["_top"] = [max(g) / min(g) for _, _, g in settings]
df = df.sort_values(["_top", "setting"], kind="stable").drop(columns="_top").reset_index(drop=True)

left, right = st.columns(2, gap="large")
with left:
    widgets.chart(figures.setting_points(df, "tau", y_title=f"Kendall tau-b against {state.paper(ref)}",
                                           y_range=(-1.02, 1.02) if df["tau"].min() < 0 else (0, 1.02),
                                           title=f"Does the {metric} ranking change? (Sakai 2007 Table 5)"),
                    width="stretch", key="gv_tau")
    widgets.caption(f"tau between the run ranking under each setting and under {state.paper(ref)}. "
                    "Orange: the ratio slider and the sidebar's current gains.")
with right:
    widgets.chart(figures.setting_points(df, "pct", lo="min", hi="max", sd="sd",
                                           y_title=f"% pairs significant (alpha = {alpha:g})",
                                           title=f"Discriminative power (Sakai 2007 Table 6), B = {B}, {reps} seeds"),
                    width="stretch", key="gv_power")
    widgets.caption(f"Paired bootstrap test at alpha = {alpha:g} with B = {B}, repeated {reps} times "
                    f"(seed {seed}, then seeds derived from it): dot = mean, bar = min..max. "
                    "Differences smaller than the bars are "
                    "Monte Carlo noise, not the gains.")
shown = df.rename(columns={"setting": "gains (values used)", "tau": "tau vs " + state.paper(ref),
                           "pct": "% significant (mean)", "sd": "sd", "min": "min", "max": "max"})
widgets.table(shown, digits=3, hide_index=True)
verdict = gainsets.gain_choice_verdict(df["tau"], df["pct"], df["min"], df["max"], c.n_runs * (c.n_runs - 1) // 2,
                              reference=state.paper(ref))
widgets.markdown(f"**Reading it.** {verdict['text']}")
