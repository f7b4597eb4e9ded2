"""Tests that kill surviving mutants of evalcore/meta/ (docs/mutation.md), part A.

Files: stability, bootstrap, tukey, topicsets, swap, _common, correlation, scores, standardise,
_parallel. Every expected value is a hand computation, numpy's or scipy's, or the exact words of an
error message; each test names the row (file:line) it pins down.
"""
from __future__ import annotations

import math
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.meta import (
    _parallel,
    bootstrap_sensitivity,
    correlation_matrix,
    kendall_tau,
    min_detectable_difference,
    power_curve,
    read_score_csv,
    stability,
    standardise,
    subset_runs,
    swap_method,
    topic_set_size,
    topicsets,
    tukey_hsd,
    within_system_variance,
)
from evalcore.meta._common import check_scores
from evalcore.meta.bootstrap import _kth_desc_index, bootstrap_samples, paired_t, pairs_chunk, resolve_samples
from evalcore.meta.stability import fast_path_ok, stability_samples
from evalcore.meta.swap import _summary_row, swap_mask
from evalcore.meta.topicsets import _check_systems, ncf_sf, nct_two_sided_sf, power

# 3 runs x 4 topics, every pair of runs differing
SCORES = {"m": np.array([[0.9, 0.7, 0.8, 0.6], [0.5, 0.6, 0.4, 0.3], [0.1, 0.2, 0.3, 0.2]])}


def _msg(text: str) -> str:
    return "^" + re.escape(text) + "$"


# --- message-only survivors -----------------------------------------------------------------------

def test_stability_samples_messages():                      # stability.py:54, :56
    with pytest.raises(ValueError, match=_msg("B must be a whole number >= 1; got 0")):
        stability_samples(5, B=0)
    with pytest.raises(ValueError, match=_msg("subset_size must be a whole number >= 1; got 0")):
        stability_samples(5, subset_size=0)


def test_bootstrap_samples_message():                       # bootstrap.py:78
    with pytest.raises(ValueError, match=_msg("B must be a whole number >= 1; got 0")):
        bootstrap_samples(5, B=0)


def test_tukey_block_message():                             # tukey.py:189
    with pytest.raises(ValueError, match=_msg("block must be a whole number >= 1; got 0")):
        tukey_hsd(SCORES, B=10, block=0)


def test_nct_message():                                     # topicsets.py:344
    with pytest.raises(ValueError, match=_msg("noncentral t needs df >= 1, tc >= 0 and a finite ncp; "
                                              "got 0.5, 1.0, 2.0")):
        nct_two_sided_sf(1.0, 0.5, 2.0)


def test_min_detectable_difference_messages():              # topicsets.py:498 (alpha), :507
    with pytest.raises(ValueError, match=_msg("alpha must lie in (0, 1); got 1.5")):
        min_detectable_difference("paired-t", 10, alpha=1.5, variance=0.1)
    with pytest.raises(ValueError, match=_msg("power 1 - beta = 0.4 is not above alpha = 0.5: every difference, "
                                              "however small, already has that power")):
        min_detectable_difference("paired-t", 10, alpha=0.5, beta=0.6, variance=0.1)


def test_swap_confidences_message():                        # swap.py:242
    with pytest.raises(ValueError, match=_msg("confidences must lie in (0, 1); got 1.5")):
        swap_method(SCORES, B=10, confidences=(1.5,))


def test_check_scores_messages():                           # _common.py:103, :111
    with pytest.raises(ValueError, match=_msg("scores must be a mapping {metric label: (n_runs, n_topics) array}; "
                                              "got a bare array (wrap it: {'metric': array})")):
        check_scores(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=_msg("scores['m'] must be 2-D (n_runs, n_topics); got shape (3,)")):
        check_scores({"m": np.zeros(3)})


def test_correlation_x_message():                           # correlation.py:39
    with pytest.raises(ValueError, match=_msg("x must be a 1-D array of system scores; got shape (2, 2)")):
        kendall_tau(np.zeros((2, 2)), np.zeros(4))


# --- stability ------------------------------------------------------------------------------------

def test_stability_samples_defaults():                      # stability.py:50
    # defaults: B = 1000, without replacement, c = |Q| // 2, seed 0: the first c of a random permutation
    s = stability_samples(10)
    want = np.argsort(np.random.default_rng(0).random((1000, 10)), axis=1, kind="stable")[:, :5]
    assert s.shape == (1000, 5)
    assert np.array_equal(s, want)


