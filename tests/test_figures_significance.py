"""evalcore.figures for the "Significance & topic sets" page: the data each figure draws.

Hand-made inputs with the expected values written out (no evalcore involved).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("plotly")
from evalcore import figures  # noqa: E402

TABLE = pd.DataFrame({
    "metric": ["M"] * 3,
    "run_x": ["a", "a", "b"], "run_y": ["b", "c", "c"],
    "mean_diff": [0.10, -0.05, 0.30],
    "ci_low": [0.02, -0.20, 0.25], "ci_high": [0.18, 0.10, 0.35],
    "effect_size": [1.0, -0.5, 3.0],
    "p_value": [0.01, 0.5, 0.001], "p_adjusted": [0.02, 0.5, 0.003],
    "significant": [True, False, True],
})


def test_forest_data_reads_run_minus_other_flipping_rows_where_the_run_is_y():
    d = figures.forest_data(TABLE, "b")
    # b vs a: the table has a - b = 0.10 [0.02, 0.18] -> b - a = -0.10 [-0.18, -0.02]
    # b vs c: b - c = 0.30 [0.25, 0.35] as is; sorted ascending by difference
    assert list(d["other"]) == ["a", "c"]
    np.testing.assert_allclose(d["mean_diff"], [-0.10, 0.30])
    np.testing.assert_allclose(d["ci_low"], [-0.18, 0.25])
    np.testing.assert_allclose(d["ci_high"], [-0.02, 0.35])
    np.testing.assert_allclose(d["effect_size"], [-1.0, 3.0])
    np.testing.assert_allclose(d["p_adjusted"], [0.02, 0.003])      # p-values do not change sign
    assert list(d["significant"]) == [True, True]
    assert (d["ci_low"] <= d["mean_diff"]).all() and (d["mean_diff"] <= d["ci_high"]).all()


def test_forest_plot_draws_each_difference_with_its_ci_and_a_zero_line():
    d = figures.forest_data(TABLE, "a")          # a - c = -0.05 (n.s.), a - b = 0.10 (significant, a better)
    fig = figures.forest(d, run="a", metric="M", ci_label="95% CI", sig_label="p < 0.05")
    by_name = {t.name: t for t in fig.data}
    assert set(by_name) == {"significant, a better", "not significant"}
    better = by_name["significant, a better"]
    assert list(better.y) == ["b"] and list(better.x) == [0.10]
    np.testing.assert_allclose(better.error_x.array, [0.08])          # 0.18 - 0.10
    np.testing.assert_allclose(better.error_x.arrayminus, [0.08])     # 0.10 - 0.02
    ns = by_name["not significant"]
    np.testing.assert_allclose(ns.error_x.array, [0.15])
    np.testing.assert_allclose(ns.error_x.arrayminus, [0.15])
    assert list(fig.layout.yaxis.categoryarray) == ["c", "b"]          # largest difference drawn at the top
    assert [s.x0 for s in fig.layout.shapes] == [0]


def test_power_bars_whiskers_span_min_to_max():
    df = pd.DataFrame({"metric": ["A", "B"], "pct_seed": [40.0, 55.0], "min": [38.0, 50.0], "max": [43.0, 55.0],
                       "sd": [2.0, 2.5]})
    fig = figures.power_bars(df, "metric", "pct_seed", lo="min", hi="max", sd="sd", y_title="pairs")
    bar = fig.data[0]
    assert list(bar.x) == ["A", "B"] and list(bar.y) == [40.0, 55.0]
    np.testing.assert_allclose(bar.error_y.array, [3.0, 0.0])
    np.testing.assert_allclose(bar.error_y.arrayminus, [2.0, 5.0])
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis.range[1] >= 55.0
    plain = figures.power_bars(df, "metric", "pct_seed", y_title="pairs")
    assert plain.data[0].error_y.array is None


def test_power_curve_marks_the_required_and_the_collection_n_and_the_target():
    curve = pd.DataFrame({"n_topics": np.arange(2, 41), "power": np.linspace(0.05, 0.99, 39)})
    fig = figures.power_curve(curve, "power", y_title="power", n_required=18, n_collection=30, target=0.8,
                              target_label="1 - beta = 0.8")
    assert list(fig.data[0].x) == list(range(2, 41))
    xs = sorted(s.x0 for s in fig.layout.shapes if s.x0 == s.x1)
    ys = [s.y0 for s in fig.layout.shapes if s.y0 == s.y1]
    assert xs == [18, 30] and ys == [0.8]
    texts = [a.text for a in fig.layout.annotations]
    assert "needed: n = 18" in texts and "this collection: n = 30" in texts
    assert list(fig.layout.yaxis.range) == [0, 1.05]
    log = figures.power_curve(curve, "power", y_title="power", n_required=1000, n_collection=30, target=None,
                              log_x=True)
    assert log.layout.xaxis.type == "log"
    assert {round(a.x, 6) for a in log.layout.annotations} == {3.0, round(np.log10(30), 6)}
