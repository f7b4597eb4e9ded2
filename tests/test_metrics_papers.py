"""Worked examples from the papers, at the papers' printed precision.

Each test is named after its source (papers numbered as in docs/metrics.md "Sources").
Levels: S = 3, A = 2, B = 1; gains 3:2:1 and penalties S:A:B = 2:3:4 (the
defaults for K = 3) unless a test says otherwise.
"""
from __future__ import annotations

import numpy as np
import pytest
from conftest import random_collection
from reference import ref_o_measure, ref_p_measure, ref_p_plus_measure

import evalcore
from evalcore.collection import Collection
from evalcore.metrics import awp, nwrr, o_measure, p_measure, p_plus_measure, q_measure, r_measure, reciprocal_rank, wrr

S, A, B = 3, 2, 1


def one(matrix, i=0, j=0) -> float:
    return float(np.asarray(matrix)[i, j])


# --------------------------------------------------------------------------
# 003 Fig. 3 (Sec. 3.2-3.3): Topic 3 has one S-, one A- and one B-relevant document
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def topic3():
    lists = {"X": {"t3": [B]}, "Y": {"t3": [0, S]}, "Z": {"t3": [B, S]}, "inverse": {"t3": [B, A, S]}}
    return Collection.from_lists(lists, {"t3": [0, 1, 1, 1]}, level_names=("B", "A", "S"))


@pytest.mark.parametrize("gains", [None, "3:2:1", [1, 2, 3]])
@pytest.mark.parametrize(
    "run, expect_o, expect_p",
    [
        ("X", 0.50, 0.50),   # B at rank 1: (1+1)/(3+1)
        ("Y", 0.57, 0.57),   # S at rank 2: (3+1)/(5+2) = 4/7
        ("Z", 0.50, 0.86),   # B, S: O = BR(1) = 2/4, P = BR(2) = (4+2)/(5+2) = 6/7
        ("inverse", 0.50, 1.00),   # B, A, S: P = BR(3) = (6+3)/(6+3)
    ],
)
def test_003_fig3_topic3_o_and_p_measure(topic3, run, expect_o, expect_p, gains):
    i = topic3.run_ids.index(run)
    assert round(one(o_measure(topic3, gains=gains), i), 2) == expect_o
    assert round(one(p_measure(topic3, gains=gains), i), 2) == expect_p


def test_003_fig3_exact_fractions(topic3):
    o = o_measure(topic3)[:, 0]
    p = p_measure(topic3)[:, 0]
    assert o == pytest.approx([1 / 2, 4 / 7, 1 / 2, 1 / 2], abs=1e-15)
    assert p == pytest.approx([1 / 2, 4 / 7, 6 / 7, 1.0], abs=1e-15)


def test_003_sec33_perfect_inverse_p_plus_is_074(topic3):
    i = topic3.run_ids.index("inverse")
    v = one(p_plus_measure(topic3), i)
    assert round(v, 2) == 0.74
    assert v == pytest.approx((2 / 4 + 5 / 7 + 1) / 3, abs=1e-15)


def test_003_sec33_p_plus_equals_p_equals_o_when_rp_is_r1(topic3):
    # X and Y: r_p = r_1, so P+ = P = O (003 Sec. 3.3, last paragraph)
    for run in ("X", "Y"):
        i = topic3.run_ids.index(run)
        vals = [one(f(topic3), i) for f in (o_measure, p_measure, p_plus_measure)]
        assert vals == pytest.approx([vals[0]] * 3, abs=1e-15)


def test_003_sec32_nwrr_prefers_x_over_y_for_any_penalties(topic3):
    # "Regardless of the choice of penalty values, X always outperforms Y according to NWRR"
    x, y = topic3.run_ids.index("X"), topic3.run_ids.index("Y")
    for pen in (None, "2:3:4", [100, 50, 1.01], [1.5, 1.5, 1.5], "1.01:1.02:1000"):
        v = nwrr(topic3, penalties=pen)
        assert v[x, 0] > v[y, 0]
    # ... while O-measure prefers Y with default gains and X with gains 2:1.5:1
    o = o_measure(topic3)
    assert o[y, 0] > o[x, 0]
    o = o_measure(topic3, gains="2:1.5:1")
    assert o[x, 0] > o[y, 0]      # X: (1+1)/(2+1) = 2/3; Y: (2+1)/(3.5+2) = 6/11
    assert (o[x, 0], o[y, 0]) == pytest.approx((2 / 3, 6 / 11), abs=1e-15)


