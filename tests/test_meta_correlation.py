"""Rank correlation: Kendall (003 Eq. 8-9) against scipy and by hand, Spearman, tau_ap, matrices."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.meta import correlation_matrix, gain_correlation_table, kendall_tau, kendall_test, spearman_rho, tau_ap

scores = st.lists(st.integers(0, 6), min_size=3, max_size=25)


def _tau_a_by_hand(x, y):
    n = len(x)
    pos = neg = 0
    for i in range(n):
        for j in range(i + 1, n):
            s = np.sign(x[i] - x[j]) * np.sign(y[i] - y[j])
            pos += s > 0
            neg += s < 0
    return 2 * (pos - neg) / (n * (n - 1))     # 003 Eq. 8


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_kendall_equals_scipy_with_ties(data):
    x = data.draw(scores)
    y = data.draw(st.lists(st.integers(0, 6), min_size=len(x), max_size=len(x)))
    ref = scipy.stats.kendalltau(x, y, variant="b").statistic
    got = kendall_tau(x, y)
    if math.isnan(ref):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(ref, abs=1e-12)
    assert kendall_tau(x, y, variant="a") == pytest.approx(_tau_a_by_hand(x, y), abs=1e-12)


def test_kendall_without_ties_both_variants_equal_eq8():
    rng = np.random.default_rng(5)
    x, y = rng.random(30), rng.random(30)
    assert kendall_tau(x, y) == pytest.approx(kendall_tau(x, y, variant="a"), abs=1e-15)
    assert kendall_tau(x, y, variant="a") == pytest.approx(_tau_a_by_hand(x, y), abs=1e-15)


def test_kendall_by_hand_and_edges():
    assert kendall_tau([3, 2, 1], [3, 2, 1]) == 1.0
    assert kendall_tau([3, 2, 1], [1, 2, 3]) == -1.0
    assert kendall_tau([0.3, 0.2, 0.1], [0.9, 0.5, 0.7]) == pytest.approx(1 / 3)   # pos 2, neg 1
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    assert kendall_tau([1, 1, 1], [1, 2, 3], variant="a") == 0.0
    with pytest.raises(ValueError, match="variant must be 'a' or 'b'"):
        kendall_tau([1, 2], [1, 2], variant="c")
    with pytest.raises(ValueError, match="same runs"):
        kendall_tau([1, 2, 3], [1, 2])


def test_kendall_test_eq9():
    # 003 Sec. 4.1: 30 runs, alpha = 0.01, two-tailed: significant "if it is over 0.34"
    r = kendall_test(0.34, 30, alpha=0.01)
    assert r["significant"] and 0.33 < r["tau_critical"] < 0.34
    assert not kendall_test(0.33, 30, alpha=0.01)["significant"]
    z0 = 0.5 / math.sqrt((4 * 30 + 10) / (9 * 30 * 29))
    r = kendall_test(-0.5, 30)
    assert r["z0"] == pytest.approx(z0)
    assert r["p_value"] == pytest.approx(2 * scipy.stats.norm.sf(z0))
    assert r["tau_critical"] == pytest.approx(scipy.stats.norm.ppf(0.975) * math.sqrt(130 / (9 * 30 * 29)))
    assert kendall_test(float("nan"), 30)["significant"] is False
    with pytest.raises(ValueError, match="n \\(number of runs\\)"):
        kendall_test(0.5, 1)


@settings(max_examples=40, deadline=None)
@given(st.data())
@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_spearman_equals_scipy(data):
    x = data.draw(scores)
    y = data.draw(st.lists(st.integers(0, 6), min_size=len(x), max_size=len(x)))
    ref = scipy.stats.spearmanr(x, y).statistic
    got = spearman_rho(x, y)
    if math.isnan(ref):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(ref, abs=1e-12)


def test_tau_ap_by_hand_and_properties():
    # Yilmaz et al. 2008: an error at the top costs more than the same error at the bottom
    top = tau_ap([4, 3, 2, 1], [3, 4, 2, 1])
    bottom = tau_ap([4, 3, 2, 1], [4, 3, 1, 2])
    assert top == pytest.approx(1 / 3) and bottom == pytest.approx(7 / 9)
    assert kendall_tau([4, 3, 2, 1], [3, 4, 2, 1]) == kendall_tau([4, 3, 2, 1], [4, 3, 1, 2])
    rng = np.random.default_rng(1)
    for _ in range(20):
        x, y = rng.integers(0, 5, 12), rng.random(12)
        assert -1 - 1e-12 <= tau_ap(x, y) <= 1 + 1e-12
        assert tau_ap(x, x) == pytest.approx(1.0)
    x = rng.random(15)
    assert tau_ap(x, -x) == pytest.approx(-1.0)


def test_correlation_matrix_table2_layout():
    rng = np.random.default_rng(2)
    base = rng.random(30)
    means = pd.DataFrame({"AP": base, "Q": base + rng.normal(0, 0.05, 30), "RR": rng.random(30)},
                         index=[f"r{i}" for i in range(30)])
    r = correlation_matrix(means, alpha=0.01)
    assert list(r.tau.index) == ["AP", "Q", "RR"] and np.allclose(np.diag(r.tau), 1)
    assert np.allclose(r.tau.values, r.tau.values.T)
    assert r.tau.loc["AP", "Q"] == pytest.approx(scipy.stats.kendalltau(means["AP"], means["Q"]).statistic)
    assert list(r.tidy.columns) == ["metric_a", "metric_b", "tau", "z0", "p_value", "significant"]
    assert len(r.tidy) == 3 and bool(r.significant.loc["AP", "Q"])
    ap = correlation_matrix(means, method="tau-ap")
    assert len(ap.tidy) == 6
    assert correlation_matrix(means, method="spearman").tau.loc["AP", "RR"] == pytest.approx(
        scipy.stats.spearmanr(means["AP"], means["RR"]).statistic)
    with pytest.raises(ValueError, match="method must be one of"):
        correlation_matrix(means, method="pearson")


def test_gain_correlation_table5_layout():
    d = {"P+": np.array([5, 4, 3, 2, 1.0]), "O": np.array([1, 2, 3, 4, 5.0])}
    v = {"P+": {"30:20:10": d["P+"], "1:1:1": np.array([4, 5, 3, 2, 1.0])}, "O": {"30:20:10": -d["O"]}}
    t = gain_correlation_table(d, v)
    assert list(t.columns) == ["30:20:10", "1:1:1"] and list(t.index) == ["P+", "O"]
    assert t.loc["P+", "30:20:10"] == 1.0 and t.loc["O", "30:20:10"] == -1.0
    assert t.loc["P+", "1:1:1"] == pytest.approx(0.8) and math.isnan(t.loc["O", "1:1:1"])


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_every_pair_of_the_matrix_equals_scipy_with_ties_identical_and_constant_columns(data):
    n = data.draw(st.integers(2, 20))
    k = data.draw(st.integers(2, 6))
    cols = {f"m{i}": data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)) for i in range(k)}
    cols["same"] = list(cols["m0"])                    # two metrics that rank the runs alike
    cols["flat"] = [1] * n                             # a metric that ties every run: tau-b is NaN
    means = pd.DataFrame(cols, dtype=float)
    b = correlation_matrix(means, method="tau-b").tau
    a = correlation_matrix(means, method="tau-a").tau
    for x in means.columns:
        for y in means.columns:
            if x == y:
                continue
            ref = scipy.stats.kendalltau(means[x], means[y], variant="b").statistic
            assert (math.isnan(b.loc[x, y]) and math.isnan(ref)) or b.loc[x, y] == pytest.approx(ref, abs=1e-12)
            assert a.loc[x, y] == pytest.approx(_tau_a_by_hand(means[x].tolist(), means[y].tolist()), abs=1e-12)


def test_a_matrix_with_nan_is_refused_as_the_pair_function_refuses_it():
    means = pd.DataFrame({"AP": [0.1, 0.2, 0.3], "Q": [0.3, float("nan"), 0.1]})
    with pytest.raises(ValueError, match="holds NaN"):
        correlation_matrix(means)
