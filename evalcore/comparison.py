r"""The wide results table of a paper: runs x metrics, means with significance marks.

:func:`compare` scores (or takes) per-topic scores, runs one paired test per
run pair with :func:`evalcore.meta.pair_statistics`, adjusts the p-values over
a family per metric and returns a :class:`CompareResult`: a tidy DataFrame
(one row per run and metric) plus writers for Markdown, CSV/TSV and LaTeX
(booktabs), each with a legend stating the test, the correction, alpha, the
number of topics and the topic policy.

Two modes, after the two tools IR people paste tables from:

* **baseline** (``baseline="BM25"``; PyTerrier's ``pt.Experiment(...,
  baseline=0, correction=...)``): every other run against the baseline. Per
  run and metric: the p-value of the test, its adjusted value (the family: the
  n_runs - 1 comparisons with the baseline of that metric, as PyTerrier
  corrects each measure's column), the number of topics on which the run
  scores higher / lower than the baseline (PyTerrier's ``+`` / ``-``) and a
  mark: ▲ for a significant gain, ▼ for a significant loss (adjusted p <
  alpha, direction by the mean difference).
* **all pairs** (``baseline=None``; ranx's ``compare(...)``): every run gets a
  letter (a, b, ..., z, A, ..., Z, then numbers 53, 54, ...), and a cell
  carries the letters of the runs that run is significantly better than
  (adjusted p < alpha and a higher mean). The family: all n_runs (n_runs - 1) / 2
  pairs of one metric (Carterette 2012, Sec. 3-4; ranx itself does not correct).

Tests (:data:`TESTS`): those of :func:`evalcore.meta.pair_statistics` - paired
t, Wilcoxon signed-rank, sign, paired randomisation, paired bootstrap (all
two-sided). Corrections (:data:`CORRECTIONS`): none; Bonferroni
(min(1, m p)); Holm step-down and Benjamini-Hochberg step-up
(:func:`evalcore.meta.adjust_pvalues`; Carterette 2012 Sec. 3.2-3.3).

Choices (documented, tested):

* The means and every test run over the same topics: with a
  :class:`~evalcore.Collection` those of the topic policy, exactly as
  :func:`evalcore.evaluate` picks them (``topics="trec_eval"`` or
  ``"ntcireval"``, None = per metric by its name). Score matrices with a NaN
  are refused: a paired test and a mean over different topic sets would not
  describe the same comparison.
* Ties by value, not by bits (:data:`evalcore.meta.pairs.TIE_RULE`): a
  per-topic difference within :data:`evalcore.meta.pairs.ZERO_RTOL` (1e-13)
  times the largest |score| of the metric is a tie in every test
  (:func:`evalcore.meta.pair_statistics`), in the +/- topic counts and in the
  marks (a mean difference that small names no winner); two differences within
  it of each other are one value for the Wilcoxon test's ranks (P@5's 0.6 - 0.4
  and 0.4 - 0.2). The legend says so, and the CSV carries ``tie_rtol``.
* "Best" (bold) is the highest mean *as printed* (``digits``): every run whose
  rounded mean equals the rounded maximum is bold. Every evalcore measure is
  higher-is-better.
* The effect size (mean difference / sqrt(V_E), V_E the two-way ANOVA residual
  over *all* runs compared; Sakai 2014) and the CI (level ``confidence``,
  default 1 - alpha, so that in baseline mode an unadjusted CI excludes 0
  exactly when the unadjusted t-test p < alpha) are one option away:
  ``to_dataframe(details=True)``, ``to_markdown(details=True)``, ...
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from ._atomic import write_text
from .texfmt import format_p, md_escape, tex_escape

__all__ = ["compare", "CompareResult", "TESTS", "CORRECTIONS", "FORMATS", "adjust"]

#: the tests :func:`compare` runs (those of :func:`evalcore.meta.pair_statistics`)
TESTS = ("t", "wilcoxon", "sign", "randomisation", "bootstrap")
#: p-value corrections over the family of one metric
CORRECTIONS = ("none", "bonferroni", "holm", "bh")
#: writers of :meth:`CompareResult.write` (the CLI's ``--format``)
FORMATS = ("md", "csv", "tsv", "latex")

TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
              "randomisation": "paired randomisation test", "bootstrap": "paired bootstrap test"}
CORRECTION_NAMES = {"none": "no correction", "bonferroni": "Bonferroni", "holm": "Holm",
                    "bh": "Benjamini-Hochberg"}
POLICY_NAMES = {"trec_eval": "trec_eval's topics: every qrels topic, one without a relevant document scoring 0",
                "ntcireval": "NTCIREVAL's topics: those with a relevant document",
                None: "the topics of the scores given"}
_SHORT = {"bonferroni": "Bonferroni", "holm": "Holm", "bh": "BH"}
GAIN, LOSS = "\u25b2", "\u25bc"          # ▲ ▼
_LATEX_MARK = {GAIN: r"$^{\blacktriangle}$", LOSS: r"$^{\blacktriangledown}$"}
_DETAIL_COLUMNS = ["ci_low", "ci_high", "effect_size", "d_z"]
_MEAN_TOPIC = "all"   # evalcore.registry.MEAN_TOPIC: the mean rows of evaluate()'s table


def adjust(p, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family (1-D): ``none``, ``bonferroni`` (min(1, m p)), ``holm`` or ``bh``
    (:func:`evalcore.meta.adjust_pvalues`). NaN p-values are not part of the family and stay NaN.

    >>> adjust([0.01, 0.04, 0.03, 0.005], "bonferroni").round(4).tolist()
    [0.04, 0.16, 0.12, 0.02]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}; got {method!r}")
    p = np.asarray(p, dtype=np.float64)
    if method != "bonferroni":
        from .meta.pairs import adjust_pvalues

        return adjust_pvalues(p, method)
    if p.ndim != 1:
        raise ValueError(f"p must be 1-D (one family); got shape {p.shape}")
    ok = ~np.isnan(p)
    out = p.copy()
    out[ok] = np.minimum(1.0, p[ok] * int(ok.sum()))
    return out


# -- input -------------------------------------------------------------------------------------
def _as_list(metrics) -> list[str] | None:
    if metrics is None:
        return None
    if isinstance(metrics, str):
        return [metrics]
    out = list(metrics)
    if not out:
        raise ValueError("metrics is empty; name at least one metric, e.g. ['AP', 'nDCG@10']")
    return out


def _from_tidy(df: pd.DataFrame, metrics, what: str) -> tuple[list[str], dict, dict]:
    """(runs, {metric: matrix}, {metric: {policy, n_topics}}) from a tidy run/topic/metric/value table."""
    missing = [c for c in ("run", "topic", "metric", "value") if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs the columns run, topic, metric, value (as evaluate(..., per_topic=True) "
                         f"gives); it lacks {', '.join(missing)}")
    per = df[df["topic"].astype(str) != _MEAN_TOPIC]
    have = list(dict.fromkeys(per["metric"]))
    chosen = have if metrics is None else metrics
    unknown = [m for m in chosen if m not in have]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r} for {what}; it has per-topic scores of: {', '.join(have)}")
    if not chosen:
        raise ValueError(f"{what} holds no per-topic scores (rows with a topic other than 'all'); evaluate with "
                         "per_topic=True")
    runs = [str(r) for r in dict.fromkeys(per["run"])]
    stated = df.attrs.get("topics") or {}
    mats, topics = {}, {}
    for m in chosen:
        part = per[per["metric"] == m]
        if part.duplicated(["run", "topic"]).any():
            r, t = part[part.duplicated(["run", "topic"])][["run", "topic"]].iloc[0]
            raise ValueError(f"{what}: metric {m!r} has two scores for run {r!r} on topic {t!r}")
        wide = part.pivot(index="run", columns="topic", values="value")
        wide.index = wide.index.astype(str)
        wide = wide.reindex(index=runs, columns=list(dict.fromkeys(part["topic"])))
        mats[m] = wide.to_numpy(dtype=np.float64)
        info = stated.get(m) or {}
        topics[m] = {"policy": info.get("policy"), "n_topics": int(mats[m].shape[1])}
    return runs, mats, topics


def _scores(data, metrics, run_ids, topics, params) -> tuple[list[str], dict, dict, dict]:
    """(runs, {metric: matrix}, {metric: {policy, n_topics}}, the conventions of the scores:
    :func:`evalcore.legend.meta` of evaluate's attrs, ``{}`` for score matrices, whose conventions are not
    known here)."""
    from .collection import Collection
    from .legend import meta

    metrics = _as_list(metrics)
    if isinstance(data, Collection):
        if metrics is None:
            raise ValueError("name the metrics to compare, e.g. compare(c, ['AP', 'nDCG@10']) "
                             "(`evalcore metrics` lists every name)")
        from .registry import evaluate

        df = evaluate(data, metrics, per_topic=True, topics=topics, **params)
        return (*_from_tidy(df, None, f"collection {data.name!r}"), meta(df.attrs))
    if params:
        raise ValueError(f"{', '.join(sorted(params))}: metric settings apply only when scoring a Collection; "
                         "these scores are already computed")
    if isinstance(data, pd.DataFrame):
        runs, mats, tp = _from_tidy(data, metrics, "the score table")
        if topics is not None:
            tp = {m: {**v, "policy": topics} for m, v in tp.items()}
        return runs, mats, tp, (meta(data.attrs) if data.attrs.get("order") else {})
    if isinstance(data, Mapping):
        have = [str(k) for k in data]
        chosen = have if metrics is None else metrics
        unknown = [m for m in chosen if m not in have]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; the scores given hold: {', '.join(have)}")
        keyed = {str(k): v for k, v in data.items()}
        mats = {}
        for m in chosen:
            v = keyed[m]
            if isinstance(v, pd.DataFrame):
                if run_ids is None:
                    run_ids = [str(r) for r in v.index]
                v = v.to_numpy()
            a = np.asarray(v, dtype=np.float64)
            if a.ndim != 2:
                raise ValueError(f"scores of {m!r} must be a (n_runs, n_topics) matrix; got shape {a.shape}")
            mats[m] = a
        if run_ids is None:
            raise ValueError("run_ids is needed with score matrices: the names of the runs, in row order "
                             "(the table shows them; rows are never called 0, 1, ...)")
        runs = [str(r) for r in run_ids]
        tp = {m: {"policy": topics, "n_topics": int(a.shape[1])} for m, a in mats.items()}
        return runs, mats, tp, {}
    raise TypeError(f"compare takes a Collection, a tidy DataFrame (run, topic, metric, value) or "
                    f"{{metric: (n_runs, n_topics) matrix}}; got {type(data).__name__}")


def _check_matrices(runs: list[str], mats: dict) -> None:
    if len(runs) < 2:
        raise ValueError(f"compare needs at least two runs; got {len(runs)}")
    dup = [r for r in dict.fromkeys(runs) if runs.count(r) > 1]
    if dup:
        raise ValueError(f"run names must be unique; {dup[0]!r} appears {runs.count(dup[0])} times")
    for m, a in mats.items():
        if a.shape[0] != len(runs):
            raise ValueError(f"scores of {m!r} have {a.shape[0]} rows for {len(runs)} runs")
        if a.shape[1] < 2:
            raise ValueError(f"scores of {m!r} cover {a.shape[1]} topic(s); a paired test needs at least 2")
        bad = ~np.isfinite(a)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"scores of {m!r}: run {runs[i]!r} has no finite score on {int(bad[i].sum())} "
                             f"topic(s) (topic column {j}); compare needs every run scored on the same topics - "
                             "score missing topics 0 (trec_eval -c) or drop them")


def _letters(n: int) -> list[str]:
    """Labels of n runs: a..z, A..Z, then 53, 54, ... (written comma-separated once numbers appear)."""
    alphabet = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    return [alphabet[i] if i < len(alphabet) else str(i + 1) for i in range(n)]


# -- main entry point -----------------------------------------------------------------------
def compare(data, metrics=None, *, baseline: str | None = None, test: str = "t", correction: str = "holm",
            alpha: float = 0.05, run_ids: Sequence[str] | None = None, topics: str | None = None,
            confidence: float | None = None, B: int = 1000, seed: int | None = 0, pairs=None,
            labels: Mapping[str, str] | None = None, **params) -> CompareResult:
    """Runs x metrics: means with significance marks, as one table for a paper.

    Parameters
    ----------
    data : a :class:`~evalcore.Collection` (scored with :func:`evalcore.evaluate`, ``per_topic=True``,
        under ``topics`` and ``params``), a tidy DataFrame with columns run, topic, metric, value (e.g.
        ``evaluate(c, [...], per_topic=True)``; rows with topic "all" are ignored), or
        ``{metric: (n_runs, n_topics) matrix}`` with ``run_ids`` (a DataFrame matrix brings its index)
    metrics : metric names, in column order (default: every metric of the scores given; a Collection
        needs them named)
    baseline : a run name: every run is tested against it (PyTerrier's layout); None: every pair,
        with ranx-style letters
    test : one of :data:`TESTS` (default "t"); correction : one of :data:`CORRECTIONS` (default
        "holm"); alpha : significance level of the adjusted p-values
    run_ids : names of the matrices' rows (score matrices only)
    topics : "trec_eval", "ntcireval" or None: the topic policy of :func:`evalcore.evaluate` (a
        Collection), or the policy the given scores were computed under (stated in the legend only)
    confidence : level of the CIs (default 1 - alpha)
    B, seed : samples / sign flips of the resampled tests (randomisation, bootstrap)
    labels : {metric: display label}: your own label of a metric, used by every writer (md, latex, the CSV's
        ``metric_label`` column) and the legend; default :func:`evalcore.registry.display_label`
    pairs : a :class:`evalcore.meta.PairsResult` of these very scores (same run names and metrics, with
        ``test`` computed), reused instead of recomputing - e.g. the dashboard's pair table
    params : metric settings for a Collection (gains, beta, penalties, rel_threshold, log_base,
        cutoffs, names), as :func:`evalcore.evaluate` takes them

    >>> import numpy as np
    >>> s = {"AP": np.array([[0.2, 0.3, 0.4, 0.5, 0.6], [0.1, 0.2, 0.3, 0.4, 0.5], [0.1, 0.35, 0.4, 0.4, 0.6]])}
    >>> r = compare(s, run_ids=["A", "B", "C"], baseline="B", correction="none")
    >>> r.to_dataframe()[["run", "mean", "better", "worse", "mark"]].values.tolist()
    [['A', 0.4, 5, 0, '▲'], ['B', 0.3, <NA>, <NA>, ''], ['C', 0.37, 3, 0, '']]
    """
    conf = _check_settings(test, correction, alpha, confidence, topics)
    runs, mats, topic_info, conv = _scores(data, metrics, run_ids, topics, params)
    _check_matrices(runs, mats)
    baseline = _check_baseline(baseline, runs)
    if pairs is None:
        records, B, used_seed = _tested_pairs(mats, runs, test, conf, B, seed)
    else:
        conf = float(getattr(pairs, "confidence", conf))
        records = _pair_records(pairs, test, runs, list(mats))
        B, used_seed = getattr(pairs, "B", B), getattr(pairs, "seed", seed)
    build = _baseline_table if baseline is not None else _pairs_table
    table, fam, pair_table = build(mats, runs, records, baseline, correction, alpha)
    table["n_topics"] = table["metric"].map({m: v["n_topics"] for m, v in topic_info.items()}).astype(np.int64)
    table["topic_policy"] = table["metric"].map({m: v["policy"] for m, v in topic_info.items()})
    resampled = test in ("randomisation", "bootstrap")
    return CompareResult(table=table, pairs=pair_table, runs=tuple(runs), metrics=tuple(mats), baseline=baseline,
                         test=test, correction=correction, alpha=float(alpha), confidence=float(conf),
                         topics={m: dict(v) for m, v in topic_info.items()}, family_size=fam,
                         B=int(B) if resampled else None, seed=used_seed if resampled else None,
                         labels=dict(zip(runs, _letters(len(runs)), strict=True)) if baseline is None else {},
                         conventions=_kept(conv, list(mats)), names=params.get("names"),
                         metric_labels=_checked_labels(labels, list(mats)))


def _checked_labels(labels, metrics: list[str]) -> dict[str, str]:
    """``labels`` as {metric: text}; a key that names no compared metric is an error listing them."""
    labels = {str(k): str(v) for k, v in dict(labels or {}).items()}
    unknown = sorted(set(labels) - set(metrics))
    if unknown:
        raise ValueError(f"labels name metrics that are not compared: {', '.join(unknown)}; the metrics are "
                         f"{', '.join(metrics)}")
    return labels


def _kept(conv: dict, metrics: list[str]) -> dict:
    """The conventions of the compared metrics only (a tidy table may hold more)."""
    return {k: ({m: x for m, x in v.items() if m in metrics} if isinstance(v, dict) else v) for k, v in conv.items()}


def _check_settings(test: str, correction: str, alpha: float, confidence: float | None, topics: str | None
                    ) -> float:
    """:func:`compare`'s settings checked, in the order of its signature; returns the CI level (default
    1 - alpha)."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1); got {alpha!r}")
    conf = 1 - float(alpha) if confidence is None else confidence
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 < conf < 1:
        raise ValueError(f"confidence must be a number in (0, 1); got {confidence!r}")
    if topics is not None and topics not in POLICY_NAMES:
        raise ValueError(f"topics must be one of trec_eval, ntcireval or None; got {topics!r}")
    return conf


