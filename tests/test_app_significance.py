"""The "Significance & topic sets" page under AppTest.

Values on screen are checked against references computed here without
evalcore.meta.pair_statistics / topicsets: scipy.stats (ttest_rel and its
confidence interval, wilcoxon), plain Holm / Benjamini-Hochberg loops, V_E from
the two-way ANOVA formula in numpy, and a plain power search with scipy's
noncentral t. The resampled tests' spread is checked against evalcore.meta
called directly (its own tests compare it with scipy's permutation_test and 003).
"""
from __future__ import annotations

import html
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")
from scipy import stats  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import evalcore  # noqa: E402
from dashboard.state import gain_keys  # noqa: E402
from evalcore import meta, registry  # noqa: E402
from evalcore.texfmt import format_p  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
KEYS = ["AP", "Q-measure", "RR", "O-measure", "NWRR", "P-measure", "P+-measure", "nDCG@10"]
SMALL = {"nt": "20", "nr": "8"}
PAGE = "views/significance.py"


def _open(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({**SMALL, **(query or {})})
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _table_with(at, column: str) -> pd.DataFrame:
    for df in at.dataframe:
        v = df.value
        if isinstance(v, pd.DataFrame) and column in v.columns:
            return v.reset_index(drop=True)
    raise AssertionError(f"no table with a {column!r} column: {[list(d.value.columns) for d in at.dataframe]}")


def _text(at) -> str:
    """Captions and Markdown as a reader sees them (user text is escaped for Markdown by dashboard.safe)."""
    raw = "\n".join([c.value for c in at.caption] + [m.value for m in at.markdown])
    return html.unescape(raw).replace("\u200b", "")


@pytest.fixture(scope="module")
def small():
    return evalcore.simulated_collection(n_topics=20, n_runs=8, seed=0)


@pytest.fixture(scope="module")
def scores(small):
    return {k: registry.score_matrix(small, k, gains=[1.0, 2.0, 3.0]) for k in KEYS}


def plain_holm(p):
    p = np.asarray(p, float)
    m = len(p)
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(np.argsort(p, kind="stable")):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def plain_bh(p):
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, min(1.0, m * p[i] / (rank + 1)))
        out[i] = running
    return out


def plain_v_e(x):
    m, n = x.shape
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    return float((r ** 2).sum() / ((m - 1) * (n - 1)))


def plain_sigma2(x):
    """Sakai 2016's pooled within-system variance: each run's topic variance (ddof 1), averaged over runs."""
    return float(np.mean([np.var(row, ddof=1) for row in x]))


