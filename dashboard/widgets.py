"""The shared sidebar and small reusable page pieces.

Widgets use the session keys of :mod:`dashboard.state` directly, so their
values survive page changes and land in the URL.
"""
from __future__ import annotations

import math
import re

import pandas as pd
import streamlit as st

from evalcore import figures
from evalcore.registry import SETTING_PARAMS, readers, setting_help

from . import gainsets, report, safe, scoring, state

DATASET_LABELS = {"sim": "Simulated collection", "examples": "Papers' worked examples", "upload": "Uploaded files"}


#: Bounds of the NWRR penalty inputs (each > 1, Sakai 2007 Sec. 3.2).
PENALTY_MIN, PENALTY_MAX = 1.01, 100.0


def sidebar(c) -> None:
    """Dataset, gains (with presets), beta, penalties, cutoff, threshold, metrics, top N, reset."""
    ss = st.session_state
    K = c.max_level
    names = [safe.md(n, 40) for n in state.level_names(K, c.level_names)]     # labels are Markdown
    with st.sidebar:
        options = ["sim", "examples"] + (["upload"] if ss.get("uploaded") is not None else [])
        st.selectbox("Dataset", options, key="dataset", format_func=DATASET_LABELS.get,
                     help="Upload files or change the simulation on the Data page.")
        st.caption(f"{c.n_runs} runs · {c.n_topics} topics · levels {' '.join(names[::-1])}")

        st.markdown("**Gain per relevance level**", help=(
            f"Slider: {state.GAIN_MIN:g} to {state.GAIN_MAX:g} on a log scale; the box beside it takes any "
            "value in that range, and the slider then shows it too."))
        for L in range(K, 0, -1):
            slider, box = state.sync_gain_widgets(L)    # a fresh key where the gain was set elsewhere
            g = float(ss[f"g{L}"])
            a, b = st.columns([2.6, 1.2], vertical_alignment="bottom")
            # fixed stops (never rebuilt around the current gain: a rebuilt list would move the widget
            # under the user's hand); a value typed in the box shows as its nearest stop here
            a.select_slider(f"{names[L - 1]} (level {L})", options=state.GAIN_STOPS, value=state.nearest_stop(g),
                            key=slider, format_func=lambda v: f"{v:g}", on_change=state.gain_from_widget,
                            args=(L, "slider", slider))
            b.number_input(f"gain of {names[L - 1]}", min_value=state.GAIN_MIN, max_value=state.GAIN_MAX,
                           value=g, step=state.GAIN_STEP, key=box, format="%.2f", label_visibility="collapsed",
                           on_change=state.gain_from_widget, args=(L, "box", box))
        gains = [float(ss[f"g{L}"]) for L in range(1, K + 1)]
        for what in state.inverted_levels(gains, names):      # flagged where it is set
            st.warning(f"Inverted levels: {what}. The metrics then prefer the lower level.",
                       icon=":material/swap_vert:")
        fixed = [k for k in ss.get("metrics", ()) if k in scoring.METRICS and not scoring.METRICS[k].uses_gains]
        if fixed:     # trec_eval's and ir_measures' measures are binary at the threshold: said where gains are set
            st.caption(f"Gain-independent, as defined (binary at the relevance threshold): {', '.join(fixed)}. "
                       "The gains change the others only.")
        st.slider("beta (weight of gain vs. rank)", 0.0, 10.0, step=0.1, key="beta", format="%.1f",
                  help="Blended ratio of the Q, R, O, P and P+ measures: BR(r) = (beta·cg(r) + count(r)) / "
                       "(beta·cg_I(r) + r). beta = 0 turns Q-measure into AP.")
        st.caption("Paper presets (highest level first)")
        # two buttons a row: a label such as 0.4:0.3:0.2:0.1 (four levels) fits without being cut. One pair of
        # columns, the buttons alternating between them (equal heights keep the rows): a row of columns per
        # pair of buttons was three layout blocks each, drawn again at every move
        halves = st.columns(2)
        slots = [halves[i % 2] for i in range(len(state.PRESETS))]
        for slot, name in zip(slots, state.PRESETS, strict=True):
            g = gainsets.preset_gains(name, K)
            used = state.paper(g) if g is not None else name
            if g is not None and max(g) > state.GAIN_MAX:
                why = (f"The papers' {name} on {K} levels is {used}: a gain above the maximum "
                       f"{state.GAIN_MAX:g} of this dashboard. Set the gains by hand.")
                g = None
            elif g is None:
                why = (f"The papers' {name} is defined for three levels and does not extend to {K}: only 3:2:1, "
                       f"30:20:10, 0.3:0.2:0.1 (gain = level x step) and 1:1:1 do. Set the gains by hand.")
            elif used == name:
                why = f"Set the gains to the papers' {name} (highest level first)"
            else:
                why = f"The papers' {name} adapted to this collection's {K} levels: {used} (highest level first)"
            slot.button(used, key=f"preset_{name}", on_click=state.apply_gains, args=(g or [],),
                        disabled=g is None, width="stretch", help=why)
        # drawn only while open (the panel's state is a widget: a collapsed panel costs a move nothing)
        pen_panel = st.expander("NWRR penalties", expanded=False, key="_nwrr_open", on_change="rerun")
        with pen_panel:
            pen = {L: float(ss[f"p{L}"]) for L in range(1, K + 1)}
            ordered = all(pen[L] <= pen[L - 1] for L in range(2, K + 1))
            if pen_panel.open:
                _penalty_inputs(K, names, pen, ordered)
            else:
                # a penalty set in the inputs lives in their widget state, which Streamlit removes at the end of
                # a run that does not draw them, uncovering an older value of the key: written as a plain
                # value (safe with no widget drawn under that key in this run), it stays
                for L in range(1, K + 1):
                    ss[f"p{L}"] = pen[L]
            if not ordered:
                st.warning("These penalties grow with the level, which Sakai 2007 Sec. 3.2 rules out (NWRR could "
                           "exceed 1): NWRR is left out until a higher level has the smaller penalty.")
        c1, c2 = st.columns(2)
        c1.number_input("cutoff l", min_value=1, max_value=1000, step=1, key="cutoff",
                        help="Depth l of nDCG@l, nCG@l, nERR@l, P@l and Hit@l.")
        c2.radio("binary threshold", ["relaxed", "rigid"], key="threshold",
                 help="AP, RR, R-Prec, P@l: relaxed counts every relevant level, rigid only levels >= 2.",
                 disabled=K < 2)
        st.multiselect("Metrics", list(scoring.METRIC_KEYS), key="metrics",
                       help="Metrics shown on every page (cutoff metrics use l).")
        _measure_sliders(ss)
        c1, c2 = st.columns([1, 1.4])
        c1.number_input("top N runs", min_value=0, max_value=1000, step=1, key="top_n",
                        help="Analyse only the best N runs (0 = all runs).")
        c2.selectbox("by", list(scoring.METRIC_KEYS), key="top_by")
        st.toggle("Presentation mode", key="present",
                  help="For a projector: larger type, the sidebar closed and the gains in a row at the top of "
                       "every page. In the address too (present=True): a link opens the lesson this way.")
        st.divider()
        st.button("Reset all settings", on_click=state.reset, width="stretch", icon=":material/restart_alt:")
        st.caption("The address bar holds every setting: copy it to share this view.")


