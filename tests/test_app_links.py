"""A link is the view: every choice that changes what is drawn is in the address, a
second session opening that address sees the same thing, and a link to uploaded data
reopens it while the server holds it - or says what is missing, never falling back
silently to the simulated data. Pages come from one registry.
"""
from __future__ import annotations

import ast
import html
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from dashboard import links, stores  # noqa: E402
from dashboard.pages import PAGES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
SMALL = {"nt": "12", "nr": "6", "swb": "100", "bsb": "100", "stb": "50", "gvb": "100", "gvrep": "3"}


def _app(query: dict | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    if page:
        at.switch_page(f"views/{page}.py").run()
        assert not at.exception, [e.message for e in at.exception]
    return at


def _query(at: AppTest) -> dict[str, str]:
    """The address's query as the browser would copy it (one value per name)."""
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def test_the_registry_is_the_navigation_and_names_files_without_number_prefixes():
    views = sorted(p.name for p in (ROOT / "views").glob("*.py"))
    assert views == sorted(p.file for p in PAGES), "every page file is in the registry, and only those"
    assert all(not p.file[0].isdigit() for p in PAGES)
    assert len({p.url_path for p in PAGES}) == len(PAGES)
    # AppTest finds a page by its file name before the first run (AppTest.switch_page): a page served at
    # another address would open as the Overview in the page tests, which would then blame the Overview's widgets
    odd = [f"{p.file} at /{p.url_path}" for p in PAGES if p.url_path != p.file.removesuffix(".py")]
    assert not odd, f"a page's address is its file's name (views/NAME.py at /NAME): {', '.join(odd)}"
    # app.py builds its pages from the registry, not from a list of its own
    tree = ast.parse((ROOT / "app.py").read_text())
    literals = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not [s for s in literals if s.startswith("views/")], "app.py names page files itself"


@pytest.mark.parametrize("page, query, widget, kind, value", [
    ("overview", {"ov": "Q-measure"}, "ov_metric", "selectbox", "Q-measure"),
    ("gains", {"gv": "nDCG@10"}, "gv_metric", "selectbox", "nDCG@10"),
    ("swap", {"swc": "0.9"}, "sw_conf", "segmented_control", 0.9),
    ("significance", {"sgtest": "wilcoxon", "sgcorr": "bh"}, "_w_sg_test", "selectbox", "wilcoxon"),
    ("correlation", {"kc": "Q-measure", "kl": "2"}, "kc_level", "radio", 2),
])
def test_a_page_choice_in_the_address_opens_that_view(page, query, widget, kind, value):
    at = _app({**SMALL, **query}, page)
    got = getattr(at, kind)(key=widget).value
    assert got == value, f"{page}: {widget} = {got!r}, the address says {value!r}"
    # and it stays in the address, so a copy of it gives the same view again
    q = _query(at)
    for name, v in query.items():
        assert q.get(name) == v, (name, q)


@pytest.mark.parametrize("page, widget, kind, new, name, text", [
    ("overview", "ov_metric", "selectbox", "Q-measure", "ov", "Q-measure"),
    ("swap", "sw_conf", "segmented_control", 0.9, "swc", "0.9"),
    ("gains", "gv_metric", "selectbox", "nDCG@10", "gv", "nDCG@10"),
])
def test_changing_a_page_choice_writes_it_to_the_address_at_once(page, widget, kind, new, name, text):
    at = _app(SMALL, page)
    getattr(at, kind)(key=widget).set_value(new).run()
    assert not at.exception
    assert _query(at).get(name) == text       # this run, not one run later
    again = _app(_query(at), page)            # a colleague opening the copied address
    assert getattr(again, kind)(key=widget).value == new


def test_the_bootstrap_tab_is_in_the_address():
    at = _app({**SMALL, "bst": "Randomised Tukey HSD"}, "bootstrap")
    assert at.session_state["bs_tab"] == "Randomised Tukey HSD"
    assert _query(at)["bst"] == "Randomised Tukey HSD"
    bad = _app({**SMALL, "bst": "<b>nope</b>"}, "bootstrap")       # a tab the page does not have: the first
    assert bad.session_state["bs_tab"] == "Paired bootstrap test"


QRELS = b"".join(f"t{t} 0 d{d} {(d + t) % 3}\n".encode() for t in range(1, 4) for d in range(1, 9))
RUNS = [(f"run{r}.txt", b"".join(f"t{t} Q0 d{d} {i + 1} {20 - i - r} run{r}\n".encode()
                                 for t in range(1, 4) for i, d in enumerate(sorted(range(1, 9),
                                                                                   key=lambda d: (d * (r + 2)) % 9))))
        for r in range(4)]


def _upload(at: AppTest, name: str, qrels_name: str = "qrels.txt") -> AppTest:
    at.file_uploader(key="up_qrels").set_value((qrels_name, QRELS, "text/plain"))
    at.file_uploader(key="up_runs").set_value([(n, b, "text/plain") for n, b in RUNS])
    at.run()
    at.text_input(key="up_name").set_value(name).run()
    at.button(key="up_load").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_a_link_to_uploaded_data_reopens_it_while_the_server_holds_it():
    links._links.clear()
    at = _app(None, "data")
    _upload(at, "three topics")
    at.switch_page("views/overview.py").run()
    q = _query(at)
    assert q["data"] == "upload" and len(q["up"]) == 40 + 1 + 12 and q["upname"] == "three topics"
    other = _app(q)                                   # another browser, the copied address
    assert other.session_state["dataset"] == "upload"
    c = other.session_state["uploaded"]
    assert (c.n_runs, c.n_topics, c.name) == (4, 3, "three topics")
    assert not other.error
    assert any("three topics" in x.value for x in other.caption)


def test_a_link_to_uploaded_data_the_server_lost_says_so_and_shows_no_other_data():
    links._links.clear()
    q = {"data": "upload", "up": "0" * 40, "upname": "Alice's runs", "gains": "4:2:1"}
    at = _app(q)
    assert at.error and "cannot be opened here" in at.error[0].value
    assert "does not hold it" in at.error[0].value
    assert "before the server restarted" in at.error[0].value and "EVALCORE_SERVER_MEMORY_MB" in at.error[0].value
    assert any("Alice's runs" in t.value for t in at.text)
    assert len(at.get("plotly_chart")) == 0, "no chart of some other data"
    assert at.session_state["dataset"] == "upload"       # not silently switched
    assert _query(at)["gains"] == "4:2:1"               # the rest of the link is kept
    # the Data page explains the same and lets the files be loaded there
    at.switch_page("views/data.py").run()
    assert not at.exception
    assert at.error and "cannot be opened here" in at.error[0].value
    assert at.file_uploader(key="up_qrels") is not None
    # the button offers the simulated data, explicitly
    sim = _app(q)
    sim.button[0].click().run()
    assert sim.session_state["dataset"] == "sim" and len(sim.get("plotly_chart")) >= 1


def test_more_than_four_uploads_reopen_from_their_links():
    """Only the 4 most recent uploads reopened from a link, however little they held: links are kept by the
    server's memory for collections (memory / 8), which six small uploads are far from filling."""
    links._links.clear()
    queries = [_query(_upload(_app(None, "data"), f"class {i}", qrels_name=f"qrels-{i}.txt")) for i in range(6)]
    assert len({q["up"] for q in queries}) == 6
    for i, q in enumerate(queries):
        opened = _app(q)
        assert not opened.error, (i, [e.value for e in opened.error])
        assert opened.session_state["uploaded"].report.qrels_source.endswith(f"qrels-{i}.txt")
    assert links._links().nbytes <= links.UPLOAD_LINKS_BYTES == stores.BUDGET.collections_bytes


_BUDGET_RUN = r"""
import sys
sys.path.insert(0, {tests!r})
from test_app_links import _app, _query, _upload
from dashboard import links, stores
from evalcore.simulate import simulated_collection
assert links.UPLOAD_LINKS_BYTES == 32 << 20, links.UPLOAD_LINKS_BYTES      # 256 MB / 8
small = _query(_upload(_app(None, "data"), "small", qrels_name="small-qrels.txt"))
big = [simulated_collection(200, 100, depth=1000, seed=s) for s in (1, 2)]     # 19 MiB each
k1 = links.share_upload(big[0])                       # small + big 1: 19 MiB, within 32
assert not _app(small).error                           # the small upload opened: now the most recent
k2 = links.share_upload(big[1])                       # 38 MiB: the least recently used goes, big 1
assert links.shared_upload(k1) is None and links.shared_upload(k2) is not None
assert not _app(small).error, "the small upload was used after big 1: it stays"
gone = _app(dict(small, up=k1, upname="big one"))
print("REASON", gone.error[0].value)
links.share_upload(simulated_collection(200, 100, depth=1000, seed=3))
links.share_upload(simulated_collection(200, 100, depth=1000, seed=4))
print("SMALL", _app(small).error[0].value if _app(small).error else "open")
"""


def test_links_are_kept_by_the_memory_budget_least_recently_used_first(tmp_path):
    """A server with EVALCORE_SERVER_MEMORY_MB=256 (its smallest) keeps 32 MB of uploads for links: two
    simulated collections of 19 MiB do not fit together, and the least recently used goes, with a message
    saying when and why."""
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _BUDGET_RUN.format(tests=str(ROOT / "tests"))], cwd=ROOT,
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "EVALCORE_SERVER_MEMORY_MB": "256"})
    assert out.returncode == 0, out.stderr[-3000:]
    reason = out.stdout.split("REASON ", 1)[1].split("\n", 1)[0]
    assert "cannot be opened here" in reason and "let go at" in reason, reason
    assert "to make room for newer uploads" in reason and "19.2 MiB" in reason and "32 MB" in reason, reason
    assert "EVALCORE_SERVER_MEMORY_MB" in reason and "least recently used" in reason, reason
    small = out.stdout.split("SMALL ", 1)[1].split("\n", 1)[0]
    assert "let go at" in small, small            # two more large uploads push the small one out too


