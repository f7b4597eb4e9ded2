"""Meta-evaluation for many runs (docs/benchmarks.md section 7): CPU time and peak RSS.

    python benchmarks/bench_meta_scale.py [--sizes 100x50,300x50] [--threads 1,2] [--baseline REV]
                                          [--methods bootstrap,swap,stability,tukey,pairs,all] [--clef]

Score matrices come from :func:`synthetic_scores`: a deterministic synthetic
collection (``evalcore.simulated_collection``: graded S/A/B qrels, runs of
spread quality, per-topic noise, depth 1000) scored with the 7 metrics of
003 (Q-measure, AP, P+-measure, P-measure, O-measure, NWRR, RR), so the
matrices have the real metrics' value sets and ties (RR takes a few hundred
distinct values, Q-measure tens of thousands). Same (runs, topics, seed),
same matrices. They are computed once, saved to a temporary .npz, and every
measurement runs in a fresh process that loads them:

- bootstrap: ``bootstrap_sensitivity(B=1000)``
- swap: ``swap_method(sampling="replacement", B=1000)``
- stability: ``stability()`` (B=1000, c = |Q|/2 without replacement, f = 1, 2, 5, 10 %)
- tukey: ``tukey_hsd(B=5000)``
- pairs: ``pair_statistics(B=1000)``: every pair's mean difference, t and
  bootstrap CIs, effect sizes and all five p-values (t, Wilcoxon, sign,
  randomisation with 1000 sign flips, bootstrap)
- all: the five above, one after the other, in one process
- bootstrap_dask, stability_dask (not in all): the bootstrap / stability through
  ``evalcore.meta.on_dask`` (Dask tasks of run pairs on Dask's thread pool; needs ``evalcore-ir[dask]``)

CPU seconds are the process's user + system time (all threads, so BLAS
threads that spin are counted); peak RSS is the process's VmHWM (the
interpreter with numpy and pandas imported is ~100 MB of it). BLAS threads
are set per process with OPENBLAS_NUM_THREADS / OMP_NUM_THREADS.
``--baseline REV`` also measures evalcore as of git revision REV (extracted
with ``git archive`` into a temporary directory) in the same run, for ratios.
``--clef`` adds clef2015's top 30 runs (as benchmarks/bench_meta.py) and the
bootstrap's matrix-product floor: the two products ``w @ counts.T`` and
``(w * w) @ counts.T`` over all pairs of every metric, as single BLAS calls.
Each process keeps the fastest (CPU) of ``--repeat`` calls (benchmarks/harness.py); prints a markdown table, and
the result goes to benchmarks/results/meta_scale/.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"
METRICS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]
METHODS = ("bootstrap", "swap", "stability", "tukey", "pairs")


def synthetic_scores(n_runs: int, n_topics: int, *, seed: int = 0, depth: int = 1000) -> dict[str, np.ndarray]:
    """``{metric: (n_runs, n_topics)}`` for the 7 metrics of 003 on a simulated collection; deterministic."""
    sys.path.insert(0, str(ROOT))
    import evalcore
    c = evalcore.simulated_collection(n_topics=n_topics, n_runs=n_runs, depth=depth, seed=seed)
    return evalcore.score_matrices(c, METRICS)


def clef_scores(data: Path) -> dict[str, np.ndarray]:
    sys.path.insert(0, str(ROOT))
    import evalcore
    from evalcore.meta import subset_runs, top_runs
    c = evalcore.load_collection(str(data / "qrels.txt"), str(data / "runs"))
    S = evalcore.score_matrices(c, METRICS)
    return subset_runs(S, top_runs(S["AP"].mean(axis=1), 30))


def _status(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _floor(S, B):
    """The bootstrap's two pair products, all pairs of a metric in one BLAS call each."""
    from evalcore.meta import bootstrap_samples
    from evalcore.meta._common import pair_index, topic_counts
    n_runs, n = next(iter(S.values())).shape
    Ct = topic_counts(bootstrap_samples(n, B=B, seed=0), n).T
    pi, pj = pair_index(n_runs)
    for M in S.values():
        w = M[pi] - M[pj]
        w -= w.mean(axis=1, keepdims=True)
        w @ Ct
        (w * w) @ Ct


def _on_dask():
    """evalcore.meta.on_dask, imported only by the methods that use it (it needs evalcore-ir[dask])."""
    from evalcore.meta import on_dask
    return on_dask


