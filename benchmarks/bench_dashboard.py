"""The dashboard's speed, one script with modes: what a gain move or a page costs, measured seven ways.

    python benchmarks/bench_dashboard.py --mode pages [--no-browser] [--moves 15] [--many-runs N]
    python benchmarks/bench_dashboard.py --mode cpu [--data sim clef2015] [--pages overview rankings] [--moves 6]
                                         [--profile N] [--against DIR] [--rounds 1]
    python benchmarks/bench_dashboard.py --mode ab --variants VARIANTS.py [--page rankings] [--data sim] [--moves 32]
    python benchmarks/bench_dashboard.py --mode instr [--page rankings] [--moves 4] [--against DIR]
    python benchmarks/bench_dashboard.py --mode floor [--pages rankings overview] [--sessions 10 20] [--moves 5]
                                         [--rounds 2]
    python benchmarks/bench_dashboard.py --mode load [--only memory uploads wide latency freeze split compute]
                                         [--sessions 5 10 20] [--pages rankings overview] [--servers N] [--pin] ...
    python benchmarks/bench_dashboard.py --mode significance [--moves 6]
    python benchmarks/bench_dashboard.py --mode compute [--kind bootstrap] [--runs 100] [--topics 50] [--B 100 1000]
    python benchmarks/bench_dashboard.py --mode MODE --help          # every option of a mode

Modes (in brackets the script each replaces; that script's options are the mode's, so its old command lines
run with ``bench_dashboard.py --mode MODE`` in its place):

* ``pages`` [bench_app.py]: slider to updated in AppTest on clef2015 (the top gain box to a value never used
  before; the Rankings and Rank correlation pages, target <= 300 ms), slider to settled on the live meta pages
  (Swap, Bootstrap, Overview: the first meta chart and the whole run, target <= 500 ms server time with the
  quick pass; docs/benchmarks.md section 8), then, with chromium and without ``--no-browser``, the cold start
  to the Overview's first chart (target <= 5 s) and slider to settled in a real browser on clef2015 uploaded
  through the Data page. ``--many-runs N``: only the live Overview and Bootstrap pages on
  ``simulated_collection(n_runs=N, n_topics=50)`` stored as an upload.
* ``cpu`` [bench_move_cpu.py; bench_app.py --cpu-per-move]: CPU seconds per gain move on the Overview and the
  Rankings, on the built-in data and clef2015, each (data, page) in a fresh process, and where the CPU goes
  (functions of the dashboard and evalcore are wrapped; each CPU interval is charged to the innermost wrapped
  function running; docs/benchmarks.md section 16). ``--profile N``: also cProfile's top N by own CPU
  (``BENCH_SORT``, ``BENCH_PAT``, ``BENCH_N``, ``BENCH_CALLERS`` as in benchmarks/dashboard_apptest.py).
  ``--against DIR``: another checkout, the two alternating round by round (``--rounds``), with the ratio.
* ``ab`` [bench_move_ab.py]: two variants of a change alternate move by move in one session (A B B A A B ...),
  ``VARIANTS.py`` defining ``A()`` and ``B()`` that each put their variant in place, e.g.::

      from dashboard import widgets
      orig = widgets.table
      def A(): widgets.table = orig
      def B(): widgets.table = lambda *a, **k: None      # what a move costs without its tables

  Two variants in one process see the same caches, allocator and machine state, which separate processes
  (``--mode cpu --against``) do not: on a shared 2-core machine the same code varies by up to 30 % between
  processes, far more than the effects this is for (section 16.4).
* ``instr`` [bench_move_instr.py]: machine instructions per gain move, counted by valgrind's callgrind in the
  threads that ran the page script (AppTest's main thread, which polls for a run's end, left out); the count
  does not depend on the neighbours, as CPU seconds do (section 16.7). Needs ``valgrind``; ~5 minutes a run.
* ``floor`` [bench_floor.py]: the load mode's latency case on the pages as they are and on copies of them with
  their content cut away (the Rankings after its title and settings line; the Overview without its
  discriminative-power section), alternated round by round: what every gain-live page pays before drawing
  anything (section 16.5). The copies are made from this checkout's tracked files in a temporary folder; each
  cut fails loudly if the page no longer has the line it cuts at.
* ``load`` [bench_load.py]: a class on one server (docs/reliability.md): ``evalcore app`` started as users start
  it and driven by simulated sessions speaking Streamlit's websocket protocol (benchmarks/dashboard_load.py).
  ``memory``: server RSS with 1, 10, 30 sessions on the built-in data and with 3 sessions that each uploaded
  clef2015 (``uploads``); ``wide``: one session uploads a wide collection (``--wide``, default 10,000 topics x
  100 runs) and moves the gain 30 times; ``latency``: N sessions at once (``--sessions``) move the gain
  ``--moves`` times each (slider-to-settled p50 / p95 / max, errors, server CPU per move); ``freeze``: 5
  sessions move sliders while another uploads clef2015 (``--upload-qrels FILE``: that qrels instead);
  ``split`` (``--servers`` 2 or more, behind nginx): how the balancer's sticky hash spreads the sessions;
  ``compute``: 5 sessions move sliders alone and while another session opens the Bootstrap page with a long
  refinement (``--compute-query``; run it with and without ``--env EVALCORE_COMPUTE_INPROCESS=1`` to compare
  the computation in the server's thread with the child of dashboard.compute); ``--pin``: one process per core,
  simulated by pinning; ``--app-dir DIR``: serve another checkout's app (an
  older commit measured by this script, alternating with this one run by run).
* ``compute``: one page computation with a progress bar (``dashboard.meta_store.meta_compute``) in the server's
  thread (``EVALCORE_COMPUTE_INPROCESS=1``, one thread: ``EVALCORE_SESSION_THREADS=1``) and in a child
  interpreter (``EVALCORE_COMPUTE_SECONDS=0``, dashboard.compute), interleaved round by round, on
  ``simulated_collection(n_runs, n_topics)`` with the dashboard's 8 default metrics, for each ``--B``: wall time,
  this process's CPU and the children's CPU, and the estimate the threshold compares
  (``dashboard.limits.meta_workload(...).seconds()``).
* ``significance`` [bench_significance.py]: the "Significance & topic sets" page on clef2015, slider to
  updated with the quick pass (t test; bootstrap test) and until B = 1000 is on screen, and
  ``pair_statistics`` with OpenBLAS's default threads against one, interleaved (section 9).

Every mode times with benchmarks/harness.py (CPU beside wall, contenders - checkouts, variants, cut copies -
interleaved round by round) and writes one result file, benchmarks/results/dashboard-MODE/ID.json.
AppTest runs the real page script in this process: its time is server time (script + serialisation), no
network or browser rendering.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402

APP_ROOT = Path(os.environ.get("EVALCORE_BENCH_ROOT") or HERE.parent).resolve()
sys.path.insert(1, str(APP_ROOT))     # its evalcore and dashboard, not an installed copy (dashboard_apptest: first)
PAGES = ("overview", "rankings")


def _result(mode: str, argv, args) -> harness.Result:
    params = {k: v for k, v in vars(args).items() if k not in ("results", "name", "no_save", "one", "child")}
    return harness.Result(f"dashboard-{mode}", argv, params, script=__file__)


def _ms(values) -> dict:
    s = harness.stats(1000 * v for v in values)
    return {"median": s.median, "max": s.max}


def with_max(key: str, fmt: str = ".0f") -> str:
    """A cell template: the row's value, then ``(max ...)`` from its ``key``."""
    return f"{{:{fmt}}} (max {{{key}:{fmt}}})"


