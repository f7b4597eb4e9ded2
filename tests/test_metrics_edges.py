"""Edge cases: empty lists, short lists, cutoffs around R and the depth,
identical runs, the rigid threshold, and invalid parameters.

Topics with R = 0 never reach a Collection (the loader leaves them out and
reports them), so they are not tested here.
"""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import reference as ref
from conftest import random_collection

import evalcore
from evalcore import metrics as M
from evalcore.collection import Collection

S, A, B = 3, 2, 1

#: every kernel with the parameters it needs, at its defaults otherwise
KERNELS = {
    "AP": lambda c, **kw: M.average_precision(c, **kw),
    "Q-measure": lambda c, **kw: M.q_measure(c, **kw),
    "R-measure": lambda c, **kw: M.r_measure(c, **{k: v for k, v in kw.items() if k != "cutoff"}),
    "AWP": lambda c, **kw: M.awp(c, **kw),
    "R-Prec": lambda c, **kw: M.r_precision(c, **{k: v for k, v in kw.items() if k != "cutoff"}),
    "RR": lambda c, **kw: M.reciprocal_rank(c, **kw),
    "O-measure": lambda c, **kw: M.o_measure(c, **kw),
    "WRR": lambda c, **kw: M.wrr(c, **kw),
    "NWRR": lambda c, **kw: M.nwrr(c, **kw),
    "P-measure": lambda c, **kw: M.p_measure(c, **kw),
    "P+-measure": lambda c, **kw: M.p_plus_measure(c, **kw),
    "nDCG": lambda c, cutoff=10: M.ndcg(c, cutoff=cutoff or 10),
    "MSnDCG": lambda c, cutoff=10: M.msndcg(c, cutoff=cutoff or 10),
    "nCG": lambda c, cutoff=10: M.ncg(c, cutoff=cutoff or 10),
    "AnDCG": lambda c, cutoff=10: M.andcg(c, cutoff=cutoff or 10),
    "AnCG": lambda c, cutoff=10: M.ancg(c, cutoff=cutoff or 10),
    "nERR": lambda c, cutoff=10: M.nerr(c, cutoff=cutoff or 10),
    "P": lambda c, cutoff=10: M.precision(c, cutoff=cutoff or 10),
    "Hit": lambda c, cutoff=10: M.hit(c, cutoff=cutoff or 10),
}


def refval(key, levels, counts, **params):
    return ref.REFERENCES[key][0](levels, counts, **ref.params_for(key, **params))


# --------------------------------------------------------------------------
# empty lists and empty runs
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def with_missing():
    lists = {
        "full": {"t1": [S, 0, A, B], "t2": [B, B, 0, A]},
        "missing_t2": {"t1": [S, 0, A, B]},            # t2 absent from the run
        "empty_run": {},                                # no ranked list at all
        "all_nonrel": {"t1": [0] * 20, "t2": [0] * 5},  # retrieved, nothing relevant
    }
    return Collection.from_lists(lists, {"t1": [4, 1, 1, 1], "t2": [9, 3, 1, 0]})


@pytest.mark.parametrize("key", list(KERNELS))
@pytest.mark.parametrize("cutoff", [None, 1, 3, 100])
def test_missing_topic_empty_run_and_nonrelevant_lists_score_zero(with_missing, key, cutoff):
    v = KERNELS[key](with_missing, cutoff=cutoff)
    assert v.shape == (4, 2)
    assert v[1, 1] == 0.0                    # topic missing from the run
    assert np.all(v[2] == 0.0)               # a run with no list at all
    assert np.all(v[3] == 0.0)               # only non-relevant documents
    assert v[0, 0] > 0 and v[1, 0] == v[0, 0]   # the present topic is unaffected


def test_missing_topic_counts_as_zero_in_the_mean(with_missing):
    df = evalcore.evaluate(with_missing, ["AP", "Q-measure"], per_topic=True, means=True)
    for key in ("AP", "Q-measure"):
        sub = df[(df.metric == key) & (df.run == "missing_t2")].set_index("topic")["value"]
        assert sub["t2"] == 0.0
        assert sub["all"] == pytest.approx(sub["t1"] / 2, abs=1e-15)


