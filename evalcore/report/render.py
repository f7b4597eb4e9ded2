"""Markdown rendering and file output of a report :class:`~evalcore.report.experiment.Experiment`.

The writer only renders prose and files; every number comes from the experiment. All files of one
report are written together and atomically (:func:`evalcore._atomic.write_files`): a failure leaves
the previous report as it was.
"""
from __future__ import annotations

from pathlib import Path

from .._atomic import write_files
from .tables import md_table, table_files


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _ids(ids, k=8) -> str:
    ids = list(ids)
    return ", ".join(map(str, ids[:k])) + (f" and {len(ids) - k} more" if len(ids) > k else "")


def data_lines(e) -> list[str]:
    """How the data was read: list depth, ranking order, topic policy, topics and run topics ignored."""
    s, d, load = e.settings, e.settings.get("data", {}), e.load
    depth = d.get("depth")
    order = d.get("order", "score")
    from ..specs import ORDER_TEXT

    out = [f"Lists: {'the top ' + str(depth) + ' documents of each ranked list' if depth else 'whole ranked lists'} "
           f"(longest evaluated: {e.depth}); run order: {order}"
           + (f" — {ORDER_TEXT[order]}" if order in ORDER_TEXT else "")
           + ("; condensed (unjudged documents removed first)" if d.get("condensed") else "") + "."]
    thr = s["rel_threshold"]
    out.append(f"Binary relevance for RR, AveP and the run selection: level >= {thr} counts as relevant "
               f"({'relaxed, as 003' if thr == 1 else 'not 003, which uses relaxed relevance, level >= 1'}); the "
               "graded metrics (Q, O, P, P+, NWRR) use the gains and penalties above.")
    policy = ("Topic policy: the evaluated topics are the qrels topics with at least one relevant document; a run "
              "topic not in the qrels is ignored; an evaluated topic missing from a run scores 0 for that run.")
    if load is not None:
        no_rel = list(getattr(load, "topics_without_relevant", []) or [])
        ignored = dict(getattr(load, "ignored_run_topics", {}) or {})
        missing = dict(getattr(load, "missing_run_topics", {}) or {})
        policy += (f" Qrels topics without a relevant document (not evaluated): "
                   f"{_plural(len(no_rel), 'topic') + ' (' + _ids(no_rel) + ')' if no_rel else 'none'}.")
        if ignored:
            counts = sorted({len(v) for v in ignored.values()})
            all_t = sorted({t for v in ignored.values() for t in v})
            policy += (f" Run topics not in the qrels, ignored: {_plural(len(ignored), 'run')} "
                       f"({_plural(counts[0], 'topic') if len(counts) == 1 else f'{counts[0]}-{counts[-1]} topics'} "
                       f"each; "
                       f"{_plural(len(all_t), 'distinct topic')}: {_ids(all_t)}).")
        else:
            policy += " Run topics not in the qrels: none."
        if missing:
            policy += (f" Runs lacking an evaluated topic (scored 0): {_plural(len(missing), 'run')}, "
                       f"{sum(len(v) for v in missing.values())} (run, topic) lists.")
    out.append(policy)
    out.append(f"Runs used ({len(e.runs)}, in the order of the selection by {s['top_by']}): "
               + ", ".join(map(str, e.runs)) + ".")
    return out


def render(e, *, command: str = "", table_dir: str = "") -> str:
    """The Markdown report."""
    s = e.settings
    R = s["repeats"]
    n = s["runs_used"]
    # the Data page's count: levels 0..K, K + 1 of them (0 = not relevant)
    levels = f"{e.K + 1} relevance levels (0-{e.K}; {e.K} relevant" + (
        f": {', '.join(str(v) for v in e.level_names)})" if e.level_names else ")")
    out = [f"# Reproducing Sakai 2007 (003) Sec. 5 on {e.name}", ""]
    if command:
        out += [f"Written by `{command}`; every number below comes from that command (re-running it writes the "
                "same bytes). Nothing here is typed by hand.", ""]
    out += [f"Data: **{e.name}**, {e.n_topics} topics, {levels}, {n} of {s['runs_total']} runs, "
            f"{n * (n - 1) // 2} run pairs. Metric settings: gains {s['gains']} "
            f"({s.get('gains_levels', 'highest level first')}), beta = {s['beta']:g}, NWRR penalties {s['penalties']} "
            f"({s.get('penalties_levels', 'highest level first')}; highest level first). Monte Carlo: B = {s['B']} "
            f"(Tukey: {s['tukey_B']}), {R} repetition{'s' if R > 1 else ''}, seed {s['seed']}"
            + (f" (repetition seeds {', '.join(map(str, s['seeds']))})" if R > 1 else "") + "; the ± of Tables 3-6 "
            "and Tukey is the Monte Carlo sd over these seeds (topics fixed) and their [brackets] the min-max over the "
            "seeds. "
            + (f"Topic bootstrap (Tables 7-8): {s['topic_resamples']} topic samples, B = {s['topic_B']} per sample, "
               f"topic seed {s['topic_seed']}; there the ± is the sd over topic samples and the [brackets] are the "
               "2.5-97.5 percentiles over them, not a min-max." if s.get("topic_resamples") else
               "No topic bootstrap (--topic-resamples 0)."), ""]
    out += [x for line in data_lines(e) for x in (line, "")]
    out += [x for note in e.notes[:-1] for x in (note, "")]
    if table_dir:
        out += [f"Each table is also in `{table_dir}` as CSV (numbers; with repetitions, mean/sd/min/max columns) "
                "and LaTeX (booktabs).", ""]
    for t in e.tables:
        out += [f"## {t.title}", "", f"*{t.caption}*", "", md_table(t.display), ""]
        out += [x for note in t.notes for x in (note, "")]
    out += ["## Comparison with the paper's findings", ""]
    out += [f"- {f}" for f in e.findings]
    out += ["", e.notes[-1], ""]
    return "\n".join(out)


