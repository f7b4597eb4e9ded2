"""End to end, as a command-line user runs it: one fresh process per call, imports included (docs/benchmarks.md section
11).

    python benchmarks/bench_cli.py [--repeat 5] [--data ../shared/data/clef2015]

Times, on clef2015 (qrels + 30 gzipped runs, 2 M lines), each a fresh
``python`` process whose output goes to /dev/null:

* ``python -m evalcore evaluate --qrels Q --runs DIR --metrics AP RR P@10 MSnDCG@10 R-Prec``
  (the five measures pytrec_eval computes below) and the same with every
  metric (no ``--metrics``: 27 keys);
* a pytrec_eval script: import pytrec_eval, ``parse_qrel``, ``parse_run``
  over each gzipped run, ``evaluate`` map, recip_rank, P.10, ndcg_cut.10,
  Rprec, print one line per (run, topic, measure), as a CLI would;
* ``python -c "import numpy, pandas, pyarrow.compute, pyarrow.csv"``: the
  import floor evalcore's loader stands on, and ``python -c pass``.

Reports the median wall and CPU (user + system of the child) seconds and
the ratios pytrec_eval / evalcore - to set beside the in-process ratios of
bench_evaluate.py, which time after the imports.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"

PYTREC = r'''
import gzip, os, sys, pytrec_eval
qrels, runs = sys.argv[1], sys.argv[2]
with open(qrels) as f:
    ev = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f),
                                        {"map", "recip_rank", "P.10", "ndcg_cut.10", "Rprec"})
out = sys.stdout
for name in sorted(os.listdir(runs)):
    with gzip.open(os.path.join(runs, name), "rt") as f:
        res = ev.evaluate(pytrec_eval.parse_run(f))
    for topic, ms in res.items():
        for m, v in ms.items():
            out.write(f"{name}\t{topic}\t{m}\t{v:.12g}\n")
'''


def timed(cmd: list[str], repeat: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``cmd`` run ``repeat`` times, each a fresh process."""
    walls, cpus = [], []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env, cwd=ROOT)
        walls.append(time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    q, runs = str(args.data / "qrels.txt"), str(args.data / "runs")
    py = sys.executable
    cmds = {
        "evalcore evaluate, 5 measures": [py, "-m", "evalcore", "evaluate", "--qrels", q, "--runs", runs,
                                          "--metrics", "AP", "RR", "P@10", "MSnDCG@10", "R-Prec"],
        "evalcore evaluate, every metric (27 keys)": [py, "-m", "evalcore", "evaluate", "--qrels", q, "--runs", runs],
        "pytrec_eval script, 5 measures": [py, "-c", PYTREC, q, runs],
        "imports only: numpy, pandas, pyarrow.compute, pyarrow.csv": [py, "-c", "import numpy, pandas, "
                                                                      "pyarrow.compute, pyarrow.csv"],
        "python -c pass": [py, "-c", "pass"],
    }
    res = {}
    for cmd in cmds.values():  # interleaved warm-up: page cache, .pyc files
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       cwd=ROOT)
    for name, cmd in cmds.items():
        res[name] = timed(cmd, args.repeat)
        print(f"{name}: {res[name][0]:.2f} s wall, {res[name][1]:.2f} s CPU", file=sys.stderr, flush=True)
    pw, pc = res["pytrec_eval script, 5 measures"]
    print(f"\nclef2015, fresh process per call, median of {args.repeat}; {os.cpu_count()} cores\n")
    print("| command | wall s | CPU s | pytrec_eval / this (wall, CPU) |")
    print("|---|---|---|---|")
    for name, (w, c) in res.items():
        ratio = f"{pw / w:.2f}x, {pc / c:.2f}x" if name.startswith("evalcore") else ""
        print(f"| {name} | {w:.2f} | {c:.2f} | {ratio} |")
    return res


if __name__ == "__main__":
    main()
