"""Which topics a mean runs over (evalcore.registry.topic_policy), the name traps, and evalcore.writers.

trec_eval averages over every qrels topic a run is evaluated on, scoring 0 where a topic has no relevant
document; NTCIREVAL leaves such topics out (Q, P, P+, O, NWRR are undefined there). Expected values come
from pytrec_eval or are worked by hand from trec_eval's definitions.
"""
from __future__ import annotations

import json
import warnings

import pytest

import evalcore
from evalcore import writers
from evalcore.cli import main
from evalcore.names import AmbiguousNameWarning, resolve

pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = "t1 0 a 1\nt1 0 b 0\nt1 0 d 2\nt2 0 c 0\nt3 0 e 1\n"          # t2: no relevant document
RUN = "t1 Q0 b 1 3 r\nt1 Q0 a 2 2 r\nt1 Q0 d 3 1 r\nt2 Q0 c 1 1 r\nt3 Q0 x 1 2 r\nt3 Q0 e 2 1 r\n"


@pytest.fixture()
def tiny(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    return tmp_path, evalcore.load_collection(tmp_path / "q.txt", [tmp_path / "r.txt"])


def _pytrec(level: int, measures=("map", "P_2", "recip_rank")) -> dict:
    qrels = {"t1": {"a": 1, "b": 0, "d": 2}, "t2": {"c": 0}, "t3": {"e": 1}}
    run = {"t1": {"b": 3.0, "a": 2.0, "d": 1.0}, "t2": {"c": 1.0}, "t3": {"x": 2.0, "e": 1.0}}
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level).evaluate(run)


def _means(df) -> dict:
    return {m: float(v) for m, v in df[df["topic"] == "all"].set_index("metric")["value"].items()}


@pytest.mark.parametrize("level", [1, 2])
def test_trec_eval_names_average_over_every_qrels_topic(tiny, level):
    _, c = tiny
    assert c.topic_ids == ("t1", "t3") and c.topics_without_relevant == ("t2",)
    want = _pytrec(level)
    df = evalcore.evaluate(c, ["map", "P_2", "recip_rank"], rel_threshold=level, per_topic=True, means=True)
    got = {(t, m): float(v) for _, t, m, v in df.itertuples(index=False) if t != "all"}
    assert got == pytest.approx({(t, m): want[t][m] for t in want for m in want[t]}, abs=1e-12)
    means = _means(df)
    for m in ("map", "P_2", "recip_rank"):
        assert means[m] == pytest.approx(sum(want[t][m] for t in want) / 3, abs=1e-12)
    # map at -l 1 by hand: t1 (1/2 + 2/3) / 2, t2 0, t3 1/2
    if level == 1:
        assert means["map"] == pytest.approx(((0.5 + 2 / 3) / 2 + 0 + 0.5) / 3, abs=1e-12)


def test_evalcore_names_follow_ntcireval_unless_told(tiny):
    _, c = tiny
    df = evalcore.evaluate(c, ["AP", "Q-measure", "map"])
    assert df.attrs["topics"] == {"AP": {"policy": "ntcireval", "n_topics": 2},
                                  "Q-measure": {"policy": "ntcireval", "n_topics": 2},
                                  "map": {"policy": "trec_eval", "n_topics": 3}}
    m = _means(df)
    assert m["AP"] == pytest.approx(((0.5 + 2 / 3) / 2 + 0.5) / 2, abs=1e-12)
    assert m["map"] == pytest.approx(m["AP"] * 2 / 3, abs=1e-12)
    forced = _means(evalcore.evaluate(c, ["AP", "map"], topics="ntcireval"))
    assert forced["map"] == pytest.approx(m["AP"], abs=1e-12)
    with pytest.raises(ValueError, match="topics must be one of trec_eval, ntcireval"):
        evalcore.evaluate(c, ["AP"], topics="all")


