"""``evalcore trec_eval``: trec_eval 10.0's command line (``trec_eval.c``'s ``getopt_long``).

``evalcore trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-m measure[.params]]... QRELS RUN`` prints on
standard output what ``trec_eval`` prints; options may come before or after the files, short options glue to
their values (``-l2``, ``-M100``, ``-mP.5,10``), long options are trec_eval's (``--query_eval_wanted``,
``--measure``, ...) and their unique prefixes. Exit status as trec_eval's: 1 for a usage error or an unknown
measure, 2 for an unreadable or malformed input file, 4 for a qrels topic the run lacks (without ``-c``) or a
document retrieved twice, 0 otherwise. ``-R`` accepts ``qrels`` only and ``-T``
``trec_results`` only (the preference formats are not read); ``-D`` (debug output) is accepted and prints
nothing; ``-o`` is obsolete in trec_eval too.
"""
from __future__ import annotations

import getopt
import sys
from dataclasses import dataclass, field

__all__ = ["main", "USAGE", "VERSION"]

VERSION = "10.0"
USAGE = """Usage: evalcore trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_trec' prints all trec measures, '-m official' is default)
"""

HELP = USAGE + """
trec_eval 10.0's options (https://github.com/usnistgov/trec_eval), with its meaning for each:
 -q, --query_eval_wanted        per-topic lines as well as the summary
 -m, --measure NAME[.PARAMS]    a measure or a nickname (official, all_trec, set), repeatable;
                                parameters as trec_eval's: P.5,10  iprec_at_recall..1,.5  utility.2,-1,0,0
                                ndcg.1=3,2=9  relstring.20  set_F.0.5  rbp.0.8 ...
 -c, --complete_rel_info_wanted average over every qrels topic; a topic the run lacks scores 0
                                (without -c such a topic is an error, as in trec_eval 10.0)
 -l, --level_for_rel N          lowest relevance value that counts as relevant (default 1; N >= 0)
 -n, --nosummary                no summary lines
 -M, --Max_retrieved_per_topic N  evaluate the first N documents of each topic only
 -N, --Number_docs_in_coll N    documents in the collection (utility's fourth parameter)
 -J, --Judged_docs_only         drop unjudged documents before evaluating (trec_eval warns against it)
 -R, --Rel_info_format qrels    the only format read here (prefs, qrels_prefs, qrels_jg are not)
 -T, --Results_format trec_results
 -D, --Debug_level N            accepted; no debug output
 -v, --version                  trec_eval's version this command follows
Files: QRELS 'qid iter docno rel' lines; RUN 'qid iter docno rank sim run_tag' lines (fields after the
sixth ignored; ranked by sim, ties by docno in decreasing order, as trec_eval ranks them); '-' reads the
run from standard input; .gz files are read too. See docs/cli.md, "evalcore trec_eval".
"""

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = ["help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=",
         "nosummary", "Debug_level=", "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic=",
         "Rel_info_format=", "Results_format=", "Output_old_results_format=", "Zscore="]
_LONG_TO_SHORT = {"help": "-h", "version": "-v", "query_eval_wanted": "-q", "measure": "-m",
                  "complete_rel_info_wanted": "-c", "level_for_rel": "-l", "nosummary": "-n", "Debug_level": "-D",
                  "Judged_docs_only": "-J", "Number_docs_in_coll": "-N", "Max_retrieved_per_topic": "-M",
                  "Rel_info_format": "-R", "Results_format": "-T", "Output_old_results_format": "-o",
                  "Zscore": "-Z"}


def _whole(opt: str, text: str, low: int) -> int:
    from ._table import c_atol
    v = c_atol(text)
    if v < low:
        raise ValueError(f"evalcore trec_eval: {opt} {text!r}: give a whole number >= {low}")
    return v


