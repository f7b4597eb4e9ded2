"""Worker processes against one worker: the coordinator's share, the speed-up and Amdahl's projection.

    PYTHONPATH=. python benchmarks/bench_workers.py [--runs 400] [--topics 50] [--B 1000] [--metrics 2]
        [--methods bootstrap,stability,swap,tukey,pairs] [--workers 2] [--repeat 3] [--quick] [--out PATH]
    PYTHONPATH=. python benchmarks/bench_workers.py --crossover [--sizes 30,60,100,200,300] [--repeat 3]

For each method at one size (default 400 runs x 50 topics, B = 1000 for every method, two metrics of
simulated scores as in bench_parallel.py), in one process, interleaved round by round so that a change
of load hits every row alike:

- ``1 worker``: ``workers=1`` (the calling thread only);
- ``2 threads``: ``threads=2`` (the thread pool of one process, for comparison);
- ``k processes``: ``workers=k, process_work=0`` (k worker processes, the pool started before the timing;
  its start is timed once, apart, as ``pool start``).

It prints wall seconds (fastest of ``--repeat`` rounds), the speed-up over one worker, and the
**coordinator's share**: the calling process's own CPU seconds (user + system, all its threads; the workers
are other processes) during the k-process call, over the one-worker call's CPU seconds (its work; CPU
seconds, unlike wall seconds, hardly move with the machine's load). That share is the serial part s of
Amdahl's law; the projection at n workers is 1 / (s + (1 - s) / n), printed for n = k and 16 with its
efficiency. "CPU of all / 1 worker" adds the workers' CPU (psutil, the pool's processes): above 1 it is
work the processes add (page faults of the shared file, hand-offs), which Amdahl's s leaves out. Every
table is compared with the one-worker table exactly (``equal``).

``--crossover``: for each method and each run count of ``--sizes`` (50 topics, B = 1000), one worker, the
thread path's default (``process_work`` above the call's work: the threads a call below the crossover
gets) and 2 processes; the ratios choose ``evalcore.meta._workers.PROCESS_WORK``.

``--small DIR``: the dashboard's kind of call (30 runs x 65 topics, B = 100, ``threads=1`` as its pages pass,
20 calls of each method) timed in CPU seconds in fresh processes, alternately on this tree and on the tree
at DIR (a checkout of the code before worker processes, e.g. ``git worktree add /tmp/base REV``), rounds
interleaved: what the runner adds to a call that never leaves its thread.

``--out PATH`` writes the rows as JSON and the markdown beside it (.md). ``--quick``: 60 runs x 20 topics,
B = 200 (a check that the script runs; the figures mean nothing).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.pop("EVALCORE_WORKERS", None)
os.environ.pop("EVALCORE_THREADS", None)

from bench_parallel import cpu_name, simulated_scores  # noqa: E402

METHODS = ("bootstrap", "stability", "swap", "tukey", "pairs")
TABLES = {"bootstrap": ("pairs", "summary", "asl_curves"), "stability": ("summary", "pairs"),
          "swap": ("curves", "summary"), "tukey": ("pairs", "summary"), "pairs": ("pairs",)}
NEVER = 1 << 62


def call(method: str, S, B: int, **kw):
    from evalcore import meta
    fn = {"bootstrap": meta.bootstrap_sensitivity, "stability": meta.stability, "swap": meta.swap_method,
          "tukey": meta.tukey_hsd, "pairs": meta.pair_statistics}[method]
    return fn(S, B=B, seed=0, **kw)


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's live child processes (the pool's workers), or NaN
    without psutil."""
    try:
        import psutil
    except ImportError:
        return float("nan")
    total = 0.0
    for ch in psutil.Process().children(recursive=True):
        try:
            t = ch.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


def timed(fn, workers: bool = False):
    """(wall seconds, this process's CPU seconds, its workers' CPU seconds (with ``workers``), result)."""
    w0 = children_cpu() if workers else 0.0
    c0, t0 = time.process_time(), time.perf_counter()        # every thread of this process, in ns
    res = fn()
    t1, c1 = time.perf_counter(), time.process_time()
    w1 = children_cpu() if workers else 0.0
    return t1 - t0, c1 - c0, w1 - w0, res


def equal(method: str, a, b) -> bool:
    return all(getattr(a, t).equals(getattr(b, t)) for t in TABLES[method])


def amdahl(s: float, n: int) -> float:
    return 1.0 / (s + (1.0 - s) / n)


