"""What every figure shares: the palette, one marker symbol and dash per metric, label escaping, title
wrapping and the one place a plotly figure is built (plotly is imported there, on the first figure).

Colour is never the only cue: every line or marker group also has its own marker symbol and dash style,
so a chart printed in greyscale (or read with a colour-vision deficiency) still tells the groups apart.
"""
from __future__ import annotations

import copy
import html
import re

import numpy as np

from ..texfmt import visible

#: Okabe & Ito (2008), yellow last: it is hard to read on white.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"]
GREY = "#999999"
#: Sequential scale for values in [0, 1] (cividis: perceptually uniform, CVD-safe, monotone in lightness,
#: so it also reads in greyscale): plotly's ``plotly.colors.sequential.Cividis`` written out as the
#: [position, colour] pairs plotly's validation turns the name into, so a figure built without validation
#: (:func:`validate_figures`) sends the browser the same scale (plotly.js's own "Cividis" has other stops).
SEQUENTIAL = [[i / 9, c] for i, c in enumerate(("#00224e", "#123570", "#3b496c", "#575d6d", "#707173", "#8a8678",
                                                 "#a59c74", "#c3b369", "#e1cc55", "#fee838"))]
#: Diverging blue-orange for signed differences.
DIVERGING = [[0.0, "#0072B2"], [0.5, "#F7F7F7"], [1.0, "#D55E00"]]
#: Marker symbols and dash styles handed out in turn: the groups of a chart differ in shape and dash as
#: well as in colour (plotly's names).
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "cross", "star", "pentagon",
           "hexagon", "circle-open", "square-open")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")

#: Longest piece of user text drawn in one label (a run id, a setting).
MAX_LABEL = 500


def plot_text(text, limit: int = MAX_LABEL) -> str:
    """``text`` for a plotly label, legend entry, tick or hover text: ``<``, ``>`` and ``&`` as entities,
    so no tag (``<a href>``) is drawn; plotly shows the characters. Cut at ``limit`` characters.

    >>> plot_text('<a href="https://evil.example">x</a>')
    '&lt;a href="https://evil.example"&gt;x&lt;/a&gt;'
    """
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "..."
    return html.escape(visible(s), quote=False)


#: One colour per metric, the same in every chart (a metric keyed ``nDCG@10`` takes nDCG's). The
#: dashboard's default metrics (dashboard.state.DEFAULT_METRICS, a test keeps the two equal) get the
#: Okabe-Ito colours but yellow, hard to read on white; the rest of evalcore's registry the colours of
#: Tol's "muted" scheme (Tol 2021), also distinguishable with the common colour-vision deficiencies.
METRIC_COLOR_ORDER = ("AP", "Q-measure", "RR", "O-measure", "NWRR", "P-measure", "P+-measure", "nDCG")
TOL_MUTED = ["#332288", "#117733", "#44AA99", "#88CCEE", "#DDCC77", "#CC6677", "#AA4499", "#882255", "#999933"]
OTHER_METRICS = ("R-measure", "AWP", "R-Prec", "WRR", "MSnDCG", "nCG", "AnDCG", "AnCG", "nERR", "P", "Hit")
METRIC_COLORS = {**dict(zip(METRIC_COLOR_ORDER, OKABE_ITO[:7] + ["#882255"], strict=True)),
                 **dict(zip(OTHER_METRICS, TOL_MUTED[:7] + ["#999933", "#117733", "#44AA99", "#AA4499"],
                            strict=True))}
_KNOWN = METRIC_COLOR_ORDER + OTHER_METRICS


def _slot(name) -> int:
    """A metric's place: its index among evalcore's known metrics, else a number from its characters (the
    same in every process, unlike ``hash``)."""
    base = str(name).partition("@")[0]
    if base in _KNOWN:
        return _KNOWN.index(base)
    return sum(map(ord, str(name)))


def metric_color(name) -> str:
    """The colour of a metric (``"Q-measure"``, ``"nDCG@10"``) in every chart. A name outside the
    registry gets a colour from its characters."""
    base = str(name).partition("@")[0]
    if base in METRIC_COLORS:
        return METRIC_COLORS[base]
    palette = OKABE_ITO[:7] + TOL_MUTED
    return palette[sum(map(ord, str(name))) % len(palette)]


def metric_symbol(name) -> str:
    """The marker symbol of a metric, the same in every chart (greyscale prints tell metrics apart)."""
    return SYMBOLS[_slot(name) % len(SYMBOLS)]


def metric_dash(name) -> str:
    """The dash style of a metric's line, the same in every chart."""
    return DASHES[_slot(name) % len(DASHES)]


