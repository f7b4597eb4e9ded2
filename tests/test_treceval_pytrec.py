"""Every ``all_trec`` measure pytrec_eval computes, per topic and in the mean, against pytrec_eval
(pytrec-eval-terrier: trec_eval's own C code) on the real collection (clef2015, graded 0-2) and on generated
edge cases (ties, unjudged and -1 documents, runs longer than ``-M``, topics missing from the run).

pytrec_eval wraps trec_eval 9.0.x, and trec_eval 10.0 changed two definitions on purpose: ``iprec_at_recall``
and ``11pt_avg`` turn a recall level into a count of relevant documents with ``lround`` where 9.x added 0.9 and
truncated (trec_eval commits 2a9e214 and 2d77a47: the old rule gave different cutoffs on macOS and Linux). Those
two follow 10.0 here (tests/test_treceval_cli.py diffs them against the 10.0 binary) and are left out below.
pytrec_eval has neither ``-c`` nor ``-M`` nor ``-J``: ``-M`` is compared on a run cut to the first M documents in
trec_eval's order, and ``-c``'s mean on the measures whose stand-in topic scores 0, with pytrec_eval's missing
topics counted as 0. The measures pytrec_eval lacks (``rbp``, ``rbp_resid``, ``unj``) are checked against the
trec_eval binary's outputs (tests/test_treceval_cli.py) and by hand (tests/test_treceval_gains.py).
"""
from __future__ import annotations

import gzip
import random

import numpy as np
import pytest
from conftest import need_clef2015

from evalcore.treceval import Options, evaluate, read_qrels, read_results, select

pytrec_eval = pytest.importorskip("pytrec_eval")

#: the all_trec measures pytrec_eval computes (its supported_measures; relstring is a string, runid a tag)
MEASURES = sorted(pytrec_eval.supported_measures - {"relstring", "runid", "iprec_at_recall", "11pt_avg"})
#: measures whose summary is not the mean of the per-topic values pytrec_eval returns
NOT_MEAN = {"gm_map", "gm_bpref", "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def ours(qrels_path, run_path, level, *, complete=False, max_ret=2 ** 62):
    q, r = read_qrels(qrels_path), read_results(run_path)
    ev = evaluate(q, r, select(["all_trec"]), Options(level, max_ret, False, complete))
    per_topic: dict[str, dict[str, float]] = {}
    summary = {}
    from evalcore.treceval._engine import summary_values
    for (m, _, _), v, names in zip(ev.selection.measures, ev.values, ev.names, strict=True):
        if m.kind in ("runid", "relstring"):
            continue
        s = summary_values(ev, q, m, v)
        for j, name in enumerate(names):
            per_topic[name] = dict(zip(ev.qids, v[:, j].tolist(), strict=True))
            summary[name] = float(s[j])
    return per_topic, summary


def theirs(qrels_path, run_path, level):
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    opener = gzip.open if str(run_path).endswith(".gz") else open
    with opener(run_path, "rt") as f:
        run = pytrec_eval.parse_run(f)
    return pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=level).evaluate(run)


def check(per_topic, got_summary, want, *, zero_missing_topics=None):
    names = {n for t in want.values() for n in t}
    assert names <= set(per_topic), sorted(names - set(per_topic))
    for name in names:
        if name in ("gm_map", "gm_bpref"):      # pytrec_eval's per-topic value is AP (bpref), not the log
            base = name[3:]
            for qid, t in want.items():
                assert np.exp(per_topic[name][qid]) == pytest.approx(max(t[base], 1e-5), rel=1e-12, abs=1e-15)
            continue
        for qid, t in want.items():
            assert per_topic[name][qid] == pytest.approx(t[name], rel=1e-12, abs=1e-15), (name, qid)
        if name in NOT_MEAN or name.startswith("num_"):
            continue
        vals = [t[name] for t in want.values()] + [0.0] * (zero_missing_topics or 0)
        assert got_summary[name] == pytest.approx(float(np.mean(vals)), rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("run", ["CUNI_EN_Run.2.dat.gz", "KISTI_EN_RUN.1.dat.gz", "ECNU_EN_Run.3.dat.gz"])
def test_clef2015_every_measure_equals_pytrec_eval(run, level):
    data = need_clef2015()
    path = data / "runs" / run
    per_topic, summary = ours(data / "qrels.txt", path, level)
    check(per_topic, summary, theirs(data / "qrels.txt", path, level))


def _edge_files(tmp_path, seed: int):
    """A graded qrels (labels -1..3) and a run with ties, unjudged documents and a topic it lacks."""
    rng = random.Random(seed)
    qrels, run = [], []
    for t in range(8):
        judged = rng.sample(range(60), 30)
        qrels += [(f"t{t}", f"d{d}", rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])) for d in judged]
        if t == 7:
            continue                                            # t7: judged, not retrieved
        for d in rng.sample(range(80), rng.randint(1, 70)):
            run.append((f"t{t}", f"d{d}", float(rng.randint(0, 12))))   # many ties
    if not any(r > 0 for q, _, r in qrels if q == "t0"):
        qrels.append(("t0", "d999", 1))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} {k} {s} tag\n" for k, (q, d, s) in enumerate(run)))
    return tmp_path / "qrels", tmp_path / "run", run


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_edge_cases_equal_pytrec_eval(tmp_path, seed, level):
    qrels, run_path, _ = _edge_files(tmp_path, seed)
    want = theirs(qrels, run_path, level)
    per_topic, summary = ours(qrels, run_path, level, complete=True)
    # -c: t7 (judged, not retrieved) is in our topics; pytrec_eval evaluates the run's topics only
    assert "t7" in per_topic["map"] and "t7" not in want
    check({k: {q: v for q, v in t.items() if q != "t7"} for k, t in per_topic.items()}, summary, want,
          zero_missing_topics=1)


@pytest.mark.parametrize("M", [1, 5, 20])
def test_max_retrieved_equals_pytrec_eval_on_the_cut_run(tmp_path, M):
    """-M N evaluates the first N documents in trec_eval's order (score down, docno down)."""
    qrels, run_path, run = _edge_files(tmp_path, 4)
    ranked: dict[str, list] = {}
    for q, d, s in run:
        ranked.setdefault(q, []).append((s, d))
    cut = [(q, d, s) for q, docs in ranked.items() for s, d in sorted(docs, reverse=True)[:M]]
    (tmp_path / "cut").write_text("".join(f"{q} Q0 {d} 0 {s} tag\n" for q, d, s in cut))
    (tmp_path / "qrels6").write_text("".join(line for line in qrels.read_text().splitlines(True)
                                             if not line.startswith("t7 ")))
    per_topic, summary = ours(tmp_path / "qrels6", run_path, 1, max_ret=M)
    check(per_topic, summary, theirs(tmp_path / "qrels6", tmp_path / "cut", 1))
