"""Bootstrap Sensitivity Method (003 Fig. 5-7): by hand, against the loop, edge cases, properties."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_meta_reference import ref_bootstrap_pair

from evalcore.meta import Cancelled, bootstrap_samples, bootstrap_sensitivity, paired_t


def test_bootstrap_hand_example():
    # z = (0.3, 0.1, 0.2), t(z) = 2 sqrt(3), w = (0.1, -0.1, 0); samples give |t*| = inf, 0, 2, 1
    s = {"M": np.array([[0.8, 0.6, 0.7], [0.5, 0.5, 0.5]])}
    samples = np.array([[0, 0, 0], [0, 1, 2], [0, 0, 2], [2, 2, 1]])
    r = bootstrap_sensitivity(s, run_ids=["X", "Y"], samples=samples, alpha=(0.5, 0.25))
    p = r.pairs.iloc[0]
    assert (p["run_x"], p["run_y"]) == ("X", "Y")
    assert p["asl"] == 0.25 and p["mean_diff"] == pytest.approx(0.2) and p["t"] == pytest.approx(2 * 3 ** 0.5)
    assert bool(p["significant"]) is True                       # 0.25 < 0.5
    sm = r.summary.set_index("alpha")
    assert sm.loc[0.5, "n_significant"] == 1 and sm.loc[0.25, "n_significant"] == 0
    assert sm.loc[0.5, "estimated_diff"] == 0.067                # Fig. 7: 2nd largest |t| is sample 3, mean 0.0667
    assert sm.loc[0.25, "estimated_diff_raw"] == pytest.approx(0.1)   # 1st largest: the constant sample, mean 0.1


def test_paper_example_w_star():
    # 003 Sec. 4.3: w = (0.2, 0.0, 0.1, 0.4, 0.0), Q*b = (001, 003, 001, 002, 005) -> w*b = (0.2, 0.1, 0.2, 0.0, 0.0)
    w = np.array([0.2, 0.0, 0.1, 0.4, 0.0])
    q = np.array([0, 2, 0, 1, 4])
    assert w[q].tolist() == [0.2, 0.1, 0.2, 0.0, 0.0]
    from evalcore.meta._common import topic_counts
    assert float(w @ topic_counts(q[None], 5)[0]) == pytest.approx(w[q].sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bootstrap_equals_loop(seed):
    rng = np.random.default_rng(seed)
    M = rng.beta(0.7, 1.3, size=(6, 25))
    M[4] = M[2]                                                  # identical runs
    M[5] = M[0] + 0.01                                           # a constant difference
    samples = bootstrap_samples(25, B=200, seed=seed)
    r = bootstrap_sensitivity({"M": M}, samples=samples, alpha=0.05)
    est = 0.0
    asl = []
    for x in range(6):
        for y in range(x + 1, 6):
            a, d = ref_bootstrap_pair(M[x], M[y], samples, alpha=0.05)
            asl.append(a)
            est = max(est, d)
    assert r.pairs["asl"].tolist() == asl
    assert r.summary["estimated_diff_raw"].iloc[0] == pytest.approx(est, rel=1e-9)


def test_identical_runs_and_constant_difference():
    M = np.array([[0.1, 0.5, 0.9, 0.3], [0.1, 0.5, 0.9, 0.3], [0.2, 0.6, 1.0, 0.4]])
    r = bootstrap_sensitivity({"M": M}, B=100)
    p = r.pairs.set_index(["run_x", "run_y"])
    assert p.loc[("0", "1"), "asl"] == 1.0 and not p.loc[("0", "1"), "significant"]
    assert p.loc[("0", "2"), "asl"] == 0.0                      # the same -0.1 on every topic
    assert np.isfinite(r.summary["estimated_diff"]).all()
    assert paired_t(np.zeros((1, 4)))[1][0] == 0.0


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 30))
def test_identical_runs_never_significant(seed, n):
    rng = np.random.default_rng(seed)
    M = rng.random((4, n))
    M[3] = M[1]
    r = bootstrap_sensitivity({"M": M}, B=50, seed=seed)
    p = r.pairs.set_index(["run_x", "run_y"])
    assert p.loc[("1", "3"), "asl"] == 1.0
    assert ((r.pairs["asl"] >= 0) & (r.pairs["asl"] <= 1)).all()


def test_clear_difference_is_significant_and_curves_sorted():
    rng = np.random.default_rng(9)
    M = np.vstack([rng.random(40) * 0.2 + 0.6, rng.random(40) * 0.2, rng.random(40) * 0.2])
    r = bootstrap_sensitivity({"A": M, "B": M[::-1].copy()}, B=300, run_ids=["hi", "lo1", "lo2"])
    p = r.pairs[r.pairs.metric == "A"].set_index(["run_x", "run_y"])
    assert p.loc[("hi", "lo1"), "significant"] and p.loc[("hi", "lo1"), "asl"] == 0.0
    c = r.asl_curves[r.asl_curves.metric == "A"]
    assert c["pair_rank"].tolist() == [1, 2, 3] and c["asl"].is_monotonic_increasing
    assert list(r.summary.columns)[:6] == ["metric", "alpha", "n_significant", "n_pairs", "pct_significant",
                                           "estimated_diff"]


def test_seed_determinism_and_metric_independence():
    rng = np.random.default_rng(1)
    A, B = rng.random((5, 20)), rng.random((5, 20))
    r1 = bootstrap_sensitivity({"A": A, "B": B}, B=150, seed=4)
    r2 = bootstrap_sensitivity({"B": B, "A": A}, B=150, seed=4)
    r3 = bootstrap_sensitivity({"A": A}, B=150, seed=5)
    a1 = r1.pairs[r1.pairs.metric == "A"].reset_index(drop=True)
    a2 = r2.pairs[r2.pairs.metric == "A"].reset_index(drop=True)
    assert a1.equals(a2)
    assert not a1["asl"].equals(r3.pairs["asl"])


@pytest.mark.parametrize("seed", range(4))
def test_chunking_does_not_change_results(monkeypatch, seed):
    import evalcore.meta.bootstrap as bmod
    rng = np.random.default_rng(4 + seed)
    # random scores, and scores in steps of 0.1 (many |t*| = |t| ties: a last-bit difference between
    # BLAS's one-row and many-row products would flip some ASLs)
    s = {"M": rng.random((9, 15)), "T": np.round(rng.random((12, 20)), 1)[:9, :15]}
    full = bootstrap_sensitivity(s, B=200, seed=seed)
    monkeypatch.setattr(bmod, "CHUNK_BYTES", 1)                 # one pair per chunk
    small = bootstrap_sensitivity(s, B=200, seed=seed)
    assert full.pairs.equals(small.pairs) and full.summary.equals(small.summary)


def test_progress_cancel_and_errors():
    M = np.random.default_rng(0).random((8, 10))               # 28 pairs: >= 20 progress steps
    seen = []
    bootstrap_sensitivity({"M": M}, B=30, progress=seen.append)
    assert seen[-1] == 1.0 and max(np.diff(seen)) <= 0.051
    with pytest.raises(Cancelled):
        bootstrap_sensitivity({"M": M}, B=30, progress=lambda f: True)
    with pytest.raises(ValueError, match="run_ids must name every run"):
        bootstrap_sensitivity({"M": M}, run_ids=["a"])
    with pytest.raises(ValueError, match="alpha must lie in"):
        bootstrap_sensitivity({"M": M}, alpha=5)
    with pytest.raises(ValueError, match="at least 2 topics"):
        bootstrap_sensitivity({"M": M[:, :1]})


@pytest.mark.parametrize("seed", range(6))
def test_bootstrap_equals_loop_exactly_with_ties(seed):
    # Scores are multiples of 1/64 on 16 topics (a power of two), so every sum, mean and |t*| below is
    # exact or rounded once in the same operation by the loop and by evalcore: ties among |t*| (frequent,
    # 9 distinct score values) are ties in both, and Fig. 7's rule (the (B alpha)-th largest |t*|, lowest
    # b first among equal ones) must pick the same sample. Identical runs (all |t*| = 0) and a constant
    # difference are included; alphas cover k = 4 .. 200 of B = 400.
    from evalcore.meta._common import TIE_RTOL
    rng = np.random.default_rng(seed)
    M = rng.integers(0, 9, size=(7, 16)) / 64.0
    M[5] = M[1]
    M[6] = M[0] + 1 / 64
    samples = bootstrap_samples(16, B=400, seed=seed)
    alphas = (0.05, 0.01, 0.2, 0.5)
    r = bootstrap_sensitivity({"M": M}, samples=samples, alpha=alphas)
    sm = r.summary.set_index("alpha")
    for alpha in alphas:
        asl, est = [], 0.0
        for x in range(7):
            for y in range(x + 1, 7):
                a, d = ref_bootstrap_pair(M[x], M[y], samples.tolist(), alpha=alpha, rtol=TIE_RTOL)
                asl.append(a)
                est = max(est, d)
        assert r.pairs["asl"].tolist() == asl
        assert sm.loc[alpha, "estimated_diff_raw"] == est           # exactly, not approximately


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 700), st.integers(1, 30))
def test_kth_desc_index_is_the_stable_argsort(seed, p, B, distinct):
    # the selection used for Fig. 7 against a full stable sort (numpy's argsort), on rows full of ties,
    # inf (zero-spread samples) and rows of one value (identical runs)
    from evalcore.meta.bootstrap import _kth_desc_index
    rng = np.random.default_rng(seed)
    ts = rng.integers(0, distinct, size=(p, B)).astype(float)
    ts[rng.random((p, B)) < 0.05] = np.inf
    ts[rng.random(p) < 0.2] = 0.0
    if seed % 2:
        ts += rng.random((p, B))
    for k in {1, B, max(1, B // 20), max(1, B // 100), int(rng.integers(1, B + 1))}:
        expected = np.argsort(-ts, axis=1, kind="stable")[:, k - 1]
        assert _kth_desc_index(ts, k).tolist() == expected.tolist()


@pytest.mark.parametrize("B", [1, 7, 100, 1000, 4999])
def test_sort_asl_equals_np_sort_for_counts_over_B_and_falls_back_for_anything_else(B):
    """The asl_curves' counting sort (bootstrap.sort_asl) gives np.sort's array bit for bit: for ASLs that
    are counts over B as pairs_chunk makes them (and 1.0 for identical runs), and, through np.sort itself,
    for values that are not (NaN, a value between two levels, a negative or a too large one)."""
    from evalcore.meta.bootstrap import sort_asl
    rng = np.random.default_rng(B)
    asl = rng.integers(0, B + 1, size=5000) / B
    asl[rng.random(5000) < 0.05] = 1.0
    for a in (asl, asl[:1], asl[:0]):
        got = sort_asl(a, B)
        assert got.dtype == np.float64 and got.tobytes() == np.sort(a).tobytes()
    for odd in (np.nan, 0.5 / B, -1.0 / B, 2.0, np.inf):
        b = asl.copy()
        b[17] = odd
        assert sort_asl(b, B).tobytes() == np.sort(b).tobytes()