def _warm(_):
    """A worker's first task: import what the methods' tasks import (sent by value: this is __main__)."""
    import evalcore.meta  # noqa: F401
    import evalcore.meta.pairs  # noqa: F401
    time.sleep(0.05)                  # hold the worker so that every one of them gets a task
    return os.getpid()


def start_pool(k: int) -> float:
    """Seconds to start k worker processes and import evalcore in each (the pool's start, paid once by a
    process's first call on workers)."""
    from evalcore.meta import _workers
    t0 = time.perf_counter()
    ex = _workers._executor(k)
    list(ex.map(_warm, range(2 * k)))
    return time.perf_counter() - t0


def measure(a) -> tuple[list[dict], dict]:
    S = simulated_scores(a.runs, a.topics, a.metrics)
    k = a.workers
    info = {"pool_start": start_pool(k)}
    variants = {"1 worker": {"workers": 1}, "2 threads": {"threads": 2},
                f"{k} processes": {"workers": k, "process_work": 0}}
    best: dict = {}
    ref: dict = {}
    for _ in range(a.repeat):
        for m in a.methods:
            for name, kw in variants.items():
                wall, cpu, wcpu, res = timed(lambda m=m, kw=kw: call(m, S, a.B, **kw), "process_work" in kw)
                if name == "1 worker" and m not in ref:
                    ref[m] = res
                ok = equal(m, res, ref[m])
                old = best.get((m, name))
                if old is None or wall < old["seconds"]:
                    best[m, name] = {"method": m, "path": name, "seconds": wall, "cpu": cpu, "workers_cpu": wcpu,
                                     "equal": ok and (old is None or old["equal"])}
                elif not ok:
                    old["equal"] = False
                print(f"{m:10s} {name:12s} {wall:7.3f} s  cpu {cpu:7.3f} s  workers' cpu {wcpu:7.3f} s  equal={ok}",
                      file=sys.stderr, flush=True)
    rows = []
    for m in a.methods:
        one, work = best[m, "1 worker"]["seconds"], best[m, "1 worker"]["cpu"]
        for name in variants:
            r = best[m, name]
            r["speedup"] = one / r["seconds"]
            if name.endswith("processes"):
                s = min(1.0, r["cpu"] / work)
                r.update(share=s, amdahl_k=amdahl(s, k), amdahl_16=amdahl(s, 16),
                         inflation=(r["cpu"] + r["workers_cpu"]) / work)
            rows.append(r)
    return rows, info


