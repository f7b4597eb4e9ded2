"""Tests written to kill mutants of evalcore/meta/ that the meta-evaluation suites let live (docs/mutation.md).

Expected values come from scipy (spearmanr, wilcoxon, the normal distribution), numpy's SeedSequence, or
the documented validation messages; nothing compares the code with itself.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.meta import (
    correlation_matrix,
    derive_seeds,
    pair_statistics,
    read_score_csv,
    standardise,
    topic_bootstrap,
)

ATOL = 1e-12


# -- Spearman's significance in correlation_matrix: rho * sqrt(n - 1) ~ N(0, 1), two-tailed ------------------------
def test_spearman_significance_is_the_normal_approximation_of_scipys_rho():
    df = pd.DataFrame({"A": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
                       "C": [0.2, 0.1, 0.5, 0.3, 0.4, 0.7, 0.6]}, index=[f"r{i}" for i in range(7)])
    res = correlation_matrix(df, method="spearman", alpha=0.05)
    row = res.tidy.iloc[0]
    rho = stats.spearmanr(df["A"], df["C"]).statistic
    z0 = abs(rho) * math.sqrt(7 - 1)
    p = 2 * stats.norm.sf(z0)
    assert row["tau"] == pytest.approx(rho, abs=ATOL)
    assert row["z0"] == pytest.approx(z0, abs=ATOL)
    assert row["p_value"] == pytest.approx(p, rel=1e-9)
    assert bool(row["significant"]) == (p < 0.05)


def test_spearman_with_a_constant_ranking_is_nan_and_not_significant():
    # one metric gives every run the same score: rho is undefined (scipy: nan), so is its test
    df = pd.DataFrame({"A": [0.1, 0.2, 0.3, 0.4], "B": [0.3, 0.3, 0.3, 0.3]})
    with pytest.warns(stats.ConstantInputWarning):
        assert math.isnan(stats.spearmanr(df["A"], df["B"]).statistic)
    row = correlation_matrix(df, method="spearman").tidy.iloc[0]
    assert math.isnan(row["tau"]) and math.isnan(row["z0"]) and math.isnan(row["p_value"])
    assert not row["significant"]


def test_one_metric_is_enough_for_a_correlation_matrix():
    # the documented minimum: 2 runs and 1 metric (a 1 x 1 matrix, tau(A, A) = 1, no pair rows)
    res = correlation_matrix(pd.DataFrame({"A": [0.1, 0.2, 0.3]}))
    assert res.tau.to_numpy().tolist() == [[1.0]]
    assert len(res.tidy) == 0
    with pytest.raises(ValueError, match="at least 2 runs"):
        correlation_matrix(pd.DataFrame({"A": [0.1]}))


# -- the exact Wilcoxon p-value never exceeds 1 (scipy's exact signed-rank test) -----------------------------------
@pytest.mark.parametrize("diffs", [[1, -2, -3, 4], [1, -2, 3, -4, 5], [1, 2, 3, 4, 5, -6]])
def test_exact_wilcoxon_p_equals_scipy(diffs):
    d = np.asarray(diffs, dtype=np.float64) * 0.01
    s = np.vstack([0.5 + d, np.full(d.size, 0.5)])
    got = pair_statistics({"M": s}, tests=("wilcoxon",), B=10).pairs["p_wilcoxon"].iloc[0]
    want = stats.wilcoxon(d, method="exact").pvalue
    assert got == pytest.approx(want, abs=1e-12)
    assert got <= 1.0


# -- derive_seeds: seed 0 is a valid seed; the streams are numpy's SeedSequence spawn keys ------------------------
def test_derive_seeds_from_zero_are_numpys_spawned_streams():
    got = derive_seeds(0, 4)
    want = [0] + [int(np.random.SeedSequence(0, spawn_key=(r,)).generate_state(1, np.uint32)[0]) for r in (1, 2, 3)]
    assert got == want
    with pytest.raises(ValueError, match=r"seed must be a whole number >= 0 or None; got -1"):
        derive_seeds(-1, 2)


# -- standardise: the messages name the argument and what was received ---------------------------------------------
def test_standardise_refuses_bad_ddof_and_scale_by_name():
    x = np.array([[0.1, 0.5], [0.3, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"^ddof must be 0 or 1; got 2$"):
        standardise(x, "z", ddof=2)
    with pytest.raises(ValueError, match=r"^A must be > 0 \(it scales z\); got 0$"):
        standardise(x, "ab", A=0)


# -- read_score_csv: an empty value cell is an error naming the row, not a silent NaN ------------------------------
def test_score_csv_with_an_empty_value_is_refused(tmp_path):
    p = tmp_path / "scores.csv"
    p.write_text("run,topic,metric,value\nr1,t1,AP,0.5\nr1,t2,AP,\nr2,t1,AP,0.25\nr2,t2,AP,0.75\n")
    with pytest.raises(ValueError, match=r"data row 2: value must be a number"):
        read_score_csv(p)


# -- PairsResult.power and .curves: the documented columns, the input's metric order, scipy's paired t ------------
def _pair_scores():
    rng = np.random.default_rng(5)
    base = np.array([[0.2], [0.35], [0.5]])
    # "Q" before "AP": the input order, not the alphabetical one
    return {"Q": np.clip(base + rng.normal(0, 0.1, (3, 8)), 0, 1),
            "AP": np.clip(base + rng.normal(0, 0.3, (3, 8)), 0, 1)}


def _scipy_t_pvalues(m):
    return [stats.ttest_rel(m[i], m[j]).pvalue for i in range(3) for j in range(i + 1, 3)]


def test_power_counts_scipys_significant_pairs_per_alpha_in_input_order():
    S = _pair_scores()
    res = pair_statistics(S, tests=("t",), B=10)
    pw = res.power()                                     # the default alpha is 0.05
    assert pw["metric"].tolist() == ["Q", "AP"] and pw["alpha"].tolist() == [0.05, 0.05]
    for _, row in pw.iterrows():
        want = sum(p < 0.05 for p in _scipy_t_pvalues(S[row["metric"]]))
        assert row["n_significant"] == want and row["n_pairs"] == 3
        assert row["pct_significant"] == pytest.approx(100.0 * want / 3, abs=ATOL)
    pw2 = res.power(alpha=(0.5, 0.01))
    assert pw2["alpha"].tolist() == [0.5, 0.01, 0.5, 0.01]
    assert pw2["n_significant"].tolist() == [sum(p < a for p in _scipy_t_pvalues(S[m]))
                                             for m in ("Q", "AP") for a in (0.5, 0.01)]


def test_curves_are_scipys_sorted_p_values_ranked_from_1():
    S = _pair_scores()
    cv = pair_statistics(S, tests=("t",), B=10).curves()
    assert list(cv.columns) == ["metric", "pair_rank", "p_value"]
    assert cv["metric"].tolist() == ["Q"] * 3 + ["AP"] * 3
    assert cv["pair_rank"].tolist() == [1, 2, 3, 1, 2, 3]
    want = sorted(_scipy_t_pvalues(S["Q"])) + sorted(_scipy_t_pvalues(S["AP"]))
    np.testing.assert_allclose(cv["p_value"].to_numpy(), want, rtol=1e-9, atol=0)


# -- TopicBootstrapResult.differences: every documented column, from numpy on the per-sample figures --------------
def test_topic_bootstrap_differences_columns_from_numpy():
    rng = np.random.default_rng(1)
    base = rng.random((5, 1)) * 0.3
    S = {"A": np.clip(base + rng.normal(0, 0.15, (5, 14)), 0, 1),
         "B": np.clip(base + rng.normal(0, 0.4, (5, 14)), 0, 1)}
    tb = topic_bootstrap(S, "swap", resamples=12, seed=0, B=40, sampling="replacement", confidences=(0.95,))
    w = tb.per_resample.pivot_table(index="resample", columns="metric", values="pct_comparisons")
    diff = np.sort((w["A"] - w["B"]).dropna().to_numpy())
    d = tb.differences("pct_comparisons", confidence=0.95)
    assert list(d.columns) == ["a", "b", "mean", "sd", "lo", "hi", "a_higher", "tie", "b_higher", "undefined", "n"]
    row = d.iloc[0]
    assert row["a"] == "A" and row["b"] == "B" and row["n"] == diff.size
    # 2.5 / 97.5 percentiles on observed values: the order statistics just outside p (n - 1)
    assert row["lo"] == diff[int(np.floor(0.025 * (diff.size - 1)))]
    assert row["hi"] == diff[int(np.ceil(0.975 * (diff.size - 1)))]
