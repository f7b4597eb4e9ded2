"""Metric names users already know (evalcore.names): peers' names, the nDCG clash, refusals, the crosswalk."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import evalcore
from evalcore import registry
from evalcore.cli import main
from evalcore.cli.metrics import markdown
from evalcore.names import AmbiguousNameWarning, resolve

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name,key,params", [
    ("map", "AP", {}),       # trec_eval (no threshold pinned: the call's is -l)
    ("recip_rank", "RR", {}),
    ("P_10", "P@10", {}),
    ("P.10", "P@10", {}),
    ("ndcg_cut_10", "MSnDCG@10", {"gains": None}),
    ("ndcg_cut.10", "MSnDCG@10", {"gains": None}),
    ("Rprec", "R-Prec", {}),
    ("success_5", "Hit@5", {}),
    ("AP(rel=2)", "AP", {"rel_threshold": 2}),               # ir_measures syntax
    ("P(rel=2)@10", "P@10", {"rel_threshold": 2}),
    ("RR(rel=2)", "RR", {"rel_threshold": 2}),
    ("Success@10", "Hit@10", {}),
    ("irm:nDCG@10", "MSnDCG@10", {"gains": None}),
    ("Q-measure(beta=2)", "Q-measure", {"beta": 2.0}),        # evalcore keys, ir_measures-style parameters
    ("Q-measure(beta=2)@100", "Q-measure@100", {"beta": 2.0}),
    ("O-measure(gains=10:5:1)", "O-measure", {"gains": "10:5:1"}),
    ("AP(rel>=2)", "AP", {"rel_threshold": 2}),              # what metric_label writes reads back
    ("P-plus", "P+-measure", {}),                            # NTCIREVAL
    ("nERR@0010", "nERR@10", {}),
    ("Prec@10", "P@10", {}),
    ("ntcir:nDCG@0010", "nDCG@10", {}),
    ("evalcore:nDCG@10", "nDCG@10", {}),
])
def test_names_resolve_to_the_matching_definition(name, key, params):
    r = resolve(name)
    assert (r.key, r.params) == (key, params)


def test_metric_labels_read_back():
    label = registry.metric_label("Q-measure@100", gains="10:5:1", beta=2)
    assert label == "Q-measure(gains=10:5:1,beta=2)@100"
    r = resolve(label)
    assert (r.key, r.params) == ("Q-measure@100", {"gains": "10:5:1", "beta": 2.0})


@pytest.mark.parametrize("name,key,params", [
    # trec_eval's and ir_measures' measures that were refused or unknown until evalcore computed them
    # (tests/test_peer_measures.py checks their values against pytrec_eval, ir_measures and trec_eval's port)
    ("map_cut_10", "map_cut@10", {}), ("irm:AP@10", "map_cut@10", {}), ("irm:AP(rel=2)@100", "map_cut@100",
                                                                        {"rel_threshold": 2}),
    ("ndcg", "MSnDCG-list", {"gains": None}), ("irm:nDCG", "MSnDCG-list", {"gains": None}),
    ("irm:nDCG(gains={0:0,1:1,2:3})@10", "MSnDCG@10", {"gains": "{0:0,1:1,2:3}"}),
    ("irm:nDCG(dcg='exp-log2')@10", "MSnDCG@10", {"gains": "2^L-1"}),
    ("nDCG(dcg='exp-log2')@10", "MSnDCG@10", {"gains": "2^L-1"}),      # ir_measures' parameters: its name
    ("ERR@20", "ERR@20", {}), ("irm:ERR@20", "ERR@20", {}),
    ("IPrec@0.1", "IPrec@0.1", {"recall": 0.1}), ("iprec_at_recall_0.10", "IPrec@0.1", {"recall": 0.1}),
    ("irm:IPrec(rel=2)@0.3", "IPrec@0.3", {"recall": 0.3, "rel_threshold": 2, "count_rule": "trunc"}),
    ("infAP", "infAP", {}), ("set_P", "SetP", {}), ("SetR", "SetR", {}), ("SetF(beta=0.5)", "SetF", {"f_beta": 0.5}),
    ("irm:SetF(beta=0.5)", "SetF", {"f_beta": 0.5}), ("set_F", "SetF", {}), ("set_map", "SetAP", {}),
    ("irm:SetP(relative=True)", "SetRelP", {}), ("irm:SetRelP", "SetRelP", {}), ("set_relative_P", "SetRelP", {}),
    ("NumQ", "NumQ", {}), ("num_q", "NumQ", {}), ("irm:RR@10", "RR@10", {"ties": "ir_measures"}),
    ("RR(judged_only=True)@10", "RR@10", {"judged_only": True}), ("irm:P(judged_only=True)@5", "P@5",
                                                                  {"judged_only": True}),
    ("Rprec_mult_0.20", "Rprec_mult@0.2", {"mult": 0.2}), ("relative_P_10", "relative_P@10", {}),
    ("unj_5", "unj@5", {}), ("11pt_avg", "11pt_avg", {}), ("rbp", "RBP-graded", {"gains": None}),
    ("rbp_resid", "RBP-graded-residual", {"gains": None}), ("gm_map", "gm_map", {}),
])
def test_peer_measures_resolve(name, key, params):
    r = resolve(name, warn=False)
    assert (r.key, r.params) == (key, params)


@pytest.mark.parametrize("name,names,why", [
    ("RR(judged_only=True)@10", "ir_measures", "no provider of ir_measures 0.4.3 computes RR(judged_only=True)"),
    ("nDCG(dcg='exp-log2',gains={0:0,1:1})@10", "ir_measures", "with gains= or judged_only=True"),
    ("nDCG(dcg='exp-log2')", "ir_measures", "ranx"),
    ("RBP(p=0.8)", "ir_measures", "trectools provider"),
    ("map@10", "ranx", "divides by R"),
])
def test_names_that_differ_are_refused_with_the_reason(name, names, why):
    with pytest.raises(ValueError, match="is refused: .*" + re.escape(why)):
        resolve(name, names)


@pytest.mark.parametrize("name,why", [
    ("irm:SetR(judged_only=True)", "has no parameter judged_only"), ("irm:IPrec", "needs a recall level"),
    ("irm:nDCG(dcg='exp')@10", "dcg='log2' or dcg='exp-log2'"), ("IPrec@1.5", "bad value '1.5'"),
    ("irm:nDCG(gains={0:1})@10", "level 0"),
])
def test_bad_peer_parameters_are_named(name, why):
    with pytest.raises(ValueError, match=re.escape(why)):
        c = evalcore.simulated_collection(3, 2, seed=1)
        evalcore.score_matrix(c, name)


# (R@k, recall_k, bpref, num_rel_ret and Judged@k were here until evalcore computed them, then infAP, set_P,
# SetR and IPrec@x, then cwl_eval's BPM: tests/test_metrics_trec_measures.py, tests/test_peer_measures.py and
# tests/test_peer_cwl.py check them)
@pytest.mark.parametrize("name,what", [("relstring", "relstring"), ("alpha_nDCG@10", "alpha-nDCG"),
                                       ("Compat", "Compat"), ("irm:nERR_IA@10", "nERR-IA")])
def test_peer_measures_evalcore_lacks_say_so_instead_of_a_look_alike(name, what):
    with pytest.raises(ValueError, match=f"evalcore does not compute .*{what}") as e:
        resolve(name)
    assert "closest known names" not in str(e.value)


@pytest.mark.parametrize("name,closest", [("MAPP", "map"), ("Qmeasure", "Q-measure"), ("ndcg_cutt_10", "ndcg_cut"),
                                          ("P+measure", "P+-measure")])
def test_unknown_names_list_the_closest(name, closest):
    with pytest.raises(ValueError, match=f"unknown metric {re.escape(repr(name))}; closest known names: .*"
                                         + re.escape(closest)):
        resolve(name)


def test_bare_ndcg_warns_and_explicit_conventions_do_not():
    c = evalcore.simulated_collection(6, 4, seed=2)
    with pytest.warns(AmbiguousNameWarning, match="MSnDCG@10 or irm:nDCG@10"):
        bare = evalcore.score_matrices(c, ["nDCG@10"])["nDCG@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = evalcore.score_matrices(c, ["evalcore:nDCG@10"])["evalcore:nDCG@10"]
        theirs = evalcore.score_matrices(c, ["nDCG@10"], names="ir_measures")["nDCG@10"]
        ms = evalcore.score_matrices(c, ["MSnDCG@10"])["MSnDCG@10"]
        evalcore.evaluate(c)                              # every canonical key: nothing to warn about
    np.testing.assert_array_equal(bare, ours)
    np.testing.assert_array_equal(theirs, ms)
    assert not np.allclose(bare, ms)


def test_peer_names_pin_the_peers_gains_and_take_the_calls_threshold():
    """ndcg_cut.10 is trec_eval's (gain = level) whatever gains the call passes; MSnDCG@10 follows them.
    rel_threshold is trec_eval's -l for every binary measure whatever its name; AP(rel=2) keeps its own."""
    c = evalcore.simulated_collection(6, 4, seed=2)
    kw = dict(gains="10:5:1", rel_threshold=2)
    m = evalcore.score_matrices(c, ["ndcg_cut.10", "MSnDCG@10", "map", "AP", "P_10", "recip_rank", "AP(rel=1)"],
                                **kw)
    np.testing.assert_array_equal(m["ndcg_cut.10"], evalcore.score_matrix(c, "MSnDCG@10"))
    np.testing.assert_array_equal(m["MSnDCG@10"], evalcore.score_matrix(c, "MSnDCG@10", gains="10:5:1"))
    rigid_ap = evalcore.score_matrix(c, "AP", rel_threshold=2)
    np.testing.assert_array_equal(m["map"], rigid_ap)
    np.testing.assert_array_equal(m["AP"], rigid_ap)
    np.testing.assert_array_equal(m["P_10"], evalcore.score_matrix(c, "P@10", rel_threshold=2))
    np.testing.assert_array_equal(m["recip_rank"], evalcore.score_matrix(c, "RR", rel_threshold=2))
    np.testing.assert_array_equal(m["AP(rel=1)"], evalcore.score_matrix(c, "AP", rel_threshold=1))
    assert not np.allclose(m["AP(rel=1)"], rigid_ap)


