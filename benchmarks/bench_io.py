"""Time evalcore.io.load_collection on clef2015 (qrels + 30 gzipped runs, 2M lines).

    python benchmarks/bench_io.py [--repeat 5] [--data ../shared/data/clef2015]

Prints the median wall time and the process CPU time of each repeat.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.io import load_collection  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "clef2015")
    args = ap.parse_args()
    qrels, runs = args.data / "qrels.txt", args.data / "runs"
    load_collection(qrels, runs)  # warm the page cache and imports
    walls = []
    for _ in range(args.repeat):
        t, c0 = time.perf_counter(), time.process_time()
        c = load_collection(qrels, runs)
        walls.append(time.perf_counter() - t)
        print(f"load_collection: {walls[-1]:.3f} s wall, {time.process_time() - c0:.3f} s CPU")
    print(f"{c!r}\nmedian of {args.repeat}: {statistics.median(walls):.3f} s")


if __name__ == "__main__":
    main()
