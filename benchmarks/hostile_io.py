"""The issue-11 hostile inputs, each loaded in a fresh process: outcome, CPU and peak memory.

    python benchmarks/hostile_io.py            # every case, a table for docs/reliability.md
    python benchmarks/hostile_io.py --case gzip_bomb_1g

Peak memory is the child's own VmHWM (peak RSS) minus its RSS just before the
load (imports and the input bytes already in memory), so it is what the
loader itself took.
"""
from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
MiB = 1 << 20

Q1 = ("q.txt", b"q1 0 d1 1\nq1 0 d2 1\n")
R1 = [("r.txt", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n")]


def _zip(members: dict) -> bytes:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as zf:
        for k, v in members.items():
            zf.writestr(k, v)
    return b.getvalue()


def cases() -> dict:
    from bombs import gzip_bomb, zip_bomb

    deep_q = b"".join(b"t%d 0 d 1\n" % i for i in range(100_000))
    deep_r = (b"".join(b"t%d Q0 d 1 1 x\n" % i for i in range(100_000))
              + b"".join(b"t0 Q0 e%d %d %d x\n" % (i, i, -i) for i in range(19_999)))
    return {
        "label_2**63": lambda: ((("q.txt", b"q1 0 d1 " + str(2 ** 63).encode() + b"\n"), R1), {}),
        "label_10**9": lambda: ((("q.txt", b"q1 0 d1 1000000000\n"), R1), {}),
        "label_10**6": lambda: ((("q.txt", b"q1 0 d1 1000000\n"), R1), {}),
        "label_128": lambda: ((("q.txt", b"q1 0 d1 128\nq1 0 d2 1\n"), R1), {}),
        "label_300": lambda: ((("q.txt", b"q1 0 d1 300\n"), R1), {}),
        "score_nan": lambda: ((Q1, [("r.txt", b"q1 Q0 d1 1 nan x\n")]), {}),
        "score_1e999": lambda: ((Q1, [("r.txt", b"q1 Q0 d1 1 1e999 x\n")]), {}),
        "score_unicode_digits": lambda: ((Q1, [("r.txt", "q1 Q0 d1 1 \u0661\u0662 x\n".encode())]), {}),
        "gzip_bomb_1g": lambda: ((Q1, [("run.txt.gz", gzip_bomb(1024))]), {}),
        "gzip_bomb_4g": lambda: ((Q1, [("run.txt.gz", gzip_bomb(4096))]), {}),
        "zip_bomb_10x1g": lambda: ((Q1, ("runs.zip", zip_bomb(1024, members=10))), {}),
        "zip_bomb_5g_member": lambda: ((Q1, ("runs.zip", zip_bomb(5000))), {}),
        "zip_holding_gzip_bomb": lambda: ((Q1, ("runs.zip", _zip({"a.txt.gz": gzip_bomb(1024)}))), {}),
        "zip_nested_bomb_and_bad_members": lambda: ((Q1, ("runs.zip", _zip({
            "a.txt": R1[0][1], "inner.zip": zip_bomb(1024, members=4), "../x.txt": b"x", "/abs.txt": b"x",
            "README.md": b"hi"}))), {}),
        "deep_topic_among_100k": lambda: ((("q.txt", deep_q), [("r.txt", deep_r)]), {}),
        "deep_topic_among_100k_depth_1000": lambda: ((("q.txt", deep_q), [("r.txt", deep_r)]), {"depth": 1000}),
        "line_32mb": lambda: ((Q1, [("r.txt", b"q1 Q0 d1 1 1 x\n" + b"x" * (32 * MiB) + b"\n")]), {}),
        "digits_32mb": lambda: ((Q1, [("r.txt", b"q1 Q0 d1 1 " + b"7" * (32 * MiB) + b"z x\n")]), {}),
        "doubled_bom": lambda: (((Q1[0], b"\xef\xbb\xbf" * 2 + Q1[1]),
                                 [("r.txt", b"\xef\xbb\xbf" * 2 + b"q1\tQ0 d1 1 1 x\n")]), {}),
    }


def _rss(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def child(name: str) -> None:
    from evalcore.io import InputError, load_collection

    (qrels, runs), kw = cases()[name]()
    Path("/proc/self/clear_refs").write_text("5")   # reset VmHWM to the current RSS
    base = _rss("VmRSS")
    t = time.process_time()
    try:
        c = load_collection(qrels, runs, **kw)
        outcome = f"Collection {c.n_runs}x{c.n_topics}x{c.depth}; {len(c.report.warnings)} note(s)"
        first = (c.report.warnings or [""])[0]
    except InputError as e:
        outcome, first = "InputError", str(e).splitlines()[0]
    except Exception as e:  # noqa: BLE001 - reported as the failure it is
        outcome, first = f"FAILURE {type(e).__name__}", str(e)[:200]
    cpu = time.process_time() - t
    print(json.dumps({"case": name, "outcome": outcome, "message": first[:160], "cpu": cpu,
                      "peak_mib": (_rss("VmHWM") - base) / MiB}))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case")
    args = ap.parse_args()
    if args.case:
        child(args.case)
        return 0
    print("| case | outcome | loader's peak memory (MiB) | CPU (s) | message (first line) |")
    print("|---|---|---:|---:|---|")
    bad = 0
    for name in cases():
        r = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True, text=True, timeout=600,
                           check=False)
        try:
            d = json.loads(r.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            d = {"outcome": f"FAILURE (exit {r.returncode})", "message": r.stderr[-200:], "cpu": 0, "peak_mib": 0}
        bad += d["outcome"].startswith("FAILURE")
        msg = d["message"].replace("|", "\\|")
        print(f"| {name} | {d['outcome']} | {d['peak_mib']:.1f} | {d['cpu']:.2f} | {msg} |")
    print(f"\nfailures: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