# -- pages ----------------------------------------------------------------------------------------------
def slider_moves(c, moves: int, pages, start: float) -> list[dict]:
    """Per page: wall and CPU of each move (the top gain box to a new value, the whole run) and, on the live
    pages, the time to the first meta chart (dashboard.live's log)."""
    import dashboard_apptest as app
    import numpy as np
    at = app.open_app(c, share_scripts=False, timeout=300)
    assert at.session_state["_K"] == c.max_level
    values = np.round(np.linspace(start, 9.9, moves * len(pages)), 2)   # every move a new value: no cache hits
    rows = []
    for k, page in enumerate(pages):
        at.switch_page(page).run()
        app.check(at)
        samples, first = [], []
        for v in values[k::len(pages)]:
            app.set_gain(at, v, level=c.max_level)
            at.session_state["_live_log"] = []
            t0 = time.perf_counter()
            samples.append(harness.measure(at.run))
            log = at.session_state["_live_log"] if "_live_log" in at.session_state else []
            if log:
                first.append(log[0][0] - t0)
            app.check(at)
        wall, cpu, fst = _ms(s.wall for s in samples), _ms(s.cpu for s in samples), _ms(first)
        rows.append({"page": Path(page).stem, "moves": len(samples), "wall_ms": wall["median"],
                     "wall_ms_max": wall["max"], "cpu_ms": cpu["median"], "cpu_ms_max": cpu["max"],
                     "first_ms": fst["median"] if first else None, "first_ms_max": fst["max"],
                     "samples": [s.as_dict() for s in samples]})
    return rows


MOVE_COLUMNS = [harness.col("page"), harness.col("moves", right=True),
                harness.col("settled wall ms, median (max)", with_max("wall_ms_max"), "wall_ms", right=True),
                harness.col("CPU ms, median (max)", with_max("cpu_ms_max"), "cpu_ms", right=True),
                harness.col("first meta chart ms, median (max)", with_max("first_ms_max"), "first_ms", right=True)]


