"""Document-id words and hashes (evalcore.io._dochash): the strided read of evenly long ids (one read per
word for a whole block) gives the words and hashes of the gather at each id's own offset."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from evalcore.io._dochash import Strings, hash_block, hash_strings


def _ids(n: int, length: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    alphabet = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789_-."))
    return ["".join(rng.choice(alphabet, length)) for _ in range(n)]


@pytest.mark.parametrize("length", [8, 9, 16, 19, 25, 64, 300])
def test_even_ids_read_strided_equal_the_gather(length):
    arr = pa.array(_ids(500, length, length), pa.string())
    for part in (arr, arr.slice(17, 300)):
        s = Strings.of(part)
        assert s.even() == length
        general = s.take(np.arange(len(part)))      # not contiguous: every word gathered at its own offset
        assert general.even() == 0
        for k in range(-(-min(length, 256) // 8)):
            assert np.array_equal(s.word(k), general.word(k)), k
        assert np.array_equal(hash_block(s)[0], hash_block(general)[0])
        # the reference: each string hashed alone (a string's hash depends on its own bytes only)
        alone = np.array([hash_strings(pa.array([x], pa.string()))[0] for x in part.to_pylist()[:40]])
        assert np.array_equal(hash_strings(part)[:40], alone)


def test_uneven_or_short_ids_are_not_read_strided():
    assert Strings.of(pa.array(_ids(50, 19, 1) + ["short"], pa.string())).even() == 0
    assert Strings.of(pa.array(_ids(50, 7, 2), pa.string())).even() == 0
    mixed = pa.array(_ids(30, 19, 3) + _ids(30, 14, 4), pa.string())
    s = Strings.of(mixed)
    assert np.array_equal(hash_block(s)[0][:30], hash_strings(mixed.slice(0, 30)))