def _penalty_inputs(K: int, names: list[str], pen: dict, ordered: bool) -> None:
    """The NWRR penalty of every level, highest first (inside the sidebar's open "NWRR penalties" panel).

    Each input is bounded by its neighbours, so the widgets cannot make a penalty grow with the level (NWRR
    requires penalties that do not grow with the level). Values that already do (from a URL or a settings file)
    are left as they are, unbounded, with NWRR left out and a warning, until they are put in order.
    """
    st.caption("WRR/NWRR: a level-L document at rank r scores 1/(r - 1/penalty(L)); each penalty > 1 and none larger "
               "than the penalty of a lower level (Sakai 2007 Sec. 3.2; otherwise NWRR is left out).")
    for L in range(K, 0, -1):
        lo = max(PENALTY_MIN, pen[L + 1]) if ordered and L < K else PENALTY_MIN
        hi = min(PENALTY_MAX, pen[L - 1]) if ordered and L > 1 else PENALTY_MAX
        st.number_input(f"penalty {names[L - 1]} (level {L})", min_value=lo, max_value=hi,
                        step=0.5, key=f"p{L}", format="%.2f",
                        help=f"Between {lo:g} and {hi:g}: not below the penalty of the level above, "
                             "not above the penalty of the level below.")


def gains_row(c) -> None:
    """Presentation mode: the gain of every level in a row of boxes at the top of the page, reachable with
    the sidebar closed (a projector's whole width for the page).

    Each box is a third widget of its level's gain, beside the sidebar's slider and exact-value box, under the
    same rule (:func:`dashboard.state.sync_gain_widgets`, :func:`dashboard.state.gain_from_widget`): a change
    sets the gain ``g{L}`` and the *other* widgets are drawn afresh showing it; where the gain was set by
    something else (the sidebar, a preset, a page change), the box gets a new key and is drawn afresh; the box
    under the user's hand keeps its key, and a callback that is not the user's change (a box no longer drawn,
    reported by a browser in a burst of presses) changes nothing.
    """
    ss = st.session_state
    K = c.max_level
    names = [safe.md(n, 40) for n in state.level_names(K, c.level_names)]
    cols = st.columns([1] * K + [max(1.0, 0.5 * K)], vertical_alignment="bottom")
    for i, L in enumerate(range(K, 0, -1)):
        state.sync_gain_widgets(L)
        key = state.gain_row_key(ss, L)
        cols[i].number_input(f"gain {names[L - 1]} (level {L})", min_value=state.GAIN_MIN, max_value=state.GAIN_MAX,
                             value=float(ss[f"g{L}"]), step=state.GAIN_STEP, format="%.2f", key=key,
                             on_change=state.gain_from_widget, args=(L, "row", key))
    cols[-1].caption(f"gains {state.paper([float(ss[f'g{L}']) for L in range(1, K + 1)])} (highest level first) "
                     f"· beta {float(ss['beta']):g} · presentation mode (sidebar: more settings)")


