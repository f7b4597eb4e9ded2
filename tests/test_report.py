"""The `report` command on clef2015, a simulated 5-level collection and a 3-run collection;
CLI repetitions and claims; small-input edge cases (kendall with 1 run, LaTeX header)."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.report.tables import to_latex

FAST = ["--B", "40", "--tukey-B", "60", "--repeats", "2", "--topic-resamples", "6", "--topic-B", "30", "--quiet"]


def write_collection(root, *, K, n_runs, n_topics=8, n_docs=30, seed=0):
    """TREC qrels with labels 0..K (every level present) and n_runs run files, in root/."""
    rng = np.random.default_rng(seed)
    root.mkdir(parents=True)
    (root / "runs").mkdir()
    q = []
    labels = {}
    for t in range(1, n_topics + 1):
        lab = rng.integers(0, K + 1, size=n_docs)
        lab[0], lab[1] = K, 1
        for d, L in enumerate(lab):
            q.append(f"{t} 0 d{t}-{d} {L}")
            labels[(t, d)] = L
    (root / "qrels.txt").write_text("\n".join(q) + "\n")
    for r in range(n_runs):
        lines = []
        for t in range(1, n_topics + 1):
            score = np.array([labels[(t, d)] for d in range(n_docs)]) * (0.2 + 0.15 * r) + rng.random(n_docs)
            for rank, d in enumerate(np.argsort(-score)[:20], start=1):
                lines.append(f"{t} Q0 d{t}-{d} {rank} {20 - rank}.5 run{r}")
        (root / "runs" / f"run{r}.txt").write_text("\n".join(lines) + "\n")
    return root / "qrels.txt", root / "runs"


def _report(tmp_path, qrels, runs, *extra):
    out = tmp_path / "out"
    assert main(["report", "--qrels", str(qrels), "--runs", str(runs), "--out", str(out), *FAST, *extra]) == 0
    return out, (out / "report.md").read_text(encoding="utf-8")


def _section(md, title):
    return md.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


STEMS = ["table2_kendall", "table3_swap", "table4_bootstrap", "table5_gains", "table6_gain_bootstrap", "tukey"]


def test_report_five_levels(tmp_path):
    q, r = write_collection(tmp_path / "coll5", K=5, n_runs=6)
    out, md = _report(tmp_path, q, r)
    assert md.startswith("# Reproducing Sakai 2007 (003) Sec. 5 on coll5")
    # levels 0-5 as the Data page counts them: 6 in all, 5 relevant
    assert "6 relevance levels (0-5; 5 relevant" in md and "gains 5:4:3:2:1" in md and "NWRR penalties 2:3:4:5:6" in md
    t5 = _section(md, "Table 5")
    header = t5.split("\n")[4]                # under the title and the caption, which report.md now carries
    assert header == "| metric | 50:40:30:20:10 | 0.5:0.4:0.3:0.2:0.1 | 1:1:1:1:1 | 20:15:10:5:1 |"
    assert "default gain values (5:4:3:2:1)" in t5
    t6 = _section(md, "Table 6")
    fams = [line.split("|")[1].strip().split(" ")[0] for line in t6.splitlines() if line.startswith(("| P", "| O"))]
    assert fams == ["P+"] * 5 + ["P"] * 5 + ["O"] * 5                     # 003 Table 6 family order
    assert "| P+ 5:4:3:2:1 (default) |" in t6
    for stem in STEMS:
        assert (out / f"{stem}.csv").is_file() and (out / f"{stem}.tex").is_file()
    tex = (out / "table2_kendall.tex").read_text()
    assert "\\toprule\nmetric & (b)" in tex and "index" not in tex


def test_every_finding_of_the_report_carries_a_verdict_from_its_numbers(tmp_path):
    out = tmp_path / "out"         # the built-in simulated data: 3 levels, runs whose rankings differ by metric
    assert main(["report", "--simulated", "--topics", "20", "--systems", "8", "--out", str(out), *FAST]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    bullets = [b for b in _section(md, "Comparison with the paper's findings").splitlines() if b.startswith("- **")]
    assert len(bullets) == 5
    for b in bullets:
        assert re.search(r"\b(agrees|differs|cannot be checked|holds strictly in)\b", b), b[:120]
    # Absolute levels: each metric's verdict follows from Table 4's mean and 003's range (12-57 % for RR,
    # 31-70 % for Q-measure): inside agrees, outside agrees only within the topic interval printed with it
    absolute = next(b for b in bullets if b.startswith("- **Absolute levels"))
    t4 = pd.read_csv(out / "table4_bootstrap.csv").set_index("metric")
    for m, (lo, hi) in (("RR", (12, 57)), ("Q-measure", (31, 70))):
        v = float(t4.loc[m, "pct_significant_mean"])
        hit = re.search(rf"{re.escape(m)} {v:.1f}% \({lo}%-{hi}% in 003\): ([a-z ]+):", absolute)
        assert hit, absolute
        outside = ("differs", "agrees within the uncertainty")
        assert hit.group(1) == "agrees" if lo <= v <= hi else hit.group(1) in outside
    # Table 5: both of 003 Sec. 5.5's observations, O-measure's lowest tau read from table5_gains.csv
    gains = next(b for b in bullets if b.startswith("- **Gain values"))
    t5 = pd.read_csv(out / "table5_gains.csv").set_index("metric")
    t5 = t5[["30:20:10", "0.3:0.2:0.1", "1:1:1", "10:5:1"]].min(axis=1)
    assert f"O-measure's lowest tau {t5['O-measure']:.3f}" in gains
    holds = t5["O-measure"] < min(t5["P+-measure"], t5["P-measure"])
    assert ("O-measure may be less robust than P(+)-measure (003: O-measure's lowest tau below both in all four "
            f"data sets) - {'agrees' if holds else 'differs'}") in gains


def test_report_three_runs_honest(tmp_path):
    q, r = write_collection(tmp_path / "tiny", K=3, n_runs=3)
    out, md = _report(tmp_path, q, r)
    assert "3 of 3 runs, 3 run pairs" in md and "gains 3:2:1" in md and "penalties 2:3:4" in md
    t2 = _section(md, "Table 2")
    assert "no correlation here can be significant" in t2 and "°" not in t2
    crit = float(re.search(r"would need \|tau\| > ([\d.]+)", t2).group(1))
    assert crit > 1
    # Table 3 rows are sorted by the last column (mean over repetitions), as 003 does
    t3 = pd.read_csv(out / "table3_swap.csv")
    p = t3["pct_comparisons_mean"].fillna(-1).tolist()
    assert p == sorted(p, reverse=True)


def test_report_name_option_and_bad_values(tmp_path, capsys):
    q, r = write_collection(tmp_path / "c", K=2, n_runs=4)
    _, md = _report(tmp_path, q, r, "--name", "My test collection")
    assert "on My test collection" in md and "gains 2:1" in md
    assert main(["report", "--qrels", str(q), "--runs", str(r), "--out", str(tmp_path / "o2"), "--repeats", "0"]) == 2
    assert "--repeats must be >= 1" in capsys.readouterr().err


@pytest.mark.slow
def test_report_clef2015(tmp_path, clef2015):
    out, md = _report(tmp_path, clef2015 / "qrels.txt", clef2015 / "runs")
    assert "on clef2015" in md and "3 relevance levels (0-2; 2 relevant)" in md and "gains 2:1" in md
    assert "CLEF eHealth" not in md
    assert re.search(r"RR [\d.]+% \(12%-57% in 003\): (agrees|differs)", md)
    t2 = pd.read_csv(out / "table2_kendall.csv")
    # the table's columns, then the conventions that shaped every number (gains, penalties, ..., mean)
    assert t2.columns.tolist()[:7] == ["metric", "(b)", "(c)", "(d)", "(e)", "(f)", "(g)"]
    assert t2.columns.tolist()[7:] == ["gains", "penalties", "beta", "rel_threshold", "depth", "order", "condensed",
                                       "topics", "mean"]
    assert t2["metric"].tolist()[0] == "(a) RR" and t2["metric"].tolist()[-1] == "(g) Q-measure"


# -- meta CLI -------------------------------------------------------------------------
def test_cli_repeats_and_claims(capsys):
    argv = ["swap", "--simulated", "--topics", "15", "--systems", "6", "--metrics", "AP", "RR", "--B", "50",
            "--repeats", "3", "--claim", "AP,RR", "--output", "json"]
    assert main(argv) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == a                     # same seed, same numbers
    assert a["settings"]["repeats"] == 3 and len(a["settings"]["seeds"]) == 3 and a["settings"]["seeds"][0] == 0
    per = pd.DataFrame(a["repeats"])
    assert sorted(per["repeat"].unique()) == [0, 1, 2]
    per = per[per.confidence == 0.95]                                   # the claim is read at the first level
    sp = pd.DataFrame(a["spread"])
    sp = sp[sp.confidence == 0.95].set_index(["metric", "figure"])
    v = per[per.metric == "AP"]["max_performance"].to_numpy()
    assert sp.loc[("AP", "max_performance"), "mean"] == pytest.approx(v.mean())
    assert sp.loc[("AP", "max_performance"), "sd"] == pytest.approx(v.std(ddof=1))
    (claim,) = a["claims"]
    w = per.pivot(index="repeat", columns="metric", values="pct_comparisons")
    assert claim["claim"] == "AP >= RR" and claim["share"] == pytest.approx(float((w["AP"] >= w["RR"]).mean()))


def test_cli_tsv_spread_default_with_repeats(capsys):
    assert main(["tukey", "--simulated", "--topics", "10", "--systems", "5", "--metrics", "AP", "--B", "50",
                 "--repeats", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "metric\talpha\tfigure\tmean\tsd\tmin\tmax\tn\ttopics"


def test_kendall_one_run_message(capsys):
    assert main(["kendall", "--simulated", "--systems", "1", "--topics", "5"]) == 2
    err = capsys.readouterr().err
    assert "needs at least 2 runs" in err and "shape" not in err


def test_latex_unnamed_index_header_is_empty():
    tau = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["AP", "RR"], columns=["AP", "RR"])
    tex = to_latex(tau, "Kendall", "tab:k")
    assert "index" not in tex and "\\midrule" in tex and " & AP & RR \\\\" in tex
    from dashboard.report import bundle
    assert "index" not in bundle({"kendall_metrics": (tau, "Kendall")}, {})["tables.tex"].decode()


def test_spread_bars_figure():
    from evalcore.figures import spread_bars
    from evalcore.meta.repeat import repeat
    rng = np.random.default_rng(0)
    S = {"A": rng.random((5, 12)) + np.arange(5)[:, None] * 0.2, "B": rng.random((5, 12))}
    r = repeat("bootstrap", S, repeats=3, B=50, seed=1)
    t = r.table("pct_significant", alpha=0.05).reset_index()
    fig = spread_bars(t, y_title="% pairs significant", percent=True)
    bar, rng_line = fig.data
    want = t.sort_values("mean", ascending=False)
    assert list(bar.x) == want["metric"].tolist() and list(bar.y) == pytest.approx(want["mean"].tolist())
    assert list(bar.error_y.array) == pytest.approx(want["sd"].fillna(0).tolist())
    ys = np.asarray(rng_line.y, dtype=float).reshape(-1, 3)
    assert ys[:, 0].tolist() == want["min"].tolist() and ys[:, 1].tolist() == want["max"].tolist()


@pytest.mark.parametrize("K,labels", [(1, ("gains 1 (L1=1),", "penalties 2 (L1=2;")), (9, ("gains 9:8:7:6:5:4:3:2:1",
                                                                            "penalties 2:3:4:5:6:7:8:9:10"))])
def test_report_one_and_nine_levels(tmp_path, K, labels):
    q, r = write_collection(tmp_path / f"k{K}", K=K, n_runs=4, n_topics=6)
    _, md = _report(tmp_path, q, r)
    assert f"{K + 1} relevance levels (0-{K}; {K} relevant" in md and all(lab in md for lab in labels)
    if K == 1:                                   # presets that coincide on one level are left out, and said so
        assert "Left out: 1:1:1 (on 1 level it is 1, the same values as default)" in md


def test_every_repetition_seed_report_md_prints_reruns_that_repetition(tmp_path, capsys):
    """report.md lists the repetition seeds; each, given back as `bootstrap --seed S` on the same data and
    settings, gives that repetition's numbers: the report's min, max, mean and sd over repetitions of Table 4's
    estimated difference (a continuous figure, so each repetition is told apart) are those of the reruns."""
    sim = ["--simulated", "--topics", "12", "--systems", "5"]
    out = tmp_path / "out"
    assert main(["report", *sim, "--out", str(out), "--B", "60", "--tukey-B", "60", "--repeats", "3",
                 "--topic-resamples", "0", "--quiet"]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    seeds = [int(s) for s in re.search(r"repetition seeds ([\d, ]+)\)", md).group(1).split(", ")]
    assert len(seeds) == 3 and seeds[0] == 0 and all(0 <= s <= 2**32 - 1 for s in seeds)
    capsys.readouterr()
    reruns = []
    for s in seeds:
        assert main(["bootstrap", *sim, "--B", "60", "--alpha", "0.05", "0.01", "--seed", str(s),
                     "--output", "json"]) == 0, capsys.readouterr().err
        summ = pd.DataFrame(json.loads(capsys.readouterr().out)["summary"])
        reruns.append(summ[summ.alpha == 0.05].set_index("metric")["estimated_diff_raw"])
    v = pd.concat(reruns, axis=1)
    t4 = pd.read_csv(out / "table4_bootstrap.csv").set_index("metric")
    for m in t4.index:
        x = v.loc[m].to_numpy()
        assert t4.loc[m, "estimated_diff_raw_min"] == pytest.approx(x.min(), rel=1e-12)
        assert t4.loc[m, "estimated_diff_raw_max"] == pytest.approx(x.max(), rel=1e-12)
        assert t4.loc[m, "estimated_diff_raw_mean"] == pytest.approx(x.mean(), rel=1e-12)
        assert t4.loc[m, "estimated_diff_raw_sd"] == pytest.approx(x.std(ddof=1), rel=1e-9)
    assert v.nunique(axis=1).max() == 3                 # the three repetitions differ: each is told apart


def _direction(pairs):
    """'higher' / 'lower' / 'mixed' from (value, reference) pairs, by a plain loop."""
    signs = {int(v > r) - int(v < r) if abs(v - r) > 1e-9 else 0 for v, r in pairs if not (np.isnan(v) or np.isnan(r))}
    return {frozenset({1}): "higher", frozenset({-1}): "lower", frozenset({1, 0}): "higher or equal",
            frozenset({-1, 0}): "lower or equal", frozenset({0}): "equal"}.get(frozenset(signs), "mixed")


def test_level_sentence_follows_the_data_in_both_directions():
    from evalcore.report.cells import level_text

    up = level_text({"m": {"A": (30.0, 20.0), "B": (12.0, 10.0)}}, str, "the means here", "Tables 3-4's")
    down = level_text({"m": {"A": (10.0, 20.0), "B": (8.0, 10.0)}}, str, "the means here", "Tables 3-4's")
    mixed = level_text({"m": {"A": (30.0, 20.0), "B": (8.0, 10.0)}}, str, "the means here", "Tables 3-4's")
    tie = level_text({"m": {"A": (30.0, 20.0), "B": (10.0, 10.0)}}, str, "the means here", "Tables 3-4's")
    assert tie.startswith("The means here run higher than or equal to Tables 3-4's, never lower")
    assert "1 of 2 equal" in tie
    assert up.startswith("The means here run higher than Tables 3-4's") and "2 of 2 higher, by up to 10.0" in up
    assert down.startswith("The means here run lower than Tables 3-4's") and "2 of 2 lower, by up to 10.0" in down
    assert mixed.startswith("The means here do not run one way")
    assert "1 of 2 higher" in mixed and "1 of 2 lower" in mixed


def test_table7_sentence_and_intervals_are_computed_from_the_report_numbers(tmp_path):
    """On a 5-level collection: Table 7's sentence on where its means run is the direction of its own CSV against
    Tables 3, 4 and Tukey's CSV means (no fixed "run higher"), and every interval end of a share of P pairs is a
    share of P pairs (k / P)."""
    q, r = write_collection(tmp_path / "coll5", K=5, n_runs=5, n_topics=10)
    out, md = _report(tmp_path, q, r)
    t7 = pd.read_csv(out / "table7_topic_uncertainty.csv").set_index("metric")
    ref = {"swap": (pd.read_csv(out / "table3_swap.csv").set_index("metric"), "pct_comparisons_mean"),
           "bootstrap": (pd.read_csv(out / "table4_bootstrap.csv").set_index("metric"), "pct_significant_mean"),
           "tukey": (pd.read_csv(out / "tukey.csv").set_index("metric"), "pct_significant_mean")}
    fig = {"swap": "pct_comparisons", "bootstrap": "pct_significant", "tukey": "pct_significant"}
    pairs = [(t7.loc[m, f"{k}_{fig[k]}_mean"], ref[k][0].loc[m, ref[k][1]]) for k in ref for m in t7.index]
    want = _direction(pairs)
    sec = _section(md, "Table 7")
    # what its brackets are, in report.md itself (Tables 3-6 use brackets for a min-max over seeds)
    assert "*Discriminative power over topic samples" in sec and "[2.5–97.5 percentiles" in sec
    assert "the [brackets] are the 2.5-97.5 percentiles over them, not a min-max" in md
    lead = {"higher": "The means here run higher than", "lower": "The means here run lower than",
            "higher or equal": "The means here run higher than or equal to",
            "lower or equal": "The means here run lower than or equal to", "equal": "The means here equal",
            "mixed": "The means here do not run one way against"}[want]
    assert lead in sec, (want, sec)
    assert "here run higher than Tables 3-4's: a sample" not in md                 # the old fixed sentence
    P = 10                                                                        # 5 runs
    for k in ("bootstrap", "tukey"):
        for end in ("lo", "hi"):
            v = t7[f"{k}_pct_significant_{end}"].dropna().to_numpy() * P / 100
            assert np.allclose(v, np.round(v), atol=1e-9), (k, end, v)
