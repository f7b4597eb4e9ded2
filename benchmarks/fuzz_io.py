"""Long fuzz run over evalcore.io (docs/reliability.md): mutated real files -> Collection or InputError.

    python benchmarks/fuzz_io.py --examples 2000 --seed 1 [--max-seconds 900]

Uses the strategies of tests/fuzz_io_cases.py (real clef2015 excerpts, 19
mutation classes, 7 ways of wrapping the runs, 6 loader options). Every case
must end in a Collection or an InputError, under --case-seconds CPU and
--case-mib of traced memory (tracemalloc: Python and numpy allocations);
anything else is recorded as a failure with its classes and exception (no
shrinking, so one bad case does not stop the run). Prints a markdown table
of cases per class for docs/reliability.md, the slowest case, the largest
traced peak and the process's peak RSS; the same goes to benchmarks/results/fuzz_io/ (benchmarks/harness.py).
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from fuzz_io_cases import MUTATIONS, Case, cases, check
from hypothesis import HealthCheck, given, seed, settings

MiB = 1 << 20


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=900, help="stop drawing new cases after this wall time")
    ap.add_argument("--case-seconds", type=float, default=30)
    ap.add_argument("--case-mib", type=float, default=512)
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("fuzz_io", argv, {k: getattr(args, k) for k in ("examples", "seed", "max_seconds",
                                                                         "case_seconds", "case_mib")}, script=__file__)

    per_class: Counter = Counter()
    outcomes: Counter = Counter()
    failures: list[str] = []
    worst = {"cpu": (0.0, []), "peak": (0, [])}
    t0 = time.time()
    n = [0]

    @seed(args.seed)
    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def one(case: Case):
        if time.time() - t0 > args.max_seconds:
            return
        n[0] += 1
        for k in set(case.kinds):
            per_class[k] += 1
        try:
            out, cpu, peak = check(case, max_seconds=args.case_seconds,
                                   max_peak=int(args.case_mib * MiB) + 4 * case.size())
            outcomes[out] += 1
            if cpu > worst["cpu"][0]:
                worst["cpu"] = (cpu, case.kinds)
            if peak > worst["peak"][0]:
                worst["peak"] = (peak, case.kinds)
        except Exception as e:  # noqa: BLE001 - a failure of the property, recorded
            outcomes["FAILURE"] += 1
            failures.append(f"{case.kinds} {case.kwargs}: {type(e).__name__}: {str(e)[:300]}\n"
                            + "".join(traceback.format_exception(e)[-3:]))

    one()
    wall = time.time() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"# fuzz_io: {n[0]} cases, seed {args.seed}, {wall:.0f} s wall, "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_utime:.0f} s CPU\n")
    rows = [{"class": k, "cases": per_class[k]} for k in sorted(MUTATIONS)]
    rows += [{"class": k, "cases": per_class[k]} for k in sorted(x for x in per_class if x not in MUTATIONS)]
    print(res.table([harness.col("class"), harness.col("cases", right=True)], rows, notes=[
        f"outcomes: {dict(outcomes)}\nfailures: {len(failures)}\n"
        f"slowest case: {worst['cpu'][0]:.2f} s CPU {worst['cpu'][1]}\n"
        f"largest traced peak: {worst['peak'][0] / MiB:.1f} MiB {worst['peak'][1]}\n"
        f"process peak RSS: {rss:.0f} MiB"]))
    res.data["params"]["failures"] = failures[:20]
    res.save(args)
    for f in failures[:20]:
        print("\nFAILURE", f)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
