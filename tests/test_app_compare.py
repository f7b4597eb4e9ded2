"""The results table of the Significance page (evalcore.compare through dashboard.significance) under AppTest.

The table on screen is read back with markdown-it-py and checked against scipy.stats.ttest_rel of every run
against the page's baseline run, a plain Holm loop and per-topic win/loss counts written here.
"""
from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")
from markdown_it import MarkdownIt  # noqa: E402
from scipy import stats  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import evalcore  # noqa: E402
from evalcore import registry  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "views/significance.py"


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"nt": "20", "nr": "8"})
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def plain_holm(p):
    p = np.asarray(p, float)
    m, out, running = len(p), np.empty(len(p)), 0.0
    for rank, i in enumerate(np.argsort(p, kind="stable")):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _screen_table(at) -> tuple[list[str], list[list[str]], str]:
    """(header cells, body cells as text, the whole Markdown) of the results table on screen."""
    for m in at.markdown:
        text = html.unescape(m.value)
        if text.startswith("| run |"):
            tokens = MarkdownIt("commonmark").enable("table").parse(text)
            head = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "th_open"]
            rows, cur = [], None
            for i, t in enumerate(tokens):
                if t.type == "tr_open":
                    cur = []
                elif t.type == "td_open":
                    cur.append("".join(c.content for c in tokens[i + 1].children))
                elif t.type == "tr_close" and cur:
                    rows.append(cur)
            return head, rows, text
    raise AssertionError("no results table on the page")


def test_results_table_with_run_names_values_and_downloads():
    at = _open()
    small = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    M = registry.score_matrix(small, "AP", gains=[1.0, 2.0, 3.0])
    runs = [str(r) for r in small.run_ids]
    base = runs[int(np.argmax(M.mean(axis=1)))]           # the page's default baseline: the best run by AP
    assert at.selectbox(key="_w_sg_frun").value == base
    head, rows, text = _screen_table(at)
    assert head == ["run", "AP", "AP p (Holm)", "AP +/-"]
    assert [r[0] for r in rows] == [r + (" (baseline)" if r == base else "") for r in runs]
    b = runs.index(base)
    others = [i for i in range(len(runs)) if i != b]
    adj = dict(zip(others, plain_holm([stats.ttest_rel(M[i], M[b]).pvalue for i in others]), strict=True))
    for i in others:
        mean, p, pm = rows[i][1:]
        assert mean.rstrip("\u25b2\u25bc") == f"{M[i].mean():.4f}"
        assert mean.endswith("\u25bc") == (adj[i] < 0.05)        # the baseline is the best: only losses
        assert p == ("< 0.001" if adj[i] < 0.001 else f"{adj[i]:.3g}")   # one p format: < 0.001, else 3 sig. digits
        assert pm == f"{int(np.sum(M[i] > M[b]))}/{int(np.sum(M[i] < M[b]))}"
    assert "Holm correction over the 7 comparisons per metric, alpha = 0.05" in text
    assert "Means over 20 topics (NTCIREVAL's topics: those with a relevant document)" in text
    assert [b.label for b in at.get("download_button")][:3] == ["CSV", "Markdown", "LaTeX (booktabs)"]


def test_table_follows_metrics_correction_and_baseline():
    at = _open()
    at.multiselect(key="sg_cmp_metrics").set_value(["AP", "Q-measure"])
    at.selectbox(key="_w_sg_corr").set_value("none")
    at.selectbox(key="_w_sg_frun").set_value("sim-01")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    head, rows, text = _screen_table(at)
    q = "Q-measure(gains=3:2:1)"            # the label states the gains used (the sidebar's, papers' order)
    assert head == ["run", "AP", "AP p", "AP +/-", q, f"{q} p", f"{q} +/-"]
    assert rows[0][0] == "sim-01 (baseline)"
    small = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    Q = registry.score_matrix(small, "Q-measure", gains=[1.0, 2.0, 3.0])
    p = stats.ttest_rel(Q[3], Q[0]).pvalue
    assert rows[3][5] == ("< 0.001" if p < 0.001 else f"{p:.3g}")
    assert "no correction for the 7 comparisons per metric" in text
    at.multiselect(key="sg_cmp_metrics").set_value([])
    at.run()
    assert "Choose at least one metric for the table." in [c.value for c in at.caption]
