"""Figure layout rules that keep charts readable on a 1024 px screen (the real-browser check of the
drawn boxes is tests/test_browser.py::test_every_page_is_readable_at_1024_x_768)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalcore import figures


def _lines(title):
    df = pd.DataFrame({"metric": ["AP", "AP", "Q-measure", "Q-measure"], "x": [0, 1, 0, 1], "y": [0.5, 0.2, 0.4, 0.1]})
    return figures.lines(df, "x", "y", "metric", x_title="x", y_title="y", title=title)


def test_a_titled_chart_puts_its_legend_below_the_plot_and_an_untitled_one_above():
    titled = _lines("Swap rates, replacement sampling, B = 200").layout
    assert titled.legend.yref == "container" and titled.legend.y == 0 and titled.legend.yanchor == "bottom"
    assert titled.title.yref == "container" and titled.title.yanchor == "top"
    plain = _lines(None).layout
    assert plain.legend.y == 1.0 and plain.legend.yanchor == "bottom" and plain.legend.yref in (None, "paper")
    # plotly's toolbar sits at the top right: an untitled chart's legend starts at the left, clear of it
    assert plain.legend.x == 0 and plain.legend.xanchor == "left"


def test_the_forest_plots_legend_is_clear_of_the_toolbar():
    df = pd.DataFrame({"other": ["b", "c"], "mean_diff": [0.1, -0.2], "ci_low": [0.0, -0.3], "ci_high": [0.2, -0.1],
                       "significant": [True, True], "p_adjusted": [0.01, 0.02]})
    lay = figures.forest(df, run="a", metric="AP", ci_label="95% CI", sig_label="Holm-adjusted p < 0.05").layout
    assert lay.legend.xanchor == "left" and lay.legend.x == 0


def test_long_titles_wrap_at_spaces_and_the_top_margin_grows():
    text, n = figures.wrap_title("Bootstrap test (Sakai 2007 Table 4), B = 200")
    assert n == 2 and all(len(line) <= figures.TITLE_LINE for line in text.split("<br>"))
    assert text.replace("<br>", " ") == "Bootstrap test (Sakai 2007 Table 4), B = 200"
    assert figures.wrap_title("x" * 50) == ("x" * 50, 1)                      # one long word stays whole
    assert figures.wrap_title("a<br>b") == ("a<br>b", 2)
    one = figures.share_bars(pd.DataFrame({"metric": ["AP"], "s": [0.5]}), "metric", "s", y_title="y", title="T")
    two = figures.share_bars(pd.DataFrame({"metric": ["AP"], "s": [0.5]}), "metric", "s", y_title="y",
                             title="Bootstrap test (Sakai 2007 Table 4), B = 200")
    assert two.layout.margin.t >= one.layout.margin.t + 20


def test_every_tau_heatmap_label_is_asked_for():
    tau = pd.DataFrame(0.5, index=[f"m{i}" for i in range(12)], columns=[f"m{i}" for i in range(12)])
    for cell_text in (True, False):
        lay = figures.tau_heatmap(tau, cell_text=cell_text).layout
        assert lay.xaxis.dtick == 1 and lay.yaxis.dtick == 1
    assert figures.tau_heatmap(tau, cell_text=False).layout.xaxis.tickangle == -90


def test_the_template_is_plotly_white_for_the_traces_and_axes_evalcore_draws():
    """The "evalcore" template keeps plotly_white's defaults for the trace types the figures draw and its 2D
    layout (plus the palette and fonts); it leaves out other trace types and 3D / polar / ternary / map
    settings, which every chart's JSON carried for nothing (7.2 KB of a ranking chart's 8.2 KB)."""
    import json

    import plotly.io as pio

    from evalcore.figures._style import NOT_2D, OKABE_ITO, TEMPLATE_TRACES, use_template
    use_template()
    white = pio.templates["plotly_white"].to_plotly_json()
    ours = pio.templates["evalcore"].to_plotly_json()
    assert set(ours["data"]) == set(TEMPLATE_TRACES)
    assert {k: ours["data"][k] for k in TEMPLATE_TRACES} == {k: white["data"][k] for k in TEMPLATE_TRACES}
    mine = {"colorway", "font", "hoverlabel"}
    assert {k: v for k, v in ours["layout"].items() if k not in mine} == \
        {k: v for k, v in white["layout"].items() if k not in mine and k not in NOT_2D}
    assert ours["layout"]["colorway"] == OKABE_ITO and ours["layout"]["hoverlabel"]["font"]["size"] == 13
    fig = figures.ranking_bars(pd.DataFrame({"AP": [0.3, 0.5]}, index=["a", "b"]), "AP")
    assert len(json.dumps(fig.to_plotly_json()["layout"]["template"])) < 4000


def test_every_trace_type_evalcore_draws_has_its_template_defaults():
    """Read from the source: every trace dict the figures build (a ``type=`` beside data ``x``/``y``/``z``) is
    of a type the template styles, so no chart falls back to plotly.js's bare defaults."""
    import ast
    from pathlib import Path

    from evalcore.figures._style import TEMPLATE_TRACES
    found = set()
    for path in Path(figures.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            keys = {}
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "dict":
                keys = {k.arg: k.value for k in node.keywords if k.arg}
            elif isinstance(node, ast.Dict):
                keys = {k.value: v for k, v in zip(node.keys, node.values, strict=True)
                        if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if "type" in keys and {"x", "y", "z"} & set(keys) and isinstance(keys["type"], ast.Constant):
                found.add(keys["type"].value)
    assert found and found <= set(TEMPLATE_TRACES), found


# -- building without plotly's validation (what the dashboard does) sends the browser the same figure ------
def _browser_json(fig) -> dict:
    """What st.plotly_chart sends (the figure's dict as JSON), with what means the same to plotly.js made
    equal: key order, null values, empty containers, and typed arrays decoded to their numbers."""
    import base64
    import json

    import numpy as np
    import plotly.io as pio

    def norm(o):
        if isinstance(o, dict):
            if "bdata" in o and "dtype" in o:
                values = np.frombuffer(base64.b64decode(o["bdata"]), dtype=o["dtype"]).tolist()
                return ["typed", [norm(v) for v in values], o.get("shape")]
            d = {k: norm(v) for k, v in o.items() if v is not None}
            return {k: v for k, v in d.items() if v not in ({}, [])}
        if isinstance(o, list):
            return [norm(v) for v in o]
        return "NaN" if isinstance(o, float) and o != o else o       # NaN == NaN for the comparison
    return norm(json.loads(pio.to_json(fig.to_dict(), validate=False)))


def _both_ways(monkeypatch, build):
    from evalcore.figures import _style

    monkeypatch.setitem(_style._VALIDATE, "on", True)
    checked = build()
    monkeypatch.setitem(_style._VALIDATE, "on", False)
    fast = build()
    assert fast._validate is False and checked._validate is True
    return _browser_json(checked), _browser_json(fast)


def _page_figures():
    import numpy as np

    rng = np.random.default_rng(3)
    runs = [f"run <{i}>" for i in range(12)]
    means = pd.DataFrame(rng.random((12, 3)), index=pd.Index(runs, name="run"), columns=["AP", "Q-measure", "nDCG@10"])
    shift = pd.DataFrame({"run": runs, "value_left": rng.random(12), "value_right": rng.random(12)})
    shift["rank_left"] = shift["value_left"].rank(ascending=False, method="min").astype(int)
    shift["rank_right"] = shift["value_right"].rank(ascending=False, method="min").astype(int)
    mat = pd.DataFrame(rng.random((12, 8)), index=runs, columns=[f"t{i}" for i in range(8)])
    tau = pd.DataFrame(np.corrcoef(rng.random((3, 12))), index=means.columns, columns=means.columns)
    diff = pd.DataFrame({"topic": mat.columns, "x": mat.iloc[0].to_numpy(), "y": mat.iloc[1].to_numpy()})
    diff["diff"] = diff["x"] - diff["y"]
    return {
        "ranking_bars": lambda: figures.ranking_bars(means, "Q-measure"),
        "rank_shift": lambda: figures.rank_shift(shift, "3:2:1", "current (10:5:1)", title="moved"),
        "topic_heatmap": lambda: figures.topic_heatmap(mat, "AP"),
        "tau_heatmap": lambda: figures.tau_heatmap(tau, tau.abs() > 0.5, cell_text=False),
        "share_bars": lambda: figures.share_bars(pd.DataFrame({"metric": ["AP", "nDCG"], "s": [0.5, 0.7]}), "metric",
                                                 "s", y_title="share", title="Bootstrap test, B = 1000"),
        "run_difference": lambda: figures.run_difference(diff, runs[0], runs[1], "AP"),
        "lines": lambda: _lines("Swap rates"),
    }


def test_a_figure_built_without_validation_sends_the_browser_what_a_validated_one_does(monkeypatch):
    for name, build in _page_figures().items():
        checked, fast = _both_ways(monkeypatch, build)
        assert fast == checked, name
    # a named colour scale is where the two differed: plotly's validation writes out its own "Cividis", which
    # plotly.js would draw from other stops; evalcore's scale is written out (figures.SEQUENTIAL)
    heat = _both_ways(monkeypatch, _page_figures()["topic_heatmap"])[1]
    assert heat["data"][0]["colorscale"][0] == [0.0, "#00224e"] and len(heat["data"][0]["colorscale"]) == 10


def test_validation_refuses_a_misspelt_property_when_on_and_the_dashboard_turns_it_off(monkeypatch):
    import subprocess
    import sys

    from evalcore.figures import _style

    # a fresh interpreter: evalcore validates by default, and importing the dashboard's widgets turns it off
    code = ("from evalcore.figures import _style; a = _style.validating(); import dashboard.widgets; "
            "print(a, _style.validating())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=str(Path(__file__).resolve().parents[1]))
    assert r.stdout.split() == ["True", "False"], r.stderr
    monkeypatch.setitem(_style._VALIDATE, "on", False)
    assert _style.figure([{"type": "bar", "x": [1], "y": [2], "markr": {}}])._validate is False
    monkeypatch.setitem(_style._VALIDATE, "on", True)
    with pytest.raises(ValueError, match="markr"):
        _style.figure([{"type": "bar", "x": [1], "y": [2], "markr": {}}])


@pytest.mark.slow      # every page in AppTest, ~15 s
def test_every_chart_of_every_page_sends_the_browser_the_same_figure_without_validation(monkeypatch):
    """The dashboard's default view of every page, its figures' inputs recorded and each built both ways."""
    import copy
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from dashboard import pages
    from evalcore.figures import _style, charts

    calls = []

    def record(traces, **kw):
        calls.append((copy.deepcopy(traces), copy.deepcopy(kw)))
        return _style.figure(traces, **kw)

    monkeypatch.setattr(charts, "figure", record)
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=300)
    at.run()
    for page in pages.PAGES:
        at.switch_page(f"views/{page.file}").run()
        assert not at.exception, page.file
    assert len(calls) >= 20
    for traces, kw in calls:
        def build(t=traces, k=kw):
            return _style.figure(copy.deepcopy(t), **copy.deepcopy(k))
        checked, fast = _both_ways(monkeypatch, build)
        assert fast == checked, kw.get("title")
        fig = build()
        assert _plotly_json(fig) == _our_json(fig), kw.get("title")


# -- evalcore's figure class: plotly's to_dict, in one pass ------------------------------------------------
def _plotly_json(fig) -> str:
    """The JSON of the figure's dict as plotly's own ``Figure.to_dict`` makes it (the reference)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    return pio.to_json(go.Figure.to_dict(fig), validate=False)


def _our_json(fig) -> str:
    import plotly.io as pio

    return pio.to_json(fig.to_dict(), validate=False)


@pytest.mark.parametrize("template", ["evalcore", "app"])
def test_the_figure_class_makes_plotlys_dict_for_every_kind_of_chart(template, monkeypatch):
    pytest.importorskip("plotly", minversion="6")
    import plotly.io as pio

    from evalcore.figures import _style

    if template == "app":
        pytest.importorskip("streamlit")
        from dashboard import widgets

        monkeypatch.setattr(pio.templates, "default", pio.templates.default)
        widgets.app_template()
    for name, build in _page_figures().items():
        fig = build()
        assert type(fig) is _style.figure_class()
        assert _our_json(fig) == _plotly_json(fig), name       # the same text: key order, typed arrays, all


def test_the_figure_class_copies_and_converts_what_plotly_does():
    pytest.importorskip("plotly", minversion="6")
    import datetime

    import numpy as np

    from evalcore.figures import _style

    y = np.array([1, 2, 300], dtype=np.int64)                   # plotly narrows int64 to the smallest int type
    traces = [{"type": "scatter", "x": pd.Series([0.5, 1.5, 2.5]), "y": y, "text": np.array(["a", "b<", "c"]),
               "customdata": [np.arange(3), (1, "x")], "hovertext": ("p", "q", "r"),
               "meta": {"when": datetime.date(2026, 11, 28), "flags": np.array([True, False, True])}}]
    fig = _style.figure(traces, title="t", xaxis={"range": np.array([0.0, 3.0])})
    assert _our_json(fig) == _plotly_json(fig)
    d = fig.to_dict()
    assert d["data"][0]["y"]["dtype"] == "i2" and list(d["layout"]["xaxis"]["range"]) == [0.0, 3.0]
    d["data"][0]["customdata"][0][0] = 99                      # the dict is a copy: the figure is unchanged
    d["layout"]["title"]["text"] = "changed"
    assert fig.data[0].customdata[0][0] == 0 and fig.layout.title.text == "t"
    assert _our_json(fig) == _plotly_json(fig)
