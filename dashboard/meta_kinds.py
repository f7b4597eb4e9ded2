"""The resampling methods the app runs live ("kinds"): the evalcore function behind each, its parameters and
the result frames kept, the repetitions and topic samples beside them, and the Report's alphas.

The Significance page's two kinds: "pairs" is one :func:`evalcore.meta.pair_statistics` call; "pairs_spread"
repeats the chosen resampled test over seeds seed..seed+repeats-1 and keeps only the raw p-values, so the
correction and alpha are applied when drawing (dashboard.significance).

A kind's function takes ``(scores, run_ids, **params)`` plus ``B``, ``seed``, ``progress`` and ``threads``
(:func:`dashboard.meta_store.meta_compute` calls them and keeps the results). Nothing here draws.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from evalcore import meta as _meta

#: The alphas of the Report's Table 4 (evalcore report). When the Bootstrap page's B and seed are the ones
#: the Report page would use (:func:`report_alphas_wanted`; only then can the Report take its rows), its
#: bootstrap results are computed at these beside the page's own alpha (``report_alphas`` among the
#: parameters; the page's alpha first, so the pairs' ``significant`` column reads it) and shown at the page's
#: alpha only, so that the Report takes Table 4's rows from the page (:mod:`dashboard.meta_store`). An extra
#: alpha costs CPU (a second pass over every pair's B values; docs/benchmarks.md sections 16.4 and 17), so it
#: is asked for only then.
REPORT_ALPHAS = (0.05, 0.01)


def report_alphas_wanted(B: int, seed: int) -> bool:
    """Whether the Bootstrap page's B and seed are the Report page's (its options, else its defaults)."""
    # imported here: a computation's child interpreter (dashboard.compute) imports this module, and
    # dashboard.state imports Streamlit, which it does not need
    from . import state

    return (int(B), int(seed)) == (int(state.value("rp_B")), int(state.value("rp_seed")))


def report_alphas(kw: dict) -> dict:
    """The bootstrap's keywords: ``report_alphas`` (True) turns into the page's alpha and :data:`REPORT_ALPHAS`."""
    kw = dict(kw)
    if kw.pop("report_alphas", False):
        kw["alpha"] = tuple(dict.fromkeys((float(kw["alpha"]), *REPORT_ALPHAS)))
    return kw


def page_alpha(kind: str, frames: dict, params: dict) -> dict:
    """A bootstrap result's summary frames at the page's alpha only (:data:`REPORT_ALPHAS`)."""
    if kind not in ("bootstrap", "bootstrap_spread"):
        return frames
    a = float(params["alpha"])
    return {n: df[np.isclose(df["alpha"], a)].reset_index(drop=True) if "alpha" in df.columns else df
            for n, df in frames.items()}


#: The resampled tests of the pair statistics (the others are exact: B plays no part)
RESAMPLED_TESTS = ("randomisation", "bootstrap")


def standardised(sc: dict, standardise: str | None) -> dict:
    """Score matrices standardised per topic over the loaded runs (Webber et al. 2008), or as they are."""
    return sc if standardise in (None, "none") else _meta.standardise_scores(sc, standardise)


def one_blas_thread():
    """Single-threaded BLAS while pair statistics run (threadpoolctl, if installed).

    pair_statistics' resampled tests are many small matrix products; on a shared 2-core machine
    OpenBLAS's second thread made them several times dearer in CPU time and no faster (docs/benchmarks.md
    section 9, ``benchmarks/bench_dashboard.py --mode significance``). The limit is process-wide for the
    duration of the call.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:                     # optional: without it BLAS keeps its default
        from contextlib import nullcontext
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def pairs_kind(sc, run_ids, *, B, seed, confidence, standardise, tests, progress=None, threads=1):
    """The "pairs" kind: one :func:`evalcore.meta.pair_statistics` call, its (B, n) samples not kept."""
    from types import SimpleNamespace
    with one_blas_thread():
        res = _meta.pair_statistics(standardised(sc, standardise), run_ids=run_ids, confidence=confidence,
                                    tests=tests, B=B, seed=seed, progress=progress, threads=threads)
    return SimpleNamespace(result=replace(res, samples=None))


def spread_kind(sc, run_ids, *, B, seed, repeats, test, standardise, progress=None, threads=1):
    """The "pairs_spread" kind: the resampled ``test`` repeated over seeds ``seed .. seed + repeats - 1``,
    the raw p-values of every repetition kept."""
    from types import SimpleNamespace
    if test not in RESAMPLED_TESTS:
        raise ValueError(f"a Monte Carlo spread exists only for the resampled tests "
                         f"({', '.join(RESAMPLED_TESTS)}); got {test!r}")
    sc = standardised(sc, standardise)
    frames = []
    for r in range(int(repeats)):
        sub = None if progress is None else (lambda f, r=r: progress((r + f) / int(repeats)))
        with one_blas_thread():
            res = _meta.pair_statistics(sc, run_ids=run_ids, tests=(test,), B=B, seed=int(seed) + r, progress=sub,
                                        threads=threads)
        p = res.pairs
        frames.append(pd.DataFrame({"metric": p["metric"], "run_x": p["run_x"], "run_y": p["run_y"], "repeat": r,
                                    "seed": int(seed) + r, "p_value": p["p_" + test]}))
    return SimpleNamespace(pvalues=pd.concat(frames, ignore_index=True))


