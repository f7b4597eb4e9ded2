"""ir_measures' cwl_eval measures (RBP, BPM, SDCG, NERR8-11, INST, INSQ) and its Accuracy, under ir_measures'
names, against ir_measures itself (``iter_calc`` and ``calc_aggregate``, the default pipeline: its cwl_eval and
accuracy providers), per topic and in the mean:

* on clef2015, read from its files by evalcore's loader and by ir_measures' own readers (the runs' many score
  ties then stand in the files' order, as cwl_eval and the accuracy provider keep them);
* on made-up edge cases: score ties in an order that is neither document id order, a topic missing from the run,
  a run topic the qrels lack, unjudged documents, a negative label, labels above ``max_rel``, ``min_rel`` above
  and below 0, a topic without a relevant document, a list longer than cwl_eval's 1000 ranks;
* hand computations of the conventions (RBP normalised over 1000 ranks, BPM's stopping rank).

The providers are test dependencies (requirements-dev.txt): skipped where missing, a failure under CI=true.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import warnings

import numpy as np
import pytest
from conftest import IN_CI

import evalcore
from evalcore import cwl
from evalcore.collection import Collection
from evalcore.names import resolve

ir_measures = pytest.importorskip("ir_measures")
if IN_CI:
    import cwl as _cwl_eval  # noqa: F401 - CI installs requirements-dev.txt: a missing provider fails there
pytest.importorskip("cwl", reason="cwl_eval (pip install cwl-eval) computes ir_measures' C/W/L measures")

logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)   # its max_rel notes, on every call

#: cwl_eval's measures under ir_measures' names, as ir_measures parses them
CWL = ["RBP(rel=1)", "RBP(rel=2,p=0.95)", "RBP(rel=1,p=0.5)", "BPM(T=1.0,max_rel=2)@10", "BPM(T=3.0,max_rel=2)@1000",
       "SDCG(max_rel=2)@10", "SDCG(min_rel=1,max_rel=2)@20", "NERR8(max_rel=2)@10", "NERR9(max_rel=2)@20",
       "NERR10(max_rel=2)", "NERR10(p=0.5,max_rel=1)", "NERR11(max_rel=2)", "NERR11(T=2.0,max_rel=2)",
       "INST(max_rel=2)", "INST(T=3.0,max_rel=1)", "INSQ(max_rel=2)", "INSQ(T=2.0,max_rel=2)"]
#: the accuracy provider's: computed one at a time (below)
ACCURACY = ["Accuracy", "Accuracy(rel=2)", "Accuracy@100"]


def test_ir_measures_gives_these_measures_to_cwl_eval_and_accuracy():
    assert ir_measures.providers.registry["cwl_eval"].is_available()
    pipeline = ir_measures.DefaultPipeline.providers
    for name in CWL + ACCURACY:
        m = ir_measures.parse_measure(name)
        first = next(p for p in pipeline if p.is_available() and p.supports(m))
        assert first.NAME == ("accuracy" if name.startswith("Accuracy") else "cwl_eval"), name


def _irm(measures, qrels, run):
    """ir_measures' per-topic values and means; Accuracy alone (see test_accuracy_mean_skips_...)."""
    cw = [m for m in measures if m.NAME != "Accuracy"]
    per = {(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc(cw, qrels, run)} if cw else {}
    agg = ir_measures.calc_aggregate(cw, qrels, run) if cw else {}
    for m in measures:
        if m.NAME == "Accuracy":
            per.update({(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc([m], qrels, run)})
            agg.update(ir_measures.calc_aggregate([m], qrels, run))
    return per, agg


def _check(measures, qrels, runs, c, atol=1e-12):
    """Every (run, topic) value and every mean of ``measures`` (ir_measures objects) equal ir_measures';
    the topics ir_measures reports no value for are NaN (only Accuracy has such topics)."""
    df = evalcore.evaluate(c, measures, per_topic=True, means=True)
    got = df.set_index(["run", "topic", "metric"])["value"]
    all_topics = list(c.topic_ids) + list(c.topics_without_relevant)
    for run, r in runs.items():
        per, agg = _irm(measures, qrels, r)
        assert per
        for (q, m), v in per.items():
            assert got[run, q, "irm:" + m] == pytest.approx(v, abs=atol), (run, q, m)
        for m in measures:
            key = "irm:" + str(m)
            silent = [q for q in all_topics if (q, str(m)) not in per]
            assert all(math.isnan(got[run, q, key]) for q in silent), (run, m, silent)
            assert not silent or m.NAME == "Accuracy"
            assert got[run, "all", key] == pytest.approx(agg[m], abs=atol), (run, str(m))
    return got


# -- clef2015 -------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def clef(clef2015):
    """(qrels, {run: scored documents in file order}, the collection of those runs read from their files) for
    3 of the 30 runs, every one read by ir_measures' own readers."""
    files = sorted((clef2015 / "runs").glob("*.dat.gz"))[::10]
    qrels = list(ir_measures.read_trec_qrels(str(clef2015 / "qrels.txt")))
    runs = {f.name.removesuffix(".dat.gz"): list(ir_measures.read_trec_run(str(f))) for f in files}
    return qrels, runs, evalcore.load_collection(clef2015 / "qrels.txt", files)


def test_clef2015_runs_hold_score_ties_in_an_order_of_their_own(clef):
    """Why the input order matters on this collection: cwl_eval's order differs from trec_eval's and from
    ir_measures' other providers' for many lists."""
    _, _, c = clef
    assert c.input_order is not None and len(c.input_order) > 1000
    assert not np.array_equal(c.in_order("input").levels, c.levels)
    assert not np.array_equal(c.in_order("input").levels, c.in_order("ir_measures").levels)


def test_cwl_measures_equal_ir_measures_on_one_clef2015_run(clef):
    qrels, runs, c = clef
    run = next(iter(runs))
    _check([ir_measures.parse_measure(n) for n in CWL + ACCURACY], qrels, {run: runs[run]}, c.subset(runs=[0]))


@pytest.mark.slow
def test_cwl_measures_equal_ir_measures_on_clef2015(clef):
    qrels, runs, c = clef
    _check([ir_measures.parse_measure(n) for n in CWL + ACCURACY], qrels, runs, c)


def test_the_names_mean_those_numbers_whatever_the_call_says(clef):
    """A name pins ir_measures' parameters: the call's p (evalcore's RBP persistence) does not change
    ir_measures' RBP(rel=1), whose p is 0.8; evalcore's own key RBP-cwl follows it."""
    _, _, c = clef
    one = c.subset(runs=[0])
    a = evalcore.score_matrix(one, "irm:RBP(rel=1)", p=0.5)
    np.testing.assert_array_equal(a, evalcore.score_matrix(one, "RBP-cwl(rel=1,p=0.8)"))
    assert not np.allclose(a, evalcore.score_matrix(one, "RBP-cwl", p=0.5))


# -- edge cases, made up ----------------------------------------------------------------------------------------------
EDGE_QRELS = {"1": {"a": 1, "b": 0, "c": 2, "d": 0, "e": 1, "f": 2, "g": 3},     # a label above max_rel=2
              "2": {"x": 1, "y": 0, "z": 0},
              "3": {"p": 0, "q": 0},                                            # no relevant document
              "4": {"m": 2, "n": 1},                                            # missing from the run
              "5": {"k": -1, "l": 2, "j": 1}}                                   # a negative label
EDGE_RUN = {"1": {"u": 9.0, "v": 7.0, "c": 7.0, "b": 7.0, "a": 7.0, "e": 5.0, "w": 4.0, "f": 4.0, "g": 1.0},
            "2": {"y": 3.0, "s": 3.0, **{f"d{i:04d}": 2.0 - i * 1e-4 for i in range(1200)}, "x": -1.0},
            "3": {"p": 2.0, "r": 1.0},
            "5": {"k": 5.0, "o": 4.0, "l": 4.0, "j": 4.0},
            "9": {"zz": 1.0}}                                                   # not in the qrels
#: the names of both families on the edge cases, cutoffs around the ties and past 1000 ranks
EDGE = CWL + ["BPM(T=2.0,max_rel=3)@5", "BPM(T=0.5,max_rel=2)@3", "SDCG(max_rel=2)@3", "SDCG(max_rel=2)@2000",
              "NERR8(min_rel=1,max_rel=3)@2000", "NERR9(max_rel=2)@3", "RBP(rel=2,p=0.99)", "INST(max_rel=3)",
              "Accuracy", "Accuracy@3", "Accuracy(rel=2)", "Accuracy@2000"]


@pytest.mark.parametrize("name", EDGE)
def test_edge_cases_equal_ir_measures(name):
    c = evalcore.load_collection(EDGE_QRELS, {"r": EDGE_RUN})
    _check([ir_measures.parse_measure(name)], EDGE_QRELS, {"r": EDGE_RUN}, c)


@pytest.mark.parametrize("measure", ["INST", "NERR10", "SDCG"])
def test_a_negative_min_rel_gives_judged_documents_a_gain_and_unjudged_ones_none(measure):
    """ir_measures' parser reads no negative number: the Measure object carries min_rel=-1. A judged
    non-relevant document then gains 1/3, so the topic without a relevant document scores above 0 there."""
    m = getattr(ir_measures, measure)(min_rel=-1, max_rel=2)
    if measure == "SDCG":
        m = m @ 5
    c = evalcore.load_collection(EDGE_QRELS, {"r": EDGE_RUN})
    got = _check([m], EDGE_QRELS, {"r": EDGE_RUN}, c)
    assert got["r", "3", "irm:" + str(m)] > 0


def test_ties_in_the_runs_order_are_where_the_orders_differ():
    """Topic 1 ties v, c, b, a at 7.0: the run lists them in trec_eval's order (id descending) and msmarco's
    order is ascending; the run that lists them ascending is read by cwl_eval as listed, by trec_eval not."""
    c = evalcore.load_collection(EDGE_QRELS, {"r": EDGE_RUN})
    first = [c.in_order(t).levels[0, 0, :5].tolist() for t in ("input", "trec_eval", "ir_measures")]
    assert first == [[0, 0, 2, 0, 1], [0, 0, 2, 0, 1], [0, 1, 0, 2, 0]]
    flipped = {"1": {"u": 9.0, "a": 7.0, "b": 7.0, "c": 7.0, "v": 7.0}}
    d = evalcore.load_collection(EDGE_QRELS, {"r": flipped})
    assert d.in_order("input").levels[0, 0, :5].tolist() == [0, 1, 0, 2, 0]
    assert d.in_order("trec_eval").levels[0, 0, :5].tolist() == [0, 0, 2, 0, 1]
    want = {x.query_id: x.value for x in ir_measures.iter_calc([ir_measures.NERR8(max_rel=2) @ 3], EDGE_QRELS,
                                                                flipped)}
    assert evalcore.score_matrix(d, "irm:NERR8(max_rel=2)@3")[0, 0] == pytest.approx(want["1"], abs=1e-15)
    trec_order = dataclasses.replace(d, input_order=None)        # the lists as loaded: trec_eval's order
    assert evalcore.score_matrix(trec_order, "NERR8(max_rel=2)@3")[0, 0] != pytest.approx(want["1"], abs=0.1)


def test_a_trec_file_keeps_its_lines_order_of_ties(tmp_path):
    """The loader's input order is the file's: ties of a TREC run file as ir_measures' read_trec_run reads them."""
    (tmp_path / "q.txt").write_text("".join(f"{t} 0 {d} {v}\n" for t, ds in EDGE_QRELS.items() for d, v in ds.items()))
    lines = "".join(f"{t} Q0 {d} 0 {s!r} r\n" for t, ds in EDGE_RUN.items() for d, s in ds.items())
    (tmp_path / "r.txt").write_text(lines)
    c = evalcore.load_collection(tmp_path / "q.txt", tmp_path / "r.txt")
    run = list(ir_measures.read_trec_run(str(tmp_path / "r.txt")))
    qrels = list(ir_measures.read_trec_qrels(str(tmp_path / "q.txt")))
    _check([ir_measures.parse_measure(n) for n in ("NERR8(max_rel=2)@3", "INST(max_rel=2)", "Accuracy@4")], qrels,
           {"r": run}, c)


def test_accuracy_is_undefined_without_a_pair_and_its_mean_skips_those_topics():
    """No relevant document in the top k: ir_measures reports no value (the topic leaves its mean); every
    document of the top k relevant: its accuracy provider divides by 0 - evalcore says NaN for both."""
    qrels = {"1": {"a": 1, "b": 1, "c": 0}, "2": {"x": 1}, "3": {"y": 1}}
    run = {"1": {"a": 3.0, "c": 2.0, "b": 1.0}, "2": {"w": 1.0}}
    c = evalcore.load_collection(qrels, {"r": run})
    df = evalcore.evaluate(c, ["irm:Accuracy", "irm:Accuracy@1"], per_topic=True, means=True)
    got = df.set_index(["topic", "metric"])["value"]
    assert got["1", "irm:Accuracy"] == pytest.approx(1 - 1 / 2)        # n = (0, 1), m = 2, N = 1
    assert math.isnan(got["2", "irm:Accuracy"]) and math.isnan(got["3", "irm:Accuracy"])   # no relevant retrieved
    assert got["all", "irm:Accuracy"] == pytest.approx(ir_measures.calc_aggregate([ir_measures.Accuracy], qrels,
                                                                                   run)[ir_measures.Accuracy])
    with pytest.raises(ZeroDivisionError):   # a at rank 1 is relevant and alone: no pair
        ir_measures.calc_aggregate([ir_measures.Accuracy @ 1], qrels, run)
    assert math.isnan(got["1", "irm:Accuracy@1"]) and math.isnan(got["all", "irm:Accuracy@1"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no "mean of empty slice" on the way
        evalcore.evaluate(c, ["Accuracy@1"])


# -- hand computations ------------------------------------------------------------------------------------------------
def test_rbp_is_normalised_over_cwl_evals_1000_ranks():
    c = Collection.from_lists({"s": {"t": [1, 0, 1]}}, {"t": [0, 2]})
    for p in (0.5, 0.999):
        want = (1 + p * p) * (1 - p) / (1 - p ** 1000)
        assert evalcore.score_matrix(c, f"RBP-cwl(p={p})")[0, 0] == pytest.approx(want, rel=1e-12)
    long = Collection.from_lists({"s": {"t": [0] * 1000 + [1] * 5}}, {"t": [0, 5]})   # past rank 1000: unread
    assert evalcore.score_matrix(long, "RBP-cwl")[0, 0] == 0.0


def test_bpm_reads_until_the_gain_or_the_cutoff_is_reached():
    c = Collection.from_lists({"s": {"t": [0, 2, 1, 2, 2]}}, {"t": [0, 1, 3]})
    # gains (max_rel 2): 0, 1, .5, 1, 1; T = 1.5 is reached at rank 3: 1.5 / 3; k = 2 stops at rank 2: 1 / 2
    assert evalcore.score_matrix(c, "BPM(T=1.5)@10")[0, 0] == pytest.approx(0.5, abs=1e-15)
    assert evalcore.score_matrix(c, "BPM(T=1.5)@2")[0, 0] == pytest.approx(0.5, abs=1e-15)
    assert evalcore.score_matrix(c, "BPM(T=9)@10")[0, 0] == pytest.approx(3.5 / 10, abs=1e-15)   # never: k
    assert cwl.cwl_gains(c, max_rel=2)[0, 0].tolist() == [0.0, 1.0, 0.5, 1.0, 1.0]


def test_sdcg_divides_by_k_documents_at_max_rel():
    c = Collection.from_lists({"s": {"t": [2, 0, 1]}}, {"t": [0, 1, 1]})
    disc = 1 / np.log2(np.arange(2, 6))
    want = (disc[0] + 0.5 * disc[2]) / disc.sum()
    assert evalcore.score_matrix(c, "SDCG@4")[0, 0] == pytest.approx(want, abs=1e-15)


# -- names -------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,key,params", [
    ("irm:RBP(rel=1,p=0.8)", "RBP-cwl", {"rel_threshold": 1, "p": 0.8}),
    ("irm:RBP(rel=2)", "RBP-cwl", {"rel_threshold": 2, "p": 0.8}),
    ("irm:BPM(T=1000,max_rel=2)@10", "BPM@10", {"goal": 1000.0, "max_rel": 2}),
    ("INST(T=3,max_rel=2)", "INST", {"goal": 3.0, "max_rel": 2}),
    ("irm:NERR8(max_rel=2)@10", "NERR8@10", {"max_rel": 2}),
    ("irm:NERR10(p=0.5,min_rel=-1,max_rel=2)", "NERR10", {"phi": 0.5, "min_rel": -1, "max_rel": 2}),
    ("SDCG(max_rel=2)@10", "SDCG@10", {"max_rel": 2}), ("irm:Accuracy@5", "Accuracy@5", {}),
    ("Accuracy(rel=2)", "Accuracy", {"rel_threshold": 2}),
])
def test_names_resolve(name, key, params):
    r = resolve(name, warn=False)
    assert (r.key, r.params) == (key, params)


def test_labels_read_back():
    for label in ("INST(T=3,max_rel=2)", "NERR10(p=0.5,max_rel=1)", "BPM(T=2,min_rel=1,max_rel=3)@10",
                  "RBP-cwl(p=0.95)", "SDCG(max_rel=2)@10", "Accuracy@5"):
        assert evalcore.registry.metric_label(label) == label
    assert evalcore.registry.metric_label("irm:INST(max_rel=2)") == "INST(max_rel=2)"
    # where evalcore's RBP and ir_measures' (cwl_eval's) share a label, tables name the tool
    assert evalcore.registry.display_label("irm:RBP(rel=1)") == "RBP(rel=1) (cwl_eval)"
    assert evalcore.registry.display_label("irm:INST(max_rel=2)") == "INST(max_rel=2)"


@pytest.mark.parametrize("name,why", [
    ("irm:RBP(p=0.8)", "needs rel="), ("irm:RBP(rel=1)@10", "trectools"), ("irm:INST(T=3.0)", "needs max_rel="),
    ("irm:SDCG(max_rel=2)", "needs a cutoff"), ("irm:SDCG(dcg='exp-log2',max_rel=2)@10", "only dcg='log2'"),
    ("irm:INST(max_rel=2)@10", "has no parameter cutoff"), ("irm:BPM(max_rel=2.5)@10", "whole number"),
    ("irm:INST(T=-1.0,max_rel=2)", "bad value -1.0 for T"), ("irm:Compat(p=0.95)", "qrels"),
    ("irm:alpha_nDCG@10", "subtopic"),
])
def test_what_ir_measures_would_not_compute_or_evalcore_cannot_is_refused(name, why):
    with pytest.raises(ValueError, match=why.replace("(", r"\(").replace(")", r"\)")):
        evalcore.score_matrix(evalcore.simulated_collection(3, 2, seed=1), name)


def test_max_rel_must_be_above_min_rel():
    c = evalcore.simulated_collection(3, 2, seed=1)
    with pytest.raises(ValueError, match="max_rel must be above min_rel"):
        evalcore.score_matrix(c, "irm:INST(min_rel=2,max_rel=2)")
