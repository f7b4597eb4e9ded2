"""trec_eval's and ir_measures' measures under their own names, against the tools themselves.

* trec_eval's ``all_trec`` measures that evalcore lacked (infAP, set_P, set_F, utility, G, ndcg, map_cut,
  gm_map, ...) against pytrec_eval on clef2015, per (run, topic) and the "all" rows, at ``-l 1`` and ``-l 2``;
  the ones trec_eval 10.0 defines otherwise than pytrec_eval's trec_eval 9 (iprec_at_recall and 11pt_avg
  round x R; rbp, rbp_resid, unj are new in 10.0) against evalcore.treceval reading the same files, which
  checks the collection's adaptor (evalcore.trec_measures) against trec_eval's own input path;
* ir_measures' names, as ir_measures parses them, against ``ir_measures.iter_calc`` and ``calc_aggregate`` on
  clef2015 (topic ids made numeric: gdeval reads only those) and on made-up edge cases: score ties at the
  cutoff (msmarco's RR@k and the judged provider sort ties by document id ascending), topics missing from a
  run, unjudged documents, a topic without a relevant document;
* hand computations where no peer computes the measure (trec_eval's rbp).
"""
from __future__ import annotations

import gzip
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import evalcore
from evalcore import registry
from evalcore.collection import Collection
from evalcore.names import AmbiguousNameWarning, resolve

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

ROOT = Path(__file__).resolve().parents[1]

#: trec_eval names whose definition pytrec_eval (trec_eval 9) shares with trec_eval 10.0
SAME_IN_9 = ["infAP", "Rprec_mult", "utility", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "relative_P", "set_P",
             "set_relative_P", "set_recall", "set_map", "set_F", "map_cut", "num_nonrel_judged_ret", "num_q"]
#: the value names evalcore is asked for (pytrec_eval's own names for the default parameters)
ASKED = ["infAP", "Rprec_mult_0.20", "Rprec_mult_1.00", "Rprec_mult_2.00", "utility", "binG", "G", "ndcg",
         "ndcg_rel", "Rndcg", "relative_P_5", "relative_P_100", "set_P", "set_relative_P", "set_recall", "set_map",
         "set_F", "map_cut_5", "map_cut_10", "map_cut_1000", "num_nonrel_judged_ret", "num_q"]


def _topic(t: str) -> str:
    return t.split(".")[-1]      # qtest.12 -> 12: gdeval reads numeric topic ids only


@pytest.fixture(scope="module")
def clef(clef2015):
    """(qrels dict, {run: run dict}, the collection of those runs) for 3 of the 30 runs, topic ids numeric."""
    qrels: dict = {}
    for line in (clef2015 / "qrels.txt").read_text().splitlines():
        a = line.split()
        qrels.setdefault(_topic(a[0]), {})[a[2]] = int(a[3])
    runs = {}
    for f in sorted((clef2015 / "runs").glob("*.dat.gz"))[::10]:
        r: dict = {}
        with gzip.open(f, "rt") as fh:
            for line in fh:
                a = line.split()
                r.setdefault(_topic(a[0]), {})[a[2]] = float(a[4])
        runs[f.name.removesuffix(".dat.gz")] = r
    return qrels, runs, evalcore.load_collection(qrels, runs)


@pytest.mark.parametrize("level", [1, 2])
def test_trec_eval_measures_equal_pytrec_eval(clef, level):
    qrels, runs, c = clef
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(SAME_IN_9) | {"gm_map", "gm_bpref"}, relevance_level=level)
    df = evalcore.evaluate(c, ASKED + ["gm_map", "gm_bpref"], rel_threshold=level, per_topic=True, means=True)
    got = df.set_index(["run", "topic", "metric"])["value"]
    for run, r in runs.items():
        want = ev.evaluate(r)
        assert len(want) == 66           # every qrels topic, the one without a relevant document too
        for m in ASKED:
            per = np.array([want[t][m] for t in want])
            mine = np.array([got[run, t, m] for t in want])
            np.testing.assert_allclose(mine, per, rtol=0, atol=1e-12, err_msg=f"{run} {m} -l {level}")
            agg = per.sum() if m.startswith("num") else per.mean()
            assert got[run, "all", m] == pytest.approx(agg, abs=1e-12), (run, m, level)
        for m in ("gm_map", "gm_bpref"):   # pytrec_eval gives log(max(x, 1e-5)) per topic; trec_eval's mean
            want_all = np.exp(np.mean([want[t][m] for t in want]))
            assert got[run, "all", m] == pytest.approx(want_all, rel=1e-12), (run, m)
    assert df.attrs["aggregate"]["gm_map"] == "geometric" and df.attrs["aggregate"]["num_q"] == "sum"


