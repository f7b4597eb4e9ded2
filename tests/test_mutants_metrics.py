"""Tests written to kill the mutants of evalcore/metrics.py that the metric suites let live (docs/mutation.md).

Every expected value comes from a paper's worked example (Sakai 2007 = 003 Fig. 3), trec_eval through
pytrec_eval, or a hand computation written out beside it; nothing compares the code with itself.
"""
from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from evalcore import metrics as M
from evalcore.collection import Collection

ATOL = 1e-12

# 003 Fig. 3, topic 3: one S (level 3), one A (2), one B (1); gains 3:2:1 are the default gain(L) = L
TOPIC3 = {"t3": [0, 1, 1, 1]}


def _v(a) -> float:
    return float(np.asarray(a)[0, 0])


# -- a required cutoff is refused by name, not with a TypeError from deep inside --------------------------------
CUTOFF_REQUIRED = [M.ndcg, M.msndcg, M.ncg, M.andcg, M.ancg, M.nerr, M.precision, M.hit, M.rbp, M.rbp_residual,
                   M.recall, M.judged]


@pytest.mark.parametrize("fn", CUTOFF_REQUIRED, ids=lambda f: f.__name__)
def test_a_missing_cutoff_is_a_value_error_naming_it(fn):
    c = Collection.from_lists({"s": {"t": [1, 0, 2]}}, {"t": [3, 1, 1]})
    with pytest.raises(ValueError, match=r"^cutoff is required for this metric \(e\.g\. cutoff=10\)$"):
        fn(c, cutoff=None)


# -- RBP's residual uses p = 0.8 by default, as rbp does and ir_measures does ------------------------------------
def test_rbp_residual_default_persistence_is_0_8():
    c = Collection.from_lists({"s": {"t": [1, 0]}}, {"t": [1, 1]})
    # nothing unjudged (no mask): the residual is the weight beyond k, p^k = 0.8^3 = 0.512
    assert _v(M.rbp_residual(c, cutoff=3)) == pytest.approx(0.512, abs=ATOL)
    # and RBP's own default is the same p: (1 - 0.8) * 0.8^0 for the relevant document at rank 1
    assert _v(M.rbp(c, cutoff=3)) == pytest.approx(0.2, abs=ATOL)


# -- bpref at the highest level (t = K): N counts only the levels below t ---------------------------------------
def test_rigid_bpref_at_the_top_level_matches_trec_eval():
    # K = 2; topic: 1 judged non-relevant, 0 of level 1, 2 of level 2; list [2, N, 2]
    c = Collection.from_lists({"s": {"t": [2, 0, 2]}}, {"t": [1, 0, 2]})
    qrels = {"t": {"n1": 0, "a": 2, "b": 2}}
    run = {"t": {"a": 3.0, "n1": 2.0, "b": 1.0}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}, relevance_level=2).evaluate(run)["t"]["bpref"]
    # by hand: R = 2, N = 1; a adds 1, b has 1 non-relevant above: 1 - min(1, 2)/min(1, 2) = 0 -> 1/2
    assert want == pytest.approx(0.5, abs=ATOL)
    assert _v(M.bpref(c, rel_threshold=2)) == pytest.approx(want, abs=ATOL)
    # the same qrels with N = 3 judged non-relevant: min(N, R) = 2, b adds 1 - 1/2 -> (1 + 0.5)/2
    c3 = Collection.from_lists({"s": {"t": [2, 0, 2]}}, {"t": [3, 0, 2]})
    qrels3 = {"t": {"n1": 0, "n2": 0, "n3": 0, "a": 2, "b": 2}}
    want3 = pytrec_eval.RelevanceEvaluator(qrels3, {"bpref"}, relevance_level=2).evaluate(run)["t"]["bpref"]
    assert want3 == pytest.approx(0.75, abs=ATOL)
    assert _v(M.bpref(c3, rel_threshold=2)) == pytest.approx(want3, abs=ATOL)


# -- the shared helpers, public in evalcore.metrics: BR(r), r_1 and r_p of 003 Sec. 3 -------------------------
def test_blended_ratio_003_fig3_system_z():
    # System Z = [B, S]: BR(1) = (1 + 1)/(3 + 1) = 2/4; BR(2) = (cg 4 + count 2)/(cg_I 5 + 2) = 6/7 (003 Sec. 3.3)
    c = Collection.from_lists({"Z": {"t3": [1, 3]}}, TOPIC3)
    np.testing.assert_allclose(M.blended_ratio(c), [2 / 4, 6 / 7], rtol=0, atol=ATOL)
    # beta = 0: count(r)/r, precision at each relevant rank
    np.testing.assert_allclose(M.blended_ratio(c, beta=0), [1.0, 1.0], rtol=0, atol=ATOL)
    # beta = 2: (2*1 + 1)/(2*3 + 1) = 3/7 and (2*4 + 2)/(2*5 + 2) = 10/12
    np.testing.assert_allclose(M.blended_ratio(c, beta=2), [3 / 7, 10 / 12], rtol=0, atol=ATOL)
    # gains 10:1:0.5 (S:A:B): cg_I(1) = 10, cg_I(2) = 11; BR(1) = (0.5 + 1)/(10 + 1), BR(2) = (10.5 + 2)/(11 + 2)
    np.testing.assert_allclose(M.blended_ratio(c, gains=[0.5, 1, 10]), [1.5 / 11, 12.5 / 13], rtol=0, atol=ATOL)


