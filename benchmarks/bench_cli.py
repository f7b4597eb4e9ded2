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

Reports the median wall and CPU (user + system of the child) seconds over
``--repeat`` interleaved rounds (benchmarks/harness.py) and the ratios
pytrec_eval / evalcore - to set beside the in-process ratios of
bench_evaluate.py, which time after the imports. The result goes to
benchmarks/results/cli/.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

ROOT = harness.ROOT
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


def main(argv=None) -> harness.Rounds:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("cli", argv, {"repeat": args.repeat, "data": args.data.name}, script=__file__)
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
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # one warm-up call of each (page cache, .pyc files), then every command once per round
    got = harness.rounds({name: harness.command(cmd, env=env) for name, cmd in cmds.items()}, args.repeat,
                         progress=True)
    res.add_rounds(got)
    pw = got.stats("pytrec_eval script, 5 measures", "wall").median
    pc = got.stats("pytrec_eval script, 5 measures", "child_cpu").median
    rows = []
    for name in cmds:
        w, c = got.stats(name, "wall").median, got.stats(name, "child_cpu").median
        ours = name.startswith("evalcore")
        rows.append({"command": name, "wall_s": w, "cpu_s": c, "wall_ratio": pw / w if ours else None,
                     "cpu_ratio": pc / c})
    print(res.table([harness.col("command"), harness.col("wall s", "{:.2f}", "wall_s"),
                     harness.col("CPU s", "{:.2f}", "cpu_s"),
                     harness.col("pytrec_eval / this (wall, CPU)", "{:.2f}x, {cpu_ratio:.2f}x", "wall_ratio")], rows,
                    title=f"{args.data.name}, fresh process per call, median of {args.repeat} interleaved rounds; "
                          f"{os.cpu_count()} cores"))
    res.save(args)
    return got


if __name__ == "__main__":
    main()
