"""The one benchmark harness: timing, the machine it ran on, and one JSON result file per run.

Every script in benchmarks/ times with :func:`measure` / :func:`rounds`, and ends with a :class:`Result`
saved under ``benchmarks/results/NAME/ID.json``; ``python benchmarks/report.py`` makes the marked tables of
docs/benchmarks.md from those files (``--check``: they agree). A script does three things::

    import harness
    res = harness.Result("peer", argv, params={"repeat": 5})          # the machine, the command line
    got = harness.rounds({"evalcore": harness.command([...]),           # interleaved rounds
                          "pytrec_eval": harness.command([...])}, repeat=5)
    res.add_rounds(got)
    print(res.table([harness.col("command", key="name"), harness.col("CPU s", "{:.2f}", "cpu")], rows))
    res.save(args)                                                    # benchmarks/results/peer/<UTC time>.json

**Why our own module, not pyperf, pytest-benchmark or asv.** Most of what these scripts time is not a
function called many times in one interpreter: fresh processes of evalcore's CLI beside a pytrec_eval script
and the trec_eval binary (CPU of children), a worker pool (CPU of live child processes), an AppTest session
or a Streamlit server (a move's CPU, a latency percentile), valgrind's instruction counts. What they share is
a discipline for a 2-core machine shared with other work, where absolute times move by 10-30 % from one
minute to the next: every contender once per round, rounds interleaved (the order reversed on every other
round when asked, so that neither always runs first), CPU seconds beside wall seconds (CPU hardly moves with
the neighbours' load), ratios taken *within* each round, medians with min and max. pyperf times one
benchmark at a time (a statement, a function or a command) in worker processes it spawns and calibrates, and
contenders are compared across separate runs, not round by round; pytest-benchmark times functions inside
pytest, and this project's rule is that speed is never a unit test; asv builds an environment per commit and
runs suites of its own layout, which needs a network and fits none of these scripts. Each would be a
dependency that does one slice of this and none of the interleaving, the children's CPU or the docs tables;
this module is a few hundred lines of the standard library (psutil, optional, for live children).

**Environment**: the CPU model, cores (and those this process may use), memory, load average when the run
started and ended, Python and the versions of numpy, pandas, pyarrow, scipy, streamlit and the peers that
are installed (read from their metadata, nothing imported), the BLAS / evalcore variables of the
environment, and the git commit (with ``dirty`` when tracked files differ from it).

**Result file** (schema ``evalcore-bench/1``, checked by :func:`validate`): ``name``, ``id`` (the UTC start
time, ``20261129T071127Z``; an import of older numbers: ``YYYYMMDD-docs-...``), ``script``, ``command``,
``argv``, ``created``, ``origin`` (``measured`` or ``imported from docs``), ``note``, ``params``,
``environment``, ``rows`` (the measured numbers, one dict each; with several tables a row's ``table`` names
its table), ``tables`` (how rows are shown: id, title, columns, notes) and ``rounds`` (every sample: wall,
cpu, child_cpu per contender and round), so a table can be re-drawn or re-read without re-running.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SCHEMA = "evalcore-bench/1"
MEASURED, IMPORTED = "measured", "imported from docs"
#: distributions whose versions a result records when installed (metadata only: nothing is imported)
PACKAGES = ("numpy", "pandas", "pyarrow", "scipy", "streamlit", "plotly", "pytrec-eval-terrier", "ranx",
            "evalcore-ir")
#: environment variables that change what a benchmark measures
ENV_PREFIXES = ("OPENBLAS_", "OMP_", "MKL_", "EVALCORE_", "MALLOC_", "PYTHONDONTWRITEBYTECODE")


# -- timing ---------------------------------------------------------------------------------------------
@dataclass
class Sample:
    """One timed call: wall seconds, this process's CPU seconds (user + system, every thread), the CPU of
    its child processes during the call, and what the call returned."""

    wall: float
    cpu: float
    child_cpu: float = 0.0
    result: Any = field(default=None, repr=False, compare=False)

    @property
    def all_cpu(self) -> float:
        return self.cpu + self.child_cpu

    def as_dict(self) -> dict:
        return {"wall": self.wall, "cpu": self.cpu, "child_cpu": self.child_cpu}


def _waited_children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def live_children_cpu() -> float:
    """CPU seconds of this process's child processes that are still alive (a worker pool): psutil, else 0."""
    try:
        import psutil
    except ImportError:
        return 0.0
    total = 0.0
    for ch in psutil.Process().children(recursive=True):
        try:
            t = ch.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


