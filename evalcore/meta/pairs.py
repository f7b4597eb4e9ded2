r"""Every run pair with uncertainty: mean difference, CIs, effect sizes, five
paired tests, Holm / Benjamini-Hochberg adjusted p-values and discriminative
power as a general "p-value curve" (Sakai 2014 "Statistical reform in
information retrieval?", SIGIR Forum 48(1); Sakai 2018 "Laboratory
Experiments in Information Retrieval", Ch. 2 and 5; Carterette 2012,
"Multiple testing in statistical analysis of systems-based IR experiments",
TOIS 30(1)).

For a score matrix (runs x topics) and each pair (X, Y), z_t = x_t - y_t over
the n topics both runs have a score for:

mean_diff      :math:`\bar z`
t CI           :math:`\bar z \pm t_{n-1}(\alpha/2)\, s_z/\sqrt n` (Sakai 2014 Sec. 3.2, Eq. for the
               paired-data CI; Sakai 2018 Sec. 2.2)
bootstrap CI   percentile interval of the B bootstrap means of z (Efron's percentile method, Sakai 2018
               Sec. 5.3), the B topic samples being *the same* as those of the Bootstrap Sensitivity
               Method (:func:`evalcore.meta.bootstrap_samples`: same seed, same samples)
effect_size    :math:`\bar z / \sqrt{V_E}`, V_E the residual variance of the two-way ANOVA without
               replication over *all* runs of the matrix given (Sakai 2014 Sec. 3.3 "ES_E"; Sakai 2016 Sec. 6;
               :func:`evalcore.meta.topicsets.residual_variance`): it changes with the run set (e.g. with
               the CLI's ``--top``), so ``PairsResult.v_e_runs`` records how many runs it used
d_z            :math:`\bar z / s_z` (s_z with n - 1): Cohen's d_z for paired data (Cohen 1988; Lakens
               2013), = t / sqrt(n). It is *not* Hedges' g: no small-sample correction factor
               J = 1 - 3 / (4 df - 1) is applied.
p-values       paired t (two-sided); Wilcoxon signed-rank (zeros dropped, average ranks for ties; exact
               null distribution when <= 50 non-zero differences without ties, else the normal
               approximation with tie correction and no continuity correction). It equals
               ``scipy.stats.wilcoxon(d[d != 0], method="exact")`` in the first case and
               ``scipy.stats.wilcoxon(d[d != 0], method="asymptotic", correction=False)`` in the second,
               d = :func:`tied_differences` (tested: zeros and ties by value, see the edge policies). SciPy's
               ``method="asymptotic"`` on all differences can differ: one non-zero
               difference among zeros gives 0.317 there, 1.0 here (the exact value); sign test (ties dropped; exact
               binomial,
               two-sided = min(1, 2 P(X <= min(pos, neg))), = scipy ``binomtest``); paired randomisation
               test (random sign flips of z, statistic the mean; all 2^n flips when 2^n <= B, else B
               random ones with p = 2 min(#{T* <= T}+1, #{T* >= T}+1)/(B+1), scipy
               ``permutation_test(permutation_type="samples")``'s convention; Sakai 2014 Sec. 4,
               Smucker et al. 2007); bootstrap test = the ASL of 003 Fig. 6 (same samples, same value
               as :func:`bootstrap_sensitivity`)
corrections    Holm step-down and Benjamini-Hochberg step-up over the family of all pairs of one
               metric (Carterette 2012 Sec. 3-4; Sakai 2018 Sec. 5.2); the randomised Tukey HSD is
               :func:`evalcore.meta.tukey_hsd`

Monte Carlo standard errors (columns ``mc_se_*``; 0 where the value is exact): the bootstrap ASL p, a
proportion of B samples, has :math:`\sqrt{p(1-p)/B}` (binomial); the randomisation p = 2q, q the
smaller one-sided proportion of K random sign flips, has :math:`2\sqrt{q(1-q)/K}`;
a percentile-CI endpoint at level q has half the distance between the bootstrap means' quantiles
:math:`q \pm \sqrt{q(1-q)/B}` (one binomial sd of the order statistic's rank; distribution-free).

(Section numbers refer to the published versions of these papers.)

Edge policies (each tested, none emits a numpy warning):

- rounding (:data:`TIE_RULE`; ties by value, not by bits): with tol = ``ZERO_RTOL`` (1e-13) times the
  scores' scale (the largest |score| of the metric's matrix, :func:`zero_tolerance`), a difference z_t with
  :math:`|z_t| \le` tol is rounding, not a difference: it is set to exactly 0 before any statistic, so the
  sign and Wilcoxon tests count it as a tie (dropped), and the t, randomisation and bootstrap tests see 0.
  E.g. 0.1 + (0.2 + 0.3) against (0.1 + 0.2) + 0.3 differs by -1.1e-16; counted as a difference it would
  turn the sign test's p of 19 wins in 19 from 3.8e-6 into 4.0e-5 (19 wins, 1 loss). Likewise two
  |differences| within tol of each other are one value for the Wilcoxon ranks (one tie group, average
  rank; :func:`tied_differences` shows the values the test ranks): P@5's 0.6 - 0.4 = 0.19999999999999996
  and 0.4 - 0.2 = 0.2 tie, as they do on paper, and a tie moves the test to its tie-corrected normal
  approximation as it does in scipy. The t, randomisation and bootstrap tests sum the differences rather
  than compare them, so they keep the zero rule only (a shift within tol moves their statistics by less
  than tol). (:data:`ZERO_RTOL` gives the reasoning for the value; :func:`~evalcore.meta._common.tie_groups`
  why gaps and not rounding to a number of decimals.)
- NaN cells: a topic is left out of a pair when either run has no score on it (pairwise
  complete topics; ``n_topics`` reports how many were used). V_E uses the topics on which every
  run has a score.
- identical runs (z = 0 everywhere): mean 0, both CIs [0, 0], t = 0, d_z = 0, effect_size 0,
  every p-value 1.
- zero variance with a non-zero mean (a constant difference): CI [mean, mean], t = d_z = +-inf,
  p_t = 0; Wilcoxon / sign / randomisation / bootstrap as their definitions give.
  A constant is detected as s_z <= 1e-12 max|z| (rounding noise counts as zero, as in
  :func:`paired_t`).
- V_E = 0 (all runs differ by constants): effect_size 0 if the mean difference is 0, else +-inf.
- fewer than 2 usable topics for a pair: CIs, t, d_z and effect_size NaN, every p-value 1
  (no evidence); adjusted p-values treat NaN p-values as absent from the family.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pandas as pd

from .._exact import fmat_imat
from .._extras import needs
from ..workload import check_call
from ._common import (
    TIE_RTOL,
    ZERO_RTOL,
    Progress,
    ProgressFn,
    check_alpha,
    check_positive_int,
    check_run_ids,
    check_scores,
    pair_chunks,
    pair_index,
    pair_keys,
    pair_table,
    tie_groups,
    topic_counts,
    zero_rounding,
    zero_tolerance,
)
from ._workers import Runner, check_process_work, plan, worker_count
from .bootstrap import resolve_samples
from .topicsets import residual_variance

__all__ = ["pair_statistics", "PairsResult", "adjust_pvalues", "TESTS", "CORRECTIONS", "CI_METHODS",
           "wilcoxon_exact_cdf", "ZERO_RTOL", "zero_tolerance", "tied_differences", "TIE_RULE"]

#: the tests whose p-values :func:`pair_statistics` computes, as named on the CLI
TESTS = ("t", "wilcoxon", "sign", "randomisation", "bootstrap")
#: p-value adjustments over the family of all pairs of one metric
CORRECTIONS = ("none", "holm", "bh")
CI_METHODS = ("t", "bootstrap")
RESAMPLED = ("randomisation", "bootstrap")
_WILCOXON_EXACT_MAX = 50
#: largest B accepted (the (B, n_topics) samples and sign flips are allocated from it)
MAX_B = 1_000_000
_RTOL_CONST = 1e-12
#: the rule that ties paired differences, as ``evalcore pairs`` and :meth:`evalcore.CompareResult.legend` print it
TIE_RULE = ("ties by value, not by bits: per-topic differences within ZERO_RTOL = 1e-13 times the largest |score| "
            "of the metric of 0 are 0 (dropped by the sign and Wilcoxon tests) and of each other are one value "
            "(one Wilcoxon rank)")


# -- p-value adjustment -------------------------------------------------------------
def adjust_pvalues(p, method: str = "holm") -> np.ndarray:
    """Holm or Benjamini-Hochberg adjusted p-values of one family (1-D).

    Holm (step-down, FWER; Carterette 2012 Sec. 3.2): with p sorted ascending
    p_(1) <= ... <= p_(m), adj_(k) = max_{j<=k} min(1, (m - j + 1) p_(j)).
    BH (step-up, FDR; Carterette 2012 Sec. 3.3): adj_(k) = min_{j>=k} min(1, m p_(j) / j).
    NaN p-values are not part of the family (m counts the others) and stay NaN.

    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], "holm").round(4).tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.005], "bh").round(4).tolist()
    [0.02, 0.04, 0.04, 0.02]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}; got {method!r}")
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p must be 1-D (one family); got shape {p.shape}")
    out = p.copy()
    if method == "none":
        return out
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    order = np.argsort(q, kind="stable")
    s = q[order]
    k = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - k + 1) * s))
    else:
        adj = np.minimum.accumulate(np.minimum(1.0, m * s / k)[::-1])[::-1]
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


