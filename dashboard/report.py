"""Paper-style tables as CSV and LaTeX (booktabs) for the Report page. Pure pandas, no streamlit."""
from __future__ import annotations

import io
import json
import zipfile

import pandas as pd

from evalcore.report.tables import to_latex  # one LaTeX writer for the app and the report command

__all__ = ["bundle", "to_latex", "COLUMN_LABELS"]

#: Words for the column names of evalcore's result frames, on screen (dashboard.widgets.table) and in the
#: LaTeX export; the CSV files keep the machine names. The unrounded copy of a rounded column is left out
#: of the LaTeX tables.
COLUMN_LABELS = {
    "abs_diff": "difference needed", "max_performance": "largest mean score", "relative": "difference / largest",
    "pct_comparisons": "% comparisons", "n_comparisons": "comparisons", "confidence": "confidence",
    "n_significant": "significant pairs", "n_pairs": "run pairs", "pct_significant": "% significant",
    "estimated_diff": "difference needed for significance", "estimated_diff_raw": "difference needed (unrounded)",
    "run_x": "run x", "run_y": "run y", "mean_diff": "mean difference (x - y)", "asl": "ASL (p-value)",
    "p_value": "p-value", "fuzziness": "fuzziness", "error_rate": "error rate", "prop_ties": "proportion of ties",
    "swap_rate": "swap rate", "pct_seed": "% significant (first seed)",
}
_LATEX_DROP = ("estimated_diff_raw",)


def bundle(tables: dict[str, tuple[pd.DataFrame, str]], settings: dict, digits: int = 4) -> dict[str, bytes]:
    """Every download the Report page offers: one CSV per table, all tables as
    LaTeX, the settings JSON, and a zip of everything.

    ``tables``: name -> (DataFrame, caption).
    """
    out: dict[str, bytes] = {}
    tex = ["% evalcore report: paper-style tables (\\usepackage{booktabs})", ""]
    for name, (df, caption) in tables.items():
        out[f"{name}.csv"] = df.to_csv().encode()
        words = df.drop(columns=[c for c in _LATEX_DROP if c in df.columns]).rename(columns=COLUMN_LABELS)
        tex.append(to_latex(words, caption, f"tab:{name}", digits))
    out["tables.tex"] = "\n".join(tex).encode()
    out["settings.json"] = (json.dumps({"settings": settings}, indent=1) + "\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in out.items():
            z.writestr(name, data)
    out["evalcore-report.zip"] = buf.getvalue()
    return out