@pytest.mark.parametrize("level", [1, 2])
def test_trec_eval_10_measures_equal_trec_evals_own_reading_of_the_files(clef, level):
    """iprec_at_recall and 11pt_avg (trec_eval 10.0 rounds x R; pytrec_eval's 9 adds 0.9 and truncates),
    and rbp, rbp_resid, unj (new in 10.0): the collection's lists against evalcore.treceval's reading of
    the same qrels and run files (form_res_rels.c), measure by measure."""
    from evalcore import treceval

    qrels, runs, c = clef
    names = ["iprec_at_recall", "11pt_avg", "rbp", "rbp_resid", "unj"]
    df = evalcore.evaluate(c, names + ["unj_5", "unj_20"], rel_threshold=level, per_topic=True, means=True,
                           topics="trec_eval")
    got = df.set_index(["run", "topic", "metric"])["value"]
    with tempfile.TemporaryDirectory() as d:
        q = Path(d) / "qrels.txt"
        q.write_text("".join(f"{t} 0 {doc} {v}\n" for t, docs in qrels.items() for doc, v in docs.items()))
        tq = treceval.read_qrels(str(q))
        for run, r in runs.items():
            f = Path(d) / "run.txt"
            # scores written in single precision: the collection orders a run as trec_eval 9 and pytrec_eval do,
            # comparing C floats; trec_eval 10.0 compares doubles (on clef2015 the two orders differ for KISTI's
            # runs, whose scores tie in single precision only)
            f.write_text("".join(f"{t} Q0 {doc} 0 {float(np.float32(s))!r} x\n" for t, docs in r.items()
                                 for doc, s in docs.items()))
            sel = treceval.select(names + ["unj.5,20"])
            ev = treceval.evaluate(tq, treceval.read_results(str(f)), sel,
                                   treceval.Options(relevance_level=level, average_complete=True))
            n = 0
            for _m, v, value_names in zip(sel.measures, ev.values, ev.names, strict=True):
                for j, nm in enumerate(value_names):
                    mine = np.array([got[run, t, nm] for t in ev.qids])
                    np.testing.assert_allclose(mine, v[:, j].astype(float), rtol=0, atol=1e-12,
                                               err_msg=f"{run} {nm} -l {level}")
                    n += 1
            assert n == 11 + 1 + 1 + 1 + 2


@pytest.mark.parametrize("name", ["IPrec", "11pt_avg", "rbp"])
def test_those_trec_eval_10_measures_differ_from_pytrec_evals_9(clef, name):
    """Why the test above reads trec_eval's port rather than pytrec_eval: the two rules differ on clef2015."""
    qrels, runs, c = clef
    run = next(iter(runs))
    if name == "rbp":
        assert "rbp" not in pytrec_eval.supported_measures
        return
    trec = {"IPrec": "iprec_at_recall", "11pt_avg": "11pt_avg"}[name]
    want = pytrec_eval.RelevanceEvaluator(qrels, {trec}).evaluate(runs[run])
    m = "iprec_at_recall_0.10" if name == "IPrec" else "11pt_avg"
    df = evalcore.evaluate(c.subset(runs=[0]), [m], per_topic=True, topics="trec_eval")
    mine = df.set_index("topic")["value"]
    assert max(abs(mine[t] - want[t][m]) for t in want) > 0.1


# -- ir_measures' names ---------------------------------------------------------------------------------------------
#: ir_measures' catalogue, as written; the providers that compute them: pytrec_eval unless said
IRM = ["AP", "AP@10", "AP(rel=2)@100", "AP(judged_only=True)", "MAP", "Bpref", "BPref(rel=2)", "infAP", "infAP(rel=2)",
       "IPrec@0.1", "IPrec@0.5", "IPrec(rel=2)@0.3", "IPrec(judged_only=True)@0.2",
       "Judged@5", "Judged@10",                                                       # judged provider
       "nDCG", "nDCG@10", "NDCG@20", "nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={0:0,1:2,2:5})",
       "nDCG(judged_only=True)@10", "nDCG(judged_only=True)",
       "NumQ", "NumRel", "NumRet", "NumRet(rel=2)", "NumRelRet",
       "P@10", "Precision(rel=2)@5", "P(judged_only=True)@10", "R@100", "Recall(rel=2)@10", "Rprec", "RPrec(rel=2)",
       "Rprec(judged_only=True)", "RR", "MRR(rel=2)", "RR(judged_only=True)",
       "RR@10", "RR(rel=2)@10", "RR@3",                                               # msmarco provider
       "SetP", "SetP(relative=True)", "SetRelP(rel=2)", "SetP(judged_only=True)", "SetR", "SetR(rel=2)", "SetF",
       "SetF(beta=0.5)", "SetF(rel=2,beta=2.0)", "SetAP", "SetAP(rel=2)", "Success@5", "Success(rel=2)@10"]
