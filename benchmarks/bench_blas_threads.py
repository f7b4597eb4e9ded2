"""Do Python threads that each call single-threaded BLAS scale on this machine?

evalcore's threaded meta-evaluation (evalcore.meta._parallel) runs chunks on a thread pool with one BLAS
thread per task; the bootstrap and stability kernels spend most of their time in the matrix products of
evalcore._exact.fmat_imat. This script times the same total work - K products of a (2p, n) float matrix by
an (n, B) matrix, as one bootstrap chunk does - in 1, 2, 4, ... threads, three ways:

* ``blas``: numpy's ``@`` (BLAS dgemm) in every thread;
* ``blas+lock``: the same with a Python lock around each product (the products one at a time);
* ``numpy``: element-wise work of the same size and no BLAS (``np.multiply`` + ``np.add``), which
  releases the GIL and touches memory the same way.

Usage: ``python benchmarks/bench_blas_threads.py [--p 500] [--n 50] [--B 1000] [--K 64] [--repeat 1]``;
docs/benchmarks.md section 15 records what it printed on a 16-core machine. The thread counts of one kind of work
are interleaved round by round (``--repeat`` rounds, the median wall time shown; benchmarks/harness.py); the
result goes to benchmarks/results/blas_threads/.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", type=int, default=500)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--K", type=int, default=64, help="products in all (split over the threads)")
    ap.add_argument("--repeat", type=int, default=1, help="interleaved rounds of the thread counts (default 1)")
    harness.add_options(ap)
    a = ap.parse_args(argv)
    res = harness.Result("blas_threads", argv, {k: getattr(a, k) for k in ("p", "n", "B", "K", "repeat")},
                         script=__file__)
    try:
        from threadpoolctl import threadpool_limits
        limit = threadpool_limits(1)               # one BLAS thread per task, as evalcore.meta does
    except ImportError:                            # pragma: no cover
        limit = None
    rng = np.random.default_rng(0)
    A = rng.random((2 * a.p, a.n))
    C = rng.integers(0, 3, (a.n, a.B)).astype(np.float64)
    lock = threading.Lock()

    def blas(k: int) -> None:
        for _ in range(k):
            A @ C

    def blas_locked(k: int) -> None:
        for _ in range(k):
            with lock:
                A @ C

    X = rng.random((2 * a.p, a.B))

    def elementwise(k: int) -> None:
        for _ in range(k):
            np.add(np.multiply(X, 1.5), X)

    cores = os.cpu_count() or 1
    ks = [1]
    while ks[-1] * 2 <= cores:
        ks.append(ks[-1] * 2)
    title = f"{cores} cores; {a.K} products of ({2 * a.p}, {a.n}) @ ({a.n}, {a.B}) in all"
    print(title, file=sys.stderr, flush=True)
    rows = []
    for name, fn in (("blas", blas), ("blas+lock", blas_locked), ("numpy", elementwise)):

        def in_threads(t: int, fn=fn) -> None:
            share = [a.K // t + (1 if i < a.K % t else 0) for i in range(t)]
            with ThreadPoolExecutor(t) as ex:
                list(ex.map(fn, share))
        got = harness.rounds({str(t): (lambda t=t: in_threads(t)) for t in ks}, a.repeat, warmup=0)
        res.add_rounds(got, prefix=f"{name}: ")
        base = got.stats("1", "wall").median
        for t in ks:
            sec = got.stats(str(t), "wall").median
            rows.append({"work": name, "threads": t, "wall_s": sec, "speedup": base / sec,
                         "cpu_s": got.stats(str(t), "cpu").median})
            print(f"{name}: {t} threads {sec:.2f} s", file=sys.stderr, flush=True)
    print(res.table([harness.col("work"), harness.col("threads", right=True),
                     harness.col("wall s", "{:.2f}", "wall_s", right=True),
                     harness.col("speed-up", "{:.2f}x", "speedup", right=True),
                     harness.col("CPU s", "{:.2f}", "cpu_s", right=True)], rows, title=title))
    res.save(a)
    if limit is not None:
        limit.restore_original_limits()


if __name__ == "__main__":
    main()