def _check_baseline(baseline, runs: list[str]) -> str | None:
    """The baseline as a run name (None: all-pairs mode); an unknown name is an error listing the runs."""
    if baseline is not None and str(baseline) not in runs:
        shown = ", ".join(runs[:30]) + (f", ... ({len(runs)} runs)" if len(runs) > 30 else "")
        raise ValueError(f"unknown baseline {baseline!r}; the runs are: {shown}")
    return None if baseline is None else str(baseline)


def _tested_pairs(mats: dict, runs: list[str], test: str, conf: float, B: int, seed: int | None
                  ) -> tuple[pd.DataFrame, int, object]:
    """Every run pair of every metric tested (:func:`evalcore.meta.pair_statistics`): (records, B, seed)."""
    from .meta.pairs import pair_statistics

    # one call per topic count: under the auto policy, map (trec_eval's topics) and AP (NTCIREVAL's)
    # of one collection cover different topics. The same seed gives each call the same samples.
    groups: dict[int, dict] = {}
    for m, a in mats.items():
        groups.setdefault(a.shape[1], {})[m] = a
    results = [pair_statistics(g, run_ids=runs, confidence=conf, tests=(test,), B=B, seed=seed)
               for g in groups.values()]
    records = pd.concat([_pair_records(r, test, runs, list(g))
                         for r, g in zip(results, groups.values(), strict=True)],
                        ignore_index=True)
    return records, results[0].B, results[0].seed