def test_no_runs_gives_empty_matrices():
    c = Collection.from_lists({}, {"t1": [0, 1, 1]})
    for key, f in KERNELS.items():
        assert f(c).shape == (0, 1), key


# --------------------------------------------------------------------------
# short lists, cutoffs around R and beyond the depth
# --------------------------------------------------------------------------
def test_list_shorter_than_R():
    # R = 5 B-relevant documents; the run returns two of them and stops
    c = Collection.from_lists({"r": {"t": [B, B]}}, {"t": [0, 5]})
    assert M.average_precision(c)[0, 0] == pytest.approx(2 / 5, abs=1e-15)
    assert M.q_measure(c)[0, 0] == pytest.approx(2 / 5, abs=1e-15)      # BR(1) = BR(2) = 1
    assert M.awp(c)[0, 0] == pytest.approx(2 / 5, abs=1e-15)
    assert M.r_precision(c)[0, 0] == pytest.approx(2 / 5, abs=1e-15)     # padding beyond the list is non-relevant
    assert M.r_measure(c)[0, 0] == pytest.approx((2 + 2) / (5 + 5), abs=1e-15)
    assert M.precision(c, cutoff=10)[0, 0] == pytest.approx(2 / 10, abs=1e-15)   # trec_eval divides by 10
    assert M.ncg(c, cutoff=10)[0, 0] == pytest.approx(2 / 5, abs=1e-15)
    assert M.ndcg(c, cutoff=10)[0, 0] == pytest.approx(2 / (2 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)), abs=1e-15)


def test_cutoff_below_R_divides_by_the_cutoff():
    # NTCIREVAL: with a cutoff l the denominator is min(R, l); R = 10 here
    c = Collection.from_lists({"r": {"t": [B, B, 0, B]}}, {"t": [0, 10]})
    assert M.average_precision(c, cutoff=2)[0, 0] == pytest.approx(1.0, abs=1e-15)
    assert M.q_measure(c, cutoff=2)[0, 0] == pytest.approx(1.0, abs=1e-15)
    assert M.awp(c, cutoff=2)[0, 0] == pytest.approx(1.0, abs=1e-15)
    assert M.average_precision(c, cutoff=4)[0, 0] == pytest.approx((1 + 1 + 3 / 4) / 4, abs=1e-15)
    assert M.average_precision(c)[0, 0] == pytest.approx((1 + 1 + 3 / 4) / 10, abs=1e-15)


def test_cutoff_cuts_one_document_metrics():
    # [B, S] on Topic 3 of 003 Fig. 3: with cutoff 1 the S document is not seen, so r_p = r_1 = 1
    c = Collection.from_lists({"Z": {"t3": [B, S]}, "Y": {"t3": [0, S]}}, {"t3": [0, 1, 1, 1]})
    assert M.p_measure(c, cutoff=1)[0, 0] == pytest.approx(0.5, abs=1e-15)
    assert M.p_plus_measure(c, cutoff=1)[0, 0] == pytest.approx(0.5, abs=1e-15)
    assert M.p_measure(c, cutoff=2)[0, 0] == pytest.approx(6 / 7, abs=1e-15)
    for f in (M.o_measure, M.p_measure, M.p_plus_measure, M.nwrr, M.wrr, M.reciprocal_rank):
        assert f(c, cutoff=1)[1, 0] == 0.0       # Y has nothing relevant at rank 1


