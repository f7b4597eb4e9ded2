"""Finished meta-evaluation results, shared by every session: looked up, computed (outside any
``st.cache_*``, so progress may draw) and kept, one metric at a time where the kind allows.

Meta-evaluation is live, shared across sessions and never draws into a cached function: the result store
(:func:`_results`) keeps the finished, immutable frames of every kind of :mod:`dashboard.meta_kinds`, and
the row store (:func:`_rows`) the summary rows the Report takes instead of computing them again. The
Report page's own build (``evalcore report``'s files) is kept in the result store too.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import nullcontext

import numpy as np
import pandas as pd

from evalcore import meta as _meta
from evalcore.collection import Collection
from evalcore.io import InputError
from evalcore.meta import reuse as _reuse
from evalcore.meta.swap import sort_summary as _sort_swap_summary

from . import compute, limits, scoring, stores
from .meta_kinds import META_KINDS, PER_METRIC_KINDS, ROW_KINDS, page_alpha, report_alphas
from .progress import Progress, cancellable, interrupt_point, queue_callbacks
from .state import Settings
from .stores import Store, shared

#: Bytes the shared result store may hold (memory bounded by bytes, not entries:
#: one entry for many runs can be far larger than one for a few; docs/reliability.md).
RESULTS_MAX_BYTES = stores.BUDGET.cache_bytes


_results = shared(lambda: Store(4096, RESULTS_MAX_BYTES))


#: Summary rows of the pages' swap, bootstrap, Tukey and stability results, by evalcore's row keys
#: (evalcore.meta.reuse: method, the metric's scores, seed, level, settings): the Report takes from here
#: every row a page computed with the report's B and seed, and computes only the rest. A row is kept as plain
#: values (evalcore.meta.reuse.keep_rows, counted at about 1 KB), and the store is bounded by bytes
#: (``BUDGET.rows_bytes``, memory / 256 within [4, 64] MiB: from some 4,000 rows, a Bootstrap page's 8
#: metrics at 3 alphas over 1 + 5 seeds being 144 and a report reading about 300).
_rows = shared(lambda: Store(None, stores.BUDGET.rows_bytes))


def keep_rows(kind: str, sc: dict, res, B: int, params: dict) -> None:
    """Keep the summary rows of a page's result for the Report (:func:`_rows`)."""
    if kind not in ROW_KINDS:
        return
    method, extra = ROW_KINDS[kind]
    kw = {**{k: v for k, v in params.items() if k not in ("seed", "repeats")}, **extra, "B": int(B)}
    if method == "bootstrap":
        kw = report_alphas(kw)
    summary = res.per_repeat if kind.endswith("_spread") else res.summary
    _reuse.keep_rows(_rows(), method, sc, summary, kw, seed=params.get("seed"))


def meta_key(kind: str, c: Collection, s: Settings, params: dict, B: int) -> tuple:
    """Identity of one result: method, data + every setting the scores read, parameters, B."""
    return (kind, scoring.data_key(c, s), tuple(sorted(params.items())), int(B))


def _metric_meta_key(kind: str, c: Collection, s: Settings, key: str, params: dict, B: int) -> tuple:
    """Identity of one metric's part of a per-metric result: only the settings that metric reads."""
    return (kind, "metric", c.fingerprint, key, scoring.relevant(key, s), tuple(sorted(params.items())), int(B))


def meta_lookup(kind: str, c: Collection, s: Settings, params: dict, B: int):
    """A finished result ``{"frames": {...}, "seconds": float, "B": int}`` or None (never computes)."""
    hit = _results().get(meta_key(kind, c, s, params, B))
    if hit is not None or kind not in PER_METRIC_KINDS:
        return hit
    parts = _parts(kind, c, s, params, B)
    return None if parts is None else _assemble_and_keep(kind, c, s, params, B, parts)


def _parts(kind: str, c: Collection, s: Settings, params: dict, B: int, fresh: dict | None = None) -> list | None:
    """Every metric's part (``fresh`` first, then the store), or None if one is missing (never computed,
    or dropped by the store's bound since)."""
    store, out = _results(), []
    for k in s.metric_keys:
        p = (fresh or {}).get(k) or store.get(_metric_meta_key(kind, c, s, k, params, B))
        if p is None:
            return None
        out.append(p)
    return out


