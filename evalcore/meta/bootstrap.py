r"""Sakai's Bootstrap Sensitivity Method (003 Sec. 4.3, Fig. 5-7; Sakai SIGIR 2006).

For every run pair (X, Y): z = x - y per topic, the Studentised statistic
:math:`t(z) = \bar z / (\bar\sigma / \sqrt n)`, w = z - mean(z) (so w obeys
H0), B bootstrap samples w*b of w (Fig. 5; the same topic samples for every
pair and every metric), and ASL = #{b : |t(w*b)| >= |t(z)|} / B (Fig. 6).

Vectorised with the topic-count matrix counts (B, n): the sums of w*b and
(w*b)^2 over sample b are ``w @ counts.T`` and ``(w*w) @ counts.T``, so
mean* = S1 / n and var* = (S2 - S1^2 / n) / (n - 1). Pairs are processed in
chunks (at most ~16 MB of pairs x B floats at a time), never the
pairs x B x n tensor.

Edge policy (documented, tested):
- identical runs (z = 0 on every topic): ASL = 1, never significant;
- a constant non-zero difference (sd(z) = 0, mean != 0): |t(z)| = inf, ASL = 0;
- a bootstrap sample with zero spread: |t(w*b)| = inf if its mean is non-zero,
  0 if its mean is zero (no division by zero);
- ties: |t(w*b)| counts as >= |t(z)| when within 1e-9 (relative) of it, so
  the summation order of the matrix product cannot move an exact tie; the
  plain-loop reference in tests/ uses exact >= and agrees on random data.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._common import (
    TIE_RTOL,
    Progress,
    ProgressFn,
    check_alpha,
    check_positive_int,
    check_run_ids,
    check_scores,
    pair_chunks,
    pair_index,
    round_sig,
    topic_counts,
)

__all__ = ["bootstrap_sensitivity", "BootstrapResult", "bootstrap_samples", "paired_t"]


def bootstrap_samples(n_topics: int, *, B: int = 1000, seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """Fig. 5: B samples of n topic indices drawn with replacement, shape (B, n)."""
    n = check_positive_int(n_topics, "n_topics")
    B = check_positive_int(B, "B")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.integers(0, n, size=(B, n))


def paired_t(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and Studentised t of each row of z (pairs, n): t = mean / (sd / sqrt(n)), sd with n - 1.

    Rows with sd = 0 get t = 0 if the mean is 0 and +-inf otherwise.

    >>> m, t = paired_t(np.array([[0.1, 0.3, 0.2], [0., 0., 0.], [0.5, 0.5, 0.5]]))
    >>> [round(float(v), 6) for v in t]
    [3.464102, 0.0, inf]
    """
    z = np.atleast_2d(np.asarray(z, dtype=np.float64))
    n = z.shape[1]
    mean = z.mean(axis=1)
    sd = z.std(axis=1, ddof=1) if n > 1 else np.zeros(z.shape[0])
    scale = np.abs(z).max(axis=1)
    const = sd <= 1e-12 * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(const, np.where(mean == 0, 0.0, np.sign(mean) * np.inf), mean / (sd / np.sqrt(n)))
    return mean, t


@dataclass(frozen=True)
class BootstrapResult:
    """Result of :func:`bootstrap_sensitivity`.

    Attributes
    ----------
    pairs : DataFrame, one row per (metric, run pair), pairs in the order (0,1), (0,2), ..., (1,2), ...
        ``metric``; ``run_x``, ``run_y`` the run ids; ``mean_diff`` = mean(x) - mean(y)
        over all topics; ``t`` = t(z); ``asl`` the achieved significance level;
        ``significant`` = asl < alpha (the first alpha if several were given).
    summary : DataFrame, one row per (metric, alpha) — 003 Table 4
        ``metric``; ``alpha``; ``n_significant`` pairs with ASL < alpha;
        ``n_pairs``; ``pct_significant`` = 100 n_significant / n_pairs (the
        discriminative power); ``estimated_diff`` the Fig. 7 estimate: for
        each pair the |mean(w*b)| of the sample whose |t(w*b)| is the
        (B alpha)-th largest (ties: lowest b first), the maximum over pairs,
        rounded to two significant figures (NaN if B alpha < 1);
        ``estimated_diff_raw`` the same, unrounded.
    asl_curves : DataFrame — ASL curves (Sakai SIGIR 2006)
        ``metric``; ``pair_rank`` 1..n_pairs; ``asl`` sorted ascending.
    samples : (B, n) int array of the bootstrap topic samples (shared by all pairs and metrics)
    B, seed, alphas : the settings
    """
    pairs: pd.DataFrame
    summary: pd.DataFrame
    asl_curves: pd.DataFrame
    samples: np.ndarray = field(repr=False)
    B: int = 0
    seed: object = 0
    alphas: tuple = (0.05,)


