"""How text and numbers are written into the tables people paste: one LaTeX escaper, one Markdown
escaper and one p-value format for every table and export (``compare``'s tables, the ``report``
command's and the dashboard's LaTeX). Pure Python."""
from __future__ import annotations

import math

__all__ = ["tex_escape", "md_escape", "format_p", "P_FLOOR"]

#: LaTeX's special characters (and a few symbols written as LaTeX: +-, en dash, >=, <=, middle dot).
TEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
               "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
               "<": r"\textless{}", ">": r"\textgreater{}", "\u00b7": ";", "\u00b1": r"$\pm$", "\u2013": "--",
               "\u2265": r"$\geq$", "\u2264": r"$\leq$"}
#: Markdown's characters that would start markup, written with a backslash.
MD_SPECIAL = "\\`*_[]<>|#~$"
#: p-values below this are written as "< 0.001".
P_FLOOR = 0.001


def tex_escape(text) -> str:
    r"""``text`` with LaTeX's special characters escaped.

    >>> tex_escape("ndcg_cut_10 & 5% <x>")
    'ndcg\\_cut\\_10 \\& 5\\% \\textless{}x\\textgreater{}'
    """
    return "".join(TEX_ESCAPES.get(ch, ch) for ch in str(text))


def md_escape(text) -> str:
    r"""``text`` for a Markdown table cell or paragraph: markup characters (and ``|``) backslashed.

    >>> md_escape("run_1 | *x*")
    'run\\_1 \\| \\*x\\*'
    """
    return "".join("\\" + ch if ch in MD_SPECIAL else ch for ch in str(text))


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