def test_003_sec33_z_equals_x_on_o_and_nwrr(topic3):
    # "According to both NWRR and O-measure, System Z and System X are always equal"
    x, z = topic3.run_ids.index("X"), topic3.run_ids.index("Z")
    for gains in (None, "10:5:1", "2:1.5:1", "0.3:0.2:0.1"):
        o = o_measure(topic3, gains=gains)
        assert o[x, 0] == pytest.approx(o[z, 0], abs=1e-15)
    for pen in (None, "2:3:4", "5:10:20"):
        v = nwrr(topic3, penalties=pen)
        assert v[x, 0] == pytest.approx(v[z, 0], abs=1e-15)


# --------------------------------------------------------------------------
# 003 Fig. 2 (Sec. 3.2): an S-relevant document at rank 3
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def s_at_3():
    counts = {
        "topic1": [0, 0, 0, 1],       # one S-relevant document, nothing else
        "topic3": [0, 0, 0, 3],       # at least three S-relevant documents
        "mixed": [5, 7, 2, 4],        # any other topic
        "three_levels": [0, 1, 1, 1],
    }
    return Collection.from_lists({"s3": {t: [0, 0, S] for t in counts}}, counts)


def test_003_fig2_nwrr_is_one_fifth_for_any_topic(s_at_3):
    # (1 - 1/2) / (3 - 1/2) = 1/5 with penalties S:A:B = 2:3:4
    for pen in (None, "2:3:4", [4, 3, 2]):
        assert nwrr(s_at_3, penalties=pen)[0] == pytest.approx([0.2] * 4, abs=1e-15)


def test_003_fig2_topic1_o_measure_two_thirds(s_at_3):
    # (g(3) + 1) / (cg_I(3) + 3) = (3 + 1)/(3 + 3)
    assert one(o_measure(s_at_3)) == pytest.approx(2 / 3, abs=1e-15)
    assert round(one(o_measure(s_at_3)), 2) == 0.67


def test_003_fig2_topic3_o_measure_one_third(s_at_3):
    # (3 + 1)/(9 + 3)
    assert one(o_measure(s_at_3), 0, 1) == pytest.approx(1 / 3, abs=1e-15)


def test_003_sec32_wrr_bound_is_one_over_one_minus_inverse_penalty():
    # WRR <= 1/(1 - 1/beta(M)): reached by an M-relevant document at rank 1
    c = Collection.from_lists({"best": {"t": [S]}, "b1": {"t": [B]}}, {"t": [0, 1, 1, 1]})
    w = wrr(c)
    assert w[0, 0] == pytest.approx(1 / (1 - 1 / 2), abs=1e-15)      # = 2
    assert w[1, 0] == pytest.approx(1 / (1 - 1 / 4), abs=1e-15)
    assert nwrr(c)[0, 0] == pytest.approx(1.0, abs=1e-15)


# --------------------------------------------------------------------------
# 001 Sec. 2.2-2.3: R = R(B) = 5, gain(B) = 1 (a single-level collection)
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def awp_freeze():
    lists = {"A_rank5": {"t": [0, 0, 0, 0, 1]}, "B_rank1000": {"t": [0] * 999 + [1]}}
    return Collection.from_lists(lists, {"t": [0, 5]})


def test_001_sec22_awp_freezes_both_systems_0_04(awp_freeze):
    v = awp(awp_freeze)[:, 0]
    assert v == pytest.approx([0.04, 0.04], abs=1e-15)      # (cg/cig)/R = (1/5)/5
    assert v[0] == v[1]


def test_001_sec23_q_measure_0_0004_at_rank_1000(awp_freeze):
    v = q_measure(awp_freeze)[:, 0]
    assert round(float(v[1]), 4) == 0.0004
    assert v[1] == pytest.approx(2 / (5 + 1000) / 5, abs=1e-15)
    assert v[0] == pytest.approx(2 / (5 + 5) / 5, abs=1e-15)     # no freezing: rank 5 beats rank 1000
    assert v[0] > v[1]


def test_001_sec23_gain_of_b_is_one_by_any_notation(awp_freeze):
    for gains in (None, [1], "1"):
        assert q_measure(awp_freeze, gains=gains)[1, 0] == pytest.approx(2 / 1005 / 5, abs=1e-15)


