"""The dashboard under streamlit.testing's AppTest: every page, widgets by key,
the papers' worked examples on the playground, bad input, URL state."""
from __future__ import annotations

import html
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

import evalcore  # noqa: E402
from dashboard.state import gain_keys  # noqa: E402
from evalcore import registry  # noqa: E402

APP = str(Path(__file__).resolve().parents[1] / "app.py")
from dashboard.pages import PAGES as _REGISTRY  # noqa: E402

# the registry app.py builds its navigation from: a page added there is tested here
PAGES = [p.file[:-3] for p in _REGISTRY]
CHART_PAGES = {p.file[:-3] for p in _REGISTRY if p.has_chart}


def _app(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, f"{page}: {[e.message for e in at.exception]}"
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _means_table(at: AppTest) -> pd.DataFrame:
    """The Rankings page's table of means (the dataframe holding a 'rank' column)."""
    for df in at.dataframe:
        v = df.value
        if isinstance(v, pd.DataFrame) and "rank" in v.columns and "AP" in v.columns:
            return v
    raise AssertionError("no means table on the page")


@pytest.fixture(scope="module")
def sim():
    return evalcore.simulated_collection(n_topics=50, n_runs=30, seed=0)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_the_simulated_data(page):
    at = _goto(_app(), page)
    assert at.title, f"{page} has no title"
    assert not at.error, [e.value for e in at.error]
    if page in CHART_PAGES:
        assert len(at.get("plotly_chart")) >= 1


def test_moving_a_gain_slider_changes_the_ranking_as_evalcore_says(sim):
    at = _goto(_app(), "rankings")
    before = _means_table(at)["P-measure"]
    at.select_slider(key=gain_keys(at.session_state, 3)[0]).set_value(10.0).run()          # S-relevant gain 3 -> 10
    assert not at.exception
    after = _means_table(at)["P-measure"]
    expected = registry.means_table(sim, ["P-measure"], gains=[1.0, 2.0, 10.0])["P-measure"]
    np.testing.assert_allclose(after.loc[expected.index].to_numpy(), expected.to_numpy(), rtol=1e-12)
    assert not np.allclose(before.loc[expected.index].to_numpy(), after.loc[expected.index].to_numpy())
    # the table is sorted by the current ranking, as evalcore's means order it
    assert list(after.index) == list(expected.sort_values(ascending=False, kind="stable").index)
    assert at.query_params["gains"] == ["10:2:1"] or at.query_params["gains"] == "10:2:1"


def test_a_preset_button_sets_every_gain():
    at = _goto(_app(), "rankings")
    at.button(key="preset_10:5:1").click().run()
    assert [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)] == [10.0, 5.0, 1.0]
    at.button(key="preset_0.3:0.2:0.1").click().run()
    assert [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)] == [0.3, 0.2, 0.1]


def test_url_state_restores_settings_and_reset_clears_them():
    at = _app({"gains": "10:5:1", "beta": "2", "thr": "rigid", "m": "AP,P-measure"})
    assert [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)] == [10.0, 5.0, 1.0]
    assert at.slider(key="beta").value == 2.0
    assert at.radio(key="threshold").value == "rigid"
    assert at.multiselect(key="metrics").value == ["AP", "P-measure"]
    next(b for b in at.button if b.label == "Reset all settings").click().run()
    assert not at.exception
    assert [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)] == [3.0, 2.0, 1.0]
    assert at.slider(key="beta").value == 1.0


def test_bad_url_values_are_ignored_not_fatal():
    at = _app({"gains": "a:b:c", "beta": "lots", "thr": "sideways", "cutoff": "-4"})
    assert [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)] == [3.0, 2.0, 1.0]
    assert at.number_input(key="cutoff").value == 1
    _goto(at, "rankings")