def _measure_sliders(ss) -> None:
    """Each measure's own setting (evalcore.registry.SETTING_PARAMS: RBP's persistence, SetF's beta), a slider
    shown while a chosen metric reads it (a setting the other metrics do not read), as its declaration gives it."""
    chosen = {str(m).partition("@")[0] for m in (*ss["metrics"], ss["top_by"])}
    for prm in SETTING_PARAMS:
        if prm.setting is None or chosen.isdisjoint(readers(prm)):
            continue
        lo, hi = state.WIDGET_BOUNDS[prm.setting.widget]
        step = prm.setting.step
        digits = max(0, -math.floor(math.log10(step)))
        st.slider(prm.setting.label, float(lo), float(hi), step=step, key=prm.setting.widget, format=f"%.{digits}f",
                  help=setting_help(prm))


#: Session key of the format the charts' camera button downloads: "svg" (vector, for papers; the default)
#: or "png" (a raster at :data:`SLIDE_WIDTH` x the chart's height, times :data:`PNG_SCALE`, for slides).
CHART_FORMAT_KEY = "chart_format"
#: Width (CSS px) of a downloaded chart: a 16:9 slide's content area at 1280 x 720; PNG_SCALE = 1.5 gives
#: a 1920 px wide image, full HD.
SLIDE_WIDTH, PNG_SCALE = 1280, 1.5
#: The heights a downloaded chart takes at :data:`SLIDE_WIDTH`: 16:9 (720 px), or 4:3 (960 px) for a chart
#: drawn taller than a 16:9 slide (a ranking of many runs). A chart's own height is the screen's (a 5-run
#: slope chart is 320 px high, which downloaded at 4:1); a slide is one of these two shapes.
SLIDE_HEIGHTS = {"16:9": 720, "4:3": 960}


