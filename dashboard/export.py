"""The current view as one self-contained interactive HTML file: what the page drew, in its order
(headings, text, charts, tables and their captions), the settings in words, a summary of the data,
the references and the link that reopens the view. The charts are plotly, with plotly.js inlined: the
file requests nothing from any other origin. Pure python + plotly, no streamlit (the page notes what
it draws through dashboard.widgets).

The page's texts are the Markdown it gave Streamlit: :func:`md_html` turns the few constructs the pages
use (bold, italics, code, line breaks, lists, tables) into HTML and escapes everything else, so a name
from a user stays text and no literal markup (``**``, ``<br>``, ``&#95;``) is left in the file.
"""
from __future__ import annotations

import datetime as _dt
import html
import re
from functools import lru_cache

import numpy as np
import pandas as pd
import plotly.io as pio

from evalcore.texfmt import format_p

from . import pages

__all__ = ["view_html", "md_html", "plain_label", "table_html", "choice_words", "MAX_TABLE_ROWS"]


@lru_cache(maxsize=1)
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs
    return get_plotlyjs()


_CSS = """body{font-family:Inter,'Source Sans Pro',sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em}h3{font-size:1.05em;margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;font-size:.9em}
th{text-align:left;background:#f6f6f6}td.n{text-align:right;font-variant-numeric:tabular-nums}
.cap{color:#555;font-size:.9em}.chart{margin:1em 0}code{background:#f3f3f3;padding:0 .2em}"""

#: Most rows of one table written into the file; a longer table says how many rows it leaves out.
MAX_TABLE_ROWS = 2000

#: The page choices of the address (dashboard.state.page_keys) in words, for the settings block: each
#: control's ``words``, declared with its page (dashboard/pages.py).
CHOICE_WORDS = {c.key: c.words for c in pages.all_controls() if c.words}

#: Which page reads which choices (by its path; the root shows the Overview): its own controls and those of
#: the pages it ``reads``.
PAGE_CHOICES = {p.url_path: frozenset(c.key for q in (p, *map(pages.by_name, p.reads)) for c in q.controls)
                for p in pages.PAGES}
PAGE_CHOICES[pages.ROOT_NAME] = PAGE_CHOICES[pages.HOME.url_path]


def choice_words(page: str, values: dict) -> list[str]:
    """``"<what> : <value>"`` for each of ``page``'s own choices in ``values`` (session key -> value), in
    words; a choice no page reads is left out, an empty one reads "the page's default"."""
    keys = PAGE_CHOICES.get(page, frozenset())
    out = []
    for key, v in values.items():
        if key not in keys or key not in CHOICE_WORDS:
            continue
        shown = ("yes" if v else "no") if isinstance(v, bool) else ("the page's default" if v == "" else f"{v}")
        out.append(f"{CHOICE_WORDS[key]}: {shown}")
    return out


# -- text --------------------------------------------------------------------------------------------
_INLINE = re.compile(r"`([^`\n]+)`|\*\*(.+?)\*\*|(?<![\w*])\*(?![\s*])(.+?)(?<![\s*])\*(?![\w*])"
                     r"|\\([!-/:-@\[-`{-~])| {2,}\n|\n")


def _plain(s: str) -> str:
    # numeric references (dashboard.safe.md writes punctuation as &#42;) become characters, then escaped
    return html.escape(html.unescape(s), quote=False)


def _inline(text: str) -> str:
    out, at = [], 0
    for m in _INLINE.finditer(text):
        out.append(_plain(text[at:m.start()]))
        code, bold, em, esc = m.group(1), m.group(2), m.group(3), m.group(4)
        if code is not None:
            out.append(f"<code>{html.escape(code, quote=False)}</code>")
        elif bold is not None:
            out.append(f"<b>{_inline(bold)}</b>")
        elif em is not None:
            out.append(f"<i>{_inline(em)}</i>")
        elif esc is not None:
            out.append(html.escape(esc, quote=False))
        else:
            out.append("<br>" if m.group().startswith("  ") else " ")
        at = m.end()
    out.append(_plain(text[at:]))
    return "".join(out)