@pytest.mark.parametrize("preset, metric, value", [
    ("X", "O-measure", "0.5000"), ("X", "P-measure", "0.5000"),         # 003 Fig. 3
    ("Y", "O-measure", "0.5714"), ("Y", "P-measure", "0.5714"),
    ("Z", "O-measure", "0.5000"), ("Z", "P-measure", "0.8571"),
    ("inverse", "P-measure", "1.0000"), ("inverse", "P+-measure", "0.7381"),  # 003 Sec. 3.3: 0.74
])
def test_playground_presets_give_the_papers_values(preset, metric, value):
    at = _goto(_app(), "playground")
    at.button(key=f"pl_preset_{preset}").click().run()
    assert not at.exception
    assert _metric(at, metric) == value


def test_worked_examples_dataset_on_the_playground():
    """003 Fig. 3, system Z on topic T3, copied from the worked-examples collection."""
    at = _goto(_app(), "data")
    at.button(key="use_examples").click().run()
    assert at.selectbox(key="dataset").value == "examples"
    _goto(at, "playground")
    at.selectbox(key="pl_src_run").set_value("Z")
    at.selectbox(key="pl_src_topic").set_value("T3")
    at.button(key="pl_copy").click().run()
    assert not at.exception
    assert _metric(at, "P-measure") == "0.8571"
    assert _metric(at, "O-measure") == "0.5000"
    assert _metric(at, "r_p") == "2" and _metric(at, "r_1") == "1"
    # S-at-3 on T1: NWRR = 1/5 (003 Fig. 2), O = 2/3
    at.selectbox(key="pl_src_run").set_value("S-at-3")
    at.selectbox(key="pl_src_topic").set_value("T1")
    at.button(key="pl_copy").click().run()
    assert _metric(at, "NWRR") == "0.2000"
    assert _metric(at, "O-measure") == "0.6667"


def _fig3_files() -> tuple[tuple[str, bytes], list[tuple[str, bytes]]]:
    qrels = b"T3 0 dS 3\nT3 0 dA 2\nT3 0 dB 1\nT3 0 dN 0\n"
    runs = [("Z.txt", b"T3 Q0 dB 1 2.0 Z\nT3 Q0 dS 2 1.0 Z\n"),
            ("X.txt", b"T3 Q0 dB 1 2.0 X\n")]
    return ("qrels.txt", qrels), runs


def _upload(at: AppTest, qrels, runs) -> AppTest:
    # the uploaders get a new key after each load (the server drops the files it has loaded)
    gen = at.session_state["_up_generation"] if "_up_generation" in at.session_state else 0
    suffix = "" if gen == 0 else f"~{gen}"
    at.file_uploader(key="up_qrels" + suffix).set_value((qrels[0], qrels[1], "text/plain"))
    at.file_uploader(key="up_runs" + suffix).set_value([(n, b, "text/plain") for n, b in runs])
    at.run()
    at.button(key="up_load").click().run()
    return at


def test_bad_upload_shows_an_error_and_keeps_the_data():
    at = _goto(_app(), "data")
    _upload(at, ("qrels.txt", b"this is not\ta qrels file at all\n\x00\x01"),
            [("run.txt", b"garbage line\n")])
    assert not at.exception, [e.message for e in at.exception]
    assert at.error, "a bad upload must show an error box"
    assert at.selectbox(key="dataset").value == "sim"
    _goto(at, "rankings")


def test_uploading_the_worked_examples_gives_the_papers_values():
    at = _goto(_app(), "data")
    _upload(at, *_fig3_files())
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="dataset").value == "upload"
    _goto(at, "playground")
    at.selectbox(key="pl_src_run").set_value("Z")
    at.selectbox(key="pl_src_topic").set_value("T3")
    at.button(key="pl_copy").click().run()
    assert _metric(at, "P-measure") == "0.8571"


