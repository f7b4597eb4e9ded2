"""Text from users is text, and no callback shows a traceback.

The escaping is checked against a CommonMark renderer (markdown-it-py, the reference
implementation's Python port): whatever a user writes renders as exactly those
characters and as no element at all. The real-browser side (links, images and HTML
through an address, a file name, run/topic ids and a settings file) is in
tests/test_browser.py.
"""
from __future__ import annotations

import ast
import html
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from dashboard import safe

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = [
    "[Session expired - sign in again](https://evil.example/login)",
    "![x](https://evil.example/pixel.png?leak=1)",
    "<img src=https://evil.example/i.png>",
    '<a href="https://evil.example">click</a>',
    "https://evil.example/autolink www.evil.example",
    ":red[alarm] $x^2$ **bold** `code` # head",
    "<https://evil.example/angle>",
    "[ref]\n\n[ref]: https://evil.example",
    "write to me@evil.example or ME@EVIL.EXAMPLE",
]


def _shown(rendered: str) -> str:
    """What a reader sees (and copies): the text of the rendered HTML, code spans included."""
    return html.unescape(re.sub(r"</?code>", "", rendered))


def _no_bare_url(rendered: str) -> bool:
    """GFM's autolink literal (remark-gfm in the browser) starts at "scheme://", "www." or an e-mail
    address "x@y.z" (GFM spec 6.9: the domain has at least one period); inside a code span it does not
    apply."""
    text = html.unescape(re.sub(r"<code>.*?</code>", " ", rendered))
    return not re.search(r"(?i)(https?|ftp|mailto|xmpp)://|www\.|[\w.+-]@[\w-]+\.[\w-]", text)


def _only_code(rendered: str) -> bool:
    """No element but ``<code>`` (no link, image, emphasis, HTML from the text)."""
    return re.sub(r"</?code>", "", rendered).count("<") == 0


def _render_inline(text: str) -> str:
    from markdown_it import MarkdownIt
    return MarkdownIt("commonmark", {"html": True}).renderInline(text)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_renders_as_the_same_characters_and_no_element(text):
    out = _render_inline(safe.md(text))
    assert _no_bare_url(out), out
    assert _only_code(out), out                      # no <a>, <img>, <strong>: text, URLs in code spans
    assert _shown(out) == text.replace("\n", " ")   # exactly the characters: nothing invisible added


@pytest.mark.parametrize("text", ["run_1", "[r](x) {a} *b* _c_ `d` #e <f> !g", "nDCG@10", "topic 3: [x]"])
def test_text_without_an_address_renders_without_any_element(text):
    """Run and topic ids with Markdown's specials (no address in them) are plain text: no code span."""
    out = _render_inline(safe.md(text))
    assert "<" not in out and _shown(out) == text and "\u200b" not in out


@settings(max_examples=300, deadline=None)
@given(hs.text(alphabet=hs.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=80))
def test_any_text_renders_as_itself(text):
    from evalcore.texfmt import visible

    out = _render_inline(safe.md(text))
    assert _only_code(out) and _no_bare_url(out)
    # CommonMark keeps a line's text as written, except spaces at the very end/start of the inline run;
    # invisible and reordering characters are shown as their \uXXXX escapes
    assert _shown(out).strip() == visible(text).strip()


BIDI_IDS = [("run\u202ecod", "run\\u202ecod"), ("a\u2066b\u2069", "a\\u2066b\\u2069"), ("x\u200by", "x\\u200by"),
            ("bell\x07", "bell\\u0007"), ("esc\x1b[31m", "esc\\u001b[31m"), ("\ufeffbom", "\\ufeffbom"),
            ("rtl\u200f", "rtl\\u200f")]


@pytest.mark.parametrize("text, shown", BIDI_IDS)
def test_bidi_and_control_characters_in_ids_are_shown_escaped(text, shown):
    """"run\u202ecod" displayed as "rundoc" beside a real run: every reordering or invisible character is
    shown as its escape, in Markdown and in chart labels."""
    assert _shown(_render_inline(safe.md(text))) == shown
    assert html.unescape(safe.plot(text)) == shown


def test_the_cli_text_outputs_show_bidi_ids_escaped(tmp_path, capsys):
    from evalcore.cli import main

    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n", encoding="utf-8")
    runs = []
    for tag in ("run\u202ecod", "doc"):
        r = tmp_path / tag          # the run's id is its file name
        r.write_text(f"1 Q0 d1 1 2.0 {tag}\n1 Q0 d2 2 1.0 {tag}\n2 Q0 d2 1 1.0 {tag}\n", encoding="utf-8")
        runs.append(str(r))
    for fmt in ("tsv", "trec_eval"):
        assert main(["evaluate", "--qrels", str(q), "--run", *runs, "-m", "AP", "--output", fmt]) == 0
        out = capsys.readouterr().out
        assert "run\\u202ecod" in out and "\u202e" not in out, fmt
    assert main(["evaluate", "--qrels", str(q), "--run", *runs, "-m", "AP", "--output", "jsonl"]) == 0
    assert "run\\u202ecod" in capsys.readouterr().out     # JSON's own escape
    assert main(["compare", "--qrels", str(q), "--run", *runs, "-m", "AP"]) == 0
    out = capsys.readouterr().out      # Markdown: the backslash escaped, rendered as run\u202ecod
    assert "run\\\\u202ecod" in out and "\u202e" not in out
    assert main(["evaluate", "--qrels", str(q), "--run", *runs, "-m", "AP", "--output", "csv"]) == 0
    assert "run\u202ecod" in capsys.readouterr().out          # csv keeps the exact id


