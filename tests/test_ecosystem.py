"""Inputs and outputs from the ecosystem: DataFrames (PyTerrier, ir_measures), pytrec_eval dicts, named runs,
TREC files with # comments, JSON-lines runs, --output trec_eval / jsonl. Numbers are checked against
pytrec_eval (trec_eval's own semantics), never against evalcore's file loader."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalcore
from evalcore.cli import main
from evalcore.io import InputError, load_collection, read_qrels, read_run

pytrec_eval = pytest.importorskip("pytrec_eval")


def _pyterrier_frames(seed=7, n_topics=8, n_docs=40, depth=25):
    """PyTerrier-style qrels (qid, docno, label) and two runs (qid, docno, score, rank), with exact score ties
    and scores that differ only beyond single precision (trec_eval compares C floats)."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {"bm25": [], "dph": []}
    for t in range(1, n_topics + 1):
        qid = f"q{t}"
        docs = [f"d{t}_{i:02d}" for i in range(n_docs)]
        labels = rng.choice([0, 0, 0, 1, 2], size=n_docs)
        labels[0] = 2 if t % 2 else 1                       # every topic has a relevant document
        qrels += [(qid, d, int(L)) for d, L in zip(docs, labels, strict=True)]
        for name in runs:
            got = rng.choice(n_docs + 10, size=depth, replace=False)   # some unjudged documents
            scores = np.round(rng.normal(size=depth), 1)               # rounding makes exact ties
            scores[:2] = [0.0019528380786704603, 0.0019528380786704601]
            for i, (g, s) in enumerate(zip(got, scores, strict=True)):
                d = docs[g] if g < n_docs else f"u{t}_{g}"
                runs[name].append((qid, d, float(s), i + 1))
    q = pd.DataFrame(qrels, columns=["qid", "docno", "label"])
    r = {k: pd.DataFrame(v, columns=["qid", "docno", "score", "rank"]) for k, v in runs.items()}
    return q, r


def _pytrec(qrels: pd.DataFrame, run: pd.DataFrame, measures, relevance_level=1):
    qd = {}
    for q, d, L in qrels.itertuples(index=False):
        qd.setdefault(q, {})[d] = int(L)
    rd = {}
    for q, d, s, *_ in run.itertuples(index=False):
        rd.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(qd, set(measures), relevance_level=relevance_level).evaluate(rd)


def test_pyterrier_dataframes_with_peer_names_equal_pytrec_eval():
    """Peer metric names are accepted as they are: ndcg_cut.10, AP(rel=2) and P_10 passed as they are."""
    q, runs = _pyterrier_frames()
    c = evalcore.load_collection(q, runs)
    df = evalcore.evaluate(c, ["ndcg_cut.10", "AP(rel=2)", "P_10"], per_topic=True, means=True)
    got = {(r, t, m): v for r, t, m, v in df.itertuples(index=False)}
    n = 0
    for name, run in runs.items():
        relaxed = _pytrec(q, run, {"ndcg_cut_10", "P_10"})
        rigid = _pytrec(q, run, {"map"}, relevance_level=2)
        for t in c.topic_ids:
            assert got[(name, t, "ndcg_cut.10")] == pytest.approx(relaxed[t]["ndcg_cut_10"], abs=1e-12)
            assert got[(name, t, "P_10")] == pytest.approx(relaxed[t]["P_10"], abs=1e-12)
            assert got[(name, t, "AP(rel=2)")] == pytest.approx(rigid[t]["map"], abs=1e-12)
            n += 3
        mean = np.mean([relaxed[t]["ndcg_cut_10"] for t in c.topic_ids])
        assert got[(name, "all", "ndcg_cut.10")] == pytest.approx(mean, abs=1e-12)
    assert n == 2 * 8 * 3


def test_ir_measures_columns_and_pytrec_dicts_give_trec_eval_order():
    q, runs = _pyterrier_frames(seed=3)
    run = runs["bm25"]
    irm_q = q.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    irm_r = run.drop(columns="rank").rename(columns={"qid": "query_id", "docno": "doc_id"})
    qd = {}
    for a, d, L in q.itertuples(index=False):
        qd.setdefault(a, {})[d] = int(L)
    rd = {}
    for a, d, s, _ in run.itertuples(index=False):
        rd.setdefault(a, {})[d] = s
    want = _pytrec(q, run, {"map", "recip_rank", "P_5"})
    for qrels, r in ((irm_q, irm_r), (qd, rd), (qd, {"mine": irm_r})):
        c = load_collection(qrels, r)
        m = evalcore.score_matrices(c, ["map", "recip_rank", "P_5"])
        for j, t in enumerate(c.topic_ids):
            for key, measure in (("map", "map"), ("recip_rank", "recip_rank"), ("P_5", "P_5")):
                assert m[key][0, j] == pytest.approx(want[t][measure], abs=1e-12), (key, t)
    assert load_collection(qd, {"mine": irm_r}).run_ids == ("mine",)


