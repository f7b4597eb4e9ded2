"""Accessibility rules checked without a browser: the captions' contrast (WCAG 2.1 1.4.3, AA: 4.5:1 for text
under 18.66 px bold / 24 px) as dashboard.shell.A11Y_CSS sets it, and every chart's data table for screen
readers (1.1.1, dashboard.widgets.chart_alt). axe-core checks the pages themselves in tests/test_browser_a11y.py.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")
from dashboard import shell, widgets  # noqa: E402
from evalcore import figures  # noqa: E402


def _luminance(hex_colour: str) -> float:
    """WCAG 2.1's relative luminance of an sRGB colour."""
    c = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_captions_are_opaque_and_meet_aa_on_the_page_and_the_sidebar():
    rule = re.search(r'\[data-testid="stCaptionContainer"\] \{([^}]*)\}', shell.A11Y_CSS).group(1)
    colour = re.search(r"color: (#[0-9a-f]{6})", rule).group(1)
    assert "opacity: 1" in rule                         # Streamlit draws captions at 60 % opacity
    assert _contrast(colour, "#ffffff") >= 4.5 and _contrast(colour, "#f0f2f6") >= 4.5
    assert _contrast("#828180", "#ffffff") < 4.5       # Streamlit's caption grey as drawn: 3.9:1, below AA


def test_a_chart_alternative_lists_its_data_and_escapes_names():
    df = pd.DataFrame({"run": ["r<b>1</b>", "r2", "r3"], "value_left": [.3, .2, .1], "value_right": [.2, .3, .1],
                       "rank_left": [1, 2, 3], "rank_right": [2, 1, 3]})
    alt = widgets.chart_alt(figures.rank_shift(df, "1:1:1", "current"), "P: 2 of 3 runs change rank")
    assert alt.startswith('<table class="chart-alt"><caption>Data of the chart: P: 2 of 3 runs change rank')
    assert "<b>" not in alt and "r&lt;b&gt;1&lt;/b&gt;" in alt                 # a run name stays text
    assert alt.count("<tr>") == 1 + 6                  # the header, then each run under both settings
    assert "<td>moved up</td><td>r2</td><td>1:1:1</td><td>2</td>" in alt


def test_a_heatmap_alternative_has_every_cell_and_long_lines_are_summarised():
    m = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["AP", "RR"], columns=["AP", "RR"])
    alt = widgets.chart_alt(figures.tau_heatmap(m, m > 0.4), "tau")
    assert "<th>row</th><th>column</th><th>value</th>" in alt and alt.count("<tr>") == 1 + 4
    curve = pd.DataFrame({"pair_rank": np.arange(300), "asl": np.linspace(0, 1, 300), "metric": "AP"})
    alt = widgets.chart_alt(figures.lines(curve, "pair_rank", "asl", "metric", x_title="pairs", y_title="ASL"), "ASL")
    assert "300 points" in alt and alt.count("<tr>") == 2          # one row: its range, not 300 rows
