"""The latency floor of a gain move: bench_load's latency case on the pages as they are, and on copies of
them with their content cut away, alternated in one run (docs/benchmarks.md section 16.5).

    python benchmarks/bench_floor.py                              # both pages, 10 and 20 sessions, 2 rounds
    python benchmarks/bench_floor.py --pages rankings --sessions 10 --rounds 1

What a page costs at a move is its content plus what every gain-live page pays before drawing anything: the
sidebar's widgets, the settings and the address, and the scores of every selected metric at the new gains
(the sidebar warns about a metric that cannot be computed, so it computes them all). The cut copies measure
that floor:

* ``rankings, sidebar only``: the Rankings page stops after its title and settings line (no chart, no table);
* ``overview, no resampling``: the Overview without its discriminative-power section (the bootstrap and swap
  charts at the chosen B, and the claim checked on them); the rank-shift chart and the Kendall heatmap stay.

The copies are made in a temporary folder from this checkout's tracked files; each cut is an exact text
replacement that fails loudly if the page no longer has the line it cuts at. Every case runs its own server
(``benchmarks/bench_load.py --only latency``, one process, the built-in data, each move a cache miss) and the
cases alternate round by round, so a slower minute of a shared machine does not fall on one variant alone.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: page -> (variant name, file, the line the copy stops before, what the copy runs there instead)
CUTS = {
    "rankings": ("sidebar only", "views/rankings.py", "means = scoring.means(c, s)\n",
                 "from dashboard import live\nlive.finish_live()\nst.stop()\n"),
    "overview": ("no resampling", "views/overview.py", 'widgets.subheader("Discriminative power per metric")\n',
                 "live.finish_live()\nst.stop()\n"),
}

#: a row of bench_load's "Slider to settled" table: sessions, moves, p50, p95, max, errors, server CPU per move
ROW = re.compile(r"^\|" + r"\|".join([r"\s*(\d+)\s*"] * 2 + [r"\s*([\d.]+)\s*"] * 3 + [r"\s*(\d+)\s*", r"\s*([\d.]+)"]))


def cut_copy(dest: Path) -> Path:
    """This checkout's tracked files in ``dest``, with every page of :data:`CUTS` cut."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    for _, file, at, instead in CUTS.values():
        page = dest / file
        text = page.read_text(encoding="utf-8")
        if text.count(at) != 1:
            raise SystemExit(f"{file}: the line to cut at ({at.strip()!r}) is not there once; update CUTS")
        page.write_text(text.replace(at, instead + at), encoding="utf-8")
    return dest


def latency(root: Path, page: str, sessions: list[int], moves: int) -> dict[int, tuple]:
    """bench_load's latency rows for ``page`` from the checkout at ``root``: {sessions: (p50, p95, max, errors,
    server CPU per move)}."""
    cmd = [sys.executable, str(root / "benchmarks" / "bench_load.py"), "--only", "latency", "--pages", page,
           "--moves", str(moves), "--sessions", *map(str, sessions)]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=3600)
    rows = {}
    for line in out.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows[int(m[1])] = (float(m[3]), float(m[4]), float(m[5]), int(m[6]), float(m[7]))
    if set(rows) != set(sessions):
        raise SystemExit(f"bench_load gave no table for {page} in {root}:\n{out.stdout}\n{out.stderr}")
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", nargs="+", default=list(CUTS), choices=list(CUTS))
    ap.add_argument("--sessions", type=int, nargs="+", default=[10, 20])
    ap.add_argument("--moves", type=int, default=5, help="slider moves per session (default 5)")
    ap.add_argument("--rounds", type=int, default=2, help="alternations of the page and its cut copy (default 2)")
    args = ap.parse_args(argv)
    results: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="evalcore-floor-") as tmp:
        cut = cut_copy(Path(tmp))
        for r in range(args.rounds):
            for page in args.pages:
                for name, root in (("as it is", ROOT), (CUTS[page][0], cut)):
                    print(f"round {r + 1}: {page}, {name} ...", file=sys.stderr, flush=True)
                    results.setdefault((page, name), []).append(latency(root, page, args.sessions, args.moves))
    print("| page | variant | sessions | p95 per round (s) | p50 per round (s) | server CPU per move (s) | errors |")
    print("|---|---|---:|---|---|---|---:|")
    for (page, name), rounds in results.items():
        for n in args.sessions:
            cells = [rnd[n] for rnd in rounds]
            print(f"| {page} | {name} | {n} | {', '.join(f'{c[1]:.2f}' for c in cells)} | "
                  f"{', '.join(f'{c[0]:.2f}' for c in cells)} | {', '.join(f'{c[4]:.3f}' for c in cells)} | "
                  f"{sum(c[3] for c in cells)} |")


if __name__ == "__main__":
    main()
