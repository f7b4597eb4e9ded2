"""DataFrame input (docs/benchmarks.md section 6): evalcore vs pytrec_eval on the same PyTerrier-style DataFrames, same
run.

    python benchmarks/bench_frames.py [--repeat 5] [--data ../shared/data/clef2015]

The clef2015 qrels and 30 runs are read once into pandas DataFrames with
PyTerrier's columns (qid, docno, label / qid, docno, score). Timed, from those
DataFrames: evalcore ``load_collection(qrels_df, {name: run_df})`` +
``evaluate`` of map, recip_rank, P_10, ndcg_cut_10, Rprec (by their trec_eval
names), against what a pytrec_eval user does: build the ``{qid: {docno: ...}}``
dicts from the DataFrames and ``RelevanceEvaluator.evaluate`` each run.
Reports process CPU time (medians of interleaved rounds, benchmarks/harness.py) and the ratio; the result goes
to benchmarks/results/frames/.
"""
from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))

import harness  # noqa: E402

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


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "clef2015")
    harness.add_options(ap)
    args = ap.parse_args(argv)
    res = harness.Result("frames", argv, {"repeat": args.repeat, "data": args.data.name, "measures": MEASURES},
                         script=__file__)
    q, runs = frames(args.data)
    print(f"{len(runs)} runs, {sum(len(r) for r in runs.values()):,} rows; measures {', '.join(MEASURES)}")
    got = harness.rounds({"evalcore": lambda: with_evalcore(q, runs), "pytrec_eval": lambda: with_pytrec_eval(q, runs)},
                         args.repeat)                       # one warm-up call of each (imports)
    res.add_rounds(got)
    e, p = got.stats("evalcore", "cpu").median, got.stats("pytrec_eval", "cpu").median
    ratios = got.ratios("pytrec_eval", "evalcore", "cpu")
    cols = [harness.col("tool"), harness.col("what"), harness.col("CPU s (median)", "{:.3f}", "cpu", right=True)]
    print(res.table(cols,
                    [{"tool": "evalcore", "what": "DataFrames -> load_collection + evaluate", "cpu": e},
                     {"tool": "pytrec_eval", "what": "DataFrames -> dicts + evaluate", "cpu": p}],
                    title=f"CPU, median of {args.repeat} interleaved rounds:",
                    notes=[f"ratio: pytrec_eval / evalcore = {p / e:.2f}x (within each round: "
                           f"{', '.join(f'{x:.2f}' for x in ratios)})"]))
    res.save(args)


if __name__ == "__main__":
    main()