def test_report_builds_and_its_settings_file_reloads():
    at = _goto(_app({"gains": "10:5:1", "nt": "20", "nr": "8"}), "report")
    for key, v in {"rp_B": 20, "rp_tukey_B": 20, "rp_repeats": 1, "rp_topic_resamples": 0}.items():
        at.number_input(key=key).set_value(v)
    at.run()
    at.button(key="rp_build").click().run()
    assert not at.exception
    files, e = at.session_state["_report"]
    assert {t.stem for t in e.tables} >= {"table2_kendall", "table3_swap", "table4_bootstrap"}
    assert b"\\toprule" in files["tables.tex"] and b"\\bottomrule" in files["tables.tex"]
    settings = json.loads(files["settings.json"])["settings"]
    assert settings["gains"] == [1.0, 5.0, 10.0]
    with zipfile.ZipFile(io.BytesIO(files["evalcore-report.zip"])) as z:
        assert "evalcore-report/table2_kendall.csv" in z.namelist()
    # the CLI reads the same file
    import tempfile

    from evalcore.settings import read_settings as load_settings
    with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
        f.write(files["settings.json"])
    assert load_settings(f.name)["gains"] == [1.0, 5.0, 10.0]
    # and the app reloads it in a fresh session
    at2 = _goto(_app(), "report")
    at2.file_uploader(key="rp_settings_file").set_value(("s.json", files["settings.json"], "application/json"))
    at2.run()
    assert not at2.exception
    assert [at2.number_input(key=gain_keys(at2.session_state, L)[1]).value for L in (3, 2, 1)] == [10.0, 5.0, 1.0]


def test_a_bad_settings_file_changes_nothing_and_says_why():
    """Atomic reload (evalcore.settings): valid gains beside a NaN beta must not be half-applied."""
    at = _goto(_app(), "report")
    before = [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)]
    bad = b'{"settings": {"gains": [1, 5, 10], "beta": NaN}}'
    at.file_uploader(key="rp_settings_file").set_value(("bad.json", bad, "application/json"))
    at.run()
    assert not at.exception
    assert [at.number_input(key=gain_keys(at.session_state, L)[1]).value for L in (3, 2, 1)] == before
    # the message quotes the file: shown as text (escaped Markdown), read here as the browser shows it
    assert any("bad.json: NaN is not a finite number" in html.unescape(e.value).replace("\u200b", "")
               and "nothing was changed" in e.value
               for e in at.error)


def test_a_settings_file_with_a_5000_digit_number_is_refused_naming_the_file_and_key():
    """Python refuses to convert integers of more than 4,300 digits: that ValueError was the app's internal-error
    box. Now the settings reader refuses the number by key (evalcore.settings._refuse_huge)."""
    at = _goto(_app(), "report")
    huge = b'{"settings": {"gains": [1, 5, 10], "swap": {"B": ' + b"9" * 5000 + b'}}}'
    at.file_uploader(key="rp_settings_file").set_value(("huge.json", huge, "application/json"))
    at.run()
    assert not at.exception
    shown = [html.unescape(e.value).replace("\u200b", "") for e in at.error]
    assert any("huge.json: settings.swap.B is a number of 5,000 characters" in t and "nothing was changed" in t
               for t in shown), shown


def _two_level_collection():
    """A small collection with two relevance levels (L1, L2), as clef2015 has."""
    rng = np.random.default_rng(3)
    lists = {f"run{i}": {f"q{t}": rng.integers(0, 3, size=12).tolist() for t in range(6)} for i in range(5)}
    counts = {f"q{t}": [20, 4, 2] for t in range(6)}
    return evalcore.Collection.from_lists(lists, counts, name="two levels")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_a_two_level_upload(page):
    """Uploaded data (as the Data page stores it) with K = 2: sliders L2, L1."""
    c = _two_level_collection()
    at = _app()
    at.session_state["uploaded"] = c
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    assert not at.exception
    assert [s.label for s in at.sidebar.select_slider][:2] == ["L2 (level 2)", "L1 (level 1)"]
    _goto(at, page)
    assert not at.error, [e.value for e in at.error]
    if page == "rankings":
        at.select_slider(key=gain_keys(at.session_state, 2)[0]).set_value(8.0).run()
        got = _means_table(at)["Q-measure"]
        want = registry.means_table(c, ["Q-measure"], gains=[1.0, 8.0])["Q-measure"]
        np.testing.assert_allclose(got.loc[want.index].to_numpy(), want.to_numpy(), rtol=1e-12)


