"""Reproduce Sakai (2007, IPSJ TOD; shared/papers/003) Sec. 5 on clef2015: writes docs/reproduction.md.

    python docs/reproduce_003.py [--data ../shared/data/clef2015] [other `report` options, e.g. --repeats 10]

A thin call of ``python -m evalcore report`` (evalcore/report/), which runs
the same experiment on any collection: the Markdown goes to
docs/reproduction.md, each table as CSV and LaTeX to docs/reproduction/.
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
    args, rest = ap.parse_known_args(argv)
    return evalcore_main(["report", "--qrels", str(args.data / "qrels.txt"), "--runs", str(args.data / "runs"),
                          "--out", "docs/reproduction", "--markdown", "docs/reproduction.md", *rest])


if __name__ == "__main__":
    sys.exit(main())
