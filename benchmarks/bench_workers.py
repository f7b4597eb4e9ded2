"""Worker processes against one worker: the coordinator's share, the speed-up and Amdahl's projection.

    PYTHONPATH=. python benchmarks/bench_workers.py [--runs 400] [--topics 50] [--B 1000] [--metrics 2]
        [--methods bootstrap,stability,swap,tukey,pairs] [--workers 2] [--share-at 16] [--repeat 3] [--quick]
        [--out PATH]
    PYTHONPATH=. python benchmarks/bench_workers.py --crossover [--sizes 30,60,100,200,300] [--repeat 3]
    PYTHONPATH=. python benchmarks/bench_workers.py --swap-blocks 16,8,4,2,1,0.5 [--repeat 5]
    PYTHONPATH=. python benchmarks/bench_workers.py --stages [--repeat 9] [--pause 0.4]

For each method at one size (default 400 runs x 50 topics, B = 1000 for every method, two metrics of
simulated scores as in bench_parallel.py), in one process, interleaved round by round so that a change
of load hits every row alike:

- ``1 worker``: ``workers=1`` (the calling thread only);
- ``2 threads``: ``threads=2`` (the thread pool of one process, for comparison);
- ``k processes``: ``workers=k, process_work=0`` (k worker processes, the pool started before the timing;
  its start is timed once, apart, as ``pool start``).

It prints wall seconds (fastest of ``--repeat`` rounds), the speed-up over one worker (fastest over fastest, and
"per round": the median and range of each round's one-worker time over its k-process time, calls run one after
the other, which a host that moves between rounds moves alike; :func:`paired`), and the **coordinator's
share**: the calling process's own CPU seconds (user + system, all its threads; the workers are other
processes) during the k-process call, over the one-worker call's CPU seconds (its work; CPU seconds, unlike
wall seconds, hardly move with the machine's load). "Of it while the tasks run" is the calling thread's CPU in
the methods' ``meanwhile`` work (the tables' name columns, made while the workers compute: ``Runner.map``,
timed here by a wrapper around it), which shares the cores with the workers instead of waiting for them; the
rest is the **serial part** s of Amdahl's law (work overlapped on n busy cores costs the call its CPU over n,
as the workers' own does, so the projection keeps Amdahl's form with this s): the projection at n workers is 1
/ (s + (1 - s) / n), printed for n = k and 16 with its efficiency. "Outside the tasks" is wall time, the
fewest of the rounds: how long the k-process call runs while its k workers do not all run its tasks (each task
is timed in its worker on the system's monotonic clock, :func:`outside_tasks`): before its k-th task begins (the
call's preparation, the hand-off of the first tasks, a worker's mapping of the call's file), between two stages,
and after its last task (the tables); the serial part as the clock sees it. "CPU of all / 1 worker" adds the workers'
CPU (psutil, the pool's processes): above 1 it is work the processes add (page faults of the shared file,
hand-offs), which Amdahl's s leaves out. "k calls at once" runs k independent one-worker calls in the k pool
workers at the same time, with no coordination, and divides each one's CPU by that of one such call alone (the
fewest of the rounds): what running k at once costs on this machine's hardware (shared caches, memory
bandwidth, other load on the host); k over it is the ceiling of any k-way split here. Every table is compared
with the one-worker table exactly (``equal``).

``--share-at N`` also measures the coordinator's share and its serial part with N worker processes, on any
machine: N may exceed the cores, since only the calling process's CPU is read (its hand-offs grow with the
tasks, 2 per worker, so the share at 16 workers is larger than at 2); Amdahl's projection at N from that serial
part is printed beside it.

``--crossover``: for each method and each run count of ``--sizes`` (50 topics, B = 1000), one worker, the
thread path's default (``process_work`` above the call's work: the threads a call below the crossover
gets) and 2 processes; the ratios choose ``evalcore.meta._workers.PROCESS_WORK``.

``--repetitions R``: ``repeat(method, ..., repeats=R)`` as the report runs it (use ``--runs 30 --topics 65
--metrics 7`` for a collection such as clef2015 with 003's seven metrics), with one worker and with ``--workers``
processes at the default crossover (each call below it: the repetitions go to the pool one per task,
evalcore/meta/repeat.py) and, for comparison, with every call on the thread path's default threads
(``process_work`` above any work: the path before repetitions went to the pool); rounds interleaved, the
tables compared exactly.

``--pvalues``: Tukey's p-value count at this size (the pairs' thresholds |mean difference| x (1 - 1e-9) against
the B sorted permutation ranges of each metric, from one ``tukey_hsd`` call): ``np.searchsorted`` against
``evalcore.meta.tukey.count_below`` (its bucketed lookup), fastest of ``--repeat`` interleaved rounds, the counts
compared exactly.

``--swap-blocks MIB``: the swap method's bin counts (``swap_hist`` over every run pair, both metrics' run means
over the B samples) with blocks of pairs sized by each row budget in the list (MiB of the four (rows x B)
float arrays a block holds at once: ``evalcore.meta.swap.ROW_BUDGET``), CPU seconds in a pool worker alone and
with ``--workers`` such calls at once (the fewest of ``--repeat`` rounds), the counts compared exactly: how a
block's size sets the kernel's cost and what two at once cost it (a block that overflows a core's cache
contends for the shared cache and memory).

``--stages``: each method's call on ``--workers`` processes, ``--repeat`` calls after a pause of ``--pause``
seconds each (the workers idle, as between a user's calls), its wall time outside the tasks in pieces, median of
the calls: from the call's start to its first task's start (the method's preparation, the shared file, the first
hand-off), from there to the k-th task's start (the other workers' first hand-offs; a worker maps the call's file
first), between two stages (the last end to the next stage's k-th start), and after the last task (the
tables).

``--small DIR``: the dashboard's kind of call (30 runs x 65 topics, B = 100, ``threads=1`` as its pages pass,
20 calls of each method) timed in CPU seconds in fresh processes, alternately on this tree and on the tree
at DIR (a checkout of the code before worker processes, e.g. ``git worktree add /tmp/base REV``), rounds
interleaved: what the runner adds to a call that never leaves its thread.

Timing, the machine and the result file: benchmarks/harness.py (results under benchmarks/results/workers/,
``workers-crossover/``, ``workers-small/``). ``--out PATH`` also writes the result's JSON to PATH and its markdown
beside it (.md). ``--quick``: 60 runs x 20 topics, B = 200 (a check that the script runs; the figures mean
nothing).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
import harness  # noqa: E402

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.pop("EVALCORE_WORKERS", None)
os.environ.pop("EVALCORE_THREADS", None)

from bench_parallel import simulated_scores  # noqa: E402

METHODS = ("bootstrap", "stability", "swap", "tukey", "pairs")
TABLES = {"bootstrap": ("pairs", "summary", "asl_curves"), "stability": ("summary", "pairs"),
          "swap": ("curves", "summary"), "tukey": ("pairs", "summary"), "pairs": ("pairs",)}
NEVER = 1 << 62


def call(method: str, S, B: int, **kw):
    from evalcore import meta
    fn = {"bootstrap": meta.bootstrap_sensitivity, "stability": meta.stability, "swap": meta.swap_method,
          "tukey": meta.tukey_hsd, "pairs": meta.pair_statistics}[method]
    return fn(S, B=B, seed=0, **kw)


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


def _one_call(method: str, S, B: int) -> float:
    """CPU seconds of one one-worker call, run in a pool worker (sent by value: this is __main__)."""
    import time as _t
    c0 = _t.process_time()
    call(method, S, B, workers=1)
    return _t.process_time() - c0


def contention(method: str, S, B: int, k: int) -> float:
    """CPU of each of k independent one-worker calls run at once in the k pool workers, over the CPU of one such
    call run alone there (median of the k): above 1, what running k at once costs on this machine's hardware
    (shared caches, memory bandwidth, a busy host), with no coordination at all. k / this is the most any k-way
    split of the call can give here."""
    from evalcore.meta import _workers
    ex = _workers.pool_executor(k)
    alone = ex.submit(_one_call, method, S, B).result()
    together = sorted(f.result() for f in [ex.submit(_one_call, method, S, B) for _ in range(k)])
    return together[len(together) // 2] / alone


def start_pool(k: int) -> float:
    """Seconds to start k worker processes and import evalcore in each (the pool's start, paid once by a
    process's first call on workers)."""
    from evalcore.meta import _workers
    t0 = time.perf_counter()
    ex = _workers.pool_executor(k)
    list(ex.map(_warm, range(2 * k)))
    return time.perf_counter() - t0


_MEANWHILE: list[float] = []
_STAGES: list = []     # per Runner.map call on processes: [(start, end) of each of its tasks]
_SHARED: list[float] = []     # wall seconds of making each call's shared file (its inputs written in)


def _stamped(fn, arrays, job, cache):
    """A task timed in its worker (sent by value: this is __main__): (its result, its start, its end) on
    ``time.monotonic``, on Linux CLOCK_MONOTONIC, one clock for every process."""
    import time as _t
    t0 = _t.monotonic()
    out = fn(arrays, job, cache)
    return out, t0, _t.monotonic()


def _count_meanwhile() -> None:
    """Wrap ``Runner.map`` so that the CPU of the calling thread's ``meanwhile`` work (the tables' name columns,
    made while the tasks run) goes into :data:`_MEANWHILE`: the coordinator's CPU that overlaps the workers' and
    so is not Amdahl's serial part; and, on worker processes, each task's start and end into :data:`_STAGES`
    (the task runs in :func:`_stamped`) and the time to make the call's shared file into :data:`_SHARED`. The
    same code runs; only clocks are read around it."""
    from evalcore.meta import _workers
    plain = _workers.Runner.map
    if getattr(plain, "counts_meanwhile", False):
        return

    def map_(self, fn, jobs, prog=None, meanwhile=None):
        timed = None
        if meanwhile is not None:
            inner = meanwhile

            def timed():
                t0 = time.thread_time()
                try:
                    return inner()
                finally:
                    _MEANWHILE.append(time.thread_time() - t0)
        if not self.plan.processes:
            return plain(self, fn, jobs, prog, meanwhile=timed)
        out = plain(self, partial(_stamped, fn), jobs, prog, meanwhile=timed)
        _STAGES.append([(a, b) for _, a, b in out])
        return [r for r, _, _ in out]

    map_.counts_meanwhile = True           # type: ignore[attr-defined]
    _workers.Runner.map = map_
    made = _workers._Shared.__init__

    def shared_init(self, *args, **kw):
        t0 = time.perf_counter()
        try:
            made(self, *args, **kw)
        finally:
            _SHARED.append(time.perf_counter() - t0)
    _workers._Shared.__init__ = shared_init


def paired(one: list[float], other: list[float]) -> tuple[float, float, float]:
    """(median, lowest, highest) over the rounds of each round's one-worker time over its other time. The two
    calls of a round run one after the other, so a host that speeds up or slows down between rounds moves both;
    the ratio of the fastest rounds (the table's speed-up) may pair calls minutes apart."""
    ratios = [a / b for a, b in zip(one, other, strict=True)]
    return statistics.median(ratios), min(ratios), max(ratios)


def outside_tasks(t0: float, t1: float, stages: list, k: int) -> float | None:
    """Wall seconds of a call from ``t0`` to ``t1`` when its k workers do not all run its tasks: before the
    first stage's k-th task begins (the call's preparation, the hand-off of the first tasks), from a stage's
    last end to the next stage's k-th start, and from the last end to the call's return (the tables). A stage's
    uneven end (some workers done, others not) is not counted, as in Amdahl's law. None without tasks on
    processes."""
    if not stages:
        return None
    out, at = 0.0, t0
    for st in stages:
        starts = sorted(a for a, _ in st)
        out += max(0.0, starts[min(k, len(starts)) - 1] - at)
        at = max(b for _, b in st)
    return out + max(0.0, t1 - at)


def _timed(fn, k: int = 1) -> harness.Sample:
    """harness.measure of a call on the pool, with ``overlap``: the CPU of its ``meanwhile`` work, and
    ``outside``: :func:`outside_tasks` with k workers."""
    _MEANWHILE.clear()
    _STAGES.clear()
    span: list[float] = []

    def timed():
        span.append(time.monotonic())
        try:
            return fn()
        finally:
            span.append(time.monotonic())
    s = harness.measure(timed, live_children=True)
    s.overlap = sum(_MEANWHILE)            # type: ignore[attr-defined]
    s.outside = outside_tasks(*span, list(_STAGES), k)    # type: ignore[attr-defined]
    return s


def measure(a) -> tuple[list[dict], dict, harness.Rounds]:
    S = simulated_scores(a.runs, a.topics, a.metrics)
    k = a.workers
    _count_meanwhile()
    info = {"pool_start": start_pool(k)}
    variants = {"1 worker": {"workers": 1}, "2 threads": {"threads": 2},
                f"{k} processes": {"workers": k, "process_work": 0}}
    got = harness.Rounds(f"{m} / {name}" for m in a.methods for name in variants)
    ref: dict = {}
    same: dict = {}
    cont: dict = {m: [] for m in a.methods}
    for _ in range(a.repeat):       # interleaved: every method and path once per round
        for m in a.methods:
            cont[m].append(contention(m, S, a.B, k))
            for name, kw in variants.items():
                s = _timed(lambda m=m, kw=kw: call(m, S, a.B, **kw), k)
                got.samples[f"{m} / {name}"].append(s)
                ref.setdefault(m, s.result)
                ok = equal(m, s.result, ref[m])
                same[m, name] = same.get((m, name), True) and ok
                s.result = None
                print(f"{m:10s} {name:12s} {s.wall:7.3f} s  cpu {s.cpu:7.3f} s  workers' cpu {s.child_cpu:7.3f} s  "
                      f"equal={ok}", file=sys.stderr, flush=True)
    share_at: dict = {}
    if a.share_at:
        # the coordinator's CPU with share_at worker processes (more than the cores: their wall time means
        # nothing, the calling process's CPU - hand-offs of share_at x 2 tasks, the tables - is what it is)
        start_pool(a.share_at)
        for m in a.methods:
            share_at[m] = min((_timed(lambda m=m: call(m, S, a.B, workers=a.share_at, process_work=0), a.share_at)
                               for _ in range(a.repeat)), key=lambda s: s.cpu)
        start_pool(k)
    rows = []
    for m in a.methods:
        one = got.best(f"{m} / 1 worker")
        thr, pro = got.best(f"{m} / 2 threads"), got.best(f"{m} / {k} processes")
        s = min(1.0, pro.cpu / one.cpu)
        serial = max(0.0, s - pro.overlap / one.cpu)          # the coordinator's CPU outside the overlap
        row = {"method": m, "one_s": one.wall, "one_cpu": one.cpu, "threads_s": thr.wall,
               "threads_speedup": one.wall / thr.wall, "procs_s": pro.wall, "procs_speedup": one.wall / pro.wall,
               "procs_cpu": pro.cpu, "workers_cpu": pro.child_cpu, "share_pct": 100 * s,
               "overlap_pct": 100 * pro.overlap / one.cpu, "serial_pct": 100 * serial,
               "inflation": (pro.cpu + pro.child_cpu) / one.cpu, "amdahl_k": amdahl(serial, k),
               "amdahl_16": amdahl(serial, 16), "efficiency_16_pct": 100 * amdahl(serial, 16) / 16,
               "contention": min(cont[m]), "ceiling": k / min(cont[m]),
               "outside_ms": 1e3 * min(x.outside for x in got.samples[f"{m} / {k} processes"]),
               **dict(zip(("paired", "paired_lo", "paired_hi"),
                          paired([x.wall for x in got.samples[f"{m} / 1 worker"]],
                                 [x.wall for x in got.samples[f"{m} / {k} processes"]]), strict=True)),
               "equal": "yes" if all(same[m, n] for n in variants) else "NO"}
        if m in share_at:
            sn = min(1.0, share_at[m].cpu / one.cpu)
            serial_n = max(0.0, sn - share_at[m].overlap / one.cpu)
            row.update({"share_n_pct": 100 * sn, "serial_n_pct": 100 * serial_n,
                        "amdahl_n": amdahl(serial_n, a.share_at),
                        "efficiency_n_pct": 100 * amdahl(serial_n, a.share_at) / a.share_at})
        rows.append(row)
    return rows, info, got


def pieces(t0: float, t1: float, stages: list, k: int) -> dict:
    """:func:`outside_tasks` of a call in pieces (seconds): ``first`` (the call's start to its first task's
    start), ``kth`` (from there to the k-th start), ``between`` (the stages' gaps, summed) and ``after``."""
    out = {"first": 0.0, "kth": 0.0, "between": 0.0, "after": 0.0}
    at = t0
    for n, st in enumerate(stages):
        starts = sorted(a for a, _ in st)
        kth = starts[min(k, len(starts)) - 1]
        if n == 0:
            out["first"], out["kth"] = starts[0] - t0, kth - starts[0]
        else:
            out["between"] += max(0.0, kth - at)
        at = max(b for _, b in st)
    out["after"] = max(0.0, t1 - at)
    return out


STAGES = [harness.col("method"), harness.col("to the first task", "{:.1f}", "first", right=True),
          harness.col("of it, the shared file", "{:.1f}", "shared", right=True),
          harness.col("to the k-th task", "{:.1f}", "kth", right=True),
          harness.col("between stages", "{:.1f}", "between", right=True),
          harness.col("after the last task", "{:.1f}", "after", right=True),
          harness.col("outside the tasks", "{:.1f}", "outside", right=True),
          harness.col("the call", "{:.1f}", "call", right=True)]


def stages(a, res: harness.Result) -> str:
    S = simulated_scores(a.runs, a.topics, a.metrics)
    k = a.workers
    _count_meanwhile()
    start_pool(k)
    rows = []
    for m in a.methods:
        call(m, S, a.B, workers=k, process_work=0)              # the workers' first call of the method
        got = []
        for _ in range(a.repeat):
            time.sleep(a.pause)
            _STAGES.clear()
            _SHARED.clear()
            t0 = time.monotonic()
            call(m, S, a.B, workers=k, process_work=0)
            t1 = time.monotonic()
            got.append({**pieces(t0, t1, list(_STAGES), k), "shared": sum(_SHARED), "call": t1 - t0})
        row = {"method": m, **{key: 1e3 * statistics.median([g[key] for g in got]) for key in got[0]}}
        row["outside"] = 1e3 * statistics.median([sum(g[key] for key in ("first", "kth", "between", "after"))
                                                     for g in got])
        rows.append(row)
        print(harness.markdown(STAGES, rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    return res.table(STAGES, rows, title=f"`{a.command}`\n\n{a.runs:,} runs x {a.topics} topics, B = {a.B}, "
                     f"{a.metrics} metrics, {k} worker processes; ms, median of {a.repeat} calls, each after "
                     f"{a.pause} s idle:")


def columns(k: int, share_at: int | None = None) -> list[dict]:
    c = harness.col
    extra = [c(f"share with {share_at} workers (serial part)", "{:.1f} % ({serial_n_pct:.1f} %)", "share_n_pct",
               right=True),
             c(f"Amdahl at {share_at} from it", "{:.1f}x ({efficiency_n_pct:.0f} %)", "amdahl_n", right=True)] \
        if share_at else []
    return [c("method"), c("1 worker", "{:.2f} s", "one_s", right=True),
            c("2 threads", "{:.2f} s ({threads_speedup:.2f}x)", "threads_s", right=True),
            c(f"{k} processes", "{:.2f} s (**{procs_speedup:.2f}x**)", "procs_s", right=True),
            c("per round: median (lowest-highest)", "{:.2f}x ({paired_lo:.2f}-{paired_hi:.2f}x)", "paired",
              right=True),
            c("coordinator's share", "{:.1f} %", "share_pct", right=True),
            c("of it while the tasks run", "{:.1f} %", "overlap_pct", right=True),
            c("serial part s", "{:.1f} %", "serial_pct", right=True),
            c(f"outside the tasks ({k} processes)", "{:.1f} ms", "outside_ms", right=True),
            c("CPU of all / 1 worker", "{:.2f}", "inflation", right=True),
            c(f"{k} calls at once: CPU each / alone", "{:.2f} (ceiling {ceiling:.2f}x)", "contention", right=True),
            c(f"Amdahl at {k}", "{:.2f}x", "amdahl_k", right=True),
            c("at 16 (efficiency)", "{:.1f}x ({efficiency_16_pct:.0f} %)", "amdahl_16", right=True),
            *extra, c("tables equal", "{}", "equal")]


CROSSOVER = [harness.col("method"), harness.col("runs (pairs)", "{} ({pairs:,})", "runs"),
             harness.col("1 worker", "{:.3f} s", "one_s", right=True),
             harness.col("thread default", "{:.3f} s", "threads_s", right=True),
             harness.col("2 processes", "{:.3f} s", "procs_s", right=True),
             harness.col("processes / 1 worker", "{:.2f}x", "procs_over_one", right=True),
             harness.col("processes / thread default", "{:.2f}x", "procs_over_threads", right=True)]


def crossover(a, res: harness.Result) -> str:
    sizes = [int(x) for x in a.sizes.split(",")]
    start_pool(2)
    rows = []
    for m in a.methods:
        for n in sizes:
            S = simulated_scores(n, a.topics, a.metrics)
            got = harness.rounds({name: partial(call, m, S, a.B, **kw) for name, kw in (
                ("one", {"workers": 1}), ("threads", {"workers": 2, "process_work": NEVER}),
                ("processes", {"workers": 2, "process_work": 0}))}, a.repeat, warmup=0)
            res.add_rounds(got, prefix=f"{m} / {n} runs / ")
            best = {name: got.best(name).wall for name in got.samples}
            rows.append({"method": m, "runs": n, "pairs": n * (n - 1) // 2, "one_s": best["one"],
                         "threads_s": best["threads"], "procs_s": best["processes"],
                         "procs_over_one": best["one"] / best["processes"],
                         "procs_over_threads": best["threads"] / best["processes"]})
            print(harness.markdown(CROSSOVER, rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    return res.table(CROSSOVER, rows, title=f"`{a.command}`, fastest of {a.repeat}:")


_SMALL = """
import sys, json
sys.path.insert(0, {root!r}); sys.path.insert(1, {bench!r})
from bench_parallel import simulated_scores
from evalcore import meta
S = simulated_scores(30, 65, 2)
fns = {{"bootstrap": meta.bootstrap_sensitivity, "stability": meta.stability, "swap": meta.swap_method,
       "tukey": meta.tukey_hsd, "pairs": meta.pair_statistics}}
import harness
out = {{}}
for name, fn in fns.items():
    fn(S, B=100, seed=0, threads=1)
    out[name] = harness.measure(lambda: [fn(S, B=100, seed=seed, threads=1) for seed in range(20)]).cpu / 20
print(json.dumps(out))
"""


def small(a, res: harness.Result) -> str:
    import subprocess
    trees = {"this tree": str(ROOT), "baseline": str(Path(a.small).resolve())}

    def one_tree(root: str):
        code = _SMALL.format(root=root, bench=str(ROOT / "benchmarks"))
        return lambda: json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                 check=True, env={**os.environ, "PYTHONPATH": root}).stdout)
    # fresh processes, the two trees alternating round by round; each process times its own calls (CPU)
    got = harness.rounds({name: one_tree(root) for name, root in trees.items()}, a.repeat, warmup=0)
    best = {name: {m: min(s.result[m] for s in got.samples[name]) for m in got.samples[name][0].result}
            for name in trees}
    res.add_rounds(got)
    rows = [{"method": m, "baseline_ms": 1000 * best["baseline"][m], "this_ms": 1000 * t,
             "ratio": t / best["baseline"][m]} for m, t in best["this tree"].items()]
    cols = [harness.col("method"), harness.col("baseline, CPU ms a call", "{:.2f}", "baseline_ms", right=True),
            harness.col("this tree", "{:.2f}", "this_ms", right=True),
            harness.col("ratio", "{:.2f}", "ratio", right=True)]
    return res.table(cols, rows, title=f"`{a.command}`, fastest of {a.repeat} fresh processes per tree:")


REPS = [harness.col("method"), harness.col("1 worker", "{:.2f} s", "one_s", right=True),
        harness.col("each call on threads", "{:.2f} s ({threads_speedup:.2f}x)", "threads_s", right=True),
        harness.col("repetitions on workers", "{:.2f} s (**{speedup:.2f}x**)", "procs_s", right=True),
        harness.col("tables equal", "{}", "equal")]


def repetitions(a, res: harness.Result) -> str:
    from evalcore.meta import repeat
    S = simulated_scores(a.runs, a.topics, a.metrics)
    start_pool(a.workers)
    rows = []
    for m in a.methods:
        got = harness.rounds({name: partial(repeat, m, S, repeats=a.repetitions, B=a.B, seed=0, **kw)
                              for name, kw in (("one", {"workers": 1}),
                                               ("threads", {"workers": a.workers, "process_work": NEVER}),
                                               ("workers", {"workers": a.workers}))}, a.repeat, warmup=0)
        res.add_rounds(got, prefix=f"{m} / ")
        one, thr, pro = got.best("one"), got.best("threads"), got.best("workers")
        same = all(s.result.per_repeat.equals(got.samples["one"][0].result.per_repeat)
                   for name in ("threads", "workers") for s in got.samples[name])
        rows.append({"method": m, "one_s": one.wall, "threads_s": thr.wall, "threads_speedup": one.wall / thr.wall,
                     "procs_s": pro.wall, "speedup": one.wall / pro.wall, "equal": "yes" if same else "NO"})
        print(harness.markdown(REPS, rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    return res.table(REPS, rows, title=f"`{a.command}`: {a.repetitions} repetitions, {a.runs} runs x {a.topics} "
                                       f"topics, {a.metrics} metrics, B = {a.B}; fastest of {a.repeat} rounds:")


PVALUES = [harness.col("metric"), harness.col("pairs", "{:,}", "pairs", right=True),
           harness.col("np.searchsorted", "{:.3f} ms", "search_ms", right=True),
           harness.col("count_below", "{:.3f} ms", "lookup_ms", right=True),
           harness.col("ratio", "{:.2f}x", "ratio", right=True), harness.col("counts equal", "{}", "equal")]


def pvalues(a, res: harness.Result) -> tuple[str, bool]:
    """np.searchsorted against count_below on Tukey's thresholds and sorted ranges at this size."""
    import numpy as np

    from evalcore import meta
    from evalcore.meta._common import pair_index
    from evalcore.meta.tukey import TIE_RTOL, count_below
    S = simulated_scores(a.runs, a.topics, a.metrics)
    r = meta.tukey_hsd(S, B=a.B, seed=0, workers=1)
    pi, pj = pair_index(a.runs)
    rows, ok = [], True
    for m, v in S.items():
        means = v.mean(axis=1)
        thr = np.abs(means[pi] - means[pj]) * (1 - TIE_RTOL)
        ranges = np.sort(r.ranges[m])
        # each contender's counts dropped at once, as tukey_pvalues drops them (a kept result would make every
        # call fault in fresh pages for its arrays)
        got = harness.rounds({"search": lambda r=ranges, t=thr: np.searchsorted(r, t, side="left") is None,
                              "lookup": lambda r=ranges, t=thr: count_below(r, t) is None}, a.repeat, warmup=1)
        res.add_rounds(got, prefix=f"{m} / ")
        equal_counts = bool(np.array_equal(count_below(ranges, thr), np.searchsorted(ranges, thr, side="left")))
        ok = ok and equal_counts
        search, lookup = got.best("search").wall, got.best("lookup").wall
        rows.append({"metric": m, "pairs": thr.size, "search_ms": 1000 * search, "lookup_ms": 1000 * lookup,
                     "ratio": search / lookup, "equal": "yes" if equal_counts else "NO"})
    title = (f"`{a.command}`: {a.runs:,} runs x {a.topics} topics, B = {a.B} ranges; fastest of {a.repeat} "
             f"interleaved rounds:")
    return res.table(PVALUES, rows, title=title), ok


def _hist_cpu(A1, A2, rows: int, reps: int):
    """(fewest CPU seconds of ``reps`` swap_hist calls over every pair in blocks of ``rows`` partners, the
    counts), in a pool worker (sent by value: this is __main__)."""
    import time as _t

    from evalcore.meta.swap import row_blocks, swap_hist
    blocks = row_blocks(A1.shape[0], rows)
    best, hist = float("inf"), None
    for _ in range(reps):
        c0 = _t.process_time()
        hist = swap_hist(A1, A2, blocks, 0.01, 21, "003", 0.0)
        best = min(best, _t.process_time() - c0)
    return best, hist


SWAP_BLOCKS = [harness.col("row budget", "{:g} MiB", "mib", right=True),
               harness.col("partners per block", "{:,}", "rows", right=True),
               harness.col("CPU alone", "{:.3f} s", "alone", right=True),
               harness.col("CPU each, k at once", "{:.3f} s", "together", right=True),
               harness.col("k at once / alone", "{:.2f}", "contention", right=True),
               harness.col("alone / the largest budget's", "{:.2f}", "relative", right=True),
               harness.col("counts equal", "{}", "equal")]


def swap_blocks(a, res: harness.Result) -> tuple[str, bool]:
    """swap_hist's CPU per row budget, alone and k at once in the pool's workers."""
    import numpy as np

    from evalcore.meta import _workers
    from evalcore.meta.swap import distinct_rows, prepare_swap, swap_means
    S = simulated_scores(a.runs, a.topics, a.metrics)
    prep = prepare_swap(S, "replacement", None, a.B, 0, 0.01, 21, "003", (0.95,), None)
    means = []
    for m in prep.metrics:
        U, inv = distinct_rows(prep.mats[m])
        m1, m2 = swap_means(U, prep.C1, prep.C2, prep.c, 0, prep.B)
        means.append((m1[inv], m2[inv]))
    k = a.workers
    ex = _workers.pool_executor(k)
    budgets = [float(x) for x in a.swap_blocks.split(",") if x.strip()]
    rows, ok, ref, first = [], True, None, None
    for mib in budgets:
        n_rows = max(1, int(mib * 2**20) // (8 * 4 * a.B))
        alone = together = 0.0
        hists = []
        for A1, A2 in means:           # every metric, summed as the method sums them
            c, h = ex.submit(_hist_cpu, A1, A2, n_rows, a.repeat).result()
            alone += c
            hists.append(h)
            each = sorted(f.result()[0] for f in [ex.submit(_hist_cpu, A1, A2, n_rows, a.repeat) for _ in range(k)])
            together += each[len(each) // 2]
        if ref is None:
            ref, first = hists, alone
        same = all(np.array_equal(x, y) for x, y in zip(hists, ref, strict=True))
        ok = ok and same
        rows.append({"mib": mib, "rows": n_rows, "alone": alone, "together": together,
                     "contention": together / alone, "relative": alone / first, "equal": "yes" if same else "NO"})
        print(f"{mib:g} MiB: {n_rows} rows, alone {alone:.3f} s, {k} at once {together:.3f} s", flush=True)
    title = (f"`{a.command}`: {a.runs:,} runs x {a.topics} topics, B = {a.B}, {a.metrics} metrics; k = {k}; CPU "
             f"seconds, fewest of {a.repeat} calls (first row: the largest budget given):")
    return res.table(SWAP_BLOCKS, rows, title=title), ok


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=400)
    p.add_argument("--topics", type=int, default=50)
    p.add_argument("--B", type=int, default=1000)
    p.add_argument("--metrics", type=int, default=2)
    p.add_argument("--methods", default="bootstrap,stability,swap,tukey")
    p.add_argument("--workers", type=int, default=2, help="worker processes to compare with one (default 2)")
    p.add_argument("--repeat", type=int, default=3, help="interleaved rounds; the fastest is shown (default 3)")
    p.add_argument("--share-at", type=int, metavar="N", help="also the coordinator's share with N worker "
                   "processes (more than the cores is fine: only the calling process's CPU is read) and Amdahl's "
                   "projection at N from it")
    p.add_argument("--crossover", action="store_true", help="small calls: one worker, threads, 2 processes")
    p.add_argument("--sizes", default="30,60,100,200,300", help="run counts of --crossover")
    p.add_argument("--quick", action="store_true", help="60 runs x 20 topics, B = 200")
    p.add_argument("--repetitions", type=int, metavar="R", help="repeat(..., repeats=R): one worker against "
                   "--workers, the repetitions on the pool")
    p.add_argument("--small", metavar="DIR", help="small threads=1 calls: this tree against the tree at DIR")
    p.add_argument("--pvalues", action="store_true", help="Tukey's p-value count: np.searchsorted against "
                   "count_below")
    p.add_argument("--swap-blocks", metavar="MIB", help="the swap method's bin counts at these row budgets "
                   "(MiB, comma-separated, largest first), alone and --workers at once")
    p.add_argument("--stages", action="store_true", help="the wall time outside the tasks in pieces, "
                   "on --workers processes")
    p.add_argument("--pause", type=float, default=0.4, help="--stages: seconds idle before each call (default 0.4)")
    p.add_argument("--out", help="also write the result's JSON here and its markdown beside it (.md)")
    harness.add_options(p)
    a = p.parse_args(argv)
    a.command = "python benchmarks/bench_workers.py " + " ".join(argv if argv is not None else sys.argv[1:])
    a.methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    bad = [m for m in a.methods if m not in METHODS]
    if bad:
        p.error(f"--methods: unknown {', '.join(bad)} (choose from {', '.join(METHODS)})")
    if a.quick:
        a.runs, a.topics, a.B = 60, 20, 200
    name = ("workers-crossover" if a.crossover else "workers-small" if a.small else
            "workers-repetitions" if a.repetitions else "workers-pvalues" if a.pvalues else
            "workers-swap-blocks" if a.swap_blocks else "workers-stages" if a.stages else "workers")
    res = harness.Result(name, argv, {k: getattr(a, k) for k in ("runs", "topics", "B", "metrics", "methods",
                                                                 "workers", "repeat", "sizes", "small",
                                                                 "repetitions", "share_at", "swap_blocks",
                                                                 "stages", "pause")},
                         script=__file__)
    if a.pvalues:
        md, ok = pvalues(a, res)
    elif a.swap_blocks:
        md, ok = swap_blocks(a, res)
    elif a.stages:
        md, ok = stages(a, res), True
    elif a.crossover or a.small or a.repetitions:
        md = crossover(a, res) if a.crossover else small(a, res) if a.small else repetitions(a, res)
        ok = True
    else:
        from evalcore.meta._parallel import machine_threads
        rows, info, got = measure(a)
        res.add_rounds(got)
        res.data["params"]["pool_start_s"] = info["pool_start"]
        k = a.workers
        title = (f"`{a.command}`\n\n{a.runs:,} runs x {a.topics} topics, B = {a.B}, {a.metrics} metrics, "
                 f"{a.runs * (a.runs - 1) // 2:,} run pairs; {machine_threads()} cores ({harness.cpu_model()}); "
                 f"fastest of {a.repeat} interleaved rounds; the pool's start (k = {k}, once): "
                 f"{info['pool_start']:.2f} s.")
        md = res.table(columns(k, a.share_at), rows, title=title)
        ok = all(r["equal"] == "yes" for r in rows)
    print(md)
    if a.out:
        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res.data, indent=1, default=str) + "\n")
        out.with_suffix(".md").write_text(md + "\n")
    res.save(a)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