def test_nerr_is_kept_under_any_gains():
    """nERR's stop probability g/(max gain + 1) is a probability for any gains, so S:A:B = 1:2:3
    no longer drops it."""
    at = _goto(_app({"gains": "1:2:3", "m": "AP,nERR,P-measure"}), "rankings")
    assert not any("left out" in w.value for w in at.sidebar.warning)
    assert list(_means_table(at).columns) == ["rank", "AP", "nERR@10", "P-measure"]
    _goto(at, "correlation")


@pytest.mark.parametrize("page", PAGES)
def test_hostile_url_values_never_raise(page):
    q = {"gains": "1e9:0:-3", "pen": "1000:1:0.5", "beta": "1e9", "cutoff": "99999", "thr": "x", "top": "-3",
         "by": "nonsense", "m": "nonsense,,", "nt": "100000", "nr": "0", "seed": "99999999", "rk": "zzz",
         "rx": "nope", "kc": "AP", "kl": "9", "sws": "sideways", "swk": "99999", "swb": "1", "swseed": "-1",
         "bsa": "0.02", "bsb": "1e3", "stk": "-1", "stb": "x", "pl": "9,9,x,-1", "plc": "a,b", "data": "upload"}
    at = _goto(_app(q), page)
    assert not at.exception


def test_a_good_upload_switches_the_app_to_it(monkeypatch):
    """The Data page's success path, with the loader replaced by one that reads
    the two tiny TREC files of 003 Fig. 3 (the real loader has its own tests)."""
    seen = {}

    def fake_load(qrels, runs, **kw):
        seen["qrels"], seen["runs"], seen["kw"] = qrels, runs, kw
        lists = {name.rsplit(".", 1)[0]: {"T3": [{"dB": 1, "dS": 3}[line.split()[2]]
                                                 for line in data.decode().splitlines()]}
                 for name, data in runs}
        return evalcore.Collection.from_lists(lists, {"T3": [1, 1, 1, 1]}, level_names=("B", "A", "S"),
                                              name="uploaded Fig. 3")

    monkeypatch.setattr(evalcore, "load_collection", fake_load)
    monkeypatch.setenv("EVALCORE_LOAD_INPROCESS", "1")   # the fake replaces the loader in this interpreter
    from dashboard import uploads
    uploads._uploads.clear()              # uploads are shared by content hash: forget other tests' parses
    at = _goto(_app(), "data")
    _upload(at, *_fig3_files())
    assert not at.exception and not at.error
    assert seen["qrels"][0] == "qrels.txt" and [n for n, _ in seen["runs"]] == ["Z.txt", "X.txt"]
    assert at.selectbox(key="dataset").value == "upload"
    _goto(at, "playground")
    at.selectbox(key="pl_src_run").set_value("Z")
    at.button(key="pl_copy").click().run()
    assert _metric(at, "P-measure") == "0.8571"
    # a later bad upload keeps this data
    _goto(at, "data")
    monkeypatch.setattr(evalcore, "load_collection",
                        lambda *a, **k: (_ for _ in ()).throw(evalcore.InputError("run.txt, line 1: bad")))
    (qn, qb), runs = _fig3_files()       # other bytes: the same files again would be served from the upload store
    _upload(at, (qn, qb + b"T3 0 dX 0\n"), runs)
    assert not at.exception
    assert any("run.txt, line 1" in html.unescape(e.value).replace("\u200b", "") for e in at.error)
    assert at.selectbox(key="dataset").value == "upload"


