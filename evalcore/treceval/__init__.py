"""trec_eval 10.0, measure for measure: its command line, its input parsing, its definitions and its output.

``evalcore trec_eval [trec_eval's options] QRELS RUN`` prints what ``trec_eval`` prints, byte for byte, for
every measure of ``-m all_trec`` (and ``dcg``, ``ideal_dcg``, ``yaap``); the preference measures (``-R prefs``,
``qrels_prefs``, ``qrels_jg``) are not computed. Each measure is a port of its ``m_*.c`` file (named in its
docstring), vectorised over topics; :mod:`._rels` builds trec_eval's ranked relevance lists
(``form_res_rels.c``), :mod:`._read` reads the files as ``get_qrels.c`` and ``get_trec_results.c`` do,
:mod:`._engine` averages and prints as ``trec_eval.c`` and ``meas_*.c`` do. docs/cli.md ("evalcore trec_eval")
lists the options and the few places where a malformed input is refused here and read silently there.

trec_eval is NIST's (https://github.com/usnistgov/trec_eval, Chris Buckley; NIST license): the definitions and
their order of operations follow its source, version 10.0.
"""
from __future__ import annotations

from ._engine import Evaluation, Selection, UnknownMeasure, evaluate, format_value, render, select
from ._read import Qrels, Results, read_qrels, read_results
from ._rels import NONPOOL, PAD, UNJUDGED, Options, ResRels, form_res_rels
from ._table import MEASURES, NICKNAMES, Measure, ParamError

__all__ = ["NONPOOL", "UNJUDGED", "PAD",
           "MEASURES", "NICKNAMES", "Measure", "ParamError", "Options", "ResRels", "form_res_rels", "Qrels",
           "Results", "read_qrels", "read_results", "Selection", "select", "Evaluation", "evaluate", "render",
           "UnknownMeasure", "format_value", "run_trec_eval"]


def run_trec_eval(qrels_path: str, run_path: str, measures: list[str] | None = None, *, per_topic: bool = False,
                  summary: bool = True, options: Options | None = None) -> str:
    """trec_eval's output for one run, as text: ``run_trec_eval("qrels", "run", ["all_trec"], per_topic=True)``
    is ``trec_eval -q -m all_trec qrels run``."""
    sel = select(list(measures or []))
    q = read_qrels(qrels_path)
    r = read_results(run_path)
    ev = evaluate(q, r, sel, options or Options())
    return render(ev, q, per_topic=per_topic, summary=summary)
