r"""Sakai 2007 (003)'s printed figures, and whether a figure computed on other data agrees with them.

A number shown beside the paper's needs a verdict a student can read, and that verdict needs the number's
uncertainty: 003's figures come from four NTCIR data sets, the data's from one topic set. So each figure
computed here carries a 95 % topic-bootstrap interval (:func:`tau_topic_bootstrap`: the topics resampled
with replacement, as :func:`~evalcore.meta.topic_bootstrap` does for discriminative power), and
:func:`agreement` compares the value and its interval with the range 003 prints over its four data sets:

- **inside**: the value lies within 003's range - it agrees;
- **near**: the value lies outside, but its interval reaches 003's range - it agrees within the uncertainty
  from the topics (another topic set of this size could give a value 003 saw);
- **above** / **below**: the whole interval lies above (below) 003's range - it differs, even allowing
  for the topics.

Table 2's observations (003 Sec. 5.2) are checked pair by pair (:func:`table2_comparison`) and as the
sentences the paper writes (:func:`table2_findings`); Tables 7-9's largest preferred ranks are
:data:`MAX_RP`. Metric keys are evalcore's (``AP`` is 003's AveP).

>>> agreement(0.724, 0.66, 0.78, 0.6138, 0.8805)["status"]
'inside'
>>> agreement(0.95, 0.93, 0.97, 0.6138, 0.8805)["words"]
"differs: higher than 003's (.6138-.8805), even on other topic sets of this size (0.930-0.970)"
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._common import check_positive_int, sign_tol, zero_tolerance
from .correlation import kendall_test
from .topic_bootstrap import percentile_interval, topic_samples

__all__ = ["DATA_SETS", "TABLE2", "TABLE2_ORDER", "TABLE2_FINDINGS", "MAX_RP", "SIGNIFICANT_TAU", "AGREES",
           "paper_range", "paper_number", "agreement", "tau_topic_bootstrap", "topic_interval", "table2_comparison",
           "table2_findings", "TABLE5", "TABLE5_SETTINGS", "table5_findings"]

#: 003's four data sets, in the order of its tables.
DATA_SETS = ("NTCIR-3 Chinese", "NTCIR-3 Japanese", "NTCIR-5 Chinese", "NTCIR-5 Japanese")

#: 003 Table 2's metrics, (a) RR ... (g) Q-measure, as evalcore keys.
TABLE2_ORDER = ("RR", "NWRR", "O-measure", "P-measure", "P+-measure", "AP", "Q-measure")

_T2_ROWS = {   # 003 Table 2, the upper triangle row by row (b) ... (g), one tuple per data set in DATA_SETS' order
    "NTCIR-3 Chinese": ((.8575, .7977, .7425, .7747, .5264, .5494), (.9126, .8575, .8989, .5494, .5632),
                        (.8621, .9310, .5264, .5402), (.9126, .5540, .5678), (.5126, .5356), (.9678,)),
    "NTCIR-3 Japanese": ((.8759, .8207, .8253, .7977, .7701, .7701), (.9356, .9126, .9126, .7011, .7287),
                         (.9218, .9310, .6920, .7011), (.9540, .7333, .7517), (.7149, .7425), (.9540,)),
    "NTCIR-5 Chinese": ((.8805, .8391, .7793, .7977, .5172, .5540), (.9034, .8253, .8529, .4713, .5080),
                        (.8391, .8851, .4851, .5126), (.9080, .5632, .6000), (.5356, .5724), (.9172,)),
    "NTCIR-5 Japanese": ((.7839, .6506, .6138, .7057, .4667, .4529), (.8391, .7103, .8207, .4069, .4115),
                         (.6874, .7885, .3563, .3793), (.8437, .5310, .5632), (.4667, .4989), (.8851,)),
}


def _table2() -> dict[tuple[str, str], tuple[float, ...]]:
    out: dict[tuple[str, str], tuple[float, ...]] = {}
    for i, a in enumerate(TABLE2_ORDER[:-1]):
        for j, b in enumerate(TABLE2_ORDER[i + 1:]):
            out[(a, b)] = tuple(_T2_ROWS[d][i][j] for d in DATA_SETS)
    return out


#: 003 Table 2: Kendall's tau between the rankings of the top 30 runs, per metric pair (in Table 2's order),
#: one value per data set of :data:`DATA_SETS`.
TABLE2: dict[tuple[str, str], tuple[float, ...]] = _table2()

#: 003 Sec. 4.1 / 5.2: with 30 runs a tau above 0.34 is significant at alpha = 0.01, and every Table 2 value is.
SIGNIFICANT_TAU = 0.34

_ONE_DOC_GRADED = ("NWRR", "O-measure", "P-measure", "P+-measure")
#: 003 Sec. 5.2's observations on Table 2, as (name, the pairs it is about, what 003 says).
TABLE2_FINDINGS: tuple[tuple[str, tuple[tuple[str, str], ...], str], ...] = (
    ("one-document metrics", tuple((a, b) for i, a in enumerate(_ONE_DOC_GRADED) for b in _ONE_DOC_GRADED[i + 1:]),
     "P(+), O-measure and NWRR are relatively highly correlated with one another"),
    ("RR", tuple(("RR", m) for m in _ONE_DOC_GRADED),
     "they are not very highly correlated with RR: finding one highly relevant document is not finding any one"),
    ("AveP", tuple((m, "AP") for m in ("RR",) + _ONE_DOC_GRADED),
     "the one-document metrics are not very highly correlated with AveP"),
)

#: 003 Tables 7-9: the largest preferred rank r_p of any run on any topic, per data set (max over topics of
#: maxr_p; e.g. NTCIR-3 Chinese topic 020, 913).
MAX_RP = {"NTCIR-3 Chinese": 913, "NTCIR-3 Japanese": 980, "NTCIR-5 Chinese": 930, "NTCIR-5 Japanese": 852}

#: The statuses of :func:`agreement` that agree with 003.
AGREES = ("inside", "near")


#: 003 Table 5's gain settings (S:A:B), the columns of :data:`TABLE5`; the default is 3:2:1.
TABLE5_SETTINGS = ("30:20:10", "0.3:0.2:0.1", "1:1:1", "10:5:1")

#: 003 Table 5: Kendall's tau between each metric's ranking under the default gains (3:2:1) and under each of
#: :data:`TABLE5_SETTINGS`, per data set (:data:`DATA_SETS`' order).
TABLE5: dict[str, dict[str, tuple[float, ...]]] = {
    "NTCIR-3 Chinese": {"P+-measure": (.9586, .8805, .8621, .9126), "P-measure": (.9899, .8713, .8667, .9126),
                        "O-measure": (.8115, .8943, .8023, .8621)},
    "NTCIR-3 Japanese": {"P+-measure": (.9724, .9402, .8943, .9448), "P-measure": (.9862, .9632, .9402, .9632),
                         "O-measure": (.9678, .8943, .8207, .9172)},
    "NTCIR-5 Chinese": {"P+-measure": (.9632, .9034, .8713, .9172), "P-measure": (.9448, .9264, .8759, .9218),
                        "O-measure": (.9862, .8897, .8345, .9448)},
    "NTCIR-5 Japanese": {"P+-measure": (.8943, .8023, .7655, .7517), "P-measure": (.8713, .9126, .8575, .8621),
                         "O-measure": (.8529, .7471, .6506, .7195)},
}


def paper_range(pairs: Sequence[tuple[str, str]]) -> tuple[float, float]:
    """The lowest and highest Table 2 value over ``pairs`` (in either orientation) and 003's four data sets.

    >>> paper_range([("NWRR", "RR")])
    (0.7839, 0.8805)
    """
    vals = [v for a, b in pairs for v in TABLE2[_oriented(a, b)]]
    return min(vals), max(vals)


def _oriented(a: str, b: str) -> tuple[str, str]:
    if (a, b) in TABLE2:
        return a, b
    if (b, a) in TABLE2:
        return b, a
    raise ValueError(f"003 Table 2 has no pair {a!r} - {b!r}; its metrics are {', '.join(TABLE2_ORDER)}")


def paper_number(x: float) -> str:
    """003's notation: four decimals without the leading zero (.6138); a whole number as one (913)."""
    if float(x).is_integer() and abs(x) >= 1:
        return str(int(x))
    return f"{x:.4f}".lstrip("0") if 0 <= x < 1 else f"{x:.4f}"


