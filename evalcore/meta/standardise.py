r"""Score standardisation (Webber, Moffat & Zobel, SIGIR 2008; Sakai 2016 Sec. 7).

Per topic t, with the mean :math:`\mu_t` and the standard deviation
:math:`s_t` of the scores of the *standardising runs* on t (default: every
loaded run):

``z``    :math:`z_{it} = (x_{it} - \mu_t) / s_t`  (Webber et al. 2008, Eq. 1)
``cdf``  :math:`\Phi(z_{it})`, the standard normal CDF of z: the "std-CDF" scores of
         Webber et al. 2008 Sec. 3, in (0, 1)
``ab``   :math:`A z_{it} + B`, the linear "std-AB" of Sakai 2016 Sec. 7 (A = 0.15, B = 0.5
         by default, which puts about 99.9 % of z in [-3.33, 3.33] inside [0, 1])

Choices (documented, tested): s_t uses n - 1 (the sample standard deviation;
``ddof=0`` gives the population one). A topic on which all standardising runs
score the same (s_t = 0) carries no information: z = 0 for every run there
(cdf 0.5, ab B). NaN cells stay NaN and are left out of mu_t and s_t; a topic
with fewer than ddof + 1 standardising scores is treated as s_t = 0.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._extras import needs

__all__ = ["standardise", "standardise_scores", "STANDARDISATIONS"]

STANDARDISATIONS = ("none", "z", "cdf", "ab")


def standardise(matrix, method: str = "z", *, A: float = 0.15, B: float = 0.5, reference=None,
                ddof: int = 1) -> np.ndarray:
    """Standardise one (n_runs, n_topics) matrix per topic (module docstring).

    reference : indices (or a boolean mask) of the standardising runs; default all runs

    >>> x = np.array([[0.2, 0.5], [0.4, 0.5], [0.6, 0.5]])
    >>> standardise(x, "z").round(12).tolist()
    [[-1.0, 0.0], [-0.0, 0.0], [1.0, 0.0]]
    >>> standardise(x, "ab").round(2).tolist()
    [[0.35, 0.5], [0.5, 0.5], [0.65, 0.5]]
    """
    if method not in STANDARDISATIONS:
        raise ValueError(f"standardisation must be one of {', '.join(STANDARDISATIONS)}; got {method!r}")
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"matrix must be 2-D (n_runs, n_topics); got shape {x.shape}")
    if method == "none":
        return x.copy()
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1; got {ddof!r}")
    for name, v in (("A", A), ("B", B)):
        if not np.isfinite(float(v)):
            raise ValueError(f"{name} must be a finite number; got {v!r}")
    if method == "ab" and float(A) <= 0:
        raise ValueError(f"A must be > 0 (it scales z); got {A!r}")
    ref = x if reference is None else x[_ref_index(reference, x.shape[0])]
    valid = ~np.isnan(ref)
    cnt = valid.sum(axis=0)
    r0 = np.where(valid, ref, 0.0)
    mu = r0.sum(axis=0) / np.maximum(cnt, 1)
    dev = np.where(valid, ref - mu, 0.0)
    var = (dev * dev).sum(axis=0) / np.maximum(cnt - ddof, 1)
    sd = np.sqrt(var)
    scale = np.abs(r0).max(axis=0) if r0.size else np.zeros(x.shape[1])
    flat = (cnt <= ddof) | (sd <= 1e-12 * np.maximum(scale, 1e-300))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(flat, 0.0, (x - mu) / np.where(flat, 1.0, sd))
    z = np.where(np.isnan(x), np.nan, z)
    if method == "z":
        return z
    if method == "ab":
        return float(A) * z + float(B)
    with needs(__name__):
        from scipy.special import ndtr

    return ndtr(z)


def _ref_index(reference, n_runs: int) -> np.ndarray:
    r = np.asarray(reference)
    if r.dtype == bool:
        if r.shape != (n_runs,):
            raise ValueError(f"reference mask must have one entry per run ({n_runs}); got shape {r.shape}")
        idx = np.flatnonzero(r)
    else:
        idx = r.astype(np.intp).ravel()
        if idx.size and (idx.min() < 0 or idx.max() >= n_runs):
            raise ValueError(f"reference run indices must lie in 0..{n_runs - 1}; got {idx.min()}..{idx.max()}")
    if idx.size < 2:
        raise ValueError(f"standardisation needs at least 2 standardising runs; got {idx.size}")
    return idx


def standardise_scores(scores: Mapping[str, np.ndarray], method: str | None = "z", *, A: float = 0.15,
                       B: float = 0.5, reference=None, ddof: int = 1) -> dict[str, np.ndarray]:
    """:func:`standardise` applied to every matrix of ``{metric: (n_runs, n_topics)}``; keys unchanged.

    ``method`` None or "none" returns the matrices as float64 copies.
    """
    if method is None:
        method = "none"
    return {k: standardise(v, method, A=A, B=B, reference=reference, ddof=ddof) for k, v in scores.items()}