def meta_missing(kind: str, c: Collection, s: Settings, params: dict, B: int) -> list[str]:
    """The metric keys whose part of a result is not computed yet (for kinds outside
    :data:`PER_METRIC_KINDS`: all of them unless the whole result is)."""
    store = _results()
    if kind not in PER_METRIC_KINDS:
        return [] if store.get(meta_key(kind, c, s, params, B)) is not None else list(s.metric_keys)
    return [k for k in s.metric_keys if store.get(_metric_meta_key(kind, c, s, k, params, B)) is None]


#: CPU seconds per metric of the last computation of a kind on some data at some B (bounded), so that a
#: slider move whose full B is known to fit the interactive budget skips the quick pass.
_COSTS: dict = {}
_COSTS_MAX = 512
_COSTS_LOCK = threading.Lock()
_SHORT_LOCK = threading.Lock()


def _cost_key(kind: str, c: Collection, params: dict, B: int) -> tuple:
    # the seed and alpha do not change the cost; the sampling and the subset size do
    return (kind, c.fingerprint, tuple(sorted((k, v) for k, v in params.items() if k not in ("seed", "alpha"))),
            int(B))


def meta_known_cost(kind: str, c: Collection, s: Settings, params: dict, B: int) -> float | None:
    """CPU seconds the metrics still missing at ``B`` took last time on this data, or None if never measured."""
    per = _COSTS.get(_cost_key(kind, c, params, B)) if kind in PER_METRIC_KINDS else None
    return None if per is None else per * len(meta_missing(kind, c, s, params, B))


def meta_estimate(kind: str, c: Collection, s: Settings, params: dict, B: int, quick: dict) -> float:
    """CPU seconds the chosen ``B`` would take, scaled from a quick pass (``meta_compute`` at a smaller B):
    only the metrics still missing at ``B`` count."""
    per = quick.get("metric_seconds")
    if per is None:
        return quick["seconds"] * B / quick["B"]
    return sum(per.get(k, 0.0) for k in meta_missing(kind, c, s, params, B)) * B / quick["B"]


def _assemble(frames: list[dict[str, pd.DataFrame]]) -> dict[str, pd.DataFrame]:
    """A whole result's frames from the frames of one metric each (in the sidebar's metric order)."""
    out = {}
    for name in frames[0]:
        df = pd.concat([f[name] for f in frames], ignore_index=True)
        if name in ("summary", "spread") and "confidence" in df:
            confs = list(dict.fromkeys(frames[0][name]["confidence"]))
            if name == "summary":     # as swap_method sorts: by confidence, then % comparisons (iv) descending
                df = _sort_swap_summary(df, confs)
            else:                     # grouped by confidence, metrics in the sidebar's order
                rank = df["confidence"].map({c: i for i, c in enumerate(confs)}).to_numpy()
                df = df.iloc[np.argsort(rank, kind="stable")].reset_index(drop=True)
        out[name] = df
    return out


def _assemble_and_keep(kind: str, c: Collection, s: Settings, params: dict, B: int, parts: list) -> dict:
    store = _results()
    per = {k: p["seconds"] for k, p in zip(s.metric_keys, parts, strict=True)}
    out = {"frames": _assemble([p["frames"] for p in parts]), "seconds": sum(per.values()), "B": int(B),
           "metric_seconds": per}
    store.put(meta_key(kind, c, s, params, B), out)
    return out

def meta_compute(kind: str, c: Collection, s: Settings, params: dict, B: int,
                 progress: Callable[[float], object] | None = None) -> dict:
    """Run one resampling method (outside any st.cache_*), keep and return its result.

    ``progress`` is a plain callable given the fraction done; it may draw
    (it runs in the page's script, not inside a cached function). Kinds in
    :data:`PER_METRIC_KINDS` run for the metrics not kept yet, in one call.
    """
    key = meta_key(kind, c, s, params, B)
    hit = _results().get(key)
    if hit is not None:
        return hit
    limits.meta_check(kind, c, s, params, B)       # every page's computation, at the page's limit
    work = c.n_runs * (c.n_runs - 1) // 2 * int(B)
    with limits.running() as running:
        return _meta_compute(kind, c, s, params, B, progress, key, limits.threads_now(kind, running, work))