def agreement(value: float, lo: float, hi: float, paper_lo: float, paper_hi: float, *, digits: int = 3,
              paper: str = "003") -> dict:
    """Does ``value`` (with its interval ``lo``..``hi``) agree with 003's range ``paper_lo``..``paper_hi``?

    ``status``: "inside", "near", "above", "below" (module docstring) or "undefined" (a NaN value);
    ``agrees``: status in :data:`AGREES`; ``verdict``: "agrees", "agrees within the uncertainty" or "differs";
    ``detail``: the numbers it rests on, the paper named ``paper`` (the report's "003", a screen's "Sakai 2007");
    ``words``: both, for a reader.
    """
    rng = f"{paper_number(paper_lo)}-{paper_number(paper_hi)}" if paper_lo != paper_hi else paper_number(paper_lo)
    iv = f"{lo:.{digits}f}-{hi:.{digits}f}"
    if not math.isfinite(value):
        return {"status": "undefined", "agrees": False, "verdict": "no comparison", "detail": "undefined here",
                "words": "no comparison: undefined here"}
    if paper_lo <= value <= paper_hi:
        status, verdict, detail = "inside", "agrees", f"inside {paper}'s range ({rng})"
    elif math.isfinite(lo) and math.isfinite(hi) and lo <= paper_hi and hi >= paper_lo:
        side = "above" if value > paper_hi else "below"
        status, verdict = "near", "agrees within the uncertainty"
        detail = f"{side} {paper}'s range ({rng}), but other topic sets of this size give {iv}"
    else:
        status = "above" if value > paper_hi else "below"
        verdict = "differs"
        detail = f"{'higher' if status == 'above' else 'lower'} than {paper}'s ({rng})" + (
            f", even on other topic sets of this size ({iv})" if math.isfinite(lo) and math.isfinite(hi) else
            " (no topic interval computed)")
    return {"status": status, "agrees": status in AGREES, "verdict": verdict, "detail": detail,
            "words": f"{verdict}: {detail}"}


