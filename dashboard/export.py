"""The current view as one self-contained interactive HTML file: its charts (plotly, with plotly.js
inlined: no network needed to open it), the settings, a summary of the data and the link that
reopens the view. Pure python + plotly, no streamlit (the page collects the figures it drew)."""
from __future__ import annotations

import datetime as _dt
import html
import json
from functools import lru_cache

import plotly.io as pio


@lru_cache(maxsize=1)
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs
    return get_plotlyjs()


_CSS = """body{font-family:Inter,'Source Sans Pro',sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse}
td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;font-size:.9em}pre{background:#f6f6f6;padding:1em;
overflow:auto}.cap{color:#555;font-size:.9em}"""


def view_html(title: str, figures: list[tuple[str, object]], *, settings: dict, summary: dict[str, object],
              link: str = "", generated: _dt.datetime | None = None) -> str:
    """One HTML document: ``title``, a table of ``summary`` (the data), every ``(label, plotly figure)``,
    the ``settings`` as JSON and the ``link``. Every text is HTML-escaped (names and ids come from users)."""
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
    for i, (label, fig) in enumerate(figures):
        parts.append(f"<h2>{esc(label)}</h2>" if label else "")
        parts.append(pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=f"chart{i}",
                                 config={"displaylogo": False}))
    parts.append("<h2>Settings</h2>")
    parts.append(f"<pre>{esc(json.dumps(settings, indent=1, default=str))}</pre>")
    if link:
        parts.append(f'<p class="cap">The view in the dashboard (while its server runs): '
                     f"<code>{esc(link)}</code></p>")
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)