def color_map(names) -> dict[str, str]:
    """Colours of metric groups: :func:`metric_color` of each, whatever the order they come in."""
    return {n: metric_color(n) for n in names}


_TEMPLATE_READY = False


#: The trace types evalcore's figures draw. Their template keeps plotly_white's defaults for these alone.
TEMPLATE_TRACES = ("bar", "heatmap", "scatter")
#: plotly_white's layout settings for subplots evalcore's 2D charts never have (3D scenes, polar, ternary, maps).
NOT_2D = ("geo", "map", "mapbox", "polar", "scene", "ternary")


def use_template() -> None:
    """Register the figures' plotly template ``"evalcore"`` and make it plotly's default, unless a default
    other than plotly's own was chosen (a notebook's choice is kept). Called by the first figure.

    The template is plotly_white with the palette and fonts, cut to what evalcore's figures use: the trace
    defaults of :data:`TEMPLATE_TRACES` and the layout without :data:`NOT_2D`'s subplot settings. Every chart
    carries its template in its JSON, and plotly_white's whole template was most of a ranking chart's JSON,
    copied, encoded, hashed and sent with every chart of every rerun; cut, the chart is less than half the
    size and cheaper to build and encode (docs/benchmarks.md section 16.3). The charts look the same: the
    parts cut style trace types and subplots they do not have.

    Why a default and not ``template=`` on each figure: plotly validates and copies a whole template
    passed with a figure, on every figure of every rerun (about half a dashboard page's CPU:
    docs/benchmarks.md section 17); a default template is applied from a cache.
    """
    global _TEMPLATE_READY
    if _TEMPLATE_READY:
        return
    import plotly.graph_objects as go
    import plotly.io as pio

    white = pio.templates["plotly_white"].to_plotly_json()
    tpl = go.layout.Template({"data": {k: v for k, v in white.get("data", {}).items() if k in TEMPLATE_TRACES},
                              "layout": {k: v for k, v in white.get("layout", {}).items() if k not in NOT_2D}})
    tpl.layout.update(colorway=OKABE_ITO, font=dict(family="Inter, Source Sans Pro, sans-serif", size=13),
                      hoverlabel=dict(font_size=13))
    pio.templates["evalcore"] = tpl
    if pio.templates.default in ("plotly", None, ""):
        pio.templates.default = "evalcore"
    _TEMPLATE_READY = True


def axis(title: str | None = None, **kw) -> dict:
    """One axis of a layout dict: ``title`` (text) plus any plotly axis properties."""
    if title is not None:
        kw["title"] = {"text": title}
    return kw


def hline(y: float, line: dict, label: str = "", position: str = "top left") -> tuple[dict, list[dict]]:
    """A horizontal line across the plot at data ``y`` and its label: the shape and annotation
    ``fig.add_hline(y, annotation_text=..., annotation_position=...)`` makes, as dicts."""
    shape = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y, "line": line}
    if not label:
        return shape, []
    vert, _, horiz = position.partition(" ")
    note = {"text": label, "showarrow": False, "xref": "x domain", "yref": "y", "y": y,
            "x": 1 if horiz == "right" else 0, "xanchor": horiz or "left",
            "yanchor": "bottom" if vert == "top" else "top"}
    return shape, [note]


def vline(x: float, line: dict) -> dict:
    """A vertical line over the whole plot height at data ``x`` (``fig.add_vline``, as a dict)."""
    return {"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain", "y0": 0, "y1": 1, "line": line}


#: Longest line of a chart title (characters): a chart in half of a 1024 px screen is ~330 px wide and a
#: 15 px bold title takes ~7.3 px a character; plotly neither wraps nor clips a title, it runs off the chart.
TITLE_LINE = 42


def wrap_title(title: str) -> tuple[str, int]:
    """``title`` in lines of at most :data:`TITLE_LINE` characters, joined by ``<br>`` (one already in it is
    kept), and the number of lines. Lines break after a comma first, then before a parenthesis, then at any
    space, so a clause ("quick pass: B = 100 (refining to B = 700)") stays whole when it fits a line;
    a word longer than a line stays whole.

    >>> wrap_title("Bootstrap test (Sakai 2007 Table 4), B = 200")
    ('Bootstrap test (Sakai 2007 Table 4),<br>B = 200', 2)
    >>> wrap_title("Does the Q-measure ranking change? (Sakai 2007 Table 5)")
    ('Does the Q-measure ranking change?<br>(Sakai 2007 Table 5)', 2)
    """
    lines: list[str] = []
    for part in title.split("<br>"):
        pieces: list[str] = []
        for clause in re.split(r"(?<=,) ", part):
            for sub in ([clause] if len(clause) <= TITLE_LINE else re.split(r" (?=\()", clause)):
                pieces += [sub] if len(sub) <= TITLE_LINE else sub.split(" ")
        start = len(lines)
        for piece in pieces:
            if len(lines) > start and len(lines[-1]) + 1 + len(piece) <= TITLE_LINE:
                lines[-1] += " " + piece
            else:
                lines.append(piece)
    return "<br>".join(lines), len(lines)


