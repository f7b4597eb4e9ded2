"""The one list of the dashboard's pages: app.py builds its navigation from it and
the page tests (AppTest and the real browser) walk it, so a page added here is
served, linked and tested.

Each page also declares its controls: the session key, the name in the address, the
default and the reader of each (:class:`Control`), and the few it keeps out of the
address on purpose, with the reason (:class:`Unlinked`). The sidebar's controls, which
every page shows, are declared once (:data:`SIDEBAR`). dashboard/state.py builds its
URL tables from these declarations, and tests/test_app_url_roundtrip.py checks that every
keyed widget of every page is declared here and comes back from a copied address.

No streamlit import: this is plain data.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalcore.registry import SETTING_PARAMS, Param
from evalcore.settings import DEFAULTS

from . import report as _report  # the Report page's options: their defaults and bounds


def url_flag(text: str) -> bool:
    """A flag in the address: true/1/yes/on or false/0/no/off (anything else is refused)."""
    t = str(text).strip().lower()
    if t in ("true", "1", "yes", "on"):
        return True
    if t in ("false", "0", "no", "off"):
        return False
    raise ValueError(text)


@dataclass(frozen=True)
class Control:
    """One setting in the address: ``?<name>=<value>``, kept in ``st.session_state[key]``.

    ``name`` is what copied links carry: never rename one (old links would silently lose it).
    ``default`` is the value when the address leaves the name out (and the URL writes only
    values that differ from it); ``parse`` reads the text of the address (a ValueError or
    TypeError ignores the value, with a notice). ``widgets`` is a regular expression for the
    keys of the widgets that show the setting, where they are not ``key`` itself (the gain
    slider and box of each level, a page's copies of its settings). ``choices``/``bounds``:
    what a value from the address may be (else ignored) / is clamped to, beside
    :data:`evalcore.settings.WIDGET_BOUNDS`. ``words``: the setting in the export's settings
    block ("Swap: B"). ``kind``: "scalar", "list" (comma-separated, ``?m=AP,RR``) or
    "levels" (one value per relevance level, highest first: ``?gains=3:2:1``)."""

    key: str
    name: str
    default: Any = None
    parse: Callable[[str], Any] = str
    words: str = ""
    widgets: str = ""
    choices: tuple = ()
    bounds: tuple | None = None
    kind: str = "scalar"

    @property
    def widget_pattern(self) -> str:
        """Regular expression (matched whole) of the keys of the widgets showing this setting."""
        return self.widgets or _escape(self.key)


@dataclass(frozen=True)
class Unlinked:
    """Widgets (keys matching the regular expression ``widgets``, whole) kept out of the address
    on purpose, and why."""

    widgets: str
    why: str


def _escape(key: str) -> str:
    import re
    return re.escape(key)


@dataclass(frozen=True)
class PageSpec:
    """One page: its script under ``views/``, its title and icon, its own path
    (``/<url_path>``), whether it draws a chart without any button press, its controls in the
    address and the widgets it keeps out of it (with the reason). ``reads``: other pages
    whose settings this page also uses (the Overview draws the Swap and Bootstrap results),
    so the export of this page states them too."""

    file: str
    title: str
    icon: str
    url_path: str
    has_chart: bool
    button: str | None = None     # a button the browser test presses twice (the Report's "Build")
    controls: tuple[Control, ...] = ()
    unlinked: tuple[Unlinked, ...] = ()
    reads: tuple[str, ...] = ()

    @property
    def script(self) -> str:
        """Path of the script relative to app.py (``views/overview.py``)."""
        return f"views/{self.file}"


#: The Rankings page's per-topic views, one tab each; only the open one is computed (views/rankings.py).
RANKINGS_DETAIL = ("Per topic", "Run against run", "How deep (r_1, r_p)")

#: Base metric keys shown by default: the Sakai 2007 family beside AP/Q and nDCG.
DEFAULT_METRICS = ("AP", "Q-measure", "RR", "O-measure", "NWRR", "P-measure", "P+-measure", "nDCG")

def _setting(prm: Param) -> Control:
    """A measure's own setting in the address, as its declaration gives it (:class:`evalcore.registry.Setting`):
    the session key of its slider, the parameter's name in the address (``?p=``), its default, clamped to the
    slider's span."""
    assert prm.setting is not None, f"{prm.name} is not declared as a setting"
    return Control(prm.setting.widget, prm.name, prm.default, int if prm.kind == "int" else float,
                   bounds=prm.setting.span)


#: The sidebar's settings, shared by every page (app.py's shell draws the sidebar on each), and the
#: settings of the data shown.
SIDEBAR: tuple[Control, ...] = (
    Control("dataset", "data", "sim", choices=("sim", "examples", "upload")),
    Control("gains", "gains", kind="levels", widgets=r"_g[sn]\d+_\d+"),   # the slider and box of each level
    Control("penalties", "pen", kind="levels", widgets=r"p\d+"),             # NWRR's penalty per level
    Control("beta", "beta", DEFAULTS["beta"], float),
    *(_setting(prm) for prm in SETTING_PARAMS),      # each measure's own setting: ?p= (RBP), ?f_beta= (SetF)
    Control("cutoff", "cutoff", DEFAULTS["cutoffs"][0], int),
    Control("threshold", "thr", "relaxed", choices=("relaxed", "rigid")),
    Control("metrics", "m", DEFAULT_METRICS, kind="list"),
    Control("top_n", "top", 0, int),
    Control("top_by", "by", "AP"),
    Control("present", "present", False, url_flag),   # presentation mode: larger type, the gains atop each page
    # what a chart's camera button saves (dashboard.shell.CHART_FORMATS)
    Control("chart_format", "chart", "svg", choices=("svg", "png"), words="Chart download format"),
    # uploaded data: content hash and load report's (links.link_key), and its title in this view; no widget
    Control("upload_fp", "up", "", widgets="(?!)"),
    Control("upload_name", "upname", "", widgets="(?!)"),
)
#: Sidebar widgets that are actions, not settings.
SIDEBAR_UNLINKED: tuple[Unlinked, ...] = (
    Unlinked(r"preset_.*", "a button that sets the gains, which are in the address"),
    Unlinked(r"_export_html", "a download of the page, not a setting"),
    Unlinked(r"_nwrr_open", "whether the NWRR penalties' panel is open: a view of settings that are in the address"),
)


def _rp(option: str, name: str, words: str, choices: tuple = ()) -> Control:
    """A Report page option: ``top`` is the session key ``rp_top``, with the page's default and bounds
    (dashboard/report.py), in the address as ``name``."""
    default = _report.DEFAULTS[option]
    return Control(f"rp_{option}", name, default, type(default), f"Report: {words}", choices=choices,
                   bounds=_report.BOUNDS.get(option))


#: The Significance page's pair table over every metric (its default choice).
SIG_ALL = "all metrics"


def _sig(key: str, default: Any, words: str, bounds: tuple | None = None) -> Control:
    """A Significance page setting: ``sg_test`` is ``?sgtest=`` in the address and drawn by the widget
    ``_w_sg_test`` (the page copies its settings into its widgets, so they survive other pages)."""
    return Control(key, key.replace("_", ""), default, url_flag if isinstance(default, bool) else type(default),
                   words, widgets=_escape("_w_" + key), bounds=bounds)


#: Each page's icon is an emoji: Streamlit 1.67's frontend makes the current page's icon the browser tab's
#: favicon, and fetches a ":material/...:" one from fonts.gstatic.com (a request to a third party from every
#: student's browser, and no icon offline). Icons inside a page (buttons, alerts) come from the Material
#: Symbols font Streamlit serves itself, and stay.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview.py", "Overview", "\U0001f4ca", "overview", True, controls=(
        Control("ov_metric", "ov", "", words="Overview: ranking by"),         # "" = the page's default
        Control("ov_ref", "ovref", "", words="Overview: gains compared with"),
    ), unlinked=(
        Unlinked("ov_claim_btn", "a button that runs a check on the data shown"),
    ), reads=("swap", "bootstrap")),
    PageSpec("data.py", "Data", "\U0001f5c2\ufe0f", "data", False, controls=(
        Control("sim_topics", "nt", 50, int),
        Control("sim_runs", "nr", 30, int),
        Control("sim_seed", "seed", 0, int),
    ), unlinked=(
        Unlinked(r"use_sim|use_examples|up_load",
                 "a button that loads data; the data chosen is in the address (data=)"),
        Unlinked(r"up_qrels.*|up_runs.*", "files cannot travel in an address; a link to them is (up=, upname=)"),
        Unlinked(r"up_order|up_condensed|up_keep_first|up_name",
                 "how the uploaded files are read, kept with them: the link to them (up=) carries their load report"),
    )),
    PageSpec("playground.py", "Metric playground", "\U0001f393", "playground", True, controls=(
        # the list (level per rank, Sakai 2007 Fig. 3's system Z by default): the number of ranks and each rank's level
        Control("pl_list", "pl", "1,3", words="Playground: level at each rank", widgets=r"pl_n|pl_r\d+"),
        Control("pl_counts", "plc", "1,1,1", words="Playground: relevant documents per level (level 1 first)",
                widgets=r"pl_c\d+"),
        Control("pl_pin", "plpin", "", words="Playground: pinned list", widgets="(?!)"),   # "levels|counts"
        Control("pl_formula", "plf", "P-measure", words="Playground: formula shown"),
        Control("pl_cmp", "plcmp", None, kind="list", words="Playground: lists compared"),
    ), unlinked=(
        Unlinked(r"pl_preset_.*|pl_up|pl_down|pl_rev|pl_copy|pl_pin_btn|pl_unpin_btn",
                 "a button that changes the list or the pin, which are in the address"),
        Unlinked(r"pl_move", "which rank the up/down buttons move: a tool, not what is drawn"),
        Unlinked(r"pl_src_run|pl_src_topic", "where 'Copy this run's list' copies from; the copied list is in the "
                                             "address"),
    )),
    PageSpec("rankings.py", "Rankings", "\U0001f3c6", "rankings", True, controls=(
        Control("rk_metric", "rk", "P-measure", words="Rankings: metric"),
        Control("rk_run_x", "rx", "", words="Rankings: run x"),
        Control("rk_run_y", "ry", "", words="Rankings: run y"),
        Control("rk_detail", "rkd", RANKINGS_DETAIL[0], choices=RANKINGS_DETAIL, words="Rankings: per-topic view"),
    )),
    PageSpec("correlation.py", "Rank correlation", "\U0001f517", "correlation", True, controls=(
        Control("kc_metric", "kc", "P-measure", words="Rank correlation: metric under other gains"),
        Control("kc_level", "kl", 0, int, words="Rank correlation: level of the gain sweep"),
    )),
    PageSpec("gains.py", "Which gains should I report?", "\U0001f39a\ufe0f", "gains", True, controls=(
        Control("gv_metric", "gv", "", words="Which gains: metric"),
        Control("gv_ratio", "gvr", 10.0, float, words="Which gains: ratio of the top gain to level 1's",
                bounds=(1.0, 100.0)),
        Control("gv_B", "gvb", 200, int, words="Which gains: bootstrap B", bounds=(10, 100000)),
        Control("gv_rep", "gvrep", 5, int, words="Which gains: repetitions", bounds=(1, 20)),
    )),
    PageSpec("swap.py", "Swap method", "\U0001f500", "swap", True, controls=(
        Control("sw_sampling", "sws", "replacement", words="Swap: topic sampling",
                choices=("replacement", "disjoint", "independent")),
        Control("sw_subset", "swk", 0, int, words="Swap: topics per sample (0 = all)"),
        Control("sw_B", "swb", 1000, int, words="Swap: B"),
        Control("sw_seed", "swseed", 0, int, words="Swap: seed"),
        Control("sw_conf", "swc", 0.95, float, words="Swap: confidence of the summary", bounds=(0.5, 0.999)),
    ), unlinked=(
        Unlinked(r"sw_B_more|sw_seed_next", "a button that sets B or the seed, which are in the address"),
    )),
    PageSpec("bootstrap.py", "Bootstrap sensitivity", "\U0001f4c8", "bootstrap", True, controls=(
        Control("bs_alpha", "bsa", 0.05, float, words="Bootstrap: alpha"),
        Control("bs_B", "bsb", 1000, int, words="Bootstrap: B"),
        Control("bs_seed", "bsseed", 0, int, words="Bootstrap: seed"),
        Control("bs_tab", "bst", "", words="Bootstrap: tab"),            # "" = the first tab (st.tabs, not a widget)
        Control("bs_only_sig", "bssig", False, url_flag, words="Bootstrap: significant pairs only"),
    ), unlinked=(
        Unlinked(r"bs_B_more|bs_seed_next", "a button that sets B or the seed, which are in the address"),
    )),
    PageSpec("significance.py", "Significance & topic sets", "\U0001f9ee", "significance", True, controls=(
        _sig("sg_test", "t", "Significance: test"),
        _sig("sg_corr", "holm", "Significance: correction"),
        _sig("sg_alpha", 0.05, "Significance: alpha", (0.001, 0.5)),
        _sig("sg_ci", "t", "Significance: confidence interval"),
        _sig("sg_conf", 0.95, "Significance: confidence level", (0.5, 0.999)),
        _sig("sg_std", "none", "Significance: scores"),
        _sig("sg_B", 1000, "Significance: B of the resampled tests", (10, 100000)),
        _sig("sg_seed", 0, "Significance: seed", (0, 10**6)),
        _sig("sg_reps", 5, "Significance: seeds for the spread", (1, 20)),
        _sig("sg_tmetric", SIG_ALL, "Significance: metric of the pair table"),
        _sig("sg_runs", "", "Significance: runs whose name contains"),
        _sig("sg_only_sig", False, "Significance: significant pairs only"),
        _sig("sg_fmetric", "", "Significance: metric of the forest plot"),
        _sig("sg_frun", "", "Significance: baseline run"),
        _sig("sg_base", "", "Significance: baseline"),
        _sig("ts_design", "paired-t", "Topic set size: test"),
        _sig("ts_alpha", 0.05, "Topic set size: alpha", (0.001, 0.5)),
        _sig("ts_beta", 0.2, "Topic set size: beta", (0.01, 0.99)),
        _sig("ts_mind", 0.1, "Topic set size: minimum detectable difference", (0.001, 10.0)),
        _sig("ts_metric", "", "Topic set size: metric"),
        _sig("ts_systems", 0, "Topic set size: systems (0 = this collection's)", (0, 1000)),
        _sig("ts_est", "", "Topic set size: variance estimator"),     # "" = the design's default estimator
        Control("sg_cmp_metrics", "sgcm", None, kind="list", words="Significance: metrics of the results table"),
    ), unlinked=(
        Unlinked(r"_w_sg_B_more|_w_sg_seed_next", "a button that sets B or the seed, which are in the address"),
        Unlinked(r"sg_cmp_(csv|md|tex)", "a download of the table, not a setting"),
    )),
    PageSpec("stability.py", "Stability", "\u2696\ufe0f", "stability", True, controls=(
        Control("st_subset", "stk", 0, int, words="Stability: topics per subset (0 = all)"),
        Control("st_B", "stb", 1000, int, words="Stability: B"),
        Control("st_seed", "stseed", 0, int, words="Stability: seed"),
    ), unlinked=(
        Unlinked(r"st_B_more|st_seed_next", "a button that sets B or the seed, which are in the address"),
    )),
    PageSpec("lesson.py", "Lesson: Sakai 2007 in four steps", "\U0001f4d6", "lesson", False, controls=(
        Control("ls_step", "step", 1, int),           # the step shown (1-4; the page clamps it)
    ), unlinked=(
        Unlinked(r"ls_prev|ls_next", "a button that moves the step, which is in the address"),
    )),
    PageSpec("report.py", "Report", "\U0001f4dd", "report", False, "Build the report", controls=(
        # the report's options (dashboard/report.py: DEFAULTS, BOUNDS, TOP_BY), as the command's --top ...
        _rp("top", "rptop", "top N runs"),
        _rp("top_by", "rpby", "ranked by", choices=_report.TOP_BY),
        _rp("B", "rpb", "B (swap, bootstrap)"),
        _rp("tukey_B", "rptb", "Tukey B"),
        _rp("repeats", "rpreps", "repetitions"),
        _rp("seed", "rpseed", "seed"),
        _rp("topic_resamples", "rpts", "topic samples"),
        _rp("topic_B", "rptopb", "B per topic sample"),
        _rp("topic_seed", "rptseed", "topic seed"),
    ), unlinked=(
        Unlinked(r"rp_build|rp_dl_.*", "a button that builds or downloads the report"),
        Unlinked(r"rp_settings_file", "a file cannot travel in an address; the settings it sets are in it"),
    )),
)

#: The page the site's root (``/``) shows. It is also served at its own path
#: (``/overview``): Streamlit serves its default page only at the root, so the root is a
#: hidden second entry running the same script.
HOME = PAGES[0]
#: Internal name of the root entry (never shown; Streamlit needs a unique one per entry).
ROOT_NAME = "home"


def all_controls() -> tuple[Control, ...]:
    """Every setting in the address: the sidebar's, then each page's in the order of :data:`PAGES`."""
    return SIDEBAR + tuple(c for p in PAGES for c in p.controls)


def by_name(name: str) -> PageSpec:
    """The page whose file stem or path is ``name`` (``"rankings"``)."""
    for p in PAGES:
        if name in (p.url_path, p.file[:-3]):
            return p
    raise KeyError(f"no page {name!r}; pages: {', '.join(p.url_path for p in PAGES)}")
