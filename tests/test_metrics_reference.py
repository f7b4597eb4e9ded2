"""Every vectorised kernel equals the plain-loop reference (tests/reference.py) to 1e-12.

Random consistent collections (conftest.py): levels 0..K with K = 1..3,
lists up to 60 documents (and larger seeded ones up to 250), topics with
various per-level counts (some lacking the highest level, some with more
relevant documents than any list holds), relevant documents beyond rank R,
topics missing from runs. Parameters: several gains (defaults, presets,
arbitrary ascending sequences, gains that do *not* grow with the level),
beta, penalties, cutoffs (1, below R, beyond the depth), rel_threshold
1..4 and log_base.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import reference as ref
from conftest import collections, random_collection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalcore
from evalcore import metrics as M
from evalcore.collection import Collection

ATOL = 1e-12
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kernel(key):
    return getattr(M, ref.REFERENCES[key][1])


def call_kernel(c, key, params):
    return np.asarray(kernel(key)(c, **ref.params_for(key, **params)))


def assert_matches_reference(c: Collection, key: str, params: dict):
    got = call_kernel(c, key, params)
    assert got.shape == (c.n_runs, c.n_topics)
    assert got.dtype == np.float64
    want = np.array(ref.reference_matrix(c, key, **params), dtype=np.float64).reshape(got.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=ATOL, err_msg=f"{key} {params}")


@st.composite
def gains_for(draw, K):
    kind = draw(st.sampled_from(["none", "seq", "ones", "string", "inverted", "preset"]))
    if kind == "none":
        return None
    if kind == "seq":       # arbitrary positive values, ascending level order
        return draw(st.lists(st.floats(0.05, 40.0), min_size=K, max_size=K))
    if kind == "ones":
        return [1.0] * K
    if kind == "string":    # paper notation, highest level first
        vals = draw(st.lists(st.integers(1, 30), min_size=K, max_size=K))
        return ":".join(str(v) for v in vals)
    if kind == "inverted":  # level 1 has the largest gain: the ideal list starts with level 1
        return [float(K - L + 1) * 2 for L in range(1, K + 1)]
    if K == 3:
        return draw(st.sampled_from(["3:2:1", "30:20:10", "0.3:0.2:0.1", "1:1:1", "10:5:1", "2:1.5:1"]))
    return None


@st.composite
def params_for_collection(draw, K, key):
    p = {}
    uses = [n.rstrip("!") for n in ref.REFERENCES[key][2]]
    required = any(n == "cutoff!" for n in ref.REFERENCES[key][2])
    if "gains" in uses:
        p["gains"] = draw(gains_for(K))
    if "beta" in uses:
        p["beta"] = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.5, 10.0]))
    if "penalties" in uses:
        p["penalties"] = draw(st.one_of(
            st.none(),
            st.lists(st.floats(1.01, 20.0), min_size=K, max_size=K).map(lambda v: sorted(v, reverse=True)),
            st.just([float(K - L + 2) for L in range(1, K + 1)]),
        ))
    if "cutoff" in uses:
        cut = st.sampled_from([1, 2, 3, 5, 10, 17, 40, 100])
        p["cutoff"] = draw(cut if required else st.one_of(st.none(), cut))
    if "rel_threshold" in uses:
        p["rel_threshold"] = draw(st.sampled_from([1, 1, 2, 3, 4]))
    if "log_base" in uses:
        p["log_base"] = draw(st.sampled_from([2, 2, 10, 1.5, math.e, 3]))
    return p


@pytest.mark.parametrize("key", list(ref.REFERENCES))
@SETTINGS
@given(data=st.data())
def test_kernel_equals_reference_hypothesis(key, data):
    c = data.draw(collections(max_depth=60), label="collection")
    params = data.draw(params_for_collection(c.max_level, key), label="params")
    assert_matches_reference(c, key, params)


LARGE_GRID = [
    dict(gains=None, beta=1.0, penalties=None, cutoff=None, rel_threshold=1, log_base=2),
    dict(gains="10:5:1", beta=0.5, penalties=[4.0, 3.0, 2.0], cutoff=10, rel_threshold=2, log_base=2),
    dict(gains=[0.5, 7.0, 3.0], beta=3.0, penalties=[9.0, 2.0, 1.5], cutoff=100, rel_threshold=3, log_base=10),
    dict(gains="1:1:1", beta=0.0, penalties="2:3:4", cutoff=1, rel_threshold=1, log_base=math.e),
    dict(gains=[1.0, 2.0, 3.0], beta=10.0, penalties=None, cutoff=1000, rel_threshold=2, log_base=1.5),
]


@pytest.fixture(scope="module", params=[11, 12, 13])
def large(request):
    """Seeded larger collections: 6 runs x 8 topics, lists up to 250, up to 60 docs per level."""
    return random_collection(np.random.default_rng(request.param), K=3, n_runs=6, n_topics=8,
                             max_depth=250, max_per_level=60)


@pytest.mark.parametrize("grid", range(len(LARGE_GRID)))
def test_kernel_equals_reference_large_seeded(large, grid):
    base = LARGE_GRID[grid]
    for key, (_, _, uses) in ref.REFERENCES.items():
        params = dict(base)
        if "cutoff!" in uses and params["cutoff"] is None:
            params["cutoff"] = 20
        assert_matches_reference(large, key, params)


@pytest.mark.parametrize("K", [1, 2, 4])
def test_kernel_equals_reference_other_numbers_of_levels(K):
    c = random_collection(np.random.default_rng(100 + K), K=K, n_runs=5, n_topics=6, max_depth=80)
    for gains in (None, [float(2 ** L) for L in range(K)]):
        for key, (_, _, uses) in ref.REFERENCES.items():
            params = dict(gains=gains, cutoff=15, rel_threshold=min(2, K), beta=2.0, log_base=2)
            if "cutoff!" not in uses:
                params["cutoff"] = None
            assert_matches_reference(c, key, params)


def test_reference_andcg_is_the_mean_of_ndcg_at_each_rank():
    # the reference computes AnDCG with running sums; check it against its definition
    rng = np.random.default_rng(5)
    counts = [3, 5, 2, 4]
    for _ in range(50):
        lst = [int(v) for v in rng.choice(4, size=int(rng.integers(0, 30)), p=[0.6, 0.2, 0.1, 0.1])]
        k = int(rng.integers(1, 35))
        for b in (2, 10):
            mean_ndcg = sum(ref.ref_ndcg(lst, counts, cutoff=r, log_base=b) for r in range(1, k + 1)) / k
            assert ref.ref_andcg(lst, counts, cutoff=k, log_base=b) == pytest.approx(mean_ndcg, abs=1e-12)
        mean_ncg = sum(ref.ref_ncg(lst, counts, cutoff=r) for r in range(1, k + 1)) / k
        assert ref.ref_ancg(lst, counts, cutoff=k) == pytest.approx(mean_ncg, abs=1e-12)


# --------------------------------------------------------------------------
# the public entry points: keys, parameters and means
# --------------------------------------------------------------------------
KEYS_AND_KERNELS = [
    ("AP", "AP", {}), ("Q-measure", "Q-measure", {}), ("R-measure", "R-measure", {}), ("AWP", "AWP", {}),
    ("R-Prec", "R-Prec", {}), ("RR", "RR", {}), ("O-measure", "O-measure", {}), ("WRR", "WRR", {}),
    ("NWRR", "NWRR", {}), ("P-measure", "P-measure", {}), ("P+-measure", "P+-measure", {}),
    ("nDCG@10", "nDCG", {"cutoff": 10}), ("MSnDCG@10", "MSnDCG", {"cutoff": 10}),
    ("nCG@7", "nCG", {"cutoff": 7}), ("AnDCG@10", "AnDCG", {"cutoff": 10}), ("AnCG@5", "AnCG", {"cutoff": 5}),
    ("nERR@10", "nERR", {"cutoff": 10}), ("P@10", "P", {"cutoff": 10}), ("Hit@3", "Hit", {"cutoff": 3}),
    ("AP@5", "AP", {"cutoff": 5}), ("Q-measure@5", "Q-measure", {"cutoff": 5}), ("AWP@5", "AWP", {"cutoff": 5}),
    ("RR@2", "RR", {"cutoff": 2}), ("O-measure@2", "O-measure", {"cutoff": 2}), ("NWRR@2", "NWRR", {"cutoff": 2}),
    ("P-measure@4", "P-measure", {"cutoff": 4}), ("P+-measure@4", "P+-measure", {"cutoff": 4}),
]


@pytest.fixture(scope="module")
def medium():
    return random_collection(np.random.default_rng(42), K=3, n_runs=5, n_topics=7, max_depth=40)


@pytest.mark.parametrize(
    "params",
    [
        {},
        dict(gains="10:5:1", beta=2.0, penalties="2:5:9", rel_threshold=2, log_base=10),
        dict(gains=[1, 1, 1], beta=0.0, penalties=[3, 2, 1.5], rel_threshold=3, log_base=1.5),
    ],
)
def test_score_matrix_keys_equal_reference(medium, params):
    for key, base, extra in KEYS_AND_KERNELS:
        full = dict(gains=None, beta=1.0, penalties=None, rel_threshold=1, log_base=2, cutoff=None)
        full.update(params)
        full.update(extra)
        got = evalcore.score_matrix(medium, key, **params)
        want = np.array(ref.reference_matrix(medium, base, **full))
        np.testing.assert_allclose(got, want, rtol=0, atol=ATOL, err_msg=key)


@pytest.mark.parametrize("mean", ["arithmetic", "geometric"])
def test_evaluate_means_equal_mean_of_matrix(medium, mean):
    keys = [k for k, _, _ in KEYS_AND_KERNELS]
    params = dict(gains="3:2:1", beta=0.5, penalties=None, rel_threshold=2)
    df = evalcore.evaluate(medium, keys, mean=mean, per_topic=True, means=True, **params)
    assert list(df.columns) == ["run", "topic", "metric", "value"]
    mats = evalcore.score_matrices(medium, keys, **params)
    assert set(mats) == set(keys)
    for key in keys:
        m = mats[key]
        np.testing.assert_allclose(m, evalcore.score_matrix(medium, key, **params), rtol=0, atol=0)
        sub = df[df.metric == key]
        per = sub[sub.topic != "all"].pivot(index="run", columns="topic", values="value")
        per = per.loc[list(medium.run_ids), list(medium.topic_ids)].to_numpy()
        np.testing.assert_allclose(per, m, rtol=0, atol=ATOL, err_msg=key)
        means = sub[sub.topic == "all"].set_index("run")["value"].loc[list(medium.run_ids)].to_numpy()
        if mean == "arithmetic":
            want = m.mean(axis=1)
        else:
            # geometric mean with zeros floored at 1e-5 (the G_AveP convention of the papers)
            want = np.array([math.exp(sum(math.log(max(x, 1e-5)) for x in row) / len(row)) for row in m])
        np.testing.assert_allclose(means, want, rtol=1e-12, atol=ATOL, err_msg=key)


def test_evaluate_without_per_topic_holds_only_the_means(medium):
    df = evalcore.evaluate(medium, ["AP", "nDCG@10"])
    assert set(df.topic) == {"all"}
    assert len(df) == 2 * medium.n_runs
    ap = df[df.metric == "AP"].set_index("run")["value"].loc[list(medium.run_ids)].to_numpy()
    np.testing.assert_allclose(ap, np.array(ref.reference_matrix(medium, "AP")).mean(axis=1), rtol=0, atol=ATOL)


def test_evaluate_expands_cutoff_metrics_over_cutoffs(medium):
    df = evalcore.evaluate(medium, ["nDCG", "P"], cutoffs=(3, 20))
    assert set(df.metric) == {"nDCG@3", "nDCG@20", "P@3", "P@20"}
    got = df[df.metric == "P@3"].set_index("run")["value"].loc[list(medium.run_ids)].to_numpy()
    want = np.array(ref.reference_matrix(medium, "P", cutoff=3)).mean(axis=1)
    np.testing.assert_allclose(got, want, rtol=0, atol=ATOL)


# --------------------------------------------------------------------------
# real data at full depth
# --------------------------------------------------------------------------
def test_kernels_equal_reference_on_clef2015_subset(clef2015_collection):
    """Three real runs x 65 topics at depth 1000 (levels 0..2), cutoffs 10 and 1000."""
    c = clef2015_collection.subset(runs=[0, 13, 29])
    assert c.max_level == 2 and c.depth >= 1000
    for key, (_, _, uses) in ref.REFERENCES.items():
        for params in (dict(cutoff=10), dict(cutoff=1000, gains=[1.0, 10.0], beta=0.5, rel_threshold=2,
                                                  penalties=[5.0, 1.5], log_base=10)):
            p = dict(params)
            if "cutoff!" not in uses and "cutoff" in uses and p["cutoff"] == 1000:
                p["cutoff"] = None
            assert_matches_reference(c, key, p)


def test_evaluate_default_metrics_and_keys(medium):
    df = evalcore.evaluate(medium)
    keys = set(df.metric)
    for k in ("AP", "Q-measure", "R-measure", "AWP", "R-Prec", "RR", "O-measure", "WRR", "NWRR", "P-measure",
              "P+-measure", "nDCG@10", "nDCG@1000", "MSnDCG@10", "nCG@10", "AnDCG@10", "AnCG@10", "nERR@10",
              "P@10", "P@1000", "Hit@10"):
        assert k in keys, k
    assert set(df.topic) == {"all"} and len(df) == len(keys) * medium.n_runs
    q = df[df.metric == "Q-measure"].set_index("run")["value"].loc[list(medium.run_ids)].to_numpy()
    np.testing.assert_allclose(q, np.array(ref.reference_matrix(medium, "Q-measure")).mean(axis=1), rtol=0, atol=ATOL)
