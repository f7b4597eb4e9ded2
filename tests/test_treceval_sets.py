"""trec_eval's infAP, Rprec_mult, utility, 11pt_avg, relative_P, success, set_*, num_nonrel_judged_ret, map_cut
and yaap (evalcore/treceval/_sets.py): per topic against pytrec_eval on clef2015 at ``-l 1`` and ``-l 2``, and on
small collections whose values are worked out by hand below.

pytrec_eval (pytrec-eval-terrier) wraps trec_eval 9.0.x: its ``11pt_avg`` turns a recall point ``p`` into a count
of relevant documents as ``(long)(p * R + 0.9)`` where 10.0 uses ``lround(p * R)``, so it is compared on the
points where both rules give the same count for every ``R`` (0, 0.5, 1) and, with the default points, on the
topics whose ``R`` gives the same counts. It has no ``yaap``: that is checked through its ``map``
(``yaap = log((1 + AP*R) / (1 + R - AP*R))``). The runs compared are ranked alike by both; six KISTI runs have
near-tied scores that pytrec_eval ranks otherwise (its scores are single precision, tests/test_trec_eval.py), and
on those the trec_eval 10.0 binary prints what evalcore prints, byte for byte.
"""
from __future__ import annotations

import gzip
import math

import pytest
from conftest import need_clef2015

from evalcore.treceval import MEASURES, Options, evaluate, read_qrels, read_results, select
from evalcore.treceval._rels import EvaluationError

TOL = dict(rel=1e-12, abs=1e-12)
RUNS = ("CUNI_EN_Run.2.dat.gz", "ECNU_EN_Run.3.dat.gz")
LEVELS = (1, 2)
MINE = ["infAP", "Rprec_mult", "utility", "11pt_avg", "relative_P", "success", "set_P", "set_relative_P",
        "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "map_cut", "yaap"]
#: -m arguments with parameters, evaluated together (one parameter set per measure); pytrec_eval takes the same
WITH_PARAMS = ["11pt_avg.0,0.5,1", "set_F.0.5", "success.2,3,50", "map_cut.1,7,2000", "relative_P.1,3,70",
               "Rprec_mult.0.1,0.5,3"]
#: pytrec_eval names a measure given a parameter list for a single value without it
PYTREC_NAMES = {"11pt_avg": "11pt_avg_0,0.5,1", "set_F": "set_F_0.5"}
_CACHE: dict = {}


def ours_values(qrels_path, run_path, measures: list[str], **options) -> dict[str, dict[str, float]]:
    """``{value name: {qid: value}}`` for ``-m`` arguments, as ``evalcore trec_eval`` computes them."""
    return _values(read_qrels(str(qrels_path)), read_results(str(run_path)), measures, **options)


def _values(q, r, measures: list[str], **options) -> dict[str, dict[str, float]]:
    ev = evaluate(q, r, select(measures), Options(**options))
    out: dict[str, dict[str, float]] = {}
    for v, names in zip(ev.values, ev.names, strict=True):
        for j, name in enumerate(names):
            out[name] = {qid: float(v[t, j]) for t, qid in enumerate(ev.qids)}
    return out


def _clef(run: str, level: int):
    """(ours, pytrec_eval's) values, each ``{"default": ..., "params": ...}``, on one clef2015 run, once."""
    key = (run, level)
    if key not in _CACHE:
        pytrec_eval = pytest.importorskip("pytrec_eval")
        data = need_clef2015()
        if "qrels" not in _CACHE:
            with open(data / "qrels.txt") as f:
                _CACHE["qrels"] = pytrec_eval.parse_qrel(f), read_qrels(str(data / "qrels.txt"))
        if run not in _CACHE:
            with gzip.open(data / "runs" / run, "rt") as f:
                _CACHE[run] = pytrec_eval.parse_run(f), read_results(str(data / "runs" / run))
        (pq, q), (pr, r) = _CACHE["qrels"], _CACHE[run]
        default = (set(MINE) - {"yaap"}) | {"map", "num_rel"}
        theirs = {g: pytrec_eval.RelevanceEvaluator(pq, ms, relevance_level=level).evaluate(pr)
                  for g, ms in (("default", default), ("params", set(WITH_PARAMS)))}
        theirs["params"] = {qid: {PYTREC_NAMES.get(n, n): x for n, x in vals.items()}
                            for qid, vals in theirs["params"].items()}
        ours = {g: _values(q, r, ms, relevance_level=level, average_complete=True)
                for g, ms in (("default", MINE), ("params", WITH_PARAMS))}
        _CACHE[key] = ours, theirs
    return _CACHE[key]


def _compare(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]], measure: str,
             qids=None) -> int:
    """Every value of ``measure`` pytrec_eval gives (on ``qids``, default all its topics) equals ours; returns
    how many were compared."""
    n = 0
    for qid, vals in theirs.items():
        if qids is not None and qid not in qids:
            continue
        for name, want in vals.items():
            if name == measure or name.startswith(measure + "_"):
                assert ours[name][qid] == pytest.approx(want, **TOL), (name, qid)
                n += 1
    return n


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("group,measure", [("default", m) for m in MINE if m not in ("yaap", "11pt_avg")]
                         + [("params", a.split(".")[0]) for a in WITH_PARAMS])
