"""Hostile inputs, each loaded in a fresh process: outcome, CPU and peak memory.

    python benchmarks/hostile_io.py            # every case, a table for docs/reliability.md
    python benchmarks/hostile_io.py --case gzip_bomb_1g
    python benchmarks/hostile_io.py --set large --mb 92    # the large valid and hostile files
    EVALCORE_ROOT=/path/to/other/checkout python benchmarks/hostile_io.py --set large   # another version

Two sets: ``small`` (labels, scores, bombs, deep topics, long lines) and ``large`` (files of ``--mb``
MB each, under the app's limits: an NTCIR qrels (valid, or with a bad last line: the line loop), TREC
qrels with an ir_metadata header or a repeated line, a run with a bad last line or a repeated document, a
zip of 1 M members, 500 small ``.gz`` runs that expand to 8 GiB).

``--stage parse`` measures parsing alone (``read_qrels`` of a large qrels, ``read_run`` of a single
large run; other cases load); ``--stage both`` (the default for ``--set large``) prints both peaks.

Peak memory is the child's own VmHWM (peak RSS) minus its RSS just before the
load (imports and the input bytes already in memory), so it is what the
loader itself took. The load's CPU is timed with benchmarks/harness.py; the table
goes to benchmarks/results/hostile_io/.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, os.environ.get("EVALCORE_ROOT", str(ROOT)))   # the evalcore measured
sys.path.insert(1, str(ROOT / "benchmarks"))
import harness  # noqa: E402

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


def _text(mb: int, line, tail: bytes = b"", head: bytes = b"") -> bytes:
    """About ``mb`` MB of lines ``line(i)`` (bytes), with ``head`` before and ``tail`` after them."""
    n = mb * 1_000_000 // len(line(10**6))
    return head + b"".join(line(i) for i in range(n)) + tail


def large_cases(mb: int) -> dict:
    """Files of about ``mb`` MB each, loaded under the app's limits."""
    import gzip

    from bombs import many_member_zip

    from evalcore.io import APP_LIMITS

    app = {"limits": APP_LIMITS}
    run1 = [("r.txt", b"1 Q0 doc-00000001 1 1.0 x\n")]
    qrels_line = lambda i: b"%d 0 doc-%08d %d\n" % (i % 1000, i, i % 3)   # noqa: E731
    one_16mib = gzip.compress(b"1 Q0 doc-00000001 1 1.0 x\n" * (16 * MiB // 27), 1)
    return {
        "ntcir_qrels": lambda: (((f"qrels-{mb}mb.txt", _text(mb, lambda i: b"T%04d doc-%08d L%d\n"
                                                              % (i % 1000, i, i % 3))), run1), app),
        "trec_qrels_comment_header": lambda: (((f"qrels-{mb}mb.txt", _text(mb, qrels_line, head=b"# ir_metadata: "
                                                                            b"a header line\n" * 20)), run1), app),
        "trec_qrels_repeated_line": lambda: (((f"qrels-{mb}mb.txt", _text(mb, qrels_line, tail=qrels_line(7))),
                                              run1), app),
        "ntcir_qrels_bad_last_line": lambda: (((f"qrels-{mb}mb.txt", _text(mb, lambda i: b"T%04d doc-%08d L%d\n"
                                                                    % (i % 1000, i, i % 3), tail=b"T0001 doc-x Lx\n")),
                                               run1), app),
        "run_repeated_doc": lambda: ((("q.txt", b"1 0 doc-00000001 1\n"), [(f"run-{mb}mb.txt", _text(
            mb, lambda i: b"%d Q0 doc-%08d %d %d x\n" % (i % 1000, i, i + 1, -i), tail=b"7 Q0 doc-00000007 1 1 x\n"))]),
                                     app),
        "run_bad_last_line": lambda: ((("q.txt", b"1 0 doc-00000001 1\n"), [(f"run-{mb}mb.txt", _text(
            mb, lambda i: b"%d Q0 doc-%08d %d %d x\n" % (i % 1000, i, i + 1, -i), tail=b"1 Q0 bad\n"))]), app),
        "zip_1m_members": lambda: ((("q.txt", b"1 0 doc-00000001 1\n"), ("runs.zip", many_member_zip(1_000_000))),
                                   app),
        "gz_500_runs_8gib": lambda: ((("q.txt", b"1 0 doc-00000001 1\n"),
                                      [(f"r{i}.txt.gz", one_16mib) for i in range(500)]),
                                     {**app, "keep_first_duplicate": True}),
    }


def _rss(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def child(name: str, mb: int, stage: str = "load") -> None:
    from evalcore.io import InputError, load_collection, read_qrels, read_run

    (qrels, runs), kw = {**cases(), **large_cases(mb)}[name]()
    text = sum(len(x[1]) for x in [qrels, *(runs if isinstance(runs, list) else [runs])])
    Path("/proc/self/clear_refs").write_text("5")   # reset VmHWM to the current RSS
    base = _rss("VmRSS")

    def load() -> tuple[str, str]:
        try:
            if stage == "parse" and len(qrels[1]) > MiB:
                q = read_qrels(qrels, limits=kw.get("limits"))
                return f"Qrels {len(q.frame)} judgments; {len(q.warnings)} note(s)", (q.warnings or [""])[0]
            if stage == "parse" and isinstance(runs, list) and len(runs) == 1:
                r = read_run(runs[0], limits=kw.get("limits"))
                return f"Run {len(r.docs)} rows; {len(r.warnings)} note(s)", (r.warnings or [""])[0]
            c = load_collection(qrels, runs, **kw)
            return (f"Collection {c.n_runs}x{c.n_topics}x{c.depth}; {len(c.report.warnings)} note(s)",
                    (c.report.warnings or [""])[0])
        except InputError as e:
            return "InputError", str(e).splitlines()[0]
        except Exception as e:  # noqa: BLE001 - reported as the failure it is
            return f"FAILURE {type(e).__name__}", str(e)[:200]
    done = harness.measure(load)
    (outcome, first), cpu = done.result, done.cpu
    print(json.dumps({"case": name, "outcome": outcome, "message": first[:160], "cpu": cpu,
                      "peak_mib": (_rss("VmHWM") - base) / MiB, "text_mb": text / 1e6}))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case")
    ap.add_argument("--set", choices=("small", "large", "all"), default="small")
    ap.add_argument("--mb", type=int, default=92, help="size of each large file (MB)")
    ap.add_argument("--stage", choices=("load", "parse", "both"), help="load_collection (default for the small "
                    "set), parsing alone, or both (default for the large set)")
    harness.add_options(ap)
    args = ap.parse_args()
    if args.case:
        child(args.case, args.mb, args.stage or "load")
        return 0
    stages = [args.stage or ("both" if args.set == "large" else "load")]
    if stages == ["both"]:
        stages = ["parse", "load"]
    names = {"small": list(cases()), "large": list(large_cases(args.mb)), "all": [*cases(), *large_cases(args.mb)]}
    res = harness.Result("hostile_io", None, {"set": args.set, "mb": args.mb, "stage": args.stage,
                                             "evalcore_root": os.environ.get("EVALCORE_ROOT")}, script=__file__)
    rows = []
    bad = 0
    for name, stage in [(n, st) for n in names[args.set] for st in stages]:
        r = subprocess.run([sys.executable, __file__, "--case", name, "--mb", str(args.mb), "--stage", stage],
                           capture_output=True, text=True, timeout=1200, check=False)
        try:
            d = json.loads(r.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            d = {"outcome": f"FAILURE (exit {r.returncode})", "message": r.stderr[-200:], "cpu": 0, "peak_mib": 0,
                 "text_mb": 0}
        bad += d["outcome"].startswith("FAILURE")
        d["message"] = d["message"].replace("|", "\\|")
        d["ratio"] = d["peak_mib"] * MiB / (d["text_mb"] * 1e6) if d.get("text_mb") else 0
        d["label"] = f"{name} (parse)" if stage == "parse" else name
        rows.append(d)
        print(harness.markdown(COLUMNS, rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(res.table(COLUMNS, rows, notes=[f"failures: {bad}"]))
    res.save(args)
    return 1 if bad else 0


COLUMNS = [harness.col("case", "{}", "label"), harness.col("input (MB)", "{:.1f}", "text_mb", right=True),
           harness.col("outcome"), harness.col("loader's peak memory (MiB)", "{:.1f}", "peak_mib", right=True),
           harness.col("peak / input", "{:.1f}", "ratio", right=True),
           harness.col("CPU (s)", "{:.2f}", "cpu", right=True),
           harness.col("message (first line)", "{}", "message")]


if __name__ == "__main__":
    raise SystemExit(main())
