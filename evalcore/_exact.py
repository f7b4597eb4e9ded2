r"""Products with integer matrices whose results do not depend on the CPU's BLAS kernel.

The resampling methods (bootstrap, swap, stability, randomisation) and the
graded metrics sum floats weighted by small integers: topic counts of a
bootstrap sample, signs of a randomisation, level counts above a rank. Done by
``A @ C`` the sum's order is the BLAS kernel's, and it differs between CPUs
(OpenBLAS's Haswell/Zen kernels against SkylakeX), between a one-row and a
many-row product, and between chunkings: the last bit of a sum moves, and a
value compared with a threshold or rounded for display can flip.

:func:`fmat_imat` makes every such product *exact up to one final rounding*:
each row of the float operand ``A`` is split into two integer parts of ``b``
bits on the row's own scale,

.. math::  A_{pj} \approx 2^{e_p - b} (H_{pj} + 2^{-b} L_{pj}),
           \quad |H_{pj}|, L_{pj} \le 2^b,

with ``b = 52 - ceil(log2(max_col sum_j |C_jb|))``, so that every partial
sum of ``H @ C`` and ``L @ C`` is an integer below 2^52 and BLAS computes it
exactly in any order, with or without FMA. The two exact integer sums are
combined with one rounding (``H' 2^b + L'``) and scaled by a power of two
(exact). The result is the correctly rounded sum of the quantised row, the
same bits on every CPU, kernel, chunking and engine. The quantisation keeps
2b bits below the row's largest magnitude (2b >= 68 for up to 200,000 topics,
92 for 50): a value more than 2^(2b - 53) times smaller than the row's largest
loses its low bits, deterministically. Rows with a non-finite value fall back
to the plain product (NaN or inf propagates as before).

Cost: one product with twice the rows of ``A``; the splitting is O(size of A).
"""
from __future__ import annotations

import math  # noqa: F401  (doctests)

import numpy as np

__all__ = ["check_integral", "fmat_imat", "imat_fmat", "part_bits"]


def part_bits(C: np.ndarray, axis: int = 0) -> int:
    """Bits b per integer part such that (2^b) * max sum_j |C_j.| <= 2^52 (sums along ``axis``).

    >>> part_bits(np.ones((50, 3)))
    46
    """
    C = np.asarray(C)
    s = float(np.abs(C).sum(axis=axis).max()) if C.size else 1.0
    s = max(s, 1.0)
    return 52 - int(np.ceil(np.log2(s)))


def check_integral(C: np.ndarray) -> None:
    if C.dtype.kind == "f" and C.size and not np.array_equal(C, np.rint(C)):
        raise ValueError("fmat_imat: the second operand must hold integers (counts or signs)")


def fmat_imat(A: np.ndarray, C: np.ndarray, *, bits: int | None = None) -> np.ndarray:
    """``A @ C`` for a float matrix A (p, n) and an integer-valued matrix C (n, m), the same bits on every CPU.

    Each result is the correctly rounded sum of A's row (quantised to 2b bits
    below the row's largest magnitude, see the module docstring) times C's
    column. C may be any integer or integer-valued float array with column sums
    of |C| below 2^40. ``bits``: ``part_bits(C)`` from a caller that makes many
    products with one C and has checked that C holds integers (the check and
    the bits are then not redone per product; the result is the same).

    >>> A = np.array([[0.1, 0.2, 0.3]]); C = np.array([[1.], [1.], [1.]])
    >>> float(fmat_imat(A, C)[0, 0]), math.fsum([0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3
    (0.6, 0.6, 0.6000000000000001)
    """
    A = np.asarray(A, dtype=np.float64)
    C = np.asarray(C)
    if bits is None:
        check_integral(C)
    Cf = C.astype(np.float64, copy=False)
    squeeze = A.ndim == 1
    A2 = A[None, :] if squeeze else A
    p = A2.shape[0]
    if p == 0 or Cf.shape[-1] == 0:
        out = np.zeros((p, Cf.shape[-1]))
        return out[0] if squeeze else out
    b = part_bits(Cf, axis=0) if bits is None else int(bits)
    if b < 12:
        raise ValueError("fmat_imat: column sums of |C| too large for an exact product")
    finite = np.isfinite(A2).all(axis=1)
    amax = np.abs(np.where(finite[:, None], A2, 0.0)).max(axis=1) if A2.shape[1] else np.zeros(p)
    e = np.frexp(amax)[1].astype(np.int64)            # |A_pj| < 2^e_p (e = 0 for a zero row)
    x = np.ldexp(np.where(finite[:, None], A2, 0.0), (b - e)[:, None])   # exact: |x| < 2^b
    H = np.floor(x)
    L = np.rint(np.ldexp(x - H, b))                    # x - H is exact, in [0, 1)
    S = np.vstack((H, L)) @ Cf                        # integer-valued partial sums < 2^52: exact in any order
    out = S[:p]
    out *= 2.0 ** b                                   # exact: a power of two times an integer < 2^52
    out += S[p:]                                      # the one rounding
    shift = e - 2 * b
    if shift.min() >= -1000:                          # a multiply by a normal power of two is exact, and a
        out *= np.ldexp(1.0, shift)[:, None]          # multiply is far cheaper than ldexp on the whole array
    else:
        out = np.ldexp(out, shift[:, None])
    if not finite.all():
        bad = ~finite
        out[bad] = A2[bad] @ Cf
    return out[0] if squeeze else out


def imat_fmat(N: np.ndarray, G: np.ndarray) -> np.ndarray:
    """``N @ G`` for an integer-valued matrix N (p, n) and a float vector (n,) or matrix (n, m).

    The transpose of :func:`fmat_imat`: the same exactness, per column of G.

    >>> imat_fmat(np.array([[1, 2], [0, 3]]), np.array([0.1, 0.2])).tolist()
    [0.5, 0.6000000000000001]
    """
    G = np.asarray(G, dtype=np.float64)
    N = np.asarray(N)
    if G.ndim == 1:
        return fmat_imat(G, N.T)
    return fmat_imat(G.T, N.T).T