def test_upload_links_can_be_turned_off(monkeypatch):
    links._links.clear()
    at = _app(None, "data")
    _upload(at, "private")
    q = _query(at)
    monkeypatch.setenv("EVALCORE_UPLOAD_LINKS", "off")
    other = _app(q)
    assert other.error and "does not reopen uploaded data from links" in other.error[0].value


def test_two_sessions_with_the_same_bytes_keep_their_own_names():
    """Cache keys carry what is shown: the top-N subset of one upload under two titles."""
    links._links.clear()
    alice = _upload(_app(None, "data"), "ALICE-PRIVATE-PROJECT")
    bob = _upload(_app(None, "data"), "bob")
    for at, name, other in ((alice, "ALICE-PRIVATE-PROJECT", "bob"), (bob, "bob", "ALICE-PRIVATE-PROJECT")):
        at.number_input(key="top_n").set_value(2).run()
        at.switch_page("views/overview.py").run()
        shown = html.unescape(" ".join(x.value for x in at.caption)).replace("\u200b", "")     # as the browser shows it
        assert name in shown and other not in shown, shown[:300]


def test_a_link_shows_the_names_of_the_upload_it_was_made_from():
    """Two uploads of the same bytes share a content hash; the link store kept the first one's load report,
    so Carol's link showed Alice's file name. The link's key now carries its own upload's report."""
    links._links.clear()
    alice = _upload(_app(None, "data"), "alice", qrels_name="alice-private-judgments.txt")
    carol = _upload(_app(None, "data"), "carol", qrels_name="carol-qrels.txt")
    qa, qc = _query(alice), _query(carol)
    assert qa["up"][:40] == qc["up"][:40] and qa["up"] != qc["up"]   # the same bytes, two links
    for q, mine, other in ((qc, "carol-qrels.txt", "alice-private-judgments.txt"),
                           (qa, "alice-private-judgments.txt", "carol-qrels.txt")):
        opened = _app(q, "data")
        c = opened.session_state["uploaded"]
        assert c.report.qrels_source.endswith(mine) and not opened.error
        shown = html.unescape(" ".join(str(x.value) for els in (opened.get("markdown"), opened.caption, opened.text)
                                       for x in els))
        assert other not in shown.replace("\u200b", ""), shown[:400]


