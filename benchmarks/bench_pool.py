"""The thread pool's own cost per task (evalcore.meta._parallel.run_tasks), against submitting every task at once.

    PYTHONPATH=. python benchmarks/bench_pool.py [--tasks 1000,3000,9000] [--threads 2] [--task-ms 0.3]

Each task releases the GIL for ``--task-ms`` milliseconds (``time.sleep``, standing in for a numpy kernel
that releases it), so that most tasks are still pending while the pool waits. Two schedulers run the same
tasks: ``run_tasks`` (a window of a few tasks per thread, the next submitted as each ends) and the one it
replaced (every task submitted at once, then ``concurrent.futures.wait(pending, FIRST_COMPLETED)`` until
none is left; each wait registers with and unregisters from every pending future, holding the GIL). The
script prints, per task count, the process CPU seconds (user + system: on a machine shared with other
work they hardly move with the load, wall seconds do) and the wall seconds of each, with one thread
(``run_tasks``' plain loop) beside them. A method at 1,000 runs x 50 topics, B = 1000, two metrics makes
about 5,900 (bootstrap) and 9,600 (stability) pair-chunk tasks (docs/benchmarks.md section 15.2). The three
schedulers are timed one after the other for each task count, ``--repeat`` interleaved rounds (medians), with
benchmarks/harness.py; the result goes to benchmarks/results/pool/.
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(1, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

from evalcore.meta._parallel import run_tasks  # noqa: E402


def all_at_once(fn, tasks, threads: int) -> list:
    """The scheduler ``run_tasks`` replaced: every task submitted, then waits on all pending futures."""
    with ThreadPoolExecutor(max_workers=threads) as ex:
        futures = [ex.submit(fn, t) for t in tasks]
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                f.result()
        return [f.result() for f in futures]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="1000,3000,9000")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--task-ms", type=float, default=0.3)
    p.add_argument("--repeat", type=int, default=1, help="interleaved rounds per task count (default 1)")
    harness.add_options(p)
    a = p.parse_args(argv)
    res = harness.Result("pool", argv, {"tasks": a.tasks, "threads": a.threads, "task_ms": a.task_ms,
                                        "repeat": a.repeat}, script=__file__)
    pause = a.task_ms / 1000

    def task(i):
        time.sleep(pause)
        return i

    print(f"`python benchmarks/bench_pool.py {' '.join(argv if argv is not None else sys.argv[1:])}`\n", flush=True)
    rows = []
    for n in [int(x) for x in a.tasks.split(",")]:
        got = harness.rounds({"one": lambda n=n: run_tasks(task, range(n), 1, blas=False),
                              "new": lambda n=n: run_tasks(task, range(n), a.threads, blas=False),
                              "old": lambda n=n: all_at_once(task, range(n), a.threads)}, a.repeat, warmup=0)
        res.add_rounds(got, prefix=f"{n} tasks: ")
        row = {"tasks": n}
        for k in ("one", "new", "old"):
            row[k], row[f"{k}_wall"] = got.stats(k, "cpu").median, got.stats(k, "wall").median
        row["ratio"] = row["old"] / max(row["new"], 1e-9)
        rows.append(row)
        print(harness.markdown(pool_columns(a.threads), rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(res.table(pool_columns(a.threads), rows))
    res.save(a)
    return 0


def pool_columns(threads: int) -> list[dict]:
    c = harness.col
    return [c("tasks", "{:,}", right=True),
            c("run_tasks, 1 thread: CPU s (wall s)", "{:.2f} ({one_wall:.2f})", "one", right=True),
            c(f"run_tasks, {threads} threads", "{:.2f} ({new_wall:.2f})", "new", right=True),
            c(f"all at once, {threads} threads", "{:.2f} ({old_wall:.2f})", "old", right=True),
            c("CPU ratio all at once / run_tasks", "{:.1f}x", "ratio", right=True)]


if __name__ == "__main__":
    sys.exit(main())
