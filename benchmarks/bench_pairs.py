"""Speed of evalcore.meta.pair_statistics against scipy.stats called pair by pair.

    python benchmarks/bench_pairs.py [--repeat 5] [--data ../shared/data/clef2015] [--loop-metrics 1] [--full-loop]

Target (docs/benchmarks.md section 5): every pair's mean difference, paired-t CI, effect size
(over sqrt(V_E) and d_z) and the non-resampled p-values (paired t, Wilcoxon
signed-rank, sign test) for (a) clef2015's 30 runs x 65 topics x 7 metrics
(435 pairs per metric) in <= 100 ms and (b) 100 runs x 65 topics x 7 metrics
(4950 pairs per metric; uniform random scores, as clef2015 has only 30 runs)
in <= 2 s. The comparison is what a user would write with scipy: a loop over
pairs calling ``ttest_rel`` (with ``confidence_interval``), ``wilcoxon`` and
``binomtest``, plus the same numpy V_E. ``wilcoxon`` is told evalcore's
method rule (exact for <= 50 untied non-zero differences, else asymptotic),
since scipy's "auto" decides on the count *including* zero differences. By default the scipy loop runs on
--loop-metrics metric(s) and is scaled to 7 (printed as such); --full-loop
runs all 7. The loop's p-values are checked against evalcore's in the same
run. Times are CPU seconds (time.process_time: all threads of this process),
median of --repeat runs, measured after one warm-up call (which pays the
lazy scipy import), with benchmarks/harness.py. Prints a markdown section; the result goes to
benchmarks/results/pairs/.
"""
from __future__ import annotations

import argparse
import itertools
import os
import platform
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))
import harness  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "clef2015"
METRICS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]
TESTS = ("t", "wilcoxon", "sign")


def scipy_loop(S: dict, metrics: list[str], confidence: float = 0.95):
    """The per-pair scipy loop: returns {metric: (n_pairs, 3) p-values t, wilcoxon, sign} and CIs."""
    from scipy import stats

    from evalcore.meta import residual_variance
    from evalcore.meta.pairs import tied_differences, zero_tolerance

    out = {}
    for m in metrics:
        X = S[m]
        v_e = residual_variance(X)
        tol = zero_tolerance(X)
        rows = []
        for i, j in itertools.combinations(range(X.shape[0]), 2):
            d = X[i] - X[j]
            mean = d.mean()
            es = mean / np.sqrt(v_e)
            if not np.any(d):               # scipy's tests are undefined for identical runs
                rows.append((mean, mean, mean, es, 0.0, 1.0, 1.0, 1.0))
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tt = stats.ttest_rel(X[i], X[j])
                ci = tt.confidence_interval(confidence)
                z = tied_differences(d, tol)   # ties by value, not by bits (evalcore.meta.pairs.TIE_RULE)
                nz = np.abs(z[z != 0])     # evalcore's policy: exact for <= 50 untied non-zero differences
                exact = nz.size <= 50 and np.unique(nz).size == nz.size
                w = stats.wilcoxon(z, method="exact" if exact else "asymptotic")
                pos, neg = int((z > 0).sum()), int((z < 0).sum())
                b = stats.binomtest(pos, pos + neg, 0.5) if pos + neg else None
            dz = mean / d.std(ddof=1) if d.std() > 0 else np.nan
            rows.append((mean, ci.low, ci.high, es, dz, tt.pvalue, w.pvalue, b.pvalue if b else 1.0))
        out[m] = np.array(rows)
    return out


def evalcore_run(S):
    from evalcore.meta import pair_statistics

    return pair_statistics(S, tests=TESTS)


def agreement(r, loop) -> float:
    """Largest |p evalcore - p scipy| over the looped metrics (pairs scipy can test)."""
    worst = 0.0
    for m, rows in loop.items():
        df = r.pairs[r.pairs.metric == m]
        ours = df[["p_t", "p_wilcoxon", "p_sign"]].to_numpy()
        ok = np.isfinite(rows[:, 5:]).all(axis=1) & (df["n_topics"].to_numpy() > 0)
        worst = max(worst, float(np.nanmax(np.abs(ours[ok] - rows[ok, 5:]))))
    return worst


def case(label, S, repeat, loop_metrics, full):
    n_runs, n_topics = next(iter(S.values())).shape
    got = harness.rounds({"evalcore": lambda: evalcore_run(S)}, repeat)    # after a warm-up call (lazy imports)
    t_ours, r = got.stats("evalcore", "cpu").median, got.samples["evalcore"][-1].result
    looped = METRICS if full else METRICS[:loop_metrics]
    timed = harness.measure(lambda: scipy_loop(S, looped))
    loop, t_loop = timed.result, timed.cpu * len(METRICS) / len(looped)
    n_pairs = n_runs * (n_runs - 1) // 2
    return {"label": label, "shape": f"{n_runs} runs x {n_topics} topics x {len(S)} metrics",
            "pairs": n_pairs * len(S), "ours": t_ours, "loop": t_loop, "looped": len(looped),
            "ratio": t_loop / t_ours, "agree": agreement(r, loop)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--loop-metrics", type=int, default=1, help="metrics the scipy loop runs (scaled to 7)")
    ap.add_argument("--full-loop", action="store_true", help="run the scipy loop on all 7 metrics")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    result = harness.Result("pairs", argv, {"repeat": args.repeat, "loop_metrics": args.loop_metrics,
                                            "full_loop": args.full_loop, "data": args.data.name}, script=__file__)
    import evalcore

    c = evalcore.load_collection(str(args.data / "qrels.txt"), str(args.data / "runs"))
    S = evalcore.score_matrices(c, METRICS)
    rng = np.random.default_rng(0)
    S100 = {m: rng.random((100, c.n_topics)) for m in METRICS}
    res = [case(f"clef2015 ({c.n_topics} topics, {len(c.run_ids)} runs)", S, args.repeat, args.loop_metrics,
                args.full_loop),
           case("random uniform scores, 100 runs", S100, args.repeat, args.loop_metrics, args.full_loop)]
    cmd = "python benchmarks/bench_pairs.py " + " ".join(argv if argv is not None else sys.argv[1:])
    rows = []
    for r_, target in zip(res, ("<= 0.1 s", "<= 2 s"), strict=False):
        scaled = "" if r_["looped"] == len(METRICS) else " (1 of 7 metrics x 7)" if r_["looped"] == 1 else \
            f" ({r_['looped']} of 7 metrics, scaled)"
        rows.append({**r_, "target": target, "scaled": scaled})
    title = ("### Pair statistics: CI, effect size, t / Wilcoxon / sign p-values for every pair\n\n"
             f"`{cmd.strip()}` on {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}, numpy {np.__version__}; CPU seconds, median of {args.repeat} "
             "(after a warm-up call); the scipy loop = ttest_rel + confidence_interval + wilcoxon + binomtest "
             "per pair.")
    c_ = harness.col
    print(result.table([c_("data", "{}: {shape}", "label"), c_("pairs", right=True),
                        c_("evalcore", "{:.3f} s", "ours", right=True), c_("target", right=True),
                        c_("scipy loop", "{:.2f} s{scaled}", "loop", right=True),
                        c_("loop / evalcore", "{:.0f}x", "ratio", right=True),
                        c_("max abs p diff", "{:.1e}", "agree", right=True)], rows, title=title))
    result.save(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