def test_first_and_preferred_rank_by_hand():
    lists = {
        "Y": {"t3": [0, 3]},            # 003 Fig. 3 System Y: r_1 = r_p = 2
        "Z": {"t3": [1, 3]},            # System Z: r_1 = 1, r_p = 2
        "inv": {"t3": [1, 2, 3]},       # the perfect inverse: r_1 = 1, r_p = 3
        "tie": {"t3": [0, 2, 1, 2]},    # two A, no S: r_p is the first A, rank 2
        "none": {"t3": [0, 0]},         # nothing relevant: 0
        "empty": {},                    # topic missing from the run: 0
    }
    c = Collection.from_lists(lists, TOPIC3)
    r1 = M.first_rank(c)
    rp = M.preferred_rank(c)
    assert r1.dtype == np.int64 and rp.dtype == np.int64
    np.testing.assert_array_equal(r1[:, 0], [2, 1, 1, 2, 0, 0])
    np.testing.assert_array_equal(rp[:, 0], [2, 2, 3, 2, 0, 0])
    # r_1 at a threshold: the first document of level >= 2 (A or S)
    np.testing.assert_array_equal(M.first_rank(c, rel_threshold=2)[:, 0], [2, 2, 2, 2, 0, 0])
    np.testing.assert_array_equal(M.first_rank(c, rel_threshold=3)[:, 0], [2, 2, 3, 0, 0, 0])
    # a cutoff hides the ranks below it
    np.testing.assert_array_equal(M.first_rank(c, cutoff=1)[:, 0], [0, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(M.first_rank(c, rel_threshold=3, cutoff=2)[:, 0], [2, 2, 0, 0, 0, 0])
    np.testing.assert_array_equal(M.preferred_rank(c, cutoff=1)[:, 0], [0, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(M.preferred_rank(c, cutoff=2)[:, 0], [2, 2, 2, 2, 0, 0])


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_first_and_preferred_rank_refuse_a_bad_cutoff(bad):
    c = Collection.from_lists({"Z": {"t3": [1, 3]}}, TOPIC3)
    with pytest.raises(ValueError, match="cutoff must be a whole number"):
        M.first_rank(c, cutoff=bad)
    with pytest.raises(ValueError, match="cutoff must be a whole number"):
        M.preferred_rank(c, cutoff=bad)


@pytest.mark.parametrize("bad", [0, 1.5, True])
def test_first_rank_refuses_a_bad_threshold(bad):
    c = Collection.from_lists({"Z": {"t3": [1, 3]}}, TOPIC3)
    with pytest.raises(ValueError, match="rel_threshold"):
        M.first_rank(c, rel_threshold=bad)


# -- edge grid: no relevant document retrieved anywhere (no hits at all), and a collection with no topics ---------
NO_CUTOFF = [M.average_precision, M.q_measure, M.r_measure, M.awp, M.r_precision, M.reciprocal_rank, M.o_measure,
             M.wrr, M.nwrr, M.p_measure, M.p_plus_measure, M.bpref, M.num_rel_ret]
WITH_CUTOFF = [M.ndcg, M.msndcg, M.ncg, M.andcg, M.ancg, M.nerr, M.precision, M.hit, M.rbp, M.recall]


def test_every_metric_is_0_when_nothing_relevant_is_retrieved():
    # c.hits is empty: every list holds only non-relevant documents or is empty; R = 2 (003's edge policy: 0)
    c = Collection.from_lists({"s": {"t": [0, 0, 0]}, "e": {}}, {"t": [2, 1, 1]})
    assert c.hits.rank.size == 0
    for fn in NO_CUTOFF:
        np.testing.assert_array_equal(fn(c), [[0.0], [0.0]], err_msg=fn.__name__)
    for fn in WITH_CUTOFF:
        np.testing.assert_array_equal(fn(c, cutoff=5), [[0.0], [0.0]], err_msg=fn.__name__)


def test_a_collection_without_topics_gives_empty_matrices():
    # one run, no topics (a qrels file whose topics all fall outside the runs' topic filter, say)
    c = Collection(np.zeros((1, 0, 1), np.int8), np.zeros((1, 0), np.int32), np.zeros((0, 3), np.int64), ("s",), ())
    for fn in (M.ndcg, M.msndcg, M.ncg, M.andcg, M.ancg, M.nerr):
        out = fn(c, cutoff=5)
        assert out.shape == (1, 0), fn.__name__