@dataclass
class _Args:
    """The options trec_eval's ``getopt_long`` loop sets (its ``EPI``), with their defaults."""

    query: bool = False
    complete: bool = False
    judged: bool = False
    summary: bool = True
    level: int = 1
    max_ret: int = 2 ** 62
    n_docs: int = 0
    zscores: str | None = None
    measures: list[str] = field(default_factory=list)
    exit: int | None = None          # -h / -v: print and stop with this status


def _flag(args: _Args, o: str, a: str) -> None:
    """One option into ``args`` (ValueError: a value trec_eval's loop would misread or this command refuses)."""
    if o == "-h":
        sys.stdout.write(HELP)
        args.exit = 0
    elif o == "-v":
        sys.stderr.write(f"trec_eval version {VERSION} (evalcore trec_eval)\n")
        args.exit = 0
    elif o in _SWITCHES:
        setattr(args, _SWITCHES[o][0], _SWITCHES[o][1])
    elif o in _NUMBERS:
        setattr(args, _NUMBERS[o], _whole(o, a, 0))
    elif o == "-m":
        args.measures.append(a)
    elif o == "-Z":
        args.zscores = a
    elif o == "-R" and a != "qrels":
        raise ValueError(f"evalcore trec_eval: -R {a}: only trec_eval's 'qrels' format is read here "
                         "(the preference formats prefs, qrels_prefs and qrels_jg are not)")
    elif o == "-T" and a != "trec_results":
        raise ValueError(f"trec_eval: Illegal retrieval results format '{a}' (only trec_results)")


_SWITCHES = {"-q": ("query", True), "-c": ("complete", True), "-J": ("judged", True), "-n": ("summary", False)}
_NUMBERS = {"-l": "level", "-M": "max_ret", "-N": "n_docs"}


def main(argv: list[str] | None = None) -> int:
    """Run ``evalcore trec_eval`` with ``argv`` (the words after ``trec_eval``); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        opts, files = getopt.gnu_getopt(argv, _SHORT, _LONG)
    except getopt.GetoptError as e:
        sys.stderr.write(f"evalcore trec_eval: {e}\n{USAGE}")
        return 1
    args = _Args()
    try:
        for o, a in opts:
            _flag(args, _LONG_TO_SHORT.get(o[2:], o) if o.startswith("--") else o, a)
            if args.exit is not None:
                return args.exit
    except ValueError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    return _evaluate(args, files)


def _evaluate(args: _Args, files: list[str]) -> int:
    """Read, evaluate and print (the part of trec_eval's ``main`` after its options)."""
    if len(files) != 2:
        sys.stderr.write(USAGE)
        return 1
    from ..io.errors import InputError
    from . import Options, evaluate, read_qrels, read_results, render, select
    from ._engine import UnknownMeasure
    from ._table import ParamError
    try:
        sel = select(args.measures)
    except UnknownMeasure as e:
        sys.stderr.write(f"{e}\n")
        return 1
    except ParamError as e:
        sys.stderr.write(f"{e}\ntrec_eval: Cannot initialize measure\n")
        return 2
    try:
        qrels = read_qrels(files[0])
        results = read_results(files[1])
        z = None
        if args.zscores is not None:
            from ._zscore import read_zscores
            z = read_zscores(args.zscores)
        ev = evaluate(qrels, results, sel, Options(args.level, args.max_ret, args.judged, args.complete,
                                                   args.n_docs), z)
        text = render(ev, qrels, per_topic=args.query, summary=args.summary)
    except (InputError, OSError) as e:
        sys.stderr.write(f"evalcore trec_eval: {e}\n")
        return int(getattr(e, "status", 2))
    except MemoryError:
        sys.stderr.write("evalcore trec_eval: not enough memory for these files\n")
        return 2
    except Exception as e:  # noqa: BLE001 - never a raw traceback; EVALCORE_TRACEBACK=1 shows it
        import os
        if os.environ.get("EVALCORE_TRACEBACK"):
            raise
        sys.stderr.write(f"evalcore trec_eval: unexpected {type(e).__name__}: {str(e)[:500]} (please report this "
                         "with the command line; set EVALCORE_TRACEBACK=1 to see where it happened)\n")
        return 1
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    return 0
