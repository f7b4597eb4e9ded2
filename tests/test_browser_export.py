"""The dashboard's exported HTML keeps its charts' labels, read in the real browser, offline.

The export (:func:`dashboard.export.view_html`) is opened from a file in Debian's chromium through Playwright;
every request but the file itself is aborted (the export must need no network). For the Kendall heatmap and the
ranking's bars it checks that every metric name and run name is drawn as a tick label *inside* the chart (the
figures leave a 10 px margin that the dashboard's theme grows and plotly.js alone does not: the names were drawn
outside the chart, cut off) and that the axis titles are there. Expected labels: the metrics and runs given.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("EVALCORE_CHROMIUM", "/usr/bin/chromium")
IN_CI = os.environ.get("CI", "").lower() == "true"
RUNS = ["CUNI_EN_Run.2-long-name", "KISTI_EN_RUN.3", "ecnu_EN_Run.10", "LIMSI_EN_run1"]
METRICS = ["AP", "Q-measure", "P+-measure", "nDCG@10"]


def _browser():
    if not Path(CHROMIUM).exists():
        if IN_CI:
            pytest.fail(f"CI=true but chromium is missing at {CHROMIUM}")
        pytest.skip(f"chromium not found at {CHROMIUM}")
    return pytest.importorskip("playwright.sync_api")


def _export(tmp_path) -> Path:
    pytest.importorskip("streamlit")
    import numpy as np
    import pandas as pd

    from dashboard import export, widgets  # noqa: F401 (widgets: the app's template and figure settings)
    from evalcore import figures

    rng = np.random.default_rng(0)
    means = pd.DataFrame(rng.uniform(0.2, 0.7, (len(RUNS), len(METRICS))), index=RUNS, columns=METRICS)
    tau = pd.DataFrame(np.eye(len(METRICS)) * 0.5 + 0.5, index=METRICS, columns=METRICS)
    items = [("Kendall's tau", figures.tau_heatmap(tau, cell_text=False)),
             ("Ranking", figures.ranking_bars(means, "AP"))]
    path = tmp_path / "view.html"
    path.write_text(export.view_html("evalcore · test", items, settings=[], summary={"runs": len(RUNS)}),
                    encoding="utf-8")
    return path


def _labels(page, i: int, selector: str) -> list[dict]:
    return page.eval_on_selector_all(
        f"#chart{i} {selector}",
        "els => els.map(e => { const r = e.getBoundingClientRect(); return {text: e.textContent, left: r.left, "
        "right: r.right, top: r.top, bottom: r.bottom}; })")


def _box(page, i: int) -> dict:
    return page.eval_on_selector(f"#chart{i} .main-svg", "e => { const r = e.getBoundingClientRect(); "
                                 "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }")


def _inside(label: dict, box: dict) -> bool:
    return (label["left"] >= box["left"] - 0.5 and label["right"] <= box["right"] + 0.5
            and label["top"] >= box["top"] - 0.5 and label["bottom"] <= box["bottom"] + 0.5)


def test_exported_charts_keep_their_axis_titles_and_tick_labels(tmp_path):
    sync = _browser()
    path = _export(tmp_path)
    with sync.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            asked: list[str] = []

            def handle(route):
                asked.append(route.request.url)
                if route.request.url.startswith("file://"):
                    route.continue_()
                else:
                    route.abort()
            page.route("**/*", handle)
            page.goto(path.as_uri())
            page.wait_for_selector("#chart1 .ytick text")
            heat_box, bar_box = _box(page, 0), _box(page, 1)
            for axis in ("xtick", "ytick"):
                ticks = _labels(page, 0, f".{axis} text")
                assert sorted(t["text"] for t in ticks) == sorted(METRICS), axis
                assert all(_inside(t, heat_box) for t in ticks), (axis, ticks, heat_box)
            runs = _labels(page, 1, ".ytick text")
            assert sorted(t["text"] for t in runs) == sorted(RUNS)
            assert all(_inside(t, bar_box) for t in runs), (runs, bar_box)
            titles = {t["text"]: t for t in _labels(page, 1, ".g-xtitle text, .g-ytitle text")}
            assert set(titles) == {"mean AP over topics (0-1)", "run"}
            assert all(_inside(t, bar_box) for t in titles.values())
            assert all(u.startswith("file://") for u in asked if not u.startswith("data:"))
        finally:
            browser.close()