def slide_size(fig) -> tuple[int, int]:
    """(width, height) of a downloaded chart: :data:`SLIDE_WIDTH` wide, 16:9, or 4:3 when the chart is drawn
    taller than a 16:9 slide."""
    height = getattr(fig.layout, "height", None) or 450
    return SLIDE_WIDTH, SLIDE_HEIGHTS["16:9" if height <= SLIDE_HEIGHTS["16:9"] else "4:3"]


#: The dashboard builds its figures without plotly's validation of every property value: a check of every
#: value at every slider move, dearer than building the figure (docs/benchmarks.md section 16.5), and the
#: JSON the browser gets is the same (tests/test_figures_layout.py; the test suite builds every figure
#: validated: tests/conftest.py).
figures.validate_figures(False)

#: The trace types the dashboard draws (evalcore.figures' charts and the lesson's table) and the one layout
#: setting of Streamlit's plotly template a chart of theirs reads.
APP_TEMPLATE_TRACES, APP_TEMPLATE_LAYOUT = ("bar", "scatter", "table"), ("colorway",)


def app_template() -> None:
    """Make ``"evalcore_app"`` plotly's default template in the dashboard: Streamlit's ``"streamlit"``
    template (its chart theme's placeholder colours, which the browser replaces with the theme's) cut to
    :data:`APP_TEMPLATE_TRACES` and :data:`APP_TEMPLATE_LAYOUT`.

    Every chart carries its template in its JSON, and plotly deep-copies and walks it for every chart of every
    rerun. Streamlit's is 331 objects, mostly default colour scales of trace types the dashboard never draws
    (contours, 2D histograms, waterfalls ...) and of heatmaps and colour axes, which every heatmap evalcore
    draws overrides with its own scale; cut, it is 23, and every chart's JSON and a whole Rankings move are
    smaller (docs/benchmarks.md section 16.7 and section 17). The charts look the same: what is cut styles
    traces and scales they do not have.
    """
    import plotly.graph_objects as go
    import plotly.io as pio

    if "streamlit" not in pio.templates:        # a Streamlit without its chart theme: leave plotly's default
        return
    full = pio.templates["streamlit"].to_plotly_json()
    pio.templates["evalcore_app"] = go.layout.Template({
        "data": {k: v for k, v in full.get("data", {}).items() if k in APP_TEMPLATE_TRACES},
        "layout": {k: v for k, v in full.get("layout", {}).items() if k in APP_TEMPLATE_LAYOUT}})
    pio.templates.default = "evalcore_app"


app_template()


def chart_config(fig, label: str = "", fmt: str = "svg") -> dict:
    """plotly's config for one chart: the camera button saves ``fmt`` in the browser (plotly.js image
    export: no server-side browser), slide-shaped (:func:`slide_size`: 16:9 or 4:3), under a file name from
    the chart's label."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-").lower()[:60] or "evalcore-chart"
    width, height = slide_size(fig)
    return {"displaylogo": False,
            "toImageButtonOptions": {"format": fmt, "filename": name, "width": width, "height": height,
                                     "scale": PNG_SCALE if fmt == "png" else 1}}


def chart(fig, label: str | None = None, **kw) -> None:
    """``st.plotly_chart``, noting the figure for the view's HTML export (dashboard.export). The chart's
    camera button downloads it as SVG, or as a slide-sized PNG when the session's :data:`CHART_FORMAT_KEY`
    says ``"png"`` (:func:`chart_config`)."""
    label = label or _title(fig)
    if st.session_state.get("present"):        # presentation mode: the chart's text 1.25 x too (a copy:
        fig = type(fig)(fig)                   # figures may come from a cache)
        fig.update_layout(font_size=round(1.25 * (fig.layout.font.size or 12)))
        for tr in fig.data:                    # text a trace sizes itself (a heatmap's cell numbers)
            tf = getattr(tr, "textfont", None)
            if tf is not None and isinstance(tf.size, (int, float)):
                tr.textfont.size = round(1.25 * tf.size)
    state.this_run().setdefault("figs", []).append((label, fig))
    note("chart", label=label, fig=fig)
    fmt = "png" if st.session_state.get(CHART_FORMAT_KEY) == "png" else "svg"
    kw.setdefault("config", chart_config(fig, label or str(kw.get("key") or ""), fmt))
    st.plotly_chart(fig, **kw)
    st.html(chart_alt(fig, label))          # its data as a table for screen readers (WCAG 2.1 1.1.1)


#: Rows of a chart's text alternative: a trace with more points is summarised (its range), not listed.
ALT_POINTS, ALT_ROWS = 40, 200


def _alt_text(v) -> str:
    """A value of a figure as text for its alternative: numbers at 4 significant digits; strings decoded
    once (the figures HTML-escape user text, safe.plot) and escaped once, control characters made visible."""
    import html

    from evalcore.texfmt import visible
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape(visible(html.unescape(re.sub(r"<br\s*/?>", " ", str(v)))))


def _heat_rows(tr) -> list[tuple]:
    """A heatmap trace's (row, column, value) rows for :func:`chart_alt`."""
    z = tr.z if tr.z is not None else []
    xs = list(tr.x) if tr.x is not None else list(range(len(z[0]) if len(z) else 0))
    ys = list(tr.y) if tr.y is not None else list(range(len(z)))
    return [(yv, xv, z[i][j]) for i, yv in enumerate(ys) for j, xv in enumerate(xs)
            if i < len(z) and j < len(z[i])]


