"""The Lesson page (003 in four steps) and 003's claim on the data shown (Overview, Swap, Bootstrap), under AppTest.

The lesson's table is checked against the values Sakai 2007 (003) prints in Sec. 3.2-3.3 (written out here,
at the paper's two decimals) and against hand arithmetic for the gains 003 names (2:1.5:1); the claim verdict on
screen against evalcore.meta.order_claim_verdict run on evalcore.meta.repeat / topic_bootstrap called directly.
"""
from __future__ import annotations

import pytest

pytest.importorskip("streamlit")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from test_app import _app, _goto  # noqa: E402

import evalcore  # noqa: E402
from dashboard import export  # noqa: E402
from evalcore import meta, registry  # noqa: E402
from evalcore import metrics as M  # noqa: E402
from evalcore.meta import paper  # noqa: E402

SMALL = {"nt": "20", "nr": "8", "swb": "300", "bsb": "300"}

#: 003 Sec. 3.2-3.3 (Fig. 3, Topic 3), gains 3:2:1: every value the paper prints for these systems
PRINTED = {("X", "O"): "0.50", ("X", "P"): "0.50", ("Y", "O"): "0.57", ("Y", "P"): "0.57",
           ("Z", "O"): "0.50", ("Z", "P"): "0.86", ("inverse", "P"): "1.00", ("inverse", "P+"): "0.74"}


def _lesson(step: int | None = None, **query):
    q = {**SMALL, **query}
    if step is not None:
        q["step"] = str(step)
    at = _goto(_app(q), "lesson")
    assert not at.error, [e.value for e in at.error]
    return at


def _table(at, column: str):
    for t in at.table:
        if column in t.value.columns:
            return t.value
    raise AssertionError(f"no table with a {column!r} column: {[list(t.value.columns) for t in at.table]}")


def test_step_1_shows_fig_3_with_the_papers_numbers_beside_the_computed_ones():
    at = _lesson()
    assert at.header[0].value.startswith("1. ")
    t = _table(at, "P+ (paper)")
    assert list(t.index) == ["X", "Y", "Z", "inverse", "ideal"]                  # per-topic values, not means
    for (system, m), printed in PRINTED.items():
        assert t.loc[system, m] == printed, (system, m)                    # computed, at the paper's precision
        assert t.loc[system, f"{m} (paper)"] == printed, (system, m)         # and the paper's value beside it
    assert list(t["RR"]) == ["1.00", "0.50", "1.00", "1.00", "1.00"]       # RR = 1/r_1: ties X, Z, inverse, ideal
    assert t.loc["Z", "list"] == "B, S" and t.loc["Y", "list"] == "-, S"
    # a verdict beside every printed value: each system's, and one sentence for the table
    assert list(t["as paper?"]) == ["yes (2 of 2)"] * 4 + ["\u2013"]
    assert any(m.value.startswith("**Agrees with Sakai 2007**: all 8 values") for m in at.markdown)


def test_step_1_says_when_a_value_differs_from_the_paper():
    from dashboard import paper_checks, teaching
    t = teaching.fig3_table()
    t.loc["Z", "P-measure"] = 0.85                                   # as if a kernel drifted
    cells, text = paper_checks.fig3_agreement(t)
    assert cells[2] == "no: P 0.85, paper 0.86" and text.startswith("**Differs from Sakai 2007** on 1 of 8")


def test_step_2_the_gains_that_flip_o():
    at = _lesson(2)
    t = _table(at, "2:1.5:1")
    # 3:2:1: O(X) = (1+1)/(3+1) = 0.50 < O(Y) = (3+1)/(3+2+2) = 0.57;
    # 2:1.5:1: O(X) = (1+1)/(2+1) = 0.67 > O(Y) = (2+1)/(2+1.5+2) = 0.55
    assert (t.loc["X", "3:2:1 (paper)"], t.loc["Y", "3:2:1 (paper)"]) == ("0.50", "0.57")
    assert (t.loc["X", "2:1.5:1"], t.loc["Y", "2:1.5:1"]) == ("0.67", "0.55")
    verdict = next(m.value for m in at.markdown if "Sec. 3.2**" in m.value)
    assert verdict.startswith("**Agrees with Sakai 2007 Sec. 3.2**") and "0.57 to 0.50" in verdict \
        and "0.67 to 0.55" in verdict


