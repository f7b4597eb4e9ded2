"""Pair statistics (evalcore.meta.pairs) against scipy.stats and plain reference implementations."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.meta import Cancelled, adjust_pvalues, bootstrap_sensitivity, pair_statistics
from evalcore.meta.bootstrap import bootstrap_samples
from evalcore.meta.pairs import tied_differences, wilcoxon_exact_cdf, zero_tolerance


def _pairs(n_runs):
    return list(itertools.combinations(range(n_runs), 2))


@pytest.fixture(scope="module")
def rand():
    rng = np.random.default_rng(42)
    X = rng.beta(2, 3, size=(7, 30))
    X[3] = np.clip(X[2] + rng.normal(0.03, 0.05, 30), 0, 1)
    return X


@pytest.fixture(scope="module")
def res(rand):
    return pair_statistics({"M": rand}, B=400, seed=5, confidence=0.9)


def test_t_test_and_ci_equal_scipy(rand, res):
    df = res.pairs
    for k, (i, j) in enumerate(_pairs(rand.shape[0])):
        tt = stats.ttest_rel(rand[i], rand[j])
        ci = tt.confidence_interval(0.9)
        assert df.t[k] == pytest.approx(tt.statistic, rel=1e-10)
        assert df.p_t[k] == pytest.approx(tt.pvalue, rel=1e-9, abs=1e-300)
        assert (df.ci_low[k], df.ci_high[k]) == pytest.approx((ci.low, ci.high), rel=1e-10)
        assert df.d_z[k] == pytest.approx(tt.statistic / np.sqrt(30), rel=1e-10)
        assert df.mean_diff[k] == pytest.approx(np.mean(rand[i] - rand[j]), abs=1e-15)


def test_wilcoxon_and_sign_equal_scipy(rand, res):
    df = res.pairs
    for k, (i, j) in enumerate(_pairs(rand.shape[0])):
        d = rand[i] - rand[j]
        assert df.p_wilcoxon[k] == pytest.approx(stats.wilcoxon(d, method="exact").pvalue, rel=1e-10)
        pos, neg = int((d > 0).sum()), int((d < 0).sum())
        assert df.p_sign[k] == pytest.approx(stats.binomtest(pos, pos + neg, 0.5).pvalue, rel=1e-10)


@pytest.mark.parametrize("n", [5, 17, 50])
def test_wilcoxon_exact_distribution_equals_enumeration(n):
    cdf = wilcoxon_exact_cdf(n)
    if n <= 17:   # plain enumeration of all 2^n sign patterns
        sums = np.array([sum(r for r, b in zip(range(1, n + 1), bits, strict=True) if b)
                         for bits in itertools.product((0, 1), repeat=n)])
        ref = np.cumsum(np.bincount(sums, minlength=n * (n + 1) // 2 + 1)) / 2 ** n
        np.testing.assert_allclose(cdf, ref, rtol=1e-14)
    assert cdf[-1] == 1.0 and np.all(np.diff(cdf) >= 0)


def test_wilcoxon_ties_zeros_and_large_n_equal_scipy_asymptotic():
    rng = np.random.default_rng(3)
    tenths = np.rint(rng.random((4, 80)) * 10)
    x = tenths / 10                                 # many ties and zero differences
    r = pair_statistics({"M": x}, tests=("wilcoxon",))
    for k, (i, j) in enumerate(_pairs(4)):
        # scipy on the differences as they are on paper (tenths): x[i] - x[j] in floats would split ties such
        # as 0.3 - 0.1 and 0.5 - 0.3 (evalcore.meta.pairs.TIE_RULE; tests/test_meta_ties.py)
        ref = stats.wilcoxon(tenths[i] - tenths[j], method="asymptotic", zero_method="wilcox", correction=False)
        assert r.pairs.p_wilcoxon[k] == pytest.approx(ref.pvalue, rel=1e-9)
    y = rng.random((3, 60))                         # n > 50, no ties: scipy's default is asymptotic too
    r = pair_statistics({"M": y}, tests=("wilcoxon",))
    for k, (i, j) in enumerate(_pairs(3)):
        assert r.pairs.p_wilcoxon[k] == pytest.approx(stats.wilcoxon(y[i], y[j]).pvalue, rel=1e-9)


def test_randomisation_exact_equals_scipy_permutation_test():
    rng = np.random.default_rng(7)
    x = rng.random((4, 9))
    r = pair_statistics({"M": x}, tests=("randomisation",), B=1000)     # 2^9 <= B: all 512 sign flips
    assert r.n_flips == 512 and r.exact_randomisation
    for k, (i, j) in enumerate(_pairs(4)):
        ref = stats.permutation_test((x[i], x[j]), lambda a, b, axis: np.mean(a - b, axis=axis),
                                     permutation_type="samples", n_resamples=np.inf, vectorized=True)
        assert r.pairs.p_randomisation[k] == pytest.approx(ref.pvalue, rel=1e-12)


def test_randomisation_given_signs_equals_plain_loop(rand):
    rng = np.random.default_rng(11)
    S = np.where(rng.random((300, 30)) < 0.5, -1.0, 1.0)
    r = pair_statistics({"M": rand}, tests=("randomisation",), signs=S)
    for k, (i, j) in enumerate(_pairs(rand.shape[0])):
        d = rand[i] - rand[j]
        T = d.mean()
        Ts = [np.mean(s * d) for s in S]
        less = sum(v <= T for v in Ts)
        greater = sum(v >= T for v in Ts)
        assert r.pairs.p_randomisation[k] == pytest.approx(min(1.0, 2 * min(less, greater) / 300), abs=1e-12)


def test_random_randomisation_p_has_plus_one_and_is_seeded(rand):
    a = pair_statistics({"M": rand}, tests=("randomisation",), B=199, seed=1).pairs.p_randomisation
    b = pair_statistics({"M": rand}, tests=("randomisation",), B=199, seed=1).pairs.p_randomisation
    assert a.equals(b)
    assert a.min() >= 2 / 200 - 1e-12          # never 0: (count + 1) / (B + 1)


def test_bootstrap_p_equals_bootstrap_sensitivity_same_seed(rand, res):
    bs = bootstrap_sensitivity({"M": rand}, B=400, seed=5)
    np.testing.assert_array_equal(res.pairs.p_bootstrap.to_numpy(), bs.pairs.asl.to_numpy())
    np.testing.assert_array_equal(res.samples, bs.samples)


def test_bootstrap_ci_equals_plain_percentiles(rand, res):
    samples = bootstrap_samples(30, B=400, seed=5)
    for k, (i, j) in enumerate(_pairs(rand.shape[0])):
        d = rand[i] - rand[j]
        means = np.array([d[s].mean() for s in samples])
        lo, hi = np.quantile(means, [0.05, 0.95])
        assert (res.pairs.boot_ci_low[k], res.pairs.boot_ci_high[k]) == pytest.approx((lo, hi), abs=1e-12)


def test_effect_size_uses_v_e_of_two_way_anova(rand, res):
    m, n = rand.shape
    # plain sums of squares: SS_E = SS_T - SS_runs - SS_topics
    g = rand.mean()
    ss_t = ((rand - g) ** 2).sum()
    ss_r = n * ((rand.mean(axis=1) - g) ** 2).sum()
    ss_c = m * ((rand.mean(axis=0) - g) ** 2).sum()
    v_e = (ss_t - ss_r - ss_c) / ((m - 1) * (n - 1))
    assert res.v_e["M"] == pytest.approx(v_e, rel=1e-12)
    for k, (i, j) in enumerate(_pairs(m)):
        assert res.pairs.effect_size[k] == pytest.approx((rand[i].mean() - rand[j].mean()) / np.sqrt(v_e), rel=1e-10)


def _holm_plain(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, run = [0.0] * m, 0.0
    for k, i in enumerate(order):
        run = max(run, min(1.0, (m - k) * p[i]))
        out[i] = run
    return out


def _bh_plain(p):
    m = len(p)
    out = []
    for i in range(m):
        # adjusted p_i = min over j with p_j >= p_i of m p_j / rank_j
        ranks = {j: sum(p[q] <= p[j] for q in range(m)) for j in range(m)}
        out.append(min(1.0, min(m * p[j] / ranks[j] for j in range(m) if p[j] >= p[i])))
    return out


def test_holm_and_bh_equal_plain_and_scipy():
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.random(15) ** 3
        np.testing.assert_allclose(adjust_pvalues(p, "holm"), _holm_plain(list(p)), rtol=1e-14)
        np.testing.assert_allclose(adjust_pvalues(p, "bh"), _bh_plain(list(p)), rtol=1e-14)
        np.testing.assert_allclose(adjust_pvalues(p, "bh"), stats.false_discovery_control(p), rtol=1e-12)
    np.testing.assert_array_equal(adjust_pvalues([0.2, 0.01], "none"), [0.2, 0.01])
    a = adjust_pvalues([0.01, np.nan, 0.04], "holm")
    assert np.isnan(a[1]) and a[0] == pytest.approx(0.02) and a[2] == pytest.approx(0.04)
    with pytest.raises(ValueError, match="correction must be one of"):
        adjust_pvalues([0.1], "bonferroni")


def test_table_power_and_curves(rand, res):
    t = res.table("wilcoxon", "holm", 0.05)
    assert list(t.columns)[:10] == ["metric", "run_x", "run_y", "mean_diff", "ci_low", "ci_high", "effect_size",
                                    "p_value", "p_adjusted", "significant"]
    np.testing.assert_allclose(t.p_adjusted, _holm_plain(list(res.pairs.p_wilcoxon)), rtol=1e-14)
    assert (t.significant == (t.p_adjusted < 0.05)).all()
    pw = res.power("wilcoxon", "holm", (0.05, 0.01))
    assert pw.n_significant.tolist() == [int((t.p_adjusted < a).sum()) for a in (0.05, 0.01)]
    cv = res.curves("bootstrap", "none")
    np.testing.assert_array_equal(cv.p_value, np.sort(res.pairs.p_bootstrap))
    b = res.table("t", ci="bootstrap")
    np.testing.assert_array_equal(b.ci_low, res.pairs.boot_ci_low)
    with pytest.raises(ValueError, match="test must be one of"):
        res.table("z")
    r2 = pair_statistics({"M": rand}, tests=("t",))
    with pytest.raises(ValueError, match="was not computed"):
        r2.table("sign")


def test_edge_policies_without_warnings():
    x = np.array([[0.1, 0.5, 0.3, 0.9], [0.1, 0.5, 0.3, 0.9], [0.2, 0.6, 0.4, 1.0], [0.3, np.nan, 0.2, np.nan],
                  [np.nan, np.nan, np.nan, 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = pair_statistics({"M": x}, B=64, seed=0).pairs.set_index(["run_x", "run_y"])
    same = r.loc[("0", "1")]            # identical runs
    assert same.mean_diff == 0 and same.ci_low == 0 and same.ci_high == 0 and same.t == 0 and same.d_z == 0
    assert np.isnan(same.effect_size)   # V_E uses complete topics only: every topic has a NaN here
    assert all(same[c] == 1.0 for c in ["p_t", "p_wilcoxon", "p_sign", "p_randomisation", "p_bootstrap"])
    const = r.loc[("0", "2")]           # constant difference -0.1
    assert const.mean_diff == pytest.approx(-0.1) and const.ci_low == const.ci_high == const.mean_diff
    assert const.t == -np.inf and const.d_z == -np.inf and const.p_t == 0 and const.p_bootstrap == 0
    part = r.loc[("0", "3")]            # NaN: two paired topics used, as scipy's nan_policy="omit"
    assert part.n_topics == 2
    ref = stats.ttest_rel(x[0], x[3], nan_policy="omit")
    assert part.p_t == pytest.approx(ref.pvalue, rel=1e-10) and part.t == pytest.approx(ref.statistic)
    one = r.loc[("0", "4")]             # a single common topic: no evidence
    assert one.n_topics == 1 and np.isnan(one.ci_low) and np.isnan(one.t)
    assert all(one[c] == 1.0 for c in ["p_t", "p_wilcoxon", "p_sign", "p_randomisation", "p_bootstrap"])
    # V_E = 0: runs differing by constants only
    y = np.array([[0.1, 0.5, 0.3], [0.2, 0.6, 0.4], [0.2, 0.6, 0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = pair_statistics({"M": y}, tests=("t",)).pairs
    assert e.effect_size.tolist() == [-np.inf, -np.inf, 0.0]      # identical runs: 0


def test_bad_input_and_progress(rand):
    with pytest.raises(ValueError, match="infinite"):
        pair_statistics({"M": np.array([[0.1, np.inf], [0.2, 0.3]])})
    with pytest.raises(ValueError, match="tests must be"):
        pair_statistics({"M": rand}, tests=("anova",))
    with pytest.raises(ValueError, match="confidence must lie"):
        pair_statistics({"M": rand}, confidence=95)
    seen = []
    pair_statistics({"M": rand, "N": rand[::-1]}, B=50, progress=seen.append)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(Cancelled):
        pair_statistics({"M": rand}, B=50, progress=lambda f: f > 0.3)


@pytest.mark.slow
def test_clef2015_t_and_wilcoxon_equal_scipy(clef2015_collection):
    import evalcore

    S = evalcore.score_matrices(clef2015_collection, ["AP"])
    A = S["AP"]
    r = pair_statistics(S, tests=("t", "wilcoxon"))
    for i, j in _pairs(A.shape[0])[::37]:
        kk = _pairs(A.shape[0]).index((i, j))
        d = A[i] - A[j]
        if np.all(d == 0):
            assert r.pairs.p_t[kk] == 1.0
            continue
        assert r.pairs.p_t[kk] == pytest.approx(stats.ttest_rel(A[i], A[j]).pvalue, rel=1e-8)
        # 65 topics > 50 (and ties): asymptotic, on the differences as the rule ties them (TIE_RULE)
        ref = stats.wilcoxon(tied_differences(d, zero_tolerance(A)), method="asymptotic")
        assert r.pairs.p_wilcoxon[kk] == pytest.approx(ref.pvalue, rel=1e-8)


def test_bootstrap_with_nan_equals_plain_loop():
    rng = np.random.default_rng(9)
    x = rng.random((3, 12))
    x[0, [1, 5]] = np.nan
    x[2, 7] = np.nan
    samples = bootstrap_samples(12, B=300, seed=4)
    r = pair_statistics({"M": x}, tests=("bootstrap",), samples=samples, confidence=0.95)
    for k, (i, j) in enumerate(_pairs(3)):
        z = x[i] - x[j]
        ok = ~np.isnan(z)
        zbar = z[ok].mean()
        t_obs = abs(zbar / (z[ok].std(ddof=1) / np.sqrt(ok.sum())))
        hits, means = 0, []
        for s in samples:
            zs = z[s][ok[s]]                  # the sample's usable topics
            w = zs - zbar
            tb = abs(w.mean() / (w.std(ddof=1) / np.sqrt(w.size)))
            hits += tb >= t_obs * (1 - 1e-9)
            means.append(zs.mean())
        assert r.pairs.p_bootstrap[k] == pytest.approx(hits / 300, abs=1e-12)
        lo, hi = np.quantile(means, [0.025, 0.975])
        assert (r.pairs.boot_ci_low[k], r.pairs.boot_ci_high[k]) == pytest.approx((lo, hi), abs=1e-12)


def test_swapping_runs_negates_differences_and_keeps_p(rand):
    a = pair_statistics({"M": rand}, B=200, seed=2).pairs
    b = pair_statistics({"M": rand[::-1]}, B=200, seed=2).pairs
    n = rand.shape[0]
    order = [_pairs(n).index((n - 1 - j, n - 1 - i)) for i, j in _pairs(n)]
    b = b.iloc[order].reset_index(drop=True)
    np.testing.assert_allclose(a.mean_diff, -b.mean_diff, atol=1e-15)
    np.testing.assert_allclose(a.ci_low, -b.ci_high, atol=1e-12)
    for c in ["p_t", "p_wilcoxon", "p_sign", "p_randomisation", "p_bootstrap"]:
        np.testing.assert_allclose(a[c], b[c], atol=1e-12, err_msg=c)


def test_score_matrices_standardise_option():
    import evalcore
    from evalcore.meta import standardise

    c = evalcore.simulated_collection(n_topics=10, n_runs=6, seed=1)
    raw = evalcore.score_matrices(c, ["AP"])
    z = evalcore.score_matrices(c, ["AP"], standardise="ab", std_a=0.2, std_b=0.4)
    np.testing.assert_allclose(z["AP"], 0.2 * stats.zscore(raw["AP"], axis=0, ddof=1) + 0.4, rtol=1e-12)
    np.testing.assert_array_equal(standardise(raw["AP"], "none"), raw["AP"])
    with pytest.raises(ValueError, match="standardise must be one of"):
        evalcore.score_matrices(c, ["AP"], standardise="minmax")
    with pytest.raises(ValueError, match="B must be <="):
        pair_statistics(raw, B=10 ** 7)


# -- wording and Monte Carlo error (evalcore.meta.pairs module docstring) ------------------------------
def test_wilcoxon_is_scipy_exact_or_asymptotic_on_the_non_zero_differences():
    import warnings

    _st, _ps = stats, pair_statistics
    rng = np.random.default_rng(4)
    cases = [np.array([0, 0, 0, 0, 0.5]),                            # one non-zero difference
             np.round(rng.normal(0.3, 1, 12), 3),                     # untied: exact
             np.round(rng.normal(0.3, 1, 20), 1)]                     # ties: normal approximation
    cases[1][:3] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for d in cases:
            p = _ps({"M": np.vstack([d, np.zeros(d.size)])}, tests=("t", "wilcoxon")).pairs["p_wilcoxon"].iloc[0]
            nz = d[d != 0]
            untied = np.unique(np.abs(nz)).size == nz.size
            ref = (_st.wilcoxon(nz, method="exact") if untied else
                   _st.wilcoxon(nz, method="asymptotic", correction=False)).pvalue
            assert p == pytest.approx(ref, rel=1e-12)
        assert _st.wilcoxon(cases[0], method="asymptotic").pvalue == pytest.approx(0.3173, abs=1e-4)


def test_monte_carlo_standard_errors_match_the_spread_over_seeds():
    _ps = pair_statistics
    rng = np.random.default_rng(7)
    M = rng.normal(0, 0.1, (2, 30)) + np.array([[0.1], [0.0]]) + rng.normal(0, 0.2, (1, 30))
    runs = [_ps({"M": M}, tests=("t", "randomisation", "bootstrap"), B=400, seed=s).pairs.iloc[0] for s in range(40)]
    df = pd.DataFrame(runs)
    for value, se in (("p_randomisation", "mc_se_p_randomisation"), ("p_bootstrap", "mc_se_p_bootstrap"),
                      ("boot_ci_low", "mc_se_boot_ci_low"), ("boot_ci_high", "mc_se_boot_ci_high")):
        ratio = df[value].std(ddof=1) / df[se].mean()
        assert 0.6 < ratio < 1.6, (value, ratio)
    p = df["p_bootstrap"].to_numpy()
    np.testing.assert_allclose(df["mc_se_p_bootstrap"], np.sqrt(p * (1 - p) / 400), rtol=1e-12)
    r = _ps({"M": M}, tests=("t", "randomisation", "bootstrap"), B=400, seed=0)
    t = r.table("randomisation", ci="bootstrap")
    assert t["p_mc_se"].iloc[0] == pytest.approx(r.pairs["mc_se_p_randomisation"].iloc[0])
    assert t["ci_mc_se"].iloc[0] == pytest.approx(max(r.pairs["mc_se_boot_ci_low"].iloc[0],
                                                      r.pairs["mc_se_boot_ci_high"].iloc[0]))
    assert r.table("t")["p_mc_se"].iloc[0] == 0.0 and r.v_e_runs == 2
    exact = _ps({"M": M[:, :8]}, tests=("t", "randomisation"), B=1000, seed=0)     # 2^8 <= B: all flips
    assert exact.exact_randomisation and exact.pairs["mc_se_p_randomisation"].iloc[0] == 0.0


# -- rounding is not a difference -------------------------------------------------------------------
def _rounding_pair():
    """Two runs over 20 topics: on topic 0 both scores are the sum of the same contributions 0.1, 0.2, 0.3,
    run A summed from the back, run B from the front, so a - b = -1.1e-16 (rounding); on the other 19
    topics A is genuinely higher, by distinct amounts (no tied |d|). Returns (as computed, exactly tied)."""
    parts = [0.1, 0.2, 0.3]
    a0 = parts[0] + (parts[1] + parts[2])          # 0.6
    b0 = (parts[0] + parts[1]) + parts[2]          # 0.6000000000000001
    assert a0 - b0 == pytest.approx(-1.1102230246251565e-16, rel=1e-12)
    rng = np.random.default_rng(11)
    b = np.r_[b0, rng.uniform(0.1, 0.5, 19)]
    a = np.r_[a0, b[1:] + 0.01 * np.arange(1, 20) + rng.uniform(0, 0.001, 19)]
    tied = b.copy()
    tied[0] = a0
    return np.vstack([a, b]), np.vstack([a, tied])


def test_rounding_difference_is_a_tie_in_the_sign_and_wilcoxon_tests():
    rounded, tied = _rounding_pair()
    r = pair_statistics({"M": rounded}, tests=("t", "wilcoxon", "sign", "randomisation", "bootstrap"), B=200, seed=3)
    d = tied[0] - tied[1]
    assert np.count_nonzero(d) == 19 and (d[d != 0] > 0).all()
    # scipy on the exactly tied version: the tie is dropped by both tests
    p_sign = stats.binomtest(19, 19, 0.5).pvalue
    p_wil = stats.wilcoxon(d[d != 0], method="exact").pvalue
    row = r.pairs.iloc[0]
    assert row.p_sign == pytest.approx(p_sign, rel=1e-12)          # 3.8e-6; counted as a loss it is 4.0e-5
    assert row.p_wilcoxon == pytest.approx(p_wil, rel=1e-12)
    assert row.p_t == pytest.approx(stats.ttest_rel(tied[0], tied[1]).pvalue, rel=1e-9)
    # compare()'s +/- counts: the rounding topic is neither better nor worse than the baseline
    from evalcore import compare
    t = compare({"M": rounded}, run_ids=["A", "B"], baseline="B", test="sign", correction="none").to_dataframe()
    assert t.loc[t.run == "A", ["better", "worse"]].values.tolist() == [[19, 0]]
    # every test gives the rounded and the exactly tied matrix the same p-value
    same = pair_statistics({"M": tied}, tests=r.tests, B=200, seed=3).pairs.iloc[0]
    for col in ("p_t", "p_wilcoxon", "p_sign", "p_randomisation", "p_bootstrap"):
        assert row[col] == pytest.approx(same[col], rel=1e-12), col


def test_runs_equal_but_for_rounding_are_identical_runs():
    """Every topic's score of run B is run A's summed in another order: every p-value is 1, as for identical runs."""
    rng = np.random.default_rng(5)
    parts = rng.uniform(0, 0.2, size=(30, 5))
    a = np.array([sum(p) for p in parts])
    b = np.array([sum(p[::-1]) for p in parts])
    assert np.any(a != b)                                       # the two orders do round differently
    r = pair_statistics({"M": np.vstack([a, b])}, B=100, seed=1).pairs.iloc[0]
    for col in ("p_t", "p_wilcoxon", "p_sign", "p_randomisation", "p_bootstrap"):
        assert float(r[col]) == 1.0, col
    assert bootstrap_sensitivity({"M": np.vstack([a, b])}, B=100, seed=1).pairs.asl[0] == 1.0


def test_rounding_ties_in_rank_correlations_and_swaps():
    from evalcore.meta import kendall_tau, spearman_rho, swap_method

    parts = [0.1, 0.2, 0.3]
    x = np.array([parts[0] + (parts[1] + parts[2]), (parts[0] + parts[1]) + parts[2], 0.2, 0.9])   # x0, x1 tie
    exact = np.array([0.6, 0.6, 0.2, 0.9])
    y = np.array([0.3, 0.5, 0.1, 0.7])
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(exact, y).statistic, rel=1e-12)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(exact, y).statistic, rel=1e-12)
    # a swap test on per-topic rows equal but for rounding: D = 0 on every trial, so always a swap (003 rule)
    rng = np.random.default_rng(2)
    P = rng.uniform(0, 0.2, size=(12, 5))
    M = np.vstack([[sum(p) for p in P], [sum(p[::-1]) for p in P]])
    assert np.any(M[0] != M[1])
    cur = swap_method({"M": M}, B=50, seed=0).curves
    assert int(cur["swaps"].sum()) == int(cur["count"].sum()) == 50
