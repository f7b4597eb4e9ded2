r"""Uncertainty from the topics: a topic bootstrap around discriminative-power figures.

The spread over seeds (:mod:`evalcore.meta.repeat`) is Monte Carlo error: topics and runs stay
fixed, so it says how precisely a figure was computed, not how far it would move on another topic
set. Here the topic set itself is resampled: each of ``resamples`` topic samples draws n topics with
replacement from the n topics (Efron and Tibshirani 1993, Ch. 6; the resampling unit is the topic, as
in Sakai 2007 Sec. 4), and a resampling method (swap, bootstrap sensitivity, Tukey, stability) is run
on it. The sd of a figure over topic samples estimates its standard error due to topic sampling (it
also contains the method's own Monte Carlo error at the B used, which the seed spread measures);
the 2.5 and 97.5 percentiles are a percentile interval, taken on observed values (:func:`percentile_interval`):
the figures are shares (of P pairs, of the comparisons), and an interpolated end such as 54.8 % is no
share of 10 pairs.

Order claims between metrics ("P+ > O > NWRR > RR") are checked *strictly* on every topic sample:
each step is counted as holds (a > b), tie (a == b, as counts of pairs often are) or fails (a < b);
the claim holds on a sample only if every step holds. :func:`claim_shares` gives the shares.

Seeds: topic sample r draws its topics and its method seed from
``SeedSequence(seed, spawn_key=(1, r))``, so the result is reproducible from ``seed`` alone and
its streams differ from :func:`~evalcore.meta.repeat`'s (``spawn_key=(r,)``) even for the same seed.
The topics come from the sequence's first 64-bit word, the method seed is its third 32-bit word (within
0..2^32 - 1, the range of ``--seed``, as every seed evalcore derives).

>>> rng = np.random.default_rng(0)
>>> S = {"A": rng.random((4, 12)), "B": rng.random((4, 12)) * 0.2}
>>> tb = topic_bootstrap(S, "bootstrap", resamples=5, seed=1, B=50, alpha=0.05)
>>> tb.resamples, sorted(tb.per_resample["metric"].unique())
(5, ['A', 'B'])
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._common import Progress, ProgressFn, check_positive_int
from .repeat import METHODS, check_repeated, on_workers, repetitions_plan

__all__ = ["topic_bootstrap", "TopicBootstrapResult", "claim_shares", "step_relation", "percentile_interval"]

_TIE_RTOL = 1e-12       # figures from equal counts are equal up to rounding: "tie"


def percentile_interval(v, lo: float = 2.5, hi: float = 97.5) -> tuple[float, float]:
    """The ``lo`` and ``hi`` percentiles of ``v`` on observed values: the order statistics just outside
    numpy's linear positions (``method="lower"`` for ``lo``, ``"higher"`` for ``hi``), so every end is a value
    that occurred - a share k/n of n pairs stays a share k/n - and the interval is never narrower than the
    interpolated one. NaN for an empty ``v``.

    >>> v = [60.0, 70.0, 70.0, 80.0, 90.0]               # % of 10 pairs
    >>> percentile_interval(v), tuple(float(x) for x in np.percentile(v, [2.5, 97.5]))
    ((60.0, 90.0), (61.0, 89.0))
    """
    v = np.asarray(v, dtype=np.float64)
    if v.size == 0:
        return float("nan"), float("nan")
    return float(np.percentile(v, lo, method="lower")), float(np.percentile(v, hi, method="higher"))


def step_relation(a, b) -> np.ndarray:
    """+1 where a > b, 0 where a == b (up to 1e-12 relative), -1 where a < b; NaN on either side is -1
    (an undefined figure does not support a claim)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    tie = np.isclose(a, b, rtol=_TIE_RTOL, atol=1e-12)
    out = np.where(tie, 0, np.where(a > b, 1, -1))
    return np.where(np.isnan(a) | np.isnan(b), -1, out)