def _meta_compute(kind: str, c: Collection, s: Settings, params: dict, B: int, progress, key: tuple,
                  threads: int) -> dict:
    """:func:`meta_compute` on ``threads`` threads."""
    fn, _, parts = META_KINDS[kind]
    per_metric = kind in PER_METRIC_KINDS
    clock = limits.clock(threads)
    if not per_metric:
        t0 = clock()
        sc = scoring.scores(c, s)
        res = _stale_to_rerun(_runner(kind, fn, sc, params, B, progress), sc, list(c.run_ids), B=int(B),
                              progress=cancellable(progress), threads=threads, **params)
        keep_rows(kind, sc, res, B, params)
        out = {"frames": page_alpha(kind, _frames(res, parts), params), "seconds": _spent(res, clock, t0),
               "B": int(B)}
        _results().put(key, out)
        return out
    fresh: dict = {}
    while (got := _parts(kind, c, s, params, B, fresh)) is None:
        # the missing metrics (a part the store's bound dropped meanwhile is computed again)
        todo = [k for k in meta_missing(kind, c, s, params, B) if k not in fresh]
        sc = scoring.scores(c, s, todo)
        t0 = clock()
        # Short computations (the live charts' calls without a progress bar: quick passes, and a chosen
        # B within the interactive budget) run one session at a time. They are thousands of small numpy
        # calls, each releasing and retaking the GIL; with a class computing at once, every call waited
        # in a convoy of threads. Long ones (with progress) never wait here, so one user's long
        # refinement does not hold up the others.
        with _SHORT_LOCK if progress is None else nullcontext():
            res = _stale_to_rerun(_runner(kind, fn, sc, params, B, progress), sc, list(c.run_ids), B=int(B),
                                  progress=cancellable(progress), threads=threads, **params)
        keep_rows(kind, sc, res, B, params)
        frames = page_alpha(kind, _frames(res, parts), params)
        each = _spent(res, clock, t0) / len(todo)
        with _COSTS_LOCK:
            _COSTS[_cost_key(kind, c, params, B)] = each
            while len(_COSTS) > _COSTS_MAX:
                _COSTS.pop(next(iter(_COSTS)))
        split = {name: dict(tuple(df.groupby("metric", sort=False))) for name, df in frames.items()}
        for k in todo:
            part = {"frames": {name: split[name][k].reset_index(drop=True) if k in split[name] else df.iloc[:0]
                               for name, df in frames.items()},
                    "seconds": each, "B": int(B)}
            fresh[k] = part
            _results().put(_metric_meta_key(kind, c, s, k, params, B), part)
    return _assemble_and_keep(kind, c, s, params, B, got)


def _runner(kind: str, fn, sc: dict, params: dict, B: int, progress):
    """``fn``, or for a long computation (a progress bar and enough work: :func:`dashboard.compute.is_long`)
    the same computation in a child interpreter (:func:`dashboard.compute.in_child`), its queue place and
    elapsed time drawn on the page's bar."""
    if not compute.is_long(limits.meta_workload(kind, sc, params, B), progress):
        return fn
    return compute.in_child(kind, **queue_callbacks(progress, "a free computing slot", "computation", percent=True))


def _spent(res, clock, t0: float) -> float:
    """CPU seconds of a computation: the child's own when it ran in one (this thread only waited), else
    ``clock() - t0``."""
    child_seconds = getattr(res, "cpu_seconds", None)
    return clock() - t0 if child_seconds is None else float(child_seconds)


def _stale_to_rerun(fn, *args, **kw):
    """``fn(*args, **kw)``; when its progress callback cancelled it because a newer move is waiting
    (:func:`dashboard.progress.cancellable`), hand the run over to that move (nothing is kept of the stale work)."""
    try:
        return fn(*args, **kw)
    except _meta.Cancelled:
        interrupt_point()           # raises Streamlit's rerun (or stop) here
        raise                       # a cancel from the caller's own progress callback


