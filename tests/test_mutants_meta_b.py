"""Tests that kill surviving mutants of evalcore/meta/ (docs/mutation.md, part B: repeat.py, reuse.py,
topic_bootstrap.py, verdict.py, pairs.py). Expected values come from hand computations, numpy or scipy."""
from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.meta import reuse as _reuse
from evalcore.meta.pairs import _Diffs, _quantile_se, adjust_pvalues, pair_statistics
from evalcore.meta.repeat import RepeatResult, aggregate, order_share, repeat
from evalcore.meta.topic_bootstrap import topic_bootstrap
from evalcore.meta.verdict import gain_choice_verdict, order_claim_verdict

# run 0 beats runs 1 and 2 by exactly 1 on every topic, runs 1 and 2 tie: for any seed and B the bootstrap
# test finds 2 of the 3 pairs significant (ASL 0 for a constant difference, 1 for none)
STRONG = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
# every run equal: no pair significant
FLAT = np.full((3, 4), 0.5)
# all three pairs differ by a constant (2, 1, 1): 3 of 3 significant
STEPS = np.array([[2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])


class DictStore:
    def __init__(self):
        self.d = {}

    def lookup(self, key):
        return self.d.get(key)

    def put(self, key, value):
        self.d[key] = value


def hand_digest(matrix, order_free=False):
    """reuse.digest written from its docstring: blake2b-128 of repr((shape, order_free)) then the float64
    bytes, rows sorted lexicographically when order_free."""
    a = np.asarray(matrix, dtype=np.float64)
    if order_free:
        a = np.array(sorted(a.tolist()), dtype=np.float64)
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((a.shape, bool(order_free))).encode())
    h.update(a.tobytes())
    return h.hexdigest()


# -- pairs.py ------------------------------------------------------------------------------------
def test_pairs_correction_message():
    with pytest.raises(ValueError, match=r"^correction must be one of none, holm, bh; got 'xx'$"):
        adjust_pvalues([0.1, 0.2], "xx")


def test_pairs_bootstrap_ci_message():
    r = pair_statistics({"M": STRONG}, tests=("t",))
    with pytest.raises(ValueError, match=r"^the bootstrap CI needs the bootstrap samples: compute with "
                                         r"'bootstrap' in tests$"):
        r.table("t", ci="bootstrap")


def test_pairs_not_computed_message():
    r = pair_statistics({"M": STRONG}, tests=("t", "sign"))
    with pytest.raises(ValueError, match=r"^test 'wilcoxon' was not computed \(computed: t, sign\)$"):
        r.table("wilcoxon")


def test_pairs_infinite_message():
    # NaN cells are allowed here (no score), so the message names only infinite values
    with pytest.raises(ValueError, match=r"^scores\['M'\] holds infinite values; fill missing \(run, topic\) "
                                         r"cells first$"):
        pair_statistics({"M": np.array([[1.0, np.inf], [0.0, 0.0]])}, tests=("t",))


def test_pairs_B_message():
    with pytest.raises(ValueError, match=r"^B must be a whole number >= 1; got 0$"):
        pair_statistics({"M": STRONG}, B=0)


def test_quantile_se_per_row():
    bm = np.vstack([np.arange(10.0), 3.0 * np.arange(10.0) ** 2])
    q = 0.3                                       # q +- h stays inside [0, 1]
    h = np.sqrt(q * (1 - q) / 10)
    for i in range(2):
        want = (np.quantile(bm[i], q + h) - np.quantile(bm[i], q - h)) / 2
        assert _quantile_se(bm, q)[i] == pytest.approx(want, rel=1e-12)


def test_pairs_result_fields():
    M = np.array([[0.5, 0.6, 0.7, 0.8], [0.1, 0.2, 0.1, 0.2], [0.4, 0.9, 0.3, 0.2]])
    r = pair_statistics({"M": M}, tests=("t",), confidence=0.9, B=50, seed=3)
    assert r.pairs["n_topics"].dtype == np.int64
    assert r.pairs["n_topics"].tolist() == [4, 4, 4]
    # residual variance of the two-way ANOVA without replication (Sakai 2014 Sec. 3.3), by hand
    resid = M - M.mean(axis=1, keepdims=True) - M.mean(axis=0, keepdims=True) + M.mean()
    assert r.v_e["M"] == pytest.approx((resid ** 2).sum() / (2 * 3), rel=1e-12)
    assert r.confidence == 0.9 and r.B == 50 and r.seed == 3 and r.tests == ("t",)
    assert r.v_e_runs == 3 and r.n_flips == 0 and r.exact_randomisation is False
    assert r.pairs["mean_diff"].tolist() == pytest.approx([0.5, 0.2, -0.3], abs=1e-12)


