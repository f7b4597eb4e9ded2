"""evalcore trec_eval's gain-based measures (evalcore/treceval/_gains.py): binG, G, dcg, ideal_dcg, ndcg, ndcg_rel,
Rndcg, ndcg_cut, rbp, rbp_resid.

* On the real CLEF eHealth 2015 collection (levels 0..2), per topic against pytrec_eval at relevance levels 1 and
  2 (tolerance 1e-12) for the measures pytrec_eval has; rbp and rbp_resid (which it lacks) against a plain
  per-topic loop written here from m_rbp.c and m_rbp_resid.c. The KISTI runs are left out: pytrec_eval keeps
  scores as C floats, trec_eval 10.0 as doubles, and near-ties order differently there.
* Small hand-made cases whose values are worked out by hand in the comments: graded labels with gaps,
  unjudged and unpooled documents, negative judgments, gain parameters, ties, -J, -M 0, -c, a topic with no
  relevant document, and trec_eval's quirks (gain sorting by ``(int)(g1 - g2)``, Rndcg's 0/0).
"""
from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest

from evalcore.treceval import Options, evaluate, read_qrels, read_results, render, select
from evalcore.treceval._gains import setup_gains

TOL = 1e-12
RUNS = ("CUNI_EN_Run.2", "ECNU_EN_Run.10", "baseline_run.1")
PYTREC = ("binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut")


def _values(q, r, measures, **opts) -> dict[str, dict[str, float]]:
    """Per-topic values ``{value name: {qid: value}}`` of ``measures`` (``-m`` arguments)."""
    ev = evaluate(q, r, select(list(measures)), Options(**opts))
    out: dict[str, dict[str, float]] = {}
    for v, names in zip(ev.values, ev.names, strict=True):
        for j, nm in enumerate(names):
            out[nm] = {qid: float(v[t, j]) for t, qid in enumerate(ev.qids)}
    return out


# -- the real collection ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def clef(clef2015):
    qrels = read_qrels(str(clef2015 / "qrels.txt"))
    runs = {name: read_results(str(clef2015 / "runs" / f"{name}.dat.gz")) for name in RUNS}
    return clef2015, qrels, runs


@pytest.fixture(scope="module")
def rankings(clef):
    return {name: _ranking(clef[0] / "runs" / f"{name}.dat.gz") for name in RUNS}


