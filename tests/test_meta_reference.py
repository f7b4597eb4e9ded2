"""Plain-loop references, written straight from the papers' pseudo-code, and checks of them.

These are deliberately slow and literal (one Python loop per line of the
figure) so that the vectorised evalcore.meta can be compared with them on
random data given the same topic samples. benchmarks/bench_meta.py times
them too. Conventions shared with evalcore.meta and documented there:
BIN(d) = floor(|d|/w + 1e-9) capped at the last bin; zero-spread bootstrap
samples have |t| = inf (non-zero mean) or 0 (zero mean); identical runs get
ASL = 1. Comparisons of |t| use exact >= here (evalcore uses a 1e-9 relative
tolerance; on continuous random data no value is that close to a tie).
"""
from __future__ import annotations

import math

import numpy as np


def ref_bin(d, width=0.01, n_bins=21):
    return min(int(math.floor(abs(d) / width + 1e-9)), n_bins - 1)


def ref_swap(M, Q, Q2, *, width=0.01, n_bins=21, rule="003"):
    """003 Fig. 4 / 004 Fig. 1 for one metric; M (n_runs, n_topics).

    Returns (count, swap_count, max_performance): max_performance is the
    largest mean of any run over any of the 2B topic samples (003 Table 3's
    "max.", 004 Tables 1-4 column (ii))."""
    n_runs = M.shape[0]
    count = [0] * n_bins
    swap_count = [0] * n_bins
    max_perf = max(sum(M[x, q] for q in S[b]) / len(S[b])
                   for x in range(n_runs) for S in (Q, Q2) for b in range(len(Q)))
    for x in range(n_runs):
        for y in range(x + 1, n_runs):
            for b in range(len(Q)):
                D = sum(M[x, q] - M[y, q] for q in Q[b]) / len(Q[b])
                D2 = sum(M[x, q] - M[y, q] for q in Q2[b]) / len(Q2[b])
                count[ref_bin(D, width, n_bins)] += 1
                if rule == "003":
                    swapped = not (D * D2 > 0)
                else:
                    swapped = (D * D2 < 0) or (D == 0 and D2 != 0) or (D != 0 and D2 == 0)
                if swapped:
                    swap_count[ref_bin(D, width, n_bins)] += 1
    return np.array(count), np.array(swap_count), max_perf


def _t(v):
    n = len(v)
    mean = sum(v) / n
    sd = math.sqrt(sum((a - mean) ** 2 for a in v) / (n - 1))
    scale = max(abs(a) for a in v)
    if sd <= 1e-12 * scale or sd == 0:
        return mean, (0.0 if mean == 0 else math.copysign(math.inf, mean))
    return mean, mean / (sd / math.sqrt(n))


def ref_bootstrap_pair(x, y, samples, alpha=0.05, rtol=0.0):
    """003 Fig. 5 + 6 + the per-pair part of Fig. 7. Returns (ASL, |mean(w*b')| at the B*alpha-th largest |t|).

    ``rtol``: |t*| counts as reaching |t(z)| when >= |t(z)| (1 - rtol) (evalcore's documented 1e-9 tie
    tolerance; 0 = the paper's exact >=).
    """
    n = len(x)
    z = [x[i] - y[i] for i in range(n)]
    zbar, tz = _t(z)
    w = [zi - zbar for zi in z]
    if math.isinf(tz):              # constant non-zero difference: w = 0 exactly, every t* = 0
        w = [0.0] * n
    ts, means = [], []
    count = 0
    for Qb in samples:
        wb = [w[q] for q in Qb]
        mb = sum(wb) / len(wb)
        var = sum(a * a for a in wb) - sum(wb) ** 2 / len(wb)
        if var > 0:
            tb = mb / (math.sqrt(var / (len(wb) - 1)) / math.sqrt(len(wb)))
        else:
            tb = 0.0 if sum(wb) == 0 else math.inf
        ts.append(abs(tb))
        means.append(abs(mb))
        if abs(tb) >= abs(tz) * (1 - rtol):
            count += 1
    asl = count / len(samples)
    if all(v == 0 for v in z):
        asl = 1.0
    k = int(round(len(samples) * alpha))
    order = sorted(range(len(samples)), key=lambda b: -ts[b])   # stable: lowest b first among ties
    return asl, (means[order[k - 1]] if k >= 1 else math.nan)