def test_step_3_preferred_rank_against_first_rank():
    at = _lesson(3)
    t = _table(at, "r_p")
    # 003 Sec. 3.3: Z = [B, S] has r_1 = 1, r_p = 2 and P = BR(2) = 6/7; the inverse [B, A, S] has r_p = 3
    assert (int(t.loc["Z", "r_1"]), int(t.loc["Z", "r_p"]), t.loc["Z", "P = BR(r_p)"]) == (1, 2, "0.86")
    assert (int(t.loc["inverse", "r_1"]), int(t.loc["inverse", "r_p"])) == (1, 3)
    assert "r_p > r_1 on this data" in [m.label for m in at.metric]
    # the largest r_p beside 003 Tables 7-9 (852-980), with its interval over topic samples
    c = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    rp = M.preferred_rank(c)
    per_topic = np.where(rp > 0, rp, np.nan).max(axis=0)
    v, lo, hi = paper.topic_interval(per_topic, np.max, resamples=200, seed=0)
    want = paper.agreement(v, lo, hi, 852, 980, digits=0, paper="Sakai 2007")
    verdict = next(m.value for m in at.markdown if "Tables 7-9**" in m.value)
    assert f"the largest r_p here, {v:,.0f} ({lo:,.0f}-{hi:,.0f}" in verdict and want["detail"] in verdict
    assert verdict.startswith("**Agrees with" if want["agrees"] else "**Differs from")


def test_step_4_shows_the_claim_and_tau_on_the_loaded_data():
    at = _lesson(4)
    boxes = [b.value for b in list(at.success) + list(at.info) + list(at.warning)]
    assert any("Table 4, bootstrap" in b for b in boxes) and any("Table 3, swap" in b for b in boxes)
    t = _table(at, "tau here")
    assert "RR - P+" in t.index
    # every tau beside 003 Table 2's range, with evalcore's verdict (evalcore.meta.paper on the same scores)
    c = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    sc = {k: registry.score_matrix(c, k, gains=[1.0, 2.0, 3.0]) for k in paper.TABLE2_ORDER}
    full = paper.table2_comparison(sc, resamples=200, seed=0, paper="Sakai 2007")
    cmp = full.set_index(["metric_a", "metric_b"])
    words = {"inside": "yes", "near": "yes, within the uncertainty", "above": "no: higher than the paper",
             "below": "no: lower than the paper"}
    for label, (a, b) in {"RR - NWRR": ("RR", "NWRR"), "RR - P+": ("RR", "P+-measure"),
                          "P - P+": ("P-measure", "P+-measure")}.items():
        r = cmp.loc[(a, b)]
        assert t.loc[label, "tau here"] == f"{r.tau:.3f}"
        assert t.loc[label, "other topic sets (95 %)"] == f"{r.lo:.3f}-{r.hi:.3f}"
        assert t.loc[label, "agrees?"] == words[r.status]
    from dashboard.paper_checks import short
    findings = paper.table2_findings(full, label=short)
    box = next(b.value for b in list(at.success) + list(at.warning) if "Sakai 2007 Table 2 on this data" in b.value)
    assert f"{sum(f['agrees'] for f in findings)} of {len(findings)} of its observations agree" in box
    assert all(f["detail"] in box for f in findings)


