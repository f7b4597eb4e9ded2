"""Gain values and NWRR penalties: defaults, the papers' presets, validation.

Two notations exist and both are supported, never mixed up:

* **strings** - everywhere: Python (``gains="3:2:1"``), the command line
  (``--gains 3:2:1``), the settings file (``"gains": "3:2:1"``), a metric
  name (``O-measure(gains=10:5:1)``) and the dashboard's address
  (``?gains=3:2:1``) - use the papers' notation, **highest level first**
  (S:A:B), and are all read by one function, :func:`parse_levels`;
* **sequences** (Python lists/tuples/arrays, the settings file's JSON lists)
  list the levels in **ascending** order L1, L2, ..., LK, as an array
  indexed by level does (``gains=[1, 2, 3]`` is S:A:B = 3:2:1).

Every printed setting says its order: :func:`levels_statement` writes
``S=3 : A=2 : B=1`` (with the collection's level names) or ``L3=3 : L2=2 : L1=1``;
:func:`level_label` the bare ``3:2:1``, highest level first.
"""
from __future__ import annotations

import numpy as np

__all__ = ["GAIN_PRESETS", "DEFAULT_GAINS", "DEFAULT_PENALTIES", "map_levels", "level_label", "levels_statement",
           "resolve_gains", "resolve_penalties", "parse_levels", "gains_label", "check_penalties", "inverted",
           "label_gains", "EXP_GAINS"]

#: The papers' gain settings, highest level first (003 Table 5, 001, 004).
GAIN_PRESETS: dict[str, tuple[float, ...]] = {
    "3:2:1": (3.0, 2.0, 1.0),
    "30:20:10": (30.0, 20.0, 10.0),
    "0.3:0.2:0.1": (0.3, 0.2, 0.1),
    "1:1:1": (1.0, 1.0, 1.0),
    "10:5:1": (10.0, 5.0, 1.0),
    "2:1.5:1": (2.0, 1.5, 1.0),
}
#: 003's defaults, S:A:B (highest level first): gains 3:2:1 and NWRR penalties 2:3:4 (003 Sec. 3.2).
DEFAULT_GAINS = "3:2:1"
DEFAULT_PENALTIES = "2:3:4"


def map_levels(setting, K: int, *, anchor: str) -> np.ndarray:
    """Map a setting written for the papers' 3 levels (S:A:B) onto K levels; ascending array.

    **The level-mapping rule** (used for every paper setting: the gain
    presets, the default gains and the default NWRR penalties). A setting is
    a sequence of per-level values; it keeps the level where it is smallest
    fixed - its *anchor* - and grows or shrinks at the other end:

    * gains are anchored at the **lowest** relevant level: level 1 keeps B,
      level 2 keeps A, level 3 keeps S;
    * penalties are anchored at the **highest** level: level K keeps S, K-1
      keeps A, K-2 keeps B (the smallest penalty stays on the highest
      level, which is what bounds NWRR by 1, 003 Sec. 3.2).

    With fewer than 3 levels the values beyond the collection's levels are
    dropped at the free end; with more, the free end continues the last step
    (S - A for gains, B - A for penalties) level by level. A step that would
    shrink toward the free end is not continued (the last value repeats), so
    gains stay positive and penalties stay > 1 and never grow with the level.
    For K = 3 a setting is used unchanged.

    Why gains and penalties seem anchored at opposite ends: it is one rule
    (keep the smallest value where it is), and the smallest gain sits on the
    lowest level while the smallest penalty sits on the highest. Keeping the
    smallest penalty on the top level is what keeps NWRR <= 1; keeping the
    smallest gain on level 1 keeps "one marginal document" worth the same.
    On K != 3 levels the mapped settings are *not* 003's (on 2 levels 10:5:1
    becomes 5:1, 3:2:1 becomes 2:1): a comparison with 003's numbers must say
    so, as ``evalcore report`` does beside every such number.

    ====  ============  =================  =========================
    K     gains 3:2:1   gains 10:5:1       penalties 2:3:4 (S:A:B)
    ====  ============  =================  =========================
    2     2:1           5:1                2:3
    3     3:2:1         10:5:1             2:3:4
    4     4:3:2:1       15:10:5:1          2:3:4:5
    5     5:4:3:2:1     20:15:10:5:1       2:3:4:5:6
    ====  ============  =================  =========================

    (labels highest level first, as the papers write them; see
    :func:`level_label`). The linear presets 3:2:1, 30:20:10, 0.3:0.2:0.1
    thus become gain(L) = step * L, and 1:1:1 stays binary.

    Parameters
    ----------
    setting : S:A:B string (highest level first) or a sequence of values, highest level first
    K : number of relevance levels (>= 1)
    anchor : "lowest" (gains) or "highest" (penalties)

    >>> map_levels("3:2:1", 4, anchor="lowest").tolist()
    [1.0, 2.0, 3.0, 4.0]
    >>> map_levels("2:3:4", 4, anchor="highest").tolist()
    [5.0, 4.0, 3.0, 2.0]
    >>> map_levels("10:5:1", 2, anchor="lowest").tolist()
    [1.0, 5.0]
    """
    K = int(K)
    if K < 1:
        raise ValueError(f"K (number of relevance levels) must be >= 1; got {K}")
    hi_first = parse_levels(setting, "setting") if isinstance(setting, str) else [float(v) for v in setting]
    if not hi_first:
        raise ValueError("setting must give at least one value")
    asc = hi_first[::-1]                                 # L1 .. Ln
    if anchor == "lowest":
        seq = asc                                        # grows toward the highest level
    elif anchor == "highest":
        seq = hi_first                                   # from the highest level downwards
    else:
        raise ValueError(f"anchor must be 'lowest' or 'highest'; got {anchor!r}")
    if K <= len(seq):
        seq = seq[:K]
    else:
        step = seq[-1] - seq[-2] if len(seq) >= 2 else 0.0
        step = max(step, 0.0)
        seq = seq + [seq[-1] + step * i for i in range(1, K - len(seq) + 1)]
    out = seq if anchor == "lowest" else seq[::-1]
    return np.array(out, dtype=np.float64)