def test_means_table_follows_the_same_policy(tiny):
    from evalcore import registry

    _, c = tiny
    wide = registry.means_table(c, ["map", "AP"])
    tidy = _means(evalcore.evaluate(c, ["map", "AP"]))
    assert wide.loc["r", "map"] == pytest.approx(tidy["map"], abs=1e-12)
    assert wide.loc["r", "AP"] == pytest.approx(tidy["AP"], abs=1e-12)
    assert wide.loc["r", "map"] == pytest.approx(sum(v["map"] for v in _pytrec(1).values()) / 3, abs=1e-12)


def test_subset_of_topics_has_no_zero_extras(tiny):
    _, c = tiny
    sub = c.subset(topics=[0])
    assert sub.topics_without_relevant == ()
    assert evalcore.evaluate(sub, ["map"]).attrs["topics"]["map"]["n_topics"] == 1


def test_cli_topics_option_and_statement(tiny, capsys):
    d, _ = tiny
    base = ["evaluate", "--qrels", str(d / "q.txt"), "--run", str(d / "r.txt"), "--metrics", "map", "AP"]
    assert main(base) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["run", "topic", "metric", "value", "topics", "rel_threshold", "order", "depth", "gains", "mean",
                       "condensed"]
    assert [r[4:] for r in rows[1:]] == [["trec_eval:3", "1", "score", "all", "", "arithmetic", "no"],
                                         ["ntcireval:2", "1", "score", "all", "", "arithmetic", "no"]]
    assert main(base + ["--topics", "trec_eval", "--output", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["topic_policy"]["AP"] == {"policy": "trec_eval", "n_topics": 3}
    assert doc["topics_without_relevant"] == ["t2"]
    values = {r["metric"]: r["value"] for r in doc["results"]}
    assert values["AP"] == pytest.approx(values["map"], abs=1e-12)
    with pytest.raises(SystemExit):
        main(base + ["--topics", "nope"])
    assert "neither a topic policy (trec_eval, ntcireval)" in capsys.readouterr().err
    # a number is still the topics of --simulated
    assert main(["evaluate", "--simulated", "--topics", "4", "--systems", "2", "--metrics", "P_5"]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith("\ttrec_eval:4\t1\tgiven\tall\t\tarithmetic\tno")


def test_the_topic_policy_is_saved_read_back_and_refused_where_unused(tiny, capsys, tmp_path):
    """--save-settings records the policy asked for (--topics, or trec_eval's under --output trec_eval);
    --settings reads it back (an explicit --topics wins); ``compare`` reads it too; the report and the app,
    whose means always run over the topics with a relevant document, say they do not use trec_eval's."""
    from evalcore.app_settings import fit_to_app
    from evalcore.settings import parse_settings, read_settings

    d, _ = tiny
    base = ["evaluate", "--qrels", str(d / "q.txt"), "--run", str(d / "r.txt"), "--metrics", "AP", "--output", "json"]
    f = tmp_path / "s.json"
    want = sum(v["map"] for v in _pytrec(1).values())          # pytrec_eval's AP per topic, t2 included as 0

    def ap(argv):
        assert main(argv) == 0
        doc = json.loads(capsys.readouterr().out)
        return doc["settings"]["topic_policy"]["AP"], doc["results"][0]["value"]

    assert ap(base + ["--topics", "trec_eval", "--save-settings", str(f)]) == (
        {"policy": "trec_eval", "n_topics": 3}, pytest.approx(want / 3, abs=1e-12))
    assert read_settings(f)["topics"] == "trec_eval"
    assert ap(base + ["--settings", str(f)]) == ({"policy": "trec_eval", "n_topics": 3},
                                                  pytest.approx(want / 3, abs=1e-12))
    assert ap(base + ["--settings", str(f), "--topics", "ntcireval"]) == (
        {"policy": "ntcireval", "n_topics": 2}, pytest.approx(want / 2, abs=1e-12))
    g = tmp_path / "auto.json"                                   # no policy asked: none recorded (per metric)
    ap(base + ["--save-settings", str(g)])
    assert "topics" not in read_settings(g)
    h = tmp_path / "te.json"                                     # --output trec_eval implies trec_eval's topics
    assert main(base[:-2] + ["--output", "trec_eval", "--save-settings", str(h)]) == 0
    capsys.readouterr()
    assert read_settings(h)["topics"] == "trec_eval"
    # compare reads it: the AP column's mean over 3 topics
    (tmp_path / "r2.txt").write_text(RUN.replace(" r\n", " r2\n"))
    assert main(["compare", "--qrels", str(d / "q.txt"), "--run", str(d / "r.txt"), str(tmp_path / "r2.txt"),
                 "-m", "AP", "--settings", str(f), "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    head = out[0].split(",")
    row = next(r.split(",") for r in out[1:] if r.split(",")[head.index("run")] == "r")
    assert float(row[head.index("mean")]) == pytest.approx(want / 3, abs=1e-12)
    assert row[head.index("topic_policy")] == "trec_eval"
    with pytest.raises(ValueError, match="settings: topics must be one of trec_eval, ntcireval; got 'all'"):
        parse_settings('{"topics": "all"}')
    assert main(["report", "--qrels", str(d / "q.txt"), "--run", str(d / "r.txt"), "--settings", str(f), "--out",
                 str(tmp_path / "rep")]) == 2
    assert "report cannot use topics = 'trec_eval'" in capsys.readouterr().err
    notes = fit_to_app(parse_settings('{"topics": "trec_eval"}'), 3).notes
    assert notes == ["topics 'trec_eval' is not used: the app's means run over the topics with a relevant document "
                     "(NTCIREVAL's convention); the command line's --topics trec_eval averages over every qrels "
                     "topic"]
    assert fit_to_app(parse_settings('{"topics": "ntcireval"}'), 3).notes == []


def test_output_trec_eval_defaults_to_trec_evals_topics(tiny, capsys):
    d, _ = tiny
    assert main(["evaluate", "--qrels", str(d / "q.txt"), "--run", str(d / "r.txt"), "--metrics", "AP",
                 "--output", "trec_eval"]) == 0
    lines = {a.strip(): v for a, _, v in (x.split("\t") for x in capsys.readouterr().out.splitlines())}
    want = _pytrec(1)
    assert lines["num_q"] == "3"
    assert float(lines["AP"]) == pytest.approx(sum(v["map"] for v in want.values()) / 3, abs=1e-11)


def test_rel_threshold_is_minus_l_and_a_names_own_threshold_wins(tiny):
    _, c = tiny
    df = evalcore.evaluate(c, ["map", "AP(rel=1)", "P_2", "ndcg_cut_2"], rel_threshold=2)
    assert df.attrs["rel_threshold"] == {"map": 2, "AP(rel=1)": 1, "P_2": 2}
    want2, want1 = _pytrec(2), _pytrec(1)
    m = _means(df)
    assert m["map"] == pytest.approx(sum(v["map"] for v in want2.values()) / 3, abs=1e-12)
    assert m["P_2"] == pytest.approx(sum(v["P_2"] for v in want2.values()) / 3, abs=1e-12)
    # AP(rel=1) (evalcore's name: NTCIREVAL's two topics) keeps level >= 1
    assert m["AP(rel=1)"] == pytest.approx((want1["t1"]["map"] + want1["t3"]["map"]) / 2, abs=1e-12)


def test_a_topic_named_all_is_refused_in_per_topic_output(tmp_path):
    (tmp_path / "q.txt").write_text("all 0 a 1\nt2 0 b 1\n")
    (tmp_path / "r.txt").write_text("all Q0 a 1 1 r\nt2 Q0 b 1 1 r\n")
    c = evalcore.load_collection(tmp_path / "q.txt", [tmp_path / "r.txt"])
    with pytest.raises(ValueError, match="a topic is named 'all', the label of the mean rows"):
        evalcore.evaluate(c, ["AP"], per_topic=True)
    assert _means(evalcore.evaluate(c, ["AP"])) == {"AP": 1.0}       # the means alone are unambiguous


# -- name traps ------------------------------------------------------------------------------------------
def test_ap_at_k_and_bare_ndcg_say_their_convention():
    c = evalcore.simulated_collection(5, 3, seed=1)
    with pytest.warns(AmbiguousNameWarning, match=r"AP@10.*min\(R, 10\).*map_cut_10"):
        evalcore.score_matrices(c, ["AP@10"])
    with pytest.warns(AmbiguousNameWarning, match="one measure per cutoff"):
        out = evalcore.score_matrices(c, ["nDCG"], cutoffs=(5, 10))
    assert list(out) == ["nDCG@5", "nDCG@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evalcore.score_matrices(c, ["evalcore:AP@10", "MSnDCG@10"])
    assert resolve("AP@10", "ir_measures").key == "map_cut@10"     # trec_eval's map_cut_10, as ir_measures


def _fake_ir_measures(text: str):
    """A stand-in with the module and str() of an ir_measures measure (ir_measures prints its name)."""
    cls = type("Measure", (), {"__module__": "ir_measures.measures.base", "__str__": lambda self: text})
    return cls()


def test_ir_measures_objects_mean_what_they_mean_in_ir_measures():
    c = evalcore.simulated_collection(5, 3, seed=1)
    ndcg = _fake_ir_measures("nDCG@10")
    m = evalcore.score_matrices(c, [ndcg])
    assert list(m) == ["irm:nDCG@10"]                                     # the label says how it was read
    assert m["irm:nDCG@10"] == pytest.approx(evalcore.score_matrix(c, "MSnDCG@10"), abs=0)
    # ir_measures' AP@k, ERR@k and whole-list nDCG, refused until evalcore computed them (trec_eval's map_cut,
    # gdeval's ERR, trec_eval's ndcg; tests/test_peer_measures.py checks their values against ir_measures)
    for text, key in [("AP@10", "map_cut@10"), ("ERR@20", "ERR@20"), ("nDCG", "MSnDCG-list")]:
        assert resolve(str(_fake_ir_measures(text)), "ir_measures").key == key
        assert list(evalcore.score_matrices(c, [_fake_ir_measures(text)])) == ["irm:" + text]
    with pytest.raises(ValueError, match="is refused: .*no provider"):
        evalcore.score_matrices(c, [_fake_ir_measures("RR(judged_only=True)@10")])
    with pytest.raises(TypeError, match="a metric is a name"):
        evalcore.score_matrices(c, [3])


def test_real_ir_measures_objects():
    irm = pytest.importorskip("ir_measures")
    c = evalcore.simulated_collection(5, 3, seed=1)
    m = evalcore.score_matrices(c, [irm.nDCG @ 10, irm.AP(rel=2)])
    assert m["irm:nDCG@10"] == pytest.approx(evalcore.score_matrix(c, "MSnDCG@10"), abs=0)
    assert m["irm:AP(rel=2)"] == pytest.approx(evalcore.score_matrix(c, "AP", rel_threshold=2), abs=0)


# -- writers ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl", "trec_eval"])
def test_writers_write_the_clis_bytes_atomically(tiny, fmt, capsys, tmp_path):
    d, c = tiny
    args = ["--metrics", "map", "Q-measure", "--per-topic", "--rel-threshold", "2"]
    assert main(["evaluate", "--qrels", str(d / "q.txt"), "--run", str(d / "r.txt"), *args, "--output", fmt]) == 0
    cli = capsys.readouterr().out
    policy = "trec_eval" if fmt == "trec_eval" else None
    df = evalcore.evaluate(c, ["map", "Q-measure"], per_topic=True, means=True, rel_threshold=2, topics=policy)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / f"out.{fmt}"
    target.write_text("old")
    assert writers.write(df, fmt, target) == cli
    assert target.read_text() == cli
    assert [p.name for p in target.parent.iterdir()] == [target.name]          # no temporary left behind
    with pytest.raises(OSError, match="could not be written|No such file"):
        writers.write(df, fmt, tmp_path / "missing-dir" / "x")


def test_writer_errors_are_clear():
    import pandas as pd

    with pytest.raises(ValueError, match="lacks metric, value"):
        writers.to_tsv(pd.DataFrame({"run": [], "topic": []}))
    with pytest.raises(ValueError, match="unknown output format 'xml'; choose one of tsv, csv, jsonl, trec_eval"):
        writers.write(pd.DataFrame(), "xml")
