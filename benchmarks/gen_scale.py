"""Synthetic TREC collections for the scaling benchmark (benchmarks/bench_scale.py), deterministic from a seed.

    python benchmarks/gen_scale.py --shape 100x250x1000 [--lines 2,6,12,25] [--seed 0] [--out /tmp/evalcore_scale]
    python benchmarks/gen_scale.py --shape 100x250x1000 --lines 25 --doc-prefix clueweb12-0000tw-   # long ids

Writes, under ``OUT/RUNSxTOPICSxDEPTH-sSEED/`` (``...-sSEED-prefixed/`` with ``--doc-prefix``):

* ``qrels.txt`` - TREC qrels (``topic 0 doc rel``), graded 0..3;
* ``all/rNNN.txt`` - the largest size's runs (``topic Q0 doc rank score tag``);
* ``<L>M/`` - one directory per size holding symlinks to the first
  ``L * 1e6 / (topics * depth)`` runs (so the curve's collections are nested:
  the 2 M collection is the first runs of the 25 M one; every run has
  ``topics x depth`` lines).

What makes it realistic enough to load: per topic a judged pool (a fixed
number of judgments, levels 0..3 with probabilities 0.94, 0.035, 0.018, 0.007:
about 6 % relevant, as in TREC Robust 2004's 311 k judgments)
and a larger pool of unjudged candidates, both drawn from a corpus of
document ids shaped like TREC ones (``FT934-12345``-style); every run ranks
``depth`` distinct candidates per topic, relevant ones preferred (so runs
differ in quality), with scores rounded to 2 decimals in a decaying
distribution - about 12 % of the lines (in the tail) tie with the next one
on score, so the trec_eval tie-break (document id, descending) matters. Lines are in
rank order with consecutive ranks, as a TREC run is written.

Nothing is written under the repository: the default output is under /tmp
(these files are 1 GB per 25 M lines; delete them when done).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv

LEVEL_P = (0.94, 0.035, 0.018, 0.007)  # ~6 % of judged documents relevant, as in TREC Robust 2004
# judgments per topic by (topics, depth): Robust 2004 (~1250), MS MARCO-like (few), TREC-like (2000)
JUDGED = {(250, 1000): 1250, (5000, 100): 40, (50, 1000): 2000}


def parse_shape(s: str) -> tuple[int, int, int]:
    try:
        r, t, d = (int(x) for x in s.lower().split("x"))
    except ValueError:
        raise SystemExit(f"--shape must be RUNSxTOPICSxDEPTH, e.g. 100x250x1000; got {s!r}") from None
    if min(r, t, d) < 1:
        raise SystemExit(f"--shape needs positive numbers; got {s!r}")
    return r, t, d


def _doc_ids(n: int, prefix: str = "") -> pa.Array:
    """n distinct TREC-like document ids (``FBIS3-10082`` style, 7-14 bytes), as an arrow string
    array; ``prefix`` before each (``clueweb12-0000tw-``: 24-31 bytes, as long as ClueWeb ids)."""
    prefixes = np.array([prefix + p for p in ("FBIS3", "FBIS4", "FT921", "FT934", "LA0119", "LA1231", "FR940104")])
    i = np.arange(n)
    pre = prefixes[i % prefixes.size]
    num = (i // prefixes.size).astype(str)
    return pa.array(np.char.add(np.char.add(pre, "-"), num))


def generate(shape: tuple[int, int, int], sizes_m: list[float], seed: int, out: Path, doc_prefix: str = "") -> Path:
    n_runs_max, n_topics, depth = shape
    per_run = n_topics * depth
    want = {s: max(1, int(round(s * 1e6 / per_run))) for s in sizes_m}
    n_runs = max([n_runs_max] + list(want.values()))
    root = out / f"{n_runs_max}x{n_topics}x{depth}-s{seed}{'-prefixed' if doc_prefix else ''}"
    (root / "all").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_judged = JUDGED.get((n_topics, depth), max(20, depth))
    pool = n_judged + 2 * depth                     # candidates per topic: judged + unjudged
    corpus = _doc_ids(max(n_topics * pool // 2, pool * 2), doc_prefix)
    topics = np.array([str(401 + t) for t in range(n_topics)])
    # per topic: pool candidate ids (distinct within the topic), the first n_judged are judged
    cand = np.stack([rng.choice(len(corpus), pool, replace=False) for _ in range(n_topics)])
    rel = rng.choice(4, size=(n_topics, n_judged), p=LEVEL_P).astype(np.int64)
    rel[:, 0] = np.maximum(rel[:, 0], 1)            # every topic has a relevant document
    qpath = root / "qrels.txt"
    if not qpath.exists():
        q = pa.table({"t": np.repeat(topics, n_judged), "i": np.zeros(n_topics * n_judged, np.int64),
                      "d": corpus.take(pa.array(cand[:, :n_judged].ravel())), "r": rel.ravel()})
        _write(q, qpath)
    gain = np.zeros((n_topics, pool))
    gain[:, :n_judged] = rel
    for r in range(n_runs):
        path = root / "all" / f"r{r:03d}.txt"
        if path.exists():
            continue
        rr = np.random.default_rng([seed, r])
        quality = rr.uniform(0.2, 2.0)
        key = gain * quality + rr.gumbel(size=gain.shape)        # relevant documents preferred
        top = np.argpartition(-key, depth - 1, axis=1)[:, :depth]
        top = np.take_along_axis(top, np.argsort(-np.take_along_axis(key, top, 1), axis=1), 1)
        docs = np.take_along_axis(cand, top, 1).ravel()
        # decaying scores, 2 decimals: the tail ties often, as BM25 scores do
        base = 25.0 * np.exp(-np.arange(depth) / (depth / 3)) + rr.uniform(0, 0.5, size=(n_topics, 1))
        score = np.round(base, 2).ravel()
        t = pa.table({"t": np.repeat(topics, depth),
                      "q": pa.array(["Q0"] * 1).take(pa.array(np.zeros(per_run, np.int64))),
                      "d": corpus.take(pa.array(docs)), "k": np.tile(np.arange(1, depth + 1), n_topics),
                      "s": score, "g": pa.array([f"run{r:03d}"]).take(pa.array(np.zeros(per_run, np.int64)))})
        _write(t, path)
        print(f"\r{root.name}: run {r + 1}/{n_runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    for s, k in want.items():
        d = root / f"{s:g}M"
        d.mkdir(exist_ok=True)
        for r in range(k):
            link = d / f"r{r:03d}.txt"
            if not link.exists():
                link.symlink_to(root / "all" / f"r{r:03d}.txt")
    return root


def _write(table: pa.Table, path: Path) -> None:
    tmp = path.with_suffix(".part")
    pcsv.write_csv(table, tmp, write_options=pcsv.WriteOptions(include_header=False, delimiter=" ",
                                                               quoting_style="none"))
    tmp.rename(path)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", default="100x250x1000", help="RUNSxTOPICSxDEPTH (default 100x250x1000)")
    ap.add_argument("--lines", default="2,6,12,25", help="sizes in millions of run lines (default 2,6,12,25)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/evalcore_scale"))
    ap.add_argument("--doc-prefix", default="", help="text before every document id (e.g. clueweb12-0000tw-, "
                                                      "for ids as long as ClueWeb's); the directory name gets "
                                                      "-prefixed")
    args = ap.parse_args(argv)
    if any(c.isspace() for c in args.doc_prefix):
        raise SystemExit("--doc-prefix must not contain blanks")
    sizes = [float(x) for x in args.lines.split(",") if x.strip()]
    print(generate(parse_shape(args.shape), sizes, args.seed, args.out, args.doc_prefix))


if __name__ == "__main__":
    main()
