"""evalcore.compare and ``evalcore compare``: the runs x metrics table of a paper.

References are computed here without evalcore's statistics: scipy.stats.ttest_rel / wilcoxon per pair,
plain Holm / Bonferroni loops, per-topic win/loss counts by a loop; the letters are checked on a small
hand-made collection whose answer is known by construction; LaTeX is parsed as a booktabs tabular and
Markdown rendered by markdown-it-py.
"""
from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalcore
from evalcore import registry
from evalcore.cli import main

BASE = "CUNI_EN_Run.2"


# -- plain references ------------------------------------------------------------------------
def plain_holm(p):
    p = np.asarray(p, float)
    m = len(p)
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(np.argsort(p, kind="stable")):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def plain_bonferroni(p):
    return [min(1.0, len(p) * x) for x in p]


def plain_p(x, y, test):
    d = np.asarray(x) - np.asarray(y)
    if np.all(d == 0):
        return 1.0
    if test == "t":
        return float(stats.ttest_rel(x, y).pvalue)
    nz = np.abs(d[d != 0])       # evalcore's documented Wilcoxon: zeros dropped, exact when untied and <= 50
    exact = np.unique(nz).size == nz.size <= 50
    return float(stats.wilcoxon(d[d != 0], correction=False, method="exact" if exact else "asymptotic").pvalue)


@pytest.fixture(scope="module")
def clef(clef2015_collection):
    return clef2015_collection


@pytest.fixture(scope="module")
def ap(clef):
    return registry.score_matrix(clef, "AP")


def _row(t, run, metric):
    r = t[(t["run"] == run) & (t["metric"] == metric)]
    assert len(r) == 1
    return r.iloc[0]


# -- p-values, corrections, counts on clef2015 ----------------------------------------------------
@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_baseline_p_values_equal_scipy_per_pair_and_holm_equals_a_plain_loop(clef, ap, test):
    runs = list(clef.run_ids)
    b = runs.index(BASE)
    r = evalcore.compare(clef, ["AP"], baseline=BASE, test=test, correction="holm")
    t = r.to_dataframe()
    others = [i for i in range(len(runs)) if i != b]
    ref = [plain_p(ap[i], ap[b], test) for i in others]
    got = [_row(t, runs[i], "AP")["p_value"] for i in others]
    assert got == pytest.approx(ref, rel=1e-9, abs=1e-12)
    adj = [_row(t, runs[i], "AP")["p_adjusted"] for i in others]
    assert adj == pytest.approx(plain_holm(ref), rel=1e-9, abs=1e-12)
    for i, a in zip(others, plain_holm(ref), strict=True):
        row = _row(t, runs[i], "AP")
        assert row["better"] == sum(int(x > y) for x, y in zip(ap[i], ap[b], strict=True))
        assert row["worse"] == sum(int(x < y) for x, y in zip(ap[i], ap[b], strict=True))
        assert row["mean"] == pytest.approx(ap[i].mean(), rel=1e-12)
        assert row["diff"] == pytest.approx(ap[i].mean() - ap[b].mean(), rel=1e-9, abs=1e-12)
        want = "" if a >= 0.05 else ("\u25b2" if ap[i].mean() > ap[b].mean() else "\u25bc")
        assert row["mark"] == want
    assert r.topics["AP"] == {"policy": "ntcireval", "n_topics": 65}
    assert "65 topics (NTCIREVAL's topics" in r.legend() and "Holm correction over the 29 comparisons" in r.legend()
    assert "ECNU_EN_Run.8" in set(t.loc[t["mark"] == "\u25b2", "run"]) if test == "t" else True