def _pair_records(pairs, test: str, runs: list[str], metrics: list[str]) -> pd.DataFrame:
    """The pair rows of ``metrics`` with ``p`` = the chosen test's p-value, checked against the runs."""
    df = getattr(pairs, "pairs", None)
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"pairs must be an evalcore.meta.PairsResult; got {type(pairs).__name__}")
    col = "p_" + test
    if col not in df.columns or df[col].isna().all():
        raise ValueError(f"pairs does not hold the {test!r} test (computed: {', '.join(getattr(pairs, 'tests', ()))})")
    df = df[df["metric"].isin(metrics)]
    want = len(runs) * (len(runs) - 1) // 2 * len(metrics)
    names = set(runs)
    if len(df) != want or not (set(df["run_x"]) | set(df["run_y"])) <= names:
        raise ValueError("pairs does not match these scores: it must hold every pair of the runs "
                         f"{', '.join(runs[:5])}{', ...' if len(runs) > 5 else ''} for the metrics "
                         f"{', '.join(metrics)} (compute it from the same scores and run_ids)")
    return df.rename(columns={col: "p"})[["metric", "run_x", "run_y", "mean_diff", "ci_low", "ci_high",
                                           "effect_size", "d_z", "p", "n_topics"]].reset_index(drop=True)


