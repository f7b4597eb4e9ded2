"""evalcore dashboard: `python -m streamlit run app.py`.

Navigation only: every page calls dashboard.shell.setup() (page config, the
shared sidebar, settings <-> URL) and draws from dashboard/ -> evalcore
(STYLE.md). dashboard.shell.guard turns any unexpected exception into an
error box (traceback in the server log), never an stException element.
"""
import os

# One BLAS thread per server process, set before numpy is first imported (the first script run):
# the dashboard's matrix products are small, and OpenBLAS's second thread only spins - 0.1 s of CPU
# per Overview move taken from the other sessions (docs/reliability.md). A server serves its
# sessions concurrently; run one process per core for more (docs/deploy/nginx.conf).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402

# A class's sessions run their scripts in threads of this one process. Python hands the GIL to
# another thread every 5 ms by default; every hand-over between busy script threads costs caches
# and a wait, so a longer interval took p95 at 20 sessions from 4.3-5.1 s to 3.5-4.1 s
# (docs/reliability.md). Messages to the browsers wait at most this long for the GIL.
sys.setswitchinterval(0.02)
import streamlit as st  # noqa: E402

from dashboard import shell  # noqa: E402

pages = [
    st.Page("views/0_overview.py", title="Overview", icon=":material/dashboard:", url_path="overview", default=True),
    st.Page("views/1_data.py", title="Data", icon=":material/database:", url_path="data"),
    st.Page("views/2_playground.py", title="Metric playground", icon=":material/school:", url_path="playground"),
    st.Page("views/3_rankings.py", title="Rankings", icon=":material/leaderboard:", url_path="rankings"),
    st.Page("views/4_correlation.py", title="Rank correlation", icon=":material/grid_on:", url_path="correlation"),
    st.Page("views/9_gains.py", title="Which gains should I report?", icon=":material/tune:", url_path="gains"),
    st.Page("views/5_swap.py", title="Swap method", icon=":material/swap_horiz:", url_path="swap"),
    st.Page("views/6_bootstrap.py", title="Bootstrap sensitivity", icon=":material/ssid_chart:",
            url_path="bootstrap"),
    st.Page("views/10_significance.py", title="Significance & topic sets", icon=":material/functions:",
            url_path="significance"),
    st.Page("views/7_stability.py", title="Stability", icon=":material/balance:", url_path="stability"),
    st.Page("views/8_report.py", title="Report", icon=":material/description:", url_path="report"),
]
shell.guard(st.navigation(pages).run)
