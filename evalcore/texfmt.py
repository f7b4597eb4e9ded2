"""How text and numbers are written into the tables people paste: one LaTeX escaper, one Markdown
escaper and one p-value format for every table and export (``compare``'s tables, the ``report``
command's and the dashboard's LaTeX). Pure Python."""
from __future__ import annotations

import math
import re

__all__ = ["tex_escape", "md_escape", "format_p", "visible", "P_FLOOR"]

#: LaTeX's special characters (and the symbols the tables use, written as LaTeX so that pdflatex with its
#: default fonts compiles and shows them: +-, en and em dash, minus sign, >=, <=, times, degree, middle dot,
#: and the bar, which the default OT1 text font draws as an em dash; tests/test_latex_compile.py compiles
#: every table).
TEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
               "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
               "<": r"\textless{}", ">": r"\textgreater{}", "\u00b7": ";", "\u00b1": r"$\pm$", "\u2013": "--",
               "\u2014": "---", "\u2212": "$-$", "\u00d7": r"$\times$", "\u00b0": r"$^{\circ}$",
               "\u2265": r"$\geq$", "\u2264": r"$\leq$", "|": "$|$"}
#: Markdown's characters that would start markup, written with a backslash.
MD_SPECIAL = "\\`*_[]<>|#~$"
#: p-values below this are written as "< 0.001".
P_FLOOR = 0.001


#: Characters a reader cannot see but that change what is shown: C0/C1 controls (tab, line feed and carriage
#: return excepted: the callers turn them into spaces or lines), the bidirectional marks, embeddings, overrides
#: and isolates (U+061C, U+200E/F, U+202A-E, U+2066-9: "run\u202ecod.txt" displays as "runtxt.doc"), zero-width
#: characters, the soft hyphen, the line and paragraph separators and the byte-order mark.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
                        "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")


def visible(text) -> str:
    r"""``text`` with every invisible or reordering character written as a ``\uXXXX`` escape, so that an id
    shows what it holds: ``run\u202ecod`` is not read as ``rundoc`` beside a real run. Used wherever ids
    are displayed (the dashboard's Markdown and labels, the CLI's text tables, the Markdown and LaTeX
    escapers); data formats (CSV, JSON) keep the exact characters.

    >>> visible("run\u202ecod")
    'run\\u202ecod'
    >>> visible("a\x00b\u200bc")
    'a\\u0000b\\u200bc'
    """
    s = str(text)
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", s) if _INVISIBLE.search(s) else s


def any_invisible(texts) -> bool:
    """Whether any of the strings ``texts`` holds a character :func:`visible` would escape (one search over
    them all: a table of ids is checked at the cost of one string, not one call per cell).

    >>> any_invisible(["run1", "run2"]), any_invisible(["run1", "run\u202ecod"])
    (False, True)
    """
    return _INVISIBLE.search("\n".join(t for t in texts if isinstance(t, str))) is not None


def tex_escape(text) -> str:
    r"""``text`` with LaTeX's special characters escaped.

    >>> tex_escape("ndcg_cut_10 & 5% <x>")
    'ndcg\\_cut\\_10 \\& 5\\% \\textless{}x\\textgreater{}'
    """
    return "".join(TEX_ESCAPES.get(ch, ch) for ch in visible(text))


def md_escape(text) -> str:
    r"""``text`` for a Markdown table cell or paragraph: markup characters (and ``|``) backslashed.

    >>> md_escape("run_1 | *x*")
    'run\\_1 \\| \\*x\\*'
    """
    return "".join("\\" + ch if ch in MD_SPECIAL else ch for ch in visible(text))


def format_p(p, fmt: str = "text") -> str:
    r"""A p-value as every table writes it: ``< 0.001`` below 0.001, else three significant digits
    (``0.0123``, ``0.456``, ``1``); ``-`` when undefined. ``fmt="latex"`` writes the ``<`` in math mode.

    >>> [format_p(v) for v in (5e-9, 0.00392, 0.0123456, 0.5, 1.0, float("nan"))]
    ['< 0.001', '0.00392', '0.0123', '0.5', '1', '-']
    >>> format_p(2e-5, "latex")
    '$<$ 0.001'
    """
    if p is None:
        return "-"
    p = float(p)
    if math.isnan(p):
        return "-"
    if p < P_FLOOR:
        return ("$<$ " if fmt == "latex" else "< ") + f"{P_FLOOR:g}"
    return f"{p:.3g}"
