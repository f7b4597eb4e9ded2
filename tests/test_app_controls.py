"""Controls that cover their range and a first view worth seeing (AppTest).

The gain sliders span evalcore's whole gain range on a log scale, presets never pin,
the number box and the slider agree, an inverted level order is flagged in the
sidebar; the Overview's default chart compares the current gains with binary
relevance, and its numbers are evalcore's and scipy's.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

import evalcore  # noqa: E402
from dashboard import state  # noqa: E402
from dashboard.state import gain_keys  # noqa: E402
from evalcore import registry  # noqa: E402
from evalcore.settings import GAIN_MAX, GAIN_MIN, PRESETS  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _app(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_slider_stops_span_the_whole_gain_range_on_a_log_scale():
    stops = state.GAIN_STOPS
    assert stops[0] == GAIN_MIN and stops[-1] == GAIN_MAX
    ratios = np.array(stops[1:]) / np.array(stops[:-1])
    assert ratios.max() <= 1.34 and ratios.min() >= 1.09      # near-even steps in log(gain)
    for p in PRESETS:                                         # every paper value is a stop
        assert all(float(v) in stops for v in p.split(":")), p


def test_a_preset_sets_sliders_and_boxes_to_the_same_values_without_pinning():
    at = _app()
    at.button(key="preset_30:20:10").click().run()
    assert [at.select_slider(key=gain_keys(at.session_state, L)[0]).value for L in (3, 2, 1)] == [30.0, 20.0, 10.0]
    assert [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)] == [30.0, 20.0, 10.0]


def test_an_exact_value_in_the_box_is_used_and_the_slider_shows_its_nearest_stop():
    at = _app()
    at.number_input(key=gain_keys(at.session_state, 3)[1]).set_value(4.1).run()
    # the slider's stops are fixed (a list rebuilt around the current value moved the widget under
    # the user's hand): it shows the nearest stop, the box and the address the exact gain used
    assert at.select_slider(key=gain_keys(at.session_state, 3)[0]).value == 4.0
    assert "4.1" not in at.select_slider(key=gain_keys(at.session_state, 3)[0]).options
    assert at.number_input(key=gain_keys(at.session_state, 3)[1]).value == 4.1
    assert at.session_state["g3"] == 4.1
    assert at.query_params["gains"] in (["4.1:2:1"], "4.1:2:1")
    at.number_input(key=gain_keys(at.session_state, 3)[1]).set_value(0.13).run()  # log-nearest: 0.12
    assert at.select_slider(key=gain_keys(at.session_state, 3)[0]).value == 0.12
    at.select_slider(key=gain_keys(at.session_state, 3)[0]).set_value(30.0).run()  # the end: the maximum
    assert at.number_input(key=gain_keys(at.session_state, 3)[1]).value == 30.0


def test_an_inverted_level_order_is_flagged_in_the_sidebar():
    at = _app({"gains": "1:2:3"})                     # S = 1 < A = 2 < B = 3
    warn = [w.value for w in at.sidebar.warning if "Inverted levels" in w.value]
    assert len(warn) == 2 and "S (level 3) gets 1" in warn[0] + warn[1]
    ok = _app({"gains": "3:3:1"})                     # equal is not inverted
    assert not [w for w in ok.sidebar.warning if "Inverted levels" in w.value]


def _chart_title(at, key: str) -> str:
    for ch in at.get("plotly_chart"):
        spec = json.loads(ch.proto.spec)
        if ch.proto.id and key in ch.proto.id or spec.get("layout", {}).get("title"):
            return spec["layout"]["title"]["text"]
    raise AssertionError("no titled chart")


def test_the_default_overview_contrasts_binary_and_graded_gains():
    c = evalcore.simulated_collection(n_topics=50, n_runs=30, seed=0)
    at = _app()
    assert at.selectbox(key="ov_metric").value == "P-measure"
    assert at.selectbox(key="ov_ref").value == "1:1:1"
    binary = registry.score_matrix(c, "P-measure", gains=[1, 1, 1]).mean(axis=1)
    graded = registry.score_matrix(c, "P-measure", gains=[1, 2, 3]).mean(axis=1)
    rank = lambda v: stats.rankdata(-v, method="min")        # noqa: E731
    moved = int((rank(binary) != rank(graded)).sum())
    tau = stats.kendalltau(binary, graded).statistic             # tau-b
    title = _chart_title(at, "ov_shift")
    assert title == f"P-measure: {moved} of 30 runs change rank,<br>Kendall tau-b = {tau:.3f}"
    assert moved >= 5 and tau < 0.95                               # a contrast worth seeing
    # moving a slider changes it visibly
    at.select_slider(key=gain_keys(at.session_state, 3)[0]).set_value(30.0).run()
    steep = registry.score_matrix(c, "P-measure", gains=[1, 2, 30]).mean(axis=1)
    tau30 = stats.kendalltau(binary, steep).statistic
    assert f"Kendall tau-b = {tau30:.3f}" in _chart_title(at, "ov_shift")
    assert not math.isclose(tau30, tau, abs_tol=0.05)


def test_the_significance_page_opens_on_a_picture_against_the_best_run():
    c = evalcore.simulated_collection(n_topics=12, n_runs=6, seed=0)
    at = _app({"nt": "12", "nr": "6", "sgb": "100"})
    at.switch_page("views/significance.py").run()
    assert not at.exception
    charts = [ch.key for ch in at.get("plotly_chart")]
    assert charts[0] == "sg_forest", charts                 # the picture comes first, the table after it
    metric = at.selectbox(key="_w_sg_fmetric").value
    best = registry.means_table(c, [metric]).idxmax().iloc[0]
    assert at.selectbox(key="_w_sg_frun").value == best
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    others = set().union(*[set(t["y"]) for t in spec["data"]])
    assert others == set(c.run_ids) - {best}                # every other run, one row each