def mode_pages(args, argv) -> int:
    import evalcore
    res = _result("pages", argv, args)
    if args.many_runs:
        c = evalcore.simulated_collection(n_topics=50, n_runs=args.many_runs, seed=0)
        rows = slider_moves(c, args.moves, ("views/overview.py", "views/bootstrap.py"), 3.1)
        print(res.table(MOVE_COLUMNS, rows, title=f"{args.many_runs} runs x 50 topics (simulated), slider to "
                                                   "settled on the live pages:"))
        res.save(args)
        return 0
    import dashboard_apptest as app
    load = harness.measure(app.load_clef)
    c = load.result
    print(f"clef2015: {c.n_runs} runs x {c.n_topics} topics x depth {c.depth}, levels 0..{c.max_level}; read in "
          f"{load.wall:.1f} s with evalcore.load_collection\n")
    print(res.table(MOVE_COLUMNS, slider_moves(c, args.moves, ("views/rankings.py", "views/correlation.py"), 3.1),
                    id="update", title="Slider to updated, analysis pages (clef2015, AppTest):") + "\n")
    print(res.table(MOVE_COLUMNS, slider_moves(c, args.moves, ("views/swap.py", "views/bootstrap.py",
                                                               "views/overview.py"), 3.05),
                    id="settled", title="Slider to settled (the chosen B on screen), live meta pages:") + "\n")
    import dashboard_browser as br
    if not args.no_browser and br.CHROMIUM.exists():
        t = br.start_to_first_chart()
        rows = [{"start": i + 1, "wall_s": w, "server_up_s": up, "server_cpu_s": cpu} for i, (w, up, cpu) in
                enumerate(t)]
        print(res.table([harness.col("start", right=True), harness.col("wall s to the first chart", "{:.2f}",
                                                                        "wall_s", right=True),
                         harness.col("of which the server's start", "{:.2f}", "server_up_s", right=True),
                         harness.col("server CPU s", "{:.2f}", "server_cpu_s", right=True)], rows, id="cold",
                        title="Cold start -> first chart (Overview, simulated data), real browser:") + "\n")
        got = br.browser_slider(br.zip_runs())
        rows = [{"page": p, "moves": len(r["first"]), "first_s": statistics.median(r["first"]),
                 "first_s_max": max(r["first"]), "settled_s": statistics.median(r["settled"]),
                 "settled_s_max": max(r["settled"])} for p, r in got.items()]
        cols = [harness.col("page"), harness.col("moves", right=True),
                harness.col("chart changed s, median (max)", with_max("first_s_max", ".2f"), "first_s", right=True),
                harness.col("settled s, median (max)", with_max("settled_s_max", ".2f"), "settled_s", right=True)]
        print(res.table(cols, rows, id="browser", title="Real browser, clef2015 uploaded, slider to settled:"))
    res.save(args)
    return 0


# -- cpu ------------------------------------------------------------------------------------------------
def cpu_child(args) -> int:
    """One (data, page) in this process: CPU of each move, and the CPU of all moves by category."""
    import dashboard_apptest as app
    data, page = args.data[0], args.pages[0]
    meter = app.Meter()
    meter.install()
    at = app.open_page(data, page)
    meter.cpu.clear()
    xs = []
    with app.profiled(args.profile) if args.profile else nullcontext():
        for i in range(args.moves):
            app.set_gain(at, round(1.05 + 0.37 * i + 0.001 * (i % 7), 3))   # a gain not used before at every move
            xs.append(harness.measure(at.run).cpu)
            app.check(at)
    total = sum(xs)
    cats = dict(meter.cpu)
    cats["everything else (page script, Streamlit, AppTest)"] = total - sum(cats.values())
    rows = [{"spent_in": k, "cpu": t / len(xs), "share": 100 * t / total}
            for k, t in sorted(cats.items(), key=lambda kv: -kv[1])]
    print(f"\n{data} / {page}: CPU per move median {statistics.median(xs):.3f} s (min {min(xs):.3f}, max "
          f"{max(xs):.3f}) over {len(xs)} moves; checkout {app.ROOT}")
    print(harness.markdown(WHERE[2:], rows))
    print(json.dumps({"moves": xs, "categories": {r["spent_in"]: r["cpu"] for r in rows}}))  # the parent reads it
    return 0


WHERE = [harness.col("data"), harness.col("page"), harness.col("spent in", "{}", "spent_in"),
         harness.col("CPU per move (s)", "{:.3f}", "cpu", right=True),
         harness.col("share", "{:.0f} %", "share", right=True)]


