r"""Rank correlation between the system rankings of two metrics.

Kendall's tau (003 Eq. 8) with its normal test (003 Eq. 9), Spearman's rho
(001) and Yilmaz et al.'s AP correlation tau_ap (SIGIR 2008). Inputs are
*system scores* (e.g. mean AP per run), not ranks: a higher score ranks
higher, and equal scores are ties. Scores that differ by rounding only (by at
most :data:`~evalcore.meta.pairs.ZERO_RTOL` = 1e-13 times the largest |score| of
the vector) are equal: the same mean summed in another order is one system
score, not two.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

from ._common import sign_tol, tie_groups, zero_tolerance

__all__ = ["kendall_tau", "kendall_test", "spearman_rho", "tau_ap", "correlation_matrix",
           "CorrelationResult", "gain_correlation_table", "METHODS"]

METHODS = ("tau-b", "tau-a", "spearman", "tau-ap")


def _vec(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of system scores; got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return a


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    a, b = _vec(x, "x"), _vec(y, "y")
    if a.shape != b.shape:
        raise ValueError(f"x and y must score the same runs; got {a.size} and {b.size} values")
    if a.size < 2:
        raise ValueError(f"need at least 2 runs to correlate rankings; got {a.size}")
    return a, b


def kendall_tau(x, y, *, variant: str = "b") -> float:
    r"""Kendall's tau between the rankings that scores ``x`` and ``y`` induce.

    .. math:: \tau_a = \frac{2(pos - neg)}{n_s(n_s-1)} \quad \text{(003 Eq. 8)},\qquad
              \tau_b = \frac{pos - neg}{\sqrt{(n_0 - n_x)(n_0 - n_y)}}

    pos/neg count concordant/discordant pairs of runs, n_0 = n_s(n_s-1)/2,
    n_x / n_y the pairs tied in x / in y. Without ties both equal Eq. 8.
    ``variant="b"`` (default) is scipy.stats.kendalltau's default; ties happen
    in real data (two clef2015 runs are identical). tau-b is NaN when one
    ranking is all ties.

    >>> kendall_tau([0.3, 0.2, 0.1], [0.9, 0.5, 0.7])
    0.3333333333333333
    >>> kendall_tau([1, 1, 2], [1, 2, 3], variant="a"), round(kendall_tau([1, 1, 2], [1, 2, 3]), 4)
    (0.6666666666666666, 0.8165)
    """
    if variant not in ("a", "b"):
        raise ValueError(f"variant must be 'a' or 'b'; got {variant!r}")
    a, b = _pair(x, y)
    n = a.size
    iu = np.triu_indices(n, k=1)
    sa = sign_tol(a[:, None] - a[None, :], zero_tolerance(a))[iu]
    sb = sign_tol(b[:, None] - b[None, :], zero_tolerance(b))[iu]
    s = float(np.sum(sa * sb))
    n0 = n * (n - 1) / 2
    if variant == "a":
        return s / n0
    denom = math.sqrt(float(np.count_nonzero(sa)) * float(np.count_nonzero(sb)))
    return s / denom if denom > 0 else float("nan")


def kendall_test(tau: float, n: int, *, alpha: float = 0.05) -> dict:
    r"""Normal test of Kendall's tau (003 Eq. 9), two-tailed.

    .. math:: Z_0 = |\tau| / \sqrt{(4n_s+10)/(9n_s(n_s-1))}

    Returns ``{"z0", "p_value", "tau_critical", "significant"}``: the statistic,
    the two-tailed p-value 2(1 - Phi(Z_0)), the smallest |tau| significant at
    ``alpha`` for ``n`` runs (z_{1-alpha/2} times the standard error) and
    whether ``p_value < alpha``. With n = 30 and alpha = 0.01 the critical
    value is 0.332 (003 Sec. 4.1 rounds it to "over 0.34"). NaN tau gives NaN
    statistics and ``significant=False``.

    >>> r = kendall_test(0.5, 30, alpha=0.01)
    >>> round(r["z0"], 3), round(r["tau_critical"], 3), r["significant"]
    (3.88, 0.332, True)
    """
    if isinstance(n, bool) or int(n) != n or n < 2:
        raise ValueError(f"n (number of runs) must be a whole number >= 2; got {n!r}")
    if not (0 < alpha < 1):
        raise ValueError(f"alpha must lie in (0, 1); got {alpha!r}")
    n = int(n)
    se = math.sqrt((4 * n + 10) / (9 * n * (n - 1)))
    crit = NormalDist().inv_cdf(1 - alpha / 2) * se
    if tau is None or not np.isfinite(tau):
        return {"z0": float("nan"), "p_value": float("nan"), "tau_critical": crit, "significant": False}
    z0 = abs(float(tau)) / se
    p = math.erfc(z0 / math.sqrt(2))
    return {"z0": z0, "p_value": p, "tau_critical": crit, "significant": bool(p < alpha)}


def _average_ranks(a: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties get their average rank (scipy.stats.rankdata's 'average'); neighbours in sorted
    order that differ by rounding only (:func:`zero_tolerance`) are ties: the rule of the paired tests'
    Wilcoxon ranks, :func:`~evalcore.meta._common.tie_groups`."""
    return tie_groups(np.asarray(a, dtype=np.float64)[None, :], zero_tolerance(a))[0][0]


