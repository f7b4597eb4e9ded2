"""The dashboard's plotly template: Streamlit's chart theme cut to what the dashboard's charts read."""
import json

import pytest

pytest.importorskip("streamlit")


def test_the_app_template_is_streamlits_for_the_traces_the_dashboard_draws():
    """The default template in the dashboard is Streamlit's (its theme's placeholder colours, replaced in the
    browser) for the trace types the dashboard draws and the colour cycle, nothing else: no colour scale of
    trace types it never draws, which every chart's JSON carried."""
    import plotly.io as pio

    from dashboard import widgets
    widgets.app_template()
    assert pio.templates.default == "evalcore_app"
    full = pio.templates["streamlit"].to_plotly_json()
    ours = pio.templates["evalcore_app"].to_plotly_json()
    assert ours["data"] == {k: v for k, v in full["data"].items() if k in widgets.APP_TEMPLATE_TRACES}
    assert ours["layout"] == {"colorway": full["layout"]["colorway"]}
    assert "colorscale" in full["layout"] and len(json.dumps(ours)) < len(json.dumps(full)) / 3


def test_every_trace_type_of_the_figures_is_styled_or_names_its_colour_scale():
    """evalcore's figures draw bars, scatters and heatmaps (tests/test_figures_layout.py reads them from the
    source): bars and scatters keep Streamlit's defaults; a heatmap, whose only default in Streamlit's template is
    its colour scale, names its own in every chart."""
    import numpy as np
    import pandas as pd

    from dashboard import widgets
    from evalcore import figures
    from evalcore.figures._style import SEQUENTIAL, TEMPLATE_TRACES
    assert set(TEMPLATE_TRACES) - {"heatmap"} <= set(widgets.APP_TEMPLATE_TRACES)
    tau = pd.DataFrame([[1.0, 0.2], [0.2, 1.0]], index=["AP", "Q"], columns=["AP", "Q"])
    mat = pd.DataFrame(np.full((2, 3), 0.5), index=["a", "b"], columns=["1", "2", "3"])
    for fig in (figures.topic_heatmap(mat, "AP"), figures.tau_heatmap(tau), figures.tau_heatmap(tau, cell_text=False)):
        heats = [tr for tr in fig.data if tr.type == "heatmap"]
        assert heats and all([list(x) for x in tr.colorscale] == [list(x) for x in SEQUENTIAL] for tr in heats)


def test_a_rankings_chart_carries_the_cut_template():
    """What the browser gets: a Rankings chart's JSON holds the cut template (no colour scales)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=300)
    at.run()
    at.switch_page("views/rankings.py").run()
    assert not at.exception
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert specs
    for spec in specs:
        tpl = spec["layout"]["template"]
        assert set(tpl["data"]) <= {"bar", "scatter", "table"} and set(tpl["layout"]) == {"colorway"}