def _md_table(lines: list[str]) -> str:
    def cells(line):
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
    head, body = cells(lines[0]), [cells(x) for x in lines[2:]]
    right = ["---:" in x or x.strip().endswith(":") for x in cells(lines[1])]
    rows = ["<tr>" + "".join(f"<th>{_inline(h)}</th>" for h in head) + "</tr>"]
    rows += ["<tr>" + "".join(f'<td{" class=n" if i < len(right) and right[i] else ""}>{_inline(v)}</td>'
                              for i, v in enumerate(r)) + "</tr>" for r in body]
    return "<table>" + "".join(rows) + "</table>"


def md_html(text: str) -> str:
    """The Markdown of a caption or text as HTML: bold, italics, code spans, backslash escapes, hard
    line breaks, ``- `` lists and GitHub tables; every other character is escaped, numeric character
    references decoded first. Links and images are not Markdown here (they stay text): the file
    loads nothing."""
    lines = str(text).split("\n")
    out, para, i = [], [], 0

    def flush():
        if para:
            out.append("<p>" + _inline("\n".join(para)) + "</p>")
            para.clear()
    while i < len(lines):
        ln = lines[i]
        if ln.lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|?\s*:?-{3,}", lines[i + 1]):
            flush()
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            out.append(_md_table(lines[i:j]))
            i = j
            continue
        if re.match(r"^\s*[-*] ", ln):
            flush()
            items = []
            while i < len(lines) and re.match(r"^\s*[-*] ", lines[i]):
                items.append("<li>" + _inline(re.sub(r"^\s*[-*] ", "", lines[i])) + "</li>")
                i += 1
            out.append("<ul>" + "".join(items) + "</ul>")
            continue
        if not ln.strip():
            flush()
        else:
            para.append(ln)
        i += 1
    flush()
    return "".join(out)


def plain_label(text: str) -> str:
    """A plotly title as plain text: ``<br>`` a space, other tags dropped, entities decoded."""
    t = re.sub(r"<br\s*/?>", " ", str(text), flags=re.I)
    t = re.sub(r"</?[a-zA-Z][^>]*>", "", t)
    return re.sub(r"\s+", " ", html.unescape(t)).strip()


# -- tables ------------------------------------------------------------------------------------------
def _printf(fmt: str, v) -> str | None:
    m = re.fullmatch(r"(.*?)%(\.\d+)?([fgde])(.*)", fmt.replace("%%", "\0"))
    if not m:
        return None
    pre, prec, kind, post = m.groups()
    return (pre + format(float(v), f"{prec or ''}{kind}") + post).replace("\0", "%")


def _cell(v, digits: int, fmt: str | None, p_value: bool) -> tuple[str, bool]:
    """(text, is a number) of one cell."""
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
        return "", True
    if isinstance(v, (bool, np.bool_)):
        return ("yes" if v else "no"), False
    if isinstance(v, (int, np.integer)):
        return str(int(v)), True
    if isinstance(v, (float, np.floating)):
        if p_value:
            return format_p(float(v), "text"), True
        if fmt and (s := _printf(fmt, v)) is not None:
            return s, True
        return f"{float(v):.{digits}f}", True
    return str(v), False


def _is_p(name: str) -> bool:
    n = name.lower()
    return n in ("p", "p_value", "p_adjusted", "asl") or n.startswith(("p (", "p adjusted", "p-value"))


def table_html(df: pd.DataFrame, *, digits: int = 4, columns: dict | None = None, index: bool = False) -> str:
    """``df`` as an HTML table as the page shows it: the column labels and number formats of its Streamlit
    column settings (``columns``: name -> column config), floats at ``digits`` decimals otherwise,
    p-values as evalcore.texfmt.format_p writes them; at most :data:`MAX_TABLE_ROWS` rows (saying so)."""
    columns = columns or {}
    d = df.reset_index() if index and not isinstance(df.index, pd.RangeIndex) else df
    n = len(d)
    d = d.iloc[:MAX_TABLE_ROWS]
    heads, fmts, ps = [], [], []
    for col in d.columns:
        cfg = columns.get(col) or {}
        label = cfg.get("label") if isinstance(cfg, dict) else None
        fmt = ((cfg.get("type_config") or {}).get("format") if isinstance(cfg, dict) else None)
        heads.append(str(label or col))
        fmts.append(fmt if isinstance(fmt, str) else None)
        ps.append(_is_p(str(col)) or _is_p(str(label or "")))
    rows = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in heads) + "</tr>"]
    for row in d.itertuples(index=False, name=None):
        cells = []
        for v, fmt, p in zip(row, fmts, ps, strict=True):
            text, num = _cell(v, digits, fmt, p)
            cells.append(f"<td{' class=n' if num else ''}>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    more = (f'<p class="cap">The first {MAX_TABLE_ROWS} of {n} rows; the dashboard shows them all.</p>'
            if n > MAX_TABLE_ROWS else "")
    return "<table>" + "".join(rows) + "</table>" + more


