"""``evalcore trec_eval -q -m all_trec`` against pytrec_eval (and the trec_eval binary), one run per call.

    python benchmarks/bench_trec_eval.py [--repeat 5] [--runs N] [--data ../shared/data/clef2015]
                                         [--trec-eval /path/to/trec_eval]

A trec_eval user evaluates one run file per call. For each of the first N runs of the collection (by file name;
all 30 of clef2015 by default) each contender evaluates the run against the qrels and prints every per-topic and
summary value in trec_eval's format, in a fresh process, imports included:

* ``python -m evalcore trec_eval -q -m all_trec QRELS RUN`` (the gzipped run read directly);
* a pytrec_eval script: ``parse_qrel``, ``parse_run`` of the gzipped run, ``RelevanceEvaluator`` with every
  ``all_trec`` measure pytrec_eval computes (34 of the 37: not ``rbp``, ``rbp_resid``, ``unj``, which evalcore
  computes too), the values printed one line each;
* ``--trec-eval PATH``: the C binary on a decompressed copy of each run (trec_eval reads no gzip);
* ``python -c pass``: the interpreter's start-up, the floor under both Python contenders.

Rounds are interleaved (every contender once per round, so load hits all alike); the table gives the median
over rounds of the total wall and CPU seconds over the N runs, and the ratio evalcore / pytrec_eval of CPU
within each round. docs/benchmarks.md section 19, "trec_eval drop-in", has the numbers.
"""
from __future__ import annotations

import argparse
import gzip
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"

PYTREC = r'''
import gzip, sys, pytrec_eval
qrels_path, run_path = sys.argv[1], sys.argv[2]
measures = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
            "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "relative_P", "success",
            "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
            "num_nonrel_judged_ret", "num_q", "num_ret", "num_rel", "num_rel_ret", "runid"}
with open(qrels_path) as f:
    ev = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f), measures)
with gzip.open(run_path, "rt") as f:
    res = ev.evaluate(pytrec_eval.parse_run(f))
out = []
for topic, ms in res.items():
    for m, v in ms.items():
        out.append(f"{m:<22}\t{topic}\t{v:.4f}")
sys.stdout.write("\n".join(out) + "\n")
'''


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of one call of ``cmd`` in a fresh process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=None, metavar="N", help="only the first N runs")
    ap.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"), help="a trec_eval binary to time too")
    args = ap.parse_args(argv)
    runs = sorted((args.data / "runs").iterdir())[: args.runs]
    qrels = str(args.data / "qrels.txt")
    py = sys.executable
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    tmp = tempfile.TemporaryDirectory(prefix="bench_trec_eval_")
    plain = []
    for r in runs:
        p = Path(tmp.name) / r.name.removesuffix(".gz")
        with gzip.open(r, "rb") as src, open(p, "wb") as dst:
            shutil.copyfileobj(src, dst)
        plain.append(p)
    contenders = {
        "evalcore trec_eval -q -m all_trec": [[py, "-m", "evalcore", "trec_eval", "-q", "-m", "all_trec", qrels,
                                               str(r)] for r in runs],
        "pytrec_eval script (34 measures)": [[py, "-c", PYTREC, qrels, str(r)] for r in runs],
        "python -c pass": [[py, "-c", "pass"] for _ in runs],
    }
    if args.trec_eval:
        contenders["trec_eval 10.0 binary -q -m all_trec"] = [[args.trec_eval, "-q", "-m", "all_trec", qrels,
                                                                str(p)] for p in plain]
    for cmds in contenders.values():   # warm-up: page cache, bytecode
        timed(cmds[0], env)
    rounds: dict[str, list[tuple[float, float]]] = {k: [] for k in contenders}
    for _ in range(args.repeat):
        for name, cmds in contenders.items():
            w = c = 0.0
            for cmd in cmds:
                dw, dc = timed(cmd, env)
                w, c = w + dw, c + dc
            rounds[name].append((w, c))
    ev, pt = rounds["evalcore trec_eval -q -m all_trec"], rounds["pytrec_eval script (34 measures)"]
    ratios = [e[1] / p[1] for e, p in zip(ev, pt, strict=True)]
    n_lines = sum(sum(1 for _ in gzip.open(r, "rb")) for r in runs)
    print(f"\n{args.data.name}: {len(runs)} runs, {n_lines:,} run lines, one fresh process per run; median of "
          f"{args.repeat} interleaved rounds; {os.cpu_count()} cores\n")
    print("| command (all runs) | wall s | CPU s | CPU s (min - max) |")
    print("|---|---|---|---|")
    for name, v in rounds.items():
        cs = [c for _, c in v]
        print(f"| {name} | {statistics.median(w for w, _ in v):.2f} | {statistics.median(cs):.2f} | "
              f"{min(cs):.2f} - {max(cs):.2f} |")
    print(f"\nCPU ratio evalcore trec_eval / pytrec_eval within each round: {', '.join(f'{x:.2f}' for x in ratios)}"
          f" (median {statistics.median(ratios):.2f}x)")
    tmp.cleanup()
    return rounds


if __name__ == "__main__":
    main()
