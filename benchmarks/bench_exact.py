"""Cost of CPU-independent sums: evalcore._exact.fmat_imat against the plain BLAS product, same run.

    python benchmarks/bench_exact.py [--repeat 5]

The resampling methods sum scores weighted by topic counts; ``fmat_imat`` makes those sums exact up to one
rounding (the same bits on every CPU, docs/benchmarks.md section 13) at the price of a product with twice
the rows. Prints the product's time for bootstrap-sized chunks (one BLAS thread) and each method's CPU
time at 100 runs x 50 topics, B = 1000, one metric.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def cpu(fn, repeat):
    out = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        out.append(time.process_time() - t)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    from evalcore._exact import fmat_imat
    from evalcore.meta import bootstrap_sensitivity, stability, swap_method
    from evalcore.meta._common import one_blas_thread, topic_counts

    rng = np.random.default_rng(0)
    w = rng.random((165, 50)) - 0.5
    Ct = topic_counts(rng.integers(0, 50, size=(1000, 50)), 50).T
    with one_blas_thread():
        plain = cpu(lambda: [w @ Ct for _ in range(50)], a.repeat) / 50
        exact = cpu(lambda: [fmat_imat(w, Ct) for _ in range(50)], a.repeat) / 50
    print("| what | CPU ms (median) |\n|---|---|")
    print(f"| (165 x 50) @ (50 x 1000), np.matmul | {1e3 * plain:.2f} |")
    print(f"| the same, fmat_imat (exact) | {1e3 * exact:.2f} ({exact / plain:.1f}x) |")
    M = {"M": rng.random((100, 50))}
    for name, fn in (("bootstrap_sensitivity", bootstrap_sensitivity), ("swap_method", swap_method),
                     ("stability", stability)):
        print(f"| {name}, 100 runs x 50 topics, B = 1000 | {1e3 * cpu(lambda fn=fn: fn(M, B=1000), a.repeat):.0f} |")


if __name__ == "__main__":
    main()
