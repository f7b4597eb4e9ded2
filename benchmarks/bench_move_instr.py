"""Instructions per gain move on the Overview or the Rankings, counted by valgrind's callgrind (docs/benchmarks.md
section 16.7).

    python benchmarks/bench_move_instr.py                                    # Rankings, simulated data, 4 moves
    python benchmarks/bench_move_instr.py --page overview --moves 3
    python benchmarks/bench_move_instr.py --against /tmp/before              # this checkout against another

CPU seconds on a shared virtual machine move by up to 2x between runs minutes apart (docs/benchmarks.md section
16.6), so a cut of a few percent cannot be told from noise with ``bench_move_cpu.py``. The number of machine
instructions the process executes for the same moves does not depend on the neighbours: this script runs
``bench_move_cpu.py``'s AppTest session (the real page script, every move a gain not used before) under callgrind
with instrumentation off while the app starts and two moves warm its stores, on for ``--moves`` moves, and
prints the instructions per move of the threads that ran the page script (the interpreter, numpy, pandas,
pyarrow, plotly and Streamlit all counted; no network, as in AppTest; AppTest's main thread, which polls for a
run's end and so executes more on a slower machine, left out). Instructions are not time - a cache miss costs
more than an add - but two checkouts that differ in Python code are compared fairly. Needs ``valgrind``
(Debian: ``apt-get install valgrind``); a run takes about 5 minutes, most of it the app starting under valgrind.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(root: str, page: str, moves: int) -> None:
    """In the process valgrind runs: open the page, warm, count ``moves`` moves."""
    os.environ["EVALCORE_BENCH_ROOT"] = root
    sys.path.insert(0, str(HERE))
    import bench_move_cpu as b

    from dashboard.state import gain_keys

    at = b.open_page("sim", page)

    def move(v: float) -> None:
        at.number_input(key=gain_keys(at.session_state, 1)[1]).set_value(v)
        at.run()
        assert not at.exception, [e.message for e in at.exception]

    for i in range(2):                  # the first moves fill the stores once; not counted
        move(round(9.05 + 0.37 * i, 3))
    subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True, capture_output=True)
    for i in range(moves):
        move(round(1.05 + 0.37 * i + 0.001 * (i % 7), 3))     # a gain not used before at every move
    subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=True, capture_output=True)


def count(root: Path, page: str, moves: int) -> int:
    """Instructions of ``moves`` moves in checkout ``root``: the threads that ran the page script, not the
    test harness's main thread, which polls for the run's end and so executes more the slower the machine."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
               f"--callgrind-out-file={out}", sys.executable, __file__, "--child", str(root), "--page", page,
               "--moves", str(moves)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        per_thread = {}
        for f in Path(tmp).glob("callgrind.out*"):
            text = f.read_text()
            m, t = re.search(r"^totals: (\d+)", text, re.M), re.search(r"^thread: (\d+)", text, re.M)
            if m and t:
                per_thread[int(t.group(1))] = int(m.group(1))
        if res.returncode or not per_thread:
            sys.exit(f"callgrind run failed in {root} (exit {res.returncode}):\n{res.stderr[-3000:]}")
        return sum(n for tid, n in per_thread.items() if tid != 1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--page", choices=["rankings", "overview"], default="rankings")
    ap.add_argument("--moves", type=int, default=4)
    ap.add_argument("--against", metavar="DIR", help="another checkout (e.g. `git archive` of an older commit)")
    ap.add_argument("--child", metavar="ROOT", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.moves < 1:
        ap.error("--moves must be at least 1")
    if args.child:
        return child(args.child, args.page, args.moves)
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    this = Path(os.environ.get("EVALCORE_BENCH_ROOT") or HERE.parent).resolve()
    trees = [("this", this)] + ([("against", Path(args.against).resolve())] if args.against else [])
    per = {}
    for name, tree in trees:
        per[name] = count(tree, args.page, args.moves) / args.moves
        print(f"{name} ({tree}): {per[name] / 1e6:.1f} M instructions per {args.page} move "
              f"({args.moves} moves, simulated data)", flush=True)
    if args.against:
        print(f"this / against: {per['this'] / per['against']:.3f}")


if __name__ == "__main__":
    main()