# -- the document ------------------------------------------------------------------------------------
def _chart(fig, i: int) -> str:
    """One chart of the export, its axes' margins grown to hold their tick labels and titles (``automargin``):
    the figures leave 10 px for the dashboard, whose chart theme grows them, and plotly.js alone does not,
    so run names and metric names were cut off in the exported file (tests/test_browser_export.py)."""
    fig = type(fig)(fig)                   # a copy: figures may come from a cache
    fig.update_layout({k: {"automargin": True} for k in fig.to_plotly_json()["layout"]
                       if k.startswith(("xaxis", "yaxis"))} or {"xaxis": {"automargin": True},
                                                                  "yaxis": {"automargin": True}})
    return '<div class="chart">' + pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=f"chart{i}",
                                               config={"displaylogo": False, "responsive": True}) + "</div>"


def view_html(title: str, items: list, *, settings: list[str], summary: dict[str, object], link: str = "",
              references: list[tuple[str, str]] | tuple = (), generated: _dt.datetime | None = None) -> str:
    """One HTML document: ``title``, the data ``summary``, the settings (``settings``: lines in words,
    Markdown as on screen), then the view's ``items`` in order - ``{"kind": "chart", "label", "fig"}``,
    ``{"kind": "table", "label", "frame", "digits", "columns", "index"}``, ``{"kind": "caption" | "text" |
    "heading", "text"}`` (a bare ``(label, figure)`` pair is a chart) - the ``references`` ((short,
    full) pairs) and the ``link``. Every text is escaped (names and ids come from users)."""
    esc = html.escape
    when = (generated or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{esc(title)}</title>", f"<style>{_CSS}</style>",
             f"<script>{_plotly_js()}</script>", "</head><body>",
             f"<h1>{esc(title)}</h1>",
             f'<p class="cap">Exported from the evalcore dashboard on {esc(when)}. The charts are interactive '
             "(hover, zoom); this file needs no network and no installation.</p>",
             "<h2>Data</h2><table>"]
    parts += [f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>" for k, v in summary.items()]
    parts.append("</table>")
    if settings:
        parts.append('<h2>Settings</h2><ul class="settings">')
        parts += [f"<li>{_inline(line)}</li>" for line in settings]
        parts.append("</ul>")
    parts.append("<h2>The view</h2>")
    n_chart = 0
    for item in items:
        if isinstance(item, tuple):
            item = {"kind": "chart", "label": item[0], "fig": item[1]}
        kind = item["kind"]
        if kind == "chart":
            label = plain_label(item.get("label") or "")
            parts.append(f"<h3>{esc(label)}</h3>" if label else "")
            parts.append(_chart(item["fig"], n_chart))
            n_chart += 1
        elif kind == "table":
            label = plain_label(item.get("label") or "")
            parts.append(f"<h3>{esc(label)}</h3>" if label else "")
            parts.append(table_html(item["frame"], digits=int(item.get("digits", 4)), columns=item.get("columns"),
                                    index=bool(item.get("index"))))
        elif kind == "heading":
            parts.append(f"<h2>{_inline(item['text'])}</h2>")
        elif kind == "caption":
            parts.append(f'<div class="cap">{md_html(item["text"])}</div>')
        else:
            parts.append(md_html(item["text"]))
    if references:
        parts.append("<h2>References</h2><ul>")
        parts += [f"<li><b>{esc(short)}</b>: {esc(full)}</li>" for short, full in references]
        parts.append("</ul>")
    if link:
        parts.append(f'<p class="cap">The view in the dashboard (while its server runs): '
                     f"<code>{esc(link)}</code></p>")
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)
