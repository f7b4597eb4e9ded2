"""The measures researchers report with trec_eval and ir_measures: R@k, bpref, Judged@k, NumRet, NumRel,
NumRelRet, and trec_eval's success_k (evalcore's Hit@k).

Each is one entry of the registry (evalcore.registry.METRICS) and one kernel (evalcore.metrics). Checked:

* hand-made lists with the values worked out here, from trec_eval's definitions (m_recall.c, m_bpref.c,
  m_num_*.c) and ir_measures' (Judged: judged documents in the top min(k, list length));
* plain per-list loops written from those definitions, on random collections with unjudged documents;
* pytrec_eval (trec_eval's code) and ir_measures on the real clef2015 collection, per (run, topic) and the
  "all" rows, at relevance_level 1 and 2, over the peers' own topic set (66 qrels topics, one without a
  relevant document: NumRet and Judged@k are not 0 there, and evalcore reads them from
  ``Collection.no_relevant``); the counts' "all" row is a sum, as the peers aggregate it;
* every door: names, labels, the CLI (``python -m evalcore evaluate``), docs/metrics.md's crosswalk, the dashboard
  (which offers the scores and, deliberately, not the counts).
"""
from __future__ import annotations

import gzip
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import random_collection

import evalcore
from evalcore import metrics as M
from evalcore import registry
from evalcore.cli import main
from evalcore.collection import Collection
from evalcore.names import resolve

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

ROOT = Path(__file__).resolve().parents[1]
ATOL = 1e-12
NEW = ("R", "bpref", "Judged", "NumRet", "NumRel", "NumRelRet")
COUNTS = ("NumRet", "NumRel", "NumRelRet")


def _one(levels, level_counts, unjudged=None, length=None) -> Collection:
    """One run, one topic: ``levels`` the list (level per rank), ``unjudged`` the 1-based unjudged ranks."""
    lv = np.array([[levels or [0]]], dtype=np.int8)
    uj = np.zeros(lv.shape, bool)
    for r in unjudged or ():
        uj[0, 0, r - 1] = True
    n = len(levels) if length is None else length
    return Collection(lv, np.array([[n]]), np.array([level_counts]), ("s",), ("t",),
                      unjudged=None if unjudged is None else uj)


def _v(a) -> float:
    return float(a[0, 0])


# -- hand-computed -------------------------------------------------------------------------------------------
def test_recall_by_hand():
    # [B, N, S, N, B], R = 4 (B: 3, S: 1), 5 judged non-relevant
    c = _one([1, 0, 2, 0, 1], [5, 3, 1])
    assert _v(M.recall(c, cutoff=1)) == pytest.approx(1 / 4, abs=ATOL)
    assert _v(M.recall(c, cutoff=3)) == pytest.approx(2 / 4, abs=ATOL)
    assert _v(M.recall(c, cutoff=100)) == pytest.approx(3 / 4, abs=ATOL)      # k beyond the list: read to its end
    assert _v(M.recall(c, cutoff=2, rel_threshold=2)) == 0.0
    assert _v(M.recall(c, cutoff=3, rel_threshold=2)) == pytest.approx(1.0, abs=ATOL)   # the one S of R_2 = 1
    assert _v(M.recall(c, cutoff=5, rel_threshold=3)) == 0.0                  # no document at the threshold