def level_label(values) -> str:
    """The label of per-level values as used, highest level first: ascending [1, 2, 3, 4] -> ``"4:3:2:1"``.

    Use it for every table and plot label of a gain or penalty setting, so
    the label shows the values actually used on the collection's levels.

    >>> level_label([1.0, 2.0, 3.0, 4.0]), level_label([4.0, 3.0, 2.0]), level_label([1, 5.5])
    ('4:3:2:1', '2:3:4', '5.5:1')
    """
    return ":".join(f"{float(v):g}" for v in np.asarray(values, dtype=np.float64).ravel()[::-1])


def levels_statement(values, names=None) -> str:
    """Per-level values (ascending L1..LK) written with their levels, highest level first.

    ``names``: the levels' names L1..LK, lowest first (a collection's
    ``level_names``, e.g. ``("B", "A", "S")``); without them the levels are
    numbered ``L1``..``LK``. Every output that prints gains or penalties
    uses it, so the order is never left implied.

    >>> levels_statement([1.0, 2.0, 3.0], names=("B", "A", "S"))
    'S=3 : A=2 : B=1'
    >>> levels_statement([1, 2, 3, 4])
    'L4=4 : L3=3 : L2=2 : L1=1'
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    K = v.size
    if names is None or len(names) != K:
        names = [f"L{L}" for L in range(1, K + 1)]
    return " : ".join(f"{names[L]}={v[L]:g}" for L in range(K - 1, -1, -1))


def parse_levels(text: str, what: str = "gains") -> list[float]:
    """The values of a gains / penalties string, **highest level first**, as written: ``"3:2:1"`` -> [3, 2, 1].

    The one reader of every string form of gains and penalties (Python, the
    command line, the settings file, metric names, the dashboard's address),
    so ``3:2:1`` means S=3, A=2, B=1 everywhere. Checks only that the text
    is numbers separated by ``:`` (and at most 10,000 characters); the
    values are checked against the collection by :func:`resolve_gains` /
    :func:`resolve_penalties`.

    >>> parse_levels("10:5:1")
    [10.0, 5.0, 1.0]
    >>> parse_levels("3:two:1")
    Traceback (most recent call last):
    ...
    ValueError: gains must be numbers separated by ':', highest level first (e.g. 3:2:1 = S:A:B); got '3:two:1'
    """
    text = str(text)
    if len(text) > 10_000:
        raise ValueError(f"{what} is longer than 10000 characters; give one number per relevance level")
    try:
        vals = [float(v) for v in text.split(":")]
    except ValueError:
        raise ValueError(
            f"{what} must be numbers separated by ':', highest level first (e.g. 3:2:1 = S:A:B); got {text!r}"
        ) from None
    return vals


def inverted(values_hi_first) -> bool:
    """True when gains given highest level first grow toward the lowest level (``1:2:3``): the highest
    level then gets the smallest gain, which is almost always the ascending order written by mistake."""
    v = [float(x) for x in values_hi_first]
    return len(v) >= 2 and all(a < b for a, b in zip(v, v[1:], strict=False))


def _paper_string(text: str, K: int, what: str, anchor: str, extra: str = "") -> np.ndarray:
    """``"a:b:c"`` in paper notation (highest level first) -> ascending array of K values.

    K values are used as given; a 3-value S:A:B setting is mapped onto K
    levels by :func:`map_levels`.
    """
    hi_first = parse_levels(text, what)
    if len(hi_first) == K:
        return np.array(hi_first[::-1], dtype=np.float64)
    if len(hi_first) == 3:
        return map_levels(hi_first, K, anchor=anchor)
    raise ValueError(
        f"{what} {text!r} gives {len(hi_first)} values (highest level first) but the "
        f"collection has {K} relevance levels{extra}; give {K} values or a 3-value S:A:B setting"
    )


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

    ``None`` is the papers' default 3:2:1 mapped onto K levels by
    :func:`map_levels` (gain(L) = L: 2:1, 3:2:1, 4:3:2:1, ...). A **string**
    is a preset name or any ``"a:b:c"`` in paper notation, **highest level
    first** (read by :func:`parse_levels`, as on the command line, in the
    settings file and the dashboard's address): K values are used as given,
    a 3-value S:A:B setting is mapped onto K levels by :func:`map_levels`. A
    **sequence** (list, tuple, array) gives K values in **ascending** level
    order L1..LK: ``[1, 5, 10]`` is the string ``"10:5:1"``.

    >>> resolve_gains(None, 3).tolist(), resolve_gains("10:5:1", 3).tolist()
    ([1.0, 2.0, 3.0], [1.0, 5.0, 10.0])
    >>> resolve_gains("3:2:1", 2).tolist(), resolve_gains("10:5:1", 4).tolist()
    ([1.0, 2.0], [1.0, 5.0, 10.0, 15.0])
    """
    K = int(K)
    if gains is None:
        g = map_levels(DEFAULT_GAINS, K, anchor="lowest")
    elif isinstance(gains, dict) or (isinstance(gains, str) and (gains.strip().startswith("{")
                                                                  or gains.strip() == EXP_GAINS)):
        g = label_gains(gains, K)
    elif isinstance(gains, str):
        key = gains.strip()
        if key in GAIN_PRESETS:
            g = map_levels(GAIN_PRESETS[key], K, anchor="lowest")
        else:
            g = _paper_string(key, K, "gains", "lowest", f" (presets: {', '.join(GAIN_PRESETS)})")
    else:
        g = _ascending(gains, K, "gains")
    return _check_positive(g, K)


#: gdeval's gains (ir_measures' nDCG(dcg='exp-log2')): 2^L - 1 for level L
EXP_GAINS = "2^L-1"


def label_gains(gains, K: int) -> np.ndarray:
    """Gains written per label, ascending levels 1..K: ir_measures' mapping ``{0:0,1:1,2:3}`` (a dict or its
    text; a level it leaves out keeps gain = level, as ir_measures and trec_eval default) or ``"2^L-1"``
    (gdeval's 2^L - 1). Level 0 keeps gain 0: a mapping giving it another gain is refused, as is one giving
    a relevant level a gain <= 0 (:func:`resolve_gains`).

    >>> label_gains("{0:0,1:1,2:3}", 3).tolist(), label_gains("2^L-1", 3).tolist()
    ([1.0, 3.0, 3.0], [1.0, 3.0, 7.0])
    """
    if isinstance(gains, str) and gains.strip() == EXP_GAINS:
        return 2.0 ** np.arange(1, K + 1) - 1.0
    if isinstance(gains, str):
        import ast

        try:
            gains = ast.literal_eval(gains.strip())
        except (ValueError, SyntaxError):
            gains = None
    if not isinstance(gains, dict):
        raise ValueError("gains written per label must be a mapping like {0:0,1:1,2:3} (label: gain)")
    try:
        table = {int(k): float(v) for k, v in gains.items()}
    except (TypeError, ValueError):
        raise ValueError(f"gains must map whole relevance labels to numbers; got {gains!r}") from None
    if table.get(0, 0.0) != 0.0:
        raise ValueError(f"gains must give level 0 (non-relevant) gain 0; got {table[0]:g} (evalcore scores judged "
                         "non-relevant and unjudged documents alike)")
    return np.array([table.get(L, float(L)) for L in range(1, int(K) + 1)], dtype=np.float64)


def _check_positive(g: np.ndarray, K: int) -> np.ndarray:
    bad = np.flatnonzero(~(g > 0) | ~np.isfinite(g))
    if bad.size:
        L = int(bad[0]) + 1
        raise ValueError(f"gains must be positive for every level 1..{K}; got {g[bad[0]]} for level {L}")
    return g


def check_penalties(p, K: int | None = None, what: str = "penalties") -> np.ndarray:
    """Validate NWRR/WRR penalties given ascending (L1..LK): finite, > 1, never growing with the level.

    003 Sec. 3.2 gives the highest level the smallest penalty (S:A:B =
    2:3:4); that is what bounds NWRR by 1. A penalty that grows with the
    level (e.g. ascending 2:3:4, i.e. B = 2 and S = 4) would give NWRR = 1.5
    for a B document at rank 1, so it is a ValueError.

    >>> check_penalties([4, 3, 2]).tolist()
    [4.0, 3.0, 2.0]
    """
    p = np.asarray(p, dtype=np.float64).ravel()
    K = p.size if K is None else K
    bad = np.flatnonzero(~(p > 1) | ~np.isfinite(p))
    if bad.size:
        raise ValueError(
            f"{what} must be > 1 for every level 1..{K}; got {p[bad[0]]} for level {int(bad[0]) + 1}"
        )
    up = np.flatnonzero(np.diff(p) > 0)
    if up.size:
        L = int(up[0]) + 1
        raise ValueError(
            f"{what} must not grow with the level (Sakai 2007 Sec. 3.2: the smallest penalty goes to the highest "
            f"level, which bounds NWRR by 1); got level {L}: {p[L - 1]:g} < level {L + 1}: {p[L]:g} "
            f"(as used: {levels_statement(p)}). Give the lower levels the larger penalties, e.g. Sakai 2007's "
            f"default {level_label(map_levels(DEFAULT_PENALTIES, K, anchor='highest'))} (a string is read highest "
            f"level first: {levels_statement(map_levels(DEFAULT_PENALTIES, K, anchor='highest'))}; a list "
            f"ascending: {[float(v) for v in map_levels(DEFAULT_PENALTIES, K, anchor='highest')]})"
        )
    return p


def resolve_penalties(penalties, K: int) -> np.ndarray:
    """NWRR/WRR penalties of levels 1..K (ascending), all > 1 and non-increasing with the level.

    ``None`` is 003's default S:A:B = 2:3:4 mapped onto K levels by
    :func:`map_levels` (anchored at the highest level: penalty(L) =
    K - L + 2). A **string** is in paper notation, **highest level first**
    (:func:`parse_levels`; K values, or a 3-value S:A:B setting mapped by
    :func:`map_levels`); a **sequence** lists levels **ascending** L1..LK
    (``[4, 3, 2]`` is ``"2:3:4"``). Validated by :func:`check_penalties`.

    >>> resolve_penalties(None, 3).tolist(), resolve_penalties(None, 4).tolist()
    ([4.0, 3.0, 2.0], [5.0, 4.0, 3.0, 2.0])
    """
    K = int(K)
    if penalties is None:
        p = map_levels(DEFAULT_PENALTIES, K, anchor="highest")
    elif isinstance(penalties, str):
        p = _paper_string(penalties, K, "penalties", "highest")
    else:
        p = _ascending(penalties, K, "penalties")
    return check_penalties(p, K)


def gains_label(gains: np.ndarray) -> str:
    """Paper notation (highest level first) of resolved gains: ``"3:2:1"`` (same as :func:`level_label`)."""
    return level_label(gains)
