"""What every page does first: page config, settings from the session/URL, the sidebar;
and the guard app.py runs every page through.

The page scripts live in ``views/``, not ``pages/``: a ``pages/`` folder
beside the entry point makes Streamlit (and AppTest, on every run) run a page
file on its own in its v1 "pages folder" mode, bypassing app.py and so the
guard. With ``views/`` every run goes through app.py's st.navigation.
"""
from __future__ import annotations

import logging
import uuid

import streamlit as st

from evalcore.io import InputError

from . import activity, datasets, errors, gate, links, references, safe, scoring, state, widgets

#: The browser tab's icon (see :func:`setup`).
PAGE_ICON = "\U0001f4ca"   # bar chart


def about() -> str:
    """The About box of the page menu: which distribution is running (:func:`evalcore.provenance`, without the
    server's folders), and a warning when the unrelated PyPI ``evalcore`` is installed beside it."""
    if not _ABOUT:
        import evalcore
        lines = evalcore.provenance()
        shown = [lines[0], lines[1].split("; module at")[0].split("; running the source checkout")[0]]
        shown += [line for line in lines[2:] if line.startswith("warning:")]
        _ABOUT.append("\n\n".join(shown)       # evalcore's own words, versions from the installed metadata
                      + "\n\nGraded-relevance IR evaluation and the evaluation of the metrics themselves.")
    return _ABOUT[0]


_ABOUT: list[str] = []


def setup(data_page: bool = False):
    """Page config, session defaults (from the URL once), the shared sidebar.

    A link to uploaded data the server no longer holds stops the page with a
    message saying what is missing and how to load it (:func:`_uploaded_data`);
    the Data page (``data_page=True``) shows the message and goes on, so the
    files can be loaded there. Returns ``(settings, collection)`` for this run.
    """
    ss = st.session_state
    # what this run draws (state.this_run): quick passes to refine (live.live_meta), charts (widgets.chart)
    # and all it draws in order (widgets.chart/table/caption/...), for the HTML export
    ss["_view"] = view = {"live_pending": [], "figs": [], "items": []}
    # how many sessions use the server now (the Overview's resampling is live only for a few: dashboard.activity)
    activity.note(ss.setdefault("_activity_id", uuid.uuid4().hex))
    present = presenting()
    # presentation mode opens with the sidebar closed (the page gets the projector's width; the gains are in
    # the row at the top of the page); the sidebar's arrow opens it as usual
    # page_icon: an emoji, drawn by the browser as a data: URL. A ":material/...:" favicon is fetched by
    # Streamlit 1.67's frontend from fonts.gstatic.com (every student's browser would contact a third
    # party, and the icon vanishes offline); the icons inside the page come from the font Streamlit serves.
    st.set_page_config(page_title="evalcore · IR metric dashboard", page_icon=PAGE_ICON,
                       layout="wide", initial_sidebar_state="collapsed" if present else "expanded",
                       menu_items={"About": about()})
    st.html(NARROW_CSS + A11Y_CSS + (PRESENT_CSS if present else ""))
    errors.show_pending()           # a widget callback that failed before this run
    state.keep_alive()              # restores what Streamlit dropped; before init's defaults
    state.init(scoring.METRIC_KEYS)
    if ss.get("_switch_to_upload"):  # the Data page just loaded files
        ss["dataset"] = "upload"
    _uploaded_data(data_page)
    collection = datasets.current_collection()
    state.set_levels(collection.max_level)
    widgets.sidebar(collection)
    if ss.get("present"):
        widgets.gains_row(collection)       # the gains within reach with the sidebar closed
    for msg in ss.pop("_url_warnings", []):
        st.toast(safe.md(msg))      # quotes the address: text, never Markdown
    state.sync_url()
    s = scoring.usable(collection, state.current())
    view["data"] = {
        "collection": collection.name or "(unnamed)", "runs": collection.n_runs, "topics": collection.n_topics,
        "relevance levels": f"{collection.max_level + 1} (0-{collection.max_level})",
        "dataset": widgets.DATASET_LABELS.get(s.dataset, s.dataset),
        "content key": collection.fingerprint[:16]}
    view["settings"] = {**s.as_json(), "dataset": s.dataset}
    view["settings_words"] = settings_words(s, collection)
    return s, collection


def settings_words(s: state.Settings, c) -> list[str]:
    """The shared settings in words, as the pages' captions state them (widgets.settings_line: gains
    ``S=3 : A=2 : B=1``, ``beta 1``, ...), plus the metrics and the run selection: the export's settings."""
    words = widgets.settings_line(s, c).split(" · ")
    words.append("metrics: " + ", ".join(s.metric_keys))
    words.append(f"runs analysed: the top {s.top_n} by {s.top_by}" if s.top_n else "runs analysed: all")
    words.append("penalties of NWRR: " + " : ".join(f"level {L}={s.penalties[L - 1]:g}" for L in range(s.K, 0, -1)))
    return words


