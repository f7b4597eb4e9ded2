"""evalcore evaluate against pytrec_eval, end to end: one fresh process per call, imports included.

    python benchmarks/bench_peer.py [--repeat 5] [--data ../shared/data/clef2015] [--runs N]

Same files, same five measures, same output (one line per run, topic and measure):

* ``python -m evalcore evaluate --metrics map recip_rank P_10 ndcg_cut_10 Rprec --per-topic`` (trec_eval's
  names, so trec_eval's topics and numbers), with the CLI's default of one BLAS thread, and again with
  ``OPENBLAS_NUM_THREADS=2`` (what the CLI ran with before it set one thread);
* a pytrec_eval script: ``parse_qrel``, then ``parse_run`` + ``evaluate`` of the same five measures for
  each gzipped run, printing every value;
* ``python -c pass``.

``--runs N`` uses the first N runs (by file name) of the data's ``runs/`` directory through a temporary
directory of links: ``--runs 10`` on clef2015 is a collection of about 0.66 M run lines. Prints a Markdown
table of median wall and CPU (user + system of the child) seconds and the CPU ratio pytrec_eval / evalcore
(docs/benchmarks.md, "Start-up and the peer benchmark"), the spread (min - max) of each command's CPU and
the ratio within each round (both commands ran under the same load there).

The children run without ``PYTHONDONTWRITEBYTECODE``: the warm-up call compiles evalcore's bytecode once,
as installing it would (site-packages' numpy, pandas, pyarrow and pytrec_eval are compiled already).
"""
from __future__ import annotations

import argparse
import gzip
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"
MEASURES = ("map", "recip_rank", "P_10", "ndcg_cut_10", "Rprec")

PYTREC = r'''
import gzip, os, sys, pytrec_eval
qrels, runs = sys.argv[1], sys.argv[2]
with open(qrels) as f:
    ev = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f),
                                        {"map", "recip_rank", "P_10", "ndcg_cut_10", "Rprec"})
out = sys.stdout
for name in sorted(os.listdir(runs)):
    with gzip.open(os.path.join(runs, name), "rt") as f:
        res = ev.evaluate(pytrec_eval.parse_run(f))
    for topic, ms in res.items():
        for m, v in ms.items():
            out.write(f"{name}\t{topic}\t{m}\t{v:.12g}\n")
'''


def timed(cmd: list[str], repeat: int, env: dict) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``cmd`` run ``repeat`` times, each a fresh process."""
    walls, cpus = [], []
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env, cwd=ROOT)
        walls.append(time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def _lines(runs: Path) -> int:
    n = 0
    for f in sorted(runs.iterdir()):
        with gzip.open(f, "rb") as fh:
            n += sum(1 for _ in fh)
    return n


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=None, metavar="N", help="only the first N runs")
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory(prefix="bench_peer_")
    runs = args.data / "runs"
    if args.runs:
        sub = Path(tmp.name) / "runs"
        sub.mkdir()
        for f in sorted(runs.iterdir())[: args.runs]:
            (sub / f.name).symlink_to(f.resolve())
        runs = sub
    q, r = str(args.data / "qrels.txt"), str(runs)
    py = sys.executable
    # PYTHONDONTWRITEBYTECODE dropped: an installed evalcore has its bytecode compiled, as numpy, pandas and
    # pyarrow have in site-packages; with it set, every call recompiled evalcore's ~40 modules (~0.05 s)
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                             "MKL_NUM_THREADS", "PYTHONDONTWRITEBYTECODE")}
    base["PYTHONPATH"] = str(ROOT)
    ev = [py, "-m", "evalcore", "evaluate", "--qrels", q, "--runs", r, "--metrics", *MEASURES, "--per-topic"]
    cmds = {
        "evalcore evaluate (one BLAS thread, the CLI's default)": (ev, base),
        "evalcore evaluate with OPENBLAS_NUM_THREADS=2": (ev, dict(base, OPENBLAS_NUM_THREADS="2")),
        "pytrec_eval script": ([py, "-c", PYTREC, q, r], base),
        "python -c pass": ([py, "-c", "pass"], base),
    }
    for cmd, env in cmds.values():  # warm-up: page cache, .pyc files
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env, cwd=ROOT)
    res = {}
    for _ in range(args.repeat):   # interleaved rounds, so that the machine's load hits every command alike
        for name, (cmd, env) in cmds.items():
            res.setdefault(name, []).append(timed(cmd, 1, env))
    spread = {k: (min(c for _, c in v), max(c for _, c in v)) for k, v in res.items()}
    ratios = [p[1] / e[1] for p, e in zip(res["pytrec_eval script"], res[next(iter(cmds))], strict=True)]  # per round
    res = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in res.items()}
    pw, pc = res["pytrec_eval script"]
    n = _lines(runs)
    print(f"\n{args.data.name}{f', first {args.runs} runs' if args.runs else ''}: {n:,} run lines; fresh process "
          f"per call, median of {args.repeat} interleaved rounds; {os.cpu_count()} cores\n")
    print("| command | wall s | CPU s (median) | CPU s (min - max) | pytrec_eval / this (CPU medians) |")
    print("|---|---|---|---|---|")
    for name, (w, c) in res.items():
        ratio = f"{pc / c:.2f}x" if name.startswith("evalcore") else ""
        print(f"| {name} | {w:.2f} | {c:.2f} | {spread[name][0]:.2f} - {spread[name][1]:.2f} | {ratio} |")
    print(f"\nratio pytrec_eval / evalcore (one BLAS thread) within each round: "
          f"{', '.join(f'{x:.2f}' for x in ratios)} (median {statistics.median(ratios):.2f}x)")
    tmp.cleanup()
    return res


if __name__ == "__main__":
    main()
