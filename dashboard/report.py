"""Paper-style tables as CSV and LaTeX (booktabs) for the Report page. Pure pandas, no streamlit."""
from __future__ import annotations

import io
import json
import zipfile

import pandas as pd

from evalcore.report.tables import to_latex  # one LaTeX writer for the app and the report command

__all__ = ["bundle", "to_latex"]


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