def test_clef2015_equals_pytrec_eval(group, measure, run, level):
    ours, theirs = _clef(run, level)
    assert len(theirs[group]) >= 60                        # the run's topics of the 66 qrels topics
    assert _compare(ours[group], theirs[group], measure) >= 60


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("run", RUNS)
def test_clef2015_11pt_avg_default_points_where_9x_and_10_count_alike(run, level):
    """Default points on the topics whose num_rel gives lround(p*R) == (long)(p*R + 0.9) for every point
    (R = 0, 5, 15, 20, 30, 35, 90 on clef2015)."""
    ours, theirs = _clef(run, level)
    points = [i / 10 for i in range(11)]
    alike = {q for q, v in theirs["default"].items()
             if all(math.floor(p * v["num_rel"] + 0.5) == math.floor(p * v["num_rel"] + 0.9) for p in points)}
    assert len(alike) >= 5
    assert _compare(ours["default"], theirs["default"], "11pt_avg", alike) == len(alike)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("run", RUNS)
def test_clef2015_yaap_from_pytrec_eval_map(run, level):
    """yaap's sum is AP x num_rel: log((1 + AP*R) / (1 + R - AP*R)); 0 for a topic with no relevant document."""
    ours, theirs = _clef(run, level)
    for qid, v in theirs["default"].items():
        s = v["map"] * v["num_rel"]
        want = math.log((1 + s) / (1 + v["num_rel"] - s))
        assert ours["default"]["yaap"][qid] == pytest.approx(want, **TOL), qid


# --- hand-worked cases ------------------------------------------------------------------------------------------
#
# Topic A: judged d1=1, d2=0, d3=2, d4=-1 (in the pool, unjudged), d5=1 (not retrieved).
#   The run scores x9 5, d1 4, d2 3, d4 3, d3 1; the tie d2/d4 goes to the larger docno first (d4), so the
#   ranking is x9 (not in the pool), d1 (rel 1), d4 (unjudged), d2 (0), d3 (2): num_ret 5.
#   -l 1: relevant d1, d3, d5: R = 3, relevant retrieved at ranks 2 and 5.
# Topic B: judged e1=0, e2=0; ranking e1, e2, zz (not in the pool): no relevant document.
# Topic C: judged c1=-1, c2=1; ranking c1 (unjudged), n1 (not in the pool): R = 1, none retrieved; with -J both
#   go and nothing is retrieved.
# Topic D: judged g1=1, g2=1; not in the run: under -c it is ranked on trec_eval's one stand-in document (not in
#   the pool).
QRELS = "A 0 d1 1\nA 0 d2 0\nA 0 d3 2\nA 0 d4 -1\nA 0 d5 1\nB 0 e1 0\nB 0 e2 0\nC 0 c1 -1\nC 0 c2 1\n" \
        "D 0 g1 1\nD 0 g2 1\n"
