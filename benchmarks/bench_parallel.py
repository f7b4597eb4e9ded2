"""Parallel meta-evaluation (docs/scaling.md, docs/benchmarks.md): in-memory threads beside Dask workers.

    PYTHONPATH=. python benchmarks/bench_parallel.py [--runs 1000] [--topics 50] [--B 1000] [--metrics 2]
        [--methods bootstrap,stability,swap,tukey] [--threads 1,2,4,..] [--workers 1,2,4,..] [--no-dask]
        [--repeat 1] [--quick] --out results/parallel.json

For each method, at one size (default 1,000 runs x 50 topics, B = 1000 for all four methods, two
metrics of simulated scores: a Beta-distributed run quality plus per-topic noise, one metric rounded to
two decimals for ties), it times

- the in-memory path (``evalcore.meta.<method>(..., threads=k)``) for k = 1, 2, 4, ... up to the cores
  this process may use, and
- the Dask path (``evalcore.meta.on_dask``) on a ``dask.distributed.LocalCluster`` of k single-threaded
  worker processes (``on_dask.dask_client(workers=k)``), k = 1, 2, 4, ... up to the cores (cluster
  start, worker imports and one small warm-up call per method are outside the timing; the score
  matrices are scattered inside it),

checks that every table equals the in-memory one-thread table exactly (the sums are exact, so any
difference is a bug, reported as ``equal = False``), and prints one markdown table: seconds (wall),
speed-up over in memory with one thread, and parallel efficiency (speed-up / k). Timing, the machine and the
result file (benchmarks/results/parallel/): benchmarks/harness.py. ``--out PATH`` also writes the rows as JSON
to PATH and the markdown beside it (PATH with the suffix .md).

Only numpy, pandas, pyarrow, scipy, dask and distributed are needed besides evalcore on PYTHONPATH
(without ``distributed`` the Dask rows are skipped with a note). ``--quick``: 120 runs x 20 topics,
B = 200 (a check that the script works; the figures mean nothing).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))
import harness  # noqa: E402

# worker processes of a LocalCluster import evalcore too, and run one BLAS thread each
os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402

METHODS = ("bootstrap", "stability", "swap", "tukey")
TABLES = {"bootstrap": ("pairs", "summary", "asl_curves"), "stability": ("summary", "pairs"),
          "swap": ("curves", "summary"), "tukey": ("pairs", "summary")}


def simulated_scores(runs: int, topics: int, metrics: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    quality = rng.beta(2.0, 5.0, size=(runs, 1))
    hardness = rng.normal(0.0, 0.15, size=(1, topics))
    out = {}
    for k in range(metrics):
        s = np.clip(quality + hardness + rng.normal(0.0, 0.12, size=(runs, topics)), 0.0, 1.0)
        out[f"M{k + 1}"] = np.round(s, 2) if k % 2 else s
    return out


def powers(limit: int) -> list[int]:
    out, k = [], 1
    while k < limit:
        out.append(k)
        k *= 2
    return out + [limit]


def in_memory(method: str, S, B: int, threads: int):
    from evalcore import meta
    if method == "bootstrap":
        return meta.bootstrap_sensitivity(S, B=B, seed=0, threads=threads)
    if method == "stability":
        return meta.stability(S, B=B, seed=0, threads=threads)
    if method == "swap":
        return meta.swap_method(S, B=B, seed=0, threads=threads)
    return meta.tukey_hsd(S, B=B, seed=0, threads=threads)


def on_dask(method: str, S, B: int, client):
    from evalcore.meta import on_dask as od
    if method == "bootstrap":
        return od.bootstrap_sensitivity(S, B=B, seed=0, scheduler=client)
    if method == "stability":
        return od.stability(S, B=B, seed=0, scheduler=client)
    if method == "swap":
        return od.swap_method(S, B=B, seed=0, scheduler=client)
    return od.tukey_hsd(S, B=B, seed=0, scheduler=client)


def equal(method: str, a, b) -> bool:
    return all(getattr(a, t).equals(getattr(b, t)) for t in TABLES[method])


def timed(fn, repeat: int = 1):
    """(wall seconds, process CPU seconds (user + system, every thread), result) of the fastest of
    ``repeat`` calls by wall clock. On a machine shared with other work the CPU seconds hardly move with
    the load, while the wall seconds do: CPU seconds per call that rise with the threads show work lost
    to the threads themselves (locks, the GIL, caches)."""
    best = harness.rounds({"call": fn}, max(repeat, 1), warmup=0).best("call", "wall")
    return best.wall, best.cpu, best.result


COLUMNS = [harness.col("method"), harness.col("path"), harness.col("k", right=True),
           harness.col("seconds", "{:.2f}", right=True), harness.col("speed-up", "{:.2f}x", "speedup", right=True),
           harness.col("efficiency", "{:.0f} %", "efficiency_pct", right=True),
           harness.col("CPU seconds", ["{:.2f}", "-"], "cpu_seconds", right=True),
           harness.col("tables equal", "{}", "equal_text")]


def markdown(rows: list[dict], info: dict) -> str:
    head = (f"`{info['command']}`\n\n{info['runs']:,} runs x {info['topics']} topics, B = {info['B']}, "
            f"{info['metrics']} metrics, {info['pairs']:,} run pairs; {info['cores']} cores ({info['cpu']}), "
            f"Python {info['python']}.\n\n")
    notes = "".join(f"\n{n}\n" for n in info["notes"])
    return head + harness.markdown(COLUMNS, rows) + "\n" + notes


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--B", type=int, default=1000)
    p.add_argument("--metrics", type=int, default=2)
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--threads", help="in-memory thread counts (default 1, 2, 4, ... up to the cores)")
    p.add_argument("--workers", help="Dask worker counts (default 1, 2, 4, ... up to the cores)")
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--repeat", type=int, default=1, help="calls per in-memory row; the fastest is shown (default 1)")
    p.add_argument("--quick", action="store_true", help="120 runs x 20 topics, B = 200")
    p.add_argument("--out", help="write the rows as JSON here and the markdown table beside it (.md)")
    harness.add_options(p)
    a = p.parse_args(argv)
    if a.quick:
        a.runs, a.topics, a.B = 120, 20, 200
    from evalcore.meta._parallel import machine_threads
    cores = machine_threads()
    methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        p.error(f"--methods: unknown {', '.join(bad)} (choose from {', '.join(METHODS)})")
    threads = [int(x) for x in a.threads.split(",")] if a.threads else powers(cores)
    workers = [int(x) for x in a.workers.split(",")] if a.workers else powers(cores)
    S = simulated_scores(a.runs, a.topics, a.metrics)
    info = {"command": "python benchmarks/bench_parallel.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "runs": a.runs, "topics": a.topics, "B": a.B, "metrics": a.metrics, "pairs": a.runs * (a.runs - 1) // 2,
            "cores": cores, "cpu": harness.cpu_model(), "python": platform.python_version(), "notes": []}
    rows: list[dict] = []
    ref: dict = {}
    base: dict = {}

    def add(method, path, k, sec, res, cpu=None):
        if method not in ref:
            ref[method], base[method] = res, sec
        sp = base[method] / sec
        rows.append({"method": method, "path": path, "k": k, "seconds": sec, "speedup": sp, "efficiency": sp / k,
                     "cpu_seconds": cpu, "equal": equal(method, res, ref[method])})
        rows[-1].update(equal_text="yes" if rows[-1]["equal"] else "NO", efficiency_pct=100 * sp / k)
        r = rows[-1]
        print(f"{method:10s} {path:22s} k={k:<3d} {sec:8.2f} s  {sp:5.2f}x  {100 * r['efficiency']:4.0f} %  "
              f"cpu={harness.cell(r, COLUMNS[6])}  equal={r['equal']}", file=sys.stderr, flush=True)

    for k in threads:
        for m in methods:
            sec, cpu, res = timed(lambda m=m, k=k: in_memory(m, S, a.B, k), a.repeat)
            add(m, "in memory, threads", k, sec, res, cpu)
    if not a.no_dask:
        try:
            import distributed  # noqa: F401
        except ImportError:
            info["notes"].append("dask.distributed is not installed: no Dask rows (pip install distributed).")
            workers = []
        from evalcore.meta.on_dask import dask_client
        for k in workers:
            with dask_client(workers=k) as client:       # k single-threaded worker processes
                client.run(lambda: __import__("evalcore.meta.on_dask"))      # worker imports outside the timing
                small = simulated_scores(30, 10, a.metrics, seed=1)
                for m in methods:                                              # and the first call's set-up
                    on_dask(m, small, 50, client)
                for m in methods:
                    sec, _, res = timed(lambda m=m: on_dask(m, S, a.B, client))
                    add(m, "Dask LocalCluster", k, sec, res)
    info["notes"].append("speed-up: in memory with 1 thread over this row; efficiency: speed-up / k. Wall seconds "
                         f"of the fastest of {a.repeat} call(s) (Dask rows: one call), including building the "
                         "result tables in pandas; CPU seconds: this process's user + system time over that call "
                         "(in memory only: Dask workers are other processes).")
    rows = sorted(rows, key=lambda r: (methods.index(r["method"]), r["path"] != "in memory, threads", r["k"]))
    md = markdown(rows, info)
    print(md)
    res = harness.Result("parallel", argv, {k: info[k] for k in ("runs", "topics", "B", "metrics", "pairs")},
                         script=__file__)
    res.table(COLUMNS, rows, title=md.split("\n\n| method")[0], notes=info["notes"])
    res.save(a)
    if a.out:
        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"info": info, "rows": rows}, indent=1) + "\n")
        out.with_suffix(".md").write_text(md)
    return 0 if all(r["equal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