def tau_topic_bootstrap(scores: Mapping[str, np.ndarray], pairs: Sequence[tuple[str, str]] | None = None, *,
                        resamples: int = 200, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """Kendall's tau-b between the run rankings of metric pairs, with a topic-bootstrap interval.

    ``scores``: ``{metric: (n_runs, n_topics) array}``; a run's score is its mean over the topics (over the
    topic sample, on each sample: every matrix resampled with the same topics, :func:`topic_samples`). For
    every pair (default: every pair of ``scores``' metrics, in their order): ``tau`` on the data, ``lo`` and
    ``hi`` the ``(1 - level) / 2`` and ``(1 + level) / 2`` percentiles over the topic samples on observed
    values (:func:`~evalcore.meta.topic_bootstrap.percentile_interval`), ``sd`` and ``n`` (samples where tau
    is defined).

    >>> rng = np.random.default_rng(0)
    >>> base = rng.random((10, 1)) + rng.random((10, 30)) * 0.3
    >>> t = tau_topic_bootstrap({"A": base, "B": base + rng.random((10, 30)) * 0.1}, resamples=50)
    >>> bool(t["lo"].iloc[0] <= t["tau"].iloc[0] <= t["hi"].iloc[0]), int(t["n"].iloc[0])
    (True, 50)
    """
    resamples = check_positive_int(resamples, "resamples")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    mats = {k: np.asarray(v, dtype=np.float64) for k, v in scores.items()}
    if len(mats) < 2:
        raise ValueError(f"tau compares two metrics' rankings: scores must hold at least 2 metrics; got {len(mats)}")
    shapes = {m.shape for m in mats.values()}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"every score matrix must have the same shape (n_runs, n_topics); got {sorted(shapes)}")
    n_runs, T = next(iter(shapes))
    if n_runs < 2 or T < 2:
        raise ValueError(f"a topic bootstrap of tau needs at least 2 runs and 2 topics; got {n_runs} x {T}")
    keys = list(mats)
    pairs = list(pairs) if pairs is not None else [(a, b) for i, a in enumerate(keys) for b in keys[i + 1:]]
    for a, b in pairs:
        if a not in mats or b not in mats:
            raise ValueError(f"pair {a!r} - {b!r} names a metric that scores lacks; it has {', '.join(keys)}")
    point, draws = _tau_draws(mats, pairs, resamples, seed)
    tail = 50.0 * (1 - level)
    rows = []
    for k, (a, b) in enumerate(pairs):
        v = draws[:, k][~np.isnan(draws[:, k])]
        lo, hi = percentile_interval(v, tail, 100.0 - tail)
        rows.append({"metric_a": a, "metric_b": b, "tau": float(point[k]), "lo": lo, "hi": hi,
                     "sd": float(v.std(ddof=1)) if v.size > 1 else float("nan"), "n": int(v.size)})
    return pd.DataFrame(rows, columns=["metric_a", "metric_b", "tau", "lo", "hi", "sd", "n"])