def _trace_rows(tr) -> list[tuple]:
    """A line, bar or marker trace's (series, point, x, y) rows for :func:`chart_alt`: none for a label-only
    trace, one summary row (its ranges) past :data:`ALT_POINTS` points."""
    name = getattr(tr, "name", None) or ""
    if not name and getattr(tr, "mode", None) == "text":        # labels drawn beside the data
        return []
    xs = list(tr.x) if getattr(tr, "x", None) is not None else []
    ys = list(tr.y) if getattr(tr, "y", None) is not None else []
    n = max(len(xs), len(ys))
    xs, ys = (xs or list(range(n))), (ys or [""] * n)
    text = getattr(tr, "text", None)
    labels = list(text) if isinstance(text, (list, tuple)) or hasattr(text, "__len__") and \
        not isinstance(text, str) else [""] * n
    pts = [(lab, x, y) for lab, x, y in zip(labels + [""] * (n - len(labels)), xs, ys, strict=False)
           if x is not None and y is not None and not (isinstance(y, float) and y != y)]
    if len(pts) <= ALT_POINTS:
        return [(name, lab, x, y) for lab, x, y in pts]
    nums = [float(y) for _, _, y in pts if isinstance(y, (int, float))]
    span = f"{min(nums):.4g} to {max(nums):.4g}" if nums else ""
    return [(name, f"{len(pts)} points", f"{_alt_text(pts[0][1])} to {_alt_text(pts[-1][1])}", span)]


def chart_alt(fig, label: str = "") -> str:
    """The chart's text alternative: a table of its data (series, point, x, y - the point's label where the
    chart writes one, as the Overview's run names; a heatmap's row, column, value) under its title, shown to
    screen readers only (class ``chart-alt``, dashboard.shell.A11Y_CSS). Gaps between line segments and
    label-only traces are left out; a trace of more than :data:`ALT_POINTS` points is one row with its
    ranges; at most :data:`ALT_ROWS` rows."""
    rows: list[tuple] = []
    heat = any(tr.type == "heatmap" for tr in fig.data)
    for tr in fig.data:
        rows += _heat_rows(tr) if tr.type == "heatmap" else _trace_rows(tr)
    head = ("row", "column", "value") if heat else ("series", "point", "x", "y")
    cap = _alt_text(label or _title(fig) or "chart")
    body = "".join("<tr>" + "".join(f"<td>{_alt_text(v)}</td>" for v in r) + "</tr>" for r in rows[:ALT_ROWS])
    more = f"<tr><td colspan={len(head)}>{len(rows) - ALT_ROWS} more rows in the HTML export</td></tr>" \
        if len(rows) > ALT_ROWS else ""
    return (f'<table class="chart-alt"><caption>Data of the chart: {cap}</caption><thead><tr>'
            + "".join(f"<th>{h}</th>" for h in head) + f"</tr></thead><tbody>{body}{more}</tbody></table>")


