"""The collection tensor, its sparse hits view, condensed lists, subsets, fingerprints."""
from __future__ import annotations

import numpy as np
import pytest

import evalcore
from evalcore.collection import Collection


def _random_collection(seed=0, n_runs=4, n_topics=5, depth=30, K=3, unjudged=True):
    rng = np.random.default_rng(seed)
    levels = rng.choice(np.arange(K + 1), p=[0.7] + [0.3 / K] * K, size=(n_runs, n_topics, depth)).astype(np.int8)
    lengths = rng.integers(0, depth + 1, size=(n_runs, n_topics))
    levels[np.arange(depth)[None, None, :] >= lengths[:, :, None]] = 0
    counts = rng.integers(1, 8, size=(n_topics, K + 1))
    uj = None
    if unjudged:
        uj = (levels == 0) & (rng.random(levels.shape) < 0.4)
        uj &= np.arange(depth)[None, None, :] < lengths[:, :, None]
    return Collection(levels=levels, lengths=lengths, level_counts=counts,
                      run_ids=[f"r{i}" for i in range(n_runs)], topic_ids=[f"t{j}" for j in range(n_topics)],
                      unjudged=uj)


def test_hits_agree_with_dense_tensor():
    c = _random_collection(1)
    h = c.hits
    assert np.array_equal(c.levels.reshape(-1, c.depth)[h.seg, h.rank - 1], h.level)
    for i in range(h.seg.size):
        lst = c.levels.reshape(-1, c.depth)[h.seg[i], : h.rank[i]]
        assert h.count[i] == np.count_nonzero(lst)
        assert h.cnt[i].tolist() == [int((lst == L).sum()) for L in range(1, c.max_level + 1)]
        assert h.first[i] == (np.count_nonzero(lst) == 1)


def test_condensed_removes_unjudged_and_closes_ranks():
    c = _random_collection(2)
    cc = c.condensed()
    for i in range(c.n_runs):
        for j in range(c.n_topics):
            n = c.lengths[i, j]
            keep = ~c.unjudged[i, j, :n]
            expected = c.levels[i, j, :n][keep]
            assert cc.lengths[i, j] == expected.size
            assert cc.levels[i, j, : expected.size].tolist() == expected.tolist()
            assert not cc.levels[i, j, expected.size:].any()
    assert not cc.unjudged.any()


def test_condensed_raises_scores_of_lists_with_unjudged_documents():
    c = Collection.from_lists({"r": {"t": [0, 0, 1]}}, {"t": [5, 1]})
    c = Collection(levels=c.levels, lengths=c.lengths, level_counts=c.level_counts, run_ids=c.run_ids,
                   topic_ids=c.topic_ids, unjudged=np.array([[[True, False, False]]]))
    assert evalcore.score_matrix(c, "RR")[0, 0] == pytest.approx(1 / 3)
    assert evalcore.score_matrix(c.condensed(), "RR")[0, 0] == pytest.approx(1 / 2)


def test_subset_and_fingerprint():
    c = _random_collection(3)
    s = c.subset(runs=[2, 0], topics=[1])
    assert s.run_ids == ("r2", "r0") and s.topic_ids == ("t1",)
    assert np.array_equal(s.levels[0, 0], c.levels[2, 1])
    np.testing.assert_array_equal(evalcore.score_matrix(s, "AP")[:, 0], evalcore.score_matrix(c, "AP")[[2, 0], 1])
    assert c.fingerprint == _random_collection(3).fingerprint
    assert c.fingerprint != _random_collection(4).fingerprint
    assert s.fingerprint != c.fingerprint


@pytest.mark.parametrize("kwargs,msg", [
    (dict(levels=np.zeros((1, 1, 2)), level_counts=[[0, 1]], lengths=[[2]], run_ids=["a", "b"], topic_ids=["t"]),
     "run ids"),
    (dict(levels=np.full((1, 1, 2), 3), level_counts=[[0, 1]], lengths=[[2]], run_ids=["a"], topic_ids=["t"]),
     "level 3"),
    (dict(levels=np.zeros((1, 2)), level_counts=[[0, 1]], lengths=[[2]], run_ids=["a"], topic_ids=["t"]),
     "shape"),
])
def test_collection_validates_shapes(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        Collection(**kwargs)


def test_simulated_collection_is_deterministic_and_shaped_like_ntcir():
    a = evalcore.simulated_collection(seed=7)
    b = evalcore.simulated_collection(seed=7)
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != evalcore.simulated_collection(seed=8).fingerprint
    assert a.levels.shape == (30, 50, 1000) and a.level_names == ("B", "A", "S")
    per_level = a.level_counts[:, 1:].mean(axis=0)          # B, A, S around 23, 31, 7 (003 Table 1)
    assert 12 < per_level[0] < 35 and 18 < per_level[1] < 45 and 3 < per_level[2] < 12
    # the model's runs are of similar quality and differ in where they rank S documents (its docstring):
    # they spread further under P+-measure than under AP
    ap = evalcore.score_matrix(a, "AP").mean(axis=1)
    pp = evalcore.score_matrix(a, "P+-measure").mean(axis=1)
    assert 0.1 < ap.max() - ap.min() < pp.max() - pp.min()


def test_paper_examples_values():
    """Sakai 2007 (003) Sec. 3.2-3.3, Fig. 2/3: topic 3 and systems X, Y, Z."""
    c = evalcore.paper_examples()
    r = {k: evalcore.score_matrix(c, k) for k in ("O-measure", "P-measure", "P+-measure", "NWRR")}
    run = {name: i for i, name in enumerate(c.run_ids)}
    T3 = c.topic_ids.index("T3")
    assert r["O-measure"][run["X"], T3] == pytest.approx(0.50)
    assert r["P-measure"][run["X"], T3] == pytest.approx(0.50)
    assert r["O-measure"][run["Y"], T3] == pytest.approx(4 / 7)
    assert r["P-measure"][run["Y"], T3] == pytest.approx(4 / 7)
    assert r["O-measure"][run["Z"], T3] == pytest.approx(0.50)
    assert r["P-measure"][run["Z"], T3] == pytest.approx(6 / 7)
    assert r["P-measure"][run["inverse"], T3] == pytest.approx(1.0)
    assert r["P+-measure"][run["inverse"], T3] == pytest.approx((2 / 4 + 5 / 7 + 1) / 3)
    np.testing.assert_allclose(r["NWRR"][run["S-at-3"]], 0.2)
    assert r["O-measure"][run["S-at-3"], 0] == pytest.approx(2 / 3)
    assert r["O-measure"][run["S-at-3"], 1] == pytest.approx(1 / 3)


def test_truncated_keeps_the_top_of_each_list():
    c = _random_collection(5, depth=30)
    t = c.truncated(7)
    assert t.depth == 7 and np.array_equal(t.levels, c.levels[:, :, :7])
    assert np.array_equal(t.lengths, np.minimum(c.lengths, 7))
    # P@5 cannot see below rank 7, so it is unchanged; AP@7 equals AP of the truncated lists
    np.testing.assert_array_equal(evalcore.score_matrix(t, "P@5"), evalcore.score_matrix(c, "P@5"))
    np.testing.assert_allclose(evalcore.score_matrix(t, "RR"), evalcore.metrics.reciprocal_rank(c, cutoff=7))
    assert c.truncated(100) is c