def _tau_draws(mats: Mapping[str, np.ndarray], pairs: Sequence[tuple[str, str]], resamples: int,
               seed: int) -> tuple[np.ndarray, np.ndarray]:
    """tau-b of every pair of ``pairs`` on the data, shape ``(len(pairs),)``, and on every topic sample of
    :func:`topic_samples`, shape ``(resamples, len(pairs))`` (NaN where a ranking ties every run)."""
    n_runs, T = next(iter(mats.values())).shape
    used = list(dict.fromkeys(m for p in pairs for m in p))
    col = {m: i for i, m in enumerate(used)}
    ia, ib = np.array([col[a] for a, _ in pairs]), np.array([col[b] for _, b in pairs])
    stack = np.stack([mats[m] for m in used])                    # (metrics, runs, topics)
    iu = np.triu_indices(n_runs, k=1)

    def taus(idx) -> np.ndarray:
        """tau-b of every pair on the runs' means over the topics ``idx``: each metric's pair signs made once
        (ties within ZERO_RTOL of the scale, as :func:`~evalcore.meta.kendall_tau`), the pairs' products summed."""
        means = stack[:, :, idx].mean(axis=2)
        signs = np.stack([sign_tol(a[:, None] - a[None, :], zero_tolerance(a))[iu] for a in means])
        nz = np.count_nonzero(signs, axis=1).astype(np.float64)
        denom = np.sqrt(nz[ia] * nz[ib])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denom > 0, np.einsum("kp,kp->k", signs[ia], signs[ib]) / denom, np.nan)

    draws = np.full((resamples, len(pairs)), np.nan)
    for r, idx, _ in topic_samples(T, resamples, seed):
        draws[r] = taus(idx)
    return taus(slice(None)), draws