def test_bpref_by_hand():
    # [N, B, U, N, S, B]: U unjudged; topic: 4 judged non-relevant, 2 B, 1 S (R = 3 relaxed)
    c = _one([0, 1, 0, 0, 2, 1], [4, 2, 1], unjudged=[3])
    # relaxed: B@2 has 1 non-relevant above (1 - 1/3), S@5 has 2 (1 - 2/3), B@6 has 2 (1 - 2/3); min(N, R) = 3
    assert _v(M.bpref(c)) == pytest.approx(((1 - 1 / 3) + (1 - 2 / 3) + (1 - 2 / 3)) / 3, abs=ATOL)
    # rigid (-l 2): B documents are non-relevant now: N = 4 + 2 = 6, R = 1; S@5 has N, B, N above: min(3, 1)/1
    assert _v(M.bpref(c, rel_threshold=2)) == 0.0
    # the same list with the S first: nothing non-relevant above it -> 1
    c2 = _one([2, 0, 1, 0, 0, 1], [4, 2, 1], unjudged=[3])
    assert _v(M.bpref(c2, rel_threshold=2)) == 1.0
    # no judged non-relevant document at all (N = 0): every relevant retrieved adds 1 -> count/R
    c3 = _one([1, 0, 1], [0, 3], unjudged=[2])
    assert _v(M.bpref(c3)) == pytest.approx(2 / 3, abs=ATOL)
    # n_r is capped at R: 3 non-relevant above the only relevant document, R = 1, N = 5: 1 - min(3, 1)/1 = 0
    c4 = _one([0, 0, 0, 1], [5, 1], unjudged=[])
    assert _v(M.bpref(c4)) == 0.0
    # no document at the threshold: 0, not 0/0
    assert _v(M.bpref(c, rel_threshold=3)) == 0.0
    # without an unjudged mask every retrieved document is judged: the U counts as non-relevant
    c5 = _one([0, 1, 0, 0, 2, 1], [4, 2, 1])
    assert _v(M.bpref(c5)) == pytest.approx(((1 - 1 / 3) + (1 - 3 / 3) + (1 - 3 / 3)) / 3, abs=ATOL)


def test_judged_by_hand():
    c = _one([1, 0, 0, 0, 2], [9, 3, 1], unjudged=[2, 3])
    assert _v(M.judged(c, cutoff=1)) == 1.0
    assert _v(M.judged(c, cutoff=2)) == pytest.approx(1 / 2, abs=ATOL)
    assert _v(M.judged(c, cutoff=4)) == pytest.approx(2 / 4, abs=ATOL)
    assert _v(M.judged(c, cutoff=10)) == pytest.approx(3 / 5, abs=ATOL)      # k beyond the list: its length
    empty = Collection.from_lists({"s": {}}, {"t": [1, 1]})
    assert _v(M.judged(empty, cutoff=10)) == 0.0                              # a topic missing from the run
    assert _v(M.judged(_one([0, 1, 0], [5, 1]), cutoff=10)) == 1.0           # no mask: all judged


def test_counts_by_hand():
    c = Collection.from_lists({"a": {"t1": [1, 0, 2, 0, 1], "t2": [0]}, "b": {"t1": [2]}},
                              {"t1": [7, 3, 2], "t2": [4, 1, 0]})
    np.testing.assert_array_equal(M.num_ret(c), [[5, 1], [1, 0]])
    np.testing.assert_array_equal(M.num_rel(c), [[5, 1], [5, 1]])
    np.testing.assert_array_equal(M.num_rel(c, rel_threshold=2), [[2, 0], [2, 0]])
    np.testing.assert_array_equal(M.num_rel_ret(c), [[3, 0], [1, 0]])
    np.testing.assert_array_equal(M.num_rel_ret(c, rel_threshold=2), [[1, 0], [1, 0]])
    for f in (M.num_ret, M.num_rel, M.num_rel_ret):
        assert f(c).dtype == np.float64
    # the "all" row of a count is the sum over the topics (as trec_eval and ir_measures), whatever the mean
    for mean in ("arithmetic", "geometric"):
        df = evalcore.evaluate(c, ["NumRet", "NumRelRet", "R@5"], mean=mean, topics="ntcireval")
        got = df[df.topic == "all"].set_index(["run", "metric"])["value"]
        assert got["a", "NumRet"] == 6 and got["b", "NumRet"] == 1 and got["a", "NumRelRet"] == 3
        assert df.attrs["aggregate"] == {"NumRet": "sum", "NumRelRet": "sum", "R@5": mean}
    assert got["a", "R@5"] == pytest.approx(np.exp((np.log(3 / 5) + np.log(1e-5)) / 2), rel=1e-12)
    wide = registry.means_table(c, ["NumRet", "R@5"], topics="ntcireval")
    assert wide.loc["a", "NumRet"] == 6 and wide.loc["a", "R@5"] == pytest.approx((3 / 5 + 0) / 2, abs=ATOL)