def spearman_rho(x, y) -> float:
    """Spearman's rho: Pearson correlation of the average ranks of ``x`` and ``y`` (001).

    NaN when either ranking is all ties.

    >>> spearman_rho([1, 2, 3, 4], [10, 20, 40, 30])
    0.8
    """
    a, b = _pair(x, y)
    ra, rb = _average_ranks(a), _average_ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    # math.fsum: correctly rounded sums, the same on every CPU (no BLAS dot product)
    d = math.sqrt(math.fsum(ra * ra) * math.fsum(rb * rb))
    return math.fsum(ra * rb) / d if d > 0 else float("nan")


def tau_ap(x, y) -> float:
    r"""AP correlation of Yilmaz, Aslam and Robertson (SIGIR 2008).

    .. math:: \tau_{ap} = \frac{2}{N-1}\sum_{i=2}^{N}\frac{C(i)}{i-1} - 1

    Walk the ranking by ``x`` from the top (ties in x by run order); C(i) is
    the number of runs above position i that ``y`` (the reference ranking)
    also puts above the run at i. Disagreements near the top cost more. Not
    symmetric: ``tau_ap(x, y) != tau_ap(y, x)`` in general. Ties (our
    extension; the paper assumes none): a pair tied in exactly one of x, y
    counts 1/2, a pair tied in both counts as agreeing, so tau_ap(x, x) = 1.

    >>> tau_ap([4, 3, 2, 1], [4, 3, 2, 1]), tau_ap([4, 3, 2, 1], [1, 2, 3, 4])
    (1.0, -1.0)
    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4), round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)
    (0.3333, 0.7778)
    """
    a, b = _pair(x, y)
    n = a.size
    order = np.argsort(-a, kind="stable")
    a, b = a[order], b[order]
    # position k above position i (k < i): a[k] >= a[i]
    sa = sign_tol(a[:, None] - a[None, :], zero_tolerance(a))
    sb = sign_tol(b[:, None] - b[None, :], zero_tolerance(b))
    agree = np.where(sa == sb, 1.0, np.where((sa == 0) ^ (sb == 0), 0.5, 0.0))
    above = np.tril(np.ones((n, n), dtype=bool), k=-1).T  # above[k, i] = k < i
    C = (agree * above).sum(axis=0)[1:]
    return float(2.0 / (n - 1) * np.sum(C / np.arange(1, n)) - 1.0)


_FUNCS = {
    "tau-b": lambda x, y: kendall_tau(x, y, variant="b"),
    "tau-a": lambda x, y: kendall_tau(x, y, variant="a"),
    "spearman": spearman_rho,
    "tau-ap": tau_ap,
}


def _test(method: str, value: float, n: int, alpha: float) -> dict:
    if method == "spearman":
        # large-sample normal approximation: rho * sqrt(n - 1) ~ N(0, 1)
        if not np.isfinite(value):
            return {"z0": float("nan"), "p_value": float("nan"), "significant": False}
        z0 = abs(value) * math.sqrt(n - 1)
        p = math.erfc(z0 / math.sqrt(2))
        return {"z0": z0, "p_value": p, "significant": bool(p < alpha)}
    r = kendall_test(value, n, alpha=alpha)
    return {k: r[k] for k in ("z0", "p_value", "significant")}


@dataclass(frozen=True)
class CorrelationResult:
    """Result of :func:`correlation_matrix`.

    Attributes
    ----------
    tau : DataFrame (metrics x metrics)
        The correlation of every ordered pair of metrics (diagonal 1; for
        ``tau-ap`` row = the ranking walked, column = the reference).
    significant : bool DataFrame (metrics x metrics)
        Whether the value is significant at ``alpha`` (Eq. 9 normal test for
        the tau variants and tau_ap; rho * sqrt(n-1) normal approximation for
        Spearman).
    tidy : DataFrame
        One row per unordered pair (ordered for tau-ap) in metric order, columns
        ``metric_a, metric_b, tau, z0, p_value, significant`` (``tau`` holds
        the value of whichever ``method`` was asked for).
    method : str ; alpha : float ; n_runs : int
    """
    tau: pd.DataFrame
    significant: pd.DataFrame
    tidy: pd.DataFrame
    method: str
    alpha: float
    n_runs: int


#: Largest (metrics x run pairs) sign matrix :func:`_kendall_all` builds (bytes); above it each pair is
#: computed on its own (:func:`kendall_tau`), in memory for two metrics at a time.
KENDALL_ALL_BYTES = 64 << 20