def bootstrap_sensitivity(scores: Mapping[str, np.ndarray], *, run_ids=None, B: int = 1000, seed: int | None = 0,
                          alpha=0.05, samples: np.ndarray | None = None,
                          progress: ProgressFn | None = None) -> BootstrapResult:
    """Paired bootstrap test for every run pair and the discriminative power of every metric.

    Parameters
    ----------
    scores : {metric label: (n_runs, n_topics) per-topic scores}, one shape for all
    run_ids : names of the runs (default "0", "1", ...)
    B : bootstrap samples (default 1000), shared by every pair and metric
    seed : seed of the samples; same seed, same result
    alpha : significance level, or a list of them (e.g. (0.05, 0.01)); one summary row per alpha
    samples : optional (B, c) topic-index array to use instead of drawing (tests)
    progress : callback given the fraction done; return True to cancel (raises Cancelled)

    >>> s = {"M": np.array([[0.5, 0.6, 0.7, 0.8], [0.1, 0.2, 0.1, 0.2], [0.5, 0.6, 0.7, 0.8]])}
    >>> r = bootstrap_sensitivity(s, B=200, seed=3)
    >>> r.pairs[["run_x", "run_y", "asl"]].values.tolist()[1]
    ['0', '2', 1.0]
    """
    metrics, mats, n_runs, n_topics = check_scores(scores, min_topics=2)
    ids = check_run_ids(run_ids, n_runs)
    alphas = check_alpha(alpha)
    if samples is None:
        samples = bootstrap_samples(n_topics, B=B, seed=seed)
    else:
        samples = np.asarray(samples, dtype=np.intp)
        if samples.ndim != 2 or samples.shape[1] < 2 or samples.min() < 0 or samples.max() >= n_topics:
            raise ValueError(f"samples must be a (B, c >= 2) array of topic indices 0..{n_topics - 1}")
    B, c = samples.shape
    Ct = topic_counts(samples, n_topics).T          # (n_topics, B)
    pi, pj = pair_index(n_runs)
    P = pi.size
    ks = [int(round(B * a)) for a in alphas]
    chunks = pair_chunks(P, 8 * (7 * B + 3 * n_topics), n_jobs=len(metrics))
    prog = Progress(progress, len(metrics) * len(chunks))
    prog.report(0.0)
    pair_frames, summ_rows, curve_frames = [], [], []
    for m in metrics:
        M = mats[m]
        asl = np.empty(P)
        mdiff = np.empty(P)
        tobs = np.empty(P)
        est = np.zeros(len(alphas))
        for sl in chunks:
            z = M[pi[sl]] - M[pj[sl]]
            zbar, t = paired_t(z)
            w = z - zbar[:, None]
            w[~np.isfinite(t)] = 0.0      # constant difference: w is rounding noise, exactly 0 in theory
            S1 = w @ Ct
            S2 = (w * w) @ Ct
            mean_s = S1 / c
            var_s = (S2 - S1 * mean_s) / (c - 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                ts = np.abs(mean_s) / np.sqrt(var_s / c)
            flat = ~(var_s > 0)
            ts[flat] = np.where(S1[flat] == 0, 0.0, np.inf)
            at = np.abs(t)
            hits = ts >= (at * (1 - TIE_RTOL))[:, None]
            a = hits.mean(axis=1)
            a[np.all(z == 0, axis=1)] = 1.0               # identical runs
            asl[sl], mdiff[sl], tobs[sl] = a, zbar, t
            if any(k >= 1 for k in ks):
                order = np.argsort(-ts, axis=1, kind="stable")
                for q, k in enumerate(ks):
                    if k >= 1:
                        b = order[:, min(k, B) - 1]
                        est[q] = max(est[q], float(np.abs(mean_s[np.arange(b.size), b]).max()))
            prog.step()
        pair_frames.append(pd.DataFrame({"metric": m, "run_x": [ids[i] for i in pi], "run_y": [ids[j] for j in pj],
                                         "mean_diff": mdiff, "t": tobs, "asl": asl, "significant": asl < alphas[0]}))
        for q, a_ in enumerate(alphas):
            nsig = int(np.sum(asl < a_))
            raw = est[q] if ks[q] >= 1 else float("nan")
            summ_rows.append({"metric": m, "alpha": a_, "n_significant": nsig, "n_pairs": P,
                              "pct_significant": 100.0 * nsig / P, "estimated_diff": round_sig(raw, 2),
                              "estimated_diff_raw": raw})
        curve_frames.append(pd.DataFrame({"metric": m, "pair_rank": np.arange(1, P + 1), "asl": np.sort(asl)}))
    return BootstrapResult(pairs=pd.concat(pair_frames, ignore_index=True),
                           summary=pd.DataFrame(summ_rows, columns=["metric", "alpha", "n_significant", "n_pairs",
                                                                    "pct_significant", "estimated_diff",
                                                                    "estimated_diff_raw"]),
                           asl_curves=pd.concat(curve_frames, ignore_index=True),
                           samples=samples, B=B, seed=seed, alphas=alphas)
