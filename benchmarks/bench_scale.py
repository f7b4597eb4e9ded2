"""Loading + evaluating at scale: evalcore vs pytrec_eval vs ranx, side by side, in one run (docs/benchmarks.md section
10).

    python benchmarks/gen_scale.py --shape 100x250x1000                  # the curve: 2, 6, 12, 25 M lines
    python benchmarks/gen_scale.py --shape 50x5000x100 --lines 25
    python benchmarks/gen_scale.py --shape 300x50x1000 --lines 15
    python benchmarks/gen_scale.py --shape 100x250x1000 --lines 25 --doc-prefix clueweb12-0000tw-   # long ids
    python benchmarks/bench_scale.py [--root /tmp/evalcore_scale] [--tools evalcore,pytrec_eval,ranx]

Every measurement is one fresh Python process per (collection, tool), run
one after the other (never two at once). Inside it, after the imports, it
reads the qrels and every run file and computes the same five measures:

* evalcore: ``load_collection`` (qrels + the run directory) +
  ``score_matrices`` for AP, RR, P@10, MSnDCG@10, R-Prec;
* pytrec_eval: ``parse_qrel`` + ``RelevanceEvaluator`` with map,
  recip_rank, P.10, ndcg_cut.10, Rprec, then ``parse_run`` + ``evaluate``
  for each file in turn (its lowest-memory use);
* ranx: ``Qrels.from_file`` + ``Run.from_file`` + ``evaluate`` (map, mrr,
  precision@10, ndcg@10, r-precision) for each file in turn; numba's
  compilation is warmed up on a tiny collection first and not counted.

``--rounds N`` (default 1) measures every tool N times per collection,
interleaved: the page cache is warmed first (every file read once, not
counted), then round i runs the tools in turn, in reverse order on every
other round, so that a slow moment of the shared machine hits both tools
alike. Every round's ratio is printed; the table gives the medians and the
range of the per-round ratios.

Reported per tool: CPU seconds (user + system of the process, threads
included) and wall seconds of that work, and the peak RSS (VmHWM) of the
process, imports included. CPU time is the fair comparison on a shared
machine; ratios are taken within one run of this script. The rounds and each child's timing use
benchmarks/harness.py; the result goes to benchmarks/results/scale/.

Targets: evalcore's time linear in lines (25 M within 1.3x of
12.5x the 2 M time), >= 3x faster than pytrec_eval in CPU and wall at 25 M,
peak RSS <= 3 x (tensor + qrels) + 300 MB, where tensor = the levels and
unjudged arrays (2 bytes per run x topic x rank cell) and qrels = the qrels
file's size.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r'''
import json, os, sys, time
sys.path.insert(0, {root!r}); sys.path.insert(1, {bench!r})
import harness
tool, qrels, runs = {tool!r}, {qrels!r}, {runs!r}
files = sorted(os.path.join(runs, f) for f in os.listdir(runs))
out = {{}}
if tool == "evalcore":
    import evalcore
    def work():
        load = harness.measure(lambda: evalcore.load_collection(qrels, runs))
        c = load.result
        out["load_cpu"], out["load_wall"] = load.cpu, load.wall
        m = evalcore.score_matrices(c, ["AP", "RR", "P@10", "MSnDCG@10", "R-Prec"])
        out["shape"] = list(c.levels.shape)
        out["tensor_mb"] = (c.levels.nbytes + c.unjudged.nbytes) / 2**20
        out["check"] = float(m["AP"].mean())
elif tool == "pytrec_eval":
    import pytrec_eval
    def work():
        with open(qrels) as f:
            q = pytrec_eval.parse_qrel(f)
        ev = pytrec_eval.RelevanceEvaluator(q, {{"map", "recip_rank", "P.10", "ndcg_cut.10", "Rprec"}})
        s, n = 0.0, 0
        for p in files:
            with open(p) as f:
                res = ev.evaluate(pytrec_eval.parse_run(f))
            s += sum(v["map"] for v in res.values()); n += len(res)
        out["check"] = s / max(n, 1)
else:
    import tempfile
    from ranx import Qrels, Run, evaluate
    ms = ["map", "mrr", "precision@10", "ndcg@10", "r-precision"]
    with tempfile.TemporaryDirectory() as d:  # numba warm-up, not counted
        open(d + "/q", "w").write("1 0 a 1\n"); open(d + "/r", "w").write("1 Q0 a 1 1.0 x\n")
        evaluate(Qrels.from_file(d + "/q", kind="trec"), Run.from_file(d + "/r", kind="trec"), ms, make_comparable=True)
    def work():
        q = Qrels.from_file(qrels, kind="trec")
        s = 0.0
        for p in files:
            s += evaluate(q, Run.from_file(p, kind="trec"), ms, make_comparable=True)["map"]
        out["check"] = s / len(files)
done = harness.measure(work)           # after the imports: the work alone
out["cpu"], out["wall"] = done.cpu, done.wall
out["peak_mb"] = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")][0] / 1024
print(json.dumps(out))
'''


def measure(tool: str, qrels: Path, runs: Path, timeout: float) -> dict:
    code = _CHILD.format(root=str(ROOT), bench=str(ROOT / "benchmarks"), tool=tool, qrels=str(qrels), runs=str(runs))
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def warm(qrels: Path, runs: Path) -> None:
    """Read every file once (page cache), so that neither tool pays the first read from disk."""
    for p in [qrels, *sorted(runs.iterdir())]:
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summarise(ms: list[dict]) -> dict:
    """The median of each number over the rounds (or the first error)."""
    ok = [m for m in ms if "error" not in m]
    if not ok:
        return ms[0]
    out = dict(ok[0])
    for key in ("cpu", "wall", "peak_mb", "load_cpu", "load_wall"):
        if key in ok[0]:
            out[key] = median([m[key] for m in ok])
    out["rounds"] = ms
    return out


def collections(root: Path) -> list[tuple[str, Path, Path, int]]:
    """(label, qrels, runs dir, lines) for every generated size, curve shape first."""
    out = []
    for shape_dir in sorted(root.glob("*x*x*-s*"), key=lambda p: (not p.name.startswith("100x250x1000"), p.name)):
        _, topics, depth = (int(x) for x in shape_dir.name.split("-")[0].split("x"))
        sizes = sorted((d for d in shape_dir.iterdir() if d.is_dir() and d.name.endswith("M")),
                       key=lambda d: float(d.name[:-1]))
        for d in sizes:
            n_runs = len(list(d.iterdir()))
            long_ids = ", long ids" if shape_dir.name.endswith("-prefixed") else ""  # (gen_scale.py --doc-prefix)
            out.append((f"{n_runs} x {topics} x {depth}{long_ids}", shape_dir / "qrels.txt", d,
                        n_runs * topics * depth))
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path("/tmp/evalcore_scale"))
    ap.add_argument("--tools", default="evalcore,pytrec_eval,ranx")
    ap.add_argument("--only", help="only collections whose runs directory path contains this text")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per measurement (default 900)")
    ap.add_argument("--ranx-max-lines", type=float, default=6e6,
                    help="measure ranx only on collections up to this many lines (default 6e6; it is slow)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measurements per tool and collection, interleaved (default 1); medians are reported")
    ap.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    result = harness.Result("scale", argv, {k: getattr(args, k) for k in ("tools", "only", "timeout",
                                                                          "ranx_max_lines", "rounds")},
                            script=__file__)
    tools = [t for t in args.tools.split(",") if t]
    cols = [c for c in collections(args.root) if not args.only or args.only in str(c[2])]
    if not cols:
        raise SystemExit(f"no collections under {args.root}: run benchmarks/gen_scale.py first")
    res = {}
    for label, qrels, runs, lines in cols:
        row = {"label": label, "lines": lines, "qrels_mb": qrels.stat().st_size / 2**20}
        warm(qrels, runs)
        here = [t for t in tools if not (t == "ranx" and lines > args.ranx_max_lines)]
        for t in tools:
            if t not in here:
                row[t] = {"error": "not run (--ranx-max-lines)"}
        # every tool once per round, the order reversed on every other round (benchmarks/harness.py)
        got = harness.rounds({t: (lambda t=t, q=qrels, r=runs: measure(t, q, r, args.timeout)) for t in here},
                             args.rounds, warmup=0, alternate=True)
        ratios = []
        for i in range(args.rounds):
            for t in here:
                print(f"{label} ({lines / 1e6:g} M lines) round {i + 1} {t}: {got.samples[t][i].result}",
                      file=sys.stderr, flush=True)
            e = got.samples["evalcore"][i].result if "evalcore" in here else {}
            p = got.samples["pytrec_eval"][i].result if "pytrec_eval" in here else {}
            if "cpu" in e and "cpu" in p:
                ratios.append((p["cpu"] / e["cpu"], p["wall"] / e["wall"]))
                print(f"{label} round {i + 1}: pytrec_eval / evalcore = {ratios[-1][0]:.2f}x CPU "
                      f"({ratios[-1][1]:.2f}x wall)", file=sys.stderr, flush=True)
        for t in here:
            row[t] = summarise([smp.result for smp in got.samples[t]])
        row["ratios"] = ratios
        res[str(runs)] = row
    head = (f"{os.cpu_count()} cores; CPU = user + system seconds of the work (after imports); peak = VmHWM of the "
            "process\n\n" + (f"medians of {args.rounds} interleaved rounds; " if args.rounds > 1 else "")
            + "ratio range = lowest-highest per-round ratio")
    rows = []
    for row in res.values():
        cells = {}
        for t in tools:
            m = row[t]
            cells[t] = m["error"] if "error" in m else f"{m['cpu']:.1f} / {m['wall']:.1f} / {m['peak_mb']:.0f}"
        e = row.get("evalcore", {})
        rs = row["ratios"]
        rows.append({"collection": row["label"], "lines_m": row["lines"] / 1e6, **cells,
                     "bound": f"{3 * (e['tensor_mb'] + row['qrels_mb']) + 300:.0f} MB" if "tensor_mb" in e else "",
                     "ratio": (f"{median([r[0] for r in rs]):.2f}x ({median([r[1] for r in rs]):.2f}x)" if rs else ""),
                     "spread": (f"{min(r[0] for r in rs):.2f}-{max(r[0] for r in rs):.2f}x "
                                f"({min(r[1] for r in rs):.2f}-{max(r[1] for r in rs):.2f}x)" if rs else ""),
                     "raw": row})
    notes = []
    curve = [r for r in res.values() if r["label"].endswith(" x 250 x 1000") and "cpu" in r.get("evalcore", {})]
    if len(curve) >= 2:
        a, b = curve[0], curve[-1]
        k = b["lines"] / a["lines"]
        notes.append(f"evalcore linearity: {b['lines'] / 1e6:g} M lines took "
                     f"{b['evalcore']['cpu'] / a['evalcore']['cpu']:.2f}x "
                     f"the CPU of {a['lines'] / 1e6:g} M ({k:.1f}x the lines; target <= {1.3 * k:.1f}x)")
    c = harness.col
    print(result.table([c("collection"), c("lines", "{:.1f} M", "lines_m"),
                        *(c(f"{t} CPU s / wall s / peak MB", "{}", t) for t in tools),
                        c("evalcore RSS bound", "{}", "bound"), c("pytrec_eval / evalcore CPU (wall)", "{}", "ratio"),
                        c("CPU ratio range (wall)", "{}", "spread")], rows, title=head, notes=notes))
    result.save(args)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