def test_bonferroni_equals_a_plain_loop_and_all_pairs_p_values_equal_scipy(clef, ap):
    runs = list(clef.run_ids)
    r = evalcore.compare(clef, ["AP"], test="t", correction="bonferroni")
    pr = r.pairs
    assert len(pr) == 435 and r.family_size == 435
    ref = [plain_p(ap[i], ap[j], "t") for i, j in combinations(range(len(runs)), 2)]
    assert pr["run_x"].tolist() == [runs[i] for i, _ in combinations(range(len(runs)), 2)]
    assert pr["p_value"].to_numpy() == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert pr["p_adjusted"].to_numpy() == pytest.approx(plain_bonferroni(ref), rel=1e-9, abs=1e-12)
    # letters: a run carries the letter of every run it beats (Bonferroni p < 0.05, higher mean)
    lab = r.labels
    assert lab[runs[0]] == "a" and lab[runs[25]] == "z" and lab[runs[26]] == "A" and len(set(lab.values())) == 30
    t = r.to_dataframe()
    for i, x in enumerate(runs):
        beaten = [runs[j] for j in range(len(runs)) if j != i and ap[i].mean() > ap[j].mean()
                  and plain_bonferroni(ref)[[(a, b) for a, b in combinations(range(len(runs)), 2)].index(
                      (min(i, j), max(i, j)))] < 0.05]
        assert _row(t, x, "AP")["better_than"] == "".join(lab[y] for y in beaten)


def test_trec_eval_policy_pads_topics_and_matches_evaluate(clef):
    r = evalcore.compare(clef, ["map", "AP"], baseline=BASE, correction="none")
    assert r.topics == {"map": {"policy": "trec_eval", "n_topics": 66}, "AP": {"policy": "ntcireval", "n_topics": 65}}
    means = evalcore.evaluate(clef, ["map"])
    t = r.to_dataframe()
    for run, v in zip(means["run"], means["value"], strict=True):
        assert _row(t, run, "map")["mean"] == pytest.approx(v, rel=1e-12)
    assert _row(t, BASE, "map")["mean"] == pytest.approx(0.2236, abs=5e-5)      # trec_eval's map
    m = np.concatenate([registry.score_matrix(clef, "AP"), np.zeros((30, 1))], axis=1)   # the 66th topic scores 0
    i, b = list(clef.run_ids).index("ECNU_EN_Run.3"), list(clef.run_ids).index(BASE)
    assert _row(t, "ECNU_EN_Run.3", "map")["p_value"] == pytest.approx(plain_p(m[i], m[b], "t"), rel=1e-9)
    assert "map: 66 topics (trec_eval)" in r.legend() and "AP: 65 topics (ntcireval)" in r.legend()