#: On a 1024 x 768 screen or a projector the page keeps its width for the content: Streamlit's 5rem
#: side padding left 564 of 724 px beside the sidebar, and tables of ten columns scrolled sideways;
#: 1.5rem leaves 676 px. The top padding shrinks on screens under 800 px high (the title started at
#: y = 150). Columns never get narrower than their content can be read in: Streamlit's rows of columns
#: wrap (flex-wrap), so a minimum width moves a column that would be too narrow to the next line - a
#: row of eight metrics (the playground's) showed "0.…" in 76 px columns, a row of five buttons cut
#: "inverse" to "i…", a level selector 45 px wide showed nothing. Metric values are set smaller there,
#: and a column holding one button alone is at least as wide as the button's label. Only the page, not
#: the sidebar. A style element only: st.html draws nothing for it.
NARROW_CSS = """<style>
@media (max-width: 1280px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
  [data-testid="stMain"] [data-testid="stColumn"] { min-width: min(100%, 5.5rem); }
  [data-testid="stMain"] [data-testid="stColumn"]:has([data-testid="stMetric"]) { min-width: min(100%, 6.5rem); }
  [data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 1.6rem; }
  [data-testid="stMain"] [data-testid="stColumn"]:has(> [data-testid="stVerticalBlock"]
      > [data-testid="stElementContainer"]:only-child > :is(.stButton, .stDownloadButton)) {
    min-width: max-content; }
}
@media (max-height: 800px) {
  [data-testid="stMainBlockContainer"] { padding-top: 4rem; }
}
</style>"""

#: WCAG 2.1 AA on every page (tests/test_browser_a11y.py runs axe-core): captions in a grey of 7.3:1 on white
#: and 6.5:1 on the sidebar's background, fully opaque (Streamlit draws them at 60 % opacity: 3.9:1, under
#: AA's 4.5:1 for text of 14 px); the charts' data tables (dashboard.widgets.chart_alt) read by screen readers
#: only, laid out of the page's flow (no gap after a chart).
A11Y_CSS = """<style>
[data-testid="stCaptionContainer"] { color: #55565c; opacity: 1; }
table.chart-alt { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; border: 0; }
[data-testid="stElementContainer"]:has(> .stHtml table.chart-alt),
[data-testid="stElementContainer"]:has(table.chart-alt) { position: absolute; width: 1px; height: 1px;
  overflow: hidden; }
</style>"""

#: Presentation mode (``?present=1``): type and controls 1.25 x larger (Streamlit sizes them in rem;
#: widgets.PRESENT_SCALE), for the back row of a lecture room; the charts' text and the tables' heights
#: follow (widgets.chart, widgets.rows_height).
PRESENT_CSS = """<style>
html { font-size: 20px; }
</style>"""


def presenting() -> bool:
    """Whether this run is in presentation mode: the session's setting, or on a session's first run
    (before :func:`dashboard.state.init` has read the address) the address's ``present=``."""
    ss = st.session_state
    if "present" in ss:
        return bool(ss["present"])
    try:
        return state.url_flag(st.query_params.get("present", ""))
    except ValueError:
        return False


def _uploaded_data(data_page: bool) -> None:
    """Uploaded data in the address: reopen it, or say plainly why not. Never a silent fallback.

    A loaded upload is offered to links (``?data=upload&up=<content hash>``) while the server
    holds it: anyone with the link sees that data, as the docs say; EVALCORE_UPLOAD_LINKS=off
    turns this off. A link whose data is gone (the server restarted, or other uploads pushed it
    out of the bounded store) shows what is missing and how to load it, and keeps every other
    setting of the link.
    """
    ss = st.session_state
    up = ss.get("uploaded")
    if up is not None:
        ss["upload_fp"], ss["upload_name"] = links.share_upload(up), str(up.name or "")[:state.MAX_URL_TEXT]
        return
    if ss["dataset"] != "upload":
        return
    found = links.shared_upload(ss.get("upload_fp", ""), ss.get("upload_name", ""))
    if found is not None:
        ss["uploaded"] = found
        return
    name, key = ss.get("upload_name") or "", ss.get("upload_fp") or ""
    why = ("this server does not reopen uploaded data from links (EVALCORE_UPLOAD_LINKS=off)"
           if not links.upload_links_on() else
           links.link_gone_reason(key) if key else
           "the address does not say which upload (no up=... in it)")
    st.error("This link shows **uploaded data** that cannot be opened here: " + why + ".", icon=":material/link_off:")
    st.text(f"Collection: {safe.text(name) if name else '(no name in the link)'}\n"
            f"Content key: {safe.text(key[:16]) + '...' if key else '(none)'}")
    st.markdown("To see this view, load the same qrels and run files on the **Data** page (tab *Upload files*); "
                "every other setting of the link (gains, beta, metrics, page choices) is kept and applies to "
                "them. Or look at the simulated collection instead.")
    if data_page:
        ss["dataset"] = "sim"        # the page goes on with the simulated data, saying so above
        ss["_link_missing"] = True
        return
    c1, c2 = st.columns([1, 2])
    c1.page_link("views/data.py", label="Load the files on the Data page", icon=":material/upload_file:")
    c2.button("Show the simulated collection instead", on_click=_use_sim, icon=":material/science:")
    st.stop()