def _baseline_table(mats, runs, records, baseline, correction, alpha):
    from .meta.pairs import zero_tolerance

    b = runs.index(baseline)
    pos = {r: k for k, r in enumerate(runs)}
    n = len(runs)
    frames = []
    for m, M in mats.items():
        rec = records[records["metric"].to_numpy() == m]
        x, y = rec["run_x"].to_numpy(), rec["run_y"].to_numpy()
        vs = (x == baseline) | (y == baseline)
        flip = x[vs] == baseline                    # row (baseline, run): negate to read run - baseline
        other = np.array([pos[r] for r in np.where(flip, y[vs], x[vs])], dtype=np.intp)
        sgn = np.where(flip, -1.0, 1.0)
        col = {c: np.full(n, np.nan) for c in ("p_value", "ci_low", "ci_high", "effect_size", "d_z")}
        col["p_value"][other] = rec["p"].to_numpy()[vs]
        lo, hi = rec["ci_low"].to_numpy()[vs], rec["ci_high"].to_numpy()[vs]
        col["ci_low"][other] = np.where(flip, -hi, lo)
        col["ci_high"][other] = np.where(flip, -lo, hi)
        col["effect_size"][other] = sgn * rec["effect_size"].to_numpy()[vs]
        col["d_z"][other] = sgn * rec["d_z"].to_numpy()[vs]
        keep = np.arange(n) != b
        p_adj = np.full(n, np.nan)
        p_adj[keep] = adjust(col["p_value"][keep], correction)   # the family: the n - 1 runs, in run order
        means = M.mean(axis=1)
        diff = means - means[b]
        sig = keep & (p_adj < alpha)
        tol = zero_tolerance(M)          # a difference within rounding of 0 is a tie (as in the tests)
        better = pd.array(np.sum(M - M[b] > tol, axis=1), dtype="Int64")
        worse = pd.array(np.sum(M - M[b] < -tol, axis=1), dtype="Int64")
        better[b] = worse[b] = pd.NA
        frames.append(pd.DataFrame({
            "run": runs, "metric": m, "is_baseline": ~keep, "mean": means, "diff": diff,
            "p_value": col["p_value"], "p_adjusted": p_adj, "significant": sig,
            "mark": np.where(sig & (diff > tol), GAIN, np.where(sig & (diff < -tol), LOSS, "")),
            "better": better, "worse": worse, **{c: col[c] for c in _DETAIL_COLUMNS}}))
    t = _with_best(pd.concat(frames, ignore_index=True))
    return t, len(runs) - 1, None