def _kendall_all(vals: np.ndarray, variant: str) -> Callable[[int, int], float] | None:
    """``(i, j) -> kendall_tau(vals[:, i], vals[:, j], variant=variant)`` for every pair of columns, from each
    column's pair signs made once (not once per pair it is in): ``pos - neg`` of every pair of columns is a
    product of the sign matrices, sums of +-1 and 0 that are exact in any order, so each tau is the float
    :func:`kendall_tau` returns, bit for bit. None where :func:`kendall_tau` would refuse a column (NaN,
    fewer than 2 runs: the pairs then raise as they did) or the signs exceed :data:`KENDALL_ALL_BYTES`."""
    n, k = vals.shape
    n0 = n * (n - 1) / 2
    if k < 2 or n < 2 or not np.all(np.isfinite(vals)) or 8 * k * n0 > KENDALL_ALL_BYTES:
        return None
    iu = np.triu_indices(n, k=1)
    signs = np.stack([sign_tol(a[:, None] - a[None, :], zero_tolerance(a))[iu] for a in vals.T])
    dot = signs @ signs.T
    nz = np.count_nonzero(signs, axis=1)

    def tau(i: int, j: int) -> float:
        s = float(dot[i, j])
        if variant == "a":
            return s / n0
        denom = math.sqrt(float(nz[i]) * float(nz[j]))
        return s / denom if denom > 0 else float("nan")
    return tau


def correlation_matrix(means: pd.DataFrame, *, method: str = "tau-b", alpha: float = 0.01) -> CorrelationResult:
    """Correlation between the system rankings of every pair of metrics (003 Table 2 layout).

    Parameters
    ----------
    means : DataFrame
        index = runs, columns = metric labels, values = the system score (mean
        over topics) of each run under each metric.
    method : {"tau-b", "tau-a", "spearman", "tau-ap"}
    alpha : float
        Significance level of the test (003 uses 0.01).

    >>> df = pd.DataFrame({"AP": [0.3, 0.2, 0.1], "RR": [0.5, 0.9, 0.1]}, index=["r1", "r2", "r3"])
    >>> round(float(correlation_matrix(df).tau.loc["AP", "RR"]), 4)
    0.3333
    """
    if method not in _FUNCS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if not isinstance(means, pd.DataFrame):
        raise ValueError(f"means must be a DataFrame (index = runs, columns = metrics); got {type(means).__name__}")
    if means.shape[1] < 1 or means.shape[0] < 2:
        raise ValueError(f"rank correlation compares rankings of runs: it needs at least 2 runs (rows) and 1 "
                         f"metric (column); got {means.shape[0]} run(s) and {means.shape[1]} metric(s)")
    if not (0 < alpha < 1):
        raise ValueError(f"alpha must lie in (0, 1); got {alpha!r}")
    cols = [str(c) for c in means.columns]
    vals = means.to_numpy(dtype=np.float64)
    n = vals.shape[0]
    k = len(cols)
    fn = _FUNCS[method]
    taus = _kendall_all(vals, method[-1]) if method in ("tau-a", "tau-b") else None
    T = np.eye(k)
    S = np.ones((k, k), dtype=bool)
    rows = []
    for i in range(k):
        for j in range(k):
            if i == j or (method != "tau-ap" and j < i):
                continue
            v = fn(vals[:, i], vals[:, j]) if taus is None else taus(i, j)
            t = _test(method, v, n, alpha)
            T[i, j] = v
            S[i, j] = t["significant"]
            if method != "tau-ap":
                T[j, i], S[j, i] = v, t["significant"]
            rows.append({"metric_a": cols[i], "metric_b": cols[j], "tau": v, **t})
    tidy = pd.DataFrame(rows, columns=["metric_a", "metric_b", "tau", "z0", "p_value", "significant"])
    return CorrelationResult(tau=pd.DataFrame(T, index=cols, columns=cols),
                             significant=pd.DataFrame(S, index=cols, columns=cols),
                             tidy=tidy, method=method, alpha=alpha, n_runs=n)


def gain_correlation_table(default: Mapping[str, Sequence[float]],
                           variants: Mapping[str, Mapping[str, Sequence[float]]], *,
                           method: str = "tau-b") -> pd.DataFrame:
    """Correlation of each metric's default ranking with its variants (003 Table 5 layout).

    Parameters
    ----------
    default : {metric label: (n_runs,) system scores under the default setting}
    variants : {metric label: {setting label (e.g. "30:20:10"): (n_runs,) system scores}}
    method : as in :func:`correlation_matrix` (for tau-ap the default ranking is the reference)

    Returns a DataFrame, index = metrics, columns = setting labels (in first-seen order).

    >>> gain_correlation_table({"O": [3, 2, 1]}, {"O": {"1:1:1": [3, 1, 2]}}).round(4).to_dict()
    {'1:1:1': {'O': 0.3333}}
    """
    if method not in _FUNCS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    fn = _FUNCS[method]
    settings: list[str] = []
    for per in variants.values():
        for s in per:
            if s not in settings:
                settings.append(s)
    out = pd.DataFrame(np.nan, index=list(variants), columns=settings)
    for m, per in variants.items():
        if m not in default:
            raise ValueError(f"variants name metric {m!r} but default has no scores for it")
        for s, v in per.items():
            out.loc[m, s] = fn(v, default[m])
    return out
