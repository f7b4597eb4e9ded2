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
within each round (benchmarks/harness.py). The result goes to benchmarks/results/trec_eval/, from which
docs/benchmarks.md section 19, "trec_eval drop-in", is made (``python benchmarks/report.py``).
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

ROOT = harness.ROOT
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"
EVALCORE, PYTREC_NAME = "evalcore trec_eval -q -m all_trec", "pytrec_eval script (34 measures)"
COLUMNS = [harness.col("command (all runs)", "{}", "command"), harness.col("wall s", "{:.2f}", "wall_s"),
           harness.col("CPU s", "{:.2f}", "cpu_s"),
           harness.col("CPU s (min - max)", "{:.2f} - {cpu_max:.2f}", "cpu_min")]

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


def main(argv=None) -> harness.Rounds:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=None, metavar="N", help="only the first N runs")
    ap.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"), help="a trec_eval binary to time too")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("trec_eval", argv, {"data": args.data.name, "repeat": args.repeat, "runs": args.runs,
                                             "trec_eval": args.trec_eval}, script=__file__)
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
        EVALCORE: harness.commands([[py, "-m", "evalcore", "trec_eval", "-q", "-m", "all_trec", qrels, str(r)]
                                    for r in runs], env=env),
        PYTREC_NAME: harness.commands([[py, "-c", PYTREC, qrels, str(r)] for r in runs], env=env),
        "python -c pass": harness.commands([[py, "-c", "pass"] for _ in runs], env=env),
    }
    if args.trec_eval:
        contenders["trec_eval 10.0 binary -q -m all_trec"] = harness.commands(
            [[args.trec_eval, "-q", "-m", "all_trec", qrels, str(p)] for p in plain], env=env)
    # one warm-up round (page cache, bytecode), then every contender's N calls once per round
    got = harness.rounds(contenders, args.repeat)
    res.add_rounds(got)
    ratios = got.ratios(EVALCORE, PYTREC_NAME, "child_cpu")
    n_lines = 0
    for r in runs:
        with gzip.open(r, "rb") as f:
            n_lines += sum(1 for _ in f)
    rows = []
    for name in got.samples:
        cpu = got.stats(name, "child_cpu")
        rows.append({"command": name, "wall_s": got.stats(name, "wall").median, "cpu_s": cpu.median,
                     "cpu_min": cpu.min, "cpu_max": cpu.max})
    title = (f"{args.data.name}, {len(runs)} runs, {n_lines:,} run lines, one fresh process per run; "
             f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end "
             f"({time.strftime('%Y-%m-%d', time.gmtime())}); totals over the {len(runs)} runs, median of "
             f"{args.repeat} interleaved rounds:")
    note = (f"CPU ratio evalcore trec_eval / pytrec_eval within each round: {', '.join(f'{x:.2f}' for x in ratios)}"
            f" (median {harness.stats(ratios).median:.2f}x; target <= 1.5x).")
    res.data["params"]["run_lines"] = n_lines
    print(res.table(COLUMNS, rows, title=title, notes=[note]))
    tmp.cleanup()
    res.save(args)
    return got


if __name__ == "__main__":
    main()
