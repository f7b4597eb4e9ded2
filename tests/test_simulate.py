"""The built-in simulation's documented properties (evalcore.simulate.simulated_collection's docstring).

Its model follows what Sakai 2007 (003) Sec. 5.1 says of the NTCIR CLIR data: three levels with 003 Table 1's
shares, 30 runs of differing quality that differ in where they rank highly relevant documents, topics of
differing difficulty. The claims checked on the default data: the level shares, RR's ties where P+-measure
separates runs, 003 Table 2's finding that every pair of its metrics correlates significantly (tau > 0.34),
and 003 Tables 3-4's order P+ > O > NWRR > RR (and AveP, Q-measure above every one-document metric) in the
Monte Carlo repetitions of `evalcore swap/bootstrap --simulated --B 1000 --repeats 5`, which follows from the
model's assumption (and fails without it, also checked).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalcore
from evalcore import registry
from evalcore.meta import CLAIM_003, correlation_matrix, order_claim_verdict, repeat

#: 003 Table 1, NTCIR-5 Chinese: relevant documents per topic at S, A, B
TABLE1 = {"S": 7.0, "A": 30.7, "B": 23.3}
ONE_DOC = ["P+-measure", "P-measure", "O-measure", "NWRR", "RR"]
#: The metrics of 003 Table 2 (its columns (a)-(g))
TABLE2 = ["RR", "NWRR", "O-measure", "P-measure", "P+-measure", "AP", "Q-measure"]


@pytest.fixture(scope="module")
def sim():
    return evalcore.simulated_collection()


@pytest.fixture(scope="module")
def scores(sim):
    return {k: registry.score_matrix(sim, k) for k in TABLE2}


def test_level_shares_follow_003_table_1():
    # 400 topics: the shares of a large sample (the default 50 topics are one draw around them)
    c = evalcore.simulated_collection(n_topics=400, n_runs=2, depth=10)
    got = c.level_counts[:, 1:].sum(axis=0) / c.level_counts[:, 1:].sum()
    want = np.array([TABLE1["B"], TABLE1["A"], TABLE1["S"]]) / sum(TABLE1.values())    # 38 %, 50 %, 11 %
    np.testing.assert_allclose(got, want, atol=0.03)


def test_default_collection_has_003s_shape(sim):
    assert (sim.n_runs, sim.n_topics, sim.level_names) == (30, 50, ("B", "A", "S"))
    got = sim.level_counts[:, 1:].sum(axis=0) / sim.level_counts[:, 1:].sum()
    np.testing.assert_allclose(got, [0.38, 0.50, 0.11], atol=0.05)
    assert (sim.level_counts[:, 1:].sum(axis=1) >= 1).all()          # a relevant document on every topic


def test_rr_ties_where_p_plus_separates(scores):
    rr, pp = scores["RR"], scores["P+-measure"]
    assert 0.6 < (rr == 1.0).mean() < 0.9          # top runs: a relevant document at rank 1 on most topics
    i, j = np.triu_indices(rr.shape[0], 1)
    tie = rr[i] == rr[j]                            # per (run pair, topic)
    assert tie.mean() > 0.5                          # RR ties on most pair-topic comparisons ...
    assert (tie & ~np.isclose(pp[i], pp[j])).sum() / tie.sum() > 0.75    # ... and P+ separates most of them


def test_every_table_2_pair_correlates_significantly(scores, sim):
    # 003 Sec. 5.2: "All the correlation values exceed 0.34, and therefore are statistically significant"
    # (30 runs, alpha = 0.01, Eq. 9); `evalcore kendall --simulated` prints this matrix
    means = pd.DataFrame({k: scores[k].mean(axis=1) for k in TABLE2}, index=list(sim.run_ids))
    res = correlation_matrix(means, alpha=0.01)
    pairs = res.tidy
    assert len(pairs) == 21
    assert (pairs["tau"] > 0.34).all(), pairs.sort_values("tau").head(3)
    assert pairs["significant"].all()
    # ... and 003's pattern: the graded one-document metrics agree most with one another, less with RR and
    # with AveP / Q-measure (003 Table 2 on all four data sets, except NTCIR-3 Japanese's RR row)
    tau = res.tau
    graded = ["NWRR", "O-measure", "P-measure", "P+-measure"]
    within = min(tau.loc[a, b] for i, a in enumerate(graded) for b in graded[i + 1:])
    assert within > max(tau.loc[g, o] for g in graded for o in ("RR", "AP", "Q-measure"))


@pytest.mark.parametrize("method, figure, where", [("swap", "pct_comparisons", {"confidence": 0.95}),
                                                   ("bootstrap", "pct_significant", {"alpha": 0.05})])
def test_003_order_holds_in_most_repetitions(scores, sim, method, figure, where):
    kw = {"rule": "003"} if method == "swap" else {"run_ids": list(sim.run_ids), "alpha": 0.05}
    r = repeat(method, scores, repeats=5, seed=0, B=1000, **kw)
    share = r.order_share(["P+-measure", "O-measure", "NWRR", "RR"], figure, **where)["share"]   # the CLI's --claim
    assert share >= 0.8
    d = r.per_repeat[np.isclose(r.per_repeat[list(where)[0]], list(where.values())[0])]
    wide = d.pivot_table(index="repeat", columns="metric", values=figure)
    assert order_claim_verdict(wide, CLAIM_003)["status"] in ("holds", "mostly")       # strictly, P included
    # 003 Tables 3-4: "even P+-measure and P-measure are not as discriminative as Q-measure and AveP"
    recall = ["AP", "Q-measure"]
    beats = wide[recall].min(axis=1) > wide[ONE_DOC].max(axis=1)
    assert beats.mean() > 0.5


def test_without_the_models_assumption_the_order_fails():
    # runs that differ in finding any relevant document (not in where they rank S ones): RR beats O and NWRR
    c = evalcore.simulated_collection(quality_sd=1.2, emphasis_sd=0.0)
    sc = {k: registry.score_matrix(c, k) for k in ("O-measure", "NWRR", "RR")}
    b = repeat("bootstrap", sc, repeats=3, seed=0, B=300, run_ids=list(c.run_ids), alpha=0.05)
    t = b.table("pct_significant", alpha=0.05)["mean"]
    assert t["RR"] > t["O-measure"] and t["RR"] > t["NWRR"]


@pytest.mark.parametrize("kw", [{"quality_sd": -1.0}, {"emphasis_sd": float("nan")}, {"quality_sd": 11}])
def test_model_parameters_are_checked(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        evalcore.simulated_collection(n_topics=2, n_runs=2, depth=5, **kw)
