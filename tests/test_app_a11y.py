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


def test_presentation_mode_captions_point_at_the_controls_on_screen():
    """In presentation mode the sidebar is closed: the Overview says to change a gain box at the top of the page
    and how to open the sidebar, not to move a slider in it."""
    from test_app import _app, _goto
    at = _app({"present": "1", "nt": "12", "nr": "6", "swb": "100", "bsb": "100"})
    cap = next(c.value for c in at.caption if "every chart follows" in c.value)
    assert "a **gain box** at the top of the page" in cap and "**»** at the top left opens" in cap
    assert "gain slider" not in cap
    at = _goto(_app({"nt": "12", "nr": "6", "swb": "100", "bsb": "100"}), "overview")
    assert any("a **gain slider** in the sidebar" in c.value for c in at.caption)


def test_a_table_shows_every_row_up_to_30_and_says_when_it_scrolls(monkeypatch):
    drawn, notes = [], []
    monkeypatch.setattr(widgets.st, "dataframe", lambda df, **kw: drawn.append((len(df), kw.get("height"))))
    monkeypatch.setattr(widgets.st, "caption", lambda text, **kw: notes.append(text))
    monkeypatch.setattr(widgets, "note", lambda *a, **kw: None)
    widgets.table(pd.DataFrame({"run": [f"r{i}" for i in range(30)]}))
    widgets.table(pd.DataFrame({"pair": [f"p{i}" for i in range(435)]}))
    widgets.table(pd.DataFrame({"pair": [f"p{i}" for i in range(60)]}), height=420)
    assert drawn == [(30, widgets.rows_height(30)), (435, widgets.rows_height(widgets.SCROLL_ROWS)), (60, 420)]
    assert notes == [f"{n} rows, about {k} in view: scroll inside the table for the others, sort by a column, or "
                     "download it (the table's toolbar, top right)." for n, k in ((435, 15), (60, 10))]


@pytest.mark.parametrize("present", [False, True])
def test_a_table_as_high_as_its_rows_has_room_for_every_row_drawn_in_whole_pixels(monkeypatch, present):
    """rows_height(n) holds n rows however the grid rounds a row: 35 px, or 43.75 px in presentation mode
    (1.25 x), drawn as 44; a long table 1 px a row short scrolled with no note. rows_shown turns it round."""
    monkeypatch.setattr(widgets.st, "session_state", {"present": present})
    row = 44 if present else 35
    head = 48 if present else 38
    for n in (1, 10, 30, 51, 200):
        assert widgets.rows_height(n) >= head + 2 + n * row, n
        assert widgets.rows_shown(widgets.rows_height(n)) == n