def test_every_step_is_an_address_and_buttons_move_it():
    at = _lesson(3)
    assert at.header[0].value.startswith("3. ") and str(at.query_params["step"]).strip("[]'") == "3"
    at.button(key="ls_next").click().run()
    assert at.header[0].value.startswith("4. ")
    assert str(at.query_params["step"]).strip("[]'") == "4"
    at.button(key="ls_prev").click().run()
    assert at.header[0].value.startswith("3. ")
    bad = _lesson(99)                                                   # a step the lesson lacks opens step 1
    assert bad.header[0].value.startswith("1. ")


def test_lesson_tables_go_into_the_html_export():
    at = _lesson()
    figs = at.session_state["_view"]["figs"]
    labels = [lab for lab, _ in figs]
    assert "Sakai 2007 Fig. 3: one topic, five systems" in labels
    html = export.view_html("lesson", figs, settings={}, summary={})
    assert "0.86" in html and "0.74" in html


def _verdict(c, method: str, B: int, gains=(1.0, 2.0, 3.0)) -> dict:
    keys = ["P+-measure", "P-measure", "O-measure", "NWRR", "RR"]
    sc = {k: registry.score_matrix(c, k, gains=list(gains)) for k in keys}
    if method == "swap":
        kw, fig, by, level = {"rule": "003", "sampling": "replacement", "subset_size": None}, "pct_comparisons", \
            "confidence", 0.95
    else:
        kw, fig, by, level = {"run_ids": list(c.run_ids), "alpha": 0.05}, "pct_significant", "alpha", 0.05
    r = meta.repeat(method, sc, repeats=5, seed=0, B=B, **kw).per_repeat
    t = meta.topic_bootstrap(sc, method, resamples=20, seed=0, B=100, **kw).per_resample
    w = r[r[by] == level].pivot_table(index="repeat", columns="metric", values=fig, dropna=False)
    tw = t[t[by] == level].pivot_table(index="resample", columns="metric", values=fig, dropna=False)
    what = "% comparisons" if method == "swap" else "% of pairs significant"
    return meta.order_claim_verdict(w, meta.CLAIM_003, topics=tw, what=what)


@pytest.mark.parametrize("page, methods", [("overview", ("bootstrap", "swap")), ("swap", ("swap",)),
                                           ("bootstrap", ("bootstrap",))])
def test_the_claim_on_screen_is_evalcores_verdict(page, methods):
    c = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    at = _goto(_app(SMALL), page)
    shown = "\n".join(b.value for b in list(at.success) + list(at.info) + list(at.warning))
    for m in methods:
        v = _verdict(c, m, 300)
        assert v["text"] in shown, (m, v["text"], shown)


@pytest.mark.slow      # ~10 s: a large collection loaded and its claim checked (CI runs -m slow)
def test_on_large_data_the_overview_checks_the_claim_on_request():
    from dashboard import claims
    at = _app({"nt": "60", "nr": "45", "swb": "100", "bsb": "100"})    # 990 pairs x 60 topics > AUTO_LIMIT
    assert 990 * 60 > claims.AUTO_LIMIT
    assert not [b for b in list(at.success) + list(at.info) + list(at.warning) if "Sakai 2007's claim" in b.value]
    at.button(key="ov_claim_btn").click().run()
    assert any("Sakai 2007's claim (Table 4" in b.value for b in list(at.success) + list(at.info) + list(at.warning))


def _boxes(at) -> list[str]:
    return [b.value for b in list(at.success) + list(at.info) + list(at.warning) if "Sakai 2007's claim" in b.value]