# -- Wilcoxon ------------------------------------------------------------------------
@cache
def wilcoxon_exact_cdf(n: int) -> np.ndarray:
    """P(W+ <= w) for w = 0..n(n+1)/2 under H0 with n non-zero, untied differences.

    Counts the subsets of {1..n} by their sum (a subset-sum recursion); the
    counts stay below 2^53 for n <= 50, so float64 holds them exactly.

    >>> wilcoxon_exact_cdf(3).tolist()   # sums of subsets of {1,2,3}: 0,1,2,3,3,4,5,6
    [0.125, 0.25, 0.375, 0.625, 0.75, 0.875, 1.0]
    """
    if not 0 <= n <= _WILCOXON_EXACT_MAX:
        raise ValueError(f"exact Wilcoxon distribution only for 0 <= n <= {_WILCOXON_EXACT_MAX}; got {n}")
    top = n * (n + 1) // 2
    c = np.zeros(top + 1)
    c[0] = 1.0
    for k in range(1, n + 1):
        c[k:] = c[k:] + c[:top + 1 - k]          # right side is evaluated first: old counts
    return np.cumsum(c) / 2.0 ** n


def _wilcoxon(z0: np.ndarray, valid: np.ndarray, tol: float) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p of each row of zero-rounded differences ``z0``; |differences| equal
    within ``tol`` share their average rank (:func:`~evalcore.meta._common.tie_groups`)."""
    with needs(__name__):
        from scipy.special import ndtr

    nz = valid & (z0 != 0)
    a = np.where(nz, np.abs(z0), np.inf)
    ranks, sizes, _ = tie_groups(a, tol)
    nw = nz.sum(axis=1)
    r_plus = np.where(z0 > 0, ranks, 0.0).sum(axis=1)
    ties = np.where(nz, sizes * sizes - 1.0, 0.0).sum(axis=1)          # sum over groups of t^3 - t
    p = np.ones(nw.size)
    nwf = nw.astype(np.float64)
    mean = nwf * (nwf + 1) / 4
    var = nwf * (nwf + 1) * (2 * nwf + 1) / 24 - ties / 48
    approx = (nw > 0) & ((nw > _WILCOXON_EXACT_MAX) | (ties > 0))
    if approx.any():
        zs = np.abs(r_plus[approx] - mean[approx]) / np.sqrt(var[approx])
        p[approx] = np.minimum(1.0, 2 * ndtr(-zs))
    exact = (nw > 0) & ~approx
    for k in np.unique(nw[exact]):
        rows = exact & (nw == k)
        cdf = wilcoxon_exact_cdf(int(k))
        w = np.rint(r_plus[rows]).astype(np.intp)
        lo = cdf[w]
        hi = 1.0 - np.where(w > 0, cdf[np.maximum(w - 1, 0)], 0.0)
        p[rows] = np.minimum(1.0, 2 * np.minimum(lo, hi))
    return p


def tied_differences(d, tol: float) -> np.ndarray:
    """The paired differences as every rank and sign test sees them: the rule of :data:`TIE_RULE` applied.

    ``d``: the differences of one pair (1-D) or of one pair per row (2-D); ``tol``: :func:`zero_tolerance`
    of the metric's whole score matrix, as :func:`pair_statistics` takes it. Returns a new float array: NaN
    stays NaN, a difference with |d| <= tol is 0, and within a row each group of |differences| equal within
    ``tol`` (chained in sorted order, :func:`~evalcore.meta._common.tie_groups`) takes the group's smallest
    |difference|, each keeping its sign. ``scipy.stats.wilcoxon`` and ``scipy.stats.binomtest`` given these
    values return :func:`pair_statistics`' ``p_wilcoxon`` and ``p_sign`` (tested), where given the raw floats
    they would rank P@5's 0.6 - 0.4 below 0.4 - 0.2.

    >>> tied_differences(np.array([0.6 - 0.4, 0.4 - 0.2, -(0.8 - 0.6), 1e-17]), 1e-13).tolist()
    [0.19999999999999996, 0.19999999999999996, -0.19999999999999996, 0.0]
    """
    z = np.array(d, dtype=np.float64)
    if z.ndim not in (1, 2):
        raise ValueError(f"d must be the differences of one pair (1-D) or one pair per row (2-D); got shape {z.shape}")
    rows = zero_rounding(np.atleast_2d(z), float(tol))
    live = ~np.isnan(rows) & (rows != 0)
    _, _, mags = tie_groups(np.where(live, np.abs(rows), np.inf), float(tol))
    out = np.where(live, np.copysign(np.where(live, mags, 0.0), rows), rows)
    return out if z.ndim == 2 else out[0]


def _binomial_se(p: np.ndarray, k: int) -> np.ndarray:
    """Monte Carlo standard error of a proportion estimated from k draws."""
    p = np.clip(p, 0.0, 1.0)
    return np.sqrt(p * (1 - p) / max(int(k), 1))


def _quantile_se(bm: np.ndarray, q: float) -> np.ndarray:
    """Monte Carlo se of the q-quantile of each row's B bootstrap means: half the distance between the
    quantiles one binomial sd of the rank away (module docstring)."""
    B = bm.shape[1]
    h = float(np.sqrt(q * (1 - q) / max(B, 1)))
    lo_q, hi_q = max(q - h, 0.0), min(q + h, 1.0)
    if np.isnan(bm).any():
        filled = np.where(np.isnan(bm).all(axis=1)[:, None], 0.0, bm)
        a, b = np.nanquantile(filled, [lo_q, hi_q], axis=1)
    else:
        a, b = np.quantile(bm, [lo_q, hi_q], axis=1)
    return (b - a) / 2


def _inf_or_zero(sign: np.ndarray) -> np.ndarray:
    """+inf, -inf or 0 by the sign (a ratio with a zero denominator, without a warning)."""
    return np.where(sign > 0, np.inf, np.where(sign < 0, -np.inf, 0.0))


# -- result ----------------------------------------------------------------------------
_PAIR_COLUMNS = ["metric", "run_x", "run_y", "n_topics", "mean_diff", "ci_low", "ci_high", "boot_ci_low",
                 "boot_ci_high", "effect_size", "d_z", "t", "p_t", "p_wilcoxon", "p_sign", "p_randomisation",
                 "p_bootstrap", "mc_se_p_randomisation", "mc_se_p_bootstrap", "mc_se_boot_ci_low",
                 "mc_se_boot_ci_high"]


@dataclass(frozen=True)
class PairsResult:
    """Result of :func:`pair_statistics`.

    Attributes
    ----------
    pairs : DataFrame, one row per (metric, run pair), pairs in the order (0,1), (0,2), ..., (1,2), ...
        ``metric, run_x, run_y``; ``n_topics`` topics used; ``mean_diff`` = mean(x - y);
        ``ci_low, ci_high`` the paired-t CI; ``boot_ci_low, boot_ci_high`` the bootstrap
        percentile CI (NaN unless "bootstrap" was computed); ``effect_size`` = mean_diff /
        sqrt(V_E); ``d_z``; ``t``; ``p_t, p_wilcoxon, p_sign, p_randomisation, p_bootstrap``
        (NaN for a test not computed); ``mc_se_p_randomisation, mc_se_p_bootstrap,
        mc_se_boot_ci_low, mc_se_boot_ci_high`` their Monte Carlo standard errors (module docstring).
    v_e : {metric: V_E}, the residual variance of the two-way ANOVA without replication
    v_e_runs : the number of runs V_E (and so effect_size) was computed over
    confidence, B, seed, tests : the settings
    samples : (B, n) bootstrap topic samples used (None without the bootstrap)
    n_flips : sign-flip vectors of the randomisation test (2^n when exact; 0 if not computed)
    exact_randomisation : True when all 2^n sign flips (or the given ``signs``) were used
    tie_tolerance : {metric: the absolute tolerance of :data:`TIE_RULE`}, :func:`zero_tolerance` of its matrix
    """
    pairs: pd.DataFrame
    v_e: dict
    confidence: float = 0.95
    B: int = 1000
    seed: object = 0
    tests: tuple = TESTS
    samples: np.ndarray | None = field(default=None, repr=False)
    n_flips: int = 0
    exact_randomisation: bool = False
    v_e_runs: int = 0
    tie_tolerance: dict = field(default_factory=dict)

    def table(self, test: str = "t", correction: str = "none", alpha: float = 0.05, ci: str = "t") -> pd.DataFrame:
        """The CLI's records: ``metric, run_x, run_y, mean_diff, ci_low, ci_high, effect_size, p_value,
        p_adjusted, significant, d_z, n_topics, p_mc_se, ci_mc_se`` for one test and correction
        (``p_mc_se``: Monte Carlo standard error of p_value, 0 for an exact test; ``ci_mc_se``: the larger
        of the two endpoints' Monte Carlo standard errors, 0 for the t CI).

        ``p_adjusted`` is adjusted over all pairs of each metric separately (one family per
        metric); ``significant`` = p_adjusted < alpha. ``ci="bootstrap"`` puts the bootstrap
        percentile CI into ``ci_low, ci_high``.
        """
        col = self._pcol(test)
        if ci not in CI_METHODS:
            raise ValueError(f"ci must be one of {', '.join(CI_METHODS)}; got {ci!r}")
        (alpha,) = check_alpha(alpha)
        if ci == "bootstrap" and "bootstrap" not in self.tests:
            raise ValueError("the bootstrap CI needs the bootstrap samples: compute with 'bootstrap' in tests")
        df = self.pairs
        adj = np.empty(len(df))
        for _, idx in df.groupby("metric", sort=False).indices.items():
            adj[idx] = adjust_pvalues(df[col].to_numpy()[idx], correction)
        lo, hi = ("ci_low", "ci_high") if ci == "t" else ("boot_ci_low", "boot_ci_high")
        return pd.DataFrame({"metric": df["metric"], "run_x": df["run_x"], "run_y": df["run_y"],
                             "mean_diff": df["mean_diff"], "ci_low": df[lo].to_numpy(), "ci_high": df[hi].to_numpy(),
                             "effect_size": df["effect_size"], "p_value": df[col], "p_adjusted": adj,
                             "significant": adj < alpha, "d_z": df["d_z"], "n_topics": df["n_topics"],
                             "p_mc_se": (df[f"mc_se_{col}"].to_numpy() if f"mc_se_{col}" in df
                                         else np.zeros(len(df))),
                             "ci_mc_se": (np.fmax(df["mc_se_boot_ci_low"].to_numpy(),
                                                  df["mc_se_boot_ci_high"].to_numpy())
                                          if ci == "bootstrap" else np.zeros(len(df)))})

    def power(self, test: str = "t", correction: str = "none", alpha=0.05) -> pd.DataFrame:
        """Discriminative power: one row per (metric, alpha) with ``test, correction, n_significant,
        n_pairs, pct_significant`` (003 Table 4 generalised to any test and correction)."""
        alphas = check_alpha(alpha)
        rows = []
        t = self.table(test, correction, alphas[0])
        for m, g in t.groupby("metric", sort=False):
            for a in alphas:
                k = int(np.sum(g["p_adjusted"].to_numpy() < a))
                rows.append({"metric": m, "test": test, "correction": correction, "alpha": a,
                             "n_significant": k, "n_pairs": len(g), "pct_significant": 100.0 * k / max(len(g), 1)})
        return pd.DataFrame(rows, columns=["metric", "test", "correction", "alpha", "n_significant", "n_pairs",
                                           "pct_significant"])

    def curves(self, test: str = "t", correction: str = "none") -> pd.DataFrame:
        """Sorted p-value curves: ``metric, pair_rank (1..n_pairs), p_value`` ascending, the
        (adjusted) p-values of the chosen test; 003's ASL curve is test="bootstrap", correction="none"."""
        t = self.table(test, correction)
        frames = [pd.DataFrame({"metric": m, "pair_rank": np.arange(1, len(g) + 1),
                                "p_value": np.sort(g["p_adjusted"].to_numpy())})
                  for m, g in t.groupby("metric", sort=False)]
        return pd.concat(frames, ignore_index=True)

    def _pcol(self, test: str) -> str:
        if test not in TESTS:
            raise ValueError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
        if test not in self.tests:
            raise ValueError(f"test {test!r} was not computed (computed: {', '.join(self.tests)})")
        return "p_" + test


# -- main entry point --------------------------------------------------------------------
def _check(scores) -> tuple[list[str], dict[str, np.ndarray], int, int]:
    arrays = {}
    if isinstance(scores, Mapping):
        for k, v in scores.items():
            a = np.asarray(v, dtype=np.float64)
            arrays[k] = a
    filled = {k: np.where(np.isnan(a), 0.0, a) for k, a in arrays.items()} if arrays else scores
    try:
        metrics, _, n_runs, n_topics = check_scores(filled)
    except ValueError as e:
        raise ValueError(str(e).replace("NaN or infinite", "infinite")) from None
    return metrics, {str(k): a for k, a in arrays.items()}, n_runs, n_topics


def _signs(n: int, B: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """(K, n) +-1 sign flips: all 2^n when 2^n <= B (exact test), else B random rows."""
    if n < 63 and 2 ** n <= B:
        k = np.arange(2 ** n, dtype=np.int64)[:, None]
        bits = (k >> np.arange(n, dtype=np.int64)[None, :]) & 1
        return (1.0 - 2.0 * bits), True
    return np.where(rng.random((B, n)) < 0.5, -1.0, 1.0), False


def pair_statistics(scores: Mapping[str, np.ndarray], *, run_ids=None, confidence: float = 0.95,
                    tests: Sequence[str] = TESTS, B: int = 1000, seed: int | None = 0,
                    samples: np.ndarray | None = None, signs: np.ndarray | None = None,
                    progress: ProgressFn | None = None, threads: int | None = None, workers: int | None = None,
                    process_work: int | None = None) -> PairsResult:
    """Mean difference, CIs, effect sizes and p-values of every run pair of every metric.

    Parameters
    ----------
    scores : {metric label: (n_runs, n_topics) per-topic scores}; NaN = no score (see the module's
        edge policies)
    run_ids : names of the runs (default "0", "1", ...)
    confidence : level of both CIs (default 0.95)
    tests : which p-values to compute (default all of :data:`TESTS`); leaving out "randomisation" and
        "bootstrap" skips all resampling (and the bootstrap CI)
    B : bootstrap samples and random sign flips (default 1000). The bootstrap samples are
        ``bootstrap_samples(n_topics, B=B, seed=seed)``, those of :func:`bootstrap_sensitivity`
    seed : seed of the samples; the sign flips use ``default_rng(seed)`` too (independently)
    samples : optional (B, c) topic-index array for the bootstrap (tests)
    signs : optional (K, n_topics) array of +-1 sign flips for the randomisation test; p is then
        2 min(#{T* <= T}, #{T* >= T}) / K (no +1: the caller gives the full reference set)
    progress : callback given the fraction done; return True to cancel (raises Cancelled)
    workers : the most workers running the chunks of pairs, one BLAS thread each (default
        ``$EVALCORE_WORKERS``, else every core; 1: the calling thread only). A call of at least
        ``process_work`` run pairs x B runs on that many worker processes, a smaller one in the calling thread
        (:mod:`evalcore.meta._workers`); a pair's values do not depend on its chunk, so the table is the same
        for any number
    process_work : run pairs x B from which the call runs on worker processes (default
        ``_workers.PROCESS_WORK["pairs"]``, docs/benchmarks.md section 18; 0: always)
    threads : threads of this process instead (no worker processes), used as given (``$EVALCORE_THREADS``
        sets them when neither this, ``workers`` nor ``$EVALCORE_WORKERS`` is given)

    >>> s = {"M": np.array([[0.5, 0.6, 0.7, 0.8], [0.1, 0.2, 0.1, 0.2], [0.5, 0.6, 0.7, 0.8]])}
    >>> r = pair_statistics(s, tests=("t", "sign"))
    >>> r.pairs[["run_x", "run_y", "mean_diff", "p_sign"]].round(4).values.tolist()
    [['0', '1', 0.5, 0.125], ['0', '2', 0.0, 1.0], ['1', '2', -0.5, 0.125]]
    """
    metrics, mats, n_runs, n_topics, ids, confidence, tests, B = _check_arguments(scores, run_ids, confidence,
                                                                                tests, B)
    count, _ = worker_count(workers, threads)
    check_process_work(process_work)
    # sized from every setting together before anything is drawn (docs/reliability.md, "Work products")
    check_call("pairs", mats, B=B if samples is None else len(samples), threads=count, tests=tests)
    rs = _resampling(tests, n_topics, B, seed, samples, signs)
    a2 = (1 - confidence) / 2
    pi, pj = pair_index(n_runs)
    how = plan("pairs", pi.size * max(rs.Bb + rs.K, 1), workers=workers, threads=threads, process_work=process_work)
    per_row = 8 * (12 * n_topics + 4 * rs.Bb + 2 * rs.K)
    chunks = pair_chunks(pi.size, per_row, min_chunks=how.tasks(len(metrics), progress))
    prog = Progress(progress, len(metrics) * len(chunks))
    prog.report(0.0)
    arrays: dict = {"pi": pi, "pj": pj}
    if rs.Ct is not None:
        arrays["Ct"] = rs.Ct
    if rs.St is not None:
        arrays["St"] = rs.St
    outputs = []
    for k, m in enumerate(metrics):
        arrays["M", k] = mats[m]
        for col in _PAIR_COLUMNS[3:]:
            arrays[col, k] = np.full(pi.size, np.nan)
            outputs.append((col, k))
    shape = (rs.Bb, rs.c, rs.K, rs.exact_signs)
    v_es = {m: residual_variance(mats[m]) for m in metrics}
    tols = {m: zero_tolerance(mats[m]) for m in metrics}     # from the whole matrix: no chunk can change it
    jobs = [(k, v_es[m], bool(np.isnan(mats[m]).any()), tols[m],
             (sl.start, sl.stop), tuple(tests), a2, shape) for k, m in enumerate(metrics) for sl in chunks]
    made: list = []
    with Runner(how, arrays, outputs=outputs) as run:
        # the table's key and name columns need no results: made while the tasks run
        run.map(_pairs_task, jobs, prog,
                meanwhile=lambda: made.append(pair_keys(ids, pi, pj, {"metric": list(metrics)})))
    cols = {m: {col: arrays[col, k] for col in _PAIR_COLUMNS[3:]} for k, m in enumerate(metrics)}
    table = pair_table(ids, pi, pj, {"metric": list(metrics)},
                       {c: [cols[m][c] for m in metrics] for c in _PAIR_COLUMNS[3:]}, key_columns=made[0])
    table["n_topics"] = table["n_topics"].astype(np.int64)
    return PairsResult(pairs=table, v_e=v_es, confidence=confidence,
                       B=B, seed=seed, tests=tuple(tests), samples=rs.samples, n_flips=int(rs.K),
                       exact_randomisation=bool(rs.exact_signs), v_e_runs=int(n_runs), tie_tolerance=tols)


def _pairs_task(arrays: dict, job, cache) -> None:
    """One task of :func:`pair_statistics`: every column of metric k's pairs start..stop-1, into ``arrays``."""
    k, v_e, any_nan, tol, (start, stop), tests, a2, (Bb, c, K, exact) = job
    rs = _Resampling(Ct=arrays.get("Ct"), Bb=Bb, c=c, St=arrays.get("St"), K=K, exact_signs=exact)
    cols = {col: arrays[col, k] for col in _PAIR_COLUMNS[3:]}
    _chunk_columns(arrays["M", k], v_e, arrays["pi"], arrays["pj"], slice(start, stop), tests, rs, a2, cols,
                   any_nan, tol)


def _check_arguments(scores, run_ids, confidence, tests, B):
    """The validated arguments of :func:`pair_statistics` (scores, run ids, confidence, tests, B)."""
    metrics, mats, n_runs, n_topics = _check(scores)
    ids = check_run_ids(run_ids, n_runs)
    (confidence,) = check_alpha(confidence, "confidence")
    tests = tuple(dict.fromkeys(tests))
    bad = [t for t in tests if t not in TESTS]
    if bad or not tests:
        raise ValueError(f"tests must be a non-empty list from {', '.join(TESTS)}; got {list(tests)!r}")
    B = check_positive_int(B, "B")
    if B > MAX_B:
        raise ValueError(f"B must be <= {MAX_B} (samples of B x n_topics are drawn); got {B}")
    return metrics, mats, n_runs, n_topics, ids, confidence, tests, B


@dataclass
class _Resampling:
    """The resamples shared by every pair: bootstrap topic counts ``Ct`` (n_topics, Bb) of ``samples``
    (Bb, c), and the randomisation test's sign flips ``St`` (n_topics, K); Bb = 0 / K = 0 when the
    test is not asked for."""

    samples: np.ndarray | None = None
    Ct: np.ndarray | None = None
    Bb: int = 0
    c: int = 0
    St: np.ndarray | None = None
    K: int = 0
    exact_signs: bool = False

    @property
    def do_boot(self) -> bool:
        return self.Ct is not None

    @property
    def do_rand(self) -> bool:
        return self.St is not None


def _resampling(tests, n_topics: int, B: int, seed, samples, signs) -> _Resampling:
    rs = _Resampling()
    rng = np.random.default_rng(seed)
    if "bootstrap" in tests:
        rs.samples = resolve_samples(samples, n_topics, B=B, seed=seed)
        rs.Ct = topic_counts(rs.samples, n_topics).T
        rs.Bb, rs.c = rs.samples.shape
    if "randomisation" in tests:
        if signs is None:
            S, rs.exact_signs = _signs(n_topics, B, rng)
        else:
            S = np.asarray(signs, dtype=np.float64)
            if S.ndim != 2 or S.shape[1] != n_topics or not np.all(np.abs(S) == 1):
                raise ValueError(f"signs must be a (K, {n_topics}) array of +1/-1")
            rs.exact_signs = True
        rs.St = S.T.copy()
        rs.K = S.shape[0]
    return rs


def _chunk_columns(M, v_e, pi, pj, sl, tests, rs: _Resampling, a2: float, cols: dict, any_nan: bool,
                   tol: float) -> None:
    """Every column of one chunk ``sl`` of one metric's pairs, written into ``cols`` (one array per column);
    ``tol``: the metric's :func:`zero_tolerance`, from its whole matrix (so no chunking can change it)."""
    d = _Diffs(zero_rounding(M[pi[sl]] - M[pj[sl]], tol))
    t = _t_columns(d, v_e, a2, cols, sl, "t" in tests)
    if "wilcoxon" in tests:
        cols["p_wilcoxon"][sl] = _wilcoxon(d.z0, d.valid, tol)
    if "sign" in tests:
        cols["p_sign"][sl] = _p_sign(d.z0)
    if rs.do_rand:
        cols["p_randomisation"][sl], cols["mc_se_p_randomisation"][sl] = _p_randomisation(d, rs)
    if rs.do_boot:
        _bootstrap_columns(d, t, rs, any_nan, a2, cols, sl)


class _Diffs:
    """Per-topic differences z (pairs, n_topics) of a chunk of pairs and their NaN-aware moments."""

    def __init__(self, z: np.ndarray):
        self.valid = valid = ~np.isnan(z)
        self.z0 = z0 = np.where(valid, z, 0.0)
        self.nv = nv = valid.sum(axis=1)
        self.nvf = nvf = nv.astype(np.float64)
        self.ok = nv >= 2
        self.safe_n = safe_n = np.maximum(nvf, 1.0)
        self.mean = mean = np.where(nv > 0, z0.sum(axis=1) / safe_n, np.nan)
        self.dev = dev = np.where(valid, z0 - np.where(nv > 0, mean, 0.0)[:, None], 0.0)
        var = (dev * dev).sum(axis=1) / np.maximum(nvf - 1, 1.0)
        self.sd = sd = np.sqrt(var)
        self.const = sd <= _RTOL_CONST * np.abs(z0).max(axis=1)
        self.se = sd / np.sqrt(safe_n)
        self.sign = np.sign(np.nan_to_num(mean))


def _t_columns(d: _Diffs, v_e: float, a2: float, cols: dict, sl, p_value: bool) -> np.ndarray:
    """Mean difference, t-based CI, effect sizes, t and (``p_value``) the paired t-test's p; returns t."""
    with needs(__name__):
        from scipy.special import stdtr, stdtrit

    const, sign, mean, ok = d.const, d.sign, d.mean, d.ok
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(const, _inf_or_zero(sign), mean / d.se)
        dz = np.where(const, _inf_or_zero(sign), mean / d.sd)
    df_ = np.maximum(d.nvf - 1, 1.0)
    half = np.where(const, 0.0, stdtrit(df_, 1 - a2) * d.se)
    p_t = np.where(const, np.where(sign == 0, 1.0, 0.0), 2 * stdtr(df_, -np.abs(np.nan_to_num(t))))
    if v_e > 0:
        es = mean / np.sqrt(v_e)
    else:
        es = _inf_or_zero(sign)
    es = np.where(np.isnan(v_e) | (d.nv == 0), np.nan, es)
    cols["n_topics"][sl] = d.nvf
    cols["mean_diff"][sl] = mean
    cols["ci_low"][sl] = np.where(ok, mean - half, np.nan)
    cols["ci_high"][sl] = np.where(ok, mean + half, np.nan)
    cols["effect_size"][sl] = np.where(ok, es, np.nan)
    cols["d_z"][sl] = np.where(ok, dz, np.nan)
    cols["t"][sl] = np.where(ok, t, np.nan)
    if p_value:
        cols["p_t"][sl] = np.where(ok, p_t, 1.0)
    return t


def _p_sign(z0: np.ndarray) -> np.ndarray:
    """Two-sided sign test: 2 P(Bin(k, 1/2) <= min(#z > 0, #z < 0)), k the non-zero differences."""
    with needs(__name__):
        from scipy.special import bdtr

    pos = (z0 > 0).sum(axis=1)
    neg = (z0 < 0).sum(axis=1)
    k = pos + neg
    p = np.minimum(1.0, 2 * bdtr(np.minimum(pos, neg), np.maximum(k, 1), 0.5))
    return np.where(k == 0, 1.0, p)


def _p_randomisation(d: _Diffs, rs: _Resampling) -> tuple[np.ndarray, np.ndarray | float]:
    """Two-sided paired randomisation (sign-flip) test's p and its Monte Carlo standard error."""
    K, exact_signs = rs.K, rs.exact_signs
    obs = np.where(d.nv > 0, d.mean, 0.0)
    assert rs.St is not None   # called only when the randomisation test is asked for (rs.do_rand)
    Tst = fmat_imat(d.z0, rs.St)   # exact sums: the same bits on every CPU (evalcore._exact)
    Tst /= d.safe_n[:, None]
    tol = TIE_RTOL * np.abs(obs)[:, None]
    # (in place and counted, not summed: the same comparisons, ~2x less memory traffic)
    less = np.count_nonzero(Tst <= obs[:, None] + tol, axis=1)
    greater = np.count_nonzero(Tst >= obs[:, None] - tol, axis=1)
    adj = 0 if exact_signs else 1
    p = np.minimum(1.0, 2 * np.minimum(less + adj, greater + adj) / (K + adj))
    p = np.where(d.ok, p, 1.0)
    q = np.minimum(p / 2, 0.5)     # p = 2 q, q one-sided
    return p, (0.0 if exact_signs else 2 * _binomial_se(q, K))


def _bootstrap_columns(d: _Diffs, t: np.ndarray, rs: _Resampling, any_nan: bool, a2: float, cols: dict, sl) -> None:
    """The bootstrap test's achieved significance level and the percentile CI, with their MC errors."""
    mean_s, S0, ts = _bootstrap_t(d, rs, any_nan)
    at = np.abs(np.nan_to_num(t, nan=0.0))
    asl = np.count_nonzero(ts >= (at * (1 - TIE_RTOL))[:, None], axis=1) / ts.shape[1]
    del ts
    asl[np.all(d.z0 == 0, axis=1)] = 1.0
    cols["p_bootstrap"][sl] = np.where(d.ok, asl, 1.0)
    cols["mc_se_p_bootstrap"][sl] = _binomial_se(cols["p_bootstrap"][sl], rs.Bb)
    _bootstrap_ci(d, mean_s, S0, any_nan, a2, cols, sl)


def _bootstrap_t(d: _Diffs, rs: _Resampling, any_nan: bool):
    """Per bootstrap sample of topics: the mean of the centred differences, the valid topics drawn
    (None when no score is missing) and the studentised |t*| whose share >= |t| is the ASL (003 Fig. 6)."""
    Ct, c = rs.Ct, rs.c
    assert Ct is not None   # called only when the bootstrap is asked for (rs.do_boot)
    w0 = np.where(d.const[:, None], 0.0, d.dev)
    S1 = fmat_imat(w0, Ct)
    w0 *= w0
    S2 = fmat_imat(w0, Ct)
    del w0
    if any_nan:  # topics per sample differ by pair: S0 = the valid topics drawn
        S0 = d.valid.astype(np.float64) @ Ct
        S0s = np.maximum(S0, 1.0)
        den = np.maximum(S0 - 1, 1.0)
    else:        # every sample has c topics: the same operations with scalars, in place
        S0 = None
        S0s = float(max(c, 1))
        den = float(max(c - 1, 1))
    mean_s = S1 / S0s
    var_s = S1 * mean_s
    np.subtract(S2, var_s, out=var_s)
    var_s /= den                                      # (S2 - S1 mean*) / (S0 - 1)
    ts = np.abs(mean_s)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(var_s, S0s, out=S2)
        np.sqrt(S2, out=S2)
        ts /= S2                                      # |mean*| / sqrt(var* / S0)
    del S2
    flat = ~(var_s > 0)
    ts[flat] = np.where(S1[flat] == 0, 0.0, np.inf)
    del flat, var_s
    if any_nan:
        ts[S0 < 2] = 0.0
    elif c < 2:
        ts[:] = 0.0
    return mean_s, S0, ts


def _bootstrap_ci(d: _Diffs, mean_s, S0, any_nan: bool, a2: float, cols: dict, sl) -> None:
    """Percentile bootstrap CI of the mean difference (the sample means, shifted back) and its MC error."""
    mean, nv, ok = d.mean, d.nv, d.ok
    if any_nan:
        bm = np.where(S0 > 0, mean_s, np.nan) + np.where(nv > 0, mean, 0.0)[:, None]
    else:        # S0 = c > 0 and nv = n_topics > 0 on every row
        bm = mean_s
        bm += mean[:, None]
    bm[d.const] = mean[d.const, None]
    if np.isnan(bm).any():
        lo = np.nanquantile(np.where(np.isnan(bm).all(axis=1)[:, None], 0.0, bm), a2, axis=1)
        hi = np.nanquantile(np.where(np.isnan(bm).all(axis=1)[:, None], 0.0, bm), 1 - a2, axis=1)
    else:
        lo, hi = np.quantile(bm, [a2, 1 - a2], axis=1)
    cols["boot_ci_low"][sl] = np.where(ok, lo, np.nan)
    cols["boot_ci_high"][sl] = np.where(ok, hi, np.nan)
    for q, name in ((a2, "low"), (1 - a2, "high")):
        cols[f"mc_se_boot_ci_{name}"][sl] = np.where(ok, _quantile_se(bm, q), np.nan)