@pytest.mark.parametrize("cutoff", [1, 2, 3, 5, 12, 50])
def test_cutoff_beyond_depth_pads_with_nonrelevant(cutoff):
    counts = [3, 2, 2, 1]
    lst = [A, 0, S]
    c = Collection.from_lists({"r": {"t": lst}}, {"t": counts})
    for key in ("nDCG", "MSnDCG", "nCG", "AnDCG", "AnCG", "nERR", "P", "Hit"):
        assert KERNELS[key](c, cutoff=cutoff)[0, 0] == pytest.approx(refval(key, lst, counts, cutoff=cutoff),
                                                                     abs=1e-12), key
    assert M.precision(c, cutoff=cutoff)[0, 0] == pytest.approx(min(2, sum(1 for L in lst[:cutoff] if L)) / cutoff)


def test_topic_without_top_level_uses_its_own_highest_level_for_nwrr():
    # K = 3 in the collection, but topic "noS" has only A and B documents: M = A
    c = Collection.from_lists({"r": {"noS": [A], "withS": [A]}}, {"noS": [0, 2, 1, 0], "withS": [0, 2, 1, 1]})
    assert M.nwrr(c)[0, 0] == pytest.approx(1.0, abs=1e-15)                        # (1-1/3)/(1-1/3)
    assert M.nwrr(c)[0, 1] == pytest.approx((1 - 1 / 2) / (1 - 1 / 3), abs=1e-15)
    assert M.wrr(c)[0].tolist() == pytest.approx([1.5, 1.5], abs=1e-15)


# --------------------------------------------------------------------------
# identical runs, rigid threshold
# --------------------------------------------------------------------------
def test_identical_runs_score_identically():
    base = random_collection(np.random.default_rng(7), K=3, n_runs=3, n_topics=6, max_depth=40)
    lv = np.concatenate([base.levels, base.levels[:1]], axis=0)
    ln = np.concatenate([base.lengths, base.lengths[:1]], axis=0)
    c = Collection(levels=lv, lengths=ln, level_counts=base.level_counts,
                   run_ids=[*base.run_ids, "copy_of_r0"], topic_ids=base.topic_ids)
    keys = ["AP", "Q-measure", "R-measure", "AWP", "R-Prec", "RR", "O-measure", "WRR", "NWRR", "P-measure",
            "P+-measure", "nDCG@10", "MSnDCG@10", "nCG@10", "AnDCG@10", "AnCG@10", "nERR@10", "P@10", "Hit@10"]
    for key, m in evalcore.score_matrices(c, keys).items():
        np.testing.assert_array_equal(m[0], m[-1], err_msg=key)
    means = evalcore.evaluate(c, keys).pivot(index="run", columns="metric", values="value")
    np.testing.assert_array_equal(means.loc["r0"].to_numpy(), means.loc["copy_of_r0"].to_numpy())


@pytest.fixture(scope="module")
def rigid():
    lists = {"r": {"noA": [B, B, 0, B], "withA": [B, A, 0, B]}}
    return Collection.from_lists(lists, {"noA": [0, 3, 0], "withA": [0, 2, 1]})


@pytest.mark.parametrize("t", [2, 3])
def test_rigid_threshold_topic_without_level2_scores_zero(rigid, t):
    binary = {
        "AP": M.average_precision(rigid, rel_threshold=t),
        "AP@2": M.average_precision(rigid, rel_threshold=t, cutoff=2),
        "R-Prec": M.r_precision(rigid, rel_threshold=t),
        "RR": M.reciprocal_rank(rigid, rel_threshold=t),
        "P@10": M.precision(rigid, cutoff=10, rel_threshold=t),
        "Hit@10": M.hit(rigid, cutoff=10, rel_threshold=t),
    }
    for key, v in binary.items():
        assert v[0, 0] == 0.0, key
        assert np.all(np.isfinite(v)), key
    if t == 2:
        assert binary["AP"][0, 1] == pytest.approx(1 / 2, abs=1e-15)   # one rigid doc, at rank 2
        assert binary["RR"][0, 1] == pytest.approx(1 / 2, abs=1e-15)
        assert binary["R-Prec"][0, 1] == 0.0
        assert binary["P@10"][0, 1] == pytest.approx(0.1, abs=1e-15)
    # the relaxed versions see the B documents
    assert M.average_precision(rigid)[0, 0] == pytest.approx((1 + 1 + 3 / 4) / 3, abs=1e-15)


