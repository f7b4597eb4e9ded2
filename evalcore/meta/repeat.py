"""Monte Carlo repetitions of the resampling methods: mean, sd and range of every summary figure.

A swap, bootstrap, stability or Tukey result is one draw of a Monte Carlo
experiment: on clef2015 AP's swap "% comparisons" moves from 21.9 % to 30.3 %
between seeds. :func:`repeat` runs a method ``repeats`` times with derived
seeds and reports, for every summary figure, the mean, the standard
deviation and the min-max over repetitions; :func:`order_share` gives the
share of repetitions in which an order claim such as "P+ >= O >= NWRR >= RR"
held. Each repetition is the ordinary vectorised single-run function (this
module only layers over them), so a repetition is bit-identical to calling
the method with its seed.

Seeds (deterministic for a given ``seed``): repetition 0 uses ``seed``
itself, so ``repeats=1`` is the plain call; repetition r >= 1 uses
``SeedSequence(seed, spawn_key=(r,))``'s first 32-bit word - independent
streams, reproducible from (seed, r) alone, and within 0..2^32 - 1
(:data:`evalcore._seeds.SEED_MAX`, read by :mod:`evalcore.settings`), the range of ``--seed`` and of the
settings file: a repetition's printed seed, given back as ``--seed`` (or
``seed=``) with the same settings, reruns that repetition exactly.
``seed=None`` draws fresh entropy once, reduced into the same range (not
reproducible by itself; the seeds used are recorded in the result).

Aggregation (per summary row, i.e. per metric and confidence / alpha /
fuzziness): ``mean`` and ``sd`` (sample standard deviation, ddof = 1; NaN
with one repetition) over the repetitions where the figure is defined (the
papers' "-", NaN, is left out), ``min``, ``max``, and ``n`` = how many
repetitions defined it.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._seeds import SEED_MAX
from ..workload import check_call
from . import reuse as _reuse
from ._common import Progress, ProgressFn, check_positive_int
from ._parallel import split_range
from ._workers import Plan, plan, pool_executor, worker_count
from .bootstrap import bootstrap_sensitivity
from .stability import stability
from .swap import sort_summary, swap_method
from .tukey import tukey_hsd

__all__ = ["repeat", "RepeatResult", "derive_seeds", "aggregate", "order_share", "METHODS"]

#: method -> (function, key columns of its summary, its figures)
METHODS: dict[str, tuple[Callable[..., Any], tuple[str, str], tuple[str, ...]]] = {
    "swap": (swap_method, ("metric", "confidence"), ("abs_diff", "max_performance", "relative", "pct_comparisons")),
    "bootstrap": (bootstrap_sensitivity, ("metric", "alpha"),
                  ("n_significant", "pct_significant", "estimated_diff", "estimated_diff_raw")),
    "stability": (stability, ("metric", "fuzziness"), ("error_rate", "prop_ties")),
    "tukey": (tukey_hsd, ("metric", "alpha"), ("n_significant", "pct_significant")),
}


def derive_seeds(seed: int | None, repeats: int) -> list[int]:
    """Seeds of ``repeats`` repetitions: ``seed`` first, then independent streams derived from it, each a
    whole number in 0..:data:`~evalcore._seeds.SEED_MAX` (what ``--seed`` takes).

    >>> derive_seeds(7, 3)[0], len(set(derive_seeds(7, 3))), derive_seeds(7, 3) == derive_seeds(7, 3)
    (7, 3, True)
    """
    repeats = check_positive_int(repeats, "repeats")
    if seed is None:
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)      # drawn by SeedSequence itself: always one int
        seed = entropy % (SEED_MAX + 1)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 or None; got {seed!r}")
    out = [int(seed)]
    for r in range(1, repeats):
        out.append(int(np.random.SeedSequence(int(seed), spawn_key=(r,)).generate_state(1, np.uint32)[0]))
    return out


def aggregate(per_repeat: pd.DataFrame, keys: Sequence[str], figures: Sequence[str]) -> pd.DataFrame:
    """Tidy spread table: one row per (keys..., figure) with mean, sd, min, max, n over repetitions.

    ``per_repeat`` holds one summary row per repetition and key (column
    ``repeat``). NaN values (undefined figures) are left out of every
    statistic; ``n`` counts the repetitions that defined the figure. Rows keep
    the order of the first repetition's summary.

    >>> df = pd.DataFrame({"repeat": [0, 1, 2], "metric": "M", "x": [1.0, 2.0, 4.0]})
    >>> aggregate(df, ["metric"], ["x"]).round(4).values.tolist()
    [['M', 'x', 2.3333, 1.5275, 1.0, 4.0, 3]]
    """
    keys = list(keys)
    first = per_repeat[per_repeat["repeat"] == per_repeat["repeat"].iloc[0]][keys].drop_duplicates()
    rows = []
    groups = {(k if isinstance(k, tuple) else (k,)): g
              for k, g in per_repeat.groupby(keys, sort=False, dropna=False)}
    for key_vals in first.itertuples(index=False, name=None):
        g = groups[tuple(key_vals)]
        for f in figures:
            v = g[f].to_numpy(dtype=np.float64)
            v = v[~np.isnan(v)]
            n = int(v.size)
            rows.append({**dict(zip(keys, key_vals, strict=True)), "figure": f,
                         "mean": float(v.mean()) if n else np.nan,
                         "sd": float(v.std(ddof=1)) if n > 1 else np.nan,
                         "min": float(v.min()) if n else np.nan, "max": float(v.max()) if n else np.nan,
                         "n": n})
    return pd.DataFrame(rows, columns=keys + ["figure", "mean", "sd", "min", "max", "n"])


@dataclass(frozen=True)
class RepeatResult:
    """Result of :func:`repeat`.

    Attributes
    ----------
    method : "swap" | "bootstrap" | "stability" | "tukey"
    spread : DataFrame, one row per (summary keys, figure): ``mean``, ``sd``, ``min``, ``max``, ``n``
        (see :func:`aggregate`); keys are (metric, confidence) for swap,
        (metric, alpha) for bootstrap and tukey, (metric, fuzziness) for stability
    per_repeat : DataFrame, every repetition's summary with columns ``repeat`` and ``seed`` first
    first : the full result of repetition 0 (curves, pairs, ...), identical to the plain call with ``seed``
    seeds : the seed of every repetition
    keys, figures : the summary key columns and the aggregated figures
    """
    method: str
    spread: pd.DataFrame
    per_repeat: pd.DataFrame
    first: Any = field(repr=False)
    seeds: tuple = ()
    keys: tuple = ()
    figures: tuple = ()

    @property
    def repeats(self) -> int:
        return len(self.seeds)

    def table(self, figure: str, **where) -> pd.DataFrame:
        """The spread of one figure, indexed by metric, rows filtered by ``where`` (e.g. confidence=0.95)."""
        d = self.spread[self.spread["figure"] == figure]
        for k, v in where.items():
            d = d[np.isclose(d[k], v)] if isinstance(v, float) else d[d[k] == v]
        return d.set_index("metric")[["mean", "sd", "min", "max", "n"]]

    def order_share(self, names: Sequence[str], figure: str, **where) -> dict:
        """:func:`order_share` on this result's repetitions."""
        return order_share(self.per_repeat, names, figure, **where)


