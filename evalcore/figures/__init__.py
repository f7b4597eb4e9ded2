"""Figures of evalcore's results: the charts the dashboard draws, one call each from a notebook.

plotly is optional (``pip install "evalcore-ir[plot]"``) and imported when the first figure is built:
``import evalcore`` and ``import evalcore.figures`` import neither plotly nor streamlit. Every function
returns a ``plotly.graph_objects.Figure``; ``fig.show()`` draws it, :func:`save` writes it as SVG, PDF or
PNG (plotly's kaleido: ``pip install "evalcore-ir[image]"``) or HTML (no extra), at a slide's 16:9 or 4:3.

From evalcore's result objects::

    import evalcore, evalcore.meta as meta, evalcore.figures as ef
    c = evalcore.simulated_collection(seed=1)
    means = evalcore.evaluate(c, ["AP", "Q-measure", "nDCG@10"])
    ef.ranking(means, "AP")                                  # mean per run, best first
    ef.kendall_heatmap(meta.correlation_matrix(ef.means_table(means)))
    scores = evalcore.score_matrices(c, ["AP", "Q-measure"])
    ef.swap_curves(meta.swap_method(scores, B=200))          # Sakai 2007 Fig. 4
    ef.asl_curves(meta.bootstrap_sensitivity(scores, run_ids=c.run_ids, B=200))
    ef.forest_plot(meta.pair_statistics(scores, run_ids=c.run_ids), run=c.run_ids[0], metric="AP")
    ef.gain_sweep(evalcore.gain_sweep(c, "Q-measure", level=3))

and the building blocks the dashboard uses, each a pure function of a tidy table (:mod:`.charts`).

Figures read in print and in greyscale: Okabe-Ito colours (safe for the common colour-vision
deficiencies), and every group of lines or markers also has its own marker symbol and dash style
(:func:`metric_symbol`, :func:`metric_dash`). A Kendall tau axis or colour scale is fixed to [0, 1]
(every value >= 0) or [-1, 1] (:func:`tau_scale`), never stretched to the data.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._style import (
    DASHES,
    DIVERGING,
    GREY,
    METRIC_COLOR_ORDER,
    OKABE_ITO,
    SEQUENTIAL,
    SYMBOLS,
    TITLE_LINE,
    color_map,
    metric_color,
    metric_dash,
    metric_symbol,
    plot_text,
    use_template,
    validate_figures,
    wrap_title,
)
from .charts import (
    depth_ecdf,
    forest,
    forest_data,
    lines,
    playground_chart,
    power_bars,
    power_curve,
    rank_shift,
    ranking_bars,
    run_difference,
    setting_points,
    share_bars,
    spread_bars,
    stability_scatter,
    tau_heatmap,
    tau_scale,
    topic_heatmap,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = [
    # one call from a result
    "ranking", "kendall_heatmap", "swap_curves", "asl_curves", "pvalue_curves", "forest_plot", "gain_sweep",
    "stability_curves", "spread", "means_table", "save", "add_caption", "SAVE_FORMATS", "SLIDE_SIZES",
    # building blocks (tidy tables)
    "ranking_bars", "rank_shift", "topic_heatmap", "run_difference", "depth_ecdf", "tau_scale", "tau_heatmap",
    "lines", "stability_scatter", "playground_chart", "share_bars", "spread_bars", "setting_points",
    "forest_data", "forest", "power_bars", "power_curve",
    # style
    "OKABE_ITO", "GREY", "SEQUENTIAL", "DIVERGING", "SYMBOLS", "DASHES", "METRIC_COLOR_ORDER", "TITLE_LINE",
    "metric_color", "metric_symbol", "metric_dash", "color_map", "plot_text", "wrap_title", "use_template",
    "validate_figures",
]

def means_table(results: pd.DataFrame) -> pd.DataFrame:
    """A wide table of means (index = runs, one column per metric) from :func:`evalcore.evaluate`'s
    tidy frame, or the same wide table passed through.

    The frame's ``"all"`` rows are used where it has them (``per_topic=False``); a per-topic frame is
    averaged over its topics the way :func:`evalcore.evaluate` does (``attrs["aggregate"]``: the
    arithmetic or geometric mean, the sum for a count), which gives its mean rows.

    >>> df = pd.DataFrame({"run": ["a", "b"], "topic": ["all", "all"], "metric": ["AP", "AP"],
    ...                    "value": [0.5, 0.25]})
    >>> means_table(df)["AP"].to_dict()
    {'a': 0.5, 'b': 0.25}
    """
    if not isinstance(results, pd.DataFrame):
        raise ValueError(f"results must be a DataFrame: evalcore.evaluate's (run, topic, metric, value) or a "
                         f"table of means (index = runs, columns = metrics); got {type(results).__name__}")
    if not {"run", "topic", "metric", "value"} <= set(results.columns):
        return results
    from ..registry import GEOMETRIC_EPSILON, MEAN_TOPIC

    rows = results[results["topic"].astype(str) == MEAN_TOPIC]
    if not rows.empty:
        wide = rows.pivot(index="run", columns="metric", values="value")
    else:
        how = results.attrs.get("aggregate", {})
        cols = {}
        for m, g in results.groupby("metric", sort=False):
            v = g.groupby("run", sort=False)["value"]
            agg = how.get(m, "arithmetic")
            if agg == "sum":
                cols[m] = v.sum()
            elif agg == "geometric":
                cols[m] = v.apply(lambda x: float(np.exp(np.log(np.maximum(x.to_numpy(), GEOMETRIC_EPSILON)).mean())))
            else:
                cols[m] = v.mean()
        wide = pd.DataFrame(cols)
    order = list(dict.fromkeys(results["metric"]))
    runs = list(dict.fromkeys(results["run"]))
    return wide.loc[runs, order]


def ranking(results: pd.DataFrame, metric: str | None = None, *, highlight: str | None = None,
            caption: str | None = None) -> go.Figure:
    """Mean of one metric per run, best first (the dashboard's Rankings chart).

    ``results``: :func:`evalcore.evaluate`'s frame or a table of means (:func:`means_table`);
    ``metric`` defaults to the first; ``highlight`` a run drawn in orange. The axis names the metric by its
    display label (evaluate's ``attrs["labels"]``: ``nDCG@10 (JK)``). The figure's caption (below the
    plot, :func:`add_caption`) states what shaped the means: from evaluate's frame its gains with their
    levels, threshold, depth, ranking order and mean (:func:`evalcore.legend.sentence`); ``caption``: your
    own text instead ("" for none)."""
    means = means_table(results)
    if metric is None:
        metric = str(means.columns[0])
    if metric not in means.columns:
        raise ValueError(f"metric {metric!r} is not in the results; they hold {', '.join(map(str, means.columns))}")
    shown = str((getattr(results, "attrs", {}) or {}).get("labels", {}).get(metric, metric))
    fig = ranking_bars(means.rename(columns={metric: shown}), shown, highlight=highlight)
    if caption is None:
        caption = _stated(results, metric)
    return add_caption(fig, caption) if caption else fig


def _stated(results: pd.DataFrame, metric: str) -> str:
    """What shaped ``metric``'s numbers in ``results`` (evaluate's attrs), in words; "" when not known."""
    a = getattr(results, "attrs", {}) or {}
    if "order" not in a:
        return ""
    from ..legend import meta, sentence

    m = meta(a)
    one = {k: ({metric: v[metric]} if metric in v else {}) if isinstance(v, dict) else v for k, v in m.items()}
    return sentence(one, [metric])


def add_caption(fig: go.Figure, text: str, *, line: int = 110) -> go.Figure:
    """``fig`` with ``text`` as a caption below the plot (small grey type, wrapped at ``line`` characters,
    the bottom margin grown to hold it), so an exported or pasted chart carries its conventions. Returns
    the same figure."""
    lines: list[str] = []
    for word in plot_text(text, limit=10_000).split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= line:
            lines[-1] += " " + word
        else:
            lines.append(word)
    # below the x axis's tick labels and title (about 60 px under the plot), in a bottom margin grown to hold it
    below = 64
    margin = fig.layout.margin
    bottom = (margin.b or 10) + below + 16 * len(lines)
    fig.update_layout(margin={"b": bottom}, height=(fig.layout.height or 420) + below + 16 * len(lines))
    fig.add_annotation(text="<br>".join(lines), xref="paper", yref="paper", x=0, y=0, xanchor="left",
                       yanchor="top", yshift=-below, showarrow=False, align="left", font={"size": 11, "color": GREY})
    return fig


#: The file types :func:`save` writes, and the plotly writer of each.
SAVE_FORMATS = ("svg", "pdf", "png", "html")
#: Slide shapes for :func:`save` (``shape=``): width and height in pixels.
SLIDE_SIZES = {"16:9": (1280, 720), "4:3": (1024, 768)}


def save(fig: go.Figure, path, *, shape: str | None = "16:9", scale: float = 2.0) -> str:
    """Write ``fig`` to ``path``: ``.svg``, ``.pdf``, ``.png`` (plotly's ``write_image``, which needs
    kaleido: ``pip install "evalcore-ir[image]"``) or ``.html`` (no extra dependency). ``shape``: a slide's
    proportions, ``"16:9"`` (1280 x 720, the default) or ``"4:3"`` (1024 x 768), or None for the figure's own
    size; ``scale`` multiplies the pixels of a PNG. Returns the path written. Without kaleido an
    ``ImportError`` names the extra to install (and says that ``.html`` needs none)."""
    import os

    path = os.fspath(path)
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext not in SAVE_FORMATS:
        raise ValueError(f"save writes {', '.join('.' + f for f in SAVE_FORMATS)}; got {path!r}")
    if shape is not None and shape not in SLIDE_SIZES:
        raise ValueError(f"shape must be one of {', '.join(SLIDE_SIZES)} or None; got {shape!r}")
    size = dict(zip(("width", "height"), SLIDE_SIZES[shape], strict=True)) if shape else {}
    if ext == "html":
        if size:
            fig = type(fig)(fig).update_layout(**size)
        fig.write_html(path, include_plotlyjs=True, full_html=True)
        return path
    from importlib.util import find_spec

    if find_spec("kaleido") is None:      # plotly's image writer
        raise ImportError(f"writing .{ext} needs kaleido, plotly's image export: pip install \"evalcore-ir[image]\" "
                          "(or kaleido>=1.0; it draws with a Chrome or Chromium found on the machine); "
                          ".html needs no extra")
    fig.write_image(path, format=ext, scale=scale if ext == "png" else 1, **size)
    return path


def kendall_heatmap(result, *, title: str | None = None, cell_text: bool = True, alpha: float = 0.01
                    ) -> go.Figure:
    """Rank correlation between every pair of metrics (Sakai 2007 Table 2 as a heatmap).

    ``result``: a :class:`evalcore.meta.CorrelationResult`, or evaluate's frame / a table of means (the
    correlation is then computed with :func:`evalcore.meta.correlation_matrix`, tau-b at ``alpha``).
    ``*`` marks a significant value; the colour scale is [0, 1] or [-1, 1] (:func:`tau_scale`)."""
    from ..meta.correlation import CorrelationResult, correlation_matrix

    if not isinstance(result, CorrelationResult):
        result = correlation_matrix(means_table(result), alpha=alpha)
    return tau_heatmap(result.tau, result.significant, title=title, cell_text=cell_text)


def swap_curves(result, *, confidence: float = 0.95, title: str | None = None) -> go.Figure:
    """Swap rate against the difference in mean score, one line per metric (Sakai 2007 Fig. 4), with the
    1 - ``confidence`` line. ``result``: :class:`evalcore.meta.SwapResult`."""
    curves = result.curves.dropna(subset=["swap_rate"])
    return lines(curves, "lower", "swap_rate", "metric", x_title="difference in mean score |D| (bin lower edge)",
                 y_title="swap rate (share of trials that disagree)", y_percent=True, ref_y=1 - confidence,
                 ref_label=f"{1 - confidence:.0%} ({confidence:.0%} confidence)", y_range=[0, 1.02],
                 title=title if title is not None else f"Swap rates, {result.sampling} sampling, B = {result.B}")


def asl_curves(result, *, alpha: float | None = None, title: str | None = None) -> go.Figure:
    """Achieved significance level of every run pair, sorted, one line per metric (Sakai 2006's ASL
    curves; Sakai 2007 Sec. 4.3). ``result``: :class:`evalcore.meta.BootstrapResult`; the alpha line
    at ``alpha`` (default: the result's first alpha)."""
    a = float(result.alphas[0] if alpha is None else alpha)
    return lines(result.asl_curves, "pair_rank", "asl", "metric", x_title="run pairs, sorted by ASL",
                 y_title="achieved significance level (ASL)", ref_y=a, ref_label=f"alpha = {a:g}", markers=False,
                 y_range=[0, 1.02], title=title if title is not None else f"ASL curves, B = {result.B}")


def pvalue_curves(result, *, test: str = "t", correction: str = "none", alpha: float = 0.05,
                  title: str | None = None) -> go.Figure:
    """Sorted (adjusted) p-values of every run pair, one line per metric, from
    :class:`evalcore.meta.PairsResult` (its :meth:`~evalcore.meta.PairsResult.curves`)."""
    cur = result.curves(test, correction)
    return lines(cur, "pair_rank", "p_value", "metric", x_title="run pairs, sorted by p-value",
                 y_title=f"p-value ({test} test" + (f", {correction} adjusted)" if correction != "none" else ")"),
                 ref_y=alpha, ref_label=f"alpha = {alpha:g}", markers=False, y_range=[0, 1.02], title=title)


def forest_plot(result, run: str, metric: str, *, test: str = "t", correction: str = "holm",
                alpha: float = 0.05, ci: str = "t") -> go.Figure:
    """Differences of ``run`` against every other run with their CIs (a forest plot), for one metric.

    ``result``: :class:`evalcore.meta.PairsResult` (its :meth:`~evalcore.meta.PairsResult.table` with
    ``test``, ``correction``, ``alpha``, ``ci``), or a pair table with ``metric, run_x, run_y,
    mean_diff, ci_low, ci_high, significant`` (:meth:`evalcore.CompareResult.to_dataframe` with
    ``details=True``, the CLI's ``evalcore pairs`` CSV)."""
    if isinstance(result, pd.DataFrame):
        table = result
        conf_label = "CI"
        sig = f"adjusted p < {alpha:g}"
    else:
        table = result.table(test, correction, alpha, ci)
        conf_label = f"{result.confidence:.0%} {'bootstrap' if ci == 'bootstrap' else 't'} CI"
        sig = f"{test} test, {correction} adjusted p < {alpha:g}" if correction != "none" else f"p < {alpha:g}"
    t = table[table["metric"].astype(str) == str(metric)]
    if t.empty:
        raise ValueError(f"metric {metric!r} has no pair in the results; they hold "
                         f"{', '.join(map(str, dict.fromkeys(table['metric'])))}")
    d = forest_data(t, run)
    if d.empty:
        raise ValueError(f"run {run!r} is in no pair of the results")
    return forest(d, run=run, metric=str(metric), ci_label=conf_label, sig_label=sig)


def gain_sweep(sweep: pd.DataFrame, *, level_name: str | None = None, current: float | None = None,
               reference: str | None = None, title: str | None = None) -> go.Figure:
    """Kendall tau-b between a reference ranking and the ranking as one level's gain moves (log x), from
    :func:`evalcore.gain_sweep`'s frame (``gain``, ``tau``; ``metric`` when several). The y axis is
    fixed to [0, 1] when every tau is >= 0, else [-1, 1]; ``current`` marks a gain with a dotted line."""
    d = sweep if "metric" in sweep else sweep.assign(metric=sweep.attrs.get("metric", "tau"))
    level_name = level_name or sweep.attrs.get("level_name") or f"level {sweep.attrs.get('level', '')}".strip()
    reference = reference or sweep.attrs.get("reference", "the reference gains")
    lo, hi = tau_scale(d[["tau"]])
    pad = 0.02 * (hi - lo)
    return lines(d, "gain", "tau", "metric", x_title=f"gain of {plot_text(level_name)} (log scale)",
                 y_title=f"Kendall tau-b against {plot_text(reference)}", log_x=True, ref_x=current,
                 ref_label="current" if current is not None else "", y_range=[lo - pad, hi + pad], title=title)


def stability_curves(result, *, title: str | None = None) -> go.Figure:
    """Error rate against proportion of ties over the fuzziness values, one line per metric (Buckley &
    Voorhees 2000; Sakai 2006). ``result``: :class:`evalcore.meta.StabilityResult`."""
    return stability_scatter(result.summary, title=title)


def spread(result, figure: str, *, y_title: str | None = None, percent: bool = True, title: str | None = None,
           **where) -> go.Figure:
    """The Monte Carlo spread of one summary figure per metric over repeated seeds: bars at the mean,
    +-1 sd, min-max. ``result``: :class:`evalcore.meta.RepeatResult`; ``figure`` and ``where`` as in
    :meth:`~evalcore.meta.RepeatResult.table` (e.g. ``spread(r, "pct_comparisons", confidence=0.95)``)."""
    d = result.table(figure, **where).reset_index()
    return spread_bars(d, y_title=y_title or figure.replace("_", " "), percent=percent, title=title)