def mode_cpu(args, argv) -> int:
    if args.one:
        return cpu_child(args)
    res = _result("cpu", argv, args)
    trees = [("this", APP_ROOT)] + ([("against", Path(args.against).resolve())] if args.against else [])

    def child(data: str, page: str, tree: Path):
        def run() -> dict:          # each (data, page) in a fresh process: no store shared between cases
            out = subprocess.run([sys.executable, __file__, "--mode", "cpu", "--one", "--data", data, "--pages", page,
                                  "--moves", str(args.moves), "--profile", str(args.profile)], check=True,
                                 capture_output=True, text=True, env={**os.environ, "EVALCORE_BENCH_ROOT": str(tree)})
            lines = out.stdout.strip().splitlines()
            print("\n".join(lines[:-1]), flush=True)
            return json.loads(lines[-1])
        return run
    cases = [(d, p, n, t) for d in args.data for p in args.pages for n, t in trees]
    got = harness.rounds({f"{d} / {p} / {n}": child(d, p, t) for d, p, n, t in cases}, args.rounds, warmup=0)
    moves = {key: [x for s in got.samples[key] for x in s.result["moves"]] for key in got.samples}
    rows, where = [], []
    for d in args.data:
        for p in args.pages:
            row = {"data": d, "page": p}
            for n, _ in trees:
                st = harness.stats(moves[f"{d} / {p} / {n}"])
                row.update({n: st.median, f"{n}_min": st.min, f"{n}_max": st.max,
                            f"{n}_moves": moves[f"{d} / {p} / {n}"]})
            if args.against:
                row["ratio"] = row["this"] / row["against"]
            rows.append(row)
            cats: dict[str, list[float]] = {}
            for s in got.samples[f"{d} / {p} / this"]:
                for k, v in s.result["categories"].items():
                    cats.setdefault(k, []).append(v)
            total = sum(statistics.mean(v) for v in cats.values())
            where += [{"data": d, "page": p, "spent_in": k, "cpu": statistics.mean(v),
                       "share": 100 * statistics.mean(v) / total} for k, v in cats.items()]
    cols = [harness.col("data"), harness.col("page"),
            *(harness.col(n, "{:.3f} ({" + n + "_min:.3f} - {" + n + "_max:.3f})", n, right=True) for n, _ in trees)]
    if args.against:
        cols.append(harness.col("this / against", "{:.2f}", "ratio", right=True))
    title = (f"CPU per move (s), median (min - max) of {args.moves} x {args.rounds} moves; this = {APP_ROOT}"
             + (f", against = {trees[1][1]}" if args.against else ""))
    note = (f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (CPU time does not count the "
            "neighbours' work, but a busy machine still slows every process: caches, memory bandwidth)")
    print()
    print(res.table(cols, rows, title=title, notes=[note]))
    res.table(WHERE, where, id="where", title="Where this checkout's CPU per move goes (mean over the rounds):")
    res.add_rounds(got)
    res.save(args)
    return 0


# -- ab -------------------------------------------------------------------------------------------------
def mode_ab(args, argv) -> int:
    import importlib.util
    import itertools

    import dashboard_apptest as app  # the checkout measured: on sys.path before the variants import it
    if not 2 <= args.moves <= 1000:
        raise SystemExit("--moves must be 2 to 1000")
    spec = importlib.util.spec_from_file_location("variants", args.variants)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{args.variants}: not a Python file")
    variants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(variants)
    for name in "AB":
        if not callable(getattr(variants, name, None)):
            raise SystemExit(f"{args.variants} must define {name}() (it defines no function {name})")
    res = _result("ab", argv, args)
    at = app.open_page(args.data, args.page)
    count = itertools.count()

    def move(name: str):
        def run() -> None:
            getattr(variants, name)()
            app.set_gain(at, app.fresh_gain(next(count)))       # never used before: every result a miss
            at.run()
            app.check(at)
        return run
    # rounds A B, B A, A B, ...: neither variant always runs right after the other; process CPU of each rerun
    got = harness.rounds({"A": move("A"), "B": move("B")}, args.moves // 2, warmup=0, alternate=True)
    res.add_rounds(got)
    a, b = got.stats("A", "cpu"), got.stats("B", "cpu")
    per_round = harness.stats(got.ratios("B", "A", "cpu"))
    row = {"page": args.page, "data": args.data, "moves": a.n, "a": a.median, "b": b.median,
           "ratio": b.median / a.median, "round_ratio": per_round.median,
           "a_mean": statistics.mean(got.values("A", "cpu")), "b_mean": statistics.mean(got.values("B", "cpu"))}
    print(res.table([harness.col("page"), harness.col("data"), harness.col("moves each", "{}", "moves", right=True),
                     harness.col("A: CPU s per move (median)", "{:.4f}", "a", right=True),
                     harness.col("B", "{:.4f}", "b", right=True), harness.col("B / A", "{:.3f}", "ratio", right=True),
                     harness.col("B / A within rounds (median)", "{:.3f}", "round_ratio", right=True),
                     harness.col("means A / B (s)", "{:.4f} / {b_mean:.4f}", "a_mean", right=True)], [row],
                    title=f"Variants: {args.variants}"))
    res.save(args)
    return 0


# -- instr ----------------------------------------------------------------------------------------------
def instr_child(root: str, page: str, moves: int) -> None:
    """In the process valgrind runs: open the page, warm, count ``moves`` moves."""
    os.environ["EVALCORE_BENCH_ROOT"] = root
    import dashboard_apptest as app

    at = app.open_page("sim", page, timeout=3600)     # under valgrind the app starts ~50x slower

    def move(v: float) -> None:
        app.set_gain(at, v)
        at.run()
        app.check(at)

    for i in range(2):                  # the first moves fill the stores once; not counted
        move(round(9.05 + 0.37 * i, 3))
    subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True, capture_output=True)
    for i in range(moves):
        move(round(1.05 + 0.37 * i + 0.001 * (i % 7), 3))     # a gain not used before at every move
    subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=True, capture_output=True)


