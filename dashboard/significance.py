"""The "Significance & topic sets" page's computations, words and topic set size section: discriminative
power over seeds, the paper table, topic set size designs, and the page's labels.

The pair statistics themselves are two live kinds (:data:`dashboard.meta_kinds.META_KINDS`, "pairs" and
"pairs_spread"), kept in the shared result store like the others; the correction, alpha and the forest plot
are applied to their results when drawing. "pairs" computes only the tests the table needs
(:func:`pair_tests`): the exact ones are cheap, so switching is still instant.

The page (views/significance.py) keeps its choices under plain session keys (``sg_*``, ``ts_*``) copied
into their widgets (``_w_*``) each run (:func:`bind_settings`), so they survive visits to other pages.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

import evalcore
from evalcore import figures
from evalcore import meta as _meta
from evalcore.collection import Collection
from evalcore.texfmt import format_p

from . import safe, scoring, widgets
from .meta_kinds import RESAMPLED_TESTS as _RESAMPLED
from .meta_kinds import standardised
from .state import Settings

PAIR_TESTS = tuple(_meta.TESTS)
PAIR_CORRECTIONS = tuple(_meta.CORRECTIONS)
#: the tests whose p-values are resampled (a Monte Carlo spread over seeds; dashboard.meta_kinds)
RESAMPLED_TESTS = _RESAMPLED
STANDARDISATIONS = tuple(_meta.STANDARDISATIONS)
TOPIC_DESIGNS = tuple(_meta.DESIGNS)
TOPIC_ESTIMATORS = tuple(_meta.ESTIMATORS)


def pair_tests(test: str, ci: str) -> tuple[str, ...]:
    """The tests one pair table needs: the chosen test, plus the bootstrap for its CI."""
    return (test,) + (("bootstrap",) if ci == "bootstrap" and test != "bootstrap" else ())


def spread_power(pvalues: pd.DataFrame, correction: str, alpha: float) -> pd.DataFrame:
    """% pairs significant per metric from repeated resampled tests (``pairs_spread``).

    For each metric and repeat the p-values of all pairs form one family, adjusted by
    ``correction`` (evalcore.meta.adjust_pvalues); significant = adjusted p < alpha. Returns
    ``metric, pct_seed`` (the first seed: the value the pair table gives), ``mean, sd, min, max``
    over the repeats and ``repeats``.
    """
    rows = []
    for (m, r), g in pvalues.groupby(["metric", "repeat"], sort=False):
        adj = _meta.adjust_pvalues(g["p_value"].to_numpy(), correction)
        rows.append({"metric": m, "repeat": r, "pct": 100.0 * float(np.mean(adj < alpha)) if len(adj) else 0.0})
    d = pd.DataFrame(rows)
    out = d.groupby("metric", sort=False)["pct"].agg(["mean", "std", "min", "max", "count"]).reset_index()
    first = d[d["repeat"] == d["repeat"].min()].set_index("metric")["pct"]
    out.insert(1, "pct_seed", out["metric"].map(first))
    return out.rename(columns={"std": "sd", "count": "repeats"}).fillna({"sd": 0.0})


def compare_table(c: Collection, s: Settings, result, keys, *, baseline: str, test: str, correction: str,
                  alpha: float, standardise: str = "none"):
    """The paper table of the Significance page (:func:`evalcore.compare`, baseline mode): every run against
    ``baseline`` on the metrics ``keys``, from the page's own pair statistics ``result`` (the same p-values
    as its pair table; nothing is recomputed) and the same (standardised) scores. Metrics are shown under
    their configured labels (the gains etc. used); the topics are the collection's topics with a relevant
    document, NTCIREVAL's policy, as every score of the app. Cheap next to the pair statistics: not cached."""
    keys = list(keys)
    labels = {k: scoring.label(k, c, s) for k in keys}
    sc = standardised(scoring.scores(c, s, keys), standardise)
    pairs = result.pairs[result.pairs["metric"].isin(keys)].assign(metric=lambda d: d["metric"].map(labels))
    return evalcore.compare({labels[k]: sc[k] for k in keys}, run_ids=[str(r) for r in c.run_ids],
                            baseline=str(baseline), test=test, correction=correction, alpha=alpha,
                            topics="ntcireval", pairs=replace(result, pairs=pairs))


