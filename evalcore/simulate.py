"""Built-in data: a simulated NTCIR-like collection and the papers' worked examples.

Both return an ordinary :class:`~evalcore.collection.Collection`, so every
metric and meta-evaluation works on them unchanged.
"""
from __future__ import annotations

import numpy as np

from .collection import Collection, LoadReport
from .io.limits import DEFAULT_LIMITS

#: Most bytes of levels (1 per topic x run x rank) a simulated collection may hold.
MAX_SIM_BYTES = DEFAULT_LIMITS.max_tensor_bytes

__all__ = ["simulated_collection", "paper_examples", "PAPER_EXAMPLE_NOTES"]

SAB = ("B", "A", "S")


def simulated_collection(n_topics: int = 50, n_runs: int = 30, *, depth: int = 1000, seed: int = 0,
                         mean_counts: tuple[float, float, float] = (23.0, 31.0, 7.0),
                         n_nonrelevant: int = 20000) -> Collection:
    """A deterministic NTCIR-like collection: levels S/A/B, graded systems.

    Per topic, the numbers of B-, A- and S-relevant documents are drawn
    around ``mean_counts`` (B, A, S; default 23, 31, 7 as in 003 Table 1,
    NTCIR-5 Chinese), at least one relevant document per topic. Each system
    has a quality, a taste for highly relevant documents and per-topic
    noise; a relevant document's score sets how many of
    ``n_nonrelevant`` non-relevant documents outrank it (logistic scores),
    which fixes its rank. Lists hold ``depth`` documents; relevant ones
    falling below ``depth`` are not retrieved. Same arguments, same data.

    >>> c = simulated_collection(n_topics=5, n_runs=4, seed=1)
    >>> c.levels.shape, c.level_names
    ((4, 5, 1000), ('B', 'A', 'S'))
    """
    for name, v, lo in (("n_topics", n_topics, 1), ("n_runs", n_runs, 1), ("depth", depth, 1)):
        if int(v) != v or v < lo:
            raise ValueError(f"{name} must be a whole number >= {lo}; got {v!r}")
    n_topics, n_runs, depth = int(n_topics), int(n_runs), int(depth)
    if n_topics * n_runs * depth > MAX_SIM_BYTES:   # checked before anything is sized by them
        raise ValueError(f"n_topics x n_runs x depth = {n_topics:,} x {n_runs:,} x {depth:,} = "
                         f"{n_topics * n_runs * depth:,} bytes of levels, more than {MAX_SIM_BYTES:,} "
                         f"(MAX_SIM_BYTES, the loader's default tensor limit); ask for fewer topics, runs or ranks")
    rng = np.random.default_rng(seed)
    K = 3
    # per-topic relevant counts: negative binomial around the means (overdispersed, as real topics)
    counts = np.zeros((n_topics, K + 1), dtype=np.int64)
    for L, mu in enumerate(mean_counts, start=1):
        k = 1.5
        counts[:, L] = rng.negative_binomial(k, k / (k + mu), size=n_topics)
    empty = counts[:, 1:].sum(axis=1) == 0
    counts[empty, 3] = 1
    counts[:, 0] = rng.integers(200, 800, size=n_topics)    # judged non-relevant

    quality = rng.permutation(np.linspace(-2.0, 2.0, n_runs))
    taste = rng.normal(0.0, 0.5, size=n_runs)                # preference for S over B
    difficulty = rng.normal(0.0, 1.5, size=n_topics)
    levels = np.zeros((n_runs, n_topics, depth), dtype=np.int8)
    for t in range(n_topics):
        lv = np.repeat(np.arange(1, K + 1), counts[t, 1:])  # this topic's relevant documents
        n = lv.size
        s = (4.0 + quality[:, None] + 1.0 * lv[None, :] + taste[:, None] * (lv[None, :] - 2)
             - difficulty[t] + rng.normal(0.0, 0.8, size=(n_runs, 1))
             + rng.logistic(0.0, 1.0, size=(n_runs, n)))
        order = np.argsort(-s, axis=1, kind="stable")
        s_sorted = np.take_along_axis(s, order, axis=1)
        lv_sorted = lv[order]
        above = np.floor(n_nonrelevant / (1.0 + np.exp(s_sorted))).astype(np.int64)
        rank = above + np.arange(1, n + 1)[None, :]          # 1-based
        ok = rank <= depth
        r_idx, c_idx = np.nonzero(ok)
        levels[r_idx, t, rank[r_idx, c_idx] - 1] = lv_sorted[r_idx, c_idx]
    width = len(str(n_topics))
    report = LoadReport(qrels_source=f"simulated (seed {seed})",
                        level_judgments={L: int(counts[:, L].sum()) for L in range(K + 1)})
    return Collection(
        levels=levels,
        lengths=np.full((n_runs, n_topics), depth, dtype=np.int32),
        level_counts=counts,
        run_ids=tuple(f"sim-{i + 1:02d}" for i in range(n_runs)),
        topic_ids=tuple(f"T{j + 1:0{max(width, 3)}d}" for j in range(n_topics)),
        level_names=SAB,
        name=f"Simulated NTCIR-like ({n_topics} topics, {n_runs} runs, seed {seed})",
        report=report,
    )


#: What each run of :func:`paper_examples` is, for the app and the docs.
PAPER_EXAMPLE_NOTES = {
    "X": "003 Fig. 3: a B-relevant document at rank 1",
    "Y": "003 Fig. 3: non-relevant, then an S-relevant document at rank 2",
    "Z": "003 Fig. 3: B at rank 1, S at rank 2",
    "inverse": "003 Sec. 3.3: the perfect inverse of the ideal list, [B, A, S]",
    "ideal": "the ideal list [S, A, B]",
    "S-at-3": "003 Fig. 2: an S-relevant document at rank 3 (on every topic)",
}


def paper_examples() -> Collection:
    """The worked examples of 003 Sec. 3.2-3.3 as a tiny collection (levels S/A/B).

    Topics: ``T1`` has one S-relevant document (003 Fig. 2, left); ``T2``
    three S-relevant documents (Fig. 2, right); ``T3`` one S-, one A- and
    one B-relevant document (Fig. 3). Runs X, Y, Z, inverse and ideal are
    defined on T3 only (the paper defines them there; their other topics
    are empty lists and score 0); ``S-at-3`` has an S document at rank 3
    on every topic. Expected values with gains 3:2:1 and penalties 2:3:4:
    O(X) = P(X) = 0.50, O(Y) = P(Y) = 4/7, O(Z) = 0.50 and P(Z) = 6/7,
    P(inverse) = 1 and P+(inverse) = 0.74; NWRR(S-at-3) = 1/5 on every
    topic; O(S-at-3) = 2/3 on T1 and 1/3 on T2.

    >>> c = paper_examples()
    >>> c.run_ids
    ('X', 'Y', 'Z', 'inverse', 'ideal', 'S-at-3')
    """
    S, A, B = 3, 2, 1
    lists = {
        "X": {"T3": [B]},
        "Y": {"T3": [0, S]},
        "Z": {"T3": [B, S]},
        "inverse": {"T3": [B, A, S]},
        "ideal": {"T3": [S, A, B]},
        "S-at-3": {"T1": [0, 0, S], "T2": [0, 0, S], "T3": [0, 0, S]},
    }
    counts = {"T1": [0, 0, 0, 1], "T2": [0, 0, 0, 3], "T3": [0, 1, 1, 1]}
    c = Collection.from_lists(lists, counts, level_names=SAB, name="003 worked examples")
    c.report.qrels_source = "003 Fig. 2 and Fig. 3"
    return c
