"""Dashboard speed: slider-to-update server time on clef2015, and start-to-first-paint.

    python benchmarks/bench_app.py                 # both measurements
    python benchmarks/bench_app.py --no-browser    # server time only

1. **Slider to update** (target <= 300 ms): clef2015 (30 runs x 66 topics x
   1000) is loaded once into an AppTest session; then the S gain slider is
   moved to a new value (never seen before, so nothing is served from the
   cache) and the whole script run of the Rankings page, and of the Rank
   correlation page (Kendall heatmap), is timed. AppTest runs the real page
   script in-process: the time is server time (script + serialisation), no
   network or browser rendering.
2. **Start to first paint** (target <= 5 s): `streamlit run app.py` is started
   headless; Debian's chromium (Playwright) opens it; the clock stops when the
   first page's title and sidebar are drawn and the script has finished.

clef2015 is read with evalcore.load_collection; while that is still a stub a
small TREC reader below builds the same tensor (score descending, ties by
document id descending, as trec_eval).
"""
from __future__ import annotations

import argparse
import gzip
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "clef2015"

import evalcore  # noqa: E402
from evalcore.collection import Collection  # noqa: E402


def _fallback_load(qrels_path: Path, runs_dir: Path) -> Collection:
    q = pd.read_csv(qrels_path, sep=r"\s+", header=None, names=["topic", "it", "doc", "rel"],
                    dtype={"topic": str, "doc": str})
    q["rel"] = q["rel"].clip(lower=0).astype(int)
    K = int(q["rel"].max())
    topics = sorted(q.loc[q["rel"] > 0, "topic"].unique(), key=lambda t: (len(t), t))
    tix = {t: i for i, t in enumerate(topics)}
    counts = np.zeros((len(topics), K + 1), dtype=np.int64)
    for (t, r), n in q[q["topic"].isin(tix)].groupby(["topic", "rel"]).size().items():
        counts[tix[t], r] = n
    rel = {(t, d): r for t, d, r in zip(q["topic"], q["doc"], q["rel"])}
    files = sorted(runs_dir.glob("*"))
    names, frames = [], []
    for f in files:
        with (gzip.open(f, "rt") if f.suffix == ".gz" else open(f)) as fh:
            df = pd.read_csv(fh, sep=r"\s+", header=None, usecols=[0, 2, 4], names=["topic", "doc", "score"],
                             dtype={"topic": str, "doc": str})
        names.append(f.name.removesuffix(".gz").rsplit(".", 1)[0])
        frames.append(df)
    depth = max(int(df.groupby("topic").size().max()) for df in frames)
    levels = np.zeros((len(files), len(topics), depth), dtype=np.int8)
    lengths = np.zeros((len(files), len(topics)), dtype=np.int32)
    for i, df in enumerate(frames):
        df = df[df["topic"].isin(tix)].sort_values(["topic", "score", "doc"], ascending=[True, False, False])
        for t, g in df.groupby("topic", sort=False):
            lv = np.array([rel.get((t, d), 0) for d in g["doc"]], dtype=np.int8)
            levels[i, tix[t], : lv.size] = lv
            lengths[i, tix[t]] = lv.size
    return Collection(levels=levels, lengths=lengths, level_counts=counts, run_ids=tuple(names),
                      topic_ids=tuple(topics), name="clef2015 (benchmark reader)")


def load_clef() -> tuple[Collection, str]:
    qrels, runs = DATA / "qrels.txt", DATA / "runs"
    try:
        return evalcore.load_collection(str(qrels), str(runs)), "evalcore.load_collection"
    except NotImplementedError:
        return _fallback_load(qrels, runs), "benchmark TREC reader (evalcore.load_collection is a stub)"


def slider_to_update(c: Collection, moves: int = 15) -> dict[str, list[float]]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.session_state["uploaded"] = c          # as the Data page stores a loaded upload
    at.run()
    at.selectbox(key="dataset").set_value("upload").run()
    assert at.session_state["_K"] == c.max_level
    out: dict[str, list[float]] = {}
    top = f"g{c.max_level}"
    values = np.round(np.linspace(3.1, 29.7, moves * 2), 1)   # every move a new value: no cache hits
    for k, page in enumerate(["views/3_rankings.py", "views/4_correlation.py"]):
        at.switch_page(page).run()
        assert not at.exception, [e.message for e in at.exception]
        times = []
        for v in values[k::2]:
            at.slider(key=top).set_value(float(v))
            t0 = time.perf_counter()
            at.run()
            times.append((time.perf_counter() - t0) * 1000)
            assert not at.exception, [e.message for e in at.exception]
        out[page] = times
    return out


def start_to_first_paint(runs: int = 3) -> list[float]:
    from playwright.sync_api import sync_playwright

    out = []
    for _ in range(runs):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"])
            page = browser.new_page()
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                     "--server.port", str(port), "--server.fileWatcherType", "none"],
                                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                while True:
                    try:
                        page.goto(f"http://127.0.0.1:{port}/", timeout=2000)
                        break
                    except Exception:  # noqa: BLE001 - server not up yet
                        if time.perf_counter() - t0 > 30:
                            raise
                        time.sleep(0.05)
                page.wait_for_selector("h1", timeout=30000)
                page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stSlider"]', timeout=30000)
                out.append(time.perf_counter() - t0)
            finally:
                browser.close()
                proc.terminate()
                proc.wait(10)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--moves", type=int, default=15)
    args = ap.parse_args()
    t0 = time.perf_counter()
    c, how = load_clef()
    print(f"clef2015: {c.n_runs} runs x {c.n_topics} topics x depth {c.depth}, levels 0..{c.max_level}; "
          f"read in {time.perf_counter() - t0:.1f} s with {how}")
    res = slider_to_update(c, args.moves)
    for page, times in res.items():
        print(f"slider -> updated {Path(page).stem}: median {statistics.median(times):.0f} ms, "
              f"max {max(times):.0f} ms over {len(times)} moves")
    if not args.no_browser and Path("/usr/bin/chromium").exists():
        t = start_to_first_paint()
        print(f"start -> first paint (simulated data): median {statistics.median(t):.2f} s, "
              f"max {max(t):.2f} s over {len(t)} starts")


if __name__ == "__main__":
    main()