def measure(fn: Callable[[], Any], *, live_children: bool = False) -> Sample:
    """Time one call of ``fn``. ``child_cpu`` counts the children waited for during the call
    (``subprocess.run``: ``RUSAGE_CHILDREN``) and, with ``live_children``, those still running (a pool's
    workers, through psutil)."""
    k0 = _waited_children_cpu() + (live_children_cpu() if live_children else 0.0)
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    t1, c1 = time.perf_counter(), time.process_time()
    k1 = _waited_children_cpu() + (live_children_cpu() if live_children else 0.0)
    return Sample(t1 - t0, c1 - c0, k1 - k0, out)


def command(cmd: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: Path | str = ROOT,
            quiet_stderr: bool = False, check: bool = True) -> Callable[[], subprocess.CompletedProcess]:
    """A contender that runs ``cmd`` in a fresh process, its output to /dev/null (time it with :func:`measure`:
    its CPU is ``child_cpu``)."""
    cmd = [str(c) for c in cmd]

    def run() -> subprocess.CompletedProcess:
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if quiet_stderr else None,
                              check=check, env=dict(env) if env is not None else None, cwd=cwd)
    run.cmd = cmd  # type: ignore[attr-defined]
    return run


def commands(cmds: Iterable[Sequence[str]], **kw) -> Callable[[], None]:
    """A contender that runs several commands one after the other (one trec_eval call per run file)."""
    runs = [command(c, **kw) for c in cmds]

    def run() -> None:
        for r in runs:
            r()
    return run


@dataclass(frozen=True)
class Stats:
    median: float
    min: float
    max: float
    n: int

    def as_dict(self) -> dict:
        return {"median": self.median, "min": self.min, "max": self.max, "n": self.n}


def stats(xs: Iterable[float]) -> Stats:
    xs = list(xs)
    if not xs:
        nan = float("nan")
        return Stats(nan, nan, nan, 0)
    return Stats(statistics.median(xs), min(xs), max(xs), len(xs))


def percentile(xs: Iterable[float], q: float) -> float:
    """The ``q`` quantile (0..1) as the nearest sample (no interpolation: a p95 is a move someone waited)."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))] if xs else float("nan")


class Rounds:
    """Samples of each contender, one per round, in round order."""

    def __init__(self, names: Iterable[str]):
        self.samples: dict[str, list[Sample]] = {n: [] for n in names}

    def values(self, name: str, what: str = "wall") -> list[float]:
        """``what``: ``wall``, ``cpu`` (this process), ``child_cpu`` or ``all_cpu`` (both)."""
        return [getattr(s, what) for s in self.samples[name]]

    def stats(self, name: str, what: str = "wall") -> Stats:
        return stats(self.values(name, what))

    def best(self, name: str, what: str = "wall") -> Sample:
        return min(self.samples[name], key=lambda s: getattr(s, what))

    def ratios(self, num: str, den: str, what: str = "cpu") -> list[float]:
        """``num / den`` within each round (both ran under the same load there)."""
        return [getattr(a, what) / getattr(b, what) if getattr(b, what) else float("nan")
                for a, b in zip(self.samples[num], self.samples[den], strict=True)]

    def as_dict(self) -> dict:
        return {n: [s.as_dict() for s in ss] for n, ss in self.samples.items()}


def rounds(contenders: Mapping[str, Callable[[], Any]], repeat: int, *, warmup: int = 1, alternate: bool = False,
           live_children: bool = False, progress: bool = False) -> Rounds:
    """Every contender once per round, ``repeat`` rounds, after ``warmup`` untimed calls of each (page cache,
    bytecode, lazy imports). With ``alternate`` the order is reversed on every other round (A B, B A, A B,
    ...), so that neither contender always runs right after the other. ``progress`` prints each sample to
    standard error."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1; got {repeat}")
    names = list(contenders)
    for _ in range(warmup):
        for fn in contenders.values():
            fn()
    out = Rounds(names)
    for i in range(repeat):
        for name in (names[::-1] if alternate and i % 2 else names):
            s = measure(contenders[name], live_children=live_children)
            out.samples[name].append(s)
            if progress:
                print(f"round {i + 1}/{repeat} {name}: {s.wall:.3f} s wall, {s.cpu:.3f} s CPU, "
                      f"{s.child_cpu:.3f} s children's CPU", file=sys.stderr, flush=True)
    return out