#: gdeval (perl): 5 decimals printed, so ir_measures' values are rounded to 5e-6
GDEVAL = ["nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@1000", "ERR@10", "ERR@20"]


def _irm_values(measures, qrels, run):
    """ir_measures' values, one measure per call: in one call its pytrec_eval provider may score plain nDCG
    with another nDCG's gains mapping (which one wins follows the hash order of the measures, so it changes
    from process to process: ir_measures 0.4.3)."""
    per, agg = {}, {}
    for m in measures:
        per.update({(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc([m], qrels, run)})
        agg.update(ir_measures.calc_aggregate([m], qrels, run))
    return per, agg


def _check_irm(names, qrels, runs, c, atol):
    ms = [ir_measures.parse_measure(n) for n in names]
    df = evalcore.evaluate(c, ms, per_topic=True, means=True)        # the Measure objects, as ir_measures users pass
    got = df.set_index(["run", "topic", "metric"])["value"]
    for run, r in runs.items():
        per, agg = _irm_values(ms, qrels, r)
        assert per
        for (q, m), v in per.items():
            assert got[run, q, "irm:" + m] == pytest.approx(v, abs=atol), (run, q, m)
        for mo in ms:
            assert got[run, "all", "irm:" + str(mo)] == pytest.approx(agg[mo], abs=atol), (run, str(mo))
    return df


@pytest.mark.slow
def test_ir_measures_names_equal_ir_measures_on_clef2015(clef):
    qrels, runs, c = clef
    _check_irm(IRM, qrels, runs, c, 1e-12)


def test_ir_measures_names_equal_ir_measures_on_one_clef2015_run(clef):
    qrels, runs, c = clef
    run = next(iter(runs))
    names = ["AP@10", "IPrec@0.1", "IPrec(rel=2)@0.3", "Judged@10", "nDCG", "nDCG(gains={0:0,1:1,2:3})@10", "NumQ",
             "RR@10", "RR(rel=2)@3", "SetP(relative=True)", "SetF(beta=0.5)", "SetAP", "infAP"]
    _check_irm(names, qrels, {run: runs[run]}, c.subset(runs=[0]), 1e-12)


def test_gdeval_measures_equal_ir_measures_to_its_five_decimals(clef):
    qrels, runs, c = clef
    run = next(iter(runs))
    _check_irm(GDEVAL, qrels, {run: runs[run]}, c.subset(runs=[0]), 5.000001e-6)


def test_rr_at_k_follows_msmarcos_tie_order_where_ties_straddle_the_cutoff(clef2015):
    """RR@k under ir_measures' name is msmarco's (ties by document id ascending, scores in double precision);
    evalcore's RR@k keeps trec_eval's order. On clef2015 the two differ for some run: ir_measures' name gives
    ir_measures' number there, evalcore's the other."""
    c = evalcore.load_collection(clef2015 / "qrels.txt", clef2015 / "runs")
    ours = evalcore.score_matrix(c, "RR@10")
    theirs = evalcore.score_matrix(c, "irm:RR@10")
    i = int(np.argmax(np.abs(ours - theirs).sum(axis=1)))
    assert np.abs(ours - theirs)[i].max() > 0.01
    qrels = pytrec_eval.parse_qrel(open(clef2015 / "qrels.txt"))
    f = clef2015 / "runs" / f"{c.run_ids[i]}.dat.gz"
    with gzip.open(f, "rt") as fh:
        run = pytrec_eval.parse_run(fh)
    want = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.RR @ 10], qrels, run)}
    got = dict(zip(c.topic_ids, theirs[i], strict=True))
    assert got == pytest.approx({t: want.get(t, 0.0) for t in c.topic_ids}, abs=1e-12)


# -- edge cases, made up ---------------------------------------------------------------------------------------------
EDGE_QRELS = {"1": {"a": 1, "b": 0, "c": 2, "d": 0, "e": 1, "f": 2},      # R = 4 (2 of level 2)
              "2": {"x": 1, "y": 0, "z": 0},
              "3": {"p": 0, "q": 0},                                      # no relevant document
              "4": {"m": 2, "n": 1}}                                      # missing from the run