def test_stability_draws_from_its_settings():               # stability.py:223
    r = stability(SCORES, B=6, seed=3, subset_size=2, fuzziness=(0.05,))
    want = np.argsort(np.random.default_rng(3).random((6, 4)), axis=1, kind="stable")[:, :2]
    assert np.array_equal(r.samples, want)
    r = stability(SCORES, B=5, seed=4, subset_size=3, replacement=True, fuzziness=(0.05,))
    assert np.array_equal(r.samples, np.random.default_rng(4).integers(0, 4, size=(5, 3)))


def test_stability_workload_counts_fuzziness():             # stability.py:166
    # 2 runs, 2 topics (c = 1), 40 fuzziness values: work = B x (1 pair x 40 + 2 runs x 1) = 4.2e12
    # > 3e12; with the default 4 values it would be 6e11 (then only the memory check refuses)
    s = {"m": np.array([[0.1, 0.2], [0.3, 0.4]])}
    fz = tuple(i / 100 for i in range(40))
    with pytest.raises(ValueError, match=r"^stability: 2 runs -> 1 run pair x 40 fuzziness values x "
                                         r"B = 100,000,000,000 .* = 4\.2e12 "):
        stability(s, B=10**11, fuzziness=fz)


def test_fast_path_accepts_zero_means():                    # stability.py:210
    assert fast_path_ok(np.array([0.0, 0.5]))
    assert not fast_path_ok(np.array([-0.1, 0.5]))


# --- standardise ----------------------------------------------------------------------------------

def test_standardise_single_reference_run():                # standardise.py:62
    # two reference runs, one of them unscored (NaN) on the topic: mean = 0.4, spread 0, so every z of
    # the topic is 0 (the flat policy); the NaN stays NaN
    x = np.array([[0.4], [np.nan], [0.6]])
    z = standardise(x, "z", reference=[0, 1], ddof=0)
    assert z[0, 0] == 0.0 and np.isnan(z[1, 0]) and z[2, 0] == 0.0


# --- bootstrap ------------------------------------------------------------------------------------

def test_resolve_samples_accepts_two_topics():              # bootstrap.py:90
    s = resolve_samples(np.array([[0, 1], [1, 1]]), 3, B=2, seed=0)
    assert s.tolist() == [[0, 1], [1, 1]]


def test_paired_t_scale_per_row():                          # bootstrap.py:108
    # row 0: mean 2e-14, sd 1e-14, t = 2e-14 / (1e-14 / sqrt 3) = 2 sqrt 3; row 1 far larger must not
    # make row 0 "constant"
    z = np.array([[1e-14, 3e-14, 2e-14], [1e3, 2e3, 4e3]])
    _, t = paired_t(z)
    assert t[0] == pytest.approx(2 * math.sqrt(3), rel=1e-9)


def test_kth_desc_index_with_nan():                         # bootstrap.py:135
    # stable descending order of [nan, 3, 1, 2]: 3 (col 1), 2 (col 3), 1 (col 2), nan (col 0)
    ts = np.array([[np.nan, 3.0, 1.0, 2.0]])
    assert _kth_desc_index(ts, 2).tolist() == [3]
    assert _kth_desc_index(ts, 1).tolist() == [1]


def test_pairs_chunk_without_work_arrays():                 # bootstrap.py:196
    # identical runs: z = 0, so ASL 1, mean 0, t 0
    Ct = np.ones((3, 2), dtype=np.int64)
    asl, zbar, t, est = pairs_chunk(np.zeros((1, 3)), Ct, 3, [0])
    assert asl.tolist() == [1.0] and zbar.tolist() == [0.0] and t.tolist() == [0.0] and est.tolist() == [0.0]


def test_bootstrap_workload_counts_threads():               # bootstrap.py:297
    # B = 200,000: a work row of 8 (6B + 3n) = 9.6 MB, twice per thread; 1024 threads > 16 GiB
    s = {"m": np.array([[0.1, 0.2, 0.3], [0.3, 0.1, 0.4]])}
    with pytest.raises(ValueError, match=r"^bootstrap: .* needs about .* of memory; the limit is 16\.0 GiB"):
        bootstrap_sensitivity(s, B=200_000, threads=1024, alpha=2.0)


