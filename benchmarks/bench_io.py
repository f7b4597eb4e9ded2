"""Time evalcore.io.load_collection on clef2015 (qrels + 30 gzipped runs, 2M lines).

    python benchmarks/bench_io.py [--repeat 5] [--data ../shared/data/clef2015]

Prints the wall and process CPU time of each repeat (after one untimed load: page cache and imports) and
their medians; the result goes to benchmarks/results/io/ (benchmarks/harness.py).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))

import harness  # noqa: E402

from evalcore.io import load_collection  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "clef2015")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("io", argv, {"repeat": args.repeat, "data": args.data.name}, script=__file__)
    qrels, runs = args.data / "qrels.txt", args.data / "runs"
    got = harness.rounds({"load_collection": lambda: load_collection(qrels, runs)}, args.repeat)
    res.add_rounds(got)
    for s in got.samples["load_collection"]:
        print(f"load_collection: {s.wall:.3f} s wall, {s.cpu:.3f} s CPU")
    print(f"{got.samples['load_collection'][-1].result!r}\n")
    wall, cpu = got.stats("load_collection", "wall"), got.stats("load_collection", "cpu")
    print(res.table([harness.col("what"), harness.col("wall s, median (min - max)", "{:.3f} ({wall_min:.3f} - "
                                                      "{wall_max:.3f})", "wall", right=True),
                     harness.col("CPU s, median (min - max)", "{:.3f} ({cpu_min:.3f} - {cpu_max:.3f})", "cpu",
                                 right=True)],
                    [{"what": f"load_collection ({args.data.name})", "wall": wall.median, "wall_min": wall.min,
                      "wall_max": wall.max, "cpu": cpu.median, "cpu_min": cpu.min, "cpu_max": cpu.max}],
                    title=f"median of {args.repeat}:"))
    res.save(args)


if __name__ == "__main__":
    main()