#: Trace properties whose strings plotly draws as (HTML-ish) labels: run and topic ids, settings.
_DRAWN = ("x", "y", "text", "hovertext", "customdata", "name", "labels", "categoryarray")


def text_safe(trace: dict) -> dict:
    """A trace whose data strings (ids from the user's files) are shown, not read as tags: plotly draws
    ``<a href>`` in a tick or a hover as a link. Numbers are left alone (no copy of a numeric array). A flat
    list of strings comes back as one fixed-width string array: plotly copies and encodes a list element by
    element and an array at once, and the JSON the browser gets is the same."""
    out = dict(trace)
    for k in _DRAWN:
        v = out.get(k)
        if isinstance(v, str):
            out[k] = plot_text(v)
        elif isinstance(v, np.ndarray) and v.dtype.kind == "U":
            out[k] = _esc_unicode(v)
        elif isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.dtype == object):
            out[k] = _esc_array(v)
            if isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in out[k]):
                out[k] = _as_array(out[k])
    return out


def _as_array(texts: list[str]):
    """``texts`` as one fixed-width string array, unless one long string among many short ones would make it
    several times their size (every cell is as wide as the longest): then the list."""
    widest = max(map(len, texts))
    if widest * len(texts) > 4 * sum(map(len, texts)) + 4096:
        return texts
    return np.array(texts, dtype=str)


def _esc_unicode(v: np.ndarray) -> np.ndarray:
    """A fixed-width string array escaped as :func:`plot_text` does, each distinct string once (a chart's
    labels repeat a few run ids and settings)."""
    if not v.size:
        return v
    uniq, inverse = np.unique(v, return_inverse=True)
    esc = [plot_text(x) for x in uniq.tolist()]
    return np.array(esc, dtype=str)[inverse].reshape(v.shape)


def _esc_array(v):
    if isinstance(v, np.ndarray):
        flat = [(plot_text(x) if isinstance(x, str) else x) for x in v.ravel().tolist()]
        return np.array(flat, dtype=object).reshape(v.shape)
    return [(plot_text(x) if isinstance(x, str) else _esc_array(x) if isinstance(x, (list, tuple)) else x)
            for x in v]


#: Whether :func:`figure` has plotly validate what it builds (:func:`validate_figures`).
_VALIDATE = {"on": True}


def validate_figures(on: bool = True) -> None:
    """Have plotly check every property value of the figures evalcore builds (the default), or not.

    Validation costs more than building the figure (docs/benchmarks.md section 16.5), and it checks values
    evalcore writes itself. The dashboard turns it off; a notebook drawing a few figures has no reason to.
    Either way the JSON sent to the browser is the same (tests/test_figures_layout.py builds every chart of
    every page both ways). Without validation plotly keeps the figure's dicts as they are: a misspelt property
    name is not refused (the tests build every chart validated too), and evalcore's charts never set a
    property afterwards through an attribute path (``fig.layout.legend.title.text = ...``), which fails on
    a ``None`` kept as it is. Property names set later with ``fig.update_layout(...)`` are checked either way.
    """
    _VALIDATE["on"] = bool(on)


def validating() -> bool:
    """Whether figures are validated now (:func:`validate_figures`'s setting; on unless turned off)."""
    return _VALIDATE["on"]


#: Keys whose values plotly's ``to_dict`` leaves as they are (``_plotly_utils.utils.is_skipped_key``).
_NOT_TYPED = frozenset(("geojson", "layer", "layers", "range"))
_FIGURE_CLASS: list = []