def test_bootstrap_significant_is_strict():                 # bootstrap.py:361
    # z = x - y = [1, 2, 3], w = [-1, 0, 1], t = 2 sqrt 3. Sample [0, 0, 0]: w* constant -1, |t*| = inf
    # >= t; sample [0, 1, 2]: mean w* = 0, t* = 0. One of 20 reaches t: ASL = 1/20 = 0.05, not < 0.05.
    s = {"m": np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])}
    samples = np.array([[0, 0, 0]] + [[0, 1, 2]] * 19)
    r = bootstrap_sensitivity(s, samples=samples, alpha=0.05)
    assert r.pairs["asl"].tolist() == [0.05]
    assert r.pairs["significant"].tolist() == [False]


def test_bootstrap_result_B():                              # bootstrap.py:374
    assert bootstrap_sensitivity(SCORES, B=7).B == 7


# --- tukey ----------------------------------------------------------------------------------------

def test_tukey_result_alphas():                             # tukey.py:241
    assert tuple(tukey_hsd(SCORES, B=20, alpha=0.01).alphas) == (0.01,)


# --- topicsets ------------------------------------------------------------------------------------

def test_within_system_variance_one_topic():                # topicsets.py:202
    # fewer than 2 topics: NaN at once, without dividing 0 by m (n - 1) = 0 (no RuntimeWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(within_system_variance(np.array([[0.2], [0.3]])))


def test_systems_upper_bound_inclusive():                   # topicsets.py:292
    assert _check_systems("anova", 100_000) == 100_000
    with pytest.raises(ValueError, match=_msg("systems must be a whole number in 2..100000; got 100001")):
        _check_systems("anova", 100_001)


def test_ncf_sf_huge_noncentrality_is_one():                # topicsets.py:359
    # lam / 2 = 5e7 > the Poisson series bound: the chi mixture bound gives power 1
    assert ncf_sf(3.0, 2.0, 30.0, 1e8) == 1.0


def test_ncf_sf_bound_one_ulp_below_one(monkeypatch):      # topicsets.py:359
    # "1 in double precision": a bound of 1 - 2**-53 (the largest double below 1) counts as 1
    monkeypatch.setattr(topicsets, "_chi_mixture", lambda *a: 1 - 2 ** -53)
    assert ncf_sf(3.0, 2.0, 30.0, 1e8) == 1.0
    monkeypatch.setattr(topicsets, "_chi_mixture", lambda *a: 1 - 2 ** -52)
    with pytest.raises(ValueError, match="^the noncentral F power at noncentrality 1e"):
        ncf_sf(3.0, 2.0, 30.0, 1e8)


def _expected_width(design, n, alpha, v):
    # E[CI width] = 2 t_{alpha/2, phi} E[s] sqrt(k v / n), E[s] = chi_phi mean / sqrt(phi) (scipy)
    phi = n - 1 if design == "ci" else 2 * (n - 1)
    k = 1 if design == "ci" else 2
    return 2 * stats.t.isf(alpha / 2, phi) * stats.chi.mean(phi) / math.sqrt(phi) * math.sqrt(k * v / n)


def test_power_unpaired_ci():                               # topicsets.py:416
    w = _expected_width("unpaired-ci", 10, 0.05, 0.01)
    assert power("unpaired-ci", 10, min_diff=w * 1.01, variance=0.01) == 1.0
    assert power("unpaired-ci", 10, min_diff=w * 0.99, variance=0.01) == 0.0


def test_topic_set_size_unpaired_ci_approx():               # topicsets.py:437
    za = stats.norm.isf(0.025)
    r = topic_set_size("unpaired-ci", min_diff=0.1, variance=0.1)
    assert r["n_approx"] == math.ceil(8 * za * za * 0.1 / 0.01) == 308


def test_power_curve_expected_width():                      # topicsets.py:526
    df = power_curve("ci", [10, 20], min_diff=0.1, variance=0.01)
    want = [_expected_width("ci", n, 0.05, 0.01) for n in (10, 20)]
    assert df["expected_width"].to_numpy() == pytest.approx(want, rel=1e-9)


# --- _parallel ------------------------------------------------------------------------------------

def test_machine_threads_from_affinity(monkeypatch):        # _parallel.py:54
    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert _parallel.machine_threads() == 3


def test_thread_count_bounds():                             # _parallel.py:59
    assert _parallel._check(1, "threads") == 1
    assert _parallel._check(1024, "threads") == 1024
    for bad in (0, 1025):
        with pytest.raises(ValueError, match=_msg(f"threads must be a whole number from 1 to 1,024; got {bad}")):
            _parallel._check(bad, "threads")