def test_uploading_runs_as_one_zip_and_gzipped_qrels():
    import gzip
    (qname, qbytes), runs = _fig3_files()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in runs:
            z.writestr(name, data)
    at = _goto(_app(), "data")
    _upload(at, ("qrels.txt.gz", gzip.compress(qbytes)), [("runs.zip", buf.getvalue())])
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="dataset").value == "upload"
    _goto(at, "playground")
    at.selectbox(key="pl_src_run").set_value("Z")
    at.button(key="pl_copy").click().run()
    assert _metric(at, "P-measure") == "0.8571"


@pytest.mark.slow      # seconds each: the default loop stays under 10 minutes (CI runs -m slow)
@pytest.mark.parametrize("threshold,level", [("relaxed", 1), ("rigid", 2)])
def test_data_page_counts_equal_trec_evals_num_ret_num_rel_num_rel_ret(clef2015, clef2015_collection,
                                                                        threshold, level):
    """The Data page's counts table on the real collection: per run, the sums over every qrels topic (the one
    without a relevant document included) equal pytrec_eval's num_ret, num_rel, num_rel_ret at -l 1 / -l 2."""
    import gzip

    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict = {}
    for line in (clef2015 / "qrels.txt").read_text().splitlines():
        t, _, d, r = line.split()
        qrels.setdefault(t, {})[d] = int(r)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"num_ret", "num_rel", "num_rel_ret"}, relevance_level=level)
    want = {}
    for p in sorted((clef2015 / "runs").iterdir()):
        run: dict = {}
        for line in gzip.decompress(p.read_bytes()).decode().splitlines():
            t, _, d, _, score, _ = line.split()
            run.setdefault(t, {})[d] = float(score)
        res = ev.evaluate(run)
        want[p.name.removesuffix(".gz").rpartition(".")[0]] = [
            int(sum(v[m] for v in res.values())) for m in ("num_ret", "num_rel", "num_rel_ret")]
    at = _app()
    at.session_state["uploaded"] = clef2015_collection
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    at.radio(key="threshold").set_value(threshold).run()
    _goto(at, "data")
    table = next(df.value for df in at.dataframe
                 if isinstance(df.value, pd.DataFrame) and "NumRelRet" in df.value.columns)
    assert {r["run"]: [int(r["NumRet"]), int(r["NumRel"]), int(r["NumRelRet"])]
            for _, r in table.iterrows()} == want
    cap = next(x.value for x in at.caption if "qrels topics" in x.value)
    assert f"Sums over all 66 qrels topics, relevant meaning level {level} or higher" in cap


def test_no_page_icon_is_fetched_from_another_origin():
    """Streamlit 1.67's frontend makes the page icon (st.navigation's and set_page_config's) the browser
    tab's favicon and fetches a ":material/...:" one from fonts.gstatic.com; the browser test
    (test_links_images_and_html_from_users_are_shown_as_text) asserts no such request is made."""
    from dashboard.pages import PAGES
    from dashboard.shell import PAGE_ICON

    icons = [p.icon for p in PAGES] + [PAGE_ICON]
    assert not [i for i in icons if i.startswith(":")], icons   # emoji only: drawn locally as a data: URL


def test_the_worked_examples_open_on_the_papers_per_topic_numbers():
    """Sakai 2007 Fig. 3 (gains 3:2:1, penalties 2:3:4) on topic T3: O(X) = P(X) = 0.50, P(Y) = 4/7,
    P(Z) = 6/7, P(inverse) = 1, P+(inverse) = 0.74 - per topic, where the means over the three topics
    are a third of that (0.1667 for X)."""
    at = _app({"data": "examples", "m": "O-measure,P-measure,P+-measure"})
    tab = next(d.value for d in at.dataframe if isinstance(d.value, pd.DataFrame) and "topic" in d.value.columns)
    t3 = tab[tab["topic"] == "T3"].set_index("run")
    assert t3.loc["X", "P-measure"] == pytest.approx(0.50, abs=5e-3)
    assert t3.loc["X", "O-measure"] == pytest.approx(0.50, abs=5e-3)
    assert t3.loc["Y", "P-measure"] == pytest.approx(4 / 7, abs=5e-3)
    assert t3.loc["Z", "P-measure"] == pytest.approx(6 / 7, abs=5e-3)
    assert t3.loc["inverse", "P-measure"] == pytest.approx(1.0, abs=5e-3)
    assert t3.loc["inverse", "P+-measure"] == pytest.approx(0.74, abs=5e-3)
    assert set(tab[tab["run"] == "X"]["topic"]) == {"T3"}          # X has a list on T3 only