#: The four resampling methods the app runs live: evalcore function, its
#: parameter names (besides scores, B, seed, progress), the result frames kept.
META_KINDS = {
    "swap": (lambda sc, run_ids, **kw: _meta.swap_method(sc, rule="003", **kw), ("sampling", "subset_size"),
             ("curves", "summary")),
    "bootstrap": (lambda sc, run_ids, **kw: _meta.bootstrap_sensitivity(sc, run_ids=run_ids, **report_alphas(kw)),
                  ("alpha",),
                  ("pairs", "summary", "asl_curves")),
    "tukey": (lambda sc, run_ids, **kw: _meta.tukey_hsd(sc, run_ids=run_ids, **kw), ("alpha",),
              ("pairs", "summary")),
    "stability": (lambda sc, run_ids, **kw: _meta.stability(sc, **kw), ("subset_size",), ("summary",)),
}

#: Monte Carlo repetitions drawn beside the swap and bootstrap summaries, to show their Monte Carlo
#: spread: the same method repeated with seeds derived from the page's seed (evalcore.meta.repeat); the
#: spread frame (mean, sd, min, max, n of every summary figure) is kept.
SPREAD_REPEATS = 5
META_KINDS["swap_spread"] = (lambda sc, run_ids, **kw: _meta.repeat("swap", sc, rule="003", **kw),
                             ("sampling", "subset_size", "repeats"), ("spread", "per_repeat"))
META_KINDS["bootstrap_spread"] = (lambda sc, run_ids, **kw: _meta.repeat("bootstrap", sc, run_ids=run_ids,
                                                                         **report_alphas(kw)),
                                  ("alpha", "repeats"), ("spread", "per_repeat"))
#: Topic samples behind the claim verdicts (evalcore.meta.topic_bootstrap): how often Sakai 2007's order would hold
#: on another topic set of this size. Each sample runs the method at :data:`TOPIC_B`, a fixed B kept small
#: so that the verdict's topic part costs a few seconds (the Report runs more, at the B asked for).
TOPIC_RESAMPLES = 20
TOPIC_B = 100
META_KINDS["swap_topics"] = (lambda sc, run_ids, **kw: _meta.topic_bootstrap(sc, "swap", rule="003", **kw),
                             ("sampling", "subset_size", "resamples"), ("per_resample",))
META_KINDS["bootstrap_topics"] = (lambda sc, run_ids, **kw: _meta.topic_bootstrap(sc, "bootstrap", run_ids=run_ids,
                                                                                  **kw),
                                  ("alpha", "resamples"), ("per_resample",))
#: The Significance page's pair statistics: one call, and its seeds' spread.
META_KINDS["pairs"] = (pairs_kind, ("confidence", "standardise", "tests"), ("result",))
META_KINDS["pairs_spread"] = (spread_kind, ("repeats", "test", "standardise"), ("pvalues",))

#: kind -> (evalcore method, the arguments its META_KINDS function adds): the kinds whose summary rows are
#: kept for the Report (dashboard.meta_store.keep_rows)
ROW_KINDS = {"swap": ("swap", {"rule": "003"}), "bootstrap": ("bootstrap", {}), "tukey": ("tukey", {}),
             "stability": ("stability", {}), "swap_spread": ("swap", {"rule": "003"}),
             "bootstrap_spread": ("bootstrap", {})}

#: Kinds whose frames all carry a ``metric`` column. The dashboard keeps these one metric at a time and
#: computes only the metrics not kept yet (in one call, since a call has a fixed cost), so a slider
#: move recomputes only what it changes: a gain move leaves AP, RR and NWRR (and their bootstrap, swap and
#: Tukey results) as they were, a beta move nDCG too (docs/reliability.md, "What a slider move costs"). Every
#: method draws its samples from the seed alone, so a metric's rows do not depend on which metrics share the
#: call (``tests/test_app_live.py``), except that the bootstrap's ``estimated_diff_raw`` may differ in the
#: last bit (BLAS block sizes); the rounded ``estimated_diff`` and everything else are identical.
PER_METRIC_KINDS = frozenset({"swap", "bootstrap", "tukey", "swap_spread", "bootstrap_spread",
                              "swap_topics", "bootstrap_topics"})