def markdown(rows: list[dict], info: dict, a) -> str:
    k = a.workers
    head = (f"`{info['command']}`\n\n{a.runs:,} runs x {a.topics} topics, B = {a.B}, {a.metrics} metrics, "
            f"{a.runs * (a.runs - 1) // 2:,} run pairs; {info['cores']} cores ({info['cpu']}); fastest of "
            f"{a.repeat} interleaved rounds; the pool's start (k = {k}, once): {info['pool_start']:.2f} s.\n\n"
            f"| method | 1 worker | 2 threads | {k} processes | coordinator's share s | CPU of all / 1 worker | "
            f"Amdahl at {k} | at 16 (efficiency) | tables equal |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
    body = ""
    for m in a.methods:
        one, thr, pro = (next(r for r in rows if r["method"] == m and r["path"] == p)
                         for p in ("1 worker", "2 threads", f"{k} processes"))
        body += (f"| {m} | {one['seconds']:.2f} s | {thr['seconds']:.2f} s ({thr['speedup']:.2f}x) | "
                 f"{pro['seconds']:.2f} s (**{pro['speedup']:.2f}x**) | {100 * pro['share']:.1f} % | "
                 f"{pro['inflation']:.2f} | "
                 f"{pro['amdahl_k']:.2f}x | {pro['amdahl_16']:.1f}x ({100 * pro['amdahl_16'] / 16:.0f} %) | "
                 f"{'yes' if all(r['equal'] for r in (one, thr, pro)) else 'NO'} |\n")
    return head + body


def crossover(a) -> str:
    sizes = [int(x) for x in a.sizes.split(",")]
    lines = [f"`{a.command}`\n", "| method | runs (pairs) | 1 worker | thread default | 2 processes | "
             "processes / 1 worker | processes / thread default |", "|---|---|---:|---:|---:|---:|---:|"]
    start_pool(2)
    for m in a.methods:
        for n in sizes:
            S = simulated_scores(n, a.topics, a.metrics)
            best = {}
            for _ in range(a.repeat):
                for name, kw in (("one", {"workers": 1}), ("threads", {"workers": 2, "process_work": NEVER}),
                                 ("processes", {"workers": 2, "process_work": 0})):
                    wall = timed(partial(call, m, S, a.B, **kw))[0]
                    best[name] = min(best.get(name, wall), wall)
            row = (f"| {m} | {n} ({n * (n - 1) // 2:,}) | {best['one']:.3f} s | {best['threads']:.3f} s | "
                   f"{best['processes']:.3f} s | {best['one'] / best['processes']:.2f}x | "
                   f"{best['threads'] / best['processes']:.2f}x |")
            print(row, file=sys.stderr, flush=True)
            lines.append(row)
    return "\n".join(lines) + "\n"


_SMALL = """
import sys, time, json
sys.path.insert(0, {root!r}); sys.path.insert(1, {bench!r})
from bench_parallel import simulated_scores
from evalcore import meta
S = simulated_scores(30, 65, 2)
fns = {{"bootstrap": meta.bootstrap_sensitivity, "stability": meta.stability, "swap": meta.swap_method,
       "tukey": meta.tukey_hsd, "pairs": meta.pair_statistics}}
out = {{}}
for name, fn in fns.items():
    fn(S, B=100, seed=0, threads=1)
    t = time.process_time()
    for seed in range(20):
        fn(S, B=100, seed=seed, threads=1)
    out[name] = (time.process_time() - t) / 20
print(json.dumps(out))
"""


def small(a) -> str:
    import subprocess
    trees = {"this tree": str(ROOT), "baseline": str(Path(a.small).resolve())}
    got: dict = {name: {} for name in trees}
    for _ in range(a.repeat):
        for name, root in trees.items():
            code = _SMALL.format(root=root, bench=str(ROOT / "benchmarks"))
            res = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                            check=True, env={**os.environ, "PYTHONPATH": root}).stdout)
            for m, v in res.items():
                got[name][m] = min(got[name].get(m, v), v)
            print(name, res, file=sys.stderr, flush=True)
    lines = [f"`{a.command}`\n", "| method | baseline, CPU ms a call | this tree | ratio |", "|---|---:|---:|---:|"]
    for m in got["this tree"]:
        b, t = got["baseline"][m], got["this tree"][m]
        lines.append(f"| {m} | {1000 * b:.2f} | {1000 * t:.2f} | {t / b:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=400)
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--B", type=int, default=1000)
    p.add_argument("--metrics", type=int, default=2)
    p.add_argument("--methods", default="bootstrap,stability,swap,tukey")
    p.add_argument("--workers", type=int, default=2, help="worker processes to compare with one (default 2)")
    p.add_argument("--repeat", type=int, default=3, help="interleaved rounds; the fastest is shown (default 3)")
    p.add_argument("--crossover", action="store_true", help="small calls: one worker, threads, 2 processes")
    p.add_argument("--sizes", default="30,60,100,200,300", help="run counts of --crossover")
    p.add_argument("--quick", action="store_true", help="60 runs x 20 topics, B = 200")
    p.add_argument("--small", metavar="DIR", help="small threads=1 calls: this tree against the tree at DIR")
    p.add_argument("--out", help="write the rows as JSON here and the markdown beside it (.md)")
    a = p.parse_args(argv)
    a.command = "python benchmarks/bench_workers.py " + " ".join(argv if argv is not None else sys.argv[1:])
    a.methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    bad = [m for m in a.methods if m not in METHODS]
    if bad:
        p.error(f"--methods: unknown {', '.join(bad)} (choose from {', '.join(METHODS)})")
    if a.quick:
        a.runs, a.topics, a.B = 60, 20, 200
    if a.crossover or a.small:
        md = crossover(a) if a.crossover else small(a)
        print(md)
        if a.out:
            Path(a.out).with_suffix(".md").write_text(md)
        return 0
    from evalcore.meta._parallel import machine_threads
    rows, info = measure(a)
    info.update(command=a.command, cores=machine_threads(), cpu=cpu_name())
    md = markdown(rows, info, a)
    print(md)
    if a.out:
        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"info": info, "rows": rows}, indent=1) + "\n")
        out.with_suffix(".md").write_text(md)
    return 0 if all(r["equal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
