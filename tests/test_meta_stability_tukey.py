"""Stability (Buckley/Voorhees 2000, 002), randomised Tukey HSD, score CSV input and top-N runs."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_meta_reference import ref_stability, ref_tukey

from evalcore.meta import Cancelled, read_score_csv, stability, top_runs, tukey_hsd
from evalcore.meta.stability import stability_samples


def test_stability_hand_example():
    # run 0 beats run 1 on topics 0, 1; loses on 2; ties (equal) on 3
    M = np.array([[0.50, 0.50, 0.25, 0.50], [0.25, 0.25, 0.50, 0.50]])
    samples = np.array([[0, 1], [2, 3], [0, 2], [3, 3]])   # means 0.5/.25, .375/.5, .375/.375, .5/.5
    r = stability({"M": M}, samples=samples, fuzziness=(0.0, 0.5))
    p = r.pairs.set_index("fuzziness")
    assert (p.loc[0.0, "wins"], p.loc[0.0, "losses"], p.loc[0.0, "ties"]) == (1, 1, 2)
    assert (p.loc[0.5, "wins"], p.loc[0.5, "losses"], p.loc[0.5, "ties"]) == (0, 0, 4)   # .25 <= .5 * .5
    s = r.summary.set_index("fuzziness")
    assert s.loc[0.0, "error_rate"] == 0.25 and s.loc[0.0, "prop_ties"] == 0.5
    assert s.loc[0.5, "error_rate"] == 0.0 and s.loc[0.5, "prop_ties"] == 1.0


@pytest.mark.parametrize("replacement", [False, True])
def test_stability_equals_loop(replacement):
    rng = np.random.default_rng(3)
    M = rng.integers(0, 65, size=(6, 24)) / 64.0
    samples = stability_samples(24, subset_size=8, B=50, replacement=replacement, seed=1)
    r = stability({"M": M}, samples=samples, fuzziness=(0.0, 0.05, 0.2))
    for f in (0.0, 0.05, 0.2):
        err, ties, W, L, T = ref_stability(M, samples, f)
        row = r.summary[r.summary.fuzziness == f].iloc[0]
        assert row["error_rate"] == pytest.approx(err, abs=1e-15) and row["prop_ties"] == pytest.approx(ties)
        pr = r.pairs[r.pairs.fuzziness == f]
        assert pr["wins"].tolist() == W and pr["losses"].tolist() == L and pr["ties"].tolist() == T


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 7), st.integers(2, 20), st.booleans(), st.booleans())
def test_stability_equals_loop_property(seed, n_runs, n_topics, replacement, negative):
    # Dyadic scores and subsets of 2 or 4 topics, so means are exact in the loop and in evalcore and ties
    # between runs' means are frequent and exact; with ``negative`` some runs score below 0 (score CSVs
    # may hold any number), which takes the general path instead of the two-comparison one.
    rng = np.random.default_rng(seed)
    M = rng.integers(0, 9, size=(n_runs, n_topics)) / 8.0
    if negative:
        M -= rng.integers(0, 2, size=(n_runs, 1)) * rng.integers(1, 9, size=(n_runs, n_topics)) / 4.0
    c = 4 if n_topics >= 4 else 2
    samples = stability_samples(n_topics, subset_size=c, B=30, replacement=replacement, seed=seed)
    fz = (0.0, 0.05, 0.25)
    r = stability({"M": M}, samples=samples, fuzziness=fz)
    for f in fz:
        err, ties, W, L, T = ref_stability(M, samples, f)
        pr = r.pairs[r.pairs.fuzziness == f]
        assert pr["wins"].tolist() == W and pr["losses"].tolist() == L and pr["ties"].tolist() == T
        if not negative:   # with negative scores a trial can be neither; evalcore divides by pairs x B then
            row = r.summary[r.summary.fuzziness == f].iloc[0]
            assert row["error_rate"] == pytest.approx(err, abs=1e-15) and row["prop_ties"] == pytest.approx(ties)


def test_stability_more_fuzziness_more_ties_and_seed():
    rng = np.random.default_rng(0)
    M = np.clip(np.linspace(0.2, 0.4, 8)[:, None] + rng.normal(0, 0.2, (8, 40)), 0, 1)
    r = stability({"M": M}, B=200, seed=1)
    s = r.summary.sort_values("fuzziness")
    assert s["prop_ties"].is_monotonic_increasing and s["error_rate"].is_monotonic_decreasing
    assert r.summary.equals(stability({"M": M}, B=200, seed=1).summary)
    with pytest.raises(ValueError, match="fuzziness"):
        stability({"M": M}, fuzziness=(-0.1,))


def test_tukey_equals_loop_given_permutations():
    rng = np.random.default_rng(5)
    M = rng.random((5, 12))
    M[4] = M[1]
    perms = np.stack([np.stack([rng.permutation(5) for _ in range(12)], axis=1) for _ in range(300)])
    r = tukey_hsd({"M": M}, permutations=perms)
    assert r.pairs["p_value"].tolist() == ref_tukey(M, perms)
    p = r.pairs.set_index(["run_x", "run_y"])
    assert p.loc[("1", "4"), "p_value"] == 1.0


def test_tukey_hand_example():
    # two runs, one topic... two topics: the identity and the swap of each topic
    M = np.array([[1.0, 1.0], [0.0, 0.0]])
    ident = np.array([[[0, 0], [1, 1]]])                 # range 1.0 >= 1.0
    swap_one = np.array([[[1, 0], [0, 1]]])              # means 0.5, 0.5 -> range 0
    perms = np.concatenate([ident, swap_one, swap_one, swap_one])
    r = tukey_hsd({"M": M}, permutations=perms, alpha=0.3)
    assert r.pairs["p_value"].iloc[0] == 0.25 and bool(r.pairs["significant"].iloc[0])


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_tukey_identical_runs_never_significant(seed):
    rng = np.random.default_rng(seed)
    M = rng.random((4, 10))
    M[2] = M[0]
    r = tukey_hsd({"M": M}, B=100, seed=seed)
    p = r.pairs.set_index(["run_x", "run_y"])
    assert p.loc[("0", "2"), "p_value"] == 1.0 and not p.loc[("0", "2"), "significant"]


def test_tukey_seed_progress_cancel():
    M = {"a": np.random.default_rng(1).random((6, 15))}
    r1, r2 = tukey_hsd(M, B=400, seed=3), tukey_hsd(M, B=400, seed=3)
    assert r1.pairs.equals(r2.pairs)
    seen = []
    tukey_hsd(M, B=400, progress=seen.append)
    assert seen[-1] == 1.0 and max(np.diff(seen)) <= 0.051
    with pytest.raises(Cancelled):
        tukey_hsd(M, B=400, progress=lambda f: f >= 0.5)


def test_read_score_csv(tmp_path):
    p = tmp_path / "s.tsv"
    p.write_text("run\ttopic\tmetric\tvalue\nA\t1\tAP\t0.5\nA\t2\tAP\t0.25\nB\t1\tAP\t0.1\nB\t2\tAP\t0.0\n"
                 "A\tall\tAP\t0.375\n")
    runs, topics, s = read_score_csv(p)
    assert runs == ["A", "B"] and topics == ["1", "2"] and s["AP"].tolist() == [[0.5, 0.25], [0.1, 0.0]]
    q = tmp_path / "m.csv"
    q.write_text("run,topic,metric,value\nA,1,AP,0.5\nB,2,AP,0.1\n")
    with pytest.raises(ValueError, match="no value for run 'A', topic '2'"):
        read_score_csv(q)
    assert read_score_csv(q, fill=0.0)[2]["AP"].tolist() == [[0.5, 0.0], [0.0, 0.1]]
    bad = tmp_path / "b.csv"
    bad.write_text("run,topic,score\nA,1,0.5\n")
    with pytest.raises(ValueError, match="missing metric, value"):
        read_score_csv(bad)
    nan = tmp_path / "n.csv"
    nan.write_text("run,topic,metric,value\nA,1,AP,x\n")
    with pytest.raises(ValueError, match="value must be a number"):
        read_score_csv(nan)


def test_top_runs():
    assert top_runs(np.array([0.1, 0.3, 0.3, 0.2]), 2).tolist() == [1, 2]
    assert top_runs(np.array([0.1, 0.3]), 5).tolist() == [1, 0]
    with pytest.raises(ValueError, match="n must be"):
        top_runs(np.array([0.1]), 0)


@pytest.mark.parametrize("block", [1, 4, 40, 250])
@pytest.mark.parametrize("threads", [1, 3])
def test_tukey_draws_the_documented_permutations(block, threads):
    """With a seed, trial b permutes the runs of topic t by rng.permuted(arange(runs) per topic, axis=1)
    on the (trials, runs, topics) array of its stream: stream i holds trials 10 i .. 10 i + 9 and draws
    from default_rng(SeedSequence(seed).spawn(ceil(B / 10))[i]) (the module docstring), applied to each
    topic's sorted scores. The drawn path must give exactly the ranges of those permutations given
    explicitly, whatever the block size and the threads (the explicit path is checked against the
    plain loop above)."""
    rng0 = np.random.default_rng(3)
    S = {"a": rng0.random((7, 9)), "b": np.round(rng0.random((7, 9)), 1)}
    B = 133
    got = tukey_hsd(S, B=B, seed=11, block=block, threads=threads)
    children = np.random.SeedSequence(11).spawn(14)
    perms = np.concatenate([
        np.random.default_rng(children[i]).permuted(
            np.broadcast_to(np.arange(7)[:, None], (min(10, B - 10 * i), 7, 9)).copy(), axis=1)
        for i in range(14)])
    assert perms.shape == (B, 7, 9)
    ref = tukey_hsd({m: np.sort(v, axis=0) for m, v in S.items()}, permutations=perms)
    for m in S:
        assert np.array_equal(got.ranges[m], ref.ranges[m])


def test_tukey_many_pairs_equals_loop_given_permutations():
    # 45 runs: 990 pairs against 100 ranges, enough for count_below's lookup (>= 8 keys a range);
    # scores rounded to tenths, so observed differences tie with ranges and with each other
    rng = np.random.default_rng(11)
    M = np.round(rng.random((45, 8)), 1)
    M[7] = M[3]
    perms = np.stack([np.stack([rng.permutation(45) for _ in range(8)], axis=1) for _ in range(100)])
    r = tukey_hsd({"M": M}, permutations=perms)
    assert r.pairs["p_value"].tolist() == ref_tukey(M, perms)


def _keys_near(values: np.ndarray, rng, size: int) -> np.ndarray:
    """Keys equal to the values, one float step either side of them, between and beyond them."""
    pick = rng.choice(values, size)
    kind = rng.integers(0, 4, size)
    step = np.nextafter(pick, np.where(kind == 1, -np.inf, np.inf))
    spread = values[-1] - values[0] + 1.0
    far = values[0] - 0.5 + rng.random(size) * spread * 1.5
    return np.where(kind == 0, pick, np.where(kind == 3, far, step))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 120), st.sampled_from(["random", "tenths", "one", "clustered",
                                                                           "wide", "negative"]))
def test_count_below_equals_searchsorted(seed, n, kind):
    from evalcore.meta.tukey import count_below
    rng = np.random.default_rng(seed)
    values = {"random": rng.random(n), "tenths": np.round(rng.random(n), 1), "one": np.full(n, 0.3),
              "clustered": 0.1 + np.round(rng.random(n) * 5) * 0.2 + rng.random(n) * 1e-16,
              "wide": np.concatenate([rng.random(n) * 1e-300, [1e300]]),
              "negative": rng.random(n) - 2.0}[kind]
    values = np.sort(values)
    keys = _keys_near(values, rng, 16 * values.size + int(rng.integers(0, 50)))    # the lookup: >= 8 keys a value
    assert np.array_equal(count_below(values, keys), np.searchsorted(values, keys, side="left"))
    # into given arrays (tukey_hsd's: made while its workers run), whatever they held before
    out, work = np.full(keys.size, -7, np.intp), (np.full(keys.size, np.nan), np.full(keys.size, 10**9, np.intp))
    assert count_below(values, keys, out=out, work=work) is out
    assert np.array_equal(out, np.searchsorted(values, keys, side="left"))
    few = keys[: values.size]                                                      # the plain search
    assert np.array_equal(count_below(values, few), np.searchsorted(values, few, side="left"))
    keys[0] = np.nan
    assert np.array_equal(count_below(values, keys), np.searchsorted(values, keys, side="left"))


@pytest.mark.parametrize("values", [[-1e308, 0.0, 1e308], [0.0, 5e-324, 1e-323], [1.0, float(np.nextafter(1.0, 2.0))],
                                    [-np.inf, 0.0, 1.0], [0.0, 1.0, np.inf], [0.0, 1.0, np.nan],
                                    [-1e308, -1e307, 1e307]])
def test_count_below_extreme_spans(values):
    # spans beyond floats, subnormal spans, infinite or NaN values: the same counts as np.searchsorted, no warning
    from evalcore.meta.tukey import count_below
    v = np.sort(np.array(values))
    k = np.concatenate([v, np.nextafter(v, np.inf), np.nextafter(v, -np.inf), np.linspace(-1e307, 1e307, 20),
                        [0.0, 1e-320, 1.7e308, -1.7e308]])
    k = np.tile(k[np.isfinite(k)], 20)
    with np.errstate(all="raise"):
        got = count_below(v, k)
    assert np.array_equal(got, np.searchsorted(v, k, side="left"))
