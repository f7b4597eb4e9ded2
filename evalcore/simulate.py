"""Built-in data: a simulated NTCIR-like collection and the papers' worked examples.

Both return an ordinary :class:`~evalcore.collection.Collection`, so every
metric and meta-evaluation works on them unchanged.

The simulation models the NTCIR CLIR data as Sakai 2007 (003) Sec. 5.1 and Table 1 describe it: three
relevance levels S/A/B in Table 1's shares, 30 runs of differing quality that also differ in how far they
lift highly relevant documents, topics of differing difficulty (the model and its parameters:
:func:`simulated_collection`). On the default data (seed 0) it reproduces, as consequences of those
assumptions rather than as evidence:

- 003 Table 2: every pair of RR, NWRR, O-, P-, P+-measure, AveP and Q-measure has Kendall's tau above 0.34
  (significant at alpha = 0.01 with 30 runs, 003 Sec. 4.1), with 003's pattern: the graded one-document
  metrics (NWRR, O-, P-, P+-measure) agree more with one another than with RR, AveP or Q-measure;
- 003 Tables 3-4: P(+)-measure and O-measure > NWRR > RR in discriminative power, and AveP and Q-measure
  above every one-document metric, in most Monte Carlo repetitions of the swap and bootstrap methods.

It cannot reproduce 003's absolute figures (% of pairs significant, required differences, the taus
themselves), which 003 shows depend on the set of runs; the data sets' exceptions (O-measure above
P-measure on NTCIR-5 Chinese, O and P+ below 0.8 on NTCIR-5 Japanese); Tables 5-6 (other gain values) and
the Appendix's preferred ranks, which it was not fitted to; nor anything the model leaves out: teams
submitting near-identical runs, pooling and unjudged documents, dependence between documents.
docs/dashboard.md, "The built-in data", lists the measured values.
"""
from __future__ import annotations

import numpy as np

from .collection import Collection, LoadReport
from .io.limits import DEFAULT_LIMITS

#: Most bytes of levels (1 per topic x run x rank) a simulated collection may hold.
MAX_SIM_BYTES = DEFAULT_LIMITS.max_tensor_bytes

__all__ = ["simulated_collection", "paper_examples", "PAPER_EXAMPLE_NOTES", "NTCIR5_CHINESE_COUNTS"]

SAB = ("B", "A", "S")


#: Mean relevant documents per topic at levels B, A, S: 003 Table 1, NTCIR-5 Chinese (23.3, 30.7, 7.0),
#: i.e. 38 %, 50 % and 11 % of the relevant documents.
NTCIR5_CHINESE_COUNTS = (23.3, 30.7, 7.0)
#: The model's fixed terms (logits; see :func:`simulated_collection`): how easily a typical run finds a
#: B-relevant document on a topic of average difficulty, how far a typical run lifts a document per level
#: above B, the spread of topic difficulty and of a run's form on one topic.
EASE, EMPHASIS_MEAN, DIFFICULTY_SD, RUN_TOPIC_SD = 5.5, 1.0, 1.5, 0.8


