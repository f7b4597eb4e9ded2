"""Stability (Buckley & Voorhees 2000; Sakai 2006): error rate against proportion of ties. Live, no button."""
import streamlit as st

from dashboard import live, shell, widgets
from evalcore import figures

ss = st.session_state
s, full, c = shell.setup_analysis()

st.title("Stability")
widgets.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics")
if c.n_runs < 2:
    st.warning(f"Stability compares run pairs: it needs at least two runs; this collection has {c.n_runs}.")
    st.stop()

ss["st_subset"] = min(int(ss["st_subset"]), c.n_topics)
st.number_input("topics per subset (0 = half)", min_value=0, max_value=max(c.n_topics, 1), step=1, key="st_subset")
live.b_controls("trials", "st_B", "st_seed")
params = {"subset_size": int(ss["st_subset"]) or None, "seed": int(ss["st_seed"])}


def draw(res, B_shown, B_chosen):
    summ = res["summary"]
    fig = figures.stability_scatter(summ, title=f"Error rate vs ties, {live.b_title(B_shown, B_chosen)}", top=70)
    widgets.chart(fig, width="stretch", key="st_chart")
    widgets.caption("Each point is one fuzziness value (hover for it; the lowest and highest are labelled): run pairs "
                    "closer than that share of the larger score count as ties. Lower-left is better: few errors "
                    "without calling everything a tie.")
    pct = {col: st.column_config.NumberColumn(col.replace("_", " "), format="percent")
           for col in ("fuzziness", "error_rate", "prop_ties") if col in summ}
    widgets.table(summ, digits=4, hide_index=True, height=420, column_config=pct)


live.live_meta("stability", c, s, params, int(ss["st_B"]), "Stability", draw)
live.finish_live()