def test_pairs_one_common_topic_mean():
    # the runs share topic 0 only: mean_diff is that topic's difference, n_topics 1, no CI
    M = np.array([[1.0, np.nan, 3.0], [0.25, 2.0, np.nan]])
    row = pair_statistics({"M": M}, tests=("t",)).pairs.iloc[0]
    assert row["n_topics"] == 1
    assert row["mean_diff"] == 0.75
    assert np.isnan(row["ci_low"])


def test_pairs_constant_judged_per_pair():
    # pair (1, 2) differs by -0.2, -0.6 (sd 0.283) while other pairs of the chunk reach 1e12: it is no
    # constant difference, t = -0.4 / (0.283 / sqrt 2) = -2 as scipy's paired t-test gives
    # (10 runs: 45 pairs, so chunks hold more than one pair and (0, 9) shares one with (1, 2))
    M = np.zeros((10, 2))
    M[0] = [1e12, -1e12]
    M[2] = [0.2, 0.6]
    p = pair_statistics({"M": M}, tests=("t",)).pairs
    row = p[(p["run_x"] == "1") & (p["run_y"] == "2")].iloc[0]
    ref = stats.ttest_rel([0.0, 0.0], [0.2, 0.6])
    assert row["t"] == pytest.approx(ref.statistic, rel=1e-9)
    assert row["t"] == pytest.approx(-2.0, rel=1e-9)
    assert row["p_t"] == pytest.approx(ref.pvalue, rel=1e-9)
    # the same two pairs as one block of differences
    assert _Diffs(np.array([[1e12, -1e12], [-0.2, -0.6]])).const.tolist() == [False, False]


# -- topic_bootstrap.py ----------------------------------------------------------------------------
def test_topic_bootstrap_default_method_is_bootstrap():
    r = topic_bootstrap({"M": STRONG}, resamples=2, B=20)
    assert r.method == "bootstrap"
    assert r.per_resample["n_significant"].tolist() == [2, 2]
    assert r.per_resample["resample"].tolist() == [0, 1]


# -- verdict.py --------------------------------------------------------------------------------------
def test_gain_verdict_twice_noise():
    # span 25 points > 2 x noise (10) and > one pair (2.22): it matters (3 x noise would say it does not)
    v = gain_choice_verdict([0.95, 0.97], [60.0, 85.0], [55.0, 80.0], [65.0, 90.0], 45)
    assert v["span"] == 25.0 and v["noise"] == 10.0
    assert v["matters"] is True
    assert v["text"].endswith(
        "The choice matters here: discriminative power differs by more than twice the Monte Carlo range and "
        "more than one pair; report the gains you used, and say so.")


def test_gain_verdict_natural_text():
    v = gain_choice_verdict([0.95, 0.97], [60.0, 62.0], [59.0, 61.0], [61.0, 63.0], 45)
    assert v["matters"] is False
    assert v["text"] == (
        "Across these settings tau against the default ranges from 0.950 to 0.970; % significant moves by "
        "2.0 points, against a Monte Carlo range of up to 2.0 points for one setting (seeds only, topics "
        "fixed) and a one-pair step of 2.2 points (45 pairs). Report the gains you find natural: on this "
        "data the ranking hardly changes (every tau >= 0.9) and the power differences are within noise or "
        "one pair, i.e. ties.")


def test_order_verdict_broken_steps_text():
    w = pd.DataFrame({"A": [60.0, 61.0], "B": [50.0, 52.0], "C": [40.0, 52.0]})
    v = order_claim_verdict(w, [("A", "B"), ("B", "C")])
    assert v["text"] == ("A > B > C holds in 1 of 2 repetitions: % of pairs (mean) A 60.5, B 51.0, C 46.0. "
                         "Steps that do not always hold: B > C 50% (tie 50%).")


