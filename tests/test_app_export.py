"""The current view as one self-contained interactive HTML file (dashboard/export.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import export  # noqa: E402
from evalcore import figures  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_the_file_holds_plotly_once_every_chart_and_table_the_settings_in_words_and_escaped_names():
    means = pd.DataFrame({"AP": [0.2, 0.4]}, index=["<b>run</b>", "plain"])
    fig = figures.ranking_bars(means, "AP")
    items = [{"kind": "heading", "text": "Runs &#95;by&#95; AP"},
             {"kind": "chart", "label": "Ranking,<br>B = 50", "fig": fig},
             {"kind": "caption", "text": "**Bold** and `co<de>`: run&#95;1  \nnext line"},
             ("Again", fig),
             {"kind": "table", "label": "", "frame": pd.DataFrame({"run": ["<i>x</i>", "y"], "AP": [0.123456, 0.5],
                                                                 "p_value": [2e-5, 0.0123456]}),
              "digits": 3, "columns": {"AP": {"label": "mean AP", "type_config": {"format": "%.2f"}}}, "index": False}]
    page = export.view_html("evalcore · <script>alert(1)</script>", items,
                            settings=["gains S=3 : A=2 : B=1", "beta 1", "metrics: AP, nDCG@10"],
                            summary={"collection": "<img src=https://evil.example/x.png>", "runs": 2},
                            link="http://localhost:8501/overview?gains=4:2:1",
                            references=[("Sakai 2007", "T. Sakai. On the properties ... 2007.")])
    assert page.count("<script") == 1 + 2                                # plotly.js once, one call per chart
    assert page.count('id="chart') == 2
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "<img" not in page and "&lt;img src=https://evil.example/x.png&gt;" in page
    # nothing is loaded from anywhere: outside the inlined plotly.js (whose code holds URL strings), no src= or
    # href= pointing to the network (the real browser opening the file offline: tests/test_browser.py)
    ours = re.sub(r"<script>.*?</script>", "", page, count=1, flags=re.S)
    assert not re.search(r"""<[a-z][^>]*\s(src|href)\s*=\s*["']?https?:""", ours)
    # no literal markup: the chart title's <br> is a space, Markdown is HTML, references are characters
    assert "<h3>Ranking, B = 50</h3>" in ours and "&lt;br&gt;" not in ours and "**" not in ours
    assert "<h2>Runs _by_ AP</h2>" in ours and "&amp;#95;" not in ours and "&#95;" not in ours
    assert "<b>Bold</b> and <code>co&lt;de&gt;</code>: run_1<br>next line" in ours
    # the table as on screen: its labels, formats, p-values as every table writes them, names escaped
    assert "<th>mean AP</th>" in ours and ">0.12<" in ours and ">0.50<" in ours
    assert "&lt; 0.001" in ours and ">0.0123<" in ours and "&lt;i&gt;x&lt;/i&gt;" in ours
    settings = ours.split("<h2>Settings</h2>")[1].split("</ul>")[0]
    assert "<li>gains S=3 : A=2 : B=1</li>" in settings and "<li>beta 1</li>" in settings
    assert "Sakai 2007</b>: T. Sakai." in ours and "gains=4:2:1" in page


def test_markdown_of_the_pages_becomes_html_lists_and_tables():
    out = export.md_html("- one **1**\n- two\n\n| run | AP |\n|---|---:|\n| a&#124;b | 0.5 |")
    assert out == ("<ul><li>one <b>1</b></li><li>two</li></ul>"
                   "<table><tr><th>run</th><th>AP</th></tr><tr><td>a|b</td><td class=n>0.5</td></tr></table>")
    assert export.md_html("[x](https://evil.example) ![i](http://e/x.png)") == \
        "<p>[x](https://evil.example) ![i](http://e/x.png)</p>"                 # text, never a link or image


