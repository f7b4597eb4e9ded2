"""Markdown rendering and file output of a report :class:`~evalcore.report.experiment.Experiment`."""
from __future__ import annotations

from pathlib import Path

from .tables import md_table, write_table


def render(e, *, command: str = "", table_dir: str = "") -> str:
    """The Markdown report."""
    s = e.settings
    R = s["repeats"]
    levels = f"{e.K} relevance level{'s' if e.K > 1 else ''}" + (
        f" ({', '.join(str(v) for v in e.level_names)})" if e.level_names else "")
    out = [f"# Reproducing Sakai 2007 (003) Sec. 5 on {e.name}", ""]
    if command:
        out += [f"Written by `{command}`; every number below comes from that command. Nothing here is typed by "
                "hand.", ""]
    out += [f"Data: **{e.name}**, {e.n_topics} topics, {levels}, {s['runs_used']} of {s['runs_total']} runs, "
            f"{s['runs_used'] * (s['runs_used'] - 1) // 2} run pairs. Metric settings: gains {s['gains']}, "
            f"beta = {s['beta']:g}, NWRR penalties {s['penalties']} (highest level first). Monte Carlo: B = {s['B']} "
            f"(Tukey: {s['tukey_B']}), {R} repetition{'s' if R > 1 else ''}, seed {s['seed']}"
            + (f" (repetition seeds {', '.join(map(str, s['seeds']))})" if R > 1 else "") + ".", ""]
    out += [n for note in e.notes[:-1] for n in (note, "")]
    if table_dir:
        out += [f"Each table is also in `{table_dir}` as CSV (numbers; with repetitions, mean/sd/min/max columns) "
                "and LaTeX (booktabs).", ""]
    for t in e.tables:
        out += [f"## {t.title}", "", md_table(t.display), ""]
        out += [n for note in t.notes for n in (note, "")]
    out += ["## Comparison with the paper's findings", ""]
    out += [f"- {f}" for f in e.findings]
    out += ["", e.notes[-1], ""]
    return "\n".join(out)


def write_report(e, out_dir, *, markdown=None, command: str = "") -> list[Path]:
    """Write each table (CSV + LaTeX) into ``out_dir`` and the Markdown report (default ``out_dir/report.md``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for t in e.tables:
        written += write_table(out_dir, t.stem, t.numeric, t.display, t.caption)
    md = Path(markdown) if markdown else out_dir / "report.md"
    try:
        rel = out_dir.resolve().relative_to(md.resolve().parent)
        table_dir = str(rel) + "/"
    except ValueError:
        table_dir = str(out_dir) + "/"
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text(render(e, command=command, table_dir=table_dir), encoding="utf-8")
    return written + [md]
