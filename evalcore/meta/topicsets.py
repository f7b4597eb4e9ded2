r"""Topic set size design (Sakai 2016, "Topic set size design", Information
Retrieval Journal 19(3):256-283; Sakai 2018, "Laboratory Experiments in
Information Retrieval", Ch. 6-7), with exact power from the noncentral t and
F distributions (scipy.stats, imported lazily).

How many topics n does a test collection need so that a difference of at
least ``min_diff`` is detected with probability >= 1 - beta at level alpha?

paired-t  (Sakai 2016 Sec. 3.) Two-sided paired t-test on the n per-topic
          differences, variance :math:`\sigma_t^2`. With :math:`\phi = n - 1`,
          critical value :math:`t_c = t_\phi(\alpha/2)` and noncentrality
          :math:`\lambda = \sqrt n\, minD / \sigma_t`, the exact power is
          :math:`P(T' \ge t_c) + P(T' \le -t_c)`, T' noncentral t(phi, lambda).
          n is the smallest n >= 2 with power >= 1 - beta. Sakai's closed-form
          start value, :math:`n \approx ((z_{\alpha/2} + z_\beta)/(minD/\sigma_t))^2
          + z_{\alpha/2}^2 / 2`, is reported as ``n_approx``.
anova     (Sakai 2016 Sec. 4.) One-way ANOVA over m systems with n topics each,
          within-system variance :math:`\sigma^2`; "minimum detectable range"
          minD: the power in the least favourable case in which two systems differ
          by minD and the others lie half-way, noncentrality
          :math:`\lambda = n\, minD^2 / (2\sigma^2)`, :math:`\phi_1 = m - 1`,
          :math:`\phi_2 = m (n - 1)`; power = P(F' >= F_c), F' noncentral
          F(phi_1, phi_2, lambda), :math:`F_c = F_{\phi_1,\phi_2}(\alpha)`.
ci        (Sakai 2016 Sec. 5.) The 100(1 - alpha)% CI of a paired difference has
          width :math:`W = 2 t_{n-1}(\alpha/2) \sqrt{V/n}`; n is the smallest n with
          E[W] <= delta (= ``min_diff``), where :math:`E[\sqrt V] = c_n \sigma_t`,
          :math:`c_n = \sqrt{2/(n-1)}\,\Gamma(n/2)/\Gamma((n-1)/2)`. beta plays no part.

Variance from data (Sakai 2016 Sec. 6): the residual variance V_E of the
two-way ANOVA without replication (runs x topics) of the loaded collection,
:func:`residual_variance`. For ``anova`` :math:`\hat\sigma^2 = V_E`. For
``paired-t`` and ``ci`` the variance of a per-topic *difference* is
:math:`\hat\sigma_t^2 = 2 V_E`: under the additive model
:math:`x_{ij} = \mu + a_i + b_j + e_{ij}` the topic effect b_j cancels in
x_{ij} - x_{i'j}, which leaves the difference of two independent errors of
variance sigma^2 each (Sakai 2016 uses this "2 V_E" convention, stated as
the variance of the difference between two systems under homoscedasticity).
A ``variance`` given by hand is used as is: sigma_t^2 for paired-t/ci, sigma^2 for anova.
(The papers of issue 10 are not in shared/papers: section numbers refer to the
published papers and the 2 V_E convention could not be checked against Sakai
2016's text here; it follows from the additive model above. Sakai's later
"Topic set size design for paired and unpaired data" notes that the variance
of paired differences is hard to estimate and that unpaired designs, which
need only sigma^2, give sizes large enough for paired data too.)

Worked example (by hand, paired-t): alpha = 0.05, beta = 0.20, minD = 0.1,
sigma_t^2 = 0.02, so minD / sigma_t = 0.1 / 0.141421 = 0.707107.
Normal start: ((1.959964 + 0.841621) / 0.707107)^2 + 1.959964^2 / 2
= 15.6978 + 1.9207 = 17.62 -> 18.
Exact check: n = 17: phi = 16, t_c = 2.1199, lambda = sqrt(17) * 0.707107 = 2.9155,
power = 0.7814 < 0.80. n = 18: phi = 17, t_c = 2.1098, lambda = sqrt(18 * 0.5) = 3.0000,
power = 0.8070 >= 0.80. So n = 18 topics:

>>> r = topic_set_size("paired-t", alpha=0.05, beta=0.2, min_diff=0.1, variance=0.02)
>>> r["n_topics"], r["n_approx"], round(r["power"], 4)
(18, 18, 0.807)
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["residual_variance", "topic_set_size", "power", "min_detectable_difference", "power_curve",
           "variance_for", "DESIGNS", "MAX_TOPICS"]

DESIGNS = ("paired-t", "anova", "ci")
#: the largest topic set size searched; a design needing more is reported as an error
MAX_TOPICS = 1_000_000


def residual_variance(matrix) -> float:
    r"""V_E of the two-way ANOVA without replication of a (runs x topics) matrix.

    .. math:: V_E = \frac{\sum_{i,j} (x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2}{(m-1)(n-1)}

    (Sakai 2016 Sec. 6; Sakai 2018 Sec. 3.2). Only topics on which every run has a
    (non-NaN) score are used; NaN if fewer than 2 runs or 2 such topics. A V_E whose
    square root is below 1e-12 max|x| (rounding noise of an exactly additive matrix) is 0.

    >>> round(residual_variance(np.array([[0.2, 0.4, 0.9], [0.1, 0.3, 0.5]])), 12)  # residuals -+.05 -+.05 +-.1
    0.015
    """
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"matrix must be 2-D (n_runs, n_topics); got shape {x.shape}")
    x = x[:, ~np.isnan(x).any(axis=0)]
    m, n = x.shape
    if m < 2 or n < 2:
        return float("nan")
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    v = float((r * r).sum() / ((m - 1) * (n - 1)))
    return 0.0 if math.sqrt(v) <= 1e-12 * float(np.abs(x).max()) else v


def variance_for(design: str, v_e: float) -> float:
    """The variance a design uses, from V_E: 2 V_E for paired-t and ci, V_E for anova (module docstring)."""
    _check_design(design)
    return float(v_e) if design == "anova" else 2.0 * float(v_e)


def _check_design(design):
    if design not in DESIGNS:
        raise ValueError(f"test must be one of {', '.join(DESIGNS)}; got {design!r}")


def _check_prob(x, name):
    if isinstance(x, bool) or not (0 < float(x) < 1):
        raise ValueError(f"{name} must lie in (0, 1); got {x!r}")
    return float(x)


def _check_pos(x, name):
    if isinstance(x, bool) or not (np.isfinite(float(x)) and float(x) > 0):
        raise ValueError(f"{name} must be a positive number; got {x!r}")
    return float(x)


def _check_systems(design, systems):
    if design != "anova":
        return None
    if systems is None:
        raise ValueError("test 'anova' needs the number of systems m (systems=, --systems)")
    if isinstance(systems, bool) or int(systems) != systems or not 2 <= systems <= 100_000:
        raise ValueError(f"systems must be a whole number in 2..100000; got {systems!r}")
    return int(systems)


def power(design: str, n, *, alpha: float = 0.05, min_diff: float, variance: float, systems: int | None = None):
    """Exact power of the design with n topics (scalar or array of n >= 2); see the module docstring.

    For ``ci`` the "power" is 1 if the expected CI width is <= min_diff, else 0.
    """
    from scipy import stats
    from scipy.special import gammaln

    _check_design(design)
    a = _check_prob(alpha, "alpha")
    d = _check_pos(min_diff, "min_diff")
    v = _check_pos(variance, "variance")
    m = _check_systems(design, systems)
    n = np.asarray(n, dtype=np.float64)
    if np.any(n < 2):
        raise ValueError(f"n must be >= 2 topics; got {n.min():g}")
    if design == "paired-t":
        df = n - 1
        tc = stats.t.isf(a / 2, df)
        ncp = np.sqrt(n) * d / math.sqrt(v)
        return stats.nct.sf(tc, df, ncp) + stats.nct.cdf(-tc, df, ncp)
    if design == "anova":
        f1, f2 = m - 1, m * (n - 1)
        fc = stats.f.isf(a, f1, f2)
        lam = n * d * d / (2 * v)
        return stats.ncf.sf(fc, f1, f2, lam)
    return (_ci_width(n, a, v, stats, gammaln) <= d).astype(np.float64)


def _ci_width(n, a, v, stats, gammaln):
    cn = np.sqrt(2 / (n - 1)) * np.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
    return 2 * stats.t.isf(a / 2, n - 1) * cn * math.sqrt(v) / np.sqrt(n)


def _approx_n(design, a, b, d, v, m):
    from scipy.stats import norm

    za, zb = norm.isf(a / 2), norm.isf(b)
    if design == "paired-t":
        return int(math.ceil(((za + zb) / (d / math.sqrt(v))) ** 2 + za * za / 2))
    if design == "ci":
        return int(math.ceil(4 * za * za * v / (d * d)))
    return None


def topic_set_size(design: str, *, alpha: float = 0.05, beta: float = 0.2, min_diff: float, variance: float,
                   systems: int | None = None, max_topics: int = MAX_TOPICS) -> dict:
    """Smallest number of topics n >= 2 meeting the design (module docstring), by exact power.

    Returns a dict: ``test, alpha, beta, min_diff, variance, systems, n_topics, power`` (the
    achieved power at n_topics; for ci the expected width ``expected_width`` instead) and
    ``n_approx`` (the normal approximation, paired-t and ci only; None for anova).
    Raises ValueError if more than ``max_topics`` topics would be needed.
    """
    from scipy import stats
    from scipy.special import gammaln

    _check_design(design)
    a = _check_prob(alpha, "alpha")
    b = _check_prob(beta, "beta")
    d = _check_pos(min_diff, "min_diff")
    v = _check_pos(variance, "variance")
    m = _check_systems(design, systems)
    if design == "ci":
        def ok(n):
            return _ci_width(np.float64(n), a, v, stats, gammaln) <= d
    else:
        def ok(n):
            return power(design, n, alpha=a, min_diff=d, variance=v, systems=m) >= 1 - b
    # power (and -width) increase with n: double, then bisect on the first n that is ok
    lo, hi = 1, 2
    while not ok(hi):
        lo, hi = hi, hi * 2
        if lo >= max_topics:
            raise ValueError(f"more than {max_topics} topics would be needed (min_diff {d:g} is tiny "
                             f"against variance {v:g}); raise min_diff or max_topics")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    out = {"test": design, "alpha": a, "beta": b if design != "ci" else None, "min_diff": d, "variance": v,
           "systems": m, "n_topics": int(hi)}
    if design == "ci":
        out["expected_width"] = float(_ci_width(np.float64(hi), a, v, stats, gammaln))
    else:
        out["power"] = float(power(design, hi, alpha=a, min_diff=d, variance=v, systems=m))
    out["n_approx"] = _approx_n(design, a, b, d, v, m)
    return out


def min_detectable_difference(design: str, n: int, *, alpha: float = 0.05, beta: float = 0.2, variance: float,
                              systems: int | None = None) -> float:
    """The inverse: the smallest difference (paired-t), range (anova) or CI width (ci) that n topics
    detect with power 1 - beta (for ci: the expected CI width with n topics)."""
    from scipy import optimize, stats
    from scipy.special import gammaln

    _check_design(design)
    a = _check_prob(alpha, "alpha")
    b = _check_prob(beta, "beta")
    v = _check_pos(variance, "variance")
    m = _check_systems(design, systems)
    if isinstance(n, bool) or int(n) != n or n < 2:
        raise ValueError(f"n must be a whole number >= 2; got {n!r}")
    if design == "ci":
        return float(_ci_width(np.float64(n), a, v, stats, gammaln))
    if design == "paired-t" and n < 3:
        # one degree of freedom: scipy's noncentral t gives NaN power for large effects, so no
        # difference can be solved for; say so rather than fail inside the root finder
        raise ValueError(f"the paired t-test's smallest detectable difference needs n >= 3 topics; got {n}")

    def gap(dd):
        return float(power(design, n, alpha=a, min_diff=dd, variance=v, systems=m)) - (1 - b)

    hi = math.sqrt(v)
    while gap(hi) < 0:
        hi *= 2
    return float(optimize.brentq(gap, 1e-12 * math.sqrt(v), hi, xtol=1e-12, rtol=1e-10))


def power_curve(design: str, ns, *, alpha: float = 0.05, min_diff: float, variance: float,
                systems: int | None = None) -> pd.DataFrame:
    """Tidy ``n_topics, power`` (for ci: ``expected_width`` too) for the dashboard's power curve."""
    from scipy import stats
    from scipy.special import gammaln

    ns = np.asarray(ns, dtype=np.int64)
    df = pd.DataFrame({"n_topics": ns, "power": power(design, ns, alpha=alpha, min_diff=min_diff,
                                                        variance=variance, systems=systems)})
    if design == "ci":
        df["expected_width"] = _ci_width(ns.astype(np.float64), float(alpha), float(variance), stats, gammaln)
    return df