def test_graded_metrics_ignore_rel_threshold(rigid):
    keys = ["Q-measure", "O-measure", "P-measure", "nDCG@10", "NWRR"]
    a = evalcore.score_matrices(rigid, keys, rel_threshold=1)
    b = evalcore.score_matrices(rigid, keys, rel_threshold=2)
    for k in keys:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


# --------------------------------------------------------------------------
# means
# --------------------------------------------------------------------------
def test_geometric_mean_floors_zeros_at_epsilon_1e_5():
    # G-mean = exp(mean(log(max(x, 1e-5)))): a zero counts as 1e-5 (papers' G_AveP convention)
    c = Collection.from_lists({"r": {"t1": [B], "t2": [0, B]}, "z": {}}, {"t1": [0, 1], "t2": [0, 1]})
    df = evalcore.evaluate(c, ["RR"], mean="geometric").set_index("run")["value"]
    assert df["r"] == pytest.approx(math.sqrt(1 * 0.5), abs=1e-15)
    assert df["z"] == pytest.approx(1e-5, rel=1e-12)
    c2 = Collection.from_lists({"r": {"t1": [B], "t2": [0] * 5}}, {"t1": [0, 1], "t2": [0, 1]})
    g = evalcore.evaluate(c2, ["RR"], mean="geometric")["value"].iloc[0]
    assert g == pytest.approx(math.exp((math.log(1.0) + math.log(1e-5)) / 2), rel=1e-12)


# --------------------------------------------------------------------------
# invalid parameters: ValueError naming the argument
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def c3():
    return Collection.from_lists({"r": {"t": [S, 0, B]}}, {"t": [1, 1, 1, 1]})


@pytest.mark.parametrize("gains", [[1, 2], [1, 2, 3, 4], "3:2", "4:3:2:1", []])
def test_gains_of_wrong_length_raise(c3, gains):
    for f in (M.q_measure, M.o_measure, M.p_plus_measure):
        with pytest.raises(ValueError, match="gains"):
            f(c3, gains=gains)
    with pytest.raises(ValueError, match="gains"):
        M.ndcg(c3, gains=gains, cutoff=10)
    with pytest.raises(ValueError, match="gains"):
        evalcore.evaluate(c3, ["Q-measure"], gains=gains)


@pytest.mark.parametrize("gains", [[0, 1, 2], [1, -1, 2], "3:0:1", [1, float("nan"), 2], [1, 2, float("inf")]])
def test_nonpositive_or_nonfinite_gains_raise(c3, gains):
    for f in (M.q_measure, M.r_measure, M.awp):
        with pytest.raises(ValueError, match="gains"):
            f(c3, gains=gains)
    with pytest.raises(ValueError, match="gains"):
        M.msndcg(c3, gains=gains, cutoff=5)
    with pytest.raises(ValueError, match="gains"):
        evalcore.score_matrix(c3, "nDCG@10", gains=gains)


@pytest.mark.parametrize("gains", ["foo", "3:2:x", "nope:1:1"])
def test_unknown_gain_preset_raises(c3, gains):
    with pytest.raises(ValueError, match="gains"):
        M.q_measure(c3, gains=gains)
    with pytest.raises(ValueError, match="gains"):
        evalcore.evaluate(c3, ["Q-measure"], gains=gains)


@pytest.mark.parametrize("penalties", [[1, 2, 3], [2, 3, 0.5], "2:3:1", [2, 3], "2:3:4:5", [2, float("nan"), 3]])
def test_bad_penalties_raise(c3, penalties):
    for f in (M.wrr, M.nwrr):
        with pytest.raises(ValueError, match="penalties"):
            f(c3, penalties=penalties)
    with pytest.raises(ValueError, match="penalties"):
        evalcore.evaluate(c3, ["NWRR"], penalties=penalties)


