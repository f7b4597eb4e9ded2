"""The Report page's files: ``evalcore report``'s report (its options built from the page and the sidebar,
:func:`report_argv`, run by the command's own function, :func:`build`) and the settings file. Pure python,
no streamlit."""
from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable

import pandas as pd

from evalcore.report.tables import to_latex  # one LaTeX writer for the app and the report command

__all__ = ["bundle", "to_latex", "COLUMN_LABELS", "report_argv", "build", "StepProgress", "OUT", "DEFAULTS", "BOUNDS",
           "TOP_BY"]

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


#: The folder the report's files are written to in its command line (``--out``) and its zip.
OUT = "evalcore-report"

#: The page's report options and their defaults: smaller than the command's (B 1000, Tukey 5000, 5
#: repetitions, 100 topic samples) so a report on the simulated collection comes back in seconds; the
#: command line the report states names every value that differs from the command's defaults.
DEFAULTS = {"top": 30, "top_by": "AP", "B": 200, "tukey_B": 500, "repeats": 3, "seed": 0, "topic_resamples": 10,
            "topic_B": 100, "topic_seed": 0}
#: The page's input bounds (the command checks its own: --top >= 2, B >= 1, ...).
BOUNDS = {"top": (2, 1000), "B": (10, 100000), "tukey_B": (10, 100000), "repeats": (1, 20),
          "seed": (0, 2**32 - 1), "topic_resamples": (0, 1000), "topic_B": (10, 10000), "topic_seed": (0, 2**32 - 1)}
#: What --top-by offers on the page: Sakai 2007's seven metrics, AP first (the command's default).
TOP_BY = ("AP", "Q-measure", "P+-measure", "P-measure", "O-measure", "NWRR", "RR")
_OPTIONS = {"top": "--top", "top_by": "--top-by", "B": "--B", "tukey_B": "--tukey-B", "repeats": "--repeats",
            "seed": "--seed", "topic_resamples": "--topic-resamples", "topic_B": "--topic-B",
            "topic_seed": "--topic-seed"}


def _paper(values) -> str:
    """Ascending per-level values in the command's notation, highest level first (``10:5:1``)."""
    return ":".join(f"{float(v):g}" for v in reversed(list(values)))


def report_argv(*, dataset: str, collection, gains, beta: float, penalties, rel_threshold: int,
                sim: dict | None = None, options: dict) -> list[str]:
    """The ``evalcore report`` options for this data, the sidebar's metric settings and the page's
    ``options`` (keys of :data:`DEFAULTS`): the command line the report states, and the options it is
    computed from. Uploaded files are named by placeholders (``QRELS``, ``RUNS``), with their order and
    depth as read and the collection's name."""
    if dataset == "sim":
        sim = sim or {}
        data = ["--simulated", "--topics", str(int(sim["n_topics"])), "--systems", str(int(sim["n_runs"])),
                "--seed-data", str(int(sim["seed"]))]
    elif dataset == "examples":
        data = ["--paper-examples"]
    else:
        c = collection
        data = ["--qrels", "QRELS", "--runs", "RUNS", "--name", str(c.name or "uploaded collection")]
        if getattr(c, "order", "given") in ("score", "rank", "file"):
            data += ["--order", c.order]
        if getattr(c, "depth_limit", None):
            data += ["--depth", str(int(c.depth_limit))]
    # the metric settings, each only where it differs from the command's default (the command line the report
    # states stays as short as one typed by hand, and means the same)
    from evalcore.gains import resolve_gains, resolve_penalties
    from evalcore.settings import DEFAULTS as _CLI

    K = len(list(gains))
    metric = []
    if [float(g) for g in gains] != resolve_gains(None, K).tolist():
        metric += ["--gains", _paper(gains)]
    if float(beta) != float(_CLI["beta"]):
        metric += ["--beta", repr(float(beta))]
    if [float(p) for p in penalties] != resolve_penalties(None, K).tolist():
        metric += ["--penalties", _paper(penalties)]
    if int(rel_threshold) != int(_CLI["rel_threshold"]):
        metric += ["--rel-threshold", str(int(rel_threshold))]
    opts = []
    for key, flag in _OPTIONS.items():
        v = options.get(key, DEFAULTS[key])
        opts += [flag, str(v)]
    return [*data, *metric, *opts, "--out", OUT, "--quiet"]


#: The report's steps, as its progress messages begin (evalcore.report.experiment), in order.
STEPS = ("scoring", "Table 2", "Table 3", "Table 4", "Tables 5 and 6", "randomised Tukey", "stability",
         "topic bootstrap of the swap", "topic bootstrap of the bootstrap", "topic bootstrap of the tukey",
         "comparison")


class StepProgress:
    """The report's progress messages as a fraction: ``on(fraction, message)`` after each step begins (and at
    each quarter of a topic bootstrap)."""

    def __init__(self, on: Callable[[float, str], None]):
        self.on, self.step, self.text = on, 0, ""

    def __call__(self, msg: str) -> None:
        m = str(msg)
        for i, head in enumerate(STEPS):
            if m.startswith(head):
                self.step, self.text = i, m
                self.on(i / len(STEPS), m)
                return
        pct = m.strip().rpartition(": ")[2].partition("%")[0]
        part = float(pct) / 100 if pct.isdigit() else 0.0
        self.on((self.step + part) / len(STEPS), self.text)


def build(c, argv: list[str], progress: Callable[[str], None] | None = None,
          reuse=None) -> tuple[object, dict[str, bytes]]:
    """``evalcore report`` with ``argv`` on the collection ``c``: ``(Experiment, files)``, the files as the
    command writes them (``report.md``, each table's CSV and LaTeX; the same bytes) by their names in
    ``--out``, plus ``tables.tex`` (every table's LaTeX, in the report's order) and ``evalcore-report.zip``
    (the command's files in a folder ``evalcore-report/``). ``reuse``: a store of finished summary rows
    (:mod:`evalcore.meta.reuse`) the resampling methods take rows from instead of computing them."""
    from evalcore.cli.report import experiment_from_args, parse_report_args
    from evalcore.report.render import report_files

    args = parse_report_args(argv)
    e, command = experiment_from_args(args, c, progress=progress, reuse=reuse)
    written = report_files(e, args.out, markdown=args.markdown, command=command)
    files = {str(p.relative_to(args.out)) if p.is_relative_to(args.out) else p.name: t.encode()
             for p, t in written.items()}
    files["tables.tex"] = "\n".join(t for n, t in ((n, v.decode()) for n, v in files.items())
                                    if n.endswith(".tex")).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p, t in written.items():
            z.writestr(str(p), t)
    files["evalcore-report.zip"] = buf.getvalue()
    return e, files
