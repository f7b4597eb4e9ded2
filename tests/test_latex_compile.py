"""The LaTeX evalcore writes compiles with pdflatex: compare's compact table (display labels, superscript
marks, escaped run names) with its details, and the Report's tables.tex (every table of `evalcore report`),
each in a document that loads exactly the packages the docs name (README "Tables you paste":
booktabs and amssymb; Debian: texlive-latex-base and texlive-latex-recommended for booktabs).

Slow (pdflatex, a few seconds a document); skipped where pdflatex or booktabs is not installed. The tables'
structure is checked without pdflatex in tests/test_compare.py (booktabs rules, one column per metric,
balanced braces)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_compare import latex_example

import evalcore

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")]

#: The preamble the docs name for evalcore's tables, and nothing else.
PREAMBLE = "\\documentclass{article}\n\\usepackage{booktabs,amssymb}\n\\begin{document}\n"


def _compile(tmp_path: Path, body: str) -> str:
    """pdflatex on a document holding ``body``: the log, after checking that it compiled cleanly."""
    if subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True, text=True).stdout.strip() == "":
        pytest.skip("booktabs.sty is not installed (Debian: texlive-latex-recommended)")
    doc = tmp_path / "doc.tex"
    doc.write_text(PREAMBLE + body + "\n\\end{document}\n", encoding="utf-8")
    out = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert out.returncode == 0, out.stdout[-3000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0
    # no error recovered from, no character the fonts lack, no reference left undefined
    assert not re.search(r"^! ", log, re.M), log[-3000:]
    assert "Missing character" not in log, [ln for ln in log.splitlines() if "Missing character" in ln]
    return log


def test_compares_compact_table_and_its_details_compile(tmp_path):
    mats, runs = latex_example()
    r = evalcore.compare(mats, run_ids=runs, baseline="bm25")
    compact = r.to_latex(labels={"Q-measure": "Q (beta=1)"})
    assert r"$^{\blacktriangle}$" in compact and "MSnDCG@10" in compact      # the marks and labels compiled
    pairs = evalcore.compare(mats, run_ids=runs)                                 # all pairs: letters
    assert re.search(r"\$\^\{[a-c]+\}\$", pairs.to_latex())
    _compile(tmp_path, compact + "\n" + r.to_latex(details=True) + "\n" + pairs.to_latex(environment=True,
                                                                                             label="tab:pairs"))


def test_the_reports_tables_tex_compiles(tmp_path):
    from dashboard import report

    c = evalcore.simulated_collection(n_topics=10, n_runs=10, seed=2)
    argv = ["--simulated", "--topics", "10", "--systems", "10", "--seed-data", "2", "--B", "30", "--tukey-B", "30",
            "--repeats", "2", "--topic-resamples", "3", "--topic-B", "20", "--out", report.OUT, "--quiet"]
    _, files = report.build(c, argv)
    tex = files["tables.tex"].decode()
    n_tables = tex.count("\\begin{table}")
    assert n_tables >= 9                                  # Tables 2-8, Tukey and stability
    # the symbols the tables use, written for pdflatex's default fonts: Table 2's mark of a tau that is not
    # significant, Table 8's minus sign, the Monte Carlo +-, the bars of |tau|
    for written in (r"$^{\circ}$", "$-$", r"$\pm$", "$|$tau$|$"):
        assert written in tex, written
    assert not any(ord(ch) > 127 for ch in tex), sorted({ch for ch in tex if ord(ch) > 127})
    log = _compile(tmp_path, tex)
    assert "Float(s) lost" not in log
