"""Rankings: mean of every metric per run; how the ranking moves with the gains; per-topic views."""
import numpy as np
import pandas as pd
import streamlit as st

from dashboard import gainsets, pages, ranks, safe, scoring, shell, state, widgets
from evalcore import figures

DETAIL_TABS = pages.RANKINGS_DETAIL     # the per-topic views, one tab each (the open one is in the address)

ss = st.session_state
s, full = shell.setup()
c = scoring.analysis_collection(full, s)

st.title("Rankings")
widgets.caption(widgets.settings_line(s, c)
                + (f" · top {c.n_runs} runs by {s.top_by}" if c.n_runs < full.n_runs else ""))

means = scoring.means(c, s)
metric = widgets.metric_select("Metric", "rk_metric", s, default="P-measure",
                               help="The metric of the chart, the gain comparison and the per-topic views.")
by_mean = np.argsort(-means[metric].to_numpy(), kind="stable")      # best first; ties in the runs' order
order = means.index[by_mean]

widgets.chart(figures.ranking_bars(means, metric), width="stretch", key="rk_bars")
widgets.caption(f"Runs by mean {metric}. Look for close neighbours: small gaps are where metrics disagree.")
# full width: with one column per metric the table is wider than half a page (so it is drawn full width, not in a
# column)
widgets.markdown("**Mean over topics, every metric** (click a header to sort)")
shown = means.iloc[by_mean]
shown.insert(0, "rank", np.arange(1, len(shown) + 1))
widgets.table(shown, digits=4)      # every row up to 30 runs; more scroll, and the table says so

spec = scoring.METRICS[metric.partition("@")[0]]
ref_gains = gainsets.preset_gains("3:2:1", s.K)
# the papers' 3:2:1 with the values used for this collection's levels (gain = level: 4:3:2:1 on four levels)
REF = state.paper(ref_gains)
REF_NOTE = "" if s.K == 3 else " (gain = level, the papers' default extended to this collection's levels)"
widgets.subheader(f"Current gains against {REF}")
if not spec.uses_gains:
    st.info(f"{metric} does not use gains; pick a graded metric (Q-measure, P-measure, nDCG ...) to see "
            "the ranking move with the gain sliders.")
else:
    ref = scoring.score(c, metric, state.Settings(**{**s.__dict__, "gains": tuple(ref_gains)})).mean(axis=1)
    cur = means[metric].to_numpy()
    df = ranks.rank_frame(c.run_ids, ref, cur)
    cur_name = f"current ({state.paper(s.gains)})"
    # the table beside the chart needs ~330 px for its five columns (a 1024 px screen gives the page 676)
    l2, r2 = st.columns([1, 1.3], gap="large")
    with l2:
        widgets.chart(figures.rank_shift(df, REF, cur_name), width="stretch", key="rk_shift")
        moved = int((df["rank_left"] != df["rank_right"]).sum())
        widgets.caption(f"Each line is a run: its rank under {REF}{REF_NOTE} (left) and under the current gains "
                        f"(right). Blue moved up, orange down. {moved} of {len(df)} runs change rank.")
    with r2:
        if list(s.gains) == list(ref_gains):
            st.info(f"The gains are at {REF}. " + ("Change a **gain box** at the top of the page, or pick a preset in "
                    f"{widgets.sidebar_words()}, to compare." if ss.get("present") else
                    "Move a gain slider or pick a preset in the sidebar to compare."))
        tau = ranks.kendall(ref, cur)
        st.metric("Kendall tau-b between the two rankings", f"{tau:.3f}")
        by_now = np.argsort(df["rank_right"].to_numpy(), kind="stable")       # built sorted: one frame
        rank_l, rank_r = df["rank_left"].to_numpy()[by_now], df["rank_right"].to_numpy()[by_now]
        widgets.table(pd.DataFrame({"run": df["run"].to_numpy()[by_now], f"rank {REF}": rank_l, "rank now": rank_r,
                                    "change": rank_l - rank_r, metric: cur[by_now]}),
                      digits=4, hide_index=True, height=360)

# The per-topic views in tabs, and only the open tab computed: a gain move redraws the ranking above and the open
# tab, not three sections below the fold (they were a fifth of a move's CPU: docs/benchmarks.md section 16.3)
widgets.subheader("Per-topic views")
widgets.caption("One tab each: only the open tab is computed, so a slider move redraws what is on "
                "screen.")
tabs = st.tabs(list(DETAIL_TABS), key="rk_detail", on_change="rerun")


def per_topic() -> pd.DataFrame:
    """The metric per run (rows, best mean first) and topic."""
    return pd.DataFrame(scoring.score(c, metric, s)[by_mean], index=order, columns=list(c.topic_ids))


with tabs[0]:
    if tabs[0].open:
        widgets.note_heading(DETAIL_TABS[0])
        mat = per_topic()
        widgets.chart(figures.topic_heatmap(mat, metric), width="stretch", key="rk_heat")
        widgets.caption("Every cell is one run on one topic; runs sorted by their mean. Columns dark for every run "
                        "are hard topics; a run bright where its neighbours are dark has a specialty.")
with tabs[1]:
    if tabs[1].open:
        widgets.note_heading(DETAIL_TABS[1])
        mat = per_topic()
        runs = list(order)
        for key, i in (("rk_run_x", 0), ("rk_run_y", 1)):
            if ss.get(key) not in runs:
                ss[key] = runs[min(i, len(runs) - 1)]
        d1, d2 = st.columns(2)
        x = d1.selectbox("run x", runs, key="rk_run_x", format_func=safe.text)
        y = d2.selectbox("run y", runs, key="rk_run_y", format_func=safe.text)
        mx, my = mat.loc[x].to_numpy(), mat.loc[y].to_numpy()
        diff = pd.DataFrame({"topic": mat.columns, "x": mx, "y": my, "diff": mx - my})
        widgets.chart(figures.run_difference(diff, x, y, metric), width="stretch", key="rk_diff")
        wins, losses = int((diff["diff"] > 0).sum()), int((diff["diff"] < 0).sum())
        widgets.caption(f"{safe.md(x)} beats {safe.md(y)} on {wins} topics, loses on {losses}, ties on "
                        f"{len(diff) - wins - losses}; mean difference {diff['diff'].mean():+.4f}. A few tall bars "
                        "mean the gap rests on a few topics.")
with tabs[2]:
    if tabs[2].open:
        widgets.note_heading("How deep does a P-measure user go?")
        dv = scoring.depth_view(c, figures.depth_ecdf)     # reads the data alone: made once, not at every move
        if dv["empty"]:
            st.info("No run retrieves a relevant document.")
        else:
            l3, r3 = st.columns([1.5, 1], gap="large")
            with l3:
                widgets.chart(dv["fig"], width="stretch", key="rk_depth")
                widgets.caption("Share of (run, topic) lists whose first relevant (r_1) or preferred (r_p) document "
                                "sits at or above each rank (Sakai 2007 Appendix). The gap between the curves is the "
                                "extra scanning P-measure assumes.")
            with r3:
                st.metric("median r_p", f"{dv['median_rp']:.0f}")
                st.metric("lists where r_p > r_1",
                          f"{dv['share_later']:.1%}" if dv["share_later"] is not None else "–")
                st.metric("mean extra ranks scanned (r_p - r_1)",
                          f"{dv['extra']:.1f}" if dv["extra"] is not None else "–")
                with st.expander("per topic"):
                    widgets.table(dv["per_topic"], digits=1, hide_index=True)
