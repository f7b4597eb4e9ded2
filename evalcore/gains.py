"""Gain values and NWRR penalties: defaults, the papers' presets, validation.

Two notations exist and both are supported, never mixed up:

* **sequences** (Python lists/tuples/arrays, CLI ``--gains 1:2:3``) list the
  levels in *ascending* order L1, L2, ..., LK, as NTCIREVAL's ``-g`` does;
* **strings** in Python (``"3:2:1"``, ``"10:5:1"``) use the papers'
  notation, *highest level first* (S:A:B).
"""
from __future__ import annotations

import numpy as np

__all__ = ["GAIN_PRESETS", "resolve_gains", "resolve_penalties", "parse_ascending", "gains_label"]

#: The papers' gain settings, highest level first (003 Table 5, 001, 004).
GAIN_PRESETS: dict[str, tuple[float, ...]] = {
    "3:2:1": (3.0, 2.0, 1.0),
    "30:20:10": (30.0, 20.0, 10.0),
    "0.3:0.2:0.1": (0.3, 0.2, 0.1),
    "1:1:1": (1.0, 1.0, 1.0),
    "10:5:1": (10.0, 5.0, 1.0),
    "2:1.5:1": (2.0, 1.5, 1.0),
}
# Presets that are "gain(L) = step * L" and so extend to any number of levels.
_LINEAR = {"3:2:1": 1.0, "30:20:10": 10.0, "0.3:0.2:0.1": 0.1}


def _parse_colon(text: str, what: str) -> list[float]:
    try:
        vals = [float(v) for v in str(text).split(":")]
    except ValueError:
        raise ValueError(
            f"{what} must be numbers separated by ':' (e.g. 3:2:1); got {text!r}"
        ) from None
    return vals


def parse_ascending(text: str, what: str = "gains") -> list[float]:
    """Parse a CLI value ``"1:2:3"`` (levels in ascending order L1:L2:L3)."""
    return _parse_colon(text, what)


def _paper_string(text: str, K: int, what: str, extra: str = "") -> np.ndarray:
    """``"a:b:c"`` in paper notation (highest level first) -> ascending array of K values."""
    hi_first = _parse_colon(text, what)
    if len(hi_first) != K:
        raise ValueError(
            f"{what} {text!r} gives {len(hi_first)} values (highest level first) but the "
            f"collection has {K} relevance levels{extra}"
        )
    return np.array(hi_first[::-1], dtype=np.float64)


def _ascending(values, K: int, what: str) -> np.ndarray:
    """A sequence of K values, levels 1..K ascending."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size != K:
        raise ValueError(
            f"{what} must give one value for every level 1..{K} (ascending); got {v.size} values {v.tolist()}"
        )
    return v


def resolve_gains(gains, K: int) -> np.ndarray:
    """Gains of levels 1..K as a float64 array (ascending level order).

    ``None`` gives gain(L) = L (the papers' S:A:B = 3:2:1 for K = 3). A
    string is a preset name or any ``"a:b:c"`` in paper notation (highest
    level first). For a collection with fewer than three levels a preset
    keeps its lowest K values ("10:5:1" on two levels gives L2 = 5,
    L1 = 1); the linear presets (3:2:1, 30:20:10, 0.3:0.2:0.1) and 1:1:1
    extend to more than three levels. A sequence lists levels ascending.

    >>> resolve_gains(None, 3).tolist(), resolve_gains("10:5:1", 3).tolist()
    ([1.0, 2.0, 3.0], [1.0, 5.0, 10.0])
    >>> resolve_gains("3:2:1", 2).tolist()
    [1.0, 2.0]
    """
    K = int(K)
    if gains is None:
        g = np.arange(1, K + 1, dtype=np.float64)
    elif isinstance(gains, str):
        key = gains.strip()
        if key in GAIN_PRESETS:
            hi_first = list(GAIN_PRESETS[key])
            if K <= len(hi_first):
                hi_first = hi_first[len(hi_first) - K:]
            elif key in _LINEAR:
                hi_first = [_LINEAR[key] * L for L in range(K, 0, -1)]
            elif key == "1:1:1":
                hi_first = [1.0] * K
            else:
                raise ValueError(
                    f"gains preset {key!r} is defined for at most 3 levels; the collection has {K}. "
                    f"Give {K} gains explicitly."
                )
        else:
            return _check_positive(_paper_string(
                key, K, "gains", f"; give exactly {K} or one of the presets {', '.join(GAIN_PRESETS)}"), K)
        g = np.array(hi_first[::-1], dtype=np.float64)
    else:
        g = _ascending(gains, K, "gains")
    return _check_positive(g, K)


def _check_positive(g: np.ndarray, K: int) -> np.ndarray:
    bad = np.flatnonzero(~(g > 0) | ~np.isfinite(g))
    if bad.size:
        L = int(bad[0]) + 1
        raise ValueError(f"gains must be positive for every level 1..{K}; got {g[bad[0]]} for level {L}")
    return g


def resolve_penalties(penalties, K: int) -> np.ndarray:
    """NWRR/WRR penalties beta(L) of levels 1..K (ascending), all > 1.

    ``None`` gives penalty(L) = K - L + 2 (S:A:B = 2:3:4 when K = 3, 003
    Sec. 3.2). A string is in paper notation, highest level first.

    >>> resolve_penalties(None, 3).tolist()
    [4.0, 3.0, 2.0]
    """
    K = int(K)
    if penalties is None:
        p = np.array([K - L + 2 for L in range(1, K + 1)], dtype=np.float64)
    elif isinstance(penalties, str):
        p = _paper_string(penalties, K, "penalties")
    else:
        p = _ascending(penalties, K, "penalties")
    bad = np.flatnonzero(~(p > 1) | ~np.isfinite(p))
    if bad.size:
        raise ValueError(
            f"penalties must be > 1 for every level 1..{K}; got {p[bad[0]]} for level {int(bad[0]) + 1}"
        )
    return p


def gains_label(gains: np.ndarray) -> str:
    """Paper notation (highest level first) of resolved gains: ``"3:2:1"``."""
    return ":".join(f"{v:g}" for v in np.asarray(gains)[::-1])