def _pairs_table(mats, runs, records, baseline, correction, alpha):
    from .meta.pairs import zero_tolerance

    lab = dict(zip(runs, _letters(len(runs)), strict=True))
    rows, frames = [], []
    for m, M in mats.items():
        rec = records[records["metric"] == m].copy()
        rec["p_adjusted"] = adjust(rec["p"].to_numpy(), correction)
        rec["significant"] = rec["p_adjusted"].to_numpy() < alpha
        frames.append(rec)
        beats: dict[str, list[str]] = {r: [] for r in runs}
        beaten: dict[str, int] = {r: 0 for r in runs}
        tol = zero_tolerance(M)          # a mean difference within rounding of 0 names no winner
        for x, y, d, sig in rec[["run_x", "run_y", "mean_diff", "significant"]].itertuples(index=False, name=None):
            if sig and abs(d) > tol:
                win, lose = (x, y) if d > 0 else (y, x)
                beats[win].append(lose)
                beaten[lose] += 1
        means = M.mean(axis=1)
        for i, r in enumerate(runs):
            won = sorted(beats[r], key=runs.index)
            rows.append({"run": r, "metric": m, "label": lab[r], "mean": float(means[i]),
                         "better_than": [lab[w] for w in won], "n_better_than": len(won),
                         "n_worse_than": beaten[r]})
    t = _with_best(pd.DataFrame(rows))
    pair_table = pd.concat(frames, ignore_index=True).rename(columns={"p": "p_value"})
    return t, len(runs) * (len(runs) - 1) // 2, pair_table