def aligned(got: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """``ref``'s rows in the order of the table on screen (the same pairs, checked)."""
    keys = ["metric", "run x", "run y"]
    out = got[keys].merge(ref, on=keys, how="left", validate="one_to_one")
    assert len(out) == len(got) and not out["p"].isna().any()
    return out


def reference_table(small, scores, test: str, correction: str, conf: float = 0.95) -> pd.DataFrame:
    rows = []
    ids = list(small.run_ids)
    for k in KEYS:
        M = scores[k]
        v_e = plain_v_e(M)
        fam = []
        for i, j in combinations(range(len(ids)), 2):
            x, y = M[i], M[j]
            d = x - y
            if test == "t":
                r = stats.ttest_rel(x, y)
                p = 1.0 if np.all(d == 0) else float(r.pvalue)
                lo, hi = (0.0, 0.0) if np.all(d == 0) else r.confidence_interval(conf)
            else:
                # the documented policy: zeros dropped; exact when the non-zero |d| are untied (<= 50),
                # else the normal approximation without continuity correction; differences tied by value, not
                # by bits (meta.pairs.TIE_RULE: 1/3 - 0 and 1/2 - 1/6 are one value on paper, as on NWRR here)
                z = meta.pairs.tied_differences(d, meta.pairs.zero_tolerance(M))
                nz = np.abs(z[z != 0])
                exact = np.unique(nz).size == nz.size <= 50
                p = 1.0 if np.all(z == 0) else float(stats.wilcoxon(
                    z, zero_method="wilcox", correction=False, method="exact" if exact else "asymptotic").pvalue)
                lo = hi = np.nan
            fam.append({"metric": k, "run x": ids[i], "run y": ids[j], "mean": d.mean(), "lo": lo, "hi": hi,
                        "es": d.mean() / np.sqrt(v_e), "p": p})
        p = np.array([f["p"] for f in fam])
        adj = {"none": p, "holm": plain_holm(p), "bh": plain_bh(p)}[correction]
        for f, a in zip(fam, adj, strict=True):
            f["adj"] = a
        rows += fam
    return pd.DataFrame(rows)


def test_pair_table_equals_scipy_ttest_holm_and_plain_v_e(small, scores):
    at = _open()
    assert [c.key for c in at.get("plotly_chart")] == ["sg_forest", "sg_power", "sg_curves", "ts_curve"]
    got = _table_with(at, "mean difference (x - y)")
    ref = reference_table(small, scores, "t", "holm")
    assert len(got) == len(ref) == len(KEYS) * 28
    ref = aligned(got, ref)
    # metrics in the sidebar's order, each one's pairs in order of adjusted p (then p)
    assert list(dict.fromkeys(got["metric"])) == KEYS
    for k in KEYS:
        part = ref[ref["metric"] == k]
        assert (np.diff(part["adj"]) >= -1e-12).all()
    np.testing.assert_allclose(got["mean difference (x - y)"], ref["mean"], atol=1e-12)
    np.testing.assert_allclose(got["95% CI low"], ref["lo"], atol=1e-10)
    np.testing.assert_allclose(got["95% CI high"], ref["hi"], atol=1e-10)
    np.testing.assert_allclose(got["effect size (/sqrt V_E)"], ref["es"], rtol=1e-9)
    # p-values as every table writes them: "< 0.001" below 0.001, else three significant digits
    assert list(got["p (t)"]) == [format_p(v) for v in ref["p"]]
    assert list(got["p adjusted (holm)"]) == [format_p(v) for v in ref["adj"]]
    assert (ref["p"] < 0.001).any() and (ref["p"] >= 0.001).any()
    for shown, v in zip(got["p (t)"], ref["p"], strict=True):
        if v < 0.001:
            assert shown == "< 0.001"
        else:
            assert "e" not in shown and float(shown) == pytest.approx(v, rel=5e-3)
    assert list(got["significant (Holm-adjusted p < 0.05)"]) == list(ref["adj"] < 0.05)
    assert "paired t-test**, correction **Holm" in _text(at)


def test_changing_test_and_correction_changes_the_table_to_wilcoxon_bh(small, scores):
    at = _open()
    before = _table_with(at, "mean difference (x - y)")
    at.selectbox(key="_w_sg_test").set_value("wilcoxon")
    at.selectbox(key="_w_sg_corr").set_value("bh")
    _run(at)
    got = _table_with(at, "mean difference (x - y)")
    assert "p (t)" not in got.columns and "p (wilcoxon)" in got.columns
    ref = aligned(got, reference_table(small, scores, "wilcoxon", "bh"))
    assert list(got["p (wilcoxon)"]) == [format_p(v) for v in ref["p"]]
    assert list(got["p adjusted (bh)"]) == [format_p(v) for v in ref["adj"]]
    assert list(got["p adjusted (bh)"]) != list(aligned(got, before.rename(
        columns={"p adjusted (holm)": "p"})[["metric", "run x", "run y", "p"]])["p"])
    # the power bars follow: % significant per metric = share of BH-adjusted p < alpha
    power = _table_with(at, "n_significant").set_index("metric")
    want = ref.assign(sig=ref["adj"] < 0.05).groupby("metric")["sig"].sum()
    assert {k: int(power.loc[k, "n_significant"]) for k in KEYS} == {k: int(want[k]) for k in KEYS}


def test_filters_and_alpha_and_the_sidebar_move_the_table(small, scores):
    at = _open()
    at.selectbox(key="_w_sg_tmetric").set_value("Q-measure")
    at.text_input(key="_w_sg_runs").set_value("sim-03")
    at.toggle(key="_w_sg_only_sig").set_value(True)
    _run(at)
    got = _table_with(at, "mean difference (x - y)")
    ref = reference_table(small, scores, "t", "holm")
    ref = ref[(ref["metric"] == "Q-measure") & ((ref["run x"] == "sim-03") | (ref["run y"] == "sim-03"))
              & (ref["adj"] < 0.05)]
    assert len(got) == len(ref) and sorted(got["run y"]) == sorted(ref["run y"])
    # a gain slider in the sidebar: Q-measure's differences follow the new gains
    at.toggle(key="_w_sg_only_sig").set_value(False)
    at.select_slider(key=gain_keys(at.session_state, 3)[0]).set_value(6.0)
    _run(at)
    got = _table_with(at, "mean difference (x - y)")
    Q = registry.score_matrix(small, "Q-measure", gains=[1.0, 2.0, 6.0])
    i = list(small.run_ids).index("sim-03")
    want = {(r, "sim-03") if j < i else ("sim-03", r): (Q[j] - Q[i]) if j < i else (Q[i] - Q[j])
            for j, r in enumerate(small.run_ids) if j != i}
    for _, row in got.iterrows():
        np.testing.assert_allclose(row["mean difference (x - y)"], want[(row["run x"], row["run y"])].mean(),
                                   atol=1e-12)


@pytest.mark.parametrize("test", ["bootstrap", "randomisation"])
def test_resampled_test_shows_the_monte_carlo_spread_over_seeds(small, scores, test):
    at = _open()
    at.selectbox(key="_w_sg_test").set_value(test)
    at.number_input(key="_w_sg_B").set_value(200)
    at.number_input(key="_w_sg_seed").set_value(7)
    _run(at)
    at.selectbox(key="_w_sg_reps").set_value(3)          # shown only for a resampled test
    _run(at)
    text = _text(at)
    assert "Monte Carlo spread (3 seeds): B = 200 (chosen)" in text and "over 3 seeds (7..9)" in text
    spread = _table_with(at, "% significant (seed 7)").set_index("metric")
    pct = {}
    for s in (7, 8, 9):
        r = meta.pair_statistics(scores, run_ids=list(small.run_ids), tests=(test,), B=200, seed=s)
        for k in KEYS:
            p = r.pairs.loc[r.pairs["metric"] == k, "p_" + test].to_numpy()
            pct.setdefault(k, []).append(100.0 * np.mean(plain_holm(p) < 0.05))
    for k in KEYS:
        assert spread.loc[k, "% significant (seed 7)"] == pytest.approx(pct[k][0])
        assert spread.loc[k, "min"] == pytest.approx(min(pct[k])) and spread.loc[k, "max"] == pytest.approx(max(pct[k]))
        assert spread.loc[k, "sd"] == pytest.approx(np.std(pct[k], ddof=1), abs=1e-9)
    # the pair table's p-values are those of the first seed
    table = _table_with(at, "mean difference (x - y)")
    r = meta.pair_statistics(scores, run_ids=list(small.run_ids), tests=(test,), B=200, seed=7)
    want = r.pairs.rename(columns={"run_x": "run x", "run_y": "run y", "p_" + test: "p"})
    assert list(table[f"p ({test})"]) == [format_p(v) for v in aligned(table, want)["p"]]


def test_buttons_twice_and_settings_survive_another_page():
    at = _open()
    at.number_input(key="_w_sg_B").set_value(30)
    _run(at)
    for _ in range(2):
        at.button(key="_w_sg_B_more").click()
        _run(at)
        at.button(key="_w_sg_seed_next").click()
        _run(at)
    assert at.number_input(key="_w_sg_B").value == 3000 and at.number_input(key="_w_sg_seed").value == 2
    at.selectbox(key="_w_sg_test").set_value("bootstrap")
    at.number_input(key="_w_sg_B").set_value(300)
    _run(at)
    assert "Pair statistics: B = 300 (chosen)" in _text(at)
    at.switch_page("views/rankings.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.selectbox(key="_w_sg_test").value == "bootstrap"
    assert at.number_input(key="_w_sg_B").value == 300 and at.number_input(key="_w_sg_seed").value == 2
    assert "Pair statistics: B = 300 (chosen)" in _text(at)


def plain_paired_t_size(alpha, beta, d, var):
    n = 2
    while True:
        df = n - 1
        tc = stats.t.isf(alpha / 2, df)
        lam = np.sqrt(n) * d / np.sqrt(var)
        pw = stats.nct.sf(tc, df, lam) + stats.nct.cdf(-tc, df, lam)
        if pw >= 1 - beta:
            return n, pw
        n += 1


def test_topic_set_calculator_uses_2_sigma2_of_the_chosen_metric_and_a_plain_power_search(small, scores):
    # the one-way option: the pooled within-system variance sigma^2, 2 sigma^2 for the paired t-test (the
    # paired designs open on the two-way V_E, Sakai 2016; tested below)
    at = _open()
    at.selectbox(key="_w_ts_metric").set_value("Q-measure")
    at.number_input(key="_w_ts_mind").set_value(0.05)
    at.radio(key="_w_ts_est").set_value("one-way")
    _run(at)
    v_e = plain_sigma2(scores["Q-measure"])         # (named v_e below: the variance estimate in use)
    assert f"sigma^2 of **Q-measure** on this collection (8 runs x 20 topics) = **{v_e:.5g}**" in _text(at)
    assert f"= {2 * v_e:.5g}" in _text(at) and "2 sigma^2" in _text(at)
    n, pw = plain_paired_t_size(0.05, 0.2, 0.05, 2 * v_e)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["topics needed"] == f"{n:,}" and metrics["power at that n"] == f"{pw:.3f}"
    # the inverse with the collection's 20 topics: the difference detected with power 0.8, by bisection
    lo, hi = 1e-6, 2.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lam = np.sqrt(20) * mid / np.sqrt(2 * v_e)
        tc = stats.t.isf(0.025, 19)
        lo, hi = (mid, hi) if stats.nct.sf(tc, 19, lam) + stats.nct.cdf(-tc, 19, lam) < 0.8 else (lo, mid)
    assert metrics["smallest difference detectable at n = 20"] == f"{hi:.4f}"
    at.select_slider(key="_w_ts_beta").set_value(0.1)
    at.select_slider(key="_w_ts_alpha").set_value(0.01)
    _run(at)
    n2, _ = plain_paired_t_size(0.01, 0.1, 0.05, 2 * v_e)
    assert {m.label: m.value for m in at.metric}["topics needed"] == f"{n2:,}" and n2 > n
    chart = next(c for c in at.get("plotly_chart") if c.key == "ts_curve")
    assert f"needed: n = {n2}" in chart.proto.spec and "this collection: n = 20" in chart.proto.spec

def test_topic_set_calculator_two_way_option_and_unpaired_design(small, scores):
    at = _open()
    at.selectbox(key="_w_ts_metric").set_value("Q-measure")
    at.number_input(key="_w_ts_mind").set_value(0.05)
    at.radio(key="_w_ts_est").set_value("two-way")
    _run(at)
    v_e = plain_v_e(scores["Q-measure"])           # the labelled option: 2 V_E of the two-way ANOVA
    assert f"V_E of **Q-measure** on this collection (8 runs x 20 topics) = **{v_e:.5g}**" in _text(at)
    n, _ = plain_paired_t_size(0.05, 0.2, 0.05, 2 * v_e)
    assert {m.label: m.value for m in at.metric}["topics needed"] == f"{n:,}"
    assert "(estimate used: two-way ANOVA V_E, the design's default)" in _text(at)
    # the unpaired t-test (Sakai 2018): n topics per system, df = 2(n - 1), lambda = minD / (sigma sqrt(2/n));
    # both estimates are offered for every design, labelled with the design's default (evalcore.meta's rule)
    at.selectbox(key="_w_ts_design").set_value("unpaired-t")
    _run(at)
    assert list(at.radio(key="_w_ts_est").options) == [
        "V_E, residual of the two-way ANOVA without replication (Sakai 2016)",
        "sigma^2, within-system variance pooled over runs (Sakai 2018); this design's default"]
    assert "(estimate used: two-way ANOVA V_E, not the design's default)" in _text(at)
    at.radio(key="_w_ts_est").set_value("one-way")
    _run(at)
    assert "Estimator: sigma^2 = sum_ij (x_ij - x_i.)^2 / (m(n-1)), the residual variance of the one-way ANOVA" \
        in _text(at) and "Sakai 2018" in _text(at)
    var = plain_sigma2(scores["Q-measure"])
    n = 2
    while True:
        df = 2 * (n - 1)
        tc = stats.t.isf(0.025, df)
        lam = 0.05 / np.sqrt(2 * var / n)
        if stats.nct.sf(tc, df, lam) + stats.nct.cdf(-tc, df, lam) >= 0.8:
            break
        n += 1
    assert {m.label: m.value for m in at.metric}["topics needed"] == f"{n:,}"


def test_topic_set_calculator_ci_and_anova_designs(small, scores):
    at = _open()
    at.selectbox(key="_w_ts_design").set_value("ci")
    at.number_input(key="_w_ts_mind").set_value(0.1)
    _run(at)
    var = 2 * plain_v_e(scores["AP"])              # a paired design: 2 V_E of the two-way ANOVA (Sakai 2016)
    n = 2
    while True:                      # expected width 2 t sqrt(var/n) E[s]/sigma <= delta, by hand
        from scipy.special import gammaln
        cn = np.sqrt(2 / (n - 1)) * np.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
        if 2 * stats.t.isf(0.025, n - 1) * cn * np.sqrt(var / n) <= 0.1:
            break
        n += 1
    assert {m.label: m.value for m in at.metric}["topics needed"] == f"{n:,}"
    at.selectbox(key="_w_ts_design").set_value("anova")
    _run(at)
    assert at.number_input(key="_w_ts_systems").value == 8          # the loaded runs
    # anova's default is the two-way V_E (evalcore.meta.default_estimator, Sakai 2016); sigma^2 one click away
    for est, v_e, words in (("two-way", plain_v_e(scores["AP"]), "variance = V_E (two-way ANOVA"),
                            ("one-way", plain_sigma2(scores["AP"]), "variance = sigma^2 (one-way ANOVA residual")):
        at.radio(key="_w_ts_est").set_value(est)
        _run(at)
        assert f"= {v_e:.5g}" in _text(at) and words in _text(at)
        n = 2
        while True:
            f1, f2 = 7, 8 * (n - 1)
            if stats.ncf.sf(stats.f.isf(0.05, f1, f2), f1, f2, n * 0.01 / (2 * v_e)) >= 0.8:
                break
            n += 1
        assert {m.label: m.value for m in at.metric}["topics needed"] == f"{n:,}", est
    assert "V_E, residual of the two-way ANOVA without replication (Sakai 2016); this design's default" in \
        at.radio(key="_w_ts_est").options


def test_standardised_scores_feed_the_table_and_v_e(small, scores):
    at = _open()
    at.selectbox(key="_w_sg_std").set_value("z")
    _run(at)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")            # scipy warns on flat topics; they become 0 (documented)
        z = {k: np.nan_to_num(stats.zscore(m, axis=0, ddof=1)) for k, m in scores.items()}
    s2 = plain_v_e(z["AP"])                        # the paired t-test's default: V_E (Sakai 2016)
    assert f"V_E of **AP** on z-scores per topic on this collection (8 runs x 20 topics) = **{s2:.5g}**" \
        in _text(at)
    got = _table_with(at, "mean difference (x - y)")
    ids = list(small.run_ids)
    want = pd.DataFrame([{"metric": k, "run x": ids[i], "run y": ids[j], "p": z[k][i].mean() - z[k][j].mean()}
                         for k in KEYS for i, j in combinations(range(8), 2)])
    np.testing.assert_allclose(got["mean difference (x - y)"], aligned(got, want)["p"], atol=1e-12)


def test_quick_pass_first_then_the_chosen_B_with_its_spread(monkeypatch):
    """Zero interactive budget: the table is a quick pass and the power bars show the table's seed only,
    both stated; after the page the chosen B and the spread replace them (the live pattern of the
    other meta pages: a quick pass first, the full B when it is done)."""
    from dashboard import live
    at = _open()
    at.selectbox(key="_w_sg_test").set_value("bootstrap")
    at.number_input(key="_w_sg_B").set_value(400)
    monkeypatch.setattr(live, "BUDGET_S", 0.0)
    monkeypatch.setattr(live, "finish_live", lambda: None)      # stop before the refinement
    _run(at)
    text = _text(at)
    assert f"quick pass, B = {live.QUICK_B}** on screen; refining to the chosen B = 400" in text
    assert "Monte Carlo spread (5 seeds) at the chosen B = 400: computed after the rest of the page" in text
    chart = next(ch for ch in at.get("plotly_chart") if ch.key == "sg_power")
    assert "seed 0 only" in chart.proto.spec and "spread over seeds follows" in chart.proto.spec
    monkeypatch.undo()
    _run(at)                                            # the real finish_live: refine both, rerun
    text = _text(at)
    assert "Pair statistics: B = 400 (chosen)" in text and "Monte Carlo spread (5 seeds): B = 400 (chosen)" in text
    chart = next(ch for ch in at.get("plotly_chart") if ch.key == "sg_power")
    assert "quick pass" not in chart.proto.spec and "seeds 0..4" in chart.proto.spec


def test_a_resampled_test_computed_in_a_child_shows_the_same_p_values(small, scores, monkeypatch):
    """A server started with ``EVALCORE_COMPUTE_SECONDS=0`` sends every page computation with a progress bar to
    a child interpreter (dashboard/compute.py): the Significance page's bootstrap test then comes from the child,
    with the p-values pair_statistics gives here and nothing else on screen."""
    from test_io_worker import _all_children

    from dashboard import compute, meta_store, stores
    others = _all_children()          # another test's children (a worker pool kept for reuse) are not this one's
    fresh = stores.Store(256)                              # nothing an earlier test computed is looked up
    monkeypatch.setattr(meta_store, "_results", lambda: fresh)
    monkeypatch.setenv("EVALCORE_COMPUTE_SECONDS", "0")
    before = compute.started()
    at = _open()
    at.selectbox(key="_w_sg_test").set_value("bootstrap")
    at.number_input(key="_w_sg_B").set_value(300)
    at.number_input(key="_w_sg_seed").set_value(5)
    _run(at)
    assert compute.started() > before and not _all_children() - others
    assert "Pair statistics: B = 300 (chosen)" in _text(at)
    table = _table_with(at, "mean difference (x - y)")
    r = meta.pair_statistics(scores, run_ids=list(small.run_ids), tests=("bootstrap",), B=300, seed=5)
    want = r.pairs.rename(columns={"run_x": "run x", "run_y": "run y", "p_bootstrap": "p"})
    assert list(table["p (bootstrap)"]) == [format_p(v) for v in aligned(table, want)["p"]]
