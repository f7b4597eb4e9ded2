"""Topic set size design and score standardisation against scipy and plain reference code."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from evalcore.cli import main
from evalcore.meta import (
    design_variance,
    min_detectable_difference,
    power_curve,
    residual_variance,
    standardise,
    standardise_scores,
    topic_set_size,
    variance_for,
    within_system_variance,
)


# -- plain references -------------------------------------------------------------------------
def _power_t(n, d, v, a):
    df = n - 1
    tc = stats.t.ppf(1 - a / 2, df)
    ncp = np.sqrt(n) * d / np.sqrt(v)
    return stats.nct.sf(tc, df, ncp) + stats.nct.cdf(-tc, df, ncp)


def _power_anova(n, d, v, a, m):
    f1, f2 = m - 1, m * (n - 1)
    return stats.ncf.sf(stats.f.ppf(1 - a, f1, f2), f1, f2, n * d * d / (2 * v))


def _ci_width(n, a, v):
    cn = np.sqrt(2 / (n - 1)) * np.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
    return 2 * stats.t.ppf(1 - a / 2, n - 1) * cn * np.sqrt(v / n)


def _search(ok):
    n = 2
    while not ok(n):
        n += 1
    return n


@pytest.mark.parametrize("a,b,d,v", [(0.05, 0.2, 0.1, 0.02), (0.01, 0.1, 0.05, 0.03), (0.05, 0.5, 0.2, 0.1),
                                     (0.1, 0.2, 0.02, 0.01)])
def test_paired_t_equals_plain_power_search(a, b, d, v):
    r = topic_set_size("paired-t", alpha=a, beta=b, min_diff=d, variance=v)
    assert r["n_topics"] == _search(lambda n: _power_t(n, d, v, a) >= 1 - b)
    assert r["power"] == pytest.approx(_power_t(r["n_topics"], d, v, a), rel=1e-10)


@pytest.mark.parametrize("a,b,d,v,m", [(0.05, 0.2, 0.1, 0.02, 10), (0.01, 0.2, 0.15, 0.04, 3),
                                       (0.05, 0.1, 0.05, 0.01, 30)])
def test_anova_equals_plain_power_search(a, b, d, v, m):
    r = topic_set_size("anova", alpha=a, beta=b, min_diff=d, variance=v, systems=m)
    assert r["n_topics"] == _search(lambda n: _power_anova(n, d, v, a, m) >= 1 - b)


@pytest.mark.parametrize("a,d,v", [(0.05, 0.1, 0.02), (0.01, 0.05, 0.03)])
def test_ci_equals_plain_width_search(a, d, v):
    r = topic_set_size("ci", alpha=a, min_diff=d, variance=v)
    assert r["n_topics"] == _search(lambda n: _ci_width(n, a, v) <= d)
    assert r["expected_width"] <= d < _ci_width(r["n_topics"] - 1, a, v)


def test_worked_example_by_hand():
    # module docstring: alpha .05, beta .2, minD .1, sigma_t^2 .02 -> 18 topics (17 give power .7814)
    r = topic_set_size("paired-t", alpha=0.05, beta=0.2, min_diff=0.1, variance=0.02)
    assert r["n_topics"] == 18 and r["n_approx"] == 18
    assert round(_power_t(17, 0.1, 0.02, 0.05), 4) == 0.7814 and round(r["power"], 4) == 0.8070
    assert np.sqrt(18) * 0.1 / np.sqrt(0.02) == pytest.approx(3.0)


def test_inverse_min_detectable_difference():
    n = 50
    d = min_detectable_difference("paired-t", n, alpha=0.05, beta=0.2, variance=0.02)
    assert _power_t(n, d, 0.02, 0.05) == pytest.approx(0.8, abs=1e-8)
    assert topic_set_size("paired-t", alpha=0.05, beta=0.2, min_diff=d * 1.0001, variance=0.02)["n_topics"] <= n
    d = min_detectable_difference("anova", n, alpha=0.05, beta=0.2, variance=0.02, systems=10)
    assert _power_anova(n, d, 0.02, 0.05, 10) == pytest.approx(0.8, abs=1e-8)
    assert min_detectable_difference("ci", n, variance=0.02) == pytest.approx(_ci_width(n, 0.05, 0.02))
    curve = power_curve("paired-t", [5, 18, 40], min_diff=0.1, variance=0.02)
    np.testing.assert_allclose(curve.power, [_power_t(n, 0.1, 0.02, 0.05) for n in (5, 18, 40)], rtol=1e-10)


def test_variance_from_data_and_bad_input():
    rng = np.random.default_rng(0)
    m, n, s2 = 20, 400, 0.01          # additive model: run effect + topic effect + noise of variance s2
    x = rng.normal(0, 0.1, (m, 1)) + rng.normal(0, 0.2, (1, n)) + rng.normal(0, np.sqrt(s2), (m, n))
    v_e = residual_variance(x)
    assert v_e == pytest.approx(s2, rel=0.05)
    d = x[0] - x[1]                   # the variance of a per-topic difference is about 2 V_E
    assert variance_for("paired-t", v_e) == pytest.approx(2 * v_e) and variance_for("anova", v_e) == v_e
    assert np.var(d, ddof=1) == pytest.approx(2 * v_e, rel=0.2)
    assert np.isnan(residual_variance(np.array([[0.1, np.nan], [0.2, 0.3]])))
    with pytest.raises(ValueError, match="test must be one of"):
        topic_set_size("z", min_diff=0.1, variance=0.1)
    with pytest.raises(ValueError, match="beta must lie in"):
        topic_set_size("paired-t", beta=1.2, min_diff=0.1, variance=0.1)
    with pytest.raises(ValueError, match="variance must be a positive"):
        topic_set_size("paired-t", min_diff=0.1, variance=0)
    with pytest.raises(ValueError, match="needs the number of systems"):
        topic_set_size("anova", min_diff=0.1, variance=0.1)
    with pytest.raises(ValueError, match="topics would be needed"):
        topic_set_size("paired-t", min_diff=1e-6, variance=1.0)


# -- standardisation ----------------------------------------------------------------------------
def test_standardise_equals_scipy_zscore_and_norm_cdf():
    rng = np.random.default_rng(1)
    x = rng.random((8, 12))
    z = stats.zscore(x, axis=0, ddof=1)
    np.testing.assert_allclose(standardise(x, "z"), z, rtol=1e-12)
    np.testing.assert_allclose(standardise(x, "cdf"), stats.norm.cdf(z), rtol=1e-12)
    np.testing.assert_allclose(standardise(x, "ab"), 0.15 * z + 0.5, rtol=1e-12)
    np.testing.assert_allclose(standardise(x, "ab", A=0.2, B=0.4), 0.2 * z + 0.4, rtol=1e-12)
    np.testing.assert_allclose(standardise(x, "z", ddof=0), stats.zscore(x, axis=0, ddof=0), rtol=1e-12)
    ref = [0, 2, 4, 6]                 # standardising runs: a subset
    mu, sd = x[ref].mean(axis=0), x[ref].std(axis=0, ddof=1)
    np.testing.assert_allclose(standardise(x, "z", reference=ref), (x - mu) / sd, rtol=1e-12)
    s = standardise_scores({"A": x, "B": x * 2}, "z")
    np.testing.assert_allclose(s["B"], z, rtol=1e-12)


def test_standardise_edges():
    x = np.array([[0.3, 0.1, np.nan], [0.3, 0.5, 0.2], [0.3, 0.9, 0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = standardise(x, "z")
        c = standardise(x, "cdf")
    assert z[:, 0].tolist() == [0.0, 0.0, 0.0] and c[:, 0].tolist() == [0.5, 0.5, 0.5]   # flat topic
    assert np.isnan(z[0, 2])
    np.testing.assert_allclose(z[1:, 2], stats.zscore([0.2, 0.4], ddof=1))            # NaN left out
    with pytest.raises(ValueError, match="standardisation must be one of"):
        standardise(x, "minmax")
    with pytest.raises(ValueError, match="at least 2 standardising runs"):
        standardise(x, "z", reference=[1])


# -- CLI ---------------------------------------------------------------------------------------------
def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_topics(capsys):
    doc = _json(capsys, ["topics", "--test", "paired-t", "--alpha", "0.05", "--beta", "0.2", "--min-diff", "0.1",
                         "--variance", "0.02", "--output", "json"])
    assert doc["n_topics"] == 18 and doc["variance"] == 0.02 and doc["beta"] == 0.2
    assert doc["variance_source"] == "given"
    doc = _json(capsys, ["topics", "--test", "anova", "--min-diff", "0.1", "--simulated", "--topics", "20",
                         "--sim-systems", "8", "--metric", "AP", "--variance-estimator", "one-way"])
    assert doc["systems"] == 8 and doc["variance_source"].startswith("sigma^2 (one-way")
    assert doc["collection_n_topics"] == 20 and doc["variance_estimator"] == "one-way"
    assert doc["variance_definition"].startswith("sigma^2 = sum_ij (x_ij - x_i.)^2 / (m(n-1)), the residual variance "
                                                 "of the one-way ANOVA (runs as groups, S_W = S_total - S_runs")
    assert "Sakai 2018" in doc["variance_definition"] and "Sakai 2018" in doc["variance_source"]
    assert doc["variance"] == pytest.approx(doc["sigma2"]) and doc["variance_estimator_default"] is False
    assert doc["n_topics"] == doc["n_topics_one_way"] > doc["n_topics_two_way"]
    doc2 = _json(capsys, ["topics", "--test", "anova", "--min-diff", "0.1", "--variance", str(doc["sigma2"]),
                          "--systems", "8"])
    assert doc2["n_topics"] == doc["n_topics"]
    assert main(["topics", "--min-diff", "0.1"]) == 2
    assert "no variance" in capsys.readouterr().err
    assert main(["topics", "--min-diff", "0.1", "--variance", "0.1", "--simulated", "--metric", "AP"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["topics", "--test", "anova", "--min-diff", "0.1", "--variance", "0.1"]) == 2
    assert "number of systems" in capsys.readouterr().err
    assert main(["topics", "--min-diff", "0.1", "--variance", "0.02", "--output", "tsv"]) == 0
    head, row = capsys.readouterr().out.splitlines()
    assert dict(zip(head.split("\t"), row.split("\t"), strict=True))["n_topics"] == "18"


def test_cli_pairs(capsys):
    argv = ["pairs", "--simulated", "--topics", "15", "--systems", "5", "--metrics", "AP", "RR", "--test", "wilcoxon",
            "--correction", "bh", "--output", "json"]
    doc = _json(capsys, argv)
    assert doc["command"] == "pairs" and len(doc["pairs"]) == 2 * 10
    rec = doc["pairs"][0]
    assert list(rec)[:10] == ["metric", "run_x", "run_y", "mean_diff", "ci_low", "ci_high", "effect_size",
                              "p_value", "p_adjusted", "significant"]
    ap = [r for r in doc["pairs"] if r["metric"] == "AP"]
    np.testing.assert_allclose([r["p_adjusted"] for r in ap], stats.false_discovery_control([r["p_value"] for r in ap]))
    assert doc["settings"]["test"] == "wilcoxon" and doc["settings"]["confidence"] == 0.95
    # standardisation changes the scores the tests see, and is echoed
    z = _json(capsys, argv + ["--standardise", "z"])
    assert z["settings"]["standardise"] == "z" and z["pairs"][0]["mean_diff"] != rec["mean_diff"]
    assert main(["pairs", "--simulated", "--topics", "15", "--systems", "4", "--metrics", "AP",
                 "--table", "summary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["metric", "test", "correction", "alpha", "n_significant", "n_pairs",
                                    "pct_significant", "topics"] and len(lines) == 2
    assert lines[1].endswith("\tntcireval:15")          # the topics AP averaged over, as in evaluate's tsv
    with pytest.raises(SystemExit):
        main(["pairs", "--simulated", "--test", "anova"])
    assert "invalid choice" in capsys.readouterr().err
    assert main(["pairs", "--simulated", "--confidence", "95"]) == 2
    assert "--confidence must be > 0 and < 1" in capsys.readouterr().err


def test_min_detectable_difference_with_two_topics_is_exact():
    # one degree of freedom: SciPy's nct.cdf(-tc) is NaN here, so the old power was NaN; ours is finite.
    # The lower tail is below 1e-12 at this effect, so SciPy's upper tail alone must give 0.8
    d = min_detectable_difference("paired-t", 2, alpha=0.05, beta=0.2, variance=0.02)
    tc, ncp = stats.t.isf(0.025, 1), np.sqrt(2) * d / np.sqrt(0.02)
    assert np.isfinite(d) and stats.nct.sf(tc, 1, ncp) == pytest.approx(0.8, abs=1e-9)


# -- the variance estimators ---------------------------------------------------------------------------
def _plain_estimators(x):
    """V_E of the two-way ANOVA without replication and the one-way ANOVA residual, by loops over cells."""
    m, n = len(x), len(x[0])
    grand = sum(sum(r) for r in x) / (m * n)
    row = [sum(r) / n for r in x]
    col = [sum(x[i][j] for i in range(m)) / m for j in range(n)]
    ss_two = ss_one = 0.0
    for i in range(m):
        for j in range(n):
            ss_two += (x[i][j] - row[i] - col[j] + grand) ** 2
            ss_one += (x[i][j] - row[i]) ** 2
    return ss_two / ((m - 1) * (n - 1)), ss_one / (m * (n - 1))


def test_estimators_equal_plain_loops_and_scipy_anova():
    x = [[0.21, 0.43, 0.90, 0.35, 0.10], [0.12, 0.30, 0.55, 0.41, 0.05], [0.40, 0.38, 0.81, 0.66, 0.25]]
    v_e, s2 = _plain_estimators(x)
    X = np.array(x)
    assert residual_variance(X) == pytest.approx(v_e, rel=1e-12)
    assert within_system_variance(X) == pytest.approx(s2, rel=1e-12)
    # scipy's one-way ANOVA: F = MS_between / MS_within, so MS_within = MS_between / F
    m, n = X.shape
    ms_between = n * ((X.mean(axis=1) - X.mean()) ** 2).sum() / (m - 1)
    assert ms_between / stats.f_oneway(*X).statistic == pytest.approx(s2, rel=1e-12)
    # and the two-way residual is what is left of the one-way residual once the topic effect is removed
    ss_topics = m * ((X.mean(axis=0) - X.mean()) ** 2).sum()
    assert v_e == pytest.approx((s2 * m * (n - 1) - ss_topics) / ((m - 1) * (n - 1)), rel=1e-12)


def test_default_estimator_is_two_way_where_systems_share_topics_and_one_way_for_unpaired_designs():
    from evalcore.meta.topicsets import ESTIMATOR_DEFINITIONS, default_estimator

    x = [[0.21, 0.43, 0.90, 0.35, 0.10], [0.12, 0.30, 0.55, 0.41, 0.05], [0.40, 0.38, 0.81, 0.66, 0.25]]
    v_e, s2 = _plain_estimators(x)
    for design, est, var in (("paired-t", "two-way", 2 * v_e), ("ci", "two-way", 2 * v_e), ("anova", "two-way", v_e),
                             ("unpaired-t", "one-way", s2), ("unpaired-ci", "one-way", s2)):
        dv = design_variance(np.array(x), design)
        assert default_estimator(design) == est and dv["estimator"] == est, design
        assert dv["variance"] == pytest.approx(var, rel=1e-12), design
        assert dv["definition"] == ESTIMATOR_DEFINITIONS[est]
    assert "Sakai 2016" in design_variance(np.array(x), "paired-t")["label"]
    assert "two-way ANOVA without replication" in ESTIMATOR_DEFINITIONS["two-way"]
    # one-way stays available for a paired design, labelled with its own source
    dv = design_variance(np.array(x), "paired-t", "one-way")
    assert dv["variance"] == pytest.approx(2 * s2, rel=1e-12) and "Sakai 2018" in dv["label"]


def test_cli_topics_default_on_clef2015_is_two_way(capsys, clef2015, clef2015_collection):
    """AP on clef2015, paired t, alpha 0.05, power 0.8, minD 0.05: the default (2 V_E) and one-way (2 sigma^2)
    sizes, each equal to the search with the variance computed by the plain loops."""
    import evalcore

    data = ["--qrels", str(clef2015 / "qrels.txt"), "--runs", str(clef2015 / "runs"), "--metric", "AP",
            "--min-diff", "0.05", "--output", "json"]
    two = _json(capsys, ["topics", *data])
    one = _json(capsys, ["topics", *data, "--variance-estimator", "one-way"])
    M = evalcore.score_matrix(clef2015_collection, "AP")
    v_e, s2 = _plain_estimators(M[:, ~np.isnan(M).any(axis=0)].tolist())
    assert two["variance_estimator"] == "two-way" and two["variance"] == pytest.approx(2 * v_e, rel=1e-9)
    assert one["variance"] == pytest.approx(2 * s2, rel=1e-9)
    assert two["n_topics"] == topic_set_size("paired-t", min_diff=0.05, variance=2 * v_e)["n_topics"] == 65
    assert one["n_topics"] == topic_set_size("paired-t", min_diff=0.05, variance=2 * s2)["n_topics"] == 215
    assert "Sakai 2016" in two["variance_definition"] and "Sakai 2016" in two["variance_source"]


# -- both estimators for every design, against a hand computation ---------------------------------------------------
#: 3 runs x 4 topics, worked by hand below (tenths, so every sum of squares is exact on paper)
HAND = [[0.2, 0.4, 0.6, 0.8],
        [0.1, 0.5, 0.3, 0.7],
        [0.3, 0.3, 0.6, 0.6]]
# grand mean 5.4 / 12 = 0.45; run means 0.5, 0.4, 0.45; topic means 0.2, 0.4, 0.5, 0.7
# S_total  = sum (x - 0.45)^2 = (0.0625 + 0.0025 + 0.0225 + 0.1225) + (0.1225 + 0.0025 + 0.0225 + 0.0625)
#            + 4 * 0.0225 = 0.21 + 0.21 + 0.09 = 0.51
# S_runs   = 4 * (0.05^2 + 0.05^2 + 0^2) = 0.02
# S_topics = 3 * (0.25^2 + 0.05^2 + 0.05^2 + 0.25^2) = 3 * 0.13 = 0.39
# two-way ANOVA without replication: S_E = 0.51 - 0.02 - 0.39 = 0.10, V_E = 0.10 / ((3-1)(4-1)) = 1/60
# one-way ANOVA (runs as groups):   S_W = 0.51 - 0.02 = 0.49,        sigma^2 = 0.49 / (3 (4-1)) = 49/900
HAND_V_E, HAND_SIGMA2 = 1 / 60, 49 / 900


def _scipy_size(design, v, m=3, alpha=0.05, beta=0.2, d=0.1):
    """The smallest n whose power (t, F designs; scipy's noncentral t / F) reaches 1 - beta, or whose expected
    CI width (c(phi) sigma from the gamma function) is <= d: a search written straight from the definitions."""
    for n in range(2, 10_000):
        if design in ("paired-t", "unpaired-t"):
            if design == "paired-t":
                df, ncp = n - 1, np.sqrt(n) * d / np.sqrt(v)
            else:
                df, ncp = 2 * (n - 1), d / np.sqrt(2 * v / n)
            tc = stats.t.isf(alpha / 2, df)
            ok = stats.nct.sf(tc, df, ncp) + stats.nct.cdf(-tc, df, ncp) >= 1 - beta
        elif design == "anova":
            df2 = m * (n - 1)
            ok = stats.ncf.sf(stats.f.isf(alpha, m - 1, df2), m - 1, df2, n * d * d / (2 * v)) >= 1 - beta
        else:
            df, k = (n - 1, 1) if design == "ci" else (2 * (n - 1), 2)
            c = np.sqrt(2 / df) * np.exp(gammaln((df + 1) / 2) - gammaln(df / 2))
            ok = 2 * stats.t.isf(alpha / 2, df) * c * np.sqrt(k * v / n) <= d
        if ok:
            return n
    raise AssertionError("no n")


@pytest.mark.parametrize("design", ["paired-t", "ci", "anova", "unpaired-t", "unpaired-ci"])
def test_both_estimators_for_every_design_equal_a_hand_computation(design, tmp_path, capsys):
    from evalcore.meta import default_estimator, estimator_sizes

    x = np.array(HAND)
    assert residual_variance(x) == pytest.approx(HAND_V_E, rel=1e-12)
    assert within_system_variance(x) == pytest.approx(HAND_SIGMA2, rel=1e-12)
    factor = 2 if design in ("paired-t", "ci") else 1
    want = {"two-way": factor * HAND_V_E, "one-way": factor * HAND_SIGMA2}
    sizes = {e: _scipy_size(design, v) for e, v in want.items()}
    assert sizes["two-way"] < sizes["one-way"]
    got = estimator_sizes(x, design, min_diff=0.1, systems=3)
    for est, v in want.items():
        dv = design_variance(x, design, est)
        assert dv["variance"] == pytest.approx(v, rel=1e-12) and dv["estimator"] == est
        assert got[est]["n_topics"] == sizes[est] and got[est]["variance"] == pytest.approx(v, rel=1e-12)
    # the default: Sakai 2016's two-way V_E where systems share topics, the one-way sigma^2 for unpaired data
    default = "one-way" if design.startswith("unpaired") else "two-way"
    assert default_estimator(design) == default and design_variance(x, design)["estimator"] == default
    # the CLI: the default, the option, and the estimate used named in the output beside both sizes
    csv = tmp_path / "s.csv"
    csv.write_text("run,topic,metric,value\n" + "".join(f"r{i},t{j},M,{v}\n" for i, row in enumerate(HAND)
                                                          for j, v in enumerate(row)))
    argv = ["topics", "--test", design, "--min-diff", "0.1", "--scores", str(csv), "--metric", "M"]
    for extra, est in (([], default), (["--variance-estimator", "two-way"], "two-way"),
                       (["--variance-estimator", "one-way"], "one-way")):
        doc = _json(capsys, argv + extra)
        assert doc["variance_estimator"] == est and doc["variance_estimator_default"] == (est == default)
        assert doc["variance"] == pytest.approx(want[est], rel=1e-12) and doc["n_topics"] == sizes[est]
        assert doc["n_topics_two_way"] == sizes["two-way"] and doc["n_topics_one_way"] == sizes["one-way"]
        assert ("two-way ANOVA without replication" if est == "two-way" else "one-way ANOVA") in doc["variance_source"]
        assert doc["v_e"] == pytest.approx(HAND_V_E) and doc["sigma2"] == pytest.approx(HAND_SIGMA2)


def test_cli_topics_anova_on_clef2015_defaults_to_two_way_and_prints_both(capsys, clef2015, clef2015_collection):
    """AP on clef2015 (30 runs), anova at alpha 0.05, power 0.8, minD 0.1: the two-way V_E (the default, as
    Sakai 2016) asks for 49 topics, the one-way sigma^2 for 165; each equals scipy's noncentral-F search with
    the variance of the plain loops."""
    import evalcore

    data = ["--qrels", str(clef2015 / "qrels.txt"), "--runs", str(clef2015 / "runs"), "--metric", "AP",
            "--test", "anova", "--min-diff", "0.1"]
    doc = _json(capsys, ["topics", *data])
    M = evalcore.score_matrix(clef2015_collection, "AP")
    v_e, s2 = _plain_estimators(M[:, ~np.isnan(M).any(axis=0)].tolist())
    assert doc["variance_estimator"] == "two-way" and doc["variance"] == pytest.approx(v_e, rel=1e-9)
    assert doc["systems"] == 30
    assert doc["n_topics"] == doc["n_topics_two_way"] == _scipy_size("anova", v_e, m=30) == 49
    assert doc["n_topics_one_way"] == _scipy_size("anova", s2, m=30) == 165
    one = _json(capsys, ["topics", *data, "--variance-estimator", "one-way"])
    assert one["n_topics"] == 165 and one["variance"] == pytest.approx(s2, rel=1e-9)
