"""evalcore.figures, the public figure API: each chart from evalcore's own results carries the input's
numbers (checked against numpy / scipy computed here), Kendall tau axes stay in [-1, 1], every group has
a marker symbol and dash beside its colour, and ``import evalcore.figures`` pulls in no plotly."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import evalcore
from evalcore import meta

pytest.importorskip("plotly")
from evalcore import figures as ef  # noqa: E402


def test_importing_evalcore_figures_imports_neither_plotly_nor_streamlit():
    r = subprocess.run([sys.executable, "-c", "import sys, evalcore, evalcore.figures as f; f.means_table; "
                        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('plotly', 'streamlit')))"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stderr


@pytest.fixture(scope="module")
def small():
    c = evalcore.simulated_collection(n_topics=12, n_runs=6, depth=50, seed=3)
    scores = evalcore.score_matrices(c, ["AP", "Q-measure"])
    return c, scores


def test_ranking_from_evaluate_draws_the_means_best_first(small):
    c, scores = small
    df = evalcore.evaluate(c, ["AP", "Q-measure"])
    fig = ef.ranking(df, "Q-measure")
    bar = fig.data[0]
    expect = pd.Series(scores["Q-measure"].mean(axis=1), index=c.run_ids).sort_values()   # numpy, not evaluate
    assert list(bar.y) == list(expect.index)
    np.testing.assert_allclose(bar.x, expect.to_numpy(), rtol=1e-12)
    # the same means from a per-topic frame (averaged as evaluate averages)
    per = evalcore.evaluate(c, ["Q-measure"], per_topic=True)
    np.testing.assert_allclose(ef.ranking(per).data[0].x, expect.to_numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="metric 'nDCG' is not in the results"):
        ef.ranking(df, "nDCG")


def test_kendall_heatmap_holds_scipys_tau_on_a_fixed_scale():
    means = pd.DataFrame({"A": [0.1, 0.2, 0.3, 0.4, 0.5], "B": [0.5, 0.4, 0.3, 0.2, 0.1],
                          "C": [0.1, 0.3, 0.2, 0.5, 0.4]}, index=list("vwxyz"))
    heat = ef.kendall_heatmap(means).data[0]
    for i, a in enumerate("ABC"):
        for j, b in enumerate("ABC"):
            assert heat.z[i][j] == pytest.approx(scipy.stats.kendalltau(means[a], means[b]).statistic)
    assert (heat.zmin, heat.zmax) == (-1.0, 1.0)                  # a negative tau: the whole [-1, 1]
    pos = ef.kendall_heatmap(meta.correlation_matrix(means[["A", "C"]])).data[0]
    assert (pos.zmin, pos.zmax) == (0.0, 1.0)


def test_gain_sweep_is_scipys_tau_and_its_axis_stays_within_minus_one_one(small):
    c, _ = small
    sweep = evalcore.gain_sweep(c, "Q-measure", level=3, grid=(0.5, 3.0, 30.0))
    ref = evalcore.score_matrix(c, "Q-measure", gains=[1, 2, 3]).mean(axis=1)
    for v, tau in zip(sweep["gain"], sweep["tau"], strict=True):
        m = evalcore.score_matrix(c, "Q-measure", gains=[1, 2, v]).mean(axis=1)
        assert tau == pytest.approx(scipy.stats.kendalltau(ref, m).statistic)
    assert sweep.attrs["reference"] == "3:2:1"
    fig = ef.gain_sweep(sweep, level_name="<b>high</b>", current=3.0)
    np.testing.assert_allclose(fig.data[0].y, sweep["tau"])
    lo, hi = fig.layout.yaxis.range               # tau <= 1: never the autoscaled [0, 2] of a flat line at 1
    assert -1.05 <= lo <= 0 and 1 <= hi <= 1.05
    assert "&lt;b&gt;high&lt;/b&gt;" in fig.layout.xaxis.title.text          # a level name is text, not markup
    flat = ef.gain_sweep(pd.DataFrame({"gain": [1.0, 2.0], "tau": [1.0, 1.0]}))
    assert tuple(flat.layout.yaxis.range) == pytest.approx((-0.02, 1.02))
    neg = ef.gain_sweep(pd.DataFrame({"gain": [1.0, 2.0], "tau": [1.0, -0.2]}))
    assert tuple(neg.layout.yaxis.range) == pytest.approx((-1.04, 1.04))
    with pytest.raises(ValueError, match="level must be a relevance level 1..3"):
        evalcore.gain_sweep(c, "Q-measure", level=4)


def test_swap_and_asl_curves_draw_the_results_curves_with_symbols_and_dashes(small):
    c, scores = small
    sw = meta.swap_method(scores, B=20, seed=1)
    fig = ef.swap_curves(sw, confidence=0.95)
    for tr in fig.data:
        g = sw.curves[(sw.curves["metric"] == tr.name)].dropna(subset=["swap_rate"]).sort_values("lower")
        np.testing.assert_allclose(tr.x, g["lower"])
        np.testing.assert_allclose(tr.y, g["swap_rate"])
    assert [s.y0 for s in fig.layout.shapes] == [pytest.approx(0.05)]
    assert tuple(fig.layout.yaxis.range) == (0, 1.02)
    assert len({(t.marker.symbol, t.line.dash) for t in fig.data}) == len(fig.data) == 2
    bs = meta.bootstrap_sensitivity(scores, run_ids=c.run_ids, B=50, seed=1, alpha=0.05)
    asl = ef.asl_curves(bs)
    for tr in asl.data:
        np.testing.assert_allclose(tr.y, np.sort(bs.pairs.loc[bs.pairs["metric"] == tr.name, "asl"]))
    assert [s.y0 for s in asl.layout.shapes] == [0.05]


def test_forest_plot_from_pair_statistics_matches_scipys_paired_t(small):
    c, scores = small
    pr = meta.pair_statistics(scores, run_ids=c.run_ids, tests=("t",))
    run = c.run_ids[0]
    fig = ef.forest_plot(pr, run, "AP", correction="none")
    x = scores["AP"]
    shown = {}
    for tr in fig.data:
        for other, d, hi, lo in zip(tr.y, tr.x, tr.error_x.array, tr.error_x.arrayminus, strict=True):
            shown[other] = (d, d - lo, d + hi)
    assert set(shown) == set(c.run_ids[1:])
    for j, other in enumerate(c.run_ids[1:], start=1):
        z = x[0] - x[j]
        ci = scipy.stats.ttest_rel(x[0], x[j]).confidence_interval(0.95)
        np.testing.assert_allclose(shown[other], (z.mean(), ci.low, ci.high), rtol=1e-9, atol=1e-12)
    assert fig.layout.xaxis.title.text.endswith("(95% t CI)")
    symbols = {tr.name: tr.marker.symbol for tr in fig.data}
    assert len(set(symbols.values())) == len(symbols)            # better / worse / n.s. differ in shape too


def test_every_default_metric_has_its_own_symbol_and_dash_pair():
    from dashboard import state

    pairs = {(ef.metric_symbol(m), ef.metric_dash(m)) for m in state.DEFAULT_METRICS}
    assert len(pairs) == len(state.DEFAULT_METRICS)
    assert ef.metric_symbol("nDCG@10") == ef.metric_symbol("nDCG")


def test_the_dashboards_charts_download_as_svg_or_a_slide_sized_png():
    pytest.importorskip("streamlit")
    from dashboard import widgets

    fig = ef.share_bars(pd.DataFrame({"metric": ["AP"], "s": [0.5]}), "metric", "s", y_title="y")
    svg = widgets.chart_config(fig, "Swap rates, B = 200")["toImageButtonOptions"]
    # a 320 px high chart downloads as a 16:9 slide (1280 x 720), not at its screen's 4:1
    assert svg == {"format": "svg", "filename": "swap-rates-b-200", "width": 1280, "height": 720, "scale": 1}
    tall = ef.ranking_bars(pd.DataFrame({"AP": np.linspace(0, 1, 60)}, index=[f"r{i}" for i in range(60)]), "AP")
    assert tall.layout.height > 720
    assert widgets.chart_config(tall)["toImageButtonOptions"]["height"] == 960           # 4:3 for a tall chart
    png = widgets.chart_config(fig, "", "png")["toImageButtonOptions"]
    assert png["format"] == "png" and png["width"] * png["scale"] >= 1920 and png["filename"] == "evalcore-chart"


@pytest.mark.parametrize("validate", ["1", "0"])
def test_rank_shift_hover_names_each_run_its_side_mean_and_move_from_numeric_data(monkeypatch, validate):
    """Each run's segment: its name (escaped: a run id is never markup), the side's label, the mean and the
    places moved, read from plain columns, with plotly's validation and without (as the dashboard draws).
    Without, what plotly is handed are numeric and fixed-width string arrays: no lists and no object arrays,
    which plotly copies and encodes one element at a time."""
    import numpy as np
    import pandas as pd

    from evalcore.figures import _style, rank_shift
    monkeypatch.setitem(_style._VALIDATE, "on", validate == "1")
    df = pd.DataFrame({"run": ["a", "<b>x</b>", "c"], "value_left": [0.5, 0.4, 0.3],
                       "value_right": [0.35, 0.45, 0.3], "rank_left": [1, 2, 3], "rank_right": [2, 1, 3]})
    fig = rank_shift(df, "1:1:1", "now")
    seen = {}
    for tr in fig.data:
        if validate == "0":
            assert all(isinstance(v, np.ndarray) and v.dtype != object for v in (tr.x, tr.y, tr.text))
            assert tr.mode == "text" or all(isinstance(v, np.ndarray) and v.dtype != object
                                            for v in (tr.hovertext, tr.customdata))
        if tr.mode == "text":
            assert list(tr.x) == ["now"] * 3 and list(tr.text) == ["   a", "   &lt;b&gt;x&lt;/b&gt;", "   c"]
            continue
        for k in range(0, len(tr.y), 3):
            seen[tr.text[k]] = (tr.name, list(tr.x[k:k + 2]), list(tr.hovertext[k:k + 2]), list(tr.y[k:k + 2]),
                                tr.customdata[k:k + 2, 0].tolist(), tr.customdata[k, 1])
            # the gap between two runs' segments: not drawn (y is NaN), at the right label (no third category)
            assert tr.x[k + 2] == "now" and np.isnan(tr.y[k + 2])
    assert seen == {"a": ("moved down", ["1:1:1", "now"], ["1:1:1", "now"], [1, 2], [0.5, 0.35], -1),
                    "&lt;b&gt;x&lt;/b&gt;": ("moved up", ["1:1:1", "now"], ["1:1:1", "now"], [2, 1], [0.4, 0.45], 1),
                    "c": ("unchanged", ["1:1:1", "now"], ["1:1:1", "now"], [3, 3], [0.3, 0.3], 0)}
    assert "%{text}" in fig.data[0].hovertemplate and "%{hovertext}" in fig.data[0].hovertemplate


def test_labels_become_one_array_unless_one_long_label_would_widen_every_cell():
    """Flat lists of label strings are handed to plotly as one string array (copied at once), escaped; a list
    where one long label among many short ones would make every fixed-width cell as wide stays a list."""
    import numpy as np

    from evalcore.figures._style import MAX_LABEL, text_safe
    short = text_safe({"x": ["t1", "<b>t2</b>", "t3"]})["x"]
    assert isinstance(short, np.ndarray) and short.tolist() == ["t1", "&lt;b&gt;t2&lt;/b&gt;", "t3"]
    wide = text_safe({"x": [f"t{i}" for i in range(5000)] + ["y" * 2000]})["x"]
    assert isinstance(wide, list) and len(wide) == 5001 and len(wide[-1]) == MAX_LABEL + 3
    assert text_safe({"x": []})["x"] == [] and text_safe({"x": ["a", None]})["x"] == ["a", None]


def test_a_very_long_run_id_does_not_widen_the_slope_charts_arrays(monkeypatch):
    """A run id of any length is cut where every label is (MAX_LABEL characters and "...") before it goes into
    the slope chart's fixed-width string arrays, which are as wide as their longest string: 200 runs, one id of
    200,000 characters, build in a few MB (uncut, the run names alone would take 160 MB). Built as the dashboard
    builds (no validation)."""
    import tracemalloc

    import numpy as np
    import pandas as pd

    from evalcore.figures import _style, rank_shift
    from evalcore.figures._style import MAX_LABEL
    monkeypatch.setitem(_style._VALIDATE, "on", False)
    runs = [f"run{i}" for i in range(199)] + ["r" * 200_000]
    df = pd.DataFrame({"run": runs, "value_left": np.linspace(0, 1, 200), "value_right": np.linspace(1, 0, 200),
                       "rank_left": np.arange(200, 0, -1), "rank_right": np.arange(1, 201)})
    rank_shift(df.head(3), "1:1:1", "now")                  # plotly imported and the template made first
    tracemalloc.start()
    try:
        fig = rank_shift(df, "1:1:1", "now " * 50_000)        # a setting's label of any length is cut too
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6, peak
    labels = {str(t) for tr in fig.data if tr.mode != "text" for t in tr.text}
    assert "r" * MAX_LABEL + "..." in labels                         # as plot_text cuts the whole id
