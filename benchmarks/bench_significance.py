"""The "Significance & topic sets" page on clef2015: slider move -> page updated (server time).

    python benchmarks/bench_significance.py [--moves 6]

1. **Slider to update with the quick pass** (target: <= 500 ms, as for the other live pages in docs/benchmarks.md
section 8). clef2015
   (30 runs x 66 topics) is put into an AppTest session as an upload; on the
   significance page the top-level gain slider moves to a value never used
   before (no cache hits) and the page's script run is timed *without* the
   refinement (``live.finish_live`` disabled): what the user sees first.
   Once for the paired t-test (no resampling: the final table at once) and once
   for the paired bootstrap test (quick pass B = 100 for the table and for the
   5-seed Monte Carlo spread; the chosen B = 1000 refines afterwards).
2. **Refinement**: the same moves with the refinement, i.e. until the chosen
   B = 1000 is on screen (pair table + 5-seed spread).
3. **BLAS threads**: pair_statistics(every test, B = 1000) on clef2015's
   7 metrics with OpenBLAS's default threads against one thread
   (threadpoolctl), in the same run - the reason dashboard.meta_kinds runs the
   page's pair statistics single-threaded.

Times are CPU seconds of this process (all threads), median over the moves;
wall times are disturbed by the other engineers on this machine.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_app import load_clef  # noqa: E402

from dashboard.state import gain_keys  # noqa: E402

KEYS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]


def page_moves(c, test: str, values, refine: bool) -> list[float]:
    from streamlit.testing.v1 import AppTest

    from dashboard import live

    saved = live.finish_live
    if not refine:
        live.finish_live = lambda: None
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.run()
        at.session_state["uploaded"] = c
        at.run()
        at.selectbox(key="dataset").set_value("upload").run()
        at.switch_page("views/significance.py").run()
        at.selectbox(key="_w_sg_test").set_value(test).run()
        assert not at.exception, [e.message for e in at.exception]
        out = []
        for v in values:
            at.number_input(key=gain_keys(at.session_state, c.max_level)[1]).set_value(float(v))
            t0 = time.process_time()
            at.run()
            out.append(time.process_time() - t0)
            assert not at.exception, [e.message for e in at.exception]
            assert not at.error, [e.value for e in at.error]
        return out
    finally:
        live.finish_live = saved


def blas_threads(c, repeat: int = 3) -> tuple[float, float, int]:
    from threadpoolctl import threadpool_info, threadpool_limits

    from evalcore import meta, registry
    sc = {k: registry.score_matrix(c, k) for k in KEYS}
    meta.pair_statistics(sc, B=50)                     # warm-up (lazy scipy import)
    default = max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    def one():
        t0 = time.process_time()
        meta.pair_statistics(sc, B=1000, seed=0)
        return time.process_time() - t0

    multi = statistics.median(one() for _ in range(repeat))
    with threadpool_limits(limits=1, user_api="blas"):
        single = statistics.median(one() for _ in range(repeat))
    return multi, single, default


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=6)
    args = ap.parse_args()
    c, how = load_clef()
    print(f"clef2015: {c.n_runs} runs x {c.n_topics} topics, read with {how}")
    vals = np.round(np.linspace(3.3, 9.7, args.moves * 4), 1)
    for k, (test, refine) in enumerate([("t", False), ("bootstrap", False), ("bootstrap", True)]):
        times = page_moves(c, test, vals[k::4][: args.moves], refine)
        what = "until B = 1000 is on screen" if refine else "first screen (quick pass where resampled)"
        print(f"slider -> significance page, {test} test, {what}: median {statistics.median(times) * 1000:.0f} ms "
              f"CPU, max {max(times) * 1000:.0f} ms over {len(times)} moves")
    multi, single, n = blas_threads(c)
    print(f"pair_statistics(7 metrics, every test, B = 1000): {multi:.3f} CPU s with {n} BLAS threads, "
          f"{single:.3f} CPU s with 1 thread: x{multi / single:.1f}")


if __name__ == "__main__":
    main()