RUN = "A Q0 x9 1 5 r\nA Q0 d1 2 4 r\nA Q0 d2 3 3 r\nA Q0 d4 4 3 r\nA Q0 d3 5 1 r\n" \
      "B Q0 e1 1 2 r\nB Q0 e2 2 1 r\nB Q0 zz 3 0 r\nC Q0 c1 1 1 r\nC Q0 n1 2 0.5 r\n"


@pytest.fixture
def hand(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)

    def values(measure: str, **options):
        options.setdefault("average_complete", True)
        return ours_values(tmp_path / "qrels", tmp_path / "run", [measure], **options)
    return values


def test_infap_by_hand(hand):
    v = hand("infAP")["infAP"]
    # A, -l 1: d1 at 0-based rank j=1 (r=1, n=0, u=0): 1/2 + (1/2)*(0/1)*(eps/2eps) = 0.5;
    # d3 at j=4 (r=2, n=1: d2, u=1: d4): 1/5 + (4/5)*((1+1+1)/4)*((1+eps)/(2+2eps)) = 0.2 + 0.6*0.5 = 0.5;
    # (0.5 + 0.5) / R=3. x9 (not in the pool) only counts through j.
    assert v["A"] == pytest.approx(1 / 3, **TOL)
    assert v["B"] == 0.0 and v["C"] == 0.0 and v["D"] == 0.0        # no relevant document retrieved
    # A, -l 2: R = 1 (d3); d1 and d2 are nonrelevant now: d3 at j=4, r=1, n=2, u=1:
    # 1/5 + (4/5)*((0+2+1)/4)*((0+eps)/(0+2+2eps)) = 0.2 + 0.3*eps/(1+eps)
    eps = 0.00001
    assert hand("infAP", relevance_level=2)["infAP"]["A"] == pytest.approx(0.2 + 0.3 * eps / (1 + eps), **TOL)


def test_rprec_mult_by_hand(hand):
    v = hand("Rprec_mult")
    # A: R = 3, cutoff (long)(p*3 + 0.9): 0.2->1, 0.4->2, 0.6->2, 0.8->3, 1.0->3, 1.2->4, 1.4->5, 1.6->5,
    # 1.8->6, 2.0->6; relevant in the first min(c, 5) ranks over c: 0/1, 1/2, 1/2, 1/3, 1/3, 1/4, 2/5, 2/5,
    # 2/6 (past num_ret: num_rel_ret / c), 2/6
    want = [0, 1 / 2, 1 / 2, 1 / 3, 1 / 3, 1 / 4, 2 / 5, 2 / 5, 2 / 6, 2 / 6]
    names = [f"Rprec_mult_{p:3.2f}" for p in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)]
    assert [v[n]["A"] for n in names] == pytest.approx(want, **TOL)
    # B: R = 0: every cutoff (long)0.9 = 0, value 0
    assert all(v[n]["B"] == 0.0 for n in names)
    # -m Rprec_mult.0,-1: cutoffs 0 and (long)(-3+0.9) = -2: 0
    w = hand("Rprec_mult.0,-1")
    assert w["Rprec_mult_0.00"]["A"] == 0.0 and w["Rprec_mult_-1.00"]["A"] == 0.0


def test_utility_by_hand_and_the_stand_in_topic(hand):
    # default 1,-1,0,0: a - b; A: a=2 (d1, d3), b=3 -> -1; B: 0 - 3 = -3; C: 0 - 2 = -2;
    # D (-c stand-in): trec_eval.c's clean-up sets the value named "utility" to 0
    assert hand("utility")["utility"] == {"A": -1.0, "B": -3.0, "C": -2.0, "D": 0.0}
    # typed parameters name it utility_1,-1,0,0: not cleaned, D keeps 0 - 1 (its one stand-in document)
    assert hand("utility.1,-1,0,0")["utility_1,-1,0,0"]["D"] == -1.0
    # -N 20, 1,-1,-1,0.5: A: a=2, b=3, c=R-a=1, d=20+2-5-3=14: 2 - 3 - 1 + 7 = 5
    v = hand("utility.1,-1,-1,0.5", num_docs_in_coll=20)["utility_1,-1,-1,0.5"]
    assert v["A"] == 5.0
    # B: a=0, b=3, c=0, d=20-3-0=17: -3 + 8.5 = 5.5
    assert v["B"] == 5.5