def simulated_collection(n_topics: int = 50, n_runs: int = 30, *, depth: int = 1000, seed: int = 0,
                         mean_counts: tuple[float, float, float] = NTCIR5_CHINESE_COUNTS,
                         n_nonrelevant: int = 20000, quality_sd: float = 0.5,
                         emphasis_sd: float = 0.6) -> Collection:
    r"""A deterministic NTCIR-like collection modelled on 003's data (levels S/A/B, 30 runs).

    What Sakai 2007 (003) Sec. 5.1 says of its NTCIR CLIR data, and how the model follows it:

    - **Three levels, with 003 Table 1's shares.** Per topic, the numbers of B-, A- and S-relevant
      documents are negative binomial (dispersion 1.5: topics differ widely, as real ones) around
      ``mean_counts`` (B, A, S; default :data:`NTCIR5_CHINESE_COUNTS`, 003 Table 1 NTCIR-5 Chinese:
      23.3, 30.7, 7.0 per topic, so about 38 % B, 50 % A and 11 % S), at least one relevant document
      per topic, 200-799 judged non-relevant ones.
    - **30 runs of differing quality, the top runs of a track.** 003 keeps the 30 best runs by relaxed
      AveP (its Fig. 8: their mean AveP differ, some by little). Run i has a quality :math:`q_i`
      (spread ``quality_sd``): how early it ranks relevant documents of any level. Good runs find some
      relevant document at rank 1 on most topics, so RR ties often.
    - **The runs differ in where they rank highly relevant documents** (003 Sec. 1 and 5: "finding one
      *highly* relevant document is not the same as finding any one relevant document"). Run i has an
      emphasis :math:`e_i` (mean :data:`EMPHASIS_MEAN`, spread ``emphasis_sd``): how far it lifts a
      document per level above B. Quality and emphasis are evenly spaced values (uniform, with the asked
      sd), shuffled independently over the runs, so every run has its own of each; with
      ``emphasis_sd`` above :data:`EMPHASIS_MEAN` / sqrt(3) the lowest run's emphasis is negative (it
      ranks B- above S-relevant documents).
    - **Topics differ in difficulty** (:math:`\delta_t \sim N(0, 1.5^2)`, :data:`DIFFICULTY_SD`) and a
      run's form varies from topic to topic (:math:`u_{it} \sim N(0, 0.8^2)`, :data:`RUN_TOPIC_SD`).

    The relevant document d of level L(d) (B = 1, A = 2, S = 3) on topic t gets, in run i, the logit

    .. math:: s = EASE + q_i + e_i\,(L(d) - 1) - \delta_t + u_{it} + \epsilon_{itd}

    with :math:`\epsilon` standard logistic and :data:`EASE` = 5.5. The score sets how many of
    ``n_nonrelevant`` non-relevant documents outrank d (n / (1 + e^s)), which fixes its rank; lists hold
    ``depth`` documents and relevant ones falling below are not retrieved.

    Emphasis lifts A- and S-relevant documents and leaves B ones where quality puts them: a run good at
    ranking highly relevant documents early is no worse at finding relevant ones, as 003's collections
    suggest: on all four, every metric pair of its Table 2 correlates (tau > 0.34). An earlier version
    centred the emphasis on A (``e_i (L(d) - 2)``), so a run lifting S documents pushed B ones down;
    AveP and O-measure then ranked the runs in nearly opposite orders.

    What follows on the default data (seed 0; the measured values in docs/dashboard.md, "The built-in
    data"), from these assumptions only (it is the model's design, not evidence): every pair of 003
    Table 2's metrics has Kendall's tau > 0.34 (significant at alpha = 0.01); 003 Tables 3-4's order
    P(+) > O > NWRR > RR holds in most Monte Carlo repetitions of the swap and bootstrap methods
    (B = 1000, 5 repetitions), and so does AveP's and Q-measure's lead over every one-document metric. Set
    ``emphasis_sd`` to 0 (and e.g. ``quality_sd=1.2``) and the runs differ only in finding any relevant
    document: RR then beats O-measure and NWRR and the order fails - the contrast lives in the
    assumption that runs differ in where they rank highly relevant documents. The absolute figures
    (% of pairs significant) are higher than 003's: they depend on the runs' spread, which 003 Table 4
    shows varies from one data set to another.

    Same arguments, same data.

    >>> c = simulated_collection(n_topics=5, n_runs=4, seed=1)
    >>> c.levels.shape, c.level_names
    ((4, 5, 1000), ('B', 'A', 'S'))
    """
    for name, v, lo in (("n_topics", n_topics, 1), ("n_runs", n_runs, 1), ("depth", depth, 1)):
        if int(v) != v or v < lo:
            raise ValueError(f"{name} must be a whole number >= {lo}; got {v!r}")
    for name, x in (("quality_sd", quality_sd), ("emphasis_sd", emphasis_sd)):
        if not (isinstance(x, (int, float)) and np.isfinite(x) and 0 <= x <= 10):
            raise ValueError(f"{name} must be a number from 0 to 10 (logits); got {x!r}")
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

    # evenly spaced values with the asked sd (uniform on [-sqrt(3) sd, sqrt(3) sd]), shuffled over the runs
    spaced = np.linspace(-1.0, 1.0, n_runs) * np.sqrt(3.0) if n_runs > 1 else np.zeros(1)
    quality = rng.permutation(spaced) * quality_sd
    emphasis = EMPHASIS_MEAN + rng.permutation(spaced) * emphasis_sd
    difficulty = rng.normal(0.0, DIFFICULTY_SD, size=n_topics)
    levels = np.zeros((n_runs, n_topics, depth), dtype=np.int8)
    for t in range(n_topics):
        lv = np.repeat(np.arange(1, K + 1), counts[t, 1:])  # this topic's relevant documents
        n = lv.size
        # the lift counts levels above B: emphasis never pushes a B document down (see the docstring)
        s = (EASE + quality[:, None] + emphasis[:, None] * (lv[None, :] - 1)
             - difficulty[t] + rng.normal(0.0, RUN_TOPIC_SD, size=(n_runs, 1))
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
