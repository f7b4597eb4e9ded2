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

import html
import re

#: Longest piece of user text put on screen in one place (a title, an id, a message).
MAX_SHOWN = 500

_ASCII_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")
#: What GFM's autolink literal starts from: a scheme's ``:``, an ``@``, a ``www`` before a dot.
_AUTOLINK = re.compile(r"[:@]|(?i:www)(?=\.)")
#: The invisible character :func:`md` puts after each of them.
ZWSP = "\u200b"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")


def md(text, limit: int = MAX_SHOWN) -> str:
    r"""``text`` as literal characters inside Markdown, on one line.

    Every ASCII punctuation character becomes a numeric character reference
    (``[`` -> ``&#91;``), which CommonMark shows as the character and never
    reads as syntax: no link, image, emphasis, HTML, ``:red[...]`` or ``$math$``
    can form. GFM's bare-URL and e-mail autolinks are found in the decoded text,
    so a zero-width space follows every ``:``, ``@`` and a ``www`` before a dot
    (invisible on screen).
    Line breaks become spaces, other control characters are dropped, and the
    text is cut at ``limit`` characters (with an ellipsis).

    >>> md("[x](https://evil.example)")
    '&#91;x&#93;&#40;https&#58;\u200b&#47;&#47;evil&#46;example&#41;'
    >>> md("run_1")
    'run&#95;1'
    """
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "..."
    s = _CONTROL.sub("", s.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))
    # Streamlit's Markdown (remark-gfm) finds bare URLs and e-mail addresses in the text *after*
    # character references are decoded, so those are broken with an invisible zero-width space
    s = _AUTOLINK.sub(lambda m: m.group() + ZWSP, s)
    return _ASCII_PUNCT.sub(lambda m: f"&#{ord(m.group())};", s)


def md_lines(text, limit: int = 4000) -> str:
    """A multi-line message (a loader's error) for Markdown: each line escaped with
    :func:`md`, the lines kept as Markdown line breaks."""
    lines = str(text)[:limit].splitlines() or [""]
    return "  \n".join(md(ln) for ln in lines)


def plot(text, limit: int = MAX_SHOWN) -> str:
    """``text`` for a plotly label, legend entry, tick or hover text: ``<``, ``>`` and
    ``&`` as entities, so no tag (``<a href>``) is drawn; plotly shows the characters.

    >>> plot('<a href="https://evil.example">x</a>')
    '&lt;a href="https://evil.example"&gt;x&lt;/a&gt;'
    """
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "..."
    return html.escape(s, quote=False)
