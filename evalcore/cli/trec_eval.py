"""``trec_eval``: trec_eval 10.0's command line and output (:mod:`evalcore.treceval.cli`).

Its options are trec_eval's (``-q``, ``-m all_trec``, ``-l2``, ``-M100``...), not evalcore's, so
:func:`evalcore.cli.main` hands the words after ``trec_eval`` to :func:`evalcore.treceval.cli.main` before
argparse reads them; this module only lists the subcommand in ``evalcore --help``.
"""
from __future__ import annotations

import argparse

__all__ = ["register", "HELP"]

HELP = "trec_eval 10.0's command line and output, byte for byte (-q, -c, -l N, -M N, -m all_trec, -m P.5,10 ...)"


def register(sub, data: argparse.ArgumentParser) -> None:
    p = sub.add_parser("trec_eval", help=HELP, add_help=False,
                       description="Run as 'evalcore trec_eval [trec_eval's options] QRELS RUN'; "
                                   "'evalcore trec_eval -h' lists the options.")
    p.add_argument("words", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda args: __import__("evalcore.treceval.cli", fromlist=["main"]).main(args.words))