def test_named_runs_dataframe_name_and_missing_topics():
    q = pd.DataFrame({"qid": [1, 1, 2, 3], "docno": ["a", "b", "c", "d"], "label": [1, 0, 2, 1]})
    r = pd.DataFrame({"qid": [1, 1, 3, 9], "docno": ["b", "a", "d", "z"], "score": [2.0, 1.0, 5.0, 1.0]})
    r.attrs["name"] = "bm25"
    c = load_collection(q, r)
    assert c.run_ids == ("bm25",) and c.topic_ids == ("1", "2", "3")        # ints compared as strings
    assert c.levels[0, 0, :2].tolist() == [0, 1] and c.lengths[0].tolist() == [2, 0, 1]
    assert c.report.missing_run_topics == {"bm25": ["2"]}
    assert c.report.ignored_run_topics == {"bm25": ["9"]}
    ap = evalcore.score_matrix(c, "AP")[0]
    assert ap.tolist() == [0.5, 0.0, 1.0]                                  # missing topic scores 0


def test_rank_order_uses_the_rank_column():
    q = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "label": [1, 0, 0]})
    r = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "score": [3.0, 2.0, 1.0], "rank": [3, 1, 2]})
    assert load_collection(q, r, order="rank").levels[0, 0].tolist() == [0, 0, 1]
    assert load_collection(q, r).levels[0, 0].tolist() == [1, 0, 0]
    with pytest.raises(InputError, match="order='rank' needs a 'rank' column"):
        load_collection(q, r.drop(columns="rank"), order="rank")


@pytest.mark.parametrize("run,msg", [
    (pd.DataFrame({"qid": ["1"], "doc": ["a"], "score": [1.0]}),
     "run 'run': a run DataFrame needs the columns qid, docno, score or query_id, doc_id, score; it has qid, doc"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]}),
     "run 'run': row 1: column 'score' holds nan, not a finite number"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, "high"]}),
     "row 1: column 'score' holds 'high', not a finite number"),
    (pd.DataFrame({"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]}), "row 1: column 'qid' is empty"),
    (pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]}),
     "row 2: document 'a' is listed twice for topic '1' (first in row 0)"),
    ({"bm25": {"1": {"a": "x"}}}, "run 'bm25': row 0: column 'score' holds 'x'"),
    ({"1": 3}, "a dict of runs must be {qid: {docno: score}}"),
])
def test_bad_run_frames_name_the_run_row_and_column(run, msg):
    q = pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]})
    with pytest.raises(InputError) as e:
        load_collection(q, run)
    assert msg in str(e.value)


@pytest.mark.parametrize("qrels,msg", [
    (pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]}), "a qrels DataFrame needs the columns qid, docno, label"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1, 1.5]}),
     "row 1: relevance label 1.5 in column 'label' is not an integer"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "label": [1, 2]}),
     "document 'a' is judged twice for topic '1' with different levels (rows 0 and 1)"),
    ({"1": {"a": 0}}, "no relevant document (level >= 1)"),
])
def test_bad_qrels_frames_are_named(qrels, msg):
    with pytest.raises(InputError) as e:
        read_qrels(qrels)
    assert msg in str(e.value)


def test_qrels_frame_negative_labels_and_duplicates_warn():
    q = read_qrels(pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "b"], "label": [-1, 2, 2]}))
    assert q.frame.values.tolist() == [["1", "a", 0], ["1", "b", 2]]
    assert any("negative label" in w for w in q.warnings) and any("duplicate" in w for w in q.warnings)


# -- files ----------------------------------------------------------------------------
IR_METADATA = b"# ir_metadata.start\n# platform:\n#   hardware: cpu\n# ir_metadata.end\n"