@st.cache_data(max_entries=512, show_spinner=False)
def topic_design(design: str, alpha: float, beta: float, min_diff: float, variance: float, systems: int | None,
                 n_collection: int) -> dict:
    """Topic set size (evalcore.meta.topic_set_size), the inverse at the collection's n (minimum
    detectable difference, and the power for ``min_diff``), and the power curve for the chart.

    Raises ValueError (not cached) when the design cannot be met, e.g. more than MAX_TOPICS topics.
    """
    size = _meta.topic_set_size(design, alpha=alpha, beta=beta, min_diff=min_diff, variance=variance,
                                systems=systems)
    n_req = int(size["n_topics"])
    out = {"size": size, "n_collection": int(n_collection), "mdd": None, "power_at_n": None, "mdd_error": None}
    if n_collection >= 2:
        try:
            out["mdd"] = float(_meta.min_detectable_difference(design, int(n_collection), alpha=alpha, beta=beta,
                                                               variance=variance, systems=systems))
        except ValueError as e:         # e.g. n = 2: scipy's noncentral t gives NaN power with 1 degree of freedom
            out["mdd_error"] = str(e)
        pw = float(_meta.power_curve(design, [int(n_collection)], alpha=alpha, min_diff=min_diff,
                                     variance=variance, systems=systems)["power"].iloc[0])
        out["power_at_n"] = pw if np.isfinite(pw) else None
    hi = max(2 * n_req, 2 * int(n_collection), 20)
    ns = np.arange(2, hi + 1) if hi <= 400 else np.unique(np.round(np.geomspace(2, hi, 300)).astype(np.int64))
    out["curve"] = _meta.power_curve(design, ns, alpha=alpha, min_diff=min_diff, variance=variance, systems=systems)
    out["log_x"] = bool(hi > 400)
    return out


def design_variance(c: Collection, key: str, s: Settings, design: str, estimator: str,
                    standardise: str = "none") -> dict:
    """The variance ``design`` assumes, estimated from one metric's scores (evalcore.meta.design_variance):
    the pooled within-system sigma^2 (one-way ANOVA residual, Sakai 2018) or V_E of the two-way ANOVA (Sakai
    2016), either for every design, doubled for the paired designs. Raises ValueError with the reason when
    there is no estimate."""
    return _meta.design_variance(standardised({key: scoring.score(c, key, s)}, standardise)[key], design, estimator)


# -- the page's words and settings ---------------------------------------------------------------
TEST_LABELS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
               "randomisation": "paired randomisation test (resampled)",
               "bootstrap": "paired bootstrap test (resampled)"}
CORR_LABELS = {"none": "none (each pair on its own)", "holm": "Holm (family-wise error rate)",
               "bh": "Benjamini-Hochberg (false discovery rate)"}
CORR_SHORT = {"none": "unadjusted", "holm": "Holm", "bh": "BH"}
STD_LABELS = {"none": "raw scores", "z": "z-scores per topic", "cdf": "std-CDF (normal CDF of z)",
              "ab": "std-AB (0.15 z + 0.5)"}
CI_LABELS = {"t": "paired t", "bootstrap": "bootstrap percentile"}
DESIGN_LABELS = {"paired-t": "paired t-test (two systems, same topics)", "anova": "one-way ANOVA (m systems)",
                 "ci": "confidence interval width (paired)",
                 "unpaired-t": "unpaired t-test (two systems, separate topic sets)",
                 "unpaired-ci": "confidence interval width (unpaired)"}


def default_estimator(design: str) -> str:
    """The variance estimate ``design`` opens on: evalcore's rule (:func:`evalcore.meta.default_estimator`:
    two-way for paired-t, ci and anova, one-way for the unpaired designs), not a copy of it."""
    return _meta.default_estimator(design)


def estimator_label(design: str, estimator: str) -> str:
    """An estimate as offered for ``design`` (both for every design): what the power model takes (2 x for the
    paired designs, the variance of a difference) and whether it is the design's default.

    >>> estimator_label("unpaired-t", "two-way")
    'V_E, residual of the two-way ANOVA without replication (Sakai 2016)'
    """
    two = "2 " if design in PAIRED_DESIGNS else ""
    text = {"two-way": f"{two}V_E, residual of the two-way ANOVA without replication (Sakai 2016)",
            "one-way": f"{two}sigma^2, within-system variance pooled over runs (Sakai 2018)"}[estimator]
    return text + ("; this design's default" if estimator == default_estimator(design) else "")
#: what the design's minimum size is called (the number input's label)
DIFF_LABELS = {"paired-t": "minimum detectable difference", "anova": "minimum detectable range",
               "ci": "largest CI width delta", "unpaired-t": "minimum detectable difference",
               "unpaired-ci": "largest CI width delta"}
