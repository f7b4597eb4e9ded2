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
the ratio within each round (both commands ran under the same load there); rounds are interleaved
(benchmarks/harness.py) and the result goes to benchmarks/results/peer/ (``--name peer-10runs`` keeps a
``--runs 10`` run apart).

The children run without ``PYTHONDONTWRITEBYTECODE``: the warm-up call compiles evalcore's bytecode once,
as installing it would (site-packages' numpy, pandas, pyarrow and pytrec_eval are compiled already).
"""
from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

ROOT = harness.ROOT
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"
MEASURES = ("map", "recip_rank", "P_10", "ndcg_cut_10", "Rprec")
EVALCORE, PYTREC_NAME = "evalcore evaluate (one BLAS thread, the CLI's default)", "pytrec_eval script"
COLUMNS = [harness.col("command"), harness.col("wall s", "{:.2f}", "wall_s"),
           harness.col("CPU s (median)", "{:.2f}", "cpu_s"),
           harness.col("CPU s (min - max)", "{:.2f} - {cpu_max:.2f}", "cpu_min"),
           harness.col("pytrec_eval / this (CPU medians)", "{:.2f}x", "pytrec_over_this")]

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


def _lines(runs: Path) -> int:
    n = 0
    for f in sorted(runs.iterdir()):
        with gzip.open(f, "rb") as fh:
            n += sum(1 for _ in fh)
    return n


def main(argv=None) -> harness.Rounds:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=None, metavar="N", help="only the first N runs")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("peer", argv, {"data": args.data.name, "repeat": args.repeat, "runs": args.runs,
                                        "measures": list(MEASURES)}, script=__file__)
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
    # pyarrow have in site-packages; with it set, every call recompiled evalcore's modules
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                             "MKL_NUM_THREADS", "PYTHONDONTWRITEBYTECODE")}
    base["PYTHONPATH"] = str(ROOT)
    ev = [py, "-m", "evalcore", "evaluate", "--qrels", q, "--runs", r, "--metrics", *MEASURES, "--per-topic"]
    got = harness.rounds({    # the warm-up call of each: page cache, .pyc files
        EVALCORE: harness.command(ev, env=base),
        "evalcore evaluate with OPENBLAS_NUM_THREADS=2": harness.command(ev, env=dict(base, OPENBLAS_NUM_THREADS="2")),
        PYTREC_NAME: harness.command([py, "-c", PYTREC, q, r], env=base),
        "python -c pass": harness.command([py, "-c", "pass"], env=base),
    }, args.repeat)
    res.add_rounds(got)
    ratios = got.ratios(PYTREC_NAME, EVALCORE, "child_cpu")
    pc = got.stats(PYTREC_NAME, "child_cpu").median
    rows = []
    for name in got.samples:
        cpu = got.stats(name, "child_cpu")
        rows.append({"command": name, "wall_s": got.stats(name, "wall").median, "cpu_s": cpu.median,
                     "cpu_min": cpu.min, "cpu_max": cpu.max,
                     "pytrec_over_this": pc / cpu.median if name.startswith("evalcore") else None})
    n = _lines(runs)
    title = (f"{args.data.name}{f', first {args.runs} runs' if args.runs else ''}: {n:,} run lines; fresh process "
             f"per call, median of {args.repeat} interleaved rounds; {os.cpu_count()} cores:")
    note = (f"Ratio pytrec_eval / evalcore (one BLAS thread) of CPU within each round: "
            f"{', '.join(f'{x:.2f}' for x in ratios)} (median {harness.stats(ratios).median:.2f}x).")
    res.data["params"]["run_lines"] = n
    print(res.table(COLUMNS, rows, title=title, notes=[note]))
    tmp.cleanup()
    res.save(args)
    return got


if __name__ == "__main__":
    main()