def test_success_is_hit_under_trec_eval_names():
    c = Collection.from_lists({"s": {"t": [0, 0, 0, 0, 0, 1]}}, {"t": [3, 1]})
    for name, want in [("success_1", 0.0), ("success_5", 0.0), ("success_10", 1.0), ("Success@10", 1.0),
                       ("success.10", 1.0), ("irm:Success@5", 0.0), ("Hit@10", 1.0)]:
        assert _v(evalcore.score_matrix(c, name)) == want, name
    assert resolve("success_10").key == "Hit@10" and resolve("Success@5").key == "Hit@5"


# -- ties and duplicates as evalcore orders them (trec_eval's order) -------------------------------------------
def test_ties_follow_trec_evals_order(tmp_path):
    # a, b, c tie on the score; trec_eval breaks ties by document id descending: c, b, a
    (tmp_path / "q.txt").write_text("t 0 a 1\nt 0 b 0\nt 0 z 0\n")
    (tmp_path / "r.txt").write_text("t Q0 a 1 5 r\nt Q0 b 2 5 r\nt Q0 c 3 5 r\nt Q0 d 4 1 r\n")
    c = evalcore.load_collection(tmp_path / "q.txt", [tmp_path / "r.txt"])
    # order c (unjudged), b (non-relevant), a (relevant), d (unjudged)
    assert _v(M.recall(c, cutoff=2)) == 0.0 and _v(M.recall(c, cutoff=3)) == 1.0
    # Judged@k reads ir_measures' order, whose judged provider breaks ties by document id ascending: a, b, c, d
    assert _v(M.judged(c, cutoff=1)) == 1.0 and _v(M.judged(c, cutoff=3)) == pytest.approx(2 / 3, abs=ATOL)
    irm = ir_measures.calc_aggregate([ir_measures.Judged @ 1, ir_measures.Judged @ 2],
                                     {"t": {"a": 1, "b": 0, "z": 0}}, {"t": {"a": 5.0, "b": 5.0, "c": 5.0, "d": 1.0}})
    assert irm[ir_measures.Judged @ 1] == _v(M.judged(c, cutoff=1)) and irm[ir_measures.Judged @ 2] == 1.0
    # bpref: one judged non-relevant (b) above a; N = 2, R = 1: 1 - min(1, 1)/min(2, 1) = 0
    assert _v(M.bpref(c)) == 0.0
    qrels = {"t": {"a": 1, "b": 0, "z": 0}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"bpref", "recall.2,3", "num_ret"}).evaluate(
        {"t": {"a": 5.0, "b": 5.0, "c": 5.0, "d": 1.0}})["t"]
    assert want == {"bpref": 0.0, "recall_2": 0.0, "recall_3": 1.0, "num_ret": 4.0}
    assert _v(M.num_ret(c)) == 4.0


def test_a_repeated_document_is_counted_once_when_the_first_is_kept(tmp_path):
    (tmp_path / "q.txt").write_text("t 0 a 1\nt 0 b 0\n")
    (tmp_path / "r.txt").write_text("t Q0 a 1 3 r\nt Q0 a 2 2 r\nt Q0 b 3 1 r\n")
    with pytest.raises(evalcore.InputError, match="twice"):
        evalcore.load_collection(tmp_path / "q.txt", [tmp_path / "r.txt"])
    c = evalcore.load_collection(tmp_path / "q.txt", [tmp_path / "r.txt"], keep_first_duplicate=True)
    assert _v(M.num_ret(c)) == 2.0 and _v(M.num_rel_ret(c)) == 1.0 and _v(M.bpref(c)) == 1.0