def test_trec_files_with_comment_lines():
    qrels = ("q.txt", b"# judged by me\nt1 0 a 1\n#t1 0 b 1\nt1 0 b 0\n")
    run = ("r.txt", IR_METADATA + b"t1 Q0 b 1 2.0 x\n# a comment in between\nt1 Q0 a 2 1.0 x\n")
    c = load_collection(qrels, [run])
    assert c.levels[0, 0].tolist() == [0, 1] and c.report.n_qrels_lines == 2
    # the slow path (a tab forces the cleaner; a bad line is still numbered in the original file)
    bad = ("r.txt", IR_METADATA + b"t1 Q0 b 1 2.0 x\nt1\tQ0 a 2 oops x\n")
    with pytest.raises(InputError, match="r.txt, line 6: score 'oops' is not a number"):
        load_collection(qrels, [bad])


def test_jsonl_runs_and_their_errors(tmp_path):
    lines = [{"query_id": "t1", "doc_id": "a", "score": 1.0}, {"qid": "t1", "docno": "b", "score": 2}]
    f = tmp_path / "bm25.jsonl"
    f.write_text("# header\n" + "\n".join(json.dumps(x) for x in lines) + "\n")
    r = read_run(f)
    assert r.name == "bm25" and r.ranking("t1") == ["b", "a"]
    r2 = read_run(("run.txt", f.read_bytes()))                 # sniffed by the first '{'
    assert r2.ranking("t1") == ["b", "a"]
    for text, msg in [('{"query_id": "t1", "doc_id": "a"}', "line 1: score None is not a finite number"),
                      ('{"query_id": "t1", "doc_id": "a", "score": 1}\n[1, 2]', "line 2: expected a JSON object"),
                      ('{"query_id": "t1", "score": 1}', "line 1: missing or empty 'doc_id' (or 'docno')"),
                      ('{"query_id": "t1", "doc_id": "a", "score": 1', "line 1: not a JSON object"),
                      ('{"query_id": "t1", "doc_id": "a", "score": 1}\n{"query_id": "t1", "doc_id": "a", "score": 2}',
                       "line 2: document 'a' is listed twice for topic 't1' (first on line 1)")]:
        with pytest.raises(InputError, match="r.jsonl, " + msg.replace("(", r"\(").replace(")", r"\)")
                           .replace("[", r"\[")):
            read_run(("r.jsonl", text.encode()))


def test_four_field_run_line_and_swapped_files_say_what_to_do():
    with pytest.raises(InputError) as e:
        load_collection(("q.txt", b"t1 0 a 1\n"), [("r.txt", b"t1 0 a 1\n")])
    assert "this looks like a qrels line" in str(e.value) and "give the qrels first" not in str(e.value)
    with pytest.raises(InputError) as e:
        read_qrels(("q.txt", b"t1 a\tb c d e f g\n"))
    assert "--qrels-format" in str(e.value) and "qrels_fmt=" in str(e.value)


