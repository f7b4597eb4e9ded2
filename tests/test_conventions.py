"""One input, one meaning, stated where the number is.

* A gains string means the papers' order, highest level first (S:A:B), on the command line, in Python, in a
  settings file and in the dashboard's address; the numbers agree across the four.
* Every output states the conventions that shaped its numbers: the topic policy (trec_eval -c named), the
  relevance threshold, the ranking order and the depth.
* The meta-evaluation commands score a name over the topics it implies (``map``: trec_eval's 66 clef2015
  topics, checked against pytrec_eval), as ``evaluate`` does.
* A name that evalcore and ir_measures compute alike per topic but average over different topics warns
  once, only where the two means differ; ``NumRel`` follows ir_measures on a topic missing from a run.
"""
from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import evalcore
from evalcore.cli import main
from evalcore.registry import TopicSetWarning

ROOT = Path(__file__).resolve().parents[1]
SIM = ["--simulated", "--topics", "12", "--systems", "6"]
GAINS = "10:5:1"        # S=10 : A=5 : B=1 as the papers write it; read lowest first it would be S=1 : B=10


def _means(text: str, metric: str) -> dict[str, float]:
    rows = [line.split("\t") for line in text.splitlines()[1:]]
    return {r[0]: float(r[3]) for r in rows if r[1] == "all" and r[2] == metric}


def test_one_gains_string_means_the_same_on_the_command_line_in_python_a_settings_file_and_the_address(
        tmp_path, capsys):
    c = evalcore.simulated_collection(n_topics=12, n_runs=6, seed=0)
    assert c.max_level == 3
    want = {"gains": [1.0, 5.0, 10.0]}                       # ascending L1..L3: B=1, A=5, S=10
    assert evalcore.resolve_gains(GAINS, 3).tolist() == want["gains"]
    py = evalcore.evaluate(c, ["Q-measure", "nDCG@10"], gains=GAINS)
    py_list = evalcore.evaluate(c, ["Q-measure", "nDCG@10"], gains=want["gains"])   # a list: ascending
    assert py["value"].tolist() == py_list["value"].tolist()
    # the command line
    assert main(["evaluate", *SIM, "--metrics", "Q-measure", "nDCG@10", "--gains", GAINS]) == 0
    cli = capsys.readouterr().out
    # a settings file holding the string, and one holding the list --save-settings writes
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"settings": {"gains": GAINS}}))
    assert main(["evaluate", *SIM, "--metrics", "Q-measure", "nDCG@10", "--settings", str(f)]) == 0
    from_file = capsys.readouterr().out
    saved = tmp_path / "saved.json"
    assert main(["evaluate", *SIM, "--metrics", "Q-measure", "--gains", GAINS, "--save-settings", str(saved)]) == 0
    capsys.readouterr()
    doc = json.loads(saved.read_text())["settings"]
    assert doc["gains"] == want["gains"] and doc["gains_paper_notation"] == GAINS
    for metric in ("Q-measure", "nDCG@10"):
        ours = py[py.metric == metric].set_index("run")["value"]
        for text in (cli, from_file):
            got = _means(text, metric)
            assert got.keys() == set(ours.index)
            for run, v in got.items():
                assert v == pytest.approx(ours[run], rel=1e-11, abs=1e-12)
    # the dashboard's address: the same string gives the same per-level gains, hence the same scores
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"nt": "12", "nr": "6", "seed": "0", "gains": GAINS})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    app_gains = [at.session_state[f"g{L}"] for L in (1, 2, 3)]
    assert app_gains == want["gains"]
    app = evalcore.evaluate(c, ["Q-measure"], gains=app_gains)
    assert app["value"].tolist() == py[py.metric == "Q-measure"]["value"].tolist()
    # the sidebar's caption states the order with the levels named
    from dashboard import state, widgets

    s = state.Settings(dataset="sim", gains=tuple(app_gains), beta=1.0, penalties=(4.0, 3.0, 2.0), cutoff=10,
                       rel_threshold=1, metrics=("AP",), top_n=0, top_by="AP")
    line = widgets.settings_line(s, c)
    assert "S=10 : A=5 : B=1" in line and "NTCIREVAL" in line and "ties by document id (trec_eval)" not in line


def _four_level_files(d: Path) -> tuple[Path, Path, dict, dict]:
    """Qrels with levels 0..4 on three topics and two runs (scores descending, no ties)."""
    rng = np.random.default_rng(7)
    qrels, runs = {}, {"a": {}, "b": {}}
    for t in ("t1", "t2", "t3"):
        qrels[t] = {f"d{i}": int(rng.integers(0, 5)) for i in range(12)}
        qrels[t]["d0"] = 4
        for r in runs:
            docs = list(rng.permutation(12))
            runs[r][t] = {f"d{i}": float(20 - k) for k, i in enumerate(docs)}
    (d / "q.txt").write_text("".join(f"{t} 0 {doc} {lv}\n" for t, j in qrels.items() for doc, lv in j.items()))
    (d / "runs").mkdir()
    for r, per in runs.items():
        (d / "runs" / f"{r}.txt").write_text("".join(f"{t} Q0 {doc} {k + 1} {s} {r}\n" for t, ds in per.items()
                                                      for k, (doc, s) in enumerate(ds.items())))
    return d / "q.txt", d / "runs", qrels, runs