# -- plain loops on random collections --------------------------------------------------------------------------
def _ref_one(levels, length, unjudged_ranks, counts, t, k):
    """R@k, bpref, Judged@k, NumRet, NumRel, NumRelRet of one list, straight from the definitions."""
    docs = [(int(levels[i]), (i + 1) in unjudged_ranks) for i in range(length)]
    R = sum(counts[t:])
    N = sum(counts[:t])
    top = docs[:k]
    recall = sum(1 for L, u in top if L >= t) / R if R else 0.0
    bp, nonrel = 0.0, 0
    for L, u in docs:
        if u:
            continue
        if L >= t:
            bp += 1.0 if nonrel == 0 else 1 - min(nonrel, R) / min(max(N, nonrel), R)
        else:
            nonrel += 1
    judged = sum(1 for _, u in top if not u) / len(top) if top else 0.0
    return {"R": recall, "bpref": bp / R if R else 0.0, "Judged": judged, "NumRet": float(length),
            "NumRel": float(R), "NumRelRet": float(sum(1 for L, _ in docs if L >= t))}


@pytest.mark.parametrize("seed", range(5))
def test_kernels_equal_plain_loops(seed):
    rng = np.random.default_rng(500 + seed)
    c = random_collection(rng, K=3, n_runs=4, n_topics=6, max_depth=60)
    inside = np.arange(c.depth)[None, None, :] < c.lengths[:, :, None]
    c = replace(c, unjudged=inside & (c.levels == 0) & (rng.random(c.levels.shape) < 0.3))
    assert c.unjudged.any()
    for t in (1, 2, 3):
        for k in (1, 3, 10, 100):
            got = {"R": M.recall(c, cutoff=k, rel_threshold=t), "bpref": M.bpref(c, rel_threshold=t),
                   "Judged": M.judged(c, cutoff=k), "NumRet": M.num_ret(c),
                   "NumRel": M.num_rel(c, rel_threshold=t), "NumRelRet": M.num_rel_ret(c, rel_threshold=t)}
            for i in range(c.n_runs):
                for j in range(c.n_topics):
                    want = _ref_one(c.levels[i, j], int(c.lengths[i, j]),
                                    {r + 1 for r in np.flatnonzero(c.unjudged[i, j])}, list(c.level_counts[j]), t, k)
                    for m, v in want.items():
                        assert got[m][i, j] == pytest.approx(v, abs=ATOL), (m, i, j, t, k)


# -- a topic without a relevant document (trec_eval's topics) -------------------------------------------------
QRELS = "t1 0 a 1\nt1 0 b 0\nt1 0 d 2\nt2 0 c 0\nt2 0 y 0\nt3 0 e 1\n"          # t2: no relevant document
RUN = ("t1 Q0 b 1 3 r\nt1 Q0 a 2 2 r\nt1 Q0 d 3 1 r\nt2 Q0 c 1 3 r\nt2 Q0 z 2 2 r\nt2 Q0 y 3 1 r\n"
       "t3 Q0 x 1 2 r\nt3 Q0 e 2 1 r\n")
QRELS_D = {"t1": {"a": 1, "b": 0, "d": 2}, "t2": {"c": 0, "y": 0}, "t3": {"e": 1}}
RUN_D = {"t1": {"b": 3.0, "a": 2.0, "d": 1.0}, "t2": {"c": 3.0, "z": 2.0, "y": 1.0}, "t3": {"x": 2.0, "e": 1.0}}
TREC = ["recall_2", "bpref", "num_ret", "num_rel", "num_rel_ret", "success_1"]


