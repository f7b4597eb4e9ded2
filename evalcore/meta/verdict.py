"""One rule for "does the choice of gain values matter?", used by the report and the dashboard.

Sakai 2007 (003) Tables 5 and 6 ask two questions of a gain setting: does the run ranking change
(Kendall's tau against the default) and does discriminative power change (% pairs significant)?
The rule here answers both with the same caution as the report's order claims:

- the ranking is "the same" when every tau against the reference is >= ``tau_floor`` (0.9, the
  customary threshold for equivalent rankings, Voorhees 2000);
- discriminative power "differs" only when the spread of the settings' mean % significant exceeds
  both twice the largest Monte Carlo range of a single setting (what reseeding alone moves) and
  one pair (100 / n_pairs points: with few pairs a % moves in whole-pair steps, and a smaller
  difference is a tie, not an order).

The Monte Carlo range keeps the topics fixed; the text says so, since another topic set may move
the figures further (the report's topic bootstrap measures that).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["gain_choice_verdict"]


def gain_choice_verdict(taus: ArrayLike, pct_mean: ArrayLike, pct_min: ArrayLike,
                        pct_max: ArrayLike, n_pairs: int, *, reference: str = "the default",
                        tau_floor: float = 0.9) -> dict:
    """Verdict over gain settings (one value per setting; NaN entries are left out).

    Returns ``matters`` (bool), ``text`` (a sentence for a reader), and the numbers it used:
    ``tau_min``, ``tau_max``, ``span`` (points), ``noise`` (largest Monte Carlo range, points),
    ``step`` (one pair, points).

    >>> v = gain_choice_verdict([0.95, 0.97], [60.0, 62.0], [59.0, 61.0], [61.0, 63.0], 45)
    >>> v["matters"], round(v["step"], 2), v["span"]
    (False, 2.22, 2.0)
    >>> gain_choice_verdict([0.95, 0.97], [40.0, 70.0], [39.0, 69.0], [41.0, 71.0], 45)["matters"]
    True
    """
    if isinstance(n_pairs, bool) or int(n_pairs) != n_pairs or n_pairs < 1:
        raise ValueError(f"n_pairs must be a whole number >= 1; got {n_pairs!r}")
    t = np.asarray(taus, dtype=np.float64)
    m, lo, hi = (np.asarray(x, dtype=np.float64) for x in (pct_mean, pct_min, pct_max))
    t, m = t[~np.isnan(t)], m[~np.isnan(m)]
    rng = (hi - lo)[~np.isnan(hi - lo)]
    tau_min = float(t.min()) if t.size else math.nan
    tau_max = float(t.max()) if t.size else math.nan
    span = float(m.max() - m.min()) if m.size else 0.0
    noise = float(rng.max()) if rng.size else 0.0
    step = 100.0 / int(n_pairs)
    power_differs = span > max(2 * noise, step)
    ranking_same = t.size > 0 and tau_min >= tau_floor
    matters = power_differs or not ranking_same
    text = (f"Across these settings tau against {reference} ranges from {tau_min:.3f} to {tau_max:.3f}; % "
            f"significant moves by {span:.1f} points, against a Monte Carlo range of up to {noise:.1f} points for "
            f"one setting (seeds only, topics fixed) and a one-pair step of {step:.1f} points ({int(n_pairs)} "
            "pairs). ")
    if not matters:
        text += ("Report the gains you find natural: on this data the ranking hardly changes (every tau >= "
                 f"{tau_floor:g}) and the power differences are within noise or one pair, i.e. ties.")
    else:
        why = []
        if not ranking_same:
            why.append(f"the ranking changes (tau down to {tau_min:.3f} < {tau_floor:g})")
        if power_differs:
            why.append("discriminative power differs by more than twice the Monte Carlo range and more than one pair")
        text += "The choice matters here: " + " and ".join(why) + "; report the gains you used, and say so."
    if n_pairs < 30:
        text += (f" With {int(n_pairs)} pairs, one pair is {step:.1f} points: an order between settings cannot be "
                 "read from smaller differences.")
    return {"matters": bool(matters), "text": text, "tau_min": tau_min, "tau_max": tau_max, "span": span,
            "noise": noise, "step": step}
