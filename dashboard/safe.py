"""Text from users is text: escaping for the two languages the app draws in.

Everything that comes from an address, a file name, a file's content (run and
topic ids, level names, a loader's message quoting a line) or a settings file
is shown through one of these - never pasted into Markdown or a plotly label as
it is. Streamlit renders Markdown (links, images, ``:color[...]`` directives,
``$math$``) in titles, captions, alerts, toasts and widget labels; plotly
renders a few HTML tags (``<a href>``, ``<b>``, ``<br>``) in its labels.

No streamlit or plotly import: plain functions, tested on their own.
"""
from __future__ import annotations

import re

from evalcore.figures import plot_text
from evalcore.texfmt import visible

#: Longest piece of user text put on screen in one place (a title, an id, a message).
MAX_SHOWN = 500

_ASCII_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")
#: A word (up to the next space) that GFM's autolink literal would turn into a link: a ``http://``,
#: ``https://`` or ``ftp://`` address, a ``www.`` host, an e-mail address (``x@host.tld``).
_AUTOLINK_WORD = re.compile(r"[^ ]*?(?:(?i:https?|ftp)://|(?i:www)\.|@[\w-]+\.[\w-])[^ ]*")


def md(text, limit: int = MAX_SHOWN) -> str:
    r"""``text`` as literal characters inside Markdown, on one line.

    Every ASCII punctuation character becomes a numeric character reference
    (``[`` -> ``&#91;``), which CommonMark shows as the character and never
    reads as syntax: no link, image, emphasis, HTML, ``:red[...]`` or ``$math$``
    can form. GFM's bare-URL and e-mail autolinks are found in the text *after*
    references are decoded (remark-gfm in the browser), so a word that would
    become one (``https://...``, ``www.x``, ``a@b.c``) is put in a code span
    instead: shown as code, never as a link, its characters exactly as written.
    Nothing invisible is added: what a reader copies is the text itself.
    Line breaks and tabs become spaces; every other control, bidirectional or
    zero-width character is shown as its ``\uXXXX`` escape
    (:func:`evalcore.texfmt.visible`: ``run\u202ecod`` is not shown as
    "rundoc"); the text is cut at ``limit`` characters (with an ellipsis).

    >>> md("[x](https://evil.example)")
    '`[x](https://evil.example)`'
    >>> md("[x](y) *z*")
    '&#91;x&#93;&#40;y&#41; &#42;z&#42;'
    >>> md("run_1")
    'run&#95;1'
    """
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "..."
    s = visible(s.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " "))
    out, at = [], 0
    for m in _AUTOLINK_WORD.finditer(s):
        out += [_ASCII_PUNCT.sub(_reference, s[at:m.start()]), _code(m.group())]
        at = m.end()
    out.append(_ASCII_PUNCT.sub(_reference, s[at:]))
    return "".join(out)


def _reference(m: re.Match) -> str:
    return f"&#{ord(m.group())};"


def _code(word: str) -> str:
    """``word`` (no spaces) as a CommonMark code span: its characters literal, no reference decoded.
    The fence is one backtick longer than the longest run inside; a word starting or ending with a
    backtick is padded with a space each side, which CommonMark strips again."""
    fence = "`" * (max((len(r) for r in re.findall("`+", word)), default=0) + 1)
    pad = " " if word.startswith("`") or word.endswith("`") else ""
    return f"{fence}{pad}{word}{pad}{fence}"


def text(value) -> str:
    r"""``value`` for a place that shows plain text (``st.text``, a widget's options): every control,
    bidirectional or zero-width character as its ``\uXXXX`` escape (:func:`evalcore.texfmt.visible`),
    as :func:`md` and :func:`plot` show them, so a run named ``run\u202ecod`` reads the same on every page.

    >>> text("run\u202ecod")
    'run\\u202ecod'
    """
    return visible(str(value))


def md_lines(text, limit: int = 4000) -> str:
    """A multi-line message (a loader's error) for Markdown: each line escaped with
    :func:`md`, the lines kept as Markdown line breaks; cut at ``limit`` characters in all (one long line
    of a message, e.g. a work product with its limit and what to lower, is shown whole up to that)."""
    lines = str(text)[:limit].splitlines() or [""]
    return "  \n".join(md(ln, limit) for ln in lines)


def plot(text, limit: int = MAX_SHOWN) -> str:
    """``text`` for a plotly label, legend entry, tick or hover text: ``<``, ``>`` and
    ``&`` as entities, so no tag (``<a href>``) is drawn; plotly shows the characters
    (:func:`evalcore.figures.plot_text`, the one rule the figures follow too).

    >>> plot('<a href="https://evil.example">x</a>')
    '&lt;a href="https://evil.example"&gt;x&lt;/a&gt;'
    """
    return plot_text(text, limit)