EDGE_RUN = {"1": {"u": 9.0, "b": 7.0, "a": 7.0, "c": 7.0, "v": 7.0, "e": 5.0, "w": 4.0, "f": 4.0},   # ties at 2..5
            "2": {"y": 3.0, "x": 3.0, "s": 3.0},                                                    # all tied
            "3": {"p": 2.0, "r": 1.0}}


@pytest.mark.parametrize("name", IRM + ["RR@2", "RR@4", "Judged@2", "Judged@3", "Judged@4", "IPrec@0.7",
                                        "IPrec(rel=2)@0.5", "nDCG(gains={0:0,1:3,2:1})@3", "SetF(beta=0.25)"])
def test_ir_measures_names_on_edge_cases(name):
    c = evalcore.load_collection(EDGE_QRELS, {"r": EDGE_RUN})
    m = ir_measures.parse_measure(name)
    per, agg = _irm_values([m], EDGE_QRELS, EDGE_RUN)
    df = evalcore.evaluate(c, [m], per_topic=True, means=True)
    got = df.set_index(["topic", "metric"])["value"]
    for (q, mm), v in per.items():
        assert got[q, "irm:" + mm] == pytest.approx(v, abs=1e-12), (q, mm)
    assert got["all", "irm:" + str(m)] == pytest.approx(agg[m], abs=1e-12)