def worker(args) -> None:
    sys.path.insert(0, str(args.root))
    import evalcore.meta as em
    z = np.load(args.scores)
    S = {m: z[m] for m in z.files}
    calls = {
        "bootstrap": lambda: em.bootstrap_sensitivity(S, B=1000, seed=0),
        "swap": lambda: em.swap_method(S, sampling="replacement", B=1000, seed=0),
        "stability": lambda: em.stability(S, B=1000, seed=0),
        "tukey": lambda: em.tukey_hsd(S, B=5000, seed=0),
        # every pair statistic: CIs, effect sizes, t / Wilcoxon / sign / randomisation / bootstrap p-values
        "pairs": lambda: em.pair_statistics(S, B=1000, seed=0),
        "floor": lambda: _floor(S, 1000),
        # the optional Dask path (evalcore-ir[dask]): the same methods as tasks of run pairs on a thread pool
        "bootstrap_dask": lambda: _on_dask().bootstrap_sensitivity(S, B=1000, seed=0, scheduler="threads"),
        "stability_dask": lambda: _on_dask().stability(S, B=1000, seed=0, scheduler="threads"),
    }
    todo = list(METHODS) if args.method == "all" else [args.method]
    base = _status("VmRSS")
    got = harness.rounds({"call": lambda: [calls[m]() for m in todo]}, args.repeat, warmup=0)
    best = got.best("call", "cpu")   # min over repeats: the least disturbed by other users of the machine
    print(json.dumps({"cpu": best.cpu, "wall": best.wall, "peak_mb": _status("VmHWM"), "base_mb": base}))


def run_worker(root: Path, scores: Path, method: str, threads: int, repeat: int) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, __file__, "--worker", "--root", str(root), "--scores", str(scores),
                          "--method", method, "--repeat", str(repeat)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def extract(rev: str, into: Path) -> Path:
    """evalcore/ as of git revision ``rev``, unpacked under ``into``."""
    tar = into / "rev.tar"
    with open(tar, "wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "evalcore"], stdout=f, check=True)
    with tarfile.open(tar) as t:
        t.extractall(into / "src", filter="data")
    return into / "src"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100x50,300x50", help="runs x topics, comma-separated")
    ap.add_argument("--methods", default="bootstrap,swap,stability,tukey,pairs,all")
    ap.add_argument("--threads", default="1,2", help="BLAS threads to measure, comma-separated")
    ap.add_argument("--baseline", default=None, help="git revision to measure beside the working tree")
    ap.add_argument("--clef", action="store_true", help="also clef2015's top 30 runs and the matrix floor")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="repeats inside each process (min CPU is kept)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    ap.add_argument("--scores", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--method", help=argparse.SUPPRESS)
    harness.add_options(ap)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return
    res = harness.Result("meta_scale", argv, {k: getattr(args, k) for k in ("sizes", "methods", "threads", "baseline",
                                                                            "clef", "seed", "repeat")},
                         script=__file__)
    rows = []
    methods = args.methods.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-meta-scale-") as tmp:
        tmp = Path(tmp)
        roots = {"now": ROOT}
        if args.baseline:
            roots[args.baseline] = extract(args.baseline, tmp)
        datasets = []
        for size in args.sizes.split(","):
            r, t = (int(v) for v in size.lower().split("x"))
            datasets.append((f"synthetic {r} runs x {t} topics", synthetic_scores(r, t, seed=args.seed)))
        if args.clef:
            datasets.insert(0, ("clef2015 top 30 runs x 65 topics", clef_scores(args.data)))
        for k, (label, S) in enumerate(datasets):
            path = tmp / f"scores{k}.npz"
            np.savez(path, **S)
            n_runs = next(iter(S.values())).shape[0]
            P = n_runs * (n_runs - 1) // 2
            todo = (["floor"] if label.startswith("clef") else []) + methods
            for method in todo:
                for th in threads:
                    for name, root in roots.items():
                        if method == "floor" and name != "now":
                            continue
                        rep = max(args.repeat, 5 if label.startswith("clef") else 1)
                        got = run_worker(root, path, method, th, rep)
                        rows.append({"data": label, "pairs": P, "method": method, "threads": th, "code": name, **got})
                        print(harness.markdown(COLUMNS, rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(res.table(COLUMNS, rows))
    res.save(args)


COLUMNS = [harness.col("data"), harness.col("pairs", right=True), harness.col("method"),
           harness.col("BLAS threads", "{}", "threads", right=True), harness.col("code"),
           harness.col("CPU s", "{:.3f}", "cpu", right=True), harness.col("wall s", "{:.3f}", "wall", right=True),
           harness.col("peak RSS MB", "{:.0f}", "peak_mb", right=True),
           harness.col("RSS before MB", "{:.0f}", "base_mb", right=True)]


if __name__ == "__main__":
    main()
