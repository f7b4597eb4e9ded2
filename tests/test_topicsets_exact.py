"""Exact power of the topic set size designs against 40-digit mpmath computations.

The t reference uses another formula than evalcore.meta.topicsets: the two-sided noncentral t power
as the chi mixture E_X[Phi(ncp - tc X/sqrt(df)) + Phi(-ncp - tc X/sqrt(df))] integrated by mpmath
(evalcore sums the Poisson-weighted incomplete beta series of T'^2 ~ F'(1, df, ncp^2)). The F
reference is that series in 40-digit arithmetic with every term down to 1e-60, checked against the
t reference at d1 = 1 and against SciPy's ncf where SciPy is finite. Johnson, Kotz and
Balakrishnan, Continuous Univariate Distributions vol. 2, Ch. 29-31.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from evalcore.cli import main
from evalcore.meta.topicsets import (
    design_variance,
    min_detectable_difference,
    ncf_sf,
    nct_two_sided_sf,
    power,
    power_curve,
    topic_set_size,
    within_system_variance,
)

mpmath = pytest.importorskip("mpmath")
mp = mpmath.mp


def mp_t_power(tc, df, ncp, dps=40):
    """P(|T'| >= tc), T' ~ noncentral t(df, ncp), by the chi mixture in mpmath."""
    with mp.workdps(dps):
        df, tc, ncp = mp.mpf(df), mp.mpf(tc), mp.mpf(ncp)
        logc = (1 - df / 2) * mp.log(2) - mp.loggamma(df / 2)

        def f(x):
            s = x / mp.sqrt(df)
            return mp.exp(logc + (df - 1) * mp.log(x) - x * x / 2) * (mp.ncdf(ncp - tc * s) + mp.ncdf(-ncp - tc * s))

        mode = mp.sqrt(df - 1) if df > 1 else mp.mpf(1)
        sd = mp.mpf(1)
        step = mp.sqrt(df) * ncp / tc if tc > 0 else mode       # where tc s = ncp
        w = mp.sqrt(df) / tc if tc > 0 else sd
        pts = [mp.mpf(0)] + [max(mp.mpf(0), mode + k * sd) for k in (-12, -4, 0, 4, 12)] + [mode + 60, mp.inf]
        pts = sorted(set(pts) | {max(mp.mpf(0), step + k * w) for k in (-10, -3, 0, 3, 10)})
        return float(mp.quad(f, pts))


def mp_f_power(fc, d1, d2, lam, dps=40):
    """P(F' >= fc), F' ~ noncentral F(d1, d2, lam): the Poisson mixture of regularised incomplete betas
    summed in 40-digit arithmetic over every term down to 1e-60 (a mixture over the denominator
    took minutes per value in mpmath; the t case checks the formula against the chi mixture)."""
    with mp.workdps(dps):
        fc, d1, d2, lam = (mp.mpf(v) for v in (fc, d1, d2, lam))
        mu, y = lam / 2, d2 / (d2 + d1 * fc)
        total, k = mp.mpf(0), 0
        while True:
            lw = (k * mp.log(mu) if mu > 0 else (0 if k == 0 else -mp.inf)) - mu - mp.loggamma(k + 1)
            if lw < -140 and k > mu:
                return float(total)
            if lw > -140:
                total += mp.exp(lw) * mp.betainc(d2 / 2, d1 / 2 + k, 0, y, regularized=True)
            k += 1


@pytest.mark.parametrize("tc,df,ncp", [
    (1.97, 249, 10.4),          # SciPy's nct.cdf(-1.97, 249, 10.4) is NaN
    (2.109816, 17, 3.0),        # the module docstring's worked example: 0.8070
    (12.7062, 1, 5.0),          # one degree of freedom
    (1.959985, 99_999, 2.8),    # n = 100,000 topics
    (2.0, 30, 0.0),             # central: 2 t.sf
    (3.5, 5, 40.0),             # far in the upper tail
])
def test_noncentral_t_power_equals_mpmath(tc, df, ncp):
    ours = nct_two_sided_sf(tc, df, ncp)
    assert math.isfinite(ours)
    assert ours == pytest.approx(mp_t_power(tc, df, ncp), abs=1e-12, rel=1e-10)


def test_scipy_is_nan_where_ours_is_finite_and_exact():
    with np.errstate(all="ignore"):
        sp = stats.nct.sf(1.97, 249, 10.4) + stats.nct.cdf(-1.97, 249, 10.4)
    assert np.isnan(sp)          # if SciPy is fixed one day, this documents why the module exists
    assert nct_two_sided_sf(1.97, 249, 10.4) == pytest.approx(mp_t_power(1.97, 249, 10.4), abs=1e-14)


def test_central_t_equals_scipy():
    assert nct_two_sided_sf(2.0, 30, 0.0) == pytest.approx(2 * stats.t.sf(2.0, 30), rel=1e-12)


def test_huge_noncentrality_uses_the_chi_mixture():
    # ncp^2 / 2 = 5e7 > 2.5e7: the chi mixture, which at this ncp is 1 in double precision
    assert nct_two_sided_sf(5.0, 10, 1e4) == 1.0
    assert nct_two_sided_sf(1e4, 3, 1e4) == pytest.approx(mp_t_power(1e4, 3, 1e4), abs=1e-10)


@pytest.mark.parametrize("fc,d1,d2,lam", [
    (2.35, 4, 100, 9.0),
    (1.43, 29, 6960, 12.5),      # m = 30 systems, n = 241 topics
    (161.45, 1, 1, 30.0),        # one denominator degree of freedom
    (3.0, 2, 50, 0.0),           # central: scipy's f.sf
])
def test_noncentral_f_power_equals_mpmath(fc, d1, d2, lam):
    ours = ncf_sf(fc, d1, d2, lam)
    assert ours == pytest.approx(mp_f_power(fc, d1, d2, lam), abs=1e-12, rel=1e-9)


def test_f_with_one_numerator_df_is_the_squared_t():
    tc, df, ncp = 2.05, 40, 2.7
    assert mp_f_power(tc * tc, 1, df, ncp * ncp) == pytest.approx(mp_t_power(tc, df, ncp), abs=1e-15)
    assert ncf_sf(tc * tc, 1, df, ncp * ncp) == pytest.approx(mp_t_power(tc, df, ncp), abs=1e-13)


def test_noncentral_f_equals_scipy_where_scipy_is_finite():
    for fc, d1, d2, lam in [(2.35, 4, 100, 9.0), (1.43, 29, 6960, 12.5), (2.0, 9, 90, 30.0)]:
        assert ncf_sf(fc, d1, d2, lam) == pytest.approx(stats.ncf.sf(fc, d1, d2, lam), abs=1e-9)


def _mp_design_power(design, n, a, d, v, m=None):
    if design == "anova":
        phi2 = m * (n - 1)
        return mp_f_power(stats.f.isf(a, m - 1, phi2), m - 1, phi2, n * d * d / (2 * v))
    phi = n - 1 if design == "paired-t" else 2 * (n - 1)
    ncp = math.sqrt(n) * d / math.sqrt(v) if design == "paired-t" else d / math.sqrt(2 * v / n)
    return mp_t_power(stats.t.isf(a / 2, phi), phi, ncp)


@pytest.mark.parametrize("design,d,v,m", [
    ("paired-t", 0.05, 0.0806, None),      # about 250 topics: where SciPy's power curve turned NaN
    ("paired-t", 0.0011, 0.0262, None),    # about 170,000 topics
    ("unpaired-t", 0.05, 0.0403, None),
    ("anova", 0.1, 0.04, 30),
])
def test_topic_set_size_is_the_first_n_with_enough_exact_power(design, d, v, m):
    a, b = 0.05, 0.2
    r = topic_set_size(design, alpha=a, beta=b, min_diff=d, variance=v, systems=m)
    n = r["n_topics"]
    assert _mp_design_power(design, n, a, d, v, m) >= 1 - b > _mp_design_power(design, n - 1, a, d, v, m)
    assert r["power"] == pytest.approx(_mp_design_power(design, n, a, d, v, m), abs=1e-10)


@pytest.mark.parametrize("design,n,m", [("paired-t", 2, None), ("paired-t", 250, None),
                                        ("paired-t", 100_000, None), ("unpaired-t", 40, None),
                                        ("anova", 60, 5)])
def test_min_detectable_difference_has_exactly_the_power(design, n, m):
    d = min_detectable_difference(design, n, alpha=0.05, beta=0.2, variance=0.05, systems=m)
    assert math.isfinite(d) and d > 0
    assert _mp_design_power(design, n, 0.05, d, 0.05, m) == pytest.approx(0.8, abs=1e-9)


def test_power_curve_is_finite_up_to_100000_topics():
    ns = np.unique(np.round(np.geomspace(2, 100_000, 60)).astype(np.int64))
    for design, m in (("paired-t", None), ("unpaired-t", None), ("anova", 10)):
        p = power_curve(design, ns, min_diff=0.05, variance=0.08, systems=m)["power"].to_numpy()
        assert np.all(np.isfinite(p)) and np.all(np.diff(p) >= -1e-12) and p[-1] == pytest.approx(1.0, abs=1e-12)
    assert power("paired-t", 250, min_diff=0.05, variance=0.0806) == pytest.approx(
        mp_t_power(stats.t.isf(0.025, 249), 249, math.sqrt(250) * 0.05 / math.sqrt(0.0806)), abs=1e-12)


def test_unpaired_ci_width_equals_the_plain_formula():
    from scipy.special import gammaln

    a, v, d = 0.05, 0.04, 0.1
    r = topic_set_size("unpaired-ci", alpha=a, min_diff=d, variance=v)

    def width(n):     # 2 t_{2(n-1)}(a/2) c(phi) sigma sqrt(2/n)
        phi = 2 * (n - 1)
        c = math.sqrt(2 / phi) * math.exp(gammaln((phi + 1) / 2) - gammaln(phi / 2))
        return 2 * stats.t.isf(a / 2, phi) * c * math.sqrt(2 * v / n)

    n = 2
    while width(n) > d:
        n += 1
    assert r["n_topics"] == n and r["expected_width"] == pytest.approx(width(n), rel=1e-12)


# -- the variance each design assumes -----------------------------------------------------------
def test_within_system_variance_is_the_pooled_run_variance():
    rng = np.random.default_rng(3)
    x = rng.random((6, 40))
    x[2, 5] = np.nan                                # topic 5 is left out for every run
    keep = np.delete(x, 5, axis=1)
    ref = np.mean([np.var(row, ddof=1) for row in keep])   # one-way ANOVA MS_within, equal group sizes
    assert within_system_variance(x) == pytest.approx(ref, rel=1e-12)
    # one-way ANOVA: F = MS_between / MS_within, so MS_within = MS_between / F (scipy.stats.f_oneway)
    ms_between = 39 * np.var(keep.mean(axis=1), ddof=1)
    assert within_system_variance(x) == pytest.approx(ms_between / stats.f_oneway(*keep).statistic, rel=1e-10)


def test_design_variance_uses_what_each_model_assumes():
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.1, (10, 1)) + rng.normal(0, 0.2, (1, 200)) + rng.normal(0, 0.1, (10, 200))
    one = design_variance(x, "paired-t", "one-way")
    s2 = np.mean(np.var(x, axis=1, ddof=1))
    assert one["estimate"] == pytest.approx(s2, rel=1e-12) and one["variance"] == pytest.approx(2 * s2)
    assert one["label"].startswith("2 sigma^2 (one-way")
    two = design_variance(x, "paired-t")                      # the paired designs' default: two-way
    assert two["estimator"] == "two-way" and two["label"].startswith("2 V_E (two-way")
    r = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + x.mean()
    assert two["variance"] == pytest.approx(2 * (r * r).sum() / (9 * 199), rel=1e-12)
    assert design_variance(x, "anova")["variance"] == pytest.approx(two["variance"] / 2, rel=1e-12)   # V_E
    assert design_variance(x, "anova", "one-way")["variance"] == pytest.approx(s2, rel=1e-12)
    assert design_variance(x, "unpaired-t")["variance"] == pytest.approx(s2, rel=1e-12)
    # with a topic effect the paired-difference variance is far smaller, and so is the topic set
    assert two["variance"] < 0.5 * one["variance"]
    for design in ("anova", "unpaired-t", "unpaired-ci"):         # every design takes the two-way V_E too
        dv = design_variance(x, design, "two-way")
        assert dv["variance"] == pytest.approx(two["variance"] / 2, rel=1e-12)
        assert dv["label"].startswith("V_E (two-way") and dv["default"] == (design == "anova")
    with pytest.raises(ValueError, match="estimator must be one of"):
        design_variance(x, "paired-t", "three-way")
    with pytest.raises(ValueError, match="needs >= 2 runs and >= 2 topics"):
        design_variance(np.ones((3, 4)), "paired-t")


# -- CLI -------------------------------------------------------------------------------------------
def test_cli_topics_default_is_sakai_2016_and_no_scipy_message(capsys):
    import json

    argv = ["topics", "--min-diff", "0.05", "--simulated", "--topics", "40", "--sim-systems", "6", "--metric", "AP"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)       # paired-t: Sakai 2016's 2 V_E
    assert doc["variance_estimator"] == "two-way" and doc["variance_source"].startswith("2 V_E")
    assert doc["variance"] == pytest.approx(2 * doc["v_e"])
    assert main(argv + ["--variance-estimator", "one-way"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["variance"] == pytest.approx(2 * one["sigma2"]) and one["variance_source"].startswith("2 sigma^2")
    assert main(argv[:-4] + ["--test", "unpaired-t", "--variance-estimator", "two-way"] + argv[-4:]) == 0
    doc = json.loads(capsys.readouterr().out)     # the two-way V_E for an unpaired design: asked for, named
    assert doc["variance_estimator"] == "two-way" and doc["variance_estimator_default"] is False
    assert doc["variance"] == pytest.approx(doc["v_e"]) and doc["variance_source"].startswith("V_E (two-way")
    # large designs: finite, no solver message
    assert main(["topics", "--min-diff", "0.002", "--variance", "0.1", "--test", "unpaired-t"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_topics"] > 50_000 and math.isfinite(doc["power"])