def instructions(root: Path, page: str, moves: int) -> int:
    """Instructions of ``moves`` moves in checkout ``root``: the threads that ran the page script, not the
    test harness's main thread, which polls for the run's end and so executes more the slower the machine."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
               f"--callgrind-out-file={out}", sys.executable, __file__, "--mode", "instr", "--child", str(root),
               "--page", page, "--moves", str(moves), "--no-save"]
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


def mode_instr(args, argv) -> int:
    if args.moves < 1:
        raise SystemExit("--moves must be at least 1")
    if args.child:
        instr_child(args.child, args.page, args.moves)
        return 0
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    res = _result("instr", argv, args)
    trees = [("this", APP_ROOT)] + ([("against", Path(args.against).resolve())] if args.against else [])
    rows = []
    for name, tree in trees:
        per = instructions(tree, args.page, args.moves) / args.moves
        rows.append({"checkout": name, "path": str(tree), "instructions_m": per / 1e6})
        print(f"{name} ({tree}): {per / 1e6:.1f} M instructions per {args.page} move ({args.moves} moves, "
              "simulated data)", flush=True)
    notes = ([f"this / against: {rows[0]['instructions_m'] / rows[1]['instructions_m']:.3f}"] if args.against else [])
    res.table([harness.col("checkout"), harness.col(f"M instructions per {args.page} move", "{:.1f}", "instructions_m",
                                                    right=True), harness.col("path")], rows, notes=notes)
    for n in notes:
        print(n)
    res.save(args)
    return 0


# -- floor ----------------------------------------------------------------------------------------------
#: page -> (variant name, file, the line the copy stops before, what the copy runs there instead)
CUTS = {
    "rankings": ("sidebar only", "views/rankings.py", "means = scoring.means(c, s)\n",
                 "from dashboard import live\nlive.finish_live()\nst.stop()\n"),
    "overview": ("no resampling", "views/overview.py", 'widgets.subheader("Discriminative power per metric")\n',
                 "live.finish_live()\nst.stop()\n"),
}


def cut_copy(dest: Path) -> Path:
    """This checkout's tracked files in ``dest``, with every page of :data:`CUTS` cut."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=APP_ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        src = APP_ROOT / name
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


def mode_floor(args, argv) -> int:
    import asyncio

    import dashboard_load as load
    res = _result("floor", argv, args)

    def case(root: Path, page: str):
        def run() -> dict:            # a server of its own per case, started as users start it
            server = load.Server(root=root)
            try:
                return asyncio.run(load.latency(server.url, server, args.sessions, args.moves, 120, 0, page))
            finally:
                server.stop()
        return run
    with tempfile.TemporaryDirectory(prefix="evalcore-floor-") as tmp:
        cut = cut_copy(Path(tmp))
        contenders = {}
        for page in args.pages:
            for name, root in (("as it is", APP_ROOT), (CUTS[page][0], cut)):
                contenders[f"{page} / {name}"] = case(root, page)
        got = harness.rounds(contenders, args.rounds, warmup=0, progress=True)
    rows = []
    for key, samples in got.samples.items():
        page, name = key.split(" / ")
        for n in args.sessions:
            cells = [next(r for r in s.result["rows"] if r["sessions"] == n) for s in samples]
            rows.append({"page": page, "variant": name, "sessions": n, "p95": [c["p95"] for c in cells],
                         "p50": [c["p50"] for c in cells], "server_cpu": [c["server_cpu_per_move"] for c in cells],
                         "errors": sum(c["errors"] for c in cells)})
    print(res.table([harness.col("page"), harness.col("variant"), harness.col("sessions", right=True),
                     harness.col("p95 per round (s)", "{:.2f}", "p95"),
                     harness.col("p50 per round (s)", "{:.2f}", "p50"),
                     harness.col("server CPU per move (s)", "{:.3f}", "server_cpu"),
                     harness.col("errors", right=True)], rows))
    res.save(args)
    return 0


# -- load -----------------------------------------------------------------------------------------------
def mode_load(args, argv) -> int:
    import asyncio

    import dashboard_load as load
    if max(args.sessions + args.memory_sessions + [args.upload_sessions]) > args.max_sessions:
        raise SystemExit(f"at most --max-sessions {args.max_sessions} sessions")
    if not 1 <= args.draws <= 100:
        raise SystemExit("--draws: 1 to 100")
    if args.upload_sessions < 1:
        raise SystemExit("--upload-sessions: at least 1")
    load.UPLOAD_QRELS = args.upload_qrels
    load.Server.env = dict(e.split("=", 1) for e in args.env)
    res = _result("load", argv, args)
    asyncio.run(_load(args, load, res))
    res.save(args)
    return 0


