"""Names as ranx and ir_measures write them (any letter case), ranx's Qrels / Run objects as input, and the
values those names give on clef2015 against ranx and ir_measures themselves."""
from __future__ import annotations

import gzip
import re
import warnings

import numpy as np
import pytest

import evalcore
from evalcore.names import AmbiguousNameWarning, resolve

ranx = pytest.importorskip("ranx")

#: ranx's name -> evalcore's key: one entry per alias the registry's ``ranx`` field adds
RANX = {"map": "AP", "mrr": "RR", "mrr@10": "RR@10", "precision@10": "P@10", "recall@100": "R@100",
        "r-precision": "R-Prec", "hit_rate@5": "Hit@5", "ndcg@10": "MSnDCG@10",
        "ndcg@1000": "MSnDCG@1000"}
#: the same names in other letter cases, and ir_measures / trec_eval names in other cases -> (peer, its name)
CASES = {"MRR": ("ranx", "mrr"), "Precision@10": ("ranx", "precision@10"), "ranx:NDCG@10": ("ranx", "ndcg@10"),
         "MAP": ("ir_measures", "AP"), "RPREC": ("ir_measures", "Rprec"), "NDCG_CUT.10": ("ir_measures", "nDCG@10"),
         "p_10": ("ir_measures", "P@10"), "Recip_Rank": ("ir_measures", "RR"),
         "irm:ndcg@10": ("ir_measures", "nDCG@10")}


@pytest.mark.parametrize("name,key", RANX.items())
def test_ranx_names_mean_evalcores_measure(name, key):
    r = resolve(name, warn=False)
    assert r.key == key and (r.convention == "ranx" or name == "map")   # also trec_eval's names
    assert evalcore.registry.topic_policy(name) == "trec_eval"    # ranx averages over every qrels topic


@pytest.mark.parametrize("name", ["ndcg@10", "NDCG@10", "nDCG@10"])
def test_ndcg_in_any_case_warns_which_ndcg_it_is(name):
    with pytest.warns(AmbiguousNameWarning, match=re.escape(repr(name))):
        r = resolve(name)
    # ranx's own spelling is ranx's (MSnDCG); other spellings are evalcore's nDCG, as nDCG@10 always was
    assert r.key == ("MSnDCG@10" if name == "ndcg@10" else "nDCG@10")


@pytest.mark.parametrize("name,reason", [
    ("map@100", "ranx's map@k divides by R"), ("ranx:ndcg", "whole list"), ("ndcg_burges@10", "2^rel - 1")])
def test_peer_names_with_another_meaning_are_refused_with_the_reason(name, reason):
    with pytest.raises(ValueError, match=re.escape(f"metric {name!r} is refused") + ".*" + re.escape(reason)):
        resolve(name, warn=False)


@pytest.mark.parametrize("name", ["MAP_CUT_10", "irm:ap@10"])
def test_trec_evals_map_cut_in_any_case_is_map_cut(name):
    # refused until evalcore computed trec_eval's map_cut (tests/test_peer_measures.py checks its values)
    assert resolve(name, warn=False).key == "map_cut@10"


@pytest.mark.parametrize("name,expected", [
    ("ndgc@10", ["nDCG@10", "MSnDCG@10"]), ("precison@5", ["precision@5", "Prec@5"]),
    ("ndcg_ct_20", ["ndcg_cut_20", "nDCG@20"]), ("mrrr", ["mrr", "RR", "ERR@k"]), ("f2@10", [])])
def test_suggestions_are_written_with_the_cutoff(name, expected):
    with pytest.raises(ValueError, match=re.escape(f"unknown metric {name!r}")) as e:
        resolve(name, warn=False)
    for s in expected:
        assert re.search(rf"[:,] {re.escape(s)}[,( ]", str(e.value)), (s, str(e.value))


def _clef_dicts(clef2015, n_runs=3):
    """qrels and the first runs as pytrec_eval dicts, each run's scores replaced by n - rank in trec_eval's
    order (score descending, ties by document id descending), so that every tool ranks the lists alike."""
    q: dict = {}
    for line in (clef2015 / "qrels.txt").read_text().splitlines():
        a = line.split()
        q.setdefault(a[0], {})[a[2]] = int(a[3])
    runs = {}
    for f in sorted((clef2015 / "runs").glob("*.dat.gz"))[:n_runs]:
        rows: dict = {}
        for line in gzip.open(f, "rt"):
            a = line.split()
            rows.setdefault(a[0], {})[a[2]] = np.float32(a[4])     # trec_eval compares C floats
        r = {}
        for t, docs in rows.items():
            order = sorted(docs, key=lambda d: (-docs[d], tuple(-ord(ch) for ch in d)))
            r[t] = {d: float(len(order) - i) for i, d in enumerate(order)}
        runs[f.name.removesuffix(".dat.gz")] = r
    return q, runs


@pytest.fixture(scope="module")
def clef_peer(clef2015):
    """(~40 s of CPU: ranx compiles its kernels with numba on first use; the tests using it are marked slow)"""
    q, runs = _clef_dicts(clef2015)
    qrels = ranx.Qrels.from_dict(q)
    rx = [ranx.Run.from_dict(r, name=n) for n, r in runs.items()]
    # ranx's objects as they are: the loader reads them through to_dict()
    return q, runs, qrels, rx, evalcore.load_collection(qrels, rx)


@pytest.mark.slow
def test_ranx_objects_load_as_their_dicts(clef_peer):
    q, runs, qrels, rx, c = clef_peer
    assert list(c.run_ids) == list(runs)
    ref = evalcore.load_collection(q, runs)
    np.testing.assert_array_equal(c.levels, ref.levels)


@pytest.mark.slow
def test_ranx_names_equal_ranx_on_clef2015(clef_peer):
    q, runs, qrels, rx, c = clef_peer
    df = evalcore.evaluate(c, list(RANX), per_topic=True)
    topics = sorted(q)
    for run in rx:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranx.evaluate(qrels, run, list(RANX), make_comparable=True)
        for name in RANX:
            got = df[(df.run == run.name) & (df.metric == name)].set_index("topic")["value"]
            assert sorted(got.index) == topics, name                   # every qrels topic, as ranx
            want = np.array([run.scores[name].get(t, 0.0) for t in topics])
            np.testing.assert_allclose(got.loc[topics].to_numpy(), want, rtol=1e-9, atol=1e-12,
                                       err_msg=f"{run.name} {name}")
    means = evalcore.evaluate(c, list(RANX))
    for run in rx:
        for name in RANX:
            got = means[(means.run == run.name) & (means.metric == name)]["value"].item()
            assert got == pytest.approx(run.mean_scores[name], rel=1e-9, abs=1e-12), (run.name, name)


@pytest.mark.slow
def test_names_in_another_case_equal_the_peer_on_clef2015(clef_peer):
    ir_measures = pytest.importorskip("ir_measures")
    q, runs, qrels, rx, c = clef_peer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AmbiguousNameWarning)
        means = evalcore.evaluate(c, list(CASES))
    for name, (peer, peer_name) in CASES.items():
        for run in rx:
            if peer == "ranx":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = ranx.evaluate(qrels, run, peer_name, make_comparable=True)
            else:
                m = ir_measures.parse_measure(peer_name)
                per = {x.query_id: x.value for x in ir_measures.iter_calc([m], q, runs[run.name])}
                want = float(np.mean([per.get(t, 0.0) for t in q]))     # every qrels topic (trec_eval -c)
            got = means[(means.run == run.name) & (means.metric == name)]["value"].item()
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (run.name, name)