def ref_stability(M, samples, f):
    """Buckley/Voorhees stability for one metric and fuzziness f: (error_rate, prop_ties, wins, losses, ties).

    A trial is a tie when |M(X) - M(Y)| <= f max(M(X), M(Y)), else a win (M(X) > M(Y)) or a loss (<).
    With negative scores (never in 002, possible in a score CSV) a trial with equal means and a negative
    max is neither, as evalcore.meta.stability documents.
    """
    n_runs = M.shape[0]
    W, L, T = [], [], []
    for x in range(n_runs):
        for y in range(x + 1, n_runs):
            w = l_ = t = 0
            for Qb in samples:
                mx = sum(M[x, q] for q in Qb) / len(Qb)
                my = sum(M[y, q] for q in Qb) / len(Qb)
                if abs(mx - my) <= f * max(mx, my):
                    t += 1
                elif mx > my:
                    w += 1
                elif mx < my:
                    l_ += 1
                # else: equal means that are not a tie (only when max(mx, my) < 0): neither
            W.append(w), L.append(l_), T.append(t)
    total = sum(W) + sum(L) + sum(T)
    return sum(min(a, b) for a, b in zip(W, L, strict=True)) / total, sum(T) / total, W, L, T


def ref_tukey(M, perms, alpha=0.05):
    """Randomised Tukey HSD with given permutations perms[b, :, t]; returns p-values of pairs i < j."""
    n_runs, n_topics = M.shape
    ranges = []
    for p in perms:
        means = [sum(M[p[r, t], t] for t in range(n_topics)) / n_topics for r in range(n_runs)]
        ranges.append(max(means) - min(means))
    obs = [sum(M[r]) / n_topics for r in range(n_runs)]
    out = []
    for x in range(n_runs):
        for y in range(x + 1, n_runs):
            d = abs(obs[x] - obs[y])
            out.append(sum(1 for r in ranges if r >= d * (1 - 1e-9)) / len(perms))
    return out


# -- the references on the worked examples (so they can fail too) ---------------
def test_ref_bootstrap_hand_example():
    # z = (0.3, 0.1, 0.2): t(z) = 2*sqrt(3); w = (0.1, -0.1, 0)
    x, y = [0.8, 0.6, 0.7], [0.5, 0.5, 0.5]
    samples = [(0, 0, 0), (0, 1, 2), (0, 0, 2), (2, 2, 1)]   # |t*| = inf, 0, 2, 1
    asl, diff = ref_bootstrap_pair(x, y, samples, alpha=0.5)
    assert asl == 0.25
    assert abs(diff - 0.2 / 3) < 1e-12      # Fig. 7: the 2nd largest |t| is 2.0 (sample 3), mean 0.0667


def test_ref_swap_hand_example():
    M = np.array([[0.50, 0.25, 0.75, 0.00], [0.25, 0.50, 0.50, 0.25]])
    Q, Q2 = [(0, 2), (0, 1), (0, 0)], [(1, 3), (2, 3), (2, 0)]
    count, swaps, mx = ref_swap(M, Q, Q2)
    assert count[0] == 1 and count[20] == 2 and count.sum() == 3
    assert swaps[0] == 1 and swaps[20] == 1 and mx == 0.625          # run 0 on topics (0, 2)
    _, swaps004, _ = ref_swap(M, Q, Q2, rule="004")
    assert swaps004[0] == 0 and swaps004[20] == 1