def _frames(res, names) -> dict[str, pd.DataFrame]:
    return {n: getattr(res, n) for n in names if getattr(res, n, None) is not None}


# -- the Report page: evalcore report's files ----------------------------------------------------------
def _report_key(c: Collection, argv: list[str]) -> tuple:
    return ("report", c.fingerprint, tuple(argv))


def report_lookup(c: Collection, argv: list[str]):
    """The report already built for this data and these options (by any session), or None."""
    return _results().lookup(_report_key(c, argv))


#: Bytes of kept summary rows (as the row store counts them) a report's child is sent at most: the newest first.
REPORT_ROWS_BYTES = 8 << 20


def _report_rows(args) -> list[tuple]:
    """The rows of :func:`_rows` a report with these (parsed) options can take: those at its seeds (every
    repetition's) and at its B or Tukey B (:func:`evalcore.meta.reuse.row_key`: the metric's scores are a
    digest, so which collection they came from is not known here), the newest first within
    :data:`REPORT_ROWS_BYTES`."""
    from evalcore.meta.repeat import derive_seeds

    seeds = set(derive_seeds(args.seed, args.repeats))
    Bs = {int(args.B), int(args.tukey_B)}
    out, total = [], 0
    for key, row, size in reversed(_rows().items()):
        if not (isinstance(key, tuple) and len(key) == 6 and key[0] == "row" and key[3] in seeds
                and dict(key[5]).get("B") in Bs):
            continue
        if total + size > REPORT_ROWS_BYTES:
            break
        out.append((key, row))
        total += size
    return out


def _report_in_child(c: Collection, args) -> bool:
    """Whether this report is built in a child (:func:`dashboard.compute.report_in_child`): unless
    ``EVALCORE_COMPUTE_INPROCESS=1``, when its work (:func:`evalcore.workload.report_work`, summed) is at
    least ``EVALCORE_COMPUTE_SECONDS`` of one core, as a page's long computation."""
    import os

    from evalcore import workload

    if os.environ.get(compute.INPROCESS_ENV) == "1":
        return False
    work = workload.report_work(min(args.top, c.n_runs), c.n_topics, B=args.B, tukey_B=args.tukey_B,
                                repeats=args.repeats, topic_resamples=args.topic_resamples, topic_B=args.topic_B)
    return sum(w.seconds() for w in work) >= compute.settings().seconds


def report_build(c: Collection, argv: list[str], progress: Progress | None = None):
    """``evalcore report``'s experiment and files for ``argv`` (dashboard.report.build), kept for every
    session; ``progress`` (a :class:`Progress`) shows each step. Raises InputError for options the
    command refuses. A long report (:func:`_report_in_child`) is built in a child interpreter
    (:func:`dashboard.compute.report_in_child`: the same files, byte for byte), sent the kept rows it can
    take and bringing back the rows it computed; its queue place and elapsed time drawn on the bar."""
    from evalcore.cli.report import parse_report_args

    from . import report as _report

    key = _report_key(c, argv)
    got = _results().lookup(key)
    if got is not None:
        return got
    on = (lambda f, m: progress(f, m)) if progress is not None else (lambda f, m: None)
    try:
        args = parse_report_args(argv)
        if _report_in_child(c, args):
            e, files, new = compute.report_in_child(c, argv, _report_rows(args), progress=on,
                                                    **queue_callbacks(progress, "a free computing slot",
                                                                      "computation", percent=True))
            for k, row in new:
                _rows().put(k, row)
            got = (e, files)
        else:
            # every swap, bootstrap, Tukey and stability row a page (or an earlier report) computed with the
            # same scores, seed, B and settings is taken, not computed again: the same files (evalcore.meta.reuse)
            got = _report.build(c, argv, progress=_report.StepProgress(on), reuse=_rows())
    except InputError:
        raise              # already in words for the page (a child over its memory, killed, ...)
    except ValueError as e:
        raise InputError(str(e)) from e
    _results().put(key, got)
    return got
