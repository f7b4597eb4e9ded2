"""Within-process A/B of a change to a gain move: two variants alternate move by move in one session
(docs/benchmarks.md section 16.4).

    python benchmarks/bench_move_ab.py VARIANTS.py --page rankings --moves 32
    python benchmarks/bench_move_ab.py VARIANTS.py --page overview --data clef2015 --moves 24

``VARIANTS.py`` defines two functions without arguments, ``A()`` and ``B()``, each putting its variant in
place (typically by setting a module attribute back to the original or to the changed version), e.g.::

    from dashboard import widgets
    orig = widgets.table
    def A(): widgets.table = orig
    def B(): widgets.table = lambda *a, **k: None      # what a move costs without its tables

Before each move the variant of that move is put in place (in the order A B B A A B ...: neither variant
always runs first after the other), the level-1 gain is set to a value not used before (every gain-dependent
result is a miss) and the page is run in AppTest until settled; the CPU of the rerun
(``time.process_time``, the whole process) is charged to the variant. The medians and B / A are printed.
Two variants in one process see the same caches, allocator and machine state, which separate processes
(bench_move_cpu.py --against) do not: on a shared 2-core machine the same code varies by up to 30 % between
processes, far more than the effects this is for.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(os.environ.get("EVALCORE_BENCH_ROOT") or Path(__file__).resolve().parents[1]).resolve()
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))     # bench_move_cpu: the session it measures in


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", type=Path, help="a Python file defining A() and B()")
    ap.add_argument("--page", default="rankings", choices=["rankings", "overview"])
    ap.add_argument("--data", default="sim", choices=["sim", "clef2015"])
    ap.add_argument("--moves", type=int, default=32, help="moves in all, half for each variant (default 32)")
    args = ap.parse_args()
    if not 2 <= args.moves <= 1000:
        ap.error("--moves must be 2 to 1000")
    spec = importlib.util.spec_from_file_location("variants", args.variants)
    if spec is None or spec.loader is None:
        ap.error(f"{args.variants}: not a Python file")
    variants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(variants)
    for name in "AB":
        if not callable(getattr(variants, name, None)):
            ap.error(f"{args.variants} must define {name}() (it defines no function {name})")

    from bench_move_cpu import open_page

    from dashboard.state import gain_keys

    at = open_page(args.data, args.page)
    cpu: dict[str, list[float]] = {"A": [], "B": []}
    for i in range(args.moves):
        name = ("AB" if (i // 2) % 2 == 0 else "BA")[i % 2]
        getattr(variants, name)()
        value = round(1.05 + 0.37 * (i % 40) + 0.001 * (i % 7) + 0.0001 * (i // 40), 4)   # never used before
        at.number_input(key=gain_keys(at.session_state, 1)[1]).set_value(value)
        c0 = time.process_time()
        at.run()
        cpu[name].append(time.process_time() - c0)
        assert not at.exception, [e.message for e in at.exception]
    a, b = statistics.median(cpu["A"]), statistics.median(cpu["B"])
    print(f"{args.page}, {args.data}: CPU per move, median of {len(cpu['A'])} each: A {a:.4f} s, B {b:.4f} s, "
          f"B / A {b / a:.3f} (means {statistics.mean(cpu['A']):.4f} / {statistics.mean(cpu['B']):.4f} s)")


if __name__ == "__main__":
    main()