#: the inverse of a design at the collection's n (the third figure)
INVERSE_LABELS = {"ci": "expected CI width", "anova": "smallest range detectable",
                  "paired-t": "smallest difference detectable", "unpaired-t": "smallest difference detectable",
                  "unpaired-ci": "expected CI width"}
PAIRED_DESIGNS = ("paired-t", "ci")
CI_DESIGNS = ("ci", "unpaired-ci")
CONFIDENCES = (0.9, 0.95, 0.99)
BETAS = (0.05, 0.1, 0.2, 0.3, 0.5)
#: the seeds the Monte Carlo spread of % significant may be drawn over
SPREAD_SEEDS = (3, 5, 10)

ABOUT = (
    "- **Pair table.** For every pair of runs x, y and every metric: the mean over topics of the per-topic "
    "difference x - y, its confidence interval (paired t, or bootstrap percentile), the effect size and the "
    "p-value of the chosen test, raw and adjusted.\n"
    "- **Effect size** = mean difference / sqrt(V_E) (Sakai 2014). **V_E** is the residual variance of the "
    "two-way ANOVA without replication over all runs and topics of the metric: what is left of the scores "
    "once each run's and each topic's average is taken out - the noise against which a difference is "
    "measured. **d_z** = mean difference / standard deviation of the differences of that pair.\n"
    "- **Tests.** Paired t-test; Wilcoxon signed-rank (ranks of |x - y|); sign test (only which run won "
    "each topic); paired randomisation test (random sign flips of the differences; all of them when "
    "2^n <= B); paired bootstrap test (the ASL of Sakai 2007 Fig. 6, B topic samples with replacement).\n"
    "- **Resampled** means the p-value is estimated from B random samples: another seed gives a slightly "
    "different p-value. That Monte Carlo error is shown as whiskers on the discriminative-power bars "
    "(the test repeated with several seeds). The t, Wilcoxon and sign tests are exact: B plays no part.\n"
    "- **Correction.** Testing every pair at alpha finds some 'significant' differences by chance. "
    "Holm controls the chance of any false positive among all pairs of a metric (family-wise error); "
    "Benjamini-Hochberg controls the expected share of false positives among those called significant "
    "(false discovery rate). The family is all pairs of one metric (Carterette 2012).\n"
    "- **Standardisation** (Webber et al. 2008): per topic, scores minus the mean over the loaded runs, "
    "divided by their standard deviation (z); std-CDF and std-AB map z into [0, 1].")

ESTIMATOR_HELP = (
    "Two-way: V_E = sum (x_ij - x_i. - x_.j + x..)^2 / ((m-1)(n-1)), the residual of the two-way ANOVA "
    "without replication (the topic effect removed); a paired t-test or paired CI uses 2 V_E, as Sakai 2016 "
    "sizes topic sets for paired data. One-way: sigma^2 = sum (x_ij - x_i.)^2 / (m(n-1)), each run's topic "
    "variance pooled over runs (one-way ANOVA residual), the within-system variance of the ANOVA and unpaired "
    "designs (Sakai 2018); with a paired design it becomes 2 sigma^2 and, keeping the topic variance, asks "
    "for more topics. Both are offered for every design; each opens on its default (evalcore.meta."
    "default_estimator): two-way for paired-t, ci and anova, one-way for the unpaired designs.")


def widget_key(key: str) -> str:
    """The widget key of a page setting."""
    return "_w_" + key


def bind_settings(ss, defaults: dict) -> None:
    """Copy each page setting between its plain key and its widget's: the widget's value into the setting
    (a rerun of this page), or the setting into the widget (coming back from another page, whose run
    dropped the widget keys)."""
    for k, d in defaults.items():
        w = widget_key(k)
        if w in ss:
            ss[k] = ss[w]
        else:
            ss.setdefault(k, d)
            ss[w] = ss[k]


def choose(ss, key: str, options, fallback) -> None:
    """Make a page setting one of ``options`` before its widget is drawn."""
    w = widget_key(key)
    if ss[w] not in options:
        ss[w] = ss[key] = fallback


def fit_number(ss, key: str, bounds: tuple, fallback, *, whole: bool = False) -> None:
    """Make a number setting (its widget's value) a number within ``bounds`` before its widget is drawn: a
    value from an older address or another version may be out of range or of another type."""
    v = ss[widget_key(key)]
    kinds = (int,) if whole else (int, float)
    if not (isinstance(v, kinds) and not isinstance(v, bool) and bounds[0] <= v <= bounds[1]):
        ss[widget_key(key)] = ss[key] = fallback


