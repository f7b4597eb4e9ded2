"""In front of a class: presentation mode (in the address) with the gains at the top of every page,
one zip holding qrels and runs on the Data page, distinct default names for uploads, the load
report's one line per repeated problem, and the "Which gains" labels at three significant digits."""
from __future__ import annotations

import html
import io
import re
import zipfile

import pytest

pytest.importorskip("streamlit")
from test_app import _app, _goto  # noqa: E402

from dashboard import gainsets, uploads  # noqa: E402
from dashboard.state import gain_keys  # noqa: E402

QRELS = b"T3 0 dS 3\nT3 0 dA 2\nT3 0 dB 1\nT3 0 dN 0\nT4 0 dS 3\n"
RUNS = {"Z.txt": b"T3 Q0 dB 1 2.0 Z\nT3 Q0 dS 2 1.0 Z\nT9 Q0 dS 1 1.0 Z\n",
        "X.txt": b"T3 Q0 dB 1 2.0 X\nT9 Q0 dS 1 1.0 X\n",
        "Y.txt": b"T3 Q0 dN 1 2.0 Y\nT3 Q0 dS 2 1.0 Y\nT9 Q0 dS 1 1.0 Y\n"}


def _row_box(at, L: int):
    """Level ``L``'s box in the presentation row (keys ``_pg{L}_{n}``)."""
    boxes = [b for b in at.number_input if re.fullmatch(rf"_pg{L}_\d+", str(b.key))]
    assert len(boxes) == 1, [b.key for b in at.number_input]
    return boxes[0]


@pytest.mark.slow      # ~9 s: three pages in presentation mode (CI runs -m slow)
def test_presentation_mode_from_the_address_puts_the_gains_on_the_page():
    at = _app({"present": "1"})
    assert at.toggle(key="present").value is True
    for page in ("overview", "rankings", "playground"):
        _goto(at, page)
        assert [_row_box(at, L).value for L in (3, 2, 1)] == [3.0, 2.0, 1.0], page
    # a change in the row sets the gain: the sidebar's box, the address and the charts follow
    _row_box(at, 3).set_value(10.0).run()
    assert not at.exception
    assert at.session_state["g3"] == 10.0
    assert at.number_input(key=gain_keys(at.session_state, 3)[1]).value == 10.0
    assert at.query_params.get("gains") in (["10:2:1"], "10:2:1")
    assert at.query_params.get("present") in (["True"], "True")
    # and a change in the sidebar shows in the row (drawn afresh, under a new key)
    at.number_input(key=gain_keys(at.session_state, 2)[1]).set_value(5.0).run()
    assert _row_box(at, 2).value == 5.0 and at.session_state["g2"] == 5.0
    # the same in the next page
    _goto(at, "bootstrap")
    assert [_row_box(at, L).value for L in (3, 2, 1)] == [10.0, 5.0, 1.0]


def test_without_presentation_mode_there_is_no_second_set_of_gains():
    at = _app()
    assert at.toggle(key="present").value is False
    assert not [b for b in at.number_input if str(b.key).startswith("_pg")]
    at.toggle(key="present").set_value(True).run()
    assert _row_box(at, 3).value == 3.0


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    return buf.getvalue()


@pytest.fixture
def in_process(monkeypatch):
    monkeypatch.setenv("EVALCORE_LOAD_INPROCESS", "1")     # AppTest: load in this interpreter


def test_one_zip_with_qrels_and_runs_is_one_upload(in_process):
    at = _goto(_app(), "data")
    at.file_uploader(key="up_runs").set_value([("fig3.zip", _zip({"qrels.txt": QRELS, **RUNS}),
                                                "application/zip")])
    at.run()
    assert not at.button(key="up_load").disabled            # no qrels file needed
    assert at.text_input(key="up_name").value == "fig3"
    at.button(key="up_load").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    up = at.session_state["uploaded"]
    assert up.run_ids == ("X", "Y", "Z") and up.name == "fig3" and at.session_state["dataset"] == "upload"
    # the three runs share one problem (topic T9 is not in the qrels): one line, with the count
    report = [html.unescape(m.value) for m in at.markdown if "not in the qrels" in html.unescape(m.value)]
    assert len(report) == 1 and "3 runs (X, Y, Z)" in report[0], report


def test_an_ambiguous_zip_is_a_clear_message(in_process):
    at = _goto(_app(), "data")
    at.file_uploader(key="up_runs").set_value([("two.zip", _zip({"a.qrels": QRELS, "b.qrels": QRELS, **RUNS}),
                                                "application/zip")])
    at.run()
    at.button(key="up_load").click().run()
    assert at.session_state["dataset"] == "sim"
    msg = html.unescape(" ".join(e.value for e in at.error))
    assert "look like qrels" in msg and "a.qrels" in msg and "separately" in msg


def test_uploads_get_distinct_default_names():
    names = {uploads.default_upload_name("qrels.txt", list(runs)) for runs in
             (["bm25.txt", "dfr.txt"], ["lm.txt"], ["bm25.txt", "dfr.txt", "lm.txt"])}
    assert len(names) == 3 and "uploaded collection" not in names
    assert uploads.default_upload_name("qrels.txt", ["lm.txt"]) == "qrels + 1 run (lm.txt)"
    assert uploads.default_upload_name("robust04.qrels", ["a.txt"]) == "robust04"


def test_which_gains_labels_carry_three_significant_digits():
    at = _goto(_app({"gvr": "30"}), "gains")
    table = next(df.value for df in at.dataframe if "gains (values used)" in df.value.columns)
    labels = list(table["gains (values used)"])
    assert "30:5.48:1" in labels and "2:1.41:1" in labels, labels     # not 30:5.47723:1, 2:1.41421:1
    for label in labels:
        assert all(float(f"{float(v):.3g}") == float(v) for v in label.split(":")), label
    # the values computed are the values labelled
    assert gainsets.ratio_gains(4, 100.0) == [1.0, 4.64, 21.5, 100.0]


def test_presentation_mode_enlarges_the_heatmaps_cell_numbers_with_the_rest():
    """The Rank correlation page's Kendall heatmaps size their cell numbers themselves (11 px): presentation
    mode's 1.25 x reaches them too (14 px), not only the layout's type."""
    import json

    def heat_text_sizes(at) -> set:
        specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
        return {tr["textfont"]["size"] for s in specs for tr in s["data"]
                if tr.get("type") == "heatmap" and "size" in tr.get("textfont", {})}
    assert heat_text_sizes(_goto(_app(), "correlation")) == {11}
    assert heat_text_sizes(_goto(_app({"present": "1"}), "correlation")) == {14}