def topic_interval(per_topic, statistic=np.max, *, resamples: int = 200, seed: int = 0,
                   level: float = 0.95) -> tuple[float, float, float]:
    """``statistic`` of one value per topic (e.g. each topic's largest preferred rank, for the collection's
    largest) on the data and its topic-bootstrap interval: ``(value, lo, hi)``, the interval's ends
    observed values over ``resamples`` topic samples (:func:`topic_samples`; NaN topics left out).

    >>> topic_interval([3, 900, 40, 12, 7], resamples=100)[0]
    900.0
    """
    resamples = check_positive_int(resamples, "resamples")
    v = np.asarray(per_topic, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size < 2:
        return (float(statistic(v)) if v.size else float("nan")), float("nan"), float("nan")
    draws = np.array([statistic(v[idx]) for _, idx, _ in topic_samples(v.size, resamples, seed)], dtype=np.float64)
    tail = 50.0 * (1 - level)
    lo, hi = percentile_interval(draws, tail, 100.0 - tail)
    return float(statistic(v)), lo, hi


def table2_comparison(scores: Mapping[str, np.ndarray], *, resamples: int = 200, seed: int = 0,
                      alpha: float = 0.01, paper: str = "003") -> pd.DataFrame:
    """Every 003 Table 2 pair whose two metrics ``scores`` holds, in Table 2's order: tau on this data with its
    topic-bootstrap interval (:func:`tau_topic_bootstrap`; NaN with ``resamples=0``), whether it is significant
    at ``alpha`` (Eq. 9), 003's lowest and highest value over its four data sets, and :func:`agreement`'s status
    and words (the paper named ``paper``). Empty when fewer than two of Table 2's metrics are given."""
    have = [m for m in TABLE2_ORDER if m in scores]
    pairs = [p for p in TABLE2 if p[0] in have and p[1] in have]
    cols = ["metric_a", "metric_b", "tau", "lo", "hi", "significant", "paper_lo", "paper_hi", "status", "agrees",
            "verdict", "detail", "words"]
    if not pairs:
        return pd.DataFrame(columns=cols)
    if resamples == 0:           # no topic samples: the values alone (agreement then says no interval was computed)
        t = tau_topic_bootstrap({m: scores[m] for m in have}, pairs, resamples=1, seed=seed).assign(
            lo=np.nan, hi=np.nan, sd=np.nan, n=0)
    else:
        t = tau_topic_bootstrap({m: scores[m] for m in have}, pairs, resamples=resamples, seed=seed)
    n_runs = np.asarray(scores[have[0]]).shape[0]
    crit = kendall_test(0.0, n_runs, alpha=alpha)["tau_critical"]
    rows = []
    for row in t.to_dict("records"):
        a, b, tau, lo, hi = str(row["metric_a"]), str(row["metric_b"]), float(row["tau"]), float(row["lo"]), \
            float(row["hi"])
        plo, phi = paper_range([(a, b)])
        ag = agreement(tau, lo, hi, plo, phi, paper=paper)
        rows.append({"metric_a": a, "metric_b": b, "tau": tau, "lo": lo, "hi": hi,
                     "significant": bool(abs(tau) >= crit), "paper_lo": plo, "paper_hi": phi,
                     "status": ag["status"], "agrees": ag["agrees"], "verdict": ag["verdict"],
                     "detail": ag["detail"], "words": ag["words"]})
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["tau_critical"] = float(crit)
    out.attrs["n_runs"] = int(n_runs)
    out.attrs["paper"] = paper
    return out


def table2_findings(comparison: pd.DataFrame, label=str) -> list[dict]:
    """003 Sec. 5.2's observations on Table 2, each checked on ``comparison`` (:func:`table2_comparison`):
    one dict per observation whose pairs are there, with ``name``, ``claim`` (003's words and range),
    ``agrees`` (every pair inside the paper's range or within the uncertainty), ``verdict`` ("agrees", "differs",
    "cannot be checked"), ``detail`` (the numbers) and ``text`` (both) - the first about significance (003:
    every tau above 0.34, significant at alpha = 0.01)."""
    if comparison.empty:
        return []
    name_ = comparison.attrs.get("paper", "003")
    recs: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in comparison.to_dict("records")]
    out = [_significance_finding(comparison, recs, label)]
    by_pair = {(r["metric_a"], r["metric_b"]): r for r in recs}
    for name, pairs, words in TABLE2_FINDINGS:
        rows = [by_pair[p] for p in pairs if p in by_pair]
        if not rows:
            continue
        plo, phi = paper_range([(r["metric_a"], r["metric_b"]) for r in rows])
        off = [r for r in rows if not r["agrees"]]
        taus = [r["tau"] for r in rows if math.isfinite(r["tau"])]
        here = f"{min(taus):.3f}-{max(taus):.3f}" if taus else "undefined"
        if not off:
            inside = sum(r["status"] == "inside" for r in rows)
            verdict = "agrees"
            detail = (f"taus {here}, {inside} of {len(rows)} pairs inside {name_}'s range"
                    + ("" if inside == len(rows) else
                       f", {'the other' if len(rows) - inside == 1 else 'the others'} within the uncertainty "
                       "from the topics"))
        else:
            verdict = "differs"
            detail = f"taus {here}; " + "; ".join(
                f"{label(r['metric_a'])} - {label(r['metric_b'])} {r['tau']:.3f}: {r['detail']}" for r in off)
        out.append({"name": name, "agrees": not off, "verdict": verdict, "detail": detail,
                    "claim": f"{words} ({name_}: {paper_number(plo)}-{paper_number(phi)})",
                    "text": f"{verdict}: {detail}"})
    return out


