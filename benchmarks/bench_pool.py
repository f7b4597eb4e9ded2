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
about 5,900 (bootstrap) and 9,600 (stability) pair-chunk tasks (docs/benchmarks.md section 15.2).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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


def measure(run) -> tuple[float, float]:
    c0, t0 = os.times(), time.perf_counter()
    run()
    t1, c1 = time.perf_counter(), os.times()
    return (c1.user + c1.system) - (c0.user + c0.system), t1 - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="1000,3000,9000")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--task-ms", type=float, default=0.3)
    a = p.parse_args(argv)
    pause = a.task_ms / 1000

    def task(i):
        time.sleep(pause)
        return i

    print(f"`python benchmarks/bench_pool.py {' '.join(argv if argv is not None else sys.argv[1:])}`\n")
    print(f"| tasks | run_tasks, 1 thread: CPU s (wall s) | run_tasks, {a.threads} threads | "
          f"all at once, {a.threads} threads | CPU ratio all at once / run_tasks |")
    print("|---:|---:|---:|---:|---:|")
    for n in [int(x) for x in a.tasks.split(",")]:
        one = measure(lambda n=n: run_tasks(task, range(n), 1, blas=False))
        new = measure(lambda n=n: run_tasks(task, range(n), a.threads, blas=False))
        old = measure(lambda n=n: all_at_once(task, range(n), a.threads))
        print(f"| {n:,} | {one[0]:.2f} ({one[1]:.2f}) | {new[0]:.2f} ({new[1]:.2f}) | {old[0]:.2f} ({old[1]:.2f}) | "
              f"{old[0] / max(new[0], 1e-9):.1f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