def order_share(per_repeat: pd.DataFrame, names: Sequence[str], figure: str, **where) -> dict:
    """Share of repetitions in which the order claim ``names[0] >= names[1] >= ...`` held for ``figure``.

    Returns ``{"claim": "A >= B >= C", "share": s, "steps": {"A >= B": s1, "B >= C": s2}, "repeats": n}``;
    ``share`` counts repetitions where every step held. A repetition in which
    a figure is undefined (NaN) counts as the claim not holding.
    ``where`` filters summary rows (e.g. ``confidence=0.95``, ``alpha=0.05``).

    >>> df = pd.DataFrame({"repeat": [0, 0, 1, 1], "metric": ["A", "B"] * 2, "x": [2.0, 1.0, 1.0, 1.5]})
    >>> order_share(df, ["A", "B"], "x")["share"]
    0.5
    """
    d = per_repeat
    for k, v in where.items():
        d = d[np.isclose(d[k], v)] if isinstance(v, float) else d[d[k] == v]
    names = list(names)
    if len(names) < 2:
        raise ValueError(f"an order claim needs at least 2 metrics; got {names}")
    missing = [n for n in names if n not in set(d["metric"])]
    if missing:
        raise ValueError(f"order claim names metrics not in the result: {', '.join(missing)} "
                         f"(it has: {', '.join(dict.fromkeys(d['metric']))})")
    wide = d.pivot_table(index="repeat", columns="metric", values=figure, aggfunc="first", dropna=False)
    wide = wide.reindex(columns=names)
    vals = wide.to_numpy(dtype=np.float64)
    steps = {}
    allok = np.ones(vals.shape[0], dtype=bool)
    for i in range(len(names) - 1):
        ok = vals[:, i] >= vals[:, i + 1]           # NaN compares False: the claim does not hold
        steps[f"{names[i]} >= {names[i + 1]}"] = float(ok.mean())
        allok &= ok
    return {"claim": " >= ".join(names), "share": float(allok.mean()), "steps": steps, "repeats": int(vals.shape[0])}