@errors.guarded
def _use_sim() -> None:
    st.session_state["dataset"] = "sim"


def setup_analysis():
    """:func:`setup`, plus the collection the analysis pages use (top N runs).

    Returns ``(settings, full collection, analysed collection)``.
    """
    s, full = setup()
    return s, full, scoring.analysis_collection(full, s)


_log = logging.getLogger("evalcore.app")


def export_button(title: str, now: dict | None = None) -> None:
    """"Download this view (HTML)": what the page drew in this run (charts, tables, captions, headings, in
    order), the settings in words, the data, the references and the link, as one self-contained file
    (dashboard.export), built only when the button is pressed. Beside it, the format the charts' camera
    button saves (:func:`chart_format_control`). ``now``: the session's values as
    :func:`dashboard.state.sync_url` just read them (else read here)."""
    # one pass over the session state, not two locked calls per key read
    now = now if now is not None else st.session_state.to_dict()
    view = now.get("_view") or {}
    items = list(view.get("items") or [])
    if not any(i["kind"] in ("chart", "table") for i in items):
        return
    data = dict(view.get("data") or {})
    query = "&".join(f"{k}={v}" for k, v in st.query_params.items())
    base = getattr(st.context, "url", "") or ""
    link = base + ("?" + query if query else "")
    page = str(now.get("_page_now") or "")
    from . import export
    words = list(view.get("settings_words") or []) + export.choice_words(
        page, {k: now[k] for k in state.page_keys() if k in now})

    def build() -> bytes:
        return export.view_html(f"evalcore · {title}", items, settings=words, summary=data, link=link,
                                references=references.REFERENCES).encode()

    c1, c2 = st.columns([1, 1.3], vertical_alignment="center")
    c1.download_button("Download this view (HTML)", data=build,
                       file_name=f"evalcore-{title.lower().replace(' ', '-')}.html",
                       mime="text/html", on_click="ignore", icon=":material/download:", key="_export_html",
                       help="One file with this view's charts (interactive), tables and captions, the settings, the "
                            "data summary, the references and the link: a colleague opens it in a browser, no "
                            "installation, no network.")
    with c2:
        chart_format_control()


#: The chart download formats offered (dashboard.widgets.CHART_FORMAT_KEY), in words.
CHART_FORMATS = {"svg": "SVG (vector, for papers)",
                 "png": f"PNG ({int(widgets.SLIDE_WIDTH * widgets.PNG_SCALE)} px, for slides)"}


def chart_format_control() -> None:
    """A small radio: what every chart's camera button saves, SVG or a slide-sized PNG (in the address)."""
    ss = st.session_state
    if ss.get(widgets.CHART_FORMAT_KEY) not in CHART_FORMATS:
        ss[widgets.CHART_FORMAT_KEY] = "svg"
    st.radio("chart download (camera button)", list(CHART_FORMATS), key=widgets.CHART_FORMAT_KEY,
             format_func=CHART_FORMATS.get, horizontal=True,
             help="The camera button above each chart (top right, on hover) saves it in this format, drawn by "
                  "your browser: SVG for a paper, a PNG 1920 px wide for a slide.")


def guard(run, title: str = "") -> None:
    """Run a page; never let an exception reach the browser as an stException.

    * ``InputError`` (evalcore's message for bad data or settings): an error
      box saying so.
    * Anything else is a bug: the traceback goes to the server log, the user
      gets an error box with the message and the session keeps its data and
      settings (nothing is reset). Tests see it in the ``evalcore.app`` log
      (tests/conftest.py fails a test whose page logged a bug).

    Streamlit's own control flow (st.rerun, st.stop) derives from
    BaseException, not Exception, and passes through untouched.
    """
    with gate.GATE.turn():      # page runs take turns, first come first served (dashboard.gate)
        _guarded(run, title)


def _guarded(run, title: str) -> None:
    try:
        run()
        now = state.sync_url()  # again: a page may have set its own choices after setup() mirrored them
        export_button(title or "view", now or None)
        with st.expander("References", icon=":material/menu_book:"):
            st.markdown(references.as_markdown())
    except InputError as e:
        st.error("This view could not be computed with the current data and settings: "
                 f"{safe.md_lines(errors.app_text(e))}",
                 icon=":material/error:")
    except Exception as e:  # noqa: BLE001 - the one place that turns a bug into a message
        _log.exception("unexpected error while drawing the page")
        st.error(errors.message(e, "drawing this page"), icon=":material/error:")