def test_docs_crosswalk_is_the_registrys():
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    block = text.split("<!-- crosswalk:start -->\n", 1)[1].split("<!-- crosswalk:end -->", 1)[0]
    assert block == markdown(), "docs/metrics.md crosswalk is stale: run python docs/make_api.py"
    for key in registry.METRIC_KEYS:
        assert f"| `{key}" in block


def test_metrics_command_prints_every_measure_and_alias(capsys):
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    for row in registry.crosswalk().itertuples(index=False):
        line = next(ln for ln in out.splitlines() if ln.startswith(row.key + " "))
        for alias in (row.ir_measures, row.trec_eval, row.ntcireval):
            assert alias in line


def test_cli_names_option_and_warning(capsys):
    base = ["evaluate", "--paper-examples"]
    assert main(base + ["--metrics", "nDCG@3"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("warning: 'nDCG@3' is read as evalcore's nDCG@3")
    assert main(base + ["--metrics", "nDCG@3", "--names", "ir_measures"]) == 0
    irm = capsys.readouterr()
    assert irm.err == ""
    assert main(base + ["--metrics", "MSnDCG@3", "--topics", "trec_eval"]) == 0   # ir_measures' topics
    assert irm.out.replace("nDCG@3", "MSnDCG@3") == capsys.readouterr().out