@pytest.fixture()
def tiny(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    return tmp_path, evalcore.load_collection(tmp_path / "q.txt", [tmp_path / "r.txt"])


@pytest.mark.parametrize("level", [1, 2])
def test_topic_without_relevant_document_as_the_peers(tiny, level):
    _, c = tiny
    assert c.topics_without_relevant == ("t2",) and c.no_relevant.topic_ids == ("t2",)
    want = pytrec_eval.RelevanceEvaluator(QRELS_D, {"recall.2", "bpref", "num_ret", "num_rel", "num_rel_ret",
                                                    "success.1"}, relevance_level=level).evaluate(RUN_D)
    df = evalcore.evaluate(c, TREC + ["Judged@2", "Judged@10"], rel_threshold=level, per_topic=True, means=True)
    got = df.set_index(["topic", "metric"])["value"]
    for t in want:
        for m in TREC:
            assert got[t, m] == pytest.approx(want[t][m], abs=ATOL), (t, m)
    # by hand: t2 retrieves c (judged), z (unjudged), y (judged): NumRet 3, Judged@2 1/2, Judged@10 2/3
    assert got["t2", "num_ret"] == 3 and got["t2", "Judged@2"] == 0.5
    assert got["t2", "Judged@10"] == pytest.approx(2 / 3, abs=ATOL)
    for m in TREC:   # sums for the counts, means over all three topics otherwise
        agg = sum if m.startswith("num") else (lambda xs: sum(xs) / 3)
        assert got["all", m] == pytest.approx(agg([want[t][m] for t in want]), abs=ATOL), m
    irm = ir_measures.calc_aggregate([ir_measures.Judged @ 2, ir_measures.Judged @ 10, ir_measures.NumRet],
                                     QRELS_D, RUN_D)
    assert got["all", "Judged@2"] == pytest.approx(irm[ir_measures.Judged @ 2], abs=ATOL)
    assert got["all", "Judged@10"] == pytest.approx(irm[ir_measures.Judged @ 10], abs=ATOL)
    assert got["all", "num_ret"] == irm[ir_measures.NumRet] == 8
    assert {df.attrs["topics"][m]["n_topics"] for m in df.attrs["topics"]} == {3}


def test_evalcore_keys_of_these_measures_take_trec_evals_topics(tiny):
    """bpref, NumRet, R@k ... are the peers' own names: their mean is the peers' (66 topics on clef2015),
    unlike AP (NTCIREVAL's topics, 65)."""
    _, c = tiny
    for m in ("bpref", "NumRet", "NumRel", "NumRelRet", "R@2", "Judged@2"):
        assert registry.topic_policy(m) == "trec_eval", m
    assert registry.topic_policy("AP") == "ntcireval" and registry.topic_policy("Hit@1") == "ntcireval"
    df = evalcore.evaluate(c, ["NumRet", "num_ret", "Judged@2"])
    means = df[df.topic == "all"].set_index("metric")["value"]
    assert means["NumRet"] == means["num_ret"] == 8
    nt = evalcore.evaluate(c, ["NumRet"], topics="ntcireval")
    assert float(nt["value"].iloc[0]) == 5 and nt.attrs["topics"]["NumRet"]["n_topics"] == 2
    # the lists of t2 follow subsets of runs, and are dropped with a subset of topics (no zero-topic extras)
    assert c.subset(runs=[0]).no_relevant.lengths.tolist() == [[3]]
    assert c.subset(topics=[0]).no_relevant is None


def test_a_hand_built_collection_without_those_lists_scores_0_there():
    c = Collection.from_lists({"s": {"t": [1, 0]}}, {"t": [1, 1]})
    c = replace(c, topics_without_relevant=("t0",))
    df = evalcore.evaluate(c, ["NumRet", "Judged@5"], per_topic=True, means=True)
    got = df.set_index(["topic", "metric"])["value"]
    assert got["t0", "NumRet"] == 0 and got["t0", "Judged@5"] == 0 and got["all", "NumRet"] == 2


# -- the real collection: pytrec_eval and ir_measures over their own topics -------------------------------------
def _runs(clef2015: Path) -> dict[str, dict]:
    out = {}
    for f in sorted((clef2015 / "runs").glob("*.dat.gz")):
        with gzip.open(f, "rt") as fh:
            out[f.name[: -len(".dat.gz")]] = pytrec_eval.parse_run(fh)
    return out


@pytest.fixture(scope="module")
def peers(clef2015):
    with open(clef2015 / "qrels.txt") as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    return qrels, _runs(clef2015)


TREC_NAMES = ["recall_5", "recall_10", "recall_100", "recall_1000", "bpref", "num_ret", "num_rel", "num_rel_ret",
              "success_1", "success_5", "success_10"]


@pytest.mark.slow
@pytest.mark.parametrize("level", [1, 2])
def test_clef2015_equals_pytrec_eval(clef2015_collection, peers, level):
    c = clef2015_collection
    qrels, runs = peers
    assert len(c.topics_without_relevant) == 1
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recall.5,10,100,1000", "bpref", "num_ret", "num_rel", "num_rel_ret",
                                                "success.1,5,10"}, relevance_level=level)
    # the trec_eval names and evalcore's keys, at the call's threshold (trec_eval's -l)
    keys = {"recall_10": "R@10", "bpref": "bpref", "num_ret": "NumRet", "num_rel": "NumRel",
            "num_rel_ret": "NumRelRet", "success_10": "Hit@10"}
    df = evalcore.evaluate(c, TREC_NAMES + list(keys.values()), rel_threshold=level, per_topic=True, means=True,
                           topics="trec_eval")
    got = df.set_index(["run", "topic", "metric"])["value"]
    for run in c.run_ids:
        want = ev.evaluate(runs[run])
        assert len(want) == 66
        for m in TREC_NAMES:
            per = np.array([want[t][m] for t in want])
            mine = np.array([got[run, t, m] for t in want])
            np.testing.assert_allclose(mine, per, rtol=0, atol=1e-12, err_msg=f"{run} {m} -l {level}")
            agg = per.sum() if m.startswith("num") else per.mean()
            assert got[run, "all", m] == pytest.approx(agg, abs=1e-12), (run, m)
        for m, k in keys.items():
            assert got[run, "all", k] == pytest.approx(got[run, "all", m], abs=1e-12)
    # -l 2 changes the binary measures (a topic with level-1 documents only scores 0 there)
    assert df.attrs["rel_threshold"]["bpref"] == level


