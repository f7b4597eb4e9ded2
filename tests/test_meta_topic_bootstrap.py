"""Topic bootstrap (evalcore.meta.topic_bootstrap): topic samples as documented, strict claims with ties,
spreads equal to numpy on the per-sample figures, and the report's Tables 7-8."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.meta import bootstrap_sensitivity, claim_shares, topic_bootstrap
from evalcore.meta.topic_bootstrap import step_relation


def _scores(seed=0, runs=5, topics=14):
    rng = np.random.default_rng(seed)
    base = rng.random((runs, 1)) * 0.3
    return {"A": np.clip(base + rng.normal(0, 0.15, (runs, topics)), 0, 1),
            "B": np.clip(base + rng.normal(0, 0.4, (runs, topics)), 0, 1)}


def test_topic_samples_are_the_documented_draws():
    S = _scores()
    tb = topic_bootstrap(S, "bootstrap", resamples=4, seed=3, B=60, alpha=0.05)
    for r in range(4):       # SeedSequence(seed, spawn_key=(1, r)): 64-bit word 0 draws topics, 32-bit word 2 seeds
        ss = np.random.SeedSequence(3, spawn_key=(1, r))
        draw, ms = ss.generate_state(1, np.uint64)[0], ss.generate_state(3, np.uint32)[2]
        idx = np.random.default_rng(int(draw)).integers(0, 14, size=14)
        ref = bootstrap_sensitivity({k: v[:, idx] for k, v in S.items()}, B=60, alpha=0.05, seed=int(ms)).summary
        got = tb.per_resample[tb.per_resample["resample"] == r]
        assert 0 <= got["seed"].iloc[0] <= 2**32 - 1 and got["seed"].iloc[0] == int(ms)
        assert got["pct_significant"].tolist() == ref["pct_significant"].tolist()


def test_spread_and_differences_equal_numpy_on_the_samples():
    S = _scores(1)
    tb = topic_bootstrap(S, "swap", resamples=12, seed=0, B=40, sampling="replacement", confidences=(0.95,))
    w = tb.per_resample.pivot_table(index="resample", columns="metric", values="pct_comparisons")
    sp = tb.spread("pct_comparisons", confidence=0.95)
    for m in ("A", "B"):
        v = w[m].dropna().to_numpy()
        assert sp.loc[m, "sd"] == pytest.approx(np.std(v, ddof=1), rel=1e-12)
        o = np.sort(v)                       # order statistics just outside the linear positions p (n - 1)
        assert sp.loc[m, "lo"] == o[int(np.floor(0.025 * (v.size - 1)))] and sp.loc[m, "n"] == v.size
        assert sp.loc[m, "hi"] == o[int(np.ceil(0.975 * (v.size - 1)))]
    d = tb.differences("pct_comparisons", confidence=0.95).iloc[0]
    diff = (w["A"] - w["B"]).dropna().to_numpy()
    assert d["mean"] == pytest.approx(diff.mean()) and d["sd"] == pytest.approx(np.std(diff, ddof=1))
    assert d["a_higher"] + d["tie"] + d["b_higher"] + d["undefined"] == pytest.approx(1.0)
    assert d["undefined"] == pytest.approx(np.mean(np.isnan(w["A"] - w["B"])))


def test_the_topic_spread_exceeds_the_seed_spread_when_topics_matter():
    # runs whose order flips from topic to topic: the seed spread is Monte Carlo noise, the topic spread is not
    S = _scores(2, runs=6, topics=20)
    tb = topic_bootstrap(S, "bootstrap", resamples=40, seed=0, B=200, alpha=0.05)
    seeds = [bootstrap_sensitivity(S, B=200, alpha=0.05, seed=s).summary.set_index("metric").loc["B", "pct_significant"]
             for s in range(5)]
    assert tb.spread("pct_significant", alpha=0.05).loc["B", "sd"] > 2 * np.std(seeds, ddof=1)


def test_claims_are_strict_and_ties_are_ties():
    # 003's "consistently more discriminative": P+ 7/10 = O 7/10 is a tie, not a hold
    w = pd.DataFrame({"P+": [70.0, 80.0, 60.0, 70.0], "O": [70.0, 70.0, 70.0, 60.0]})
    cs = claim_shares(w, [("P+", "O")])
    assert cs["steps"]["P+ > O"] == {"holds": 0.5, "tie": 0.25, "fails": 0.25} and cs["holds"] == 0.5
    assert step_relation([1.0, np.nan], [1.0, 0.0]).tolist() == [0, -1]
    # figures from equal counts computed in different orders still tie
    assert step_relation([100 * 7 / 10], [7 * 100 / 10]).tolist() == [0]


def test_bad_input():
    S = _scores()
    with pytest.raises(ValueError, match="method must be one of"):
        topic_bootstrap(S, "jackknife")
    with pytest.raises(ValueError, match="resamples"):
        topic_bootstrap(S, "bootstrap", resamples=0)
    with pytest.raises(ValueError, match="at least 2 topics"):
        topic_bootstrap({"A": np.ones((3, 1))}, "bootstrap")


def test_percentile_intervals_of_shares_are_achievable_shares():
    """5 runs = 10 pairs: % pairs significant is a multiple of 10 on every topic sample, and so is every end of
    the reported interval (numpy's linear percentile gives ends such as 54.8 that no 10 pairs can give)."""
    rng = np.random.default_rng(4)
    base = rng.random((5, 1)) * 0.3
    S = {"A": np.clip(base + rng.normal(0, 0.25, (5, 15)), 0, 1)}
    tb = topic_bootstrap(S, "bootstrap", resamples=30, seed=2, B=80, alpha=0.05)
    v = tb.wide("pct_significant", alpha=0.05)["A"].to_numpy()
    assert np.allclose(v / 10, np.round(v / 10))
    sp = tb.spread("pct_significant", alpha=0.05).loc["A"]
    for end in (sp["lo"], sp["hi"]):
        assert end / 10 == pytest.approx(round(end / 10), abs=1e-12) and end in set(v.tolist())
    assert sp["lo"] <= np.percentile(v, 2.5) and sp["hi"] >= np.percentile(v, 97.5)
    assert not np.allclose(np.percentile(v, [2.5, 97.5]) / 10, np.round(np.percentile(v, [2.5, 97.5]) / 10))
