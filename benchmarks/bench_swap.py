"""Swap method: per-run means (docs/benchmarks.md section 4) against the previous pair-product formulation.

    python benchmarks/bench_swap.py [--repeat 3] [--B 1000] [--data ../shared/data/clef2015]

evalcore.meta.swap_method now forms the runs' means over every sampled topic
set with one matrix product (runs x topics x B) and takes pair differences
of those means; before, every pair's per-topic difference z = x - y was
multiplied by the topic-count matrix (pairs x topics x B). Both are timed
here in the same process on the same samples (CPU time, best of --repeat interleaved rounds,
benchmarks/harness.py; the result goes to benchmarks/results/swap/),
with the same binning, and checked to give the same counts. Cases: clef2015's
30 runs x 65 topics, 7 metrics; simulated 100 and 300 runs x 50 topics, 1
metric. Prints a markdown table for docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))

import harness  # noqa: E402

from evalcore.meta import sample_topics, swap_method  # noqa: E402
from evalcore.meta._common import pair_chunks, pair_index, topic_counts  # noqa: E402
from evalcore.meta.swap import bin_index, swap_mask  # noqa: E402

METRICS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]


def pair_products(scores, Q, Q2, n_bins=21, width=0.01):
    """The previous core: D = (x - y) @ counts.T / c for chunks of pairs (O(pairs x topics x B))."""
    out = {}
    for m, M in scores.items():
        n_runs, n_topics = M.shape
        B, c = Q.shape
        C1, C2 = topic_counts(Q, n_topics).T / c, topic_counts(Q2, n_topics).T / c
        pi, pj = pair_index(n_runs)
        count = np.zeros(n_bins, np.int64)
        swaps = np.zeros(n_bins, np.int64)
        for sl in pair_chunks(pi.size, 8 * (4 * B + n_topics)):
            Z = M[pi[sl]] - M[pj[sl]]
            D, D2 = Z @ C1, Z @ C2
            b = bin_index(D, width, n_bins)
            count += np.bincount(b.ravel(), minlength=n_bins)
            swaps += np.bincount(b[swap_mask(D, D2)], minlength=n_bins)
        out[m] = (count, swaps)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--B", type=int, default=1000)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "clef2015")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    import evalcore
    from evalcore.meta import subset_runs, top_runs

    res = harness.Result("swap", argv, {"repeat": args.repeat, "B": args.B, "data": args.data.name}, script=__file__)
    cases = []
    c = evalcore.load_collection(args.data / "qrels.txt", args.data / "runs")
    idx = top_runs(evalcore.score_matrix(c, "AP").mean(axis=1), 30)
    cases.append(("clef2015, 30 runs x 65 topics, 7 metrics", subset_runs(evalcore.score_matrices(c, METRICS), idx)))
    rng = np.random.default_rng(0)
    for n in (100, 300):
        cases.append((f"simulated {n} runs x 50 topics, 1 metric",
                      {"M": np.clip(rng.random(n)[:, None] * 0.5 + rng.normal(0, 0.2, (n, 50)), 0, 1)}))
    rows = []
    for name, S in cases:
        T = next(iter(S.values())).shape[1]
        Q, Q2 = sample_topics(T, B=args.B, seed=0)
        new = swap_method(S, samples=(Q, Q2), confidences=(0.95,))
        old = pair_products(S, Q, Q2)
        for m in S:                                   # same counts (float rounding may move a value on an edge)
            cur = new.curves[new.curves.metric == m]
            diff = np.abs(cur["count"].to_numpy() - old[m][0]).sum()
            assert diff <= 1e-6 * cur["count"].sum() + 2, (name, m, diff)
        got = harness.rounds({"pair products": lambda S=S, Q=Q, Q2=Q2: pair_products(S, Q, Q2),
                              "per-run means": lambda S=S, Q=Q, Q2=Q2: swap_method(S, samples=(Q, Q2),
                                                                                    confidences=(0.95,))},
                             args.repeat, warmup=0)
        res.add_rounds(got, prefix=f"{name}: ")
        t_old, t_new = got.best("pair products", "cpu").cpu, got.best("per-run means", "cpu").cpu
        rows.append({"case": name, "old": t_old, "new": t_new, "speedup": t_old / t_new})
    print(res.table([harness.col(f"case (B = {args.B})", "{}", "case"),
                     harness.col("pair products, CPU s", "{:.3f}", "old", right=True),
                     harness.col("per-run means (evalcore), CPU s", "{:.3f}", "new", right=True),
                     harness.col("speed-up", "{:.1f}x", "speedup", right=True)], rows))
    res.save(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
