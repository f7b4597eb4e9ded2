"""Stability (Buckley & Voorhees; 002): error rate against proportion of ties."""
import streamlit as st

from dashboard import cached, figures, shell, widgets

ss = st.session_state
s, full = shell.setup()
c = cached.analysis_collection(full, s)

st.title("Stability")
st.caption(widgets.settings_line(s, c) + f" · {c.n_runs} runs · {c.n_topics} topics")

ss["st_subset"] = min(int(ss["st_subset"]), c.n_topics)
c1, c2, c3 = st.columns(3)
c1.number_input("topics per subset (0 = half)", min_value=0, max_value=max(c.n_topics, 1), step=1, key="st_subset")
c2.number_input("trials B", min_value=10, max_value=100000, step=100, key="st_B")
c3.number_input("seed", min_value=0, max_value=10**6, step=1, key="st_seed")
subset = int(ss["st_subset"]) or None
key = (cached.data_key(c, s), subset, int(ss["st_B"]), int(ss["st_seed"]))
res = widgets.long_computation(
    "stab", key, "Run the stability test",
    lambda prog: cached.stability(cached.scores(c, s), key, subset, int(ss["st_B"]), int(ss["st_seed"]),
                                  _progress=prog),
    "Stability")
if res is not None:
    summ = res["summary"]
    left, right = st.columns([1.4, 1], gap="large")
    with left:
        st.plotly_chart(figures.stability_scatter(summ), width="stretch", key="st_chart")
        st.caption("Each point is one fuzziness value (labelled): run pairs closer than that share of the larger "
                   "score count as ties. Lower-left is better: few errors without calling everything a tie.")
    with right:
        pct = {c: st.column_config.NumberColumn(c.replace("_", " "), format="percent")
               for c in ("fuzziness", "error_rate", "prop_ties") if c in summ}
        widgets.table(summ, digits=4, hide_index=True, height=420, column_config=pct)