@pytest.mark.parametrize("page", ["overview", "rankings", "correlation"])
def test_top_one_run_analyses_the_best_two_and_says_so(page):
    """``top=1`` (the sidebar allows 1) left one run, and correlating one ranking raised; the best two are
    used instead, with a warning that names the value used."""
    at = _app({"top": "1"}, page)
    assert not at.exception, at.exception[0].value if at.exception else ""
    assert not at.error, at.error[0].value
    warned = " ".join(w.value for w in at.sidebar.warning)
    assert "Top N = 1" in warned and "best 2 runs are used" in warned
    assert "2 runs" in " ".join(x.value for x in at.caption), [x.value for x in at.caption][:3]


@pytest.mark.parametrize("page, name, key, good", [
    ("playground", "plcmp", "pl_cmp", "this list"),
    ("significance", "sgcm", "sg_cmp_metrics", "RR")])
def test_a_list_from_the_address_keeps_what_the_page_offers_and_names_the_rest(page, name, key, good):
    """A page's own list in the address (``kind="list"``): the values the page offers are kept, the others
    dropped with a notice that quotes them as text."""
    at = _app({name: f"{good},**nonsense**"}, page)
    assert not at.exception and at.session_state[key] == [good]
    raw = " ".join(t.value for t in at.toast)
    shown = html.unescape(raw)                # as the browser shows the character references
    assert "'**nonsense**'" in shown and f"in {name}= of the address: not offered here" in shown
    assert "**" not in raw                    # the address's text, never Markdown (no bold)
    assert _query(at).get(name) == good       # the address carries what is used


def test_a_long_list_in_the_address_is_cut_before_use_and_the_notice_stays_short():
    junk = ",".join(f"x{i}" for i in range(5000))
    at = _app({"plcmp": "this list," + junk}, "playground")
    assert not at.exception and at.session_state["pl_cmp"] == ["this list"]
    shown = html.unescape(" ".join(t.value for t in at.toast))
    assert "'x0'" in shown and "and 94 more" in shown and "x4999" not in shown     # 100 values read, 99 dropped
