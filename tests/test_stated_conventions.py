"""Every output carries the conventions behind its numbers, with non-default settings.

One small four-level collection, written by hand, scored with ``--gains 10:5:2:1 --rel-threshold 2 --depth 2``
(and the default ``--order score``). The expected numbers are worked out by hand in :data:`AP_BY_HAND`; the
expected statements are the settings themselves, written as docs/conventions.md says: gains highest level first
with the levels named (``L4=10 : L3=5 : L2=2 : L1=1``), the threshold as ``level >= 2``, the depth, the tie
order, the topics and the mean. Each format is read back the way its documentation says.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest

import evalcore
from evalcore.cli import main

# levels 0-4; topic 1 has R = 2 at level >= 2 (d1: 4, d2: 2), topic 2 has R = 1 (d5: 3)
QRELS = """1 0 d1 4
1 0 d2 2
1 0 d3 1
1 0 d4 0
2 0 d5 3
2 0 d6 1
3 0 d7 2
3 0 d8 1
"""
# score order; --depth 2 keeps the first two of each list
RUNS = {
    "A": [("1", "d3", 3), ("1", "d1", 2), ("1", "d2", 1), ("2", "d6", 2), ("2", "d5", 1), ("3", "d8", 2),
          ("3", "d7", 1)],
    "B": [("1", "d1", 3), ("1", "d4", 2), ("1", "d2", 1), ("2", "d5", 2), ("2", "d6", 1), ("3", "d7", 2),
          ("3", "d8", 1)],
    "C": [("1", "d4", 3), ("1", "d3", 2), ("1", "d1", 1), ("2", "d6", 2), ("2", "d5", 1), ("3", "d8", 2),
          ("3", "d7", 1)],
}
# AP at level >= 2 on the top 2 (003 Eq. 1, divided by R):
#   A: t1 d3 -, d1 rel at 2 -> (1/2)/2 = 0.25; t2 d6 -, d5 at 2 -> 0.5; t3 d8 -, d7 at 2 -> 0.5  => 1.25 / 3
#   B: t1 d1 at 1 -> 1/2 = 0.5; t2 d5 at 1 -> 1; t3 d7 at 1 -> 1                             => 2.5 / 3
#   C: t1 d4 -, d3 (level 1) - -> 0; t2 d6 -, d5 at 2 -> 0.5; t3 d8 -, d7 at 2 -> 0.5           => 1.0 / 3
AP_BY_HAND = {"A": 1.25 / 3, "B": 2.5 / 3, "C": 1.0 / 3}
GAINS = "L4=10 : L3=5 : L2=2 : L1=1"
SETTINGS = ["--gains", "10:5:2:1", "--rel-threshold", "2", "--depth", "2"]


@pytest.fixture
def data(tmp_path) -> tuple[Path, Path]:
    (tmp_path / "q.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, rows in RUNS.items():
        (runs / f"{name}.txt").write_text("".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, d, s in rows))
    return tmp_path / "q.txt", runs


def _evaluate(data, capsys, *extra) -> str:
    q, runs = data
    assert main(["evaluate", "--qrels", str(q), "--runs", str(runs), "--metrics", "AP", "Q-measure", "ndcg_cut.2",
                 *SETTINGS, *extra]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("fmt,sep", [("tsv", "\t"), ("csv", ",")])
def test_tsv_and_csv_carry_gains_threshold_depth_order_and_mean_in_columns(data, capsys, fmt, sep):
    out = _evaluate(data, capsys, "--output", fmt)
    df = pd.read_csv(io.StringIO(out), sep=sep, keep_default_na=False, dtype=str)   # the reader writers.py names
    ap = df[df.metric == "AP"].set_index("run")
    assert {r: float(v) for r, v in ap["value"].items()} == pytest.approx(AP_BY_HAND, abs=1e-11)
    assert set(ap["rel_threshold"]) == {"2"} and set(ap["gains"]) == {""}
    q = df[df.metric == "Q-measure"]
    assert set(q["gains"]) == {GAINS} and set(q["rel_threshold"]) == {""}
    # trec_eval's name pins gain = level, whatever --gains says
    assert set(df[df.metric == "ndcg_cut.2"]["gains"]) == {"L4=4 : L3=3 : L2=2 : L1=1"}
    assert set(df["order"]) == {"score"} and set(df["depth"]) == {"2"} and set(df["mean"]) == {"arithmetic"}
    assert set(df["condensed"]) == {"no"}
    assert set(ap["topics"]) == {"ntcireval:3"}


def test_jsonl_and_json_carry_them_as_keys_and_a_meta_object(data, capsys):
    rows = [json.loads(x) for x in _evaluate(data, capsys, "--output", "jsonl").splitlines()]
    q = next(r for r in rows if r["metric"] == "Q-measure")
    ap = next(r for r in rows if r["metric"] == "AP" and r["run"] == "B")
    assert q["gains"] == GAINS and "rel_threshold" not in q
    assert ap["value"] == pytest.approx(AP_BY_HAND["B"], abs=1e-12)
    assert (ap["rel_threshold"], ap["depth"], ap["order"], ap["mean"], ap["condensed"]) == (2, 2, "score",
                                                                                           "arithmetic", False)
    meta = json.loads(_evaluate(data, capsys, "--output", "json"))["meta"]
    assert meta["gains"] == {"Q-measure": GAINS, "ndcg_cut.2": "L4=4 : L3=3 : L2=2 : L1=1"}
    assert meta["rel_threshold"] == {"AP": 2} and meta["depth"] == 2 and meta["order"] == "score"
    assert "ties by document id descending" in meta["order_text"]
    assert meta["mean"] == {"AP": "arithmetic", "Q-measure": "arithmetic", "ndcg_cut.2": "arithmetic"}
    assert meta["topics"]["AP"] == {"policy": "ntcireval", "n_topics": 3}


def test_evaluates_trec_eval_layout_states_them_as_summary_lines_of_one_field(data, capsys):
    out = _evaluate(data, capsys, "--output", "trec_eval")
    lines = [ln.split("\t") for ln in out.splitlines()]
    assert all(len(x) == 3 and " " not in x[2] for x in lines)       # three fields, a value without spaces
    summary = {x[0].strip(): x[2] for x in lines if x[1] == "all"}
    assert summary["gains(Q-measure)"] == "L4=10:L3=5:L2=2:L1=1"
    assert summary["gains(ndcg_cut.2)"] == "L4=4:L3=3:L2=2:L1=1"
    assert (summary["relevance_level"], summary["depth"], summary["ranking_order"], summary["mean"],
            summary["condensed"]) == ("2", "2", "score", "arithmetic", "no")
    # one gains line when every graded measure used the same gains
    q, runs = data
    assert main(["evaluate", "--qrels", str(q), "--runs", str(runs), "--metrics", "Q-measure", "nDCG@2", *SETTINGS,
                 "--output", "trec_eval"]) == 0
    lines = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    assert [x[2] for x in lines if x[0].strip() == "gains"] == ["L4=10:L3=5:L2=2:L1=1"] * 3


def test_a_condensed_run_says_so(data, capsys):
    out = _evaluate(data, capsys, "--condensed")
    assert set(pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False)["condensed"]) == {"yes"}


def _compare(data, capsys, fmt: str, *extra) -> str:
    q, runs = data
    assert main(["compare", "--qrels", str(q), "--runs", str(runs), "-m", "AP", "-m", "P+-measure", *SETTINGS,
                 "--format", fmt, *extra]) == 0
    return capsys.readouterr().out


def test_compare_markdown_and_latex_legends_state_the_settings(data, capsys):
    md = _compare(data, capsys, "md")
    rows = [ln.split("|") for ln in md.splitlines() if ln.startswith("| ") and "sim" not in ln][1:]
    means = {r[2].strip(): r[3].split("<")[0].strip().strip("*") for r in rows}
    assert means == {k: f"{v:.4f}" for k, v in AP_BY_HAND.items()}
    legend = md.strip().splitlines()[-1]
    for words in (f"{GAINS} (P+-measure)", "level \\>= 2 (AP)", "Lists cut at rank 2",
                  "score descending, exact ties by document id descending", "Means: arithmetic mean",
                  "Means over 3 topics"):
        assert words in legend, words
    tex = _compare(data, capsys, "latex")
    caption = tex.splitlines()[0]
    assert caption.startswith("% ") and GAINS in caption and r"level \textgreater{}= 2 (AP)" in caption
    assert "Lists cut at rank 2" in caption
    # scores given as matrices: the legend says their conventions are not known, rather than inventing them
    r = evalcore.compare({"AP": [[0.1, 0.2, 0.3], [0.2, 0.3, 0.5]]}, run_ids=["x", "y"])
    assert "not known here" in r.legend()


def test_compare_csv_has_the_settings_as_columns(data, capsys):
    rows = list(csv.DictReader(io.StringIO(_compare(data, capsys, "csv"))))
    ap = {r["run"]: r for r in rows if r["metric"] == "AP"}
    assert {k: float(v["mean"]) for k, v in ap.items()} == pytest.approx(AP_BY_HAND, abs=1e-11)
    assert {(r["metric"], r["gains"], r["rel_threshold"], r["depth"], r["order"], r["mean_of_topics"])
            for r in rows} == {("AP", "", "2", "2", "score", "arithmetic"),
                               ("P+-measure", GAINS, "", "2", "score", "arithmetic")}


def test_report_tables_carry_the_settings_in_csv_columns_and_latex_captions(data, tmp_path, capsys):
    q, runs = data
    out = tmp_path / "rep"
    out.mkdir()
    assert main(["report", "--qrels", str(q), "--runs", str(runs), *SETTINGS, "--B", "20", "--tukey-B", "20",
                 "--repeats", "1", "--topic-resamples", "0", "--out", str(out)]) == 0
    capsys.readouterr()
    t4 = pd.read_csv(out / "table4_bootstrap.csv", keep_default_na=False)
    assert set(t4["gains"]) == {GAINS} and set(t4["rel_threshold"]) == {2} and set(t4["depth"].astype(str)) == {"2"}
    assert set(t4["order"]) == {"score"} and set(t4["topics"]) == {"ntcireval"} and set(t4["mean"]) == {"arithmetic"}
    t5 = pd.read_csv(out / "table5_gains.csv", keep_default_na=False)
    assert "gains" not in t5.columns and set(t5["default_gains"]) == {GAINS}   # its rows vary the gains
    tex = (out / "table3_swap.tex").read_text()
    caption = next(ln for ln in tex.splitlines() if ln.startswith(r"\caption"))
    assert GAINS in caption and r"level \textgreater{}= 2" in caption and "lists cut at rank 2" in caption
    assert "exact ties by document id descending" in caption


def test_figures_ranking_captions_the_conventions_of_its_metric():
    pytest.importorskip("plotly")
    import evalcore.figures as ef

    c = evalcore.simulated_collection(n_topics=6, n_runs=3, seed=0)
    df = evalcore.evaluate(c, ["Q-measure", "AP"], gains="10:5:1", rel_threshold=2)
    q = ef.ranking(df, "Q-measure").layout.annotations[-1].text
    assert "S=10 : A=5 : B=1" in q and "level &gt;=" not in q                     # Q reads gains, not the threshold
    ap = ef.ranking(df, "AP").layout.annotations[-1].text
    assert "level &gt;= 2" in ap and "S=10" not in ap
    assert "the 6 topics with a relevant document" in ap.replace("<br>", " ")
    assert not ef.ranking(df, "AP", caption="").layout.annotations              # "" leaves it out
