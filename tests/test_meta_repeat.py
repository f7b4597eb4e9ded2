"""Swap summary as the papers define it, Monte Carlo repetitions, order invariance."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalcore.meta import bootstrap_sensitivity, sample_topics, stability, swap_method, tukey_hsd
from evalcore.meta.repeat import aggregate, derive_seeds, order_share, repeat


def _scores(seed=0, n_runs=6, n_topics=20):
    rng = np.random.default_rng(seed)
    base = np.linspace(0, 0.6, n_runs)[rng.permutation(n_runs)][:, None]
    return {"A": np.clip(base + rng.normal(0, 0.2, (n_runs, n_topics)), 0, 1),
            "B": rng.random((n_runs, n_topics))}


# -- swap summary ------------------------------------------------------------------
def test_max_performance_is_best_run_mean_on_any_sample():
    S = _scores()
    Q, Q2 = sample_topics(20, sampling="replacement", B=50, seed=2)
    r = swap_method(S, samples=(Q, Q2))
    for m, M in S.items():
        plain = max(M[x, list(q)].mean() for x in range(M.shape[0]) for q in list(Q) + list(Q2))
        got = r.summary[r.summary.metric == m]["max_performance"].unique()
        assert got.size == 1 and got[0] == pytest.approx(plain, rel=1e-12)


def test_003_table3_rr_max_is_40_over_42():
    # RR on 42 topics: a run with RR = 1 on 40 topics and 0 on 2 reaches 40/42 = .9524 (003 Table 3)
    # on the identity sample; other runs are lower everywhere.
    M = np.zeros((3, 42))
    M[0, :40] = 1.0
    M[1, :20] = 0.5
    Q = np.arange(42)[None, :]
    r = swap_method({"RR": M}, samples=(Q, Q))
    assert r.summary["max_performance"].iloc[0] == pytest.approx(0.9524, abs=5e-5)


def test_relative_is_abs_diff_over_max_performance_and_rows_sorted_by_pct():
    r = swap_method(_scores(), B=200, seed=1, confidences=(0.95, 0.8))
    s = r.summary
    ok = s["abs_diff"].notna()
    np.testing.assert_allclose(s.loc[ok, "relative"], s.loc[ok, "abs_diff"] / s.loc[ok, "max_performance"])
    assert s["confidence"].tolist() == [0.95] * 2 + [0.8] * 2
    for _, g in s.groupby("confidence", sort=False):
        p = g["pct_comparisons"].fillna(-1).tolist()
        assert p == sorted(p, reverse=True)


# -- repetitions -----------------------------------------------------------------
def test_aggregate_by_hand():
    per = pd.DataFrame({"repeat": [0, 0, 1, 1, 2, 2], "metric": ["M", "N"] * 3,
                        "x": [1.0, 2.0, 2.0, np.nan, 4.0, 4.0]})
    a = aggregate(per, ["metric"], ["x"]).set_index("metric")
    # M: 1, 2, 4 -> mean 7/3, sd sqrt(((4/3)^2 + (1/3)^2 + (5/3)^2) / 2) = sqrt(7/3)
    assert a.loc["M", "mean"] == pytest.approx(7 / 3) and a.loc["M", "sd"] == pytest.approx(math.sqrt(7 / 3))
    assert (a.loc["M", "min"], a.loc["M", "max"], a.loc["M", "n"]) == (1.0, 4.0, 3)
    # N: 2, (undefined), 4 -> mean 3, sd sqrt(2), n = 2
    assert a.loc["N", "mean"] == 3.0 and a.loc["N", "sd"] == pytest.approx(math.sqrt(2)) and a.loc["N", "n"] == 2
    one = aggregate(per[per.repeat == 0], ["metric"], ["x"])
    assert one["sd"].isna().all() and one["mean"].tolist() == [1.0, 2.0]


def test_order_share_by_hand():
    per = pd.DataFrame({"repeat": [0, 0, 0, 1, 1, 1, 2, 2, 2], "metric": ["A", "B", "C"] * 3,
                        "v": [3, 2, 1, 3, 1, 2, 1, 2, 3.0]})
    sh = order_share(per, ["A", "B", "C"], "v")
    assert sh["share"] == pytest.approx(1 / 3) and sh["repeats"] == 3
    assert sh["steps"] == {"A >= B": pytest.approx(2 / 3), "B >= C": pytest.approx(1 / 3)}
    with pytest.raises(ValueError, match="not in the result: D"):
        order_share(per, ["A", "D"], "v")


def test_derived_seeds_deterministic_and_first_is_seed():
    s = derive_seeds(5, 4)
    assert s[0] == 5 and s == derive_seeds(5, 4) and len(set(s)) == 4 and derive_seeds(6, 4)[1] != s[1]
    with pytest.raises(ValueError, match="repeats"):
        derive_seeds(0, 0)


@pytest.mark.parametrize("method,kw,fig,where", [
    ("swap", dict(B=60), "pct_comparisons", {"confidence": 0.95}),
    ("bootstrap", dict(B=60), "pct_significant", {"alpha": 0.05}),
    ("stability", dict(B=60), "error_rate", {"fuzziness": 0.05}),
    ("tukey", dict(B=80), "pct_significant", {"alpha": 0.05}),
])
def test_repeat_equals_plain_calls_with_derived_seeds(method, kw, fig, where):
    S = _scores(3)
    funcs = {"swap": swap_method, "bootstrap": bootstrap_sensitivity, "stability": stability, "tukey": tukey_hsd}
    r = repeat(method, S, repeats=3, seed=11, **kw)
    r2 = repeat(method, S, repeats=3, seed=11, **kw)
    pd.testing.assert_frame_equal(r.spread, r2.spread)                     # same seed, same numbers
    seeds = derive_seeds(11, 3)
    plain = [funcs[method](S, seed=s, **kw).summary for s in seeds]
    for m in S:
        vals = []
        for p in plain:
            row = p[p.metric == m]
            for k, v in where.items():
                row = row[np.isclose(row[k], v)]
            vals.append(float(row[fig].iloc[0]))
        got = r.table(fig, **where).loc[m]
        v = np.array([x for x in vals if not math.isnan(x)])     # undefined figures ("-") are left out
        assert got["n"] == v.size
        if v.size > 1:
            assert got["mean"] == pytest.approx(v.mean()) and got["sd"] == pytest.approx(v.std(ddof=1))
            assert got["min"] == v.min() and got["max"] == v.max()
    pd.testing.assert_frame_equal(r.first.summary, plain[0])


def test_repeat_refuses_fixed_samples():
    with pytest.raises(ValueError, match="repetitions would be identical"):
        repeat("swap", _scores(), repeats=2, samples=(np.zeros((2, 3), int), np.zeros((2, 3), int)))


# -- order invariance (the run order does not change a p-value) ---------------------------------------------------
def _unordered(df, value, flip_sign=None):
    out = {}
    for row in df.itertuples(index=False):
        key = (row.metric, frozenset((row.run_x, row.run_y)))
        v = getattr(row, value)
        if flip_sign and row.run_x > row.run_y:
            v = -v
        out[key] = v
    return out


def test_permuting_runs_permutes_results_same_seed():
    S = _scores(5, n_runs=7)
    ids = [f"r{i}" for i in range(7)]
    perm = np.random.default_rng(1).permutation(7)
    SP = {m: M[perm] for m, M in S.items()}
    idsP = [ids[i] for i in perm]

    a, b = swap_method(S, B=100, seed=4), swap_method(SP, B=100, seed=4)
    pd.testing.assert_frame_equal(a.summary, b.summary)
    pd.testing.assert_frame_equal(a.curves, b.curves)

    a, b = tukey_hsd(S, run_ids=ids, B=300, seed=4), tukey_hsd(SP, run_ids=idsP, B=300, seed=4)
    assert _unordered(a.pairs, "p_value") == _unordered(b.pairs, "p_value")
    pd.testing.assert_frame_equal(a.summary, b.summary)

    a, b = bootstrap_sensitivity(S, run_ids=ids, B=100, seed=4), bootstrap_sensitivity(SP, run_ids=idsP, B=100, seed=4)
    ua, ub = _unordered(a.pairs, "asl"), _unordered(b.pairs, "asl")
    assert ua.keys() == ub.keys() and all(ua[k] == pytest.approx(ub[k], abs=1e-12) for k in ua)
    pd.testing.assert_frame_equal(a.summary, b.summary)

    a, b = stability(S, run_ids=ids, B=100, seed=4), stability(SP, run_ids=idsP, B=100, seed=4)
    pd.testing.assert_frame_equal(a.summary, b.summary)


def test_tukey_order_invariance_three_runs_reversed():
    rng = np.random.default_rng(2)
    M = rng.random((3, 15))
    a = tukey_hsd({"M": M}, run_ids=["a", "b", "c"], B=2000, seed=0)
    b = tukey_hsd({"M": M[::-1]}, run_ids=["c", "b", "a"], B=2000, seed=0)
    assert _unordered(a.pairs, "p_value") == _unordered(b.pairs, "p_value")