# -- the machine ----------------------------------------------------------------------------------------
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _git(*args: str) -> str | None:
    try:
        r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def _versions() -> dict[str, str]:
    from importlib import metadata
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def environment() -> dict:
    """Where and on what a run ran (see the module docstring)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:                                   # not Linux
        usable = os.cpu_count()
    commit = _git("rev-parse", "HEAD")
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "cpu": cpu_model(), "cores": os.cpu_count(), "usable_cores": usable, "memory_gb": _memory_gb(),
        "machine": platform.machine(), "system": platform.platform(terse=True),
        "loadavg": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(), "packages": _versions(),
        "env": {k: v for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)},
        "commit": commit, "dirty": bool(dirty) if commit is not None else None,
    }


# -- tables ---------------------------------------------------------------------------------------------
def col(title: str, fmt: str | Sequence[str] = "{}", key: str | None = None, *, right: bool = False) -> dict:
    """A column: ``fmt`` is a ``str.format`` template; ``{}`` (or ``{:.2f}``) is the row's ``key`` (default: the
    title), named fields (``{cpu_min:.2f}``) are other keys of the row; a list of templates: the first that
    the row fills (``["{:.2f}x ({first:.2f}x)", "{:.2f}x"]``: the bracket only where the row has ``first``).
    A list value is shown item by item, comma-separated; a missing value leaves the cell empty."""
    return {"title": title, "key": title if key is None else key, "format": fmt, "right": right}


def cell(row: Mapping, column: Mapping) -> str:
    value = row.get(column["key"])
    fmts = column.get("format", "{}")
    for fmt in [fmts] if isinstance(fmts, str) else fmts:
        try:
            if isinstance(value, list):
                return ", ".join(fmt.format(x, **row) for x in value)
            text = fmt.format(value, **row)
        except (KeyError, IndexError, TypeError, ValueError):
            continue
        return "" if value is None and text == "None" else text
    return ""


def markdown(columns: Sequence[Mapping], rows: Iterable[Mapping]) -> str:
    lines = ["| " + " | ".join(c["title"] for c in columns) + " |",
             "|" + "|".join("---:" if c.get("right") else "---" for c in columns) + "|"]
    lines += ["| " + " | ".join(cell(r, c) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def render_table(result: Mapping, table: Mapping) -> str:
    """A table of a result (a dict as saved): its title, the markdown table and its notes, blank-line apart."""
    tid = table["id"]
    first = result["tables"][0]["id"]
    rows = [r for r in result["rows"] if r.get("table", first) == tid]
    parts = ([table["title"]] if table.get("title") else []) + [markdown(table["columns"], rows)]
    return "\n\n".join(parts + list(table.get("notes", ())))


# -- results --------------------------------------------------------------------------------------------
class Result:
    """One run of one benchmark: what ran, where, and its rows; :meth:`save` writes it as JSON."""

    def __init__(self, name: str, argv: Sequence[str] | None = None, params: Mapping | None = None, *,
                 script: str | Path | None = None, origin: str = MEASURED, note: str = "", run_id: str | None = None,
                 env: Mapping | None = None):
        script = repo_path(Path(script)) if script else _script_path()
        argv = list(sys.argv[1:] if argv is None else argv)
        self.started = time.time()
        self.data: dict[str, Any] = {
            "schema": SCHEMA, "name": name, "id": run_id or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()),
            "script": script, "command": shlex.join(["python", script, *argv]), "argv": argv,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "origin": origin, "note": note,
            "params": dict(params or {}), "environment": dict(env) if env is not None else environment(),
            "rows": [], "tables": [], "rounds": {},
        }

    @property
    def name(self) -> str:
        return self.data["name"]

    def table(self, columns: Sequence[Mapping], rows: Iterable[Mapping], *, id: str = "main",
              title: str | None = None, notes: Sequence[str] = ()) -> str:
        """Add a table (its rows join the result's rows); returns it as markdown, to print."""
        if any(t["id"] == id for t in self.data["tables"]):
            raise ValueError(f"table id {id!r} is already in the result")
        spec = {"id": id, "title": title, "columns": [dict(c) for c in columns], "notes": list(notes)}
        self.data["tables"].append(spec)
        first = self.data["tables"][0]["id"]
        for r in rows:
            row = _plain(dict(r))
            if id != first:
                row["table"] = id
            self.data["rows"].append(row)
        return render_table(self.data, spec)

    def note(self, text: str, table: str | None = None) -> None:
        """A line under a table (default: the last one added)."""
        spec = next(t for t in self.data["tables"] if t["id"] == table) if table else self.data["tables"][-1]
        spec["notes"].append(text)

    def add_rounds(self, got: Rounds, prefix: str = "") -> None:
        for name, samples in got.as_dict().items():
            self.data["rounds"][prefix + name] = samples

    def render(self) -> str:
        return "\n\n".join(render_table(self.data, t) for t in self.data["tables"])

    def save(self, args: argparse.Namespace | None = None, directory: Path | None = None) -> Path | None:
        """Write ``DIR/NAME/ID.json`` (DIR: ``--results``, default benchmarks/results); nothing with
        ``--no-save``. The path goes to standard error."""
        if args is not None and getattr(args, "no_save", False):
            return None
        if args is not None and getattr(args, "name", None):
            self.data["name"] = args.name
        directory = Path(directory or getattr(args, "results", None) or RESULTS)
        if self.data["origin"] == MEASURED:
            self.data["environment"].setdefault("loadavg_end", [round(x, 2) for x in os.getloadavg()]
                                                if hasattr(os, "getloadavg") else None)
            self.data["params"].setdefault("seconds", round(time.time() - self.started, 1))
        validate(self.data)
        folder = directory / self.name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.data['id']}.json"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{self.data['id']}-{n}.json"
        self.data["id"] = path.stem
        path.write_text(json.dumps(self.data, indent=1, ensure_ascii=False, default=_json_default) + "\n")
        print(f"result: {repo_path(path)}", file=sys.stderr)
        return path


