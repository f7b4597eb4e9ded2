"""Figure layout rules that keep charts readable on a 1024 px screen (the real-browser check of the
drawn boxes is tests/test_browser.py::test_every_page_is_readable_at_1024_x_768)."""
from __future__ import annotations

import pandas as pd

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