# -- outputs ----------------------------------------------------------------------------
def test_output_trec_eval_layout(capsys):
    assert main(["evaluate", "--paper-examples", "--metrics", "AP", "P_2", "--per-topic",
                 "--output", "trec_eval"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert all(len(x) == 3 for x in lines)
    c = evalcore.paper_examples()
    first = lines[: 2 * c.n_topics + 10]
    assert [x[1] for x in first[: 2 * c.n_topics]] == [t for t in c.topic_ids for _ in range(2)]
    assert [x[0].strip() for x in first[2 * c.n_topics:]] == ["runid", "num_q", "relevance_level", "topic_policy",
                                                             "ranking_order", "depth", "condensed", "mean", "AP",
                                                             "P_2"]
    assert [x[2] for x in first[2 * c.n_topics + 1: 2 * c.n_topics + 3]] == [str(c.n_topics), "1"]
    assert first[2 * c.n_topics] [1:] == ["all", c.run_ids[0]]
    assert first[0][0] == "AP".ljust(22)                                   # trec_eval's %-22s
    ap = evalcore.score_matrix(c, "AP")[0]
    assert float(first[-2][2]) == pytest.approx(ap.mean(), abs=1e-11)


def test_output_jsonl(capsys):
    assert main(["evaluate", "--paper-examples", "--metrics", "NWRR", "--output", "jsonl"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows[-1] == {"run": "S-at-3", "topic": "all", "metric": "NWRR", "value": pytest.approx(0.2),
                        "topics": "ntcireval", "n_topics": 3, "mean": "arithmetic", "order": "given", "depth": None,
                        "condensed": False}
    assert len(rows) == evalcore.paper_examples().n_runs


def test_cli_reads_jsonl_runs(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("t1 0 a 1\nt1 0 b 0\n")
    (tmp_path / "r.jsonl").write_text('{"query_id": "t1", "doc_id": "b", "score": 2}\n'
                                      '{"query_id": "t1", "doc_id": "a", "score": 1}\n')
    assert main(["evaluate", "--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "r.jsonl"),
                 "--metrics", "recip_rank"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == \
        "r\tall\trecip_rank\t0.5\ttrec_eval:1\t1\tscore\tall\t\tarithmetic\tno"


# -- ir_datasets-style iterables and pyarrow Tables ---------------------------------------------------------
# The record types ir_datasets' qrels_iter() / scoreddocs_iter() yield (ir_datasets.formats.TrecQrel,
# GenericScoredDoc): namedtuples with these fields, in this order.
TrecQrel = __import__("collections").namedtuple("TrecQrel", "query_id doc_id relevance iteration")
GenericScoredDoc = __import__("collections").namedtuple("GenericScoredDoc", "query_id doc_id score")


def test_ir_datasets_iterables_and_arrow_tables_equal_pytrec_eval():
    import pyarrow as pa

    q, runs = _pyterrier_frames(seed=3)
    qrels_iter = (TrecQrel(a, b, int(c), "0") for a, b, c in q.itertuples(index=False))
    scored = {k: (GenericScoredDoc(a, b, float(s)) for a, b, s, _ in r.itertuples(index=False))
              for k, r in runs.items()}
    c = load_collection(qrels_iter, scored)                         # generators, read once
    assert c.run_ids == ("bm25", "dph")
    arrow = load_collection(pa.Table.from_pandas(q.rename(columns={"qid": "query_id", "docno": "doc_id",
                                                                   "label": "relevance"})),
                            {k: pa.Table.from_pandas(r) for k, r in runs.items()})
    measures = ("map", "P_5", "recip_rank")
    for coll in (c, arrow):
        df = evalcore.evaluate(coll, list(measures), per_topic=True, means=True)
        for name, r in runs.items():
            want = _pytrec(q, r, measures)
            for m in measures:
                got = df[(df.run == name) & (df.metric == m) & (df.topic != "all")].set_index("topic")["value"]
                assert got.to_dict() == pytest.approx({t: v[m] for t, v in want.items()}, abs=1e-12), (name, m)
    one = load_collection(list(TrecQrel(a, b, int(c), "0") for a, b, c in q.itertuples(index=False)),
                          [GenericScoredDoc("q1", "d1_00", 1.0)])
    assert one.run_ids == ("run",) and one.lengths.sum() == 1


@pytest.mark.parametrize("qrels,runs,msg", [
    (iter([("1", "a", 1)]), None, r"qrels records must yield namedtuples or dicts with the fields query_id, "
                                  r"doc_id, relevance \(ir_datasets' qrels_iter\(\)\); its first item is a tuple"),
    (iter([]), None, "the iterable of qrels records yielded nothing"),
    ([TrecQrel("1", "a", 1, "0"), {"query_id": "1", "doc_id": "b", "relevance": 0}], None,
     "record 1 is a dict, record 0 a TrecQrel"),
    ([TrecQrel("1", "a", 1, "0")], iter([3.5]), r"run records .* scoreddocs_iter\(\)\); its first item is a float"),
    ([TrecQrel("1", "a", 1, "0")], [GenericScoredDoc("1", "a", "high")], "column 'score' holds 'high'"),
])
def test_bad_iterables_say_what_was_wrong(qrels, runs, msg):
    with pytest.raises(InputError, match=msg):
        load_collection(qrels, runs if runs is not None else [GenericScoredDoc("1", "a", 1.0)])
    with pytest.raises(InputError):
        if runs is None:
            read_qrels(qrels)
        else:
            raise InputError("runs only")


def test_read_qrels_takes_arrow_and_iterators_of_paths(tmp_path):
    import pyarrow as pa

    q = read_qrels(pa.table({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [2, 0]}))
    assert q.max_level == 2
    (tmp_path / "r.txt").write_text("1 Q0 a 1 1 x\n")
    c = load_collection(pa.table({"qid": ["1"], "docno": ["a"], "label": [1]}), iter([tmp_path / "r.txt"]))
    assert c.run_ids == ("r",) and float(evalcore.score_matrix(c, "AP")[0, 0]) == 1.0