def add_options(ap: argparse.ArgumentParser) -> None:
    """The options every benchmark has: where its result goes, or that it goes nowhere (a trial run)."""
    g = ap.add_argument_group("result file (benchmarks/harness.py)")
    g.add_argument("--results", type=Path, default=RESULTS, metavar="DIR",
                   help="write the result to DIR/NAME/ID.json (default benchmarks/results)")
    g.add_argument("--name", help="the result's name (default: the benchmark's; a variant kept apart, e.g. "
                                  "peer-10runs, gets a docs marker of its own)")
    g.add_argument("--no-save", action="store_true", help="write no result file (a trial run)")


def validate(data: Mapping) -> None:
    """Raise ValueError naming what a result lacks or has wrong (schema ``evalcore-bench/1``)."""
    need = {"schema": str, "name": str, "id": str, "script": str, "command": str, "argv": list, "created": str,
            "origin": str, "params": dict, "environment": dict, "rows": list, "tables": list}
    for key, kind in need.items():
        if not isinstance(data.get(key), kind):
            raise ValueError(f"result {data.get('name')!r}: {key!r} must be a {kind.__name__}; "
                             f"got {type(data.get(key)).__name__}")
    if data["schema"] != SCHEMA:
        raise ValueError(f"result {data['name']!r}: schema must be {SCHEMA!r}; got {data['schema']!r}")
    if data["origin"] not in (MEASURED, IMPORTED):
        raise ValueError(f"result {data['name']!r}: origin must be {MEASURED!r} or {IMPORTED!r}; "
                         f"got {data['origin']!r}")
    if not data["tables"]:
        raise ValueError(f"result {data['name']!r}: no table")
    ids = [t.get("id") for t in data["tables"]]
    if len(set(ids)) != len(ids):
        raise ValueError(f"result {data['name']!r}: table ids repeat: {ids}")
    for t in data["tables"]:
        cols = t.get("columns")
        if not isinstance(cols, list) or not cols or not all(isinstance(c, dict) and "title" in c and "key" in c
                                                              for c in cols):
            raise ValueError(f"result {data['name']!r}, table {t.get('id')!r}: columns must be a list of "
                             "{title, key, format} dicts")
    for r in data["rows"]:
        if not isinstance(r, dict) or r.get("table", ids[0]) not in ids:
            raise ValueError(f"result {data['name']!r}: row {r!r} is not a dict of a known table")


def _plain(row: dict) -> dict:
    """numpy scalars as Python numbers (JSON)."""
    return {k: (v.item() if hasattr(v, "item") and not isinstance(v, (list, dict, str)) else v)
            for k, v in row.items()}


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (set, tuple)):
        return list(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON: {type(o).__name__}")


def _script_path() -> str:
    main = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    return repo_path(main) if main and main.suffix == ".py" else "benchmarks/?"


def repo_path(path: Path) -> str:
    """``path`` relative to the checkout (as docs write it), or as it is when outside."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)
