"""DataFrame input (docs/benchmarks.md section 6): evalcore vs pytrec_eval on the same PyTerrier-style DataFrames, same
run.

    python benchmarks/bench_frames.py [--repeat 5] [--data ../shared/data/clef2015]

The clef2015 qrels and 30 runs are read once into pandas DataFrames with
PyTerrier's columns (qid, docno, label / qid, docno, score). Timed, from those
DataFrames: evalcore ``load_collection(qrels_df, {name: run_df})`` +
``evaluate`` of map, recip_rank, P_10, ndcg_cut_10, Rprec (by their trec_eval
names), against what a pytrec_eval user does: build the ``{qid: {docno: ...}}``
dicts from the DataFrames and ``RelevanceEvaluator.evaluate`` each run.
Reports process CPU time (medians) and the ratio.
"""
from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import evalcore  # noqa: E402

MEASURES = ["map", "recip_rank", "P_10", "ndcg_cut_10", "Rprec"]


def frames(data: Path):
    q = pd.read_csv(data / "qrels.txt", sep=r"\s+", header=None, names=["qid", "it", "docno", "label"],
                    dtype={"qid": str, "docno": str})
    runs = {}
    for f in sorted((data / "runs").glob("*.gz")):
        with gzip.open(f, "rt") as fh:
            df = pd.read_csv(fh, sep=r"\s+", header=None, names=["qid", "q0", "docno", "rank", "score", "tag"],
                             dtype={"qid": str, "docno": str})
        runs[f.name[:-7]] = df[["qid", "docno", "score", "rank"]]
    return q[["qid", "docno", "label"]], runs


def with_evalcore(q, runs):
    c = evalcore.load_collection(q, runs)
    return evalcore.evaluate(c, MEASURES)


def with_pytrec_eval(q, runs):
    import pytrec_eval

    qd: dict = {}
    for a, d, L in q.itertuples(index=False):
        qd.setdefault(a, {})[d] = int(L)
    ev = pytrec_eval.RelevanceEvaluator(qd, set(MEASURES))
    out = {}
    for name, df in runs.items():
        rd: dict = {}
        for a, d, s, _ in df.itertuples(index=False):
            rd.setdefault(a, {})[d] = float(s)
        out[name] = ev.evaluate(rd)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "clef2015")
    args = ap.parse_args()
    q, runs = frames(args.data)
    print(f"{len(runs)} runs, {sum(len(r) for r in runs.values()):,} rows; measures {', '.join(MEASURES)}")
    times: dict[str, list[float]] = {"evalcore": [], "pytrec_eval": []}
    with_evalcore(q, runs)                                 # warm-up (imports)
    for _ in range(args.repeat):
        for name, fn in (("evalcore", with_evalcore), ("pytrec_eval", with_pytrec_eval)):
            c0 = time.process_time()
            fn(q, runs)
            times[name].append(time.process_time() - c0)
    e, p = statistics.median(times["evalcore"]), statistics.median(times["pytrec_eval"])
    print(f"evalcore    (DataFrames -> load_collection + evaluate): {e:.3f} s CPU (median of {args.repeat})")
    print(f"pytrec_eval (DataFrames -> dicts + evaluate):            {p:.3f} s CPU")
    print(f"ratio: pytrec_eval / evalcore = {p / e:.2f}x")


if __name__ == "__main__":
    main()
