"""Paper-style tables as CSV and LaTeX (booktabs). Pure pandas, no streamlit."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd

_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "\u00b7": ";", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def _tex(x) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in str(x))


def _cell(v, digits: int) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{v:.{digits}f}"
    return _tex(v)


def to_latex(df: pd.DataFrame, caption: str, label: str, digits: int = 4, index: bool = True) -> str:
    """A booktabs table (needs \\usepackage{booktabs})."""
    d = df.reset_index() if index else df
    align = "".join("r" if pd.api.types.is_numeric_dtype(d[c]) else "l" for c in d.columns)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{_tex(caption)}}}", rf"\label{{{label}}}",
             rf"\begin{{tabular}}{{{align}}}", r"\toprule",
             " & ".join(_tex(c) for c in d.columns) + r" \\", r"\midrule"]
    for row in d.itertuples(index=False):
        lines.append(" & ".join(_cell(v, digits) for v in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def bundle(tables: dict[str, tuple[pd.DataFrame, str]], settings: dict, digits: int = 4) -> dict[str, bytes]:
    """Every download the Report page offers: one CSV per table, all tables as
    LaTeX, the settings JSON, and a zip of everything.

    ``tables``: name -> (DataFrame, caption).
    """
    out: dict[str, bytes] = {}
    tex = ["% evalcore report: paper-style tables (\\usepackage{booktabs})", ""]
    for name, (df, caption) in tables.items():
        out[f"{name}.csv"] = df.to_csv().encode()
        tex.append(to_latex(df, caption, f"tab:{name}", digits))
    out["tables.tex"] = "\n".join(tex).encode()
    out["settings.json"] = (json.dumps({"settings": settings}, indent=1) + "\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in out.items():
            z.writestr(name, data)
    out["evalcore-report.zip"] = buf.getvalue()
    return out
