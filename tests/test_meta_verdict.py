"""The "which gains" rule (evalcore.meta.gain_choice_verdict) shared by the report and the dashboard."""
from __future__ import annotations

import math

import pytest

from evalcore.meta import gain_choice_verdict


def test_one_pair_and_noise_are_ties():
    # 10 pairs: one pair is 10 points; a 10-point span is one pair, hence a tie, though the seeds agree exactly
    v = gain_choice_verdict([0.95, 1.0], [70.0, 60.0], [70.0, 60.0], [70.0, 60.0], 10)
    assert not v["matters"] and v["step"] == 10.0 and "one pair is 10.0 points" in v["text"]
    # 20 points with no Monte Carlo range: two pairs, beyond one pair and beyond 2 x 0
    assert gain_choice_verdict([0.95, 1.0], [80.0, 60.0], [80.0, 60.0], [80.0, 60.0], 10)["matters"]
    # 435 pairs (30 runs): a 3-point span against a 2-point Monte Carlo range is noise
    v = gain_choice_verdict([0.92, 0.99], [50.0, 53.0], [49.0, 52.0], [51.0, 54.0], 435)
    assert not v["matters"] and v["span"] == 3.0 and v["noise"] == 2.0
    assert "pairs, one pair is" not in v["text"]          # no few-pairs warning at 435 pairs


def test_a_ranking_change_matters_and_nan_is_left_out():
    v = gain_choice_verdict([0.85, math.nan, 1.0], [50.0, math.nan, 50.0], [49, math.nan, 49], [51, math.nan, 51],
                            45)
    assert v["matters"] and v["tau_min"] == 0.85 and "ranking changes" in v["text"]
    with pytest.raises(ValueError, match="n_pairs"):
        gain_choice_verdict([1.0], [1.0], [1.0], [1.0], 0)


# -- 003's order claim (evalcore.meta.order_claim_verdict) ------------------------------------------------
def _wide(rows):
    import pandas as pd
    return pd.DataFrame(rows, columns=["P+-measure", "P-measure", "O-measure", "NWRR", "RR"])


def test_order_claim_is_checked_strictly_in_every_repetition():
    from evalcore.meta import CLAIM_003, order_claim_verdict
    # 003 Table 4 (c), NTCIR-5 Chinese, as one repetition: P 28% < O 29%, so P(+) > O fails at P
    v = order_claim_verdict(_wide([[31.0, 28.0, 29.0, 26.0, 22.0]]), CLAIM_003)
    assert v["status"] == "fails" and v["seeds"]["steps"]["P-measure > O-measure"]["fails"] == 1.0
    assert v["claim"] == "P+-measure, P-measure > O-measure > NWRR > RR"
    # 003 Table 4 (d), NTCIR-5 Japanese: O 14% = NWRR 14% (63/435 each) is a tie, not support
    v = order_claim_verdict(_wide([[18.0, 17.0, 14.0, 14.0, 12.0]]))
    assert v["status"] == "fails" and v["seeds"]["steps"]["O-measure > NWRR"]["tie"] == 1.0
    # 003 Table 4 (a), NTCIR-3 Chinese: every step strict
    assert order_claim_verdict(_wide([[38.0, 39.0, 37.9, 31.0, 29.0]]))["status"] == "holds"


def test_order_claim_shares_over_seeds_and_topic_samples():
    from evalcore.meta import order_claim_verdict
    ok, bad = [40.0, 41.0, 35.0, 30.0, 20.0], [40.0, 41.0, 35.0, 30.0, 31.0]
    v = order_claim_verdict(_wide([ok, ok, ok, bad, ok]), topics=_wide([ok, bad, bad, ok]))
    assert v["status"] == "mostly" and v["seeds"]["holds"] == 0.8 and v["topics"]["holds"] == 0.5
    assert "holds in 4 of 5 repetitions" in v["text"] and "4 samples) it holds in 50% of them" in v["text"]
    assert "NWRR > RR 80% (tie 0%)" in v["text"]
    assert order_claim_verdict(_wide([bad, bad, ok]))["status"] == "fails"       # 1 of 3 is not most


def test_order_claim_leaves_out_metrics_not_chosen():
    import pandas as pd

    from evalcore.meta import order_claim_verdict
    v = order_claim_verdict(pd.DataFrame({"P+-measure": [5.0], "O-measure": [4.0], "RR": [1.0]}))
    assert v["claim"] == "P+-measure > O-measure" and v["missing"] == ["NWRR", "P-measure"]
    assert "Left out (not chosen): NWRR, P-measure" in v["text"]
    u = order_claim_verdict(pd.DataFrame({"AP": [1.0]}))
    assert u["status"] == "untestable" and "Not testable" in u["text"]
