"""Labels follow the data: on 2-, 4- and 5-level collections no page says "3:2:1" (a
three-level setting), the reference gains are named with the values used, the Data page
counts the relevance levels of a 0-K qrels, one colour per metric in every chart, and
no raw column or code name on screen."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

import evalcore  # noqa: E402
from dashboard import state  # noqa: E402
from dashboard.pages import PAGES  # noqa: E402
from evalcore import figures  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SMALL = {"swb": "50", "bsb": "50", "stb": "20", "gvb": "100", "gvrep": "3", "sgb": "50"}


def _collection(K: int):
    rng = np.random.default_rng(K)
    lists = {f"run{i}": {f"q{t}": rng.integers(0, K + 1, size=12).tolist() for t in range(6)} for i in range(5)}
    counts = {f"q{t}": [20] + [3] * K for t in range(6)}
    return evalcore.Collection.from_lists(lists, counts, name=f"{K} levels")


def _texts(at: AppTest) -> str:
    """Everything a page shows as text: headings, captions, Markdown, alerts, metric labels, widget
    labels and options, table headers, chart titles, axes and legends."""
    parts = []
    for kind in ("title", "header", "subheader", "caption", "markdown", "info", "warning", "error", "success"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    for kind in ("selectbox", "radio", "select_slider", "multiselect"):
        for w in getattr(at, kind):
            parts.append(str(w.label))
            parts += [str(o) for o in getattr(w, "options", [])]
    for df in at.dataframe:                        # a header shows its column_config label, else the name
        cfg = json.loads(df.proto.columns or "{}")
        parts += [str(cfg.get(str(c), {}).get("label") or c) for c in getattr(df.value, "columns", [])]
    for ch in at.get("plotly_chart"):
        parts.append(ch.proto.spec)
    return "\n".join(parts)


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
@pytest.mark.parametrize("K", [2, 4, 5])
def test_no_page_names_a_three_level_setting_on_another_number_of_levels(K):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(SMALL)
    at.run()
    at.session_state["uploaded"] = _collection(K)
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    ref = state.paper(list(range(1, K + 1)))          # 3:2:1 extended: gain = level (2:1, 4:3:2:1, 5:4:3:2:1)
    for p in PAGES:
        at.switch_page(p.script).run()
        assert not at.exception, (p.file, [e.message for e in at.exception])
        shown = _texts(at)
        if p.url_path == "lesson":     # the lesson's lists are 003's own three-level topic, whatever is loaded
            assert "Topic 3 has **one S-, one A- and one B-relevant** document" in shown
            continue
        assert "3:2:1" not in shown.replace(ref, "<ref>"), (p.file, shown[shown.find("3:2:1") - 200:][:400])
        if p.url_path == "rankings":
            assert f"Current gains against {ref}" in shown
        if p.url_path == "data":
            assert at.metric[2].label == "relevance levels" and at.metric[2].value == f"{K + 1} (0-{K})"


def test_the_playground_opens_on_system_z_of_the_collection_s_levels():
    """First visit with 4 levels: the list is 003's Z on levels 2 and 4 (B -> L2, S -> L4), as the caption
    says, and P+ equals the value after pressing Z (no 3-level list left over)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.session_state["uploaded"] = _collection(4)
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    at.switch_page("views/playground.py").run()
    first = {m.label: m.value for m in at.metric}
    assert at.session_state["pl_list"] == "2,4"
    at.button(key="pl_preset_Z").click().run()
    assert {m.label: m.value for m in at.metric} == first


def test_one_colour_per_metric_in_every_chart():
    assert figures.METRIC_COLOR_ORDER == state.DEFAULT_METRICS
    defaults = [figures.metric_color(m) for m in state.DEFAULT_METRICS]
    assert len(set(defaults)) == len(defaults)
    assert figures.metric_color("nDCG@10") == figures.metric_color("nDCG@20") == figures.metric_color("nDCG")
    import pandas as pd
    a = pd.DataFrame({"metric": ["nDCG@10", "AP"], "lower": [0.0, 0.0], "swap_rate": [0.1, 0.2]})
    b = pd.DataFrame({"metric": ["AP", "nDCG@10"], "lower": [0.0, 0.0], "swap_rate": [0.1, 0.2]})
    la = figures.lines(a, "lower", "swap_rate", "metric", x_title="x", y_title="y")
    lb = figures.lines(b, "lower", "swap_rate", "metric", x_title="x", y_title="y")
    col = lambda fig: {t.name: t.line.color for t in fig.data}      # noqa: E731
    assert col(la) == col(lb)
    spread = pd.DataFrame({"metric": ["AP", "nDCG@10"], "mean": [1.0, 2.0], "sd": [0.1, 0.1],
                           "min": [0.9, 1.9], "max": [1.1, 2.1], "n": [5, 5]})
    bars = figures.spread_bars(spread, y_title="y")
    assert dict(zip(bars.data[0].x, bars.data[0].marker.color, strict=True)) == {"nDCG@10": col(la)["nDCG@10"],
                                                                     "AP": col(la)["AP"]}
    share = figures.share_bars(pd.DataFrame({"metric": ["AP", "nDCG@10"], "share": [0.5, 0.6]}), "metric", "share",
                               y_title="y")
    assert list(share.data[0].marker.color) == [col(la)["AP"], col(la)["nDCG@10"]]