@pytest.mark.slow
@pytest.mark.parametrize("level", [1, 2])
def test_clef2015_equals_ir_measures(clef2015_collection, peers, level):
    c = clef2015_collection
    qrels, runs = peers
    irm = ir_measures
    ms = [irm.Judged @ 5, irm.Judged @ 10, irm.Judged @ 100, irm.R(rel=level) @ 10, irm.R(rel=level) @ 1000,
          irm.Bpref(rel=level), irm.NumRet, irm.NumRet(rel=level), irm.Success(rel=level) @ 5]
    if level == 1:
        ms.append(irm.NumRel)   # ir_measures computes NumRel only at rel=1 (pytrec_eval's provider)
    df = evalcore.evaluate(c, ms, per_topic=True, means=True)
    got = df.set_index(["run", "topic", "metric"])["value"]
    for run in c.run_ids[::5]:                    # 6 of the 30 runs: ir_measures is slow
        ordered = runs[run]     # as written: each provider sorts it (Judged@k's ties by document id ascending)
        per = {(m.query_id, "irm:" + str(m.measure)): m.value for m in irm.iter_calc(ms, qrels, ordered)}
        agg = irm.calc_aggregate(ms, qrels, ordered)
        assert {q for q, _ in per} == set(c.topic_ids) | set(c.topics_without_relevant)
        for (q, m), v in per.items():
            assert got[run, q, m] == pytest.approx(v, abs=1e-12), (run, q, m)
        for mo in ms:
            assert got[run, "all", "irm:" + str(mo)] == pytest.approx(agg[mo], abs=1e-9), (run, str(mo))