def claim_shares(wide: pd.DataFrame, steps: Sequence[tuple[str, str]]) -> dict:
    """Strict check of a claim made of steps (a, b) meaning "a > b", on every row of ``wide``
    (rows: topic samples or seeds; columns: metrics).

    Returns ``{"holds": share of rows where every step is strict, "steps": {"a > b": {"holds": s,
    "tie": t, "fails": f}}, "n": rows}``.

    >>> w = pd.DataFrame({"A": [2.0, 1.0, 1.0], "B": [1.0, 1.0, 2.0]})
    >>> claim_shares(w, [("A", "B")])["steps"]["A > B"]
    {'holds': 0.3333333333333333, 'tie': 0.3333333333333333, 'fails': 0.3333333333333333}
    """
    n = len(wide)
    allok = np.ones(n, dtype=bool)
    out = {}
    for a, b in steps:
        rel = step_relation(wide[a].to_numpy(), wide[b].to_numpy())
        out[f"{a} > {b}"] = {"holds": float(np.mean(rel == 1)) if n else float("nan"),
                             "tie": float(np.mean(rel == 0)) if n else float("nan"),
                             "fails": float(np.mean(rel == -1)) if n else float("nan")}
        allok &= rel == 1
    return {"holds": float(allok.mean()) if n else float("nan"), "steps": out, "n": n}


@dataclass(frozen=True)
class TopicBootstrapResult:
    """Result of :func:`topic_bootstrap`.

    ``per_resample``: the method's summary on every topic sample (columns ``resample``, ``seed`` first);
    ``method``, ``keys`` (summary key columns), ``figures``, ``seed``, ``resamples``.
    """
    method: str
    per_resample: pd.DataFrame
    keys: tuple
    figures: tuple
    seed: int
    resamples: int

    def wide(self, figure: str, **where) -> pd.DataFrame:
        """Rows: topic samples; columns: metrics; values: ``figure`` (rows filtered by ``where``)."""
        d = self.per_resample
        for k, v in where.items():
            d = d[np.isclose(d[k], v)] if isinstance(v, float) else d[d[k] == v]
        w = d.pivot_table(index="resample", columns="metric", values=figure, aggfunc="first", dropna=False)
        return w.reindex(columns=list(dict.fromkeys(d["metric"])))

    def spread(self, figure: str, **where) -> pd.DataFrame:
        """Per metric: ``mean``, ``sd`` (over topic samples, ddof 1), ``lo``/``hi`` (2.5 / 97.5 percentiles on
        observed values, :func:`percentile_interval`), ``n`` (samples where the figure is defined)."""
        return _describe(self.wide(figure, **where))

    def differences(self, figure: str, pairs: Sequence[tuple[str, str]] | None = None, **where) -> pd.DataFrame:
        """Per metric pair (a, b), the difference a - b over topic samples: ``mean``, ``sd``, ``lo``, ``hi``
        and the shares of all topic samples ``a_higher``, ``tie``, ``b_higher`` (strict) and ``undefined``
        (a figure NaN, e.g. no swap bin qualifies); they add up to 1. Default: every pair, in column order."""
        w = self.wide(figure, **where)
        cols = list(w.columns)
        pairs = pairs or [(a, b) for i, a in enumerate(cols) for b in cols[i + 1:]]
        rows = []
        for a, b in pairs:
            d = (w[a] - w[b]).to_numpy(dtype=np.float64)
            rel = step_relation(w[a].to_numpy(), w[b].to_numpy())
            ok = d[~np.isnan(d)]
            lo, hi = percentile_interval(ok)
            rows.append({"a": a, "b": b, "mean": float(ok.mean()) if ok.size else np.nan,
                         "sd": float(ok.std(ddof=1)) if ok.size > 1 else np.nan, "lo": lo, "hi": hi,
                         "a_higher": float(np.mean(rel == 1)), "tie": float(np.mean(rel == 0)),
                         "b_higher": float(np.mean((rel == -1) & ~np.isnan(d))),
                         "undefined": float(np.mean(np.isnan(d))), "n": int(ok.size)})
        return pd.DataFrame(rows)

    def claim(self, steps: Sequence[tuple[str, str]], figure: str, **where) -> dict:
        """:func:`claim_shares` over the topic samples."""
        return claim_shares(self.wide(figure, **where), steps)