def _msndcg(qrels: dict, ranked: dict, gain: dict, k: int) -> float:
    """Burges nDCG@k written from its definition: sum gain(L(r)) / log2(r + 1), over the ideal list's."""
    vals = []
    for t, judged in qrels.items():
        order = sorted(ranked[t], key=lambda d: -ranked[t][d])[:k]
        dcg = sum(gain[judged.get(d, 0)] / math.log2(r + 2) for r, d in enumerate(order))
        ideal = sorted((gain[v] for v in judged.values()), reverse=True)[:k]
        vals.append(dcg / sum(g / math.log2(r + 2) for r, g in enumerate(ideal)))
    return sum(vals) / len(vals)


def test_a_gains_string_on_four_levels_is_read_highest_level_first_on_the_command_line(tmp_path, capsys):
    q, runs, qrels, ranked = _four_level_files(tmp_path)
    assert main(["evaluate", "--qrels", str(q), "--runs", str(runs), "--metrics", "MSnDCG@5",
                 "--gains", "8:4:2:1"]) == 0
    got = _means(capsys.readouterr().out, "MSnDCG@5")
    gain = {0: 0.0, 1: 1.0, 2: 2.0, 3: 4.0, 4: 8.0}          # L4=8 : L3=4 : L2=2 : L1=1
    for run in ("a", "b"):
        assert got[run] == pytest.approx(_msndcg(qrels, ranked[run], gain, 5), rel=1e-11)
    # and the order is printed with the gains it shaped
    assert main(["evaluate", "--qrels", str(q), "--runs", str(runs), "--metrics", "MSnDCG@5",
                 "--gains", "8:4:2:1", "--output", "json"]) == 0
    st = json.loads(capsys.readouterr().out)["settings"]
    assert st["gains_levels"] == "L4=8 : L3=4 : L2=2 : L1=1" and st["gains"] == [1.0, 2.0, 4.0, 8.0]


def test_an_old_ascending_command_line_is_warned_about(capsys):
    assert main(["evaluate", *SIM, "--metrics", "Q-measure", "--gains", "1:5:10"]) == 0
    err = capsys.readouterr().err
    assert "--gains is read highest level first" in err and "write --gains 10:5:1" in err
    assert main(["evaluate", *SIM, "--metrics", "NWRR", "--penalties", "4:3:2"]) == 2     # old default, ascending
    assert "penalties must not grow with the level" in capsys.readouterr().err


