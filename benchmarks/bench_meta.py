"""Speed of evalcore.meta against the plain-loop implementation of the papers' figures.

    python benchmarks/bench_meta.py [--repeat 5] [--data ../shared/data/clef2015] [--loop-B 100] [--full-loop]

Target (docs/benchmarks.md section 2): on clef2015's top 30 runs and 7 metrics (Q-measure, AP, P+-measure,
P-measure, O-measure, NWRR, RR), bootstrap (B=1000) + swap (replacement,
c = |Q|, B=1000) + the Kendall matrix together in at most 5 s, and at least
50x faster than the plain loop (tests/test_meta_reference.py: 003 Fig. 4-7
written line by line) run here too. The loop is linear in B and in the number
of metrics, so by default it runs B = --loop-B on one metric and is scaled up
to B = 1000 and 7 metrics (printed as such); --full-loop runs all of it
(minutes). Score matrices are computed once, before timing (the metric
kernels are benchmarked in bench_evaluate.py). The three steps and their sum are
timed in interleaved rounds (benchmarks/harness.py, medians of wall time); prints
a markdown section, and the result goes to benchmarks/results/meta/.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import harness  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"
METRICS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]


def load(data: Path):
    import evalcore
    from evalcore.meta import subset_runs, top_runs

    c = evalcore.load_collection(str(data / "qrels.txt"), str(data / "runs"))
    label = f"clef2015 ({data})"
    S = evalcore.score_matrices(c, METRICS)
    ap = evalcore.score_matrix(c, "AP")
    idx = top_runs(ap.mean(axis=1), 30)
    return label, [c.run_ids[i] for i in idx], subset_runs(S, idx)


def vectorised(S, runs):
    from evalcore.meta import bootstrap_sensitivity, correlation_matrix, swap_method

    b = bootstrap_sensitivity(S, run_ids=runs, B=1000, seed=0)
    s = swap_method(S, sampling="replacement", B=1000, seed=0)
    k = correlation_matrix(pd.DataFrame({m: v.mean(axis=1) for m, v in S.items()}, index=runs))
    return b, s, k


def loop(S, metrics, B):
    from test_meta_reference import ref_bootstrap_pair, ref_swap

    from evalcore.meta import bootstrap_samples, kendall_tau, sample_topics

    n_runs, n = next(iter(S.values())).shape
    Q, Q2 = sample_topics(n, sampling="replacement", B=B, seed=0)
    bs = bootstrap_samples(n, B=B, seed=0)
    for m in metrics:
        M = S[m]
        for x in range(n_runs):
            for y in range(x + 1, n_runs):
                ref_bootstrap_pair(list(M[x]), list(M[y]), bs.tolist())
        ref_swap(M, Q.tolist(), Q2.tolist())
    means = {m: S[m].mean(axis=1) for m in S}
    for a in S:
        for b in S:
            if a < b:
                kendall_tau(means[a], means[b])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--loop-B", type=int, default=100)
    ap.add_argument("--full-loop", action="store_true")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("meta", argv, {"repeat": args.repeat, "loop_B": args.loop_B, "full_loop": args.full_loop,
                                        "data": args.data.name, "metrics": METRICS}, script=__file__)
    label, runs, S = load(args.data)
    n_runs, n_topics = next(iter(S.values())).shape
    from evalcore.meta import bootstrap_sensitivity, correlation_matrix, swap_method
    got = harness.rounds({      # one warm-up call of each
        "bootstrap": lambda: bootstrap_sensitivity(S, run_ids=runs, B=1000, seed=0),
        "swap": lambda: swap_method(S, B=1000, seed=0),
        "kendall": lambda: correlation_matrix(pd.DataFrame({m: v.mean(axis=1) for m, v in S.items()})),
        "all": lambda: vectorised(S, runs)}, args.repeat)
    res.add_rounds(got)
    vec = got.stats("all", "wall").median
    if args.full_loop:
        loop_t = harness.measure(lambda: loop(S, METRICS, 1000)).wall
        how = "full: 7 metrics, B = 1000"
    else:
        measured = harness.measure(lambda: loop(S, METRICS[:1], args.loop_B)).wall
        loop_t = measured * (1000 / args.loop_B) * len(METRICS)
        how = (f"measured {measured:.2f} s on 1 metric with B = {args.loop_B}, scaled x{1000 // args.loop_B} "
               f"(B) x{len(METRICS)} (metrics)")
    rows = [{"step": k, "seconds": got.stats(k, "wall").median} for k in ("bootstrap", "swap", "kendall")]
    rows.append({"step": "**bootstrap (B=1000) + swap (replacement, c = \\|Q\\|, B=1000) + Kendall**", "seconds": vec,
                 "bold": "**"})
    met = "met" if vec <= 5 and loop_t / vec >= 50 else "NOT met"
    title = (f"## evalcore.meta: bootstrap + swap + Kendall\n\nData: {label}; {n_runs} runs x {n_topics} topics, "
             f"{n_runs * (n_runs - 1) // 2} pairs, 7 metrics ({', '.join(METRICS)}).\n"
             f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, numpy {np.__version__}. Median of {args.repeat} interleaved rounds.")
    res.data["params"].update(loop_seconds=loop_t, loop_how=how)
    print(res.table([harness.col("step"), harness.col("evalcore.meta (s)", ["{bold}{:.3f}{bold}", "{:.3f}"], "seconds",
                                                      right=True)], rows, title=title,
                    notes=[f"Plain loop (tests/test_meta_reference.py, 003 Fig. 4-7 line by line): {loop_t:.1f} s "
                           f"({how}).\nSpeed-up: **{loop_t / vec:.0f}x**. Target: <= 5 s and >= 50x -> {met}."]))
    res.save(args)


if __name__ == "__main__":
    main()