async def _load(args, load, res: harness.Result) -> None:
    import resource
    pins, client_cores = load.pin_plan(args.servers, args.pin)
    if client_cores and not args.url:
        os.sched_setaffinity(0, client_cores)
    server = (None if args.url else load.Server(cores=pins[0], root=args.app_dir) if args.servers == 1
              else load.Cluster(args.servers, pins, client_cores, root=args.app_dir))
    url = args.url or server.url
    if args.pin and not args.url:
        print(f"pinned: server processes on cores {[sorted(x) for x in pins]}; clients"
              + (" and nginx" if args.servers > 1 else "") + f" on {sorted(client_cores or [])} "
              + ("" if client_cores else "(none left: they share the servers' cores)") + "\n", flush=True)

    def show(t: dict) -> None:
        print("### " + res.table(t["columns"], t["rows"], id=t["id"], title=t["title"], notes=t["notes"]) + "\n",
              flush=True)
    try:
        todo = args.only or ["memory", "uploads", "wide", "latency", "freeze"]
        if "split" in todo:
            if not isinstance(server, load.Cluster):
                raise SystemExit("--only split needs --servers 2 or more")
            for n in args.sessions:
                show(await load.split(url, server, n, args.draws, args.timeout))
        if "memory" in todo:
            show(await load.memory(url, server, args.memory_sessions, args.timeout))
        if "uploads" in todo:
            show(await load.memory_uploads(url, server, args.upload_sessions, args.timeout))
        if "wide" in todo:
            show(await load.memory_wide(url, server, args.wide[0], args.wide[1], 30, args.timeout))
        if "latency" in todo:
            for page in args.pages:
                show(await load.latency(url, server, args.sessions, args.moves, args.timeout, args.seed, page))
            if args.identical:
                show(await load.latency(url, server, args.sessions, args.moves, args.timeout, args.seed,
                                        args.pages[0], identical=True))
        if "freeze" in todo:
            show(await load.freeze(url, args.freeze_sessions, args.moves, args.timeout, args.seed))
        if "compute" in todo:
            show(await load.long_compute(url, args.freeze_sessions, args.moves, args.timeout, args.seed,
                                         args.compute_query))
    finally:
        end = []
        if server:
            end.append(f"server final RSS {server.rss_mib():.0f} MiB, CPU {server.cpu_s():.1f} s; "
                       f"alive: {server.proc.poll() is None}")
            if isinstance(server, load.Cluster):
                end.append("per process CPU: " + ", ".join(f"{s.cpu_s():.1f} s" for s in server.servers)
                           + f"; alive: {[s.proc.poll() is None for s in server.servers]}")
            server.stop()
        ru = resource.getrusage(resource.RUSAGE_SELF)
        end.append(f"clients (this process): {ru.ru_utime + ru.ru_stime:.1f} s CPU")
        res.data["params"]["end"] = end
        print("\n".join(end))


# -- significance ---------------------------------------------------------------------------------------
SIG_KEYS = ["Q-measure", "AP", "P+-measure", "P-measure", "O-measure", "NWRR", "RR"]


def significance_moves(c, test: str, values, refine: bool) -> list[float]:
    """CPU seconds of each move on the significance page with ``test``; without ``refine``, dashboard.live's
    refinement is off (the first screen, with the quick pass where the test resamples)."""
    import dashboard_apptest as app

    from dashboard import live

    saved = live.finish_live
    if not refine:
        live.finish_live = lambda: None
    try:
        at = app.open_page(c, "views/significance.py", share_scripts=False, timeout=600)
        at.selectbox(key="_w_sg_test").set_value(test).run()
        app.check(at)
        out = []
        for v in values:
            app.set_gain(at, v, level=c.max_level)
            out.append(harness.measure(at.run).cpu)
            app.check(at)
            assert not at.error, [e.value for e in at.error]
        return out
    finally:
        live.finish_live = saved


def mode_significance(args, argv) -> int:
    import dashboard_apptest as app
    import numpy as np
    from threadpoolctl import threadpool_info, threadpool_limits

    from evalcore import meta, registry
    res = _result("significance", argv, args)
    c = app.load_clef()
    print(f"clef2015: {c.n_runs} runs x {c.n_topics} topics, read with evalcore.load_collection\n")
    vals = np.round(np.linspace(3.3, 9.7, args.moves * 4), 1)
    rows = []
    for k, (test, refine) in enumerate([("t", False), ("bootstrap", False), ("bootstrap", True)]):
        xs = significance_moves(c, test, vals[k::4][: args.moves], refine)
        rows.append({"test": test, "what": "until B = 1000 is on screen" if refine else
                     "first screen (quick pass where resampled)", "moves": len(xs),
                     "cpu_ms": 1000 * statistics.median(xs), "cpu_ms_max": 1000 * max(xs), "cpu_s": xs})
    print(res.table([harness.col("test"), harness.col("what"), harness.col("moves", right=True),
                     harness.col("CPU ms, median (max)", with_max("cpu_ms_max"), "cpu_ms", right=True)], rows,
                    title="Slider -> significance page:") + "\n")
    sc = {k: registry.score_matrix(c, k) for k in SIG_KEYS}
    meta.pair_statistics(sc, B=50)                     # warm-up (lazy scipy import)
    default = max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    def one_thread():
        with threadpool_limits(limits=1, user_api="blas"):
            meta.pair_statistics(sc, B=1000, seed=0)
    got = harness.rounds({f"{default} BLAS threads": lambda: meta.pair_statistics(sc, B=1000, seed=0),
                          "1 BLAS thread": one_thread}, 3, warmup=0)
    res.add_rounds(got)
    blas = [{"threads": name, "cpu_s": got.stats(name, "cpu").median} for name in got.samples]
    print(res.table([harness.col("pair_statistics(7 metrics, every test, B = 1000)", "{}", "threads"),
                     harness.col("CPU s (median of 3, interleaved)", "{:.3f}", "cpu_s", right=True)], blas, id="blas",
                    notes=[f"x{blas[0]['cpu_s'] / blas[1]['cpu_s']:.1f} with the default threads"]))
    res.save(args)
    return 0


