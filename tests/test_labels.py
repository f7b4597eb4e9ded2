"""One label, one measure: a label two conventions read differently is printed with its variant.

``nDCG@k`` is Jarvelin & Kekalainen's nDCG (the papers', discount log_b(r) from rank b = 2) in evalcore's
convention and trec_eval's ``ndcg_cut.k`` (Burges: log2(r + 1)) in ir_measures'. On the hand-worked data below
the two differ, so a header that says ``nDCG@2`` either way would hide which number is which. Expected values:
worked by hand (:data:`BY_HAND`), the trec_eval reading checked against pytrec_eval too.
"""
from __future__ import annotations

import csv
import io
import math

import pytest

import evalcore
from evalcore.cli import main
from evalcore.registry import display_label, label_note

QRELS = "1 0 d1 2\n1 0 d2 1\n2 0 d3 2\n2 0 d4 0\n2 0 d5 1\n"
RUNS = {"X": [("1", "d2", 2), ("1", "d1", 1), ("2", "d4", 2), ("2", "d3", 1)],
        "Y": [("1", "d1", 2), ("1", "d2", 1), ("2", "d3", 2), ("2", "d5", 1)]}
L3 = math.log2(3)
# gains = level (K = 2); ideal lists: topic 1 (2, 1), topic 2 (2, 1)
#   JK, b = 2: DCG@2 = g1 + g2 / log2(2).   X: t1 (1 + 2) / 3 = 1, t2 (0 + 2) / 3        Y: 1, 1
#   Burges:    DCG@2 = g1 + g2 / log2(3).   X: t1 (1 + 2/L3) / (2 + 1/L3), t2 (2/L3) / (2 + 1/L3)   Y: 1, 1
BY_HAND = {"JK": {"X": (1 + 2 / 3) / 2, "Y": 1.0},
           "trec_eval": {"X": ((1 + 2 / L3) / (2 + 1 / L3) + (2 / L3) / (2 + 1 / L3)) / 2, "Y": 1.0}}


@pytest.fixture
def data(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, rows in RUNS.items():
        (runs / f"{name}.txt").write_text("".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, d, s in rows))
    return tmp_path / "q.txt", runs


def test_the_hand_values_are_trec_evals_for_the_burges_reading():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"1": {"d1": 2, "d2": 1}, "2": {"d3": 2, "d4": 0, "d5": 1}}
    for run, want in BY_HAND["trec_eval"].items():
        rows = {t: {d: float(s) for tt, d, s in RUNS[run] if tt == t} for t in ("1", "2")}
        got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.2"}).evaluate(rows)
        assert sum(v["ndcg_cut_2"] for v in got.values()) / 2 == pytest.approx(want, abs=1e-12)


def test_display_labels_name_the_variant_of_an_ambiguous_label():
    assert display_label("nDCG@10") == "nDCG@10 (JK)"
    assert display_label("nDCG@10", "ir_measures") == "nDCG@10 (trec_eval)"
    assert display_label("irm:nDCG@10") == "nDCG@10 (trec_eval)"
    assert display_label("AP@10") == "AP@10 (NTCIREVAL)" and display_label("irm:AP@10") == "AP@10 (trec_eval)"
    # unambiguous labels as before; ir_measures' own names kept (no MSnDCG for an ir_measures name)
    assert [display_label(x) for x in ("ndcg_cut_10", "map", "P_10", "Q-measure", "irm:AP(rel=2)")] == [
        "MSnDCG@10", "AP", "P@10", "Q-measure", "AP(rel=2)"]
    assert display_label("nDCG@10", label="my nDCG") == "my nDCG"                   # the user's label wins
    assert label_note("nDCG@10") == "nDCG@10 (JK) is nDCG (Jarvelin-Kekalainen)"
    assert label_note("P@10") == ""


def _fake_ir_measures(text: str):
    cls = type("Measure", (), {"__module__": "ir_measures.measures.base", "__str__": lambda self: text})
    return cls()


def test_ir_measures_objects_keep_their_own_name():
    c = evalcore.simulated_collection(5, 3, seed=1)
    df = evalcore.evaluate(c, [_fake_ir_measures("nDCG@10"), _fake_ir_measures("AP(rel=2)")])
    assert df.attrs["labels"] == {"irm:nDCG@10": "nDCG@10 (trec_eval)", "irm:AP(rel=2)": "AP(rel=2)"}
    irm = pytest.importorskip("ir_measures")
    assert display_label(irm.nDCG @ 10) == "nDCG@10 (trec_eval)" and display_label(irm.P @ 5) == "P@5"


def _means(md: str) -> dict[str, dict[str, float]]:
    """{column header: {run: mean}} of compare's Markdown table."""
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    head = [h.strip().replace("\\_", "_") for h in lines[0].strip("|").split("|")]
    out: dict[str, dict[str, float]] = {h: {} for h in head[2:]}
    for ln in lines[2:]:
        cells = [x.strip() for x in ln.strip("|").split("|")]
        for h, v in zip(head[2:], cells[2:], strict=True):
            out[h][cells[1]] = float(v.split("<")[0].strip("*"))
    return out


def test_compare_heads_each_reading_with_its_variant_and_its_own_numbers(data, capsys):
    q, runs = data
    base = ["compare", "--qrels", str(q), "--runs", str(runs), "--topics", "ntcireval"]
    assert main(base + ["-m", "nDCG@2", "-m", "P@2"]) == 0
    jk = capsys.readouterr().out
    assert main(base + ["-m", "nDCG@2", "-m", "P@2", "--names", "ir_measures"]) == 0
    te = capsys.readouterr().out
    assert _means(jk)["nDCG@2 (JK)"] == pytest.approx({k: round(v, 4) for k, v in BY_HAND["JK"].items()}, abs=1e-9)
    assert _means(te)["nDCG@2 (trec_eval)"] == pytest.approx(
        {k: round(v, 4) for k, v in BY_HAND["trec_eval"].items()}, abs=1e-9)
    assert "P@2" in _means(te)                                                   # an unambiguous name stays bare
    assert "nDCG@2 (JK) is nDCG (Jarvelin-Kekalainen)" in jk
    assert "nDCG@2 (trec\\_eval) is nDCG (Microsoft, log2(r+1)), trec\\_eval ndcg\\_cut" in te


def test_a_user_label_wins_in_every_format_and_in_the_legend(data, capsys):
    q, runs = data
    base = ["compare", "--qrels", str(q), "--runs", str(runs), "-m", "nDCG@2", "--label", "nDCG@2=nDCG-JK@2",
            "--gains", "5:1"]
    assert main(base + ["--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "| nDCG-JK@2 |" in md and "(JK)" not in md and "Gains, highest level first: L2=5 : L1=1." in md
    assert main(base + ["--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert "nDCG-JK@2" in tex and "(JK)" not in tex
    assert main(base + ["--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["metric_label"] for r in rows} == {"nDCG-JK@2"} and {r["gains"] for r in rows} == {"L2=5 : L1=1"}
    # the Python API: labels= at compare() time, used by every writer
    c = evalcore.load_collection(q, runs)
    r = evalcore.compare(c, ["nDCG@2"], labels={"nDCG@2": "ours"})
    assert "| ours |" in r.to_markdown() and "ours" in r.to_latex() and ",ours," in r.to_csv()
    with pytest.raises(ValueError, match="labels name metrics that are not compared: AP"):
        evalcore.compare(c, ["nDCG@2"], labels={"AP": "x"})
