"""The pandas-free paths of ``evalcore evaluate``: arrow <-> numpy without pyarrow's pandas layer, and
:func:`evalcore.registry.evaluate_rows` against :func:`evalcore.evaluate`'s DataFrame."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import evalcore
from evalcore import writers
from evalcore.io._dochash import as_arrow, as_numpy
from evalcore.registry import evaluate_rows


@pytest.mark.parametrize("values, typ", [([3, -1, 7, 2**40, 0], pa.int64()), ([1, 2, 3, 4, 5], pa.int32()),
                                         ([1.5, -2.25, 1e300, 0.0, 3.0], pa.float64()),
                                         ([1.5, -2.25, 0.1, 0.0, 3.0], pa.float32()),
                                         ([True, False, True, True, False], pa.bool_()),
                                         ([5, 4, 3, 2, 1], pa.uint64()), ([1, 0, 1, 2, 3], pa.int8())])
def test_as_numpy_equals_pyarrows_to_numpy(values, typ):
    arr = pa.array(values * 5, typ)
    for part in (arr, arr.slice(3), arr.slice(7, 11), arr.slice(25)):   # offsets inside and across bytes
        got = as_numpy(part)
        want = part.to_numpy(zero_copy_only=False)
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
    chunked = pa.chunked_array([arr.slice(0, 9), arr.slice(9)])
    assert as_numpy(chunked).tolist() == chunked.to_numpy().tolist()
    with pytest.raises(ValueError, match="without nulls"):
        as_numpy(pa.array([values[0], None], typ))


@pytest.mark.parametrize("a", [np.array([3, -1, 7], np.int64), np.array([1.5, 2.5]), np.zeros(0, np.int64),
                               np.array([True, False, True, True, False, False, True, True, True]),
                               np.arange(10, dtype=np.uint64)[::2], np.array([1, 2], np.int32)])
def test_as_arrow_equals_pa_array(a):
    got, want = as_arrow(a), pa.array(a)
    assert got.type == want.type and got.equals(want)
    assert pa.array(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]).take(as_arrow(np.array([9, 0, 4]))
                                                                             ).to_pylist() == ["j", "a", "e"]


@pytest.mark.parametrize("per_topic", [False, True])
@pytest.mark.parametrize("metrics, topics", [(["map", "P_10", "AP", "Q-measure"], None), (None, None),
                                             (["nDCG@10", "RR"], "trec_eval"), (["map"], "ntcireval")])
def test_evaluate_rows_are_evaluates_table(per_topic, metrics, topics):
    """Row for row, the DataFrame evaluate() built before (reference: a per-metric table concatenated and
    sorted run by run with pandas, as evaluate() did), and the same writers' bytes."""
    import pandas as pd

    c = evalcore.simulated_collection(7, 4, seed=3)
    # means=True: trec_eval -q's layout (each run's topics, then its "all" rows), the reference's below
    rows = evaluate_rows(c, metrics, per_topic=per_topic, topics=topics, means=True)
    df = evalcore.evaluate(c, metrics, per_topic=per_topic, topics=topics, means=True)
    assert list(rows.rows()) == list(df.itertuples(index=False, name=None))
    assert rows.attrs == df.attrs
    mats = evalcore.score_matrices(c, metrics)
    frames = []
    for key, m in mats.items():
        policy = evalcore.registry.topic_policy(key, topics, "evalcore" if metrics is None else None)
        zero = c.topics_without_relevant if policy == "trec_eval" else ()
        m = np.concatenate([m, np.zeros((m.shape[0], len(zero)))], axis=1) if zero else m
        tids = list(c.topic_ids) + list(zero)
        if per_topic:
            frames.append(pd.DataFrame({"run": np.repeat(c.run_ids, len(tids)), "topic": tids * c.n_runs,
                                        "metric": key, "value": m.ravel()}))
        spec = evalcore.registry.METRICS[evalcore.registry.resolve_metric(key).base]   # a count's "all": the sum
        geo = np.exp(np.log(np.maximum(m, 1e-5)).mean(axis=1))                       # gm_map's: trec_eval's
        frames.append(pd.DataFrame({"run": list(c.run_ids), "topic": "all", "metric": key,
                                    "value": m.sum(axis=1) if spec.count else geo if spec.aggregate == "geometric"
                                    else m.mean(axis=1)}))
    ref = pd.concat(frames, ignore_index=True)
    if per_topic:
        ref["_r"] = ref["run"].map({r: i for i, r in enumerate(c.run_ids)})
        ref["_a"] = ref["topic"].eq("all")
        ref = ref.sort_values(["_r", "_a"], kind="stable").drop(columns=["_r", "_a"])
    ref_rows = list(ref.itertuples(index=False, name=None))
    assert [r[:3] for r in rows.rows()] == [r[:3] for r in ref_rows]
    assert rows.value == pytest.approx(ref["value"].to_numpy(), rel=1e-12, abs=1e-15)
    for fmt in writers.FORMATS:
        assert writers.write(rows, fmt) == writers.write(df, fmt)


def test_numpy_dtype_equals_pyarrows_own_mapping():
    """``numpy_dtype`` (what ``as_numpy`` reads buffers as) equals pyarrow's ``to_pandas_dtype`` for every number
    and boolean type, without importing pandas (pyarrow 16's ``to_pandas_dtype`` does)."""
    import pyarrow as pa

    from evalcore.io._dochash import numpy_dtype

    types = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
             pa.float16(), pa.float32(), pa.float64(), pa.bool_()]
    for t in types:
        assert numpy_dtype(t) == np.dtype(t.to_pandas_dtype()), t
    with pytest.raises(TypeError, match="numbers or booleans"):
        numpy_dtype(pa.string())
