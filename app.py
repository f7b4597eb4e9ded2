"""evalcore dashboard: `python -m streamlit run app.py`.

Page config, the shared sidebar and navigation; every page lives in pages/
and every computation in dashboard/ -> evalcore (STYLE.md).
"""
import streamlit as st

from dashboard import cached, state, widgets

st.set_page_config(page_title="evalcore · IR metric dashboard", page_icon=":material/leaderboard:",
                   layout="wide", initial_sidebar_state="expanded")

state.init(cached.METRIC_KEYS)
state.keep_alive()
if st.session_state.get("_switch_to_upload"):  # the Data page just loaded files
    st.session_state["dataset"] = "upload"
if st.session_state["dataset"] == "upload" and st.session_state.get("uploaded") is None:
    st.session_state["dataset"] = "sim"
    st.toast("Uploaded data lives only in the browser session that uploaded it; showing the simulated collection.")
collection = cached.current_collection()
state.set_levels(collection.max_level)
widgets.sidebar(collection)
for msg in st.session_state.pop("_url_warnings", []):
    st.toast(msg)

pages = [
    st.Page("pages/1_data.py", title="Data", icon=":material/database:", url_path="data", default=True),
    st.Page("pages/2_playground.py", title="Metric playground", icon=":material/school:", url_path="playground"),
    st.Page("pages/3_rankings.py", title="Rankings", icon=":material/leaderboard:", url_path="rankings"),
    st.Page("pages/4_correlation.py", title="Rank correlation", icon=":material/grid_on:", url_path="correlation"),
    st.Page("pages/5_swap.py", title="Swap method", icon=":material/swap_horiz:", url_path="swap"),
    st.Page("pages/6_bootstrap.py", title="Bootstrap sensitivity", icon=":material/ssid_chart:", url_path="bootstrap"),
    st.Page("pages/7_stability.py", title="Stability", icon=":material/balance:", url_path="stability"),
    st.Page("pages/8_report.py", title="Report", icon=":material/description:", url_path="report"),
]
page = st.navigation(pages)
try:
    page.run()
except (ValueError, cached.InputError) as e:  # a bad setting: say so, keep the app alive
    st.error(f"This view could not be computed with the current settings: {e}", icon=":material/error:")
state.sync_url()