def conventions(e) -> dict:
    """What shaped every number of the report, as the columns each table's CSV carries (same value on every
    row): ``gains`` and ``penalties`` with their levels, highest first (Tables 5-6 vary the gains: there the
    column is ``default_gains``, the rows name their own), ``beta``, ``rel_threshold`` (RR, AveP and the run
    selection), ``depth`` (``all``: whole lists), ``order`` (the ranking order; ``score`` breaks exact ties
    by document id descending, as trec_eval), ``condensed``, ``topics`` (the topics each mean runs over:
    ``ntcireval``, those with a relevant document) and ``mean``."""
    s, d = e.settings, e.settings.get("data", {})
    return {"gains": s.get("gains_levels", s["gains"]), "penalties": s.get("penalties_levels", s["penalties"]),
            "beta": s["beta"], "rel_threshold": s["rel_threshold"], "depth": d.get("depth") or "all",
            "order": d.get("order", "score"), "condensed": "yes" if d.get("condensed") else "no",
            "topics": "ntcireval", "mean": "arithmetic"}


def conventions_text(e) -> str:
    """:func:`conventions` in words, for the LaTeX captions (the Markdown states them in its data lines)."""
    from ..specs import ORDER_TEXT

    c = conventions(e)
    depth = "whole ranked lists" if c["depth"] == "all" else f"lists cut at rank {c['depth']}"
    return (f"Gains {c['gains']} (highest level first), beta = {float(c['beta']):g}, NWRR penalties {c['penalties']}; "
            f"RR and AveP count level >= {c['rel_threshold']} as relevant; {depth}"
            + ("; condensed (unjudged documents removed first)" if c["condensed"] == "yes" else "")
            + f"; ranking: {ORDER_TEXT.get(str(c['order']), c['order'])}; arithmetic means over the topics with "
            "a relevant document.")


def _with_conventions(e, stem: str, numeric):
    cols = conventions(e)
    if stem.startswith(("table5", "table6")):
        cols = {("default_gains" if k == "gains" else k): v for k, v in cols.items()}
    return numeric.assign(**cols)


def report_paths(out_dir, markdown=None) -> tuple[Path, Path, str]:
    """(table directory, Markdown file, the table directory as the Markdown refers to it)."""
    out_dir = Path(out_dir)
    md = Path(markdown) if markdown else out_dir / "report.md"
    try:
        table_dir = str(out_dir.resolve().relative_to(md.resolve().parent)) + "/"
    except ValueError:
        table_dir = str(out_dir) + "/"
    return out_dir, md, table_dir


def report_files(e, out_dir, *, markdown=None, command: str = "") -> dict[Path, str]:
    """Every file of the report, in memory: each table as CSV and LaTeX in ``out_dir`` and the Markdown
    report (default ``out_dir/report.md``), path -> text. Each CSV ends with the :func:`conventions` columns,
    each LaTeX caption with :func:`conventions_text`. What :func:`write_report` writes, and what the
    dashboard's Report page offers as downloads (the same bytes for the same experiment and command)."""
    out_dir, md, table_dir = report_paths(out_dir, markdown)
    files: dict[Path, str] = {}
    for t in e.tables:
        files.update(table_files(out_dir, t.stem, _with_conventions(e, t.stem, t.numeric), t.display,
                                 f"{t.caption} {conventions_text(e)}"))
    files[md] = render(e, command=command, table_dir=table_dir)
    return files


def write_report(e, out_dir, *, markdown=None, command: str = "") -> list[Path]:
    """Write each table (CSV + LaTeX) into ``out_dir`` and the Markdown report (default ``out_dir/report.md``),
    all at once and atomically. The directories must exist (``evalcore report`` checks them first)."""
    files = report_files(e, out_dir, markdown=markdown, command=command)
    write_files(files)
    return list(files)
