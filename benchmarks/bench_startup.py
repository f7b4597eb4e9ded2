"""Start-up of the ``evalcore`` command: ``--version`` and ``--help`` against the bare interpreter.

    python benchmarks/bench_startup.py [--repeat 20]

Each command runs in a fresh process ``--repeat`` times (interleaved rounds, benchmarks/harness.py); the table
gives the median wall and CPU seconds, the time over ``python -c pass`` (what evalcore adds), and, from one
``python -X importtime`` run, the milliseconds spent importing evalcore's own modules and whether numpy /
pandas / pyarrow were imported at all (docs/benchmarks.md, "Start-up and the peer benchmark"). The result
file: benchmarks/results/startup/.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

ROOT = harness.ROOT
COLUMNS = [harness.col("command", "`{}`"), harness.col("wall s", "{:.3f}", "wall_s"),
           harness.col("CPU s", "{:.3f}", "cpu_s"), harness.col("wall over `python -c pass`", "{:+.3f}", "over_pass_s"),
           harness.col("evalcore's imports (ms)", "{:.1f}", "evalcore_imports_ms"),
           harness.col("numpy/pandas/pyarrow", "{}", "heavy_imports")]


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
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("startup", argv, {"repeat": args.repeat}, script=__file__)
    py = sys.executable
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmds = {"python -c pass": [py, "-c", "pass"],
            "evalcore --version": [py, "-m", "evalcore", "--version"],
            "evalcore --help": [py, "-m", "evalcore", "--help"],
            "evalcore evaluate --help": [py, "-m", "evalcore", "evaluate", "--help"]}
    got = harness.rounds({k: harness.command(c, env=env, quiet_stderr=True, check=False) for k, c in cmds.items()},
                         args.repeat)
    res.add_rounds(got)
    base_w = got.stats("python -c pass", "wall").median
    rows = []
    for k, cmd in cmds.items():
        w = got.stats(k, "wall").median
        ours, heavy = _imports(cmd, env) if k != "python -c pass" else (0, False)
        rows.append({"command": k, "wall_s": w, "cpu_s": got.stats(k, "child_cpu").median, "over_pass_s": w - base_w,
                     "evalcore_imports_ms": ours / 1000, "heavy_imports": "yes" if heavy else "no"})
    print(res.table(COLUMNS, rows, title=f"Fresh process per call, median of {args.repeat} interleaved rounds; "
                                         f"{os.cpu_count()} cores:"))
    res.save(args)


if __name__ == "__main__":
    main()
