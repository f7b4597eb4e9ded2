"""evalcore.meta.paper: 003's printed figures (Table 2, Tables 7-9) as typed from the paper, the verdict rule, and the
topic-bootstrap interval of Kendall's tau against scipy and a plain loop over topic samples."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from evalcore.meta import paper
from evalcore.meta.topic_bootstrap import topic_samples


def test_table2_as_003_prints_it():
    # 003 Table 2, read off the paper: (a) RR row of NTCIR-3 Chinese, the (f)-(g) cell of each data set, and
    # NTCIR-5 Japanese's lowest (O-measure vs AveP, .3563)
    assert paper.TABLE2[("RR", "NWRR")][0] == .8575 and paper.TABLE2[("RR", "Q-measure")][0] == .5494
    assert [paper.TABLE2[("AP", "Q-measure")][d] for d in range(4)] == [.9678, .9540, .9172, .8851]
    assert paper.TABLE2[("O-measure", "AP")][3] == .3563
    assert len(paper.TABLE2) == 21 and all(len(v) == 4 for v in paper.TABLE2.values())
    # 003 Sec. 5.2: "All the correlation values exceed 0.34"; RR vs the other four on NTCIR-5 Japanese: .6138-.7839
    assert min(v for vals in paper.TABLE2.values() for v in vals) > paper.SIGNIFICANT_TAU
    assert [paper.TABLE2[("RR", m)][3] for m in ("NWRR", "O-measure", "P-measure", "P+-measure")] == \
        [.7839, .6506, .6138, .7057]
    assert paper.paper_range([("NWRR", "RR")]) == (.7839, .8805)          # either orientation
    assert paper.MAX_RP["NTCIR-3 Chinese"] == 913 and paper.MAX_RP["NTCIR-5 Japanese"] == 852


@pytest.mark.parametrize("value, lo, hi, status", [
    (0.70, 0.60, 0.80, "inside"), (0.61, 0.50, 0.70, "inside"),          # inside: whatever the interval
    (0.95, 0.85, 0.97, "near"), (0.50, 0.40, 0.62, "near"),              # outside, the interval reaches it
    (0.95, 0.93, 0.97, "above"), (0.40, 0.30, 0.55, "below"),
    (float("nan"), 0.1, 0.2, "undefined")])
def test_agreement_rule(value, lo, hi, status):
    a = paper.agreement(value, lo, hi, 0.6, 0.9)
    assert a["status"] == status and a["agrees"] == (status in ("inside", "near"))
    assert a["words"].startswith({"inside": "agrees:", "near": "agrees within the uncertainty:",
                                  "above": "differs: higher", "below": "differs: lower",
                                  "undefined": "no comparison"}[status])


def test_agreement_without_an_interval_says_so():
    a = paper.agreement(0.95, float("nan"), float("nan"), 0.6, 0.9)
    assert a["status"] == "above" and "no topic interval computed" in a["words"]


def _scores(n_runs=12, n_topics=25, seed=3):
    rng = np.random.default_rng(seed)
    base = rng.random((n_runs, 1))
    return {"A": base + 0.4 * rng.random((n_runs, n_topics)), "B": base + 0.5 * rng.random((n_runs, n_topics)),
            "C": rng.random((n_runs, n_topics))}


def test_tau_topic_bootstrap_against_scipy_and_a_plain_loop():
    S = _scores()
    t = paper.tau_topic_bootstrap(S, resamples=60, seed=7)
    assert [(r.metric_a, r.metric_b) for r in t.itertuples()] == [("A", "B"), ("A", "C"), ("B", "C")]
    for r in t.itertuples():
        ref = kendalltau(S[r.metric_a].mean(axis=1), S[r.metric_b].mean(axis=1)).statistic
        assert r.tau == pytest.approx(ref, abs=1e-12)
        # the interval: observed taus on the same topic samples, computed here one by one with scipy
        draws = [kendalltau(S[r.metric_a][:, idx].mean(axis=1), S[r.metric_b][:, idx].mean(axis=1)).statistic
                 for _, idx, _ in topic_samples(25, 60, 7)]
        assert (r.lo, r.hi) == pytest.approx((np.percentile(draws, 2.5, method="lower"),
                                              np.percentile(draws, 97.5, method="higher")), abs=1e-12)
        assert r.lo <= r.tau <= r.hi and r.n == 60
    again = paper.tau_topic_bootstrap(S, resamples=60, seed=7)
    pd.testing.assert_frame_equal(t, again)                              # a seed gives the same numbers


def test_tau_topic_bootstrap_refuses_bad_input():
    with pytest.raises(ValueError, match="at least 2 metrics"):
        paper.tau_topic_bootstrap({"A": np.ones((3, 4))})
    with pytest.raises(ValueError, match="same shape"):
        paper.tau_topic_bootstrap({"A": np.ones((3, 4)), "B": np.ones((3, 5))})
    with pytest.raises(ValueError, match="lacks"):
        paper.tau_topic_bootstrap(_scores(), [("A", "Z")])


def _table2_scores(shift: float = 0.0, n_runs: int = 30, n_topics: int = 40, seed: int = 0):
    """Seven metrics that agree as 003's do (a shared quality, metric noise), or, with ``shift``, noisier RR."""
    rng = np.random.default_rng(seed)
    q = rng.random((n_runs, 1))
    out = {}
    for m in paper.TABLE2_ORDER:
        noise = 0.35 if m in ("AP", "Q-measure") else 0.2
        noise += shift if m == "RR" else 0.0
        out[m] = q + noise * rng.random((n_runs, n_topics))
    return out


