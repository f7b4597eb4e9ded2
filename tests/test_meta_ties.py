"""Ties by value, not by bits: paired differences equal on paper but not in floats are one value for the rank
and sign tests (evalcore.meta.pairs.TIE_RULE), checked against scipy.stats on the differences computed exactly
(integers of fifths: P@5 = k / 5, so x - y is (k_x - k_y) / 5 on paper)."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from evalcore.meta import kendall_tau, pair_statistics, spearman_rho
from evalcore.meta.pairs import TIE_RULE, ZERO_RTOL, tied_differences, zero_tolerance


def _scipy_wilcoxon(k: np.ndarray) -> float:
    """The documented Wilcoxon on exact differences ``k``: zeros dropped; exact for <= 50 untied non-zero
    differences, else the normal approximation with tie correction and no continuity correction."""
    nz = k[k != 0]
    if nz.size == 0:
        return 1.0
    untied = np.unique(np.abs(nz)).size == nz.size
    if untied and nz.size <= 50:
        return float(stats.wilcoxon(nz, method="exact").pvalue)
    return float(stats.wilcoxon(nz, method="asymptotic", correction=False).pvalue)


def _scipy_sign(k: np.ndarray) -> float:
    pos, neg = int((k > 0).sum()), int((k < 0).sum())
    return 1.0 if pos + neg == 0 else float(stats.binomtest(pos, pos + neg, 0.5).pvalue)


# (x, y) in fifths whose float differences x/5 - y/5 are all distinct although three are 1/5, two 2/5 and two
# 3/5 on paper: 3/5 - 2/5 = 0.19999999999999996, 1/5 - 0 = 0.2, 4/5 - 3/5 = 0.20000000000000007, ...
FIFTHS = [(3, 2), (1, 0), (4, 3), (3, 1), (2, 0), (3, 0), (4, 1), (0, 4), (2, 2)]


def test_differences_equal_on_paper_tie_as_scipy_on_the_exact_values():
    a, b = (np.array(v) for v in zip(*FIFTHS, strict=True))
    x, y = a / 5, b / 5
    d, k = x - y, a - b
    assert np.unique(np.abs(d[d != 0])).size == 8          # no two equal in bits ...
    assert np.unique(np.abs(k[k != 0])).size == 4          # ... four values on paper
    r = pair_statistics({"P@5": np.vstack([x, y])}, tests=("t", "wilcoxon", "sign")).pairs.iloc[0]
    # on paper the ties send the test to the normal approximation (0.158); by bits it would be exact (0.195)
    assert r.p_wilcoxon == pytest.approx(_scipy_wilcoxon(k), rel=1e-12)
    assert r.p_wilcoxon == pytest.approx(0.158336, abs=1e-6)
    assert stats.wilcoxon(d[d != 0], method="exact").pvalue == pytest.approx(0.1953125)   # what bits would give
    assert r.p_sign == pytest.approx(_scipy_sign(k), rel=1e-12)
    # the values the tests see: one float per value on paper, and scipy given them agrees too
    seen = tied_differences(d, zero_tolerance(np.vstack([x, y])))
    assert np.unique(np.abs(seen[seen != 0])).size == 4
    np.testing.assert_allclose(seen, k / 5, rtol=0, atol=1e-15)
    assert stats.wilcoxon(seen[seen != 0], method="asymptotic", correction=False).pvalue == pytest.approx(
        r.p_wilcoxon, rel=1e-12)
    assert r.p_t == pytest.approx(stats.ttest_rel(k / 5, np.zeros(k.size)).pvalue, rel=1e-9)


def test_many_random_pairs_of_fifths_and_tenths_equal_scipy_on_exact_values():
    """P@5 and P@10-like matrices: every pair's Wilcoxon and sign p equals scipy on the exact differences,
    covering both branches (<= 50 and > 50 non-zero differences) and untied pairs."""
    rng = np.random.default_rng(7)
    for denom, n_topics in ((5, 12), (10, 30), (5, 70), (10, 9)):
        K = rng.integers(0, denom + 1, size=(6, n_topics))
        M = K / denom
        r = pair_statistics({"P": M}, tests=("wilcoxon", "sign")).pairs
        for row, (i, j) in zip(r.itertuples(), itertools.combinations(range(6), 2), strict=True):
            k = K[i] - K[j]
            assert row.p_wilcoxon == pytest.approx(_scipy_wilcoxon(k), rel=1e-10), (denom, n_topics, i, j)
            assert row.p_sign == pytest.approx(_scipy_sign(k), rel=1e-12)


def test_tied_differences_keeps_signs_nan_and_makes_no_warning():
    d = np.array([[0.6 - 0.4, -(0.4 - 0.2), np.nan, 1e-17, 0.1, 0.0],
                  [np.nan, np.nan, np.nan, np.nan, np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = tied_differences(d, 1e-13)
    assert out[0, 0] == -out[0, 1] and out[0, 0] in (0.6 - 0.4, 0.4 - 0.2)
    assert np.isnan(out[0, 2]) and out[0, 3] == 0.0 and out[0, 4] == 0.1 and out[0, 5] == 0.0
    assert np.isnan(out[1]).all()
    assert tied_differences(d[0], 1e-13).shape == (6,)
    with pytest.raises(ValueError, match="1-D"):
        tied_differences(np.zeros((2, 2, 2)), 1e-13)


def test_distinct_differences_stay_distinct():
    """The rule ties rounding variants only: the smallest real step of a rank metric (1e-12 here) is untouched."""
    d = np.array([0.3, 0.3 + 1e-12, 0.3 + 2e-12, -0.5])
    out = tied_differences(d, zero_tolerance(np.array([0.3, 1.0])))
    assert np.unique(np.abs(out)).size == 4


def test_the_rule_is_printed_with_the_results(capsys):
    import csv
    import io
    import json

    from evalcore import compare
    from evalcore.cli import main

    x = np.array([[0.6, 0.4, 0.8, 1.0, 0.2], [0.4, 0.2, 0.6, 0.8, 0.0]])
    c = compare({"P@5": x}, run_ids=["A", "B"], baseline="B", test="wilcoxon", correction="none")
    assert f"within {ZERO_RTOL:g} x the largest |score| of 0 or of each other are ties" in c.legend()
    assert f"within {ZERO_RTOL:g} x the largest" in c.to_markdown()
    rows = list(csv.DictReader(io.StringIO(c.to_csv())))
    assert float(rows[0]["tie_rtol"]) == ZERO_RTOL
    r = pair_statistics({"P@5": x}, tests=("wilcoxon",))
    assert r.tie_tolerance == {"P@5": ZERO_RTOL * 1.0}
    assert main(["pairs", "--simulated", "--topics", "8", "--systems", "3", "--test", "wilcoxon",
                 "--output", "json"]) == 0
    st = json.loads(capsys.readouterr().out)["settings"]
    assert st["ties"] == TIE_RULE and "not by bits" in st["ties"]
    assert all(0 < v <= ZERO_RTOL for v in st["tie_tolerance"].values())


def test_rank_correlations_tie_scores_by_the_same_rule():
    x = np.array([0.6 - 0.4, 0.4 - 0.2, 0.7, 0.1])            # x0, x1 one value on paper
    y = np.array([0.3, 0.5, 0.9, 0.2])
    exact = np.array([0.2, 0.2, 0.7, 0.1])
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(exact, y).statistic, rel=1e-12)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(exact, y).statistic, rel=1e-12)


def test_clef2015_p5_decisions_follow_the_documented_rule(clef2015_collection):
    """clef2015's P@5, every one of the 435 pairs: p_wilcoxon and p_sign equal scipy on the exact differences
    (integers of fifths), so every decision at 0.05 and 0.01 is the documented rule's. By bits, 14 of the 435
    Wilcoxon decisions at 0.05 (26 at 0.01) differed, p-values by up to 8.8x (CHANGELOG)."""
    import evalcore

    M = evalcore.score_matrices(clef2015_collection, ["P@5"])["P@5"]
    K = np.rint(M * 5).astype(np.int64)
    np.testing.assert_array_equal(K / 5, M)                 # P@5 is k / 5, bit for bit
    r = pair_statistics({"P@5": M}, tests=("wilcoxon", "sign")).pairs
    pairs = list(itertools.combinations(range(M.shape[0]), 2))
    assert len(r) == len(pairs) == 435
    ref_w = np.array([_scipy_wilcoxon(K[i] - K[j]) for i, j in pairs])
    ref_s = np.array([_scipy_sign(K[i] - K[j]) for i, j in pairs])
    np.testing.assert_allclose(r.p_wilcoxon, ref_w, rtol=1e-9)
    np.testing.assert_allclose(r.p_sign, ref_s, rtol=1e-12)
    for alpha in (0.05, 0.01):
        np.testing.assert_array_equal(r.p_wilcoxon.to_numpy() < alpha, ref_w < alpha)
    # the case is real: by bits scipy ranks P@5's rounding variants apart on most pairs
    bits = np.array([_scipy_wilcoxon(M[i] - M[j]) for i, j in pairs])
    assert np.sum((bits < 0.05) != (ref_w < 0.05)) > 0