@pytest.mark.parametrize("level", [1, 2])
def test_against_pytrec_eval(clef, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    path, qrels, runs = clef
    with open(path / "qrels.txt") as fh:
        pq = pytrec_eval.parse_qrel(fh)
    evaluator = pytrec_eval.RelevanceEvaluator(pq, set(PYTREC), relevance_level=level)
    for name, run in runs.items():
        with gzip.open(path / "runs" / f"{name}.dat.gz", "rt") as fh:
            want = evaluator.evaluate(pytrec_eval.parse_run(fh))
        got = _values(qrels, run, PYTREC + ("dcg", "ideal_dcg"), relevance_level=level)
        assert set(want) == set(got["ndcg"]) and len(want) == 66
        names = [nm for nm in got if nm not in ("dcg", "ideal_dcg")]
        assert len(names) == 5 + 9                        # ndcg_cut_5 ... ndcg_cut_1000
        for nm in names:
            for qid, w in want.items():
                assert got[nm][qid] == pytest.approx(w[nm], abs=TOL), (name, level, nm, qid)
        # dcg and ideal_dcg (not in pytrec_eval) are ndcg's numerator and denominator (one topic has no
        # relevant document: both 0 there, and ndcg 0)
        zero = [qid for qid in want if got["ideal_dcg"][qid] == 0.0]
        assert len(zero) == 1 and got["dcg"][zero[0]] == 0.0 == want[zero[0]]["ndcg"]
        for qid, w in want.items():
            if qid not in zero:
                assert got["dcg"][qid] / got["ideal_dcg"][qid] == pytest.approx(w["ndcg"], abs=TOL)


def _ranking(run_path: Path) -> dict[str, list[str]]:
    """trec_eval's ranking per topic: score down, ties by docno down."""
    lines: dict[str, list[tuple[float, str]]] = {}
    with gzip.open(run_path, "rt") as fh:
        for line in fh:
            f = line.split()
            if f:
                lines.setdefault(f[0], []).append((float(f[4]), f[2]))
    return {q: [d for _, d in sorted(x, reverse=True)] for q, x in lines.items()}


def _rbp_reference(judged: dict[str, int], ranked: list[str], pairs: dict[int, float], p: float):
    """m_rbp.c and m_rbp_resid.c as plain loops, for labels >= 0 and pairs naming distinct values."""
    top = max(judged.values())
    gains = {lvl: float(lvl) for lvl in range(top + 1)}
    gains.update(pairs)
    lo = hi = 0.0          # trec_eval's uninitialised min and max hold ~0 in its usual runs (see m_rbp.c port)
    for g in gains.values():
        lo, hi = min(lo, g), max(hi, g)
    if lo < 0 or hi > 1:
        gains = {k: (g - lo) / (hi - lo) for k, g in gains.items()}
    total, resid, cur_p, unj = 0.0, 0.0, 1.0, 0
    for d in ranked:
        rel = judged.get(d, -1)
        gain = gains.get(rel, 0.0)
        if gain != 0:
            total += gain * cur_p
        if rel < 0:
            unj += 1
            resid += cur_p
        cur_p = cur_p * p
    return (1.0 - p) * total, (cur_p + (1 - p) * resid if unj else 0.0)


@pytest.mark.parametrize("params,pairs,p", [("", {}, 0.9), (".p=0.8", {}, 0.8),
                                            (".p=0.95,1=1,2=3", {1: 1.0, 2: 3.0}, 0.95)])
def test_rbp_against_a_plain_loop(clef, rankings, params, pairs, p):
    _, qrels, runs = clef
    for name, run in runs.items():
        ranking = rankings[name]
        got = _values(qrels, run, [f"rbp{params}", f"rbp_resid{params}"], relevance_level=2)
        suffix = f"_{params[1:]}" if params else ""
        for qid, judged in qrels.topics.items():
            want_rbp, want_resid = _rbp_reference(judged, ranking[qid], pairs, p)
            assert got[f"rbp{suffix}"][qid] == pytest.approx(want_rbp, abs=TOL)
            assert got[f"rbp_resid{suffix}"][qid] == pytest.approx(want_resid, abs=TOL)


# -- hand-made cases ---------------------------------------------------------------------------------------------------

# Topic a: d1 = 2, d2 = 0, d3 = 4, d4 = -1 (in the pool, unjudged); levels 1 and 3 have no document (gaps).
# The run ranks d2, dx (not in the pool), d3, d4, d1: relevance list [0, -1, 4, -2, 2]; rel_levels
# [1, 0, 1, 0, 1] (num_rel_levels 5); default gains = the values 0..4, so the ideal walk is 4, 2, then 0.
QRELS_A = b"a 0 d1 2\na 0 d2 0\na 0 d3 4\na 0 d4 -1\n"
RUN_A = b"a Q0 d2 1 5 r\na Q0 dx 2 4 r\na Q0 d3 3 3 r\na Q0 d4 4 2 r\na Q0 d1 5 1 r\n"
L2, L3, L5, L6 = math.log2(2), math.log2(3), math.log2(5), math.log2(6)
DCG_A = 4 / math.log2(4) + 2 / L6          # ranks 3 and 5 (i = 2, 4): 4/log2(4) + 2/log2(6)
IDEAL_A = 4 / L2 + 2 / L3                  # ideal ranks 1, 2: 4/log2(2) + 2/log2(3)


def _a(measures, **opts):
    return _values(read_qrels("q", QRELS_A), read_results("r", RUN_A), measures, **opts)


def test_graded_labels_with_gaps_unjudged_and_unpooled():
    got = _a(["binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut.1,3,5", "rbp",
              "rbp_resid"])
    v = {k: x["a"] for k, x in got.items()}
    # binG (-l1, relevant = 4 and 2): i=2, 1st relevant: 1/log2(3+2-1) = 1/2; i=4, 2nd: 1/log2(3+4-2); / num_rel 2
    assert v["binG"] == pytest.approx((0.5 + 1 / L5) / 2, abs=TOL)
    # G: sum_cost 4, 6 (ideal 4, 2), then 7 (ideal 0 costs 1), 8, 9; sum_results 0, 0, 4, 4, 6;
    # terms 4/log2(2+7-4) and 2/log2(2+9-6): 6/log2(5); sum_ideal 4 + 2 = 6
    assert v["G"] == pytest.approx(1 / L5, abs=TOL)
    assert v["dcg"] == pytest.approx(DCG_A, abs=TOL)
    assert v["ideal_dcg"] == pytest.approx(IDEAL_A, abs=TOL)
    assert v["ndcg"] == pytest.approx(DCG_A / IDEAL_A, abs=TOL)
    # ndcg_rel: at i=2 dcg 2 over the ideal so far (4 + 2/log2 3, step 2 adds 0); at i=4 the full ratio;
    # both ideal positions matched (num_rel 2 = num_rel_ret 2): no extra term; / 2
    assert v["ndcg_rel"] == pytest.approx((2 / IDEAL_A + DCG_A / IDEAL_A) / 2, abs=TOL)
    # Rndcg: the ideal gain changes at step 1 (4 -> 2: dcg 0 / 4) and step 2 (2 -> 0: dcg 0 / IDEAL_A), then
    # the ranking outlasts the walk: the final ratio; 3 terms
    assert v["Rndcg"] == pytest.approx(DCG_A / IDEAL_A / 3, abs=TOL)
    # ndcg_cut (gain = label): @1 0; @3 dcg 4/log2(4) = 2 over IDEAL_A (2 ideal documents); @5 the full ratio
    assert v["ndcg_cut_1"] == 0.0
    assert v["ndcg_cut_3"] == pytest.approx(2 / IDEAL_A, abs=TOL)
    assert v["ndcg_cut_5"] == pytest.approx(DCG_A / IDEAL_A, abs=TOL)
    # rbp: gains 0..4 exceed 1, rescaled by (g - 0) / (4 - 0): label 4 -> 1 at i=2, label 2 -> 0.5 at i=4
    assert v["rbp"] == pytest.approx(0.1 * (0.9 ** 2 + 0.5 * 0.9 ** 4), abs=TOL)         # 0.113805
    # rbp_resid: unjudged at i=1 (dx) and i=3 (d4): 0.9**5 + 0.1 * (0.9 + 0.9**3)
    assert v["rbp_resid"] == pytest.approx(0.59049 + 0.1 * 1.629, abs=TOL)              # 0.75339


def test_relevance_level_changes_binary_measures_only():
    v = {k: x["a"] for k, x in _a(["binG", "ndcg", "Rndcg", "ndcg_cut.5"], relevance_level=3).items()}
    # -l3: only d3 (4) is relevant; binG: 1/log2(3+2-1) / num_rel 1
    assert v["binG"] == pytest.approx(0.5, abs=TOL)
    # the gains ignore -l: ndcg and ndcg_cut as at -l1; Rndcg only needs num_rel > 0
    assert v["ndcg"] == pytest.approx(DCG_A / IDEAL_A, abs=TOL)
    assert v["ndcg_cut_5"] == pytest.approx(DCG_A / IDEAL_A, abs=TOL)
    assert v["Rndcg"] == pytest.approx(DCG_A / IDEAL_A / 3, abs=TOL)


def test_judged_only_and_max_zero():
    # -J drops dx and d4: [0, 4, 2]; dcg 4/log2(3) + 2/log2(4); rbp_resid 0 (nothing unjudged left)
    v = {k: x["a"] for k, x in _a(["dcg", "ndcg", "rbp_resid"], judged_docs_only=True).items()}
    assert v["dcg"] == pytest.approx(4 / L3 + 1, abs=TOL)
    assert v["ndcg"] == pytest.approx((4 / L3 + 1) / IDEAL_A, abs=TOL)
    assert v["rbp_resid"] == 0.0
    # -M 0: nothing retrieved; the ideal walk still runs (its third loop): ideal_dcg stays IDEAL_A
    v = {k: x["a"] for k, x in _a(["dcg", "ideal_dcg", "ndcg", "G", "rbp", "rbp_resid"],
                                  max_num_docs_per_topic=0).items()}
    assert v == {"dcg": 0.0, "ideal_dcg": pytest.approx(IDEAL_A, abs=TOL), "ndcg": 0.0, "G": 0.0, "rbp": 0.0,
                 "rbp_resid": 0.0}


def test_gain_parameters_sorted_as_trec_eval_sorts_them():
    # -m ndcg.1=3,2=9,4=4.5: entries (value:gain, docs) 1:3 (0), 2:9 (1), 4:4.5 (1), then the unnamed values
    # 0:0 (1) and 3:3 (0). glibc's merge sort with (int)(g1 - g2): [1:3, 2:9] | [4:4.5 | 0:0, 3:3] ->
    # [0:0, 3:3, 4:4.5] -> merged [0:0, 1:3, 3:3, 4:4.5, 2:9] (1:3 before 3:3: equal, left first)
    levels, gains, counts = setup_gains((("1", 3.0), ("2", 9.0), ("4", 4.5)), np.array([1, 0, 1, 0, 1]))
    assert levels.tolist() == [0, 1, 3, 4, 2]
    assert gains.tolist() == [0.0, 3.0, 3.0, 4.5, 9.0]
    assert counts.tolist() == [1, 0, 0, 1, 1]
    # the ideal walk: 9, 4.5 (the gain-3 entries have no document), 0; dcg: 4.5/log2(4) + 9/log2(6)
    v = _a(["ndcg.1=3,2=9,4=4.5"])["ndcg_1=3,2=9,4=4.5"]["a"]
    assert v == pytest.approx((4.5 / 2 + 9 / L6) / (9 / L2 + 4.5 / L3), abs=TOL)


def test_gain_sort_quirks():
    # 1=0.5: (int)(0.5 - 0) == 0, so the merge keeps [1:0.5, 0:0]; the ideal walk starts at gain 0: ndcg 0
    levels, gains, _ = setup_gains((("1", 0.5),), np.array([3, 2]))
    assert levels.tolist() == [1, 0] and gains.tolist() == [0.5, 0.0]
    q = read_qrels("q", b"a 0 d1 1\na 0 d2 0\n")
    r = read_results("r", b"a Q0 d1 1 2 r\na Q0 d2 2 1 r\n")
    assert _values(q, r, ["ndcg.1=0.5"])["ndcg_1=0.5"]["a"] == 0.0
    # 1=3e9: (int)(3e9 - 0) overflows to INT_MIN (negative): [1:3e9, 0:0] again
    assert setup_gains((("1", 3e9),), np.array([3, 2]))[0].tolist() == [1, 0]
    # names that are not whole numbers are not gains ("p", "x"); "+1" and "01" are value 1 (the first one counts)
    levels, gains, counts = setup_gains((("p", 0.5), ("+1", 2.0), ("x", 7.0), ("01", 5.0)), np.array([3, 2]))
    assert list(zip(levels.tolist(), gains.tolist(), counts.tolist(), strict=True)) == [(0, 0.0, 3), (1, 2.0, 2),
                                                                                        (1, 5.0, 0)]


def test_rbp_parameters_and_rescaling():
    # p=0.5: gains /4 as before; 0.5 * (1 * 0.25 + 0.5 * 0.0625)
    assert _a(["rbp.p=0.5"])["rbp_p=0.5"]["a"] == pytest.approx(0.140625, abs=TOL)
    # 0=-1: gains [-1, 1, 2, 3, 4] rescaled by (g + 1) / 5: label 4 -> 1, label 2 -> 0.6, label 0 -> 0;
    # unpooled and unjudged documents have no entry: gain 0, not rescaled
    assert _a(["rbp.0=-1"])["rbp_0=-1"]["a"] == pytest.approx(0.1 * (0.81 + 0.6 * 0.6561), abs=TOL)
    # 0=0.5,1=2 (binary labels): min and max start at 0 (m_rbp.c leaves them uninitialised; trec_eval's stack
    # holds ~0 there), so min stays 0: gains 0.5 / 2 = 0.25 and 2 / 2 = 1, not (g - 0.5) / 1.5 = 0 and 1;
    # ranking d2 (0), d1 (1): 0.1 * (0.25 * 1 + 1 * 0.9) = 0.115 (trec_eval prints 0.1150)
    q = read_qrels("q", b"a 0 d1 1\na 0 d2 0\n")
    r = read_results("r", b"a Q0 d2 1 2 r\na Q0 d1 2 1 r\n")
    assert _values(q, r, ["rbp.0=0.5,1=2"])["rbp_0=0.5,1=2"]["a"] == pytest.approx(0.115, abs=TOL)


def test_ties_and_a_topic_without_relevant_documents():
    # topic b: equal scores rank by docno, decreasing: d2 (0) before d1 (1): dcg 1/log2(3), ideal 1
    # topic c: judged 0 only: every measure 0 (Rndcg returns early, ndcg_rel's 0/0 fails its "sum > 0")
    q = read_qrels("q", b"b 0 d1 1\nb 0 d2 0\nc 0 e1 0\nc 0 e2 0\n")
    r = read_results("r", b"b Q0 d1 1 1.5 r\nb Q0 d2 2 1.5 r\nc Q0 e1 1 3 r\nc Q0 e9 2 2 r\n")
    got = _values(q, r, ["binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut.1,2"])
    assert got["ndcg"]["b"] == pytest.approx(1 / L3, abs=TOL)
    assert got["ndcg_cut_1"]["b"] == 0.0 and got["ndcg_cut_2"]["b"] == pytest.approx(1 / L3, abs=TOL)
    assert got["binG"]["b"] == pytest.approx(1 / L3, abs=TOL)            # 1/log2(3+1-1) / 1
    assert all(v["c"] == 0.0 for v in got.values())


def test_rndcg_zero_over_zero_and_rbp_resid_under_c():
    # Rndcg.1=0: gains [1:0, 0:0], the walk never starts, no ratio is counted: 0.0 / 0 = -nan (x86's NaN)
    q = read_qrels("q", b"a 0 d1 1\na 0 d2 0\nz 0 d1 1\n")
    r = read_results("r", b"a Q0 d1 1 2 r\na Q0 d2 2 1 r\n")
    v = _values(q, r, ["Rndcg.1=0"], average_complete=True)["Rndcg_1=0"]["a"]    # (z: num_rel 1, -nan too)
    assert math.isnan(v) and math.copysign(1.0, v) < 0
    ev = evaluate(q, r, select(["Rndcg.1=0"]), Options(average_complete=True))
    assert "Rndcg_1=0             \ta\t  -nan\n" in render(ev, q, per_topic=True)
    # topic z is missing from the run: under -c its stand-in ranking is one unpooled document, whose
    # rbp_resid (p**1 + (1 - p) * p**0 = 1.0) trec_eval resets to 0 only under the name "rbp_resid"
    assert _values(q, r, ["rbp_resid"], average_complete=True)["rbp_resid"]["z"] == 0.0
    got = _values(q, r, ["rbp_resid.p=0.8"], average_complete=True)["rbp_resid_p=0.8"]
    assert got["z"] == pytest.approx(1.0, abs=TOL)                      # 0.8 + 0.2 * 1