def _plain_depths(c) -> tuple[np.ndarray, np.ndarray]:
    """r_1 and r_p (Sakai 2007 Sec. 3.3) by a plain walk down every ranked list: the first relevant document,
    and the first document of the highest level the list holds; 0 where the list holds no relevant one."""
    r1 = np.zeros((c.n_runs, c.n_topics), np.int64)
    rp = np.zeros_like(r1)
    for i in range(c.n_runs):
        for j in range(c.n_topics):
            lv = [int(x) for x in c.levels[i, j, :c.lengths[i, j]]]
            if max(lv, default=0) > 0:
                r1[i, j] = next(k for k, x in enumerate(lv, 1) if x > 0)
                rp[i, j] = lv.index(max(lv)) + 1
    return r1, rp


def test_rankings_depth_section_is_the_plain_walk_and_is_not_rebuilt_by_a_gain_move(sim):
    at = _goto(_app(), "rankings")
    at.session_state["rk_detail"] = "How deep (r_1, r_p)"      # its tab, opened
    at.run()
    r1, rp = _plain_depths(sim)
    both = (r1 > 0) & (rp > 0)
    want = {"median r_p": f"{np.median(rp[rp > 0]):.0f}",
            "lists where r_p > r_1": f"{(rp[both] > r1[both]).mean():.1%}",
            "mean extra ranks scanned (r_p - r_1)": f"{(rp[both] - r1[both]).mean():.1f}"}

    def depth_fig():
        figs = at.session_state["_view"]["figs"]
        return next(f for _, f in figs if "rank in the list" in str(f.layout.xaxis.title.text))
    first = depth_fig()
    at.number_input(key=gain_keys(at.session_state, 1)[1]).set_value(4.25).run()
    assert not at.exception
    assert {k: _metric(at, k) for k in want} == want
    assert depth_fig() is first                  # r_1 / r_p read no setting: the chart is made once per collection


def test_rankings_computes_only_the_open_per_topic_tab_and_the_address_keeps_it(sim):
    """The per-topic views are tabs and only the open one is drawn (a gain move pays for what is on screen);
    the tab and the two runs compared are in the address, and a link opens the same tab on the same runs."""
    at = _goto(_app(), "rankings")
    keys = {c.proto.id.rpartition("-")[2] for c in at.get("plotly_chart")}
    assert keys == {"rk_bars", "rk_shift", "rk_heat"}
    assert not any(" beats " in c.value for c in at.caption)
    runs = [str(r) for r in sim.run_ids]
    at.session_state["rk_detail"] = "Run against run"
    at.run()
    at.selectbox(key="rk_run_x").set_value(runs[3]).run()
    at.selectbox(key="rk_run_y").set_value(runs[5]).run()
    assert {c.proto.id.rpartition("-")[2] for c in at.get("plotly_chart")} == {"rk_bars", "rk_shift", "rk_diff"}
    q = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert (q["rkd"], q["rx"], q["ry"]) == ("Run against run", runs[3], runs[5])
    fresh = _goto(_app(q), "rankings")
    assert not fresh.exception
    assert fresh.selectbox(key="rk_run_x").value == runs[3] and fresh.selectbox(key="rk_run_y").value == runs[5]
    import html
    caption = html.unescape(next(c.value for c in fresh.caption if " beats " in c.value))   # ids as text
    assert caption.startswith(f"{runs[3]} beats {runs[5]} on ")
