"""Rank-biased precision RBP(p)@k and its residual (Moffat & Zobel, TOIS 2008).

Hand-computed examples, the plain loops of tests/reference.py (``ref_rbp``,
``ref_rbp_residual``) on random collections with unjudged documents, and the
way in through every door: names, labels, the CLI, the settings file and the
dashboard's metric choices. RBP is also in ``reference.REFERENCES``, so the
random-collection and clef2015 cross-checks of test_metrics_reference.py
cover it.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from conftest import random_collection

import evalcore
from evalcore import metrics as M
from evalcore import registry
from evalcore.cli import main
from evalcore.collection import Collection
from evalcore.names import resolve
from evalcore.settings import parse_settings

ATOL = 1e-12


def _with_unjudged(c: Collection, rng: np.random.Generator, share: float = 0.3) -> Collection:
    """``c`` with a random share of its retrieved level-0 documents marked unjudged."""
    ranks = np.arange(c.depth)[None, None, :]
    inside = ranks < c.lengths[:, :, None]
    mask = inside & (c.levels == 0) & (rng.random(c.levels.shape) < share)
    return replace(c, unjudged=mask)


# -- hand-computed -------------------------------------------------------------------------------
def test_hand_computed_rbp_and_residual():
    # one list: [S, non-relevant, B, non-relevant, unjudged, B]; levels 0..2 (B = 1, S = 2)
    levels = np.array([[[2, 0, 1, 0, 0, 1]]], dtype=np.int8)
    unjudged = np.zeros_like(levels, dtype=bool)
    unjudged[0, 0, 4] = True
    c = Collection(levels=levels, lengths=np.array([[6]]), level_counts=np.array([[3, 2, 1]]),
                   run_ids=("s",), topic_ids=("t",), unjudged=unjudged)
    # p = 0.5, k = 5: relevant at ranks 1 and 3 -> 0.5 * (0.5^0 + 0.5^2) = 0.625
    assert M.rbp(c, cutoff=5, p=0.5)[0, 0] == pytest.approx(0.625, abs=ATOL)
    # rel >= 2: only rank 1 -> 0.5
    assert M.rbp(c, cutoff=5, p=0.5, rel_threshold=2)[0, 0] == pytest.approx(0.5, abs=ATOL)
    # residual: unjudged rank 5 -> 0.5 * 0.5^4 = 0.03125, plus the tail beyond k = 5: 0.5^5 = 0.03125
    assert M.rbp_residual(c, cutoff=5, p=0.5)[0, 0] == pytest.approx(0.0625, abs=ATOL)
    # k = 6 reaches the B at rank 6: 0.625 + 0.5 * 0.5^5 = 0.640625; residual 0.03125 + 0.5^6
    assert M.rbp(c, cutoff=6, p=0.5)[0, 0] == pytest.approx(0.640625, abs=ATOL)
    assert M.rbp_residual(c, cutoff=6, p=0.5)[0, 0] == pytest.approx(0.03125 + 0.015625, abs=ATOL)
    # default p = 0.8, k = 3: 0.2 * (1 + 0.64) = 0.328
    assert M.rbp(c, cutoff=3)[0, 0] == pytest.approx(0.328, abs=ATOL)


def test_short_list_and_missing_topic():
    c = Collection.from_lists({"a": {"t1": [1]}, "b": {}}, {"t1": [0, 1], "t2": [0, 2]})
    # ranks past the end of a list count as non-relevant: RBP = 1 - p, residual = p^k only
    assert M.rbp(c, cutoff=10, p=0.8)[0, 0] == pytest.approx(0.2, abs=ATOL)
    np.testing.assert_allclose(M.rbp(c, cutoff=10)[1], 0.0, atol=0)                 # empty lists score 0
    np.testing.assert_allclose(M.rbp_residual(c, cutoff=10, p=0.8), 0.8 ** 10, rtol=1e-15)


@pytest.mark.parametrize("p", [0, 1, -0.1, 1.5, float("nan"), True])
def test_persistence_must_lie_strictly_between_0_and_1(p):
    c = Collection.from_lists({"a": {"t": [1]}}, {"t": [0, 1]})
    with pytest.raises(ValueError, match="p \\(persistence\\)"):
        M.rbp(c, cutoff=5, p=p)
    with pytest.raises(ValueError, match="p \\(persistence\\)"):
        M.rbp_residual(c, cutoff=5, p=p)


# -- plain loops ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_kernels_equal_plain_loops_with_unjudged_documents(seed):
    rng = np.random.default_rng(300 + seed)
    c = _with_unjudged(random_collection(rng, K=3, n_runs=5, n_topics=6, max_depth=80), rng)
    assert c.unjudged.any()
    for p in (0.5, 0.8, 0.95):
        for k in (1, 5, 10, 100):
            for t in (1, 2, 3):
                got = M.rbp(c, cutoff=k, p=p, rel_threshold=t)
                want = ref.reference_matrix(c, "RBP", cutoff=k, p=p, rel_threshold=t)
                np.testing.assert_allclose(got, want, rtol=0, atol=ATOL, err_msg=f"p={p} k={k} rel={t}")
            got = M.rbp_residual(c, cutoff=k, p=p)
            want = [[ref.ref_rbp_residual(None, None, cutoff=k, p=p,
                                          unjudged={r + 1 for r in np.flatnonzero(c.unjudged[i, j])})
                     for j in range(c.n_topics)] for i in range(c.n_runs)]
            np.testing.assert_allclose(got, want, rtol=0, atol=ATOL, err_msg=f"residual p={p} k={k}")
            # the score and what is unknown never exceed the total weight 1
            assert np.all(M.rbp(c, cutoff=k, p=p) + got <= 1 + 1e-12)


# -- the registry and its doors ---------------------------------------------------------------------
def test_one_spec_entry_drives_names_labels_and_kwargs():
    spec, cut = registry.parse_metric("RBP(p=0.9)@10")
    assert spec.key == "RBP" and cut == 10 and spec.cutoff == "required"
    assert "RBP" in registry.cutoff_required() and "RBP-residual" in registry.cutoff_required()
    assert spec.uses_threshold and not spec.uses_gains
    assert resolve("RBP(p=0.9,rel=2)@10", warn=False).params == {"p": 0.9, "rel_threshold": 2}
    assert registry.metric_label("RBP@10") == "RBP@10"                      # p = 0.8 is the default
    assert registry.metric_label("RBP(p=0.9)@10") == "RBP(p=0.9)@10"
    label = registry.metric_label("RBP(p=0.9)@10", rel_threshold=2)
    assert label == "RBP(rel>=2,p=0.9)@10"
    assert resolve(label, warn=False).params == {"p": 0.9, "rel_threshold": 2}   # labels read back
    for bad, msg in [("RBP(p=1)@10", "bad value '1' for p"), ("RBP(beta=2)@10", "RBP does not use beta"),
                     ("RBP(q=2)@10", "RBP takes p=, rel="), ("RBP", "needs a cutoff")]:
        with pytest.raises(ValueError, match=msg.replace("(", "\\(")):
            registry.parse_metric(bad)


def test_score_matrix_reads_p_from_the_name():
    c = random_collection(np.random.default_rng(7), K=2, n_runs=3, n_topics=4)
    np.testing.assert_allclose(evalcore.score_matrix(c, "RBP(p=0.9)@10"), M.rbp(c, cutoff=10, p=0.9), atol=0)
    np.testing.assert_allclose(evalcore.score_matrix(c, "RBP@10", rel_threshold=2),
                               ref.reference_matrix(c, "RBP", cutoff=10, rel_threshold=2), rtol=0, atol=ATOL)
    df = evalcore.evaluate(c, ["RBP(p=0.9)@10", "RBP-residual(p=0.9)@10"])
    assert set(df.metric) == {"RBP(p=0.9)@10", "RBP-residual(p=0.9)@10"}
    assert df.attrs["rel_threshold"] == {"RBP(p=0.9)@10": 1}


def test_bare_name_warns_and_ir_measures_name_is_refused():
    # trec_eval's rbp weighs documents by their gain over the whole list (RBP-graded); ir_measures 0.4.3 has RBP
    # only through its optional cwl_eval provider
    with pytest.warns(evalcore.names.AmbiguousNameWarning, match="RBP-graded"):
        resolve("RBP(p=0.8)@10")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve("evalcore:RBP(p=0.8)@10").key == "RBP@10"
    with pytest.raises(ValueError, match="refused"):
        resolve("irm:RBP(p=0.8)@10")


def test_cli_evaluates_rbp(capsys):
    assert main(["evaluate", "--paper-examples", "--metrics", "RBP(p=0.9)@10", "--per-topic"]) == 0
    out = capsys.readouterr().out
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    c = evalcore.paper_examples()
    want = ref.reference_matrix(c, "RBP", cutoff=10, p=0.9)
    got = {(r[0], r[1]): float(r[3]) for r in rows if r[1] != "all"}
    for i, run in enumerate(c.run_ids):
        for j, topic in enumerate(c.topic_ids):
            assert got[(run, topic)] == pytest.approx(want[i][j], abs=1e-9)
    assert all(r[2] == "RBP(p=0.9)@10" for r in rows)


def test_settings_file_lists_rbp(tmp_path, capsys):
    s = parse_settings(json.dumps({"settings": {"metrics": ["RBP(p=0.9)@10", "RBP"], "cutoffs": [5]}}))
    assert s["metrics"] == ["RBP(p=0.9)@10", "RBP"]
    with pytest.raises(Exception, match="p"):
        parse_settings(json.dumps({"settings": {"metrics": ["RBP(p=2)@10"]}}))
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"settings": {"metrics": ["RBP(p=0.9)@10"]}}))
    assert main(["evaluate", "--paper-examples", "--settings", str(f)]) == 0
    a = capsys.readouterr().out
    assert main(["evaluate", "--paper-examples", "--metrics", "RBP(p=0.9)@10"]) == 0
    assert a == capsys.readouterr().out and "RBP(p=0.9)@10" in a


def test_dashboard_offers_rbp_and_recomputes_it_only_for_its_settings():
    pytest.importorskip("streamlit")
    from dashboard import scoring, state

    assert "RBP" in scoring.METRIC_KEYS and state.expand("RBP", 10) == "RBP@10"
    s = state.Settings.__new__(state.Settings)
    object.__setattr__(s, "gains", (1.0, 2.0, 3.0))
    object.__setattr__(s, "beta", 2.0)
    object.__setattr__(s, "penalties", (4.0, 3.0, 2.0))
    object.__setattr__(s, "rel_threshold", 2)
    object.__setattr__(s, "measure_settings", (("p", 0.9), ("f_beta", 1.0)))
    # a gain, beta or penalty slider does not touch RBP's cache key; the threshold and the persistence do
    assert scoring.relevant("RBP@10", s) == (("p", 0.9), ("rel_threshold", 2))
    assert scoring.relevant("RBP-residual@10", s) == (("p", 0.9),)
    assert scoring.relevant("AP", s) == (("rel_threshold", 2),)


# -- the persistence as a setting: Python keyword, CLI option, settings file, dashboard slider ----------
def _plain(c, k, p):
    return ref.reference_matrix(c, "RBP", cutoff=k, p=p)


def test_persistence_keyword_equals_the_plain_formula():
    c = evalcore.simulated_collection(12, 5, seed=4)
    got = registry.score_matrix(c, "RBP@10", p=0.9)
    assert np.asarray(got) == pytest.approx(np.asarray(_plain(c, 10, 0.9)), abs=ATOL)
    # a p written in the name wins over the keyword
    assert np.asarray(registry.score_matrix(c, "RBP(p=0.5)@10", p=0.9)) == pytest.approx(
        np.asarray(_plain(c, 10, 0.5)), abs=ATOL)
    df = evalcore.evaluate(c, ["RBP@10"], p=0.9)
    assert df["value"].to_numpy() == pytest.approx(np.asarray(_plain(c, 10, 0.9)).mean(axis=1), abs=1e-9)


def test_cli_persistence_option_settings_file_and_save_settings(tmp_path, capsys):
    c = evalcore.paper_examples()
    want = np.asarray(_plain(c, 10, 0.9)).mean(axis=1)

    def means(argv):
        assert main(["evaluate", "--paper-examples", "--metrics", "evalcore:RBP@10", *argv]) == 0
        rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()[1:]]
        return np.array([float(r[3]) for r in rows])

    saved = tmp_path / "s.json"
    assert means(["--persistence", "0.9", "--save-settings", str(saved)]) == pytest.approx(want, abs=1e-9)
    assert json.loads(saved.read_text())["settings"]["p"] == 0.9
    assert means(["--settings", str(saved)]) == pytest.approx(want, abs=1e-9)          # read back
    other = np.asarray(_plain(c, 10, 0.5)).mean(axis=1)
    assert means(["--settings", str(saved), "--persistence", "0.5"]) == pytest.approx(other, abs=1e-9)
    for bad in ("1", "0", "1.5"):   # p is in (0, 1), as the metric table says
        assert main(["evaluate", "--paper-examples", "--metrics", "RBP@10", "--persistence", bad]) == 2
        assert "--persistence must be > 0 and < 1" in capsys.readouterr().err
    with pytest.raises(Exception, match="p must be between 0 and 1"):
        parse_settings(json.dumps({"p": 1.0}))


def test_app_takes_the_persistence_from_a_settings_file():
    from evalcore.app_settings import fit_to_app

    a = fit_to_app(parse_settings(json.dumps({"metrics": ["RBP@10"], "p": 0.9})), 3)
    assert a.values["rbp_p"] == 0.9 and a.values["metrics"] == ["RBP"] and a.notes == []
    a = fit_to_app(parse_settings(json.dumps({"metrics": ["RBP@10"], "p": 0.999})), 3)
    assert a.values["rbp_p"] == 0.99 and "0.999" in a.notes[0]


def test_dashboard_slider_sets_the_persistence():
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    from dashboard import scoring, state

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120)
    at.query_params.update({"nt": "10", "nr": "4", "seed": "3", "p": "0.9"})
    at.session_state["metrics"] = ["RBP", "AP"]
    at.run()
    assert not at.exception
    slider = next(s for s in at.sidebar.slider if s.label == "RBP persistence p")
    assert slider.value == pytest.approx(0.9)
    c = evalcore.simulated_collection(10, 4, seed=3)
    s = state.Settings(dataset="sim", gains=(1.0, 2.0, 3.0), beta=1.0, penalties=(4.0, 3.0, 2.0),
                       cutoff=10, rel_threshold=1, metrics=("RBP",), top_n=0, top_by="AP",
                       measure_settings=(("p", 0.9),))
    assert np.asarray(scoring.score(c, "RBP@10", s)) == pytest.approx(np.asarray(_plain(c, 10, 0.9)), abs=ATOL)
    assert scoring.label("RBP@10", c, s) == "RBP(p=0.9)@10"
