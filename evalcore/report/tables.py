"""Paper-style tables as Markdown, CSV and LaTeX (booktabs). Pure pandas.

One implementation for the ``report`` command and the dashboard's Report
page (dashboard/report.py imports :func:`to_latex` from here).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..texfmt import format_p, tex_escape

__all__ = ["to_latex", "md_table", "tex_escape", "table_files"]

def _is_p(column) -> bool:
    """A p-value column (``p``, ``p_value``, ``p_adjusted``, ``asl``, ``p (Holm)``): written by :func:`format_p`."""
    c = str(column).lower()
    return c in _P_COLUMNS or c.startswith(("p (", "p-value ("))


#: Column names (and the dashboard's words for them) that hold p-values; "ASL < 0.01" (a share) is not one.
_P_COLUMNS = {"p", "p_value", "p_adjusted", "p-value", "adjusted p-value", "p_t", "p_wilcoxon", "p_sign",
              "p_randomisation", "p_bootstrap", "asl", "asl (p-value)"}


def _cell(v, digits: int, p_value: bool = False) -> str:
    if p_value and isinstance(v, (float, np.floating, int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return format_p(v, "latex")
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{v:.{digits}f}"
    return tex_escape(v)


def _with_index(df: pd.DataFrame) -> pd.DataFrame:
    """The index as the first column; an unnamed index gets an empty header (never pandas' 'index')."""
    d = df.copy()
    name = df.index.name if df.index.name is not None else ""
    d.insert(0, "\0idx", df.index.to_numpy())
    return d.rename(columns={"\0idx": name}).reset_index(drop=True)


def to_latex(df: pd.DataFrame, caption: str, label: str, digits: int = 4, index: bool = True) -> str:
    """A booktabs table (needs \\usepackage{booktabs}). With ``index`` the index is the first column, headed
    by the index name (empty when the index has none, as the papers' tables). Text is escaped with
    :func:`evalcore.texfmt.tex_escape`; a p-value column (``p``, ``p_value``, ``p_adjusted``, ...) is
    written by :func:`evalcore.texfmt.format_p` (``< 0.001``, else three significant digits)."""
    d = _with_index(df) if index else df
    align = "".join("r" if pd.api.types.is_numeric_dtype(d.iloc[:, i]) else "l" for i in range(d.shape[1]))
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{tex_escape(caption)}}}", rf"\label{{{label}}}",
             rf"\begin{{tabular}}{{{align}}}", r"\toprule",
             " & ".join(tex_escape(c) for c in d.columns) + r" \\", r"\midrule"]
    ps = [_is_p(c) for c in d.columns]
    for row in d.itertuples(index=False):
        lines.append(" & ".join(_cell(v, digits, p) for v, p in zip(row, ps, strict=True)) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def md_table(df: pd.DataFrame, floatfmt: str = "{:.4f}", index: bool = False) -> str:
    """A GitHub Markdown table; NaN is the papers' "-", text columns left-aligned, numbers right-aligned."""
    d = _with_index(df) if index else df
    cols = [str(c) for c in d.columns]
    num = [pd.api.types.is_numeric_dtype(d.iloc[:, i]) for i in range(d.shape[1])]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---:" if n else "---" for n in num) + "|"]
    for row in d.itertuples(index=False, name=None):
        cells = []
        for v in row:
            if isinstance(v, (float, np.floating)):
                cells.append("-" if np.isnan(v) else floatfmt.format(v))
            else:
                cells.append(str(v).replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table_files(out_dir: Path, stem: str, numeric: pd.DataFrame, display: pd.DataFrame, caption: str,
                digits: int = 4) -> dict[Path, str]:
    """``{out_dir/stem.csv: the numbers (full precision), out_dir/stem.tex: the displayed table (booktabs)}``,
    for :func:`evalcore._atomic.write_files`."""
    out_dir = Path(out_dir)
    return {out_dir / f"{stem}.csv": numeric.to_csv(index=False),
            out_dir / f"{stem}.tex": to_latex(display, caption, f"tab:{stem}", digits, index=False)}