def significance_name(correction: str, alpha: float) -> str:
    """What "significant" means in the captions: ``Holm-adjusted p < 0.05`` or ``p < 0.05``."""
    return f"{CORR_SHORT[correction]}-adjusted p < {alpha:g}" if correction != "none" else f"p < {alpha:g}"


def pair_rows(tbl: pd.DataFrame, metrics: list[str], *, metric: str | None, runs: str,
              significant_only: bool) -> tuple[pd.DataFrame, list[str]]:
    """The pair table's rows to show: one metric (None: all), pairs with a run whose name contains ``runs``,
    the significant ones only if asked; in the sidebar's metric order, then by p. Returns ``(rows, by)``,
    ``by`` the p-value columns the rows are ordered by.

    The p-values are written as every table and download writes them (< 0.001, else three significant
    digits): text, so the rows are put in order of p first (a click on a text column would sort "< 0.001"
    after "1")."""
    shown = tbl if metric is None else tbl[tbl["metric"] == metric]
    q = str(runs).strip().lower()
    if q:
        shown = shown[shown["run_x"].astype(str).str.lower().str.contains(q, regex=False)
                      | shown["run_y"].astype(str).str.lower().str.contains(q, regex=False)]
    if significant_only:
        shown = shown[shown["significant"]]
    by = [col for col in ("p_adjusted", "p_value") if col in shown.columns]
    metric_order = {m: i for i, m in enumerate(metrics)}
    shown = (shown.assign(_m=shown["metric"].map(metric_order)).sort_values(["_m", *by], kind="stable")
             .drop(columns="_m"))
    for col in by:
        shown[col] = shown[col].map(format_p)
    return shown, by


def pair_columns(test: str, correction: str, confidence: float, sig_name: str) -> tuple[dict, dict]:
    """The pair table's column headings: ``(every column, the p-value columns)``, old name -> heading."""
    p_cols = {"p_value": f"p ({test})", "p_adjusted": f"p adjusted ({correction})"}
    return {"run_x": "run x", "run_y": "run y", "mean_diff": "mean difference (x - y)",
            "ci_low": f"{confidence:.0%} CI low", "ci_high": f"{confidence:.0%} CI high",
            "effect_size": "effect size (/sqrt V_E)", "significant": f"significant ({sig_name})",
            "n_topics": "topics", **p_cols}, p_cols


def design_spec(design: str, alpha: float, beta: float, min_diff: float, systems: int | None) -> str:
    """One topic set size design in words (the caption under its figures)."""
    return {"paired-t": f"two-sided paired t-test, alpha = {alpha:g}, power 1 - beta = {1 - beta:g}, "
                        f"minimum difference {min_diff:g}",
            "anova": f"one-way ANOVA over m = {systems} systems, alpha = {alpha:g}, power 1 - beta = "
                     f"{1 - beta:g}, minimum range {min_diff:g} (two systems that far apart, the others "
                     "half-way)",
            "ci": f"{1 - alpha:.1%} CI of a paired difference, expected width <= {min_diff:g}",
            "unpaired-t": f"two-sided unpaired t-test (n topics per system), alpha = {alpha:g}, power "
                          f"1 - beta = {1 - beta:g}, minimum difference {min_diff:g} (Sakai 2018)",
            "unpaired-ci": f"{1 - alpha:.1%} CI of an unpaired difference (n topics per system), expected "
                           f"width <= {min_diff:g} (Sakai 2018)"}[design]


def design_notes(design: str, out: dict, min_diff: float, n_collection: int) -> str:
    """What follows the design in the caption: the normal approximation's n, and the power of the
    collection's own n (a power design only)."""
    size = out["size"]
    approx = f" The normal approximation gives {size['n_approx']}." if size.get("n_approx") else ""
    at_n = ("" if out["power_at_n"] is None or design in CI_DESIGNS else
            f" With the collection's own n = {n_collection}, the power for a difference of {min_diff:g} is "
            f"{out['power_at_n']:.3f}.")
    return approx + at_n