def _significance_finding(comparison: pd.DataFrame, recs: list[dict[str, Any]], label) -> dict:
    """The first of :func:`table2_findings`: 003's every tau above 0.34, significant at alpha = 0.01."""
    n_runs = comparison.attrs.get("n_runs")
    crit = comparison.attrs.get("tau_critical", float("nan"))
    sig = comparison["significant"].astype(bool)
    defined = [r for r in recs if math.isfinite(r["tau"])]
    low = min(defined, key=lambda r: r["tau"]) if defined else None
    lowest = "no tau defined" if low is None else (
        f"lowest {label(low['metric_a'])} - {label(low['metric_b'])} {low['tau']:.3f}" + (
            f", {low['lo']:.3f}-{low['hi']:.3f} on other topic sets of this size" if math.isfinite(low["lo"]) else ""))
    if crit > 1:
        verdict, detail = "cannot be checked", (f"with {n_runs} runs no tau can be significant at alpha = 0.01 "
                                                f"(it would need |tau| >= {crit:.2f})")
        ok = False
    else:
        ok = bool(sig.all())
        verdict = "agrees" if ok else "differs"
        detail = (f"{int(sig.sum())} of {len(sig)} pairs significant here (|tau| >= {crit:.3f} with {n_runs} runs; "
                  f"{lowest})")
    return {"name": "significance", "agrees": ok, "verdict": verdict, "detail": detail,
            "claim": f"every tau above {SIGNIFICANT_TAU} (significant at alpha = 0.01 with 30 runs)",
            "text": f"{verdict}: {detail}"}


def _lowest_tau(default: np.ndarray, variants: Mapping[str, np.ndarray], resamples: int, seed: int):
    """The lowest tau between ``default``'s ranking and any variant's, on the data and on every topic sample
    (the same samples for every metric: :func:`topic_samples` with ``seed``), and the setting it comes from."""
    mats = {"\0default": np.asarray(default, dtype=np.float64),
            **{k: np.asarray(v, dtype=np.float64) for k, v in variants.items()}}
    pairs = [("\0default", k) for k in variants]
    point, draws = _tau_draws(mats, pairs, resamples, seed)
    # a sample's lowest over the taus it defines (NaN where none is defined), without numpy's All-NaN warning
    low = np.where(np.isnan(draws), np.inf, draws).min(axis=1)
    low[~np.isfinite(low)] = np.nan
    if not np.isfinite(point).any():
        return float("nan"), low, list(variants)[0]
    k = int(np.nanargmin(point))
    return float(point[k]), low, list(variants)[k]


def table5_findings(default: Mapping[str, np.ndarray], variants: Mapping[str, Mapping[str, np.ndarray]], *,
                    resamples: int = 200, seed: int = 0, label=str, paper: str = "003") -> list[dict]:
    """003 Sec. 5.5's two observations on Table 5, checked on this data, as :func:`table2_findings`' dicts.

    ``default``: ``{metric: (n_runs, n_topics) scores under the default gains}`` for P+-measure, P-measure and
    O-measure (those present); ``variants``: ``{metric: {setting label: scores under that setting}}``. For each
    metric the *lowest* tau between its default ranking and a variant's (003's Table 5 row minimum) stands for
    how robust it is; on every topic sample (``resamples``, :func:`topic_samples`) the same minimum is taken
    again. The two observations:

    1. **robust**: "the system rankings according to P(+)-measure and O-measure are relatively robust to the
       choice of gain values" - each metric's lowest tau against the range of that metric's row minimum over
       003's four data sets (:data:`TABLE5`), by :func:`agreement` with the topic interval (2.5-97.5 % of the
       samples' minima), a tau above that range counting as agreeing (more robust still); it agrees when every
       metric agrees (within the uncertainty), and differs when one metric's lowest tau is below 003's range
       even on other topic sets.
    2. **O less robust**: "O-measure may be less robust than P(+)-measure" - O-measure's lowest tau strictly
       below both P+-measure's and P-measure's (so in each of 003's four data sets); the share of topic samples
       where it holds is its uncertainty. It agrees when it holds on the data.

    With ``resamples=0`` no interval is computed. A metric without variants (every setting maps onto the default's
    values, e.g. one relevance level) cannot be checked.

    >>> rng = np.random.default_rng(1)
    >>> base = rng.random((12, 1)) + rng.random((12, 40)) * 0.2
    >>> noisy = lambda s: base + rng.random((12, 40)) * s
    >>> f = table5_findings({m: base for m in ("P+-measure", "P-measure", "O-measure")},
    ...                     {"P+-measure": {"x": noisy(0.01)}, "P-measure": {"x": noisy(0.01)},
    ...                      "O-measure": {"x": noisy(0.4)}}, resamples=50)
    >>> [d["verdict"] for d in f]
    ['agrees', 'agrees']
    """
    fams = [m for m in ("P+-measure", "P-measure", "O-measure") if m in default and variants.get(m)]
    if not fams:
        return [{"name": name, "agrees": False, "verdict": "cannot be checked",
                 "detail": "no other gain setting gives other values here", "claim": words,
                 "text": "cannot be checked: no other gain setting gives other values here"}
                for name, words in (("robust", _T5_ROBUST), ("o_less_robust", _T5_O_LESS))]
    n = max(int(resamples), 1)
    low = {m: _lowest_tau(default[m], variants[m], n, seed) for m in fams}
    out = [_t5_robust(low, fams, resamples, label, paper), _t5_o_less(low, fams, resamples, label, paper)]
    return out