# -- names, labels, errors ---------------------------------------------------------------------------------------
def test_names_and_labels_come_from_the_registry():
    for key in NEW:
        assert key in registry.METRIC_KEYS
    # the dashboard's scores: no count, no utility (not in [0, 1]), no geometric mean, no IPrec@x / Rprec_mult@x
    left_out = set(COUNTS) | {"NumQ", "num_nonrel_judged_ret", "utility", "gm_map", "gm_bpref", "IPrec", "Rprec_mult",
                              "Accuracy"}    # (Accuracy's mean skips the topics where it is undefined)
    assert registry.SCORE_KEYS == tuple(k for k in registry.METRIC_KEYS if k not in left_out)
    for name, key, params in [("recall_100", "R@100", {}), ("recall.5", "R@5", {}), ("irm:R@10", "R@10", {}),
                              ("R(rel=2)@10", "R@10", {"rel_threshold": 2}), ("Bpref", "bpref", {}),
                              ("bpref(rel=2)", "bpref", {"rel_threshold": 2}), ("num_ret", "NumRet", {}),
                              ("num_rel", "NumRel", {}), ("num_rel_ret", "NumRelRet", {}),
                              ("NumRet(rel=2)", "NumRelRet", {"rel_threshold": 2}),
                              ("irm:NumRet(rel=1)", "NumRelRet", {"rel_threshold": 1}), ("Judged@10", "Judged@10", {})]:
        r = resolve(name, warn=False)
        assert (r.key, r.params) == (key, params), name
    assert resolve(str(ir_measures.NumRelRet)).key == "NumRelRet"     # ir_measures writes it NumRet(rel=1)
    assert registry.metric_label("R@10", rel_threshold=2) == "R(rel>=2)@10"
    assert registry.metric_label("bpref", rel_threshold=2) == "bpref(rel>=2)"
    assert registry.metric_label("Judged@10", rel_threshold=2) == "Judged@10"
    assert registry.metric_label("NumRet", rel_threshold=2) == "NumRet"
    for bad, msg in [("bpref@10", "takes no cutoff"), ("NumRet@10", "takes no cutoff"), ("R", "needs a cutoff"),
                     ("Judged(rel=2)@10", "Judged does not use rel"), ("recall", "needs a cutoff, e.g. recall_10")]:
        with pytest.raises(ValueError, match=msg):
            registry.parse_metric(bad)


def test_every_way_in_gives_the_same_matrix():
    c = random_collection(np.random.default_rng(11), K=2, n_runs=3, n_topics=4)
    np.testing.assert_array_equal(evalcore.score_matrix(c, "R@10", rel_threshold=2),
                                  M.recall(c, cutoff=10, rel_threshold=2))
    mats = evalcore.score_matrices(c, ["R", "Judged", "bpref"], cutoffs=(5, 20), rel_threshold=2)
    assert list(mats) == ["R@5", "R@20", "Judged@5", "Judged@20", "bpref"]
    np.testing.assert_array_equal(mats["bpref"], M.bpref(c, rel_threshold=2))
    np.testing.assert_array_equal(mats["Judged@20"], M.judged(c, cutoff=20))


