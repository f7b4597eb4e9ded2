"""Reproduce Sakai (2007, IPSJ TOD; 003 in docs/metrics.md "Sources") Sec. 5 on clef2015: writes docs/reproduction.md.

    python docs/reproduce_003.py [--data ../shared/data/clef2015] [--out docs/reproduction.md]
                                 [other `report` options, e.g. --repeats 10 --B 1000]
    python docs/reproduce_003.py --simulated      # the same pipeline on the built-in simulated collection

A thin call of ``python -m evalcore report`` (evalcore/report/), which runs
the same experiment on any collection: the Markdown goes to --out
(docs/reproduction.md), each table as CSV and LaTeX to the folder of the same
name without .md (docs/reproduction/).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.cli import main as evalcore_main  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/clef2015"))
    ap.add_argument("--simulated", action="store_true", help="evalcore.simulated_collection(66 topics, 30 runs)")
    ap.add_argument("--out", type=Path, default=Path("docs/reproduction.md"), help="the Markdown report")
    args, rest = ap.parse_known_args(argv)
    data = (["--simulated", "--topics", "66", "--systems", "30"] if args.simulated else
            ["--qrels", str(args.data / "qrels.txt"), "--runs", str(args.data / "runs")])
    return evalcore_main(["report", *data, "--out", str(args.out.with_suffix("")), "--markdown", str(args.out),
                          *rest])


if __name__ == "__main__":
    sys.exit(main())
