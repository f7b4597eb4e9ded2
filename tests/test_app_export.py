"""The current view as one self-contained interactive HTML file (dashboard/export.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import export  # noqa: E402
from evalcore import figures  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_the_file_holds_plotly_once_every_chart_the_settings_and_escaped_names():
    means = pd.DataFrame({"AP": [0.2, 0.4]}, index=["<b>run</b>", "plain"])
    figs = [("Ranking", figures.ranking_bars(means, "AP")), ("Again", figures.ranking_bars(means, "AP"))]
    page = export.view_html("evalcore · <script>alert(1)</script>", figs,
                            settings={"gains": [1.0, 2.0, 3.0], "beta": 1.0},
                            summary={"collection": "<img src=https://evil.example/x.png>", "runs": 2},
                            link="http://localhost:8501/overview?gains=4:2:1")
    assert page.count("<script") == 1 + len(figs)                        # plotly.js once, one call per chart
    assert page.count('id="chart') == len(figs)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert "<img" not in page and "&lt;img src=https://evil.example/x.png&gt;" in page
    # nothing is loaded from anywhere: outside the inlined plotly.js (whose code holds URL strings), no src= or
    # href= pointing to the network (the real browser opening the file offline: tests/test_browser.py)
    ours = re.sub(r"<script>.*?</script>", "", page, count=1, flags=re.S)
    assert not re.search(r"""<[a-z][^>]*\s(src|href)\s*=\s*["']?https?:""", ours)
    settings = json.loads(page.split("<pre>")[1].split("</pre>")[0].replace("&quot;", '"'))
    assert settings == {"gains": [1.0, 2.0, 3.0], "beta": 1.0}
    assert "gains=4:2:1" in page


@pytest.mark.parametrize("page, charts", [("overview", 3), ("rankings", 4)])
def test_every_chart_page_offers_the_download_and_collects_its_charts(page, charts):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"nt": "12", "nr": "6", "swb": "50", "bsb": "50"})
    at.run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception
    drawn = at.session_state["_view_figs"]
    assert len(drawn) == len(at.get("plotly_chart")) >= charts         # every chart drawn, none twice
    assert any(b.proto.label == "Download this view (HTML)" for b in at.get("download_button"))