def test_min_tasks():                                       # _parallel.py:143
    # max(ceil(20 / 1), ceil(4 x 8 / 1), 1) = 32; max(ceil(20 / 2), ceil(4 x 8 / 2), 1) = 16
    assert _parallel.min_tasks(8) == 32
    assert _parallel.min_tasks(8, 2) == 16
    assert _parallel.min_tasks(2, 1, 20) == 20


# --- swap -----------------------------------------------------------------------------------------

def test_swap_mask_003_zero_second_difference():            # swap.py:80
    # rule 003: a swap when the signs differ or either difference is 0 (s1 s2 <= 0)
    assert swap_mask(np.array([1.0, -1.0, 0.0]), np.array([0.0, 0.0, 1.0]), "003").tolist() == [True, True, True]


def test_summary_row_tolerance_is_inclusive():              # swap.py:129
    # bin 1: 1 swap in 2 comparisons against 1 - conf = 0.499999999999; with the slack 1e-12 per
    # comparison the bound is 2 x 0.499999999999 + 2e-12 = 1.0 exactly, and 1 <= 1: the bin is fine, so
    # the smallest reliable difference is bin 1's 0.01, covering 2 of 2 comparisons
    row = _summary_row("M", 0.500000000001, np.array([0, 2]), np.array([0, 1]), 0.5, 0.01, 2)
    assert row["abs_diff"] == 0.01 and row["pct_comparisons"] == 100.0


def test_swap_workload_is_checked():                        # swap.py:177
    # B = 1e11: work = B x (3 pairs + 2 x 3 runs x 4 topics) = 2.7e12 > 1e12, refused before anything else
    with pytest.raises(ValueError, match=r"^swap: .* = 2\.7e12 "):
        swap_method(SCORES, B=10**11, confidences=(1.5,))


def test_swap_result_rule():                                # swap.py:304
    assert swap_method(SCORES, B=10, rule="004").rule == "004"


# --- correlation ----------------------------------------------------------------------------------

def test_tau_ap_matrix_not_symmetric():                     # correlation.py:289
    # a = [3, 2, 1], b = [1, 3, 2] over runs 0..2.
    # tau_ap(a, b): order by a: runs 0, 1, 2; C(2) = 0 (b puts 1 above 0), C(3) = 1 (only run 1 above
    # run 2 in b): 2/2 (0/1 + 1/2) - 1 = -0.5. tau_ap(b, a): order by b: runs 1, 2, 0; C(2) = 1,
    # C(3) = 0: 2/2 (1/1 + 0/2) - 1 = 0.
    means = pd.DataFrame({"a": [3.0, 2.0, 1.0], "b": [1.0, 3.0, 2.0]})
    r = correlation_matrix(means, method="tau-ap")
    assert r.tau.loc["a", "b"] == pytest.approx(-0.5, abs=1e-12)
    assert r.tau.loc["b", "a"] == pytest.approx(0.0, abs=1e-12)


def test_correlation_result_alpha():                        # correlation.py:295
    means = pd.DataFrame({"a": [3.0, 2.0, 1.0], "b": [1.0, 3.0, 2.0]})
    assert correlation_matrix(means, alpha=0.05).alpha == 0.05


# --- scores ---------------------------------------------------------------------------------------

def test_read_score_csv_separator_tie_is_comma(tmp_path):  # scores.py:34
    # as many tabs as commas in the header: comma-separated (the tabs strip off the names)
    p = tmp_path / "s.csv"
    p.write_text("run,\ttopic,\tmetric,\tvalue\nr1,t1,m,0.5\nr2,t1,m,0.25\n")
    runs, topics, mats = read_score_csv(p)
    assert runs == ["r1", "r2"] and mats["m"].tolist() == [[0.5], [0.25]]


def test_read_score_csv_metric_names_are_text(tmp_path):   # scores.py:36
    p = tmp_path / "s.csv"
    p.write_text("run,topic,metric,value\nr1,t1,010,0.5\nr2,t1,010,0.25\n")
    _, _, mats = read_score_csv(p)
    assert list(mats) == ["010"]


def test_subset_runs():                                     # scores.py:91
    out = subset_runs({"m": [[1, 2], [3, 4], [5, 6]]}, [2, 0])
    assert out["m"].tolist() == [[5, 6], [1, 2]]
