"""Topic sampling for the swap and stability methods (004 Sec. 2-3, Fig. 1; 003 Fig. 4).

Three ways to draw the pair of topic samples (Q_b, Q'_b) of trial b:

``disjoint``     Voorhees/Buckley's original: two disjoint subsets of size
                 c <= |Q|/2, drawn without replacement (default c = |Q| // 2).
``replacement``  Soboroff's / 003's: two independent samples *with*
                 replacement of size c <= |Q| (default c = |Q|, as 003 uses).
``independent``  two subsets without replacement, drawn independently, so
                 they may overlap (c <= |Q|; default c = |Q| // 2).
"""
from __future__ import annotations

import numpy as np

from ._common import check_positive_int

__all__ = ["sample_topics", "SAMPLINGS", "default_subset_size"]

SAMPLINGS = ("disjoint", "replacement", "independent")


def default_subset_size(n_topics: int, sampling: str) -> int:
    """c when none is given: |Q| for ``replacement`` (003), |Q| // 2 otherwise (004)."""
    return n_topics if sampling == "replacement" else n_topics // 2


def _subsets(rng: np.random.Generator, B: int, n: int, c: int, k: int) -> list[np.ndarray]:
    """k consecutive size-c blocks of one random permutation per trial."""
    perm = np.argsort(rng.random((B, n)), axis=1, kind="stable")
    return [perm[:, i * c:(i + 1) * c] for i in range(k)]


def sample_topics(n_topics: int, *, sampling: str = "replacement", subset_size: int | None = None,
                  B: int = 1000, seed: int | np.random.Generator | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draw B pairs of topic samples; topic *indices* 0..n_topics-1.

    Parameters
    ----------
    n_topics : |Q|
    sampling : "disjoint" | "replacement" | "independent" (see the module docstring)
    subset_size : c; None picks :func:`default_subset_size`
    B : number of trials
    seed : int or numpy Generator; the same seed gives the same samples

    Returns
    -------
    (Q, Q2) : two int arrays of shape (B, c); row b holds Q_b and Q'_b.

    >>> Q, Q2 = sample_topics(10, sampling="disjoint", subset_size=5, B=3, seed=1)
    >>> Q.shape, bool(all(set(a).isdisjoint(b) for a, b in zip(Q, Q2)))
    ((3, 5), True)
    """
    n = check_positive_int(n_topics, "n_topics")
    B = check_positive_int(B, "B")
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}; got {sampling!r}")
    c = default_subset_size(n, sampling) if subset_size is None else subset_size
    c = check_positive_int(c, "subset_size")
    limit = n // 2 if sampling == "disjoint" else n
    if c > limit:
        raise ValueError(f"subset_size must be <= {limit} for {sampling} sampling of {n} topics "
                         f"({'|Q|/2' if sampling == 'disjoint' else '|Q|'}); got {c}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if sampling == "replacement":
        return rng.integers(0, n, size=(B, c)), rng.integers(0, n, size=(B, c))
    if sampling == "disjoint":
        Q, Q2 = _subsets(rng, B, n, c, 2)
        return Q.copy(), Q2.copy()
    (Q,) = _subsets(rng, B, n, c, 1)
    (Q2,) = _subsets(rng, B, n, c, 1)
    return Q.copy(), Q2.copy()