def test_ties_at_the_cutoff_are_where_the_orders_differ():
    c = evalcore.load_collection(EDGE_QRELS, {"r": EDGE_RUN})
    # trec_eval's order of topic 1: u, v, c, b, a, e, w, f (ties by id descending); ir_measures': u, a, b, c, v, ...
    assert evalcore.score_matrix(c, "RR@2")[0, 0] == 0.0
    assert evalcore.score_matrix(c, "irm:RR@2")[0, 0] == 0.5
    assert evalcore.score_matrix(c, "RR")[0, 0] == evalcore.score_matrix(c, "irm:RR")[0, 0] == pytest.approx(1 / 3)
    # the unprefixed RR@2 says so where the two differ, and only there
    with pytest.warns(AmbiguousNameWarning, match=r"differs on 1 \(run, topic\).*irm:RR@2"):
        evalcore.evaluate(c, ["RR@2"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evalcore.evaluate(c, ["RR@1", "evalcore:RR@2", "irm:RR@2"])


# -- hand computations -------------------------------------------------------------------------------------------------
def test_trec_evals_rbp_is_graded_over_the_whole_list_with_p_09():
    # levels [2, 0, 1], the topic judged at 0..2: gains 0, 1, 2 scaled to 0, 0.5, 1 (trec_eval's m_rbp.c)
    c = Collection.from_lists({"s": {"t": [2, 0, 1]}}, {"t": [3, 1, 1]})
    assert evalcore.score_matrix(c, "rbp")[0, 0] == pytest.approx(0.1 * (1.0 + 0.5 * 0.81), abs=1e-15)
    assert evalcore.score_matrix(c, "RBP-graded(p=0.5)")[0, 0] == pytest.approx(0.5 * (1.0 + 0.5 * 0.25), abs=1e-15)
    # evalcore's RBP@k stays Moffat & Zobel's binary RBP at p = 0.8, cut at k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AmbiguousNameWarning)
        assert evalcore.score_matrix(c, "RBP@2")[0, 0] == pytest.approx(0.2, abs=1e-15)
    assert resolve("rbp").key == "RBP-graded" and resolve("trec:rbp").key == "RBP-graded"
    assert resolve("RBP@10", warn=False).key == "RBP@10"


def test_gdeval_err_by_hand():
    c = Collection.from_lists({"s": {"t": [2, 0, 1, 4]}}, {"t": [3, 1, 1, 0, 1]})
    r = [3 / 16, 0.0, 1 / 16, 15 / 16]
    want, keep = 0.0, 1.0
    for i, x in enumerate(r):
        want += x * keep / (i + 1)
        keep *= 1 - x
    assert evalcore.score_matrix(c, "ERR@10")[0, 0] == pytest.approx(want, abs=1e-15)
    big = Collection.from_lists({"s": {"t": [5]}}, {"t": [0, 0, 0, 0, 0, 1]})   # gdeval stops there: read as 4
    assert evalcore.score_matrix(big, "ERR@10")[0, 0] == pytest.approx(15 / 16, abs=1e-15)


# -- everywhere measures appear ----------------------------------------------------------------------------------------
def test_labels_expansions_and_the_crosswalk():
    assert registry.expand_metrics(["IPrec"])[:3] == ["IPrec@0", "IPrec@0.1", "IPrec@0.2"]
    assert registry.expand_metrics(["iprec_at_recall"])[-1] == "iprec_at_recall_1.00"
    assert registry.metric_label("IPrec@0.25", rel_threshold=2) == "IPrec(rel>=2)@0.25"
    assert registry.metric_label("SetF(beta=0.5)") == "SetF(beta=0.5)"
    assert registry.metric_label("irm:RR@10") == "RR(ties=ir_measures)@10"
    assert registry.metric_label("irm:nDCG(dcg='exp-log2')@10") == "MSnDCG(gains=2^L-1)@10"
    for label in ("IPrec(rel>=2)@0.25", "RR(ties=ir_measures)@10", "MSnDCG(gains={0:0,1:1,2:3})@10",
                  "SetF(beta=0.5)", "utility(coefficients=2:-1:0:0)", "RR(judged_only=True)@5"):
        assert registry.metric_label(label) == label            # every label reads back as itself
    rows = {r["key"]: r for r in evalcore.registry.crosswalk().to_dict("records")}
    assert rows["IPrec@x"]["trec_eval"] == "iprec_at_recall_x" and rows["IPrec@x"]["ir_measures"] == "IPrec@x"
    assert rows["map_cut@k"]["ir_measures"] == "AP@k" and rows["MSnDCG-list"]["trec_eval"] == "ndcg"
    assert rows["SetRelP"]["ir_measures"] == "SetP(relative=True)"
    for key in ("utility", "gm_map", "IPrec", "NumQ"):
        assert key not in registry.SCORE_KEYS                  # the dashboard offers scores in [0, 1] averaged


def test_evaluate_compare_and_the_command_line_take_them(tmp_path):
    c = evalcore.load_collection(EDGE_QRELS, {"r": EDGE_RUN, "s": {"1": {"f": 3.0, "a": 2.0}, "2": {"x": 1.0}}})
    res = evalcore.compare(c, ["SetP", "infAP", "irm:AP@10", "IPrec@0.5"], test="t")
    assert {"SetP", "infAP", "irm:AP@10", "IPrec@0.5"} <= set(res.table["metric"])
    (tmp_path / "q.txt").write_text("".join(f"{t} 0 {d} {v}\n" for t, ds in EDGE_QRELS.items() for d, v in ds.items()))
    (tmp_path / "r.txt").write_text("".join(f"{t} Q0 {d} 0 {s} r\n" for t, ds in EDGE_RUN.items()
                                            for d, s in ds.items()))
    out = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--qrels", str(tmp_path / "q.txt"), "--run",
                          str(tmp_path / "r.txt"), "-m", "set_P", "set_F", "map_cut_10", "iprec_at_recall_0.50",
                          "gm_map", "--per-topic"], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    rows = {(r[1], r[2]): float(r[3]) for r in (line.split("\t") for line in out.splitlines()[1:])}
    qrels = {t: dict(ds) for t, ds in EDGE_QRELS.items()}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"set_P", "set_F", "map_cut.10", "gm_map"}).evaluate(EDGE_RUN)
    for t in want:
        for m in ("set_P", "set_F", "map_cut_10"):
            assert rows[t, m] == pytest.approx(want[t][m], abs=1e-9), (t, m)
    # gm_map's mean: trec_eval -c's geometric mean over every qrels topic (4: the missing one scores 0 -> 1e-5)
    logs = [want[t]["gm_map"] for t in want] + [np.log(1e-5)]
    assert rows["all", "gm_map"] == pytest.approx(np.exp(np.mean(logs)), rel=1e-6)


def test_the_dashboard_says_which_selected_measures_the_gains_do_not_change():
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.run()
    box = next(m for m in at.sidebar.multiselect if m.label == "Metrics")
    assert {"SetP", "infAP", "MSnDCG-list", "RBP-graded", "map_cut"} <= set(box.options)
    box.set_value(["Q-measure", "SetP", "infAP", "MSnDCG-list"]).run()
    assert not at.exception, [e.message for e in at.exception]
    said = [c.value for c in at.sidebar.caption if c.value.startswith("Gain-independent")]
    assert len(said) == 1 and "SetP, infAP." in said[0] and "MSnDCG-list" not in said[0]
    box.set_value(["Q-measure", "MSnDCG-list"]).run()
    assert not [c for c in at.sidebar.caption if c.value.startswith("Gain-independent")]
