"""The dashboard's ranks of runs by their means (dashboard.ranks.rank_frame), against pandas' "min" ranking."""
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")


def test_rank_frame_ranks_as_pandas_min_ranking_with_ties():
    """Rank 1 = the largest mean; tied means share the best rank among them (``Series.rank(ascending=False,
    method="min")``), on random vectors with and without ties, and the empty one."""
    from dashboard.ranks import rank_frame
    rng = np.random.default_rng(7)
    for trial in range(500):
        n = int(rng.integers(0, 15))
        left = rng.integers(0, 4, n) / 4.0 if trial % 2 else rng.random(n)
        right = rng.integers(0, 3, n) / 3.0
        runs = [f"r{i}" for i in range(n)]
        df = rank_frame(runs, left, right)
        assert list(df.columns) == ["run", "value_left", "value_right", "rank_left", "rank_right"]
        assert df["run"].tolist() == runs
        for col, x in (("rank_left", left), ("rank_right", right)):
            want = pd.Series(x, dtype=float).rank(ascending=False, method="min").astype(int).tolist()
            assert df[col].tolist() == want


def test_rank_frame_on_a_worked_example():
    from dashboard.ranks import rank_frame
    df = rank_frame(["a", "b", "c", "d"], [0.5, 0.7, 0.5, 0.1], [0.2, 0.2, 0.2, 0.9])
    assert df["rank_left"].tolist() == [2, 1, 2, 4] and df["rank_right"].tolist() == [2, 2, 2, 1]