# -- compute --------------------------------------------------------------------------------------------
COMPUTE_PARAMS = {"bootstrap": {"alpha": 0.05}, "swap": {"sampling": "replacement", "subset_size": None},
                  "tukey": {"alpha": 0.05}, "stability": {"subset_size": None},
                  "pairs": {"confidence": 0.95, "standardise": "none", "tests": ("t", "bootstrap", "randomisation")}}


def mode_compute(args, argv) -> int:
    import evalcore
    from dashboard import compute, limits, meta_store, scoring, state, stores
    from dashboard.pages import DEFAULT_METRICS

    res = _result("compute", argv, args)
    c = evalcore.simulated_collection(n_topics=args.topics, n_runs=args.runs, seed=0)
    s = state.Settings(dataset="sim", gains=(1.0, 2.0, 3.0), beta=1.0, penalties=(4.0, 3.0, 2.0), cutoff=10,
                       rel_threshold=1, metrics=DEFAULT_METRICS, top_n=0, top_by="AP")
    params = {**COMPUTE_PARAMS[args.kind], "seed": 1}
    os.environ["EVALCORE_SESSION_THREADS"] = "1"
    rows = []
    for B in args.B:
        w = limits.meta_workload(args.kind, scoring.scores(c, s), params, B)

        def once(where: str, B=B) -> None:
            os.environ.pop("EVALCORE_COMPUTE_INPROCESS", None)
            os.environ["EVALCORE_COMPUTE_SECONDS"] = "0"
            if where == "thread":
                os.environ["EVALCORE_COMPUTE_INPROCESS"] = "1"
            fresh = stores.Store(64)
            meta_store._results = lambda: fresh          # nothing looked up: every call computes
            n = compute.started()
            meta_store.meta_compute(args.kind, c, s, params, B, progress=lambda f: None)
            assert (compute.started() > n) == (where == "child"), where
        got = harness.rounds({"thread": lambda: once("thread"), "child": lambda: once("child")}, args.rounds,
                             alternate=True, live_children=False)
        res.add_rounds(got, prefix=f"B={B} ")
        ratios = got.ratios("child", "thread", "wall")
        rows.append({"B": B, "estimate": w.seconds() if w else float("nan"),
                     "thread_wall": got.stats("thread").median, "child_wall": got.stats("child").median,
                     "child_cpu": statistics.median(got.values("child", "child_cpu")),
                     "server_cpu": got.stats("child", "cpu").median, "ratio": statistics.median(ratios),
                     "ratio_min": min(ratios), "ratio_max": max(ratios)})
    print(res.table([harness.col("B", right=True),
                     harness.col("estimate (s of one core)", "{:.1f}", "estimate", right=True),
                     harness.col("in the thread: wall (s)", "{:.2f}", "thread_wall", right=True),
                     harness.col("in a child: wall (s)", "{:.2f}", "child_wall", right=True),
                     harness.col("child's CPU (s)", "{:.2f}", "child_cpu", right=True),
                     harness.col("server's CPU meanwhile (s)", "{:.2f}", "server_cpu", right=True),
                     harness.col("child / thread (wall, min-max)", "{:.2f} ({ratio_min:.2f}-{ratio_max:.2f})", "ratio",
                                 right=True)], rows,
                    title=f"{args.kind}, {args.runs} runs x {args.topics} topics, {len(DEFAULT_METRICS)} metrics, "
                          f"median of {args.rounds} interleaved rounds:") + "\n")
    res.save(args)
    return 0