def note(kind: str, **item) -> None:
    """Note one element of the view, in the order drawn, for the HTML export (dashboard.export):
    ``chart`` (label, fig), ``table`` (label, frame, digits, column settings, index shown), ``caption``,
    ``heading`` and ``text`` (Markdown as drawn)."""
    state.this_run().setdefault("items", []).append({"kind": kind, **item})


def note_heading(text: str) -> None:
    """Note a heading the page shows another way (a tab's label) for the view's HTML export."""
    note("heading", text=str(text))


def note_table(df: pd.DataFrame, digits: int = 4, label: str = "", index: bool = False) -> None:
    """Note a table a page draws itself (a styled frame) for the view's HTML export."""
    note("table", label=label, frame=df, digits=digits, columns={}, index=index)


def caption(text: str, **kw) -> None:
    """``st.caption``, noted for the view's HTML export."""
    note("caption", text=str(text))
    st.caption(text, **kw)


def subheader(text: str, **kw) -> None:
    """``st.subheader``, noted for the view's HTML export."""
    note("heading", text=str(text))
    st.subheader(text, **kw)


def markdown(text: str, **kw) -> None:
    """``st.markdown``, noted for the view's HTML export."""
    note("text", text=str(text))
    st.markdown(text, **kw)


def _title(fig) -> str:
    try:
        return str(fig.layout.title.text or "")
    except AttributeError:
        return ""


def metric_select(label: str, key: str, s: state.Settings, default: str | None = None, help: str | None = None) -> str:
    """A selectbox over the current metric keys whose value lives under ``key``."""
    keys = list(s.metric_keys)
    ss = st.session_state
    cur = ss.get(key)
    if cur not in keys:
        base_match = [k for k in keys if k.partition("@")[0] == str(cur).partition("@")[0]]
        ss[key] = base_match[0] if base_match else (default if default in keys else keys[0])
    return st.selectbox(label, keys, key=key, help=help)


def number(x, digits: int = 4) -> str:
    return "" if pd.isna(x) else f"{x:.{digits}f}"


#: Words for evalcore's column names (dashboard/report.py: the same words in the LaTeX export).
COLUMN_LABELS = report.COLUMN_LABELS


#: A table of at most this many rows is drawn at its full height (every row in view, no inner scroll bar:
#: Streamlit's default of about ten rows hid the last rows of short tables on a 1024 x 768 screen, and a
#: 30-run table scrolled with no sign that more rows exist); a longer one shows :data:`SCROLL_ROWS` rows
#: (unless its page asks for a height) and says under it that it scrolls (:func:`table`).
FULL_HEIGHT_ROWS = 30
SCROLL_ROWS = 15


#: Presentation mode's type size against the normal one (dashboard.shell.PRESENT_CSS: 20 px for 16 px).
PRESENT_SCALE = 1.25


def _row_px() -> tuple[int, int]:
    """(header, row) heights in whole px: 38 and 35 px, 1.25 x that in presentation mode, where Streamlit's
    rem-sized rows grow with the type. Rounded up, with the grid's 2 px of border on the header: a row drawn
    at 43.75 px, or a height a few px short, would leave a long table an inner scroll bar with no note."""
    scale = PRESENT_SCALE if st.session_state.get("present") else 1.0
    return math.ceil(scale * 38) + 2, math.ceil(scale * 35)


def rows_height(n_rows: int) -> int:
    """The height (px) of a table showing ``n_rows`` rows and its header, with no inner scroll bar."""
    head, row = _row_px()
    return head + row * max(int(n_rows), 1)