def _describe(w: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for m in w.columns:
        v = w[m].to_numpy(dtype=np.float64)
        v = v[~np.isnan(v)]
        lo, hi = percentile_interval(v)
        rows.append({"metric": m, "mean": float(v.mean()) if v.size else np.nan,
                     "sd": float(v.std(ddof=1)) if v.size > 1 else np.nan, "lo": lo, "hi": hi, "n": int(v.size)})
    return pd.DataFrame(rows).set_index("metric")


def topic_samples(n_topics: int, resamples: int, seed: int):
    """Yield (r, topic indices, method seed) for every topic sample (module docstring)."""
    for r in range(resamples):
        ss = np.random.SeedSequence(int(seed), spawn_key=(1, r))
        draw = ss.generate_state(1, np.uint64)[0]
        method_seed = ss.generate_state(3, np.uint32)[2]     # the 32 bits after draw's 64: within --seed's range
        rng = np.random.default_rng(int(draw))
        yield r, rng.integers(0, n_topics, size=n_topics), int(method_seed)


def topic_bootstrap(scores: Mapping[str, np.ndarray], method: str = "bootstrap", *, resamples: int = 100,
                    seed: int = 0, progress: ProgressFn | None = None, **kwargs) -> TopicBootstrapResult:
    """Run ``method`` ("swap", "bootstrap", "stability" or "tukey") on ``resamples`` topic samples.

    ``scores``: ``{metric: (n_runs, n_topics) array}``, every matrix resampled with the same topics.
    ``kwargs`` go to the method (B, alpha, run_ids, workers, ...). ``progress`` gets the fraction done;
    returning True cancels. Where one call stays below the method's crossover to worker processes but the
    samples together reach it (:func:`evalcore.meta.repeat`'s rule), the samples run as tasks on the worker
    processes, each call on one worker: the same tables.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    resamples = check_positive_int(resamples, "resamples")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed (of the topic samples) must be a whole number >= 0; got {seed!r}")
    mats = {k: np.asarray(v, dtype=np.float64) for k, v in scores.items()}
    if not mats:
        raise ValueError("scores must hold at least one metric")
    T = next(iter(mats.values())).shape[1]
    if T < 2:
        raise ValueError(f"a topic bootstrap needs at least 2 topics; got {T}")
    # every topic sample's call sized together (docs/reliability.md, "Work products")
    check_repeated(method, mats, resamples, kwargs)
    func, keys, figures = METHODS[method]
    p = Progress(progress, resamples)
    frames = []
    pool = repetitions_plan(method, mats, resamples, kwargs)
    if pool is not None:            # the samples as tasks on the worker processes, the same tables
        jobs = [(idx, s) for _, idx, s in topic_samples(T, resamples, seed)]
        done = on_workers(func, mats, jobs, kwargs, pool, p, keep=False)
        frames = [summary.assign(resample=r, seed=s) for r, ((_, s), (_, summary)) in enumerate(zip(jobs, done,
                                                                                                 strict=True))]
    for r, idx, s in (topic_samples(T, resamples, seed) if pool is None else ()):
        res = func({k: v[:, idx] for k, v in mats.items()}, seed=s, **kwargs)
        frames.append(res.summary.assign(resample=r, seed=s))
        p.step()
    per = pd.concat(frames, ignore_index=True)
    per = per[["resample", "seed"] + [c for c in per.columns if c not in ("resample", "seed")]]
    return TopicBootstrapResult(method=method, per_resample=per, keys=keys, figures=figures, seed=int(seed),
                                resamples=resamples)
