"""evalcore dashboard: `python -m streamlit run app.py`.

Navigation only: every page calls dashboard.shell.setup() (page config, the
shared sidebar, settings <-> URL) and draws from dashboard/ -> evalcore
(one direction: views draw, dashboard's modules compute with evalcore; the layout is in docs/dashboard.md).
dashboard.shell.guard turns any unexpected exception into an error box (traceback in the server log), never
an stException element.
"""
import os

# One BLAS thread per server process, set before numpy is first imported (the first script run):
# the dashboard's matrix products are small, and OpenBLAS's second thread only spins, taking CPU from
# the other sessions at every Overview move (docs/reliability.md, "What a slider move costs"). A server
# serves its sessions concurrently; run one process per core for more (docs/deploy/nginx.conf).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402

# Staged uploads of a server that was killed during a load (docs/reliability.md, "Loads that cannot hang
# the queue"): removed at this server's first page run - the earliest point Streamlit runs the app's code -
# before anything else is imported; only those whose server no longer runs (dashboard.staging).
from dashboard import staging  # noqa: E402

staging.sweep_once()

# A class's sessions run their scripts in threads of this one process. Python hands the GIL to
# another thread every 5 ms by default; every hand-over between busy script threads costs caches
# and a wait, so a longer interval shortens every session's wait under a class (the p95 with both
# intervals: docs/benchmarks.md section 17). Messages to the browsers wait at most this long for the GIL.
sys.setswitchinterval(0.02)
import streamlit as st  # noqa: E402

from dashboard import shell  # noqa: E402
from dashboard.pages import HOME, PAGES, ROOT_NAME  # noqa: E402

# One entry per page at its own path (/overview, /data, ...), plus the site's root: a hidden entry
# running the Overview's script (Streamlit serves its default page only at "/", so /overview
# needs an entry of its own).
pages = [st.Page(p.script, title=p.title, icon=p.icon, url_path=p.url_path) for p in PAGES]
pages.append(st.Page(HOME.script, title=HOME.title, icon=HOME.icon, url_path=ROOT_NAME, default=True,
                     visibility="hidden"))
# navigation in the top bar: the sidebar starts with the data and the gain sliders (the first screen
# at 1440 x 900 shows sliders, beta and a chart; docs/dashboard.md)
page = st.navigation(pages, position="top")
# which page this run draws: a page's first run writes the settings into its widgets
# (dashboard.state.keep_alive), later runs of the same page leave the widgets to the user
st.session_state["_page_now"] = page.url_path
shell.guard(page.run, page.title)
