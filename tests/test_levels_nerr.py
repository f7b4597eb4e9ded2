"""The level-mapping rule, labels, penalty validation and nERR's stop probability."""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import evalcore
from evalcore import metrics as M
from evalcore.cli import main
from evalcore.collection import Collection
from evalcore.gains import DEFAULT_PENALTIES, GAIN_PRESETS, level_label, map_levels, resolve_gains, resolve_penalties

CONVENTIONS = Path(__file__).resolve().parents[1] / "docs" / "conventions.md"

# docs/conventions.md's table, highest level first (values written by hand from the rule's definition).
TABLE = {
    2: ("2:1", "5:1", "2:3"),
    3: ("3:2:1", "10:5:1", "2:3:4"),
    4: ("4:3:2:1", "15:10:5:1", "2:3:4:5"),
    5: ("5:4:3:2:1", "20:15:10:5:1", "2:3:4:5:6"),
}


@pytest.mark.parametrize("K", sorted(TABLE))
def test_mapping_table(K):
    g321, g1051, pen = TABLE[K]
    assert level_label(resolve_gains(None, K)) == g321 == level_label(resolve_gains("3:2:1", K))
    assert level_label(resolve_gains("10:5:1", K)) == g1051
    assert level_label(resolve_penalties(None, K)) == pen == level_label(resolve_penalties(DEFAULT_PENALTIES, K))


def test_docs_table_equals_the_rule():
    text = CONVENTIONS.read_text(encoding="utf-8")
    rows = re.findall(r"^\s*\|\s*(\d)\s*\|\s*([\d.:]+)\s*\|\s*([\d.:]+)\s*\|\s*([\d.:]+)\s*\|", text, flags=re.M)
    got = {int(k): (a, b, c) for k, a, b, c in rows}
    assert got == TABLE


def test_today_defaults_kept_on_three_levels():
    assert resolve_gains(None, 3).tolist() == [1, 2, 3]                  # S:A:B = 3:2:1
    assert resolve_penalties(None, 3).tolist() == [4, 3, 2]              # S:A:B = 2:3:4 (003 Sec. 3.2)
    for name, hi_first in GAIN_PRESETS.items():
        assert resolve_gains(name, 3).tolist() == list(hi_first[::-1])


@pytest.mark.parametrize("K", range(1, 10))
def test_every_setting_valid_for_every_K(K):
    for name in GAIN_PRESETS:
        g = resolve_gains(name, K)
        assert g.shape == (K,) and np.all(g > 0)
    p = resolve_penalties(None, K)
    assert p.shape == (K,) and np.all(p > 1) and np.all(np.diff(p) <= 0)
    # a step that shrinks toward the free end is not continued: gains stay positive
    assert np.all(map_levels("1:2:3", K, anchor="lowest") > 0)
    assert np.all(np.diff(map_levels("2:2.5:4", K, anchor="highest")) <= 0)


def test_level_label_highest_first():
    assert level_label([1, 2, 3, 4]) == "4:3:2:1"
    assert level_label(np.array([0.1, 0.2])) == "0.2:0.1"


@pytest.mark.parametrize("pen", [[2, 3, 4], "4:3:2", [4, 3, 3.5]])
def test_penalty_growing_with_level_is_an_error(pen):
    with pytest.raises(ValueError, match="must not grow with the level"):
        resolve_penalties(pen, 3)
    c = evalcore.paper_examples()
    with pytest.raises(ValueError, match="must not grow with the level"):
        M.nwrr(c, penalties=pen)


def test_equal_penalties_allowed_and_nwrr_bounded():
    c = evalcore.paper_examples()
    v = M.nwrr(c, penalties=[3, 3, 3])
    assert np.nanmax(v) <= 1


def test_cli_penalties_growing(capsys):
    # highest level first, as the papers write S:A:B: 4:3:2 gives the highest level the largest penalty
    assert main(["evaluate", "--paper-examples", "--metrics", "NWRR", "--penalties", "4:3:2"]) == 2
    err = capsys.readouterr().err
    assert "must not grow with the level" in err and "2:3:4" in err
    assert main(["evaluate", "--paper-examples", "--metrics", "NWRR", "--penalties", "2:3:4"]) == 0


def _one_topic(run):
    return Collection.from_lists({"r": {"t": run}}, {"t": [0, 1, 1, 1]})


def test_nerr_equals_ntcireval_for_ascending_gains():
    # NTCIREVAL: p = g / (gain(K) + 1); run [B, S], gains 1:2:3 ascending, topic with one S, A, B.
    # ERR = 1/4 + (3/4)(3/4)/2 = 51/96; ideal [S, A, B]: 3/4 + (1/4)(2/4)/2 + (1/4)(2/4)(1/4)/3 = 79/96
    c = _one_topic([1, 3])
    assert M.nerr(c, gains=[1, 2, 3], cutoff=10)[0, 0] == pytest.approx(float(Fraction(51, 79)), abs=1e-12)


def test_nerr_is_a_probability_for_any_gains():
    # gains 3:2:1 ascending (level 1 largest): p = g / (max + 1) = 3/4 for B, 1/4 for S; the ideal list is
    # by gain: [B, A, S]. ERR = 3/4 + (1/4)(1/4)/2 = 75/96; ideal 79/96.
    c = _one_topic([1, 3])
    assert M.nerr(c, gains=[3, 2, 1], cutoff=10)[0, 0] == pytest.approx(75 / 79, abs=1e-12)
    rng = np.random.default_rng(0)
    from conftest import random_collection
    cc = random_collection(rng, K=3, n_runs=4, n_topics=6)
    for _ in range(20):
        g = rng.uniform(0.01, 50, size=3)
        v = M.nerr(cc, gains=g, cutoff=20)
        assert np.all((v[~np.isnan(v)] >= 0) & (v[~np.isnan(v)] <= 1 + 1e-12))