# --------------------------------------------------------------------------
# 001 Sec. 2.3: 30:20:10 == 3:2:1 with beta = 10 (and 0.3:0.2:0.1 == beta = 0.1)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_001_sec23_gains_times_ten_equal_beta_ten(seed):
    c = random_collection(np.random.default_rng(seed), K=3, n_runs=5, n_topics=6, max_depth=50)
    for f in (q_measure, r_measure):
        np.testing.assert_allclose(f(c, gains="30:20:10"), f(c, gains="3:2:1", beta=10), rtol=0, atol=1e-12)
        np.testing.assert_allclose(f(c, gains="0.3:0.2:0.1"), f(c, gains="3:2:1", beta=0.1), rtol=0, atol=1e-12)
        np.testing.assert_allclose(f(c, gains=[10, 20, 30]), f(c, beta=10), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------
# 003 Appendix: maximum preferred ranks
# --------------------------------------------------------------------------
def ntcir5_j034_list() -> list[int]:
    """A ranked list consistent with 003 Appendix, NTCIR-5 Japanese Topic 034.

    The paper gives: r_1 = 2 (B-relevant), r_p = 424 (the one S document
    retrieved), 137 A- and 29 B-relevant documents above it. It does not
    say *where* the 165 documents between ranks 3 and 423 sit, and P+
    depends on that; this placement (B at 2; 28 B then 34 A at ranks
    3-64; the other 103 A at every second rank 218, 220, ..., 422) is one
    consistent with the statistics that reproduces the reported
    P+ = 0.454.
    """
    lst = [0] * 424
    lst[2 - 1] = B
    between = [B] * 28 + [A] * 137
    ranks = list(range(3, 3 + 62)) + [218 + 2 * i for i in range(103)]
    for r, L in zip(ranks, between, strict=True):
        lst[r - 1] = L
    lst[424 - 1] = S
    return lst


@pytest.fixture(scope="module")
def j034():
    lst = ntcir5_j034_list()
    assert (lst.count(S), lst.count(A), lst.count(B)) == (1, 137, 29)
    return Collection.from_lists({"run": {"034": lst}}, {"034": [0, 61, 288, 5]})


def test_003_appendix_ntcir5_j034_p_measure_0_440(j034):
    # cg(424) = 306, count(424) = 167, cg_I(424) = 652: (306 + 167)/(652 + 424) = 473/1076
    v = one(p_measure(j034))
    assert round(v, 3) == 0.440
    assert v == pytest.approx(473 / 1076, abs=1e-15)


def test_003_appendix_ntcir5_j034_p_plus_0_454(j034):
    v = one(p_plus_measure(j034))
    assert round(v, 3) == 0.454
    lst = ntcir5_j034_list()
    assert v == pytest.approx(ref_p_plus_measure(lst, [0, 61, 288, 5]), abs=1e-12)


def test_003_appendix_ntcir5_j034_o_measure_0_250(j034):
    # r_1 = 2 is B-relevant: (1 + 1)/(3*2 + 2)
    v = one(o_measure(j034))
    assert v == pytest.approx(0.25, abs=1e-15)
    assert one(reciprocal_rank(j034)) == 0.5


def test_003_appendix_ntcir3_c020_rp_913_equals_r1():
    # S at rank 913, nothing relevant above; 10 S, 6 A, 36 B. The paper prints
    # cg_I = 3*10 + 2*6 + 1*36 = 48, a slip for 78; either way BR(913) rounds to 0.004.
    lst = [0] * 912 + [S] + [0] * 87
    c = Collection.from_lists({"run": {"020": lst}}, {"020": [0, 36, 6, 10]})
    vals = [one(f(c)) for f in (p_plus_measure, p_measure, o_measure)]
    assert vals == pytest.approx([4 / (78 + 913)] * 3, abs=1e-15)
    assert round(vals[0], 3) == 0.004
    assert ref_o_measure(lst, [0, 36, 6, 10]) == pytest.approx(vals[0], abs=1e-15)
    assert ref_p_measure(lst, [0, 36, 6, 10]) == pytest.approx(vals[0], abs=1e-15)


# --------------------------------------------------------------------------
# the same examples through the public entry points
# --------------------------------------------------------------------------
def test_003_fig3_through_evaluate_and_score_matrix(topic3):
    df = evalcore.evaluate(topic3, ["O-measure", "P-measure", "P+-measure"], per_topic=True, gains="3:2:1")
    got = df[df.topic == "t3"].set_index(["run", "metric"])["value"]
    assert got[("Z", "P-measure")] == pytest.approx(6 / 7, abs=1e-15)
    assert got[("inverse", "P+-measure")] == pytest.approx((2 / 4 + 5 / 7 + 1) / 3, abs=1e-15)
    assert got[("Y", "O-measure")] == pytest.approx(4 / 7, abs=1e-15)
    np.testing.assert_array_equal(evalcore.score_matrix(topic3, "P-measure"), p_measure(topic3))