@pytest.mark.parametrize("cutoff", [0, -1, 2.5])
def test_bad_cutoff_raises(c3, cutoff):
    for f in (M.ndcg, M.msndcg, M.ncg, M.andcg, M.ancg, M.nerr, M.precision, M.hit):
        with pytest.raises(ValueError, match="cutoff"):
            f(c3, cutoff=cutoff)
    for f in (M.average_precision, M.q_measure, M.awp, M.reciprocal_rank, M.o_measure, M.wrr, M.nwrr,
              M.p_measure, M.p_plus_measure):
        with pytest.raises(ValueError, match="cutoff"):
            f(c3, cutoff=cutoff)


@pytest.mark.parametrize("key", ["nDCG@0", "P@-3", "AP@x", "Q-measure@"])
def test_bad_cutoff_in_key_raises(c3, key):
    with pytest.raises(ValueError, match="cutoff"):
        evalcore.score_matrix(c3, key)


@pytest.mark.parametrize("key", ["MAPX", "ndcgx@10", "Q", "P++-measure", ""])   # MAP, ndcg@10: peers' names
def test_unknown_metric_key_raises(c3, key):
    with pytest.raises(ValueError, match="metric"):
        evalcore.score_matrix(c3, key)
    with pytest.raises(ValueError, match="metric"):
        evalcore.evaluate(c3, [key])


def test_other_bad_parameters_raise(c3):
    with pytest.raises(ValueError, match="rel_threshold"):
        M.average_precision(c3, rel_threshold=0)
    with pytest.raises(ValueError, match="beta"):
        M.q_measure(c3, beta=-1)
    with pytest.raises(ValueError, match="log_base"):
        M.ndcg(c3, cutoff=10, log_base=1)
    with pytest.raises(ValueError, match="mean"):
        evalcore.evaluate(c3, ["AP"], mean="harmonic")


# --------------------------------------------------------------------------
# the kernels' signatures are the published contract
# --------------------------------------------------------------------------
_REQ = inspect.Parameter.empty
CONTRACT = {
    "average_precision": {"rel_threshold": 1, "cutoff": None},
    "r_precision": {"rel_threshold": 1},
    "reciprocal_rank": {"rel_threshold": 1, "cutoff": None},
    "precision": {"cutoff": _REQ, "rel_threshold": 1},
    "hit": {"cutoff": _REQ, "rel_threshold": 1},
    "q_measure": {"gains": None, "beta": 1.0, "cutoff": None},
    "r_measure": {"gains": None, "beta": 1.0},
    "awp": {"gains": None, "cutoff": None},
    "o_measure": {"gains": None, "beta": 1.0, "cutoff": None},
    "p_measure": {"gains": None, "beta": 1.0, "cutoff": None},
    "p_plus_measure": {"gains": None, "beta": 1.0, "cutoff": None},
    "wrr": {"penalties": None, "cutoff": None},
    "nwrr": {"penalties": None, "cutoff": None},
    "ndcg": {"gains": None, "cutoff": _REQ, "log_base": 2},
    "msndcg": {"gains": None, "cutoff": _REQ},
    "ncg": {"gains": None, "cutoff": _REQ},
    "nerr": {"gains": None, "cutoff": _REQ},
    "andcg": {"gains": None, "cutoff": _REQ, "log_base": 2},
    "ancg": {"gains": None, "cutoff": _REQ},
}


@pytest.mark.parametrize("name", list(CONTRACT))
def test_kernel_signature_is_the_contract(name, c3):
    f = getattr(M, name)
    params = list(inspect.signature(f).parameters.values())
    assert params[0].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    kw = {p.name: p.default for p in params[1:]}
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]), name
    assert kw == CONTRACT[name], name
    # a parameter the metric does not use is refused, not silently ignored
    unused = next(k for k in ("gains", "penalties", "rel_threshold", "beta") if k not in CONTRACT[name])
    needed = {"cutoff": 5} if CONTRACT[name].get("cutoff", None) is _REQ else {}
    with pytest.raises(TypeError):
        f(c3, **needed, **{unused: None})