# -- the command line -----------------------------------------------------------------------------------
def _options(mode: str, ap: argparse.ArgumentParser) -> None:
    a = ap.add_argument
    if mode == "pages":
        a("--no-browser", action="store_true", help="server time only (no chromium)")
        a("--moves", type=int, default=15)
        a("--many-runs", type=int, metavar="N", help="only the live Overview and Bootstrap pages on "
          "simulated_collection(n_runs=N, n_topics=50) stored as an upload (a slider never waits for an N-run "
          "bootstrap)")
    elif mode == "cpu":
        a("--data", nargs="+", default=["sim", "clef2015"], choices=["sim", "clef2015"])
        a("--pages", nargs="+", default=list(PAGES), choices=PAGES)
        a("--moves", type=int, default=6)
        a("--profile", type=int, default=0, metavar="N", help="print cProfile's top N by own CPU")
        a("--against", metavar="DIR", help="another checkout (e.g. `git archive` of an older commit): each case "
          "runs in both, alternating, and a table of medians and ratios ends the output")
        a("--rounds", type=int, default=1, help="alternations of the checkouts (with --against)")
        a("--one", action="store_true", help=argparse.SUPPRESS)
    elif mode == "ab":
        a("--variants", type=Path, required=True, help="a Python file defining A() and B()")
        a("--page", default="rankings", choices=PAGES)
        a("--data", default="sim", choices=["sim", "clef2015"])
        a("--moves", type=int, default=32, help="moves in all, half for each variant (default 32)")
    elif mode == "instr":
        a("--page", choices=PAGES, default="rankings")
        a("--moves", type=int, default=4)
        a("--against", metavar="DIR", help="another checkout (e.g. `git archive` of an older commit)")
        a("--child", metavar="ROOT", help=argparse.SUPPRESS)
    elif mode == "floor":
        a("--pages", nargs="+", default=list(CUTS), choices=list(CUTS))
        a("--sessions", type=int, nargs="+", default=[10, 20])
        a("--moves", type=int, default=5, help="slider moves per session (default 5)")
        a("--rounds", type=int, default=2, help="alternations of the page and its cut copy (default 2)")
    elif mode == "compute":
        a("--kind", default="bootstrap", choices=list(COMPUTE_PARAMS))
        a("--runs", type=int, default=100)
        a("--topics", type=int, default=50)
        a("--B", type=int, nargs="+", default=[100, 1000])
        a("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    elif mode == "load":
        a("--url", help="drive this server instead of starting one (no RSS / CPU then)")
        a("--app-dir", type=Path, default=APP_ROOT, help="the checkout whose app the server runs (default this "
          "one; another checkout, e.g. `git archive` of an older commit, is measured by this script)")
        a("--servers", type=int, default=1,
          help="streamlit processes; more than 1 runs them behind nginx (docs/deploy/nginx.conf)")
        a("--env", nargs="+", default=[], metavar="KEY=VALUE", help="environment of the servers, e.g. "
          "MALLOC_ARENA_MAX=2")
        a("--only", nargs="+", choices=["memory", "uploads", "wide", "latency", "freeze", "split", "compute"])
        a("--pin", action="store_true", help="server process i on core i, the clients and nginx on the cores left "
          "over (one process per core, simulated on a machine with more cores than processes)")
        a("--draws", type=int, default=5, help="'split': how many times the sessions are opened anew")
        a("--wide", type=int, nargs=2, default=[10_000, 100], metavar=("TOPICS", "RUNS"),
          help="the wide upload of 'wide' (default 10,000 topics x 100 runs, depth 10)")
        a("--sessions", type=int, nargs="+", default=[5, 10, 20])
        a("--pages", nargs="+", default=["rankings", "overview"], choices=["rankings", "overview"],
          help="page(s) the latency sessions sit on (default: Rankings, then the Overview, which also recomputes "
               "the live bootstrap and swap charts on every move)")
        a("--memory-sessions", type=int, nargs="+", default=[1, 10, 30])
        a("--upload-sessions", type=int, default=3,
          help="'uploads': sessions that each upload clef2015, one after another (default 3)")
        a("--identical", action="store_true",
          help="also a round where every session moves to the same values (shared cache hits)")
        a("--moves", type=int, default=5, help="slider moves per session (default 5)")
        a("--timeout", type=float, default=120, help="seconds a rerun may take before it is an error")
        a("--max-sessions", type=int, default=40)
        a("--seed", type=int, default=0)
        a("--freeze-sessions", type=int, default=5, help="sessions moving sliders in 'freeze' and 'compute' "
          "(default 5)")
        a("--compute-query", default="nr=120&nt=50&bsb=5000", help="'compute': the address of the Bootstrap page "
          "another session opens, its long refinement running while the others move sliders (default "
          "nr=120&nt=50&bsb=5000)")
        a("--upload-qrels", type=Path, metavar="FILE",
          help="'freeze' uploads this qrels file (with clef2015's runs) instead of clef2015's qrels")
    elif mode == "significance":
        a("--moves", type=int, default=6)


MODES = {"pages": mode_pages, "cpu": mode_cpu, "ab": mode_ab, "instr": mode_instr, "floor": mode_floor,
         "load": mode_load, "significance": mode_significance, "compute": mode_compute}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--mode", choices=list(MODES))
    known, _ = first.parse_known_args(argv)
    if known.mode is None:
        ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        ap.add_argument("--mode", choices=list(MODES), required=True, help="what to measure (see above); "
                        "--mode MODE --help lists that mode's options")
        ap.parse_args(argv)            # --help, or the error that --mode is missing
        return 2
    ap = argparse.ArgumentParser(prog=f"bench_dashboard.py --mode {known.mode}",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=list(MODES), required=True)
    _options(known.mode, ap)
    harness.add_options(ap)
    args = ap.parse_args(argv)
    return MODES[args.mode](args, argv)


if __name__ == "__main__":
    sys.exit(main())
