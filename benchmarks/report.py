"""docs/benchmarks.md's marked tables, made from the result files under benchmarks/results/.

    python benchmarks/report.py             # rewrite every marked block of docs/benchmarks.md
    python benchmarks/report.py --check     # exit 1 if a block differs from its result or a result is malformed
    python benchmarks/report.py --list      # every benchmark's results, newest last

A marked block is two HTML comments (each on a line of its own) and what lies between them::

    <!-- bench:NAME -->          the newest result of NAME: the largest ID of benchmarks/results/NAME/ID.json
    <!-- bench:NAME@ID -->       that one result file: a historical record, which a new run does not change
    <!-- bench:NAME#TABLE -->    (with either) only the table TABLE of the result
    ...                          replaced: each table (title, markdown, notes) and a line naming the file
    <!-- /bench:NAME -->         the same spec as the opening comment

Everything outside the blocks is prose and stays as written. The result files are written by the benchmarks
themselves (benchmarks/harness.py, ``Result.save``); ``--check`` also validates every file, so the test suite
(tests/test_bench_harness.py) fails when docs and results disagree: after a run, commit its result file with the
regenerated docs (or run with ``--no-save``, or delete the file, if it was a trial).
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

DOCS = harness.ROOT / "docs" / "benchmarks.md"
OPEN = re.compile(r"^<!-- bench:(?P<name>[\w.-]+)(?:@(?P<id>[\w.-]+))?(?:#(?P<table>[\w.-]+))? -->$")
CLOSE = "<!-- /bench:{} -->"


def load_results(directory: Path) -> tuple[dict[str, dict[str, dict]], list[str]]:
    """{name: {id: result}} of every ``NAME/ID.json`` under ``directory``, and the problems found."""
    out: dict[str, dict[str, dict]] = {}
    problems = []
    for path in sorted(directory.glob("*/*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            harness.validate(data)
        except (OSError, ValueError) as e:
            problems.append(f"{path}: {e}")
            continue
        if data["name"] != path.parent.name or data["id"] != path.stem:
            problems.append(f"{path}: name {data['name']!r} / id {data['id']!r} do not match the file's place")
            continue
        data["_path"] = path
        out.setdefault(data["name"], {})[data["id"]] = data
    return out, problems


def provenance(result: dict, docs: Path) -> str:
    path = Path(result["_path"])
    shown = harness.repo_path(path)
    link = f"[{shown}]({Path(os.path.relpath(path, docs.parent)).as_posix()})"
    env = result["environment"]
    if result["origin"] == harness.IMPORTED:
        return f"Result file: {link}: numbers imported from this page's hand-written table, not re-run."
    commit = (env.get("commit") or "?")[:7] + (" with local changes" if env.get("dirty") else "")
    load = env.get("loadavg") or []
    when = result["created"][:16].replace("T", " ")
    return (f"Result file: {link}: `{result['command']}` at commit {commit}, {when} UTC, "
            f"{env.get('cores')} cores ({env.get('cpu')}), load average {load[0] if load else '?'} at the start.")


def block(result: dict, table: str | None, docs: Path) -> str:
    tables = [t for t in result["tables"] if table in (None, t["id"])]
    if not tables:
        raise KeyError(f"result {result['name']}/{result['id']} has no table {table!r} "
                       f"(it has {', '.join(t['id'] for t in result['tables'])})")
    parts = [harness.render_table(result, t) for t in tables]
    return "\n\n".join(parts + [provenance(result, docs)])


def generate(text: str, results: dict[str, dict[str, dict]], docs: Path) -> tuple[str, list[str]]:
    """``text`` with every marked block made anew, and the problems (unknown results, unclosed blocks)."""
    lines = text.split("\n")
    out: list[str] = []
    problems: list[str] = []
    i = 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        spec = m.group(0)[len("<!-- bench:"):-len(" -->")]
        close = CLOSE.format(spec)
        try:
            end = lines.index(close, i)
        except ValueError:
            problems.append(f"line {i}: {m.group(0)} has no {close} after it")
            continue
        name, rid, table = m.group("name"), m.group("id"), m.group("table")
        found = results.get(name, {})
        result = found.get(rid) if rid else (found[max(found)] if found else None)
        if result is None:
            problems.append(f"line {i}: no result {name}" + (f"@{rid}" if rid else "") + " under benchmarks/results/")
            out.extend(lines[i:end + 1])
        else:
            try:
                out.extend(["", block(result, table, docs), "", close])
            except KeyError as e:
                problems.append(f"line {i}: {e.args[0]}")
                out.extend(lines[i:end + 1])
        i = end + 1
    return "\n".join(out), problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if the docs are not current")
    ap.add_argument("--list", action="store_true", help="list the result files")
    ap.add_argument("--docs", type=Path, default=DOCS, help="the page to make (default docs/benchmarks.md)")
    ap.add_argument("--results", type=Path, default=harness.RESULTS, help="the result files (default "
                                                                          "benchmarks/results)")
    args = ap.parse_args(argv)
    results, problems = load_results(args.results)
    if args.list:
        for name in sorted(results):
            for rid, r in sorted(results[name].items()):
                print(f"{name:24s} {rid:32s} {r['origin']:20s} {r['command']}")
        return 1 if problems else 0
    text = args.docs.read_text(encoding="utf-8")
    new, found = generate(text, results, args.docs)
    problems += found
    for p in problems:
        print(f"report.py: {p}", file=sys.stderr)
    if new == text:
        if args.check and not problems:
            print(f"{harness.repo_path(args.docs)}: every marked table agrees with its result file")
        return 1 if problems else 0
    if args.check:
        diff = difflib.unified_diff(text.splitlines(), new.splitlines(), "docs as committed", "made from results",
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:80]))
        print(f"\n{harness.repo_path(args.docs)} differs from the result files: run python benchmarks/report.py "
              "(or remove a trial run's result file)", file=sys.stderr)
        return 1
    args.docs.write_text(new, encoding="utf-8")
    print(f"{harness.repo_path(args.docs)}: marked tables made anew from {harness.repo_path(args.results)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