def test_utility_needs_four_coefficients(hand):
    with pytest.raises(EvaluationError, match="improper number of coefficients"):
        hand("utility.1,2")


def test_11pt_avg_by_hand(hand):
    v = hand("11pt_avg")["11pt_avg"]
    # A: precision at ranks 1..5: 0, 1/2, 1/3, 1/4, 2/5; interpolated (best at or below): .5 at d1 (rank 2),
    # .4 at d3 (rank 5). Counts lround(p*3) for p = 0,.1,...,1: 0,0,1,1,1,2,2,2,2,3,3. Count 3 > 2 retrieved: 0;
    # count 2: .4 (x4); count 1: .5 (x3); count 0: the value at the first relevant document, .5 (x2).
    assert v["A"] == pytest.approx((4 * 0.4 + 3 * 0.5 + 2 * 0.5) / 11, **TOL)
    # B (R=0, three retrieved): every count is 0 -> num_rel_ret/num_ret = 0/3; C: 0/2; D (stand-in): 0/1
    assert v["B"] == 0.0 and v["C"] == 0.0 and v["D"] == 0.0


def test_11pt_avg_points_out_of_order(hand):
    # 0.5,0.2,1 on A: counts 2, 1, 3, matched from the last: 3 > 2 retrieved (0), then 1 (.5 at d1); 2 comes
    # after 1 and is never matched: it gets the last interpolated precision, .5 (sorted it would be .4)
    assert hand("11pt_avg.0.5,0.2,1")["11pt_avg_0.5,0.2,1"]["A"] == pytest.approx((0 + 0.5 + 0.5) / 3, **TOL)


def test_11pt_avg_with_nothing_retrieved_is_nan(hand):
    # -J: C keeps no document (c1 unjudged, n1 not in the pool); R = 1 so the counts are 0 (p < .5) and 1;
    # the 0s take num_rel_ret/num_ret = 0/0: NaN, printed -nan as trec_eval prints it (sign bit set)
    v = hand("11pt_avg", judged_docs_only=True)["11pt_avg"]
    assert math.isnan(v["C"]) and math.copysign(1.0, v["C"]) < 0
    # A under -J: d1 (1), d2 (0), d3 (2): precisions 1, 1/2, 2/3, interpolated 1 at d1, 2/3 at d3;
    # counts 0 (x2) -> 1, 1 (x3) -> 1, 2 (x4) -> 2/3, 3 (x2) -> 0
    assert v["A"] == pytest.approx((2 + 3 + 4 * 2 / 3) / 11, **TOL)
    # -M 0: no topic retrieves anything
    assert all(math.isnan(x) for x in hand("11pt_avg", max_num_docs_per_topic=0)["11pt_avg"].values())


def test_relative_p_success_map_cut_by_hand(hand):
    rp = hand("relative_P.1,2,4,5")
    # A: relevant in the first k ranks over min(k, R=3): 0/1, 1/2, 1/3, 2/3; B (R=0): 0
    assert [rp[f"relative_P_{k}"]["A"] for k in (1, 2, 4, 5)] == pytest.approx([0, 1 / 2, 1 / 3, 2 / 3], **TOL)
    assert all(rp[f"relative_P_{k}"]["B"] == 0.0 for k in (1, 2, 4, 5))
    s = hand("success.1,2,5")
    assert [s[f"success_{k}"]["A"] for k in (1, 2, 5)] == [0.0, 1.0, 1.0]
    assert [s[f"success_{k}"]["C"] for k in (1, 2, 5)] == [0.0, 0.0, 0.0]
    mc = hand("map_cut.1,2,4,5,10")
    # A: precision 1/2 at d1 (rank 2), 2/5 at d3 (rank 5), over R=3: k=1: 0; 2, 4: .5/3; 5, 10: .9/3
    assert [mc[f"map_cut_{k}"]["A"] for k in (1, 2, 4, 5, 10)] == pytest.approx(
        [0, 0.5 / 3, 0.5 / 3, 0.9 / 3, 0.9 / 3], **TOL)
    assert all(mc[f"map_cut_{k}"]["B"] == 0.0 for k in (1, 2, 4, 5, 10))