def design_curve(design: str, out: dict, alpha: float, beta: float, min_diff: float, n_collection: int):
    """The power curve (or, for a CI design, the expected CI width) against the number of topics, with the
    topics needed and the collection's own n marked (:func:`evalcore.figures.power_curve`)."""
    n_req = int(out["size"]["n_topics"])
    if design in CI_DESIGNS:
        return figures.power_curve(out["curve"], "expected_width", y_title="expected CI width", n_required=n_req,
                                   n_collection=n_collection, target=min_diff, target_label=f"delta = {min_diff:g}",
                                   log_x=out["log_x"], title=f"Expected {1 - alpha:.0%} CI width vs topics")
    return figures.power_curve(out["curve"], "power", y_title="power (1 - beta)", n_required=n_req,
                               n_collection=n_collection, target=1 - beta, target_label=f"1 - beta = {1 - beta:g}",
                               log_x=out["log_x"], title=f"Power vs number of topics ({DESIGN_LABELS[design]}, "
                                                         f"alpha = {alpha:g}, {DIFF_LABELS[design]} {min_diff:g})")


def variance_line(var: dict, estimator: str, metric: str, std_note: str) -> str:
    """The variance estimated from the data, in words (``metric`` already escaped for Markdown), saying which
    estimate it is and whether it is the design's default (``var``: :func:`evalcore.meta.design_variance`)."""
    which = "two-way ANOVA V_E" if estimator == "two-way" else "one-way ANOVA sigma^2"
    return (f"{'sigma^2' if estimator == 'one-way' else 'V_E'} of **{metric}**{std_note} on this collection "
            f"({var['runs']} runs x {var['topics']} topics) = **{var['estimate']:.5g}** "
            f"(estimate used: {which}, {'the' if var.get('default') else 'not the'} design's default)")


def inverse_help(design: str, alpha: float, beta: float, n_collection: int) -> str:
    """What the inverse of a design at the collection's own n says (the third figure's help)."""
    if design in CI_DESIGNS:
        return f"The expected {1 - alpha:.0%} CI width with this collection's {n_collection} topics."
    return (f"The {DIFF_LABELS[design]} this collection's {n_collection} topics detect with power "
            f"1 - beta = {1 - beta:g} (the inverse of the design).")


@dataclass(frozen=True)
class Design:
    """The topic set size section's choices: the design, its alpha, beta and minimum size, the systems of an
    ANOVA, how the variance is estimated and from which metric's scores (standardised as the page's)."""
    design: str
    alpha: float
    beta: float
    min_diff: float
    systems: int | None
    estimator: str
    metric: str
    standardise: str = "none"

    @property
    def is_ci(self) -> bool:
        return self.design in CI_DESIGNS


def draw_design(c: Collection, s: Settings, d: Design) -> None:
    """The topic set size section's result: the variance estimated from the data, the topics the design
    needs, its inverse at the collection's own n, and the power (or CI width) curve."""
    std_note = "" if d.standardise == "none" else f" on {STD_LABELS[d.standardise]}"
    try:
        var = design_variance(c, d.metric, s, d.design, d.estimator, d.standardise)
    except ValueError as e:
        st.info(f"No variance to size a topic set from: {safe.md(str(e))}.")
        return
    variance = float(var["variance"])
    var_text = f"variance = {var['label']} = {variance:.5g}"
    widgets.markdown(variance_line(var, d.estimator, safe.md(d.metric), std_note) + f"; {safe.md(var_text)}.")
    widgets.caption(f"Estimator: {safe.md(var['definition'])}.")
    try:
        out = topic_design(d.design, d.alpha, d.beta, d.min_diff, variance, d.systems, c.n_topics)
    except ValueError as e:
        st.error(f"No topic set size for these settings: {safe.md_lines(e)}", icon=":material/error:")
        return
    size, n_req = out["size"], int(out["size"]["n_topics"])
    k1, k2, k3 = st.columns(3)
    k1.metric("topics needed", f"{n_req:,}", help="Smallest n with exact power >= 1 - beta (noncentral t / F), or "
                                                  "with expected CI width <= delta.")
    if d.is_ci:
        k2.metric("expected CI width at that n", f"{size['expected_width']:.4f}")
    else:
        k2.metric("power at that n", f"{size['power']:.3f}")
    if out["mdd_error"]:
        k3.caption(f"The inverse (what {c.n_topics} topics can detect) could not be computed: {out['mdd_error']}")
    if out["mdd"] is not None:
        k3.metric(INVERSE_LABELS[d.design] + f" at n = {c.n_topics}", f"{out['mdd']:.4f}",
                  help=inverse_help(d.design, d.alpha, d.beta, c.n_topics))
    widgets.caption(design_spec(d.design, d.alpha, d.beta, d.min_diff, d.systems) + f"; {var_text} from "
                    f"{d.metric}." + design_notes(d.design, out, d.min_diff, c.n_topics))
    widgets.chart(design_curve(d.design, out, d.alpha, d.beta, d.min_diff, c.n_topics), width="stretch",
                  key="ts_curve")