def test_md_cuts_long_text_and_flattens_lines():
    assert safe.md("a" * 600, limit=10) == "aaaaaaaaaa&#46;&#46;&#46;"
    assert "\n" not in safe.md("one\ntwo\r\nthree")
    assert safe.md_lines("one\n[two](x)").split("  \n")[1] == safe.md("[two](x)")


@pytest.mark.parametrize("text", HOSTILE + ["A&B <b>", "&lt;already&gt;"])
def test_plot_labels_draw_no_tag_and_show_the_text(text):
    out = safe.plot(text)
    assert "<" not in out and ">" not in out
    assert html.unescape(out) == text


def test_figures_escape_run_ids_in_every_drawn_string():
    import pandas as pd

    from evalcore import figures
    evil = '<a href="https://evil.example">run</a>'
    means = pd.DataFrame({"AP": [0.2, 0.4]}, index=[evil, "plain"])
    fig = figures.ranking_bars(means, "AP")
    assert all("<a" not in str(y) for y in fig.data[0].y)
    assert evil in [html.unescape(y) for y in fig.data[0].y]
    diff = pd.DataFrame({"topic": ["<b>t</b>"], "x": [0.1], "y": [0.2], "diff": [-0.1]})
    fig = figures.run_difference(diff, evil, "plain", "AP")
    assert "<a href" not in fig.data[0].hovertemplate and "<a href" not in fig.layout.yaxis.title.text
    assert list(fig.data[0].x) == ["&lt;b&gt;t&lt;/b&gt;"]