def test_after_a_gain_move_the_overview_keeps_the_checked_verdict_and_checks_the_new_gains_when_asked():
    """The claim's check (5 repetitions and 20 topic samples of two methods) is not paid on every gain move:
    the verdicts checked at the first view stay, said to be at the earlier settings, until the button checks
    the current gains - and then they are evalcore's verdicts at those gains."""
    from dashboard.state import gain_keys
    c = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    at = _app(SMALL)
    first = _boxes(at)
    assert len(first) == 2 and all(" here.**" in b for b in first)         # the first view checks itself
    at.select_slider(key=gain_keys(at.session_state, 3)[0]).set_value(10.0).run()
    assert not at.exception and not at.error
    stale = _boxes(at)
    assert len(stale) == 2 and all(b.startswith("**At the settings checked") for b in stale)
    assert any("gains S=3 : A=2" in cap.value and "have changed since" in cap.value for cap in at.caption)
    at.button(key="ov_claim_btn").click().run()
    fresh = "\n".join(_boxes(at))
    assert "At the settings checked" not in fresh
    for method in ("bootstrap", "swap"):
        assert _verdict(c, method, 300, gains=(1.0, 2.0, 10.0))["text"] in fresh
    at.select_slider(key=gain_keys(at.session_state, 3)[0]).set_value(3.0).run()   # back: checked, drawn at once
    assert len(_boxes(at)) == 2 and not [b for b in _boxes(at) if b.startswith("**At the settings checked")]


@pytest.mark.parametrize("method", ["swap", "bootstrap"])
def test_claim_table_is_pandas_pivot_table(method):
    """claims.claim_wide places each (repetition, metric) figure where pandas' pivot_table puts it (rows
    sorted, a missing cell NaN), on evalcore.meta.repeat's frame with a row dropped and rows shuffled."""
    from dashboard import claims
    c = evalcore.simulated_collection(n_topics=15, n_runs=6, seed=1)
    sc = {k: registry.score_matrix(c, k, gains=[1.0, 2.0, 3.0]) for k in ["RR", "P+-measure", "O-measure"]}
    kw = {"rule": "003", "sampling": "replacement", "subset_size": None} if method == "swap" else \
        {"run_ids": list(c.run_ids), "alpha": 0.05}
    fig, by, level = claims.CLAIM_FIGURES[method][0], claims.CLAIM_FIGURES[method][1], \
        (0.95 if method == "swap" else 0.05)
    r = meta.repeat(method, sc, repeats=4, seed=3, B=50, **kw).per_repeat
    gone = (r["repeat"] == r["repeat"].max()) & (r["metric"] == "O-measure")
    r = r.drop(r.index[gone]).sample(frac=1, random_state=0)
    d = r[r[by] == level]
    want = d.pivot_table(index="repeat", columns="metric", values=fig, aggfunc="first", dropna=False) \
        .reindex(columns=list(dict.fromkeys(d["metric"])))
    got = claims.claim_wide(r, "repeat", method, level)
    pd.testing.assert_frame_equal(got, want, check_dtype=False, check_names=True)
    assert np.isnan(got["O-measure"].iloc[-1])


def test_overview_and_rank_correlation_say_whether_table_2_agrees_with_the_paper():
    """The Kendall taus the Overview and the Rank correlation page show come with 003 Table 2's observations and
    a verdict on each (evalcore.meta.paper on the same scores); every pair's row on the Rank correlation page."""
    from dashboard.paper_checks import short
    c = evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)
    sc = {k: registry.score_matrix(c, k, gains=[1.0, 2.0, 3.0]) for k in paper.TABLE2_ORDER}
    cmp = paper.table2_comparison(sc, resamples=200, seed=0, paper="Sakai 2007")
    findings = paper.table2_findings(cmp, label=short)
    at = _app(SMALL)
    line = next(cap.value for cap in at.caption if cap.value.startswith("**Against Sakai 2007 Table 2**"))
    assert findings[0]["detail"] in line
    assert ("agrees with all" in line) == all(f["agrees"] for f in findings)
    at = _goto(at, "correlation")
    box = next(b.value for b in list(at.success) + list(at.warning) if "Sakai 2007 Table 2 on this data" in b.value)
    assert all(f["detail"] in box and f["claim"] in box for f in findings)
    table = next(d.value for d in at.dataframe if "agrees?" in d.value.columns)
    assert len(table) == 21
    assert list(table["tau here"]) == [f"{t:.3f}" for t in cmp["tau"]]