def repeat(method: str, scores: Mapping[str, np.ndarray], *, repeats: int = 1, seed: int | None = 0,
           progress: ProgressFn | None = None, on_dask: bool = False, reuse=None, **kwargs) -> RepeatResult:
    """Run ``method`` ("swap", "bootstrap", "stability" or "tukey") ``repeats`` times with derived seeds.

    ``kwargs`` go to the method unchanged (B, alpha, sampling, workers, threads, ...; not
    ``samples``/``permutations``, which would make every repetition equal).
    ``progress`` gets the fraction of all repetitions done; returning True
    cancels (raises :class:`~evalcore.meta.Cancelled`).

    ``on_dask=True`` runs each repetition with :mod:`evalcore.meta.on_dask`'s function of the method
    (Dask tasks; the same tables for the same seed): ``kwargs`` may then hold its ``scheduler``,
    ``pairs_per_task`` and ``to_parquet`` (one repetition only: a directory holds one result) but not
    ``threads`` (the Dask workers' threads run the tasks); ``progress`` is then called once per
    repetition (the tasks report none).

    Worker processes: when one call stays below the method's crossover (it would run on threads,
    :func:`~evalcore.meta._workers.plan`) but the repetitions together reach it, counted over every metric
    (work x metrics / 2: the crossover was measured on calls of two metrics), the repetitions run as tasks
    on the worker processes, each on one worker (``workers=`` or ``$EVALCORE_WORKERS``; not with ``threads=``,
    ``on_dask`` or ``reuse``, nor outside the main thread); the tables are the same bit for bit.

    ``reuse``: a store of finished summary rows (:mod:`evalcore.meta.reuse`: anything with ``lookup`` and
    ``put``, such as :class:`evalcore._cache.BytesLRU`). Each repetition then takes the rows kept for its
    seed, every metric's scores and these settings, computes the metrics not found in one call, and keeps
    their rows; the tables are those of the call without ``reuse``. ``first`` is then None when a
    metric of repetition 0 came from the store.

    >>> rng = np.random.default_rng(0)
    >>> r = repeat("swap", {"M": rng.random((4, 10))}, repeats=3, B=50, seed=1)
    >>> r.repeats, list(r.spread.columns)
    (3, ['metric', 'confidence', 'figure', 'mean', 'sd', 'min', 'max', 'n'])
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    for fixed in ("samples", "permutations"):
        if kwargs.get(fixed) is not None:
            raise ValueError(f"{fixed}= fixes the random draw, so repetitions would be identical; "
                             "give a seed instead")
    func, keys, figures = METHODS[method]
    # every repetition sized together, before the first runs (docs/reliability.md, "Work products")
    check_repeated(method, scores, repeats, kwargs)
    if on_dask:
        func = _dask_function(method, repeats, kwargs)
    seeds = derive_seeds(seed, repeats)
    outer = Progress(progress, len(seeds))
    frames, first = [], None
    pool = None if on_dask or reuse is not None else repetitions_plan(method, scores, repeats, kwargs)
    if pool is not None:                 # every repetition a task on the worker processes
        results = on_workers(func, scores, [(None, s) for s in seeds], kwargs, pool, outer)
        first = results[0][0]
        frames = [summary.assign(repeat=r, seed=s) for r, (s, (_, summary)) in enumerate(zip(seeds, results,
                                                                                              strict=True))]
    run = _Repetition(method, func, scores, kwargs, on_dask, reuse)
    for r, s in enumerate(seeds if pool is None else ()):
        inner = None
        if progress is not None:
            def inner(f, r=r):
                return progress((r + float(f)) / len(seeds))
        res, summary = run(s, inner)
        if r == 0:
            first = res
        frames.append(summary.assign(repeat=r, seed=s))
        outer.done = r + 1
        if on_dask or res is None:
            outer.report((r + 1) / len(seeds))
    per = pd.concat(frames, ignore_index=True)
    per = per[["repeat", "seed"] + [c for c in per.columns if c not in ("repeat", "seed")]]
    spread = aggregate(per, keys, figures)
    return RepeatResult(method=method, spread=spread, per_repeat=per, first=first, seeds=tuple(seeds),
                        keys=keys, figures=figures)


def _call_work(method: str, scores: Mapping, kwargs: Mapping) -> int:
    """One call's work in :data:`~evalcore.meta._workers.PROCESS_WORK`'s unit, as the method plans it: run
    pairs x B (trials x runs x topics for Tukey)."""
    func = METHODS[method][0]
    B = int(kwargs.get("B", inspect.signature(func).parameters["B"].default))
    shape = np.shape(next(iter(scores.values())))
    n_runs, n_topics = (int(shape[0]), int(shape[1])) if len(shape) == 2 else (0, 0)
    return B * n_runs * n_topics if method == "tukey" else B * (n_runs * (n_runs - 1) // 2)


def repetitions_plan(method: str, scores: Mapping, repeats: int, kwargs: Mapping) -> Plan | None:
    """Worker processes for the repetitions themselves, one repetition per task, when one call stays below
    the method's crossover (it would run on threads) but all the repetitions together reach it, their work
    counted over every metric (the crossover was measured on calls of two metrics: work x metrics / 2);
    else None (each call plans its own chunks, :func:`~evalcore.meta._workers.plan`). ``threads=``, one
    worker, a call outside the main thread or ``process_work`` keep the calls as they are.
    """
    if repeats < 2 or kwargs.get("threads") is not None or not isinstance(scores, Mapping) or not scores:
        return None
    workers, limit = kwargs.get("workers"), kwargs.get("process_work")
    try:
        unit = _call_work(method, scores, kwargs)
        one = plan(method, unit, workers=workers, process_work=limit)
        every = plan(method, unit * max(1, len(scores)) * repeats // 2, workers=workers, process_work=limit)
    except (TypeError, ValueError):
        return None                     # the method's own checks name a bad value
    if one.processes or not every.processes:
        return None
    return Plan("processes", min(every.count, repeats))


def _batch(func, mats: Mapping, jobs: Sequence, kwargs: Mapping, keep: bool) -> list:
    """Jobs of one task in a worker process: each ``(topics, seed)`` is a call of the method on one worker
    (its chunks in the worker's thread) on ``mats``, or on the topic sample ``topics`` of it;
    ``(result or None, summary)`` for each (the result only with ``keep``)."""
    out = []
    for topics, seed in jobs:
        sample = mats if topics is None else {k: v[:, topics] for k, v in mats.items()}
        res = func(sample, seed=seed, workers=1, **kwargs)
        out.append((res if keep else None, res.summary))
    return out


def on_workers(func, mats: Mapping, jobs: Sequence, kwargs: Mapping, pool: Plan, outer: Progress, *,
                keep: bool = True) -> list:
    """``jobs`` (``(topics, seed)``: :func:`_batch`) as tasks on the pool of worker processes
    (:func:`~evalcore.meta._workers.pool_executor`): one job a task up to 20 jobs, else consecutive jobs
    grouped into at least 4 tasks a worker and 20 in all (a progress step every 5 %). Results in the jobs'
    order; ``outer`` steps once a job and a cancel stops the tasks not started."""
    from concurrent.futures import FIRST_COMPLETED, wait

    rest = {k: v for k, v in kwargs.items() if k not in ("workers", "threads", "process_work")}
    ex = pool_executor(pool.count)
    parts = split_range(len(jobs), max(4 * pool.count, 20))
    futures = {ex.submit(_batch, func, dict(mats), jobs[a:b], rest, keep): (a, b) for a, b in parts}
    results: list = [None] * len(jobs)
    todo = set(futures)
    outer.report(0.0)
    try:
        while todo:
            done, todo = wait(todo, return_when=FIRST_COMPLETED)
            for f in done:
                a, b = futures[f]
                results[a:b] = f.result()
                outer.step(b - a)
    finally:
        for f in todo:
            f.cancel()
    return results


def check_repeated(method: str, scores, repeats, kwargs: Mapping) -> None:
    """:func:`evalcore.workload.check_call` of ``repeats`` calls of ``method`` with ``kwargs`` (B defaults
    to the method's own default)."""
    func = METHODS[method][0]
    B = kwargs.get("B", inspect.signature(func).parameters["B"].default)
    threads, workers = kwargs.get("threads"), kwargs.get("workers")
    if any(v is not None and not isinstance(v, (int, np.integer)) for v in (threads, workers)):
        return                                   # the method's own check names it
    extra: dict[str, Any] = {k: kwargs.get(k) for k in ("subset_size", "sampling", "replacement", "fuzziness")}
    check_call(method, scores, B=B, repeats=repeats,
               threads=1 if kwargs.get("scheduler") is not None else worker_count(
                   None if workers is None else int(workers), None if threads is None else int(threads))[0],
               **extra)


class _Repetition:
    """One repetition of a method for a seed: ``(result, summary)``. With a ``reuse`` store the rows kept
    are taken and only the metrics not found are computed; ``result`` is then None unless every metric
    was computed."""

    def __init__(self, method, func, scores, kwargs, on_dask, reuse):
        self.method, self.func, self.scores, self.kwargs, self.on_dask, self.reuse = (method, func, scores, kwargs,
                                                                                      on_dask, reuse)
        if reuse is not None:
            self.levels, self.settings = _reuse.method_settings(method, kwargs)
            order_free = method in _reuse.ORDER_FREE
            self.digests = {m: _reuse.digest(v, order_free) for m, v in scores.items()}

    def _call(self, scores, seed, inner):
        if self.on_dask:
            return self.func(scores, seed=seed, **self.kwargs)
        return self.func(scores, seed=seed, progress=inner, **self.kwargs)

    def __call__(self, seed, inner):
        if self.reuse is None:
            res = self._call(self.scores, seed, inner)
            return res, res.summary
        rows = _reuse.take_rows(self.reuse, self.method, self.scores, self.digests, seed, self.levels,
                                self.settings)
        todo = {m: v for m, v in self.scores.items() if m not in rows}
        if todo:
            res = self._call(todo, seed, inner)
            _reuse.keep_rows(self.reuse, self.method, todo, res.summary, self.kwargs, seed=seed,
                             digests=self.digests)
            if len(todo) == len(self.scores):
                return res, res.summary
            col = _reuse.LEVEL_COLUMN[self.method]
            for m in todo:
                part = res.summary[res.summary["metric"] == m]
                rows[m] = [part[part[col] == lv] for lv in self.levels]
        summary = pd.concat([r for m in self.scores for r in rows[m]], ignore_index=True)
        if self.method == "swap":       # ordered as swap_method orders its summary
            summary = sort_summary(summary, self.levels)
        return None, summary


def _dask_function(method: str, repeats: int, kwargs: dict) -> Callable[..., Any]:
    """:mod:`evalcore.meta.on_dask`'s function of ``method``, after checking ``kwargs`` for it (edited in
    place: a ``threads=None`` is dropped)."""
    from . import on_dask

    for name in ("threads", "workers", "process_work"):
        if kwargs.pop(name, None) is not None:
            raise ValueError(f"{name}= sets the in-memory path's threads or worker processes; with on_dask=True "
                             "the Dask workers run the tasks (dask_client(workers=N) for N worker processes)")
    if kwargs.get("to_parquet") is not None and repeats != 1:
        raise ValueError(f"to_parquet= writes one result's pairs; repeats={repeats} would write {repeats}: run "
                         "each seed on its own (RepeatResult.seeds lists them)")
    if kwargs.get("to_parquet") is not None and method == "swap":
        raise ValueError("to_parquet= writes per-pair tables; the swap method has none (its summary and curves "
                         "are computed from bin counts)")
    functions: dict[str, Callable[..., Any]] = {"swap": on_dask.swap_method, "bootstrap": on_dask.bootstrap_sensitivity,
                                                "stability": on_dask.stability, "tukey": on_dask.tukey_hsd}
    return functions[method]
