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
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .topic_bootstrap import claim_shares

__all__ = ["gain_choice_verdict", "CLAIM_003", "CLAIM_003_TEXT", "order_claim_verdict"]

#: Sakai 2007 (003) Tables 3-4: "P(+)-measure and O-measure are consistently more discriminative than NWRR,
#: which in turn is consistently more discriminative than RR", as strict steps (a > b). P-measure's step is
#: part of "P(+)"; a step whose metrics are not both given is left out (and said so).
CLAIM_003: tuple[tuple[str, str], ...] = (("P+-measure", "O-measure"), ("P-measure", "O-measure"),
                                          ("O-measure", "NWRR"), ("NWRR", "RR"))
#: :data:`CLAIM_003` as every page, report and message writes it: one spelling of the claim (strict steps;
#: "P(+)" is P+ and P, each above O).
CLAIM_003_TEXT = "P(+) > O > NWRR > RR"


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


def order_claim_verdict(seeds: pd.DataFrame, steps: Sequence[tuple[str, str]] = CLAIM_003, *,
                        topics: pd.DataFrame | None = None, what: str = "% of pairs",
                        label: Callable[[str], str] = str) -> dict:
    """Does an order claim between metrics hold on this data? The strict check of the report, for a screen.

    ``seeds``: one row per Monte Carlo repetition (same topics, derived seeds), one column per metric,
    values the discriminative-power figure (``what``, e.g. "% of pairs significant"); ``topics`` the same
    over topic samples (:func:`~evalcore.meta.topic_bootstrap`), or None. Each step (a, b) means a > b,
    checked strictly by :func:`~evalcore.meta.claim_shares` (equal figures are ties, not support). Steps
    naming a metric absent from ``seeds`` are left out and listed in ``missing``.

    ``status``: "holds" (every step strict in every repetition), "mostly" (in more than half of them),
    "fails" (in half or fewer) or "untestable" (no step left). ``text`` says it in words with the
    means and both uncertainties: the share of repetitions (Monte Carlo error, topics fixed) and, with
    ``topics``, the share of topic samples (how often it would hold on another topic set of this size).

    >>> w = pd.DataFrame({"A": [60.0, 61.0], "B": [50.0, 52.0], "C": [40.0, 52.0]})
    >>> v = order_claim_verdict(w, [("A", "B"), ("B", "C")])
    >>> v["status"], v["seeds"]["holds"], v["text"].split(":")[0]
    ('fails', 0.5, 'A > B > C holds in 1 of 2 repetitions')
    >>> order_claim_verdict(w.assign(D=1.0), [("A", "C"), ("B", "C"), ("C", "D")])["claim"]
    'A, B > C > D'
    """
    cols = set(seeds.columns)
    use = [(a, b) for a, b in steps if a in cols and b in cols]
    missing = sorted({m for st in steps for m in st if m not in cols})
    chain = _chain(use, label)
    if not use:
        return {"status": "untestable", "claim": chain, "steps": [], "missing": missing, "seeds": None,
                "topics": None, "means": {},
                "text": "Not testable here: it needs " + ", ".join(map(label, missing)) + " among the chosen metrics."}
    cs = claim_shares(seeds, use)
    ct = claim_shares(topics, use) if topics is not None and len(topics) else None
    n = cs["n"]
    k = int(round(cs["holds"] * n))
    status = "holds" if k == n else "mostly" if k > n / 2 else "fails"
    means = {m: float(seeds[m].mean()) for st in use for m in st}
    shown = dict.fromkeys([a for a, _ in use] + [b for _, b in use])       # the chain's order
    ms = ", ".join(f"{label(m)} {means[m]:.1f}" if math.isfinite(means[m]) else f"{label(m)} - (undefined)"
                   for m in shown)
    text = _verdict_words(chain, k, n) + f": {what} (mean) {ms}."
    broken = [f"{label(a)} > {label(b)} {v['holds']:.0%} (tie {v['tie']:.0%})"
              for (a, b), v in zip(use, cs["steps"].values(), strict=True) if v["holds"] < 1]
    if broken:
        text += " Steps that do not always hold: " + "; ".join(broken) + "."
    if ct is not None:
        text += (f" On other topic sets of this size (topic bootstrap, {ct['n']} samples) it holds in "
                 f"{ct['holds']:.0%} of them.")
    if missing:
        text += " Left out (not chosen): " + ", ".join(map(label, missing)) + "."
    return {"status": status, "claim": chain, "steps": use, "missing": missing, "seeds": cs, "topics": ct,
            "means": means, "text": text}


def _verdict_words(chain: str, k: int, n: int) -> str:
    """"<chain> holds in k of n repetitions", in words for all, none and a single repetition."""
    if k == n:
        return f"{chain} holds in all {n} repetitions" if n > 1 else f"{chain} holds"
    if k == 0:
        return f"{chain} holds in none of the {n} repetitions" if n > 1 else f"{chain} does not hold"
    return f"{chain} holds in {k} of {n} repetitions"


def _chain(steps: Sequence[tuple[str, str]], label: Callable[[str], str]) -> str:
    """Steps as the chain 003 writes: (A, C), (B, C), (C, D) -> ``A, B > C > D``; steps that do not chain
    are listed, comma-separated ``A > B; C > D``."""
    if not steps:
        return ""
    groups: list[tuple[list[str], str]] = []          # (metrics above, the metric below)
    for a, b in steps:
        if groups and groups[-1][1] == b:
            groups[-1][0].append(a)
        else:
            groups.append(([a], b))
    if all(groups[i + 1][0] == [groups[i][1]] for i in range(len(groups) - 1)):
        return " > ".join([", ".join(map(label, groups[0][0]))] + [label(b) for _, b in groups])
    return "; ".join(f"{label(a)} > {label(b)}" for a, b in steps)
