"""Properties of the metrics that hold for every collection (hypothesis).

The statements come from the papers: bounds (003 Sec. 3.2 for WRR),
Q-measure with beta = 0 is AP (001 Sec. 2.3), P = P+ = O when r_p = r_1
(003 Sec. 3.3), O = RR under binary relevance iff r_1 <= R (003 Sec. 3.2),
the gain-scaling / beta equivalence (001 Sec. 2.3), and that an ideal
ranked list is perfect on the graded metrics.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import reference as ref
from conftest import collections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalcore
from evalcore import metrics as M
from evalcore.collection import Collection

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EPS = 1e-12

BOUNDED = {
    "AP": lambda c, p: M.average_precision(c, rel_threshold=p["t"], cutoff=p["cut"]),
    "Q-measure": lambda c, p: M.q_measure(c, gains=p["gains"], beta=p["beta"], cutoff=p["cut"]),
    "R-measure": lambda c, p: M.r_measure(c, gains=p["gains"], beta=p["beta"]),
    "AWP": lambda c, p: M.awp(c, gains=p["gains"], cutoff=p["cut"]),
    "R-Prec": lambda c, p: M.r_precision(c, rel_threshold=p["t"]),
    "RR": lambda c, p: M.reciprocal_rank(c, rel_threshold=p["t"], cutoff=p["cut"]),
    "O-measure": lambda c, p: M.o_measure(c, gains=p["gains"], beta=p["beta"], cutoff=p["cut"]),
    "NWRR": lambda c, p: M.nwrr(c, penalties=p["pen"], cutoff=p["cut"]),
    "P-measure": lambda c, p: M.p_measure(c, gains=p["gains"], beta=p["beta"], cutoff=p["cut"]),
    "P+-measure": lambda c, p: M.p_plus_measure(c, gains=p["gains"], beta=p["beta"], cutoff=p["cut"]),
    "nDCG": lambda c, p: M.ndcg(c, gains=p["gains"], cutoff=p["cut"] or 10, log_base=p["b"]),
    "MSnDCG": lambda c, p: M.msndcg(c, gains=p["gains"], cutoff=p["cut"] or 10),
    "nCG": lambda c, p: M.ncg(c, gains=p["gains"], cutoff=p["cut"] or 10),
    "AnDCG": lambda c, p: M.andcg(c, gains=p["gains"], cutoff=p["cut"] or 10, log_base=p["b"]),
    "AnCG": lambda c, p: M.ancg(c, gains=p["gains"], cutoff=p["cut"] or 10),
    "nERR": lambda c, p: M.nerr(c, gains=p["gains_err"], cutoff=p["cut"] or 10),
    "P": lambda c, p: M.precision(c, cutoff=p["cut"] or 10, rel_threshold=p["t"]),
    "Hit": lambda c, p: M.hit(c, cutoff=p["cut"] or 10, rel_threshold=p["t"]),
}


@st.composite
def settings_for(draw, K):
    """Parameters under which the papers' bounds hold: positive gains, penalties
    non-increasing in the level (003: the smallest penalty goes to the highest level)."""
    gains = draw(st.one_of(st.none(), st.lists(st.floats(0.01, 50.0), min_size=K, max_size=K)))
    pen = draw(st.one_of(st.none(), st.lists(st.floats(1.01, 30.0), min_size=K, max_size=K)
                         .map(lambda v: sorted(v, reverse=True))))
    # nERR: gains non-decreasing in the level keep the stop probability below 1
    gains_err = None if gains is None else sorted(gains)
    return dict(gains=gains, gains_err=gains_err, pen=pen,
                beta=draw(st.sampled_from([0.0, 0.3, 1.0, 4.0, 25.0])),
                cut=draw(st.sampled_from([None, 1, 2, 5, 10, 30, 200])),
                t=draw(st.sampled_from([1, 2, 3])),
                b=draw(st.sampled_from([2, 10, 1.5])))


def levels_of(c: Collection, i: int, j: int) -> list[int]:
    return [int(v) for v in c.levels[i, j, : int(c.lengths[i, j])]]


@SETTINGS
@given(c=collections(), data=st.data())
def test_bounds_zero_one_for_every_metric_but_wrr(c, data):
    p = data.draw(settings_for(c.max_level))
    for key, f in BOUNDED.items():
        v = f(c, p)
        assert v.shape == (c.n_runs, c.n_topics), key
        assert np.all(np.isfinite(v)), key
        assert v.min() >= 0.0, key
        assert v.max() <= 1.0 + EPS, (key, float(v.max()))


@SETTINGS
@given(c=collections(), data=st.data())
def test_wrr_bounded_by_one_over_one_minus_inverse_penalty_of_m(c, data):
    p = data.draw(settings_for(c.max_level))
    pen = ref.penalty_values(p["pen"], c.max_level)
    w = M.wrr(c, penalties=p["pen"], cutoff=p["cut"])
    assert w.min() >= 0
    for j in range(c.n_topics):
        Mj = max(L for L in range(1, c.max_level + 1) if c.level_counts[j, L] > 0)
        bound = 1.0 / (1.0 - 1.0 / pen[Mj])
        assert np.all(w[:, j] <= bound + EPS)
    # NWRR is WRR rescaled by (1 - 1/penalty(M))
    nw = M.nwrr(c, penalties=p["pen"], cutoff=p["cut"])
    for j in range(c.n_topics):
        Mj = max(L for L in range(1, c.max_level + 1) if c.level_counts[j, L] > 0)
        np.testing.assert_allclose(nw[:, j], w[:, j] * (1 - 1 / pen[Mj]), rtol=0, atol=EPS)


@SETTINGS
@given(c=collections(), cut=st.sampled_from([None, 1, 3, 10, 100]),
       gains=st.one_of(st.none(), st.lists(st.floats(0.01, 50), min_size=3, max_size=3)))
def test_q_measure_with_beta_zero_is_ap(c, cut, gains):
    g = None if gains is None else gains[: c.max_level]
    np.testing.assert_allclose(M.q_measure(c, gains=g, beta=0.0, cutoff=cut),
                               M.average_precision(c, rel_threshold=1, cutoff=cut), rtol=0, atol=EPS)
    # ... and likewise R-measure -> R-Prec, O-measure -> RR (the blended ratio becomes count(r)/r)
    np.testing.assert_allclose(M.r_measure(c, gains=g, beta=0.0), M.r_precision(c), rtol=0, atol=EPS)
    np.testing.assert_allclose(M.o_measure(c, gains=g, beta=0.0, cutoff=cut),
                               M.reciprocal_rank(c, cutoff=cut), rtol=0, atol=EPS)


@SETTINGS
@given(c=collections(), scale=st.sampled_from([0.1, 0.5, 3.0, 10.0]), beta=st.sampled_from([0.2, 1.0, 2.0]),
       cut=st.sampled_from([None, 2, 10]))
def test_scaling_gains_equals_scaling_beta(c, scale, beta, cut):
    # 001 Sec. 2.3: gains x10 is beta = 10; in general BR(gains*s, beta) = BR(gains, beta*s)
    g = [float(L) for L in range(1, c.max_level + 1)]
    gs = [v * scale for v in g]
    for f in (M.q_measure, M.o_measure, M.p_measure, M.p_plus_measure):
        np.testing.assert_allclose(f(c, gains=gs, beta=beta, cutoff=cut), f(c, gains=g, beta=beta * scale, cutoff=cut),
                                   rtol=0, atol=1e-12)
    np.testing.assert_allclose(M.r_measure(c, gains=gs, beta=beta), M.r_measure(c, gains=g, beta=beta * scale),
                               rtol=0, atol=1e-12)


@SETTINGS
@given(c=collections(), cut=st.sampled_from([None, 1, 4, 20]),
       gains=st.one_of(st.none(), st.just("1:1:1"), st.just("10:5:1")), beta=st.sampled_from([0.5, 1.0, 3.0]))
def test_p_equals_p_plus_equals_o_when_rp_is_r1(c, cut, gains, beta):
    if isinstance(gains, str) and c.max_level != 3:
        gains = None
    o = M.o_measure(c, gains=gains, beta=beta, cutoff=cut)
    p = M.p_measure(c, gains=gains, beta=beta, cutoff=cut)
    pp = M.p_plus_measure(c, gains=gains, beta=beta, cutoff=cut)
    for i in range(c.n_runs):
        for j in range(c.n_topics):
            lst = levels_of(c, i, j)[: cut]
            rel = [r for r, L in enumerate(lst, 1) if L >= 1]
            if not rel:
                assert o[i, j] == p[i, j] == pp[i, j] == 0.0
                continue
            r1 = rel[0]
            rp = lst.index(max(lst)) + 1
            if rp == r1:
                assert p[i, j] == pytest.approx(o[i, j], abs=EPS)
                assert pp[i, j] == pytest.approx(o[i, j], abs=EPS)
            else:
                assert rp > r1


@SETTINGS
@given(c=collections(min_K=1, max_K=1), gain=st.floats(0.01, 100.0), cut=st.sampled_from([None, 3, 50]))
def test_o_measure_is_rr_under_binary_relevance_iff_r1_within_R(c, gain, cut):
    # 003 Sec. 3.2: "In a binary relevance environment, O = RR holds iff r_1 <= R, and O > RR otherwise"
    o = M.o_measure(c, gains=[gain], cutoff=cut)
    rr = M.reciprocal_rank(c, cutoff=cut)
    for i in range(c.n_runs):
        for j in range(c.n_topics):
            lst = levels_of(c, i, j)[: cut]
            rel = [r for r, L in enumerate(lst, 1) if L >= 1]
            if not rel:
                assert o[i, j] == rr[i, j] == 0
            elif rel[0] <= c.R[j]:
                assert o[i, j] == pytest.approx(rr[i, j], abs=EPS)
            else:
                assert o[i, j] > rr[i, j]


def _permuted(c: Collection, run_perm, topic_perm) -> Collection:
    return Collection(
        levels=c.levels[np.ix_(run_perm, topic_perm)], lengths=c.lengths[np.ix_(run_perm, topic_perm)],
        level_counts=c.level_counts[topic_perm], run_ids=[c.run_ids[i] for i in run_perm],
        topic_ids=[c.topic_ids[j] for j in topic_perm],
    )


ALL_KEYS = ["AP", "Q-measure", "R-measure", "AWP", "R-Prec", "RR", "O-measure", "WRR", "NWRR", "P-measure",
            "P+-measure", "nDCG@5", "MSnDCG@5", "nCG@5", "AnDCG@5", "AnCG@5", "nERR@5", "P@5", "Hit@5",
            "Q-measure@3", "P+-measure@3"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(c=collections(max_runs=5), data=st.data())
def test_permuting_runs_and_topics_permutes_results(c, data):
    run_perm = data.draw(st.permutations(range(c.n_runs)))
    topic_perm = data.draw(st.permutations(range(c.n_topics)))
    cp = _permuted(c, run_perm, topic_perm)
    before = evalcore.score_matrices(c, ALL_KEYS, beta=2.0)
    after = evalcore.score_matrices(cp, ALL_KEYS, beta=2.0)
    for key in ALL_KEYS:
        # equal up to the order of floating-point sums
        np.testing.assert_allclose(after[key], before[key][np.ix_(run_perm, topic_perm)], rtol=0, atol=1e-15,
                                   err_msg=key)


@st.composite
def ideal_collections(draw):
    """Every run returns, for every topic, the ideal list (highest gain first), then non-relevant padding."""
    K = draw(st.integers(1, 3))
    gains = draw(st.one_of(st.none(), st.lists(st.floats(0.05, 20.0), min_size=K, max_size=K)))
    n_topics = draw(st.integers(1, 4))
    counts = {}
    lists = {"ideal": {}, "ideal_padded": {}}
    for j in range(n_topics):
        cnt = [draw(st.integers(0, 5))] + [draw(st.integers(0, 8)) for _ in range(K)]
        if sum(cnt[1:]) == 0:
            cnt[K] = 1
        counts[f"t{j}"] = cnt
        ideal = ref.ideal_levels(cnt, gains)
        lists["ideal"][f"t{j}"] = ideal
        lists["ideal_padded"][f"t{j}"] = ideal + [0] * draw(st.integers(1, 20))
    return Collection.from_lists(lists, counts), gains


@SETTINGS
@given(cg=ideal_collections(), cut=st.sampled_from([1, 2, 5, 10, 50]), beta=st.sampled_from([0.0, 0.5, 1.0, 10.0]))
def test_ideal_list_scores_one(cg, cut, beta):
    c, gains = cg
    ones = np.ones((c.n_runs, c.n_topics))
    checks = {
        "Q-measure": M.q_measure(c, gains=gains, beta=beta),
        "Q-measure@l": M.q_measure(c, gains=gains, beta=beta, cutoff=cut),
        "R-measure": M.r_measure(c, gains=gains, beta=beta),
        "AWP": M.awp(c, gains=gains),       # the ideal list holds all R documents (R <= depth)
        "AWP@l": M.awp(c, gains=gains, cutoff=cut),
        "nDCG": M.ndcg(c, gains=gains, cutoff=cut),
        "nDCG b=10": M.ndcg(c, gains=gains, cutoff=cut, log_base=10),
        "MSnDCG": M.msndcg(c, gains=gains, cutoff=cut),
        "nCG": M.ncg(c, gains=gains, cutoff=cut),
        "AnDCG": M.andcg(c, gains=gains, cutoff=cut),
        "AnCG": M.ancg(c, gains=gains, cutoff=cut),
        "P-measure": M.p_measure(c, gains=gains, beta=beta),
        "P+-measure": M.p_plus_measure(c, gains=gains, beta=beta),
        "O-measure": M.o_measure(c, gains=gains, beta=beta),
        "AP": M.average_precision(c),
        "R-Prec": M.r_precision(c),
        "RR": M.reciprocal_rank(c),
    }
    g = ref.gain_values(gains, c.max_level)[1:]
    if all(a <= b for a, b in itertools.pairwise(g)):
        # gains grow with the level: the ideal list starts with the topic's highest level M
        # (so NWRR's best case), and nERR's stop probabilities are below one
        checks["NWRR"] = M.nwrr(c)
        checks["NWRR penalties"] = M.nwrr(c, penalties=[1.5 + c.max_level - L for L in range(1, c.max_level + 1)])
        checks["nERR"] = M.nerr(c, gains=gains, cutoff=cut)
    for key, v in checks.items():
        np.testing.assert_allclose(v, ones, rtol=0, atol=1e-12, err_msg=key)


@SETTINGS
@given(c=collections(), b=st.sampled_from([3, 10, 25.5]))
def test_ndcg_below_log_base_is_ncg(c, b):
    # the JK discount is 1 for ranks below b: nDCG@l = nCG@l for l < b
    for cut in range(1, int(math.ceil(b))):
        np.testing.assert_allclose(M.ndcg(c, cutoff=cut, log_base=b), M.ncg(c, cutoff=cut), rtol=0, atol=EPS)


@SETTINGS
@given(c=collections(), t=st.sampled_from([1, 2, 3]))
def test_cutoff_beyond_list_and_R_changes_nothing(c, t):
    big = int(max(c.depth, int(c.R.max()))) + 1
    pairs = [
        (M.average_precision(c, rel_threshold=t), M.average_precision(c, rel_threshold=t, cutoff=big)),
        (M.q_measure(c), M.q_measure(c, cutoff=big)),
        (M.awp(c), M.awp(c, cutoff=big)),
        (M.reciprocal_rank(c, rel_threshold=t), M.reciprocal_rank(c, rel_threshold=t, cutoff=big)),
        (M.o_measure(c), M.o_measure(c, cutoff=big)),
        (M.wrr(c), M.wrr(c, cutoff=big)),
        (M.nwrr(c), M.nwrr(c, cutoff=big)),
        (M.p_measure(c), M.p_measure(c, cutoff=big)),
        (M.p_plus_measure(c), M.p_plus_measure(c, cutoff=big)),
    ]
    for a, b in pairs:
        np.testing.assert_allclose(a, b, rtol=0, atol=EPS)


@SETTINGS
@given(c=collections(), cut=st.sampled_from([1, 3, 10]), t=st.sampled_from([1, 2]))
def test_hit_is_precision_positive_and_relaxed_dominates_rigid(c, cut, t):
    p = M.precision(c, cutoff=cut, rel_threshold=t)
    np.testing.assert_array_equal(M.hit(c, cutoff=cut, rel_threshold=t), (p > 0).astype(float))
    # relaxed (level >= 1) counts at least as many documents as rigid (level >= 2)
    assert np.all(M.precision(c, cutoff=cut, rel_threshold=1) >= M.precision(c, cutoff=cut, rel_threshold=2))
    assert np.all(M.hit(c, cutoff=cut, rel_threshold=1) >= M.hit(c, cutoff=cut, rel_threshold=2))


@SETTINGS
@given(c=collections())
def test_geometric_mean_at_most_arithmetic(c):
    keys = ["AP", "Q-measure", "nDCG@10"]
    a = evalcore.evaluate(c, keys, mean="arithmetic").set_index(["run", "metric"])["value"]
    g = evalcore.evaluate(c, keys, mean="geometric").set_index(["run", "metric"])["value"]
    # zeros are floored at 1e-5 before the log, so G can exceed A only by that floor
    assert np.all(g.loc[a.index].to_numpy() <= a.to_numpy() + 1e-5 + EPS)
    assert np.all(g.to_numpy() >= 1e-5 - EPS)
