"""Swap method (003 Fig. 4, 004 Fig. 1) and topic sampling: by hand, against the loop, properties."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_meta_reference import ref_swap

from evalcore.meta import Cancelled, _common, sample_topics, swap_method
from evalcore.meta.swap import _summary_row, bin_index


def dyadic(rng, shape):
    """Scores k/64: sums over power-of-two samples are exact, so any summation order agrees."""
    return rng.integers(0, 65, size=shape) / 64.0


def test_swap_hand_example_both_rules():
    # z = (.25, -.25, .25, -.25); trial 1: D=.25, D'=-.25 (swap); 2: D=D'=0 (swap for 003 only); 3: D=D'=.25
    M = np.array([[0.50, 0.25, 0.75, 0.00], [0.25, 0.50, 0.50, 0.25]])
    Q, Q2 = np.array([[0, 2], [0, 1], [0, 0]]), np.array([[1, 3], [2, 3], [2, 0]])
    r = swap_method({"M": M}, samples=(Q, Q2))
    c = r.curves.set_index("bin")
    assert c.loc[0, "count"] == 1 and c.loc[20, "count"] == 2 and c["count"].sum() == 3
    assert c.loc[0, "swaps"] == 1 and c.loc[20, "swaps"] == 1 and c.loc[20, "swap_rate"] == 0.5
    assert math.isnan(c.loc[5, "swap_rate"])
    assert r.summary["max_performance"].iloc[0] == 0.625      # run 0 on topics (0, 2): (.5 + .75) / 2
    assert r.summary["abs_diff"].isna().all()                 # no bin qualifies: the paper's "-"
    r4 = swap_method({"M": M}, samples=(Q, Q2), rule="004").curves.set_index("bin")
    assert r4.loc[0, "swaps"] == 0 and r4.loc[20, "swaps"] == 1


def test_summary_row_by_hand():
    count = np.array([10, 0, 5, 4])
    swaps = np.array([5, 0, 0, 0])
    row = _summary_row("M", 0.95, count, swaps, 0.5, 0.01, 19)
    assert row["abs_diff"] == 0.02 and row["relative"] == pytest.approx(0.04)
    assert row["pct_comparisons"] == pytest.approx(100 * 9 / 19)
    # a bad last bin: nothing qualifies
    row = _summary_row("M", 0.95, np.array([10, 5]), np.array([0, 1]), 0.5, 0.01, 15)
    assert math.isnan(row["abs_diff"]) and math.isnan(row["pct_comparisons"])
    # 80% confidence tolerates 20%
    row = _summary_row("M", 0.80, np.array([10, 5]), np.array([5, 1]), 0.5, 0.01, 15)
    assert row["abs_diff"] == 0.01


def test_bins_edges():
    assert bin_index(np.array([0.0, 0.0099999, 0.01, 0.03, 0.07, 0.2, 5.0])).tolist() == [0, 0, 1, 3, 7, 20, 20]
    assert bin_index(np.array([0.3]), 0.05, 5).tolist() == [4]


@pytest.mark.parametrize("sampling,c", [("disjoint", 8), ("replacement", 16), ("independent", 8)])
@pytest.mark.parametrize("rule", ["003", "004"])
def test_swap_equals_loop_on_dyadic_data(sampling, c, rule):
    rng = np.random.default_rng(11)
    M = dyadic(rng, (6, 20))
    M[3] = M[1]                                              # identical runs: D = 0 always
    Q, Q2 = sample_topics(20, sampling=sampling, subset_size=c, B=60, seed=4)
    r = swap_method({"M": M}, samples=(Q, Q2), rule=rule, bin_width=0.01, n_bins=21)
    count, swaps, mx = ref_swap(M, Q, Q2, rule=rule)
    assert r.curves["count"].tolist() == count.tolist()
    assert r.curves["swaps"].tolist() == swaps.tolist()
    assert r.summary["max_performance"].iloc[0] == mx


def test_swap_equals_loop_on_continuous_data():
    rng = np.random.default_rng(12)
    M = rng.beta(0.6, 1.2, size=(7, 30))
    Q, Q2 = sample_topics(30, sampling="replacement", B=80, seed=3)
    r = swap_method({"M": M}, samples=(Q, Q2), bin_width=0.02, n_bins=11)
    count, swaps, mx = ref_swap(M, Q, Q2, width=0.02, n_bins=11)
    assert r.curves["count"].tolist() == count.tolist()
    assert r.curves["swaps"].tolist() == swaps.tolist()
    assert r.summary["max_performance"].iloc[0] == pytest.approx(mx, rel=1e-12)


def test_sampling_shapes_and_rules():
    Q, Q2 = sample_topics(20, sampling="disjoint", B=50, seed=0)
    assert Q.shape == (50, 10)
    assert all(len(set(a)) == 10 and set(a).isdisjoint(b) for a, b in zip(Q, Q2, strict=True))
    Q, Q2 = sample_topics(20, sampling="independent", subset_size=15, B=50, seed=0)
    assert all(len(set(a)) == 15 and len(set(b)) == 15 for a, b in zip(Q, Q2, strict=True))
    assert any(set(a) & set(b) for a, b in zip(Q, Q2, strict=True))
    Q, Q2 = sample_topics(20, sampling="replacement", B=50, seed=0)
    assert Q.shape == (50, 20) and any(len(set(a)) < 20 for a in Q)
    with pytest.raises(ValueError, match="subset_size must be <= 10 for disjoint"):
        sample_topics(20, sampling="disjoint", subset_size=11)
    with pytest.raises(ValueError, match="sampling must be one of"):
        sample_topics(20, sampling="bootstrap")


def _sim(n_runs, n_topics, seed):
    rng = np.random.default_rng(seed)
    eff = np.linspace(0.2, 0.5, n_runs)[:, None]
    return np.clip(eff + rng.normal(0, 0.25, size=(n_runs, n_topics)), 0, 1)


def test_more_topics_lower_swap_rates():
    rates = []
    for n in (10, 40, 160):
        r = swap_method({"M": _sim(12, n, 0)}, B=300, seed=1)
        c = r.curves
        rates.append(c["swaps"].sum() / c["count"].sum())
    assert rates[0] > rates[1] > rates[2]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["disjoint", "replacement", "independent"]))
def test_swap_rates_in_unit_interval(seed, sampling):
    M = np.random.default_rng(seed).random((5, 12))
    r = swap_method({"M": M}, sampling=sampling, B=40, seed=seed)
    rate = r.curves["swap_rate"].dropna()
    assert ((rate >= 0) & (rate <= 1)).all()
    assert r.curves["count"].sum() == 10 * 40
    s = r.summary
    ok = s["pct_comparisons"].dropna()
    assert ((ok >= 0) & (ok <= 100)).all()


def test_seed_determinism_and_metric_order():
    rng = np.random.default_rng(3)
    A, B = rng.random((6, 25)), rng.random((6, 25))
    r1 = swap_method({"A": A, "B": B}, B=100, seed=7)
    r2 = swap_method({"B": B, "A": A}, B=100, seed=7)
    r3 = swap_method({"A": A}, B=100, seed=7)
    r4 = swap_method({"A": A}, B=100, seed=8)
    a1 = r1.curves[r1.curves.metric == "A"].reset_index(drop=True)
    a2 = r2.curves[r2.curves.metric == "A"].reset_index(drop=True)
    assert a1.equals(a2) and a1.equals(r3.curves)
    assert not a1["swaps"].equals(r4.curves["swaps"])


def test_chunking_does_not_change_results(monkeypatch):
    M = np.random.default_rng(4).random((9, 20))
    full = swap_method({"M": M}, B=64, seed=2)
    import evalcore.meta.swap as swap_mod
    monkeypatch.setattr(swap_mod, "ROW_BUDGET", 8 * 4 * 64 * 3)          # blocks of 3 partner runs
    small = swap_method({"M": M}, B=64, seed=2)
    assert full.curves.equals(small.curves)
    blocks = swap_mod.row_blocks(9, 3)
    assert max(j1 - j0 for _, j0, j1 in blocks) == 3
    pairs = [(i, j) for i, j0, j1 in blocks for j in range(j0, j1)]
    assert pairs == list(zip(*[a.tolist() for a in _common.pair_index(9)], strict=True))


def test_memory_bound_of_chunks():
    # 435 pairs x 1000 samples x 66 topics must never materialise: chunks stay within the budget
    chunks = _common.pair_chunks(435, 8 * (4 * 1000 + 66), n_jobs=7)
    assert max(s.stop - s.start for s in chunks) * 8 * (4 * 1000 + 66) <= 16 << 20
    assert sum(s.stop - s.start for s in chunks) == 435


def test_progress_and_cancel():
    M = np.random.default_rng(0).random((8, 20))
    seen = []
    swap_method({"a": M, "b": M}, B=50, progress=lambda f: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and np.all(np.diff(seen) >= 0)
    assert max(np.diff(seen)) <= 0.051
    with pytest.raises(Cancelled):
        swap_method({"a": M}, B=50, progress=lambda f: f > 0.3)


def test_swap_input_errors():
    with pytest.raises(ValueError, match="one shape"):
        swap_method({"a": np.zeros((3, 4)), "b": np.zeros((3, 5))})
    with pytest.raises(ValueError, match="rule must be"):
        swap_method({"a": np.zeros((3, 4))}, rule="002")
    with pytest.raises(ValueError, match="NaN"):
        swap_method({"a": np.full((3, 4), np.nan)})