def table(df: pd.DataFrame, digits: int = 4, height: int | None = None, label: str | None = None, **kw) -> None:
    """A sortable dataframe with floats at ``digits`` decimals and evalcore's column names in words
    (:data:`COLUMN_LABELS`; the frame itself keeps them, for downloads and tests). A short table
    (:data:`FULL_HEIGHT_ROWS`) shows every row unless ``height`` says otherwise. The frame, its column
    settings and ``label`` are noted for the view's HTML export, where it is a table."""
    if height is None:
        height = rows_height(min(len(df), FULL_HEIGHT_ROWS if len(df) <= FULL_HEIGHT_ROWS else SCROLL_ROWS))
    cfg = {c: st.column_config.NumberColumn(COLUMN_LABELS.get(c), format=f"%.{digits}f")
           for c, dt in df.dtypes.items() if pd.api.types.is_float_dtype(dt)}    # dtypes: no column copied
    cfg.update({c: st.column_config.Column(COLUMN_LABELS[c]) for c in df.columns
                if c in COLUMN_LABELS and c not in cfg})
    cfg.update(kw.pop("column_config", None) or {})       # a page's own settings win, the rest stay
    args = dict(column_config=cfg, width="stretch")
    if height is not None:
        args["height"] = height
    args.update(kw)
    note("table", label=label or "", frame=df, digits=digits, columns=cfg, index=not kw.get("hide_index"))
    st.dataframe(visible_ids(df), **args)
    shown = rows_shown(height)
    if len(df) > shown:      # the grid's scroll bar shows only on hover: say that more rows exist
        st.caption(f"{len(df):,} rows, about {shown} in view: scroll inside the table for the others, sort by a "
                   "column, or download it (the table's toolbar, top right).")


def rows_shown(height: int) -> int:
    """How many rows a table of ``height`` px shows at once (:func:`rows_height` turned round)."""
    head, row = _row_px()
    return max(int((height - head) // row), 1)


def visible_ids(df: pd.DataFrame) -> pd.DataFrame:
    """The frame as shown: text cells and labels (run and topic ids) with bidirectional, zero-width and
    control characters as ``\\uXXXX`` escapes (:func:`evalcore.texfmt.visible`); a copy only when one has any."""
    from evalcore.texfmt import any_invisible, visible

    def fix(v):
        return visible(v) if isinstance(v, str) else v

    def texty(dtype) -> bool:
        return pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
    text = [c for c, dt in df.dtypes.items() if texty(dt)]
    changed = any(any_invisible(df[c].tolist()) for c in text)
    index_changed = texty(df.index.dtype) and any_invisible(df.index.tolist())
    if not changed and not index_changed:
        return df
    out = df.copy()
    for c in text:
        out[c] = out[c].map(fix)
    if index_changed:
        out.index = out.index.map(fix)
    return out


def gain_control_words() -> str:
    """Where the reader changes the gains, in this run's mode: the sidebar's sliders, or in presentation mode
    (sidebar closed) the row of boxes at the top of the page."""
    if st.session_state.get("present"):
        return "a **gain box** at the top of the page"
    return "a **gain slider** in the sidebar"


def sidebar_words() -> str:
    """"the sidebar", and in presentation mode (where it starts closed) how to open it."""
    return "the sidebar, which **»** at the top left opens" if st.session_state.get("present") else "the sidebar"


def settings_line(s: state.Settings, c) -> str:
    names = [safe.md(n, 40) for n in state.level_names(s.K, c.level_names)]
    gains = " : ".join(f"{names[L - 1]}={s.gains[L - 1]:g}" for L in range(s.K, 0, -1))
    chosen = {m.partition("@")[0] for m in s.metrics}
    rbp = "".join(f" · {prm.setting.label} = {v:g}" for prm in SETTING_PARAMS for name, v in s.measure_settings
                  if prm.name == name and prm.setting and not chosen.isdisjoint(readers(prm)))
    order = getattr(c, "order", "given")
    depth = getattr(c, "depth_limit", None)
    return (f"gains {gains} · beta {s.beta:g} · cutoff l = {s.cutoff} · "
            f"{'rigid' if s.rel_threshold == 2 else 'relaxed'} threshold (level >= {s.rel_threshold}){rbp} · "
            f"means over the topics with a relevant document (NTCIREVAL) · ranking: "
            f"{_ORDER_SHORT.get(order, order)}" + (f" · top {depth} of each list" if depth else ""))


#: The ranking order of the caption (evalcore.Collection.order), in a few words.
_ORDER_SHORT = {"score": "by score, ties by document id (trec_eval)", "rank": "by the rank column",
                "file": "file order (NTCIREVAL)", "given": "as given"}