# -- callbacks ----------------------------------------------------------------------------------
def _guarded_names() -> set[str]:
    names = set()
    for path in list((ROOT / "views").glob("*.py")) + list((ROOT / "dashboard").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                for d in node.decorator_list:
                    if (isinstance(d, ast.Attribute) and d.attr == "guarded") or (
                            isinstance(d, ast.Name) and d.id == "guarded"):
                        names.add(node.name)
    return names


def test_every_widget_callback_is_guarded():
    """on_click / on_change run before the page, outside shell.guard: each one must be wrapped."""
    guarded = _guarded_names()
    bad = []
    for path in list((ROOT / "views").glob("*.py")) + list((ROOT / "dashboard").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            for kw in node.keywords:
                if kw.arg not in ("on_click", "on_change"):
                    continue
                v = kw.value
                if isinstance(v, ast.Constant) and v.value in ("rerun", "ignore"):
                    continue
                if isinstance(v, ast.Call) and getattr(v.func, "attr", getattr(v.func, "id", "")) == "guarded":
                    continue
                name = v.attr if isinstance(v, ast.Attribute) else getattr(v, "id", None)
                if name not in guarded:
                    bad.append(f"{path.name}:{node.lineno} {kw.arg}={ast.unparse(v)}")
    assert not bad, "callbacks outside the error guard: " + "; ".join(bad)
    assert len(guarded) >= 10


@pytest.mark.app_bug_expected
def test_a_failing_callback_shows_an_error_box_not_a_traceback(monkeypatch, request):
    from streamlit.testing.v1 import AppTest

    from dashboard import state

    def deep(*a, **k):
        raise RecursionError("maximum recursion depth exceeded <img src=https://evil.example/x.png>")

    monkeypatch.setattr(state, "apply_settings_file", deep)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("views/report.py").run()
    at.file_uploader(key="rp_settings_file").set_value(("deep.json", b"[" * 600, "application/json"))
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    msgs = [e.value for e in at.error]
    assert any("RecursionError" in m and "applying this change" in m for m in msgs), msgs
    assert all("<img" not in m for m in msgs)
    assert at.title and at.title[0].value == "Report"        # the page is drawn, not blank
    log = request.node.app_log                                # the traceback is in the server's log
    assert len(log) == 1 and log[0].exc_info[0] is RecursionError
    at.run()                                                  # shown once, not on every run after
    assert not any("RecursionError" in e.value for e in at.error)


def test_tables_show_bidi_ids_escaped_and_keep_the_frame():
    import pandas as pd

    from dashboard.widgets import visible_ids

    df = pd.DataFrame({"run": ["run\u202ecod", "doc"], "AP": [0.1, 0.2]}, index=["t\u200b1", "t2"])
    shown = visible_ids(df)
    assert shown["run"].tolist() == ["run\\u202ecod", "doc"] and shown.index.tolist() == ["t\\u200b1", "t2"]
    assert df["run"].tolist() == ["run\u202ecod", "doc"]            # the frame (downloads) keeps the ids
    plain = pd.DataFrame({"run": ["a"], "AP": [0.5]})
    assert visible_ids(plain) is plain


# -- bidirectional controls on every page ------------------------------------------------------------------
#: U+202A-U+202E (embeddings, overrides), U+2066-U+2069 (isolates), U+200E/U+200F (marks), U+061C (the Arabic
#: letter mark): the characters that reorder what a browser shows
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
#: a JSON string escape of one of them (an odd number of backslashes before the "u"): JSON.parse in the
#: browser turns it back into the raw control, unlike the text ``\u202e`` that visible() writes
_JSON_BIDI = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:202[a-eA-E]|206[6-9]|200[eEfF]|061[cC])")


def _json_fields(msg):
    """The string fields of a protobuf message (nested ones too) that hold JSON (a chart's spec, a table's
    column settings)."""
    for _field, value in msg.ListFields():
        single = isinstance(value, (str, bytes, int, float)) or hasattr(value, "ListFields")
        for v in [value] if single else list(value):    # a repeated field: its items
            if isinstance(v, str) and v[:1] in "{[":
                yield v
            elif hasattr(v, "ListFields"):
                yield from _json_fields(v)


def _raw_bidi(node, where: str, found: list[str]) -> None:
    """Every element under ``node`` whose message to the browser holds a raw bidi control (markdown, text,
    captions, alerts, metrics, dataframes as arrow bytes, widget labels and options), or its JSON escape in a
    JSON field (a chart's spec), as 'page: element type'."""
    proto = getattr(node, "proto", None)
    if proto is not None and hasattr(proto, "SerializeToString"):
        text = proto.SerializeToString().decode("utf-8", "replace")
        if any(ch in text for ch in BIDI_CONTROLS) or any(_JSON_BIDI.search(j) for j in _json_fields(proto)):
            found.append(f"{where}: {getattr(node, 'type', type(node).__name__)}")
    children = getattr(node, "children", None)
    for child in (children.values() if isinstance(children, dict) else children or ()):
        _raw_bidi(child, where, found)


def test_bidi_controls_in_run_and_topic_ids_reach_no_page_raw():
    """A run named with U+202E read reversed on the Data page (its list of runs was plain text, unescaped)
    while every other page showed the escape. Loaded through the Data page's upload, then every page."""
    from streamlit.testing.v1 import AppTest

    from dashboard.pages import PAGES

    qrels = "".join(f"t\u2066{t}\u2069 0 d{d} {(d + t) % 3}\n" for t in range(1, 4) for d in range(1, 9)).encode()
    names = ["run\u202ecod.txt", "rtl\u200f\u061c.txt", "emb\u202a\u202b\u202c\u202d.txt", "iso\u2067\u2068.txt",
             "ltr\u200e.txt"]
    runs = [(n, "".join(f"t\u2066{t}\u2069 Q0 d{d} {i + 1} {20 - i - r} {n[:-4]}\n"
                        for t in range(1, 4) for i, d in enumerate(sorted(range(1, 9), key=lambda d: (d * (r + 2)) % 9))
                        ).encode()) for r, n in enumerate(names)]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"nt": "12", "nr": "6", "swb": "100", "bsb": "100", "stb": "50", "gvb": "100",
                            "gvrep": "3"})
    at.run()
    at.switch_page("views/data.py").run()
    at.file_uploader(key="up_qrels").set_value(("q\u202e.txt", qrels, "text/plain"))
    at.file_uploader(key="up_runs").set_value([(n, b, "text/plain") for n, b in runs])
    at.run()
    at.button(key="up_load").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    c = at.session_state["uploaded"]
    assert c.n_runs == 5 and any("\u202e" in r for r in c.run_ids) and all("\u2066" in t for t in c.topic_ids)
    found: list[str] = []
    for p in PAGES:
        at.switch_page(f"views/{p.file}").run()
        assert not at.exception, (p.file, [e.value for e in at.exception])
        _raw_bidi(at._tree, p.file, found)
    at.session_state["rk_detail"] = "Run against run"     # the Rankings tab with a choice of two runs
    at.switch_page("views/rankings.py").run()
    assert not at.exception and at.selectbox(key="rk_run_x").options
    _raw_bidi(at._tree, "rankings.py (run against run)", found)
    assert not found, "; ".join(sorted(set(found)))
    at.switch_page("views/data.py").run()
    shown = " ".join(str(t.value) for t in at.text)
    assert "run\\u202ecod" in shown and "t\\u20661\\u2069" in shown, shown[:300]
