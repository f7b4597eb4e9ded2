"""Speed of evalcore against the tools users would pick instead, in one run.

    python benchmarks/bench_evaluate.py [--repeat 5] [--data ../shared/data/clef2015]

Measures on the real clef2015 collection (30 runs x 66 topics x ~1000 docs):

1. end to end: evalcore loading qrels + 30 gzipped runs and computing every
   metric key (all 19 base metrics, cutoff metrics at 10 and 1000) versus
   pytrec_eval parsing the same files (its parse_qrel / parse_run) and
   computing map, recip_rank, P.10, ndcg_cut.10 and Rprec; and versus ranx
   (Qrels/Run.from_file on the decompressed files, the same five metrics;
   its numba compilation is warmed up first and not counted);
2. re-evaluating every metric under new gains on the loaded collection
   (median over 20 gain settings);
3. peak memory (max RSS) of a fresh process that loads and evaluates.

evalcore's two timings and pytrec_eval's run in interleaved rounds (benchmarks/harness.py; medians of wall
time), ranx in rounds of its own. Prints a markdown table with medians and ratios; the result goes to
benchmarks/results/evaluate/ (``--json PATH`` also writes the numbers there, as before).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))
import harness  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"
TREC_MEASURES = {"map", "recip_rank", "P.10", "ndcg_cut.10", "Rprec"}
RANX_MEASURES = ["map", "mrr", "precision@10", "ndcg@10", "r-precision"]


def evalcore_end_to_end(qrels, runs_dir):
    import evalcore

    c = evalcore.load_collection(str(qrels), str(runs_dir))
    return evalcore.score_matrices(c)


def pytrec_end_to_end(qrels, run_files):
    import pytrec_eval

    with open(qrels) as f:
        q = pytrec_eval.parse_qrel(f)
    ev = pytrec_eval.RelevanceEvaluator(q, TREC_MEASURES)
    out = {}
    for p in run_files:
        with gzip.open(p, "rt") as f:
            out[p.name] = ev.evaluate(pytrec_eval.parse_run(f))
    return out


def ranx_end_to_end(qrels, plain_runs):
    from ranx import Qrels, Run, evaluate

    q = Qrels.from_file(str(qrels), kind="trec")
    return {p.name: evaluate(q, Run.from_file(str(p), kind="trec"), RANX_MEASURES,
                             make_comparable=True) for p in plain_runs}


def peak_memory_mb(qrels, runs_dir) -> float:
    # VmHWM of the child's own address space: ru_maxrss would carry over the
    # parent's high-water mark through fork + exec.
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); import evalcore;"
        f"c = evalcore.load_collection({str(qrels)!r}, {str(runs_dir)!r}); evalcore.score_matrices(c);"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0];"
        "print(int(hwm.split()[1]) / 1024)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    result = harness.Result("evaluate", argv, {"repeat": args.repeat, "data": args.data.name}, script=__file__)
    qrels = args.data / "qrels.txt"
    runs_dir = args.data / "runs"
    run_files = sorted(p for p in runs_dir.iterdir() if p.is_file())

    import numpy as np

    import evalcore

    res = {}
    got = harness.rounds({"evalcore_end_to_end": lambda: evalcore_end_to_end(qrels, runs_dir),
                          "evalcore_load": lambda: evalcore.load_collection(str(qrels), str(runs_dir)),
                          "pytrec_end_to_end": lambda: pytrec_end_to_end(qrels, run_files)}, args.repeat)
    result.add_rounds(got)
    for name in got.samples:
        res[name] = got.stats(name, "wall").median
    c = got.samples["evalcore_load"][-1].result

    tmp = Path(tempfile.mkdtemp(prefix="bench_ranx_"))
    try:
        plain = []
        for p in run_files:
            dst = tmp / p.name.removesuffix(".gz")
            with gzip.open(p, "rb") as src, open(dst, "wb") as out:
                shutil.copyfileobj(src, out)
            plain.append(dst)
        ranx_end_to_end(qrels, plain[:1])  # numba warm-up, not counted
        ranx = harness.rounds({"ranx_end_to_end": lambda: ranx_end_to_end(qrels, plain)}, max(1, args.repeat // 2),
                              warmup=0)
        result.add_rounds(ranx)
        res["ranx_end_to_end"] = ranx.stats("ranx_end_to_end", "wall").median
    except ImportError:
        res["ranx_end_to_end"] = float("nan")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    rng = np.random.default_rng(0)
    settings = [None] + [sorted(rng.uniform(0.1, 10, c.max_level).tolist()) for _ in range(19)]
    _ = c.hits  # built once at load in practice (first evaluation)
    res["regains_median"] = statistics.median(harness.measure(lambda g=g: evalcore.score_matrices(c, gains=g)).wall
                                              for g in settings)
    res["n_metric_keys"] = len(evalcore.score_matrices(c))
    peaks = sorted(peak_memory_mb(qrels, runs_dir) for _ in range(5))
    res["peak_rss_mb"], res["peak_rss_mb_max"] = statistics.median(peaks), peaks[-1]

    e, p, r = res["evalcore_end_to_end"], res["pytrec_end_to_end"], res["ranx_end_to_end"]
    k = res["n_metric_keys"]
    rows = [{"task": f"evalcore: load + every metric ({k} keys)", "time": f"{e * 1000:.0f} ms", "ratio": "1.0"},
            {"task": "evalcore: load only", "time": f"{res['evalcore_load'] * 1000:.0f} ms", "ratio": ""},
            {"task": "pytrec_eval: parse + map, recip_rank, P.10, ndcg_cut.10, Rprec", "time": f"{p * 1000:.0f} ms",
             "ratio": f"{p / e:.2f}x slower than evalcore"},
            {"task": "ranx: from_file (decompressed) + the same 5 metrics", "time": f"{r * 1000:.0f} ms",
             "ratio": f"{r / e:.2f}x slower"},
            {"task": "evalcore: re-evaluate every metric under new gains (median of 20)",
             "time": f"{res['regains_median'] * 1000:.1f} ms", "ratio": "target <= 50 ms"},
            {"task": "evalcore: peak memory (max RSS of a fresh process, load + evaluate; median of 5, max)",
             "time": f"{res['peak_rss_mb']:.0f} MB (max {res['peak_rss_mb_max']:.0f} MB)", "ratio": "target < 500 MB"}]
    result.data["params"]["numbers"] = res
    print(result.table([harness.col("task"), harness.col("time"), harness.col("ratio")], rows,
                       title=f"clef2015: {c.n_runs} runs x {c.n_topics} topics x depth {c.depth}; {k} metric keys; "
                             f"median of {args.repeat} interleaved rounds; {os.cpu_count()} cores"))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    result.save(args)
    return res


if __name__ == "__main__":
    main()
