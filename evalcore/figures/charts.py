"""Charts from tidy DataFrames: the figures the dashboard draws, each a pure function of a table (what
evalcore's results hold), so a notebook draws the same chart. :mod:`evalcore.figures` adds one-call
functions that take evalcore's result objects.

plotly is imported when the first figure is built (evalcore itself needs no plotly); every figure uses the
Okabe-Ito palette, a marker symbol and dash per group beside the colour (greyscale prints), names its
axes with units and carries hover details.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._style import (
    GREY,
    MAX_LABEL,
    OKABE_ITO,
    SEQUENTIAL,
    color_map,
    figure,
    hline,
    metric_color,
    metric_dash,
    metric_symbol,
    plot_text,
    vline,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go


# -- rankings ----------------------------------------------------------------
def ranking_bars(means: pd.DataFrame, metric: str, highlight: str | None = None) -> go.Figure:
    """Mean of one metric per run, best first. ``means``: index run, columns metrics."""
    s = means[metric].sort_values(ascending=True)
    n = len(s)
    colors = [OKABE_ITO[3] if r == highlight else OKABE_ITO[0] for r in s.index]
    bar = dict(type="bar", x=s.to_numpy(), y=[str(r) for r in s.index], orientation="h", marker=dict(color=colors),
               customdata=np.arange(n, 0, -1),
               hovertemplate="<b>%{y}</b><br>" + metric + " = %{x:.4f}<br>rank %{customdata}<extra></extra>")
    return figure([bar], x=f"mean {metric} over topics (0-1)", y="run", height=max(320, 18 * n + 80), legend=False,
                  yaxis=dict(tickfont=dict(size=11)))


def rank_shift(df: pd.DataFrame, left: str, right: str, *, title: str | None = None,
               row_px: int = 16) -> go.Figure:
    """Slope chart: each run's rank under two settings.

    ``df``: columns run, rank_left, rank_right, value_left, value_right.
    Runs that move up are blue (solid, triangles up), down orange (dashed, triangles down),
    unchanged grey (dotted). One trace per group (segments separated by a gap) keeps the figure cheap to
    build; its data are numeric and fixed-width string arrays: plotly copies and encodes an array at once, a
    list or an object array element by element (this chart was about a fifth of a Rankings move's CPU with
    object arrays, and a list of strings still cost several times what an array does). The hover names the run
    (``text``), the side (``hovertext``), the mean and the places moved (numeric ``customdata``).
    """
    rank_l, rank_r = df["rank_left"].to_numpy(float), df["rank_right"].to_numpy(float)
    val_l, val_r = df["value_left"].to_numpy(float), df["value_right"].to_numpy(float)
    move = rank_l - rank_r
    # cut where plot_text cuts a label (one character more, so that its "..." still shows): a fixed-width
    # array is as wide as its longest string, and a run id or a setting's label can be any length
    run_names = np.array([str(r)[:MAX_LABEL + 1] for r in df["run"].tolist()], dtype=str)
    left, right = str(left)[:MAX_LABEL + 1], str(right)[:MAX_LABEL + 1]
    sides, hover_sides = np.array([left, right, right], dtype=str), np.array([left, right, ""], dtype=str)
    traces: list[dict] = []
    # colour, dash and marker each tell the three groups apart (a greyscale print keeps the last two)
    groups = [("moved up", move > 0, OKABE_ITO[0], 2.5, "solid", "triangle-up"),
              ("moved down", move < 0, OKABE_ITO[3], 2.5, "dash", "triangle-down"),
              ("unchanged", move == 0, GREY, 1.2, "dot", "circle")]
    for name, sel, col, width, dash, symbol in groups:
        n = int(sel.sum())
        if not n:
            continue
        gap = np.full(n, np.nan)
        ys = np.column_stack([rank_l[sel], rank_r[sel], gap]).ravel()
        vals = np.column_stack([val_l[sel], val_r[sel], gap]).ravel()
        moves = np.repeat(move[sel], 3)
        moves[2::3] = np.nan
        names = run_names[sel]
        runs = np.column_stack([names, names, np.full(n, "", dtype=names.dtype)]).ravel()
        traces.append(dict(
            # the gap point (y = NaN, not drawn) sits at the right label: no third category on the axis
            type="scatter", x=np.tile(sides, n), y=ys, mode="lines+markers", name=name,
            line=dict(color=col, width=width, dash=dash), marker=dict(size=7, symbol=symbol),
            text=runs, hovertext=np.tile(hover_sides, n), customdata=np.column_stack([vals, moves]),
            hovertemplate="<b>%{text}</b><br>%{hovertext}: rank %{y}, mean %{customdata[0]:.4f}"
                          "<br>moves %{customdata[1]} places<extra></extra>",
        ))
    traces.append(dict(
        type="scatter", x=np.full(len(df), right), y=rank_r, mode="text",
        text=np.char.add("   ", run_names), textposition="middle right",
        textfont=dict(size=10), hoverinfo="skip", showlegend=False,
    ))
    n = len(df)
    if title:       # the legend goes under the plot (_figure), the x axis' labels on top
        return figure(traces, title=title, y="rank (1 = best)", height=max(320, row_px * n + 120), legend=True,
                      top=100, xaxis=dict(range=[-0.2, 1.6], side="top"),
                      yaxis=dict(range=[n + 0.5, 0.5], dtick=1 if n <= 30 else 5))
    return figure(traces, title=title, y="rank (1 = best)", height=max(320, row_px * n + 80 + (40 if title else 0)),
                  legend=True, top=70 if title else None,
                  xaxis=dict(range=[-0.2, 1.6]), yaxis=dict(range=[n + 0.5, 0.5], dtick=1 if n <= 30 else 5))


def topic_heatmap(matrix: pd.DataFrame, metric: str) -> go.Figure:
    """Per-topic scores: index runs, columns topics; values in [0, 1]."""
    heat = dict(type="heatmap", z=matrix.to_numpy(), x=[str(t) for t in matrix.columns],
                y=[str(r) for r in matrix.index], colorscale=SEQUENTIAL, zmin=0, zmax=1,
                colorbar=dict(title=dict(text=metric), thickness=12),
                hovertemplate="run %{y}<br>topic %{x}<br>" + metric + " = %{z:.4f}<extra></extra>")
    return figure([heat], x="topic", y="run (best mean at top)", height=max(360, 14 * len(matrix) + 120),
                  legend=False, yaxis=dict(autorange="reversed", tickfont=dict(size=10)),
                  # every topic named up to 50 (upright, 9 px: ~11 px a topic fits a 1024 px screen), none beyond
                  xaxis=dict(showticklabels=matrix.shape[1] <= 50, dtick=1, tickangle=-90, tickfont=dict(size=9)))


def run_difference(df: pd.DataFrame, run_x: str, run_y: str, metric: str) -> go.Figure:
    """Per-topic difference x - y, sorted. ``df``: columns topic, x, y, diff."""
    d = df.sort_values("diff", ascending=False)
    run_x, run_y = plot_text(run_x), plot_text(run_y)
    # a list: plotly checks a numpy array of colour strings element by element, twice as slowly
    colors = np.where(d["diff"] > 0, OKABE_ITO[0], np.where(d["diff"] < 0, OKABE_ITO[3], GREY)).tolist()
    bar = dict(type="bar", x=[str(t) for t in d["topic"]], y=d["diff"].to_numpy(), marker=dict(color=colors),
               customdata=np.c_[d["x"], d["y"]],
               hovertemplate=("topic %{x}<br>" + f"{run_x}: " + "%{customdata[0]:.4f}<br>" + f"{run_y}: "
                              + "%{customdata[1]:.4f}<br>difference %{y:+.4f}<extra></extra>"))
    return figure([bar], x="topic (sorted by difference)", y=f"{metric}: {run_x} minus {run_y}", legend=False,
                  xaxis=dict(showticklabels=len(d) <= 60, tickfont=dict(size=9)))


def depth_ecdf(df: pd.DataFrame) -> go.Figure:
    """Share of (run, topic) lists whose r_1 / r_p is at most a rank.

    ``df``: columns kind ("r_1 ..." / "r_p ..."), rank (>= 1).
    """
    traces = []
    for i, (kind, g) in enumerate(df.groupby("kind", sort=False)):
        r = np.sort(g["rank"].to_numpy())
        y = np.arange(1, r.size + 1) / r.size
        traces.append(dict(
            type="scatter", x=r, y=y, mode="lines", name=kind,
            line=dict(shape="hv", width=2.5, color=OKABE_ITO[i], dash=("solid", "dash", "dot")[i % 3]),
            hovertemplate=f"{kind}" + "<br>rank <= %{x}: %{y:.1%} of lists<extra></extra>",
        ))
    return figure(traces, x="rank in the list (log scale)", y="lists with the document at or above that rank",
                  xaxis=dict(type="log"), yaxis=dict(tickformat=".0%", range=[0, 1.02]))


# -- rank correlation --------------------------------------------------------
def tau_scale(tau: pd.DataFrame) -> tuple[float, float]:
    """The colour range of a tau heatmap: [0, 1] when every value is >= 0,
    else [-1, 1] - fixed, so a colour always means the same tau across settings."""
    z = tau.values.astype(float)
    return (0.0, 1.0) if (not np.isfinite(z).any() or np.nanmin(z) >= 0) else (-1.0, 1.0)


def tau_heatmap(tau: pd.DataFrame, significant: pd.DataFrame | None = None, *, title: str | None = None,
                zmin: float | None = None, cell_text: bool = True) -> go.Figure:
    """Kendall tau matrix with values written in the cells (``cell_text``; off where the chart may be
    narrow - half a 1024 px screen leaves ~14 px a cell and the numbers would overlap - the value is
    then in the hover); ``*`` marks significance.

    The colour scale is fixed (:func:`tau_scale`), never stretched to the data.
    """
    z = tau.values.astype(float)
    sig = significant.values.astype(bool) if significant is not None else np.zeros_like(z, bool)
    text = [[("" if not np.isfinite(v) else f"{v:.3f}" + ("*" if s_ and i != j else ""))
             for j, (v, s_) in enumerate(zip(row, srow, strict=True))]
            for i, (row, srow) in enumerate(zip(z, sig, strict=True))]
    lo, hi = tau_scale(tau)
    if zmin is not None:
        lo = zmin
    heat = dict(type="heatmap", z=z, x=[str(c) for c in tau.columns], y=[str(r) for r in tau.index], text=text,
                colorscale=SEQUENTIAL, zmin=lo, zmax=hi,
                colorbar=dict(title=dict(text=f"tau<br>[{lo:g}, {hi:g}]"), thickness=12),
                hovertemplate="%{y} vs %{x}<br>Kendall tau-b = %{text}<extra></extra>")
    if cell_text:
        heat.update(texttemplate="%{text}", textfont=dict(size=11))
    return figure([heat], title=title, height=max(360, 48 * len(tau) + 120), legend=False,
                  # dtick=1: every metric named (plotly drops every other category label when they crowd);
                  # without cell text the chart may be narrow (half a 1024 px screen, ~25 px a column):
                  # upright labels then, which need only their line height side by side
                  yaxis=dict(autorange="reversed", dtick=1),
                  xaxis=dict(side="bottom", tickangle=-45 if cell_text else -90, dtick=1))


def lines(df: pd.DataFrame, x: str, y: str, color: str, *, x_title: str, y_title: str,
          hover: str = "", log_x: bool = False, y_percent: bool = False, markers: bool = True,
          order=None, ref_y: float | None = None, ref_x: float | None = None, ref_label: str = "",
          title: str | None = None, top: int | None = None, y_range=None) -> go.Figure:
    """One line per ``color`` group (swap-rate curves, ASL curves, gain sweeps): each group its colour,
    marker symbol and dash (:func:`~evalcore.figures.metric_symbol`, ``metric_dash``), so the lines stay
    apart in greyscale. ``y_range``: a fixed ``[low, high]`` for the y axis (a Kendall tau: [-1, 1] or
    [0, 1], never stretched to the data)."""
    traces, shapes, notes = [], [], []
    groups = order if order is not None else list(dict.fromkeys(df[color]))
    cmap = color_map(groups)
    for name in groups:
        g = df[df[color] == name].sort_values(x)
        if g.empty:
            continue
        traces.append(dict(
            type="scatter", x=g[x].to_numpy(), y=g[y].to_numpy(), name=str(name),
            mode="lines+markers" if markers else "lines",
            line=dict(color=cmap[name], width=2.2, dash=metric_dash(name)),
            marker=dict(size=6, symbol=metric_symbol(name)),
            hovertemplate=f"<b>{name}</b><br>{x_title}: %{{x:.4g}}<br>{y_title}: %{{y:.4g}}{hover}<extra></extra>",
        ))
    if ref_y is not None:
        shape, note = hline(ref_y, dict(color=GREY, dash="dash"), ref_label, "top left")
        shapes.append(shape)
        notes += note
    if ref_x is not None:
        # the line is placed in data units; an annotation on a log axis takes log10 units
        shapes.append(vline(ref_x, dict(color=GREY, dash="dot")))
        notes.append(dict(x=float(np.log10(ref_x)) if log_x else ref_x, y=1, yref="paper", text=ref_label,
                          showarrow=False, xanchor="left", xshift=4, font=dict(color="#555555")))
    yaxis: dict = dict(tickformat=".0%") if y_percent else {}
    if y_range is not None:
        yaxis["range"] = [float(v) for v in y_range]
    return figure(traces, title=title, top=top, x=x_title, y=y_title, shapes=shapes, annotations=notes,
                  xaxis=dict(type="log") if log_x else None, yaxis=yaxis or None)


def stability_scatter(df: pd.DataFrame, *, title: str | None = None, top: int | None = None) -> go.Figure:
    """Error rate against proportion of ties, one line of fuzziness values per metric.

    ``df``: columns metric, fuzziness, error_rate, prop_ties.
    """
    traces = []
    names = list(dict.fromkeys(df["metric"]))
    cmap = color_map(names)
    for name in names:
        g = df[df["metric"] == name].sort_values("fuzziness")
        traces.append(dict(
            type="scatter", x=g["prop_ties"].to_numpy(), y=g["error_rate"].to_numpy(), name=str(name),
            mode="lines+markers+text",
            # labels on the lowest and highest fuzziness only: all of them overlap
            text=[f"{f:.0%}" if i in (0, len(g) - 1) else "" for i, f in enumerate(g["fuzziness"])],
            textposition="top right", textfont=dict(size=9),
            line=dict(color=cmap[name], width=2, dash=metric_dash(name)),
            marker=dict(size=8, symbol=metric_symbol(name)),
            customdata=g["fuzziness"].to_numpy(),
            hovertemplate=f"<b>{name}</b><br>fuzziness %{{customdata:.0%}}<br>error rate %{{y:.2%}}"
                          "<br>ties %{x:.2%}<extra></extra>",
        ))
    return figure(traces, title=title, top=top, x="proportion of ties (share of run pairs judged equal)",
                  y="error rate (share of swapped conclusions)", xaxis=dict(tickformat=".0%"),
                  yaxis=dict(tickformat=".1%"))


# -- the playground ------------------------------------------------------------
def playground_chart(table: pd.DataFrame, level_colors: dict[str, str] | None = None) -> go.Figure:
    """Per-rank gain g(r) as bars, BR(r) as a line. ``table``: rank, level, g, BR (NaN when not relevant)."""
    cmap = level_colors or {}
    traces: list[dict] = [
        dict(type="bar", x=table["rank"].to_numpy(), y=table["g"].to_numpy(), name="g(r), gain", yaxis="y",
             marker=dict(color=[cmap.get(lv, GREY) for lv in table["level"]]), customdata=table["level"].to_numpy(),
             hovertemplate="rank %{x}: level %{customdata}, g = %{y:g}<extra></extra>"),
        dict(type="scatter", x=table["rank"].to_numpy(), y=table["BR"].to_numpy(), name="BR(r), blended ratio",
             yaxis="y2", mode="lines+markers", line=dict(color=OKABE_ITO[6], width=2), marker=dict(size=8),
             connectgaps=False, hovertemplate="rank %{x}: BR = %{y:.4f}<extra></extra>"),
    ]
    return figure(traces, x="rank r", y="gain g(r)", height=320, xaxis=dict(dtick=1),
                  yaxis2=dict(title=dict(text="BR(r) (0-1)"), overlaying="y", side="right", range=[0, 1.05],
                              tickmode="linear", dtick=0.2, showgrid=False))


def share_bars(df: pd.DataFrame, x: str, y: str, *, y_title: str, title: str | None = None,
               top: int | None = None) -> go.Figure:
    """One bar per category holding a share in [0, 1]."""
    cats = df[x].astype(str).to_numpy()
    bar = dict(type="bar", x=cats, y=df[y].to_numpy(),
               marker=dict(color=[metric_color(m) for m in cats] if x == "metric" else OKABE_ITO[0]),
               hovertemplate="%{x}: %{y:.1%}<extra></extra>")
    return figure([bar], title=title, top=top, x=x, y=y_title, height=320, legend=False,
                  yaxis=dict(tickformat=".0%"))


def spread_bars(spread: pd.DataFrame, *, y_title: str, percent: bool = False, title: str | None = None
                ) -> go.Figure:
    """Monte Carlo spread of one summary figure per metric (evalcore.meta.repeat): a bar at the mean over
    repetitions, an error bar of +- 1 sd, and a thin line over the min-max range.

    ``spread``: one row per metric with ``metric``, ``mean``, ``sd``, ``min``, ``max``, ``n`` (e.g.
    ``RepeatResult.table("pct_comparisons", confidence=0.95).reset_index()``). Bars are sorted by the mean,
    largest first, as the papers sort their tables; sd is drawn as 0 when undefined (one repetition).
    """
    d = spread.sort_values("mean", ascending=False, kind="stable", na_position="last")
    cmap = color_map(list(d["metric"]))
    sd = d["sd"].fillna(0.0).to_numpy(dtype=float)
    metrics = d["metric"].to_numpy()
    traces = [
        dict(type="bar", x=metrics, y=d["mean"].to_numpy(), name="mean", marker=dict(color=[cmap[m] for m in metrics]),
             error_y=dict(type="data", array=sd, visible=True, color="#333333", thickness=1.5),
             customdata=np.c_[sd, d["min"], d["max"], d["n"]],
             hovertemplate="<b>%{x}</b><br>mean %{y:.4g} ± %{customdata[0]:.2g} (sd)<br>"
                           "min %{customdata[1]:.4g}, max %{customdata[2]:.4g}<br>%{customdata[3]} repetitions"
                           "<extra></extra>"),
        dict(type="scatter", x=np.repeat(metrics, 3), y=np.ravel(np.c_[d["min"], d["max"], np.full(len(d), np.nan)]),
             mode="lines", name="min-max", line=dict(color="#333333", width=1, dash="dot"), hoverinfo="skip"),
    ]
    return figure(traces, title=title, y=y_title, legend=False, yaxis=dict(ticksuffix="%") if percent else None)


# -- "Which gains should I report?" --------------------------------------------
def setting_points(df: pd.DataFrame, y: str, *, y_title: str, lo: str | None = None, hi: str | None = None,
                   sd: str | None = None, y_range=None, ref_y: float | None = None, ref_label: str = "",
                   title: str | None = None) -> go.Figure:
    """One marker per gain setting (x in the frame's order), optional error bars
    from ``lo`` to ``hi`` (e.g. min..max over Monte Carlo repetitions); the
    slider's and the sidebar's settings are drawn as orange diamonds, the others as blue dots.

    ``df``: columns ``setting``, ``family``, ``y`` (and lo/hi/sd).
    """
    x = df["setting"].astype(str).to_numpy()
    mine = [("slider" in f or "current" in f) for f in df["family"]]
    colors = [OKABE_ITO[1] if m else OKABE_ITO[0] for m in mine]
    symbols = ["diamond" if m else "circle" for m in mine]      # the user's own settings: a shape, not only a hue
    err = None
    if lo is not None and hi is not None:
        err = dict(type="data", symmetric=False, array=(df[hi] - df[y]).to_numpy(),
                   arrayminus=(df[y] - df[lo]).to_numpy(), color=GREY, thickness=1.5, width=5)
    custom = np.stack([df["family"].astype(str), df[sd] if sd else np.zeros(len(df))], axis=1)
    point = dict(type="scatter", x=x, y=df[y].to_numpy(), mode="markers",
                 marker=dict(size=11, color=colors, symbol=symbols, line=dict(width=1, color="white")),
                 error_y=err, customdata=custom,
                 hovertemplate="<b>%{x}</b> (%{customdata[0]})<br>" + y_title + ": %{y:.3f}"
                               + ("<br>sd over repetitions: %{customdata[1]:.2f}" if sd else "") + "<extra></extra>")
    if err is None:
        del point["error_y"]
    shapes: list[dict] = []
    notes: list[dict] = []
    if ref_y is not None:
        shape, notes = hline(ref_y, dict(color=GREY, dash="dash"), ref_label, "bottom left")
        shapes.append(shape)
    return figure([point], title=title, x="gain setting (highest level first, values used)", y=y_title,
                  height=400, legend=False, shapes=shapes, annotations=notes,
                  xaxis=dict(tickangle=-90, type="category"),       # upright: no overlap at 1024 px
                  yaxis=dict(range=list(y_range)) if y_range is not None else None)


# -- "Significance & topic sets" page --------------------------------------------------
def forest_data(table: pd.DataFrame, run: str) -> pd.DataFrame:
    """The rows of a pair table (``run_x, run_y, mean_diff = x - y, ci_low, ci_high, ...``)
    involving ``run``, turned to read "run minus other": where ``run`` is ``run_y`` the
    difference and the CI change sign (and the CI's ends swap). Sorted by the difference,
    ascending (the forest plot draws the largest at the top)."""
    t = table[(table["run_x"].astype(str) == str(run)) | (table["run_y"].astype(str) == str(run))]
    flip = (t["run_y"].astype(str) == str(run)).to_numpy()
    sign = np.where(flip, -1.0, 1.0)
    out = pd.DataFrame({
        "other": np.where(flip, t["run_x"].astype(str), t["run_y"].astype(str)),
        "mean_diff": sign * t["mean_diff"].to_numpy(),
        "ci_low": np.where(flip, -t["ci_high"].to_numpy(), t["ci_low"].to_numpy()),
        "ci_high": np.where(flip, -t["ci_low"].to_numpy(), t["ci_high"].to_numpy()),
    })
    for col in ("effect_size", "p_value", "p_adjusted"):
        if col in t:
            out[col] = (sign * t[col].to_numpy()) if col == "effect_size" else t[col].to_numpy()
    out["significant"] = t["significant"].to_numpy().astype(bool) if "significant" in t else False
    return out.sort_values("mean_diff", kind="stable").reset_index(drop=True)


def forest(df: pd.DataFrame, *, run: str, metric: str, ci_label: str, sig_label: str) -> go.Figure:
    """Forest plot of :func:`forest_data`: one row per other run, a dot at the mean difference
    (run minus other) and a bar for its CI; significant pairs in colour (blue: ``run`` better,
    orange: worse), the others grey; each group also has its own marker (triangle right, triangle left,
    open circle), so the plot reads in greyscale; a line at 0."""
    traces = []
    run = plot_text(run)
    groups = [(f"significant, {run} better", df["significant"] & (df["mean_diff"] > 0), OKABE_ITO[0], "triangle-right"),
              (f"significant, {run} worse", df["significant"] & (df["mean_diff"] <= 0), OKABE_ITO[3], "triangle-left"),
              ("not significant", ~df["significant"], GREY, "circle-open")]
    for name, sel, col, symbol in groups:
        g = df[sel]
        if g.empty:
            continue
        custom = np.stack([g["ci_low"], g["ci_high"], g.get("p_adjusted", pd.Series(np.nan, index=g.index))],
                          axis=1)
        traces.append(dict(
            type="scatter", x=g["mean_diff"].to_numpy(), y=g["other"].to_numpy(), mode="markers", name=name,
            marker=dict(size=10, color=col, symbol=symbol),
            error_x=dict(type="data", symmetric=False, array=(g["ci_high"] - g["mean_diff"]).to_numpy(),
                         arrayminus=(g["mean_diff"] - g["ci_low"]).to_numpy(), color=col, thickness=2, width=4),
            customdata=custom,
            hovertemplate=(f"<b>{run}</b> minus <b>%{{y}}</b><br>{metric}: %{{x:+.4f}}<br>{ci_label}: "
                           "[%{customdata[0]:+.4f}, %{customdata[1]:+.4f}]<br>adjusted p = %{customdata[2]:.4g}"
                           "<extra></extra>"),
        ))
    return figure(traces, x=f"{metric}: {run} minus the other run ({ci_label})", y="other run",
                  height=max(320, 20 * len(df) + 110), shapes=[vline(0, dict(color="#555555", width=1))],
                  yaxis=dict(type="category", categoryorder="array",
                             categoryarray=[plot_text(o) for o in df["other"]], tickfont=dict(size=11)),
                  legend_title=sig_label + ": ")


def power_bars(df: pd.DataFrame, x: str, y: str, *, y_title: str, lo: str | None = None, hi: str | None = None,
               sd: str | None = None, title: str | None = None) -> go.Figure:
    """Discriminative power: one bar per metric (``y`` in percent), with whiskers from ``lo`` to
    ``hi`` (the Monte Carlo spread over repeated seeds) when given."""
    custom = np.stack([df[lo] if lo else df[y], df[hi] if hi else df[y], df[sd] if sd else np.zeros(len(df))],
                      axis=1)
    spread = ("<br>over seeds: %{customdata[0]:.1f}-%{customdata[1]:.1f} %, sd %{customdata[2]:.2f}"
              if lo is not None else "")
    cats = df[x].astype(str).to_numpy()
    bar = dict(type="bar", x=cats, y=df[y].to_numpy(),
               marker=dict(color=[metric_color(m) for m in cats] if x == "metric" else OKABE_ITO[0]),
               customdata=custom,
               hovertemplate="<b>%{x}</b><br>" + y_title + ": %{y:.1f} %" + spread + "<extra></extra>")
    if lo is not None and hi is not None:
        bar["error_y"] = dict(type="data", symmetric=False, array=(df[hi] - df[y]).to_numpy(),
                              arrayminus=(df[y] - df[lo]).to_numpy(), color="#333333", thickness=1.5, width=8)
    top = float(np.nanmax(df[hi] if hi else df[y])) if len(df) else 0.0
    return figure([bar], title=title, x="metric", y=y_title, height=360, legend=False,
                  yaxis=dict(range=[0, max(5.0, min(100.0, top * 1.15 + 1))], ticksuffix=" %"))


def power_curve(df: pd.DataFrame, y: str, *, y_title: str, n_required: int, n_collection: int | None,
                target: float | None, target_label: str = "", log_x: bool = False, title: str | None = None
                ) -> go.Figure:
    """Power (or expected CI width) against the number of topics, with the required n and the
    collection's own n marked. ``df``: columns ``n_topics`` and ``y``."""
    curve = dict(type="scatter", x=df["n_topics"].to_numpy(), y=df[y].to_numpy(), mode="lines",
                 line=dict(color=OKABE_ITO[0], width=2.5), name=y_title,
                 hovertemplate="n = %{x} topics<br>" + y_title + ": %{y:.4f}<extra></extra>")
    shapes: list[dict] = []
    notes: list[dict] = []
    if target is not None:
        shape, notes = hline(target, dict(color=GREY, dash="dash"), target_label, "bottom right")
        shapes.append(shape)
    marks = [(n_required, f"needed: n = {n_required}", OKABE_ITO[3])]
    if n_collection:
        marks.append((n_collection, f"this collection: n = {n_collection}", OKABE_ITO[2]))
    for i, (n, text, col) in enumerate(marks):
        shapes.append(vline(n, dict(color=col, dash=("dot", "dashdot")[i], width=2)))
        notes.append(dict(x=float(np.log10(n)) if log_x else n, y=1 - 0.08 * i, yref="paper", text=text,
                          showarrow=False, xanchor="left", xshift=4, font=dict(color=col)))
    return figure([curve], title=title, x="number of topics n" + (" (log scale)" if log_x else ""), y=y_title,
                  height=380, legend=False, shapes=shapes, annotations=notes,
                  xaxis=dict(type="log") if log_x else None,
                  # a probability: the whole [0, 1] range, never stretched
                  yaxis=dict(range=[0, 1.05]) if y == "power" else None)