def _plain(o, typed, is_array):
    """``copy.deepcopy(o)`` then plotly's ``convert_to_base64`` on the copy, in one pass: an array that is a
    dict's value becomes what plotly's ``to_typed_array_spec`` (``typed``) makes of it (a numeric numpy array:
    plotly.js's typed array), as in plotly's ``to_dict``; strings and numbers are shared (immutable), anything
    else is deep-copied. ``is_array``: plotly's ``is_homogeneous_array``."""
    if isinstance(o, dict):
        out = {}
        for k, v in o.items():
            if k in _NOT_TYPED:
                out[k] = copy.deepcopy(v)
            elif isinstance(v, np.ndarray):
                # a string array: what to_typed_array_spec makes of it (a read-only object array), directly
                out[k] = _read_only(np.array(v, dtype=object)) if v.dtype.kind == "U" else typed(v)
            elif isinstance(v, (dict, list, tuple, str, int, float)) or v is None:
                out[k] = _plain(v, typed, is_array)
            else:
                out[k] = copy.deepcopy(v)
                if is_array(v):
                    out[k] = typed(out[k])
        return out
    if isinstance(o, list):
        return [_plain(v, typed, is_array) for v in o]
    if isinstance(o, tuple):
        return tuple(_plain(v, typed, is_array) for v in o)
    if isinstance(o, (str, int, float)) or o is None:
        return o
    return copy.deepcopy(o)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def figure_class():
    """evalcore's figure class: ``plotly.graph_objects.Figure`` with a faster ``to_dict`` (what
    ``st.plotly_chart``, ``fig.to_json`` and ``plotly.io`` call). It returns the same dict as plotly's - a deep
    copy of the figure's data and layout with its numpy arrays as plotly.js typed arrays - built in one pass
    instead of a deep copy and a second walk over the copy. A chart template alone is dozens of nested
    objects, and the two walks were about half of the time the dashboard spent handing a chart to Streamlit
    (docs/benchmarks.md section 16.8). tests/test_figures_layout.py checks the JSON against plotly's own
    ``to_dict`` for every kind of chart. With a plotly without typed arrays (before 6.0) it is plotly's."""
    if _FIGURE_CLASS:
        return _FIGURE_CLASS[0]
    import plotly.graph_objects as go

    try:            # plotly >= 6
        from _plotly_utils.basevalidators import is_homogeneous_array as is_array
        from _plotly_utils.utils import to_typed_array_spec as typed
    except ImportError:
        typed = is_array = None

    class Figure(go.Figure):
        __doc__ = figure_class.__doc__

        def to_dict(self):
            if typed is None:
                return super().to_dict()
            res = {"data": _plain(self._data, typed, is_array), "layout": _plain(self._layout, typed, is_array)}
            frames = [_plain(f._props, typed, is_array) for f in self._frame_objs]
            if frames:
                res["frames"] = frames
            return res

    Figure.__module__ = __name__
    Figure.__qualname__ = "Figure"
    _FIGURE_CLASS.append(Figure)
    return Figure


def figure(traces: list[dict], *, title: str | None = None, x: str | None = None, y: str | None = None,
           height: int = 420, legend: bool = True, top: int | None = None, xaxis: dict | None = None,
           yaxis: dict | None = None, legend_title: str | None = None, **layout):
    """One ``plotly.graph_objects.Figure`` from plain dicts, validated once (or not at all:
    :func:`validate_figures`).

    Building a figure with ``add_trace`` / ``update_layout`` / ``update_xaxes`` makes plotly parse
    property paths and re-validate on every call, which was most of a dashboard rerun's CPU under a
    class of users (docs/reliability.md, "What a slider move costs"). One ``go.Figure(dict)`` checks
    the same properties once and still raises on a misspelt one.
    """
    try:
        import plotly.graph_objects  # noqa: F401 (plotly is optional: evalcore computes without it)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError('evalcore.figures draws with plotly: pip install "evalcore-ir[plot]" '
                                  "(or plotly>=5.20)") from e
    use_template()
    lay = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": top if top is not None else (48 if title else 16), "b": 10},
        "showlegend": legend,
        # above an untitled plot the legend starts at the left: plotly's toolbar (the mode bar) sits at the top
        # right, over the plot's corner, and covered a right-aligned legend's last entries (the forest plot's)
        # the legend's title is written into the dict, never set afterwards on fig.layout: without validation
        # (validate_figures(False), the dashboard's setting) plotly keeps a None here as it is, and an
        # attribute path through it (fig.layout.legend.title.text = ...) raises
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0,
                   "title": {"text": legend_title} if legend_title else None},
        "xaxis": {**axis(x), **(xaxis or {})},
        "yaxis": {**axis(y), **(yaxis or {})},
        **layout,
    }
    if title:
        text, n_lines = wrap_title(title)
        lay["title"] = {"text": text, "x": 0, "xanchor": "left", "font": {"size": 15},
                        "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 14}}
        lay["margin"]["t"] = max(lay["margin"]["t"], 28 + 20 * n_lines)
        if legend:
            # a legend above the plot grows upwards over the title when its entries wrap to a second row
            # (half a 1024 px screen): under a title it goes to the figure's bottom edge, below the x axis,
            # and plotly widens the bottom margin to fit it
            lay["legend"] = {**lay["legend"], "yref": "container", "y": 0, "yanchor": "bottom", "xanchor": "left",
                             "x": 0, **(layout.get("legend") or {})}
    return figure_class()({"data": [text_safe(t) for t in traces], "layout": lay}, _validate=validating())