def test_order_verdict_none_of():
    w = pd.DataFrame({"A": [40.0, 41.0], "B": [50.0, 52.0]})
    v = order_claim_verdict(w, [("A", "B")])
    assert v["status"] == "fails"
    assert v["text"].startswith("A > B holds in none of the 2 repetitions:")


# -- repeat.py -----------------------------------------------------------------------------------------
def test_aggregate_one_repeat_sd_nan_without_warning():
    df = pd.DataFrame({"repeat": [0], "metric": "M", "x": [2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = aggregate(df, ["metric"], ["x"])
    assert out[["mean", "min", "max", "n"]].values.tolist() == [[2.0, 2.0, 2.0, 1]]
    assert np.isnan(out["sd"].iloc[0])


def test_repeat_result_table_filters():
    spread = pd.DataFrame({"metric": ["A", "A", "B"], "confidence": [0.95, 0.9, 0.95], "figure": "x",
                           "mean": [1.0, 2.0, 3.0], "sd": 0.0, "min": 0.0, "max": 4.0, "n": 2})
    r = RepeatResult(method="swap", spread=spread, per_repeat=pd.DataFrame(), first=None)
    t = r.table("x", confidence=0.95)
    assert t.index.tolist() == ["A", "B"] and t["mean"].tolist() == [1.0, 3.0]
    assert r.table("x", metric="A")["mean"].tolist() == [1.0, 2.0]


def test_order_share_dict():
    df = pd.DataFrame({"repeat": [0, 0, 0, 1, 1, 1], "metric": ["A", "B", "C"] * 2,
                       "x": [3.0, 2.0, 1.0, 1.0, 2.0, 0.0]})
    assert order_share(df, ["A", "B", "C"], "x") == {"claim": "A >= B >= C", "share": 0.5,
                                                       "steps": {"A >= B": 0.5, "B >= C": 1.0}, "repeats": 2}
    # rows filtered by a level: at confidence 0.9 A is last in both repetitions
    both = pd.concat([df.assign(confidence=0.95), df.assign(confidence=0.9, x=df["x"] - 5 * (df["metric"] == "A"))])
    assert order_share(both, ["A", "B"], "x", confidence=0.95)["share"] == 0.5
    assert order_share(both, ["A", "B"], "x", confidence=0.9)["share"] == 0.0


def test_repeat_fixed_draw_message():
    with pytest.raises(ValueError, match=r"^samples= fixes the random draw, so repetitions would be identical; "
                                         r"give a seed instead$"):
        repeat("bootstrap", {"M": STRONG}, samples=np.zeros((5, 4), dtype=np.intp))


def test_repeat_dask_to_parquet_repeats():
    with pytest.raises(ValueError, match=r"^to_parquet= writes one result's pairs; repeats=2 would write 2: run "
                                         r"each seed on its own \(RepeatResult\.seeds lists them\)$"):
        repeat("bootstrap", {"M": STRONG}, repeats=2, on_dask=True, to_parquet="/nonexistent/x", B=10)


def test_repeat_dask_to_parquet_swap():
    with pytest.raises(ValueError, match=r"^to_parquet= writes per-pair tables; the swap method has none "):
        repeat("swap", {"M": STRONG}, on_dask=True, to_parquet="/nonexistent/x", B=10)


def test_repeat_workload_uses_given_B():
    # the check of both repetitions together sees B = 10^9, not the default B = 1000 (with which only the
    # method's own check of one call would refuse it)
    with pytest.raises(ValueError, match=r"^bootstrap: 3 runs -> 3 run pairs x B = 1,000,000,000 x 1 metric x "
                                         r"4 topics x 2 repetitions needs"):
        repeat("bootstrap", {"M": STRONG}, B=10 ** 9, repeats=2)


def test_repeat_reuse_rows_and_progress():
    S = {"A": STRONG, "B": FLAT}
    store = DictStore()
    r1 = repeat("bootstrap", S, repeats=2, B=20, seed=5, reuse=store)
    assert r1.per_repeat.columns.tolist()[:4] == ["repeat", "seed", "metric", "alpha"]
    assert r1.per_repeat["repeat"].tolist() == [0, 0, 1, 1]
    assert r1.per_repeat["n_significant"].tolist() == [2, 0, 2, 0]
    assert len(store.d) == 4                      # 2 metrics x 2 seeds x 1 alpha
    calls = []
    r2 = repeat("bootstrap", S, repeats=2, B=20, seed=5, reuse=store, progress=calls.append)
    assert r2.first is None                       # every row came from the store
    assert r2.per_repeat["metric"].tolist() == ["A", "B", "A", "B"]
    assert r2.per_repeat["n_significant"].tolist() == [2, 0, 2, 0]
    assert calls == [0.5, 1.0]
    # C is computed, A and B are taken from the store
    r3 = repeat("bootstrap", {**S, "C": STEPS}, repeats=2, B=20, seed=5, reuse=store)
    assert r3.per_repeat["metric"].tolist() == ["A", "B", "C"] * 2
    assert r3.per_repeat["n_significant"].tolist() == [2, 0, 3] * 2


def test_repeat_reuse_swap_sorted():
    store = DictStore()
    S = {"A": STRONG, "B": STEPS}
    repeat("swap", S, B=10, seed=2, reuse=store)
    r = repeat("swap", S, B=10, seed=2, reuse=store)
    # swap's summary order: grouped by confidence in the given order (0.95, 0.90, 0.80)
    assert r.per_repeat["confidence"].tolist() == [0.95, 0.95, 0.9, 0.9, 0.8, 0.8]
    assert sorted(r.per_repeat["metric"].tolist()) == ["A", "A", "A", "B", "B", "B"]


# -- reuse.py --------------------------------------------------------------------------------------
def test_reuse_digest_bytes():
    M = np.array([[0.5, 0.25, 1.0], [0.0, 0.75, 0.125]])
    assert _reuse.digest(M) == hand_digest(M)
    assert _reuse.digest(M) != _reuse.digest(M + 0.5)


def test_reuse_digest_order_free():
    M = np.array([[0.5, 0.25, 1.0], [0.0, 0.75, 0.125]])
    assert _reuse.digest(M, True) == hand_digest(M, True)
    assert _reuse.digest(M[::-1], True) == hand_digest(M, True)


def test_reuse_method_settings_defaults():
    levels, settings = _reuse.method_settings("bootstrap", {})
    assert levels == (0.05,)
    assert settings == (("B", 1000),)
    levels, settings = _reuse.method_settings("bootstrap", {"B": 20, "alpha": [0.05, 0.01], "threads": 2})
    assert levels == (0.05, 0.01) and settings == (("B", 20),)


def _kept():
    store = DictStore()
    summary = pd.DataFrame({"metric": ["A", "A"], "alpha": [0.05, 0.01], "n_significant": [2, 1]})
    _reuse.keep_rows(store, "bootstrap", {"A": STRONG}, summary, {"alpha": (0.05, 0.01), "B": 20}, seed=7)
    return store


def test_reuse_keep_rows_keys():
    store = _kept()
    dg = hand_digest(STRONG, True)                # bootstrap is order free
    assert set(store.d) == {("row", "bootstrap", dg, 7, 0.05, (("B", 20),)),
                            ("row", "bootstrap", dg, 7, 0.01, (("B", 20),))}
    own, dtypes, values = store.d[("row", "bootstrap", dg, 7, 0.01, (("B", 20),))]
    assert own == ("metric", "alpha", "n_significant")
    assert values == ("A", 0.01, 1)
    assert [str(t) for t in dtypes[1:]] == ["float64", "int64"]


def test_reuse_take_rows_unpacked():
    store = _kept()
    dg = hand_digest(STRONG, True)
    out = _reuse.take_rows(store, "bootstrap", ["Z"], {"Z": dg}, 7, (0.05, 0.01), (("B", 20),))
    assert list(out) == ["Z"]
    rows = out["Z"]
    assert [r["metric"].tolist() for r in rows] == [["Z"], ["Z"]]
    assert [r["alpha"].tolist() for r in rows] == [[0.05], [0.01]]
    assert [r["n_significant"].tolist() for r in rows] == [[2], [1]]
    assert rows[0]["n_significant"].dtype == np.int64
    assert _reuse.take_rows(store, "bootstrap", ["Z"], {"Z": dg}, 8, (0.05,), (("B", 20),)) == {}