def test_set_measures_by_hand(hand):
    v = {m: hand(m)[m] for m in ("set_P", "set_relative_P", "set_recall", "set_map", "set_F")}
    # A: num_ret 5, num_rel_ret 2, R 3
    assert v["set_P"]["A"] == pytest.approx(2 / 5, **TOL)
    assert v["set_relative_P"]["A"] == pytest.approx(2 / 3, **TOL)       # 2 / min(5, 3)
    assert v["set_recall"]["A"] == pytest.approx(2 / 3, **TOL)
    assert v["set_map"]["A"] == pytest.approx(4 / 15, **TOL)             # 2*2 / (5*3)
    assert v["set_F"]["A"] == pytest.approx(0.5, **TOL)                  # 2PR/(P+R) = 2a/(num_ret+R) = 4/8
    # F with x = 0.5: 1.5*P*R / (0.5P + R) = 1.5 * .4 * 2/3 / (.2 + 2/3) = 0.4 / (13/15) = 6/13
    assert hand("set_F.0.5")["set_F_0.5"]["A"] == pytest.approx(6 / 13, **TOL)
    for m in v:                                  # B (R=0), C (none relevant retrieved), D (stand-in): 0
        assert v[m]["B"] == 0.0 and v[m]["C"] == 0.0 and v[m]["D"] == 0.0, m


def test_set_f_dividing_by_zero(tmp_path):
    # a: judged d1, d2 relevant, ranking d1, x: P = R = 1/2; x = -1: (0 * P * R) / (-P + R) = 0/0
    (tmp_path / "q").write_text("a 0 d1 1\na 0 d2 1\n")
    (tmp_path / "r").write_text("a Q0 d1 1 2 r\na Q0 x 2 1 r\n")
    assert math.isnan(ours_values(tmp_path / "q", tmp_path / "r", ["set_F.-1"])["set_F_-1"]["a"])


def test_num_nonrel_judged_ret_by_hand(hand):
    v = hand("num_nonrel_judged_ret")["num_nonrel_judged_ret"]
    # A: 5 - 1 (x9) - 1 (d4) - 2 = 1 (d2); B: 3 - 1 (zz) = 2 (e1, e2); C: 2 - 1 - 1 = 0; D: 1 - 1 = 0
    assert v == {"A": 1.0, "B": 2.0, "C": 0.0, "D": 0.0}


def test_yaap_by_hand(hand):
    v = hand("yaap")["yaap"]
    # A: S = 1/2 + 2/5 = 0.9: log((1 + .9) / (1 + 3 - .9)); B: R = 0: log(1/1); C: R = 1: log(1/2);
    # D: R = 2: log(1/3)
    assert v["A"] == pytest.approx(math.log(1.9 / 3.1), **TOL)
    assert v["B"] == 0.0
    assert v["C"] == pytest.approx(math.log(0.5), **TOL) and v["D"] == pytest.approx(math.log(1 / 3), **TOL)


def test_registry_entries_follow_the_c_tables():
    m = MEASURES
    assert list(m["success"].default) == [1, 5, 10] and m["success"].params == "cut_long"
    assert list(m["Rprec_mult"].default) == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0])
    assert m["Rprec_mult"].params == "cut_double"
    assert m["utility"].default == (1.0, -1.0, 0.0, 0.0) and m["utility"].bogus_zero
    assert m["11pt_avg"].params == "double" and len(m["11pt_avg"].default) == 11
    assert m["set_F"].default == (1.0,) and m["set_F"].params == "double"
    assert m["num_nonrel_judged_ret"].kind == "long" and m["num_nonrel_judged_ret"].summary == "sum"
    for name in ("infAP", "set_P", "set_relative_P", "set_recall", "set_map", "yaap"):
        assert m[name].params is None and m[name].summary == "mean" and m[name].per_topic
    assert not any(m[n].bogus_zero for n in MINE if n != "utility")
