"""Results that do not depend on the CPU: exact integer-weighted sums, checked against exact rational arithmetic.

Every expected value here comes from :class:`fractions.Fraction` sums (exact), rounded once to the nearest
double - a reference that no summation order or BLAS kernel can change. CI runs this file and the other
resampling tests again under other OpenBLAS kernels (``OPENBLAS_CORETYPE``), so an assertion that holds on
one kind of CPU only cannot land.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from evalcore._exact import fmat_imat, imat_fmat, part_bits
from evalcore.meta import bootstrap_samples, bootstrap_sensitivity
from evalcore.meta._common import round_sig, topic_counts


def exact_row_sum(a, c) -> float:
    """sum_j a_j c_j in exact arithmetic, rounded once to the nearest double."""
    return float(sum((Fraction(float(x)) * int(k) for x, k in zip(a, c, strict=True)), Fraction(0)))


@pytest.mark.parametrize("given_bits", [False, True])
def test_fmat_imat_is_the_correctly_rounded_exact_sum(given_bits):
    rng = np.random.default_rng(1)
    A = rng.random((12, 40)) - 0.4                       # values of one magnitude: the quantisation is lossless
    C = rng.integers(0, 4, size=(40, 30))
    # bits computed once by a caller making many products with one C (the bootstrap's chunks)
    R = fmat_imat(A, C, bits=part_bits(C)) if given_bits else fmat_imat(A, C)
    for i in range(12):
        for j in range(30):
            assert R[i, j] == exact_row_sum(A[i], C[:, j])


def test_fmat_imat_does_not_depend_on_the_rows_around_a_row():
    rng = np.random.default_rng(2)
    A = np.round(rng.random((17, 25)), 1) - np.round(rng.random((17, 25)), 1)
    C = topic_counts(bootstrap_samples(25, B=300, seed=0), 25).T
    full = fmat_imat(A, C)
    for rows in (slice(0, 1), slice(3, 4), slice(0, 2), slice(5, 17)):
        assert np.array_equal(fmat_imat(A[rows], C), full[rows])          # bitwise: integer sums are exact
    assert np.array_equal(fmat_imat(A[7], C), full[7])


def test_a_sum_on_a_rounding_boundary_rounds_the_same_way_everywhere():
    # 0.1 + 0.3 + 0.95: the exact sum of these doubles is just below 1.35, so Fig. 7's two significant
    # figures give 1.3; summed left to right in floating point it is 1.35 -> 1.4
    a = np.array([0.1, 0.3, 0.95])
    naive = 0.0
    for x in a:
        naive += x
    exact = exact_row_sum(a, [1] * 3)
    assert (round_sig(naive), round_sig(exact)) == (1.4, 1.3)   # the boundary: order decides the printed value
    got = float(fmat_imat(a[None, :], np.ones((3, 1)))[0, 0])
    assert got == exact and round_sig(got) == 1.3


def test_imat_fmat_gains_products():
    rng = np.random.default_rng(3)
    N = rng.integers(0, 50, size=(200, 4))
    g = np.array([0.1, 0.3, 2.7, 1e-3])
    R = imat_fmat(N, g)
    assert all(R[i] == exact_row_sum(g, N[i]) for i in range(200))
    G = np.stack([g, g[::-1]], axis=1)
    R2 = imat_fmat(N, G)
    assert np.array_equal(R2[:, 0], R)
    assert all(R2[i, 1] == exact_row_sum(g[::-1], N[i]) for i in range(200))


def test_non_finite_rows_propagate_and_integrality_is_checked():
    A = np.array([[0.5, np.nan], [0.25, 0.5]])
    R = fmat_imat(A, np.ones((2, 1)))
    assert math.isnan(R[0, 0]) and R[1, 0] == 0.75
    with pytest.raises(ValueError, match="integers"):
        fmat_imat(A, np.full((2, 1), 0.5))


def _ref_bootstrap_exact(M, samples, alpha):
    """003 Fig. 5-7 as a plain loop, every sum over a sample exact (Fractions) and rounded once."""
    n_runs, n = M.shape
    B = samples.shape[0]
    k = int(round(B * alpha))
    counts = topic_counts(samples, n).astype(int)
    asls, est = [], 0.0
    for x in range(n_runs):
        for y in range(x + 1, n_runs):
            z = M[x] - M[y]
            zbar = z.mean()
            sd = z.std(ddof=1)
            t = zbar / (sd / np.sqrt(n)) if sd > 1e-12 * np.abs(z).max() else (0.0 if zbar == 0 else np.inf)
            w = z - zbar if np.isfinite(t) else np.zeros(n)
            ts, means = [], []
            for b in range(B):
                s1 = exact_row_sum(w, counts[b])
                s2 = exact_row_sum(w * w, counts[b])
                mean_s = s1 / n
                var_s = (s2 - s1 * mean_s) / (n - 1)
                if var_s > 0:
                    ts.append(abs(mean_s) / np.sqrt(var_s / n))
                else:
                    ts.append(0.0 if s1 == 0 else np.inf)
                means.append(abs(s1 / n))
            ts = np.array(ts)
            asl = 1.0 if np.all(z == 0) else float(np.count_nonzero(ts >= abs(t) * (1 - 1e-9))) / B
            asls.append(asl)
            order = np.argsort(-ts, kind="stable")
            est = max(est, means[order[k - 1]])
    return asls, est


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_equals_the_exact_reference_bit_for_bit(monkeypatch, seed):
    # scores in steps of 0.1: many bootstrap samples tie |t(z)| exactly, and the Fig. 7 estimate is a
    # rounded value; with exact sums both agree with the exact reference on every CPU and chunking
    import evalcore.meta.bootstrap as bmod
    rng = np.random.default_rng(10 + seed)
    M = np.round(rng.random((5, 12)), 1)
    samples = bootstrap_samples(12, B=120, seed=seed)
    asls, est = _ref_bootstrap_exact(M, samples, 0.05)
    for chunk in (bmod.CHUNK_BYTES, 1):
        monkeypatch.setattr(bmod, "CHUNK_BYTES", chunk)
        r = bootstrap_sensitivity({"M": M}, samples=samples, alpha=0.05)
        assert r.pairs["asl"].tolist() == asls
        assert r.summary["estimated_diff_raw"].iloc[0] == est
        assert r.summary["estimated_diff"].iloc[0] == round_sig(est)