def _with_best(t: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    t["best"] = False
    for _, idx in t.groupby("metric", sort=False).indices.items():
        r = np.round(t["mean"].to_numpy()[idx], digits)
        t.loc[t.index[idx], "best"] = r == r.max()
    return t


# -- result -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CompareResult:
    """Result of :func:`compare`.

    Attributes
    ----------
    table : tidy DataFrame, one row per (run, metric), runs in data order within each metric:
        ``run, metric, mean, best`` (the highest mean at 4 decimals; the writers bold the highest at
        their ``digits``), ``n_topics, topic_policy`` and
        baseline mode: ``is_baseline, diff`` (mean - baseline mean), ``p_value, p_adjusted, significant,
        mark`` (▲ significant gain, ▼ significant loss, "" otherwise), ``better, worse`` (topics above /
        below the baseline; NA on the baseline's row), ``ci_low, ci_high, effect_size, d_z`` (of run -
        baseline); all-pairs mode: ``label`` (the run's letter), ``better_than`` (letters of the runs it
        is significantly better than), ``n_better_than, n_worse_than``
    pairs : all-pairs mode: every pair (``metric, run_x, run_y, mean_diff, ci_low, ci_high, effect_size,
        d_z, p_value, n_topics, p_adjusted, significant``); None in baseline mode
    runs, metrics, baseline, test, correction, alpha, confidence : what was compared and how
    topics : {metric: {"policy": "trec_eval" | "ntcireval" | None, "n_topics": N}}
    family_size : comparisons per metric the correction runs over
    B, seed : of a resampled test (None otherwise)
    labels : {run: letter} (all-pairs mode)
    names : the naming convention the metric names were read in (``names=``; None: each by itself)
    metric_labels : {metric: label} given to :func:`compare` (``labels=``): the user's labels, which win in
        every writer and the legend
    conventions : what shaped the scores (:func:`evalcore.legend.meta`: gains with their levels, relevance
        threshold, depth, ranking order and ties, condensed lists, mean), from the collection or the tidy
        table scored; empty for score matrices given as such. Every writer states it.
    """
    table: pd.DataFrame
    pairs: pd.DataFrame | None
    runs: tuple
    metrics: tuple
    baseline: str | None
    test: str
    correction: str
    alpha: float
    confidence: float
    topics: dict
    family_size: int
    B: int | None = None
    seed: object = None
    labels: dict = field(default_factory=dict)
    conventions: dict = field(default_factory=dict)
    names: str | None = None
    metric_labels: dict = field(default_factory=dict)

    # -- data ----------------------------------------------------------------------------
    def to_dataframe(self, details: bool = False, wide: bool = False) -> pd.DataFrame:
        """The tidy table (a copy); ``details=True`` keeps the CI and effect-size columns (baseline
        mode). ``wide=True``: index = run, columns = (metric, field), PyTerrier's layout."""
        t = self.table.copy()
        if not details:
            t = t.drop(columns=[c for c in _DETAIL_COLUMNS if c in t.columns])
        if "better_than" in t.columns:
            t["better_than"] = ["".join(v) if all(len(x) == 1 for x in v) else ",".join(v)
                                for v in t["better_than"]]
        if not wide:
            return t
        fields = [c for c in t.columns if c not in ("run", "metric", "n_topics", "topic_policy")]
        w = t.pivot(index="run", columns="metric", values=fields)
        w = w.reindex(index=list(self.runs))
        w = w.swaplevel(0, 1, axis=1)
        return w.reindex(columns=pd.MultiIndex.from_product([list(self.metrics), fields]))

    # -- legend ------------------------------------------------------------------------
    def topics_statement(self) -> str:
        """How many topics every mean and test ran over, and which (the topic policy)."""
        kinds = {(v["policy"], v["n_topics"]) for v in self.topics.values()}
        if len(kinds) == 1:
            policy, n = next(iter(kinds))
            return f"{n} topics ({POLICY_NAMES[policy]})"
        return "; ".join(f"{m}: {v['n_topics']} topics ({v['policy'] or 'as given'})" for m, v in self.topics.items())

    def legend(self, labels: Mapping[str, str] | None = None, *, compact: bool = False) -> str:
        """One paragraph: the test, the correction and its family, alpha, the marks, the topics, and what shaped
        the scores (:attr:`conventions`: gains with their levels, threshold, depth, ranking order, mean),
        naming the metrics by :meth:`display_labels` (``labels``: your own). ``compact``: the legend of a table
        with the mean column alone (:meth:`to_latex`'s default), which names no p or +/- column."""
        test = TEST_NAMES[self.test]
        if self.B is not None:
            test += f" (B = {self.B}, seed {self.seed})"
        name = CORRECTION_NAMES[self.correction]
        what = "comparisons" if self.baseline is not None else "pairs"
        corr = (f"no correction for the {self.family_size} {what} per metric" if self.correction == "none" else
                f"{name} correction over the {self.family_size} {what} per metric")
        p_is = "p-value" if self.correction == "none" else f"{name}-adjusted p-value"
        if self.baseline is not None:
            head = (f"{test[0].upper()}{test[1:]} of every run against the baseline {self.baseline}, {corr}, "
                    f"alpha = {self.alpha:g}: {GAIN} significant gain, {LOSS} significant loss over the baseline "
                    f"({p_is} < alpha)" + ("" if compact else f"; p = {p_is}; +/- = topics on which the run scores "
                                                              "higher / lower than the baseline"))
        else:
            head = (f"{test[0].upper()}{test[1:]} between every two runs, {corr}, alpha = {self.alpha:g}: the "
                    f"superscript letters name the runs a run is significantly better than ({p_is} < alpha, higher "
                    "mean)")
        from .legend import sentence
        from .meta.pairs import ZERO_RTOL
        from .registry import label_note

        shown = self.display_labels(labels)
        settings = sentence(self.conventions, self.metrics, shown, topics=False) if self.conventions else \
            "Scores given as matrices: their gains, threshold, depth and ranking order are not known here."
        notes = []
        for m in self.metrics:
            try:
                note = "" if m in self.metric_labels or (labels and m in labels) else label_note(m, self.names)
            except (KeyError, ValueError):
                note = ""
            notes.append(note)
        measures = "; ".join(n for n in notes if n)
        return (f"{head}; per-topic differences within {ZERO_RTOL:g} x the largest |score| of 0 or of each other "
                f"are ties; best mean per metric in bold. Means over {self.topics_statement()}. {settings}"
                + (f" Measures: {measures}." if measures else ""))

    # -- display tables ---------------------------------------------------------------------
    def display_labels(self, labels: Mapping[str, str] | None = None) -> dict[str, str]:
        """The column label of every metric: ``labels[metric]`` where given (or the ``labels`` :func:`compare`
        was given), else :func:`evalcore.registry.display_label` of the name under the call's ``names``
        (``ndcg_cut_10`` -> ``MSnDCG@10``, ``map`` -> ``AP``, ``P_10`` -> ``P@10``, an ir_measures object its own
        name; a label two conventions read differently with its variant: ``nDCG@10 (JK)``, ``nDCG@10
        (trec_eval)``), else the name as given (a score matrix's own key)."""
        from .registry import display_label

        labels = {**self.metric_labels, **dict(labels or {})}
        unknown = sorted(set(labels) - set(self.metrics))
        if unknown:
            raise ValueError(f"labels name metrics that are not in the table: {', '.join(unknown)}; the table's "
                             f"metrics are {', '.join(self.metrics)}")
        out = {}
        for m in self.metrics:
            if m in labels:
                out[m] = str(labels[m])
                continue
            try:
                out[m] = display_label(m, self.names)
            except (KeyError, ValueError):
                out[m] = str(m)
        return out

    def _grid(self, fmt: str, digits: int, details: bool, compact: bool = False
              ) -> tuple[list[str], list[tuple[str, list[str]]], list[list[str]]]:
        """(leading headers, [(metric, sub-headers)], body rows) for Markdown (fmt "md") or LaTeX; ``compact``:
        one column per metric (the mean with its mark)."""
        esc = tex_escape if fmt == "latex" else md_escape
        t = self.table
        by = {(r, m): row for r, m, row in zip(t["run"], t["metric"], t.to_dict("records"), strict=True)}
        top = {m: np.round(g["mean"].to_numpy(), digits).max() for m, g in t.groupby("metric", sort=False)}
        base_mode = self.baseline is not None
        lead = ["run"] if base_mode else ["", "run"]
        p_head = "p" if self.correction == "none" else f"p ({_SHORT[self.correction]})"
        subs = (["mean", p_head, "+/-"] + (["effect size", f"{self.confidence:.0%} CI"] if details else [])
                if base_mode and not compact else ["mean"])
        groups = [(m, subs) for m in self.metrics]
        body = []
        for r in self.runs:
            name = esc(r) + (" (baseline)" if r == self.baseline else "")
            row = [name] if base_mode else [self.labels[r], name]
            for m in self.metrics:
                x = by[(r, m)]
                v = _mean_cell(x["mean"], digits, top[m], fmt)
                if base_mode:
                    row += _baseline_cells(x, v, fmt, digits, details)[:1 if compact else None]
                else:
                    row.append(_letters_cell(x, v, fmt))
            body.append(row)
        return lead, groups, body

    def to_markdown(self, path: str | os.PathLike | None = None, *, digits: int = 4, details: bool = False,
                    labels: Mapping[str, str] | None = None) -> str:
        """A Markdown (GitHub) table, then the legend as a paragraph. In baseline mode each metric has the
        columns mean (with ▲/▼), p (adjusted; ``< 0.001``, else three significant digits) and +/-;
        ``details`` adds effect size and CI. In all-pairs mode the letters are ``<sup>`` superscripts.
        Metric columns are headed by :meth:`display_labels` (``labels``: your own); run names are escaped
        for Markdown."""
        lead, groups, body = self._grid("md", _digits(digits), details)
        shown = self.display_labels(labels)
        head = lead + [(md_escape(shown[m]) if s == "mean" else f"{md_escape(shown[m])} {s}")
                       for m, subs in groups for s in subs]
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join([":---"] * len(lead) + ["---:"] * (len(head) - len(lead))) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        text = "\n".join(lines) + "\n\n" + md_escape(self.legend(labels)) + "\n"
        return _written(text, path)

    def to_latex(self, path: str | os.PathLike | None = None, *, digits: int = 4, details: bool = False,
                 compact: bool | None = None, labels: Mapping[str, str] | None = None,
                 environment: bool = False, label: str | None = None) -> str:
        r"""A booktabs ``tabular`` (``\toprule``, ``\midrule``, ``\bottomrule``) to paste into a paper.

        Compact by default: one column per metric, headed by :meth:`display_labels` (``nDCG@10``,
        ``AP``, or ``labels``, your own), each cell the mean with its significance as a superscript
        (baseline mode ``$^{\blacktriangle}$`` / ``$^{\blacktriangledown}$``, needing amssymb; all-pairs
        mode the letters of the runs it beats, ``$^{bc}$``); the best mean per metric in ``\textbf``.
        ``details=True`` (baseline mode) adds the adjusted p (``< 0.001``, else three significant digits),
        the +/- topic counts, the effect size and the CI under each metric; ``compact=False`` the p and
        +/- columns alone. Run names and labels escaped (:func:`evalcore.texfmt.tex_escape`), the legend
        as a ``%`` comment above. ``environment=True`` wraps it in a ``table`` float with the legend as
        its ``\caption`` (and ``\label{label}``). Preamble: ``\usepackage{booktabs,amssymb}``."""
        if compact is None:
            compact = not details
        if compact and details:
            raise ValueError("compact=True shows one column per metric; details=True adds the effect size and "
                             "CI columns: ask for one of them")
        lead, groups, body = self._grid("latex", _digits(digits), details, compact)
        shown = self.display_labels(labels)
        k = len(groups[0][1])
        spec = "l" * len(lead) + "".join("r" * len(s) for _, s in groups)
        leg = tex_escape(self.legend(labels, compact=compact)).replace(GAIN, r"$\blacktriangle$").replace(
            LOSS, r"$\blacktriangledown$")
        out = [f"% {leg}"] if not environment else [r"\begin{table}", r"\centering",
                                                    rf"\caption{{{leg}}}"] + ([rf"\label{{{label}}}"] if label else [])
        out += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
        if k == 1:
            out.append(" & ".join([tex_escape(h) for h in lead] + [tex_escape(shown[m]) for m, _ in groups]) + r" \\")
        else:
            top = [""] * len(lead) + [rf"\multicolumn{{{k}}}{{c}}{{{tex_escape(shown[m])}}}" for m, _ in groups]
            out.append(" & ".join(top) + r" \\")
            start = len(lead) + 1
            out.append(" ".join(rf"\cmidrule(lr){{{start + i * k}-{start + i * k + k - 1}}}"
                                for i in range(len(groups))))
            out.append(" & ".join([tex_escape(h) for h in lead]
                                  + [tex_escape(s) for _, subs in groups for s in subs]) + r" \\")
        out.append(r"\midrule")
        out += [" & ".join(row) + r" \\" for row in body]
        out += [r"\bottomrule", r"\end{tabular}"]
        if environment:
            out.append(r"\end{table}")
        return _written("\n".join(out) + "\n", path)

    def to_csv(self, path: str | os.PathLike | None = None, *, sep: str = ",", details: bool = True,
               labels: Mapping[str, str] | None = None) -> str:
        """The tidy table as CSV (``sep="\\t"``: TSV) with the ``metric_label`` (:meth:`display_labels`;
        ``labels``: your own) and the settings as columns (test, correction,
        alpha, baseline, ``tie_rtol``: the relative tolerance of :data:`evalcore.meta.pairs.TIE_RULE`; and from
        :attr:`conventions`, per metric, ``gains`` and ``penalties`` with their levels, ``rel_threshold``,
        ``mean_of_topics`` (arithmetic, geometric, sum), and ``order``, ``depth`` (``all``: whole lists),
        ``condensed``; empty where the scores were given as matrices), so that the file states what it holds;
        numbers with 12 significant digits, letters joined (``bc``), NA/NaN as empty fields."""
        t = self.to_dataframe(details=details)
        shown = self.display_labels(labels)
        t.insert(2, "metric_label", [shown[m] for m in t["metric"]])
        t.insert(3, "test", self.test)
        t.insert(4, "correction", self.correction)
        t.insert(5, "alpha", self.alpha)
        if self.baseline is not None:
            t.insert(6, "baseline", self.baseline)
        if self.B is not None:
            t["B"], t["seed"] = self.B, cast(Any, self.seed)   # (an int or None; typed ``object``)
        from .meta.pairs import ZERO_RTOL

        t["tie_rtol"] = ZERO_RTOL
        for col, key, blank in (("gains", "gains", ""), ("penalties", "penalties", ""),
                                ("rel_threshold", "rel_threshold", ""), ("mean_of_topics", "mean", "arithmetic")):
            per = self.conventions.get(key) or {}
            t[col] = [per.get(m, blank if self.conventions else "") for m in t["metric"]]
        conv = self.conventions
        t["order"] = conv.get("order") or ""
        t["depth"] = ("all" if conv.get("depth") is None else conv["depth"]) if conv else ""
        t["condensed"] = ("yes" if conv.get("condensed") else "no") if conv else ""
        text = t.to_csv(sep=sep, index=False, float_format="%.12g", lineterminator="\n")
        return _written(text, path)

    def write(self, fmt: str, path: str | os.PathLike | None = None, **options) -> str:
        """``md``, ``csv``, ``tsv`` or ``latex`` (:data:`FORMATS`): the text, also written to ``path``
        atomically when given."""
        if fmt == "md":
            return self.to_markdown(path, **options)
        if fmt == "latex":
            return self.to_latex(path, **options)
        if fmt in ("csv", "tsv"):
            return self.to_csv(path, sep="," if fmt == "csv" else "\t", **options)
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def _mean_cell(mean: float, digits: int, best: float, fmt: str) -> str:
    """A mean with ``digits`` decimals, in bold when it rounds to the metric's best mean ``best``."""
    v = f"{mean:.{digits}f}"
    if round(mean, digits) != best:
        return v
    return rf"\textbf{{{v}}}" if fmt == "latex" else f"**{v}**"


def _baseline_cells(x: dict, v: str, fmt: str, digits: int, details: bool) -> list[str]:
    """Baseline mode: one run's cells under one metric (mean ``v`` with its mark, adjusted p, +/-, and with
    ``details`` effect size and CI); dashes for the baseline itself."""
    mk = x["mark"]
    v += (_LATEX_MARK[mk] if fmt == "latex" else mk) if mk else ""
    if x["is_baseline"]:
        return [v, "-", "-"] + (["-", "-"] if details else [])
    cells = [v, format_p(x["p_adjusted"], "latex" if fmt == "latex" else "text"), f"{x['better']}/{x['worse']}"]
    if details:
        es = f"{x['effect_size']:.2f}"
        ci = f"[{x['ci_low']:.{digits}f}, {x['ci_high']:.{digits}f}]"
        cells += [f"${es}$", f"${ci}$"] if fmt == "latex" else [es, ci]
    return cells


def _letters_cell(x: dict, v: str, fmt: str) -> str:
    """All-pairs mode: the mean ``v`` with the letters of the runs this run is significantly better than."""
    won = x["better_than"]
    if won:
        sup = "".join(won) if all(len(w) == 1 for w in won) else ",".join(won)
        v += f"$^{{{sup}}}$" if fmt == "latex" else f"<sup>{sup}</sup>"
    return v


def _digits(d) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 0 <= d <= 12:
        raise ValueError(f"digits must be a whole number from 0 to 12; got {d!r}")
    return int(d)


def _written(text: str, path) -> str:
    if path is not None:
        write_text(os.fspath(path), text)
    return text
