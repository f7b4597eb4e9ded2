"""Cost of CPU-independent sums: evalcore._exact.fmat_imat against the plain BLAS product, same run.

    python benchmarks/bench_exact.py [--repeat 5]

The resampling methods sum scores weighted by topic counts; ``fmat_imat`` makes those sums exact up to one
rounding (the same bits on every CPU, docs/benchmarks.md section 13) at the price of a product with twice
the rows. Prints the product's time for bootstrap-sized chunks (one BLAS thread; the two products
interleaved round by round) and each method's CPU time at 100 runs x 50 topics, B = 1000, one metric
(benchmarks/harness.py; the result goes to benchmarks/results/exact/).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(1, str(Path(__file__).resolve().parent))

import harness  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    harness.add_options(ap)
    a = ap.parse_args(argv)
    from evalcore._exact import fmat_imat
    from evalcore.meta import bootstrap_sensitivity, stability, swap_method
    from evalcore.meta._common import one_blas_thread, topic_counts

    res = harness.Result("exact", argv, {"repeat": a.repeat}, script=__file__)
    rng = np.random.default_rng(0)
    w = rng.random((165, 50)) - 0.5
    Ct = topic_counts(rng.integers(0, 50, size=(1000, 50)), 50).T
    with one_blas_thread():
        got = harness.rounds({"matmul": lambda: [w @ Ct for _ in range(50)],
                              "fmat_imat": lambda: [fmat_imat(w, Ct) for _ in range(50)]}, a.repeat, warmup=0)
    plain, exact = got.stats("matmul", "cpu").median / 50, got.stats("fmat_imat", "cpu").median / 50
    rows = [{"what": "(165 x 50) @ (50 x 1000), np.matmul", "cpu_ms": 1e3 * plain},
            {"what": "the same, fmat_imat (exact)", "cpu_ms": 1e3 * exact, "ratio": exact / plain}]
    M = {"M": rng.random((100, 50))}
    methods = harness.rounds({name: (lambda fn=fn: fn(M, B=1000)) for name, fn in (
        ("bootstrap_sensitivity", bootstrap_sensitivity), ("swap_method", swap_method), ("stability", stability))},
        a.repeat, warmup=0)
    for name in methods.samples:
        rows.append({"what": f"{name}, 100 runs x 50 topics, B = 1000",
                     "cpu_ms": 1e3 * methods.stats(name, "cpu").median})
    res.add_rounds(got)
    res.add_rounds(methods)
    print(res.table([harness.col("what"), harness.col("CPU ms (median)", ["{:.2f} ({ratio:.1f}x)", "{:.2f}"],
                                                      "cpu_ms")], rows))
    res.save(a)


if __name__ == "__main__":
    main()