@pytest.fixture
def deferred(monkeypatch):
    """Record the callables of deferred downloads (the HTML export is built only when pressed)."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    store: list = []
    real = MediaFileManager.add_deferred

    def add(self, data_callable, *a, **k):
        if k.get("file_name", a[2] if len(a) > 2 else "").endswith(".html"):
            store.append(data_callable)
        return real(self, data_callable, *a, **k)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add)
    return store


def _text(html_text: str) -> str:
    import html as _h
    return _h.unescape(re.sub(r"<[^>]+>", " ", html_text))


@pytest.mark.parametrize("page", ["swap", "significance"])
def test_the_exported_view_holds_every_table_caption_and_the_settings_in_words(page, deferred):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"nt": "12", "nr": "6", "swb": "50", "bsb": "50", "sgb": "50", "gains": "10:5:1",
                            "beta": "2"})
    at.run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    page_html = deferred[-1]().decode()
    body = re.sub(r"<script>.*?</script>", "", page_html, flags=re.S)
    text = " ".join(_text(body).split())
    # every table on the page, value by value (as the page formats them: 4 decimals unless a column says)
    tables = at.main.dataframe
    assert tables, "the page draws tables"
    for t in tables:
        df = t.value
        for col in df.columns:
            for v in df[col].head(30):
                if isinstance(v, float) and not np.isnan(v) and "p" not in str(col).lower():
                    assert any(f"{v:.{d}f}" in text for d in (1, 2, 3, 4)), (col, v)
                elif isinstance(v, str):
                    assert " ".join(v.split()) in text, (col, v)
    # every caption, as a reader sees it (Markdown and references rendered); a table's note on how to
    # scroll it (widgets.table) describes the live table only: the export prints its rows
    for cap in at.main.caption:
        if " in view: scroll inside the table for the others" in cap.value:
            continue
        plain = " ".join(_text(export.md_html(cap.value)).split())
        assert plain in text, plain
    # the settings in words, with the values used, never internal keys
    settings = " ".join(_text(body.split("<h2>Settings</h2>")[1].split("</ul>")[0]).split())
    names = "S=10 : A=5 : B=1"
    assert f"gains {names}" in settings and "beta 2" in settings and "cutoff l = 10" in settings
    assert "gains_paper_notation" not in body and "sw_B" not in body and "bs_seed" not in body
    if page == "swap":
        assert "Swap: B: 50" in settings
    assert "<h2>References</h2>" in body and "Sakai 2007" in body
    assert "&lt;br&gt;" not in body and "**" not in text


@pytest.mark.parametrize("page, charts", [("overview", 3), ("rankings", 3)])
def test_every_chart_page_offers_the_download_and_collects_its_charts(page, charts):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"nt": "12", "nr": "6", "swb": "50", "bsb": "50"})
    at.run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception
    drawn = at.session_state["_view"]["figs"]
    assert len(drawn) == len(at.get("plotly_chart")) >= charts         # every chart drawn, none twice
    assert any(b.proto.label == "Download this view (HTML)" for b in at.get("download_button"))


def test_the_chart_download_format_is_a_control_beside_the_export_and_in_the_address():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"nt": "12", "nr": "6", "chart": "png"})
    at.run()
    at.switch_page("views/rankings.py").run()
    assert not at.exception
    charts = at.get("plotly_chart")

    def formats():
        return {json.loads(c.proto.config)["toImageButtonOptions"]["format"] for c in at.get("plotly_chart")}

    assert charts and formats() == {"png"}
    scale = {json.loads(c.proto.config)["toImageButtonOptions"]["scale"] for c in charts}
    width = {json.loads(c.proto.config)["toImageButtonOptions"]["width"] for c in charts}
    assert {w * s for w in width for s in scale} == {1920}                     # a full-HD slide
    radio = at.radio(key="chart_format")
    assert radio.value == "png" and "SVG" in radio.options[0] and "1920 px" in radio.options[1]
    radio.set_value("svg").run()
    assert formats() == {"svg"} and "chart" not in at.query_params             # the default leaves the address
