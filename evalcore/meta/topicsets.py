r"""Topic set size design (Sakai 2016, "Topic set size design", Information
Retrieval Journal 19(3):256-283; Sakai 2018, "Topic set size design for paired
and unpaired data", ICTIR 2018), with exact power from the noncentral t and F
distributions computed here without SciPy's noncentral distributions (whose
``nct.cdf`` returns NaN in the tails, e.g. ``nct.cdf(-1.97, 249, 10.4)``).

How many topics n does a test collection need so that a difference of at
least ``min_diff`` is detected with probability >= 1 - beta at level alpha?

Designs (t_c, F_c are upper critical values; phi degrees of freedom):

paired-t     Two-sided paired t-test on n per-topic differences of variance
             :math:`\sigma_t^2`: :math:`\phi = n - 1`, :math:`t_c = t_\phi(\alpha/2)`,
             :math:`\lambda = \sqrt n\, minD / \sigma_t`; power
             :math:`P(|T'| \ge t_c)`, T' noncentral t(phi, lambda) (Sakai 2016,
             the t-test design). Sakai's start value
             :math:`n \approx ((z_{\alpha/2} + z_\beta)\sigma_t / minD)^2 + z_{\alpha/2}^2/2`
             is ``n_approx``.
unpaired-t   Two-sided two-sample (Student) t-test, n topics per system, equal
             within-system variance :math:`\sigma^2`: :math:`\phi = 2(n - 1)`,
             :math:`\lambda = minD / (\sigma \sqrt{2/n})`; power :math:`P(|T'| \ge t_c)`
             (Sakai 2018). ``n_approx`` is the textbook
             :math:`2((z_{\alpha/2} + z_\beta)\sigma / minD)^2 + z_{\alpha/2}^2/4`.
anova        One-way ANOVA over m systems with n topics each, within-system
             variance :math:`\sigma^2`, minimum detectable range minD (two systems
             minD apart, the others half-way): :math:`\lambda = n\, minD^2 / (2\sigma^2)`,
             :math:`\phi_1 = m - 1`, :math:`\phi_2 = m(n - 1)`; power
             :math:`P(F' \ge F_c)`, F' noncentral F(phi_1, phi_2, lambda) (Sakai 2016,
             the ANOVA design).
ci           100(1 - alpha)% CI of a paired mean difference: width
             :math:`W = 2 t_\phi(\alpha/2) \sqrt{V/n}`, phi = n - 1; n is the smallest with
             :math:`E[W] \le \delta` (``min_diff``), :math:`E[\sqrt V] = c(\phi)\sigma_t`,
             :math:`c(\phi) = \sqrt{2/\phi}\,\Gamma((\phi+1)/2)/\Gamma(\phi/2)` (Sakai 2016,
             the CI design). beta plays no part.
unpaired-ci  The same for two independent samples of n topics each:
             :math:`W = 2 t_\phi(\alpha/2) \sqrt{2V/n}`, :math:`\phi = 2(n-1)`,
             :math:`E[\sqrt V] = c(\phi)\sigma` (Sakai 2018).

Which variance. Every design takes either estimate (``estimator=``; CLI ``--variance-estimator``), each
named after the ANOVA whose residual it is; the paired designs double it (the variance of a difference of two
systems' scores, Sakai 2016's :math:`\sigma_t^2 = 2\sigma^2`):

=============  ========================================  ==========================================
design         ``estimator="two-way"``                   ``estimator="one-way"``
=============  ========================================  ==========================================
paired-t, ci   :math:`2 V_E` (**default**)               :math:`2\hat\sigma^2`
anova          :math:`V_E` (**default**)                 :math:`\hat\sigma^2`
unpaired-t/ci  :math:`V_E`                               :math:`\hat\sigma^2` (**default**)
=============  ========================================  ==========================================

``two-way`` (:func:`residual_variance`), the residual variance of the two-way ANOVA without replication
(runs and topics as the two factors):
:math:`V_E = S_E / ((m-1)(n-1))`, :math:`S_E = S_T - S_A - S_B` (total, between-run and between-topic sums
of squares), i.e. :math:`\sum_{i,j}(x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2 / ((m-1)(n-1))`.
Under the additive model :math:`x_{ij} = \mu + a_i + b_j + e_{ij}` the topic effect :math:`b_j` is removed,
as it is from any comparison of systems run on the same topics. Sakai's EVIA 2014 paper "Topic set size
design with variance estimates from two-way ANOVA" introduced it for topic set size design (its talk calls
it the "safest" of the variance estimates compared there), and Sakai 2016 ("Topic set size design", IRJ
19(3), the section on estimating the within-system variance) estimates the variance of every design so.
That recommendation is the **default for paired-t, ci and anova**: a test collection's systems are run on
the same topics, so the analysis that follows (a paired test; an ANOVA with topics as a factor) removes the
topic effect too. Whenever topics differ more than the residual noise (a topic F ratio above 1, as on any
real collection) it is the smaller of the two, so it asks for fewer topics (docs/significance.md gives
clef2015's figures): "safe" in the talk is not "conservative", and the one-way estimate, which keeps the
topic variance, is the conservative bound.

``one-way`` (:func:`within_system_variance`), the residual variance of the one-way ANOVA with runs as groups:
:math:`\hat\sigma^2 = S_W / (m(n-1))`, :math:`S_W = S_T - S_A = \sum_{i,j}(x_{ij} - \bar x_{i\cdot})^2`,
i.e. each run's topic variance (ddof 1) pooled over runs. It keeps the topic effect, which is what varies
between two samples of different topics: the **default for unpaired-t and unpaired-ci** (Sakai 2018, "Topic
set size design for paired and unpaired data", ICTIR: systems scored on different topics, where no topic
effect can be removed and V_E would understate the variance of a mean). It is also the error term of the
one-way ANOVA model itself (:math:`\phi_2 = m(n-1)`), and the cautious choice for any design.

Sources. Sakai 2016, Sakai 2018 (ICTIR), EVIA 2014 and Sakai's book "Laboratory Experiments in Information
Retrieval" (2018; its chapter on topic set size design) are not among the project's papers (shared/papers),
so both estimators were implemented from the definitions above (the residuals of one-way ANOVA and of
two-way ANOVA without replication) and are cited by paper, not by equation; the attribution of the two-way
estimate to Sakai 2016 and EVIA 2014 comes from their published summaries and the EVIA 2014 talk, not from a
check of the papers' text.

:data:`ESTIMATOR_DEFINITIONS` holds each estimator's definition and source as printed by ``evalcore
topics`` and the dashboard.

Exact power. Both distributions are written as mixtures over the chi-square
denominator or the Poisson-weighted numerator (Johnson, Kotz and Balakrishnan,
"Continuous Univariate Distributions" vol. 2, Ch. 30-31):

- F: :math:`P(F' \ge F_c) = \sum_k \mathrm{Pois}(k; \lambda/2)\, I_y(\phi_2/2, \phi_1/2 + k)`,
  :math:`y = \phi_2/(\phi_2 + \phi_1 F_c)`, summed over k within
  :math:`\lambda/2 \pm (20\sqrt{\lambda/2} + 30)` (Chernoff bounds put the Poisson
  mass outside below 1e-30). Every term lies in [0, 1], so nothing overflows or
  turns into NaN in the tails.
- t: :math:`T'^2` is noncentral F(1, phi, lambda^2), so the two-sided power is the
  series above with :math:`\phi_1 = 1`. Where :math:`\lambda^2/2 > 2.5\cdot10^7` (more than
  2e5 terms) it is the chi mixture
  :math:`1 - E_X[\Phi(t_c X/\sqrt\phi - \lambda) - \Phi(-t_c X/\sqrt\phi - \lambda)]`,
  X ~ chi(phi), by adaptive quadrature over the chi quantiles 1e-20 .. 1 - 1e-20.
  For F beyond that size, the same mixture with :math:`t_c = \sqrt{\phi_1 F_c}` is a
  lower bound (it drops the other phi_1 - 1 squared normals) and is used if it is 1
  to double precision; otherwise a ValueError says so.

Both are tested against 40-digit mpmath computations (tests/test_topicsets_exact.py).

Sources. Sakai 2016 and Sakai 2018 are not among the project's papers, so the
designs above were written from the published descriptions as summarised here
and from the standard power formulas; section and equation numbers of those
papers could not be checked against their text, and the unpaired designs and
their ``n_approx`` in particular are the textbook two-sample forms, unchecked
against Sakai 2018's own. The same holds for the variance estimators (the
"Sources" paragraph above).

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

Unpaired, the same minD against sigma^2 = 0.01 (so 2 sigma^2 = 0.02 as above):
lambda = 0.1 / sqrt(2 * 0.01 / n), phi = 2(n - 1). n = 16: phi = 30, t_c = 2.0423,
lambda = 2.8284, power = 0.7814; n = 17: phi = 32, t_c = 2.0369, lambda = 2.9155,
power = 0.8070. So 17 topics per system, one fewer than paired (phi is larger):

>>> r = topic_set_size("unpaired-t", alpha=0.05, beta=0.2, min_diff=0.1, variance=0.01)
>>> r["n_topics"], round(r["power"], 4)
(17, 0.807)
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from .._extras import needs

__all__ = ["residual_variance", "within_system_variance", "design_variance", "topic_set_size", "power",
           "min_detectable_difference", "power_curve", "variance_for", "nct_two_sided_sf", "ncf_sf",
           "DESIGNS", "ESTIMATORS", "ESTIMATOR_NAMES", "ESTIMATOR_DEFINITIONS", "default_estimator",
           "estimator_sizes", "MAX_TOPICS"]

DESIGNS = ("paired-t", "anova", "ci", "unpaired-t", "unpaired-ci")
#: variance estimators (module docstring), each the residual variance of an ANOVA: "two-way" (V_E of the
#: two-way ANOVA without replication, runs x topics; default of paired-t, ci and anova, as Sakai 2016) and
#: "one-way" (the one-way ANOVA residual, runs as groups: the pooled within-system sigma^2; default of the
#: unpaired designs). Every design takes either.
ESTIMATORS = ("two-way", "one-way")
PAIRED = ("paired-t", "ci")
#: the designs whose default is the two-way V_E (:func:`default_estimator`)
TWO_WAY_DEFAULT = ("paired-t", "ci", "anova")
#: each estimator's name: the ANOVA whose residual variance it is
ESTIMATOR_NAMES = {
    "two-way": "V_E, residual variance of the two-way ANOVA without replication (runs x topics)",
    "one-way": "sigma^2, residual variance of the one-way ANOVA (runs as groups)",
}
#: each estimator's definition and source, as ``evalcore topics`` and the dashboard print them
ESTIMATOR_DEFINITIONS = {
    "two-way": ("V_E = sum_ij (x_ij - x_i. - x_.j + x..)^2 / ((m-1)(n-1)), the residual variance of the two-way "
                "ANOVA without replication (runs and topics as factors, S_E = S_total - S_runs - S_topics: the "
                "topic effect removed); Sakai 2016, Topic set size design, IRJ 19(3), after Sakai, EVIA 2014; "
                "the default of paired-t, ci and anova"),
    "one-way": ("sigma^2 = sum_ij (x_ij - x_i.)^2 / (m(n-1)), the residual variance of the one-way ANOVA (runs as "
                "groups, S_W = S_total - S_runs: the topic effect kept), each run's topic variance pooled over "
                "runs; Sakai 2018, Topic set size design for paired and unpaired data, ICTIR, for unpaired data; "
                "the default of unpaired-t and unpaired-ci"),
}
#: the largest topic set size searched; a design needing more is reported as an error
MAX_TOPICS = 1_000_000
_TAIL = 1e-20                   # chi quantiles integrated over: the mass left out is 2 * _TAIL
_MAX_POISSON_MEAN = 2.5e7       # above it the F series would need > 2e5 terms: the bound is used


# -- variance ------------------------------------------------------------------------------
def _complete(matrix):
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"matrix must be 2-D (n_runs, n_topics); got shape {x.shape}")
    return x[:, ~np.isnan(x).any(axis=0)]


def residual_variance(matrix) -> float:
    r"""V_E of the two-way ANOVA without replication of a (runs x topics) matrix.

    .. math:: V_E = \frac{\sum_{i,j} (x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2}{(m-1)(n-1)}

    (Sakai 2018, Laboratory Experiments in IR, Sec. 3.2); the variance estimate of paired topic set
    size design in Sakai 2016, "Topic set size design" (2 V_E for a paired difference). Only topics
    on which every run has a (non-NaN) score are used; NaN if fewer than 2 runs or 2 such topics. A V_E whose square
    root is below 1e-12 max|x| (rounding noise of an exactly additive matrix) is 0.

    >>> round(residual_variance(np.array([[0.2, 0.4, 0.9], [0.1, 0.3, 0.5]])), 12)  # residuals -+.05 -+.05 +-.1
    0.015
    """
    x = _complete(matrix)
    m, n = x.shape
    if m < 2 or n < 2:
        return float("nan")
    r = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    v = float((r * r).sum() / ((m - 1) * (n - 1)))
    return 0.0 if math.sqrt(v) <= 1e-12 * float(np.abs(x).max()) else v


def within_system_variance(matrix) -> float:
    r"""Pooled within-system variance: the residual V_E of the one-way ANOVA (runs as groups).

    .. math:: \hat\sigma^2 = \frac{\sum_{i}\sum_{j} (x_{ij} - \bar x_{i\cdot})^2}{m(n-1)}

    i.e. the mean over runs of each run's topic variance (ddof 1): the within-system variance of
    unpaired designs (Sakai 2018) and of the one-way ANOVA design. Only topics every run scored are
    used; NaN with fewer than 1 run or 2 such topics.

    >>> within_system_variance(np.array([[0.2, 0.4, 0.9], [0.1, 0.3, 0.5]]))  # (0.13 + 0.04) / 2, ddof 1
    0.085
    """
    x = _complete(matrix)
    m, n = x.shape
    if m < 1 or n < 2:
        return float("nan")
    r = x - x.mean(axis=1, keepdims=True)
    return round(float((r * r).sum() / (m * (n - 1))), 15)


def default_estimator(design: str) -> str:
    """The variance estimator a design uses unless told otherwise (module docstring, "Which variance"):
    ``"two-way"`` (V_E of the two-way ANOVA without replication; Sakai 2016's estimate, after EVIA 2014) for
    paired-t, ci and anova, whose systems share their topics; ``"one-way"`` (the one-way ANOVA residual
    sigma^2, which keeps the topic variance) for the unpaired designs, whose systems do not (Sakai 2018).

    >>> [default_estimator(d) for d in ("paired-t", "ci", "anova", "unpaired-t", "unpaired-ci")]
    ['two-way', 'two-way', 'two-way', 'one-way', 'one-way']
    """
    _check_design(design)
    return "two-way" if design in TWO_WAY_DEFAULT else "one-way"


def _check_estimator(estimator) -> str:
    if estimator not in ESTIMATORS:
        raise ValueError(f"variance estimator must be one of {', '.join(ESTIMATORS)}; got {estimator!r}")
    return estimator


def design_variance(matrix, design: str, estimator: str | None = None) -> dict:
    """The variance ``design`` needs, estimated from a (runs x topics) matrix (module docstring table).

    ``estimator``: ``"two-way"`` (V_E of the two-way ANOVA without replication), ``"one-way"`` (sigma^2 of
    the one-way ANOVA) or None, the design's default (:func:`default_estimator`: two-way for paired-t, ci and
    anova, as Sakai 2016; one-way for the unpaired designs). Every design takes either; the paired designs
    double it (the variance of a difference).

    Returns ``variance`` (what the power model takes), ``estimate`` (sigma^2 or V_E before the
    factor 2), ``estimator``, ``name`` (:data:`ESTIMATOR_NAMES`), ``label`` (e.g. "2 V_E (two-way ANOVA
    without replication residual; Sakai 2016)"), ``definition`` (:data:`ESTIMATOR_DEFINITIONS`),
    ``default`` (whether it is the design's default) and the ``runs`` and complete ``topics`` used.
    Raises ValueError when the estimate is NaN or 0.
    """
    _check_design(design)
    estimator = _check_estimator(default_estimator(design) if estimator is None else estimator)
    x = _complete(matrix)
    est = within_system_variance(x) if estimator == "one-way" else residual_variance(x)
    if not (np.isfinite(est) and est > 0):
        name = "sigma^2" if estimator == "one-way" else "V_E"
        raise ValueError(f"the {estimator} variance estimate {name} is {est:g} on this {x.shape[0]} runs x "
                         f"{x.shape[1]} topics matrix (complete topics only): it needs >= 2 runs and >= 2 topics "
                         "with varying scores; give the variance by hand instead")
    factor = 2.0 if design in PAIRED else 1.0
    two = "2 " if factor == 2 else ""
    if estimator == "one-way":
        label = f"{two}sigma^2 (one-way ANOVA residual: within-system variance pooled over runs; Sakai 2018)"
    else:
        label = (f"{two}V_E (two-way ANOVA without replication residual: the topic effect removed; "
                 f"Sakai 2016)")
    return {"variance": factor * est, "estimate": est, "estimator": estimator, "name": ESTIMATOR_NAMES[estimator],
            "label": label, "definition": ESTIMATOR_DEFINITIONS[estimator],
            "default": estimator == default_estimator(design), "runs": int(x.shape[0]), "topics": int(x.shape[1])}


def estimator_sizes(matrix, design: str, *, alpha: float = 0.05, beta: float = 0.2, min_diff: float,
                    systems: int | None = None) -> dict:
    """The topic set size under each estimator, to print beside the one chosen: {estimator: {"variance",
    "n_topics"}} (``n_topics`` None, with ``error``, where that estimate is 0 or NaN or the size is out of
    range), in :data:`ESTIMATORS` order.

    >>> x = np.array([[0.2, 0.4, 0.6, 0.8], [0.1, 0.5, 0.3, 0.7], [0.3, 0.3, 0.6, 0.6]])
    >>> {k: v["n_topics"] for k, v in estimator_sizes(x, "paired-t", min_diff=0.1).items()}
    {'two-way': 29, 'one-way': 88}
    """
    out = {}
    for est in ESTIMATORS:
        try:
            v = design_variance(matrix, design, est)["variance"]
            n = topic_set_size(design, alpha=alpha, beta=beta, min_diff=min_diff, variance=v,
                               systems=systems)["n_topics"]
            out[est] = {"variance": v, "n_topics": n}
        except ValueError as e:
            out[est] = {"variance": None, "n_topics": None, "error": str(e)}
    return out


def variance_for(design: str, v_e: float) -> float:
    """The two-way estimate's variance from V_E: 2 V_E for the paired designs, V_E for the others (what
    :func:`design_variance` gives with ``estimator="two-way"``; the default of anova, an option of the
    unpaired designs).
    """
    _check_design(design)
    return 2.0 * float(v_e) if design in PAIRED else float(v_e)


# -- checks --------------------------------------------------------------------------------
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


# -- noncentral t and F ---------------------------------------------------------------------
def _chi_mixture(tc, df, ncp):
    """P(|Z + ncp| >= tc X / sqrt(df)), X ~ chi(df): the t mixture of the module docstring."""
    import warnings

    with needs(__name__):
        from scipy import integrate, special, stats

    rd = math.sqrt(df)

    def f(x):               # the acceptance probability P(|Z + ncp| < tc s): power is 1 minus its mean
        s = x / rd
        return stats.chi.pdf(x, df) * (special.ndtr(tc * s - ncp) - special.ndtr(-tc * s - ncp))

    lo, hi = float(stats.chi.ppf(_TAIL, df)), float(stats.chi.isf(_TAIL, df))
    # splits: the chi density's peak and, where the integrand steps from 0 to 1 (tc s = ncp), that
    # step's centre and +-10 of its widths, so quad cannot step over it
    x0 = rd * ncp / tc if tc > 0 else hi
    cuts = [math.sqrt(max(df - 1, 0.0)), x0 - 10 * rd / max(tc, 1e-300), x0, x0 + 10 * rd / max(tc, 1e-300)]
    pts = sorted({lo, hi, *(c for c in cuts if lo < c < hi)})
    with warnings.catch_warnings():         # roundoff notices near 1e-15: the result is clipped below
        warnings.simplefilter("ignore")
        val = sum(integrate.quad(f, a, b, epsabs=1e-16, epsrel=1e-12, limit=200)[0] for a, b in itertools.pairwise(pts))
    return min(1.0, max(0.0, 1.0 - val))


def _poisson_beta(y, a2, b1, mu):
    """sum_k Pois(k; mu) I_y(a2, b1 + k) over k in mu +- (20 sqrt(mu) + 30)."""
    with needs(__name__):
        from scipy import special

    half = 20 * math.sqrt(mu) + 30
    k = np.arange(max(0.0, math.floor(mu - half)), math.ceil(mu + half) + 1)
    w = np.exp(special.xlogy(k, mu) - mu - special.gammaln(k + 1))
    w /= w.sum()            # the mass outside is < 1e-30: normalising removes the weights' rounding
    return min(1.0, max(0.0, float(np.sum(w * special.betainc(a2, b1 + k, y)))))


def nct_two_sided_sf(tc: float, df: float, ncp: float) -> float:
    r"""P(|T'| >= tc) for T' noncentral t(df, ncp), tc >= 0.

    :math:`T'^2` is noncentral F(1, df, ncp^2), so this is :func:`ncf_sf` (tc^2, 1, df, ncp^2); for
    ncp^2/2 > 2.5e7 the chi mixture of the module docstring. Finite for every df >= 1 and ncp
    (SciPy's ``nct.sf + nct.cdf`` is NaN at df = 249, ncp = 10.4, tc = 1.97).
    """
    tc, df, ncp = float(tc), float(df), abs(float(ncp))
    if not (df >= 1 and tc >= 0 and np.isfinite(ncp) and np.isfinite(tc)):
        raise ValueError(f"noncentral t needs df >= 1, tc >= 0 and a finite ncp; got {df}, {tc}, {ncp}")
    if ncp * ncp / 2 > _MAX_POISSON_MEAN:
        return _chi_mixture(tc, df, ncp)
    return _poisson_beta(df / (df + tc * tc), df / 2, 0.5, ncp * ncp / 2)


def ncf_sf(fc: float, d1: float, d2: float, lam: float) -> float:
    r"""P(F' >= fc) for F' noncentral F(d1, d2, lam), by the Poisson-weighted incomplete beta series
    (module docstring); for lam/2 > 2.5e7 the chi-mixture lower bound, if it is 1 in double precision.
    """
    fc, d1, d2, lam = float(fc), float(d1), float(d2), float(lam)
    if not (d1 > 0 and d2 > 0 and fc >= 0 and lam >= 0 and np.isfinite(lam) and np.isfinite(fc)):
        raise ValueError(f"noncentral F needs d1, d2 > 0, fc >= 0, lam >= 0; got {d1}, {d2}, {fc}, {lam}")
    if lam / 2 > _MAX_POISSON_MEAN:
        low = _chi_mixture(math.sqrt(d1 * fc), d2, math.sqrt(lam))
        if low >= 1 - 2 ** -53:
            return 1.0
        raise ValueError(f"the noncentral F power at noncentrality {lam:g} with critical value {fc:g} cannot be "
                         "computed exactly here; use a smaller minimum difference or fewer topics")
    return _poisson_beta(d2 / (d2 + d1 * fc), d2 / 2, d1 / 2, lam / 2)


# -- the designs ------------------------------------------------------------------------------
def _df(design, n, m=None):
    if design in ("paired-t", "ci"):
        return n - 1
    if design in ("unpaired-t", "unpaired-ci"):
        return 2 * (n - 1)
    return m * (n - 1)


def _power1(design, n, a, d, v, m):
    """Exact power with n topics (a float n >= 2)."""
    with needs(__name__):
        from scipy import stats

    phi = _df(design, n, m)
    if design == "anova":
        fc = float(stats.f.isf(a, m - 1, phi))
        return ncf_sf(fc, m - 1, phi, n * d * d / (2 * v))
    tc = float(stats.t.isf(a / 2, phi))
    ncp = math.sqrt(n) * d / math.sqrt(v) if design == "paired-t" else d / math.sqrt(2 * v / n)
    return nct_two_sided_sf(tc, phi, ncp)


def _ci_width(design, n, a, v):
    """Expected CI width with n topics (array), ci or unpaired-ci."""
    with needs(__name__):
        from scipy import stats
        from scipy.special import gammaln

    n = np.asarray(n, dtype=np.float64)
    phi = _df(design, n)
    c = np.sqrt(2 / phi) * np.exp(gammaln((phi + 1) / 2) - gammaln(phi / 2))
    scale = np.sqrt(v / n) if design == "ci" else np.sqrt(2 * v / n)
    return 2 * stats.t.isf(a / 2, phi) * c * scale


def power(design: str, n, *, alpha: float = 0.05, min_diff: float, variance: float, systems: int | None = None):
    """Exact power of the design with n topics (scalar or array of n >= 2); see the module docstring.

    For the CI designs the "power" is 1 if the expected CI width is <= min_diff, else 0.
    Always finite; arrays come back with n's shape.
    """
    _check_design(design)
    a = _check_prob(alpha, "alpha")
    d = _check_pos(min_diff, "min_diff")
    v = _check_pos(variance, "variance")
    m = _check_systems(design, systems)
    n = np.asarray(n, dtype=np.float64)
    if n.size and (np.any(~np.isfinite(n)) or np.any(n < 2)):
        raise ValueError(f"n must be >= 2 topics; got {np.nanmin(n) if n.size else n!r:g}")
    if design in ("ci", "unpaired-ci"):
        return (_ci_width(design, n, a, v) <= d).astype(np.float64)
    out = np.empty(n.shape)
    flat = out.reshape(-1)
    for i, ni in enumerate(n.reshape(-1)):
        flat[i] = _power1(design, float(ni), a, d, v, m)
    return out if out.ndim else out[()]


def _approx_n(design, a, b, d, v):
    with needs(__name__):
        from scipy.stats import norm

    za, zb = float(norm.isf(a / 2)), float(norm.isf(b))
    if design == "paired-t":
        return int(math.ceil(((za + zb) / (d / math.sqrt(v))) ** 2 + za * za / 2))
    if design == "unpaired-t":
        return int(math.ceil(2 * ((za + zb) / (d / math.sqrt(v))) ** 2 + za * za / 4))
    if design == "ci":
        return int(math.ceil(4 * za * za * v / (d * d)))
    if design == "unpaired-ci":
        return int(math.ceil(8 * za * za * v / (d * d)))
    return None


def topic_set_size(design: str, *, alpha: float = 0.05, beta: float = 0.2, min_diff: float, variance: float,
                   systems: int | None = None, max_topics: int = MAX_TOPICS) -> dict:
    """Smallest number of topics n >= 2 meeting the design (module docstring), by exact power.

    ``variance`` is the variance the design's model takes (sigma_t^2 of a difference for paired-t and ci,
    sigma^2 of a score for anova and the unpaired designs), given or estimated from scores by
    :func:`design_variance` (either estimator; :func:`estimator_sizes` gives the size under both). For the
    unpaired designs n is the number of topics *per system*.

    Returns a dict: ``test, alpha, beta, min_diff, variance, systems, n_topics, power`` (the
    achieved power at n_topics; for the CI designs ``expected_width`` instead) and ``n_approx``
    (the normal approximation; None for anova). Raises ValueError if more than ``max_topics``
    topics would be needed.
    """
    _check_design(design)
    a = _check_prob(alpha, "alpha")
    b = _check_prob(beta, "beta")
    d = _check_pos(min_diff, "min_diff")
    v = _check_pos(variance, "variance")
    m = _check_systems(design, systems)
    ci = design in ("ci", "unpaired-ci")
    if ci:
        def ok(n):
            return bool(_ci_width(design, n, a, v) <= d)
    else:
        def ok(n):
            return _power1(design, float(n), a, d, v, m) >= 1 - b
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
    out = {"test": design, "alpha": a, "beta": None if ci else b, "min_diff": d, "variance": v,
           "systems": m, "n_topics": int(hi)}
    if ci:
        out["expected_width"] = float(_ci_width(design, hi, a, v))
    else:
        out["power"] = float(_power1(design, float(hi), a, d, v, m))
    out["n_approx"] = _approx_n(design, a, b, d, v)
    return out


def min_detectable_difference(design: str, n: int, *, alpha: float = 0.05, beta: float = 0.2, variance: float,
                              systems: int | None = None) -> float:
    """The inverse: the smallest difference (t designs) or range (anova) that n topics detect with
    power 1 - beta; for the CI designs the expected CI width with n topics. Exact for any n >= 2."""
    with needs(__name__):
        from scipy import optimize

    _check_design(design)
    a = _check_prob(alpha, "alpha")
    b = _check_prob(beta, "beta")
    v = _check_pos(variance, "variance")
    m = _check_systems(design, systems)
    if isinstance(n, bool) or int(n) != n or not 2 <= n <= MAX_TOPICS:
        raise ValueError(f"n must be a whole number in 2..{MAX_TOPICS}; got {n!r}")
    if design in ("ci", "unpaired-ci"):
        return float(_ci_width(design, int(n), a, v))
    if 1 - b <= a:
        raise ValueError(f"power 1 - beta = {1 - b:g} is not above alpha = {a:g}: every difference, however "
                         "small, already has that power")

    def gap(dd):
        return _power1(design, float(n), a, dd, v, m) - (1 - b)

    hi = math.sqrt(v)
    while gap(hi) < 0:
        hi *= 2
    return float(optimize.brentq(gap, 1e-12 * math.sqrt(v), hi, xtol=1e-14, rtol=1e-12))


def power_curve(design: str, ns, *, alpha: float = 0.05, min_diff: float, variance: float,
                systems: int | None = None) -> pd.DataFrame:
    """Tidy ``n_topics, power`` (for the CI designs: ``expected_width`` too) for the power curve."""
    ns = np.asarray(ns, dtype=np.int64)
    df = pd.DataFrame({"n_topics": ns, "power": power(design, ns, alpha=alpha, min_diff=min_diff,
                                                        variance=variance, systems=systems)})
    if design in ("ci", "unpaired-ci"):
        df["expected_width"] = _ci_width(design, ns, float(alpha), float(variance))
    return df
