"""Gains, the metric registry, evaluate()'s tidy output and the evaluate CLI."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import evalcore
from evalcore import registry
from evalcore.cli import main
from evalcore.gains import resolve_gains, resolve_penalties


# -- gains and penalties ------------------------------------------------------
@pytest.mark.parametrize("preset,K,expected", [
    ("3:2:1", 3, [1, 2, 3]),
    ("30:20:10", 3, [10, 20, 30]),
    ("0.3:0.2:0.1", 3, [0.1, 0.2, 0.3]),
    ("10:5:1", 3, [1, 5, 10]),
    ("2:1.5:1", 3, [1, 1.5, 2]),
    ("10:5:1", 2, [1, 5]),          # fewer levels: the lowest K values
    ("3:2:1", 4, [1, 2, 3, 4]),     # linear presets extend
    ("10:5:1", 4, [1, 5, 10, 15]),  # every preset extends by its top step (map_levels)
    ("1:1:1", 5, [1, 1, 1, 1, 1]),
])
def test_gain_presets_paper_notation(preset, K, expected):
    assert resolve_gains(preset, K).tolist() == pytest.approx(expected)


def test_sequence_gains_are_ascending_and_strings_highest_first():
    assert resolve_gains([1, 5, 10], 3).tolist() == resolve_gains("10:5:1", 3).tolist()


@pytest.mark.parametrize("gains,msg", [
    ([1, 2], "one value for every level 1..3"),
    ([1, 0, 3], "positive for every level 1..3; got 0.0 for level 2"),
    ("10:5:1:0.5", "gives 4 values"),
    ("a:b:c", "numbers separated by ':'"),
    ("9:5:3:1", "give 3 values or a 3-value S:A:B setting"),
])
def test_bad_gains_name_argument(gains, msg):
    K = 3
    with pytest.raises(ValueError, match="gains"):
        resolve_gains(gains, K)
    with pytest.raises(ValueError) as e:
        resolve_gains(gains, K)
    assert msg in str(e.value)


def test_penalties_default_and_validation():
    assert resolve_penalties(None, 3).tolist() == [4, 3, 2]          # S:A:B = 2:3:4
    assert resolve_penalties(None, 2).tolist() == [3, 2]
    with pytest.raises(ValueError, match="penalties must be > 1 for every level 1..3; got 1.0 for level 3"):
        resolve_penalties([4, 3, 1], 3)


# -- registry -------------------------------------------------------------------
def test_parse_and_expand_metric_keys():
    spec, cut = registry.parse_metric("nDCG@10")
    assert spec.key == "nDCG" and cut == 10
    assert registry.expand_metrics(["AP", "nDCG"], (5, 20)) == ["AP", "nDCG@5", "nDCG@20"]
    with pytest.raises(ValueError, match="unknown metric 'MAPX'"):
        registry.parse_metric("MAPX")
    with pytest.raises(ValueError, match="needs a cutoff"):
        registry.parse_metric("nERR")
    with pytest.raises(ValueError, match="takes no cutoff"):
        registry.parse_metric("R-measure@10")


def test_metric_label_is_canonical():
    assert registry.metric_label("Q-measure@100", beta=2) == "Q-measure(beta=2)@100"
    assert registry.metric_label("AP", rel_threshold=2) == "AP(rel>=2)"
    assert registry.metric_label("O-measure", gains="10:5:1") == "O-measure(gains=10:5:1)"
    assert registry.metric_label("RR", gains="10:5:1") == "RR"      # RR ignores gains


def test_evaluate_tidy_frame_and_means():
    c = evalcore.simulated_collection(8, 5, seed=3)
    df = evalcore.evaluate(c, ["AP", "P-measure", "nDCG@10"], per_topic=True, means=True)
    assert list(df.columns) == ["run", "topic", "metric", "value"]
    assert len(df) == 5 * 3 * (8 + 1)
    m = evalcore.score_matrix(c, "P-measure")
    means = df[(df.topic == "all") & (df.metric == "P-measure")].set_index("run").value
    np.testing.assert_allclose(means.loc[list(c.run_ids)].to_numpy(), m.mean(axis=1), rtol=0, atol=1e-15)
    # run by run: the first rows all belong to the first run
    assert set(df.run.iloc[: 3 * 9]) == {c.run_ids[0]}


def test_geometric_mean_uses_floor():
    m = np.array([[0.0, 0.5], [0.25, 0.25]])
    g = registry.topic_means(m, "geometric")
    assert g[0] == pytest.approx(math.sqrt(1e-5 * 0.5))
    assert g[1] == pytest.approx(0.25)


def test_beta_equivalence_via_registry():
    """001: gains 30:20:10 are beta = 10 with gains 3:2:1."""
    c = evalcore.simulated_collection(6, 4, seed=5)
    for key in ("Q-measure", "R-measure", "O-measure", "P-measure", "P+-measure"):
        a = evalcore.score_matrix(c, key, gains="30:20:10")
        b = evalcore.score_matrix(c, key, gains="3:2:1", beta=10)
        np.testing.assert_allclose(a, b, rtol=1e-12)


# -- CLI --------------------------------------------------------------------------
def test_cli_tsv_per_topic_paper_examples(capsys):
    assert main(["evaluate", "--paper-examples", "--metrics", "P-measure", "--per-topic"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run\ttopic\tmetric\tvalue\ttopics\trel_threshold\torder\tdepth\tgains\tmean\tcondensed"
    rows = {(r, t): float(v) for r, t, m, v, *_ in (ln.split("\t") for ln in lines[1:])}
    assert rows[("Z", "T3")] == pytest.approx(6 / 7, abs=1e-11)      # 003 Fig. 3, System Z
    assert rows[("inverse", "T3")] == 1.0
    assert rows[("Z", "all")] == pytest.approx(6 / 7 / 3, abs=1e-11)
    # at least 10 significant digits
    assert [ln for ln in lines if ln.startswith("Z\tT3")][0].endswith(
        "\t0.857142857143\t\t\tgiven\tall\tS=3 : A=2 : B=1\t\tno")   # topics, mean: blank per topic


def test_cli_gains_highest_first_equals_preset(capsys):
    main(["evaluate", "--simulated", "--topics", "5", "--systems", "3", "--metrics", "Q-measure",
          "--gains", "10:5:1"])
    a = capsys.readouterr().out
    main(["evaluate", "--simulated", "--topics", "5", "--systems", "3", "--metrics", "Q-measure",
          "--gain-preset", "10:5:1"])
    assert a == capsys.readouterr().out


def test_cli_json_output(capsys):
    assert main(["evaluate", "--paper-examples", "--metrics", "NWRR", "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"][-1] == "S-at-3"
    row = [r for r in data["results"] if r["run"] == "S-at-3"][0]
    assert row == {"run": "S-at-3", "topic": "all", "metric": "NWRR", "value": pytest.approx(0.2)}


@pytest.mark.parametrize("argv,msg", [
    (["evaluate"], "no data"),
    (["evaluate", "--simulated", "--gains", "2:1"],
     "gains '2:1' gives 2 values (highest level first) but the collection has 3"),
    (["evaluate", "--simulated", "--metrics", "MAPX"], "unknown metric 'MAPX'"),
    (["evaluate", "--simulated", "--penalties", "1:2:3"], "penalties must be > 1"),
    (["evaluate", "--simulated", "--cutoffs", "ten"], "--cutoffs must be whole numbers"),
    (["evaluate", "--qrels", "/nonexistent/qrels.txt", "--run", "/nonexistent/run"], "nonexistent"),
])
def test_cli_errors_are_messages_not_tracebacks(argv, msg, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and msg in err
    assert "Traceback" not in err


def test_cli_settings_file(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"settings": {"gains": [1, 5, 10], "metrics": ["O-measure"], "beta": 2}}))
    main(["evaluate", "--paper-examples", "--settings", str(f)])
    a = capsys.readouterr().out
    main(["evaluate", "--paper-examples", "--metrics", "O-measure", "--gains", "10:5:1", "--beta", "2"])
    assert a == capsys.readouterr().out


def test_a_per_topic_frame_holds_topics_only_so_a_paired_test_on_it_is_the_test_on_the_topics():
    """A paired t-test written on evaluate's per-topic frame is scipy's test on the score matrix: no mean row
    joins the topics (with one, the test gets an extra 'topic' and a smaller p-value)."""
    import scipy.stats

    c = evalcore.simulated_collection(20, 4, seed=5)
    df = evalcore.evaluate(c, ["AP"], per_topic=True)
    assert "all" not in set(df.topic) and len(df) == 4 * 20
    a, b = c.run_ids[:2]
    wide = df.pivot(index="topic", columns="run", values="value")
    got = scipy.stats.ttest_rel(wide[a], wide[b]).pvalue
    m = evalcore.score_matrix(c, "AP")
    assert got == pytest.approx(scipy.stats.ttest_rel(m[0], m[1]).pvalue, rel=1e-12)
    both = evalcore.evaluate(c, ["AP"], per_topic=True, means=True)          # trec_eval -q's layout, asked for
    assert list(both.topic[20:21]) == ["all"] and len(both) == 4 * 21
    means = evalcore.evaluate(c, ["AP"])                                       # the means: a separate frame
    np.testing.assert_allclose(means.set_index("run").value.loc[list(c.run_ids)], m.mean(axis=1), atol=1e-15)
    with pytest.raises(ValueError, match="ask for no rows"):
        evalcore.evaluate(c, ["AP"], means=False)


def test_the_cli_per_topic_output_keeps_trec_evals_all_rows(capsys):
    from evalcore.cli import main

    assert main(["evaluate", "--paper-examples", "--metrics", "AP", "--per-topic", "--output", "trec_eval"]) == 0
    lines = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    topics = [t for m, t, _ in lines if m.strip() == "AP"]
    assert topics[-1] == "all" and topics.count("all") >= 1 and len(set(topics)) > 1