@pytest.mark.slow
def test_ranx_t_test_p_values_agree(clef2015):
    """ranx.compare(..., stat_test="student") on clef2015's map (ranx is optional: skipped without it). ranx
    scores map itself (its per-topic AP differs from trec_eval's where documents tie on score: ranx's map of
    CUNI_EN_Run.2 is 0.22343, trec_eval's 0.22358), so evalcore.compare is given ranx's own per-topic
    scores: the p-values must then be the same paired t-test."""
    ranx = pytest.importorskip("ranx")
    import gzip
    from collections import defaultdict

    q: dict = defaultdict(dict)
    for line in (clef2015 / "qrels.txt").read_text().splitlines():
        a = line.split()
        q[a[0]][a[2]] = int(a[3])
    qrels = ranx.Qrels.from_dict(dict(q))
    runs = []
    for f in sorted((clef2015 / "runs").glob("*.dat.gz")):
        r: dict = defaultdict(dict)
        for line in gzip.open(f, "rt"):
            a = line.split()
            r[a[0]][a[2]] = float(a[4])
        runs.append(ranx.Run.from_dict(dict(r), name=f.name.removesuffix(".dat.gz")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ranx.compare(qrels=qrels, runs=runs, metrics=["map"], stat_test="student", max_p=0.05,
                           make_comparable=True).to_dict()
    topics = sorted(q)
    M = np.array([[run.scores["map"][t] for t in topics] for run in runs])
    names = [run.name for run in runs]
    ours = evalcore.compare({"map": M}, run_ids=names, correction="none", topics="trec_eval")
    assert [_row(ours.table, n, "map")["mean"] for n in names] == pytest.approx(
        [rep[n]["scores"]["map"] for n in names], rel=1e-9)
    got = ours.pairs
    assert len(got) == 435
    for x, y, p in got[["run_x", "run_y", "p_value"]].itertuples(index=False):
        assert rep[x]["comparisons"][y]["map"] == pytest.approx(p, rel=1e-9, abs=1e-12), (x, y)


# -- letters on a hand-made collection ---------------------------------------------------------------
@pytest.fixture(scope="module")
def handmade(tmp_path_factory):
    """10 topics, one relevant document each. RR by construction: A finds it at rank 1 (RR 1), B and C at
    rank 2 (0.5; identical runs), D never (0). Every difference is a constant over topics except B = C."""
    d = tmp_path_factory.mktemp("handmade")
    topics = [f"t{k}" for k in range(10)]
    (d / "qrels.txt").write_text("".join(f"{t} 0 rel-{t} 1\n{t} 0 non-{t} 0\n" for t in topics))
    runs = d / "runs"
    runs.mkdir()

    def write(name, docs_of):
        lines = []
        for t in topics:
            for rank, doc in enumerate(docs_of(t), 1):
                lines.append(f"{t} Q0 {doc} {rank} {10 - rank} {name}\n")
        (runs / name).write_text("".join(lines))

    write("A", lambda t: [f"rel-{t}", f"non-{t}"])
    write("B", lambda t: [f"non-{t}", f"rel-{t}"])
    write("C", lambda t: [f"non-{t}", f"rel-{t}"])
    write("D", lambda t: [f"non-{t}", f"x-{t}"])
    return evalcore.load_collection(d / "qrels.txt", runs)


@pytest.mark.parametrize("test", ["t", "sign"])
def test_letters_known_by_construction(handmade, test):
    r = evalcore.compare(handmade, ["RR"], test=test, correction="holm")
    assert r.labels == {"A": "a", "B": "b", "C": "c", "D": "d"}
    t = r.to_dataframe().set_index("run")
    assert t["mean"].tolist() == pytest.approx([1.0, 0.5, 0.5, 0.0])
    assert t["better_than"].to_dict() == {"A": "bcd", "B": "d", "C": "d", "D": ""}
    assert t["n_worse_than"].to_dict() == {"A": 0, "B": 1, "C": 1, "D": 3}
    if test == "sign":          # 10 wins of 10: p = 2 / 2^10; Holm over 6 pairs (B = C has p = 1)
        p = r.pairs.set_index(["run_x", "run_y"])
        assert p.loc[("A", "B"), "p_value"] == pytest.approx(2 / 1024)
        assert p.loc[("A", "B"), "p_adjusted"] == pytest.approx(6 * 2 / 1024)
        assert p.loc[("B", "C"), "p_value"] == 1.0
    md = r.to_markdown()
    assert "| a | A | **1.0000**<sup>bcd</sup> |" in md and "| d | D | 0.0000 |" in md
    assert r"\textbf{1.0000}$^{bcd}$" in r.to_latex()


def test_baseline_marks_gain_and_loss_by_construction(handmade):
    r = evalcore.compare(handmade, ["RR"], baseline="B", test="t", correction="holm")
    t = r.to_dataframe().set_index("run")
    assert t["mark"].to_dict() == {"A": "\u25b2", "B": "", "C": "", "D": "\u25bc"}
    assert t.loc["A", ["better", "worse"]].tolist() == [10, 0]
    assert t.loc["C", ["better", "worse"]].tolist() == [0, 0]
    assert t.loc["D", ["better", "worse"]].tolist() == [0, 10]
    assert pd.isna(t.loc["B", "p_value"]) and bool(t.loc["B", "is_baseline"])


# -- output formats ------------------------------------------------------------------------------------
NASTY = "run_1 & co. 50% {x}"


@pytest.fixture(scope="module")
def small_result():
    rng = np.random.default_rng(3)
    base = rng.uniform(0.1, 0.6, size=(1, 25))
    M = np.vstack([base, base + 0.1 + rng.normal(0, 0.02, 25), base + rng.normal(0, 0.05, 25)])
    N = np.vstack([base, base - 0.1 + rng.normal(0, 0.02, 25), base + 0.01])
    return evalcore.compare({"AP": M, "nDCG@10": N}, run_ids=["bm25", NASTY, "rm3|x"], baseline="bm25",
                            correction="holm"), M, N


def _split_cells(line: str) -> list[str]:
    """Cells of a LaTeX row: split at & not escaped as \\&, trailing \\\\ removed."""
    assert line.endswith(r" \\"), line
    return [c.strip() for c in re.split(r"(?<!\\)&", line[:-3])]


def test_latex_is_a_booktabs_tabular_with_escaped_names_bold_best_and_marks(small_result):
    r, M, N = small_result
    tex = r.to_latex(details=True)
    lines = tex.strip().splitlines()
    assert lines[0].startswith("% ")            # the legend
    spec = re.fullmatch(r"\\begin\{tabular\}\{([lr]+)\}", lines[1]).group(1)
    assert spec == "l" + "r" * 10                # run + 2 metrics x (mean, p, +/-, effect size, CI)
    assert lines[2] == r"\toprule" and lines[-2] == r"\bottomrule" and lines[-1] == r"\end{tabular}"
    mid = lines.index(r"\midrule")
    head = lines[3:mid]
    # a bare nDCG@10 is read as evalcore's (Jarvelin-Kekalainen's), and its label says so
    assert head[0] == r" & \multicolumn{5}{c}{AP} & \multicolumn{5}{c}{nDCG@10 (JK)} \\"
    assert head[1] == r"\cmidrule(lr){2-6} \cmidrule(lr){7-11}"
    assert _split_cells(head[2]) == ["run", "mean", "p (Holm)", "+/-", "effect size", r"95\% CI"] + \
        ["mean", "p (Holm)", "+/-", "effect size", r"95\% CI"]
    body = [_split_cells(x) for x in lines[mid + 1:-2]]
    assert len(body) == 3 and all(len(row) == len(spec) for row in body)
    # the bar in math mode: the default OT1 text font draws a text | as an em dash
    assert body[1][0] == r"run\_1 \& co. 50\% \{x\}" and body[2][0] == "rm3$|$x"
    assert body[0][0] == "bm25 (baseline)"
    # run 2 is 0.1 above the baseline on AP on every topic: best (bold) and a significant gain
    assert body[1][1] == rf"\textbf{{{M[1].mean():.4f}}}$^{{\blacktriangle}}$"
    assert body[1][6] == rf"{N[1].mean():.4f}$^{{\blacktriangledown}}$"
    assert body[1][3] == "25/0" and body[1][8] == "0/25"
    assert r.to_latex(details=True, environment=True, label="tab:x").splitlines()[:4] == \
        [r"\begin{table}", r"\centering", r"\caption{" + lines[0][2:] + "}", r"\label{tab:x}"]
    # the legend names the columns its table has: p and +/- with them, not under the compact table's means alone
    assert "p = Holm-adjusted p-value; +/- = topics" in lines[0]
    compact = r.to_latex().splitlines()[0]
    assert "+/-" not in compact and "p = " not in compact and "significant gain" in compact


def test_markdown_renders_as_a_table(small_result):
    from markdown_it import MarkdownIt

    r, M, N = small_result
    md = r.to_markdown()
    tokens = MarkdownIt("commonmark").enable("table").parse(md)
    kinds = [t.type for t in tokens]
    assert kinds.count("table_open") == 1
    ths = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "th_open"]
    assert ths == ["run", "AP", "AP p (Holm)", "AP +/-", "nDCG@10 (JK)", "nDCG@10 (JK) p (Holm)", "nDCG@10 (JK) +/-"]
    rows, cur = [], None
    for i, t in enumerate(tokens):
        if t.type == "tr_open":
            cur = []
        elif t.type == "td_open":
            cur.append(tokens[i + 1].children)
        elif t.type == "tr_close" and cur is not None and cur:
            rows.append(cur)
    text = [["".join(c.content for c in cell) for cell in row] for row in rows]
    assert [row[0] for row in text] == ["bm25 (baseline)", NASTY, "rm3|x"]      # escapes undone by the renderer
    assert text[1][1] == f"{M[1].mean():.4f}\u25b2" and text[1][3] == "25/0"
    assert any(c.type == "strong_open" for c in rows[1][0 + 1])                  # best AP mean in bold
    assert "Holm correction over the 2 comparisons per metric" in md and "25 topics" in md


def test_csv_and_wide_dataframe(small_result):
    r, M, N = small_result
    rows = list(csv.DictReader(io.StringIO(r.to_csv())))
    assert len(rows) == 6 and rows[0]["test"] == "t" and rows[0]["correction"] == "holm"
    one = next(x for x in rows if x["run"] == NASTY and x["metric"] == "AP")
    assert float(one["p_value"]) == pytest.approx(stats.ttest_rel(M[1], M[0]).pvalue, rel=1e-9)
    assert float(one["ci_low"]) < 0.1 < float(one["ci_high"])
    tsv = r.to_csv(sep="\t").splitlines()
    assert tsv[0].split("\t")[:4] == ["run", "metric", "metric_label", "test"]
    assert {x["metric_label"] for x in rows} == {"AP", "nDCG@10 (JK)"}
    w = r.to_dataframe(wide=True)
    assert list(w.index) == ["bm25", NASTY, "rm3|x"]
    assert w[("AP", "mean")][NASTY] == pytest.approx(M[1].mean())


def test_written_atomically(small_result, tmp_path):
    r, _, _ = small_result
    p = tmp_path / "t.tex"
    text = r.write("latex", p)
    assert p.read_text() == text
    with pytest.raises(ValueError, match="md, csv, tsv, latex"):
        r.write("html")


# -- errors ------------------------------------------------------------------------------------------
def test_clear_errors_name_the_choices(handmade):
    with pytest.raises(ValueError, match="unknown baseline 'Z'; the runs are: A, B, C, D"):
        evalcore.compare(handmade, ["RR"], baseline="Z")
    with pytest.raises(ValueError, match="test must be one of t, wilcoxon, sign, randomisation, bootstrap"):
        evalcore.compare(handmade, ["RR"], test="ttest")
    with pytest.raises(ValueError, match="correction must be one of none, bonferroni, holm, bh"):
        evalcore.compare(handmade, ["RR"], correction="fdr")
    with pytest.raises(ValueError, match="unknown metric 'RRR'"):
        evalcore.compare(handmade, ["RRR"])
    with pytest.raises(ValueError, match="unknown metric 'X'; the scores given hold: AP"):
        evalcore.compare({"AP": np.ones((2, 3))}, ["X"], run_ids=["a", "b"])
    with pytest.raises(ValueError, match="run_ids is needed"):
        evalcore.compare({"AP": np.ones((2, 3))})
    with pytest.raises(ValueError, match="run 'b' has no finite score on 1 topic"):
        evalcore.compare({"AP": np.array([[1.0, 2, 3], [1, np.nan, 3]])}, run_ids=["a", "b"])
    with pytest.raises(ValueError, match="name the metrics"):
        evalcore.compare(handmade)
    with pytest.raises(ValueError, match="alpha must be"):
        evalcore.compare(handmade, ["RR"], alpha=5)


def test_reused_pair_statistics_give_the_same_table(handmade):
    from evalcore.meta import pair_statistics

    M = registry.score_matrix(handmade, "RR")
    pr = pair_statistics({"RR": M}, run_ids=list(handmade.run_ids), tests=("t",))
    a = evalcore.compare({"RR": M}, run_ids=list(handmade.run_ids), baseline="B", pairs=pr).to_dataframe()
    b = evalcore.compare(handmade, ["RR"], baseline="B").to_dataframe()
    pd.testing.assert_frame_equal(a.drop(columns="topic_policy"), b.drop(columns="topic_policy"))
    with pytest.raises(ValueError, match="does not hold the 'wilcoxon' test"):
        evalcore.compare({"RR": M}, run_ids=list(handmade.run_ids), test="wilcoxon", pairs=pr)


def test_evalcore_compare_is_the_function_after_importing_its_module():
    """The function lives in evalcore.comparison, so importing that module cannot shadow evalcore.compare."""
    code = ("import evalcore.comparison, evalcore, numpy as np\n"
            "from evalcore.comparison import CompareResult\n"
            "r = evalcore.compare({'AP': np.array([[1., 2, 3], [0, 1, 1]])}, run_ids=['x', 'y'])\n"
            "print(isinstance(r, CompareResult), r.labels, evalcore.compare is evalcore.comparison.compare)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True {'x': 'a', 'y': 'b'} True"


# -- command line ----------------------------------------------------------------------------------------
def test_cli_csv_values_equal_scipy(clef2015, clef, capsys):
    runs = list(clef.run_ids)
    M = registry.score_matrix(clef, "AP")
    b = runs.index(BASE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["compare", "--qrels", str(clef2015 / "qrels.txt"), "--runs", str(clef2015 / "runs"),
                     "-m", "AP", "-m", "P@10", "--baseline", BASE, "--correction", "bonferroni",
                     "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {x["metric"] for x in rows} == {"AP", "P@10"} and len(rows) == 60
    ap_rows = [x for x in rows if x["metric"] == "AP" and x["run"] != BASE]
    ref = [plain_p(M[runs.index(x["run"])], M[b], "t") for x in ap_rows]
    assert [float(x["p_value"]) for x in ap_rows] == pytest.approx(ref, rel=1e-9)
    assert [float(x["p_adjusted"]) for x in ap_rows] == pytest.approx(plain_bonferroni(ref), rel=1e-9)
    assert {x["n_topics"] for x in rows} == {"65"} and {x["topic_policy"] for x in rows} == {"ntcireval"}


def test_cli_latex_to_file_with_trec_eval_topics(clef2015, tmp_path, capsys):
    out = tmp_path / "table.tex"
    assert main(["compare", "--qrels", str(clef2015 / "qrels.txt"), "--runs", str(clef2015 / "runs"),
                 "-m", "map", "--topics", "trec_eval", "--test", "wilcoxon", "--format", "latex",
                 "--out", str(out)]) == 0
    tex = out.read_text()
    assert r"\toprule" in tex and "66 topics (trec\\_eval's topics" in tex
    assert r"Wilcoxon signed-rank test between every two runs, Holm correction over the 435 pairs" in tex
    assert "CUNI\\_EN\\_Run.2" in tex and capsys.readouterr().out == ""


def test_cli_errors(clef2015, capsys, tmp_path):
    base = ["compare", "--qrels", str(clef2015 / "qrels.txt"), "--runs", str(clef2015 / "runs")]
    assert main(base + ["-m", "map", "--baseline", "nope"]) == 2
    assert "unknown baseline 'nope'; the runs are: CUNI_EN_Run.2" in capsys.readouterr().err
    assert main(base) == 2
    assert "-m KEY" in capsys.readouterr().err
    assert main(base + ["-m", "map", "--out", str(tmp_path / "no" / "t.md")]) == 2
    assert "no such directory" in capsys.readouterr().err


def test_docs_example_is_what_compare_prints(clef2015):
    runs = clef2015 / "runs"
    c = evalcore.load_collection(clef2015 / "qrels.txt", [runs / f"{n}.dat.gz" for n in
                                 ("CUNI_EN_Run.2", "ECNU_EN_Run.3", "ECNU_EN_Run.8", "KISTI_EN_RUN.1")])
    md = evalcore.compare(c, ["map", "P_10"], baseline="CUNI_EN_Run.2").to_markdown()
    doc = (Path(__file__).resolve().parents[1] / "docs" / "significance.md").read_text(encoding="utf-8")
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 6 and "\n".join(table) in doc


# -- tables you paste: compact LaTeX, display labels, one escaper, one p format ----------------------------------
def _tabular(tex: str) -> tuple[str, list[list[str]]]:
    """The column spec and the rows (cells split at unescaped &) of a tabular."""
    spec = re.search(r"\\begin\{tabular\}\{([^}]*)\}", tex).group(1)
    body = tex.split("\\toprule\n", 1)[1].split("\\bottomrule", 1)[0]
    rows = [re.split(r"(?<!\\)&", ln.removesuffix(r" \\")) for ln in body.splitlines()
            if ln.endswith(r" \\")]
    return spec, rows


def _balanced(tex: str) -> bool:
    depth = 0
    for i, ch in enumerate(tex):
        if ch in "{}" and (i == 0 or tex[i - 1] != "\\"):
            depth += 1 if ch == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def latex_example() -> tuple[dict[str, np.ndarray], list[str]]:
    """Five metrics (peer names) of three runs over 30 topics, run names full of LaTeX's special characters;
    the second run clearly better than the baseline (tests/test_latex_compile.py compiles the same tables)."""
    rng = np.random.default_rng(4)
    base = rng.uniform(0.2, 0.6, 30)
    mats = {k: np.vstack([base, base + 0.15 + rng.normal(0, 0.02, 30), base + rng.normal(0, 0.05, 30)])
            for k in ("ndcg_cut_10", "map", "P_10", "recip_rank", "Q-measure")}
    return mats, ["bm25", "a_b&c%#", "x^y~{z}"]


def test_compact_latex_has_one_column_per_metric_with_labels_and_escaped_names():
    mats, runs = latex_example()
    r = evalcore.compare(mats, run_ids=runs, baseline="bm25")
    tex = r.to_latex(labels={"Q-measure": "Q (β=1)"})
    spec, rows = _tabular(tex)
    assert spec == "l" + "r" * 5 and all(len(row) == 6 for row in rows)          # metrics + 1, not 16
    assert [c.strip() for c in rows[0]] == ["run", "MSnDCG@10", "AP", "P@10", "RR", "Q (β=1)"]
    assert "ndcg\\_cut" not in tex and r"a\_b\&c\%\#" in tex and r"x\textasciicircum{}y\textasciitilde{}\{z\}" in tex
    assert rows[2][1].strip().endswith(r"$^{\blacktriangle}$")                  # +0.15 on 30 topics: a gain
    assert _balanced(tex)
    with pytest.raises(ValueError, match="labels name metrics that are not in the table: nDCG"):
        r.to_latex(labels={"nDCG": "x"})
    # effect sizes and CIs: one option away; p-values in the one format
    spec, rows = _tabular(r.to_latex(details=True))
    assert len(spec) == 1 + 5 * 5 and all(len(row) == len(spec) for row in rows[1:])
    p = r.table.set_index(["run", "metric"]).loc[("x^y~{z}", "map"), "p_adjusted"]
    assert rows[-1][7].strip() == ("$<$ 0.001" if p < 0.001 else f"{p:.3g}")
    assert rows[3][2].strip() == "$<$ 0.001"                                      # the clear gain
    # compiled with pdflatex in tests/test_latex_compile.py (slow; where pdflatex is installed)


def test_one_escaper_and_one_p_format_in_every_table():
    from evalcore import texfmt
    from evalcore.report import tables

    assert tables.tex_escape is texfmt.tex_escape
    df = pd.DataFrame({"run": ["r<1>_a"], "p_value": [3.2e-9], "p_adjusted": [0.0123456], "mean_diff": [0.1]})
    tex = tables.to_latex(df, "p < 0.05", "tab:x", index=False)
    assert r"r\textless{}1\textgreater{}\_a" in tex and r"p \textless{} 0.05" in tex
    assert "$<$ 0.001 & 0.0123 & 0.1000" in tex                                 # not 0.0000 or 3.2e-09


def test_cli_compare_labels_and_full_layout(clef2015, capsys):
    base = ["compare", "--qrels", str(clef2015 / "qrels.txt"), "--runs", str(clef2015 / "runs"), "-m", "map",
            "-m", "ndcg_cut_10", "--baseline", "CUNI_EN_Run.2", "--format", "latex"]
    assert main(base + ["--label", "ndcg_cut_10=nDCG@10"]) == 0
    spec, rows = _tabular(capsys.readouterr().out)
    assert spec == "lrr" and [c.strip() for c in rows[0]] == ["run", "AP", "nDCG@10"]
    assert main(base + ["--full"]) == 0
    spec, rows = _tabular(capsys.readouterr().out)
    assert spec == "l" + "r" * 6
    assert main(base + ["--label", "nolabel"]) == 2
    assert "--label takes KEY=TEXT" in capsys.readouterr().err