def test_table2_comparison_and_findings_name_what_differs():
    cmp = paper.table2_comparison(_table2_scores(shift=3.0), resamples=50)
    assert list(cmp[["metric_a", "metric_b"]].itertuples(index=False, name=None)) == list(paper.TABLE2)
    rr = cmp[cmp["metric_a"] == "RR"]
    assert (rr["status"] == "below").any()                   # RR made almost random: below 003's range
    fs = paper.table2_findings(cmp)
    assert [f["name"] for f in fs] == ["significance", "one-document metrics", "RR", "AveP"]
    rr_f = next(f for f in fs if f["name"] == "RR")
    assert not rr_f["agrees"] and rr_f["text"].startswith("differs:") and "RR - " in rr_f["detail"]


def test_table2_findings_with_too_few_runs_cannot_check_significance():
    cmp = paper.table2_comparison(_table2_scores(n_runs=5), resamples=20)
    sig = paper.table2_findings(cmp)[0]
    assert sig["verdict"] == "cannot be checked" and "5 runs" in sig["detail"] and not sig["agrees"]


def test_table2_comparison_without_topic_samples():
    cmp = paper.table2_comparison(_table2_scores(), resamples=0)
    assert cmp["lo"].isna().all() and len(cmp) == 21


def test_topic_interval_of_the_largest_value():
    v, lo, hi = paper.topic_interval([3.0, 900.0, 40.0, 12.0, 7.0, np.nan], np.max, resamples=200, seed=1)
    assert v == 900.0 and hi == 900.0 and lo in (12.0, 40.0, 900.0)


def test_table5_as_003_prints_it():
    # 003 Table 5, read off the paper: NTCIR-5 Japanese's O-measure row, its lowest (.6506 at 1:1:1)
    assert paper.TABLE5["NTCIR-5 Japanese"]["O-measure"] == (.8529, .7471, .6506, .7195)
    assert paper.TABLE5["NTCIR-3 Chinese"]["P-measure"][0] == .9899
    assert paper.TABLE5_SETTINGS == ("30:20:10", "0.3:0.2:0.1", "1:1:1", "10:5:1")
    # 003 Sec. 5.5: "O-measure may be less robust": its row minimum is below P+'s and P's on every data set
    for d in paper.DATA_SETS:
        row = {m: min(v) for m, v in paper.TABLE5[d].items()}
        assert row["O-measure"] < min(row["P+-measure"], row["P-measure"])


def _gain_data(o_noise, seed=5, n_runs=14, n_topics=30):
    rng = np.random.default_rng(seed)
    base = rng.random((n_runs, 1)) + 0.3 * rng.random((n_runs, n_topics))
    default = {m: base for m in ("P+-measure", "P-measure", "O-measure")}
    noise = {"P+-measure": 0.05, "P-measure": 0.08, "O-measure": o_noise}
    variants = {m: {s: base + noise[m] * rng.random((n_runs, n_topics)) for s in ("20:10", "1:1")}
                for m in default}
    return default, variants


def test_table5_findings_equal_a_plain_loop_with_scipy():
    default, variants = _gain_data(o_noise=0.6)
    f = {d["name"]: d for d in paper.table5_findings(default, variants, resamples=40, seed=3)}

    def lowest(idx):
        return {m: min(kendalltau(default[m][:, idx].mean(axis=1), v[:, idx].mean(axis=1)).statistic
                       for v in variants[m].values()) for m in default}
    low = lowest(np.arange(30))
    share = np.mean([(lambda w: w["O-measure"] < min(w["P+-measure"], w["P-measure"]))(lowest(idx))
                     for _, idx, _ in topic_samples(30, 40, 3)])
    assert low["O-measure"] < min(low["P+-measure"], low["P-measure"])
    o = f["o_less_robust"]
    assert o["verdict"] == "agrees" and f"{low['O-measure']:.3f}" in o["detail"]
    assert f"lowest in {share:.0%} of 40 topic samples" in o["detail"]
    # every metric's lowest tau is named with the setting it comes from
    for m in default:
        setting = min(variants[m], key=lambda s: kendalltau(default[m].mean(axis=1),
                                                            variants[m][s].mean(axis=1)).statistic)
        assert f"{m} {low[m]:.3f} (against {setting})" in f["robust"]["detail"]


def test_table5_findings_differ_where_the_data_does():
    # O-measure as stable as the others: "O less robust" does not hold; a ranking shuffled by the gains is not
    # "relatively robust" (its lowest tau below 003's row minima even on other topic sets)
    default, variants = _gain_data(o_noise=0.01)
    f = {d["name"]: d for d in paper.table5_findings(default, variants, resamples=40)}
    assert f["o_less_robust"]["verdict"] == "differs"
    rng = np.random.default_rng(9)
    variants["O-measure"] = {"1:1": rng.random((14, 30))}
    f = {d["name"]: d for d in paper.table5_findings(default, variants, resamples=40)}
    assert f["robust"]["verdict"] == "differs" and "lower than 003's (.6506-.8345)" in f["robust"]["detail"]
    assert f["o_less_robust"]["verdict"] == "agrees"


def test_table5_findings_without_other_settings_cannot_be_checked():
    default, _ = _gain_data(0.1)
    f = paper.table5_findings(default, {m: {} for m in default}, resamples=10)
    assert [d["verdict"] for d in f] == ["cannot be checked", "cannot be checked"]