# -- the CLI -------------------------------------------------------------------------------------------------------
def test_python_m_evalcore_evaluate_prints_the_peers_values(tiny):
    d, _ = tiny
    names = ["recall_2", "bpref", "num_ret", "num_rel", "num_rel_ret", "success_1", "Judged@2", "R@3", "NumRet"]
    out = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--qrels", str(d / "q.txt"), "--run",
                          str(d / "r.txt"), "-m", *names, "--per-topic", "--rel-threshold", "2"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0][:4] == ["run", "topic", "metric", "value"]
    got = {(r[1], r[2]): float(r[3]) for r in rows[1:]}
    want = pytrec_eval.RelevanceEvaluator(QRELS_D, {"recall.2", "bpref", "num_ret", "num_rel", "num_rel_ret",
                                                    "success.1"}, relevance_level=2).evaluate(RUN_D)
    for t in want:
        for m in want[t]:
            assert got[t, m] == pytest.approx(want[t][m], abs=1e-9), (t, m)
    assert got["all", "num_ret"] == got["all", "NumRet"] == 8                # a sum over the three topics
    assert got["all", "num_rel"] == 1                                         # -l 2: only d in t1
    # R@3 at -l 2: t1's d (level 2) at rank 3 is its one relevant document; t2 and t3 have none: (1 + 0 + 0)/3
    assert got["t2", "Judged@2"] == 0.5 and got["all", "R@3"] == pytest.approx(1 / 3, abs=1e-9)
    assert all(r[4] == "trec_eval:3" for r in rows[1:] if r[1] == "all")


def test_cli_json_and_trec_eval_output_state_the_sum(tiny, capsys):
    d, _ = tiny
    base = ["evaluate", "--qrels", str(d / "q.txt"), "--run", str(d / "r.txt"), "-m", "num_rel_ret", "bpref"]
    assert main(base + ["--output", "trec_eval"]) == 0
    lines = {a.strip(): v for a, _, v in (x.split("\t") for x in capsys.readouterr().out.splitlines())}
    assert lines["num_q"] == "3" and float(lines["num_rel_ret"]) == 3
    assert float(lines["bpref"]) == pytest.approx((0 + 0 + 1) / 3, abs=1e-9)
    assert main(["metrics"]) == 0
    listing = capsys.readouterr().out
    for key, alias in [("R@k", "recall_k"), ("bpref", "Bpref"), ("Judged@k", "Judged@k"), ("NumRet", "num_ret"),
                       ("NumRel", "num_rel"), ("NumRelRet", "num_rel_ret")]:
        line = next(x for x in listing.splitlines() if x.startswith(key + " "))
        assert alias in line


def test_docs_list_the_measures():
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    for key in ("`R@k`", "`bpref`", "`Judged@k`", "`NumRet`", "`NumRel`", "`NumRelRet`", "`success_10`"):
        assert key in text


# -- meta-evaluation and the dashboard ------------------------------------------------------------------------------
def test_counts_are_no_meta_evaluation_default():
    from evalcore.cli.meta import DEFAULT_METRICS

    assert not any(registry.METRICS[resolve(m, warn=False).base].count for m in DEFAULT_METRICS)
    assert {k for k, s in registry.METRICS.items() if s.count} == set(COUNTS) | {"NumQ", "num_nonrel_judged_ret"}


def test_dashboard_offers_the_scores_not_the_counts():
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    from dashboard import scoring, state

    for key in ("R", "bpref", "Judged", "Hit"):
        assert key in scoring.METRIC_KEYS
    for key in COUNTS:
        assert key not in scoring.METRIC_KEYS
    assert state.expand("R", 10) == "R@10" and state.expand("bpref", 10) == "bpref"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    box = next(m for m in at.sidebar.multiselect if m.label == "Metrics")
    assert {"R", "bpref", "Judged"} <= set(box.options) and not set(COUNTS) & set(box.options)
    box.set_value(["AP", "R", "bpref", "Judged"]).run()
    assert not at.exception, [e.message for e in at.exception]
    at.switch_page("views/rankings.py").run()
    assert not at.exception, [e.message for e in at.exception]
    table = next(df.value for df in at.dataframe if "bpref" in map(str, df.value.columns))
    assert {"R@10", "Judged@10", "AP"} <= set(map(str, table.columns))
    c = evalcore.simulated_collection(n_topics=50, n_runs=30, seed=0)      # the app's default data
    for key in ("R@10", "bpref", "Judged@10"):
        want = dict(zip(c.run_ids, registry.score_matrix(c, key).mean(axis=1), strict=True))
        got = dict(zip(map(str, table.index), table[key], strict=True))
        assert got == pytest.approx(want, abs=1e-9), key
