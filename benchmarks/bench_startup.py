"""Start-up of the ``evalcore`` command: ``--version`` and ``--help`` against the bare interpreter.

    python benchmarks/bench_startup.py [--repeat 20]

Each command runs in a fresh process ``--repeat`` times (interleaved); the table gives the median wall and
CPU seconds, the time over ``python -c pass`` (what evalcore adds), and, from one ``python -X importtime``
run, the microseconds spent importing evalcore's own modules and whether numpy / pandas / pyarrow were
imported at all (docs/benchmarks.md, "Start-up and the peer benchmark").
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _once(cmd, env) -> tuple[float, float]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env, cwd=ROOT)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def _imports(cmd, env) -> tuple[int, bool]:
    """(microseconds importing evalcore's modules, True if numpy/pandas/pyarrow were imported)."""
    r = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=env, cwd=ROOT)
    ours, heavy = 0, False
    for line in r.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|(\s*)(\S+)", line)
        if m:
            name = m.group(3)
            if name.split(".")[0] == "evalcore":
                ours += int(m.group(1))
            heavy |= name.split(".")[0] in ("numpy", "pandas", "pyarrow")
    return ours, heavy


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    py = sys.executable
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmds = {"python -c pass": [py, "-c", "pass"],
            "evalcore --version": [py, "-m", "evalcore", "--version"],
            "evalcore --help": [py, "-m", "evalcore", "--help"],
            "evalcore evaluate --help": [py, "-m", "evalcore", "evaluate", "--help"]}
    times: dict[str, list] = {k: [] for k in cmds}
    for cmd in cmds.values():
        _once(cmd, env)
    for _ in range(args.repeat):
        for k, cmd in cmds.items():
            times[k].append(_once(cmd, env))
    base_w = statistics.median(w for w, _ in times["python -c pass"])
    print(f"\nfresh process per call, median of {args.repeat} interleaved rounds; {os.cpu_count()} cores\n")
    print("| command | wall s | CPU s | wall over `python -c pass` | evalcore's imports (ms) | numpy/pandas/pyarrow |")
    print("|---|---|---|---|---|---|")
    for k, cmd in cmds.items():
        w = statistics.median(x for x, _ in times[k])
        c = statistics.median(y for _, y in times[k])
        ours, heavy = _imports(cmd, env) if k != "python -c pass" else (0, False)
        print(f"| `{k}` | {w:.3f} | {c:.3f} | {w - base_w:+.3f} | {ours / 1000:.1f} | {'yes' if heavy else 'no'} |")


if __name__ == "__main__":
    main()
