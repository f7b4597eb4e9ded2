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