RAW = ("abs_diff", "estimated_diff_raw", "pct_comparisons", "pct_significant", "max_performance", "evalcore.meta",
       "003 Table", "003 Sec", "003 Fig")


@pytest.mark.parametrize("page", ["overview", "swap", "bootstrap", "gains"])
def test_no_raw_column_or_code_name_on_screen(page):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({**SMALL, "nt": "12", "nr": "6"})
    at.run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception
    shown = _texts(at)
    charts = [json.loads(ch.proto.spec) for ch in at.get("plotly_chart")]
    shown_no_data = "\n".join(x for x in shown.split("\n") if not x.startswith("{"))
    shown_no_data += json.dumps([c.get("layout", {}) for c in charts])
    for raw in RAW:
        assert raw not in shown_no_data, (page, raw)


def test_every_paper_cited_on_screen_is_in_the_reference_list():
    import re

    from dashboard.references import REFERENCES
    root = Path(__file__).resolve().parents[1]
    src = "\n".join(p.read_text() for folder in ("views", "dashboard") for p in (root / folder).glob("*.py"))
    cited = set(re.findall(r"\b((?:Sakai|Carterette|Webber et al\.|Voorhees & Buckley|Buckley & Voorhees|Tol)"
                           r"(?: SIGIR)? (?:19|20)\d\d)\b", src))
    listed = {short for short, _ in REFERENCES}
    assert cited and cited <= listed, cited - listed
    # and the papers' file numbers are gone from what users read
    assert not re.search(r"\"[^\"\n]*(?<![\d.\w/])00[0-4] (Table|Fig|Sec|Eq)", src)


def test_the_docs_list_the_same_references():
    from dashboard.references import as_markdown
    docs = (Path(__file__).resolve().parents[1] / "docs" / "dashboard.md").read_text()
    assert as_markdown() in docs


@pytest.mark.parametrize("K, gains", [(2, "7:2"), (4, "9:7:3:1"), (5, "9:7:5:3:1")])
def test_the_report_and_the_view_export_carry_the_gains_used(K, gains):
    """On a K-level collection with gains from the address: the Report's tables (captions, LaTeX, CSV
    names), its settings file and the HTML export's settings state exactly the K gains in use - no
    three-level 3:2:1 left over - and every page's settings line names them per level."""
    import io
    import zipfile

    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(SMALL)
    at.run()
    at.session_state["uploaded"] = _collection(K)
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    used = [float(g) for g in gains.split(":")][::-1]          # ascending, level 1 first
    for L, g in enumerate(used, start=1):                      # the sidebar's gain sliders, as a user sets them
        at.session_state[f"g{L}"] = g
    ref = state.paper(list(range(1, K + 1)))
    at.switch_page("views/overview.py").run()
    assert not at.exception, [e.message for e in at.exception]
    view = at.session_state["_view"]["settings"]                  # what "Download this view (HTML)" writes
    assert view["gains"] == used and view["gains_paper_notation"] == gains
    names = state.level_names(K)
    line = " : ".join(f"{names[L - 1]}={used[L - 1]:g}" for L in range(K, 0, -1))
    at.switch_page("views/report.py").run()
    assert line in " ".join(str(c.value) for c in at.caption), [c.value for c in at.caption]
    for key, v in {"rp_B": 20, "rp_tukey_B": 20, "rp_repeats": 1, "rp_topic_resamples": 0}.items():
        at.number_input(key=key).set_value(v)           # small: the report (evalcore report's) in seconds
    at.run()
    at.button(key="rp_build").click().run()
    assert not at.exception, [e.message for e in at.exception]
    files, e = at.session_state["_report"]
    settings = json.loads(files["settings.json"])["settings"]
    assert settings["gains"] == used and settings["gains_paper_notation"] == gains
    md = files["report.md"].decode()
    assert f"--gains {gains}" in md and f"gains {gains} (" in md and line.replace(" : ", " : ") in md
    with zipfile.ZipFile(io.BytesIO(files["evalcore-report.zip"])) as z:
        packed = "\n".join(z.read(n).decode() for n in z.namelist())
    everything = "\n".join([files["tables.tex"].decode(), packed, _texts(at)])
    # the report states how it maps the papers' three-level settings ("3:2:1 → 4:3:2:1"): that names 3:2:1 as the
    # paper's, never as a setting used
    everything = everything.replace("3:2:1 → ", "<paper's> → ").replace(ref, "<ref>")
    assert "3:2:1" not in everything, everything[everything.find("3:2:1") - 300:][:600]
    t5 = next(t for t in e.tables if t.stem == "table5_gains")       # the gain settings compared, on K levels
    assert all(len(str(c).split(":")) == K for c in t5.display.columns if ":" in str(c))