def test_every_output_states_the_order_the_topics_the_threshold_and_the_depth(clef2015, capsys):
    base = ["evaluate", "--qrels", str(clef2015 / "qrels.txt"), "--run", *sorted(map(str, (clef2015 / "runs").glob(
        "*.gz")))[:2], "--metrics", "map", "Q-measure", "--order", "file", "--depth", "100"]
    assert main(base) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, ln.split("\t"), strict=True)) for ln in lines[1:]]
    assert head == ["run", "topic", "metric", "value", "topics", "rel_threshold", "order", "depth", "gains", "mean",
                    "condensed"]
    # clef2015 has levels 0-2: the default gains are gain(L) = L, written highest level first with the levels
    assert {(r["metric"], r["topics"], r["rel_threshold"], r["order"], r["depth"], r["gains"], r["mean"])
            for r in rows} == {
        ("map", "trec_eval:66", "1", "file", "100", "", "arithmetic"),
        ("Q-measure", "ntcireval:65", "", "file", "100", "L2=2 : L1=1", "arithmetic")}
    assert main(base + ["--output", "trec_eval"]) == 0
    summary = {ln.split("\t")[0].strip(): ln.split("\t")[2] for ln in capsys.readouterr().out.splitlines()}
    assert summary["topic_policy"] == "trec_eval-c" and summary["ranking_order"] == "file"
    assert summary["depth"] == "100" and summary["num_q"] == "66"
    assert main(base + ["--output", "json"]) == 0
    st = json.loads(capsys.readouterr().out)["settings"]
    assert st["order"] == "file" and st["depth"] == 100 and "trec_eval -c" in st["topic_policies"]["trec_eval"]
    assert main(base + ["--output", "jsonl"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["order"] == "file" and first["depth"] == 100 and first["topics"] == "trec_eval"
    c = evalcore.load_collection(clef2015 / "qrels.txt", clef2015 / "runs", order="file", depth=100)
    a = evalcore.evaluate(c, ["map"]).attrs
    assert (a["order"], a["depth"], a["topics"]["map"]["n_topics"]) == ("file", 100, 66)
    assert "tie" in a["order_text"] or "order" in a["order_text"]


def _pytrec_map(clef2015: Path, run_files: list[Path]) -> dict[str, float]:
    """map of each run over every qrels topic (trec_eval -c: a topic absent from the run scores 0)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import gzip

    qrels: dict = {}
    for line in (clef2015 / "qrels.txt").read_text().splitlines():
        t, _, d, rel = line.split()
        qrels.setdefault(t, {})[d] = int(rel)
    out = {}
    for f in run_files:
        run: dict = {}
        for line in gzip.open(f, "rt"):
            t, _, d, _, s, _ = line.split()
            run.setdefault(t, {})[d] = float(s)
        per = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
        out[f.name.split(".dat")[0]] = sum(per.get(t, {}).get("map", 0.0) for t in qrels) / len(qrels)
    return out


@pytest.mark.parametrize("command", ["pairs", "kendall", "bootstrap", "swap"])
def test_meta_commands_average_a_name_over_the_topics_it_implies(clef2015, command, capsys):
    files = sorted((clef2015 / "runs").glob("*.gz"))[:3]
    argv = [command, "--qrels", str(clef2015 / "qrels.txt"), "--run", *map(str, files), "--metrics", "map",
            "--output", "json"]
    if command in ("bootstrap", "swap", "pairs"):
        argv += ["--B", "20"]
    if command == "kendall":
        argv[-3:-2] = ["map", "AP"]        # two metrics to correlate, over 66 and 65 topics
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["topic_sets"]["map"] == {"policy": "trec_eval", "n_topics": 66}
    if command == "pairs":
        ref = _pytrec_map(clef2015, files)
        for p in doc["pairs"]:
            assert p["mean_diff"] == pytest.approx(ref[p["run_x"]] - ref[p["run_y"]], abs=1e-9)
    if command == "kendall":
        assert doc["settings"]["topic_sets"]["AP"] == {"policy": "ntcireval", "n_topics": 65}


def test_meta_commands_refuse_two_topic_sets_where_they_need_one(clef2015, capsys):
    files = sorted((clef2015 / "runs").glob("*.gz"))[:3]
    argv = ["swap", "--qrels", str(clef2015 / "qrels.txt"), "--run", *map(str, files), "--metrics", "map", "AP",
            "--B", "10"]
    assert main(argv) == 2
    assert "--topics trec_eval" in capsys.readouterr().err
    assert main(argv + ["--topics", "trec_eval", "--output", "json"]) == 0
    sets = json.loads(capsys.readouterr().out)["settings"]["topic_sets"]
    assert sets == {"map": {"policy": "trec_eval", "n_topics": 66}, "AP": {"policy": "trec_eval", "n_topics": 66}}


def test_a_name_both_conventions_share_warns_once_only_where_the_means_differ(clef2015_collection):
    c = clef2015_collection
    assert c.topics_without_relevant                       # clef2015: one qrels topic without a relevant document
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        evalcore.evaluate(c, ["P@10", "RR", "AP(rel=2)", "Q-measure"])
    got = [x for x in w if issubclass(x.category, TopicSetWarning)]
    assert len(got) == 1
    msg = str(got[0].message)
    assert all(n in msg for n in ("P@10", "RR", "AP(rel=2)")) and "Q-measure" not in msg
    assert "65 topics" in msg and "66 qrels topics" in msg and "topics='trec_eval'" in msg
    for kw in ({"topics": "ntcireval"}, {"topics": "trec_eval"}, {"names": "evalcore"}):
        with warnings.catch_warnings():
            warnings.simplefilter("error", TopicSetWarning)
            evalcore.evaluate(c, ["P@10"], **kw)
    with warnings.catch_warnings():                      # without a topic lacking relevant documents: no warning
        warnings.simplefilter("error", TopicSetWarning)
        evalcore.evaluate(replace(c.subset(topics=[0, 1]), topics_without_relevant=(), no_relevant=None), ["P@10"])


def test_numrel_follows_ir_measures_on_a_topic_missing_from_a_run():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"t1": {"d1": 1, "d2": 2, "d3": 0}, "t2": {"d4": 1, "d5": 1}, "t3": {"d6": 2}}
    run = {"t1": {"d1": 2.0, "d3": 1.0}, "t3": {"d9": 1.0}}          # no list for t2
    qtext = "".join(f"{t} 0 {d} {v}\n" for t, j in qrels.items() for d, v in j.items()).encode()
    rtext = "".join(f"{t} Q0 {d} {k + 1} {s} r\n" for t, ds in run.items()
                    for k, (d, s) in enumerate(ds.items())).encode()
    c = evalcore.load_collection(("q.txt", qtext), [("r.txt", rtext)])
    ref_all = ir_measures.calc_aggregate([ir_measures.NumRel], qrels, run)[ir_measures.NumRel]
    ref_per = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.NumRel], qrels, run)}
    df = evalcore.evaluate(c, ["NumRel"], per_topic=True, means=True)        # topics, then trec_eval -q's all
    per = {t: v for t, v in zip(df.topic, df.value, strict=True) if t != "all"}
    assert float(df[df.topic == "all"]["value"].iloc[0]) == ref_all == 3       # t1: 2, t3: 1, t2 missing
    assert per["t2"] == 0 and all(per[t] == ref_per[t] for t in ref_per)
    assert float(evalcore.evaluate(c, ["irm:NumRel"])["value"].iloc[0]) == ref_all