_T5_ROBUST = "the rankings of P(+)-measure and O-measure are relatively robust to the choice of gain values"
_T5_O_LESS = "O-measure may be less robust than P(+)-measure"


def _t5_robust(low, fams, resamples, label, paper) -> dict:
    parts, ok = [], True
    if not any(math.isfinite(low[m][0]) for m in fams):
        detail = "tau is undefined for every metric here (a ranking ties every run)"
        return {"name": "robust", "agrees": False, "verdict": "cannot be checked", "detail": detail,
                "claim": _T5_ROBUST, "text": f"cannot be checked: {detail}"}
    for m in fams:
        tau, draws, setting = low[m]
        row_min = [min(TABLE5[d][m]) for d in DATA_SETS]
        lo, hi = percentile_interval(draws[~np.isnan(draws)]) if resamples else (float("nan"), float("nan"))
        if tau > max(row_min):           # more robust than 003 saw: robust all the same
            rng = f"{paper_number(min(row_min))}-{paper_number(max(row_min))}"
            ag: dict[str, Any] = {"agrees": True, "words": f"agrees: above {paper}'s range ({rng}), more robust "
                                                           f"than on any of {paper}'s data sets"}
        else:
            ag = agreement(tau, lo, hi, min(row_min), max(row_min), paper=paper)
        ok = ok and bool(ag["agrees"] or not math.isfinite(tau))     # an undefined tau is named, not counted
        parts.append(f"{label(m)} {tau:.3f} (against {setting}): {ag['words']}")
    allmin = [min(TABLE5[d][m]) for d in DATA_SETS for m in TABLE5[d]]
    claim = f"{_T5_ROBUST} ({paper}: lowest taus {paper_number(min(allmin))}-{paper_number(max(allmin))})"
    verdict = "agrees" if ok else "differs"
    detail = "lowest tau against the default gains: " + "; ".join(parts)
    return {"name": "robust", "agrees": ok, "verdict": verdict, "detail": detail, "claim": claim,
            "text": f"{verdict}: {detail}"}


def _t5_o_less(low, fams, resamples, label, paper) -> dict:
    others = [m for m in fams if m != "O-measure"]
    if "O-measure" not in fams or not others:
        return {"name": "o_less_robust", "agrees": False, "verdict": "cannot be checked",
                "detail": "O-measure and P(+)-measure are not both here", "claim": _T5_O_LESS,
                "text": "cannot be checked: O-measure and P(+)-measure are not both here"}
    o = low["O-measure"][0]
    if not all(math.isfinite(low[m][0]) for m in ("O-measure", *others)):
        detail = "a lowest tau is undefined here (a ranking ties every run)"
        return {"name": "o_less_robust", "agrees": False, "verdict": "cannot be checked", "detail": detail,
                "claim": _T5_O_LESS, "text": f"cannot be checked: {detail}"}
    holds = bool(all(o < low[m][0] for m in others))
    rel = ", ".join(f"{'below' if o < low[m][0] else 'equal to' if o == low[m][0] else 'above'} "
                    f"{label(m)}'s {low[m][0]:.3f}" for m in others)
    detail = f"O-measure's lowest tau {o:.3f} is {rel}"
    if resamples:
        od = low["O-measure"][1]
        ok = np.all([od < low[m][1] for m in others], axis=0)
        detail += f"; it is the lowest in {float(np.mean(ok)):.0%} of {resamples} topic samples"
    verdict = "agrees" if holds else "differs"
    return {"name": "o_less_robust", "agrees": holds, "verdict": verdict, "detail": detail,
            "claim": f"{_T5_O_LESS} ({paper}: O-measure's lowest tau below both in all four data sets)",
            "text": f"{verdict}: {detail}"}
